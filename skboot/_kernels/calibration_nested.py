"""The double bootstrap of the calibrated intervals fused for the resamplers that
nest other than the iid bootstrap (stratified, group, Poisson, moving,
circular, non-overlapping, stationary), for the moment statistics ("sum",
"mean", "proportion", "var", "std").

For each outer replicate ``b`` a driver regenerates its rows from the plan's
stream, then runs the ``n_inner`` inner replicates (replicate numbers ``b *
n_inner + c`` of the nested key's streams) through the plan's own fused-moments
kernel on those rows, and counts per column how many inner values ``t**``
satisfy ``t** <= t_hat`` and ``t** - t*_b <= t*_b - t_hat``.  The working set is
one outer replicate's rows and ``n_inner`` rows of sums; no Python object is
made per outer replicate.

Every number is the one the per-replicate path computes (a statistic rebuilt on
the outer replicate's rows, evaluated by the engine's chunk code), bit for bit:

* the outer replicate's shift is :func:`skboot._engine.centre_of` of its rows
  (the column mean, rounded half to even where every value is an integer);
* its value ``t*_b`` is numpy's (``mean``, ``sum``, ``var``, ``std`` along axis
  0 of the rows), so the column sums follow numpy's order: pairwise
  summation (eight accumulators, blocks of 128, halves rounded down to a
  multiple of 8) for one column, row after row for several;
* the inner values come from the plan's fused-moments kernel on the centred
  rows, turned into statistics by the formula of
  :func:`skboot._engine.moments_to_values`.

A driver returns the position of the first outer replicate where any of these
is not finite (an empty Poisson replicate, a variance without degrees of
freedom), or -1; the caller evaluates that replicate by the per-replicate path
(which reports it) and resumes after it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.block import (
    fixed_indices_chunk,
    fixed_moments,
    stationary_indices_chunk,
    stationary_moments,
)
from skboot._kernels.fused_strata import pool_moments
from skboot._kernels.fused_weights import group_moments, poisson_moments
from skboot._kernels.resample import expand_groups
from skboot._random import fill_indices_kernel, fill_poisson_counts, fill_pool_indices

__all__ = [
    "fixed_nested_counts",
    "group_nested_counts",
    "numpy_column_sum",
    "numpy_moment",
    "poisson_nested_counts",
    "rows_centre",
    "stationary_nested_counts",
    "strata_nested_counts",
]

#: numpy's pairwise-summation block (``PW_BLOCKSIZE``)
_PW_BLOCK = 128


# ---------------------------------------------------------------------------
# numpy's arithmetic on the rows of one outer replicate
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _pairwise_leaf(a, lo, n):
    """numpy's sum of at most 128 values ``a[lo:lo + n]``: sequential below 8
    values, else eight interleaved accumulators, joined pairwise, then the
    values past the last multiple of 8."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    top = n - n % 8
    while i < top:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def _pairwise(a):
    """numpy's pairwise sum of the 1-D ``a`` (``pairwise_sum`` of its add
    reduction): a run of more than 128 values is split in two, the first part
    ``n // 2`` rounded down to a multiple of 8, and the parts' sums are added.

    The recursion is unrolled on an explicit stack (a recursive function does
    not load from numba's cache): a frame is a run ``(lo, n)`` or, with ``n =
    -1``, the addition of the two sums on top of the value stack (addition is
    commutative, so the order in which the parts are summed does not matter).
    """
    los = np.empty(128, dtype=np.int64)
    ns = np.empty(128, dtype=np.int64)
    vals = np.empty(64)
    top = 0
    nv = 0
    los[0] = 0
    ns[0] = a.shape[0]
    top = 1
    while top > 0:
        top -= 1
        lo = los[top]
        n = ns[top]
        if n < 0:
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
        elif n <= _PW_BLOCK:
            vals[nv] = _pairwise_leaf(a, lo, n)
            nv += 1
        else:
            n2 = n // 2
            n2 -= n2 % 8
            ns[top] = -1
            los[top + 1] = lo + n2
            ns[top + 1] = n - n2
            los[top + 2] = lo
            ns[top + 2] = n2
            top += 3
    return vals[0]


