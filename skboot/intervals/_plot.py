"""The matplotlib view of a :class:`ConfidenceInterval` (optional dependency:
``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._results import pyplot

__all__ = ["plot_interval"]


def plot_interval(ci: Any, *, ax: Any = None, **kwargs: Any) -> Any:
    """One error bar per output of a :class:`ConfidenceInterval`.

    Parameters
    ----------
    ci : ConfidenceInterval
        The interval to draw.
    ax : matplotlib Axes, default=None
        Where to draw; None makes a new figure.
    **kwargs : dict
        Passed to :meth:`matplotlib.axes.Axes.errorbar`.

    Returns
    -------
    ax : matplotlib Axes
        One error bar per output, from ``low`` to ``high`` with its marker at
        the estimate (the middle when the estimate is unknown); the open side
        of a one-sided interval reaches past every other value drawn.

    See Also
    --------
    ConfidenceInterval.plot : The same plot as a method of the interval.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skboot import ConfidenceInterval
    >>> from skboot.intervals._plot import plot_interval
    >>> ax = plot_interval(ConfidenceInterval(1.0, 2.0, estimate=1.4, name="mean"))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['mean']
    """
    plt = pyplot()
    frame = ci.to_frame()
    low, high = frame["low"].to_numpy(), frame["high"].to_numpy()
    values = np.concatenate([low, high, frame.get("estimate", frame["low"]).to_numpy()])
    finite = values[np.isfinite(values)]
    if finite.size:
        pad = max(float(np.ptp(finite)), 1.0) * 0.5
        lo_end, hi_end = float(finite.min()) - pad, float(finite.max()) + pad
    else:
        lo_end, hi_end = -1.0, 1.0
    low = np.where(np.isinf(low), lo_end, low)
    high = np.where(np.isinf(high), hi_end, high)
    has_estimate = "estimate" in frame
    center = frame["estimate"].to_numpy() if has_estimate else (low + high) / 2
    if ax is None:
        _, ax = plt.subplots(figsize=(max(3.0, 0.6 * len(frame) + 2), 3.5))
    x = np.arange(len(frame))
    with np.errstate(invalid="ignore"):  # undefined (NaN) intervals draw nothing
        below, above = np.maximum(center - low, 0), np.maximum(high - center, 0)
    kwargs = {"fmt": "o", "capsize": 4, **kwargs}
    ax.errorbar(x, center, yerr=np.vstack([below, above]), **kwargs)
    ax.set_xticks(x, [str(label) for label in frame.index])
    what = " ".join(
        str(v)
        for v in (
            None if ci.level is None else f"{100 * ci.level:g}%",
            ci.method,
            "interval",
        )
        if v is not None
    )
    ax.set_ylabel(what)
    return ax
