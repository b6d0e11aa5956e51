"""ParametricBootstrap: replicates drawn from a fitted or given distribution.

Closed forms (the statistic's exact sampling distribution under the model the
replicates are drawn from) are checked with Kolmogorov-Smirnov tests at a stated
false-failure rate: every KS test here uses ``ALPHA = 1e-3`` with a fixed seed, so
for a correct implementation a test fails for about one seed in a thousand.
"""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats
from sklearn.base import clone

from skboot import Bootstrap, BootstrapStatistic, StatisticError, bootstrap
from skboot.model_based import ParametricBootstrap

SEED = 20261201
ALPHA = 1e-3


def _ks(sample: np.ndarray, cdf) -> float:
    return float(stats.kstest(sample, cdf).pvalue)


# ---------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------
def test_exponential_mean_is_gamma():
    """Mean of n draws of Exp(scale): exactly Gamma(n, scale / n)."""
    n, theta, B = 15, 2.5, 10_000
    x = np.random.default_rng(1).exponential(theta, size=n)
    res = bootstrap(
        x,
        "mean",
        resampler=ParametricBootstrap(B, distribution=stats.expon(scale=theta)),
        random_state=SEED,
    )
    assert _ks(res.distribution, stats.gamma(n, scale=theta / n).cdf) > ALPHA
    # fitted by maximum likelihood with loc fixed at 0: scale = the sample mean
    fit = ParametricBootstrap(B, distribution=stats.expon, fit_kwargs={"floc": 0})
    res = bootstrap(x, "mean", resampler=fit, random_state=SEED)
    scale = float(np.mean(x))
    assert _ks(res.distribution, stats.gamma(n, scale=scale / n).cdf) > ALPHA
    # and the same replicates against a wrong scale are rejected: the test has power
    assert _ks(res.distribution, stats.gamma(n, scale=1.1 * scale / n).cdf) < ALPHA


def test_normal_mean_and_variance_closed_forms():
    """Normal(mu, sigma): mean ~ N(mu, sigma^2 / n); (n - 1) s^2 / sigma^2 ~
    chi2(n - 1)."""
    n, mu, sigma, B = 12, -3.0, 1.7, 10_000
    x = np.random.default_rng(2).normal(mu, sigma, size=n)
    pb = ParametricBootstrap(B, distribution=stats.norm(mu, sigma))
    means = bootstrap(x, "mean", resampler=pb, random_state=SEED).distribution
    assert _ks(means, stats.norm(mu, sigma / np.sqrt(n)).cdf) > ALPHA
    var = bootstrap(
        x, "var", resampler=pb, statistic_kwargs={"ddof": 1}, random_state=SEED
    ).distribution
    assert _ks((n - 1) * var / sigma**2, stats.chi2(n - 1).cdf) > ALPHA
    assert _ks((n - 1) * var / (1.2 * sigma) ** 2, stats.chi2(n - 1).cdf) < ALPHA


def test_regression_slope_with_normal_errors_is_exact():
    """y* = X b + e*, e* ~ N(0, s^2) given: the OLS coefficients of y* are exactly
    N(b, s^2 (D'D)^-1)."""
    n, s, B = 30, 0.8, 10_000
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2))
    y = X @ [1.0, -2.0] + rng.normal(scale=s, size=n)
    D = np.column_stack([X, np.ones(n)])

    def coef(X, y):
        return np.linalg.lstsq(np.column_stack([X, np.ones(len(y))]), y, rcond=None)[0]

    pb = ParametricBootstrap(B, distribution=stats.norm(0, s), random_state=SEED)
    res = bootstrap(X, coef, y=y, resampler=pb)
    cov = s**2 * np.linalg.inv(D.T @ D)
    beta = coef(X, y)
    for j in range(3):
        law = stats.norm(beta[j], np.sqrt(cov[j, j]))
        assert _ks(res.distribution[:, j], law.cdf) > ALPHA
    fitted = pb.fit(X, y)
    np.testing.assert_allclose(fitted.coef_, beta, rtol=1e-12)
    np.testing.assert_allclose(fitted.fitted_, D @ beta, rtol=1e-12)
    np.testing.assert_allclose(fitted.residuals_, y - D @ beta, atol=1e-12)


