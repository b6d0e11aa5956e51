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

The suffix sums depend on the deleted weight ``v`` only.  With at most
``AP_DISTINCT_WEIGHTS`` distinct non-zero weights (unit or few integer
weights) they are accumulated once per weight, lowest group first, each row
read off as its group is reached: O(n + m G) for ``m`` weights over ``G``
groups, the terms those of :func:`average_precision_kernel` with row ``i``'s
weight zeroed, summed in another order.  With more distinct weights
(continuous weights), ``1 / (T_h - v) = sum_j v**j / T_h**(j + 1)`` for the
groups with ``T_h >= 8 v``: the suffix sums of ``p_h TP_h / T_h**(j + 1)`` and
``p_h FP_h / T_h**(j + 1)`` (``AP_TERMS`` = 18 powers, the first left out below
6e-17 of the sum) are accumulated once, lowest group first, and each row sums
the few groups above ``8 v`` term by term: O(n AP_TERMS) plus, per row, the
groups scored higher whose cumulative weight is below 8 times its own (a
handful unless the weights span orders of magnitude).  The counts ``T_h - v``
carry the rounding of ``T_h`` (relative error about ``eps T_h / (T_h - v)``;
exact with integer weights); a row holding all but 2**-20 of the weight scored
at least as high as itself is computed by the kernel instead.

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

import math

import numpy as np
from numba import njit

__all__ = [
    "AP_RATIO",
    "AP_TERMS",
    "ap_moments_add",
    "ap_scale",
    "ap_series_rows",
    "ap_series_sums",
    "average_precision_kernel",
    "loo_average_precision",
    "loo_balanced_accuracy",
    "loo_r2",
    "loo_roc_auc",
]


@njit(cache=True, nogil=True)
def average_precision_kernel(order, y_sorted, group_starts, w):  # pragma: no cover
    """Step-wise average precision over the distinct scores (same arguments as
    ``roc_auc_kernel``)."""
    tp = 0.0
    fp = 0.0
    acc = 0.0
    for g in range(group_starts.shape[0] - 1):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        tp += pos
        fp += total - pos
        if pos > 0.0:
            acc += pos * (tp / (tp + fp))
    if tp <= 0.0:
        return np.nan
    return acc / tp


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
def _ap_row(
    k,
    g,
    v,
    lower_neg,
    lower_pos,
    y_sorted,
    order,
    pos_g,
    tp_g,
    t_g,
    above,
    n_pos,
    P,
    out,
):  # pragma: no cover - compiled
    """Row ``order[k]`` (group ``g``, weight ``v``) given ``S-_v(g)`` and
    ``S+_v(g)``: its own group's term and the value."""
    p = pos_g[g]
    if y_sorted[k] == 1.0:
        if n_pos <= 1:
            out[order[k]] = np.nan
            return
        p = p - v
        own = p * ((tp_g[g] - v) / (t_g[g] - v)) if p > 0.0 else 0.0
        out[order[k]] = (above[g] + own + lower_pos) / (P - v)
    elif n_pos == 0:
        out[order[k]] = np.nan
    else:
        own = p * (tp_g[g] / (t_g[g] - v)) if p > 0.0 else 0.0
        out[order[k]] = (above[g] + own + lower_neg) / P


@njit(cache=True, nogil=True)
def _ap_direct(lo, hi, v, pos_g, tp_g, t_g):  # pragma: no cover - compiled
    """``S-_v`` and ``S+_v`` over the groups ``lo .. hi - 1``, term by term."""
    s_neg = 0.0
    s_pos = 0.0
    for h in range(hi - 1, lo - 1, -1):
        p = pos_g[h]
        if p > 0.0:
            s_neg += p * (tp_g[h] / (t_g[h] - v))
            s_pos += p * ((tp_g[h] - v) / (t_g[h] - v))
    return s_neg, s_pos


