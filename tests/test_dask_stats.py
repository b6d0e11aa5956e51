"""More statistics of dask collections: Pearson's correlation (two columns,
centred sums merged across partitions), its BCa interval, and dask's own
progress display; each equal to the in-memory Poisson bootstrap on the same
rows and seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skboot import PoissonBootstrap, UndefinedStatisticWarning, bootstrap
from skboot._random import PURPOSE, check_random_state
from skboot._run._dask_corr import corr_partition, merge_corr

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

B = 64
SEED = 20251202
#: partition lengths of 3001 rows: a 1-row and an empty partition among them
CHUNKS = [3001, 1000, (1, 1500, 1, 1499), (700, 0, 2301), 257]


def _xy(n: int = 3001, offset: float = 1e6) -> np.ndarray:
    """Correlated columns far from zero (spread 2, offset ``offset``): the
    centring must carry the offset."""
    gen = np.random.default_rng(3)
    x = gen.normal(0.0, 2.0, size=n)
    y = 0.5 * x + gen.exponential(size=n)
    return np.column_stack([offset + x, -3.0 * offset + y])


def _kw(**extra):
    return dict(resampler=PoissonBootstrap(B), random_state=SEED, **extra)


@pytest.mark.parametrize("chunks", CHUNKS, ids=str)
def test_corr_equals_in_memory(chunks):
    x = _xy()
    want = bootstrap(x, "corr", **_kw())
    got = bootstrap(da.from_array(x, chunks=(chunks, 1)), "corr", **_kw())
    assert got.distribution.shape == want.distribution.shape == (B,)
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    assert isinstance(got.estimate, float)
    np.testing.assert_allclose(got.estimate, want.estimate, rtol=1e-12)


def test_corr_uncentred_sums_would_fail_far_from_zero():
    """The merged sums are centred: about zero, sums of squares of values
    near 1e6 lose the spread's digits (what the centring is for)."""
    x = _xy(offset=1e6)
    seed, gamma = check_random_state(SEED).stream(PURPOSE["poisson"])
    parts = [corr_partition(x[a:b], a, seed, gamma, 4) for a, b in ((0, 9), (9, 3001))]
    total = merge_corr(*parts)
    c = x - total.shift
    np.testing.assert_allclose(
        total.s[4, :5],
        [
            c[:, 0].sum(),
            c[:, 1].sum(),
            (c[:, 0] ** 2).sum(),
            (c[:, 1] ** 2).sum(),
            (c[:, 0] * c[:, 1]).sum(),
        ],
        rtol=1e-12,
        atol=1e-9,
    )
    raw = x[:, 0] @ x[:, 0] - x[:, 0].sum() ** 2 / x.shape[0]
    exact = (c[:, 0] ** 2).sum() - c[:, 0].sum() ** 2 / x.shape[0]
    assert abs(raw / exact - 1) > 1e-9  # what an uncentred sum would give


@pytest.mark.parametrize(
    "chunks", [(3001,), (600, 1, 0, 1999, 401), (1,) * 5 + (2996,)]
)
def test_corr_bca_equals_in_memory(chunks):
    """BCa's acceleration from one pass: ``r_(i)`` from the totals less row
    ``i``'s terms, as the in-memory jackknife computes it."""
    x = _xy(offset=50.0)
    want = bootstrap(x, "corr", **_kw())
    got = bootstrap(da.from_array(x, chunks=(chunks, 2)), "corr", **_kw())
    for level, alternative in ((0.95, "two-sided"), (0.9, "greater")):
        ci = got.confidence_interval(level, method="bca", alternative=alternative)
        ci0 = want.confidence_interval(level, method="bca", alternative=alternative)
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)
    moments = got._context.stat.jackknife_moments()
    assert moments.n == 3001 and moments.m2.shape == (1,)
    with pytest.raises(ValueError, match="stay in a dask collection"):
        got.jackknife_values()


def test_corr_replicates_of_one_value_undefined_as_in_memory():
    """Three rows: replicates holding one distinct row have no correlation,
    NaN in both runs (counted and named once)."""
    x = np.array([[1.0, 2.0], [2.0, 1.0], [4.0, 7.0]]) + 1e3
    kw = dict(resampler=PoissonBootstrap(200), random_state=SEED)
    with pytest.warns(UndefinedStatisticWarning) as w0:
        want = bootstrap(x, "corr", **kw)
    with pytest.warns(UndefinedStatisticWarning) as w1:
        got = bootstrap(da.from_array(x, chunks=(1, 2)), "corr", **kw)
    assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
    assert np.isnan(want.distribution).sum() > 10
    np.testing.assert_array_equal(
        np.isnan(got.distribution), np.isnan(want.distribution)
    )
    ok = ~np.isnan(want.distribution)
    np.testing.assert_allclose(got.distribution[ok], want.distribution[ok], rtol=1e-12)


