"""The 1-D iid mean and variance kernels for targets without a 64-bit vector
multiply.

On 4-lane vector targets (AVX2, SSE, NEON-class) the block draw is bound by the
vector ALUs (each 64-bit multiply is three 32 x 32 -> 64 ones), and the gather of the
drawn rows by the loads.  :func:`iid_sum_1d_pipelined` overlaps the two: block
``i + 1`` is drawn while block ``i`` is summed
(:data:`skboot._random.draw_sum_pairs`), and beyond L2 the next block's rows are
prefetched as they are drawn.  It computes :func:`skboot._kernels.iid.iid_sum_1d`'s
sums, with the same rule and the same bits; ``iid_sum_1d`` calls it on those
targets.  :func:`iid_sumsq_1d_pipelined` does the same for
:func:`skboot._kernels.iid.iid_sumsq_1d` (sums and sums of squares, block sums
through the cascade; :data:`skboot._random.draw_sumsq_pairs`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    EIGHT_TILE_BLOCKS,
    cascade_push,
    cascade_push_eight,
    cascade_total,
)
from skboot._kernels.simd import add_rows8, add_rows8_sq
from skboot._random import (
    FAST_BLOCK,
    HALF_BLOCK,
    NO_HAVE,
    draw_block,
    draw_rows8_pairs,
    draw_rows8_sq_pairs,
    draw_sum_pairs,
    draw_sum_pairs_prefetch,
    draw_sumsq_pairs,
    draw_sumsq_pairs_prefetch,
    fast_pairs,
    fast_pairs_split,
    lemire_threshold,
    replicate_counter,
)

__all__ = ["PREFETCH_ROWS", "iid_sum_1d_pipelined", "iid_sumsq_1d_pipelined"]


#: Rows (of float64, 256 KiB) from which the pipelined mean kernel prefetches the
#: next block's rows: beyond L2, a block's loads then overlap the previous block's
#: sum (measured on AMD Zen 3: 1.16x at n = 100,000 and 1.7x at n = 10**6, and
#: 1.6x slower at n = 10,000, where the rows are in cache anyway).
PREFETCH_ROWS = 1 << 15


@njit(cache=True, nogil=True)
def _sum_pipelined(x, seed, gamma, ctr, un, thresh, nfull, acc, cur, nxt):
    """The leading full blocks of a replicate, software-pipelined: block ``i + 1``
    is drawn while block ``i`` is summed (:func:`skboot._random.draw_sum_pairs`),
    draw ``j`` into ``acc[j % 8]``.  Stops before the first block with a rejected
    word (the caller redoes it word by word).  Returns ``(ctr, blocks summed)``.
    From :data:`PREFETCH_ROWS` rows on, each drawn row
    is prefetched a block before it is summed.
    """
    if nfull == 0 or not fast_pairs_split(
        seed, gamma, ctr, un, thresh, cur, HALF_BLOCK
    ):
        return ctr, 0
    ctr = ctr + np.uint64(HALF_BLOCK)
    blk = 1
    far = x.shape[0] >= PREFETCH_ROWS
    while blk < nfull:
        if far:
            low = draw_sum_pairs_prefetch(
                acc, x, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK
            )
        else:
            low = draw_sum_pairs(acc, x, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK)
        if low < thresh:
            return ctr, blk
        ctr = ctr + np.uint64(HALF_BLOCK)
        cur, nxt = nxt, cur
        blk += 1
    for t in range(0, HALF_BLOCK, 4):
        acc[0] += x[cur[t]]
        acc[1] += x[cur[HALF_BLOCK + t]]
        acc[2] += x[cur[t + 1]]
        acc[3] += x[cur[HALF_BLOCK + t + 1]]
        acc[4] += x[cur[t + 2]]
        acc[5] += x[cur[HALF_BLOCK + t + 2]]
        acc[6] += x[cur[t + 3]]
        acc[7] += x[cur[HALF_BLOCK + t + 3]]
    return ctr, blk


@njit(cache=True, nogil=True)
def iid_sum_1d_pipelined(x, seed, gamma, b0, m, out):
    """:func:`iid_sum_1d` (same rule, same bits) for ``n < 2**32`` on 4-lane
    targets: runs of full blocks go through :func:`_sum_pipelined`; a block with a
    rejected word, and the last partial block, through the block-draw loop.  After
    an odd number of rejections the words are no longer aligned to outputs (a low
    half is buffered) and the loop continues word-aligned until the next one."""
    un = np.uint64(x.shape[0])
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    nxt = np.empty(FAST_BLOCK, dtype=np.uint64)
    s = np.empty(8)
    for k in range(out.shape[0]):
        s[:] = 0.0
        tail = 0.0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
        done = 0
        while done < m:
            if not have and m - done >= 2 * FAST_BLOCK:
                nfull = (m - done) // FAST_BLOCK
                ctr, blocks = _sum_pipelined(
                    x, seed, gamma, ctr, un, thresh, nfull, s, buf, nxt
                )
                done += blocks * FAST_BLOCK
                if done >= m:
                    break
            c = min(FAST_BLOCK, m - done)
            if (
                not have
                and not (c & 1)
                and fast_pairs(seed, gamma, ctr, un, thresh, buf, c >> 1)
            ):
                ctr = ctr + np.uint64(c >> 1)
            else:
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            c8 = c - (c & 7)
            for t in range(0, c8, 8):
                for j in range(8):
                    s[j] += x[buf[t + j]]
            for t in range(c8, c):
                tail += x[buf[t]]
            done += c
        out[k] = (
            ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail
        )


@njit(cache=True, nogil=True, inline="always")
def _push_block(acc, part, stack, count):
    """One full block's sums (``acc[:4]``) and squares (``acc[4:]``) into the
    cascade, combined as :func:`skboot._kernels.iid.iid_sumsq_1d` combines them
    (its empty tail added as ``+ 0.0``)."""
    part[0] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + 0.0
    part[1] = ((acc[4] + acc[5]) + (acc[6] + acc[7])) + 0.0
    return cascade_push(stack, count, part)


@njit(cache=True, nogil=True)
def _sumsq_pipelined(
    x, seed, gamma, ctr, un, thresh, nfull, acc, cur, nxt, part, stack, count
):
    """:func:`_sum_pipelined` for sums and squares: each full block is summed
    (draw ``j`` into ``acc[j % 4]``, its square into ``acc[4 + j % 4]``) and
    pushed on the cascade ``(stack, count)`` while the next block is drawn.
    Returns ``(ctr, blocks summed, count)``."""
    if nfull == 0 or not fast_pairs_split(
        seed, gamma, ctr, un, thresh, cur, HALF_BLOCK
    ):
        return ctr, 0, count
    ctr = ctr + np.uint64(HALF_BLOCK)
    blk = 1
    far = x.shape[0] >= PREFETCH_ROWS
    while blk < nfull:
        acc[:] = 0.0
        if far:
            low = draw_sumsq_pairs_prefetch(
                acc, x, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK
            )
        else:
            low = draw_sumsq_pairs(acc, x, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK)
        count = _push_block(acc, part, stack, count)
        if low < thresh:
            return ctr, blk, count
        ctr = ctr + np.uint64(HALF_BLOCK)
        cur, nxt = nxt, cur
        blk += 1
    acc[:] = 0.0
    for t in range(0, HALF_BLOCK, 2):
        v0 = x[cur[t]]
        v1 = x[cur[HALF_BLOCK + t]]
        v2 = x[cur[t + 1]]
        v3 = x[cur[HALF_BLOCK + t + 1]]
        acc[0] += v0
        acc[1] += v1
        acc[2] += v2
        acc[3] += v3
        acc[4] += v0 * v0
        acc[5] += v1 * v1
        acc[6] += v2 * v2
        acc[7] += v3 * v3
    return ctr, blk, _push_block(acc, part, stack, count)


@njit(cache=True, nogil=True)
def iid_sumsq_1d_pipelined(x, seed, gamma, b0, m, out1, out2):
    """:func:`skboot._kernels.iid.iid_sumsq_1d` (same rule, same bits) for
    ``n < 2**32`` on 4-lane targets: runs of full blocks through
    :func:`_sumsq_pipelined`, a block with a rejected word and the last partial
    block through the block-draw loop, as in :func:`iid_sum_1d_pipelined`."""
    un = np.uint64(x.shape[0])
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    nxt = np.empty(FAST_BLOCK, dtype=np.uint64)
    acc = np.empty(8)
    part = np.empty(2)
    stack = np.zeros((CASCADE_LEVELS, 2))
    for k in range(out1.shape[0]):
        count = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
        done = 0
        while done < m:
            if not have and m - done >= 2 * FAST_BLOCK:
                nfull = (m - done) // FAST_BLOCK
                ctr, blocks, count = _sumsq_pipelined(
                    x,
                    seed,
                    gamma,
                    ctr,
                    un,
                    thresh,
                    nfull,
                    acc,
                    buf,
                    nxt,
                    part,
                    stack,
                    count,
                )
                done += blocks * FAST_BLOCK
                if done >= m:
                    break
            c = min(FAST_BLOCK, m - done)
            if (
                not have
                and not (c & 1)
                and fast_pairs(seed, gamma, ctr, un, thresh, buf, c >> 1)
            ):
                ctr = ctr + np.uint64(c >> 1)
            else:
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            acc[:] = 0.0
            ts = 0.0
            tq = 0.0
            c4 = c - (c & 3)
            for t in range(0, c4, 4):
                for j in range(4):
                    v = x[buf[t + j]]
                    acc[j] += v
                    acc[4 + j] += v * v
            for t in range(c4, c):
                v = x[buf[t]]
                ts += v
                tq += v * v
            part[0] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ts
            part[1] = ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tq
            count = cascade_push(stack, count, part)
            done += c
        cascade_total(stack, count, part)
        out1[k] = part[0]
        out2[k] = part[1]


@njit(cache=True, nogil=True)
def _rows8_pipelined(
    Xf, seed, gamma, ctr, un, thresh, nfull, want2, acc, acc2, cur, nxt, state
):
    """:func:`_sum_pipelined` for rows of eight columns: the next ``nfull`` full
    blocks, each added while the next one is drawn
    (:data:`skboot._random.draw_rows8_pairs`; the last one's draw is discarded),
    each tile of EIGHT_TILE_BLOCKS blocks pushed on the cascade.  Stops before
    the first block with a rejected word.  ``state`` holds the cascade
    (``stack``, ``part``) and ``(count, tile)``.  Returns ``(ctr, blocks added)``.
    """
    stack, part, ct = state
    if nfull == 0 or not fast_pairs_split(
        seed, gamma, ctr, un, thresh, cur, HALF_BLOCK
    ):
        return ctr, 0
    ctr = ctr + np.uint64(HALF_BLOCK)
    w = np.int64(8)
    blk = 0
    while True:
        if want2:
            low = draw_rows8_sq_pairs(
                acc, acc2, Xf, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK, w
            )
        else:
            low = draw_rows8_pairs(
                acc, acc2, Xf, cur, nxt, seed, gamma, ctr, un, HALF_BLOCK, w
            )
        blk += 1
        ct[1] += 1
        if ct[1] == EIGHT_TILE_BLOCKS:
            ct[0] = cascade_push_eight(acc, acc2, 8, part, stack, ct[0])
            ct[1] = 0
        if blk == nfull or low < thresh:
            return ctr, blk
        ctr = ctr + np.uint64(HALF_BLOCK)
        cur, nxt = nxt, cur


@njit(cache=True, nogil=True)
def iid_moments8_pipelined(X, seed, gamma, b0, m, want2, out1, out2):
    """:func:`skboot._kernels.iid.iid_moments_tiled` (same rule, same bits) for
    ``d == 8`` and ``n < 2**32`` on 4-lane targets: runs of full blocks go
    through :func:`_rows8_pipelined`; a block with a rejected word and the
    replicate's last block through the block-draw loop and
    :func:`skboot._kernels.simd.add_rows8`.
    """
    n = X.shape[0]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    nxt = np.empty(FAST_BLOCK, dtype=np.uint64)
    acc = np.zeros(64)
    acc2 = np.zeros(64)
    part = np.empty(16)
    stack = np.zeros((CASCADE_LEVELS, 16))
    Xf = X.reshape(n * 8)
    w = np.int64(8)
    ct = np.zeros(2, dtype=np.int64)  # (cascade count, blocks in the tile)
    state = (stack, part, ct)
    for k in range(out1.shape[0]):
        ct[:] = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
        done = 0
        while done < m:
            # full blocks short of the replicate's last block (which may be partial)
            nfull = (m - done - 1) // FAST_BLOCK
            if not have and nfull >= 2:
                ctr, blocks = _rows8_pipelined(
                    Xf,
                    seed,
                    gamma,
                    ctr,
                    un,
                    thresh,
                    nfull,
                    want2,
                    acc,
                    acc2,
                    buf,
                    nxt,
                    state,
                )
                done += blocks * FAST_BLOCK
            c = min(FAST_BLOCK, m - done)
            if (
                not have
                and not (c & 1)
                and fast_pairs(seed, gamma, ctr, un, thresh, buf, c >> 1)
            ):
                ctr = ctr + np.uint64(c >> 1)
            else:
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            groups = np.int64(c >> 3)
            if want2:
                add_rows8_sq(acc, acc2, Xf, buf, groups, w, np.int64(0))
            else:
                add_rows8(acc, acc2, Xf, buf, groups, w, np.int64(0))
            for t in range(8 * groups, c):
                row = X[buf[t]]
                p = (t & 7) * 8
                for j in range(8):
                    v = row[j]
                    acc[p + j] += v
                    if want2:
                        acc2[p + j] += v * v
            ct[1] += 1
            if ct[1] == EIGHT_TILE_BLOCKS or done + c >= m:
                ct[0] = cascade_push_eight(acc, acc2, 8, part, stack, ct[0])
                ct[1] = 0
            done += c
        cascade_total(stack, ct[0], part)
        for j in range(8):
            out1[k, j] = part[j]
            out2[k, j] = part[8 + j]