# ---------------------------------------------------------------------------
# fits and fitted attributes
# ---------------------------------------------------------------------------
def test_maximum_likelihood_fits():
    rng = np.random.default_rng(4)
    x = rng.normal(5.0, 2.0, size=200)
    pb = ParametricBootstrap(5, distribution=stats.norm, random_state=0).fit(x)
    assert pb.params_ == pytest.approx({"loc": x.mean(), "scale": x.std()})
    assert pb.distribution_.mean() == pytest.approx(x.mean())
    g = rng.gamma(3.0, 2.0, size=300)
    pb = ParametricBootstrap(5, distribution=stats.gamma, fit_kwargs={"floc": 0})
    pb.fit(g)
    a, loc, scale = stats.gamma.fit(g, floc=0)
    assert pb.params_ == pytest.approx({"a": a, "loc": loc, "scale": scale})
    frozen = stats.t(4, loc=1.0, scale=2.0)
    pb = ParametricBootstrap(5, distribution=frozen).fit(x)
    assert pb.distribution_ is frozen
    assert pb.params_ == {"df": 4.0, "loc": 1.0, "scale": 2.0}


@pytest.mark.parametrize(
    ("dist", "draw", "want"),
    [
        (stats.poisson, lambda r: r.poisson(3.2, 100), lambda k: {"mu": k.mean()}),
        (stats.bernoulli, lambda r: r.binomial(1, 0.3, 100), lambda k: {"p": k.mean()}),
        (stats.geom, lambda r: r.geometric(0.4, 100), lambda k: {"p": 1 / k.mean()}),
    ],
    ids=["poisson", "bernoulli", "geom"],
)
def test_discrete_closed_form_fits(dist, draw, want):
    k = draw(np.random.default_rng(5))
    pb = ParametricBootstrap(200, distribution=dist, random_state=0).fit(k)
    assert pb.params_ == pytest.approx({**want(k), "loc": 0.0})
    # replicates are integers in the support
    sample = np.concatenate(list(pb.iter_samples()))
    assert np.all(sample == np.round(sample))
    assert sample.min() >= pb.distribution_.support()[0]


def test_other_discrete_distributions_use_scipy_fit():
    k = np.random.default_rng(6).binomial(10, 0.35, size=150)
    bounds = {"n": (10, 10), "p": (0, 1)}
    pb = ParametricBootstrap(5, distribution=stats.binom, fit_kwargs={"bounds": bounds})
    pb.fit(k)
    assert pb.params_["n"] == 10
    assert pb.params_["p"] == pytest.approx(k.mean() / 10, abs=1e-3)


# ---------------------------------------------------------------------------
# the stream: replicate b alone, chunks, n_jobs, a plain numpy loop
# ---------------------------------------------------------------------------
def _sampler(size, random_state):
    return random_state.standard_t(5, size=size)


@pytest.mark.parametrize(
    "distribution",
    [stats.lognorm, stats.poisson(2.0), _sampler],
    ids=["fitted-lognorm", "frozen-poisson", "sampler"],
)
def test_replicates_are_pure_functions_of_seed_and_b(distribution):
    x = np.random.default_rng(7).lognormal(size=40).round() + 1
    pb = ParametricBootstrap(37, distribution=distribution, random_state=SEED)
    fit = clone(pb).fit(x)
    for chunk in (1, 5, 37):
        rows = np.concatenate(list(fit.iter_samples(chunk_size=chunk)))
        for b in (0, 6, 36):
            np.testing.assert_array_equal(rows[b], fit.sample(b))
    base = bootstrap(x, "median", resampler=pb)
    for chunk in (1, 4, 37):
        again = bootstrap(x, "median", resampler=pb, chunk_size=chunk)
        np.testing.assert_array_equal(again.distribution, base.distribution)
    with parallel_config(backend="threading"):
        par = bootstrap(x, "median", resampler=pb, n_jobs=2, chunk_size=3)
    np.testing.assert_array_equal(par.distribution, base.distribution)
    # the plain numpy loop: replicate b is the sampler on replicate b's generator
    draw = fit.distribution_.rvs if hasattr(fit.distribution_, "rvs") else _sampler
    loop = [np.median(draw(size=40, random_state=fit.generator(b))) for b in range(37)]
    np.testing.assert_array_equal(base.distribution, loop)


def test_seeds_and_replicates_differ():
    x = np.arange(1.0, 31.0)
    a = ParametricBootstrap(4, distribution=stats.norm, random_state=1).fit(x)
    b = ParametricBootstrap(4, distribution=stats.norm, random_state=2).fit(x)
    assert not np.array_equal(a.sample(0), b.sample(0))
    assert not np.array_equal(a.sample(0), a.sample(1))


@pytest.mark.slow
def test_loky_workers_bit_identical():
    x = np.random.default_rng(8).normal(size=50)
    pb = ParametricBootstrap(60, distribution=stats.norm, random_state=SEED)
    serial = bootstrap(x, "std", resampler=pb)
    with parallel_config(backend="loky"):
        par = bootstrap(x, "std", resampler=pb, n_jobs=2, chunk_size=7)
    np.testing.assert_array_equal(serial.distribution, par.distribution)


