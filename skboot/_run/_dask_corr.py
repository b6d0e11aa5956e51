"""Pearson's correlation of a dask collection's two columns, data-parallel.

Each partition (rows ``start .. start + m - 1``) reduces its rows to the
count-weighted sums of ``x - s_x``, ``y - s_y``, their squares and their
product, per replicate, about its own centre ``(s_x, s_y)`` (the means of its
finite values, integers for columns of integers) and the least and greatest
raw value of each column over the rows a replicate holds (a replicate whose x
or y values are all equal is undefined exactly, as in memory).  Two partials
merge by moving both to their pooled centre (Chan, Golub & LeVeque 1979):

    S_x' = S_x + W dx,   S_xx' = S_xx + 2 dx S_x + W dx**2,
    S_xy' = S_xy + dy S_x + dx S_y + W dx dy,

``dx = s_x - c_x`` (likewise ``y``), so the rounding error of the sums stays
proportional to the data's spread, not to its offset.  The statistic is
:func:`skboot._engine.corr_from_sums` of the root, as in memory.  One extra
row holds the unit weights: the estimate on the original data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows, corr_from_sums
from skboot._kernels.poisson_rows import column_summary, poisson_rows_corr

__all__ = [
    "CorrSums",
    "corr_graph",
    "corr_partition",
    "corr_values",
    "merge_corr",
]


@dataclass(frozen=True)
class CorrSums:
    """Per-replicate sums of some rows about ``shift`` (2,): ``s`` (B + 1, 6)
    holds the sums of ``x``, ``y``, ``x*x``, ``y*y``, ``x*y`` (centred) and
    the counts' total; ``lo``, ``hi`` (B + 1, 2) the least and greatest raw
    value of each column over the rows of non-zero count (row B: the original
    rows, unit weights)."""

    n: int
    shift: np.ndarray
    integral: np.ndarray
    s: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_nonfinite: int = 0


def _empty(B: int) -> CorrSums:
    return CorrSums(
        0,
        np.zeros(2),
        np.ones(2, dtype=bool),
        np.zeros((B + 1, 6)),
        np.full((B + 1, 2), np.inf),
        np.full((B + 1, 2), -np.inf),
    )


def corr_partition(
    block: Any, start: int, seed: np.uint64, gamma: np.uint64, n_resamples: int
) -> CorrSums:
    """The sums of one partition of (m, 2) rows (runs on a worker)."""
    X = as_float_rows(np.asarray(block))
    m = X.shape[0]
    B = n_resamples
    if m == 0:
        return _empty(B)
    sums = np.empty(2)
    finite = np.empty(2, dtype=np.int64)
    integral = np.empty(2, dtype=np.bool_)
    n_nonfinite, _ = column_summary(X, sums, finite, integral)
    shift = np.where(finite > 0, sums / np.maximum(finite, 1), 0.0)
    shift = np.where(integral, np.round(shift), shift)
    out = _empty(B)
    poisson_rows_corr(
        X, shift, seed, gamma, np.int64(start), out.s[:B], out.lo[:B], out.hi[:B]
    )
    c = X - shift
    with np.errstate(invalid="ignore", over="ignore"):
        out.s[B, :5] = [
            c[:, 0].sum(),
            c[:, 1].sum(),
            (c[:, 0] * c[:, 0]).sum(),
            (c[:, 1] * c[:, 1]).sum(),
            (c[:, 0] * c[:, 1]).sum(),
        ]
        out.s[B, 5] = float(m)
        out.lo[B] = np.fmin(out.lo[B], np.nanmin(X, axis=0, initial=np.inf))
        out.hi[B] = np.fmax(out.hi[B], np.nanmax(X, axis=0, initial=-np.inf))
    return CorrSums(m, shift, integral, out.s, out.lo, out.hi, int(n_nonfinite))


def _moved(p: CorrSums, centre: np.ndarray) -> np.ndarray:
    """``p``'s sums about ``centre`` instead of ``p.shift``."""
    dx, dy = p.shift - centre
    s = p.s.copy()
    sx, sy, w = p.s[:, 0], p.s[:, 1], p.s[:, 5]
    with np.errstate(invalid="ignore"):
        s[:, 0] = sx + w * dx
        s[:, 1] = sy + w * dy
        s[:, 2] = p.s[:, 2] + (2.0 * dx) * sx + w * (dx * dx)
        s[:, 3] = p.s[:, 3] + (2.0 * dy) * sy + w * (dy * dy)
        s[:, 4] = p.s[:, 4] + dy * sx + dx * sy + w * (dx * dy)
    return s


def merge_corr(a: CorrSums, b: CorrSums) -> CorrSums:
    """The sums of the rows of ``a`` and ``b`` about their pooled centre."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    n = a.n + b.n
    integral = a.integral & b.integral
    centre = (a.n * a.shift + b.n * b.shift) / n
    centre = np.where(integral, np.round(centre), centre)
    return CorrSums(
        n,
        centre,
        integral,
        _moved(a, centre) + _moved(b, centre),
        np.fmin(a.lo, b.lo),
        np.fmax(a.hi, b.hi),
        a.n_nonfinite + b.n_nonfinite,
    )


def corr_values(total: CorrSums) -> np.ndarray:
    """Pearson's r of every row of the merged sums, (B + 1, 1): NaN where x
    or y takes one value only on the replicate's rows."""
    s = total.s
    r = corr_from_sums(s[:, 0], s[:, 1], s[:, 2], s[:, 3], s[:, 4], s[:, 5])
    varied = np.all(total.hi > total.lo, axis=1)
    return np.where(varied, r, np.nan)[:, None]


def corr_graph(rows: Any, seed: Any, gamma: Any, B: int, tree_merge: Any) -> Any:
    """The delayed root of the merge tree over the partitions of ``rows``
    (:class:`skboot._run._dask_checks.DaskRows`, two columns)."""
    import dask

    blocks = rows.array.to_delayed().ravel()
    part = dask.delayed(corr_partition, pure=True)
    merge = dask.delayed(merge_corr, pure=True)
    parts = [
        part(blk, start, seed, gamma, B)
        for blk, start in zip(blocks, rows.starts, strict=True)
    ]
    return tree_merge(parts, merge)
