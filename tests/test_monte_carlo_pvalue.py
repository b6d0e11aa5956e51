"""monte_carlo_test against scipy on the same null samples; bootstrap p-values by
interval inversion: ``p < alpha`` exactly when the ``1 - alpha`` interval
excludes the null."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from scipy import stats

from skboot import DegenerateDistributionWarning, StratifiedBootstrap, bootstrap
from skboot.intervals import quantile_levels
from skboot.significance import batch_generator, monte_carlo_batch, monte_carlo_test

#: the batch size of these tests' samples (n = 40, and 15 + 20)
K = monte_carlo_batch(40)
assert monte_carlo_batch(35) == K


# ---------------------------------------------------------------------------
# Monte Carlo tests
# ---------------------------------------------------------------------------
def test_monte_carlo_equals_scipy_on_the_same_samples(rng):
    """Feed scipy's rvs the rows our batches draw: same null, same p."""
    x = stats.skewnorm(3).rvs(size=40, random_state=rng)
    B = 299  # one batch: K = 1024 replicates of n = 40
    for alternative in ("two-sided", "less", "greater"):
        ours = monte_carlo_test(
            x,
            stats.norm(0, 1).rvs,
            stats.skew,
            n_resamples=B,
            alternative=alternative,
            random_state=7,
        )
        rows = np.concatenate([
            batch_generator(7, j).standard_normal((min(K, B - j * K), 40))
            for j in range(-(-B // K))
        ])  # fmt: skip
        draws = iter(rows)

        def rvs(size, draws=draws):
            return np.stack([next(draws) for _ in range(size[0])])

        ref = stats.monte_carlo_test(
            x, rvs, stats.skew, n_resamples=B, alternative=alternative
        )
        assert np.array_equal(ours.null_distribution, ref.null_distribution)
        assert ours.pvalue == pytest.approx(ref.pvalue, abs=1e-15)
        assert ours.statistic == ref.statistic


def test_monte_carlo_pvalues_within_monte_carlo_error_of_scipy():
    """scipy's own draws and ours: the same null law, p-values within a few
    Monte Carlo standard errors of each other (scipy's from a seeded Generator)."""
    B = 1999
    for seed, x in enumerate(
        (stats.skewnorm(2).rvs(size=50, random_state=3),
         stats.gamma(8).rvs(size=50, random_state=3))
    ):  # fmt: skip
        ours = monte_carlo_test(x, stats.norm.rvs, stats.skew, n_resamples=B,
                                random_state=seed)  # fmt: skip
        gen = np.random.default_rng(seed)
        ref = stats.monte_carlo_test(
            x, lambda size, gen=gen: stats.norm.rvs(size=size, random_state=gen),
            stats.skew,
            n_resamples=B,
        )  # fmt: skip
        assert ours.statistic == ref.statistic
        # two-sided p = 2 q, q a proportion of B draws: 5 standard errors of
        # the difference of two independent estimates
        q = max(ref.pvalue / 2, 5 / B)
        assert abs(ours.pvalue - ref.pvalue) < 5 * 2 * np.sqrt(2 * q * (1 - q) / B)


def test_monte_carlo_two_samples_rng_keyword_and_invariance(rng):
    x, y = rng.normal(size=15), rng.normal(size=20)

    def gauss(size, rng):
        return rng.normal(size=size)

    def stat(a, b, axis=-1):
        return np.var(a, axis=axis) / np.var(b, axis=axis)

    base = monte_carlo_test((x, y), (gauss, gauss), stat, n_resamples=300,
                            random_state=1)  # fmt: skip
    plain = monte_carlo_test(
        (x, y), [gauss, gauss], lambda a, b: np.var(a) / np.var(b),
        n_resamples=300, random_state=1, chunk_size=7,
    )  # fmt: skip
    assert np.array_equal(base.null_distribution, plain.null_distribution)
    with parallel_config(backend="threading"):
        par = monte_carlo_test((x, y), (gauss, gauss), stat, n_resamples=300,
                               random_state=1, n_jobs=2, chunk_size=10)  # fmt: skip
    assert np.array_equal(base.null_distribution, par.null_distribution)
    # replicate b is row b % K of batch b // K; the samplers draw in turn
    for b in (37, 290):
        j, r = divmod(b, K)
        k = min(K, 300 - j * K)
        gen = batch_generator(base.random_state, j)
        a, c = gen.normal(size=(k, 15)), gen.normal(size=(k, 20))
        assert base.null_distribution[b] == stat(a[r], c[r])


BAD_MC = [
    ({"rvs": lambda size: np.zeros(size)}, "accepts neither"),
    ({"rvs": 3}, "'rvs' parameter"),
    ({"rvs": (np.random.default_rng().normal,) * 2}, "one sample per sampler"),
    ({"statistic": "skew"}, "'statistic' parameter"),
    ({"n_resamples": np.inf}, "'n_resamples' parameter"),
    ({"alternative": "both"}, "'alternative' parameter"),
    ({"vectorized": 1}, "'vectorized' parameter"),
    ({"n_jobs": 0}, "'n_jobs' parameter"),
]


@pytest.mark.parametrize(("kwargs", "match"), BAD_MC, ids=[m for _, m in BAD_MC])
def test_monte_carlo_bad_inputs(kwargs, match):
    call = {
        "data": np.arange(5.0),
        "rvs": stats.norm(0, 1).rvs,
        "statistic": np.mean,
        **kwargs,
    }
    with pytest.raises(ValueError, match=match):
        monte_carlo_test(call.pop("data"), call.pop("rvs"), call.pop("statistic"),
                         **call)  # fmt: skip


# ---------------------------------------------------------------------------
# bootstrap p-values
# ---------------------------------------------------------------------------
METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
ALPHAS = (0.01, 0.05, 0.1, 0.3, 0.6)


def _excludes(ci, null):
    low, high = np.asarray(ci.low), np.asarray(ci.high)
    return ~((low <= null) & (null <= high))


def _check_identity(res, nulls, methods=METHODS, **kw):
    checked = 0
    for method in methods:
        for alternative in ("two-sided", "less", "greater"):
            for null in nulls:
                p = np.asarray(
                    res.pvalue(null, method=method, alternative=alternative, **kw)
                )
                for alpha in ALPHAS:
                    ci = res.confidence_interval(
                        1 - alpha, method=method, alternative=alternative, **kw
                    )
                    near = np.abs(p - alpha) < 1e-9  # a boundary: either side
                    agree = (p < alpha) == _excludes(ci, null)
                    assert (agree | near).all(), (method, alternative, null, alpha)
                    checked += int((~near).sum())
    return checked


def test_pvalue_is_the_smallest_level_that_excludes_the_null(rng):
    x = rng.lognormal(size=25)
    res = bootstrap(x, "mean", n_resamples=999, random_state=2)
    nulls = np.linspace(res.estimate - 1.5, res.estimate + 1.5, 13)
    assert _check_identity(res, nulls) > 1000


def test_pvalue_identity_for_vector_statistics_and_strata(rng):
    X = pd.DataFrame(rng.exponential(size=(40, 2)), columns=["a", "b"])
    y = np.repeat([0, 1], 20)
    res = bootstrap(X, "median", resampler=StratifiedBootstrap(499, random_state=1),
                    y=y)  # fmt: skip
    p = res.pvalue(pd.Series([1.0, 0.5]).to_numpy(), method="bca")
    assert isinstance(p, pd.Series) and list(p.index) == ["a", "b"]
    _check_identity(res, [np.array([0.2, 1.4]), 0.7], methods=("percentile", "bca"))
    tiny = bootstrap(rng.exponential(size=12), np.median, n_resamples=299,
                     random_state=5)  # fmt: skip
    _check_identity(tiny, [0.1, 0.5, 1.0, 3.0], methods=("bca",))


def test_pvalue_identity_studentized_callable(rng):
    x = rng.gamma(2.0, size=30)

    def se(a):
        return np.std(a, ddof=1) / np.sqrt(a.shape[0])

    res = bootstrap(x, np.mean, n_resamples=499, random_state=3)
    _check_identity(res, [1.0, 1.8, 2.4], methods=("studentized",), standard_error=se)


def test_pvalues_approximate_the_counting_definitions(rng):
    """Percentile: about the fraction of replicates beyond the null; studentized:
    the bootstrap-t count of Hall & Wilson (1991), within interpolation (2 / B)."""
    x = rng.normal(0.2, 1.0, size=40)
    B = 1999
    res = bootstrap(x, "mean", n_resamples=B, random_state=4)
    d = res.distribution
    for null in (-0.1, 0.05, 0.2, 0.5):
        count = 2 * min((d <= null).mean(), (d >= null).mean())
        assert res.pvalue(null, method="percentile") == pytest.approx(
            min(1.0, count), abs=2 / B
        )
    se_b = bootstrap(x, "std", n_resamples=B, random_state=4, statistic_kwargs={
        "ddof": 1}).distribution / np.sqrt(40)  # fmt: skip
    t_star = (d - res.estimate) / se_b
    tau = (res.estimate - 0.0) / (x.std(ddof=1) / np.sqrt(40))
    greater = (t_star >= tau).mean()
    p = res.pvalue(0.0, method="studentized", alternative="greater")
    assert p == pytest.approx(greater, abs=2 / B)


def test_quantile_levels_invert_type7_quantiles():
    ordered = np.array([0.0, 1.0, 1.0, 1.0, 4.0])
    assert quantile_levels(ordered, 1.0) == (0.75, 0.25)
    assert quantile_levels(ordered, 2.5) == (0.875, 0.875)
    assert quantile_levels(ordered, -1.0) == (0.0, 0.0)
    assert quantile_levels(ordered, 5.0) == (1.0, 1.0)
    for level in (0.1, 0.3, 0.9):
        v = np.quantile(ordered, level)
        g, lv = quantile_levels(ordered, float(v))
        assert lv <= level + 1e-12 and g >= level - 1e-12


def test_result_pvalue_bad_inputs_and_undefined(rng):
    res = bootstrap(rng.normal(size=(20, 2)), "mean", n_resamples=99, random_state=0)
    with pytest.raises(ValueError, match="'null' parameter of pvalue"):
        res.pvalue([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="'null' parameter"):
        res.pvalue(np.nan)
    with pytest.raises(ValueError, match="'method' parameter"):
        res.pvalue(0.0, method="bootstrap-t")
    with pytest.raises(ValueError, match="'alternative' parameter"):
        res.pvalue(0.0, alternative="lower")
    flat = bootstrap(np.ones(10), "mean", n_resamples=50, random_state=0)
    with pytest.warns(DegenerateDistributionWarning, match="zero spread"):
        assert flat.pvalue(2.0, method="percentile") == 0.0  # [1, 1] excludes 2
    # the estimate above every replicate: z0 = inf, no BCa interval, no p-value
    distinct = bootstrap(np.arange(30.0), lambda a: len(np.unique(a)),
                         n_resamples=50, random_state=0)  # fmt: skip
    with pytest.warns(DegenerateDistributionWarning, match="z0 is"):
        assert np.isnan(distinct.pvalue(20.0, method="bc"))