def test_corr_dataframe_and_errors_before_any_work():
    dd = pytest.importorskip("dask.dataframe")
    x = _xy(500)
    frame = pd.DataFrame(x, columns=["a", "b"])
    want = bootstrap(frame, "corr", **_kw())
    got = bootstrap(dd.from_pandas(frame, npartitions=3), "corr", **_kw())
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)

    def boom(block):
        raise AssertionError("a partition was computed")

    lazy = da.from_array(np.zeros((600, 3)), chunks=(100, 3)).map_blocks(
        boom, dtype=float
    )
    with pytest.raises(ValueError, match=r"'corr' needs exactly two columns.*Got 3"):
        bootstrap(lazy, "corr", **_kw())
    with pytest.raises(ValueError, match=r"nan_policy.*'raise' or 'propagate'"):
        bootstrap(lazy[:, :2], "corr", nan_policy="omit", **_kw())
    bad = x.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match="contains 1 NaN or infinite"):
        bootstrap(da.from_array(bad, chunks=(100, 2)), "corr", **_kw())


# -- progress: dask's own diagnostics -------------------------------------------


def test_progress_local_scheduler_shows_dasks_bar(capsys):
    """progress=True on the local scheduler: dask's ProgressBar for the run
    and for BCa's pass; the numbers are those of a run without it."""
    x = da.from_array(_xy(400), chunks=(100, 2))
    want = bootstrap(x, "corr", **_kw())
    capsys.readouterr()
    got = bootstrap(x, "corr", progress=True, **_kw())
    assert "100% Completed" in capsys.readouterr().out
    ci = got.confidence_interval(method="bca")
    assert "100% Completed" in capsys.readouterr().out
    assert got == want
    assert ci == want.confidence_interval(method="bca")
    bootstrap(x, "mean", **_kw())
    assert capsys.readouterr().out == ""  # nothing without progress


@pytest.fixture
def cluster_client(request):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        # a free loopback port: None would still try 8787 for the HTTP
        # endpoints, and warn when another cluster holds it
        dashboard_address="127.0.0.1:0",
        silence_logs=50,
    )
    client = distributed.Client(cluster)

    def close():
        client.close()
        cluster.close()

    request.addfinalizer(close)
    return client


def test_progress_distributed_client(cluster_client, monkeypatch):
    """With a Client active, the run goes through distributed's progress
    (on the client's futures), and equals the local scheduler's run."""
    import distributed

    shown = []
    real = distributed.progress

    def spy(*futures, **kwargs):
        shown.append(len(futures[0]))
        kwargs["notebook"] = False
        return real(*futures, **kwargs)

    monkeypatch.setattr(distributed, "progress", spy)
    x = _xy(400)
    got = bootstrap(da.from_array(x, chunks=(100, 2)), "corr", progress=True, **_kw())
    assert shown == [1]
    want = bootstrap(x, "corr", **_kw())
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)


# -- BCa of the ROC AUC and the label metrics --------------------------------

N = 601
#: partition lengths of N rows: 1-row and empty partitions among them
METRIC_CHUNKS = [(N,), (150, 1, 0, 250, 200), (97,) * 6 + (19,), (1,) * 9 + (592,)]


def _labels(n: int = N) -> dict[str, np.ndarray]:
    gen = np.random.default_rng(3)
    y = gen.integers(0, 2, n)
    # scores on a grid of 0.1: many ties, some cut by partition boundaries
    score = np.round(y + gen.normal(size=n), 1)
    return {
        "y": y,
        "score": score,
        "coarse": np.round(score / 2.0),  # a handful of scores, ties everywhere
        "label": (score > 0.5).astype(np.int64),
        "other": (np.round(y + gen.normal(scale=2.0, size=n), 1) > 0.5).astype(int),
        "multi": gen.integers(0, 3, n),
        "weight": gen.integers(0, 4, n).astype(np.float64),
        "fweight": gen.uniform(0.1, 2.0, n),
    }


def _acceleration(res) -> float:
    from skboot.intervals import jackknife_acceleration

    moments = res.result._context.stat.jackknife_moments()
    if moments is not None:
        return float(jackknife_acceleration(moments.column(0)))
    return float(jackknife_acceleration(res.result.jackknife_values()[:, 0]))


