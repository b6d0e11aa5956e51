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

from skboot._engine import moments_to_values
from skboot._random import PURPOSE, check_random_state
from skboot._run._context import (
    check_distribution_memory,
    fit_resampler,
    resolve_resampler,
)
from skboot._run._dask_checks import DaskRows, check_data_parallel, dask_rows
from skboot._run._dask_corr import corr_graph, corr_values
from skboot._run._dask_exact import StrataJackknife, scheme_total
from skboot._run._dask_held import NO_ROWS, HeldStatistic
from skboot._run._dask_jackknife import (
    LooRule,
    corr_rule,
    loo_moments,
    loo_partition,
    merge_loo,
    moment_rule,
)
from skboot._run._dask_ols import ols_data_parallel
from skboot._run._dask_progress import dask_compute
from skboot._run._dask_quantile import order_statistic_run
from skboot._run._dask_sums import (
    PartitionSums,
    merge_sums,
    partition_sums,
    tree_merge,
)
from skboot._run._data import Data
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments
from skboot.resamplers import (
    BaseResampler,
    GroupBootstrap,
    PoissonBootstrap,
    ResamplingPlan,
)

__all__ = [
    "DataParallelRun",
    "DataParallelStatistic",
    "PartitionSums",
    "loo_pass",
    "merge_sums",
    "partition_sums",
    "run_data_parallel",
    "run_ols_data_parallel",
    "tree_merge",
]

#: Why BCa is unavailable for the data-parallel group bootstrap.
NO_GROUP_BCA = (
    "BCa needs the delete-one-group jackknife, and the rows of a group may lie "
    "in every partition of the dask collection, so its values are not computed "
    "where the rows live. Use method 'percentile' (the default here), 'basic', "
    "'normal' or 'bc', or call .compute() on the collections and bootstrap the "
    "numpy arrays with GroupBootstrap if they fit in memory."
)
#: Why the leave-one-out values themselves are unavailable.
NO_VALUES = (
    "The data of this result stay in a dask collection, so its n leave-one-out "
    "values are not brought to this process; confidence_interval(method='bca') "
    "and pvalue(method='bca') compute the acceleration from their sums where "
    "the rows live. Call .compute() on the collection and bootstrap the numpy "
    "array to get the values if they fit in memory."
)


#: Statistics a data-parallel run computes under PoissonBootstrap only.
POISSON_ONLY = ("corr", "median", "quantile")


def loo_pass(parts: list[Any], progress: bool = False) -> JackknifeMoments:
    """The leave-one-out power sums of the delayed per-partition
    :class:`LooSums` ``parts``, merged in the fixed tree and computed (with
    dask's progress display if ``progress``)."""
    import dask

    root = tree_merge(parts, dask.delayed(merge_loo, pure=True))
    (total,) = dask_compute(root, progress=progress)
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
class DataParallelStatistic(HeldStatistic):
    """A moment statistic computed from the merged sums of a dask collection:
    what a result keeps of a data-parallel run.  It holds no rows: the BCa
    acceleration comes from one more pass over the partitions (``rows``, lazy;
    ``rule``: the totals every partition needs), the studentized interval is
    unavailable."""

    no_values: ClassVar[str] = NO_VALUES
    ddof: int = 0
    rows: DaskRows | None = field(default=None, repr=False)
    rule: LooRule | None = field(default=None, repr=False)
    #: the stratified bootstrap's jackknife pass (None: the plain jackknife)
    strata: StrataJackknife | None = field(default=None, repr=False)
    progress: bool = False

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

                if self.strata is not None:
                    self.moments = self.strata.moments(self.rows, rule, self.progress)
                    return self.moments
                part = dask.delayed(loo_partition, pure=True)
                blocks = self.rows.array.to_delayed().ravel()
                parts = [part(blk, rule) for blk in blocks]
                self.moments = loo_pass(parts, self.progress)
        return self.moments

    def vector_output(self, data_ndim: int) -> bool:
        return data_ndim == 2 and self.name != "corr"

    def keywords(self) -> dict[str, object]:
        """The ``statistic_kwargs`` that rebuild this statistic."""
        return {"ddof": self.ddof} if self.name in ("var", "std") else {}


