"""Order statistics of the Poisson bootstrap from a bracket: the data-parallel
median and quantiles.

A replicate's order statistic at rank ``r`` (0-based, in the multiset where row
``i`` appears ``c_i`` times, rows sorted by value) lies in a value bracket
``[lo, hi]`` when the replicate's count of rows below ``lo`` is at most ``r`` and
its count of rows up to ``hi`` exceeds ``r``.  Given those counts (``below``,
``at_lo``, ``at_hi``: counted where the rows live) and the few rows strictly
inside the bracket (their values sorted, with their global row numbers), the
order statistic is found by walking the inside rows in order and drawing each
one's count from the stream (a pure function of the replicate and the global
row, :func:`skboot._kernels.poisson_rows.poisson_row_counts`), without the
other rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.fused_weights import _poisson_tile_row, poisson_thresholds
from skboot._kernels.iid import lerp
from skboot._random import replicate_counter

__all__ = ["bracket_indicators", "bracket_order_stats", "lerp_rows"]


@njit(cache=True, nogil=True)
def bracket_indicators(X, cols, lo, hi, i0, c, out):
    """``out[t, 3g]``, ``out[t, 3g + 1]``, ``out[t, 3g + 2]``: whether row
    ``i0 + t`` of column ``cols[g]`` is below ``lo[g]``, equal to ``lo[g]``, and
    equal to ``hi[g]`` when ``hi[g] > lo[g]`` (1.0 or 0.0), for ``t < c``."""
    G = cols.shape[0]
    for t in range(c):
        for g in range(G):
            v = X[i0 + t, cols[g]]
            out[t, 3 * g] = 1.0 if v < lo[g] else 0.0
            out[t, 3 * g + 1] = 1.0 if v == lo[g] else 0.0
            out[t, 3 * g + 2] = 1.0 if (v == hi[g] and hi[g] > lo[g]) else 0.0


@njit(cache=True, nogil=True)
def bracket_order_stats(
    vals, rows, lo, hi, seed, gamma, reps, below, at_lo, at_hi, targets, out, status
):
    """Order statistics of replicates from one bracket ``[lo, hi]``.

    ``vals`` (w,): the values strictly inside the bracket, ascending; ``rows``:
    their global rows.  For each ``k``: replicate ``reps[k]`` (the original rows,
    each counted once, when ``reps[k] < 0``), whose counts of rows below ``lo``,
    equal to ``lo`` and equal to ``hi`` (``hi > lo``) are ``below[k]``,
    ``at_lo[k]``, ``at_hi[k]``; ``targets[k]`` ascending ranks.  Writes the
    values at those ranks into ``out[k]`` and ``status[k]``: 0, or -1 (a rank
    below the bracket) or 1 (a rank above it; ``out[k]`` is then incomplete).
    """
    T = poisson_thresholds()
    w1 = np.empty(1)
    nt = targets.shape[1]
    W = vals.shape[0]
    for k in range(reps.shape[0]):
        b = reps[k]
        cum = below[k]
        status[k] = 0
        if targets[k, 0] < cum:
            status[k] = -1
            continue
        j = 0
        cum += at_lo[k]
        while j < nt and targets[k, j] < cum:
            out[k, j] = lo
            j += 1
        i = 0
        while j < nt and i < W:
            if b < 0:
                cum += 1
            else:
                base = replicate_counter(b) + np.uint64(rows[i])
                cum += np.int64(_poisson_tile_row(seed, gamma, base, 1, T, w1))
            while j < nt and targets[k, j] < cum:
                out[k, j] = vals[i]
                j += 1
            i += 1
        if j < nt:
            cum += at_hi[k]
            while j < nt and targets[k, j] < cum:
                out[k, j] = hi
                j += 1
        if j < nt:
            status[k] = 1


@njit(cache=True, nogil=True)
def lerp_rows(a, b, t, out):
    """``out[i, j] = lerp(a[i, j], b[i, j], t[i, j])``: numpy's quantile
    interpolation, as the in-memory weighted quantiles compute it."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = lerp(a[i, j], b[i, j], t[i, j])
