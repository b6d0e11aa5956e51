"""A dot-and-bar view of model p-values (optional dependency: ``skboot[plot]``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._validation import (
    NONE,
    Interval,
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
    "size": [Interval("real", 0.0, 1.0, closed="neither"), NONE],
    "pvalue_type": [Options(PVALUE_TYPES), NONE],
}


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError(
            "Plotting needs matplotlib: pip install 'skboot[plot]'."
        ) from exc
    return plt


def plot_pvalues(
    result: Any,
    *,
    ax: Any = None,
    size: float | None = None,
    pvalue_type: str | None = None,
) -> Any:
    """Horizontal bars of every model's p-value, with the size as a vertical line.

    Models are sorted by p-value (smallest at the top).  Bars of the models the
    procedure singles out are coloured: the models in the confidence set
    (:class:`MCSResult`), the superior models (:class:`StepMResult`), the models
    whose adjusted p-value is at most ``size`` (:class:`SPAResult`).

    Parameters
    ----------
    result : MCSResult, StepMResult or SPAResult
        MCS p-values, StepM stepdown-adjusted p-values, or the SPA's single-step
        adjusted model p-values.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure is made if None.
    size : float, default=None
        The size line: the p-value at which a model is singled out; default
        ``1 - level`` of the result (0.05 for SPA).
    pvalue_type : {"lower", "consistent", "upper"}, default=None
        SPA only: which recentering (default the result's ``pvalue_type``).

    Returns
    -------
    ax : matplotlib Axes
        One bar per model (``ax.patches``) and the size line.

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
    validate_params(owner, _PARAMS, size=size, pvalue_type=pvalue_type)
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
    alpha = default if size is None else float(size)
    if marked is None:
        marked = {lab for lab, p in pv.items() if p <= alpha}
    plt = _pyplot()
    order = np.argsort(pv.to_numpy(), kind="stable")[::-1]
    labels = [pv.index[i] for i in order]
    values = pv.to_numpy()[order]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.6 + 0.28 * len(labels)))
    colors = ["C0" if lab in marked else "0.7" for lab in labels]
    ypos = np.arange(len(labels))
    ax.barh(ypos, values, color=colors, height=0.7)
    ax.plot(values, ypos, "o", color="0.2", markersize=3)
    ax.axvline(alpha, color="C3", linestyle="--", label=f"size {alpha:g}")
    ax.set_yticks(ypos, [str(lab) for lab in labels])
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(what)
    ax.set_ylabel("model")
    ax.barh([], [], color="C0", label=legend)
    ax.legend(loc="upper right", fontsize="small")
    return ax
