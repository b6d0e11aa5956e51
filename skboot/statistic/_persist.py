"""What a :class:`~skboot.BootstrapResult` stores in a result file and in
``to_dict``: its outputs as float64 arrays with their pandas labels, its seed as
a record, its resampler's parameters as plain values.

The file format itself (the archive, the JSON record, the checksum) is every
result's, in :mod:`skboot._resultfile`; the record of a BootstrapResult holds
:data:`~skboot.statistic._schema.FILE_FIELDS`, checked by
:mod:`skboot.statistic._schema` on load.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._resultfile import label_from_json, label_to_json
from skboot.resamplers import param_repr
from skboot.statistic._schema import (
    ARRAYS,
    LATER_FIELDS,
    check_arrays,
    check_record,
)

__all__ = [
    "file_fields",
    "from_file_fields",
    "json_params",
    "result_to_dict",
]


# ---------------------------------------------------------------------------
# plain values
# ---------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """A JSON-able scalar for numbers, strings, booleans and None; else None."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return None


def json_params(resampler: Any) -> dict[str, Any]:
    """``resampler.get_params()`` with every value JSON-able (others as repr)."""
    out = {}
    for name, value in resampler.get_params(deep=False).items():
        plain = _plain(value)
        out[name] = plain if plain is not None or value is None else param_repr(value)
    return out


def _seed_record(random_state: Any) -> dict[str, Any] | None:
    """The seed that repeats the run: ``{"entropy": int or [int], "spawn_key":
    [int]}``."""
    if random_state is None:
        return None
    if isinstance(random_state, np.random.SeedSequence):
        entropy = random_state.entropy
        spawn_key = [int(k) for k in random_state.spawn_key]
    else:
        entropy, spawn_key = random_state, []
    if isinstance(entropy, (int, np.integer)):
        entropy = int(entropy)
    else:
        entropy = [int(e) for e in np.atleast_1d(np.asarray(entropy))]
    return {"entropy": entropy, "spawn_key": spawn_key}


def _seed_from_record(record: dict[str, Any] | None) -> Any:
    """The ``random_state`` a run records: an int, else a SeedSequence."""
    if record is None:
        return None
    entropy, spawn_key = record["entropy"], tuple(record["spawn_key"])
    if isinstance(entropy, int) and not spawn_key:
        return entropy
    return np.random.SeedSequence(entropy, spawn_key=spawn_key)


def _outputs(result: Any) -> tuple[str, Any, Any]:
    """(kind, column labels or None, name) of the result's pandas outputs."""
    import pandas as pd

    dist = result.distribution
    if isinstance(result.estimate, pd.DataFrame):  # a statistic of two axes
        columns = result.estimate.columns
        return "frame-shaped", tuple(columns), columns.name
    if isinstance(dist, pd.DataFrame):
        return "frame", tuple(dist.columns), dist.columns.name
    if isinstance(dist, pd.Series):
        return "series", None, dist.name
    return "numpy", None, None


# ---------------------------------------------------------------------------
# dict and file
# ---------------------------------------------------------------------------
def _floats(value: Any) -> Any:
    a = np.asarray(value, dtype=np.float64)
    return float(a) if a.ndim == 0 else a.tolist()


def _provenance(result: Any) -> dict[str, Any]:
    """The plain fields: what ran, with which seed, and the counts."""
    kind, labels, name = _outputs(result)
    return {
        "statistic_name": result.statistic_name,
        "resampler": result.resampler,
        "resampler_params": dict(result.resampler_params or {}),
        "random_state": _seed_record(result.random_state),
        "stream_version": int(result.stream_version),
        "n_resamples": int(result.n_resamples),
        "n_undefined": int(result.n_undefined),
        "n_omitted": int(result.n_omitted),
        "n_failed": int(result.n_failed),
        "failed_replicates": [int(b) for b in result.failed_replicates],
        "first_error": result.first_error,
        "block_length": (
            None if result.block_length is None else float(result.block_length)
        ),
        "outputs": {
            "kind": kind,
            "labels": None if labels is None else [label_to_json(v) for v in labels],
            "name": label_to_json(name),
        },
    }


def result_to_dict(result: Any, distribution: bool = True) -> dict[str, Any]:
    """See :meth:`skboot.BootstrapResult.to_dict`."""
    from skboot._version import __version__

    out: dict[str, Any] = {
        "skboot_version": __version__,
        **_provenance(result),
        "resampler_class": result.resampler.partition("(")[0],
        "estimate": _floats(result.estimate),
        "standard_error": _floats(result.standard_error),
        "bias": _floats(result.bias),
    }
    if distribution:
        out["distribution"] = _floats(result.distribution)
    return out


def file_fields(result: Any) -> dict[str, Any]:
    """What a result file stores: the four outputs as float64 arrays (bit for
    bit), the provenance as plain values (the data and statistic are not
    stored)."""
    arrays = {
        name: np.asarray(getattr(result, name), dtype=np.float64, order="C")
        for name in ARRAYS
    }
    return {**arrays, **_provenance(result)}


def from_file_fields(cls: Any, fields: dict[str, Any], where: Any) -> Any:
    """The result of the values read from a file, after every schema check
    (a file written before the fields of :data:`LATER_FIELDS` existed gets
    their defaults)."""
    fields = {**LATER_FIELDS, **fields}
    check_record(fields, where)
    check_arrays(fields, where)
    return _build(cls, fields)


def _build(cls: Any, record: dict[str, Any]) -> Any:
    """The result of a checked record (arrays as native float64)."""
    import pandas as pd

    est, dist, se, bias = (
        np.asarray(record[name], dtype=np.float64, order="C") for name in ARRAYS
    )
    outputs = record["outputs"]
    kind = outputs["kind"]
    name = label_from_json(outputs["name"])
    values: list[Any] = [float(v) if v.ndim == 0 else v for v in (est, se, bias)]
    distribution: Any = dist
    if kind in ("frame", "frame-shaped"):
        labels = [label_from_json(v) for v in outputs["labels"]]
        index = pd.Index(labels, tupleize_cols=True, name=name)
        if kind == "frame":
            distribution = pd.DataFrame(dist, columns=index)
            values = [pd.Series(v, index=index) for v in (est, se, bias)]
        else:
            values = [pd.DataFrame(v, columns=index) for v in (est, se, bias)]
    elif kind == "series":
        distribution = pd.Series(dist, name=name)
    length = record["block_length"]
    return cls(
        estimate=values[0],
        distribution=distribution,
        standard_error=values[1],
        bias=values[2],
        n_resamples=record["n_resamples"],
        statistic_name=record["statistic_name"],
        resampler=record["resampler"],
        random_state=_seed_from_record(record["random_state"]),
        stream_version=record["stream_version"],
        n_undefined=record["n_undefined"],
        n_omitted=record["n_omitted"],
        n_failed=record["n_failed"],
        failed_replicates=np.array(record["failed_replicates"], dtype=np.int64),
        first_error=record["first_error"],
        block_length=None if length is None else float(length),
        resampler_params=dict(record["resampler_params"]),
    )