@njit(cache=True, nogil=True)
def _ap_by_weight(order, y_sorted, group_starts, sw, groups, out):
    """The suffix sums accumulated once per distinct weight: O(m G)."""
    # pragma: no cover - compiled
    pos_g, tp_g, t_g, above, n_pos = groups
    G = pos_g.shape[0]
    P = tp_g[G - 1]
    uniq, starts, positions, group = _by_weight(order, group_starts, sw)
    for c in range(uniq.shape[0]):
        v = uniq[c]
        s_neg = 0.0  # S-_v and S+_v over the groups below ``h``
        s_pos = 0.0
        h = G - 1
        for j in range(starts[c + 1] - 1, starts[c] - 1, -1):
            k = positions[j]
            g = group[k]
            if _cancels(t_g[g], v):
                continue
            if h > g:
                d_neg, d_pos = _ap_direct(g + 1, h + 1, v, pos_g, tp_g, t_g)
                s_neg += d_neg
                s_pos += d_pos
                h = g
            _ap_row(
                k,
                g,
                v,
                s_neg,
                s_pos,
                y_sorted,
                order,
                pos_g,
                tp_g,
                t_g,
                above,
                n_pos,
                P,
                out,
            )


#: Terms of the series of ``1 / (T - v)`` in powers of ``v / T``, used where
#: ``T >= AP_RATIO v``: the first term left out is below ``AP_RATIO**-AP_TERMS``
#: (8**-18, 6e-17) of the sum.
AP_RATIO = 8.0
AP_TERMS = 18


@njit(cache=True, nogil=True)
def _ap_cuts(order, group_starts, sw, t_s, scale):  # pragma: no cover - compiled
    """Per sorted position: its group and its cut, the last group before the
    series applies to it (-1 for a row of weight 0); rows bucketed by cut."""
    n = order.shape[0]
    G = group_starts.shape[0] - 1
    group = np.empty(n, dtype=np.int64)
    cut = np.full(n, -1, dtype=np.int64)
    starts = np.zeros(G + 1, dtype=np.int64)
    for g in range(G):
        for k in range(group_starts[g], group_starts[g + 1]):
            group[k] = g
            wk = sw[order[k]]
            if wk != 0.0:
                # the groups with T < AP_RATIO v (at least 2**-40 of the largest
                # weight, so no power of 1 / T overflows) are summed term by term
                thr = AP_RATIO * max(wk * scale, 2.0**-40)
                cut[k] = max(g, np.searchsorted(t_s, thr) - 1)
                starts[cut[k] + 1] += 1
    for g in range(G):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    rows = np.empty(starts[G], dtype=np.int64)
    for k in range(n):
        if cut[k] >= 0:
            rows[fill[cut[k]]] = k
            fill[cut[k]] += 1
    return group, starts, rows


@njit(cache=True, nogil=True)
def _ap_series(order, y_sorted, group_starts, sw, groups, out):
    """The suffix sums as series in the deleted weight: O(n AP_TERMS) but for
    the few groups scored above ``AP_RATIO`` times a row's weight."""
    # pragma: no cover - compiled
    wmax = 0.0
    for i in range(sw.shape[0]):
        wmax = max(wmax, sw[i])
    tp_g = groups[1]
    ap_series_rows(
        order,
        y_sorted,
        group_starts,
        sw,
        groups,
        (tp_g[tp_g.shape[0] - 1], ap_scale(wmax)),
        (np.zeros(AP_TERMS), np.zeros(AP_TERMS), 0.0),
        True,
        out,
    )


@njit(cache=True, nogil=True)
def ap_scale(wmax):  # pragma: no cover - compiled
    """The power of 2 scaling the series' counts, from the largest weight."""
    return math.ldexp(1.0, -math.frexp(wmax)[1])


@njit(cache=True, nogil=True)
def ap_moments_add(p, tp, t, scale, m_neg, m_pos):  # pragma: no cover - compiled
    """Adds a group's terms ``p TP / T**(j + 1)`` and ``p FP / T**(j + 1)``
    (scaled by ``scale``) to the series sums ``m_neg`` and ``m_pos``."""
    inv = 1.0 / (t * scale)
    x = inv
    a = (p * scale) * (tp * scale)  # scaled: no overflow
    b = (p * scale) * ((t - tp) * scale)
    for j in range(AP_TERMS):
        m_neg[j] += a * x
        m_pos[j] += b * x
        x *= inv


@njit(cache=True, nogil=True)
def ap_series_sums(pos_g, tp_g, t_g, scale, m_neg, m_pos):  # pragma: no cover
    """Adds the groups' terms (highest score first) to the series sums, the
    lowest first; returns their weight ``p``."""
    p_sum = 0.0
    for h in range(pos_g.shape[0] - 1, -1, -1):
        p = pos_g[h]
        if p > 0.0:
            ap_moments_add(p, tp_g[h], t_g[h], scale, m_neg, m_pos)
            p_sum += p
    return p_sum


