"""A bootstrap result as a record: equality key, dict and ``.npz`` file.

The file format (version 2) is a NumPy ``.npz`` archive that loads with
``allow_pickle=False``:

* ``estimate``, ``standard_error``, ``bias``: float64, the shape of one
  replicate (``()``, ``(k,)`` or the statistic's own shape);
* ``distribution``: float64, shape ``(B, ...)``, in replicate order;
* ``record``: a 0-d unicode array holding a JSON object, the keys of
  :meth:`skboot.BootstrapResult.to_dict` without ``distribution``;
* ``checksum``: a 0-d unicode array holding ``{"algorithm": "sha256",
  "members": {name: hex digest}}``, one SHA-256 digest per other member: of
  ``name``, the dtype string and the shape (JSON list) on three lines and the
  array's C-order bytes for an array, of the canonical JSON text of the record
  (sorted keys, no spaces, ASCII) for ``record``.

Version 1 is version 2 without ``checksum``; it is read, with every schema check
(:mod:`skboot.statistic._schema`) but no checksum to verify.  Any other version
is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from typing import Any

import numpy as np

from skboot._validation import param_error
from skboot.statistic._schema import (
    ARRAYS,
    FORMAT,
    FORMAT_VERSION,
    MEMBERS,
    check_arrays,
    check_header,
    check_record,
    file_error,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "json_params",
    "load_result",
    "member_digests",
    "record_key",
    "result_to_dict",
    "save_result",
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
        out[name] = plain if plain is not None or value is None else repr(value)
    return out


def _label_to_json(label: Any) -> Any:
    """A pandas label as JSON: tuples (MultiIndex) as lists, values that are not
    numbers, strings, booleans or None as their str()."""
    if isinstance(label, tuple):
        return [_label_to_json(v) for v in label]
    plain = _plain(label)
    return plain if plain is not None or label is None else str(label)


def _label_from_json(label: Any) -> Any:
    if isinstance(label, list):
        return tuple(_label_from_json(v) for v in label)
    return label


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
# equality
# ---------------------------------------------------------------------------
def record_key(result: Any) -> tuple[Any, ...]:
    """What two equal results share: provenance, pandas labels and the bytes of
    the estimate, distribution, standard error and bias (as float64)."""
    seed = _seed_record(result.random_state)
    seed_key = None
    if seed is not None:
        entropy = seed["entropy"]
        entropy = tuple(entropy) if isinstance(entropy, list) else entropy
        seed_key = (entropy, tuple(seed["spawn_key"]))
    # the resampler by class and parameters; its random_state parameter is
    # left out: how the seed was given (None, then the drawn entropy recorded;
    # or that entropy) does not matter, the seed itself is compared above
    resampler: Any = result.resampler
    if result.resampler_params is not None:
        params = result.resampler_params
        resampler = (
            result.resampler.partition("(")[0],
            tuple(sorted((k, v) for k, v in params.items() if k != "random_state")),
        )
    values = []
    for name in ARRAYS:
        a = np.ascontiguousarray(np.asarray(getattr(result, name), dtype=np.float64))
        values.append((a.shape, a.tobytes()))
    return (
        result.statistic,
        resampler,
        seed_key,
        int(result.stream_version),
        int(result.n_resamples),
        int(result.n_undefined),
        int(result.n_omitted),
        result.block_length,
        _outputs(result),
        tuple(values),
    )


# ---------------------------------------------------------------------------
# dict and file
# ---------------------------------------------------------------------------
def _floats(value: Any) -> Any:
    a = np.asarray(value, dtype=np.float64)
    return float(a) if a.ndim == 0 else a.tolist()


def result_to_dict(result: Any, distribution: bool = True) -> dict[str, Any]:
    """See :meth:`skboot.BootstrapResult.to_dict`."""
    from skboot._version import __version__

    kind, labels, name = _outputs(result)
    out: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "skboot_version": __version__,
        "statistic": result.statistic,
        "resampler": result.resampler,
        "resampler_class": result.resampler.partition("(")[0],
        "resampler_params": dict(result.resampler_params or {}),
        "random_state": _seed_record(result.random_state),
        "stream_version": int(result.stream_version),
        "n_resamples": int(result.n_resamples),
        "n_undefined": int(result.n_undefined),
        "n_omitted": int(result.n_omitted),
        "block_length": (
            None if result.block_length is None else float(result.block_length)
        ),
        "outputs": {
            "kind": kind,
            "labels": None if labels is None else [_label_to_json(v) for v in labels],
            "name": _label_to_json(name),
        },
        "estimate": _floats(result.estimate),
        "standard_error": _floats(result.standard_error),
        "bias": _floats(result.bias),
    }
    if distribution:
        out["distribution"] = _floats(result.distribution)
    return out


# ---------------------------------------------------------------------------
# checksum
# ---------------------------------------------------------------------------
def _canonical(record: dict[str, Any]) -> bytes:
    """The record's canonical JSON text: sorted keys, no spaces, ASCII."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.encode("ascii")


