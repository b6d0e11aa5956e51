"""The ranking metrics (ROC AUC, average precision) of predictions in dask
collections: the bootstrap's pass over each model's partitions sorted by
score (:mod:`skboot.metrics._dask_rank`), and the tasks of BCa's
leave-one-out pass (:mod:`skboot.metrics._dask_loo`,
:mod:`skboot.metrics._dask_rank_loo`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from skboot._run._dask_exact import merge_layout
from skboot._run._dask_sums import tree_merge
from skboot.metrics._dask_inputs import Inputs, per_partition
from skboot.metrics._dask_loo import auc_carries, auc_loo_partition, auc_loo_values
from skboot.metrics._dask_rank import (
    auc_values,
    counted_precision_partition,
    counted_rank_partition,
    frame_strata,
    merge_ranks,
    original_sums,
    precision_carries,
    precision_partition,
    precision_values,
    rank_frame,
    rank_partition,
)
from skboot.metrics._dask_rank_loo import (
    PAIR_COLUMNS,
    ap_loo_sums,
    ap_loo_values,
    ap_offsets,
    ap_owned,
    ap_tops,
    ap_weighted_offsets,
    ap_weighted_owned,
    max_weight,
    pair_frame,
    paired_loo_sums,
)
from skboot.metrics._dask_schemes import RowScheme, sorted_scheme

__all__ = ["RankedLoo", "rank_loo_tasks", "rank_run"]


@dataclass(frozen=True)
class RankedLoo:
    """What one model's leave-one-out values need: its sorted partitions
    (delayed: the leave-one-out pass sorts again), their carries, the
    Mann-Whitney sum and class weights of the original rows and the model's
    metric on them (unsigned); with sample weights, the average precision's
    :func:`ap_tops` (None otherwise)."""

    ordered: list[Any]
    carries: list[np.ndarray]
    root: tuple[float, float, float]
    full: float
    tops: list[np.ndarray] | None = None


def _sorted_parts(
    inputs: Inputs, job: Any, j: int, param: str, scheme: RowScheme | None = None
) -> list[Any]:
    """Model ``j``'s rank frames sorted by score (one dask sort), delayed;
    for the group scheme with the rows' group hashes."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    positive = job.options["pos_label"]
    frame = dask.delayed(rank_frame, pure=True)
    columns = {c: np.empty(0) for c in ("score", "label", "weight")} | {
        "row": np.empty(0, dtype=np.int64)
    }
    grouped = scheme is not None and scheme.kind == "group"
    if grouped:
        columns["hash"] = np.empty(0, dtype=np.uint64)
    meta = pd.DataFrame(columns)
    labels = (
        scheme.labels if scheme is not None and grouped else [None] * len(inputs.starts)
    )
    frames = [
        frame(yt, yp[j], sw, start, positive, param, job.owner, job.name, g)
        for (yt, yp, sw, start), g in zip(_blocks(inputs), labels, strict=True)
    ]
    ordered = dd.from_delayed(frames, meta=meta, verify_meta=False)
    return list(ordered.sort_values("score").to_delayed())


def _blocks(inputs: Inputs) -> list[tuple[Any, list[Any], Any, int]]:
    """Each partition's ``(y_true, preds, sample_weight, start)``."""
    return per_partition(inputs, lambda *blocks: blocks)


def sorted_streams(scheme: RowScheme, B: int, layouts: list[Any]) -> list[Any]:
    """The counts' stream of each sorted partition (runs as a task, after the
    light pass: ``layouts`` the partitions' classes and row counts)."""
    if scheme.kind == "group":
        return [scheme.streams[0]] * len(layouts)
    labels, sizes = merge_layout(layouts, "roc_auc", "y_true")
    if scheme.kind == "iid":
        return sorted_scheme(scheme, B, sizes.sum(axis=0, keepdims=True), None)
    return sorted_scheme(scheme, B, sizes, labels)


