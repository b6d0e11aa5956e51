"""The entry points that bootstrap a fitted model's predictions:
:func:`metric_ci` (an interval for one metric) and :func:`compare_metrics` (the
paired difference of two models under one metric), and the run they share."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from skboot._engine import run_bootstrap
from skboot._engine.cuda import device_runner
from skboot._run import Run, RunContext, apply_undefined_policy
from skboot._typing import ArrayLike, MetricLike, RandomStateLike
from skboot.metrics._dask import DaskMetricRun, dask_metric_run, holds_dask
from skboot.metrics._guard import with_undefined_metric_errors
from skboot.metrics._inputs import MetricRun, setup_metric_run
from skboot.metrics._resolve import ResolvedMetric
from skboot.metrics._results import MetricCI, MetricComparison, metric_interval
from skboot.resamplers import BaseResampler
from skboot.statistic import BootstrapResult

__all__ = [
    "compare_metrics",
    "finish_metric",
    "metric_ci",
    "paired_p_value",
    "run_metric",
]


def run_metric(
    setup: MetricRun,
    metric: ResolvedMetric,
    policy: str,
    n_jobs: Any,
    owner: str,
    device: str = "cpu",
) -> tuple[BootstrapResult, np.ndarray]:
    """Run the replicates of ``setup`` and apply the undefined-replicate
    ``policy``; ``metric`` names the statistic in messages and on the result.

    Returns the :class:`~skboot.BootstrapResult` of the defined replicates (it
    keeps the run's context for the BCa jackknife) and the numbers of the
    undefined ones.
    """
    stat, resampler = setup.stat, setup.resampler
    plan = resampler.plan_
    B = int(resampler.n_resamples)
    runner = device_runner(device, stat, plan, resampler, owner)  # None: CPU
    est = stat.estimate()
    _check_estimate(est, metric, owner)
    dist = (runner or run_bootstrap)(stat, plan, B, n_jobs=n_jobs)
    context = RunContext(stat, setup.data, plan, resampler, n_jobs)
    return finish_metric(context, dist, est, metric, policy, owner)


def _check_estimate(est: np.ndarray, metric: ResolvedMetric, owner: str) -> None:
    if not math.isfinite(float(est[0])):
        raise ValueError(
            f"The metric {metric.name} is undefined on the original data of {owner} "
            f"(it is undefined when {metric.undefined_when}); no interval can be "
            "computed."
        )


def finish_metric(
    context: RunContext,
    dist: np.ndarray,
    est: np.ndarray,
    metric: ResolvedMetric,
    policy: str,
    owner: str,
) -> tuple[BootstrapResult, np.ndarray]:
    """The result of a computed distribution ``dist`` (B, 1) and estimate:
    the undefined-replicate ``policy`` applied (see :func:`run_metric`)."""
    _check_estimate(est, metric, owner)
    name = metric.name.replace("{", "{{").replace("}", "}}")
    dist, undefined = apply_undefined_policy(
        dist,
        policy,
        subject=f"The metric {metric.name} is undefined",
        unit="bootstrap replicates",
        why=f"; it is undefined when {metric.undefined_when}",
        remedy="Pass undefined='omit' to drop them (the count is recorded on the "
        "result), "
        + (
            ""
            if context.stat.data_unavailable
            else "stratify=True to keep the class counts of every replicate, "
        )
        + "or more data.",
        omitted="they are omitted and the interval describes the defined "
        "replicates. See n_undefined and undefined_replicates on the result",
        minimum=2,
        too_few=f"The metric {name} is defined on {{kept}} of {{B}} bootstrap "
        "replicates; at least {minimum} are needed for an interval.",
    )
    run = Run(context, dist, est, undefined, 0)
    result = BootstrapResult._from_run(run, metric.name, n_undefined=0)
    return result, undefined.replicates


@with_undefined_metric_errors
def metric_ci(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    metric: MetricLike,
    *,
    sample_weight: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    stratify: bool = False,
    resampler: BaseResampler | None = None,
    n_resamples: int | None = None,
    random_state: RandomStateLike = None,
    method: str | None = None,
    level: float = 0.95,
    n_jobs: int | None = None,
    undefined: str = "raise",
    device: str = "cpu",
    **metric_options: Any,
) -> MetricCI:
    """Bootstrap confidence interval for a model metric.

    Algorithm:

    1. The metric is resolved: a fused metric (a name of
       :data:`skboot.metrics.METRICS`, or the scikit-learn function or
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
       values in closed form: O(n) after the sort for fused metrics,
       O(n * n_classes) for averaged precision, recall and F1).

    Memory: O(n) for the prepared arrays plus one (chunk, n) buffer per worker,
    chunk sized to the cache; O(n_resamples) for the distribution.  Time:
    O(n_resamples * n) for fused metrics.

    Predictions in dask collections (dask arrays or Series, partitioned like
    ``y_true``) run data-parallel: each partition reduces its rows to
    per-replicate sums on the dask workers (ROC AUC and average precision
    after a dask sort by score), so the rows never come to this process.  The
    schemes are those of memory: the exact iid bootstrap (the default) and the
    stratified one (``stratify=True``, the classes of ``y_true``) draw exact
    multinomial counts per partition, with the in-memory law of the
    replicates and the in-memory estimate but another stream (it depends on
    the partitioning); ``groups`` (a dask collection) gives every row of a
    group the group's Poisson(1) count from a hash of its id;
    ``resampler=PoissonBootstrap(...)`` equals the in-memory Poisson
    bootstrap of the same rows and seed.  ``method`` "percentile", "basic",
    "normal" or "bc" always; "bca" (the default) where one more pass
    computes its acceleration (the stratified jackknife under stratified
    resampling), for every metric with or without ``sample_weight``, but
    not with ``groups`` ("percentile" by default there).  Metrics
    "accuracy", "balanced_accuracy", "precision", "recall", "f1", "roc_auc",
    "average_precision", "log_loss", "brier_score", "r2" and the regression
    errors; see the user guide's page "Data larger than memory".

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (numbers or strings, as in scikit-learn) or targets.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predictions (labels of the type of ``y_true``), scores or probabilities,
        as the metric expects.
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
        Number of replicates, in [1, 2**32 - 1].  None: the resampler's
        ``n_resamples`` when a resampler is given, else 9999.  An int replaces the value of a resampler
        left at its default; a resampler set to another value raises a
        ValueError.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the replicates' derived streams; None draws fresh entropy,
        recorded on the result so the run can be repeated.
    method : {"percentile", "basic", "normal", "bc", "bca"} or None, default=None
        Any letter case ("BCa" is "bca").  None: "bca", except for predictions
        in dask collections with ``groups``: "percentile" there.
    level : float, default=0.95
        Confidence level, in (0, 1).
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
        Options of the metric, e.g. ``average="macro"`` for "f1",
        ``labels=[...]`` for "log_loss" or ``pos_label="malignant"`` for any
        binary metric (the positive class; by default the one scikit-learn
        picks: ``pos_label=1`` for precision, recall, F1 and average
        precision, the greater of the two classes for "roc_auc").

    Returns
    -------
    MetricCI
        ``.estimate``, ``.confidence_interval()`` (the interval at ``level``
        by ``method``), the bootstrap ``.distribution`` and ``.result``; other
        intervals from the same replicates with
        ``.confidence_interval(level=..., method=...)``.

    Raises
    ------
    ValueError
        On invalid input (mismatched lengths, an unknown metric name, more
        than two classes or a ``pos_label`` that is not a label for a binary
        metric, labels of mixed types, probabilities outside [0, 1], ...),
        or with ``undefined="raise"`` when the metric is undefined on a
        replicate.

    Warns
    -----
    UndefinedStatisticWarning
        With ``undefined="omit"``, when replicates are omitted.

    See Also
    --------
    compare_metrics : Paired comparison of two models on the same replicates.
    bootstrap_score : Interval of an estimator's score, refitting per replicate.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import metric_ci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> score = y + rng.normal(size=300)
    >>> res = metric_ci(y, score, "roc_auc", n_resamples=999, random_state=0)
    >>> ci = res.confidence_interval()
    >>> print(f"{res.estimate:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
    0.814 [0.759, 0.859]

    Text labels, as in scikit-learn: the same replicates as the 0/1 labels.

    >>> names = np.where(y == 1, "malignant", "benign")
    >>> text = metric_ci(names, score, "roc_auc", n_resamples=999, random_state=0)
    >>> bool((text.distribution == res.distribution).all())
    True
    >>> pred = np.where(score > 0.5, "malignant", "benign")
    >>> f1 = metric_ci(names, pred, "f1", pos_label="malignant", n_resamples=999,
    ...                random_state=0)
    >>> print(f"{f1.estimate:.3f}")
    0.755
    """
    owner = "metric_ci"
    kwargs = dict(
        sample_weight=sample_weight,
        groups=groups,
        stratify=stratify,
        resampler=resampler,
        n_resamples=n_resamples,
        random_state=random_state,
        method=method,
        level=level,
        undefined=undefined,
        n_jobs=n_jobs,
        device=device,
    )
    preds = {"y_pred": y_pred}
    setup: MetricRun | DaskMetricRun
    if holds_dask(y_true, y_pred, sample_weight):
        call = dict(kwargs, y_true=y_true, preds=preds, metric=metric)
        setup = dask_metric_run(owner, dict(call, metric_options=metric_options))
        result, undefined_replicates = finish_metric(
            setup.context,
            setup.distribution,
            setup.estimate,
            setup.metric,
            undefined,
            owner,
        )
    else:
        kwargs["method"] = "bca" if method is None else method
        setup = setup_metric_run(owner, y_true, preds, metric, metric_options, **kwargs)
        result, undefined_replicates = run_metric(
            setup, setup.metric, undefined, n_jobs, owner, device
        )
    name = setup.metric.name
    interval = metric_interval(
        result, setup.method, setup.level, "two-sided", undefined, name
    )
    return MetricCI(
        metric=name,
        estimate=float(result.estimate),
        _interval=interval,
        method=setup.method,
        level=setup.level,
        n_undefined=int(undefined_replicates.shape[0]),
        undefined_replicates=undefined_replicates,
        undefined=undefined,
        result=result,
    )


@with_undefined_metric_errors
def compare_metrics(
    y_true: ArrayLike,
    y_pred_a: ArrayLike,
    y_pred_b: ArrayLike,
    metric: MetricLike,
    *,
    sample_weight: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    stratify: bool = False,
    resampler: BaseResampler | None = None,
    n_resamples: int | None = None,
    random_state: RandomStateLike = None,
    method: str | None = None,
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
    :func:`metric_ci` (a replicate is undefined when either metric is), also
    for predictions in dask collections; there the difference of two models'
    "roc_auc" or "average_precision" runs with :class:`PoissonBootstrap` (the
    default there, with ``resampler=None``; each model's rows are sorted by its
    own scores, and only counts drawn from the original row number give both
    models the same replicates).

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
        True labels or targets.
    y_pred_a, y_pred_b : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predictions of the two models on the same rows.
    metric : str or callable
        As in :func:`metric_ci`.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels: whole clusters are resampled.
    stratify : bool, default=False
        Resample within the classes of ``y_true``.
    resampler : skboot resampler, default=None
        Any resampler; None means :class:`Bootstrap` (or the stratified / group
        one above), except for "roc_auc" and "average_precision" of
        predictions in dask collections, where it means
        :class:`PoissonBootstrap`.
    n_resamples : int or None, default=None
        Number of replicates, as in :func:`metric_ci`.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the replicates' derived streams.
    method : {"percentile", "basic", "normal", "bc", "bca"} or None, default=None
        Interval method for the difference; None as in :func:`metric_ci`.
    level : float, default=0.95
        Confidence level, in (0, 1).
    n_jobs : int, default=None
        Workers through joblib.
    undefined : {"raise", "omit"}, default="raise"
        What to do with replicates where either metric is undefined.
    **metric_options
        Options of the metric, as in :func:`metric_ci`.

    Returns
    -------
    MetricComparison
        ``.estimate`` (a - b), ``.estimate_a``, ``.estimate_b``,
        ``.confidence_interval()`` of the difference, ``.pvalue``.

    See Also
    --------
    metric_ci : Interval of one model's metric.
    metric_permutation_test : Permutation test of the same difference.

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
    >>> print(f"{cmp.estimate:.3f} p={cmp.pvalue:.3f}")
    0.190 p=0.002
    """
    owner = "compare_metrics"
    kwargs = dict(
        sample_weight=sample_weight,
        groups=groups,
        stratify=stratify,
        resampler=resampler,
        n_resamples=n_resamples,
        random_state=random_state,
        method=method,
        level=level,
        undefined=undefined,
        n_jobs=n_jobs,
    )
    preds = {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b}
    setup: MetricRun | DaskMetricRun
    if holds_dask(y_true, y_pred_a, y_pred_b, sample_weight):
        call = dict(kwargs, y_true=y_true, preds=preds, metric=metric)
        setup = dask_metric_run(owner, dict(call, metric_options=metric_options))
        resolved = setup.metric
        est_a, est_b = setup.each
        diff = replace(resolved, name=f"{resolved.name}(a) - {resolved.name}(b)")
        result, undefined_replicates = finish_metric(
            setup.context, setup.distribution, setup.estimate, diff, undefined, owner
        )
    else:
        kwargs["method"] = "bca" if method is None else method
        setup = setup_metric_run(owner, y_true, preds, metric, metric_options, **kwargs)
        resolved = setup.metric
        est_a, est_b = setup.stat.each_estimate()  # type: ignore[attr-defined]
        diff = replace(resolved, name=f"{resolved.name}(a) - {resolved.name}(b)")
        result, undefined_replicates = run_metric(setup, diff, undefined, n_jobs, owner)
    interval = metric_interval(
        result,
        setup.method,
        setup.level,
        "two-sided",
        undefined,
        diff.name,
    )
    return MetricComparison(
        metric=resolved.name,
        estimate=float(result.estimate),
        estimate_a=float(est_a),
        estimate_b=float(est_b),
        _interval=interval,
        pvalue=paired_p_value(np.asarray(result.distribution)),
        method=setup.method,
        level=setup.level,
        greater_is_better=resolved.greater_is_better,
        n_undefined=int(undefined_replicates.shape[0]),
        undefined_replicates=undefined_replicates,
        undefined=undefined,
        result=result,
    )


def paired_p_value(d: np.ndarray) -> float:
    """Two-sided percentile p-value of ``H0: d = 0`` with the add-one correction."""
    B = d.shape[0]
    below = 1 + int(np.count_nonzero(d <= 0.0))
    above = 1 + int(np.count_nonzero(d >= 0.0))
    return float(min(1.0, 2.0 * min(below, above) / (B + 1)))
