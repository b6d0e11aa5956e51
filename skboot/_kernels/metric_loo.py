"""Leave-one-out values of the rank metrics, balanced accuracy and R^2 in O(n)
after the sort (numba code only), for BCa's acceleration.

Average precision
-----------------
Over the groups of tied scores, highest first, group ``h`` holds the weight
``p_h`` of its positives; ``TP_h`` and ``T_h`` are the weights of the
positives and of all rows scored at least as high, and

    ``AP = sum_h [p_h > 0] p_h TP_h / T_h / P``

(scikit-learn's step-wise sum, one threshold per distinct score; ``P`` the
weight of the positives).  Deleting row ``i`` of weight ``v`` in group ``g``
leaves the groups scored higher unchanged and takes ``v`` from ``T_h`` at
every group ``h >= g`` (and from ``TP_h`` and ``P`` when ``i`` is a positive,
and from ``p_g``).  So, with ``A_g`` the sum of the unchanged terms above
group ``g``:

* a negative row gives ``(A_g + p_g TP_g / (T_g - v) + S-_v(g)) / P``,
  ``S-_v(g) = sum_{h > g} p_h TP_h / (T_h - v)``;
* a positive row gives ``(A_g + (p_g - v) (TP_g - v) / (T_g - v) + S+_v(g))
  / (P - v)``, ``S+_v(g) = sum_{h > g} p_h (TP_h - v) / (T_h - v)``,
  undefined (NaN) when it is the only positive of non-zero weight.

The suffix sums depend on the deleted weight ``v`` only, so they are
accumulated once per distinct non-zero weight, lowest group first, and every
row of that weight is read off as its group is reached: O(n + m G) for ``m``
distinct weights over ``G`` groups, O(n) with unit or few distinct (integer)
weights.  The terms are those of
:func:`skboot._kernels.metric.average_precision_kernel` with row ``i``'s
weight zeroed, summed in another order: with integer weights every count is
exact and the values agree to rounding of the sums; with continuous weights
``T_h - v`` also carries the rounding of ``T_h`` (relative error about
``eps * T_h / (T_h - v)``).

ROC AUC
-------
Deleting a positive row takes its weight times the negatives' weight below it
(half of those tied with it) from the area; a negative row, symmetrically.

Balanced accuracy
-----------------
Per class ``c`` of ``y_true``: the weight ``n_c`` of its rows and ``k_c`` of
the correct ones.  Deleting row ``i`` changes its own class's two sums only:
O(n + n_classes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "loo_average_precision",
    "loo_balanced_accuracy",
    "loo_r2",
    "loo_roc_auc",
]


@njit(cache=True, nogil=True)
def _ap_groups(order, y_sorted, group_starts, sw):  # pragma: no cover - compiled
    """Per group: ``p_h``, ``TP_h``, ``T_h`` (cumulative from the top) and
    ``A_h``, the sum of the terms of the groups above ``h``; and the number of
    positive rows of non-zero weight."""
    G = group_starts.shape[0] - 1
    pos_g = np.zeros(G)
    tp_g = np.zeros(G)
    t_g = np.zeros(G)
    above = np.zeros(G)
    tp = 0.0
    fp = 0.0
    acc = 0.0
    n_pos = 0
    for g in range(G):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = sw[order[k]]
            total += wi
            pos += wi * y_sorted[k]
            if wi != 0.0 and y_sorted[k] == 1.0:
                n_pos += 1
        tp += pos
        fp += total - pos
        above[g] = acc
        pos_g[g] = pos
        tp_g[g] = tp
        t_g[g] = tp + fp
        if pos > 0.0:
            acc += pos * (tp / (tp + fp))
    return pos_g, tp_g, t_g, above, n_pos


@njit(cache=True, nogil=True)
def _by_weight(order, group_starts, sw):  # pragma: no cover - compiled
    """The distinct non-zero weights and, per weight, the sorted positions of
    its rows in increasing order (CSR: ``positions[starts[j]:starts[j + 1]]``),
    with each position's group."""
    n = order.shape[0]
    G = group_starts.shape[0] - 1
    group = np.empty(n, dtype=np.int64)
    for g in range(G):
        for k in range(group_starts[g], group_starts[g + 1]):
            group[k] = g
    nonzero = 0
    for k in range(n):
        if sw[order[k]] != 0.0:
            nonzero += 1
    values = np.empty(nonzero)
    j = 0
    for k in range(n):
        if sw[order[k]] != 0.0:
            values[j] = sw[order[k]]
            j += 1
    uniq = np.unique(values)
    m = uniq.shape[0]
    code = np.full(n, -1, dtype=np.int64)
    starts = np.zeros(m + 1, dtype=np.int64)
    for k in range(n):
        wk = sw[order[k]]
        if wk != 0.0:
            c = np.searchsorted(uniq, wk)
            code[k] = c
            starts[c + 1] += 1
    for c in range(m):
        starts[c + 1] += starts[c]
    fill = starts[:-1].copy()
    positions = np.empty(nonzero, dtype=np.int64)
    for k in range(n):
        c = code[k]
        if c >= 0:
            positions[fill[c]] = k
            fill[c] += 1
    return uniq, starts, positions, group


