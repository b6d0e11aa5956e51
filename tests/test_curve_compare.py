"""Paired comparison of two models' curves (``compare_roc_curves``,
``compare_precision_recall_curves``) and its result, ``CurveComparison``.

Every replicate's difference is checked against scikit-learn's ``roc_curve`` /
``precision_recall_curve`` of both models on the same replicate (indices from
the resampler's ``split``, or its weights as ``sample_weight``), read on the
grid by the plain Python references of ``tests/test_curve_bands.py``.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from test_curve_bands import GRID, pr_reference, roc_reference, tied_data

import skboot
from skboot.metrics import (
    CurveBand,
    CurveComparison,
    compare_precision_recall_curves,
    compare_roc_curves,
    precision_recall_band,
    roc_curve_band,
)
from skboot.metrics._curve_stat import simultaneous_band

REFERENCES = {
    "roc": (compare_roc_curves, roc_curve_band, "fpr_grid", roc_reference),
    "precision_recall": (
        compare_precision_recall_curves,
        precision_recall_band,
        "recall_grid",
        pr_reference,
    ),
}


def two_models(n=80, seed=0):
    """Labels and two models' integer scores (many ties, within and across)."""
    y, a = tied_data(n, seed)
    rng = np.random.default_rng(seed + 100)
    b = (rng.integers(0, 4, n) + y).astype(float)
    return y, a, b


