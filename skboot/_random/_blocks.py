"""The block draw: the one index generator every path uses, and the fills built on
it (indices, stratified pools, Poisson counts, Dirichlet weights)."""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random._core import (
    _I0,
    _I1,
    _U0,
    _U1,
    _U32,
    MASK32,
    NO_HAVE,
    RootKey,
    bounded,
    lemire_threshold,
    mix64,
    replicate_counter,
    uniform01,
)
from skboot._random._exp import complement53, exp1_of_complement
from skboot._random._vector import pairs_interleaved, pairs_split

# ---------------------------------------------------------------------------
# block kernels: the one index generator every path uses
# ---------------------------------------------------------------------------
#: Draws per fast block.  Only the granularity of the rejection fallback; the
#: stream does not depend on it.
FAST_BLOCK = 128
#: Outputs (pairs of draws) per full block.
HALF_BLOCK = FAST_BLOCK // 2


@njit(cache=True)
def slow_fill(seed, gamma, ctr, have, lo, un, thresh, buf, start, count):
    """``count`` calls of :func:`bounded` into ``buf[start:start + count]``."""
    for j in range(start, start + count):
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, thresh)
        buf[j] = v
    return ctr, have, lo


@njit(cache=True, inline="always")
def fast_pairs(seed, gamma, ctr, un, thresh, buf, h):
    """Fill ``buf[:2h]`` from outputs ``ctr .. ctr + h - 1``, both halves, assuming
    no word is rejected; returns False if one was (the caller then redoes it).

    Requires ``n < 2**32`` and no buffered low half.  The hottest kernels inline
    it themselves, with those conditions tested in their own ``if`` (testing
    them inside an inlined helper instead measured 8-25% slower)::

        if not have and un <= MASK32 and not (c & 1) and fast_pairs(..., c >> 1):
            ctr = ctr + np.uint64(c >> 1)
        else:
            ctr, have, lo = draw_block(...)
    """
    # the vector loop covers whole vectors of outputs; the at most seven left
    # over are drawn here, with the same arithmetic
    hv = h - (h & 7)
    low = pairs_interleaved(seed, gamma, ctr, un, buf, hv)
    u = un & MASK32
    for t in range(hv, h):
        z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
        m0 = (z >> _U32) * u
        m1 = (z & MASK32) * u
        buf[2 * t] = m0 >> _U32
        buf[2 * t + 1] = m1 >> _U32
        low = min(low, min(m0 & MASK32, m1 & MASK32))
    return low >= thresh


@njit(cache=True, inline="always")
def fast_pairs_split(seed, gamma, ctr, un, thresh, buf, h):
    """:func:`fast_pairs` with the halves unshuffled: draw ``2t`` (the high half of
    output ``ctr + t``) goes to ``buf[t]`` and draw ``2t + 1`` to ``buf[h + t]``.

    Saves the vector permutes that interleave the halves (7% of the mean kernel at
    n = 10,000, with ``h`` the constant :data:`HALF_BLOCK`; with a variable ``h`` it
    measured slower than :func:`fast_pairs`); a kernel that sums by draw position
    reads ``buf[t]`` and ``buf[h + t]`` alternately.  Same preconditions and return
    value.
    """
    hv = h - (h & 7)
    low = pairs_split(seed, gamma, ctr, un, buf, hv)
    if hv != h:
        # the at most seven outputs past the vectors, same arithmetic; the
        # vector part wrote its low halves from buf[hv]: move them up to buf[h]
        for t in range(hv - 1, -1, -1):
            buf[h + t] = buf[hv + t]
        u = un & MASK32
        for t in range(hv, h):
            z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
            m0 = (z >> _U32) * u
            m1 = (z & MASK32) * u
            buf[t] = m0 >> _U32
            buf[h + t] = m1 >> _U32
            low = min(low, min(m0 & MASK32, m1 & MASK32))
    return low >= thresh


