"""The Poisson bootstrap's eight-lane kernels (skboot._kernels.draw_lanes) equal the
scalar stream, output by output: counts, totals, sums and sums of squares in row
order, the recount flag, and the fused kernel's recount of a flagged tile."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from skboot._kernels.draw_lanes import (
    MIX64_M1,
    MIX64_M2,
    POISSON_LANE_COUNTS,
    POISSON_THRESHOLDS,
    poisson_lanes8,
    poisson_lanes8_exact,
    poisson_lanes8_exact_sq,
    poisson_lanes8_sq,
)
from skboot._kernels.fused_weights import poisson_moments, poisson_thresholds
from skboot._kernels.resample import poisson_counts_chunk
from skboot._kernels.weighted import weighted_moments
from skboot._random import (
    POISSON_MAX,
    check_random_state,
    fill_poisson_counts,
    mix64,
    replicate_counter,
)


@njit(cache=True)
def _run(kind, acc, tot, zp, gamma, x, xoff, c):
    if kind == 0:
        return poisson_lanes8(acc, tot, zp, gamma, x, xoff, c)
    if kind == 1:
        return poisson_lanes8_sq(acc, tot, zp, gamma, x, xoff, c)
    if kind == 2:
        return poisson_lanes8_exact(acc, tot, zp, gamma, x, xoff, c)
    return poisson_lanes8_exact_sq(acc, tot, zp, gamma, x, xoff, c)


def _scalar_lanes(counts, x):
    """Rows in order, per lane: ``s += k * x`` and ``q += (k * x) * x`` for
    ``k != 0`` (the two-pass kernel's operations)."""
    s = np.zeros(8)
    q = np.zeros(8)
    for r in range(counts.shape[0]):
        for t in range(x.shape[0]):
            k = float(counts[r, t])
            if k != 0.0:
                p = k * x[t]
                s[r] += p
                q[r] += p * x[t]
    return s, q


def _counts(seed, gamma, bs, n):
    out = np.empty((len(bs), n), dtype=np.int64)
    for j, b in enumerate(bs):
        fill_poisson_counts(seed, gamma, b, out[j])
    return out


def test_thresholds_constants_equal_the_kernel_thresholds():
    np.testing.assert_array_equal(np.array(POISSON_THRESHOLDS), poisson_thresholds())
    assert len(POISSON_THRESHOLDS) == POISSON_MAX
    m = (1 << 64) - 1
    z = 0x0123456789ABCDEF
    z = ((z ^ (z >> 30)) * MIX64_M1) & m
    z = ((z ^ (z >> 27)) * MIX64_M2) & m
    assert z ^ (z >> 31) == int(mix64(np.uint64(0x0123456789ABCDEF)))


def _large_count_replicates(seed, gamma, n, at_least, limit=8000):
    """The first eight consecutive replicates ``b0 .. b0 + 7`` among which some
    row has a count of at least ``at_least``."""
    for b0 in range(0, limit, 8):
        cnt = _counts(seed, gamma, range(b0, b0 + 8), n)
        if (cnt >= at_least).any():
            return b0, cnt
    raise AssertionError("no large count in the searched replicates")


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_lanes_equal_the_scalar_stream(kind):
    """Eight replicates, a tile that starts mid-replicate (xoff, the counter
    advanced), values with non-zero counts and a row of inf whose zero counts
    are skipped."""
    seed, gamma = check_random_state(11).stream(1)
    n, i0 = 700, 37
    b0, cnt = _large_count_replicates(seed, gamma, n, POISSON_LANE_COUNTS)
    cnt = cnt[:, i0:]
    c = n - i0
    x = np.random.default_rng(0).normal(size=n) * 3.0 + 1.0
    zero_rows = np.flatnonzero((cnt == 0).any(axis=0))
    x[i0 + zero_rows[0]] = np.inf
    start = [
        int(seed) + (int(replicate_counter(b0 + r)) + i0 + 1) * int(gamma)
        for r in range(8)
    ]
    zp = np.array([z % 2**64 for z in start], dtype=np.uint64)
    zp_end = np.array([(z + c * int(gamma)) % 2**64 for z in start], np.uint64)
    acc = np.zeros(16)
    tot = np.zeros(8, dtype=np.int64)
    flag = _run(kind, acc, tot, zp, gamma, x, i0, c)
    np.testing.assert_array_equal(zp, zp_end)
    exact = kind >= 2
    want = cnt if exact else np.minimum(cnt, POISSON_LANE_COUNTS)
    np.testing.assert_array_equal(tot, want.sum(axis=1))
    s, q = _scalar_lanes(want, x[i0:])
    np.testing.assert_array_equal(acc[:8], s)
    if kind % 2:
        np.testing.assert_array_equal(acc[8:], q)
    else:
        np.testing.assert_array_equal(acc[8:], 0.0)
    assert bool(flag) == (not exact and bool((cnt >= POISSON_LANE_COUNTS).any()))
    assert np.isinf(acc[:8]).any() and not np.isnan(acc[:8]).any()


def test_lanes_without_large_counts_do_not_flag():
    seed, gamma = check_random_state(12).stream(1)
    n = 256
    cnt = _counts(seed, gamma, range(8), n)
    assert cnt.max() < POISSON_LANE_COUNTS
    zp = np.array(
        [(int(seed) + ((r << 32) + 1) * int(gamma)) % 2**64 for r in range(8)],
        dtype=np.uint64,
    )
    acc, tot = np.zeros(8), np.zeros(8, dtype=np.int64)
    x = np.arange(n, dtype=float)
    assert _run(0, acc, tot, zp, gamma, x, 0, n) == 0
    np.testing.assert_array_equal(tot, cnt.sum(axis=1))


@pytest.mark.parametrize("want2", [False, True])
@pytest.mark.parametrize("nb", [8, 13])
def test_fused_kernel_recounts_tiles_with_large_counts(want2, nb):
    """Replicates with a count of POISSON_LANE_COUNTS or more: the flagged tile is
    redone with every threshold; the result equals the counts then the weighted
    reduction, bit for bit (tiles of 256 rows; n not a multiple)."""
    seed, gamma = check_random_state(13).stream(1)
    n = 1500
    b0, cnt = _large_count_replicates(seed, gamma, n, POISSON_LANE_COUNTS + 1)
    X = np.random.default_rng(1).normal(size=(n, 1)) * 2.0 - 5.0
    W = np.empty((nb, n))
    poisson_counts_chunk(seed, gamma, b0, W)
    np.testing.assert_array_equal(W[:8], cnt)
    s1, s2, sw = np.empty((nb, 1)), np.empty((nb, 1)), np.empty(nb)
    weighted_moments(X, W, want2, s1, s2, sw)
    f1, f2, fw = np.empty((nb, 1)), np.empty((nb, 1)), np.empty(nb)
    poisson_moments(X, seed, gamma, b0, want2, f1, f2, fw)
    np.testing.assert_array_equal(f1, s1)
    np.testing.assert_array_equal(fw, sw)
    if want2:
        np.testing.assert_array_equal(f2, s2)