def _poisson_roots(ordered: list[Any], job: Any) -> tuple[list[Any], Any]:
    """The Poisson rank sums of each sorted partition and the delayed
    per-replicate metric values."""
    import dask

    seed, gamma, B = job.stream
    ranks = dask.delayed(rank_partition, pure=True)
    parts = [ranks(p, seed, gamma, B) for p in ordered]
    root = tree_merge(parts, dask.delayed(merge_ranks, pure=True))
    if job.name == "roc_auc":
        return parts, dask.delayed(auc_values, pure=True)(root)
    # a second pass over the sorted partitions, each given the weights above
    # it and those tied with its first score
    carry = dask.delayed(precision_carries, pure=True)(parts)
    share = dask.delayed(precision_partition, pure=True)
    shares = [share(p, seed, gamma, B, carry[i]) for i, p in enumerate(ordered)]
    total = tree_merge(shares, dask.delayed(np.add, pure=True))
    return parts, dask.delayed(precision_values, pure=True)(total, root)


def _counted_roots(
    ordered: list[Any], job: Any, scheme: RowScheme
) -> tuple[list[Any], Any]:
    """The rank sums of each sorted partition under an exact or group
    scheme, and the delayed per-replicate metric values."""
    import dask

    B = job.stream[2]
    layouts = [dask.delayed(frame_strata, pure=True)(p) for p in ordered]
    # the scheme without the row blocks of y_true or the groups
    slim = replace(scheme, streams=scheme.streams[:1], labels=[])
    streams = dask.delayed(sorted_streams, pure=True)(slim, B, layouts)
    ranks = dask.delayed(counted_rank_partition, pure=True)
    parts = [ranks(p, streams[i]) for i, p in enumerate(ordered)]
    root = tree_merge(parts, dask.delayed(merge_ranks, pure=True))
    if job.name == "roc_auc":
        return parts, dask.delayed(auc_values, pure=True)(root)
    carry = dask.delayed(precision_carries, pure=True)(parts)
    share = dask.delayed(counted_precision_partition, pure=True)
    shares = [share(p, streams[i], carry[i]) for i, p in enumerate(ordered)]
    total = tree_merge(shares, dask.delayed(np.add, pure=True))
    return parts, dask.delayed(precision_values, pure=True)(total, root)


def rank_run(
    inputs: Inputs, job: Any, with_loo: bool, scheme: RowScheme
) -> tuple[list[np.ndarray], list[RankedLoo] | None]:
    """The exact ROC AUC (or average precision) of each prediction per
    replicate: one dask sort by score per prediction, then the rank sums
    merged in order; with ``with_loo``, what each model's leave-one-out
    values need (None without).  Under an exact scheme the counts are drawn
    per sorted partition, after a light pass that counts its rows per class."""
    import dask

    B = job.stream[2]
    merge = dask.delayed(merge_ranks, pure=True)
    weighted = job.name != "roc_auc" and inputs.weight[0] is not None
    roots, orders = [], []
    for j, param in enumerate(job.params):
        ordered = _sorted_parts(inputs, job, j, param, scheme)
        if scheme.kind == "poisson":
            parts, values = _poisson_roots(ordered, job)
        else:
            parts, values = _counted_roots(ordered, job, scheme)
        root = tree_merge(parts, merge)
        roots.append(values)
        if with_loo:
            roots.append(dask.delayed(auc_carries, pure=True)(parts))
            roots.append(dask.delayed(original_sums, pure=True)(root))
            roots.append(_tops(parts, ordered) if weighted else None)
        orders.append(ordered)
    done = dask.compute(*roots)
    if not with_loo:
        return list(done), None
    values = list(done[0::4])
    loo = [
        RankedLoo(ordered, carries, root, float(v[B]), tops)
        for ordered, v, carries, root, tops in zip(
            orders, values, done[1::4], done[2::4], done[3::4], strict=True
        )
    ]
    return values, loo


