"""BCa's acceleration for the average precision of predictions in dask
collections, and for the paired difference of two models' ROC AUC or average
precision: leave-one-out values computed where the sorted rows live.

* Average precision, unit weights.  Over the distinct scores, highest first,
  group ``h`` holds ``p_h`` positives and ``n_h`` negatives; ``TP_h``,
  ``FP_h`` count the rows scored at least as high, ``T_h = TP_h + FP_h``, and
  ``AP = sum_h p_h TP_h / T_h / P`` (scikit-learn's step-wise sum, one
  threshold per distinct score).  Leaving out row ``i`` of group ``k`` takes
  one from ``T_h`` (and from ``TP_h`` for a positive) at every group scored
  no higher, and changes nothing else, so the numerator changes by a term of
  group ``k`` plus a sum over the lower groups of terms that do not depend on
  ``i``: ``d+_h = -p_h FP_h / (T_h (T_h - 1))`` (``i`` a positive) or ``d-_h =
  p_h TP_h / (T_h (T_h - 1))`` (a negative).  With ``D`` their sum below
  group ``k``: a positive gives ``AP_(i) - AP = (D+ + c + AP) / (P - 1)``,
  ``c = (p a - (p + a - 1) t) / (t (t - 1))`` (``p``, ``a``, ``t``: ``p_k``,
  ``TP_k``, ``T_k``; -1 when ``t = 1``), undefined when it was the only
  positive; a negative gives ``(D- + p a / (t (t - 1))) / P``.  On the sorted
  partitions of the bootstrap's pass (ascending scores), a partition's groups
  need the class counts above it and those of the groups of tied scores cut
  by its boundaries (:func:`skboot.metrics._dask_loo.auc_carries`); the sums
  ``D`` below its first group come from the earlier partitions' own sums
  (:func:`ap_owned`, :func:`ap_offsets`: a group cut by boundaries is counted
  by the partition holding its highest rows).  O(n) after the sort.
* Two models: each model's leave-one-out values are computed on its own
  sorted partitions as ``(row, value - full value)`` pairs, the two sets are
  joined by row number (a dask merge: one shuffle of the pairs), and each
  joined partition returns the power sums of the signed differences
  (:func:`paired_loo_sums`).
* Average precision, sample weights.  The values of
  :mod:`skboot._kernels.metric_loo` (its module notes): with ``v`` the left
  out row's weight, the sums over the groups scored lower are series in
  ``v / T_h`` where ``T_h >= AP_RATIO v`` and term by term above that.  Per
  sorted partition, from the class weights of the later partitions
  (:func:`ap_tops`, summed from the highest score): each group's ``p``,
  ``TP``, ``T`` and term.  A group cut by boundaries is counted by the
  partition holding its lowest rows in the sums of the terms scored higher,
  and by the one holding its highest rows in the series sums
  (:func:`ap_weighted_owned`); a partition's groups with ``T`` below
  ``AP_RATIO`` times the largest weight of the later partitions go to those
  partitions as groups (few: the weight at or above a group grows past 8
  times the weight of any row above it within a few groups, unless the
  weights span orders of magnitude), the others as series sums.  Each
  partition then runs the in-memory kernel's pass over its own groups and
  those sent to it, started from the earlier partitions' series sums
  (:func:`ap_weighted_values`, :func:`skboot._kernels.metric_loo.ap_series_rows`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from skboot._kernels.metric_loo import (
    AP_RATIO,
    AP_TERMS,
    ap_scale,
    ap_series_rows,
    ap_series_sums,
)
from skboot._run._dask_jackknife import LooSums, loo_sums
from skboot.metrics._dask_loo import class_sums
from skboot.metrics._dask_rank import _columns

__all__ = [
    "PAIR_COLUMNS",
    "ap_loo_sums",
    "ap_loo_values",
    "ap_offsets",
    "ap_owned",
    "ap_tops",
    "ap_weighted_offsets",
    "ap_weighted_owned",
    "ap_weighted_values",
    "max_weight",
    "pair_frame",
    "paired_loo_sums",
]

#: The columns of one model's leave-one-out frame.
PAIR_COLUMNS = ("row", "value")


def _ap_groups(
    frame: Any, carry: np.ndarray, root: tuple[float, float, float]
) -> tuple[np.ndarray, ...]:
    """A sorted partition's labels, row numbers, each row's group and, per
    group of tied scores (ascending): ``p``, ``TP``, ``T`` of the whole group
    and its terms ``d+``, ``d-`` (0 where ``T < 2``: the top row alone)."""
    _, labels, _, rows, gstarts = _columns(frame)
    if labels.shape[0] == 0:
        gstarts = gstarts[:1]  # no group
    _, P, N = root
    below_pos, below_neg, lo_pos, lo_neg, hi_pos, _ = carry
    gp = np.add.reduceat(labels, gstarts[:-1]) if labels.size else np.empty(0)
    gn = np.diff(gstarts).astype(np.float64) - gp
    G = gp.shape[0]
    edge_lo = np.zeros(G)
    edge_hi = np.zeros(G)
    if G:
        edge_lo[0] = 1.0
        edge_hi[-1] = 1.0
    p = gp + edge_lo * lo_pos + edge_hi * hi_pos
    above_pos = P - below_pos - gp.sum()
    above_neg = N - below_neg - gn.sum()
    # the rows scored at least as high: the later partitions, the groups from
    # this one up, and (first group) the earlier rows tied with it
    tp = above_pos + np.cumsum(gp[::-1])[::-1] + edge_lo * lo_pos
    fp = above_neg + np.cumsum(gn[::-1])[::-1] + edge_lo * lo_neg
    t = tp + fp
    ok = t >= 2.0
    scale = np.where(ok, t * (t - 1.0), 1.0)
    d_pos = np.where(ok, -p * fp / scale, 0.0)
    d_neg = np.where(ok, p * tp / scale, 0.0)
    group = np.repeat(np.arange(G), np.diff(gstarts))
    return labels, rows, group, p, tp, t, d_pos, d_neg


def ap_owned(
    frame: Any, carry: np.ndarray, root: tuple[float, float, float]
) -> np.ndarray:
    """(2,): the sums of ``d+`` and ``d-`` over the groups of one sorted
    partition whose highest rows it holds (runs on a worker)."""
    _, _, _, _, _, _, d_pos, d_neg = _ap_groups(frame, carry, root)
    if d_pos.shape[0] and carry[4] + carry[5] > 0.0:  # its last group goes on
        d_pos, d_neg = d_pos[:-1], d_neg[:-1]
    return np.array([d_pos.sum(), d_neg.sum()])


def ap_offsets(owned: list[np.ndarray]) -> list[np.ndarray]:
    """Per sorted partition, (2,): the sums of ``d+`` and ``d-`` over the
    groups scored below its first score (the earlier partitions' own)."""
    out = []
    total = np.zeros(2)
    for sums in owned:
        out.append(total.copy())
        total = total + sums
    return out


def ap_loo_values(
    frame: Any,
    carry: np.ndarray,
    offset: np.ndarray,
    root: tuple[float, float, float],
    full: float,
    top: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One sorted partition's row numbers and ``AP_(i) - AP`` of its rows
    (NaN where row ``i`` is the only positive); ``full``: ``AP``; with
    ``top`` (:func:`ap_tops`), those of the weighted average precision
    (:func:`ap_weighted_values`)."""
    if top is not None:
        return ap_weighted_values(frame, carry, top, offset, root, full)
    labels, rows, group, p, tp, t, d_pos, d_neg = _ap_groups(frame, carry, root)
    P = root[1]
    below_pos = offset[0] + np.cumsum(d_pos) - d_pos  # the groups scored lower
    below_neg = offset[1] + np.cumsum(d_neg) - d_neg
    pk, ak, tk = p[group], tp[group], t[group]
    two = tk >= 2.0
    scale = np.where(two, tk * (tk - 1.0), 1.0)
    own_pos = np.where(two, (pk * ak - (pk + ak - 1.0) * tk) / scale, -1.0)
    own_neg = np.where(two, pk * ak / scale, 0.0)
    positive = labels == 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        if_pos = (below_pos[group] + own_pos + full) / (P - 1.0 if P > 1.0 else np.nan)
        if_neg = (below_neg[group] + own_neg) / (P if P > 0.0 else np.nan)
    return rows, np.where(positive, if_pos, if_neg)


def ap_loo_sums(
    frame: Any,
    carry: np.ndarray,
    offset: np.ndarray,
    root: tuple[float, float, float],
    full: float,
    shift: tuple[float, float],
    stratified: bool = False,
    top: np.ndarray | None = None,
) -> Any:
    """The leave-one-out power sums of one sorted partition's rows (runs on
    a worker): ``e_i = sign (AP_(i) - AP) + (sign AP - ref)``, ``shift`` the
    metric's sign and ``sign AP - ref``; with ``stratified``, those of each
    class; ``top``: as :func:`ap_loo_values`."""
    rows, delta = ap_loo_values(frame, carry, offset, root, full, top)
    sign, base = shift
    return class_sums((sign * delta + base)[:, None], rows, frame, stratified)


def max_weight(frame: Any) -> float:
    """The largest weight of a sorted partition's rows (0 without rows)."""
    weight = frame["weight"].to_numpy(dtype=np.float64)
    return float(weight.max()) if weight.shape[0] else 0.0


def ap_tops(parts: list[Any], wmax: list[float]) -> list[np.ndarray]:
    """Per sorted partition, (6,): the positive and negative weights of the
    later partitions (summed from the highest score), the largest weight of
    their rows, the scale of the series (from the largest weight of all),
    and whether its first (last) score is also an earlier (later) partition's
    (``parts``: the rank sums of the original rows, ``wmax``: each partition's
    :func:`max_weight`)."""
    out = [np.zeros(6) for _ in parts]
    scale = float(ap_scale(max(wmax, default=0.0)))
    above = np.zeros(2)
    later = 0.0
    for p in range(len(parts) - 1, -1, -1):
        out[p][:4] = above[0], above[1], later, scale
        above = above + np.array([parts[p].pos[-1], parts[p].neg[-1]])
        later = max(later, wmax[p])
    full = [p for p, q in enumerate(parts) if q.n]
    for a, b in itertools.pairwise(full):
        if parts[a].last == parts[b].first:
            out[a][5] = out[b][4] = 1.0
    return out


def _weighted_groups(frame: Any, carry: np.ndarray, top: np.ndarray) -> tuple:
    """A sorted partition's labels, weights, row numbers, group sizes and,
    per group of tied scores (highest first): ``p``, ``TP``, ``T`` of the
    whole group and its term ``p TP / T`` (0 where ``p`` is 0)."""
    _, labels, weight, rows, gstarts = _columns(frame)
    if labels.shape[0] == 0:
        gstarts = gstarts[:1]  # no group
    _, _, lo_pos, lo_neg, hi_pos, _ = carry
    if labels.size:
        gp = np.add.reduceat(labels * weight, gstarts[:-1])
        gt = np.add.reduceat(weight, gstarts[:-1])
    else:
        gp = gt = np.empty(0)
    edge_lo = np.zeros(gp.shape[0])
    edge_hi = np.zeros(gp.shape[0])
    if gp.shape[0]:
        edge_lo[0] = edge_hi[-1] = 1.0
    # highest first, the weights from the top: the later partitions, the
    # groups of this one, and (its first group) the earlier rows tied with it
    p = (gp + edge_lo * lo_pos + edge_hi * hi_pos)[::-1]
    tp = top[0] + np.cumsum(gp[::-1]) + (edge_lo * lo_pos)[::-1]
    t = (top[0] + top[1]) + np.cumsum(gt[::-1]) + (edge_lo * (lo_pos + lo_neg))[::-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(p > 0.0, p * (tp / t), 0.0)
    sizes = np.diff(gstarts)[::-1]
    return labels, weight, rows, sizes, p, tp, t, term


def ap_weighted_owned(
    frame: Any, carry: np.ndarray, top: np.ndarray
) -> tuple[float, int, np.ndarray, float, np.ndarray]:
    """What the other sorted partitions need of one (runs on a worker): the
    sum of the terms of its groups (less a first group shared with an earlier
    partition), its positive rows of non-zero weight, and, over its groups
    (less a last group shared with a later partition), the series sums of
    those with ``T >= AP_RATIO`` times the later partitions' largest weight,
    their weight ``p``, and the others' ``p``, ``TP``, ``T`` ((3, k),
    highest first)."""
    labels, weight, _, _, p, tp, t, term = _weighted_groups(frame, carry, top)
    terms = float(term[:-1].sum() if top[4] and term.size else term.sum())
    n_pos = int(np.count_nonzero((labels == 1.0) & (weight != 0.0)))
    keep = slice(1, None) if top[5] else slice(None)  # highest first
    p, tp, t = p[keep], tp[keep], t[keep]
    head = int(np.searchsorted(t, AP_RATIO * top[2]))  # T ascending
    moments = np.zeros((2, AP_TERMS))
    p_sum = float(ap_series_sums(p[head:], tp[head:], t[head:], top[3], *moments))
    return terms, n_pos, moments, p_sum, np.stack([p[:head], tp[:head], t[:head]])


def ap_weighted_offsets(owned: list[tuple]) -> list[tuple]:
    """Per sorted partition, from the others' :func:`ap_weighted_owned`: the
    sum of the terms scored higher than it, the positive rows of non-zero
    weight, the earlier partitions' series sums, their weight and their
    groups sent as groups (highest first)."""
    n_pos = sum(o[1] for o in owned)
    out = []
    moments = np.zeros((2, AP_TERMS))
    p_sum = 0.0
    heads: list[np.ndarray] = []
    for i in range(len(owned)):
        higher = float(sum(o[0] for o in owned[i + 1 :]))
        groups = np.concatenate(heads[::-1], axis=1) if heads else np.zeros((3, 0))
        out.append((higher, n_pos, moments.copy(), p_sum, groups))
        moments = moments + owned[i][2]
        p_sum += owned[i][3]
        heads.append(owned[i][4])
    return out


def ap_weighted_values(
    frame: Any,
    carry: np.ndarray,
    top: np.ndarray,
    offset: Any,
    root: tuple[float, float, float],
    full: float,
) -> tuple[np.ndarray, np.ndarray]:
    """One sorted partition's row numbers and ``AP_(i) - AP`` of its rows
    (weighted; NaN where row ``i`` is the only positive of non-zero
    weight); ``full``: ``AP``."""
    labels, weight, rows, sizes, p, tp, t, term = _weighted_groups(frame, carry, top)
    higher, n_pos, moments, p_sum, heads = offset
    m = labels.shape[0]
    above = higher + np.cumsum(term) - term  # the terms scored higher
    k = heads.shape[1]
    groups = (
        np.concatenate((p, heads[0])),
        np.concatenate((tp, heads[1])),
        np.concatenate((t, heads[2])),
        np.concatenate((above, np.zeros(k))),
        int(n_pos),
    )
    starts = np.concatenate(([0], np.cumsum(sizes), np.full(k, m))).astype(np.int64)
    order = np.arange(m - 1, -1, -1, dtype=np.int64)  # highest score first
    out = np.full(m, full)
    base = (moments[0].copy(), moments[1].copy(), float(p_sum))
    if m:
        ap_series_rows(
            order,
            np.ascontiguousarray(labels[order]),
            starts,
            weight,
            groups,
            (float(root[1]), float(top[3])),
            base,
            False,
            out,
        )
    return rows, out - full


def pair_frame(rows: np.ndarray, values: np.ndarray) -> Any:
    """One model's leave-one-out frame: row numbers and values."""
    import pandas as pd

    return pd.DataFrame(dict(zip(PAIR_COLUMNS, (rows, values), strict=True)))


def paired_loo_sums(joined: Any, shift: tuple[float, float]) -> LooSums:
    """The leave-one-out power sums of one partition of the two models'
    frames joined by row (runs on a worker): ``e_i = sign (v_a - v_b) +
    base``, ``v`` each model's value less its full value, ``shift`` the
    metric's sign and ``base = sign (full_a - full_b) - ref``.  The rows are
    put in order first, so the sums do not depend on the shuffle's order."""
    rows = joined["row"].to_numpy(dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    a = joined["value_a"].to_numpy(dtype=np.float64)[order]
    b = joined["value_b"].to_numpy(dtype=np.float64)[order]
    sign, base = shift
    with np.errstate(invalid="ignore"):
        e = sign * (a - b) + base
    return loo_sums(e[:, None], rows[order])
