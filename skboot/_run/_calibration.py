"""Inputs of the calibrated intervals: the double bootstrap.

For each outer replicate ``b`` (the run's own replicates, regenerated from the
stream), ``n_inner`` inner replicates are drawn from its rows by the run's own
scheme (:meth:`ResamplingPlan.nested_plan`): iid draws from its rows, the same
strata, its drawn groups as the groups, Poisson counts of its row copies, blocks
of the same length from its series.  The inner draws read the key's purpose
slot "calibration" (:meth:`RootKey.nested`: its "indices" stream is that slot,
so the iid and stratified inner draws are that slot's; block starts, block
lengths and Poisson counts have streams derived from it), and inner replicate
``c`` is replicate number ``b * n_inner + c`` there, so the inner draws are a
pure function of (key, b, c) and any outer replicate can be recomputed alone.
Per outer replicate and output only two proportions are kept:

* ``u_b = #{t**_bc <= t_hat} / n_inner`` (Efron & Tibshirani 1993, section 18.3;
  Davison & Hinkley 1997, section 5.6), for the calibrated percentile interval;
* ``v_b = #{t**_bc - t*_b <= t*_b - t_hat} / n_inner``, for the calibrated basic
  interval;

so the work is ``n_resamples x n_inner`` evaluations and the memory
``O(n_resamples x k)`` plus one outer replicate's rows.  With the iid bootstrap
the moment built-ins ("sum", "mean", "proportion", "var", "std") run in one
numba kernel (:func:`skboot._kernels.calibration.calibration_counts`); with
the other resamplers that nest they run in the plan's nested kernel
(:meth:`ResamplingPlan.nested_moment_counts`, bit for bit the path below); every
other case (callables through the one callable adapter, the other built-ins)
is evaluated on the inner replicates of each outer replicate by the engine's
own chunk code.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skboot._engine import Statistic, as_float_rows, chunk_size_for, plan_tasks
from skboot._kernels.calibration import MOMENT_KINDS, calibration_counts
from skboot._random import PURPOSE
from skboot._run._context import RunContext
from skboot._validation import check_int, param_error, value_error
from skboot.resamplers import ResamplingPlan

__all__ = ["CALIBRATION_N_INNER", "calibration_inputs", "check_calibration"]

#: Inner replicates per outer replicate when ``n_inner`` is not given.
CALIBRATION_N_INNER = 200


#: The resamplers whose replicates the double bootstrap resamples, for the
#: message that refuses the others.
NESTING_RESAMPLERS = (
    "Bootstrap (with the default sample_size), StratifiedBootstrap, "
    "GroupBootstrap, PoissonBootstrap, MovingBlockBootstrap, "
    "CircularBlockBootstrap, NonOverlappingBlockBootstrap or StationaryBootstrap"
)


def check_calibration(ctx: RunContext, method: str, n_inner: Any, owner: str) -> int:
    """``n_inner`` (None: :data:`CALIBRATION_N_INNER`) checked, and the run's
    resampler checked to resample its own replicates (:attr:`nests`), before
    any work."""
    n_inner = CALIBRATION_N_INNER if n_inner is None else n_inner
    n_inner = check_int(n_inner, "n_inner", owner, min_value=2)
    plan = ctx.plan
    if not plan.nests or plan.sample_plans is not None:
        raise value_error(
            "method",
            owner,
            f"'{method}' (a double bootstrap) needs a run whose replicates can be "
            f"resampled by the same scheme: {NESTING_RESAMPLERS}. Got resampler "
            f"{ctx.resampler!r} instead (its replicates are weights, model-"
            "generated samples, m-out-of-n draws or independent samples); use "
            "'bca' or 'studentized' with that resampler.",
        )
    B = int(ctx.resampler.n_resamples)
    if B * n_inner >= 2**32:
        raise param_error(
            "n_inner", owner, "an int with n_resamples * n_inner < 2**32", n_inner
        )
    return n_inner


def calibration_inputs(ctx: RunContext, n_inner: int) -> tuple[np.ndarray, np.ndarray]:
    """``(u, v)``, each (n_resamples, k): the proportions of the module notes.

    Bit-identical for any ``n_jobs`` or backend: each row is a pure function of
    the key and its outer replicate number.
    """
    plan = ctx.plan
    stat = ctx.stat
    B = int(ctx.resampler.n_resamples)
    kind = MOMENT_KINDS.get(str(stat.builtin_name), -1)
    scheme = plan.stream_scheme()
    if kind >= 0 and scheme is not None and scheme.kind == "iid":
        task: Any = _moment_counts
        args: tuple[Any, ...] = (stat, plan, kind, n_inner)
        prefer = "threads"
    elif kind >= 0 and plan.fuses_nested_moments and len(ctx.data.arrays) == 1:
        task = _nested_moment_counts
        args = (stat, plan, ctx.data.arrays, kind, n_inner)
        prefer = "threads"
    else:
        inner = _inner_statistic(stat, ctx.data.arrays)
        task = _generic_counts
        args = (stat, inner, plan, ctx.data.arrays, n_inner)
        prefer = None
    n_workers = effective_n_jobs(ctx.n_jobs)
    if n_workers == 1 or B < 2:
        counts = [task(0, B, *args)]
    else:
        bounds = plan_tasks(B, n_workers)
        counts = Parallel(n_jobs=ctx.n_jobs, prefer=prefer)(
            delayed(task)(int(lo), int(hi), *args)
            for lo, hi in itertools.pairwise(bounds)
            if hi > lo
        )
    cu = np.concatenate([c[0] for c in counts], axis=0)
    cv = np.concatenate([c[1] for c in counts], axis=0)
    return cu / float(n_inner), cv / float(n_inner)


def _moment_counts(
    b0: int, b1: int, stat: Statistic, plan: ResamplingPlan, kind: int, n_inner: int
) -> tuple[np.ndarray, np.ndarray]:
    """The fused kernel on outer replicates ``[b0, b1)``."""
    scheme = plan.stream_scheme()
    assert scheme is not None  # checked by check_calibration
    X = np.ascontiguousarray(stat.arrays[0], dtype=np.float64)
    seed_in, gamma_in = plan.key.stream(PURPOSE["calibration"])
    cu = np.empty((b1 - b0, X.shape[1]), dtype=np.int64)
    cv = np.empty_like(cu)
    calibration_counts(
        X,
        np.asarray(getattr(stat, "shift", np.zeros(X.shape[1])), dtype=np.float64),
        kind,
        float(getattr(stat, "ddof", 0)),
        scheme.seed,
        scheme.gamma,
        seed_in,
        gamma_in,
        b0,
        n_inner,
        cu,
        cv,
    )
    return cu, cv


def _nested_moment_counts(
    b0: int,
    b1: int,
    stat: Statistic,
    plan: ResamplingPlan,
    raw: tuple[np.ndarray, ...],
    kind: int,
    n_inner: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The plan's fused nested kernel on outer replicates ``[b0, b1)``; an outer
    replicate where it meets a value that is not finite goes through
    :func:`_generic_counts` (which reports it, or counts it when the statistic
    is defined there after all) and the kernel resumes after it."""
    X = as_float_rows(raw[0])
    est = np.ascontiguousarray(stat.estimate(), dtype=np.float64)
    ddof = int(getattr(stat, "ddof", 0))
    key = plan.key.nested(PURPOSE["calibration"])
    cu = np.empty((b1 - b0, X.shape[1]), dtype=np.int64)
    cv = np.empty_like(cu)
    lo = b0
    while lo < b1:
        at = plan.nested_moment_counts(
            key, X, est, kind, ddof, lo, n_inner, cu[lo - b0 :], cv[lo - b0 :]
        )
        if at < 0:
            break
        b = lo + at
        gu, gv = _generic_counts(b, b + 1, stat, stat, plan, raw, n_inner)
        cu[b - b0] = gu[0]
        cv[b - b0] = gv[0]
        lo = b + 1
    return cu, cv


