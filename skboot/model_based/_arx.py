"""AR with exogenous regressors (ARX) for the residual bootstrap (numpy only).

``y_t = c + phi_1 y_{t-1} + ... + phi_p y_{t-p} + beta' x_t + e_t`` is fitted by
ordinary least squares on the rows ``t = p, ..., n - 1`` with the design
``[1, y_{t-1}, ..., y_{t-p}, x_t']`` (the estimator of statsmodels'
``AutoReg(y, lags=p, exog=X, trend="c")``).  Order selection by AIC, BIC or HQIC
fits every order on the same rows ``t >= max_order``, with the criteria of
:mod:`skboot.model_based._ar` counting the ``k`` regressors among the parameters.

A replicate holds the regressors fixed: it starts from the observed
``y_0 .. y_{p-1}`` and runs the recursion with ``c + beta' x_t`` as the offset of
step ``t`` and resampled centred residuals (the ARMA kernel of
:mod:`skboot._kernels.model_arma` with no MA part and no differencing).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot._random import RootKey
from skboot._validation import as_float_array, value_error
from skboot.model_based._ar import (
    ARFit,
    _lagged,
    _penalty,
    check_order_range,
    check_stationary,
    default_max_order,
)
from skboot.model_based._arma_plan import ARMAResidualPlan
from skboot.model_based._base import resolve_burn_in

__all__ = ["arx_plan", "fit_arx", "select_arx_order"]


def _design(y: np.ndarray, Z: np.ndarray, p: int, start: int) -> np.ndarray:
    """Rows ``t = start .. n - 1``: ``[1, y_{t-1} .. y_{t-p}, x_t']``."""
    return np.column_stack([_lagged(y, p, start), Z[start:]])


def _ols(y: np.ndarray, Z: np.ndarray, p: int, start: int, owner: str) -> np.ndarray:
    D = _design(y, Z, p, start)
    beta, _, rank, _ = np.linalg.lstsq(D, y[start:], rcond=None)
    if rank < D.shape[1]:
        raise value_error(
            "X",
            owner,
            f"gives a rank-deficient ARX({p}) design (rank {rank} < {D.shape[1]} "
            "columns: the intercept, the lags of y and the regressors X): some "
            "regressors are constant, collinear with each other or with the lags. "
            "Drop them.",
        )
    return np.asarray(beta, dtype=np.float64)


def fit_arx(
    y: np.ndarray, Z: np.ndarray, p: int, owner: str
) -> tuple[ARFit, np.ndarray]:
    """The ARX(``p``) fit of ``y`` on its lags and ``Z`` (n, k), and ``beta``."""
    beta = _ols(y, Z, p, p, owner)
    e = y[p:] - _design(y, Z, p, p) @ beta
    fit = ARFit(
        order=p,
        intercept=float(beta[0]),
        coef=np.ascontiguousarray(beta[1 : p + 1]),
        residuals=np.ascontiguousarray(e),
        sigma2=float(e @ e / e.shape[0]),
        method="ols",
    )
    return fit, np.ascontiguousarray(beta[p + 1 :])


def select_arx_order(
    y: np.ndarray, Z: np.ndarray, lo: int, hi: int, criterion: str, owner: str
) -> tuple[int, np.ndarray]:
    """The order in ``[lo, hi]`` minimizing the criterion (every order fitted on
    the rows ``t >= hi``), and the values of orders ``0 .. hi``."""
    n, k = Z.shape
    n_eff = n - hi
    pen = _penalty(criterion, n_eff)
    crit = np.empty(hi + 1)
    for p in range(hi + 1):
        beta = _ols(y, Z, p, hi, owner)
        e = y[hi:] - _design(y, Z, p, hi) @ beta
        crit[p] = n_eff * math.log(max(e @ e / n_eff, 1e-300)) + pen * (p + 1 + k)
    return lo + int(np.argmin(crit[lo:])), crit


def _check_settings(resampler: Any) -> None:
    """An ARX model needs OLS and no burn-in (``"auto"`` resolves to 0 here)
    (and is not a sieve)."""
    owner = resampler._name
    if "fit_method" not in resampler._parameter_constraints:
        raise value_error(
            "y",
            owner,
            "must be None: the sieve is fitted by Yule-Walker, which has no "
            "exogenous regressors; use ResidualBootstrap(order=...) with y for an "
            "ARX model. Got an array instead.",
        )
    for name, bad, allowed in (
        ("burn_in", resolve_burn_in(resampler.burn_in, exog=True) != 0, "'auto' or 0"),
        ("fit_method", resampler.fit_method != "ols", "'ols'"),
    ):
        if bad:
            raise value_error(
                name,
                owner,
                f"must be {allowed} when y is given (an ARX model: the regressors X "
                "exist only at the observed times, so replicates start from the "
                "first p values of y, and the fit is OLS). Got "
                f"{getattr(resampler, name)!r} instead.",
            )


def _order(resampler: Any, y: np.ndarray, Z: np.ndarray) -> tuple[int, Any]:
    """The order given, or the one the criterion selects (and its values)."""
    n, k = Z.shape
    top = max(0, (n - 2 - k) // 2)
    p, lo, hi = check_order_range(
        resampler._name,
        resampler.order,
        resampler.min_order,
        resampler.max_order,
        top,
        min(default_max_order(n), top),
        f"(n - 2 - k) // 2 = {top} for {n} values and {k} regressors",
    )
    if p is not None:
        return p, None
    return select_arx_order(y, Z, lo, hi, str(resampler.order), resampler._name)


def arx_plan(
    resampler: Any, key: RootKey, n_samples: int, X: Any, y: Any, length: int
) -> ARMAResidualPlan:
    """The plan of ``ResidualBootstrap.fit(X, y)``: ``y`` the series, ``X`` the
    exogenous regressors (n,) or (n, k)."""
    owner = resampler._name
    _check_settings(resampler)
    series = as_float_array(y, "y", owner, ndim=(1,))
    if np.ptp(series) == 0.0:
        raise value_error(
            "y",
            owner,
            "must not be constant (an ARX model has no residual variance to "
            f"resample). Got a series equal to {series[0]!r} throughout.",
        )
    Z = as_float_array(X, "X", owner, ndim=(1, 2)).reshape(n_samples, -1)
    p, crit = _order(resampler, series, Z)
    fit, beta = fit_arx(series, Z, p, owner)
    check_stationary(fit, owner)
    resid = fit.residuals - fit.residuals.mean()
    if length > resid.shape[0]:
        raise value_error(
            "block_length",
            owner,
            f"must be at most the number of residuals n - p = {resid.shape[0]}. "
            f"Got {length} instead.",
        )
    return ARMAResidualPlan(
        key,
        n_samples,
        owner=owner,
        response=series,
        w0=np.ascontiguousarray(series[:p]),
        mu=np.ascontiguousarray(fit.intercept + Z @ beta),
        ar=fit.coef,
        ma=np.empty(0),
        delta=np.empty(0),
        y0=np.empty(0),
        level=np.zeros(n_samples),
        residuals=np.ascontiguousarray(resid),
        block_length=length,
        fit=(fit, beta, crit),
    )
