"""SPA, StepM and MCS: labels, reproducibility, whole-sample metrics, bad inputs
and the p-value plot."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata
from sklearn.base import clone
from sklearn.metrics import log_loss, roc_auc_score

from skboot import (
    MCS,
    SPA,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    StationaryBootstrap,
    StepM,
    StratifiedBootstrap,
    UndefinedStatisticWarning,
    optimal_block_length,
)
from skboot.multiple_comparison import plot_pvalues

matplotlib.use("Agg")


def losses_frame(seed=0, T=200, k=6):
    rng = np.random.default_rng(seed)
    index = pd.date_range("2020-01-01", periods=T)
    bm = pd.Series(rng.chisquare(6, T), index=index, name="naive")
    models = pd.DataFrame(
        rng.chisquare(6, (T, k)) + np.linspace(-1.5, 1.0, k),
        index=index,
        columns=[f"model_{j}" for j in range(k)],
    )
    return bm, models


# --------------------------------------------------------------------------- #
# labels, provenance, estimator manners                                        #
# --------------------------------------------------------------------------- #


def test_pandas_labels_are_kept():
    bm, models = losses_frame()
    spa = SPA(block_length=5, n_resamples=200, random_state=0).compute(bm, models)
    assert list(spa.statistics.index) == list(models.columns)
    assert list(spa.model_pvalues.index) == list(models.columns)
    assert spa.better_models(0.1) == ["model_0", "model_1"]
    step = StepM(0.1, block_length=5, n_resamples=200, random_state=0).compute(
        bm, models
    )
    assert step.superior_models == ["model_0", "model_1"]
    assert list(step.pvalues.index) == list(models.columns)
    mcs = MCS(0.1, block_length=5, n_resamples=200, random_state=0).compute(models)
    assert set(mcs.pvalues.index) == set(models.columns)
    assert mcs.included[0] == "model_0" and "model_5" in mcs.excluded
    assert mcs.included + mcs.excluded != [] and all(
        isinstance(lab, str) for lab in mcs.included + mcs.excluded
    )


def test_numpy_labels_are_positions_and_results_are_frozen():
    _, models = losses_frame()
    res = MCS(0.1, block_length=5, n_resamples=100, random_state=0).compute(
        models.to_numpy()
    )
    assert sorted(res.pvalues.index) == list(range(6))
    with pytest.raises(AttributeError):
        res.size = 0.5  # type: ignore[misc]


def test_same_seed_same_result_and_none_is_recorded():
    bm, models = losses_frame()
    a = SPA(n_resamples=150, random_state=3).compute(bm, models)
    b = SPA(n_resamples=150, random_state=3).compute(bm, models)
    assert np.array_equal(a.simulated, b.simulated)
    c = SPA(n_resamples=150).compute(bm, models)
    d = SPA(n_resamples=150, random_state=c.provenance.random_state).compute(bm, models)
    assert np.array_equal(c.simulated, d.simulated)
    e = SPA(n_resamples=150, random_state=np.random.default_rng(1))
    assert not np.array_equal(e.compute(bm, models).simulated, a.simulated)


def test_auto_block_length_is_optimal_block_length_of_the_differentials():
    bm, models = losses_frame()
    res = SPA(n_resamples=50, random_state=0).compute(bm, models)
    expect = optimal_block_length(bm.to_numpy()[:, None] - models.to_numpy())
    assert res.provenance.block_length == pytest.approx(
        max(1.0, float(np.max(expect.stationary)))
    )
    circ = SPA(n_resamples=50, resampler="circular", random_state=0)
    length = circ.compute(bm, models).provenance.block_length
    assert length == max(1, int(np.ceil(np.max(expect.circular))))


def test_resampler_instance_and_clone():
    bm, models = losses_frame()
    inst = CircularBlockBootstrap(9999, block_length=4, random_state=5)
    proc = SPA(n_resamples=120, resampler=inst)
    res = proc.compute(bm, models)
    assert res.provenance.n_resamples == 120 and res.provenance.block_length == 4
    ref = SPA(n_resamples=120, resampler="circular", block_length=4, random_state=5)
    assert np.array_equal(res.simulated, ref.compute(bm, models).simulated)
    params = clone(StepM(0.2, n_resamples=10)).get_params()
    assert params["size"] == 0.2 and params["n_resamples"] == 10
    assert "MCS(method='max'" in repr(MCS(method="max"))


def test_a_single_model_is_a_one_sided_test():
    bm, models = losses_frame()
    one = models["model_0"]
    res = SPA(block_length=5, n_resamples=200, random_state=0).compute(bm, one)
    assert res.labels == ("model_0",)
    np.testing.assert_allclose(res.loss_differentials, (bm - one).mean())
    step = StepM(0.1, block_length=5, n_resamples=200, random_state=0).compute(bm, one)
    assert step.superior_models == (["model_0"] if res.pvalue <= 0.1 else [])
    y, bench, preds = classifiers()
    res = SPA(n_resamples=50, random_state=0).compute_metric(
        y, bench, preds["clf0"], "roc_auc"
    )
    assert res.labels == ("clf0",)


def test_iid_resampler_for_independent_losses():
    bm, models = losses_frame()
    res = SPA(n_resamples=100, resampler=Bootstrap(random_state=0)).compute(bm, models)
    assert res.provenance.block_length is None
    assert 0.0 <= res.pvalue <= 1.0


# --------------------------------------------------------------------------- #
# whole-sample metrics                                                          #
# --------------------------------------------------------------------------- #


def classifiers(seed=0, n=160, k=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    strength = np.linspace(1.6, 0.4, k)
    bench = y * 0.8 + rng.normal(size=n)
    preds = pd.DataFrame(
        {f"clf{j}": y * strength[j] + rng.normal(size=n) for j in range(k)}
    )
    return y, bench, preds


def mann_whitney_auc(y, score):
    """ROC AUC as the Mann-Whitney statistic with mid-ranks (what scikit-learn's
    roc_auc_score computes, ties included), cheaper than scikit-learn's checks."""
    ranks = rankdata(score)
    n1 = int(y.sum())
    n0 = y.shape[0] - n1
    return (ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0)