def _inner_statistic(stat: Statistic, arrays: tuple[np.ndarray, ...]) -> Statistic:
    """The statistic rebuilt on data of the run's shape (refused up front when it
    cannot be rebuilt on other rows, as an estimator refit)."""
    try:
        return stat.with_arrays(arrays)
    except NotImplementedError:
        raise ValueError(
            "The calibrated intervals evaluate the statistic on resamples of each "
            f"replicate, which the statistic '{stat.name}' does not support. Use "
            "a built-in statistic or a callable of the data."
        ) from None


def _generic_counts(
    b0: int,
    b1: int,
    stat: Statistic,
    template: Statistic,
    plan: ResamplingPlan,
    raw: tuple[np.ndarray, ...],
    n_inner: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Outer replicates ``[b0, b1)`` of any statistic and resampler: each outer
    replicate's rows, its inner replicates (the plan's nested plan on the
    "calibration" slot) run by the engine's chunk code.  ``template`` (the
    statistic on the run's data) checked up front that the statistic can be
    rebuilt on other rows."""
    est = stat.estimate()
    key = plan.key.nested(PURPOSE["calibration"])
    values = np.empty((n_inner, stat.k))
    cu = np.empty((b1 - b0, stat.k), dtype=np.int64)
    cv = np.empty_like(cu)
    for b in range(b0, b1):
        scratch: dict[str, Any] = {}  # its buffers may hold this replicate's rows
        rows, inner_plan = plan.nested_plan(b, key)
        on_b = stat.with_arrays(tuple(np.take(a, rows, axis=0) for a in raw))
        star = on_b.estimate()
        chunk = min(n_inner, chunk_size_for(on_b, inner_plan, None))
        first = b * n_inner
        for lo in range(0, n_inner, chunk):
            hi = min(n_inner, lo + chunk)
            on_b.run_chunk(on_b.arrays, inner_plan, first + lo, values[lo:hi], scratch)
        _check_defined(values, star, b)
        cu[b - b0] = np.count_nonzero(values <= est, axis=0)
        cv[b - b0] = np.count_nonzero(values - star <= star - est, axis=0)
    return cu, cv


def _check_defined(values: np.ndarray, star: np.ndarray, b: int) -> None:
    """The statistic must be finite on outer replicate ``b`` and on each of its
    inner replicates."""
    bad = ~np.isfinite(values).all(axis=1)
    if bad.any() or not np.isfinite(star).all():
        c = int(np.flatnonzero(bad)[0]) if bad.any() else None
        where = "on the replicate" if c is None else f"on its inner resample {c}"
        raise ValueError(
            f"The statistic is undefined (not finite) {where} of replicate {b}; "
            "the calibrated intervals need it defined on every resample of "
            "every replicate."
        )
