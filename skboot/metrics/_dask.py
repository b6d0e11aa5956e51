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
on the same rows and seed (exactly on integer sums).  BCa: the leave-one-out
power sums of closed forms evaluated where the rows live, one more pass
(:mod:`skboot._run._dask_jackknife`, :mod:`skboot.metrics._dask_loo`,
:mod:`skboot.metrics._dask_ranked`); every metric here but the average
precision with sample weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine import Statistic
from skboot._run import Data, RunContext, check_distribution_memory
from skboot._run._dask import (
    NO_VALUES,
    loo_pass,
    merge_sums,
    tree_merge,
)
from skboot._run._dask_checks import holds_dask
from skboot._run._dask_exact import strata_moments
from skboot._run._dask_exact_rows import (
    merge_strata_loo,
)
from skboot._run._dask_jackknife import LooRule, metric_rule
from skboot._run._dask_progress import dask_compute
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
from skboot.metrics._dask_inputs import (
    DASK_METHODS,
    Inputs,
    check_call,
    inputs_of,
    per_partition,
    refuse,
)
from skboot.metrics._dask_loo import (
    confusion_loo_partition,
    r2_loo_partition,
    r2_rule,
)
from skboot.metrics._dask_mean import MetricJob, mean_loo_partition, mean_partition
from skboot.metrics._dask_r2 import merge_r2, r2_partition, r2_values
from skboot.metrics._dask_ranked import rank_loo_tasks, rank_run
from skboot.metrics._dask_schemes import (
    RowScheme,
    check_ranked,
    check_scheme,
    interval_method,
    per_partition_scheme,
    row_scheme,
)
from skboot.metrics._inputs import check_options, metric_resampler
from skboot.metrics._registry import METRICS
from skboot.metrics._resolve import ResolvedMetric, resolve_metric
from skboot.resamplers import PoissonBootstrap

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
            "r2",
            "roc_auc",
            "root_mean_squared_error",
            *CONFUSION_METRICS,
        )
    )
)
_OPTIONS = ("method", "level", "undefined", "n_jobs", "n_resamples")
_RANKED = ("average_precision", "roc_auc")
_MEAN_METRICS = tuple(
    m for m in DASK_METRICS if m not in (*_RANKED, *CONFUSION_METRICS, "r2")
)
_LABELLED = ("accuracy", "average_precision", "brier_score", "log_loss", "roc_auc")
#: Why the methods that revisit the rows are unavailable on such a result.
NO_ROWS = (
    "The predictions of this result stay in dask collections, so the methods "
    "that need every row in one place are unavailable. Use method "
    "'percentile', 'basic', 'normal' or 'bc' (they need only the "
    "distribution), or 'bca' with a resampler other than GroupBootstrap (the "
    "leave-one-out values of every metric, with or without sample weights, "
    "are computed on the partitions; those of ROC AUC and the average "
    "precision on the partitions sorted by score). Or call .compute() on the "
    "collections and pass the numpy arrays if they fit in memory."
)


@dataclass
class DaskMetricStatistic(Statistic):
    """What a result keeps of a data-parallel metric run: the estimate, no rows.
    Where BCa is data-parallel, ``loo`` holds the delayed per-partition tasks
    of the leave-one-out power sums (BCa's acceleration, one more pass, run
    the first time it is needed); None for the others (no BCa)."""

    has_jackknife: ClassVar[bool] = False
    data_unavailable: ClassVar[str | None] = NO_ROWS
    name: str = ""
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    cached_estimate: np.ndarray | None = None
    loo: list[Any] | None = field(default=None, repr=False)
    moments: JackknifeMoments | None = field(default=None, repr=False)
    #: ``loo`` holds each class's sums (the stratified jackknife)
    stratified: bool = False

    def estimate(self) -> np.ndarray:
        assert self.cached_estimate is not None
        return self.cached_estimate.copy()

    def jackknife(self) -> np.ndarray:
        raise ValueError(NO_ROWS if self.loo is None else NO_VALUES)

    def jackknife_moments(self) -> JackknifeMoments | None:
        """The leave-one-out power sums (one pass the first time), or None."""
        if self.moments is None and self.loo is not None:
            if self.stratified:
                import dask

                root = tree_merge(self.loo, dask.delayed(merge_strata_loo, pure=True))
                (total,) = dask_compute(root)
                self.moments = strata_moments(total)
            else:
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


