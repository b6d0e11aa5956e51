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
6. Exp(1) variates (the Bayesian bootstrap's weights, purpose "dirichlet") take one
   uniform per row, ``u_i`` of output ``b * 2**32 + i``: ``e_i = -log(1 - u_i)``
   (``1 - u_i`` is exact), computed by skboot's own logarithm
   (:mod:`skboot._random._exp`: a fixed sequence of IEEE-754 double operations,
   no library call, no fused multiply-add, within 1 ulp).  Replicate ``b``'s
   weights are ``e_i * (n / T)``, ``T`` the sum of the ``e_i`` in row order.

Every skboot code path (fused numba kernels, Python callables, scikit-learn
splitters, the CUDA kernels) reads this one stream, so the replicates a user gets do
not depend on the statistic, the chunk size, ``n_jobs``, the joblib backend, the
platform or the device.  The definition is versioned by :data:`STREAM_VERSION`;
changing any step above is a breaking change.

Versions
--------
1. The first definition, with ``e_i = -log1p(-u_i)`` from the C library, whose last
   bit could differ between operating systems and devices.
2. Step 6 as above: the Bayesian weights are the same bits everywhere and differ
   from version 1's in their last bits.  Every other draw is version 1's, so the
   replicates of every other resampler are unchanged.

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

from skboot._validation import param_error

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
PURPOSE_STRIDE = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
MASK32 = np.uint64(0xFFFFFFFF)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
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
    # 3 ("groups") is retired: never read; not reused, so no stream changes
    "block_starts": 4,
    "block_lengths": 5,
    "nested": 6,
    # random groups of a delete-a-group jackknife (replicate 0)
    "jackknife": 7,
    # Fisher-Yates shuffles of permutation tests (skboot.significance)
    "permutation": 8,
    # per-replicate generators of Monte Carlo tests (skboot.significance)
    "monte_carlo": 9,
    # wild-bootstrap multipliers (skboot.model_based): weight i of replicate b
    "wild": 10,
    # other model-based draws (skboot.model_based), e.g. burn-in start values
    "model": 11,
    # parametric bootstrap (skboot.model_based): the Philox key of replicate b's
    # numpy Generator, read at position b
    "parametric": 12,
    # inner replicates of the calibrated intervals' double bootstrap: inner
    # replicate c of outer replicate b is replicate b * n_inner + c
    "calibration": 13,
    # the data-parallel schemes of dask collections (skboot._run._dask_exact):
    # the conditional binomials that split replicate b's draws among the
    # partitions read this stream at b * 2**32; partition j's row draws (stratum
    # s of S) read its sub-stream j * S + s + 1; group h's Poisson count reads
    # output b of the stream seeded mix64(seed ^ h)
    "data_parallel": 15,
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
    return z >> _U32, ctr + _U1, not NO_HAVE, z & MASK32


@njit(cache=True, inline="always")
def _mulhilo64(a, b):
    """High and low 64-bit halves of the 128-bit product of two uint64 values."""
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


@njit(cache=True, inline="always")
def lemire_threshold(n):
    """Rejection threshold ``2**w mod n`` for Lemire's method (w = 32 or 64)."""
    n = np.uint64(n)
    if n <= MASK32:
        return ((MASK32 + _U1) - n) % n
    return (_U0 - n) % n


@njit(cache=True)
def bounded(seed, gamma, ctr, have, lo, n, thresh):
    """Draw an exactly uniform integer in ``[0, n)``; returns (value, reader state)."""
    n = np.uint64(n)
    if n <= MASK32:
        x, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
        m = x * n
        low = m & MASK32
        while low < thresh:
            x, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
            m = x * n
            low = m & MASK32
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


@njit(cache=True, inline="always")
def unit_double(x):
    """The double in ``[0, 1)`` of a 64-bit word: its top 53 bits times
    ``2**-53`` (the one definition of a uniform in the stream)."""
    return np.float64(x >> _U11) * _TWO53_INV


@njit(cache=True)
def uniform01(seed, gamma, ctr, have, lo):
    """Draw a double in ``[0, 1)`` with 53 random bits from two words."""
    hi_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    lo_w, ctr, have, lo = _next_word(seed, gamma, ctr, have, lo)
    return unit_double((hi_w << _U32) | lo_w), ctr, have, lo


@njit(cache=True, inline="always")
def uniform_at(seed, gamma, t):
    """The uniform of SplitMix64 output ``t``: what :func:`uniform01` returns from
    a reader at counter ``t`` with no buffered half (its two words are that
    output's halves), without the reader state, for kernels that read uniform
    ``j`` of a replicate at counter ``b * 2**32 + j``."""
    return unit_double(splitmix_at(seed, gamma, t))


@njit(cache=True, inline="always")
def replicate_counter(b):
    """First SplitMix64 counter of replicate ``b``: ``b * 2**32``."""
    return np.uint64(b) << _U32


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

    def nested(self, slot: int) -> NestedKey:
        """The key of a nested resampling that reads purpose slot ``slot``.

        Its "indices" stream is this key's ``slot`` stream; its purpose ``p``
        (any other) has the seed ``mix64(s + (p + 1) * PURPOSE_STRIDE)``, with
        ``s`` the seed of ``slot``, as a root key of seed ``s`` would, and the
        increment is this key's.  So every draw of a plan built on it (the
        inner replicates of the calibrated intervals: block starts, block
        lengths, Poisson counts) is a pure function of this key and ``slot``,
        and never meets a stream of this key's own purposes.
        """
        return NestedKey(self.seed, self.gamma, self.entropy, self.spawn_key, slot)

    def reproducer(self) -> Any:
        """A ``random_state`` value that recreates this key."""
        if self.spawn_key or isinstance(self.entropy, (list, tuple)):
            # a spawned key, or entropy given as a sequence of ints (which
            # ``check_random_state`` accepts only inside a SeedSequence)
            return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)
        return self.entropy


@dataclass(frozen=True)
class NestedKey(RootKey):
    """A :class:`RootKey` whose streams are those of :meth:`RootKey.nested`.

    Attributes
    ----------
    slot : int
        The purpose slot of the parent key that it reads.
    """

    slot: int = 0

    def purpose_seed(self, purpose: int) -> np.uint64:
        """The seed of ``purpose``: the parent's ``slot`` seed for "indices",
        else derived from it."""
        base = RootKey.purpose_seed(self, self.slot)
        if purpose == PURPOSE["indices"]:
            return base
        m = (1 << 64) - 1
        return np.uint64(
            _mix64_py((int(base) + (purpose + 1) * int(PURPOSE_STRIDE)) & m)
        )


_RANDOM_STATES = (
    "None, a non-negative int, a numpy SeedSequence, Generator or RandomState"
)


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
            raise param_error("random_state", owner, _RANDOM_STATES, random_state)
        return RootKey.from_seed_sequence(np.random.SeedSequence(int(random_state)))
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**32, size=4, dtype=np.uint64)
    elif isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2**32, size=4, dtype=np.uint64)
    else:
        raise param_error("random_state", owner, _RANDOM_STATES, random_state)
    entropy = 0
    for w in words:
        entropy = (entropy << 32) | int(w)
    return RootKey.from_seed_sequence(np.random.SeedSequence(entropy))
