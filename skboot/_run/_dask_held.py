"""What a result keeps of a data-parallel run of a dask collection: the
estimate and the sums of the BCa acceleration, never the rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from skboot._engine import Statistic
from skboot.intervals import JackknifeMoments

__all__ = ["NO_ROWS", "HeldStatistic"]

#: Why the interval methods that revisit the rows are unavailable.
NO_ROWS = (
    "The data of this result stay in a dask collection: the studentized and "
    "calibrated intervals would revisit every row. Use method 'percentile', "
    "'basic', 'normal', 'bc' or 'bca' (BCa's acceleration takes one more pass "
    "over the partitions), or call .compute() on the collection and bootstrap "
    "the numpy array if it fits in memory."
)


@dataclass
class HeldStatistic(Statistic):
    """The statistic of a data-parallel run: its estimate (computed with the
    replicates) and, once known, the power sums of its leave-one-out values
    (``moments``); ``no_values`` says why the values themselves are not here."""

    data_unavailable: ClassVar[str | None] = NO_ROWS
    no_values: ClassVar[str] = ""
    name: str = "mean"
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    cached_estimate: np.ndarray | None = field(default=None)
    moments: JackknifeMoments | None = field(default=None, repr=False)

    def estimate(self) -> np.ndarray:
        assert self.cached_estimate is not None
        return self.cached_estimate.copy()

    def jackknife(self) -> np.ndarray:
        raise ValueError(self.no_values)

    def jackknife_moments(self) -> JackknifeMoments:
        assert self.moments is not None
        return self.moments
