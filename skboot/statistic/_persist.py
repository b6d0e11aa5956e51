"""A bootstrap result as a record: equality key, dict and ``.npz`` file.

The file format (version 1) is a NumPy ``.npz`` archive that loads with
``allow_pickle=False``:

* ``estimate``, ``standard_error``, ``bias``: float64, shape () or (k,);
* ``distribution``: float64, shape (B,) or (B, k), in replicate order;
* ``record``: a 0-d unicode array holding a JSON object, the keys of
  :meth:`skboot.BootstrapResult.to_dict` without ``distribution``.

A reader of a later ``format_version`` refuses older ones only if it must; this
one refuses versions above :data:`FORMAT_VERSION`.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "json_params",
    "load_result",
    "record_key",
    "result_to_dict",
    "save_result",
]

FORMAT = "skboot.BootstrapResult"
FORMAT_VERSION = 1
_ARRAYS = ("estimate", "distribution", "standard_error", "bias")


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
    for name in _ARRAYS:
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


def save_result(result: Any, path: Any) -> None:
    """See :meth:`skboot.BootstrapResult.save`."""
    record = result_to_dict(result, distribution=False)
    arrays = {
        name: np.asarray(getattr(result, name), dtype=np.float64) for name in _ARRAYS
    }
    arrays["record"] = np.array(json.dumps(record))
    # (numpy's stubs type savez's keywords as its allow_pickle flag)
    savez: Any = np.savez
    if hasattr(path, "write"):
        savez(path, **arrays)
        return
    with open(path, "wb") as fh:  # as given: np.savez would append ".npz"
        savez(fh, **arrays)


def load_result(cls: Any, path: Any) -> Any:
    """See :meth:`skboot.BootstrapResult.load`."""
    if hasattr(path, "read"):
        return _load(cls, path, getattr(path, "name", path))
    # opened here, so that the file is closed whatever numpy makes of it
    with open(path, "rb") as fh:
        return _load(cls, fh, os.fspath(path))


def _load(cls: Any, fh: Any, shown: Any) -> Any:
    import pandas as pd

    try:
        archive = np.load(fh, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:  # not numpy's
        raise ValueError(
            f"The 'path' parameter of BootstrapResult.load must name a file written "
            f"by BootstrapResult.save. Got {shown!r}, which numpy cannot read "
            f"without pickle ({exc})."
        ) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(
            "The 'path' parameter of BootstrapResult.load must name a file written "
            f"by BootstrapResult.save. Got {shown!r}, a single .npy array."
        )
    with archive:
        missing = sorted({*_ARRAYS, "record"} - set(archive.files))
        if missing:
            raise ValueError(
                "The 'path' parameter of BootstrapResult.load must name a file "
                f"written by BootstrapResult.save. Got {shown!r}, which lacks "
                f"{missing}."
            )
        record = json.loads(str(archive["record"][()]))
        values = {name: archive[name] for name in _ARRAYS}
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(
            "The 'path' parameter of BootstrapResult.load must name a file written "
            f"by BootstrapResult.save. Got {shown!r}, whose record is not a "
            f"{FORMAT!r} record."
        )
    version = record.get("format_version")
    if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
        raise ValueError(
            f"The file {shown!r} has format version {version!r} (written by skboot "
            f"{record.get('skboot_version', '?')}); this skboot reads versions 1 to "
            f"{FORMAT_VERSION}. Upgrade skboot to read it."
        )
    est, dist = values["estimate"], values["distribution"]
    se, bias = values["standard_error"], values["bias"]
    outputs = record["outputs"]
    kind = outputs["kind"]
    name = _label_from_json(outputs["name"])
    estimate: Any = float(est) if est.ndim == 0 else est
    standard_error: Any = float(se) if se.ndim == 0 else se
    bias_out: Any = float(bias) if bias.ndim == 0 else bias
    distribution: Any = dist
    if kind == "frame":
        labels = [_label_from_json(v) for v in outputs["labels"]]
        index = pd.Index(labels, tupleize_cols=True, name=name)
        distribution = pd.DataFrame(dist, columns=index)
        estimate = pd.Series(est, index=index)
        standard_error = pd.Series(se, index=index)
        bias_out = pd.Series(bias, index=index)
    elif kind == "series":
        distribution = pd.Series(dist, name=name)
    length = record["block_length"]
    return cls(
        estimate=estimate,
        distribution=distribution,
        standard_error=standard_error,
        bias=bias_out,
        n_resamples=int(record["n_resamples"]),
        statistic=str(record["statistic"]),
        resampler=str(record["resampler"]),
        random_state=_seed_from_record(record["random_state"]),
        stream_version=int(record["stream_version"]),
        n_undefined=int(record["n_undefined"]),
        n_omitted=int(record["n_omitted"]),
        block_length=None if length is None else float(length),
        resampler_params=dict(record["resampler_params"]),
    )
