"""The SPA statistics and the StepM stepdown, from the replicates of the loss
differentials (floating point, or exact integer sums where the data allow)."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from skboot._kernels.multiple_comparison import spa_max
from skboot.multiple_comparison._exact import ExactSums, above_quantile
from skboot.multiple_comparison._results import PVALUE_TYPES

__all__ = ["labels_at", "spa_parts", "stepdown"]


def _domain(
    dbar: np.ndarray,
    C: np.ndarray,
    inv: np.ndarray,
    relevant: np.ndarray,
    exact: ExactSums | None,
    studentize: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """``(num, shift, w, obs, units)``: the statistics are ``(num + shift) * w``
    (replicates) and ``obs * w`` (observed), reported divided by ``units``.

    Floating point: ``num = C``, ``obs = dbar``, ``w = 1 / se`` (or 1), units 1.
    Exact sums: ``num = c``, ``obs = S`` and integer shifts; ``w = 1 / (T se)``
    when studentized, else 1 with units ``T`` (integers compared as such)."""
    k = dbar.shape[0]
    if exact is None:
        num, obs, w, units = C, dbar, inv, 1.0
    else:
        num, obs = exact.c, exact.S
        w = inv / exact.T if studentize else np.ones(k)
        units = 1.0 if studentize else float(exact.T)
    shift = np.ascontiguousarray(
        np.vstack([np.minimum(obs, 0.0), np.where(relevant, 0.0, obs), np.zeros(k)])
    )
    return np.ascontiguousarray(num), shift, np.ascontiguousarray(w), obs, units


def spa_parts(
    dbar: np.ndarray,
    C: np.ndarray,
    omega2: np.ndarray,
    T: int,
    studentize: bool,
    exact: ExactSums | None = None,
) -> dict[str, Any]:
    """The SPA statistics from the mean differentials ``dbar`` (k,), the centred
    replicates ``C`` (B, k) and ``omega2`` (k,) (Hansen 2005, section 2); with
    ``exact``, ties are decided on its integer sums."""
    B, k = C.shape
    se2 = omega2 / T
    se = np.sqrt(se2)
    inv = 1.0 / se if studentize else np.ones(k)
    loglog = max(math.log(math.log(T)), 0.0)
    relevant = dbar >= -np.sqrt(se2 * 2.0 * loglog)
    num, shift, w, obs, units = _domain(dbar, C, inv, relevant, exact, studentize)
    sim = np.empty((B, 3))
    spa_max(num, shift, w, sim)
    t_dom = obs * w
    stat_dom = float(np.max(t_dom))
    pvalues = (sim > stat_dom).mean(axis=0)
    model_p = np.empty((k, 3))
    for j in range(3):
        srt = np.sort(sim[:, j])
        model_p[:, j] = (B - np.searchsorted(srt, t_dom, side="right")) / B
    return {
        "dbar": dbar,
        "omega2": omega2,
        "se": se,
        "relevant": relevant,
        "num": num,
        "shift": shift,
        "w": w,
        "t_dom": t_dom,
        "units": units,
        "null_distribution": sim / units if units != 1.0 else sim,
        "t": t_dom / units if units != 1.0 else t_dom,
        "statistic": stat_dom / units,
        "pvalues_by_type": pvalues,
        "pvalues": model_p,
    }


def stepdown(
    parts: dict[str, Any], size: float, pvalue_type: str
) -> tuple[list[np.ndarray], list[float], np.ndarray]:
    """The StepM of Romano & Wolf (2005) on the SPA statistics.

    At each step the critical value is the ``1 - size`` quantile (numpy's
    linear interpolation) of ``max_{k active} Z*_bk / se_k`` under the
    ``pvalue_type`` recentering; the active models with ``t_k`` above it
    (decided exactly, :func:`above_quantile`) are selected and removed.  Stops
    when a step selects nothing or no model is left.  Returns the positions
    selected per step, the critical values, and the stepdown-adjusted
    p-values.
    """
    t = parts["t_dom"]
    w = parts["w"]
    num = parts["num"]
    units = parts["units"]
    row = parts["shift"][PVALUE_TYPES.index(pvalue_type)]
    B, k = num.shape
    active = np.ones(k, dtype=bool)
    steps: list[np.ndarray] = []
    crits: list[float] = []
    sim = np.empty((B, 1))
    while active.any():
        idx = np.flatnonzero(active)
        spa_max(
            np.ascontiguousarray(num[:, idx]),
            np.ascontiguousarray(row[idx][None, :]),
            np.ascontiguousarray(w[idx]),
            sim,
        )
        crit = float(np.percentile(sim[:, 0], 100.0 * (1.0 - size)))
        crits.append(crit / units)
        new = idx[above_quantile(t[idx], sim[:, 0], size)]
        if new.size == 0:
            break
        steps.append(new)
        active[new] = False
    # adjusted p-values: max over the more significant models of the share of
    # replicates whose maximum over the remaining models exceeds t
    order = np.argsort(-t, kind="stable")
    Z = (num[:, order] + row[order]) * w[order]
    suffix = np.maximum.accumulate(Z[:, ::-1], axis=1)[:, ::-1]
    raw = (suffix > t[order]).mean(axis=0)
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(raw)
    return steps, crits, adjusted


def labels_at(labels: list[Hashable], positions: np.ndarray) -> list[Hashable]:
    return [labels[int(i)] for i in np.sort(positions)]
