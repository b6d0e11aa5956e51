"""metric_ci and compare_metrics on predictions in dask collections
(skboot.metrics._dask, skboot.metrics._dask_rank): equal to the in-memory
Poisson bootstrap on the same rows and seed (exactly where the sums are
integers), for any partitioning, ties of scores across partition boundaries
included; refused, before any work, where the run would need every row in one
place; and the rows never come to the client."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import max_error

# the two-worker loopback LocalCluster of the data-parallel tests
from test_dask_data import small_cluster  # noqa: F401

from skboot import UndefinedStatisticWarning, compare_metrics, metric_ci
from skboot._random import PURPOSE, check_random_state
from skboot._run._dask import tree_merge
from skboot.metrics import _dask_rank as ranks
from skboot.resamplers import (
    GroupBootstrap,
    MovingBlockBootstrap,
    PoissonBootstrap,
)

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

RTOL = 1e-12
B = 40
SEED = 20251201
N = 601
#: partition lengths of N rows: a 1-row and an empty partition among them
CHUNKINGS = [(N,), (150, 1, 0, 250, 200), (97,) * 6 + (19,)]
MEAN_METRICS = (
    "accuracy",
    "log_loss",
    "brier_score",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
)


def _data(n: int = N) -> dict[str, np.ndarray]:
    gen = np.random.default_rng(3)
    y = gen.integers(0, 2, n)
    # scores on a grid of 0.1: many ties, some cut by partition boundaries
    score = np.round(y + gen.normal(size=n), 1)
    other = np.round(y + gen.normal(scale=2.0, size=n), 1)
    proba = 1.0 / (1.0 + np.exp(-score))
    target = 100.0 + y + gen.normal(size=n)
    return {
        "y": y,
        "score": score,
        "other": other,
        "proba": proba,
        "label": (score > 0.5).astype(np.int64),
        "target": target,
        "weight": gen.integers(0, 4, n).astype(np.float64),
        "fweight": gen.uniform(0.1, 2.0, n),
    }


def _pred(metric: str, data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(y_true, y_pred) of ``metric``."""
    if metric == "accuracy":
        return data["y"], data["label"]
    if metric in ("log_loss", "brier_score"):
        return data["y"], data["proba"]
    if metric == "roc_auc":
        return data["y"], data["score"]
    return data["target"], data["target"] + data["score"]


def _dask(x: np.ndarray, chunks) -> object:
    return da.from_array(x, chunks=(chunks, *x.shape[1:]))


def _close(got, want) -> None:
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0.0)


def _both(metric, y, pred, chunks, **kwargs):
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="percentile")
    sw = kwargs.pop("sample_weight", None)
    want = metric_ci(y, pred, metric, sample_weight=sw, **kw, **kwargs)
    got = metric_ci(
        _dask(y, chunks),
        _dask(pred, chunks),
        metric,
        sample_weight=None if sw is None else _dask(sw, chunks),
        **kw,
        **kwargs,
    )
    return got, want


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("metric", MEAN_METRICS)
def test_mean_metrics_equal_in_memory(metric, chunks):
    y, pred = _pred(metric, _data())
    got, want = _both(metric, y, pred, chunks)
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)
    assert got.confidence_interval().low == pytest.approx(
        want.confidence_interval().low, rel=RTOL
    )


@pytest.mark.parametrize("weight", ["weight", "fweight"])
@pytest.mark.parametrize("metric", ["log_loss", "mean_absolute_error", "roc_auc"])
def test_sample_weight_equal_in_memory(metric, weight):
    data = _data()
    y, pred = _pred(metric, data)
    got, want = _both(metric, y, pred, CHUNKINGS[1], sample_weight=data[weight])
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_integer_sums_tie_exactly(chunks):
    """0/1 losses and integer weights: every sum is an integer, so the ratio is
    the in-memory one bit for bit (also the exact AUC: integers and halves)."""
    data = _data()
    for metric, kw in (
        ("accuracy", {}),
        ("accuracy", {"sample_weight": data["weight"]}),
        ("roc_auc", {}),
        ("roc_auc", {"sample_weight": data["weight"]}),
    ):
        y, pred = _pred(metric, data)
        got, want = _both(metric, y, pred, chunks, **kw)
        np.testing.assert_array_equal(got.distribution, want.distribution)
        assert got.estimate == want.estimate


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("chunks", [*CHUNKINGS, (1,) * 40 + (561,)])
def test_ranking_metrics_equal_in_memory(chunks, metric):
    y, pred = _pred("roc_auc", _data())
    got, want = _both(metric, y, pred, chunks)
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)


