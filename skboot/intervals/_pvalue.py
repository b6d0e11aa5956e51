"""Bootstrap p-values by inverting confidence intervals: the pure computation on a
distribution (:func:`pvalue_by_method`, as :func:`interval_by_method` is for
intervals).

For a method and an alternative, the p-value of ``H0: theta = null`` is the
smallest ``alpha`` at which the ``1 - alpha`` interval of that method (the one
:meth:`skboot.BootstrapResult.confidence_interval` returns, with the same
``alternative``) excludes ``null``:

    p < alpha  if and only if  the (1 - alpha) interval excludes null.

Every method here has endpoints that move monotonically with the level, so the
smallest such ``alpha`` is found in closed form by solving "endpoint(alpha) =
null" for ``alpha`` (Efron & Tibshirani 1993, section 15.4; Davison & Hinkley
1997, section 4.4 and eq. 5.19 for the BCa level, Hall & Wilson 1991 for the
studentized pivot).  Per side, with ``q(p)`` the type-7 ``p``-quantile of the
sorted replicates and

* ``G(v) = sup{p in [0, 1] : q(p) <= v}`` (0 when ``v`` is below every
  replicate),
* ``L(v) = inf{p in [0, 1] : q(p) >= v}`` (1 when ``v`` is above every
  replicate),

the tail probabilities are (``lo``: the null lies below the interval, ``hi``:
above it):

* percentile: ``lo = G(null)``, ``hi = 1 - L(null)``;
* basic: with ``v = 2 theta_hat - null``, ``lo = 1 - L(v)``, ``hi = G(v)``;
* normal: ``lo = Phi((null - theta_hat) / se)``, ``hi = Phi((theta_hat -
  null) / se)`` (``se`` the ``ddof=1`` standard deviation of the replicates,
  as the normal interval uses);
* BC and BCa: with ``w = Phi^-1(G(null))``, ``lo = Phi(s - z0)`` where ``s = (w -
  z0) / (1 + a (w - z0))`` solves the BCa level equation ``Phi(z0 + s / (1 - a
  s)) = G(null)``; ``hi`` the same with ``w = Phi^-1(L(null))`` and
  ``1 - Phi(s - z0)`` (``a = 0`` for BC);
* calibrated: ``lo = G_u(G(null))``, ``hi = 1 - L_u(L(null))``, with ``G_u``
  and ``L_u`` the level functions of the double bootstrap's proportions ``u_b``
  (the calibrated levels are their quantiles); this is the double-bootstrap
  adjusted p-value (Davison & Hinkley 1997, section 4.5);
* calibrated_basic: with ``w = 2 theta_hat - null``, ``lo = 1 - L_v(L(w))``,
  ``hi = G_v(G(w))``;
* studentized: with ``tau = (theta_hat - null) / se`` and the quantiles of the
  bootstrap-t values ``t*_b = (theta*_b - theta_hat) / se*_b``: ``lo = 1 -
  L_t(tau)``, ``hi = G_t(tau)``.

"greater" (``H1: theta > null``, interval ``(low, inf)``) reports ``lo``,
"less" reports ``hi``, "two-sided" reports ``min(1, 2 min(lo, hi))``.

For the percentile method this is the fraction of replicates on the far side of
the null (``G(null)`` is about ``#{theta*_b <= null} / B``), a common but not
universal definition of a percentile p-value: it tests against the bootstrap
distribution itself, which is centred at the estimate rather than the null, and
is only first-order accurate.  The studentized p-value is the bootstrap-t test
of Hall & Wilson (1991), which follows both of their guidelines (resample
``theta* - theta_hat``, the null-centred quantity, and use a pivot); prefer it,
or BCa, when the distribution is skewed.  A p-value is only as fine as the
distribution: values below about ``1 / B`` mean "beyond every replicate".

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
   Bootstrap*, ch. 15-16. Chapman & Hall/CRC.
.. [2] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their
   Application*, sections 4.4 and 5.3. Cambridge University Press.
.. [3] Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap
   hypothesis testing. *Biometrics* 47(2), 757-762.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from skboot._exceptions import DegenerateDistributionWarning, warn
from skboot._validation import Constraint, Options, param_error, validate_params
from skboot.intervals._bc import bias_correction, jackknife_acceleration
from skboot.intervals._checks import ALTERNATIVE, METHODS, OPTIONAL_CALLABLE
from skboot.intervals._moments import JackknifeMoments

__all__ = ["method_pvalues", "pvalue_by_method", "quantile_levels"]

_CONSTRAINTS: dict[str, list[Constraint]] = {
    "method": [Options(METHODS, case_insensitive=True)],
    "alternative": [ALTERNATIVE],
    "jackknife": OPTIONAL_CALLABLE,
    "studentized": OPTIONAL_CALLABLE,
    "calibration": OPTIONAL_CALLABLE,
}


def quantile_levels(ordered: np.ndarray, v: float) -> tuple[float, float]:
    """``(G(v), L(v))`` for the type-7 quantile function of the sorted values
    ``ordered``: the largest level whose quantile is ``<= v`` and the smallest
    whose quantile is ``>= v`` (0 and 1 when there is none)."""
    B = ordered.shape[0]
    if B == 1:
        g = 1.0 if ordered[0] <= v else 0.0
        return g, (0.0 if ordered[0] >= v else 1.0)
    if v < ordered[0]:
        g = 0.0
    elif v >= ordered[-1]:
        g = 1.0
    else:
        j = int(np.searchsorted(ordered, v, side="right")) - 1
        g = (j + (v - ordered[j]) / (ordered[j + 1] - ordered[j])) / (B - 1)
    if v > ordered[-1]:
        lv = 1.0
    elif v <= ordered[0]:
        lv = 0.0
    else:
        j = int(np.searchsorted(ordered, v, side="left"))
        lv = (j - 1 + (v - ordered[j - 1]) / (ordered[j] - ordered[j - 1])) / (B - 1)
    return float(g), float(lv)


def _bca_tail(level: float, z0: float, a: float, upper: bool) -> float:
    """Solve the BCa level equation for the interval's tail probability."""
    if level <= 0.0:
        return 1.0 if upper else 0.0
    if level >= 1.0:
        return 0.0 if upper else 1.0
    u = float(ndtri(level)) - z0
    den = 1.0 + a * u
    if den <= 0.0:
        # beyond the monotone branch: the endpoint never reaches the null
        # (a > 0: always past it; a < 0: never past it)
        past = a > 0.0 if not upper else a < 0.0
        return 0.0 if past else 1.0
    z = u / den - z0
    return float(1.0 - ndtr(z)) if upper else float(ndtr(z))


