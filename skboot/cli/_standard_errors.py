"""Standard errors for ``skboot ci --method studentized`` (nonparametric delta method).

The studentized (bootstrap-t) interval needs a standard error on the original data
and on every replicate.  For the smooth built-in statistics the command line uses the
nonparametric delta method (the infinitesimal jackknife; Efron & Tibshirani 1993,
section 21.3): with ``L_i`` the empirical influence value of observation ``i``,

    se = sqrt( sum_i (L_i - mean(L))**2 / (n - 1) / n ),

which for the mean is ``std(x, ddof=1) / sqrt(n)``, the closed form that
:meth:`skboot.BootstrapResult.confidence_interval` uses for ``"mean"``.  The
influence values (Hampel 1974) are

* mean, proportion: ``x_i - mean``;
* sum: ``n (x_i - mean)``;
* var (``ddof=0``): ``(x_i - mean)**2 - var``;
* std: ``((x_i - mean)**2 - var) / (2 std)``;
* corr (Pearson), with ``u, v`` the standardized columns:
  ``u_i v_i - r (u_i**2 + v_i**2) / 2`` (Devlin, Gnanadesikan & Kettenring 1975).

Every function also takes ``weights`` (the Bayesian bootstrap's continuous weights,
read as frequency weights summing to ``n``), so a replicate's standard error is the
plug-in one of its weighted empirical distribution.  A replicate with zero spread
gives a zero or undefined standard error, which the interval leaves out with a
:class:`skboot.DegenerateDistributionWarning`.

References
----------
1. B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman &
   Hall, 1993 (chapter 12: the bootstrap-t; chapter 21: the delta method and the
   infinitesimal jackknife).
2. F. R. Hampel, "The influence curve and its role in robust estimation", *Journal
   of the American Statistical Association* 69(346), 1974.
3. S. J. Devlin, R. Gnanadesikan and J. R. Kettenring, "Robust estimation and
   outlier detection with correlation coefficients", *Biometrika* 62(3), 1975.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["DELTA_METHOD", "delta_method_se"]


def _weights(a: np.ndarray, weights: Any) -> tuple[np.ndarray, float]:
    if weights is None:
        w = np.ones(a.shape[0])
    else:
        w = np.asarray(weights, dtype=np.float64)
    return w, float(w.sum())


def _se_from_influence(infl: np.ndarray, w: np.ndarray, sw: float) -> float:
    """``sqrt(var_w(infl, ddof=1) / n)``, frequency weights ``w``, ``n = sum w``."""
    centred = infl - (w @ infl) / sw
    return float(np.sqrt((w @ (centred * centred)) / (sw - 1.0) / sw))


def _centred(a: np.ndarray, w: np.ndarray, sw: float) -> np.ndarray:
    return a - (w @ a) / sw


def se_mean(a: Any, weights: Any = None) -> float:
    """Delta-method standard error of the mean (and of a proportion)."""
    a = np.asarray(a, dtype=np.float64)
    w, sw = _weights(a, weights)
    return _se_from_influence(_centred(a, w, sw), w, sw)


def se_sum(a: Any, weights: Any = None) -> float:
    """Delta-method standard error of the sum, ``n`` times the mean's."""
    a = np.asarray(a, dtype=np.float64)
    w, sw = _weights(a, weights)
    return sw * _se_from_influence(_centred(a, w, sw), w, sw)


def se_var(a: Any, weights: Any = None) -> float:
    """Delta-method standard error of the plug-in variance (``ddof=0``)."""
    a = np.asarray(a, dtype=np.float64)
    w, sw = _weights(a, weights)
    d = _centred(a, w, sw)
    return _se_from_influence(d * d, w, sw)


def se_std(a: Any, weights: Any = None) -> float:
    """Delta-method standard error of the plug-in standard deviation (``ddof=0``)."""
    a = np.asarray(a, dtype=np.float64)
    w, sw = _weights(a, weights)
    d = _centred(a, w, sw)
    sq = d * d
    sd = np.sqrt((w @ sq) / sw)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _se_from_influence(sq / (2.0 * sd), w, sw)


def se_corr(a: Any, weights: Any = None) -> float:
    """Delta-method standard error of Pearson's correlation of two columns."""
    a = np.asarray(a, dtype=np.float64)
    w, sw = _weights(a, weights)
    d = a - (w @ a) / sw
    sd = np.sqrt((w @ (d * d)) / sw)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = d[:, 0] / sd[0]
        v = d[:, 1] / sd[1]
        uv = u * v
        r = (w @ uv) / sw
        return _se_from_influence(uv - 0.5 * r * (u * u + v * v), w, sw)


#: Statistic name -> its delta-method standard error (``"mean"`` is not here: the
#: library's own closed form serves it, and gives the same value).
DELTA_METHOD: dict[str, Callable[..., float]] = {
    "sum": se_sum,
    "proportion": se_mean,
    "var": se_var,
    "std": se_std,
    "corr": se_corr,
}


def delta_method_se(statistic: str) -> Callable[..., float] | None:
    """The standard-error function of a built-in statistic, or None if it has none.

    Parameters
    ----------
    statistic : str
        A built-in statistic name.

    Returns
    -------
    callable or None
        ``f(data, weights=None) -> float``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> se = delta_method_se("sum")
    >>> bool(np.isclose(se(x), x.size * x.std(ddof=1) / np.sqrt(x.size)))
    True
    >>> delta_method_se("median") is None
    True
    """
    return DELTA_METHOD.get(statistic)
