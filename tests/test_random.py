"""Tests of the counter-based stream (skboot._random).

Three kinds of test:

* known answers: SplitMix64 and Stafford's mix64 against published outputs and an
  independent pure-Python implementation, and a pinned prefix of the stream (a
  change there is a breaking change of ``STREAM_VERSION``);
* equivalence: every numba kernel against the slow pure-numpy reference, bit for
  bit, over many (seed, purpose, replicate, n, size);
* statistics: exact uniformity and independence, each as a goodness-of-fit test
  whose false-failure probability per run is stated next to it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from scipy import stats

from skboot._random import (
    FAST_BLOCK,
    GOLDEN_GAMMA,
    POISSON_MAX,
    PURPOSE,
    PURPOSE_STRIDE,
    STREAM_VERSION,
    RootKey,
    bounded,
    check_random_state,
    draw_block,
    fill_dirichlet_weights,
    fill_indices,
    fill_indices_chunk,
    fill_indices_kernel,
    fill_poisson_counts,
    fill_pool_indices,
    index_dtype,
    lemire_threshold,
    mix64,
    reference_dirichlet,
    reference_indices,
    reference_uniforms,
    reference_words,
    replicate_counter,
    splitmix_at,
    uniform01,
    uniform_at,
)

MASK64 = (1 << 64) - 1

#: Significance level of every statistical test in this module: each fails by
#: chance with probability 1e-6 per run (there are fewer than 20 of them, so the
#: whole module fails by chance with probability below 2e-5).
ALPHA = 1e-6


# ---------------------------------------------------------------------------
# an independent pure-Python SplitMix64 (Steele, Lea & Flood 2014; Vigna's C code)
# ---------------------------------------------------------------------------
def stafford13(z: int) -> int:
    """Stafford's "Mix13" finalizer, written from the published constants."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class PySplitMix64:
    """Sequential SplitMix64: ``state += gamma; return mix(state)``."""

    def __init__(self, seed: int, gamma: int = 0x9E3779B97F4A7C15) -> None:
        self.state = seed & MASK64
        self.gamma = gamma

    def next(self) -> int:
        self.state = (self.state + self.gamma) & MASK64
        return stafford13(self.state)


def py_words(key: RootKey, purpose: int, b: int, count: int) -> list[int]:
    """The documented stream, from scratch in Python ints: word ``j`` of replicate
    ``b`` is half ``j % 2`` (high first) of output ``b * 2**32 + j // 2`` of
    SplitMix64 seeded with ``mix64(seed + (purpose + 1) * PURPOSE_STRIDE)``."""
    seed_p = stafford13((key.seed + (purpose + 1) * int(PURPOSE_STRIDE)) & MASK64)
    out = []
    for j in range(count):
        t = (b << 32) + j // 2
        z = stafford13((seed_p + (t + 1) * key.gamma) & MASK64)
        out.append(z >> 32 if j % 2 == 0 else z & 0xFFFFFFFF)
    return out


def py_mix_gamma(z: int) -> int:
    """Steele, Lea & Flood's mixGamma (Java SplittableRandom), from the paper."""
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & MASK64
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & MASK64
    z = (z ^ (z >> 33)) | 1
    if bin(z ^ (z >> 1)).count("1") < 24:
        z ^= 0xAAAAAAAAAAAAAAAA
    return z


# ---------------------------------------------------------------------------
# known answers
# ---------------------------------------------------------------------------
#: SplitMix64 seeded with 1234567, golden gamma: the published first outputs
#: (Vigna's splitmix64.c; also the reference values of the xoshiro seeding docs).
SPLITMIX_1234567 = [
    6457827717110365317,
    3203168211198807973,
    9817491932198370423,
    4593380528125082431,
    16408922859458223821,
]


def test_splitmix_known_answers() -> None:
    got = [
        int(splitmix_at(np.uint64(1234567), GOLDEN_GAMMA, np.uint64(t)))
        for t in range(5)
    ]
    assert got == SPLITMIX_1234567


