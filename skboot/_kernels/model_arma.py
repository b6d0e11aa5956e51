"""Numba kernels of the ARMA-type residual bootstraps (numba code only): ARIMA and
seasonal ARIMA, and AR with exogenous regressors (ARX).

A replicate is generated on the *differenced* scale ``w`` (length ``n_w``) by the
ARMA recursion

    ``w_t = ((mu_t + e_t) + sum_{l = Q..1} m_l e_{t-l}) + sum_{i = P..1} a_i w_{t-i}``

for ``t >= k0`` (summed in that order, farthest lag first; zero coefficients
skipped), from the observed start values ``w_0 .. w_{k0-1}`` with pre-sample
innovations ``e_t = 0`` for ``t < k0`` (the conditional-sum-of-squares
convention of the fitted residuals), and then
integrated back to the level scale with the differencing polynomial
``1 - delta_1 L - ... - delta_K L^K``:

    ``y_t = w_{t-K} + sum_{k = K..1} delta_k y_{t-k}`` for ``t >= K``,

from the observed ``y_0 .. y_{K-1}``; a fixed level ``r_t`` (trend and regression
terms) is added last.  ``a`` and ``m`` are the expanded (seasonal times
non-seasonal) AR and MA polynomials.

Stream use (part of :data:`skboot.STREAM_VERSION`): the ``n_w - k0`` innovations
of replicate ``b`` are the centred residuals at iid indices (purpose
``"indices"``, bound ``M``) or in moving blocks (purpose ``"block_starts"``,
bound ``M - L + 1``), exactly as in the AR residual bootstrap
(:mod:`skboot._kernels.model_based`) with no burn-in; with wild multipliers
(:func:`arma_wild_chunk`) innovation ``i`` is ``resid[i] * v[i // L]``, ``v``
the replicate's multipliers on purpose ``"wild"`` (as the AR wild bootstrap
reads them).  ``LANES`` replicates run
side by side; a replicate's arithmetic does not depend on its neighbours, the
chunk or the lane count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.model_based import LANES, fill_wild_weights
from skboot._random import fill_indices_kernel

__all__ = ["arma_path", "arma_residual_chunk", "arma_wild_chunk"]


@njit(cache=True, nogil=True)
def arma_path(w, e, mu, ar, ma, k0, delta, y0, level, y):
    """``LANES`` (8) replicates side by side, one per column: run the ARMA
    recursion in ``w`` (n_w, 8) from the innovations ``e`` (Q + n_w, 8; row
    ``Q + t`` is ``e_t``, the first ``Q + k0`` rows pre-sample zeros) and
    integrate into ``y`` (n, 8) from ``y[:K] = y0``; then add ``level``.

    The 8 replicates are independent chains held in 8 scalars (as in the VAR
    kernel), so their latencies overlap and they stay in registers; a lane's
    arithmetic does not depend on the others.  Zero coefficients of the
    expanded polynomials are skipped (adding ``0 * x`` changes nothing)."""
    _recurse(w, e, mu, ar, ma, k0)
    _integrate(w, delta, y0, level, y)


@njit(cache=True, nogil=True)
def _recurse(w, e, mu, ar, ma, k0):
    """The ARMA recursion of :func:`arma_path`, 8 lanes in 8 scalars."""
    P = ar.shape[0]
    Q = ma.shape[0]
    n_w = w.shape[0]
    for t in range(k0, n_w):
        m_t = mu[t]
        q = Q + t
        a0 = m_t + e[q, 0]
        a1 = m_t + e[q, 1]
        a2 = m_t + e[q, 2]
        a3 = m_t + e[q, 3]
        a4 = m_t + e[q, 4]
        a5 = m_t + e[q, 5]
        a6 = m_t + e[q, 6]
        a7 = m_t + e[q, 7]
        for j in range(Q - 1, -1, -1):
            c = ma[j]
            if c != 0.0:
                r = q - 1 - j
                a0 += c * e[r, 0]
                a1 += c * e[r, 1]
                a2 += c * e[r, 2]
                a3 += c * e[r, 3]
                a4 += c * e[r, 4]
                a5 += c * e[r, 5]
                a6 += c * e[r, 6]
                a7 += c * e[r, 7]
        for j in range(P - 1, -1, -1):
            c = ar[j]
            if c != 0.0:
                r = t - 1 - j
                a0 += c * w[r, 0]
                a1 += c * w[r, 1]
                a2 += c * w[r, 2]
                a3 += c * w[r, 3]
                a4 += c * w[r, 4]
                a5 += c * w[r, 5]
                a6 += c * w[r, 6]
                a7 += c * w[r, 7]
        w[t, 0] = a0
        w[t, 1] = a1
        w[t, 2] = a2
        w[t, 3] = a3
        w[t, 4] = a4
        w[t, 5] = a5
        w[t, 6] = a6
        w[t, 7] = a7


@njit(cache=True, nogil=True)
def _integrate(w, delta, y0, level, y):
    """The integration of :func:`arma_path`, 8 lanes in 8 scalars."""
    K = delta.shape[0]
    n = y.shape[0]
    for t in range(K):
        for ln in range(LANES):
            y[t, ln] = y0[t]
    for t in range(K, n):
        s = t - K
        a0 = w[s, 0]
        a1 = w[s, 1]
        a2 = w[s, 2]
        a3 = w[s, 3]
        a4 = w[s, 4]
        a5 = w[s, 5]
        a6 = w[s, 6]
        a7 = w[s, 7]
        for k in range(K - 1, -1, -1):
            c = delta[k]
            if c != 0.0:
                r = t - 1 - k
                a0 += c * y[r, 0]
                a1 += c * y[r, 1]
                a2 += c * y[r, 2]
                a3 += c * y[r, 3]
                a4 += c * y[r, 4]
                a5 += c * y[r, 5]
                a6 += c * y[r, 6]
                a7 += c * y[r, 7]
        y[t, 0] = a0
        y[t, 1] = a1
        y[t, 2] = a2
        y[t, 3] = a3
        y[t, 4] = a4
        y[t, 5] = a5
        y[t, 6] = a6
        y[t, 7] = a7
    for t in range(n):
        lv = level[t]
        for ln in range(LANES):
            y[t, ln] += lv


@njit(cache=True, nogil=True)
def arma_residual_chunk(
    seed_i, seed_s, gamma, b0, w0, mu, ar, ma, delta, y0, level, resid, L, out
):
    """Row ``k`` of ``out`` (nb, n) = the ARMA residual-bootstrap series of
    replicate ``b0 + k`` (see the module docstring): ``w0`` holds the ``k0``
    observed start values of ``w``, ``mu`` (length ``n_w = n - K``) the offset of
    every step, ``resid`` the ``M`` centred residuals; ``L == 0`` draws them iid,
    ``L > 0`` in moving blocks of ``L``."""
    nb, n = out.shape
    K = delta.shape[0]
    Q = ma.shape[0]
    k0 = w0.shape[0]
    n_w = n - K
    n_e = n_w - k0
    M = resid.shape[0]
    w = np.zeros((n_w, LANES))
    e = np.zeros((Q + n_w, LANES))
    y = np.zeros((n, LANES))
    idx = np.empty(n_e, dtype=np.int64)
    n_blocks = (n_e + L - 1) // L if L > 0 else 0
    starts = np.empty(n_blocks, dtype=np.int64)
    for t in range(k0):
        for ln in range(LANES):
            w[t, ln] = w0[t]
    for k1 in range(0, nb, LANES):
        lanes = min(LANES, nb - k1)
        for ln in range(lanes):
            b = np.uint64(b0 + k1 + ln)
            if L > 0:
                fill_indices_kernel(seed_s, gamma, b, np.uint64(M - L + 1), starts)
                t = 0
                for j in range(n_blocks):
                    for r in range(min(L, n_e - t)):
                        idx[t] = starts[j] + r
                        t += 1
            else:
                fill_indices_kernel(seed_i, gamma, b, np.uint64(M), idx)
            for i in range(n_e):
                e[Q + k0 + i, ln] = resid[idx[i]]
        arma_path(w, e, mu, ar, ma, k0, delta, y0, level, y)
        for ln in range(lanes):
            row = out[k1 + ln]
            for t in range(n):
                row[t] = y[t, ln]


@njit(cache=True, nogil=True)
def arma_wild_chunk(seed_w, gamma, b0, w0, mu, ar, ma, delta, y0, level, resid,
                    kind, table, L, out):  # fmt: skip
    """Row ``k`` of ``out`` (nb, n) = the ARMA wild-bootstrap series of replicate
    ``b0 + k``: as :func:`arma_residual_chunk`, with innovation ``i`` the
    centred residual of its own time re-scaled, ``resid[i] * v[i // L]`` (``v``:
    the replicate's multipliers of law ``kind``, one per block of ``L >= 1``
    residuals, from :func:`skboot._kernels.model_based.fill_wild_weights`)."""
    nb, n = out.shape
    K = delta.shape[0]
    Q = ma.shape[0]
    k0 = w0.shape[0]
    n_w = n - K
    n_e = n_w - k0
    w = np.zeros((n_w, LANES))
    e = np.zeros((Q + n_w, LANES))
    y = np.zeros((n, LANES))
    v = np.empty((n_e + L - 1) // L)
    for t in range(k0):
        for ln in range(LANES):
            w[t, ln] = w0[t]
    for k1 in range(0, nb, LANES):
        lanes = min(LANES, nb - k1)
        for ln in range(lanes):
            fill_wild_weights(seed_w, gamma, np.uint64(b0 + k1 + ln), kind, table, v)
            for i in range(n_e):
                e[Q + k0 + i, ln] = resid[i] * v[i // L]
        arma_path(w, e, mu, ar, ma, k0, delta, y0, level, y)
        for ln in range(lanes):
            row = out[k1 + ln]
            for t in range(n):
                row[t] = y[t, ln]
