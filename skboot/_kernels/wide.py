"""Column sums of iid replicates of wide data, blocked over columns.

The row kernels (:func:`skboot._kernels.iid.iid_moments`,
:func:`~skboot._kernels.iid.iid_moments_tiled`) read each drawn row whole.  When
the data are larger than the core's L2 cache (10,000 rows of 50 columns are 4 MB),
every draw is then a miss to L3 or memory, and the kernel waits on memory.  This
kernel instead copies the data once into blocks of ``LANES`` columns (4 or 8, one
vector register; an ``(n, LANES)`` block of 10,000 rows is 320 or 640 kB), draws
the indices of up to ``R`` replicates into a reused array, and sums each block for
those replicates before moving to the next block, so the random reads of a block
stay in L2 and the draws are made once.

The summation rule is the scalar kernel's, column by column: within each tile of
512 draws, draw ``t`` goes to accumulator ``t % 8``, rows in draw order, the
eight accumulators combined pairwise, the tiles' sums through the cascade
(:mod:`skboot._kernels.cascade`); each vector lane is one column computed with
the same IEEE operations (:mod:`skboot._kernels.simd`).  Values are therefore bit for bit those of
:func:`~skboot._kernels.iid.iid_moments`, for any lane count or ``R`` (tested).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    EIGHT_TILE_BLOCKS,
    cascade_push_eight,
    cascade_total,
)
from skboot._kernels.simd import add_rows4, add_rows4_sq, add_rows8, add_rows8_sq
from skboot._random import FAST_BLOCK, fill_indices_chunk

__all__ = ["LANES", "column_blocks", "iid_moments_blocked"]


def _host_lanes() -> int:
    """8 lanes where the host has AVX-512 (one register per accumulator), else 4
    (the eight accumulators of eight lanes would take all sixteen AVX2 registers
    and spill; measured 20-50% slower for variances).  Speed only: the values do
    not depend on it."""
    try:
        from llvmlite import binding

        features = binding.get_host_cpu_features()
        return 8 if features.get("avx512f", False) else 4
    except (ImportError, RuntimeError):  # pragma: no cover - llvmlite is numba's
        return 4


#: Columns per block on this machine.
LANES = _host_lanes()
#: At most this many indices (4 bytes each) are drawn ahead per kernel call.
_MAX_AHEAD = 1 << 21
_I0 = np.int64(0)


def column_blocks(X: np.ndarray, lanes: int = LANES) -> np.ndarray:
    """``X`` (n, d) as ``(ceil(d / lanes), n, lanes)`` blocks of columns, the last
    one padded with zeros, on a 64-byte boundary (one copy, O(n d))."""
    n, d = X.shape
    nblk = -(-d // lanes)
    size = nblk * n * lanes * 8
    raw = np.empty(size + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    Xb = raw[start : start + size].view(np.float64).reshape(nblk, n, lanes)
    for jb in range(nblk):
        c = min(lanes, d - jb * lanes)
        Xb[jb, :, :c] = X[:, jb * lanes : jb * lanes + c]
        Xb[jb, :, c:] = 0.0
    return Xb


@njit(cache=True, nogil=True, inline="always")
def _replicate_block(Xf, ix, m, L, want2, acc, acc2, part, stack):
    """Sums (and squares) of one replicate's ``m`` drawn rows ``ix`` of a column
    block ``Xf`` (``L`` columns), into ``part`` (sums, then squares): the iid
    kernels' rule: tiles of EIGHT_TILE_BLOCKS blocks of FAST_BLOCK draws in eight
    accumulators, the tiles' sums through the cascade."""
    w = np.int64(L)
    count = 0
    tile_draws = EIGHT_TILE_BLOCKS * FAST_BLOCK
    for t0 in range(0, m, tile_draws):
        c = min(tile_draws, m - t0)
        groups = np.int64(c >> 3)
        seg = ix[t0:]
        if L == 8:
            if want2:
                add_rows8_sq(acc, acc2, Xf, seg, groups, w, _I0)
            else:
                add_rows8(acc, acc2, Xf, seg, groups, w, _I0)
        elif want2:
            add_rows4_sq(acc, acc2, Xf, seg, groups, w, _I0)
        else:
            add_rows4(acc, acc2, Xf, seg, groups, w, _I0)
        for t in range(8 * groups, c):
            p = (t & 7) * L
            row = np.int64(seg[t]) * L
            for q in range(L):
                v = Xf[row + q]
                acc[p + q] += v
                if want2:
                    acc2[p + q] += v * v
        count = cascade_push_eight(acc, acc2, L, part, stack, count)
    cascade_total(stack, count, part)


@njit(cache=True, nogil=True)
def iid_moments_blocked(Xb, d, seed, gamma, b0, m, want2, out1, out2):
    """Per replicate ``b0 + k``: column sums of the drawn rows (and of squares),
    from the column blocks ``Xb`` of :func:`column_blocks` (``d`` real columns);
    bit for bit :func:`skboot._kernels.iid.iid_moments` on the unblocked data.

    The ``m`` indices of up to ``R`` replicates (at most ``_MAX_AHEAD`` indices
    together) are drawn into a reused uint32 array by
    :func:`skboot._random.fill_indices_chunk`; every block then adds their rows.
    Needs ``n < 2**32``.
    """
    nblk = Xb.shape[0]
    n = Xb.shape[1]
    L = Xb.shape[2]
    nb = out1.shape[0]
    R = max(1, min(64, _MAX_AHEAD // max(m, 1)))
    idx = np.empty((min(R, nb), m), dtype=np.uint32)
    acc = np.zeros(8 * L)
    acc2 = np.zeros(8 * L)
    part = np.empty(2 * L)
    stack = np.zeros((CASCADE_LEVELS, 2 * L))
    for k0 in range(0, nb, R):
        rc = min(R, nb - k0)
        fill_indices_chunk(seed, gamma, b0 + k0, np.uint64(n), idx[:rc])
        for jb in range(nblk):
            Xf = Xb[jb].reshape(n * L)
            ncol = min(L, d - jb * L)
            for r in range(rc):
                _replicate_block(Xf, idx[r], m, L, want2, acc, acc2, part, stack)
                for c in range(ncol):
                    out1[k0 + r, jb * L + c] = part[c]
                    out2[k0 + r, jb * L + c] = part[L + c]
