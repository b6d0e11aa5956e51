"""The exact ROC AUC of predictions in a dask collection, data-parallel.

1. Each partition of the inputs becomes a small pandas frame: score, label
   (1.0 for the positive class), sample weight and the row's *original*
   global number (:func:`rank_frame`).
2. Dask sorts the frames by score (``sort_values``: a pass for the quantiles of
   the scores, then a shuffle among the workers): partition ``p`` then holds
   scores no greater than those of partition ``p + 1``.
3. Each sorted partition returns, per replicate, its rank sums
   (:func:`skboot._kernels.poisson_metric_rows.poisson_rank_sums`): the
   Mann-Whitney pairs inside it, its positive and negative weight, and the
   weights of its first and last group of tied scores.
4. Adjacent partitions are joined in a fixed pairwise tree
   (:func:`merge_ranks`): every negative of the lower one is below every
   positive of the upper one, except where the two share a score (a group of
   ties cut by the boundary), whose pairs count one half.  The root holds the
   Mann-Whitney statistic ``U`` and the class weights ``P``, ``N`` of every
   replicate: AUC = ``U / (P N)`` (Mann & Whitney 1947; Hanley & McNeil 1982).

Counts are drawn from the original row numbers, so every replicate is the
in-memory replicate of the same rows; with integer weights every sum is an
integer or a half-integer, exact in float64 below ``2**53``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.exact_counts import counted_precision_sums, counted_rank_sums
from skboot._kernels.poisson_metric_rows import (
    poisson_precision_sums,
    poisson_rank_sums,
)
from skboot._run._dask_counts import GroupCounts
from skboot._run._dask_exact_rows import group_hashes, unique_counts
from skboot._validation import as_float_array
from skboot.metrics._registry import METRICS

__all__ = [
    "RankSums",
    "auc_values",
    "counted_precision_partition",
    "counted_rank_partition",
    "frame_strata",
    "merge_ranks",
    "original_sums",
    "precision_carries",
    "precision_partition",
    "precision_values",
    "rank_frame",
    "rank_partition",
]

#: The columns of a rank frame, in order.
FRAME_COLUMNS = ("score", "label", "weight", "row")


def rank_frame(
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    start: int,
    positive: Any,
    param: str,
    owner: str,
    metric: str = "roc_auc",
    groups: Any = None,
) -> Any:
    """The rank frame of one partition of the inputs (runs on a worker): the
    scores checked as the in-memory ``roc_auc`` checks them, the labels coded
    against the positive class of the whole ``y_true``; with ``groups``, a
    column "hash" of the rows' group hashes."""
    import pandas as pd

    yt = np.asarray(y_true)
    m = yt.shape[0]
    if m:
        try:
            prepared = METRICS[metric].prepare(yt, y_pred, pos_label=positive)
        except ValueError as exc:
            raise ValueError(f"{exc} (in '{param}' of {owner})") from exc
        order, y_sorted, _ = prepared.args
        labels = np.empty(m)
        labels[order] = y_sorted
        scores = as_float_array(np.asarray(y_pred), param, owner)
    else:
        labels = scores = np.empty(0)
    weight = np.ones(m) if sample_weight is None else np.asarray(sample_weight, float)
    rows = np.arange(start, start + m, dtype=np.int64)
    columns = dict(zip(FRAME_COLUMNS, (scores, labels, weight, rows), strict=True))
    if groups is not None:
        columns["hash"] = group_hashes(groups) if m else np.empty(0, dtype=np.uint64)
    return pd.DataFrame(columns)


@dataclass(frozen=True)
class RankSums:
    """Per-replicate rank sums of rows sorted by score, (B + 1,) arrays each
    (row B: the original rows): ``area`` (Mann-Whitney pairs), ``pos`` and
    ``neg`` (class weights), the weights of the first group of tied scores
    (score ``first``) and of the last (score ``last``)."""

    n: int
    first: float
    last: float
    area: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    first_pos: np.ndarray
    first_neg: np.ndarray
    last_pos: np.ndarray
    last_neg: np.ndarray


