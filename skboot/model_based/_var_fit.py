"""Vector autoregressions for the VAR residual bootstrap (numpy only).

A VAR(p) model of ``m`` series, ``y_t = c + A_1 y_{t-1} + ... + A_p y_{t-p} + u_t``
(``y_t``, ``c``, ``u_t`` of length ``m``; ``A_j`` of shape ``(m, m)``), is fitted by
ordinary least squares, equation by equation, on the rows ``t = p, ..., n - 1``
with the design ``[1, y_{t-1}', ..., y_{t-p}']`` (Lütkepohl 2005, sec. 3.2; the
estimator of statsmodels' ``VAR(...).fit(p, trend="c")``).

Order selection over ``p = min_order, ..., max_order`` fits every order on the same
rows ``t >= max_order`` (``T = n - max_order`` of them) and minimizes
(Lütkepohl 2005, sec. 4.3)

* AIC: ``log det Sigma_p + 2 k / T``,
* BIC: ``log det Sigma_p + log(T) k / T``,
* HQIC: ``log det Sigma_p + 2 log(log T) k / T``,

with ``Sigma_p = U'U / T`` the maximum-likelihood residual covariance and
``k = p m^2 + m`` the free parameters: the values statsmodels'
``VAR.select_order`` reports.  The default ``max_order`` is statsmodels' (Schwert's
rule ``round(12 (n / 100)^(1/4))``), capped so that the largest fit keeps more rows
than parameters per equation.

A fit is stable when every eigenvalue of its companion matrix has modulus below 1
(Lütkepohl 2005, sec. 2.1.1); only a stable fit can regenerate a series.

References
----------
.. [1] H. Lütkepohl, *New Introduction to Multiple Time Series Analysis*,
       Springer, 2005.
.. [2] G. W. Schwert, "Tests for unit roots: a Monte Carlo investigation",
       Journal of Business & Economic Statistics 7(2), 1989.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from skboot._validation import value_error

__all__ = [
    "VARFit",
    "check_var_data",
    "check_var_stable",
    "companion_modulus",
    "default_var_max_order",
    "fit_var",
    "max_var_order",
    "select_var_order",
]

#: Values beyond this magnitude overflow when squared and summed.
_HUGE = math.sqrt(np.finfo(np.float64).max) / 4.0


@dataclass(frozen=True)
class VARFit:
    """A fitted VAR(p) model.

    Attributes
    ----------
    order : int
    intercept : ndarray of shape (m,)
    coef : ndarray of shape (order, m, m)
        ``coef[j]`` is ``A_{j+1}``: ``coef[j][i, k]`` multiplies ``y_{t-j-1, k}`` in
        equation ``i`` (statsmodels' ``coefs``).
    residuals : ndarray of shape (n - order, m)
    sigma_u : ndarray of shape (m, m)
        Residual covariance ``U'U / (n - order - (m order + 1))`` (statsmodels'
        ``sigma_u``).
    """

    order: int
    intercept: np.ndarray
    coef: np.ndarray
    residuals: np.ndarray
    sigma_u: np.ndarray


def max_var_order(n: int, m: int) -> int:
    """Largest order fitted on ``n`` rows of ``m`` series: each equation keeps
    more rows (``n - p``) than parameters (``m p + 1``)."""
    return max(0, (n - 2) // (m + 1))


def default_var_max_order(n: int, m: int) -> int:
    """statsmodels' default: ``round(12 (n / 100)^(1/4))``, capped."""
    return int(min(round(12.0 * (n / 100.0) ** 0.25), max_var_order(n, m)))


def check_var_data(x: np.ndarray, owner: str, name: str = "X") -> None:
    """Refuse non-finite values, values whose squares overflow, and constant
    series (before any fit); ``name`` is the parameter that holds ``x``."""
    if not np.all(np.isfinite(x)):
        bad = int((~np.isfinite(x)).sum())
        raise value_error(
            name,
            owner,
            f"must hold finite values. Got {bad} NaN or infinite value(s) instead.",
        )
    top = float(np.abs(x).max())
    if top > _HUGE / math.sqrt(x.shape[0]):
        raise value_error(
            name,
            owner,
            "must have values whose squares and sums of squares are finite "
            f"float64 numbers (the least-squares fit squares them). Got values up "
            f"to {top:.3g} instead; rescale the series.",
        )
    flat = np.flatnonzero(np.ptp(x, axis=0) == 0.0)
    if flat.shape[0]:
        raise value_error(
            name,
            owner,
            "must not have a constant column (a VAR has no residual variance to "
            f"resample in it). Got constant column(s) {flat.tolist()}.",
        )


