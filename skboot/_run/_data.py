"""The data of a run: arrays from numpy, tuples or pandas, and the NaN policy, applied
once before any work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._validation import param_error, value_error

__all__ = [
    "NAN_POLICIES",
    "Data",
    "apply_nan_policy",
    "check_numeric_columns",
    "nan_rows",
    "prepare_data",
    "to_array",
]


@dataclass(frozen=True)
class Data:
    """The data of a run: its arrays (rows are observations), the row count, and
    the pandas labels of the outputs when the user gave pandas."""

    arrays: tuple[np.ndarray, ...]
    n_samples: int
    labels: Any = None  # pandas column index / Series name, for labelled output
    kind: str = "numpy"  # "numpy", "series", "frame"


def prepare_data(data: Any, owner: str, paired: bool = True) -> Data:
    """One array, a tuple of arrays (paired, resampled jointly), or pandas."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    labels = None
    kind = "numpy"
    if isinstance(data, tuple):
        if len(data) == 0:
            raise param_error(
                "data", owner, "a non-empty array or tuple of arrays", data
            )
        arrays = tuple(to_array(a, owner) for a in data)
    else:
        if pd is not None and isinstance(data, pd.Series):
            labels, kind = data.name, "series"
        elif pd is not None and isinstance(data, pd.DataFrame):
            labels, kind = data.columns, "frame"
        arrays = (to_array(data, owner),)
    lengths = {a.shape[0] for a in arrays}
    if not paired:
        short = [a.shape[0] for a in arrays if a.shape[0] < 2]
        if short:
            raise value_error(
                "data",
                owner,
                f"must have at least 2 observations "
                f"in every sample. Got a sample of {short[0]} sample(s) instead.",
            )
        return Data(arrays, arrays[0].shape[0], labels, kind)
    if len(lengths) != 1:
        raise value_error(
            "data",
            owner,
            f"must hold arrays of one length (paired "
            f"samples are resampled jointly). Got lengths {[a.shape[0] for a in arrays]} "
            "instead.",
        )
    n = lengths.pop()
    if n < 2:
        raise value_error(
            "data",
            owner,
            f"must have at least 2 observations. Got {n} sample(s) instead.",
        )
    return Data(arrays, n, labels, kind)


def to_array(a: Any, owner: str) -> np.ndarray:
    """One data array (pandas converted), at least 1-D."""
    try:
        arr = np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a)
    except (TypeError, ValueError) as exc:  # ragged nested sequences, ...
        raise value_error(
            "data",
            owner,
            f"must be an array-like with "
            f"observations on the first axis. Got a {type(a).__name__} that numpy "
            f"cannot convert to an array instead ({exc}).",
        ) from exc
    if arr.ndim == 0:
        raise value_error(
            "data",
            owner,
            f"must be an array with observations on "
            f"the first axis. Got a scalar ({arr!r}) instead.",
        )
    return arr


NAN_POLICIES = ("raise", "omit", "propagate")


def nan_rows(a: np.ndarray) -> np.ndarray:
    """Boolean mask of rows of ``a`` holding a NaN (float/complex/object data)."""
    if a.dtype.kind in "fc":
        bad = np.isnan(a)
    elif a.dtype.kind == "O":
        import pandas as pd

        bad = np.asarray(pd.isna(a), dtype=bool)
    else:
        return np.zeros(a.shape[0], dtype=bool)
    return bad.reshape(a.shape[0], -1).any(axis=1)


def apply_nan_policy(
    d: Data, policy: Any, owner: str, paired: bool, y: Any, groups: Any
) -> tuple[Data, Any, Any, int]:
    """Apply ``nan_policy`` (one of :data:`NAN_POLICIES`, checked by the entry
    point) before any work; returns data, y, groups, n_omitted."""
    if policy == "propagate":
        return d, y, groups, 0
    masks = [nan_rows(a) for a in d.arrays]
    counts = [int(m.sum()) for m in masks]
    if sum(counts) == 0:
        return d, y, groups, 0
    if policy == "raise":
        raise value_error(
            "data",
            owner,
            f"contains {sum(counts)} row(s) with NaN. "
            "Pass nan_policy='omit' to drop them, or nan_policy='propagate' to keep "
            "them (replicates holding a NaN are then undefined).",
        )
    if paired or len(d.arrays) == 1:
        keep = ~np.logical_or.reduce(masks)
        arrays = tuple(a[keep] for a in d.arrays)
        y = None if y is None else np.asarray(y)[keep]
        groups = None if groups is None else np.asarray(groups)[keep]
        omitted = int((~keep).sum())
    else:
        arrays = tuple(a[~m] for a, m in zip(d.arrays, masks, strict=True))
        omitted = sum(counts)
    short = min(a.shape[0] for a in arrays)
    if short < 2:
        raise value_error(
            "data",
            owner,
            f"has fewer than 2 observations left "
            f"after nan_policy='omit' dropped {omitted} row(s).",
        )
    labels = d.labels
    return Data(arrays, arrays[0].shape[0], labels, d.kind), y, groups, omitted


def check_numeric_columns(data: Data, statistic: str, owner: str) -> None:
    """Name the DataFrame columns a built-in statistic cannot read as numbers."""
    if data.kind != "frame" or data.arrays[0].dtype.kind != "O":
        return
    table = data.arrays[0]
    bad = []
    for j, label in enumerate(data.labels):
        try:
            table[:, j].astype(np.float64)
        except (TypeError, ValueError):
            bad.append((label, table[0, j] if table.shape[0] else None))
    if bad:
        names = ", ".join(repr(label) for label, _ in bad)
        raise value_error(
            "data",
            owner,
            f"must be numeric for the built-in "
            f"statistic {statistic!r}. Column(s) {names} are not (first value "
            f"{bad[0][1]!r}); select the numeric columns, for example "
            "data.select_dtypes('number'), or pass a callable statistic.",
        )