def test_splitmix_at_is_random_access_to_the_sequential_generator() -> None:
    gen = PySplitMix64(1234567)
    seq = [gen.next() for _ in range(5)]
    assert seq == SPLITMIX_1234567
    # Random access far out, and with a non-golden odd gamma.
    gamma = 0x5851F42D4C957F2D | 1
    gen = PySplitMix64(0xDEADBEEF, gamma)
    seq = [gen.next() for _ in range(1000)]
    for t in (0, 1, 2, 500, 999):
        assert int(splitmix_at(np.uint64(0xDEADBEEF), np.uint64(gamma), t)) == seq[t]


@pytest.mark.parametrize(
    "z",
    [0, 1, 2, 0x9E3779B97F4A7C15, 0x0123456789ABCDEF, 2**63, MASK64, 1234567],
)
def test_mix64_matches_pure_python(z: int) -> None:
    assert int(mix64(np.uint64(z))) == stafford13(z)


def test_mix64_fixed_values() -> None:
    # mix64(0) == 0 is a property of the xor-shift-multiply finalizer; the other
    # value is output 0 of SplitMix64(0) (Vigna's splitmix64.c with seed 0).
    assert int(mix64(np.uint64(0))) == 0
    assert stafford13(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF
    assert int(mix64(np.uint64(0x9E3779B97F4A7C15))) == 0xE220A8397B1DCDAF


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1, 2**100 + 3])
@pytest.mark.parametrize("purpose", [0, 1, 6])
@pytest.mark.parametrize("b", [0, 1, 2**31 + 5])
def test_reference_words_follow_the_documented_definition(seed, purpose, b) -> None:
    key = check_random_state(seed)
    assert reference_words(key, purpose, b, 9).tolist() == py_words(key, purpose, b, 9)


def test_root_key_derivation_is_documented() -> None:
    ss = np.random.SeedSequence(42)
    state = ss.generate_state(2, np.uint64)
    key = check_random_state(42)
    assert key.seed == int(state[0])
    assert key.gamma == py_mix_gamma(int(state[1]))
    assert key.entropy == 42
    seed_p, gamma = key.stream(PURPOSE["poisson"])
    assert int(seed_p) == stafford13((key.seed + 2 * int(PURPOSE_STRIDE)) & MASK64)
    assert int(gamma) == key.gamma


def test_stream_is_pinned() -> None:
    """The first draws of a fixed seed.  If this test fails the stream changed:
    that is a breaking change and requires bumping STREAM_VERSION."""
    assert STREAM_VERSION == 2
    key = check_random_state(12345)
    out = np.empty((3, 8), np.int64)
    seed, gamma = key.stream(PURPOSE["indices"])
    fill_indices_chunk(seed, gamma, 0, np.uint64(1000), out)
    assert out.tolist() == PINNED_INDICES
    counts = np.empty(8, np.int64)
    fill_poisson_counts(*key.stream(PURPOSE["poisson"]), 0, counts)
    assert counts.tolist() == PINNED_POISSON
    weights = np.empty(8)
    fill_dirichlet_weights(*key.stream(PURPOSE["dirichlet"]), 0, weights)
    assert [w.hex() for w in weights.tolist()] == PINNED_DIRICHLET


PINNED_INDICES = [
    [709, 10, 419, 891, 797, 119, 681, 371],
    [424, 496, 638, 57, 755, 122, 453, 210],
    [518, 254, 65, 230, 857, 355, 531, 707],
]
PINNED_POISSON = [2, 2, 0, 2, 0, 0, 5, 1]
#: Stream version 2's Dirichlet weights (n = 8), every bit.
PINNED_DIRICHLET = [
    "0x1.dcc01d7ca006ap-1",
    "0x1.6ae3a602f89f4p-4",
    "0x1.5bb507e0e70b7p-1",
    "0x1.d47ba92a06db1p+0",
    "0x1.61b5cb8572e1fp+0",
    "0x1.04a9c45f5753ap+0",
    "0x1.46de7b240f386p-1",
    "0x1.6eccbc5034401p+0",
]


