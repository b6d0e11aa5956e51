"""The counts per row of the data-parallel exact (iid, stratified) and
hashed-group bootstraps, a chunk of replicates at a time: for the partition
kernels that weight each row by its count (the metrics of predictions in dask
collections).

The client computes :class:`ExactDraws` once (the
conditional binomials of :func:`skboot._kernels.exact_rows.partition_draws`)
and sends partition ``j`` its :class:`ExactCounts`; on the worker,
:meth:`ExactCounts.chunks` draws the partition's rows as
:func:`skboot._run._dask_exact.exact_partition` draws them
(:func:`skboot._kernels.exact_rows.stratum_row_counts`).  Hashed groups:
:class:`GroupCounts`, the counts of
:func:`skboot._kernels.exact_rows.group_poisson_counts`.  A chunk is a
``(c, m)`` int32 block of at most :data:`CHUNK_CELLS` counts: nothing of size
B x m is allocated.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.exact_counts import exact_count_chunk, group_count_chunk
from skboot._kernels.exact_rows import partition_draws
from skboot._random import FAST_BLOCK, PURPOSE, RootKey, substream_seed
from skboot._run._dask_exact_rows import group_hashes, stratum_pool

__all__ = [
    "CHUNK_CELLS",
    "ExactCounts",
    "ExactDraws",
    "GroupCounts",
    "chunk_rows",
    "count_chunks",
    "exact_counts",
    "exact_draws",
    "group_counts",
    "n_resamples_of",
]

#: int32 counts per chunk (4 MiB).
CHUNK_CELLS = 2**20


def chunk_rows(B: int, m: int) -> int:
    """Replicates per chunk of a partition of ``m`` rows."""
    return max(1, min(B, CHUNK_CELLS // max(m, 1)))


@dataclass(frozen=True)
class ExactCounts:
    """One partition's share of an exact replicate: ``draws`` (B, S) among its
    rows of each stratum, ``seeds`` (S,) its sub-streams, ``gamma``, and the
    sorted stratum ``labels`` (None: the iid scheme, one stratum)."""

    draws: np.ndarray
    seeds: np.ndarray
    gamma: np.uint64
    labels: np.ndarray | None

    @property
    def n_resamples(self) -> int:
        return int(self.draws.shape[0])

    def chunks(self, strata: Any, m: int) -> Iterator[tuple[int, np.ndarray]]:
        """``(k0, counts)``: the (c, m) int32 counts of replicates ``k0 ..
        k0 + c - 1`` of the partition's ``m`` rows (``strata``: their stratum
        labels; ignored by the iid scheme).  The block is reused."""
        pool, offsets, sizes = stratum_pool(strata, self.labels, self.draws, m)
        buf = np.empty(FAST_BLOCK, dtype=np.uint64)
        tmp = np.empty(max(1, int(sizes.max(initial=1))))
        cnt = np.empty(m)
        B = self.n_resamples
        c = chunk_rows(B, m)
        out = np.empty((c, m), dtype=np.int32)
        for k0 in range(0, B, c):
            block = out[: min(c, B - k0)]
            exact_count_chunk(
                self.seeds, self.gamma, k0, self.draws, pool, offsets, sizes,
                buf, tmp, cnt, block,
            )  # fmt: skip
            yield k0, block


@dataclass(frozen=True)
class GroupCounts:
    """The hashed-group Poisson counts of ``n_resamples`` replicates from the
    stream ``(seed, gamma)``: every row of a group gets its group's count."""

    seed: np.uint64
    gamma: np.uint64
    n_resamples: int

    def chunks(
        self, groups: Any, m: int, hashed: bool = False
    ) -> Iterator[tuple[int, np.ndarray]]:
        """As :meth:`ExactCounts.chunks`, ``groups`` the rows' group ids (with
        ``hashed``: their :func:`~skboot._run._dask_exact.group_hashes`)."""
        if hashed:
            hashes = np.ascontiguousarray(groups, dtype=np.uint64)
        else:
            hashes = group_hashes(groups) if m else np.empty(0, dtype=np.uint64)
        cnt = np.empty(m)
        B = self.n_resamples
        c = chunk_rows(B, m)
        out = np.empty((c, m), dtype=np.int32)
        for k0 in range(0, B, c):
            block = out[: min(c, B - k0)]
            group_count_chunk(self.seed, self.gamma, k0, hashes, cnt, block)
            yield k0, block


@dataclass(frozen=True)
class ExactDraws:
    """The client's share of an exact scheme: ``table`` (P, B, S), the draws
    of every replicate among each partition's rows of each stratum, and the
    stream; partition ``j`` draws its rows from :meth:`seeds` ``(j)``."""

    table: np.ndarray
    seed: np.uint64
    gamma: np.uint64

    def seeds(self, j: int) -> np.ndarray:
        """Partition ``j``'s sub-stream of each stratum."""
        S = self.table.shape[2]
        return np.array([substream_seed(self.seed, j * S + s + 1) for s in range(S)])


def exact_draws(
    key: RootKey, totals: np.ndarray, sizes: np.ndarray, B: int
) -> ExactDraws:
    """(P, B, S) draws per partition, replicate and stratum (``totals[s]``
    draws per replicate in stratum ``s``, ``sizes`` (S, P) its rows per
    partition), from the stream of purpose "data_parallel"."""
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    S, P = sizes.shape
    out = np.empty((P, B, S), dtype=np.int64)
    partition_draws(seed, gamma, np.uint64(0), totals, sizes, out)
    return ExactDraws(out, seed, gamma)


def exact_counts(
    key: RootKey,
    totals: np.ndarray,
    sizes: np.ndarray,
    labels: np.ndarray | None,
    B: int,
) -> list[ExactCounts]:
    """Each partition's :class:`ExactCounts`: ``totals[s]`` draws per replicate
    in stratum ``s``, ``sizes`` (S, P) its rows per partition."""
    ex = exact_draws(key, totals, sizes, B)
    return [
        ExactCounts(ex.table[j], ex.seeds(j), ex.gamma, labels)
        for j in range(sizes.shape[1])
    ]


def group_counts(key: RootKey, B: int) -> GroupCounts:
    """The hashed-group counts of the run with root ``key`` (the stream of
    :func:`skboot._run._dask_exact.scheme_total`'s group bootstrap)."""
    seed, gamma = key.stream(PURPOSE["data_parallel"])
    return GroupCounts(seed, gamma, B)


def n_resamples_of(stream: Any) -> int:
    """The replicates of a partition's stream."""
    if isinstance(stream, tuple):
        return int(stream[2])
    return int(stream.n_resamples)


def count_chunks(stream: Any, labels: Any, m: int) -> Iterator[tuple[int, np.ndarray]]:
    """The counts of an exact or group ``stream`` of a partition of ``m`` rows
    (``labels``: its strata or group ids), ``(k0, (c, m) int32)`` a chunk of
    replicates at a time."""
    assert isinstance(stream, (ExactCounts, GroupCounts))
    return stream.chunks(labels, m)