def _mean_run(
    inputs: Inputs, job: MetricJob, sign: float, scheme: RowScheme
) -> tuple[list[np.ndarray], LooRule]:
    """The mean-type metrics from per-replicate weighted sums, and the rule of
    their leave-one-out values (the full weighted means, the total weight)."""
    import dask

    part = dask.delayed(mean_partition, pure=True)
    parts = per_partition_scheme(
        inputs,
        scheme,
        lambda yt, yp, sw, start, st, lab: part(yt, yp, sw, start, job, st, lab),
    )
    total = _merged(parts, merge_sums, job.owner)
    weighted = inputs.weight[0] is not None
    rms = job.name == "root_mean_squared_error"
    p = len(job.params)
    B = job.stream[2]
    full = total.s1[B] + total.sw[B] * total.shift
    weight = full[-1] if weighted else total.sw[B]
    rule = metric_rule(rms, full[:p] / weight, float(weight), sign)
    return _mean_values(total, p, weighted, rms), rule


def _mean_loo(
    inputs: Inputs, job: MetricJob, rule: LooRule, classes: np.ndarray | None
) -> list[Any]:
    """The delayed leave-one-out power sums of each partition's rows (per
    class of ``y_true`` with ``classes``: the stratified jackknife)."""
    import dask

    part = dask.delayed(mean_loo_partition, pure=True)
    return per_partition(
        inputs,
        lambda yt, preds, sw, start: part(yt, preds, sw, start, job, rule, classes),
    )


def _confusion_run(
    inputs: Inputs, job: MetricJob, scheme: RowScheme
) -> tuple[list[np.ndarray], Any]:
    """The label metrics from per-replicate confusion matrices: the labels'
    pass, the options checked on them, then the binning pass; and what the
    leave-one-out values need (the label sets, the packed metrics, the
    confusion matrices of the original rows)."""
    import dask

    classes = label_sets(inputs.y_true, inputs.preds)
    probes = [
        probe_metric(job.name, job.options, classes[0], cp, param, job.owner)
        for cp, param in zip(classes[1:], job.params, strict=True)
    ]
    part = dask.delayed(bin_partition, pure=True)
    parts = per_partition_scheme(
        inputs,
        scheme,
        lambda yt, yp, sw, start, st, lab: part(yt, yp, sw, start, st, classes, lab),
    )
    (totals,) = dask.compute(tree_merge(parts, dask.delayed(merge_bins, pure=True)))
    tables = (classes, probes, [t[-1] for t in totals])
    return confusion_values(probes, totals), tables


def _r2_run(
    inputs: Inputs, job: MetricJob, scheme: RowScheme
) -> tuple[list[np.ndarray], Any]:
    """R2 of each prediction per replicate from centred weighted sums
    (:mod:`skboot.metrics._dask_r2`), and what its leave-one-out values need
    (the merged sums, each prediction's R2 of the original rows,
    ``force_finite``)."""
    import dask

    part = dask.delayed(r2_partition, pure=True)
    spec = (job.params, job.options, job.owner)
    parts = per_partition_scheme(
        inputs,
        scheme,
        lambda yt, yp, sw, start, st, lab: part(yt, yp, sw, start, st, *spec, lab),
    )
    total = _merged(parts, merge_r2, job.owner)
    force = bool(job.options.get("force_finite", False))
    values = r2_values(total, len(job.params), force)
    return values, (total, np.array([v[-1] for v in values]), force)


def _loo_tasks(
    inputs: Inputs,
    job: MetricJob,
    extra: Any,
    ref: float,
    sign: float,
    strata: np.ndarray | None = None,
):
    """The delayed leave-one-out power sums of the partitions of a label
    metric, R2 (:mod:`skboot.metrics._dask_loo`) or a ranking metric
    (:mod:`skboot.metrics._dask_ranked`); with ``strata`` (the classes of
    ``y_true``), those of each class (the stratified jackknife)."""
    import dask

    name = job.name
    if name == "r2":
        sums, r2, force = extra
        rule = r2_rule(sums, r2, force, sign, ref)
        task = dask.delayed(r2_loo_partition, pure=True)
        spec = (job.params, job.options, job.owner)
        return per_partition(
            inputs,
            lambda yt, yp, sw, start: task(yt, yp, sw, start, rule, spec, strata),
        )
    if name in CONFUSION_METRICS:
        part = dask.delayed(confusion_loo_partition, pure=True)
        return per_partition(
            inputs,
            lambda yt, yp, sw, start: part(yt, yp, sw, start, extra, ref, sign, strata),
        )
    return rank_loo_tasks(name, extra, ref, sign, strata is not None)


def _checked_resampler(
    owner: str, call: dict[str, Any], paired_ranks: bool
) -> tuple[Any, Any]:
    """The resampler to run and the object its key is drawn from, as the
    in-memory run resolves them (``stratify``, ``groups``), checked.  With
    ``paired_ranks`` (two models' ROC AUC or average precision) the default
    is :class:`PoissonBootstrap`: only counts drawn from the original row
    number give both models' sorted rows the same replicates."""
    resampler = call["resampler"]
    default = resampler is None and not call["stratify"] and call["groups"] is None
    if paired_ranks and default:
        resampler = PoissonBootstrap()
    res, source = metric_resampler(
        resampler,
        call["stratify"],
        call["groups"],
        call["n_resamples"],
        call["random_state"],
        owner,
    )
    check_scheme(res, owner, call["groups"])
    res.check_params()
    return res, source


