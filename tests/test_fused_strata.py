"""The stratified bootstrap's fused kernel (skboot._kernels.fused_strata): its
positions are the stream's (fast blocks, the word-by-word fallback after a
rejection or a failed conservative test, 64-bit bounds), and its moments equal
the counts then the weighted reduction for every count type."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from skboot._kernels.fused_strata import (
    pool_count_dtype,
    pool_moments,
    pool_positions,
    slot_meta,
)
from skboot._kernels.resample import pool_counts_chunk, pool_indices_chunk
from skboot._kernels.weighted import weighted_moments
from skboot._random import (
    NO_HAVE,
    bounded,
    check_random_state,
    fill_pool_indices,
    lemire_threshold,
    replicate_counter,
)


def _strata(labels):
    """codes, pools, offsets, sizes of the strata of ``labels`` (rows of a
    stratum in row order, strata in label order), as the plan builds them."""
    uniq, codes = np.unique(labels, return_inverse=True)
    sizes = np.bincount(codes, minlength=uniq.shape[0]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    pools = np.argsort(codes, kind="stable").astype(np.int64)
    return codes.astype(np.int64), pools, offsets, sizes


def _positions(seed, gamma, b, codes, offsets, sizes):
    n = codes.shape[0]
    ths = np.array([lemire_threshold(np.uint64(s)) for s in sizes], dtype=np.uint64)
    usize = np.empty(n, np.uint32)
    first = np.empty(n, np.int32)
    fast = slot_meta(codes, offsets, sizes, usize, first)
    out = np.empty(n, np.int64)
    pool_positions(seed, gamma, b, codes, offsets, sizes, ths, usize, first, fast, out)
    return out, fast


LAYOUTS = {
    "four strata": lambda g: g.integers(0, 4, size=1000),
    # strata of one row, of two, and one that holds nearly every row
    "unequal with singletons": lambda g: np.concatenate(
        [np.arange(7), [7, 7], np.full(990, 8)]
    )[g.permutation(999)],
    "one stratum": lambda g: np.zeros(301, np.int64),
    "every row its own stratum": lambda g: g.permutation(260),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_pool_positions_equal_fill_pool_indices(layout):
    key = check_random_state(4)
    seed, gamma = key.stream(0)
    labels = LAYOUTS[layout](np.random.default_rng(0))
    codes, pools, offsets, sizes = _strata(labels)
    ref = np.empty(codes.shape[0], np.int64)
    for b in range(12):
        fill_pool_indices(seed, gamma, b, codes, pools, offsets, sizes, ref)
        pos, fast = _positions(seed, gamma, b, codes, offsets, sizes)
        assert fast
        np.testing.assert_array_equal(pools[pos], ref)
        # every slot draws a row of its own stratum
        np.testing.assert_array_equal(codes[pools[pos]], codes)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_pool_chunks_equal_fill_pool_indices(layout):
    # the chunk fills (stratified indices and counts: metric_ci, callables)
    # draw through pool_positions; each row is still the stream's replicate
    key = check_random_state(5)
    seed, gamma = key.stream(0)
    codes, pools, offsets, sizes = _strata(LAYOUTS[layout](np.random.default_rng(1)))
    n, b0, nb = codes.shape[0], 3, 9
    idx = np.empty((nb, n), np.int64)
    counts = np.empty((nb, n))
    pool_indices_chunk(seed, gamma, b0, codes, pools, offsets, sizes, idx)
    pool_counts_chunk(seed, gamma, b0, codes, pools, offsets, sizes, counts)
    ref = np.empty(n, np.int64)
    for k in range(nb):
        fill_pool_indices(seed, gamma, b0 + k, codes, pools, offsets, sizes, ref)
        np.testing.assert_array_equal(idx[k], ref)
        np.testing.assert_array_equal(counts[k], np.bincount(ref, minlength=n))


@njit(cache=True)
def _reference_positions(seed, gamma, b, codes, offsets, sizes, out):
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = np.uint64(0)
    for i in range(codes.shape[0]):
        un = np.uint64(sizes[codes[i]])
        v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, lemire_threshold(un))
        out[i] = offsets[codes[i]] + np.int64(v)


@pytest.mark.parametrize("fast", [True, False])
def test_pool_positions_with_frequent_rejections(fast):
    """Strata of 2**30 .. 2**31 rows (given as sizes, one slot each): the
    conservative test fails in most blocks and exact rejections are frequent,
    so blocks are redone word by word and buffered low halves carry over; with a
    stratum of 2**33 rows (not fast) every slot takes the word-by-word path,
    two words a draw."""
    seed, gamma = check_random_state(5).stream(0)
    gen = np.random.default_rng(6)
    n = 700
    sizes = gen.integers(2**30, 2**31 - 1, size=n)
    sizes[::5] = gen.integers(1, 1000, size=sizes[::5].shape[0])
    sizes[7] = 3 * 2**29  # rejects a quarter of its words
    if not fast:
        sizes[3] = 2**33 + 7
    codes = np.arange(n, dtype=np.int64)
    offsets = np.zeros(n, np.int64)
    want = np.empty(n, np.int64)
    for b in range(6):
        got, is_fast = _positions(seed, gamma, b, codes, offsets, sizes)
        assert is_fast == fast
        _reference_positions(seed, gamma, b, codes, offsets, sizes, want)
        np.testing.assert_array_equal(got, want)


def test_pool_count_dtype_holds_the_largest_count():
    assert pool_count_dtype(1) == np.int8
    assert pool_count_dtype(127) == np.int8
    assert pool_count_dtype(128) == np.int16
    assert pool_count_dtype(32767) == np.int16
    assert pool_count_dtype(32768) == np.int32
    assert pool_count_dtype(2**31) == np.int64


@pytest.mark.parametrize(
    ("labels", "d"),
    [
        (np.arange(300) % 3, 1),  # int8 counts
        (np.arange(300) % 3, 3),
        (np.r_[np.zeros(1000, np.int64), np.arange(1, 41)], 1),  # int16
        (np.r_[np.zeros(33000, np.int64), [1, 2]], 1),  # int32
    ],
)
@pytest.mark.parametrize("want2", [False, True])
def test_pool_moments_equal_counts_then_reduce(labels, d, want2):
    """Every count type (by the largest stratum), one column (vector lanes) and
    several, nb not a multiple of 8, b0 > 0."""
    seed, gamma = check_random_state(7).stream(0)
    labels = labels[np.random.default_rng(1).permutation(labels.shape[0])]
    codes, pools, offsets, sizes = _strata(labels)
    n, nb, b0 = codes.shape[0], 11, 3
    X = np.random.default_rng(2).normal(size=(n, d)) * 3.0 + 1.0
    W = np.empty((nb, n))
    pool_counts_chunk(seed, gamma, b0, codes, pools, offsets, sizes, W)
    s1, s2, sw = np.empty((nb, d)), np.empty((nb, d)), np.empty(nb)
    weighted_moments(X, W, want2, s1, s2, sw)
    f1, f2, fw = np.full((nb, d), 7.0), np.full((nb, d), 7.0), np.full(nb, 7.0)
    like = np.empty(0, pool_count_dtype(int(sizes.max())))
    pool_moments(
        X, seed, gamma, b0, codes, pools, offsets, sizes, like, want2, f1, f2, fw
    )
    np.testing.assert_array_equal(f1, s1)
    np.testing.assert_array_equal(fw, sw)
    if want2:
        np.testing.assert_array_equal(f2, s2)
