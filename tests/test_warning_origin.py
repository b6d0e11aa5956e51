"""Every skboot warning names the user's line, not a module inside skboot."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skboot import (
    DegenerateDistributionWarning,
    FewClustersWarning,
    UndefinedStatisticWarning,
    bootstrap,
    metric_ci,
    wild_cluster_bootstrap,
)


def _caught(call, category):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if issubclass(w.category, category)]
    assert ours, f"no {category.__name__} was issued"
    return ours


def _degenerate():
    res = bootstrap(np.ones(10), "mean", n_resamples=50, random_state=0)
    res.confidence_interval(method="percentile")


def _undefined():
    x = np.array([0.0, 0.0, 0.0, 1.0])
    bootstrap(x, lambda a: 1.0 / a.sum(), n_resamples=100, random_state=0)


def _metric_undefined():
    y = np.r_[np.zeros(18, int), np.ones(2, int)]
    p = np.linspace(0.1, 0.9, 20)
    metric_ci(y, p, "roc_auc", n_resamples=200, random_state=0, undefined="omit")


def _few_clusters():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 1))
    y = rng.normal(size=40)
    wild_cluster_bootstrap(X, y, np.repeat(np.arange(4), 10), random_state=0)


@pytest.mark.parametrize(
    ("call", "category"),
    [
        (_degenerate, DegenerateDistributionWarning),
        (_undefined, UndefinedStatisticWarning),
        (_metric_undefined, UndefinedStatisticWarning),
        (_few_clusters, FewClustersWarning),
    ],
    ids=["degenerate", "undefined", "metric-undefined", "few-clusters"],
)
def test_warning_names_the_callers_file(call, category):
    for w in _caught(call, category):
        assert w.filename == __file__, f"{category.__name__} points at {w.filename}"
