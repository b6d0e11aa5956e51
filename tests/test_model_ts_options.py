"""Time-series residual bootstraps: ``burn_in="auto"`` (100 for AR and VAR, 0
with exogenous regressors), wild multipliers for ARIMAResidualBootstrap
(``weights=``), and VARResidualBootstrap with exogenous regressors held fixed
(VARX): fits against statsmodels, replicates against a scalar recursion,
multiplier moments against their laws, and invariance to chunking."""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config

from skboot import ResidualBootstrap, SieveBootstrap, WildBootstrap, bootstrap
from skboot._kernels.model_arma import arma_path
from skboot._kernels.model_based import LANES
from skboot.model_based import ARIMAResidualBootstrap, VARResidualBootstrap
from skboot.model_based._varx import fit_varx


def ar2(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.zeros(n + 100)
    for t in range(2, n + 100):
        x[t] = 0.3 + 0.5 * x[t - 1] - 0.2 * x[t - 2] + rng.normal()
    return x[100:]


def arx(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    y = np.zeros(n)
    for t in range(1, n):
        y[t] = 0.4 * y[t - 1] + Z[t] @ [1.0, -0.5] + rng.normal()
    return Z, y


def varx(
    n: int, m: int = 2, k: int = 2, seed: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, k))
    B = rng.normal(size=(m, k))
    A = 0.4 * np.eye(m) + 0.1 * rng.normal(size=(m, m))
    y = np.zeros((n, m))
    for t in range(1, n):
        y[t] = 0.2 + A @ y[t - 1] + B @ Z[t] + rng.normal(size=m)
    return Z, y


# ---------------------------------------------------------------------------
# burn_in="auto"
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "kw", "make"),
    [
        (ResidualBootstrap, {"order": 2}, lambda: ar2(150)),
        (ResidualBootstrap, {"order": "bic", "block_length": 4}, lambda: ar2(150)),
        (SieveBootstrap, {}, lambda: ar2(150)),
        (VARResidualBootstrap, {"order": 1}, lambda: varx(120)[1]),
    ],
)
def test_auto_burn_in_is_100_without_regressors_bit_for_bit(cls, kw, make):
    """The default keeps today's results: it resolves to 100, the same series."""
    x = make()
    auto = cls(11, random_state=5, **kw).fit(x)
    hundred = cls(11, burn_in=100, random_state=5, **kw).fit(x)
    assert auto.burn_in == "auto" and auto.burn_in_ == 100 == hundred.burn_in_
    np.testing.assert_array_equal(auto.values(stack=True), hundred.values(stack=True))
    np.testing.assert_array_equal(
        bootstrap(x, "mean", resampler=cls(11, **kw), random_state=5).distribution,
        bootstrap(
            x, "mean", resampler=cls(11, burn_in=100, **kw), random_state=5
        ).distribution,
    )


def test_arx_runs_with_the_default_burn_in():
    """``ResidualBootstrap(order=2).fit(X, y)`` used to raise on the default
    burn-in; "auto" means 0 with regressors, the same replicates as burn_in=0."""
    Z, y = arx(120)
    auto = ResidualBootstrap(9, order=2, random_state=3).fit(Z, y)
    zero = ResidualBootstrap(9, order=2, burn_in=0, random_state=3).fit(Z, y)
    assert auto.burn_in_ == 0
    np.testing.assert_array_equal(auto.values(stack=True), zero.values(stack=True))

    def slope(X, y):
        return np.polyfit(y[:-1], y[1:], 1)[0]

    res = bootstrap(Z, slope, y=y, resampler=ResidualBootstrap(19, order=1))
    assert res.distribution.shape == (19,)
    assert np.all(np.isfinite(res.distribution))


@pytest.mark.parametrize("cls", [ResidualBootstrap, VARResidualBootstrap])
def test_an_explicit_burn_in_with_regressors_is_refused(cls):
    Z, y = varx(80)
    y = y if cls is VARResidualBootstrap else y[:, 0]
    with pytest.raises(ValueError, match=r"'burn_in' .* must be 'auto' or 0 when y"):
        cls(5, order=1, burn_in=100).fit(Z, y)


