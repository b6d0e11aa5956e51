"""The p-value of a bootstrap result by inverting its intervals: the body of
:meth:`BootstrapResult.pvalue` and of :func:`skboot.bootstrap_pvalue`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skboot._run import labelled
from skboot._typing import ArrayLike, PValues, StandardErrorFunc
from skboot._validation import check_one_of, lower, value_error
from skboot.intervals import pvalue_by_method

if TYPE_CHECKING:
    from skboot.statistic._result import BootstrapResult

__all__ = ["ALTERNATIVES", "result_pvalue"]

ALTERNATIVES = ("two-sided", "less", "greater")


def result_pvalue(
    result: BootstrapResult,
    null: ArrayLike,
    *,
    alternative: str = "two-sided",
    method: str | None = None,
    standard_error: StandardErrorFunc = None,
    n_inner: int | None = None,
    jackknife_groups: int | str = "auto",
    owner: str = "pvalue",
) -> PValues:
    """:meth:`BootstrapResult.pvalue`, with errors naming ``owner`` (the public
    entry point: the method, or :func:`skboot.bootstrap_pvalue`)."""
    from skboot.statistic._result import BootstrapResult

    if not isinstance(result, BootstrapResult):
        inner = getattr(result, "result", None)
        hint = " (pass its .result)" if isinstance(inner, BootstrapResult) else ""
        raise value_error(
            "result",
            owner,
            "must be a BootstrapResult (what skboot.bootstrap returns); the "
            "p-value inverts the intervals of its distribution. Got "
            f"{type(result).__name__}{hint} instead.",
        )
    method = result._method(method, owner)
    alternative = check_one_of(lower(alternative), "alternative", owner, ALTERNATIVES)
    groups = result._jackknife_groups(jackknife_groups, owner)
    est, dist = result._arrays()
    result._check_defined("p-value")
    jackknife_values, studentized = result._method_inputs(
        groups, standard_error, n_inner, est.ndim
    )
    out = pvalue_by_method(
        method,
        dist,
        est,
        null,
        alternative=alternative,
        jackknife=jackknife_values,
        studentized=studentized,
        owner=owner,
    )
    if np.ndim(result.estimate) == 0:
        return float(out[0])
    ctx = result._context
    return labelled(out, result.estimate, None if ctx is None else ctx.data)
