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
a ``mean(axis=1)``). Ratios are against that baseline.

A second table times "mean" under the other resamplers that nest (stratified,
two strata; group, groups of 3; Poisson; moving, circular and non-overlapping
blocks of 3; stationary, mean length 3) on ``--scheme-n`` rows: the fused
kernel (``confidence_interval``) and, in the same rounds, the per-replicate path
it replaces (one nested plan and one rebuilt statistic per outer replicate,
``_generic_counts``), with their ratio. It measures, it does not assert.
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
    parser.add_argument("--scheme-n", type=int, default=30)
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
    _schemes(args.scheme_n, b1, b2, args.reps)
    return 0


def _scheme_runs(n: int, b1: int) -> dict[str, object]:
    from skboot import (
        Bootstrap,
        CircularBlockBootstrap,
        GroupBootstrap,
        MovingBlockBootstrap,
        NonOverlappingBlockBootstrap,
        PoissonBootstrap,
        StationaryBootstrap,
        StratifiedBootstrap,
        bootstrap,
    )

    x = np.random.default_rng(1).exponential(size=n)
    made = {
        "iid (fused before)": (Bootstrap(b1, random_state=0), {}),
        "stratified": (
            StratifiedBootstrap(b1, random_state=0),
            {"y": np.arange(n) % 2},
        ),
        "group": (GroupBootstrap(b1, random_state=0), {"groups": np.arange(n) // 3}),
        "poisson": (PoissonBootstrap(b1, random_state=0), {}),
        "moving": (MovingBlockBootstrap(b1, block_length=3, random_state=0), {}),
        "circular": (CircularBlockBootstrap(b1, block_length=3, random_state=0), {}),
        "nonoverlapping": (
            NonOverlappingBlockBootstrap(b1, block_length=3, random_state=0),
            {},
        ),
        "stationary": (StationaryBootstrap(b1, block_length=3.0, random_state=0), {}),
    }
    return {
        name: bootstrap(x, "mean", resampler=r, **kw) for name, (r, kw) in made.items()
    }


def _schemes(n: int, b1: int, b2: int, reps: int) -> None:
    """The second table of the module notes."""
    from skboot._run._calibration import _generic_counts

    runs = _scheme_runs(n, b1)

    def fused(r: object) -> object:
        return r.confidence_interval(method="calibrated", n_inner=b2)  # type: ignore[attr-defined]

    def per_replicate(r: object) -> object:
        ctx = r._context  # type: ignore[attr-defined]
        args = (ctx.stat, ctx.stat, ctx.plan, ctx.data.arrays, b2)
        return _generic_counts(0, b1, *args)

    times: dict[tuple[str, str], list[float]] = {}
    for r in runs.values():
        fused(r)  # compile / warm
    load = os.getloadavg()
    for _ in range(reps):
        for name, r in runs.items():
            for path, f in (("fused", fused), ("per-replicate", per_replicate)):
                t = time.perf_counter()
                f(r)
                times.setdefault((name, path), []).append(time.perf_counter() - t)
    iid = float(np.median(times["iid (fused before)", "fused"]))
    print()
    print(
        f'"mean", n = {n}, B1 = {b1}, B2 = {b2}; median of {reps} rounds; load '
        f"average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    print(
        "| resampler | fused s | per-replicate s | per-replicate / fused | fused / iid |"
    )
    print("| --- | --- | --- | --- | --- |")
    for name in runs:
        f = float(np.median(times[name, "fused"]))
        p = float(np.median(times[name, "per-replicate"]))
        print(f"| {name} | {f:.4f} | {p:.4f} | {p / f:.1f} | {f / iid:.2f} |")


if __name__ == "__main__":
    raise SystemExit(main())
