"""Data-parallel kernels of the exact (multinomial) iid and stratified bootstraps
and of the hashed-group Poisson bootstrap: one partition's rows reduced to
per-replicate sums.

Exact schemes (:func:`partition_draws`, :func:`exact_rows_moments`).  Replicate
``b`` makes ``N_s`` uniform draws among the ``n_s`` rows of stratum ``s`` (one
stratum, ``N = n`` or ``sample_size``, for the iid bootstrap).  How many land in
partition ``j`` is drawn on the client as conditional binomials in partition
order, ``M_sj ~ Binomial(N_s - sum_{i<j} M_si, n_sj / (n_s - sum_{i<j} n_si))``
(``n_sj``: the stratum's rows in partition ``j``; the last partition holding
the stratum takes the rest), which gives the multinomial law of the ``M_sj``
exactly; the binomials read the stream of purpose "data_parallel" at counter
``b * 2**32``, stratum by stratum, partition by partition.  Partition ``j`` then
draws its ``M_sj`` rows uniformly, with replacement, among its own ``n_sj`` rows
of the stratum (Lemire's bounded integers, as the in-memory iid stream), from
sub-stream ``j * S + s + 1`` at counter ``b * 2**32``: each row's count, given
the ``M_sj``, is that of uniform draws, so each replicate's counts are
Multinomial(``N_s``, ``1 / n_s``) within each stratum, as in memory.

Hashed groups (:func:`group_poisson_moments`).  Every row of the group with
64-bit hash ``h`` appears ``c`` times in replicate ``b``, ``c`` the Poisson(1)
inversion (the thresholds of :func:`poisson_thresholds`) of SplitMix64 output
``b`` of the stream seeded ``mix64(seed ^ h)``: a pure function of ``(key, b,
h)``, so partitions need not hold whole groups.

The counts of one replicate are summed against the rows in tiles of
``CASCADE_ROWS`` rows through the pairwise cascade, as the Poisson partition
kernel does (:mod:`skboot._kernels.poisson_rows`).
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
from skboot._kernels.exact_lanes import (
    LANES,
    TILE,
    hist_replicate,
    lane_tile_sums,
    overflow_capacity,
    widen_tile,
)
from skboot._kernels.fused_weights import poisson_thresholds
from skboot._random import (
    FAST_BLOCK,
    NO_HAVE,
    POISSON_MAX,
    binomial,
    count_row,
    lemire_threshold,
    mix64,
    replicate_counter,
)

__all__ = [
    "exact_rows_moments",
    "exact_rows_one",
    "group_poisson_counts",
    "group_poisson_moments",
    "group_poisson_one",
    "partition_draws",
    "stratum_row_counts",
]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U11 = np.uint64(11)


@njit(cache=True, nogil=True)
def partition_draws(seed, gamma, b0, totals, sizes, out):
    """``out[j, k, s]``: the draws of replicate ``b0 + k`` that land among
    partition ``j``'s rows of stratum ``s``; ``totals[s]`` draws per replicate
    among the ``sizes[s].sum()`` rows of the stratum, ``sizes[s, j]`` of them in
    partition ``j`` (both int64).  ``out`` is (P, K, S) int64."""
    S, P = sizes.shape
    for k in range(out.shape[1]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        for s in range(S):
            left = np.int64(0)
            for j in range(P):
                left += sizes[s, j]
            todo = np.int64(totals[s])
            for j in range(P):
                size = sizes[s, j]
                if size == 0:
                    out[j, k, s] = 0
                    continue
                if size == left:  # the last partition with rows takes the rest
                    got = todo
                else:
                    got, ctr, have, lo = binomial(
                        seed, gamma, ctr, have, lo, todo, size / left
                    )
                out[j, k, s] = got
                todo -= got
                left -= size


@njit(cache=True, nogil=True)
def stratum_row_counts(seeds, gamma, b, draws, pool, offsets, sizes, buf, tmp, cnt):
    """``cnt[i]`` (float64, m): how often row ``i`` of the partition is drawn in
    replicate ``b``: ``draws[s]`` uniform draws among the ``sizes[s]`` rows
    ``pool[offsets[s]:offsets[s] + sizes[s]]`` of stratum ``s``, from the
    stream ``(seeds[s], gamma)`` at counter ``b * 2**32``.  ``buf``: FAST_BLOCK
    uint64 scratch; ``tmp``: float64 scratch of the largest stratum."""
    S = sizes.shape[0]
    if S == 1:  # the rows of the one stratum are the partition's, in order
        un = np.uint64(sizes[0])
        count_row(seeds[0], gamma, b, un, lemire_threshold(un), draws[0], buf, cnt)
        return
    cnt[:] = 0.0
    for s in range(S):
        if draws[s] == 0:
            continue
        un = np.uint64(sizes[s])
        row = tmp[: sizes[s]]
        count_row(seeds[s], gamma, b, un, lemire_threshold(un), draws[s], buf, row)
        o = offsets[s]
        for i in range(sizes[s]):
            cnt[pool[o + i]] = row[i]


@njit(cache=True, nogil=True)
def _unit_sums(X, shift, out1, out2):
    """``out1``: the sums of ``X - shift``, ``out2``: of its square, over the
    (m, d) rows (unit counts: the original rows), in tiles of CASCADE_ROWS
    rows through the cascade; the arithmetic of a count of 1.0."""
    m, d = X.shape
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    count = 0
    for i0 in range(0, m, CASCADE_ROWS):
        c = min(CASCADE_ROWS, m - i0)
        part[:] = 0.0
        for t in range(c):
            for j in range(d):
                v = X[i0 + t, j] - shift[j]
                part[j] += 1.0 * v
                part[d + j] += 1.0 * (v * v)
        count = cascade_push(stack, count, part)
    cascade_total(stack, count, part)
    out1[:] = part[:d]
    out2[:] = part[d:]


@njit(cache=True, nogil=True)
def _lane_totals(stacks, count, nr, k0, want2, out1, out2):
    """Replicates ``k0 .. k0 + nr - 1``'s sums from the per-column cascades."""
    d = stacks.shape[0]
    acc = np.zeros(2 * LANES)
    for j in range(d):
        cascade_total(stacks[j], count, acc)
        for r in range(nr):
            out1[k0 + r, j] = acc[r]
            out2[k0 + r, j] = acc[LANES + r] if want2 else 0.0


