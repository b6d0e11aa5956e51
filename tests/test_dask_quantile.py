"""The data-parallel Poisson bootstrap of the median and quantiles
(skboot._run._dask_quantile): the order statistics of every replicate equal the
in-memory ones bit for bit, on continuous data and on integers with ties, for
any chunking; the rare replicate outside its first bracket is redone; the
estimate and the BCa acceleration come from the original data's order
statistics."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest

from skboot import (
    DegenerateDistributionWarning,
    PoissonBootstrap,
    UndefinedStatisticWarning,
    bootstrap,
)
from skboot._run import _dask_quantile as dq
from skboot._run._dask_bracket import RankBounds, sketch_partition

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

B = 64
SEED = 20240611


def _pb(n_resamples: int = B) -> PoissonBootstrap:
    return PoissonBootstrap(n_resamples)


def _continuous(n: int = 3001, d: int | None = None) -> np.ndarray:
    shape = (n,) if d is None else (n, d)
    return np.random.default_rng(7).normal(1e3, 2.0, size=shape)


def _integers(n: int = 3001, d: int | None = None) -> np.ndarray:
    shape = (n,) if d is None else (n, d)
    return np.random.default_rng(8).integers(0, 12, size=shape).astype(np.int64)


DATA = {"continuous": _continuous, "integers": _integers}
STATISTICS = [
    ("median", None),
    ("quantile", {"q": 0.3}),
    ("quantile", {"q": [0.9, 0.05, 0.5, 1.0, 0.0, 0.999]}),
]
CHUNKS = [3001, 1000, (1, 1500, 1, 1499), (700, 0, 2301), 257]


def _both(x, name, kwargs, chunks, n_resamples=B):
    kw = dict(resampler=_pb(n_resamples), random_state=SEED, statistic_kwargs=kwargs)
    want = bootstrap(x, name, **kw)
    got = bootstrap(da.from_array(x, chunks=chunks), name, **kw)
    return got, want


def _equal(got, want) -> None:
    np.testing.assert_array_equal(np.asarray(got.distribution), want.distribution)
    np.testing.assert_array_equal(np.asarray(got.estimate), np.asarray(want.estimate))


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
@pytest.mark.parametrize(("name", "kwargs"), STATISTICS, ids=str)
@pytest.mark.parametrize("kind", sorted(DATA))
def test_1d_equals_in_memory_bit_for_bit(kind, name, kwargs, chunks):
    got, want = _both(DATA[kind](), name, kwargs, (chunks,))
    _equal(got, want)
    assert got.distribution.shape == want.distribution.shape
    assert type(got.estimate) is type(want.estimate)


@pytest.mark.parametrize(("name", "kwargs"), STATISTICS, ids=str)
@pytest.mark.parametrize("kind", sorted(DATA))
def test_2d_column_wise_equals_in_memory(kind, name, kwargs):
    x = DATA[kind](2000, 3)
    for chunks in ((2000, 3), (333, 1), (1777, 2)):
        got, want = _both(x, name, kwargs, chunks)
        _equal(got, want)


def test_even_odd_and_tiny_samples_with_empty_replicates():
    """n = 2 and 3: many replicates draw no row (NaN, counted as undefined in
    both runs); the median of an even count averages its two middle values."""
    for n in (2, 3, 4, 5):
        x = np.arange(n, dtype=float) ** 2
        with pytest.warns(UndefinedStatisticWarning):
            want = bootstrap(x, "median", resampler=_pb(200), random_state=1)
        with pytest.warns(UndefinedStatisticWarning):
            got = bootstrap(
                da.from_array(x, chunks=1), "median", resampler=_pb(200), random_state=1
            )
        _equal(got, want)
        assert got.n_undefined == want.n_undefined > 0
        assert got.estimate == np.median(x)


def test_constant_column_and_heavy_ties():
    """A constant column gives a bracket of one value; 0/1 data put every
    order statistic in a tie of half the rows."""
    x = np.column_stack(
        [np.full(4000, 3.5), (np.random.default_rng(1).random(4000) < 0.5) * 1.0]
    )
    got, want = _both(x, "quantile", {"q": [0.25, 0.5, 0.75]}, (900, 2))
    _equal(got, want)
    assert np.all(got.distribution[:, :3] == 3.5)


def test_replicates_outside_the_first_bracket_are_redone(monkeypatch):
    """With brackets of +-64 ranks instead of +-7 standard deviations, a third
    of the replicates fall outside theirs: they are redone, wider, and the
    result is unchanged."""
    x = _continuous(20_000)
    want = bootstrap(x, "median", resampler=_pb(), random_state=SEED)
    passes = []
    real = dq._bracket_pass

    def counted(rows, groups, seed, gamma, reps):
        passes.append(len(reps))
        return real(rows, groups, seed, gamma, reps)

    monkeypatch.setattr(dq, "Z", 0.0)
    monkeypatch.setattr(dq, "_bracket_pass", counted)
    got = bootstrap(
        da.from_array(x, chunks=3000), "median", resampler=_pb(), random_state=SEED
    )
    _equal(got, want)
    assert passes[0] == B and len(passes) >= 2 and 0 < passes[1] < B


def test_narrower_sketches_when_the_first_is_coarse(monkeypatch):
    """Three sample values per partition: the first sketch bounds the ranks
    loosely, so narrower sketch passes follow; the result is unchanged."""
    x = _continuous(5000)
    windows = []
    real = dq._sketch

    def counted(rows, wins):
        windows.append(wins)
        return real(rows, wins)

    monkeypatch.setattr(dq, "SKETCH_SIZE", 3)
    monkeypatch.setattr(dq, "MIN_INSIDE", 0)
    monkeypatch.setattr(dq, "INSIDE_FACTOR", 1)
    monkeypatch.setattr(dq, "_sketch", counted)
    got, want = _both(x, "quantile", {"q": [0.1, 0.6]}, (500,))
    _equal(got, want)
    assert 2 <= len(windows) <= dq.MAX_SKETCHES
    assert windows[0] == [(0, -np.inf, np.inf)]
    assert all(np.isfinite(w[1]) for w in windows[1])


def test_sketch_bounds_hold_and_are_tight():
    """The merged sketch brackets the true count below (and up to) every
    sample value, within the partitions' summed rank gaps."""
    gen = np.random.default_rng(4)
    x = np.concatenate([gen.integers(0, 30, 3000) * 1.0, gen.normal(10, 5, 2000)])
    gen.shuffle(x)
    parts = np.array_split(x, 7)
    size = 16
    sketches = [sketch_partition(p, ((0, -np.inf, np.inf),), size)[0][0] for p in parts]
    rb = RankBounds(-np.inf, np.inf, sketches)
    gap = sum(int(np.ceil((p.shape[0] - 1) / (size - 1))) for p in parts)
    for v in rb.candidates:
        lt, le = int((x < v).sum()), int((x <= v).sum())
        assert lt <= rb.hi_lt(v) <= lt + gap
        assert le - gap <= rb.lo_le(v) <= le
    for rank in (0, 17, 2500, 4999):
        lo, hi = rb.lower(rank), rb.upper(rank)
        v = np.sort(x)[rank]
        assert lo <= v <= hi


