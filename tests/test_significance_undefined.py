"""An undefined statistic is never significant: a NaN observed statistic gives a
NaN p-value with an UndefinedStatisticWarning that says why (permutation_test,
monte_carlo_test, callables of metric_permutation_test, the ``skboot test``
command), and metric_permutation_test refuses inputs on which its metric is
undefined or which the metric cannot take, as metric_ci does."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from skboot import UndefinedStatisticWarning
from skboot.cli import main
from skboot.significance import (
    FUSED_STATISTICS,
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=20)
Y = RNG.normal(0.3, 1.0, size=20)


def _undefined(call, why):
    """Run ``call``; it must warn once that the statistic is undefined (naming
    ``why``) and return a NaN p-value."""
    with pytest.warns(UndefinedStatisticWarning, match=why) as caught:
        res = call()
    assert np.isnan(res.pvalue)
    said = [str(w.message) for w in caught]
    assert sum("undefined (NaN) on the data" in m for m in said) == 1, said
    return res


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_data_give_nan_pvalue(bad):
    """Was p = 0.02 (and a raw numpy warning for inf)."""
    res = _undefined(
        lambda: permutation_test(
            (np.r_[X, bad], Y), "mean_diff", n_resamples=99, random_state=0
        ),
        "sample 0 holds 1 NaN or infinite value",
    )
    assert np.isnan(res.statistic)
    assert res.n_undefined == 99


def test_pandas_missing_value_gives_nan_pvalue():
    xs = pd.Series(pd.array([*X[:5], None], dtype="Float64"))
    _undefined(
        lambda: permutation_test((xs, Y), "mean_diff", n_resamples=99, random_state=0),
        "NaN or infinite",
    )


def test_t_of_two_constant_samples_is_undefined():
    _undefined(
        lambda: permutation_test(
            (np.ones(6), np.ones(5)), "t", n_resamples=99, random_state=0
        ),
        r"constant with equal means, so the t statistic is 0 / 0",
    )


def test_paired_t_of_zero_differences_is_undefined():
    _undefined(
        lambda: permutation_test(
            (X[:8], X[:8]),
            "paired_t",
            permutation_type="samples",
            n_resamples=99,
            random_state=0,
        ),
        "every difference is 0",
    )


@pytest.mark.parametrize("name", ["pearson", "spearman"])
def test_correlation_with_a_constant_column_is_undefined(name):
    _undefined(
        lambda: permutation_test(
            (X[:10], np.full(10, 3.0)),
            name,
            permutation_type="pairings",
            n_resamples=99,
            random_state=0,
        ),
        "sample 1 is constant, so the correlation is 0 / 0",
    )


def test_constant_samples_with_different_means_are_defined():
    """t = -inf (perfect separation) is a value, not undefined: exactly the
    original split and none other is as extreme."""
    res = permutation_test(
        (np.ones(4), np.full(4, 2.0)), "t", n_resamples=np.inf, alternative="less"
    )
    assert res.statistic == -np.inf
    assert res.pvalue == pytest.approx(1 / 70, abs=1e-15)


def test_callable_returning_nan_on_the_data():
    def stat(a, b, axis=-1):
        return np.nanmax(a, axis=axis) * np.nan

    _undefined(
        lambda: permutation_test((X, Y), stat, n_resamples=50, random_state=0),
        "the statistic returned NaN on the original data",
    )


def test_vector_statistic_nan_only_where_undefined():
    def stat(a, b, axis=-1):
        m = a.mean(axis=axis) - b.mean(axis=axis)
        return np.stack([m, m * np.nan], axis=-1)

    with pytest.warns(UndefinedStatisticWarning, match=r"at 1 of 2 positions"):
        res = permutation_test((X, Y), stat, n_resamples=50, random_state=0)
    assert np.isfinite(res.pvalue[0]) and np.isnan(res.pvalue[1])


def test_monte_carlo_nan_data():
    """Was statistic NaN, p = 0.02 and no warning."""
    res = _undefined(
        lambda: monte_carlo_test(
            np.r_[X, np.nan], stats.norm().rvs, np.mean, n_resamples=99, random_state=0
        ),
        "sample 0 holds 1 NaN or infinite value",
    )
    assert np.isnan(res.statistic)


def test_monte_carlo_nan_statistic():
    _undefined(
        lambda: monte_carlo_test(
            X, stats.norm().rvs, lambda a: np.nan, n_resamples=30, random_state=0
        ),
        "the statistic returned NaN on the data",
    )


# ---------------------------------------------------------------------------
# metric_permutation_test
# ---------------------------------------------------------------------------
Y01 = RNG.integers(0, 2, 60)
SCORE = Y01 + RNG.normal(0, 1.5, 60)


def test_metric_undefined_on_the_data_is_refused():
    """Was p = 0.01; metric_ci refuses the same input."""
    with pytest.raises(ValueError, match="roc_auc is undefined on the original data"):
        metric_permutation_test(
            np.zeros(60, int), SCORE, "roc_auc", n_resamples=99, random_state=0
        )


@pytest.mark.parametrize("name", ["accuracy", "balanced_accuracy", "f1"])
def test_label_metric_refuses_probabilities(name):
    """Was 0.0 / p = 1.0 silently; scikit-learn refuses the mix."""
    proba = RNG.random(60)
    with pytest.raises(ValueError, match=r"'y_pred' parameter .* class labels"):
        metric_permutation_test(Y01, proba, name, n_resamples=99, random_state=0)


def test_unknown_metric_option_names_what_the_metric_accepts():
    with pytest.raises(
        ValueError,
        match=r"'roc_auc' .* accepts the options \['pos_label'\]. Got \['foo'\]",
    ):
        metric_permutation_test(Y01, SCORE, "roc_auc", foo=1)
    with pytest.raises(
        ValueError, match=r"accepts the options \['average', 'zero_division'"
    ):
        metric_permutation_test(Y01, Y01, "precision", normalize=True)


def test_callable_metric_nan_on_the_data():
    _undefined(
        lambda: metric_permutation_test(
            Y01, SCORE, lambda a, b: np.nan, n_resamples=20, random_state=0
        ),
        "the metric returned NaN on the original labels",
    )


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------
def test_cli_undefined_statistic_exits_1(tmp_path, capsys):
    """Was exit 0 and ``mean-diff = nan  p = 0.02``."""
    path = tmp_path / "inf.csv"
    path.write_text("a,b\n1,2\n2,3\ninf,4\n3,1\n")
    assert main(["test", str(path), "--columns", "a", "b", "--seed", "0"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert "mean-diff(a, b) is undefined" in out.err and "no p-value" in out.err
    assert "NaN or infinite" in out.err
    for json in ([], ["--json"]):
        assert main(["test", str(path), "--columns", "a", "b", *json]) == 1
    const = tmp_path / "const.csv"
    const.write_text("a,b\n1,1\n1,1\n1,1\n")
    assert main(["test", str(const), "--columns", "a", "b", "--statistic", "t"]) == 1
    assert "0 / 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# property: a NaN observed statistic never gives p < 1
# ---------------------------------------------------------------------------
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ALTERNATIVES = st.sampled_from(["two-sided", "less", "greater"])


def _samples(draw, kind):
    n = draw(st.integers(3, 9))
    m = n if kind != "independent" else draw(st.integers(2, 9))
    values = st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5))
    x = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(values, min_size=m, max_size=m)))
    which = draw(st.sampled_from(["x", "y"]))
    pos = draw(st.integers(0, (n if which == "x" else m) - 1))
    bad = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    (x if which == "x" else y)[pos] = bad
    return x, y


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return call()


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(FUSED_STATISTICS)), alt=ALTERNATIVES)
def test_property_fused_statistic_with_non_finite_data(data, name, alt):
    kind = FUSED_STATISTICS[name]
    x, y = _samples(data.draw, kind)
    exact = data.draw(st.booleans())
    res = _quiet(
        lambda: permutation_test(
            (x, y),
            name,
            permutation_type=kind,
            n_resamples=np.inf if exact else 19,
            alternative=alt,
            random_state=0,
        )
    )
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)


@SETTINGS
@given(data=st.data(), alt=ALTERNATIVES, vectorized=st.booleans())
def test_property_callables_nan_observed_gives_nan(data, alt, vectorized):
    """A callable that is NaN exactly on the original data (defined elsewhere):
    permutation_test, monte_carlo_test and metric_permutation_test."""
    x, y = _samples(data.draw, "independent")
    x, y = np.nan_to_num(x, posinf=1.0, neginf=-1.0), np.nan_to_num(y)
    first = x.copy()

    def stat(a, b, axis=-1):
        d = np.mean(a, axis=axis) - np.mean(b, axis=axis)
        same = np.all(a == first, axis=axis) if a.shape[-1] == first.shape[0] else False
        return np.where(same, np.nan, d)

    def plain(a, b):
        return float(stat(a, b))

    res = _quiet(
        lambda: permutation_test(
            (x, y), stat if vectorized else plain, n_resamples=19, alternative=alt,
            random_state=0,
        )
    )  # fmt: skip
    assert np.isnan(res.pvalue)
    mc = _quiet(
        lambda: monte_carlo_test(
            np.r_[x, np.nan], stats.norm().rvs, np.mean, n_resamples=19,
            alternative=alt, random_state=0,
        )
    )  # fmt: skip
    assert np.isnan(mc.pvalue)
    labels = (x > 0).astype(int)

    def metric(yt, yp):
        return np.nan if np.array_equal(yt, labels) else float(np.mean(yt == yp))

    mp = _quiet(
        lambda: metric_permutation_test(
            labels, (y[: labels.shape[0]] > 0).astype(int)
            if y.shape[0] >= labels.shape[0] else labels, metric,
            n_resamples=19, alternative=alt, random_state=0,
        )
    )  # fmt: skip
    assert np.isnan(mp.pvalue)
