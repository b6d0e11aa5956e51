"""ARIMAResidualBootstrap and the ARX use of ResidualBootstrap: the fits against
statsmodels, the recursion against the series it was fitted to and against a
numpy reference, invariance to chunking and jobs, and the bootstrap law of the AR
coefficient against theory and against tsbootstrap's ARIMA bootstrap."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats

from skboot import Bootstrap, ResidualBootstrap, bootstrap
from skboot._kernels.model_arma import arma_path
from skboot._kernels.model_based import LANES
from skboot.model_based import ARIMAResidualBootstrap

sm_arima = pytest.importorskip("statsmodels.tsa.arima.model")
sm_ar = pytest.importorskip("statsmodels.tsa.ar_model")


def arma11(n: int, phi: float = 0.5, theta: float = 0.3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=n + 201)
    w = np.zeros(n + 200)
    for t in range(1, n + 200):
        w[t] = phi * w[t - 1] + e[t + 1] + theta * e[t]
    return w[200:]


def arx_data(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    y = np.zeros(n)
    for t in range(2, n):
        y[t] = 0.5 + 0.4 * y[t - 1] - 0.2 * y[t - 2] + Z[t] @ [1.0, -0.5]
        y[t] += rng.normal()
    return Z, y


def seasonal_series(n: int = 360, seed: int = 3) -> np.ndarray:
    """Monthly-like data: a seasonal pattern, a random walk and AR noise."""
    w = arma11(n, 0.4, 0.0, seed)
    return 20 + np.sin(2 * np.pi * np.arange(n) / 12) * 3 + np.cumsum(w) * 0.3 + w


#: (order, seasonal_order, trend, data) cases of the ARIMA tests
CASES = {
    "arima111": ((1, 1, 1), (0, 0, 0, 0), None, lambda: 10 + np.cumsum(arma11(400))),
    "ar2-const": ((2, 0, 0), (0, 0, 0, 0), "c", lambda: 3 + arma11(400, 0.6, 0.0)),
    "arima110-drift": (
        (1, 1, 0),
        (0, 0, 0, 0),
        "t",
        lambda: np.cumsum(0.2 + arma11(400)),
    ),
    "arma21-ct": (
        (2, 0, 1),
        (0, 0, 0, 0),
        "ct",
        lambda: 0.01 * np.arange(400) + arma11(400),
    ),
    "sarima": ((1, 0, 1), (1, 1, 0, 12), None, seasonal_series),
    "arima212": (
        (2, 1, 2),
        (0, 0, 0, 0),
        None,
        lambda: np.cumsum(arma11(400, 0.3, 0.4)),
    ),
}


def _fit(name, **kw):
    order, seasonal, trend, make = CASES[name]
    y = make()
    ab = ARIMAResidualBootstrap(
        200, order=order, seasonal_order=seasonal, trend=trend, random_state=4, **kw
    ).fit(y)
    return y, ab


def _replay(plan, residuals, n):
    """The kernel's own recursion (``arma_path``) driven by ``residuals``."""
    P, Q, nw = plan.ar.shape[0], plan.ma.shape[0], n - plan.delta.shape[0]
    w = np.zeros((nw, LANES))
    w[:P, 0] = plan.w0
    e = np.zeros((Q + nw, LANES))
    e[Q + P :, 0] = residuals
    y = np.empty((n, LANES))
    arma_path(
        w, e, plan.mu, plan.ar, plan.ma, np.int64(P), plan.delta, plan.y0,
        plan.level, y,
    )  # fmt: skip
    return y[:, 0]


# ---------------------------------------------------------------------------
# ARX: the fit against statsmodels' AutoReg, the replicates against numpy
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2, 4])
@pytest.mark.parametrize("k", [1, 2])
def test_arx_fit_equals_statsmodels_autoreg(p, k):
    Z, y = arx_data(300, seed=p + 10 * k)
    Z = Z[:, :k]
    ref = sm_ar.AutoReg(y, lags=p, exog=Z, trend="c").fit()
    rb = ResidualBootstrap(10, order=p, burn_in=0, random_state=0).fit(Z, y)
    mine = np.r_[rb.intercept_, rb.ar_coef_, rb.exog_coef_]
    np.testing.assert_allclose(mine, ref.params, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        rb.residuals_, ref.resid - ref.resid.mean(), rtol=0, atol=1e-10
    )
    assert rb.order_ == p and rb.exog_coef_.shape == (k,)


