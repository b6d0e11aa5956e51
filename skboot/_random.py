"""Counter-based random streams derived from (root key, purpose, replicate, position).

The stream
----------
skboot never stores a random generator per replicate. Draw ``j`` of replicate ``b``
for purpose ``p`` is a pure function of ``(key, p, b, j)``:

1. The root seed is normalized once into a :class:`RootKey`: 128 bits produced by
   :class:`numpy.random.SeedSequence` give a 64-bit ``seed`` and an odd 64-bit
   ``gamma`` (the SplitMix64 increment).  ``gamma`` goes through the "mixGamma"
   step of Steele, Lea & Flood (2014), which forces enough bit transitions, so two
   root seeds never yield shifted copies of one sequence.
2. Each purpose (indices, Poisson counts, block starts, ...) gets its own 64-bit
   seed ``seed_p = mix64(seed + (p + 1) * PURPOSE_STRIDE)``.
3. SplitMix64 (Steele, Lea & Flood 2014) is read at counter ``t = b * 2**32 + i``:
   ``z_t = mix64(seed_p + (t + 1) * gamma)`` where ``mix64`` is Stafford's
   "variant 13" finalizer used by SplitMix64.  Every 64-bit output is split into two
   32-bit words, high half first, so word ``j`` of replicate ``b`` is half
   ``j % 2`` of ``z_{b * 2**32 + j // 2}``.
4. Bounded integers in ``[0, n)`` use Lemire's multiply-shift with rejection
   (Lemire 2019), exactly uniform.  For ``n < 2**32`` one word is used per attempt;
   for larger ``n`` two consecutive words form a 64-bit value (high word first).
5. Uniform doubles in ``[0, 1)`` take two consecutive words, ``(hi << 32 | lo) >> 11``
   times ``2**-53``.

Every skboot code path (fused numba kernels, Python callables, scikit-learn
splitters) reads this one stream, so the replicates a user gets do not depend on the
statistic, the chunk size, ``n_jobs`` or the joblib backend.  The definition is
versioned by :data:`STREAM_VERSION`; changing any step above is a breaking change.

References
----------
.. [1] G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number
       generators", OOPSLA 2014.
.. [2] D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1),
       2019.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "PURPOSE",
    "STREAM_VERSION",
    "RootKey",
    "check_random_state",
    "fill_indices",
    "reference_indices",
    "reference_words",
]

#: Version of the stream definition recorded on every result.
STREAM_VERSION = 1

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
PURPOSE_STRIDE = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_G1 = np.uint64(0xFF51AFD7ED558CCD)
_G2 = np.uint64(0xC4CEB9FE1A85EC53)
_MASK32 = np.uint64(0xFFFFFFFF)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U33 = np.uint64(33)
_U11 = np.uint64(11)
_U1 = np.uint64(1)
_U0 = np.uint64(0)
_TWO53_INV = 1.0 / 9007199254740992.0
# Typed (non-literal) constants: passing a bare ``False`` or ``0`` to a numba
# function makes numba compile an extra Literal-typed specialization of it.
NO_HAVE = np.bool_(False)
_I0 = np.int64(0)
_I1 = np.int64(1)

#: Purpose slots.  Each kind of randomness reads its own stream, so adding a
#: purpose never shifts the draws of another.
PURPOSE = {
    "indices": 0,
    "poisson": 1,
    "dirichlet": 2,
    "groups": 3,
    "block_starts": 4,
    "block_lengths": 5,
    "nested": 6,
    # random groups of a delete-a-group jackknife (replicate 0)
    "jackknife": 7,
    # Fisher-Yates shuffles of permutation tests (skboot.significance)
    "permutation": 8,
    # per-replicate generators of Monte Carlo tests (skboot.significance)
    "monte_carlo": 9,
    # sample j of independent samples reads slot 16 + j
    "independent": 16,
}


# ---------------------------------------------------------------------------
# scalar building blocks (numba; also callable from Python for testing)
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def mix64(z):
    """Stafford's variant-13 64-bit finalizer, as used by SplitMix64."""
    z = np.uint64(z)
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always")
def splitmix_at(seed, gamma, t):
    """Output ``t`` (0-based) of SplitMix64 with the given seed and increment."""
    return mix64(np.uint64(seed) + (np.uint64(t) + _U1) * np.uint64(gamma))


