"""The data-parallel iid, stratified and group bootstraps of dask collections
(skboot._run._dask_exact): the law of the exact counts (multinomial, split among
the partitions by conditional binomials), the same bits for the same
partitioning on any scheduler, the hashed-group Poisson scheme equal to its
in-memory reference, and the refusals before any work."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skboot import (
    BayesianBootstrap,
    Bootstrap,
    BootstrapResult,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    bootstrap,
)
from skboot._kernels.exact_rows import (
    group_poisson_counts,
    partition_draws,
    stratum_row_counts,
)
from skboot._kernels.fused_weights import poisson_thresholds
from skboot._random import FAST_BLOCK, PURPOSE, check_random_state, substream_seed
from skboot._run import stratified_jackknife
from skboot._run._dask_exact_rows import exact_partition, group_hashes

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

SEED = 20261202
RTOL = 1e-12
#: Every statistical check below fails with probability below 1e-6 when the law
#: is right (for a fresh seed; the seed is fixed, so the outcome is too).
ALPHA = 1e-6


def _data(n: int = 1200, d: int | None = None) -> np.ndarray:
    shape = (n,) if d is None else (n, d)
    return np.random.default_rng(3).normal(50.0, 3.0, size=shape)


def _chi2_binomial(counts: np.ndarray, N: int, p: float) -> float:
    """P-value of a chi-square test of ``counts`` against Binomial(N, p), cells
    of expected count >= 20 (tails merged)."""
    dist = stats.binom(N, p)
    k = counts.shape[0]
    top = int(dist.isf(1e-9)) + 1
    exp = dist.pmf(np.arange(top + 1)) * k
    edges, acc = [], 0.0
    for i, e in enumerate(exp):
        acc += e
        if acc >= 20:
            edges.append(i)
            acc = 0.0
    edges = np.array(edges)
    cell = np.minimum(np.searchsorted(edges, counts), edges.shape[0] - 1)
    obs = np.bincount(cell, minlength=edges.shape[0]).astype(float)
    cdf = dist.cdf(np.append(edges[:-1], N))
    want = np.diff(np.concatenate([[0.0], cdf])) * k
    want[-1] = k - want[:-1].sum()
    return float(stats.chi2.sf(((obs - want) ** 2 / want).sum(), edges.shape[0] - 1))


def _row_counts(
    key, sizes: np.ndarray, totals: np.ndarray, B: int, codes: np.ndarray | None = None
) -> np.ndarray:
    """(B, n) counts of every row, rebuilt from the kernels the partitions run:
    the draws table, then each partition's rows (``sizes``: (S, P)); ``codes``
    every row's stratum (None: one)."""
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    S, P = sizes.shape
    table = np.empty((P, B, S), dtype=np.int64)
    partition_draws(seed, gamma, np.uint64(0), totals, sizes, table)
    lengths = sizes.sum(axis=0)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    out = np.zeros((B, int(lengths.sum())))
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    for j in range(P):
        m = int(lengths[j])
        if m == 0:
            continue
        c = np.zeros(m, np.int64) if codes is None else codes[starts[j] : starts[j] + m]
        pool = np.argsort(c, kind="stable").astype(np.int64)
        local = np.bincount(c, minlength=S).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(local)[:-1])).astype(np.int64)
        seeds = np.array([substream_seed(seed, j * S + s + 1) for s in range(S)])
        tmp = np.empty(max(1, local.max()))
        for b in range(B):
            cnt = np.empty(m)
            stratum_row_counts(
                seeds,
                gamma,
                np.uint64(b),
                table[j, b],
                pool,
                offsets,
                local,
                buf,
                tmp,
                cnt,
            )
            out[b, starts[j] : starts[j] + m] = cnt
    return out


