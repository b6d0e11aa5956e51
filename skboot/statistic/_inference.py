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
    check_jackknife_groups,
    jackknife,
    labelled,
    stratified_jackknife,
    studentized_inputs,
)
from skboot._typing import ArrayLike, PValues, StandardErrorFunc
from skboot._validation import ALTERNATIVE, LEVEL, Constraint, lower, validate_params
from skboot.intervals import (
    ConfidenceInterval,
    check_method,
    method_endpoints,
    method_pvalues,
)

if TYPE_CHECKING:
    from skboot.statistic._result import BootstrapResult

__all__ = ["result_interval", "result_pvalue"]

_OPTIONS: dict[str, list[Constraint]] = {"alternative": [ALTERNATIVE], "level": [LEVEL]}


def _options(
    result: BootstrapResult,
    owner: str,
    method: Any,
    jackknife_groups: Any,
    **values: Any,
) -> tuple[str, dict[str, Any], int | None]:
    """``method`` (None: "bca" where a jackknife exists, else "percentile"),
    the ``alternative`` (any letter case) and ``level`` checked, and the
    delete-a-group count of ``jackknife_groups`` (None: the full jackknife)."""
    ctx = result._context
    if method is not None:
        method = check_method(method, owner)
    elif ctx is not None and ctx.stat.has_jackknife:
        method = "bca"
    else:
        method = "percentile"
    values["alternative"] = lower(values["alternative"])
    checked = validate_params(owner, _OPTIONS, **values)
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
) -> tuple[Callable[[], np.ndarray], Callable[[], tuple[np.ndarray, np.ndarray]]]:
    """The lazily computed inputs of BCa (jackknife values, strata rescaled)
    and of the studentized method (standard errors)."""
    from skboot.statistic._result import _NO_DATA

    ctx = result._context

    def jackknife_values() -> np.ndarray:
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The jackknife"))
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
        return studentized_inputs(ctx, standard_error, n_inner)

    return jackknife_values, studentized


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
        result, owner, method, jackknife_groups, alternative=alternative, level=level
    )
    est, dist = result._arrays()
    result._check_defined("interval")
    jk, studentized = _inputs(result, groups, standard_error, n_inner, est.ndim)
    res = method_endpoints(
        method, dist, est, **opts, jackknife=jk, studentized=studentized
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
        result, owner, method, jackknife_groups, alternative=alternative
    )
    est, dist = result._arrays()
    result._check_defined("p-value")
    jk, studentized = _inputs(result, groups, standard_error, n_inner, est.ndim)
    out = method_pvalues(
        method,
        dist,
        est,
        null,
        **opts,
        jackknife=jk,
        studentized=studentized,
        owner=owner,
    )
    if np.ndim(result.estimate) == 0:
        return float(out[0])
    ctx = result._context
    return labelled(out, result.estimate, None if ctx is None else ctx.data)
