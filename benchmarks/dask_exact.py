"""The partition kernels of the data-parallel schemes, one partition, in process.

``python -m benchmarks.dask_exact [--m M] [--B B] [--reps R]``

One partition of ``m`` rows (default 1,000,000) of ``5 + sin(i)``, B replicates
(default 200), the "mean" sums a partition returns; timed interleaved, medians of
``--reps`` repetitions, as nanoseconds per (row x replicate) and as a ratio to
the Poisson kernel (the data-parallel ``PoissonBootstrap``):

* ``poisson``: :func:`skboot._run._dask_sums.partition_sums`;
* ``exact iid``: :func:`skboot._run._dask_exact.exact_partition`, one stratum
  (``Bootstrap``), its draws Binomial(m, 1/2) (half of the data's rows here);
* ``exact, 4 strata``: the same with four strata (``StratifiedBootstrap``);
* ``hashed groups``: :func:`skboot._run._dask_exact.group_partition`, group ids
  ``i // 10`` (``GroupBootstrap``), hashing included;
* ``..., one at a time``: the same partition through the one-replicate
  reference kernels (:func:`skboot._kernels.exact_rows.exact_rows_one`,
  :func:`~skboot._kernels.exact_rows.group_poisson_one`; equal bit for bit),
  for the speed-up of eight replicates per pass;
* ``client binomials``: the client's table for 100 partitions and one stratum
  (:func:`skboot._kernels.exact_rows.partition_draws`), per binomial.

The load average is printed: compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _swapped(name: str, kernel: Callable[..., None], f: Callable[[], Any]):
    """``f`` run with the data-parallel run layer's kernel ``name`` swapped for
    ``kernel`` (the one-replicate reference), restored afterwards."""
    from skboot._run import _dask_exact

    def run() -> Any:
        kept = getattr(_dask_exact, name)
        setattr(_dask_exact, name, kernel)
        try:
            return f()
        finally:
            setattr(_dask_exact, name, kept)

    return run


def main() -> None:
    from skboot._kernels.exact_rows import (
        exact_rows_one,
        group_poisson_one,
        partition_draws,
    )
    from skboot._random import PURPOSE, check_random_state, substream_seed
    from skboot._run._dask_exact_rows import exact_partition, group_partition
    from skboot._run._dask_sums import partition_sums

    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=1_000_000)
    ap.add_argument("--B", type=int, default=200)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    m, B = a.m, a.B
    x = 5.0 + np.sin(np.arange(m, dtype=np.float64))
    key = check_random_state(0)
    ps, pg = key.stream(PURPOSE["poisson"])
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    rng = np.random.default_rng(1)
    one = rng.binomial(2 * m, 0.5, size=(B, 1)).astype(np.int64)
    strata = np.arange(m) % 4
    four = rng.binomial(2 * m // 4, 0.5, size=(B, 4)).astype(np.int64)
    seeds1 = np.array([substream_seed(seed, 1)])
    seeds4 = np.array([substream_seed(seed, s + 1) for s in range(4)])
    groups = np.arange(m) // 10
    labels = np.arange(4)
    P = 100
    sizes = np.full((1, P), m // P, dtype=np.int64)
    table = np.empty((P, B, 1), dtype=np.int64)
    cases = {
        "poisson": lambda: partition_sums(x, 0, ps, pg, B, False),
        "exact iid": lambda: exact_partition(x, None, None, one, seeds1, gamma, False),
        "exact, 4 strata": lambda: exact_partition(
            x, strata, labels, four, seeds4, gamma, False
        ),
        "hashed groups": lambda: group_partition(x, groups, seed, gamma, B, False),
        "exact iid, one at a time": _swapped(
            "exact_rows_moments",
            exact_rows_one,
            lambda: exact_partition(x, None, None, one, seeds1, gamma, False),
        ),
        "exact, 4 strata, one at a time": _swapped(
            "exact_rows_moments",
            exact_rows_one,
            lambda: exact_partition(x, strata, labels, four, seeds4, gamma, False),
        ),
        "hashed groups, one at a time": _swapped(
            "group_poisson_moments",
            group_poisson_one,
            lambda: group_partition(x, groups, seed, gamma, B, False),
        ),
        "client binomials": lambda: partition_draws(
            seed, gamma, np.uint64(0), np.array([m]), sizes, table
        ),
    }
    for f in cases.values():  # compile
        f()
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(a.reps):
        for name, f in cases.items():
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"m = {m}, B = {B}, reps = {a.reps}, load average {os.getloadavg()}")
    for name in cases:
        if name == "client binomials":
            per = med[name] / (P * B) * 1e9
            print(f"{name:30s} {per:8.1f} ns per binomial")
        else:
            per = med[name] / (m * B) * 1e9
            ratio = med[name] / med["poisson"]
            print(
                f"{name:30s} {per:8.2f} ns per row x replicate  {ratio:5.2f} x poisson"
            )


if __name__ == "__main__":
    main()