# -- the law of the exact counts ----------------------------------------------
def test_partition_draws_are_multinomial():
    """Each replicate's draws add up to the total; partition j's share is
    Binomial(n, n_j / n) (its marginal under the multinomial), and an empty
    partition gets none."""
    key = check_random_state(SEED)
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    sizes = np.array([[300, 0, 500, 1, 199]], dtype=np.int64)
    n = int(sizes.sum())
    B = 20_000
    out = np.empty((5, B, 1), dtype=np.int64)
    partition_draws(seed, gamma, np.uint64(0), np.array([n]), sizes, out)
    assert np.all(out.sum(axis=0) == n)
    assert np.all(out[1] == 0)
    for j in (0, 2, 3, 4):
        assert _chi2_binomial(out[j, :, 0], n, sizes[0, j] / n) > ALPHA
    # the draws of two partitions are negatively correlated, -sqrt(p0 p2 /
    # ((1 - p0)(1 - p2))) under the multinomial (standard error ~ 1 / sqrt(B))
    p0, p2 = 0.3, 0.5
    want = -np.sqrt(p0 * p2 / ((1 - p0) * (1 - p2)))
    got = np.corrcoef(out[0, :, 0], out[2, :, 0])[0, 1]
    assert abs(got - want) < 6 / np.sqrt(B)


def test_row_counts_are_multinomial_one_over_n():
    """Rebuilt per-row counts: every replicate has exactly n draws; each row's
    count is Binomial(n, 1/n) (mean 1, variance 1 - 1/n) wherever its
    partition, and two rows' counts have correlation -1 / (n - 1)."""
    key = check_random_state(SEED)
    sizes = np.array([[4, 3, 0, 5]], dtype=np.int64)
    n = 12
    B = 40_000
    counts = _row_counts(key, sizes, np.array([n]), B)
    assert np.all(counts.sum(axis=1) == n)
    se = np.sqrt((1 - 1 / n) / B)
    for i in (0, 5, 11):
        col = counts[:, i].astype(np.int64)
        assert abs(col.mean() - 1.0) < 6 * se
        assert abs(col.var() / (1 - 1 / n) - 1) < 6 * np.sqrt(2 / B) * 1.5
        assert _chi2_binomial(col, n, 1 / n) > ALPHA
    got = np.corrcoef(counts[:, 0], counts[:, 11])[0, 1]
    assert abs(got + 1 / (n - 1)) < 6 / np.sqrt(B)


def test_partition_sums_are_the_rebuilt_counts_times_the_rows():
    """The partition kernel's sums are those of the rebuilt counts (1e-12)."""
    x = _data(700)
    arr = da.from_array(x, chunks=(250, 250, 200))
    key = check_random_state(SEED)
    B = 16
    res = bootstrap(arr, "mean", resampler=Bootstrap(B), random_state=SEED)
    sizes = np.array([[250, 250, 200]], dtype=np.int64)
    counts = _row_counts(key, sizes, np.array([700]), B)
    want = counts @ x / 700
    np.testing.assert_allclose(res.distribution, want, rtol=RTOL)


def test_sample_size_m_out_of_n():
    """m-out-of-n: every replicate draws exactly m rows."""
    ones = da.ones(1000, chunks=300)
    res = bootstrap(
        ones, "sum", resampler=Bootstrap(50, sample_size=137), random_state=1
    )
    assert np.all(res.distribution == 137.0)


@pytest.mark.slow
def test_mean_distribution_matches_in_memory_iid_by_ks():
    """The dask exact stream and the in-memory one give the same law of the
    bootstrap mean: two-sample KS at B = 20,000 each (the streams differ)."""
    x = np.random.default_rng(9).exponential(size=200)
    B = 20_000
    lazy = bootstrap(
        da.from_array(x, chunks=45), "mean", resampler=Bootstrap(B), random_state=4
    )
    mem = bootstrap(x, "mean", resampler=Bootstrap(B), random_state=5)
    assert stats.ks_2samp(lazy.distribution, mem.distribution).pvalue > ALPHA
    # the test has power: a shift by a tenth of a standard error is detected
    shifted = mem.distribution + 0.1 * mem.standard_error
    assert stats.ks_2samp(lazy.distribution, shifted).pvalue < ALPHA


def test_standard_error_of_the_mean_matches_theory():
    """The exact bootstrap's standard error of the mean is sd_biased / sqrt(n)
    (relative sampling error of the estimate ~ 1 / sqrt(2 B))."""
    x = _data(400)
    B = 4000
    res = bootstrap(
        da.from_array(x, chunks=90), "mean", resampler=Bootstrap(B), random_state=2
    )
    want = x.std() / np.sqrt(x.shape[0])
    assert abs(res.standard_error / want - 1) < 6 / np.sqrt(2 * B)


