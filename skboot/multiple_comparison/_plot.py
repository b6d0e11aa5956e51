"""A dot-and-bar view of model p-values (optional dependency: ``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._results import pyplot
from skboot._validation import (
    LEVEL,
    NONE,
    Options,
    param_error,
    validate_params,
    value_error,
)
from skboot.multiple_comparison._base import alpha_of
from skboot.multiple_comparison._results import (
    PVALUE_TYPES,
    MCSResult,
    SPAResult,
    StepMResult,
)

__all__ = ["plot_pvalues"]

_PARAMS = {
    "level": [LEVEL, NONE],
    "pvalue_type": [Options(PVALUE_TYPES), NONE],
}


def plot_pvalues(
    result: Any,
    *,
    ax: Any = None,
    level: float | None = None,
    pvalue_type: str | None = None,
) -> Any:
    """Horizontal bars of every model's p-value, and a line at ``1 - level``.

    Models are sorted by p-value (smallest at the top).  Bars of the models the
    procedure singles out are coloured: the models in the confidence set
    (:class:`MCSResult`), the superior models (:class:`StepMResult`), the models
    whose adjusted p-value is at most ``1 - level`` (:class:`SPAResult`).

    Parameters
    ----------
    result : MCSResult, StepMResult or SPAResult
        MCS p-values, StepM stepdown-adjusted p-values, or the SPA's single-step
        adjusted model p-values.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure is made if None.
    level : float, default=None
        Confidence level: the line is drawn at ``1 - level``, the p-value at
        which a model is singled out; default the result's ``level`` (0.95
        for SPA).
    pvalue_type : {"lower", "consistent", "upper"}, default=None
        SPA only: which recentering (default the result's ``pvalue_type``).

    Returns
    -------
    ax : matplotlib Axes
        One bar per model (``ax.patches``) and the ``1 - level`` line.

    See Also
    --------
    MCSResult.plot : The same plot as a method of a result.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from skboot import MCS
    >>> rng = np.random.default_rng(0)
    >>> losses = rng.chisquare(5, (300, 5)) + np.array([0, 0.2, 0.4, 2, 3])
    >>> res = MCS(0.9, block_length=5, n_resamples=200, random_state=0).compute(losses)
    >>> ax = res.plot()
    >>> len(ax.patches)
    5
    """
    owner = "plot_pvalues"
    validate_params(owner, _PARAMS, level=level, pvalue_type=pvalue_type)
    if isinstance(result, MCSResult):
        pv = result.pvalues
        default = alpha_of(result.level)
        marked = set(result.included)
        what, legend = "MCS p-value", "in the confidence set"
    elif isinstance(result, StepMResult):
        pv = result.pvalues
        default = alpha_of(result.level)
        marked = set(result.superior_models)
        what, legend = "stepdown-adjusted p-value", "superior to the benchmark"
    elif isinstance(result, SPAResult):
        kind = result.pvalue_type if pvalue_type is None else pvalue_type
        pv = result.pvalues[kind]
        default = 0.05
        marked = None
        what, legend = f"adjusted p-value ({kind})", "better than the benchmark"
    else:
        raise param_error(
            "result", owner, "an MCSResult, StepMResult or SPAResult", result
        )
    if pvalue_type is not None and not isinstance(result, SPAResult):
        raise value_error(
            "pvalue_type",
            owner,
            f"applies to SPA results only. Got {pvalue_type!r} for a "
            f"{type(result).__name__} instead.",
        )
    alpha = default if level is None else alpha_of(level)
    if marked is None:
        marked = {lab for lab, p in pv.items() if p <= alpha}
    plt = pyplot()
    order = np.argsort(pv.to_numpy(), kind="stable")[::-1]
    labels = [pv.index[i] for i in order]
    values = pv.to_numpy()[order]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.6 + 0.28 * len(labels)))
    colors = ["C0" if lab in marked else "0.7" for lab in labels]
    ypos = np.arange(len(labels))
    ax.barh(ypos, values, color=colors, height=0.7)
    ax.plot(values, ypos, "o", color="0.2", markersize=3)
    ax.axvline(alpha, color="C3", linestyle="--", label=f"1 - level = {alpha:g}")
    ax.set_yticks(ypos, [str(lab) for lab in labels])
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(what)
    ax.set_ylabel("model")
    ax.barh([], [], color="C0", label=legend)
    ax.legend(loc="upper right", fontsize="small")
    return ax
