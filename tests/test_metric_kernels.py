"""Tests of the metric kernels (skboot._kernels.metric, prepared by
skboot.metrics) against scikit-learn on bootstrap replicates.

Each kernel, given ``w = bincount(idx) * sample_weight``, must equal the
scikit-learn metric on ``(y_true[idx], y_pred[idx], sample_weight[idx])`` to
rtol = atol = 1e-12, or be NaN exactly on the replicates documented as undefined.
"""

from __future__ import annotations

import inspect
import math

import numba
import numpy as np
import pytest
from numba.core import types
from sklearn import metrics as skm

from skboot._kernels.metric import (
    KID_ROC,
    _eval_one,
    _metric_chunk,
    _metric_loo,
    eval_metric,
    eval_packed,
    metric_chunk,
    metric_loo,
)
from skboot.metrics import (
    METRICS,
    PreparedMetric,
    is_undefined,
    metric_on_weights,
    pack,
)

TOL = {"rtol": 1e-12, "atol": 1e-12}
SIZES = (7, 50, 500)
SEEDS = (0, 1, 2)
N_REPLICATES = 4


# --------------------------------------------------------------------------- #
# Data                                                                          #
# --------------------------------------------------------------------------- #


def _binary_labels(rng, n):
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]  # both classes in the full data
    return y


