"""Numba kernel of the VAR residual bootstrap (numba code only).

Replicate ``b`` reads the same streams as the AR residual bootstrap
(:mod:`skboot._kernels.model_based`): residual-row indices on purpose
``"indices"`` (iid, bound ``M``) or moving-block starts on purpose
``"block_starts"`` (bound ``M - L + 1``), and the start position of the initial
values on purpose ``"model"``.  A row index selects a whole residual vector, so the
variables are resampled jointly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random import fill_indices_kernel

__all__ = ["var_residual_chunk"]


@njit(cache=True, nogil=True)
def _var_recurse(path, intercept, coef):
    """``path`` (time, m) holds ``p`` start rows followed by the innovations;
    overwrite row ``t >= p`` with ``y_{t,i} = (c_i + u_{t,i}) + sum over lags
    j = p..1 (farthest first) and variables k of A_j[i, k] y_{t-j,k}``, summed in
    that order."""
    p, m, _ = coef.shape
    for t in range(p, path.shape[0]):
        for i in range(m):
            acc = intercept[i] + path[t, i]
            for j in range(p - 1, -1, -1):
                for k in range(m):
                    acc += coef[j, i, k] * path[t - 1 - j, k]
            path[t, i] = acc


@njit(cache=True, nogil=True)
def var_residual_chunk(
    seed_i,
    seed_s,
    seed_m,
    gamma,
    b0,
    series,
    intercept,
    coef,
    resid,
    burn_in,
    random_start,
    block_length,
    out,
):
    """``out[k]`` (n, m) = the VAR residual-bootstrap series of replicate
    ``b0 + k``.

    The path has ``burn_in + n`` rows: ``p`` start rows ``series[s:s + p]``
    (``s = 0``, or draw 0 of ``bounded(n - p + 1)`` on ``seed_m`` when
    ``random_start``), then the recursion driven by the residual rows
    ``resid[idx[t - p]]``; the last ``n`` rows are kept.  ``idx`` holds
    ``burn_in + n - p`` row indices: iid draws of ``bounded(M)`` on ``seed_i``
    (``block_length == 0``), or moving blocks of ``block_length`` rows whose
    starts are draws of ``bounded(M - L + 1)`` on ``seed_s``, concatenated and cut.
    """
    nb, n, m = out.shape
    p = coef.shape[0]
    M = resid.shape[0]
    n_e = burn_in + n - p
    total = burn_in + n
    L = block_length
    buf = np.zeros((total if burn_in > 0 else 0, m))
    idx = np.empty(n_e, dtype=np.int64)
    n_blocks = (n_e + L - 1) // L if L > 0 else 0
    starts = np.empty(n_blocks, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    for kk in range(nb):
        b = np.uint64(b0 + kk)
        path = buf if burn_in > 0 else out[kk]
        s = 0
        if random_start:
            fill_indices_kernel(seed_m, gamma, b, np.uint64(n - p + 1), first)
            s = first[0]
        for j in range(p):
            for v in range(m):
                path[j, v] = series[s + j, v]
        if L > 0:
            fill_indices_kernel(seed_s, gamma, b, np.uint64(M - L + 1), starts)
            t = 0
            for j in range(n_blocks):
                ln = min(L, n_e - t)
                for r in range(ln):
                    idx[t] = starts[j] + r
                    t += 1
        else:
            fill_indices_kernel(seed_i, gamma, b, np.uint64(M), idx)
        for i in range(n_e):
            row = idx[i]
            for v in range(m):
                path[p + i, v] = resid[row, v]
        _var_recurse(path, intercept, coef)
        if burn_in > 0:
            out[kk, :, :] = path[burn_in:]
