"""The block draw on explicit vector types (skboot._random._vector) is the stream.

The intrinsics must give the draws of the scalar definition bit for bit on every
vector width, and the software-pipelined mean kernel must hand over to the
word-by-word path at whichever block the first rejected word falls in.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numpy.testing import assert_array_equal

from skboot._kernels.iid import iid_sum_1d, iid_sum_kernel
from skboot._kernels.iid_pipelined import iid_sum_1d_pipelined
from skboot._random import (
    FAST_BLOCK,
    HALF_BLOCK,
    _vector,
    check_random_state,
    lemire_threshold,
    reference_indices,
    reference_words,
    replicate_counter,
)

MASK32 = 0xFFFFFFFF


def _expected(key, b, n, h):
    """Draws of outputs 0..h-1 of replicate b without rejection, and the
    smallest Lemire low word among them."""
    words = reference_words(key, 0, b, 2 * h).astype(object)
    prods = [int(w) * n for w in words]
    draws = np.array([p >> 32 for p in prods], dtype=np.uint64)
    low = min([p & MASK32 for p in prods], default=MASK32)
    return draws, low


def _compile(lanes, monkeypatch):
    """Fresh (uncached) wrappers of the intrinsics, compiled for ``lanes``."""
    monkeypatch.setattr(_vector, "_lanes", lambda context: lanes)
    inter, split = _vector.pairs_interleaved, _vector.pairs_split

    @njit(cache=False)
    def run(seed, gamma, ctr, un, buf, h, which):
        if which == 0:
            return inter(seed, gamma, ctr, un, buf, h)
        return split(seed, gamma, ctr, un, buf, h)

    pipe = _vector.draw_sum_pairs

    @njit(cache=False)
    def run_pipe(acc, x, cur, nxt, seed, gamma, ctr, un, h):
        return pipe(acc, x, cur, nxt, seed, gamma, ctr, un, h)

    return run, run_pipe


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("n", [1, 7, 10_000, 2**31 + 11, 2**32 - 1])
def test_pairs_are_the_stream(lanes, n, monkeypatch):
    run, _ = _compile(lanes, monkeypatch)
    key = check_random_state(11)
    seed, gamma = key.stream(0)
    for b, h in [(0, 8), (3, 64), (2**32 + 5, 24)]:
        draws, low = _expected(key, b, n, h)
        ctr = replicate_counter(b)
        buf = np.full(2 * h + 2, 7, dtype=np.uint64)
        got = run(seed, gamma, ctr, np.uint64(n), buf, h, 0)
        assert_array_equal(buf[: 2 * h], draws)
        assert (buf[2 * h :] == 7).all()
        assert got == low
        buf[:] = 7
        got = run(seed, gamma, ctr, np.uint64(n), buf, h, 1)
        assert_array_equal(buf[:h], draws[0::2])
        assert_array_equal(buf[h : 2 * h], draws[1::2])
        assert got == low


@pytest.mark.parametrize("lanes", [4, 8])
def test_pipelined_sum_draws_next_and_sums_current(lanes, monkeypatch):
    _, run_pipe = _compile(lanes, monkeypatch)
    key = check_random_state(12)
    seed, gamma = key.stream(0)
    n, h = 1000, HALF_BLOCK
    x = np.random.default_rng(0).normal(size=n)
    cur = np.random.default_rng(1).integers(0, n, FAST_BLOCK).astype(np.uint64)
    nxt = np.zeros(FAST_BLOCK, dtype=np.uint64)
    acc = np.arange(8.0)
    expect = acc.copy()
    # draw j of the current block (split layout: 2t at cur[t], 2t + 1 at
    # cur[h + t]) goes to accumulator j % 8, in draw order
    for j in range(2 * h):
        row = cur[j // 2] if j % 2 == 0 else cur[h + j // 2]
        expect[j % 8] += x[row]
    ctr = replicate_counter(9)
    low = run_pipe(acc, x, cur, nxt, seed, gamma, ctr, np.uint64(n), h)
    assert_array_equal(acc, expect)
    draws, low_ref = _expected(key, 9, n, h)
    assert_array_equal(nxt[:h], draws[0::2])
    assert_array_equal(nxt[h:], draws[1::2])
    assert low == low_ref


def _mean_rule(x, draws):
    """iid_sum_1d's documented summation rule on given draws."""
    acc = [0.0] * 8
    m = len(draws)
    m8 = m - m % 8
    for j in range(m8):
        acc[j % 8] += x[draws[j]]
    tail = 0.0
    for j in range(m8, m):
        tail += x[draws[j]]
    return (
        ((acc[0] + acc[1]) + (acc[2] + acc[3]))
        + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        + tail
    )


def _first_rejected_block(key, b, n, m):
    """The block (of FAST_BLOCK draws) holding replicate b's first rejected word,
    or None."""
    thresh = int(lemire_threshold(np.uint64(n)))
    words = reference_words(key, 0, b, m)
    lows = (words.astype(object) * n) & MASK32
    bad = np.flatnonzero(np.array([w < thresh for w in lows]))
    return None if bad.size == 0 else int(bad[0]) // FAST_BLOCK


def test_pipelined_mean_hands_over_at_every_rejected_block():
    # n = 10**6 rejects about one word in 4,400: among the first replicates some
    # reject in block 0, in block 1, mid-way and in the last full block, and
    # some never; every one must equal the reference draws summed by the rule
    n, m = 10**6, 40 * FAST_BLOCK + 13
    x = np.random.default_rng(3).normal(size=n)
    key = check_random_state(2024)
    seed, gamma = key.stream(0)
    B = 400
    out = np.empty(B)
    iid_sum_1d_pipelined(x, seed, gamma, 0, m, out)
    where = [_first_rejected_block(key, b, n, m) for b in range(B)]
    cases = {}
    for b, blk in enumerate(where):
        label = "none" if blk is None else min(blk, 2) if blk < 39 else "last"
        cases.setdefault(label, b)
    assert set(cases) == {"none", 0, 1, 2, "last"}, cases
    for b in cases.values():
        draws = reference_indices(key, 0, b, n, m)
        assert out[b] == _mean_rule(x, draws), b


@pytest.mark.parametrize("n", [10_000, 10**6])
def test_mean_kernels_same_bits(n, monkeypatch):
    # the plain loop (AVX-512 targets) and the pipelined one (4-lane targets)
    # give the same replicate sums, the pipelined one also at 8 lanes
    x = np.random.default_rng(4).normal(size=n)
    key = check_random_state(77)
    seed, gamma = key.stream(0)
    m = 30 * FAST_BLOCK + 5
    plain = np.empty(64)
    iid_sum_1d(x, seed, gamma, 0, m, plain)
    piped = np.empty(64)
    iid_sum_1d_pipelined(x, seed, gamma, 0, m, piped)
    assert_array_equal(piped, plain)
    monkeypatch.setattr(_vector, "_lanes", lambda context: 8)
    fresh = njit(cache=False, nogil=True)(iid_sum_1d.py_func)
    got = np.empty(64)
    fresh(x, seed, gamma, 0, m, got)
    assert_array_equal(got, plain)


def test_the_kernel_choice_follows_the_target(monkeypatch):
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 4)
    assert iid_sum_kernel(10) is iid_sum_1d_pipelined
    assert iid_sum_kernel(2**32) is iid_sum_1d  # the pipelined loop needs n < 2**32
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 8)
    assert iid_sum_kernel(10) is iid_sum_1d