def auc_replicates(y, columns, indices):
    return np.array(
        [[mann_whitney_auc(y[idx], col[idx]) for col in columns] for idx in indices]
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda B, y, g: (None, {}, Bootstrap(B, random_state=4).fit(y)),
        lambda B, y, g: (
            None,
            {"stratify": True},
            StratifiedBootstrap(B, random_state=4).fit(y, y),
        ),
        lambda B, y, g: (
            None,
            {"groups": g},
            GroupBootstrap(B, random_state=4).fit(y, groups=g),
        ),
        lambda B, y, g: (
            CircularBlockBootstrap(block_length=8),
            {},
            CircularBlockBootstrap(B, block_length=8, random_state=4).fit(y),
        ),
    ],
    ids=["iid", "stratified", "grouped", "block"],
)
def test_spa_on_roc_auc_matches_sklearn_replicates(make):
    """Every replicate's ROC AUCs recomputed (Mann-Whitney) on the rows of the
    twin resampler's ``replicate(b).indices``; the SPA statistics follow."""
    y, bench, preds = classifiers()
    B = 12
    groups = np.repeat(np.arange(40), 4)
    resampler, kwargs, twin = make(B, y, groups)
    cols = [bench, *(preds[c].to_numpy() for c in preds)]
    full = np.array([roc_auc_score(y, c) for c in cols])
    np.testing.assert_allclose(full, [mann_whitney_auc(y, c) for c in cols])
    reps = auc_replicates(y, cols, [twin.replicate(b).indices for b in range(B)])
    d = full[1:] - full[0]
    C = (reps[:, 1:] - reps[:, :1]) - d
    se = C.std(axis=0)
    for studentize in (False, True):
        res = SPA(
            n_resamples=B, resampler=resampler, studentize=studentize, random_state=4
        ).compute_metric(y, bench, preds, "roc_auc", **kwargs)
        np.testing.assert_allclose(res.loss_differentials, d, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.standard_errors, se, rtol=1e-10)
        inv = 1 / se if studentize else np.ones_like(se)
        np.testing.assert_allclose(res.simulated[:, 2], (C * inv).max(1), atol=1e-10)
        np.testing.assert_allclose(res.statistic, (d * inv).max(), atol=1e-10)
        assert res.variance == "bootstrap"


