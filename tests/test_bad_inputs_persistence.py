"""Bad-input catalogue of result files and of the run entry points' new refusals.

One table, :data:`CASES`: ``(entry point, id, inputs, call, exception, match)``,
in the style of ``tests/test_bad_inputs.py``, with its checks on every row:

* the error is a ``ValueError`` (a :class:`skboot.ResultFileError` for a refused
  file, naming the field) whose message matches, raised by skboot's own code;
* it comes before any resampling work: the engine, the jackknife and the refit
  statistic are replaced by a function that fails the test;
* the inputs are not mutated: every input (arrays, resamplers, file bytes) is
  compared with a copy taken before the call.

The entries: :meth:`BootstrapResult.load` and :meth:`~BootstrapResult.save`
(malformed, edited, truncated files and bad paths), ``bootstrap`` and
``BootstrapStatistic`` given a permutation or a distribution too large for the
memory, and ``ConfidenceInterval`` given endpoints that are not real numbers.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from work_guard import WorkStarted, forbid_work

import skboot
from skboot import (
    Bootstrap,
    BootstrapResult,
    BootstrapStatistic,
    ConfidenceInterval,
    Permutation,
    ResultFileError,
    bootstrap,
    metric_ci,
)

_GEN = np.random.default_rng(7)
N = 40
X1 = _GEN.normal(size=N)
WIDE = _GEN.normal(size=(N, 100))
XR = _GEN.normal(size=(N, 2))
YR = XR @ np.array([1.0, -1.0]) + _GEN.normal(size=N)
Y01 = np.tile([0, 1], N // 2)
SCORE = Y01 + _GEN.normal(size=N)


# ---------------------------------------------------------------------------
# results and files, built before the engine is disabled
# ---------------------------------------------------------------------------
@functools.cache
def _res() -> BootstrapResult:
    return bootstrap(X1, "mean", n_resamples=99, random_state=0)


@functools.cache
def _metric():
    return metric_ci(Y01, SCORE, "roc_auc", n_resamples=20, random_state=0)


@functools.cache
def _blob() -> bytes:
    buf = io.BytesIO()
    _res().save(buf)
    return buf.getvalue()


def _members() -> dict[str, Any]:
    with np.load(io.BytesIO(_blob()), allow_pickle=False) as npz:
        out = {k: npz[k] for k in npz.files}
    out["record"] = json.loads(str(out["record"][()]))
    out["checksum"] = json.loads(str(out["checksum"][()]))
    return out


def _file(
    edit: Callable[[dict[str, Any]], Any] | None = None, raw: str | None = None
) -> bytes:
    """The bytes of the saved result after ``edit`` of its members (the old
    checksum kept: the schema or the checksum must refuse it)."""
    members = _members()
    if edit is not None:
        edit(members)
    out = {}
    for k, v in members.items():
        out[k] = np.array(json.dumps(v)) if k in ("record", "checksum") else v
    if raw is not None:
        out["record"] = np.array(raw)
    buf = io.BytesIO()
    np.savez(buf, **out)
    return buf.getvalue()


def _record(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["record"].update(changes)


def _pop_record(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["record"].pop(key)


def _member(
    name: str, value: Callable[[dict[str, Any]], Any]
) -> Callable[[dict[str, Any]], None]:
    return lambda m: m.__setitem__(name, value(m))


def _drop(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda m: m.pop(name)


def _nan_replicate(m: dict[str, Any]) -> None:
    m["distribution"] = m["distribution"].copy()
    m["distribution"][3] = np.nan


def _one_ulp(m: dict[str, Any]) -> None:
    m["distribution"] = m["distribution"].copy()
    m["distribution"][3] = np.nextafter(m["distribution"][3], np.inf)


def _npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.arange(3.0))
    return buf.getvalue()


def _other_npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, distribution=np.arange(3.0))
    return buf.getvalue()


@contextlib.contextmanager
def _memory(n_bytes: int):
    """The machine reports ``n_bytes`` of available memory."""
    with mock.patch("skboot._run._context.available_memory", return_value=n_bytes):
        yield


def _little_memory(call: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with _memory(2**29):  # 0.5 GiB
            return call()

    return run


class Counter:
    """A statistic that counts its calls (it must not be called)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, a, *rest, **kw):
        self.calls += 1
        return float(np.mean(a))


