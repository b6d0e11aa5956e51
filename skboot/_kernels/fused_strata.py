"""The stratified bootstrap's fused kernel: draw eight replicates' slots, count
them by pool position and reduce the counts in row order, in one call.

Slot ``i`` of a replicate draws a uniform row of the stratum of row ``i``: the
bounded draw ``v`` in ``[0, |s|)`` of the stream's word ``i`` (Lemire's method,
as :func:`skboot._random.fill_pool_indices`), at pool position ``offsets[s] + v``.
The fast path needs, per slot, only the stratum's size and first pool position,
packed into one 64-bit word (:func:`slot_meta`): a block of FAST_BLOCK slots
takes its words in a vectorized loop, one multiply per slot, and assumes that no
word is rejected.  The test is conservative: a word whose low product is below
the stratum size (the rejection threshold ``2**32 mod |s|`` is smaller) sends
the block to the word-by-word path with the exact thresholds, which is what the
stream defines; so do strata of ``2**32`` rows or more.

The counts of eight replicates are kept by pool position, eight lanes a
position, in the narrowest integer type that holds a stratum's size (a count
never exceeds it): ``int8`` for strata of at most 127 rows, ``int16`` up to
32,767, ``int32`` above (``int64`` past ``2**31 - 1``).  Row ``i``'s eight counts are then the lanes of its
pool position, read in row order by the vector reduction of
:mod:`skboot._kernels.fused_weights`.
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
from skboot._kernels.simd import lanes8_indexed, lanes8_indexed_sq
from skboot._kernels.weighted import cascade_rows
from skboot._random import (
    FAST_BLOCK,
    MASK32,
    NO_HAVE,
    bounded,
    lemire_threshold,
    mix64,
    replicate_counter,
)

__all__ = [
    "pool_count_dtype",
    "pool_moments",
    "pool_positions",
    "slot_meta",
]

_U1 = np.uint64(1)
_U32 = np.uint64(32)
#: replicates reduced side by side (the lanes of one vector accumulator)
LANES = 8
#: rows summed in sequence before a tile's sums join the cascade
TILE = CASCADE_ROWS


@njit(cache=True, nogil=True)
def slot_meta(codes, offsets, sizes, usize, first):
    """``usize[i] = sizes[s]`` and ``first[i] = offsets[s]`` for ``s = codes[i]``
    (uint32, int32): the fast path's view of slot ``i``.  Returns False (and
    leaves them unspecified) when a stratum has ``2**32`` rows or more or a pool
    position does not fit in 31 bits; every block then takes the word-by-word
    path."""
    for s in range(sizes.shape[0]):
        if sizes[s] > MASK32 or offsets[s] + sizes[s] > 2**31:
            return False
    for i in range(codes.shape[0]):
        s = codes[i]
        usize[i] = sizes[s]
        first[i] = offsets[s]
    return True


@njit(cache=True, nogil=True, inline="always")
def _exact_slot(seed, gamma, ctr, have, lo, s, offsets, sizes, ths):
    """Slot of stratum ``s`` drawn word by word (the stream's definition)."""
    v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, np.uint64(sizes[s]), ths[s])
    return offsets[s] + np.int64(v), ctr, have, lo


@njit(cache=True, nogil=True)
def pool_positions(seed, gamma, b, codes, offsets, sizes, ths, usize, first, fast, out):
    """The pool positions drawn by the ``n`` slots of stratified replicate ``b``
    into ``out`` (int64): ``pools[out]`` is :func:`skboot._random.fill_pool_indices`'
    output (tested).  ``ths[s]`` is stratum ``s``'s rejection threshold;
    ``usize``, ``first`` and ``fast`` come from :func:`slot_meta`.
    """
    words = np.empty(FAST_BLOCK, dtype=np.uint64)
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = np.uint64(0)
    n = out.shape[0]
    for i in range(0, n, FAST_BLOCK):
        stop = min(i + FAST_BLOCK, n)
        ctr, have, lo = _slot_block(
            seed,
            gamma,
            ctr,
            have,
            lo,
            i,
            stop,
            codes,
            offsets,
            sizes,
            ths,
            usize,
            first,
            fast,
            words,
            out[i:stop],
        )


