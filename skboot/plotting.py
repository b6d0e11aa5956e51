"""matplotlib views of a bootstrap result (optional dependency: ``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._results import pyplot
from skboot._validation import param_error, value_error

__all__ = ["plot_distribution"]


def plot_distribution(
    result: Any,
    *,
    ax: Any = None,
    column: int | str | tuple[int, ...] | None = None,
    method: str | None = None,
    level: float = 0.95,
    bins: int | str = "auto",
) -> Any:
    """Histogram of the bootstrap distribution with the estimate and interval.

    One Axes per drawn output of the statistic; the interval is recomputed from
    ``result`` with ``method`` and ``level``.  Needs matplotlib.

    Parameters
    ----------
    result : BootstrapResult
        The run to draw.
    ax : matplotlib Axes or array of Axes, default=None
        Where to draw: one Axes for one output, one per output (in output order)
        when several are drawn.  None makes a new figure (constrained layout, so
        labels are not clipped when it is saved).
    column : int, str or tuple of int, default=None
        For a vector statistic, the one component to draw (position or label).
        None draws every component, each on its own Axes of a grid (at most
        four a row).  For a statistic that keeps a shape of two or more axes (a
        refit's multiclass ``coef_``), the element's index tuple
        (``(class, feature)``) or its flat position (C order).
    method : str, optional
        Interval method drawn (any of :meth:`BootstrapResult.confidence_interval`,
        any letter case); None draws the result's default interval (BCa where it
        is available, else percentile).
    level : float, default=0.95
        Confidence level of the drawn interval.
    bins : int or str, default="auto"
        Histogram bins (as in :func:`numpy.histogram`).

    Returns
    -------
    ax : matplotlib Axes, or ndarray of Axes
        One Axes when one output is drawn, else a 1-D array with one Axes per
        output.  Each has one histogram (``ax.patches``), a solid line at the
        estimate, a shaded span for the interval, and a legend.

    See Also
    --------
    BootstrapResult.plot : The same plot as a method of the result.
    BootstrapResult.confidence_interval : The interval drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> axes = bootstrap(X, "mean", n_resamples=200, random_state=0).plot()
    >>> axes.shape, axes[2].get_xlabel()
    ((3,), 'mean [2]')
    """
    from skboot import intervals as _iv

    if method is not None:
        method = _iv.check_method(method, "plot")
    level = _iv.check_level(level, "plot")
    plt = pyplot()
    dist = np.asarray(result.distribution, dtype=float)
    failed = getattr(result, "failed_replicates", None)
    if failed is not None and len(failed):  # failed replicates hold no value
        dist = np.delete(dist, failed, axis=0)
    name = result.statistic_name
    labels = list(getattr(result.distribution, "columns", []))
    shape = np.shape(result.estimate)
    if len(shape) >= 2:  # a shaped statistic: flat, in C order
        dist = dist.reshape(dist.shape[0], -1)
        if isinstance(column, tuple):
            if len(column) != len(shape) or not all(
                isinstance(i, (int, np.integer)) and 0 <= i < m
                for i, m in zip(column, shape, strict=True)
            ):
                raise param_error(
                    "column",
                    "plot",
                    f"an index into the statistic's shape {shape}",
                    column,
                )
            column = int(np.ravel_multi_index(column, shape))
    if dist.ndim == 2:
        k = dist.shape[1]
        if column is None:
            picked = list(range(k))
        elif isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not 0 <= int(column) < k:
                raise param_error("column", "plot", f"in [0, {k - 1}]", column)
            picked = [int(column)]
        else:
            if column not in labels:
                raise param_error("column", "plot", f"one of {labels}", column)
            if labels.count(column) > 1:
                raise value_error(
                    "column",
                    "plot",
                    f"is the label {column!r}, which "
                    f"{labels.count(column)} columns share (duplicate column names "
                    "are kept as given). Pass the column's position instead.",
                )
            picked = [labels.index(column)]
        names = [_component_name(name, labels, j) for j in picked]
    else:
        dist = dist[:, None]
        series_name = getattr(result.distribution, "name", None)
        picked = [0]
        names = [name if series_name is None else f"{name} of {series_name}"]
    axes = _target_axes(plt, ax, len(picked))
    if method is None:  # the result's own default
        ci = result.confidence_interval(level=level)
        method = ci.method
    else:
        ci = result.confidence_interval(level=level, method=method)
    est = np.asarray(result.estimate, dtype=float).reshape(-1)
    low = np.asarray(ci.low, dtype=float).reshape(-1)
    high = np.asarray(ci.high, dtype=float).reshape(-1)
    for a, j, xlabel in zip(axes, picked, names, strict=True):
        size = "small" if len(picked) == 1 else "x-small"
        _draw(a, dist[:, j], est[j], low[j], high[j], xlabel, bins, method, level, size)
        a.set_title(
            f"Bootstrap distribution, B = {result.n_resamples}"
            if len(picked) == 1
            else xlabel
        )
    if len(picked) == 1:
        return axes[0]
    axes[0].figure.suptitle(f"Bootstrap distributions, B = {result.n_resamples}")
    return np.asarray(axes, dtype=object)


def _component_name(name: str, labels: list[Any], j: int) -> str:
    """A panel's name: the column's label; its position too when labels repeat."""
    if not labels:
        return f"{name} [{j}]"
    if labels.count(labels[j]) == 1:
        return f"{name} [{labels[j]}]"
    return f"{name} [{labels[j]}] (column {j})"


def _target_axes(plt: Any, ax: Any, count: int) -> list[Any]:
    """``count`` Axes: the caller's, or a new constrained-layout grid."""
    if ax is None:
        ncols = min(count, 4)
        nrows = -(-count // ncols)
        fig, grid = plt.subplots(
            nrows,
            ncols,
            figsize=(6, 3.5) if count == 1 else (3.6 * ncols, 3.0 * nrows),
            layout="constrained",
            squeeze=False,
        )
        flat = list(grid.ravel())
        for extra in flat[count:]:
            fig.delaxes(extra)
        return flat[:count]
    given = list(np.ravel(np.asarray(ax, dtype=object)))
    if len(given) != count:
        raise value_error(
            "ax",
            "plot",
            f"must hold one Axes per output drawn "
            f"({count}). Got {len(given)} instead; pass column= to draw one output "
            "on one Axes, or ax=None for a new grid.",
        )
    return given


def _draw(
    ax: Any,
    values: np.ndarray,
    est: float,
    low: float,
    high: float,
    xlabel: str,
    bins: Any,
    method: str,
    level: float,
    fontsize: str,
) -> None:
    ax.hist(
        values, bins=bins, color="0.75", edgecolor="0.45", label="bootstrap replicates"
    )
    ax.axvline(est, color="C3", linewidth=2, label=f"estimate {est:.4g}")
    if np.isfinite(low) or np.isfinite(high):
        lo = low if np.isfinite(low) else np.min(values)
        hi = high if np.isfinite(high) else np.max(values)
        ax.axvspan(
            lo,
            hi,
            color="C0",
            alpha=0.2,
            label=f"{100 * level:g}% {method} [{low:.4g}, {high:.4g}]",
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("replicates")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.45)  # headroom: the legend sits above
    ax.legend(loc="upper left", fontsize=fontsize)
