"""Numba kernel of the alternating projections that absorb several fixed-effect
dimensions (``skboot.model_based._cluster_fe_multi``; numba code only).

Kernels take int64/float64 arrays and release the GIL.
"""

from __future__ import annotations

from numba import njit

__all__ = ["demean_sweep"]


@njit(cache=True, nogil=True)
def demean_sweep(Z, codes, mass, scale, cols, means, delta):
    """One sweep of alternating projections over the columns ``cols`` of ``Z``
    (n, m), in place: for each dimension ``e`` in turn, ``Z[i, j] -= s_i
    mu[codes[i, e], j]`` with ``mu[l, j]`` the sum of ``s_i Z[i, j]`` over the
    rows of level ``l`` divided by ``mass[e, l]`` (``s = scale``, all ones
    without weights; ``mass[e, l]`` the level's sum of ``s**2``, 1 for
    padding).  ``means`` (d, L_max, m) receives every ``mu``; ``delta[j]`` the
    squared norm of column ``j``'s change, ``sum_i (sum_e s_i mu_e[codes[i,
    e], j])**2`` (row order; columns not in ``cols`` untouched)."""
    n = Z.shape[0]
    d = codes.shape[1]
    for e in range(d):
        mu = means[e]
        for lev in range(mu.shape[0]):
            for j in cols:
                mu[lev, j] = 0.0
        for i in range(n):
            lev = codes[i, e]
            s = scale[i]
            for j in cols:
                mu[lev, j] += Z[i, j] * s
        for lev in range(mu.shape[0]):
            inv = mass[e, lev]
            for j in cols:
                mu[lev, j] /= inv
        for i in range(n):
            lev = codes[i, e]
            s = scale[i]
            for j in cols:
                Z[i, j] -= s * mu[lev, j]
    for j in cols:
        delta[j] = 0.0
    for i in range(n):
        s = scale[i]
        for j in cols:
            c = 0.0
            for e in range(d):
                c += s * means[e, codes[i, e], j]
            delta[j] += c * c
