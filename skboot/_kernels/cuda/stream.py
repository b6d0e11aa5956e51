"""The derived streams of skboot._random as numba-cuda device functions.

Step for step the CPU definition (stream version
:data:`skboot._kernels.cuda.constants.IMPLEMENTS_STREAM`): SplitMix64 read at
``t = b * 2**32 + i`` with the key's odd increment, two 32-bit words per output
(high half first), Lemire's bounded draws with rejection (two words per attempt
from ``2**32`` on, with a portable 128-bit product), uniform doubles from one
output, the fixed and stationary block rules, Poisson(1) counts by inversion and
unnormalized flat-Dirichlet weights (skboot's own ``-log``,
:mod:`skboot._kernels.cuda.exp`, with no fused multiply-add: the CPU's bits).  Numba code only; the kernels that use these
functions are in :mod:`skboot._kernels.cuda.kernels`.

Everything of the stream is uint64 (numba types mixed signed/unsigned arithmetic as
float64); rows are int64.
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda

from skboot._kernels.cuda.constants import FIXED_BLOCKS, IID, POISSON
from skboot._kernels.cuda.exp import dadd, ddiv, dmul, neg_log

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
MASK32 = np.uint64(0xFFFFFFFF)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_TWO53_INV = 1.0 / 9007199254740992.0
_EXP_MINUS_1 = 0.36787944117144233
_POISSON_MAX = 20


# ---------------------------------------------------------------------------
# the stream (device functions)
# ---------------------------------------------------------------------------
@cuda.jit(device=True)
def mix64(z):
    """Stafford's variant-13 finalizer (SplitMix64's output function)."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@cuda.jit(device=True)
def output_at(seed, gamma, t):
    """SplitMix64 output ``t``: ``mix64(seed + (t + 1) * gamma)``."""
    return mix64(seed + (t + _U1) * gamma)


@cuda.jit(device=True)
def next_word(seed, gamma, ctr, have, lo):
    """The next 32-bit word and the reader state ``(ctr, have, lo)``: high half of
    output ``ctr`` first, its low half buffered for the next call."""
    if have != _U0:
        return lo, ctr, _U0, lo
    z = output_at(seed, gamma, ctr)
    return z >> _U32, ctr + _U1, _U1, z & MASK32


@cuda.jit(device=True)
def mulhilo64(a, b):
    """High and low 64-bit halves of the 128-bit product ``a * b``, from 32-bit
    halves (portable: the simulator has no ``umul64hi``)."""
    a_lo = a & MASK32
    a_hi = a >> _U32
    b_lo = b & MASK32
    b_hi = b >> _U32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _U32) + (p1 & MASK32) + (p2 & MASK32)
    hi = p3 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32)
    lo = (mid << _U32) | (p0 & MASK32)
    return hi, lo


@cuda.jit(device=True)
def bounded(seed, gamma, ctr, have, lo, un, thresh):
    """Lemire's exactly uniform draw in ``[0, un)`` with rejection: one word per
    attempt below ``2**32``, two (high word first) above.  Returns the value and
    the reader state."""
    if un <= MASK32:
        x, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
        m = x * un
        while (m & MASK32) < thresh:
            x, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
            m = x * un
        return m >> _U32, ctr, have, lo
    hi_w, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
    lo_w, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
    mhi, mlo = mulhilo64((hi_w << _U32) | lo_w, un)
    while mlo < thresh:
        hi_w, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
        lo_w, ctr, have, lo = next_word(seed, gamma, ctr, have, lo)
        mhi, mlo = mulhilo64((hi_w << _U32) | lo_w, un)
    return mhi, ctr, have, lo


@cuda.jit(device=True)
def uniform_at(seed, gamma, bctr, i):
    """Uniform double ``i`` of the replicate whose first counter is ``bctr``: two
    words from a reader that starts aligned are exactly output ``bctr + i``."""
    z = output_at(seed, gamma, bctr + np.uint64(i))
    return np.float64(z >> _U11) * _TWO53_INV


@cuda.jit(device=True)
def iid_draws(z, un, thresh):
    """The iid draws that SplitMix64 output ``z`` makes: ``(count, r0, r1)``.

    The reader of :func:`bounded` starts a replicate aligned on an output, so for
    ``un < 2**32`` every output is two attempts (high word, then low word), each
    a draw unless Lemire's test rejects it; above ``2**32`` an attempt takes two
    words, i.e. exactly one output.  Reading a whole output per step keeps the
    threads of a warp in step (a word reader makes them diverge after their
    first rejection)."""
    if un <= MASK32:
        m0 = (z >> _U32) * un
        m1 = (z & MASK32) * un
        a0 = (m0 & MASK32) >= thresh
        a1 = (m1 & MASK32) >= thresh
        r0 = np.int64(m0 >> _U32)
        r1 = np.int64(m1 >> _U32)
        if a0:
            return (2 if a1 else 1), r0, r1
        return (1 if a1 else 0), r1, r1
    mhi, mlo = mulhilo64(z, un)
    return (1 if mlo >= thresh else 0), np.int64(mhi), np.int64(mhi)


