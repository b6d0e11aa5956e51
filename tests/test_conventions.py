"""Conventions users bring: a default interval that works for every result (BCa
where a jackknife exists, percentile otherwise: model-based runs, loaded results),
and DataFrame columns named in errors."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from skboot import (
    BootstrapResult,
    BootstrapStatistic,
    ResidualBootstrap,
    WildBootstrap,
    bootstrap,
)

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def series():
    rng = np.random.default_rng(4)
    x = np.empty(200)
    x[0] = rng.normal()
    for t in range(1, 200):
        x[t] = 0.5 * x[t - 1] + rng.normal()
    return x


def test_index_resamplers_default_to_bca():
    x = np.random.default_rng(0).lognormal(size=80)
    res = bootstrap(x, "mean", n_resamples=499, random_state=0)
    ci = res.confidence_interval()
    assert ci.method == "bca"
    assert (ci.low, ci.high) == tuple(res.confidence_interval(method="bca"))
    assert res.pvalue(1.0) == res.pvalue(1.0, method="bca")


def test_model_based_result_defaults_to_percentile(series):
    res = bootstrap(
        series,
        "mean",
        resampler=ResidualBootstrap(order=1, n_resamples=199, random_state=0),
    )
    with pytest.raises(ValueError, match="'bca' interval needs the acceleration"):
        res.confidence_interval(method="bca")
    ci = res.confidence_interval()
    assert ci.method == "percentile"
    assert tuple(ci) == tuple(res.confidence_interval(method="percentile"))
    assert np.isfinite(res.pvalue(0.0))
    ax = res.plot()
    assert "percentile" in " ".join(t.get_text() for t in ax.get_legend().get_texts())


def test_wild_bootstrap_estimator_defaults_to_percentile():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 2))
    y = X @ np.array([1.0, -0.5]) + rng.normal(size=120)

    def slope(X, y):
        return np.linalg.lstsq(X, y, rcond=None)[0][0]

    est = BootstrapStatistic(
        slope, resampler=WildBootstrap(n_resamples=199, random_state=0)
    ).fit(X, y)
    assert est.confidence_interval().method == "percentile"


def test_loaded_result_defaults_to_percentile(tmp_path):
    x = np.random.default_rng(2).normal(size=60)
    res = bootstrap(x, "mean", n_resamples=299, random_state=0)
    path = tmp_path / "run.npz"
    res.save(path)
    loaded = BootstrapResult.load(path)
    ci = loaded.confidence_interval()
    assert ci.method == "percentile"
    assert tuple(ci) == tuple(res.confidence_interval(method="percentile"))
    assert loaded.plot() is not None


def test_text_column_is_named_before_any_work():
    import pandas as pd

    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "grade": ["A", "B", "C", "A"]})
    for call in (
        lambda: bootstrap(frame, "mean", n_resamples=9),
        lambda: BootstrapStatistic("mean", n_resamples=9).fit(frame),
    ):
        with pytest.raises(ValueError, match=r"Column\(s\) 'grade' are not"):
            call()


def test_bootstrap_takes_scipys_spellings():
    x = np.random.default_rng(5).normal(size=50)
    ref = bootstrap(x, "mean", n_resamples=999, random_state=3)
    same = bootstrap(x, "mean", n_resamples=999.0, rng=3)
    assert same == ref
    assert bootstrap(x, "mean", n_resamples=1e3, random_state=3).n_resamples == 1000
    with pytest.raises(ValueError, match="'rng' and 'random_state' parameters"):
        bootstrap(x, "mean", rng=1, random_state=1)
    with pytest.raises(ValueError, match="'n_resamples' parameter of bootstrap"):
        bootstrap(x, "mean", n_resamples=99.5)


def test_scipy_mirrors_take_rng_integral_counts_and_any_case():
    from scipy import stats

    from skboot import monte_carlo_test, permutation_test

    rng = np.random.default_rng(7)
    x, y = rng.normal(size=30), rng.normal(0.4, size=25)
    ref = permutation_test((x, y), "mean_diff", n_resamples=999, random_state=2)
    alt = permutation_test(
        (x, y),
        "mean_diff",
        n_resamples=999.0,
        rng=2,
        alternative="Two-Sided",
        permutation_type="Independent",
    )
    assert (alt.statistic, alt.pvalue) == (ref.statistic, ref.pvalue)
    less = permutation_test((x, y), "mean_diff", n_resamples=999, random_state=2,
                            alternative="less")  # fmt: skip
    assert (
        permutation_test(
            (x, y), "mean_diff", n_resamples=999, random_state=2, alternative="LESS"
        ).pvalue
        == less.pvalue
    )
    with pytest.raises(ValueError, match="'rng' and 'random_state' parameters"):
        permutation_test((x, y), "mean_diff", rng=1, random_state=1)
    mc_ref = monte_carlo_test(x, stats.norm.rvs, stats.skew, n_resamples=199,
                              random_state=4)  # fmt: skip
    mc = monte_carlo_test(x, stats.norm.rvs, stats.skew, n_resamples=1.99e2, rng=4,
                          alternative="Greater")  # fmt: skip
    mc_greater = monte_carlo_test(x, stats.norm.rvs, stats.skew, n_resamples=199,
                                  random_state=4, alternative="greater")  # fmt: skip
    assert mc.pvalue == mc_greater.pvalue
    assert mc_ref.statistic == mc.statistic


def test_bootstrap_options_in_any_case():
    x = np.r_[np.random.default_rng(8).normal(size=40), np.nan]
    res = bootstrap(x, "mean", n_resamples=299, random_state=0, nan_policy="Omit")
    assert res == bootstrap(x, "mean", n_resamples=299, random_state=0,
                            nan_policy="omit")  # fmt: skip
    ci = res.confidence_interval(alternative="Greater", method="Percentile")
    assert ci.alternative == "greater" and ci.high == np.inf
    assert res.pvalue(0.0, alternative="LESS") == res.pvalue(0.0, alternative="less")


def test_metric_intervals_refuse_a_permutation_resampler():
    from sklearn.linear_model import LogisticRegression

    from skboot import Permutation, bootstrap_score, compare_metrics, metric_ci

    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 80)
    p = np.clip(y * 0.6 + rng.random(80) * 0.4, 0, 1)
    match = "must be a bootstrap resampler"
    with pytest.raises(ValueError, match=match):
        metric_ci(y, p, "roc_auc", resampler=Permutation(50, random_state=0))
    with pytest.raises(ValueError, match=match):
        compare_metrics(y, p, 1 - p, "roc_auc", resampler=Permutation(50))
    X = rng.normal(size=(80, 2))
    with pytest.raises(ValueError, match=match):
        bootstrap_score(
            LogisticRegression(), X, y, scoring="accuracy", resampler=Permutation(20)
        )
