"""Fused numba kernels of the permutation tests (numba code only).

Each fused statistic has a *streaming* kernel (the replicate's permutation drawn
from the stream and reduced at once, no index array) and a kernel that reads
explicit permutations (exact enumeration, and the observed value on the
identity).  Both add the same values in the same order, so a replicate's value
does not depend on the path: sums use eight accumulators indexed by position
modulo 8, combined pairwise, as the bootstrap kernels do.

Two-sample kernels work on the pooled, centred values; sample 1 is positions
``0 .. n1 - 1`` of the shuffled pool, sample 2 the rest.  The forward
Fisher-Yates shuffle fixes position ``t`` at step ``t``, so the mean-difference
kernel stops after ``n1`` steps and never writes position ``t`` (only the swapped
position), and restores the positions it wrote instead of copying the pool.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.metric import eval_packed
from skboot._kernels.permutation import (
    BLOCK,
    fy_block,
    fy_inplace,
    shuffle_pools,
)
from skboot._random import NO_HAVE, mix64, replicate_counter

__all__ = [
    "indep_moments_chunk",
    "indep_moments_perms",
    "indep_sum_chunk",
    "indep_sum_perms",
    "median_chunk",
    "median_perms",
    "metric_perm_chunk",
    "monte_carlo_batch_keys",
    "pairings_dot_chunk",
    "pairings_dot_perms",
    "signs_chunk",
    "signs_perms",
]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_U4 = np.uint64(4)
_U5 = np.uint64(5)
_U6 = np.uint64(6)
_U31 = np.uint64(31)
_U63 = np.uint64(63)
_U7 = np.uint64(7)


@njit(cache=True, inline="always")
def _combine(acc):
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + (
        (acc[4] + acc[5]) + (acc[6] + acc[7])
    )


@njit(cache=True, inline="always")
def _pair8(s0, s1, s2, s3, s4, s5, s6, s7):
    """The eight accumulators combined as :func:`_combine` does."""
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(cache=True, inline="always")
def _sum8(a, lo, hi):
    """Sum of ``a[lo:hi]``, accumulator ``(i - lo) & 7`` (eight scalars: an
    accumulator array is kept in memory, measured 1.5x slower)."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    t = lo
    while t + 8 <= hi:
        s0 += a[t]
        s1 += a[t + 1]
        s2 += a[t + 2]
        s3 += a[t + 3]
        s4 += a[t + 4]
        s5 += a[t + 5]
        s6 += a[t + 6]
        s7 += a[t + 7]
        t += 8
    # the last at most seven values, to accumulators 0, 1, ... in order
    if t < hi:
        s0 += a[t]
    if t + 1 < hi:
        s1 += a[t + 1]
    if t + 2 < hi:
        s2 += a[t + 2]
    if t + 3 < hi:
        s3 += a[t + 3]
    if t + 4 < hi:
        s4 += a[t + 4]
    if t + 5 < hi:
        s5 += a[t + 5]
    if t + 6 < hi:
        s6 += a[t + 6]
    return _pair8(s0, s1, s2, s3, s4, s5, s6, s7)


@njit(cache=True, inline="always")
def _sq(v):
    return v * v


