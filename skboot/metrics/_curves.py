"""Bootstrap confidence bands for curves: :func:`roc_curve_band` (the ROC curve
on a grid of false positive rates) and :func:`precision_recall_band` (the
precision-recall curve on a grid of recalls), and the run they share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from skboot._engine import run_bootstrap
from skboot._run import (
    apply_undefined_policy,
    check_bootstrap_plan,
    check_distribution_memory,
    fit_resampler,
)
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import (
    LEVEL,
    N_JOBS,
    N_RESAMPLES,
    NONE,
    Constraint,
    Options,
    validate_params,
)
from skboot.metrics._curve_result import CurveBand
from skboot.metrics._curve_stat import (
    DEFAULT_GRID_POINTS,
    CurveDifferenceStatistic,
    CurveStatistic,
    PreparedCurve,
    check_grid,
    paired_default_grid,
    pointwise_band,
    prepare_curve,
    simultaneous_band,
)
from skboot.metrics._inputs import UNDEFINED_POLICIES, check_inputs, metric_resampler
from skboot.resamplers import BaseResampler

__all__ = [
    "DEFAULT_GRID_POINTS",
    "CurveRun",
    "PosLabel",
    "band_fields",
    "curve_band",
    "curve_estimate",
    "precision_recall_band",
    "roc_curve_band",
    "run_curves",
    "run_fitted",
]

#: A class label named as the positive class (None: the default rule).
PosLabel: TypeAlias = int | float | str | bool | None

#: The options of the curve bands (one table for both).
_CONSTRAINTS: dict[str, list[Constraint]] = {
    "level": [LEVEL],
    "n_resamples": [N_RESAMPLES, NONE],
    "n_jobs": [N_JOBS, NONE],
    "undefined": [Options(UNDEFINED_POLICIES)],
}

_UNDEFINED_WHEN = {
    "roc": "the replicate holds one class only",
    "precision_recall": "the replicate holds no positive",
}


@dataclass(frozen=True)
class CurveRun:
    """What one run of curve replicates gives the result: the level and policy
    checked, the prepared models, the grid, the distribution of the defined
    replicates, the undefined record and the fitted resampler."""

    level: float
    policy: str
    prepared: list[PreparedCurve]
    grid: np.ndarray
    sample_weight: np.ndarray | None
    distribution: np.ndarray
    undefined: Any
    resampler: BaseResampler


def run_curves(
    owner: str,
    curve: str,
    y_true: Any,
    scores: dict[str, Any],
    grid: Any,
    grid_name: str,
    options: dict[str, Any],
) -> CurveRun:
    """Check every argument (before any work), then run the replicates of the
    curve of one model on the grid, or with two models (``scores`` holds two
    score arrays) the difference of their curves on the same replicates."""
    values = validate_params(
        owner,
        _CONSTRAINTS,
        level=options["level"],
        n_resamples=options["n_resamples"],
        n_jobs=options["n_jobs"],
        undefined=options["undefined"],
    )
    level, policy = float(values["level"]), str(values["undefined"])
    groups, resampler = options["groups"], options["resampler"]
    yt, arrays, sw = check_inputs(
        y_true, scores, options["sample_weight"], owner, groups
    )
    grid = None if grid is None else check_grid(grid, grid_name, owner)
    prepared = [
        prepare_curve(yt, ys, sw, options["pos_label"], owner, name)
        for name, ys in zip(scores, arrays, strict=True)
    ]
    if grid is None:
        grid = paired_default_grid(prepared, curve, sw)
    res, source = metric_resampler(
        resampler,
        resampler is None and groups is None,  # stratified by class by default
        groups,
        options["n_resamples"],
        options["random_state"],
        owner,
    )
    check_distribution_memory(int(res.n_resamples), grid.shape[0], owner)
    fitted = fit_resampler(res, source, yt, yt, groups)
    check_bootstrap_plan(fitted.plan_, fitted, owner)
    return run_fitted(
        curve, prepared, grid, sw, fitted, (level, policy, options["n_jobs"])
    )


def run_fitted(
    curve: str,
    prepared: list[PreparedCurve],
    grid: np.ndarray,
    sw: np.ndarray | None,
    fitted: BaseResampler,
    settings: tuple[float, str, Any],
) -> CurveRun:
    """Run the replicates of the fitted resampler ``fitted`` (its plan: the
    same replicates as any other run of it) for the curve of one prepared
    model, or the difference of two; ``settings``: the checked level,
    undefined policy and ``n_jobs``."""
    level, policy, n_jobs = settings
    stat: CurveStatistic = (
        CurveStatistic(prepared[0], grid, curve, sw)
        if len(prepared) == 1
        else CurveDifferenceStatistic(prepared[0], prepared[1], grid, curve, sw)
    )
    B = int(fitted.n_resamples)
    dist = run_bootstrap(stat, fitted.plan_, B, n_jobs=n_jobs)
    dist, undefined = apply_undefined_policy(
        dist,
        policy,
        subject=f"The {curve.replace('_', '-')} curve is undefined",
        unit="bootstrap replicates",
        why=f"; it is undefined when {_UNDEFINED_WHEN[curve]}",
        remedy="Pass undefined='omit' to drop them (the count is recorded on the "
        "result), the default stratified resampler (which keeps the class counts "
        "of every replicate), or more data.",
        omitted="they are omitted and the bands describe the defined replicates. "
        "See n_undefined and undefined_replicates on the result",
        minimum=2,
        too_few="The curve is defined on {kept} of {B} bootstrap replicates; "
        "at least {minimum} are needed for a band.",
    )
    return CurveRun(level, policy, prepared, grid, sw, dist, undefined, fitted)


def band_fields(
    run: CurveRun,
    curve: str,
    depths: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, Any]:
    """The fields of a :class:`CurveBand` (or a subclass) that a run gives,
    the observed curve ``estimate`` left to the caller (``depths``: the
    distribution's ``envelope_depths`` when already computed)."""
    low, high = pointwise_band(run.distribution, run.level)
    sim_low, sim_high, c = simultaneous_band(run.distribution, run.level, depths)
    return {
        "curve": curve,
        "grid": run.grid,
        "low": low,
        "high": high,
        "simultaneous_low": sim_low,
        "simultaneous_high": sim_high,
        "calibrated_level": c,
        "level": run.level,
        "distribution": run.distribution,
        "n_resamples": int(run.resampler.n_resamples),
        "n_undefined": run.undefined.count,
        "undefined_replicates": run.undefined.replicates,
        "undefined": run.policy,
        "pos_label": run.prepared[0].pos_label,
        "resampler": repr(run.resampler),
        "random_state": run.resampler.seed_entropy_,
    }


def curve_estimate(run: CurveRun, curve: str, model: int = 0) -> np.ndarray:
    """The observed curve of model ``model`` of a run on its grid."""
    return CurveStatistic(
        run.prepared[model], run.grid, curve, run.sample_weight
    ).estimate()


def curve_band(
    owner: str,
    curve: str,
    y_true: Any,
    y_score: Any,
    grid: Any,
    grid_name: str,
    options: dict[str, Any],
) -> CurveBand:
    """The bands of one model's curve (:func:`run_curves`)."""
    run = run_curves(
        owner, curve, y_true, {"y_score": y_score}, grid, grid_name, options
    )
    return CurveBand(estimate=curve_estimate(run, curve), **band_fields(run, curve))


_NOTES = """
    Algorithm:

    1. The inputs are checked and prepared once: labels encoded (the positive
       class is ``pos_label``), scores argsorted, groups of tied scores found
       (O(n log n)).
    2. Rows ``(y_true, y_score, sample_weight)`` are resampled jointly:
       within the classes of ``y_true`` by default (:class:`StratifiedBootstrap`,
       so every replicate holds both classes in their original numbers), whole
       clusters with ``groups`` (:class:`GroupBootstrap`), or by any skboot
       ``resampler`` (``y_true`` routed as ``y``, ``groups`` as ``groups``).
    3. For each chunk of replicates the plan writes the per-row counts, and one
       numba call makes, per replicate, a sequential pass for the class totals
       and one pass over the score-sorted rows (the positive and negative
       weight of each group of tied scores, the counts times
       ``sample_weight``) that reads the curve on the grid as it reaches the
       grid points: no copy of the rows, no sort.
    4. The pointwise band is the percentile band at each grid point; the
       simultaneous band is the calibrated percentile band (below).

    Memory: O(n) for the prepared arrays plus one (chunk, n) buffer per
    worker, chunk sized to the cache; O(n_resamples * len(grid)) for the
    distribution.  Time: O(n_resamples * (n + len(grid))).

    The bands, with ``theta*_b(g)`` the curve of replicate ``b`` at grid point
    ``g`` and ``theta(g)`` the observed curve:

    * pointwise (``low``, ``high``): the type-7 ``(1 - level) / 2`` and
      ``(1 + level) / 2`` quantiles of ``theta*_b(g)`` over ``b``, at each
      ``g`` on its own: each point is covered with probability about
      ``level``, the whole curve with less;
    * simultaneous (``simultaneous_low``, ``simultaneous_high``): the
      pointwise percentile band at a larger pointwise level, calibrated so
      that a fraction ``level`` of the replicates' curves lie inside it at
      every grid point.  With ``s_(0)(g) <= ... <= s_(B-1)(g)`` the sorted
      replicates at ``g``, the band is ``[s_(k)(g), s_(B-1-k)(g)]`` for the
      largest ``k`` such that at least ``ceil(level * B)`` replicates lie
      inside it everywhere (ties counted exactly; ``calibrated_level`` on
      the result is ``1 - 2 k / B``).  This is the bootstrap percentile form
      of the sup-t band (Montiel Olea & Plagborg-Moller 2019), computed by
      ranks as the global rank envelope (Myllymaki et al. 2017): it needs
      no standard deviation (grid points where the replicates barely vary
      do not inflate it) and stays inside [0, 1].  It covers the whole curve
      on the grid with probability about ``level`` as far as the bootstrap
      distribution of the curve approximates its sampling distribution (the
      empirical ROC process converges to a Gaussian process, Hsieh &
      Turnbull 1996).  It is calibrated on the grid only, and it cannot
      cover near the corners of a ROC curve: the replicates' TPR at FPR 0 is
      the top of the first vertical rise (positive), and where the curve is
      within a few ``1 / n_positives`` of 1 nearly every replicate is
      exactly 1 (likewise, the precision at small recalls rests on a few
      positives, and is biased upwards there in the data and in every
      replicate alike).  The default grid therefore stays away from the
      corners, with ``m(c, n) = min(c, n / 4) / n``: 101 FPRs from
      ``m(5, n_negatives)`` to the smaller of ``1 - m(5, n_negatives)`` and
      the FPR at which the observed TPR first reaches
      ``1 - m(5, n_positives)`` (but at least a tenth of the way); 101
      recalls from ``m(20, n_positives)`` to ``1 - m(5, n_positives)``
      (class sizes in rows).  An explicit grid is used as given, corners
      included.  In simulations (binormal, AUC 0.76, 999 replicates,
      ``level=0.95``) the simultaneous ROC band on the default grid covered
      the true curve on the whole grid in about 95% of the data sets (300
      positives and 300 negatives, 50 and 50, 100 and 300), against 15-18%
      on ``numpy.linspace(0, 1, 101)``; the precision-recall band covers
      less (about 90% with 300 and 300, less with fewer positives): the
      empirical curve, read at the top of each step, is biased upwards by
      about ``1 / (recall * n_positives)``, which a percentile band does not
      correct.
"""


def roc_curve_band(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    fpr_grid: ArrayLike | None = None,
    level: float = 0.95,
    n_resamples: int | None = None,
    resampler: BaseResampler | None = None,
    random_state: RandomStateLike = None,
    pos_label: PosLabel = None,
    sample_weight: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_jobs: int | None = None,
    undefined: str = "raise",
) -> CurveBand:
    """Bootstrap confidence bands for a ROC curve on a grid of false positive rates.

    The curve of a replicate is ``sklearn.metrics.roc_curve`` on its rows (one
    point per distinct score, from ``(0, 0)`` to ``(1, 1)``), read on the fixed
    ``fpr_grid`` as its points are joined when drawn: straight lines, so a
    group of tied scores is one diagonal segment.  The TPR at FPR ``f`` is that
    of the last point with ``fpr_k <= f`` when ``fpr_k == f`` (where the curve
    rises vertically at ``f``, the top of the rise), else the linear
    interpolation between that point and the next:
    ``tpr_k + (tpr_{{k+1}} - tpr_k) (f - fpr_k) / (fpr_{{k+1}} - fpr_k)``.  This is
    the vertical averaging of Fawcett (2006), algorithm 3.
    {notes}
    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (numbers or strings, two classes).
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).
    fpr_grid : array-like of shape (n_grid,), default=None
        False positive rates at which the curve is read: strictly increasing
        values in [0, 1].  None: 101 equally spaced FPRs kept a few negatives
        away from 0 and from where the observed TPR reaches 1 (see the notes
        on the bands above).
    level : float, default=0.95
        Confidence level of both bands, in (0, 1).
    n_resamples : int or None, default=None
        Number of replicates, in [1, 2**32 - 1]; None: the resampler's
        ``n_resamples`` when a resampler is given, else 9999.
    resampler : skboot resampler, default=None
        Any resampler; None means :class:`StratifiedBootstrap` (or
        :class:`GroupBootstrap` with ``groups``).
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the replicates' derived streams; None draws fresh
        entropy, recorded on the result so the run can be repeated.
    pos_label : label, default=None
        The positive class, one of the labels of ``y_true``.  None: 1 for
        labels in {{0, 1}} or {{-1, 1}}, else the greater of the two classes
        (as ``roc_auc_score``).
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels: whole clusters are resampled.
    n_jobs : int, default=None
        Workers through joblib.
    undefined : {{"raise", "omit"}}, default="raise"
        What to do with replicates that hold one class only (possible with a
        resampler that does not keep the class counts).

    Returns
    -------
    CurveBand
        ``grid``, the observed curve ``estimate``, the pointwise band ``low``,
        ``high``, the simultaneous band ``simultaneous_low``,
        ``simultaneous_high`` and the ``distribution`` (n_resamples, n_grid).

    Raises
    ------
    ValueError
        On invalid input (one class only, a grid outside [0, 1] or not
        increasing, mismatched lengths, more than two classes, ...), or with
        ``undefined="raise"`` when a replicate holds one class only.

    See Also
    --------
    precision_recall_band : The same for the precision-recall curve.
    RocCurveBandDisplay : Draws the curve and its bands.
    metric_ci : An interval for the area under the curve.

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27, 861-874, 2006.
    .. [2] J. L. Montiel Olea and M. Plagborg-Moller, "Simultaneous confidence
       bands: Theory, implementation, and an application to SVARs", Journal
       of Applied Econometrics 34, 1-17, 2019.
    .. [3] M. Myllymaki, T. Mrkvicka, P. Grabarnik, H. Seijo and U. Hahn,
       "Global envelope tests for spatial processes", Journal of the Royal
       Statistical Society B 79, 381-404, 2017.
    .. [4] F. Hsieh and B. W. Turnbull, "Nonparametric and semiparametric
       estimation of the receiver operating characteristic curve", The Annals
       of Statistics 24, 25-40, 1996.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.metrics import roc_curve_band
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> score = y + rng.normal(size=400)
    >>> band = roc_curve_band(y, score, fpr_grid=[0.1, 0.2, 0.5],
    ...                       n_resamples=999, random_state=0)
    >>> np.round(band.estimate, 3)
    array([0.385, 0.575, 0.891])
    >>> bool(np.all(band.simultaneous_low <= band.low))
    True
    """
    return curve_band(
        "roc_curve_band",
        "roc",
        y_true,
        y_score,
        fpr_grid,
        "fpr_grid",
        {
            "level": level,
            "n_resamples": n_resamples,
            "resampler": resampler,
            "random_state": random_state,
            "pos_label": pos_label,
            "sample_weight": sample_weight,
            "groups": groups,
            "n_jobs": n_jobs,
            "undefined": undefined,
        },
    )


def precision_recall_band(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    recall_grid: ArrayLike | None = None,
    level: float = 0.95,
    n_resamples: int | None = None,
    resampler: BaseResampler | None = None,
    random_state: RandomStateLike = None,
    pos_label: PosLabel = None,
    sample_weight: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_jobs: int | None = None,
    undefined: str = "raise",
) -> CurveBand:
    """Bootstrap confidence bands for a precision-recall curve on a grid of recalls.

    The curve of a replicate is ``sklearn.metrics.precision_recall_curve`` on
    its rows (one point per distinct score), read on the fixed ``recall_grid``
    as scikit-learn's ``PrecisionRecallDisplay`` draws it (steps): the
    precision at recall ``r`` is that of the first point, in decreasing order
    of the threshold, whose recall is at least ``r`` (and above 0).  Its area
    is the average precision (``average_precision_score``); tied scores form
    one threshold, and at recall 0 the precision is that of the first
    threshold that recalls a positive.
    {notes}
    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (numbers or strings, two classes).
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values).
    recall_grid : array-like of shape (n_grid,), default=None
        Recalls at which the curve is read: strictly increasing values in
        [0, 1].  None: 101 equally spaced recalls from ``min(20, n_positives /
        4) / n_positives`` to ``1 - min(5, n_positives / 4) / n_positives``
        (see the notes on the bands above).
    level : float, default=0.95
        Confidence level of both bands, in (0, 1).
    n_resamples : int or None, default=None
        Number of replicates, in [1, 2**32 - 1]; None: the resampler's
        ``n_resamples`` when a resampler is given, else 9999.
    resampler : skboot resampler, default=None
        Any resampler; None means :class:`StratifiedBootstrap` (or
        :class:`GroupBootstrap` with ``groups``).
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the replicates' derived streams.
    pos_label : label, default=None
        The positive class, one of the labels of ``y_true``.  None: 1 for
        labels in {{0, 1}} or {{-1, 1}}, else the greater of the two classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels: whole clusters are resampled.
    n_jobs : int, default=None
        Workers through joblib.
    undefined : {{"raise", "omit"}}, default="raise"
        What to do with replicates that hold no positive.

    Returns
    -------
    CurveBand
        As :func:`roc_curve_band`, with precision on a grid of recalls.

    Raises
    ------
    ValueError
        On invalid input, or with ``undefined="raise"`` when a replicate
        holds no positive.

    See Also
    --------
    roc_curve_band : The same for the ROC curve.
    PrecisionRecallBandDisplay : Draws the curve and its bands.

    References
    ----------
    .. [1] J. L. Montiel Olea and M. Plagborg-Moller, "Simultaneous confidence
       bands: Theory, implementation, and an application to SVARs", Journal
       of Applied Econometrics 34, 1-17, 2019.
    .. [2] M. Myllymaki, T. Mrkvicka, P. Grabarnik, H. Seijo and U. Hahn,
       "Global envelope tests for spatial processes", Journal of the Royal
       Statistical Society B 79, 381-404, 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.metrics import precision_recall_band
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> score = y + rng.normal(size=400)
    >>> band = precision_recall_band(y, score, recall_grid=[0.25, 0.5, 0.75],
    ...                              n_resamples=999, random_state=0)
    >>> np.round(band.estimate, 3)
    array([0.875, 0.81 , 0.748])
    """
    return curve_band(
        "precision_recall_band",
        "precision_recall",
        y_true,
        y_score,
        recall_grid,
        "recall_grid",
        {
            "level": level,
            "n_resamples": n_resamples,
            "resampler": resampler,
            "random_state": random_state,
            "pos_label": pos_label,
            "sample_weight": sample_weight,
            "groups": groups,
            "n_jobs": n_jobs,
            "undefined": undefined,
        },
    )


roc_curve_band.__doc__ = (roc_curve_band.__doc__ or "").format(notes=_NOTES)
precision_recall_band.__doc__ = (precision_recall_band.__doc__ or "").format(
    notes=_NOTES
)