def _calibrated_tails(
    method: str, ordered: np.ndarray, est: float, null: float, props: np.ndarray
) -> tuple[float, float]:
    """``(lo, hi)`` of the calibrated methods.  A value beyond every replicate
    is outside the interval at every level, even when some proportions are 0
    or 1 (the calibrated level is then 0 or 1 and the endpoint the extreme
    replicate), so its tail is 0."""
    basic = method == "calibrated_basic"
    v = 2.0 * est - null if basic else null
    g, lv = quantile_levels(ordered, v)
    below = 0.0 if v < ordered[0] else quantile_levels(props, g)[0]
    above = 0.0 if v > ordered[-1] else 1.0 - quantile_levels(props, lv)[1]
    return (above, below) if basic else (below, above)


def _tails(
    method: str,
    ordered: np.ndarray,
    est: float,
    null: float,
    extra: dict[str, Any],
) -> tuple[float, float]:
    """``(lo, hi)`` for one column; see the module docstring."""
    if method == "percentile":
        g, lv = quantile_levels(ordered, null)
        return g, 1.0 - lv
    if method == "basic":
        g, lv = quantile_levels(ordered, 2.0 * est - null)
        return 1.0 - lv, g
    if method in ("calibrated", "calibrated_basic"):
        return _calibrated_tails(method, ordered, est, null, extra["props"])
    if method == "normal":
        se = extra["se"]
        if se == 0.0:
            return (0.0 if null < est else 0.5), (0.0 if null > est else 0.5)
        return float(ndtr((null - est) / se)), float(ndtr((est - null) / se))
    if method in ("bc", "bca"):
        z0, a = extra["z0"], extra["a"]
        if not np.isfinite(z0):
            return np.nan, np.nan
        g, lv = quantile_levels(ordered, null)
        return _bca_tail(g, z0, a, upper=False), _bca_tail(lv, z0, a, upper=True)
    # studentized
    se, t_sorted = extra["se"], extra["t"]
    if not np.isfinite(se) or t_sorted.shape[0] == 0:
        return np.nan, np.nan
    if se == 0.0:
        return (0.0 if null < est else 0.5), (0.0 if null > est else 0.5)
    g, lv = quantile_levels(t_sorted, (est - null) / se)
    return 1.0 - lv, g


