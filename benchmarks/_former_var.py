"""The former VAR residual-bootstrap kernel (eight replicates held in eight scalar
accumulators, the series written out and reduced by numpy), kept for the
old-vs-new timing of ``python -m benchmarks.kernel_pairs var``."""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random import fill_indices_kernel

__all__ = ["former_var_chunk"]

LANES = 8


@njit(nogil=True)
def _var_recurse(path, intercept, coef):
    """``path`` (time * m, 8): row ``t * m + i`` holds variable ``i`` at time ``t``
    of 8 replicates (one per column); the first ``p`` times are start values,
    the others hold the innovations.  Overwrite time ``t >= p`` with
    ``y_{t,i} = (c_i + u_{t,i}) + sum over lags j = p..1 (farthest first) and
    variables k of A_j[i, k] y_{t-j,k}``, summed in that order.

    The 8 replicates are independent chains held in 8 scalars, so their
    latencies overlap and the compiler keeps them in vector registers; a
    replicate's arithmetic does not depend on the others (unused columns compute
    on whatever they hold and are never read)."""
    p, m, _ = coef.shape
    total = path.shape[0] // m
    for t in range(p, total):
        for i in range(m):
            o = t * m + i
            ci = intercept[i]
            a0 = ci + path[o, 0]
            a1 = ci + path[o, 1]
            a2 = ci + path[o, 2]
            a3 = ci + path[o, 3]
            a4 = ci + path[o, 4]
            a5 = ci + path[o, 5]
            a6 = ci + path[o, 6]
            a7 = ci + path[o, 7]
            for j in range(p - 1, -1, -1):
                for k in range(m):
                    a = coef[j, i, k]
                    r = (t - 1 - j) * m + k
                    a0 += a * path[r, 0]
                    a1 += a * path[r, 1]
                    a2 += a * path[r, 2]
                    a3 += a * path[r, 3]
                    a4 += a * path[r, 4]
                    a5 += a * path[r, 5]
                    a6 += a * path[r, 6]
                    a7 += a * path[r, 7]
            path[o, 0] = a0
            path[o, 1] = a1
            path[o, 2] = a2
            path[o, 3] = a3
            path[o, 4] = a4
            path[o, 5] = a5
            path[o, 6] = a6
            path[o, 7] = a7


@njit(nogil=True)
def former_var_chunk(
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
    ``LANES`` (8) replicates run side by side.
    """
    nb, n, m = out.shape
    p = coef.shape[0]
    M = resid.shape[0]
    n_e = burn_in + n - p
    total = burn_in + n
    L = block_length
    path = np.zeros((total * m, LANES))
    idx = np.empty(n_e, dtype=np.int64)
    n_blocks = (n_e + L - 1) // L if L > 0 else 0
    starts = np.empty(n_blocks, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    for k0 in range(0, nb, LANES):
        lanes = min(LANES, nb - k0)
        for ln in range(lanes):
            b = np.uint64(b0 + k0 + ln)
            s = 0
            if random_start:
                fill_indices_kernel(seed_m, gamma, b, np.uint64(n - p + 1), first)
                s = first[0]
            for j in range(p):
                for v in range(m):
                    path[j * m + v, ln] = series[s + j, v]
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
                row = idx[i]
                for v in range(m):
                    path[(p + i) * m + v, ln] = resid[row, v]
        _var_recurse(path, intercept, coef)
        for ln in range(lanes):
            dst = out[k0 + ln]
            for t in range(n):
                for v in range(m):
                    dst[t, v] = path[(burn_in + t) * m + v, ln]
