"""``abc_interval()``: the ABC confidence interval, without resampling."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from skboot._typing import ArrayLike, StatisticLike
from skboot._validation import (
    ALTERNATIVE,
    DICT,
    LEVEL,
    NONE,
    Constraint,
    Interval,
    as_float_array,
    lower,
    param_error,
    validate_params,
    value_error,
)
from skboot.intervals._abc import (
    ABCInterval,
    abc_constants,
    abc_endpoints,
    second_step,
)
from skboot.statistic._abc_weighted import (
    ABC_STATISTICS,
    WeightedStatistic,
    builtin_weighted,
    check_builtin_data,
    user_weighted,
)

__all__ = ["abc_interval"]

_OWNER = "abc_interval"
_TABLE: dict[str, list[Constraint]] = {
    "level": [LEVEL],
    "alternative": [ALTERNATIVE],
    "epsilon": [Interval("real", 0.0, 1.0, closed="neither")],
    "statistic_kwargs": [DICT, NONE],
}
#: A callable's influence values from the steps e and 2e must agree to this
#: fraction of the largest one (smooth statistics agree to about 1e-6).
_SMOOTH_RTOL = 1e-2


def abc_interval(
    data: ArrayLike,
    statistic: StatisticLike = "mean",
    *,
    level: float = 0.95,
    alternative: str = "two-sided",
    epsilon: float = 0.001,
    statistic_kwargs: dict[str, Any] | None = None,
) -> ABCInterval:
    """ABC (approximate bootstrap confidence) interval of a smooth statistic.

    The ABC interval (DiCiccio & Efron 1992) approximates the BCa interval
    analytically, with no resampling and no random numbers: the statistic is
    written as a function ``t(w)`` of weights on the observations (``w = 1/n``
    gives the estimate), and its first and second numerical derivatives give the
    standard error, the acceleration, the bias correction and the curvature.
    It follows the R function ``abcnon`` (package ``bootstrap``) of Efron &
    Tibshirani (1993):

    1. ``t`` is evaluated at ``w = 1/n`` and at ``2 n`` weight vectors moved
       by ``+/- epsilon / n`` towards each observation, giving the empirical
       influence values, and at ``2 n`` more moved by ``+/- s``, giving the
       second derivatives and so the bias;
    2. two more evaluations along the least favourable direction (step ``s``)
       give the quadratic coefficient ``cq``, hence the curvature and ``z0``;
    3. each endpoint is ``t`` at one more weight vector along that direction
       (1 per side).

    ``abcnon`` takes the second differences at ``epsilon / n`` too; their
    rounding error then grows like ``n**2`` and its bias, ``cq`` and ``z0``
    are noise beyond a few thousand observations.  Here they use
    ``s = max(epsilon / n, 1e-4)``, which keeps them accurate to about 1e-8
    at any ``n``; up to ``n = 10`` (default epsilon) it is ``abcnon``'s step,
    and beyond it changes ``abcnon``'s constants by about 1e-8 relative.  Two
    steps also check a callable: its influence values from ``epsilon / n`` and
    from ``s`` (or ``2 epsilon / n`` where ``s`` is closer than that) must
    agree (a smooth statistic) and not all be zero (a statistic that uses its
    weights).

    Cost: ``4 n + 5`` evaluations of ``t`` (``6 n + 5`` for a callable at
    ``n <= 20`` with the default epsilon), so O(n**2) time for a callable
    and O(n) for a built-in, whose ``4 n`` values come from weighted moments
    at once.  Memory: O(n).

    Parameters
    ----------
    data : array-like of shape (n,) or (n, p)
        Rows are observations.  "mean", "var" and "std" need 1-D data, "corr"
        and "ratio" two columns.  A callable receives the data as a float64
        array of the given shape.
    statistic : {"mean", "var", "std", "corr", "ratio"} or callable, \
