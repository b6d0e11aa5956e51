"""VAR with exogenous regressors (VARX) for the VAR residual bootstrap (numpy only).

``y_t = c + A_1 y_{t-1} + ... + A_p y_{t-p} + B x_t + u_t`` (``y_t`` of length
``m``, ``x_t`` of length ``k``, ``B`` of shape ``(m, k)``) is fitted by ordinary
least squares, equation by equation, on the rows ``t = p, ..., n - 1`` with the
design ``[1, x_t', y_{t-1}', ..., y_{t-p}']``: the estimator of statsmodels'
``VAR(y, exog=X).fit(p, trend="c")`` (same parameters, same residuals).  Order
selection fits every order on the rows ``t >= max_order`` (``T`` of them) and
minimizes the criteria of :mod:`skboot.model_based._var_fit` with
``p m^2 + m (1 + k)`` free parameters (statsmodels' ``VAR.select_order`` with
``exog``).

A replicate holds the regressors fixed: it starts from the observed
``y_0 .. y_{p-1}`` (no burn-in: ``x_t`` exists only at the observed times) and
runs the recursion with ``mu_t = c + B x_t`` as the offset of step ``t``
(:func:`skboot._kernels.model_var.varx_residual_chunk`).

References
----------
.. [1] H. Lütkepohl, *New Introduction to Multiple Time Series Analysis*,
       Springer, 2005, chapter 10 (models with exogenous variables).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot._random import RootKey
from skboot._validation import as_float_array, value_error
from skboot.model_based._base import resolve_burn_in
from skboot.model_based._residual import check_order_range
from skboot.model_based._var_fit import (
    VARFit,
    check_var_data,
    check_var_stable,
    default_var_max_order,
)
from skboot.model_based._var_plan import VARXResidualPlan

__all__ = ["fit_varx", "select_varx_order", "varx_plan"]


def _design(y: np.ndarray, Z: np.ndarray, p: int, start: int) -> np.ndarray:
    """Rows ``t = start .. n - 1`` of ``[1, x_t', y_{t-1}', ..., y_{t-p}']``
    (statsmodels' column order)."""
    n = y.shape[0]
    cols = [np.ones((n - start, 1)), Z[start:]]
    cols += [y[start - j : n - j] for j in range(1, p + 1)]
    return np.hstack(cols)


def _ols(y: np.ndarray, Z: np.ndarray, p: int, start: int, owner: str) -> np.ndarray:
    """The OLS coefficients ``(1 + k + m p, m)`` of VARX(p) on rows ``t >= start``."""
    D = _design(y, Z, p, start)
    beta, _, rank, _ = np.linalg.lstsq(D, y[start:], rcond=None)
    if rank < D.shape[1]:
        raise value_error(
            "X",
            owner,
            f"gives a rank-deficient VARX({p}) design (rank {rank} < {D.shape[1]} "
            "columns: the intercept, the regressors X and the lags of y): some "
            "regressors are constant, collinear with each other or with the lags. "
            "Drop them.",
        )
    return np.asarray(beta)


def fit_varx(
    y: np.ndarray, Z: np.ndarray, p: int, owner: str = "fit_varx"
) -> tuple[VARFit, np.ndarray]:
    """The VARX(``p``) fit of ``y`` (n, m) on its lags and ``Z`` (n, k), and
    ``B`` (m, k)."""
    n, m = y.shape
    k = Z.shape[1]
    beta = _ols(y, Z, p, p, owner)
    resid = y[p:] - _design(y, Z, p, p) @ beta
    coef = beta[1 + k :].reshape(p, m, m).transpose(0, 2, 1)
    fit = VARFit(
        order=p,
        intercept=np.ascontiguousarray(beta[0]),
        coef=np.ascontiguousarray(coef),
        residuals=np.ascontiguousarray(resid),
        sigma_u=resid.T @ resid / (n - p - (m * p + 1 + k)),
    )
    return fit, np.ascontiguousarray(beta[1 : 1 + k].T)


def select_varx_order(
    y: np.ndarray, Z: np.ndarray, lo: int, hi: int, criterion: str, owner: str
) -> tuple[int, np.ndarray]:
    """The order in ``[lo, hi]`` minimizing ``criterion`` (every order fitted on
    the rows ``t >= hi``), and the values of orders ``0 .. hi``."""
    n, m = y.shape
    k = Z.shape[1]
    T = n - hi
    pen = {"aic": 2.0, "bic": math.log(T), "hqic": 2.0 * math.log(math.log(T))}
    crit = np.empty(hi + 1)
    for p in range(hi + 1):
        resid = y[hi:] - _design(y, Z, p, hi) @ _ols(y, Z, p, hi, owner)
        sign, logdet = np.linalg.slogdet(resid.T @ resid / T)
        crit[p] = (logdet if sign > 0 else -math.inf) + pen[criterion] * (
            p * m * m + m * (1 + k)
        ) / T
    return lo + int(np.argmin(crit[lo:])), crit


def _check_burn_in(resampler: Any) -> None:
    if resolve_burn_in(resampler.burn_in, exog=True) != 0:
        raise value_error(
            "burn_in",
            resampler._name,
            "must be 'auto' or 0 when y is given (a VARX model: the regressors X "
            "exist only at the observed times, so replicates start from the first "
            f"p rows of y). Got {resampler.burn_in!r} instead.",
        )


def _order(resampler: Any, y: np.ndarray, Z: np.ndarray) -> tuple[int, Any]:
    """The order given, or the one the criterion selects (and its values)."""
    n, m = y.shape
    k = Z.shape[1]
    top = max(0, (n - 2 - k) // (m + 1))
    p, lo, hi = check_order_range(
        resampler._name,
        resampler.order,
        resampler.min_order,
        resampler.max_order,
        top,
        min(default_var_max_order(n, m), top),
        f"(n - 2 - k) // (m + 1) = {top} for {n} rows of {m} series and {k} regressors",
    )
    if p is not None:
        return p, None
    return select_varx_order(y, Z, lo, hi, str(resampler.order), resampler._name)


def varx_plan(
    resampler: Any, key: RootKey, n_samples: int, X: Any, y: Any, length: int
) -> VARXResidualPlan:
    """The plan of ``VARResidualBootstrap.fit(X, y)``: ``y`` (n, m) the series,
    ``X`` (n,) or (n, k) the exogenous regressors."""
    owner = resampler._name
    _check_burn_in(resampler)
    series = as_float_array(y, "y", owner, ndim=(2,))
    if series.shape[1] < 2:
        raise value_error(
            "y",
            owner,
            "must have at least 2 columns (one per series of the VAR; a single "
            "series with regressors is an ARX model: use ResidualBootstrap). Got "
            f"shape {series.shape} instead.",
        )
    check_var_data(series, owner, "y")
    Z = as_float_array(X, "X", owner, ndim=(1, 2)).reshape(n_samples, -1)
    p, crit = _order(resampler, series, Z)
    fit, B = fit_varx(series, Z, p, owner)
    check_var_stable(fit, owner)
    resid = fit.residuals - fit.residuals.mean(axis=0)
    if length > resid.shape[0]:
        raise value_error(
            "block_length",
            owner,
            f"must be at most the number of residual rows n - p = "
            f"{resid.shape[0]}. Got {length} instead.",
        )
    return VARXResidualPlan(
        key,
        n_samples,
        owner=owner,
        response=series,
        sample_shape=(series.shape[1],),
        series=series,
        coef=fit.coef,
        residuals=np.ascontiguousarray(resid),
        burn_in=0,
        block_length=length,
        criterion_values=crit,
        var_intercept=fit.intercept,
        sigma_u=fit.sigma_u,
        mu=np.ascontiguousarray(fit.intercept + Z @ B.T),
        exog_coef=B,
    )
