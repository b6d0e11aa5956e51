"""The data-parallel Poisson bootstrap of dask collections (skboot._run._dask):
equal to the in-memory run on the same data and seed, for any chunking and any
number of workers; refused, before any work, where it would need every row in
one place; and it never brings the rows to the client."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skboot import (
    Bootstrap,
    BootstrapResult,
    BootstrapStatistic,
    MovingBlockBootstrap,
    PoissonBootstrap,
    UndefinedStatisticWarning,
    bootstrap,
)
from skboot._engine import centre_of, centred_rows
from skboot._kernels.poisson_rows import poisson_row_counts, poisson_rows_moments
from skboot._random import PURPOSE, check_random_state, fill_poisson_counts
from skboot._run._dask import PartitionSums, merge_sums, tree_merge

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

RTOL = 1e-12
B = 64
SEED = 20240611
MOMENTS = ("mean", "sum", "var", "std")


def _data(n: int = 3001, d: int | None = None) -> np.ndarray:
    gen = np.random.default_rng(7)
    shape = (n,) if d is None else (n, d)
    # an offset much larger than the spread: the centring must carry it
    return gen.normal(1e3, 2.0, size=shape)


def _pb(n_resamples: int = B) -> PoissonBootstrap:
    return PoissonBootstrap(n_resamples)


def _close(got, want) -> None:
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape
    scale = np.max(np.abs(want)) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale)


def test_row_counts_are_the_stream_at_an_offset():
    """A row's count is a pure function of (key, b, global row): the partition
    kernel reads the same outputs as the in-memory fill."""
    seed, gamma = check_random_state(SEED).stream(PURPOSE["poisson"])
    full = np.empty(5000, dtype=np.int64)
    for b in (0, 3, 2**20 + 5):
        fill_poisson_counts(seed, gamma, np.uint64(b), full)
        for start, stop in ((0, 1), (0, 300), (257, 1000), (4999, 5000), (1, 5000)):
            part = np.empty(stop - start, dtype=np.int64)
            poisson_row_counts(seed, gamma, np.uint64(b), np.int64(start), part)
            np.testing.assert_array_equal(part, full[start:stop])


def test_partition_kernel_is_the_in_memory_kernel_bit_for_bit():
    """On all rows with the in-memory shift, the partition kernel's sums are the
    fused in-memory kernel's, bit for bit; split at any rows, the shares add
    up to them."""
    x = _data(2000, 3)
    shift = centre_of(x)
    key = check_random_state(SEED)
    plan = PoissonBootstrap(11).fit_with_key(key, x).plan_
    want = [np.empty((11, 3)), np.empty((11, 3)), np.empty(11)]
    plan.fused_moments(centred_rows(x, shift), 0, True, *want)
    seed, gamma = key.stream(PURPOSE["poisson"])

    def sums(rows, start):
        out = [np.empty((11, 3)), np.empty((11, 3)), np.empty(11)]
        obs = [np.empty(3), np.empty(3)]
        poisson_rows_moments(
            np.ascontiguousarray(rows),
            shift,
            seed,
            gamma,
            np.int64(0),
            np.int64(start),
            True,
            *out,
            *obs,
        )
        return out, obs

    got, obs = sums(x, 0)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    c = x - shift
    np.testing.assert_allclose(obs[0], c.sum(0), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(obs[1], (c * c).sum(0), rtol=1e-12)
    shares = [sums(x[a:b], a)[0] for a, b in ((0, 1), (1, 700), (700, 2000))]
    for q in range(3):
        _close(sum(s[q] for s in shares), want[q])


CHUNKS_1D = [3001, 1000, (1, 1500, 1, 1499), (700, 0, 2301), 257]


@pytest.mark.parametrize("chunks", CHUNKS_1D, ids=str)
@pytest.mark.parametrize("name", MOMENTS)
def test_1d_equals_in_memory(name, chunks):
    x = _data()
    want = bootstrap(x, name, resampler=_pb(), random_state=SEED)
    got = bootstrap(
        da.from_array(x, chunks=(chunks,)), name, resampler=_pb(), random_state=SEED
    )
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)
    assert isinstance(got.estimate, float)
    assert got.n_resamples == B and got.resampler == want.resampler
    assert got.random_state == want.random_state


@pytest.mark.parametrize("chunks", [(3001, 3), (1000, 3), (500, 1), (1777, 2)], ids=str)
@pytest.mark.parametrize("name", MOMENTS)
def test_2d_column_wise_equals_in_memory(name, chunks):
    """Column chunks are joined on the workers; rows chunked unevenly."""
    x = _data(d=3)
    kw = {"statistic_kwargs": {"ddof": 1}} if name in ("var", "std") else {}
    want = bootstrap(x, name, resampler=_pb(), random_state=SEED, **kw)
    got = bootstrap(
        da.from_array(x, chunks=chunks), name, resampler=_pb(), random_state=SEED, **kw
    )
    assert got.distribution.shape == (B, 3)
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)


def test_zero_one_data_tie_exactly():
    """0/1 data: every partition's sums are exact integers, so the proportions
    equal the in-memory ones bit for bit (the ties of guarantee 6)."""
    x = (np.random.default_rng(3).random(2999) < 0.3).astype(np.int64)
    want = bootstrap(x, "proportion", resampler=_pb(), random_state=SEED)
    for chunks in (2999, 100, (1, 2000, 998)):
        got = bootstrap(
            da.from_array(x, chunks=(chunks,)),
            "proportion",
            resampler=_pb(),
            random_state=SEED,
        )
        np.testing.assert_array_equal(got.distribution, want.distribution)
        assert got.estimate == want.estimate


def test_dataframe_and_series_columns():
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    x = _data(d=2)
    frame = pd.DataFrame(x, columns=["a", "b"])
    ddf = dd.from_pandas(frame, npartitions=4)
    want = bootstrap(frame, "mean", resampler=_pb(), random_state=SEED)
    got = bootstrap(ddf, "mean", resampler=_pb(), random_state=SEED)
    assert list(got.distribution.columns) == ["a", "b"]
    assert list(got.estimate.index) == ["a", "b"]
    _close(got.distribution.to_numpy(), want.distribution.to_numpy())
    want_b = bootstrap(frame["b"], "std", resampler=_pb(), random_state=SEED)
    got_b = bootstrap(ddf["b"], "std", resampler=_pb(), random_state=SEED)
    assert got_b.distribution.name == "b"
    _close(got_b.distribution.to_numpy(), want_b.distribution.to_numpy())
    _close(got_b.estimate, want_b.estimate)


def test_unknown_chunk_sizes_are_counted_on_the_workers():
    x = _data()
    arr = da.from_array(x, chunks=600)
    filtered = arr[arr > -np.inf]  # unknown chunk sizes (NaN)
    assert np.isnan(filtered.chunks[0][0])
    want = bootstrap(x, "var", resampler=_pb(), random_state=SEED)
    got = bootstrap(filtered, "var", resampler=_pb(), random_state=SEED)
    _close(got.distribution, want.distribution)


def test_same_bits_for_any_scheduler_and_worker_count():
    """The merge tree is fixed by the partitions' order, not by which worker
    finishes first."""
    x = da.from_array(_data(d=2), chunks=(311, 2))
    runs = []
    for scheduler, workers in (("synchronous", 1), ("threads", 2), ("threads", 4)):
        with dask.config.set(scheduler=scheduler, num_workers=workers):
            runs.append(bootstrap(x, "var", resampler=_pb(), random_state=SEED))
    for r in runs[1:]:
        np.testing.assert_array_equal(r.distribution, runs[0].distribution)
        np.testing.assert_array_equal(r.estimate, runs[0].estimate)


def test_chunkings_agree_with_each_other():
    x = _data()
    dists = [
        bootstrap(
            da.from_array(x, chunks=(c,)), "std", resampler=_pb(), random_state=SEED
        ).distribution
        for c in (3001, 1024, 97)
    ]
    for d in dists[1:]:
        _close(d, dists[0])


def test_merge_tree_is_fixed_and_pairwise():
    calls = []

    def merge(a, b):
        calls.append((a, b))
        return f"({a}{b})"

    assert tree_merge(list("abcde"), merge) == "(((ab)(cd))e)"
    assert calls[:2] == [("a", "b"), ("c", "d")]


def test_merge_moves_sums_to_the_pooled_centre():
    """Two partitions' sums about their own centres merge into the sums about
    the pooled centre (Chan, Golub & LeVeque)."""
    gen = np.random.default_rng(0)
    a, b = gen.normal(5, 1, size=(40, 2)), gen.normal(6, 2, size=(25, 2))
    w = gen.poisson(1.0, size=(3, 65)).astype(float)

    def sums(rows, wts, shift):
        c = rows - shift
        return PartitionSums(
            rows.shape[0], shift, np.zeros(2, bool), wts @ c, wts @ (c * c), wts.sum(1)
        )

    merged = merge_sums(sums(a, w[:, :40], a.mean(0)), sums(b, w[:, 40:], b.mean(0)))
    pooled = np.vstack([a, b])
    direct = sums(pooled, w, merged.shift)
    np.testing.assert_allclose(merged.s1, direct.s1, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(merged.s2, direct.s2, rtol=1e-12)
    np.testing.assert_array_equal(merged.sw, direct.sw)


def test_bootstrap_statistic_fit_shares_the_path():
    x = _data(d=2)
    est = BootstrapStatistic("mean", resampler=_pb(), random_state=SEED)
    est.fit(da.from_array(x, chunks=(500, 2)))
    want = bootstrap(x, "mean", resampler=_pb(), random_state=SEED)
    _close(est.distribution_, want.distribution)
    assert est.n_features_in_ == 2


def test_result_protocol_intervals_and_file(tmp_path):
    x = _data()
    got = bootstrap(
        da.from_array(x, chunks=700), "mean", resampler=_pb(), random_state=SEED
    )
    want = bootstrap(x, "mean", resampler=_pb(), random_state=SEED)
    for method in ("percentile", "basic", "normal", "bc"):
        ci, ci0 = (
            got.confidence_interval(method=method),
            want.confidence_interval(method=method),
        )
        _close([ci.low, ci.high], [ci0.low, ci0.high])
    # the default is BCa, as in memory (one more pass for the acceleration)
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    assert ci.method == ci0.method == "bca"
    _close([ci.low, ci.high], [ci0.low, ci0.high])
    # the in-memory acceleration loses digits to the offset of these data
    p, p0 = got.pvalue(1000.0, method="bca"), want.pvalue(1000.0, method="bca")
    np.testing.assert_allclose(p, p0, rtol=1e-10)
    with pytest.raises(ValueError, match="studentized and calibrated intervals"):
        got.confidence_interval(method="studentized", n_inner=10)
    with pytest.raises(ValueError, match="leave-one-out values are not brought"):
        got.jackknife_values()
    with pytest.raises(ValueError, match=r"'jackknife_groups' .* 'auto' or 'full'"):
        got.confidence_interval(method="bca", jackknife_groups=10)
    assert 0.0 <= got.pvalue(1000.0, method="percentile") <= 1.0
    path = tmp_path / "r.npz"
    got.save(path)
    assert BootstrapResult.load(path) == got


def _poisoned(n=1000):
    """A dask array whose blocks raise when computed: any work done fails."""

    def boom(block):
        raise AssertionError("a partition was computed")

    return da.from_array(np.zeros(n), chunks=100).map_blocks(boom, dtype=float)


ERRORS = [
    (
        {"statistic": np.mean},
        "statistic.*'mean', 'median', 'proportion'.*Got a callable.*compute",
    ),
    (
        {"statistic": "median", "resampler": Bootstrap(10)},
        "resampler.*PoissonBootstrap for the statistic 'median'.*Got Bootstrap",
    ),
    ({"statistic": "corr"}, "'corr' needs exactly two columns.*Got 1 column"),
    (
        {"resampler": MovingBlockBootstrap(10, block_length=3)},
        "resampler.*Bootstrap.*PoissonBootstrap.*Got MovingBlockBootstrap",
    ),
    ({"y": np.zeros(1000)}, "'y' parameter.*only StratifiedBootstrap takes strata"),
    ({"groups": np.zeros(1000)}, "'groups' parameter.*only GroupBootstrap takes"),
    ({"nan_policy": "omit"}, "nan_policy.*'raise' or 'propagate'.*dropna"),
    ({"device": "cuda"}, "device.*'cpu' or 'auto'"),
    ({"statistic": "mean", "statistic_kwargs": {"ddof": 1}}, "statistic_kwargs"),
    ({"statistic": "var", "statistic_kwargs": {"ddof": -1}}, "ddof"),
]


@pytest.mark.parametrize(("kwargs", "match"), ERRORS)
def test_errors_before_any_work(kwargs, match):
    call = {"statistic": "mean", "resampler": _pb(10), **kwargs}
    if call.get("device") == "cuda":
        # device="cuda" is checked by the entry point; give the run layer the
        # value it would receive after that check
        from skboot._run import run

        with pytest.raises(ValueError, match=match):
            run(
                _poisoned(),
                "mean",
                _pb(10),
                n_resamples=None,
                random_state=0,
                y=None,
                groups=None,
                vectorized=None,
                statistic_kwargs=None,
                n_jobs=None,
                chunk_size=None,
                owner="bootstrap",
                device="cuda",
            )
        return
    with pytest.raises(ValueError, match=match):
        bootstrap(_poisoned(), random_state=0, **call)


def test_non_numeric_dataframe_column_named_before_any_work():
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    frame = pd.DataFrame({"a": np.arange(10.0), "b": ["x", "y"] * 5})
    with pytest.raises(ValueError, match=r"Column\(s\) 'b' are not"):
        bootstrap(dd.from_pandas(frame, npartitions=2), "mean", resampler=_pb(10))


def test_tuple_and_estimator_refused_before_any_work():
    with pytest.raises(ValueError, match="one dask array, DataFrame or Series"):
        bootstrap((_poisoned(), _poisoned()), "mean", resampler=_pb(10))
    with pytest.raises(ValueError, match=r"'data' parameter.*1-D or 2-D"):
        bootstrap(da.zeros((10, 2, 2), chunks=5), "mean", resampler=_pb(10))
    with pytest.raises(ValueError, match=r"'data' parameter.*numeric"):
        bootstrap(da.from_array(np.array(["x", "y"] * 5)), "mean", resampler=_pb(10))
    from sklearn.linear_model import LinearRegression

    est = BootstrapStatistic(
        lambda fitted: fitted.coef_,
        resampler=_pb(10),
        estimator=LinearRegression(),
        random_state=0,
    )
    with pytest.raises(ValueError, match="'estimator' parameter"):
        est.fit(_poisoned(), np.zeros(1000))


def test_the_rows_never_come_to_the_client(monkeypatch):
    """No conversion of the collection to numpy on the client."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("the dask array was converted to numpy")

    x = da.from_array(_data(), chunks=500)
    monkeypatch.setattr(type(x), "__array__", refuse)
    with dask.config.set(scheduler="synchronous"):
        res = bootstrap(x, "mean", resampler=_pb(), random_state=SEED)
    assert res.distribution.shape == (B,)


