"""The built-in "ols" of dask collections (skboot._run._dask_ols): the Poisson
replicates equal to the in-memory ones, the exact iid, stratified and group
schemes against the normal equations of the same replicates' sums, BCa's
leave-one-out sums against the in-memory jackknife, and the refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skboot import (
    Bootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
    bootstrap,
)
from skboot._run import stratified_jackknife

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

SEED = 20261202


def _data(n=900, k=3, offset=1e3, seed=0):
    gen = np.random.default_rng(seed)
    X = offset + gen.normal(size=(n, k)) * np.arange(1, k + 1)
    y = 2.0 + (X - offset) @ np.linspace(1.0, -0.5, k) + gen.normal(size=n)
    return X, y + 3 * offset


def _dask(X, y, rows=200):
    return da.from_array(X, chunks=(rows, X.shape[1])), da.from_array(y, chunks=rows)


def _scaled_diff(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b) / np.max(np.abs(b), axis=0))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_poisson_equals_in_memory(fit_intercept):
    X, y = _data(offset=1e3 if fit_intercept else 0.0)
    kw = dict(
        resampler=PoissonBootstrap(60, random_state=SEED),
        statistic_kwargs={"fit_intercept": fit_intercept},
    )
    mem = bootstrap((X, y), "ols", **kw)
    par = bootstrap(_dask(X, y, rows=170), "ols", **kw)
    assert _scaled_diff(par.distribution, mem.distribution) <= 1e-12
    assert _scaled_diff(par.estimate, mem.estimate) <= 1e-12
    # BCa: the leave-one-out power sums of one more pass, against the values
    got = par._context.stat.jackknife_moments()
    jk = mem.jackknife_values()
    d = jk.mean(axis=0) - jk
    np.testing.assert_allclose(got.m2, (d**2).sum(axis=0), rtol=1e-9)
    np.testing.assert_allclose(
        got.m3, (d**3).sum(axis=0), rtol=1e-7, atol=1e-10 * np.abs(d**3).sum()
    )
    ci_par = par.confidence_interval(method="bca")
    ci_mem = mem.confidence_interval(method="bca")
    assert _scaled_diff(ci_par.low, ci_mem.low) <= 1e-9
    assert _scaled_diff(ci_par.high, ci_mem.high) <= 1e-9


def test_dataframe_labels_and_one_feature():
    X, y = _data(k=2)
    frame = dd.from_pandas(pd.DataFrame(X, columns=["u", "v"]), npartitions=3)
    res = bootstrap(
        (frame, dd.from_pandas(pd.Series(y), npartitions=3)),
        "ols",
        resampler=PoissonBootstrap(20, random_state=SEED),
    )
    assert list(res.estimate.index) == ["intercept", "u", "v"]
    assert list(res.distribution.columns) == ["intercept", "u", "v"]
    one = bootstrap(
        (da.from_array(X[:, 0], chunks=300), da.from_array(y, chunks=300)),
        "ols",
        resampler=PoissonBootstrap(20, random_state=SEED),
    )
    mem = bootstrap(
        (X[:, 0], y), "ols", resampler=PoissonBootstrap(20, random_state=SEED)
    )
    assert _scaled_diff(one.distribution, mem.distribution) <= 1e-12


def _power_columns(X, y):
    """1, x_j, y, x_j x_l (j <= l), x_j y: the sums behind the normal equations."""
    k = X.shape[1]
    Z = np.column_stack([np.ones(X.shape[0]), X])
    cols = [Z[:, r] * Z[:, c] for r in range(k + 1) for c in range(r, k + 1)]
    cols += [Z[:, r] * y for r in range(k + 1)]
    return np.column_stack(cols)


def _from_power_sums(S, k):
    """Coefficients (intercept first) from the replicates' power sums."""
    p = k + 1
    out = np.empty((S.shape[0], p))
    r, c = np.triu_indices(p)
    for b in range(S.shape[0]):
        A = np.zeros((p, p))
        A[r, c] = S[b, : r.shape[0]]
        A = A + np.triu(A, 1).T
        out[b] = np.linalg.solve(A, S[b, r.shape[0] :])
    return out


@pytest.mark.parametrize("scheme", ["iid", "stratified", "group"])
def test_exact_schemes_are_the_normal_equations_of_their_replicates(scheme):
    """The "sum" of the power columns on the same replicates (same key, same
    partitioning) gives the normal equations; their solution is the "ols"."""
    X, y = _data(n=600, k=2, offset=0.0)
    n = X.shape[0]
    strata = da.from_array(np.arange(n) % 3, chunks=150)
    groups = da.from_array(np.arange(n) // 7, chunks=150)
    kw: dict = {"random_state": SEED}
    if scheme == "iid":
        kw["resampler"] = Bootstrap(40)
    elif scheme == "stratified":
        kw.update(resampler=StratifiedBootstrap(40), y=strata)
    else:
        kw.update(resampler=GroupBootstrap(40), groups=groups)
    res = bootstrap(_dask(X, y, rows=150), "ols", **kw)
    P = _power_columns(X, y)
    sums = bootstrap(da.from_array(P, chunks=(150, P.shape[1])), "sum", **kw)
    want = _from_power_sums(np.asarray(sums.distribution), 2)
    assert _scaled_diff(res.distribution, want) <= 1e-9
    if scheme == "group":
        with pytest.raises(ValueError, match="delete-one-group"):
            res.confidence_interval(method="bca")


def test_stratified_bca_sums_are_the_in_memory_ones():
    X, y = _data(n=600, k=2)
    strata = np.random.default_rng(5).integers(0, 4, X.shape[0])
    res = bootstrap(
        _dask(X, y, rows=150),
        "ols",
        resampler=StratifiedBootstrap(30),
        y=da.from_array(strata, chunks=150),
        random_state=SEED,
    )
    got = res._context.stat.jackknife_moments()
    mem = bootstrap(
        (X, y), "ols", resampler=StratifiedBootstrap(30), y=strata, random_state=SEED
    )
    jk = stratified_jackknife(mem.jackknife_values(), strata)
    d = jk.mean(axis=0) - jk
    np.testing.assert_allclose(got.m2, (d**2).sum(axis=0), rtol=1e-9)
    np.testing.assert_allclose(
        got.m3, (d**3).sum(axis=0), rtol=1e-7, atol=1e-10 * np.abs(d**3).sum()
    )


def test_bad_input():
    X, y = _data(n=100)
    dX, dy = _dask(X, y, rows=40)
    wide = da.zeros((100, 65), chunks=(40, 65))
    with pytest.raises(ValueError, match=r"1 to 64 columns.*Got 65 column"):
        bootstrap((wide, dy), "ols", n_resamples=10)
    with pytest.raises(ValueError, match="arrays of one length"):
        bootstrap((dX, dy[:90]), "ols", n_resamples=10)
    with pytest.raises(ValueError, match="two dask collections"):
        bootstrap((dX, y), "ols", n_resamples=10)
    with pytest.raises(ValueError, match="'resampler' parameter"):
        bootstrap((dX, dy), "ols", resampler=MovingBlockBootstrap(10))
    with pytest.raises(ValueError, match=r"accepts \['fit_intercept'\]"):
        bootstrap((dX, dy), "ols", n_resamples=10, statistic_kwargs={"q": 1})
    Xc = np.column_stack([X, X[:, 0] + X[:, 1]])
    with pytest.raises(ValueError, match=r"X column\(s\) \[3\]"):
        bootstrap(_dask(Xc, y, rows=40), "ols", resampler=PoissonBootstrap(10))
