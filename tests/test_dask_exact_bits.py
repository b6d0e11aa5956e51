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

from skboot._random import PURPOSE, check_random_state, substream_seed
from skboot._run._dask_exact import exact_partition, group_partition

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
