"""The frozen results of :func:`~skboot.metrics.roc_curve_band` and
:func:`~skboot.metrics.precision_recall_band` (:class:`CurveBand`) and of the
paired comparisons of two models' curves (:class:`CurveComparison`), and their
drawing, shared with the displays."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._random import STREAM_VERSION
from skboot._results import Result, pyplot
from skboot._typing import SeedRecord
from skboot._validation import (
    ALTERNATIVE,
    Constraint,
    Options,
    lower,
    param_error,
    validate_params,
)
from skboot.metrics._curve_stat import sup_pvalue

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = ["AXIS_NAMES", "BANDS", "CurveBand", "CurveComparison", "draw_band"]

#: (grid, curve) axis names of each curve, as scikit-learn's curves name them.
AXIS_NAMES = {
    "roc": ("fpr", "tpr"),
    "precision_recall": ("recall", "precision"),
}
#: The axis labels, as scikit-learn's displays write them.
_LABELS = {
    "roc": ("False Positive Rate", "True Positive Rate"),
    "precision_recall": ("Recall", "Precision"),
}
#: Which bands a plot draws.
BANDS = ("both", "pointwise", "simultaneous", "none")
_PLOT_OPTIONS: dict[str, list[Constraint]] = {"band": [Options(BANDS)]}


@dataclass(frozen=True, eq=False, repr=False)
class CurveBand(Result):
    """A curve on a fixed grid with bootstrap confidence bands; immutable.

    Returned by :func:`roc_curve_band` (TPR on a grid of false positive rates)
    and :func:`precision_recall_band` (precision on a grid of recalls).
    ``to_frame()`` gives one row per grid point, ``plot()`` draws the curve and
    its bands; ``==`` compares every field.

    Attributes
    ----------
    curve : str
        "roc" or "precision_recall".
    grid : ndarray of shape (n_grid,)
        The false positive rates (ROC) or recalls at which the curve is read.
    estimate : ndarray of shape (n_grid,)
        The observed curve on the grid (TPR or precision).
    low, high : ndarray of shape (n_grid,)
        The pointwise percentile band at :attr:`level`.
    simultaneous_low, simultaneous_high : ndarray of shape (n_grid,)
        The simultaneous band at :attr:`level`: a fraction ``level`` of the
        replicates' curves (at least) lie inside it at every grid point.
    calibrated_level : float
        The pointwise level whose percentile band is the simultaneous band
        (``1 - 2 k / B`` for the order statistics ``k`` and ``B - 1 - k``).
    level : float
        Confidence level of both bands.
    distribution : ndarray of shape (n_defined, n_grid)
        The curve of each defined replicate on the grid, in replicate order.
    n_resamples : int
        Replicates drawn, defined or not.
    n_undefined : int
        Replicates on which the curve was undefined and that were omitted.
    undefined_replicates : ndarray of int64
        Their replicate numbers (``resampler.replicate(b)`` regenerates them).
    undefined : str
        The policy used, "raise" or "omit".
    pos_label : int, float, str or bool
        The positive class.
    resampler : str
        The ``repr`` of the resampler used.
    random_state : int or SeedSequence
        Pass as ``random_state`` to reproduce the run exactly.
    stream_version : int
        Version of the random-stream definition that drew the replicates.

    See Also
    --------
    roc_curve_band, precision_recall_band : Compute it.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.metrics import roc_curve_band
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> band = roc_curve_band(y, y + rng.normal(size=300), n_resamples=500,
    ...                       random_state=0)
    >>> band.distribution.shape
    (500, 101)
    >>> list(band.to_frame().columns)
    ['fpr', 'tpr', 'low', 'high', 'simultaneous_low', 'simultaneous_high']
    """

    curve: str
    grid: np.ndarray = field(repr=False)
    estimate: np.ndarray = field(repr=False)
    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)
    simultaneous_low: np.ndarray = field(repr=False)
    simultaneous_high: np.ndarray = field(repr=False)
    calibrated_level: float
    level: float
    distribution: np.ndarray = field(repr=False)
    n_resamples: int
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    undefined: str
    pos_label: int | float | str | bool
    resampler: str = field(repr=False)
    random_state: SeedRecord
    stream_version: int = field(default=STREAM_VERSION, repr=False)

    def __post_init__(self) -> None:
        if self.curve not in AXIS_NAMES:
            raise ValueError(
                f"The 'curve' field of a CurveBand must be one of "
                f"{sorted(AXIS_NAMES)}. Got {self.curve!r} instead."
            )
        shape = np.shape(self.grid)
        for name in (
            "estimate",
            "low",
            "high",
            "simultaneous_low",
            "simultaneous_high",
        ):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(
                    f"The '{name}' field of a CurveBand must have the grid's shape "
                    f"{shape}. Got {np.shape(getattr(self, name))} instead."
                )
        if np.shape(self.distribution)[1:] != shape:
            raise ValueError(
                "The 'distribution' field of a CurveBand must have one column per "
                f"grid point {shape}. Got {np.shape(self.distribution)} instead."
            )

    def _frame_rows(self) -> list[dict[str, Any]]:
        x, y = AXIS_NAMES[self.curve]
        return [
            {
                x: float(self.grid[j]),
                y: float(self.estimate[j]),
                "low": float(self.low[j]),
                "high": float(self.high[j]),
                "simultaneous_low": float(self.simultaneous_low[j]),
                "simultaneous_high": float(self.simultaneous_high[j]),
            }
            for j in range(self.grid.shape[0])
        ]

    def _plot_layout(self) -> dict[str, Any]:
        """The line's default label, the axis labels, the y limits (None:
        matplotlib's), the legend's place and whether a line marks 0."""
        xlabel, ylabel = _LABELS[self.curve]
        return {
            "label": self.curve.replace("_", "-"),
            "xlabel": xlabel,
            "ylabel": ylabel,
            "ylim": (-0.01, 1.01),
            "legend": "lower right" if self.curve == "roc" else "lower left",
            "zero_line": False,
        }

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Draw the curve on the grid with its bands.

        The observed curve is a line (straight segments between the grid
        points); the pointwise band is a shaded area, the simultaneous band a
        lighter, wider one behind it.  Axis labels are set only on an Axes that
        has none, so the band can be drawn over scikit-learn's
        ``RocCurveDisplay`` or ``PrecisionRecallDisplay`` on the same Axes.
        Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``band``: which bands to draw, one of "both" (default),
            "pointwise", "simultaneous", "none"; ``label``: the curve's
            legend entry (default: the curve's name); any other keyword goes
            to the curve's ``Axes.plot`` (``color``, ``linestyle``, ...).

        Returns
        -------
        ax : matplotlib Axes
            With the curve's line, one filled area per band and a legend.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from skboot.metrics import roc_curve_band
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> band = roc_curve_band(y, y + rng.normal(size=300), n_resamples=300,
        ...                       random_state=0)
        >>> ax = band.plot()
        >>> ax.get_xlabel(), len(ax.collections)
        ('False Positive Rate', 2)
        """
        if ax is None:
            _, ax = pyplot().subplots(figsize=(5, 5), layout="constrained")
        draw_band(self, ax, dict(kwargs))
        return ax