# ---------------------------------------------------------------------------
# numba kernels == pure-numpy reference, bit for bit
# ---------------------------------------------------------------------------
N_CASES = [
    2,
    3,
    7,
    1000,
    10**7,  # rejections rare but present (p ~ 1.2e-3 per word)
    3 * 2**30,  # rejections frequent (p = 1/4 per word)
    2**31 - 1,
    2**31 + 1,  # p ~ 1/2 per word; int64 output
    2**32 - 1,
    2**32,  # smallest n on the 64-bit path
    2**32 + 5,
    2**40 + 3,
    2**53 + 1,
]
SIZES = [0, 1, 2, 7, 255, 256, 257, 513, 1001]
SEED_PURPOSE_B = [
    (0, 0, 0),
    (1, 1, 1),
    (2**40 + 17, 4, 123_456),
    (987_654_321, 6, 2**31 + 5),
]


@pytest.mark.parametrize("n", N_CASES)
@pytest.mark.parametrize("seed, purpose, b", SEED_PURPOSE_B)
def test_fill_indices_matches_reference(n, seed, purpose, b) -> None:
    key = check_random_state(seed)
    for size in SIZES:
        expected = reference_indices(key, purpose, b, n, size)
        assert ((expected >= 0) & (expected < n)).all()
        out = np.empty(size, index_dtype(n))
        fill_indices(key, purpose, b, n, out)
        assert_array_equal(out, expected, err_msg=f"size={size}")
        # the kernel directly, with an int64 buffer whatever n
        out64 = np.full(size, -1, np.int64)
        s, g = key.stream(purpose)
        fill_indices_kernel(s, g, np.uint64(b), np.uint64(n), out64)
        assert_array_equal(out64, expected, err_msg=f"size={size}")


@pytest.mark.parametrize("n", [2, 7, 10**7, 3 * 2**30, 2**31 + 1, 2**40 + 3])
@pytest.mark.parametrize("b0", [0, 5, 2**32 - 5])
def test_fill_indices_chunk_matches_reference(n, b0) -> None:
    key = check_random_state(7)
    s, g = key.stream(PURPOSE["indices"])
    for rows, size in [(1, 1), (3, 257), (4, 600)]:
        expected = np.stack(
            [reference_indices(key, 0, b0 + k, n, size) for k in range(rows)]
        )
        out = np.empty((rows, size), index_dtype(n))
        fill_indices_chunk(s, g, b0, np.uint64(n), out)
        assert_array_equal(out, expected)
        # b0 given as uint64 gives the same rows
        out2 = np.empty((rows, size), np.int64)
        fill_indices_chunk(s, g, np.uint64(b0), np.uint64(n), out2)
        assert_array_equal(out2, expected)


def test_int32_and_int64_outputs_agree() -> None:
    key = check_random_state(3)
    a = np.empty(999, np.int32)
    b = np.empty(999, np.int64)
    fill_indices(key, 0, 4, 2**31 - 1, a)
    fill_indices(key, 0, 4, 2**31 - 1, b)
    assert_array_equal(a, b)
    assert index_dtype(2**31 - 1) == np.int32
    assert index_dtype(2**31) == np.int64


def test_int64_output_above_2_31() -> None:
    n = 3 * 2**31  # still on the 32-bit word path
    key = check_random_state(11)
    out = np.empty(4000, index_dtype(n))
    assert out.dtype == np.int64
    fill_indices(key, 0, 0, n, out)
    # 2/3 of the draws are >= 2**31; an int32 buffer would have wrapped them
    assert (out >= 2**31).mean() > 0.5
    assert_array_equal(out, reference_indices(key, 0, 0, n, 4000))
    assert ((out >= 0) & (out < n)).all()


def _reader_state(ctr, have, lo):
    return np.uint64(ctr), bool(have), np.uint64(lo)


def _draw_blocks(key, purpose, b, n, block_sizes, skip=0):
    """Draw with ``draw_block`` in blocks of the given sizes, after ``skip`` calls
    of ``bounded``; returns (draws, reader state)."""
    seed, gamma = key.stream(purpose)
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    ctr, have, lo = _reader_state(replicate_counter(b), False, 0)
    head = []
    for _ in range(skip):
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, thresh)
        ctr, have, lo = _reader_state(ctr, have, lo)
        head.append(int(v))
    buf = np.empty(max(block_sizes) + 1, np.int64)
    parts = [np.array(head, np.int64)]
    for c in block_sizes:
        buf[:] = -1
        ctr, have, lo = _reader_state(
            *draw_block(seed, gamma, ctr, have, lo, un, thresh, buf, c)
        )
        assert (buf[c:] == -1).all(), "draw_block wrote past count"
        parts.append(buf[:c].copy())
    return np.concatenate(parts), (ctr, have, lo)