def make_data(kind, rng, n):
    """Return (y_true, y_pred) of one data kind."""
    if kind == "binary_labels":
        y = _binary_labels(rng, n)
        flip = rng.random(n) < 0.3
        return y, np.where(flip, 1 - y, y)
    if kind == "multiclass_labels":
        y = rng.integers(0, 3, n)
        y[:3] = [0, 1, 2]
        pred = np.where(rng.random(n) < 0.4, rng.integers(0, 3, n), y)
        return y, pred
    if kind == "string_labels":
        names = np.array(["ant", "bee", "cat"])
        y, pred = make_data("multiclass_labels", rng, n)
        return names[y], names[pred]
    if kind == "binary_scores":
        y = _binary_labels(rng, n)
        # Rounded to one decimal: many ties, within and across classes.
        return y, np.round(rng.normal(0.6 * y, 1.0), 1)
    if kind == "binary_proba":
        y = _binary_labels(rng, n)
        # Rounded to one decimal: ties and exact 0 / 1 (log_loss clipping).
        return y, np.round(np.clip(rng.normal(0.3 + 0.4 * y, 0.3), 0, 1), 1)
    if kind == "multiclass_proba":
        y = rng.integers(0, 3, n)
        y[:3] = [0, 1, 2]
        p = rng.dirichlet([1.0, 1.0, 1.0], n)
        p[: n // 3, 1] = 0.0  # exact zeros, clipped by log_loss
        p /= p.sum(axis=1, keepdims=True)
        return y, p
    if kind == "regression":
        y = rng.normal(size=n)
        return y, y + rng.normal(scale=0.7, size=n)
    if kind.startswith("binary_text_"):  # "no" / "yes" for 0 / 1
        names = np.array(["no", "yes"])
        y, pred = make_data(kind.replace("text_", ""), rng, n)
        return names[y], (names[pred] if kind == "binary_text_labels" else pred)
    raise AssertionError(kind)


def _bacc_reference(yt, yp, sw, y_full):
    if not np.array_equal(np.unique(yt), np.unique(y_full)):
        return math.nan
    return skm.balanced_accuracy_score(yt, yp, sample_weight=sw)


def _roc_auc_reference(yt, yp, sw, y_full):
    if np.unique(yt).shape[0] < 2:
        return math.nan
    return skm.roc_auc_score(yt, yp, sample_weight=sw)


def _ap_reference(yt, yp, sw, y_full):
    if not (yt == 1).any():
        return math.nan
    return skm.average_precision_score(yt, yp, sample_weight=sw)


def _r2_reference(force_finite):
    def reference(yt, yp, sw, y_full):
        if np.unique(yt).shape[0] < 2 and not force_finite:
            return math.nan
        return skm.r2_score(yt, yp, sample_weight=sw, force_finite=force_finite)

    return reference


def _prf_reference(func, average, zero_division):
    def reference(yt, yp, sw, y_full):
        return func(
            yt, yp, sample_weight=sw, average=average, zero_division=zero_division
        )

    return reference


def _positive_reference(func, pos_label, **options):
    """``func`` with ``pos_label``; NaN where the fused metric is undefined:
    a replicate of one class for ROC AUC, without positive for average
    precision."""

    def reference(yt, yp, sw, y_full):
        if func is skm.roc_auc_score:
            if np.unique(yt).shape[0] < 2:
                return math.nan
            return func(yt == pos_label, yp, sample_weight=sw)
        if func is skm.average_precision_score and not (yt == pos_label).any():
            return math.nan
        if func is skm.log_loss:  # y_pred: the probability of pos_label
            labels = [False, True]
            return func(yt == pos_label, yp, sample_weight=sw, labels=labels)
        return func(yt, yp, sample_weight=sw, pos_label=pos_label, **options)

    return reference


def _listed_reference(func, average, zero_division, labels):
    def reference(yt, yp, sw, y_full):
        return func(
            yt,
            yp,
            sample_weight=sw,
            average=average,
            zero_division=zero_division,
            labels=labels,
        )

    return reference


def _proba_reference(func):
    def reference(yt, yp, sw, y_full):
        return func(yt, yp, sample_weight=sw, labels=np.unique(y_full))

    return reference


def _plain_reference(func):
    def reference(yt, yp, sw, y_full):
        return func(yt, yp, sample_weight=sw)

    return reference


# (metric, options, data kind, reference on the resampled rows)
CASES = [
    ("accuracy", {}, "binary_labels", _plain_reference(skm.accuracy_score)),
    ("accuracy", {}, "multiclass_labels", _plain_reference(skm.accuracy_score)),
    ("accuracy", {}, "string_labels", _plain_reference(skm.accuracy_score)),
    ("balanced_accuracy", {}, "binary_labels", _bacc_reference),
    ("balanced_accuracy", {}, "multiclass_labels", _bacc_reference),
    ("balanced_accuracy", {}, "string_labels", _bacc_reference),
    ("roc_auc", {}, "binary_scores", _roc_auc_reference),
    ("roc_auc", {}, "binary_proba", _roc_auc_reference),
    ("average_precision", {}, "binary_scores", _ap_reference),
    ("average_precision", {}, "binary_proba", _ap_reference),
    ("log_loss", {}, "binary_proba", _proba_reference(skm.log_loss)),
    ("log_loss", {}, "multiclass_proba", _proba_reference(skm.log_loss)),
    ("brier_score", {}, "binary_proba", _plain_reference(skm.brier_score_loss)),
    ("brier_score", {}, "multiclass_proba", _proba_reference(skm.brier_score_loss)),
    ("mean_squared_error", {}, "regression", _plain_reference(skm.mean_squared_error)),
    (
        "root_mean_squared_error",
        {},
        "regression",
        _plain_reference(skm.root_mean_squared_error),
    ),
    (
        "mean_absolute_error",
        {},
        "regression",
        _plain_reference(skm.mean_absolute_error),
    ),
    ("r2", {}, "regression", _r2_reference(False)),
    ("r2", {"force_finite": True}, "regression", _r2_reference(True)),
]
_PRF = {
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
}
for _name, _func in _PRF.items():
    for _zd in (np.nan, 0.0, 1.0):
        _options = {"zero_division": _zd}
        CASES.append(
            (
                _name,
                {"average": "binary", **_options},
                "binary_labels",
                _prf_reference(_func, "binary", _zd),
            )
        )
        for _average in ("micro", "macro"):
            for _kind in ("binary_labels", "multiclass_labels", "string_labels"):
                CASES.append(
                    (
                        _name,
                        {"average": _average, **_options},
                        _kind,
                        _prf_reference(_func, _average, _zd),
                    )
                )


# Text labels and pos_label (scikit-learn's rules), labels= of micro / macro.
for _pos in ("yes", "no"):
    for _name, _func in (
        ("roc_auc", skm.roc_auc_score),
        ("average_precision", skm.average_precision_score),
    ):
        CASES.append(
            (
                _name,
                {"pos_label": _pos},
                "binary_text_scores",
                _positive_reference(_func, _pos),
            )
        )
    for _name, _func in (
        ("log_loss", skm.log_loss),
        ("brier_score", skm.brier_score_loss),
    ):
        CASES.append(
            (
                _name,
                {"pos_label": _pos},
                "binary_text_proba",
                _positive_reference(_func, _pos),
            )
        )
    for _name, _func in _PRF.items():
        for _zd in (np.nan, 0.0):
            CASES.append(
                (
                    _name,
                    {"pos_label": _pos, "zero_division": _zd},
                    "binary_text_labels",
                    _positive_reference(_func, _pos, zero_division=_zd),
                )
            )
CASES.append(("roc_auc", {}, "binary_text_scores", _roc_auc_reference))
CASES.append(("log_loss", {}, "binary_text_proba", _proba_reference(skm.log_loss)))
_LISTED = (
    ("multiclass_labels", [0, 2]),
    ("multiclass_labels", [0, 1, 2, 3]),  # 3: a class never seen
    ("string_labels", ["ant", "cat", "dog"]),
)
for _name, _func in _PRF.items():
    for _zd in (np.nan, 1.0):
        for _average in ("micro", "macro"):
            for _kind, _labels in _LISTED:
                CASES.append(
                    (
                        _name,
                        {"average": _average, "zero_division": _zd, "labels": _labels},
                        _kind,
                        _listed_reference(_func, _average, _zd, _labels),
                    )
                )


def _case_id(case):
    name, options, kind, _ = case
    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{name}[{opts}]-{kind}"


def _replicates(rng, n, n_rep):
    """Bootstrap index arrays: uniform ones plus, for small n, lopsided ones
    (few distinct rows) that make undefined replicates likely."""
    for r in range(n_rep):
        if r == n_rep - 1 and n <= 50:
            yield rng.choice(rng.choice(n, 2, replace=False), n)
        else:
            yield rng.integers(0, n, n)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_kernel_matches_sklearn_on_replicates(case):
    name, options, kind, reference = case
    spec = METRICS[name]
    n_checked = 0
    for seed in SEEDS:
        for n in SIZES:
            rng = np.random.default_rng([seed, n])
            y_true, y_pred = make_data(kind, rng, n)
            prepared = spec.prepare(y_true, y_pred, **options)
            assert prepared.n_samples == n
            for weighted in (False, True):
                sw = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
                for idx in _replicates(rng, n, N_REPLICATES):
                    w = np.bincount(idx, minlength=n) * sw
                    got = spec.kernel(*prepared.args, w)
                    expected = reference(
                        y_true[idx],
                        y_pred[idx],
                        sw[idx] if weighted else None,
                        y_true,
                    )
                    np.testing.assert_allclose(got, expected, equal_nan=True, **TOL)
                    n_checked += not math.isnan(expected)
    assert n_checked >= 40  # most replicates are well defined


def test_balanced_accuracy_extra_predicted_class():
    # y_pred holds a class never in y_true: scikit-learn warns and averages over
    # the classes of y_true, which is the kernel's value.
    y_true = np.array([0, 1, 1, 0, 1, 0, 0])
    y_pred = np.array([0, 1, 2, 2, 1, 0, 1])
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 7, 7)
    idx[:3] = [0, 1, 2]  # both classes of y_true and the extra class 2
    w = np.bincount(idx, minlength=7).astype(float)
    got = metric_on_weights("balanced_accuracy", y_true, y_pred, w)
    with pytest.warns(UserWarning, match="y_pred contains classes not in y_true"):
        expected = skm.balanced_accuracy_score(y_true[idx], y_pred[idx])
    np.testing.assert_allclose(got, expected, **TOL)


