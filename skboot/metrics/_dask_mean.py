"""The worker side of the mean-type metrics of predictions in dask collections
(accuracy, log loss, Brier score, the regression errors): each partition's
per-row metric values, their count-weighted sums and leave-one-out power sums,
and the check of a partition's sample weights.

A light module: a dask worker that unpickles these functions imports the
metric's ``prepare`` function and the kernels, not scikit-learn
(``tests/test_lazy_imports.py``).  The client side, which builds a
:class:`MetricJob` and merges the sums, is :mod:`skboot.metrics._dask`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._run._dask_counts import ExactCounts, GroupCounts
from skboot._run._dask_exact_rows import (
    exact_partition,
    group_partition,
    strata_loo_partition,
)
from skboot._run._dask_jackknife import LooRule, loo_partition
from skboot._run._dask_sums import partition_sums
from skboot._validation import value_error
from skboot.metrics._registry import METRICS

__all__ = [
    "MetricJob",
    "mean_loo_partition",
    "mean_partition",
    "partition_weights",
]


@dataclass(frozen=True)
class MetricJob:
    """What every partition of a run needs: the registry name of the metric,
    its options, the stream ``(seed, gamma, B)``, the predictions' parameter
    names and the entry point's name (for messages)."""

    name: str
    options: dict[str, Any]
    stream: tuple[Any, Any, int]
    params: tuple[str, ...]
    owner: str


def mean_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    job: MetricJob,
    stream: Any = None,
    labels: Any = None,
) -> Any:
    """Count-weighted sums of one partition's per-row metric values (runs on a
    worker): columns the values of each prediction, times the sample weights
    and followed by them when given.  ``stream``: None or a tuple for the
    Poisson counts, else the partition's exact or group counts (``labels``:
    its strata or group ids)."""
    yt = np.asarray(y_true)
    m = yt.shape[0]
    cols = _metric_values(yt, preds, job)
    if sample_weight is not None:
        sw = partition_weights(sample_weight, job.owner)
        cols = [c * sw for c in cols] + [sw]
    X = np.column_stack(cols) if m else np.empty((0, len(cols)))
    if isinstance(stream, ExactCounts):
        ex = stream
        return exact_partition(
            X, labels, ex.labels, ex.draws, ex.seeds, ex.gamma, False
        )
    if isinstance(stream, GroupCounts):
        gr = stream
        return group_partition(X, labels, gr.seed, gr.gamma, gr.n_resamples, False)
    seed, gamma, B = job.stream
    return partition_sums(X, start, seed, gamma, B, False)


def _metric_values(
    yt: np.ndarray, preds: list[Any], job: MetricJob
) -> list[np.ndarray]:
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
    job: MetricJob,
    rule: LooRule,
    classes: np.ndarray | None = None,
) -> Any:
    """The leave-one-out power sums of one partition's rows (on a worker);
    with ``classes``, those of each class of ``y_true`` (the stratified
    jackknife)."""
    yt = np.asarray(y_true)
    cols = _metric_values(yt, preds, job)
    m = yt.shape[0]
    w = (
        np.ones(m)
        if sample_weight is None
        else partition_weights(sample_weight, job.owner)
    )
    X = np.column_stack([*cols, w]) if m else np.empty((0, len(cols) + 1))
    if classes is not None:
        return strata_loo_partition(X, yt, classes, rule)
    return loo_partition(X, rule, start)


def partition_weights(sample_weight: Any, owner: str) -> np.ndarray:
    """One partition's sample weights, checked (on a worker)."""
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
