"""The plot of a test result: its null distribution with the observed
statistic marked (optional dependency: matplotlib, ``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._results import pyplot
from skboot._validation import value_error

__all__ = ["plot_null_distribution"]


def plot_null_distribution(
    result: Any,
    ax: Any = None,
    *,
    element: int | tuple[int, ...] | None = None,
    bins: int | str = "auto",
) -> Any:
    """Draw ``result``'s null distribution (one element's, for a vector
    statistic) with a line at the observed statistic; returns the Axes."""
    statistic = np.asarray(result.statistic, dtype=np.float64)
    pvalue = np.asarray(result.pvalue, dtype=np.float64)
    null = np.asarray(result.null_distribution, dtype=np.float64)
    name = getattr(result, "metric", "statistic")
    if statistic.ndim:
        idx = _element(element, statistic.shape)
        if null.ndim > 1:  # one null per element (a permutation test)
            flat = np.ravel_multi_index(idx, statistic.shape)
            null = null.reshape(null.shape[0], -1)[:, flat]
        statistic, pvalue = statistic[idx], pvalue[idx]
        name = f"{name} {idx[0] if len(idx) == 1 else idx}"
    if ax is None:
        ax = pyplot().subplots(figsize=(6, 3.5), layout="constrained")[1]
    finite = np.isfinite(null)
    left_out = int(null.size - np.count_nonzero(finite))
    label = f"null distribution, {result.n_resamples} resamples"
    if left_out:
        label += f" ({left_out} NaN or infinite not drawn)"
    ax.hist(null[finite], bins=bins, color="0.75", edgecolor="0.45", label=label)
    t, p = float(statistic), float(pvalue)
    observed = f"observed {t:.4g}: p = {p:.3g} ({result.alternative})"
    if np.isfinite(t):
        ax.axvline(t, color="C3", linewidth=2, label=observed)
    else:  # nothing to draw a line at; the legend still says it
        ax.plot([], [], color="C3", linewidth=2, label=observed)
    ax.set_xlabel(name)
    ax.set_ylabel("resamples")
    ax.set_title(f"Null distribution of the {name}")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.35)  # headroom: the legend sits above
    ax.legend(loc="upper left", fontsize="small")
    return ax


def _element(element: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of one element of a statistic of ``shape``."""
    idx = element if isinstance(element, tuple) else (element,)
    ok = len(idx) == len(shape) and all(
        isinstance(i, (int, np.integer)) and not isinstance(i, bool) and 0 <= i < m
        for i, m in zip(idx, shape, strict=False)
    )
    if not ok:
        what = "an int" if len(shape) == 1 else f"a tuple of {len(shape)} ints"
        raise value_error(
            "element",
            "plot",
            f"must be {what} indexing the statistic of shape {shape} (the element "
            f"whose null distribution is drawn). Got {element!r} instead.",
        )
    return tuple(int(i) for i in idx)