def _tops(parts: list[Any], ordered: list[Any]) -> Any:
    """The delayed :func:`ap_tops` of one model's sorted partitions."""
    import dask

    weights = [dask.delayed(max_weight, pure=True)(p) for p in ordered]
    return dask.delayed(ap_tops, pure=True)(parts, weights)


def _ap_offsets(model: RankedLoo) -> Any:
    """The delayed offsets of each sorted partition (a list)."""
    import dask

    if model.tops is not None:
        weighted = dask.delayed(ap_weighted_owned, pure=True)
        parts = [
            weighted(p, model.carries[i], model.tops[i])
            for i, p in enumerate(model.ordered)
        ]
        return dask.delayed(ap_weighted_offsets, pure=True)(parts)
    owned = dask.delayed(ap_owned, pure=True)
    parts = [
        owned(p, model.carries[i], model.root) for i, p in enumerate(model.ordered)
    ]
    return dask.delayed(ap_offsets, pure=True)(parts)


def _model_frame(
    name: str,
    frame: Any,
    carry: np.ndarray,
    offset: np.ndarray | None,
    model: tuple[tuple[float, float, float], float, np.ndarray | None],
) -> Any:
    """One sorted partition's ``(row, value - full value)`` frame (runs on a
    worker); ``model``: the root, the full value and the partition's
    :func:`ap_tops` (weighted average precision; None otherwise)."""
    root, full, top = model
    if name == "roc_auc":
        rows, auc = auc_loo_values(frame, carry, root)
        return pair_frame(rows, auc - full)
    assert offset is not None
    return pair_frame(*ap_loo_values(frame, carry, offset, root, full, top))


def rank_loo_tasks(
    name: str,
    models: list[RankedLoo],
    ref: float,
    sign: float,
    stratified: bool = False,
) -> list[Any]:
    """The delayed leave-one-out power sums of a ranking metric (one model:
    per sorted partition; two: per partition of their values joined by row
    number); ``ref``: the signed estimate; ``stratified`` (one model): the
    sums of each class."""
    import dask

    if len(models) == 1:
        (m,) = models
        if name == "roc_auc":
            part = dask.delayed(auc_loo_partition, pure=True)
            return [
                part(p, m.carries[i], m.root, ref, sign, stratified)
                for i, p in enumerate(m.ordered)
            ]
        offsets = _ap_offsets(m)
        part = dask.delayed(ap_loo_sums, pure=True)
        shift = (sign, sign * m.full - ref)
        return [
            part(
                p,
                m.carries[i],
                offsets[i],
                m.root,
                m.full,
                shift,
                stratified,
                None if m.tops is None else m.tops[i],
            )
            for i, p in enumerate(m.ordered)
        ]
    return _paired_tasks(name, models, ref, sign)


def _paired_tasks(
    name: str, models: list[RankedLoo], ref: float, sign: float
) -> list[Any]:
    """Each model's leave-one-out values on its sorted partitions, joined by
    row number (a dask merge), then the power sums of the differences."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    meta = pd.DataFrame(
        {PAIR_COLUMNS[0]: np.empty(0, dtype=np.int64), PAIR_COLUMNS[1]: np.empty(0)}
    )
    make = dask.delayed(_model_frame, pure=True)
    sides = []
    for m in models:
        offsets = _ap_offsets(m) if name != "roc_auc" else None
        frames = [
            make(
                name,
                p,
                m.carries[i],
                None if offsets is None else offsets[i],
                (m.root, m.full, None if m.tops is None else m.tops[i]),
            )
            for i, p in enumerate(m.ordered)
        ]
        sides.append(dd.from_delayed(frames, meta=meta, verify_meta=False))
    joined = sides[0].merge(sides[1], on="row", suffixes=("_a", "_b"))
    a, b = (m.full for m in models)
    shift = (sign, sign * (a - b) - ref)
    part = dask.delayed(paired_loo_sums, pure=True)
    return [part(p, shift) for p in joined.to_delayed()]
