"""Class labels as scikit-learn reads them: which class of a binary metric is the
positive one (``pos_label``), and the classes a multiclass average counts
(``labels``).

Labels may be numbers, strings or any other orderable values of one type; they
are encoded once per dataset into the int64 codes the kernels take, so a run on
text labels draws and evaluates exactly what the run on the equivalent 0/1 labels
does.  The positive class of a binary metric follows scikit-learn, per metric
(``rule``):

- ``"given"`` (``precision``, ``recall``, ``f1``, ``average_precision``):
  ``pos_label`` (default 1) must be one of the labels when two are present, as
  ``precision_score`` and ``average_precision_score`` require;
- ``"greater"`` (``roc_auc``, ``log_loss``): without ``pos_label``, 1 for
  numbers within {0, 1} or {-1, 1}, else the greater of the two classes
  (``roc_auc_score`` binarizes the sorted classes; ``log_loss`` takes a 1-d
  ``y_pred`` as the probability of the greater class);
- ``"numbers"`` (``brier_score``): without ``pos_label``, 1 for numbers within
  {0, 1} or {-1, 1}, else the greater number; strings need ``pos_label``, as in
  ``brier_score_loss``.

A given ``pos_label`` must be one of the two classes present, whatever the rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot.metrics._checks import (
    EPS,
    check_array,
    check_labels,
    check_proba_values,
    check_same_length,
    invalid,
    show,
)

__all__ = [
    "POSITIVE_RULES",
    "binary_classes",
    "binary_codes",
    "binary_label_codes",
    "check_pos_label",
    "default_positive",
    "label_union",
    "listed_codes",
    "positive_label",
    "prepare_proba",
]

#: How a binary metric picks its positive class when ``pos_label`` is None.
POSITIVE_RULES = ("given", "greater", "numbers")


def _is_text(arr: np.ndarray) -> bool:
    """Strings (or objects that are not numbers) rather than numbers."""
    if arr.dtype.kind in "US":
        return True
    if arr.dtype.kind != "O" or arr.size == 0:
        return False
    first = arr.flat[0]
    return not isinstance(first, int | float | complex | np.number | np.bool_)


def label_union(metric: str, named: list[tuple[str, Any]]) -> np.ndarray:
    """The sorted distinct labels of ``named`` (``(param, array)`` pairs), all
    checked to be labels of one type: all numbers or all strings."""
    arrays = []
    first_param, first = named[0]
    for param, value in named:
        arr = check_labels(np.asarray(value), param, metric)
        if _is_text(arr) != _is_text(np.asarray(first)):
            raise invalid(
                param,
                metric,
                f"an array of labels of the same type as {first_param} (numbers or "
                "strings)",
                f"dtype {arr.dtype} with {first_param} of dtype {np.asarray(first).dtype}",
            )
        arrays.append(arr.reshape(-1))
    try:
        return np.unique(np.concatenate(arrays))
    except TypeError:
        raise invalid(
            named[-1][0],
            metric,
            f"an array of labels of the same type as {first_param} (numbers or "
            "strings)",
            "labels of mixed types",
        ) from None


def default_positive(classes: np.ndarray) -> Any:
    """1 for numeric classes within {0, 1} or {-1, 1} (scikit-learn's default
    positive class), else None."""
    if classes.dtype.kind not in "biuf":
        return None
    values = set(classes.tolist())
    return 1 if values <= {0, 1} or values <= {-1, 1} else None


def _among(value: Any, classes: np.ndarray) -> bool:
    return any(c == value for c in classes.tolist())


def check_pos_label(
    pos_label: Any, classes: np.ndarray, metric: str, where: str
) -> Any:
    """``pos_label`` as a Python scalar; it must be one of ``classes`` when they
    are two (or of their type when there is one)."""
    if np.ndim(pos_label) != 0:
        raise invalid("pos_label", metric, "a single class label", repr(pos_label))
    if isinstance(pos_label, np.generic):
        pos_label = pos_label.item()
    text = isinstance(pos_label, str)
    if not _among(pos_label, classes) and (
        classes.shape[0] >= 2 or text != _is_text(classes)
    ):
        raise invalid(
            "pos_label",
            metric,
            f"one of the labels of {where} ({show(classes)})",
            repr(pos_label),
        )
    return pos_label


def positive_label(
    metric: str, classes: np.ndarray, pos_label: Any, rule: str, where: str
) -> Any:
    """The positive class of a binary metric (see the module notes); None when
    ``classes`` is one label that cannot be told positive or negative."""
    if pos_label is not None or rule == "given":
        return check_pos_label(pos_label, classes, metric, where)
    default = default_positive(classes)
    if default is not None:
        return default
    if rule == "numbers" and _is_text(classes):
        raise invalid(
            "pos_label",
            metric,
            f"given when {where} holds strings ({show(classes)}): name the class "
            "whose probability y_pred is",
            "None",
        )
    if rule == "numbers" or classes.shape[0] == 2:
        return (
            classes[-1].item() if isinstance(classes[-1], np.generic) else classes[-1]
        )
    return None


def binary_label_codes(
    metric: str, named: list[tuple[str, np.ndarray]], pos_label: Any, rule: str
) -> tuple[list[np.ndarray], np.ndarray, Any]:
    """Codes (1: the positive class) of ``named`` label arrays, which together
    hold at most two classes; the classes and the positive label."""
    classes = label_union(metric, named)
    where = " and ".join(param for param, _ in named)
    if classes.shape[0] > 2:
        wide = [p for p, a in named if np.unique(a).shape[0] > 2]
        param = wide[0] if wide else named[-1][0]
        allowed = (
            "an array of binary labels (two classes at most)"
            if len(named) == 1
            else f"an array of binary labels with average='binary' (two classes in "
            f"{where} together; pass average='micro' or 'macro' for more)"
        )
        raise invalid(
            param, metric, allowed, f"{classes.shape[0]} classes {show(classes)}"
        )
    positive = positive_label(metric, classes, pos_label, rule, where)
    codes = [binary_codes(a, classes, positive) for _, a in named]
    return codes, binary_classes(classes, positive), positive


def binary_codes(y: np.ndarray, classes: np.ndarray, positive: Any) -> np.ndarray:
    """int64 1 where ``y`` is the ``positive`` label, 0 elsewhere (``y``'s labels
    are among the sorted ``classes``)."""
    is_positive = np.array([c == positive for c in classes.tolist()], dtype=bool)
    return np.ascontiguousarray(
        is_positive[np.searchsorted(classes, y)], dtype=np.int64
    )


def listed_codes(
    metric: str, y_true: np.ndarray, y_pred: np.ndarray, labels: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes for an average over the classes in ``labels`` (scikit-learn's
    ``labels=`` of precision, recall and F1): the listed classes are 0..L-1 in
    sorted order, every other class is L.

    Returns ``(listed, codes_true, codes_pred)``.
    """
    lab = check_array(labels, "labels", metric)
    every = label_union(
        metric, [("y_true", y_true), ("y_pred", y_pred), ("labels", lab)]
    )
    listed = np.unique(lab)
    if listed.shape[0] != lab.shape[0]:
        raise invalid("labels", metric, "an array of distinct class labels", show(lab))
    code_of = np.full(every.shape[0], listed.shape[0], dtype=np.int64)
    code_of[np.searchsorted(every, listed)] = np.arange(listed.shape[0])
    codes_true = np.ascontiguousarray(code_of[np.searchsorted(every, y_true)])
    codes_pred = np.ascontiguousarray(code_of[np.searchsorted(every, y_pred)])
    return listed, codes_true, codes_pred


