"""Rows as float64 and the sums the fused statistics reduce to: the centring
that keeps them as precise as numpy on the same replicate (guarantee 5), and the
statistics computed from centred sums.  numpy only: the data-parallel partition
functions that run on dask workers import these without the engine's joblib and
resampler layers."""

from __future__ import annotations

import numpy as np

__all__ = [
    "aligned_rows",
    "as_float_rows",
    "centre_of",
    "centred_rows",
    "coefficients",
    "corr_from_sums",
    "design_rows",
    "integral_columns",
    "moments_to_values",
]


def as_float_rows(a: np.ndarray) -> np.ndarray:
    """(n,) or (n, d) -> C-contiguous float64 (n, d)."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    return np.ascontiguousarray(a)


def aligned_rows(X: np.ndarray) -> np.ndarray:
    """``X`` (C-contiguous float64, (n, d) with ``d`` a multiple of 8) with its
    first row on a 64-byte boundary, copied only if it is not already.

    Rows of eight doubles are then one cache line each, which the vector row
    kernel (:func:`skboot._kernels.iid.iid_moments_tiled`) reads in one load; numpy's
    large allocations usually start 16 bytes past a page.  Values are unchanged.
    """
    if X.shape[1] % 8 or X.ctypes.data % 64 == 0:
        return X
    raw = np.empty(X.nbytes + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start : start + X.nbytes].view(np.float64).reshape(X.shape)
    out[...] = X
    return out


def centre_of(X: np.ndarray) -> np.ndarray:
    """The shift ``c`` subtracted from each column before a fused sum, shape (d,).

    ``c_j`` is the mean of column ``j`` (``X.mean(axis=0)``; over the finite
    values when there are others), rounded to the nearest integer (half to
    even) when every finite value of the column is an integer (counts, 0/1
    data: their centred values and sums then stay exact integers), and 0 when
    that mean is not finite.  A pure function of
    the data, computed once per call, so replicates stay bit-identical for any
    chunking.  Centring makes the rounding error of a replicate sum proportional
    to the spread of the data, not to its offset (Chan, Golub & LeVeque 1983).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n == 0:
        return np.zeros(X.shape[1])
    # np.add.reduce / n is X.mean(axis=0) bit for bit, without its Python layer
    # (this runs once per call, and small calls are dominated by fixed costs)
    with np.errstate(over="ignore", invalid="ignore"):
        mu = np.add.reduce(X, axis=0) / n  # finite only if every value is
        if not np.isfinite(mu).all():
            for j in np.flatnonzero(~np.isfinite(mu)):
                col = X[:, j]
                col = col[np.isfinite(col)]
                mu[j] = col.mean() if col.shape[0] else 0.0
            mu[~np.isfinite(mu)] = 0.0  # overflow
    integral = integral_columns(X)
    if integral.any():
        mu = np.where(integral, np.round(mu), mu)
    return mu


def integral_columns(X: np.ndarray) -> np.ndarray:
    """Whether every finite value of each column of the float64 (n, d) ``X`` is
    an integer, shape (d,).  The first 256 rows decide for most real columns (a
    fractional value); only the columns still integral are scanned whole.  numpy,
    not a kernel: a numba kernel here cost 0.57 s of compilation in the first
    call of every fresh cache, for a pass that runs once per call."""
    head = X[:256]
    with np.errstate(invalid="ignore"):
        ok = np.all((head == np.floor(head)) | np.isnan(head), axis=0)
        if ok.any() and X.shape[0] > 256:
            cols = np.flatnonzero(ok)
            rest = X[256:, cols]
            ok[cols] = np.all((rest == np.floor(rest)) | np.isnan(rest), axis=0)
    return ok


def centred_rows(X: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``X - shift`` as a new C-contiguous float64 (n, d) array, its first row on
    a 64-byte boundary when ``d`` is a multiple of 8 (see :func:`aligned_rows`)."""
    n, d = X.shape
    if d % 8:
        out = np.empty((n, d))
    else:
        raw = np.empty(n * d * 8 + 64, dtype=np.uint8)
        start = (-raw.ctypes.data) % 64
        out = raw[start : start + n * d * 8].view(np.float64).reshape(n, d)
    np.subtract(X, shift, out=out)
    return out


def moments_to_values(
    name: str,
    s1: np.ndarray,
    s2: np.ndarray,
    sw: np.ndarray,
    shift: np.ndarray,
    ddof: int,
) -> np.ndarray:
    """A moment statistic from the sums of centred values.

    ``s1``/``s2``: sums of ``w * (x - shift)`` and ``w * (x - shift)**2`` per
    replicate and column; ``sw`` the total weight (broadcastable against them).
    sum: ``s1 + sw * shift``; mean and proportion: that sum divided by ``sw``
    (NaN when ``sw <= 0``, an empty replicate); var: ``(s2 - s1**2 / sw) / (sw -
    ddof)``, clipped at 0 (NaN when ``sw - ddof <= 0``); std: its square root.
    Never emits a numpy RuntimeWarning: undefined values are NaN, which the
    caller counts (``n_undefined``) and reports once.
    """
    if name == "sum":
        return s1 + sw * shift
    with np.errstate(invalid="ignore", divide="ignore"):
        if name in ("mean", "proportion"):
            return np.where(sw > 0, (s1 + sw * shift) / sw, np.nan)
        dof = sw - ddof
        var = np.maximum((s2 - s1 * s1 / sw) / dof, 0.0)
        var = np.where((dof > 0) & (sw > 0), var, np.nan)
    return var if name == "var" else np.sqrt(var)


def corr_from_sums(
    sx: np.ndarray,
    sy: np.ndarray,
    sxx: np.ndarray,
    syy: np.ndarray,
    sxy: np.ndarray,
    sw: np.ndarray,
) -> np.ndarray:
    """Pearson's r from weighted sums of centred x, y, x*x, y*y, x*y.

    NaN (undefined, counted by the caller) when the total weight is not positive
    or either variance is not positive; no numpy RuntimeWarning.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        vx = sxx - sx * sx / sw
        vy = syy - sy * sy / sw
        ok = (sw > 0) & (vx > 0) & (vy > 0)
        r = (sxy - sx * sy / sw) / np.sqrt(np.where(ok, vx * vy, 1.0))
    return np.where(ok, r, np.nan)


def design_rows(X: np.ndarray, y: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``(1, x - a, y - a_y)`` per row, C-contiguous float64 (n, k + 2);
    ``shift`` is ``(0, a, a_y)``."""
    n, k = X.shape
    U = np.empty((n, k + 2))
    U[:, 0] = 1.0
    np.subtract(X, shift[1 : k + 1], out=U[:, 1 : k + 1])
    np.subtract(y, shift[k + 1], out=U[:, k + 1])
    return U


def coefficients(g: np.ndarray, shift: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """The coefficients (intercept first) from the solution ``g`` (rows) of the
    centred system: the intercept is ``g_0 + a_y - a . g_slopes``."""
    if not fit_intercept:
        return g
    k = g.shape[1] - 1
    out = g.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        out[:, 0] = g[:, 0] + shift[k + 1] - g[:, 1:] @ shift[1 : k + 1]
    return out