@njit(cache=True, nogil=True)
def loo_average_precision(order, y_sorted, group_starts, sw, full, out):
    """``out[i]``: the average precision with row ``i``'s weight set to 0
    (``full`` where it is 0 already); see the module notes.  O(n + m G)."""
    # pragma: no cover - compiled
    pos_g, tp_g, t_g, above, n_pos = _ap_groups(order, y_sorted, group_starts, sw)
    G = pos_g.shape[0]
    P = tp_g[G - 1] if G > 0 else 0.0
    for i in range(sw.shape[0]):
        if sw[i] == 0.0:
            out[i] = full
    uniq, starts, positions, group = _by_weight(order, group_starts, sw)
    for c in range(uniq.shape[0]):
        v = uniq[c]
        s_neg = 0.0  # S-_v and S+_v over the groups below ``h``
        s_pos = 0.0
        h = G - 1
        for j in range(starts[c + 1] - 1, starts[c] - 1, -1):
            k = positions[j]
            g = group[k]
            while h > g:
                p = pos_g[h]
                if p > 0.0:
                    s_neg += p * (tp_g[h] / (t_g[h] - v))
                    s_pos += p * ((tp_g[h] - v) / (t_g[h] - v))
                h -= 1
            p = pos_g[g]
            if y_sorted[k] == 1.0:
                if n_pos <= 1:
                    out[order[k]] = np.nan
                    continue
                p = p - v
                own = p * ((tp_g[g] - v) / (t_g[g] - v)) if p > 0.0 else 0.0
                out[order[k]] = (above[g] + own + s_pos) / (P - v)
            else:
                if n_pos == 0:
                    out[order[k]] = np.nan
                    continue
                own = p * (tp_g[g] / (t_g[g] - v)) if p > 0.0 else 0.0
                out[order[k]] = (above[g] + own + s_neg) / P


