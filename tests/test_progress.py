"""``progress=True`` draws tqdm's bar (``tqdm.auto``: a widget in a notebook) when tqdm
is installed and a plain one on stderr when it is not; neither changes a result."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from skboot import bootstrap

X = np.random.default_rng(3).normal(size=200)


@pytest.fixture
def no_tqdm(monkeypatch):
    """Make ``from tqdm.auto import tqdm`` fail, as where tqdm is not installed."""
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_plain_bar_without_tqdm(no_tqdm, capsys, n_jobs):
    quiet = bootstrap(X, np.median, n_resamples=40, random_state=0, n_jobs=n_jobs)
    assert capsys.readouterr().err == ""
    loud = bootstrap(
        X, np.median, n_resamples=40, random_state=0, n_jobs=n_jobs, progress=True
    )
    err = capsys.readouterr().err
    last = err.split("\r")[-1]
    assert last.startswith("skboot: 40/40 replicates [" + "#" * 30 + "] 100%")
    assert last.endswith(" s\n") and err.count("\n") == 1
    np.testing.assert_array_equal(quiet.distribution, loud.distribution)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_tqdm_bar_when_installed(monkeypatch, capsys, n_jobs):
    auto = pytest.importorskip("tqdm.auto")
    bars = []

    class Recording(auto.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(auto, "tqdm", Recording)
    quiet = bootstrap(X, np.median, n_resamples=40, random_state=0, n_jobs=n_jobs)
    loud = bootstrap(
        X, np.median, n_resamples=40, random_state=0, n_jobs=n_jobs, progress=True
    )
    res = loud.confidence_interval(method="bca", jackknife_groups=25)
    assert [(b.n, b.total, b.unit) for b in bars] == [
        (40, 40, "replicates"),
        (25, 25, "jackknife samples"),
    ]
    assert all(b.disable for b in bars)  # closed once complete
    err = capsys.readouterr().err
    assert "skboot: 40/40 replicates |" in err and "| 100%" in err
    assert "skboot: 25/25 jackknife samples |" in err
    np.testing.assert_array_equal(quiet.distribution, loud.distribution)
    assert res == quiet.confidence_interval(method="bca", jackknife_groups=25)
