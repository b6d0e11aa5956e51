"""Resolving a metric argument: a fused metric's name, a scikit-learn scorer (name or
object), a ``sklearn.metrics`` function, or any callable, into one
:class:`ResolvedMetric`: fused (a name of :data:`~skboot.metrics.METRICS` and the
options its kernel takes) or generic (the function, called per replicate)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._validation import param_error, value_error
from skboot.metrics._registry import METRICS

__all__ = [
    "REGRESSION",
    "SKLEARN_NAMES",
    "ResolvedMetric",
    "is_scorer",
    "resolve_metric",
]

#: scikit-learn function name -> registry name.
SKLEARN_NAMES = {
    "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced_accuracy",
    "precision_score": "precision",
    "recall_score": "recall",
    "f1_score": "f1",
    "roc_auc_score": "roc_auc",
    "average_precision_score": "average_precision",
    "log_loss": "log_loss",
    "brier_score_loss": "brier_score",
    "mean_squared_error": "mean_squared_error",
    "root_mean_squared_error": "root_mean_squared_error",
    "mean_absolute_error": "mean_absolute_error",
    "r2_score": "r2",
}
#: The registry's regression metrics.
REGRESSION = (
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "r2",
)


@dataclass(frozen=True)
class ResolvedMetric:
    """A resolved metric: fused (``registry``) or generic (``func``).

    Attributes
    ----------
    name : str
        Name recorded on results (registry, scorer or function name).
    registry : str or None
        The fused metric's name in :data:`~skboot.metrics.METRICS`; None for a
        generic one.
    func : callable or None
        ``func(y_true, y_pred, **options)`` of a generic metric; None when fused.
    options : dict
        Options passed to ``prepare`` (fused) or to ``func``.
    sign : float
        1.0, or -1.0 for scikit-learn's ``neg_*`` scorers.
    greater_is_better : bool or None
        In the sign's orientation; None when unknown (a plain callable).
    """

    name: str
    registry: str | None
    func: Callable[..., Any] | None
    options: dict[str, Any]
    sign: float
    greater_is_better: bool | None

    @property
    def undefined_when(self) -> str:
        """When the metric is undefined on a replicate, in words."""
        if self.registry is not None:
            return METRICS[self.registry].undefined_when
        return "the metric returned a non-finite value or warned UndefinedMetricWarning"


def _sklearn_function_map() -> dict[Any, str]:
    import sklearn.metrics as skm

    return {
        getattr(skm, fname): reg
        for fname, reg in SKLEARN_NAMES.items()
        if hasattr(skm, fname)
    }


def is_scorer(obj: Any) -> bool:
    """Whether ``obj`` is a scikit-learn scorer (``make_scorer``, ``get_scorer``)."""
    return all(hasattr(obj, a) for a in ("_score_func", "_sign", "_kwargs"))


def _parameters(func: Callable[..., Any]) -> set[str] | None:
    """The keyword parameters of ``func``; None when they cannot be read."""
    try:
        return set(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins only
        return None


def _fused_options(
    registry: str, options: dict[str, Any], func: Callable[..., Any] | None = None
) -> dict[str, Any] | None:
    """Options of a scikit-learn call translated for the kernel, or None when the
    kernel cannot honour them (then the generic path is used, and scikit-learn
    itself answers, errors included, for an option ``func`` does not take)."""
    params = None if func is None else _parameters(func)
    out = {}
    for key, value in options.items():
        if params is not None and key not in params:
            return None  # not an option of func: let scikit-learn say so
        if key == "zero_division" and isinstance(value, str) and value == "warn":
            out[key] = np.nan  # scikit-learn warns: an undefined replicate here
            continue
        if key not in METRICS[registry].options:
            return None
        if key == "average" and value not in ("binary", "micro", "macro"):
            return None  # e.g. "weighted", None: scikit-learn's own code
        out[key] = value
    return out


def resolve_metric(metric: Any, options: dict[str, Any], owner: str) -> ResolvedMetric:
    """Resolve the ``metric`` argument of a public entry point.

    Parameters
    ----------
    metric : str or callable
        A fused metric's name (a key of :data:`~skboot.metrics.METRICS`), a
        scikit-learn scorer name or scorer object (its sign is kept), a
        ``sklearn.metrics`` function (fused when it computes a registry metric
        with options the kernel supports), or any
        ``metric(y_true, y_pred, **options)``.
    options : dict
        The caller's metric options (``**metric_options``).
    owner : str
        The entry point, named in error messages.

    Returns
    -------
    ResolvedMetric

    Raises
    ------
    ValueError
        For an unknown name, options a fused metric does not take, or a value
        that is neither a name nor a callable.

    Examples
    --------
    >>> from sklearn.metrics import roc_auc_score
    >>> from skboot.metrics import resolve_metric
    >>> resolve_metric(roc_auc_score, {}, "f").registry
    'roc_auc'
    >>> m = resolve_metric("neg_log_loss", {}, "f")
    >>> m.registry, m.sign, m.greater_is_better
    ('log_loss', -1.0, True)
    """
    if isinstance(metric, str):
        if metric in METRICS:
            spec = METRICS[metric]
            extra = sorted(set(options) - set(spec.options))
            if extra:
                function = next(f for f, r in SKLEARN_NAMES.items() if r == metric)
                raise ValueError(
                    f"The metric {metric!r} of {owner} accepts the options "
                    f"{list(spec.options)}. Got {extra} instead. Pass the "
                    f"scikit-learn function (sklearn.metrics.{function}) to "
                    "evaluate other options by the generic (slower) path."
                )
            return ResolvedMetric(
                metric, metric, None, dict(options), 1.0, spec.greater_is_better
            )
        from sklearn.metrics import get_scorer, get_scorer_names

        if metric in get_scorer_names():
            return _from_scorer(get_scorer(metric), options, metric)
        raise value_error(
            "metric",
            owner,
            "must be a callable, a scikit-learn scorer name "
            "(sklearn.metrics.get_scorer_names()) or one of the fused metrics "
            f"{sorted(METRICS)}. Got {metric!r} instead.",
        )
    if is_scorer(metric):
        return _from_scorer(metric, options, None)
    if _is_keyword_partial(metric):
        # functools.partial(f1_score, pos_label="yes"): its keywords are options
        func = metric.func
        name = getattr(func, "__name__", type(func).__name__)
        return _from_function(func, {**metric.keywords, **options}, 1.0, name)
    if callable(metric):
        name = getattr(metric, "__name__", type(metric).__name__)
        return _from_function(metric, dict(options), 1.0, name)
    raise param_error(
        "metric",
        owner,
        f"a callable, a scikit-learn scorer or one of {sorted(METRICS)}",
        metric,
    )


def _is_keyword_partial(metric: Any) -> bool:
    """A ``functools.partial`` of a scikit-learn metric with keywords only."""
    return (
        isinstance(metric, functools.partial)
        and not metric.args
        and metric.func in _sklearn_function_map()
    )


def _from_scorer(
    scorer: Any, options: dict[str, Any], name: str | None
) -> ResolvedMetric:
    func = scorer._score_func
    sign = float(scorer._sign)
    if name is None:
        base = getattr(func, "__name__", "metric")
        name = base if sign > 0 else f"neg_{base}"
    return _from_function(func, {**scorer._kwargs, **options}, sign, name, True)


def _from_function(
    func: Callable[..., Any],
    options: dict[str, Any],
    sign: float,
    name: str,
    greater_is_better: bool | None = None,
) -> ResolvedMetric:
    registry = _sklearn_function_map().get(func)
    if registry is not None:
        fused = _fused_options(registry, options, func)
        if fused is not None:
            gib = METRICS[registry].greater_is_better == (sign > 0)
            return ResolvedMetric(name, registry, None, fused, sign, gib)
    return ResolvedMetric(name, None, func, options, sign, greater_is_better)
