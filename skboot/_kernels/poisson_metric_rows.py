"""Poisson-bootstrap sums of one partition of rows for the metrics that are not
plain means: the rank sums of the exact ROC AUC (:func:`poisson_rank_sums`)
and the weighted confusion matrices of the label metrics
(:func:`poisson_bin_sums`).

The rows of a partition arrive sorted by increasing score (ties adjacent), each
with its label (1.0 for the positive class), its sample weight and its *original*
global row number ``r``.  Row ``r``'s count in replicate ``b`` is SplitMix64
output ``b * 2**32 + r`` inverted against the Poisson(1) CDF, drawn by the
helper of :mod:`skboot._kernels.fused_weights` that every Poisson kernel uses,
so a row keeps the count it has in the in-memory run wherever the sort put it.

Per replicate the kernel returns the partition's share of the Mann-Whitney
statistic (the weighted number of (positive, negative) pairs with the positive
scored higher, ties counting one half), its positive and negative weight, and
the positive and negative weight of its first and last group of tied scores:
what :func:`skboot.metrics._dask_rank.merge_ranks` needs to join two adjacent
partitions exactly, a group of ties cut by a partition boundary included.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.fused_weights import _poisson_tile_row, poisson_thresholds
from skboot._kernels.poisson_rows import TILE
from skboot._random import replicate_counter

__all__ = [
    "RANK_COLUMNS",
    "poisson_bin_sums",
    "poisson_precision_sums",
    "poisson_rank_sums",
]

#: The columns of :func:`poisson_rank_sums`'s output.
RANK_COLUMNS = ("area", "pos", "neg", "first_pos", "first_neg", "last_pos", "last_neg")


@njit(cache=True, nogil=True, inline="always")
def _group_weights(labels, weights, counts, start, stop):
    """The positive and negative weight (``counts * weights``) of the rows
    ``start .. stop - 1``: one group of tied scores."""
    pos = 0.0
    neg = 0.0
    for t in range(start, stop):
        if labels[t] > 0.0:
            pos += counts[t] * weights[t]
        else:
            neg += counts[t] * weights[t]
    return pos, neg


@njit(cache=True, nogil=True)
def _group_sums(labels, weights, counts, gstarts, out):
    """``out`` (7,): the rank sums of rows with weights ``counts * weights``."""
    below = 0.0
    pos_total = 0.0
    area = 0.0
    ng = gstarts.shape[0] - 1
    for g in range(ng):
        pos, neg = _group_weights(labels, weights, counts, gstarts[g], gstarts[g + 1])
        area += pos * (below + 0.5 * neg)
        below += neg
        pos_total += pos
        if g == 0:
            out[3] = pos
            out[4] = neg
        if g == ng - 1:
            out[5] = pos
            out[6] = neg
    out[0] = area
    out[1] = pos_total
    out[2] = below


@njit(cache=True, nogil=True)
def poisson_rank_sums(labels, weights, rows, gstarts, seed, gamma, out):
    """``out[b]`` (``b < B``, ``out`` of shape (B + 1, 7)): the rank sums of
    replicate ``b`` (columns :data:`RANK_COLUMNS`), each row weighted by its
    Poisson count times ``weights``; ``out[B]``: the same with counts 1 (the
    original rows).

    ``labels`` (1.0 positive, 0.0 negative) and ``weights`` are float64 in
    order of increasing score, ``rows`` the int64 global row numbers (each
    below ``2**32``), ``gstarts`` the starts of the groups of tied scores
    followed by the row count.  O(B * m) draws, nothing of size B * m
    allocated.
    """
    m = labels.shape[0]
    B = out.shape[0] - 1
    T = poisson_thresholds()
    counts = np.ones(m)
    one = np.empty(1)
    out[:, :] = 0.0
    if m == 0:
        return
    _group_sums(labels, weights, counts, gstarts, out[B])
    for b in range(B):
        _row_counts(seed, gamma, b, rows, T, one, counts)
        _group_sums(labels, weights, counts, gstarts, out[b])


@njit(cache=True, nogil=True)
def _row_counts(seed, gamma, b, rows, T, one, counts):
    """``counts[t]``: the Poisson count of global row ``rows[t]`` in replicate
    ``b`` (``one``: a scratch of one float)."""
    base = replicate_counter(b)
    for t in range(rows.shape[0]):
        _poisson_tile_row(seed, gamma, base + np.uint64(rows[t]), 1, T, one)
        counts[t] = one[0]


@njit(cache=True, nogil=True)
def _precision_sum(labels, weights, counts, gstarts, tp, fp, tie_pos, tie_neg):
    """Sum over the groups of tied scores, highest first, of ``pos_g *
    precision_g``, the precision counting the rows scored at least as high
    (``tp``, ``fp``: the weights scored above the partition; ``tie_pos``,
    ``tie_neg``: those of earlier partitions tied with its first group)."""
    acc = 0.0
    for g in range(gstarts.shape[0] - 2, -1, -1):
        pos, neg = _group_weights(labels, weights, counts, gstarts[g], gstarts[g + 1])
        tp += pos
        fp += neg
        if pos > 0.0:
            if g == 0:
                acc += pos * ((tp + tie_pos) / ((tp + tie_pos) + (fp + tie_neg)))
            else:
                acc += pos * (tp / (tp + fp))
    return acc


@njit(cache=True, nogil=True)
def poisson_precision_sums(
    labels, weights, rows, gstarts, seed, gamma, above, tie, out
):
    """``out[b]``: the partition's share of replicate ``b``'s average precision
    numerator, ``sum_g pos_g * precision_g`` over its groups of tied scores
    (``out[B]``: the original rows); arguments as :func:`poisson_rank_sums`,
    plus ``above`` (2, B + 1): the positive and negative weights of the rows
    of later (higher-scored) partitions, and ``tie`` (2, B + 1): those of
    earlier partitions' rows tied with this one's first score.
    """
    m = labels.shape[0]
    B = out.shape[0] - 1
    T = poisson_thresholds()
    counts = np.ones(m)
    one = np.empty(1)
    out[:] = 0.0
    if m == 0:
        return
    out[B] = _precision_sum(
        labels, weights, counts, gstarts, above[0, B], above[1, B], tie[0, B], tie[1, B]
    )
    for b in range(B):
        _row_counts(seed, gamma, b, rows, T, one, counts)
        out[b] = _precision_sum(
            labels,
            weights,
            counts,
            gstarts,
            above[0, b],
            above[1, b],
            tie[0, b],
            tie[1, b],
        )


@njit(cache=True, nogil=True)
def poisson_bin_sums(bins, weights, row0, seed, gamma, out):
    """``out[b, k]`` (``b < B``, ``out`` of shape (B + 1, n_bins)): the sum of
    the Poisson counts of replicate ``b`` times ``weights`` over the rows whose
    bin is ``k`` (a cell of a confusion matrix), the rows holding the global
    numbers ``row0 .. row0 + m - 1``; ``out[B]``: the same with counts 1.

    Counts are drawn a tile of rows at a time as the other Poisson kernels
    draw them; sums of integer weights are exact.  O(B * m), nothing of size
    m allocated beyond one tile.
    """
    m = bins.shape[0]
    B = out.shape[0] - 1
    T = poisson_thresholds()
    w = np.empty(TILE)
    out[:, :] = 0.0
    for t in range(m):
        out[B, bins[t]] += weights[t]
    for b in range(B):
        base = replicate_counter(b)
        for i0 in range(0, m, TILE):
            c = min(TILE, m - i0)
            _poisson_tile_row(seed, gamma, base + np.uint64(row0 + i0), c, T, w)
            for t in range(c):
                out[b, bins[i0 + t]] += w[t] * weights[i0 + t]
