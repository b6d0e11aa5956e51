"""Parameter checks and their messages.

Every message names the parameter, the owner, what is allowed and what was given:
"The 'n_resamples' parameter of Bootstrap must be an int >= 1. Got 0 instead."
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_array_1d_labels",
    "check_consistent_length",
    "check_int",
    "check_n_jobs",
    "check_n_samples",
    "check_one_of",
    "param_error",
]


def param_error(name: str, owner: str, allowed: str, got: Any) -> ValueError:
    """Build the standard ValueError for a bad parameter."""
    return ValueError(
        f"The '{name}' parameter of {owner} must be {allowed}. Got {got!r} instead."
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    min_value: int | None = None,
    max_value: int | None = None,
) -> int:
    """Check that ``value`` is an int (not a bool or float) in ``[min, max]``."""
    if min_value is not None and max_value is not None:
        allowed = f"an int in [{min_value}, {max_value}]"
    elif min_value is not None:
        allowed = f"an int >= {min_value}"
    elif max_value is not None:
        allowed = f"an int <= {max_value}"
    else:
        allowed = "an int"
    if not _is_int(value):
        raise param_error(name, owner, allowed, value)
    value = int(value)
    if (min_value is not None and value < min_value) or (
        max_value is not None and value > max_value
    ):
        raise param_error(name, owner, allowed, value)
    return value


def check_n_jobs(value: Any, owner: str) -> int | None:
    """``n_jobs``: None or a nonzero int, as joblib accepts (checked before any
    work; joblib itself would only fail at dispatch, without naming the owner)."""
    if value is None:
        return None
    allowed = (
        "an int other than 0 (or None; negative values count back from the "
        "number of CPUs, -1 meaning all, as in joblib)"
    )
    if not _is_int(value) or int(value) == 0:
        raise param_error("n_jobs", owner, allowed, value)
    return int(value)


def check_one_of(value: Any, name: str, owner: str, options: tuple[Any, ...]) -> Any:
    """Check that ``value`` is one of ``options`` (exact spelling, no aliases)."""
    try:
        ok = value in options
    except Exception:  # unhashable or un-comparable: certainly not an option
        ok = False
    if not ok:
        listed = ", ".join(repr(o) for o in options)
        raise param_error(name, owner, f"one of {{{listed}}}", value)
    return value


def n_samples_of(X: Any, name: str = "X", owner: str | None = None) -> int:
    """Number of rows of an array-like (pandas, numpy, list)."""
    if hasattr(X, "shape") and len(getattr(X, "shape", ())) >= 1:
        return int(X.shape[0])
    try:
        return len(X)
    except TypeError as exc:
        of = f" of {owner}" if owner else ""
        raise ValueError(
            f"The '{name}' parameter{of} must be an array-like with a first axis of "
            f"samples. Got {type(X).__name__} instead."
        ) from exc


def check_n_samples(X: Any, owner: str, *, minimum: int = 2) -> int:
    """Number of rows of ``X``, which must be at least ``minimum``."""
    if X is None:
        raise param_error("X", owner, "an array-like of samples", None)
    n = n_samples_of(X, "X", owner)
    if n < minimum:
        raise ValueError(
            f"The 'X' parameter of {owner} must have at least {minimum} samples. "
            f"Got {n} instead."
        )
    return n


def check_consistent_length(values: Any, name: str, owner: str, n_samples: int) -> None:
    """Check that ``values`` (``y`` or ``groups``), when given, has one entry per
    row of ``X``, as scikit-learn's splitters do."""
    if values is None:
        return
    m = n_samples_of(values, name, owner)
    if m != n_samples:
        raise ValueError(
            f"The '{name}' parameter of {owner} must have one entry per sample of X "
            f"({n_samples}). Got {m} instead."
        )


def check_array_1d_labels(
    values: Any, name: str, owner: str, n_samples: int
) -> np.ndarray:
    """Check a label vector (``y`` or ``groups``): 1-D, length n, no NaN/None.

    Returns the integer codes of the labels in sorted order of the unique labels.
    """
    if values is None:
        raise ValueError(
            f"The '{name}' parameter of {owner} is required: pass {name}=... to "
            "split/fit. Got None instead."
        )
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be 1-D with one label per "
            f"sample. Got an array of shape {arr.shape} instead."
        )
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"The '{name}' parameter of {owner} must have one label per sample "
            f"({n_samples}). Got {arr.shape[0]} labels instead."
        )
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(
            f"The '{name}' parameter of {owner} must not contain NaN. "
            f"Got {int(np.isnan(arr).sum())} NaN label(s) instead."
        )
    if arr.dtype.kind == "O":
        missing = sum(
            1 for v in arr if v is None or (isinstance(v, float) and np.isnan(v))
        )
        if missing:
            raise ValueError(
                f"The '{name}' parameter of {owner} must not contain missing "
                f"labels (None/NaN). Got {missing} missing label(s) instead."
            )
    try:
        _, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            f"The '{name}' parameter of {owner} must hold sortable labels of one "
            f"type. Got mixed types instead ({exc})."
        ) from exc
    return codes.reshape(-1).astype(np.int64)
