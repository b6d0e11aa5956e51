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

import skboot
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
from skboot.multiple_comparison import MCSResult, StepMResult, plot_pvalues

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
    assert list(spa.pvalues.index) == list(models.columns)
    assert spa.better_models(0.9) == ["model_0", "model_1"]
    step = StepM(0.9, block_length=5, n_resamples=200, random_state=0).compute(
        bm, models
    )
    assert step.superior_models == ["model_0", "model_1"]
    assert list(step.pvalues.index) == list(models.columns)
    mcs = MCS(0.9, block_length=5, n_resamples=200, random_state=0).compute(models)
    assert set(mcs.pvalues.index) == set(models.columns)
    assert mcs.included[0] == "model_0" and "model_5" in mcs.excluded
    assert mcs.included + mcs.excluded != [] and all(
        isinstance(lab, str) for lab in mcs.included + mcs.excluded
    )


def test_numpy_labels_are_positions_and_results_are_frozen():
    _, models = losses_frame()
    res = MCS(0.9, block_length=5, n_resamples=100, random_state=0).compute(
        models.to_numpy()
    )
    assert sorted(res.pvalues.index) == list(range(6))
    with pytest.raises(AttributeError):
        res.level = 0.5  # type: ignore[misc]


def test_same_seed_same_result_and_none_is_recorded():
    bm, models = losses_frame()
    a = SPA(n_resamples=150, random_state=3).compute(bm, models)
    b = SPA(n_resamples=150, random_state=3).compute(bm, models)
    assert np.array_equal(a.null_distribution, b.null_distribution)
    c = SPA(n_resamples=150).compute(bm, models)
    d = SPA(n_resamples=150, random_state=c.provenance.random_state).compute(bm, models)
    assert np.array_equal(c.null_distribution, d.null_distribution)
    e = SPA(n_resamples=150, random_state=np.random.default_rng(1))
    dist = e.compute(bm, models).null_distribution
    assert not np.array_equal(dist, a.null_distribution)


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
    assert np.array_equal(
        res.null_distribution, ref.compute(bm, models).null_distribution
    )
    params = clone(StepM(0.8, n_resamples=10)).get_params()
    assert params["level"] == 0.8 and params["n_resamples"] == 10
    assert "MCS(statistic='max'" in repr(MCS(statistic="max"))


def test_a_single_model_is_a_one_sided_test():
    bm, models = losses_frame()
    one = models["model_0"]
    res = SPA(block_length=5, n_resamples=200, random_state=0).compute(bm, one)
    assert res.labels == ("model_0",)
    np.testing.assert_allclose(res.loss_differentials, (bm - one).mean())
    step = StepM(0.9, block_length=5, n_resamples=200, random_state=0).compute(bm, one)
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
        np.testing.assert_allclose(
            res.null_distribution[:, 2], (C * inv).max(1), atol=1e-10
        )
        np.testing.assert_allclose(res.statistic, (d * inv).max(), atol=1e-10)
        assert res.variance == "bootstrap"


def test_smaller_is_better_metrics_are_oriented():
    y, bench, preds = classifiers()
    probs = {c: 1 / (1 + np.exp(-2 * (preds[c] - 0.5))) for c in preds}
    pb = 1 / (1 + np.exp(-2 * (bench - 0.4)))
    res = SPA(n_resamples=50, random_state=0).compute_metric(y, pb, probs, "log_loss")
    expect = log_loss(y, pb) - np.array([log_loss(y, p) for p in probs.values()])
    np.testing.assert_allclose(res.loss_differentials, expect, rtol=1e-12)
    mcs = MCS(0.9, n_resamples=50, random_state=0).compute_metric(y, probs, "log_loss")
    np.testing.assert_allclose(
        mcs.losses, [log_loss(y, p) for p in probs.values()], rtol=1e-12
    )


