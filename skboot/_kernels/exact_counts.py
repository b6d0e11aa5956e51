"""Per-row counts of a chunk of replicates, and the metric sums of one partition
weighted by such counts: the exact (iid, stratified) and hashed-group schemes of
the data-parallel metrics.

The counts are those of :mod:`skboot._kernels.exact_rows`
(:func:`~skboot._kernels.exact_rows.stratum_row_counts` for the exact schemes,
:func:`~skboot._kernels.exact_rows.group_poisson_counts` for hashed groups),
written for ``c`` replicates at a time into a ``(c, m)`` int32 block, ``c``
chosen by the caller so that the block stays a few MB: nothing of size B x m
is allocated.  The sums are those of the Poisson kernels of
:mod:`skboot._kernels.poisson_metric_rows` and
:mod:`skboot._kernels.poisson_rows` with these counts in place of the Poisson
counts drawn by global row number.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.exact_rows import group_poisson_counts, stratum_row_counts
from skboot._kernels.poisson_metric_rows import _group_sums, _precision_sum

__all__ = [
    "counted_bin_sums",
    "counted_precision_sums",
    "counted_rank_sums",
    "counted_rows_sums",
    "exact_count_chunk",
    "group_count_chunk",
]


@njit(cache=True, nogil=True)
def exact_count_chunk(
    seeds, gamma, k0, draws, pool, offsets, sizes, buf, tmp, cnt, out
):
    """``out[r, i]`` (int32, (c, m)): the count of the partition's row ``i`` in
    replicate ``k0 + r``, drawn by :func:`stratum_row_counts` (arguments as
    there; ``draws`` (B, S) the partition's draws of every replicate; ``cnt``:
    float64 scratch of m)."""
    for r in range(out.shape[0]):
        k = k0 + r
        stratum_row_counts(
            seeds, gamma, np.uint64(k), draws[k], pool, offsets, sizes, buf, tmp, cnt
        )
        for i in range(out.shape[1]):
            out[r, i] = np.int32(cnt[i])


@njit(cache=True, nogil=True)
def group_count_chunk(seed, gamma, k0, hashes, cnt, out):
    """``out[r, i]``: the hashed-group Poisson count of row ``i`` (its group's
    hash ``hashes[i]``) in replicate ``k0 + r`` (:func:`group_poisson_counts`)."""
    for r in range(out.shape[0]):
        group_poisson_counts(seed, gamma, np.uint64(k0 + r), hashes, cnt)
        for i in range(out.shape[1]):
            out[r, i] = np.int32(cnt[i])


@njit(cache=True, nogil=True)
def counted_bin_sums(bins, weights, counts, k0, out):
    """``out[k0 + r, k]``: the sum of ``counts[r] * weights`` over the rows
    whose bin is ``k`` (a cell of a confusion matrix)."""
    for r in range(counts.shape[0]):
        row = out[k0 + r]
        row[:] = 0.0
        for t in range(bins.shape[0]):
            c = counts[r, t]
            if c != 0:
                row[bins[t]] += c * weights[t]


@njit(cache=True, nogil=True)
def counted_rows_sums(X, y, counts, k0, out, lo, hi):
    """:func:`skboot._kernels.poisson_rows.poisson_rows_sums` with the counts
    of replicate ``k0 + r`` in ``counts[r]``: ``out[k0 + r, j] = sum_t c_t X[t,
    j]``, ``out[k0 + r, q] = sum_t c_t``; ``lo``, ``hi``: the least and
    greatest ``y`` of the rows of non-zero count.  Sums in row order."""
    m, q = X.shape
    acc = np.empty(q + 1)
    for r in range(counts.shape[0]):
        k = k0 + r
        acc[:] = 0.0
        for t in range(m):
            c = counts[r, t]
            if c != 0:
                wi = np.float64(c)
                v = y[t]
                if v < lo[k]:
                    lo[k] = v
                if v > hi[k]:
                    hi[k] = v
                for j in range(q):
                    acc[j] += wi * X[t, j]
                acc[q] += wi
        for j in range(q + 1):
            out[k, j] = acc[j]


@njit(cache=True, nogil=True)
def counted_rank_sums(labels, weights, counts, gstarts, k0, out):
    """``out[k0 + r]`` (7,): the rank sums of the rows sorted by score, each
    weighted by ``counts[r] * weights`` (the columns of
    :func:`skboot._kernels.poisson_metric_rows.poisson_rank_sums`)."""
    c = np.empty(labels.shape[0])
    for r in range(counts.shape[0]):
        for t in range(c.shape[0]):
            c[t] = counts[r, t]
        out[k0 + r, :] = 0.0
        _group_sums(labels, weights, c, gstarts, out[k0 + r])


@njit(cache=True, nogil=True)
def counted_precision_sums(labels, weights, counts, gstarts, k0, above, tie, out):
    """``out[k0 + r]``: the partition's share of replicate ``k0 + r``'s average
    precision numerator (:func:`poisson_precision_sums` with ``counts[r]``)."""
    c = np.empty(labels.shape[0])
    for r in range(counts.shape[0]):
        k = k0 + r
        for t in range(c.shape[0]):
            c[t] = counts[r, t]
        out[k] = _precision_sum(
            labels, weights, c, gstarts, above[0, k], above[1, k], tie[0, k], tie[1, k]
        )
