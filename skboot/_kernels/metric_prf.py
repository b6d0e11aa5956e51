"""Precision, recall and F1 from per-class counts (numba code only): the
kernel, its reduction of the counts, and its leave-one-out values.

Deleting row ``i`` of weight ``v`` (true class ``t``, predicted ``q``) takes
``v`` from the predictions of ``q``, the true labels of ``t`` and, when
``t == q``, the true positives of ``t``: the binary case is O(1) per row; the
micro and macro averages reduce the changed counts again, O(n_classes) per row
(O(n n_classes) in all, the kernel's own arithmetic on the same counts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "loo_prf_binary",
    "loo_prf_multiclass",
    "prf_from_counts",
    "prf_kernel",
    "prf_value",
]


@njit(cache=True, nogil=True)
def prf_value(tp, pred_sum, true_sum, which, zero_division):  # pragma: no cover
    if which == 0:
        denominator = pred_sum
        numerator = tp
    elif which == 1:
        denominator = true_sum
        numerator = tp
    else:
        denominator = pred_sum + true_sum
        numerator = 2.0 * tp
    if denominator <= 0.0:
        return zero_division
    return numerator / denominator


@njit(cache=True, nogil=True)
def prf_kernel(
    codes_true, codes_pred, n_classes, average, which, zero_division, w
):  # pragma: no cover - compiled
    """Precision (``which=0``), recall (1) or F1 (2) for one average.

    ``average`` 0 is binary with positive class code 1, 1 micro, 2 macro over the
    classes present in the replicate.  3 (micro) and 4 (macro) average over
    the listed classes only, codes ``0 .. n_classes - 2`` (scikit-learn's
    ``labels=``): code ``n_classes - 1`` gathers the classes not listed, whose
    rows count only as errors of the listed ones, and a listed class absent
    from the replicate still counts in the macro average (as
    ``zero_division``, left out when NaN).
    """
    n = codes_true.shape[0]
    if average == 0:
        tp = 0.0
        pred_sum = 0.0
        true_sum = 0.0
        for i in range(n):
            wi = w[i]
            t = codes_true[i]
            p = codes_pred[i]
            true_sum += wi * t
            pred_sum += wi * p
            tp += wi * (t * p)
        return prf_value(tp, pred_sum, true_sum, which, zero_division)

    counts = np.zeros((3, n_classes))  # tp, pred_sum, true_sum per class
    for i in range(n):
        wi = w[i]
        t = codes_true[i]
        p = codes_pred[i]
        counts[1, p] += wi
        counts[2, t] += wi
        if t == p:
            counts[0, t] += wi
    return prf_from_counts(counts, n_classes, average, which, zero_division)


@njit(cache=True, nogil=True)
def prf_from_counts(counts, n_classes, average, which, zero_division):
    """The micro or macro average (``average`` 1 to 4, as in
    :func:`prf_kernel`) of the per-class weights ``counts`` (3, n_classes): of
    the true positives, the predictions and the true labels."""
    # pragma: no cover - compiled
    listed = average >= 3
    n_counted = n_classes - 1 if listed else n_classes
    if listed:
        total = 0.0
        for c in range(n_classes):
            total += counts[2, c]
        if total <= 0.0:
            return np.nan
    if average == 1 or average == 3:
        tp = 0.0
        pred_sum = 0.0
        true_sum = 0.0
        for c in range(n_counted):
            tp += counts[0, c]
            pred_sum += counts[1, c]
            true_sum += counts[2, c]
        if not listed and pred_sum + true_sum <= 0.0:
            return np.nan
        return prf_value(tp, pred_sum, true_sum, which, zero_division)

    acc = 0.0
    m = 0
    for c in range(n_counted):
        # a class present in the replicate, or any listed class
        if listed or counts[1, c] + counts[2, c] > 0.0:
            v = prf_value(
                counts[0, c], counts[1, c], counts[2, c], which, zero_division
            )
            if not np.isnan(v):
                acc += v
                m += 1
    if m == 0:
        return np.nan
    return acc / m


@njit(cache=True, nogil=True)
def loo_prf_binary(codes_true, codes_pred, which, zero_division, sw, full, out):
    # pragma: no cover - compiled
    tp = 0.0
    pred_sum = 0.0
    true_sum = 0.0
    for i in range(sw.shape[0]):
        wi = sw[i]
        t = codes_true[i]
        q = codes_pred[i]
        true_sum += wi * t
        pred_sum += wi * q
        tp += wi * (t * q)
    for i in range(sw.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        t = codes_true[i]
        q = codes_pred[i]
        out[i] = prf_value(
            tp - wi * (t * q),
            pred_sum - wi * q,
            true_sum - wi * t,
            which,
            zero_division,
        )


@njit(cache=True, nogil=True)
def loo_prf_multiclass(
    codes_true, codes_pred, n_classes, average, which, zero_division, sw, full, out
):  # pragma: no cover - compiled
    """``out[i]``: the micro or macro average with row ``i``'s weight set to 0
    (``full`` where it is 0 already)."""
    counts = np.zeros((3, n_classes))
    for i in range(codes_true.shape[0]):
        wi = sw[i]
        t = codes_true[i]
        q = codes_pred[i]
        counts[1, q] += wi
        counts[2, t] += wi
        if t == q:
            counts[0, t] += wi
    for i in range(codes_true.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        t = codes_true[i]
        q = codes_pred[i]
        kept = (counts[0, t], counts[1, q], counts[2, t])
        counts[1, q] = kept[1] - wi
        counts[2, t] = kept[2] - wi
        if t == q:
            counts[0, t] = kept[0] - wi
        out[i] = prf_from_counts(counts, n_classes, average, which, zero_division)
        counts[0, t], counts[1, q], counts[2, t] = kept
