"""Least squares per replicate: weighted cross products and a small Cholesky solve.

A replicate of the pairs bootstrap of a linear regression is the weighted fit
``min sum_i w_i (y_i - z_i' g)**2`` with ``w_i`` the replicate's count (or
weight) of row ``i``.  Its normal equations need only the cross products
``sum_i w_i u_i u_i'`` of the rows ``u_i = (1, x_i - a, y_i - a_y)``, centred
at the full-data means ``a``, ``a_y`` (so the rounding error of the sums is
proportional to the spread of the data, not to its offset, as for the
moments).  They are kept as the packed upper triangle of a (p, p) matrix,
``p = k + 2``: :func:`packed_index` gives the position of entry ``(r, c)``.

:func:`ols_from_gram` moves the cross products to another centre (the origin,
for a fit without intercept) and solves the normal equations by Cholesky.  A
pivot that is not greater than :data:`RANK_TOL` times its column's diagonal
(the column is, up to that relative tolerance, a linear combination of the
columns before it on this replicate) makes the replicate's coefficients NaN:
undefined, counted by the caller.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.fused_weights import _poisson_tile_row, poisson_thresholds
from skboot._random import replicate_counter

__all__ = [
    "RANK_TOL",
    "ols_from_gram",
    "packed_index",
    "poisson_gram",
    "weighted_gram",
]

#: A Cholesky pivot at most this fraction of its diagonal entry marks a column
#: collinear with the columns before it (``1 - R**2`` of that column regressed
#: on them, within the replicate).
RANK_TOL = 1e-10


@njit(cache=True, nogil=True, inline="always")
def packed_index(p, r, c):
    """Position of entry ``(r, c)``, ``r <= c``, of a packed upper triangle of
    a (p, p) symmetric matrix (rows in order, each from its diagonal)."""
    return r * p - (r * (r - 1)) // 2 + (c - r)


@njit(cache=True, nogil=True)
def weighted_gram(U, W, out):
    """``out[b]``: the packed upper triangle of ``sum_i W[b, i] U[i] U[i]'``.

    ``U`` is (n, p) C-contiguous float64, ``W`` (nb, n) the replicates'
    weights (counts as floats); rows of zero weight add nothing (not even a
    NaN of theirs).  Rows are added in order."""
    nb, n = W.shape
    p = U.shape[1]
    acc = np.empty(out.shape[1])
    for b in range(nb):
        acc[:] = 0.0
        for i in range(n):
            w = W[b, i]
            if w == 0.0:
                continue
            t = 0
            for r in range(p):
                wr = w * U[i, r]
                for c in range(r, p):
                    acc[t] += wr * U[i, c]
                    t += 1
        out[b, :] = acc


@njit(cache=True, nogil=True)
def poisson_gram(U, seed, gamma, b0, row0, out):
    """``out[k]``: the packed cross products of the (m, p) rows ``U`` weighted
    by their Poisson counts in replicate ``b0 + k``, row ``t`` being global row
    ``row0 + t`` (its count is output ``(b0 + k) * 2**32 + row0 + t`` of the
    stream, as :func:`skboot._kernels.poisson_rows.poisson_row_counts` draws
    it): a partition's share of :func:`weighted_gram` of the Poisson
    bootstrap, drawn without a weight matrix.  Rows are added in order."""
    T = poisson_thresholds()
    m, p = U.shape
    tile = 256
    w = np.empty(tile)
    acc = np.empty(out.shape[1])
    for k in range(out.shape[0]):
        acc[:] = 0.0
        for i0 in range(0, m, tile):
            c = min(tile, m - i0)
            base = replicate_counter(b0 + k) + np.uint64(row0 + i0)
            _poisson_tile_row(seed, gamma, base, c, T, w)
            for t in range(c):
                wt = w[t]
                if wt == 0.0:
                    continue
                i = i0 + t
                j = 0
                for r in range(p):
                    wr = wt * U[i, r]
                    for c2 in range(r, p):
                        acc[j] += wr * U[i, c2]
                        j += 1
        out[k, :] = acc


@njit(cache=True, nogil=True)
def ols_from_gram(G, p, move, intercept, out):
    """Coefficients of every replicate from its packed cross products ``G``
    (nb, p (p + 1) / 2) of ``(1, x - a, y - a_y)``.

    ``move`` (p,) is added to the centred columns first (``move[0] = 0``): the
    centre becomes ``a - move``.  With ``intercept`` the system is that of
    columns ``0 .. p - 2`` and ``out[b]`` holds ``(g_0, ..., g_{p-2})``; without,
    of columns ``1 .. p - 2`` and ``out[b]`` holds ``(g_1, ..., g_{p-2})``.
    Returns nothing; a replicate whose system is not positive definite within
    :data:`RANK_TOL` (or whose sums are not finite) gets NaN."""
    nb = G.shape[0]
    j0 = 0 if intercept else 1
    q = p - 1 - j0
    M = np.empty((p, p))
    m0 = np.empty(p)
    L = np.empty((q, q))
    z = np.empty(q)
    moving = False
    for r in range(1, p):
        if move[r] != 0.0:
            moving = True
    for b in range(nb):
        for r in range(p):
            for c in range(r, p):
                v = G[b, packed_index(p, r, c)]
                M[r, c] = v
                M[c, r] = v
        s0 = M[0, 0]
        if moving:
            # rows u + move * u_0:  M + d m0' + m0 d' + M00 d d'
            m0[:] = M[:, 0]
            for r in range(p):
                for c in range(p):
                    M[r, c] += (
                        move[r] * m0[c] + m0[r] * move[c] + s0 * move[r] * move[c]
                    )
        ok = True
        for j in range(q):
            jj = j + j0
            d = M[jj, jj]
            for t in range(j):
                d -= L[j, t] * L[j, t]
            if not (d > RANK_TOL * M[jj, jj]) or not np.isfinite(d):
                ok = False
                break
            L[j, j] = np.sqrt(d)
            for i in range(j + 1, q):
                v = M[i + j0, jj]
                for t in range(j):
                    v -= L[i, t] * L[j, t]
                L[i, j] = v / L[j, j]
        if not ok:
            out[b, :] = np.nan
            continue
        for i in range(q):  # L z = M[:, y]
            v = M[i + j0, p - 1]
            for t in range(i):
                v -= L[i, t] * z[t]
            z[i] = v / L[i, i]
        for i in range(q - 1, -1, -1):  # L' g = z
            v = z[i]
            for t in range(i + 1, q):
                v -= L[t, i] * out[b, t]
            out[b, i] = v / L[i, i]
