"""The built-in "ols" (pairs bootstrap of least-squares coefficients) in memory:
every replicate against numpy's least squares on the replicate's rows (or its
weights), the closed-form jackknife against refits, undefined replicates, labels
and the refusals of bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skboot import UndefinedStatisticWarning, bootstrap
from skboot.resamplers import (
    BayesianBootstrap,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
)

B = 6
SCHEMES = {
    "iid": lambda: Bootstrap(B, random_state=1),
    "m-out-of-n": lambda: Bootstrap(B, sample_size=40, random_state=1),
    "stratified": lambda: StratifiedBootstrap(B, random_state=1),
    "group": lambda: GroupBootstrap(B, random_state=1),
    "poisson": lambda: PoissonBootstrap(B, random_state=1),
    "bayesian": lambda: BayesianBootstrap(B, random_state=1),
    "moving": lambda: MovingBlockBootstrap(B, block_length=7, random_state=1),
    "circular": lambda: CircularBlockBootstrap(B, block_length=7, random_state=1),
    "stationary": lambda: StationaryBootstrap(B, block_length=7, random_state=1),
    "tapered": lambda: TaperedBlockBootstrap(B, block_length=7, random_state=1),
}


def _data(n=120, k=3, offset=1e4, seed=0):
    """A regression whose columns sit far from zero (centring matters)."""
    gen = np.random.default_rng(seed)
    X = offset + gen.normal(size=(n, k)) * np.arange(1, k + 1)
    y = 3.0 + (X - offset) @ np.linspace(0.5, -1.5, k) + gen.normal(size=n)
    return X, y + 2 * offset


def _lstsq(X, y, w, fit_intercept=True):
    """numpy's weighted least squares (rows scaled by sqrt(w))."""
    Z = np.column_stack([np.ones(X.shape[0]), X]) if fit_intercept else X
    s = np.sqrt(w)
    return np.linalg.lstsq(Z * s[:, None], y * s, rcond=None)[0]


def _close(got, want, rtol):
    scale = np.max(np.abs(want))
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_replicates_equal_lstsq_on_the_replicate(scheme, fit_intercept):
    # without an intercept the normal equations square the condition of the
    # columns as given: data far from zero are tested with the intercept only
    X, y = _data(offset=1e4 if fit_intercept else 0.0)
    n = X.shape[0]
    strata = np.arange(n) % 3
    groups = np.arange(n) // 6
    extra = {"y": strata} if scheme == "stratified" else {}
    if scheme == "group":
        extra = {"groups": groups}
    res = bootstrap(
        (X, y),
        "ols",
        resampler=SCHEMES[scheme](),
        statistic_kwargs={"fit_intercept": fit_intercept},
        **extra,
    )
    dist = np.asarray(res.distribution)
    assert dist.shape == (B, 3 + fit_intercept)
    _close(res.estimate, _lstsq(X, y, np.ones(n), fit_intercept), 1e-12)
    fitted = SCHEMES[scheme]().fit(X, strata, groups)
    for b in range(B):
        rep = fitted.replicate(b)
        if scheme in ("bayesian", "tapered"):  # continuous weights
            want = _lstsq(X, y, rep.weights, fit_intercept)
        else:  # numpy on the replicate's rows
            rows = rep.indices
            want = _lstsq(X[rows], y[rows], np.ones(rows.shape[0]), fit_intercept)
        _close(dist[b], want, 1e-10)


def test_one_feature_and_pandas_labels():
    X, y = _data(k=2)
    frame = pd.DataFrame(X, columns=["height", "age"])
    res = bootstrap((frame, pd.Series(y)), "ols", n_resamples=20, random_state=0)
    assert list(res.estimate.index) == ["intercept", "height", "age"]
    assert list(res.distribution.columns) == ["intercept", "height", "age"]
    assert list(res.standard_error.index) == ["intercept", "height", "age"]
    one = bootstrap((X[:, 0], y), "ols", n_resamples=20, random_state=0)
    assert np.shape(one.estimate) == (2,)
    _close(one.estimate, _lstsq(X[:, :1], y, np.ones(X.shape[0])), 1e-12)