@njit(cache=True, inline="always")
def _next_word(seed, gamma, ctr, have, lo):
    """Return the next 32-bit word and the updated reader state.

    The reader state is ``(ctr, have, lo)``: the next SplitMix64 counter, whether a
    low half is buffered, and that low half.
    """
    if have:
        return lo, ctr, NO_HAVE, lo
    z = mix64(seed + (ctr + _U1) * gamma)
    return z >> _U32, ctr + _U1, not NO_HAVE, z & _MASK32


@njit(cache=True, inline="always")
def _mulhilo64(a, b):
    """High and low 64-bit halves of the 128-bit product of two uint64 values."""
    a_lo = a & _MASK32
    a_hi = a >> _U32
    b_lo = b & _MASK32
    b_hi = b >> _U32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _U32) + (p1 & _MASK32) + (p2 & _MASK32)
    hi = p3 + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32)
    lo = (mid << _U32) | (p0 & _MASK32)
    return hi, lo


@njit(cache=True, inline="always")
def lemire_threshold(n):
    """Rejection threshold ``2**w mod n`` for Lemire's method (w = 32 or 64)."""
    n = np.uint64(n)
    if n <= _MASK32:
        return ((_MASK32 + _U1) - n) % n
    return (_U0 - n) % n


@njit(cache=True)
def bounded(seed, gamma, ctr, have, lo, n, thresh):
    """Draw an exactly uniform integer in ``[0, n)``; returns (value, reader state)."""
    n = np.uint64(n)
    if n <= _MASK32:
        x, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
        m = x * n
        low = m & _MASK32
        while low < thresh:
            x, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
            m = x * n
            low = m & _MASK32
        return m >> _U32, ctr, have, lo
    hi_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    lo_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    x = (hi_w << _U32) | lo_w
    mhi, mlo = _mulhilo64(x, n)
    while mlo < thresh:
        hi_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
        lo_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
        x = (hi_w << _U32) | lo_w
        mhi, mlo = _mulhilo64(x, n)
    return mhi, ctr, have, lo


@njit(cache=True)
def uniform01(seed, gamma, ctr, have, lo):
    """Draw a double in ``[0, 1)`` with 53 random bits from two words."""
    hi_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    lo_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    x = ((hi_w << _U32) | lo_w) >> _U11
    return np.float64(x) * _TWO53_INV, ctr, have, lo


@njit(cache=True, inline="always")
def replicate_counter(b):
    """First SplitMix64 counter of replicate ``b``: ``b * 2**32``."""
    return np.uint64(b) << _U32


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

        if not have and un <= _MASK32 and not (c & 1) and fast_pairs(..., c >> 1):
            ctr = ctr + np.uint64(c >> 1)
        else:
            ctr, have, lo = draw_block(...)
    """
    # un < 2**32 here: masking tells the compiler both factors fit in 32 bits, so
    # it multiplies with the cheap 32 x 32 -> 64 vector instruction
    u = un & _MASK32
    low = _MASK32
    for t in range(h):
        z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
        m0 = (z >> _U32) * u
        m1 = (z & _MASK32) * u
        buf[2 * t] = m0 >> _U32
        buf[2 * t + 1] = m1 >> _U32
        low = min(low, min(m0 & _MASK32, m1 & _MASK32))
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
    u = un & _MASK32
    low = _MASK32
    for t in range(h):
        z = mix64(seed + (ctr + np.uint64(t) + _U1) * gamma)
        m0 = (z >> _U32) * u
        m1 = (z & _MASK32) * u
        buf[t] = m0 >> _U32
        buf[h + t] = m1 >> _U32
        low = min(low, min(m0 & _MASK32, m1 & _MASK32))
    return low >= thresh


@njit(cache=True)
def _draw_block_resume(seed, gamma, ctr, have, lo, un, thresh, buf, count):
    """:func:`draw_block` when a low half is buffered (after a rejection) or
    ``n >= 2**32``: the buffered half is consumed first, so one rejection does not
    push every later block onto the word-by-word path."""
    if un > _MASK32:
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
    but for ``n < 2**32`` the words are generated two per output in a loop the
    compiler vectorizes, and the block is redone word by word only if one of its
    words is rejected (probability about ``n / 2**32`` per word).  Blocks after a
    rejection that left a buffered low half go through
    :func:`_draw_block_resume`.  ``buf`` is uint64 (unsigned indices spare the
    gathers numba's negative-index check).  Returns ``(ctr, have, lo)``.
    """
    if have or un > _MASK32:
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
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    m = out.shape[0]
    done = 0
    while done < m:
        c = min(FAST_BLOCK, m - done)
        if (
            not have
            and un <= _MASK32
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
            and un <= _MASK32
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
def fill_pool_indices(seed, gamma, b, codes, pools, offsets, sizes, out):
    """Stratified draws: ``out[i]`` is a uniform row of the stratum of row ``i``.

    ``pools[offsets[s]:offsets[s] + sizes[s]]`` lists the rows of stratum ``s``.
    Words are consumed in row order, one bounded draw per row.
    """
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    for i in range(codes.shape[0]):
        s = codes[i]
        un = np.uint64(sizes[s])
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, lemire_threshold(un))
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