def member_digests(
    arrays: dict[str, np.ndarray], record: dict[str, Any]
) -> dict[str, str]:
    """The SHA-256 hex digest of every member but ``checksum``: an array's name,
    dtype string and shape (one line each) then its C-order bytes; the record's
    canonical JSON text."""
    out = {}
    for name in ARRAYS:
        a = arrays[name]
        h = hashlib.sha256()
        h.update(f"{name}\n{a.dtype.str}\n{json.dumps(list(a.shape))}\n".encode())
        h.update(np.ascontiguousarray(a).tobytes())
        out[name] = h.hexdigest()
    out["record"] = hashlib.sha256(_canonical(record)).hexdigest()
    return out


# ---------------------------------------------------------------------------
# save
# ---------------------------------------------------------------------------
def _check_path(path: Any, owner: str, method: str) -> None:
    """A path (str or os.PathLike) or a binary file object with ``method``; an
    int would be taken for a file descriptor by ``open``."""
    if isinstance(path, (str, os.PathLike)) or hasattr(path, method):
        return
    raise param_error(
        "path",
        owner,
        f"a str, an os.PathLike or a binary file object (with .{method})",
        path,
    )


def save_result(result: Any, path: Any) -> None:
    """See :meth:`skboot.BootstrapResult.save`."""
    _check_path(path, "BootstrapResult.save", "write")
    record = result_to_dict(result, distribution=False)
    arrays = {
        name: np.asarray(getattr(result, name), dtype=np.float64, order="C")
        for name in ARRAYS
    }
    checksum = {"algorithm": "sha256", "members": member_digests(arrays, record)}
    members: dict[str, Any] = {
        **arrays,
        "record": np.array(json.dumps(record)),
        "checksum": np.array(json.dumps(checksum)),
    }
    # (numpy's stubs type savez's keywords as its allow_pickle flag)
    savez: Any = np.savez
    if hasattr(path, "write"):
        savez(path, **members)
        return
    with open(path, "wb") as fh:  # as given: np.savez would append ".npz"
        savez(fh, **members)


# ---------------------------------------------------------------------------
# load: read every member (no pickle), check the schema, verify the checksum
# ---------------------------------------------------------------------------
def load_result(cls: Any, path: Any) -> Any:
    """See :meth:`skboot.BootstrapResult.load`."""
    _check_path(path, "BootstrapResult.load", "read")
    if hasattr(path, "read"):
        return _load(cls, path, getattr(path, "name", "<file object>"))
    # opened here, so that the file is closed whatever numpy makes of it
    with open(path, "rb") as fh:
        return _load(cls, fh, os.fspath(path))


#: What reading a damaged archive or member raises (numpy, zipfile, zlib).
_READ_ERRORS = (
    ValueError,
    OSError,
    EOFError,
    MemoryError,
    zipfile.BadZipFile,
    zlib.error,
)


def _open(fh: Any, shown: Any) -> Any:
    try:
        archive = np.load(fh, allow_pickle=False)
    except _READ_ERRORS as exc:
        # numpy takes any other file for a pickle, which is never read here
        why = "it does not start as a zip archive" if "pickle" in str(exc) else exc
        raise file_error(
            shown,
            None,
            "it is not an .npz archive written by BootstrapResult.save (truncated, "
            f"corrupted or another kind of file: {why}).",
        ) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise file_error(
            shown,
            None,
            "it is a single .npy array, not an .npz archive written by "
            "BootstrapResult.save.",
        )
    return archive