@njit(cache=True)
def _draw_block_resume(seed, gamma, ctr, have, lo, un, thresh, buf, count):
    """:func:`draw_block` when a low half is buffered (after a rejection) or
    ``n >= 2**32``: the buffered half is consumed first, so one rejection does not
    push every later block onto the word-by-word path."""
    if un > MASK32:
        return slow_fill(seed, gamma, ctr, have, lo, un, thresh, buf, _I0, count)
    start = _I0
    while have and start < count:
        ctr, have, lo = slow_fill(
            seed, gamma, ctr, have, lo, un, thresh, buf, start, _I1
        )
        start += 1
    if have:
        # the block ended while a half is still buffered (a rejection inside the
        # block's last draw): keep it for the next block
        return ctr, have, lo
    rem = count - start
    h = rem >> 1
    if fast_pairs(seed, gamma, ctr, un, thresh, buf[start:], h):
        ctr = ctr + np.uint64(h)
        if rem & 1:
            return slow_fill(
                seed, gamma, ctr, NO_HAVE, lo, un, thresh, buf, start + 2 * h, _I1
            )
        return ctr, NO_HAVE, lo
    return slow_fill(seed, gamma, ctr, NO_HAVE, lo, un, thresh, buf, start, rem)


def _draw_block(seed, gamma, ctr, have, lo, un, thresh, buf, count):
    """Write the next ``count`` bounded draws into ``buf[:count]``.

    Equivalent to ``count`` calls of :func:`bounded` (tested against the reference),
    but for ``n < 2**32`` the words are generated two per output on vector types
    (:mod:`skboot._random._vector`), and the block is redone word by word only if one of its
    words is rejected (probability about ``n / 2**32`` per word).  Blocks after a
    rejection that left a buffered low half go through
    :func:`_draw_block_resume`.  ``buf`` is uint64 (unsigned indices spare the
    gathers numba's negative-index check).  Returns ``(ctr, have, lo)``.
    """
    if have or un > MASK32:
        return _draw_block_resume(seed, gamma, ctr, have, lo, un, thresh, buf, count)
    h = count >> 1
    if fast_pairs(seed, gamma, ctr, un, thresh, buf, h):
        ctr = ctr + np.uint64(h)
        if count & 1:
            return slow_fill(seed, gamma, ctr, NO_HAVE, lo, un, thresh, buf, 2 * h, _I1)
        return ctr, NO_HAVE, lo
    return slow_fill(seed, gamma, ctr, NO_HAVE, lo, un, thresh, buf, _I0, count)


draw_block = njit(cache=True)(_draw_block)


@njit(cache=True, nogil=True)
def _fill_row(seed, gamma, b, un, thresh, out):
    """All draws of replicate ``b`` into the 1-D ``out``, block by block."""
    fill_row_buffered(
        seed, gamma, b, un, thresh, np.empty(FAST_BLOCK, dtype=np.uint64), out
    )


@njit(cache=True, nogil=True)
def fill_row_buffered(seed, gamma, b, un, thresh, buf, out):
    """:func:`fill_indices_kernel` for a caller that fills many short rows: the
    Lemire threshold ``thresh`` of ``un`` and the scratch block ``buf``
    (FAST_BLOCK uint64) are the caller's, made once."""
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    m = out.shape[0]
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
            out[done + t] = buf[t]
        done += c


@njit(cache=True, nogil=True)
def count_row(seed, gamma, b, un, thresh, m, buf, cnt):
    """Overwrite ``cnt`` (float64, n) with how often each row is among the ``m``
    draws of replicate ``b``; ``buf`` is a scratch block of FAST_BLOCK uint64."""
    cnt[:] = 0.0
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
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
            cnt[buf[t]] += 1.0
        done += c


@njit(cache=True, nogil=True)
def fill_indices_kernel(seed, gamma, b, n, out):
    """Fill ``out`` with the first ``len(out)`` uniform indices of replicate ``b``."""
    un = np.uint64(n)
    _fill_row(seed, gamma, b, un, lemire_threshold(un), out)


