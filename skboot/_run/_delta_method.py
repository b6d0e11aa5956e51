"""Delta-method standard errors of the smooth built-in statistics, from power sums.

The studentized (bootstrap-t) interval needs a standard error on the original data
and on every replicate.  For the built-in "sum", "var", "std" and "corr" it is the
nonparametric delta method (the infinitesimal jackknife; Efron & Tibshirani 1993,
section 21.3): with ``L_i`` the empirical influence value of observation ``i`` and
``w_i`` its weight in the replicate (its count, or the Bayesian bootstrap's
continuous weight), ``W = sum_i w_i``,

    se = sqrt( sum_i w_i (L_i - mean_w(L))**2 / (W - 1) / W ),

the plug-in standard error of the replicate's weighted empirical distribution.  For
the mean this is ``std(x, ddof=1) / sqrt(n)``, the closed form the library uses for
"mean" and "proportion".  The influence values (Hampel 1974), with ``d_i = x_i -
mean`` and ``v`` the plug-in (``ddof=0``) variance, are

* sum: ``W d_i``;
* var: ``d_i**2 - v``, times ``W / (W - ddof)`` for ``ddof > 0``;
* std: the variance's divided by twice the standard deviation (of the same ddof);
* corr (Pearson), with ``u, v`` the standardized columns:
  ``u_i v_i - r (u_i**2 + v_i**2) / 2`` (Devlin, Gnanadesikan & Kettenring 1975).

Each ``sum_i w_i L_i**2`` is a polynomial in the replicate's central moments of
order at most 4 (2 for the sum), and those follow from its weighted power sums
``S_ij = sum_i w_i x_i**i y_i**j`` of the centred data.  So a replicate's standard
error needs only the sums of a few fixed columns (:func:`power_columns`), which the
fused kernels accumulate replicate by replicate like any built-in "sum": no
replicate's rows are gathered.  The order statistics ("median", "quantile") have no
such form: their influence function needs the density at the quantile.

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

from math import comb

import numpy as np

__all__ = ["DELTA_METHOD_STATISTICS", "delta_method_se", "power_columns"]

#: Built-in statistics whose standard error is computed here.
DELTA_METHOD_STATISTICS = ("corr", "std", "sum", "var")

#: Relative rounding level below which a replicate's spread counts as none.
_FLAT = 64 * np.finfo(np.float64).eps

#: The exponents ``(i, j)`` of the power sums ``S_ij`` of the two columns of "corr".
_CORR_POWERS = [(i, t - i) for t in range(5) for i in range(t, -1, -1)]


def power_columns(name: str, X: np.ndarray) -> np.ndarray:
    """The columns whose (weighted) sums over a replicate give its standard error.

    ``X`` is the (n, d) data (two columns for "corr").  The result is (n, p): a
    column of ones (its sum is the replicate's total weight ``W``), then the powers
    of the data centred at their mean: ``x**1 .. x**q`` of every column (``q`` = 2
    for "sum", 4 for "var" and "std"), or ``x**i y**j`` for ``i + j <= 4`` in the
    order of ``_CORR_POWERS`` for "corr".
    """
    Y = X - X.mean(axis=0)
    if name == "corr":
        x, y = Y[:, 0], Y[:, 1]
        return np.column_stack([x**i * y**j for i, j in _CORR_POWERS])
    q = 2 if name == "sum" else 4
    return np.column_stack([np.ones(X.shape[0])] + [Y**i for i in range(1, q + 1)])


def _central(S: dict, a: int, b: int) -> np.ndarray:
    """``sum w (x - mx)**a (y - my)**b`` from the power sums (binomial expansion)."""
    W = S[0, 0]
    mx = S[1, 0] / W
    my = S[0, 1] / W if b else 0.0
    total = np.zeros_like(W)
    for i in range(a + 1):
        for j in range(b + 1):
            coef = comb(a, i) * comb(b, j) * (-mx) ** (a - i) * (-my) ** (b - j)
            total = total + coef * S[i, j]
    return total


def _power_sums(name: str, sums: np.ndarray) -> dict:
    """``S[i, j]`` (arrays over replicates, and columns for the 1-D statistics)."""
    if name == "corr":
        return {ij: sums[:, c] for c, ij in enumerate(_CORR_POWERS)}
    q = 2 if name == "sum" else 4
    d = (sums.shape[1] - 1) // q
    S = {(0, 0): sums[:, :1]}
    for i in range(1, q + 1):
        S[i, 0] = sums[:, 1 + (i - 1) * d : 1 + i * d]
    return S


def delta_method_se(name: str, sums: np.ndarray, ddof: int = 0) -> np.ndarray:
    """Delta-method standard errors, (B, k), from the sums of :func:`power_columns`.

    ``sums`` is (B, p): row ``b`` holds replicate ``b``'s weighted sums of the
    columns of ``power_columns(name, X)`` (the column sums of ``X`` itself for the
    original data).  ``ddof`` is the statistic's ("var", "std").  A replicate
    without spread (its sum of squared deviations at the rounding level of its sum
    of squares) gives 0, one of total weight at most 1 NaN: the studentized
    interval leaves both out with a warning.
    """
    S = _power_sums(name, np.asarray(sums, dtype=np.float64))
    W = S[0, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        norm = (W - 1.0) * W
        m2 = _central(S, 2, 0)
        # no spread: the sum of squared deviations is at the rounding level of the
        # sum of squares it came from (a constant replicate); its se is 0
        flat = m2 <= _FLAT * S[2, 0]
        if name == "sum":
            se = np.sqrt(np.maximum(W * W * m2 / norm, 0.0))
        elif name == "corr":
            flat = flat | (_central(S, 0, 2) <= _FLAT * S[0, 2])
            se = _corr_se(S, m2, norm)
        else:
            v = m2 / W
            se = np.sqrt(np.maximum((_central(S, 4, 0) - W * v * v) / norm, 0.0))
            scale = W / (W - ddof)
            se = scale * se if name == "var" else np.sqrt(scale) * se / (2 * np.sqrt(v))
    se = np.where(flat, 0.0, se)
    return se[:, None] if name == "corr" else se


def _corr_se(S: dict, m20: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Pearson's r: ``sum w L**2`` from the central moments (``mean_w(L)`` is 0)."""
    W = S[0, 0]
    m02 = _central(S, 0, 2)
    sx = np.sqrt(m20 / W)
    sy = np.sqrt(m02 / W)
    r = _central(S, 1, 1) / np.sqrt(m20 * m02)

    def z(a: int, b: int) -> np.ndarray:  # sum w u**a v**b, standardized columns
        return _central(S, a, b) / (sx**a * sy**b)

    u2v2 = z(2, 2)
    total = u2v2 - r * (z(3, 1) + z(1, 3)) + 0.25 * r * r * (z(4, 0) + 2 * u2v2)
    total = total + 0.25 * r * r * z(0, 4)
    return np.sqrt(np.maximum(total / norm, 0.0))