def test_dataframe_series_and_labels():
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    frame = pd.DataFrame(_integers(2000, 2), columns=["a", "b"])
    ddf = dd.from_pandas(frame, npartitions=3)
    kw = dict(resampler=_pb(), random_state=SEED)
    want = bootstrap(frame, "median", **kw)
    got = bootstrap(ddf, "median", **kw)
    assert list(got.distribution.columns) == ["a", "b"]
    pd.testing.assert_frame_equal(got.distribution, want.distribution)
    pd.testing.assert_series_equal(got.estimate, want.estimate)
    kwq = dict(kw, statistic_kwargs={"q": 0.8})
    want_b = bootstrap(frame["b"], "quantile", **kwq)
    got_b = bootstrap(ddf["b"], "quantile", **kwq)
    pd.testing.assert_series_equal(got_b.distribution, want_b.distribution)


def test_estimate_is_numpy_s():
    for n in (1001, 1002):
        x = _continuous(n)
        got = bootstrap(
            da.from_array(x, chunks=250),
            "quantile",
            resampler=_pb(8),
            random_state=0,
            statistic_kwargs={"q": [0.0, 0.123, 0.5, 0.77, 1.0]},
        )
        q = [0.0, 0.123, 0.5, 0.77, 1.0]
        np.testing.assert_array_equal(got.estimate, np.quantile(x, q))
        med = bootstrap(da.from_array(x, chunks=250), "median", resampler=_pb(8))
        assert med.estimate == np.median(x)


