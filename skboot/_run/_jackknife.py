"""The jackknife of a run, for the BCa acceleration: leave-one-out values (closed
forms for built-ins, the engine for callables), delete-one-group values (plans with
their own units, or seeded random groups), the multi-sample forms for strata and
independent samples, and the automatic choice between them."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from skboot._engine import callable_jackknife
from skboot._random import PURPOSE, reference_uniforms
from skboot._run._context import RunContext
from skboot._validation import param_error, value_error

__all__ = [
    "AUTO_JACKKNIFE_GROUPS",
    "auto_jackknife_groups",
    "check_jackknife_groups",
    "jackknife",
    "random_jackknife_groups",
    "stratified_jackknife",
]

#: The automatic jackknife of ``confidence_interval(method="bca")``: a statistic
#: whose jackknife costs one evaluation per row (callables, estimator refits) on
#: more than this many rows gets a delete-a-group jackknife over this many seeded
#: random groups instead (see ``jackknife_groups``).
AUTO_JACKKNIFE_GROUPS = 1000


def jackknife(ctx: RunContext, groups: int | None = None) -> np.ndarray:
    """Leave-one-out values, or delete-one-group values when the plan says the
    resampling units are groups or blocks (``plan.jackknife_groups``) or the
    caller asked for ``groups`` random groups."""
    stat, plan = ctx.stat, ctx.plan
    if plan.sample_plans is not None:
        return _independent_jackknife(ctx)
    codes = plan.jackknife_groups
    if groups is not None:
        codes = random_jackknife_groups(plan.key, stat.arrays[0].shape[0], groups)
    if stat.jackknife_by_engine:
        # the engine evaluates the callable on the jackknife samples in chunks
        return callable_jackknife(
            stat, plan.key, codes, n_jobs=ctx.n_jobs, progress=ctx.progress
        )
    if codes is None:
        return stat.jackknife()
    values = stat.group_jackknife(codes)
    if values is not None:
        return values
    G = int(codes.max()) + 1
    out = np.empty((G, stat.k))
    for g in range(G):
        out[g] = stat.subset(np.flatnonzero(codes != g)).estimate()
    return out


def _independent_jackknife(ctx: RunContext) -> np.ndarray:
    """Multi-sample jackknife, scaled so the one-sample acceleration formula gives
    the multi-sample one (Efron & Tibshirani 1993, sec. 14.3; scipy's convention):
    sample ``j``'s leave-one-out values are centred on their own mean and scaled by
    ``(n_j - 1) / n_j``, then concatenated."""
    stat = ctx.stat
    per_sample = stat.sample_jackknife()
    if per_sample is not None:  # closed forms per sample (built-ins)
        return np.concatenate(
            [
                (v - v.mean(axis=0)) * ((v.shape[0] - 1) / v.shape[0])
                for v in per_sample
            ],
            axis=0,
        )
    arrays = stat.arrays
    parts = []
    for j, a in enumerate(arrays):
        n_j = a.shape[0]
        vals = np.empty((n_j, stat.k))
        base = np.arange(n_j)
        for i in range(n_j):
            sub = list(arrays)
            sub[j] = np.take(a, np.delete(base, i), axis=0)
            vals[i] = stat.with_arrays(tuple(sub)).estimate()
        parts.append((vals - vals.mean(axis=0)) * ((n_j - 1) / n_j))
    return np.concatenate(parts, axis=0)


def stratified_jackknife(jk: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Leave-one-out values rescaled so that the one-sample acceleration formula
    of :func:`skboot.intervals.bca_interval` gives the multi-sample one.

    The strata of a stratified bootstrap are independent samples; Efron &
    Tibshirani (1993, section 14.3) compute the acceleration from the influence
    values ``U_ji = (n_j - 1) (mean_j - theta_(ji))`` of each sample, weighted
    by ``1 / n_j`` (scipy's ``bootstrap`` does the same for several samples).
    Returning ``(n_j - 1) / n_j * (theta_(ji) - mean_j)`` (mean zero within each
    stratum) makes ``mean(jk) - jk`` equal to ``U_ji / n_j``.  Differences
    between the strata, which stratified resampling holds fixed, then do not
    enter the acceleration.  ``jk`` is (n,) or (n, k).
    """
    out = np.empty_like(jk, dtype=np.float64)
    for j in np.unique(codes):
        rows = codes == j
        n_j = int(rows.sum())
        vals = jk[rows]
        out[rows] = (n_j - 1) / n_j * (vals - vals.mean(axis=0)) if n_j > 1 else 0.0
    return out


def random_jackknife_groups(key: Any, n: int, groups: int) -> np.ndarray:
    """Group code of each row for a delete-a-group jackknife: rows are ranked by
    uniform ``i`` of purpose slot "jackknife" (replicate 0) and the ranks cut into
    ``groups`` runs of ``floor`` or ``ceil(n / groups)`` rows.  A pure function of
    (key, n, groups)."""
    u = reference_uniforms(key, PURPOSE["jackknife"], 0, n)
    order = np.argsort(u, kind="stable")
    codes = np.empty(n, dtype=np.int64)
    codes[order] = (np.arange(n, dtype=np.int64) * groups) // n
    return codes


def check_jackknife_groups(
    ctx: RunContext | None, groups: Any, owner: str, *, words: bool = False
) -> Any:
    """None (or, with ``words``, "auto"/"full") as given; an int checked
    against the data and the resampler."""
    if words and isinstance(groups, str) and groups in ("auto", "full"):
        return groups
    if groups is None and not words:
        return None
    if ctx is not None and ctx.stat.data_unavailable:
        either = "'auto' or 'full'" if words else "None"
        raise value_error(
            "jackknife_groups",
            owner,
            f"must be {either} with data in a "
            "dask collection (the leave-one-out values are reduced where the "
            f"rows live). Got jackknife_groups={groups!r}.",
        )
    n = None if ctx is None else ctx.stat.arrays[0].shape[0]
    allowed = "an int >= 2" if n is None else f"an int in [2, {n}]"
    if words:
        allowed = f"'auto', 'full' or {allowed}"
    ok = (
        isinstance(groups, (numbers.Integral, np.integer))
        and not isinstance(groups, (bool, np.bool_))
        and int(groups) >= 2
        and (n is None or int(groups) <= n)
    )
    if not ok:
        raise param_error("jackknife_groups", owner, allowed, groups)
    groups = int(groups)
    if ctx is not None:
        if ctx.plan.sample_plans is not None:
            raise value_error(
                "jackknife_groups",
                owner,
                f"is not available "
                "with independent samples (paired=False): each sample has its "
                f"own jackknife. Got jackknife_groups={groups}.",
            )
        if ctx.plan.jackknife_groups is not None:
            either = "'auto' or 'full'" if words else "None"
            raise value_error(
                "jackknife_groups",
                owner,
                f"must be "
                f"{either} with "
                f"{type(ctx.resampler).__name__}: its jackknife already deletes "
                f"one group or block at a time. Got jackknife_groups={groups}.",
            )
    return groups


def auto_jackknife_groups(ctx: RunContext | None) -> int | None:
    """The group count of ``jackknife_groups="auto"`` (None: the full jackknife):
    :data:`AUTO_JACKKNIFE_GROUPS` seeded groups for a statistic evaluated once per
    jackknife sample on more rows than that, the full jackknife otherwise (closed
    forms, small data, plans with their own units, strata, independent samples)."""
    if ctx is None:
        return None
    full = (
        ctx.stat.closed_form_jackknife
        or ctx.stat.arrays[0].shape[0] <= AUTO_JACKKNIFE_GROUPS
        or ctx.plan.sample_plans is not None
        or ctx.plan.jackknife_groups is not None
        or ctx.plan.strata_codes is not None
    )
    return None if full else AUTO_JACKKNIFE_GROUPS