def draw_band(band: CurveBand, ax: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Draw ``band`` on ``ax``; ``options``: ``band`` (which bands), ``label``
    and the line's keywords.  Returns the artists: ``line``, ``pointwise`` and
    ``simultaneous`` (None when not drawn)."""
    which = validate_params("plot", _PLOT_OPTIONS, band=options.pop("band", "both"))[
        "band"
    ]
    layout = band._plot_layout()
    label = options.pop("label", layout["label"])
    pct = f"{100 * band.level:g}%"
    (line,) = ax.plot(band.grid, band.estimate, label=label, **options)
    color = line.get_color()
    artists: dict[str, Any] = {"line": line, "pointwise": None, "simultaneous": None}
    if which in ("both", "simultaneous"):
        artists["simultaneous"] = ax.fill_between(
            band.grid,
            band.simultaneous_low,
            band.simultaneous_high,
            color=color,
            alpha=0.15,
            linewidth=0,
            label=f"{pct} simultaneous band",
        )
    if which in ("both", "pointwise"):
        artists["pointwise"] = ax.fill_between(
            band.grid,
            band.low,
            band.high,
            color=color,
            alpha=0.3,
            linewidth=0,
            label=f"{pct} pointwise band",
        )
    if layout["zero_line"]:
        ax.axhline(0.0, color="0.5", linewidth=0.8, linestyle="--")
    if not ax.get_xlabel():
        ax.set_xlabel(layout["xlabel"])
    if not ax.get_ylabel():
        ax.set_ylabel(layout["ylabel"])
    ax.set_xlim(-0.01, 1.01)
    if layout["ylim"] is not None:
        ax.set_ylim(*layout["ylim"])
    ax.legend(loc=layout["legend"])
    return artists


@dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class CurveComparison(CurveBand):
    """Two models' curves compared on the same replicates, on a fixed grid; immutable.

    Returned by :func:`compare_roc_curves` (TPR of model a minus TPR of model
    b on a grid of false positive rates) and
    :func:`compare_precision_recall_curves` (the difference of precisions on a
    grid of recalls).  A :class:`CurveBand` whose curve is the difference
    ``a - b`` (``estimate``, the bands and ``distribution`` are those of the
    difference), with each model's observed curve and the p-value of "no
    difference anywhere on the grid".  ``to_frame()`` gives one row per grid
    point, ``plot()`` draws the difference, its bands and the line at 0;
    ``==`` compares every field.

    Where ``simultaneous_low > 0`` model a's curve is above model b's, and
    where ``simultaneous_high < 0`` below, at every such grid point at once
    with confidence ``level`` (as far as the bootstrap approximates the
    sampling distribution of the difference).

    Attributes
    ----------
    curve : str
        "roc" or "precision_recall".
    grid : ndarray of shape (n_grid,)
        The false positive rates (ROC) or recalls at which the curves are read.
    estimate : ndarray of shape (n_grid,)
        The observed difference on the grid, ``estimate_a - estimate_b``.
    estimate_a, estimate_b : ndarray of shape (n_grid,)
        The observed curve of each model on the grid (TPR or precision).
    pvalue : float
        The p-value of "the curves are equal at every grid point" that inverts
        the simultaneous band: at most ``1 - level`` only when the
        simultaneous band leaves out 0 at some grid point (see
        :func:`compare_roc_curves`).
    low, high : ndarray of shape (n_grid,)
        The pointwise percentile band of the difference at :attr:`level`.
    simultaneous_low, simultaneous_high : ndarray of shape (n_grid,)
        The simultaneous band of the difference at :attr:`level`: a fraction
        ``level`` of the replicates' differences (at least) lie inside it at
        every grid point.
    calibrated_level : float
        The pointwise level whose percentile band is the simultaneous band.
    level : float
        Confidence level of both bands.
    distribution : ndarray of shape (n_defined, n_grid)
        The difference of each defined replicate on the grid, in replicate
        order.
    n_resamples : int
        Replicates drawn, defined or not.
    n_undefined : int
        Replicates on which the curves were undefined and that were omitted.
    undefined_replicates : ndarray of int64
        Their replicate numbers (``resampler.replicate(b)`` regenerates them).
    undefined : str
        The policy used, "raise" or "omit".
    pos_label : int, float, str or bool
        The positive class.
    resampler : str
        The ``repr`` of the resampler used.
    random_state : int or SeedSequence
        Pass as ``random_state`` to reproduce the run exactly.
    stream_version : int
        Version of the random-stream definition that drew the replicates.

    See Also
    --------
    compare_roc_curves, compare_precision_recall_curves : Compute it.
    CurveBand : The bands of one model's curve.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.metrics import compare_roc_curves
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = y + rng.normal(size=300)
    >>> b = y + rng.normal(size=300) * 2
    >>> cmp = compare_roc_curves(y, a, b, n_resamples=500, random_state=0)
    >>> cmp.distribution.shape
    (500, 101)
    >>> list(cmp.to_frame().columns[:4])
    ['fpr', 'tpr_a', 'tpr_b', 'difference']
    """

    estimate_a: np.ndarray = field(repr=False)
    estimate_b: np.ndarray = field(repr=False)
    pvalue: float

    def __post_init__(self) -> None:
        super().__post_init__()
        shape = np.shape(self.grid)
        for name in ("estimate_a", "estimate_b"):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(
                    f"The '{name}' field of a CurveComparison must have the grid's "
                    f"shape {shape}. Got {np.shape(getattr(self, name))} instead."
                )

    def sup_pvalue(
        self,
        alternative: str = "two-sided",
        *,
        grid_range: tuple[float, float] | None = None,
    ) -> float:
        """P-value of a sup test that one curve is nowhere above the other.

        On the grid or a range of it.  "greater" tests
        ``H0: curve_a <= curve_b at every grid point`` (of ``grid_range``) against ``H1: curve_a > curve_b at some grid point``:
        a small p-value is evidence that model a's curve is above model b's
        somewhere in the range.  "less" is the mirror (model b above model a
        somewhere); "two-sided" tests ``H0: the curves are equal at every grid
        point``.  The statistic is the largest studentized difference,
        ``T = max_g d(g) / s(g)`` ("greater"; ``-d`` for "less", ``|d|`` for
        "two-sided"), with ``d`` the observed difference ``a - b`` and ``s(g)``
        the standard deviation of its replicates at ``g``; its null
        distribution is that of the replicates centred on their mean ``m(g)``
        (``(theta*_b(g) - m(g)) / s(g)``, the least favourable null: the
        curves equal), and ``p = (1 + #{b: T*_b >= T}) / (B + 1)``: the
        bootstrap sup-t test (Montiel Olea & Plagborg-Moller 2019).  Grid
        points where every replicate reads the same difference (the corners
        of the curves) carry no information and are left out; with none left
        the p-value is 1.

        Unlike :attr:`pvalue` (which inverts the simultaneous band, a rank
        envelope) it weighs every grid point by its standard deviation and
        can be one-sided.  Nothing is resampled: it reads
        :attr:`distribution`.

        Parameters
        ----------
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            "greater": model a's curve is above model b's somewhere; "less":
            below; any letter case.
        grid_range : tuple of two floats, default=None
            ``(low, high)``: only the grid points ``low <= g <= high`` are
            tested (false positive rates or recalls), for a range that
            matters (low false positive rates, say); None: the whole grid.

        Returns
        -------
        float
            The p-value, in ``(0, 1]``.

        Raises
        ------
        ValueError
            For an unknown ``alternative``, or a ``grid_range`` that is not a
            pair ``low <= high`` in [0, 1] holding a grid point.

        Notes
        -----
        The sup (Kolmogorov-Smirnov type) statistic of a one-sided hypothesis
        on a whole curve is that of tests of stochastic dominance (McFadden
        1989; Barrett & Donald 2003), here on the paired bootstrap of the
        difference.  Centring the replicates on their mean, not on the
        observed difference, keeps their offset at each grid point (the Monte
        Carlo error of ``B`` replicates and the bootstrap's bias) out of the
        maximum, which it would inflate.  Under the null's boundary (two
        models with the same true ROC curve, 100 rows per class, 99
        replicates, 200 simulated data sets) "greater" rejected 2% at 0.05
        and 4% at 0.10 with a mean p-value of 0.53 ("less": 3%, 7%, 0.58;
        "two-sided": 2%, 5%, 0.57): close to uniform, a little conservative,
        as the bootstrap curves vary more from one grid point to the next
        than the sampling distribution does.  Where the difference is
        negative at some points and 0 at others it is more conservative.

        References
        ----------
        .. [1] G. F. Barrett and S. G. Donald, "Consistent tests for stochastic
           dominance", Econometrica 71(1), 71-104, 2003.
        .. [2] J. L. Montiel Olea and M. Plagborg-Moller, "Simultaneous
           confidence bands: Theory, implementation, and an application to
           SVARs", Journal of Applied Econometrics 34, 1-17, 2019.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot.metrics import compare_roc_curves
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 400)
        >>> a = y + rng.normal(size=400)
        >>> b = y + 2 * rng.normal(size=400)
        >>> cmp = compare_roc_curves(y, a, b, n_resamples=999, random_state=0)
        >>> cmp.sup_pvalue("greater"), cmp.sup_pvalue("less")
        (0.002, 1.0)
        >>> cmp.sup_pvalue("greater", grid_range=(0.0, 0.1))
        0.016
        """
        owner = "sup_pvalue"
        values = validate_params(
            owner, {"alternative": [ALTERNATIVE]}, alternative=lower(alternative)
        )
        points = _grid_points(np.asarray(self.grid, float), grid_range, owner)
        dist = np.asarray(self.distribution, float)
        est = np.asarray(self.estimate, float)
        return sup_pvalue(dist, est, values["alternative"], points)

    def _frame_rows(self) -> list[dict[str, Any]]:
        x, y = AXIS_NAMES[self.curve]
        rows = super()._frame_rows()
        for j, row in enumerate(rows):
            del row[y]
            rows[j] = {
                x: row.pop(x),
                f"{y}_a": float(self.estimate_a[j]),
                f"{y}_b": float(self.estimate_b[j]),
                "difference": float(self.estimate[j]),
                **row,
            }
        return rows

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Draw the difference of the curves on the grid with its bands.

        The observed difference ``a - b`` is a line (straight segments between
        the grid points), the pointwise band a shaded area, the simultaneous
        band a lighter, wider one behind it, and a dashed line marks 0: where
        the simultaneous band does not reach it, one model's curve is above
        the other's.  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``band``: which bands to draw, one of "both" (default),
            "pointwise", "simultaneous", "none"; ``label``: the legend entry
            of the difference (default: "a - b"); any other keyword goes to
            the line's ``Axes.plot`` (``color``, ``linestyle``, ...).

        Returns
        -------
        ax : matplotlib Axes
            With the difference's line, one filled area per band, the line at
            0 and a legend.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from skboot.metrics import compare_precision_recall_curves
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> cmp = compare_precision_recall_curves(
        ...     y, y + rng.normal(size=300), y + 2 * rng.normal(size=300),
        ...     n_resamples=300, random_state=0)
        >>> ax = cmp.plot()
        >>> ax.get_ylabel(), len(ax.collections)
        ('Precision difference (a - b)', 2)
        """
        return super().plot(ax, **kwargs)

    def _plot_layout(self) -> dict[str, Any]:
        layout = super()._plot_layout()
        name = layout["ylabel"]
        return dict(
            layout,
            label="a - b",
            ylabel=f"{name} difference (a - b)",
            ylim=None,
            legend="best",
            zero_line=True,
        )


def _grid_points(grid: np.ndarray, grid_range: Any, owner: str) -> np.ndarray:
    """The mask of the grid points in ``grid_range`` (None: all), checked."""
    if grid_range is None:
        return np.ones(grid.shape[0], dtype=bool)
    allowed = (
        "None or a pair (low, high) of floats with 0 <= low <= high <= 1 that "
        "holds at least one grid point"
    )
    try:
        low, high = (float(v) for v in grid_range)
    except (TypeError, ValueError):
        raise param_error("grid_range", owner, allowed, grid_range) from None
    if not (0.0 <= low <= high <= 1.0):
        raise param_error("grid_range", owner, allowed, grid_range)
    points = (grid >= low) & (grid <= high)
    if not points.any():
        raise param_error("grid_range", owner, allowed, grid_range)
    return points
