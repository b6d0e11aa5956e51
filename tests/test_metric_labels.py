"""Class labels as scikit-learn users bring them: text labels, ``pos_label`` for
every binary metric, ``labels=`` where scikit-learn has it, in metric_ci,
compare_metrics and for scikit-learn functions passed as the metric.

Point estimates must equal scikit-learn's on the same data to 1e-12, and a run
on text labels must draw exactly the replicates of the run on the equivalent 0/1
labels (same seed, bit for bit).  The per-replicate values of the new options
against scikit-learn are in test_metric_kernels (the ``binary_text_*`` kinds and
the ``labels=`` cases).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from sklearn import metrics as skm

from skboot import compare_metrics, metric_ci
from skboot.metrics import METRICS

TOL = {"rtol": 1e-12, "atol": 1e-12}
N = 120
B = 200
NAMES = np.array(["benign", "malignant"])


def _data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    y[:2] = [0, 1]
    score = np.round(y + rng.normal(size=N), 1)  # ties
    proba = np.clip(np.round(0.3 + 0.4 * y + rng.normal(0, 0.25, N), 2), 0.0, 1.0)
    pred = np.where(rng.random(N) < 0.25, 1 - y, y)
    other = np.where(rng.random(N) < 0.4, 1 - y, y)
    y3 = rng.integers(0, 3, N)
    y3[:3] = [0, 1, 2]
    pred3 = np.where(rng.random(N) < 0.4, rng.integers(0, 3, N), y3)
    P3 = rng.dirichlet([1.0, 1.0, 1.0], N)
    return y, score, proba, pred, other, y3, pred3, P3


Y, SCORE, PROBA, PRED, OTHER, Y3, PRED3, P3 = _data()
YT, PREDT, OTHERT = NAMES[Y], NAMES[PRED], NAMES[OTHER]  # text labels
Y12, PRED12 = Y + 1, PRED + 1  # numbers outside {0, 1}
ANIMALS = np.array(["ant", "bee", "cat"])
Y3T, PRED3T = ANIMALS[Y3], ANIMALS[PRED3]
P2 = np.column_stack([1.0 - PROBA, PROBA])


def _estimate(y_true, y_pred, metric, **options):
    res = metric_ci(
        y_true,
        y_pred,
        metric,
        n_resamples=30,
        random_state=0,
        method="percentile",
        undefined="omit",
        **options,
    )
    return res.estimate


# (id, metric, y_true, y_pred, options, scikit-learn's value on the same data)
ESTIMATES = [
    ("roc_auc-text", "roc_auc", YT, SCORE, {}, skm.roc_auc_score(YT, SCORE)),
    ("roc_auc-pos-smaller", "roc_auc", YT, SCORE, {"pos_label": "benign"},
     skm.roc_auc_score(YT == "benign", SCORE)),
    ("roc_auc-pos-greater", "roc_auc", YT, SCORE, {"pos_label": "malignant"},
     skm.roc_auc_score(YT, SCORE)),
    ("roc_auc-1-2", "roc_auc", Y12, SCORE, {}, skm.roc_auc_score(Y12, SCORE)),
    ("roc_auc-pos-numeric", "roc_auc", Y12, SCORE, {"pos_label": 1},
     skm.roc_auc_score(Y12 == 1, SCORE)),
    ("ap-text", "average_precision", YT, SCORE, {"pos_label": "malignant"},
     skm.average_precision_score(YT, SCORE, pos_label="malignant")),
    ("ap-pos-smaller", "average_precision", YT, SCORE, {"pos_label": "benign"},
     skm.average_precision_score(YT, SCORE, pos_label="benign")),
    ("ap-1-2", "average_precision", Y12, SCORE, {},
     skm.average_precision_score(Y12, SCORE)),
    ("ap-minus-one", "average_precision", 2 * Y - 1, SCORE, {},
     skm.average_precision_score(2 * Y - 1, SCORE)),
    ("accuracy-text", "accuracy", YT, PREDT, {}, skm.accuracy_score(YT, PREDT)),
    ("accuracy-3-text", "accuracy", Y3T, PRED3T, {}, skm.accuracy_score(Y3T, PRED3T)),
    ("bacc-3-text", "balanced_accuracy", Y3T, PRED3T, {},
     skm.balanced_accuracy_score(Y3T, PRED3T)),
    ("log_loss-text", "log_loss", YT, PROBA, {}, skm.log_loss(YT, PROBA)),
    ("log_loss-text-labels", "log_loss", YT, PROBA, {"labels": list(NAMES)},
     skm.log_loss(YT, PROBA, labels=list(NAMES))),
    ("log_loss-pos-smaller", "log_loss", YT, PROBA, {"pos_label": "benign"},
     skm.log_loss(YT == "benign", PROBA)),
    ("log_loss-matrix-text", "log_loss", YT, P2, {}, skm.log_loss(YT, P2)),
    ("log_loss-3-text-labels", "log_loss", Y3T, P3, {"labels": list(ANIMALS)},
     skm.log_loss(Y3T, P3, labels=list(ANIMALS))),
    ("brier-text", "brier_score", YT, PROBA, {"pos_label": "malignant"},
     skm.brier_score_loss(YT, PROBA, pos_label="malignant")),
    ("brier-pos-smaller", "brier_score", YT, PROBA, {"pos_label": "benign"},
     skm.brier_score_loss(YT, PROBA, pos_label="benign")),
    ("brier-1-2", "brier_score", Y12, PROBA, {}, skm.brier_score_loss(Y12, PROBA)),
    ("brier-3-text", "brier_score", Y3T, P3, {"labels": list(ANIMALS)},
     skm.brier_score_loss(Y3T, P3, labels=list(ANIMALS))),
]  # fmt: skip
for _name, _func in (
    ("precision", skm.precision_score),
    ("recall", skm.recall_score),
    ("f1", skm.f1_score),
):
    ESTIMATES += [
        (f"{_name}-pos-greater", _name, YT, PREDT, {"pos_label": "malignant"},
         _func(YT, PREDT, pos_label="malignant")),
        (f"{_name}-pos-smaller", _name, YT, PREDT, {"pos_label": "benign"},
         _func(YT, PREDT, pos_label="benign")),
        (f"{_name}-1-2", _name, Y12, PRED12, {}, _func(Y12, PRED12)),
        (f"{_name}-micro-text", _name, Y3T, PRED3T, {"average": "micro"},
         _func(Y3T, PRED3T, average="micro")),
        (f"{_name}-macro-labels", _name, Y3T, PRED3T,
         {"average": "macro", "labels": ["ant", "cat"]},
         _func(Y3T, PRED3T, average="macro", labels=["ant", "cat"])),
        (f"{_name}-micro-labels", _name, Y3T, PRED3T,
         {"average": "micro", "labels": ["bee"]},
         _func(Y3T, PRED3T, average="micro", labels=["bee"])),
        (f"{_name}-macro-labels-absent", _name, Y3, PRED3,
         {"average": "macro", "labels": [0, 1, 5], "zero_division": 0.0},
         _func(Y3, PRED3, average="macro", labels=[0, 1, 5], zero_division=0.0)),
        (f"{_name}-binary-ignores-labels", _name, YT, PREDT,
         {"pos_label": "benign", "labels": ["nothing"]},
         _func(YT, PREDT, pos_label="benign", labels=["nothing"])),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("metric", "y_true", "y_pred", "options", "expected"),
    [case[1:] for case in ESTIMATES],
    ids=[case[0] for case in ESTIMATES],
)
def test_estimate_equals_sklearn(metric, y_true, y_pred, options, expected):
    got = _estimate(y_true, y_pred, metric, **options)
    np.testing.assert_allclose(got, expected, **TOL)


# --------------------------------------------------------------------------- #
# The examples                                                          #
# --------------------------------------------------------------------------- #


def test_roc_auc_with_text_labels():
    """metric_ci(y, p, "roc_auc") with y in {"benign", "malignant"} used to fail
    ("must be an array of binary labels in {0, 1}")."""
    res = metric_ci(YT, SCORE, "roc_auc", n_resamples=B, random_state=0)
    np.testing.assert_allclose(res.estimate, skm.roc_auc_score(YT, SCORE), **TOL)
    ci = res.confidence_interval()
    assert ci.low < res.estimate < ci.high


def test_roc_auc_takes_pos_label():
    """pos_label used to be refused ("accepts the options []")."""
    res = metric_ci(
        YT, SCORE, "roc_auc", pos_label="benign", n_resamples=B, random_state=0
    )
    flipped = metric_ci(1 - Y, SCORE, "roc_auc", n_resamples=B, random_state=0)
    np.testing.assert_array_equal(res.distribution, flipped.distribution)
    assert res.estimate < 0.5


@pytest.mark.parametrize(
    "metric",
    [
        skm.roc_auc_score,
        "roc_auc",
        skm.make_scorer(skm.roc_auc_score, response_method="predict_proba"),
    ],
)
def test_sklearn_roc_auc_score_with_text_labels(metric):
    """The error message's own suggestion, sklearn.metrics.roc_auc_score, used to
    fail the same way: it maps to the fused kernel, now with scikit-learn's rule
    (the greater label is positive)."""
    text = metric_ci(YT, SCORE, metric, n_resamples=B, random_state=0)
    codes = metric_ci(Y, SCORE, metric, n_resamples=B, random_state=0)
    np.testing.assert_array_equal(text.distribution, codes.distribution)
    np.testing.assert_allclose(text.estimate, skm.roc_auc_score(YT, SCORE), **TOL)


# --------------------------------------------------------------------------- #
# Bit-identical replicates                                                      #
# --------------------------------------------------------------------------- #

# (metric, text call (y_true, y_pred, options), equivalent 0/1 call)
EQUIVALENT = [
    ("roc_auc", (YT, SCORE, {}), (Y, SCORE, {})),
    ("roc_auc", (YT, SCORE, {"pos_label": "benign"}), (1 - Y, SCORE, {})),
    ("average_precision", (YT, SCORE, {"pos_label": "malignant"}), (Y, SCORE, {})),
    ("average_precision", (YT, SCORE, {"pos_label": "benign"}), (1 - Y, SCORE, {})),
    ("precision", (YT, PREDT, {"pos_label": "malignant"}), (Y, PRED, {})),
    ("recall", (YT, PREDT, {"pos_label": "benign"}), (1 - Y, 1 - PRED, {})),
    ("f1", (YT, PREDT, {"pos_label": "malignant"}), (Y, PRED, {})),
    ("f1", (Y12, PRED12, {}), (1 - Y, 1 - PRED, {})),
    ("accuracy", (YT, PREDT, {}), (Y, PRED, {})),
    ("balanced_accuracy", (YT, PREDT, {}), (Y, PRED, {})),
    ("log_loss", (YT, PROBA, {}), (Y, PROBA, {})),
    ("log_loss", (YT, PROBA, {"pos_label": "benign"}), (1 - Y, PROBA, {})),
    ("brier_score", (YT, PROBA, {"pos_label": "malignant"}), (Y, PROBA, {})),
    ("brier_score", (Y12, PROBA, {}), (Y, PROBA, {})),
]


@pytest.mark.parametrize(
    ("metric", "text", "codes"),
    EQUIVALENT,
    ids=[f"{m}-{i}" for i, (m, *_) in enumerate(EQUIVALENT)],
)
def test_text_labels_draw_the_replicates_of_01_labels(metric, text, codes):
    runs = []
    for y_true, y_pred, options in (text, codes):
        runs.append(
            metric_ci(
                y_true,
                y_pred,
                metric,
                n_resamples=B,
                random_state=3,
                undefined="omit",
                **options,
            )
        )
    a, b = runs
    assert a.estimate == b.estimate
    np.testing.assert_array_equal(a.distribution, b.distribution)
    np.testing.assert_array_equal(a.undefined_replicates, b.undefined_replicates)
    assert tuple(a.confidence_interval()) == tuple(b.confidence_interval())


def test_stratified_text_labels_draw_the_replicates_of_01_labels():
    """Strata are the sorted classes: "benign" < "malignant" as 0 < 1."""
    kw = {"stratify": True, "n_resamples": B, "random_state": 5}
    a = metric_ci(YT, SCORE, "roc_auc", **kw)
    b = metric_ci(Y, SCORE, "roc_auc", **kw)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert tuple(a.confidence_interval()) == tuple(b.confidence_interval())


@pytest.mark.parametrize(
    ("metric", "text", "codes"),
    [
        ("f1", (PREDT, OTHERT, {"pos_label": "malignant"}), (PRED, OTHER, {})),
        ("roc_auc", (SCORE, PROBA, {}), (SCORE, PROBA, {})),
        ("brier_score", (PROBA, 1 - PROBA, {"pos_label": "malignant"}),
         (PROBA, 1 - PROBA, {})),
    ],
)  # fmt: skip
def test_compare_metrics_with_text_labels(metric, text, codes):
    (a_pred, b_pred, options), (a01, b01, _) = text, codes
    kw = {"n_resamples": B, "random_state": 1}
    got = compare_metrics(YT, a_pred, b_pred, metric, **kw, **options)
    ref = compare_metrics(Y, a01, b01, metric, **kw)
    np.testing.assert_array_equal(got.distribution, ref.distribution)
    assert got.estimate == ref.estimate and got.pvalue == ref.pvalue
    name = {"f1": "f1", "roc_auc": "roc_auc", "brier_score": "brier_score"}[metric]
    one = METRICS[name].prepare(YT, a_pred, **options)
    assert one.pos_label == "malignant"
    assert list(one.classes) == list(NAMES)


# --------------------------------------------------------------------------- #
# scikit-learn functions and partials as the metric                             #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("metric", "fused", "options", "y_pred", "expected"),
    [
        (functools.partial(skm.f1_score, pos_label="malignant"), "f1",
         {"pos_label": "malignant"}, PREDT, skm.f1_score(YT, PREDT, pos_label="malignant")),
        (functools.partial(skm.recall_score, pos_label="benign", zero_division=0.0),
         "recall", {"pos_label": "benign", "zero_division": 0.0}, PREDT,
         skm.recall_score(YT, PREDT, pos_label="benign")),
        (functools.partial(skm.average_precision_score, pos_label="benign"),
         "average_precision", {"pos_label": "benign"}, SCORE,
         skm.average_precision_score(YT, SCORE, pos_label="benign")),
        (functools.partial(skm.brier_score_loss, pos_label="malignant"),
         "brier_score", {"pos_label": "malignant"}, PROBA,
         skm.brier_score_loss(YT, PROBA, pos_label="malignant")),
        (skm.log_loss, "log_loss", {}, PROBA, skm.log_loss(YT, PROBA)),
    ],
)  # fmt: skip
def test_sklearn_partial_maps_to_the_fused_metric(
    metric, fused, options, y_pred, expected
):
    kw = {"n_resamples": B, "random_state": 2}
    got = metric_ci(YT, y_pred, metric, **kw)
    ref = metric_ci(YT, y_pred, fused, **kw, **options)
    np.testing.assert_allclose(got.estimate, expected, **TOL)
    np.testing.assert_array_equal(got.distribution, ref.distribution)
    assert got.metric == getattr(metric, "func", metric).__name__


def test_sklearn_function_with_pos_label_and_text_labels():
    got = metric_ci(
        YT,
        PREDT,
        skm.precision_score,
        pos_label="benign",
        n_resamples=B,
        random_state=4,
    )
    ref = metric_ci(1 - Y, 1 - PRED, "precision", n_resamples=B, random_state=4)
    np.testing.assert_array_equal(got.distribution, ref.distribution)


def test_generic_callable_with_text_labels_matches_the_fused_metric():
    """A plain callable (one call per replicate) sees the text labels as given."""

    def auc(y_true, y_score, sample_weight=None):
        return skm.roc_auc_score(y_true, y_score, sample_weight=sample_weight)

    kw = {"n_resamples": 60, "random_state": 6, "method": "percentile"}
    slow = metric_ci(YT, SCORE, auc, **kw)
    fast = metric_ci(YT, SCORE, "roc_auc", **kw)
    np.testing.assert_allclose(slow.distribution, fast.distribution, **TOL)
    np.testing.assert_allclose(slow.estimate, skm.roc_auc_score(YT, SCORE), **TOL)


def test_sklearn_function_without_pos_label_keeps_sklearn_error():
    """roc_auc_score has no pos_label: scikit-learn answers (generic path)."""
    from skboot import StatisticError

    with pytest.raises(StatisticError, match="pos_label"):
        metric_ci(YT, SCORE, skm.roc_auc_score, pos_label="benign", n_resamples=10)


def test_scorer_with_pos_label_none_and_macro_average():
    """scikit-learn's "f1_macro" scorer passes pos_label=None: accepted."""
    res = metric_ci(Y3T, PRED3T, "f1_macro", n_resamples=30, random_state=0)
    np.testing.assert_allclose(
        res.estimate, skm.f1_score(Y3T, PRED3T, average="macro"), **TOL
    )


