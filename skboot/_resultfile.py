"""The one verified file format of every result (``Result.save`` / ``load``).

A result file (format version 3) is a NumPy ``.npz`` archive that loads with
``allow_pickle=False``:

* ``record``: a 0-d unicode array holding a JSON object: ``format``
  (``"skboot.<class name>"``), ``format_version`` (3), ``skboot_version``, then
  one key per field of the result.  A field's value is JSON as it is (null,
  booleans, numbers, strings, lists, objects with string keys); a tuple is
  ``{"__tuple__": [items]}``; an array is ``{"__array__": name}``, naming the
  member that holds it; a nested result is ``{"__result__": class name, its
  fields...}``.
* one member per array, named by the field's path (``distribution``;
  ``result.distribution`` for the ``distribution`` of a nested ``result``;
  ``levels.0`` for the first item of a tuple): booleans, integers, floats,
  complex numbers or text, never Python objects.
* ``checksum``: a 0-d unicode array holding ``{"algorithm": "sha256",
  "members": {name: hex digest}}``, one SHA-256 digest per other member: of
  ``name``, the dtype string and the shape (JSON list) on three lines and the
  array's C-order bytes for an array, of the canonical JSON text of the record
  (sorted keys, no spaces, ASCII) for ``record``.

Loading refuses, with :class:`skboot.ResultFileError` naming the field, a file
that is not such an archive, of another class or version, with a member
missing, unexpected or holding Python objects, a field the class does not have
or lacks, a value its class's checks refuse, or bytes that no longer match the
checksum.  A class stores its fields as they are unless it says otherwise
(``Result._file_fields`` / ``Result._from_file_fields``).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from typing import Any

import numpy as np

from skboot._exceptions import ResultFileError
from skboot._validation import param_error

__all__ = [
    "FORMAT_VERSION",
    "READ_FORMAT_VERSIONS",
    "Where",
    "file_error",
    "label_from_json",
    "label_to_json",
    "labelled_from_file",
    "labelled_to_file",
    "load_result",
    "member_digests",
    "register",
    "save_result",
]

#: The version ``save`` writes and the versions ``load`` reads.
FORMAT_VERSION = 3
READ_FORMAT_VERSIONS = (3,)
#: The record's keys before the fields.
HEADER = ("format", "format_version", "skboot_version")
#: dtype kinds stored as members: booleans, integers, floats, complex, text.
ARRAY_KINDS = "biufcU"
_TAGS = ("__array__", "__tuple__", "__result__")
_RESERVED = frozenset({"record", "checksum"})


def file_error(shown: Any, field: str | None, text: str) -> ResultFileError:
    """``The result file <shown> ...``: the one message of a refused file."""
    where = "" if field is None else f"its field '{field}' "
    return ResultFileError(
        f"The result file {shown!r} is not a valid skboot result: {where}{text}",
        field,
    )


class Where:
    """The file being read (as shown in messages) and the path of a nested
    result's fields inside it (``""`` at the top)."""

    def __init__(self, shown: Any, path: str = "") -> None:
        self.shown = shown
        self.path = path

    def field(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str | None, text: str) -> ResultFileError:
        """A refusal naming the field ``name`` (None: the result at this path)."""
        if name is None and not self.path:
            return file_error(self.shown, None, f"its fields {text}")
        field = self.path if name is None else self.field(name)
        return file_error(self.shown, field, text)

    def must(self, name: str, allowed: str, got: Any) -> ResultFileError:
        return self.error(name, f"must be {allowed}. Got {got!r} instead.")

    def sub(self, name: str) -> Where:
        return Where(self.shown, self.field(name))


#: Every result class by name (``Result`` subclasses register themselves), for
#: the nested results of a file.
CLASSES: dict[str, list[type]] = {}


def register(cls: type) -> None:
    """Make ``cls`` known by its name to :func:`load_result`."""
    CLASSES.setdefault(cls.__name__, []).append(cls)


def _is_result(value: Any) -> bool:
    return type(value) in CLASSES.get(type(value).__name__, ())


