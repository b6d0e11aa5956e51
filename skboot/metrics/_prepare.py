"""Preparing a metric: ``prepare_<metric>(y_true, y_pred, **options)`` validates the
inputs once per dataset and precomputes everything that does not depend on the
replicate's weights ``w``: per-row losses, integer class codes, and for the
ranking metrics the argsort of the scores and the boundaries of the groups of tied
scores.  It returns a :class:`PreparedMetric` whose ``args`` are float64 / int64
arrays and scalars, and whose kernel (:mod:`skboot._kernels.metric`) evaluates
``kernel(*args, w)`` on any replicate in O(n).

The value of ``kernel(*args, w)`` equals the scikit-learn metric evaluated on the
resampled rows ``(y_true[idx], y_pred[idx], sample_weight[idx])`` to
floating-point rounding (the tests ask for 1e-12).  Rows with ``w[i] == 0`` count
as not drawn, so a row drawn with a zero ``sample_weight`` is treated as absent.
Class labels may be numbers or strings (of one type); the positive class of a
binary metric is chosen as scikit-learn chooses it, per metric
(:mod:`skboot.metrics._labels`), or named by ``pos_label``, and the labels are
encoded once, so text labels give the very replicates of the equivalent 0/1
labels.  The conventions matched, per metric:

- ``accuracy``: weighted mean of ``y_true == y_pred`` (any labels).
- ``balanced_accuracy``: mean recall over the classes of ``y_true``.  Undefined
  when the replicate lacks a class present in the full ``y_true`` (scikit-learn
  would silently average over fewer classes, another estimand).
- ``precision``, ``recall``, ``f1`` with ``average`` in {"binary", "micro",
  "macro"} and ``zero_division`` in {0.0, 1.0, nan} as in scikit-learn.
  "binary" takes two classes at most and scores ``pos_label`` (default 1, which
  must then be a label, as in scikit-learn); "micro" and "macro" take any labels,
  and like scikit-learn on the resampled data they average over the classes
  present in the replicate (in ``y_true`` or ``y_pred``), or over the classes of
  ``labels=`` when given (a listed class absent from the replicate then counts
  with its ``zero_division`` value).  With
  ``zero_division=nan`` (the default here; scikit-learn's default "warn" is
  replaced by it) an ill-defined class is left out of the macro average, and a
  binary or micro score with a zero denominator is NaN.
  F1 is ``2 tp / (2 tp + fp + fn)``, ill-defined only when that denominator is 0.
- ``roc_auc`` (binary): the trapezoidal area under the weighted ROC curve with
  every group of tied scores one step of the curve, which is what
  ``roc_auc_score`` computes; the positive class is ``pos_label``, else the
  greater of the two sorted classes.  Undefined when the replicate holds one class
  (scikit-learn warns and returns NaN).
- ``average_precision`` (binary): scikit-learn's step-wise
  ``sum_k (R_k - R_{k-1}) P_k`` over the distinct scores, tied scores forming one
  threshold; the positive class is ``pos_label`` (default 1).  Undefined when the
  replicate has no positive (scikit-learn warns and returns 0); a replicate
  without negatives scores 1, as in scikit-learn.
- ``log_loss``: ``y_pred`` is the probability of the positive class (1-d: the
  greater of the two classes, or ``pos_label``) or an ``(n, n_classes)`` matrix
  whose columns follow the sorted classes
  (``labels`` if given, else those of the full ``y_true``).  Probabilities are
  converted to float64 and clipped to ``[eps, 1 - eps]`` with ``eps`` the float64
  machine epsilon, as scikit-learn 1.9 does (it uses the eps of the input dtype);
  for 1-d input ``1 - p`` is formed before clipping.  Rows are not renormalized;
  rows that do not sum to 1 are an error here (scikit-learn only warns).  The
  class set is fixed by the full data, so a replicate missing a class is still
  defined (scikit-learn needs ``labels=`` for it).
- ``brier_score``: scikit-learn's ``brier_score_loss`` with ``scale_by_half="auto"``:
  ``(y - p)^2`` for 1-d ``y_pred`` (the probability of ``pos_label``; without it,
  of 1 for labels in {0, 1} or {-1, 1}, else of the greater number),
  ``sum_k (onehot_k - p_k)^2`` for a matrix, halved when it has 2 columns.
- ``mean_squared_error``, ``root_mean_squared_error`` (square root of the weighted
  mean), ``mean_absolute_error``: single-output, uniform over outputs.
- ``r2``: ``1 - sum w (y - yhat)^2 / sum w (y - ybar_w)^2``.  Undefined when the
  drawn ``y_true`` values are all equal, unless ``force_finite=True``, which gives
  scikit-learn's values (1.0 for a perfect fit, else 0.0).

Cost: ``prepare_*`` is O(n) time and memory, O(n log n) for ``roc_auc`` and
``average_precision`` (one argsort).

Examples
--------
>>> import numpy as np
>>> from skboot.metrics import prepare_roc_auc
>>> prepared = prepare_roc_auc(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
>>> w = np.array([2.0, 0.0, 1.0, 1.0])  # row 0 drawn twice, row 1 not drawn
>>> prepared.kernel(*prepared.args, w)
1.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.metric import (
    average_precision_kernel,
    balanced_accuracy_kernel,
    prf_kernel,
    r2_kernel,
    roc_auc_kernel,
    weighted_mean_kernel,
    weighted_rms_kernel,
)
from skboot._validation import as_float_array, validate_params
from skboot.metrics._checks import (
    AVERAGE_CODES,
    EPS,
    PRF_OPTIONS,
    R2_OPTIONS,
    encode,
    invalid,
    prepare_labels,
    prepare_regression,
)
from skboot.metrics._labels import binary_label_codes, listed_codes, prepare_proba

__all__ = [
    "PreparedMetric",
    "prepare_accuracy",
    "prepare_average_precision",
    "prepare_balanced_accuracy",
    "prepare_brier_score",
    "prepare_f1",
    "prepare_log_loss",
    "prepare_mean_absolute_error",
    "prepare_mean_squared_error",
    "prepare_precision",
    "prepare_r2",
    "prepare_recall",
    "prepare_roc_auc",
    "prepare_root_mean_squared_error",
]

# ``which`` of the precision / recall / F1 kernel.
_PRECISION, _RECALL, _F1 = 0, 1, 2


@dataclass(frozen=True)
class PreparedMetric:
    """A metric's inputs, validated and precomputed once per dataset.

    Attributes
    ----------
    name : str
        Key of the metric in :data:`skboot.metrics.METRICS`.
    kernel : numba dispatcher
        The metric's kernel; ``kernel(*args, w)`` returns the metric on the
        replicate with weights ``w`` (NaN when undefined).
    args : tuple
        Positional arguments of ``kernel`` before ``w``: float64 and int64 arrays
        and Python scalars.
    n_samples : int
        Length ``n`` that ``w`` must have.
    classes : ndarray or None
        Sorted class labels behind the integer codes, for the classification
        metrics that encode labels; None otherwise.  For a binary metric (and
        a 1-d ``y_pred`` of log_loss or brier_score), the classes it saw, with
        ``pos_label`` among them: code 1 is ``pos_label``, code 0 any other.
        With ``labels=`` for precision, recall or F1, the listed classes.
    pos_label : object or None
        The positive class of a binary metric; None otherwise.
    """

    name: str
    kernel: Any
    args: tuple[Any, ...]
    n_samples: int
    classes: np.ndarray | None = None
    pos_label: Any = None


def prepare_accuracy(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``accuracy`` (``sklearn.metrics.accuracy_score``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (numbers or strings).

    Returns
    -------
    PreparedMetric
        ``args = (correct,)``: float64 1.0 where ``y_true == y_pred``.
    """
    metric = "accuracy"
    yt, yp = prepare_labels(y_true, y_pred, metric)
    classes, codes_true, codes_pred = encode(yt, yp, metric)
    correct = np.ascontiguousarray(codes_true == codes_pred, dtype=np.float64)
    return PreparedMetric(
        metric, weighted_mean_kernel, (correct,), yt.shape[0], classes
    )


