"""matplotlib views of a bootstrap result (optional dependency: ``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plot_distribution"]


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError(
            "Plotting needs matplotlib: pip install 'skboot[plot]'."
        ) from exc
    return plt


def plot_distribution(
    result: Any,
    *,
    ax: Any = None,
    column: int | str | tuple[int, ...] | None = None,
    method: str = "percentile",
    level: float = 0.95,
    bins: int | str = "auto",
) -> Any:
    """Histogram of the bootstrap distribution with the estimate and interval.

    Parameters
    ----------
    result : BootstrapResult
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure is made if None.
    column : int, str or tuple of int, default=None
        For a vector statistic, which component (position or label).  Required
        when the statistic has more than one output.  For a statistic that keeps
        a shape of two or more axes (a refit's multiclass ``coef_``), the
        element's index tuple (``(class, feature)``) or its flat position.
    method : str, default="percentile"
        Interval method drawn (any of :meth:`BootstrapResult.confidence_interval`).
    level : float, default=0.95
        Confidence level of the drawn interval.
    bins : int or str, default="auto"
        Histogram bins (as in :func:`numpy.histogram`).

    Returns
    -------
    ax : matplotlib Axes
        With one histogram (``ax.patches``), a solid line at the estimate and a
        shaded span for the interval, and a legend.
    """
    plt = _pyplot()
    dist = np.asarray(result.distribution, dtype=float)
    est = np.atleast_1d(np.asarray(result.estimate, dtype=float))
    ci = result.confidence_interval(level=level, method=method)
    low = np.atleast_1d(np.asarray(ci.low, dtype=float))
    high = np.atleast_1d(np.asarray(ci.high, dtype=float))
    name = result.statistic
    shape = np.shape(result.estimate)
    if len(shape) >= 2:  # a shaped statistic: flat, in C order
        dist, est, low, high = (
            dist.reshape(dist.shape[0], -1),
            est.reshape(-1),
            low.reshape(-1),
            high.reshape(-1),
        )
        if isinstance(column, tuple):
            if len(column) != len(shape) or not all(
                isinstance(i, (int, np.integer)) and 0 <= i < m
                for i, m in zip(column, shape, strict=True)
            ):
                raise ValueError(
                    f"The 'column' parameter of plot must be an index into the "
                    f"statistic's shape {shape}. Got {column!r} instead."
                )
            column = int(np.ravel_multi_index(column, shape))
    if dist.ndim == 2:
        k = dist.shape[1]
        if column is None:
            if k != 1:
                raise ValueError(
                    "The 'column' parameter of plot is required for a statistic with "
                    f"{k} outputs: pass a position in [0, {k - 1}] or a label."
                )
            j = 0
        elif isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not 0 <= int(column) < k:
                raise ValueError(
                    f"The 'column' parameter of plot must be in [0, {k - 1}]. "
                    f"Got {column!r} instead."
                )
            j = int(column)
        else:
            labels = list(getattr(result.distribution, "columns", []))
            if column not in labels:
                raise ValueError(
                    f"The 'column' parameter of plot must be one of {labels}. "
                    f"Got {column!r} instead."
                )
            j = labels.index(column)
        values = dist[:, j]
        est_j, low_j, high_j = est[j], low[j], high[j]
        title_col = f" [{column if column is not None else j}]"
    else:
        values, est_j, low_j, high_j, title_col = dist, est[0], low[0], high[0], ""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(
        values, bins=bins, color="0.75", edgecolor="0.45", label="bootstrap replicates"
    )
    ax.axvline(est_j, color="C3", linewidth=2, label=f"estimate {est_j:.4g}")
    if np.isfinite(low_j) or np.isfinite(high_j):
        lo = low_j if np.isfinite(low_j) else np.min(values)
        hi = high_j if np.isfinite(high_j) else np.max(values)
        ax.axvspan(
            lo,
            hi,
            color="C0",
            alpha=0.2,
            label=f"{level:.0%} {method} [{low_j:.4g}, {high_j:.4g}]",
        )
    ax.set_xlabel(f"{name}{title_col}")
    ax.set_ylabel("replicates")
    ax.set_title(f"Bootstrap distribution, B = {result.n_resamples}")
    ax.legend(loc="best", fontsize="small")
    return ax
