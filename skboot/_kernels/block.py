"""Numba kernels of the block bootstraps.

Every kernel regenerates replicate ``b`` from the counter-based stream of
:mod:`skboot._random`; nothing depends on the chunk a replicate falls in, so results
are bit-identical for any chunk size, ``n_jobs`` or backend.

Three outputs per scheme family (fixed-length blocks: moving, circular,
non-overlapping; geometric blocks: stationary; tapered blocks):

* ``*_indices_chunk``: row ``k`` of a 2-D int array gets the ``n`` row indices of
  replicate ``b0 + k``;
* ``*_counts_chunk`` / ``tapered_weights_chunk``: row ``k`` of a float64
  ``(nb, n)`` array gets the per-row multiplicities (or tapered weights);
* ``*_moments``: the fused prefix-sum path.  Column sums of ``X`` and ``X**2`` are
  accumulated once per call (O(n d)) in two parts, ``P + Q`` (Neumaier's
  compensation, :func:`prefix_sums_compensated`); a block ``[s, e)`` then
  contributes ``(P[e] - P[s]) + (Q[e] - Q[s])`` (plus the wrapped part), so a
  replicate costs O(n / L * d).  Blocks are added in draw order, ``BLOCK_TILE``
  at a time, and those partial sums pairwise (:mod:`skboot._kernels.cascade`), so
  a replicate's value depends only on ``b`` and is about as precise as numpy's
  pairwise sum of the replicate's rows (at n = 100,000 and blocks of 10, var
  within a few ulps; sequential prefix sums were 90-150 ulps off).
  The engine passes centred data (``x - c``, :func:`skboot._engine.centre_of`):
  prefix sums of uncentred data would carry rounding errors of the size of the
  offset times ``n`` into every block difference.

Kernels use int64/float64 scalars, uint64 seeds, and release the GIL.  The walk
over a replicate's blocks (:func:`fixed_starts` or :func:`stationary_blocks`, then
one loop over the blocks) is written inline in each kernel, as the iid kernels'
draw loop is (:mod:`skboot._kernels.iid`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    CASCADE_ROWS,
    cascade_push,
    cascade_total,
    neumaier_add,
)
from skboot._random import (
    NO_HAVE,
    draw_block,
    fill_indices_kernel,
    lemire_threshold,
    replicate_counter,
    uniform_at,
)

# Typed (non-literal) constants, as in skboot._random: a bare ``True``/``1`` passed
# to a numba function compiles an extra Literal-typed specialization of it.
_YES = np.bool_(True)
_NO = np.bool_(False)
_I1 = np.int64(1)
#: A replicate's block sums are added in sequence this many at a time; these
#: partial sums then go through the pairwise cascade (skboot._kernels.cascade).
BLOCK_TILE = 8

__all__ = [
    "BLOCK_TILE",
    "SB_BATCH",
    "fixed_counts_chunk",
    "fixed_indices_chunk",
    "fixed_moments",
    "fixed_starts",
    "prefix_sums",
    "prefix_sums_compensated",
    "stationary_blocks",
    "stationary_counts_chunk",
    "stationary_indices_chunk",
    "stationary_moments",
    "tapered_moments",
    "tapered_weights_chunk",
]


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def prefix_sums(X, want2):
    """``P1[i] = X[:i].sum(0)`` and (if ``want2``) ``P2[i] = (X[:i]**2).sum(0)``,
    accumulated in row order; shape (n + 1, d)."""
    n, d = X.shape
    P1 = np.empty((n + 1, d))
    P2 = np.empty((n + 1, d) if want2 else (1, d))
    for c in range(d):
        P1[0, c] = 0.0
        P2[0, c] = 0.0
    for i in range(n):
        for c in range(d):
            v = X[i, c]
            P1[i + 1, c] = P1[i, c] + v
            if want2:
                P2[i + 1, c] = P2[i, c] + v * v
    return P1, P2


@njit(cache=True, nogil=True)
def prefix_sums_compensated(X, want2):
    """Prefix sums in two parts: ``P1[i, c] + P1[i, d + c]`` is ``X[:i, c].sum()``
    (and ``P2`` likewise of ``X**2``, if ``want2``) to about one rounding of the
    sum (Neumaier's compensation: the second half holds the rounding errors of
    the first half's adds, next to it in memory), so a block's sum is accurate to
    about an ulp of the block sum rather than of the prefix sum.  Shapes
    (n + 1, 2d)."""
    n, d = X.shape
    P1 = np.zeros((n + 1, 2 * d))
    P2 = np.zeros((n + 1 if want2 else 1, 2 * d))
    for i in range(n):
        for c in range(d):
            v = X[i, c]
            P1[i + 1, c], P1[i + 1, d + c] = neumaier_add(P1[i, c], P1[i, d + c], v)
            if want2:
                P2[i + 1, c], P2[i + 1, d + c] = neumaier_add(
                    P2[i, c], P2[i, d + c], v * v
                )
    return P1, P2


@njit(cache=True, nogil=True, inline="always")
def _add_block(P, s, e, n, acc):
    """``acc += sum of rows s .. e-1`` (mod n) from compensated prefix sums ``P``
    (:func:`prefix_sums_compensated`); e <= 2n."""
    d = acc.shape[0]
    if e <= n:
        for c in range(d):
            acc[c] += (P[e, c] - P[s, c]) + (P[e, d + c] - P[s, d + c])
    else:
        for c in range(d):
            acc[c] += ((P[n, c] - P[s, c]) + (P[n, d + c] - P[s, d + c])) + (
                P[e - n, c] + P[e - n, d + c]
            )


@njit(cache=True, nogil=True, inline="always")
def _block_sum(P, s, e, n):
    """Column 0's sum of rows s .. e-1 (mod n) from compensated prefix sums ``P``
    of one column (:func:`_add_block` for d == 1, same operations)."""
    if e <= n:
        return (P[e, 0] - P[s, 0]) + (P[e, 1] - P[s, 1])
    return ((P[n, 0] - P[s, 0]) + (P[n, 1] - P[s, 1])) + (P[e - n, 0] + P[e - n, 1])


@njit(cache=True, nogil=True, inline="always")
def _write_blocks_total(nblk, count, part, stack, a1, a2):
    """The last, partial tile into the cascade, then its total into ``a1`` (sums)
    and ``a2`` (sums of squares)."""
    d = a1.shape[0]
    if nblk:
        count = cascade_push(stack, count, part)
    cascade_total(stack, count, part)
    for c in range(d):
        a1[c] = part[c]
        a2[c] = part[d + c]


@njit(cache=True, nogil=True)
def _column_totals(X, want2):
    """Column sums (and of squares) of every row: CASCADE_ROWS rows in order,
    those partial sums pairwise."""
    n, d = X.shape
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    tot = np.empty(2 * d)
    count = 0
    for i0 in range(0, n, CASCADE_ROWS):
        part[:] = 0.0
        for i in range(i0, min(i0 + CASCADE_ROWS, n)):
            for c in range(d):
                v = X[i, c]
                part[c] += v
                if want2:
                    part[d + c] += v * v
        count = cascade_push(stack, count, part)
    cascade_total(stack, count, tot)
    return tot[:d].copy(), tot[d:].copy()


@njit(cache=True, nogil=True, inline="always")
def _add_run(diff, s, e, n):
    """Difference-array update: +1 on rows s .. e-1 (mod n); ``diff`` has n + 1."""
    diff[s] += 1.0
    if e <= n:
        diff[e] -= 1.0
    else:
        diff[n] -= 1.0
        diff[0] += 1.0
        diff[e - n] -= 1.0


@njit(cache=True, nogil=True, inline="always")
def _diff_to_row(diff, row):
    acc = 0.0
    for i in range(row.shape[0]):
        acc += diff[i]
        row[i] = acc


# ---------------------------------------------------------------------------
# fixed-length blocks: moving, circular, non-overlapping
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def fixed_starts(seed, gamma, b, n_starts, stride, starts):
    """``starts[j] = stride * u_j``, ``u_j`` the j-th uniform draw in
    ``[0, n_starts)`` of replicate ``b`` (Lemire, purpose "block_starts")."""
    fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(n_starts), starts)
    if stride != 1:
        for j in range(starts.shape[0]):
            starts[j] *= stride


@njit(cache=True, nogil=True)
def fixed_indices_chunk(seed, gamma, b0, n, L, n_starts, stride, out):
    """Row ``k`` of ``out`` gets the n indices of replicate ``b0 + k``: blocks
    ``start_j + m`` (mod n), ``m < L``, concatenated and cut at n rows."""
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    for k in range(out.shape[0]):
        row = out[k]
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        t = 0
        for j in range(k_blocks):
            s = starts[j]
            ln = min(L, n - t)
            for m in range(ln):
                r = s + m
                if r >= n:
                    r -= n
                row[t + m] = r
            t += ln


@njit(cache=True, nogil=True)
def fixed_counts_chunk(seed, gamma, b0, n, L, n_starts, stride, out):
    """Row ``k`` of the float64 ``out`` gets the multiplicity of every row in
    replicate ``b0 + k`` (exact integers)."""
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    diff = np.empty(n + 1)
    for k in range(out.shape[0]):
        diff[:] = 0.0
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        t = 0
        for j in range(k_blocks):
            s = starts[j]
            ln = min(L, n - t)
            _add_run(diff, s, s + ln, n)
            t += ln
        _diff_to_row(diff, out[k])


@njit(cache=True, nogil=True)
def fixed_moments(X, seed, gamma, b0, L, n_starts, stride, want2, out1, out2, outw):
    """Fused column sums (and sums of squares) of replicates ``b0 ..``: block sums
    from compensated prefix sums, BLOCK_TILE of them in sequence, those partial
    sums pairwise (:func:`_write_blocks_total`)."""
    n, d = X.shape
    P1, P2 = prefix_sums_compensated(X, want2)
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    part = np.zeros(2 * d)
    a1 = part[:d]  # views: zeroing part zeroes them
    a2 = part[d:]
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    if d == 1:  # scalar accumulators, kept in registers
        for k in range(out1.shape[0]):
            t1 = 0.0
            t2 = 0.0
            nblk = 0
            count = 0
            fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
            t = 0
            for j in range(k_blocks):
                s = starts[j]
                ln = min(L, n - t)
                t1 += _block_sum(P1, s, s + ln, n)
                if want2:
                    t2 += _block_sum(P2, s, s + ln, n)
                nblk += 1
                if nblk == BLOCK_TILE:
                    part[0] = t1
                    part[1] = t2
                    count = cascade_push(stack, count, part)
                    t1 = 0.0
                    t2 = 0.0
                    nblk = 0
                t += ln
            part[0] = t1
            part[1] = t2
            _write_blocks_total(nblk, count, part, stack, out1[k], out2[k])
            outw[k] = n
        return
    for k in range(out1.shape[0]):
        part[:] = 0.0
        nblk = 0
        count = 0
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        t = 0
        for j in range(k_blocks):
            s = starts[j]
            ln = min(L, n - t)
            _add_block(P1, s, s + ln, n, a1)
            if want2:
                _add_block(P2, s, s + ln, n, a2)
            nblk += 1
            if nblk == BLOCK_TILE:  # a tile of blocks joins the cascade
                count = cascade_push(stack, count, part)
                for q in range(2 * d):
                    part[q] = 0.0
                nblk = 0
            t += ln
        _write_blocks_total(nblk, count, part, stack, out1[k], out2[k])
        outw[k] = n


# ---------------------------------------------------------------------------
# stationary bootstrap: geometric lengths, circular wrap
# ---------------------------------------------------------------------------
#: Blocks generated per batch by :func:`stationary_blocks`; only the granularity of
#: the (vectorized) generation, the stream does not depend on it.
SB_BATCH = 64


@njit(cache=True, nogil=True)
def stationary_blocks(seed_s, seed_l, gamma, b, n, p, log_q, starts, lens):
    """Blocks of replicate ``b``; returns their number ``J``.

    Block ``j`` starts at draw ``j`` of ``bounded(n)`` on the "block_starts" stream
    and has length ``1 + floor(log(1 - u_j) / log_q)``, capped at n, where ``u_j``
    is uniform ``j`` of the "block_lengths" stream
    (:func:`~skboot._random.uniform_at` of counter ``b * 2**32 + j``) and
    ``log_q = log1p(-p)``.  ``1 - u_j`` is exact, so no log1p is needed.  The last block is cut so that the lengths sum to n.  Draws are made
    in batches (vectorized); ``starts`` and ``lens`` need n slots.
    """
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    c0 = replicate_counter(b)
    cs = c0
    hs = NO_HAVE
    ls = np.uint64(0)
    sbuf = np.empty(SB_BATCH, dtype=np.uint64)
    lbuf = np.empty(SB_BATCH, dtype=np.int64)
    ubuf = np.empty(SB_BATCH)
    t = 0
    j = 0
    while t < n:
        # expected remaining blocks plus slack, even (keeps draw_block vectorized)
        c = min(SB_BATCH, 4 + np.int64((n - t) * p))
        c += c & 1
        cs, hs, ls = draw_block(seed_s, gamma, cs, hs, ls, un, thresh, sbuf, c)
        # three simple loops (words, logs, lengths) pipeline better than one
        for q in range(c):
            ubuf[q] = uniform_at(seed_l, gamma, c0 + np.uint64(j + q))
        for q in range(c):
            ubuf[q] = np.log(1.0 - ubuf[q])
        for q in range(c):
            g = ubuf[q] / log_q
            lbuf[q] = n if g >= n else 1 + np.int64(g)
        for q in range(c):
            ln = min(lbuf[q], n - t)
            starts[j] = sbuf[q]
            lens[j] = ln
            t += ln
            j += 1
            if t >= n:
                break
    return j


@njit(cache=True, nogil=True)
def stationary_indices_chunk(seed_s, seed_l, gamma, b0, n, p, log_q, out):
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    for k in range(out.shape[0]):
        row = out[k]
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        t = 0
        for j in range(nbk):
            s = starts[j]
            ln = lens[j]
            for m in range(ln):
                r = s + m
                if r >= n:
                    r -= n
                row[t + m] = r
            t += ln


@njit(cache=True, nogil=True)
def stationary_counts_chunk(seed_s, seed_l, gamma, b0, n, p, log_q, out):
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    diff = np.empty(n + 1)
    for k in range(out.shape[0]):
        diff[:] = 0.0
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        t = 0
        for j in range(nbk):
            s = starts[j]
            ln = lens[j]
            _add_run(diff, s, s + ln, n)
            t += ln
        _diff_to_row(diff, out[k])


@njit(cache=True, nogil=True)
def stationary_moments(X, seed_s, seed_l, gamma, b0, p, log_q, want2, out1, out2, outw):
    """As :func:`fixed_moments`, over the stationary bootstrap's blocks."""
    n, d = X.shape
    P1, P2 = prefix_sums_compensated(X, want2)
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    part = np.zeros(2 * d)
    a1 = part[:d]  # views: zeroing part zeroes them
    a2 = part[d:]
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    if d == 1:  # scalar accumulators, kept in registers
        for k in range(out1.shape[0]):
            t1 = 0.0
            t2 = 0.0
            nblk = 0
            count = 0
            nbk = stationary_blocks(
                seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
            )
            t = 0
            for j in range(nbk):
                s = starts[j]
                ln = lens[j]
                t1 += _block_sum(P1, s, s + ln, n)
                if want2:
                    t2 += _block_sum(P2, s, s + ln, n)
                nblk += 1
                if nblk == BLOCK_TILE:
                    part[0] = t1
                    part[1] = t2
                    count = cascade_push(stack, count, part)
                    t1 = 0.0
                    t2 = 0.0
                    nblk = 0
                t += ln
            part[0] = t1
            part[1] = t2
            _write_blocks_total(nblk, count, part, stack, out1[k], out2[k])
            outw[k] = n
        return
    for k in range(out1.shape[0]):
        part[:] = 0.0
        nblk = 0
        count = 0
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        t = 0
        for j in range(nbk):
            s = starts[j]
            ln = lens[j]
            _add_block(P1, s, s + ln, n, a1)
            if want2:
                _add_block(P2, s, s + ln, n, a2)
            nblk += 1
            if nblk == BLOCK_TILE:  # a tile of blocks joins the cascade
                count = cascade_push(stack, count, part)
                for q in range(2 * d):
                    part[q] = 0.0
                nblk = 0
            t += ln
        _write_blocks_total(nblk, count, part, stack, out1[k], out2[k])
        outw[k] = n


# ---------------------------------------------------------------------------
# tapered block bootstrap (moving blocks, per-position taper)
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def tapered_weights_chunk(seed, gamma, b0, n, L, n_starts, taper, cscale, base, out):
    """Row ``k``: ``W_i = base + cscale * sum of taper[m] over the positions of
    replicate b0 + k that hold row i`` (position t has taper[t mod L])."""
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    for k in range(out.shape[0]):
        row = out[k]
        row[:] = 0.0
        fixed_starts(seed, gamma, b0 + k, n_starts, _I1, starts)
        t = 0
        for j in range(k_blocks):
            s = starts[j]
            ln = min(L, n - t)
            for m in range(ln):
                row[s + m] += taper[m]
            t += ln
        for i in range(n):
            row[i] = base + cscale * row[i]


@njit(cache=True, nogil=True)
def _taper_sums(X, taper, r, n_starts, square):
    """``T[s] = sum_{m < L} taper[m] * X[s + m]`` (or of ``X**2``) for every start
    ``s < n_starts``, and ``Tr[s]``, the same sum over ``m < r`` (the cut last
    block; ``Tr`` is ``T`` when ``r == L``).  Terms are added in ascending ``m``."""
    n, d = X.shape
    L = taper.shape[0]
    T = np.empty((n_starts, d))
    Tr = T if r == L else np.empty((n_starts, d))
    x = np.empty(n)
    acc = np.empty(n_starts)
    for c in range(d):
        for i in range(n):
            v = X[i, c]
            x[i] = v * v if square else v
        acc[:] = 0.0
        # m outer, s inner: a contiguous axpy the compiler vectorizes
        for m in range(L):
            if m == r:
                for s in range(n_starts):
                    Tr[s, c] = acc[s]
            w = taper[m]
            xm = x[m : m + n_starts]
            for s in range(n_starts):
                acc[s] += w * xm[s]
        for s in range(n_starts):
            T[s, c] = acc[s]
    return T, Tr


@njit(cache=True, nogil=True)
def tapered_moments(
    X, seed, gamma, b0, L, n_starts, taper, cscale, base, want2, out1, out2, outw
):
    """``sum_i W_i X_i`` (and of ``X_i**2``) for the weights of
    :func:`tapered_weights_chunk`, from per-start tapered block sums
    (precomputed once per call in O(n_starts * L * d), vectorized); a replicate
    then costs O(n / L * d)."""
    n, d = X.shape
    k_blocks = (n + L - 1) // L
    r = n - (k_blocks - 1) * L
    tot1, tot2 = _column_totals(X, want2)
    T1, T1r = _taper_sums(X, taper, r, n_starts, _NO)
    if want2:
        T2, T2r = _taper_sums(X, taper, r, n_starts, _YES)
    else:
        T2 = np.empty((1, d))
        T2r = T2
    starts = np.empty(k_blocks, dtype=np.int64)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    acc1 = np.empty(d)
    acc2 = np.empty(d)
    for k in range(out1.shape[0]):
        fixed_starts(seed, gamma, b0 + k, n_starts, _I1, starts)
        part[:] = 0.0
        nblk = 0
        count = 0
        for j in range(k_blocks):
            s = starts[j]
            last = j == k_blocks - 1
            for c in range(d):
                part[c] += T1r[s, c] if last else T1[s, c]
                if want2:
                    part[d + c] += T2r[s, c] if last else T2[s, c]
            nblk += 1
            if nblk == BLOCK_TILE:
                count = cascade_push(stack, count, part)
                for q in range(2 * d):
                    part[q] = 0.0
                nblk = 0
        _write_blocks_total(nblk, count, part, stack, acc1, acc2)
        for c in range(d):
            out1[k, c] = base * tot1[c] + cscale * acc1[c]
            out2[k, c] = base * tot2[c] + cscale * acc2[c] if want2 else 0.0
        outw[k] = n
