"""The input checks of :func:`~skboot.metrics.metric_ci` and
:func:`~skboot.metrics.compare_metrics`, raised before any work: the options
(one constraint table), the arrays (targets, predictions, weights, groups) and
the resampler they imply; and
:func:`setup_metric_run`, which checks them all and builds the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import Statistic
from skboot._engine.cuda import check_device
from skboot._run import Data, check_bootstrap_plan, fit_resampler, resolve_resampler
from skboot._validation import (
    BOOL,
    LEVEL,
    N_JOBS,
    N_RESAMPLES,
    NONE,
    Constraint,
    Options,
    as_float_array,
    check_sample_weight,
    param_error,
    validate_params,
    value_error,
)
from skboot.metrics._resolve import ResolvedMetric, resolve_metric
from skboot.metrics._statistics import CallableMetricStatistic, build_statistic
from skboot.resamplers import (
    BaseResampler,
    GroupBootstrap,
    ResamplingPlan,
    StratifiedBootstrap,
)

__all__ = [
    "INTERVAL_OPTIONS",
    "METRIC_INTERVAL_METHODS",
    "UNDEFINED_POLICIES",
    "MetricRun",
    "as_array",
    "check_inputs",
    "check_layout",
    "check_options",
    "metric_resampler",
    "setup_metric_run",
]

#: Interval methods offered for metrics (the studentized interval needs a
#: standard error per replicate, which metrics do not have).
METRIC_INTERVAL_METHODS = ("percentile", "basic", "normal", "bc", "bca")
#: What to do with replicates on which the metric is undefined.
UNDEFINED_POLICIES = ("raise", "omit")

#: The interval options of the metric results (``method``, ``level``): any
#: letter case of a method ("BCa" is "bca").
INTERVAL_OPTIONS: dict[str, list[Constraint]] = {
    "method": [Options(METRIC_INTERVAL_METHODS, case_insensitive=True)],
    "level": [LEVEL],
}
#: The options of metric_ci and compare_metrics (the one table of both).
_CONSTRAINTS: dict[str, list[Constraint]] = {
    **INTERVAL_OPTIONS,
    "undefined": [Options(UNDEFINED_POLICIES)],
    "n_jobs": [N_JOBS, NONE],
    "stratify": [BOOL],
    "n_resamples": [N_RESAMPLES, NONE],
}

#: What to pass instead of an estimator, per entry point that takes predictions.
_PREDICTION_CALLS = {
    "metric_ci": "metric_ci(y_test, estimator.predict(X_test), metric)",
    "compare_metrics": (
        "compare_metrics(y_test, model_a.predict(X_test), model_b.predict(X_test), "
        "metric)"
    ),
}


def check_options(owner: str, **options: Any) -> tuple[str, float]:
    """The scalar options of ``owner`` (``method``, ``level``, ``undefined``,
    ``n_jobs``, ``stratify``, ``n_resamples``) checked by the one table; returns
    ``method`` (lowercase) and ``level`` (a float)."""
    values = validate_params(owner, _CONSTRAINTS, **options)
    return str(values["method"]), float(values["level"])


def _check_not_estimator(value: Any, param: str, owner: str) -> None:
    """A clear error when a model is passed where targets or predictions go.

    ``metric_ci(pipeline, X, y)`` would otherwise fail on a row count (a Pipeline
    has a length: its number of steps).
    """
    if not (
        callable(getattr(value, "fit", None))
        or callable(getattr(value, "predict", None))
    ):
        return
    raise value_error(
        param,
        owner,
        f"must be an array of "
        f"{'true targets' if param == 'y_true' else 'predictions'}. Got an "
        f"estimator ({type(value).__name__}) instead. {owner} bootstraps the "
        "predictions of a fitted model on test data: pass "
        f"{_PREDICTION_CALLS.get(owner, owner)} (predict_proba(X_test)[:, 1] or "
        "decision_function(X_test) for ranking metrics such as roc_auc). To refit "
        "the estimator on every replicate, use bootstrap_score(estimator, X, y) "
        "or BootstrapStatistic(estimator=...).",
    )


def as_array(value: Any, param: str, owner: str) -> np.ndarray:
    """``value`` (numpy or pandas) as a non-empty array."""
    if value is None:
        raise param_error(param, owner, "an array-like", value)
    _check_not_estimator(value, param, owner)
    arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
    if arr.ndim == 0 or arr.shape[0] == 0:
        raise param_error(param, owner, "a non-empty array", arr)
    return arr


def check_inputs(
    y_true: Any,
    preds: dict[str, Any],
    sample_weight: Any,
    owner: str,
    groups: Any = None,
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray | None]:
    """Targets, predictions (one row per target) and weights as arrays."""
    yt = as_array(y_true, "y_true", owner)
    n = yt.shape[0]
    if groups is not None and np.shape(groups)[:1] != (n,):
        raise value_error(
            "groups",
            owner,
            f"must have one label per row of y_true ({n}). Got "
            f"{np.shape(groups)[0] if np.ndim(groups) else 0} instead.",
        )
    out = []
    for param, value in preds.items():
        arr = as_array(value, param, owner)
        if arr.shape[0] != n:
            raise value_error(
                param,
                owner,
                f"must have as many rows as y_true ({n}). Got {arr.shape[0]} instead.",
            )
        out.append(arr)
    sw = None
    if sample_weight is not None:
        sw = as_float_array(
            sample_weight, "sample_weight", owner, ndim=(1,), nan="allow"
        )
        sw = check_sample_weight(sw, n, owner)
    if n < 2:
        raise value_error(
            "y_true", owner, f"must have at least 2 rows. Got {n} instead."
        )
    return yt, out, sw


def metric_resampler(
    resampler: Any,
    stratify: bool,
    groups: Any,
    n_resamples: Any,
    random_state: Any,
    owner: str,
) -> tuple[BaseResampler, Any]:
    """The resampler to run (a private copy) and the object its key is drawn
    from: ``resampler``, else :class:`StratifiedBootstrap` with ``stratify``,
    :class:`GroupBootstrap` with ``groups``, :class:`Bootstrap` otherwise."""
    if stratify and groups is not None:
        raise ValueError(
            f"The 'stratify' and 'groups' parameters of {owner} cannot be used "
            "together: stratify=True resamples rows within classes, groups= "
            "resamples whole clusters. Got both instead."
        )
    if stratify and resampler is not None:
        raise value_error(
            "stratify",
            owner,
            "must be False when a resampler is given (pass StratifiedBootstrap() "
            f"as the resampler instead). Got stratify=True and resampler="
            f"{resampler!r} instead.",
        )
    if resampler is None and stratify:
        resampler = StratifiedBootstrap()
    elif resampler is None and groups is not None:
        resampler = GroupBootstrap()
    return resolve_resampler(resampler, n_resamples, random_state, owner)


def check_layout(stat: Statistic, plan: ResamplingPlan, owner: str) -> None:
    """A metric without ``sample_weight`` cannot run on continuous weights."""
    if (
        isinstance(stat, CallableMetricStatistic)
        and not stat.use_weights
        and plan.layout == "weights"
    ):
        raise ValueError(
            f"The resampler of {owner} gives continuous weights (BayesianBootstrap), "
            f"so the metric must accept sample_weight. Got {stat.name}, which does "
            "not, instead."
        )


@dataclass(frozen=True)
class MetricRun:
    """A checked call, ready to run: the interval options, the resolved metric,
    its statistic and data, and the fitted resampler."""

    method: str
    level: float
    metric: ResolvedMetric
    stat: Statistic
    data: Data
    resampler: BaseResampler


def setup_metric_run(
    owner: str,
    y_true: Any,
    preds: dict[str, Any],
    metric: Any,
    metric_options: dict[str, Any],
    *,
    sample_weight: Any,
    groups: Any,
    stratify: Any,
    resampler: Any,
    n_resamples: Any,
    random_state: Any,
    method: Any,
    level: Any,
    undefined: Any,
    n_jobs: Any,
    device: Any = "cpu",
) -> MetricRun:
    """Check every argument (before any work), resolve the metric, build its
    statistic and fit the resampler (its key drawn once from ``random_state``)."""
    method, level = check_options(
        owner,
        method=method,
        level=level,
        undefined=undefined,
        n_jobs=n_jobs,
        stratify=stratify,
        n_resamples=n_resamples,
    )
    check_device(device, owner)
    yt, arrays, sw = check_inputs(y_true, preds, sample_weight, owner, groups)
    resolved = resolve_metric(metric, metric_options, owner)
    res, source = metric_resampler(
        resampler, stratify, groups, n_resamples, random_state, owner
    )
    stat = build_statistic(resolved, yt, arrays, sw, owner)
    fitted = fit_resampler(res, source, yt, yt, groups)
    check_bootstrap_plan(fitted.plan_, fitted, owner)
    check_layout(stat, fitted.plan_, owner)
    data = Data((yt, *arrays), yt.shape[0])
    return MetricRun(method, level, resolved, stat, data, fitted)
