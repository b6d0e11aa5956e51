"""VARResidualBootstrap: the VAR fit against statsmodels, the replicates against a
numpy reference, invariance to chunking and jobs, the standard error of the mean
against theory, and the distribution against tsbootstrap's; plus the AR order
options (HQIC, min_order) and values()."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats

from skboot import Bootstrap, MovingBlockBootstrap, ResidualBootstrap, bootstrap
from skboot.model_based import VARResidualBootstrap
from skboot.model_based._ar import select_order

A1 = np.array([[0.5, 0.1, 0.0], [0.0, 0.4, 0.2], [0.1, 0.0, 0.3]])
A2 = 0.1 * np.eye(3)


def var_series(n: int, coefs=(A1, A2), seed: int = 0, c: float = 0.2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = coefs[0].shape[0]
    p = len(coefs)
    y = np.zeros((n + 200, m))
    for t in range(p, n + 200):
        y[t] = c + sum(A @ y[t - 1 - j] for j, A in enumerate(coefs))
        y[t] += rng.normal(size=m)
    return y[200:]


def _statsmodels_var(y):
    sm = pytest.importorskip("statsmodels.tsa.api")
    return sm.VAR(y)


# ---------------------------------------------------------------------------
# the fit and the order selection: statsmodels
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2, 4])
def test_fit_equals_statsmodels(p):
    y = var_series(250, seed=p)
    ref = _statsmodels_var(y).fit(p, trend="c")
    vb = VARResidualBootstrap(10, order=p, random_state=0).fit(y)
    assert vb.order_ == p and vb.n_variables_ == 3
    np.testing.assert_allclose(vb.var_coef_, ref.coefs, rtol=0, atol=1e-10)
    np.testing.assert_allclose(vb.intercept_, ref.intercept, rtol=0, atol=1e-10)
    np.testing.assert_allclose(vb.sigma_u_, ref.sigma_u, rtol=1e-10, atol=0)
    resid = np.asarray(ref.resid)
    np.testing.assert_allclose(
        vb.residuals_, resid - resid.mean(axis=0), rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("criterion", ["aic", "bic", "hqic"])
@pytest.mark.parametrize(("n", "max_order"), [(120, None), (400, 8), (400, None)])
def test_order_selection_equals_statsmodels(criterion, n, max_order):
    y = var_series(n, seed=n)
    model = _statsmodels_var(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' own FutureWarnings
        sel = model.select_order(max_order)
    vb = VARResidualBootstrap(
        10, order=criterion, max_order=max_order, random_state=0
    ).fit(y)
    assert vb.order_ == sel.selected_orders[criterion]
    np.testing.assert_allclose(
        vb.criterion_values_, np.asarray(sel.ics[criterion]), rtol=1e-10, atol=1e-12
    )


def test_min_order_bounds_the_choice():
    y = var_series(400, seed=1)
    free = VARResidualBootstrap(10, order="bic", max_order=6, random_state=0).fit(y)
    low = free.order_
    forced = VARResidualBootstrap(
        10, order="bic", min_order=low + 2, max_order=6, random_state=0
    ).fit(y)
    crit = forced.criterion_values_
    assert forced.order_ == low + 2 + int(np.argmin(crit[low + 2 :]))
    np.testing.assert_array_equal(crit, free.criterion_values_)


# ---------------------------------------------------------------------------
# the replicates
# ---------------------------------------------------------------------------
def _reference_replicate(vb, b: int) -> np.ndarray:
    """Replicate ``b`` regenerated in numpy from the published draws."""
    rep = vb.replicate(b)
    idx, s = rep.residual_indices, rep.start
    coef, c, resid = vb.var_coef_, vb.intercept_, vb.residuals_
    p = coef.shape[0]
    n = vb.n_samples_
    path = np.empty((vb.burn_in_ + n, coef.shape[1]))
    path[:p] = vb.plan_.series[s : s + p]
    for t in range(p, path.shape[0]):
        path[t] = c + resid[idx[t - p]]
        for j in range(p):
            path[t] += coef[j] @ path[t - 1 - j]
    return path[vb.burn_in_ :]


@pytest.mark.parametrize(
    ("burn_in", "block_length"), [(0, None), (0, 7), (50, None), (50, 5)]
)
def test_replicates_match_a_numpy_recursion(burn_in, block_length):
    y = var_series(150, seed=3)
    vb = VARResidualBootstrap(
        6, order=2, burn_in=burn_in, block_length=block_length, random_state=11
    ).fit(y)
    for b in (0, 3, 5):
        np.testing.assert_allclose(
            vb.sample(b), _reference_replicate(vb, b), rtol=1e-12, atol=1e-12
        )
    if burn_in == 0:  # the start rows are the observed ones
        np.testing.assert_array_equal(vb.sample(2)[:2], y[:2])


def test_residual_rows_are_the_index_resamplers_streams():
    y = var_series(150, seed=4)
    vb = VARResidualBootstrap(5, order=1, burn_in=0, random_state=7).fit(y)
    m = vb.residuals_.shape[0]
    iid = Bootstrap(5, random_state=7).fit(vb.residuals_)
    np.testing.assert_array_equal(
        vb.replicate(4).residual_indices[:m], iid.replicate(4).indices
    )
    vb = VARResidualBootstrap(
        5, order=1, burn_in=0, block_length=6, random_state=7
    ).fit(y)
    mbb = MovingBlockBootstrap(5, block_length=6, random_state=7).fit(vb.residuals_)
    np.testing.assert_array_equal(
        vb.replicate(2).residual_indices, mbb.replicate(2).indices[:m]
    )


def test_results_do_not_depend_on_chunk_size_or_jobs():
    y = var_series(200, seed=5)
    vb = VARResidualBootstrap(300, order=2, random_state=2)
    base = bootstrap(y, "mean", resampler=vb, chunk_size=7).distribution
    for kw in ({"chunk_size": 300}, {"chunk_size": 64, "n_jobs": 2}):
        with parallel_config(backend="threading"):
            other = bootstrap(y, "mean", resampler=vb, **kw).distribution
        np.testing.assert_array_equal(other, base)
    # replicate b is the same alone, in a chunk, through values() and callables
    fitted = VARResidualBootstrap(300, order=2, random_state=2).fit(y)
    one = fitted.sample(123)
    np.testing.assert_array_equal(base[123], [one[:, v].mean() for v in range(3)])
    rows = list(fitted.values())
    assert len(rows) == 300
    np.testing.assert_array_equal(rows[299], fitted.sample(299))
    vec = bootstrap(y, lambda a, axis: a.mean(axis=axis), resampler=vb).distribution
    loop = bootstrap(y, lambda a: a.mean(axis=0), resampler=vb).distribution
    np.testing.assert_array_equal(vec, base)
    np.testing.assert_array_equal(loop, base)


def test_mean_standard_error_matches_var1_theory():
    """The bootstrap law of the mean is that of the mean of n values of the
    stationary VAR(1) with the fitted A and the centred residuals' covariance S:
    Var(ybar) = (n G0 + sum_h (n - h)(A^h G0 + G0 A'^h)) / n^2, G0 = A G0 A' + S.
    With B = 4000 the Monte Carlo relative error of a standard error is about
    1 / sqrt(2 B) = 1.1%; the 4% tolerance is 3.6 of those (false failure
    about 3e-4 per component)."""
    n, B = 500, 4000
    y = var_series(n, coefs=(A1,), seed=6)
    vb = VARResidualBootstrap(B, order=1, burn_in=300, random_state=5)
    res = bootstrap(y, "mean", resampler=vb)
    fitted = vb.fit(y)
    A = fitted.var_coef_[0]
    S = fitted.residuals_.T @ fitted.residuals_ / fitted.residuals_.shape[0]
    m = A.shape[0]
    G0 = np.linalg.solve(np.eye(m * m) - np.kron(A, A), S.reshape(-1)).reshape(m, m)
    total = n * G0
    Ah = np.eye(m)
    for h in range(1, n):
        Ah = Ah @ A
        total += (n - h) * (Ah @ G0 + G0 @ Ah.T)
    theory = np.sqrt(np.diag(total)) / n
    np.testing.assert_allclose(res.standard_error, theory, rtol=0.04)


def _ols_var1(Y: np.ndarray) -> np.ndarray:
    """The VAR(1) coefficient matrices of each series in ``Y`` (B, n, m)."""
    out = []
    for y in Y:
        Z = np.column_stack([np.ones(y.shape[0] - 1), y[:-1]])
        beta = np.linalg.lstsq(Z, y[1:], rcond=None)[0]
        out.append(beta[1:].T.reshape(-1))
    return np.array(out)


@pytest.mark.slow
def test_coefficient_distribution_matches_tsbootstrap():
    """Two-sample KS tests between skboot's and tsbootstrap's bootstrap laws of
    the refitted VAR(1) coefficients (same series, same model, observed start
    rows, B = 2000 each): draws of the same conditional law, so each of the 4
    tests rejects with probability 1e-3 (4e-3 for the test)."""
    tsb = pytest.importorskip("tsbootstrap")
    from tsbootstrap.methods import IID, VAR
    from tsbootstrap.methods import ResidualBootstrap as TR

    y = var_series(300, coefs=(A1[:2, :2],), seed=8)
    B = 2000
    mine = VARResidualBootstrap(B, order=1, burn_in=0, random_state=3).fit(y)
    mine_coef = _ols_var1(mine.values(stack=True))
    spec = TR(model=VAR(order=1), innovation=IID())
    theirs = tsb.bootstrap(y, method=spec, n_bootstraps=B, random_state=4).values()
    theirs_coef = _ols_var1(np.asarray(theirs).reshape(B, 300, 2))
    for j in range(4):
        p = stats.ks_2samp(mine_coef[:, j], theirs_coef[:, j]).pvalue
        assert p > 1e-3, (j, p)


# ---------------------------------------------------------------------------
# AR order options and values()
# ---------------------------------------------------------------------------
def test_ar_hqic_penalty_and_min_order():
    """HQIC is n_eff log(sigma2) + 2 log(log n_eff) (p + 1) (Hannan & Quinn
    1979): the AIC values with the penalty swapped; min_order restricts the
    argmin, not the values."""
    rng = np.random.default_rng(3)
    x = np.zeros(400)
    for t in range(2, 400):
        x[t] = 0.5 * x[t - 1] + 0.2 * x[t - 2] + rng.normal()
    P = 8
    _, aic = select_order(x, P, "aic", "ols", "t")
    p_h, hq = select_order(x, P, "hqic", "ols", "t")
    n_eff = 400 - P
    k = np.arange(P + 1) + 1
    np.testing.assert_allclose(
        hq, aic - 2 * k + 2 * np.log(np.log(n_eff)) * k, rtol=1e-13
    )
    assert p_h == int(np.argmin(hq))
    rb = ResidualBootstrap(5, order="hqic", min_order=4, max_order=P, random_state=0)
    rb.fit(x)
    assert rb.order_ == 4 + int(np.argmin(hq[4:])) and rb.order_ >= 4
    np.testing.assert_allclose(rb.criterion_values_, hq, rtol=1e-13)


def test_values_iterates_every_replicate_and_stacks_on_request():
    rng = np.random.default_rng(0)
    x = np.cumsum(rng.normal(size=120)) * 0.05 + rng.normal(size=120)
    rb = ResidualBootstrap(37, order=1, random_state=2).fit(x)
    it = rb.values()
    assert not isinstance(it, np.ndarray)
    rows = list(it)
    stacked = rb.values(stack=True)
    assert len(rows) == 37 and stacked.shape == (37, 120)
    for b in (0, 17, 36):
        np.testing.assert_array_equal(rows[b], rb.sample(b))
        np.testing.assert_array_equal(stacked[b], rb.sample(b))


def test_builtins_give_one_value_per_series():
    """Built-ins reduce each series over time; a list of quantile levels gives
    (levels, series); pandas columns label the outputs."""
    pd = pytest.importorskip("pandas")
    y = var_series(200, seed=9)
    vb = VARResidualBootstrap(50, order=1, random_state=0)
    for name, kw in (("mean", {}), ("std", {"ddof": 1}), ("median", {})):
        res = bootstrap(y, name, resampler=vb, statistic_kwargs=kw)
        ref = {"mean": y.mean(0), "std": y.std(0, ddof=1), "median": np.median(y, 0)}
        np.testing.assert_allclose(res.estimate, ref[name], rtol=1e-13)
        assert res.distribution.shape == (50, 3)
    q = bootstrap(y, "quantile", resampler=vb, statistic_kwargs={"q": [0.1, 0.9]})
    assert q.distribution.shape == (50, 2, 3)
    np.testing.assert_allclose(q.estimate, np.quantile(y, [0.1, 0.9], axis=0))
    fitted = VARResidualBootstrap(50, order=1, random_state=0).fit(y)
    np.testing.assert_allclose(
        q.distribution[7], np.quantile(fitted.sample(7), [0.1, 0.9], axis=0)
    )
    frame = pd.DataFrame(y, columns=["a", "b", "c"])
    res = bootstrap(frame, "mean", resampler=vb)
    assert list(res.estimate.index) == ["a", "b", "c"]
