"""Inputs of the studentized interval: the standard error of the estimate and of
every replicate (closed form for the mean and the proportion, the delta method for
the other smooth built-ins, a user function, or a nested bootstrap on its own
purpose slot of the stream)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._engine import make_statistic, run_bootstrap
from skboot._random import PURPOSE, fill_indices_kernel
from skboot._run._context import RunContext
from skboot._run._delta_method import (
    DELTA_METHOD_STATISTICS,
    delta_method_se,
    power_columns,
)
from skboot._validation import check_int, param_error

__all__ = ["studentized_inputs"]


def studentized_inputs(
    ctx: RunContext, standard_error: Any, n_inner: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The standard error of the estimate and of every replicate, for the
    studentized interval: the closed form of the built-in "mean" and
    "proportion", the delta method of the built-in "sum", "var", "std" and "corr",
    a user function of the data (``standard_error``), or a nested bootstrap of
    ``n_inner`` replicates per replicate."""
    stat = ctx.stat
    if standard_error is None and n_inner is None:
        if stat.builtin_name in ("mean", "proportion"):
            return _mean_studentized(ctx)
        if stat.builtin_name in DELTA_METHOD_STATISTICS:
            return _delta_method_studentized(ctx)
        raise ValueError(
            "The 'studentized' method needs standard_error=callable(data) or "
            "n_inner=int (nested bootstrap); only the built-in 'mean', "
            "'proportion', 'sum', 'var', 'std' and 'corr' have a closed-form "
            "standard error. Got neither."
        )
    if standard_error is not None:
        if not callable(standard_error):
            raise param_error(
                "standard_error",
                "confidence_interval",
                "a callable",
                standard_error,
            )
        return _callable_studentized(ctx, standard_error)
    n_inner = check_int(n_inner, "n_inner", "confidence_interval", min_value=2)
    if ctx.plan.layout != "fixed":
        raise ValueError(
            "The nested studentized interval needs a fixed-size index resampler "
            "(Bootstrap or StratifiedBootstrap). Pass standard_error=callable instead."
        )
    B = ctx.resampler.n_resamples
    if B * n_inner >= 2**32:
        raise param_error(
            "n_inner",
            "confidence_interval",
            "an int with n_resamples * n_inner < 2**32",
            n_inner,
        )
    return _nested_studentized(ctx, n_inner)


def _mean_studentized(ctx: RunContext):
    """se of a replicate mean: sqrt(var_b(ddof=1) / m), same replicates via 'var'."""
    stat = ctx.stat
    var_stat = make_statistic(
        "var",
        ctx.data.arrays,
        vectorized=None,
        statistic_kwargs={"ddof": 1},
        plan=ctx.plan,
        owner="studentized",
    )
    var_b = run_bootstrap(
        var_stat, ctx.plan, ctx.resampler.n_resamples, n_jobs=ctx.n_jobs
    )
    m = ctx.plan.replicate_size if ctx.plan.layout == "fixed" else ctx.data.n_samples
    se_b = np.sqrt(var_b / m)
    X = stat.arrays[0]
    se_hat = X.std(axis=0, ddof=1) / np.sqrt(X.shape[0])
    return _squeeze_k(se_hat), _squeeze_k(se_b)


def _delta_method_studentized(ctx: RunContext):
    """Delta-method se of every replicate from its sums of a few fixed columns
    (:func:`power_columns`), accumulated by the fused "sum" on the same replicates."""
    stat = ctx.stat
    name = str(stat.builtin_name)
    ddof = int(getattr(stat, "ddof", 0))
    P = power_columns(name, stat.arrays[0])
    sum_stat = make_statistic(
        "sum",
        (P,),
        vectorized=None,
        statistic_kwargs=None,
        plan=ctx.plan,
        owner="studentized",
    )
    sums_b = run_bootstrap(
        sum_stat, ctx.plan, ctx.resampler.n_resamples, n_jobs=ctx.n_jobs
    )
    se_b = delta_method_se(name, sums_b, ddof)
    se_hat = delta_method_se(name, P.sum(axis=0)[None, :], ddof)[0]
    return _squeeze_k(se_hat), _squeeze_k(se_b)


def _squeeze_k(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    if a.ndim >= 1 and a.shape[-1] == 1:
        return a[..., 0]
    return a


def _callable_studentized(ctx: RunContext, se_func: Any):
    stat = ctx.stat
    arrays = ctx.data.arrays
    se_stat = make_statistic(
        se_func,
        arrays,
        vectorized=False,
        statistic_kwargs=None,
        plan=ctx.plan,
        owner="studentized standard_error",
    )
    se_b = run_bootstrap(
        se_stat, ctx.plan, ctx.resampler.n_resamples, n_jobs=ctx.n_jobs
    )
    se_hat = se_stat.estimate()
    if se_hat.shape[0] != stat.k:
        raise ValueError(
            f"The 'standard_error' function must return {stat.k} value(s), one per "
            f"statistic output. Got {se_hat.shape[0]} instead."
        )
    return _squeeze_k(se_hat), _squeeze_k(se_b)


def _nested_studentized(ctx: RunContext, n_inner: int):
    """Each outer replicate's se from an inner iid bootstrap of that replicate.

    The inner stream is the "nested" purpose slot at replicate index
    ``b * n_inner + j``, so it is a pure function of (key, b, j) too.
    """
    plan = ctx.plan
    B = ctx.resampler.n_resamples
    stat = ctx.stat
    raw = ctx.data.arrays
    m = plan.replicate_size
    seed, gamma = plan.key.stream(PURPOSE["nested"])
    se_b = np.empty((B, stat.k))
    idx = np.empty((1, m), dtype=plan.index_dtype)
    inner_idx = np.empty(m, dtype=np.int64)
    vals = np.empty((n_inner, stat.k))
    for b in range(B):
        plan.fill_indices_chunk(b, idx)
        outer = tuple(np.take(a, idx[0], axis=0) for a in raw)
        for j in range(n_inner):
            fill_indices_kernel(
                seed, gamma, np.uint64(b * n_inner + j), np.uint64(m), inner_idx
            )
            inner = tuple(np.take(a, inner_idx, axis=0) for a in outer)
            vals[j] = stat.with_arrays(inner).estimate()
        se_b[b] = vals.std(axis=0, ddof=1)
    # se of the estimate itself: the outer bootstrap standard error
    outer = np.asarray(
        run_bootstrap(stat, plan, B, n_jobs=ctx.n_jobs), dtype=float
    ).std(axis=0, ddof=1)
    return _squeeze_k(outer), _squeeze_k(se_b)