def test_roc_auc_and_average_precision_on_all_tied_scores():
    y_true = np.array([0, 1, 1, 0, 1])
    scores = np.full(5, 0.3)
    w = np.array([1.0, 2.0, 0.0, 3.0, 1.0])
    idx = np.repeat(np.arange(5), w.astype(int))
    assert metric_on_weights("roc_auc", y_true, scores, w) == 0.5
    np.testing.assert_allclose(
        metric_on_weights("average_precision", y_true, scores, w),
        skm.average_precision_score(y_true[idx], scores[idx]),
        **TOL,
    )


# --------------------------------------------------------------------------- #
# Undefined replicates                                                          #
# --------------------------------------------------------------------------- #

_YB = np.array([0, 1, 0, 1, 1])
_W_ONLY_NEG = np.array([2.0, 0.0, 3.0, 0.0, 0.0])
_W_ONLY_POS = np.array([0.0, 2.0, 0.0, 1.0, 2.0])
_YM = np.array([0, 1, 2, 0, 1])

UNDEFINED = [
    ("roc_auc", _YB, np.array([0.1, 0.5, 0.2, 0.9, 0.9]), {}, _W_ONLY_NEG),
    ("roc_auc", _YB, np.array([0.1, 0.5, 0.2, 0.9, 0.9]), {}, _W_ONLY_POS),
    ("average_precision", _YB, np.array([0.1, 0.5, 0.2, 0.9, 0.9]), {}, _W_ONLY_NEG),
    ("balanced_accuracy", _YB, _YB, {}, _W_ONLY_NEG),
    ("balanced_accuracy", _YM, _YM, {}, np.array([1.0, 1.0, 0.0, 1.0, 1.0])),
    ("precision", _YB, np.zeros(5, int), {}, np.ones(5)),
    ("recall", _YB, _YB, {}, _W_ONLY_NEG),
    ("f1", _YB, np.zeros(5, int), {}, _W_ONLY_NEG),
    ("r2", np.array([1.0, 1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0, 3.0]), {},
     np.array([1.0, 3.0, 0.0, 0.0])),
    ("r2", np.array([1.0, 1.0, 2.0, 3.0]), np.array([1.0, 1.0, 2.0, 3.0]), {},
     np.array([1.0, 3.0, 0.0, 0.0])),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "y_true", "y_pred", "options", "w"),
    UNDEFINED,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(UNDEFINED)],
)
def test_undefined_replicate_is_nan(name, y_true, y_pred, options, w):
    assert is_undefined(metric_on_weights(name, y_true, y_pred, w, **options))


