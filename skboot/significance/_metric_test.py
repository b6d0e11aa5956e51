"""``metric_permutation_test``: is a model's held-out score better than chance?

The labels of held-out predictions are permuted (within groups) and the metric
re-evaluated by skboot's fused metric kernels: the meaning of scikit-learn's
``permutation_test_score`` without refitting the model per permutation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skboot._engine import Statistic, run_bootstrap
from skboot._engine._statistic import call_user
from skboot._kernels.metric import eval_packed
from skboot._kernels.significance import (
    MODE_ABS,
    MODE_BACC,
    MODE_PRF,
    MODE_R2,
    MODE_RANK,
    MODE_SQ,
    MODE_TABLE,
    metric_perm_chunk,
)
from skboot._random import PURPOSE
from skboot._typing import ArrayLike, MetricLike, RandomStateLike
from skboot._validation import (
    CALLABLE,
    NONE,
    Constraint,
    Options,
    validate_params,
    value_error,
)
from skboot.metrics import (
    METRICS,
    pack_arrays,
    packed,
    prepare_precision,
    resolve_metric,
)
from skboot.metrics._guard import undefined_metric_errors, with_undefined_metric_errors
from skboot.resamplers import Permutation
from skboot.significance._common import (
    ALTERNATIVE,
    COUNT,
    RUN_CONSTRAINTS,
    pvalues,
    warn_undefined,
    warn_undefined_observed,
)
from skboot.significance._results import MetricPermutationTestResult

__all__ = ["MetricPermutationTestResult", "metric_permutation_test"]

_OWNER = "metric_permutation_test"

_MODES = {
    "accuracy": MODE_TABLE,
    "log_loss": MODE_TABLE,
    "brier_score": MODE_TABLE,
    "mean_squared_error": MODE_SQ,
    "root_mean_squared_error": MODE_SQ,
    "mean_absolute_error": MODE_ABS,
    "r2": MODE_R2,
    "balanced_accuracy": MODE_BACC,
    "precision": MODE_PRF,
    "recall": MODE_PRF,
    "f1": MODE_PRF,
    "roc_auc": MODE_RANK,
    "average_precision": MODE_RANK,
}

_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int64)


def _label_arrays(
    name: str, prepared: Any, y_true: Any, y_pred: Any, options: dict[str, Any]
) -> tuple[np.ndarray, ...]:
    """``(lab_f, lab_i, lab_i2, aux_f, aux_i, table)`` for the kernel's mode."""
    n = prepared.n_samples
    lab_f, aux_f, table = _EMPTY_F, _EMPTY_F, np.empty((0, 0))
    lab_i, lab_i2, aux_i = _EMPTY_I, _EMPTY_I, _EMPTY_I
    args = prepared.args
    mode = _MODES[name]
    if mode == MODE_TABLE:
        # column c: the per-row value had every label been class c (the
        # metric's own prepare, so the values are computed as for metric_ci)
        classes = np.asarray(prepared.classes)
        yt = np.asarray(y_true)
        lab_i = np.searchsorted(classes, yt).astype(np.int64)
        extra = dict(options)
        if name != "accuracy" and np.asarray(y_pred).ndim == 2:
            extra["labels"] = classes
        cols = []
        for c in range(classes.shape[0]):
            const = np.full(n, classes[c], dtype=classes.dtype)
            cols.append(METRICS[name].prepare(const, y_pred, **extra).args[0])
        table = np.ascontiguousarray(np.column_stack(cols), dtype=np.float64)
    elif mode in (MODE_SQ, MODE_ABS):
        lab_f = np.ascontiguousarray(y_true, dtype=np.float64)
        aux_f = np.ascontiguousarray(y_pred, dtype=np.float64)
    elif mode == MODE_R2:
        lab_f = np.ascontiguousarray(args[0], dtype=np.float64)
        aux_f = np.ascontiguousarray(y_pred, dtype=np.float64)
    elif mode == MODE_BACC:
        joint = prepare_precision(y_true, y_pred, average="micro").args
        lab_i, lab_i2, aux_i = args[0], joint[0], joint[1]
    elif mode == MODE_PRF:
        lab_i = args[0]
    else:  # ranking: the labels in row order
        lab_f = np.empty(n)
        lab_f[args[0]] = args[1]
    return (
        lab_f,
        np.ascontiguousarray(lab_i, dtype=np.int64),
        np.ascontiguousarray(lab_i2, dtype=np.int64),
        aux_f,
        np.ascontiguousarray(aux_i, dtype=np.int64),
        table,
    )


