"""Fused iid kernels: draw a replicate's indices block by block and reduce, with no
index array; and the row gathers that feed callables.

Replicate ``b`` of the iid bootstrap is generated block by block
(:func:`skboot._random.draw_block`, a 128-entry scratch buffer) and reduced on the
fly: the B x n index tensor never exists, not even one replicate's row.  Sums over
draws use eight accumulators indexed by draw position modulo 8, combined pairwise,
so a value depends only on the replicate: results are bit-identical for any chunk
size, ``n_jobs`` or backend.  Kernels release the GIL.

The engine gives the moment kernels centred data ``x - c``
(:func:`skboot._engine.centre_of`) and adds ``w * c`` back to their sums, so the
rounding error of a sum follows the spread of the data, not its offset.

The kernels that draw block by block repeat one block-draw loop inline: the fast
path draws 128 indices two per SplitMix64 output on explicit vector types
(:mod:`skboot._random._vector`), and :func:`skboot._random.draw_block` resumes word by word after a
rejection.  The loop stays in each kernel's own body: moved into an inlined helper,
the fast-path test compiled 8-25% slower, and a closure factory built at run time
misses numba's disk cache.  Change one copy, change them all.
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
from skboot._kernels.iid_pipelined import (
    iid_moments8_pipelined,
    iid_sum_1d_pipelined,
    iid_sumsq_1d_pipelined,
)
from skboot._kernels.simd import add_rows8, add_rows8_sq
from skboot._random import (
    FAST_BLOCK,
    HALF_BLOCK,
    MASK32,
    NO_HAVE,
    count_row,
    draw_block,
    fast_pairs,
    fast_pairs_split,
    lemire_threshold,
    replicate_counter,
    target_lanes,
)

__all__ = [
    "gather_iid_rows",
    "iid_corr",
    "iid_moments",
    "iid_moments_tiled",
    "iid_order_stats",
    "iid_rows_kernel",
    "iid_sum_1d",
    "iid_sum_kernel",
    "iid_sumsq_1d",
    "iid_sumsq_kernel",
    "lerp",
    "order_stats_from_counts",
    "take_rows",
]


def iid_sum_kernel(n: int):
    """The kernel that computes :func:`iid_sum_1d`'s sums fastest on this
    machine, for ``n`` rows.

    Where the 64-bit vector multiply is emulated (4-lane targets: AVX2, SSE,
    NEON-class) and ``n < 2**32``, the software-pipelined
    :func:`skboot._kernels.iid_pipelined.iid_sum_1d_pipelined`; on AVX-512 the
    plain loop (double-buffering measured slower there).  Both give the same
    bits; choosing here (not in numba) compiles only the one that runs.
    """
    if n <= 0xFFFFFFFF and target_lanes() == 4:
        return iid_sum_1d_pipelined
    return iid_sum_1d


def iid_sumsq_kernel(n: int):
    """As :func:`iid_sum_kernel` for :func:`iid_sumsq_1d`: the pipelined
    :func:`skboot._kernels.iid_pipelined.iid_sumsq_1d_pipelined` on 4-lane
    targets for ``n < 2**32``, else the plain loop (same bits)."""
    if n <= 0xFFFFFFFF and target_lanes() == 4:
        return iid_sumsq_1d_pipelined
    return iid_sumsq_1d


def iid_rows_kernel(n: int, d: int, want2: bool):
    """As :func:`iid_sum_kernel` for :func:`iid_moments_tiled` (``d`` a multiple
    of 8): for variances (``want2``) of ``d == 8`` columns on 4-lane targets and
    ``n < 2**32`` the pipelined
    :func:`skboot._kernels.iid_pipelined.iid_moments8_pipelined`, else the tiled
    loop (same bits).  Means keep the tiled loop: its eight accumulators of eight
    columns already fill the sixteen AVX2 registers, and the pipelined variant
    measured no faster (0.9-1.3x, run to run) where variances gained 1.1-1.2x.
    """
    if want2 and d == 8 and n <= 0xFFFFFFFF and target_lanes() == 4:
        return iid_moments8_pipelined
    return iid_moments_tiled


@njit(cache=True, nogil=True)
def iid_sum_1d(x, seed, gamma, b0, m, out):
    """Per replicate ``b0 + k``: the sum of the drawn values, into ``out[k]``.

    ``x`` is a contiguous 1-D float64 array.  Draw ``j`` goes to accumulator
    ``j % 8`` while whole groups of eight remain; the at most seven draws of the
    last partial group are summed in order into a ninth.  The result is
    ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)) + tail``.

    Callers take the kernel from :func:`iid_sum_kernel`, which picks
    :func:`skboot._kernels.iid_pipelined.iid_sum_1d_pipelined` (same sums, same
    bits) where it is faster.
    """
    n = x.shape[0]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    for k in range(out.shape[0]):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        s4 = 0.0
        s5 = 0.0
        s6 = 0.0
        s7 = 0.0
        tail = 0.0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
        done = 0
        while done < m:
            c = min(FAST_BLOCK, m - done)
            if (
                c == FAST_BLOCK
                and not have
                and un <= MASK32
                and fast_pairs_split(seed, gamma, ctr, un, thresh, buf, HALF_BLOCK)
            ):
                # a full block, halves unshuffled: draw 2t is buf[t], draw 2t + 1
                # is buf[HALF_BLOCK + t] (a compile-time offset: a variable one
                # measured slower than the interleaved layout)
                ctr = ctr + np.uint64(HALF_BLOCK)
                for t in range(0, HALF_BLOCK, 4):
                    s0 += x[buf[t]]
                    s1 += x[buf[HALF_BLOCK + t]]
                    s2 += x[buf[t + 1]]
                    s3 += x[buf[HALF_BLOCK + t + 1]]
                    s4 += x[buf[t + 2]]
                    s5 += x[buf[HALF_BLOCK + t + 2]]
                    s6 += x[buf[t + 3]]
                    s7 += x[buf[HALF_BLOCK + t + 3]]
            else:
                if (
                    not have
                    and un <= MASK32
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
                    s0 += x[buf[t]]
                    s1 += x[buf[t + 1]]
                    s2 += x[buf[t + 2]]
                    s3 += x[buf[t + 3]]
                    s4 += x[buf[t + 4]]
                    s5 += x[buf[t + 5]]
                    s6 += x[buf[t + 6]]
                    s7 += x[buf[t + 7]]
                for t in range(c8, c):
                    tail += x[buf[t]]
            done += c
        out[k] = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)) + tail


@njit(cache=True, nogil=True)
def iid_sumsq_1d(x, seed, gamma, b0, m, out1, out2):
    """As :func:`iid_sum_1d`, plus the sum of squares into ``out2[k]``.

    Rule (both sums): within each block of FAST_BLOCK draws, draw ``t`` goes to
    accumulator ``t mod 4`` (an in-order tail for the last ``c mod 4`` draws of a
    short last block), combined as ``((a0 + a1) + (a2 + a3)) + tail``; the blocks'
    sums are then added pairwise through the cascade of
    :mod:`skboot._kernels.cascade`, so the sum of squares is as precise as numpy's
    pairwise sum of the replicate (a sequential sum's error grows with ``m``).
    """
    n = x.shape[0]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    part = np.empty(2)
    stack = np.zeros((CASCADE_LEVELS, 2))
    for k in range(out1.shape[0]):
        count = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
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
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            q0 = 0.0
            q1 = 0.0
            q2 = 0.0
            q3 = 0.0
            ts = 0.0
            tq = 0.0
            c4 = c - (c & 3)
            for t in range(0, c4, 4):
                v0 = x[buf[t]]
                v1 = x[buf[t + 1]]
                v2 = x[buf[t + 2]]
                v3 = x[buf[t + 3]]
                s0 += v0
                s1 += v1
                s2 += v2
                s3 += v3
                q0 += v0 * v0
                q1 += v1 * v1
                q2 += v2 * v2
                q3 += v3 * v3
            for t in range(c4, c):
                v = x[buf[t]]
                ts += v
                tq += v * v
            part[0] = ((s0 + s1) + (s2 + s3)) + ts
            part[1] = ((q0 + q1) + (q2 + q3)) + tq
            count = cascade_push(stack, count, part)
            done += c
        cascade_total(stack, count, part)
        out1[k] = part[0]
        out2[k] = part[1]


@njit(cache=True, nogil=True)
def iid_moments(X, seed, gamma, b0, m, want2, out1, out2):
    """Per replicate ``b0 + k``: column sums of the drawn rows (and of squares).

    ``X`` is (n, d) C-contiguous float64; ``out1``/``out2`` are (nb, d).  Within
    each tile of EIGHT_TILE_BLOCKS blocks of FAST_BLOCK draws (512 draws), draw
    ``t`` goes to accumulator ``t % 8`` of each column; the eight are combined
    pairwise into the tile's sums, and the tiles' sums are added pairwise through
    the cascade (:func:`cascade_push_eight`), so the sums of squares are as
    precise as numpy's pairwise sums.
    """
    n = X.shape[0]
    d = X.shape[1]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    accf = np.zeros(8 * d)
    acc2f = np.zeros(8 * d)
    acc = accf.reshape((8, d))
    acc2 = acc2f.reshape((8, d))
    part = np.empty(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    for k in range(out1.shape[0]):
        count = 0
        tile = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
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
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            if want2:  # hoisted: tested inside the row loop it halved its speed
                for t in range(c):
                    row = X[buf[t]]
                    a = acc[t & 7]
                    a2 = acc2[t & 7]
                    for j in range(d):
                        v = row[j]
                        a[j] += v
                        a2[j] += v * v
            else:
                for t in range(c):
                    row = X[buf[t]]
                    a = acc[t & 7]
                    for j in range(d):
                        a[j] += row[j]
            tile += 1
            if tile == EIGHT_TILE_BLOCKS or done + c >= m:
                count = cascade_push_eight(accf, acc2f, d, part, stack, count)
                tile = 0
            done += c
        cascade_total(stack, count, part)
        for j in range(d):
            out1[k, j] = part[j]
            out2[k, j] = part[d + j]


@njit(cache=True, nogil=True)
def iid_moments_tiled(X, seed, gamma, b0, m, want2, out1, out2):
    """:func:`iid_moments` for ``d`` a multiple of 8, eight columns per vector.

    Same rule, same values bit for bit: within each tile of 512 draws, draw ``t``
    goes to accumulator ``t % 8`` of each column, rows in draw order, the eight
    combined pairwise, the tiles through the cascade.  The accumulators of eight columns stay in vector registers across a
    block (:mod:`skboot._kernels.simd`); the last at most seven draws of a replicate
    are added by the scalar loop.  ``X`` rows should start on 64-byte boundaries
    (one cache line per row; :func:`skboot._engine.aligned_rows`); that changes
    speed only.
    """
    n = X.shape[0]
    d = X.shape[1]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    acc = np.zeros(8 * d)
    acc2 = np.zeros(8 * d)
    part = np.empty(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    Xf = X.reshape(n * d)
    w = np.int64(d)
    for k in range(out1.shape[0]):
        count = 0
        tile = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
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
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            groups = np.int64(c >> 3)
            for j0 in range(0, d, 8):
                if want2:
                    add_rows8_sq(acc, acc2, Xf, buf, groups, w, np.int64(j0))
                else:
                    add_rows8(acc, acc2, Xf, buf, groups, w, np.int64(j0))
            for t in range(8 * groups, c):
                row = X[buf[t]]
                p = (t & 7) * d
                for j in range(d):
                    v = row[j]
                    acc[p + j] += v
                    if want2:
                        acc2[p + j] += v * v
            tile += 1
            if tile == EIGHT_TILE_BLOCKS or done + c >= m:
                count = cascade_push_eight(acc, acc2, d, part, stack, count)
                tile = 0
            done += c
        cascade_total(stack, count, part)
        for j in range(d):
            out1[k, j] = part[j]
            out2[k, j] = part[d + j]


@njit(cache=True, nogil=True)
def iid_corr(xy, seed, gamma, b0, m, out):
    """Per replicate: sums of x, y, x*x, y*y, x*y of the drawn pairs, then ``m``
    and a flag: 1.0 when both the drawn x and the drawn y take two values or
    more (0.0: a constant column, Pearson's r undefined).

    ``xy`` is (n, 2) float64 (centred by the caller); ``out`` is (nb, 7).
    """
    n = xy.shape[0]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    for k in range(out.shape[0]):
        sx = 0.0
        sy = 0.0
        sxx = 0.0
        syy = 0.0
        sxy = 0.0
        x0 = 0.0
        y0 = 0.0
        nx = 0
        ny = 0
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
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
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            if done == 0:
                x0 = xy[buf[0], 0]
                y0 = xy[buf[0], 1]
            for t in range(c):
                r = buf[t]
                a = xy[r, 0]
                bb = xy[r, 1]
                sx += a
                sy += bb
                sxx += a * a
                syy += bb * bb
                sxy += a * bb
                nx += a != x0
                ny += bb != y0
            done += c
        out[k, 0] = sx
        out[k, 1] = sy
        out[k, 2] = sxx
        out[k, 3] = syy
        out[k, 4] = sxy
        out[k, 5] = m
        out[k, 6] = 1.0 if (nx > 0 and ny > 0) else 0.0


@njit(cache=True, nogil=True)
def gather_iid_rows(a, seed, gamma, b0, m, out):
    """``out[k]`` = the rows of ``a`` drawn by iid replicate ``b0 + k``, in draw
    order, with no index array: the draws of a block are written straight from
    the scratch block.  ``a`` is (n, d) and ``out`` (nb, m, d), both C-contiguous
    float64; the values are exactly ``a[indices(b0 + k)]``."""
    n = a.shape[0]
    d = a.shape[1]
    nb = out.shape[0]
    un = np.uint64(n)
    ud = np.uint64(d)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    af = a.reshape(n * d)
    of = out.reshape(nb * m * d)
    for k in range(nb):
        pos = np.uint64(k) * np.uint64(m) * ud
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
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
                ctr, have, lo = draw_block(
                    seed, gamma, ctr, have, lo, un, thresh, buf, c
                )
            if d == 1:
                for t in range(c):
                    of[pos + np.uint64(t)] = af[buf[t]]
            else:
                for t in range(c):
                    src = buf[t] * ud
                    dst = pos + np.uint64(t) * ud
                    for j in range(d):
                        of[dst + np.uint64(j)] = af[src + np.uint64(j)]
            pos += np.uint64(c) * ud
            done += c


@njit(cache=True)
def lerp(a, b, t):
    """numpy's ``_lerp`` (quantile method "linear"), bit for bit."""
    diff = b - a
    if t >= 0.5:
        return b - diff * (1.0 - t)
    return a + diff * t


@njit(cache=True)
def order_stats_from_counts(cnt, vals, order, positions, out_vals):
    """Given multiplicities ``cnt`` over sorted values, fill the order statistics at
    ascending 0-based ``positions`` (values ``vals[order[j]]``)."""
    j = 0
    cum = cnt[order[0]] if order.shape[0] > 0 else 0.0
    for p in range(positions.shape[0]):
        target = positions[p]
        while cum <= target:
            j += 1
            cum += cnt[order[j]]
        out_vals[p] = vals[order[j]]


@njit(cache=True, nogil=True)
def iid_order_stats(X, order, seed, gamma, b0, m, positions, out):
    """Per replicate and column: order statistics at ``positions`` of the drawn rows.

    ``X`` (n, d) float64; ``order`` (d, n) int64 with ``X[order[c], c]`` ascending;
    ``positions`` ascending int64 in ``[0, m)``; ``out`` (nb, d, len(positions)).
    The count array is indexed by row; the scan walks rows in sorted order.
    """
    n = X.shape[0]
    d = X.shape[1]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    cnt = np.zeros(n, dtype=np.float64)
    fpos = positions.astype(np.float64)
    tmp = np.empty(positions.shape[0])
    for k in range(out.shape[0]):
        count_row(seed, gamma, b0 + k, un, thresh, m, buf, cnt)
        for col in range(d):
            order_stats_from_counts(cnt, X[:, col], order[col], fpos, tmp)
            for p in range(positions.shape[0]):
                out[k, col, p] = tmp[p]


# ---------------------------------------------------------------------------
# replicate rows for callables (the statistic needs the values, not a sum)
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def take_rows(a, idx, out):
    """``out[k] = a[idx[k]]`` for (n, d) ``a``, (nb, m) ``idx`` and (nb, m, d)
    ``out`` (C-contiguous float64): ``np.take`` for a chunk of replicates in one
    call, without numpy's per-call and per-element overhead."""
    n = a.shape[0]
    d = a.shape[1]
    nb = idx.shape[0]
    m = idx.shape[1]
    ud = np.uint64(d)
    af = a.reshape(n * d)
    of = out.reshape(nb * m * d)
    pos = np.uint64(0)
    for k in range(nb):
        row = idx[k]
        if d == 1:
            for t in range(m):
                of[pos + np.uint64(t)] = af[np.uint64(row[t])]
        else:
            for t in range(m):
                src = np.uint64(row[t]) * ud
                dst = pos + np.uint64(t) * ud
                for j in range(d):
                    of[dst + np.uint64(j)] = af[src + np.uint64(j)]
        pos += np.uint64(m) * ud
