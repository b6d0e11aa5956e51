"""The two kinds of pass over the partitions behind the data-parallel median and
quantiles (:mod:`skboot._run._dask_quantile`).

* A **sketch** pass (no replicates): per window ``(column, a, b)`` each partition
  returns how many of its values are ``<= a``, how many lie strictly inside
  ``(a, b)``, and the inside values at up to ``size`` evenly spaced local ranks
  (the least and the greatest included) with those ranks.  Merged, they bound
  the global count of values below (or up to) any sample value from both sides:
  a partition whose sample values ``s_0 <= s_1 <= ...`` sit at local ranks
  ``r_0 < r_1 < ...`` holds between ``r_{K-1} + 1`` and ``r_K`` values below
  ``v`` when ``K`` of its sample values are below ``v``.  The error of either
  bound is at most the sum of the partitions' rank gaps, about ``n / size``.
* A **bracket** pass (the replicates): per group ``(column, lo, hi)`` each
  partition returns, for every replicate, the Poisson-count-weighted numbers of
  its rows below ``lo``, equal to ``lo`` and equal to ``hi`` (the fused kernel of
  the mean, :func:`skboot._kernels.poisson_rows.poisson_rows_moments`, on 0/1
  indicator columns, a few thousand rows at a time: exact integer sums), the
  replicates' sizes, and its rows strictly inside ``(lo, hi)`` (values and
  global row numbers, the same for every replicate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows
from skboot._kernels.poisson_quantile import bracket_indicators
from skboot._kernels.poisson_rows import poisson_rows_moments

__all__ = [
    "BracketSums",
    "RankBounds",
    "bracket_partition",
    "merge_brackets",
    "sketch_partition",
]

#: rows per call of the fused kernel in a bracket pass (the indicator block,
#: rows x 3 groups float64, stays small)
BLOCK_ROWS = 1 << 14


def sketch_partition(block: Any, windows: tuple, size: int) -> tuple:
    """The sketch of one partition for each window ``(col, a, b)``: ``(le_a,
    inside, values, ranks)``; and the number of non-finite values."""
    X = as_float_rows(np.asarray(block))
    bad = int(X.size - np.count_nonzero(np.isfinite(X)))
    out = []
    for col, a, b in windows:
        x = X[:, col]
        le_a = int(np.count_nonzero(x <= a))
        inside = np.sort(x[(x > a) & (x < b)])
        cnt = inside.shape[0]
        if cnt == 0:
            ranks = np.empty(0, dtype=np.int64)
        else:
            k = min(size, cnt)
            ranks = np.unique(np.round(np.linspace(0, cnt - 1, k)).astype(np.int64))
        out.append((le_a, cnt, inside[ranks], ranks))
    return tuple(out), bad


class RankBounds:
    """Bounds on the global rank of values inside one window ``(a, b)``, from
    the partitions' sketches of that window (``sketches``: one ``(le_a, inside,
    values, ranks)`` per partition)."""

    def __init__(self, a: float, b: float, sketches: list[tuple]) -> None:
        self.a = a
        self.b = b
        self.base = int(sum(s[0] for s in sketches))
        self.parts = [(s[2], s[3], s[1]) for s in sketches if s[1] > 0]
        vals = [p[0] for p in self.parts]
        self.candidates = np.unique(np.concatenate(vals)) if vals else np.empty(0)

    def hi_lt(self, v: float) -> int:
        """An upper bound on the number of values ``< v`` (``a < v < b``)."""
        total = self.base
        for s, r, cnt in self.parts:
            k = int(np.searchsorted(s, v, side="left"))
            total += int(r[k]) if k < s.shape[0] else cnt
        return total

    def lo_le(self, v: float) -> int:
        """A lower bound on the number of values ``<= v`` (``a < v < b``)."""
        total = self.base
        for s, r, _ in self.parts:
            k = int(np.searchsorted(s, v, side="right"))
            total += int(r[k - 1]) + 1 if k > 0 else 0
        return total

    def covers(self, v: float) -> bool:
        return bool(self.a < v < self.b)

    def lower(self, rank: int) -> float | None:
        """The greatest candidate with at most ``rank`` values below it (so
        the value of that rank is not below it), or None."""
        c = self.candidates
        lo, hi = 0, c.shape[0]  # invariant: answer index < hi
        if hi == 0 or self.hi_lt(c[0]) > rank:
            return None
        lo = 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.hi_lt(c[mid]) <= rank:
                lo = mid
            else:
                hi = mid
        return float(c[lo])

    def upper(self, rank: int) -> float | None:
        """The least candidate with more than ``rank`` values up to it (so the
        value of that rank is not above it), or None."""
        c = self.candidates
        n = c.shape[0]
        if n == 0 or self.lo_le(c[n - 1]) <= rank:
            return None
        lo, hi = -1, n - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.lo_le(c[mid]) > rank:
                hi = mid
            else:
                lo = mid
        return float(c[hi])


@dataclass(frozen=True)
class BracketSums:
    """A bracket pass's sums over some rows: ``counts`` (nr + 1, 3G) the
    weighted numbers below ``lo``, at ``lo`` and at ``hi`` per replicate of
    ``reps`` (last row: the original rows, each once), ``sw`` (nr + 1,) the
    replicates' sizes, ``inside[g]``: (values, global rows) strictly inside
    group ``g``'s bracket, in row order."""

    counts: np.ndarray
    sw: np.ndarray
    inside: tuple


