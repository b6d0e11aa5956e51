"""Speed of the calibrated intervals' double bootstrap, in one process.

``python -m benchmarks.calibrated_speed [--reps R] [--n N] [--n-resamples B1]
[--n-inner B2]``

Times (median of ``R`` interleaved rounds, after one warm-up call that compiles
the kernels) one ``confidence_interval(method="calibrated")`` on a finished run of
``bootstrap(x, statistic, n_resamples=B1)`` for: the fused kernel ("mean",
"var"), a vectorized callable (one call per replicate on an ``(B2, n)`` batch),
a plain callable (``np.mean``, one call per inner replicate; fewer rounds), and,
as the baseline a user would write, a numpy double loop (per replicate, one
``(B2, n)`` fancy-index gather of ``numpy.random.Generator.integers`` indices and
a ``mean(axis=1)``). Ratios are against that baseline. It measures, it does not
assert.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np


def _numpy_double_loop(x: np.ndarray, b1: int, b2: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    n = x.shape[0]
    est = x.mean()
    u = np.empty(b1)
    for b in range(b1):
        outer = x[rng.integers(0, n, n)]
        inner = outer[rng.integers(0, n, (b2, n))].mean(axis=1)
        u[b] = np.count_nonzero(inner <= est) / b2
    return u


def main(argv: list[str] | None = None) -> int:
    from skboot import bootstrap

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--n", type=int, default=15)
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--n-inner", type=int, default=200)
    args = parser.parse_args(argv)
    n, b1, b2 = args.n, args.n_resamples, args.n_inner
    x = np.random.default_rng(1).exponential(size=n)

    def vec_mean(a: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(a, axis=axis)

    runs = {
        "fused mean": bootstrap(x, "mean", n_resamples=b1, random_state=0),
        "fused var": bootstrap(x, "var", n_resamples=b1, random_state=0),
        "vectorized callable": bootstrap(
            x, vec_mean, vectorized=True, n_resamples=b1, random_state=0
        ),
        "plain callable np.mean": bootstrap(x, np.mean, n_resamples=b1, random_state=0),
    }
    cases: dict[str, Callable[[], object]] = {
        name: (lambda r=r: r.confidence_interval(method="calibrated", n_inner=b2))
        for name, r in runs.items()
    }
    cases["percentile (no double bootstrap)"] = lambda: runs[
        "fused mean"
    ].confidence_interval(method="percentile")
    cases["numpy double loop (baseline)"] = lambda: _numpy_double_loop(x, b1, b2)
    times: dict[str, list[float]] = {k: [] for k in cases}
    for f in cases.values():
        f()  # compile / warm
    load = os.getloadavg()
    for rep in range(args.reps):
        for name, f in cases.items():
            if name.startswith("plain") and rep >= 3:
                continue  # seconds per call: three rounds
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    base = float(np.median(times["numpy double loop (baseline)"]))
    draws = b1 * b2 * n
    print(
        f"n = {n}, B1 = {b1}, B2 = {b2} ({draws:,} inner draws); median of "
        f"{args.reps} rounds (plain callable: 3); load average {load[0]:.1f} at "
        f"the start, {os.getloadavg()[0]:.1f} at the end"
    )
    print("| case | median s | ns per inner draw | baseline / case |")
    print("| --- | --- | --- | --- |")
    for name, ts in times.items():
        med = float(np.median(ts))
        print(f"| {name} | {med:.4f} | {med / draws * 1e9:.1f} | {base / med:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
