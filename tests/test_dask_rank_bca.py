"""BCa on dask collections for the average precision (unit weights) and for
the paired difference of two models' ROC AUC or average precision
(skboot.metrics._dask_rank_loo, skboot.metrics._dask_ranked): the
leave-one-out values from the sorted partitions equal scikit-learn's metric
with the row removed, and the intervals equal the in-memory BCa intervals;
with sample weights the average precision's leave-one-out values (the
in-memory kernel's series pass run per sorted partition) equal the kernel
with the row's weight zeroed, and its BCa is the default and equals the
in-memory one, for one model and the difference of two."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score
from test_dask_data import small_cluster  # noqa: F401
from test_dask_stats import (
    METRIC_CHUNKS,
    SEED,
    N,
    _labels,
    _metric_pair,
    _same_bca,
)

from skboot import UndefinedStatisticWarning, compare_metrics, metric_ci
from skboot._kernels.metric_loo import average_precision_kernel
from skboot._random import PURPOSE, check_random_state
from skboot.metrics._dask_loo import auc_carries
from skboot.metrics._dask_rank import rank_partition
from skboot.metrics._dask_rank_loo import (
    ap_loo_values,
    ap_offsets,
    ap_owned,
    ap_tops,
    ap_weighted_offsets,
    ap_weighted_owned,
    max_weight,
)
from skboot.resamplers import PoissonBootstrap

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


def _sorted_frames(y, score, cuts, sw=None):
    """The rows sorted by score as rank frames, cut at ``cuts``."""
    n = y.shape[0]
    order = np.argsort(score, kind="stable")
    frame = pd.DataFrame(
        {
            "score": score[order].astype(np.float64),
            "label": y[order].astype(np.float64),
            "weight": np.ones(n) if sw is None else sw[order],
            "row": order.astype(np.int64),
        }
    )
    return [frame.iloc[a:b] for a, b in itertools.pairwise([0, *cuts, n])]


def _ap_loo(y, score, cuts) -> np.ndarray:
    """AP without each row, from the sorted partitions cut at ``cuts``."""
    seed, gamma = check_random_state(SEED).stream(PURPOSE["poisson"])
    frames = _sorted_frames(y, score, cuts)
    carries = auc_carries([rank_partition(f, seed, gamma, 0) for f in frames])
    root = (0.0, float(y.sum()), float(y.shape[0] - y.sum()))
    full = average_precision_score(y, score)
    offsets = ap_offsets(
        [ap_owned(f, c, root) for f, c in zip(frames, carries, strict=True)]
    )
    out = np.full(y.shape[0], np.inf)
    for f, c, o in zip(frames, carries, offsets, strict=True):
        rows, delta = ap_loo_values(f, c, o, root, full)
        out[rows] = full + delta
    return out


def _brute_force(y, score) -> np.ndarray:
    """scikit-learn's average precision with each row removed (NaN where no
    positive is left, as the in-memory jackknife)."""
    n = y.shape[0]
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        out[i] = (
            average_precision_score(y[keep], score[keep]) if y[keep].any() else np.nan
        )
    return out


def test_ap_leave_one_out_equals_sklearn_without_the_row():
    """Random small data: ties (scores on coarse grids), groups of ties cut
    by one or more partition boundaries, empty partitions, and a single
    positive (removing it leaves no positive: NaN)."""
    gen = np.random.default_rng(11)
    for trial in range(150):
        n = int(gen.integers(2, 25))
        y = gen.integers(0, 2, n)
        if trial % 5 == 0 or not y.any():  # one positive
            y[:] = 0
            y[gen.integers(n)] = 1
        score = np.round(gen.normal(size=n) * gen.choice([0.3, 1.0, 4.0]))
        cuts = sorted(gen.integers(0, n + 1, int(gen.integers(0, 5))).tolist())
        got, want = _ap_loo(y, score, cuts), _brute_force(y, score)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_ap_leave_one_out_all_tied_and_all_positive():
    """One score for every row (one threshold) and no negative at all."""
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    for score in (np.zeros(7), np.arange(7.0)):
        for cuts in ([], [3], [1, 1, 6], [2, 4, 5]):
            np.testing.assert_allclose(
                _ap_loo(y, score, cuts), _brute_force(y, score), rtol=1e-13
            )
            ones = np.ones(7, dtype=np.int64)
            np.testing.assert_allclose(
                _ap_loo(ones, score, cuts), _brute_force(ones, score), rtol=1e-13
            )


@pytest.mark.parametrize("chunks", METRIC_CHUNKS, ids=str)
@pytest.mark.parametrize("pred", ["score", "coarse"])
def test_average_precision_bca_is_the_default_and_equals_in_memory(pred, chunks):
    """Average precision without sample weights: BCa by default, as in
    memory, with the in-memory acceleration and intervals."""
    got, want = _metric_pair("average_precision", _labels(), chunks, None, pred)
    _same_bca(got, want)


def test_average_precision_bca_undefined_jackknife_as_in_memory():
    """One positive row: the sample without it has no average precision;
    with undefined="omit" the same warnings as in memory (that jackknife
    sample named) and the same interval."""
    data = _labels()
    y = np.zeros(N, dtype=np.int64)
    y[123] = 1
    data = dict(data, y=y)
    kw = dict(undefined="omit")
    with pytest.warns(UndefinedStatisticWarning) as w0:
        want = _metric_pair("average_precision", data, (N,), None, "score", **kw)[1]
    for chunks in METRIC_CHUNKS[1:3]:
        with pytest.warns(UndefinedStatisticWarning) as w1:
            got, _ = _metric_pair(
                "average_precision", data, chunks, None, "score", **kw
            )
        assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
        assert any("jackknife (leave-one-out)" in str(w.message) for w in w1)
        ci, ci0 = got.confidence_interval(), want.confidence_interval()
        assert ci.method == ci0.method == "bca"
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)


def _compare_pair(metric, chunks, sw=None, **options):
    data = _labels()
    y, a, b = data["y"], data["score"], data["coarse"]
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED, **options)
    want = compare_metrics(y, a, b, metric, sample_weight=sw, **kw)

    def dsk(x):
        return da.from_array(x, chunks=(chunks,))

    dsw = None if sw is None else dsk(sw)
    got = compare_metrics(dsk(y), dsk(a), dsk(b), metric, sample_weight=dsw, **kw)
    return got, want


CASES = [
    ("roc_auc", None),
    ("roc_auc", "weight"),
    ("roc_auc", "fweight"),
    ("average_precision", None),
]


@pytest.mark.parametrize("chunks", METRIC_CHUNKS, ids=str)
@pytest.mark.parametrize("metric, weight", CASES)
def test_compare_metrics_ranked_bca_equals_in_memory(metric, weight, chunks):
    """The paired difference of two models (each sorted by its own scores,
    the leave-one-out values joined by row number): BCa by default, as in
    memory, with the in-memory acceleration, intervals and p-value."""
    sw = None if weight is None else _labels()[weight]
    got, want = _compare_pair(metric, chunks, sw)
    _same_bca(got, want)
    np.testing.assert_allclose(got.pvalue, want.pvalue, rtol=1e-10)


def test_compare_metrics_roc_auc_bca_undefined_jackknife_as_in_memory():
    """One positive row: neither model has a ROC AUC without it."""
    data = _labels()
    y = np.zeros(N, dtype=np.int64)
    y[300] = 1
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED, undefined="omit")
    args = (y, data["score"], data["coarse"], "roc_auc")
    with pytest.warns(UndefinedStatisticWarning) as w0:
        want = compare_metrics(*args, **kw)
    dsk = [da.from_array(a, chunks=97) for a in args[:3]]
    with pytest.warns(UndefinedStatisticWarning) as w1:
        got = compare_metrics(*dsk, "roc_auc", **kw)
    assert [str(w.message) for w in w1] == [str(w.message) for w in w0]
    ci, ci0 = got.confidence_interval(), want.confidence_interval()
    assert ci.method == ci0.method == "bca"
    np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)


@pytest.mark.slow
def test_paired_bca_on_a_cluster_equals_in_memory(small_cluster):  # noqa: F811
    """On worker processes (the row join goes through distributed's
    shuffle), the paired ROC AUC's BCa interval is the in-memory one."""
    got, want = _compare_pair("roc_auc", (97,) * 6 + (19,))
    _same_bca(got, want)