_KIND = {
    "accuracy": "multiclass_labels",
    "balanced_accuracy": "multiclass_labels",
    "precision": "binary_labels",
    "recall": "binary_labels",
    "f1": "binary_labels",
    "roc_auc": "binary_scores",
    "average_precision": "binary_scores",
    "log_loss": "multiclass_proba",
    "brier_score": "binary_proba",
    "mean_squared_error": "regression",
    "root_mean_squared_error": "regression",
    "mean_absolute_error": "regression",
    "r2": "regression",
}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_all_zero_weights_are_undefined(name):
    y_true, y_pred = make_data(_KIND[name], np.random.default_rng(0), 10)
    assert is_undefined(metric_on_weights(name, y_true, y_pred, np.zeros(10)))


def test_defined_edge_cases():
    y = _YB
    s = np.array([0.1, 0.5, 0.2, 0.9, 0.9])
    # No negatives: average precision is 1, as in scikit-learn.
    assert metric_on_weights("average_precision", y, s, _W_ONLY_POS) == 1.0
    # zero_division given: a value, not NaN.
    zeros = np.zeros(5, int)
    assert metric_on_weights("precision", y, zeros, np.ones(5), zero_division=1.0) == 1
    assert metric_on_weights("f1", y, zeros, _W_ONLY_NEG, zero_division=0.0) == 0.0
    # macro with zero_division=nan leaves out the ill-defined class.
    yt = np.array([0, 1, 0])
    yp = np.array([0, 0, 2])
    got = metric_on_weights("recall", yt, yp, np.ones(3), average="macro")
    assert got == skm.recall_score(yt, yp, average="macro", zero_division=np.nan)
    # r2 with force_finite: scikit-learn's finite values.
    yt = np.array([1.0, 1.0, 2.0, 3.0])
    w = np.array([1.0, 3.0, 0.0, 0.0])
    assert metric_on_weights("r2", yt, yt + 1, w, force_finite=True) == 0.0
    assert metric_on_weights("r2", yt, yt, w, force_finite=True) == 1.0
    # log_loss is defined on a replicate holding one class (classes fixed).
    p = np.array([0.2, 0.7, 0.4, 0.6, 1.0])
    got = metric_on_weights("log_loss", y, p, _W_ONLY_NEG)
    expected = skm.log_loss([0, 0, 0, 0, 0], [0.2, 0.2, 0.4, 0.4, 0.4], labels=[0, 1])
    np.testing.assert_allclose(got, expected, **TOL)