@njit(cache=True, nogil=True)
def exact_rows_moments(
    X, shift, seeds, gamma, draws, pool, offsets, sizes, want2, out1, out2, outw
):
    """Per replicate ``k`` (``draws[k, s]`` draws in stratum ``s``, from
    :func:`partition_draws`): ``out1[k]``, ``out2[k]``, ``outw[k]``, the
    count-weighted sums of ``X - shift``, of its square (if ``want2``) and the
    counts' total; the counts as :func:`stratum_row_counts` draws them, each
    replicate's terms added in row order per tile of CASCADE_ROWS rows, the
    tiles through the cascade (a zero count adds nothing).  ``X`` (m, d)
    C-contiguous float64;
    the last row of ``out1``/``out2``/``outw`` (one more than ``draws``) gets
    the sums with unit counts (the original rows).

    Eight replicates per pass over the rows (:mod:`skboot._kernels.exact_lanes`):
    their draws into byte histograms, then one tiled reduction.  Memory: eight
    bytes per row, and per replicate of the eight a list of the rows whose
    count passed 255 (at most its draws / 256 entries)."""
    m, d = X.shape
    B, S = draws.shape
    _unit_sums(X, shift, out1[B], out2[B])
    outw[B] = m
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    ths = np.empty(S, dtype=np.uint64)
    for s in range(S):  # a stratum without rows here is never drawn
        ths[s] = lemire_threshold(np.uint64(sizes[s])) if sizes[s] > 0 else 0
    hist = np.empty(LANES * m, dtype=np.uint8)
    hp = np.empty(m if S > 1 else 0, dtype=np.uint8)
    ov = np.empty((LANES, overflow_capacity(draws)), dtype=np.int64)
    nov = np.zeros(LANES, dtype=np.int64)
    ptr = np.zeros(LANES, dtype=np.int64)
    W = np.zeros(LANES * TILE)
    xbuf = np.empty(TILE)
    qbuf = np.empty(TILE)
    acc = np.zeros(2 * LANES)
    stacks = np.zeros((d, CASCADE_LEVELS, 2 * LANES))
    for k0 in range(0, B, LANES):
        nr = min(LANES, B - k0)
        for r in range(nr):
            nov[r] = hist_replicate(
                seeds,
                gamma,
                np.uint64(k0 + r),
                draws[k0 + r],
                pool,
                offsets,
                sizes,
                ths,
                buf,
                hp,
                hist[r * m : (r + 1) * m],
                ov[r],
            )
            ptr[r] = 0
            outw[k0 + r] = draws[k0 + r].sum()
        W[:] = 0.0
        count = 0
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            widen_tile(hist, m, nr, i0, c, ov, nov, ptr, W)
            lane_tile_sums(X, shift, i0, c, W, want2, xbuf, qbuf, acc, stacks, count)
            count += 1
        _lane_totals(stacks, count, nr, k0, want2, out1, out2)


