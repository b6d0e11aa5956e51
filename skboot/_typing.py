"""Type aliases of the public signatures (what a parameter accepts, for type checkers).

The bottom layer: numpy, pandas and the standard library only, so every layer can use them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ArrayLike",
    "Distribution",
    "Estimate",
    "MetricLike",
    "PValues",
    "RandomStateLike",
    "SeedRecord",
    "StandardErrorFunc",
    "StatisticLike",
    "SupportsFit",
]

#: What ``random_state`` accepts: None (fresh OS entropy, recorded on the result),
#: a non-negative int, a SeedSequence, or a Generator / RandomState (advanced by one
#: 128-bit draw).  See :func:`skboot._random.check_random_state`.
RandomStateLike: TypeAlias = (
    int
    | np.integer[Any]
    | np.random.SeedSequence
    | np.random.Generator
    | np.random.RandomState
    | None
)

#: What a result records as ``random_state``: the int or SeedSequence that repeats
#: the run (None where nothing was drawn, e.g. an exact permutation test).
SeedRecord: TypeAlias = int | np.random.SeedSequence | None

#: A statistic's value: a float, one per output, or a Series by column label.
Estimate: TypeAlias = float | NDArray[np.float64] | pd.Series

#: The replicates of a statistic, one row per replicate, labelled like the data.
Distribution: TypeAlias = NDArray[np.float64] | pd.Series | pd.DataFrame

#: One p-value, one per output, or a Series indexed by the data's column labels.
PValues: TypeAlias = float | NDArray[np.float64] | pd.Series

#: A function of the data returning the statistic's standard error, or None.
StandardErrorFunc: TypeAlias = Callable[..., Any] | None

#: A built-in statistic's name (``"mean"``, ...) or a callable of the data.
StatisticLike: TypeAlias = str | Callable[..., Any]

#: A metric name, a scikit-learn scorer name or object, or
#: ``metric(y_true, y_pred, **options) -> float``.
MetricLike: TypeAlias = str | Callable[..., Any]


class SupportsFit(Protocol):
    """An estimator object: anything with a ``fit`` method (scikit-learn's duck type)."""

    def fit(self, *args: Any, **kwargs: Any) -> Any:
        """Fit the estimator; the return value is not used."""
