"""Numba kernels of the curve bands (numba code only): the ROC curve and the
precision-recall curve of one bootstrap replicate, read on a fixed grid, in one
pass over the score-sorted rows.

Replicate ``b`` is a float64 weight vector ``w`` (the row's multiplicity in the
replicate times its ``sample_weight``; 0 for rows not drawn), as for the metric
kernels (:mod:`skboot._kernels.metric`).  The rows are taken in the order
``order`` (decreasing score, prepared once per dataset); tie group ``g`` spans
``group_starts[g]:group_starts[g + 1]``.  After a sequential pass for the
class totals ``P`` and ``N`` (:func:`class_totals`), one pass over the sorted
rows sums the positive and negative weight of each group into the running
counts ``tp``, ``fp``: the curve's points, one per distinct score, are those
of ``sklearn.metrics.roc_curve`` and ``precision_recall_curve`` on the
replicate (``(0, 0)`` first), and the pass reads the curve on the sorted grid
as it reaches them:

* ROC (:func:`roc_pass`): the TPR at FPR ``f`` is that of the last point
  with ``fpr_k <= f`` when ``fpr_k == f`` (the top of a vertical segment),
  else the straight line between that point and the next (a group of tied
  scores is one diagonal segment);
* precision-recall (:func:`pr_pass`): the precision at recall ``r`` is that
  of the first point (highest threshold) with ``recall_k >= r`` and
  ``recall_k > 0``: the step function whose area is the average precision.

``fpr_k = fp_k / N``, ``tpr_k = tp_k / P``, ``recall_k = tp_k / P`` and
``precision_k = tp_k / (tp_k + fp_k)`` are computed as scikit-learn computes
them; the totals are summed in row order (scikit-learn: in score order), which
differs by rounding only with non-integer weights.  A replicate without
positives (or, for ROC, without negatives) fills its row with NaN; nothing
warns or raises.  Cost per replicate: O(n + G) for ``G`` grid points, no
allocation.

Two models (:func:`curve_difference_chunk`): the rows of a replicate are one
weight vector, read once for the class totals (the same for both models), then
one pass per model over that model's score order; the replicate's value is the
difference of the two curves on the grid.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "class_totals",
    "curve_band_chunk",
    "curve_difference_chunk",
    "one_curve",
    "pr_pass",
    "roc_pass",
]

#: Curve ids of :func:`curve_band_chunk`.
CURVE_ROC, CURVE_PR = 0, 1


@njit(cache=True, nogil=True)
def class_totals(y_rows, w):  # pragma: no cover - compiled
    """Positive and negative weight of the replicate (rows in their order)."""
    total = 0.0
    pos = 0.0
    for i in range(w.shape[0]):
        total += w[i]
        pos += w[i] * y_rows[i]
    return pos, total - pos


#: Relative margin of the cheap test that skips the exact (dividing) test of a
#: grid point: ``x / T > g`` implies ``x > g * T * (1 - _MARGIN)`` whatever the
#: rounding of the products and quotients (a few ulps).
_MARGIN = 1e-12


@njit(cache=True, nogil=True)
def roc_pass(order, y_sorted, group_starts, P, N, w, grid, out):  # pragma: no cover
    """TPR at each FPR of the increasing ``grid`` (module notes), the totals
    ``P``, ``N`` given.

    Grid point ``f`` is read when the pass reaches the first point with
    ``fp / N > f``: the point before it (``f0``, ``t0``, the top of any
    vertical rise) is then the last with ``fpr <= f``, and the TPR is the
    straight line between the two (exactly ``t0 / P`` when ``f0 / N == f``).
    A multiply-only test skips the division away from the grid points.
    """
    G = grid.shape[0]
    j = 0
    t = 0.0
    f = 0.0
    cheap = grid[0] * N * (1.0 - _MARGIN) if G else np.inf
    for g in range(group_starts.shape[0] - 1):
        t0 = t
        f0 = f
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        t += pos
        f += total - pos
        if f > cheap:
            x1 = f / N
            while j < G and grid[j] < x1:
                x0 = f0 / N
                y0 = t0 / P
                out[j] = y0 + (t / P - y0) * ((grid[j] - x0) / (x1 - x0))
                j += 1
            cheap = grid[j] * N * (1.0 - _MARGIN) if j < G else np.inf
    y_last = t / P
    while j < G:  # FPR 1 (or one rounding short of it)
        out[j] = y_last
        j += 1


@njit(cache=True, nogil=True)
def pr_pass(order, y_sorted, group_starts, P, w, grid, out):  # pragma: no cover
    """Precision at each recall of the increasing ``grid`` (module notes), the
    total positive weight ``P`` given: recall ``r`` is read at the first point
    with ``tp > 0`` and ``tp / P >= r``.  A multiply-only test skips the
    division away from the grid points."""
    G = grid.shape[0]
    j = 0
    t = 0.0
    f = 0.0
    cheap = grid[0] * P * (1.0 - _MARGIN) if G else np.inf
    t_top = 0.0  # the largest tp met near a grid point, and its precision
    p_top = np.nan
    for g in range(group_starts.shape[0] - 1):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        t += pos
        f += total - pos
        if t > 0.0 and t >= cheap:
            r = t / P
            if t > t_top:
                t_top = t
                p_top = t / (t + f)
            while j < G and grid[j] <= r:
                out[j] = p_top
                j += 1
            cheap = grid[j] * P * (1.0 - _MARGIN) if j < G else np.inf
    while j < G:
        # recall 1, reached one rounding short of the grid's 1 (the total P is
        # summed in row order): the first point with all the positives
        out[j] = p_top
        j += 1


@njit(cache=True, nogil=True)
def one_curve(
    curve, order, y_sorted, group_starts, P, N, row, grid, o
):  # pragma: no cover - compiled
    """The curve ``curve`` (0: ROC, 1: precision-recall) of the weights
    ``row``, the class totals ``P``, ``N`` given, into ``o``: NaN where it is
    undefined (no positive weight, or for ROC no negative weight)."""
    if P <= 0.0 or (curve == CURVE_ROC and N <= 0.0):
        for j in range(o.shape[0]):
            o[j] = np.nan
    elif curve == CURVE_ROC:
        roc_pass(order, y_sorted, group_starts, P, N, row, grid, o)
    else:
        pr_pass(order, y_sorted, group_starts, P, row, grid, o)


@njit(cache=True, nogil=True)
def curve_band_chunk(
    curve, order, y_sorted, group_starts, y_rows, sw, weighted, grid, W, out
):  # pragma: no cover - compiled
    """One chunk of replicates: ``out[r]`` is the curve ``curve`` (0: ROC, 1:
    precision-recall) of the weights ``W[r]`` on ``grid``.

    ``W`` holds the chunk's resampling counts (or weights), one row per
    replicate; it is multiplied in place by ``sw`` when ``weighted``.  Each
    replicate makes one sequential pass over its weights (the class totals,
    ``y_rows`` being the 0/1 labels in row order) and one pass over the
    score-sorted rows that reads the curve on the grid as it goes.
    """
    for r in range(W.shape[0]):
        row = W[r]
        if weighted:
            for i in range(row.shape[0]):
                row[i] *= sw[i]
        P, N = class_totals(y_rows, row)
        one_curve(curve, order, y_sorted, group_starts, P, N, row, grid, out[r])


@njit(cache=True, nogil=True)
def curve_difference_chunk(
    curve,
    order_a,
    y_sorted_a,
    starts_a,
    order_b,
    y_sorted_b,
    starts_b,
    y_rows,
    sw,
    weighted,
    grid,
    W,
    out,
    tmp,
):  # pragma: no cover - compiled
    """One chunk of replicates of two models on the same rows: ``out[r]`` is
    the curve of model a minus that of model b, both of the weights ``W[r]``.

    Each replicate's weights are multiplied by ``sw`` once (when
    ``weighted``) and summed once for the class totals; model a's pass writes
    ``out[r]``, model b's the scratch ``tmp`` (one grid row), then
    ``out[r] -= tmp``.  A replicate on which the curves are undefined (no
    positive, or for ROC no negative: the same for both models) is NaN.
    """
    for r in range(W.shape[0]):
        row = W[r]
        if weighted:
            for i in range(row.shape[0]):
                row[i] *= sw[i]
        P, N = class_totals(y_rows, row)
        o = out[r]
        one_curve(curve, order_a, y_sorted_a, starts_a, P, N, row, grid, o)
        one_curve(curve, order_b, y_sorted_b, starts_b, P, N, row, grid, tmp)
        for j in range(o.shape[0]):
            o[j] -= tmp[j]
