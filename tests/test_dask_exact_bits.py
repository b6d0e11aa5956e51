"""The partition kernels of the data-parallel iid, stratified and hashed-group
bootstraps, pinned bit for bit: every replicate's sums (``s1``, ``s2``, ``sw``)
of a few partitions, as SHA-256 digests of their bytes and a few values as
hexadecimal floats.  A kernel rewritten for speed must leave every bit as it
is: a changed digest here means changed replicates for every user of these
schemes."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from skboot._kernels.exact_rows import (
    exact_rows_moments,
    exact_rows_one,
    group_poisson_counts,
    group_poisson_moments,
    group_poisson_one,
)
from skboot._random import PURPOSE, check_random_state, substream_seed
from skboot._run._dask_exact_rows import exact_partition, group_hashes, group_partition

SEED = 20261202


def _stream():
    return check_random_state(SEED).stream(PURPOSE["data_parallel"])


def _rows(m: int, d: int) -> np.ndarray:
    x = np.random.default_rng(11).normal(3.0, 2.0, size=(m, d))
    return x[:, 0] if d == 1 else x


def _digest(s) -> str:
    h = hashlib.sha256()
    for a in (s.s1, s.s2, s.sw):
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:32]


def _exact(m, d, draws, codes, want2, x=None):
    seed, gamma = _stream()
    S = draws.shape[1]
    seeds = np.array([substream_seed(seed, 3 * S + s + 1) for s in range(S)])
    labels = None if codes is None else np.arange(S)
    X = _rows(m, d) if x is None else x
    return exact_partition(X, codes, labels, draws, seeds, gamma, want2)


def _draws(B: int, S: int, lo: int, hi: int) -> np.ndarray:
    return np.random.default_rng(5).integers(lo, hi, size=(B, S)).astype(np.int64)


def _with_nonfinite() -> np.ndarray:
    x = _rows(1500, 2).copy()
    x[7, 0] = np.inf
    x[700, 1] = np.nan
    x[1499, 0] = -np.inf
    return x


#: name -> (the partition's sums, their digest, (replicate, column, s1 value))
CASES = {
    "iid, three columns, want2": (
        lambda: _exact(3000, 3, _draws(19, 1, 0, 6000), None, True),
        "857aa6eab1bc00bda33ed4dbba04aea7",
        (5, 2, "0x1.fa387f4661777p+6"),
    ),
    "iid, one column, 70,000 rows": (
        lambda: _exact(70_000, 1, _draws(9, 1, 60_000, 80_000), None, True),
        "d9552add1bc702f5c28edf96a6c37e87",
        (8, 0, "-0x1.8cdc7881e57e5p+9"),
    ),
    "iid, few rows, many draws (counts over 255)": (
        lambda: _exact(5, 2, _draws(11, 1, 1000, 4000), None, True),
        "b81bdb13ee984deec3a1873ee533bf41",
        (3, 1, "-0x1.d90d47b02ad40p+6"),
    ),
    "stratified, three strata, no squares": (
        lambda: _exact(
            2500,
            2,
            _draws(17, 3, 0, 1200),
            np.random.default_rng(2).integers(0, 3, 2500),
            False,
        ),
        "6dbaf487d9eceb223f6b79a30a93cab8",
        (16, 1, "-0x1.799a63598182dp+7"),
    ),
    "iid, non-finite rows": (
        lambda: _exact(1500, 2, _draws(10, 1, 0, 3000), None, True, _with_nonfinite()),
        "dc69543af4f9378b7caf9d5a46e01fe7",
        (0, 1, "0x1.9f9f4626c8070p+5"),
    ),
    "hashed groups": (
        lambda: group_partition(
            _rows(2100, 2),
            np.random.default_rng(4).integers(0, 300, 2100) * 7919,
            _stream()[0],
            _stream()[1],
            13,
            True,
        ),
        "7bf5e46dbab88e6cd75cd01ffb54c14e",
        (12, 0, "-0x1.602c55df79a27p+6"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_partition_sums_keep_every_bit(name):
    make, digest, (k, j, value) = CASES[name]
    s = make()
    assert float(s.s1[k, j]).hex() == value
    assert _digest(s) == digest


def _both(kernels, X, shift, args, B, d):
    outs = []
    for kernel in kernels:
        o = (np.zeros((B + 1, d)), np.zeros((B + 1, d)), np.zeros(B + 1))
        kernel(X, shift, *args, *o)
        outs.append(o)
    return outs


@pytest.mark.parametrize(
    "m, d, B, S, want2, lo, hi",
    [
        (1, 1, 1, 1, True, 0, 3),
        (255, 2, 7, 1, True, 0, 600),
        (256, 1, 8, 1, False, 0, 600),
        (257, 3, 9, 3, True, 0, 300),
        (1000, 2, 17, 4, False, 0, 700),
        (600, 1, 12, 5, True, 0, 400),  # strata 1 and 3 have no rows here
        (40, 2, 10, 2, True, 3000, 9000),  # counts past 255: the overflow lists
    ],
)
def test_eight_lanes_equal_one_replicate_at_a_time(m, d, B, S, want2, lo, hi):
    """The eight-lane exact kernel equals the one-replicate reference bit for
    bit (``tobytes``: NaN and zero signs included), for partial lanes and
    tiles, strata, and counts that wrap a byte."""
    rng = np.random.default_rng(m + B)
    X = rng.normal(-2.0, 5.0, size=(m, d))
    if m > 3:
        X[1, 0] = np.nan
        X[2, d - 1] = -np.inf
    shift = np.zeros(d)
    codes = rng.integers(0, S, m) if S > 1 else np.zeros(m, dtype=np.int64)
    if S == 5:
        codes = np.array([0, 2, 4])[codes % 3]
    sizes = np.bincount(codes, minlength=S).astype(np.int64)
    draws = rng.integers(lo, hi, size=(B, S)).astype(np.int64)
    draws[:, sizes == 0] = 0
    draws[0, 0] = 0
    pool = np.argsort(codes, kind="stable").astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    seed, gamma = _stream()
    seeds = np.array([substream_seed(seed, s + 1) for s in range(S)])
    args = (seeds, gamma, draws, pool, offsets, sizes, want2)
    lanes, one = _both((exact_rows_moments, exact_rows_one), X, shift, args, B, d)
    for a, b in zip(lanes, one, strict=True):
        assert a.tobytes() == b.tobytes()
    if lo > 255:
        assert one[2][:B].max() > 255 * m  # the case does wrap counts


@pytest.mark.parametrize(
    "m, d, B", [(1, 1, 3), (700, 2, 9), (513, 1, 16), (2000, 1, 40)]
)
def test_group_lanes_equal_one_replicate_at_a_time(m, d, B):
    """The eight-lane hashed-group kernel equals the one-replicate reference
    bit for bit; the last case has counts of 6 and more (the recount)."""
    rng = np.random.default_rng(m)
    X = rng.normal(size=(m, d))
    X[0, 0] = np.inf
    hashes = group_hashes(rng.integers(0, max(1, m // 4), m))
    seed, gamma = _stream()
    args = (seed, gamma, hashes, True)
    kernels = (group_poisson_moments, group_poisson_one)
    lanes, one = _both(kernels, X, np.full(d, 0.5), args, B, d)
    for a, b in zip(lanes, one, strict=True):
        assert a.tobytes() == b.tobytes()
    if m == 2000:
        c = np.empty(m)
        most = 0.0
        for b in range(B):
            group_poisson_counts(seed, gamma, np.uint64(b), hashes, c)
            most = max(most, c.max())
        assert most >= 6


def test_a_partition_without_some_strata():
    """Strata that have no rows in a partition (drawn nowhere there) leave
    its sums those of the one-replicate kernel."""
    seed, gamma = _stream()
    x = np.arange(10.0)
    codes = np.array([0, 2] * 5)
    draws = np.array([[5, 0, 5], [3, 0, 7], [0, 0, 10]], dtype=np.int64)
    seeds = np.array([substream_seed(seed, s + 1) for s in range(3)])
    got = exact_partition(x, codes, np.arange(3), draws, seeds, gamma, True)
    pool = np.argsort(codes, kind="stable").astype(np.int64)
    sizes = np.array([5, 0, 5], dtype=np.int64)
    offsets = np.array([0, 5, 5], dtype=np.int64)
    args = (seeds, gamma, draws, pool, offsets, sizes, True)
    (one,) = _both((exact_rows_one,), x[:, None], got.shift, args, 3, 1)
    assert got.sw.tolist() == [10.0, 10.0, 10.0, 10.0]
    for a, b in zip((got.s1, got.s2, got.sw), one, strict=True):
        assert a.tobytes() == b.tobytes()


def test_stratified_run_equals_the_one_replicate_run(monkeypatch):
    """End to end on a dask array whose first partitions lack a stratum: the
    distribution is the one-replicate kernels' bit for bit."""
    da = pytest.importorskip("dask.array")
    from skboot import StratifiedBootstrap, bootstrap
    from skboot._run import _dask_exact_rows

    x = _rows(900, 1)
    y = np.repeat([0, 1, 2], 300)
    y[850:] = 0

    def run():
        return bootstrap(
            da.from_array(x, chunks=250),
            "var",
            resampler=StratifiedBootstrap(20),
            y=da.from_array(y, chunks=250),
            random_state=SEED,
        ).distribution

    got = run()
    monkeypatch.setattr(_dask_exact_rows, "exact_rows_moments", exact_rows_one)
    assert got.tobytes() == run().tobytes()