# --------------------------------------------------------------------------- #
# Bad input                                                                     #
# --------------------------------------------------------------------------- #

_SK = np.array(["a", "b", "c", "a"])
_MIXED = np.array([0, "a", 1, "b"], dtype=object)
_S4 = np.array([0.1, 0.7, 0.4, 0.9])

BAD = [
    # a pos_label that is not a label: the parameter, the labels, what was given
    ("roc_auc", YT, SCORE, {"pos_label": "maligant"},
     r"The 'pos_label' parameter of roc_auc must be one of the labels of y_true "
     r"\(\['benign', 'malignant'\]\)\. Got 'maligant' instead\."),
    ("f1", YT, PREDT, {},
     r"The 'pos_label' parameter of f1 must be one of the labels of y_true and "
     r"y_pred \(\['benign', 'malignant'\]\)\. Got 1 instead\."),
    ("precision", Y, PRED, {"pos_label": "1"},
     r"'pos_label' parameter of precision must be one of the labels of y_true and "
     r"y_pred \(\[0, 1\]\)\. Got '1' instead"),
    ("average_precision", YT, SCORE, {},
     r"'pos_label' parameter of average_precision must be one of the labels of "
     r"y_true \(\['benign', 'malignant'\]\)\. Got 1 instead"),
    ("brier_score", YT, PROBA, {"pos_label": 1},
     r"'pos_label' parameter of brier_score must be one of the labels of y_true "
     r"\(\['benign', 'malignant'\]\)\. Got 1 instead"),
    ("log_loss", YT, PROBA, {"labels": list(NAMES), "pos_label": "other"},
     r"'pos_label' parameter of log_loss must be one of the labels of labels "
     r"\(\['benign', 'malignant'\]\)\. Got 'other' instead"),
    ("brier_score", YT, PROBA, {},
     r"'pos_label' parameter of brier_score must be given when y_true holds "
     r"strings \(\['benign', 'malignant'\]\)"),
    ("recall", YT, PREDT, {"pos_label": ["benign"]},
     r"'pos_label' parameter of recall must be a single class label\. Got "
     r"\['benign'\] instead"),
    ("f1", Y3T, PRED3T, {"average": "macro", "pos_label": "ant"},
     r"'pos_label' parameter of f1 must be None or 1 with average='macro' .*"
     r"labels=\[pos_label\].* Got 'ant' instead"),
    ("log_loss", YT, P2, {"pos_label": "benign"},
     r"'pos_label' parameter of log_loss must be None when y_pred is a matrix"),
    # more than two classes for a binary metric: the classes found
    ("roc_auc", Y3T, SCORE, {},
     r"'y_true' parameter of roc_auc must be an array of binary labels \(two "
     r"classes at most\)\. Got 3 classes \['ant', 'bee', 'cat'\] instead"),
    ("average_precision", Y3, SCORE, {"pos_label": 2},
     r"'y_true' parameter of average_precision must be an array of binary labels "
     r"\(two classes at most\)\. Got 3 classes \[0, 1, 2\]"),
    ("f1", Y3T, PRED3T, {"pos_label": "ant"},
     r"'y_true' parameter of f1 must be an array of binary labels with "
     r"average='binary' \(two classes in y_true and y_pred together; pass "
     r"average='micro' or 'macro' for more\)\. Got 3 classes \['ant', 'bee', 'cat'\]"),
    ("precision", YT, np.where(PRED == 1, "malignant", "unknown"),
     {"pos_label": "malignant"},
     r"'y_pred' parameter of precision must be an array of binary labels with "
     r"average='binary' .* Got 3 classes \['benign', 'malignant', 'unknown'\]"),
    ("log_loss", Y3T, PROBA, {},
     r"'y_true' parameter of log_loss must be an array of binary labels \(two "
     r"classes at most\) when y_pred is 1-d; .* Got 3 classes \['ant', 'bee', 'cat'\]"),
    ("brier_score", Y3, PROBA, {},
     r"'y_true' parameter of brier_score must be an array of binary labels .* Got 3 "
     r"classes \[0, 1, 2\]"),
    # mixed label types
    ("roc_auc", _MIXED, _S4, {},
     r"'y_true' parameter of roc_auc must be an array of class labels of one type "
     r"\(all numbers or all strings\)\. Got labels of mixed types instead"),
    ("f1", YT, PRED, {"pos_label": "malignant"},
     r"'y_pred' parameter of f1 must be an array of labels of the same type as "
     r"y_true \(numbers or strings\)\. Got dtype int64 with y_true of dtype <U9"),
    ("f1", Y3T, PRED3T, {"average": "micro", "labels": [0, 1]},
     r"'labels' parameter of f1 must be an array of labels of the same type as "
     r"y_true \(numbers or strings\)\. Got dtype int64 with y_true of dtype <U3"),
    ("log_loss", Y3T, P3, {"labels": [0, 1, 2]},
     r"'labels' parameter of log_loss must be an array of labels of the same type "
     r"as y_true"),
    # labels=
    ("recall", Y3T, PRED3T, {"average": "macro", "labels": ["ant", "ant"]},
     r"'labels' parameter of recall must be an array of distinct class labels\. "
     r"Got \['ant', 'ant'\] instead"),
    ("log_loss", YT, PROBA, {"labels": ["benign", "malignant", "other"]},
     r"'y_pred' parameter of log_loss must be a matrix with one column per label in "
     r"labels \(3\)\. Got a 1-d array \(2 classes\) instead"),
    ("log_loss", np.array(["a", "a", "a", "a"]), _S4, {},
     r"'y_true' parameter of log_loss must be an array holding both classes when "
     r"y_pred is 1-d, unless labels= or pos_label= names them\. Got the one class "
     r"\['a'\] instead"),
    ("accuracy", _SK, np.array([0, 1, 1, 0]), {},
     r"'y_pred' parameter of accuracy must be an array of labels of the same type "
     r"as y_true"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("metric", "y_true", "y_pred", "options", "match"),
    BAD,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD)],
)
def test_bad_labels_are_refused_before_any_work(metric, y_true, y_pred, options, match):
    with pytest.raises(ValueError, match=match):
        metric_ci(y_true, y_pred, metric, n_resamples=10, random_state=0, **options)
    with pytest.raises(ValueError, match=match):
        METRICS[metric].prepare(y_true, y_pred, **options)


def test_bad_labels_in_compare_metrics_name_the_prediction():
    match = (
        r"'y_pred' parameter of f1 must be an array of binary labels .* Got 3 "
        r"classes \['benign', 'malignant', 'other'\] instead\. \(in 'y_pred_b' of "
        r"compare_metrics\)"
    )
    with pytest.raises(ValueError, match=match):
        compare_metrics(
            YT,
            PREDT,
            np.where(OTHER == 1, "malignant", "other"),
            "f1",
            pos_label="benign",
            n_resamples=10,
        )