@njit(cache=True, nogil=True)
def numpy_column_sum(X, j):
    """``np.add.reduce(X, axis=0)[j]`` of a C-contiguous float64 (m, d) ``X``:
    pairwise over the one column when ``d == 1``, row by row otherwise."""
    m, d = X.shape
    if d == 1:
        return _pairwise(X[:, 0])
    s = 0.0
    for i in range(m):
        s += X[i, j]
    return s


@njit(cache=True, nogil=True)
def _round_half_even(x):
    """``np.round(x)`` (to the nearest integer, ties to even)."""
    f = np.floor(x)
    diff = x - f  # exact
    if diff > 0.5 or (diff == 0.5 and f % 2.0 != 0.0):
        return f + 1.0
    return f


@njit(cache=True, nogil=True)
def rows_centre(X, shift):
    """``shift[j]``: :func:`skboot._engine.centre_of` of the finite (m, d) ``X``
    (m >= 1), the column mean rounded half to even when every value of the
    column is an integer.  Returns False (shift unspecified) when a mean is not
    finite (``centre_of`` then takes another path)."""
    m, d = X.shape
    for j in range(d):
        mu = numpy_column_sum(X, j) / m
        if not np.isfinite(mu):
            return False
        integral = True
        for i in range(m):
            v = X[i, j]
            if v != np.floor(v) and v == v:
                integral = False
                break
        shift[j] = _round_half_even(mu) if integral else mu
    return True


@njit(cache=True, nogil=True)
def numpy_moment(X, j, kind, ddof, tmp):
    """numpy's ``sum``/``mean``/``var``/``std`` (``kind`` 0/1/2/3, ``ddof``)
    of column ``j`` of the C-contiguous (m, d) ``X``, m >= 1; ``tmp`` (m, d)
    scratch for the squared deviations.  NaN where numpy divides by no
    degrees of freedom."""
    m = X.shape[0]
    s = numpy_column_sum(X, j)
    if kind == 0:
        return s
    mean = s / m
    if kind == 1:
        return mean
    if m - ddof <= 0:
        return np.nan
    for i in range(m):
        dev = X[i, j] - mean
        tmp[i, j] = dev * dev
    var = numpy_column_sum(tmp, j) / float(m - ddof)
    return var if kind == 2 else np.sqrt(var)


@njit(cache=True, nogil=True)
def _outer_rows(X, rows, kind, ddof, shift, star):
    """The centred rows of one outer replicate (its rows ``X[rows]`` minus their
    shift), its shift and its value ``star`` (numpy's); None where the shift
    or the value is not finite or the replicate is empty."""
    m = rows.shape[0]
    d = X.shape[1]
    if m == 0:
        return None
    Xb = np.empty((m, d))
    for i in range(m):
        r = rows[i]
        for j in range(d):
            Xb[i, j] = X[r, j]
    if not rows_centre(Xb, shift):
        return None
    tmp = np.empty((m, d)) if kind >= 2 else Xb
    for j in range(d):
        star[j] = numpy_moment(Xb, j, kind, ddof, tmp)
        if not np.isfinite(star[j]):
            return None
    Xc = np.empty((m, d))
    for i in range(m):
        for j in range(d):
            Xc[i, j] = Xb[i, j] - shift[j]
    return Xc


# ---------------------------------------------------------------------------
# the inner values and their counts
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _inner_value(kind, s1, s2, sw, shift, ddof):
    """:func:`skboot._engine.moments_to_values` of one replicate and column."""
    if kind == 0:
        return s1 + sw * shift
    if kind == 1:
        return (s1 + sw * shift) / sw if sw > 0 else np.nan
    dof = sw - ddof
    if not (dof > 0 and sw > 0):
        return np.nan
    var = max((s2 - s1 * s1 / sw) / dof, 0.0)
    return var if kind == 2 else np.sqrt(var)


