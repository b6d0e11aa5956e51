"""BCa's acceleration for the ROC AUC and the label metrics of predictions in
dask collections: their leave-one-out values in closed form, computed where
the rows live; only power sums travel
(:func:`skboot._run._dask_jackknife.loo_sums`).

* Label metrics (precision, recall, F1, balanced accuracy): leaving row ``i``
  out takes its weight ``w_i`` from one cell of the confusion matrix, so its
  value is the metric of the full matrix less ``w_i`` in the cell ``(y_i,
  p_i)``: each partition evaluates the in-memory kernel once per distinct
  (cell, weight) pair of its rows (of both predictions for a comparison).  A
  cell left with less than ``8 eps`` of its total is empty (the rounding of a
  sum of non-integer weights); integer weights are exact.
* ROC AUC (one prediction): row ``i`` of weight ``w`` takes ``w`` times its
  opposite-class weight below it (a positive; above it, a negative) plus half
  that tied with it from the Mann-Whitney sum ``U`` and ``w`` from its class's
  weight: ``(U - w (below + tied / 2)) / ((P - w) N)`` (NaN when a class is
  left without weight), the closed form of the in-memory jackknife.  The
  weights below, above and tied come from the sorted partitions of the
  bootstrap's pass: each partition's class weights and the weights of its
  first and last group of tied scores (:func:`auc_carries`), then the
  partition's own rows (:func:`auc_loo_partition`).
* R2: from the totals of the original rows about a centre ``c`` (``S1 = sum
  w (y - c)``, ``W = sum w``, ``M2 = sum w (y - c)**2 - S1**2 / W`` and each
  prediction's ``SSR = sum w r**2``), row ``i`` of weight ``w``, residual
  ``r`` and ``d = y - c - S1 / W`` leaves ``M2' = M2 - k d**2``, ``k = w W /
  (W - w)`` (the weighted downdate) and ``SSR' = SSR - w r**2``, so
  ``R2_(i) - R2 = (w r**2 - (SSR / M2) k d**2) / M2'`` (:func:`r2_loo_partition`).
  Where the rows left hold one ``y`` value (counted exactly: the rows at the
  least and greatest ``y``), R2 is NaN or, with ``force_finite``, 1.0 / 0.0;
  where their residuals are all zero (counted), 1.0; with no row left, NaN:
  as the in-memory kernel with row ``i``'s weight zeroed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.metric import metric_chunk
from skboot._run._dask_exact_rows import empty_strata_loo, strata_loo_sums
from skboot._run._dask_jackknife import loo_sums
from skboot.metrics._dask_r2 import R2Sums, r2_rows
from skboot.metrics._dask_rank import RankSums, _columns

__all__ = [
    "R2Rule",
    "auc_carries",
    "auc_loo_partition",
    "auc_loo_values",
    "class_sums",
    "confusion_loo_partition",
    "r2_loo_partition",
    "r2_rule",
]

#: A cell left with at most this fraction of its total weight is empty.
_EMPTY = 8.0 * np.finfo(np.float64).eps


def confusion_loo_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    tables: tuple[list[np.ndarray], list[Any], list[np.ndarray]],
    ref: float,
    sign: float,
    strata: np.ndarray | None = None,
) -> Any:
    """The leave-one-out power sums of one partition (runs on a worker):
    ``tables`` holds the label sets, each prediction's packed metric and its
    confusion matrix of the original rows; ``ref``: the signed estimate; with
    ``strata`` (the classes of ``y_true``), the sums of each class (the
    stratified jackknife)."""
    classes, probes, totals = tables
    yt = np.asarray(y_true)
    m = yt.shape[0]
    rows = np.arange(start, start + m, dtype=np.int64)
    if m == 0:
        return _sums(np.empty((0, 1)), rows, strata, yt)
    sw = np.ones(m) if sample_weight is None else np.asarray(sample_weight, float)
    rows_true = np.searchsorted(classes[0], yt)
    bins = [
        rows_true * cp.shape[0] + np.searchsorted(cp, np.asarray(yp))
        for yp, cp in zip(preds, classes[1:], strict=True)
    ]
    keys, inverse = np.unique(
        np.column_stack([*(b.astype(np.float64) for b in bins), sw]),
        axis=0,
        return_inverse=True,
    )
    u = keys.shape[0]
    value = np.zeros(u)
    for j, (probe, total) in enumerate(zip(probes, totals, strict=True)):
        W = np.repeat(total[None, :], u, axis=0)
        cell = keys[:, j].astype(np.int64)
        left = W[np.arange(u), cell] - keys[:, -1]
        W[np.arange(u), cell] = np.where(left <= _EMPTY * total[cell], 0.0, left)
        out = np.empty((u, 1))
        cells = np.ones(W.shape[1])
        metric_chunk(probe, probe, False, cells, False, W, out)
        value = value + out[:, 0] if j == 0 else value - out[:, 0]
    e = sign * value - ref
    return _sums(e[np.ravel(inverse)][:, None], rows, strata, yt)


def _sums(e: np.ndarray, rows: np.ndarray, strata: Any, labels: np.ndarray) -> Any:
    """The power sums of the deviations ``e``: of all rows, or with
    ``strata`` (sorted labels) of each stratum of the rows' ``labels``."""
    if strata is None:
        return loo_sums(e, rows)
    codes = np.searchsorted(strata, labels).astype(np.int64)
    return strata_loo_sums(e, codes, empty_strata_loo(strata.shape[0], e.shape[1]))