# --------------------------------------------------------------------------- #
# Kernel manners                                                                #
# --------------------------------------------------------------------------- #


@numba.njit
def _drive(kernel, args, W, out):
    for r in range(W.shape[0]):
        out[r] = kernel(*args, W[r])


def _prepared_examples():
    rng = np.random.default_rng(5)
    for name, options, kind, _ in CASES:
        y_true, y_pred = make_data(kind, rng, 30)
        yield METRICS[name].prepare(y_true, y_pred, **options)


def test_kernels_callable_from_numba_with_one_signature():
    rng = np.random.default_rng(6)
    W = np.stack(
        [np.bincount(rng.integers(0, 30, 30), minlength=30) for _ in range(3)]
    ).astype(np.float64)
    for prepared in _prepared_examples():
        assert isinstance(prepared, PreparedMetric)
        assert prepared.kernel is METRICS[prepared.name].kernel
        for arg in prepared.args:
            if isinstance(arg, np.ndarray):
                assert arg.dtype in (np.float64, np.int64)
                assert arg.flags.c_contiguous
            else:
                assert type(arg) in (int, float, bool)
        out = np.empty(3)
        _drive(prepared.kernel, prepared.args, W, out)
        expected = [prepared.kernel(*prepared.args, W[r]) for r in range(3)]
        np.testing.assert_array_equal(out, expected)
    for spec in METRICS.values():
        assert len(spec.kernel.signatures) == 1, spec.name


def test_registry_metadata():
    assert set(METRICS) == {
        "accuracy",
        "balanced_accuracy",
        "precision",
        "recall",
        "f1",
        "roc_auc",
        "average_precision",
        "log_loss",
        "brier_score",
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
        "r2",
    }
    losses = {
        "log_loss",
        "brier_score",
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
    }
    for name, spec in METRICS.items():
        assert spec.name == name
        assert spec.greater_is_better == (name not in losses)
        assert spec.needs_proba == (name in ("log_loss", "brier_score"))
        assert spec.undefined_when
        keyword_only = [
            p.name
            for p in inspect.signature(spec.prepare).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        ]
        assert tuple(keyword_only) == spec.options, name


def test_metric_on_weights_matches_sample_weight_on_original_rows():
    rng = np.random.default_rng(7)
    y, p = make_data("binary_proba", rng, 40)
    w = rng.poisson(1.0, 40) * rng.uniform(0.5, 2.0, 40)
    np.testing.assert_allclose(
        metric_on_weights("brier_score", y, p, w),
        skm.brier_score_loss(y, p, sample_weight=w),
        **TOL,
    )