@njit(cache=True, nogil=True)
def fill_dirichlet_weights(seed, gamma, b, out):
    """Flat Dirichlet weights scaled to sum to ``len(out)`` (mean weight 1).

    ``out[i] = -log1p(-u_i)`` (Exp(1)), then normalized; Rubin (1981).
    """
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    total = 0.0
    for i in range(out.shape[0]):
        u, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
        e = -np.log1p(-u)
        out[i] = e
        total += e
    scale = out.shape[0] / total
    for i in range(out.shape[0]):
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


# ---------------------------------------------------------------------------
# root key
# ---------------------------------------------------------------------------
def _mix64_py(z: int) -> int:
    m = (1 << 64) - 1
    z &= m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def _mix_gamma(z: int) -> int:
    """Steele, Lea & Flood's mixGamma: a well-mixed odd increment."""
    m = (1 << 64) - 1
    z &= m
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & m
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & m
    z = (z ^ (z >> 33)) | 1
    if bin(z ^ (z >> 1)).count("1") < 24:
        z ^= 0xAAAAAAAAAAAAAAAA
    return z


@dataclass(frozen=True)
class RootKey:
    """The normalized root of every random stream of one bootstrap run.

    Attributes
    ----------
    seed : int
        64-bit SplitMix64 seed (before the per-purpose offset).
    gamma : int
        Odd 64-bit SplitMix64 increment derived from the same entropy.
    entropy : int or None
        The entropy that reproduces this key (``random_state=entropy``); recorded
        when the key was drawn from fresh OS entropy or from a Generator.
    spawn_key : tuple of int
        The SeedSequence spawn key, if any.
    """

    seed: int
    gamma: int
    entropy: Any = None
    spawn_key: tuple[int, ...] = ()

    @classmethod
    def from_seed_sequence(cls, ss: np.random.SeedSequence) -> RootKey:
        state = ss.generate_state(2, np.uint64)
        return cls(
            seed=int(state[0]),
            gamma=_mix_gamma(int(state[1])),
            entropy=ss.entropy,
            spawn_key=tuple(int(k) for k in ss.spawn_key),
        )

    def purpose_seed(self, purpose: int) -> np.uint64:
        """The 64-bit seed of one purpose slot."""
        m = (1 << 64) - 1
        return np.uint64(
            _mix64_py((self.seed + (purpose + 1) * int(PURPOSE_STRIDE)) & m)
        )

    @property
    def gamma_u64(self) -> np.uint64:
        return np.uint64(self.gamma)

    def stream(self, purpose: int) -> tuple[np.uint64, np.uint64]:
        """``(seed_p, gamma)`` as uint64 scalars, ready for a numba kernel."""
        return self.purpose_seed(purpose), np.uint64(self.gamma)

    def reproducer(self) -> Any:
        """A ``random_state`` value that recreates this key."""
        if self.spawn_key:
            return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)
        return self.entropy


