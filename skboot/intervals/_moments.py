"""The acceleration's inputs without the leave-one-out values: their central
power sums, for data too large to bring ``n`` values to one place."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from skboot.intervals._result import FloatArray

__all__ = ["JackknifeMoments"]


@dataclass(frozen=True)
class JackknifeMoments:
    """What the BCa acceleration needs of ``n`` leave-one-out values ``theta_(i)``
    (Efron & Tibshirani 1993, eq. 14.15), per column: ``m2 = sum(d**2)`` and
    ``m3 = sum(d**3)`` with ``d_i = mean(theta_(.)) - theta_(i)``, whether the
    values are all equal (``constant``), and how many rows have a non-finite
    value (``n_nonfinite``; the interval refuses them as it refuses such
    values; ``first_nonfinite`` is the first such row; the power sums leave
    them out).  ``vector``: whether the values would be (n, k) rather than (n,).
    """

    n: int
    m2: FloatArray
    m3: FloatArray
    constant: NDArray[np.bool_]
    n_nonfinite: int = 0
    vector: bool = True
    first_nonfinite: int = -1

    @classmethod
    def from_power_sums(
        cls,
        n: int,
        p1: FloatArray,
        p2: FloatArray,
        p3: FloatArray,
        constant: NDArray[np.bool_],
        n_nonfinite: int = 0,
        vector: bool = True,
        first_nonfinite: int = -1,
    ) -> JackknifeMoments:
        """From the sums ``p_r = sum(e**r)`` of ``e_i = theta_(i) - ref``, any
        reference ``ref`` (best: one close to their mean, so little cancels),
        summed over the ``n - n_nonfinite`` finite ones: with ``m = p1 / (n -
        n_nonfinite)``, ``sum((e - m)**2) = p2 - m p1`` and ``sum((e -
        m)**3) = p3 - 3 m p2 + 2 m**2 p1``; ``d = m - e``."""
        m = p1 / max(n - n_nonfinite, 1)  # the sums hold the finite values only
        c2 = np.maximum(p2 - m * p1, 0.0)
        c3 = p3 - 3.0 * m * p2 + 2.0 * m * m * p1
        constant = np.asarray(constant, dtype=bool)
        return cls(n, c2, -c3, constant, n_nonfinite, vector, first_nonfinite)

    @property
    def k(self) -> int:
        """The number of columns."""
        return int(self.m2.shape[0])

    def column(self, j: int) -> JackknifeMoments:
        """Column ``j`` alone, as the sums of (n,) values."""
        return JackknifeMoments(
            self.n,
            self.m2[j : j + 1],
            self.m3[j : j + 1],
            self.constant[j : j + 1],
            self.n_nonfinite,
            False,
            self.first_nonfinite,
        )

    def finite_only(self) -> JackknifeMoments:
        """The sums of the finite values alone (they leave out the others)."""
        n = self.n - self.n_nonfinite
        return JackknifeMoments(n, self.m2, self.m3, self.constant, 0, self.vector)
