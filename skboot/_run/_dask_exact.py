"""The data-parallel iid, stratified and group bootstraps of a dask collection.

* ``Bootstrap`` (iid, with replacement, ``sample_size`` draws) and
  ``StratifiedBootstrap`` (``y`` a dask collection partitioned like the data):
  exact multinomial counts.  A light first pass returns each partition's row
  count per stratum; the client draws, per replicate, how many of the stratum's
  draws land in each partition (conditional binomials in partition order,
  :func:`skboot._kernels.exact_rows.partition_draws`) and sends partition ``j``
  its ``B x S`` numbers; the partition draws its rows uniformly with
  replacement among its own rows of each stratum and returns the sums of
  :class:`~skboot._run._dask_sums.PartitionSums`.  The replicates' law is the
  in-memory scheme's (counts Multinomial within each stratum), read from
  another stream, which depends on the partitioning.
* ``GroupBootstrap`` (``groups`` a dask collection partitioned like the data):
  every row of a group gets the group's Poisson(1) count, a pure function of
  the seed, the replicate and a 64-bit hash of the group id
  (:func:`pandas.util.hash_array`), so partitions need not hold whole groups:
  the Poisson analogue of the group bootstrap (Chamandy et al. 2012 hash the
  keys of dependent records the same way), not its multinomial counts.

References
----------
.. [1] N. Chamandy, O. Muralidharan, A. Najmi, S. Naidu, "Estimating
       uncertainty for massive data streams", Google technical report, 2012.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._random import PURPOSE, RootKey
from skboot._run._dask_counts import exact_draws
from skboot._run._dask_exact_rows import (
    StrataLoo,
    exact_partition,
    group_partition,
    merge_strata_loo,
    strata_loo_partition,
    unique_counts,
)
from skboot._run._dask_progress import dask_compute
from skboot._run._dask_sums import merge_sums, tree_merge
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments
from skboot.resamplers import (
    BaseResampler,
    GroupBootstrap,
    ResamplingPlan,
    StratifiedBootstrap,
)

if TYPE_CHECKING:
    from skboot._run._dask_checks import DaskRows


__all__ = [
    "MOMENT_OPS",
    "DataParallelPlan",
    "SchemeOps",
    "StrataJackknife",
    "merge_layout",
    "scheme_plan",
    "scheme_total",
    "strata_layout",
]

#: Strata x partitions above this: the client's binomial table would be large.
MAX_CELLS = 2**22


@dataclass(frozen=True, eq=False)
class DataParallelPlan(ResamplingPlan):
    """The plan a data-parallel run of ``scheme`` ("iid", "stratified",
    "group") records: its replicates are drawn on the workers, from streams
    that depend on the partitioning, so they are not regenerated here."""

    scheme: str = "iid"

    def indices(self, b: int) -> np.ndarray:
        raise ValueError(
            f"The replicates of a data-parallel {self.scheme} bootstrap are drawn "
            "where the rows live, from a stream that depends on the partitioning; "
            "they are not regenerated on the client. Bootstrap the computed "
            "collection (numpy or pandas) to inspect replicates."
        )

    def counts(self, b: int) -> np.ndarray:
        return self.indices(b)


# -- the strata -----------------------------------------------------------------
def label_blocks(value: Any, param: str, owner: str, rows: DaskRows) -> list[Any]:
    """The delayed row blocks of the 1-D dask collection ``value`` (strata or
    groups), checked to be partitioned like the data."""
    if hasattr(value, "to_dask_array"):
        if value.ndim != 1:
            raise value_error(
                param, owner, f"must be 1-D. Got {value.ndim} dimensions instead."
            )
        if not isinstance(value.dtype, np.dtype):
            value = value.astype(object)  # text labels: numpy objects per row
        arr = value.to_dask_array(lengths=True)
    else:
        arr = value
        if arr.ndim != 1:
            raise value_error(param, owner, f"must be 1-D. Got shape {arr.shape}.")
        if any(np.isnan(c) for c in arr.chunks[0]):
            arr = arr.compute_chunk_sizes()
    sizes = tuple(int(c) for c in arr.chunks[0])
    want = tuple(int(c) for c in rows.array.chunks[0])
    if sizes != want:
        raise value_error(
            param,
            owner,
            "must be partitioned like the data (row i of both in the same "
            f"partition). Got partition lengths {sizes[:6]} ({len(sizes)} "
            f"partitions); the data have {want[:6]} ({len(want)} partitions). "
            "Rechunk (dask arrays) or repartition (dask Series) one to match.",
        )
    return list(arr.to_delayed().ravel())


def strata_layout(
    blocks: list[Any], owner: str, param: str = "y"
) -> tuple[np.ndarray, np.ndarray]:
    """The sorted stratum labels and the (S, P) row counts of every stratum in
    every partition, from one pass that returns each partition's distinct
    labels and their counts (``param``: the strata's parameter name)."""
    import dask

    parts = dask.compute(*[dask.delayed(unique_counts, pure=True)(b) for b in blocks])
    return merge_layout(list(parts), owner, param)


def merge_layout(
    parts: list[tuple[np.ndarray, np.ndarray]], owner: str, param: str = "y"
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`strata_layout` of the partitions' row counts per label
    (:func:`~skboot._run._dask_exact_rows.unique_counts`)."""
    labels = np.unique(np.concatenate([p[0] for p in parts]))
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise value_error(
            param, owner, "must not contain NaN (a stratum label). Got NaN."
        )
    sizes = np.zeros((labels.shape[0], len(parts)), dtype=np.int64)
    for j, (values, counts) in enumerate(parts):
        sizes[np.searchsorted(labels, values), j] = counts
    if sizes.size > MAX_CELLS:
        raise value_error(
            param,
            owner,
            f"has {labels.shape[0]} strata over {len(parts)} partitions: the "
            f"client would draw that many binomials per replicate (at most "
            f"{MAX_CELLS} strata x partitions). Use fewer strata or partitions.",
        )
    return labels, sizes


# -- the run ---------------------------------------------------------------------
@dataclass(frozen=True)
class SchemeOps:
    """What a partition computes in a data-parallel scheme and how two results
    merge: ``exact(block, strata, labels, draws, seeds, gamma, want2)`` (iid and
    stratified), ``group(block, groups, seed, gamma, n_resamples, want2)`` and
    ``merge(a, b)``; :data:`MOMENT_OPS` for the moments."""

    exact: Any
    group: Any
    merge: Any


MOMENT_OPS = SchemeOps(exact_partition, group_partition, merge_sums)


@dataclass(frozen=True)
class SchemeTotal:
    """A data-parallel scheme's merged sums, its plan, and (stratified) what
    BCa's stratified jackknife needs."""

    total: Any  # PartitionSums (or what the scheme's ops merge)
    plan: DataParallelPlan
    strata: StrataJackknife | None = None


def scheme_total(
    res: BaseResampler,
    key: RootKey,
    rows: DaskRows,
    y: Any,
    groups: Any,
    want2: bool,
    owner: str,
    progress: bool = False,
    ops: SchemeOps | None = None,
) -> SchemeTotal:
    """Run the data-parallel ``res`` (Bootstrap, StratifiedBootstrap or
    GroupBootstrap, parameters checked) on ``rows``; ``key`` the run's root;
    ``progress``: dask's progress display for the pass over the rows;
    ``ops``: the partition and merge functions (default: the moments')."""
    import dask

    ops = MOMENT_OPS if ops is None else ops
    B = int(res.n_resamples)
    blocks = list(rows.array.to_delayed().ravel())
    merge = dask.delayed(ops.merge, pure=True)
    n = rows.n_samples
    if isinstance(res, GroupBootstrap):
        gblocks = label_blocks(groups, "groups", owner, rows)
        seed, gamma = key.stream(PURPOSE["data_parallel"])
        part = dask.delayed(ops.group, pure=True)
        parts = [
            part(b, g, seed, gamma, B, want2)
            for b, g in zip(blocks, gblocks, strict=True)
        ]
        (total,) = dask_compute(tree_merge(parts, merge), progress=progress)
        return SchemeTotal(total, DataParallelPlan(key, n, scheme="group"))
    labels: np.ndarray | None = None
    if isinstance(res, StratifiedBootstrap):
        yblocks: list[Any] = label_blocks(y, "y", owner, rows)
        labels, sizes = strata_layout(yblocks, owner)
        totals = sizes.sum(axis=1)
        scheme = "stratified"
    else:
        yblocks = [None] * len(blocks)
        sizes = np.array([[int(s) for s in rows.array.chunks[0]]], dtype=np.int64)
        size = res.fit_with_key(key, np.empty((n, 0))).plan_.replicate_size
        totals = np.array([size], dtype=np.int64)
        scheme = "iid"
    ex = exact_draws(key, totals, sizes, B)
    part = dask.delayed(ops.exact, pure=True)
    parts = []
    for j, (blk, yb) in enumerate(zip(blocks, yblocks, strict=True)):
        parts.append(part(blk, yb, labels, ex.table[j], ex.seeds(j), ex.gamma, want2))
    (total,) = dask_compute(tree_merge(parts, merge), progress=progress)
    strata = None if labels is None else StrataJackknife(yblocks, labels)
    return SchemeTotal(total, DataParallelPlan(key, n, scheme=scheme), strata)


# -- BCa of the stratified bootstrap ------------------------------------------------
def strata_moments(t: StrataLoo) -> JackknifeMoments:
    """The acceleration's sums of the stratified jackknife (what
    :func:`skboot._run.stratified_jackknife` gives in memory): stratum ``s``'s
    values centred on their mean and scaled by ``c_s = (n_s - 1) / n_s``, so
    ``m2 = sum_s c_s**2 C2_s`` and ``m3 = -sum_s c_s**3 C3_s`` with ``C2_s``,
    ``C3_s`` the stratum's central sums (a stratum of one row adds 0)."""
    n = t.n[:, None].astype(float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        mean = t.p1 / np.maximum(n, 1.0)
        c2 = np.maximum(t.p2 - mean * t.p1, 0.0)
        c3 = t.p3 - 3.0 * mean * t.p2 + 2.0 * mean * mean * t.p1
        c = np.where(n > 1, (n - 1.0) / np.maximum(n, 1.0), 0.0)
        m2 = (c * c * c2).sum(axis=0)
        m3 = -(c * c * c * c3).sum(axis=0)
    flat = (t.lo == t.hi) | (t.n[:, None] <= 1)
    return JackknifeMoments(
        int(t.n.sum()), m2, m3, flat.all(axis=0), t.n_nonfinite, True
    )


@dataclass(frozen=True)
class StrataJackknife:
    """What the stratified jackknife's pass needs: the strata's row blocks
    (delayed, aligned with the data's) and the sorted labels."""

    blocks: list[Any]
    labels: np.ndarray

    def moments(
        self, rows: DaskRows, rule: Any, progress: bool = False
    ) -> JackknifeMoments:
        """One pass over the partitions: the stratified acceleration's sums."""
        import dask

        part = dask.delayed(strata_loo_partition, pure=True)
        merge = dask.delayed(merge_strata_loo, pure=True)
        data = rows.array.to_delayed().ravel()
        parts = [
            part(b, y, self.labels, rule)
            for b, y in zip(data, self.blocks, strict=True)
        ]
        (total,) = dask_compute(tree_merge(parts, merge), progress=progress)
        return strata_moments(total)


def scheme_plan(key: RootKey, n: int, scheme: str) -> DataParallelPlan:
    """The plan a data-parallel run of ``scheme`` records."""
    return DataParallelPlan(key, n, scheme=scheme)