@njit(cache=True, nogil=True, inline="always")
def _slot_block(
    seed,
    gamma,
    ctr,
    have,
    lo,
    i,
    stop,
    codes,
    offsets,
    sizes,
    ths,
    usize,
    first,
    fast,
    words,
    out,
):
    """Slots ``i .. stop - 1`` (at most FAST_BLOCK) into ``out[:stop - i]``;
    returns the reader state ``(ctr, have, lo)``.

    With ``fast`` and no buffered low half, the words of the block's outputs in a
    vectorized loop, then one multiply per slot assuming no rejection
    (conservatively tested, see the module notes); a block that fails the test
    is redone word by word, as :func:`skboot._random.draw_block` does for one
    bound.
    """
    j = i
    while have and j < stop:
        out[j - i], ctr, have, lo = _exact_slot(
            seed, gamma, ctr, have, lo, codes[j], offsets, sizes, ths
        )
        j += 1
    h = (stop - j) >> 1 if fast else 0
    if h and _fast_slots(
        seed, gamma, ctr, usize[j:], first[j:], words, out[j - i :], h
    ):
        ctr = ctr + np.uint64(h)
        j += 2 * h
    while j < stop:
        out[j - i], ctr, have, lo = _exact_slot(
            seed, gamma, ctr, have, lo, codes[j], offsets, sizes, ths
        )
        j += 1
    return ctr, have, lo


@njit(cache=True, nogil=True, inline="always")
def _fast_slots(seed, gamma, ctr, usize, first, words, out, h):
    """Slots ``0 .. 2h - 1`` from outputs ``ctr .. ctr + h - 1`` (high half
    first) into ``out``, assuming no rejection; False if the assumption may fail
    (``out`` is then rewritten by the caller).  ``meta``, ``out`` are slices
    starting at the block's first slot (non-negative indices keep numba's
    wraparound test out of the vectorized loops)."""
    zp = seed + (ctr + _U1) * gamma
    for q in range(h):
        z = mix64(zp)
        zp += gamma
        words[2 * q] = z >> _U32
        words[2 * q + 1] = z & MASK32
    # masked to 32 bits (which they are): the compiler multiplies with the cheap
    # 32 x 32 -> 64 vector instruction
    bad = 0
    for q in range(2 * h):
        size = np.uint64(usize[q])
        m = (words[q] & MASK32) * size
        bad += np.int64((m & MASK32) < size)
        out[q] = np.int64(first[q]) + np.int64(m >> _U32)
    return bad == 0


def pool_count_dtype(max_size: int) -> np.dtype:
    """The narrowest signed integer type that holds a count of a stratum of
    ``max_size`` rows (a pool position is drawn at most ``|s|`` times)."""
    for dt in (np.int8, np.int16, np.int32):
        if max_size <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


@njit(cache=True, nogil=True)
def pool_moments(
    X, seed, gamma, b0, codes, pools, offsets, sizes, like, want2, out1, out2, outw
):
    """Per replicate ``b0 + k`` of the stratified bootstrap: ``sum_i c_i X[i]``
    (and of squares) over rows in order, ``c_i`` how many slots drew row ``i``;
    the size is ``n``.  Bit for bit ``pool_counts_chunk`` + ``weighted_moments``.

    Counts live in an ``(n, 8)`` table of ``like``'s type (an empty array of
    :func:`pool_count_dtype` of the largest stratum: numba compiles only the
    type in use): 8 or 16 bytes a row for strata of up to 127 or 32,767 rows.
    """
    cnt = np.zeros(X.shape[0] * LANES, dtype=like.dtype)
    _pool_moments(
        cnt, X, seed, gamma, b0, codes, pools, offsets, sizes, want2, out1, out2, outw
    )


@njit(cache=True, nogil=True)
def _pool_moments(
    cnt, X, seed, gamma, b0, codes, pools, offsets, sizes, want2, out1, out2, outw
):
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    S = sizes.shape[0]
    ths = np.empty(S, dtype=np.uint64)
    for s in range(S):
        ths[s] = lemire_threshold(np.uint64(sizes[s]))
    usize = np.empty(n, dtype=np.uint32)
    first = np.empty(n, dtype=np.int32)
    fast = slot_meta(codes, offsets, sizes, usize, first)
    where = np.empty(n, dtype=np.int64)  # row -> its position in pools
    for p in range(n):
        where[pools[p]] = p
    pos = np.empty(n, dtype=np.int64)
    acc = np.zeros(2 * LANES)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * LANES if d == 1 else 2 * d))
    w = np.empty(n) if d > 1 else np.empty(0)
    xcol = np.empty(n) if d == 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        cnt[:] = 0
        for r in range(nr):
            pool_positions(
                seed,
                gamma,
                b0 + k0 + r,
                codes,
                offsets,
                sizes,
                ths,
                usize,
                first,
                fast,
                pos,
            )
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
