"""metric_ci / compare_metrics on predictions in dask collections under the
exact iid (the default), stratified and hashed-group schemes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    f1_score,
    log_loss,
    r2_score,
    roc_auc_score,
)

from skboot import DegenerateDistributionWarning
from skboot._random import check_random_state
from skboot._run._dask_counts import exact_counts
from skboot.intervals import jackknife_acceleration
from skboot.metrics import compare_metrics, metric_ci
from skboot.resamplers import (
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
)

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

N = 301
B = 40
SEED = 11
#: a 2-partition and a 5-partition layout (one partition empty)
CHUNKINGS = [(151, 150), (70, 0, 91, 60, 80)]
METRICS = ("accuracy", "log_loss", "brier_score", "mean_squared_error", "f1", "r2")
RANKED = ("roc_auc", "average_precision")


def _data(n: int = N) -> dict[str, np.ndarray]:
    gen = np.random.default_rng(5)
    y = (gen.random(n) < 0.35).astype(np.int64)
    score = np.round(y + gen.normal(size=n), 1)  # ties, some cut by boundaries
    proba = 1.0 / (1.0 + np.exp(-score))
    target = 10.0 + y + gen.normal(size=n)
    return {
        "y": y,
        "score": score,
        "proba": proba,
        "label": (score > 0.5).astype(np.int64),
        "target": target,
        "groups": gen.integers(0, 40, n),
    }


def _pred(metric: str, data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if metric in ("accuracy", "f1"):
        return data["y"], data["label"]
    if metric in ("log_loss", "brier_score"):
        return data["y"], data["proba"]
    if metric in RANKED:
        return data["y"], data["score"]
    return data["target"], data["target"] + data["score"]


def _dask(x: np.ndarray, chunks: tuple[int, ...]):
    return da.from_array(x, chunks=(chunks,))


def _schemes(metric: str) -> list[dict]:
    out: list[dict] = [{}, {"resampler": Bootstrap(B)}]
    if metric not in ("mean_squared_error", "r2"):  # strata: the classes
        out.append({"stratify": True})
    return out


def _run(y, pred, metric, chunks, **kw):
    kw.setdefault("method", "percentile")
    if "resampler" not in kw:
        kw["n_resamples"] = B
    return metric_ci(
        _dask(y, chunks), _dask(pred, chunks), metric, **kw, random_state=SEED
    )


# -- (a) the estimate ----------------------------------------------------------
@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("metric", METRICS + RANKED)
def test_estimate_equals_in_memory(metric, chunks):
    data = _data()
    y, pred = _pred(metric, data)
    for kw in _schemes(metric):
        want = metric_ci(y, pred, metric, **kw, n_resamples=None if kw else B,
                         random_state=SEED, method="percentile")  # fmt: skip
        got = _run(y, pred, metric, chunks, **kw)
        assert abs(got.estimate - want.estimate) <= 1e-12
        assert got.distribution.shape == (B,)
        assert np.isfinite(got.distribution).all()
        assert got.result._context.plan.scheme == (
            "stratified" if kw.get("stratify") else "iid"
        )


# -- (b) the law of the replicates ------------------------------------------------
def _partition_counts(scheme: str, y: np.ndarray, chunks, seed, n_res):
    """(n_res, n) counts of every row, as the partitions draw them."""
    key = check_random_state(seed)
    ends = np.cumsum(chunks)
    starts = ends - np.array(chunks)
    if scheme == "iid":
        sizes = np.array([list(chunks)], dtype=np.int64)
        streams = exact_counts(key, np.array([y.shape[0]]), sizes, None, n_res)
    else:
        labels = np.unique(y)
        sizes = np.array(
            [
                [(y[s:e] == c).sum() for s, e in zip(starts, ends, strict=True)]
                for c in labels
            ]
        )
        streams = exact_counts(key, sizes.sum(axis=1), sizes, labels, n_res)
    out = np.zeros((n_res, y.shape[0]), dtype=np.int64)
    for st, s, e in zip(streams, starts, ends, strict=True):
        if e > s:
            for k0, c in st.chunks(y[s:e], e - s):
                out[k0 : k0 + c.shape[0], s:e] = c
    return out


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_counts_sum_to_n_and_class_sizes(chunks):
    """The count generator: exact iid counts sum to n in every replicate,
    stratified counts to each class's size; a chunk of replicates is a few MB
    at most and does not change the counts."""
    y = _data()["y"]
    iid = _partition_counts("iid", y, chunks, SEED, 300)
    assert (iid.sum(axis=1) == N).all()
    assert (iid >= 0).all() and iid.std() > 0
    strat = _partition_counts("stratified", y, chunks, SEED, 300)
    for c in (0, 1):
        assert (strat[:, y == c].sum(axis=1) == (y == c).sum()).all()
    # every row is drawn with probability 1/n_s per draw: E[count] = 1
    # (300 replicates: the mean count over rows and replicates has SD
    # sqrt((1 - 1/n) / (300 n)) ~ 3.3e-3; 1e-2 is 3 SD per row average)
    assert abs(iid.mean() - 1.0) < 1e-2


def test_stratified_keeps_the_class_proportion():
    """Accuracy of constant predictions is the class proportion: constant in
    every stratified replicate, variable under the iid scheme."""
    y = _data()["y"]
    ones = np.ones(N, dtype=np.int64)
    for chunks in CHUNKINGS:
        with pytest.warns(DegenerateDistributionWarning):
            got = _run(y, ones, "accuracy", chunks, stratify=True)
        assert (got.distribution == y.mean()).all()
        got = _run(y, ones, "accuracy", chunks)
        assert got.distribution.std() > 0


@pytest.mark.parametrize("stratify", [False, True])
def test_mean_and_sd_agree_with_theory_and_in_memory(stratify):
    """The accuracy's bootstrap mean and SD under the exact schemes equal the
    theoretical ones of multinomial resampling (the in-memory law):
    iid SD sqrt(p (1 - p) / n), stratified sqrt(sum_s (n_s/n)**2 p_s (1 - p_s)
    / n_s).  B = 2000: the SD estimate has relative SD 1/sqrt(2B) = 1.6%,
    tolerance 8% (5 SD); the mean has SD sd/sqrt(B), tolerance 5 of them;
    false-failure rate below 1e-6 per check."""
    data = _data()
    y, pred = data["y"], data["label"]
    hit = (pred == y).astype(float)
    if stratify:
        var = sum(
            ((y == c).mean()) ** 2 * hit[y == c].var() / (y == c).sum() for c in (0, 1)
        )
    else:
        var = hit.var() / N
    sd = np.sqrt(var)
    n_res = 2000
    kw = dict(
        stratify=stratify, n_resamples=n_res, random_state=SEED, method="percentile"
    )
    got = metric_ci(_dask(y, CHUNKINGS[1]), _dask(pred, CHUNKINGS[1]), "accuracy", **kw)
    want = metric_ci(y, pred, "accuracy", **kw)
    for dist in (got.distribution, want.distribution):
        assert abs(dist.std() / sd - 1.0) < 0.08
        assert abs(dist.mean() - hit.mean()) < 5 * sd / np.sqrt(n_res)


# -- (c) bit-identical across schedulers, n_jobs and reruns ---------------------------
@pytest.mark.parametrize("metric", ("accuracy", "f1", "r2", "roc_auc"))
def test_bit_identical_across_schedulers_and_reruns(metric):
    data = _data()
    y, pred = _pred(metric, data)
    kw = {} if metric == "r2" else {"stratify": True}
    first = _run(y, pred, metric, CHUNKINGS[1], **kw)
    with dask.config.set(scheduler="threads", num_workers=2):
        second = _run(y, pred, metric, CHUNKINGS[1], n_jobs=2, **kw)
    with dask.config.set(scheduler="synchronous"):
        third = _run(y, pred, metric, CHUNKINGS[1], n_jobs=1, **kw)
    assert np.array_equal(first.distribution, second.distribution)
    assert np.array_equal(first.distribution, third.distribution)


# -- (d) the hand count -----------------------------------------------------------
HAND = {
    "accuracy": lambda y, p, w: accuracy_score(y, p, sample_weight=w),
    "log_loss": lambda y, p, w: log_loss(y, p, sample_weight=w, labels=[0, 1]),
    "f1": lambda y, p, w: f1_score(y, p, sample_weight=w),
    "r2": lambda y, p, w: r2_score(y, p, sample_weight=w),
}


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("metric", sorted(HAND))
def test_replicate_equals_metric_on_counted_rows(metric, chunks):
    """Replicate b's value is the scikit-learn metric on the rows repeated by
    the counts the generator gives (as sample weights)."""
    data = _data()
    y, pred = _pred(metric, data)
    for scheme in ("iid", "stratified") if metric != "r2" else ("iid",):
        got = _run(y, pred, metric, chunks, stratify=scheme == "stratified")
        counts = _partition_counts(scheme, y, chunks, SEED, B)
        for b in (0, 7, B - 1):
            want = HAND[metric](y, pred, counts[b])
            np.testing.assert_allclose(got.distribution[b], want, rtol=1e-12)


def test_ranked_replicate_equals_metric_on_counted_sorted_rows(monkeypatch):
    """ROC AUC and average precision: the counts are drawn per partition
    sorted by score (after a pass counting its rows per class).  The sorted
    partitions and their streams, recorded during the run: replicate b equals
    scikit-learn's metric on the rows weighted by the counts the generator
    gives; stratified counts keep the class sizes."""
    import skboot.metrics._dask_rank as rank
    import skboot.metrics._dask_ranked as ranked

    seen: list = []

    def record(frame, stream):
        seen.append((frame, stream))
        return rank.counted_rank_partition(frame, stream)

    monkeypatch.setattr(ranked, "counted_rank_partition", record)
    data = _data()
    y, score = data["y"], data["score"]
    fns = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}
    for name, fn in fns.items():
        for stratify in (False, True):
            seen.clear()
            with dask.config.set(scheduler="synchronous"):
                got = _run(y, score, name, CHUNKINGS[1], stratify=stratify)
            rows, counts = [], []
            for frame, stream in seen:
                m = len(frame)
                if m == 0:
                    continue
                full = np.zeros((B, m), dtype=np.int64)
                labels = frame["label"].to_numpy(dtype=float)
                for k0, chunk in stream.chunks(labels, m):
                    full[k0 : k0 + chunk.shape[0]] = chunk
                rows.append(frame["row"].to_numpy())
                counts.append(full)
            r, w = np.concatenate(rows), np.concatenate(counts, axis=1)
            assert np.array_equal(np.sort(r), np.arange(N))
            assert (w.sum(axis=1) == N).all()
            if stratify:
                assert (w[:, y[r] == 1].sum(axis=1) == y.sum()).all()
            for b in (0, 5, B - 1):
                want = fn(y[r], score[r], sample_weight=w[b])
                np.testing.assert_allclose(got.distribution[b], want, rtol=1e-12)


# -- groups ---------------------------------------------------------------------
@pytest.mark.parametrize("metric", ("accuracy", "f1", "roc_auc"))
def test_group_scheme(metric):
    """Hashed-group Poisson counts: percentile by default, the estimate the
    in-memory one, bit-identical on another partitioning (a group's count is
    a function of its id, not of where its rows lie)."""
    data = _data()
    y, pred = _pred(metric, data)
    g = data["groups"]
    out = []
    for chunks in CHUNKINGS:
        res = metric_ci(
            _dask(y, chunks), _dask(pred, chunks), metric,
            groups=_dask(g, chunks), n_resamples=B, random_state=SEED,
        )  # fmt: skip
        assert res.method == "percentile"
        assert res.result._context.plan.scheme == "group"
        want = metric_ci(y, pred, metric, groups=g, n_resamples=B, random_state=SEED)
        assert abs(res.estimate - want.estimate) <= 1e-12
        out.append(res.distribution)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


# -- BCa ------------------------------------------------------------------------------
def _dask_acceleration(res) -> float:
    return float(
        jackknife_acceleration(res.result._context.stat.jackknife_moments().column(0))
    )


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("metric", ("accuracy", "log_loss", "f1", "r2", "roc_auc"))
def test_iid_bca_acceleration_equals_in_memory(metric, chunks):
    data = _data()
    y, pred = _pred(metric, data)
    got = _run(y, pred, metric, chunks, method=None)
    want = metric_ci(y, pred, metric, n_resamples=B, random_state=SEED)
    assert got.method == want.method == "bca"
    a0 = float(jackknife_acceleration(want.result.jackknife_values()[:, 0]))
    np.testing.assert_allclose(_dask_acceleration(got), a0, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize(
    "metric", ("accuracy", "log_loss", "f1", "roc_auc", "average_precision")
)
def test_stratified_bca_acceleration_equals_in_memory(metric, chunks):
    """The stratified jackknife (values centred within each class, scaled by
    (n_s - 1) / n_s), as the in-memory stratified run computes it."""
    from skboot._run import stratified_jackknife

    data = _data()
    y, pred = _pred(metric, data)
    got = _run(y, pred, metric, chunks, method=None, stratify=True)
    want = metric_ci(y, pred, metric, n_resamples=B, random_state=SEED, stratify=True)
    assert got.method == want.method == "bca"
    jk = stratified_jackknife(want.result.jackknife_values()[:, 0], y)
    a0 = float(jackknife_acceleration(jk))
    np.testing.assert_allclose(_dask_acceleration(got), a0, rtol=1e-10, atol=1e-14)
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    assert np.isfinite([ci.low, ci.high]).all() and ci.low < got.estimate < ci.high
    assert np.isfinite([ci0.low, ci0.high]).all()


# -- (e) what stays refused -------------------------------------------------------------
def test_refusals():
    data = _data()
    y, s = _dask(data["y"], CHUNKINGS[0]), _dask(data["score"], CHUNKINGS[0])
    with pytest.raises(ValueError, match=r"'resampler' .* must be PoissonBootstrap"
                       r".*compare the metric 'roc_auc' of two models"):  # fmt: skip
        compare_metrics(y, s, s + 1, "roc_auc", resampler=Bootstrap(B))
    g = _dask(data["groups"], CHUNKINGS[0])
    with pytest.raises(ValueError, match=r"'method' .* must not be 'bca'"):
        metric_ci(y, s, "roc_auc", groups=g, method="bca", n_resamples=B)
    with pytest.raises(ValueError, match=r"'groups' .* must be None .*unless"):
        metric_ci(y, s, "roc_auc", groups=g, resampler=PoissonBootstrap(B))
    with pytest.raises(ValueError, match=r"'groups' .*partitioned like y_true"):
        metric_ci(y, s, "roc_auc", groups=_dask(data["groups"], CHUNKINGS[1]),
                  n_resamples=B)  # fmt: skip
    with pytest.raises(ValueError, match=r"'groups' .*GroupBootstrap.*Got None"):
        metric_ci(y, s, "roc_auc", resampler=GroupBootstrap(B))


def test_paired_ranked_comparison_defaults_to_poisson():
    """Two models' ROC AUC on dask: resampler=None runs the Poisson bootstrap
    (the only scheme that pairs two sorts), equal to the in-memory Poisson run."""
    data = _data()
    chunks = CHUNKINGS[1]
    y, s = data["y"], data["score"]
    s2 = s + np.sin(np.arange(s.shape[0]))
    got = compare_metrics(_dask(y, chunks), _dask(s, chunks), _dask(s2, chunks),
                          "roc_auc", n_resamples=B, random_state=SEED)  # fmt: skip
    want = compare_metrics(y, s, s2, "roc_auc", random_state=SEED,
                           resampler=PoissonBootstrap(B))  # fmt: skip
    assert got.result.resampler.startswith("PoissonBootstrap(")
    np.testing.assert_allclose(
        got.result.distribution, want.result.distribution, rtol=1e-12, atol=1e-15
    )


def test_compare_metrics_exact_pairs_the_models():
    """Two models share each replicate's counts (one partitioning): the
    difference of a model with itself is 0 in every replicate."""
    data = _data()
    y, p = _dask(data["y"], CHUNKINGS[1]), _dask(data["proba"], CHUNKINGS[1])
    for kw in ({}, {"stratify": True}):
        with pytest.warns(DegenerateDistributionWarning):
            res = compare_metrics(y, p, p, "log_loss", n_resamples=B, random_state=SEED,
                                  method="percentile", **kw)  # fmt: skip
        assert (res.distribution == 0.0).all()
