"""The label metrics of predictions in a dask collection (balanced accuracy,
precision, recall, F1), data-parallel: functions of a weighted confusion
matrix.

1. A first pass returns the distinct labels of ``y_true`` and of each
   prediction (:func:`label_sets`), nothing else.
2. Each partition bins its rows by their cell ``(true label, predicted
   label)`` of the confusion matrix and returns, per replicate, the
   count-weighted total of every cell (:func:`bin_partition`,
   :func:`skboot._kernels.poisson_metric_rows.poisson_bin_sums`), merged by
   addition in the fixed tree of :func:`skboot._run._dask.tree_merge`.
3. The metric of a replicate is the in-memory kernel evaluated on one
   pseudo-row per cell, weighted by the cell's total: the in-memory metric,
   prepared (and its options checked) on the cells' labels, sums its weights
   by class exactly so.  Integer weights give integer cell totals, exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._kernels.exact_counts import counted_bin_sums
from skboot._kernels.metric import metric_chunk
from skboot._kernels.poisson_metric_rows import poisson_bin_sums
from skboot._run._dask_counts import count_chunks, n_resamples_of
from skboot._run._dask_sums import tree_merge
from skboot.metrics._registry import METRICS, pack

__all__ = [
    "CONFUSION_METRICS",
    "bin_partition",
    "confusion_values",
    "label_sets",
    "merge_bins",
]

#: The metrics computed from per-replicate confusion matrices.
CONFUSION_METRICS = ("balanced_accuracy", "f1", "precision", "recall")


def label_sets(y_true: list[Any], preds: list[list[Any]]) -> list[np.ndarray]:
    """The sorted distinct labels of ``y_true`` and of each prediction, from
    their row blocks (delayed): one pass, merged in a fixed tree."""
    import dask

    unique = dask.delayed(np.unique, pure=True)
    union = dask.delayed(np.union1d, pure=True)
    roots = [
        tree_merge([unique(b) for b in blocks], union) for blocks in [y_true, *preds]
    ]
    return [np.asarray(r) for r in dask.compute(*roots)]


def _cells(classes_true: np.ndarray, classes_pred: np.ndarray) -> tuple[Any, Any]:
    """One pseudo-row per cell of the confusion matrix, true label major."""
    kp = classes_pred.shape[0]
    return np.repeat(classes_true, kp), np.tile(classes_pred, classes_true.shape[0])


def bin_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    stream: Any,
    classes: list[np.ndarray],
    labels: Any = None,
) -> list[np.ndarray]:
    """Per prediction, the (B + 1, cells) count-weighted confusion matrices of
    one partition (runs on a worker); ``stream``: the Poisson ``(seed, gamma,
    B)``, or the partition's exact or group counts (``labels``: its strata or
    group ids, :func:`skboot._run._dask_counts.count_chunks`)."""
    yt = np.asarray(y_true)
    m = yt.shape[0]
    B = n_resamples_of(stream)
    sw = np.ones(m) if sample_weight is None else np.asarray(sample_weight, float)
    sw = np.ascontiguousarray(sw)
    rows_true = np.searchsorted(classes[0], yt)
    out = []
    all_bins = []
    for yp, cp in zip(preds, classes[1:], strict=True):
        kp = cp.shape[0]
        bins = rows_true * kp + np.searchsorted(cp, np.asarray(yp))
        all_bins.append(np.ascontiguousarray(bins.astype(np.int64)))
        out.append(np.empty((B + 1, classes[0].shape[0] * kp)))
    if isinstance(stream, tuple):
        seed, gamma, _ = stream
        for bins, sums in zip(all_bins, out, strict=True):
            poisson_bin_sums(bins, sw, start, seed, gamma, sums)
        return out
    for bins, sums in zip(all_bins, out, strict=True):
        sums[B] = np.bincount(bins, weights=sw, minlength=sums.shape[1])
        sums[:B] = 0.0
    if m:
        for k0, counts in count_chunks(stream, labels, m):
            for bins, sums in zip(all_bins, out, strict=True):
                counted_bin_sums(bins, sw, counts, k0, sums)
    return out


def merge_bins(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """The confusion matrices of the rows of ``a`` and ``b``."""
    return [x + y for x, y in zip(a, b, strict=True)]


def confusion_values(
    probes: list[tuple[Any, ...]], totals: list[np.ndarray]
) -> list[np.ndarray]:
    """Each prediction's metric per replicate: its kernel (``probes``, from
    :func:`probe_metric`) on the cells weighted by their totals."""
    out = []
    for probe, W in zip(probes, totals, strict=True):
        values = np.empty((W.shape[0], 1))
        cells = np.ones(W.shape[1])
        metric_chunk(probe, probe, False, cells, False, np.ascontiguousarray(W), values)
        out.append(values[:, 0])
    return out


def probe_metric(
    name: str,
    options: dict[str, Any],
    classes_true: np.ndarray,
    classes_pred: np.ndarray,
    param: str,
    owner: str,
) -> tuple[Any, ...]:
    """The packed metric prepared on the cells' labels (its checks of the
    labels and options are those of the in-memory run on these label sets)."""
    cell_true, cell_pred = _cells(classes_true, classes_pred)
    try:
        prepared = METRICS[name].prepare(cell_true, cell_pred, **options)
    except ValueError as exc:
        if param == "y_pred":
            raise
        raise ValueError(f"{exc} (in '{param}' of {owner})") from exc
    return pack(prepared)
