"""Numba kernel of the wild restricted efficient (WRE) bootstrap of an IV
regression with one endogenous regressor (numba code only).

The multipliers are those of :func:`skboot._kernels.model_based.fill_wild_weights`
(purpose "wild"), so the WRE bootstrap draws exactly the multipliers of the
OLS wild cluster bootstrap with the same seed and clusters.  The algebra is
stated in ``skboot.model_based._cluster_iv_parts``.  Kernels take
int64/float64 arrays and release the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.model_based import fill_wild_weights

__all__ = ["wre_chunk"]


@njit(cache=True, nogil=True)
def wre_chunk(seed, gamma, b0, kind, table, enumerate_all, clusters, fixed, out):
    """Per-replicate 2SLS numerator and CRV1 sum of squares of the WRE
    bootstrap, O(G l**2) per replicate.

    ``clusters = (su, sv, K)``: per cluster ``g`` the instruments' sums
    ``su[g] = Z_g' u_g`` (restricted structural residuals), ``sv[g] = Z_g'
    v_g`` (efficient reduced-form residuals) and ``K[g] = Z_g' Z_g``.
    ``fixed = (pi, Spi, Sinv, SWWinv, lz)``: the reduced-form coefficients,
    ``S pi`` with ``S = Z'Z``, ``S^-1``, the inverse of the block of ``S``
    on the exogenous regressors (the last ``l - lz`` instruments) and the
    number ``lz`` of excluded instruments.  For replicate ``b`` with cluster
    multipliers ``v`` (drawn, or ``v_g = 1 - 2 * bit_g(b)`` when
    ``enumerate_all``), writes ``out[k] = (d1, Q)``: ``d1 = beta* - beta0``
    and ``Q = sum_g (m' Z_g' u*_g)**2`` (the CRV1 sum before its factor);
    ``(NaN, NaN)`` when the replicate's instruments explain none of its
    endogenous regressor (``D = 0``).
    """
    su, sv, K = clusters
    pi, Spi, Sinv, SWWinv, lz = fixed
    G = su.shape[0]
    ll = su.shape[1]
    kw = ll - lz
    v = np.empty(G)
    us = np.empty(ll)
    vs = np.empty(ll)
    p = np.empty(ll)
    m = np.empty(ll)
    e = np.empty(ll)
    h = np.empty(kw)
    for k in range(out.shape[0]):
        b = b0 + k
        if enumerate_all:
            for g in range(G):
                v[g] = 1.0 - 2.0 * np.float64((b >> g) & 1)
        else:
            fill_wild_weights(seed, gamma, np.uint64(b), kind, table, v)
        us[:] = 0.0
        vs[:] = 0.0
        for g in range(G):
            vg = v[g]
            for i in range(ll):
                us[i] += vg * su[g, i]
                vs[i] += vg * sv[g, i]
        # Z'x* = S pi + vs ; Pi*'s first column p = pi + S^-1 vs
        for i in range(ll):
            acc = pi[i]
            for j in range(ll):
                acc += Sinv[i, j] * vs[j]
            p[i] = acc
        for i in range(kw):
            acc = 0.0
            for j in range(kw):
                acc += SWWinv[i, j] * (Spi[lz + j] + vs[lz + j])
            h[i] = acc
        D = 0.0
        num = 0.0
        for i in range(ll):
            D += p[i] * (Spi[i] + vs[i])
            num += p[i] * us[i]
        for i in range(kw):
            D -= h[i] * (Spi[lz + i] + vs[lz + i])
            num -= h[i] * us[lz + i]
        if not D > 0.0:
            out[k, 0] = np.nan
            out[k, 1] = np.nan
            continue
        d1 = num / D
        for i in range(ll):
            m[i] = p[i] / D
            e[i] = pi[i] * d1
        for i in range(kw):
            acc = 0.0
            for j in range(kw):
                acc += SWWinv[i, j] * us[lz + j]
            m[lz + i] -= h[i] / D
            e[lz + i] += acc - h[i] * d1
        q = 0.0
        for g in range(G):
            mu = 0.0
            mv = 0.0
            mke = 0.0
            for i in range(ll):
                mu += m[i] * su[g, i]
                mv += m[i] * sv[g, i]
                row = 0.0
                for j in range(ll):
                    row += K[g, i, j] * e[j]
                mke += m[i] * row
            s = v[g] * (mu - d1 * mv) - mke
            q += s * s
        out[k, 0] = d1
        out[k, 1] = q
