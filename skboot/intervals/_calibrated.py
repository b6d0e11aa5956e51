"""The calibrated percentile and basic intervals: the levels of the plain
intervals adjusted by the double bootstrap.

The percentile interval's lower endpoint at level ``lam`` misses ``theta`` when
``G(theta) < lam`` (``G`` the distribution function of the replicates).  In the
bootstrap world ``theta`` is ``theta_hat`` and ``G`` the distribution of an outer
replicate's inner replicates, so ``G`` at ``theta`` becomes ``u_b = #{t**_bc <=
t_hat} / n_inner`` and the miss rate at ``lam`` is ``#{u_b < lam} / B``.  Setting
it to ``alpha`` gives the calibrated level: the ``alpha``-quantile of the ``u_b``;
the upper level is their ``1 - alpha``-quantile (Efron & Tibshirani 1993, section
18.3; Hall 1986; Beran 1987; Davison & Hinkley 1997, section 5.6).  The interval
is then ``(theta*_(q_u(alpha)), theta*_(q_u(1 - alpha)))``.

The basic interval ``(2 t_hat - theta*_(1 - alpha), 2 t_hat - theta*_(alpha))`` is
calibrated the same way with ``v_b = #{t**_bc - t*_b <= t*_b - t_hat} /
n_inner`` (the bootstrap world's ``G(2 t_hat - theta)``): ``(2 t_hat -
theta*_(q_v(1 - alpha)), 2 t_hat - theta*_(q_v(alpha)))``.

When every ``u_b`` (``v_b``) is uniform the intervals are the plain ones.
Quantiles are type 7 (Hyndman & Fan 1996), of the replicates and of the
proportions alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._validation import value_error
from skboot.intervals._checks import check_distribution, check_estimate, numeric_array
from skboot.intervals._common import (
    finish,
    sorted_quantile,
    tail_alpha,
    warn_zero_spread,
)
from skboot.intervals._result import FloatArray, IntervalEndpoints

__all__ = [
    "CALIBRATED_METHODS",
    "CALIBRATION_N_INNER",
    "calibrated_basic",
    "calibrated_percentile",
]

#: The methods of this module, as spelled in ``method=``.
CALIBRATED_METHODS = ("calibrated", "calibrated_basic")
#: Inner replicates per replicate when ``n_inner`` is not given.
CALIBRATION_N_INNER = 200


def check_proportions(value: Any, shape: tuple[int, int], owner: str) -> FloatArray:
    """The per-replicate proportions as (B, k), each in [0, 1]."""
    arr = numeric_array(value, "calibration", owner)
    arr = arr[:, np.newaxis] if arr.ndim == 1 else arr
    if arr.shape != shape or not np.all((arr >= 0.0) & (arr <= 1.0)):
        raise value_error(
            "calibration",
            owner,
            f"must give proportions in [0, 1] of shape {shape}, one per replicate "
            f"and output. Got shape {np.shape(value)} instead.",
        )
    return arr


def _levels(props: FloatArray, alpha: float) -> tuple[FloatArray, FloatArray]:
    """The ``alpha`` and ``1 - alpha`` quantiles of each column of ``props``."""
    ordered = np.sort(props, axis=0)
    k = props.shape[1]
    return (
        sorted_quantile(ordered, np.full(k, alpha)),
        sorted_quantile(ordered, np.full(k, 1.0 - alpha)),
    )


def calibrated_percentile(
    distribution: Any, proportions: Any, level: float, alternative: str
) -> IntervalEndpoints:
    """Calibrated percentile interval (module notes), ``level`` and
    ``alternative`` checked by the caller.

    ``levels`` are the calibrated levels ``(q_u(alpha), q_u(1 - alpha))`` of the
    bootstrap distribution; ``diagnostics["nominal_levels"]`` the plain ones.
    """
    owner = "interval_by_method"
    theta, vector = check_distribution(distribution, owner)
    u = check_proportions(proportions, theta.shape, owner)
    warn_zero_spread(owner, theta, vector, "the interval is that single value")
    alpha = tail_alpha(level, alternative)
    level_low, level_high = _levels(u, alpha)
    ordered = np.sort(theta, axis=0)
    return finish(
        sorted_quantile(ordered, level_low),
        sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {"nominal_levels": (alpha, 1.0 - alpha)},
    )


def calibrated_basic(
    distribution: Any,
    estimate: Any,
    proportions: Any,
    level: float,
    alternative: str,
) -> IntervalEndpoints:
    """Calibrated basic interval (module notes), ``level`` and ``alternative``
    checked by the caller.

    ``levels`` are ``(q_v(1 - alpha), q_v(alpha))``, the levels of the bootstrap
    distribution reflected for the low and the high endpoint.
    """
    owner = "interval_by_method"
    theta, vector = check_distribution(distribution, owner)
    est = check_estimate(estimate, theta.shape[1], vector, owner)
    v = check_proportions(proportions, theta.shape, owner)
    warn_zero_spread(
        owner,
        theta,
        vector,
        "the interval is the single value 2 * estimate - replicate",
    )
    alpha = tail_alpha(level, alternative)
    level_high, level_low = _levels(v, alpha)
    ordered = np.sort(theta, axis=0)
    return finish(
        2.0 * est - sorted_quantile(ordered, level_low),
        2.0 * est - sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {"nominal_levels": (1.0 - alpha, alpha)},
    )
