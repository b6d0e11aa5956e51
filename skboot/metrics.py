"""Bootstrap confidence intervals for model metrics, paired model comparison,
estimator refits and the .632 / .632+ estimates of prediction error.

Three tiers, fastest first:

1. **Fused metrics** (:func:`metric_ci`, :func:`compare_metrics` with a metric of
   the registry :data:`skboot._metric_kernels.METRICS`, or the scikit-learn
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
(``.interval``, at ``level`` by ``method``), the undefined-replicate record, and
the underlying :class:`~skboot.BootstrapResult` of the defined replicates
(``.result``).  ``.confidence_interval(level=..., method=...)`` computes another
interval from the same replicates (nothing is resampled) with the metric's
jackknife rules above; prefer it to ``.result.confidence_interval``, which knows
neither the undefined policy nor the stratified acceleration.  For
classification metrics, ``stratify=True`` keeps the class counts of every
replicate, which makes ROC AUC, average precision and balanced accuracy defined
on every replicate.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import UndefinedMetricWarning

from skboot import intervals as _iv
from skboot._engine import (
    EstimatorStatistic,
    RefitMixin,
    Statistic,
    centre_of,
    check_refit_mode,
    moments_to_values,
    n_rows,
    run_bootstrap,
    take_rows,
)
from skboot._engine.cuda import check_device, device_runner
from skboot._exceptions import StatisticError, UndefinedStatisticWarning
from skboot._kernels.iid import iid_sum_1d
from skboot._metric_kernels import (
    _KID_MEAN,
    _KID_RMS,
    METRICS,
    PreparedMetric,
    eval_packed,
    metric_chunk,
    metric_loo,
    pack_arrays,
    packed,
)
from skboot._random import STREAM_VERSION, check_random_state
from skboot._run import Data, RunContext, resolve_resampler, stratified_jackknife
from skboot._validation import (
    check_int,
    check_n_jobs,
    check_one_of,
    check_sample_weight,
    param_error,
)
from skboot.intervals import ConfidenceInterval
from skboot.resamplers import (
    BaseResampler,
    GroupBootstrap,
    ResamplingPlan,
    StratifiedBootstrap,
)
from skboot.statistic import BootstrapResult

__all__ = [
    "BootstrapScore",
    "CallableMetricStatistic",
    "EstimatorStatistic",
    "MetricCI",
    "MetricComparison",
    "MetricStatistic",
    "bootstrap_score",
    "compare_metrics",
    "metric_ci",
]


#: Interval methods offered for metrics (the studentized interval needs a
#: standard error per replicate, which metrics do not have).
def _iid_scheme(plan: ResamplingPlan) -> Any:
    """The plan's iid stream scheme, or None for other schemes."""
    scheme = plan.stream_scheme()
    return scheme if scheme is not None and scheme.kind == "iid" else None


METRIC_INTERVAL_METHODS = ("percentile", "basic", "normal", "bc", "bca")
UNDEFINED_POLICIES = ("raise", "omit")
SCORE_METHODS = ("oob", ".632", ".632+")

