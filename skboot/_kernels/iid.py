"""Fused iid kernels: draw a replicate's indices block by block and reduce, with no
index array; and the row gathers that feed callables.

Replicate ``b`` of the iid bootstrap is generated block by block
(:func:`skboot._random.draw_block`, a 128-entry scratch buffer) and reduced on the
fly: the B x n index tensor never exists, not even one replicate's row.  Sums over
draws use eight accumulators indexed by draw position modulo 8, combined pairwise,
so a value depends only on the replicate: results are bit-identical for any chunk
size, ``n_jobs`` or backend.  Kernels release the GIL.

The engine gives the moment kernels centred data ``x - c``
(:func:`skboot._engine.centre_of`) and adds ``w * c`` back to their sums, so the
rounding error of a sum follows the spread of the data, not its offset.

The kernels that draw block by block live in
:mod:`skboot._kernels._generated_iid`, expanded from
``tools/kernel_templates/iid.py.in``: their block-draw loop is written once, as
the ``draw_blocks`` macro of ``tools/generate_kernels.py`` (it must be inline in
each kernel; see that script), and re-exported here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels._generated_iid import (
    gather_iid_rows,
    iid_corr,
    iid_moments,
    iid_moments_tiled,
    iid_sum_1d,
    iid_sumsq_1d,
)
from skboot._random import FAST_BLOCK, count_row, lemire_threshold

__all__ = [
    "gather_iid_rows",
    "iid_corr",
    "iid_moments",
    "iid_moments_tiled",
    "iid_order_stats",
    "iid_sum_1d",
    "iid_sumsq_1d",
    "lerp",
    "order_stats_from_counts",
    "take_rows",
]


@njit(cache=True)
def lerp(a, b, t):
    """numpy's ``_lerp`` (quantile method "linear"), bit for bit."""
    diff = b - a
    if t >= 0.5:
        return b - diff * (1.0 - t)
    return a + diff * t


@njit(cache=True)
def order_stats_from_counts(cnt, vals, order, positions, out_vals):
    """Given multiplicities ``cnt`` over sorted values, fill the order statistics at
    ascending 0-based ``positions`` (values ``vals[order[j]]``)."""
    j = 0
    cum = cnt[order[0]] if order.shape[0] > 0 else 0.0
    for p in range(positions.shape[0]):
        target = positions[p]
        while cum <= target:
            j += 1
            cum += cnt[order[j]]
        out_vals[p] = vals[order[j]]


@njit(cache=True, nogil=True)
def iid_order_stats(X, order, seed, gamma, b0, m, positions, out):
    """Per replicate and column: order statistics at ``positions`` of the drawn rows.

    ``X`` (n, d) float64; ``order`` (d, n) int64 with ``X[order[c], c]`` ascending;
    ``positions`` ascending int64 in ``[0, m)``; ``out`` (nb, d, len(positions)).
    The count array is indexed by row; the scan walks rows in sorted order.
    """
    n = X.shape[0]
    d = X.shape[1]
    un = np.uint64(n)
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    cnt = np.zeros(n, dtype=np.float64)
    fpos = positions.astype(np.float64)
    tmp = np.empty(positions.shape[0])
    for k in range(out.shape[0]):
        count_row(seed, gamma, b0 + k, un, thresh, m, buf, cnt)
        for col in range(d):
            order_stats_from_counts(cnt, X[:, col], order[col], fpos, tmp)
            for p in range(positions.shape[0]):
                out[k, col, p] = tmp[p]


# ---------------------------------------------------------------------------
# replicate rows for callables (the statistic needs the values, not a sum)
# ---------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def take_rows(a, idx, out):
    """``out[k] = a[idx[k]]`` for (n, d) ``a``, (nb, m) ``idx`` and (nb, m, d)
    ``out`` (C-contiguous float64): ``np.take`` for a chunk of replicates in one
    call, without numpy's per-call and per-element overhead."""
    n = a.shape[0]
    d = a.shape[1]
    nb = idx.shape[0]
    m = idx.shape[1]
    ud = np.uint64(d)
    af = a.reshape(n * d)
    of = out.reshape(nb * m * d)
    pos = np.uint64(0)
    for k in range(nb):
        row = idx[k]
        if d == 1:
            for t in range(m):
                of[pos + np.uint64(t)] = af[np.uint64(row[t])]
        else:
            for t in range(m):
                src = np.uint64(row[t]) * ud
                dst = pos + np.uint64(t) * ud
                for j in range(d):
                    of[dst + np.uint64(j)] = af[src + np.uint64(j)]
        pos += np.uint64(m) * ud
