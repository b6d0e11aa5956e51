"""The resampling schemes of a data-parallel metric run (predictions in dask
collections) and the per-row counts of each partition.

* :class:`~skboot.resamplers.PoissonBootstrap`: row ``i``'s count in replicate
  ``b`` is a pure function of ``(key, b, i)``; the partition kernels draw it
  (the in-memory run's replicates, on the same rows and seed).
* :class:`~skboot.resamplers.Bootstrap` (the default, ``resampler=None``) and
  :class:`~skboot.resamplers.StratifiedBootstrap` (``stratify=True``; the
  strata are the classes of ``y_true``, as in memory): the exact multinomial
  counts of :func:`skboot.bootstrap`'s data-parallel schemes.  A first pass
  returns each partition's rows per class, the client draws each partition's
  share of every replicate's draws
  (:func:`skboot._run._dask_counts.exact_counts`) and the partition draws its
  rows (:class:`skboot._run._dask_counts.ExactCounts`).  The law of the
  replicates is the in-memory scheme's; the stream depends on the
  partitioning (and, for ROC AUC and average precision, on the partitions
  sorted by score), so the replicates are not the in-memory ones.
* :class:`~skboot.resamplers.GroupBootstrap` (``groups=``): every row of a
  group gets the group's Poisson(1) count from a hash of its id
  (:class:`skboot._run._dask_counts.GroupCounts`), as :func:`skboot.bootstrap`
  does for a dask collection.

A partition's ``stream`` is the Poisson stream ``(seed, gamma, B)`` (a tuple)
or its :class:`~skboot._run._dask_counts.ExactCounts` /
:class:`~skboot._run._dask_counts.GroupCounts`;
:func:`~skboot._run._dask_counts.count_chunks` gives the counts of the latter a
chunk of replicates at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._random import PURPOSE, check_random_state
from skboot._run import fit_resampler
from skboot._run._dask import NO_GROUP_BCA
from skboot._run._dask_counts import ExactCounts, exact_counts, group_counts
from skboot._run._dask_exact import scheme_plan, strata_layout
from skboot._validation import value_error
from skboot.metrics._dask_inputs import Inputs, group_blocks, refuse
from skboot.resamplers import (
    BaseResampler,
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)

__all__ = [
    "SCHEMES",
    "RowScheme",
    "check_ranked",
    "check_scheme",
    "interval_method",
    "per_partition_scheme",
    "row_scheme",
    "sorted_scheme",
]

#: The resamplers of predictions in dask collections.
SCHEMES = (Bootstrap, StratifiedBootstrap, GroupBootstrap, PoissonBootstrap)
_NAMES = "Bootstrap, StratifiedBootstrap, GroupBootstrap or PoissonBootstrap"


@dataclass(frozen=True)
class RowScheme:
    """A run's scheme: ``kind`` ("poisson", "iid", "stratified", "group"),
    the stream of each partition
    (:func:`~skboot._run._dask_counts.count_chunks`) and the blocks whose
    labels each partition's counts need (``y_true`` for the strata, the
    groups; None otherwise); ``key``: the run's root; ``size``: the iid
    scheme's draws per replicate."""

    kind: str
    streams: list[Any]
    labels: list[Any]
    key: Any = None
    size: int = 0
    classes: np.ndarray | None = None


def check_scheme(resampler: BaseResampler, owner: str, groups: Any) -> None:
    """Refuse a resampler the partitions cannot draw alone, and ``groups``
    without :class:`GroupBootstrap` (or the reverse), before any work."""
    grouped = isinstance(resampler, GroupBootstrap)
    if grouped and groups is None:
        raise value_error(
            "groups",
            owner,
            "must be a dask collection partitioned like y_true with "
            "GroupBootstrap (the group of each row). Got None.",
        )
    if groups is not None and not grouped:
        raise refuse(
            "groups",
            owner,
            "must be None with predictions in dask collections unless the "
            f"resampler is GroupBootstrap (or None). Got resampler={resampler!r}.",
        )
    if type(resampler) in SCHEMES:
        return
    raise refuse(
        "resampler",
        owner,
        f"must be {_NAMES} (or None: Bootstrap) with predictions in dask "
        "collections (block bootstraps draw runs of consecutive rows across "
        "partition boundaries; Bayesian weights are normalized by a sum over "
        f"all rows). Got {resampler!r}.",
    )


