"""Numba kernels of the permutation stream: Fisher-Yates shuffles from the derived
stream and exact enumeration by rank (numba code only).

The shuffle (purpose slot ``PURPOSE["permutation"]``)
------------------------------------------------------
Replicate ``b`` reads the words of its stream in order (``skboot._random``: word
``j`` is half ``j % 2`` of SplitMix64 output ``b * 2**32 + j // 2``, high half
first).  A *forward Fisher-Yates shuffle* of ``s`` items ``a[0..s-1]`` takes
``s - 1`` bounded draws: step ``t = 0, 1, ..., s - 2`` draws ``r_t`` uniform in
``[0, s - t)`` (Lemire's multiply-shift with rejection, one 32-bit word per
attempt, exactly :func:`skboot._random.bounded`) and swaps ``a[t]`` with
``a[t + r_t]``.  After step ``t`` position ``t`` never changes again, so the
first ``k`` positions of the result are known after ``k`` steps (the fused
two-sample kernels use only those).

Several shuffles in one replicate (groups, samples) continue the same reader, in
the order documented by each kernel; a group of one row takes no draw.

The fast path draws a block of ``2h`` values from ``h`` SplitMix64 outputs in a
loop the compiler vectorizes and accepts it when no word can be rejected
(``low >= bound`` for every draw, a superset of the non-rejected ones since
Lemire's threshold ``2**32 mod bound`` is below the bound); otherwise the block
is redone draw by draw with :func:`skboot._random.bounded`.  Both paths give the
same numbers.

Exact enumeration (no randomness)
---------------------------------
Rank ``r`` is unranked directly, so any range of ranks can be generated alone:

* partitions of ``N`` pooled rows into samples of sizes ``n_1, ..., n_k``: mixed
  radix with sample 1 the most significant digit; digit ``j`` is the rank of a
  ``n_j``-subset of the rows not yet taken (in ascending order), in
  lexicographic order; each sample lists its rows ascending.  Rank 0 is the
  original assignment.
* permutations of ``n`` items: the Lehmer code (factorial number system), rank
  0 the identity; several permutations per rank use a mixed radix, the first
  the most significant digit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random import (
    NO_HAVE,
    bounded,
    fy_pairs,
    lemire_threshold,
    mix64,
    replicate_counter,
)

__all__ = [
    "BLOCK",
    "exact_independent_chunk",
    "exact_pairings_chunk",
    "exact_samples_chunk",
    "fy_block",
    "pairings_chunk",
    "samples_chunk",
    "shuffle_pools",
    "shuffle_pools_chunk",
]

#: Draws per fast block (only the granularity of the rejection fallback).
BLOCK = 128

_M32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U1 = np.uint64(1)
_U0 = np.uint64(0)
_SIGN = np.uint64(1) << np.uint64(63)


@njit(cache=True, inline="always")
def fy_fast(seed, gamma, ctr, top, buf, start, h):
    """Draws ``start .. start + 2h - 1`` of a block: draw ``start + u`` uniform in
    ``[0, top - u)``, two per SplitMix64 output (outputs ``ctr .. ctr + h - 1``).

    Returns False when some word might be rejected (the caller redoes the
    block).  Requires ``top < 2**32`` and no buffered half word.
    """
    # whole vectors of outputs on explicit vector types, the at most seven left
    # over here, with the same arithmetic
    hv = h - (h & 7)
    bad = fy_pairs(seed, gamma, ctr, top, buf[start:], hv)
    for t in range(hv, h):
        z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
        # masked: both factors fit 32 bits (cheap vector multiply)
        m0 = (top - np.uint64(2 * t)) & _M32
        m1 = (m0 - _U1) & _M32
        p0 = (z >> _U32) * m0
        p1 = (z & _M32) * m1
        buf[start + 2 * t] = p0 >> _U32
        buf[start + 2 * t + 1] = p1 >> _U32
        # a negative difference (sign bit set) marks a possible rejection
        bad |= ((p0 & _M32) - m0) | ((p1 & _M32) - m1)
    return bad < _SIGN


@njit(cache=True)
def fy_slow(seed, gamma, ctr, have, lo, top, buf, start, count):
    """Draws ``start .. start + count - 1``, one :func:`bounded` call each
    (draw ``start + u`` in ``[0, top - u)``)."""
    for u in range(count):
        m = np.uint64(top - u)
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, m, lemire_threshold(m))
        buf[start + u] = v
    return ctr, have, lo


@njit(cache=True)
def fy_block(seed, gamma, ctr, have, lo, top, count, buf):
    """``buf[u]`` uniform in ``[0, top - u)`` for ``u < count``: the next
    ``count`` bounded draws of the reader ``(ctr, have, lo)``, returned updated.

    Equal to ``count`` calls of :func:`skboot._random.bounded`.
    """
    start = 0
    if have:  # a buffered low half: one draw by the reader first
        ctr, have, lo = fy_slow(seed, gamma, ctr, have, lo, top, buf, 0, 1)
        start = 1
        if have:  # a rejection left another half buffered: stay word by word
            return fy_slow(seed, gamma, ctr, have, lo, top - 1, buf, 1, count - 1)
    h = (count - start) >> 1
    if (
        h > 0
        and top <= 0xFFFFFFFF
        and fy_fast(seed, gamma, ctr, np.uint64(top - start), buf, start, h)
    ):
        ctr = ctr + np.uint64(h)
        start += 2 * h
    rest = count - start
    if rest > 0:
        ctr, have, lo = fy_slow(
            seed, gamma, ctr, have, lo, top - start, buf, start, rest
        )
    return ctr, have, lo


@njit(cache=True)
def fy_inplace(seed, gamma, ctr, have, lo, a, buf):
    """Forward Fisher-Yates shuffle of ``a`` in place, continuing the reader."""
    s = a.shape[0]
    steps = s - 1
    i = 0
    while i < steps:
        c = min(BLOCK, steps - i)
        ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, s - i, c, buf)
        base = np.uint64(i)
        for u in range(c):
            # unsigned positions: numba adds no negative-index wraparound
            p = base + np.uint64(u)
            j = p + buf[u]
            tmp = a[j]
            a[j] = a[p]
            a[p] = tmp
        i += c
    return ctr, have, lo


@njit(cache=True, nogil=True)
def shuffle_pools(seed, gamma, b, pools, offsets, sizes, tmp, buf, perm):
    """Permutation of replicate ``b`` within groups: ``perm[pools[o + t]] =
    pools[o + sigma_g(t)]`` for the rows ``pools[o:o + s]`` (ascending) of group
    ``g``, groups in order, one forward Fisher-Yates shuffle each, the draws
    consecutive.  With one group holding every row, ``perm`` is the shuffle of
    the identity."""
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    for g in range(sizes.shape[0]):
        o = offsets[g]
        s = sizes[g]
        a = tmp[:s]
        for t in range(s):
            a[t] = pools[o + t]
        if s > 1:
            ctr, have, lo = fy_inplace(seed, gamma, ctr, have, lo, a, buf)
        for t in range(s):
            perm[pools[o + t]] = a[t]


@njit(cache=True, nogil=True)
def shuffle_pools_chunk(seed, gamma, b0, pools, offsets, sizes, out):
    """Row ``k`` of ``out`` (int64, (nb, n)) gets the permutation of ``b0 + k``."""
    tmp = np.empty(out.shape[1], dtype=np.int64)
    buf = np.empty(BLOCK, dtype=np.uint64)
    for k in range(out.shape[0]):
        shuffle_pools(seed, gamma, b0 + k, pools, offsets, sizes, tmp, buf, out[k])


@njit(cache=True, nogil=True)
def pairings_chunk(seed, gamma, b0, out):
    """``out`` (int64, (nb, m, n)): sample ``s`` of replicate ``b0 + k`` is
    ``out[k, s]``, a shuffle of ``0 .. n - 1``; samples in order, draws
    consecutive."""
    buf = np.empty(BLOCK, dtype=np.uint64)
    m = out.shape[1]
    n = out.shape[2]
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        for s in range(m):
            a = out[k, s]
            for t in range(n):
                a[t] = t
            ctr, have, lo = fy_inplace(seed, gamma, ctr, have, lo, a, buf)


@njit(cache=True, nogil=True)
def samples_chunk(seed, gamma, b0, out):
    """``out`` (int64, (nb, n, m)): observation ``i`` of replicate ``b0 + k``
    takes sample ``out[k, i, s]``'s value as its sample ``s``; one shuffle of
    ``0 .. m - 1`` per observation, observations in order, draws consecutive."""
    buf = np.empty(BLOCK, dtype=np.uint64)
    n = out.shape[1]
    m = out.shape[2]
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        for i in range(n):
            a = out[k, i]
            for t in range(m):
                a[t] = t
            ctr, have, lo = fy_inplace(seed, gamma, ctr, have, lo, a, buf)


# ---------------------------------------------------------------------------
# exact enumeration by rank
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _unrank_subset(r, pool, n_pool, k, chosen, out, pos):
    """Write the ``k``-subset of rank ``r`` (lexicographic) of the first
    ``n_pool`` entries of ``pool`` (ascending) to ``out[pos:pos + k]`` and mark
    them in ``chosen`` (indexed by position in ``pool``)."""
    if k == 0:
        return
    # c = C(n_pool - x - 1, k - 1): subsets whose smallest remaining element is x
    c = np.int64(1)
    a = n_pool - 1
    b = k - 1
    # C(a, b) by the multiplicative formula (every intermediate divides exactly)
    for t in range(b):
        c = c * (a - t) // (t + 1)
    x = 0
    while k > 0:
        if r < c:
            chosen[x] = True
            out[pos] = pool[x]
            pos += 1
            # C(n - x - 2, k - 2) = C(n - x - 1, k - 1) * (k - 1) / (n - x - 1)
            if k > 1:
                c = c * (k - 1) // (n_pool - x - 1)
            k -= 1
        else:
            r -= c
            # C(n - x - 2, k - 1) = C(n - x - 1, k - 1) * (n - x - k) / (n - x - 1)
            c = c * (n_pool - x - k) // (n_pool - x - 1)
        x += 1


@njit(cache=True, nogil=True)
def exact_independent_chunk(r0, sizes, places, out):
    """Row ``k`` of ``out`` (int64, (nb, N)) is the partition of rank ``r0 + k``:
    sample ``j`` occupies ``out[k, c_j:c_j + n_j]`` (rows ascending).
    ``places[j]`` is the product of the radices of samples ``j+1 .. k-1``
    (``C(rows left, n_i)`` each)."""
    N = out.shape[1]
    pool = np.empty(N, dtype=np.int64)
    nxt = np.empty(N, dtype=np.int64)
    chosen = np.zeros(N, dtype=np.bool_)
    for k in range(out.shape[0]):
        r = np.int64(r0 + k)
        for t in range(N):
            pool[t] = t
        n_pool = N
        pos = 0
        row = out[k]
        for j in range(sizes.shape[0] - 1):
            digit = r // places[j]
            r = r - digit * places[j]
            chosen[:n_pool] = False
            _unrank_subset(digit, pool, n_pool, sizes[j], chosen, row, pos)
            pos += sizes[j]
            m = 0
            for t in range(n_pool):
                if not chosen[t]:
                    nxt[m] = pool[t]
                    m += 1
            for t in range(m):
                pool[t] = nxt[t]
            n_pool = m
        for t in range(n_pool):
            row[pos + t] = pool[t]


@njit(cache=True, inline="always")
def _unrank_perm(q, n, facts, avail, out):
    """Permutation of ``0 .. n - 1`` with Lehmer rank ``q`` into ``out``."""
    for t in range(n):
        avail[t] = t
    left = n
    for i in range(n):
        f = facts[n - 1 - i]
        d = q // f
        q = q - d * f
        out[i] = avail[d]
        for t in range(d, left - 1):
            avail[t] = avail[t + 1]
        left -= 1


@njit(cache=True, nogil=True)
def exact_pairings_chunk(r0, facts, out):
    """``out`` (int64, (nb, m, n)): rank ``r0 + k`` in mixed radix ``n!`` per
    sample (sample 0 most significant), each digit a Lehmer rank."""
    m = out.shape[1]
    n = out.shape[2]
    avail = np.empty(n, dtype=np.int64)
    base = facts[n]
    for k in range(out.shape[0]):
        r = np.int64(r0 + k)
        for s in range(m - 1, -1, -1):
            q = r % base
            r = r // base
            _unrank_perm(q, n, facts, avail, out[k, s])


@njit(cache=True, nogil=True)
def exact_samples_chunk(r0, facts, out):
    """``out`` (int64, (nb, n, m)): rank ``r0 + k`` in mixed radix ``m!`` per
    observation (observation 0 most significant), each digit a Lehmer rank."""
    n = out.shape[1]
    m = out.shape[2]
    avail = np.empty(m, dtype=np.int64)
    base = facts[m]
    for k in range(out.shape[0]):
        r = np.int64(r0 + k)
        for i in range(n - 1, -1, -1):
            q = r % base
            r = r // base
            _unrank_perm(q, m, facts, avail, out[k, i])