def _weighted_ap_loo(y, score, sw, cuts) -> np.ndarray:
    """Weighted AP without each row, from the sorted partitions cut at
    ``cuts`` (the functions the leave-one-out pass runs on each)."""
    seed, gamma = check_random_state(SEED).stream(PURPOSE["poisson"])
    frames = _sorted_frames(y, score, cuts, sw)
    parts = [rank_partition(f, seed, gamma, 0) for f in frames]
    carries = auc_carries(parts)
    tops = ap_tops(parts, [max_weight(f) for f in frames])
    root = (0.0, float(sw @ y), float(sw @ (1 - y)))
    full = _weighted_ap(y, score, sw)
    owned = [
        ap_weighted_owned(f, c, t)
        for f, c, t in zip(frames, carries, tops, strict=True)
    ]
    out = np.full(y.shape[0], np.inf)
    for f, c, t, o in zip(
        frames, carries, tops, ap_weighted_offsets(owned), strict=True
    ):
        rows, delta = ap_loo_values(f, c, o, root, full, t)
        out[rows] = full + delta
    return out


def _weighted_ap(y, score, sw) -> float:
    """The in-memory kernel's weighted average precision."""
    order = np.argsort(-score, kind="stable")
    s = score[order]
    starts = np.concatenate(([0], np.flatnonzero(np.diff(s)) + 1, [s.shape[0]]))
    y_sorted = y[order].astype(np.float64)
    return average_precision_kernel(order, y_sorted, starts.astype(np.int64), sw)


def _weighted_definition(y, score, sw) -> np.ndarray:
    """The weighted average precision with each row's weight zeroed in turn
    (NaN where no positive weight is left)."""
    out = np.empty(y.shape[0])
    for i in range(y.shape[0]):
        w = sw.copy()
        w[i] = 0.0
        out[i] = _weighted_ap(y, score, w) if w @ y > 0.0 else np.nan
    return out


def _weights(kind, gen, n):
    if kind == "unit":
        return np.ones(n)
    if kind == "integer":
        return gen.integers(0, 4, n).astype(np.float64)
    if kind == "lognormal":
        return gen.lognormal(0.0, 1.0, n)
    return gen.lognormal(0.0, 4.0, n)  # weights spanning orders of magnitude


@pytest.mark.parametrize("kind", ["unit", "integer", "lognormal", "spanning"])
def test_weighted_ap_leave_one_out_equals_the_kernel_without_the_row(kind):
    """Random small data: ties cut by one or more partition boundaries, empty
    partitions, zero weights, a single positive; weights from unit to
    spanning orders of magnitude (the groups sent to later partitions)."""
    gen = np.random.default_rng(5)
    for trial in range(120):
        n = int(gen.integers(2, 30))
        y = gen.integers(0, 2, n)
        if trial % 7 == 0 or not y.any():  # one positive
            y[:] = 0
            y[gen.integers(n)] = 1
        sw = _weights(kind, gen, n)
        if sw @ y == 0.0:
            sw[np.flatnonzero(y)[0]] = 1.0
        score = np.round(gen.normal(size=n) * gen.choice([0.3, 1.0, 4.0]))
        cuts = sorted(gen.integers(0, n + 1, int(gen.integers(0, 5))).tolist())
        got = _weighted_ap_loo(y, score, sw, cuts)
        want = _weighted_definition(y, score, sw)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)


def _weighted_pair(kind, chunks, compare=False):
    data = _labels()
    y, a, b = data["y"], data["score"], data["coarse"]
    sw = _weights(kind, np.random.default_rng(8), N)
    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED)
    mem = (a, b) if compare else (b,)
    func = compare_metrics if compare else metric_ci
    want = func(y, *mem, "average_precision", sample_weight=sw, **kw)

    def dsk(x):
        return da.from_array(x, chunks=chunks)

    got = func(dsk(y), *map(dsk, mem), "average_precision", sample_weight=dsk(sw), **kw)
    return got, want


@pytest.mark.parametrize("chunks", [(350, 251), (150, 1, 49, 250, 151)], ids=str)
@pytest.mark.parametrize("kind", ["unit", "integer", "lognormal"])
def test_weighted_average_precision_bca_equals_in_memory(kind, chunks):
    """With sample weights: BCa by default, as in memory, with the in-memory
    acceleration (to 1e-10) and intervals; the scores' ties are cut by the
    partition boundaries."""
    got, want = _weighted_pair(kind, (chunks,))
    _same_bca(got, want)


@pytest.mark.parametrize("kind", ["integer", "lognormal"])
def test_compare_metrics_weighted_average_precision_bca(kind):
    """The paired difference of two models' weighted average precision:
    BCa by default, with the in-memory acceleration, intervals and p-value."""
    got, want = _weighted_pair(kind, ((97,) * 6 + (19,),), compare=True)
    _same_bca(got, want)
    np.testing.assert_allclose(got.pvalue, want.pvalue, rtol=1e-10)


@pytest.mark.parametrize("compare", [False, True])
def test_weighted_average_precision_accepts_bca(compare):
    """With sample weights BCa is the default and an explicit "bca" is
    accepted (both were refused before: "bc" the default)."""
    data = _labels()
    y, a, b, sw = data["y"], data["score"], data["coarse"], data["fweight"]

    def dsk(x):
        return da.from_array(x, chunks=97)

    kw = dict(resampler=PoissonBootstrap(40), random_state=SEED)
    preds = (dsk(a), dsk(b)) if compare else (dsk(a),)
    func = compare_metrics if compare else metric_ci
    default = func(dsk(y), *preds, "average_precision", sample_weight=dsk(sw), **kw)
    chosen = func(
        dsk(y),
        *preds,
        "average_precision",
        sample_weight=dsk(sw),
        method="bca",
        **kw,
    )
    mem = (a, b) if compare else (a,)
    want = func(y, *mem, "average_precision", sample_weight=sw, **kw)
    assert default.method == chosen.method == "bca"
    ci0 = want.confidence_interval()
    for got in (default, chosen):
        ci = got.confidence_interval(method="bca")
        np.testing.assert_allclose([ci.low, ci.high], [ci0.low, ci0.high], rtol=1e-10)


@pytest.mark.parametrize("kind", ["integer", "lognormal"])
def test_weighted_average_precision_stratified_acceleration(kind):
    """Under the exact stratified scheme: the stratified jackknife's
    acceleration (each class's values centred), as in memory."""
    from skboot._run import stratified_jackknife
    from skboot.intervals import jackknife_acceleration

    data = _labels()
    y, score = data["y"], data["coarse"]
    sw = _weights(kind, np.random.default_rng(9), N)
    kw = dict(n_resamples=30, random_state=SEED, stratify=True)

    def dsk(x):
        return da.from_array(x, chunks=((150, 1, 49, 250, 151),))

    got = metric_ci(
        dsk(y), dsk(score), "average_precision", sample_weight=dsk(sw), **kw
    )
    want = metric_ci(y, score, "average_precision", sample_weight=sw, **kw)
    assert got.method == want.method == "bca"
    jk = stratified_jackknife(want.result.jackknife_values()[:, 0], y)
    moments = got.result._context.stat.jackknife_moments()
    np.testing.assert_allclose(
        jackknife_acceleration(moments.column(0)),
        jackknife_acceleration(jk),
        rtol=1e-10,
    )


@pytest.mark.slow
def test_weighted_bca_on_a_cluster_equals_in_memory(small_cluster):  # noqa: F811
    """On worker processes (the groups and series sums sent between sorted
    partitions), the weighted average precision's BCa is the in-memory one."""
    got, want = _weighted_pair("lognormal", ((97,) * 6 + (19,),))
    _same_bca(got, want)