@pytest.mark.parametrize("curve", sorted(REFERENCES))
@pytest.mark.parametrize("kind", ["stratified", "iid", "group"])
def test_replicates_match_sklearn_on_the_same_indices(curve, kind):
    func, _, grid_name, reference = REFERENCES[curve]
    y, a, b = two_models()
    B = 40
    groups = np.arange(y.shape[0]) // 4 if kind == "group" else None
    cls = {
        "stratified": skboot.StratifiedBootstrap,
        "iid": skboot.Bootstrap,
        "group": skboot.GroupBootstrap,
    }[kind]
    kw = {} if kind == "stratified" else {"resampler": cls()}  # the default route
    cmp = func(
        y,
        a,
        b,
        **{grid_name: GRID},
        n_resamples=B,
        random_state=5,
        groups=groups,
        undefined="omit",
        **kw,
    )
    ref_a, ref_b = reference(y, a, GRID), reference(y, b, GRID)
    np.testing.assert_allclose(cmp.estimate_a, ref_a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cmp.estimate_b, ref_b, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(cmp.estimate, cmp.estimate_a - cmp.estimate_b)
    splits = list(cls(n_resamples=B, random_state=5).split(y, y, groups))
    kept = np.setdiff1d(np.arange(B), cmp.undefined_replicates)
    assert cmp.distribution.shape == (kept.shape[0], GRID.shape[0])
    assert cmp.n_resamples == B
    for row, r in zip(cmp.distribution, kept, strict=True):
        idx = splits[r][0]
        want = reference(y[idx], a[idx], GRID) - reference(y[idx], b[idx], GRID)
        np.testing.assert_allclose(row, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("curve", sorted(REFERENCES))
@pytest.mark.parametrize(
    "resampler", [skboot.PoissonBootstrap, skboot.BayesianBootstrap]
)
def test_weight_resamplers_match_sklearn_with_sample_weight(curve, resampler):
    func, _, grid_name, reference = REFERENCES[curve]
    y, a, b = two_models(60, seed=3)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    B = 25
    cmp = func(
        y,
        a,
        b,
        **{grid_name: GRID},
        resampler=resampler(n_resamples=B),
        random_state=2,
        sample_weight=sw,
        undefined="omit",
    )
    fitted = resampler(n_resamples=B, random_state=2).fit(y, y)
    kept = np.setdiff1d(np.arange(B), cmp.undefined_replicates)
    assert kept.shape[0] > B // 2
    for row, r in zip(cmp.distribution, kept, strict=True):
        w = fitted.replicate(int(r)).weights * sw
        want = reference(y, a, GRID, w) - reference(y, b, GRID, w)
        np.testing.assert_allclose(row, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("curve", sorted(REFERENCES))
def test_difference_of_the_single_bands_on_the_same_stream(curve):
    """Paired: replicate b of the comparison is replicate b of each model's
    band (the same seed draws the same rows), bit for bit."""
    func, single, grid_name, _ = REFERENCES[curve]
    y, a, b = two_models(120, seed=7)
    sw = np.random.default_rng(4).integers(1, 3, y.shape[0]).astype(float)
    kw = {grid_name: GRID, "n_resamples": 60, "random_state": 11, "sample_weight": sw}
    cmp = func(y, a, b, **kw)
    band_a, band_b = single(y, a, **kw), single(y, b, **kw)
    np.testing.assert_array_equal(
        cmp.distribution, band_a.distribution - band_b.distribution
    )
    np.testing.assert_array_equal(cmp.estimate_a, band_a.estimate)
    np.testing.assert_array_equal(cmp.estimate_b, band_b.estimate)
    assert cmp.random_state == band_a.random_state
    assert cmp.resampler == band_a.resampler


def test_swapping_the_models_negates_the_difference():
    y, a, b = two_models(90, seed=5)
    ab = compare_roc_curves(y, a, b, fpr_grid=GRID, n_resamples=80, random_state=1)
    ba = compare_roc_curves(y, b, a, fpr_grid=GRID, n_resamples=80, random_state=1)
    np.testing.assert_array_equal(ba.distribution, -ab.distribution)
    np.testing.assert_array_equal(ba.simultaneous_low, -ab.simultaneous_high)
    np.testing.assert_allclose(ba.low, -ab.high, rtol=0, atol=1e-15)
    assert ba.pvalue == ab.pvalue


@pytest.mark.parametrize("curve", sorted(REFERENCES))
def test_one_model_against_itself_differs_by_nothing(curve):
    func, _, _, _ = REFERENCES[curve]
    y, a, _ = two_models(50, seed=2)
    cmp = func(y, a, a, n_resamples=30, random_state=0)
    assert not cmp.distribution.any() and not cmp.estimate.any()
    assert not cmp.simultaneous_low.any() and not cmp.simultaneous_high.any()
    assert cmp.pvalue == 1.0
    # a monotone transform of the scores ranks the rows alike: the same curve
    same = func(y, a, np.exp(a / 3), n_resamples=30, random_state=0)
    assert same.pvalue == 1.0 and not same.distribution.any()


def test_bands_and_pvalue_from_the_distribution():
    """The bands are the single-curve bands of the differences, and the
    p-value inverts the simultaneous band: without the add-one correction it
    is at most 1 - L exactly when the band at level L leaves 0 out somewhere
    (checked at every level where the band changes)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    a = y + rng.normal(size=300)
    b = y + rng.normal(size=300)  # as good as a: a p-value near 0.05
    grid = np.linspace(0.05, 0.9, 12)
    cmp = compare_roc_curves(
        y, a, b, fpr_grid=grid, n_resamples=300, random_state=4, level=0.9
    )
    d = cmp.distribution
    B = d.shape[0]
    alpha = (1 - 0.9) / 2  # as the library computes it
    np.testing.assert_array_equal(
        cmp.low, np.quantile(d, [alpha, 1 - alpha], axis=0)[0]
    )
    lo, hi, c = simultaneous_band(d, 0.9)
    np.testing.assert_array_equal(cmp.simultaneous_low, lo)
    np.testing.assert_array_equal(cmp.simultaneous_high, hi)
    assert cmp.calibrated_level == c
    count = round(cmp.pvalue * (B + 1)) - 1  # #{b: K_b <= K_0}
    assert 0 < count < B // 2  # the loop below sees both outcomes
    for m in range(1, B):
        lo, hi, _ = simultaneous_band(d, 1 - m / B)
        excluded = bool(np.any((lo > 0) | (hi < 0)))
        assert excluded == (count <= m), m


def test_the_default_grid_reaches_the_later_flat_top():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 400)
    strong = 3 * y + rng.normal(size=400)  # reaches TPR 1 early
    weak = y + rng.normal(size=400)
    one = roc_curve_band(y, strong, n_resamples=2, random_state=0).grid
    other = roc_curve_band(y, weak, n_resamples=2, random_state=0).grid
    assert one[-1] < other[-1] and one[0] == other[0]
    for first, second in ((strong, weak), (weak, strong)):
        cmp = compare_roc_curves(y, first, second, n_resamples=2, random_state=0)
        np.testing.assert_array_equal(cmp.grid, other)
    pr = compare_precision_recall_curves(y, strong, weak, n_resamples=2)
    single = precision_recall_band(y, weak, n_resamples=2)
    np.testing.assert_array_equal(pr.grid, single.grid)


def test_results_do_not_depend_on_n_jobs():
    y, a, b = two_models(200, seed=8)
    one = compare_roc_curves(y, a, b, n_resamples=300, random_state=3)
    two = compare_roc_curves(y, a, b, n_resamples=300, random_state=3, n_jobs=2)
    assert one == two


def test_text_labels_and_pos_label():
    y, a, b = two_models(50, seed=6)
    text = np.where(y == 1, "spam", "ham")
    kw = {"recall_grid": GRID, "n_resamples": 30, "random_state": 1}
    ref = compare_precision_recall_curves(y, a, b, **kw)
    got = compare_precision_recall_curves(text, a, b, pos_label="spam", **kw)
    np.testing.assert_array_equal(got.distribution, ref.distribution)
    assert got.pos_label == "spam"
    other = compare_precision_recall_curves(text, -a, -b, pos_label="ham", **kw)
    np.testing.assert_allclose(
        other.estimate,
        pr_reference(1 - y, -a, GRID) - pr_reference(1 - y, -b, GRID),
        atol=1e-12,
    )


def test_undefined_replicates_follow_the_policy():
    y = np.array([0] * 12 + [1])
    a, b = np.arange(13.0), np.arange(13.0)[::-1]
    with pytest.raises(ValueError, match=r"roc curve is undefined on .* replicates"):
        compare_roc_curves(
            y, a, b, resampler=skboot.Bootstrap(n_resamples=50), random_state=0
        )
    with pytest.warns(skboot.UndefinedStatisticWarning, match="omitted"):
        cmp = compare_roc_curves(
            y,
            a,
            b,
            resampler=skboot.Bootstrap(n_resamples=50),
            random_state=0,
            undefined="omit",
        )
    assert cmp.n_undefined > 0 and cmp.n_resamples == 50
    assert cmp.distribution.shape[0] == 50 - cmp.n_undefined
    assert np.isfinite(cmp.distribution).all()
    with pytest.warns(skboot.UndefinedStatisticWarning, match="omitted"):
        single = roc_curve_band(
            y,
            a,
            resampler=skboot.Bootstrap(n_resamples=50),
            random_state=0,
            undefined="omit",
        )
    np.testing.assert_array_equal(cmp.undefined_replicates, single.undefined_replicates)


ARGS = {
    "y_true": [0, 1, 0, 1],
    "y_score_a": [0.1, 0.8, 0.3, 0.6],
    "y_score_b": [0.2, 0.7, 0.4, 0.5],
}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"y_score_b": [0.1, 0.2, 0.3]},
            "'y_score_b' parameter of compare_roc_curves must have as many rows "
            r"as y_true \(4\). Got 3 instead",
        ),
        (
            {"y_score_a": [0.1, np.nan, 0.3, 0.4]},
            "'y_score_a' parameter of compare_roc_curves must contain only finite",
        ),
        (
            {"y_score_b": [[0.1, 0.9]] * 4},
            "'y_score_b' parameter of compare_roc_curves",
        ),
        (
            {"y_score_a": ["a", "b", "c", "d"]},
            "'y_score_a' parameter of compare_roc_curves must contain real numbers",
        ),
        (
            {"y_true": [1, 1, 1, 1]},
            "'y_true' parameter of compare_roc_curves must hold both classes",
        ),
        (
            {"fpr_grid": [0.1, 1.5]},
            r"'fpr_grid' parameter of compare_roc_curves must hold values in "
            r"\[0, 1\]. Got \[1.5\]",
        ),
        ({"fpr_grid": [0.5, 0.2]}, "'fpr_grid' .* must be strictly increasing"),
        ({"level": 0.0}, "'level' parameter of compare_roc_curves"),
        ({"n_resamples": 0}, "'n_resamples' parameter of compare_roc_curves"),
        ({"undefined": "keep"}, "'undefined' parameter of compare_roc_curves"),
        ({"pos_label": 3}, "'pos_label' parameter of compare_roc_curves"),
        (
            {"groups": [0, 1]},
            "'groups' parameter of compare_roc_curves must have one label",
        ),
        (
            {"resampler": skboot.Permutation(n_resamples=10)},
            "must be a bootstrap resampler",
        ),
    ],
)
def test_bad_input_is_refused_before_any_work(kwargs, match, monkeypatch):
    def no_work(*args, **kw):
        raise AssertionError("the replicates ran before the error")

    monkeypatch.setattr("skboot.metrics._curves.run_bootstrap", no_work)
    args = {**ARGS, **kwargs}
    with pytest.raises(ValueError, match=match):
        compare_roc_curves(
            args.pop("y_true"),
            args.pop("y_score_a"),
            args.pop("y_score_b"),
            n_resamples=args.pop("n_resamples", 10),
            **args,
        )


def test_precision_recall_comparison_names_its_own_parameters():
    with pytest.raises(
        ValueError,
        match="'recall_grid' parameter of compare_precision_recall_curves must hold",
    ):
        compare_precision_recall_curves(*ARGS.values(), recall_grid=[2.0])
    with pytest.raises(
        ValueError, match="'y_score_b' parameter of compare_precision_recall_curves"
    ):
        compare_precision_recall_curves(*list(ARGS.values())[:2], [0.1, 0.2])


def test_result_protocol():
    y, a, b = two_models(60, seed=11)
    cmp = compare_precision_recall_curves(y, a, b, n_resamples=50, random_state=0)
    again = compare_precision_recall_curves(
        y, a, b, n_resamples=50, random_state=cmp.random_state
    )
    assert cmp == again and isinstance(cmp, CurveBand)
    assert cmp != compare_precision_recall_curves(
        y, a, b, n_resamples=50, random_state=1
    )
    band = precision_recall_band(y, a, n_resamples=50, random_state=0)
    assert cmp != band and band != cmp
    text = repr(cmp)
    assert text.startswith("CurveComparison(curve='precision_recall'")
    assert "pvalue=" in text and "\n" not in text
    d = cmp.to_dict()
    assert d["distribution"].shape == (50, 101) and d["estimate_a"].shape == (101,)
    frame = cmp.to_frame()
    assert list(frame.columns) == [
        "recall",
        "precision_a",
        "precision_b",
        "difference",
        "low",
        "high",
        "simultaneous_low",
        "simultaneous_high",
    ]
    np.testing.assert_array_equal(frame["precision_b"], cmp.estimate_b)
    np.testing.assert_array_equal(frame["difference"], cmp.estimate)
    buf = io.BytesIO()
    cmp.save(buf)
    buf.seek(0)
    loaded = CurveComparison.load(buf)
    assert loaded == cmp and loaded.pvalue == cmp.pvalue
    buf.seek(0)
    with pytest.raises(skboot.ResultFileError, match="CurveComparison"):
        CurveBand.load(buf)
    fields = {k: getattr(cmp, k) for k in cmp.__dataclass_fields__}
    with pytest.raises(ValueError, match="'estimate_b' field of a CurveComparison"):
        CurveComparison(**{**fields, "estimate_b": cmp.estimate_b[:3]})
    with pytest.raises(ValueError, match="'low' field of a CurveBand"):
        CurveComparison(**{**fields, "low": cmp.low[:3]})


def test_plot_draws_the_difference_its_bands_and_zero():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    y, a, b = two_models(60, seed=12)
    cmp = compare_roc_curves(y, a, b, n_resamples=50, random_state=0)
    ax = cmp.plot(color="C3")
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_ydata(), cmp.estimate)
    assert line.get_label() == "a - b"
    zero = ax.get_lines()[1]
    np.testing.assert_array_equal(zero.get_ydata(), [0.0, 0.0])
    assert len(ax.collections) == 2
    assert ax.get_xlabel() == "False Positive Rate"
    assert ax.get_ylabel() == "True Positive Rate difference (a - b)"
    low, high = ax.get_ylim()
    assert low <= cmp.simultaneous_low.min() and high >= cmp.simultaneous_high.max()
    ax2 = cmp.plot(band="simultaneous", label="forest - logistic")
    assert len(ax2.collections) == 1
    assert ax2.get_lines()[0].get_label() == "forest - logistic"
    with pytest.raises(ValueError, match="'band' parameter of plot"):
        cmp.plot(band="all")
    matplotlib.pyplot.close("all")


@pytest.mark.slow
def test_simultaneous_difference_band_rejects_at_its_level_under_the_null():
    """Rejection rate of "the curves differ somewhere" when they do not.

    1000 negatives and 1000 positives; each model scores a row ``y + 0.6 e +
    0.8 e_m``, with ``e`` a standard normal noise shared by both models
    (correlation 0.36) and ``e_m`` one of its own, so both models have the
    same true ROC curve and the true difference is 0 on the whole grid (15
    FPRs in [0.1, 0.8]).  400 data sets, B = 400, level 0.9.  A pilot of 400
    other data sets rejected in 35, this seed in 26: 7.6% of 800 (the
    bootstrap slightly overestimates the spread of the empirical ROC curve
    at a fixed FPR, which makes the band a little conservative: with 200
    rows per class a pilot rejected in 5%).  The bounds [18, 60] of 400 fail
    with probability ``binom.cdf(17, 400, p) + binom.sf(60, 400, p)``: 0.005
    at p = 0.076, 0.015 at p = 0.07, 0.006 at p = 0.11.  The two single
    bands run on independent replicates (the pairing ignored) rejected in 5
    of 200 pilot data sets, and the pointwise band leaves 0 out somewhere in
    about half of them: both would fail.
    """
    n_each, R, B, level = 1000, 400, 400, 0.9
    grid = np.linspace(0.1, 0.8, 15)
    rng = np.random.default_rng(20261202)
    y = np.r_[np.zeros(n_each, int), np.ones(n_each, int)]
    rejected = pointwise = small_p = 0
    for r in range(R):
        shared = rng.normal(size=2 * n_each)
        a = y + 0.6 * shared + 0.8 * rng.normal(size=2 * n_each)
        b = y + 0.6 * shared + 0.8 * rng.normal(size=2 * n_each)
        cmp = compare_roc_curves(
            y, a, b, fpr_grid=grid, n_resamples=B, random_state=r, level=level
        )
        excluded = bool(
            np.any((cmp.simultaneous_low > 0) | (cmp.simultaneous_high < 0))
        )
        rejected += excluded
        pointwise += bool(np.any((cmp.low > 0) | (cmp.high < 0)))
        small_p += cmp.pvalue <= 1 - level
        assert excluded or cmp.pvalue > 1 - level  # the add-one side
    assert 18 <= rejected <= 60
    assert small_p <= rejected
    assert pointwise > 100


def test_each_chunk_of_counts_is_written_once_for_both_models(monkeypatch):
    """Fused: the comparison fills each chunk's counts once (as many fills as
    one model's band), not once per model."""
    y, a, b = two_models(300, seed=9)
    plan_type = type(skboot.StratifiedBootstrap(10).fit(y, y).plan_)
    fill = plan_type.fill_weights_chunk
    calls = []

    def counted(self, b0, W):
        calls.append(W.shape[0])
        return fill(self, b0, W)

    monkeypatch.setattr(plan_type, "fill_weights_chunk", counted)
    kw = {"fpr_grid": GRID, "n_resamples": 3000, "random_state": 0}
    roc_curve_band(y, a, **kw)
    single = list(calls)
    calls.clear()
    compare_roc_curves(y, a, b, **kw)
    assert sum(calls) == 3000 and calls == single