def _metric_pair(metric, data, chunks, sw=None, pred="label", **options):
    from skboot import metric_ci

    y, p = data["y"], data[pred]
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED, **options)
    want = metric_ci(y, p, metric, sample_weight=sw, **kw)

    def dsk(a):
        return da.from_array(a, chunks=(chunks,))

    dsw = None if sw is None else dsk(sw)
    got = metric_ci(dsk(y), dsk(p), metric, sample_weight=dsw, **kw)
    return got, want


def _same_bca(got, want) -> None:
    assert got.method == want.method == "bca"
    np.testing.assert_allclose(_acceleration(got), _acceleration(want), rtol=1e-10)
    for level in (0.95, 0.8):
        ci, ci0 = got.confidence_interval(level), want.confidence_interval(level)
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)


@pytest.mark.parametrize("chunks", METRIC_CHUNKS, ids=str)
@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
@pytest.mark.parametrize("pred", ["score", "coarse"])
def test_roc_auc_bca_is_the_default_and_equals_in_memory(pred, weight, chunks):
    """ROC AUC's leave-one-out values from the sorted partitions (ties cut by
    their boundaries included): BCa by default, as in memory, and equal."""
    data = _labels()
    sw = None if weight is None else data[weight]
    got, want = _metric_pair("roc_auc", data, chunks, sw, pred)
    _same_bca(got, want)


@pytest.mark.parametrize("chunks", METRIC_CHUNKS[1:], ids=str)
@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
@pytest.mark.parametrize(
    "metric, options",
    [
        ("f1", {}),
        ("precision", {}),
        ("recall", {}),
        ("balanced_accuracy", {}),
        ("f1", {"average": "macro"}),
    ],
)
def test_label_metrics_bca_equal_in_memory(metric, options, weight, chunks):
    """Precision, recall, F1 and balanced accuracy: a row left out takes its
    weight from one cell of the confusion matrix."""
    data = _labels()
    sw = None if weight is None else data[weight]
    pred = "multi" if options else "label"
    if options:
        data = dict(data, y=(data["y"] + data["label"]) % 3)
    got, want = _metric_pair(metric, data, chunks, sw, pred, **options)
    _same_bca(got, want)


def test_compare_metrics_f1_and_roc_auc_bca():
    """The paired difference of two models: BCa for F1 (a row leaves both
    confusion matrices) and for the ROC AUC (each model's rows sorted by its
    own scores, their leave-one-out values joined by row number), as in
    memory."""
    from skboot import compare_metrics

    data = _labels()
    y, a, b = data["y"], data["label"], data["other"]
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED)

    def dsk(x):
        return da.from_array(x, chunks=97)

    for metric, pa, pb in (("f1", a, b), ("roc_auc", data["score"], data["coarse"])):
        want = compare_metrics(y, pa, pb, metric, **kw)
        got = compare_metrics(dsk(y), dsk(pa), dsk(pb), metric, **kw)
        assert got.method == want.method == "bca"
        ci, ci0 = got.confidence_interval(), want.confidence_interval()
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)
        np.testing.assert_allclose(got.pvalue, want.pvalue, rtol=1e-10)


def test_roc_auc_bca_undefined_jackknife_as_in_memory():
    """One positive row: the sample without it has no ROC AUC; with
    undefined="omit" the same warnings as in memory (that jackknife sample
    named) and the same interval."""
    data = _labels()
    y = np.zeros(N, dtype=np.int64)
    y[123] = 1
    data = dict(data, y=y)
    kw = dict(undefined="omit")
    with pytest.warns(UndefinedStatisticWarning) as w0:
        want = _metric_pair("roc_auc", data, (N,), None, "score", **kw)[1]
    for chunks in METRIC_CHUNKS[1:]:
        with pytest.warns(UndefinedStatisticWarning) as w1:
            got = _metric_pair("roc_auc", data, chunks, None, "score", **kw)[0]
        assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
        assert any("jackknife (leave-one-out)" in str(w.message) for w in w1)
        ci, ci0 = got.confidence_interval(), want.confidence_interval()
        assert ci.method == ci0.method == "bca"
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)


# -- R2 ------------------------------------------------------------------------


def _regression(n: int = N) -> dict[str, np.ndarray]:
    gen = np.random.default_rng(8)
    y = 1e4 + gen.normal(size=n)  # far from zero: the sums must be centred
    return {
        "y": y,
        "a": y + 0.5 * gen.normal(size=n),
        "b": y + gen.normal(size=n),
        "weight": gen.integers(0, 4, n).astype(np.float64),
        "fweight": gen.uniform(0.1, 2.0, n),
    }