# ---------------------------------------------------------------------------
# pandas labels, for the classes that store pandas outputs as arrays
# ---------------------------------------------------------------------------
def label_to_json(label: Any) -> Any:
    """A pandas label as JSON: tuples (MultiIndex) as lists, values that are not
    numbers, strings, booleans or None as their str()."""
    if isinstance(label, tuple):
        return [label_to_json(v) for v in label]
    if isinstance(label, np.generic):
        label = label.item()
    if label is None or isinstance(label, (bool, int, float, str)):
        return label
    return str(label)


def label_from_json(label: Any) -> Any:
    if isinstance(label, list):
        return tuple(label_from_json(v) for v in label)
    return label


def labelled_to_file(value: Any) -> tuple[Any, Any]:
    """A Series or DataFrame as (array, its labels as JSON); other values as
    they are, with None."""
    import pandas as pd

    if isinstance(value, pd.Series):
        labels = {
            "index": [label_to_json(v) for v in value.index],
            "index_name": label_to_json(value.index.name),
            "name": label_to_json(value.name),
        }
        return np.asarray(value, dtype=np.float64), labels
    if isinstance(value, pd.DataFrame):
        labels = {
            "columns": [label_to_json(v) for v in value.columns],
            "columns_name": label_to_json(value.columns.name),
        }
        return np.asarray(value, dtype=np.float64), labels
    return value, None


def labelled_from_file(value: Any, labels: Any, name: str, where: Where) -> Any:
    """The Series or DataFrame :func:`labelled_to_file` stored (``labels``
    checked against the array)."""
    import pandas as pd

    if labels is None:
        return value
    keys = set(labels) if isinstance(labels, dict) else set()
    ndim = np.ndim(value) if isinstance(value, np.ndarray) else -1
    if keys == {"index", "index_name", "name"} and ndim == 1:
        axis = labels["index"]
    elif keys == {"columns", "columns_name"} and ndim == 2:
        axis = labels["columns"]
    else:
        axis = None
    if not isinstance(axis, list) or len(axis) != value.shape[-1]:
        raise where.must(
            name,
            "the labels of a Series or DataFrame of the field's array, one per "
            "element (column)",
            labels,
        )
    index = pd.Index([label_from_json(v) for v in axis], tupleize_cols=True)
    if ndim == 1:
        index.name = label_from_json(labels["index_name"])
        return pd.Series(value, index=index, name=label_from_json(labels["name"]))
    index.name = label_from_json(labels["columns_name"])
    return pd.DataFrame(value, columns=index)


# ---------------------------------------------------------------------------
# save: the fields as JSON, the arrays as members
# ---------------------------------------------------------------------------
def _encode(value: Any, path: str, arrays: dict[str, np.ndarray], owner: str) -> Any:
    if _is_result(value):
        fields = _encode_fields(value, path, arrays, owner)
        return {"__result__": type(value).__name__, **fields}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in ARRAY_KINDS or path in _RESERVED:
            raise _unstorable(owner, path, value)
        arrays[path] = value
        return {"__array__": path}
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        items = [_encode(v, f"{path}.{i}", arrays, owner) for i, v in enumerate(value)]
        return {"__tuple__": items}
    if isinstance(value, list):
        return [_encode(v, f"{path}.{i}", arrays, owner) for i, v in enumerate(value)]
    if isinstance(value, dict) and all(
        isinstance(k, str) and not k.startswith("__") for k in value
    ):
        return {k: _encode(v, f"{path}.{k}", arrays, owner) for k, v in value.items()}
    raise _unstorable(owner, path, value)


def _unstorable(owner: str, path: str, value: Any) -> TypeError:
    what = type(value).__name__
    if isinstance(value, np.ndarray):
        what = f"an array of dtype {value.dtype}"
    return TypeError(
        f"{owner} cannot store the field '{path}' ({what}): a result file holds "
        "None, booleans, numbers, strings, tuples, lists, dicts with string keys "
        "(not starting with '__'), arrays of booleans, numbers or text, and "
        "results; the member names 'record' and 'checksum' are reserved."
    )


