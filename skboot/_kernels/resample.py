"""Per-scheme chunk fills of the index resamplers (numba): counts, stratified and group
indices, Poisson counts and Dirichlet weights for a chunk of replicates, each row a
pure function of (key, b) through :mod:`skboot._random`."""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.fused_strata import pool_positions, slot_meta
from skboot._random import (
    FAST_BLOCK,
    count_row,
    fill_dirichlet_weights,
    fill_indices_kernel,
    fill_poisson_counts,
    lemire_threshold,
    pool_thresholds,
)

__all__ = [
    "dirichlet_chunk",
    "expand_groups",
    "group_counts_chunk",
    "iid_counts_chunk",
    "poisson_counts_chunk",
    "pool_counts_chunk",
    "pool_indices_chunk",
]


@njit(cache=True, nogil=True)
def iid_counts_chunk(seed, gamma, b0, n, m, out):
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    for k in range(out.shape[0]):
        count_row(seed, gamma, b0 + k, un, thresh, m, buf, out[k])


@njit(cache=True, nogil=True)
def pool_counts_chunk(seed, gamma, b0, codes, pools, offsets, sizes, out):
    """Row ``k`` of ``out`` (float64, (nb, n)): how many slots of stratified
    replicate ``b0 + k`` drew each row (the rows of
    :func:`skboot._random.fill_pool_indices`, drawn by
    :func:`skboot._kernels.fused_strata.pool_positions`)."""
    pos = np.empty(codes.shape[0], dtype=np.int64)
    ths, usize, first, fast = _pool_tables(codes, offsets, sizes)
    for k in range(out.shape[0]):
        pool_positions(
            seed, gamma, b0 + k, codes, offsets, sizes, ths, usize, first, fast, pos
        )
        row = out[k]
        row[:] = 0.0
        for t in range(pos.shape[0]):
            row[pools[pos[t]]] += 1.0


@njit(cache=True, nogil=True)
def pool_indices_chunk(seed, gamma, b0, codes, pools, offsets, sizes, out):
    """Row ``k`` of ``out`` (int64, (nb, n)): the rows
    :func:`skboot._random.fill_pool_indices` draws for replicate ``b0 + k``."""
    pos = np.empty(codes.shape[0], dtype=np.int64)
    ths, usize, first, fast = _pool_tables(codes, offsets, sizes)
    for k in range(out.shape[0]):
        pool_positions(
            seed, gamma, b0 + k, codes, offsets, sizes, ths, usize, first, fast, pos
        )
        row = out[k]
        for t in range(pos.shape[0]):
            row[t] = pools[pos[t]]


@njit(cache=True, nogil=True, inline="always")
def _pool_tables(codes, offsets, sizes):
    """The per-stratum thresholds and per-slot tables of
    :func:`~skboot._kernels.fused_strata.pool_positions`, built once a chunk."""
    n = codes.shape[0]
    usize = np.empty(n, dtype=np.uint32)
    first = np.empty(n, dtype=np.int32)
    fast = slot_meta(codes, offsets, sizes, usize, first)
    return pool_thresholds(sizes), usize, first, fast


@njit(cache=True, nogil=True)
def group_counts_chunk(seed, gamma, b0, n_groups, codes, out):
    draws = np.empty(n_groups, dtype=np.int64)
    gcount = np.empty(n_groups, dtype=np.float64)
    for k in range(out.shape[0]):
        fill_indices_kernel(seed, gamma, np.uint64(b0 + k), np.uint64(n_groups), draws)
        gcount[:] = 0.0
        for t in range(n_groups):
            gcount[draws[t]] += 1.0
        row = out[k]
        for i in range(codes.shape[0]):
            row[i] = gcount[codes[i]]


@njit(cache=True, nogil=True)
def expand_groups(draws, pools, offsets, sizes):
    total = 0
    for t in range(draws.shape[0]):
        total += sizes[draws[t]]
    out = np.empty(total, dtype=np.int64)
    pos = 0
    for t in range(draws.shape[0]):
        g = draws[t]
        for r in range(sizes[g]):
            out[pos] = pools[offsets[g] + r]
            pos += 1
    return out


@njit(cache=True, nogil=True)
def poisson_counts_chunk(seed, gamma, b0, out):
    cnt = np.empty(out.shape[1], dtype=np.int64)
    for k in range(out.shape[0]):
        fill_poisson_counts(seed, gamma, b0 + k, cnt)
        row = out[k]
        for i in range(cnt.shape[0]):
            row[i] = cnt[i]


@njit(cache=True, nogil=True)
def dirichlet_chunk(seed, gamma, b0, out):
    for k in range(out.shape[0]):
        fill_dirichlet_weights(seed, gamma, b0 + k, out[k])