def prepare_balanced_accuracy(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``balanced_accuracy`` (``sklearn.metrics.balanced_accuracy_score``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (numbers or strings).

    Returns
    -------
    PreparedMetric
        ``args = (codes_true, correct, n_classes)``: int64 codes of ``y_true``
        among its ``n_classes`` sorted classes, float64 1.0 where
        ``y_true == y_pred``.  A replicate lacking one of these classes is
        undefined.
    """
    metric = "balanced_accuracy"
    yt, yp = prepare_labels(y_true, y_pred, metric)
    _, codes_true_all, codes_pred_all = encode(yt, yp, metric)
    correct = np.ascontiguousarray(codes_true_all == codes_pred_all, dtype=np.float64)
    classes, codes_true = np.unique(yt, return_inverse=True)
    codes_true = np.ascontiguousarray(codes_true.reshape(-1), dtype=np.int64)
    args = (codes_true, correct, int(classes.shape[0]))
    return PreparedMetric(metric, balanced_accuracy_kernel, args, yt.shape[0], classes)


def _prepare_prf(
    metric: str,
    which: int,
    y_true: Any,
    y_pred: Any,
    options: dict[str, Any],
) -> PreparedMetric:
    values = validate_params(
        metric,
        PRF_OPTIONS,
        average=options["average"],
        zero_division=options["zero_division"],
    )
    average_code = AVERAGE_CODES[values["average"]]
    zd = float(values["zero_division"])
    pos_label, labels = options["pos_label"], options["labels"]
    yt, yp = prepare_labels(y_true, y_pred, metric)
    positive = None
    if average_code == 0:  # labels are ignored, as in scikit-learn
        named = [("y_true", yt), ("y_pred", yp)]
        (codes_true, codes_pred), classes, positive = binary_label_codes(
            metric, named, pos_label, "given"
        )
        n_classes = 2
    else:
        if pos_label is not None and not (np.ndim(pos_label) == 0 and pos_label == 1):
            raise invalid(
                "pos_label",
                metric,
                f"None or 1 with average={options['average']!r} (it names the "
                "positive class of average='binary'; pass labels=[pos_label] to "
                "score one class)",
                repr(pos_label),
            )
        if labels is None:
            classes, codes_true, codes_pred = encode(yt, yp, metric)
            n_classes = classes.shape[0]
        else:  # the listed classes are codes 0..L-1, all others L
            classes, codes_true, codes_pred = listed_codes(metric, yt, yp, labels)
            n_classes = classes.shape[0] + 1
            average_code += 2
    args = (codes_true, codes_pred, int(n_classes), average_code, which, zd)
    return PreparedMetric(metric, prf_kernel, args, yt.shape[0], classes, positive)


_PRF_DOC = """Prepare ``{metric}`` (``sklearn.metrics.{sk}``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels (numbers or strings, of one type);
        two classes at most, in both together, when ``average="binary"``.
    average : {{"binary", "micro", "macro"}}, default="binary"
        "binary" scores the class ``pos_label``; "micro" pools the counts of all
        classes; "macro" averages the per-class scores over the classes present
        in the replicate (over the classes of ``labels`` when given).
    zero_division : {{0.0, 1.0, nan}}, default=nan
        Value of an ill-defined score ({undefined}).  With nan, the replicate is
        undefined for "binary" and "micro", and the class is left out of the
        "macro" average.
    pos_label : label, default=1
        The positive class of "binary", as in scikit-learn: it must be one of
        the labels of ``y_true`` and ``y_pred`` when they hold two, so text
        labels need it.  With "micro" or "macro" it must be None or 1.
    labels : array-like, default=None
        For "micro" and "macro", the classes to count, as in scikit-learn: a
        listed class absent from a replicate still counts in the "macro"
        average (its score is ``zero_division``), and rows of classes not
        listed count only as errors of the listed ones.  Ignored by "binary",
        as in scikit-learn.

    Returns
    -------
    PreparedMetric
        ``args = (codes_true, codes_pred, n_classes, average_code, which,
        zero_division)``.
    """


def _prf_options(
    average: Any, zero_division: Any, pos_label: Any, labels: Any
) -> dict[str, Any]:
    return {
        "average": average,
        "zero_division": zero_division,
        "pos_label": pos_label,
        "labels": labels,
    }


def prepare_precision(
    y_true: Any,
    y_pred: Any,
    *,
    average: str = "binary",
    zero_division: float = np.nan,
    pos_label: Any = 1,
    labels: Any = None,
) -> PreparedMetric:
    options = _prf_options(average, zero_division, pos_label, labels)
    return _prepare_prf("precision", _PRECISION, y_true, y_pred, options)


def prepare_recall(
    y_true: Any,
    y_pred: Any,
    *,
    average: str = "binary",
    zero_division: float = np.nan,
    pos_label: Any = 1,
    labels: Any = None,
) -> PreparedMetric:
    options = _prf_options(average, zero_division, pos_label, labels)
    return _prepare_prf("recall", _RECALL, y_true, y_pred, options)


def prepare_f1(
    y_true: Any,
    y_pred: Any,
    *,
    average: str = "binary",
    zero_division: float = np.nan,
    pos_label: Any = 1,
    labels: Any = None,
) -> PreparedMetric:
    options = _prf_options(average, zero_division, pos_label, labels)
    return _prepare_prf("f1", _F1, y_true, y_pred, options)


prepare_precision.__doc__ = _PRF_DOC.format(
    metric="precision", sk="precision_score", undefined="no predicted positive"
)
prepare_recall.__doc__ = _PRF_DOC.format(
    metric="recall", sk="recall_score", undefined="no positive in y_true"
)
prepare_f1.__doc__ = _PRF_DOC.format(
    metric="f1", sk="f1_score", undefined="no positive in y_true or y_pred"
)


def _prepare_ranking(
    metric: str, kernel: Any, y_true: Any, y_pred: Any, pos_label: Any, rule: str
) -> PreparedMetric:
    yt, yp = prepare_labels(y_true, y_pred, metric)
    (labels,), classes, positive = binary_label_codes(
        metric, [("y_true", yt)], pos_label, rule
    )
    scores = np.ascontiguousarray(as_float_array(yp, "y_pred", metric))
    order = np.ascontiguousarray(np.argsort(-scores, kind="stable"), dtype=np.int64)
    sorted_scores = scores[order]
    boundaries = np.flatnonzero(np.diff(sorted_scores)) + 1
    group_starts = np.concatenate(([0], boundaries, [scores.shape[0]])).astype(np.int64)
    y_sorted = np.ascontiguousarray(labels[order], dtype=np.float64)
    args = (order, y_sorted, group_starts)
    return PreparedMetric(metric, kernel, args, scores.shape[0], classes, positive)


def prepare_roc_auc(
    y_true: Any, y_pred: Any, *, pos_label: Any = None
) -> PreparedMetric:
    """Prepare ``roc_auc`` (binary ``sklearn.metrics.roc_auc_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: two classes at most (numbers or strings).
    y_pred : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).
    pos_label : label, default=None
        The positive class, one of the labels of ``y_true``.  None: as
        ``roc_auc_score``, 1 for labels in {0, 1} or {-1, 1}, else the greater
        of the two sorted classes.

    Returns
    -------
    PreparedMetric
        ``args = (order, y_sorted, group_starts)``: int64 argsort by decreasing
        score, float64 labels (1.0 for the positive class) in that order, int64
        boundaries of the groups of tied scores (length n_groups + 1).
        Computing them costs one argsort.
    """
    return _prepare_ranking(
        "roc_auc", roc_auc_kernel, y_true, y_pred, pos_label, "greater"
    )


def prepare_average_precision(
    y_true: Any, y_pred: Any, *, pos_label: Any = 1
) -> PreparedMetric:
    """Prepare ``average_precision`` (binary
    ``sklearn.metrics.average_precision_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels: two classes at most (numbers or strings).
    y_pred : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).
    pos_label : label, default=1
        The positive class; as in ``average_precision_score`` it must be one of
        the labels of ``y_true`` when they are two, so text labels need it.

    Returns
    -------
    PreparedMetric
        Same ``args`` as :func:`prepare_roc_auc`.
    """
    return _prepare_ranking(
        "average_precision",
        average_precision_kernel,
        y_true,
        y_pred,
        pos_label,
        "given",
    )


def prepare_log_loss(
    y_true: Any, y_pred: Any, *, labels: Any = None, pos_label: Any = None
) -> PreparedMetric:
    """Prepare ``log_loss`` (``sklearn.metrics.log_loss``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (numbers or strings); two classes at most when ``y_pred`` is
        1-d.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a matrix of class probabilities
        whose columns follow the sorted classes and whose rows sum to 1.
    labels : array-like, default=None
        The classes: of the columns of a matrix ``y_pred``, or the two classes
        of a 1-d one; default: the classes of ``y_true``.
    pos_label : label, default=None
        For a 1-d ``y_pred``, the class whose probability it is.  None: as
        ``log_loss``, the greater of the two sorted classes (1 for labels in
        {0, 1} or {-1, 1}, also when ``y_true`` holds one of them only).
        Must be None for a matrix.

    Returns
    -------
    PreparedMetric
        ``args = (losses,)``: float64 per-row loss ``-log(clip(p_true, eps,
        1 - eps))``; the kernel takes their weighted mean.
    """
    metric = "log_loss"
    codes, proba, classes, positive = prepare_proba(
        y_true, y_pred, labels, metric, pos_label, "greater"
    )
    if proba.ndim == 1:
        p_true = np.where(codes == 1, proba, 1.0 - proba)
    else:
        p_true = proba[np.arange(proba.shape[0]), codes]
    losses = np.ascontiguousarray(-np.log(np.clip(p_true, EPS, 1.0 - EPS)))
    return PreparedMetric(
        metric, weighted_mean_kernel, (losses,), losses.shape[0], classes, positive
    )


def prepare_brier_score(
    y_true: Any, y_pred: Any, *, labels: Any = None, pos_label: Any = None
) -> PreparedMetric:
    """Prepare ``brier_score`` (``sklearn.metrics.brier_score_loss``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (numbers or strings); two classes at most when ``y_pred`` is
        1-d.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of the positive class, or a matrix of class probabilities
        whose columns follow the sorted classes and whose rows sum to 1.
    labels : array-like, default=None
        Classes of the columns of a matrix ``y_pred``; default: the classes of
        ``y_true``.  Must be None for 1-d ``y_pred``.
    pos_label : label, default=None
        For a 1-d ``y_pred``, the class whose probability it is.  None: as
        ``brier_score_loss``, 1 for labels in {0, 1} or {-1, 1}, else the
        greater number; string labels need it.  Must be None for a matrix.

    Returns
    -------
    PreparedMetric
        ``args = (scores,)``: float64 per-row squared error (halved as in
        scikit-learn's ``scale_by_half="auto"``); the kernel takes their weighted
        mean.
    """
    metric = "brier_score"
    codes, proba, classes, positive = prepare_proba(
        y_true, y_pred, labels, metric, pos_label, "numbers"
    )
    if proba.ndim == 1:
        y = codes.astype(np.float64)
        # scikit-learn's form: both columns of [1 - p, p], then halved.
        scores = 0.5 * (((1.0 - y) - (1.0 - proba)) ** 2 + (y - proba) ** 2)
    else:
        onehot = np.zeros_like(proba)
        onehot[np.arange(proba.shape[0]), codes] = 1.0
        scores = ((onehot - proba) ** 2).sum(axis=1)
        if proba.shape[1] < 3:
            scores = 0.5 * scores
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    return PreparedMetric(
        metric, weighted_mean_kernel, (scores,), scores.shape[0], classes, positive
    )


def prepare_mean_squared_error(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``mean_squared_error`` (``sklearn.metrics.mean_squared_error``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Finite real targets and predictions.

    Returns
    -------
    PreparedMetric
        ``args = (squares,)``: float64 ``(y_true - y_pred) ** 2``.
    """
    metric = "mean_squared_error"
    yt, yp = prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, weighted_mean_kernel, (squares,), yt.shape[0])


def prepare_root_mean_squared_error(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``root_mean_squared_error``
    (``sklearn.metrics.root_mean_squared_error``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Finite real targets and predictions.

    Returns
    -------
    PreparedMetric
        ``args = (squares,)``: float64 ``(y_true - y_pred) ** 2``.
    """
    metric = "root_mean_squared_error"
    yt, yp = prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, weighted_rms_kernel, (squares,), yt.shape[0])


def prepare_mean_absolute_error(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``mean_absolute_error`` (``sklearn.metrics.mean_absolute_error``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Finite real targets and predictions.

    Returns
    -------
    PreparedMetric
        ``args = (errors,)``: float64 ``abs(y_pred - y_true)``.
    """
    metric = "mean_absolute_error"
    yt, yp = prepare_regression(y_true, y_pred, metric)
    errors = np.ascontiguousarray(np.abs(yp - yt))
    return PreparedMetric(metric, weighted_mean_kernel, (errors,), yt.shape[0])


def prepare_r2(
    y_true: Any, y_pred: Any, *, force_finite: bool = False
) -> PreparedMetric:
    """Prepare ``r2`` (``sklearn.metrics.r2_score``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Finite real targets and predictions.
    force_finite : bool, default=False
        What a replicate whose drawn ``y_true`` values are all equal scores:
        False makes it undefined (NaN); True gives scikit-learn's default, 1.0
        for a perfect fit and 0.0 otherwise.

    Returns
    -------
    PreparedMetric
        ``args = (y_true, squares, force_finite)``.
    """
    metric = "r2"
    ff = bool(
        validate_params(metric, R2_OPTIONS, force_finite=force_finite)["force_finite"]
    )
    yt, yp = prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, r2_kernel, (yt, squares, ff), yt.shape[0])
