"""The checks of a data-parallel run (data in a dask collection), made before any
work: which statistics, resamplers and options run without bringing the rows to
the client, and the data's type, shape and row counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._validation import is_int, param_error, value_error
from skboot.resamplers import (
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)

__all__ = [
    "DATA_PARALLEL_RESAMPLERS",
    "DATA_PARALLEL_STATISTICS",
    "DaskRows",
    "check_data_parallel",
    "dask_rows",
    "holds_dask",
    "is_dask_collection",
    "require_data_parallel_scheme",
    "require_poisson",
    "row_starts",
]

#: The statistics a data-parallel run computes from per-partition sums.
DATA_PARALLEL_STATISTICS = (
    "corr",
    "mean",
    "median",
    "proportion",
    "quantile",
    "std",
    "sum",
    "var",
)
_NAMES = ", ".join(repr(s) for s in DATA_PARALLEL_STATISTICS)
#: The resamplers a data-parallel bootstrap runs (None means Bootstrap).
DATA_PARALLEL_RESAMPLERS = (
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)
_SCHEMES = ", ".join(f"{c.__name__}(...)" for c in DATA_PARALLEL_RESAMPLERS)
_WHAT = {"y": "strata", "groups": "group ids"}
_SMALL = (
    "For data that fit in memory, call .compute() on the collection and pass the "
    "numpy array or pandas object instead."
)


def is_dask_collection(obj: Any) -> bool:
    """Whether ``obj`` is a dask collection (array, DataFrame, Series, delayed),
    by the dask collection protocol, without importing dask."""
    graph = getattr(type(obj), "__dask_graph__", None)
    return graph is not None and callable(graph)


def holds_dask(*values: Any) -> bool:
    """Whether any value, or any member of a tuple value, is a dask collection."""
    for v in values:
        if is_dask_collection(v):
            return True
        if isinstance(v, tuple) and any(is_dask_collection(a) for a in v):
            return True
    return False


def _refuse(name: str, owner: str, text: str) -> ValueError:
    return value_error(name, owner, text + " " + _SMALL)


def check_data_parallel(
    data: Any,
    statistic: Any,
    resampler: Any,
    *,
    y: Any,
    groups: Any,
    statistic_kwargs: Any,
    owner: str,
    nan_policy: str,
    device: str,
    estimator: Any,
) -> tuple[str, int]:
    """Refuse, before any work, what a data-parallel run cannot do without
    bringing ``n`` values to the client; returns the statistic's name and its
    ``ddof``."""
    if isinstance(data, tuple) or not is_dask_collection(data):
        raise _refuse(
            "data",
            owner,
            "must be one dask array, DataFrame or Series to run data-parallel "
            "(tuples of arrays are not; y and groups may be dask collections "
            "only alongside dask data). "
            f"Got a {type(data).__name__}.",
        )
    if estimator is not None:
        raise _refuse(
            "estimator",
            owner,
            "must be None with data in a dask collection: estimator refits are "
            "not data-parallel.",
        )
    _check_labels(resampler, y, groups, owner)
    if not isinstance(statistic, str) or statistic not in DATA_PARALLEL_STATISTICS:
        what = "a callable" if callable(statistic) else repr(statistic)
        raise _refuse(
            "statistic",
            owner,
            f"must be one of {_NAMES} (or 'ols' of a pair (X, y)) with data in "
            "a dask collection (each "
            "partition reduces its rows to per-replicate sums or counts; a "
            f"callable would need every row in one place). Got {what}.",
        )
    if nan_policy == "propagate" and statistic in ("median", "quantile"):
        raise value_error(
            "nan_policy",
            owner,
            f"must be 'raise' for the statistic {statistic!r} with data in a dask "
            "collection (the order of NaN among the values is not defined "
            "there). Got 'propagate'. Drop them with the collection's own "
            "dropna() first.",
        )
    if nan_policy == "omit":
        raise value_error(
            "nan_policy",
            owner,
            "must be 'raise' or 'propagate' with data in a dask collection "
            "(dropping rows would renumber every later row of every partition). "
            "Got 'omit'. Drop them with the collection's own dropna() first.",
        )
    if device == "cuda":
        raise value_error(
            "device",
            owner,
            "must be 'cpu' or 'auto' with data in a dask collection (the "
            "partitions run on the dask workers). Got 'cuda'.",
        )
    return statistic, _ddof(statistic, statistic_kwargs, owner)


def require_data_parallel_scheme(resampler: Any, owner: str) -> None:
    """Refuse a resampler whose replicates tie rows of different partitions
    together in a way the partitions cannot draw alone."""
    if resampler is None or isinstance(resampler, DATA_PARALLEL_RESAMPLERS):
        return
    raise _refuse(
        "resampler",
        owner,
        f"must be one of {_SCHEMES} with data in a dask collection (block "
        "bootstraps draw runs of consecutive rows across partition boundaries; "
        "Bayesian weights are normalized by a sum over all rows; model-based "
        f"and permutation schemes need every row in one place). Got {resampler!r}.",
    )


def _check_labels(resampler: Any, y: Any, groups: Any, owner: str) -> None:
    """``y`` only with StratifiedBootstrap, ``groups`` only with GroupBootstrap,
    each a dask collection like the data."""
    require_data_parallel_scheme(resampler, owner)
    needs = {"y": StratifiedBootstrap, "groups": GroupBootstrap}
    for param, value in (("y", y), ("groups", groups)):
        wanted = isinstance(resampler, needs[param])
        if value is None and wanted:
            raise value_error(
                param,
                owner,
                f"must be a dask collection partitioned like the data for "
                f"{type(resampler).__name__} (the {_WHAT[param]}). Got None.",
            )
        if value is None:
            continue
        if not wanted:
            raise _refuse(
                param,
                owner,
                f"must be None with data in a dask collection and "
                f"resampler={resampler!r}: only StratifiedBootstrap takes strata "
                "(y) and only GroupBootstrap takes groups.",
            )
        if not is_dask_collection(value):
            raise _refuse(
                param,
                owner,
                "must be a dask array or Series partitioned like the data (all "
                f"dask or none). Got a {type(value).__name__}.",
            )


def require_poisson(resampler: Any, owner: str, inputs: str) -> None:
    """Refuse a resampler other than :class:`PoissonBootstrap` for ``inputs``
    (words: "data in a dask collection")."""
    if not isinstance(resampler, PoissonBootstrap):
        got = "None (Bootstrap)" if resampler is None else repr(resampler)
        raise _refuse(
            "resampler",
            owner,
            f"must be PoissonBootstrap(...) with {inputs}: its counts are "
            f"independent per row, so every partition draws its own. Got {got}.",
        )


def _ddof(name: str, kwargs: Any, owner: str) -> int:
    kwargs = dict(kwargs or {})
    allowed = {"ddof"} if name in ("var", "std") else set()
    if name == "quantile":
        allowed = {"q"}
    extra = set(kwargs) - allowed
    if extra:
        raise value_error(
            "statistic_kwargs",
            owner,
            f"accepts {sorted(allowed) or 'no keys'} for statistic {name!r}. "
            f"Got {sorted(extra)} instead.",
        )
    ddof = kwargs.get("ddof", 0)
    if not is_int(ddof) or ddof < 0:
        raise ValueError(
            f"The 'ddof' statistic keyword of {owner} must be an int >= 0. "
            f"Got {ddof!r} instead."
        )
    return int(ddof)


@dataclass(frozen=True)
class DaskRows:
    """The rows of a data-parallel run: a dask array chunked by rows only,
    each partition's first global row, and how to label the outputs."""

    array: Any
    starts: tuple[int, ...]
    n_samples: int
    ndim: int
    labels: Any = None
    kind: str = "numpy"