@cuda.jit(device=True)
def block_row(
    scheme,
    seed,
    seed_l,
    gamma,
    bctr,
    un_draw,
    thresh,
    n,
    L,
    stride,
    log_q,
    amb_rel,
    ctr,
    have,
    lo,
    cur,
    rem,
    j,
    amb,
):
    """The next row of a block replicate, then the advanced state.

    State: the "block_starts" reader ``(ctr, have, lo)``, the next row of the
    current block ``cur``, rows left in it ``rem``, blocks drawn ``j``, and
    ``amb`` (1 once a stationary block length came within ``amb_rel`` (relative)
    of a rounding boundary of ``floor``: the device's ``log`` may differ from the
    CPU's by an ulp, so such a replicate is recomputed on the host).
    """
    if rem == 0:
        s, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un_draw, thresh)
        if scheme == FIXED_BLOCKS:
            cur = np.int64(s) * stride
            rem = L
        else:
            u = uniform_at(seed_l, gamma, bctr, j)
            g = math.log(1.0 - u) / log_q
            rem = n if g >= n else 1 + np.int64(g)
            if math.floor(g - g * amb_rel) != math.floor(g + g * amb_rel):
                amb = 1
            cur = np.int64(s)
        j += 1
    row = cur
    cur += 1
    if cur == n:
        cur = 0
    rem -= 1
    return row, ctr, have, lo, cur, rem, j, amb


@cuda.jit(device=True)
def next_rows(
    scheme,
    seed,
    seed_l,
    gamma,
    bctr,
    un_draw,
    thresh,
    n,
    L,
    stride,
    log_q,
    amb_rel,
    want,
    ctr,
    have,
    lo,
    cur,
    rem,
    j,
    amb,
):
    """The next ``count`` (at most ``want``, 1 or 2) rows ``r0, r1`` of an index
    replicate, then the advanced state (see :func:`block_row`; iid uses only
    ``ctr``, the next output).  iid may give fewer rows than wanted (rejected
    words); block schemes give exactly ``want``."""
    if scheme == IID:
        count, r0, r1 = iid_draws(output_at(seed, gamma, ctr), un_draw, thresh)
        return min(count, want), r0, r1, ctr + _U1, have, lo, cur, rem, j, amb
    r0, ctr, have, lo, cur, rem, j, amb = block_row(
        scheme,
        seed,
        seed_l,
        gamma,
        bctr,
        un_draw,
        thresh,
        n,
        L,
        stride,
        log_q,
        amb_rel,
        ctr,
        have,
        lo,
        cur,
        rem,
        j,
        amb,
    )
    r1 = r0
    if want > 1:
        r1, ctr, have, lo, cur, rem, j, amb = block_row(
            scheme,
            seed,
            seed_l,
            gamma,
            bctr,
            un_draw,
            thresh,
            n,
            L,
            stride,
            log_q,
            amb_rel,
            ctr,
            have,
            lo,
            cur,
            rem,
            j,
            amb,
        )
    return want, r0, r1, ctr, have, lo, cur, rem, j, amb


@cuda.jit(device=True)
def poisson_at(seed, gamma, bctr, i):
    """Poisson(1) count of row ``i``: inversion of uniform ``i`` (capped at 20)."""
    u = uniform_at(seed, gamma, bctr, i)
    k = 0
    p = _EXP_MINUS_1
    cdf = _EXP_MINUS_1
    while u >= cdf and k < _POISSON_MAX:
        k += 1
        p = p / k
        cdf += p
    return np.float64(k)


@cuda.jit(device=True)
def exp_at(seed, gamma, bctr, i):
    """Unnormalized flat-Dirichlet weight of row ``i``: ``-log(1 - u_i)`` (``1 -
    u_i`` is exact), the CPU's bits."""
    return neg_log(dadd(1.0, -uniform_at(seed, gamma, bctr, i)))


@cuda.jit(device=True)
def weight_at(scheme, seed, gamma, bctr, i, scale):
    """Weight of row ``i``: a Poisson count, or ``Exp(1) * scale`` (rounded once,
    as the CPU's fill)."""
    if scheme == POISSON:
        return poisson_at(seed, gamma, bctr, i)
    return dmul(exp_at(seed, gamma, bctr, i), scale)


@cuda.jit(device=True)
def dirichlet_scale(seed, gamma, bctr, n):
    """``n / sum_i Exp_i`` summed in row order, as the CPU's fill does."""
    total = 0.0
    for i in range(n):
        total = dadd(total, exp_at(seed, gamma, bctr, i))
    return ddiv(np.float64(n), total)
