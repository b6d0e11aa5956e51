"""The frozen result of :func:`~skboot.metrics.roc_curve_band` and
:func:`~skboot.metrics.precision_recall_band` (:class:`CurveBand`), and its
drawing, shared with the displays."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._random import STREAM_VERSION
from skboot._results import Result, pyplot
from skboot._typing import SeedRecord
from skboot._validation import Constraint, Options, validate_params

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = ["AXIS_NAMES", "BANDS", "CurveBand", "draw_band"]

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
    label = options.pop("label", band.curve.replace("_", "-"))
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
    xlabel, ylabel = _LABELS[band.curve]
    if not ax.get_xlabel():
        ax.set_xlabel(xlabel)
    if not ax.get_ylabel():
        ax.set_ylabel(ylabel)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.legend(loc="lower right" if band.curve == "roc" else "lower left")
    return artists
