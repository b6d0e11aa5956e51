"""Numba kernels of the model metrics (numba code only): each evaluates one metric
on a bootstrap replicate given as per-row weights, in O(n).

Replicate ``b`` is a float64 weight vector ``w`` of length ``n``: ``w[i]`` is the
number of times row ``i`` was drawn, times the user's ``sample_weight[i]`` if any
(0 for rows not drawn).  ``kernel(*prepared.args, w)`` takes the arrays that
:mod:`skboot.metrics` prepared once per dataset (per-row losses, integer class
codes, the argsort of the scores and the boundaries of tied groups), makes one or
two passes over the rows, does no sort and allocates nothing in its loop over the
rows (the multiclass kernels allocate one ``(3, n_classes)`` scratch array per
call).  Every array argument is float64 or int64 and ``w`` a C-contiguous float64
vector, so each kernel compiles to a single signature.

A kernel returns NaN, and only NaN, for an undefined replicate (see
``skboot.metrics.METRICS[name].undefined_when``; every kernel is also NaN when all
weights are zero).  It never warns or raises: the caller applies the library's
undefined-replicate policy.

Packed form and drivers
-----------------------
A numba function that receives a kernel as an argument is compiled anew in every
process (a dispatcher type does not hit numba's on-disk cache).  Every metric is
therefore packed into one tuple type with a kernel id (:data:`KID_MEAN`, ...)

    ``(kid, F0, F1, I0, I1, n0, n1, n2, x0)``

(int64, two float64 arrays, two int64 arrays, three int64 scalars, a float64;
``skboot.metrics.pack``).  The drivers called from Python (:func:`eval_metric`,
:func:`metric_chunk`, :func:`metric_loo`) are compiled per kernel id, a literal
(:mod:`skboot._kernels.literal`), so a run compiles its metric's kernel only and
each version is cached on disk; :func:`eval_packed` switches on the id at run
time (every kernel compiled in) for numba callers.

Leave-one-out values
--------------------
:func:`metric_loo` gives the BCa jackknife's leave-one-out values (row ``i``'s
weight set to 0), every metric by a closed form: O(n) for the weighted-mean
metrics (accuracy, log loss, Brier score, the regression errors), R^2, balanced
accuracy, binary precision / recall / F1 and ROC AUC; O(n n_classes) for the
micro and macro averages (:mod:`.metric_prf`); average precision in O(n + m G)
for ``m`` distinct non-zero weights over ``G`` groups of tied scores, O(n) with
unit weights (:mod:`.metric_loo`).  :func:`loo_generic` (one O(n) kernel call
per row, O(n^2) in all) is the reference they are tested against.
"""

from __future__ import annotations

import math

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from skboot._kernels.literal import call_literal
from skboot._kernels.metric_loo import (
    average_precision_kernel,
    loo_average_precision,
    loo_balanced_accuracy,
    loo_r2,
    loo_roc_auc,
)
from skboot._kernels.metric_prf import (
    loo_prf_binary,
    loo_prf_multiclass,
    prf_kernel,
    prf_value,
)

__all__ = [
    "KID_AP",
    "KID_BACC",
    "KID_MEAN",
    "KID_PRF",
    "KID_R2",
    "KID_RMS",
    "KID_ROC",
    "average_precision_kernel",
    "balanced_accuracy_kernel",
    "eval_metric",
    "eval_packed",
    "loo_generic",
    "loo_mean",
    "loo_one",
    "loo_prf_binary",
    "loo_roc_auc",
    "metric_chunk",
    "metric_loo",
    "prf_kernel",
    "prf_value",
    "r2_kernel",
    "roc_auc_kernel",
    "weighted_mean_kernel",
    "weighted_rms_kernel",
]

#: Kernel ids of the packed form: weighted mean, root of a weighted mean, R^2,
#: balanced accuracy, precision / recall / F1, ROC AUC, average precision.
KID_MEAN, KID_RMS, KID_R2, KID_BACC, KID_PRF, KID_ROC, KID_AP = range(7)


# --------------------------------------------------------------------------- #
# Kernels                                                                       #
# --------------------------------------------------------------------------- #