def dask_metric_run(owner: str, call: dict[str, Any]) -> DaskMetricRun:
    """Check every argument (before any work), then run the data-parallel
    bootstrap of the metric on the dask scheduler in use.  ``call``: the
    arguments of ``owner`` by name, the predictions as ``preds`` (a dict of
    them by parameter name) and the metric's options as ``metric_options``."""
    y_true, preds = call["y_true"], call["preds"]
    chosen = call["method"]  # None: the default
    options = {k: call[k] for k in _OPTIONS} | {"method": chosen or "bca"}
    method, level = check_options(owner, **options, stratify=call["stratify"])
    sample_weight = call["sample_weight"]
    check_call(
        owner,
        {"y_true": y_true, **preds, "sample_weight": sample_weight},
        groups=call["groups"],
        method=method,
        device=call.get("device", "cpu"),
    )
    resolved = resolve_metric(call["metric"], call["metric_options"], owner)
    if resolved.registry not in DASK_METRICS:
        raise refuse(
            "metric",
            owner,
            f"must be one of {', '.join(repr(m) for m in DASK_METRICS)} (or the "
            "scikit-learn function or scorer of one) with predictions in dask "
            "collections: each partition reduces its rows to per-replicate sums. "
            f"Got {resolved.name!r}.",
        )
    name = str(resolved.registry)
    res, source = _checked_resampler(owner, call, name in _RANKED and len(preds) == 2)
    method = interval_method(
        owner, chosen, method, resolved.name, name, sample_weight is not None, res
    )
    if name in _RANKED:
        check_ranked(owner, res, len(preds), resolved.name)
    inputs = inputs_of(y_true, preds, sample_weight, owner)
    B = int(res.n_resamples)
    check_distribution_memory(B, 1, owner)
    res, scheme = row_scheme(res, source, inputs, call["groups"], owner)
    options = dict(resolved.options)
    if name in _LABELLED:
        classes = label_sets(inputs.y_true, [])[0]
        options = _pinned(name, options, classes, inputs.pred_ndim, owner)
    stream = scheme.streams[0] if scheme.kind == "poisson" else (None, None, B)
    job = MetricJob(name, options, stream, tuple(preds), owner)
    values, loo, extra = _values(inputs, job, scheme, sample_weight, resolved.sign)
    values = [resolved.sign * v for v in values]
    total = values[0] - values[1] if len(values) == 2 else values[0]
    each = (float(values[0][B]), float(values[-1][B]))
    est = np.array([total[B]])
    stratified = scheme.kind == "stratified"
    if scheme.kind == "group":
        loo = extra = None  # no data-parallel jackknife (refused up front)
    if extra is not None:
        loo = _loo_tasks(
            inputs, job, extra, float(est[0]), resolved.sign, scheme.classes
        )
    stat = DaskMetricStatistic(
        name=resolved.name,
        arrays=(np.empty(0),),
        cached_estimate=est,
        loo=loo,
        stratified=stratified,
    )
    data = Data((np.empty(0),), inputs.n_samples)
    context = RunContext(stat, data, res.plan_, res, None)
    return DaskMetricRun(
        method, level, resolved, context, total[:B, None].copy(), est, each
    )


def _values(
    inputs: Inputs, job: MetricJob, scheme: RowScheme, sample_weight: Any, sign: float
) -> tuple[list[np.ndarray], list[Any] | None, Any]:
    """Each prediction's metric per replicate (row B: the original rows), the
    mean-type metrics' leave-one-out tasks, and what the others' need."""
    name = job.name
    if name in _RANKED:
        values, extra = rank_run(inputs, job, True, scheme)
        return values, None, extra
    if name in CONFUSION_METRICS:
        values, extra = _confusion_run(inputs, job, scheme)
        return values, None, extra
    if name == "r2":
        values, extra = _r2_run(inputs, job, scheme)
        return values, None, extra
    values, rule = _mean_run(inputs, job, sign, scheme)
    return values, _mean_loo(inputs, job, rule, scheme.classes), None


def _merged(parts: list[Any], merge: Any, owner: str) -> Any:
    """The partition sums ``parts`` merged in the fixed tree and computed,
    refused if the metric was not finite on some row."""
    import dask

    (total,) = dask.compute(tree_merge(parts, dask.delayed(merge, pure=True)))
    if total.n_nonfinite:
        raise value_error(
            "y_pred",
            owner,
            f"gives {total.n_nonfinite} non-finite value(s) "
            "of the metric (found while reducing the partitions).",
        )
    return total
