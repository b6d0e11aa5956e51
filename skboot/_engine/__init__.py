"""The engine: turns (statistic, plan, n_resamples) into the bootstrap distribution,
shape (B, k), one cache-sized chunk of replicates at a time, never holding B x n.

* :mod:`~skboot._engine._statistic`: the :class:`Statistic` protocol;
* :mod:`~skboot._engine._dispatch`: chunk sizing, joblib tasks, progress,
  :func:`run_bootstrap`;
* :mod:`~skboot._engine._builtin`: the fused built-in statistics;
* :mod:`~skboot._engine._rows`: rows as float64, their centring (as precise as
  numpy on the same replicate) and the statistics of centred sums (numpy only);
* :mod:`~skboot._engine._callable`: user callables, vectorized or plain;
* :mod:`~skboot._engine._refit`: estimator refits;
* :mod:`~skboot._engine._make`: validate a statistic and build its engine object;
* :mod:`~skboot._engine._jackknife`: the jackknife of callables, through the engine;
* :mod:`~skboot._engine.cuda`: the optional GPU path (host side).

Tiers, fastest first: fused built-ins (numba; no index array for the iid scheme,
prefix sums for blocks, per-row weights otherwise), vectorized callables (one call
per chunk on a reused buffer), plain callables (one call per replicate on a reused
buffer), estimator refits.

The names load lazily (:func:`skboot._lazy.lazy_exports`), so a dask worker
that needs the numpy helpers of :mod:`~skboot._engine._rows` does not load
joblib, the resamplers and scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skboot._lazy import lazy_exports

if TYPE_CHECKING:
    from skboot._engine._builtin import BUILTIN_STATISTICS, BuiltinStatistic
    from skboot._engine._callable import CallableStatistic
    from skboot._engine._dispatch import (
        MAX_CHUNK_DRAWS,
        MIN_PARALLEL_DRAWS,
        Progress,
        cache_budget,
        chunk_size_for,
        detach_plan,
        lanes_round,
        plan_tasks,
        run_bootstrap,
    )
    from skboot._engine._jackknife import callable_jackknife
    from skboot._engine._make import make_statistic
    from skboot._engine._ols import (
        MAX_OLS_FEATURES,
        OLSStatistic,
        collinear_columns,
        collinear_error,
        collinear_in,
        make_ols,
        ols_fit_intercept,
        ols_jackknife,
    )
    from skboot._engine._refit import (
        EstimatorStatistic,
        RefitMixin,
        check_refit_mode,
        n_rows,
        take_rows,
    )
    from skboot._engine._rows import (
        aligned_rows,
        as_float_rows,
        centre_of,
        centred_rows,
        coefficients,
        corr_from_sums,
        design_rows,
        moments_to_values,
    )
    from skboot._engine._statistic import (
        FAILED,
        FAILURES,
        Failure,
        Statistic,
        accepts,
        as_output,
        call_replicate,
    )

#: Name -> the module that defines it (imported on first access).
_EXPORTS = {
    "BUILTIN_STATISTICS": "skboot._engine._builtin",
    "BuiltinStatistic": "skboot._engine._builtin",
    "aligned_rows": "skboot._engine._rows",
    "as_float_rows": "skboot._engine._rows",
    "centre_of": "skboot._engine._rows",
    "centred_rows": "skboot._engine._rows",
    "corr_from_sums": "skboot._engine._rows",
    "moments_to_values": "skboot._engine._rows",
    "CallableStatistic": "skboot._engine._callable",
    "MAX_CHUNK_DRAWS": "skboot._engine._dispatch",
    "MIN_PARALLEL_DRAWS": "skboot._engine._dispatch",
    "Progress": "skboot._engine._dispatch",
    "cache_budget": "skboot._engine._dispatch",
    "chunk_size_for": "skboot._engine._dispatch",
    "detach_plan": "skboot._engine._dispatch",
    "lanes_round": "skboot._engine._dispatch",
    "plan_tasks": "skboot._engine._dispatch",
    "run_bootstrap": "skboot._engine._dispatch",
    "callable_jackknife": "skboot._engine._jackknife",
    "make_statistic": "skboot._engine._make",
    "MAX_OLS_FEATURES": "skboot._engine._ols",
    "OLSStatistic": "skboot._engine._ols",
    "coefficients": "skboot._engine._rows",
    "collinear_columns": "skboot._engine._ols",
    "collinear_error": "skboot._engine._ols",
    "collinear_in": "skboot._engine._ols",
    "design_rows": "skboot._engine._rows",
    "make_ols": "skboot._engine._ols",
    "ols_fit_intercept": "skboot._engine._ols",
    "ols_jackknife": "skboot._engine._ols",
    "EstimatorStatistic": "skboot._engine._refit",
    "RefitMixin": "skboot._engine._refit",
    "check_refit_mode": "skboot._engine._refit",
    "n_rows": "skboot._engine._refit",
    "take_rows": "skboot._engine._refit",
    "FAILED": "skboot._engine._statistic",
    "FAILURES": "skboot._engine._statistic",
    "Failure": "skboot._engine._statistic",
    "Statistic": "skboot._engine._statistic",
    "accepts": "skboot._engine._statistic",
    "as_output": "skboot._engine._statistic",
    "call_replicate": "skboot._engine._statistic",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "BUILTIN_STATISTICS",
    "FAILED",
    "FAILURES",
    "MAX_CHUNK_DRAWS",
    "MAX_OLS_FEATURES",
    "MIN_PARALLEL_DRAWS",
    "BuiltinStatistic",
    "CallableStatistic",
    "EstimatorStatistic",
    "Failure",
    "OLSStatistic",
    "Progress",
    "RefitMixin",
    "Statistic",
    "accepts",
    "aligned_rows",
    "as_float_rows",
    "as_output",
    "cache_budget",
    "call_replicate",
    "callable_jackknife",
    "centre_of",
    "centred_rows",
    "check_refit_mode",
    "chunk_size_for",
    "coefficients",
    "collinear_columns",
    "collinear_error",
    "collinear_in",
    "corr_from_sums",
    "design_rows",
    "detach_plan",
    "lanes_round",
    "make_ols",
    "make_statistic",
    "moments_to_values",
    "n_rows",
    "ols_fit_intercept",
    "ols_jackknife",
    "plan_tasks",
    "run_bootstrap",
    "take_rows",
]
