"""Where the displays' curve bands get their inputs: a fitted classifier's
scores (:func:`estimator_scores`), or the run of a
:func:`~skboot.metrics.metric_ci` result (:func:`metric_ci_band`: the ROC band
of a "roc_auc" interval and the precision-recall band of an
"average_precision" interval, on the result's own fitted resampler, so the
band and the interval come from one set of replicates)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from skboot._run import check_distribution_memory
from skboot._validation import (
    LEVEL,
    N_JOBS,
    NONE,
    Options,
    validate_params,
    value_error,
)
from skboot.metrics._curve_result import CurveBand
from skboot.metrics._curve_stat import check_grid, paired_default_grid, prepare_curve
from skboot.metrics._curves import PosLabel, band_fields, curve_estimate, run_fitted
from skboot.metrics._statistics import MetricStatistic

__all__ = [
    "CURVE_OF_METRIC",
    "METRIC_OF_CURVE",
    "check_metric_ci",
    "estimator_scores",
    "metric_ci_band",
]

#: The curve of each fused metric that is the area under (or a summary of) one.
CURVE_OF_METRIC = {"roc_auc": "roc", "average_precision": "precision_recall"}


#: ``response_method`` of ``from_estimator``, as scikit-learn's displays take it.
RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")


def estimator_scores(
    estimator: Any, X: Any, response_method: str, pos_label: PosLabel, owner: str
) -> tuple[np.ndarray, PosLabel]:
    """The fitted binary classifier's scores of the positive class on ``X`` and
    that class (``pos_label``, else ``estimator.classes_[1]``): a column of
    ``predict_proba``, or ``decision_function`` (negated when the positive
    class is ``classes_[0]``)."""
    method = validate_params(
        owner,
        {"response_method": [Options(RESPONSE_METHODS)]},
        response_method=response_method,
    )["response_method"]
    check_is_fitted(estimator)
    classes = np.asarray(getattr(estimator, "classes_", []))
    if classes.shape[0] != 2:
        raise value_error(
            "estimator",
            owner,
            "must be a fitted binary classifier (two classes_). Got "
            f"{type(estimator).__name__} with classes_ {classes.tolist()} instead.",
        )
    positive = classes[1] if pos_label is None else pos_label
    hits = np.flatnonzero(classes == positive)
    if hits.shape[0] != 1:
        raise value_error(
            "pos_label",
            owner,
            f"must be one of the estimator's classes_ {classes.tolist()}. Got "
            f"{pos_label!r} instead.",
        )
    names = ("predict_proba", "decision_function") if method == "auto" else (method,)
    found = [m for m in names if callable(getattr(estimator, m, None))]
    if not found:
        raise value_error(
            "response_method",
            owner,
            f"must name a method of the estimator ({' or '.join(names)}). Got "
            f"{method!r}, which {type(estimator).__name__} lacks, instead.",
        )
    if found[0] == "predict_proba":
        scores = np.asarray(estimator.predict_proba(X))[:, int(hits[0])]
    else:
        scores = np.asarray(estimator.decision_function(X)).reshape(-1)
        if hits[0] == 0:
            scores = -scores
    item = positive.item() if isinstance(positive, np.generic) else positive
    return scores, item


def metric_ci_band(
    result: Any,
    owner: str,
    *,
    curve: str | None = None,
    grid: Any = None,
    grid_name: str = "grid",
    level: Any = None,
    n_jobs: Any = None,
) -> CurveBand:
    """The band of the curve of ``result`` (a :class:`MetricCI` of "roc_auc" or
    "average_precision" that holds its run) on its replicates: its fitted
    resampler, hence its seed and ``n_resamples``, its data, ``sample_weight``
    and positive class, and its undefined policy.  ``curve``: the curve the
    caller draws (None: the metric's); ``level`` None: the result's."""
    values = validate_params(
        owner,
        {"level": [LEVEL, NONE], "n_jobs": [N_JOBS, NONE]},
        level=level,
        n_jobs=n_jobs,
    )
    stat, context = _metric_run(result, owner, curve)
    curve = CURVE_OF_METRIC[stat.metric_name]
    grid = None if grid is None else check_grid(grid, grid_name, owner)
    y_true, y_score = context.data.arrays[:2]
    sw = stat.row_weights
    prepared = [prepare_curve(y_true, y_score, sw, stat.pos_label, owner)]
    if grid is None:
        grid = paired_default_grid(prepared, curve, sw)
    fitted = context.resampler
    check_distribution_memory(int(fitted.n_resamples), grid.shape[0], owner)
    chosen = result.level if values["level"] is None else float(values["level"])
    run = run_fitted(
        curve, prepared, grid, sw, fitted, (chosen, result.undefined, n_jobs)
    )
    return CurveBand(estimate=curve_estimate(run, curve), **band_fields(run, curve))


def _metric_run(result: Any, owner: str, curve: str | None) -> tuple[Any, Any]:
    """The fused statistic and the run context of the :class:`MetricCI`
    ``result``, checked: a metric with a curve (``curve`` when given) and the
    run still held."""
    wanted = (
        "a MetricCI of 'roc_auc' or 'average_precision' (from metric_ci)"
        if curve is None
        else f"a MetricCI of {METRIC_OF_CURVE[curve]!r} (from metric_ci)"
    )
    context = result.result._context
    stat = None if context is None else context.stat
    if not isinstance(stat, MetricStatistic):
        raise value_error(
            "result",
            owner,
            f"must be {wanted} that holds its bootstrap run: a result computed "
            "in this Python process, on data in memory, with a fused metric. Got a "
            f"result of {result.metric!r} without it (loaded from a file, "
            "unpickled, computed on dask collections or with a callable "
            "metric) instead. Compute the band from the data with "
            "roc_curve_band or precision_recall_band, passing the result's "
            "resampler and n_resamples and random_state=result.random_state.",
        )
    name = stat.metric_name
    if name not in CURVE_OF_METRIC or curve not in (None, CURVE_OF_METRIC[name]):
        raise value_error(
            "result",
            owner,
            f"must be {wanted}: the band is that of the metric's curve. Got a "
            f"result of {result.metric!r} instead.",
        )
    return stat, context


def check_metric_ci(result: Any, owner: str, result_type: type, curve: str) -> None:
    """Refuse a ``result`` that is not a ``result_type`` (:class:`MetricCI`)."""
    if not isinstance(result, result_type):
        raise value_error(
            "result",
            owner,
            f"must be a MetricCI of {METRIC_OF_CURVE[curve]!r} (from metric_ci). "
            f"Got {type(result).__name__} instead.",
        )


#: The metric of each curve.
METRIC_OF_CURVE = {curve: metric for metric, curve in CURVE_OF_METRIC.items()}