def auc_carries(parts: list[RankSums]) -> list[np.ndarray]:
    """Per sorted partition, (6,) from the original rows (the sums' last row):
    the positive and negative weights of the earlier partitions, of the
    earlier partitions' rows tied with its first score, and of the later
    partitions' rows tied with its last score."""
    carries = [np.zeros(6) for _ in parts]
    below = np.zeros(2)
    for p, q in enumerate(parts):
        carries[p][:2] = below
        below = below + np.array([q.pos[-1], q.neg[-1]])
    for step, (slot, near, far) in enumerate(
        (((2, 4), "last", "first"), ((4, 6), "first", "last"))
    ):
        order = range(len(parts)) if step == 0 else range(len(parts) - 1, -1, -1)
        prev: RankSums | None = None
        prev_tie = np.zeros(2)
        for p in order:
            q = parts[p]
            if q.n == 0:
                continue
            tie = np.zeros(2)
            if prev is not None and getattr(prev, near) == getattr(q, far):
                tie = np.array(
                    [getattr(prev, f"{near}_pos")[-1], getattr(prev, f"{near}_neg")[-1]]
                )
                if prev.first == prev.last:  # one group: its own tie goes on
                    tie = tie + prev_tie
            carries[p][slice(*slot)] = tie
            prev, prev_tie = q, tie
    return carries