@njit(cache=True, nogil=True)
def ap_series_rows(order, y_sorted, group_starts, sw, groups, totals, base, skip, out):
    """The rows' values by the series over ``groups`` (highest score first,
    some maybe rowless) and, below them, the groups summed in ``base``
    (:func:`ap_moments_add`'s sums and weight ``p``; each ``T >= AP_RATIO``
    times every row's weight).  ``totals``: ``P`` and the scale; ``skip``:
    leave the rows that :func:`_cancels` (for the kernel)."""
    # pragma: no cover - compiled
    pos_g, tp_g, t_g, above, n_pos = groups
    G = pos_g.shape[0]
    P, scale = totals
    t_s = t_g * scale
    group, starts, rows = _ap_cuts(order, group_starts, sw, t_s, scale)
    # over the groups > h, all scaled: sum p TP / T**(j + 1), sum p FP / T**(j + 1)
    m_neg = base[0].copy()
    m_pos = base[1].copy()
    p_sum = base[2]
    for h in range(G - 1, -1, -1):
        for j in range(starts[h], starts[h + 1]):
            k = rows[j]
            g = group[k]
            v = sw[order[k]]
            if skip and _cancels(t_g[g], v):
                continue
            vs = v * scale
            s_neg = m_neg[AP_TERMS - 1]
            s_fp = m_pos[AP_TERMS - 1]
            for t in range(AP_TERMS - 2, -1, -1):
                s_neg = s_neg * vs + m_neg[t]
                s_fp = s_fp * vs + m_pos[t]
            d_neg, d_pos = _ap_direct(g + 1, h + 1, v, pos_g, tp_g, t_g)
            lower_neg = d_neg + s_neg / scale
            lower_pos = d_pos + (p_sum - s_fp / scale)
            _ap_row(
                k,
                g,
                v,
                lower_neg,
                lower_pos,
                y_sorted,
                order,
                pos_g,
                tp_g,
                t_g,
                above,
                n_pos,
                P,
                out,
            )
        p = pos_g[h]
        if p > 0.0:
            ap_moments_add(p, tp_g[h], t_g[h], scale, m_neg, m_pos)
            p_sum += p


@njit(cache=True, nogil=True)
def _cancels(t, v):  # pragma: no cover - compiled
    """Whether ``t - v`` keeps fewer than 20 of ``t``'s bits: the row holds
    nearly all the weight scored at least as high as itself.  Such a row's
    value is the kernel's (O(n)); each such row's ``t`` exceeds 2**20 times
    the previous one's, so there are at most about 100 of them."""
    return t - v <= t * 2.0**-20


#: Distinct non-zero weights up to which the suffix sums are accumulated once
#: per weight (exact term by term); the series beyond.
AP_DISTINCT_WEIGHTS = 8


@njit(cache=True, nogil=True)
def loo_average_precision(order, y_sorted, group_starts, sw, full, out):
    """``out[i]``: the average precision with row ``i``'s weight set to 0
    (``full`` where it is 0 already); see the module notes."""
    # pragma: no cover - compiled
    groups = _ap_groups(order, y_sorted, group_starts, sw)
    for i in range(sw.shape[0]):
        if sw[i] == 0.0:
            out[i] = full
    if groups[0].shape[0] == 0:
        return
    distinct = np.unique(sw)
    m = distinct.shape[0] - (1 if distinct[0] == 0.0 else 0)
    if m <= AP_DISTINCT_WEIGHTS:
        _ap_by_weight(order, y_sorted, group_starts, sw, groups, out)
    else:
        _ap_series(order, y_sorted, group_starts, sw, groups, out)
    t_g = groups[2]
    w = sw.copy()
    for g in range(t_g.shape[0]):
        for k in range(group_starts[g], group_starts[g + 1]):
            i = order[k]
            if sw[i] != 0.0 and _cancels(t_g[g], sw[i]):
                w[i] = 0.0
                out[i] = average_precision_kernel(order, y_sorted, group_starts, w)
                w[i] = sw[i]


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