def test_which_models_are_best_on_roc_auc():
    rng = np.random.default_rng(1)
    n, k = 400, 12
    y = rng.integers(0, 2, n)
    strength = np.r_[np.full(3, 1.5), np.full(k - 3, 0.3)]
    preds = {f"m{j}": y * strength[j] + rng.normal(size=n) for j in range(k)}
    res = MCS(0.95, n_resamples=300, random_state=0).compute_metric(
        y, preds, "roc_auc", stratify=True
    )
    assert set(res.included) <= {"m0", "m1", "m2"} and res.included
    np.testing.assert_allclose(
        -res.losses, [roc_auc_score(y, p) for p in preds.values()], rtol=1e-12
    )
    bench = y * 0.3 + rng.normal(size=n)
    step = StepM(0.95, n_resamples=300, random_state=0).compute_metric(
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
    res = MCS(0.9, n_resamples=100, random_state=0).compute_metric(
        y, models, "log_loss"
    )
    assert res.included == ["m0"]


# --------------------------------------------------------------------------- #
# plot                                                                          #
# --------------------------------------------------------------------------- #


def test_plot_pvalues():
    import matplotlib.pyplot as plt

    bm, models = losses_frame()
    mcs = MCS(0.9, block_length=5, n_resamples=100, random_state=0).compute(models)
    ax = mcs.plot()
    assert len(ax.patches) == models.shape[1]
    assert any(list(line.get_xdata()) == [0.1, 0.1] for line in ax.lines)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == str(mcs.pvalues.index[0])  # smallest p-value on top
    step = StepM(0.9, block_length=5, n_resamples=100, random_state=0).compute(
        bm, models
    )
    assert len(plot_pvalues(step, level=0.8).patches) == models.shape[1]
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
    (lambda: MCS(level=1.5).compute(M), r"'level' parameter of MCS .* \(0, 1\)"),
    (lambda: StepM(level=0).compute(BM, M), r"'level' parameter of StepM"),
    (
        lambda: MCS(statistic="r").compute(M),
        "'statistic' parameter of MCS must be one of",
    ),
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
    with pytest.raises(ValueError, match=r"'level' parameter .* \(0, 1\)"):
        res.critical_values(1.0)
    with pytest.raises(ValueError, match="'pvalue_type' parameter"):
        res.better_models(0.95, "median")
    mcs = MCS(block_length=5, n_resamples=50, random_state=0).compute(models)
    with pytest.raises(ValueError, match="SPA results only"):
        plot_pvalues(mcs, pvalue_type="upper")
    with pytest.raises(ValueError, match="'result' parameter of plot_pvalues"):
        plot_pvalues(models)


# --------------------------------------------------------------------------- #
# short reprs, resampler settings in one place                                 #
# --------------------------------------------------------------------------- #


def _three_results(n_resamples=300):
    bm, models = losses_frame()
    kw = {"n_resamples": n_resamples, "block_length": 5, "random_state": 0}
    spa = SPA(**kw).compute(bm, models)
    step = StepM(0.9, **kw).compute(bm, models)
    mcs = MCS(0.9, **kw).compute(models.assign(naive=bm))
    return spa, step, mcs


def test_results_follow_the_result_protocol():
    """Frozen dataclasses of the Result mixin: == compares fields and never
    raises, unhashable, a short repr even for B = 9999, to_dict."""
    import dataclasses

    from skboot._results import Result

    first = _three_results(9999)
    again = _three_results(9999)
    for res, twin in zip(first, again, strict=True):
        assert isinstance(res, Result) and dataclasses.is_dataclass(res)
        assert res == twin
        assert not res != twin  # noqa: SIM202
        assert res != first[0] or res is first[0]  # other classes: never raises
        assert (res == "text") is False and (res == None) is False  # noqa: E711
        with pytest.raises(TypeError):
            hash(res)
        text = repr(res)
        assert len(text) < 300, text
        assert text.startswith(type(res).__name__ + "(")
        assert "9999" in text or isinstance(res, MCSResult | StepMResult)
        assert res.n_resamples == 9999 and res.random_state == 0
        assert res.n_undefined == 0 and res.stream_version >= 1
        assert "provenance" in res.to_dict() or isinstance(res, StepMResult)
    spa, step, mcs = first
    assert "null_distribution=array(shape=(9999, 3), dtype=float64)" in repr(spa)
    assert f"pvalue={spa.pvalue:.6g}" in repr(spa)
    assert f"superior_models={step.superior_models!r}" in repr(step)
    assert f"included={mcs.included!r}" in repr(mcs)
    assert "statistic_name='R'" in repr(mcs) and "level=0.9" in repr(mcs)
    other = MCS(0.9, n_resamples=9999, block_length=5, random_state=1).compute(
        losses_frame()[1].assign(naive=losses_frame()[0])
    )
    assert mcs != other  # different replicates, different provenance


def test_to_frame_has_one_row_per_model():
    spa, step, mcs = _three_results()
    labels = list(spa.labels)
    frame = spa.to_frame()
    assert list(frame.columns) == [
        "label",
        "loss_differential",
        "standard_error",
        "statistic",
        "relevant",
        "pvalue",
    ]
    assert frame["label"].tolist() == labels
    np.testing.assert_array_equal(frame["statistic"], spa.statistics.to_numpy())
    np.testing.assert_array_equal(frame["pvalue"], spa.pvalues["consistent"])
    frame = step.to_frame()
    assert list(frame.columns) == ["label", "statistic", "pvalue", "superior", "step"]
    assert frame["label"].tolist() == labels
    assert frame.loc[frame["superior"], "label"].tolist() == step.superior_models
    assert frame.loc[frame["step"] == 1, "label"].tolist() == step.steps[0]
    np.testing.assert_array_equal(frame["pvalue"], step.pvalues.to_numpy())
    frame = mcs.to_frame()
    assert list(frame.columns) == [
        "label",
        "loss",
        "statistic",
        "pvalue",
        "included",
        "eliminated",
    ]
    assert frame["label"].tolist() == list(mcs.labels)
    assert frame.loc[frame["included"], "label"].tolist() == mcs.included
    by_label = frame.set_index("label")
    pd.testing.assert_series_equal(
        by_label.loc[mcs.pvalues.index, "pvalue"],
        mcs.pvalues.rename_axis("label"),
        check_names=False,
    )
    first_out = mcs.pvalues.index[0]
    assert by_label.loc[first_out, "eliminated"] == 1
    assert by_label.loc[mcs.pvalues.index[-1], "eliminated"] == 0


def test_plot_takes_the_axes_first():
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    for res in _three_results(100):
        _, ax = plt.subplots()
        assert res.plot(ax) is ax
        assert isinstance(res.plot(), Axes)
        assert len(ax.patches) == len(res.to_frame())
        plt.close("all")


def test_level_is_the_complement_of_the_old_size():
    """level 0.9 decides exactly as a size of 0.1: a p-value equal to 0.1 is
    out of the set (not in it, as 1 - 0.9 = 0.09999999999999998 would put
    it)."""
    from skboot.multiple_comparison._base import alpha_of

    assert alpha_of(0.9) == 0.1 and alpha_of(0.95) == 0.05 and alpha_of(0.5) == 0.5
    _, models = losses_frame()
    res = MCS(0.9, block_length=5, n_resamples=100, random_state=0).compute(models)
    p = res.pvalues
    assert res.excluded == sorted(p.index[p <= 0.1], key=list(res.labels).index)
    assert res.included == sorted(p.index[p > 0.1], key=list(res.labels).index)


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
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    with pytest.raises(
        ValueError, match=r"'random_state' parameter of SPA \(2\) conflicts"
    ):
        SPA(
            n_resamples=500,
            resampler=StationaryBootstrap(500, random_state=1),
            random_state=2,
        ).compute(bm, models)


@pytest.mark.parametrize("cls", [SPA, StepM, MCS])
def test_resampler_seed_conflict_is_refused_without_n_resamples(cls):
    """Regression: with the resampler's own count (500) and seed (1) and another
    seed (2) here, the call is refused as bootstrap() refuses it; it neither
    runs 1000 replicates with seed 2 nor blames n_resamples."""
    bm, models = losses_frame()
    proc = cls(resampler=StationaryBootstrap(500, random_state=1), random_state=2)
    args = (models,) if cls is MCS else (bm, models)
    with pytest.raises(
        ValueError, match=rf"'random_state' parameter of {cls.__name__} \(2\)"
    ):
        proc.compute(*args)
    with pytest.raises(ValueError, match="conflicts") as info:
        skboot.bootstrap(
            bm.to_numpy(),
            np.mean,
            resampler=StationaryBootstrap(500, random_state=1),
            random_state=2,
        )
    assert "'random_state' parameter" in str(info.value)


def test_n_resamples_conflict_with_the_resampler_is_refused():
    bm, models = losses_frame()
    with pytest.raises(
        ValueError,
        match=r"'n_resamples' parameter of SPA \(300\) conflicts with the "
        r"resampler's n_resamples \(500\)",
    ):
        SPA(n_resamples=300, resampler=StationaryBootstrap(500)).compute(bm, models)
    with pytest.raises(ValueError, match=r"'n_resamples' parameter of MCS \(300\)"):
        MCS(n_resamples=300, resampler=Bootstrap(500)).compute_metric(
            *classifiers()[::2], "roc_auc"
        )


def test_n_resamples_none_uses_the_resampler_count_else_9999():
    """Regression: n_resamples=None (the default) runs the resampler's own
    count and seed; without a resampler instance, 9999 replicates."""
    bm, models = losses_frame()
    inst = StationaryBootstrap(500, block_length=5, random_state=1)
    res = SPA(resampler=inst).compute(bm, models)
    assert res.n_resamples == 500 and res.null_distribution.shape == (500, 3)
    assert res.random_state == 1
    ref = SPA(n_resamples=500, block_length=5, random_state=1).compute(bm, models)
    np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)
    step = StepM(resampler=inst).compute(bm, models)
    assert step.n_resamples == 500
    y, _, preds = classifiers()
    met = MCS(resampler=Bootstrap(60, random_state=0)).compute_metric(
        y, preds, "roc_auc"
    )
    assert met.n_resamples == 60
    assert SPA().n_resamples is None and MCS().n_resamples is None
    default = MCS(block_length=5, random_state=0).compute(models)
    assert default.n_resamples == 9999
