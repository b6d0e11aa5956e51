"""The Fisher-Yates block draw on vector types and the software-pipelined
mean-difference permutation kernel give the permutation stream's bits.

``fy_pairs`` and ``fy_swap_sum_pairs`` are checked against the stream's
definition (the reference words, bounds ``top - u``) on 4 and 8 lanes;
``indep_sum_chunk_pipelined`` against ``indep_sum_chunk`` (itself tested against
the reference shuffles) for pools with and without rejected words.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numpy.testing import assert_array_equal

from skboot._kernels.permutation_pipelined import (
    indep_sum_chunk_pipelined,
    indep_sum_kernel,
)
from skboot._kernels.significance import indep_sum_chunk
from skboot._random import (
    PURPOSE,
    _vector,
    check_random_state,
    reference_words,
    replicate_counter,
)

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def _compile(lanes, monkeypatch):
    """Fresh (uncached) wrappers of the Fisher-Yates intrinsics for ``lanes``."""
    monkeypatch.setattr(_vector, "_lanes", lambda context: lanes)
    draw, step = _vector.fy_pairs, _vector.fy_swap_sum_pairs

    @njit(cache=False)
    def run_draw(seed, gamma, ctr, top, buf, h):
        return draw(seed, gamma, ctr, top, buf, h)

    @njit(cache=False)
    def run_step(acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos, h):
        return step(acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos, h)

    return run_draw, run_step


def _expected(key, b, top, h):
    """Draws ``u < 2h`` of replicate ``b`` with bounds ``top - u`` (no
    rejection) and the OR of the flags ``(word * bound) % 2**32 - bound``."""
    words = [int(w) for w in reference_words(key, PURPOSE["permutation"], b, 2 * h)]
    draws, flags = [], 0
    for u, w in enumerate(words):
        bound = (top - u) & M32
        draws.append((w * bound) >> 32)
        flags |= (((w * bound) & M32) - bound) & M64
    return np.array(draws, dtype=np.uint64), flags


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("top", [200, 10**6, 3_000_000_000])
def test_fy_pairs_is_the_stream(lanes, top, monkeypatch):
    run_draw, _ = _compile(lanes, monkeypatch)
    key = check_random_state(21)
    seed, gamma = key.stream(PURPOSE["permutation"])
    for b, h in [(0, 8), (5, 64), (2**32 + 3, 16)]:
        draws, flags = _expected(key, b, top, h)
        buf = np.full(2 * h + 2, 9, dtype=np.uint64)
        got = run_draw(seed, gamma, replicate_counter(b), np.uint64(top), buf, h)
        assert_array_equal(buf[: 2 * h], draws)
        assert (buf[2 * h :] == 9).all()
        assert got == flags
    # bounds near 2**32 flag possible rejections (sign bit), small ones rarely
    assert (flags >> 63) == (top == 3_000_000_000)


@pytest.mark.parametrize("lanes", [4, 8])
def test_fy_swap_sum_steps_current_and_draws_next(lanes, monkeypatch):
    _, run_step = _compile(lanes, monkeypatch)
    key = check_random_state(22)
    seed, gamma = key.stream(PURPOSE["permutation"])
    N, pos, h = 1000, 256, 64
    rng = np.random.default_rng(3)
    work = rng.normal(size=N)
    # the current block: step pos + u draws in [0, N - pos - u)
    cur = np.array([rng.integers(0, N - pos - u) for u in range(2 * h)], np.uint64)
    nxt = np.zeros(2 * h, dtype=np.uint64)
    touched = np.zeros(pos + 2 * h, dtype=np.uint64)
    acc = np.arange(8.0)
    exp_work, exp_acc = work.copy(), acc.copy()
    for u in range(2 * h):
        p = pos + u
        j = p + int(cur[u])
        exp_acc[u % 8] += exp_work[j]
        exp_work[j] = exp_work[p]
    top = N - pos - 2 * h
    ctr = replicate_counter(4) + np.uint64(7)
    got = run_step(
        acc,
        work,
        touched,
        cur,
        nxt,
        seed,
        gamma,
        ctr,
        np.uint64(top),
        np.uint64(pos),
        h,
    )
    assert_array_equal(acc, exp_acc)
    assert_array_equal(work, exp_work)
    assert_array_equal(touched[pos:], pos + np.arange(2 * h) + cur)
    words = reference_words(key, PURPOSE["permutation"], 4, 2 * h + 14)[14:]
    draws = [(int(w) * ((top - u) & M32)) >> 32 for u, w in enumerate(words)]
    assert nxt.tolist() == draws
    assert got >> 63 == 0


CASES = [
    (600, 300),  # two blocks and a partial one
    (2000, 1000),
    (1000, 999),  # the last step draws from two values
    (5000, 128 * 7),  # whole blocks only
    (10**6, 5000),  # about one possibly rejected word per replicate
]


@pytest.mark.parametrize(("N", "n1"), CASES)
def test_pipelined_mean_difference_same_bits(N, n1):
    pool = np.random.default_rng(N).normal(size=N)
    key = check_random_state(31)
    seed, gamma = key.stream(PURPOSE["permutation"])
    B = 40
    plain = np.empty((B, 1))
    piped = np.empty((B, 1))
    indep_sum_chunk(seed, gamma, np.int64(3), pool, n1, plain)
    indep_sum_chunk_pipelined(seed, gamma, np.int64(3), pool, n1, piped)
    assert_array_equal(piped, plain)


def test_the_kernel_choice_follows_the_target(monkeypatch):
    monkeypatch.setattr("skboot._kernels.permutation_pipelined.target_lanes", lambda: 4)
    assert indep_sum_kernel(2000, 1000) is indep_sum_chunk_pipelined
    assert indep_sum_kernel(2000, 100) is indep_sum_chunk  # under two blocks
    assert indep_sum_kernel(2**32 + 1, 1000) is indep_sum_chunk
    monkeypatch.setattr("skboot._kernels.permutation_pipelined.target_lanes", lambda: 8)
    assert indep_sum_kernel(2000, 1000) is indep_sum_chunk