def _design(x: np.ndarray, p: int, start: int) -> np.ndarray:
    """Rows ``t = start, ..., n - 1`` of ``[1, y_{t-1}', ..., y_{t-p}']``."""
    n = x.shape[0]
    cols = [np.ones((n - start, 1))]
    cols += [x[start - j : n - j] for j in range(1, p + 1)]
    return np.hstack(cols)


def _ols(x: np.ndarray, p: int, start: int, owner: str) -> np.ndarray:
    """The OLS coefficients ``(1 + m p, m)`` of VAR(p) on rows ``t >= start``."""
    Z = _design(x, p, start)
    beta, _, rank, _ = np.linalg.lstsq(Z, x[start:], rcond=None)
    if rank < Z.shape[1]:
        raise value_error(
            "X",
            owner,
            f"gives a rank-deficient VAR({p}) design (rank {rank} < {Z.shape[1]}): "
            "some series are exact linear combinations of others or of their "
            "lags. Got collinear series.",
        )
    return np.asarray(beta)


def _unpack(beta: np.ndarray, p: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    intercept = np.ascontiguousarray(beta[0])
    coef = np.ascontiguousarray(beta[1:].reshape(p, m, m).transpose(0, 2, 1))
    return intercept, coef


def fit_var(x: np.ndarray, order: int, owner: str = "fit_var") -> VARFit:
    """Fit VAR(``order``) with an intercept to ``x`` (n, m) by OLS."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    check_var_data(x, owner)
    p = int(order)
    n, m = x.shape
    beta = _ols(x, p, p, owner)
    resid = x[p:] - _design(x, p, p) @ beta
    intercept, coef = _unpack(beta, p, m)
    df = n - p - (m * p + 1)
    return VARFit(
        order=p,
        intercept=intercept,
        coef=coef,
        residuals=np.ascontiguousarray(resid),
        sigma_u=resid.T @ resid / df,
    )


def select_var_order(
    x: np.ndarray, min_order: int, max_order: int, criterion: str, owner: str
) -> tuple[int, np.ndarray]:
    """The order in ``[min_order, max_order]`` minimizing ``criterion``, and the
    criterion values of every order ``0 .. max_order``."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    check_var_data(x, owner)
    n, m = x.shape
    P = int(max_order)
    T = n - P
    pen = {"aic": 2.0, "bic": math.log(T), "hqic": 2.0 * math.log(math.log(T))}
    crit = np.empty(P + 1)
    for p in range(P + 1):
        beta = _ols(x, p, P, owner)
        resid = x[P:] - _design(x, p, P) @ beta
        sign, logdet = np.linalg.slogdet(resid.T @ resid / T)
        if sign <= 0:
            logdet = -math.inf
        crit[p] = logdet + pen[criterion] * (p * m * m + m) / T
    lo = int(min_order)
    return lo + int(np.argmin(crit[lo:])), crit


def companion_modulus(coef: np.ndarray) -> float:
    """Largest eigenvalue modulus of the VAR companion matrix (< 1: stable)."""
    p, m, _ = coef.shape
    if p == 0:
        return 0.0
    comp = np.zeros((m * p, m * p))
    comp[:m] = np.hstack(list(coef))
    comp[m:, : m * (p - 1)] = np.eye(m * (p - 1))
    return float(np.abs(np.linalg.eigvals(comp)).max())


def check_var_stable(fit: VARFit, owner: str) -> None:
    """Refuse a fit whose companion matrix has an eigenvalue on or outside the
    unit circle."""
    rho = companion_modulus(fit.coef)
    if rho >= 1.0:
        raise value_error(
            "X",
            owner,
            f"gives an unstable VAR({fit.order}) fit: its companion matrix has an "
            f"eigenvalue of modulus {rho:.6g} >= 1, so the recursion that "
            "regenerates the series would explode. Difference the series (or "
            "model the cointegration) first. Got a fit with a unit or explosive "
            "root.",
        )
