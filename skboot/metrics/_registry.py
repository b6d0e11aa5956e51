"""The registry of fused metrics (:data:`METRICS`: name -> :class:`MetricSpec`) and
the packed form the numba drivers take.

A fused metric is a ``prepare_<name>`` function (:mod:`skboot.metrics._prepare`)
and a kernel (:mod:`skboot._kernels.metric`): ``spec.kernel(*spec.prepare(y_true,
y_pred, **options).args, w)`` is the metric on the replicate of row weights
``w``, NaN when undefined.  :func:`pack` turns a prepared metric into the tuple
``(kid, F0, F1, I0, I1, n0, n1, n2, x0)`` shared by all metrics, which
:func:`skboot._kernels.metric.eval_packed`, ``metric_chunk`` and ``metric_loo``
take (one numba signature each, cached on disk).

Examples
--------
>>> import numpy as np
>>> from skboot.metrics import METRICS, metric_on_weights
>>> metric_on_weights("roc_auc", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], np.ones(4))
0.75
>>> METRICS["roc_auc"].greater_is_better
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.metric import (
    KID_AP,
    KID_BACC,
    KID_MEAN,
    KID_PRF,
    KID_R2,
    KID_RMS,
    KID_ROC,
    average_precision_kernel,
    balanced_accuracy_kernel,
    prf_kernel,
    r2_kernel,
    roc_auc_kernel,
    weighted_mean_kernel,
    weighted_rms_kernel,
)
from skboot._validation import as_float_array
from skboot.metrics._checks import invalid
from skboot.metrics._prepare import (
    PreparedMetric,
    prepare_accuracy,
    prepare_average_precision,
    prepare_balanced_accuracy,
    prepare_brier_score,
    prepare_f1,
    prepare_log_loss,
    prepare_mean_absolute_error,
    prepare_mean_squared_error,
    prepare_precision,
    prepare_r2,
    prepare_recall,
    prepare_roc_auc,
    prepare_root_mean_squared_error,
)

__all__ = [
    "KERNEL_IDS",
    "METRICS",
    "MetricSpec",
    "is_undefined",
    "metric_on_weights",
    "pack",
    "pack_arrays",
    "packed",
]


@dataclass(frozen=True)
class MetricSpec:
    """Registry entry of a metric.

    Attributes
    ----------
    name : str
        The metric's name, as in scikit-learn.
    prepare : callable
        ``prepare(y_true, y_pred, **options) -> PreparedMetric``.
    kernel : numba dispatcher
        ``kernel(*prepared.args, w) -> float``.
    greater_is_better : bool
        Whether larger values are better (False for losses and errors).
    response_method : str or tuple of str
        What ``y_pred`` is, spelled as scikit-learn scorers do: ``"predict"``,
        ``"predict_proba"`` or ``("decision_function", "predict_proba")``.
    needs_proba : bool
        True when ``y_pred`` must hold probabilities.
    undefined_when : str
        When the kernel returns NaN (besides all weights zero).
    options : tuple of str
        Keyword options accepted by ``prepare``.
    """

    name: str
    prepare: Callable[..., PreparedMetric]
    kernel: Any
    greater_is_better: bool
    response_method: str | tuple[str, ...]
    needs_proba: bool
    undefined_when: str
    options: tuple[str, ...] = ()


def is_undefined(value: float) -> bool:
    """Whether a kernel result marks an undefined replicate (it is NaN).

    Parameters
    ----------
    value : float
        A value returned by a metric kernel.

    Returns
    -------
    bool
    """
    return math.isnan(value)


# --------------------------------------------------------------------------- #
# Registry                                                                      #
# --------------------------------------------------------------------------- #

_ALL_ZERO = "all weights are zero"
_SCORE = ("decision_function", "predict_proba")
_PRF_OPTIONS = ("average", "zero_division", "pos_label", "labels")
_PROBA_OPTIONS = ("labels", "pos_label")


def _spec(
    name: str,
    prepare: Callable[..., PreparedMetric],
    kernel: Any,
    *,
    greater_is_better: bool,
    response_method: str | tuple[str, ...],
    undefined_when: str,
    options: tuple[str, ...] = (),
) -> tuple[str, MetricSpec]:
    needs_proba = response_method == "predict_proba"
    spec = MetricSpec(
        name,
        prepare,
        kernel,
        greater_is_better,
        response_method,
        needs_proba,
        undefined_when,
        options,
    )
    return name, spec


#: name -> :class:`MetricSpec`; ``spec.kernel(*spec.prepare(y_true, y_pred).args, w)``.
METRICS: dict[str, MetricSpec] = dict(
    [
        _spec(
            "accuracy",
            prepare_accuracy,
            weighted_mean_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "balanced_accuracy",
            prepare_balanced_accuracy,
            balanced_accuracy_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="a class present in the full y_true has zero weight",
        ),
        _spec(
            "precision",
            prepare_precision,
            prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no predicted "
            "positive",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "recall",
            prepare_recall,
            prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no positive in "
            "y_true",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "f1",
            prepare_f1,
            prf_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="average='binary', zero_division=nan and no positive in "
            "y_true or y_pred",
            options=_PRF_OPTIONS,
        ),
        _spec(
            "roc_auc",
            prepare_roc_auc,
            roc_auc_kernel,
            greater_is_better=True,
            response_method=_SCORE,
            undefined_when="the replicate holds one class (no positive or no "
            "negative weight)",
            options=("pos_label",),
        ),
        _spec(
            "average_precision",
            prepare_average_precision,
            average_precision_kernel,
            greater_is_better=True,
            response_method=_SCORE,
            undefined_when="the replicate holds no positive",
            options=("pos_label",),
        ),
        _spec(
            "log_loss",
            prepare_log_loss,
            weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict_proba",
            undefined_when=_ALL_ZERO,
            options=_PROBA_OPTIONS,
        ),
        _spec(
            "brier_score",
            prepare_brier_score,
            weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict_proba",
            undefined_when=_ALL_ZERO,
            options=_PROBA_OPTIONS,
        ),
        _spec(
            "mean_squared_error",
            prepare_mean_squared_error,
            weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "root_mean_squared_error",
            prepare_root_mean_squared_error,
            weighted_rms_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "mean_absolute_error",
            prepare_mean_absolute_error,
            weighted_mean_kernel,
            greater_is_better=False,
            response_method="predict",
            undefined_when=_ALL_ZERO,
        ),
        _spec(
            "r2",
            prepare_r2,
            r2_kernel,
            greater_is_better=True,
            response_method="predict",
            undefined_when="force_finite=False and the drawn y_true values are all "
            "equal",
            options=("force_finite",),
        ),
    ]
)


def _check_weights(w: Any, n: int) -> np.ndarray:
    arr = np.asarray(w)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise invalid(
            "w", "metric_on_weights", f"a 1-d array of length {n}", f"shape {arr.shape}"
        )
    out = np.ascontiguousarray(as_float_array(arr, "w", "metric_on_weights"))
    if (out < 0).any():
        raise invalid(
            "w",
            "metric_on_weights",
            "an array of non-negative weights",
            f"minimum {float(out.min())}",
        )
    return out


def metric_on_weights(
    name: str, y_true: Any, y_pred: Any, w: Any, **options: Any
) -> float:
    """Evaluate metric ``name`` on the replicate with row weights ``w``.

    Prepares the data (see the ``prepare_<name>`` functions) and calls the kernel
    once: ``METRICS[name].kernel(*prepared.args, w)``.  Convenient for one-off
    use and tests; the engine prepares once and calls the kernel per replicate.

    Parameters
    ----------
    name : str
        Key of :data:`METRICS`.
    y_true, y_pred : array-like
        As for ``prepare_<name>``.
    w : array-like of shape (n_samples,)
        Non-negative row weights (bootstrap counts times sample weights).
    **options
        Options of ``prepare_<name>``.

    Returns
    -------
    float
        The metric, NaN if undefined on this replicate.
    """
    if name not in METRICS:
        raise invalid(
            "name", "metric_on_weights", f"a str among {sorted(METRICS)}", repr(name)
        )
    prepared = METRICS[name].prepare(y_true, y_pred, **options)
    weights = _check_weights(w, prepared.n_samples)
    return float(prepared.kernel(*prepared.args, weights))


# --------------------------------------------------------------------------- #
# Packed form                                                                   #
# --------------------------------------------------------------------------- #

_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int64)

#: The kernel id of each metric kernel in the packed form.
KERNEL_IDS: dict[Any, int] = {
    weighted_mean_kernel: KID_MEAN,
    weighted_rms_kernel: KID_RMS,
    r2_kernel: KID_R2,
    balanced_accuracy_kernel: KID_BACC,
    prf_kernel: KID_PRF,
    roc_auc_kernel: KID_ROC,
    average_precision_kernel: KID_AP,
}


def pack_arrays(
    prepared: PreparedMetric,
) -> tuple[tuple[np.ndarray, ...], tuple[int, int, int, int, float]]:
    """Split a prepared metric into its packed arrays and scalars.

    Returns
    -------
    arrays : tuple of 4 ndarrays
        ``(F0, F1, I0, I1)``: float64, float64, int64, int64 (empty when unused).
    scalars : tuple
        ``(kid, n0, n1, n2, x0)``.

    :func:`packed` joins them back into the tuple the drivers take.  They are
    kept apart so the arrays can travel as top-level joblib arguments (memory-
    mapped by loky) while the scalars stay on the statistic object.
    """
    kid = KERNEL_IDS[prepared.kernel]
    a = prepared.args
    F0, F1, I0, I1 = _EMPTY_F, _EMPTY_F, _EMPTY_I, _EMPTY_I
    n0 = n1 = n2 = 0
    x0 = 0.0
    if kid in (KID_MEAN, KID_RMS):
        (F0,) = a
    elif kid == KID_R2:
        F0, F1, n0 = a[0], a[1], int(bool(a[2]))
    elif kid == KID_BACC:
        I0, F0, n0 = a[0], a[1], int(a[2])
    elif kid == KID_PRF:
        I0, I1 = a[0], a[1]
        n0, n1, n2, x0 = int(a[2]), int(a[3]), int(a[4]), float(a[5])
    else:  # ranking: (order, y_sorted, group_starts)
        I0, F0, I1 = a
    return (F0, F1, I0, I1), (kid, n0, n1, n2, x0)


def packed(
    arrays: tuple[np.ndarray, ...], scalars: tuple[int, int, int, int, float]
) -> tuple[Any, ...]:
    """The driver tuple ``(kid, F0, F1, I0, I1, n0, n1, n2, x0)``."""
    kid, n0, n1, n2, x0 = scalars
    F0, F1, I0, I1 = arrays
    return (int(kid), F0, F1, I0, I1, int(n0), int(n1), int(n2), float(x0))


def pack(prepared: PreparedMetric) -> tuple[Any, ...]:
    """``packed(*pack_arrays(prepared))``."""
    return packed(*pack_arrays(prepared))
