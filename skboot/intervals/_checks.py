"""Checks of the interval methods' inputs, raised before any work.

Every message names the parameter, the function, what is allowed and what was
given (:func:`skboot._validation.value_error`). The scalar options are constraint
tables (:func:`skboot._validation.validate_params`); the arrays get the checks a
table cannot state (shape against the distribution, finiteness).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from skboot._validation import (
    ALTERNATIVE,
    ALTERNATIVES,
    CALLABLE,
    LEVEL,
    NONE,
    Constraint,
    Interval,
    Options,
    as_float_array,
    validate_params,
    value_error,
)
from skboot.intervals._moments import JackknifeMoments
from skboot.intervals._result import Alternative, FloatArray

__all__ = [
    "ALTERNATIVE",
    "ALTERNATIVES",
    "COMMON",
    "LEVEL",
    "METHODS",
    "OPTIONAL_CALLABLE",
    "check_alternative",
    "check_ddof",
    "check_distribution",
    "check_estimate",
    "check_jackknife",
    "check_level",
    "check_level_and_alternative",
    "check_method",
    "numeric_array",
    "per_column",
]

#: The interval methods, in their one (lowercase) spelling.  The last two
#: (the double bootstrap) need the run's data and resampler.
METHODS = (
    "percentile",
    "basic",
    "normal",
    "bc",
    "bca",
    "studentized",
    "calibrated",
    "calibrated_basic",
)

OPTIONAL_CALLABLE: list[Constraint] = [CALLABLE, NONE]
#: The constraints every interval method shares.
COMMON: dict[str, list[Constraint]] = {"level": [LEVEL], "alternative": [ALTERNATIVE]}


def check_level(level: Any, owner: str) -> float:
    """``level`` as a float in the open interval (0, 1).

    Parameters
    ----------
    level : float
        The confidence level to check.
    owner : str
        The public function or method whose parameter it is, named in the
        message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        "The 'level' parameter of <owner> must be a float in (0, 1). Got ...".

    Examples
    --------
    >>> from skboot.intervals import check_level
    >>> check_level(0.9, "f")
    0.9
    >>> check_level(95, "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'level' parameter of f must be a float in (0, 1). Got 95 instead.
    """
    return float(validate_params(owner, {"level": [LEVEL]}, level=level)["level"])


def check_alternative(alternative: Any, owner: str) -> Alternative:
    """``alternative`` as one of "two-sided", "less", "greater" (exact spelling).

    Parameters
    ----------
    alternative : str
        The side(s) of the interval to check.
    owner : str
        The public function or method whose parameter it is, named in the
        message.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Naming the parameter, ``owner``, the three options and the value.

    Examples
    --------
    >>> from skboot.intervals import check_alternative
    >>> check_alternative("less", "my_function")
    'less'
    """
    values = validate_params(
        owner, {"alternative": [ALTERNATIVE]}, alternative=alternative
    )
    return cast("Alternative", values["alternative"])


def check_method(method: Any, owner: str, methods: tuple[str, ...] = METHODS) -> str:
    """``method`` in lowercase; any letter case is accepted (scipy spells "BCa").

    Parameters
    ----------
    method : str
        The interval method to check.
    owner : str
        The public function or method whose parameter it is, named in the
        message.
    methods : tuple of str, default=METHODS
        The allowed methods, lowercase (a caller may allow fewer).

    Returns
    -------
    str
        The method in lowercase.

    Raises
    ------
    ValueError
        Listing the lowercase names.

    Examples
    --------
    >>> from skboot.intervals import check_method
    >>> check_method("BCa", "my_function")
    'bca'
    """
    table: dict[str, list[Constraint]] = {
        "method": [Options(methods, case_insensitive=True)]
    }
    return str(validate_params(owner, table, method=method)["method"])


def check_level_and_alternative(
    owner: str, level: Any, alternative: Any
) -> tuple[float, Alternative]:
    """The two options every interval method takes (:data:`COMMON`)."""
    values = validate_params(owner, COMMON, level=level, alternative=alternative)
    return float(values["level"]), cast("Alternative", values["alternative"])


def check_ddof(ddof: Any, n_rep: int, owner: str) -> int:
    """``ddof`` of the normal interval's standard error: an int in [0, B - 1]."""
    allowed = Interval("int", 0, n_rep - 1, high_text=f"B - 1 = {n_rep - 1}")
    return int(validate_params(owner, {"ddof": [allowed]}, ddof=ddof)["ddof"])


def numeric_array(value: Any, name: str, owner: str) -> FloatArray:
    """``value`` as a float64 array of any shape (the one converter, NaN passed
    on: the callers check finiteness with their own counts)."""
    return as_float_array(value, name, owner, ndim=None, nan="allow", min_rows=0)


def check_distribution(distribution: Any, owner: str) -> tuple[FloatArray, bool]:
    """The distribution as a (B, k) float array, and whether it was 2-D."""
    theta = numeric_array(distribution, "distribution", owner)
    if theta.ndim not in (1, 2) or 0 in theta.shape:
        raise value_error(
            "distribution",
            owner,
            "must be an array of shape (B,) or (B, k) with B >= 1 and k >= 1. "
            f"Got shape {theta.shape} instead.",
        )
    vector = theta.ndim == 2
    theta2 = theta if vector else theta[:, np.newaxis]
    bad = ~np.isfinite(theta2).all(axis=1)
    if bad.any():
        raise value_error(
            "distribution",
            owner,
            f"must contain only finite values. Got {int(bad.sum())} non-finite "
            f"replicate(s) out of {theta2.shape[0]} instead.",
        )
    return theta2, vector


def per_column(value: Any, name: str, k: int, vector: bool, owner: str) -> FloatArray:
    """A float (1-D distribution) or a (k,) array (2-D distribution), as (k,)."""
    arr = numeric_array(value, name, owner)
    expected = (k,) if vector else ()
    if arr.shape != expected:
        want = (
            f"an array of shape ({k},), one value per column of the (B, {k}) "
            "distribution"
            if vector
            else "a float, as the distribution has shape (B,)"
        )
        raise value_error(
            name, owner, f"must be {want}. Got shape {arr.shape} instead."
        )
    return arr.reshape(k)


def check_estimate(estimate: Any, k: int, vector: bool, owner: str) -> FloatArray:
    """The estimate, one finite value per column, as (k,)."""
    est = per_column(estimate, "estimate", k, vector, owner)
    n_bad = int((~np.isfinite(est)).sum())
    if n_bad:
        raise value_error(
            "estimate",
            owner,
            f"must be finite. Got {n_bad} non-finite value(s) instead.",
        )
    return est


def check_jackknife(
    jackknife_values: Any, k: int | None, vector: bool | None, owner: str
) -> tuple[Any, bool]:
    """Jackknife values as (n, k), and whether they were 2-D.

    ``k``/``vector`` are None when there is no distribution to match.
    :class:`JackknifeMoments` (the values' power sums) are checked alike.
    """
    if isinstance(jackknife_values, JackknifeMoments):
        return _check_moments(jackknife_values, k, vector, owner), (
            jackknife_values.vector
        )
    jk = numeric_array(jackknife_values, "jackknife_values", owner)
    if k is None:
        ok = jk.ndim in (1, 2) and 0 not in jk.shape
        want = "(n,) or (n, k) with n >= 1"
    elif vector:
        ok = jk.ndim == 2 and jk.shape[1] == k and jk.shape[0] >= 1
        want = f"(n, {k}) with n >= 1, matching the (B, {k}) distribution"
    else:
        ok = jk.ndim == 1 and jk.shape[0] >= 1
        want = "(n,) with n >= 1, matching the (B,) distribution"
    if not ok:
        raise value_error(
            "jackknife_values",
            owner,
            f"must be an array of shape {want}. Got shape {jk.shape} instead.",
        )
    jk2 = jk if jk.ndim == 2 else jk[:, np.newaxis]
    bad = ~np.isfinite(jk2).all(axis=1)
    if bad.any():
        raise value_error(
            "jackknife_values",
            owner,
            f"must contain only finite values. Got {int(bad.sum())} non-finite "
            f"leave-one-out value(s) out of {jk2.shape[0]} instead.",
        )
    return jk2, jk.ndim == 2


def _check_moments(
    jk: JackknifeMoments, k: int | None, vector: bool | None, owner: str
) -> JackknifeMoments:
    """The checks of :func:`check_jackknife` on the values' power sums."""
    if (k is not None and (jk.k != k or jk.vector != vector)) or jk.n < 1:
        raise value_error(
            "jackknife_values",
            owner,
            f"must describe {'(n, k)' if vector else '(n,)'} values matching the "
            f"distribution. Got the sums of {jk.n} values in {jk.k} column(s).",
        )
    if jk.n_nonfinite:
        raise value_error(
            "jackknife_values",
            owner,
            f"must contain only finite values. Got {jk.n_nonfinite} non-finite "
            f"leave-one-out value(s) out of {jk.n} instead.",
        )
    return jk
