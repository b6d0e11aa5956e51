"""Per-partition sums of a data-parallel run and their merge: what every
data-parallel scheme (:mod:`skboot._run._dask`, :mod:`skboot._run._dask_exact`)
returns from a partition, the partition's centre, and the fixed pairwise tree
that merges them (partition order, not completion order) by the parallel
formulas of Chan, Golub & LeVeque (1979), moving both to a common centre."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows
from skboot._kernels.poisson_rows import column_summary, poisson_rows_moments

__all__ = [
    "Centre",
    "PartitionSums",
    "empty_sums",
    "merge_sums",
    "partition_centre",
    "partition_sums",
    "tree_merge",
]


@dataclass(frozen=True)
class PartitionSums:
    """Per-replicate sums of some rows, about the centre ``shift`` (d,).

    ``s1``, ``s2``: (B + 1, d) count-weighted sums of ``x - shift`` and of its
    square (row B: unit weights, the original data); ``sw``: (B + 1,) the
    counts' totals; ``integral``: whether each column held integers only (its
    shift is then an integer and the sums stay exact); ``n_nonfinite`` and
    ``n_notbinary``: values the checks made after the pass refuse.
    """

    n: int
    shift: np.ndarray
    integral: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    sw: np.ndarray
    n_nonfinite: int = 0
    n_notbinary: int = 0


@dataclass(frozen=True)
class Centre:
    """One partition's rows as (m, d) float64 and what the first pass over them
    found: per column the centre ``shift`` (the mean of its finite values, 0 if
    none; an integer for a column of integers, whose centred sums are then
    exact), whether the column is ``integral``, and the counts of non-finite
    values and of values other than 0 and 1."""

    X: np.ndarray
    shift: np.ndarray
    integral: np.ndarray
    n_nonfinite: int
    n_notbinary: int

    def sums(self, s1: np.ndarray, s2: np.ndarray, sw: np.ndarray) -> PartitionSums:
        """The partition's :class:`PartitionSums` of the computed sums."""
        return PartitionSums(
            self.X.shape[0],
            self.shift,
            self.integral,
            s1,
            s2,
            sw,
            self.n_nonfinite,
            self.n_notbinary,
        )


def partition_centre(block: Any) -> Centre:
    """The rows of ``block`` (runs on a worker) and their centre, in one pass."""
    X = as_float_rows(np.asarray(block))
    m, d = X.shape
    sums = np.empty(d)
    finite = np.empty(d, dtype=np.int64)
    integral = np.empty(d, dtype=np.bool_)
    if m == 0:
        return Centre(X, np.zeros(d), np.ones(d, dtype=bool), 0, 0)
    n_nonfinite, n_notbinary = column_summary(X, sums, finite, integral)
    shift = np.where(finite > 0, sums / np.maximum(finite, 1), 0.0)
    shift = np.where(integral, np.round(shift), shift)
    return Centre(X, shift, integral, int(n_nonfinite), int(n_notbinary))


def empty_sums(n_resamples: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed ``s1``, ``s2`` (B + 1, d) and ``sw`` (B + 1,)."""
    B = n_resamples
    return np.zeros((B + 1, d)), np.zeros((B + 1, d)), np.zeros(B + 1)


def partition_sums(
    block: Any,
    start: int,
    seed: np.uint64,
    gamma: np.uint64,
    n_resamples: int,
    want2: bool,
) -> PartitionSums:
    """The Poisson sums of one partition (runs on a worker): ``block`` holds
    the global rows ``start .. start + len(block) - 1``.  Two passes over the
    rows (their centre, then the sums) and nothing of their size allocated
    beyond a float64 copy of a block of another dtype."""
    c = partition_centre(block)
    B = n_resamples
    s1, s2, sw = empty_sums(B, c.X.shape[1])
    if c.X.shape[0] == 0:
        return c.sums(s1, s2, sw)
    poisson_rows_moments(
        c.X,
        c.shift,
        seed,
        gamma,
        np.int64(0),
        np.int64(start),
        want2,
        s1[:B],
        s2[:B],
        sw[:B],
        s1[B],
        s2[B],
    )
    sw[B] = float(c.X.shape[0])
    return c.sums(s1, s2, sw)


def _moved(p: PartitionSums, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p``'s sums about ``centre`` instead of ``p.shift``."""
    delta = (p.shift - centre)[None, :]
    w = p.sw[:, None]
    with np.errstate(invalid="ignore"):
        s1 = p.s1 + w * delta
        s2 = p.s2 + (2.0 * delta) * p.s1 + w * (delta * delta)
    return s1, s2


def merge_sums(a: PartitionSums, b: PartitionSums) -> PartitionSums:
    """The sums of the rows of ``a`` and ``b``, about their pooled centre
    (rounded to an integer for columns of integers, so their sums stay exact)."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    n = a.n + b.n
    centre = (a.n * a.shift + b.n * b.shift) / n
    integral = a.integral & b.integral
    centre = np.where(integral, np.round(centre), centre)
    a1, a2 = _moved(a, centre)
    b1, b2 = _moved(b, centre)
    return PartitionSums(
        n,
        centre,
        integral,
        a1 + b1,
        a2 + b2,
        a.sw + b.sw,
        a.n_nonfinite + b.n_nonfinite,
        a.n_notbinary + b.n_notbinary,
    )


def tree_merge(parts: list[Any], merge: Any) -> Any:
    """Merge ``parts`` pairwise, level by level, in their order: a fixed tree,
    so the result does not depend on when each part finishes."""
    if not parts:
        raise ValueError("tree_merge needs at least one part.")
    while len(parts) > 1:
        pairs = [merge(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]