# -- same bits for the same partitioning ---------------------------------------
def test_same_partitioning_same_bits_any_scheduler_and_run():
    x = _data(1500, 2)
    arr = da.from_array(x, chunks=(400, 2))
    runs = []
    for scheduler, workers in (("synchronous", 1), ("threads", 2), ("threads", 4)):
        with dask.config.set(scheduler=scheduler, num_workers=workers):
            for _ in range(2):
                runs.append(
                    bootstrap(arr, "var", resampler=Bootstrap(40), random_state=SEED)
                )
    for r in runs[1:]:
        np.testing.assert_array_equal(r.distribution, runs[0].distribution)
    # another partitioning draws other replicates (the counts per partition
    # depend on it): a different, equally valid, distribution
    other = bootstrap(
        da.from_array(x, chunks=(500, 2)),
        "var",
        resampler=Bootstrap(40),
        random_state=SEED,
    )
    assert not np.allclose(other.distribution, runs[0].distribution)
    np.testing.assert_allclose(other.estimate, runs[0].estimate, rtol=RTOL)


def test_rows_never_come_to_the_client(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("the dask array was converted to numpy")

    x = da.from_array(_data(), chunks=500)
    y = da.from_array(np.arange(1200) % 4, chunks=500)
    monkeypatch.setattr(type(x), "__array__", refuse)
    with dask.config.set(scheduler="synchronous"):
        a = bootstrap(x, "mean", resampler=Bootstrap(8), random_state=SEED)
        b = bootstrap(x, "mean", resampler=StratifiedBootstrap(8), y=y, random_state=1)
        c = bootstrap(x, "mean", resampler=GroupBootstrap(8), groups=y, random_state=1)
    assert a.distribution.shape == b.distribution.shape == c.distribution.shape == (8,)


# -- stratified -------------------------------------------------------------------
def test_stratified_keeps_every_stratum_count():
    """The share of stratum 0's rows is the same on every replicate: each
    stratum gets exactly its count of draws, whatever the partitioning."""
    n = 1000
    y = np.random.default_rng(1).integers(0, 3, n)
    x = (y == 0).astype(float)
    res = bootstrap(
        da.from_array(x, chunks=260),
        "mean",
        resampler=StratifiedBootstrap(60),
        y=da.from_array(y, chunks=260),
        random_state=SEED,
    )
    assert np.all(res.distribution == np.mean(y == 0))


def test_stratified_row_counts_and_text_labels():
    """Within stratum s a row's count is Binomial(n_s, 1/n_s); labels may be
    text in a dask Series; the run equals the kernels' rebuilt counts."""
    dd = pytest.importorskip("dask.dataframe")
    n = 30
    labels = np.array(["b", "a", "c"])[np.arange(n) % 3]
    codes = np.searchsorted(np.array(["a", "b", "c"]), labels)
    x = np.random.default_rng(2).normal(size=n)
    frame = pd.DataFrame({"x": x, "y": labels})
    ddf = dd.from_pandas(frame, npartitions=3)
    B = 20_000
    res = bootstrap(
        ddf["x"],
        "mean",
        resampler=StratifiedBootstrap(B),
        y=ddf["y"],
        random_state=SEED,
    )
    lengths = ddf.map_partitions(len).compute().to_numpy()
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    sizes = np.array(
        [
            [np.sum(codes[bounds[j] : bounds[j + 1]] == s) for j in range(3)]
            for s in range(3)
        ]
    )
    counts = _row_counts(check_random_state(SEED), sizes, sizes.sum(axis=1), B, codes)
    np.testing.assert_allclose(res.distribution, counts @ x / n, rtol=RTOL, atol=RTOL)
    for s in range(3):
        assert np.all(counts[:, codes == s].sum(axis=1) == 10)
    assert _chi2_binomial(counts[:, 4].astype(np.int64), 10, 0.1) > ALPHA


def test_stratified_bca_acceleration_is_the_in_memory_one():
    """BCa's stratified jackknife sums from one pass equal those of the
    in-memory stratified jackknife (1e-10)."""
    x = _data(900, 2)
    y = np.random.default_rng(5).integers(0, 4, 900)
    res = bootstrap(
        da.from_array(x, chunks=(200, 2)),
        "std",
        resampler=StratifiedBootstrap(30),
        y=da.from_array(y, chunks=200),
        random_state=SEED,
        statistic_kwargs={"ddof": 1},
    )
    got = res._context.stat.jackknife_moments()
    mem = bootstrap(
        x,
        "std",
        resampler=StratifiedBootstrap(30),
        y=y,
        random_state=SEED,
        statistic_kwargs={"ddof": 1},
    )
    jk = stratified_jackknife(
        mem._context.stat.jackknife(), np.unique(y, return_inverse=True)[1]
    )
    d = jk.mean(axis=0) - jk
    np.testing.assert_allclose(got.m2, (d**2).sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(
        got.m3, (d**3).sum(axis=0), rtol=1e-8, atol=1e-12 * np.abs(d**3).sum()
    )
    ci = res.confidence_interval()
    assert (
        ci.method == "bca"
        and np.all(ci.low < res.estimate)
        and np.all(res.estimate < ci.high)
    )


# -- groups ------------------------------------------------------------------------
def _mix64(z: np.ndarray) -> np.ndarray:
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _group_reference(x, ids, key, B):
    """The in-memory hashed-group Poisson means, in numpy: row i's count in
    replicate b is the Poisson(1) inversion of output b of the stream seeded
    mix64(seed ^ hash(group of i))."""
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    h = group_hashes(ids)
    T = poisson_thresholds()
    with np.errstate(over="ignore"):
        base = _mix64(h ^ seed)
        out = np.empty(B)
        for b in range(B):
            z = _mix64(base + np.uint64(b + 1) * gamma)
            c = (((z >> np.uint64(11)).astype(np.int64))[:, None] >= T[None, :]).sum(
                axis=1
            )
            out[b] = (c * x).sum() / c.sum()
    return out


def test_group_poisson_equals_its_in_memory_reference_for_any_chunking():
    n = 2000
    ids = np.random.default_rng(4).integers(0, 150, n) * 7919
    x = _data(n)
    key = check_random_state(SEED)
    want = _group_reference(x, ids, key, 50)
    for chunks in (2000, 600, (1, 999, 0, 1000)):
        res = bootstrap(
            da.from_array(x, chunks=chunks),
            "mean",
            resampler=GroupBootstrap(50),
            groups=da.from_array(ids, chunks=chunks),
            random_state=SEED,
        )
        np.testing.assert_allclose(res.distribution, want, rtol=RTOL)


def test_group_rows_share_the_count_and_text_ids_hash_stably():
    ids = np.array(["u1", "u2", "u1", "u3", "u2", "u1"], dtype=object)
    key = check_random_state(SEED)
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    h = group_hashes(ids)
    np.testing.assert_array_equal(group_hashes(ids[::-1])[::-1], h)
    counts = np.empty(6)
    for b in range(20):
        group_poisson_counts(seed, gamma, np.uint64(b), h, counts)
        assert counts[0] == counts[2] == counts[5] and counts[1] == counts[4]


def test_group_bca_refused_percentile_default():
    ids = da.from_array(np.arange(300) // 3, chunks=100)
    res = bootstrap(
        da.from_array(_data(300), chunks=100),
        "mean",
        resampler=GroupBootstrap(40),
        groups=ids,
        random_state=1,
    )
    assert res.confidence_interval().method == "percentile"
    with pytest.raises(ValueError, match=r"delete-one-group jackknife.*'percentile'"):
        res.confidence_interval(method="bca")
    with pytest.raises(ValueError, match="'normal' or 'bc', or call"):
        res.confidence_interval(method="studentized")


# -- the result --------------------------------------------------------------------
def test_result_file_round_trip(tmp_path):
    y = da.from_array(np.arange(500) % 2, chunks=200)
    res = bootstrap(
        da.from_array(_data(500), chunks=200),
        "mean",
        resampler=StratifiedBootstrap(20),
        y=y,
        random_state=SEED,
    )
    path = tmp_path / "r.npz"
    res.save(path)
    back = BootstrapResult.load(path)
    np.testing.assert_array_equal(back.distribution, res.distribution)


# -- refusals before any work --------------------------------------------------
def _poisoned(n: int = 1000):
    def boom(block):
        raise AssertionError("a partition was computed")

    return da.from_array(np.zeros(n), chunks=100).map_blocks(boom, dtype=float)


SCHEMES = "Bootstrap.*GroupBootstrap.*PoissonBootstrap.*StratifiedBootstrap"
ERRORS = [
    (
        {"resampler": MovingBlockBootstrap(10, block_length=5)},
        SCHEMES + ".*MovingBlock",
    ),
    ({"resampler": CircularBlockBootstrap(10, block_length=5)}, SCHEMES + ".*Circular"),
    ({"resampler": StationaryBootstrap(10, block_length=5)}, SCHEMES + ".*Stationary"),
    ({"resampler": BayesianBootstrap(10)}, SCHEMES + ".*Bayesian"),
    ({"resampler": StratifiedBootstrap(10)}, "'y' parameter.*partitioned like.*None"),
    ({"resampler": GroupBootstrap(10)}, "'groups' parameter.*partitioned like.*None"),
    (
        {"resampler": StratifiedBootstrap(10), "y": np.zeros(1000)},
        "'y' parameter.*dask array or Series.*ndarray",
    ),
    ({"resampler": Bootstrap(10), "y": np.zeros(1000)}, "'y' parameter.*only Strat"),
    (
        {"resampler": PoissonBootstrap(10), "groups": np.zeros(1000)},
        "'groups'.*only Group",
    ),
    (
        {
            "resampler": StratifiedBootstrap(10),
            "groups": np.zeros(1000),
            "y": da.zeros(1000, chunks=100),
        },
        "'groups' parameter.*must be None",
    ),
]


@pytest.mark.parametrize(("kwargs", "match"), ERRORS)
def test_errors_before_any_work(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bootstrap(_poisoned(), "mean", random_state=0, **kwargs)


def test_misaligned_or_bad_labels_refused_before_the_replicates():
    x = da.from_array(np.zeros(1000), chunks=100)
    bad = da.from_array(np.zeros(1000), chunks=300)
    with pytest.raises(ValueError, match=r"'y' parameter.*partitioned like the data"):
        bootstrap(x, "mean", resampler=StratifiedBootstrap(10), y=bad)
    with pytest.raises(ValueError, match=r"'groups' parameter.*partitioned like"):
        bootstrap(x, "mean", resampler=GroupBootstrap(10), groups=bad)
    two = da.zeros((1000, 2), chunks=(100, 2))
    with pytest.raises(ValueError, match=r"'y' parameter.*1-D"):
        bootstrap(x, "mean", resampler=StratifiedBootstrap(10), y=two)
    nan = da.from_array(np.r_[np.nan, np.zeros(999)], chunks=100)
    with pytest.raises(ValueError, match=r"'y' parameter.*NaN"):
        bootstrap(x, "mean", resampler=StratifiedBootstrap(10), y=nan)


def test_exact_partition_detects_changed_strata():
    draws = np.array([[3, 0]], dtype=np.int64)
    seeds = np.array([np.uint64(1), np.uint64(2)])
    with pytest.raises(RuntimeError, match="not deterministic"):
        exact_partition(
            np.ones(4),
            np.array([1, 1, 1, 1]),
            np.array([0, 1]),
            draws,
            seeds,
            np.uint64(3),
            False,
        )


# -- a real cluster --------------------------------------------------------------
@pytest.fixture
def thread_cluster(request):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",  # in-process workers over loopback TCP
        dashboard_address=None,  # no dashboard
        silence_logs=50,
    )
    client = distributed.Client(cluster)

    def close():
        client.close()
        cluster.close()

    request.addfinalizer(close)
    return client


def test_local_cluster_gives_the_local_schedulers_bits(thread_cluster):
    x = _data(3000)
    y = np.arange(3000) % 5
    arr = da.from_array(x, chunks=700)
    ya = da.from_array(y, chunks=700)
    on_cluster = [
        bootstrap(arr, "mean", resampler=Bootstrap(30), random_state=SEED),
        bootstrap(
            arr, "std", resampler=StratifiedBootstrap(30), y=ya, random_state=SEED
        ),
        bootstrap(
            arr, "mean", resampler=GroupBootstrap(30), groups=ya, random_state=SEED
        ),
    ]
    with dask.config.set(scheduler="synchronous"):
        local = [
            bootstrap(arr, "mean", resampler=Bootstrap(30), random_state=SEED),
            bootstrap(
                arr, "std", resampler=StratifiedBootstrap(30), y=ya, random_state=SEED
            ),
            bootstrap(
                arr, "mean", resampler=GroupBootstrap(30), groups=ya, random_state=SEED
            ),
        ]
    for a, b in zip(on_cluster, local, strict=True):
        np.testing.assert_array_equal(a.distribution, b.distribution)