def binary_classes(classes: np.ndarray, positive: Any) -> np.ndarray:
    """The sorted classes with the positive one among them: what the codes of a
    binary metric stand for (1 for ``positive``, 0 for the other).  Numbers
    within {0, 1} (or {-1, 1}) whose positive class is 1 give both classes."""
    if positive is not None and default_positive(classes) == 1 and positive == 1:
        values = set(classes.tolist())
        return np.array([0, 1]) if values <= {0, 1} else np.array([-1, 1])
    if positive is None or _among(positive, classes):
        return classes
    return np.unique(np.append(classes, positive))


def _proba_classes(
    y_true: np.ndarray, labels: Any, n_columns: int, metric: str
) -> np.ndarray:
    """The sorted classes behind the ``n_columns`` columns of ``y_pred`` (0 for a
    1-d ``y_pred``): ``labels`` (every label of ``y_true`` listed there) or
    those of ``y_true``."""
    if labels is None:
        classes = label_union(metric, [("y_true", y_true)])
        if n_columns and classes.shape[0] != n_columns:
            raise invalid(
                "y_pred",
                metric,
                f"a matrix with one column per class of y_true ({show(classes)}; "
                "pass labels= to list classes absent from y_true)",
                f"{n_columns} columns",
            )
        return classes
    lab = check_array(labels, "labels", metric)
    label_union(metric, [("y_true", y_true), ("labels", lab)])
    classes = np.unique(lab)
    if classes.shape[0] != lab.shape[0] or classes.shape[0] < 2:
        raise invalid(
            "labels", metric, "an array of at least 2 distinct class labels", show(lab)
        )
    missing = np.setdiff1d(np.unique(y_true), classes)
    if missing.size:
        raise invalid(
            "y_true",
            metric,
            f"an array of labels listed in labels ({show(classes)})",
            f"labels {show(missing)}",
        )
    if classes.shape[0] != max(n_columns, 2):
        raise invalid(
            "y_pred",
            metric,
            f"a matrix with one column per label in labels ({classes.shape[0]})",
            f"{n_columns} columns" if n_columns else "a 1-d array (2 classes)",
        )
    return classes


