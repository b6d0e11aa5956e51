"""The (seasonal) ARIMA fit behind :class:`ARIMAResidualBootstrap` (numpy/scipy;
statsmodels only when a fit is asked for).

statsmodels' ``ARIMA`` is a regression with (S)ARIMA errors,
``y_t = r_t + eta_t`` with ``r_t = x_t' beta`` (trend columns, then any
exogenous regressors) and

    ``phi(L) Phi(L^s) (1 - L)^d (1 - L^s)^D eta_t = theta(L) Theta(L^s) e_t``.

The bootstrap reads the fitted parameters and works on three scales:

* ``eta = y - r`` (the level ``r`` is held fixed and added back to every
  replicate);
* ``w_t = eta_{t+K} - sum_k delta_k eta_{t+K-k}``, the differenced series, with
  ``1 - sum_k delta_k L^k = (1 - L)^d (1 - L^s)^D`` (``K = d + s D``);
* the ARMA recursion of ``w`` with the expanded polynomials ``1 - sum_i a_i L^i
  = phi(L) Phi(L^s)`` (statsmodels' ``polynomial_reduced_ar``) and
  ``1 + sum_l m_l L^l = theta(L) Theta(L^s)`` (``polynomial_reduced_ma``).

The residuals are the conditional ones (conditional sum of squares, Box & Jenkins
1976, sec. 7.1): ``e_t = w_t - sum a_i w_{t-i} - sum m_l e_{t-l}`` for
``t >= k0 = P`` (the AR lag length), with ``e_t = 0`` before.  They equal
statsmodels' Kalman-filter residuals exactly for a pure AR once the start-up is
past, and up to a term that decays like the MA roots otherwise; with them the
recursion of :mod:`skboot._kernels.model_arma` reproduces the series.

References
----------
.. [1] G. E. P. Box and G. M. Jenkins, *Time Series Analysis: Forecasting and
       Control*, revised ed., Holden-Day, 1976.
.. [2] P. J. Brockwell and R. A. Davis, *Time Series: Theory and Methods*, 2nd
       ed., Springer, 1991, sections 3.1 and 9.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.signal import lfilter, lfiltic

from skboot._validation import value_error
from skboot.model_based._ar import largest_root_modulus

__all__ = [
    "ARMAFit",
    "arima_fit",
    "conditional_residuals",
    "difference",
    "differencing",
    "fit_statsmodels_arima",
    "is_arima_results",
]

INSTALL = 'pip install "skboot[statsmodels]"'


@dataclass(frozen=True)
class ARMAFit:
    """A fitted (seasonal) ARIMA on the three scales of the module docstring.

    Attributes
    ----------
    ar, ma : ndarray
        Expanded coefficients ``a_1 .. a_P`` and ``m_1 .. m_Q``.
    delta : ndarray of shape (K,)
        The differencing coefficients.
    level : ndarray of shape (n,)
        ``r_t``, held fixed.
    y0 : ndarray of shape (K,)
        ``eta_0 .. eta_{K-1}``, the start of the integration.
    w : ndarray of shape (n - K,)
        The differenced series.
    residuals : ndarray of shape (n - K - P,)
        The raw conditional residuals ``e_P .. e_{n-K-1}``.
    series : ndarray of shape (n,)
    order, seasonal_order, trend, params, param_names
        As in statsmodels.
    """

    ar: np.ndarray
    ma: np.ndarray
    delta: np.ndarray
    level: np.ndarray
    y0: np.ndarray
    w: np.ndarray
    residuals: np.ndarray
    series: np.ndarray
    order: tuple[int, int, int]
    seasonal_order: tuple[int, int, int, int]
    trend: Any
    params: np.ndarray
    param_names: list[str]


def differencing(d: int, D: int, s: int) -> np.ndarray:
    """``delta`` with ``1 - sum_k delta_k L^k = (1 - L)^d (1 - L^s)^D``."""
    poly = np.ones(1)
    for _ in range(d):
        poly = np.convolve(poly, [1.0, -1.0])
    for _ in range(D):
        seasonal = np.zeros(s + 1)
        seasonal[0], seasonal[s] = 1.0, -1.0
        poly = np.convolve(poly, seasonal)
    return np.ascontiguousarray(-poly[1:])


def difference(eta: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """``w_t = eta_{t+K} - sum_k delta_k eta_{t+K-k}``, ``t = 0 .. n - K - 1``."""
    K = delta.shape[0]
    n = eta.shape[0]
    w = eta[K:].copy()
    for k in range(1, K + 1):
        if delta[k - 1] != 0.0:
            w -= delta[k - 1] * eta[K - k : n - k]
    return w


def conditional_residuals(w: np.ndarray, ar: np.ndarray, ma: np.ndarray) -> np.ndarray:
    """``e_t = w_t - sum a_i w_{t-i} - sum m_l e_{t-l}`` for ``t >= P`` with
    ``e_t = 0`` for ``t < P`` (``P = len(ar)``)."""
    P = ar.shape[0]
    num = np.concatenate([[1.0], -ar])
    den = np.concatenate([[1.0], ma])
    zi = lfiltic(num, den, np.zeros(0), w[:P][::-1])
    return np.ascontiguousarray(lfilter(num, den, w[P:], zi=zi)[0])


def is_arima_results(obj: Any) -> bool:
    """Whether ``obj`` looks like fitted statsmodels ARIMA results (never imports
    statsmodels)."""
    model = getattr(obj, "model", None)
    if model is None or not hasattr(obj, "params"):
        return False
    return type(model).__module__.startswith("statsmodels.tsa.arima.model")


def fit_statsmodels_arima(
    y: np.ndarray,
    exog: np.ndarray | None,
    order: tuple[int, int, int],
    seasonal_order: tuple[int, int, int, int],
    trend: Any,
    owner: str,
) -> Any:
    """statsmodels' ``ARIMA(y, exog, order, seasonal_order, trend).fit()``; a clear
    ImportError naming the extra when statsmodels is missing."""
    try:
        from statsmodels.tsa.arima.model import ARIMA
    except ImportError as exc:
        raise ImportError(
            f"{owner} fits the ARIMA model with statsmodels, which is not installed: "
            f"{INSTALL} (or pass the results of a statsmodels ARIMA fit as X)."
        ) from exc
    model = ARIMA(y, exog=exog, order=order, seasonal_order=seasonal_order, trend=trend)
    return model.fit()


def _check_roots(fit: ARMAFit, owner: str) -> None:
    """Refuse a non-stationary AR or non-invertible MA polynomial."""
    for poly, what, why in (
        (
            fit.ar,
            "stationary",
            "the recursion that regenerates the series would explode",
        ),
        (
            -fit.ma,
            "invertible",
            "the residuals would not be the innovations (they grow without bound)",
        ),
    ):
        rho = largest_root_modulus(poly)
        if rho >= 1.0:
            kind = "AR" if what == "stationary" else "MA"
            raise value_error(
                "X",
                owner,
                f"gives a non-{what} ARIMA fit: its {kind} polynomial has a root on "
                f"or inside the unit circle (largest companion eigenvalue modulus "
                f"{rho:.6g} >= 1), so {why}. Fit with statsmodels' "
                "enforce_stationarity=True and enforce_invertibility=True (its "
                "defaults), or change the differencing orders. Got parameters "
                f"{dict(zip(fit.param_names, np.round(fit.params, 6).tolist(), strict=True))}.",
            )


def arima_fit(results: Any, owner: str) -> ARMAFit:
    """Read fitted statsmodels ARIMA results onto the bootstrap's scales, check
    the roots, and compute the conditional residuals."""
    model = results.model
    if getattr(model, "simple_differencing", False):
        raise value_error(
            "X",
            owner,
            "must be fitted with simple_differencing=False (the bootstrap "
            "integrates the differenced replicates back from the observed start "
            "values). Got results of a model with simple_differencing=True.",
        )
    y = np.ascontiguousarray(np.asarray(model.endog, dtype=np.float64).reshape(-1))
    params = np.asarray(results.params, dtype=np.float64)
    n = y.shape[0]
    level = np.zeros(n)
    if model.exog is not None:
        exog = np.asarray(model.exog, dtype=np.float64).reshape(n, -1)
        level = np.ascontiguousarray(exog @ params[: exog.shape[1]])
    p, d, q = (int(v) for v in model.order)
    P, D, Q, s = (int(v) for v in model.seasonal_order)
    delta = differencing(d, D, s)
    ar = np.ascontiguousarray(-np.asarray(results.polynomial_reduced_ar, float)[1:])
    ma = np.ascontiguousarray(np.asarray(results.polynomial_reduced_ma, float)[1:])
    eta = y - level
    w = difference(eta, delta)
    n_resid = w.shape[0] - ar.shape[0]
    if n_resid < 2:
        raise value_error(
            "X",
            owner,
            f"must be longer than the model's lags: {n} values leave "
            f"{max(n_resid, 0)} residual(s) after {delta.shape[0]} differencing and "
            f"{ar.shape[0]} AR lags (at least 2 are needed). Got {n} values.",
        )
    fit = ARMAFit(
        ar=ar,
        ma=ma,
        delta=delta,
        level=level,
        y0=np.ascontiguousarray(eta[: delta.shape[0]]),
        w=np.ascontiguousarray(w),
        residuals=np.empty(0),
        series=y,
        order=(p, d, q),
        seasonal_order=(P, D, Q, s),
        trend=getattr(model, "trend", None),
        params=params,
        param_names=list(results.param_names),
    )
    _check_roots(fit, owner)
    e = conditional_residuals(fit.w, ar, ma)
    if not np.all(np.isfinite(e)):
        raise value_error(
            "X",
            owner,
            "gives residuals that are not finite (the fitted parameters or the "
            "series hold NaN or infinite values). Got a fit with parameters "
            f"{np.round(params, 6).tolist()}.",
        )
    return ARMAFit(**{**fit.__dict__, "residuals": e})