@pytest.mark.parametrize("chunks", METRIC_CHUNKS, ids=str)
@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
def test_r2_equals_in_memory(weight, chunks):
    """R2 and the paired difference of two models' R2 from centred weighted
    sums per partition: the in-memory values to 1e-12."""
    from skboot import compare_metrics, metric_ci

    data = _regression()
    y, a, b = data["y"], data["a"], data["b"]
    sw = None if weight is None else data[weight]
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED, sample_weight=sw)

    def dsk(x):
        return None if x is None else da.from_array(x, chunks=(chunks,))

    want = metric_ci(y, a, "r2", method="percentile", **kw)
    got = metric_ci(dsk(y), dsk(a), "r2", **dict(kw, sample_weight=dsk(sw)))
    assert got.method == "bca"  # the default, as in memory
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    np.testing.assert_allclose(got.estimate, want.estimate, rtol=1e-12)
    want = compare_metrics(y, a, b, "r2", method="percentile", **kw)
    got = compare_metrics(
        dsk(y),
        dsk(a),
        dsk(b),
        "r2",
        method="percentile",
        **dict(kw, sample_weight=dsk(sw)),
    )
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    assert got.pvalue == want.pvalue


@pytest.mark.parametrize("force_finite", [False, True])
def test_r2_constant_replicates_as_in_memory(force_finite):
    """Three rows, two of one value: replicates drawing y of one value are
    undefined (force_finite=False: dropped with the in-memory warning) or
    score 1.0 / 0.0, exactly as in memory."""
    import warnings

    from skboot import metric_ci

    y = np.array([5.0, 5.0, 7.0])
    pred = np.array([5.0, 5.5, 6.0])
    kw = dict(resampler=PoissonBootstrap(300), random_state=SEED, method="percentile")
    kw.update(force_finite=force_finite, undefined="omit")
    with warnings.catch_warnings(record=True) as w0:
        warnings.simplefilter("always")
        want = metric_ci(y, pred, "r2", **kw)
    with warnings.catch_warnings(record=True) as w1:
        warnings.simplefilter("always")
        got = metric_ci(
            da.from_array(y, chunks=1), da.from_array(pred, chunks=1), "r2", **kw
        )
    assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
    assert w0  # empty replicates at least (every count 0)
    np.testing.assert_array_equal(got.undefined_replicates, want.undefined_replicates)
    np.testing.assert_allclose(got.distribution, want.distribution, rtol=1e-12)
    if force_finite:
        assert np.isin(want.distribution, (0.0, 1.0)).sum() > 10


@pytest.mark.parametrize("chunks", METRIC_CHUNKS, ids=str)
@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
def test_r2_bca_is_the_default_and_equals_in_memory(weight, chunks):
    """R2's leave-one-out values in closed form from the totals less row i's
    terms: BCa by default, as in memory, and equal to 1e-10, for one model
    and for the paired difference of two."""
    from skboot import compare_metrics

    data = _regression()
    sw = None if weight is None else data[weight]
    got, want = _metric_pair("r2", data, chunks, sw, "a")
    _same_bca(got, want)
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED)
    y, a, b = data["y"], data["a"], data["b"]

    def dsk(x):
        return None if x is None else da.from_array(x, chunks=(chunks,))

    want = compare_metrics(y, a, b, "r2", sample_weight=sw, **kw)
    got = compare_metrics(dsk(y), dsk(a), dsk(b), "r2", sample_weight=dsk(sw), **kw)
    _same_bca(got, want)
    assert got.pvalue == pytest.approx(want.pvalue, rel=1e-10)


def _same_moments(got, want) -> None:
    """The dask run's leave-one-out sums describe the in-memory values: the
    same undefined ones (the first named) and the same central sums of the
    others."""
    moments = got.result._context.stat.jackknife_moments()
    values = want.result.jackknife_values()[:, 0]
    bad = ~np.isfinite(values)
    assert moments.n_nonfinite == bad.sum()
    assert moments.first_nonfinite == (np.flatnonzero(bad)[0] if bad.any() else -1)
    z = values[~bad] - values[~bad].mean()
    np.testing.assert_allclose(
        [moments.m2[0], moments.m3[0]], [(z**2).sum(), -(z**3).sum()], atol=1e-14
    )
    np.testing.assert_array_equal(moments.constant, [np.ptp(values[~bad]) == 0.0])


