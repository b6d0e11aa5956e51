"""The intervals and p-values of a bootstrap result: the bodies of
:meth:`BootstrapResult.confidence_interval` and :meth:`BootstrapResult.pvalue`.

Each checks its options once (``method``, ``alternative``, ``level``,
``jackknife_groups``) and hands them to the interval methods' trusted dispatch
(:func:`skboot.intervals.method_endpoints`, :func:`skboot.intervals.method_pvalues`);
the inputs BCa and the studentized method need are computed lazily, the same way
for both, so that a p-value inverts exactly the interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._run import (
    auto_jackknife_groups,
    calibration_inputs,
    check_calibration,
    check_jackknife_groups,
    jackknife,
    labelled,
    stratified_jackknife,
    studentized_inputs,
)
from skboot._typing import ArrayLike, PValues, StandardErrorFunc
from skboot._validation import ALTERNATIVE, LEVEL, Constraint, lower, validate_params
from skboot.intervals import (
    CALIBRATED_METHODS,
    ConfidenceInterval,
    JackknifeMoments,
    check_method,
    method_endpoints,
    method_pvalues,
)

if TYPE_CHECKING:
    from skboot.statistic._result import BootstrapResult

__all__ = ["result_interval", "result_pvalue"]

_OPTIONS: dict[str, list[Constraint]] = {"alternative": [ALTERNATIVE], "level": [LEVEL]}

_FAILED = (
    "{what} evaluates the statistic again on the replicates' own resamples, and "
    "the statistic raised on {n} of the {B} replicates of this run "
    "(on_error='omit'; first: replicate {b}, {error}). {remedy}"
)


def _refuse_failed(result: BootstrapResult, what: str, remedy: str) -> None:
    """Refuse a method that re-evaluates the statistic on the replicates'
    resamples when replicates failed: they would fail again."""
    if result.n_failed:
        raise ValueError(
            _FAILED.format(
                what=what,
                n=result.n_failed,
                B=result.n_resamples,
                b=int(result.failed_replicates[0]),
                error=result.first_error,
                remedy=remedy,
            )
        )


def _check_data(result: BootstrapResult, what: str) -> None:
    """Refuse a result without its data (loaded, unpickled, or kept in dask)."""
    from skboot.statistic._result import _NO_DATA

    ctx = result._context
    if ctx is None:
        raise ValueError(_NO_DATA.format(what=what))
    if ctx.stat.data_unavailable:
        raise ValueError(ctx.stat.data_unavailable)


def _options(
    result: BootstrapResult,
    owner: str,
    method: Any,
    jackknife_groups: Any,
    n_inner: Any = None,
    **values: Any,
) -> tuple[str, dict[str, Any], int | None]:
    """``method`` (None: "bca" where a jackknife exists, else "percentile"),
    the ``alternative`` (any letter case) and ``level`` checked, and the
    delete-a-group count of ``jackknife_groups`` (None: the full jackknife).
    For the calibrated methods, ``n_inner`` and the resampler are checked too
    (``checked["n_inner"]``: the inner replicates per replicate)."""
    ctx = result._context
    if method is not None:
        method = check_method(method, owner)
    elif ctx is not None and ctx.stat.has_jackknife:
        method = "bca"
    else:
        method = "percentile"
    values["alternative"] = lower(values["alternative"])
    checked = validate_params(owner, _OPTIONS, **values)
    if method in CALIBRATED_METHODS:
        _check_data(result, "The calibrated interval")
        _refuse_failed(
            result,
            "The calibrated interval",
            "Use 'percentile', 'basic', 'normal', 'bc' or 'bca'.",
        )
        assert ctx is not None
        checked["n_inner"] = check_calibration(ctx, method, n_inner, owner)
    groups = check_jackknife_groups(ctx, jackknife_groups, owner, words=True)
    if groups == "auto":
        groups = auto_jackknife_groups(ctx)
    elif groups == "full":
        groups = None
    return method, checked, groups


def _inputs(
    result: BootstrapResult,
    groups: int | None,
    standard_error: Any,
    n_inner: Any,
    ndim: int,
) -> tuple[
    Callable[[], np.ndarray | JackknifeMoments],
    Callable[[], tuple[np.ndarray, np.ndarray]],
    Callable[[], tuple[np.ndarray, np.ndarray]],
]:
    """The lazily computed inputs of BCa (jackknife values, strata rescaled),
    of the studentized method (standard errors) and of the calibrated methods
    (the double bootstrap's proportions; ``n_inner`` checked already)."""
    from skboot.statistic._result import _NO_DATA

    ctx = result._context

    def jackknife_values() -> np.ndarray | JackknifeMoments:
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The jackknife"))
        moments = ctx.stat.jackknife_moments() if groups is None else None
        if moments is not None:  # the rows stay on the dask workers
            return moments if ndim else moments.column(0)
        if ctx.stat.data_unavailable:
            raise ValueError(ctx.stat.data_unavailable)
        jk = jackknife(ctx, groups)
        strata = ctx.plan.strata_codes
        if strata is not None and groups is None:
            jk = stratified_jackknife(jk, strata)
        return jk if ndim else jk[:, 0]

    def studentized() -> tuple[np.ndarray, np.ndarray]:
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The studentized interval"))
        if ctx.stat.data_unavailable:
            raise ValueError(ctx.stat.data_unavailable)
        if standard_error is None:
            _refuse_failed(
                result,
                "The studentized interval without standard_error",
                "Pass standard_error=callable, or use 'percentile', 'basic', "
                "'normal' or 'bc'.",
            )
        se_hat, se_b = studentized_inputs(ctx, standard_error, n_inner)
        if result.n_failed:  # the rows of the distribution the interval reads
            se_b = np.delete(se_b, result.failed_replicates, axis=0)
        return se_hat, se_b

    def calibration() -> tuple[np.ndarray, np.ndarray]:
        assert ctx is not None  # checked with the options
        u, v = calibration_inputs(ctx, int(n_inner))
        return (u, v) if ndim else (u[:, 0], v[:, 0])

    return jackknife_values, studentized, calibration


def result_interval(
    result: BootstrapResult,
    level: float,
    method: str | None,
    alternative: str,
    *,
    standard_error: StandardErrorFunc,
    n_inner: int | None,
    jackknife_groups: int | str,
) -> ConfidenceInterval:
    """:meth:`BootstrapResult.confidence_interval`: options checked before the
    jackknife or the nested bootstrap run."""
    owner = "confidence_interval"
    method, opts, groups = _options(
        result,
        owner,
        method,
        jackknife_groups,
        n_inner,
        alternative=alternative,
        level=level,
    )
    inner = opts.pop("n_inner", None)
    est, dist = result._arrays()
    result._check_defined("interval")
    jk, studentized, calibration = _inputs(
        result, groups, standard_error, inner if inner else n_inner, est.ndim
    )
    res = method_endpoints(
        method,
        dist,
        est,
        **opts,
        jackknife=jk,
        studentized=studentized,
        calibration=calibration,
    )
    ctx = result._context
    name = getattr(result.distribution, "name", None)
    data = None if ctx is None else ctx.data
    return ConfidenceInterval(
        labelled(res.low, result.estimate, data),
        labelled(res.high, result.estimate, data),
        estimate=result.estimate,
        standard_error=result.standard_error,
        method=method,
        level=opts["level"],
        alternative=opts["alternative"],
        jackknife_groups=groups if method == "bca" else None,
        n_inner=inner,
        name=result.statistic_name if name is None else name,
    )


def result_pvalue(
    result: BootstrapResult,
    null: ArrayLike,
    *,
    alternative: str,
    method: str | None,
    standard_error: StandardErrorFunc,
    n_inner: int | None,
    jackknife_groups: int | str,
) -> PValues:
    """:meth:`BootstrapResult.pvalue`: the interval of ``method`` inverted."""
    owner = "pvalue"
    method, opts, groups = _options(
        result, owner, method, jackknife_groups, n_inner, alternative=alternative
    )
    inner = opts.pop("n_inner", None)
    est, dist = result._arrays()
    result._check_defined("p-value")
    jk, studentized, calibration = _inputs(
        result, groups, standard_error, inner if inner else n_inner, est.ndim
    )
    out = method_pvalues(
        method,
        dist,
        est,
        null,
        **opts,
        jackknife=jk,
        studentized=studentized,
        owner=owner,
        calibration=calibration,
    )
    if np.ndim(result.estimate) == 0:
        return float(out[0])
    ctx = result._context
    return labelled(out, result.estimate, None if ctx is None else ctx.data)