# --------------------------------------------------------------------------- #
# Validation messages                                                           #
# --------------------------------------------------------------------------- #

_B = np.array([0, 1, 1, 0])
_P = np.array([0.1, 0.8, 0.6, 0.3])
_R = np.array([1.0, 2.0, 3.0, 4.0])
_PM = np.array([[0.2, 0.8], [0.5, 0.5], [0.9, 0.1], [0.3, 0.7]])

INVALID = [
    # shapes and lengths
    ("accuracy", [], [], {}, r"'y_true' parameter of accuracy must be a non-empty 1-d array\. Got an array of shape \(0,\)"),
    ("mean_squared_error", _R.reshape(2, 2), _R, {}, r"'y_true' parameter of mean_squared_error must be a non-empty 1-d array\. Got an array of shape \(2, 2\)"),
    ("roc_auc", _B, _P[:3], {}, r"'y_pred' parameter of roc_auc must be an array with as many rows as y_true \(4\)\. Got 3 rows"),
    ("log_loss", _B, np.zeros((4, 2, 1)), {}, r"'y_pred' parameter of log_loss must be a non-empty array with 1 or 2 dimensions"),
    # non-finite and non-numeric values
    ("mean_absolute_error", _R, np.array([1.0, np.nan, 2.0, 3.0]), {}, r"'y_pred' parameter of mean_absolute_error must contain only finite values\. Got 1 NaN or infinite value\(s\)"),
    ("r2", np.array([1.0, np.inf, 2.0, 3.0]), _R, {}, r"'y_true' parameter of r2 must contain only finite values"),
    ("mean_squared_error", np.array(["a", "b", "c", "d"]), _R, {}, r"'y_true' parameter of mean_squared_error must contain real numbers\. Got dtype <U1"),
    ("roc_auc", _B, np.array([0.1, np.nan, 0.2, 0.3]), {}, r"'y_pred' parameter of roc_auc must contain only finite values"),
    ("accuracy", np.array([0.0, np.nan, 1.0, 1.0]), _B, {}, r"'y_true' parameter of accuracy must be an array of class labels without NaN or infinity"),
    ("accuracy", np.array([0, "a", 1, 2], dtype=object), _B, {}, r"'y_true' parameter of accuracy must be an array of class labels of one type"),
    ("accuracy", np.array(["a", "b", "a", "b"]), _B, {}, r"'y_pred' parameter of accuracy must be an array of labels of the same type as y_true"),
    # binary labels
    ("roc_auc", np.array([0, 1, 2, 1]), _P, {}, r"'y_true' parameter of roc_auc must be an array of binary labels \(two classes at most\)\. Got 3 classes \[0, 1, 2\]"),
    ("average_precision", np.array(["n", "y", "y", "n"]), _P, {}, r"'pos_label' parameter of average_precision must be one of the labels of y_true \(\['n', 'y'\]\)\. Got 1 instead"),
    ("precision", _B, np.array([0, 1, 2, 1]), {}, r"'y_pred' parameter of precision must be an array of binary labels with average='binary' \(two classes in y_true and y_pred together; pass average='micro' or 'macro' for more\)\. Got 3 classes \[0, 1, 2\]"),
    ("recall", np.array(["n", "y", "y", "n"]), _B, {}, r"'y_pred' parameter of recall must be an array of labels of the same type as y_true \(numbers or strings\)\. Got dtype int64 with y_true of dtype <U1"),
    ("log_loss", np.array([0, 1, 2, 1]), _P, {}, r"'y_true' parameter of log_loss must be an array of binary labels \(two classes at most\) when y_pred is 1-d; .* Got 3 classes \[0, 1, 2\]"),
    ("brier_score", np.array(["n", "y", "y", "n"]), _P, {}, r"'pos_label' parameter of brier_score must be given when y_true holds strings \(\['n', 'y'\]\)"),
    # options
    ("f1", _B, _B, {"average": "weighted"}, r"'average' parameter of f1 must be one of \{'binary', 'micro', 'macro'\}\. Got 'weighted'"),
    ("precision", _B, _B, {"average": None}, r"'average' parameter of precision must be one of .* Got None"),
    ("recall", _B, _B, {"zero_division": "warn"}, r"'zero_division' parameter of recall must be one of \{0\.0, 1\.0, nan\}\. Got 'warn'"),
    ("f1", _B, _B, {"zero_division": 0.5}, r"'zero_division' parameter of f1 must be one of \{0\.0, 1\.0, nan\}\. Got 0\.5"),
    ("precision", _B, _B, {"zero_division": True}, r"'zero_division' parameter of precision must be one of .* Got True"),
    ("r2", _R, _R, {"force_finite": "yes"}, r"'force_finite' parameter of r2 must be True or False\. Got 'yes'"),
    # probabilities
    ("log_loss", _B, np.array([0.1, 1.2, 0.5, 0.3]), {}, r"'y_pred' parameter of log_loss must be an array of probabilities in \[0, 1\]\. Got values in \[0\.1, 1\.2\]"),
    ("brier_score", _B, np.array([-0.1, 0.2, 0.5, 0.3]), {}, r"'y_pred' parameter of brier_score must be an array of probabilities in \[0, 1\]\. Got values in \[-0\.1, 0\.5\]"),
    ("log_loss", _B, np.array([[0.2, 0.7], [0.5, 0.5], [0.9, 0.1], [0.3, 0.7]]), {}, r"'y_pred' parameter of log_loss must be a matrix of probabilities whose rows sum to 1\. Got 1 row\(s\) that do not \(row 0 sums to 0\.89999"),
    ("log_loss", np.array([0, 1, 2, 1]), _PM, {}, r"'y_pred' parameter of log_loss must be a matrix with one column per class of y_true \(\[0, 1, 2\]; pass labels= to list classes absent from y_true\)\. Got 2 columns"),
    ("brier_score", np.array([0, 1, 1, 0]), _PM, {"labels": [0, 1, 2]}, r"'y_pred' parameter of brier_score must be a matrix with one column per label in labels \(3\)\. Got 2 columns"),
    ("log_loss", np.array([0, 1, 3, 0]), _PM, {"labels": [0, 1]}, r"'y_true' parameter of log_loss must be an array of labels listed in labels \(\[0, 1\]\)\. Got labels \[3\]"),
    ("log_loss", _B, _PM, {"labels": [1, 1]}, r"'labels' parameter of log_loss must be an array of at least 2 distinct class labels\. Got \[1, 1\]"),
    ("brier_score", _B, _P, {"labels": [0, 1]}, r"'labels' parameter of brier_score must be None when y_pred is 1-d"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "y_true", "y_pred", "options", "match"),
    INVALID,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(INVALID)],
)
def test_prepare_rejects_invalid_input(name, y_true, y_pred, options, match):
    with pytest.raises(ValueError, match=match):
        METRICS[name].prepare(y_true, y_pred, **options)


