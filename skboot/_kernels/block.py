"""Numba kernels of the block bootstraps.

Every kernel regenerates replicate ``b`` from the counter-based stream of
:mod:`skboot._random`; nothing depends on the chunk a replicate falls in, so results
are bit-identical for any chunk size, ``n_jobs`` or backend.

Three outputs per scheme family (fixed-length blocks: moving, circular,
non-overlapping; geometric blocks: stationary; tapered blocks):

* ``*_indices_chunk``: row ``k`` of a 2-D int array gets the ``n`` row indices of
  replicate ``b0 + k``;
* ``*_counts_chunk`` / ``tapered_weights_chunk``: row ``k`` of a float64
  ``(nb, n)`` array gets the per-row multiplicities (or tapered weights);
* ``*_moments``: the fused prefix-sum path.  Column sums of ``X`` and ``X**2`` are
  accumulated once per call (O(n d)) in two parts, ``P + Q`` (Neumaier's
  compensation, :func:`prefix_sums_compensated`); a block ``[s, e)`` then
  contributes ``(P[e] - P[s]) + (Q[e] - Q[s])`` (plus the wrapped part), so a
  replicate costs O(n / L * d).  Blocks are added in draw order, ``BLOCK_TILE``
  at a time, and those partial sums pairwise (:mod:`skboot._kernels.cascade`), so
  a replicate's value depends only on ``b`` and is about as precise as numpy's
  pairwise sum of the replicate's rows (at n = 100,000 and blocks of 10, var
  within a few ulps; sequential prefix sums were 90-150 ulps off).
  The engine passes centred data (``x - c``, :func:`skboot._engine.centre_of`):
  prefix sums of uncentred data would carry rounding errors of the size of the
  offset times ``n`` into every block difference.

Kernels use int64/float64 scalars, uint64 seeds, and release the GIL.  They live in
:mod:`skboot._kernels._generated_block`, expanded from
``tools/kernel_templates/block.py.in`` (the walk over a replicate's blocks is
written once, as a macro of ``tools/generate_kernels.py``).
"""

from __future__ import annotations

from skboot._kernels._generated_block import (
    BLOCK_TILE,
    SB_BATCH,
    fixed_counts_chunk,
    fixed_indices_chunk,
    fixed_moments,
    fixed_starts,
    prefix_sums,
    prefix_sums_compensated,
    stationary_blocks,
    stationary_counts_chunk,
    stationary_indices_chunk,
    stationary_moments,
    tapered_moments,
    tapered_weights_chunk,
)

__all__ = [
    "BLOCK_TILE",
    "SB_BATCH",
    "fixed_counts_chunk",
    "fixed_indices_chunk",
    "fixed_moments",
    "fixed_starts",
    "prefix_sums",
    "prefix_sums_compensated",
    "stationary_blocks",
    "stationary_counts_chunk",
    "stationary_indices_chunk",
    "stationary_moments",
    "tapered_moments",
    "tapered_weights_chunk",
]
