"""The double bootstrap of the calibrated intervals, fused for the moment
statistics ("sum", "mean", "proportion", "var", "std").

For each outer replicate ``b`` the kernel regenerates its rows (the iid draws of
the run, purpose "indices"), then draws ``n_inner`` inner replicates from those
rows (purpose "calibration", replicate number ``b * n_inner + c``) and counts, per
column, how many inner values ``t**`` satisfy ``t** <= t_hat`` and ``t** - t*_b
<= t*_b - t_hat``.  Nothing of size ``n_resamples x n_inner`` exists: the working
set is one outer replicate's rows and one index row.

Every value (the estimate, the outer and the inner replicates) is computed from
sums of the centred data by the same arithmetic as the engine's fused moments
(:func:`skboot._engine.moments_to_values`), so equal samples give equal values
and ties on integer data are exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random import (
    FAST_BLOCK,
    fill_row_buffered,
    lemire_threshold,
)

__all__ = ["MOMENT_KINDS", "calibration_counts", "moment_value"]

#: The statistic codes of :func:`moment_value`.
MOMENT_KINDS = {"sum": 0, "mean": 1, "proportion": 1, "var": 2, "std": 3}


@njit(cache=True, inline="always")
def moment_value(kind, s1, s2, m, shift, ddof):
    """The statistic of ``m`` rows from the sums ``s1``, ``s2`` of the centred
    values and their squares (the engine's formula, see the module notes)."""
    if kind == 0:
        return s1 + m * shift
    if kind == 1:
        return (s1 + m * shift) / m
    var = max((s2 - s1 * s1 / m) / (m - ddof), 0.0)
    if kind == 2:
        return var
    return np.sqrt(var)


@njit(cache=True, nogil=True)
def _column_sums(rows, idx, j):
    s1 = 0.0
    s2 = 0.0
    for i in range(idx.shape[0]):
        v = rows[idx[i], j]
        s1 += v
        s2 += v * v
    return s1, s2


@njit(cache=True, nogil=True)
def calibration_counts(
    X, shift, kind, ddof, seed, gamma, seed_in, gamma_in, b0, n_inner, cu, cv
):
    """Counts of the outer replicates ``b0 .. b0 + len(cu) - 1``.

    ``X`` holds the centred rows (n, d); row ``r`` of ``cu``/``cv`` (int64, (nb,
    d)) receives replicate ``b0 + r``'s counts of ``t** <= t_hat`` and of
    ``t** - t*_b <= t*_b - t_hat`` over its ``n_inner`` inner replicates.
    """
    n, d = X.shape
    m = float(n)
    all_rows = np.arange(n)
    est = np.empty(d)
    for j in range(d):
        s1, s2 = _column_sums(X, all_rows, j)
        est[j] = moment_value(kind, s1, s2, m, shift[j], ddof)
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    outer = np.empty(n, dtype=np.int64)
    inner = np.empty(n, dtype=np.int64)
    rows = np.empty((n, d))
    star = np.empty(d)
    for r in range(cu.shape[0]):
        b = b0 + r
        fill_row_buffered(seed, gamma, np.uint64(b), un, thresh, buf, outer)
        for i in range(n):
            for j in range(d):
                rows[i, j] = X[outer[i], j]
        for j in range(d):
            s1, s2 = _column_sums(rows, all_rows, j)
            star[j] = moment_value(kind, s1, s2, m, shift[j], ddof)
            cu[r, j] = 0
            cv[r, j] = 0
        for c in range(n_inner):
            t = np.uint64(b) * np.uint64(n_inner) + np.uint64(c)
            fill_row_buffered(seed_in, gamma_in, t, un, thresh, buf, inner)
            for j in range(d):
                s1, s2 = _column_sums(rows, inner, j)
                value = moment_value(kind, s1, s2, m, shift[j], ddof)
                if value <= est[j]:
                    cu[r, j] += 1
                if value - star[j] <= star[j] - est[j]:
                    cv[r, j] += 1