def _columns(frame: Any) -> tuple[np.ndarray, ...]:
    """A sorted partition's scores, labels, weights, row numbers and the
    starts of its groups of tied scores (followed by its length)."""
    scores = np.ascontiguousarray(frame["score"].to_numpy(dtype=np.float64))
    m = scores.shape[0]
    if m > 1 and np.any(scores[1:] < scores[:-1]):  # pragma: no cover - dask's sort
        raise RuntimeError("A partition of the sorted scores is not sorted.")
    labels = np.ascontiguousarray(frame["label"].to_numpy(dtype=np.float64))
    weight = np.ascontiguousarray(frame["weight"].to_numpy(dtype=np.float64))
    rows = np.ascontiguousarray(frame["row"].to_numpy(dtype=np.int64))
    bounds = np.flatnonzero(np.diff(scores)) + 1
    gstarts = np.concatenate(([0], bounds, [m])).astype(np.int64)
    return scores, labels, weight, rows, gstarts


def rank_partition(frame: Any, seed: Any, gamma: Any, n_resamples: int) -> RankSums:
    """The rank sums of one sorted partition (runs on a worker)."""
    scores, labels, weight, rows, gstarts = _columns(frame)
    m = scores.shape[0]
    out = np.empty((n_resamples + 1, 7))
    poisson_rank_sums(labels, weight, rows, gstarts, seed, gamma, out)
    first = float(scores[0]) if m else np.nan
    last = float(scores[-1]) if m else np.nan
    return RankSums(m, first, last, *(np.ascontiguousarray(c) for c in out.T))


def frame_strata(frame: Any) -> tuple[np.ndarray, np.ndarray]:
    """A sorted partition's classes (its labels, 1.0 for the positive class)
    and their row counts: the light pass before its exact counts."""
    return unique_counts(frame["label"].to_numpy(dtype=np.float64))


def _counts_of(frame: Any, stream: Any, m: int) -> Any:
    """The chunks of counts of a sorted partition's rows: exact counts drawn
    by class (the labels), group counts from the "hash" column."""
    if isinstance(stream, GroupCounts):
        return stream.chunks(frame["hash"].to_numpy(), m, hashed=True)
    return stream.chunks(frame["label"].to_numpy(dtype=np.float64), m)


def counted_rank_partition(frame: Any, stream: Any) -> RankSums:
    """:func:`rank_partition` with the partition's exact or group counts."""
    scores, labels, weight, _, gstarts = _columns(frame)
    m = scores.shape[0]
    B = int(stream.n_resamples)
    out = np.zeros((B + 1, 7))
    if m:
        z = np.uint64(0)
        poisson_rank_sums(labels, weight, np.empty(0, np.int64), gstarts, z, z, out[B:])
        for k0, counts in _counts_of(frame, stream, m):
            counted_rank_sums(labels, weight, counts, gstarts, k0, out)
    first = float(scores[0]) if m else np.nan
    last = float(scores[-1]) if m else np.nan
    return RankSums(m, first, last, *(np.ascontiguousarray(c) for c in out.T))


def counted_precision_partition(frame: Any, stream: Any, carry: np.ndarray) -> Any:
    """:func:`precision_partition` with the partition's exact or group counts."""
    _, labels, weight, _, gstarts = _columns(frame)
    m = labels.shape[0]
    B = int(stream.n_resamples)
    out = np.zeros(B + 1)
    above = np.ascontiguousarray(carry[:2])
    tie = np.ascontiguousarray(carry[2:])
    if m:
        poisson_precision_sums(
            labels, weight, np.empty(0, np.int64), gstarts, np.uint64(0),
            np.uint64(0), above[:, B:], tie[:, B:], out[B:],
        )  # fmt: skip
        for k0, counts in _counts_of(frame, stream, m):
            counted_precision_sums(labels, weight, counts, gstarts, k0, above, tie, out)
    return out


