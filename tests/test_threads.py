"""Fused built-ins run on threads by default when n_jobs > 1 (their kernels
release the GIL); a backend the caller configures still wins; the bits never
depend on either."""

from __future__ import annotations

import joblib
import numpy as np
import pytest

import skboot._engine._dispatch as dispatch
from skboot import PoissonBootstrap, bootstrap


class _Recorder:
    """Wraps joblib.Parallel, recording the ``prefer`` hint of each call."""

    def __init__(self) -> None:
        self.prefer: list[object] = []

    def __call__(self, *args, **kwargs):
        self.prefer.append(kwargs.get("prefer"))
        return joblib.Parallel(*args, **kwargs)


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr(dispatch, "Parallel", rec)
    monkeypatch.setattr(dispatch, "MIN_PARALLEL_DRAWS", 0)
    return rec


@pytest.mark.parametrize("resampler", [None, PoissonBootstrap()])
def test_fused_builtins_prefer_threads(recorder, resampler):
    x = np.random.default_rng(0).normal(size=(500, 3))
    kw = {"n_resamples": 40, "random_state": 3, "resampler": resampler}
    serial = bootstrap(x, "var", **kw).distribution
    threaded = bootstrap(x, "var", n_jobs=2, **kw).distribution
    assert recorder.prefer == ["threads"]
    np.testing.assert_array_equal(threaded, serial)
    with joblib.parallel_config(backend="loky"):
        loky = bootstrap(x, "var", n_jobs=2, **kw).distribution
    np.testing.assert_array_equal(loky, serial)


def test_callables_keep_the_default_backend(recorder):
    x = np.random.default_rng(1).normal(size=300)
    res = bootstrap(x, np.mean, n_resamples=16, random_state=3, n_jobs=2)
    assert recorder.prefer == [None]
    ref = bootstrap(x, np.mean, n_resamples=16, random_state=3)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