@dataclass
class FusedMetricStatistic(Statistic):
    """A fused metric with permuted labels; arrays: the packed metric arrays
    then the label arrays of :func:`_label_arrays`."""

    scalars: tuple[int, int, int, int, float] = (0, 0, 0, 0, 0.0)
    mode: int = 0
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "metric"

    def bytes_per_replicate(self, plan: Any) -> int:
        return 64

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        p = packed(tuple(arrays[:4]), self.scalars)
        seed, gamma = plan.key.stream(PURPOSE["permutation"])
        metric_perm_chunk(
            seed,
            gamma,
            np.int64(b0),
            plan.pools,
            plan.offsets,
            plan.sizes,
            p,
            np.int64(self.mode),
            arrays[4],
            arrays[5],
            arrays[6],
            arrays[7],
            arrays[8],
            arrays[9],
            out,
        )


@dataclass
class CallablePermutedMetric(Statistic):
    """``metric(y_true[perm], y_pred, **options)`` per permutation.

    A scikit-learn ``UndefinedMetricWarning`` makes the permutation undefined
    (NaN), as it makes a replicate undefined for the callable metrics of
    :func:`skboot.metric_ci`; +-inf are values.  An exception becomes a
    :class:`~skboot.StatisticError` naming the permutation.
    """

    func: Any = None
    options: dict[str, Any] | None = None
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "metric"

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        y_true, y_pred = arrays
        with undefined_metric_errors():  # once per chunk in a worker process
            for k in range(out.shape[0]):
                perm = plan.indices(b0 + k)
                out[k, 0] = self.value(y_true[perm], y_pred, b0 + k)

    def value(self, y_true: np.ndarray, y_pred: np.ndarray, b: int) -> float:
        """The metric on ``(y_true, y_pred)``: permutation ``b`` (-1: the data)."""
        return call_user(
            self._score,
            (y_true, y_pred),
            what="metric",
            b=b,
            where="the original labels" if b < 0 else f"permutation {b}",
            undefined=(UndefinedMetricWarning,),
        )

    def _score(self, y_true: np.ndarray, y_pred: np.ndarray) -> float:
        return float(self.func(y_true, y_pred, **(self.options or {})))


_CONSTRAINTS: dict[str, list[Constraint]] = {
    "metric": [Options(tuple(METRICS)), CALLABLE],
    "n_resamples": [COUNT],
    "alternative": [ALTERNATIVE, NONE],
    **RUN_CONSTRAINTS,
}


