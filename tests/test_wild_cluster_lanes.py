"""The eight-lane kernel of the multiway wild cluster bootstrap
(skboot._kernels.cluster_multi) equals the scalar kernel bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import wild_cluster_bootstrap
from skboot._kernels.model_based import wcb_multi_chunk
from skboot.model_based import _cluster_multiway


def two_way(n=900, G1=12, G2=9, seed=0):
    rng = np.random.default_rng(seed)
    g1 = rng.integers(0, G1, size=n)
    g2 = rng.integers(0, G2, size=n)
    X = rng.normal(size=(n, 3)) + rng.normal(size=(G1, 3))[g1]
    y = X @ np.r_[0.2, 0.0, 1.0] + rng.normal(size=n) + rng.normal(size=G2)[g2]
    y += 2.0 * rng.normal(size=G1)[g1] * (1.0 + X[:, 0] ** 2)
    return X, y, np.column_stack([g1, g2])


@pytest.mark.parametrize(
    "kw",
    [
        {"weights": "rademacher", "n_resamples": 1003},  # a tail of 3 lanes
        {"weights": "webb", "n_resamples": 4099, "bootstrap_groups": "min"},
        {"weights": "normal", "n_resamples": 501, "impose_null": False},
        {"weights": "mammen", "n_resamples": 77, "small_sample": "none"},
    ],
)
def test_lanes_equal_the_scalar_kernel(kw, monkeypatch):
    X, y, groups = two_way(seed=len(kw))
    lanes = wild_cluster_bootstrap(X, y, groups, random_state=3, **kw)
    monkeypatch.setattr(_cluster_multiway, "wcb_multi_lanes", wcb_multi_chunk)
    scalar = wild_cluster_bootstrap(X, y, groups, random_state=3, **kw)
    np.testing.assert_array_equal(lanes.null_distribution, scalar.null_distribution)
    assert lanes.pvalue == scalar.pvalue


def test_lanes_equal_the_scalar_kernel_enumerated(monkeypatch):
    X, y, groups = two_way(G1=4, G2=3, seed=7)
    lanes = wild_cluster_bootstrap(X, y, groups, n_resamples=9999)
    assert lanes.enumerated
    monkeypatch.setattr(_cluster_multiway, "wcb_multi_lanes", wcb_multi_chunk)
    scalar = wild_cluster_bootstrap(X, y, groups, n_resamples=9999)
    np.testing.assert_array_equal(lanes.null_distribution, scalar.null_distribution)