@pytest.mark.parametrize("block_length", [None, 7])
def test_arx_replicates_are_the_recursion_with_x_held_fixed(block_length):
    """Replicate b is y*_t = c + sum phi_j y*_{t-j} + beta' x_t + e*_t from the
    observed y_0 .. y_{p-1}, with e* the centred residuals at the replicate's
    published indices (equal to the iid resampler's over the residuals)."""
    Z, y = arx_data(250)
    rb = ResidualBootstrap(
        20, order=2, burn_in=0, block_length=block_length, random_state=9
    ).fit(Z, y)
    c, phi, beta = rb.intercept_, rb.ar_coef_, rb.exog_coef_
    for b in (0, 7, 19):
        idx = rb.replicate(b).residual_indices
        e = rb.residuals_[idx]
        ref = y.copy()
        for t in range(2, 250):
            ref[t] = (c + Z[t] @ beta + e[t - 2]) + phi[1] * ref[t - 2]
            ref[t] += phi[0] * ref[t - 1]
        np.testing.assert_allclose(rb.sample(b), ref, rtol=1e-12, atol=1e-12)
    if block_length is None:
        iid = Bootstrap(20, random_state=9).fit(rb.residuals_)
        np.testing.assert_array_equal(
            rb.replicate(3).residual_indices, iid.replicate(3).indices
        )


def test_arx_recursion_reproduces_the_series():
    Z, y = arx_data(300)
    rb = ResidualBootstrap(5, order=3, burn_in=0, random_state=0).fit(Z, y)
    raw = sm_ar.AutoReg(y, lags=3, exog=Z, trend="c").fit().resid
    np.testing.assert_allclose(_replay(rb.plan_, raw, 300), y, rtol=0, atol=1e-10)


def test_arx_statistic_gets_x_and_each_replicate():
    Z, y = arx_data(200)

    def slope(X, y):
        D = np.column_stack([np.ones(len(y) - 1), y[:-1], X[1:]])
        return np.linalg.lstsq(D, y[1:], rcond=None)[0][1]

    rb = ResidualBootstrap(30, order=1, burn_in=0, random_state=2)
    res = bootstrap(Z, slope, y=y, resampler=rb)
    fitted = rb.fit(Z, y)
    assert res.estimate == slope(Z, y)
    for b in (0, 29):
        assert res.distribution[b] == slope(Z, fitted.sample(b))


def test_arx_order_selection_counts_the_regressors():
    """BIC over orders 0..6 fitted on the same rows t >= 6: n_eff log(s2) +
    log(n_eff) (p + 1 + k)."""
    Z, y = arx_data(400, seed=5)
    rb = ResidualBootstrap(5, order="bic", max_order=6, burn_in=0, random_state=0)
    rb.fit(Z, y)
    crit = []
    for p in range(7):
        D = np.column_stack(
            [np.ones(394)] + [y[6 - j : 400 - j] for j in range(1, p + 1)] + [Z[6:]]
        )
        e = y[6:] - D @ np.linalg.lstsq(D, y[6:], rcond=None)[0]
        crit.append(394 * np.log(e @ e / 394) + np.log(394) * (p + 1 + 2))
    np.testing.assert_allclose(rb.criterion_values_, crit, rtol=1e-12)
    assert rb.order_ == int(np.argmin(crit)) == 2