@pytest.mark.parametrize(
    ("name", "w", "match"),
    [
        ("nope", np.ones(4), r"'name' parameter of metric_on_weights must be a str among \['accuracy'"),
        ("accuracy", np.ones(3), r"'w' parameter of metric_on_weights must be a 1-d array of length 4\. Got shape \(3,\)"),
        ("accuracy", np.ones((4, 1)), r"'w' parameter of metric_on_weights must be a 1-d array of length 4\. Got shape \(4, 1\)"),
        ("accuracy", np.array([1.0, -1.0, 0.0, 1.0]), r"'w' parameter of metric_on_weights must be an array of non-negative weights\. Got minimum -1\.0"),
        ("accuracy", np.array([1.0, np.nan, 0.0, 1.0]), r"'w' parameter of metric_on_weights must contain only finite values"),
    ],
)  # fmt: skip
def test_metric_on_weights_rejects_invalid_input(name, w, match):
    with pytest.raises(ValueError, match=match):
        metric_on_weights(name, _B, _B, w)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="average"):
        metric_on_weights("mean_squared_error", _R, _R, np.ones(4), average="macro")


# --------------------------------------------------------------------------- #
# Packed drivers (one numba call per chunk; leave-one-out values)               #
# --------------------------------------------------------------------------- #