@dataclass
class DataParallelGroupStatistic(DataParallelStatistic):
    """The statistic of a data-parallel group bootstrap: no BCa (its jackknife
    deletes one group at a time, and a group's rows may lie in every
    partition), so intervals default to the percentile method."""

    has_jackknife: ClassVar[bool] = False
    data_unavailable: ClassVar[str | None] = NO_ROWS.replace(
        ", 'bc' or 'bca' (BCa's acceleration takes one more pass over the partitions)",
        " or 'bc'",
    )

    def jackknife_moments(self) -> JackknifeMoments:
        raise ValueError(NO_GROUP_BCA)


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
    progress: bool = False,
) -> DataParallelRun:
    """The Poisson bootstrap of a moment statistic of a dask collection,
    computed on the dask scheduler in use (a distributed Client when one is
    active); only ``(n_resamples + 1) x d`` sums per partition travel.
    ``progress``: dask's progress display (:mod:`skboot._run._dask_progress`).
    The statistic "ols" of ``(X, y)``: :func:`run_ols_data_parallel`."""
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
    if name == "corr" and d != 2:  # the in-memory message
        raise ValueError(
            "The statistic 'corr' needs exactly two columns (or two arrays). "
            f"Got {d} column(s) instead."
        )
    B = int(res.n_resamples)
    check_distribution_memory(B, 1 if name == "corr" else d, owner)
    if name in POISSON_ONLY and not isinstance(res, PoissonBootstrap):
        raise value_error(
            "resampler",
            owner,
            f"must be a PoissonBootstrap for the statistic {name!r} of a dask "
            f"collection. Got {res!r}.",
        )
    if name in ("median", "quantile"):
        return _order_statistic_run(res, source, rows, name, statistic_kwargs, owner)
    want2 = name in ("var", "std")
    strata = None
    if name == "corr":
        total, plan = _poisson_total(res, source, rows, None, owner, progress)
        _check_values(total, name, nan_policy, owner)
        values = corr_values(total)
        rule = corr_rule(total.n, total.shift, total.s[B], values[B, 0])
    else:
        if isinstance(res, PoissonBootstrap):
            total, plan = _poisson_total(res, source, rows, want2, owner, progress)
        else:
            key = check_random_state(source, owner=type(res).__name__)
            st = scheme_total(res, key, rows, y, groups, want2, owner, progress)
            # the replicates live on the workers: the plan records the scheme only
            res = res._fit_plan(key, st.plan)
            total, plan, strata = st.total, st.plan, st.strata
        _check_values(total, name, nan_policy, owner)
        values = moments_to_values(
            name, total.s1, total.s2, total.sw[:, None], total.shift[None, :], ddof
        )
        rule = moment_rule(name, total.n, total.shift, total.s1[B], total.s2[B], ddof)
    shape = (0,) if rows.ndim == 1 else (0, d)
    kind = (
        DataParallelGroupStatistic
        if isinstance(res, GroupBootstrap)
        else DataParallelStatistic
    )
    stat = kind(
        name=name,
        ddof=ddof,
        k=values.shape[1],
        arrays=(np.empty(shape),),
        cached_estimate=np.ascontiguousarray(values[B]),
        rows=rows,
        rule=rule,
        strata=strata,
        progress=progress,
    )
    stat.builtin_name = None
    placeholder = Data((np.empty(shape),), rows.n_samples, rows.labels, rows.kind)
    return DataParallelRun(stat, placeholder, plan, res, values[:B])


def run_ols_data_parallel(
    data: Any, statistic: str, resampler: Any, *, owner: str, **options: Any
) -> DataParallelRun:
    """The pairs bootstrap of the built-in "ols" of dask collections ``(X, y)``
    (:mod:`skboot._run._dask_ols`); ``options``: those of
    :func:`run_data_parallel`."""

    def poisson_plan(res: BaseResampler, source: Any, rows: DaskRows) -> tuple:
        return (res, *_poisson_plan(res, source, rows, owner))

    parts = ols_data_parallel(
        data, resampler, owner=owner, poisson_plan=poisson_plan, **options
    )
    return DataParallelRun(*parts)  # type: ignore[arg-type]


def _poisson_total(
    res: BaseResampler,
    source: Any,
    rows: DaskRows,
    want2: bool | None,
    owner: str,
    progress: bool,
) -> tuple[Any, ResamplingPlan]:
    """The Poisson run's merged sums and plan (``res`` fitted on the way):
    the moments' :class:`PartitionSums`, or the correlation's sums when
    ``want2`` is None."""
    plan, seed, gamma = _poisson_plan(res, source, rows, owner)
    B = int(res.n_resamples)
    if want2 is None:
        graph = corr_graph(rows, seed, gamma, B, tree_merge)
    else:
        graph = _graph(rows, seed, gamma, B, want2)
    (total,) = dask_compute(graph, progress=progress)
    return total, plan


def _poisson_plan(
    res: BaseResampler, source: Any, rows: DaskRows, owner: str
) -> tuple[ResamplingPlan, np.uint64, np.uint64]:
    """``res`` fitted (a Poisson plan checked), with its Poisson stream."""
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
    return plan, seed, gamma


def _order_statistic_run(
    res: BaseResampler,
    source: Any,
    rows: DaskRows,
    name: str,
    statistic_kwargs: Any,
    owner: str,
) -> DataParallelRun:
    """The exact Poisson median or quantiles (:mod:`skboot._run._dask_quantile`)."""
    plan, seed, gamma = _poisson_plan(res, source, rows, owner)
    B = int(res.n_resamples)
    stat, dist = order_statistic_run(
        rows, name, statistic_kwargs, plan, (seed, gamma), B, owner
    )
    d = 1 if rows.ndim == 1 else int(rows.array.shape[1])
    shape = (0,) if rows.ndim == 1 else (0, d)
    held = Data((np.empty(shape),), rows.n_samples, rows.labels, rows.kind)
    return DataParallelRun(stat, held, plan, res, dist)  # type: ignore[arg-type]
