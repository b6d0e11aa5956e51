"""Curve bands on the replicates of a ``metric_ci`` result:
``MetricCI.curve_band`` and the displays' ``from_metric_ci``.

* the band is that of ``roc_curve_band`` / ``precision_recall_band`` with the
  interval's resampler and seed, bit for bit (iid, stratified, grouped,
  weighted, text labels with ``pos_label``), and the interval is unchanged;
* the same replicates: with ``undefined="omit"`` both omit the same ones;
* ``level`` defaults to the interval's; the displays draw the same band;
* metrics without a curve, a result without its run and bad options are
  refused with the parameter named, before any work.
"""

from __future__ import annotations

import pickle

import matplotlib
import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from skboot import metric_ci
from skboot.metrics import (
    PrecisionRecallBandDisplay,
    RocCurveBandDisplay,
    compare_metrics,
    precision_recall_band,
    roc_curve_band,
)
from skboot.resamplers import Bootstrap

matplotlib.use("Agg")


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, y + rng.normal(size=n)


GRID = [0.05, 0.1, 0.2, 0.4, 0.7]


@pytest.mark.parametrize(
    ("ci_kwargs", "band_kwargs"),
    [
        ({}, {"resampler": Bootstrap()}),
        ({"stratify": True}, {}),
        ({"groups": "g"}, {"groups": "g"}),
        ({"sample_weight": "w"}, {"sample_weight": "w", "resampler": Bootstrap()}),
    ],
    ids=["iid", "stratified", "groups", "weights"],
)
@pytest.mark.parametrize(
    ("metric", "band_func"),
    [("roc_auc", roc_curve_band), ("average_precision", precision_recall_band)],
)
def test_band_is_the_band_of_the_same_resampler_and_seed(
    ci_kwargs, band_kwargs, metric, band_func
):
    y, score = _data()
    extra = {
        "g": np.repeat(np.arange(60), 4),
        "w": np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0]),
    }
    ci_kw = {
        k: extra.get(v, v) if isinstance(v, str) else v for k, v in ci_kwargs.items()
    }
    band_kw = {
        k: extra.get(v, v) if isinstance(v, str) else v for k, v in band_kwargs.items()
    }
    res = metric_ci(y, score, metric, n_resamples=199, random_state=3, **ci_kw)
    before = res.distribution.copy()
    for grid in (None, GRID):
        band = res.curve_band(grid=grid)
        grid_name = "fpr_grid" if metric == "roc_auc" else "recall_grid"
        same = band_func(
            y, score, n_resamples=199, random_state=3, **{grid_name: grid}, **band_kw
        )
        assert band == same
        assert np.array_equal(band.distribution, same.distribution)
        assert band.resampler == res.resampler and band.random_state == 3
    # the interval is not touched: the same replicates as a fresh run
    fresh = metric_ci(y, score, metric, n_resamples=199, random_state=3, **ci_kw)
    assert np.array_equal(res.distribution, before)
    assert np.array_equal(res.distribution, fresh.distribution)
    assert res.confidence_interval() == fresh.confidence_interval()


def test_text_labels_and_pos_label_and_a_mapped_function():
    y, score = _data(seed=2)
    names = np.where(y == 1, "malignant", "benign")
    ap = metric_ci(
        names,
        score,
        "average_precision",
        pos_label="malignant",
        n_resamples=99,
        random_state=0,
    )
    band = ap.curve_band(grid=GRID)
    same = precision_recall_band(
        names,
        score,
        recall_grid=GRID,
        pos_label="malignant",
        resampler=Bootstrap(),
        n_resamples=99,
        random_state=0,
    )
    assert band == same and band.pos_label == "malignant"
    # "benign" as the positive class is another curve
    flipped = metric_ci(
        names,
        -score,
        "average_precision",
        pos_label="benign",
        n_resamples=99,
        random_state=0,
    )
    assert flipped.curve_band(grid=GRID).pos_label == "benign"
    # scikit-learn's function, mapped to the fused metric
    auc = metric_ci(y, score, roc_auc_score, n_resamples=99, random_state=0)
    same = roc_curve_band(
        y,
        score,
        fpr_grid=GRID,
        resampler=Bootstrap(),
        n_resamples=99,
        random_state=0,
    )
    assert auc.curve_band(grid=GRID) == same


def test_the_same_replicates_are_undefined():
    # 12 rows, 2 positives: iid replicates without a positive are undefined
    y = np.array([0] * 10 + [1] * 2)
    score = np.linspace(0.0, 1.0, 12)
    with pytest.warns(Warning):
        res = metric_ci(
            y, score, "roc_auc", n_resamples=200, random_state=0, undefined="omit"
        )
    assert res.n_undefined > 0
    with pytest.warns(Warning):
        band = res.curve_band(grid=[0.1, 0.5])
    assert band.undefined == "omit"
    assert np.array_equal(band.undefined_replicates, res.undefined_replicates)
    assert band.distribution.shape[0] == res.distribution.shape[0]


def test_level_defaults_to_the_interval_s():
    y, score = _data()
    res = metric_ci(y, score, "roc_auc", level=0.9, n_resamples=99, random_state=0)
    assert res.curve_band(grid=GRID).level == 0.9
    band = res.curve_band(grid=GRID, level=0.5)
    assert band.level == 0.5
    assert np.all(
        band.high - band.low
        <= res.curve_band(grid=GRID).high - res.curve_band(grid=GRID).low
    )