@njit(cache=True, nogil=True)
def weighted_mean_kernel(values, w):  # pragma: no cover - compiled
    """``sum(w * values) / sum(w)``; NaN when ``sum(w) == 0``.

    Computed as ``(sum(w * (values - c)) + sum(w) * c) / sum(w)`` with ``c`` the
    value of the first row of non-zero weight: the rounding error then scales
    with the spread of the values, not with their offset, and 0/1 values with
    integer weights (accuracy) give the exactly rounded ratio.
    """
    total = 0.0
    acc = 0.0
    c = 0.0
    first = True
    for i in range(values.shape[0]):
        wi = w[i]
        if wi != 0.0:
            if first:
                c = values[i]
                first = False
            total += wi
            acc += wi * (values[i] - c)
    if total <= 0.0:
        return np.nan
    return (acc + total * c) / total


@njit(cache=True, nogil=True)
def weighted_rms_kernel(squares, w):  # pragma: no cover - compiled
    """``sqrt(sum(w * squares) / sum(w))``; NaN when ``sum(w) == 0``."""
    return math.sqrt(weighted_mean_kernel(squares, w))


@njit(cache=True, nogil=True)
def r2_kernel(y_true, squares, force_finite, w):  # pragma: no cover - compiled
    """Weighted coefficient of determination (two passes).

    ``y_true`` is centred on its first drawn value ``c`` before the first pass, so
    the weighted mean's rounding error, which enters the denominator, scales
    with the spread of ``y_true`` and not with its offset.
    """
    total = 0.0
    acc = 0.0
    numerator = 0.0
    lo = np.inf
    hi = -np.inf
    c = 0.0
    first = True
    for i in range(y_true.shape[0]):
        wi = w[i]
        if wi > 0.0:
            y = y_true[i]
            if first:
                c = y
                first = False
            total += wi
            acc += wi * (y - c)
            numerator += wi * squares[i]
            lo = min(lo, y)
            hi = max(hi, y)
    if total <= 0.0:
        return np.nan
    if lo == hi:  # the drawn y_true are constant: zero variance
        if not force_finite:
            return np.nan
        return 1.0 if numerator == 0.0 else 0.0
    mean_c = acc / total  # the weighted mean of y_true - c
    denominator = 0.0
    for i in range(y_true.shape[0]):
        d = (y_true[i] - c) - mean_c
        denominator += w[i] * d * d
    if denominator == 0.0:  # pragma: no cover - only through rounding
        if not force_finite:
            return np.nan
        return 1.0 if numerator == 0.0 else 0.0
    if numerator == 0.0:
        return 1.0
    return 1.0 - numerator / denominator


@njit(cache=True, nogil=True)
def balanced_accuracy_kernel(codes_true, correct, n_classes, w):  # pragma: no cover
    """Mean per-class recall; NaN if a class of ``y_true`` has zero weight."""
    counts = np.zeros((2, n_classes))
    for i in range(codes_true.shape[0]):
        wi = w[i]
        c = codes_true[i]
        counts[0, c] += wi
        counts[1, c] += wi * correct[i]
    acc = 0.0
    for c in range(n_classes):
        if counts[0, c] <= 0.0:
            return np.nan
        acc += counts[1, c] / counts[0, c]
    return acc / n_classes


@njit(cache=True, nogil=True)
def roc_auc_kernel(order, y_sorted, group_starts, w):  # pragma: no cover - compiled
    """Trapezoidal ROC AUC, each group of tied scores one step of the curve.

    ``order`` sorts the rows by decreasing score, ``y_sorted`` holds the labels
    (0.0 / 1.0) in that order, tie group ``g`` spans
    ``group_starts[g]:group_starts[g + 1]``.
    """
    tp = 0.0
    fp = 0.0
    area = 0.0
    for g in range(group_starts.shape[0] - 1):
        total = 0.0
        pos = 0.0
        for k in range(group_starts[g], group_starts[g + 1]):
            wi = w[order[k]]
            total += wi
            pos += wi * y_sorted[k]
        neg = total - pos
        area += neg * (tp + 0.5 * pos)
        tp += pos
        fp += neg
    if tp <= 0.0 or fp <= 0.0:
        return np.nan
    return area / (tp * fp)


