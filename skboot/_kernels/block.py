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
  accumulated once per call (O(n d)); a block ``[s, e)`` then contributes
  ``P[e] - P[s]`` (plus the wrapped part), so a replicate costs O(n / L * d).
  Blocks are added in draw order, so a replicate's value depends only on ``b``.
  The engine passes centred data (``x - c``, :func:`skboot._engine.centre_of`):
  prefix sums of uncentred data would carry rounding errors of the size of the
  offset times ``n`` into every block difference.

Kernels use int64/float64 scalars, uint64 seeds, and release the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random import (
    NO_HAVE,
    draw_block,
    fill_indices_kernel,
    lemire_threshold,
    mix64,
    replicate_counter,
)

# Typed (non-literal) constants, as in skboot._random: a bare ``True``/``1`` passed
# to a numba function compiles an extra Literal-typed specialization of it.
_YES = np.bool_(True)
_NO = np.bool_(False)
_I1 = np.int64(1)

__all__ = [
    "fixed_counts_chunk",
    "fixed_indices_chunk",
    "fixed_moments",
    "fixed_starts",
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


@njit(cache=True, nogil=True, inline="always")
def _add_block(P, s, e, n, acc):
    """``acc += sum of rows s .. e-1`` (mod n) from prefix sums ``P``; e <= 2n."""
    if e <= n:
        for c in range(acc.shape[0]):
            acc[c] += P[e, c] - P[s, c]
    else:
        for c in range(acc.shape[0]):
            acc[c] += (P[n, c] - P[s, c]) + P[e - n, c]


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
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        row = out[k]
        t = 0
        for j in range(k_blocks):
            s = starts[j]
            ln = min(L, n - t)
            for m in range(ln):
                r = s + m
                if r >= n:
                    r -= n
                row[t] = r
                t += 1


@njit(cache=True, nogil=True)
def fixed_counts_chunk(seed, gamma, b0, n, L, n_starts, stride, out):
    """Row ``k`` of the float64 ``out`` gets the multiplicity of every row in
    replicate ``b0 + k`` (exact integers)."""
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    diff = np.empty(n + 1)
    for k in range(out.shape[0]):
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        diff[:] = 0.0
        t = 0
        for j in range(k_blocks):
            ln = min(L, n - t)
            _add_run(diff, starts[j], starts[j] + ln, n)
            t += ln
        _diff_to_row(diff, out[k])


@njit(cache=True, nogil=True)
def fixed_moments(X, seed, gamma, b0, L, n_starts, stride, want2, out1, out2, outw):
    """Fused column sums (and sums of squares) of replicates ``b0 ..``."""
    n = X.shape[0]
    P1, P2 = prefix_sums(X, want2)
    k_blocks = (n + L - 1) // L
    starts = np.empty(k_blocks, dtype=np.int64)
    for k in range(out1.shape[0]):
        fixed_starts(seed, gamma, b0 + k, n_starts, stride, starts)
        a1 = out1[k]
        a2 = out2[k]
        a1[:] = 0.0
        a2[:] = 0.0
        t = 0
        for j in range(k_blocks):
            ln = min(L, n - t)
            s = starts[j]
            _add_block(P1, s, s + ln, n, a1)
            if want2:
                _add_block(P2, s, s + ln, n, a2)
            t += ln
        outw[k] = n


# ---------------------------------------------------------------------------
# stationary bootstrap: geometric lengths, circular wrap
# ---------------------------------------------------------------------------
#: Blocks generated per batch by :func:`stationary_blocks`; only the granularity of
#: the (vectorized) generation, the stream does not depend on it.
SB_BATCH = 64
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_TWO53_INV = 1.0 / 9007199254740992.0


@njit(cache=True, nogil=True)
def stationary_blocks(seed_s, seed_l, gamma, b, n, p, log_q, starts, lens):
    """Blocks of replicate ``b``; returns their number ``J``.

    Block ``j`` starts at draw ``j`` of ``bounded(n)`` on the "block_starts" stream
    and has length ``1 + floor(log(1 - u_j) / log_q)``, capped at n, where ``u_j``
    is uniform ``j`` of the "block_lengths" stream (SplitMix64 output
    ``b * 2**32 + j`` shifted right by 11, times ``2**-53``: what ``uniform01``
    returns) and ``log_q = log1p(-p)``.  ``1 - u_j`` is exact, so no log1p is
    needed.  The last block is cut so that the lengths sum to n.  Draws are made
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
            z = mix64(seed_l + (c0 + np.uint64(j + q) + _U1) * gamma)
            ubuf[q] = np.float64(z >> _U11) * _TWO53_INV
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
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        row = out[k]
        t = 0
        for j in range(nbk):
            s = starts[j]
            for m in range(lens[j]):
                r = s + m
                if r >= n:
                    r -= n
                row[t] = r
                t += 1


@njit(cache=True, nogil=True)
def stationary_counts_chunk(seed_s, seed_l, gamma, b0, n, p, log_q, out):
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    diff = np.empty(n + 1)
    for k in range(out.shape[0]):
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        diff[:] = 0.0
        for j in range(nbk):
            _add_run(diff, starts[j], starts[j] + lens[j], n)
        _diff_to_row(diff, out[k])


@njit(cache=True, nogil=True)
def stationary_moments(X, seed_s, seed_l, gamma, b0, p, log_q, want2, out1, out2, outw):
    n = X.shape[0]
    P1, P2 = prefix_sums(X, want2)
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    for k in range(out1.shape[0]):
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + k, n, p, log_q, starts, lens
        )
        a1 = out1[k]
        a2 = out2[k]
        a1[:] = 0.0
        a2[:] = 0.0
        for j in range(nbk):
            s = starts[j]
            e = s + lens[j]
            _add_block(P1, s, e, n, a1)
            if want2:
                _add_block(P2, s, e, n, a2)
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
        fixed_starts(seed, gamma, b0 + k, n_starts, _I1, starts)
        row = out[k]
        row[:] = 0.0
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
    tot1 = np.zeros(d)
    tot2 = np.zeros(d)
    for i in range(n):
        for c in range(d):
            v = X[i, c]
            tot1[c] += v
            if want2:
                tot2[c] += v * v
    T1, T1r = _taper_sums(X, taper, r, n_starts, _NO)
    if want2:
        T2, T2r = _taper_sums(X, taper, r, n_starts, _YES)
    else:
        T2 = np.empty((1, d))
        T2r = T2
    starts = np.empty(k_blocks, dtype=np.int64)
    acc1 = np.empty(d)
    acc2 = np.empty(d)
    for k in range(out1.shape[0]):
        fixed_starts(seed, gamma, b0 + k, n_starts, _I1, starts)
        acc1[:] = 0.0
        acc2[:] = 0.0
        for j in range(k_blocks - 1):
            s = starts[j]
            for c in range(d):
                acc1[c] += T1[s, c]
                if want2:
                    acc2[c] += T2[s, c]
        s = starts[k_blocks - 1]
        for c in range(d):
            acc1[c] += T1r[s, c]
            if want2:
                acc2[c] += T2r[s, c]
        for c in range(d):
            out1[k, c] = base * tot1[c] + cscale * acc1[c]
            out2[k, c] = base * tot2[c] + cscale * acc2[c] if want2 else 0.0
        outw[k] = n