def test_value_checks_after_the_pass():
    x = _data(500)
    x[123] = np.nan
    arr = da.from_array(x, chunks=100)
    with pytest.raises(ValueError, match=r"1 NaN or infinite value.*propagate"):
        bootstrap(arr, "mean", resampler=_pb(), random_state=SEED)
    kw = {"resampler": _pb(), "random_state": SEED, "nan_policy": "propagate"}
    with pytest.warns(UndefinedStatisticWarning):
        want = bootstrap(x, "mean", **kw)
    with pytest.warns(UndefinedStatisticWarning, match=f"on {want.n_undefined} of"):
        got = bootstrap(arr, "mean", **kw)
    assert got.n_undefined == want.n_undefined > 0
    ok = np.isfinite(want.distribution)
    np.testing.assert_array_equal(np.isfinite(got.distribution), ok)
    _close(got.distribution[ok], want.distribution[ok])
    with pytest.raises(ValueError, match="'proportion' needs boolean or 0/1 data"):
        bootstrap(
            da.from_array(np.arange(10.0), chunks=3), "proportion", resampler=_pb()
        )


# ---------------------------------------------------------------------------
# a real cluster: data larger than a worker's memory limit
# ---------------------------------------------------------------------------
#: the workers' memory limit: a worker process with skboot imported and its
#: kernels loaded holds ~350 MiB before any data, and dask pauses it at 80%
WORKER_MEMORY = 768 * 2**20
N_LARGE = 120_000_000  # 960 MB of float64, more than one worker's limit