def check_random_state(random_state: Any, *, owner: str = "skboot") -> RootKey:
    """Normalize ``random_state`` into a :class:`RootKey`.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence, numpy.random.Generator or
        numpy.random.RandomState
        ``None`` draws fresh OS entropy (recorded on the key so the run can be
        repeated); an int (>= 0) or SeedSequence is used as is; a Generator or
        RandomState is advanced by one draw of 128 bits, which become the entropy.
    owner : str
        Name used in the error message.
    """
    if random_state is None:
        return RootKey.from_seed_sequence(np.random.SeedSequence())
    if isinstance(random_state, np.random.SeedSequence):
        return RootKey.from_seed_sequence(random_state)
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(
        random_state, bool
    ):
        if int(random_state) < 0:
            raise ValueError(
                f"The 'random_state' parameter of {owner} must be None, a "
                "non-negative int, a numpy SeedSequence, Generator or RandomState. "
                f"Got {random_state!r} instead."
            )
        return RootKey.from_seed_sequence(np.random.SeedSequence(int(random_state)))
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**32, size=4, dtype=np.uint64)
    elif isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2**32, size=4, dtype=np.uint64)
    else:
        raise ValueError(
            f"The 'random_state' parameter of {owner} must be None, a non-negative "
            "int, a numpy SeedSequence, Generator or RandomState. "
            f"Got {random_state!r} instead."
        )
    entropy = 0
    for w in words:
        entropy = (entropy << 32) | int(w)
    return RootKey.from_seed_sequence(np.random.SeedSequence(entropy))


# ---------------------------------------------------------------------------
# slow pure-numpy reference of the same stream (for tests)
# ---------------------------------------------------------------------------
def reference_words(key: RootKey, purpose: int, b: int, count: int) -> np.ndarray:
    """The first ``count`` 32-bit words of replicate ``b``'s stream, in numpy."""
    seed = int(key.purpose_seed(purpose))
    n_out = (count + 1) // 2
    # the counter is a uint64, as in the kernels (b >= 2**32 wraps around)
    t = np.arange(n_out, dtype=np.uint64) + np.uint64((b << 32) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (t + np.uint64(1)) * np.uint64(key.gamma)
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    words = np.empty(2 * n_out, dtype=np.uint64)
    words[0::2] = z >> np.uint64(32)
    words[1::2] = z & _MASK32
    return words[:count]


def reference_indices(
    key: RootKey, purpose: int, b: int, n: int, size: int
) -> np.ndarray:
    """Slow reference of :func:`fill_indices` (Lemire with rejection, in Python)."""
    out = np.empty(size, dtype=np.int64)
    budget = 2 * size + 64
    words = [int(w) for w in reference_words(key, purpose, b, budget)]
    pos = 0

    def nxt() -> int:
        nonlocal pos, words, budget
        if pos >= len(words):
            budget *= 2
            words = [int(w) for w in reference_words(key, purpose, b, budget)]
        w = words[pos]
        pos += 1
        return w

    if n < 2**32:
        thresh = (2**32 - n) % n
        for i in range(size):
            m = nxt() * n
            while (m & 0xFFFFFFFF) < thresh:
                m = nxt() * n
            out[i] = m >> 32
    else:
        thresh = (2**64 - n) % n
        for i in range(size):
            x = (nxt() << 32) | nxt()
            m = x * n
            while (m & ((1 << 64) - 1)) < thresh:
                x = (nxt() << 32) | nxt()
                m = x * n
            out[i] = m >> 64
    return out


def reference_uniforms(key: RootKey, purpose: int, b: int, size: int) -> np.ndarray:
    """Slow reference of the uniform doubles of replicate ``b`` (two words each)."""
    words = reference_words(key, purpose, b, 2 * size).astype(np.uint64)
    x = ((words[0::2] << np.uint64(32)) | words[1::2]) >> np.uint64(11)
    return x.astype(np.float64) * _TWO53_INV
