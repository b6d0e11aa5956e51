"""The percentile, basic and normal intervals: quantiles of the replicates,
their reflection about the estimate, and the estimate plus or minus normal
quantiles times the bootstrap standard error."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri

from skboot.intervals._checks import (
    check_ddof,
    check_distribution,
    check_estimate,
    check_level_and_alternative,
)
from skboot.intervals._common import (
    as_output,
    finish,
    sorted_quantile,
    tail_alpha,
    warn_zero_spread,
)
from skboot.intervals._result import Alternative, IntervalEndpoints

__all__ = ["basic_interval", "normal_interval", "percentile_interval"]


def percentile_interval(
    distribution: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Percentile interval: quantiles of the bootstrap distribution.

    Implements ``(theta*_(alpha), theta*_(1 - alpha))``, Efron & Tibshirani (1993)
    section 13.3 and Davison & Hinkley (1997) eq. 5.18, with
    ``theta*_(p)`` the type-7 ``p``-quantile of the replicates.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``,
        each a one-sided interval at ``level``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(alpha, 1 - alpha)``; ``diagnostics`` is empty.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; the interval is then that single value.

    See Also
    --------
    basic_interval : The percentile interval reflected about the estimate.
    bca_interval : Percentiles corrected for bias and skewness.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import percentile_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = percentile_interval(boot, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.865 1.476
    >>> print(np.round(res.levels, 3))
    [0.05 0.95]
    """
    owner = "percentile_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _percentile(distribution, level, alternative)


def basic_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Basic (reverse percentile) interval.

    Implements ``(2 theta_hat - theta*_(1 - alpha), 2 theta_hat - theta*_(alpha))``,
    Davison & Hinkley (1997) eq. 5.6, with ``theta*_(p)`` the type-7 ``p``-quantile
    of the replicates. It estimates the quantiles of ``theta_hat - theta`` by those
    of ``theta* - theta_hat``.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(1 - alpha, alpha)``: the low endpoint reflects the
        upper quantile. ``diagnostics`` is empty.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread (all replicates ``v``); the interval is then
        the single value ``2 theta_hat - v``.

    See Also
    --------
    percentile_interval : The percentiles themselves.
    normal_interval : Estimate plus or minus a normal quantile times the SE.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import basic_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = basic_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.84 1.45
    """
    owner = "basic_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _basic(distribution, estimate, level, alternative)


def normal_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
    ddof: int = 1,
) -> IntervalEndpoints:
    """Standard normal interval with the bootstrap standard error.

    Implements ``theta_hat + z^(alpha) se`` and ``theta_hat + z^(1 - alpha) se``,
    the standard interval ``theta_hat +/- z se`` of DiCiccio & Efron (1996)
    section 1 and Efron & Tibshirani (1993) chapter 12, with ``se`` the standard
    deviation of the bootstrap replicates (Efron & Tibshirani eq. 6.6).

    The interval is centred on the estimate, not on the bias-corrected
    ``theta_hat - bias`` of Davison & Hinkley (1997) section 5.2.1, as
    ``arch.bootstrap.IIDBootstrap.conf_int(method="norm")`` does.  ``se`` has the
    ``B - 1`` divisor by default (``ddof=1``), as ``BootstrapResult.
    standard_error`` and ``scipy.stats.bootstrap(...).standard_error``; arch
    divides by ``B``, and with ``ddof=0`` the endpoints equal arch's to rounding
    error.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.
    ddof : int, default=1
        Delta degrees of freedom of ``se``: the divisor is ``B - ddof``. 1 is
        Efron & Tibshirani's (eq. 6.6), skboot's and scipy's ``standard_error``;
        0 is arch's convention.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(alpha, 1 - alpha)``, levels of the standard normal;
        ``diagnostics["standard_error"]`` is ``se``.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; ``se = 0`` and the interval is the point
        ``[theta_hat, theta_hat]``.

    See Also
    --------
    basic_interval : Reflected bootstrap quantiles instead of normal ones.
    studentized_interval : Bootstrap-t quantiles instead of normal ones.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import normal_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = normal_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.855 1.46
    >>> se = res.diagnostics["standard_error"]
    >>> print(round(se, 5), se == boot.std(ddof=1))
    0.18398 True
    """
    owner = "normal_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _normal(distribution, estimate, level, alternative, ddof)


def _percentile(
    distribution: ArrayLike, level: float, alternative: str
) -> IntervalEndpoints:
    """:func:`percentile_interval` with ``level`` and ``alternative`` checked."""
    owner = "percentile_interval"
    theta, vector = check_distribution(distribution, owner)
    warn_zero_spread(owner, theta, vector, "the interval is that single value")
    alpha = tail_alpha(level, alternative)
    level_low = np.full(theta.shape[1], alpha)
    level_high = np.full(theta.shape[1], 1.0 - alpha)
    ordered = np.sort(theta, axis=0)
    return finish(
        sorted_quantile(ordered, level_low),
        sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {},
    )


def _basic(
    distribution: ArrayLike, estimate: ArrayLike, level: float, alternative: str
) -> IntervalEndpoints:
    """:func:`basic_interval` with ``level`` and ``alternative`` checked."""
    owner = "basic_interval"
    theta, vector = check_distribution(distribution, owner)
    est = check_estimate(estimate, theta.shape[1], vector, owner)
    warn_zero_spread(
        owner,
        theta,
        vector,
        "the interval is the single value 2 * estimate - replicate",
    )
    alpha = tail_alpha(level, alternative)
    level_low = np.full(theta.shape[1], 1.0 - alpha)
    level_high = np.full(theta.shape[1], alpha)
    ordered = np.sort(theta, axis=0)
    return finish(
        2.0 * est - sorted_quantile(ordered, level_low),
        2.0 * est - sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {},
    )


def _normal(
    distribution: ArrayLike,
    estimate: ArrayLike,
    level: float,
    alternative: str,
    ddof: Any = 1,
) -> IntervalEndpoints:
    """:func:`normal_interval` with ``level`` and ``alternative`` checked."""
    owner = "normal_interval"
    theta, vector = check_distribution(distribution, owner)
    est = check_estimate(estimate, theta.shape[1], vector, owner)
    n_rep = theta.shape[0]
    ddof = check_ddof(ddof, n_rep, owner)
    warn_zero_spread(
        owner,
        theta,
        vector,
        "the standard error is 0 and the interval is the single value estimate",
    )
    se = np.std(theta, axis=0, ddof=ddof)
    alpha = tail_alpha(level, alternative)
    level_low = np.full(theta.shape[1], alpha)
    level_high = np.full(theta.shape[1], 1.0 - alpha)
    return finish(
        est + float(ndtri(alpha)) * se,
        est + float(ndtri(1.0 - alpha)) * se,
        level_low,
        level_high,
        alternative,
        vector,
        {"standard_error": as_output(se, vector)},
    )