def _binary_proba(
    y_true: np.ndarray, labels: Any, pos_label: Any, rule: str, metric: str
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Codes (1: the positive class), classes and positive label of a 1-d
    ``y_pred``, the probability of the positive class."""
    if labels is not None and rule == "numbers":
        raise invalid(
            "labels",
            metric,
            "None when y_pred is 1-d (the probability of the positive class; name "
            "that class with pos_label)",
            repr(labels),
        )
    classes = _proba_classes(y_true, labels, 0, metric)
    where = "labels" if labels is not None else "y_true"
    if classes.shape[0] > 2:
        raise invalid(
            "y_true",
            metric,
            "an array of binary labels (two classes at most) when y_pred is 1-d; "
            "pass an (n_samples, n_classes) matrix of probabilities for more",
            f"{classes.shape[0]} classes {show(classes)}",
        )
    positive = positive_label(metric, classes, pos_label, rule, where)
    if positive is None:
        raise invalid(
            "y_true",
            metric,
            "an array holding both classes when y_pred is 1-d, unless labels= or "
            "pos_label= names them",
            f"the one class {show(classes)}",
        )
    codes = binary_codes(y_true, classes, positive)
    return codes, binary_classes(classes, positive), positive


def prepare_proba(
    y_true: Any,
    y_pred: Any,
    labels: Any,
    metric: str,
    pos_label: Any = None,
    rule: str = "greater",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """Validate probabilistic predictions.

    Returns ``(codes, proba, classes, positive)``: for 1-d ``y_pred`` (the
    probability of the positive class, ``positive``, picked by ``rule``),
    ``codes`` is 1 for that class and 0 for the other, and ``proba`` is 1-d;
    for a matrix, ``codes`` indexes its columns (the sorted ``classes``) and
    ``positive`` is None.
    """
    yt = check_array(y_true, "y_true", metric)
    yp = check_array(y_pred, "y_pred", metric, ndims=(1, 2))
    check_same_length(metric, yt, yp)
    if yp.ndim == 2 and yp.shape[1] == 1:
        yp = yp[:, 0]
    proba = check_proba_values(yp, metric)
    if proba.ndim == 1:
        codes, classes, positive = _binary_proba(yt, labels, pos_label, rule, metric)
        return codes, proba, classes, positive
    if pos_label is not None:
        raise invalid(
            "pos_label",
            metric,
            "None when y_pred is a matrix (its columns follow the sorted classes; "
            "see labels)",
            repr(pos_label),
        )
    classes = _proba_classes(yt, labels, proba.shape[1], metric)
    sums = proba.sum(axis=1)
    bad = ~np.isclose(sums, 1.0, rtol=math.sqrt(EPS), atol=1e-8)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise invalid(
            "y_pred",
            metric,
            "a matrix of probabilities whose rows sum to 1",
            f"{int(bad.sum())} row(s) that do not (row {first} sums to "
            f"{float(sums[first])!r})",
        )
    codes = np.ascontiguousarray(np.searchsorted(classes, yt), dtype=np.int64)
    return codes, proba, classes, None