def _member(archive: Any, name: str, shown: Any) -> np.ndarray:
    try:
        value = archive[name]
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise file_error(
                shown,
                name,
                "holds Python objects, which only pickle can read; result files "
                "hold float64 arrays and JSON text, and are read without pickle.",
            ) from exc
        raise _damaged(shown, name, exc) from exc
    except _READ_ERRORS as exc:
        raise _damaged(shown, name, exc) from exc
    return value


def _damaged(shown: Any, name: str, exc: BaseException) -> Exception:
    return file_error(
        shown, name, f"cannot be read: the file is truncated or corrupted ({exc})."
    )


def _json_member(archive: Any, name: str, shown: Any) -> Any:
    value = _member(archive, name, shown)
    if value.ndim != 0 or value.dtype.kind != "U":
        raise file_error(
            shown,
            name,
            f"must be a 0-d unicode array holding JSON text. Got dtype {value.dtype} "
            f"and shape {value.shape} instead.",
        )

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise file_error(shown, twice[0], f"appears twice in the {name} JSON.")
        return dict(pairs)

    try:
        return json.loads(str(value[()]), object_pairs_hook=unique)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise file_error(shown, name, f"is not valid JSON ({exc!r}).") from exc


def _members(archive: Any, version: int, shown: Any) -> None:
    want, have = MEMBERS[version], set(archive.files)
    missing = sorted(want - have)
    if missing:
        raise file_error(
            shown,
            missing[0],
            f"is missing from the archive (format version {version}).",
        )
    extra = sorted(have - want)
    if extra:
        raise file_error(
            shown,
            extra[0],
            f"is not a member of a result file of format version {version} (it "
            f"holds {', '.join(sorted(want))}).",
        )


def _verify(
    archive: Any, arrays: dict[str, np.ndarray], record: dict[str, Any], shown: Any
) -> None:
    """The checksum member is well formed and matches every other member."""
    checksum = _json_member(archive, "checksum", shown)
    names = {*ARRAYS, "record"}
    ok = (
        isinstance(checksum, dict)
        and set(checksum) == {"algorithm", "members"}
        and checksum["algorithm"] == "sha256"
        and isinstance(checksum["members"], dict)
        and set(checksum["members"]) == names
        and all(isinstance(v, str) for v in checksum["members"].values())
    )
    if not ok:
        raise file_error(
            shown,
            "checksum",
            'must be {"algorithm": "sha256", "members": {name: hex digest}} with a '
            f"digest for each of {sorted(names)}. Got {checksum!r} instead.",
        )
    digests = member_digests(arrays, record)
    for name in (*ARRAYS, "record"):
        if digests[name] != checksum["members"][name]:
            raise file_error(
                shown,
                name,
                "does not match its SHA-256 checksum: the file was edited or "
                "corrupted after BootstrapResult.save wrote it.",
            )


def _load(cls: Any, fh: Any, shown: Any) -> Any:
    with _open(fh, shown) as archive:
        if "record" not in archive.files:
            raise file_error(shown, "record", "is missing from the archive.")
        record = _json_member(archive, "record", shown)
        version = check_header(record, shown)
        _members(archive, version, shown)
        arrays = {name: _member(archive, name, shown) for name in ARRAYS}
        check_record(record, shown)
        check_arrays(arrays, record, shown)
        if version >= 2:
            _verify(archive, arrays, record, shown)
    return _build(cls, record, arrays)


def _build(cls: Any, record: dict[str, Any], arrays: dict[str, np.ndarray]) -> Any:
    """The result of a checked record and its arrays (native float64)."""
    import pandas as pd

    est, dist, se, bias = (
        np.asarray(arrays[name], dtype=np.float64, order="C") for name in ARRAYS
    )
    outputs = record["outputs"]
    kind = outputs["kind"]
    name = _label_from_json(outputs["name"])
    values: list[Any] = [float(v) if v.ndim == 0 else v for v in (est, se, bias)]
    distribution: Any = dist
    if kind in ("frame", "frame-shaped"):
        labels = [_label_from_json(v) for v in outputs["labels"]]
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
        statistic=record["statistic"],
        resampler=record["resampler"],
        random_state=_seed_from_record(record["random_state"]),
        stream_version=record["stream_version"],
        n_undefined=record["n_undefined"],
        n_omitted=record["n_omitted"],
        block_length=None if length is None else float(length),
        resampler_params=dict(record["resampler_params"]),
    )
