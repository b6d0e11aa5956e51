"""The same distribution, bit for bit, on every joblib backend (issue 8)."""

from __future__ import annotations

import joblib
import numpy as np
import pytest

from skboot import (
    BayesianBootstrap,
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
    _engine,
    bootstrap,
)
from skboot._engine import _dispatch

RNG = np.random.default_rng(7)
X = RNG.normal(size=2_000)
Y = np.arange(2_000) % 4
GROUPS = np.arange(2_000) // 10

CASES = [
    ("mean", Bootstrap),
    ("median", Bootstrap),
    ("std", StratifiedBootstrap),
    ("mean", GroupBootstrap),
    ("var", PoissonBootstrap),
    ("mean", BayesianBootstrap),
    ("callable", Bootstrap),
    ("vectorized", GroupBootstrap),
]


def _stat(name):
    if name == "callable":
        return lambda a: np.percentile(a, 90)
    if name == "vectorized":
        return lambda a, axis: a.max(axis=axis) - a.min(axis=axis)
    return name


def _run(name, cls, **kw):
    return bootstrap(
        X, _stat(name), resampler=cls(64, random_state=99), y=Y, groups=GROUPS, **kw
    ).distribution


@pytest.fixture(autouse=True)
def _always_parallel(monkeypatch):
    """Make even these small runs go through joblib."""
    monkeypatch.setattr(_dispatch, "MIN_PARALLEL_DRAWS", 0)


@pytest.fixture(scope="module")
def dask_client(tmp_path_factory):
    distributed = pytest.importorskip("distributed")
    import dask

    tmp = tmp_path_factory.mktemp("dask-worker-space")
    with dask.config.set({"temporary-directory": str(tmp)}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=50,
        )
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()


@pytest.mark.parametrize(("name", "cls"), CASES)
def test_loky_and_threading_match_serial(name, cls):
    serial = _run(name, cls, n_jobs=1)
    np.testing.assert_array_equal(_run(name, cls, n_jobs=2), serial)
    with joblib.parallel_config(backend="threading"):
        np.testing.assert_array_equal(_run(name, cls, n_jobs=2), serial)
    with joblib.parallel_config(backend="loky", n_jobs=2):
        np.testing.assert_array_equal(_run(name, cls), serial)


@pytest.mark.parametrize(("name", "cls"), CASES)
def test_dask_matches_serial(dask_client, name, cls):
    serial = _run(name, cls, n_jobs=1)
    with joblib.parallel_config(backend="dask"):
        np.testing.assert_array_equal(_run(name, cls, n_jobs=-1), serial)


def test_plan_arrays_travel_as_top_level_arguments():
    """Stratified/group plans carry O(n) arrays; they must not be pickled inside
    the plan with every task (Dask would re-send them per task)."""
    rs = GroupBootstrap(5, random_state=0).fit(X, groups=GROUPS)
    skeleton, names, arrays = _engine.detach_plan(rs.plan_)
    assert set(names) >= {"codes", "pools"}
    assert all(getattr(skeleton, n) is None for n in names)
    assert all(isinstance(a, np.ndarray) for a in arrays)


def test_task_boundaries_cover_every_replicate_once():
    for B, w in [(1, 2), (7, 2), (64, 3), (1000, 8)]:
        bounds = _engine.plan_tasks(B, w)
        assert bounds[0] == 0 and bounds[-1] == B
        assert np.all(np.diff(bounds) >= 0)
