"""Eight replicates per pass over a partition's rows: the building blocks of the
exact and hashed-group data-parallel kernels (:mod:`skboot._kernels.exact_rows`).

A replicate of the exact schemes draws its rows uniformly, so its count of a
row is known only once all its draws are made.  The kernels therefore make the
draws of eight replicates first, each into a histogram of one byte per row
(:func:`hist_draws`: a ``uint8`` count, a row's 256th draw wraps it to 0 and
notes the row in an overflow list, so any count is exact), then pass over the
rows once for all eight: a tile of ``CASCADE_ROWS`` rows has its eight counts
per row widened to doubles (:func:`widen_tile`) and summed against the
centred values, eight replicates side by side (:func:`lane_tile_sums`).

Every lane performs the one-replicate kernel's operations in its order: per
tile, ``w * v`` and ``w * (v * v)`` added in row order (a zero count adds
nothing), the tile's sums through the pairwise cascade
(:mod:`skboot._kernels.cascade`), so each replicate's sums are bit for bit
those of the one-replicate kernel on its counts.  The bytes per replicate and
row (one count, written by a scatter into a block the size of the partition's
row count, then read once) replace the eight bytes of a ``float64`` count
vector written, scattered into and read per replicate.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import CASCADE_ROWS, cascade_push
from skboot._kernels.simd import lanes8_rows
from skboot._random import (
    FAST_BLOCK,
    MASK32,
    NO_HAVE,
    draw_block,
    fast_pairs,
    replicate_counter,
)

__all__ = [
    "LANES",
    "TILE",
    "hist_draws",
    "hist_replicate",
    "lane_tile_sums",
    "overflow_capacity",
    "widen_tile",
]

#: Replicates reduced side by side in one pass over the rows.
LANES = 8
#: Rows per tile (the cascade's partial sums).
TILE = CASCADE_ROWS
#: A uint8 count wraps at this many draws of one row.
WRAP = 256
_U0 = np.uint64(0)
_EMPTY_I64 = np.empty(0, dtype=np.int64)


@njit(cache=True, nogil=True)
def overflow_capacity(draws):
    """Entries a replicate's overflow list can need: a row's count wraps once
    per ``WRAP`` of its draws, so at most ``total // WRAP`` wraps for the
    largest total of one replicate (``draws`` (B, S))."""
    most = 0
    for k in range(draws.shape[0]):
        most = max(most, draws[k].sum())
    return most // WRAP + 1


@njit(cache=True, nogil=True)
def hist_draws(seed, gamma, b, un, thresh, m, buf, o, h, ov, nov):
    """Add the ``m`` uniform draws among ``un`` rows of replicate ``b`` (the
    stream ``(seed, gamma)`` at counter ``b * 2**32``, the draws of
    :func:`skboot._random.count_row`) into the byte histogram ``h``: draw
    ``v`` counts for ``h[o + v]``.  A count that wraps past 255 appends its
    index to ``ov`` from ``nov`` on; returns the new ``nov``.  ``buf``:
    FAST_BLOCK uint64 scratch."""
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    uo = np.uint64(o)  # unsigned indices spare numba's negative-index check
    done = 0
    while done < m:
        c = min(FAST_BLOCK, m - done)
        if (
            not have
            and un <= MASK32
            and not (c & 1)
            and fast_pairs(seed, gamma, ctr, un, thresh, buf, c >> 1)
        ):
            ctr = ctr + np.uint64(c >> 1)
        else:
            ctr, have, lo = draw_block(seed, gamma, ctr, have, lo, un, thresh, buf, c)
        for t in range(c):
            i = uo + buf[t]
            v = h[i] + 1
            h[i] = v
            if v == WRAP:
                ov[nov] = np.int64(i)
                nov += 1
        done += c
    return nov


@njit(cache=True, nogil=True)
def hist_replicate(seeds, gamma, b, draws, pool, offsets, sizes, ths, buf, hp, h, ov):
    """Replicate ``b``'s byte histogram of the partition's rows into ``h``
    (``draws[s]`` draws among the ``sizes[s]`` rows ``pool[offsets[s]:
    offsets[s] + sizes[s]]`` of stratum ``s``, from the stream ``(seeds[s],
    gamma)``: the counts of :func:`skboot._kernels.exact_rows.stratum_row_counts`);
    its overflow list, sorted, into ``ov``; returns the list's length.  With
    several strata the draws count into ``hp`` (the rows in stratum order, so
    each stratum's block is contiguous), then move to the rows' places.
    ``ths[s]``: Lemire's threshold of ``sizes[s]``."""
    S = sizes.shape[0]
    direct = S == 1
    into = h if direct else hp
    into[:] = 0
    nov = 0
    for s in range(S):
        if draws[s] == 0:
            continue
        un = np.uint64(sizes[s])
        nov = hist_draws(
            seeds[s], gamma, b, un, ths[s], draws[s], buf, offsets[s], into, ov, nov
        )
    if not direct:
        for p in range(pool.shape[0]):
            h[pool[p]] = hp[p]
        for q in range(nov):
            ov[q] = pool[ov[q]]
    ov[:nov].sort()
    return nov


@njit(cache=True, nogil=True)
def widen_tile(hist, m, nr, i0, c, ov, nov, ptr, W):
    """``W[t * LANES + r]``: replicate ``r``'s count of row ``i0 + t`` (``t <
    c``, ``r < nr``) as a double: its byte in ``hist[r * m + i0 + t]`` plus
    ``WRAP`` per entry of the row in replicate ``r``'s sorted overflow list
    ``ov[r, :nov[r]]``, read from ``ptr[r]`` on (advanced past the tile)."""
    for r in range(nr):
        base = r * m + i0
        for t in range(c):
            W[t * LANES + r] = hist[base + t]
        p = ptr[r]
        end = i0 + c
        while p < nov[r] and ov[r, p] < end:
            W[(ov[r, p] - i0) * LANES + r] += WRAP
            p += 1
        ptr[r] = p


@njit(cache=True, nogil=True)
def lane_tile_sums(X, shift, i0, c, W, want2, xbuf, qbuf, acc, stacks, count):
    """Push one tile's sums of eight replicates into the per-column cascades:
    for column ``j``, ``acc[r] = sum_t W[t * LANES + r] * v_t`` and (if
    ``want2``) ``acc[LANES + r] = sum_t W[t * LANES + r] * (v_t * v_t)``,
    ``v_t = X[i0 + t, j] - shift[j]``, rows in order, into ``stacks[j]``
    (``(CASCADE_LEVELS, 2 * LANES)``) as tile ``count``.  ``xbuf``, ``qbuf``:
    TILE doubles of scratch; ``acc``: 2 * LANES."""
    d = X.shape[1]
    for j in range(d):
        for t in range(c):
            v = X[i0 + t, j] - shift[j]
            xbuf[t] = v
            qbuf[t] = v * v
        acc[:] = 0.0
        lanes8_rows(acc, W, 0, LANES, _EMPTY_I64, xbuf, 0, c)
        if want2:
            lanes8_rows(acc[LANES:], W, 0, LANES, _EMPTY_I64, qbuf, 0, c)
        cascade_push(stacks[j], count, acc)