def _encode_fields(
    result: Any, path: str, arrays: dict[str, np.ndarray], owner: str
) -> dict[str, Any]:
    out = {}
    for name, value in result._file_fields().items():
        if name in HEADER or name.startswith("__"):
            raise _unstorable(owner, f"{path}.{name}" if path else name, value)
        out[name] = _encode(value, f"{path}.{name}" if path else name, arrays, owner)
    return out


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
    for name, a in arrays.items():
        h = hashlib.sha256()
        h.update(f"{name}\n{a.dtype.str}\n{json.dumps(list(a.shape))}\n".encode())
        h.update(np.ascontiguousarray(a).tobytes())
        out[name] = h.hexdigest()
    out["record"] = hashlib.sha256(_canonical(record)).hexdigest()
    return out


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
    """See :meth:`skboot._results.Result.save`."""
    from skboot._version import __version__

    owner = f"{type(result).__name__}.save"
    _check_path(path, owner, "write")
    arrays: dict[str, np.ndarray] = {}
    record = {
        "format": f"skboot.{type(result).__name__}",
        "format_version": FORMAT_VERSION,
        "skboot_version": __version__,
        **_encode_fields(result, "", arrays, owner),
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
# load: read every member (no pickle), check, build, verify the checksum
# ---------------------------------------------------------------------------
def load_result(cls: Any, path: Any) -> Any:
    """See :meth:`skboot._results.Result.load`."""
    _check_path(path, f"{cls.__name__}.load", "read")
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


def _load(cls: Any, fh: Any, shown: Any) -> Any:
    where = Where(shown)
    with _open(fh, cls, shown) as archive:
        if "record" not in archive.files:
            raise file_error(shown, "record", "is missing from the archive.")
        record = _json_member(archive, "record", shown)
        _check_header(record, cls, where)
        _check_members(archive, record, shown)
        arrays = {
            name: _member(archive, name, shown)
            for name in archive.files
            if name not in _RESERVED
        }
        fields = {k: v for k, v in record.items() if k not in HEADER}
        result = _build(cls, fields, arrays, where)
        _verify(archive, arrays, record, shown, cls)
    return result


def _open(fh: Any, cls: Any, shown: Any) -> Any:
    written = f"written by {cls.__name__}.save"
    try:
        archive = np.load(fh, allow_pickle=False)
    except _READ_ERRORS as exc:
        # numpy takes any other file for a pickle, which is never read here
        why = "it does not start as a zip archive" if "pickle" in str(exc) else exc
        raise file_error(
            shown,
            None,
            f"it is not an .npz archive {written} (truncated, corrupted or "
            f"another kind of file: {why}).",
        ) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise file_error(
            shown, None, f"it is a single .npy array, not an .npz archive {written}."
        )
    return archive


def _member(
    archive: Any, name: str, shown: Any, kinds: str = ARRAY_KINDS
) -> np.ndarray:
    try:
        value = archive[name]
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise file_error(
                shown,
                name,
                "holds Python objects, which only pickle can read; result files "
                "hold arrays of booleans, numbers or text and JSON, and are read "
                "without pickle.",
            ) from exc
        raise _damaged(shown, name, exc) from exc
    except _READ_ERRORS as exc:
        raise _damaged(shown, name, exc) from exc
    if kinds and value.dtype.kind not in kinds:
        raise file_error(
            shown,
            name,
            "must be an array of booleans, numbers or text. Got dtype "
            f"{value.dtype} instead.",
        )
    return value


def _damaged(shown: Any, name: str, exc: BaseException) -> Exception:
    return file_error(
        shown, name, f"cannot be read: the file is truncated or corrupted ({exc})."
    )


def _json_member(archive: Any, name: str, shown: Any) -> Any:
    value = _member(archive, name, shown, kinds="")
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


def _check_header(record: Any, cls: Any, where: Where) -> None:
    """A JSON object of this class's format and a version this skboot reads."""
    if not isinstance(record, dict):
        raise where.must("record", "a JSON object", type(record).__name__)
    want = f"skboot.{cls.__name__}"
    got = record.get("format", "(missing)")
    if got != want:
        other = got.removeprefix("skboot.") if isinstance(got, str) else None
        if other and other != got and _registered(other) is not None:
            raise where.error(
                "format",
                f"is {got!r}: the file holds a {other}, not a {cls.__name__}. "
                f"Read it with {other}.load.",
            )
        raise where.must("format", repr(want), got)
    version = record.get("format_version", "(missing)")
    written = record.get("skboot_version", "an unknown skboot")
    readable = ", ".join(str(v) for v in READ_FORMAT_VERSIONS)
    if isinstance(version, int) and not isinstance(version, bool) and version < 3:
        raise where.error(
            "format_version",
            f"is {version} (written by skboot {written}); this skboot reads format "
            f"version {readable} only. Re-run the bootstrap with the recorded "
            "random_state (the same replicates) and save it again.",
        )
    if type(version) is not int or version not in READ_FORMAT_VERSIONS:
        raise where.error(
            "format_version",
            f"is {version!r} (written by skboot {written}); this skboot reads "
            f"format version {readable}. Upgrade skboot to read a newer file.",
        )
    if not isinstance(written, str):
        raise where.must("skboot_version", "a string", written)


def _references(value: Any, out: list[str]) -> list[str]:
    """The member names the record refers to (``{"__array__": name}``)."""
    if isinstance(value, dict):
        name = value.get("__array__")
        if isinstance(name, str):
            out.append(name)
        for v in value.values():
            _references(v, out)
    elif isinstance(value, list):
        for v in value:
            _references(v, out)
    return out


def _check_members(archive: Any, record: dict[str, Any], shown: Any) -> None:
    """Every member the record refers to is there, and nothing else."""
    want = {*_references(record, []), *_RESERVED}
    have = set(archive.files)
    missing = sorted(want - have)
    if missing:
        raise file_error(
            shown,
            missing[0],
            f"is missing from the archive (format version {FORMAT_VERSION}).",
        )
    extra = sorted(have - want)
    if extra:
        raise file_error(
            shown,
            extra[0],
            f"is not a member of a result file of format version {FORMAT_VERSION} "
            f"(the record refers to {', '.join(sorted(want))}).",
        )


def _registered(name: str) -> Any:
    """The result class of this name (None: none, or several)."""
    classes = CLASSES.get(name, [])
    ours = [c for c in classes if c.__module__.startswith("skboot.")]
    found = ours if len(ours) == 1 else classes
    return found[0] if len(found) == 1 else None


def _decode(value: Any, where: Where, name: str, arrays: dict[str, np.ndarray]) -> Any:
    """A record value as the field's value: arrays, tuples and nested results
    rebuilt."""
    path = where.field(name)
    if isinstance(value, list):
        return [_decode(v, where, f"{name}.{i}", arrays) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    tags = [k for k in value if k.startswith("__")]
    if not tags:
        return {k: _decode(v, where, f"{name}.{k}", arrays) for k, v in value.items()}
    tag = tags[0]
    if tag == "__array__" and value == {"__array__": path}:
        return arrays[path]
    if tag == "__tuple__" and len(value) == 1 and isinstance(value[tag], list):
        items = value[tag]
        return tuple(
            _decode(v, where, f"{name}.{i}", arrays) for i, v in enumerate(items)
        )
    if tag == "__result__" and len(tags) == 1:
        cls = _registered(value[tag]) if isinstance(value[tag], str) else None
        if cls is None:
            raise where.error(name, f"names no result class of skboot: {value[tag]!r}.")
        fields = {k: v for k, v in value.items() if k != tag}
        return _build(cls, fields, arrays, where.sub(name))
    allowed = (
        f'{{"__array__": "{path}"}}, {{"__tuple__": [items]}} or '
        '{"__result__": class name, fields...}'
    )
    raise where.must(name, allowed, value)


def _build(
    cls: Any, fields: dict[str, Any], arrays: dict[str, np.ndarray], where: Where
) -> Any:
    values = {k: _decode(v, where, k, arrays) for k, v in fields.items()}
    return cls._from_file_fields(values, where)


def _verify(
    archive: Any,
    arrays: dict[str, np.ndarray],
    record: dict[str, Any],
    shown: Any,
    cls: Any,
) -> None:
    """The checksum member is well formed and matches every other member."""
    checksum = _json_member(archive, "checksum", shown)
    names = {*arrays, "record"}
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
    for name in [*arrays, "record"]:
        if digests[name] != checksum["members"][name]:
            raise file_error(
                shown,
                name,
                "does not match its SHA-256 checksum: the file was edited or "
                f"corrupted after {cls.__name__}.save wrote it.",
            )
