"""One entry point for all methods: :func:`interval_by_method`, which checks
its options once, and :func:`method_endpoints`, its dispatch for callers that
checked them already."""

from __future__ import annotations

from collections.abc import Callable

from numpy.typing import ArrayLike

from skboot._validation import Constraint, Options, validate_params, value_error
from skboot.intervals._bc import _bc_family
from skboot.intervals._calibrated import calibrated_basic, calibrated_percentile
from skboot.intervals._checks import (
    ALTERNATIVE,
    LEVEL,
    METHODS,
    OPTIONAL_CALLABLE,
)
from skboot.intervals._moments import JackknifeMoments
from skboot.intervals._result import IntervalEndpoints
from skboot.intervals._simple import _basic, _normal, _percentile
from skboot.intervals._studentized import _studentized

__all__ = ["interval_by_method", "method_endpoints"]

_CONSTRAINTS: dict[str, list[Constraint]] = {
    "method": [Options(METHODS, case_insensitive=True)],
    "level": [LEVEL],
    "alternative": [ALTERNATIVE],
    "jackknife": OPTIONAL_CALLABLE,
    "studentized": OPTIONAL_CALLABLE,
    "calibration": OPTIONAL_CALLABLE,
}


def interval_by_method(
    method: str,
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: str = "two-sided",
    jackknife: Callable[[], ArrayLike | JackknifeMoments] | None = None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
    calibration: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> IntervalEndpoints:
    """Dispatch to the method's function; the inputs only some methods need are
    given as zero-argument callables, so they are computed only when used.

    Parameters
    ----------
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized", \
"calibrated", "calibrated_basic"}
        Any letter case ("BCa", as scipy spells it, is "bca").
    distribution, estimate : array-like
        As in the method functions.
    level : float, default=0.95
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
    jackknife : callable, optional
        Returns the jackknife values (for "bca", which needs it).
    studentized : callable, optional
        Returns ``(standard_error, replicate_standard_errors)`` (for
        "studentized", which needs it).
    calibration : callable, optional
        Returns ``(u, v)``, the double bootstrap's per-replicate proportions,
        each of the distribution's shape (for "calibrated", which reads ``u``,
        and "calibrated_basic", which reads ``v``; see
        :meth:`skboot.BootstrapResult.confidence_interval`).

    Returns
    -------
    IntervalEndpoints

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import interval_by_method
    >>> d = np.linspace(-1.0, 1.0, 201)
    >>> res = interval_by_method("percentile", d, 0.0, level=0.9)
    >>> round(res.low, 2), round(res.high, 2)
    (-0.9, 0.9)
    """
    owner = "interval_by_method"
    checked = validate_params(
        owner,
        _CONSTRAINTS,
        method=method,
        level=level,
        alternative=alternative,
        jackknife=jackknife,
        studentized=studentized,
        calibration=calibration,
    )
    return method_endpoints(
        checked["method"],
        distribution,
        estimate,
        level=checked["level"],
        alternative=checked["alternative"],
        jackknife=jackknife,
        studentized=studentized,
        calibration=calibration,
    )


def method_endpoints(
    method: str,
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float,
    alternative: str,
    jackknife: Callable[[], ArrayLike | JackknifeMoments] | None = None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
    calibration: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> IntervalEndpoints:
    """:func:`interval_by_method` for a caller that checked ``method`` (in
    lowercase), ``level`` and ``alternative`` once at its own entry point
    (:meth:`skboot.BootstrapResult.confidence_interval`); the methods check the
    arrays."""
    owner = "interval_by_method"
    if method == "percentile":
        return _percentile(distribution, level, alternative)
    if method == "basic":
        return _basic(distribution, estimate, level, alternative)
    if method == "normal":
        return _normal(distribution, estimate, level, alternative)
    if method == "bc":
        return _bc_family(
            "bc_interval", distribution, estimate, None, level, alternative
        )
    if method == "bca":
        if jackknife is None:
            raise value_error(
                "jackknife",
                owner,
                "must be a callable returning the jackknife values, which method "
                "'bca' needs. Got None instead.",
            )
        return _bc_family(
            "bca_interval", distribution, estimate, jackknife(), level, alternative
        )
    if method in ("calibrated", "calibrated_basic"):
        if calibration is None:
            raise value_error(
                "calibration",
                owner,
                "must be a callable returning the double bootstrap's proportions "
                f"(u, v), which method '{method}' needs. Got None instead.",
            )
        u, v = calibration()
        if method == "calibrated":
            return calibrated_percentile(distribution, u, level, alternative)
        return calibrated_basic(distribution, estimate, v, level, alternative)
    # "studentized", the one method left
    if studentized is None:
        raise value_error(
            "studentized",
            owner,
            "must be a callable returning (standard_error, "
            "replicate_standard_errors), which method 'studentized' needs. Got "
            "None instead.",
        )
    se_hat, se_b = studentized()
    return _studentized(distribution, estimate, se_hat, se_b, level, alternative)