@njit(cache=True, inline="always")
def _ss8(a, lo, hi, mean):
    """Sum of ``(a[i] - mean)**2`` over ``a[lo:hi]``, same accumulator rule."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    t = lo
    while t + 8 <= hi:
        s0 += _sq(a[t] - mean)
        s1 += _sq(a[t + 1] - mean)
        s2 += _sq(a[t + 2] - mean)
        s3 += _sq(a[t + 3] - mean)
        s4 += _sq(a[t + 4] - mean)
        s5 += _sq(a[t + 5] - mean)
        s6 += _sq(a[t + 6] - mean)
        s7 += _sq(a[t + 7] - mean)
        t += 8
    if t < hi:
        s0 += _sq(a[t] - mean)
    if t + 1 < hi:
        s1 += _sq(a[t + 1] - mean)
    if t + 2 < hi:
        s2 += _sq(a[t + 2] - mean)
    if t + 3 < hi:
        s3 += _sq(a[t + 3] - mean)
    if t + 4 < hi:
        s4 += _sq(a[t + 4] - mean)
    if t + 5 < hi:
        s5 += _sq(a[t + 5] - mean)
    if t + 6 < hi:
        s6 += _sq(a[t + 6] - mean)
    return _pair8(s0, s1, s2, s3, s4, s5, s6, s7)


@njit(cache=True, inline="always")
def _fy_take(work, touched, p, r):
    """Step ``p`` of the forward shuffle with draw ``r``: the value that lands
    at position ``p`` (final; never written back), its source noted in
    ``touched`` (unsigned positions: no negative-index wraparound code, 35%)."""
    j = p + r
    v = work[j]
    work[j] = work[p]
    touched[p] = j
    return v


# ---------------------------------------------------------------------------
# independent samples: sum of sample 1 (difference of means)
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def indep_sum_chunk(seed, gamma, b0, vals, n1, out):
    """``out[k, 0]``: sum of the first ``n1`` shuffled values of replicate
    ``b0 + k`` (positions ``0 .. n1 - 1`` of the pool's forward Fisher-Yates
    shuffle)."""
    N = vals.shape[0]
    work = vals.copy()
    buf = np.empty(BLOCK, dtype=np.uint64)
    touched = np.empty(max(n1, 1), dtype=np.uint64)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        i = 0
        while i < n1:
            c = min(BLOCK, n1 - i)
            ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, N - i, c, buf)
            base = np.uint64(i)  # a multiple of 8 (BLOCK is): p & 7 == u & 7
            c8 = c - (c & 7)
            for u in range(0, c8, 8):
                # eight steps, position p's value to accumulator p & 7 (scalars:
                # an accumulator array stays in memory, measured 1.2x slower)
                p = base + np.uint64(u)
                s0 += _fy_take(work, touched, p, buf[u])
                s1 += _fy_take(work, touched, p + _U1, buf[u + 1])
                s2 += _fy_take(work, touched, p + _U2, buf[u + 2])
                s3 += _fy_take(work, touched, p + _U3, buf[u + 3])
                s4 += _fy_take(work, touched, p + _U4, buf[u + 4])
                s5 += _fy_take(work, touched, p + _U5, buf[u + 5])
                s6 += _fy_take(work, touched, p + _U6, buf[u + 6])
                s7 += _fy_take(work, touched, p + _U7, buf[u + 7])
            for u in range(c8, c):  # the last at most seven steps
                v = _fy_take(work, touched, base + np.uint64(u), buf[u])
                r = u & 7
                if r == 0:
                    s0 += v
                elif r == 1:
                    s1 += v
                elif r == 2:
                    s2 += v
                elif r == 3:
                    s3 += v
                elif r == 4:
                    s4 += v
                elif r == 5:
                    s5 += v
                else:
                    s6 += v
            i += c
        for q in range(n1):
            j = touched[q]
            work[j] = vals[j]
        out[k, 0] = _pair8(s0, s1, s2, s3, s4, s5, s6, s7)


@njit(cache=True, nogil=True)
def indep_sum_perms(vals, perms, n1, out):
    """:func:`indep_sum_chunk` from explicit permutations (rows of ``perms``)."""
    acc = np.zeros(8)
    for k in range(perms.shape[0]):
        acc[:] = 0.0
        row = perms[k]
        for p in range(n1):
            acc[p & 7] += vals[row[p]]
        out[k, 0] = _combine(acc)


# ---------------------------------------------------------------------------
# independent samples: means and sums of squares of both samples (t statistics)
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _two_sample_moments(work, n1, out_row):
    N = work.shape[0]
    s1 = _sum8(work, 0, n1)
    s2 = _sum8(work, n1, N)
    m1 = s1 / n1
    m2 = s2 / (N - n1)
    out_row[0] = m1
    out_row[1] = m2
    out_row[2] = _ss8(work, 0, n1, m1)
    out_row[3] = _ss8(work, n1, N, m2)


@njit(cache=True, nogil=True)
def indep_moments_chunk(seed, gamma, b0, vals, n1, out):
    """``out[k] = (mean_1, mean_2, ss_1, ss_2)`` of replicate ``b0 + k``:
    sample means and sums of squared deviations (two passes), sample 1 the
    first ``n1`` positions of the shuffled pool."""
    N = vals.shape[0]
    work = vals.copy()
    buf = np.empty(BLOCK, dtype=np.uint64)
    steps = min(n1, N - 1)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        i = 0
        while i < steps:
            c = min(BLOCK, steps - i)
            ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, N - i, c, buf)
            base = np.uint64(i)
            for u in range(c):
                p = base + np.uint64(u)
                j = p + buf[u]
                v = work[j]
                work[j] = work[p]
                work[p] = v
            i += c
        _two_sample_moments(work, n1, out[k])
        work[:] = vals


@njit(cache=True, nogil=True)
def indep_moments_perms(vals, perms, n1, out):
    """:func:`indep_moments_chunk` from explicit permutations."""
    N = vals.shape[0]
    work = np.empty(N)
    for k in range(perms.shape[0]):
        row = perms[k]
        for p in range(N):
            work[p] = vals[row[p]]
        _two_sample_moments(work, n1, out[k])


# ---------------------------------------------------------------------------
# independent samples: medians of both samples
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _two_medians(in1, order, sorted_vals, n1, n2, out_row):
    """Medians of the rows flagged in ``in1`` and of the others, by one scan of
    the pool in sorted order; even sizes average the two middle values as
    ``numpy.median`` does, ``(a + b) / 2``."""
    lo1 = (n1 - 1) // 2
    hi1 = n1 // 2
    lo2 = (n2 - 1) // 2
    hi2 = n2 // 2
    c1 = 0
    c2 = 0
    a1 = b1 = a2 = b2 = 0.0
    for t in range(order.shape[0]):
        v = sorted_vals[t]
        if in1[order[t]]:
            if c1 == lo1:
                a1 = v
            if c1 == hi1:
                b1 = v
            c1 += 1
        else:
            if c2 == lo2:
                a2 = v
            if c2 == hi2:
                b2 = v
            c2 += 1
    out_row[0] = a1 if lo1 == hi1 else (a1 + b1) / 2.0
    out_row[1] = a2 if lo2 == hi2 else (a2 + b2) / 2.0


@njit(cache=True, nogil=True)
def median_chunk(seed, gamma, b0, order, sorted_vals, n1, out):
    """``out[k] = (median_1, median_2)`` of replicate ``b0 + k``.  ``order``
    sorts the pool, ``sorted_vals`` is the pool in that order; O(N) per
    replicate (no sort)."""
    N = order.shape[0]
    idx = np.arange(N)
    buf = np.empty(BLOCK, dtype=np.uint64)
    in1 = np.zeros(N, dtype=np.bool_)
    touched = np.empty(max(n1, 1), dtype=np.uint64)
    steps = min(n1, N - 1)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        i = 0
        while i < steps:
            c = min(BLOCK, steps - i)
            ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, N - i, c, buf)
            base = np.uint64(i)
            for u in range(c):
                p = base + np.uint64(u)
                j = p + buf[u]
                v = idx[j]
                idx[j] = idx[p]
                idx[p] = v
                touched[p] = j
            i += c
        for p in range(n1):
            in1[idx[p]] = True
        _two_medians(in1, order, sorted_vals, n1, N - n1, out[k])
        for p in range(n1):
            in1[idx[p]] = False
        for q in range(steps):
            j = touched[q]
            idx[j] = np.int64(j)
            idx[q] = q


@njit(cache=True, nogil=True)
def median_perms(perms, order, sorted_vals, n1, out):
    """:func:`median_chunk` from explicit permutations."""
    N = order.shape[0]
    in1 = np.zeros(N, dtype=np.bool_)
    for k in range(perms.shape[0]):
        row = perms[k]
        for p in range(n1):
            in1[row[p]] = True
        _two_medians(in1, order, sorted_vals, n1, N - n1, out[k])
        for p in range(n1):
            in1[row[p]] = False


# ---------------------------------------------------------------------------
# pairings: cross product of two shuffled samples (correlation)
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def pairings_dot_chunk(seed, gamma, b0, x, y, out):
    """``out[k, 0] = sum_i x[p0[i]] * y[p1[i]]`` with ``p0``, ``p1`` the two
    shuffles of replicate ``b0 + k`` (x's first, the draws consecutive)."""
    n = x.shape[0]
    wx = x.copy()
    wy = y.copy()
    buf = np.empty(BLOCK, dtype=np.uint64)
    prod = np.empty(n)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        ctr, have, lo = fy_inplace(seed, gamma, ctr, have, lo, wx, buf)
        ctr, have, lo = fy_inplace(seed, gamma, ctr, have, lo, wy, buf)
        for i in range(n):
            prod[i] = wx[i] * wy[i]
        out[k, 0] = _sum8(prod, 0, n)
        wx[:] = x
        wy[:] = y


@njit(cache=True, nogil=True)
def pairings_dot_perms(x, y, perms, out):
    """:func:`pairings_dot_chunk` from explicit permutations ``(nb, 2, n)``."""
    acc = np.zeros(8)
    for k in range(perms.shape[0]):
        p0 = perms[k, 0]
        p1 = perms[k, 1]
        acc[:] = 0.0
        for i in range(x.shape[0]):
            acc[i & 7] += x[p0[i]] * y[p1[i]]
        out[k, 0] = _combine(acc)


# ---------------------------------------------------------------------------
# samples (paired): sign flips of the differences
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _signed_moments(d, sign, out_row):
    """Mean and sum of squared deviations of ``sign * d`` (``sign`` is +-1.0, so
    the products are exact negations; no data-dependent branch).  ``sign`` is
    overwritten by the products."""
    n = d.shape[0]
    for i in range(n):
        sign[i] *= d[i]
    mean = _sum8(sign, 0, n) / n
    out_row[0] = mean
    out_row[1] = _ss8(sign, 0, n, mean)


@njit(cache=True, nogil=True)
def signs_chunk(seed, gamma, b0, d, out):
    """``out[k] = (mean, ss)`` of ``s_i d_i`` for replicate ``b0 + k``, with
    ``s_i = -1`` when observation ``i``'s draw ``bounded(2)`` is 1 (its pair
    swapped).  ``bounded(2)`` never rejects (``2**32 mod 2 = 0``) and is the top
    bit of its word, so draw ``2t`` is bit 63 and draw ``2t + 1`` bit 31 of
    output ``t``."""
    n = d.shape[0]
    half = (n + 1) // 2
    sign = np.ones(2 * half)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        for t in range(half):
            z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
            sign[2 * t] = np.float64(1 - 2 * np.int64(z >> _U63))
            sign[2 * t + 1] = np.float64(1 - 2 * np.int64((z >> _U31) & _U1))
        _signed_moments(d, sign, out[k])


@njit(cache=True, nogil=True)
def signs_perms(d, assign, out):
    """:func:`signs_chunk` from explicit assignments ``(nb, n, 2)``: observation
    ``i`` is flipped when ``assign[k, i, 0] == 1``."""
    n = d.shape[0]
    sign = np.ones(n)
    for k in range(assign.shape[0]):
        for i in range(n):
            sign[i] = -1.0 if assign[k, i, 0] == 1 else 1.0
        _signed_moments(d, sign, out[k])


# ---------------------------------------------------------------------------
# model metrics with permuted labels
# ---------------------------------------------------------------------------
#: How a metric's label-dependent arrays are rebuilt per permutation.
MODE_TABLE, MODE_SQ, MODE_ABS, MODE_R2, MODE_BACC, MODE_PRF, MODE_RANK = range(7)


@njit(cache=True, nogil=True)
def metric_perm_chunk(
    seed,
    gamma,
    b0,
    pools,
    offsets,
    sizes,
    p,
    mode,
    lab_f,
    lab_i,
    lab_i2,
    aux_f,
    aux_i,
    table,
    out,
):
    """``out[k, 0]``: the packed metric ``p`` (see
    :func:`skboot.metrics.pack`) with the labels of replicate ``b0 + k``
    permuted within groups: row ``i`` gets the label of row ``perm[i]``.

    ``mode`` says which of the packed arrays depend on the labels and how they
    are rebuilt from the per-row label data (``lab_*``) and the fixed
    prediction data (``aux_*``, ``table``); the metric is then evaluated by
    :func:`skboot._kernels.metric.eval_packed` with unit weights.
    """
    n = pools.shape[0]
    perm = np.empty(n, dtype=np.int64)
    tmp = np.empty(n, dtype=np.int64)
    buf = np.empty(BLOCK, dtype=np.uint64)
    ones = np.ones(n)
    f0 = p[1].copy()
    f1 = p[2].copy()
    i0 = p[3].copy()
    i1 = p[4].copy()
    if f0.shape[0] < n:
        f0 = np.empty(n)
    if f1.shape[0] < n and mode == MODE_R2:
        f1 = np.empty(n)
    if i0.shape[0] < n and mode in (MODE_BACC, MODE_PRF):
        i0 = np.empty(n, dtype=np.int64)
    q = (p[0], f0, f1, i0, i1, p[5], p[6], p[7], p[8])
    for k in range(out.shape[0]):
        shuffle_pools(seed, gamma, b0 + k, pools, offsets, sizes, tmp, buf, perm)
        if mode == MODE_TABLE:
            for i in range(n):
                f0[i] = table[i, lab_i[perm[i]]]
        elif mode == MODE_SQ:
            for i in range(n):
                f0[i] = (lab_f[perm[i]] - aux_f[i]) ** 2
        elif mode == MODE_ABS:
            for i in range(n):
                f0[i] = abs(aux_f[i] - lab_f[perm[i]])
        elif mode == MODE_R2:
            for i in range(n):
                v = lab_f[perm[i]]
                f0[i] = v
                f1[i] = (v - aux_f[i]) ** 2
        elif mode == MODE_BACC:
            for i in range(n):
                r = perm[i]
                i0[i] = lab_i[r]
                f0[i] = 1.0 if lab_i2[r] == aux_i[i] else 0.0
        elif mode == MODE_PRF:
            for i in range(n):
                i0[i] = lab_i[perm[i]]
        else:  # ranking: labels in the fixed score order
            order = p[3]
            for t in range(n):
                f0[t] = lab_f[perm[order[t]]]
        out[k, 0] = eval_packed(q, ones)


# ---------------------------------------------------------------------------
# Monte Carlo tests
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def monte_carlo_batch_keys(seed, gamma, j0, out):
    """``out[i] = (z_2, z_3)``: the third and fourth SplitMix64 outputs at
    position ``j0 + i`` (its words 4-7), the 128-bit Philox key of batch
    ``j0 + i``'s generator.  Words 4-7, not 0-3: a batch key is never the key
    read from words 0-3 at any position, so it cannot coincide with a key
    derived per replicate."""
    for i in range(out.shape[0]):
        ctr = replicate_counter(j0 + i)
        out[i, 0] = mix64(seed + (ctr + _U3) * gamma)
        out[i, 1] = mix64(seed + (ctr + _U4) * gamma)