# ---------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------
V = ValueError
F = ResultFileError
#: ``(entry point, id, inputs, call, exception, match)``: ``inputs()`` builds the
#: objects the call receives (checked unchanged afterwards), ``call(inputs)``
#: makes the call.
CASES: list[
    tuple[
        str,
        str,
        Callable[[], dict[str, Any]],
        Callable[[dict[str, Any]], Any],
        type[BaseException],
        str,
    ]
] = []


def case(entry, id_, inputs, call, exc, match):
    CASES.append((entry, id_, inputs, call, exc, match))


def _load_bytes(
    make: Callable[[], bytes],
) -> tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], Any]]:
    """Inputs and call of a load of the bytes ``make()`` from a file object."""
    return (lambda: {"blob": make()}), (
        lambda i: BootstrapResult.load(io.BytesIO(i["blob"]))
    )


def none() -> dict[str, Any]:
    return {}


# fmt: off
# -- BootstrapResult.load: the path --------------------------------------------
L = "BootstrapResult.load"
case(L, "path-int", none, lambda i: BootstrapResult.load(3), V, r"'path' parameter of BootstrapResult.load must be a str, an os.PathLike or a binary file object \(with .read\). Got 3 instead")
case(L, "path-None", none, lambda i: BootstrapResult.load(None), V, r"'path' parameter of BootstrapResult.load must be a str.*Got None")
case(L, "path-bytes", lambda: {"blob": _blob()}, lambda i: BootstrapResult.load(i["blob"]), V, r"'path' parameter of BootstrapResult.load must be .*Got b'PK")
case(L, "path-list", lambda: {"p": ["run.npz"]}, lambda i: BootstrapResult.load(i["p"]), V, r"'path' parameter of BootstrapResult.load.*Got \['run.npz'\]")
# -- BootstrapResult.load: files that are not result archives -------------------
case(L, "empty-file", *_load_bytes(lambda: b""), F, r"is not a valid skboot result: it is not an .npz archive written by BootstrapResult.save")
case(L, "text-file", *_load_bytes(lambda: b"estimate,low,high\n1,0,2\n"), F, r"it is not an .npz archive .*another kind of file: it does not start as a zip archive\)")
case(L, "npy-file", *_load_bytes(_npy), F, r"it is a single .npy array, not an .npz archive")
case(L, "truncated-half", *_load_bytes(lambda: _blob()[: len(_blob()) // 2]), F, r"it is not an .npz archive written by BootstrapResult.save \(truncated, corrupted")
case(L, "truncated-last-byte", *_load_bytes(lambda: _blob()[:-1]), F, r"it is not an .npz archive")
case(L, "other-npz", *_load_bytes(_other_npz), F, r"its field 'record' is missing from the archive")
# -- BootstrapResult.load: the record --------------------------------------------
case(L, "record-not-json", *_load_bytes(lambda: _file(raw="{oops")), F, r"its field 'record' is not valid JSON \(JSONDecodeError")
case(L, "record-array", *_load_bytes(lambda: _file(raw="[1, 2]")), F, r"its field 'record' must be a JSON object. Got 'list'")
case(L, "format-other", *_load_bytes(lambda: _file(_record(format="numpy"))), F, r"its field 'format' must be 'skboot.BootstrapResult'. Got 'numpy'")
case(L, "format-version-99", *_load_bytes(lambda: _file(_record(format_version=99))), F, r"its field 'format_version' is 99 \(written by skboot [^)]*\); this skboot reads format version 3. Upgrade skboot")
case(L, "format-version-str", *_load_bytes(lambda: _file(_record(format_version="2"))), F, r"its field 'format_version' is '2'")
case(L, "stream-version-99", *_load_bytes(lambda: _file(_record(stream_version=99))), F, r"its field 'stream_version' is 99; this skboot knows random-stream version\(s\) 1")
case(L, "stream-version-one", *_load_bytes(lambda: _file(_record(stream_version="one"))), F, r"its field 'stream_version' is 'one'")
case(L, "missing-outputs", *_load_bytes(lambda: _file(_pop_record("outputs"))), F, r"its field 'outputs' is missing from the record")
case(L, "missing-random-state", *_load_bytes(lambda: _file(_pop_record("random_state"))), F, r"its field 'random_state' is missing from the record")
case(L, "extra-field", *_load_bytes(lambda: _file(_record(note="edited"))), F, r"its field 'note' is not a field of a result record")
case(L, "n-resamples-5-of-99", *_load_bytes(lambda: _file(_record(n_resamples=5))), F, r"its field 'distribution' must hold one row per replicate, n_resamples = 5.*Got an array of shape \(99,\)")
case(L, "n-resamples-str", *_load_bytes(lambda: _file(_record(n_resamples="99"))), F, r"its field 'n_resamples' must be an int in \[1, 4294967295\]. Got '99'")
case(L, "block-length-negative", *_load_bytes(lambda: _file(_record(block_length=-2.0))), F, r"its field 'block_length' must be null or a finite number > 0. Got -2.0")
case(L, "spawn-key-str", *_load_bytes(lambda: _file(_record(random_state={"entropy": 0, "spawn_key": "0"}))), F, r"its field 'random_state' must be null or")
case(L, "outputs-kind", *_load_bytes(lambda: _file(_record(outputs={"kind": "polars", "labels": None, "name": None}))), F, r"its field 'outputs' must be")
case(L, "edited-statistic", *_load_bytes(lambda: _file(_record(statistic_name="median"))), F, r"its field 'record' does not match its SHA-256 checksum: the file was edited or corrupted")
# -- BootstrapResult.load: the arrays -----------------------------------------------
case(L, "distribution-strings", *_load_bytes(lambda: _file(_member("distribution", lambda m: m["distribution"].astype(str)))), F, r"its field 'distribution' must be a float64 array. Got 'dtype <U")
case(L, "distribution-float32", *_load_bytes(lambda: _file(_member("distribution", lambda m: m["distribution"].astype(np.float32)))), F, r"its field 'distribution' must be a float64 array. Got 'dtype float32'")
case(L, "distribution-objects", *_load_bytes(lambda: _file(_member("distribution", lambda m: m["distribution"].astype(object)))), F, r"its field 'distribution' holds Python objects, which only pickle can read")
case(L, "estimate-3-values", *_load_bytes(lambda: _file(_member("estimate", lambda m: np.zeros(3)))), F, r"its field 'estimate' must have the shape of one replicate, \(\).*Got shape \(3,\)")
case(L, "nan-replicate", *_load_bytes(lambda: _file(_nan_replicate)), F, r"its field 'n_undefined' is 0, but the distribution holds 1 replicate\(s\) with a NaN")
case(L, "one-ulp-edit", *_load_bytes(lambda: _file(_one_ulp)), F, r"its field 'distribution' does not match its SHA-256 checksum")
case(L, "missing-checksum", *_load_bytes(lambda: _file(_drop("checksum"))), F, r"its field 'checksum' is missing from the archive \(format version 3\)")
case(L, "missing-bias", *_load_bytes(lambda: _file(_drop("bias"))), F, r"its field 'bias' is missing from the archive")
case(L, "extra-member", *_load_bytes(lambda: _file(_member("script", lambda m: np.array("print(1)")))), F, r"its field 'script' is not a member of a result file of format version 3")
case(L, "checksum-not-json", *_load_bytes(lambda: _file(_member("checksum", lambda m: "sha256"))), F, r"its field 'checksum' must be \{\"algorithm\": \"sha256\"")
# -- BootstrapResult.save / to_dict ----------------------------------------------------
S = "BootstrapResult.save"
case(S, "save-path-int", none, lambda i: _res().save(3), V, r"'path' parameter of BootstrapResult.save must be a str, an os.PathLike or a binary file object \(with .write\). Got 3 instead")
case(S, "save-path-None", none, lambda i: _res().save(None), V, r"'path' parameter of BootstrapResult.save.*Got None")
case(S, "save-read-only-object", lambda: {"blob": b"abc"}, lambda i: _res().save(i["blob"]), V, r"'path' parameter of BootstrapResult.save.*Got b'abc'")
case(S, "to_dict-distribution-None", none, lambda i: _res().to_dict(distribution=None), V, r"'distribution' parameter of to_dict must be True or False. Got None")
# -- bootstrap / BootstrapStatistic: a permutation is not a bootstrap -----------------
B = "bootstrap"
case(B, "permutation", lambda: {"x": X1.copy(), "r": Permutation(50)}, lambda i: bootstrap(i["x"], "mean", resampler=i["r"]), V, r"'resampler' parameter of bootstrap must be a bootstrap resampler.*Got Permutation\(n_resamples=50\) instead.*standard error 0.*skboot.permutation_test")
case(B, "permutation-callable", lambda: {"x": X1.copy(), "r": Permutation(50, random_state=0), "stat": Counter()}, lambda i: bootstrap(i["x"], i["stat"], resampler=i["r"]), V, r"'resampler' parameter of bootstrap must be a bootstrap resampler.*Got Permutation\(n_resamples=50, random_state=0\)")
case(B, "permutation-groups", lambda: {"x": X1.copy(), "r": Permutation(30), "g": np.arange(N) % 4}, lambda i: bootstrap(i["x"], "median", resampler=i["r"], groups=i["g"]), V, r"'resampler' parameter of bootstrap must be a bootstrap resampler")
case(B, "n_resamples-too-large-wide", lambda: {"x": WIDE.copy()}, lambda i: bootstrap(i["x"], "mean", n_resamples=2**32 - 1), V, r"'n_resamples' parameter of bootstrap is 4294967295: the bootstrap distribution would need (at least )?\d+\.\d GiB \(4294967295 replicates x (100 output\(s\)|at least 1 output) x 8 bytes\), more than the \d+\.\d GiB of memory available")
case(B, "n_resamples-little-memory", lambda: {"x": X1.copy()}, lambda i: _little_memory(lambda: bootstrap(i["x"], "mean", n_resamples=2**27))(), V, r"'n_resamples' parameter of bootstrap is 134217728: the bootstrap distribution would need at least 1.0 GiB \(134217728 replicates x at least 1 output x 8 bytes\), more than the 0.5 GiB of memory available")
case(B, "n_resamples-little-memory-k", lambda: {"x": WIDE.copy()}, lambda i: _little_memory(lambda: bootstrap(i["x"], "mean", n_resamples=2**22))(), V, r"would need 3.1 GiB \(4194304 replicates x 100 output\(s\) x 8 bytes\), more than the 0.5 GiB")
case(B, "resampler-n_resamples-little-memory", lambda: {"x": X1.copy(), "r": Bootstrap(2**27)}, lambda i: _little_memory(lambda: bootstrap(i["x"], "mean", resampler=i["r"]))(), V, r"'n_resamples' parameter of bootstrap is 134217728: the bootstrap distribution would need at least 1.0 GiB")
E = "BootstrapStatistic"
case(E, "permutation", lambda: {"x": X1.copy(), "r": Permutation(40)}, lambda i: BootstrapStatistic("mean", resampler=i["r"]).fit(i["x"]), V, r"'resampler' parameter of BootstrapStatistic must be a bootstrap resampler.*Got Permutation\(n_resamples=40\)")
case(E, "permutation-estimator", lambda: {"x": XR.copy(), "y": YR.copy(), "r": Permutation(20)}, lambda i: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), resampler=i["r"]).fit(i["x"], i["y"]), V, r"'resampler' parameter of BootstrapStatistic must be a bootstrap resampler.*metric_permutation_test")
case(E, "n_resamples-little-memory", lambda: {"x": X1.copy()}, lambda i: _little_memory(lambda: BootstrapStatistic(n_resamples=2**27).fit(i["x"]))(), V, r"'n_resamples' parameter of BootstrapStatistic is 134217728: the bootstrap distribution would need at least 1.0 GiB")
M = "metric_ci"
case(M, "n_resamples-little-memory", lambda: {"y": Y01.copy(), "s": SCORE.copy()}, lambda i: _little_memory(lambda: metric_ci(i["y"], i["s"], "roc_auc", n_resamples=2**27))(), V, r"'n_resamples' parameter of metric_ci is 134217728: the bootstrap distribution would need at least 1.0 GiB")
# -- ConfidenceInterval -----------------------------------------------------------------------
C = "ConfidenceInterval"
case(C, "low-str", none, lambda i: ConfidenceInterval("a", "b").to_frame(), V, r"'low' parameter of ConfidenceInterval must be a real number or an array-like \(ndarray, Series, DataFrame\) of real numbers. Got 'a' instead")
case(C, "high-str", none, lambda i: ConfidenceInterval(1.0, "b"), V, r"'high' parameter of ConfidenceInterval must be a real number.*Got 'b'")
case(C, "low-None", none, lambda i: ConfidenceInterval(None, 1.0), V, r"'low' parameter of ConfidenceInterval.*Got None")
case(C, "low-bool", none, lambda i: ConfidenceInterval(True, 2.0), V, r"'low' parameter of ConfidenceInterval.*Got True")
case(C, "low-complex", none, lambda i: ConfidenceInterval(1j, 2.0), V, r"'low' parameter of ConfidenceInterval.*Got 1j")
case(C, "low-text-array", lambda: {"a": np.array(["0.1", "0.2"])}, lambda i: ConfidenceInterval(i["a"], np.ones(2)), V, r"'low' parameter of ConfidenceInterval.*Got array\(\['0.1', '0.2'\]")
case(C, "shapes-differ", lambda: {"a": np.zeros(2), "b": np.ones(3)}, lambda i: ConfidenceInterval(i["a"], i["b"]), V, r"'high' parameter of ConfidenceInterval must have the shape of 'low', \(2,\). Got shape \(3,\)")
case(C, "shapes-differ-2d", lambda: {"a": np.zeros((2, 2)), "b": np.ones(4)}, lambda i: ConfidenceInterval(i["a"], i["b"]), V, r"must have the shape of 'low', \(2, 2\). Got shape \(4,\)")
case(C, "to_frame-estimate-length", lambda: {"a": np.zeros(2), "e": np.zeros(3)}, lambda i: ConfidenceInterval(i["a"], i["a"] + 1, estimate=i["e"]).to_frame(), V, r"'estimate' parameter of ConfidenceInterval must hold one real number per endpoint \(2, shape \(2,\)\) to be tabulated by to_frame")
case(C, "to_frame-2d-standard-error", lambda: {"a": np.zeros((2, 3)), "s": np.zeros(3)}, lambda i: ConfidenceInterval(i["a"], i["a"] + 1, standard_error=i["s"]).to_frame(), V, r"'standard_error' parameter of ConfidenceInterval must hold one real number per endpoint \(6, shape \(2, 3\)\)")
case(C, "to_frame-estimate-str", none, lambda i: ConfidenceInterval(1.0, 2.0, estimate="x").to_frame(), V, r"'estimate' parameter of ConfidenceInterval must hold one real number per endpoint \(1, shape \(\)\)")
case(C, "to_frame-vector-estimate-str", none, lambda i: ConfidenceInterval(np.zeros(2), np.ones(2), estimate="x").to_frame(), V, r"'estimate' parameter of ConfidenceInterval must hold one real number")
# fmt: on


def test_catalogue_size():
    ids = [(entry, id_) for entry, id_, *_ in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(CASES) >= 40
    assert {entry for entry, *_ in CASES} == {L, S, B, E, M, C}


WORK = [
    ("skboot._run._run", "run_bootstrap"),
    ("skboot._run._studentized", "run_bootstrap"),
    ("skboot._engine._jackknife", "run_bootstrap"),
    ("skboot.metrics._ci", "run_bootstrap"),
    ("skboot.statistic._inference", "jackknife"),
    ("skboot._run._run", "EstimatorStatistic"),
]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch, WORK)


def _snapshot(inputs: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in inputs.items():
        if isinstance(v, skboot.resamplers.BaseResampler):
            out[k] = (repr(v), sorted(vars(v)))
        elif isinstance(v, Counter):
            out[k] = v.calls
        else:
            out[k] = copy.deepcopy(v)
    return out


def _assert_unchanged(before: dict[str, Any], inputs: dict[str, Any]) -> None:
    after = _snapshot(inputs)
    for k, want in before.items():
        got = after[k]
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want)
        elif isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got, want), k
        else:
            assert got == want, k


