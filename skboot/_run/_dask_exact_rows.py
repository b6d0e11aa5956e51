"""The partition functions of the data-parallel exact schemes (they run on dask
workers): one partition's sums of its exact iid or stratified replicates, of its
hashed-group Poisson replicates, and of the stratified jackknife.  The client
side (the draws per partition, the plan, the passes) is
:mod:`skboot._run._dask_exact`.  This module imports numpy, the kernels and the
partition sums only: a worker that runs it loads neither the resamplers nor
scikit-learn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows
from skboot._kernels.exact_rows import exact_rows_moments, group_poisson_moments
from skboot._run._dask_jackknife import loo_deviations
from skboot._run._dask_sums import PartitionSums, empty_sums, partition_centre

__all__ = [
    "StrataLoo",
    "empty_strata_loo",
    "exact_partition",
    "group_hashes",
    "group_partition",
    "merge_strata_loo",
    "strata_loo_partition",
    "strata_loo_sums",
    "stratum_codes",
    "stratum_pool",
    "unique_counts",
]


def unique_counts(block: Any) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values of ``block`` and how often each occurs."""
    values, counts = np.unique(np.asarray(block), return_counts=True)
    return values, counts


def stratum_codes(labels: np.ndarray, block: Any) -> np.ndarray:
    """Each row's stratum number among the sorted ``labels``."""
    return np.searchsorted(labels, np.asarray(block)).astype(np.int64)


# -- one partition (runs on a worker) ------------------------------------------
def stratum_pool(
    strata: Any, labels: np.ndarray | None, draws: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A partition's rows grouped by stratum: ``pool`` (the rows in stratum
    order), each stratum's ``offsets`` in it and ``sizes``, for its ``draws``
    (B, S) of :func:`partition_draws`; ``strata`` the partition's stratum
    labels among the sorted ``labels`` (None: one stratum, the rows in order)."""
    if labels is None:
        pool = np.arange(m, dtype=np.int64)
        sizes = np.array([m], dtype=np.int64)
    else:
        codes = stratum_codes(labels, strata)
        pool = np.argsort(codes, kind="stable").astype(np.int64)
        sizes = np.bincount(codes, minlength=draws.shape[1]).astype(np.int64)
    if draws.shape[0] and np.any((draws.max(axis=0) > 0) & (sizes == 0)):
        raise RuntimeError(
            "A partition's strata changed between two passes over it (the dask "
            "collection is not deterministic); persist() it first."
        )
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    return pool, offsets, sizes


def exact_partition(
    block: Any,
    strata: Any,
    labels: np.ndarray | None,
    draws: np.ndarray,
    seeds: np.ndarray,
    gamma: np.uint64,
    want2: bool,
) -> PartitionSums:
    """The sums of one partition's exact replicates: ``draws`` (B, S) of
    :func:`partition_draws`, ``seeds`` (S,) its sub-streams; ``strata`` the
    partition's stratum labels (None: one stratum)."""
    c = partition_centre(block)
    m, d = c.X.shape
    s1, s2, sw = empty_sums(draws.shape[0], d)
    if m == 0:
        return c.sums(s1, s2, sw)
    pool, offsets, sizes = stratum_pool(strata, labels, draws, m)
    exact_rows_moments(
        c.X, c.shift, seeds, gamma, draws, pool, offsets, sizes, want2, s1, s2, sw
    )
    return c.sums(s1, s2, sw)


def group_hashes(block: Any) -> np.ndarray:
    """The 64-bit hash of every row's group id (:func:`pandas.util.hash_array`:
    the same on every machine and process)."""
    from pandas.util import hash_array

    values = np.asarray(block)
    if values.dtype.kind not in "biufcmM":
        values = values.astype(object)
    return np.ascontiguousarray(hash_array(values), dtype=np.uint64)


def group_partition(
    block: Any,
    groups: Any,
    seed: np.uint64,
    gamma: np.uint64,
    n_resamples: int,
    want2: bool,
) -> PartitionSums:
    """The sums of one partition's hashed-group Poisson replicates."""
    c = partition_centre(block)
    s1, s2, sw = empty_sums(n_resamples, c.X.shape[1])
    if c.X.shape[0] == 0:
        return c.sums(s1, s2, sw)
    hashes = group_hashes(groups)
    group_poisson_moments(c.X, c.shift, seed, gamma, hashes, want2, s1, s2, sw)
    return c.sums(s1, s2, sw)


@dataclass(frozen=True)
class StrataLoo:
    """Per stratum (rows) and column: the count, the power sums of the finite
    ``e_i`` and their least and greatest value; the non-finite rows."""

    n: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    p3: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_nonfinite: int = 0


def strata_loo_partition(
    block: Any, strata: Any, labels: np.ndarray, rule: Any
) -> StrataLoo:
    """One partition's leave-one-out power sums, stratum by stratum."""
    X = as_float_rows(np.asarray(block))
    d = X.shape[1] if getattr(rule, "deviations", None) is None else rule.k
    out = empty_strata_loo(labels.shape[0], d)
    if X.shape[0] == 0:
        return out
    codes = stratum_codes(labels, strata)
    # a rule with its own deviations (the "ols" of a dask collection)
    own = getattr(rule, "deviations", None)
    e = own(X) if own is not None else loo_deviations(rule, X)
    return strata_loo_sums(e, codes, out)


def strata_loo_sums(e: np.ndarray, codes: np.ndarray, out: StrataLoo) -> StrataLoo:
    """Add the (m, d) leave-one-out deviations ``e`` of rows in strata
    ``codes`` to the zeroed sums ``out`` (:func:`empty_strata_loo`)."""
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(e).all(axis=1)
        np.add.at(out.n, codes, 1)
        fc, fe = codes[finite], e[finite]
        for power, acc in ((1, out.p1), (2, out.p2), (3, out.p3)):
            np.add.at(acc, fc, fe**power)
        np.minimum.at(out.lo, fc, fe)
        np.maximum.at(out.hi, fc, fe)
    nonfinite = int(e.shape[0] - finite.sum())
    return StrataLoo(out.n, out.p1, out.p2, out.p3, out.lo, out.hi, nonfinite)


def empty_strata_loo(S: int, d: int) -> StrataLoo:
    """Zeroed :class:`StrataLoo` of ``S`` strata and ``d`` columns."""
    return StrataLoo(
        np.zeros(S, dtype=np.int64),
        np.zeros((S, d)),
        np.zeros((S, d)),
        np.zeros((S, d)),
        np.full((S, d), np.inf),
        np.full((S, d), -np.inf),
    )


def merge_strata_loo(a: StrataLoo, b: StrataLoo) -> StrataLoo:
    """The leave-one-out sums of the rows of ``a`` and ``b`` together."""
    return StrataLoo(
        a.n + b.n,
        a.p1 + b.p1,
        a.p2 + b.p2,
        a.p3 + b.p3,
        np.minimum(a.lo, b.lo),
        np.maximum(a.hi, b.hi),
        a.n_nonfinite + b.n_nonfinite,
    )