@pytest.mark.parametrize("weight", ["weight", "fweight"])
def test_average_precision_with_sample_weight(weight):
    data = _data()
    y, pred = _pred("roc_auc", data)
    got, want = _both(
        "average_precision", y, pred, CHUNKINGS[2], sample_weight=data[weight]
    )
    _close(got.distribution, want.distribution)
    _close(got.estimate, want.estimate)


def _sorted_frames(data, cuts):
    """The rank frame of all rows sorted by score, cut at ``cuts``."""
    y, score = data["y"], data["score"]
    frame = ranks.rank_frame(y, score, data["weight"], 0, 1, "y_pred", "test")
    frame = frame.sort_values("score", kind="stable").reset_index(drop=True)
    return [frame.iloc[a:b] for a, b in itertools.pairwise(cuts)]


def _in_memory(data, metric):
    """The in-memory run of ``metric`` on the scores, with integer weights."""
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="percentile")
    return metric_ci(
        data["y"], data["score"], metric, sample_weight=data["weight"], **kw
    )


def test_ties_cut_by_partition_boundaries():
    """Sorted partitions cut inside groups of tied scores (one group spanning
    three partitions, empty and 1-row partitions): the merged rank sums give
    the in-memory replicates exactly."""
    data = _data()
    scores = np.sort(data["score"])
    # cut in the middle of the largest group of ties, twice, and elsewhere
    values, starts, counts = np.unique(scores, return_index=True, return_counts=True)
    g = int(np.argmax(counts))
    assert counts[g] >= 6
    a = int(starts[g])
    cuts = [0, 5, 5, 6, a + 1, a + 3, a + 4, 400, N]
    assert len(set(scores[a : a + 4])) == 1  # three cuts inside one group
    key = check_random_state(SEED)
    seed, gamma = key.stream(PURPOSE["poisson"])
    parts = [
        ranks.rank_partition(f, seed, gamma, B) for f in _sorted_frames(data, cuts)
    ]
    root = tree_merge(parts, ranks.merge_ranks)
    want = _in_memory(data, "roc_auc")
    values = ranks.auc_values(root)
    np.testing.assert_array_equal(values[:B], want.distribution)
    assert values[B] == want.estimate
    # average precision: the second pass, given the weights above each
    # partition and those tied with its first score in earlier partitions
    frames = _sorted_frames(data, cuts)
    carries = ranks.precision_carries(parts)
    shares = [
        ranks.precision_partition(f, seed, gamma, B, c)
        for f, c in zip(frames, carries, strict=True)
    ]
    ap = ranks.precision_values(tree_merge(shares, np.add), root)
    want = _in_memory(data, "average_precision")
    _close(ap[:B], want.distribution)
    _close(ap[B], want.estimate)


def test_all_scores_tied_across_every_partition():
    """One score for every row: AUC 1/2 on every replicate, whatever the cut."""
    data = _data()
    data = dict(data, score=np.zeros(N))
    key = check_random_state(SEED)
    seed, gamma = key.stream(PURPOSE["poisson"])
    parts = [
        ranks.rank_partition(f, seed, gamma, B)
        for f in _sorted_frames(data, [0, 10, 10, 11, 300, N])
    ]
    np.testing.assert_array_equal(
        ranks.auc_values(tree_merge(parts, ranks.merge_ranks)), 0.5
    )