def test_forbid_work_catches_work(monkeypatch):
    """The harness: valid calls do reach the patched work."""
    _res(), _metric(), _blob()
    _forbid_work(monkeypatch)
    for valid in (
        lambda: bootstrap(X1, "mean", n_resamples=5),
        lambda: BootstrapStatistic(n_resamples=5).fit(X1),
        lambda: BootstrapStatistic(
            lambda e: e.coef_, estimator=LinearRegression(), n_resamples=5
        ).fit(XR, YR),
        lambda: metric_ci(Y01, SCORE, "roc_auc", n_resamples=5),
    ):
        with pytest.raises(WorkStarted):
            valid()


@pytest.mark.parametrize(
    ("inputs", "call", "exc", "match"),
    [pytest.param(*rest, id=f"{entry}:{id_}") for entry, id_, *rest in CASES],
)
def test_bad_input(inputs, call, exc, match, monkeypatch):
    _res(), _metric(), _blob()  # built before the engine is disabled
    given = inputs()
    before = _snapshot(given)
    _forbid_work(monkeypatch)
    with pytest.raises(exc, match=match) as info:
        call(given)
    err = info.value
    assert isinstance(err, ValueError)
    if exc is ResultFileError:
        assert type(err) is ResultFileError
        field = err.field
        assert field is None or f"field '{field}'" in str(err)
    else:
        assert not isinstance(err, ResultFileError)
    origin = str(info.traceback[-1].path)
    assert f"{Path(skboot.__file__).parent}" in origin, origin
    _assert_unchanged(before, given)


def test_refusals_cost_no_statistic_call():
    """The permutation and memory refusals come before the statistic is built
    (no call of a callable statistic, not even on the original data)."""
    stat = Counter()
    with pytest.raises(ValueError, match="must be a bootstrap resampler"):
        bootstrap(X1, stat, resampler=Permutation(20))
    with _memory(2**29), pytest.raises(ValueError, match=r"more than the 0\.5 GiB"):
        bootstrap(X1, stat, n_resamples=2**27)
    assert stat.calls == 0


def test_a_file_that_loads_is_left_unchanged(tmp_path):
    path = tmp_path / "run.npz"
    path.write_bytes(_blob())
    assert BootstrapResult.load(path) == _res()
    assert path.read_bytes() == _blob()


def test_memory_check_passes_what_fits():
    """A distribution that fits the reported memory runs, and an unknown amount
    of memory refuses nothing."""
    with _memory(2**40):
        assert bootstrap(X1, "mean", n_resamples=10, random_state=0) == bootstrap(
            X1, "mean", n_resamples=10, random_state=0
        )
    with mock.patch("skboot._run._context.available_memory", return_value=None):
        from skboot._run import check_distribution_memory

        check_distribution_memory(2**32 - 1, 10**6, "bootstrap")
