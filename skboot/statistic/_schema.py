"""What a result file of a :class:`~skboot.BootstrapResult` must hold, checked
field by field on load.

Every check raises :class:`skboot.ResultFileError` naming the file and the field:
the record's keys and their types and ranges, the arrays' dtype and shapes, and
the relations between them (the distribution has ``n_resamples`` rows, the
estimate has the shape of one replicate, ``n_undefined`` counts the non-finite
replicates that did not fail, ``failed_replicates`` lists ``n_failed`` rows of
NaN).  The checks read plain values only: nothing on this path unpickles
or evaluates anything.  ``where`` is the :class:`skboot._resultfile.Where` of
the result in its file (``where.error(field, text)`` builds the refusal).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from skboot._version import STREAM_VERSION

__all__ = [
    "ARRAYS",
    "FILE_FIELDS",
    "LATER_FIELDS",
    "OUTPUT_KINDS",
    "READ_STREAM_VERSIONS",
    "check_arrays",
    "check_record",
]

#: The random-stream versions this skboot knows (a result of another stream
#: cannot be repeated here).
READ_STREAM_VERSIONS = (1, STREAM_VERSION)
#: The float64 arrays of a file.
ARRAYS = ("estimate", "distribution", "standard_error", "bias")
#: The fields of the record (the arrays as references to their members).
FILE_FIELDS = (
    "statistic_name",
    "resampler",
    "resampler_params",
    "random_state",
    "stream_version",
    "n_resamples",
    "n_undefined",
    "n_omitted",
    "n_failed",
    "first_error",
    "block_length",
    "outputs",
    "failed_replicates",
    *ARRAYS,
)
#: Fields added after the first files of this format were written, with the
#: value a file without them means (no replicate failed): such files still load.
LATER_FIELDS: dict[str, Any] = {
    "n_failed": 0,
    "first_error": None,
    "failed_replicates": [],
}
#: How the outputs are presented: plain arrays, a Series distribution (scalar
#: statistic of a Series), a DataFrame distribution with Series estimates
#: (column-wise statistic of a DataFrame), or DataFrame estimates of a
#: statistic of two axes whose columns are the data's ("frame-shaped").
OUTPUT_KINDS = ("numpy", "series", "frame", "frame-shaped")
_MAX_RESAMPLES = 2**32 - 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """An int or float that converts to a float64 (not a bool)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        float(value)
    except OverflowError:  # an int beyond float64
        return False
    return True