@njit(cache=True, nogil=True)
def loo_balanced_accuracy(codes_true, correct, n_classes, sw, full, out):
    """``out[i]``: the balanced accuracy with row ``i``'s weight set to 0
    (``full`` where it is 0 already); NaN where a class is left with zero
    weight.  O(n + n_classes)."""
    # pragma: no cover - compiled
    counts = np.zeros((2, n_classes))
    for i in range(codes_true.shape[0]):
        wi = sw[i]
        c = codes_true[i]
        counts[0, c] += wi
        counts[1, c] += wi * correct[i]
    empty = 0
    acc = 0.0
    for c in range(n_classes):
        if counts[0, c] <= 0.0:
            empty += 1
        else:
            acc += counts[1, c] / counts[0, c]
    for i in range(codes_true.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        c = codes_true[i]
        left = counts[0, c] - wi
        if empty > 0 or left <= 0.0:
            out[i] = np.nan
            continue
        own = counts[1, c] / counts[0, c]
        out[i] = (acc - own + (counts[1, c] - wi * correct[i]) / left) / n_classes


@njit(cache=True, nogil=True)
def loo_roc_auc(order, y_sorted, group_starts, sw, full, out):  # pragma: no cover
    n_groups = group_starts.shape[0] - 1
    pos_g = np.zeros(n_groups)
    neg_g = np.zeros(n_groups)
    tp = 0.0
    fp = 0.0
    area = 0.0
    for g in range(n_groups):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = sw[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        neg = total - pos
        pos_g[g] = pos
        neg_g[g] = neg
        area += neg * (tp + 0.5 * pos)
        tp += pos
        fp += neg
    tp_before = 0.0
    fp_before = 0.0
    for g in range(n_groups):
        neg_below = fp - fp_before - neg_g[g]
        for k in range(group_starts[g], group_starts[g + 1]):
            i = order[k]
            wi = sw[i]
            if wi == 0.0:
                out[i] = full
                continue
            if y_sorted[k] == 1.0:
                a = area - wi * (neg_below + 0.5 * neg_g[g])
                p_left = tp - wi
                n_left = fp
            else:
                a = area - wi * (tp_before + 0.5 * pos_g[g])
                p_left = tp
                n_left = fp - wi
            if p_left <= 0.0 or n_left <= 0.0:
                out[i] = np.nan
            else:
                out[i] = a / (p_left * n_left)
        tp_before += pos_g[g]
        fp_before += neg_g[g]


@njit(cache=True, nogil=True)
def loo_r2(y_true, squares, force_finite, sw, full, out):  # pragma: no cover
    """``out[i]``: R^2 with row ``i``'s weight set to 0 (``full`` where it is 0
    already).  The residual sum loses ``v squares[i]``; the weighted sum of
    squares about the mean loses ``v (y_i - m) (y_i - m_(i))`` (the weighted
    form of Welford's update, ``m`` and ``m_(i)`` the means with and without
    row ``i``), both centred on the first row of non-zero weight as in
    :func:`skboot._kernels.metric.r2_kernel`.  The drawn ``y_true`` left
    constant (or the residuals all zero) is decided by counting rows, not by
    the rounded sums.  O(n)."""
    n = y_true.shape[0]
    total = 0.0
    acc = 0.0
    numerator = 0.0
    lo = np.inf
    hi = -np.inf
    c = 0.0
    n_drawn = 0
    n_resid = 0  # drawn rows with a non-zero residual
    for i in range(n):
        wi = sw[i]
        if wi > 0.0:
            y = y_true[i]
            if n_drawn == 0:
                c = y
            n_drawn += 1
            n_resid += squares[i] != 0.0
            total += wi
            acc += wi * (y - c)
            numerator += wi * squares[i]
            lo = min(lo, y)
            hi = max(hi, y)
    n_lo = 0
    n_hi = 0
    n_mid = 0
    mean_c = acc / total if total > 0.0 else 0.0
    denominator = 0.0
    for i in range(n):
        d = (y_true[i] - c) - mean_c
        denominator += sw[i] * d * d
        if sw[i] > 0.0:
            y = y_true[i]
            n_lo += y == lo
            n_hi += y == hi
            n_mid += lo < y < hi
    for i in range(n):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        if n_drawn <= 1:
            out[i] = np.nan
            continue
        y = y_true[i]
        resid = n_resid - (squares[i] != 0.0) > 0
        num = numerator - wi * squares[i] if resid else 0.0
        constant = lo == hi or (
            n_mid == 0 and ((y == lo and n_lo == 1) or (y == hi and n_hi == 1))
        )
        t = total - wi
        z = y - c
        den = denominator - wi * (z - mean_c) * (z - (acc - wi * z) / t)
        if constant or den <= 0.0:
            out[i] = (1.0 if num == 0.0 else 0.0) if force_finite else np.nan
        elif num == 0.0:
            out[i] = 1.0
        else:
            out[i] = 1.0 - num / den
