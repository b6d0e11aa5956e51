"""The software-pipelined iid kernels (skboot._kernels.iid_pipelined) give the
plain kernels' bits: every n (below and above the prefetch threshold), every m
(no full block, whole blocks, odd tails) and across rejected words."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from skboot._kernels.iid import (
    iid_moments_tiled,
    iid_rows_kernel,
    iid_sumsq_1d,
    iid_sumsq_kernel,
)
from skboot._kernels.iid_pipelined import (
    PREFETCH_ROWS,
    iid_moments8_pipelined,
    iid_sumsq_1d_pipelined,
)
from skboot._random import FAST_BLOCK, check_random_state

M_VALUES = [
    1,
    7,
    FAST_BLOCK + 3,
    2 * FAST_BLOCK,
    2 * FAST_BLOCK + 1,
    5 * FAST_BLOCK + 6,
    9 * FAST_BLOCK,
    40 * FAST_BLOCK + 13,
]


def _both(x, m, B, seed=77):
    key = check_random_state(seed)
    seed_, gamma = key.stream(0)
    p1, p2, q1, q2 = (np.empty(B) for _ in range(4))
    iid_sumsq_1d(x, seed_, gamma, 5, m, p1, p2)
    iid_sumsq_1d_pipelined(x, seed_, gamma, 5, m, q1, q2)
    return (p1, p2), (q1, q2)


@pytest.mark.parametrize("n", [1, 3, 1000, PREFETCH_ROWS + 1])
@pytest.mark.parametrize("m", M_VALUES)
def test_sumsq_pipelined_same_bits(n, m):
    x = np.random.default_rng(n).normal(size=n) * 3.0 - 1.0
    (p1, p2), (q1, q2) = _both(x, m, 24)
    assert_array_equal(q1, p1)
    assert_array_equal(q2, p2)


def test_sumsq_pipelined_same_bits_across_rejections():
    # n = 10**6 rejects about one word in 4,400: most of these replicates hit a
    # rejected word in some block (first, middle or last of the run)
    n, m, B = 10**6, 40 * FAST_BLOCK + 13, 300
    x = np.random.default_rng(5).normal(size=n)
    (p1, p2), (q1, q2) = _both(x, m, B, seed=2024)
    assert_array_equal(q1, p1)
    assert_array_equal(q2, p2)


def test_sumsq_kernel_choice_follows_the_target(monkeypatch):
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 4)
    assert iid_sumsq_kernel(10) is iid_sumsq_1d_pipelined
    assert iid_sumsq_kernel(2**32) is iid_sumsq_1d
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 8)
    assert iid_sumsq_kernel(10) is iid_sumsq_1d


@pytest.mark.parametrize("n", [1, 1000, PREFETCH_ROWS + 1])
@pytest.mark.parametrize("m", M_VALUES)
@pytest.mark.parametrize("want2", [False, True])
def test_rows8_pipelined_same_bits(n, m, want2):
    X = np.random.default_rng(n).normal(size=(n, 8)) * 2.0 + 0.5
    key = check_random_state(78)
    seed, gamma = key.stream(0)
    B = 12
    p1, p2, q1, q2 = (np.empty((B, 8)) for _ in range(4))
    iid_moments_tiled(X, seed, gamma, 4, m, want2, p1, p2)
    iid_moments8_pipelined(X, seed, gamma, 4, m, want2, q1, q2)
    assert_array_equal(q1, p1)
    if want2:
        assert_array_equal(q2, p2)


def test_rows8_pipelined_same_bits_across_rejections():
    n, m, B = 10**6, 40 * FAST_BLOCK + 13, 200
    X = np.random.default_rng(6).normal(size=(n, 8))
    key = check_random_state(2025)
    seed, gamma = key.stream(0)
    p1, p2, q1, q2 = (np.empty((B, 8)) for _ in range(4))
    iid_moments_tiled(X, seed, gamma, 0, m, True, p1, p2)
    iid_moments8_pipelined(X, seed, gamma, 0, m, True, q1, q2)
    assert_array_equal(q1, p1)
    assert_array_equal(q2, p2)


def test_rows_kernel_choice_follows_the_target(monkeypatch):
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 4)
    assert iid_rows_kernel(10, 8, True) is iid_moments8_pipelined
    assert iid_rows_kernel(10, 8, False) is iid_moments_tiled  # means: tiled
    assert iid_rows_kernel(10, 16, True) is iid_moments_tiled
    monkeypatch.setattr("skboot._kernels.iid.target_lanes", lambda: 8)
    assert iid_rows_kernel(10, 8, True) is iid_moments_tiled
