"""Out-of-bag, .632 and .632+ bootstrap estimates of a model's score
(:func:`bootstrap_score`, :class:`BootstrapScore`): a refit per replicate, scored
on the out-of-bag rows, and the no-information score of the .632+ rule."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skboot._engine import (
    RefitMixin,
    Statistic,
    check_refit_mode,
    n_rows,
    run_bootstrap,
    take_rows,
)
from skboot._exceptions import StatisticError
from skboot._random import STREAM_VERSION
from skboot._run import (
    apply_undefined_policy,
    check_bootstrap_plan,
    fit_resampler,
    resolve_resampler,
)
from skboot._typing import (
    ArrayLike,
    MetricLike,
    RandomStateLike,
    SeedRecord,
    SupportsFit,
)
from skboot._validation import (
    N_JOBS,
    NONE,
    Constraint,
    Interval,
    Options,
    Predicate,
    param_error,
    validate_params,
    value_error,
)
from skboot.metrics._guard import undefined_metric_errors, with_undefined_metric_errors
from skboot.metrics._inputs import UNDEFINED_POLICIES
from skboot.metrics._registry import METRICS
from skboot.metrics._resolve import REGRESSION, is_scorer, resolve_metric
from skboot.metrics._statistics import accepts
from skboot.resamplers import BaseResampler, ResamplingPlan

__all__ = [
    "SCORE_METHODS",
    "BootstrapScore",
    "OOBScoreStatistic",
    "bootstrap_score",
    "no_information_score",
    "pairwise_mae",
]

#: The estimates of bootstrap_score.
SCORE_METHODS = ("oob", ".632", ".632+")

_CONSTRAINTS: dict[str, list[Constraint]] = {
    "method": [Options(SCORE_METHODS)],
    "undefined": [Options(UNDEFINED_POLICIES)],
    "n_jobs": [N_JOBS, NONE],
    "estimator": [
        Predicate(
            lambda v: callable(getattr(v, "fit", None)),
            "an estimator object implementing 'fit'",
        )
    ],
    "resampler": [
        NONE,
        Predicate(lambda v: isinstance(v, BaseResampler), "a skboot resampler"),
    ],
    "n_resamples": [Interval("int", 1, None), NONE],
    "scoring": [
        Predicate(lambda v: v is not None, "a scorer name or a callable scorer")
    ],
}


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

    See Also
    --------
    bootstrap_score : Computes it.
    MetricCI : Interval of a metric on fixed predictions.

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
    random_state: SeedRecord
    stream_version: int = STREAM_VERSION


class OOBScoreStatistic(RefitMixin, Statistic):
    """Replicate ``b``: refit on the in-bag rows, score the out-of-bag rows."""

    k = 1
    name = "oob_score"

    def __init__(self, estimator, scorer, X, y, use_sample_weight) -> None:
        self.estimator = estimator
        self.scorer = scorer
        self.fit_params = {}
        self.use_sample_weight = use_sample_weight
        self.arrays = (X, y)

    def fit_full(self) -> Any:
        """The estimator fitted on all rows (for the apparent score)."""
        X, y = self.arrays
        return self._fit(-1, X, y, None)

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
                safe_score(self.scorer, fitted, take_rows(X, oob), take_rows(y, oob), b)
                if oob.shape[0]
                else math.nan
            )


def safe_score(scorer: Any, fitted: Any, X: Any, y: Any, b: int) -> float:
    try:
        with undefined_metric_errors():
            value = float(scorer(fitted, X, y))
    except UndefinedMetricWarning:
        return math.nan
    except Exception as exc:
        where = (
            "the original data" if b < 0 else f"the out-of-bag rows of replicate {b}"
        )
        raise StatisticError(f"The scorer raised on {where}: {exc!r}.", b) from exc
    return value if math.isfinite(value) else math.nan


def response(estimator: Any, X: Any, response_method: Any) -> tuple[np.ndarray, str]:
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


def no_information_score(
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
    if not is_scorer(scorer):
        raise ValueError(
            f"The method '.632+' of {owner} needs a scikit-learn scorer (a scorer name "
            "or sklearn.metrics.make_scorer(...)) to compute the no-information "
            f"rate. Got {scorer!r} instead; use method='.632' or 'oob'."
        )
    resolved = resolve_metric(scorer, {}, owner)
    yhat, used = response(fitted, X, getattr(scorer, "_response_method", "predict"))
    reg = resolved.registry
    if reg in REGRESSION:
        yt = np.asarray(y, dtype=np.float64)
        yh = np.asarray(yhat, dtype=np.float64).reshape(-1)
        if reg == "mean_absolute_error":
            value = pairwise_mae(yt, yh)
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
    if not accepts(resolved.func, "sample_weight"):
        raise ValueError(
            f"The no-information rate of {owner} needs a metric that accepts "
            f"sample_weight. Got {resolved.name} instead; use method='.632' or 'oob'."
        )
    value = resolved.func(y_pairs, yhat_pairs, sample_weight=w, **resolved.options)
    return resolved.sign * float(value)


def pairwise_mae(y: np.ndarray, yhat: np.ndarray) -> float:
    """``mean_{i,j} |y_i - yhat_j|`` in O(n log n): sort, search, prefix sums."""
    s = np.sort(yhat)
    prefix = np.concatenate(([0.0], np.cumsum(s)))
    m = s.shape[0]
    k = np.searchsorted(s, y, side="left")  # yhat_j < y_i for j < k
    below = y * k - prefix[k]
    above = (prefix[m] - prefix[k]) - y * (m - k)
    return float((below + above).sum() / (y.shape[0] * m))


@with_undefined_metric_errors
def bootstrap_score(
    estimator: SupportsFit,
    X: ArrayLike,
    y: ArrayLike,
    *,
    scoring: MetricLike,
    resampler: BaseResampler | None = None,
    method: str = ".632+",
    n_resamples: int | None = None,
    random_state: RandomStateLike = None,
    groups: ArrayLike | None = None,
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
        Features, resampled by rows.
    y : array-like of shape (n_samples,)
        Targets, resampled with the rows.
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
        Which estimate ``estimate`` holds (all three parts are on the result).
    n_resamples : int or None, default=None
        None: the resampler's ``n_resamples`` when one is given, else 200.  An
        int replaces the value of a resampler left at its default; a resampler
        set to another value raises a ValueError.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the replicates' derived streams.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels, routed to the resampler.
    n_jobs : int, default=None
        Workers through joblib, one fit per replicate.
    undefined : {"raise", "omit"}, default="raise"
        Replicates with no out-of-bag row or an undefined score.

    Returns
    -------
    BootstrapScore
        The estimate of ``method`` with the apparent, out-of-bag and
        no-information scores it combines.

    See Also
    --------
    metric_ci : Interval of a metric on fixed predictions.
    skboot.Bootstrap : The default resampler.

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
    validate_params(
        owner,
        _CONSTRAINTS,
        method=method,
        undefined=undefined,
        n_jobs=n_jobs,
        estimator=estimator,
        resampler=resampler,
        n_resamples=n_resamples,
        scoring=scoring,
    )
    res, source = resolve_resampler(
        resampler, n_resamples, random_state, owner, default=200
    )
    scorer, y_arr = _check_scoring_and_y(estimator, X, y, scoring, owner)
    use_sw = check_refit_mode(estimator, None, False, owner)
    plan = _oob_plan(res, source, X, y, groups, owner)
    stat = OOBScoreStatistic(estimator, scorer, X, y, use_sw)
    full = stat.fit_full()
    apparent = safe_score(scorer, full, X, y, -1)
    if not math.isfinite(apparent):
        raise ValueError(f"The scorer of {owner} is undefined on the original data.")
    B = int(res.n_resamples)
    scores, record = apply_undefined_policy(
        run_bootstrap(stat, plan, B, n_jobs=n_jobs)[:, 0],
        undefined,
        subject="The out-of-bag score is undefined",
        unit="replicates",
        why=": no out-of-bag row, or the metric undefined on them",
        remedy="Pass undefined='omit' to drop them, a StratifiedBootstrap "
        "resampler, or more data.",
        omitted="they are omitted (no out-of-bag row, or the metric undefined on them)",
        too_few="The out-of-bag score is undefined on all {B} replicates (no "
        "out-of-bag row, or the metric undefined on them); none is left.",
    )
    oob = float(scores.mean())
    estimate, w, gamma, R = _combine(
        method,
        apparent,
        oob,
        lambda: no_information_score(scorer, full, X, y_arr, owner),
    )
    name = (
        scoring
        if isinstance(scoring, str)
        else getattr(scorer, "__name__", repr(scorer))
    )
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
        n_undefined=record.count,
        undefined_replicates=record.replicates,
        resampler=repr(res),
        random_state=res.seed_entropy_,
    )


def _oob_plan(
    resampler: BaseResampler, source: Any, X: Any, y: Any, groups: Any, owner: str
) -> ResamplingPlan:
    """Fit ``resampler`` (the key drawn from ``source``); its plan must have
    out-of-bag rows."""
    plan = fit_resampler(resampler, source, X, y, groups).plan_
    check_bootstrap_plan(plan, resampler, owner)
    if plan.layout == "weights":
        raise ValueError(
            f"The resampler of {owner} gives continuous weights (BayesianBootstrap), "
            "which have no out-of-bag rows. Use an index resampler."
        )
    return plan


def _check_scoring_and_y(
    estimator: Any, X: Any, y: Any, scoring: Any, owner: str
) -> tuple[Any, np.ndarray]:
    """The scorer of ``scoring`` and ``y`` as a 1-d array of one target per row."""
    from sklearn.metrics import check_scoring

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
        raise value_error(
            "y",
            owner,
            f"must be 1-d with one target per row of X ({n}). Got shape "
            f"{y_arr.shape} instead.",
        )
    return scorer, y_arr


def _combine(
    method: str, apparent: float, oob: float, gamma_of: Callable[[], float]
) -> tuple[float, float, float | None, float | None]:
    """The estimate of ``method``, the weight of the out-of-bag score, and for
    ".632+" the no-information score and the relative overfitting rate."""
    if method == "oob":
        return oob, 1.0, None, None
    if method == ".632":
        return 0.368 * apparent + 0.632 * oob, 0.632, None, None
    gamma = gamma_of()
    # loss orientation: L = -score
    err, err1, g = -apparent, -oob, -gamma
    err1p = min(err1, g)
    R = (err1p - err) / (g - err) if (err1p > err and g > err) else 0.0
    w = 0.632 / (1.0 - 0.368 * R)
    return -((1.0 - w) * err + w * err1p), w, gamma, R