def _weights(rng, n, n_rep):
    W = np.stack(
        [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(n_rep)]
    )
    return W.astype(np.float64)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_metric_chunk_equals_the_kernel(case):
    name, options, kind, _ = case
    rng = np.random.default_rng(11)
    y_true, y_pred = make_data(kind, rng, 40)
    prepared = METRICS[name].prepare(y_true, y_pred, **options)
    p = pack(prepared)
    sw = rng.uniform(0.2, 3.0, 40)
    W = _weights(rng, 40, 5)
    for weighted in (False, True):
        out = np.empty((5, 1))
        metric_chunk(p, p, False, sw, weighted, W.copy(), out)
        expected = [
            prepared.kernel(*prepared.args, W[r] * sw if weighted else W[r])
            for r in range(5)
        ]
        np.testing.assert_allclose(out[:, 0], expected, equal_nan=True, **TOL)
        assert eval_packed(p, sw) == prepared.kernel(*prepared.args, sw) or (
            math.isnan(eval_packed(p, sw))
        )
    # paired difference of two predictions under the same metric
    _, other_pred = make_data(kind, np.random.default_rng(12), 40)
    other = METRICS[name].prepare(y_true, other_pred, **options)
    out = np.empty((5, 1))
    metric_chunk(p, pack(other), True, sw, True, W.copy(), out)
    expected = [
        prepared.kernel(*prepared.args, W[r] * sw)
        - other.kernel(*other.args, W[r] * sw)
        for r in range(5)
    ]
    np.testing.assert_allclose(out[:, 0], expected, equal_nan=True, **TOL)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_metric_loo_equals_the_kernel_with_one_weight_zeroed(case):
    name, options, kind, _ = case
    rng = np.random.default_rng(13)
    for n in (7, 60):
        y_true, y_pred = make_data(kind, rng, n)
        prepared = METRICS[name].prepare(y_true, y_pred, **options)
        p = pack(prepared)
        sw = rng.uniform(0.2, 3.0, n) * (rng.random(n) < 0.8)  # some zero weights
        sw[0] = 1.0
        out = np.empty(n)
        metric_loo(p, p, False, sw, out)
        for i in range(n):
            w = sw.copy()
            w[i] = 0.0
            expected = prepared.kernel(*prepared.args, w)
            np.testing.assert_allclose(out[i], expected, equal_nan=True, **TOL)


def test_drivers_compile_once_per_metric():
    # the drivers called from Python are compiled for the metric's id (a literal):
    # one version per id, whatever the call, and never a generic int64 version
    rng = np.random.default_rng(14)
    y_true, y_pred = make_data("binary_scores", rng, 20)
    p = pack(METRICS["roc_auc"].prepare(y_true, y_pred))
    for _ in range(2):
        out = np.empty((2, 1))
        metric_chunk(p, p, False, np.ones(20), False, _weights(rng, 20, 2), out)
        metric_loo(p, p, True, np.ones(20), np.empty(20))
        eval_metric(p, np.ones(20))
    for driver in (_eval_one, _metric_chunk, _metric_loo):
        ids = [
            tuple(t.literal_value for t in sig if isinstance(t, types.Literal))
            for sig in driver.signatures
        ]
        assert ids and all(ids), driver  # literal ids only
        roc = [k for k in ids if set(k) == {KID_ROC}]
        assert len(roc) == 1, driver
    assert len(eval_packed.signatures) <= 1