@njit(cache=True, nogil=True, inline="always")
def _group_count(seed, gamma, b, h, T):
    """The Poisson(1) count of the group with hash ``h`` in replicate ``b``."""
    z = mix64(mix64(seed ^ h) + (np.uint64(b) + _U1) * gamma)
    v = np.int64(z >> _U11)
    k = 0
    while k < POISSON_MAX and v >= T[k]:
        k += 1
    return k


@njit(cache=True, nogil=True)
def group_poisson_counts(seed, gamma, b, hashes, out):
    """``out[i]``: the count of row ``i`` (its group's hash ``hashes[i]``) in
    replicate ``b``."""
    T = poisson_thresholds()
    for i in range(hashes.shape[0]):
        out[i] = _group_count(seed, gamma, b, hashes[i], T)


@njit(cache=True, nogil=True)
def _group_tile(seed, gamma, hashes, i0, c, k0, nr, T, gbuf, W, tot):
    """``W[t * LANES + r]``: the count of row ``i0 + t`` (``t < c``) in
    replicate ``k0 + r`` (``r < nr``), :func:`group_poisson_counts`'s; adds
    each replicate's counts to ``tot[r]``.  ``mix64(seed ^ h)`` once per row
    into ``gbuf``; the counts compared with ``T[0..4]`` without branches, the
    rows that reach ``T[5]`` (probability 6e-4) counted again by the loop."""
    for t in range(c):
        gbuf[t] = mix64(seed ^ hashes[i0 + t])
    t0 = T[0] - 1
    t1 = T[1] - 1
    t2 = T[2] - 1
    t3 = T[3] - 1
    t4 = T[4] - 1
    t5 = T[5] - 1
    for r in range(nr):
        step = (np.uint64(k0 + r) + _U1) * gamma
        redo = np.int64(0)
        total = np.int64(0)
        for t in range(c):
            v = np.int64(mix64(gbuf[t] + step) >> _U11)
            k = (
                np.int64(v > t0)
                + np.int64(v > t1)
                + np.int64(v > t2)
                + np.int64(v > t3)
                + np.int64(v > t4)
            )
            redo |= np.int64(v > t5)
            total += k
            W[t * LANES + r] = k
        if redo:
            for t in range(c):
                v = np.int64(mix64(gbuf[t] + step) >> _U11)
                if v > t5:
                    k = 5
                    while k < POISSON_MAX and v >= T[k]:
                        k += 1
                    total += k - 5
                    W[t * LANES + r] = k
        tot[r] += total


