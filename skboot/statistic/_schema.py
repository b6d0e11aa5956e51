"""The schema of a result file, checked field by field on load.

Every check raises :class:`skboot.ResultFileError` naming the file and the field:
the record's keys and their types and ranges, the arrays' dtype and shapes, and
the relations between them (the distribution has ``n_resamples`` rows, the
estimate has the shape of one replicate, ``n_undefined`` counts the non-finite
replicates, the record's values equal the arrays).  The checks read plain values
only: nothing on this path unpickles or evaluates anything.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot._exceptions import ResultFileError
from skboot._version import STREAM_VERSION

__all__ = [
    "ARRAYS",
    "FORMAT",
    "FORMAT_VERSION",
    "MEMBERS",
    "OUTPUT_KINDS",
    "READ_FORMAT_VERSIONS",
    "READ_STREAM_VERSIONS",
    "RECORD_FIELDS",
    "check_arrays",
    "check_header",
    "check_record",
    "file_error",
]

FORMAT = "skboot.BootstrapResult"
#: The version :meth:`BootstrapResult.save` writes: version 1 plus a checksum.
FORMAT_VERSION = 2
#: The versions this skboot reads (1: no checksum; 2: checksummed).
READ_FORMAT_VERSIONS = (1, 2)
#: The random-stream versions this skboot knows (a result of another stream
#: cannot be repeated here).
READ_STREAM_VERSIONS = (STREAM_VERSION,)
#: The float64 arrays of a file, in checksum order.
ARRAYS = ("estimate", "distribution", "standard_error", "bias")
#: The members of the archive, by format version.
MEMBERS = {
    1: frozenset({*ARRAYS, "record"}),
    2: frozenset({*ARRAYS, "record", "checksum"}),
}
#: The keys of the record (the same in versions 1 and 2).
RECORD_FIELDS = (
    "format",
    "format_version",
    "skboot_version",
    "statistic",
    "resampler",
    "resampler_class",
    "resampler_params",
    "random_state",
    "stream_version",
    "n_resamples",
    "n_undefined",
    "n_omitted",
    "block_length",
    "outputs",
    "estimate",
    "standard_error",
    "bias",
)
#: How the outputs are presented: plain arrays, a Series distribution (scalar
#: statistic of a Series), a DataFrame distribution with Series estimates
#: (column-wise statistic of a DataFrame), or DataFrame estimates of a
#: statistic of two axes whose columns are the data's ("frame-shaped").
OUTPUT_KINDS = ("numpy", "series", "frame", "frame-shaped")
_MAX_RESAMPLES = 2**32 - 1


def file_error(shown: Any, field: str | None, text: str) -> ResultFileError:
    """``The result file <shown> ...``: the one message of a refused file."""
    where = "" if field is None else f"its field '{field}' "
    return ResultFileError(
        f"The result file {shown!r} is not a valid skboot result: {where}{text}",
        field,
    )


def _must(shown: Any, field: str, allowed: str, got: Any) -> ResultFileError:
    return file_error(shown, field, f"must be {allowed}. Got {got!r} instead.")


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
    record: dict[str, Any], name: str, shown: Any, low: int, high: int | None = None
) -> int:
    value = record[name]
    allowed = f"an int >= {low}" if high is None else f"an int in [{low}, {high}]"
    if not _is_int(value) or value < low or (high is not None and value > high):
        raise _must(shown, name, allowed, value)
    return int(value)


# ---------------------------------------------------------------------------
# header: format and version, before anything else is read
# ---------------------------------------------------------------------------
def check_header(record: Any, shown: Any) -> int:
    """The record is a JSON object of format :data:`FORMAT` and a version this
    skboot reads; returns the version."""
    if not isinstance(record, dict):
        raise _must(shown, "record", "a JSON object", type(record).__name__)
    if record.get("format") != FORMAT:
        raise _must(shown, "format", repr(FORMAT), record.get("format", "(missing)"))
    version = record.get("format_version", "(missing)")
    if not _is_int(version) or version not in READ_FORMAT_VERSIONS:
        readable = ", ".join(str(v) for v in READ_FORMAT_VERSIONS)
        written = record.get("skboot_version", "an unknown skboot")
        raise file_error(
            shown,
            "format_version",
            f"is {version!r} (written by skboot {written}); this skboot reads "
            f"format versions {readable}. Upgrade skboot to read a newer file.",
        )
    return int(version)


# ---------------------------------------------------------------------------
# the record
# ---------------------------------------------------------------------------
def check_record(record: dict[str, Any], shown: Any) -> None:
    """Every key of the record present, none extra, each of its type and range."""
    missing = [k for k in RECORD_FIELDS if k not in record]
    if missing:
        raise file_error(shown, missing[0], "is missing from the record.")
    extra = sorted(set(record) - set(RECORD_FIELDS), key=str)
    if extra:
        raise file_error(
            shown,
            str(extra[0]),
            f"is not a field of a result record (the record holds "
            f"{', '.join(RECORD_FIELDS)}).",
        )
    for name in ("skboot_version", "statistic", "resampler", "resampler_class"):
        if not isinstance(record[name], str):
            raise _must(shown, name, "a string", record[name])
    if record["resampler_class"] != record["resampler"].partition("(")[0]:
        raise file_error(
            shown,
            "resampler_class",
            f"is {record['resampler_class']!r}, but the field 'resampler' is "
            f"{record['resampler']!r}.",
        )
    params = record["resampler_params"]
    if not isinstance(params, dict) or not all(
        v is None or isinstance(v, (bool, int, float, str)) for v in params.values()
    ):
        raise _must(
            shown,
            "resampler_params",
            "an object of numbers, strings, booleans or null",
            params,
        )
    _check_seed(record["random_state"], shown)
    stream = record["stream_version"]
    if not _is_int(stream) or stream not in READ_STREAM_VERSIONS:
        known = ", ".join(str(v) for v in READ_STREAM_VERSIONS)
        raise file_error(
            shown,
            "stream_version",
            f"is {stream!r}; this skboot knows random-stream version(s) {known}, "
            "so it can neither read nor repeat a run of another stream.",
        )
    n = _int_field(record, "n_resamples", shown, 1, _MAX_RESAMPLES)
    _int_field(record, "n_undefined", shown, 0, n)
    _int_field(record, "n_omitted", shown, 0)
    length = record["block_length"]
    if length is not None and not (
        _is_number(length) and math.isfinite(length) and length > 0
    ):
        raise _must(shown, "block_length", "null or a finite number > 0", length)
    _check_outputs(record["outputs"], shown)
    for name in ("estimate", "standard_error", "bias"):
        if not _is_values(record[name]):
            raise _must(
                shown, name, "a number or a (nested) list of numbers", record[name]
            )


def _is_values(value: Any) -> bool:
    if isinstance(value, list):
        return all(_is_values(v) for v in value)
    return _is_number(value)


def _check_seed(seed: Any, shown: Any) -> None:
    allowed = (
        'null or {"entropy": an int >= 0 or a non-empty list of them, '
        '"spawn_key": a list of ints >= 0}'
    )
    if seed is None:
        return
    if not isinstance(seed, dict) or set(seed) != {"entropy", "spawn_key"}:
        raise _must(shown, "random_state", allowed, seed)
    entropy, spawn_key = seed["entropy"], seed["spawn_key"]
    words = entropy if isinstance(entropy, list) else [entropy]
    ok = bool(words) and all(_is_int(w) and w >= 0 for w in words)
    ok = ok and isinstance(spawn_key, list)
    ok = ok and all(_is_int(k) and k >= 0 for k in spawn_key)
    if not ok:
        raise _must(shown, "random_state", allowed, seed)


def _check_outputs(outputs: Any, shown: Any) -> None:
    allowed = (
        f'{{"kind": one of {list(OUTPUT_KINDS)}, "labels": null or a list of '
        'labels, "name": a label}'
    )
    if not isinstance(outputs, dict) or set(outputs) != {"kind", "labels", "name"}:
        raise _must(shown, "outputs", allowed, outputs)
    kind, labels = outputs["kind"], outputs["labels"]
    if kind not in OUTPUT_KINDS or not _is_label(outputs["name"]):
        raise _must(shown, "outputs", allowed, outputs)
    framed = kind in ("frame", "frame-shaped")
    if (framed and not (isinstance(labels, list) and _is_label(labels))) or (
        not framed and labels is not None
    ):
        raise _must(shown, "outputs", allowed, outputs)


# ---------------------------------------------------------------------------
# the arrays, and their relations to the record
# ---------------------------------------------------------------------------
def check_arrays(
    arrays: dict[str, np.ndarray], record: dict[str, Any], shown: Any
) -> None:
    """dtypes, shapes and the relations between the arrays and the record."""
    for name in ARRAYS:
        a = arrays[name]
        if a.dtype.kind != "f" or a.dtype.itemsize != 8:
            raise _must(shown, name, "a float64 array", f"dtype {a.dtype}")
    dist, est = arrays["distribution"], arrays["estimate"]
    n = record["n_resamples"]
    if dist.ndim == 0 or dist.shape[0] != n:
        raise file_error(
            shown,
            "distribution",
            f"must hold one row per replicate, n_resamples = {n} (the field "
            f"'n_resamples'). Got an array of shape {dist.shape} instead.",
        )
    for name in ARRAYS:
        if name != "distribution" and arrays[name].shape != dist.shape[1:]:
            raise file_error(
                shown,
                name,
                f"must have the shape of one replicate, {dist.shape[1:]} (the "
                f"distribution is {dist.shape}). Got shape {arrays[name].shape} "
                "instead.",
            )
    _check_kind(record["outputs"], est, shown)
    _check_undefined(arrays, record, shown)
    for name in ("estimate", "standard_error", "bias"):
        try:
            value = np.asarray(record[name], dtype=np.float64)
        except ValueError:  # ragged lists
            value = np.empty(0)
        if value.shape != arrays[name].shape or not np.array_equal(
            value, arrays[name], equal_nan=True
        ):
            raise file_error(
                shown,
                name,
                "differs between the record and its array (the record's copy "
                "must equal the array bit for bit).",
            )


def _check_kind(outputs: dict[str, Any], est: np.ndarray, shown: Any) -> None:
    kind, labels = outputs["kind"], outputs["labels"]
    ndim = {"series": 0, "frame": 1, "frame-shaped": 2}.get(kind)
    if ndim is not None and est.ndim != ndim:
        raise file_error(
            shown,
            "outputs",
            f"says {kind!r}, which needs an estimate of {ndim} axes. Got shape "
            f"{est.shape} instead.",
        )
    if ndim and len(labels) != est.shape[-1]:
        raise file_error(
            shown,
            "outputs",
            f"must hold one label per column ({est.shape[-1]}). Got "
            f"{len(labels)} labels instead.",
        )


def _check_undefined(
    arrays: dict[str, np.ndarray], record: dict[str, Any], shown: Any
) -> None:
    """NaN only where the run allows it: ``n_undefined`` replicates, and the
    standard error and bias of a column that holds one (or of one replicate)."""
    dist = arrays["distribution"]
    B = dist.shape[0]
    finite_rows = np.isfinite(dist).reshape(B, -1).all(axis=1)
    n_bad = int(B - np.count_nonzero(finite_rows))
    if n_bad != record["n_undefined"]:
        raise file_error(
            shown,
            "n_undefined",
            f"is {record['n_undefined']}, but the distribution holds {n_bad} "
            "replicate(s) with a NaN or infinite value.",
        )
    finite_cols = np.isfinite(dist).all(axis=0)
    se, bias = arrays["standard_error"], arrays["bias"]
    if np.isnan(se[finite_cols]).any() and B > 1:
        raise file_error(
            shown,
            "standard_error",
            "is NaN where every replicate is finite (it is NaN only for a "
            "column holding a non-finite replicate, or a single replicate).",
        )
    if np.isnan(bias[finite_cols & np.isfinite(arrays["estimate"])]).any():
        raise file_error(
            shown,
            "bias",
            "is NaN where the estimate and every replicate are finite.",
        )
    if (se < 0).any():
        raise file_error(shown, "standard_error", "must not be negative.")
