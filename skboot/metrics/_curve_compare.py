"""Paired comparison of two models' curves on the same rows:
:func:`compare_roc_curves` (the difference of the TPRs on a grid of false
positive rates) and :func:`compare_precision_recall_curves` (the difference of
the precisions on a grid of recalls), with pointwise and simultaneous bands of
the difference and the p-value of "no difference anywhere on the grid"."""

from __future__ import annotations

from typing import Any

from skboot._typing import ArrayLike, RandomStateLike
from skboot.metrics._curve_result import CurveComparison
from skboot.metrics._curve_stat import envelope_depths, simultaneous_pvalue
from skboot.metrics._curves import (
    PosLabel,
    band_fields,
    curve_estimate,
    run_curves,
)
from skboot.resamplers import BaseResampler

__all__ = ["compare_precision_recall_curves", "compare_roc_curves"]


def curve_comparison(
    owner: str,
    curve: str,
    y_true: Any,
    scores: tuple[Any, Any],
    grid: Any,
    grid_name: str,
    options: dict[str, Any],
) -> CurveComparison:
    """Check every argument (before any work), run the replicates of the
    difference of the two models' curves and compute its bands and p-value."""
    run = run_curves(
        owner,
        curve,
        y_true,
        {"y_score_a": scores[0], "y_score_b": scores[1]},
        grid,
        grid_name,
        options,
    )
    est_a = curve_estimate(run, curve, 0)
    est_b = curve_estimate(run, curve, 1)
    depths = envelope_depths(run.distribution)  # shared by the band and p-value
    return CurveComparison(
        estimate=est_a - est_b,
        estimate_a=est_a,
        estimate_b=est_b,
        pvalue=simultaneous_pvalue(run.distribution, 0.0, depths),
        **band_fields(run, curve, depths),
    )


_NOTES = """
    Algorithm:

    1. The inputs are checked, then prepared once per model: labels encoded
       (the positive class is ``pos_label``), each model's scores argsorted and
       its groups of tied scores found (O(n log n)).
    2. Rows ``(y_true, y_score_a, y_score_b, sample_weight)`` are resampled
       jointly, so both models are evaluated on the same replicate (the
       paired bootstrap): within the classes of ``y_true`` by default
       (:class:`StratifiedBootstrap`), whole clusters with ``groups``
       (:class:`GroupBootstrap`), or by any skboot ``resampler``.
    3. For each chunk of replicates the plan writes the per-row counts once,
       and one numba call makes, per replicate, one sequential pass for the
       class totals (the same for both models) and one pass per model over
       its score-sorted rows that reads its curve on the grid; the
       replicate's value is the difference ``a - b``: no copy of the rows, no
       sort.
    4. The bands of the difference are those of :func:`{single}` (the
       pointwise percentile band and the calibrated simultaneous band) applied
       to the replicates of the difference.

    Memory: O(n) per model for the prepared arrays plus one (chunk, n) buffer
    per worker; O(n_resamples * len(grid)) for the distribution of the
    difference (each model's replicates are not kept).  Time:
    O(n_resamples * (n + len(grid))), about twice that of one model's band.

    The difference is read on one grid for both models.  The default grid is
    that of :func:`{single}`, {grid_rule}

    ``pvalue`` tests "the two curves are equal at every grid point" by
    inverting the simultaneous band: with ``K_b`` the depth of replicate ``b``
    (the fewest replicates, over the grid points, at or below it or at or
    above it; the simultaneous band at level ``L`` holds the replicates with
    ``K_b`` above its cut) and ``K_0`` that of the zero curve, ``p = (1 +
    #{{b: K_b <= K_0}}) / (B + 1)``.  Without the add-one correction this is
    exactly the smallest ``1 - L`` at which the simultaneous band leaves out
    0 at some grid point, so ``pvalue <= 1 - level`` implies that
    ``simultaneous_low > 0`` or ``simultaneous_high < 0`` somewhere; it is 1
    when the two models rank the rows alike (every replicate's difference is
    0).  This is the global rank envelope test (Myllymaki et al. 2017) of the
    hypothesis "difference 0 on the whole grid", read off the bootstrap
    distribution of the difference as :func:`compare_metrics` reads its
    p-value off the distribution of a metric's difference.  Where the
    simultaneous band lies above 0, model a's curve is above model b's at
    those grid points (at confidence ``level`` for the whole grid at once),
    as far as the bootstrap distribution of the difference approximates its
    sampling distribution; like the single-curve bands, the difference is
    calibrated on the grid only, and near the corners of the curves (where
    nearly every replicate of both models reads the same value) its band
    shrinks to 0.
"""

_ROC_GRID = """ending where
    the later of the two models' observed TPRs reaches its flat top."""
_PR_GRID = "which depends on the\n    number of positives only."

_PARAMETERS = """
    y_true : array-like of shape (n_samples,)
        Binary labels (numbers or strings, two classes).
    y_score_a, y_score_b : array-like of shape (n_samples,)
        Scores of the positive class by the two models, on the same rows.
    {grid_doc}
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
        labels in {{0, 1}} or {{-1, 1}}, else the greater of the two classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    groups : array-like of shape (n_samples,), default=None
        Cluster labels: whole clusters are resampled.
    n_jobs : int, default=None
        Workers through joblib.
    undefined : {{"raise", "omit"}}, default="raise"
        What to do with replicates on which the curves are undefined (for
        both models at once: {undefined_when}).
"""

