"""The data-parallel Poisson bootstrap: data in a dask collection, reduced where
they live.

Each partition (rows ``start .. start + m - 1`` of the whole) reduces its rows
to per-replicate sums, ``B x d`` numbers: the total count ``sum_i c_bi`` and
the count-weighted sums of ``x - s`` and ``(x - s)**2``, ``s`` the partition's
own centre (the mean of its finite values, an integer for a column of
integers); row ``i``'s count in replicate
``b`` is a pure function of ``(key, b, i)`` (:mod:`skboot._kernels.poisson_rows`),
so the partitions need nothing from each other.  The partials are merged in a
fixed pairwise tree (partition order, not completion order) by the parallel
formulas of Chan, Golub & LeVeque (1979), moving both to a common centre, and
the statistic is computed from the root, as the in-memory built-ins compute it
from their fused sums (:func:`skboot._engine.moments_to_values`).  One extra row
of the sums holds the unit weights: the estimate on the original data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine import Statistic, as_float_rows, moments_to_values
from skboot._kernels.poisson_rows import column_summary, poisson_rows_moments
from skboot._random import PURPOSE
from skboot._run._context import (
    check_distribution_memory,
    fit_resampler,
    resolve_resampler,
)
from skboot._run._dask_checks import DaskRows, check_data_parallel, dask_rows
from skboot._run._dask_jackknife import (
    LooRule,
    loo_moments,
    loo_partition,
    merge_loo,
    moment_rule,
)
from skboot._run._data import Data
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments
from skboot.resamplers import BaseResampler, ResamplingPlan

__all__ = [
    "DataParallelRun",
    "DataParallelStatistic",
    "PartitionSums",
    "loo_pass",
    "merge_sums",
    "partition_sums",
    "run_data_parallel",
    "tree_merge",
]

#: Why the interval methods that revisit the rows are unavailable.
NO_ROWS = (
    "The data of this result stay in a dask collection: the studentized and "
    "calibrated intervals would revisit every row. Use method 'percentile', "
    "'basic', 'normal', 'bc' or 'bca' (BCa's acceleration takes one more pass "
    "over the partitions), or call .compute() on the collection and bootstrap "
    "the numpy array if it fits in memory."
)
#: Why the leave-one-out values themselves are unavailable.
NO_VALUES = (
    "The data of this result stay in a dask collection, so its n leave-one-out "
    "values are not brought to this process; confidence_interval(method='bca') "
    "and pvalue(method='bca') compute the acceleration from their sums where "
    "the rows live. Call .compute() on the collection and bootstrap the numpy "
    "array to get the values if they fit in memory."
)


@dataclass(frozen=True)
class PartitionSums:
    """Per-replicate sums of some rows, about the centre ``shift`` (d,).

    ``s1``, ``s2``: (B + 1, d) count-weighted sums of ``x - shift`` and of its
    square (row B: unit weights, the original data); ``sw``: (B + 1,) the
    counts' totals; ``integral``: whether each column held integers only (its
    shift is then an integer and the sums stay exact); ``n_nonfinite`` and
    ``n_notbinary``: values the checks made after the pass refuse.
    """

    n: int
    shift: np.ndarray
    integral: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    sw: np.ndarray
    n_nonfinite: int = 0
    n_notbinary: int = 0


def partition_sums(
    block: Any,
    start: int,
    seed: np.uint64,
    gamma: np.uint64,
    n_resamples: int,
    want2: bool,
) -> PartitionSums:
    """The sums of one partition (runs on a worker): ``block`` holds the global
    rows ``start .. start + len(block) - 1``.  Two passes over the rows (their
    centre, then the sums) and nothing of their size allocated beyond a float64
    copy of a block of another dtype."""
    X = as_float_rows(np.asarray(block))
    m, d = X.shape
    B = n_resamples
    s1 = np.zeros((B + 1, d))
    s2 = np.zeros((B + 1, d))
    sw = np.zeros(B + 1)
    sums = np.empty(d)
    finite = np.empty(d, dtype=np.int64)
    integral = np.empty(d, dtype=np.bool_)
    if m == 0:
        return PartitionSums(0, np.zeros(d), np.ones(d, dtype=bool), s1, s2, sw)
    n_nonfinite, n_notbinary = column_summary(X, sums, finite, integral)
    # the centre: the mean of the finite values (0 if none), an integer for a
    # column of integers (its centred sums are then exact)
    shift = np.where(finite > 0, sums / np.maximum(finite, 1), 0.0)
    shift = np.where(integral, np.round(shift), shift)
    poisson_rows_moments(
        X,
        shift,
        seed,
        gamma,
        np.int64(0),
        np.int64(start),
        want2,
        s1[:B],
        s2[:B],
        sw[:B],
        s1[B],
        s2[B],
    )
    sw[B] = float(m)
    return PartitionSums(
        m, shift, integral, s1, s2, sw, int(n_nonfinite), int(n_notbinary)
    )


def _moved(p: PartitionSums, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p``'s sums about ``centre`` instead of ``p.shift``."""
    delta = (p.shift - centre)[None, :]
    w = p.sw[:, None]
    with np.errstate(invalid="ignore"):
        s1 = p.s1 + w * delta
        s2 = p.s2 + (2.0 * delta) * p.s1 + w * (delta * delta)
    return s1, s2


