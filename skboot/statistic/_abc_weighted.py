"""The statistic of :func:`skboot.abc_interval` as a function of weights.

A built-in is a smooth function of a few weighted means ``m = w @ G`` of
per-row features ``G`` (centred where the statistic is shift-invariant, so the
moments do not cancel), so the ``2 n`` perturbed values ``t(P0 -/+ e d_i)``
come from ``(1 -/+ e) mean(G) +/- e G_i`` in O(n k) time and memory, with no
loop over the rows.  A callable ``statistic(data, weights)`` is called once per
weight vector, through the one adapter of user code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine._statistic import call_user
from skboot._validation import param_error, value_error

__all__ = ["ABC_STATISTICS", "WeightedStatistic", "builtin_weighted", "user_weighted"]

_OWNER = "abc_interval"

#: The built-in statistics that have a weighted form, with the data they take.
ABC_STATISTICS = {
    "mean": "1-D",
    "var": "1-D",
    "std": "1-D",
    "corr": "2-D with 2 columns",
    "ratio": "2-D with 2 columns",
}


@dataclass(frozen=True)
class WeightedStatistic:
    """``t(w) - offset`` for one weight vector (``at``) and at the ``2 n``
    weight vectors ``P0 -/+ e d_i`` (``perturbed``).  The offset (the data's
    mean, for the mean) is a constant taken out so the differences do not lose
    its digits; the caller adds it back to the estimate and the endpoints."""

    at: Callable[[np.ndarray], float]
    perturbed: Callable[[float], tuple[np.ndarray, np.ndarray]]
    offset: float = 0.0


def _moments(name: str, x: np.ndarray) -> tuple[np.ndarray, Callable[..., Any], float]:
    """Features ``G`` (n, k), the statistic ``h`` of their weighted means (a
    function of the k moment arrays) and the offset."""
    if name in ("mean", "var", "std"):
        centre = float(np.mean(x))
        xc = x - centre
        if name == "mean":
            return xc[:, None], lambda m0: m0, centre

        def variance(m0: Any, m1: Any) -> Any:
            return np.maximum(m1 - m0 * m0, 0.0)

        h = variance if name == "var" else (lambda m0, m1: np.sqrt(variance(m0, m1)))
        return np.column_stack([xc, xc * xc]), h, 0.0
    if name == "corr":
        c = x - x.mean(axis=0)
        g = np.column_stack([c[:, 0], c[:, 1], c[:, 0] ** 2, c[:, 1] ** 2])
        g = np.column_stack([g, c[:, 0] * c[:, 1]])

        def corr(m0: Any, m1: Any, m2: Any, m3: Any, m4: Any) -> Any:
            vx, vy = np.maximum(m2 - m0 * m0, 0.0), np.maximum(m3 - m1 * m1, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                return (m4 - m0 * m1) / np.sqrt(vx * vy)

        return g, corr, 0.0

    def ratio(m0: Any, m1: Any) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return m0 / m1

    return x, ratio, 0.0


def builtin_weighted(name: str, x: np.ndarray) -> WeightedStatistic:
    """The built-in statistic ``name`` of the data ``x`` in weighted form."""
    g, h, offset = _moments(name, x)
    mean_g = g.mean(axis=0)

    def at(w: np.ndarray) -> float:
        w = w / np.sum(w)
        return float(h(*(w @ g)))

    def perturbed(ep: float) -> tuple[np.ndarray, np.ndarray]:
        plus = (1.0 - ep) * mean_g + ep * g
        minus = (1.0 + ep) * mean_g - ep * g
        return np.asarray(h(*plus.T), float), np.asarray(h(*minus.T), float)

    return WeightedStatistic(at, perturbed, offset)


def check_builtin_data(name: str, x: np.ndarray) -> None:
    """The data shape a built-in needs (before any work)."""
    need = ABC_STATISTICS[name]
    ok = x.ndim == 1 if need == "1-D" else (x.ndim == 2 and x.shape[1] == 2)
    if not ok:
        raise value_error(
            "data",
            _OWNER,
            f"must be {need} for statistic={name!r}. Got an array of shape "
            f"{x.shape} instead.",
        )


def user_weighted(
    statistic: Callable[..., Any], data: np.ndarray, kwargs: dict[str, Any]
) -> WeightedStatistic:
    """A callable ``statistic(data, weights, **kwargs)`` in weighted form; each
    value must be one real number."""
    n = data.shape[0]

    def at(w: np.ndarray) -> float:
        w = w / np.sum(w)
        value = call_user(statistic, (data, w), kwargs, where="the data with weights")
        return _scalar(value)

    def perturbed(ep: float) -> tuple[np.ndarray, np.ndarray]:
        base = np.full(n, (1.0 - ep) / n)
        plus, minus = np.empty(n), np.empty(n)
        for i in range(n):
            w = base.copy()
            w[i] += ep
            plus[i] = at(w)
            w = np.full(n, (1.0 + ep) / n)
            w[i] -= ep
            minus[i] = at(w)
        return plus, minus

    return WeightedStatistic(at, perturbed)


def _scalar(value: Any) -> float:
    arr = np.asarray(value)
    if arr.size != 1 or arr.dtype.kind not in "biuf":
        raise param_error(
            "statistic",
            _OWNER,
            "a callable statistic(data, weights) returning one real number",
            f"a value of shape {arr.shape} and dtype {arr.dtype}",
        )
    return float(arr.reshape(-1)[0])
