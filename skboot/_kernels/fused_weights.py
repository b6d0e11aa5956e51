"""Fused kernels of the weight schemes: Poisson, Bayesian, group and stratified
bootstraps draw a replicate's weights and reduce them in one pass.

Every kernel computes exactly what the plan's ``fill_weights_chunk`` followed by
:func:`skboot._kernels.weighted.weighted_moments` computes (rows in order, zero
weights skipped, the weight total), bit for bit, without the ``(chunk, n)`` weight
matrix: the same tiles of rows summed in order, the tiles' sums added pairwise
(:mod:`skboot._kernels.cascade`).  Eight replicates are reduced side by side: a sum over rows in order is a
chain of dependent additions, one per row, which a single replicate cannot
overlap; eight independent chains fill the pipeline and one vector register
(:mod:`skboot._kernels.simd`, ``lanes8_*``).  Kernels release the GIL.
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
from skboot._kernels.dirichlet import dirichlet_lanes
from skboot._kernels.simd import (
    lanes8_cols,
    lanes8_cols_sq,
    lanes8_indexed,
    lanes8_indexed_sq,
)
from skboot._kernels.weighted import (
    add_weighted_rows,
    cascade_rows,
    write_cascade_total,
)
from skboot._random import (
    FAST_BLOCK,
    MASK32,
    NO_HAVE,
    POISSON_MAX,
    bounded,
    fill_indices_kernel,
    lemire_threshold,
    mix64,
    replicate_counter,
)

__all__ = [
    "dirichlet_moments",
    "group_moments",
    "poisson_moments",
    "poisson_thresholds",
    "pool_draws",
    "pool_moments",
]

_U1 = np.uint64(1)
_U11 = np.uint64(11)
_U32 = np.uint64(32)
#: exp(-1) as skboot._random writes it (the Poisson stream's constant)
_EXP_MINUS_1 = 0.36787944117144233
_TWO53 = 9007199254740992.0
#: rows per tile (the weights of eight replicates x TILE rows, 16 kB, stay in
#: L1); a tile's sums join the pairwise cascade, as in weighted_moments
TILE = CASCADE_ROWS
#: replicates per tile (the lanes of one vector accumulator)
LANES = 8
_EMPTY_I64 = np.empty(0, dtype=np.int64)


@njit(cache=True)
def poisson_thresholds():
    """``T[j]``: a row's Poisson count is at least ``j + 1`` exactly when the 53-bit
    integer ``z >> 11`` of its SplitMix64 output is ``>= T[j]``.

    :func:`skboot._random.fill_poisson_counts` inverts ``u = (z >> 11) * 2**-53``
    against the Poisson(1) CDF accumulated as ``cdf += p``, ``p = p / k``; ``u >=
    cdf`` is ``(z >> 11) >= cdf * 2**53`` (a power-of-two scaling, exact), i.e.
    ``(z >> 11) >= ceil(cdf * 2**53)`` for an integer.  Same CDF, same operations,
    so the counts are the stream's.
    """
    T = np.empty(POISSON_MAX, dtype=np.int64)
    p = _EXP_MINUS_1
    cdf = _EXP_MINUS_1
    for k in range(POISSON_MAX):
        T[k] = np.int64(np.ceil(cdf * _TWO53))
        p = p / (k + 1)
        cdf += p
    return T


@njit(cache=True, nogil=True, inline="always")
def _poisson_tile_row(seed, gamma, base, c, T, w):
    """``w[t]``: the Poisson count of SplitMix64 output ``base + t`` (``t < c``);
    returns their sum (exact: integers).

    The vectorized pass counts the thresholds ``T[0..4]`` that ``z >> 11``
    reaches (counts up to 5); the rows that reach ``T[5]`` (probability 6e-4)
    are recounted by the scalar loop.  The output's counter is carried as an
    induction variable (``seed + (t + 1) * gamma``, one add per row).
    """
    t0 = T[0] - 1
    t1 = T[1] - 1
    t2 = T[2] - 1
    t3 = T[3] - 1
    t4 = T[4] - 1
    t5 = T[5] - 1
    redo = np.int64(0)
    total = np.int64(0)
    zp = seed + (base + _U1) * gamma
    for t in range(c):
        z = mix64(zp)
        zp += gamma
        v = np.int64(z >> _U11)
        k = (
            np.int64(v > t0)
            + np.int64(v > t1)
            + np.int64(v > t2)
            + np.int64(v > t3)
            + np.int64(v > t4)
        )
        redo |= np.int64(v > t5)
        total += k
        w[t] = np.float64(np.int32(k))
    if redo:
        for t in range(c):
            v = np.int64(mix64(seed + (base + np.uint64(t) + _U1) * gamma) >> _U11)
            if v > t5:
                k = 5
                while k < POISSON_MAX and v >= T[k]:
                    k += 1
                total += k - 5
                w[t] = k
    return np.float64(total)


@njit(cache=True, nogil=True)
def poisson_moments(X, seed, gamma, b0, want2, out1, out2, outw):
    """Per replicate ``b0 + k`` of the Poisson bootstrap: ``sum_i c_i X[i]`` (and
    ``sum_i c_i X[i]**2``, if ``want2``) over rows in order, ``c_i`` row ``i``'s
    count, and the replicate size ``sum_i c_i`` into ``outw``; equal bit for bit
    to ``poisson_counts_chunk`` + ``weighted_moments``.

    Counts are drawn TILE rows x eight replicates at a time (row ``i`` of
    replicate ``b`` is SplitMix64 output ``b * 2**32 + i``, inverted as in
    :func:`poisson_thresholds`) into a tile that stays in L1; one column is
    reduced eight replicates per vector, wider data column by column.
    """
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    T = poisson_thresholds()
    W = np.empty(LANES * TILE)
    acc = np.zeros(2 * LANES)
    tot = np.zeros(LANES)
    # d == 1: one cascade of the eight lanes' (sum, sum of squares); d > 1: one
    # cascade of 2d values per replicate
    width = 2 * LANES if d == 1 else 2 * d
    parts = np.zeros((LANES, width))
    stacks = np.zeros((LANES, CASCADE_LEVELS, width))
    xcol = np.empty(n) if d == 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        tot[:] = 0.0
        count = 0
        for r in range(nr, LANES):
            W[r * TILE : (r + 1) * TILE] = 0.0
        for i0 in range(0, n, TILE):
            c = min(TILE, n - i0)
            for r in range(nr):
                base = replicate_counter(b0 + k0 + r) + np.uint64(i0)
                tot[r] += _poisson_tile_row(
                    seed, gamma, base, c, T, W[r * TILE : r * TILE + c]
                )
            if d == 1:
                acc[:] = 0.0
                if want2:
                    lanes8_cols_sq(acc, W, 0, TILE, _EMPTY_I64, xcol, i0, c)
                else:
                    lanes8_cols(acc, W, 0, TILE, _EMPTY_I64, xcol, i0, c)
                cascade_push(stacks[0], count, acc)
            else:
                for r in range(nr):
                    part = parts[r]
                    part[:] = 0.0
                    add_weighted_rows(
                        X, W, 1, r * TILE, i0, c, want2, part[:d], part[d:]
                    )
                    cascade_push(stacks[r], count, part)
            count += 1
        if d == 1:
            cascade_total(stacks[0], count, acc)
            for r in range(nr):
                out1[k0 + r, 0] = acc[r]
                out2[k0 + r, 0] = acc[LANES + r]
        else:
            for r in range(nr):
                write_cascade_total(
                    stacks[r], count, parts[r], d, out1[k0 + r], out2[k0 + r]
                )
        for r in range(nr):
            outw[k0 + r] = tot[r]


@njit(cache=True, nogil=True, inline="always")
def _cascade_lanes(acc, tab, codes, xcol, want2, stack):
    """Eight lanes over all rows, ``tab`` indexed by ``codes`` (``lanes8_indexed``),
    in tiles of TILE rows whose sums go through the cascade; total into ``acc``."""
    n = xcol.shape[0]
    count = 0
    for i0 in range(0, n, TILE):
        c = min(TILE, n - i0)
        acc[:] = 0.0
        if want2:
            lanes8_indexed_sq(acc, tab, 0, LANES, codes[i0:], xcol, i0, c)
        else:
            lanes8_indexed(acc, tab, 0, LANES, codes[i0:], xcol, i0, c)
        count = cascade_push(stack, count, acc)
    cascade_total(stack, count, acc)


@njit(cache=True, nogil=True)
def group_moments(X, seed, gamma, b0, codes, sizes, want2, out1, out2, outw):
    """Per replicate ``b0 + k`` of the group bootstrap: ``sum_i c_{g(i)} X[i]``
    (and of squares) over rows in order, ``c_g`` the number of times group ``g``
    is drawn, and the replicate's size ``sum_g c_g |g|``; bit for bit
    ``group_counts_chunk`` + ``weighted_moments``.

    ``codes[i]`` is row ``i``'s group (``0 .. G - 1``), ``sizes[g]`` the rows of
    group ``g``.  Eight replicates' group counts form a ``(G, 8)`` table, so a
    row's eight weights are one table row: no per-row weight array exists.
    """
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    G = sizes.shape[0]
    draws = np.empty(G, dtype=np.int64)
    tab = np.zeros(G * LANES)
    acc = np.zeros(2 * LANES)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * LANES if d == 1 else 2 * d))
    xcol = np.empty(n) if d == 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        tab[:] = 0.0
        for r in range(nr):
            fill_indices_kernel(
                seed, gamma, np.uint64(b0 + k0 + r), np.uint64(G), draws
            )
            total = 0
            for t in range(G):
                g = draws[t]
                tab[g * LANES + r] += 1.0
                total += sizes[g]
            outw[k0 + r] = total
        if d == 1:
            _cascade_lanes(acc, tab, codes, xcol, want2, stack)
            for r in range(nr):
                out1[k0 + r, 0] = acc[r]
                out2[k0 + r, 0] = acc[LANES + r]
        else:
            w = np.empty(n)
            for r in range(nr):
                for i in range(n):
                    w[i] = tab[codes[i] * LANES + r]
                cascade_rows(X, w, want2, part, stack, out1[k0 + r], out2[k0 + r])


@njit(cache=True, nogil=True)
def pool_draws(seed, gamma, b, un, th, first, fast, out):
    """The pool positions drawn by the ``n`` slots of stratified replicate ``b``:
    ``out[i] = first[i] + v_i``, ``v_i`` slot ``i``'s bounded draw in ``[0, un[i])``
    (Lemire's method, rejection threshold ``th[i]``), the slots reading the words
    of the stream in order.  ``pools[out]`` is
    :func:`skboot._random.fill_pool_indices`' output (tested).

    Per-slot bounds, thresholds and pool offsets are precomputed once per call
    (a threshold is a 64-bit modulo).  With ``fast`` (every bound below 2**32),
    slots are drawn in blocks of FAST_BLOCK: the words of the block's outputs in
    a vectorized loop, then one multiply per slot assuming no rejection; if a
    word was rejected the block is redone word by word, as
    :func:`skboot._random.draw_block` does for one bound.
    """
    n = out.shape[0]
    words = np.empty(FAST_BLOCK, dtype=np.uint64)
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = np.uint64(0)
    i = 0
    while i < n:
        c = min(FAST_BLOCK, n - i)
        stop = i + c
        while have and i < stop:
            v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un[i], th[i])
            out[i] = first[i] + np.int64(v)
            i += 1
        h = (stop - i) >> 1 if fast else 0
        # the words of h outputs, high half first (a vectorized loop) ...
        zp = seed + (ctr + _U1) * gamma
        for q in range(h):
            z = mix64(zp)
            zp += gamma
            words[2 * q] = z >> _U32
            words[2 * q + 1] = z & MASK32
        # ... then one bounded draw per slot, assuming no rejection (bounds and
        # thresholds masked to 32 bits, which they are: the compiler then uses
        # cheap vector multiplies and compares; slices from i, so that indices
        # are known to be non-negative and numba's wraparound test does not
        # scalarize the loop)
        ok = True
        u = un[i:]
        tr = th[i:]
        f = first[i:]
        o = out[i:]
        for q in range(2 * h):
            m = words[q] * (u[q] & MASK32)
            ok &= (m & MASK32) >= (tr[q] & MASK32)
            o[q] = f[q] + np.int64(m >> _U32)
        if ok:
            ctr = ctr + np.uint64(h)
            i += 2 * h
        while i < stop:
            v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un[i], th[i])
            out[i] = first[i] + np.int64(v)
            i += 1


@njit(cache=True, nogil=True)
def pool_moments(
    X, seed, gamma, b0, codes, pools, offsets, sizes, want2, out1, out2, outw
):
    """Per replicate ``b0 + k`` of the stratified bootstrap: ``sum_i c_i X[i]``
    (and of squares) over rows in order, ``c_i`` how many slots drew row ``i``;
    the size is ``n``.  Bit for bit ``pool_counts_chunk`` + ``weighted_moments``.

    Slot ``i`` draws a row of the stratum of row ``i`` (:func:`pool_draws`).  The
    counts of eight replicates are kept by pool position in an ``(n, 8)`` int32
    array (32 bytes a position); row ``i``'s eight counts are then the row of its
    pool position, read in row order by the vector reduction.
    """
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    pos = np.empty(n, dtype=np.int64)
    cnt = np.zeros(n * LANES, dtype=np.int32)
    acc = np.zeros(2 * LANES)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * LANES if d == 1 else 2 * d))
    un = np.empty(n, dtype=np.uint64)
    th = np.empty(n, dtype=np.uint64)
    first = np.empty(n, dtype=np.int64)
    where = np.empty(n, dtype=np.int64)  # row -> its position in pools
    S = sizes.shape[0]
    ths = np.empty(S, dtype=np.uint64)
    fast = True
    for s in range(S):
        ths[s] = lemire_threshold(np.uint64(sizes[s]))
        fast &= np.uint64(sizes[s]) <= MASK32
    for i in range(n):
        s = codes[i]
        un[i] = np.uint64(sizes[s])
        th[i] = ths[s]
        first[i] = offsets[s]
        where[pools[i]] = i
    w = np.empty(n) if d > 1 else np.empty(0)
    xcol = np.empty(n) if d == 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        cnt[:] = 0
        for r in range(nr):
            pool_draws(seed, gamma, b0 + k0 + r, un, th, first, fast, pos)
            for i in range(n):
                cnt[pos[i] * LANES + r] += 1
            outw[k0 + r] = n
        if d == 1:
            _cascade_lanes(acc, cnt, where, xcol, want2, stack)
            for r in range(nr):
                out1[k0 + r, 0] = acc[r]
                out2[k0 + r, 0] = acc[LANES + r]
        else:
            for r in range(nr):
                for i in range(n):
                    w[i] = cnt[where[i] * LANES + r]
                cascade_rows(X, w, want2, part, stack, out1[k0 + r], out2[k0 + r])


@njit(cache=True, nogil=True)
def dirichlet_moments(X, seed, gamma, b0, want2, out1, out2, outw):
    """Per replicate ``b0 + k`` of the Bayesian bootstrap: ``sum_i w_i X[i]`` (and
    of squares) over rows in order and ``sum_i w_i`` (Neumaier-compensated), with
    the flat-Dirichlet weights of :func:`skboot._random.fill_dirichlet_weights`
    (scaled to sum to ``n``); bit for bit ``dirichlet_chunk`` +
    ``weighted_moments``.

    Eight replicates side by side (:func:`skboot._kernels.dirichlet.dirichlet_lanes`):
    their Exp(1) variates, then the weighted sums in vector lanes.
    """
    dirichlet_lanes(X, seed, gamma, b0, want2, out1, out2, outw)
