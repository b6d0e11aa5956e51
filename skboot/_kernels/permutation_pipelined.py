"""The mean-difference permutation kernel for targets without a 64-bit vector
multiply.

:func:`skboot._kernels.significance.indep_sum_chunk` alternates two phases per
block of Fisher-Yates steps: the block's bounded draws (vector arithmetic, bound
by the emulated 64-bit multiplies on 4-lane targets) and the block's steps (a
load, two stores and an add per step, bound by the loads).
:func:`indep_sum_chunk_pipelined` overlaps them: block ``i + 1`` is drawn while
the steps of block ``i`` are made (:data:`skboot._random.fy_swap_sum_pairs`).
It computes the same sums with the same rule (the value landing at position
``p`` to accumulator ``p % 8``), bit for bit; :func:`indep_sum_kernel` chooses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.permutation import BLOCK, fy_block, fy_fast
from skboot._kernels.significance import _combine, _fy_take, indep_sum_chunk
from skboot._random import NO_HAVE, fy_swap_sum_pairs, replicate_counter, target_lanes

__all__ = ["indep_sum_chunk_pipelined", "indep_sum_kernel"]

_HALF = BLOCK // 2
_SIGN = np.uint64(1) << np.uint64(63)
_U0 = np.uint64(0)


def indep_sum_kernel(N: int, n1: int):
    """The kernel that computes :func:`indep_sum_chunk`'s sums fastest here for a
    pool of ``N`` values and a first sample of ``n1``: the pipelined one on
    4-lane vector targets (AVX2, SSE, NEON-class) when ``N < 2**32`` and the
    sample spans two blocks of steps or more; else the plain loop.  Same bits."""
    if N <= 0xFFFFFFFF and n1 >= 2 * BLOCK and target_lanes() == 4:
        return indep_sum_chunk_pipelined
    return indep_sum_chunk


@njit(cache=True, nogil=True)
def _steps_pipelined(work, touched, seed, gamma, ctr, N, i, nfull, acc, cur, nxt):
    """The next ``nfull`` full blocks of steps from step ``i``, software-
    pipelined; stops before the first block with a possibly rejected word (the
    caller redoes it).  Returns ``(ctr, blocks made)``."""
    if nfull == 0 or not fy_fast(seed, gamma, ctr, np.uint64(N - i), cur, 0, _HALF):
        return ctr, 0
    ctr = ctr + np.uint64(_HALF)
    blk = 1
    while blk < nfull:
        pos = np.uint64(i + (blk - 1) * BLOCK)
        top = np.uint64(N - i - blk * BLOCK)
        bad = fy_swap_sum_pairs(
            acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos, _HALF
        )
        if bad >= _SIGN:
            return ctr, blk
        ctr = ctr + np.uint64(_HALF)
        cur, nxt = nxt, cur
        blk += 1
    pos = np.uint64(i + (blk - 1) * BLOCK)
    for u in range(BLOCK):
        acc[u & 7] += _fy_take(work, touched, pos + np.uint64(u), cur[u])
    return ctr, blk


@njit(cache=True, nogil=True)
def indep_sum_chunk_pipelined(seed, gamma, b0, vals, n1, out):
    """:func:`skboot._kernels.significance.indep_sum_chunk` (same rule, same
    bits) for pools of fewer than ``2**32`` values: runs of full blocks of steps
    through :func:`_steps_pipelined`, a block with a possibly rejected word and
    the last partial block through :func:`fy_block`."""
    N = vals.shape[0]
    work = vals.copy()
    buf = np.empty(BLOCK, dtype=np.uint64)
    nxt = np.empty(BLOCK, dtype=np.uint64)
    touched = np.empty(max(n1, 1), dtype=np.uint64)
    acc = np.empty(8)
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        acc[:] = 0.0
        i = 0
        while i < n1:
            if not have and n1 - i >= 2 * BLOCK:
                nfull = (n1 - i) // BLOCK
                ctr, blocks = _steps_pipelined(
                    work, touched, seed, gamma, ctr, N, i, nfull, acc, buf, nxt
                )
                i += blocks * BLOCK
                if i >= n1:
                    break
            c = min(BLOCK, n1 - i)
            ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, N - i, c, buf)
            base = np.uint64(i)
            for u in range(c):
                acc[u & 7] += _fy_take(work, touched, base + np.uint64(u), buf[u])
            i += c
        for q in range(n1):
            j = touched[q]
            work[j] = vals[j]
        out[k, 0] = _combine(acc)
