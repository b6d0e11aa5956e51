"""skboot's own kernels and fixed costs, timed alone (no peers).

``python -m benchmarks.kernels`` prints, for the skboot it imports:

* the fused mean kernel in ns per draw (n = 10,000, B = 2,000 and n = 100,
  B = 10,000), called directly so that nothing but the kernel is timed;
* column means and variances of a 64-byte-aligned 10,000 x 8 array, B = 2,000,
  through the scalar kernel (``iid_moments``) and, when present, the vector row
  kernel (``iid_moments_tiled``);
* a plain callable's overhead per replicate (a statistic that returns 0.0);
* the jackknife of ``np.median`` at n = 10,000 (plain and vectorized).

It only uses functions that older checkouts also have, so before/after numbers
come from the same script: copy it into an older checkout (``git worktree add``)
and run ``python -m benchmarks.kernels`` there (the first line printed names the
skboot that ran).  Medians of 9-15 calls; the
machine is shared, so compare numbers from runs made minutes apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _median_time(fn: Callable[[], Any], reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _aligned(a: np.ndarray) -> np.ndarray:
    raw = np.empty(a.nbytes + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _kernel_namespace() -> Any:
    """The iid kernels, wherever this checkout keeps them: the package
    ``skboot._kernels`` (``iid`` module) or the older flat ``skboot._kernels``."""
    import importlib

    try:
        return importlib.import_module("skboot._kernels.iid")
    except ImportError:
        return importlib.import_module("skboot._kernels")


def main() -> None:
    import skboot
    from skboot._random import check_random_state

    K = _kernel_namespace()

    print(f"skboot from {skboot.__file__}")
    seed, gamma = check_random_state(0).stream(0)
    rows = []
    for n, B in ((10_000, 2_000), (100, 10_000)):
        x = np.random.default_rng(1).normal(size=n)
        out = np.empty(B)
        t = _median_time(
            lambda x=x, n=n, out=out: K.iid_sum_1d(x, seed, gamma, 0, n, out), 15
        )
        rows.append(
            (f"mean kernel, n={n:,}, B={B:,}", f"{t / (n * B) * 1e9:.3f} ns/draw")
        )
    X = _aligned(np.random.default_rng(2).normal(size=(10_000, 8)))
    o1, o2 = np.empty((2_000, 8)), np.empty((2_000, 8))
    for want2, what in ((False, "column means"), (True, "column variances")):
        for kname in ("iid_moments", "iid_moments_tiled"):
            kern = getattr(K, kname, None)
            if kern is None:
                rows.append(
                    (f"{what} 10,000 x 8, {kname}", "n/a (not in this checkout)")
                )
                continue
            t = _median_time(
                lambda kern=kern, want2=want2: kern(
                    X, seed, gamma, 0, 10_000, want2, o1, o2
                ),
                9,
            )
            rows.append((f"{what} 10,000 x 8, B=2,000, {kname}", f"{t * 1e3:.1f} ms"))
    for n in (10_000, 100):
        xs = np.random.default_rng(3).normal(size=n)
        t = _median_time(
            lambda xs=xs: skboot.bootstrap(
                xs, _zero, n_resamples=2_000, random_state=0, vectorized=False
            ),
            9,
        )
        rows.append(
            (f"plain callable overhead, n={n:,}", f"{t / 2_000 * 1e6:.1f} µs/replicate")
        )
    xm = np.random.default_rng(4).normal(size=10_000)
    for vec in (False, True):
        res = skboot.bootstrap(
            xm, np.median, n_resamples=10, random_state=0, vectorized=vec
        )
        t = _median_time(res.jackknife_values, 3)
        kind = "vectorized" if vec else "plain"
        rows.append((f"jackknife of np.median, n=10,000, {kind}", f"{t:.2f} s"))
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def _zero(a: np.ndarray) -> float:
    return 0.0


if __name__ == "__main__":
    main()
