"""Numba kernels of the wild cluster bootstrap Wald test and of the jackknife
(CRV3) cluster variance (numba code only).

The multipliers are those of :func:`skboot._kernels.model_based.fill_wild_weights`
(purpose "wild"), so a Wald test of one restriction draws exactly the
multipliers of the t test of the same restriction.  Kernels take int64/float64
arrays and release the GIL.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from skboot._kernels.model_based import fill_wild_weights

__all__ = ["cluster_grams", "cluster_scores_multi", "wald_chunk"]


@njit(cache=True, nogil=True)
def cluster_scores_multi(X, y, beta, P, codes, su, F):
    """One pass over the rows: ``su[g] = X_g' (y_g - X_g beta)`` and
    ``F[g] = X_g' X_g P`` (``P`` of shape (k, q); row order; both
    overwritten)."""
    su[:, :] = 0.0
    F[:, :, :] = 0.0
    k = X.shape[1]
    q = P.shape[1]
    xp = np.empty(q)
    for i in range(X.shape[0]):
        g = codes[i]
        u = y[i]
        for m in range(q):
            xp[m] = 0.0
        for j in range(k):
            xij = X[i, j]
            u -= xij * beta[j]
            for m in range(q):
                xp[m] += xij * P[j, m]
        for j in range(k):
            xij = X[i, j]
            su[g, j] += xij * u
            for m in range(q):
                F[g, j, m] += xij * xp[m]


@njit(cache=True, nogil=True)
def cluster_grams(X, codes, out):
    """``out[g] = X_g' X_g`` (row order; overwritten): O(n k**2)."""
    out[:, :, :] = 0.0
    k = X.shape[1]
    for i in range(X.shape[0]):
        g = codes[i]
        for j in range(k):
            xij = X[i, j]
            for m in range(j, k):
                out[g, j, m] += xij * X[i, m]
    for g in range(out.shape[0]):
        for j in range(k):
            for m in range(j):
                out[g, j, m] = out[g, m, j]


@njit(cache=True, nogil=True)
def _wald(num, V, L, x):
    """``num' V^-1 num`` by Cholesky (``V`` symmetric, lower half read); NaN
    when ``V`` is not positive definite."""
    q = num.shape[0]
    for j in range(q):
        s = V[j, j]
        for m in range(j):
            s -= L[j, m] * L[j, m]
        if not s > 0.0:
            return math.nan
        L[j, j] = math.sqrt(s)
        for r in range(j + 1, q):
            s2 = V[r, j]
            for m in range(j):
                s2 -= L[r, m] * L[j, m]
            L[r, j] = s2 / L[j, j]
    w = 0.0
    for j in range(q):
        s = num[j]
        for m in range(j):
            s -= L[j, m] * x[m]
        x[j] = s / L[j, j]
        w += x[j] * x[j]
    return w


@njit(cache=True, nogil=True)
def wald_chunk(seed, gamma, b0, kind, table, enumerate_all, boot, var, weight, out):
    """Bootstrap Wald statistics of ``q`` restrictions, O((G + H q) k + T C q
    + H q**2 + q**3) per replicate.

    ``boot = (SA, WB, cell_boot, cell_w)``: per bootstrap cluster ``B`` the row
    ``SA[B] = A s_B`` and the numerator terms ``WB[B] = P' s_B`` (``s`` the
    scores of the bootstrap data-generating process), per cell its bootstrap
    cluster and ``cell_w[c] = P' s_c``.  ``var = (cell_var, FH, term)``:
    ``cell_var[t, c]`` the variance cluster of term ``t`` holding cell ``c``,
    ``FH[h] = P' X_h' X_h`` (q, k) and ``term[h]`` its term, entering with
    factor ``weight[t]``.  For replicate ``b`` (multipliers ``v``):
    ``d = sum_B v_B SA[B]``, ``N = sum_B v_B WB[B]``, ``z_h = sum_{c in h} v
    cell_w[c] - FH[h] d``, ``V = sum_h weight z_h z_h'`` and ``out[k] = N' V^-1
    N`` (NaN when ``V`` is not positive definite).
    """
    SA, WB, cell_boot, cell_w = boot
    cell_var, FH, term = var
    G = SA.shape[0]
    kk = SA.shape[1]
    q = WB.shape[1]
    H = FH.shape[0]
    v = np.empty(G)
    d = np.empty(kk)
    num = np.empty(q)
    z = np.empty((H, q))
    V = np.empty((q, q))
    L = np.empty((q, q))
    x = np.empty(q)
    for k in range(out.shape[0]):
        b = b0 + k
        if enumerate_all:
            for g in range(G):
                v[g] = 1.0 - 2.0 * np.float64((b >> g) & 1)
        else:
            fill_wild_weights(seed, gamma, np.uint64(b), kind, table, v)
        d[:] = 0.0
        num[:] = 0.0
        for g in range(G):
            vg = v[g]
            for j in range(kk):
                d[j] += vg * SA[g, j]
            for m in range(q):
                num[m] += vg * WB[g, m]
        for h in range(H):
            for m in range(q):
                acc = 0.0
                for j in range(kk):
                    acc += FH[h, m, j] * d[j]
                z[h, m] = -acc
        for t in range(cell_var.shape[0]):
            for c in range(cell_var.shape[1]):
                h = cell_var[t, c]
                vc = v[cell_boot[c]]
                for m in range(q):
                    z[h, m] += vc * cell_w[c, m]
        V[:, :] = 0.0
        for h in range(H):
            w = weight[term[h]]
            for m in range(q):
                for r in range(m + 1):
                    V[m, r] += w * z[h, m] * z[h, r]
        out[k] = _wald(num, V, L, x)
