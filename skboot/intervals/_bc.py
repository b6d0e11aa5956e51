"""The bias-corrected (BC) and bias-corrected and accelerated (BCa) intervals,
with their two constants: the bias correction ``z0`` and the acceleration
``a_hat`` (Efron & Tibshirani 1993, eqs. 14.9-14.15)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from skboot.intervals._checks import (
    check_distribution,
    check_estimate,
    check_jackknife,
    check_level_and_alternative,
)
from skboot.intervals._common import (
    acceleration,
    as_output,
    finish,
    mid_rank_z0,
    sorted_quantile,
    tail_alpha,
    warn_columns,
    warn_zero_spread,
)
from skboot.intervals._moments import JackknifeMoments
from skboot.intervals._result import (
    Alternative,
    FloatArray,
    FloatOrArray,
    IntervalEndpoints,
)

__all__ = [
    "bc_interval",
    "bca_interval",
    "bias_correction",
    "jackknife_acceleration",
]


def _adjusted_levels(
    z0: FloatArray, a_hat: FloatArray, alpha: float
) -> tuple[FloatArray, FloatArray]:
    """Efron & Tibshirani (1993) eq. 14.10: the levels
    ``Phi(z0 + (z0 + z) / (1 - a_hat (z0 + z)))`` at ``z = z^(alpha)`` and at
    ``z^(1 - alpha)``, taken as ``-z^(alpha)`` as scipy does.

    Columns with an infinite ``z0`` get NaN levels (the policy); 0 stands in for
    them so that the arithmetic stays quiet.
    """
    z_alpha = float(ndtri(alpha))
    infinite = np.isinf(z0)
    bias = np.where(infinite, 0.0, z0)
    levels = []
    for z in (z_alpha, -z_alpha):
        shifted = bias + z
        adjusted = ndtr(bias + shifted / (1.0 - a_hat * shifted))
        levels.append(np.where(infinite, np.nan, adjusted))
    return levels[0], levels[1]


def _bc_family(
    owner: str,
    distribution: Any,
    estimate: Any,
    jackknife_values: Any,
    level: Any,
    alternative: Any,
) -> IntervalEndpoints:
    """BC (``jackknife_values is None``, a = 0) and BCa intervals; ``level``
    and ``alternative`` were checked by the entry point."""
    theta, vector = check_distribution(distribution, owner)
    k = theta.shape[1]
    est = check_estimate(estimate, k, vector, owner)
    if jackknife_values is None:
        a_hat = np.zeros(k)
    else:
        jk, _ = check_jackknife(jackknife_values, k, vector, owner)
        a_hat, constant = acceleration(jk)
        warn_columns(
            owner,
            constant,
            vector,
            "jackknife_values",
            "all jackknife values are equal, so the acceleration is 0/0; "
            "a_hat = 0 is used (the BC interval).",
        )
    warn_zero_spread(
        owner,
        theta,
        vector,
        "the interval is that value if the estimate equals it, NaN otherwise",
    )
    z0 = mid_rank_z0(theta, est)
    for sign, side in ((-1.0, "below"), (1.0, "above")):
        warn_columns(
            owner,
            z0 == sign * np.inf,
            vector,
            "distribution",
            f"the estimate lies {side} every bootstrap replicate, so the bias "
            f"correction z0 is {'+' if sign > 0 else '-'}inf; the endpoints are NaN.",
        )
    level_low, level_high = _adjusted_levels(z0, a_hat, tail_alpha(level, alternative))
    ordered = np.sort(theta, axis=0)
    diagnostics: dict[str, Any] = {"z0": as_output(z0, vector)}
    if jackknife_values is not None:
        diagnostics["a_hat"] = as_output(a_hat, vector)
    return finish(
        sorted_quantile(ordered, level_low),
        sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        diagnostics,
    )


def bc_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Bias-corrected (BC) percentile interval: BCa with acceleration 0.

    Implements Efron & Tibshirani (1993) eqs. 14.9-14.10 with ``a_hat = 0``: the
    endpoints are the quantiles of the replicates at
    ``Phi(2 z0 + z^(alpha))`` and ``Phi(2 z0 + z^(1 - alpha))``, with ``z0`` from
    :func:`bias_correction` (eq. 14.14, ties with the estimate counted one half).

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
        ``levels`` are the adjusted levels ``(alpha_1, alpha_2)``;
        ``diagnostics["z0"]`` is the bias correction.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread, or the estimate lies outside the range of
        the replicates (``z0`` infinite; those endpoints are NaN).

    See Also
    --------
    bca_interval : With the acceleration (skewness) correction too.
    bias_correction : The ``z0`` it uses.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import bc_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = bc_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3), round(res.diagnostics["z0"], 3))
    0.889 1.515 0.08
    """
    owner = "bc_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _bc_family(owner, distribution, estimate, None, level, alternative)


