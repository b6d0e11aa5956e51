"""Weighted kernels: the plan writes a chunk of per-row weights (counts for index
schemes) and the kernel reduces ``sum_i w_i f(x_i)``, rows in order (moments: in
tiles summed pairwise), so a value depends only on the replicate's weights.
Kernels release the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    CASCADE_ROWS,
    cascade_push,
    cascade_total,
    neumaier_add,
)
from skboot._kernels.iid import lerp, order_stats_from_counts

__all__ = [
    "add_weighted_rows",
    "cascade_rows",
    "weight_total",
    "weighted_corr",
    "weighted_moments",
    "weighted_order_stats",
    "write_cascade_total",
]


@njit(cache=True, nogil=True)
def weighted_moments(X, W, want2, out1, out2, outw):
    """Per weight row ``k``: ``sum_i W[k,i] X[i]`` (and of squares) and ``sum W[k]``.

    Rows are added in order within tiles of ``CASCADE_ROWS`` rows (zero weights
    skipped), the tiles' sums pairwise through :mod:`skboot._kernels.cascade`
    (:func:`cascade_rows`: as precise as numpy's pairwise sums).  The weight
    total is summed with Neumaier's compensation (:func:`weight_total`): the
    caller multiplies it by the data's centre, which can be large next to the
    centred sums.
    """
    d = X.shape[1]
    part = np.empty(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    for k in range(W.shape[0]):
        w = W[k]
        cascade_rows(X, w, want2, part, stack, out1[k], out2[k])
        outw[k] = weight_total(w)


@njit(cache=True, nogil=True, inline="always")
def weight_total(w):
    """``sum(w)`` over the non-zero weights, in order, Neumaier-compensated
    (about one rounding of the exact total)."""
    sw = 0.0
    comp = 0.0
    for i in range(w.shape[0]):
        wi = w[i]
        if wi != 0.0:
            sw, comp = neumaier_add(sw, comp, wi)
    return sw + comp


@njit(cache=True, nogil=True, inline="always")
def add_weighted_rows(X, w, wstride, wbase, i0, c, want2, a1, a2):
    """``a1 += w_t * X[i0 + t]`` (and ``a2 += w_t * X[i0 + t]**2``) for rows
    ``t < c`` in order with ``w_t = w[wbase + t * wstride] != 0``: the row loop of
    every weighted moment kernel (the fused weight kernels reuse it)."""
    d = X.shape[1]
    for t in range(c):
        wt = w[wbase + t * wstride]
        if wt != 0.0:
            row = X[i0 + t]
            for j in range(d):
                v = row[j]
                a1[j] += wt * v
                if want2:
                    a2[j] += wt * v * v


@njit(cache=True, nogil=True, inline="always")
def write_cascade_total(stack, count, part, d, a1, a2):
    """The cascade's total (width 2d, in ``part``) into the rows ``a1``, ``a2``."""
    cascade_total(stack, count, part)
    for j in range(d):
        a1[j] = part[j]
        a2[j] = part[d + j]


@njit(cache=True, nogil=True, inline="always")
def cascade_rows(X, w, want2, part, stack, a1, a2):
    """``a1 = sum_i w[i] X[i]`` (and ``a2`` of squares) over all rows: tiles of
    CASCADE_ROWS rows in order (zero weights skipped), the tile sums through the
    cascade.  ``part`` (2d) and ``stack`` (CASCADE_LEVELS, 2d) are scratch."""
    n = X.shape[0]
    d = X.shape[1]
    count = 0
    for i0 in range(0, n, CASCADE_ROWS):
        c = min(CASCADE_ROWS, n - i0)
        part[:] = 0.0
        add_weighted_rows(X, w, 1, i0, i0, c, want2, part[:d], part[d:])
        count = cascade_push(stack, count, part)
    write_cascade_total(stack, count, part, d, a1, a2)


@njit(cache=True, nogil=True)
def weighted_corr(xy, W, out):
    """Per weight row: weighted sums of x, y, x*x, y*y, x*y, the weight total and
    the flag of :func:`iid_corr` (over the rows of non-zero weight); ``out`` is
    (nb, 7)."""
    for k in range(W.shape[0]):
        w = W[k]
        sw = 0.0
        sx = 0.0
        sy = 0.0
        sxx = 0.0
        syy = 0.0
        sxy = 0.0
        first = True
        x0 = 0.0
        y0 = 0.0
        nx = 0
        ny = 0
        for i in range(xy.shape[0]):
            wi = w[i]
            if wi != 0.0:
                a = xy[i, 0]
                bb = xy[i, 1]
                if first:
                    x0 = a
                    y0 = bb
                    first = False
                nx += a != x0
                ny += bb != y0
                sw += wi
                sx += wi * a
                sy += wi * bb
                sxx += wi * a * a
                syy += wi * bb * bb
                sxy += wi * a * bb
        out[k, 0] = sx
        out[k, 1] = sy
        out[k, 2] = sxx
        out[k, 3] = syy
        out[k, 4] = sxy
        out[k, 5] = sw
        out[k, 6] = 1.0 if (nx > 0 and ny > 0) else 0.0


@njit(cache=True, nogil=True)
def weighted_order_stats(X, order, W, qs, median, out):
    """Per weight row (integer counts) and column: quantiles ``qs`` of the multiset.

    ``median``: use numpy's median rule (mean of the two middle values) instead of
    the linear-interpolation quantile.  ``out`` is (nb, d, len(qs)); NaN for an
    empty replicate (every count 0, possible under the Poisson bootstrap).
    """
    d = X.shape[1]
    nq = qs.shape[0]
    pos = np.empty(2 * nq)
    vals = np.empty(2 * nq)
    for k in range(W.shape[0]):
        w = W[k]
        m = 0.0
        for i in range(w.shape[0]):
            m += w[i]
        mi = np.int64(m)
        if mi <= 0:
            out[k, :, :] = np.nan
            continue
        for p in range(nq):
            if median:
                lo_i = (mi - 1) // 2
                hi_i = mi // 2
            else:
                h = (m - 1.0) * qs[p]
                lo_i = np.int64(np.floor(h))
                hi_i = min(lo_i + 1, mi - 1)
            pos[2 * p] = lo_i
            pos[2 * p + 1] = hi_i
        # positions must be ascending for the scan: qs are sorted by the caller
        for col in range(d):
            order_stats_from_counts(w, X[:, col], order[col], pos, vals)
            for p in range(nq):
                a = vals[2 * p]
                bb = vals[2 * p + 1]
                if median:
                    out[k, col, p] = (a + bb) / 2.0
                else:
                    h = (m - 1.0) * qs[p]
                    out[k, col, p] = lerp(a, bb, h - np.floor(h))
