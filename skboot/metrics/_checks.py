"""Input checks of the metrics' ``prepare_*`` functions, raised before any work.

A message names the parameter, the metric (as the owner), what is allowed and
what was given (:func:`skboot._validation.value_error`, the one builder):
"The 'y_pred' parameter of roc_auc must contain only finite values. Got 1 NaN or
infinite value(s) instead."  Numeric arrays (scores, probabilities, regression
targets) are converted by :func:`skboot._validation.as_float_array`; the
options of the metrics are constraint tables (:data:`PRF_OPTIONS`,
:data:`R2_OPTIONS`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot._validation import (
    BOOL,
    Constraint,
    Options,
    Predicate,
    as_float_array,
    is_real,
    value_error,
)

__all__ = [
    "AVERAGE_CODES",
    "EPS",
    "PRF_OPTIONS",
    "R2_OPTIONS",
    "check_array",
    "check_labels",
    "check_proba_values",
    "check_same_length",
    "encode",
    "invalid",
    "prepare_labels",
    "prepare_regression",
    "show",
]

EPS = float(np.finfo(np.float64).eps)

#: ``average`` of precision / recall / F1 -> the kernel's code.
AVERAGE_CODES = {"binary": 0, "micro": 1, "macro": 2}

#: The options of precision / recall / F1 that a table states.
PRF_OPTIONS: dict[str, list[Constraint]] = {
    "average": [Options(tuple(AVERAGE_CODES))],
    "zero_division": [
        Predicate(
            lambda v: is_real(v) and (math.isnan(v) or v in (0, 1)),
            "one of {0.0, 1.0, nan}",
        )
    ],
}
#: The option of r2.
R2_OPTIONS: dict[str, list[Constraint]] = {"force_finite": [BOOL]}


def invalid(param: str, metric: str, allowed: str, got: str) -> ValueError:
    """The standard message, naming the metric as the owner; ``got`` is already
    formatted (a shape, a count, a list of labels)."""
    return value_error(param, metric, f"must be {allowed}. Got {got} instead.")


def show(values: np.ndarray, limit: int = 10) -> str:
    values = np.asarray(values)
    if values.size <= limit:
        return str(values.tolist())
    return str(values[:limit].tolist())[:-1] + ", ...]"


def check_array(
    x: Any, param: str, metric: str, ndims: tuple[int, ...] = (1,)
) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim not in ndims or arr.shape[0] == 0:
        allowed = (
            "a non-empty 1-d array"
            if ndims == (1,)
            else "a non-empty array with 1 or 2 dimensions"
        )
        raise invalid(param, metric, allowed, f"an array of shape {arr.shape}")
    return arr


def check_same_length(metric: str, y_true: np.ndarray, y_pred: np.ndarray) -> int:
    n = y_true.shape[0]
    if y_pred.shape[0] != n:
        raise invalid(
            "y_pred",
            metric,
            f"an array with as many rows as y_true ({n})",
            f"{y_pred.shape[0]} rows",
        )
    return n


def check_labels(arr: np.ndarray, param: str, metric: str) -> np.ndarray:
    """Reject NaN labels and unorderable label arrays."""
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise invalid(
            param,
            metric,
            "an array of class labels without NaN or infinity",
            f"{int((~np.isfinite(arr)).sum())} NaN or infinite value(s)",
        )
    if arr.dtype.kind == "c":
        raise invalid(param, metric, "an array of class labels", f"dtype {arr.dtype}")
    if arr.dtype.kind == "O":
        try:
            uniq = np.unique(arr)
        except TypeError:
            raise invalid(
                param,
                metric,
                "an array of class labels of one type (all numbers or all strings)",
                "labels of mixed types",
            ) from None
        if any(isinstance(v, float) and math.isnan(v) for v in uniq):
            raise invalid(
                param,
                metric,
                "an array of class labels without NaN or infinity",
                "NaN",
            )
    return arr


def _is_string_kind(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "USO" and arr.size > 0 and isinstance(arr.flat[0], str)


def encode(
    y_true: np.ndarray, y_pred: np.ndarray, metric: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer-code two label arrays against their sorted union of classes."""
    check_labels(y_true, "y_true", metric)
    check_labels(y_pred, "y_pred", metric)
    if _is_string_kind(y_true) != _is_string_kind(y_pred):
        raise invalid(
            "y_pred",
            metric,
            "an array of labels of the same type as y_true (numbers or strings)",
            f"dtype {y_pred.dtype} with y_true of dtype {y_true.dtype}",
        )
    try:
        classes = np.unique(np.concatenate([y_true, y_pred]))
    except TypeError:
        raise invalid(
            "y_pred",
            metric,
            "an array of labels of the same type as y_true (numbers or strings)",
            "labels of mixed types",
        ) from None
    codes_true = np.ascontiguousarray(np.searchsorted(classes, y_true), dtype=np.int64)
    codes_pred = np.ascontiguousarray(np.searchsorted(classes, y_pred), dtype=np.int64)
    return classes, codes_true, codes_pred


def check_proba_values(p: np.ndarray, metric: str) -> np.ndarray:
    p = np.ascontiguousarray(as_float_array(p, "y_pred", metric))
    lo, hi = float(p.min()), float(p.max())
    if lo < 0.0 or hi > 1.0:
        raise invalid(
            "y_pred",
            metric,
            "an array of probabilities in [0, 1]",
            f"values in [{lo}, {hi}]",
        )
    return p


def prepare_regression(
    y_true: Any, y_pred: Any, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    yt = check_array(y_true, "y_true", metric)
    yp = check_array(y_pred, "y_pred", metric)
    check_same_length(metric, yt, yp)
    return (
        np.ascontiguousarray(as_float_array(yt, "y_true", metric)),
        np.ascontiguousarray(as_float_array(yp, "y_pred", metric)),
    )


def prepare_labels(
    y_true: Any, y_pred: Any, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    yt = check_array(y_true, "y_true", metric)
    yp = check_array(y_pred, "y_pred", metric)
    check_same_length(metric, yt, yp)
    return yt, yp