default="mean"
        The statistic, which must be a smooth function of the weights.
        "var" and "std" are the plug-in (divide by ``n``) versions,
        ``sum(w * (x - sum(w * x))**2)``; "corr" is the Pearson correlation of
        the two columns; "ratio" is the mean of the first column over the mean
        of the second.  A callable is called as ``statistic(data, weights,
        **statistic_kwargs)``, with ``weights`` of shape ``(n,)`` summing to 1,
        and must return one real number.  Weights near the endpoints may be
        negative for a few observations (as in ``abcnon``).
    level : float, default=0.95
        The confidence level, in (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        "less" gives ``(-inf, high)``, the upper bound at ``level``; "greater"
        gives ``(low, inf)``.
    epsilon : float, default=0.001
        The first derivatives' step, in units of ``1 / n`` (``abcnon``'s
        ``epsilon``), in (0, 1).
    statistic_kwargs : dict, optional
        Keyword arguments passed to a callable statistic.

    Returns
    -------
    ABCInterval
        The endpoints with ``estimate``, ``standard_error`` (the delta-method
        ``sighat``), and the constants ``a_hat``, ``z0``, ``cq``, ``bias``,
        ``curvature`` and ``influence``.

    Raises
    ------
    ValueError
        For a bad parameter, data of the wrong shape or with NaN, fewer than 2
        observations, a statistic that is undefined on the data, that does not
        depend on the weights or that is not smooth in them.
    skboot.StatisticError
        When a callable statistic raises.

    Warns
    -----
    skboot.DegenerateDistributionWarning
        When the influence values are all zero (constant data): the interval
        is the point ``(estimate, estimate)``; or when an endpoint lies beyond
        the range of the approximation (``a_hat * Z >= 1``) or the statistic is
        not finite at its weights: that endpoint is NaN.

    See Also
    --------
    skboot.bootstrap : The bootstrap distribution, whose BCa interval the ABC
        interval approximates.
    skboot.ABCInterval : The result.

    Notes
    -----
    The ABC interval is second-order accurate, like BCa, for statistics that
    are smooth functions of the weights (means, variances, correlations, ratios,
    smooth M-estimators); it is wrong for non-smooth ones (medians, quantiles,
    maxima), which a callable's smoothness check refuses.  With ``a = z0 = 0``
    and no curvature it is the standard interval ``estimate -/+ z sighat``.

    References
    ----------
    .. [1] DiCiccio, T. J. and Efron, B. (1992). More accurate confidence
       intervals in exponential families. *Biometrika* 79(2), 231-245.
    .. [2] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
       Bootstrap*, chapters 14 and 22. Chapman & Hall/CRC.
    .. [3] DiCiccio, T. J. and Efron, B. (1996). Bootstrap confidence
       intervals. *Statistical Science* 11(3), 189-228.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.statistic import abc_interval
    >>> x = np.array([1.2, 3.4, 0.7, 2.2, 5.1, 1.9, 2.8, 0.4])
    >>> ci = abc_interval(x, "var", level=0.9)
    >>> round(ci.low, 3), round(ci.high, 3)
    (1.066, 4.193)

    A callable statistic of the data and the weights:

    >>> def weighted_mean(data, weights):
    ...     return np.sum(weights * data)
    >>> ci = abc_interval(x, weighted_mean)
    >>> round(ci.low, 3), round(ci.high, 3)
    (1.356, 3.408)
    """
    params = validate_params(
        _OWNER,
        _TABLE,
        level=level,
        alternative=lower(alternative),
        epsilon=epsilon,
        statistic_kwargs=statistic_kwargs,
    )
    x = as_float_array(data, "data", _OWNER, ndim=(1, 2), min_rows=2)
    weighted, name = _weighted(statistic, x, params["statistic_kwargs"] or {})
    eps = params["epsilon"]
    t0 = weighted.at(np.full(x.shape[0], 1.0 / x.shape[0]))
    if not np.isfinite(t0):
        what = "statistic" if callable(statistic) else "data"
        raise value_error(
            what,
            _OWNER,
            f"must give a finite {name!r} on the data (equal weights). Got "
            f"{t0 + weighted.offset!r} instead.",
        )
    n = x.shape[0]
    first = weighted.perturbed(eps / n)
    second = weighted.perturbed(second_step(eps, n))
    if callable(statistic):
        step = _check_step(eps, n)
        check = second if step == second_step(eps, n) else weighted.perturbed(step)
        _check_smooth(first, check, step, eps, x, name)
    constants = abc_constants(t0, first, second, weighted.at, eps)
    low, high = abc_endpoints(
        constants, t0, weighted.at, params["level"], params["alternative"]
    )
    return ABCInterval(
        low + weighted.offset,
        high + weighted.offset,
        estimate=t0 + weighted.offset,
        standard_error=constants["standard_error"],
        method="abc",
        level=params["level"],
        alternative=params["alternative"],
        name=name,
        a_hat=constants["a_hat"],
        z0=constants["z0"],
        cq=constants["cq"],
        bias=constants["bias"],
        curvature=constants["curvature"],
        influence=constants["influence"],
        epsilon=eps,
    )


def _weighted(
    statistic: Any, x: np.ndarray, kwargs: dict[str, Any]
) -> tuple[WeightedStatistic, str]:
    """The statistic in weighted form, and its name."""
    if isinstance(statistic, str) and statistic in ABC_STATISTICS:
        check_builtin_data(statistic, x)
        return builtin_weighted(statistic, x), statistic
    if callable(statistic) and not isinstance(statistic, type):
        if not _takes_two(statistic, kwargs):
            raise param_error(
                "statistic",
                _OWNER,
                "a callable statistic(data, weights) of two positional "
                "arguments (weights sum to 1)",
                statistic,
            )
        name = getattr(statistic, "__name__", type(statistic).__name__)
        return user_weighted(statistic, x, kwargs), name
    allowed = ", ".join(repr(s) for s in ABC_STATISTICS)
    raise param_error(
        "statistic",
        _OWNER,
        f"one of {{{allowed}}} (the statistics with a weighted form) or a "
        "callable statistic(data, weights)",
        statistic,
    )


def _takes_two(func: Callable[..., Any], kwargs: dict[str, Any]) -> bool:
    """Whether ``func(data, weights, **kwargs)`` binds (True when it cannot be
    told)."""
    try:
        inspect.signature(func).bind(None, None, **kwargs)
    except TypeError:
        return False
    except ValueError:  # no signature (some builtins): let the call decide
        return True
    return True


def _check_step(eps: float, n: int) -> float:
    """The second step of the smoothness check: the second differences' step
    when it is at least twice ``epsilon / n`` (no extra evaluations), else
    ``2 epsilon / n`` (``2 n`` more, at ``n <= 20`` with the default
    epsilon)."""
    step = second_step(eps, n)
    return step if step >= 2.0 * eps / n else 2.0 * eps / n


def _check_smooth(
    first: tuple[np.ndarray, np.ndarray],
    check: tuple[np.ndarray, np.ndarray],
    step: float,
    eps: float,
    x: np.ndarray,
    name: str,
) -> None:
    """A callable must depend on the weights (unless the data are constant) and
    be smooth in them: its influence values from the steps ``epsilon / n``
    (``first``) and ``step`` (``check``) agree."""
    n = x.shape[0]
    influence = (first[0] - first[1]) * (n / (2.0 * eps))
    scale = float(np.max(np.abs(influence)))
    if scale == 0.0:
        if np.ptp(x, axis=0).any():
            raise value_error(
                "statistic",
                _OWNER,
                "must depend on the weights: its value did not change when the "
                "weight of any observation changed (does it use its 'weights' "
                f"argument?). Got {name!r} instead.",
            )
        return
    influence2 = (check[0] - check[1]) / (2.0 * step)
    gap = float(np.max(np.abs(influence2 - influence)))
    if not np.isfinite(gap) or gap > _SMOOTH_RTOL * scale:
        raise value_error(
            "statistic",
            _OWNER,
            "must be a smooth function of the weights (the ABC interval needs "
            "its derivatives): the influence values from two step sizes differ "
            f"by {gap:.3g}, {gap / scale:.3g} of the largest one. Non-smooth "
            "statistics (medians, quantiles, maxima) need a bootstrap interval "
            "(skboot.bootstrap(...).confidence_interval(method='bca')).",
        )
