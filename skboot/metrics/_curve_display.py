"""Displays in scikit-learn's style for the curve bands:
:class:`RocCurveBandDisplay` and :class:`PrecisionRecallBandDisplay`, built
``from_predictions`` or ``from_estimator`` and drawn with ``plot(ax=...)`` on
any matplotlib Axes (also one that scikit-learn's ``RocCurveDisplay`` or
``PrecisionRecallDisplay`` drew on)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skboot._results import pyplot
from skboot._typing import ArrayLike, RandomStateLike, SupportsFit
from skboot.metrics._curve_result import CurveBand, draw_band
from skboot.metrics._curve_sources import (
    check_metric_ci,
    estimator_scores,
    metric_ci_band,
)
from skboot.metrics._curves import PosLabel, precision_recall_band, roc_curve_band
from skboot.metrics._results import MetricCI
from skboot.resamplers import BaseResampler

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = ["PrecisionRecallBandDisplay", "RocCurveBandDisplay"]


class _CurveBandDisplay:
    """What both displays share: the band, its name and ``plot``."""

    def __init__(self, *, band: CurveBand, name: str | None = None) -> None:
        self.band = band
        self.name = name

    def plot(
        self,
        ax: Axes | None = None,
        *,
        name: str | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> _CurveBandDisplay:
        """Draw the curve and its bands.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw (e.g. ``RocCurveDisplay(...).ax_``); None makes a new
            figure.
        name : str, default=None
            The curve's legend entry; None: the display's ``name``, else the
            curve's name.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Keywords of the curve's ``Axes.plot`` (``color``, ...).

        Returns
        -------
        display
            This display, with ``ax_``, ``figure_``, ``line_``, ``band_``
            (the pointwise band's artist or None) and ``simultaneous_band_``.
        """
        if ax is None:
            _, ax = pyplot().subplots(figsize=(5, 5), layout="constrained")
        label = name if name is not None else self.name
        options = dict(kwargs, band=band)
        if label is not None:
            options["label"] = label
        artists = draw_band(self.band, ax, options)
        self.ax_ = ax
        self.figure_ = ax.figure
        self.line_ = artists["line"]
        self.band_ = artists["pointwise"]
        self.simultaneous_band_ = artists["simultaneous"]
        return self


class RocCurveBandDisplay(_CurveBandDisplay):
    """A ROC curve with its bootstrap bands, in scikit-learn's display style.

    The counterpart of scikit-learn's ``RocCurveDisplay``.
    Build it with :meth:`from_predictions` or :meth:`from_estimator` (they
    compute the bands with :func:`roc_curve_band` and draw them), or from a
    :class:`CurveBand` and call :meth:`plot`.

    Parameters
    ----------
    band : CurveBand
        From :func:`roc_curve_band`.
    name : str, default=None
        The curve's legend entry.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where it was drawn.
    line_ : matplotlib Line2D
        The observed curve.
    band_, simultaneous_band_ : matplotlib PolyCollection or None
        The pointwise and simultaneous bands.

    See Also
    --------
    roc_curve_band : Computes the band.
    PrecisionRecallBandDisplay : The same for the precision-recall curve.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn.metrics import RocCurveDisplay
    >>> from skboot.metrics import RocCurveBandDisplay
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> score = y + rng.normal(size=300)
    >>> roc = RocCurveDisplay.from_predictions(y, score)
    >>> disp = RocCurveBandDisplay.from_predictions(
    ...     y, score, n_resamples=300, random_state=0, ax=roc.ax_, name="bootstrap")
    >>> disp.ax_ is roc.ax_, len(disp.ax_.collections)
    (True, 2)
    """

    @classmethod
    def from_predictions(
        cls,
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
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> RocCurveBandDisplay:
        """Compute the bands of ``roc_curve_band(y_true, y_score, ...)`` and draw them.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels.
        y_score : array-like of shape (n_samples,)
            Scores of the positive class.
        fpr_grid : array-like of shape (n_grid,), default=None
            As in :func:`roc_curve_band`.
        level : float, default=0.95
            Confidence level of both bands, in (0, 1).
        n_resamples : int or None, default=None
            Number of replicates; None: the resampler's, else 9999.
        resampler : skboot resampler, default=None
            None: :class:`StratifiedBootstrap` (or :class:`GroupBootstrap`
            with ``groups``).
        random_state : None, int, SeedSequence or Generator, default=None
            Root seed of the replicates' derived streams.
        pos_label : label, default=None
            The positive class, as in :func:`roc_curve_band`.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, resampled with the rows.
        groups : array-like of shape (n_samples,), default=None
            Cluster labels: whole clusters are resampled.
        n_jobs : int, default=None
            Workers through joblib.
        undefined : {"raise", "omit"}, default="raise"
            What to do with replicates on which the curve is undefined.
        name : str, default=None
            The curve's legend entry.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Keywords of the curve's ``Axes.plot``.

        Returns
        -------
        RocCurveBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        res = roc_curve_band(
            y_true,
            y_score,
            fpr_grid=fpr_grid,
            level=level,
            n_resamples=n_resamples,
            resampler=resampler,
            random_state=random_state,
            pos_label=pos_label,
            sample_weight=sample_weight,
            groups=groups,
            n_jobs=n_jobs,
            undefined=undefined,
        )
        return cls(band=res, name=name).plot(ax, band=band, **kwargs)  # type: ignore[return-value]

    @classmethod
    def from_estimator(
        cls,
        estimator: SupportsFit,
        X: ArrayLike,
        y: ArrayLike,
        *,
        response_method: str = "auto",
        pos_label: PosLabel = None,
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> RocCurveBandDisplay:
        """The bands of a fitted binary classifier's ROC curve on ``(X, y)``.

        The scores of the positive class on ``X`` are bootstrapped with ``y``.

        Parameters
        ----------
        estimator : fitted classifier
            With ``predict_proba`` or ``decision_function``.
        X : array-like of shape (n_samples, n_features)
            Test features.
        y : array-like of shape (n_samples,)
            Test labels.
        response_method : {"auto", "predict_proba", "decision_function"}, \
default="auto"
            The scores: "auto" tries ``predict_proba``, then
            ``decision_function``.
        pos_label : label, default=None
            The positive class; None: ``estimator.classes_[1]``.
        name : str, default=None
            The curve's legend entry; None: the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Options of :meth:`from_predictions` (``fpr_grid``, ``level``,
            ``n_resamples``, ``random_state``, ...) and keywords of the
            curve's ``Axes.plot``.

        Returns
        -------
        RocCurveBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        scores, positive = estimator_scores(
            estimator, X, response_method, pos_label, "RocCurveBandDisplay"
        )
        return cls.from_predictions(
            y,
            scores,
            pos_label=positive,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            band=band,
            **kwargs,
        )

    @classmethod
    def from_metric_ci(
        cls,
        result: MetricCI,
        *,
        fpr_grid: ArrayLike | None = None,
        level: float | None = None,
        n_jobs: int | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> RocCurveBandDisplay:
        """The bands of the ROC curve of a :func:`metric_ci` result of 'roc_auc'.

        Drawn on the interval's own replicates (:meth:`MetricCI.curve_band`:
        the same fitted resampler, seed, ``n_resamples``, rows and weights),
        so the band and the interval come from one run.  The result must
        still hold its run (computed in this Python process, not loaded).

        Parameters
        ----------
        result : MetricCI
            From ``metric_ci(y_true, y_score, 'roc_auc', ...)``.
        fpr_grid : array-like of shape (n_grid,), default=None
            As in :func:`roc_curve_band`.
        level : float, default=None
            Confidence level of both bands; None: the interval's.
        n_jobs : int, default=None
            Workers through joblib.
        name : str, default=None
            The curve's legend entry.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Keywords of the curve's ``Axes.plot``.

        Returns
        -------
        RocCurveBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        owner = "RocCurveBandDisplay.from_metric_ci"
        check_metric_ci(result, owner, MetricCI, "roc")
        res = metric_ci_band(
            result,
            owner,
            curve="roc",
            grid=fpr_grid,
            grid_name="fpr_grid",
            level=level,
            n_jobs=n_jobs,
        )
        return cls(band=res, name=name).plot(ax, band=band, **kwargs)  # type: ignore[return-value]


class PrecisionRecallBandDisplay(_CurveBandDisplay):
    """A precision-recall curve with its bootstrap bands, in scikit-learn's style.

    The counterpart of scikit-learn's ``PrecisionRecallDisplay``.
    Build it with :meth:`from_predictions` or :meth:`from_estimator` (they
    compute the bands with :func:`precision_recall_band` and draw them), or
    from a :class:`CurveBand` and call :meth:`plot`.  The curve is drawn
    through the grid points; with a fine grid it follows scikit-learn's steps.

    Parameters
    ----------
    band : CurveBand
        From :func:`precision_recall_band`.
    name : str, default=None
        The curve's legend entry.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where it was drawn.
    line_ : matplotlib Line2D
        The observed curve.
    band_, simultaneous_band_ : matplotlib PolyCollection or None
        The pointwise and simultaneous bands.

    See Also
    --------
    precision_recall_band : Computes the band.
    RocCurveBandDisplay : The same for the ROC curve.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skboot.metrics import PrecisionRecallBandDisplay
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> disp = PrecisionRecallBandDisplay.from_predictions(
    ...     y, y + rng.normal(size=300), n_resamples=300, random_state=0)
    >>> disp.ax_.get_xlabel(), disp.band.curve
    ('Recall', 'precision_recall')
    """

    @classmethod
    def from_predictions(
        cls,
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
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> PrecisionRecallBandDisplay:
        """Compute the bands of ``precision_recall_band(y_true, y_score)`` and draw them.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary labels.
        y_score : array-like of shape (n_samples,)
            Scores of the positive class.
        recall_grid : array-like of shape (n_grid,), default=None
            As in :func:`precision_recall_band`.
        level : float, default=0.95
            Confidence level of both bands, in (0, 1).
        n_resamples : int or None, default=None
            Number of replicates; None: the resampler's, else 9999.
        resampler : skboot resampler, default=None
            None: :class:`StratifiedBootstrap` (or :class:`GroupBootstrap`
            with ``groups``).
        random_state : None, int, SeedSequence or Generator, default=None
            Root seed of the replicates' derived streams.
        pos_label : label, default=None
            The positive class, as in :func:`precision_recall_band`.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, resampled with the rows.
        groups : array-like of shape (n_samples,), default=None
            Cluster labels: whole clusters are resampled.
        n_jobs : int, default=None
            Workers through joblib.
        undefined : {"raise", "omit"}, default="raise"
            What to do with replicates on which the curve is undefined.
        name : str, default=None
            The curve's legend entry.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Keywords of the curve's ``Axes.plot``.

        Returns
        -------
        PrecisionRecallBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        res = precision_recall_band(
            y_true,
            y_score,
            recall_grid=recall_grid,
            level=level,
            n_resamples=n_resamples,
            resampler=resampler,
            random_state=random_state,
            pos_label=pos_label,
            sample_weight=sample_weight,
            groups=groups,
            n_jobs=n_jobs,
            undefined=undefined,
        )
        return cls(band=res, name=name).plot(ax, band=band, **kwargs)  # type: ignore[return-value]

    @classmethod
    def from_estimator(
        cls,
        estimator: SupportsFit,
        X: ArrayLike,
        y: ArrayLike,
        *,
        response_method: str = "auto",
        pos_label: PosLabel = None,
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> PrecisionRecallBandDisplay:
        """The bands of a fitted binary classifier's precision-recall curve.

        The scores of the positive class on ``X`` are bootstrapped with ``y``.

        Parameters
        ----------
        estimator : fitted classifier
            With ``predict_proba`` or ``decision_function``.
        X : array-like of shape (n_samples, n_features)
            Test features.
        y : array-like of shape (n_samples,)
            Test labels.
        response_method : {"auto", "predict_proba", "decision_function"}, \
default="auto"
            The scores: "auto" tries ``predict_proba``, then
            ``decision_function``.
        pos_label : label, default=None
            The positive class; None: ``estimator.classes_[1]``.
        name : str, default=None
            The curve's legend entry; None: the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Options of :meth:`from_predictions` (``recall_grid``, ``level``,
            ``n_resamples``, ``random_state``, ...) and keywords of the
            curve's ``Axes.plot``.

        Returns
        -------
        PrecisionRecallBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        scores, positive = estimator_scores(
            estimator, X, response_method, pos_label, "PrecisionRecallBandDisplay"
        )
        return cls.from_predictions(
            y,
            scores,
            pos_label=positive,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            band=band,
            **kwargs,
        )

    @classmethod
    def from_metric_ci(
        cls,
        result: MetricCI,
        *,
        recall_grid: ArrayLike | None = None,
        level: float | None = None,
        n_jobs: int | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        band: str = "both",
        **kwargs: Any,
    ) -> PrecisionRecallBandDisplay:
        """The bands of the precision-recall curve of a :func:`metric_ci` result of 'average_precision'.

        Drawn on the interval's own replicates (:meth:`MetricCI.curve_band`:
        the same fitted resampler, seed, ``n_resamples``, rows and weights),
        so the band and the interval come from one run.  The result must
        still hold its run (computed in this Python process, not loaded).

        Parameters
        ----------
        result : MetricCI
            From ``metric_ci(y_true, y_score, 'average_precision', ...)``.
        recall_grid : array-like of shape (n_grid,), default=None
            As in :func:`precision_recall_band`.
        level : float, default=None
            Confidence level of both bands; None: the interval's.
        n_jobs : int, default=None
            Workers through joblib.
        name : str, default=None
            The curve's legend entry.
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        band : {"both", "pointwise", "simultaneous", "none"}, default="both"
            Which bands to draw.
        **kwargs : dict
            Keywords of the curve's ``Axes.plot``.

        Returns
        -------
        PrecisionRecallBandDisplay
            Drawn, with the :class:`CurveBand` as ``band``.
        """
        owner = "PrecisionRecallBandDisplay.from_metric_ci"
        check_metric_ci(result, owner, MetricCI, "precision_recall")
        res = metric_ci_band(
            result,
            owner,
            curve="precision_recall",
            grid=recall_grid,
            grid_name="recall_grid",
            level=level,
            n_jobs=n_jobs,
        )
        return cls(band=res, name=name).plot(ax, band=band, **kwargs)  # type: ignore[return-value]