# ---------------------------------------------------------------------------
# ARIMA: the fit and its residuals against statsmodels, the recursion
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_params_and_residuals_equal_statsmodels(name):
    """The parameters are statsmodels' own fit; the conditional residuals equal
    statsmodels' Kalman-filter residuals (exactly for a pure AR past the
    start-up, within 1e-8 once the MA start-up has decayed)."""
    order, seasonal, trend, make = CASES[name]
    y = make()
    ref = sm_arima.ARIMA(y, order=order, seasonal_order=seasonal, trend=trend).fit()
    _, ab = _fit(name)
    np.testing.assert_array_equal(ab.params_, ref.params)
    assert ab.param_names_ == list(ref.param_names)
    raw = ab.plan_.fit[0].residuals
    np.testing.assert_allclose(ab.residuals_, raw - raw.mean(), rtol=0, atol=1e-12)
    skip = ab.plan_.delta.shape[0] + ab.ar_coef_.shape[0]
    kalman = np.asarray(ref.resid)[skip:]
    assert raw.shape == kalman.shape
    start = 0 if ab.ma_coef_.shape[0] == 0 else 100
    np.testing.assert_allclose(raw[start:], kalman[start:], rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recursion_reproduces_the_series(name):
    """Fed the fitted (uncentred) residuals, the kernel's ARMA recursion and
    integration give back the series, to 1e-10 of its scale."""
    y, ab = _fit(name)
    out = _replay(ab.plan_, ab.plan_.fit[0].residuals, y.shape[0])
    np.testing.assert_allclose(out, y, rtol=0, atol=1e-10 * np.abs(y).max())


def _reference_replicate(ab, b: int, n: int) -> np.ndarray:
    """Replicate b from its published residual indices, in plain numpy."""
    plan = ab.plan_
    e_star = ab.residuals_[ab.replicate(b).residual_indices]
    a, m, delta = plan.ar, plan.ma, plan.delta
    P, Q, K = a.shape[0], m.shape[0], delta.shape[0]
    nw = n - K
    e = np.zeros(nw)
    e[P:] = e_star
    w = np.zeros(nw)
    w[:P] = plan.w0
    for t in range(P, nw):
        w[t] = e[t] + sum(m[j] * e[t - 1 - j] for j in range(Q) if t - 1 - j >= 0)
        w[t] += sum(a[j] * w[t - 1 - j] for j in range(P))
    eta = np.zeros(n)
    eta[:K] = plan.y0
    for t in range(K, n):
        eta[t] = w[t - K] + sum(delta[k] * eta[t - 1 - k] for k in range(K))
    return eta + plan.level


@pytest.mark.parametrize("name", ["sarima", "arima212", "arima110-drift"])
@pytest.mark.parametrize("block_length", [None, 5])
def test_replicates_match_a_numpy_reference(name, block_length):
    y, ab = _fit(name, block_length=block_length)
    for b in (0, 13, 199):
        ref = _reference_replicate(ab, b, y.shape[0])
        np.testing.assert_allclose(ab.sample(b), ref, rtol=1e-9, atol=1e-9)
    assert ab.sample(5)[0] == y[0]


def test_results_do_not_depend_on_chunk_size_or_jobs():
    y = 10 + np.cumsum(arma11(300, seed=6))
    ab = ARIMAResidualBootstrap(150, order=(1, 1, 1), random_state=2)
    base = bootstrap(y, "mean", resampler=ab, chunk_size=7).distribution
    for kw in ({"chunk_size": 150}, {"chunk_size": 16, "n_jobs": 2}):
        with parallel_config(backend="threading"):
            other = bootstrap(y, "mean", resampler=ab, **kw).distribution
        np.testing.assert_array_equal(other, base)
    fitted = ab.fit(y)
    np.testing.assert_array_equal(base[77], fitted.sample(77).mean())
    rows = fitted.values(stack=True)
    np.testing.assert_array_equal(rows[149], fitted.sample(149))
    vec = bootstrap(y, lambda a, axis: a.mean(axis=axis), resampler=ab).distribution
    np.testing.assert_array_equal(vec, base)


def test_fitted_results_as_x_give_the_same_replicates():
    y = 10 + np.cumsum(arma11(300, seed=7))
    res = sm_arima.ARIMA(y, order=(1, 1, 1)).fit()
    from_data = ARIMAResidualBootstrap(20, order=(1, 1, 1), random_state=1).fit(y)
    from_res = ARIMAResidualBootstrap(20, random_state=1).fit(res)
    assert from_data.results_ is not None and from_res.results_ is None
    np.testing.assert_array_equal(from_res.params_, from_data.params_)
    np.testing.assert_array_equal(from_res.sample(11), from_data.sample(11))


def test_regression_with_arima_errors_holds_x_fixed():
    """With y given, X holds regressors: y = X beta + eta, eta ARIMA; every
    replicate keeps X beta and the statistic is called as statistic(X, y*)."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 1))
    y = 2.0 * X[:, 0] + np.cumsum(arma11(300, seed=8))
    ab = ARIMAResidualBootstrap(40, order=(1, 1, 0), random_state=3).fit(X, y)
    ref = sm_arima.ARIMA(y, exog=X, order=(1, 1, 0)).fit()
    np.testing.assert_array_equal(ab.params_, ref.params)
    level = X[:, 0] * ref.params[0]
    out = _replay(ab.plan_, ab.plan_.fit[0].residuals, 300)
    np.testing.assert_allclose(out, y, rtol=0, atol=1e-10 * np.abs(y).max())
    np.testing.assert_allclose(ab.plan_.level, level, rtol=1e-15)
    res = bootstrap(X, lambda X, y: y[-1] - y[0], y=y, resampler=ab)
    one = ab.sample(5)
    assert res.distribution[5] == one[-1] - one[0]


def test_non_stationary_and_non_invertible_fits_are_refused():
    y = arma11(200, seed=9)
    ar = sm_arima.ARIMA(y, order=(1, 0, 0), trend="n", enforce_stationarity=False)
    with pytest.raises(
        ValueError,
        match=r"'X' parameter .* non-stationary ARIMA fit: its AR polynomial .* modulus 1\.2 >= 1",
    ):
        ARIMAResidualBootstrap(5).fit(ar.filter([1.2, 1.0]))
    ma = sm_arima.ARIMA(y, order=(0, 0, 1), trend="n", enforce_invertibility=False)
    with pytest.raises(
        ValueError,
        match=r"non-invertible ARIMA fit: its MA polynomial .* modulus 2 >= 1",
    ):
        ARIMAResidualBootstrap(5).fit(ma.filter([2.0, 1.0]))


def test_missing_statsmodels_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "statsmodels.tsa.arima.model", None)
    with pytest.raises(ImportError, match=r'pip install "skboot\[statsmodels\]"'):
        ARIMAResidualBootstrap(5, order=(1, 0, 0)).fit(arma11(100))


# ---------------------------------------------------------------------------
# the bootstrap law of the AR coefficient
# ---------------------------------------------------------------------------
def _ar1_slopes(paths: np.ndarray) -> np.ndarray:
    """OLS slope (with an intercept) of w_t on w_{t-1}, w = diff of each row."""
    w = np.diff(paths, axis=1)
    a, b = w[:, :-1], w[:, 1:]
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    return (a * b).sum(axis=1) / (a * a).sum(axis=1)


def test_ar_coefficient_spread_matches_theory():
    """ARIMA(1, 1, 0): the bootstrap law of the least-squares AR coefficient of
    the differenced replicates has standard deviation sqrt((1 - phi^2) / n)
    (Brockwell & Davis 1991, sec. 8.8, at the fitted phi) and centre phi minus
    the least-squares bias (1 + 3 phi) / n (Kendall 1954).  B = 2000: the
    standard deviation's Monte Carlo error is 1.6%, the tolerance 7% (4.4 of
    them, plus the O(1/n) of the asymptotics); the centre's 4.5 Monte Carlo
    standard errors (false failure below 1e-4 each)."""
    n, B = 1000, 2000
    y = np.cumsum(arma11(n + 1, 0.5, 0.0, seed=11))
    ab = ARIMAResidualBootstrap(B, order=(1, 1, 0), random_state=12).fit(y)
    phi = ab.params_[0]
    slopes = _ar1_slopes(ab.values(stack=True))
    sd = np.sqrt((1 - phi**2) / n)
    assert abs(slopes.std(ddof=1) / sd - 1) < 0.07
    centre = phi - (1 + 3 * phi) / n
    assert abs(slopes.mean() - centre) < 4.5 * sd / np.sqrt(B)


@pytest.mark.slow
def test_ar_coefficient_law_matches_tsbootstrap():
    """Two-sample KS test between skboot's and tsbootstrap 0.7's ARIMA(1, 1, 0)
    residual bootstraps of the least-squares AR coefficient of the differenced
    replicates (same series, both conditional on the observed start, iid
    residuals; B = 2000 each; tsbootstrap demeans the differences, so skboot
    fits the drift, trend="t").  The two fits differ by O(1/n) (n = 1000), far
    below the test's resolution; a false failure has probability 1e-3."""
    tsb = pytest.importorskip("tsbootstrap")
    from tsbootstrap.methods import ARIMA, IID
    from tsbootstrap.methods import ResidualBootstrap as TR

    n, B = 1000, 2000
    y = np.cumsum(0.1 + arma11(n + 1, 0.5, 0.0, seed=13))
    ab = ARIMAResidualBootstrap(B, order=(1, 1, 0), trend="t", random_state=14)
    mine = _ar1_slopes(ab.fit(y).values(stack=True))
    spec = TR(model=ARIMA(order=(1, 1, 0)), innovation=IID())
    theirs = tsb.bootstrap(y, method=spec, n_bootstraps=B, random_state=15).values()
    theirs = _ar1_slopes(np.asarray(theirs).reshape(B, -1))
    assert stats.ks_2samp(mine, theirs).pvalue > 1e-3