def test_smaller_is_better_metrics_are_oriented():
    y, bench, preds = classifiers()
    probs = {c: 1 / (1 + np.exp(-2 * (preds[c] - 0.5))) for c in preds}
    pb = 1 / (1 + np.exp(-2 * (bench - 0.4)))
    res = SPA(n_resamples=50, random_state=0).compute_metric(y, pb, probs, "log_loss")
    expect = log_loss(y, pb) - np.array([log_loss(y, p) for p in probs.values()])
    np.testing.assert_allclose(res.loss_differentials, expect, rtol=1e-12)
    mcs = MCS(0.1, n_resamples=50, random_state=0).compute_metric(y, probs, "log_loss")
    np.testing.assert_allclose(
        mcs.losses, [log_loss(y, p) for p in probs.values()], rtol=1e-12
    )


def test_which_models_are_best_on_roc_auc():
    rng = np.random.default_rng(1)
    n, k = 400, 12
    y = rng.integers(0, 2, n)
    strength = np.r_[np.full(3, 1.5), np.full(k - 3, 0.3)]
    preds = {f"m{j}": y * strength[j] + rng.normal(size=n) for j in range(k)}
    res = MCS(0.05, n_resamples=300, random_state=0).compute_metric(
        y, preds, "roc_auc", stratify=True
    )
    assert set(res.included) <= {"m0", "m1", "m2"} and res.included
    np.testing.assert_allclose(
        -res.losses, [roc_auc_score(y, p) for p in preds.values()], rtol=1e-12
    )
    bench = y * 0.3 + rng.normal(size=n)
    step = StepM(0.05, n_resamples=300, random_state=0).compute_metric(
        y, bench, preds, "roc_auc"
    )
    assert set(step.superior_models) == {"m0", "m1", "m2"}


def test_undefined_replicates_raise_or_are_omitted():
    rng = np.random.default_rng(2)
    y = np.r_[np.ones(2, dtype=int), np.zeros(28, dtype=int)]
    preds = rng.normal(size=(30, 3)) + y[:, None]
    with pytest.raises(ValueError, match=r"undefined on .* bootstrap replicates"):
        MCS(n_resamples=100, random_state=0).compute_metric(y, preds, "roc_auc")
    with pytest.warns(UndefinedStatisticWarning, match="omitted"):
        res = MCS(n_resamples=100, random_state=0).compute_metric(
            y, preds, "roc_auc", undefined="omit"
        )
    assert 0 < res.provenance.n_undefined < 100
    assert res.provenance.n_resamples == 100 - res.provenance.n_undefined


def test_multiclass_probabilities_as_a_dict():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 150)
    models = {}
    for j, s in enumerate((2.0, 1.0, 0.5)):
        logits = rng.normal(size=(150, 3))
        logits[np.arange(150), y] += s
        p = np.exp(logits)
        models[f"m{j}"] = p / p.sum(1, keepdims=True)
    res = MCS(0.1, n_resamples=100, random_state=0).compute_metric(
        y, models, "log_loss"
    )
    assert res.included == ["m0"]


# --------------------------------------------------------------------------- #
# plot                                                                          #
# --------------------------------------------------------------------------- #


def test_plot_pvalues():
    import matplotlib.pyplot as plt

    bm, models = losses_frame()
    mcs = MCS(0.1, block_length=5, n_resamples=100, random_state=0).compute(models)
    ax = mcs.plot()
    assert len(ax.patches) == models.shape[1]
    assert any(list(line.get_xdata()) == [0.1, 0.1] for line in ax.lines)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == str(mcs.pvalues.index[0])  # smallest p-value on top
    step = StepM(0.1, block_length=5, n_resamples=100, random_state=0).compute(
        bm, models
    )
    assert len(plot_pvalues(step, size=0.2).patches) == models.shape[1]
    spa = SPA(block_length=5, n_resamples=100, random_state=0).compute(bm, models)
    ax = plot_pvalues(spa, pvalue_type="upper")
    assert ax.get_xlabel() == "adjusted p-value (upper)"
    plt.close("all")