@pytest.mark.parametrize(
    "metric", ["roc_auc", "average_precision", "log_loss", "accuracy"]
)
def test_compare_metrics_equal_in_memory(metric):
    data = _data()
    y, pred = _pred("roc_auc" if metric == "average_precision" else metric, data)
    other = {
        "roc_auc": data["other"],
        "average_precision": data["other"],
        "log_loss": 1.0 / (1.0 + np.exp(-data["other"])),
        "accuracy": (data["other"] > 0.5).astype(np.int64),
    }[metric]
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="bc")
    want = compare_metrics(y, pred, other, metric, **kw)
    chunks = CHUNKINGS[1]
    got = compare_metrics(
        _dask(y, chunks), _dask(pred, chunks), _dask(other, chunks), metric, **kw
    )
    _close(got.distribution, want.distribution)
    _close(
        [got.estimate, got.estimate_a, got.estimate_b],
        [want.estimate, want.estimate_a, want.estimate_b],
    )
    assert got.pvalue == want.pvalue
    low, high = got.confidence_interval()
    assert (low, high) == pytest.approx(tuple(want.confidence_interval()), rel=RTOL)


def test_series_text_labels_and_probability_matrix():
    """dask Series with text labels; a matrix of class probabilities chunked
    by columns too (rechunked on the workers)."""
    data = _data()
    names = np.where(data["y"] == 1, "spam", "ham")
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="percentile")
    want = metric_ci(names, data["score"], "roc_auc", **kw)
    s_true = dd.from_pandas(pd.Series(names), npartitions=4)
    s_pred = dd.from_pandas(pd.Series(data["score"]), npartitions=4)
    got = metric_ci(s_true, s_pred, "roc_auc", **kw)
    _close(got.distribution, want.distribution)
    three = np.array(["a", "b", "c"])[data["y"] + (data["score"] > 1.5)]
    gen = np.random.default_rng(5)
    proba = gen.dirichlet(np.ones(3), size=N)
    want = metric_ci(three, proba, "log_loss", **kw)
    got = metric_ci(
        da.from_array(three, chunks=100),
        da.from_array(proba, chunks=(100, 2)),
        "log_loss",
        **kw,
    )
    _close(got.distribution, want.distribution)


def test_positive_class_is_that_of_the_whole_y_true():
    """A partition holding one class still codes it against the positive class
    of all rows (here 2, the greater of {0, 2})."""
    data = _data()
    y = np.sort(data["y"]) * 2  # first partitions all 0, last all 2
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="percentile")
    for metric in ("log_loss", "brier_score"):
        want = metric_ci(y, data["proba"], metric, **kw)
        got = metric_ci(_dask(y, 100), _dask(data["proba"], 100), metric, **kw)
        _close(got.distribution, want.distribution)


def test_scorer_sign_and_schedulers_agree():
    data = _data()
    y, pred = _pred("log_loss", data)
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, method="basic")
    want = metric_ci(y, pred, "neg_log_loss", **kw)
    runs = []
    for scheduler in ("synchronous", "threads"):
        with dask.config.set(scheduler=scheduler):
            runs.append(metric_ci(_dask(y, 50), _dask(pred, 50), "neg_log_loss", **kw))
    np.testing.assert_array_equal(runs[0].distribution, runs[1].distribution)
    _close(runs[0].distribution, want.distribution)
    assert runs[0].estimate < 0


def test_undefined_replicates_follow_the_policy():
    """A replicate with one class has no ROC AUC: raised, or omitted and
    counted as in memory."""
    y = np.array([0, 1, 0, 0, 0, 0])
    score = np.array([0.1, 0.35, 0.3, 0.2, 0.4, 0.5])
    kw = dict(resampler=PoissonBootstrap(200), random_state=SEED, method="percentile")
    with pytest.raises(ValueError, match="undefined"):
        metric_ci(_dask(y, 2), _dask(score, 2), "roc_auc", **kw)
    with pytest.warns(UndefinedStatisticWarning):
        want = metric_ci(y, score, "roc_auc", undefined="omit", **kw)
    with pytest.warns(UndefinedStatisticWarning):
        got = metric_ci(_dask(y, 2), _dask(score, 2), "roc_auc", undefined="omit", **kw)
    assert got.n_undefined == want.n_undefined > 0
    np.testing.assert_array_equal(got.undefined_replicates, want.undefined_replicates)
    np.testing.assert_array_equal(got.distribution, want.distribution)