def _bounded_sequence(key, purpose, b, n, count):
    seed, gamma = key.stream(purpose)
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    ctr, have, lo = _reader_state(replicate_counter(b), False, 0)
    out = []
    for _ in range(count):
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, thresh)
        ctr, have, lo = _reader_state(ctr, have, lo)
        out.append(int(v))
    return np.array(out, np.int64), (ctr, have, lo)


@pytest.mark.parametrize(
    "n",
    [
        7,
        10**7,  # some blocks fall back, others stay fast: exercises the drain
        3 * 2**30,  # threshold 2**30: nearly every block falls back
        2**31 + 1,  # threshold 2**31 - 1: about half the words rejected
        2**40 + 3,  # the 64-bit path never takes the fast loop
    ],
)
@pytest.mark.parametrize("skip", [0, 1, 3])
def test_draw_block_fast_path_and_fallback_match_reference(n, skip) -> None:
    key = check_random_state(2024)
    gen = np.random.default_rng(n + skip)
    blocks = [FAST_BLOCK, 1, 2, 255, 3, FAST_BLOCK, 17, 2 * FAST_BLOCK]
    blocks += gen.integers(1, FAST_BLOCK + 1, size=12).tolist()
    total = skip + sum(blocks)
    got, state = _draw_blocks(key, 0, 9, n, blocks, skip=skip)
    assert_array_equal(got, reference_indices(key, 0, 9, n, total))
    seq, seq_state = _bounded_sequence(key, 0, 9, n, total)
    assert_array_equal(got, seq)
    # the reader ends where ``total`` sequential calls of ``bounded`` end (the
    # buffered low half only means something when ``have`` is set)
    assert state[:2] == seq_state[:2]
    if state[1]:
        assert state[2] == seq_state[2]
    if n in (3 * 2**30, 2**31 + 1):
        # rejections did happen: more words were read than draws made
        words_read = 2 * int(state[0] - replicate_counter(9)) - int(state[1])
        assert words_read > total


def test_draw_block_rejections_happen_for_n_1e7() -> None:
    """Check the premise of the n=10**7 case above: over this many draws the
    fixed seed does hit rejections (so the fallback and the drain ran)."""
    key = check_random_state(2024)
    total = 20 * FAST_BLOCK
    _, (ctr, have, _) = _bounded_sequence(key, 0, 9, 10**7, total)
    words_read = 2 * int(ctr - replicate_counter(9)) - int(have)
    assert words_read > total


def test_uniform01_matches_reference() -> None:
    key = check_random_state(5)
    s, g = key.stream(PURPOSE["dirichlet"])
    ctr, have, lo = _reader_state(replicate_counter(3), False, 0)
    got = []
    for _ in range(100):
        u, ctr, have, lo = uniform01(s, g, ctr, have, lo)
        ctr, have, lo = _reader_state(ctr, have, lo)
        got.append(u)
    expected = reference_uniforms(key, PURPOSE["dirichlet"], 3, 100)
    assert_array_equal(np.array(got), expected)
    assert ((expected >= 0) & (expected < 1)).all()


def reference_poisson(key: RootKey, b: int, size: int) -> np.ndarray:
    """Poisson(1) by inversion of the reference uniforms, with the same sequential
    accumulation of the cdf as the kernel and the same cap."""
    u = reference_uniforms(key, PURPOSE["poisson"], b, size)
    p = math.exp(-1.0)
    cdf = [p]
    for k in range(1, POISSON_MAX + 1):
        p = p / k
        cdf.append(cdf[-1] + p)
    return np.minimum(np.searchsorted(np.array(cdf), u, side="right"), POISSON_MAX)