def pvalue_by_method(
    method: str,
    distribution: ArrayLike,
    estimate: ArrayLike,
    null: ArrayLike,
    *,
    alternative: str = "two-sided",
    jackknife: Callable[[], ArrayLike | JackknifeMoments] | None = None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
    owner: str = "pvalue_by_method",
    calibration: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> np.ndarray:
    """P-values of ``H0: theta = null`` by inverting the interval of ``method``,
    one per column: the smallest ``alpha`` whose ``1 - alpha`` interval (same
    ``alternative``) excludes ``null`` (see the module docstring).

    Parameters
    ----------
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized", \
"calibrated", "calibrated_basic"}
        Any letter case.
    distribution : array-like of shape (B,) or (B, k)
    estimate : float or array-like of shape (k,)
    null : float or array-like of shape (k,)
        Finite; one value for all columns or one per column.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
    jackknife : callable, optional
        Returns the jackknife values (for "bca"), as in
        :func:`interval_by_method`.
    studentized : callable, optional
        Returns ``(se_hat, se_star)`` (for "studentized").
    owner : str, default="pvalue_by_method"
        The name error messages give (the public entry point).
    calibration : callable, optional
        Returns the double bootstrap's proportions ``(u, v)`` (for
        "calibrated" and "calibrated_basic"), as in :func:`interval_by_method`.

    Returns
    -------
    ndarray of shape (k,)
        NaN where the interval is undefined (BCa with the estimate outside the
        replicates, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import percentile_interval, pvalue_by_method
    >>> dist = np.random.default_rng(0).normal(0.3, 0.1, size=2000)
    >>> p = pvalue_by_method("percentile", dist, 0.3, 0.1)[0]
    >>> ci = percentile_interval(dist, level=1 - 0.1)
    >>> bool(p < 0.1) == bool(not ci.low <= 0.1 <= ci.high)
    True
    """
    opts = validate_params(
        owner,
        _CONSTRAINTS,
        method=method,
        alternative=alternative,
        jackknife=jackknife,
        studentized=studentized,
        calibration=calibration,
    )
    return method_pvalues(
        opts["method"],
        distribution,
        estimate,
        null,
        alternative=opts["alternative"],
        jackknife=jackknife,
        studentized=studentized,
        owner=owner,
        calibration=calibration,
    )


def method_pvalues(
    method: str,
    distribution: ArrayLike,
    estimate: ArrayLike,
    null: ArrayLike,
    *,
    alternative: str,
    jackknife: Callable[[], ArrayLike | JackknifeMoments] | None = None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
    owner: str = "pvalue_by_method",
    calibration: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> np.ndarray:
    """:func:`pvalue_by_method` for a caller that checked ``method`` (in
    lowercase) and ``alternative`` once at its own entry point
    (:meth:`skboot.BootstrapResult.pvalue`); ``null`` is checked here."""
    dist = np.asarray(distribution, dtype=np.float64)
    dist2 = dist.reshape(dist.shape[0], -1)
    est = np.atleast_1d(np.asarray(estimate, dtype=np.float64)).reshape(-1)
    k = dist2.shape[1]
    nulls = _check_null(null, k, owner)
    flat = np.flatnonzero(dist2.max(axis=0) == dist2.min(axis=0))
    if flat.size:
        warn(
            f"column(s) {flat.tolist()} of the distribution have zero spread (all "
            "replicates equal), so the interval is a single point and the p-value "
            "is 0 for any other null value.",
            DegenerateDistributionWarning,
        )
    extra = _method_inputs(method, dist2, est, jackknife, studentized, calibration)
    out = np.empty(k)
    for c in range(k):
        column = {
            key: (val[c] if isinstance(val, list) else val)
            for key, val in extra.items()
        }
        lo, hi = _tails(
            method, np.sort(dist2[:, c]), float(est[c]), float(nulls[c]), column
        )
        if alternative == "greater":
            out[c] = lo
        elif alternative == "less":
            out[c] = hi
        else:  # NaN (no interval) propagates
            out[c] = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    return out


def _check_null(null: Any, k: int, owner: str) -> np.ndarray:
    try:
        arr = np.asarray(null, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.asarray(np.nan)
    ok = arr.ndim == 0 or arr.shape == (k,)
    if not ok or not np.isfinite(arr).all():
        raise param_error(
            "null",
            owner,
            f"a finite number or an array of {k} finite numbers (one per column)",
            null,
        )
    return np.broadcast_to(arr, (k,))


def _method_inputs(
    method: str,
    dist: np.ndarray,
    est: np.ndarray,
    jackknife: Callable[[], ArrayLike | JackknifeMoments] | None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None,
    calibration: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> dict[str, Any]:
    """Per-column constants of the method, computed as the interval does."""
    k = dist.shape[1]
    if method in ("calibrated", "calibrated_basic"):
        if calibration is None:
            raise ValueError(f"The '{method}' p-value needs the calibration.")
        pair = calibration()
        props = pair[0] if method == "calibrated" else pair[1]
        props2 = np.asarray(props, dtype=np.float64).reshape(dist.shape[0], -1)
        return {"props": [np.sort(props2[:, c]) for c in range(k)]}
    if method == "normal":
        return {"se": list(np.std(dist, axis=0, ddof=1))}
    if method in ("bc", "bca"):
        z0 = np.atleast_1d(bias_correction(dist, est))
        a = np.zeros(k)
        if method == "bca":
            if jackknife is None:
                raise ValueError("The 'bca' p-value needs the jackknife values.")
            jk = jackknife()
            if not isinstance(jk, JackknifeMoments):
                jk = np.asarray(jk, dtype=np.float64).reshape(-1, k)
            a = np.atleast_1d(jackknife_acceleration(jk))
        return {"z0": list(z0), "a": list(a)}
    if method == "studentized":
        if studentized is None:
            raise ValueError("The 'studentized' p-value needs the standard errors.")
        se_hat, se_b = studentized()
        se_hat = np.atleast_1d(np.asarray(se_hat, dtype=np.float64))
        se_b = np.asarray(se_b, dtype=np.float64).reshape(dist.shape[0], -1)
        ts = []
        for c in range(k):
            ok = np.isfinite(se_b[:, c]) & (se_b[:, c] > 0)
            ts.append(np.sort((dist[ok, c] - est[c]) / se_b[ok, c]))
        return {"se": list(se_hat), "t": ts}
    return {}
