"""Wide data: the column-blocked iid kernel equals the row kernel bit for bit,
for any column count, lane count and replicate batching."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import bootstrap
from skboot._kernels.iid import iid_moments
from skboot._kernels.wide import LANES, column_blocks, iid_moments_blocked
from skboot._random import check_random_state


@pytest.mark.parametrize(("n", "d", "m"), [(257, 3, 257), (100, 13, 37), (61, 50, 203)])
@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("want2", [False, True])
def test_blocked_equals_the_row_kernel(n, d, m, lanes, want2):
    key = check_random_state(2)
    seed, gamma = key.stream(0)
    X = np.random.default_rng(d).normal(size=(n, d)) * np.arange(1, d + 1)
    nb = 70  # more than one batch of 64 replicates
    s1, s2 = np.empty((nb, d)), np.empty((nb, d))
    t1, t2 = np.full((nb, d), 9.0), np.full((nb, d), 9.0)
    iid_moments(X, seed, gamma, 3, m, want2, s1, s2)
    iid_moments_blocked(column_blocks(X, lanes), d, seed, gamma, 3, m, want2, t1, t2)
    np.testing.assert_array_equal(t1, s1)
    if want2:
        np.testing.assert_array_equal(t2, s2)


def test_column_blocks_layout():
    X = np.arange(30.0).reshape(5, 6)
    Xb = column_blocks(X, 4)
    assert Xb.shape == (2, 5, 4) and Xb.ctypes.data % 64 == 0
    np.testing.assert_array_equal(Xb[0], X[:, :4])
    np.testing.assert_array_equal(Xb[1, :, :2], X[:, 4:])
    assert not Xb[1, :, 2:].any()
    assert LANES in (4, 8)


@pytest.mark.parametrize("d", [5, 50])
def test_bootstrap_column_statistics_on_wide_data(d):
    """The engine's wide path: values follow the row kernel's rule (here via a
    chunk-size and n_jobs invariance check and numpy on each replicate)."""
    X = np.random.default_rng(1).normal(size=(300, d)) + 100.0
    res = bootstrap(X, "var", n_resamples=20, random_state=7)
    for chunk in (1, 7):
        again = bootstrap(X, "var", n_resamples=20, random_state=7, chunk_size=chunk)
        np.testing.assert_array_equal(again.distribution, res.distribution)
    np.testing.assert_array_equal(
        bootstrap(X, "var", n_resamples=20, random_state=7, n_jobs=2).distribution,
        res.distribution,
    )
    ref = bootstrap(
        X, lambda a: a.var(axis=0), n_resamples=20, random_state=7, vectorized=False
    )
    np.testing.assert_allclose(res.distribution, ref.distribution, rtol=1e-10)


@pytest.mark.parametrize("name", ["mean", "var"])
def test_engine_blocked_and_tiled_paths_agree(monkeypatch, name):
    """d % 8 == 0: the vector row kernel (data in cache) and the column blocks
    (data beyond it) give the same bits, for any chunk size."""
    import skboot._engine._builtin as builtin

    X = np.random.default_rng(3).normal(size=(400, 16)) * 10.0 + 3.0
    tiled = bootstrap(X, name, n_resamples=30, random_state=5).distribution
    monkeypatch.setattr(builtin, "cache_budget", lambda: 0)
    blocked = bootstrap(X, name, n_resamples=30, random_state=5)
    np.testing.assert_array_equal(blocked.distribution, tiled)
    chunked = bootstrap(X, name, n_resamples=30, random_state=5, chunk_size=7)
    np.testing.assert_array_equal(chunked.distribution, tiled)
