"""The curve bands (``roc_curve_band``, ``precision_recall_band``), their result
and displays.

Every replicate's curve is checked against scikit-learn's ``roc_curve`` /
``precision_recall_curve`` on the same replicate (indices from the resampler's
``split``, or its weights as ``sample_weight``), read on the grid by a plain
Python reference of the documented rule.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import precision_recall_curve, roc_curve

import skboot
from skboot.metrics import (
    CurveBand,
    PrecisionRecallBandDisplay,
    RocCurveBandDisplay,
    precision_recall_band,
    roc_curve_band,
)


def roc_reference(y, s, grid, sample_weight=None):
    """TPR at each FPR of ``grid``: the last point with fpr <= f if it lies at
    f, else the straight line to the next point."""
    fpr, tpr, _ = roc_curve(y, s, sample_weight=sample_weight, drop_intermediate=False)
    out = np.empty(len(grid))
    for j, f in enumerate(grid):
        i = int(np.flatnonzero(fpr <= f)[-1])
        if fpr[i] == f or i + 1 == len(fpr):
            out[j] = tpr[i]
        else:
            out[j] = tpr[i] + (tpr[i + 1] - tpr[i]) * (f - fpr[i]) / (
                fpr[i + 1] - fpr[i]
            )
    return out


def pr_reference(y, s, grid, sample_weight=None):
    """Precision at each recall of ``grid``: the first threshold (decreasing)
    whose recall is at least r and above 0."""
    precision, recall, _ = precision_recall_curve(y, s, sample_weight=sample_weight)
    # scikit-learn lists increasing thresholds and appends (recall 0, precision 1)
    precision, recall = precision[:-1][::-1], recall[:-1][::-1]
    out = np.empty(len(grid))
    for j, r in enumerate(grid):
        out[j] = precision[np.flatnonzero((recall >= r) & (recall > 0))[0]]
    return out


REFERENCES = {
    "roc": (roc_curve_band, "fpr_grid", roc_reference),
    "precision_recall": (precision_recall_band, "recall_grid", pr_reference),
}


def tied_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = (rng.integers(0, 6, n) + 2 * y).astype(float)  # integer scores: many ties
    return y, s


GRID = np.r_[0.0, np.linspace(0.01, 0.99, 23), 0.5, 1.0]
GRID = np.unique(GRID)


@pytest.mark.parametrize("curve", sorted(REFERENCES))
@pytest.mark.parametrize("kind", ["stratified", "iid", "group"])
def test_replicates_match_sklearn_on_the_same_indices(curve, kind):
    func, grid_name, reference = REFERENCES[curve]
    y, s = tied_data()
    B = 40
    groups = np.arange(y.shape[0]) // 4 if kind == "group" else None
    cls = {
        "stratified": skboot.StratifiedBootstrap,
        "iid": skboot.Bootstrap,
        "group": skboot.GroupBootstrap,
    }[kind]
    resampler = cls(n_resamples=B, random_state=5)
    kw = {} if kind == "stratified" else {"resampler": cls()}  # the default route
    band = func(
        y,
        s,
        **{grid_name: GRID},
        n_resamples=B,
        random_state=5,
        groups=groups,
        undefined="omit",
        **kw,
    )
    assert band.n_resamples == B
    np.testing.assert_allclose(band.estimate, reference(y, s, GRID), rtol=0, atol=1e-12)
    splits = list(resampler.split(y, y, groups))
    kept = np.setdiff1d(np.arange(B), band.undefined_replicates)
    assert band.distribution.shape == (kept.shape[0], GRID.shape[0])
    for row, b in zip(band.distribution, kept, strict=True):
        idx = splits[b][0]
        np.testing.assert_allclose(
            row, reference(y[idx], s[idx], GRID), rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("curve", sorted(REFERENCES))
@pytest.mark.parametrize(
    "resampler", [skboot.PoissonBootstrap, skboot.BayesianBootstrap]
)
def test_weight_resamplers_match_sklearn_with_sample_weight(curve, resampler):
    func, grid_name, reference = REFERENCES[curve]
    y, s = tied_data(60, seed=3)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, y.shape[0])
    B = 25
    band = func(
        y,
        s,
        **{grid_name: GRID},
        resampler=resampler(n_resamples=B),
        random_state=2,
        sample_weight=sw,
        undefined="omit",
    )
    fitted = resampler(n_resamples=B, random_state=2).fit(y, y)
    kept = np.setdiff1d(np.arange(B), band.undefined_replicates)
    assert kept.shape[0] > B // 2
    for row, b in zip(band.distribution, kept, strict=True):
        w = fitted.replicate(int(b)).weights * sw
        np.testing.assert_allclose(row, reference(y, s, GRID, w), rtol=0, atol=1e-12)


def test_sample_weight_is_resampled_with_the_rows():
    y, s = tied_data(70, seed=4)
    sw = np.random.default_rng(2).integers(1, 4, y.shape[0]).astype(float)
    band = roc_curve_band(
        y, s, fpr_grid=GRID, sample_weight=sw, n_resamples=20, random_state=9
    )
    np.testing.assert_allclose(band.estimate, roc_reference(y, s, GRID, sw), atol=1e-12)
    res = skboot.StratifiedBootstrap(20, random_state=9)
    for row, (idx, _) in zip(band.distribution, res.split(y, y), strict=True):
        np.testing.assert_allclose(
            row, roc_reference(y[idx], s[idx], GRID, sw[idx]), rtol=0, atol=1e-12
        )


def test_all_scores_tied_give_the_diagonal_and_the_prevalence():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])
    s = np.full(10, 0.3)
    grid = np.array([0.0, 0.25, 0.5, 1.0])
    roc = roc_curve_band(y, s, fpr_grid=grid, n_resamples=5, random_state=0)
    np.testing.assert_array_equal(roc.estimate, grid)  # one diagonal segment
    np.testing.assert_array_equal(roc.distribution, np.tile(grid, (5, 1)))
    pr = precision_recall_band(y, s, recall_grid=grid, n_resamples=5, random_state=0)
    np.testing.assert_array_equal(pr.estimate, np.full(4, 0.6))  # stratified: fixed


def test_vertical_rise_reads_its_top_and_a_tie_its_diagonal():
    # points: (0, 0), (0, 1/2) [a positive alone], (1/2, 1) [a tie of one of
    # each class], (1, 1)
    y = np.array([1, 1, 0, 0])
    s = np.array([3.0, 2.0, 2.0, 1.0])
    band = roc_curve_band(
        y, s, fpr_grid=[0.0, 0.25, 0.5, 0.75, 1.0], n_resamples=3, random_state=0
    )
    np.testing.assert_array_equal(band.estimate, [0.5, 0.75, 1.0, 1.0, 1.0])
    pr = precision_recall_band(
        y, s, recall_grid=[0.0, 0.5, 0.75, 1.0], n_resamples=3, random_state=0
    )
    np.testing.assert_array_equal(pr.estimate, [1.0, 1.0, 2 / 3, 2 / 3])


def test_text_labels_and_pos_label_give_the_replicates_of_0_1_labels():
    y, s = tied_data(50, seed=6)
    text = np.where(y == 1, "spam", "ham")
    a = roc_curve_band(y, s, fpr_grid=GRID, n_resamples=30, random_state=1)
    b = roc_curve_band(
        text, s, fpr_grid=GRID, n_resamples=30, random_state=1, pos_label="spam"
    )
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert b.pos_label == "spam"
    # without pos_label the greater class ("spam") is positive
    c = roc_curve_band(text, s, fpr_grid=GRID, n_resamples=30, random_state=1)
    np.testing.assert_array_equal(a.distribution, c.distribution)
    # the other class: the curve of 1 - y against -s is the curve of y against s
    d = roc_curve_band(
        text, -s, fpr_grid=GRID, n_resamples=30, random_state=1, pos_label="ham"
    )
    np.testing.assert_allclose(d.estimate, roc_reference(1 - y, -s, GRID), atol=1e-12)
    e = precision_recall_band(
        text, s, recall_grid=GRID, n_resamples=30, random_state=1, pos_label="spam"
    )
    f = precision_recall_band(y, s, recall_grid=GRID, n_resamples=30, random_state=1)
    np.testing.assert_array_equal(e.distribution, f.distribution)


def test_results_do_not_depend_on_n_jobs():
    y, s = tied_data(200, seed=8)
    one = roc_curve_band(y, s, n_resamples=300, random_state=3)
    two = roc_curve_band(y, s, n_resamples=300, random_state=3, n_jobs=2)
    assert one == two


def test_bands_from_the_distribution():
    y, s = tied_data(150, seed=10)
    band = roc_curve_band(
        y, s, fpr_grid=GRID, n_resamples=400, random_state=4, level=0.9
    )
    d = band.distribution
    alpha = (1 - 0.9) / 2
    low, high = np.quantile(d, [alpha, 1 - alpha], axis=0)
    np.testing.assert_array_equal(band.low, low)
    np.testing.assert_array_equal(band.high, high)
    # brute force: the largest k whose order-statistic band holds >= 90% of
    # the replicates' curves entirely
    ordered = np.sort(d, axis=0)
    B = d.shape[0]

    def inside(k):
        lo, hi = ordered[k], ordered[B - 1 - k]
        return np.all((d >= lo) & (d <= hi), axis=1).mean()

    fractions = [inside(k) for k in range(B // 2)]
    k = max(i for i, frac in enumerate(fractions) if frac >= 0.9)
    assert fractions[k + 1] < 0.9 <= fractions[k]
    np.testing.assert_array_equal(band.simultaneous_low, ordered[k])
    np.testing.assert_array_equal(band.simultaneous_high, ordered[B - 1 - k])
    assert band.calibrated_level == 1 - 2 * k / B
    assert 0.9 < band.calibrated_level < 1
    assert np.all(band.simultaneous_low <= band.low)
    assert np.all(band.simultaneous_high >= band.high)
    assert band.simultaneous_low[-1] == band.simultaneous_high[-1] == 1.0


def test_undefined_replicates_follow_the_policy():
    y = np.array([0] * 12 + [1])
    s = np.arange(13.0)
    with pytest.raises(ValueError, match=r"roc curve is undefined on .* replicates"):
        roc_curve_band(y, s, resampler=skboot.Bootstrap(n_resamples=50), random_state=0)
    with pytest.warns(skboot.UndefinedStatisticWarning, match="omitted"):
        band = roc_curve_band(
            y,
            s,
            resampler=skboot.Bootstrap(n_resamples=50),
            random_state=0,
            undefined="omit",
        )
    assert band.n_undefined > 0
    assert band.distribution.shape[0] == 50 - band.n_undefined
    assert band.n_resamples == 50
    # the default (stratified) resampler keeps the one positive in every replicate
    assert roc_curve_band(y, s, n_resamples=50, random_state=0).n_undefined == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"y_true": [1, 1, 1, 1]},
            "'y_true' parameter of roc_curve_band must hold both",
        ),
        (
            {"sample_weight": [0.0, 1.0, 0.0, 1.0]},
            "'y_true' parameter of roc_curve_band must hold both classes, each with a "
            "positive total",
        ),
        (
            {"fpr_grid": [0.1, 1.5]},
            r"'fpr_grid' parameter of roc_curve_band must hold "
            r"values in \[0, 1\]. Got \[1.5\]",
        ),
        ({"fpr_grid": [-0.1, 0.5]}, "'fpr_grid' .* must hold values in"),
        ({"fpr_grid": [0.5, 0.2]}, "'fpr_grid' .* must be strictly increasing"),
        ({"fpr_grid": [0.2, 0.2]}, "'fpr_grid' .* must be strictly increasing"),
        ({"fpr_grid": [[0.1, 0.2]]}, "'fpr_grid' parameter of roc_curve_band"),
        ({"fpr_grid": [0.1, np.nan]}, "'fpr_grid' parameter of roc_curve_band"),
        ({"fpr_grid": []}, "'fpr_grid' parameter of roc_curve_band"),
        ({"y_score": [0.1, 0.2, np.nan, 0.4]}, "'y_score' parameter of roc_curve_band"),
        (
            {"y_score": [0.1, 0.2, 0.3]},
            "'y_score' parameter of roc_curve_band must have as many rows as y_true",
        ),
        ({"y_score": [[0.1, 0.9]] * 4}, "'y_score' parameter of roc_curve_band"),
        ({"y_true": [0, 1, 2, 1]}, "binary labels"),
        ({"pos_label": 3}, "'pos_label' parameter of roc_curve_band must be one of"),
        ({"level": 1.0}, "'level' parameter of roc_curve_band"),
        ({"n_resamples": 0}, "'n_resamples' parameter of roc_curve_band"),
        ({"undefined": "keep"}, "'undefined' parameter of roc_curve_band"),
        ({"resampler": "stratified"}, "'resampler' parameter of roc_curve_band"),
        (
            {"resampler": skboot.Permutation(n_resamples=10)},
            "must be a bootstrap resampler",
        ),
        (
            {"groups": [0, 1]},
            "'groups' parameter of roc_curve_band must have one label",
        ),
    ],
)
def test_bad_input_is_refused_before_any_work(kwargs, match):
    args = {"y_true": [0, 1, 0, 1], "y_score": [0.1, 0.8, 0.3, 0.6]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        roc_curve_band(
            args.pop("y_true"),
            args.pop("y_score"),
            n_resamples=args.pop("n_resamples", 10),
            **args,
        )


def test_precision_recall_band_names_its_own_grid():
    with pytest.raises(
        ValueError,
        match="'recall_grid' parameter of precision_recall_band must hold values in",
    ):
        precision_recall_band([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6], recall_grid=[2.0])


def test_result_protocol():
    y, s = tied_data(60, seed=11)
    band = precision_recall_band(y, s, n_resamples=50, random_state=0)
    again = precision_recall_band(y, s, n_resamples=50, random_state=band.random_state)
    assert band == again
    assert band != precision_recall_band(y, s, n_resamples=50, random_state=1)
    text = repr(band)
    assert text.startswith("CurveBand(curve='precision_recall'") and "\n" not in text
    d = band.to_dict()
    assert d["distribution"].shape == (50, 101) and d["pos_label"] == 1
    frame = band.to_frame()
    assert list(frame.columns) == [
        "recall",
        "precision",
        "low",
        "high",
        "simultaneous_low",
        "simultaneous_high",
    ]
    np.testing.assert_array_equal(frame["precision"], band.estimate)
    buf = io.BytesIO()
    band.save(buf)
    buf.seek(0)
    assert CurveBand.load(buf) == band
    with pytest.raises(ValueError, match="'estimate' field of a CurveBand"):
        CurveBand(
            **{
                **{k: getattr(band, k) for k in band.__dataclass_fields__},
                "estimate": band.estimate[:3],
            }
        )


def test_plot_draws_the_curve_and_both_bands():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    y, s = tied_data(60, seed=12)
    band = roc_curve_band(y, s, n_resamples=50, random_state=0)
    ax = band.plot(color="C3")
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_ydata(), band.estimate)
    assert len(ax.collections) == 2
    assert ax.get_xlabel() == "False Positive Rate"
    ax2 = band.plot(band="pointwise")
    assert len(ax2.collections) == 1
    with pytest.raises(ValueError, match="'band' parameter of plot"):
        band.plot(band="all")
    matplotlib.pyplot.close("all")


def test_display_composes_with_sklearn_roc_curve_display():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import RocCurveDisplay

    X, y = make_classification(300, random_state=0)
    model = LogisticRegression().fit(X[:150], y[:150])
    roc = RocCurveDisplay.from_estimator(model, X[150:], y[150:])
    disp = RocCurveBandDisplay.from_estimator(
        model, X[150:], y[150:], ax=roc.ax_, n_resamples=100, random_state=0
    )
    assert disp.ax_ is roc.ax_ and disp.figure_ is roc.figure_
    assert disp.line_.get_label() == "LogisticRegression"
    assert disp.band_ is not None and disp.simultaneous_band_ is not None
    assert disp.ax_.get_xlabel() == roc.ax_.get_xlabel()  # sklearn's label kept
    proba = model.predict_proba(X[150:])[:, 1]
    same = roc_curve_band(y[150:], proba, n_resamples=100, random_state=0)
    assert disp.band == same
    # decision_function gives another score but the same ranking: the same curve
    dec = RocCurveBandDisplay.from_estimator(
        model,
        X[150:],
        y[150:],
        response_method="decision_function",
        n_resamples=100,
        random_state=0,
        band="none",
    )
    np.testing.assert_allclose(dec.band.distribution, same.distribution, atol=1e-12)
    assert dec.band_ is None
    pr = PrecisionRecallBandDisplay.from_estimator(
        model, X[150:], y[150:], pos_label=0, n_resamples=100, random_state=0
    )
    ref = precision_recall_band(
        y[150:],
        model.predict_proba(X[150:])[:, 0],
        pos_label=0,
        n_resamples=100,
        random_state=0,
    )
    assert pr.band == ref
    with pytest.raises(
        ValueError,
        match="'pos_label' parameter of "
        "PrecisionRecallBandDisplay must be one of the estimator's",
    ):
        PrecisionRecallBandDisplay.from_estimator(model, X, y, pos_label=7)
    with pytest.raises(
        ValueError, match="'response_method' parameter of RocCurveBandDisplay"
    ):
        RocCurveBandDisplay.from_estimator(model, X, y, response_method="predict")
    matplotlib.pyplot.close("all")


def test_simultaneous_band_covers_a_known_binormal_curve():
    """Coverage of the simultaneous band in a simulation with a known curve.

    Negatives N(0, 1), positives N(1, 1), 300 of each: the true ROC curve is
    ``TPR(f) = Phi(1 + Phi^-1(f))``, read on 15 FPRs in [0.1, 0.8] (where it
    stays away from 1 by many 1/n).  100 data sets, B = 400, level 0.95.  A
    pilot of 150 other data sets covered in 0.947 of them.  With a true
    coverage of 0.93 or more, fewer than 85 covered runs of 100 has
    probability ``binom.cdf(84, 100, 0.93) = 0.002``; with 0.95 or less, all
    100 covered (a band far too wide) has probability ``0.95 ** 100 = 0.006``.
    """
    mu, n_each, R, B = 1.0, 300, 100, 400
    grid = np.linspace(0.1, 0.8, 15)
    truth = norm.cdf(mu + norm.ppf(grid))
    rng = np.random.default_rng(20261201)
    y = np.r_[np.zeros(n_each, int), np.ones(n_each, int)]
    covered = pointwise = 0
    for r in range(R):
        s = np.concatenate([rng.normal(size=n_each), rng.normal(mu, 1.0, n_each)])
        band = roc_curve_band(y, s, fpr_grid=grid, n_resamples=B, random_state=r)
        covered += bool(
            np.all((band.simultaneous_low <= truth) & (truth <= band.simultaneous_high))
        )
        pointwise += bool(np.all((band.low <= truth) & (truth <= band.high)))
    assert 85 <= covered <= 99
    assert pointwise < covered  # pointwise bands miss the curve as a whole more often
