"""Numba kernels that evaluate model metrics on a bootstrap replicate in O(n).

How a metric is evaluated
-------------------------
The bootstrap engine describes replicate ``b`` by a float64 weight vector ``w`` of
length ``n``: ``w[i]`` is the number of times row ``i`` was drawn, times the user's
``sample_weight[i]`` if any (0 for rows not drawn).  Every metric here is split in
two:

1. ``prepare_<metric>(y_true, y_pred, **options)`` (pure Python, called once per
   dataset) validates the inputs and precomputes everything that does not depend
   on ``w``: per-row losses, integer class codes, and for the ranking metrics the
   argsort of the scores and the boundaries of the groups of tied scores.  It
   returns a :class:`PreparedMetric` whose ``args`` are float64 / int64 arrays and
   scalars.
2. A kernel, ``kernel(*prepared.args, w) -> float``, a plain
   ``numba.njit(cache=True, nogil=True)`` function.  It makes one or two passes
   over ``n`` rows, does no sort and allocates nothing in its loop over the rows
   (the multiclass kernels allocate one ``(3, n_classes)`` scratch array per
   call).  Kernels can be called from other numba functions, including through a
   dispatcher passed as an argument: ``kernel(*args, W[r])``.

Every array in ``args`` is float64 or int64 and ``w`` must be a C-contiguous
float64 vector, so each kernel compiles to a single numba signature.

The value of ``kernel(*args, w)`` equals the scikit-learn metric evaluated on the
resampled rows ``(y_true[idx], y_pred[idx], sample_weight[idx])`` to
floating-point rounding (the tests ask for 1e-12).  Rows with ``w[i] == 0`` count
as not drawn, so a row drawn with a zero ``sample_weight`` is treated as absent.
The conventions matched, per metric:

- ``accuracy``: weighted mean of ``y_true == y_pred`` (any labels).
- ``balanced_accuracy``: mean recall over the classes of ``y_true``.  Undefined
  when the replicate lacks a class present in the full ``y_true`` (scikit-learn
  would silently average over fewer classes, another estimand).
- ``precision``, ``recall``, ``f1`` with ``average`` in {"binary", "micro",
  "macro"} and ``zero_division`` in {0.0, 1.0, nan} as in scikit-learn.
  "binary" needs labels in {0, 1} and uses ``pos_label=1``; "micro" and "macro"
  take any labels, and like scikit-learn on the resampled data they average over
  the classes present in the replicate (in ``y_true`` or ``y_pred``).  With
  ``zero_division=nan`` (the default here; scikit-learn's default "warn" is
  replaced by it) an ill-defined class is left out of the macro average, and a
  binary or micro score with a zero denominator is NaN.
  F1 is ``2 tp / (2 tp + fp + fn)``, ill-defined only when that denominator is 0.
- ``roc_auc`` (binary): the trapezoidal area under the weighted ROC curve with
  every group of tied scores one step of the curve, which is what
  ``roc_auc_score`` computes.  Undefined when the replicate holds one class
  (scikit-learn warns and returns NaN).
- ``average_precision`` (binary): scikit-learn's step-wise
  ``sum_k (R_k - R_{k-1}) P_k`` over the distinct scores, tied scores forming one
  threshold.  Undefined when the replicate has no positive (scikit-learn warns and
  returns 0); a replicate without negatives scores 1, as in scikit-learn.
- ``log_loss``: ``y_pred`` is the probability of class 1 (1-d, ``y_true`` in
  {0, 1}) or an ``(n, n_classes)`` matrix whose columns follow the sorted classes
  (``labels`` if given, else those of the full ``y_true``).  Probabilities are
  converted to float64 and clipped to ``[eps, 1 - eps]`` with ``eps`` the float64
  machine epsilon, as scikit-learn 1.9 does (it uses the eps of the input dtype);
  for 1-d input ``1 - p`` is formed before clipping.  Rows are not renormalized;
  rows that do not sum to 1 are an error here (scikit-learn only warns).  The
  class set is fixed by the full data, so a replicate missing a class is still
  defined (scikit-learn needs ``labels=`` for it).
- ``brier_score``: scikit-learn's ``brier_score_loss`` with ``scale_by_half="auto"``:
  ``(y - p)^2`` for 1-d ``y_pred``, ``sum_k (onehot_k - p_k)^2`` for a matrix, halved
  when it has 2 columns.
- ``mean_squared_error``, ``root_mean_squared_error`` (square root of the weighted
  mean), ``mean_absolute_error``: single-output, uniform over outputs.
- ``r2``: ``1 - sum w (y - yhat)^2 / sum w (y - ybar_w)^2``.  Undefined when the
  drawn ``y_true`` values are all equal, unless ``force_finite=True``, which gives
  scikit-learn's values (1.0 for a perfect fit, else 0.0).

Undefined replicates
--------------------
A kernel returns NaN, and only NaN, for an undefined replicate (see
``MetricSpec.undefined_when``; every kernel also returns NaN when all weights are
zero).  It never warns or raises: the caller counts the NaN values with
:func:`is_undefined` and applies the library's policy
(:class:`~skboot._exceptions.UndefinedStatisticWarning` or an error).

Drivers
-------
The engine does not call ``kernel(*args, w)`` from Python per replicate.
:func:`pack` turns a prepared metric into one tuple type shared by all metrics,
``(kid, F0, F1, I0, I1, n0, n1, n2, x0)``, and three cached numba functions with
one signature each take it: :func:`eval_packed` (one evaluation),
:func:`metric_chunk` (a chunk of weight rows, optionally the paired difference
of two metrics) and :func:`metric_loo` (leave-one-out values for the BCa
jackknife, in closed form for most metrics).  Passing the kernel itself to a
numba function would compile the caller anew in every process, since a
dispatcher argument does not hit numba's on-disk cache.

Cost
----
``prepare_*`` is O(n) time and memory, O(n log n) for ``roc_auc`` and
``average_precision`` (one argsort).  A kernel call is O(n) time, O(1) extra
memory (O(n_classes) for the multiclass kernels).

Examples
--------
>>> import numpy as np
>>> from skboot._metric_kernels import METRICS, metric_on_weights, prepare_roc_auc
>>> y_true = np.array([0, 0, 1, 1])
>>> y_score = np.array([0.1, 0.4, 0.35, 0.8])
>>> metric_on_weights("roc_auc", y_true, y_score, np.ones(4))
0.75
>>> prepared = prepare_roc_auc(y_true, y_score)
>>> w = np.array([2.0, 0.0, 1.0, 1.0])  # row 0 drawn twice, row 1 not drawn
>>> prepared.kernel(*prepared.args, w)
1.0
>>> METRICS["roc_auc"].greater_is_better
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "METRICS",
    "MetricSpec",
    "PreparedMetric",
    "eval_packed",
    "is_undefined",
    "metric_chunk",
    "metric_loo",
    "metric_on_weights",
    "pack",
    "pack_arrays",
    "packed",
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

_EPS = float(np.finfo(np.float64).eps)

# Codes passed to ``_prf_kernel``.
_AVERAGE_CODES = {"binary": 0, "micro": 1, "macro": 2}
_PRECISION, _RECALL, _F1 = 0, 1, 2


# --------------------------------------------------------------------------- #
# Containers                                                                    #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class PreparedMetric:
    """A metric's inputs, validated and precomputed once per dataset.

    Attributes
    ----------
    name : str
        Key of the metric in :data:`METRICS`.
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
        metrics that encode labels; None otherwise.
    """

    name: str
    kernel: Any
    args: tuple[Any, ...]
    n_samples: int
    classes: np.ndarray | None = None


@dataclass(frozen=True)
class MetricSpec:
    """Registry entry of a metric.

    Attributes
    ----------
    name : str
        The metric's name, as in scikit-learn.
    prepare : callable
        ``prepare(y_true, y_pred, **options) -> PreparedMetric``.
    kernel : numba dispatcher
        ``kernel(*prepared.args, w) -> float``.
    greater_is_better : bool
        Whether larger values are better (False for losses and errors).
    response_method : str or tuple of str
        What ``y_pred`` is, spelled as scikit-learn scorers do: ``"predict"``,
        ``"predict_proba"`` or ``("decision_function", "predict_proba")``.
    needs_proba : bool
        True when ``y_pred`` must hold probabilities.
    undefined_when : str
        When the kernel returns NaN (besides all weights zero).
    options : tuple of str
        Keyword options accepted by ``prepare``.
    """

    name: str
    prepare: Callable[..., PreparedMetric]
    kernel: Any
    greater_is_better: bool
    response_method: str | tuple[str, ...]
    needs_proba: bool
    undefined_when: str
    options: tuple[str, ...] = ()


def is_undefined(value: float) -> bool:
    """Whether a kernel result marks an undefined replicate (it is NaN).

    Parameters
    ----------
    value : float
        A value returned by a metric kernel.

    Returns
    -------
    bool
    """
    return math.isnan(value)


# --------------------------------------------------------------------------- #
# Validation helpers                                                            #
# --------------------------------------------------------------------------- #


def _error(param: str, metric: str, allowed: str, got: str) -> ValueError:
    return ValueError(
        f"The {param!r} parameter of {metric} must be {allowed}. Got {got} instead."
    )


def _show(values: np.ndarray, limit: int = 10) -> str:
    values = np.asarray(values)
    if values.size <= limit:
        return str(values.tolist())
    return str(values[:limit].tolist())[:-1] + ", ...]"


def _check_array(
    x: Any, param: str, metric: str, ndims: tuple[int, ...] = (1,)
) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim not in ndims or arr.shape[0] == 0:
        allowed = (
            "a non-empty 1-d array"
            if ndims == (1,)
            else "a non-empty array with 1 or 2 dimensions"
        )
        raise _error(param, metric, allowed, f"an array of shape {arr.shape}")
    return arr


def _check_same_length(metric: str, y_true: np.ndarray, y_pred: np.ndarray) -> int:
    n = y_true.shape[0]
    if y_pred.shape[0] != n:
        raise _error(
            "y_pred",
            metric,
            f"an array with as many rows as y_true ({n})",
            f"{y_pred.shape[0]} rows",
        )
    return n


def _check_real(arr: np.ndarray, param: str, metric: str) -> np.ndarray:
    """Convert to a contiguous float64 array of finite values."""
    if arr.dtype.kind not in "biuf":
        raise _error(param, metric, "an array of real numbers", f"dtype {arr.dtype}")
    out = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        raise _error(
            param,
            metric,
            "an array of finite values",
            f"{int(bad.sum())} NaN or infinite value(s)",
        )
    return out


def _check_labels(arr: np.ndarray, param: str, metric: str) -> np.ndarray:
    """Reject NaN labels and unorderable label arrays."""
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise _error(
            param,
            metric,
            "an array of class labels without NaN or infinity",
            f"{int((~np.isfinite(arr)).sum())} NaN or infinite value(s)",
        )
    if arr.dtype.kind == "c":
        raise _error(param, metric, "an array of class labels", f"dtype {arr.dtype}")
    if arr.dtype.kind == "O":
        try:
            uniq = np.unique(arr)
        except TypeError:
            raise _error(
                param,
                metric,
                "an array of class labels of one type (all numbers or all strings)",
                "labels of mixed types",
            ) from None
        if any(isinstance(v, float) and math.isnan(v) for v in uniq):
            raise _error(
                param,
                metric,
                "an array of class labels without NaN or infinity",
                "NaN",
            )
    return arr


def _check_binary(arr: np.ndarray, param: str, metric: str) -> np.ndarray:
    """Return labels in {0, 1} as int64 codes."""
    _check_labels(arr, param, metric)
    uniq = np.unique(arr)
    if arr.dtype.kind not in "biuf" or not np.isin(uniq, [0, 1]).all():
        raise _error(
            param,
            metric,
            "an array of binary labels in {0, 1}",
            f"labels {_show(uniq)}",
        )
    return np.ascontiguousarray(arr == 1, dtype=np.int64)


def _is_string_kind(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "USO" and arr.size > 0 and isinstance(arr.flat[0], str)


def _encode(
    y_true: np.ndarray, y_pred: np.ndarray, metric: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer-code two label arrays against their sorted union of classes."""
    _check_labels(y_true, "y_true", metric)
    _check_labels(y_pred, "y_pred", metric)
    if _is_string_kind(y_true) != _is_string_kind(y_pred):
        raise _error(
            "y_pred",
            metric,
            "an array of labels of the same type as y_true (numbers or strings)",
            f"dtype {y_pred.dtype} with y_true of dtype {y_true.dtype}",
        )
    try:
        classes = np.unique(np.concatenate([y_true, y_pred]))
    except TypeError:
        raise _error(
            "y_pred",
            metric,
            "an array of labels of the same type as y_true (numbers or strings)",
            "labels of mixed types",
        ) from None
    codes_true = np.ascontiguousarray(np.searchsorted(classes, y_true), dtype=np.int64)
    codes_pred = np.ascontiguousarray(np.searchsorted(classes, y_pred), dtype=np.int64)
    return classes, codes_true, codes_pred