def _frame_array(data: Any, owner: str) -> tuple[Any, Any, str]:
    """A dask DataFrame or Series as a dask array with its partition lengths
    (a pass that returns one int per partition), refusing non-numeric columns
    from the collection's metadata first."""
    frame = data.ndim == 2
    if frame:
        bad = [c for c, t in data.dtypes.items() if not _numeric(_np_dtype(t))]
    else:
        bad = [] if _numeric(_np_dtype(data.dtype)) else [data.name]
    if bad:
        names = ", ".join(repr(c) for c in bad)
        raise value_error(
            "data",
            owner,
            f"must be numeric for a built-in statistic. Column(s) {names} are "
            "not; select the numeric columns first.",
        )
    labels = data.columns if frame else data.name
    return data.to_dask_array(lengths=True), labels, "frame" if frame else "series"


def _np_dtype(t: Any) -> np.dtype:
    try:
        return np.dtype(t)
    except TypeError:
        return np.dtype(object)


def _numeric(t: np.dtype) -> bool:
    return t.kind in "biuf"


def dask_rows(data: Any, owner: str) -> DaskRows:
    """The rows of ``data`` (dask array, DataFrame or Series) checked: numeric,
    1-D or 2-D, at least 2 rows, fewer than 2**32; columns in one chunk."""
    labels, kind = None, "numpy"
    if hasattr(data, "to_dask_array"):
        arr, labels, kind = _frame_array(data, owner)
    elif hasattr(data, "chunks") and hasattr(data, "ndim"):
        arr = data
    else:
        raise param_error(
            "data", owner, "a dask array, DataFrame or Series", type(data).__name__
        )
    if not _numeric(_np_dtype(arr.dtype)):
        raise value_error(
            "data",
            owner,
            f"must be numeric for a built-in statistic. Got dtype {arr.dtype} instead.",
        )
    if arr.ndim not in (1, 2) or (arr.ndim == 2 and arr.shape[1] == 0):
        raise value_error(
            "data",
            owner,
            f"must be 1-D or 2-D with at least one column (rows are "
            f"observations). Got shape {arr.shape} instead.",
        )
    ndim = arr.ndim
    if any(np.isnan(c) for c in arr.chunks[0]):
        arr = arr.compute_chunk_sizes()  # one int per partition comes back
    if ndim == 2 and len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})  # whole rows per partition, on the workers
    n, starts = row_starts(arr, "data", owner)
    return DaskRows(arr, starts, n, ndim, labels, kind)


def row_starts(arr: Any, param: str, owner: str) -> tuple[int, tuple[int, ...]]:
    """The row count of the dask array ``arr`` (known chunk sizes), checked to
    lie in [2, 2**32], and each partition's first global row."""
    sizes = [int(c) for c in arr.chunks[0]]
    n = sum(sizes)
    if n < 2 or n > 2**32:
        raise value_error(
            param,
            owner,
            f"must have between 2 and 2**32 observations. Got {n} instead.",
        )
    starts = tuple(int(s) for s in np.concatenate([[0], np.cumsum(sizes)[:-1]]))
    return n, starts