@njit(cache=True, nogil=True)
def _count(kind, ddof, s1, s2, sw, shift, est, star, cu, cv):
    """Counts of one outer replicate into ``cu``, ``cv`` (length d); False when
    an inner value is not finite."""
    d = est.shape[0]
    for j in range(d):
        cu[j] = 0
        cv[j] = 0
    for c in range(sw.shape[0]):
        for j in range(d):
            value = _inner_value(kind, s1[c, j], s2[c, j], sw[c], shift[j], ddof)
            if not np.isfinite(value):
                return False
            if value <= est[j]:
                cu[j] += 1
            if value - star[j] <= star[j] - est[j]:
                cv[j] += 1
    return True


# ---------------------------------------------------------------------------
# the drivers, one per scheme
# ---------------------------------------------------------------------------
# Common arguments: ``X`` the data (C-contiguous float64 (n, d), not centred),
# ``est`` the estimate (d,), ``kind``/``ddof`` the statistic, ``b0`` the first
# outer replicate, ``n_inner``; then the scheme's outer and inner stream
# arguments; ``cu``/``cv`` (int64, (nb, d)) receive replicates ``b0 ..
# b0 + nb - 1``.  The return value: see the module notes.


@njit(cache=True, nogil=True)
def poisson_nested_counts(
    X, est, kind, ddof, b0, n_inner, seed, gamma, seed_in, gamma_in, cu, cv
):
    """Poisson: the outer replicate's rows are each row repeated by its count;
    each of those row copies gets its own Poisson(1) count in an inner
    replicate (:func:`skboot._kernels.fused_weights.poisson_moments`)."""
    n, d = X.shape
    counts = np.empty(n, dtype=np.int64)
    s1 = np.empty((n_inner, d))
    s2 = np.empty((n_inner, d))
    sw = np.empty(n_inner)
    shift = np.empty(d)
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        fill_poisson_counts(seed, gamma, b, counts)
        rows = np.empty(counts.sum(), dtype=np.int64)
        t = 0
        for i in range(n):
            for _ in range(counts[i]):
                rows[t] = i
                t += 1
        Xc = _outer_rows(X, rows, kind, ddof, shift, star)
        if Xc is None:
            return r
        poisson_moments(Xc, seed_in, gamma_in, b * n_inner, kind >= 2, s1, s2, sw)
        if not _count(kind, ddof, s1, s2, sw, shift, est, star, cu[r], cv[r]):
            return r
    return -1


@njit(cache=True, nogil=True)
def strata_nested_counts(
    X,
    est,
    kind,
    ddof,
    b0,
    n_inner,
    seed,
    gamma,
    seed_in,
    gamma_in,
    codes,
    pools,
    offsets,
    sizes,
    like,
    cu,
    cv,
):
    """Stratified: slot ``i`` of the outer replicate holds a row of row ``i``'s
    stratum, so the same strata resample it
    (:func:`skboot._kernels.fused_strata.pool_moments`)."""
    n, d = X.shape
    rows = np.empty(n, dtype=np.int64)
    s1 = np.empty((n_inner, d))
    s2 = np.empty((n_inner, d))
    sw = np.empty(n_inner)
    shift = np.empty(d)
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        fill_pool_indices(seed, gamma, b, codes, pools, offsets, sizes, rows)
        Xc = _outer_rows(X, rows, kind, ddof, shift, star)
        if Xc is None:
            return r
        pool_moments(
            Xc,
            seed_in,
            gamma_in,
            b * n_inner,
            codes,
            pools,
            offsets,
            sizes,
            like,
            kind >= 2,
            s1,
            s2,
            sw,
        )
        if not _count(kind, ddof, s1, s2, sw, shift, est, star, cu[r], cv[r]):
            return r
    return -1