_ROC_GRID_DOC = """fpr_grid : array-like of shape (n_grid,), default=None
        False positive rates at which both curves are read: strictly
        increasing values in [0, 1].  None: 101 equally spaced FPRs, as in
        :func:`roc_curve_band` (see the notes above)."""
_PR_GRID_DOC = """recall_grid : array-like of shape (n_grid,), default=None
        Recalls at which both curves are read: strictly increasing values in
        [0, 1].  None: 101 equally spaced recalls, as in
        :func:`precision_recall_band`."""


def compare_roc_curves(
    y_true: ArrayLike,
    y_score_a: ArrayLike,
    y_score_b: ArrayLike,
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
) -> CurveComparison:
    """Paired bootstrap bands for the difference of two models' ROC curves.

    Both models' ROC curves are read on the same grid of false positive rates
    as in :func:`roc_curve_band`, on the same replicates (the same resampled
    rows for both), and the bands are those of the difference
    ``TPR_a(f) - TPR_b(f)``: the correlation of the two models' curves is kept,
    and the simultaneous band says where one curve is above the other.
    {notes}
    Parameters
    ----------
    {parameters}

    Returns
    -------
    CurveComparison
        ``grid``, the observed difference ``estimate`` (and each model's
        curve, ``estimate_a`` and ``estimate_b``), the pointwise band ``low``,
        ``high``, the simultaneous band ``simultaneous_low``,
        ``simultaneous_high``, ``pvalue`` and the ``distribution`` of the
        difference (n_resamples, n_grid).

    Raises
    ------
    ValueError
        On invalid input (one class only, a grid outside [0, 1] or not
        increasing, scores of another length than ``y_true``, more than two
        classes, ...), or with ``undefined="raise"`` when a replicate holds
        one class only.

    See Also
    --------
    roc_curve_band : The bands of one model's ROC curve.
    compare_precision_recall_curves : The same for precision-recall curves.
    compare_metrics : The paired comparison of one metric (the AUC, ...).

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

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.metrics import compare_roc_curves
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = y + rng.normal(size=400)
    >>> b = y + 2 * rng.normal(size=400)
    >>> cmp = compare_roc_curves(y, a, b, fpr_grid=[0.1, 0.2, 0.5],
    ...                          n_resamples=999, random_state=0)
    >>> np.round(cmp.estimate_a, 3), np.round(cmp.estimate_b, 3)
    (array([0.385, 0.575, 0.891]), array([0.181, 0.326, 0.633]))
    >>> bool(np.all(cmp.simultaneous_low > 0)), cmp.pvalue < 0.05
    (True, True)
    """
    return curve_comparison(
        "compare_roc_curves",
        "roc",
        y_true,
        (y_score_a, y_score_b),
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


def compare_precision_recall_curves(
    y_true: ArrayLike,
    y_score_a: ArrayLike,
    y_score_b: ArrayLike,
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
) -> CurveComparison:
    """Paired bootstrap bands for the difference of two precision-recall curves.

    Both models' precision-recall curves are read on the same grid of recalls
    as in :func:`precision_recall_band`, on the same replicates (the same
    resampled rows for both), and the bands are those of the difference
    ``precision_a(r) - precision_b(r)``.
    {notes}
    Parameters
    ----------
    {parameters}

    Returns
    -------
    CurveComparison
        As :func:`compare_roc_curves`, with precisions on a grid of recalls.

    Raises
    ------
    ValueError
        On invalid input, or with ``undefined="raise"`` when a replicate
        holds no positive.

    See Also
    --------
    precision_recall_band : The bands of one model's precision-recall curve.
    compare_roc_curves : The same for ROC curves.
    compare_metrics : The paired comparison of one metric (average
        precision, ...).

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
    >>> from skboot.metrics import compare_precision_recall_curves
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = y + rng.normal(size=400)
    >>> cmp = compare_precision_recall_curves(
    ...     y, a, a, recall_grid=[0.25, 0.5, 0.75], n_resamples=999,
    ...     random_state=0)
    >>> cmp.estimate, cmp.pvalue
    (array([0., 0., 0.]), 1.0)
    """
    return curve_comparison(
        "compare_precision_recall_curves",
        "precision_recall",
        y_true,
        (y_score_a, y_score_b),
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


def _doc(func: Any, single: str, grid_rule: str, grid_doc: str, when: str) -> None:
    notes = _NOTES.format(single=single, grid_rule=grid_rule)
    params = _PARAMETERS.format(grid_doc=grid_doc, undefined_when=when).strip("\n")
    func.__doc__ = (func.__doc__ or "").format(notes=notes, parameters=params.lstrip())


_doc(
    compare_roc_curves,
    "roc_curve_band",
    _ROC_GRID,
    _ROC_GRID_DOC,
    "a replicate that holds one class only",
)
_doc(
    compare_precision_recall_curves,
    "precision_recall_band",
    _PR_GRID,
    _PR_GRID_DOC,
    "a replicate that holds no positive",
)
