"""The result protocol of MetricCI, MetricComparison and BootstrapScore: equality
that never raises, a short repr, one-row frames, plot(ax=None) returning the Axes;
the stored interval behind confidence_interval(); what bootstrap_score's
``scoring`` accepts; numeric inputs through the one converter."""

from __future__ import annotations

import copy
import dataclasses

import matplotlib
import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from skboot import (
    Bootstrap,
    BootstrapScore,
    MetricCI,
    MetricComparison,
    StatisticError,
    bootstrap_score,
    compare_metrics,
    metric_ci,
)

matplotlib.use("Agg")

CI_COLUMNS = [
    "metric",
    "estimate",
    "low",
    "high",
    "level",
    "method",
    "standard_error",
    "bias",
    "n_resamples",
    "n_undefined",
]
COMPARISON_COLUMNS = [
    "metric",
    "estimate",
    "estimate_a",
    "estimate_b",
    "low",
    "high",
    "pvalue",
    "level",
    "method",
    "standard_error",
    "bias",
    "n_resamples",
    "n_undefined",
    "greater_is_better",
]
SCORE_COLUMNS = [
    "estimate",
    "rule",
    "scoring",
    "apparent_score",
    "oob_score",
    "no_information_score",
    "relative_overfitting_rate",
    "weight",
    "n_resamples",
    "n_undefined",
]


@pytest.fixture(autouse=True)
def _one_thread_and_no_figures():
    with threadpool_limits(1):
        yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    return y, y + rng.normal(size=300), y + rng.normal(scale=2.0, size=300)


@pytest.fixture(scope="module")
def ci(data):
    y, good, _ = data
    return metric_ci(y, good, "roc_auc", n_resamples=9999, random_state=0)


@pytest.fixture(scope="module")
def comparison(data):
    y, good, weak = data
    return compare_metrics(y, good, weak, "roc_auc", n_resamples=9999, random_state=0)


@pytest.fixture(scope="module")
def score():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    return bootstrap_score(
        tree, X, y, scoring="accuracy", n_resamples=25, random_state=0
    ), (tree, X, y)


def _check_protocol(res, other):
    """==, hash, repr and to_dict of one result (``other``: a different one)."""
    same = copy.copy(res)
    assert same is not res and res == same
    assert not (res != same)  # noqa: SIM202 (__ne__ is the inverse of __eq__)
    assert res != other and other != res
    assert (res == 3) is False and (res == None) is False  # noqa: E711
    with pytest.raises(TypeError):
        hash(res)
    text = repr(res)
    assert len(text) < 300 and text.startswith(type(res).__name__ + "(")
    assert "array(shape=(9999,)" not in text  # replicates are not printed
    plain = res.to_dict()
    assert not any(key.startswith("_") for key in plain)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.estimate = 0.0


def test_metric_ci_follows_the_result_protocol(ci, data):
    y, good, _ = data
    other = metric_ci(y, good, "roc_auc", n_resamples=9999, random_state=1)
    _check_protocol(ci, other)
    assert isinstance(ci, MetricCI) and ci.n_resamples == 9999
    assert "interval" not in ci.to_dict() and not hasattr(ci, "interval")
    frame = ci.to_frame()
    assert list(frame.columns) == CI_COLUMNS and frame.shape == (1, len(CI_COLUMNS))
    row = frame.iloc[0]
    stored = ci.confidence_interval()
    assert (row["low"], row["high"]) == (stored.low, stored.high)
    assert row["estimate"] == ci.estimate and row["method"] == "bca"
    assert row["standard_error"] == ci.standard_error and row["n_resamples"] == 9999


def test_metric_comparison_follows_the_result_protocol(comparison, data):
    y, good, weak = data
    other = compare_metrics(y, weak, good, "roc_auc", n_resamples=9999, random_state=0)
    _check_protocol(comparison, other)
    assert isinstance(comparison, MetricComparison)
    assert not hasattr(comparison, "p_value") and not hasattr(comparison, "interval")
    d = comparison.distribution
    tail = min(1 + (d <= 0).sum(), 1 + (d >= 0).sum())
    assert comparison.pvalue == min(1.0, 2 * tail / (d.shape[0] + 1)) < 0.05
    frame = comparison.to_frame()
    assert list(frame.columns) == COMPARISON_COLUMNS and len(frame) == 1
    row = frame.iloc[0]
    assert row["pvalue"] == comparison.pvalue
    assert (row["estimate_a"], row["estimate_b"]) == (
        comparison.estimate_a,
        comparison.estimate_b,
    )
    assert (row["low"], row["high"]) == tuple(comparison.confidence_interval())
    assert bool(row["greater_is_better"]) is True


def test_bootstrap_score_follows_the_result_protocol(score):
    res, (tree, X, y) = score
    other = bootstrap_score(tree, X, y, scoring="accuracy", n_resamples=25, rule="oob")
    _check_protocol(res, other)
    assert isinstance(res, BootstrapScore)
    assert res.rule == ".632+" and not hasattr(res, "method")
    assert not hasattr(res, "oob_scores")
    assert res.distribution.shape == (25 - res.n_undefined,)
    assert res.oob_score == float(res.distribution.mean())
    frame = res.to_frame()
    assert list(frame.columns) == SCORE_COLUMNS and len(frame) == 1
    assert frame.iloc[0]["estimate"] == res.estimate
    assert frame.iloc[0]["rule"] == ".632+"
    # with B = 9999 replicates and fresh 128-bit entropy, repr stays one short line
    big = dataclasses.replace(
        res, distribution=np.zeros(9999), n_resamples=9999, random_state=2**127 + 1
    )
    assert len(repr(big)) < 300 and "9999" in repr(big)