def test_displays_draw_the_same_band():
    y, score = _data()
    auc = metric_ci(y, score, "roc_auc", n_resamples=99, random_state=0)
    disp = RocCurveBandDisplay.from_metric_ci(auc, fpr_grid=GRID, name="model")
    assert disp.band == auc.curve_band(grid=GRID)
    assert disp.line_.get_label() == "model" and disp.ax_.get_xlabel()
    ap = metric_ci(y, score, "average_precision", n_resamples=99, random_state=0)
    disp = PrecisionRecallBandDisplay.from_metric_ci(ap, level=0.8, band="pointwise")
    assert disp.band == ap.curve_band(level=0.8)
    assert disp.simultaneous_band_ is None


def _results():
    y, score = _data()
    auc = metric_ci(y, score, "roc_auc", n_resamples=49, random_state=0)
    return {
        "auc": auc,
        "ap": metric_ci(y, score, "average_precision", n_resamples=49, random_state=0),
        "accuracy": metric_ci(
            y, score > 0.5, "accuracy", n_resamples=49, random_state=0
        ),
        "callable": metric_ci(
            y, score, lambda t, p: roc_auc_score(t, p), n_resamples=49, random_state=0
        ),
        "pickled": pickle.loads(pickle.dumps(auc)),
        "comparison": compare_metrics(
            y, score, -score, "roc_auc", n_resamples=49, random_state=0
        ),
    }


@pytest.mark.parametrize(
    ("call", "which", "match"),
    [
        (
            "band",
            "accuracy",
            r"'result' parameter of curve_band must be a MetricCI of 'roc_auc' or 'average_precision' \(from metric_ci\): the band is that of the metric's curve\. Got a result of 'accuracy' instead",
        ),
        (
            "band",
            "callable",
            r"'result' parameter of curve_band must be .* that holds its bootstrap run.*Got a result of '<lambda>' without it",
        ),
        (
            "band",
            "pickled",
            r"'result' parameter of curve_band .*holds its bootstrap run.*\(loaded from a file, unpickled",
        ),
        (
            "roc",
            "ap",
            r"'result' parameter of RocCurveBandDisplay.from_metric_ci must be a MetricCI of 'roc_auc'.*Got a result of 'average_precision' instead",
        ),
        (
            "pr",
            "auc",
            r"'result' parameter of PrecisionRecallBandDisplay.from_metric_ci must be a MetricCI of 'average_precision'",
        ),
        (
            "roc",
            "comparison",
            r"'result' parameter of RocCurveBandDisplay.from_metric_ci must be a MetricCI of 'roc_auc' \(from metric_ci\)\. Got MetricComparison instead",
        ),
    ],
)
def test_results_without_a_curve_are_refused(call, which, match):
    res = _results()[which]
    with pytest.raises(ValueError, match=match):
        if call == "band":
            res.curve_band()
        elif call == "roc":
            RocCurveBandDisplay.from_metric_ci(res)
        else:
            PrecisionRecallBandDisplay.from_metric_ci(res)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"grid": [0.5, 0.2]},
            r"'grid' parameter of curve_band must be strictly increasing",
        ),
        (
            {"grid": [0.1, 1.5]},
            r"'grid' parameter of curve_band must hold values in \[0, 1\]",
        ),
        ({"level": 1.5}, r"'level' parameter of curve_band must be"),
        ({"n_jobs": "all"}, r"'n_jobs' parameter of curve_band must be"),
    ],
)
def test_bad_options(kwargs, match):
    res = _results()["auc"]
    with pytest.raises(ValueError, match=match):
        res.curve_band(**kwargs)


def test_bad_grid_of_a_display_names_its_parameter():
    res = _results()["auc"]
    with pytest.raises(
        ValueError, match=r"'fpr_grid' parameter of RocCurveBandDisplay"
    ):
        RocCurveBandDisplay.from_metric_ci(res, fpr_grid=[0.3, 0.1])


def test_a_loaded_result_gets_its_band_from_the_data(tmp_path):
    """A saved and loaded result holds no data and no fitted resampler: the
    error says so, and the route it names (the band function with the
    result's resampler, n_resamples and random_state) gives the band of the
    interval's replicates, also for a run seeded with fresh entropy (only the
    resampler's repr differs: it shows the entropy instead of None)."""
    from skboot.metrics import MetricCI

    y, score = _data(seed=4)
    res = metric_ci(y, score, "roc_auc", n_resamples=99, random_state=None)
    res.save(tmp_path / "auc.skboot")
    loaded = MetricCI.load(tmp_path / "auc.skboot")
    assert loaded == res
    with pytest.raises(
        ValueError, match=r"holds its bootstrap run.*loaded from a file"
    ):
        loaded.curve_band()
    again = roc_curve_band(
        y,
        score,
        fpr_grid=GRID,
        resampler=Bootstrap(),
        n_resamples=loaded.n_resamples,
        random_state=loaded.random_state,
    )
    band = res.curve_band(grid=GRID)
    for name in ("distribution", "estimate", "low", "high", "simultaneous_low"):
        assert np.array_equal(getattr(again, name), getattr(band, name)), name
    assert again.random_state == band.random_state == res.random_state