# --------------------------------------------------------------------------- #
# Drivers of the packed form                                                    #
# --------------------------------------------------------------------------- #


def _kernel_value(kid, p, w):  # pragma: no cover - replaced by the overload
    raise NotImplementedError("compiled code only")


@overload(_kernel_value, jit_options={"cache": True, "nogil": True})  # type: ignore[typeddict-unknown-key]
def _kernel_value_impl(kid, p, w):
    """``kernel(*args, w)`` of the packed metric ``p`` whose id ``kid`` is known
    when the caller is compiled (a literal): only that metric's kernel is typed
    and compiled into the caller."""
    if not isinstance(kid, types.IntegerLiteral):
        return None
    k = kid.literal_value
    if k == KID_MEAN:
        return lambda kid, p, w: weighted_mean_kernel(p[1], w)
    if k == KID_RMS:
        return lambda kid, p, w: weighted_rms_kernel(p[1], w)
    if k == KID_R2:
        return lambda kid, p, w: r2_kernel(p[1], p[2], p[5] != 0, w)
    if k == KID_BACC:
        return lambda kid, p, w: balanced_accuracy_kernel(p[3], p[1], p[5], w)
    if k == KID_PRF:
        return lambda kid, p, w: prf_kernel(p[3], p[4], p[5], p[6], p[7], p[8], w)
    if k == KID_ROC:
        return lambda kid, p, w: roc_auc_kernel(p[3], p[1], p[4], w)
    return lambda kid, p, w: average_precision_kernel(p[3], p[1], p[4], w)


@njit(cache=True, nogil=True)
def eval_packed(p, w):  # pragma: no cover - compiled
    """``kernel(*args, w)`` of the packed metric ``p``, any metric (every kernel
    is compiled in); for numba callers that receive the metric at run time."""
    kid = p[0]
    if kid == KID_MEAN:
        return _kernel_value(KID_MEAN, p, w)
    if kid == KID_RMS:
        return _kernel_value(KID_RMS, p, w)
    if kid == KID_R2:
        return _kernel_value(KID_R2, p, w)
    if kid == KID_BACC:
        return _kernel_value(KID_BACC, p, w)
    if kid == KID_PRF:
        return _kernel_value(KID_PRF, p, w)
    if kid == KID_ROC:
        return _kernel_value(KID_ROC, p, w)
    return _kernel_value(KID_AP, p, w)


@njit(cache=True, nogil=True)
def _eval_one(kid, p, w):  # pragma: no cover - compiled
    literally(kid)
    return _kernel_value(kid, p, w)


def eval_metric(p: tuple, w: np.ndarray) -> float:
    """:func:`eval_packed` from Python, compiled for ``p``'s metric only."""
    return call_literal(_eval_one, (p[0],), p, w)


@njit(cache=True, nogil=True)
def _metric_chunk(ka, kb, pa, pb, two, sw, weighted, W, out):  # pragma: no cover
    literally(ka)
    literally(kb)
    for r in range(W.shape[0]):
        row = W[r]
        if weighted:
            for i in range(row.shape[0]):
                row[i] *= sw[i]
        v = _kernel_value(ka, pa, row)
        if two:
            v = v - _kernel_value(kb, pb, row)
        out[r, 0] = v


def metric_chunk(pa: tuple, pb: tuple, two: bool, sw, weighted: bool, W, out) -> None:
    """One chunk of replicates: ``out[r, 0] = m_a(w_r) [- m_b(w_r)]``.

    ``W`` holds the resampling counts (or weights) of the chunk's replicates,
    one row each; it is multiplied in place by the sample weights ``sw`` when
    ``weighted``.  ``two`` selects the paired difference of two metrics
    evaluated on the same weights (model comparison).  The driver is compiled
    for the two metrics' ids, so only their kernels are compiled.
    """
    call_literal(_metric_chunk, (pa[0], pb[0]), pa, pb, two, sw, weighted, W, out)


# --------------------------------------------------------------------------- #
# Leave-one-out values                                                          #
# --------------------------------------------------------------------------- #


