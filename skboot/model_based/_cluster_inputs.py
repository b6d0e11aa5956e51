"""The inputs of :func:`wild_cluster_bootstrap`, checked before any work: options,
design, response, clusters, restriction, and the inverse of the Gram matrix."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy.linalg import solve_triangular

from skboot._kernels.model_based import WEIGHT_CODES, dense_codes
from skboot._validation import (
    check_array_1d_labels,
    check_int,
    check_one_of,
    param_error,
)

__all__ = [
    "check_options",
    "cluster_codes",
    "design",
    "inverse_gram",
    "response",
    "restriction",
]

ALTERNATIVES = ("two-sided", "equal-tailed", "greater", "less")


def design(X: Any, fit_intercept: bool, owner: str) -> np.ndarray:
    raw = X.to_numpy() if hasattr(X, "to_numpy") else X
    try:
        Xf = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"The 'X' parameter of {owner} must be a numeric array of shape (n,) or "
            f"(n, n_features). Got {type(X).__name__} that is not numeric instead."
        ) from exc
    if Xf.ndim not in (1, 2):
        raise ValueError(
            f"The 'X' parameter of {owner} must be 1-D or 2-D. Got shape "
            f"{Xf.shape} instead."
        )
    Xf = Xf.reshape(Xf.shape[0], -1)
    if not np.all(np.isfinite(Xf)):
        raise ValueError(
            f"The 'X' parameter of {owner} must hold finite values. Got "
            f"{int((~np.isfinite(Xf)).sum())} NaN or infinite value(s) instead."
        )
    if fit_intercept:
        return np.column_stack([Xf, np.ones(Xf.shape[0])])
    return np.ascontiguousarray(Xf)


def cluster_codes(groups: Any, n: int, owner: str) -> tuple[np.ndarray, int]:
    """Cluster codes in sorted label order and their number; O(n) for integer
    labels of moderate range, else through ``np.unique``."""
    raw = groups.to_numpy() if hasattr(groups, "to_numpy") else groups
    arr = np.asarray(raw)
    if arr.ndim == 1 and arr.shape[0] == n > 0 and arr.dtype.kind in "iu":
        lo, hi = int(arr.min()), int(arr.max())
        if hi < 2**62 and lo > -(2**62) and hi - lo < 4 * n + 1024:
            codes, G = dense_codes(
                arr.astype(np.int64, copy=False), np.int64(lo), np.int64(hi - lo + 1)
            )
            return codes, int(G)
    codes = check_array_1d_labels(groups, "groups", owner, n)
    return codes, int(codes.max()) + 1


def inverse_gram(D: np.ndarray, fit_intercept: bool, owner: str) -> np.ndarray:
    """``(D'D)^-1`` from the column-equilibrated Gram matrix; designs whose scaled
    Gram matrix has a condition number above 1e8 go through a QR factor of ``D``
    instead (no squared condition number), and numerically singular ones are
    refused."""
    n, k = D.shape
    XtX = D.T @ D
    d = np.sqrt(np.diag(XtX))
    if np.all(d > 0):
        s = 1.0 / d
        M = XtX * s[:, None] * s[None, :]
        eig = np.linalg.eigvalsh(M)
        if eig[0] > 1e-8 * eig[-1]:
            return np.linalg.inv(M) * s[:, None] * s[None, :]
    Rf = np.linalg.qr(D, mode="r")
    diag = np.abs(np.diag(Rf))
    if diag.min() <= diag.max() * max(n, k) * np.finfo(float).eps:
        raise ValueError(
            f"The 'X' parameter of {owner} gives a singular design ({k} columns"
            + (" with the intercept" if fit_intercept else "")
            + f", numerical rank below {k}): some columns are collinear. Drop them."
        )
    Rinv = solve_triangular(Rf, np.eye(k))
    return Rinv @ Rinv.T


def restriction(coef: Any, d: int, k: int, owner: str) -> np.ndarray:
    a = np.zeros(k)
    if isinstance(coef, (numbers.Integral, np.integer)) and not isinstance(
        coef, (bool, np.bool_)
    ):
        j = check_int(coef, "coef", owner, min_value=0, max_value=d - 1)
        a[j] = 1.0
        return a
    try:
        R = np.asarray(coef, dtype=np.float64)
    except (TypeError, ValueError):
        R = np.empty(0)
    if R.ndim != 1 or R.shape[0] != d or not np.all(np.isfinite(R)) or not R.any():
        raise param_error(
            "coef",
            owner,
            f"a column index in [0, {d - 1}] or a non-zero 1-D array of {d} finite "
            "weights (a linear combination of the coefficients of X)",
            coef,
        )
    a[:d] = R
    return a


def check_options(
    impose_null: Any,
    fit_intercept: Any,
    confidence_interval: Any,
    weights: Any,
    alternative: Any,
    n_resamples: Any,
    level: Any,
    null: Any,
) -> int:
    """The options of :func:`wild_cluster_bootstrap`, checked before any work;
    returns ``n_resamples``."""
    owner = "wild_cluster_bootstrap"
    if not isinstance(impose_null, (bool, np.bool_)):
        raise param_error("impose_null", owner, "True or False", impose_null)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise param_error("fit_intercept", owner, "True or False", fit_intercept)
    if not isinstance(confidence_interval, (bool, np.bool_)):
        raise param_error(
            "confidence_interval", owner, "True or False", confidence_interval
        )
    check_one_of(weights, "weights", owner, tuple(WEIGHT_CODES))
    check_one_of(alternative, "alternative", owner, ALTERNATIVES)
    B = check_int(n_resamples, "n_resamples", owner, min_value=1, max_value=2**32 - 1)
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, (numbers.Real, np.floating))
        or not 0.0 < float(level) < 1.0
    ):
        raise param_error("level", owner, "a float in (0, 1)", level)
    if (
        isinstance(null, (bool, np.bool_))
        or not isinstance(null, (numbers.Real, np.floating, np.integer))
        or not math.isfinite(float(null))
    ):
        raise param_error("null", owner, "a finite float", null)
    return B


def response(y: Any, n: int, owner: str) -> np.ndarray:
    """``y`` as finite float64, one value per row of the design."""
    raw_y = y.to_numpy() if hasattr(y, "to_numpy") else y
    try:
        yf = np.asarray(raw_y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"The 'y' parameter of {owner} must be a numeric 1-D array. Got "
            f"{type(y).__name__} that is not numeric instead."
        ) from exc
    if yf.ndim != 1 or yf.shape[0] != n:
        raise ValueError(
            f"The 'y' parameter of {owner} must be 1-D with one value per row of X "
            f"({n}). Got shape {yf.shape} instead."
        )
    if not np.all(np.isfinite(yf)):
        raise ValueError(
            f"The 'y' parameter of {owner} must hold finite values. Got "
            f"{int((~np.isfinite(yf)).sum())} NaN or infinite value(s) instead."
        )
    return yf