@pytest.mark.parametrize(("name", "kwargs"), STATISTICS[:2], ids=str)
@pytest.mark.parametrize("kind", sorted(DATA))
def test_bca_equals_in_memory(kind, name, kwargs):
    """The leave-one-out values take three values (the left-out row below,
    between or above the middle ranks): their sums give the in-memory
    acceleration and BCa interval."""
    from skboot.intervals import jackknife_acceleration

    got, want = _both(DATA[kind](1500), name, kwargs, (400,), n_resamples=199)
    values = want.jackknife_values()
    constant = bool(np.all(values == values[0]))  # ties: the same warning
    assert got._context.stat.jackknife_moments().constant.tolist() == [constant]

    def same_warnings():
        if constant:
            return pytest.warns(DegenerateDistributionWarning, match="are equal")
        return contextlib.nullcontext()

    with same_warnings():
        a = jackknife_acceleration(got._context.stat.jackknife_moments())
    with same_warnings():
        a0 = jackknife_acceleration(values)
    np.testing.assert_allclose(a, a0, rtol=1e-9, atol=1e-15)
    with same_warnings():
        ci = got.confidence_interval()
    with same_warnings():
        ci0 = want.confidence_interval()
    assert ci.method == ci0.method == "bca"
    np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-12)
    with pytest.raises(ValueError, match="leave-one-out values are not brought"):
        got.jackknife_values()
    with pytest.raises(ValueError, match="studentized and calibrated"):
        got.confidence_interval(method="studentized", n_inner=10)


def test_in_memory_quantiles_in_any_order():
    """The in-memory Poisson quantiles of levels not in ascending order are
    the ones of the sorted levels, permuted (the kernel scans the sorted rows
    once per replicate)."""
    x = _continuous(500)
    kw = dict(resampler=_pb(), random_state=SEED)
    up = bootstrap(x, "quantile", statistic_kwargs={"q": [0.1, 0.5, 0.9]}, **kw)
    down = bootstrap(x, "quantile", statistic_kwargs={"q": [0.9, 0.1, 0.5]}, **kw)
    np.testing.assert_array_equal(down.distribution, up.distribution[:, [2, 0, 1]])


def _poisoned(n=1000):
    def boom(block):
        raise AssertionError("a partition was computed")

    return da.from_array(np.zeros(n), chunks=100).map_blocks(boom, dtype=float)


ERRORS = [
    ({"statistic": "quantile"}, r"needs statistic_kwargs=\{'q': \.\.\.\}"),
    ({"statistic": "quantile", "statistic_kwargs": {"q": 1.5}}, "'q' statistic"),
    ({"statistic_kwargs": {"q": 0.5}}, r"accepts no keys for statistic 'median'"),
    (
        {"statistic": "quantile", "statistic_kwargs": {"q": 0.5, "ddof": 1}},
        r"accepts \['q'\] for statistic 'quantile'",
    ),
    ({"nan_policy": "propagate"}, r"nan_policy.*'raise' for the statistic 'median'"),
]


@pytest.mark.parametrize(("kwargs", "match"), ERRORS)
def test_errors_before_any_work(kwargs, match):
    call = {"statistic": "median", "resampler": _pb(10), **kwargs}
    with pytest.raises(ValueError, match=match):
        bootstrap(_poisoned(), random_state=0, **call)


def test_non_finite_values_found_by_the_sketch():
    x = _continuous(500)
    x[77] = np.inf
    with pytest.raises(ValueError, match=r"'data' parameter.*1 NaN or infinite"):
        bootstrap(da.from_array(x, chunks=100), "median", resampler=_pb())
