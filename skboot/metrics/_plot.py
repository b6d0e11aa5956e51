"""Plots of :class:`~skboot.MetricCI` and :class:`~skboot.MetricComparison`: the
bootstrap distribution of the metric (or of the paired difference) with the
estimate and the interval marked, drawn by :func:`skboot.plotting.plot_distribution`
so that they look like :meth:`skboot.BootstrapResult.plot`; and of
:class:`~skboot.BootstrapScore`: the out-of-bag scores of the replicates."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._results import pyplot
from skboot._validation import validate_params
from skboot.intervals import ConfidenceInterval
from skboot.metrics._inputs import INTERVAL_OPTIONS
from skboot.plotting import plot_distribution

__all__ = ["PLOT_OPTIONS", "plot_metric_result", "plot_score"]

#: The keyword options of the metric results' ``plot``.
PLOT_OPTIONS = ("method", "level", "bins")


class _DistributionView:
    """What :func:`~skboot.plotting.plot_distribution` reads of a result, with
    the interval computed by the metric result (its undefined-replicate policy
    and stratified acceleration), not by the wrapped run."""

    def __init__(self, result: Any) -> None:
        self._result = result
        self.distribution = np.asarray(result.distribution, dtype=float).reshape(-1)
        # the run's name, as BootstrapResult.statistic_name
        self.statistic_name = str(result.confidence_interval().name)
        self.estimate = float(result.estimate)
        self.n_resamples = int(self.distribution.shape[0])

    def confidence_interval(self, level: float, method: str) -> ConfidenceInterval:
        r = self._result
        if method == r.method and level == r.level:
            return r.confidence_interval()  # the stored one
        return r.confidence_interval(level=level, method=method)


def _check_options(options: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"plot() got an unexpected keyword argument {unknown[0]!r} (it takes "
            f"ax and {', '.join(allowed)})"
        )


def plot_metric_result(
    result: Any,
    ax: Any,
    options: dict[str, Any],
    reference: tuple[float, str] | None = None,
) -> Any:
    """Draw ``result`` (a metric result) on ``ax``; ``reference`` adds a dashed
    vertical line ``(x, label)``.  Returns the Axes."""
    _check_options(options, PLOT_OPTIONS)
    values = validate_params(
        "plot",
        INTERVAL_OPTIONS,
        method=options.get("method", result.method),
        level=options.get("level", result.level),
    )
    method, level = str(values["method"]), float(values["level"])
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


def plot_score(score: Any, ax: Any, options: dict[str, Any]) -> Any:
    """Draw a :class:`~skboot.BootstrapScore` on ``ax`` (None: a new figure):
    the histogram of the out-of-bag scores, a dotted line at the apparent
    score, a dashed one at their mean and a solid one at the estimate.  Returns
    the Axes."""
    _check_options(options, ("bins",))
    if ax is None:
        _, ax = pyplot().subplots(figsize=(6, 3.5), layout="constrained")
    ax.hist(
        np.asarray(score.distribution, dtype=float),
        bins=options.get("bins", "auto"),
        color="0.75",
        edgecolor="0.45",
        label="out-of-bag score of each replicate",
    )
    ax.axvline(
        score.apparent_score,
        color="0.2",
        linestyle=":",
        linewidth=1.5,
        label=f"apparent {score.apparent_score:.4g}",
    )
    ax.axvline(
        score.oob_score,
        color="C0",
        linestyle="--",
        linewidth=1.5,
        label=f"out-of-bag {score.oob_score:.4g}",
    )
    ax.axvline(
        score.estimate,
        color="C3",
        linewidth=2,
        label=f"{score.rule} {score.estimate:.4g}",
    )
    ax.set_xlabel(score.scoring)
    ax.set_ylabel("replicates")
    title = f"Out-of-bag scores, B = {score.n_resamples}"
    if score.n_undefined:
        title += f" ({score.n_undefined} undefined omitted)"
    ax.set_title(title)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.45)  # headroom: the legend sits above
    ax.legend(loc="upper left", fontsize="small")
    return ax
