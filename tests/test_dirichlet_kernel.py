"""The fused Bayesian-bootstrap kernel (skboot._kernels.dirichlet) equals the
two-pass path, ``fill_dirichlet_weights`` then ``weighted_moments``, bit for bit:
for any size (tiles of rows, lanes of eight replicates, partial ones), any
chunking of the replicates, and weights of exactly zero next to infinite data."""

from __future__ import annotations

import numpy as np
import pytest

from skboot._kernels.cascade import CASCADE_LEVELS
from skboot._kernels.dirichlet import (
    LANE_ROWS_MAX,
    LANES,
    TILE,
    _reduce_column,
    dirichlet_lanes,
    dirichlet_one_by_one,
)
from skboot._kernels.resample import dirichlet_chunk
from skboot._kernels.weighted import weighted_moments
from skboot._random import PURPOSE, check_random_state, reference_dirichlet


def _two_pass(X, seed, gamma, b0, nb, want2):
    W = np.empty((nb, X.shape[0]))
    dirichlet_chunk(seed, gamma, b0, W)
    s1, s2, sw = np.empty((nb, X.shape[1])), np.empty((nb, X.shape[1])), np.empty(nb)
    weighted_moments(X, W, want2, s1, s2, sw)
    return W, s1, s2, sw


def _fused(X, seed, gamma, b0, nb, want2):
    f1 = np.full((nb, X.shape[1]), 7.0)
    f2 = np.full((nb, X.shape[1]), 7.0)
    fw = np.full(nb, 7.0)
    dirichlet_lanes(X, seed, gamma, b0, want2, f1, f2, fw)
    return f1, f2, fw


@pytest.mark.parametrize("n", [1, 3, 8, TILE, TILE + 1, 3 * TILE + 17])
@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("want2", [False, True])
def test_fused_equals_fill_then_reduce(n, d, want2):
    key = check_random_state(21)
    seed, gamma = key.stream(PURPOSE["dirichlet"])
    X = np.random.default_rng(n).normal(size=(n, d)) * 5.0 - 2.0
    nb, b0 = 11, 2**32 + 3  # one full lane tile, one of three; b0 past 2**32
    W, s1, s2, sw = _two_pass(X, seed, gamma, b0, nb, want2)
    np.testing.assert_array_equal(W[0], reference_dirichlet(key, b0, n))
    f1, f2, fw = _fused(X, seed, gamma, b0, nb, want2)
    np.testing.assert_array_equal(f1, s1)
    np.testing.assert_array_equal(fw, sw)
    if want2:
        np.testing.assert_array_equal(f2, s2)


def test_chunking_does_not_change_replicates():
    """Replicates computed 19 at once or in chunks of 5, 6 and 8 (lane tiles that
    start at different replicates) are the same bits."""
    seed, gamma = check_random_state(2).stream(PURPOSE["dirichlet"])
    X = np.random.default_rng(0).normal(size=(300, 1))
    whole = _fused(X, seed, gamma, 0, 19, True)
    parts = [
        _fused(X, seed, gamma, b0, nb, True) for b0, nb in ((0, 5), (5, 6), (11, 8))
    ]
    for k in range(3):
        np.testing.assert_array_equal(
            whole[k], np.concatenate([p[k] for p in parts], axis=0)
        )


def test_zero_weights_skip_infinite_values_in_every_lane():
    """A weight of exactly 0 (the stream's ``u = 0``) adds nothing, not ``0 * inf
    = NaN``, and leaves the Neumaier weight total unchanged: the vector lanes
    equal ``weighted_moments`` on the same weights, zeros and infinities placed
    in different lanes and rows (first row, mid-tile, last row)."""
    n = TILE + 40
    rng = np.random.default_rng(5)
    E = rng.exponential(size=(n, LANES))
    bad = [0, 7, 12, TILE - 1, n - 1]  # rows of non-finite values
    zeros = [(0, 0), (7, 1), (TILE - 1, 3), (TILE, 3), (n - 1, 7), (12, 5)]
    zeros += [(i, 4) for i in bad]  # lane 4 weighs every one of them 0
    for i, r in zeros:
        E[i, r] = 0.0
    x = rng.normal(size=n)
    x[bad] = [np.inf, -np.inf, np.nan, np.inf, np.inf]
    scale = n / E.sum(axis=0)
    acc, ns = np.zeros(2 * LANES), np.zeros(2 * LANES)
    stack = np.zeros((CASCADE_LEVELS, 2 * LANES))
    _reduce_column(E.ravel(), scale, x, True, acc, ns, stack)
    W = (E * scale).T.copy()
    s1, s2, sw = np.empty((LANES, 1)), np.empty((LANES, 1)), np.empty(LANES)
    weighted_moments(x[:, None], W, True, s1, s2, sw)
    np.testing.assert_array_equal(acc[:LANES], s1[:, 0])
    np.testing.assert_array_equal(acc[LANES:], s2[:, 0])
    np.testing.assert_array_equal(ns[:LANES] + ns[LANES:], sw)
    assert np.isfinite(acc[[4, LANES + 4]]).all()  # 0 * inf never entered
    assert np.isnan(acc[6])  # lane 6 weighs them all


@pytest.mark.parametrize("d", [1, 3])
def test_one_by_one_path_for_large_n_is_the_same_bits(d):
    """Above LANE_ROWS_MAX rows the kernel reduces replicates one by one in O(n)
    memory; that path gives the same bits (checked here on small data)."""
    assert LANE_ROWS_MAX * LANES * 8 <= 2**26  # the lanes' array stays <= 64 MiB
    seed, gamma = check_random_state(9).stream(PURPOSE["dirichlet"])
    X = np.random.default_rng(d).normal(size=(517, d))
    lanes = _fused(X, seed, gamma, 4, 10, True)
    f1, f2, fw = np.empty((10, d)), np.empty((10, d)), np.empty(10)
    dirichlet_one_by_one(X, seed, gamma, 4, True, f1, f2, fw)
    for got, want in zip((f1, f2, fw), lanes, strict=True):
        np.testing.assert_array_equal(got, want)