def _is_label(value: Any) -> bool:
    """A JSON label: None, a bool, number or string, or a list of labels."""
    if isinstance(value, list):
        return all(_is_label(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _int_field(
    record: dict[str, Any], name: str, where: Any, low: int, high: int | None = None
) -> int:
    value = record[name]
    allowed = f"an int >= {low}" if high is None else f"an int in [{low}, {high}]"
    if not _is_int(value) or value < low or (high is not None and value > high):
        raise where.must(name, allowed, value)
    return int(value)


# ---------------------------------------------------------------------------
# the record
# ---------------------------------------------------------------------------
def check_record(record: dict[str, Any], where: Any) -> None:
    """Every field of the record present, none extra, each of its type and
    range (the arrays are checked by :func:`check_arrays`)."""
    missing = [k for k in FILE_FIELDS if k not in record]
    if missing:
        raise where.error(missing[0], "is missing from the record.")
    extra = sorted(set(record) - set(FILE_FIELDS), key=str)
    if extra:
        raise where.error(
            str(extra[0]),
            f"is not a field of a result record (the record holds "
            f"{', '.join(FILE_FIELDS)}).",
        )
    for name in ("statistic_name", "resampler"):
        if not isinstance(record[name], str):
            raise where.must(name, "a string", record[name])
    params = record["resampler_params"]
    if not isinstance(params, dict) or not all(
        v is None or isinstance(v, (bool, int, float, str)) for v in params.values()
    ):
        raise where.must(
            "resampler_params",
            "an object of numbers, strings, booleans or null",
            params,
        )
    _check_seed(record["random_state"], where)
    stream = record["stream_version"]
    if not _is_int(stream) or stream not in READ_STREAM_VERSIONS:
        known = ", ".join(str(v) for v in READ_STREAM_VERSIONS)
        raise where.error(
            "stream_version",
            f"is {stream!r}; this skboot knows random-stream version(s) {known}, "
            "so it can neither read nor repeat a run of another stream.",
        )
    n = _int_field(record, "n_resamples", where, 1, _MAX_RESAMPLES)
    _int_field(record, "n_undefined", where, 0, n)
    _int_field(record, "n_omitted", where, 0)
    n_failed = _int_field(record, "n_failed", where, 0, n - 1)
    error = record["first_error"]
    if (error is None) != (n_failed == 0) or not (
        error is None or isinstance(error, str)
    ):
        raise where.must(
            "first_error",
            "a string when n_failed > 0, else null",
            error,
        )
    length = record["block_length"]
    if length is not None and not (
        _is_number(length) and math.isfinite(length) and length > 0
    ):
        raise where.must("block_length", "null or a finite number > 0", length)
    _check_outputs(record["outputs"], where)


def _check_seed(seed: Any, where: Any) -> None:
    allowed = (
        'null or {"entropy": an int >= 0 or a non-empty list of them, '
        '"spawn_key": a list of ints >= 0}'
    )
    if seed is None:
        return
    if not isinstance(seed, dict) or set(seed) != {"entropy", "spawn_key"}:
        raise where.must("random_state", allowed, seed)
    entropy, spawn_key = seed["entropy"], seed["spawn_key"]
    words = entropy if isinstance(entropy, list) else [entropy]
    ok = bool(words) and all(_is_int(w) and w >= 0 for w in words)
    ok = ok and isinstance(spawn_key, list)
    ok = ok and all(_is_int(k) and k >= 0 for k in spawn_key)
    if not ok:
        raise where.must("random_state", allowed, seed)


def _check_outputs(outputs: Any, where: Any) -> None:
    allowed = (
        f'{{"kind": one of {list(OUTPUT_KINDS)}, "labels": null or a list of '
        'labels, "name": a label}'
    )
    if not isinstance(outputs, dict) or set(outputs) != {"kind", "labels", "name"}:
        raise where.must("outputs", allowed, outputs)
    kind, labels = outputs["kind"], outputs["labels"]
    if kind not in OUTPUT_KINDS or not _is_label(outputs["name"]):
        raise where.must("outputs", allowed, outputs)
    framed = kind in ("frame", "frame-shaped")
    if (framed and not (isinstance(labels, list) and _is_label(labels))) or (
        not framed and labels is not None
    ):
        raise where.must("outputs", allowed, outputs)


# ---------------------------------------------------------------------------
# the arrays, and their relations to the record
# ---------------------------------------------------------------------------
def check_arrays(record: dict[str, Any], where: Any) -> None:
    """dtypes, shapes and the relations between the arrays and the record."""
    for name in ARRAYS:
        a = record[name]
        if not isinstance(a, np.ndarray):
            raise where.must(name, "a float64 array", a)
        if a.dtype.kind != "f" or a.dtype.itemsize != 8:
            raise where.must(name, "a float64 array", f"dtype {a.dtype}")
    dist, est = record["distribution"], record["estimate"]
    n = record["n_resamples"]
    if dist.ndim == 0 or dist.shape[0] != n:
        raise where.error(
            "distribution",
            f"must hold one row per replicate, n_resamples = {n} (the field "
            f"'n_resamples'). Got an array of shape {dist.shape} instead.",
        )
    for name in ARRAYS:
        if name != "distribution" and record[name].shape != dist.shape[1:]:
            raise where.error(
                name,
                f"must have the shape of one replicate, {dist.shape[1:]} (the "
                f"distribution is {dist.shape}). Got shape {record[name].shape} "
                "instead.",
            )
    _check_kind(record["outputs"], est, where)
    _check_failed(record, where)
    _check_undefined(record, where)


def _check_failed(record: dict[str, Any], where: Any) -> None:
    """``failed_replicates``: a list of ``n_failed`` ascending replicate
    numbers whose rows of the distribution are NaN."""
    failed, dist = record["failed_replicates"], record["distribution"]
    n, n_failed = dist.shape[0], record["n_failed"]
    allowed = (
        f"a list of {n_failed} (n_failed) ascending replicate numbers (ints) "
        f"in [0, {n})"
    )
    ok = (
        isinstance(failed, list)
        and len(failed) == n_failed
        and all(_is_int(b) and 0 <= b < n for b in failed)
        and all(a < b for a, b in itertools.pairwise(failed))
    )
    if not ok:
        shown = failed[:10] if isinstance(failed, list) else failed
        raise where.must("failed_replicates", allowed, shown)
    if not np.isnan(dist[np.asarray(failed, dtype=np.int64)]).all():
        raise where.error(
            "failed_replicates",
            "names a replicate whose row of the distribution is not NaN (a "
            "failed replicate holds no value).",
        )


def _check_kind(outputs: dict[str, Any], est: np.ndarray, where: Any) -> None:
    kind, labels = outputs["kind"], outputs["labels"]
    ndim = {"series": 0, "frame": 1, "frame-shaped": 2}.get(kind)
    if ndim is not None and est.ndim != ndim:
        raise where.error(
            "outputs",
            f"says {kind!r}, which needs an estimate of {ndim} axes. Got shape "
            f"{est.shape} instead.",
        )
    if ndim and len(labels) != est.shape[-1]:
        raise where.error(
            "outputs",
            f"must hold one label per column ({est.shape[-1]}). Got "
            f"{len(labels)} labels instead.",
        )


def _check_undefined(record: dict[str, Any], where: Any) -> None:
    """NaN only where the run allows it: ``n_undefined`` replicates, and the
    standard error and bias of a column that holds one (or of one replicate)."""
    failed = np.asarray(record["failed_replicates"], dtype=np.int64)
    dist = np.delete(record["distribution"], failed, axis=0)
    B = dist.shape[0]
    finite_rows = np.isfinite(dist).reshape(B, -1).all(axis=1)
    n_bad = int(B - np.count_nonzero(finite_rows))
    if n_bad != record["n_undefined"]:
        raise where.error(
            "n_undefined",
            f"is {record['n_undefined']}, but the distribution holds {n_bad} "
            "replicate(s) with a NaN or infinite value (besides the failed "
            "ones).",
        )
    finite_cols = np.isfinite(dist).all(axis=0)
    se, bias = record["standard_error"], record["bias"]
    if np.isnan(se[finite_cols]).any() and B > 1:
        raise where.error(
            "standard_error",
            "is NaN where every replicate is finite (it is NaN only for a "
            "column holding a non-finite replicate, or a single replicate).",
        )
    if np.isnan(bias[finite_cols & np.isfinite(record["estimate"])]).any():
        raise where.error(
            "bias",
            "is NaN where the estimate and every replicate are finite.",
        )
    if (se < 0).any():
        raise where.error("standard_error", "must not be negative.")
