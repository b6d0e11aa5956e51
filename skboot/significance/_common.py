"""What the tests share: sample preparation, the p-value rule, parameter checks."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from skboot._exceptions import StatisticError, UndefinedStatisticWarning, warn
from skboot._validation import integral_count, lower, param_error

__all__ = [
    "ALTERNATIVES",
    "MAX_REPLICATES",
    "as_output",
    "check_alternative",
    "check_n_resamples",
    "check_vectorized",
    "float_dtype",
    "non_finite_note",
    "prepare_samples",
    "pvalues",
    "result_dtype",
    "scalar_or_array",
    "warn_undefined",
    "warn_undefined_observed",
]

ALTERNATIVES = ("two-sided", "less", "greater")
#: Replicate numbers are 32-bit (the stream reads replicate ``b`` at ``b * 2**32``).
MAX_REPLICATES = 2**32 - 1


def check_alternative(alternative: Any, owner: str) -> str:
    """``alternative`` in any letter case, returned in lowercase (as scipy)."""
    alternative = lower(alternative)
    if not isinstance(alternative, str) or alternative not in ALTERNATIVES:
        raise param_error(
            "alternative", owner, "one of {'two-sided', 'less', 'greater'}", alternative
        )
    return alternative


def check_n_resamples(value: Any, owner: str, *, allow_inf: bool) -> int | float:
    """An int in [1, 2**32 - 1], or ``numpy.inf`` (exact tests) when allowed."""
    allowed = f"an int in [1, {MAX_REPLICATES}]" + (
        " or numpy.inf (exact test)" if allow_inf else ""
    )
    value = integral_count(value)  # 1e4, as scipy accepts it
    if allow_inf and isinstance(value, (float, np.floating)) and math.isinf(value):
        if value > 0:
            return math.inf
        raise param_error("n_resamples", owner, allowed, value)
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (numbers.Integral, np.integer))
        or not 1 <= int(value) <= MAX_REPLICATES
    ):
        raise param_error("n_resamples", owner, allowed, value)
    return int(value)


def check_vectorized(value: Any, owner: str) -> bool | None:
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise param_error("vectorized", owner, "None, True or False", value)


def prepare_samples(
    data: Any, axis: Any, owner: str, *, min_obs: int = 2
) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """Samples with observations moved to the last axis and the other axes
    broadcast together (singleton axes prepended to samples of fewer
    dimensions first, as scipy does); returns them and the broadcast shape."""
    if isinstance(data, (str, bytes)) or not isinstance(data, Sequence):
        if isinstance(data, np.ndarray):
            raise param_error(
                "data",
                owner,
                "a tuple of samples (wrap one array as (x,))",
                f"an array of shape {data.shape}",
            )
        raise param_error("data", owner, "a tuple of samples", type(data).__name__)
    if len(data) == 0:
        raise param_error("data", owner, "a non-empty tuple of samples", data)
    if isinstance(axis, (bool, np.bool_)) or not isinstance(
        axis, (numbers.Integral, np.integer)
    ):
        raise param_error("axis", owner, "an int", axis)
    arrays = []
    for j, a in enumerate(data):
        try:
            arr = np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"The 'data' parameter of {owner} must hold array-likes of numbers. "
                f"Sample {j} cannot be converted to an array ({exc})."
            ) from exc
        if arr.dtype.kind not in "biuf":
            raise ValueError(
                f"The 'data' parameter of {owner} must hold real numbers. Got "
                f"sample {j} with dtype {arr.dtype} instead."
            )
        if arr.ndim == 0:
            raise ValueError(
                f"The 'data' parameter of {owner} must hold arrays of observations. "
                f"Got a scalar as sample {j} instead."
            )
        arrays.append(arr)
    ndim = max(a.ndim for a in arrays)
    ax = int(axis)
    if not -ndim <= ax < ndim:
        raise param_error("axis", owner, f"an int in [{-ndim}, {ndim - 1}]", axis)
    ax %= ndim
    moved: list[np.ndarray] = []
    for a in arrays:
        a = a.reshape((1,) * (ndim - a.ndim) + a.shape)
        moved.append(np.moveaxis(a, ax, -1))
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in moved))
    except ValueError as exc:
        shapes = [a.shape for a in arrays]
        raise ValueError(
            f"The 'data' parameter of {owner} must hold samples whose shapes "
            f"broadcast except along axis {axis}. Got shapes {shapes} instead."
        ) from exc
    out = []
    for j, a in enumerate(moved):
        n_obs = int(np.shape(a)[-1])
        if n_obs < min_obs:
            raise ValueError(
                f"The 'data' parameter of {owner} must have at least {min_obs} "
                f"observations in every sample along axis {axis}. Got "
                f"{n_obs} in sample {j} instead."
            )
        out.append(np.ascontiguousarray(np.broadcast_to(a, (*batch, n_obs))))
    return out, tuple(batch)


def as_output(value: Any, shape: tuple[int, ...] | None, where: str, b: int) -> Any:
    """The statistic's value as a float array of the expected shape."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatisticError(
            f"The statistic must return numbers; on {where} it returned "
            f"{type(value).__name__}.",
            b,
        ) from exc
    if shape is not None and arr.shape != shape:
        raise StatisticError(
            f"The statistic returned shape {arr.shape} on {where}, but {shape} on "
            "the original data.",
            b,
        )
    return arr