@pytest.fixture
def small_cluster(request, tmp_path):
    distributed = pytest.importorskip("distributed")
    with dask.config.set({"temporary-directory": str(tmp_path)}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # a free loopback port: None would still try 8787 for the HTTP
            # endpoints, and warn when another cluster holds it
            dashboard_address="127.0.0.1:0",
            memory_limit=WORKER_MEMORY,
            silence_logs=50,
        )
    client = distributed.Client(cluster)

    def close():
        client.close()
        cluster.close()

    request.addfinalizer(close)
    return client


def _sawtooth(block, block_info=None):
    """Rows ``1 + (i mod 8) / 2`` of the global row ``i``, made on the worker."""
    start = block_info[None]["array-location"][0][0]
    i = np.arange(start, start + block.shape[0], dtype=np.int64)
    return 1.0 + 0.5 * (i % 8)


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


@pytest.mark.slow
def test_local_cluster_data_larger_than_a_worker(small_cluster):
    """A Poisson mean of 960 MB on two workers of 768 MiB each: the rows are
    made, reduced and dropped on the workers; the client's memory stays flat."""
    pytest.importorskip("psutil")
    info = small_cluster.scheduler_info()["workers"]
    assert len(info) == 2
    assert all(w["memory_limit"] < N_LARGE * 8 for w in info.values())
    x = da.zeros(N_LARGE, chunks=2_000_000).map_blocks(_sawtooth, dtype=float)
    before = _rss()
    res = bootstrap(x, "mean", resampler=PoissonBootstrap(4), random_state=SEED)
    grown = _rss() - before
    assert grown < 200 * 2**20, f"the client grew by {grown / 2**20:.0f} MiB"
    assert all(r < WORKER_MEMORY for r in small_cluster.run(_rss).values())
    # n is a multiple of 8: the mean is exactly 1 + 3.5 / 2 (the sums are exact)
    assert N_LARGE % 8 == 0
    assert res.estimate == 2.75
    # each replicate is within 8 standard errors of the mean (sd^2 = 21/16 for
    # the eight equally likely values): a false failure has probability < 1e-14
    se = np.sqrt(21 / 16 / N_LARGE)
    assert np.all(np.abs(res.distribution - 2.75) < 8 * se)
    assert res.standard_error > 0