# --------------------------------------------------------------------------- #
# bad inputs                                                                    #
# --------------------------------------------------------------------------- #

_rng = np.random.default_rng(9)
BM = _rng.chisquare(5, 60)
M = _rng.chisquare(5, (60, 4))
Y = _rng.integers(0, 2, 60)
NAN = M.copy()
NAN[7, 2] = np.nan
IDENT = M.copy()
IDENT[:, 3] = IDENT[:, 1] + 0.5
CONST = M.copy()
CONST[:, 2] = BM - 0.25
BAD_INDEX = pd.Series(BM, index=np.arange(60) + 1)

BAD = [
    (lambda: MCS().compute(M[:, :1]), "at least 2 columns"),
    (lambda: MCS().compute(NAN), r"finite losses.*row 7, column 2"),
    (lambda: SPA().compute(BM, NAN), "finite losses"),
    (lambda: SPA().compute(BM[:-1], M), "one row per observation of the benchmark"),
    (lambda: SPA().compute(M, M), "one loss series"),
    (lambda: SPA().compute(BM[:2], M[:2]), "at least 3 observations"),
    (lambda: SPA().compute(BM, M[:, :0]), "non-empty"),
    (lambda: SPA().compute(BM, [["a"] * 4] * 60), "real numbers"),
    (lambda: SPA().compute(BAD_INDEX, pd.DataFrame(M)), "same pandas index"),
    (lambda: SPA(block_length=4).compute(BM, CONST), "model 2 has one"),
    (
        lambda: MCS(block_length=4).compute(IDENT),
        "differ by a constant: models 1 and 3",
    ),
    (lambda: MCS(size=1.5).compute(M), r"'size' parameter of MCS .* \(0, 1\)"),
    (lambda: StepM(size=0).compute(BM, M), r"'size' parameter of StepM"),
    (lambda: MCS(method="r").compute(M), "'method' parameter of MCS must be one of"),
    (lambda: SPA(variance="nested").compute(BM, M), "'variance' parameter of SPA"),
    (lambda: SPA(studentize="yes").compute(BM, M), "'studentize' parameter"),
    (lambda: SPA(resampler="sb").compute(BM, M), "'resampler' parameter of SPA"),
    (lambda: SPA(resampler=3).compute(BM, M), "'resampler' parameter of SPA"),
    (
        lambda: SPA(block_length=3, resampler=StationaryBootstrap()).compute(BM, M),
        "set it in one place",
    ),
    (lambda: SPA(block_length=0).compute(BM, M), "'block_length' parameter of SPA"),
    (
        lambda: SPA(block_length=2.5, resampler="circular").compute(BM, M),
        "an int for the circular",
    ),
    (lambda: SPA(block_length=40).compute(BM, M), "at least 2 blocks"),
    (lambda: MCS(n_resamples=0).compute(M), "'n_resamples' parameter of MCS"),
    (
        lambda: SPA(n_resamples=1, variance="bootstrap", block_length=4).compute(BM, M),
        "variance of 0.0 .* cannot be studentized",
    ),
    (lambda: SPA(n_jobs=0).compute(BM, M), "'n_jobs' parameter of SPA"),
    (lambda: StepM(pvalue_type="max").compute(BM, M), "'pvalue_type' parameter"),
    (lambda: SPA().compute_metric(Y, M[:, 0], M, "auc"), "'metric' parameter"),
    (
        lambda: SPA().compute_metric(Y, M[:, 0], M, "roc_auc", average="macro"),
        "accepts the options",
    ),
    (
        lambda: MCS().compute_metric(Y, M[:-1], "roc_auc"),
        "one prediction per row of y_true",
    ),
    (lambda: MCS().compute_metric(Y, M[:, :1], "roc_auc"), "at least 2 models"),
    (
        lambda: SPA(variance="asymptotic").compute_metric(Y, M[:, 0], M, "roc_auc"),
        "'variance' parameter of SPA must be 'auto' or 'bootstrap'",
    ),
    (
        lambda: SPA(resampler="circular").compute_metric(Y, M[:, 0], M, "roc_auc"),
        "must be a number for whole-sample metrics",
    ),
    (
        lambda: SPA(block_length=5).compute_metric(Y, M[:, 0], M, "roc_auc"),
        "applies to block schemes only",
    ),
    (
        lambda: MCS().compute_metric(
            Y, M, "roc_auc", stratify=True, groups=np.arange(60)
        ),
        "cannot be used together",
    ),
    (lambda: MCS().compute_metric(Y, M, "roc_auc", undefined="drop"), "'undefined'"),
    (
        lambda: MCS().compute_metric(Y, M, "roc_auc", sample_weight=-np.ones(60)),
        "'sample_weight' parameter",
    ),
    (
        lambda: SPA(studentize=True).compute_metric(
            Y, M[:, 0], M[:, [0, 1]], "roc_auc"
        ),
        "model 0 has one .*like the benchmark",
    ),
    (
        lambda: MCS().compute_metric(Y, M[:, [0, 1, 1]], "roc_auc"),
        "models 1 and 2",
    ),
]


