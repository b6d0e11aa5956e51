"""Plots of :class:`~skboot.MetricCI` and :class:`~skboot.MetricComparison`: the
bootstrap distribution of the metric (or of the paired difference) with the
estimate and the interval marked, drawn by :func:`skboot.plotting.plot_distribution`
so that they look like :meth:`skboot.BootstrapResult.plot`."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot.intervals import ConfidenceInterval, check_level, check_method
from skboot.metrics._inputs import METRIC_INTERVAL_METHODS
from skboot.plotting import plot_distribution

__all__ = ["PLOT_OPTIONS", "plot_metric_result"]

#: The keyword options of the metric results' ``plot``.
PLOT_OPTIONS = ("method", "level", "bins")


class _DistributionView:
    """What :func:`~skboot.plotting.plot_distribution` reads of a result, with
    the interval computed by the metric result (its undefined-replicate policy
    and stratified acceleration), not by the wrapped run."""

    def __init__(self, result: Any) -> None:
        self._result = result
        self.distribution = np.asarray(result.distribution, dtype=float).reshape(-1)
        self.statistic_name = str(result.result.statistic_name)
        self.estimate = float(result.estimate)
        self.n_resamples = int(self.distribution.shape[0])

    def confidence_interval(self, level: float, method: str) -> ConfidenceInterval:
        r = self._result
        if method == r.method and level == r.level:
            return r.interval
        return r.confidence_interval(level=level, method=method)


def plot_metric_result(
    result: Any,
    ax: Any,
    options: dict[str, Any],
    reference: tuple[float, str] | None = None,
) -> Any:
    """Draw ``result`` (a metric result) on ``ax``; ``reference`` adds a dashed
    vertical line ``(x, label)``.  Returns the Axes."""
    unknown = sorted(set(options) - set(PLOT_OPTIONS))
    if unknown:
        raise TypeError(
            f"plot() got an unexpected keyword argument {unknown[0]!r} (it takes "
            f"ax and {', '.join(PLOT_OPTIONS)})"
        )
    method = check_method(
        options.get("method", result.method), "plot", METRIC_INTERVAL_METHODS
    )
    level = check_level(options.get("level", result.level), "plot")
    view = _DistributionView(result)
    out = plot_distribution(
        view, ax=ax, method=method, level=level, bins=options.get("bins", "auto")
    )
    title = f"Bootstrap distribution, B = {view.n_resamples}"
    if result.n_undefined:
        title += f" ({result.n_undefined} undefined omitted)"
    out.set_title(title)
    if reference is not None:
        x, label = reference
        out.axvline(x, color="0.2", linestyle="--", linewidth=1.2, label=label)
        out.legend(loc="upper left", fontsize="small")
    return out
