"""Shared fixtures: fixed seeds, a seeded Generator, small labelled data sets and a
scikit-learn configuration that is always restored."""

from __future__ import annotations

import os
import sys

# The CUDA kernels (skboot._engine.cuda, skboot._kernels.cuda) run through numba's CUDA simulator on machines
# without an NVIDIA GPU, so every CI machine tests them; on a GPU machine they run
# on the device (set NUMBA_ENABLE_CUDASIM=1 to force the simulator there).  numba
# reads the variable when it is imported: set it first, re-read it if numba is in.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and not os.path.exists("/dev/nvidia0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba" in sys.modules and "numba.cuda" not in sys.modules:
        from numba.core import config as _numba_config

        _numba_config.reload_config()

import numpy as np
import pytest
import sklearn

#: The seed every test that needs "some fixed seed" uses.
SEED = 20240611


@pytest.fixture
def seed() -> int:
    """A fixed integer root seed."""
    return SEED


@pytest.fixture
def rng() -> np.random.Generator:
    """A numpy Generator seeded with :data:`SEED` (fresh for every test)."""
    return np.random.default_rng(SEED)


@pytest.fixture
def labelled_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """60 rows: X (60, 3), y with three classes of 20 (shuffled), and 12 groups of
    unequal sizes (2 to 8 rows, labels 100..111), shuffled."""
    gen = np.random.default_rng(SEED)
    n = 60
    X = gen.normal(size=(n, 3))
    y = gen.permutation(np.repeat([0, 1, 2], 20))
    X[:, 0] += y  # a learnable signal, so classifiers converge quickly
    sizes = np.array([2, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 8])
    assert sizes.sum() == n
    groups = gen.permutation(np.repeat(np.arange(100, 112), sizes))
    return X, y, groups


@pytest.fixture
def metadata_routing():
    """Enable scikit-learn metadata routing for one test, then restore the config."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread():
    """Tests refit small models thousands of times and run joblib workers on a
    2-core machine: BLAS/OpenMP thread pools would only oversubscribe the cores.
    (OPENBLAS_* environment variables are left alone.)"""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield
