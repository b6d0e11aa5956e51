"""Metric intervals of predictions in dask collections: the data-parallel Poisson
bootstrap of :func:`~skboot.metrics.metric_ci` and
:func:`~skboot.metrics.compare_metrics`.

Row ``i``'s count in replicate ``b`` is a pure function of ``(key, b, i)``
(:mod:`skboot._kernels.poisson_rows`), so each partition of the inputs reduces
its rows alone and only per-replicate sums travel:

- the mean-type metrics (accuracy, log loss, Brier score, the regression
  errors; a ratio of two weighted sums): each partition prepares its per-row
  values with the in-memory ``prepare`` function (labels coded against the
  classes of the whole ``y_true``, found by a first pass that returns the
  distinct labels only) and returns their count-weighted sums,
  ``(B + 1) x k`` numbers (:func:`skboot._run._dask.partition_sums`), merged in
  the fixed tree of :func:`skboot._run._dask.tree_merge`.  Sums of integers
  (0/1 losses, integer sample weights) are exact, as in memory.
- the exact ROC AUC: dask sorts the rows by score, and the sorted partitions'
  Mann-Whitney sums are merged in order (:mod:`skboot.metrics._dask_rank`).

The result equals the in-memory ``metric_ci(..., resampler=PoissonBootstrap)``
on the same rows and seed (exactly on integer sums).  BCa: the mean-type
metrics' leave-one-out power sums, one more pass
(:mod:`skboot._run._dask_jackknife`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine import Statistic
from skboot._random import PURPOSE
from skboot._run import (
    Data,
    RunContext,
    check_distribution_memory,
    fit_resampler,
    resolve_resampler,
)
from skboot._run._dask import (
    NO_VALUES,
    loo_pass,
    merge_sums,
    partition_sums,
    tree_merge,
)
from skboot._run._dask_checks import (
    holds_dask,
    is_dask_collection,
    require_poisson,
    row_starts,
)
from skboot._run._dask_jackknife import LooRule, loo_partition, metric_rule
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments
from skboot.metrics._dask_confusion import (
    CONFUSION_METRICS,
    bin_partition,
    confusion_values,
    label_sets,
    merge_bins,
    probe_metric,
)
from skboot.metrics._dask_rank import (
    auc_values,
    merge_ranks,
    precision_carries,
    precision_partition,
    precision_values,
    rank_frame,
    rank_partition,
)
from skboot.metrics._inputs import check_options
from skboot.metrics._registry import METRICS
from skboot.metrics._resolve import ResolvedMetric, resolve_metric

__all__ = [
    "DASK_METHODS",
    "DASK_METRICS",
    "DaskMetricRun",
    "DaskMetricStatistic",
    "dask_metric_run",
    "holds_dask",
]

#: The metrics computed data-parallel from per-partition sums.
DASK_METRICS = tuple(
    sorted(
        (
            "accuracy",
            "average_precision",
            "brier_score",
            "log_loss",
            "mean_absolute_error",
            "mean_squared_error",
            "roc_auc",
            "root_mean_squared_error",
            *CONFUSION_METRICS,
        )
    )
)
#: The interval methods of predictions in dask collections ("bca": mean-type only)
DASK_METHODS = ("percentile", "basic", "normal", "bc", "bca")
_NO_BCA = ("percentile", "basic", "normal", "bc")
_OPTIONS = ("method", "level", "undefined", "n_jobs", "n_resamples")
_RANKED = ("average_precision", "roc_auc")
_MEAN_METRICS = tuple(
    m for m in DASK_METRICS if m not in (*_RANKED, *CONFUSION_METRICS)
)
_LABELLED = ("accuracy", "average_precision", "brier_score", "log_loss", "roc_auc")
_SMALL = (
    "For predictions that fit in memory, call .compute() on the collections and "
    "pass the numpy arrays or pandas objects instead."
)
#: Why the methods that revisit the rows are unavailable on such a result.
NO_ROWS = (
    "The predictions of this result stay in dask collections, and the "
    "leave-one-out values of this metric have no closed form from sums per "
    "partition: BCa is data-parallel for "
    + ", ".join(repr(m) for m in _MEAN_METRICS)
    + ". Use method 'percentile', 'basic', 'normal' or 'bc' (they need only the "
    "distribution), or call .compute() on the collections and pass the numpy "
    "arrays if they fit in memory."
)


@dataclass
class DaskMetricStatistic(Statistic):
    """What a result keeps of a data-parallel metric run: the estimate, no rows.
    For the mean-type metrics, ``loo`` holds the delayed per-partition tasks of
    the leave-one-out power sums (BCa's acceleration, one more pass, run the
    first time it is needed); None for the others (no BCa)."""

    has_jackknife: ClassVar[bool] = False
    data_unavailable: ClassVar[str | None] = NO_ROWS
    name: str = ""
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    cached_estimate: np.ndarray | None = None
    loo: list[Any] | None = field(default=None, repr=False)
    moments: JackknifeMoments | None = field(default=None, repr=False)

    def estimate(self) -> np.ndarray:
        assert self.cached_estimate is not None
        return self.cached_estimate.copy()

    def jackknife(self) -> np.ndarray:
        raise ValueError(NO_ROWS if self.loo is None else NO_VALUES)

    def jackknife_moments(self) -> JackknifeMoments | None:
        """The leave-one-out power sums (one pass the first time), or None."""
        if self.moments is None and self.loo is not None:
            self.moments = loo_pass(self.loo)
        return self.moments


@dataclass(frozen=True)
class DaskMetricRun:
    """A finished data-parallel metric run: the checked interval options, the
    resolved metric, the run's context, the (B, 1) distribution, the estimate
    and, for a comparison, the two models' estimates."""

    method: str
    level: float
    metric: ResolvedMetric
    context: RunContext
    distribution: np.ndarray
    estimate: np.ndarray
    each: tuple[float, float]


def _refuse(name: str, owner: str, text: str) -> ValueError:
    return value_error(name, owner, text + " " + _SMALL)


def _check_call(
    owner: str,
    arguments: dict[str, Any],
    *,
    groups: Any,
    stratify: Any,
    resampler: Any,
    method: str,
    device: Any,
) -> None:
    """Refuse, before any work, what the data-parallel run cannot do."""
    for name, value in arguments.items():
        if value is not None and not is_dask_collection(value):
            raise _refuse(
                name,
                owner,
                "must be a dask collection like the other inputs (all dask or "
                f"none). Got a {type(value).__name__}.",
            )
    if groups is not None or stratify:
        raise _refuse(
            "groups" if groups is not None else "stratify",
            owner,
            "must be None (stratify False) with predictions in dask collections: "
            "the data-parallel Poisson bootstrap has no strata or clusters.",
        )
    require_poisson(resampler, owner, "predictions in dask collections")
    if method not in DASK_METHODS:
        raise value_error(
            "method",
            owner,
            f"must be one of {', '.join(repr(m) for m in DASK_METHODS)} with "
            "predictions in dask collections (the studentized and calibrated "
            f"intervals would revisit every row). Got {method!r}.",
        )
    if device not in ("cpu", "auto"):
        raise value_error(
            "device",
            owner,
            "must be 'cpu' or 'auto' with predictions in dask collections (the "
            f"partitions run on the dask workers). Got {device!r}.",
        )


def _rows(value: Any, param: str, owner: str) -> Any:
    """``value`` as a dask array with known row chunks and whole rows."""
    if hasattr(value, "to_dask_array"):
        if value.ndim == 1 and not isinstance(value.dtype, np.dtype):
            value = value.astype(object)  # text labels: numpy objects per row
        arr = value.to_dask_array(lengths=True)  # one int per partition
    elif hasattr(value, "chunks") and hasattr(value, "ndim"):
        arr = value
        if any(np.isnan(c) for c in arr.chunks[0]):
            arr = arr.compute_chunk_sizes()
    else:
        raise _refuse(
            param,
            owner,
            f"must be a dask array, DataFrame or Series. Got a {type(value).__name__}.",
        )
    if arr.ndim not in (1, 2):
        raise value_error(
            param, owner, f"must be 1-D or 2-D. Got shape {arr.shape} instead."
        )
    if arr.ndim == 2 and len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})  # whole rows per partition, on the workers
    return arr


def _sizes(arr: Any) -> tuple[int, ...]:
    return tuple(int(c) for c in arr.chunks[0])


def _short(sizes: tuple[int, ...]) -> str:
    text = ", ".join(str(s) for s in sizes[:6])
    return f"({text}{', ...' if len(sizes) > 6 else ''}; {len(sizes)} partitions)"


@dataclass(frozen=True)
class _Inputs:
    """The inputs' row blocks (delayed), partition by partition."""

    y_true: list[Any]
    preds: list[list[Any]]
    weight: list[Any]
    starts: tuple[int, ...]
    n_samples: int
    pred_ndim: int


def _inputs(y_true: Any, preds: dict[str, Any], sw: Any, owner: str) -> _Inputs:
    """Aligned row blocks of every input, checked: same partition lengths."""
    yt = _rows(y_true, "y_true", owner)
    if yt.ndim != 1:
        raise value_error(
            "y_true", owner, f"must be 1-D. Got shape {yt.shape} instead."
        )
    arrays = {p: _rows(v, p, owner) for p, v in preds.items()}
    if sw is not None:
        arrays["sample_weight"] = _rows(sw, "sample_weight", owner)
    sizes = _sizes(yt)
    for param, arr in arrays.items():
        if _sizes(arr) != sizes:
            raise value_error(
                param,
                owner,
                "must be partitioned like y_true (row i of every input in the "
                f"same partition). Got partition lengths {_short(_sizes(arr))}; "
                f"y_true has {_short(sizes)}. Rechunk (dask arrays) or "
                "repartition (dask Series) one to match the other.",
            )
    n, starts = row_starts(yt, "y_true", owner)
    blocks = {p: list(a.to_delayed().ravel()) for p, a in arrays.items()}
    pred_blocks = [blocks[p] for p in preds]
    weight = blocks.get("sample_weight", [None] * len(sizes))
    ndim = max(arrays[p].ndim for p in preds)
    return _Inputs(list(yt.to_delayed().ravel()), pred_blocks, weight, starts, n, ndim)


def _pinned(
    name: str, options: dict[str, Any], classes: np.ndarray, ndim: int, owner: str
) -> dict[str, Any]:
    """The metric's options with the positive class (or the class list) of the
    whole ``y_true`` made explicit, so every partition codes labels alike;
    checked on the classes as the in-memory run checks them."""
    options = dict(options)
    if name == "accuracy":
        return options
    spec = METRICS[name]
    if ndim == 2 and name in ("brier_score", "log_loss"):
        if options.get("labels") is None:
            options["labels"] = classes
        return options
    probe = spec.prepare(classes, np.full(classes.shape[0], 0.5), **options)
    options["pos_label"] = probe.pos_label
    return options


def _partition_weights(sample_weight: Any, owner: str) -> np.ndarray:
    sw = np.asarray(sample_weight)
    if sw.dtype.kind not in "biuf":
        raise value_error(
            "sample_weight",
            owner,
            f"must hold real numbers. Got dtype {sw.dtype} instead.",
        )
    sw = sw.astype(np.float64)
    if not np.isfinite(sw).all() or (sw < 0).any():
        raise value_error(
            "sample_weight",
            owner,
            "must hold finite, non-negative weights. Got minimum "
            f"{float(np.nanmin(sw))!r} (found while reducing the partitions).",
        )
    return sw


@dataclass(frozen=True)
class _Job:
    """What every partition of a run needs: the registry name of the metric,
    its options, the stream ``(seed, gamma, B)``, the predictions' parameter
    names and the entry point's name (for messages)."""

    name: str
    options: dict[str, Any]
    stream: tuple[Any, Any, int]
    params: tuple[str, ...]
    owner: str


def mean_partition(
    y_true: Any, preds: list[Any], sample_weight: Any, start: int, job: _Job
) -> Any:
    """Count-weighted sums of one partition's per-row metric values (runs on a
    worker): columns the values of each prediction, times the sample weights
    and followed by them when given."""
    yt = np.asarray(y_true)
    m = yt.shape[0]
    cols = _metric_values(yt, preds, job)
    if sample_weight is not None:
        sw = _partition_weights(sample_weight, job.owner)
        cols = [c * sw for c in cols] + [sw]
    X = np.column_stack(cols) if m else np.empty((0, len(cols)))
    seed, gamma, B = job.stream
    return partition_sums(X, start, seed, gamma, B, False)


def _metric_values(yt: np.ndarray, preds: list[Any], job: _Job) -> list[np.ndarray]:
    """Each prediction's per-row metric values on one partition's rows."""
    cols: list[np.ndarray] = []
    for param, yp in zip(job.params, preds, strict=True):
        if yt.shape[0] == 0:
            cols.append(np.empty(0))
            continue
        try:
            prepared = METRICS[job.name].prepare(yt, np.asarray(yp), **job.options)
        except ValueError as exc:
            raise ValueError(f"{exc} (in '{param}' of {job.owner})") from exc
        cols.append(prepared.args[0])
    return cols


def mean_loo_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    job: _Job,
    rule: LooRule,
) -> Any:
    """The leave-one-out power sums of one partition's rows (on a worker)."""
    yt = np.asarray(y_true)
    cols = _metric_values(yt, preds, job)
    m = yt.shape[0]
    w = (
        np.ones(m)
        if sample_weight is None
        else _partition_weights(sample_weight, job.owner)
    )
    X = np.column_stack([*cols, w]) if m else np.empty((0, len(cols) + 1))
    return loo_partition(X, rule, start)


def _mean_values(
    total: Any, n_preds: int, weighted: bool, rms: bool
) -> list[np.ndarray]:
    """Each prediction's metric per replicate (row B: the original rows) from
    the merged sums, as the in-memory kernel forms the ratio: sum over sum."""
    T = total.s1 + total.sw[:, None] * total.shift[None, :]
    den = T[:, -1] if weighted else total.sw
    ok = den > 0.0
    safe = np.where(ok, den, 1.0)
    out = []
    for j in range(n_preds):
        v = np.where(ok, T[:, j] / safe, np.nan)
        out.append(np.sqrt(v) if rms else v)
    return out


def _per_partition(inputs: _Inputs, call: Any) -> list[Any]:
    """``call(y_true, preds, sample_weight, start)`` on the blocks of each
    partition, in order (``preds``: the block of each prediction)."""
    return [
        call(yt, [p[i] for p in inputs.preds], inputs.weight[i], start)
        for i, (yt, start) in enumerate(zip(inputs.y_true, inputs.starts, strict=True))
    ]


def _mean_run(
    inputs: _Inputs, job: _Job, sign: float
) -> tuple[list[np.ndarray], LooRule]:
    """The mean-type metrics from per-replicate weighted sums, and the rule of
    their leave-one-out values (the full weighted means, the total weight)."""
    import dask

    part = dask.delayed(mean_partition, pure=True)
    parts = _per_partition(inputs, lambda *blocks: part(*blocks, job))
    (total,) = dask.compute(tree_merge(parts, dask.delayed(merge_sums, pure=True)))
    if total.n_nonfinite:
        raise value_error(
            "y_pred",
            job.owner,
            f"gives {total.n_nonfinite} non-finite value(s) "
            "of the metric (found while reducing the partitions).",
        )
    weighted = inputs.weight[0] is not None
    rms = job.name == "root_mean_squared_error"
    p = len(job.params)
    B = job.stream[2]
    full = total.s1[B] + total.sw[B] * total.shift
    weight = full[-1] if weighted else total.sw[B]
    rule = metric_rule(rms, full[:p] / weight, float(weight), sign)
    return _mean_values(total, p, weighted, rms), rule


def _mean_loo(inputs: _Inputs, job: _Job, rule: LooRule) -> list[Any]:
    """The delayed leave-one-out power sums of each partition's rows."""
    import dask

    part = dask.delayed(mean_loo_partition, pure=True)
    return _per_partition(
        inputs, lambda yt, preds, sw, start: part(yt, preds, sw, start, job, rule)
    )


def _confusion_run(inputs: _Inputs, job: _Job) -> list[np.ndarray]:
    """The label metrics from per-replicate confusion matrices: the labels'
    pass, the options checked on them, then the binning pass."""
    import dask

    classes = label_sets(inputs.y_true, inputs.preds)
    probes = [
        probe_metric(job.name, job.options, classes[0], cp, param, job.owner)
        for cp, param in zip(classes[1:], job.params, strict=True)
    ]
    part = dask.delayed(bin_partition, pure=True)
    parts = _per_partition(inputs, lambda *blocks: part(*blocks, job.stream, classes))
    (totals,) = dask.compute(tree_merge(parts, dask.delayed(merge_bins, pure=True)))
    return confusion_values(probes, totals)


def _rank_run(inputs: _Inputs, job: _Job) -> list[np.ndarray]:
    """The exact ROC AUC of each prediction per replicate: one dask sort by
    score per prediction, then the rank sums merged in order."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    seed, gamma, B = job.stream
    positive = job.options["pos_label"]
    frame = dask.delayed(rank_frame, pure=True)
    ranks = dask.delayed(rank_partition, pure=True)
    merge = dask.delayed(merge_ranks, pure=True)
    meta = pd.DataFrame(
        {c: np.empty(0) for c in ("score", "label", "weight")}
        | {"row": np.empty(0, dtype=np.int64)}
    )
    roots = []
    for j, param in enumerate(job.params):
        frames = _per_partition(
            inputs,
            lambda yt, yp, sw, start, j=j, param=param: frame(
                yt, yp[j], sw, start, positive, param, job.owner, job.name
            ),
        )
        ordered = dd.from_delayed(frames, meta=meta, verify_meta=False)
        ordered = ordered.sort_values("score").to_delayed()
        parts = [ranks(p, seed, gamma, B) for p in ordered]
        root = tree_merge(parts, merge)
        if job.name == "roc_auc":
            roots.append(dask.delayed(auc_values, pure=True)(root))
            continue
        # average precision: a second pass over the sorted partitions, each
        # given the weights above it and those tied with its first score
        carries = dask.delayed(precision_carries, pure=True)(parts)
        share = dask.delayed(precision_partition, pure=True)
        shares = [share(p, seed, gamma, B, carries[i]) for i, p in enumerate(ordered)]
        total = tree_merge(shares, dask.delayed(np.add, pure=True))
        roots.append(dask.delayed(precision_values, pure=True)(total, root))
    return list(dask.compute(*roots))


def dask_metric_run(owner: str, call: dict[str, Any]) -> DaskMetricRun:
    """Check every argument (before any work), then run the data-parallel
    Poisson bootstrap of the metric on the dask scheduler in use.  ``call``:
    the arguments of ``owner`` by name, the predictions as ``preds`` (a dict
    of them by parameter name) and the metric's options as
    ``metric_options``."""
    y_true, preds = call["y_true"], call["preds"]
    chosen = call["method"]  # None: the default
    options = {k: call[k] for k in _OPTIONS} | {"method": chosen or "bca"}
    method, level = check_options(owner, **options, stratify=call["stratify"])
    sample_weight, resampler = call["sample_weight"], call["resampler"]
    _check_call(
        owner,
        {"y_true": y_true, **preds, "sample_weight": sample_weight},
        groups=call["groups"],
        stratify=call["stratify"],
        resampler=resampler,
        method=method,
        device=call.get("device", "cpu"),
    )
    resolved = resolve_metric(call["metric"], call["metric_options"], owner)
    if resolved.registry not in DASK_METRICS:
        raise _refuse(
            "metric",
            owner,
            f"must be one of {', '.join(repr(m) for m in DASK_METRICS)} (or the "
            "scikit-learn function or scorer of one) with predictions in dask "
            "collections: each partition reduces its rows to per-replicate sums. "
            f"Got {resolved.name!r}.",
        )
    if chosen is None and resolved.registry not in _MEAN_METRICS:
        method = "bc"  # the default where BCa is not data-parallel
    if method == "bca" and resolved.registry not in _MEAN_METRICS:
        raise value_error(
            "method",
            owner,
            f"must be one of {', '.join(repr(m) for m in _NO_BCA)} for the metric "
            f"{resolved.name!r} with predictions in dask collections: its "
            "leave-one-out values (BCa's acceleration) have no closed form from "
            "sums per partition (the default, method=None, gives 'bc' here); BCa "
            "is data-parallel for "
            f"{', '.join(repr(m) for m in _MEAN_METRICS)}. Got 'bca'.",
        )
    res, source = resolve_resampler(
        resampler, call["n_resamples"], call["random_state"], owner
    )
    res.check_params()
    inputs = _inputs(y_true, preds, sample_weight, owner)
    B = int(res.n_resamples)
    check_distribution_memory(B, 1, owner)
    # the plan needs only the row count: a (n, 0) placeholder holds no bytes
    res = fit_resampler(res, source, np.empty((inputs.n_samples, 0)), checked=True)
    seed, gamma = res.key_.stream(PURPOSE["poisson"])
    name = str(resolved.registry)
    options = dict(resolved.options)
    if name in _LABELLED:
        classes = label_sets(inputs.y_true, [])[0]
        options = _pinned(name, options, classes, inputs.pred_ndim, owner)
    job = _Job(name, options, (seed, gamma, B), tuple(preds), owner)
    loo = None
    if name in _RANKED:
        values = _rank_run(inputs, job)
    elif name in CONFUSION_METRICS:
        values = _confusion_run(inputs, job)
    else:
        values, rule = _mean_run(inputs, job, resolved.sign)
        loo = _mean_loo(inputs, job, rule)
    values = [resolved.sign * v for v in values]
    total = values[0] - values[1] if len(values) == 2 else values[0]
    each = (float(values[0][B]), float(values[-1][B]))
    est = np.array([total[B]])
    stat = DaskMetricStatistic(
        name=resolved.name, arrays=(np.empty(0),), cached_estimate=est, loo=loo
    )
    data = Data((np.empty(0),), inputs.n_samples)
    context = RunContext(stat, data, res.plan_, res, None)
    return DaskMetricRun(
        method, level, resolved, context, total[:B, None].copy(), est, each
    )
