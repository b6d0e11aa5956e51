"""Poisson-bootstrap sums of one partition of the rows: the data-parallel kernel.

Row ``i`` of replicate ``b`` of the Poisson bootstrap appears ``c_bi`` times,
``c_bi`` the inversion of the uniform of SplitMix64 output ``b * 2**32 + i``
(:func:`skboot._random.fill_poisson_counts` reads exactly one output per row, so a
row's count is randomly accessible: it depends on ``(key, b, i)`` only).  A
partition holding the global rows ``row0 .. row0 + m - 1`` therefore computes its
share of every replicate's sums alone, without the other partitions, and the
shares of all partitions add up to the sums over all rows.

The counts are drawn as :mod:`skboot._kernels.fused_weights` draws them (a
53-bit integer compared with the thresholds of the Poisson(1) CDF, the stream's
operations), and reduced eight replicates at a time in tiles whose sums go
through the pairwise cascade (:mod:`skboot._kernels.cascade`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    CASCADE_ROWS,
    cascade_push,
    cascade_total,
)
from skboot._kernels.fused_weights import _poisson_tile_row, poisson_thresholds
from skboot._kernels.simd import lanes8_cols, lanes8_cols_sq
from skboot._random import replicate_counter

__all__ = [
    "column_summary",
    "poisson_row_counts",
    "poisson_rows_corr",
    "poisson_rows_moments",
    "poisson_rows_sums",
]

TILE = CASCADE_ROWS
LANES = 8
_EMPTY_I64 = np.empty(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def poisson_row_counts(seed, gamma, b, row0, out):
    """``out[t]``: the Poisson count of global row ``row0 + t`` in replicate
    ``b`` (for tests: equals ``fill_poisson_counts`` on all rows, sliced)."""
    T = poisson_thresholds()
    m = out.shape[0]
    w = np.empty(TILE)
    for i0 in range(0, m, TILE):
        c = min(TILE, m - i0)
        base = replicate_counter(b) + np.uint64(row0 + i0)
        _poisson_tile_row(seed, gamma, base, c, T, w)
        for t in range(c):
            out[i0 + t] = np.int64(w[t])


@njit(cache=True, nogil=True)
def column_summary(X, sums, finite, integral):
    """One pass over the (m, d) rows: per column the sum and count of the
    finite values and whether they are all integers (``sums``, ``finite``,
    ``integral``, overwritten); returns the number of values that are not
    finite and the number of finite values other than 0 and 1."""
    m, d = X.shape
    sums[:] = 0.0
    finite[:] = 0
    integral[:] = True
    bad = 0
    other = 0
    for i in range(m):
        for j in range(d):
            v = X[i, j]
            if np.isfinite(v):
                sums[j] += v
                finite[j] += 1
                if v != np.floor(v):
                    integral[j] = False
                if v != 0.0 and v != 1.0:
                    other += 1
            else:
                bad += 1
    return bad, other


@njit(cache=True, nogil=True)
def poisson_rows_moments(
    X, shift, seed, gamma, b0, row0, want2, out1, out2, outw, obs1, obs2
):
    """Per replicate ``b0 + k``: ``out1[k, j] = sum_t c_t (X[t, j] - shift[j])``
    (and the sum of ``c_t (X[t, j] - shift[j])**2`` into ``out2`` if ``want2``)
    and ``outw[k] = sum_t c_t``, with ``c_t`` the count of global row ``row0 +
    t`` (output ``(b0 + k) * 2**32 + row0 + t`` of the stream); ``obs1``,
    ``obs2``: the same sums with unit weights (the original rows).

    ``X`` is (m, d) C-contiguous float64.  A tile of TILE rows is centred into
    a small buffer, column by column; counts are drawn TILE rows x eight
    replicates at a time into a tile that stays in L1 and reused for every
    column; each column's tile sums go through its own pairwise cascade, as in
    the in-memory kernel (equal to it bit for bit on the same rows and shift).
    A zero count adds nothing (not even a NaN of its row).  Nothing of size m
    is allocated.  Requires ``row0 + m <= 2**32``.
    """
    m, d = X.shape
    nb = out1.shape[0]
    T = poisson_thresholds()
    W = np.zeros(LANES * TILE)
    xbuf = np.empty((d, TILE))
    acc = np.zeros(2 * LANES)
    tot = np.zeros(LANES)
    part = np.zeros(2 * d)
    stacks = np.zeros((d, CASCADE_LEVELS, 2 * LANES))
    ostack = np.zeros((CASCADE_LEVELS, 2 * d))
    count = 0
    for i0 in range(0, m, TILE):  # the original rows
        c = min(TILE, m - i0)
        part[:] = 0.0
        for j in range(d):
            for t in range(c):
                v = X[i0 + t, j] - shift[j]
                part[j] += v
                part[d + j] += v * v
        count = cascade_push(ostack, count, part)
    cascade_total(ostack, count, part)
    obs1[:] = part[:d]
    obs2[:] = part[d:]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        tot[:] = 0.0
        W[:] = 0.0
        count = 0
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            for r in range(nr):
                base = replicate_counter(b0 + k0 + r) + np.uint64(row0 + i0)
                tot[r] += _poisson_tile_row(
                    seed, gamma, base, c, T, W[r * TILE : r * TILE + c]
                )
            for j in range(d):
                xj = xbuf[j]
                for t in range(c):
                    xj[t] = X[i0 + t, j] - shift[j]
                acc[:] = 0.0
                if want2:
                    lanes8_cols_sq(acc, W, 0, TILE, _EMPTY_I64, xj, 0, c)
                else:
                    lanes8_cols(acc, W, 0, TILE, _EMPTY_I64, xj, 0, c)
                cascade_push(stacks[j], count, acc)
            count += 1
        for j in range(d):
            cascade_total(stacks[j], count, acc)
            for r in range(nr):
                out1[k0 + r, j] = acc[r]
                out2[k0 + r, j] = acc[LANES + r]
        for r in range(nr):
            outw[k0 + r] = tot[r]


@njit(cache=True, nogil=True)
def poisson_rows_corr(X, shift, seed, gamma, row0, out, lo, hi):
    """Per replicate ``k`` (``out``'s first ``nb`` rows): the count-weighted
    sums of ``x``, ``y``, ``x*x``, ``y*y``, ``x*y`` and of the counts
    (``out[k, :6]``), ``x = X[t, 0] - shift[0]``, ``y = X[t, 1] - shift[1]``,
    with ``c_t`` the count of global row ``row0 + t``; ``lo[k]``, ``hi[k]``:
    the least and greatest value of each raw column over the rows of non-zero
    count (left as given where no value compares, e.g. all NaN).

    Sums run in row order, as the in-memory weighted kernel's do; a zero count
    adds nothing.  ``X`` is (m, 2) float64; nothing of size m is allocated.
    """
    m = X.shape[0]
    nb = out.shape[0]
    T = poisson_thresholds()
    w = np.empty(TILE)
    for k in range(nb):
        sw = 0.0
        sx = 0.0
        sy = 0.0
        sxx = 0.0
        syy = 0.0
        sxy = 0.0
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            base = replicate_counter(k) + np.uint64(row0 + i0)
            _poisson_tile_row(seed, gamma, base, c, T, w)
            for t in range(c):
                wi = w[t]
                if wi != 0.0:
                    u = X[i0 + t, 0]
                    v = X[i0 + t, 1]
                    if u < lo[k, 0]:
                        lo[k, 0] = u
                    if u > hi[k, 0]:
                        hi[k, 0] = u
                    if v < lo[k, 1]:
                        lo[k, 1] = v
                    if v > hi[k, 1]:
                        hi[k, 1] = v
                    a = u - shift[0]
                    b = v - shift[1]
                    sw += wi
                    sx += wi * a
                    sy += wi * b
                    sxx += wi * a * a
                    syy += wi * b * b
                    sxy += wi * a * b
        out[k, 0] = sx
        out[k, 1] = sy
        out[k, 2] = sxx
        out[k, 3] = syy
        out[k, 4] = sxy
        out[k, 5] = sw


@njit(cache=True, nogil=True)
def poisson_rows_sums(X, y, seed, gamma, row0, out, lo, hi):
    """Per replicate ``k`` (``out``'s rows): ``out[k, j] = sum_t c_t X[t, j]``
    for each column ``j`` of the (m, q) ``X`` and ``out[k, q] = sum_t c_t``,
    with ``c_t`` the count of global row ``row0 + t``; ``lo[k]``, ``hi[k]``:
    the least and greatest ``y[t]`` over the rows of non-zero count (a NaN
    ``y[t]`` never compares: a row left out of them).  Sums in row order; a
    zero count adds nothing.  Nothing of size m is allocated."""
    m, q = X.shape
    nb = out.shape[0]
    T = poisson_thresholds()
    w = np.empty(TILE)
    acc = np.empty(q + 1)
    for k in range(nb):
        acc[:] = 0.0
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            base = replicate_counter(k) + np.uint64(row0 + i0)
            _poisson_tile_row(seed, gamma, base, c, T, w)
            for t in range(c):
                wi = w[t]
                if wi != 0.0:
                    v = y[i0 + t]
                    if v < lo[k]:
                        lo[k] = v
                    if v > hi[k]:
                        hi[k] = v
                    for j in range(q):
                        acc[j] += wi * X[i0 + t, j]
                    acc[q] += wi
        for j in range(q + 1):
            out[k, j] = acc[j]