def row_scheme(
    res: BaseResampler, source: Any, inputs: Inputs, groups: Any, owner: str
) -> tuple[BaseResampler, RowScheme]:
    """The fitted resampler (its plan records the scheme) and the streams of
    the partitions: for the stratified scheme after a pass that counts every
    partition's rows per class of ``y_true``."""
    n, B = inputs.n_samples, int(res.n_resamples)
    if isinstance(res, PoissonBootstrap):
        res = fit_resampler(res, source, np.empty((n, 0)), checked=True)
        seed, gamma = res.key_.stream(PURPOSE["poisson"])
        P = len(inputs.starts)
        return res, RowScheme("poisson", [(seed, gamma, B)] * P, [None] * P)
    key = check_random_state(source, owner=type(res).__name__)
    if isinstance(res, GroupBootstrap):
        blocks = group_blocks(groups, inputs, owner)
        fitted = res._fit_plan(key, scheme_plan(key, n, "group"))
        stream = group_counts(key, B)
        return fitted, RowScheme("group", [stream] * len(blocks), blocks, key)
    if isinstance(res, StratifiedBootstrap):
        labels, sizes = strata_layout(inputs.y_true, owner, "y_true")
        streams = exact_counts(key, sizes.sum(axis=1), sizes, labels, B)
        fitted = res._fit_plan(key, scheme_plan(key, n, "stratified"))
        blocks = list(inputs.y_true)
        return fitted, RowScheme("stratified", streams, blocks, key, 0, labels)
    size = res.fit_with_key(key, np.empty((n, 0))).plan_.replicate_size
    sizes = np.array([[s for s in _lengths(inputs)]], dtype=np.int64)
    streams = exact_counts(key, np.array([size], dtype=np.int64), sizes, None, B)
    fitted = res._fit_plan(key, scheme_plan(key, n, "iid"))
    return fitted, RowScheme("iid", streams, [None] * len(streams), key, size)


def _lengths(inputs: Inputs) -> list[int]:
    """The partitions' row counts."""
    ends = [*inputs.starts[1:], inputs.n_samples]
    return [e - s for s, e in zip(inputs.starts, ends, strict=True)]


def sorted_scheme(
    scheme: RowScheme, B: int, sizes: np.ndarray, labels: np.ndarray | None
) -> list[ExactCounts]:
    """The exact streams of partitions sorted by score: ``sizes`` (S, P) their
    rows per stratum (iid: one stratum) after the sort, ``labels`` the sorted
    stratum codes (None for iid)."""
    if scheme.kind == "iid":
        totals = np.array([scheme.size], dtype=np.int64)
        return exact_counts(scheme.key, totals, sizes, None, B)
    return exact_counts(scheme.key, sizes.sum(axis=1), sizes, labels, B)


def per_partition_scheme(inputs: Inputs, scheme: RowScheme, call: Any) -> list[Any]:
    """``call(y_true, preds, sample_weight, start, stream, labels)`` on the
    blocks of each partition, in order (``stream``, ``labels``: the
    partition's, from ``scheme``)."""
    return [
        call(yt, [p[i] for p in inputs.preds], inputs.weight[i], start, st, lab)
        for i, (yt, start, st, lab) in enumerate(
            zip(
                inputs.y_true, inputs.starts, scheme.streams, scheme.labels, strict=True
            )
        )
    ]


def interval_method(
    owner: str,
    chosen: Any,
    method: str,
    name: str,
    registry: str,
    weighted: bool,
    res: BaseResampler,
) -> str:
    """The interval method: BCa (the default) wherever its acceleration is
    computed where the rows live (every metric, with or without sample
    weights); with groups the default "percentile" (as
    :func:`skboot.bootstrap` does) and "bca" refused before any work.
    ``name``, ``registry`` and ``weighted`` are kept for the callers."""
    if isinstance(res, GroupBootstrap):
        if chosen is None:
            return "percentile"
        if method == "bca":
            raise value_error(
                "method", owner, f"must not be 'bca' here: {NO_GROUP_BCA}"
            )
        return method
    return method


def check_ranked(owner: str, res: BaseResampler, n_preds: int, name: str) -> None:
    """A ranking metric of two models under an exact or group scheme is
    refused, before any work: each model's rows are sorted by its own scores,
    and the exact counts are drawn per sorted partition, so the two models'
    replicates would not resample the same rows."""
    if n_preds == 1 or isinstance(res, PoissonBootstrap):
        return
    raise refuse(
        "resampler",
        owner,
        f"must be PoissonBootstrap(...) to compare the metric {name!r} of two "
        "models with predictions in dask collections: each model's rows are "
        "sorted by its own scores, and only the Poisson counts (a function of "
        "the original row number) give both models the same replicates. Got "
        f"{res!r}.",
    )