@njit(cache=True, nogil=True)
def fill_indices_chunk(seed, gamma, b0, n, out):
    """Row ``k`` of the 2-D ``out`` receives the indices of replicate ``b0 + k``."""
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    for k in range(out.shape[0]):
        _fill_row(seed, gamma, b0 + k, un, thresh, out[k])


@njit(cache=True, nogil=True)
def pool_thresholds(sizes):
    """Lemire's rejection threshold of every stratum size (uint64), computed once
    per call instead of once per row."""
    ths = np.empty(sizes.shape[0], dtype=np.uint64)
    for s in range(sizes.shape[0]):
        ths[s] = lemire_threshold(np.uint64(sizes[s]))
    return ths


@njit(cache=True, nogil=True)
def fill_pool_indices(seed, gamma, b, codes, pools, offsets, sizes, out):
    """Stratified draws: ``out[i]`` is a uniform row of the stratum of row ``i``.

    ``pools[offsets[s]:offsets[s] + sizes[s]]`` lists the rows of stratum ``s``.
    Words are consumed in row order, one bounded draw per row.
    """
    ths = pool_thresholds(sizes)
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    for i in range(codes.shape[0]):
        s = codes[i]
        v, ctr, have, lo = bounded(
            seed, gamma, ctr, have, lo, np.uint64(sizes[s]), ths[s]
        )
        out[i] = pools[offsets[s] + np.int64(v)]


#: Poisson(1) inversion stops at this count; P(X > 20) < 2**-53.
POISSON_MAX = 20
#: exp(-1) correctly rounded to double, written out so the Poisson stream does not
#: depend on the platform's libm.
_EXP_MINUS_1 = 0.36787944117144233


@njit(cache=True, nogil=True)
def fill_poisson_counts(seed, gamma, b, out):
    """``out[i]`` ~ Poisson(1) by inversion of one uniform double per row."""
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    p0 = _EXP_MINUS_1
    for i in range(out.shape[0]):
        u, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
        k = 0
        p = p0
        cdf = p0
        while u >= cdf and k < POISSON_MAX:
            k += 1
            p = p / k
            cdf += p
        out[i] = k


@njit(cache=True, nogil=True, error_model="numpy")
def fill_dirichlet_weights(seed, gamma, b, out):
    """Flat Dirichlet weights scaled to sum to ``len(out)`` (mean weight 1);
    Rubin (1981).

    ``e_i = -log(1 - u_i)`` (Exp(1)), ``u_i`` the uniform of SplitMix64 output
    ``b * 2**32 + i``, computed by :func:`skboot._random.exp1_of_output` (the same
    bits on every platform); ``out[i] = e_i * (n / T)``, ``T`` the sum of the
    ``e_i`` in row order.
    """
    n = out.shape[0]
    # two loops (the word's integer, then its log) vectorize better than one:
    # each keeps its constants in registers
    zp = seed + (replicate_counter(b) + _U1) * gamma
    for i in range(n):
        out[i] = complement53(mix64(zp))
        zp += gamma
    for i in range(n):
        out[i] = exp1_of_complement(out[i])
    total = 0.0
    for i in range(n):
        total += out[i]
    scale = n / total
    for i in range(n):
        out[i] *= scale


def fill_indices(key: RootKey, purpose: int, b: int, n: int, out: np.ndarray) -> None:
    """Fill ``out`` with the uniform indices in ``[0, n)`` of replicate ``b``.

    ``out`` must be a 1-D int32 (``n < 2**31``) or int64 array; its length is the
    number of draws.
    """
    seed, gamma = key.stream(purpose)
    fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(n), out)


def index_dtype(n: int) -> np.dtype:
    """int32 for fewer than ``2**31`` rows, int64 above."""
    return np.dtype(np.int32) if n < 2**31 else np.dtype(np.int64)
