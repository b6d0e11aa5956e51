"""BootstrapResult as a record: equality, pickling, to_dict, save/load."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import json
import pickle

import numpy as np
import pandas as pd
import pytest

from skboot import (
    BootstrapResult,
    GroupBootstrap,
    MovingBlockBootstrap,
    ResultFileError,
    StationaryBootstrap,
    __version__,
    bootstrap,
)
from skboot._resultfile import FORMAT_VERSION

X = np.random.default_rng(0).exponential(size=120)
X2 = np.random.default_rng(1).normal(size=(80, 3))
DISTRIBUTION_ONLY = ("percentile", "basic", "normal", "bc")


def _assert_same_interval(a, b):
    for got, want in ((a.low, b.low), (a.high, b.high)):
        if isinstance(want, pd.Series):
            pd.testing.assert_series_equal(got, want)
        else:
            np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------
# equality (results are not hashable)
# ---------------------------------------------------------------------------
def test_equal_runs_are_equal_and_unhashable():
    a = bootstrap(X, "mean", n_resamples=200, random_state=3)
    b = bootstrap(X, "mean", n_resamples=200, random_state=3)
    assert a is not b and a == b and (a != b) is False
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    assert a != bootstrap(X, "mean", n_resamples=200, random_state=4)
    assert a != bootstrap(X, lambda v: v.mean(), n_resamples=200, random_state=3)
    assert a != "not a result"


def test_equality_is_bitwise_and_includes_provenance_and_labels():
    a = bootstrap(X2, "mean", n_resamples=50, random_state=0)
    dist = a.distribution.copy()
    dist[7, 1] = np.nextafter(dist[7, 1], np.inf)  # one ulp in one replicate
    assert dataclasses.replace(a, distribution=dist) != a
    assert dataclasses.replace(a, n_omitted=1) != a
    params = {**a.resampler_params, "sample_size": 79}
    assert dataclasses.replace(a, resampler_params=params) != a
    frame = pd.DataFrame(X2, columns=["a", "b", "c"])
    f1 = bootstrap(frame, "mean", n_resamples=50, random_state=0)
    f2 = bootstrap(
        frame.set_axis(["a", "b", "z"], axis=1), "mean", n_resamples=50, random_state=0
    )
    assert f1 != f2 and f1 != a
    assert f1 == bootstrap(frame, "mean", n_resamples=50, random_state=0)


def test_seed_sequence_random_state_compares_by_value():
    ss = np.random.SeedSequence(11, spawn_key=(2,))
    a = bootstrap(X, "mean", n_resamples=30, random_state=ss)
    b = bootstrap(X, "mean", n_resamples=30, random_state=ss)
    assert a.random_state is not b.random_state  # a new SeedSequence per run
    assert a == b
    c = bootstrap(X, "mean", n_resamples=30, random_state=np.random.SeedSequence(11))
    assert c != a  # another spawn key


# ---------------------------------------------------------------------------
# pickling and copies
# ---------------------------------------------------------------------------
def test_pickle_with_a_lambda_statistic_keeps_the_record_not_the_data():
    big = np.random.default_rng(2).normal(size=50_000)
    res = bootstrap(big, lambda a: a.mean(), n_resamples=20, random_state=0)
    blob = pickle.dumps(res)
    assert len(blob) < big.nbytes / 20  # no copy of the data travels
    back = pickle.loads(blob)
    assert back == res and back._context is None
    for method in DISTRIBUTION_ONLY:
        _assert_same_interval(
            back.confidence_interval(method=method),
            res.confidence_interval(method=method),
        )
    for kw in ({"method": "bca"}, {"method": "studentized", "n_inner": 5}):
        with pytest.raises(
            ValueError,
            match=r"needs the data and the statistic, which this result does not "
            r"carry.*re-run bootstrap\(data, statistic, ..., "
            r"random_state=result.random_state\)",
        ):
            back.confidence_interval(**kw)
    with pytest.raises(ValueError, match="The jackknife needs the data"):
        back.jackknife_values()


def test_copies_keep_the_data():
    res = bootstrap(X, np.median, n_resamples=100, random_state=0)
    want = res.confidence_interval()
    for other in (copy.copy(res), copy.deepcopy(res)):
        assert other == res and other._context is res._context
        _assert_same_interval(other.confidence_interval(), want)
    deep = copy.deepcopy(res)
    assert deep.distribution is not res.distribution


def test_pickled_metric_result_gives_distribution_intervals():
    from skboot import metric_ci

    y = np.array([0, 1] * 40)
    s = np.linspace(0, 1, 80)
    ci = metric_ci(y, s, "roc_auc", n_resamples=100, random_state=0)
    back = pickle.loads(pickle.dumps(ci))
    assert back.result == ci.result
    assert back.confidence_interval(method="bc") == ci.confidence_interval(method="bc")


# ---------------------------------------------------------------------------
# to_dict
# ---------------------------------------------------------------------------
def test_to_dict_is_json_and_holds_the_provenance():
    res = bootstrap(X, "median", n_resamples=40, random_state=None)
    d = res.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert (
        "format" not in d and "format_version" not in d
    )  # the file's, not the result's
    assert d["skboot_version"] == __version__
    assert (d["statistic_name"], d["resampler_class"]) == ("median", "Bootstrap")
    assert d["resampler_params"] == {
        "n_resamples": 40,
        "random_state": None,
        "sample_size": None,
    }
    assert d["n_resamples"] == 40 and d["stream_version"] == res.stream_version
    assert (d["n_undefined"], d["n_omitted"], d["block_length"]) == (0, 0, None)
    assert d["estimate"] == res.estimate and d["standard_error"] == res.standard_error
    assert d["distribution"] == res.distribution.tolist()
    assert d["outputs"] == {"kind": "numpy", "labels": None, "name": None}
    # the recorded seed repeats the run
    seed = d["random_state"]
    assert seed["spawn_key"] == [] and seed["entropy"] == res.random_state
    again = bootstrap(X, "median", n_resamples=40, random_state=seed["entropy"])
    np.testing.assert_array_equal(again.distribution, res.distribution)
    # equal but for the resampler's repr, which shows how the seed was given
    assert again.resampler != res.resampler
    assert again == dataclasses.replace(
        res, resampler=again.resampler, resampler_params=again.resampler_params
    )
    assert "distribution" not in res.to_dict(distribution=False)


def test_to_dict_encodes_unusual_resampler_params_as_repr():
    gen = np.random.default_rng(5)
    res = bootstrap(X, "mean", resampler=MovingBlockBootstrap(20, random_state=gen))
    d = res.to_dict(distribution=False)
    assert d["resampler_params"]["random_state"].startswith("Generator(PCG64)")
    assert d["resampler_params"]["block_length"] == "auto"
    json.dumps(d)


# ---------------------------------------------------------------------------
# save / load
# ---------------------------------------------------------------------------
def _cases():
    frame = pd.DataFrame(X2, columns=pd.Index(["a", "a", 3], name="feature"))
    multi = pd.DataFrame(
        X2, columns=pd.MultiIndex.from_tuples([("x", 1), ("x", 2), ("y", 1)])
    )
    series = pd.Series(X, name="income")
    with_nan = X.copy()
    with_nan[[3, 9]] = np.nan
    return {
        "scalar": lambda: bootstrap(X, "mean", n_resamples=64, random_state=0),
        "vector": lambda: bootstrap(X2, "std", n_resamples=64, random_state=1),
        "quantiles": lambda: bootstrap(
            X, "quantile", n_resamples=64, statistic_kwargs={"q": [0.1, 0.9]}
        ),
        "series": lambda: bootstrap(series, np.median, n_resamples=64),
        "frame-duplicates": lambda: bootstrap(frame, "mean", n_resamples=64),
        "frame-multiindex": lambda: bootstrap(multi, "var", n_resamples=64),
        "spawned-seed": lambda: bootstrap(
            X,
            "mean",
            n_resamples=64,
            random_state=np.random.SeedSequence(5).spawn(2)[1],
        ),
        "stationary": lambda: bootstrap(
            X, "mean", resampler=StationaryBootstrap(64, random_state=2)
        ),
        "omitted": lambda: bootstrap(
            with_nan, "mean", n_resamples=64, nan_policy="omit"
        ),
        "groups": lambda: bootstrap(
            X, "mean", resampler=GroupBootstrap(64), groups=np.arange(120) // 6
        ),
    }


@pytest.mark.parametrize("case", list(_cases()))
def test_save_load_round_trip(tmp_path, case):
    res = _cases()[case]()
    path = tmp_path / "run.result"  # no .npz suffix is added
    res.save(path)
    assert path.exists() and not (tmp_path / "run.result.npz").exists()
    back = BootstrapResult.load(path)
    assert back == res
    assert back.to_dict() == res.to_dict()
    assert back._context is None
    for name in ("estimate", "distribution", "standard_error", "bias"):
        want, got = getattr(res, name), getattr(back, name)
        assert type(got) is type(want)
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want)
        elif isinstance(want, pd.Series):
            pd.testing.assert_series_equal(got, want)
        else:
            np.testing.assert_array_equal(got, want)
    for method in DISTRIBUTION_ONLY:
        _assert_same_interval(
            back.confidence_interval(0.9, method=method),
            res.confidence_interval(0.9, method=method),
        )
    with pytest.raises(ValueError, match="re-run bootstrap"):
        back.confidence_interval(method="bca")


def test_saved_file_is_npz_with_a_json_record_and_no_pickle():
    res = bootstrap(X2, "mean", n_resamples=32, random_state=7)
    buf = io.BytesIO()
    res.save(buf)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as npz:
        assert sorted(npz.files) == [
            "bias",
            "checksum",
            "distribution",
            "estimate",
            "record",
            "standard_error",
        ]
        assert npz["distribution"].dtype == np.float64
        np.testing.assert_array_equal(npz["distribution"], res.distribution)
        record = json.loads(str(npz["record"][()]))
        checksum = json.loads(str(npz["checksum"][()]))
        arrays = {
            k: npz[k] for k in ("estimate", "distribution", "standard_error", "bias")
        }
    header = {
        "format": "skboot.BootstrapResult",
        "format_version": FORMAT_VERSION,
        "skboot_version": __version__,
    }
    want_record = {k: v for k, v in res.to_dict(distribution=False).items()}
    for name in ("estimate", "standard_error", "bias", "resampler_class"):
        del want_record[name]
    refs = {n: {"__array__": n} for n in arrays}
    assert record == {**header, **want_record, **refs}
    assert FORMAT_VERSION == 3
    # the documented checksum, computed here from its description
    want = {}
    for name, a in arrays.items():
        head = f"{name}\n{a.dtype.str}\n{json.dumps(list(a.shape))}\n".encode()
        want[name] = hashlib.sha256(head + a.tobytes()).hexdigest()
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    want["record"] = hashlib.sha256(text.encode("ascii")).hexdigest()
    assert checksum == {"algorithm": "sha256", "members": want}


def test_block_length_is_saved():
    res = bootstrap(X, "mean", resampler=MovingBlockBootstrap(16, random_state=0))
    buf = io.BytesIO()
    res.save(buf)
    buf.seek(0)
    back = BootstrapResult.load(buf)
    assert back.block_length == res.block_length is not None
    assert back.to_dict()["block_length"] == res.block_length


def test_load_refuses_other_files(tmp_path):
    npy = tmp_path / "a.npy"
    np.save(npy, np.arange(3.0))
    with pytest.raises(ResultFileError, match=r"a single .npy array"):
        BootstrapResult.load(npy)
    other = tmp_path / "b.npz"
    np.savez(other, distribution=np.arange(3.0))
    with pytest.raises(ResultFileError, match=r"field 'record' is missing"):
        BootstrapResult.load(other)
    for content in ("not numpy", "", "PK\x03\x04broken zip"):
        text = tmp_path / "c.npz"
        text.write_text(content)
        with pytest.raises(ResultFileError, match=r"it is not an .npz archive"):
            BootstrapResult.load(text)
    res = bootstrap(X, "mean", n_resamples=8, random_state=0)
    for change, match in (
        ({"format": "other"}, r"field 'format' must be 'skboot.BootstrapResult'"),
        (
            {"format_version": FORMAT_VERSION + 1},
            r"field 'format_version' is 4 \(written by skboot .*\); this skboot "
            r"reads format version 3. Upgrade skboot",
        ),
    ):
        base = {"format": "skboot.BootstrapResult"}
        record = {**base, **res.to_dict(distribution=False), **change}
        path = tmp_path / "d.npz"
        arrays = {
            k: np.asarray(getattr(res, k))
            for k in ("estimate", "distribution", "standard_error", "bias")
        }
        np.savez(path, record=np.array(json.dumps(record)), **arrays)
        with pytest.raises(ResultFileError, match=match):
            BootstrapResult.load(path)
