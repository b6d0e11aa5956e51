"""The studentized (bootstrap-t) interval."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from skboot._validation import value_error
from skboot.intervals._checks import (
    check_distribution,
    check_estimate,
    check_level_and_alternative,
    numeric_array,
    per_column,
)
from skboot.intervals._common import (
    as_output,
    finish,
    sorted_quantile,
    tail_alpha,
    warn_columns,
    warn_zero_spread,
)
from skboot.intervals._result import Alternative, FloatArray, IntervalEndpoints

__all__ = ["studentized_interval"]

_REPLICATE_SE = "replicate_standard_errors"


def _check_standard_errors(
    owner: str,
    standard_error: Any,
    replicate_standard_errors: Any,
    theta: FloatArray,
    vector: bool,
) -> tuple[FloatArray, FloatArray]:
    """``se`` as (k,) and ``se*_b`` as (B, k), both non-negative."""
    n_rep, k = theta.shape
    se = per_column(standard_error, "standard_error", k, vector, owner)
    se_b = numeric_array(replicate_standard_errors, _REPLICATE_SE, owner)
    want = theta.shape if vector else (n_rep,)
    if se_b.shape != want:
        raise value_error(
            _REPLICATE_SE,
            owner,
            f"must be an array of the distribution's shape {want}. Got shape "
            f"{se_b.shape} instead.",
        )
    se_b = se_b.reshape(n_rep, k)
    for name, values in (("standard_error", se), (_REPLICATE_SE, se_b)):
        n_neg = int(np.count_nonzero(values < 0))
        if n_neg:
            raise value_error(
                name,
                owner,
                "must hold non-negative standard errors. Got "
                f"{n_neg} negative value(s) instead.",
            )
    return se, se_b


def _warn_standard_errors(
    owner: str, se: FloatArray, n_used: NDArray[np.intp], n_rep: int, vector: bool
) -> None:
    """The degenerate cases of the standard errors (see the package notes)."""
    partly = (n_used < n_rep) & (n_used > 0)
    if partly.any():
        counts = ", ".join(str(n_rep - int(m)) for m in n_used[partly])
        warn_columns(
            owner,
            partly,
            vector,
            "replicate_standard_errors",
            f"{counts} of {n_rep} replicate standard errors are zero or non-finite; "
            "those replicates are left out of the bootstrap-t distribution.",
        )
    warn_columns(
        owner,
        n_used == 0,
        vector,
        "replicate_standard_errors",
        "every replicate standard error is zero or non-finite, so there is no "
        "bootstrap-t distribution; the endpoints are NaN.",
    )
    warn_columns(
        owner,
        se == 0,
        vector,
        "standard_error",
        "the standard error is 0; the interval is the single value estimate.",
    )
    warn_columns(
        owner,
        ~np.isfinite(se),
        vector,
        "standard_error",
        "the standard error is non-finite; the endpoints are NaN.",
    )


def studentized_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_errors: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Studentized (bootstrap-t) interval.

    Implements Efron & Tibshirani (1993) eq. 12.22 (Davison & Hinkley 1997
    section 5.2.1): with ``t*_b = (theta*_b - theta_hat) / se*_b`` and ``t*_(p)`` the
    type-7 ``p``-quantile of the ``t*_b``, the interval is
    ``(theta_hat - t*_(1 - alpha) se, theta_hat - t*_(alpha) se)``.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    standard_error : float or array-like of shape (k,)
        Standard error ``se`` of the estimate on the original sample. Must be
        non-negative.
    replicate_standard_errors : array-like of shape (B,) or (B, k)
        Standard error ``se*_b`` computed on each resample (analytically or by a
        nested bootstrap), same shape as ``distribution``. Must be non-negative.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(1 - alpha, alpha)``, levels of the bootstrap-t
        distribution; ``diagnostics`` holds ``t_quantiles`` (the ``t*`` quantiles
        at ``levels``) and ``n_used`` (replicates in the bootstrap-t distribution).

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; if some ``se*_b`` are zero or non-finite
        (those replicates are left out; if all are, the endpoints are NaN); if
        ``standard_error`` is zero (point interval) or non-finite (NaN).

    See Also
    --------
    normal_interval : Normal quantiles instead of bootstrap-t ones.
    BootstrapResult.confidence_interval : Computes the standard errors it needs.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import studentized_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> samples = x[rng.integers(0, 40, size=(2000, 40))]
    >>> boot = samples.mean(axis=1)
    >>> boot_se = samples.std(axis=1, ddof=1) / np.sqrt(40)
    >>> se = x.std(ddof=1) / np.sqrt(40)
    >>> res = studentized_interval(boot, x.mean(), se, boot_se, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.905 1.585
    """
    owner = "studentized_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _studentized(
        distribution,
        estimate,
        standard_error,
        replicate_standard_errors,
        level,
        alternative,
    )


def _studentized(
    distribution: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_errors: ArrayLike,
    level: float,
    alternative: str,
) -> IntervalEndpoints:
    """:func:`studentized_interval` with ``level`` and ``alternative`` checked."""
    owner = "studentized_interval"
    theta, vector = check_distribution(distribution, owner)
    n_rep, k = theta.shape
    est = check_estimate(estimate, k, vector, owner)
    se, se_b = _check_standard_errors(
        owner, standard_error, replicate_standard_errors, theta, vector
    )
    warn_zero_spread(
        owner,
        theta,
        vector,
        "the bootstrap-t values vary only through the replicate standard errors",
    )
    usable = np.isfinite(se_b) & (se_b > 0)
    n_used = usable.sum(axis=0)
    _warn_standard_errors(owner, se, n_used, n_rep, vector)

    safe_se_b = np.where(usable, se_b, 1.0)
    t_values = np.where(usable, (theta - est) / safe_se_b, np.nan)
    ordered = np.sort(t_values, axis=0)  # NaN (left-out replicates) sorts last
    alpha = tail_alpha(level, alternative)
    level_low = np.full(k, 1.0 - alpha)
    level_high = np.full(k, alpha)
    t_low = sorted_quantile(ordered, level_low, n_used)
    t_high = sorted_quantile(ordered, level_high, n_used)
    scale = np.where(np.isfinite(se), se, np.nan)
    return finish(
        est - t_low * scale,
        est - t_high * scale,
        level_low,
        level_high,
        alternative,
        vector,
        {
            "t_quantiles": (as_output(t_low, vector), as_output(t_high, vector)),
            "n_used": n_used if vector else int(n_used[0]),
        },
    )