def bca_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    jackknife_values: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Bias-corrected and accelerated (BCa) interval.

    Implements Efron & Tibshirani (1993) eqs. 14.9-14.10 (DiCiccio & Efron 1996,
    section 2; Davison & Hinkley 1997, section 5.3.2): the endpoints are the
    quantiles of the replicates at

    ``alpha_1 = Phi(z0 + (z0 + z^(alpha)) / (1 - a_hat (z0 + z^(alpha))))``

    and ``alpha_2``, the same with ``z^(1 - alpha)``. ``z0`` is
    :func:`bias_correction` (eq. 14.14, ties counted one half) and ``a_hat`` is
    :func:`jackknife_acceleration` (eq. 14.15). With the same inputs the endpoints
    equal ``scipy.stats.bootstrap(..., method="BCa")``'s.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    jackknife_values : array-like of shape (n,) or (n, k)
        The statistic on each of the ``n`` leave-one-out samples; 2-D exactly
        when ``distribution`` is.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` are the adjusted levels ``(alpha_1, alpha_2)``;
        ``diagnostics`` holds ``z0`` and ``a_hat``.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; if the estimate lies outside the range of the
        replicates (``z0`` infinite; those endpoints are NaN); if a column of
        jackknife values is constant (``a_hat = 0`` is used).

    See Also
    --------
    bc_interval : Without the acceleration.
    jackknife_acceleration : The ``a_hat`` from jackknife values.
    percentile_interval : The uncorrected percentiles.

    Notes
    -----
    When ``|z0 + z|`` approaches ``1 / |a_hat|`` the adjusted level is no longer
    monotone in ``level``; this only happens for extreme levels or very skewed
    jackknife values, and is inherent to the method (scipy and arch behave the
    same way).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import bca_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> loo = (x.sum() - x) / 39  # leave-one-out means
    >>> res = bca_interval(boot, x.mean(), loo, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.903 1.544
    >>> print(round(res.diagnostics["a_hat"], 4))
    0.0541
    """
    owner = "bca_interval"
    level, alternative = check_level_and_alternative(owner, level, alternative)
    return _bc_family(
        owner, distribution, estimate, jackknife_values, level, alternative
    )


def bias_correction(distribution: ArrayLike, estimate: ArrayLike) -> FloatOrArray:
    """Bias-correction constant ``z0`` of the BC and BCa intervals.

    Implements ``z0 = Phi^-1(p)`` with ``p`` the fraction of replicates below the
    estimate, Efron & Tibshirani (1993) eq. 14.14, counting replicates equal to the
    estimate as one half: ``p = (#{theta*_b < theta_hat} + #{theta*_b <=
    theta_hat}) / (2 B)``, as :func:`scipy.stats.bootstrap` does. Without ties this
    is exactly eq. 14.14.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.

    Returns
    -------
    float or ndarray of shape (k,)
        ``z0``; ``-inf`` (``inf``) when the estimate lies below (above) every
        replicate.

    Warns
    -----
    DegenerateDistributionWarning
        When ``z0`` is infinite.

    Examples
    --------
    >>> from skboot.intervals import bias_correction
    >>> print(round(bias_correction([1.0, 2.0, 3.0, 4.0], 2.0), 4))
    -0.3186
    """
    owner = "bias_correction"
    theta, vector = check_distribution(distribution, owner)
    est = check_estimate(estimate, theta.shape[1], vector, owner)
    z0 = mid_rank_z0(theta, est)
    warn_columns(
        owner,
        np.isinf(z0),
        vector,
        "distribution",
        "the estimate lies outside the range of the bootstrap replicates, so z0 "
        "is infinite.",
    )
    return as_output(z0, vector)


def jackknife_acceleration(
    jackknife_values: ArrayLike | JackknifeMoments,
) -> FloatOrArray:
    """Acceleration ``a_hat`` of the BCa interval from jackknife values.

    Implements Efron & Tibshirani (1993) eq. 14.15:
    ``a_hat = sum(d**3) / (6 * sum(d**2) ** 1.5)`` with ``d_i = theta_(.) -
    theta_(i)``, the deviations of the leave-one-out values ``theta_(i)`` from
    their mean, per column. Equal to scipy's ``a_hat`` (which scales ``d`` by
    ``n - 1``, a factor that cancels).

    Parameters
    ----------
    jackknife_values : array-like of shape (n,) or (n, k), or JackknifeMoments
        The statistic on each of the ``n`` leave-one-out samples. Must be finite.
        Or their central power sums (what a run on a dask collection computes
        where the rows live).

    Returns
    -------
    float or ndarray of shape (k,)
        ``a_hat``; always ``|a_hat| < 1/6``.

    Warns
    -----
    DegenerateDistributionWarning
        If the values of a column are all equal (0/0); ``a_hat = 0`` is returned
        for that column.

    Examples
    --------
    >>> from skboot.intervals import jackknife_acceleration
    >>> print(round(jackknife_acceleration([1.0, 1.0, 1.0, 4.0]), 4))
    -0.0962
    """
    owner = "jackknife_acceleration"
    jk, vector = check_jackknife(jackknife_values, None, None, owner)
    a_hat, constant = acceleration(jk)
    warn_columns(
        owner,
        constant,
        vector,
        "jackknife_values",
        "all jackknife values are equal, so the acceleration is 0/0; returning 0.",
    )
    return as_output(a_hat, vector)