@njit(cache=True, nogil=True)
def group_poisson_moments(X, shift, seed, gamma, hashes, want2, out1, out2, outw):
    """:func:`exact_rows_moments` with each row's count that of its group
    (:func:`group_poisson_counts`), for the ``out1.shape[0] - 1`` replicates:
    eight replicates per pass over the rows, each row's ``mix64(seed ^ h)``
    made once per pass."""
    m, d = X.shape
    B = out1.shape[0] - 1
    _unit_sums(X, shift, out1[B], out2[B])
    outw[B] = m
    T = poisson_thresholds()
    W = np.zeros(LANES * TILE)
    xbuf = np.empty(TILE)
    qbuf = np.empty(TILE)
    acc = np.zeros(2 * LANES)
    tot = np.zeros(LANES)
    gbuf = np.empty(TILE, dtype=np.uint64)
    stacks = np.zeros((d, CASCADE_LEVELS, 2 * LANES))
    for k0 in range(0, B, LANES):
        nr = min(LANES, B - k0)
        W[:] = 0.0
        tot[:] = 0.0
        count = 0
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            _group_tile(seed, gamma, hashes, i0, c, k0, nr, T, gbuf, W, tot)
            lane_tile_sums(X, shift, i0, c, W, want2, xbuf, qbuf, acc, stacks, count)
            count += 1
        _lane_totals(stacks, count, nr, k0, want2, out1, out2)
        for r in range(nr):
            outw[k0 + r] = tot[r]


# -- one replicate at a time: the references -----------------------------------
@njit(cache=True, nogil=True)
def _weighted_sums(X, shift, cnt, want2, part, stack, out):
    """``out[:d]``: sum of ``cnt[t] * (X[t] - shift)``, ``out[d:]``: of
    ``cnt[t] * (X[t] - shift)**2`` (if ``want2``), in tiles of CASCADE_ROWS rows
    through the cascade; returns the total count.  A zero count adds nothing."""
    m, d = X.shape
    count = 0
    total = 0.0
    for i0 in range(0, m, CASCADE_ROWS):
        c = min(CASCADE_ROWS, m - i0)
        part[:] = 0.0
        for t in range(c):
            w = cnt[i0 + t]
            if w == 0.0:
                continue
            total += w
            for j in range(d):
                v = X[i0 + t, j] - shift[j]
                part[j] += w * v
                if want2:
                    part[d + j] += w * (v * v)
        count = cascade_push(stack, count, part)
    cascade_total(stack, count, out)
    return total


@njit(cache=True, nogil=True)
def exact_rows_one(
    X, shift, seeds, gamma, draws, pool, offsets, sizes, want2, out1, out2, outw
):
    """Per replicate ``k`` (``draws[k, s]`` draws in stratum ``s``, from
    :func:`partition_draws`): ``out1[k]``, ``out2[k]``, ``outw[k]``, the
    count-weighted sums of ``X - shift``, of its square (if ``want2``) and the
    counts' total; the counts as :func:`stratum_row_counts` draws them.  ``X``
    (m, d) C-contiguous float64; the last row of ``out1``/``out2``/``outw``
    (one more than ``draws``) gets the sums with unit counts (the original
    rows).  One replicate at a time, its counts in one double per row: the
    reference :func:`exact_rows_moments` is tested (and timed) against."""
    m, d = X.shape
    B = draws.shape[0]
    cnt = np.ones(m)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    res = np.zeros(2 * d)
    outw[B] = _weighted_sums(X, shift, cnt, True, part, stack, res)
    out1[B] = res[:d]
    out2[B] = res[d:]
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    tmp = np.empty(max(1, np.max(sizes)) if sizes.shape[0] > 1 else 1)
    for k in range(B):
        stratum_row_counts(
            seeds, gamma, np.uint64(k), draws[k], pool, offsets, sizes, buf, tmp, cnt
        )
        outw[k] = _weighted_sums(X, shift, cnt, want2, part, stack, res)
        out1[k] = res[:d]
        out2[k] = res[d:]


@njit(cache=True, nogil=True)
def group_poisson_one(X, shift, seed, gamma, hashes, want2, out1, out2, outw):
    """:func:`exact_rows_one` with each row's count that of its group
    (:func:`group_poisson_counts`), for the ``out1.shape[0] - 1`` replicates:
    the reference of :func:`group_poisson_moments`."""
    m, d = X.shape
    B = out1.shape[0] - 1
    cnt = np.ones(m)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    res = np.zeros(2 * d)
    outw[B] = _weighted_sums(X, shift, cnt, True, part, stack, res)
    out1[B] = res[:d]
    out2[B] = res[d:]
    for k in range(B):
        group_poisson_counts(seed, gamma, np.uint64(k), hashes, cnt)
        outw[k] = _weighted_sums(X, shift, cnt, want2, part, stack, res)
        out1[k] = res[:d]
        out2[k] = res[d:]