@with_undefined_metric_errors
def metric_permutation_test(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    metric: MetricLike,
    *,
    groups: ArrayLike | None = None,
    n_resamples: int = 9999,
    alternative: str | None = None,
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    **metric_options: Any,
) -> MetricPermutationTestResult:
    """Permutation test of a model metric on held-out predictions.

    Tests the null hypothesis that the labels are unrelated to the predictions
    (within groups), the question scikit-learn's ``permutation_test_score``
    asks, on predictions the model made for data it was not fitted on (a test
    set, or ``cross_val_predict``):

    1. The metric is evaluated on ``(y_true, y_pred)``.
    2. For each replicate ``b < n_resamples`` the labels are permuted by
       :class:`skboot.resamplers.Permutation` (replicate ``b``, within
       ``groups`` when given) and the metric re-evaluated on ``(y_true[perm],
       y_pred)``: for a fused metric by its numba kernel, the permutation drawn
       and the label-dependent arrays rebuilt in one pass of O(n), no sort.
    3. ``pvalue = (r + 1) / (n_resamples + 1)``, ``r`` the permutations scoring
       at least as well (within 100 machine epsilons of the metric's scale: 1
       for bounded metrics, the data's for the errors; on integer labels and
       predictions the fused metrics tie exactly).

    A fused metric undefined on the data (ROC AUC with one class, R^2 of
    constant targets) and continuous values given to a metric of class labels
    are refused, as :func:`skboot.metric_ci` refuses them.  A callable metric
    is undefined where it returns NaN or warns scikit-learn's
    ``UndefinedMetricWarning`` (as for :func:`skboot.metric_ci`): on the
    original labels that gives a NaN p-value and an
    :class:`~skboot.UndefinedStatisticWarning`; an undefined permutation never
    counts as extreme and is counted in ``n_undefined``.

    Differences from ``sklearn.model_selection.permutation_test_score``: the
    model is not refitted per permutation (the null is "these predictions carry
    no information about these labels", not "the fitting procedure finds
    none"), so a test costs ``n_resamples`` metric evaluations instead of
    ``n_resamples * n_folds`` fits; the score is computed on the pooled held-out
    predictions, not averaged over folds; ties within rounding count as ties.
    With a model whose predictions do not depend on the training labels the
    two agree exactly (see the tests).

    Memory: O(n) per worker plus O(n_resamples).  Time: O(n_resamples * n) for
    fused metrics.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels or targets.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Held-out predictions, scores or probabilities, as the metric expects.
    metric : str or callable
        A fused metric name, as in :func:`skboot.metric_ci` ({"accuracy",
        "balanced_accuracy", "precision", "recall", "f1", "roc_auc",
        "average_precision", "log_loss", "brier_score", "mean_squared_error",
        "root_mean_squared_error", "mean_absolute_error", "r2"}), or any
        ``metric(y_true, y_pred, **metric_options)`` (evaluated per
        permutation in Python).
    groups : array-like of shape (n_samples,), default=None
        Labels are permuted only among rows of the same group.
    n_resamples : int, default=9999
        Number of permutations.
    alternative : {"greater", "less", "two-sided"}, default=None
        None: "greater" for scores (higher is better, and callables), "less"
        for losses and errors.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the derived streams; None draws fresh entropy, recorded on
        the result so the run can be repeated.
    n_jobs : int, default=None
        Workers through joblib.
    chunk_size : int, default=None
        Permutations per chunk; never changes results.
    **metric_options
        Options of the metric (``average``, ``zero_division``, ``labels``,
        ``force_finite``; any keyword for a callable).

    Returns
    -------
    MetricPermutationTestResult
        The metric, its p-value and the null distribution.

    See Also
    --------
    permutation_test : Permutation test of any statistic of the samples.
    skboot.compare_metrics : Paired bootstrap comparison of two models.

    References
    ----------
    .. [1] M. Ojala and G. C. Garriga, "Permutation tests for studying
       classifier performance", Journal of Machine Learning Research 11, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.significance import metric_permutation_test
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> score = y + rng.normal(0, 1.5, 200)
    >>> res = metric_permutation_test(y, score, "roc_auc", n_resamples=999,
    ...                               random_state=0)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (0.684, 0.001)
    """
    values = validate_params(
        _OWNER,
        _CONSTRAINTS,
        metric=metric,
        n_resamples=n_resamples,
        alternative=alternative,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
    )
    B, alternative = values["n_resamples"], values["alternative"]
    if alternative is None:
        better = METRICS[metric].greater_is_better if isinstance(metric, str) else True
        alternative = "greater" if better else "less"
    stat: Statistic
    scale = 0.0
    if isinstance(metric, str):
        resolve_metric(metric, metric_options, _OWNER)  # the options it accepts
        _check_label_predictions(metric, y_true, y_pred)
        prepared = METRICS[metric].prepare(y_true, y_pred, **metric_options)
        n = prepared.n_samples
        arrays, scalars = pack_arrays(prepared)
        labels = _label_arrays(metric, prepared, y_true, y_pred, metric_options)
        stat = FusedMetricStatistic(
            scalars=scalars,
            mode=_MODES[metric],
            arrays=(*arrays, *labels),
            name=metric,
        )
        observed = float(eval_packed(packed(arrays, scalars), np.ones(n)))
        if not math.isfinite(observed):
            raise ValueError(
                f"The metric {metric} is undefined on the original data of {_OWNER} "
                f"(it is undefined when {METRICS[metric].undefined_when}); no "
                "p-value can be computed."
            )
        name = metric
        scale = _tie_scale(metric, y_true, y_pred)
    else:
        yt, yp = np.asarray(y_true), np.asarray(y_pred)
        if yt.ndim != 1 or yp.shape[0] != yt.shape[0]:
            raise value_error(
                "y_pred",
                _OWNER,
                f"must have one row per label of the 1-d y_true ({yt.shape}). Got "
                f"shape {yp.shape} instead.",
            )
        n = yt.shape[0]
        stat = CallablePermutedMetric(
            func=metric, options=metric_options, arrays=(yt, yp)
        )
        observed = stat.value(yt, yp, -1)
        name = getattr(metric, "__name__", type(metric).__name__)
    undefined = warn_undefined_observed(
        np.array(observed), _OWNER, "the metric returned NaN on the original labels"
    )
    resampler = Permutation(B, random_state=random_state)
    resampler.fit(np.empty((n, 0)), groups=groups)
    null = run_bootstrap(stat, resampler.plan_, B, n_jobs=n_jobs, chunk_size=chunk_size)
    n_bad = warn_undefined(null, _OWNER, announce=not undefined)
    p = pvalues(np.array([observed]), null, alternative, 1, scale)
    return MetricPermutationTestResult(
        statistic=observed,
        pvalue=float(p[0]),
        null_distribution=null[:, 0],
        metric=name,
        n_resamples=B,
        alternative=alternative,
        random_state=resampler.seed_entropy_,
        n_undefined=n_bad,
    )