# ---------------------------------------------------------------------------
# the semi-parametric regression mode
# ---------------------------------------------------------------------------
def test_empirical_errors_resample_centred_residuals():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 2))
    y = X @ [0.5, 1.0] + rng.standard_t(3, size=40)
    pb = ParametricBootstrap(25, distribution="empirical", fit_intercept=False)
    fit = pb.set_params(random_state=SEED).fit(X, y)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    resid = y - X @ beta
    np.testing.assert_allclose(fit.residuals_, resid - resid.mean(), atol=1e-12)
    assert fit.distribution_ == "empirical" and fit.params_ == {}
    iid = Bootstrap(random_state=SEED).fit(fit.residuals_)
    for b in (0, 3, 24):
        idx = fit.plan_.residual_indices(b)
        np.testing.assert_array_equal(idx, iid.replicate(b).indices)
        np.testing.assert_array_equal(fit.sample(b), fit.fitted_ + fit.residuals_[idx])

    def slope(X, y):
        return np.linalg.lstsq(X, y, rcond=None)[0][0]

    res = bootstrap(X, slope, y=y, resampler=pb)
    rows = np.concatenate(list(fit.iter_samples(chunk_size=4)))
    np.testing.assert_array_equal(res.distribution, [slope(X, r) for r in rows])


def test_fitted_error_distribution_of_a_regression():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(60, 1))
    y = 2.0 * X[:, 0] + rng.laplace(scale=0.5, size=60)
    fit = ParametricBootstrap(10, distribution=stats.laplace, random_state=0).fit(X, y)
    loc, scale = stats.laplace.fit(fit.residuals_)
    assert fit.params_ == pytest.approx({"loc": loc, "scale": scale})
    np.testing.assert_array_equal(
        fit.sample(3),
        fit.fitted_ + fit.distribution_.rvs(size=60, random_state=fit.generator(3)),
    )


# ---------------------------------------------------------------------------
# the engine: intervals, BootstrapStatistic, persistence
# ---------------------------------------------------------------------------
def test_intervals_and_estimator_api(tmp_path):
    x = np.random.default_rng(11).normal(10.0, 2.0, size=60)
    pb = ParametricBootstrap(400, distribution=stats.norm)
    res = bootstrap(x, "mean", resampler=pb, random_state=3)
    for method in ("percentile", "basic", "normal", "bc"):
        low, high = res.confidence_interval(method=method)
        assert low < res.estimate < high
    with pytest.raises(ValueError, match="'bca' interval needs the acceleration"):
        res.confidence_interval(method="bca")
    low, high = res.confidence_interval(
        method="studentized", standard_error=lambda a: a.std(ddof=1) / np.sqrt(60)
    )
    assert low < res.estimate < high
    est = BootstrapStatistic("mean", resampler=pb, random_state=3).fit(x)
    np.testing.assert_array_equal(est.distribution_, res.distribution)
    path = tmp_path / "parametric.npz"
    res.save(path)
    assert type(res).load(path) == res


def test_sampler_errors_name_the_replicate():
    calls = []

    def flaky(size, random_state):
        calls.append(size)
        if len(calls) == 3:  # the fit's check is call 1; replicate 1 is call 3
            return np.zeros(size + 1)
        return random_state.normal(size=size)

    x = np.zeros(20)
    pb = ParametricBootstrap(5, distribution=flaky, random_state=0)
    with pytest.raises(
        StatisticError,
        match=r"on replicate 1 it returned float64 values of shape \(21,\)",
    ):
        bootstrap(x, "mean", resampler=pb, chunk_size=1)


def test_runs_with_equal_parameters_record_the_same_text():
    """A distribution's repr is a memory address; the resampler's repr and the
    result's record name it instead, so two equal runs give equal results."""
    x = np.arange(1.0, 21.0)

    def run(distribution):
        pb = ParametricBootstrap(30, distribution=distribution, random_state=0)
        return bootstrap(x, "mean", resampler=pb)

    assert run(stats.norm(0, scale=2.0)) == run(stats.norm(0, scale=2.0))
    res = run(stats.norm(0, scale=np.float64(2.0)))
    assert res.resampler_params["distribution"] == "scipy.stats.norm(0, scale=2.0)"
    assert "0x" not in res.resampler
    assert repr(ParametricBootstrap(distribution=stats.gamma)) == (
        "ParametricBootstrap(distribution=scipy.stats.gamma)"
    )
    assert repr(ParametricBootstrap(distribution=_sampler)) == (
        f"ParametricBootstrap(distribution={__name__}._sampler)"
    )
    assert run(_sampler) == run(_sampler)
