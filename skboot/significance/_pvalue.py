"""Bootstrap p-values by inverting confidence intervals.

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

import warnings
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from skboot import intervals as iv
from skboot._exceptions import DegenerateDistributionWarning
from skboot._validation import check_int, check_one_of, param_error
from skboot.significance._common import ALTERNATIVES

__all__ = ["PVALUE_METHODS", "bootstrap_pvalue", "quantile_levels"]

PVALUE_METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
_OWNER = "bootstrap_pvalue"


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


def bootstrap_pvalue(
    result: Any,
    null: Any,
    *,
    alternative: str = "two-sided",
    method: str = "bca",
    standard_error: Any = None,
    n_inner: int | None = None,
    jackknife_groups: int | None = None,
) -> Any:
    """P-value of ``H0: theta = null`` from a bootstrap result, by inverting the
    confidence interval of ``method``.

    The p-value is the smallest ``alpha`` whose ``1 - alpha`` interval (method
    ``method``, same ``alternative``) excludes ``null``, so that ``p < alpha``
    exactly when ``result.confidence_interval(1 - alpha, method, alternative)``
    excludes ``null``.  The closed forms per method are in
    :mod:`skboot.significance._pvalue`.  The inputs that BCa and studentized
    need (jackknife, standard errors) are computed as
    :meth:`skboot.BootstrapResult.confidence_interval` computes them.

    Parameters
    ----------
    result : BootstrapResult
        A bootstrap run (:func:`skboot.bootstrap`).
    null : float, array-like of shape (k,) or pandas Series
        The value of the parameter under the null hypothesis (one per column of
        a vector statistic, or one for all).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        "greater": ``H1: theta > null`` (the interval ``(low, inf)``); "less":
        ``H1: theta < null``.
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized"}, default="bca"
    standard_error, n_inner, jackknife_groups
        As in :meth:`~skboot.BootstrapResult.confidence_interval`.

    Returns
    -------
    float, ndarray or pandas Series
        One p-value per column of the statistic (NaN where the interval is
        undefined, e.g. BCa when the estimate lies outside the replicates).

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
       Bootstrap*, ch. 15-16. Chapman & Hall/CRC.
    .. [2] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and
       their Application*, sections 4.4 and 5.3. Cambridge University Press.
    .. [3] Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap
       hypothesis testing. *Biometrics* 47(2), 757-762.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> from skboot.significance import bootstrap_pvalue
    >>> x = np.random.default_rng(0).normal(0.3, 1.0, size=50)
    >>> res = bootstrap(x, "mean", n_resamples=1999, random_state=0)
    >>> p = bootstrap_pvalue(res, 0.2, method="percentile")
    >>> round(p, 4)
    0.0678
    >>> ci = res.confidence_interval(1 - 0.1, method="percentile")
    >>> bool(p < 0.1) == bool(not ci.low <= 0.2 <= ci.high)
    True
    """
    check_one_of(method, "method", _OWNER, PVALUE_METHODS)
    check_one_of(alternative, "alternative", _OWNER, ALTERNATIVES)
    if jackknife_groups is not None:
        check_int(jackknife_groups, "jackknife_groups", _OWNER, min_value=2)
    if getattr(result, "n_undefined", 0):
        raise ValueError(
            f"The bootstrap distribution has {result.n_undefined} undefined "
            "(non-finite) replicate(s); no p-value is computed from it."
        )
    est = np.atleast_1d(np.asarray(result.estimate, dtype=np.float64))
    dist = np.asarray(result.distribution, dtype=np.float64)
    dist2 = dist.reshape(dist.shape[0], -1)
    k = dist2.shape[1]
    nulls = _check_null(null, k)
    flat = np.flatnonzero(dist2.max(axis=0) == dist2.min(axis=0))
    if flat.size:
        warnings.warn(
            f"{_OWNER}: column(s) {flat.tolist()} of the distribution have zero "
            "spread (all replicates equal), so the interval is a single point and "
            "the p-value is 0 for any other null value.",
            DegenerateDistributionWarning,
            stacklevel=3,
        )
    extra = _method_inputs(
        result, method, dist2, est, standard_error, n_inner, jackknife_groups
    )
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
    if dist.ndim == 1:
        return float(out[0])
    index = getattr(result.estimate, "index", None)
    if index is not None:
        import pandas as pd

        return pd.Series(out, index=index)
    return out


def _check_null(null: Any, k: int) -> np.ndarray:
    try:
        arr = np.asarray(null, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.asarray(np.nan)
    ok = arr.ndim == 0 or arr.shape == (k,)
    if not ok or not np.isfinite(arr).all():
        raise param_error(
            "null",
            _OWNER,
            f"a finite number or an array of {k} finite numbers (one per column)",
            null,
        )
    return np.broadcast_to(arr, (k,))


def _method_inputs(
    result: Any,
    method: str,
    dist: np.ndarray,
    est: np.ndarray,
    standard_error: Any,
    n_inner: int | None,
    groups: int | None,
) -> dict[str, Any]:
    """Per-column constants of the method, computed as the interval does."""
    k = dist.shape[1]
    if method == "normal":
        return {"se": list(np.std(dist, axis=0, ddof=1))}
    if method in ("bc", "bca"):
        z0 = np.atleast_1d(iv.bias_correction(dist, est))
        a = np.zeros(k)
        if method == "bca":
            a = np.atleast_1d(iv.jackknife_acceleration(_jackknife(result, groups)))
        return {"z0": list(z0), "a": list(a)}
    if method == "studentized":
        se_hat, se_b = _studentized(result, standard_error, n_inner)
        se_hat = np.atleast_1d(np.asarray(se_hat, dtype=np.float64))
        se_b = np.asarray(se_b, dtype=np.float64).reshape(dist.shape[0], -1)
        ts = []
        for c in range(k):
            ok = np.isfinite(se_b[:, c]) & (se_b[:, c] > 0)
            ts.append(np.sort((dist[ok, c] - est[c]) / se_b[ok, c]))
        return {"se": list(se_hat), "t": ts}
    return {}


def _studentized(
    result: Any, standard_error: Any, n_inner: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The standard errors the studentized interval of ``result`` uses."""
    from skboot._run import studentized_inputs

    ctx = result._context
    if ctx is None:
        raise ValueError(
            "The studentized p-value needs the data and the statistic, which this "
            "result does not carry (an unpickled or loaded result); re-run "
            "bootstrap(..., random_state=result.random_state)."
        )
    return studentized_inputs(ctx, standard_error, n_inner)


def _jackknife(result: Any, groups: int | None) -> np.ndarray:
    """The jackknife values the BCa interval of ``result`` uses (stratified
    samples rescaled as in :meth:`BootstrapResult.confidence_interval`)."""
    from skboot._run import stratified_jackknife

    jk = np.asarray(result.jackknife_values(groups), dtype=np.float64)
    ctx = result._context
    strata = None if ctx is None else ctx.plan.strata_codes
    if strata is not None and groups is None:
        jk = stratified_jackknife(jk, strata)
    return jk