@pytest.mark.parametrize("seed", [0, 99])
@pytest.mark.parametrize("b", [0, 1, 2**33 + 7])
@pytest.mark.parametrize("size", [1, 2, 257, 5000])
def test_poisson_counts_match_reference(seed, b, size) -> None:
    key = check_random_state(seed)
    out = np.empty(size, np.int64)
    fill_poisson_counts(*key.stream(PURPOSE["poisson"]), b, out)
    assert_array_equal(out, reference_poisson(key, b, size))


@pytest.mark.parametrize("seed", [0, 99])
@pytest.mark.parametrize("b", [0, 1, 2**33 + 7])
@pytest.mark.parametrize("size", [1, 2, 257, 5000])
def test_dirichlet_weights_match_reference(seed, b, size) -> None:
    key = check_random_state(seed)
    out = np.empty(size, np.float64)
    fill_dirichlet_weights(*key.stream(PURPOSE["dirichlet"]), b, out)
    assert_array_equal(out, reference_dirichlet(key, b, size))
    # and they are -log1p(-u) normalized, to an ulp or two of the C library's
    u = reference_uniforms(key, PURPOSE["dirichlet"], b, size)
    e = -np.log1p(-u)
    np.testing.assert_allclose(out, e * (size / np.cumsum(e)[-1]), rtol=1e-15)
    assert (out > 0).all()
    assert math.isclose(out.sum(), size, rel_tol=1e-12)


def test_pool_indices_match_reference() -> None:
    """Stratified draws: one bounded draw per row from its stratum, words in row
    order, so the reference is the Lemire reference with a varying n."""
    key = check_random_state(8)
    codes = np.array([0, 1, 1, 2, 0, 2, 2, 2, 1, 0, 3], np.int64)
    order = np.argsort(codes, kind="stable").astype(np.int64)
    sizes = np.bincount(codes).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    out = np.empty(codes.shape[0], np.int64)
    fill_pool_indices(*key.stream(0), 6, codes, order, offsets, sizes, out)
    # reference: replay the words with per-row n
    words = iter(int(w) for w in reference_words(key, 0, 6, 1000))
    expected = []
    for c in codes:
        n = int(sizes[c])
        thresh = 2**32 % n
        m = next(words) * n
        while m & 0xFFFFFFFF < thresh:
            m = next(words) * n
        expected.append(int(order[offsets[c] + (m >> 32)]))
    assert out.tolist() == expected
    assert (codes[out] == codes).all()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**64 - 1),
    purpose=st.integers(0, 6),
    b=st.integers(0, 2**31),
    n=st.one_of(st.integers(2, 2**16), st.integers(2, 2**33), st.integers(2, 2**62)),
    size=st.integers(0, 700),
)
def test_fill_indices_matches_reference_property(seed, purpose, b, n, size) -> None:
    key = check_random_state(seed)
    out = np.empty(size, np.int64)
    fill_indices(key, purpose, b, n, out)
    assert_array_equal(out, reference_indices(key, purpose, b, n, size))


# ---------------------------------------------------------------------------
# Lemire thresholds
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n",
    [1, 2, 3, 7, 1000, 3 * 2**30, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 5, 2**40 + 3],
)
def test_lemire_threshold_is_2w_mod_n(n) -> None:
    expected = 2**32 % n if n < 2**32 else 2**64 % n
    assert int(lemire_threshold(np.uint64(n))) == expected


