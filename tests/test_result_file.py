"""The one verified file format of every result (``Result.save`` / ``load``).

Generic over a frozen result dataclass: plain fields in the JSON record, arrays
of booleans, integers, floats and text as members named by their field path,
nested results recursively, internals too; the class is named in the record and
checked on load.  Damage (a changed member or record, a missing member, a file
of another class) is refused with :class:`skboot.ResultFileError` naming the
member.  The BootstrapResult specifics are in tests/test_persist.py and
tests/test_persistence_verified.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest

from skboot import BootstrapResult, ConfidenceInterval, ResultFileError, bootstrap
from skboot._resultfile import FORMAT_VERSION
from skboot._results import Result

matplotlib.use("Agg")

X = np.random.default_rng(3).normal(size=40)
FRAME = pd.DataFrame(
    np.random.default_rng(4).normal(size=(40, 3)),
    columns=pd.Index(["a", "b", "c"], name="feature"),
)


@dataclass(frozen=True, eq=False, repr=False)
class NestedFileResult(Result):
    """A synthetic result holding every kind of storable field."""

    interval: ConfidenceInterval
    result: BootstrapResult
    counts: np.ndarray
    flags: np.ndarray
    names: np.ndarray
    pair: tuple[Any, ...]
    options: dict[str, Any]
    note: Any
    _hidden: float = 0.0


def _nested(**changes: Any) -> NestedFileResult:
    res = bootstrap(FRAME, "mean", n_resamples=30, random_state=0)
    fields = {
        "interval": res.confidence_interval(method="percentile"),
        "result": res,
        "counts": np.arange(6, dtype=np.int64).reshape(2, 3),
        "flags": np.array([True, False, True]),
        "names": np.array(["model a", "model b"]),
        "pair": (1, np.array([0.5, np.nan, np.inf])),
        "options": {"level": 0.9, "labels": ["x", None], "inner": {"k": 2}},
        "note": None,
        "_hidden": 2.5,
    }
    return NestedFileResult(**{**fields, **changes})


def _blob(result: Result) -> bytes:
    buf = io.BytesIO()
    result.save(buf)
    return buf.getvalue()


def _members(blob: bytes) -> dict[str, Any]:
    with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
        out = {k: npz[k] for k in npz.files}
    out["record"] = json.loads(str(out["record"][()]))
    out["checksum"] = json.loads(str(out["checksum"][()]))
    return out


def _write(members: dict[str, Any], rehash: bool = False) -> io.BytesIO:
    """The archive of ``members``; ``rehash`` recomputes the checksum from its
    documented algorithm (written here independently of skboot's code)."""
    members = dict(members)
    if rehash:
        digests = {}
        for name, a in members.items():
            if name in ("record", "checksum"):
                continue
            head = f"{name}\n{a.dtype.str}\n{json.dumps(list(a.shape))}\n".encode()
            body = np.ascontiguousarray(a).tobytes()
            digests[name] = hashlib.sha256(head + body).hexdigest()
        text = json.dumps(
            members["record"], sort_keys=True, separators=(",", ":"), ensure_ascii=True
        )
        digests["record"] = hashlib.sha256(text.encode("ascii")).hexdigest()
        members["checksum"] = {"algorithm": "sha256", "members": digests}
    out = {
        k: np.array(json.dumps(v)) if k in ("record", "checksum") else v
        for k, v in members.items()
    }
    buf = io.BytesIO()
    np.savez(buf, **out)
    buf.seek(0)
    return buf


# ---------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------
def test_nested_result_round_trip_keeps_every_field_and_type():
    res = _nested()
    back = NestedFileResult.load(io.BytesIO(_blob(res)))
    assert type(back) is NestedFileResult and back == res
    assert back._hidden == 2.5  # internals are stored too
    assert type(back.result) is BootstrapResult and back.result == res.result
    assert back.result._context is None  # the data is never stored
    pd.testing.assert_frame_equal(back.result.distribution, res.result.distribution)
    pd.testing.assert_series_equal(back.interval.low, res.interval.low)
    pd.testing.assert_series_equal(back.interval.estimate, res.interval.estimate)
    for name in ("counts", "flags", "names"):
        got, want = getattr(back, name), getattr(res, name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
    assert type(back.pair) is tuple and back.pair[0] == 1
    np.testing.assert_array_equal(back.pair[1], res.pair[1])
    assert back.options == res.options and back.note is None
    # the loaded copy computes what the saved one does
    assert back.result.confidence_interval(method="percentile") == res.interval


def test_members_are_named_by_field_path_and_the_record_names_the_class():
    members = _members(_blob(_nested()))
    record = members["record"]
    assert record["format"] == "skboot.NestedFileResult"
    assert record["format_version"] == FORMAT_VERSION == 3
    assert record["result"]["__result__"] == "BootstrapResult"
    assert record["interval"]["__result__"] == "ConfidenceInterval"
    assert record["pair"] == {"__tuple__": [1, {"__array__": "pair.1"}]}
    assert record["_hidden"] == 2.5
    arrays = sorted(set(members) - {"record", "checksum"})
    assert arrays == [
        "counts",
        "flags",
        "interval.estimate",
        "interval.high",
        "interval.low",
        "interval.standard_error",
        "names",
        "pair.1",
        "result.bias",
        "result.distribution",
        "result.estimate",
        "result.standard_error",
    ]
    assert members["names"].dtype.kind == "U" and members["flags"].dtype == bool
    assert set(members["checksum"]["members"]) == {*arrays, "record"}


@pytest.mark.parametrize(
    "make",
    [
        lambda: ConfidenceInterval(1.0, 2.0),
        lambda: ConfidenceInterval(-np.inf, 0.5, method="basic", alternative="less"),
        lambda: ConfidenceInterval(
            np.array([0.0, np.nan]), np.array([1.0, np.nan]), level=0.9, name=("a", 1)
        ),
        lambda: bootstrap(
            X, "mean", n_resamples=50, random_state=1
        ).confidence_interval(method="bc"),
        lambda: bootstrap(
            FRAME, "std", n_resamples=50, random_state=2
        ).confidence_interval(method="percentile"),
    ],
    ids=["bare", "one-sided", "arrays-nan", "scalar-run", "frame-run"],
)
def test_confidence_interval_round_trip(make):
    ci = make()
    back = ConfidenceInterval.load(io.BytesIO(_blob(ci)))
    assert back == ci and type(back.low) is type(ci.low)
    pd.testing.assert_frame_equal(back.to_frame(), ci.to_frame())
    assert back.name == ci.name and type(back.name) is type(ci.name)


def test_bootstrap_result_round_trip_through_the_generic_format(tmp_path):
    res = bootstrap(FRAME, "mean", n_resamples=40, random_state=5)
    path = tmp_path / "run.skboot"
    res.save(path)
    back = BootstrapResult.load(path)
    assert back == res
    pd.testing.assert_frame_equal(back.to_frame(), res.to_frame())


# ---------------------------------------------------------------------------
# damage is refused, naming the member
# ---------------------------------------------------------------------------
def test_changed_member_bytes_are_refused():
    members = _members(_blob(_nested()))
    dist = members["result.distribution"].copy()
    dist[3, 1] = np.nextafter(dist[3, 1], np.inf)
    members["result.distribution"] = dist
    with pytest.raises(ResultFileError, match="does not match its SHA-256") as info:
        NestedFileResult.load(_write(members))
    assert info.value.field == "result.distribution"
    counts = _members(_blob(_nested()))
    counts["counts"] = counts["counts"] + 1
    with pytest.raises(ResultFileError, match="'counts' does not match") as info:
        NestedFileResult.load(_write(counts))


def test_changed_record_is_refused():
    members = _members(_blob(_nested()))
    members["record"]["options"]["level"] = 0.8
    with pytest.raises(ResultFileError, match="'record' does not match its SHA-256"):
        NestedFileResult.load(_write(members))
    members["record"]["interval"]["level"] = 0.5  # a schema-valid forgery too
    with pytest.raises(ResultFileError, match="'record' does not match"):
        NestedFileResult.load(_write(members))


def test_missing_member_is_refused():
    members = _members(_blob(_nested()))
    del members["interval.low"]
    with pytest.raises(
        ResultFileError, match=r"'interval.low' is missing from the archive"
    ) as info:
        NestedFileResult.load(_write(members, rehash=True))
    assert info.value.field == "interval.low"


def test_file_of_another_class_is_refused():
    blob = _blob(_nested())
    with pytest.raises(
        ResultFileError,
        match=r"'format' is 'skboot.NestedFileResult': the file holds a "
        r"NestedFileResult, not a ConfidenceInterval. Read it with "
        r"NestedFileResult.load",
    ):
        ConfidenceInterval.load(io.BytesIO(blob))
    ci_blob = _blob(ConfidenceInterval(0.0, 1.0))
    with pytest.raises(ResultFileError, match="not a BootstrapResult"):
        BootstrapResult.load(io.BytesIO(ci_blob))


def test_nested_fields_are_checked_by_their_class_with_their_path():
    members = _members(_blob(_nested()))
    members["record"]["result"]["n_resamples"] = 5
    with pytest.raises(
        ResultFileError, match=r"'result.distribution' must hold one row per replicate"
    ) as info:
        NestedFileResult.load(_write(members, rehash=True))
    assert info.value.field == "result.distribution"
    members = _members(_blob(_nested()))
    members["record"]["interval"]["comment"] = "x"
    with pytest.raises(
        ResultFileError,
        match=r"'interval.comment' is not a field of a ConfidenceInterval",
    ):
        NestedFileResult.load(_write(members, rehash=True))
    members = _members(_blob(_nested()))
    members["record"]["interval"]["__result__"] = "NoSuchResult"
    with pytest.raises(
        ResultFileError, match=r"'interval' names no result class of skboot"
    ):
        NestedFileResult.load(_write(members, rehash=True))
    members = _members(_blob(_nested()))
    del members["record"]["note"]
    with pytest.raises(ResultFileError, match=r"'note' is missing from the record"):
        NestedFileResult.load(_write(members, rehash=True))


def test_values_that_make_no_result_are_refused():
    members = _members(_blob(ConfidenceInterval(np.zeros(2), np.ones(2))))
    members["high"] = np.ones(3)
    with pytest.raises(
        ResultFileError,
        match=r"valid skboot result: its fields cannot make a ConfidenceInterval: "
        r"The 'high' parameter of ConfidenceInterval must have the shape of 'low'",
    ) as info:
        ConfidenceInterval.load(_write(members, rehash=True))
    assert info.value.field is None
    plain = ConfidenceInterval(np.zeros(2), np.ones(2))
    nested = _members(_blob(_nested(interval=plain)))
    nested["interval.high"] = np.ones(4)
    with pytest.raises(
        ResultFileError,
        match=r"its field 'interval' cannot make a ConfidenceInterval: The 'high'",
    ) as info:
        NestedFileResult.load(_write(nested, rehash=True))
    assert info.value.field == "interval"


def test_fields_a_file_cannot_hold_are_refused_at_save():
    for bad, what in (
        ({"note": object()}, "note' \\(object\\)"),
        ({"note": pd.Series([1.0])}, "note' \\(Series\\)"),
        (
            {"counts": np.array([{"a": 1}], dtype=object)},
            "counts' \\(an array of dtype object\\)",
        ),
        ({"options": {1: "x"}}, "options' \\(dict\\)"),
    ):
        with pytest.raises(
            TypeError, match=rf"NestedFileResult.save cannot store the field '{what}"
        ):
            _nested(**bad).save(io.BytesIO())


# ---------------------------------------------------------------------------
# the rest of the protocol for BootstrapResult and ConfidenceInterval
# ---------------------------------------------------------------------------
def test_bootstrap_result_repr_is_short_and_to_frame_has_one_row_per_column():
    res = bootstrap(FRAME, "mean", n_resamples=9999, random_state=0)
    text = repr(res)
    assert len(text) < 300 and "statistic_name='mean'" in text
    assert "DataFrame(shape=(9999, 3))" in text
    frame = res.to_frame()
    assert list(frame.columns) == [
        "statistic_name",
        "estimate",
        "standard_error",
        "bias",
    ]
    assert list(frame.index) == ["a", "b", "c"]
    np.testing.assert_array_equal(frame["bias"], res.bias.to_numpy())
    scalar = bootstrap(X, "median", n_resamples=99, random_state=0).to_frame()
    assert list(scalar.index) == ["median"]
    assert scalar["statistic_name"].tolist() == ["median"]
    spawned = np.random.SeedSequence(3).spawn(2)[1]
    seeded = bootstrap(X, "mean", n_resamples=9, random_state=spawned)
    assert "random_state=SeedSequence(entropy=3, spawn_key=(1,))" in repr(seeded)


def test_equality_never_raises_and_tells_pandas_outputs_apart():
    a = bootstrap(FRAME, "mean", n_resamples=20, random_state=0)
    b = bootstrap(FRAME.to_numpy(), "mean", n_resamples=20, random_state=0)
    renamed = bootstrap(
        FRAME.rename_axis(columns="other"), "mean", n_resamples=20, random_state=0
    )
    assert a != b and a != renamed and a == dataclasses.replace(a)
    assert (a == 3) is False and (a != "x") is True


def test_confidence_interval_plot_draws_one_error_bar_per_column():
    import matplotlib.pyplot as plt

    ci = bootstrap(FRAME, "mean", n_resamples=50, random_state=0).confidence_interval(
        method="percentile"
    )
    ax = ci.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    (bars,) = ax.containers
    assert len(bars.lines[2][0].get_segments()) == 3
    _, mine = plt.subplots()
    assert ConfidenceInterval(-np.inf, 1.0, alternative="less").plot(ax=mine) is mine
    assert ConfidenceInterval(np.nan, np.nan).plot(color="C2") is not None
    plt.close("all")


def test_bootstrap_result_plot_returns_the_axes():
    import matplotlib.pyplot as plt

    res = bootstrap(X, "mean", n_resamples=50, random_state=0)
    _, ax = plt.subplots()
    assert res.plot(ax=ax, method="percentile") is ax
    plt.close("all")