# -- BCa: the acceleration from one more pass ---------------------------------

#: partition lengths of 1500 rows: a 1-row and an empty partition among them
BCA_CHUNKS = [(1500,), (600, 1, 0, 499, 400), (1,) * 7 + (1493,)]


def _skewed(n: int = 1500, d: int = 2) -> np.ndarray:
    gen = np.random.default_rng(11)
    return 50.0 + gen.exponential(size=(n, d)) * np.arange(1, d + 1)


def _acceleration(result) -> np.ndarray:
    from skboot.intervals import jackknife_acceleration

    ctx = result._context
    moments = ctx.stat.jackknife_moments()
    if moments is None:
        return np.atleast_1d(jackknife_acceleration(result.jackknife_values()))
    return np.atleast_1d(jackknife_acceleration(moments))


@pytest.mark.parametrize("chunks", BCA_CHUNKS)
@pytest.mark.parametrize(
    "statistic, kwargs",
    [
        ("mean", {}),
        ("sum", {}),
        ("var", {}),
        ("var", {"ddof": 1}),
        ("std", {"ddof": 1}),
        ("std", {}),
    ],
)
def test_bca_equals_in_memory(statistic, kwargs, chunks):
    """The acceleration and the BCa interval of a dask collection equal the
    in-memory run's on the same data and seed (the leave-one-out values are
    the in-memory ones: sum leaves a row out of the total, var/std keep
    their ddof)."""
    x = _skewed()
    kw = dict(resampler=_pb(), random_state=SEED, statistic_kwargs=kwargs)
    got = bootstrap(da.from_array(x, chunks=(chunks, 2)), statistic, **kw)
    want = bootstrap(x, statistic, **kw)
    # the in-memory leave-one-out values are rounded at the scale of the
    # statistic, not of their spread (the sum's are about 75000 apart by 1)
    np.testing.assert_allclose(_acceleration(got), _acceleration(want), rtol=1e-9)
    if statistic in ("mean", "sum"):  # d_i is proportional to x_i - mean
        d = x - x.mean(axis=0)
        exact = (d**3).sum(axis=0) / (6.0 * ((d**2).sum(axis=0)) ** 1.5)
        np.testing.assert_allclose(_acceleration(got), exact, rtol=1e-12)
    for level, alternative in ((0.95, "two-sided"), (0.9, "less")):
        ci = got.confidence_interval(level, alternative=alternative)
        ci0 = want.confidence_interval(level, alternative=alternative)
        assert ci.method == "bca"
        np.testing.assert_allclose(ci.low, ci0.low, rtol=1e-10)
        np.testing.assert_allclose(ci.high, ci0.high, rtol=1e-10)