def test_plots_return_the_axes(ci, comparison, score):
    import matplotlib.pyplot as plt

    for res in (ci, comparison, score[0]):
        ax = res.plot()
        assert isinstance(ax, matplotlib.axes.Axes)
        _, given = plt.subplots()
        assert res.plot(ax=given) is given
    ax = score[0].plot(bins=5)
    assert len(ax.containers[0].patches) == 5
    labels = [line.get_label() for line in ax.get_lines()]
    assert [label.split()[0] for label in labels] == ["apparent", "out-of-bag", ".632+"]
    assert ax.get_xlabel() == "accuracy"
    with pytest.raises(TypeError, match="unexpected keyword argument 'method'"):
        score[0].plot(method="bca")


def test_confidence_interval_without_arguments_is_the_stored_one(data):
    y, good, _ = data
    res = metric_ci(
        y, good, "roc_auc", n_resamples=999, random_state=0, level=0.9,
        method="percentile",
    )  # fmt: skip
    stored = res.confidence_interval()
    assert res.confidence_interval() is stored  # not recomputed
    assert (stored.level, stored.method, stored.alternative) == (
        0.9,
        "percentile",
        "two-sided",
    )
    # with arguments: recomputed from the same replicates, the others the result's
    again = res.confidence_interval(level=0.9, method="percentile")
    assert again is not stored and tuple(again) == tuple(stored)
    basic = res.confidence_interval(method="basic")
    assert (basic.level, basic.method) == (0.9, "basic")
    wider = res.confidence_interval(level=0.99)
    assert wider.method == "percentile" and wider.low < stored.low
    upper = res.confidence_interval(alternative="less")
    assert upper.low == -np.inf and upper.level == 0.9
    with pytest.raises(ValueError, match=r"'level' parameter of confidence_interval"):
        res.confidence_interval(level=1.5)
    with pytest.raises(ValueError, match=r"'method' parameter of confidence_interval"):
        res.confidence_interval(method="studentized")


def test_scoring_takes_what_cross_validate_takes(score):
    """A scorer name, a scorer object and a scorer(estimator, X, y) callable give
    the same replicates."""
    ref, (tree, X, y) = score
    kw = {"n_resamples": 25, "random_state": 0, "rule": "oob"}
    by_name = bootstrap_score(tree, X, y, scoring="accuracy", **kw)
    scorer = skm.get_scorer("accuracy")
    by_object = bootstrap_score(tree, X, y, scoring=scorer, **kw)
    by_callable = bootstrap_score(
        tree, X, y, scoring=lambda est, X_, y_: skm.accuracy_score(y_, est.predict(X_)),
        **kw,
    )  # fmt: skip
    np.testing.assert_array_equal(by_name.distribution, ref.distribution)
    np.testing.assert_array_equal(by_object.distribution, ref.distribution)
    np.testing.assert_array_equal(by_callable.distribution, ref.distribution)
    assert by_name.estimate == ref.oob_score
    # a metric of (y_true, y_pred) is refused before any fit, as cross_validate
    # refuses scikit-learn's metric functions
    for metric in (skm.accuracy_score, lambda y_true, y_pred: 0.0):
        with pytest.raises(ValueError, match=r"'scoring' parameter of bootstrap_score"):
            bootstrap_score(tree, X, y, scoring=metric, **kw)


def test_a_failing_scorer_names_the_out_of_bag_rows(score):
    _, (tree, X, y) = score
    calls = []

    def scorer(est, X_, y_):
        calls.append(1)
        if len(calls) == 3:  # the full fit, then replicates 0 and 1
            raise RuntimeError("boom")
        return 0.5

    with pytest.raises(StatisticError, match=r"scorer raised on the out-of-bag rows of replicate 1: RuntimeError\('boom'\)") as info:  # fmt: skip
        bootstrap_score(tree, X, y, scoring=scorer, n_resamples=5, rule="oob")
    assert info.value.replicate == 1


def test_numeric_inputs_go_through_the_one_converter(data):
    pd = pytest.importorskip("pandas")
    y, good, _ = data
    kw = {"n_resamples": 200, "random_state": 3, "method": "percentile"}
    ref = metric_ci(y, good, "roc_auc", **kw)
    # scores as an object array of numbers, and as a nullable pandas column
    as_objects = metric_ci(y, good.astype(object), "roc_auc", **kw)
    np.testing.assert_array_equal(as_objects.distribution, ref.distribution)
    nullable = pd.Series(good, dtype="Float64")
    np.testing.assert_array_equal(
        metric_ci(y, nullable, "roc_auc", **kw).distribution, ref.distribution
    )
    weights = np.linspace(0.5, 2.0, y.shape[0])
    weighted = metric_ci(y, good, "roc_auc", sample_weight=weights, **kw)
    nullable_weights = metric_ci(
        y, good, "roc_auc", sample_weight=pd.Series(weights, dtype="Float64"), **kw
    )
    np.testing.assert_array_equal(nullable_weights.distribution, weighted.distribution)
    missing = pd.Series(good, dtype="Float64")
    missing[4] = pd.NA
    with pytest.raises(ValueError, match=r"'y_pred' parameter of roc_auc must contain only finite values\. Got 1 NaN"):  # fmt: skip
        metric_ci(y, missing, "roc_auc", **kw)
    with pytest.raises(ValueError, match=r"'sample_weight' parameter of metric_ci must be 1-D"):  # fmt: skip
        metric_ci(y, good, "roc_auc", sample_weight=np.ones((y.shape[0], 2)), **kw)


def test_resampler_count_still_fills_the_default(data):
    y, good, _ = data
    res = metric_ci(y, good, "roc_auc", resampler=Bootstrap(30, random_state=0))
    assert res.n_resamples == 30 and res.distribution.shape == (30,)