# scikit-learn function name -> registry name.
_SKLEARN_NAMES = {
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
_REGRESSION = (
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "r2",
)


# --------------------------------------------------------------------------- #
# UndefinedMetricWarning as an error, without leaking warning filters          #
# --------------------------------------------------------------------------- #
# A replicate on which scikit-learn warns UndefinedMetricWarning is undefined.
# Python's warning filters are one process-wide list, and ``catch_warnings``
# restores a snapshot on exit: entered per replicate in joblib's threads, one
# thread's restore put back another thread's "error" filter, which stayed
# installed after the run.  So the filter is set by one shared, reference-counted
# ``catch_warnings``: the first holder enters it, the last one leaves it and
# restores the filters of before, which also discards filters that other code
# (scikit-learn's input checks) left behind in worker threads meanwhile.  The
# public entry points hold it in the calling thread for the whole run, so with
# the threading backend the workers only count; a worker process holds it per
# chunk.
_UNDEFINED_LOCK = threading.Lock()
_undefined_depth = 0
_undefined_guard: warnings.catch_warnings | None = None


@contextlib.contextmanager
def _undefined_metric_errors() -> Iterator[None]:
    """While any thread is inside, UndefinedMetricWarning raises (process-wide)."""
    global _undefined_depth, _undefined_guard
    with _UNDEFINED_LOCK:
        if _undefined_depth == 0:
            guard = warnings.catch_warnings()
            guard.__enter__()
            warnings.filterwarnings("error", category=UndefinedMetricWarning)
            _undefined_guard = guard
        _undefined_depth += 1
    try:
        yield
    finally:
        with _UNDEFINED_LOCK:
            _undefined_depth -= 1
            if _undefined_depth == 0 and _undefined_guard is not None:
                _undefined_guard.__exit__(None, None, None)
                _undefined_guard = None


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _with_undefined_metric_errors(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` (a public entry point) inside :func:`_undefined_metric_errors`."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _undefined_metric_errors():
            return func(*args, **kwargs)

    return wrapper


# --------------------------------------------------------------------------- #
# Resolving the metric                                                          #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Metric:
    """A resolved metric: fused (``registry``) or generic (``func``)."""

    name: str
    registry: str | None
    func: Callable[..., Any] | None
    options: dict[str, Any]
    sign: float
    greater_is_better: bool | None

    @property
    def undefined_when(self) -> str:
        if self.registry is not None:
            return METRICS[self.registry].undefined_when
        return "the metric returned a non-finite value or warned UndefinedMetricWarning"


def _sklearn_function_map() -> dict[Any, str]:
    import sklearn.metrics as skm

    return {
        getattr(skm, fname): reg
        for fname, reg in _SKLEARN_NAMES.items()
        if hasattr(skm, fname)
    }


def _is_scorer(obj: Any) -> bool:
    return all(hasattr(obj, a) for a in ("_score_func", "_sign", "_kwargs"))


def _fused_options(registry: str, options: dict[str, Any]) -> dict[str, Any] | None:
    """Options of a scikit-learn call translated for the kernel, or None when the
    kernel cannot honour them (then the generic path is used)."""
    out = {}
    for key, value in options.items():
        if key == "pos_label" and (
            value is None or (np.ndim(value) == 0 and value == 1)
        ):
            continue  # the kernels' positive class is 1
        if key == "zero_division" and isinstance(value, str) and value == "warn":
            out[key] = np.nan  # scikit-learn warns: an undefined replicate here
            continue
        if key not in METRICS[registry].options:
            return None
        if key == "average" and value not in ("binary", "micro", "macro"):
            return None  # e.g. "weighted", None: scikit-learn's own code
        out[key] = value
    return out


def _resolve_metric(metric: Any, options: dict[str, Any], owner: str) -> _Metric:
    if isinstance(metric, str):
        if metric in METRICS:
            spec = METRICS[metric]
            extra = sorted(set(options) - set(spec.options))
            if extra:
                raise ValueError(
                    f"The metric {metric!r} of {owner} accepts the options "
                    f"{list(spec.options)}. Got {extra} instead. Pass the "
                    "scikit-learn function (e.g. sklearn.metrics.roc_auc_score) to "
                    "evaluate other options by the generic (slower) path."
                )
            return _Metric(
                metric, metric, None, dict(options), 1.0, spec.greater_is_better
            )
        from sklearn.metrics import get_scorer, get_scorer_names

        if metric in get_scorer_names():
            return _from_scorer(get_scorer(metric), options, metric)
        raise ValueError(
            f"The 'metric' parameter of {owner} must be a callable, a scikit-learn "
            f"scorer name (sklearn.metrics.get_scorer_names()) or one of the fused "
            f"metrics {sorted(METRICS)}. Got {metric!r} instead."
        )
    if _is_scorer(metric):
        return _from_scorer(metric, options, None)
    if callable(metric):
        name = getattr(metric, "__name__", type(metric).__name__)
        return _from_function(metric, dict(options), 1.0, name)
    raise param_error(
        "metric",
        owner,
        f"a callable, a scikit-learn scorer or one of {sorted(METRICS)}",
        metric,
    )


def _from_scorer(scorer: Any, options: dict[str, Any], name: str | None) -> _Metric:
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
) -> _Metric:
    registry = _sklearn_function_map().get(func)
    if registry is not None:
        fused = _fused_options(registry, options)
        if fused is not None:
            gib = METRICS[registry].greater_is_better == (sign > 0)
            return _Metric(name, registry, None, fused, sign, gib)
    return _Metric(name, None, func, options, sign, greater_is_better)


# --------------------------------------------------------------------------- #
# Input checks                                                                  #
# --------------------------------------------------------------------------- #


#: What to pass instead of an estimator, per entry point that takes predictions.
_PREDICTION_CALLS = {
    "metric_ci": "metric_ci(y_test, estimator.predict(X_test), metric)",
    "compare_metrics": (
        "compare_metrics(y_test, model_a.predict(X_test), model_b.predict(X_test), "
        "metric)"
    ),
}


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
    raise ValueError(
        f"The '{param}' parameter of {owner} must be an array of "
        f"{'true targets' if param == 'y_true' else 'predictions'}. Got an "
        f"estimator ({type(value).__name__}) instead. {owner} bootstraps the "
        "predictions of a fitted model on test data: pass "
        f"{_PREDICTION_CALLS.get(owner, owner)} (predict_proba(X_test)[:, 1] or "
        "decision_function(X_test) for ranking metrics such as roc_auc). To refit "
        "the estimator on every replicate, use bootstrap_score(estimator, X, y) "
        "or BootstrapStatistic(estimator=...)."
    )


def _as_array(value: Any, param: str, owner: str) -> np.ndarray:
    if value is None:
        raise param_error(param, owner, "an array-like", value)
    _check_not_estimator(value, param, owner)
    arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
    if arr.ndim == 0 or arr.shape[0] == 0:
        raise ValueError(
            f"The '{param}' parameter of {owner} must be a non-empty array. Got "
            f"{arr!r} instead."
        )
    return arr


def _check_inputs(
    y_true: Any,
    preds: dict[str, Any],
    sample_weight: Any,
    owner: str,
    groups: Any = None,
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray | None]:
    yt = _as_array(y_true, "y_true", owner)
    n = yt.shape[0]
    if groups is not None and np.shape(groups)[:1] != (n,):
        raise ValueError(
            f"The 'groups' parameter of {owner} must have one label per row of "
            f"y_true ({n}). Got {np.shape(groups)[0] if np.ndim(groups) else 0} "
            "instead."
        )
    out = []
    for param, value in preds.items():
        arr = _as_array(value, param, owner)
        if arr.shape[0] != n:
            raise ValueError(
                f"The '{param}' parameter of {owner} must have as many rows as "
                f"y_true ({n}). Got {arr.shape[0]} instead."
            )
        out.append(arr)
    sw = None if sample_weight is None else check_sample_weight(sample_weight, n, owner)
    if n < 2:
        raise ValueError(
            f"The 'y_true' parameter of {owner} must have at least 2 rows. Got {n} "
            "instead."
        )
    return yt, out, sw


def _check_common(
    method: Any, level: Any, undefined: Any, n_jobs: Any, owner: str
) -> float:
    check_one_of(method, "method", owner, METRIC_INTERVAL_METHODS)
    check_one_of(undefined, "undefined", owner, UNDEFINED_POLICIES)
    check_n_jobs(n_jobs, owner)
    return _iv.check_level(level)


def _metric_resampler(
    resampler: Any,
    stratify: Any,
    groups: Any,
    n_resamples: Any,
    random_state: Any,
    owner: str,
) -> tuple[BaseResampler, Any]:
    """The resampler to run and the object its key is drawn from."""
    if not isinstance(stratify, bool | np.bool_):
        raise param_error("stratify", owner, "a bool", stratify)
    if n_resamples is not None:
        check_int(n_resamples, "n_resamples", owner, min_value=1)
    if stratify and groups is not None:
        raise ValueError(
            f"The 'stratify' and 'groups' parameters of {owner} cannot be used "
            "together: stratify=True resamples rows within classes, groups= "
            "resamples whole clusters. Got both instead."
        )
    if stratify and resampler is not None:
        raise ValueError(
            f"The 'stratify' parameter of {owner} must be False when a resampler is "
            f"given (pass StratifiedBootstrap() as the resampler instead). Got "
            f"stratify=True and resampler={resampler!r} instead."
        )
    if resampler is None and stratify:
        resampler = StratifiedBootstrap()
    elif resampler is None and groups is not None:
        resampler = GroupBootstrap()
    return resolve_resampler(resampler, n_resamples, random_state, owner)


def _fit_resampler(
    resampler: BaseResampler, source: Any, X: Any, y: Any, groups: Any
) -> tuple[BaseResampler, ResamplingPlan]:
    """Validate, draw the root key from ``source`` (so a Generator passed by the
    user advances once per call) and fit a clone."""
    resampler.check_params()
    key = check_random_state(source, owner=type(resampler).__name__)
    fitted = clone(resampler).fit_with_key(key, X, y, groups)
    return fitted, fitted.plan_


# --------------------------------------------------------------------------- #
# Engine statistics                                                             #
# --------------------------------------------------------------------------- #


class MetricStatistic(Statistic):
    """A fused metric as an engine statistic (tier 1).

    Parameters
    ----------
    prepared : PreparedMetric
        From ``METRICS[name].prepare(y_true, y_pred, **options)``.
    sample_weight : ndarray of shape (n_samples,), default=None
        Row weights; replicate ``b`` evaluates the metric with weights
        ``counts_b * sample_weight``.
    other : PreparedMetric, default=None
        A second prepared metric on the same rows: the statistic is then the
        paired difference ``metric(prepared) - metric(other)`` on each replicate.
    sign : float, default=1.0
        Multiplies the value (-1 for scikit-learn's ``neg_*`` scorers).
    name : str, default=None
        Name recorded on results; default ``prepared.name``.

    Notes
    -----
    ``run_chunk`` costs one call of ``plan.fill_weights_chunk`` and one call of
    the numba driver :func:`skboot._metric_kernels.metric_chunk` per chunk:
    O(chunk * n) time, one (chunk, n) float64 buffer reused across chunks.
    ``jackknife`` zeroes one row's weight at a time
    (:func:`skboot._metric_kernels.metric_loo`), and ``subset(rows)`` keeps the
    prepared arrays and multiplies the weights by ``bincount(rows)``, so no
    metric is ever prepared twice.
    """

    closed_form_jackknife = True  # metric_loo: every leave-one-out value at once

    k = 1

    def __init__(
        self,
        prepared: PreparedMetric,
        sample_weight: np.ndarray | None = None,
        *,
        other: PreparedMetric | None = None,
        sign: float = 1.0,
        name: str | None = None,
    ) -> None:
        n = prepared.n_samples
        arrays_a, self._scalars_a = pack_arrays(prepared)
        self._two = other is not None
        if other is not None:
            if other.n_samples != n or other.kernel is not prepared.kernel:
                raise ValueError(
                    "The two prepared metrics of a MetricStatistic must be the same "
                    f"metric on the same number of rows. Got {prepared.name} on {n} "
                    f"rows and {other.name} on {other.n_samples} rows instead."
                )
            arrays_b, self._scalars_b = pack_arrays(other)
        else:
            arrays_b, self._scalars_b = (), self._scalars_a
        self._weighted = sample_weight is not None
        sw = (
            np.ones(n)
            if sample_weight is None
            else np.ascontiguousarray(sample_weight, dtype=np.float64)
        )
        self.arrays = (sw, *arrays_a, *arrays_b)
        self.n_samples = n
        self.sign = float(sign)
        self.name = name or prepared.name

    def _packs(
        self, arrays: tuple[np.ndarray, ...]
    ) -> tuple[np.ndarray, tuple[Any, ...], tuple[Any, ...]]:
        sw = arrays[0]
        pa = packed(arrays[1:5], self._scalars_a)
        pb = packed(arrays[5:9], self._scalars_b) if self._two else pa
        return sw, pa, pb

    def each_estimate(self) -> tuple[float, float]:
        """The signed metric of ``prepared`` and of ``other`` on the original rows."""
        sw, pa, pb = self._packs(self.arrays)
        return self.sign * eval_packed(pa, sw), self.sign * eval_packed(pb, sw)

    def estimate(self) -> np.ndarray:
        sw, pa, pb = self._packs(self.arrays)
        value = eval_packed(pa, sw)
        if self._two:
            value -= eval_packed(pb, sw)
        return np.array([self.sign * value])

    def _fused_iid(self, plan: ResamplingPlan) -> bool:
        """Whether replicates are mean-type metrics on iid draws without weights:
        then the draws are summed directly, without a weight row."""
        return (
            _iid_scheme(plan) is not None
            and not self._weighted
            and self._scalars_a[0] in (_KID_MEAN, _KID_RMS)
        )

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 if self._fused_iid(plan) else 8 * plan.n_samples

    def mean_values(self) -> tuple[list[np.ndarray], bool, float] | None:
        """The per-row values of a mean-type metric without sample weights (two
        arrays for a paired difference), whether it is a root mean, its sign."""
        kid = self._scalars_a[0]
        if self._weighted or kid not in (_KID_MEAN, _KID_RMS):
            return None
        values = [self.arrays[1]] + ([self.arrays[5]] if self._two else [])
        return values, kid == _KID_RMS, float(self.sign)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        if self._fused_iid(plan):
            # tier 1 without a weight row: iid_sum_1d draws the same indices as
            # plan.fill_indices_chunk and sums values[idx] as it goes.
            scheme = _iid_scheme(plan)
            assert scheme is not None
            seed, gamma = scheme.seed, scheme.gamma
            m = plan.sample_size
            rms = self._scalars_a[0] == _KID_RMS
            col = out[:, 0]
            sums = np.empty(nb)
            for j, values in enumerate((arrays[1], arrays[5] if self._two else None)):
                if values is None:
                    break
                # centred once per task, as the engine's "mean" (precision)
                if f"centred{j}" not in scratch:
                    c = centre_of(values[:, None])
                    scratch[f"centred{j}"] = (values - c[0], c)
                centred, c = scratch[f"centred{j}"]
                iid_sum_1d(centred, seed, gamma, b0, m, sums)
                part = moments_to_values("mean", sums, sums, np.full(1, float(m)), c, 0)
                if rms:
                    part = np.sqrt(np.maximum(part, 0.0))
                if j == 0:
                    col[:] = part
                else:
                    col -= part
            if self.sign != 1.0:
                out *= self.sign
            return
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
        W = W[:nb]
        plan.fill_weights_chunk(b0, W)
        sw, pa, pb = self._packs(arrays)
        metric_chunk(pa, pb, self._two, sw, self._weighted, W, out)
        if self.sign != 1.0:
            out *= self.sign

    def jackknife(self) -> np.ndarray:
        """Leave-one-out values (n, 1): the metric with row ``i``'s weight zeroed.

        NaN where the metric is undefined without row ``i``.
        """
        sw, pa, pb = self._packs(self.arrays)
        out = np.empty(self.n_samples)
        metric_loo(pa, pb, self._two, sw, out)
        return (self.sign * out)[:, None]

    def subset(self, rows: np.ndarray) -> Statistic:
        counts = np.bincount(np.asarray(rows), minlength=self.n_samples)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.arrays = (self.arrays[0] * counts, *self.arrays[1:])
        new._weighted = True
        return new


class CallableMetricStatistic(Statistic):
    """Any ``metric(y_true, y_pred, **options)`` as an engine statistic (tier 3).

    Replicate ``b`` calls the metric once: when ``use_weights``, on the rows
    drawn at least once with ``sample_weight = counts * sample_weight`` (so the
    classes a metric sees are those of the replicate); otherwise on the gathered
    rows ``(y_true[idx], y_pred[idx])``.  A scikit-learn
    ``UndefinedMetricWarning`` or a non-finite value marks the replicate
    undefined (NaN); an exception becomes a :class:`~skboot.StatisticError`
    naming the replicate.

    Parameters
    ----------
    func : callable
        ``func(y_true, y_pred, **options)`` returning a float.
    y_true, y_pred : ndarray
    sample_weight : ndarray, default=None
    other_pred : ndarray, default=None
        Second predictions: the statistic is ``func(y_pred) - func(other_pred)``.
    options : dict, default=None
    sign : float, default=1.0
    use_weights : bool, default=None
        None: True when ``func`` has a ``sample_weight`` parameter.
    name : str, default=None
    """

    k = 1

    def __init__(
        self,
        func: Callable[..., Any],
        y_true: np.ndarray,
        y_pred: np.ndarray,
        sample_weight: np.ndarray | None = None,
        *,
        other_pred: np.ndarray | None = None,
        options: dict[str, Any] | None = None,
        sign: float = 1.0,
        use_weights: bool | None = None,
        name: str | None = None,
    ) -> None:
        self.func = func
        self.options = dict(options or {})
        self.sign = float(sign)
        self._two = other_pred is not None
        self._weighted = sample_weight is not None
        if use_weights is None:
            use_weights = _accepts(func, "sample_weight")
        self.use_weights = bool(use_weights)
        n = y_true.shape[0]
        sw = np.ones(n) if sample_weight is None else sample_weight
        arrays: tuple[np.ndarray, ...] = (y_true, y_pred, sw)
        if other_pred is not None:
            arrays = (*arrays, other_pred)
        self.arrays = arrays
        self.name = str(name or getattr(func, "__name__", "metric"))

    def _call(self, b: int, yt, yp, yp2, sw) -> float:
        kw = dict(self.options)
        if sw is not None:
            kw["sample_weight"] = sw
        try:
            with _undefined_metric_errors():
                value = float(self.func(yt, yp, **kw))
                if yp2 is not None:
                    value -= float(self.func(yt, yp2, **kw))
        except UndefinedMetricWarning:
            return math.nan
        except Exception as exc:
            where = "the original data" if b < 0 else f"replicate {b}"
            raise StatisticError(
                f"The metric {self.name} raised on {where}: {exc!r}."
                + (
                    ""
                    if b < 0
                    else f" Regenerate the replicate with resampler.replicate({b})."
                ),
                b,
            ) from exc
        value *= self.sign
        return value if math.isfinite(value) else math.nan

    def estimate(self) -> np.ndarray:
        yt, yp, sw = self.arrays[:3]
        yp2 = self.arrays[3] if self._two else None
        return np.array([self._call(-1, yt, yp, yp2, sw if self._weighted else None)])

    def each_estimate(self) -> tuple[float, float]:
        yt, yp, sw = self.arrays[:3]
        kw = sw if self._weighted else None
        a = self._call(-1, yt, yp, None, kw)
        b = self._call(-1, yt, self.arrays[3], None, kw) if self._two else a
        return a, b

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        with _undefined_metric_errors():  # once per chunk in a worker process
            self._run_chunk(arrays, plan, b0, out, scratch)

    def _run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        yt, yp, sw = arrays[:3]
        yp2 = arrays[3] if self._two else None
        nb = out.shape[0]
        if self.use_weights:
            W = scratch.get("W")
            if W is None or W.shape[0] < nb:
                W = scratch["W"] = np.empty((nb, plan.n_samples))
            W = W[:nb]
            plan.fill_weights_chunk(b0, W)
            for r in range(nb):
                w = W[r] * sw
                rows = np.flatnonzero(w > 0)
                out[r, 0] = self._call(
                    b0 + r,
                    yt[rows],
                    yp[rows],
                    None if yp2 is None else yp2[rows],
                    w[rows],
                )
            return
        if plan.layout == "weights":
            raise ValueError(
                f"The metric {self.name} has no 'sample_weight' parameter, so it "
                "cannot be evaluated on the continuous weights of "
                "BayesianBootstrap. Use an index resampler."
            )
        for r in range(nb):
            idx = plan.indices(b0 + r)
            out[r, 0] = self._call(
                b0 + r, yt[idx], yp[idx], None if yp2 is None else yp2[idx], None
            )

    def subset(self, rows: np.ndarray) -> Statistic:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.arrays = tuple(np.take(a, rows, axis=0) for a in self.arrays)
        return new


def _accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )


def _build_statistic(
    metric: _Metric,
    y_true: np.ndarray,
    preds: list[np.ndarray],
    sw: np.ndarray | None,
    owner: str,
) -> Statistic:
    two = len(preds) == 2
    if metric.registry is not None:
        spec = METRICS[metric.registry]
        prepared = []
        for param, p in zip(
            ("y_pred_a", "y_pred_b") if two else ("y_pred",), preds, strict=True
        ):
            try:
                prepared.append(spec.prepare(y_true, p, **metric.options))
            except ValueError as exc:
                if not two:
                    raise
                # the kernel says 'y_pred'; name which prediction it was
                raise ValueError(f"{exc} (in '{param}' of {owner})") from exc
        return MetricStatistic(
            prepared[0],
            sw,
            other=prepared[1] if two else None,
            sign=metric.sign,
            name=metric.name,
        )
    assert metric.func is not None
    use_weights = _accepts(metric.func, "sample_weight")
    if sw is not None and not use_weights:
        raise ValueError(
            f"The 'sample_weight' parameter of {owner} needs a metric that accepts "
            f"sample_weight. Got {metric.name}, which does not, instead."
        )
    return CallableMetricStatistic(
        metric.func,
        y_true,
        preds[0],
        sw,
        other_pred=preds[1] if two else None,
        options=metric.options,
        sign=metric.sign,
        use_weights=use_weights,
        name=metric.name,
    )


# --------------------------------------------------------------------------- #
# Running and the undefined policy                                              #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Run:
    result: BootstrapResult
    n_undefined: int
    undefined_replicates: np.ndarray
    stat: Statistic


def _run_metric(
    stat: Statistic,
    data: Data,
    resampler: BaseResampler,
    plan: ResamplingPlan,
    metric: _Metric,
    policy: str,
    n_jobs: Any,
    owner: str,
    device: str = "cpu",
) -> _Run:
    B = int(resampler.n_resamples)
    runner = device_runner(device, stat, plan, resampler, owner)  # None: CPU
    est = float(stat.estimate()[0])
    if not math.isfinite(est):
        raise ValueError(
            f"The metric {metric.name} is undefined on the original data of {owner} "
            f"(it is undefined when {metric.undefined_when}); no interval can be "
            "computed."
        )
    dist = (runner or run_bootstrap)(stat, plan, B, n_jobs=n_jobs)[:, 0]
    bad = ~np.isfinite(dist)
    bad_idx = np.flatnonzero(bad).astype(np.int64)
    n_bad = int(bad_idx.shape[0])
    if n_bad:
        if policy == "raise":
            raise ValueError(
                f"The metric {metric.name} is undefined on {n_bad} of {B} bootstrap "
                f"replicates (first: replicate {int(bad_idx[0])}; it is undefined "
                f"when {metric.undefined_when}). Pass undefined='omit' to drop them "
                "(the count is recorded on the result), stratify=True to keep the "
                "class counts of every replicate, or more data."
            )
        warnings.warn(
            f"The metric {metric.name} is undefined on {n_bad} of {B} bootstrap "
            f"replicates (first: replicate {int(bad_idx[0])}); they are omitted and "
            "the interval describes the defined replicates. See n_undefined and "
            "undefined_replicates on the result.",
            UndefinedStatisticWarning,
            stacklevel=3,
        )
        dist = dist[~bad]
        if dist.shape[0] < 2:
            raise ValueError(
                f"The metric {metric.name} is defined on {dist.shape[0]} of {B} "
                "bootstrap replicates; at least 2 are needed for an interval."
            )
    ctx = RunContext(
        stat=stat, data=data, plan=plan, resampler=resampler, n_jobs=n_jobs
    )
    result = BootstrapResult(
        estimate=est,
        distribution=dist,
        standard_error=float(dist.std(ddof=1)),
        bias=float(dist.mean() - est),
        n_resamples=int(dist.shape[0]),
        statistic=metric.name,
        resampler=repr(resampler),
        random_state=resampler.seed_entropy_,
        stream_version=STREAM_VERSION,
        n_undefined=0,
        _context=ctx,
    )
    return _Run(result, n_bad, bad_idx, stat)


def _interval(
    result: BootstrapResult,
    method: str,
    level: float,
    alternative: str,
    policy: str,
    name: str,
) -> ConfidenceInterval:
    est = float(result.estimate)
    dist = np.asarray(result.distribution, dtype=float)

    def jackknife() -> np.ndarray:
        jk = np.asarray(result.jackknife_values(), dtype=float)[:, 0]
        keep = np.isfinite(jk)
        if not keep.all():
            n_bad = int((~keep).sum())
            if policy == "raise":
                raise ValueError(
                    f"The metric {name} is undefined on {n_bad} of {jk.shape[0]} "
                    f"jackknife (leave-one-out) samples (first: unit "
                    f"{int(np.flatnonzero(~keep)[0])}), so the BCa acceleration "
                    "cannot be estimated. Pass undefined='omit' to drop them, or "
                    "use method='bc' or 'percentile'."
                )
            warnings.warn(
                f"The metric {name} is undefined on {n_bad} of {jk.shape[0]} "
                "jackknife samples; the BCa acceleration uses the others.",
                UndefinedStatisticWarning,
                stacklevel=6,  # jackknife <- interval_by_method <- _interval <- ...
            )
        ctx = result._context
        codes = None if ctx is None else ctx.plan.strata_codes
        if codes is not None:  # stratified: the multi-sample acceleration
            jk = stratified_jackknife(jk[keep], codes[keep])
        else:
            jk = jk[keep]
        return jk

    res = _iv.interval_by_method(
        method, dist, est, level=level, alternative=alternative, jackknife=jackknife
    )
    return ConfidenceInterval(
        float(res.low),
        float(res.high),
        estimate=est,
        standard_error=float(result.standard_error),
        method=_iv.check_method(method),
        level=level,
        alternative=alternative,
        name=name,
    )


# --------------------------------------------------------------------------- #
# Results                                                                       #
# --------------------------------------------------------------------------- #


class _MetricResultMixin:
    """Read-through properties to the wrapped :class:`BootstrapResult`."""

    result: BootstrapResult
    n_undefined: int
    undefined: str
    metric: str

    @property
    def distribution(self) -> np.ndarray:
        """The defined replicates of the statistic, in replicate order."""
        return np.asarray(self.result.distribution)

    @property
    def standard_error(self) -> float:
        """Standard deviation of :attr:`distribution` (``ddof=1``)."""
        return float(self.result.standard_error)

    @property
    def bias(self) -> float:
        """``mean(distribution) - estimate``."""
        return float(self.result.bias)

    @property
    def n_resamples(self) -> int:
        """Replicates drawn, defined or not."""
        return int(self.result.n_resamples) + int(self.n_undefined)

    @property
    def random_state(self) -> Any:
        """Pass as ``random_state`` to reproduce the run exactly."""
        return self.result.random_state

    @property
    def resampler(self) -> str:
        """repr of the resampler used."""
        return self.result.resampler

    @property
    def stream_version(self) -> int:
        return int(self.result.stream_version)

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str = "bca",
        alternative: str = "two-sided",
    ) -> ConfidenceInterval:
        """Another interval from the same replicates (nothing is resampled).

        Parameters
        ----------
        level : float, default=0.95
        method : {"percentile", "basic", "normal", "bc", "bca"}, default="bca"
            Any letter case; "normal" is ``estimate -/+ z * standard_error``
            (``ddof=1``).
        alternative : {"two-sided", "less", "greater"}, default="two-sided"

        Returns
        -------
        ConfidenceInterval
        """
        owner = "confidence_interval"
        method = _iv.check_method(method, owner, METRIC_INTERVAL_METHODS)
        level = _iv.check_level(level)
        alternative = _iv.check_alternative(alternative)
        return _interval(
            self.result, method, level, alternative, self.undefined, self.metric
        )


@dataclass(frozen=True, eq=False)
class MetricCI(_MetricResultMixin):
    """A metric's estimate and bootstrap confidence interval; immutable.

    Attributes
    ----------
    metric : str
        Name of the metric (registry name, scorer name or function name).
    estimate : float
        The metric on the original data.
    interval : ConfidenceInterval
        ``(low, high)`` at ``level`` by ``method``.
    method : str
        Interval method of :attr:`interval`.
    level : float
        Confidence level of :attr:`interval`.
    n_undefined : int
        Replicates on which the metric was undefined and that were omitted
        (``undefined="omit"``); 0 otherwise.
    undefined_replicates : ndarray of int64
        Their replicate numbers (``resampler.replicate(b)`` regenerates them).
    undefined : str
        The policy used, "raise" or "omit".
    result : BootstrapResult
        The bootstrap run over the defined replicates (its ``n_resamples``
        counts those); its ``jackknife_values()`` gives the leave-one-out values.
    distribution, standard_error, bias, n_resamples, random_state, resampler,\
 stream_version
        Read from :attr:`result` (``n_resamples`` counts all replicates drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import metric_ci
    >>> y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0] * 5)
    >>> s = np.linspace(0.1, 0.9, 50)
    >>> s = np.where(y == 1, s, s[::-1] * 0.8)
    >>> res = metric_ci(y, s, "roc_auc", n_resamples=500, random_state=0)
    >>> type(res).__name__, round(res.estimate, 3)
    ('MetricCI', 0.626)
    >>> bool(res.interval.low < res.estimate < res.interval.high)
    True
    """

    metric: str
    estimate: float
    interval: ConfidenceInterval
    method: str
    level: float
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    undefined: str
    result: BootstrapResult = field(repr=False)


@dataclass(frozen=True, eq=False)
class MetricComparison(_MetricResultMixin):
    """Paired bootstrap comparison of two predictions under one metric; immutable.

    Attributes
    ----------
    metric : str
    estimate : float
        ``estimate_a - estimate_b`` on the original data.
    estimate_a, estimate_b : float
        The metric of each prediction on the original data.
    interval : ConfidenceInterval
        Interval for the difference at ``level`` by ``method``.
    p_value : float
        Two-sided bootstrap p-value for "no difference" (see
        :func:`compare_metrics`).
    method : str
    level : float
    greater_is_better : bool or None
        Whether a larger metric is better (None when unknown, for a plain
        callable); a positive difference favours ``y_pred_a`` when True.
    n_undefined : int
    undefined_replicates : ndarray of int64
    undefined : str
    result : BootstrapResult
        The bootstrap run of the difference over the defined replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import compare_metrics
    >>> y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0] * 5)
    >>> s = np.linspace(0.1, 0.9, 50)
    >>> s = np.where(y == 1, s, s[::-1] * 0.8)
    >>> cmp = compare_metrics(y, s, 1 - s, "roc_auc", n_resamples=500, random_state=0)
    >>> round(cmp.estimate, 3), 0 < cmp.p_value <= 1
    (0.251, True)
    """

    metric: str
    estimate: float
    estimate_a: float
    estimate_b: float
    interval: ConfidenceInterval
    p_value: float
    method: str
    level: float
    greater_is_better: bool | None
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    undefined: str
    result: BootstrapResult = field(repr=False)


# --------------------------------------------------------------------------- #
# Public entry points                                                           #
# --------------------------------------------------------------------------- #


@_with_undefined_metric_errors
def metric_ci(
    y_true: Any,
    y_pred: Any,
    metric: Any,
    *,
    sample_weight: Any = None,
    groups: Any = None,
    stratify: bool = False,
    resampler: Any = None,
    n_resamples: int | None = None,
    random_state: Any = None,
    method: str = "bca",
    level: float = 0.95,
    n_jobs: int | None = None,
    undefined: str = "raise",
    device: str = "cpu",
    **metric_options: Any,
) -> MetricCI:
    """Bootstrap confidence interval for a model metric.

    Algorithm:

    1. The metric is resolved: a fused metric (a name of
       :data:`skboot._metric_kernels.METRICS`, or the scikit-learn function or
       scorer that computes it with options the kernel supports) is *prepared*
       once: inputs validated, labels encoded, scores argsorted (O(n log n)).
       Any other callable is evaluated per replicate (slow path).
    2. Rows ``(y_true, y_pred, sample_weight)`` are resampled jointly (paired):
       iid by default, within classes of ``y_true`` with ``stratify=True``,
       whole clusters with ``groups``, or by any skboot ``resampler``.
    3. For each chunk of replicates, the plan writes the per-row counts and one
       numba call evaluates the metric kernel on every replicate, each in O(n).
    4. Undefined replicates follow ``undefined`` (see the module notes); the
       interval is computed by ``method`` (BCa's acceleration from leave-one-out
       values, O(n) for most metrics).

    Memory: O(n) for the prepared arrays plus one (chunk, n) buffer per worker,
    chunk sized to the cache; O(n_resamples) for the distribution.  Time:
    O(n_resamples * n) for fused metrics.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels or targets.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predictions, scores or probabilities, as the metric expects.
    metric : str or callable
        A fused metric name ({"accuracy", "balanced_accuracy", "precision",
        "recall", "f1", "roc_auc", "average_precision", "log_loss",
        "brier_score", "mean_squared_error", "root_mean_squared_error",
        "mean_absolute_error", "r2"}), a scikit-learn scorer name or scorer
        object (its sign is kept: "neg_log_loss" gives ``-log_loss``), a
        ``sklearn.metrics`` function (mapped to the fused kernel when it is one
        of the above and its options are supported), or any
        ``metric(y_true, y_pred, **metric_options)``.  A mapped scikit-learn
        function keeps skboot's rule for undefined replicates: where
        scikit-learn would warn and return a conventional value
        (``zero_division="warn"``, ``r2_score``'s ``force_finite=True``
        default), the replicate is undefined unless the option is given
        explicitly (``zero_division=0.0``, ``force_finite=True``).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels: whole clusters are resampled (:class:`GroupBootstrap`
        unless ``resampler`` is given) and BCa uses the delete-one-group
        jackknife.
    stratify : bool, default=False
        Resample within the classes of ``y_true`` (:class:`StratifiedBootstrap`).
    resampler : skboot resampler, default=None
        Any resampler; None means :class:`Bootstrap` (or the stratified / group
        one above).  ``y_true`` is routed as ``y`` and ``groups`` as ``groups``.
    n_resamples : int or None, default=None
        Number of replicates.  None: the resampler's ``n_resamples`` when a
        resampler is given, else 9999.  An int replaces the value of a resampler
        left at its default; a resampler set to another value raises a
        ValueError.
    random_state : None, int, SeedSequence or Generator, default=None
    method : {"percentile", "basic", "normal", "bc", "bca"}, default="bca"
        Any letter case ("BCa" is "bca").
    level : float, default=0.95
    n_jobs : int, default=None
        Workers through joblib.
    undefined : {"raise", "omit"}, default="raise"
        What to do with replicates where the metric is undefined.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        "cuda" computes the replicates of the mean-type fused metrics
        ("accuracy", "log_loss", "brier_score", "mean_squared_error",
        "root_mean_squared_error", "mean_absolute_error"), without
        ``sample_weight``, on an NVIDIA GPU, as :func:`skboot.bootstrap` does;
        "auto" falls back to the CPU when that is not possible.
    **metric_options
        Options of the metric, e.g. ``average="macro"`` for "f1" or
        ``labels=[...]`` for "log_loss".

    Returns
    -------
    MetricCI
        ``.estimate``, ``.interval`` (at ``level`` by ``method``), the
        bootstrap ``.distribution`` and ``.result``; other intervals from the
        same replicates with ``.confidence_interval(level=..., method=...)``.

    Raises
    ------
    ValueError
        On invalid input (mismatched lengths, an unknown metric name, labels
        outside {0, 1} for a binary metric, probabilities outside [0, 1], ...),
        or with ``undefined="raise"`` when the metric is undefined on a
        replicate.

    Warns
    -----
    UndefinedStatisticWarning
        With ``undefined="omit"``, when replicates are omitted.

    See Also
    --------
    compare_metrics : paired comparison of two models.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import metric_ci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> score = y + rng.normal(size=300)
    >>> res = metric_ci(y, score, "roc_auc", n_resamples=999, random_state=0)
    >>> print(f"{res.estimate:.3f} [{res.interval.low:.3f}, {res.interval.high:.3f}]")
    0.814 [0.759, 0.859]
    """
    owner = "metric_ci"
    method = _iv.check_method(method, owner, METRIC_INTERVAL_METHODS)
    level = _check_common(method, level, undefined, n_jobs, owner)
    check_device(device, owner)
    yt, (yp,), sw = _check_inputs(
        y_true, {"y_pred": y_pred}, sample_weight, owner, groups
    )
    resolved = _resolve_metric(metric, metric_options, owner)
    res, source = _metric_resampler(
        resampler, stratify, groups, n_resamples, random_state, owner
    )
    stat = _build_statistic(resolved, yt, [yp], sw, owner)
    fitted, plan = _fit_resampler(res, source, yt, yt, groups)
    _check_layout(stat, plan, owner)
    run = _run_metric(
        stat,
        Data((yt, yp), yt.shape[0]),
        fitted,
        plan,
        resolved,
        undefined,
        n_jobs,
        owner,
        device,
    )
    interval = _interval(
        run.result, method, level, "two-sided", undefined, resolved.name
    )
    return MetricCI(
        metric=resolved.name,
        estimate=float(run.result.estimate),
        interval=interval,
        method=method,
        level=level,
        n_undefined=run.n_undefined,
        undefined_replicates=run.undefined_replicates,
        undefined=undefined,
        result=run.result,
    )


def _check_layout(stat: Statistic, plan: ResamplingPlan, owner: str) -> None:
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


@_with_undefined_metric_errors
def compare_metrics(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    metric: Any,
    *,
    sample_weight: Any = None,
    groups: Any = None,
    stratify: bool = False,
    resampler: Any = None,
    n_resamples: int | None = None,
    random_state: Any = None,
    method: str = "bca",
    level: float = 0.95,
    n_jobs: int | None = None,
    undefined: str = "raise",
    **metric_options: Any,
) -> MetricComparison:
    """Paired bootstrap comparison of two models' predictions under one metric.

    Each replicate draws one set of rows and evaluates
    ``d* = metric(y_true, y_pred_a) - metric(y_true, y_pred_b)`` on it (both
    metrics inside the same numba call for fused metrics), so the correlation
    between the two models' errors is kept: the paired bootstrap of the
    difference.  Resampling options, undefined policy and cost are those of
    :func:`metric_ci` (a replicate is undefined when either metric is).

    The p-value for "no difference" (``H0: d = 0``) is the two-sided bootstrap
    percentile p-value: twice the smaller tail of the bootstrap distribution at
    0, with the add-one correction,

    ``p = min(1, 2 * min(1 + #{d*_b <= 0}, 1 + #{d*_b >= 0}) / (B + 1))``,

    the smallest ``alpha`` for which the two-sided ``1 - alpha`` percentile
    interval excludes 0 (Efron & Tibshirani 1993, section 15.4, relation of
    tests and intervals; the add-one form as in Davison & Hinkley 1997,
    eq. 4.11).  It never is 0 (at least ``2 / (B + 1)``) and it is 1 when the
    predictions are identical (every ``d*`` is 0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_pred_a, y_pred_b : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predictions of the two models on the same rows.
    metric : str or callable
        As in :func:`metric_ci`.
    sample_weight, groups, stratify, resampler, n_resamples, random_state,\
 method, level, n_jobs, undefined, **metric_options
        As in :func:`metric_ci`.

    Returns
    -------
    MetricComparison
        ``.estimate`` (a - b), ``.estimate_a``, ``.estimate_b``, ``.interval``
        of the difference, ``.p_value``.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall, 1993.
    .. [2] A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their
       Application", Cambridge University Press, 1997.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import compare_metrics
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> good = y + rng.normal(size=400)
    >>> weak = y + rng.normal(scale=2.0, size=400)
    >>> cmp = compare_metrics(y, good, weak, "roc_auc", n_resamples=999,
    ...                       random_state=0)
    >>> print(f"{cmp.estimate:.3f} p={cmp.p_value:.3f}")
    0.190 p=0.002
    """
    owner = "compare_metrics"
    method = _iv.check_method(method, owner, METRIC_INTERVAL_METHODS)
    level = _check_common(method, level, undefined, n_jobs, owner)
    yt, preds, sw = _check_inputs(
        y_true,
        {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b},
        sample_weight,
        owner,
        groups,
    )
    resolved = _resolve_metric(metric, metric_options, owner)
    res, source = _metric_resampler(
        resampler, stratify, groups, n_resamples, random_state, owner
    )
    stat = _build_statistic(resolved, yt, preds, sw, owner)
    fitted, plan = _fit_resampler(res, source, yt, yt, groups)
    _check_layout(stat, plan, owner)
    est_a, est_b = stat.each_estimate()  # type: ignore[attr-defined]
    diff_name = f"{resolved.name}(a) - {resolved.name}(b)"
    named = _Metric(
        diff_name,
        resolved.registry,
        resolved.func,
        resolved.options,
        resolved.sign,
        resolved.greater_is_better,
    )
    run = _run_metric(
        stat,
        Data((yt, *preds), yt.shape[0]),
        fitted,
        plan,
        named,
        undefined,
        n_jobs,
        owner,
    )
    interval = _interval(run.result, method, level, "two-sided", undefined, diff_name)
    return MetricComparison(
        metric=resolved.name,
        estimate=float(run.result.estimate),
        estimate_a=float(est_a),
        estimate_b=float(est_b),
        interval=interval,
        p_value=_paired_p_value(np.asarray(run.result.distribution)),
        method=method,
        level=level,
        greater_is_better=resolved.greater_is_better,
        n_undefined=run.n_undefined,
        undefined_replicates=run.undefined_replicates,
        undefined=undefined,
        result=run.result,
    )


def _paired_p_value(d: np.ndarray) -> float:
    """Two-sided percentile p-value of ``H0: d = 0`` with the add-one correction."""
    B = d.shape[0]
    below = 1 + int(np.count_nonzero(d <= 0.0))
    above = 1 + int(np.count_nonzero(d >= 0.0))
    return float(min(1.0, 2.0 * min(below, above) / (B + 1)))


# --------------------------------------------------------------------------- #
# .632 / .632+                                                                  #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True, eq=False)
class BootstrapScore:
    """Bootstrap estimate of a model's out-of-sample score; immutable.

    All scores are in the scorer's orientation (greater is better, so losses
    appear negated, as in scikit-learn: ``neg_log_loss``).

    Attributes
    ----------
    estimate : float
        The estimate of ``method``.
    method : str
        "oob", ".632" or ".632+".
    scoring : str
        Name of the scorer.
    apparent_score : float
        Score of the estimator fitted on all rows, on those same rows
        (resubstitution, ``err_bar``).
    oob_score : float
        Mean over replicates of the out-of-bag score (``Err^(1)``).
    no_information_score : float or None
        Score when predictions are independent of the targets (``gamma``), for
        ".632+".
    relative_overfitting_rate : float or None
        ``R'`` in [0, 1], for ".632+".
    weight : float
        Weight ``w`` of ``oob_score`` in the estimate (1 for "oob", 0.632 for
        ".632", ``0.632 / (1 - 0.368 R')`` for ".632+").
    oob_scores : ndarray of shape (n_defined,)
        Out-of-bag score of every defined replicate, in replicate order.
    n_resamples : int
    n_undefined : int
        Replicates whose out-of-bag score was undefined (no out-of-bag row, or
        the metric undefined on them) and were omitted.
    undefined_replicates : ndarray of int64
    resampler : str
    random_state : int or SeedSequence
    stream_version : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skboot import bootstrap_score
    >>> X, y = load_iris(return_X_y=True)
    >>> score = bootstrap_score(LogisticRegression(max_iter=500), X, y,
    ...                         scoring="accuracy", n_resamples=20, random_state=0)
    >>> type(score).__name__, bool(0.9 < score.estimate <= 1.0)
    ('BootstrapScore', True)
    """

    estimate: float
    method: str
    scoring: str
    apparent_score: float
    oob_score: float
    no_information_score: float | None
    relative_overfitting_rate: float | None
    weight: float
    oob_scores: np.ndarray = field(repr=False)
    n_resamples: int
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    resampler: str
    random_state: Any
    stream_version: int = STREAM_VERSION


class _OOBScoreStatistic(RefitMixin, Statistic):
    """Replicate ``b``: refit on the in-bag rows, score the out-of-bag rows."""

    k = 1
    name = "oob_score"

    def __init__(self, estimator, scorer, X, y, use_sample_weight) -> None:
        self.estimator = estimator
        self.scorer = scorer
        self.fit_params = {}
        self.use_sample_weight = use_sample_weight
        self.arrays = (X, y)

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        X, y = arrays
        nb = out.shape[0]
        W = None
        if self.use_sample_weight:
            W = np.empty((nb, plan.n_samples))
            plan.fill_weights_chunk(b0, W)
        for r in range(nb):
            b = b0 + r
            fitted, counts = self._fit_replicate(
                b, X, y, None, None if W is None else W[r], plan
            )
            oob = np.flatnonzero(counts == 0)
            out[r, 0] = (
                _safe_score(
                    self.scorer, fitted, take_rows(X, oob), take_rows(y, oob), b
                )
                if oob.shape[0]
                else math.nan
            )


def _safe_score(scorer: Any, fitted: Any, X: Any, y: Any, b: int) -> float:
    try:
        with _undefined_metric_errors():
            value = float(scorer(fitted, X, y))
    except UndefinedMetricWarning:
        return math.nan
    except Exception as exc:
        where = (
            "the original data" if b < 0 else f"the out-of-bag rows of replicate {b}"
        )
        raise StatisticError(f"The scorer raised on {where}: {exc!r}.", b) from exc
    return value if math.isfinite(value) else math.nan


def _response(estimator: Any, X: Any, response_method: Any) -> tuple[np.ndarray, str]:
    methods = (
        (response_method,)
        if isinstance(response_method, str)
        else tuple(response_method)
    )
    for m in methods:
        if hasattr(estimator, m):
            return np.asarray(getattr(estimator, m)(X)), m
    raise ValueError(
        f"The estimator {type(estimator).__name__} has none of the response methods "
        f"{list(methods)} that the scorer needs."
    )


def _no_information_score(
    scorer: Any, fitted: Any, X: Any, y: np.ndarray, owner: str
) -> float:
    """The scorer's value when predictions are independent of the targets.

    Efron & Tibshirani's no-information error rate ``gamma`` is the loss
    averaged over all n^2 pairs ``(y_i, yhat_j)``.  Those pairs form the product
    of the empirical distributions of ``y`` and of the predictions, which is
    represented exactly with weights instead of n^2 rows:

    - classification: every class ``k`` of ``y`` (proportion ``p_k``) paired with
      every prediction (weight ``1/n``): K*n weighted rows, one metric call
      (O(K n log(K n)) for ranking metrics; for accuracy this is
      ``sum_k p_k q_k``, i.e. the error ``sum_k p_k (1 - q_k)``);
    - regression, closed forms: mean squared error of the pairs is
      ``var(y) + var(yhat) + (mean(y) - mean(yhat))^2``; their mean absolute
      error is computed from the two sorted samples and prefix sums (O(n log n));
      R^2 is ``1 - mse_pairs / var(y)``.
    """
    if not _is_scorer(scorer):
        raise ValueError(
            f"The method '.632+' of {owner} needs a scikit-learn scorer (a scorer name "
            "or sklearn.metrics.make_scorer(...)) to compute the no-information "
            f"rate. Got {scorer!r} instead; use method='.632' or 'oob'."
        )
    resolved = _resolve_metric(scorer, {}, owner)
    yhat, used = _response(fitted, X, getattr(scorer, "_response_method", "predict"))
    reg = resolved.registry
    if reg in _REGRESSION:
        yt = np.asarray(y, dtype=np.float64)
        yh = np.asarray(yhat, dtype=np.float64).reshape(-1)
        if reg == "mean_absolute_error":
            value = _pairwise_mae(yt, yh)
        else:
            mse = float(yt.var() + yh.var() + (yt.mean() - yh.mean()) ** 2)
            if reg == "mean_squared_error":
                value = mse
            elif reg == "root_mean_squared_error":
                value = math.sqrt(mse)
            else:
                value = 1.0 - mse / float(yt.var()) if yt.var() > 0 else math.nan
        return resolved.sign * value
    if (
        used == "predict_proba"
        and yhat.ndim == 2
        and reg in ("roc_auc", "average_precision")
    ):
        yhat = yhat[:, 1]
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    K, n = classes.shape[0], yhat.shape[0]
    if K > 1000:
        raise ValueError(
            f"The no-information rate of {owner} for scoring {resolved.name} on a "
            f"target with {K} distinct values is not available (regression targets "
            "need one of the scorers of mean_squared_error, root_mean_squared_error, "
            "mean_absolute_error or r2). Use method='.632' or 'oob'."
        )
    y_pairs = np.repeat(classes, n)
    yhat_pairs = np.tile(yhat, (K,) + (1,) * (yhat.ndim - 1))
    w = np.repeat(counts / counts.sum(), n) / n
    if reg is not None:
        prepared = METRICS[reg].prepare(y_pairs, yhat_pairs, **resolved.options)
        return resolved.sign * float(prepared.kernel(*prepared.args, w))
    assert resolved.func is not None
    if not _accepts(resolved.func, "sample_weight"):
        raise ValueError(
            f"The no-information rate of {owner} needs a metric that accepts "
            f"sample_weight. Got {resolved.name} instead; use method='.632' or 'oob'."
        )
    value = resolved.func(y_pairs, yhat_pairs, sample_weight=w, **resolved.options)
    return resolved.sign * float(value)


def _pairwise_mae(y: np.ndarray, yhat: np.ndarray) -> float:
    """``mean_{i,j} |y_i - yhat_j|`` in O(n log n): sort, search, prefix sums."""
    s = np.sort(yhat)
    prefix = np.concatenate(([0.0], np.cumsum(s)))
    m = s.shape[0]
    k = np.searchsorted(s, y, side="left")  # yhat_j < y_i for j < k
    below = y * k - prefix[k]
    above = (prefix[m] - prefix[k]) - y * (m - k)
    return float((below + above).sum() / (y.shape[0] * m))


@_with_undefined_metric_errors
def bootstrap_score(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    scoring: Any,
    resampler: Any = None,
    method: str = ".632+",
    n_resamples: int | None = None,
    random_state: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    undefined: str = "raise",
) -> BootstrapScore:
    """Out-of-bag, .632 and .632+ bootstrap estimates of a model's score.

    Algorithm (Efron & Tibshirani 1997), in the scorer's orientation
    (greater is better; the formulas are applied to the loss ``-score``):

    1. Fit ``estimator`` on all rows; its score on those rows is the apparent
       score (``err_bar``).
    2. For each replicate ``b``, fit a clone on the in-bag rows
       (``sample_weight=counts`` when ``fit`` accepts it, rows not drawn get
       weight 0; else on the gathered rows) and score it on the out-of-bag
       rows.  ``oob_score`` (``Err^(1)``) is the mean over replicates.
    3. ``".632"``: ``0.368 * apparent + 0.632 * oob``.
    4. ``".632+"``: with the no-information score ``gamma`` (the score of the
       full fit's predictions paired with targets independently, see below),
       ``Err1' = min(Err1, gamma)`` and the relative overfitting rate
       ``R' = (Err1' - err_bar) / (gamma - err_bar)`` when
       ``Err1' > err_bar`` and ``gamma > err_bar`` (else 0), the estimate is
       ``(1 - w) err_bar + w Err1'`` with ``w = 0.632 / (1 - 0.368 R')``
       (Efron & Tibshirani 1997, section 3; Hastie, Tibshirani & Friedman 2009,
       eqs. 7.57-7.60).

    The no-information score costs O(n log n) or less, never the O(n^2) sum
    over pairs: for classification the n^2 pairs are the product of the class
    proportions and the n predictions, evaluated as K*n weighted rows (for 0-1
    loss, ``gamma = sum_k p_k (1 - q_k)``); for regression losses it has a closed
    form (squared error) or a sort (absolute error).

    Cost: ``n_resamples + 1`` fits and ``n_resamples`` scorings; memory O(n)
    per worker besides the estimator.

    Parameters
    ----------
    estimator : estimator object
        Cloned for every fit.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    scoring : str or callable
        A scikit-learn scorer name or ``scorer(estimator, X, y)``.  For ".632+"
        the scorer must compute a metric of :func:`metric_ci`'s registry (or a
        ``sklearn.metrics`` function accepting ``sample_weight`` on a
        classification target), so that ``gamma`` can be computed.
    resampler : skboot resampler, default=None
        None: :class:`Bootstrap`.  Must give in-bag / out-of-bag rows
        (not :class:`BayesianBootstrap`).  ``y`` is routed as the strata and
        ``groups`` as the groups.
    method : {"oob", ".632", ".632+"}, default=".632+"
    n_resamples : int or None, default=None
        None: the resampler's ``n_resamples`` when one is given, else 200.  An
        int replaces the value of a resampler left at its default; a resampler
        set to another value raises a ValueError.
    random_state : None, int, SeedSequence or Generator, default=None
    groups : array-like of shape (n_samples,), default=None
    n_jobs : int, default=None
    undefined : {"raise", "omit"}, default="raise"
        Replicates with no out-of-bag row or an undefined score.

    Returns
    -------
    BootstrapScore

    Notes
    -----
    ``Err^(1)`` here averages the out-of-bag score per replicate, which works for
    any scorer (ROC AUC included); Efron & Tibshirani's leave-one-out bootstrap
    averages a per-row loss per observation first.  The two agree closely for
    per-row losses and coincide when all replicates have the same number of
    out-of-bag rows.

    References
    ----------
    .. [1] B. Efron and R. Tibshirani, "Improvements on cross-validation: the
       .632+ bootstrap method", Journal of the American Statistical Association
       92(438), 548-560, 1997.
    .. [2] T. Hastie, R. Tibshirani and J. Friedman, "The Elements of
       Statistical Learning", 2nd ed., Springer, 2009, section 7.11.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skboot import bootstrap_score
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0)
    >>> res = bootstrap_score(tree, X, y, scoring="accuracy", n_resamples=50,
    ...                       random_state=0)
    >>> print(f"{res.estimate:.3f} (apparent {res.apparent_score:.3f})")
    0.963 (apparent 1.000)
    """
    owner = "bootstrap_score"
    from sklearn.metrics import check_scoring

    check_one_of(method, "method", owner, SCORE_METHODS)
    check_one_of(undefined, "undefined", owner, UNDEFINED_POLICIES)
    check_n_jobs(n_jobs, owner)
    if not callable(getattr(estimator, "fit", None)):
        raise param_error(
            "estimator", owner, "an estimator object implementing 'fit'", estimator
        )
    if resampler is not None and not isinstance(resampler, BaseResampler):
        raise param_error("resampler", owner, "None or a skboot resampler", resampler)
    if n_resamples is not None:
        check_int(n_resamples, "n_resamples", owner, min_value=1)
    res, source = resolve_resampler(
        resampler, n_resamples, random_state, owner, default=200
    )
    if scoring is None:
        raise param_error("scoring", owner, "a scorer name or a callable scorer", None)
    try:
        scorer = check_scoring(estimator, scoring=scoring)
    except ValueError as exc:  # sklearn's message names check_scoring, not us
        raise param_error(
            "scoring",
            owner,
            "a scorer name (sklearn.metrics.get_scorer_names()) or a callable "
            "scorer(estimator, X, y)",
            scoring,
        ) from exc
    n = n_rows(X)
    y_arr = np.asarray(y)
    if y_arr.ndim != 1 or y_arr.shape[0] != n:
        raise ValueError(
            f"The 'y' parameter of {owner} must be 1-d with one target per row of X "
            f"({n}). Got shape {y_arr.shape} instead."
        )
    use_sw = check_refit_mode(estimator, None, False, owner)
    fitted, plan = _fit_resampler(res, source, X, y, groups)
    if plan.layout == "weights":
        raise ValueError(
            f"The resampler of {owner} gives continuous weights (BayesianBootstrap), "
            "which have no out-of-bag rows. Use an index resampler."
        )
    stat = _OOBScoreStatistic(estimator, scorer, X, y, use_sw)
    full = stat._fit(-1, X, y, None)
    apparent = _safe_score(scorer, full, X, y, -1)
    if not math.isfinite(apparent):
        raise ValueError(f"The scorer of {owner} is undefined on the original data.")
    B = int(fitted.n_resamples)
    scores = run_bootstrap(stat, plan, B, n_jobs=n_jobs)[:, 0]
    bad = ~np.isfinite(scores)
    bad_idx = np.flatnonzero(bad).astype(np.int64)
    name = (
        scoring
        if isinstance(scoring, str)
        else getattr(scorer, "__name__", repr(scorer))
    )
    if bad_idx.shape[0]:
        msg = (
            f"The out-of-bag score is undefined on {bad_idx.shape[0]} of {B} "
            f"replicates (first: replicate {int(bad_idx[0])}: no out-of-bag row, or "
            "the metric undefined on them)"
        )
        if undefined == "raise":
            raise ValueError(
                msg + ". Pass undefined='omit' to drop them, a StratifiedBootstrap "
                "resampler, or more data."
            )
        warnings.warn(
            msg + "; they are omitted.", UndefinedStatisticWarning, stacklevel=2
        )
        scores = scores[~bad]
        if scores.shape[0] == 0:
            raise ValueError(msg + "; none is left.")
    oob = float(scores.mean())
    gamma = R = None
    if method == "oob":
        w = 1.0
        estimate = oob
    elif method == ".632":
        w = 0.632
        estimate = 0.368 * apparent + 0.632 * oob
    else:
        gamma = _no_information_score(scorer, full, X, y_arr, owner)
        # loss orientation: L = -score
        err, err1, g = -apparent, -oob, -gamma
        err1p = min(err1, g)
        R = (err1p - err) / (g - err) if (err1p > err and g > err) else 0.0
        w = 0.632 / (1.0 - 0.368 * R)
        estimate = -((1.0 - w) * err + w * err1p)
    return BootstrapScore(
        estimate=float(estimate),
        method=method,
        scoring=str(name),
        apparent_score=float(apparent),
        oob_score=oob,
        no_information_score=None if gamma is None else float(gamma),
        relative_overfitting_rate=None if R is None else float(R),
        weight=float(w),
        oob_scores=scores,
        n_resamples=B,
        n_undefined=int(bad_idx.shape[0]),
        undefined_replicates=bad_idx,
        resampler=repr(fitted),
        random_state=fitted.seed_entropy_,
    )
