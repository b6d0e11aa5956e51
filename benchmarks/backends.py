"""Parallel backends (issue 8): n_jobs=2 under loky and threading vs n_jobs=1.

Two workloads, each timed interleaved with the serial run:

* large: mean, n=100,000, B=20,000 (quick: B=2,000), where dispatch is noise;
* tiny: ``np.mean`` as a vectorized callable, n=1,000, B=64, where dispatch is
  everything (a callable, because the engine runs built-in statistics below a few
  million draws in-process whatever ``n_jobs`` says).

skboot's engine cuts ``[0, B)`` into ``skboot._engine.plan_tasks(B, n_workers)``
joblib tasks (``min(B, 4 * n_workers)``: 8 tasks with 2 workers, 4 per worker).  The overhead per task is estimated as the time above perfect scaling,
``(T_parallel - T_serial / n_workers) * n_workers / n_tasks``.  The run also
checks that every backend returns the bit-identical distribution.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._harness import measure_interleaved, median

__all__ = ["run_backends"]

N_WORKERS = 2


def _n_tasks(B: int) -> int:
    try:
        from skboot._engine import plan_tasks
    except ImportError:  # older engine: the same rule
        return min(B, 4 * N_WORKERS)
    return len(plan_tasks(B, N_WORKERS)) - 1


def _impls(x: np.ndarray, B: int, statistic: Any) -> dict[str, Callable[[], Any]]:
    import joblib

    import skboot

    def serial() -> Any:
        return skboot.bootstrap(x, statistic, n_resamples=B, random_state=0, n_jobs=1)

    def under(backend: str) -> Callable[[], Any]:
        def run() -> Any:
            with joblib.parallel_config(backend=backend):
                return skboot.bootstrap(
                    x, statistic, n_resamples=B, random_state=0, n_jobs=N_WORKERS
                )

        return run

    return {"n_jobs=1": serial, "loky": under("loky"), "threading": under("threading")}


def run_backends(quick: bool, reps: int, log: Callable[[str], None]) -> dict[str, Any]:
    out: dict[str, Any] = {"n_workers": N_WORKERS, "workloads": []}
    rng = np.random.default_rng(12345)
    for label, statistic, n, B in (
        ("large", "mean", 100_000, 2_000 if quick else 20_000),
        ("tiny", np.mean, 1_000, 64),
    ):
        x = rng.normal(size=n)
        impls = _impls(x, B, statistic)
        dists = {k: np.asarray(f().distribution) for k, f in impls.items()}
        identical = all(np.array_equal(dists["n_jobs=1"], d) for d in dists.values())
        log(f"  backends {label} n={n:,} B={B:,} ")
        timings = measure_interleaved(impls, reps, warmup=1, log=log)
        log("\n")
        n_tasks = _n_tasks(B)
        t_ser = median(timings["n_jobs=1"]["times"])
        summary = {}
        for k in ("loky", "threading"):
            t_par = median(timings[k]["times"])
            summary[k] = {
                "median_s": t_par,
                "speedup": t_ser / t_par,
                "overhead_per_task_s": (t_par - t_ser / N_WORKERS)
                * N_WORKERS
                / n_tasks,
            }
        out["workloads"].append(
            {
                "label": label,
                "statistic": statistic
                if isinstance(statistic, str)
                else "np.mean (vectorized callable)",
                "n": n,
                "B": B,
                "n_tasks": n_tasks,
                "serial_median_s": t_ser,
                "bit_identical": bool(identical),
                "timings": timings,
                "summary": summary,
            }
        )
    return out