@pytest.mark.parametrize("force_finite", [False, True])
@pytest.mark.parametrize(
    "y, pred, weight",
    [
        # leaving row 3 out leaves y constant (and the fit perfect)
        ([5.0, 5.0, 5.0, 7.0, 5.0], [5.0, 5.0, 5.0, 6.0, 5.0], None),
        # leaving row 0 out leaves y constant, the residuals not all zero
        ([1.0, 3.0, 3.0, 3.0, 3.0], [1.5, 3.0, 2.5, 3.0, 3.5], None),
        # leaving row 2 out leaves a perfect fit; a row of no weight
        ([1.0, 2.0, 3.0, 4.0, 9.0], [1.0, 2.0, 3.5, 4.0, 0.0], [1, 1, 2, 1, 0]),
        # two rows of weight: leaving one out leaves a single row
        ([1.0, 2.0, 3.0], [1.5, 2.0, 2.0], [0.0, 0.5, 1.5]),
    ],
)
def test_r2_bca_edge_rows_as_in_memory(y, pred, weight, force_finite):
    """Leave-one-out samples whose y are constant (NaN, or 1.0 / 0.0 with
    force_finite), whose fit is perfect (1.0) or that hold one row: decided by
    exact counts, as the in-memory kernel decides, with the same warnings.
    (The intervals themselves are not compared: on five rows many replicates
    tie with the estimate, so BC's bias correction turns on its last bit.)"""
    import warnings

    from skboot import metric_ci

    yt, p = np.array(y), np.array(pred)
    sw = None if weight is None else np.array(weight, dtype=np.float64)
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED, undefined="omit")
    kw.update(force_finite=force_finite)

    def attempt(wrap):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                res = metric_ci(wrap(yt), wrap(p), "r2", sample_weight=wrap(sw), **kw)
            except ValueError as exc:  # too few samples defined
                res = str(exc)
        return res, sorted(str(m.message) for m in w)

    want, warned = attempt(lambda a: a)
    too_few = len(y) == 3 and not force_finite
    assert isinstance(want, str) == too_few
    for chunks in [(len(y),), (1,) * len(y), (2, 0, len(y) - 2)]:
        got, warned_dask = attempt(
            lambda a, c=chunks: None if a is None else da.from_array(a, chunks=(c,))
        )
        assert warned_dask == warned
        if too_few:
            assert got == want
            continue
        assert got.method == want.method == "bca"
        _same_moments(got, want)


def test_r2_bad_predictions_named():
    from skboot import metric_ci

    data = _regression(300)
    y = da.from_array(data["y"], chunks=100)
    bad = data["a"].copy()
    bad[150] = np.nan
    with pytest.raises(ValueError, match=r"(?i)y_pred"):
        metric_ci(
            y, da.from_array(bad, chunks=100), "r2", resampler=PoissonBootstrap(10)
        )


@pytest.mark.parametrize(
    "case",
    ["corr", "r2", "roc_auc", "f1", "average_precision", "weighted_ap", "paired"],
)
def test_the_rows_never_come_to_the_client(case, monkeypatch):
    """No conversion of a collection to numpy on the client, in the run nor
    in BCa's leave-one-out pass."""
    from skboot import compare_metrics, metric_ci

    def refuse(self, *args, **kwargs):
        raise AssertionError("a dask array was converted to numpy")

    kw = dict(resampler=PoissonBootstrap(20), random_state=SEED)
    with dask.config.set(scheduler="synchronous"):
        if case == "corr":
            x = da.from_array(_xy(300), chunks=(100, 2))
            monkeypatch.setattr(type(x), "__array__", refuse)
            res = bootstrap(x, "corr", **kw)
            ci = res.confidence_interval(method="bca")
        else:
            data = _regression(300) if case == "r2" else _labels(300)
            y = data["y"]
            pred = {"r2": "a", "f1": "label"}.get(case, "score")
            yd = da.from_array(y, chunks=100)
            pdk = da.from_array(data[pred], chunks=100)
            monkeypatch.setattr(type(yd), "__array__", refuse)
            if case == "paired":  # two models' ROC AUC: the rows joined
                other = da.from_array(data["coarse"], chunks=100)
                res = compare_metrics(yd, pdk, other, "roc_auc", **kw)
            elif case == "weighted_ap":  # the groups sent between partitions
                sw = da.from_array(data["fweight"], chunks=100)
                res = metric_ci(yd, pdk, "average_precision", sample_weight=sw, **kw)
            else:
                res = metric_ci(yd, pdk, case, **kw)
            ci = res.confidence_interval()
    assert res.distribution.shape == (20,)
    assert ci.method == "bca"
