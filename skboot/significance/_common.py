"""What the tests share: the parameter constraints, sample preparation, the
p-value rule and the undefined-value warnings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._validation import (
    ALTERNATIVES,
    N_JOBS,
    N_RESAMPLES,
    NONE,
    Constraint,
    Interval,
    Options,
    Predicate,
    integral_count,
    param_error,
    value_error,
)

__all__ = [
    "ALTERNATIVE",
    "COUNT",
    "EXACT",
    "RUN_CONSTRAINTS",
    "float_dtype",
    "non_finite_note",
    "prepare_samples",
    "pvalues",
    "result_dtype",
    "scalar_or_array",
    "warn_undefined",
    "warn_undefined_observed",
]


class _ScipyCount(Constraint):
    """:data:`~skboot._validation.N_RESAMPLES`, also given as an integral float
    (``1e4``, as scipy accepts it), passed on as an int."""

    def accepts(self, value: Any) -> bool:
        return N_RESAMPLES.accepts(integral_count(value))

    def normalize(self, value: Any) -> Any:
        return N_RESAMPLES.normalize(integral_count(value))

    @property
    def description(self) -> str:  # type: ignore[override]
        return N_RESAMPLES.description


#: ``n_resamples`` of the tests: N_RESAMPLES, integral floats included (scipy).
COUNT = _ScipyCount()
#: ``n_resamples=numpy.inf``: every distinct permutation (permutation_test).
EXACT = Predicate(
    lambda v: isinstance(v, (float, np.floating)) and v == math.inf,
    "numpy.inf (exact test)",
)
#: ``alternative`` in any letter case, passed on in lowercase (as scipy).
ALTERNATIVE = Options(ALTERNATIVES, case_insensitive=True)
#: The run's parameters every test shares.
RUN_CONSTRAINTS: dict[str, list[Constraint]] = {
    "n_jobs": [N_JOBS, NONE],
    "chunk_size": [Interval("int", 1), NONE],
}


def prepare_samples(
    data: Any, axis: int, owner: str, *, min_obs: int = 2
) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """Samples with observations moved to the last axis and the other axes
    broadcast together (singleton axes prepended to samples of fewer
    dimensions first, as scipy does); returns them and the broadcast shape.

    Each sample keeps its own real dtype (ints, bools, float32 ...): the
    statistic sees the data as given and the result keeps the data's floating
    dtype, as in scipy.  ``axis`` is an int (the caller's table checks it).
    """
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
    arrays = [_sample(a, j, owner) for j, a in enumerate(data)]
    ndim = max(a.ndim for a in arrays)
    if not -ndim <= axis < ndim:
        raise param_error("axis", owner, f"an int in [{-ndim}, {ndim - 1}]", axis)
    ax = axis % ndim
    moved: list[np.ndarray] = []
    for a in arrays:
        a = a.reshape((1,) * (ndim - a.ndim) + a.shape)
        moved.append(np.moveaxis(a, ax, -1))
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in moved))
    except ValueError as exc:
        shapes = [a.shape for a in arrays]
        raise value_error(
            "data",
            owner,
            f"must hold samples whose shapes broadcast except along axis {axis}. "
            f"Got shapes {shapes} instead.",
        ) from exc
    out = []
    for j, a in enumerate(moved):
        n_obs = int(np.shape(a)[-1])
        if n_obs < min_obs:
            raise value_error(
                "data",
                owner,
                f"must have at least {min_obs} observations in every sample along "
                f"axis {axis}. Got {n_obs} in sample {j} instead.",
            )
        out.append(np.ascontiguousarray(np.broadcast_to(a, (*batch, n_obs))))
    return out, tuple(batch)


def _sample(value: Any, j: int, owner: str) -> np.ndarray:
    """Sample ``j`` as an array of real numbers in its own dtype."""
    try:
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
    except (TypeError, ValueError) as exc:
        raise value_error(
            "data",
            owner,
            "must hold array-likes of numbers. Sample "
            f"{j} cannot be converted to an array ({exc}).",
        ) from exc
    if arr.dtype.kind not in "biuf":
        raise value_error(
            "data",
            owner,
            f"must hold real numbers. Got sample {j} with dtype {arr.dtype} instead.",
        )
    if arr.ndim == 0:
        raise value_error(
            "data",
            owner,
            f"must hold arrays of observations. Got a scalar as sample {j} instead.",
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
