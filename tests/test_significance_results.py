"""The test results follow the result protocol (equality that never raises,
short repr, one row per statistic in ``to_frame``, ``plot`` returning the
Axes); the tests' parameters share one table each (scipy's spellings:
integral floats, any letter case); a callable metric's
``UndefinedMetricWarning`` makes a permutation undefined."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from scipy import stats
from sklearn.metrics import recall_score

from skboot import StatisticError, UndefinedStatisticWarning
from skboot.resamplers import Permutation
from skboot.significance import (
    MetricPermutationTestResult,
    MonteCarloTestResult,
    PermutationTestResult,
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)

matplotlib.use("Agg")

RNG = np.random.default_rng(5)
X, Y = RNG.normal(0.3, 1, 30), RNG.normal(0, 1, 25)
Y01 = np.array([0, 1] * 20)
SCORE = Y01 + RNG.normal(0, 1, 40)
COLUMNS = ["statistic", "pvalue", "n_resamples", "alternative", "n_undefined"]


def _runs(n_resamples=199, seed=0):
    """One result of each class, scalar statistics."""
    return [
        permutation_test((X, Y), "mean_diff", n_resamples=n_resamples, rng=seed),
        monte_carlo_test(
            X, stats.norm().rvs, np.mean, n_resamples=n_resamples, rng=seed
        ),
        metric_permutation_test(
            Y01, SCORE, "roc_auc", n_resamples=n_resamples, random_state=seed
        ),
    ]


def _vector_statistic(a, b, axis=-1):
    return np.stack([a.mean(axis=axis) - b.mean(axis=axis), a.std(axis=axis)], -1)


def test_equality_never_raises_and_results_are_unhashable():
    first, again, other = _runs(), _runs(), _runs(seed=1)
    for a, b, c in zip(first, again, other, strict=True):
        assert a == b
        assert a != c  # another seed: other null distributions
        assert a != 3 and a != "x"
        with pytest.raises(TypeError, match="unhashable"):
            hash(a)
    assert first[0] != first[1]  # other classes: never equal, never an error
    # array-valued statistics of other shapes compare without raising
    vec = permutation_test((X, Y), _vector_statistic, n_resamples=19, rng=0)
    assert vec == permutation_test((X, Y), _vector_statistic, n_resamples=19, rng=0)
    assert vec != first[0] and first[0] != vec


def test_results_are_frozen_with_a_short_repr():
    for res in _runs(n_resamples=9999):
        text = repr(res)
        assert len(text) < 300, text
        assert "array(shape=(9999,), dtype=float64)" in text
        with pytest.raises(AttributeError):
            res.pvalue = 0.5


@pytest.mark.parametrize(
    "cls", [PermutationTestResult, MonteCarloTestResult, MetricPermutationTestResult]
)
def test_results_are_frozen_dataclasses_of_the_protocol(cls):
    from skboot._results import Result

    assert issubclass(cls, Result)
    params = cls.__dataclass_params__
    assert params.frozen and not params.eq and not params.repr


def test_to_frame_has_one_row_per_statistic():
    perm, mc, metric = _runs()
    for res in (perm, mc):
        frame = res.to_frame()
        assert list(frame.columns) == COLUMNS
        assert frame.shape == (1, 5)
        row = frame.iloc[0]
        assert row["statistic"] == res.statistic and row["pvalue"] == res.pvalue
        assert row["n_resamples"] == 199 and row["alternative"] == "two-sided"
    frame = metric.to_frame()
    assert list(frame.columns) == ["metric", *COLUMNS]
    assert frame.loc[0, "metric"] == "roc_auc"
    assert frame.loc[0, "alternative"] == "greater"
    assert frame.loc[0, "pvalue"] == metric.pvalue


def test_to_frame_of_a_vector_statistic_has_one_row_per_element():
    res = permutation_test((X, Y), _vector_statistic, n_resamples=49, rng=0)
    frame = res.to_frame()
    assert list(frame.columns) == ["element", *COLUMNS]
    assert frame["element"].tolist() == [0, 1]
    np.testing.assert_array_equal(frame["statistic"], res.statistic)
    np.testing.assert_array_equal(frame["pvalue"], res.pvalue)
    # N-d samples: the element's index tuple
    a, b = RNG.normal(size=(2, 3, 12)), RNG.normal(size=(2, 3, 10))
    res = permutation_test(
        (a, b), lambda u, v, axis=-1: u.mean(axis) - v.mean(axis), n_resamples=19,
        axis=-1, rng=0,
    )  # fmt: skip
    frame = res.to_frame()
    assert frame["element"].tolist() == [(i, j) for i in range(2) for j in range(3)]
    assert frame.loc[4, "statistic"] == res.statistic[1, 1]


def test_plot_draws_the_null_distribution_and_the_observed_statistic():
    import matplotlib.pyplot as plt

    for res in _runs():
        ax = res.plot()
        assert isinstance(ax, Axes)
        assert ax.patches  # the histogram
        assert res.pvalue >= 0 and f"p = {res.pvalue:.3g}" in "".join(
            t.get_text() for t in ax.get_legend().get_texts()
        )
        [line] = ax.get_lines()
        assert line.get_xdata()[0] == pytest.approx(res.statistic)
        plt.close(ax.figure)
    _, given = plt.subplots()
    assert _runs()[2].plot(ax=given, bins=10) is given
    assert len(given.patches) == 10
    plt.close("all")


def test_plot_of_a_vector_statistic_draws_one_element():
    import matplotlib.pyplot as plt

    res = permutation_test((X, Y), _vector_statistic, n_resamples=49, rng=0)
    ax = res.plot(element=1)
    assert ax.get_lines()[0].get_xdata()[0] == pytest.approx(res.statistic[1])
    for bad in (None, 2, (0, 0), 1.0):
        with pytest.raises(ValueError, match=r"'element' parameter of plot .* shape"):
            res.plot(element=bad)
    with pytest.raises(TypeError, match="column"):
        res.plot(column=1)
    plt.close("all")


def test_scipy_spellings_of_the_parameters():
    ref = permutation_test(
        (X, Y), "mean_diff", alternative="less", n_resamples=99, rng=1
    )
    same = permutation_test(
        (X, Y), "mean_diff", permutation_type="Independent", alternative="LESS",
        n_resamples=99.0, rng=1,
    )  # fmt: skip
    assert same == ref and same.n_resamples == 99 and same.alternative == "less"
    exact = permutation_test((X[:5], Y[:4]), "mean_diff", n_resamples=np.inf)
    assert exact.exact and exact.n_resamples == 126
    mc = monte_carlo_test(X, stats.norm().rvs, np.mean, n_resamples=1e2, rng=0)
    assert mc.n_resamples == 100 and isinstance(mc.n_resamples, int)


def _recall_in_group(y_true, y_pred, rows):
    """Recall within a subgroup: undefined (scikit-learn warns) when the
    permuted labels put no positive in it."""
    return recall_score(y_true[rows], y_pred[rows])


def test_undefined_metric_warning_of_a_callable_makes_the_permutation_undefined():
    rows = np.arange(3)
    y = np.array([0, 1] * 10)
    pred = np.array([0, 1, 1, 1] * 5)
    before = list(warnings.filters)
    with pytest.warns(UndefinedStatisticWarning, match="undefined"):
        res = metric_permutation_test(
            y, pred, _recall_in_group, n_resamples=99, random_state=0, rows=rows
        )
    assert list(warnings.filters) == before  # the error filter did not leak
    perms = Permutation(99, random_state=0).fit(y)
    labels = [y[perms.replicate(b).indices] for b in range(99)]
    undefined = np.array([not lab[rows].any() for lab in labels])
    assert 0 < undefined.sum() < 99
    assert res.n_undefined == undefined.sum()
    np.testing.assert_array_equal(np.isnan(res.null_distribution), undefined)
    defined = [recall_score(lab[rows], pred[rows]) for lab in labels if lab[rows].any()]
    np.testing.assert_array_equal(res.null_distribution[~undefined], defined)
    assert res.statistic == recall_score(y[rows], pred[rows])
    count = np.count_nonzero(res.null_distribution[~undefined] >= res.statistic)
    assert res.pvalue == pytest.approx((count + 1) / 100)  # NaN never counts
    # the same metric undefined on the original labels: a NaN p-value
    with pytest.warns(UndefinedStatisticWarning, match="on the data"):
        nan = metric_permutation_test(
            y, pred, _recall_in_group, n_resamples=19, random_state=0,
            rows=np.array([0, 2, 4]),
        )  # fmt: skip
    assert np.isnan(nan.statistic) and np.isnan(nan.pvalue)


def test_other_errors_of_a_callable_metric_name_the_permutation():
    def fails_on_some(y_true, y_pred):
        if y_true[0] == 1:
            raise RuntimeError("boom")
        return float(np.mean(y_true == y_pred))

    y = np.array([0, 1] * 10)
    with pytest.raises(StatisticError, match=r"metric raised on permutation \d+.*boom"):
        metric_permutation_test(y, y, fails_on_some, n_resamples=99, random_state=0)