def merge_sums(a: PartitionSums, b: PartitionSums) -> PartitionSums:
    """The sums of the rows of ``a`` and ``b``, about their pooled centre
    (rounded to an integer for columns of integers, so their sums stay exact)."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    n = a.n + b.n
    centre = (a.n * a.shift + b.n * b.shift) / n
    integral = a.integral & b.integral
    centre = np.where(integral, np.round(centre), centre)
    a1, a2 = _moved(a, centre)
    b1, b2 = _moved(b, centre)
    return PartitionSums(
        n,
        centre,
        integral,
        a1 + b1,
        a2 + b2,
        a.sw + b.sw,
        a.n_nonfinite + b.n_nonfinite,
        a.n_notbinary + b.n_notbinary,
    )


def tree_merge(parts: list[Any], merge: Any) -> Any:
    """Merge ``parts`` pairwise, level by level, in their order: a fixed tree,
    so the result does not depend on when each part finishes."""
    if not parts:
        raise ValueError("tree_merge needs at least one part.")
    while len(parts) > 1:
        pairs = [merge(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def loo_pass(parts: list[Any]) -> JackknifeMoments:
    """The leave-one-out power sums of the delayed per-partition
    :class:`LooSums` ``parts``, merged in the fixed tree and computed."""
    import dask

    (total,) = dask.compute(tree_merge(parts, dask.delayed(merge_loo, pure=True)))
    return loo_moments(total)


def _graph(rows: DaskRows, seed: Any, gamma: Any, B: int, want2: bool) -> Any:
    """The delayed root of the tree over the partitions (nothing computed)."""
    import dask

    blocks = rows.array.to_delayed().ravel()
    part = dask.delayed(partition_sums, pure=True)
    merge = dask.delayed(merge_sums, pure=True)
    parts = [
        part(blk, start, seed, gamma, B, want2)
        for blk, start in zip(blocks, rows.starts, strict=True)
    ]
    return tree_merge(parts, merge)


@dataclass
class DataParallelStatistic(Statistic):
    """A moment statistic computed from the merged sums of a dask collection:
    what a result keeps of a data-parallel run.  It holds no rows: the BCa
    acceleration comes from one more pass over the partitions (``rows``, lazy;
    ``rule``: the totals every partition needs), the studentized interval is
    unavailable."""

    data_unavailable: ClassVar[str | None] = NO_ROWS
    name: str = "mean"
    ddof: int = 0
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    cached_estimate: np.ndarray | None = field(default=None)
    rows: DaskRows | None = field(default=None, repr=False)
    rule: LooRule | None = field(default=None, repr=False)
    moments: JackknifeMoments | None = field(default=None, repr=False)

    def estimate(self) -> np.ndarray:
        assert self.cached_estimate is not None
        return self.cached_estimate.copy()

    def jackknife(self) -> np.ndarray:
        raise ValueError(NO_VALUES)

    def jackknife_moments(self) -> JackknifeMoments:
        """The power sums of the leave-one-out values, from one pass over the
        partitions the first time (kept: the same sums every later time)."""
        if self.moments is None:
            assert self.rows is not None and self.rule is not None
            rule = self.rule
            if rule.name in ("var", "std") and rule.dof <= 0:  # NaN, as in memory
                zero = np.zeros(self.k)
                self.moments = JackknifeMoments(
                    rule.n, zero, zero, zero == 0, n_nonfinite=rule.n
                )
            else:
                import dask

                part = dask.delayed(loo_partition, pure=True)
                blocks = self.rows.array.to_delayed().ravel()
                self.moments = loo_pass([part(blk, rule) for blk in blocks])
        return self.moments

    def vector_output(self, data_ndim: int) -> bool:
        return data_ndim == 2

    def keywords(self) -> dict[str, object]:
        """The ``statistic_kwargs`` that rebuild this statistic."""
        return {"ddof": self.ddof} if self.name in ("var", "std") else {}


@dataclass(frozen=True)
class DataParallelRun:
    """What a data-parallel run hands back to :func:`skboot._run.run`."""

    stat: DataParallelStatistic
    data: Data
    plan: ResamplingPlan
    resampler: BaseResampler
    distribution: np.ndarray


def _check_values(total: PartitionSums, name: str, nan_policy: str, owner: str):
    """The checks of the values, known only after the pass (same messages as
    the in-memory run's, which makes them before its work)."""
    if total.n_nonfinite and nan_policy != "propagate":
        raise value_error(
            "data",
            owner,
            f"contains {total.n_nonfinite} NaN or infinite value(s) (found "
            "while reducing the partitions); remove them (e.g. the "
            "collection's dropna()) or pass nan_policy='propagate'.",
        )
    if name == "proportion" and total.n_notbinary:
        raise ValueError(
            "The statistic 'proportion' needs boolean or 0/1 data. Got "
            f"{total.n_notbinary} other value(s) instead."
        )


def run_data_parallel(
    data: Any,
    statistic: Any,
    resampler: Any,
    *,
    n_resamples: Any,
    random_state: Any,
    y: Any,
    groups: Any,
    statistic_kwargs: Any,
    owner: str,
    nan_policy: str,
    device: str,
    estimator: Any,
) -> DataParallelRun:
    """The Poisson bootstrap of a moment statistic of a dask collection,
    computed on the dask scheduler in use (a distributed Client when one is
    active); only ``(n_resamples + 1) x d`` sums per partition travel."""
    name, ddof = check_data_parallel(
        data,
        statistic,
        resampler,
        y=y,
        groups=groups,
        statistic_kwargs=statistic_kwargs,
        owner=owner,
        nan_policy=nan_policy,
        device=device,
        estimator=estimator,
    )
    res, source = resolve_resampler(resampler, n_resamples, random_state, owner)
    res.check_params()
    rows = dask_rows(data, owner)
    d = 1 if rows.ndim == 1 else int(rows.array.shape[1])
    B = int(res.n_resamples)
    check_distribution_memory(B, d, owner)
    # the plan needs only the row count: a (n, 0) placeholder holds no bytes
    res = fit_resampler(res, source, np.empty((rows.n_samples, 0)), checked=True)
    plan = res.plan_
    scheme = plan.stream_scheme()
    if scheme is None or scheme.kind != "poisson":  # a subclass changed the plan
        raise value_error(
            "resampler",
            owner,
            f"must draw Poisson counts per row. Got {res!r}, whose plan draws "
            f"{getattr(scheme, 'kind', 'something else')}.",
        )
    seed, gamma = res.key_.stream(PURPOSE["poisson"])
    if name in ("median", "quantile"):  # exact order statistics, own module
        from skboot._run._dask_quantile import order_statistic_run

        stat, dist = order_statistic_run(
            rows, name, statistic_kwargs, plan, (seed, gamma), B, owner
        )
        shape = (0,) if rows.ndim == 1 else (0, d)
        held = Data((np.empty(shape),), rows.n_samples, rows.labels, rows.kind)
        return DataParallelRun(stat, held, plan, res, dist)  # type: ignore[arg-type]
    import dask

    want2 = name in ("var", "std")
    (total,) = dask.compute(_graph(rows, seed, gamma, B, want2))
    _check_values(total, name, nan_policy, owner)
    values = moments_to_values(
        name, total.s1, total.s2, total.sw[:, None], total.shift[None, :], ddof
    )
    shape = (0,) if rows.ndim == 1 else (0, d)
    rule = moment_rule(name, total.n, total.shift, total.s1[B], total.s2[B], ddof)
    stat = DataParallelStatistic(
        name=name,
        ddof=ddof,
        k=d,
        arrays=(np.empty(shape),),
        cached_estimate=np.ascontiguousarray(values[B]),
        rows=rows,
        rule=rule,
    )
    stat.builtin_name = None
    placeholder = Data((np.empty(shape),), rows.n_samples, rows.labels, rows.kind)
    return DataParallelRun(stat, placeholder, plan, res, values[:B])