def pvalues(
    observed: np.ndarray,
    null: np.ndarray,
    alternative: str,
    adjustment: int,
    scale: float = 0.0,
) -> np.ndarray:
    """scipy's p-value rule, per column of ``null`` (B, k), in the floating
    dtype of ``observed``.

    A null value counts as at least as extreme as the observed ``t`` when it is
    ``>= t - gamma`` ("greater") or ``<= t + gamma`` ("less"), with the
    tolerance ``gamma = 100 * eps * max(|t|, scale)`` (``eps`` of ``t``'s
    dtype): values that differ from ``t`` only by rounding count as ties.
    ``scale`` is the magnitude of the data as the statistic sees them (0 for
    callables: scipy's relative tolerance); it keeps the tolerance away from 0
    where ``t`` is 0.  An infinite ``t`` has ``gamma = 0`` (equal infinities
    tie).  ``p = (count + adjustment) / (B + adjustment)``: ``adjustment`` is 1
    for randomized tests (Phipson & Smyth 2010) and 0 for exact enumeration;
    "two-sided" is twice the smaller one-sided p-value, clipped to 1.  NaN null
    values never count; +-inf count as the extreme values they are.  A NaN
    ``t`` (undefined) gives a NaN p-value.
    """
    obs = np.asarray(observed)
    dtype = obs.dtype if obs.dtype.kind == "f" else np.dtype(np.float64)
    obs = obs.astype(dtype, copy=False)
    null = np.asarray(null).astype(dtype, copy=False)
    B = null.shape[0]
    eps = np.finfo(dtype).eps
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(obs)
        mag = np.where(finite, np.maximum(np.abs(obs), dtype.type(scale)), 0)
        gamma = (100 * eps * mag).astype(dtype)

        def less() -> np.ndarray:
            count = np.count_nonzero(null <= obs + gamma, axis=0)
            return (count + adjustment) / (B + adjustment)

        def greater() -> np.ndarray:
            count = np.count_nonzero(null >= obs - gamma, axis=0)
            return (count + adjustment) / (B + adjustment)

        if alternative == "less":
            p = less()
        elif alternative == "greater":
            p = greater()
        else:
            p = 2.0 * np.minimum(less(), greater())
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    return np.where(np.isnan(obs), np.nan, p)


def warn_undefined(null: np.ndarray, owner: str, announce: bool = True) -> int:
    """Count the replicates with a NaN value and warn about them (+-inf are
    values: they count in the p-value); ``announce=False`` when the observed
    statistic is undefined already (one warning says it)."""
    bad = np.isnan(null.reshape(null.shape[0], -1)).any(axis=1)
    n_bad = int(bad.sum())
    if n_bad and announce:
        warn(
            f"{owner}: the statistic was NaN (undefined) on {n_bad} of "
            f"{null.shape[0]} replicates (first: replicate "
            f"{int(np.flatnonzero(bad)[0])}); they never count as extreme in the "
            "p-value (see result.n_undefined).",
            UndefinedStatisticWarning,
        )
    return n_bad


def warn_undefined_observed(observed: np.ndarray, owner: str, why: str) -> bool:
    """Warn when the observed statistic is NaN (its p-value is then NaN);
    ``why`` says what made it undefined.  Returns whether it warned."""
    nan = np.isnan(np.asarray(observed, dtype=np.float64))
    if not nan.any():
        return False
    where = (
        ""
        if nan.ndim == 0 or nan.size == 1
        else (f" (at {int(nan.sum())} of {nan.size} positions)")
    )
    warn(
        f"{owner}: the statistic is undefined (NaN) on the data{where}: {why}. "
        "Its p-value is NaN; a NaN statistic is never evidence against the null.",
        UndefinedStatisticWarning,
    )
    return True


def result_dtype(value: Any) -> np.dtype:
    """The floating dtype of a statistic's value (float64 when it is not
    floating, e.g. an int or a Python float)."""
    dt = getattr(value, "dtype", None)
    if dt is None or not isinstance(dt, np.dtype) or dt.kind != "f":
        return np.dtype(np.float64)
    return dt


def float_dtype(samples: Sequence[np.ndarray]) -> np.dtype:
    """The floating dtype of the data, as scipy takes it for p-values:
    ``numpy.result_type`` of the samples, float64 when that is not floating."""
    dt = np.result_type(*[np.asarray(s).dtype for s in samples])
    return dt if dt.kind == "f" else np.dtype(np.float64)


def non_finite_note(samples: Sequence[np.ndarray]) -> str:
    """The note "sample j holds k NaN or infinite value(s)" for the first such
    sample, or an empty string."""
    for j, s in enumerate(samples):
        arr = np.asarray(s)
        if arr.dtype.kind == "f":
            bad = int(np.count_nonzero(~np.isfinite(arr)))
            if bad:
                return f"sample {j} holds {bad} NaN or infinite value(s)"
    return ""


def scalar_or_array(
    values: np.ndarray, shape: tuple[int, ...], dtype: Any = np.float64
) -> Any:
    """A scalar for a scalar statistic (a Python float for float64, a numpy
    scalar of ``dtype`` otherwise), else an array of ``shape`` and ``dtype``."""
    arr = np.asarray(values).astype(dtype).reshape(shape)
    if arr.ndim:
        return arr
    return float(arr) if arr.dtype == np.float64 else arr[()]
