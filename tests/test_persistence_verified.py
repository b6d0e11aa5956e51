"""Result files verify themselves: the schema, the versions and the checksum.

A saved :class:`~skboot.BootstrapResult` is a versioned ``.npz`` record with a
SHA-256 digest per member.  Loading checks every field's type, shape and relation
and the checksum, and refuses anything else with :class:`skboot.ResultFileError`
naming the field; nothing on the load path unpickles.  The round trip is exact for
every kind of result the library produces.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LinearRegression, LogisticRegression

from skboot import (
    BootstrapResult,
    BootstrapStatistic,
    MovingBlockBootstrap,
    ResidualBootstrap,
    ResultFileError,
    UndefinedStatisticWarning,
    WildBootstrap,
    bootstrap,
    metric_ci,
)
from skboot._resultfile import FORMAT_VERSION, READ_FORMAT_VERSIONS
from skboot.statistic._schema import READ_STREAM_VERSIONS

ARRAYS = ("estimate", "distribution", "standard_error", "bias")
_GEN = np.random.default_rng(42)
X = _GEN.exponential(size=60)
X2 = _GEN.normal(size=(60, 3))


# ---------------------------------------------------------------------------
# helpers: read a file's members, write them back (with or without a checksum
# recomputed from the documented algorithm)
# ---------------------------------------------------------------------------
def _saved(res: BootstrapResult) -> bytes:
    buf = io.BytesIO()
    res.save(buf)
    return buf.getvalue()


def _members(blob: bytes) -> dict:
    with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
        out = {k: npz[k] for k in npz.files}
    out["record"] = json.loads(str(out["record"][()]))
    if "checksum" in out:
        out["checksum"] = json.loads(str(out["checksum"][()]))
    return out


def _digests(members: dict) -> dict:
    """The checksum as the documentation describes it (written independently of
    skboot's own code)."""
    out = {}
    for name in sorted(set(members) - {"record", "checksum"}):
        a = np.asarray(members[name])
        head = f"{name}\n{a.dtype.str}\n{json.dumps(list(a.shape))}\n".encode()
        out[name] = hashlib.sha256(head + np.ascontiguousarray(a).tobytes()).hexdigest()
    text = json.dumps(
        members["record"], sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    out["record"] = hashlib.sha256(text.encode("ascii")).hexdigest()
    return out


def _write(
    members: dict, *, rehash: bool = True, raw_record: str | None = None
) -> io.BytesIO:
    """An archive of ``members`` (the record and checksum as JSON text);
    ``rehash`` recomputes the checksum, as a careful forger would."""
    members = dict(members)
    if rehash and "checksum" in members:
        try:
            digests = _digests(members)
        except (TypeError, KeyError):  # a member gone or not JSON: keep the old one
            digests = None
        if digests is not None:
            members["checksum"] = {"algorithm": "sha256", "members": digests}
    out = {}
    for k, v in members.items():
        if k in ("record", "checksum") and not isinstance(v, np.ndarray):
            v = np.array(json.dumps(v))
        out[k] = v
    if raw_record is not None:
        out["record"] = np.array(raw_record)
    buf = io.BytesIO()
    np.savez(buf, **out)
    buf.seek(0)
    return buf


@pytest.fixture(scope="module")
def scalar_blob() -> bytes:
    return _saved(bootstrap(X, "mean", n_resamples=99, random_state=0))


@pytest.fixture(scope="module")
def vector_blob() -> bytes:
    return _saved(bootstrap(X2, "mean", n_resamples=40, random_state=1))


# ---------------------------------------------------------------------------
# the round trip, for every kind of result
# ---------------------------------------------------------------------------
def _kinds():
    frame = pd.DataFrame(X2, columns=pd.Index(["a", "a", 3], name="feature"))
    multi = pd.DataFrame(
        X2, columns=pd.MultiIndex.from_tuples([("x", 1), ("x", 2), ("y", 1)])
    )
    yc = np.arange(60) % 3
    ar = np.cumsum(_GEN.normal(size=80)) * 0.1 + _GEN.normal(size=80)
    xr = _GEN.normal(size=(60, 2))
    yr = xr @ np.array([1.0, -2.0]) + _GEN.normal(size=60)
    y01 = np.tile([0, 1], 30)
    score = y01 + _GEN.normal(size=60)
    with_nan = X.copy()
    with_nan[[4, 7]] = np.nan

    def studentized():
        res = bootstrap(X, "mean", n_resamples=64, random_state=3)
        res.confidence_interval(method="studentized")
        return res

    def undefined():
        with pytest.warns(UndefinedStatisticWarning):
            return bootstrap(
                with_nan, "mean", n_resamples=64, random_state=0, nan_policy="propagate"
            )

    def shaped(data):
        est = BootstrapStatistic(
            lambda e: e.coef_,
            estimator=LogisticRegression(),
            n_resamples=8,
            random_state=0,
        )
        return est.fit(data, yc).result_

    return {
        "scalar": lambda: bootstrap(X, "mean", n_resamples=64, random_state=0),
        "scalar-fresh-seed": lambda: bootstrap(X, np.median, n_resamples=32),
        "vector": lambda: bootstrap(X2, "std", n_resamples=64, random_state=1),
        "series": lambda: bootstrap(pd.Series(X, name="y"), "mean", n_resamples=32),
        "frame": lambda: bootstrap(frame, "mean", n_resamples=32, random_state=2),
        "frame-multiindex": lambda: bootstrap(multi, "var", n_resamples=32),
        "shaped-numpy": lambda: shaped(xr),
        "shaped-frame": lambda: shaped(pd.DataFrame(xr, columns=["u", "v"])),
        "studentized": studentized,
        "undefined": undefined,
        "independent": lambda: bootstrap(
            (X, X2[:, 0]), "mean", paired=False, n_resamples=32, random_state=4
        ),
        "blocks": lambda: bootstrap(
            ar, "mean", resampler=MovingBlockBootstrap(32, random_state=5)
        ),
        "model-residual": lambda: bootstrap(
            ar, "mean", resampler=ResidualBootstrap(32, order=1, random_state=6)
        ),
        "model-wild": lambda: bootstrap(
            xr,
            lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
            y=yr,
            resampler=WildBootstrap(32, random_state=7),
        ),
        "refit": lambda: (
            BootstrapStatistic(
                lambda e: e.coef_, estimator=LinearRegression(), n_resamples=16
            )
            .fit(xr, yr)
            .result_
        ),
        "metric": lambda: (
            metric_ci(y01, score, "roc_auc", n_resamples=32, random_state=0).result
        ),
    }


def _assert_round_trip(res: BootstrapResult) -> BootstrapResult:
    back = BootstrapResult.load(io.BytesIO(_saved(res)))
    assert back == res
    assert back.to_dict() == res.to_dict() or _nan_equal(back.to_dict(), res.to_dict())
    for name in ARRAYS:
        want, got = getattr(res, name), getattr(back, name)
        assert type(got) is type(want), name
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want)
        elif isinstance(want, pd.Series):
            pd.testing.assert_series_equal(got, want)
        else:
            np.testing.assert_array_equal(got, want)
    return back


def _nan_equal(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("kind", list(_kinds()))
def test_round_trip_every_kind_of_result(kind):
    _assert_round_trip(_kinds()[kind]())


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    n=st.integers(2, 40),
    k=st.integers(0, 3),
    B=st.integers(1, 50),
    seed=st.integers(0, 2**63),
    statistic=st.sampled_from(["mean", "var", "median", "sum"]),
)
def test_round_trip_property(n, k, B, seed, statistic):
    """save -> load gives an equal result, whatever the data, shape, B and seed
    (B = 1 included: a NaN standard error)."""
    data = np.random.default_rng(seed).normal(size=(n, k) if k else n) * 1e3
    with np.errstate(all="ignore"):
        res = bootstrap(data, statistic, n_resamples=B, random_state=seed)
    _assert_round_trip(res)


def test_load_never_unpickles(monkeypatch, scalar_blob, tmp_path):
    """No pickle on the load path: np.load is called with allow_pickle=False and
    pickle's loaders are never reached, for a valid file and a refused one."""
    calls = []
    real_load = np.load

    def spy(*args, **kwargs):
        calls.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    def forbidden(*args, **kwargs):
        raise AssertionError("pickle used on the load path")

    monkeypatch.setattr(np, "load", spy)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    BootstrapResult.load(io.BytesIO(scalar_blob))
    objects = _members(scalar_blob)
    objects["distribution"] = objects["distribution"].astype(object)
    with pytest.raises(ResultFileError, match="Python objects"):
        BootstrapResult.load(_write(objects))
    assert calls and all(flag is False for flag in calls)


def test_files_of_older_format_versions_are_refused_with_the_way_out(scalar_blob):
    """Files of format versions 1 and 2 (a BootstrapResult's own layout, before
    every result shared one format) are refused, saying how to get the result
    again; the format version read is 3."""
    members = _members(scalar_blob)
    for version in (1, 2):
        members["record"]["format_version"] = version
        with pytest.raises(
            ResultFileError,
            match=rf"'format_version' is {version} \(written by skboot .*\); this "
            r"skboot reads format version 3 only. Re-run the bootstrap with the "
            r"recorded random_state",
        ) as info:
            BootstrapResult.load(_write(members))
        assert info.value.field == "format_version"
    assert READ_FORMAT_VERSIONS == (FORMAT_VERSION,) == (3,)


# ---------------------------------------------------------------------------
# tampering: every edit gives ResultFileError naming the field
# ---------------------------------------------------------------------------
def _edit_record(**changes):
    def edit(m):
        m["record"].update(changes)

    return edit


def _drop_record(key):
    return lambda m: m["record"].pop(key)


def _set(name, value):
    def edit(m):
        m[name] = value(m) if callable(value) else value

    return edit


def _nan_at(name, where):
    def edit(m):
        a = m[name].copy()
        a[where] = np.nan
        m[name] = a

    return edit


def _negate_se(m):
    m["standard_error"] = -m["standard_error"]


def _scale_distribution(m):
    m["distribution"] = m["distribution"] * 2.0


#: ``(id, edit of the members, field, match)``; the file is written back with its
#: checksum recomputed, so the schema itself must catch each one.
TAMPERING = [
    ("stream-version-99", _edit_record(stream_version=99), "stream_version", r"is 99; this skboot knows random-stream version\(s\) 1"),
    ("stream-version-str", _edit_record(stream_version="one"), "stream_version", r"is 'one'; this skboot knows"),
    ("stream-version-bool", _edit_record(stream_version=True), "stream_version", r"is True"),
    ("format-version-99", _edit_record(format_version=99), "format_version", r"is 99 \(written by skboot .*\); this skboot reads format version 3. Upgrade"),
    ("format-version-str", _edit_record(format_version="2"), "format_version", r"is '2'"),
    ("format-other", _edit_record(format="other"), "format", r"must be 'skboot.BootstrapResult'. Got 'other'"),
    ("distribution-strings", _set("distribution", lambda m: m["distribution"].astype(str)), "distribution", r"must be a float64 array. Got 'dtype <U"),
    ("distribution-float32", _set("distribution", lambda m: m["distribution"].astype(np.float32)), "distribution", r"must be a float64 array. Got 'dtype float32'"),
    ("distribution-int", _set("distribution", lambda m: np.arange(99)), "distribution", r"must be a float64 array. Got 'dtype int64'"),
    ("n-resamples-5", _edit_record(n_resamples=5), "distribution", r"must hold one row per replicate, n_resamples = 5 .*Got an array of shape \(99,\)"),
    ("n-resamples-0", _edit_record(n_resamples=0), "n_resamples", r"must be an int in \[1, 4294967295\]. Got 0"),
    ("n-resamples-float", _edit_record(n_resamples=99.0), "n_resamples", r"Got 99.0"),
    ("distribution-0d", _set("distribution", np.array(1.0)), "distribution", r"Got an array of shape \(\)"),
    ("estimate-3-values", _set("estimate", np.zeros(3)), "estimate", r"must have the shape of one replicate, \(\) .*Got shape \(3,\)"),
    ("bias-vector", _set("bias", np.zeros(2)), "bias", r"shape of one replicate"),
    ("record-estimate-inline", _edit_record(estimate=123.0), "estimate", r"is not a member of a result file of format version 3 \(the record refers to bias, checksum"),
    ("record-estimate-inline-no-member", lambda m: (m.pop("estimate"), m["record"].update(estimate=1.0)), "estimate", r"must be a float64 array. Got 1.0"),
    ("record-estimate-other-member", lambda m: (m.pop("estimate"), m["record"].update(estimate={"__array__": "bias"})), "estimate", r"must be \{\"__array__\": \"estimate\"\}"),
    ("record-unknown-tag", _edit_record(n_omitted={"__set__": [1]}), "n_omitted", r"must be \{\"__array__\": \"n_omitted\"\}, \{\"__tuple__\": \[items\]\} or \{\"__result__\""),
    ("missing-outputs", _drop_record("outputs"), "outputs", r"is missing from the record"),
    ("missing-statistic", _drop_record("statistic_name"), "statistic_name", r"is missing from the record"),
    ("extra-field", _edit_record(comment="hi"), "comment", r"is not a field of a result record"),
    ("statistic-int", _edit_record(statistic_name=3), "statistic_name", r"must be a string. Got 3"),
    ("resampler-int", _edit_record(resampler=3), "resampler", r"must be a string. Got 3"),
    ("resampler-params-list", _edit_record(resampler_params=[1]), "resampler_params", r"must be an object"),
    ("resampler-params-nested", _edit_record(resampler_params={"a": {"b": 1}}), "resampler_params", r"must be an object of numbers"),
    ("random-state-str", _edit_record(random_state="0"), "random_state", r"must be null or \{\"entropy\""),
    ("random-state-negative", _edit_record(random_state={"entropy": -1, "spawn_key": []}), "random_state", r"Got \{'entropy': -1"),
    ("random-state-extra", _edit_record(random_state={"entropy": 1, "spawn_key": [], "x": 0}), "random_state", r"must be null"),
    ("n-undefined-too-many", _edit_record(n_undefined=100), "n_undefined", r"must be an int in \[0, 99\]. Got 100"),
    ("n-undefined-wrong", _edit_record(n_undefined=3), "n_undefined", r"is 3, but the distribution holds 0 replicate\(s\) with a NaN"),
    ("n-omitted-negative", _edit_record(n_omitted=-1), "n_omitted", r"must be an int >= 0. Got -1"),
    ("n-failed-every-replicate", _edit_record(n_failed=99), "n_failed", r"must be an int in \[0, 98\]. Got 99"),
    ("first-error-without-failures", _edit_record(first_error="ValueError: x"), "first_error", r"must be a string when n_failed > 0, else null. Got 'ValueError: x'"),
    ("failed-replicates-float", lambda m: (m["record"].update(n_failed=1, first_error="E: x", failed_replicates=[3.0]), _nan_at("distribution", 3)(m)), "failed_replicates", r"must be a list of 1 \(n_failed\) ascending replicate numbers \(ints\) in \[0, 99\). Got \[3.0\]"),
    ("failed-replicates-count", lambda m: (m["record"].update(n_failed=1, first_error="E: x"), _nan_at("distribution", 3)(m)), "failed_replicates", r"must be a list of 1 \(n_failed\).*Got \[\]"),
    ("failed-replicates-unsorted", lambda m: (m["record"].update(n_failed=2, first_error="E: x", failed_replicates=[5, 3]), _nan_at("distribution", [3, 5])(m)), "failed_replicates", r"ascending replicate numbers.*Got \[5, 3\]"),
    ("failed-replicates-out-of-range", lambda m: (m["record"].update(n_failed=1, first_error="E: x", failed_replicates=[99]), _nan_at("distribution", 3)(m)), "failed_replicates", r"in \[0, 99\). Got \[99\]"),
    ("failed-replicates-with-values", _edit_record(n_failed=1, first_error="E: x", failed_replicates=[3]), "failed_replicates", r"names a replicate whose row of the distribution is not NaN"),
    ("nan-besides-failed", lambda m: (m["record"].update(n_failed=1, first_error="E: x", failed_replicates=[3]), _nan_at("distribution", [3, 5])(m)), "n_undefined", r"is 0, but the distribution holds 1 replicate\(s\) with a NaN or infinite value \(besides the failed ones\)"),
    ("block-length-nan", _edit_record(block_length=float("nan")), "block_length", r"must be null or a finite number > 0. Got nan"),
    ("block-length-str", _edit_record(block_length="auto"), "block_length", r"Got 'auto'"),
    ("outputs-kind", _edit_record(outputs={"kind": "xarray", "labels": None, "name": None}), "outputs", r"must be \{\"kind\": one of"),
    ("outputs-frame-of-scalar", _edit_record(outputs={"kind": "frame", "labels": ["a"], "name": None}), "outputs", r"says 'frame', which needs an estimate of 1 axes"),
    ("outputs-numpy-with-labels", _edit_record(outputs={"kind": "numpy", "labels": ["a"], "name": None}), "outputs", r"must be"),
    ("outputs-missing-name", _edit_record(outputs={"kind": "numpy", "labels": None}), "outputs", r"must be"),
    ("nan-in-distribution", _nan_at("distribution", 5), "n_undefined", r"is 0, but the distribution holds 1 replicate"),
    ("nan-standard-error", _nan_at("standard_error", ()), "standard_error", r"is NaN where every replicate is finite"),
    ("nan-bias", _nan_at("bias", ()), "bias", r"is NaN where the estimate and every replicate are finite"),
    ("negative-standard-error", lambda m: _negate_se(m), "standard_error", r"must not be negative"),
    ("record-not-object", _set("record", [1, 2]), "record", r"must be a JSON object. Got 'list'"),
    ("record-2d", _set("record", np.array([["a"]])), "record", r"must be a 0-d unicode array holding JSON text"),
    ("record-bytes", _set("record", np.array(b"{}")), "record", r"must be a 0-d unicode array"),
    ("missing-member", lambda m: m.pop("bias"), "bias", r"is missing from the archive \(format version 3\)"),
    ("missing-checksum", lambda m: m.pop("checksum"), "checksum", r"is missing from the archive"),
    ("extra-member", _set("notes", np.zeros(1)), "notes", r"is not a member of a result file of format version 3"),
    ("checksum-md5", _set("checksum", {"algorithm": "md5", "members": {}}), "checksum", r"must be \{\"algorithm\": \"sha256\""),
    ("object-array", _set("estimate", np.array([{"a": 1}], dtype=object)), "estimate", r"holds Python objects, which only pickle can read"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "field", "match"),
    [pytest.param(*rest, id=id_) for id_, *rest in TAMPERING],
)
def test_tampered_file_names_the_field(scalar_blob, edit, field, match):
    members = _members(scalar_blob)
    edit(members)
    # the checksum left alone for members the test rewrites as raw values
    rehash = not (
        isinstance(members.get("checksum"), dict)
        and members["checksum"].get("algorithm") == "md5"
    )
    with pytest.raises(ResultFileError, match=match) as info:
        BootstrapResult.load(_write(members, rehash=rehash))
    err = info.value
    assert isinstance(err, ValueError)
    assert err.field == field
    assert f"field '{field}'" in str(err)


def test_record_that_is_not_json_names_the_record(scalar_blob):
    members = _members(scalar_blob)
    for raw, match in (
        ("{not json", r"field 'record' is not valid JSON \(JSONDecodeError"),
        (
            "[" * 100_000 + "]" * 100_000,
            r"field 'record' is not valid JSON \(RecursionError",
        ),
        (
            '{"format": 1, "format": 2}',
            r"field 'format' appears twice in the record JSON",
        ),
    ):
        with pytest.raises(ResultFileError, match=match):
            BootstrapResult.load(_write(members, raw_record=raw))


@pytest.mark.parametrize(
    ("name", "edit"),
    [
        ("distribution", lambda m: _scale_distribution(m)),
        (
            "distribution",
            lambda m: m["distribution"].__setitem__(
                3, np.nextafter(m["distribution"][3], 1e9)
            ),
        ),
        ("estimate", lambda m: None),  # the record's estimate edited below
        ("record", lambda m: m["record"].update(statistic_name="median")),
        ("record", lambda m: m["record"].update(n_omitted=1)),
    ],
    ids=["scaled", "one-ulp", "estimate", "statistic-renamed", "n-omitted"],
)
def test_edits_that_keep_the_schema_fail_the_checksum(scalar_blob, name, edit):
    """An edit the schema cannot see (a consistent record, one ulp in one
    replicate) is caught by the checksum, which names the member."""
    members = _members(scalar_blob)
    edit(members)
    if name == "estimate":
        members["estimate"] = members["estimate"] + 1.0
        members["bias"] = members["bias"] - 1.0
    with pytest.raises(
        ResultFileError, match="does not match its SHA-256 checksum"
    ) as info:
        BootstrapResult.load(_write(members, rehash=False))
    assert info.value.field == name
    # with the checksum recomputed the same edit loads (the schema allows it)
    BootstrapResult.load(_write(members, rehash=True))


def test_checksum_ignores_the_record_layout(scalar_blob):
    """The record's digest is over its canonical JSON: re-indented text with the
    same content still verifies."""
    members = _members(scalar_blob)
    pretty = json.dumps(members["record"], indent=2)
    res = BootstrapResult.load(_write(members, rehash=False, raw_record=pretty))
    assert res == BootstrapResult.load(io.BytesIO(scalar_blob))


def test_truncated_file(scalar_blob, tmp_path):
    for keep in (len(scalar_blob) - 1, len(scalar_blob) // 2, 30, 0):
        path = tmp_path / f"cut{keep}.npz"
        path.write_bytes(scalar_blob[:keep])
        with pytest.raises(ResultFileError, match=r"is not an \.npz archive") as info:
            BootstrapResult.load(path)
        assert info.value.field is None


def test_flipped_byte_in_an_array(vector_blob):
    """A byte flipped inside the stored distribution: the archive's CRC or the
    checksum refuses it, naming the distribution."""
    with zipfile.ZipFile(io.BytesIO(vector_blob)) as z:
        info = z.getinfo("distribution.npy")
    # the member's data start after its local header (30 bytes + name + extra)
    local = vector_blob[info.header_offset : info.header_offset + 30]
    start = info.header_offset + 30 + int.from_bytes(local[26:28], "little")
    start += int.from_bytes(local[28:30], "little")
    at = start + info.file_size - 17  # inside the float64 data
    blob = bytearray(vector_blob)
    blob[at] ^= 0x10
    with pytest.raises(
        ResultFileError, match=r"field 'distribution' cannot be read"
    ) as err:
        BootstrapResult.load(io.BytesIO(bytes(blob)))
    assert err.value.field == "distribution"


def test_vector_result_shapes_are_checked(vector_blob):
    members = _members(vector_blob)
    members["estimate"] = members["estimate"][:2]
    with pytest.raises(
        ResultFileError,
        match=r"'estimate' must have the shape of one replicate, \(3,\)",
    ):
        BootstrapResult.load(_write(members))


def test_frame_labels_must_match_the_columns():
    frame = pd.DataFrame(X2, columns=["a", "b", "c"])
    members = _members(_saved(bootstrap(frame, "mean", n_resamples=20, random_state=0)))
    members["record"]["outputs"]["labels"] = ["a", "b"]
    with pytest.raises(
        ResultFileError, match=r"'outputs' must hold one label per column \(3\). Got 2"
    ):
        BootstrapResult.load(_write(members))


def test_unknown_stream_version_lists_the_known_ones(scalar_blob):
    members = _members(scalar_blob)
    members["record"]["stream_version"] = max(READ_STREAM_VERSIONS) + 1
    with pytest.raises(
        ResultFileError, match=r"knows random-stream version\(s\) 1, 2, so"
    ):
        BootstrapResult.load(_write(members))


def test_result_file_error_pickles_with_its_field():
    err = ResultFileError("bad", "distribution")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ResultFileError and back.field == "distribution"
    assert str(back) == "bad"


def test_saving_does_not_change_the_result_and_save_load_save_is_stable():
    res = bootstrap(X2, "mean", n_resamples=30, random_state=9)
    dist = res.distribution.copy()
    first = _members(_saved(res))
    back = BootstrapResult.load(io.BytesIO(_saved(res)))
    second = _members(_saved(back))
    np.testing.assert_array_equal(res.distribution, dist)
    assert (
        first["record"] == second["record"] and first["checksum"] == second["checksum"]
    )