def test_bca_one_pass_and_nothing_of_size_n(monkeypatch):
    """One more dask compute, the first time only; what it returns is a few
    numbers per column, not n values."""
    import skboot._run._dask as mod

    x = _skewed(900, 1)[:, 0]
    got = bootstrap(
        da.from_array(x, chunks=200), "mean", resampler=_pb(), random_state=1
    )
    calls = []
    real = mod.loo_pass

    def counted(parts, *rest):
        calls.append(len(parts))
        return real(parts, *rest)

    monkeypatch.setattr(mod, "loo_pass", counted)
    first = got.confidence_interval()
    again = got.confidence_interval(method="bca", level=0.8)
    assert calls == [5]  # one pass over the five partitions
    moments = got._context.stat.jackknife_moments()
    assert moments.n == 900 and moments.m2.shape == (1,)
    assert first.low < again.low < again.high < first.high


def test_bca_exact_on_binary_data():
    """0/1 data: a constant jackknife (all ones) gives a_hat = 0 with the same
    warning as in memory, and the intervals are equal; otherwise the
    proportion's acceleration and interval agree with the in-memory ones."""
    from skboot import DegenerateDistributionWarning

    gen = np.random.default_rng(5)
    x = (gen.random(1200) < 0.2).astype(np.int64)
    kw = dict(resampler=_pb(), random_state=SEED)
    for chunks in (1200, 333, 1):
        got = bootstrap(da.from_array(x, chunks=chunks), "proportion", **kw)
        want = bootstrap(x, "proportion", **kw)
        assert got.estimate == want.estimate
        np.testing.assert_array_equal(got.distribution, want.distribution)
        np.testing.assert_allclose(_acceleration(got), _acceleration(want), rtol=1e-12)
        ci, ci0 = got.confidence_interval(), want.confidence_interval()
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-12)
    ones = np.ones(50, dtype=np.int64)
    got = bootstrap(da.from_array(ones, chunks=7), "proportion", **kw)
    want = bootstrap(ones, "proportion", **kw)
    with pytest.warns(DegenerateDistributionWarning) as seen:
        ci = got.confidence_interval()
    with pytest.warns(DegenerateDistributionWarning) as seen0:
        ci0 = want.confidence_interval()
    assert [str(w.message) for w in seen] == [str(w.message) for w in seen0]
    assert any("jackknife values are equal" in str(w.message) for w in seen)
    assert (ci.low, ci.high) == (ci0.low, ci0.high) == (1.0, 1.0)