def test_bca_and_file_round_trip(tmp_path):
    data = _data()
    y, pred = _pred("accuracy", data)
    res = metric_ci(
        _dask(y, 100),
        _dask(pred, 100),
        "accuracy",
        resampler=PoissonBootstrap(B),
        random_state=SEED,
        method="normal",
    )
    assert res.confidence_interval(method="bca").method == "bca"
    assert res.confidence_interval(method="bc").low <= res.estimate
    ap = metric_ci(
        _dask(y, 100),
        _dask(data["score"], 100),
        "average_precision",
        sample_weight=_dask(data["weight"], 100),
        resampler=PoissonBootstrap(B),
        random_state=SEED,
        method="bc",
    )
    assert ap.confidence_interval(method="bca").method == "bca"  # weighted AP
    grouped = metric_ci(
        _dask(y, 100),
        _dask(pred, 100),
        "accuracy",
        groups=_dask(np.arange(y.shape[0]) // 7, 100),
        n_resamples=B,
        random_state=SEED,
    )
    with pytest.raises(ValueError, match="other than GroupBootstrap"):
        grouped.confidence_interval(method="bca")
    path = tmp_path / "acc.skboot"
    res.save(path)
    back = type(res).load(path)
    assert back == res


def _args(**change):
    data = _data()
    base = dict(
        y_true=_dask(data["y"], 100),
        y_pred=_dask(data["score"], 100),
        metric="roc_auc",
        resampler=PoissonBootstrap(B),
        method="percentile",
    )
    base.update(change)
    return base


ERRORS = [
    (
        {"resampler": MovingBlockBootstrap(10, block_length=3)},
        r"'resampler' .* must be Bootstrap, StratifiedBootstrap, GroupBootstrap "
        r"or PoissonBootstrap .*Got MovingBlockBootstrap",
    ),
    ({"groups": np.zeros(N)}, r"'groups' .* must be a dask array or Series"),
    ({"groups": _dask(np.zeros(N), 100)}, r"'groups' .* must be None .*unless"),
    ({"stratify": True}, r"'stratify' .* must be False when a resampler is given"),
    (
        {"resampler": GroupBootstrap(10)},
        r"'groups' .* must be a dask collection .*GroupBootstrap.*Got None",
    ),
    (
        {
            "resampler": GroupBootstrap(10),
            "groups": _dask(np.zeros(N), 100),
            "method": "bca",
        },
        r"'method' .* must not be 'bca'.*delete-one-group jackknife",
    ),
    ({"device": "cuda"}, r"'device' .* must be 'cpu' or 'auto'"),
    ({"y_pred": np.zeros(N)}, r"'y_pred' .* must be a dask collection"),
    ({"metric": max_error}, r"'metric' .* must be one of 'accuracy'.*'max_error'"),
    ({"metric": lambda a, b: 0.0}, r"'metric' .* must be one of"),
    (
        {"method": "studentized"},
        r"'method' parameter of metric_ci must be one of .*'studentized'",
    ),
]


@pytest.mark.parametrize("change, match", ERRORS)
def test_errors_before_any_work(change, match, monkeypatch):
    import skboot.metrics._dask as mod

    def refuse(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(mod, "inputs_of", refuse)
    with pytest.raises(ValueError, match=match):
        metric_ci(**_args(**change))


def test_misaligned_partitions_named():
    data = _data()
    with pytest.raises(ValueError, match=r"'y_pred' .* must be partitioned like"):
        metric_ci(**_args(y_pred=_dask(data["score"], 150)))
    with pytest.raises(ValueError, match=r"'sample_weight' .* partitioned like"):
        metric_ci(**_args(sample_weight=_dask(data["weight"], 150)))


def test_value_checks_on_the_workers():
    data = _data()
    bad = data["proba"].copy()
    bad[N - 3] = 1.5
    with pytest.raises(ValueError, match="y_pred"):
        metric_ci(**_args(y_pred=_dask(bad, 100), metric="log_loss"))
    w = data["weight"].copy()
    w[7] = -1.0
    with pytest.raises(ValueError, match=r"'sample_weight' .* non-negative"):
        metric_ci(
            **_args(
                sample_weight=_dask(w, 100),
                metric="accuracy",
                y_pred=_dask(data["label"], 100),
            )
        )
    nan = data["score"].copy()
    nan[9] = np.nan
    with pytest.raises(ValueError, match="y_pred"):
        metric_ci(**_args(y_pred=_dask(nan, 100)))


@pytest.mark.parametrize("metric", ["roc_auc", "log_loss"])
def test_the_rows_never_come_to_the_client(metric, monkeypatch):
    """No conversion of a collection to numpy on the client."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("a dask array was converted to numpy")

    y, pred = _pred(metric, _data())
    yd, pd_ = _dask(y, 100), _dask(pred, 100)
    monkeypatch.setattr(type(yd), "__array__", refuse)
    with dask.config.set(scheduler="synchronous"):
        res = metric_ci(
            yd,
            pd_,
            metric,
            resampler=PoissonBootstrap(B),
            random_state=SEED,
            method="percentile",
        )
    assert res.distribution.shape == (B,)


LABEL_CASES = [
    ("balanced_accuracy", {}),
    ("f1", {}),
    ("precision", {"average": "macro"}),
    ("recall", {"average": "micro"}),
    ("f1", {"average": "macro", "labels": [0, 1]}),
]


@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
@pytest.mark.parametrize("metric, options", LABEL_CASES)
def test_label_metrics_from_confusion_matrices(metric, options, weight):
    """Balanced accuracy, precision, recall, F1 (binary, micro, macro, listed
    labels) from per-replicate confusion matrices: the in-memory replicates,
    exactly with integer weights."""
    data = _data()
    gen = np.random.default_rng(11)
    y = data["y"] + (data["score"] > 1.2)  # three classes
    pred = np.where(gen.random(N) < 0.7, y, gen.integers(0, 4, N))
    if metric == "f1" and not options:
        y, pred = (y > 0).astype(np.int64), (pred > 0).astype(np.int64)
    kw = dict(options) if weight is None else dict(options, sample_weight=data[weight])
    got, want = _both(metric, y, pred, CHUNKINGS[1], **kw)
    if weight == "fweight":
        _close(got.distribution, want.distribution)
    else:
        np.testing.assert_array_equal(got.distribution, want.distribution)
        assert got.estimate == want.estimate


def test_label_metric_options_checked_on_the_labels():
    """An option the in-memory run refuses is refused after the labels' pass,
    before the replicates: pos_label not a label of a binary metric."""
    data = _data()
    with pytest.raises(ValueError, match="pos_label"):
        metric_ci(
            **_args(
                metric="precision",
                y_pred=_dask(data["label"], 100),
                pos_label=7,
            )
        )


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["log_loss", "roc_auc"])
def test_losing_a_worker_mid_run_changes_nothing(metric, request):
    """A worker process killed while it reduces partitions: dask recomputes
    its tasks elsewhere and, the counts being a function of the
    rows, the result is the in-memory one."""
    import os
    import signal
    import threading
    import time

    client = request.getfixturevalue("small_cluster")
    n = 200_000
    y, pred = _pred(metric, _data(n))
    kw = dict(resampler=PoissonBootstrap(1500), random_state=SEED, method="percentile")
    want = metric_ci(y, pred, metric, **kw)
    pids = client.run(os.getpid)
    killed = []

    reducer = "mean_partition" if metric == "log_loss" else "rank_partition"

    def busy_worker() -> str | None:
        """A worker reducing a partition now, if any."""
        for worker, keys in client.processing().items():
            if any(reducer in str(k) for k in keys):
                return worker
        return None

    def kill_one():
        stop = time.monotonic() + 120.0
        while time.monotonic() < stop:
            worker = busy_worker()
            if worker is not None and worker in pids:
                os.kill(pids[worker], signal.SIGKILL)
                killed.append(worker)
                return
            time.sleep(0.005)

    killer = threading.Thread(target=kill_one)
    killer.start()
    got = metric_ci(_dask(y, 20_000), _dask(pred, 20_000), metric, **kw)
    killer.join()
    assert killed, "no partition was being reduced within two minutes"
    assert set(client.run(os.getpid).values()) != set(pids.values())
    _close(got.distribution, want.distribution)


# -- BCa: the acceleration from one more pass ---------------------------------


def _acceleration(res) -> float:
    from skboot.intervals import jackknife_acceleration

    stat = res.result._context.stat
    moments = stat.jackknife_moments()
    if moments is not None:
        return float(jackknife_acceleration(moments.column(0)))
    return float(jackknife_acceleration(res.result.jackknife_values()[:, 0]))


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("weight", [None, "weight", "fweight"])
@pytest.mark.parametrize("metric", MEAN_METRICS)
def test_mean_metrics_bca_equal_in_memory(metric, weight, chunks):
    """The default interval (BCa) of a mean-type metric, and of the paired
    difference of two models, equals the in-memory run's: the leave-one-out
    values are ``(A - w_i v_i) / (W - w_i)``, a zero-weight row's the full
    value."""
    data = _data()
    y, pred = _pred(metric, data)
    other = pred if metric == "accuracy" else pred + 0.05 * data["other"]
    if metric in ("log_loss", "brier_score"):
        other = np.clip(other, 0.01, 0.99)
    if metric == "accuracy":
        other = (data["other"] > 0.5).astype(np.int64)
    sw = None if weight is None else data[weight]
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED)
    dsw = None if sw is None else _dask(sw, chunks)
    want = metric_ci(y, pred, metric, sample_weight=sw, **kw)
    got = metric_ci(
        _dask(y, chunks), _dask(pred, chunks), metric, sample_weight=dsw, **kw
    )
    assert got.method == want.method == "bca"
    np.testing.assert_allclose(_acceleration(got), _acceleration(want), rtol=1e-10)
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)
    want = compare_metrics(y, pred, other, metric, sample_weight=sw, **kw)
    got = compare_metrics(
        _dask(y, chunks),
        _dask(pred, chunks),
        _dask(other, chunks),
        metric,
        sample_weight=dsw,
        **kw,
    )
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)
    assert got.pvalue == want.pvalue


def test_mean_metric_bca_undefined_jackknife_follows_the_policy():
    """One row holds all the weight: the jackknife sample without it is
    undefined; with undefined="omit" the same warnings as in memory (the
    replicates without it, then that jackknife sample) and the same interval."""
    from skboot import DegenerateDistributionWarning

    data = _data()
    y, pred = _pred("accuracy", data)
    sw = np.zeros(N)
    sw[7] = 3.0
    kw = dict(resampler=PoissonBootstrap(400), random_state=SEED, undefined="omit")
    with pytest.warns((UndefinedStatisticWarning, DegenerateDistributionWarning)) as w0:
        want = metric_ci(y, pred, "accuracy", sample_weight=sw, **kw)
    for chunks in (N, 97):
        with pytest.warns(
            (UndefinedStatisticWarning, DegenerateDistributionWarning)
        ) as w1:
            got = metric_ci(
                _dask(y, chunks),
                _dask(pred, chunks),
                "accuracy",
                sample_weight=_dask(sw, chunks),
                **kw,
            )
        assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
        assert any("jackknife (leave-one-out)" in str(w.message) for w in w1)
        assert got.confidence_interval() == want.confidence_interval()


@pytest.mark.parametrize(
    "metric, weighted",
    [
        ("roc_auc", False),
        ("f1", False),
        ("accuracy", False),
        ("average_precision", False),
        ("average_precision", True),
    ],
)
def test_the_default_method_works_on_dask(metric, weighted):
    """The default interval runs on dask collections: BCa, as in memory
    (the average precision with sample weights included)."""
    data = _data()
    y, pred = _pred(metric, data)
    if metric == "f1":
        y, pred = data["y"], data["label"]
    if metric == "average_precision":
        y, pred = data["y"], data["score"]
    sw = data["weight"] if weighted else None
    kw = dict(resampler=PoissonBootstrap(B), random_state=SEED, sample_weight=sw)
    dsw = None if sw is None else _dask(sw, 100)
    got = metric_ci(
        _dask(y, 100), _dask(pred, 100), metric, **(kw | {"sample_weight": dsw})
    )
    expected = "bca"
    want = metric_ci(y, pred, metric, method=expected, **kw)
    assert got.method == got.confidence_interval().method == expected
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)
    assert metric_ci(y, pred, metric, **kw).method == "bca"  # in memory: BCa
