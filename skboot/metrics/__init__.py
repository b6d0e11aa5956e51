"""Bootstrap confidence intervals for model metrics, paired model comparison,
estimator refits and the .632 / .632+ estimates of prediction error.

Three tiers, fastest first:

1. **Fused metrics** (:func:`metric_ci`, :func:`compare_metrics` with a metric of
   the registry :data:`skboot.metrics.METRICS`, or the scikit-learn
   function / scorer that maps to it).  The data are prepared once (labels
   encoded, scores argsorted), then each chunk of replicates is one numba call:
   the resampling plan writes the chunk's per-row counts, the driver multiplies
   them by ``sample_weight`` and evaluates the metric kernel on every row in
   O(n), with no sort, no index array and no Python per replicate.  Mean-type
   metrics (accuracy, log_loss, brier_score, the regression errors) under the
   iid bootstrap without sample weights skip the count row: the draws are summed
   as they are made (the engine's ``iid_sum_1d``, the same stream).  The
   jackknife for BCa zeroes one row's weight at a time, in closed form (O(n) in
   all) for the mean-type metrics, binary precision / recall / F1 and ROC AUC,
   and through the kernel otherwise (O(n) per row); with ``groups`` it is the
   delete-one-group jackknife, with ``stratify=True`` the multi-sample one.
2. **Other metric functions** (any ``metric(y_true, y_pred, **options)``): called
   once per replicate on the drawn rows, with ``sample_weight`` equal to the
   counts times the user's weights when the function accepts ``sample_weight``,
   else on the gathered rows (repeats included).
3. **Estimator refits** (:class:`EstimatorStatistic`, :func:`bootstrap_score`):
   a clone of the estimator is fit per replicate, with ``sample_weight=counts``
   when its ``fit`` accepts ``sample_weight`` (no row is copied; rows not drawn
   get weight 0, as in scikit-learn's bagging), else on the gathered rows.

Every path draws replicate ``b`` from the same counter-based stream, so the
fused and generic paths give the same replicates and ``resampler.replicate(b)``
regenerates any of them.

Undefined replicates
--------------------
A metric can be undefined on a replicate (ROC AUC when the replicate holds one
class, recall without positives, R^2 on constant targets; see
``METRICS[name].undefined_when``).  The ``undefined`` parameter says what to do:

- ``"raise"`` (default): a ``ValueError`` that gives the count, the first such
  replicate and the remedies.
- ``"omit"``: those replicates are dropped, an
  :class:`~skboot.UndefinedStatisticWarning` is emitted, and the count and the
  replicate numbers are recorded on the result (``n_undefined``,
  ``undefined_replicates``).  The interval is then computed from the defined
  replicates: it describes the metric conditionally on being defined, which is
  close to the unconditional one only when few replicates are dropped.  For
  BCa, undefined leave-one-out values are dropped the same way (with a warning).

No interval is ever computed from a distribution holding NaN.

Results
-------
:func:`metric_ci` returns a frozen :class:`MetricCI` and :func:`compare_metrics`
a frozen :class:`MetricComparison`: the estimate, the interval asked for
(``.confidence_interval()``, at ``level`` by ``method``), the
undefined-replicate record, and the underlying :class:`~skboot.BootstrapResult`
of the defined replicates (``.result``); ``.plot()`` draws the distribution
with the estimate and the interval, ``.to_frame()`` gives one row.
``.confidence_interval(level=..., method=...)`` computes another interval from
the same replicates (nothing is resampled) with the metric's jackknife rules
above; prefer it to ``.result.confidence_interval``, which knows
neither the undefined policy nor the stratified acceleration.  For
classification metrics, ``stratify=True`` keeps the class counts of every
replicate, which makes ROC AUC, average precision and balanced accuracy defined
on every replicate.

Modules
-------
* :mod:`~skboot.metrics._prepare`, :mod:`~skboot.metrics._checks`: the
  ``prepare_*`` functions (inputs validated, labels encoded, scores argsorted,
  once per dataset) and their checks;
* :mod:`~skboot.metrics._labels`: class labels as scikit-learn reads them (the
  positive class of each binary metric, ``pos_label``, ``labels=``);
* :mod:`~skboot.metrics._registry`: :data:`METRICS`, :class:`MetricSpec`, the
  packed form of the numba drivers (:mod:`skboot._kernels.metric`);
* :mod:`~skboot.metrics._resolve`: names, scorers and scikit-learn functions to a
  :class:`ResolvedMetric` (:func:`resolve_metric`);
* :mod:`~skboot.metrics._statistics`: :class:`MetricStatistic`,
  :class:`CallableMetricStatistic`;
* :mod:`~skboot.metrics._inputs`, :mod:`~skboot.metrics._ci`,
  :mod:`~skboot.metrics._results`: :func:`metric_ci`, :func:`compare_metrics`,
  their checks and results; :mod:`~skboot.metrics._plot`, their ``plot``;
* :mod:`~skboot.metrics._score`: :func:`bootstrap_score`, :class:`BootstrapScore`;
  :mod:`~skboot.metrics._no_information`: the no-information score of ".632+";
* :mod:`~skboot.metrics._curves`, :mod:`~skboot.metrics._curve_stat`,
  :mod:`~skboot.metrics._curve_result`, :mod:`~skboot.metrics._curve_display`:
  :func:`roc_curve_band`, :func:`precision_recall_band` (bootstrap bands of
  the curves on a grid, one numba pass per replicate over the score-sorted
  rows), :class:`CurveBand` and the displays;
* :mod:`~skboot.metrics._curve_sources`: where the displays' bands get their
  inputs, a fitted classifier's scores or the run of a :func:`metric_ci`
  result (:meth:`MetricCI.curve_band`, ``from_metric_ci``: the band on the
  interval's own replicates);
* :mod:`~skboot.metrics._curve_compare`: :func:`compare_roc_curves`,
  :func:`compare_precision_recall_curves` (the bands of the difference of two
  models' curves on the same replicates, :class:`CurveComparison`);
* :mod:`~skboot.metrics._guard`: scikit-learn's ``UndefinedMetricWarning`` as an
  error while a metric is evaluated.

The names load lazily (:func:`skboot._lazy.lazy_exports`): a dask worker that
imports a partition function of this package (:mod:`~skboot.metrics._dask_mean`,
:mod:`~skboot.metrics._dask_rank`, :mod:`~skboot.metrics._dask_confusion`,
:mod:`~skboot.metrics._dask_r2`, :mod:`~skboot.metrics._dask_loo`) loads that
module and the kernels it runs, not scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skboot._lazy import lazy_exports

if TYPE_CHECKING:
    from skboot._engine import EstimatorStatistic
    from skboot.metrics._ci import compare_metrics, metric_ci
    from skboot.metrics._curve_compare import (
        compare_precision_recall_curves,
        compare_roc_curves,
    )
    from skboot.metrics._curve_display import (
        PrecisionRecallBandDisplay,
        RocCurveBandDisplay,
    )
    from skboot.metrics._curve_result import CurveBand, CurveComparison
    from skboot.metrics._curves import precision_recall_band, roc_curve_band
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
    from skboot.metrics._registry import (
        METRICS,
        MetricSpec,
        is_undefined,
        metric_on_weights,
        pack,
        pack_arrays,
        packed,
    )
    from skboot.metrics._resolve import ResolvedMetric, resolve_metric
    from skboot.metrics._results import MetricCI, MetricComparison
    from skboot.metrics._score import BootstrapScore, bootstrap_score
    from skboot.metrics._statistics import CallableMetricStatistic, MetricStatistic

#: Name -> the module that defines it (imported on first access).
_EXPORTS = {
    "EstimatorStatistic": "skboot._engine",
    "compare_metrics": "skboot.metrics._ci",
    "metric_ci": "skboot.metrics._ci",
    "compare_precision_recall_curves": "skboot.metrics._curve_compare",
    "compare_roc_curves": "skboot.metrics._curve_compare",
    "PrecisionRecallBandDisplay": "skboot.metrics._curve_display",
    "RocCurveBandDisplay": "skboot.metrics._curve_display",
    "CurveBand": "skboot.metrics._curve_result",
    "CurveComparison": "skboot.metrics._curve_result",
    "precision_recall_band": "skboot.metrics._curves",
    "roc_curve_band": "skboot.metrics._curves",
    "PreparedMetric": "skboot.metrics._prepare",
    "prepare_accuracy": "skboot.metrics._prepare",
    "prepare_average_precision": "skboot.metrics._prepare",
    "prepare_balanced_accuracy": "skboot.metrics._prepare",
    "prepare_brier_score": "skboot.metrics._prepare",
    "prepare_f1": "skboot.metrics._prepare",
    "prepare_log_loss": "skboot.metrics._prepare",
    "prepare_mean_absolute_error": "skboot.metrics._prepare",
    "prepare_mean_squared_error": "skboot.metrics._prepare",
    "prepare_precision": "skboot.metrics._prepare",
    "prepare_r2": "skboot.metrics._prepare",
    "prepare_recall": "skboot.metrics._prepare",
    "prepare_roc_auc": "skboot.metrics._prepare",
    "prepare_root_mean_squared_error": "skboot.metrics._prepare",
    "METRICS": "skboot.metrics._registry",
    "MetricSpec": "skboot.metrics._registry",
    "is_undefined": "skboot.metrics._registry",
    "metric_on_weights": "skboot.metrics._registry",
    "pack": "skboot.metrics._registry",
    "pack_arrays": "skboot.metrics._registry",
    "packed": "skboot.metrics._registry",
    "ResolvedMetric": "skboot.metrics._resolve",
    "resolve_metric": "skboot.metrics._resolve",
    "MetricCI": "skboot.metrics._results",
    "MetricComparison": "skboot.metrics._results",
    "BootstrapScore": "skboot.metrics._score",
    "bootstrap_score": "skboot.metrics._score",
    "CallableMetricStatistic": "skboot.metrics._statistics",
    "MetricStatistic": "skboot.metrics._statistics",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "METRICS",
    "BootstrapScore",
    "CallableMetricStatistic",
    "CurveBand",
    "CurveComparison",
    "EstimatorStatistic",
    "MetricCI",
    "MetricComparison",
    "MetricSpec",
    "MetricStatistic",
    "PrecisionRecallBandDisplay",
    "PreparedMetric",
    "ResolvedMetric",
    "RocCurveBandDisplay",
    "bootstrap_score",
    "compare_metrics",
    "compare_precision_recall_curves",
    "compare_roc_curves",
    "is_undefined",
    "metric_ci",
    "metric_on_weights",
    "pack",
    "pack_arrays",
    "packed",
    "precision_recall_band",
    "prepare_accuracy",
    "prepare_average_precision",
    "prepare_balanced_accuracy",
    "prepare_brier_score",
    "prepare_f1",
    "prepare_log_loss",
    "prepare_mean_absolute_error",
    "prepare_mean_squared_error",
    "prepare_precision",
    "prepare_r2",
    "prepare_recall",
    "prepare_roc_auc",
    "prepare_root_mean_squared_error",
    "resolve_metric",
    "roc_curve_band",
]