def test_lemire_rule_is_exact_for_every_n_with_a_small_word() -> None:
    """The rule the kernels implement (accept x when (x * n) mod 2**w >= 2**w mod n,
    return (x * n) >> w) maps the accepted words onto [0, n) exactly evenly.  With
    a 16-bit word all 2**16 words can be enumerated for every n up to 2**12."""
    w = 16
    x = np.arange(2**w, dtype=np.int64)
    for n in range(1, 2**12 + 1):
        m = x * n
        accepted = (m & (2**w - 1)) >= (2**w % n)
        counts = np.bincount(m[accepted] >> w, minlength=n)
        assert counts.shape == (n,)
        assert (counts == 2**w // n).all(), n


# ---------------------------------------------------------------------------
# check_random_state and the root key
# ---------------------------------------------------------------------------
def test_int_and_seed_sequence_give_the_same_key() -> None:
    assert check_random_state(5) == check_random_state(np.random.SeedSequence(5))
    assert check_random_state(np.int64(5)) == check_random_state(5)
    assert check_random_state(5) != check_random_state(6)
    assert check_random_state(5).reproducer() == 5


def test_spawned_seed_sequence_is_reproduced() -> None:
    child = np.random.SeedSequence(5).spawn(3)[2]
    key = check_random_state(child)
    assert key.spawn_key == (2,)
    assert key != check_random_state(5)
    assert check_random_state(key.reproducer()) == key


def test_seed_sequence_of_several_ints_is_reproduced() -> None:
    # its entropy is a list, which random_state accepts only inside a SeedSequence
    key = check_random_state(np.random.SeedSequence([1, 2]))
    again = key.reproducer()
    assert isinstance(again, np.random.SeedSequence)
    assert check_random_state(again) == key
    assert check_random_state(np.random.SeedSequence([1, 3])) != key


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
def test_generator_is_advanced(make) -> None:
    gen = make(3)
    k1 = check_random_state(gen)
    k2 = check_random_state(gen)
    assert k1 != k2  # the generator moved on
    assert check_random_state(make(3)) == k1  # and it is deterministic
    # the drawn entropy is recorded and reproduces the key
    assert isinstance(k1.reproducer(), int)
    assert check_random_state(k1.reproducer()) == k1


def test_none_draws_fresh_entropy_and_records_it() -> None:
    k1 = check_random_state(None)
    k2 = check_random_state(None)
    assert k1 != k2
    assert k1.entropy is not None
    assert check_random_state(k1.reproducer()) == k1
    out1 = np.empty(50, np.int64)
    out2 = np.empty(50, np.int64)
    fill_indices(k1, 0, 3, 100, out1)
    fill_indices(check_random_state(k1.reproducer()), 0, 3, 100, out2)
    assert_array_equal(out1, out2)


@pytest.mark.parametrize(
    "bad",
    [
        -1,
        -(2**70),
        1.0,
        1.5,
        "0",
        "seed",
        True,
        False,
        np.bool_(True),
        [1, 2],
        object(),
    ],
    ids=repr,
)
def test_bad_random_state_raises(bad) -> None:
    with pytest.raises(
        ValueError, match=r"'random_state' parameter of MyOwner must be"
    ):
        check_random_state(bad, owner="MyOwner")
    with pytest.raises(
        ValueError,
        match=r"None, a non-negative int, a numpy SeedSequence, Generator or "
        r"RandomState\. Got .* instead\.",
    ):
        check_random_state(bad)


def test_gammas_differ_and_are_odd() -> None:
    keys = [check_random_state(s) for s in range(200)]
    gammas = [k.gamma for k in keys]
    assert len(set(gammas)) == len(gammas)
    assert all(g % 2 == 1 for g in gammas)
    assert all(0 < g < 2**64 for g in gammas)
    # mixGamma guarantees enough bit transitions (>= 24, or fixed up to it)
    assert all(bin(g ^ (g >> 1)).count("1") >= 24 for g in gammas)
    # purpose seeds differ too
    seeds = {int(k.purpose_seed(p)) for k in keys for p in PURPOSE.values()}
    assert len(seeds) == len(keys) * len(PURPOSE)


def test_two_seeds_are_not_shifted_copies() -> None:
    """Different gammas: no 64-bit output of seed 0 appears among the first 2**17
    outputs of seed 1 (by chance: about 2**34 / 2**64 ~ 1e-9)."""
    a, b = check_random_state(0), check_random_state(1)
    wa = reference_words(a, 0, 0, 2**18)
    wb = reference_words(b, 0, 0, 2**18)
    za = (wa[0::2] << np.uint64(32)) | wa[1::2]
    zb = (wb[0::2] << np.uint64(32)) | wb[1::2]
    assert np.intersect1d(za, zb).size == 0


def test_root_key_is_frozen_and_picklable() -> None:
    import pickle

    key = check_random_state(1)
    assert pickle.loads(pickle.dumps(key)) == key
    with pytest.raises(AttributeError):
        key.seed = 3  # type: ignore[misc]


# ---------------------------------------------------------------------------
# statistics: exact uniformity and independence
# ---------------------------------------------------------------------------
def _indices(seed, n, rows, size, purpose=0, b0=0):
    key = check_random_state(seed)
    out = np.empty((rows, size), np.int64)
    s, g = key.stream(purpose)
    fill_indices_chunk(s, g, b0, np.uint64(n), out)
    return out


@pytest.mark.parametrize("n", [7, 1000])
def test_indices_are_uniform(n) -> None:
    """Chi-square goodness of fit of 2**20 draws (1024 replicates x 1024) against
    the uniform law on [0, n); false failure 1e-6 per run and per n."""
    draws = _indices(1, n, 1024, 1024)
    counts = np.bincount(draws.ravel(), minlength=n)
    assert counts.shape == (n,)
    assert stats.chisquare(counts).pvalue > ALPHA


def test_rejection_makes_large_n_exactly_uniform() -> None:
    """n = 3 * 2**30: without rejection, multiply-shift returns values that are 0 mod
    3 with probability 1/2 instead of 1/3.  A chi-square on v mod 3 over 2**20 draws
    detects that bias with certainty and fails by chance with probability 1e-6."""
    draws = _indices(2, 3 * 2**30, 256, 4096)
    counts = np.bincount(draws.ravel() % 3, minlength=3)
    assert stats.chisquare(counts).pvalue > ALPHA


def test_64_bit_path_is_uniform() -> None:
    """n = 3 * 2**62 (64-bit path): same mod-3 check; 2**16 draws, false failure
    1e-6."""
    n = 3 * 2**62
    key = check_random_state(4)
    out = np.empty(2**16, np.uint64)
    s, g = key.stream(0)
    fill_indices_kernel(s, g, np.uint64(0), np.uint64(n), out)
    counts = np.bincount((out % np.uint64(3)).astype(np.int64), minlength=3)
    assert stats.chisquare(counts).pvalue > ALPHA


def _pair_table(a, b, k):
    """Chi-square of the k*k table of pairs (a, b) against the exact uniform law
    (each margin is exactly uniform, so independence means 1/k**2 per cell)."""
    table = np.bincount((a * k + b).ravel(), minlength=k * k)
    return stats.chisquare(table).pvalue


def test_adjacent_replicates_are_independent() -> None:
    """Draw i of replicate b against draw i of replicate b + 1: a chi-square on
    the 7 x 7 table of 1023 * 1024 pairs against 1/49 per cell (48 dof), false
    failure 1e-6; plus the correlation of the raw indices (n = 1000), which is
    ~N(0, 1/N) under independence: |r| < 5.3 / sqrt(N) fails with probability
    1e-7."""
    d7 = _indices(3, 7, 1024, 1024)
    assert _pair_table(d7[:-1], d7[1:], 7) > ALPHA
    d = _indices(3, 1000, 1024, 1024).astype(np.float64)
    r = np.corrcoef(d[:-1].ravel(), d[1:].ravel())[0, 1]
    assert abs(r) < 5.3 / math.sqrt(d[:-1].size)


def test_consecutive_draws_are_independent() -> None:
    """Draws i and i + 1 of one replicate (the two halves of one 64-bit output, and
    the seam between outputs): 7 x 7 table chi-square, false failure 1e-6 each."""
    d7 = _indices(5, 7, 1024, 1024)
    assert _pair_table(d7[:, 0::2], d7[:, 1::2], 7) > ALPHA  # same output
    assert _pair_table(d7[:, 1:-1:2], d7[:, 2::2], 7) > ALPHA  # across outputs


def test_purpose_slots_are_independent() -> None:
    """Index draws of the "indices" slot against the same positions of the
    "poisson" slot (8 x 8 table of 2**20 pairs, false failure 1e-6), and the actual
    Poisson counts against the indices (contingency table, false failure 1e-6)."""
    a = _indices(6, 8, 1024, 1024, purpose=PURPOSE["indices"])
    b = _indices(6, 8, 1024, 1024, purpose=PURPOSE["poisson"])
    assert not np.array_equal(a, b)
    assert _pair_table(a, b, 8) > ALPHA
    key = check_random_state(6)
    counts = np.empty((256, 1024), np.int64)
    s, g = key.stream(PURPOSE["poisson"])
    for r in range(counts.shape[0]):
        fill_poisson_counts(s, g, r, counts[r])
    table = np.zeros((4, 8), np.int64)
    np.add.at(table, (np.minimum(counts, 3), a[:256]), 1)
    assert stats.chi2_contingency(table).pvalue > ALPHA


def test_seeds_are_independent() -> None:
    """Same (b, i) under seeds 0 and 1: 8 x 8 table, false failure 1e-6."""
    assert _pair_table(_indices(0, 8, 512, 1024), _indices(1, 8, 512, 1024), 8) > ALPHA


def test_poisson_counts_follow_poisson_1() -> None:
    """Chi-square of 2**18 counts against Poisson(1) on {0, ..., 5, >= 6}; false
    failure 1e-6."""
    key = check_random_state(10)
    out = np.empty((256, 1024), np.int64)
    s, g = key.stream(PURPOSE["poisson"])
    for r in range(out.shape[0]):
        fill_poisson_counts(s, g, r, out[r])
    observed = np.bincount(np.minimum(out.ravel(), 6), minlength=7)
    p = stats.poisson(1).pmf(np.arange(6))
    p = np.append(p, 1 - p.sum())
    assert stats.chisquare(observed, p * out.size).pvalue > ALPHA


@pytest.mark.parametrize("n", [3 * 2**30, 2**31 + 1])
def test_single_draw_blocks_keep_a_buffered_half(n) -> None:
    """Regression: a block whose draws are all taken word by word after a
    rejection can end with a low half still buffered; draw_block must hand it to
    the next block (it used to report 'nothing buffered' and skip that half).
    Many one-draw blocks at a high rejection rate hit the case often."""
    key = check_random_state(7)
    blocks = [1] * 3000 + [2, 1, 3, 1] * 200
    got, state = _draw_blocks(key, 0, 3, n, blocks)
    total = sum(blocks)
    assert_array_equal(got, reference_indices(key, 0, 3, n, total))
    _, seq_state = _bounded_sequence(key, 0, 3, n, total)
    assert state == seq_state


@pytest.mark.parametrize("n", [7, 10_000, 10**7])
@pytest.mark.parametrize("h", [1, 3, 50, 64])
def test_fast_pairs_split_is_the_stream_unshuffled(n, h) -> None:
    """fast_pairs_split writes draw 2t to buf[t] and draw 2t + 1 to buf[h + t]:
    the same draws as the reference, in the documented split layout."""
    from numba import njit

    from skboot._random import fast_pairs_split

    @njit
    def run(seed, gamma, ctr, un, thresh, buf, h):
        return fast_pairs_split(seed, gamma, ctr, un, thresh, buf, h)

    key = check_random_state(31)
    seed, gamma = key.stream(0)
    un = np.uint64(n)
    buf = np.full(2 * h + 3, 2**63, dtype=np.uint64)
    ok = run(seed, gamma, replicate_counter(5), un, lemire_threshold(un), buf, h)
    assert (buf[2 * h :] == 2**63).all()  # nothing written past 2h
    if ok:  # no rejection in the block (the usual case): the draws are the stream's
        ref = reference_indices(key, 0, 5, n, 2 * h)
        assert_array_equal(buf[:h], ref[0::2])
        assert_array_equal(buf[h : 2 * h], ref[1::2])
    else:  # a rejected word: callers redo the block with draw_block
        assert n == 10**7


def test_uniform_at_is_the_stream_uniform():
    # the kernels that read uniform j of replicate b at counter b * 2**32 + j
    # (the stationary bootstrap's lengths) read exactly the reference uniforms
    key = RootKey.from_seed_sequence(np.random.SeedSequence(7))
    seed, gamma = key.stream(PURPOSE["block_lengths"])
    for b in (0, 3):
        ref = reference_uniforms(key, PURPOSE["block_lengths"], b, 50)
        got = np.array(
            [
                uniform_at(seed, gamma, replicate_counter(b) + np.uint64(j))
                for j in range(50)
            ]
        )
        np.testing.assert_array_equal(got, ref)