def auc_loo_values(
    frame: Any, carry: np.ndarray, root: tuple[float, float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """One sorted partition's row numbers and the ROC AUC without each of
    its rows: ``carry`` from :func:`auc_carries`, ``root`` the Mann-Whitney
    sum and the class weights of the original rows."""
    _, labels, weight, rows, gstarts = _columns(frame)
    m = labels.shape[0]
    if m == 0:
        return rows, np.empty(0)
    area, P, N = root
    group = np.repeat(np.arange(gstarts.shape[0] - 1), np.diff(gstarts))
    pos_w = weight * labels
    neg_w = weight - pos_w
    gp = np.add.reduceat(pos_w, gstarts[:-1])
    gn = np.add.reduceat(neg_w, gstarts[:-1])
    cp = np.cumsum(gp) - gp  # within the partition, the groups before
    cn = np.cumsum(gn) - gn
    first = (group == 0).astype(np.float64)
    last = (group == gstarts.shape[0] - 2).astype(np.float64)
    below_pos, below_neg, lo_pos, lo_neg, hi_pos, hi_neg = carry
    above_pos = P - below_pos - gp.sum()
    neg_below = below_neg - first * lo_neg + cn[group]
    neg_tied = gn[group] + first * lo_neg + last * hi_neg
    pos_above = above_pos - last * hi_pos + (gp.sum() - cp[group] - gp[group])
    pos_tied = gp[group] + first * lo_pos + last * hi_pos
    positive = labels == 1.0
    a = area - weight * np.where(
        positive, neg_below + 0.5 * neg_tied, pos_above + 0.5 * pos_tied
    )
    p_left = np.where(positive, P - weight, P)
    n_left = np.where(positive, N, N - weight)
    ok = (p_left > 0.0) & (n_left > 0.0)
    auc = np.where(ok, a / np.where(ok, p_left * n_left, 1.0), np.nan)
    full = area / (P * N) if P > 0.0 and N > 0.0 else np.nan
    return rows, np.where(weight == 0.0, full, auc)  # no weight: no change


def auc_loo_partition(
    frame: Any,
    carry: np.ndarray,
    root: tuple[float, float, float],
    ref: float,
    sign: float,
    stratified: bool = False,
) -> Any:
    """The leave-one-out power sums of one sorted partition's rows (runs on a
    worker): arguments as :func:`auc_loo_values`, ``ref`` the signed
    estimate; with ``stratified``, those of each class (the labels)."""
    rows, auc = auc_loo_values(frame, carry, root)
    return class_sums((sign * auc - ref)[:, None], rows, frame, stratified)


def class_sums(e: np.ndarray, rows: np.ndarray, frame: Any, stratified: bool) -> Any:
    """The power sums of a sorted partition's deviations ``e``: of all rows,
    or with ``stratified`` of each class (its labels, 0.0 and 1.0)."""
    if not stratified:
        return loo_sums(e, rows)
    labels = frame["label"].to_numpy(dtype=np.float64)
    return _sums(e, rows, _CLASSES, labels)


#: The classes of a sorted partition's labels (1.0: the positive class).
_CLASSES = np.array([0.0, 1.0])


@dataclass(frozen=True)
class R2Rule:
    """What every partition needs for R2's leave-one-out values: the centre
    ``c`` of the sums, ``S1``, ``W`` and ``M2`` of the original rows, each
    prediction's ``SSR`` and R2, the counts of :class:`R2Sums`, the least and
    greatest ``y``, ``force_finite``, the metric's sign and the signed
    estimate ``ref``."""

    centre: float
    s1: float
    total: float
    m2: float
    ssr: np.ndarray
    r2: np.ndarray
    counts: np.ndarray
    lo: float
    hi: float
    force_finite: bool
    sign: float
    ref: float


def r2_rule(
    total: R2Sums, r2: np.ndarray, force_finite: bool, sign: float, ref: float
) -> R2Rule:
    """The rule from the merged sums (their last row: the original rows) and
    each prediction's R2 of the original rows."""
    p = r2.shape[0]
    row = total.s[-1]
    s1, s2, w = float(row[p]), float(row[p + 1]), float(row[p + 2])
    m2 = s2 - s1 * s1 / w if w > 0.0 else np.nan
    lo, hi = float(total.lo[-1]), float(total.hi[-1])
    ssr = row[:p].copy()
    return R2Rule(
        total.shift, s1, w, m2, ssr, r2, total.counts, lo, hi, force_finite, sign, ref
    )


def _r2_constant(rule: R2Rule, y: np.ndarray, held: np.ndarray) -> np.ndarray:
    """Whether the rows left without each row hold one ``y`` value: all do,
    or the row is the only one at one extreme and the others sit at the
    other."""
    n_pos, n_lo, n_hi = (int(c) for c in rule.counts[:3])
    alone_lo = (y == rule.lo) & (n_lo == 1) & (n_hi == n_pos - 1)
    alone_hi = (y == rule.hi) & (n_hi == 1) & (n_lo == n_pos - 1)
    every = rule.lo == rule.hi or not rule.m2 > 0.0
    return np.full(y.shape[0], every) | (held & (alone_lo | alone_hi))


def r2_loo_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    rule: R2Rule,
    job: tuple[tuple[str, ...], dict[str, Any], str],
    strata: np.ndarray | None = None,
) -> Any:
    """The leave-one-out power sums of one partition's rows (runs on a
    worker); ``job``: the predictions' parameter names, the metric's options
    and the entry point's name; with ``strata`` (the distinct values of
    ``y_true``), those of each stratum."""
    yt = np.asarray(y_true)
    m = yt.shape[0]
    rows = np.arange(start, start + m, dtype=np.int64)
    if m == 0:
        return _sums(np.empty((0, 1)), rows, strata, yt)
    y, squares, w = r2_rows(yt, preds, sample_weight, *job)
    held = w > 0.0
    none_left = int(rule.counts[0]) - held == 0
    constant = _r2_constant(rule, y, held)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        d = (y - rule.centre) - rule.s1 / rule.total
        left = rule.total - w
        k = w * rule.total / np.where(left > 0.0, left, 1.0)
        m2 = rule.m2 - k * d * d
        value = np.zeros(m)
        for j, r in enumerate(squares):
            wr = w * r
            perfect = int(rule.counts[3 + j]) - (wr != 0.0) == 0
            if rule.force_finite:
                flat = np.where(perfect, 1.0, 0.0)
            else:
                flat = np.full(m, np.nan)
            general = (wr - (rule.ssr[j] / rule.m2) * k * d * d) / m2
            diff = np.where(
                constant | (m2 <= 0.0),
                flat - rule.r2[j],
                np.where(perfect, 1.0 - rule.r2[j], general),
            )
            diff = np.where(none_left, np.nan, np.where(held, diff, 0.0))
            value = value + diff if j == 0 else value - diff
        full = rule.r2[0] - rule.r2[1] if len(squares) == 2 else rule.r2[0]
        e = rule.sign * value + (rule.sign * full - rule.ref)
    return _sums(e[:, None], rows, strata, yt)
