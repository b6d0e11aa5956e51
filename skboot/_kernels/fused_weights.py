"""Fused kernels of the weight schemes: Poisson, Bayesian and group bootstraps
(stratified: :mod:`skboot._kernels.fused_strata`) draw a replicate's weights
and reduce them in one pass.

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
from skboot._kernels.draw_lanes import (
    poisson_lanes8,
    poisson_lanes8_exact,
    poisson_lanes8_exact_sq,
    poisson_lanes8_sq,
)
from skboot._kernels.simd import (
    lanes8_indexed,
    lanes8_indexed_sq,
)
from skboot._kernels.weighted import (
    add_weighted_rows,
    cascade_rows,
    write_cascade_total,
)
from skboot._random import (
    POISSON_MAX,
    fill_indices_kernel,
    mix64,
    replicate_counter,
)

__all__ = [
    "dirichlet_moments",
    "group_moments",
    "poisson_moments",
    "poisson_thresholds",
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

    Row ``i`` of replicate ``b`` is SplitMix64 output ``b * 2**32 + i``, inverted
    as in :func:`poisson_thresholds`.  One column: eight replicates' outputs,
    counts and sums side by side in vector registers
    (:mod:`skboot._kernels.draw_lanes`), TILE rows at a time; wider data: the
    counts of a tile of TILE rows x eight replicates into a tile that stays in
    L1, reduced column by column.
    """
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    T = poisson_thresholds()
    W = np.empty(LANES * TILE if d > 1 else 0)
    acc = np.zeros(2 * LANES)
    tot = np.zeros(LANES)
    # d == 1: one cascade of the eight lanes' (sum, sum of squares); d > 1: one
    # cascade of 2d values per replicate
    width = 2 * LANES if d == 1 else 2 * d
    parts = np.zeros((LANES, width))
    stacks = np.zeros((LANES if d > 1 else 1, CASCADE_LEVELS, width))
    xcol = np.empty(n) if d == 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    zp = np.empty(LANES, dtype=np.uint64)
    zp0 = np.empty(LANES, dtype=np.uint64)
    ktile = np.zeros(LANES, dtype=np.int64)
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        tot[:] = 0.0
        count = 0
        # lanes past nr draw replicates nobody asked for: their sums are dropped
        for r in range(LANES):
            zp[r] = seed + (replicate_counter(b0 + k0 + r) + _U1) * gamma
        for i0 in range(0, n, TILE):
            c = min(TILE, n - i0)
            if d == 1:
                _poisson_tile_lanes(acc, ktile, zp, zp0, gamma, xcol, i0, c, want2)
                for r in range(nr):
                    tot[r] += ktile[r]
                cascade_push(stacks[0], count, acc)
            else:
                for r in range(nr):
                    base = replicate_counter(b0 + k0 + r) + np.uint64(i0)
                    tot[r] += _poisson_tile_row(
                        seed, gamma, base, c, T, W[r * TILE : r * TILE + c]
                    )
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
def _poisson_tile_lanes(acc, ktile, zp, zp0, gamma, xcol, i0, c, want2):
    """One tile of one column, eight replicates: sums (and squares) into ``acc``,
    the counts' totals into ``ktile``.  Counts up to POISSON_LANE_COUNTS - 1 are
    resolved in the vector pass; a tile where some count reaches
    POISSON_LANE_COUNTS (2% of the tiles) is redone from its start with every
    threshold."""
    zp0[:] = zp
    acc[:] = 0.0
    ktile[:] = 0
    if want2:
        big = poisson_lanes8_sq(acc, ktile, zp, gamma, xcol, i0, c)
    else:
        big = poisson_lanes8(acc, ktile, zp, gamma, xcol, i0, c)
    if big:
        zp[:] = zp0
        acc[:] = 0.0
        ktile[:] = 0
        if want2:
            poisson_lanes8_exact_sq(acc, ktile, zp, gamma, xcol, i0, c)
        else:
            poisson_lanes8_exact(acc, ktile, zp, gamma, xcol, i0, c)


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