@pytest.mark.parametrize("call, match", BAD, ids=[m for _, m in BAD])
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_result_queries():
    bm, models = losses_frame()
    res = SPA(block_length=5, n_resamples=50, random_state=0).compute(bm, models)
    with pytest.raises(ValueError, match=r"'pvalue' parameter .* \(0, 1\)"):
        res.critical_values(1.0)
    with pytest.raises(ValueError, match="'pvalue_type' parameter"):
        res.better_models(0.05, "median")
    mcs = MCS(block_length=5, n_resamples=50, random_state=0).compute(models)
    with pytest.raises(ValueError, match="SPA results only"):
        plot_pvalues(mcs, pvalue_type="upper")
    with pytest.raises(ValueError, match="'result' parameter of plot_pvalues"):
        plot_pvalues(models)


# --------------------------------------------------------------------------- #
# short reprs, resampler settings in one place                                 #
# --------------------------------------------------------------------------- #


def test_result_reprs_are_short_and_self_describing():
    """The results print their fields summarized (arrays by shape), not every
    replicate."""
    bm, models = losses_frame()
    kw = {"n_resamples": 300, "block_length": 5, "random_state": 0}
    spa = SPA(**kw).compute(bm, models)
    step = StepM(0.1, **kw).compute(bm, models)
    mcs = MCS(0.1, **kw).compute(models.assign(naive=bm))
    for res in (spa, step, mcs):
        text = repr(res)
        assert len(text) < 700, text
        assert text.startswith(type(res).__name__ + "(")
        assert "n_resamples=300" in text
    assert "simulated=<array of shape (300, 3)>" in repr(spa)
    assert f"'consistent': {spa.pvalue:.6g}" in repr(spa)
    assert f"superior_models={step.superior_models!r}" in repr(step)
    assert f"included={mcs.included!r}" in repr(mcs)
    # many models: the label list is cut, with its length
    wide = SPA(**kw).compute(
        bm, np.column_stack([models.to_numpy()] * 5) + 0.01 * np.arange(30)
    )
    assert "(30 in all)" in repr(wide) and len(repr(wide)) < 700


def test_resampler_instance_settings_in_one_place():
    """As bootstrap(): this object's n_resamples / random_state fill an
    instance's defaults; two different explicit values are refused."""
    bm, models = losses_frame()
    inst = StationaryBootstrap(block_length=5)
    a = SPA(n_resamples=200, resampler=inst, random_state=3).compute(bm, models)
    b = SPA(
        n_resamples=200,
        resampler=StationaryBootstrap(200, block_length=5, random_state=3),
    ).compute(bm, models)
    assert a.provenance.n_resamples == 200 and a.provenance.random_state == 3
    np.testing.assert_array_equal(a.simulated, b.simulated)
    with pytest.raises(
        ValueError, match=r"'random_state' parameter of SPA \(2\) conflicts"
    ):
        SPA(
            n_resamples=500,
            resampler=StationaryBootstrap(500, random_state=1),
            random_state=2,
        ).compute(bm, models)
    with pytest.raises(
        ValueError, match=r"'n_resamples' parameter of SPA \(1000\) conflicts"
    ):
        SPA(resampler=StationaryBootstrap(500, random_state=1), random_state=2).compute(
            bm, models
        )