def _check_average(average: Any, metric: str) -> int:
    if not isinstance(average, str) or average not in _AVERAGE_CODES:
        raise _error(
            "average", metric, "a str among {'binary', 'macro', 'micro'}", repr(average)
        )
    return _AVERAGE_CODES[average]


def _check_zero_division(zero_division: Any, metric: str) -> float:
    ok = (
        isinstance(zero_division, numbers.Real)
        and not isinstance(zero_division, bool | np.bool_)
        and (math.isnan(zero_division) or zero_division in (0, 1))
    )
    if not ok:
        raise _error(
            "zero_division", metric, "one of {0.0, 1.0, nan}", repr(zero_division)
        )
    return float(zero_division)


def _check_bool(value: Any, param: str, metric: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise _error(param, metric, "a bool", repr(value))
    return bool(value)


def _check_proba_values(p: np.ndarray, metric: str) -> np.ndarray:
    p = _check_real(p, "y_pred", metric)
    lo, hi = float(p.min()), float(p.max())
    if lo < 0.0 or hi > 1.0:
        raise _error(
            "y_pred",
            metric,
            "an array of probabilities in [0, 1]",
            f"values in [{lo}, {hi}]",
        )
    return p


def _prepare_proba(
    y_true: Any, y_pred: Any, labels: Any, metric: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate probabilistic predictions.

    Returns ``(codes, proba, classes)``: for 1-d ``y_pred`` (probability of class
    1) ``codes`` is ``y_true`` in {0, 1}, ``proba`` is 1-d and ``classes`` None;
    for a matrix, ``codes`` indexes its columns (the sorted classes).
    """
    yt = _check_array(y_true, "y_true", metric)
    yp = _check_array(y_pred, "y_pred", metric, ndims=(1, 2))
    _check_same_length(metric, yt, yp)
    if yp.ndim == 2 and yp.shape[1] == 1:
        yp = yp[:, 0]
    proba = _check_proba_values(yp, metric)
    if proba.ndim == 1:
        if labels is not None:
            raise _error(
                "labels",
                metric,
                "None when y_pred is 1-d (the probability of class 1, with y_true "
                "in {0, 1})",
                repr(labels),
            )
        return _check_binary(yt, "y_true", metric), proba, None

    _check_labels(yt, "y_true", metric)
    if labels is None:
        classes = np.unique(yt)
        if classes.shape[0] != proba.shape[1]:
            raise _error(
                "y_pred",
                metric,
                f"a matrix with one column per class of y_true ({_show(classes)}; "
                "pass labels= to list classes absent from y_true)",
                f"{proba.shape[1]} columns",
            )
    else:
        lab = _check_labels(_check_array(labels, "labels", metric), "labels", metric)
        classes = np.unique(lab)
        if classes.shape[0] != lab.shape[0] or classes.shape[0] < 2:
            raise _error(
                "labels",
                metric,
                "an array of at least 2 distinct class labels",
                _show(lab),
            )
        missing = np.setdiff1d(np.unique(yt), classes)
        if missing.size:
            raise _error(
                "y_true",
                metric,
                f"an array of labels listed in labels ({_show(classes)})",
                f"labels {_show(missing)}",
            )
        if classes.shape[0] != proba.shape[1]:
            raise _error(
                "y_pred",
                metric,
                f"a matrix with one column per label in labels ({classes.shape[0]})",
                f"{proba.shape[1]} columns",
            )
    sums = proba.sum(axis=1)
    bad = ~np.isclose(sums, 1.0, rtol=math.sqrt(_EPS), atol=1e-8)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise _error(
            "y_pred",
            metric,
            "a matrix of probabilities whose rows sum to 1",
            f"{int(bad.sum())} row(s) that do not (row {first} sums to {float(sums[first])!r})",
        )
    codes = np.ascontiguousarray(np.searchsorted(classes, yt), dtype=np.int64)
    return codes, proba, classes


def _prepare_regression(
    y_true: Any, y_pred: Any, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    yt = _check_array(y_true, "y_true", metric)
    yp = _check_array(y_pred, "y_pred", metric)
    _check_same_length(metric, yt, yp)
    return _check_real(yt, "y_true", metric), _check_real(yp, "y_pred", metric)


def _prepare_labels(
    y_true: Any, y_pred: Any, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    yt = _check_array(y_true, "y_true", metric)
    yp = _check_array(y_pred, "y_pred", metric)
    _check_same_length(metric, yt, yp)
    return yt, yp


# --------------------------------------------------------------------------- #
# Kernels                                                                       #
# --------------------------------------------------------------------------- #


@njit(cache=True, nogil=True)
def _weighted_mean_kernel(values, w):  # pragma: no cover - compiled
    """``sum(w * values) / sum(w)``; NaN when ``sum(w) == 0``.

    Computed as ``(sum(w * (values - c)) + sum(w) * c) / sum(w)`` with ``c`` the
    value of the first row of non-zero weight: the rounding error then scales
    with the spread of the values, not with their offset, and 0/1 values with
    integer weights (accuracy) give the exactly rounded ratio.
    """
    total = 0.0
    acc = 0.0
    c = 0.0
    first = True
    for i in range(values.shape[0]):
        wi = w[i]
        if wi != 0.0:
            if first:
                c = values[i]
                first = False
            total += wi
            acc += wi * (values[i] - c)
    if total <= 0.0:
        return np.nan
    return (acc + total * c) / total


@njit(cache=True, nogil=True)
def _weighted_rms_kernel(squares, w):  # pragma: no cover - compiled
    """``sqrt(sum(w * squares) / sum(w))``; NaN when ``sum(w) == 0``."""
    return math.sqrt(_weighted_mean_kernel(squares, w))


@njit(cache=True, nogil=True)
def _r2_kernel(y_true, squares, force_finite, w):  # pragma: no cover - compiled
    """Weighted coefficient of determination (two passes).

    ``y_true`` is centred on its first drawn value ``c`` before the first pass, so
    the weighted mean's rounding error, which enters the denominator, scales
    with the spread of ``y_true`` and not with its offset.
    """
    total = 0.0
    acc = 0.0
    numerator = 0.0
    lo = np.inf
    hi = -np.inf
    c = 0.0
    first = True
    for i in range(y_true.shape[0]):
        wi = w[i]
        if wi > 0.0:
            y = y_true[i]
            if first:
                c = y
                first = False
            total += wi
            acc += wi * (y - c)
            numerator += wi * squares[i]
            lo = min(lo, y)
            hi = max(hi, y)
    if total <= 0.0:
        return np.nan
    if lo == hi:  # the drawn y_true are constant: zero variance
        if not force_finite:
            return np.nan
        return 1.0 if numerator == 0.0 else 0.0
    mean_c = acc / total  # the weighted mean of y_true - c
    denominator = 0.0
    for i in range(y_true.shape[0]):
        d = (y_true[i] - c) - mean_c
        denominator += w[i] * d * d
    if denominator == 0.0:  # pragma: no cover - only through rounding
        if not force_finite:
            return np.nan
        return 1.0 if numerator == 0.0 else 0.0
    if numerator == 0.0:
        return 1.0
    return 1.0 - numerator / denominator


@njit(cache=True, nogil=True)
def _balanced_accuracy_kernel(codes_true, correct, n_classes, w):  # pragma: no cover
    """Mean per-class recall; NaN if a class of ``y_true`` has zero weight."""
    counts = np.zeros((2, n_classes))
    for i in range(codes_true.shape[0]):
        wi = w[i]
        c = codes_true[i]
        counts[0, c] += wi
        counts[1, c] += wi * correct[i]
    acc = 0.0
    for c in range(n_classes):
        if counts[0, c] <= 0.0:
            return np.nan
        acc += counts[1, c] / counts[0, c]
    return acc / n_classes


@njit(cache=True, nogil=True)
def _prf_value(tp, pred_sum, true_sum, which, zero_division):  # pragma: no cover
    if which == 0:
        denominator = pred_sum
        numerator = tp
    elif which == 1:
        denominator = true_sum
        numerator = tp
    else:
        denominator = pred_sum + true_sum
        numerator = 2.0 * tp
    if denominator <= 0.0:
        return zero_division
    return numerator / denominator


@njit(cache=True, nogil=True)
def _prf_kernel(
    codes_true, codes_pred, n_classes, average, which, zero_division, w
):  # pragma: no cover - compiled
    """Precision (``which=0``), recall (1) or F1 (2) for one average.

    ``average`` 0 is binary with positive class code 1, 1 micro, 2 macro over the
    classes present in the replicate.
    """
    n = codes_true.shape[0]
    if average == 0:
        tp = 0.0
        pred_sum = 0.0
        true_sum = 0.0
        for i in range(n):
            wi = w[i]
            t = codes_true[i]
            p = codes_pred[i]
            true_sum += wi * t
            pred_sum += wi * p
            tp += wi * (t * p)
        return _prf_value(tp, pred_sum, true_sum, which, zero_division)

    counts = np.zeros((3, n_classes))  # tp, pred_sum, true_sum per class
    for i in range(n):
        wi = w[i]
        t = codes_true[i]
        p = codes_pred[i]
        counts[1, p] += wi
        counts[2, t] += wi
        if t == p:
            counts[0, t] += wi
    if average == 1:
        tp = 0.0
        pred_sum = 0.0
        true_sum = 0.0
        for c in range(n_classes):
            tp += counts[0, c]
            pred_sum += counts[1, c]
            true_sum += counts[2, c]
        if pred_sum + true_sum <= 0.0:
            return np.nan
        return _prf_value(tp, pred_sum, true_sum, which, zero_division)

    acc = 0.0
    m = 0
    for c in range(n_classes):
        if counts[1, c] + counts[2, c] > 0.0:  # class present in the replicate
            v = _prf_value(
                counts[0, c], counts[1, c], counts[2, c], which, zero_division
            )
            if not np.isnan(v):
                acc += v
                m += 1
    if m == 0:
        return np.nan
    return acc / m


@njit(cache=True, nogil=True)
def _roc_auc_kernel(order, y_sorted, group_starts, w):  # pragma: no cover - compiled
    """Trapezoidal ROC AUC, each group of tied scores one step of the curve.

    ``order`` sorts the rows by decreasing score, ``y_sorted`` holds the labels
    (0.0 / 1.0) in that order, tie group ``g`` spans
    ``group_starts[g]:group_starts[g + 1]``.
    """
    tp = 0.0
    fp = 0.0
    area = 0.0
    for g in range(group_starts.shape[0] - 1):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        neg = total - pos
        area += neg * (tp + 0.5 * pos)
        tp += pos
        fp += neg
    if tp <= 0.0 or fp <= 0.0:
        return np.nan
    return area / (tp * fp)


@njit(cache=True, nogil=True)
def _average_precision_kernel(order, y_sorted, group_starts, w):  # pragma: no cover
    """Step-wise average precision over the distinct scores (same arguments as
    ``_roc_auc_kernel``)."""
    tp = 0.0
    fp = 0.0
    acc = 0.0
    for g in range(group_starts.shape[0] - 1):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        tp += pos
        fp += total - pos
        if pos > 0.0:
            acc += pos * (tp / (tp + fp))
    if tp <= 0.0:
        return np.nan
    return acc / tp


# --------------------------------------------------------------------------- #
# Prepare functions                                                             #
# --------------------------------------------------------------------------- #


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
    yt, yp = _prepare_labels(y_true, y_pred, metric)
    classes, codes_true, codes_pred = _encode(yt, yp, metric)
    correct = np.ascontiguousarray(codes_true == codes_pred, dtype=np.float64)
    return PreparedMetric(
        metric, _weighted_mean_kernel, (correct,), yt.shape[0], classes
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
    yt, yp = _prepare_labels(y_true, y_pred, metric)
    _, codes_true_all, codes_pred_all = _encode(yt, yp, metric)
    correct = np.ascontiguousarray(codes_true_all == codes_pred_all, dtype=np.float64)
    classes, codes_true = np.unique(yt, return_inverse=True)
    codes_true = np.ascontiguousarray(codes_true.reshape(-1), dtype=np.int64)
    args = (codes_true, correct, int(classes.shape[0]))
    return PreparedMetric(metric, _balanced_accuracy_kernel, args, yt.shape[0], classes)


def _prepare_prf(
    metric: str, which: int, y_true: Any, y_pred: Any, average: Any, zero_division: Any
) -> PreparedMetric:
    average_code = _check_average(average, metric)
    zd = _check_zero_division(zero_division, metric)
    yt, yp = _prepare_labels(y_true, y_pred, metric)
    if average_code == 0:
        codes_true = _check_binary(yt, "y_true", metric)
        codes_pred = _check_binary(yp, "y_pred", metric)
        classes = np.array([0, 1])
    else:
        classes, codes_true, codes_pred = _encode(yt, yp, metric)
    args = (codes_true, codes_pred, int(classes.shape[0]), average_code, which, zd)
    return PreparedMetric(metric, _prf_kernel, args, yt.shape[0], classes)


_PRF_DOC = """Prepare ``{metric}`` (``sklearn.metrics.{sk}``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted class labels; in {{0, 1}} when ``average="binary"``.
    average : {{"binary", "micro", "macro"}}, default="binary"
        "binary" scores class 1; "micro" pools the counts of all classes;
        "macro" averages the per-class scores over the classes present in the
        replicate.
    zero_division : {{0.0, 1.0, nan}}, default=nan
        Value of an ill-defined score ({undefined}).  With nan, the replicate is
        undefined for "binary" and "micro", and the class is left out of the
        "macro" average.

    Returns
    -------
    PreparedMetric
        ``args = (codes_true, codes_pred, n_classes, average_code, which,
        zero_division)``.
    """


def prepare_precision(
    y_true: Any, y_pred: Any, *, average: str = "binary", zero_division: float = np.nan
) -> PreparedMetric:
    return _prepare_prf("precision", _PRECISION, y_true, y_pred, average, zero_division)


def prepare_recall(
    y_true: Any, y_pred: Any, *, average: str = "binary", zero_division: float = np.nan
) -> PreparedMetric:
    return _prepare_prf("recall", _RECALL, y_true, y_pred, average, zero_division)


def prepare_f1(
    y_true: Any, y_pred: Any, *, average: str = "binary", zero_division: float = np.nan
) -> PreparedMetric:
    return _prepare_prf("f1", _F1, y_true, y_pred, average, zero_division)


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
    metric: str, kernel: Any, y_true: Any, y_pred: Any
) -> PreparedMetric:
    yt, yp = _prepare_labels(y_true, y_pred, metric)
    labels = _check_binary(yt, "y_true", metric)
    scores = _check_real(yp, "y_pred", metric)
    order = np.ascontiguousarray(np.argsort(-scores, kind="stable"), dtype=np.int64)
    sorted_scores = scores[order]
    boundaries = np.flatnonzero(np.diff(sorted_scores)) + 1
    group_starts = np.concatenate(([0], boundaries, [scores.shape[0]])).astype(np.int64)
    y_sorted = np.ascontiguousarray(labels[order], dtype=np.float64)
    args = (order, y_sorted, group_starts)
    return PreparedMetric(metric, kernel, args, scores.shape[0], np.array([0, 1]))


def prepare_roc_auc(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``roc_auc`` (binary ``sklearn.metrics.roc_auc_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in {0, 1}; 1 is the positive class.
    y_pred : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).

    Returns
    -------
    PreparedMetric
        ``args = (order, y_sorted, group_starts)``: int64 argsort by decreasing
        score, float64 labels in that order, int64 boundaries of the groups of
        tied scores (length n_groups + 1).  Computing them costs one argsort.
    """
    return _prepare_ranking("roc_auc", _roc_auc_kernel, y_true, y_pred)


def prepare_average_precision(y_true: Any, y_pred: Any) -> PreparedMetric:
    """Prepare ``average_precision`` (binary
    ``sklearn.metrics.average_precision_score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels in {0, 1}; 1 is the positive class.
    y_pred : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).

    Returns
    -------
    PreparedMetric
        Same ``args`` as :func:`prepare_roc_auc`.
    """
    return _prepare_ranking(
        "average_precision", _average_precision_kernel, y_true, y_pred
    )


def prepare_log_loss(y_true: Any, y_pred: Any, *, labels: Any = None) -> PreparedMetric:
    """Prepare ``log_loss`` (``sklearn.metrics.log_loss``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels; in {0, 1} when ``y_pred`` is 1-d.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of class 1, or a matrix of class probabilities whose columns
        follow the sorted classes and whose rows sum to 1.
    labels : array-like, default=None
        Classes of the columns of a matrix ``y_pred``; default: the classes of
        ``y_true``.  Must be None for 1-d ``y_pred``.

    Returns
    -------
    PreparedMetric
        ``args = (losses,)``: float64 per-row loss ``-log(clip(p_true, eps,
        1 - eps))``; the kernel takes their weighted mean.
    """
    metric = "log_loss"
    codes, proba, classes = _prepare_proba(y_true, y_pred, labels, metric)
    if proba.ndim == 1:
        p_true = np.where(codes == 1, proba, 1.0 - proba)
        classes = np.array([0, 1])
    else:
        p_true = proba[np.arange(proba.shape[0]), codes]
    losses = np.ascontiguousarray(-np.log(np.clip(p_true, _EPS, 1.0 - _EPS)))
    return PreparedMetric(
        metric, _weighted_mean_kernel, (losses,), losses.shape[0], classes
    )


def prepare_brier_score(
    y_true: Any, y_pred: Any, *, labels: Any = None
) -> PreparedMetric:
    """Prepare ``brier_score`` (``sklearn.metrics.brier_score_loss``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels; in {0, 1} when ``y_pred`` is 1-d.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of class 1, or a matrix of class probabilities whose columns
        follow the sorted classes and whose rows sum to 1.
    labels : array-like, default=None
        Classes of the columns of a matrix ``y_pred``; default: the classes of
        ``y_true``.  Must be None for 1-d ``y_pred``.

    Returns
    -------
    PreparedMetric
        ``args = (scores,)``: float64 per-row squared error (halved as in
        scikit-learn's ``scale_by_half="auto"``); the kernel takes their weighted
        mean.
    """
    metric = "brier_score"
    codes, proba, classes = _prepare_proba(y_true, y_pred, labels, metric)
    if proba.ndim == 1:
        y = codes.astype(np.float64)
        # scikit-learn's form: both columns of [1 - p, p], then halved.
        scores = 0.5 * (((1.0 - y) - (1.0 - proba)) ** 2 + (y - proba) ** 2)
        classes = np.array([0, 1])
    else:
        onehot = np.zeros_like(proba)
        onehot[np.arange(proba.shape[0]), codes] = 1.0
        scores = ((onehot - proba) ** 2).sum(axis=1)
        if proba.shape[1] < 3:
            scores = 0.5 * scores
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    return PreparedMetric(
        metric, _weighted_mean_kernel, (scores,), scores.shape[0], classes
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
    yt, yp = _prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, _weighted_mean_kernel, (squares,), yt.shape[0])


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
    yt, yp = _prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, _weighted_rms_kernel, (squares,), yt.shape[0])


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
    yt, yp = _prepare_regression(y_true, y_pred, metric)
    errors = np.ascontiguousarray(np.abs(yp - yt))
    return PreparedMetric(metric, _weighted_mean_kernel, (errors,), yt.shape[0])


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
    ff = _check_bool(force_finite, "force_finite", metric)
    yt, yp = _prepare_regression(y_true, y_pred, metric)
    squares = np.ascontiguousarray((yt - yp) ** 2)
    return PreparedMetric(metric, _r2_kernel, (yt, squares, ff), yt.shape[0])


# --------------------------------------------------------------------------- #
# Registry                                                                      #
# --------------------------------------------------------------------------- #

_ALL_ZERO = "all weights are zero"
_SCORE = ("decision_function", "predict_proba")
_PRF_OPTIONS = ("average", "zero_division")


def _spec(
    name: str,
    prepare: Callable[..., PreparedMetric],
    kernel: Any,
    *,
    greater_is_better: bool,
    response_method: str | tuple[str, ...],
    undefined_when: str,
    options: tuple[str, ...] = (),
) -> tuple[str, MetricSpec]:
    needs_proba = response_method == "predict_proba"
    spec = MetricSpec(
        name,
        prepare,
        kernel,
        greater_is_better,
        response_method,
        needs_proba,
        undefined_when,
        options,
    )
    return name, spec


#: name -> :class:`MetricSpec`; ``spec.kernel(*spec.prepare(y_true, y_pred).args, w)``.
METRICS: dict[str, MetricSpec] = dict(
    [
        _spec(
            "accuracy",
            prepare_accuracy,
            _weighted_mean_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "balanced_accuracy",
            prepare_balanced_accuracy,
            _balanced_accuracy_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="a class present in the full y_true has zero weight",
        ),
        _spec(
            "precision",
            prepare_precision,
            _prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no predicted "
            "positive",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "recall",
            prepare_recall,
            _prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no positive in "
            "y_true",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "f1",
            prepare_f1,
            _prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no positive in "
            "y_true or y_pred",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "roc_auc",
            prepare_roc_auc,
            _roc_auc_kernel,
            greater_is_better=True,
            response_method=_SCORE,
            undefined_when="the replicate holds one class (no positive or no "
            "negative weight)",
        ),
        _spec(
            "average_precision",
            prepare_average_precision,
            _average_precision_kernel,
            greater_is_better=True,
            response_method=_SCORE,
            undefined_when="the replicate holds no positive",
        ),
        _spec(
            "log_loss",
            prepare_log_loss,
            _weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict_proba",
            undefined_when=_ALL_ZERO,
            options=("labels",),
        ),
        _spec(
            "brier_score",
            prepare_brier_score,
            _weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict_proba",
            undefined_when=_ALL_ZERO,
            options=("labels",),
        ),
        _spec(
            "mean_squared_error",
            prepare_mean_squared_error,
            _weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "root_mean_squared_error",
            prepare_root_mean_squared_error,
            _weighted_rms_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "mean_absolute_error",
            prepare_mean_absolute_error,
            _weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "r2",
            prepare_r2,
            _r2_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="force_finite=False and the drawn y_true values are all "
            "equal",
            options=("force_finite",),
        ),
    ]
)


def _check_weights(w: Any, n: int) -> np.ndarray:
    arr = np.asarray(w)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise _error(
            "w", "metric_on_weights", f"a 1-d array of length {n}", f"shape {arr.shape}"
        )
    out = _check_real(arr, "w", "metric_on_weights")
    if (out < 0).any():
        raise _error(
            "w",
            "metric_on_weights",
            "an array of non-negative weights",
            f"minimum {float(out.min())}",
        )
    return out


def metric_on_weights(
    name: str, y_true: Any, y_pred: Any, w: Any, **options: Any
) -> float:
    """Evaluate metric ``name`` on the replicate with row weights ``w``.

    Prepares the data (see the ``prepare_<name>`` functions) and calls the kernel
    once: ``METRICS[name].kernel(*prepared.args, w)``.  Convenient for one-off
    use and tests; the engine prepares once and calls the kernel per replicate.

    Parameters
    ----------
    name : str
        Key of :data:`METRICS`.
    y_true, y_pred : array-like
        As for ``prepare_<name>``.
    w : array-like of shape (n_samples,)
        Non-negative row weights (bootstrap counts times sample weights).
    **options
        Options of ``prepare_<name>``.

    Returns
    -------
    float
        The metric, NaN if undefined on this replicate.
    """
    if name not in METRICS:
        raise _error(
            "name", "metric_on_weights", f"a str among {sorted(METRICS)}", repr(name)
        )
    prepared = METRICS[name].prepare(y_true, y_pred, **options)
    weights = _check_weights(w, prepared.n_samples)
    return float(prepared.kernel(*prepared.args, weights))


# --------------------------------------------------------------------------- #
# Packed form and chunk drivers                                                 #
# --------------------------------------------------------------------------- #
#
# A numba function that receives a kernel as an argument is compiled anew in
# every process (a dispatcher type does not hit numba's on-disk cache).  The
# engine therefore calls the kernels through one driver that switches on a
# kernel id: every metric is "packed" into the same tuple type
#
#     (kid, F0, F1, I0, I1, n0, n1, n2, x0)
#
# (int64, two float64 arrays, two int64 arrays, three int64 scalars, a float64),
# so each driver has a single signature and is cached on disk.

_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int64)

_KID_MEAN, _KID_RMS, _KID_R2, _KID_BACC, _KID_PRF, _KID_ROC, _KID_AP = range(7)
_KERNEL_IDS: dict[Any, int] = {
    _weighted_mean_kernel: _KID_MEAN,
    _weighted_rms_kernel: _KID_RMS,
    _r2_kernel: _KID_R2,
    _balanced_accuracy_kernel: _KID_BACC,
    _prf_kernel: _KID_PRF,
    _roc_auc_kernel: _KID_ROC,
    _average_precision_kernel: _KID_AP,
}


def pack_arrays(
    prepared: PreparedMetric,
) -> tuple[tuple[np.ndarray, ...], tuple[int, int, int, int, float]]:
    """Split a prepared metric into its packed arrays and scalars.

    Returns
    -------
    arrays : tuple of 4 ndarrays
        ``(F0, F1, I0, I1)``: float64, float64, int64, int64 (empty when unused).
    scalars : tuple
        ``(kid, n0, n1, n2, x0)``.

    :func:`packed` joins them back into the tuple the drivers take.  They are
    kept apart so the arrays can travel as top-level joblib arguments (memory-
    mapped by loky) while the scalars stay on the statistic object.
    """
    kid = _KERNEL_IDS[prepared.kernel]
    a = prepared.args
    F0, F1, I0, I1 = _EMPTY_F, _EMPTY_F, _EMPTY_I, _EMPTY_I
    n0 = n1 = n2 = 0
    x0 = 0.0
    if kid in (_KID_MEAN, _KID_RMS):
        (F0,) = a
    elif kid == _KID_R2:
        F0, F1, n0 = a[0], a[1], int(bool(a[2]))
    elif kid == _KID_BACC:
        I0, F0, n0 = a[0], a[1], int(a[2])
    elif kid == _KID_PRF:
        I0, I1 = a[0], a[1]
        n0, n1, n2, x0 = int(a[2]), int(a[3]), int(a[4]), float(a[5])
    else:  # ranking: (order, y_sorted, group_starts)
        I0, F0, I1 = a
    return (F0, F1, I0, I1), (kid, n0, n1, n2, x0)


def packed(
    arrays: tuple[np.ndarray, ...], scalars: tuple[int, int, int, int, float]
) -> tuple[Any, ...]:
    """The driver tuple ``(kid, F0, F1, I0, I1, n0, n1, n2, x0)``."""
    kid, n0, n1, n2, x0 = scalars
    F0, F1, I0, I1 = arrays
    return (int(kid), F0, F1, I0, I1, int(n0), int(n1), int(n2), float(x0))


def pack(prepared: PreparedMetric) -> tuple[Any, ...]:
    """``packed(*pack_arrays(prepared))``."""
    return packed(*pack_arrays(prepared))


@njit(cache=True, nogil=True)
def eval_packed(p, w):  # pragma: no cover - compiled
    """``kernel(*args, w)`` of the packed metric ``p``."""
    kid = p[0]
    if kid == 0:
        return _weighted_mean_kernel(p[1], w)
    if kid == 1:
        return _weighted_rms_kernel(p[1], w)
    if kid == 2:
        return _r2_kernel(p[1], p[2], p[5] != 0, w)
    if kid == 3:
        return _balanced_accuracy_kernel(p[3], p[1], p[5], w)
    if kid == 4:
        return _prf_kernel(p[3], p[4], p[5], p[6], p[7], p[8], w)
    if kid == 5:
        return _roc_auc_kernel(p[3], p[1], p[4], w)
    return _average_precision_kernel(p[3], p[1], p[4], w)


@njit(cache=True, nogil=True)
def metric_chunk(pa, pb, two, sw, weighted, W, out):  # pragma: no cover - compiled
    """One chunk of replicates: ``out[r, 0] = m_a(w_r) [- m_b(w_r)]``.

    ``W`` holds the resampling counts (or weights) of the chunk's replicates,
    one row each; it is multiplied in place by the sample weights ``sw`` when
    ``weighted``.  ``two`` selects the paired difference of two metrics
    evaluated on the same weights (model comparison).
    """
    for r in range(W.shape[0]):
        row = W[r]
        if weighted:
            for i in range(row.shape[0]):
                row[i] *= sw[i]
        v = eval_packed(pa, row)
        if two:
            v = v - eval_packed(pb, row)
        out[r, 0] = v


@njit(cache=True, nogil=True)
def _loo_generic(p, sw, full, out):  # pragma: no cover - compiled
    w = sw.copy()
    for i in range(w.shape[0]):
        if sw[i] == 0.0:
            out[i] = full
            continue
        w[i] = 0.0
        out[i] = eval_packed(p, w)
        w[i] = sw[i]


@njit(cache=True, nogil=True)
def _loo_mean(values, sw, full, rms, out):  # pragma: no cover - compiled
    """Leave-one-out weighted means (or root means), centred as in
    :func:`_weighted_mean_kernel` on the first row of non-zero weight."""
    total = 0.0
    acc = 0.0
    c = 0.0
    first = True
    for i in range(values.shape[0]):
        wi = sw[i]
        if wi != 0.0:
            if first:
                c = values[i]
                first = False
            total += wi
            acc += wi * (values[i] - c)
    for i in range(values.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        t = total - wi
        if t <= 0.0:
            out[i] = np.nan
            continue
        v = ((acc - wi * (values[i] - c)) + t * c) / t
        out[i] = math.sqrt(max(v, 0.0)) if rms else v


@njit(cache=True, nogil=True)
def _loo_prf_binary(codes_true, codes_pred, which, zero_division, sw, full, out):
    # pragma: no cover - compiled
    tp = 0.0
    pred_sum = 0.0
    true_sum = 0.0
    for i in range(sw.shape[0]):
        wi = sw[i]
        t = codes_true[i]
        q = codes_pred[i]
        true_sum += wi * t
        pred_sum += wi * q
        tp += wi * (t * q)
    for i in range(sw.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        t = codes_true[i]
        q = codes_pred[i]
        out[i] = _prf_value(
            tp - wi * (t * q),
            pred_sum - wi * q,
            true_sum - wi * t,
            which,
            zero_division,
        )


@njit(cache=True, nogil=True)
def _loo_roc_auc(order, y_sorted, group_starts, sw, full, out):  # pragma: no cover
    n_groups = group_starts.shape[0] - 1
    pos_g = np.zeros(n_groups)
    neg_g = np.zeros(n_groups)
    tp = 0.0
    fp = 0.0
    area = 0.0
    for g in range(n_groups):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = sw[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        neg = total - pos
        pos_g[g] = pos
        neg_g[g] = neg
        area += neg * (tp + 0.5 * pos)
        tp += pos
        fp += neg
    tp_before = 0.0
    fp_before = 0.0
    for g in range(n_groups):
        neg_below = fp - fp_before - neg_g[g]
        for k in range(group_starts[g], group_starts[g + 1]):
            i = order[k]
            wi = sw[i]
            if wi == 0.0:
                out[i] = full
                continue
            if y_sorted[k] == 1.0:
                a = area - wi * (neg_below + 0.5 * neg_g[g])
                p_left = tp - wi
                n_left = fp
            else:
                a = area - wi * (tp_before + 0.5 * pos_g[g])
                p_left = tp
                n_left = fp - wi
            if p_left <= 0.0 or n_left <= 0.0:
                out[i] = np.nan
            else:
                out[i] = a / (p_left * n_left)
        tp_before += pos_g[g]
        fp_before += neg_g[g]


@njit(cache=True, nogil=True)
def _loo_one(p, sw, out):  # pragma: no cover - compiled
    full = eval_packed(p, sw)
    kid = p[0]
    if kid == 0 or kid == 1:
        _loo_mean(p[1], sw, full, kid == 1, out)
    elif kid == 4 and p[6] == 0:
        _loo_prf_binary(p[3], p[4], p[7], p[8], sw, full, out)
    elif kid == 5:
        _loo_roc_auc(p[3], p[1], p[4], sw, full, out)
    else:
        _loo_generic(p, sw, full, out)


@njit(cache=True, nogil=True)
def metric_loo(pa, pb, two, sw, out):  # pragma: no cover - compiled
    """Leave-one-out values: ``out[i]`` is the metric with ``sw[i]`` set to 0.

    Closed forms in O(n) for the weighted-mean metrics (accuracy, log_loss,
    brier_score, the regression errors), binary precision/recall/F1 and ROC
    AUC; other metrics make one O(n) kernel call per row (O(n^2) in all).
    """
    _loo_one(pa, sw, out)
    if two:
        tmp = np.empty(out.shape[0])
        _loo_one(pb, sw, tmp)
        for i in range(out.shape[0]):
            out[i] -= tmp[i]
