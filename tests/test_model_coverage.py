"""The model-based size/coverage study (``benchmarks/model_coverage.py``) runs and
its reference values are right; the numbers themselves are in docs/coverage.md."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import model_coverage as mc
from skboot.model_based import FewClustersWarning


def test_sd_of_mean_is_the_exact_formula():
    """sd of the mean of a stationary AR(1) from the full autocovariance matrix."""
    for phi, n in [(0.3, 40), (0.9, 25), (-0.5, 10)]:
        h = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
        cov = phi**h / (1 - phi**2)
        assert mc.sd_of_mean(phi, n) == pytest.approx(np.sqrt(cov.sum()) / n)


def test_crv1_t_matches_the_wild_cluster_bootstrap():
    from skboot import wild_cluster_bootstrap

    x, y, g = mc.cluster_data(7, (1, 2, 3))
    res = wild_cluster_bootstrap(x, y, g, n_resamples=8)
    assert mc.crv1_t(x, y, g) == pytest.approx(res.statistic, rel=1e-10)


def test_study_runs_and_reports():
    # 4 clusters: Rademacher's 2**4 sign vectors cannot reach 5% (warned)
    with pytest.warns(FewClustersWarning):
        size = mc.size_rows((4,), 3, 31, seed=1)
    ar = mc.ar1_rows(((0.5, 60),), 2, 29, seed=1)
    text = mc.report(size, ar, "head")
    assert "| 4 | 80 |" in text and "| 0.5 | 60 |" in text
    assert set(size[0]["rejections"]) == {
        "WCR rademacher",
        "WCR webb",
        "WCU rademacher",
        "CRV1 t(G-1)",
    }
    assert all(0 <= v <= 3 for v in size[0]["rejections"].values())
    assert len(ar[0]["se_ratio"]) == 5
    assert all(0.0 < r < 3.0 for r in ar[0]["se_ratio"].values())
