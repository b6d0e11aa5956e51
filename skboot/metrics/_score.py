"""Out-of-bag, .632 and .632+ bootstrap estimates of a model's score
(:func:`bootstrap_score`, :class:`BootstrapScore`): a refit per replicate, scored
on the out-of-bag rows, and the no-information score of the .632+ rule."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
from skboot._engine._statistic import call_user
from skboot._random import STREAM_VERSION
from skboot._results import Result
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
    N_RESAMPLES,
    NONE,
    Constraint,
    Options,
    Predicate,
    param_error,
    validate_params,
    value_error,
)
from skboot.metrics._guard import undefined_metric_errors, with_undefined_metric_errors
from skboot.metrics._inputs import UNDEFINED_POLICIES
from skboot.metrics._no_information import no_information_score
from skboot.metrics._plot import plot_score
from skboot.resamplers import BaseResampler, ResamplingPlan

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = [
    "SCORE_RULES",
    "BootstrapScore",
    "OOBScoreStatistic",
    "bootstrap_score",
]

#: The estimates of bootstrap_score.
SCORE_RULES = ("oob", ".632", ".632+")

_CONSTRAINTS: dict[str, list[Constraint]] = {
    "rule": [Options(SCORE_RULES)],
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
    "n_resamples": [N_RESAMPLES, NONE],
    "scoring": [
        Predicate(
            lambda v: isinstance(v, str) or callable(v),
            "a scorer name or a callable scorer",
        )
    ],
}


@dataclass(frozen=True, eq=False, repr=False)
class BootstrapScore(Result):
    """Bootstrap estimate of a model's out-of-sample score; immutable.

    All scores are in the scorer's orientation (greater is better, so losses
    appear negated, as in scikit-learn: ``neg_log_loss``).  ``to_frame()``
    gives one row (the estimate and the scores it combines), ``plot()`` the
    out-of-bag scores of the replicates with the three estimates marked.

    Attributes
    ----------
    estimate : float
        The estimate of ``rule``.
    rule : str
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
    distribution : ndarray of shape (n_defined,)
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
    >>> type(score).__name__, bool(0.9 < score.estimate <= 1.0), score.rule
    ('BootstrapScore', True, '.632+')
    >>> list(score.to_frame().columns[:4])
    ['estimate', 'rule', 'scoring', 'apparent_score']
    """

    estimate: float
    rule: str
    scoring: str
    apparent_score: float
    oob_score: float
    no_information_score: float | None
    relative_overfitting_rate: float | None
    weight: float
    distribution: np.ndarray = field(repr=False)
    n_resamples: int
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    resampler: str = field(repr=False)
    random_state: SeedRecord
    stream_version: int = field(default=STREAM_VERSION, repr=False)

    def _frame_rows(self) -> list[dict[str, Any]]:
        names = (
            "estimate",
            "rule",
            "scoring",
            "apparent_score",
            "oob_score",
            "no_information_score",
            "relative_overfitting_rate",
            "weight",
            "n_resamples",
            "n_undefined",
        )
        return [{name: getattr(self, name) for name in names}]

    def plot(self, ax: Axes | None = None, **kwargs: int | str) -> Axes:
        """Histogram of the replicates' out-of-bag scores, estimates marked.

        Dotted line: the apparent score; dashed: their mean (the out-of-bag
        score); solid: the estimate of :attr:`rule`.  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``bins`` of the histogram (as in :func:`numpy.histogram`, default
            "auto").

        Returns
        -------
        ax : matplotlib Axes
            With one histogram (``ax.patches``), three vertical lines (the
            apparent score, the mean out-of-bag score and the estimate) and a
            legend.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from skboot import bootstrap_score
        >>> X, y = load_iris(return_X_y=True)
        >>> res = bootstrap_score(DecisionTreeClassifier(random_state=0), X, y,
        ...                       scoring="accuracy", n_resamples=20, random_state=0)
        >>> ax = res.plot(bins=10)
        >>> ax.get_xlabel(), len(ax.get_lines())
        ('accuracy', 3)
        """
        return plot_score(self, ax, kwargs)


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
    """``scorer(fitted, X, y)`` as a float: NaN when undefined (scikit-learn
    warned ``UndefinedMetricWarning``, or a non-finite value); an exception
    becomes a StatisticError naming the rows scored."""
    where = "the original data" if b < 0 else f"the out-of-bag rows of replicate {b}"
    with undefined_metric_errors():
        value = call_user(
            lambda: float(scorer(fitted, X, y)),
            (),
            what="scorer",
            b=b,
            where=where,
            undefined=(UndefinedMetricWarning,),
        )
    return value if math.isfinite(value) else math.nan


@with_undefined_metric_errors
def bootstrap_score(
    estimator: SupportsFit,
    X: ArrayLike,
    y: ArrayLike,
    *,
    scoring: MetricLike,
    resampler: BaseResampler | None = None,
    rule: str = ".632+",
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
        A scikit-learn scorer name or ``scorer(estimator, X, y)``, as
        ``scoring`` of ``sklearn.model_selection.cross_validate`` (one
        scorer); unlike ``metric`` of :func:`metric_ci`, a function of
        ``(y_true, y_pred)`` applied to fixed predictions, a scorer is called
        with each refitted estimator, so a metric function such as
        ``accuracy_score`` must be wrapped by ``make_scorer``.  For ".632+"
        the scorer must compute a metric of :func:`metric_ci`'s registry (or a
        ``sklearn.metrics`` function accepting ``sample_weight`` on a
        classification target), so that ``gamma`` can be computed.
    resampler : skboot resampler, default=None
        None: :class:`Bootstrap`.  Must give in-bag / out-of-bag rows
        (not :class:`BayesianBootstrap`).  ``y`` is routed as the strata and
        ``groups`` as the groups.
    rule : {"oob", ".632", ".632+"}, default=".632+"
        Which estimate ``estimate`` holds (all three parts are on the result).
    n_resamples : int or None, default=None
        Number of replicates (refits), in [1, 2**32 - 1].  None: the
        resampler's ``n_resamples`` when one is given, else 200.  An
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
        The estimate of ``rule`` with the apparent, out-of-bag and
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
        rule=rule,
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
        rule,
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
        rule=rule,
        scoring=str(name),
        apparent_score=float(apparent),
        oob_score=oob,
        no_information_score=None if gamma is None else float(gamma),
        relative_overfitting_rate=None if R is None else float(R),
        weight=float(w),
        distribution=scores,
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

    allowed = (
        "a scorer name (sklearn.metrics.get_scorer_names()) or a callable "
        "scorer(estimator, X, y)"
    )
    try:
        scorer = check_scoring(estimator, scoring=scoring)
    except ValueError as exc:  # sklearn's message names check_scoring, not us
        raise param_error("scoring", owner, allowed, scoring) from exc
    if not _takes_three(scorer):  # e.g. a metric function of (y_true, y_pred)
        raise param_error("scoring", owner, allowed, scoring)
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


def _takes_three(scorer: Any) -> bool:
    """Whether ``scorer(estimator, X, y)`` binds (True when the signature
    cannot be read)."""
    try:
        inspect.signature(scorer).bind(None, None, None)
    except TypeError:
        return False
    except ValueError:  # no signature to read (some builtins)
        return True
    return True


def _combine(
    rule: str, apparent: float, oob: float, gamma_of: Callable[[], float]
) -> tuple[float, float, float | None, float | None]:
    """The estimate of ``rule``, the weight of the out-of-bag score, and for
    ".632+" the no-information score and the relative overfitting rate."""
    if rule == "oob":
        return oob, 1.0, None, None
    if rule == ".632":
        return 0.368 * apparent + 0.632 * oob, 0.632, None, None
    gamma = gamma_of()
    # loss orientation: L = -score
    err, err1, g = -apparent, -oob, -gamma
    err1p = min(err1, g)
    R = (err1p - err) / (g - err) if (err1p > err and g > err) else 0.0
    w = 0.632 / (1.0 - 0.368 * R)
    return -((1.0 - w) * err + w * err1p), w, gamma, R