# ---------------------------------------------------------------------------
# ARIMA with wild multipliers
# ---------------------------------------------------------------------------
def _replay(plan, innovations, n):
    """The kernel's own recursion (``arma_path``) driven by ``innovations``."""
    P, Q, nw = plan.ar.shape[0], plan.ma.shape[0], n - plan.delta.shape[0]
    w = np.zeros((nw, LANES))
    w[:P, 0] = plan.w0
    e = np.zeros((Q + nw, LANES))
    e[Q + P :, 0] = innovations
    y = np.empty((n, LANES))
    arma_path(
        w, e, plan.mu, plan.ar, plan.ma, np.int64(P), plan.delta, plan.y0,
        plan.level, y,
    )  # fmt: skip
    return y[:, 0]


def _arima111(n: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=n + 1) * (1 + (np.arange(n + 1) > n // 2))
    w = np.zeros(n)
    for t in range(1, n):
        w[t] = 0.5 * w[t - 1] + e[t + 1] + 0.3 * e[t]
    return 10 + np.cumsum(w)


@pytest.mark.parametrize("weights", ["rademacher", "mammen", "webb", "normal"])
@pytest.mark.parametrize("block_length", [None, 7])
def test_wild_arima_replicate_is_the_recursion_of_rescaled_residuals(
    weights, block_length
):
    """Innovation ``i`` of replicate ``b`` is ``residuals_[i] * v[i // L]``, bit
    for bit, with ``v = replicate(b).multipliers``; any chunk size, any jobs."""
    pytest.importorskip("statsmodels")
    y = _arima111()
    ab = ARIMAResidualBootstrap(
        19, order=(1, 1, 1), weights=weights, block_length=block_length,
        random_state=8,
    ).fit(y)  # fmt: skip
    L = block_length or 1
    M = ab.residuals_.shape[0]
    assert ab.n_multipliers_ == -(-M // L)
    whole = ab.values(stack=True)
    for b in (0, 7, 8, 18):
        rep = ab.replicate(b)
        assert rep.residual_indices is None
        v = rep.multipliers
        innov = ab.residuals_ * v[np.arange(M) // L]
        np.testing.assert_array_equal(whole[b], _replay(ab.plan_, innov, y.shape[0]))
    for chunk in (1, 3, 8, 9):
        parts = np.concatenate(list(ab.iter_samples(chunk_size=chunk)))
        np.testing.assert_array_equal(parts, whole)
    base = bootstrap(y, "mean", resampler=ab, chunk_size=5).distribution
    with parallel_config(backend="threading"):
        other = bootstrap(y, "mean", resampler=ab, chunk_size=4, n_jobs=2)
    np.testing.assert_array_equal(other.distribution, base)


def test_wild_arima_multipliers_are_the_wild_bootstraps():
    """The multipliers read purpose "wild" as WildBootstrap does: the same
    seed gives the same multiplier ``i`` of replicate ``b``."""
    pytest.importorskip("statsmodels")
    y = _arima111()
    x = ar2(300)
    for weights in ("rademacher", "normal"):
        ab = ARIMAResidualBootstrap(
            5, order=(1, 1, 1), weights=weights, random_state=11
        ).fit(y)
        wb = WildBootstrap(5, weights=weights, order=1, random_state=11).fit(x)
        for b in range(5):
            a, w = ab.replicate(b).multipliers, wb.replicate(b).multipliers
            k = min(a.shape[0], w.shape[0])
            np.testing.assert_array_equal(a[:k], w[:k])


# Moments of the multipliers (mean 0, variance 1; third and fourth moments of
# each law).  About 2000 * 397 ~ 8e5 pooled values: every tolerance is over
# 5 standard errors (false-failure probability below 1e-6 each).
LAWS = {
    "rademacher": (0.0, 1.0, 0.0, 1.0),
    "mammen": (0.0, 1.0, 1.0, 2.0),
    "webb": (0.0, 1.0, 0.0, (2 * 2.25 + 2 * 1.0 + 2 * 0.25) / 6),
    "normal": (0.0, 1.0, 0.0, 3.0),
}


@pytest.mark.parametrize("weights", list(LAWS))
def test_wild_arima_innovations_have_the_moments_of_the_law(weights):
    """The innovations recovered from the generated series (``e*_t = w*_t -
    c - a_1 w*_{t-1} - a_2 w*_{t-2}``), divided by the residuals at their own
    times, have the law's first four moments."""
    pytest.importorskip("statsmodels")
    x = ar2(400, seed=4)
    B = 2000
    ab = ARIMAResidualBootstrap(
        B, order=(2, 0, 0), trend="c", weights=weights, random_state=2
    ).fit(x)
    plan = ab.plan_
    a = plan.ar
    w = ab.values(stack=True) - plan.level  # (B, n): d = 0, so eta = w
    e_star = w[:, 2:] - a[0] * w[:, 1:-1] - a[1] * w[:, :-2]
    e = ab.residuals_
    assert np.abs(e).min() > 1e-6
    r = (e_star / e).ravel()
    scale = np.abs(e_star).max() / np.abs(e).min()
    np.testing.assert_allclose(
        e_star[3], e * ab.replicate(3).multipliers, rtol=0, atol=1e-12 * scale
    )
    mean, var, third, fourth = LAWS[weights]
    N = r.shape[0]
    moments = [r.mean(), (r**2).mean(), (r**3).mean(), (r**4).mean()]
    tol = [
        6 * np.sqrt(1.0 / N),
        6 * np.sqrt(max(fourth - 1.0, 1e-3) / N) + 1e-9,
        6 * np.sqrt(15.0 / N) + 1e-9,
        6 * np.sqrt(105.0 / N) + 1e-9,
    ]
    for got, want, t in zip(moments, (mean, var, third, fourth), tol, strict=True):
        assert abs(got - want) < t, (weights, moments)
    if weights == "rademacher":
        np.testing.assert_allclose(np.abs(r), 1.0, rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------
# VARX
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("p", "k"), [(0, 1), (1, 2), (3, 3)])
def test_varx_fit_equals_statsmodels(p, k):
    sm = pytest.importorskip("statsmodels.tsa.api")
    Z, y = varx(250, m=3, k=k, seed=p + 10 * k)
    vb = VARResidualBootstrap(5, order=p, random_state=0).fit(Z, y)
    ref = sm.VAR(y, exog=Z).fit(p, trend="c")
    np.testing.assert_allclose(vb.intercept_, ref.coefs_exog[:, 0], atol=1e-10)
    np.testing.assert_allclose(vb.exog_coef_, ref.coefs_exog[:, 1:], atol=1e-10)
    np.testing.assert_allclose(vb.var_coef_, ref.coefs.reshape(p, 3, 3), atol=1e-10)
    np.testing.assert_allclose(vb.sigma_u_, ref.sigma_u, atol=1e-10)
    raw, _ = fit_varx(y, Z, p)
    np.testing.assert_allclose(raw.residuals, ref.resid, atol=1e-10)
    np.testing.assert_allclose(
        vb.residuals_, ref.resid - ref.resid.mean(axis=0), atol=1e-10
    )


@pytest.mark.parametrize("criterion", ["aic", "bic", "hqic"])
def test_varx_order_selection_equals_statsmodels(criterion):
    sm = pytest.importorskip("statsmodels.tsa.api")
    Z, y = varx(200, seed=7)
    vb = VARResidualBootstrap(5, order=criterion, max_order=4).fit(Z, y)
    ics = sm.VAR(y, exog=Z).select_order(4, trend="c").ics[criterion]
    np.testing.assert_allclose(vb.criterion_values_, ics, rtol=1e-10, atol=1e-10)
    assert vb.order_ == int(np.argmin(ics))


def _scalar_varx(vb, Z, b):
    """Replicate ``b`` by a scalar recursion over Python floats:
    ``(mu_{t,i} + u_{t,i})``, then ``+ A_j[i, k] y_{t-j,k}`` for lags
    ``j = p..1`` and ``k = 0..m-1``, with ``mu = c + B x_t``."""
    idx = vb.replicate(b).residual_indices
    coef, resid = vb.var_coef_, vb.residuals_
    mu = vb.intercept_ + Z @ vb.exog_coef_.T
    p, m, _ = coef.shape
    path = [[float(v) for v in row] for row in vb.plan_.series[:p]]
    for t in range(p, vb.n_samples_):
        row = []
        for i in range(m):
            a = float(mu[t, i]) + float(resid[idx[t - p], i])
            for j in range(p - 1, -1, -1):
                for k in range(m):
                    a = a + float(coef[j, i, k]) * path[t - 1 - j][k]
            row.append(a)
        path.append(row)
    return np.array(path)


@pytest.mark.parametrize(
    ("n", "m", "p", "block_length"), [(40, 2, 1, None), (61, 3, 2, 4), (30, 2, 0, None)]
)
def test_varx_replicates_equal_a_scalar_recursion(n, m, p, block_length):
    """Eight lanes, partial lanes and every chunk size give the scalar
    recursion with ``X`` held fixed, bit for bit."""
    Z, y = varx(n, m=m, seed=n)
    vb = VARResidualBootstrap(
        19, order=p, block_length=block_length, random_state=3
    ).fit(Z, y)
    assert vb.burn_in_ == 0
    whole = vb.values(stack=True)
    for b in (0, 7, 8, 18):
        np.testing.assert_array_equal(whole[b], _scalar_varx(vb, Z, b))
    for chunk in (1, 3, 8, 9):
        parts = np.concatenate(list(vb.iter_samples(chunk_size=chunk)))
        np.testing.assert_array_equal(parts, whole)


def test_varx_recursion_reproduces_the_series():
    """Driven by the fitted (uncentred) residuals, the recursion with ``X``
    held fixed gives back ``y``."""
    Z, y = varx(200, m=3, k=2, seed=9)
    vb = VARResidualBootstrap(3, order=2, random_state=0).fit(Z, y)
    raw, _ = fit_varx(y, Z, 2)
    mu = vb.intercept_ + Z @ vb.exog_coef_.T
    out = [y[0], y[1]]
    for t in range(2, 200):
        nxt = mu[t] + raw.residuals[t - 2]
        for j in range(1, -1, -1):
            nxt = nxt + vb.var_coef_[j] @ out[t - 1 - j]
        out.append(nxt)
    np.testing.assert_allclose(np.array(out), y, rtol=0, atol=1e-9 * np.abs(y).max())


def test_varx_statistic_gets_x_and_each_replicate():
    """``statistic(X, y*)``: X fixed, y* the replicate (n, m); vectorized
    callables see time last; the same replicates with jobs and chunks."""
    Z, y = varx(150, seed=4)
    vb = VARResidualBootstrap(40, order=1, random_state=6)
    seen = []

    def first_mean(X, Y):
        seen.append(X)
        return Y[:, 0].mean() + 0.0 * X.sum()

    res = bootstrap(Z, first_mean, y=y, resampler=vb, chunk_size=7)
    assert all(s is Z or np.array_equal(s, Z) for s in seen)
    fitted = vb.fit(Z, y)
    want = np.array([fitted.sample(b)[:, 0].mean() for b in range(40)])
    np.testing.assert_allclose(res.distribution, want, rtol=1e-13)

    def vec(X, Y, axis=-1):
        return Y[..., 0, :].mean(axis=axis)

    with parallel_config(backend="threading"):
        other = bootstrap(Z, vec, y=y, resampler=vb, chunk_size=5, n_jobs=2)
    np.testing.assert_allclose(other.distribution, want, rtol=1e-13)
