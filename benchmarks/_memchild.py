"""Child process of the memory benchmark: one implementation, one run, one JSON line.

``python -m benchmarks._memchild IMPL N B MODE``

MODE "warm": the baseline is the resident set after imports, data creation and a
tiny warm-up call of the same implementation (so numba compilation or cache
loading is not counted); "cold": the baseline is taken right after imports and
data creation, so the first call's compile/cache-load memory is counted.

Peak is read as VmHWM after resetting it (``echo 5 > /proc/self/clear_refs``,
Linux >= 4.0), so it covers exactly the measured call; where that is not
possible the lifetime ``ru_maxrss`` is used and the JSON says so.
"""

from __future__ import annotations

import gc
import json
import resource
import sys
import time


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def _runner(impl: str, x, B: int):
    import numpy as np

    if impl == "skboot":
        import skboot

        return lambda b: skboot.bootstrap(x, "mean", n_resamples=b, random_state=0)
    if impl == "arch":
        from arch.bootstrap import IIDBootstrap

        return lambda b: IIDBootstrap(x, seed=0).apply(np.mean, b)
    if impl.startswith("scipy"):
        from scipy.stats import bootstrap

        batch = None if impl == "scipy" else int(impl.split("_batch")[1])
        return lambda b: bootstrap(
            (x,),
            np.mean,
            n_resamples=b,
            vectorized=True,
            method="percentile",
            batch=batch,
            rng=np.random.default_rng(0),
        )
    if impl == "tsbootstrap":
        import tsbootstrap
        from tsbootstrap.methods import IID

        return lambda b: tsbootstrap.bootstrap_reduce(
            x,
            method=IID(),
            statistic="mean",
            n_bootstraps=b,
            random_state=0,
            backend="compiled",
        )
    raise ValueError(f"unknown implementation {impl!r}")


def main(argv: list[str]) -> None:
    impl, n, B, mode = argv[0], int(argv[1]), int(argv[2]), argv[3]
    import numpy as np

    x = np.random.default_rng(12345).normal(size=n)
    run = _runner(impl, x, B)
    rss_after_import = _status_kib("VmRSS")
    if mode == "warm":
        run(10)
    gc.collect()
    base = _status_kib("VmRSS")
    exact = _reset_peak()
    t0 = time.perf_counter()
    run(B)
    seconds = time.perf_counter() - t0
    if exact:
        peak = _status_kib("VmHWM")
    else:  # pragma: no cover - old kernels
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "impl": impl,
                "n": n,
                "B": B,
                "mode": mode,
                "rss_after_import_kib": rss_after_import,
                "baseline_kib": base,
                "peak_kib": peak,
                "delta_bytes": (peak - base) * 1024,
                "seconds": seconds,
                "peak_method": "VmHWM after clear_refs" if exact else "ru_maxrss",
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
