"""Autoregressive fits for the residual, sieve and wild bootstraps (numpy/scipy).

An AR(p) model ``x_t = c + phi_1 x_{t-1} + ... + phi_p x_{t-p} + e_t`` is fitted by

* ordinary least squares with an intercept on ``t = p, ..., n - 1`` (the
  conditional least-squares estimator; it can be non-stationary), or
* Yule-Walker: the autocovariances ``gamma_h = sum_t (x_t - xbar)(x_{t+h} - xbar)
  / n`` (the biased estimator, whose Toeplitz matrix is positive definite, so the
  fit is always stationary) solved by the Durbin-Levinson recursion, and
  ``c = xbar (1 - sum phi)``.

Residuals are ``e_t = x_t - c - sum_j phi_j x_{t-j}`` for ``t >= p`` (``m = n - p``
of them); the bootstraps resample them centred.

Order selection by AIC, BIC or HQIC over ``p = min_order, ..., max_order``: for OLS every order
is fitted on the same rows ``t >= max_order`` (so the criteria compare like with
like) and ``crit_p = n_eff log(sigma2_p) + pen (p + 1)``; for Yule-Walker
``sigma2_p`` is the Durbin-Levinson innovation variance and ``n_eff = n``.
``pen`` is 2 (AIC, Akaike 1974), ``log(n_eff)`` (BIC, Schwarz 1978) or
``2 log(log(n_eff))`` (HQIC, Hannan & Quinn 1979). The default
``max_order`` is ``min(floor(10 log10 n), (n - 2) // 2)``: the default of R's
``stats::ar`` (``order.max = 10 log10(n)``), capped so that the fit keeps more rows
than parameters.

References
----------
.. [1] H. Akaike, "A new look at the statistical model identification", IEEE
       Transactions on Automatic Control 19(6), 1974.
.. [2] G. Schwarz, "Estimating the dimension of a model", Annals of Statistics
       6(2), 1978.
.. [3] P. J. Brockwell and R. A. Davis, *Time Series: Theory and Methods*, 2nd
       ed., Springer, 1991, sections 5.1-5.2 and 8.1 (Yule-Walker,
       Durbin-Levinson).
.. [4] R Core Team, ``stats::ar`` documentation (``order.max`` default).
.. [5] E. J. Hannan and B. G. Quinn, "The determination of the order of an
       autoregression", Journal of the Royal Statistical Society B 41(2), 1979.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._validation import is_int, value_error

__all__ = [
    "ARFit",
    "check_order_range",
    "check_stationary",
    "default_max_order",
    "fit_ar",
    "select_order",
]

METHODS = ("ols", "yule_walker")
#: Series beyond these magnitudes overflow (or underflow) when squared.
_HUGE = math.sqrt(np.finfo(np.float64).max) / 4.0
_TINY = math.sqrt(np.finfo(np.float64).tiny) * 2.0**26
CRITERIA = ("aic", "bic", "hqic")


@dataclass(frozen=True)
class ARFit:
    """A fitted AR(p) model.

    Attributes
    ----------
    order : int
    intercept : float
        ``c`` in ``x_t = c + sum_j phi_j x_{t-j} + e_t``.
    coef : ndarray of shape (order,)
        ``phi_1, ..., phi_p``.
    residuals : ndarray of shape (n - order,)
        Raw residuals ``e_t``, ``t = order, ..., n - 1``.
    sigma2 : float
        Mean square of the residuals.
    method : str
    """

    order: int
    intercept: float
    coef: np.ndarray
    residuals: np.ndarray
    sigma2: float
    method: str


def max_allowed_order(n: int) -> int:
    """Largest AR order fitted on ``n`` values: ``(n - 2) // 2`` (OLS then has more
    rows than its ``order + 1`` parameters)."""
    return max(0, (n - 2) // 2)


def default_max_order(n: int) -> int:
    """``min(floor(10 log10 n), (n - 2) // 2)``, R's ``stats::ar`` default capped."""
    return int(min(math.floor(10.0 * math.log10(n)), max_allowed_order(n)))


def _lagged(x: np.ndarray, p: int, start: int) -> np.ndarray:
    """Design rows ``t = start, ..., n - 1``: ``[1, x_{t-1}, ..., x_{t-p}]``."""
    n = x.shape[0]
    cols = [np.ones(n - start)]
    cols += [x[start - j : n - j] for j in range(1, p + 1)]
    return np.column_stack(cols)


def _residuals(x: np.ndarray, c: float, phi: np.ndarray) -> np.ndarray:
    p = phi.shape[0]
    n = x.shape[0]
    e = x[p:] - c
    for j in range(1, p + 1):
        e = e - phi[j - 1] * x[p - j : n - j]
    return e


def _ols(x: np.ndarray, p: int, start: int, owner: str) -> tuple[float, np.ndarray]:
    D = _lagged(x, p, start)
    beta, _, rank, _ = np.linalg.lstsq(D, x[start:], rcond=None)
    if rank < D.shape[1]:
        raise value_error(
            "X",
            owner,
            f"gives a rank-deficient AR({p}) design "
            f"(rank {rank} < {D.shape[1]}): the series is constant or exactly "
            "periodic. Got a series whose lagged values are collinear.",
        )
    return float(beta[0]), np.asarray(beta[1:], dtype=np.float64)


def _autocov(x: np.ndarray, p: int) -> np.ndarray:
    n = x.shape[0]
    xc = x - x.mean()
    return np.array([xc[: n - h] @ xc[h:] / n for h in range(p + 1)])


def _levinson(gam: np.ndarray, p: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Durbin-Levinson: the Yule-Walker coefficients of orders 0..p and their
    innovation variances ``v_0..v_p``."""
    coefs = [np.empty(0)]
    v = np.empty(p + 1)
    v[0] = gam[0]
    phi = np.empty(0)
    for k in range(1, p + 1):
        kappa = (gam[k] - phi @ gam[k - 1 : 0 : -1]) / v[k - 1]
        phi = np.concatenate([phi - kappa * phi[::-1], [kappa]])
        v[k] = v[k - 1] * (1.0 - kappa * kappa)
        coefs.append(phi)
    return coefs, v


def _check_not_constant(x: np.ndarray, owner: str) -> None:
    if not np.all(np.isfinite(x)):
        bad = int((~np.isfinite(x)).sum())
        raise value_error(
            "X",
            owner,
            f"must hold finite values. Got {bad} NaN or infinite value(s) instead.",
        )
    spread = float(np.ptp(x))
    top = float(np.abs(x).max())
    if top > _HUGE / math.sqrt(x.shape[0]) or 0.0 < spread < _TINY:
        raise value_error(
            "X",
            owner,
            f"must have values whose squares and sums "
            "of squares are normal float64 numbers (the autocovariances and the "
            f"least-squares fit square them). Got values up to {top:.3g} with a "
            f"spread of {spread:.3g} instead; rescale the series.",
        )
    if spread == 0.0:
        raise value_error(
            "X",
            owner,
            f"must not be constant (an AR model has no "
            f"residual variance to resample). Got a series equal to {x[0]!r} "
            "throughout.",
        )


def fit_ar(x: np.ndarray, order: int, method: str, owner: str = "fit_ar") -> ARFit:
    """Fit AR(``order``) to the 1-D float series ``x`` by ``method``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    _check_not_constant(x, owner)
    p = int(order)
    if method == "ols":
        c, phi = _ols(x, p, p, owner)
    else:
        coefs, _ = _levinson(_autocov(x, p), p)
        phi = coefs[p]
        c = float(x.mean() * (1.0 - phi.sum()))
    e = _residuals(x, c, phi)
    return ARFit(
        order=p,
        intercept=c,
        coef=np.ascontiguousarray(phi, dtype=np.float64),
        residuals=np.ascontiguousarray(e),
        sigma2=float(e @ e / e.shape[0]),
        method=method,
    )


def _penalty(criterion: str, n_eff: int) -> float:
    """The per-parameter penalty: 2 (AIC), ``log n_eff`` (BIC) or
    ``2 log log n_eff`` (HQIC)."""
    if criterion == "aic":
        return 2.0
    if criterion == "bic":
        return math.log(n_eff)
    return 2.0 * math.log(math.log(n_eff))


def select_order(
    x: np.ndarray,
    max_order: int,
    criterion: str,
    method: str,
    owner: str,
    min_order: int = 0,
) -> tuple[int, np.ndarray]:
    """The order in ``[min_order, max_order]`` minimizing AIC, BIC or HQIC, and
    the criterion value of every order ``0 .. max_order``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    _check_not_constant(x, owner)
    n = x.shape[0]
    P = int(max_order)
    crit = np.empty(P + 1)
    if method == "ols":
        n_eff = n - P
        target = x[P:]
        pen = _penalty(criterion, n_eff)
        for p in range(P + 1):
            c, phi = _ols(x, p, P, owner)
            e = target - _lagged(x, p, P) @ np.concatenate([[c], phi])
            crit[p] = n_eff * math.log(max(e @ e / n_eff, 1e-300)) + pen * (p + 1)
    else:
        _, v = _levinson(_autocov(x, P), P)
        pen = _penalty(criterion, n)
        for p in range(P + 1):
            crit[p] = n * math.log(max(v[p], 1e-300)) + pen * (p + 1)
    lo = int(min_order)
    return lo + int(np.argmin(crit[lo:])), crit


def largest_root_modulus(phi: np.ndarray) -> float:
    """Largest eigenvalue modulus of the AR companion matrix (< 1 iff stationary:
    every root of ``1 - phi_1 z - ... - phi_p z^p`` lies outside the unit circle)."""
    p = phi.shape[0]
    if p == 0:
        return 0.0
    comp = np.zeros((p, p))
    comp[0] = phi
    if p > 1:
        comp[np.arange(1, p), np.arange(p - 1)] = 1.0
    return float(np.abs(np.linalg.eigvals(comp)).max())


def check_stationary(fit: ARFit, owner: str) -> None:
    """Refuse a fit whose AR polynomial has a root on or inside the unit circle."""
    rho = largest_root_modulus(fit.coef)
    if rho >= 1.0:
        raise value_error(
            "X",
            owner,
            f"gives a non-stationary AR({fit.order}) "
            f"fit by {fit.method!r}: the AR polynomial has a root on or inside the "
            f"unit circle (largest companion eigenvalue modulus {rho:.6g} >= 1), so "
            "the recursion that regenerates the series would explode. Difference "
            "the series first, or use fit_method='yule_walker' (always stationary). "
            f"Got coefficients {np.round(fit.coef, 6).tolist()}.",
        )


def check_order_range(
    owner: str,
    order: Any,
    min_order: Any,
    max_order: Any,
    top: int,
    default: int,
    limit: str,
) -> tuple[int | None, int, int]:
    """``(p, min_order, max_order)``: ``p`` the order given, or None when the
    criterion ``order`` chooses it in ``[min_order, max_order]`` (``max_order``
    None: ``default``); ``top`` is the largest order the data allow (``limit``
    says why, in words)."""
    lo = int(min_order)
    if is_int(order):
        p = int(order)
        if p > top:
            raise value_error(
                "order",
                owner,
                f"must be at most {limit} (more rows than parameters in the fit). "
                f"Got {p} instead.",
            )
        if lo != 0:
            raise value_error(
                "min_order",
                owner,
                "must be 0 when order is an int (min_order bounds the orders a "
                f"criterion chooses from). Got {lo} with order={p} instead.",
            )
        return p, p, p
    hi = default if max_order is None else int(max_order)
    if hi > top:
        raise value_error(
            "max_order", owner, f"must be at most {limit}. Got {hi} instead."
        )
    if lo > hi:
        raise value_error(
            "min_order",
            owner,
            f"must be at most max_order ({hi}"
            f"{' by default' if max_order is None else ''}). Got {lo} instead.",
        )
    return None, lo, hi
