"""Numba kernel of the multiway (two-way, ...) wild cluster bootstrap with
eight replicates side by side (numba code only).

:func:`wcb_multi_lanes` computes what
:func:`skboot._kernels.model_based.wcb_multi_chunk` computes, bit for bit: each
replicate is one vector lane (:mod:`skboot._kernels.simd`) and performs the
scalar kernel's multiplications and additions in the scalar kernel's order
(no reassociation, no fused multiply-add), so the lane count and the chunk
never change a value.  The gain is that the O((G + H) k) sums of a replicate,
latency-bound chains of scalar additions, run eight at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.model_based import fill_wild_weights
from skboot._kernels.simd import lanes8_indexed, lanes8_rows

__all__ = ["LANES", "cell_order", "wcb_multi_lanes"]

#: Replicates computed side by side (one vector lane each).
LANES = 8


@njit(cache=True, nogil=True)
def cell_order(cell_var, H):
    """The cells of every variance cluster in the scalar kernel's order of
    addition: ``order[start[h]:start[h + 1]]`` lists the cells ``c`` with
    ``cell_var[t, c] == h`` in increasing ``(t, c)`` order."""
    T, C = cell_var.shape
    start = np.zeros(H + 1, dtype=np.int64)
    for t in range(T):
        for c in range(C):
            start[cell_var[t, c] + 1] += 1
    for h in range(H):
        start[h + 1] += start[h]
    fill = start[:-1].copy()
    order = np.empty(T * C, dtype=np.int64)
    for t in range(T):
        for c in range(C):
            h = cell_var[t, c]
            order[fill[h]] = c
            fill[h] += 1
    return order, start


@njit(cache=True, nogil=True)
def _draw_lanes(seed, gamma, b0, nb, kind, table, enumerate_all, k0, vrow, v):
    """``v[g * LANES + r]`` = multiplier ``g`` of replicate ``b0 + k0 + r`` (the
    last replicate of the chunk again for lanes past its end)."""
    G = vrow.shape[0]
    for r in range(LANES):
        b = b0 + min(k0 + r, nb - 1)
        if enumerate_all:
            for g in range(G):
                v[g * LANES + r] = 1.0 - 2.0 * np.float64((b >> g) & 1)
        else:
            fill_wild_weights(seed, gamma, np.uint64(b), kind, table, vrow)
            for g in range(G):
                v[g * LANES + r] = vrow[g]


@njit(cache=True, nogil=True)
def wcb_multi_lanes(
    seed, gamma, b0, kind, table, enumerate_all, boot, var, weight, out
):
    """:func:`skboot._kernels.model_based.wcb_multi_chunk` (same arguments, same
    bits) with eight replicates per pass."""
    Su, Sf, wu, wf, cell_boot, cell_wu, cell_wf = boot
    cell_var, FH, term = var
    G, kk = Su.shape
    H = FH.shape[0]
    nb = out.shape[0]
    cols = np.empty((2 * kk + 2) * G)  # columns of Su, Sf, then wu, wf
    for j in range(kk):
        for g in range(G):
            cols[j * G + g] = Su[g, j]
            cols[(kk + j) * G + g] = Sf[g, j]
    cols[2 * kk * G : (2 * kk + 1) * G] = wu
    cols[(2 * kk + 1) * G :] = wf
    fh = FH.ravel()
    order, start = cell_order(cell_var, H)
    boot_of = cell_boot[order]
    wu_of = cell_wu[order]
    wf_of = cell_wf[order]
    wh = np.empty(H)
    for h in range(H):
        wh[h] = weight[term[h]]
    vrow = np.empty(G)
    v = np.empty(G * LANES)
    d = np.empty((2 * kk + 2) * LANES)  # d0 rows, d1 rows, then n0, n1
    acc = np.empty(LANES)
    z0 = np.empty(LANES)
    z1 = np.empty(LANES)
    q = np.empty(3 * LANES)
    for k0 in range(0, nb, LANES):
        _draw_lanes(seed, gamma, b0, nb, kind, table, enumerate_all, k0, vrow, v)
        d[:] = 0.0
        for j in range(2 * kk + 2):
            lanes8_rows(d[j * LANES :], v, 0, LANES, v, cols, j * G, G)
        q[:] = 0.0
        for h in range(H):
            acc[:] = 0.0
            lanes8_rows(acc, d, 0, LANES, v, fh, h * kk, kk)
            for r in range(LANES):
                z0[r] = -acc[r]
            acc[:] = 0.0
            lanes8_rows(acc, d[kk * LANES :], 0, LANES, v, fh, h * kk, kk)
            for r in range(LANES):
                z1[r] = -acc[r]
            c0 = start[h]
            c = start[h + 1] - c0
            lanes8_indexed(z0, v, 0, LANES, boot_of[c0:], wu_of, c0, c)
            lanes8_indexed(z1, v, 0, LANES, boot_of[c0:], wf_of, c0, c)
            w = wh[h]
            for r in range(LANES):
                q[r] += w * z0[r] * z0[r]
                q[LANES + r] += w * z0[r] * z1[r]
                q[2 * LANES + r] += w * z1[r] * z1[r]
        for r in range(min(LANES, nb - k0)):
            out[k0 + r, 0] = d[2 * kk * LANES + r]
            out[k0 + r, 1] = d[(2 * kk + 1) * LANES + r]
            out[k0 + r, 2] = q[r]
            out[k0 + r, 3] = q[LANES + r]
            out[k0 + r, 4] = q[2 * LANES + r]
