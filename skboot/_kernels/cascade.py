"""Cascaded (pairwise) summation of tile sums: as precise as numpy's sums.

A sum over ``n`` rows added in sequence has a rounding error that grows with
``n`` (at most ``(n - 1) u`` relative for non-negative terms, about
``sqrt(n) u`` typically; Higham 2002, ch. 4).  numpy sums a contiguous array
pairwise, 128 terms at a time, which keeps the error at about ``log2(n) u``.
The fused kernels of the weight schemes (and the prefix-sum block kernels) do
the same: they sum ``CASCADE_ROWS`` rows in sequence into a partial sum, then
add the partial sums pairwise through a binary counter, the cascade
``(stack, count)``:

* ``stack[j]`` holds the sum of ``2**j`` consecutive tiles, for the set bits
  ``j`` of ``count`` (the number of tiles pushed so far);
* pushing tile ``count``'s partial sum adds it to ``stack[0]``, that to
  ``stack[1]``, ... for every trailing set bit of ``count`` (``p = stack[j] +
  p``, left operand the earlier tiles), and stores the result at the first
  clear bit;
* the total adds the remaining levels from the lowest up (``s = stack[j] + s``).

The order of every addition is a function of the number of rows only, so a
value depends only on the replicate (never on chunks, threads or processes).
Measured on sums of 100,000 non-negative terms (50 trials): in sequence,
median 26 and at most 98 ulps from the exact sum; in tiles of 256 through this
cascade, median 0 and at most 1 ulp, as ``np.sum``.

A partial sum is a vector of ``w`` values (several columns, or eight
replicates' sums and sums of squares side by side), summed together.

References
----------
.. [1] N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
       SIAM, 2002, sections 4.2 (pairwise summation) and 4.6.
"""

from __future__ import annotations

from numba import njit

__all__ = [
    "CASCADE_LEVELS",
    "CASCADE_ROWS",
    "EIGHT_TILE_BLOCKS",
    "cascade_push",
    "cascade_push_eight",
    "cascade_total",
    "neumaier_add",
]

#: Rows summed in sequence into one partial sum (numpy's pairwise block is 128;
#: 256 halves the fused kernels' per-tile overhead at the same measured error).
CASCADE_ROWS = 256
#: Blocks of FAST_BLOCK draws that the multi-column iid kernels add into their
#: eight accumulators per column before the tile's sums join the cascade (1024
#: draws, 128 per accumulator: var within 2-3 ulps at n = 100,000, numpy 1; the
#: push then costs 3-10% of the kernel instead of ~35% per 128-draw block).
EIGHT_TILE_BLOCKS = 8
#: Levels of a cascade: 2**48 tiles of CASCADE_ROWS rows, more than any n.
CASCADE_LEVELS = 48


@njit(cache=True, nogil=True, inline="always")
def cascade_push(stack, count, part):
    """Push the partial sum ``part`` (width ``w``; overwritten) of tile ``count``
    into the cascade ``stack`` (``(CASCADE_LEVELS, w)``); returns ``count + 1``."""
    c = count
    j = 0
    w = part.shape[0]
    while c & 1:
        for q in range(w):
            part[q] = stack[j, q] + part[q]
        c >>= 1
        j += 1
    for q in range(w):
        stack[j, q] = part[q]
    return count + 1


@njit(cache=True, nogil=True, inline="always")
def cascade_total(stack, count, out):
    """The sum of every tile pushed (``count`` of them) into ``out`` (width
    ``w``): the remaining levels added from the lowest up; 0.0 when none."""
    w = out.shape[0]
    for q in range(w):
        out[q] = 0.0
    c = count
    j = 0
    first = True
    while c:
        if c & 1:
            if first:
                for q in range(w):
                    out[q] = stack[j, q]
                first = False
            else:
                for q in range(w):
                    out[q] = stack[j, q] + out[q]
        c >>= 1
        j += 1


@njit(cache=True, nogil=True, inline="always")
def neumaier_add(total, comp, v):
    """``total + v`` and the compensation ``comp`` plus that add's rounding error
    (Neumaier 1974): ``total + comp`` is then the running sum to about one
    rounding.  Returns ``(total, comp)``."""
    t = total + v
    if abs(total) >= abs(v):
        comp += (total - t) + v
    else:
        comp += (v - t) + total
    return t, comp


@njit(cache=True, nogil=True, inline="always")
def cascade_push_eight(acc, acc2, d, part, stack, count):
    """Push one block of draws summed in eight accumulators per column: ``acc[p *
    d + j]`` (and ``acc2`` for squares) holds accumulator ``p`` of column ``j``.
    Column ``j``'s block sum ``((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))``
    goes to ``part[j]`` (squares to ``part[d + j]``), the accumulators are zeroed,
    and ``part`` joins the cascade; returns ``count + 1``."""
    for j in range(d):
        part[j] = ((acc[j] + acc[d + j]) + (acc[2 * d + j] + acc[3 * d + j])) + (
            (acc[4 * d + j] + acc[5 * d + j]) + (acc[6 * d + j] + acc[7 * d + j])
        )
        part[d + j] = (
            (acc2[j] + acc2[d + j]) + (acc2[2 * d + j] + acc2[3 * d + j])
        ) + ((acc2[4 * d + j] + acc2[5 * d + j]) + (acc2[6 * d + j] + acc2[7 * d + j]))
    for q in range(8 * d):
        acc[q] = 0.0
        acc2[q] = 0.0
    return cascade_push(stack, count, part)