def merge_ranks(lo: RankSums, hi: RankSums) -> RankSums:
    """The rank sums of the rows of ``lo`` followed by those of ``hi`` (whose
    scores are no smaller)."""
    if hi.n == 0:
        return lo
    if lo.n == 0:
        return hi
    if hi.first < lo.last:  # pragma: no cover - dask's sort
        raise RuntimeError("The sorted partitions are out of order.")
    area = lo.area + hi.area + lo.neg * hi.pos
    tied = lo.last == hi.first
    if tied:  # the boundary cuts a group of ties: its cross pairs count 1/2
        area = area + 0.5 * (lo.last_pos * hi.first_neg - lo.last_neg * hi.first_pos)
    lo_one = tied and lo.first == lo.last  # lo is one group, tied with hi's first
    hi_one = tied and hi.first == hi.last
    return RankSums(
        lo.n + hi.n,
        lo.first,
        hi.last,
        area,
        lo.pos + hi.pos,
        lo.neg + hi.neg,
        lo.first_pos + hi.first_pos if lo_one else lo.first_pos,
        lo.first_neg + hi.first_neg if lo_one else lo.first_neg,
        lo.last_pos + hi.last_pos if hi_one else hi.last_pos,
        lo.last_neg + hi.last_neg if hi_one else hi.last_neg,
    )


def original_sums(root: RankSums) -> tuple[float, float, float]:
    """The Mann-Whitney sum and class weights of the original rows (on a
    worker)."""
    return float(root.area[-1]), float(root.pos[-1]), float(root.neg[-1])


def auc_values(root: RankSums) -> np.ndarray:
    """``U / (P N)`` per replicate, NaN where a class has no weight."""
    denominator = root.pos * root.neg
    ok = (root.pos > 0.0) & (root.neg > 0.0)
    return np.where(ok, root.area / np.where(ok, denominator, 1.0), np.nan)


def precision_carries(parts: list[RankSums]) -> list[np.ndarray]:
    """Per sorted partition, (4, B + 1): the positive and negative weights of
    the later (higher-scored) partitions, then those of the earlier
    partitions' rows tied with its first score (a group of ties cut by one
    or more boundaries)."""
    width = parts[0].pos.shape[0]
    carries = [np.zeros((4, width)) for _ in parts]
    above = np.zeros((2, width))
    for p in range(len(parts) - 1, -1, -1):
        carries[p][:2] = above
        above = above + np.stack([parts[p].pos, parts[p].neg])
    prev: RankSums | None = None
    prev_tie = np.zeros((2, width))
    for p, q in enumerate(parts):
        if q.n == 0:
            continue
        tie = np.zeros((2, width))
        if prev is not None and prev.last == q.first:
            tie = np.stack([prev.last_pos, prev.last_neg])
            if prev.first == prev.last:  # prev is one group: its carry goes on
                tie = tie + prev_tie
        carries[p][2:] = tie
        prev, prev_tie = q, tie
    return carries


def precision_partition(
    frame: Any, seed: Any, gamma: Any, n_resamples: int, carry: np.ndarray
) -> np.ndarray:
    """A sorted partition's share of the average precision numerator per
    replicate (runs on a worker; ``carry`` from :func:`precision_carries`)."""
    _, labels, weight, rows, gstarts = _columns(frame)
    out = np.empty(n_resamples + 1)
    above = np.ascontiguousarray(carry[:2])
    tie = np.ascontiguousarray(carry[2:])
    poisson_precision_sums(labels, weight, rows, gstarts, seed, gamma, above, tie, out)
    return out


def precision_values(share: np.ndarray, root: RankSums) -> np.ndarray:
    """The average precision per replicate: the merged numerator over the
    positive weight, NaN where there is none."""
    ok = root.pos > 0.0
    return np.where(ok, share / np.where(ok, root.pos, 1.0), np.nan)