@njit(cache=True, nogil=True)
def loo_generic(kid, p, sw, full, out):  # pragma: no cover - compiled
    """The definition: the metric with each row's weight zeroed in turn, one
    kernel call per row (O(n^2)); the reference of the closed forms."""
    w = sw.copy()
    for i in range(w.shape[0]):
        if sw[i] == 0.0:
            out[i] = full
            continue
        w[i] = 0.0
        out[i] = _kernel_value(kid, p, w)
        w[i] = sw[i]


@njit(cache=True, nogil=True)
def loo_mean(values, sw, full, rms, out):  # pragma: no cover - compiled
    """Leave-one-out weighted means (or root means), centred as in
    :func:`weighted_mean_kernel` on the first row of non-zero weight."""
    total = 0.0
    acc = 0.0
    c = 0.0
    first = True
    for i in range(values.shape[0]):
        wi = sw[i]
        if wi != 0.0:
            if first:
                c = values[i]
                first = False
            total += wi
            acc += wi * (values[i] - c)
    for i in range(values.shape[0]):
        wi = sw[i]
        if wi == 0.0:
            out[i] = full
            continue
        t = total - wi
        if t <= 0.0:
            out[i] = np.nan
            continue
        v = ((acc - wi * (values[i] - c)) + t * c) / t
        out[i] = math.sqrt(max(v, 0.0)) if rms else v


def _loo_by_kid(kid, p, sw, full, out):  # pragma: no cover - the overload's
    raise NotImplementedError("compiled code only")


@overload(_loo_by_kid, jit_options={"cache": True, "nogil": True})  # type: ignore[typeddict-unknown-key]
def _loo_by_kid_impl(kid, p, sw, full, out):
    """The leave-one-out rule of the metric ``kid`` (a literal): its closed
    form (a kernel call per row for a metric without one)."""
    if not isinstance(kid, types.IntegerLiteral):
        return None
    k = kid.literal_value
    if k in (KID_MEAN, KID_RMS):
        rms = k == KID_RMS
        return lambda kid, p, sw, full, out: loo_mean(p[1], sw, full, rms, out)
    if k == KID_BACC:
        return lambda kid, p, sw, full, out: loo_balanced_accuracy(
            p[3], p[1], p[5], sw, full, out
        )
    if k == KID_AP:
        return lambda kid, p, sw, full, out: loo_average_precision(
            p[3], p[1], p[4], sw, full, out
        )
    if k == KID_R2:
        return lambda kid, p, sw, full, out: loo_r2(
            p[1], p[2], p[5] != 0, sw, full, out
        )
    if k == KID_PRF:

        def prf(kid, p, sw, full, out):
            if p[6] == 0:
                loo_prf_binary(p[3], p[4], p[7], p[8], sw, full, out)
            else:
                loo_prf_multiclass(p[3], p[4], p[5], p[6], p[7], p[8], sw, full, out)

        return prf
    if k == KID_ROC:
        return lambda kid, p, sw, full, out: loo_roc_auc(
            p[3], p[1], p[4], sw, full, out
        )
    return lambda kid, p, sw, full, out: loo_generic(kid, p, sw, full, out)


@njit(cache=True, nogil=True)
def loo_one(kid, p, sw, out):  # pragma: no cover - compiled
    full = _kernel_value(kid, p, sw)
    _loo_by_kid(kid, p, sw, full, out)


@njit(cache=True, nogil=True)
def _metric_loo(ka, kb, pa, pb, two, sw, out):  # pragma: no cover - compiled
    literally(ka)
    literally(kb)
    loo_one(ka, pa, sw, out)
    if two:
        tmp = np.empty(out.shape[0])
        loo_one(kb, pb, sw, tmp)
        for i in range(out.shape[0]):
            out[i] -= tmp[i]


def metric_loo(
    pa: tuple, pb: tuple, two: bool, sw: np.ndarray, out: np.ndarray
) -> None:
    """Leave-one-out values: ``out[i]`` is the metric with ``sw[i]`` set to 0.

    Closed forms (see the module notes): O(n) for most metrics, O(n
    n_classes) for averaged precision/recall/F1, O(n + m G) for average
    precision with ``m`` distinct weights.  Compiled for the two metrics' ids
    only.
    """
    call_literal(_metric_loo, (pa[0], pb[0]), pa, pb, two, sw, out)