@njit(cache=True, nogil=True)
def group_nested_counts(
    X,
    est,
    kind,
    ddof,
    b0,
    n_inner,
    seed,
    gamma,
    seed_in,
    gamma_in,
    pools,
    offsets,
    sizes,
    cu,
    cv,
):
    """Group: the outer replicate's rows are its drawn groups' rows in draw
    order, and each drawn group (a group drawn twice gives two) is one group
    of the inner replicates (:func:`skboot._kernels.fused_weights.group_moments`)."""
    d = X.shape[1]
    G = sizes.shape[0]
    draws = np.empty(G, dtype=np.int64)
    drawn_sizes = np.empty(G, dtype=np.int64)
    s1 = np.empty((n_inner, d))
    s2 = np.empty((n_inner, d))
    sw = np.empty(n_inner)
    shift = np.empty(d)
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(G), draws)
        rows = expand_groups(draws, pools, offsets, sizes)
        codes = np.empty(rows.shape[0], dtype=np.int64)
        t = 0
        for g in range(G):
            drawn_sizes[g] = sizes[draws[g]]
            for _ in range(drawn_sizes[g]):
                codes[t] = g
                t += 1
        Xc = _outer_rows(X, rows, kind, ddof, shift, star)
        if Xc is None:
            return r
        group_moments(
            Xc,
            seed_in,
            gamma_in,
            b * n_inner,
            codes,
            drawn_sizes,
            kind >= 2,
            s1,
            s2,
            sw,
        )
        if not _count(kind, ddof, s1, s2, sw, shift, est, star, cu[r], cv[r]):
            return r
    return -1


@njit(cache=True, nogil=True)
def fixed_nested_counts(
    X,
    est,
    kind,
    ddof,
    b0,
    n_inner,
    seed,
    gamma,
    seed_in,
    gamma_in,
    L,
    n_starts,
    stride,
    cu,
    cv,
):
    """Moving, circular and non-overlapping blocks: blocks of the same length
    drawn from the outer replicate's series
    (:func:`skboot._kernels.block.fixed_moments`)."""
    n, d = X.shape
    rows = np.empty((1, n), dtype=np.int64)
    s1 = np.empty((n_inner, d))
    s2 = np.empty((n_inner, d))
    sw = np.empty(n_inner)
    shift = np.empty(d)
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        fixed_indices_chunk(seed, gamma, b, n, L, n_starts, stride, rows)
        Xc = _outer_rows(X, rows[0], kind, ddof, shift, star)
        if Xc is None:
            return r
        fixed_moments(
            Xc,
            seed_in,
            gamma_in,
            b * n_inner,
            L,
            n_starts,
            stride,
            kind >= 2,
            s1,
            s2,
            sw,
        )
        if not _count(kind, ddof, s1, s2, sw, shift, est, star, cu[r], cv[r]):
            return r
    return -1


@njit(cache=True, nogil=True)
def stationary_nested_counts(
    X,
    est,
    kind,
    ddof,
    b0,
    n_inner,
    seed_s,
    seed_l,
    gamma,
    seed_s_in,
    seed_l_in,
    gamma_in,
    p,
    log_q,
    cu,
    cv,
):
    """Stationary: geometric blocks of the same mean length drawn from the
    outer replicate's series (:func:`skboot._kernels.block.stationary_moments`)."""
    n, d = X.shape
    rows = np.empty((1, n), dtype=np.int64)
    s1 = np.empty((n_inner, d))
    s2 = np.empty((n_inner, d))
    sw = np.empty(n_inner)
    shift = np.empty(d)
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        stationary_indices_chunk(seed_s, seed_l, gamma, b, n, p, log_q, rows)
        Xc = _outer_rows(X, rows[0], kind, ddof, shift, star)
        if Xc is None:
            return r
        stationary_moments(
            Xc,
            seed_s_in,
            seed_l_in,
            gamma_in,
            b * n_inner,
            p,
            log_q,
            kind >= 2,
            s1,
            s2,
            sw,
        )
        if not _count(kind, ddof, s1, s2, sw, shift, est, star, cu[r], cv[r]):
            return r
    return -1
