"""The checks and row blocks of the inputs of a data-parallel metric run
(predictions in dask collections), made before any work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._run._dask_checks import is_dask_collection, row_starts
from skboot._validation import value_error

__all__ = [
    "DASK_METHODS",
    "Inputs",
    "check_call",
    "group_blocks",
    "inputs_of",
    "per_partition",
    "refuse",
]

#: The interval methods of predictions in dask collections.
DASK_METHODS = ("percentile", "basic", "normal", "bc", "bca")
_SMALL = (
    "For predictions that fit in memory, call .compute() on the collections and "
    "pass the numpy arrays or pandas objects instead."
)


def refuse(name: str, owner: str, text: str) -> ValueError:
    """A bad-parameter error, with the hint to bring small data into memory."""
    return value_error(name, owner, text + " " + _SMALL)


def check_call(
    owner: str,
    arguments: dict[str, Any],
    *,
    groups: Any,
    method: str,
    device: Any,
) -> None:
    """Refuse, before any work, what the data-parallel run cannot do."""
    for name, value in arguments.items():
        if value is not None and not is_dask_collection(value):
            raise refuse(
                name,
                owner,
                "must be a dask collection like the other inputs (all dask or "
                f"none). Got a {type(value).__name__}.",
            )
    if groups is not None and not is_dask_collection(groups):
        raise refuse(
            "groups",
            owner,
            "must be a dask array or Series partitioned like y_true (all dask "
            f"or none). Got a {type(groups).__name__}.",
        )
    if method not in DASK_METHODS:
        raise value_error(
            "method",
            owner,
            f"must be one of {', '.join(repr(m) for m in DASK_METHODS)} with "
            "predictions in dask collections (the studentized and calibrated "
            f"intervals would revisit every row). Got {method!r}.",
        )
    if device not in ("cpu", "auto"):
        raise value_error(
            "device",
            owner,
            "must be 'cpu' or 'auto' with predictions in dask collections (the "
            f"partitions run on the dask workers). Got {device!r}.",
        )


def _rows(value: Any, param: str, owner: str) -> Any:
    """``value`` as a dask array with known row chunks and whole rows."""
    if hasattr(value, "to_dask_array"):
        if value.ndim == 1 and not isinstance(value.dtype, np.dtype):
            value = value.astype(object)  # text labels: numpy objects per row
        arr = value.to_dask_array(lengths=True)  # one int per partition
    elif hasattr(value, "chunks") and hasattr(value, "ndim"):
        arr = value
        if any(np.isnan(c) for c in arr.chunks[0]):
            arr = arr.compute_chunk_sizes()
    else:
        raise refuse(
            param,
            owner,
            f"must be a dask array, DataFrame or Series. Got a {type(value).__name__}.",
        )
    if arr.ndim not in (1, 2):
        raise value_error(
            param, owner, f"must be 1-D or 2-D. Got shape {arr.shape} instead."
        )
    if arr.ndim == 2 and len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})  # whole rows per partition, on the workers
    return arr


def _sizes(arr: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in arr.chunks[0])


def _short(sizes: tuple[int, ...]) -> str:
    text = ", ".join(str(s) for s in sizes[:6])
    return f"({text}{', ...' if len(sizes) > 6 else ''}; {len(sizes)} partitions)"


@dataclass(frozen=True)
class Inputs:
    """The inputs' row blocks (delayed), partition by partition."""

    y_true: list[Any]
    preds: list[list[Any]]
    weight: list[Any]
    starts: tuple[int, ...]
    n_samples: int
    pred_ndim: int


def inputs_of(y_true: Any, preds: dict[str, Any], sw: Any, owner: str) -> Inputs:
    """Aligned row blocks of every input, checked: same partition lengths."""
    yt = _rows(y_true, "y_true", owner)
    if yt.ndim != 1:
        raise value_error(
            "y_true", owner, f"must be 1-D. Got shape {yt.shape} instead."
        )
    arrays = {p: _rows(v, p, owner) for p, v in preds.items()}
    if sw is not None:
        arrays["sample_weight"] = _rows(sw, "sample_weight", owner)
    sizes = _sizes(yt)
    for param, arr in arrays.items():
        if _sizes(arr) != sizes:
            raise value_error(
                param,
                owner,
                "must be partitioned like y_true (row i of every input in the "
                f"same partition). Got partition lengths {_short(_sizes(arr))}; "
                f"y_true has {_short(sizes)}. Rechunk (dask arrays) or "
                "repartition (dask Series) one to match the other.",
            )
    n, starts = row_starts(yt, "y_true", owner)
    blocks = {p: list(a.to_delayed().ravel()) for p, a in arrays.items()}
    pred_blocks = [blocks[p] for p in preds]
    weight = blocks.get("sample_weight", [None] * len(sizes))
    ndim = max(arrays[p].ndim for p in preds)
    return Inputs(list(yt.to_delayed().ravel()), pred_blocks, weight, starts, n, ndim)


def per_partition(inputs: Inputs, call: Any) -> list[Any]:
    """``call(y_true, preds, sample_weight, start)`` on the blocks of each
    partition, in order (``preds``: the block of each prediction)."""
    return [
        call(yt, [p[i] for p in inputs.preds], inputs.weight[i], start)
        for i, (yt, start) in enumerate(zip(inputs.y_true, inputs.starts, strict=True))
    ]


def group_blocks(groups: Any, inputs: Inputs, owner: str) -> list[Any]:
    """The delayed row blocks of ``groups``, checked: 1-D, partitioned like
    ``y_true``."""
    arr = _rows(groups, "groups", owner)
    if arr.ndim != 1:
        raise value_error(
            "groups", owner, f"must be 1-D. Got shape {arr.shape} instead."
        )
    sizes = _sizes(arr)
    want = tuple(
        e - s
        for s, e in zip(
            inputs.starts, [*inputs.starts[1:], inputs.n_samples], strict=True
        )
    )
    if sizes != want:
        raise value_error(
            "groups",
            owner,
            "must be partitioned like y_true (row i of every input in the "
            f"same partition). Got partition lengths {_short(sizes)}; y_true "
            f"has {_short(want)}. Rechunk (dask arrays) or repartition (dask "
            "Series) one to match the other.",
        )
    return list(arr.to_delayed().ravel())