#: Metrics of predicted class labels (scikit-learn refuses scores for them).
_LABEL_METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "f1")


def _check_label_predictions(metric: str, y_true: Any, y_pred: Any) -> None:
    """scikit-learn's target types (``type_of_target``): a label metric refuses
    continuous predictions or targets (probabilities or scores given as labels),
    as scikit-learn's classification metrics do."""
    if metric not in _LABEL_METRICS:
        return
    from sklearn.utils.multiclass import type_of_target

    for param, value in (("y_true", y_true), ("y_pred", y_pred)):
        arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        if arr.dtype.kind != "f" or arr.ndim != 1 or not np.isfinite(arr).all():
            continue  # labels of other kinds: the metric's own checks
        kind = type_of_target(arr)
        if kind.startswith("continuous"):
            raise value_error(
                param,
                _OWNER,
                f"must hold class labels for the metric {metric!r} (scikit-learn's "
                "classification metrics refuse a mix of labels and continuous "
                f"values). Got continuous values such as {float(arr[arr != np.round(arr)][0])!r} "
                "instead: pass predicted labels (e.g. predict, or probabilities "
                "thresholded), or use a metric of scores such as 'roc_auc' or "
                "'log_loss'.",
            )


def _tie_scale(metric: str, y_true: Any, y_pred: Any) -> float:
    """The magnitude of a metric's values for the tie tolerance: 1 for
    bounded and unit-free metrics, the data's scale for the errors."""
    if metric not in (
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
    ):
        return 1.0
    big = 0.0
    for value in (y_true, y_pred):
        arr = np.abs(np.asarray(value, dtype=np.float64))
        big += float(arr.max()) if arr.size else 0.0
    return big * big if metric == "mean_squared_error" else big
