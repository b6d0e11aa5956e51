"""Tests of skboot.metrics: metric intervals, model comparison, refits, .632+.

The reference for every bootstrap distribution is scikit-learn evaluated on the
rows of ``resampler.replicate(b)`` (same seed, same scheme), compared to
rtol = atol = 1e-12.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

from skboot import (
    BayesianBootstrap,
    Bootstrap,
    BootstrapScore,
    DegenerateDistributionWarning,
    GroupBootstrap,
    MetricCI,
    MetricComparison,
    PoissonBootstrap,
    StatisticError,
    StratifiedBootstrap,
    UndefinedStatisticWarning,
    bootstrap_score,
    compare_metrics,
    metric_ci,
)
from skboot._engine import run_bootstrap
from skboot.metrics import (
    METRICS,
    CallableMetricStatistic,
    EstimatorStatistic,
    MetricStatistic,
)
from skboot.metrics._score import pairwise_mae

TOL = {"rtol": 1e-12, "atol": 1e-12}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _one_thread():
    # Refits of small models: BLAS / OpenMP threads only add contention.
    with threadpool_limits(1):
        yield


# --------------------------------------------------------------------------- #
# Data                                                                          #
# --------------------------------------------------------------------------- #


def _data(kind, n=120, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "binary":
        y = rng.permutation(np.repeat([0, 1], n // 2))
        score = np.round(y + rng.normal(size=n), 1)  # ties
        return y, score
    if kind == "proba":
        y, score = _data("binary", n, seed)
        return y, np.round(1.0 / (1.0 + np.exp(-score)), 2)
    if kind == "labels":
        y, score = _data("binary", n, seed)
        return y, (score > 0.5).astype(int)
    if kind == "multiclass":
        y = rng.permutation(np.repeat([0, 1, 2], n // 3))
        pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
        return y, pred
    if kind == "multiproba":
        y = rng.permutation(np.repeat([0, 1, 2], n // 3))
        p = rng.dirichlet([1.0, 1.0, 1.0], n)
        p[np.arange(n), y] += 1.0
        return y, p / p.sum(axis=1, keepdims=True)
    if kind == "regression":
        y = rng.normal(size=n)
        return y, y + rng.normal(scale=0.8, size=n)
    raise AssertionError(kind)


# (registry name, options, data kind, scikit-learn reference)
CASES = [
    ("accuracy", {}, "multiclass", skm.accuracy_score),
    ("balanced_accuracy", {}, "multiclass", skm.balanced_accuracy_score),
    ("precision", {}, "labels", skm.precision_score),
    ("recall", {"average": "macro"}, "multiclass", skm.recall_score),
    ("f1", {"average": "micro"}, "multiclass", skm.f1_score),
    ("roc_auc", {}, "binary", skm.roc_auc_score),
    ("average_precision", {}, "binary", skm.average_precision_score),
    ("log_loss", {}, "proba", skm.log_loss),
    ("log_loss", {}, "multiproba", skm.log_loss),
    ("brier_score", {}, "proba", skm.brier_score_loss),
    ("mean_squared_error", {}, "regression", skm.mean_squared_error),
    ("root_mean_squared_error", {}, "regression", skm.root_mean_squared_error),
    ("mean_absolute_error", {}, "regression", skm.mean_absolute_error),
    ("r2", {}, "regression", skm.r2_score),
]


def _reference(func, options, kind):
    def ref(yt, yp, sw=None):
        kw = dict(options)
        if kind in ("proba", "multiproba"):
            kw["labels"] = [0, 1] if kind == "proba" else [0, 1, 2]
            if func is skm.brier_score_loss:
                kw.pop("labels")
        return func(yt, yp, sample_weight=sw, **kw)

    return ref


RESAMPLERS = {
    "iid": lambda B: Bootstrap(B, random_state=3),
    "m_of_n": lambda B: Bootstrap(B, sample_size=0.8, random_state=3),
    "stratified": lambda B: StratifiedBootstrap(B, random_state=3),
    "group": lambda B: GroupBootstrap(B, random_state=3),
    "poisson": lambda B: PoissonBootstrap(B, random_state=3),
}


def _groups(n):
    return np.arange(n) % 15


# --------------------------------------------------------------------------- #
# The distribution equals scikit-learn on the replicate indices                 #
# --------------------------------------------------------------------------- #


# stratifying a continuous target would make every row its own stratum
_SCHEME_CASES = [
    (case, scheme)
    for case in CASES
    for scheme in sorted(RESAMPLERS)
    if not (scheme == "stratified" and case[2] == "regression")
]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize(
    ("case", "scheme"),
    _SCHEME_CASES,
    ids=[f"{c[0]}-{c[2]}-{','.join(c[1].values())}-{s}" for c, s in _SCHEME_CASES],
)
def test_distribution_matches_sklearn_on_replicate_indices(case, scheme, weighted):
    name, options, kind, func = case
    y, pred = _data(kind)
    n = y.shape[0]
    B = 12
    sw = np.random.default_rng(1).uniform(0.5, 2.0, n) if weighted else None
    groups = _groups(n) if scheme == "group" else None
    resampler = RESAMPLERS[scheme](B)
    res = metric_ci(
        y,
        pred,
        name,
        resampler=resampler,
        groups=groups,
        sample_weight=sw,
        method="percentile",
        **options,
    )
    assert isinstance(res, MetricCI) and res.n_undefined == 0
    fitted = clone(resampler).fit(y, y, groups)
    ref = _reference(func, options, kind)
    for b in (0, 5, B - 1):
        idx = fitted.replicate(b).indices
        expected = ref(y[idx], pred[idx], None if sw is None else sw[idx])
        np.testing.assert_allclose(res.distribution[b], expected, **TOL)
    np.testing.assert_allclose(res.estimate, ref(y, pred, sw), **TOL)


@pytest.mark.parametrize("name", ["roc_auc", "log_loss", "accuracy"])
def test_bayesian_bootstrap_weights(name):
    kind = {"roc_auc": "binary", "log_loss": "proba", "accuracy": "labels"}[name]
    y, pred = _data(kind)
    res = metric_ci(
        y, pred, name, resampler=BayesianBootstrap(8, random_state=0), method="bc"
    )
    fitted = BayesianBootstrap(8, random_state=0).fit(y)
    func = {
        "roc_auc": skm.roc_auc_score,
        "log_loss": skm.log_loss,
        "accuracy": skm.accuracy_score,
    }[name]
    for b in range(8):
        w = fitted.replicate(b).weights
        np.testing.assert_allclose(
            res.distribution[b], func(y, pred, sample_weight=w), **TOL
        )


def test_every_metric_spelling_gives_the_same_replicates():
    y, score = _data("binary", n=200)
    kw = {"n_resamples": 30, "random_state": 7, "method": "percentile"}
    fused = metric_ci(y, score, "roc_auc", **kw)
    by_function = metric_ci(y, score, skm.roc_auc_score, **kw)
    by_scorer_name = metric_ci(y, score, "roc_auc", **kw)
    by_scorer = metric_ci(y, score, skm.get_scorer("roc_auc"), **kw)
    generic = metric_ci(y, score, lambda a, b: skm.roc_auc_score(a, b), **kw)
    weighted_generic = metric_ci(
        y, score, lambda a, b, sample_weight=None: skm.roc_auc_score(a, b), **kw
    )
    for other in (by_function, by_scorer_name, by_scorer, generic):
        np.testing.assert_allclose(other.distribution, fused.distribution, **TOL)
    # The sample_weight form sees the distinct drawn rows only: another estimand
    # for ROC AUC (ties of repeated rows), so only check it runs and is finite.
    assert np.isfinite(weighted_generic.distribution).all()
    neg = metric_ci(y, (score > 0.5).astype(float), "neg_log_loss", **kw)
    plain = metric_ci(y, (score > 0.5).astype(float), "log_loss", **kw)
    np.testing.assert_allclose(neg.distribution, -plain.distribution, **TOL)
    assert neg.metric == "neg_log_loss"


def test_generic_metric_with_sample_weight_matches_gathered_rows():
    y, pred = _data("multiclass", n=90)
    kw = {"n_resamples": 10, "random_state": 2, "method": "percentile"}
    res = metric_ci(y, pred, skm.matthews_corrcoef, **kw)
    fitted = Bootstrap(10, random_state=2).fit(y)
    for b in range(10):
        idx = fitted.replicate(b).indices
        np.testing.assert_allclose(
            res.distribution[b], skm.matthews_corrcoef(y[idx], pred[idx]), **TOL
        )


def test_sklearn_function_with_unsupported_options_uses_generic_path():
    y, pred = _data("multiclass", n=90)
    kw = {"n_resamples": 6, "random_state": 2, "method": "percentile"}
    res = metric_ci(y, pred, skm.f1_score, average="weighted", **kw)
    fitted = Bootstrap(6, random_state=2).fit(y)
    idx = fitted.replicate(3).indices
    np.testing.assert_allclose(
        res.distribution[3], skm.f1_score(y[idx], pred[idx], average="weighted"), **TOL
    )
    named = metric_ci(y, pred, "f1_weighted", **kw)
    np.testing.assert_allclose(named.distribution, res.distribution, **TOL)


def test_pandas_input():
    pd = pytest.importorskip("pandas")
    y, score = _data("binary")
    ys = pd.Series(y, index=np.arange(100, 100 + y.shape[0]))
    ss = pd.Series(score, index=ys.index)
    a = metric_ci(ys, ss, "roc_auc", n_resamples=50, random_state=0)
    b = metric_ci(y, score, "roc_auc", n_resamples=50, random_state=0)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert a.interval == b.interval


def test_n_jobs_does_not_change_results():
    from joblib import parallel_config

    y, score = _data("binary", n=300)
    kw = {"n_resamples": 400, "random_state": 5}
    one = metric_ci(y, score, "roc_auc", **kw)
    with parallel_config(backend="threading"):  # the kernels release the GIL
        two = metric_ci(y, score, "roc_auc", n_jobs=2, **kw)
    np.testing.assert_array_equal(one.distribution, two.distribution)
    assert one.interval == two.interval


# --------------------------------------------------------------------------- #
# Intervals and the jackknife                                                   #
# --------------------------------------------------------------------------- #


def test_interval_methods_and_result_api():
    y, score = _data("binary", n=200)
    res = metric_ci(y, score, "roc_auc", n_resamples=999, random_state=0)
    assert res.method == "bca" and res.level == 0.95
    assert res.interval.low < res.estimate < res.interval.high
    assert res.n_resamples == 999 and res.distribution.shape == (999,)
    assert res.standard_error == pytest.approx(res.distribution.std(ddof=1))
    assert res.bias == pytest.approx(res.distribution.mean() - res.estimate)
    assert res.random_state == 0
    for method in ("percentile", "basic", "normal", "bc", "bca"):
        ci = res.confidence_interval(level=0.9, method=method)
        assert ci.low < ci.high
        assert ci.high - ci.low < res.interval.high - res.interval.low
    # The interval equals the intervals module on the same inputs.
    from skboot.intervals import bca_interval

    jk = res.result.jackknife_values()[:, 0]
    direct = bca_interval(res.distribution, res.estimate, jk)
    assert tuple(res.interval) == (direct.low, direct.high)
    # Rerunning with the recorded state reproduces the run.
    again = metric_ci(
        y, score, "roc_auc", n_resamples=999, random_state=res.random_state
    )
    np.testing.assert_array_equal(again.distribution, res.distribution)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_jackknife_matches_sklearn_leave_one_out(case):
    name, options, kind, func = case
    y, pred = _data(kind, n=30, seed=4)
    sw = np.random.default_rng(2).uniform(0.5, 2.0, 30)
    prepared = METRICS[name].prepare(y, pred, **options)
    jk = MetricStatistic(prepared, sw).jackknife()[:, 0]
    ref = _reference(func, options, kind)
    keep = np.ones(30, dtype=bool)
    for i in range(30):
        keep[i] = False
        yt = y[keep]
        n_classes = np.unique(yt).shape[0]
        if (name == "balanced_accuracy" and n_classes < 3) or (
            name in ("roc_auc", "average_precision") and n_classes < 2
        ):
            expected = math.nan
        else:
            expected = ref(yt, pred[keep], sw[keep])
        np.testing.assert_allclose(jk[i], expected, **TOL)
        keep[i] = True


def test_group_intervals_use_the_delete_one_group_jackknife():
    y, proba = _data("proba", n=150)
    groups = np.arange(150) % 10
    res = metric_ci(
        y, proba, "log_loss", groups=groups, n_resamples=300, random_state=0
    )
    jk = res.result.jackknife_values()[:, 0]
    assert jk.shape == (10,)
    for g in (0, 7):
        keep = groups != g
        np.testing.assert_allclose(
            jk[g], skm.log_loss(y[keep], proba[keep], labels=[0, 1]), **TOL
        )
    fitted = GroupBootstrap(300, random_state=0).fit(y, groups=groups)
    idx = fitted.replicate(11).indices
    np.testing.assert_allclose(
        res.distribution[11], skm.log_loss(y[idx], proba[idx], labels=[0, 1]), **TOL
    )
    assert np.isfinite(res.interval).all()


def test_stratified_bca_uses_the_multi_sample_acceleration():
    from skboot.intervals import bca_interval

    y, score = _data("binary", n=90)
    y[:30] = 0  # unequal strata
    res = metric_ci(y, score, "roc_auc", stratify=True, n_resamples=500, random_state=1)
    jk = res.result.jackknife_values()[:, 0]
    U = np.empty_like(jk)  # Efron & Tibshirani (1993) sec. 14.3: U_ji / n_j
    for label in (0, 1):
        rows = y == label
        n_j = rows.sum()
        U[rows] = (n_j - 1) * (jk[rows].mean() - jk[rows]) / n_j
    a_hat = (U**3).sum() / (6 * ((U**2).sum()) ** 1.5)
    direct = bca_interval(res.distribution, res.estimate, -U)
    assert direct.diagnostics["a_hat"] == pytest.approx(a_hat, rel=1e-12)
    assert tuple(res.interval) == (direct.low, direct.high)


def test_callable_metric_bca_on_large_n_deletes_seeded_groups():
    # A metric function on more than AUTO_JACKKNIFE_GROUPS rows: the BCa
    # jackknife deletes 1000 seeded random groups (1000 calls instead of n), as
    # BootstrapResult's "auto" does; fused metrics keep their O(n) closed form.
    from skboot._run import AUTO_JACKKNIFE_GROUPS, random_jackknife_groups

    rng = np.random.default_rng(3)
    n, G = 1500, AUTO_JACKKNIFE_GROUPS
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    calls = []

    def accuracy(y_true, y_pred):
        calls.append(y_true.shape[0])
        return float(np.mean(y_true == y_pred))

    res = metric_ci(y, pred, accuracy, n_resamples=50, random_state=0)
    assert res.interval.jackknife_groups == G
    assert len(calls) == 1 + 50 + G
    # the same interval as the wrapped result's own automatic rule
    own = res.result.confidence_interval(method="bca")
    assert own.jackknife_groups == G
    assert (res.interval.low, res.interval.high) == (own.low, own.high)
    # its values: the metric without each seeded group's rows
    key = Bootstrap(50, random_state=0).fit(y).key_
    codes = random_jackknife_groups(key, n, G)
    jk = res.result.jackknife_values(G)[:, 0]
    for g in (0, G - 1):
        keep = codes != g
        assert jk[g] == accuracy(y[keep], pred[keep])
    # "full": n leave-one-out calls; fused metrics: the closed form, no groups
    calls.clear()
    full = res.confidence_interval(jackknife_groups="full")
    assert full.jackknife_groups is None and len(calls) == n
    assert res.confidence_interval(method="bc").jackknife_groups is None
    fused = metric_ci(y, pred, "accuracy", n_resamples=50, random_state=0)
    assert fused.interval.jackknife_groups is None
    with pytest.raises(ValueError, match="'jackknife_groups' parameter of "):
        res.confidence_interval(jackknife_groups=1)


def test_stratified_keeps_every_replicate_defined():
    rng = np.random.default_rng(0)
    y = np.zeros(60, dtype=int)
    y[:3] = 1  # three positives: iid replicates often hold none
    score = y + rng.normal(size=60)
    with pytest.raises(ValueError, match="undefined on"):
        metric_ci(y, score, "roc_auc", n_resamples=300, random_state=0)
    res = metric_ci(y, score, "roc_auc", stratify=True, n_resamples=300, random_state=0)
    assert res.n_undefined == 0 and np.isfinite(res.interval).all()
    fitted = StratifiedBootstrap(300, random_state=0).fit(y, y)
    for b in (0, 299):
        idx = fitted.replicate(b).indices
        assert y[idx].sum() == 3
        np.testing.assert_allclose(
            res.distribution[b], skm.roc_auc_score(y[idx], score[idx]), **TOL
        )


# --------------------------------------------------------------------------- #
# Undefined replicates                                                          #
# --------------------------------------------------------------------------- #


def _rare_positive():
    rng = np.random.default_rng(1)
    y = np.zeros(40, dtype=int)
    y[:2] = 1
    return y, y + rng.normal(size=40)


def test_undefined_raise_gives_count_and_remedies():
    y, score = _rare_positive()
    fitted = Bootstrap(500, random_state=0).fit(y)
    n_bad = sum(y[fitted.replicate(b).indices].sum() == 0 for b in range(500))
    assert n_bad > 0
    with pytest.raises(
        ValueError,
        match=rf"roc_auc is undefined on {n_bad} of 500 bootstrap replicates "
        r"\(first: replicate \d+; it is undefined when the replicate holds one "
        r"class.*undefined='omit'.*stratify=True",
    ):
        metric_ci(y, score, "roc_auc", n_resamples=500, random_state=0)


def test_undefined_omit_records_and_warns():
    y, score = _rare_positive()
    fitted = Bootstrap(500, random_state=0).fit(y)
    bad = [b for b in range(500) if y[fitted.replicate(b).indices].sum() == 0]
    with pytest.warns(UndefinedStatisticWarning, match=f"{len(bad)} of 500"):
        res = metric_ci(
            y,
            score,
            "roc_auc",
            n_resamples=500,
            random_state=0,
            undefined="omit",
            method="percentile",
        )
    assert res.n_undefined == len(bad)
    np.testing.assert_array_equal(res.undefined_replicates, bad)
    assert res.n_resamples == 500 and res.result.n_resamples == 500 - len(bad)
    assert res.result.n_undefined == 0
    good = [b for b in range(500) if b not in set(bad)]
    for j in (0, len(good) - 1):
        idx = fitted.replicate(good[j]).indices
        np.testing.assert_allclose(
            res.distribution[j], skm.roc_auc_score(y[idx], score[idx]), **TOL
        )
    assert np.isfinite(res.distribution).all()
    assert np.isfinite(res.interval).all()


def test_undefined_jackknife_policy():
    # One positive: stratified replicates always hold it, but leaving it out of
    # the jackknife makes ROC AUC undefined.
    rng = np.random.default_rng(2)
    y = np.zeros(30, dtype=int)
    y[0] = 1
    score = y + rng.normal(size=30)
    kw = {"stratify": True, "n_resamples": 200, "random_state": 0}
    with pytest.raises(ValueError, match=r"undefined on 1 of 30 jackknife"):
        metric_ci(y, score, "roc_auc", **kw)
    with pytest.warns(UndefinedStatisticWarning, match="1 of 30 jackknife"):
        res = metric_ci(y, score, "roc_auc", undefined="omit", **kw)
    assert res.n_undefined == 0
    assert np.isfinite(res.interval.low)
    ok = metric_ci(y, score, "roc_auc", method="percentile", **kw)
    assert np.isfinite(ok.interval).all()


def test_undefined_on_original_data_is_an_error():
    y = np.zeros(20, dtype=int)
    with pytest.raises(ValueError, match="undefined on the original data"):
        metric_ci(y, np.linspace(0, 1, 20), "roc_auc", n_resamples=10)


def test_too_few_defined_replicates_is_an_error():
    # replicates of 2 rows out of 100 with one positive: almost all undefined
    y = np.zeros(100, dtype=int)
    y[0] = 1
    with (
        pytest.raises(ValueError, match=r"defined on [01] of 3 bootstrap replicates"),
        pytest.warns(UndefinedStatisticWarning),
    ):
        metric_ci(
            y,
            np.linspace(0, 1, 100),
            "roc_auc",
            resampler=Bootstrap(3, sample_size=2, random_state=0),
            undefined="omit",
        )


def test_generic_metric_undefined_via_sklearn_warning():
    y, score = _rare_positive()
    with pytest.warns(UndefinedStatisticWarning):
        res = metric_ci(
            y,
            score,
            lambda a, b: skm.roc_auc_score(a, b),
            n_resamples=200,
            random_state=0,
            undefined="omit",
            method="percentile",
        )
    fitted = Bootstrap(200, random_state=0).fit(y)
    bad = [b for b in range(200) if y[fitted.replicate(b).indices].sum() == 0]
    np.testing.assert_array_equal(res.undefined_replicates, bad)


def test_threads_leave_warning_filters_as_they_were():
    """UndefinedMetricWarning becomes an error once per run, not per replicate: a
    ``catch_warnings`` per replicate in joblib's threads restored the other
    thread's filters, which left an "error" filter installed after the run and
    changed which replicates counted as undefined."""
    from joblib import parallel_config

    def precision(y_true, y_pred):  # warns on replicates with no predicted positive
        return skm.precision_score(y_true, y_pred, zero_division="warn")

    y = np.random.default_rng(0).integers(0, 2, 60)
    pred = np.zeros(60, dtype=int)
    pred[[*np.flatnonzero(y == 1)[:2], np.flatnonzero(y == 0)[0]]] = 1
    kw = {"n_resamples": 120, "random_state": 1, "undefined": "omit"}
    kw["method"] = "percentile"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        one = metric_ci(y, pred, precision, **kw)
        assert 0 < one.n_undefined < 120
        before = list(warnings.filters)
        with parallel_config(backend="threading"):
            runs = [metric_ci(y, pred, precision, n_jobs=2, **kw) for _ in range(3)]
            diff = compare_metrics(y, pred, 1 - pred, precision, n_jobs=2, **kw)
        assert warnings.filters == before
    for run in runs:
        np.testing.assert_array_equal(
            run.undefined_replicates, one.undefined_replicates
        )
        np.testing.assert_array_equal(run.distribution, one.distribution)
    assert diff.n_undefined > 0


# --------------------------------------------------------------------------- #
# compare_metrics                                                               #
# --------------------------------------------------------------------------- #


def test_compare_identical_predictions():
    y, score = _data("binary", n=200)
    with pytest.warns(DegenerateDistributionWarning):
        cmp = compare_metrics(
            y, score, score, "roc_auc", n_resamples=300, random_state=0
        )
    assert isinstance(cmp, MetricComparison)
    assert cmp.estimate == 0.0 and cmp.p_value == 1.0
    assert (cmp.distribution == 0.0).all()
    assert cmp.estimate_a == cmp.estimate_b
    assert cmp.greater_is_better is True


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("roc_auc", "binary"),
        ("accuracy", "labels"),
        ("log_loss", "proba"),
        ("r2", "regression"),
    ],
)
def test_compare_is_the_paired_difference(name, kind):
    y, pred_a = _data(kind, n=150, seed=0)
    _, pred_b = _data(kind, n=150, seed=5)
    if kind == "labels":
        pred_b = np.where(np.arange(150) % 4 == 0, 1 - y, y)
    elif kind != "regression":
        y2, _ = _data(kind, n=150, seed=0)
        assert (y2 == y).all()
    kw = {"n_resamples": 200, "random_state": 9, "method": "percentile"}
    cmp = compare_metrics(y, pred_a, pred_b, name, **kw)
    a = metric_ci(y, pred_a, name, **kw)
    b = metric_ci(y, pred_b, name, **kw)
    np.testing.assert_allclose(cmp.distribution, a.distribution - b.distribution, **TOL)
    assert cmp.estimate_a == pytest.approx(a.estimate, abs=1e-12)
    assert cmp.estimate_b == pytest.approx(b.estimate, abs=1e-12)
    d = cmp.distribution
    expected = min(
        1.0, 2 * min(1 + (d <= 0).sum(), 1 + (d >= 0).sum()) / (d.shape[0] + 1)
    )
    assert cmp.p_value == expected


def test_compare_detects_a_better_model():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    good = y + rng.normal(size=400)
    weak = y + rng.normal(scale=3.0, size=400)
    cmp = compare_metrics(y, good, weak, "roc_auc", n_resamples=999, random_state=0)
    assert cmp.estimate > 0 and cmp.interval.low > 0
    assert cmp.p_value == 2 / 1000
    reverse = compare_metrics(y, weak, good, "roc_auc", n_resamples=999, random_state=0)
    np.testing.assert_allclose(reverse.distribution, -cmp.distribution, **TOL)


def test_compare_generic_metric():
    y, pa = _data("multiclass", n=90, seed=0)
    _, pb = _data("multiclass", n=90, seed=1)
    kw = {"n_resamples": 20, "random_state": 1, "method": "percentile"}
    cmp = compare_metrics(y, pa, pb, skm.matthews_corrcoef, **kw)
    fitted = Bootstrap(20, random_state=1).fit(y)
    idx = fitted.replicate(4).indices
    expected = skm.matthews_corrcoef(y[idx], pa[idx]) - skm.matthews_corrcoef(
        y[idx], pb[idx]
    )
    np.testing.assert_allclose(cmp.distribution[4], expected, **TOL)
    assert cmp.greater_is_better is None


# --------------------------------------------------------------------------- #
# Estimator refits                                                              #
# --------------------------------------------------------------------------- #


def _regression_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=n)
    return X, y


def test_estimator_statistic_sample_weight_refits():
    X, y = _regression_data()
    stat = EstimatorStatistic(Ridge(alpha=1.0), lambda est: est.coef_, X, y)
    assert stat.use_sample_weight and stat.k == 3
    np.testing.assert_allclose(stat.estimate(), Ridge(alpha=1.0).fit(X, y).coef_)
    fitted = PoissonBootstrap(6, random_state=0).fit(X)
    dist = run_bootstrap(stat, fitted.plan_, 6)
    for b in range(6):
        counts = fitted.replicate(b).counts.astype(float)
        expected = Ridge(alpha=1.0).fit(X, y, sample_weight=counts).coef_
        np.testing.assert_allclose(dist[b], expected, rtol=1e-10, atol=1e-10)
    # the same counts as repeated rows: Ridge's objective is a weighted sum
    idx = fitted.replicate(2).indices
    np.testing.assert_allclose(
        dist[2], Ridge(alpha=1.0).fit(X[idx], y[idx]).coef_, rtol=1e-8, atol=1e-8
    )


def test_estimator_statistic_rows_for_pipelines():
    X, y = _regression_data()
    pipe = make_pipeline(StandardScaler(), LinearRegression())
    stat = EstimatorStatistic(pipe, lambda p: p[-1].coef_, X, y)
    assert not stat.use_sample_weight
    fitted = Bootstrap(5, random_state=1).fit(X)
    dist = run_bootstrap(stat, fitted.plan_, 5)
    for b in range(5):
        idx = fitted.replicate(b).indices
        expected = clone(pipe).fit(X[idx], y[idx])[-1].coef_
        np.testing.assert_allclose(dist[b], expected, rtol=1e-10, atol=1e-10)
    sub = stat.subset(np.arange(1, 40))
    np.testing.assert_allclose(
        sub.estimate(), clone(pipe).fit(X[1:], y[1:])[-1].coef_, rtol=1e-10
    )
    jk = stat.jackknife()
    assert jk.shape == (40, 3)
    np.testing.assert_allclose(jk[0], sub.estimate(), rtol=1e-10)


def test_estimator_statistic_errors():
    X, y = _regression_data()
    with pytest.raises(ValueError, match="'statistic' parameter of EstimatorStatistic"):
        EstimatorStatistic(Ridge(), "coef_", X, y)
    with pytest.raises(ValueError, match="'y' parameter of EstimatorStatistic"):
        EstimatorStatistic(Ridge(), lambda e: e.coef_, X, y[:-1])
    pipe = make_pipeline(StandardScaler(), Ridge())
    with pytest.raises(ValueError, match=r"use_sample_weight.*has no 'sample_weight'"):
        EstimatorStatistic(pipe, lambda e: e[-1].coef_, X, y, use_sample_weight=True)
    with pytest.raises(ValueError, match="'sample_weight' parameter of Estimator"):
        EstimatorStatistic(pipe, lambda e: e[-1].coef_, X, y, sample_weight=np.ones(40))
    stat = EstimatorStatistic(pipe, lambda e: e[-1].coef_, X, y)
    plan = BayesianBootstrap(2, random_state=0).fit(X).plan_
    with pytest.raises(ValueError, match="continuous weights"):
        run_bootstrap(stat, plan, 2)

    calls = []

    def flaky(est):
        calls.append(1)
        if len(calls) == 4:  # the constructor's call, then replicates 0, 1, 2
            raise RuntimeError("boom")
        return est.coef_

    stat = EstimatorStatistic(Ridge(), flaky, X, y)
    plan = Bootstrap(5, random_state=0).fit(X).plan_
    with pytest.raises(StatisticError, match=r"fitted to replicate 2: RuntimeError"):
        run_bootstrap(stat, plan, 5)


# --------------------------------------------------------------------------- #
# bootstrap_score (.632 / .632+)                                               #
# --------------------------------------------------------------------------- #


def _slow_632(estimator, X, y, scorer, resampler, loss_pairs, use_sample_weight):
    """Direct implementation: refit per replicate, O(n^2) no-information rate."""
    full = clone(estimator).fit(X, y)
    apparent = scorer(full, X, y)
    fitted = clone(resampler).fit(X, y)
    scores = []
    for b in range(fitted.n_resamples):
        rep = fitted.replicate(b)
        if use_sample_weight:
            est = clone(estimator).fit(X, y, sample_weight=rep.counts.astype(float))
        else:
            est = clone(estimator).fit(X[rep.indices], y[rep.indices])
        scores.append(scorer(est, X[rep.oob], y[rep.oob]))
    oob = float(np.mean(scores))
    # gamma over all n^2 pairs (y_i, yhat_j)
    gamma = loss_pairs(full, X, y)
    err, err1, g = -apparent, -oob, -gamma
    err1p = min(err1, g)
    R = (err1p - err) / (g - err) if (err1p > err and g > err) else 0.0
    w = 0.632 / (1 - 0.368 * R)
    return {
        "oob": oob,
        ".632": 0.368 * apparent + 0.632 * oob,
        ".632+": -((1 - w) * err + w * err1p),
        "gamma": gamma,
        "scores": np.array(scores),
    }


def _pairs_score(metric, response):
    def gamma(est, X, y):
        yhat = getattr(est, response)(X)
        if response == "predict_proba":
            yhat = yhat[:, 1]
        n = y.shape[0]
        yi = np.repeat(y, n)
        yj = np.tile(yhat, n)
        return metric(yi, yj)

    return gamma


@pytest.mark.parametrize(
    ("scoring", "metric", "response", "kind"),
    [
        ("accuracy", skm.accuracy_score, "predict", "clf"),
        ("roc_auc", skm.roc_auc_score, "predict_proba", "clf"),
        (
            "neg_log_loss",
            lambda a, b: -skm.log_loss(a, b, labels=[0, 1]),
            "predict_proba",
            "clf",
        ),
        (
            "neg_mean_squared_error",
            lambda a, b: -skm.mean_squared_error(a, b),
            "predict",
            "reg",
        ),
        (
            "neg_mean_absolute_error",
            lambda a, b: -skm.mean_absolute_error(a, b),
            "predict",
            "reg",
        ),
        ("r2", skm.r2_score, "predict", "reg"),
    ],
)
def test_632_plus_matches_direct_implementation(scoring, metric, response, kind):
    rng = np.random.default_rng(3)
    n = 40
    X = rng.normal(size=(n, 2))
    if kind == "clf":
        y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
        est = DecisionTreeClassifier(max_depth=2, random_state=0)
    else:
        y = X[:, 0] + rng.normal(size=n)
        est = DecisionTreeRegressor(max_depth=2, random_state=0)
    resampler = (
        StratifiedBootstrap(15, random_state=4)
        if kind == "clf"
        else Bootstrap(15, random_state=4)
    )
    scorer = skm.get_scorer(scoring)
    slow = _slow_632(est, X, y, scorer, resampler, _pairs_score(metric, response), True)
    for method in ("oob", ".632", ".632+"):
        res = bootstrap_score(
            est, X, y, scoring=scoring, resampler=resampler, method=method
        )
        assert isinstance(res, BootstrapScore)
        np.testing.assert_allclose(res.estimate, slow[method], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.oob_scores, slow["scores"], **TOL)
    np.testing.assert_allclose(
        res.no_information_score, slow["gamma"], rtol=1e-10, atol=1e-12
    )
    assert 0.0 <= res.relative_overfitting_rate <= 1.0
    assert res.n_resamples == 15 and res.n_undefined == 0


def test_632_rows_mode_for_pipelines():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] + rng.normal(size=50) > 0).astype(int)
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    resampler = StratifiedBootstrap(8, random_state=1)
    scorer = skm.get_scorer("accuracy")
    slow = _slow_632(
        pipe,
        X,
        y,
        scorer,
        resampler,
        _pairs_score(skm.accuracy_score, "predict"),
        False,
    )
    res = bootstrap_score(pipe, X, y, scoring="accuracy", resampler=resampler)
    np.testing.assert_allclose(res.estimate, slow[".632+"], rtol=1e-10)
    # gamma for 0-1 loss: sum_k p_k (1 - q_k) as an error, so 1 - that as accuracy
    yhat = clone(pipe).fit(X, y).predict(X)
    p = np.bincount(y, minlength=2) / 50
    q = np.bincount(yhat, minlength=2) / 50
    np.testing.assert_allclose(res.no_information_score, 1 - (p * (1 - q)).sum(), **TOL)


def test_632_weight_and_defaults():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    res = bootstrap_score(
        DecisionTreeClassifier(random_state=0), X, y, scoring="accuracy", random_state=0
    )
    assert res.n_resamples == 200 and res.method == ".632+"
    assert res.apparent_score == 1.0
    w = 0.632 / (1 - 0.368 * res.relative_overfitting_rate)
    assert res.weight == pytest.approx(w)
    assert res.estimate == pytest.approx((1 - w) * 1.0 + w * res.oob_score)


def testpairwise_mae():
    rng = np.random.default_rng(0)
    y = np.round(rng.normal(size=37), 1)
    yhat = np.round(rng.normal(size=37), 1)
    expected = np.abs(y[:, None] - yhat[None, :]).mean()
    np.testing.assert_allclose(pairwise_mae(y, yhat), expected, **TOL)


def test_bootstrap_score_undefined_oob():
    X = np.arange(6, dtype=float)[:, None]
    y = np.array([0, 1, 0, 1, 0, 1])
    est = DecisionTreeClassifier(random_state=0)
    with pytest.raises(ValueError, match="out-of-bag score is undefined on"):
        bootstrap_score(est, X, y, scoring="roc_auc", n_resamples=30, random_state=0)
    with pytest.warns(UndefinedStatisticWarning, match="omitted"):
        res = bootstrap_score(
            est,
            X,
            y,
            scoring="roc_auc",
            n_resamples=30,
            random_state=0,
            undefined="omit",
        )
    assert res.n_undefined > 0
    assert res.oob_scores.shape == (30 - res.n_undefined,)
    assert np.isfinite(res.estimate)


# --------------------------------------------------------------------------- #
# Bad input: one table per entry point                                          #
# --------------------------------------------------------------------------- #

_Y = np.array([0, 1, 1, 0, 1, 0])
_S = np.array([0.1, 0.8, 0.6, 0.3, 0.9, 0.2])

METRIC_CI_INVALID = [
    ((_Y, _S[:5], "roc_auc"), {}, r"'y_pred' parameter of metric_ci must have as many rows as y_true \(6\)\. Got 5"),
    ((_Y, _S, "roc_auc"), {"sample_weight": np.ones(5)}, r"'sample_weight' parameter of metric_ci must be a 1-d array with one weight per row of y_true \(6\)"),
    ((_Y, _S, "roc_auc"), {"sample_weight": -np.ones(6)}, r"'sample_weight' parameter of metric_ci must hold finite, non-negative weights"),
    ((_Y, _S, "auc_roc"), {}, r"'metric' parameter of metric_ci must be a callable, a scikit-learn scorer name .* or one of the fused metrics \['accuracy', 'average_precision', 'balanced_accuracy', 'brier_score', 'f1', 'log_loss', 'mean_absolute_error', 'mean_squared_error', 'precision', 'r2', 'recall', 'roc_auc', 'root_mean_squared_error'\]\. Got 'auc_roc'"),
    ((_Y, _S, 3), {}, r"'metric' parameter of metric_ci must be a callable"),
    ((_Y, _S + 0.5, "log_loss"), {}, r"'y_pred' parameter of log_loss must be an array of probabilities in \[0, 1\]\. Got values in \[0\.6, 1\.4\]"),
    ((_Y, -_S, skm.brier_score_loss), {}, r"'y_pred' parameter of brier_score must be an array of probabilities in \[0, 1\]"),
    ((np.arange(_Y.shape[0]) % 3, _S, "roc_auc"), {}, r"'y_true' parameter of roc_auc must be an array of binary labels \(two classes at most\)\. Got 3 classes \[0, 1, 2\]"),
    ((_Y, _Y * 2, "precision"), {}, r"'y_pred' parameter of precision must be an array of binary labels with average='binary' .* Got 3 classes \[0, 1, 2\]"),
    ((_Y, _S, "roc_auc"), {"max_fpr": 0.5}, r"metric 'roc_auc' of metric_ci accepts the options \['pos_label'\]\. Got \['max_fpr'\] instead\. Pass the scikit-learn function \(sklearn\.metrics\.roc_auc_score\)"),
    ((_Y, _Y, "f1"), {"average": "weighted"}, r"'average' parameter of f1 must be a str among"),
    ((_Y, _S, "roc_auc"), {"method": "studentized"}, r"'method' parameter of metric_ci must be one of \{'percentile', 'basic', 'normal', 'bc', 'bca'\}"),
    ((_Y, _S, "roc_auc"), {"undefined": "ignore"}, r"'undefined' parameter of metric_ci must be one of \{'raise', 'omit'\}"),
    ((_Y, _S, "roc_auc"), {"level": 95}, r"'level' parameter of metric_ci must be a float in \(0, 1\)\. Got 95"),
    ((_Y, _S, "roc_auc"), {"n_resamples": 0}, r"'n_resamples' parameter of metric_ci must be an int >= 1 or None"),
    ((_Y, _S, "roc_auc"), {"stratify": "yes"}, r"'stratify' parameter of metric_ci must be True or False"),
    ((_Y, _S, "roc_auc"), {"stratify": True, "groups": _Y}, r"'stratify' and 'groups' parameters of metric_ci cannot be used together"),
    ((_Y, _S, "roc_auc"), {"stratify": True, "resampler": Bootstrap()}, r"'stratify' parameter of metric_ci must be False when a resampler is given"),
    ((_Y, _S, "roc_auc"), {"groups": _Y[:4]}, r"'groups' parameter of metric_ci must have one label per row of y_true \(6\)\. Got 4"),
    ((_Y, _S, "roc_auc"), {"resampler": "iid"}, r"'resampler' parameter of metric_ci must be None or a skboot resampler"),
    ((_Y, _S, lambda a, b: 0.5), {"sample_weight": np.ones(6)}, r"'sample_weight' parameter of metric_ci needs a metric that accepts sample_weight"),
    ((_Y, _S, lambda a, b: 0.5), {"resampler": BayesianBootstrap()}, r"continuous weights \(BayesianBootstrap\), so the metric must accept sample_weight"),
    ((_Y[:1], _S[:1], "roc_auc"), {}, r"'y_true' parameter of metric_ci must have at least 2 rows"),
    ((make_pipeline(StandardScaler(), LogisticRegression()), _S[:, None], _Y), {}, r"'y_true' parameter of metric_ci must be an array of true targets\. Got an estimator \(Pipeline\) instead\. .*pass metric_ci\(y_test, estimator\.predict\(X_test\), metric\) .*use bootstrap_score\(estimator, X, y\)"),
    ((_Y, DecisionTreeClassifier().fit(_S[:, None], _Y), "accuracy"), {}, r"'y_pred' parameter of metric_ci must be an array of predictions\. Got an estimator \(DecisionTreeClassifier\)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    METRIC_CI_INVALID,
    ids=[str(i) for i in range(len(METRIC_CI_INVALID))],
)
def test_metric_ci_rejects_invalid_input(args, kwargs, match):
    kwargs = {"n_resamples": 5, **kwargs}
    with pytest.raises(ValueError, match=match):
        metric_ci(*args, **kwargs)


COMPARE_INVALID = [
    ((_Y, _S, _S[:4], "roc_auc"), {}, r"'y_pred_b' parameter of compare_metrics must have as many rows as y_true \(6\)\. Got 4"),
    ((_Y, _S, _S, "nope"), {}, r"'metric' parameter of compare_metrics must be a callable.*Got 'nope'"),
    ((_Y, _S, _S * 2, "log_loss"), {}, r"'y_pred' parameter of log_loss must be an array of probabilities"),
    ((_Y, _S, _S, "roc_auc"), {"method": "exact"}, r"'method' parameter of compare_metrics must be one of"),
    ((_Y, LogisticRegression(), Ridge(), "accuracy"), {}, r"'y_pred_a' parameter of compare_metrics must be an array of predictions\. Got an estimator \(LogisticRegression\) instead\. .*pass compare_metrics\(y_test, model_a\.predict\(X_test\), model_b\.predict\(X_test\), metric\)"),
    ((Ridge(), _S, _S, "accuracy"), {}, r"'y_true' parameter of compare_metrics must be an array of true targets\. Got an estimator \(Ridge\)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    COMPARE_INVALID,
    ids=[str(i) for i in range(len(COMPARE_INVALID))],
)
def test_compare_metrics_rejects_invalid_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare_metrics(*args, n_resamples=5, **kwargs)


_X = np.arange(12, dtype=float).reshape(6, 2)

SCORE_INVALID = [
    ({"scoring": "accuracy", "method": ".632++"}, r"'method' parameter of bootstrap_score must be one of \{'oob', '\.632', '\.632\+'\}"),
    ({"scoring": None}, r"'scoring' parameter of bootstrap_score must be a scorer name"),
    ({"scoring": "accuracy", "resampler": BayesianBootstrap(5)}, r"continuous weights \(BayesianBootstrap\), which have no out-of-bag rows"),
    ({"scoring": "accuracy", "resampler": Bootstrap(7), "n_resamples": 5}, r"'n_resamples' parameter of bootstrap_score \(5\) conflicts with the resampler's n_resamples \(7\)"),
    ({"scoring": "accuracy", "y": _Y[:5]}, r"'y' parameter of bootstrap_score must be 1-d with one target per row of X \(6\)"),
    ({"scoring": lambda est, X, y: 1.0}, r"method '\.632\+' of bootstrap_score needs a scikit-learn scorer"),
    ({"scoring": "accuracy", "undefined": "drop"}, r"'undefined' parameter of bootstrap_score must be one of"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "match"), SCORE_INVALID, ids=[str(i) for i in range(len(SCORE_INVALID))]
)
def test_bootstrap_score_rejects_invalid_input(kwargs, match):
    kwargs = {"y": _Y, "n_resamples": 5, "random_state": 0, **kwargs}
    y = kwargs.pop("y")
    with pytest.raises(ValueError, match=match):
        bootstrap_score(DecisionTreeClassifier(random_state=0), _X, y, **kwargs)


def test_statistic_objects_have_the_engine_interface():
    y, score = _data("binary")
    prepared = METRICS["roc_auc"].prepare(y, score)
    stat = MetricStatistic(prepared)
    light = stat.without_arrays()
    assert light.arrays == () and stat.arrays
    generic = CallableMetricStatistic(skm.roc_auc_score, y, score)
    assert generic.use_weights
    np.testing.assert_allclose(generic.estimate(), stat.estimate(), **TOL)
    other = METRICS["accuracy"].prepare(y, (score > 0.5).astype(int))
    with pytest.raises(ValueError, match="same metric on the same number of rows"):
        MetricStatistic(prepared, other=other)


# --------------------------------------------------------------------------- #
# The example                                                                   #
# --------------------------------------------------------------------------- #


def test_example_runs():
    env = {**os.environ, "SKBOOT_EXAMPLE_FAST": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "metric_intervals.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for word in ("roc_auc", "accuracy", "log_loss", "p-value", ".632+"):
        assert word in proc.stdout


def test_metric_entry_points_take_n_resamples_from_the_resampler():
    """n_resamples=None: the resampler's value (metric_ci, compare_metrics,
    bootstrap_score); an explicit different value conflicts with a resampler set
    to another value, 9999 included."""
    gen = np.random.default_rng(0)
    y = np.r_[np.zeros(20), np.ones(20)].astype(int)
    s = y + gen.normal(size=40)
    kw = {"method": "percentile"}
    res = metric_ci(y, s, "roc_auc", resampler=Bootstrap(60, random_state=0), **kw)
    assert res.n_resamples == 60
    cmp = compare_metrics(
        y, s, -s, "roc_auc", resampler=Bootstrap(70, random_state=0), **kw
    )
    assert cmp.result.n_resamples == 70
    assert metric_ci(y, s, "roc_auc", n_resamples=80, **kw).n_resamples == 80
    for call in (
        lambda: metric_ci(y, s, "roc_auc", resampler=Bootstrap(60), n_resamples=9999),
        lambda: compare_metrics(
            y, s, -s, "roc_auc", resampler=Bootstrap(60), n_resamples=9999
        ),
        lambda: bootstrap_score(
            LogisticRegression(), s[:, None], y, scoring="accuracy",
            resampler=Bootstrap(60), n_resamples=9999,
        ),
    ):  # fmt: skip
        with pytest.raises(ValueError, match=r"\(60\); set it in one place"):
            call()
    score = bootstrap_score(
        LogisticRegression(), s[:, None], y, scoring="accuracy",
        resampler=Bootstrap(6, random_state=0),
    )  # fmt: skip
    assert score.n_resamples == 6
