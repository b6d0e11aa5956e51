"""How far each fused var is from the exact value, next to numpy on the same replicate.

``python -m benchmarks.precision`` prints, for every resampler (1-D data) and for
iid columns (d = 3, 8, 24), the worst error in ulps of ``var`` over four replicates
at n = 100,000 (offset 0, where numpy's pairwise sums are within an ulp), against
the long-double value of the replicate ``x[replicate(b).indices]`` (or its
weights), and numpy's own error on the same replicate.  These are the numbers
quoted in CHANGELOG and docs/architecture.md for the pairwise cascade
(``skboot/_kernels/cascade.py``); ``tests/test_precision.py`` asserts them.

``--time`` instead times the workloads whose kernels the cascade changed (medians
of 7, n = 10,000), for before/after comparisons: copy this file into an older
checkout's ``benchmarks/`` (it imports nothing else from there) and run
``python -m benchmarks.precision --time`` in the two checkouts alternately.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

N = 100_000
B = 4
LD = np.longdouble


def _exact_var(v: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Long-double var per column (weights ``w``), on ``v - v[0]`` (exact)."""
    v = np.asarray(v, LD).reshape(v.shape[0], -1)
    w = np.ones(v.shape[0], LD) if w is None else np.asarray(w, LD)
    d = v - v[0]
    mean = (w[:, None] * d).sum(axis=0) / w.sum()
    return ((w[:, None] * (d - mean) ** 2).sum(axis=0) / w.sum()).astype(np.float64)


def _numpy_var(v: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    cols = np.ascontiguousarray(v.reshape(v.shape[0], -1).T)
    if w is None:
        return np.array([np.var(c) for c in cols])
    out = []
    for c in cols:
        m = np.average(c, weights=w)
        out.append(np.average((c - m) ** 2, weights=w))
    return np.array(out)


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(got) - want) / np.spacing(want)))


def _schemes() -> dict[str, Callable[[], object]]:
    from skboot import resamplers as r

    return {
        "iid": lambda: r.Bootstrap(B, random_state=1),
        "m-out-of-n": lambda: r.Bootstrap(B, sample_size=N // 3, random_state=1),
        "stratified": lambda: r.StratifiedBootstrap(B, random_state=1),
        "group": lambda: r.GroupBootstrap(B, random_state=1),
        "poisson": lambda: r.PoissonBootstrap(B, random_state=1),
        "bayesian": lambda: r.BayesianBootstrap(B, random_state=1),
        "moving": lambda: r.MovingBlockBootstrap(B, block_length=10, random_state=1),
        "circular": lambda: r.CircularBlockBootstrap(
            B, block_length=10, random_state=1
        ),
        "stationary": lambda: r.StationaryBootstrap(B, block_length=10, random_state=1),
        "non-overlapping": lambda: r.NonOverlappingBlockBootstrap(
            B, block_length=10, random_state=1
        ),
        "tapered": lambda: r.TaperedBlockBootstrap(B, block_length=10, random_state=1),
    }


#: schemes whose replicates are continuous weights (no indices)
WEIGHTED = ("bayesian", "tapered")


def _row(
    x: np.ndarray, name: str, make: Callable[[], object], y, groups
) -> tuple[float, float]:
    from skboot import bootstrap

    kw = {"y": y, "groups": groups}
    dist = np.asarray(bootstrap(x, "var", resampler=make(), **kw).distribution)
    dist = dist.reshape(B, -1)
    fitted = make().fit(x, y, groups)  # type: ignore[attr-defined]
    worst_f = worst_np = 0.0
    for b in range(B):
        rep = fitted.replicate(b)
        v, w = (x, rep.weights) if name in WEIGHTED else (x[rep.indices], None)
        want = _exact_var(v, w)
        worst_f = max(worst_f, _ulps(dist[b], want))
        worst_np = max(worst_np, _ulps(_numpy_var(v, w), want))
    return worst_f, worst_np


def precision() -> None:
    gen = np.random.default_rng(0)
    x = gen.normal(size=N)
    y = np.random.default_rng(7).integers(0, 3, size=N)
    groups = np.arange(N) // 10
    print(f"var, n = {N:,}, offset 0, worst of {B} replicates (ulps of the value)")
    print(f"  {'scheme':18s} {'fused':>6s} {'numpy':>6s}")
    for name, make in _schemes().items():
        f, n = _row(x, name, make, y, groups)
        print(f"  {name:18s} {f:6.0f} {n:6.0f}")
    for d in (3, 8, 24):
        X = np.random.default_rng(1).normal(size=(N, d))
        f, n = _row(X, "iid", _schemes()["iid"], None, None)
        print(f"  {'iid, d = ' + str(d):18s} {f:6.0f} {n:6.0f}")


def timing() -> None:
    from skboot import bootstrap
    from skboot import resamplers as r

    x = np.random.default_rng(0).normal(size=10_000)
    y = np.arange(10_000) % 5
    g = np.arange(10_000) // 100
    X8 = np.random.default_rng(0).normal(size=(10_000, 8))
    X50 = np.random.default_rng(0).normal(size=(10_000, 50))
    cases: dict[str, Callable[[], object]] = {
        "iid var": lambda: bootstrap(x, "var", n_resamples=2000, random_state=0),
        "moving var L=10": lambda: bootstrap(
            x, "var", resampler=r.MovingBlockBootstrap(2000, block_length=10)
        ),
        "stationary mean": lambda: bootstrap(
            x, "mean", resampler=r.StationaryBootstrap(2000, block_length=10)
        ),
        "poisson var": lambda: bootstrap(x, "var", resampler=r.PoissonBootstrap(2000)),
        "stratified var": lambda: bootstrap(
            x, "var", y=y, resampler=r.StratifiedBootstrap(2000)
        ),
        "group mean": lambda: bootstrap(
            x, "mean", groups=g, resampler=r.GroupBootstrap(2000)
        ),
        "iid d=8 var (B=500)": lambda: bootstrap(X8, "var", n_resamples=500),
        "iid d=50 mean (B=500)": lambda: bootstrap(X50, "mean", n_resamples=500),
    }
    for f in cases.values():
        f()
    for name, f in cases.items():
        ts = []
        for _ in range(7):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        print(f"  {name:24s} {np.median(ts) * 1e3:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.precision")
    parser.add_argument("--time", action="store_true", help="time the workloads")
    args = parser.parse_args()
    timing() if args.time else precision()


if __name__ == "__main__":
    main()
