"""The engine: turns (statistic, plan, n_resamples) into the bootstrap distribution,
shape (B, k), one cache-sized chunk of replicates at a time, never holding B x n.

* :mod:`~skboot._engine._statistic`: the :class:`Statistic` protocol;
* :mod:`~skboot._engine._dispatch`: chunk sizing, joblib tasks, progress,
  :func:`run_bootstrap`;
* :mod:`~skboot._engine._builtin`: the fused built-in statistics and their centring;
* :mod:`~skboot._engine._callable`: user callables, vectorized or plain;
* :mod:`~skboot._engine._refit`: estimator refits;
* :mod:`~skboot._engine._make`: validate a statistic and build its engine object;
* :mod:`~skboot._engine._jackknife`: the jackknife of callables, through the engine;
* :mod:`~skboot._engine.cuda`: the optional GPU path (host side).

Tiers, fastest first: fused built-ins (numba; no index array for the iid scheme,
prefix sums for blocks, per-row weights otherwise), vectorized callables (one call
per chunk on a reused buffer), plain callables (one call per replicate on a reused
buffer), estimator refits.
"""

from skboot._engine._builtin import (
    BUILTIN_STATISTICS,
    BuiltinStatistic,
    aligned_rows,
    as_float_rows,
    centre_of,
    centred_rows,
    corr_from_sums,
    moments_to_values,
)
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
    coefficients,
    collinear_columns,
    collinear_error,
    collinear_in,
    design_rows,
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
from skboot._engine._statistic import (
    FAILED,
    FAILURES,
    Failure,
    Statistic,
    accepts,
    as_output,
    call_replicate,
)

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