def _runs(reps: np.ndarray) -> list[tuple[int, int, int]]:
    """Runs of consecutive replicates: ``(position, first replicate, length)``."""
    if reps.shape[0] == 0:
        return []
    cut = np.flatnonzero(np.diff(reps) != 1) + 1
    starts = np.concatenate([[0], cut])
    ends = np.concatenate([cut, [reps.shape[0]]])
    return [
        (int(s), int(reps[s]), int(e - s)) for s, e in zip(starts, ends, strict=True)
    ]


def bracket_partition(
    block: Any,
    start: int,
    groups: tuple[np.ndarray, np.ndarray, np.ndarray],
    seed: np.uint64,
    gamma: np.uint64,
    reps: np.ndarray,
) -> BracketSums:
    """The bracket sums of one partition (rows ``start ..``) for the groups
    ``(cols, lo, hi)`` and the replicates ``reps`` (ascending)."""
    X = as_float_rows(np.asarray(block))
    cols, lo, hi = groups
    m = X.shape[0]
    G = cols.shape[0]
    nr = reps.shape[0]
    counts = np.zeros((nr + 1, 3 * G))
    sw = np.zeros(nr + 1)
    ind = np.empty((min(BLOCK_ROWS, max(m, 1)), 3 * G))
    zero = np.zeros(3 * G)
    obs1 = np.empty(3 * G)
    obs2 = np.empty(3 * G)
    runs = _runs(reps)
    for i0 in range(0, m, BLOCK_ROWS):
        c = min(BLOCK_ROWS, m - i0)
        bracket_indicators(X, cols, lo, hi, i0, c, ind)
        rows = ind[:c]
        for pos, b0, length in runs:
            s1 = np.empty((length, 3 * G))
            s2 = np.empty((length, 3 * G))
            w = np.empty(length)
            poisson_rows_moments(
                rows,
                zero,
                seed,
                gamma,
                np.int64(b0),
                np.int64(start + i0),
                False,
                s1,
                s2,
                w,
                obs1,
                obs2,
            )
            counts[pos : pos + length] += s1
            sw[pos : pos + length] += w
        counts[nr] += rows.sum(axis=0)
    sw[nr] = float(m)
    inside = []
    for g in range(G):
        x = X[:, cols[g]]
        where = np.flatnonzero((x > lo[g]) & (x < hi[g]))
        inside.append((x[where], where.astype(np.int64) + start))
    return BracketSums(counts, sw, tuple(inside))


def merge_brackets(a: BracketSums, b: BracketSums) -> BracketSums:
    """The bracket sums of the rows of ``a`` and then ``b`` (exact: counts)."""
    inside = tuple(
        (np.concatenate([va, vb]), np.concatenate([ra, rb]))
        for (va, ra), (vb, rb) in zip(a.inside, b.inside, strict=True)
    )
    return BracketSums(a.counts + b.counts, a.sw + b.sw, inside)