def test_jackknife_equals_refits():
    """The closed-form leave-one-out coefficients (BCa) against n refits."""
    X, y = _data(n=60, k=4)
    for fit_intercept in (True, False):
        res = bootstrap(
            (X, y),
            "ols",
            n_resamples=30,
            random_state=0,
            statistic_kwargs={"fit_intercept": fit_intercept},
        )
        jk = res.jackknife_values()
        keep = np.ones(X.shape[0], dtype=bool)
        for i in range(X.shape[0]):
            keep[i] = False
            want = _lstsq(X[keep], y[keep], np.ones(X.shape[0] - 1), fit_intercept)
            keep[i] = True
            _close(jk[i], want, 1e-10)
        ci = res.confidence_interval(method="bca")
        assert np.all(ci.low < res.estimate) and np.all(res.estimate < ci.high)


def test_jackknife_of_a_lone_row_is_undefined():
    """Leaving out the only row that sets a column apart leaves a rank-deficient
    design: that leave-one-out value is NaN, not a huge number."""
    X, y = _data(n=30, k=2)
    X[:, 1] = 0.0
    X[4, 1] = 1.0
    with pytest.warns(UndefinedStatisticWarning):  # replicates without row 4
        res = bootstrap((X, y), "ols", n_resamples=10, random_state=0)
    jk = res.jackknife_values()
    assert np.isnan(jk[4]).all()
    assert np.isfinite(np.delete(jk, 4, axis=0)).all()


def test_rank_deficient_replicate_is_undefined():
    """A replicate without the rows of a rare dummy has no coefficient for it:
    NaN, counted and named once, as "corr" does for a constant replicate."""
    X, y = _data(n=25, k=2)
    X[:, 1] = 0.0
    X[:2, 1] = 1.0
    with pytest.warns(UndefinedStatisticWarning):
        res = bootstrap((X, y), "ols", resampler=Bootstrap(300, random_state=0))
    fitted = Bootstrap(300, random_state=0).fit(X)
    missing = [b for b in range(300) if fitted.replicate(b).counts[:2].sum() == 0]
    assert 0 < len(missing) == res.n_undefined
    dist = np.asarray(res.distribution)
    assert np.isnan(dist[missing]).all()
    assert np.isfinite(np.delete(dist, missing, axis=0)).all()


def test_chunks_and_jobs_do_not_change_results():
    X, y = _data()
    runs = [
        bootstrap((X, y), "ols", n_resamples=64, random_state=5, **kw).distribution
        for kw in ({}, {"chunk_size": 7}, {"n_jobs": 2, "chunk_size": 16})
    ]
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])


@pytest.mark.parametrize(
    "data, kwargs, match",
    [
        ((np.ones((10, 65)), np.ones(10)), {}, r"1 to 64 columns.*Got 65 column"),
        ((np.ones((10, 2)), np.ones(9)), {}, "arrays of one length"),
        ((np.ones((10, 2)),), {}, r"tuple \(X, y\) of two paired arrays"),
        ((np.ones((10, 2)), np.ones((10, 2))), {}, "must be 1-D"),
        (None, {"fit_intercept": "yes"}, "'fit_intercept' statistic keyword"),
        (None, {"ddof": 1}, r"accepts \['fit_intercept'\]"),
    ],
)
def test_bad_input(data, kwargs, match):
    if data is None:
        data = _data(n=20)
    with pytest.raises(ValueError, match=match):
        bootstrap(data, "ols", n_resamples=10, statistic_kwargs=kwargs)


def test_rank_deficient_design_is_refused_naming_the_columns():
    X, y = _data(n=40, k=3)
    X = np.column_stack([X, X[:, 0] - 2 * X[:, 2], np.full(40, 7.0)])
    with pytest.raises(ValueError, match=r"X column\(s\) \[3, 4\].*intercept"):
        bootstrap((X, y), "ols", n_resamples=10)
    # without an intercept the constant column is a regressor like any other
    with pytest.raises(ValueError, match=r"X column\(s\) \[3\]"):
        bootstrap(
            (X, y), "ols", n_resamples=10, statistic_kwargs={"fit_intercept": False}
        )


def test_independent_samples_refuse_ols():
    X, y = _data(n=20)
    with pytest.raises(ValueError, match="independent samples"):
        bootstrap((X, y), "ols", n_resamples=10, paired=False)
