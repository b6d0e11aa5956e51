"""The built-in "ols" of dask collections ``(X, y)``: the Poisson pairs
bootstrap of least-squares coefficients, reduced where the rows live.

Each partition (rows ``start .. start + m - 1``) reduces its rows to the
packed cross products of ``u = (1, x - s, y - s_y)`` per replicate, weighted
by the rows' Poisson counts (:func:`skboot._kernels.ols.poisson_gram`; a row's
count depends on ``(key, b, row)`` only, as in memory), about its own centre
``s`` (the means of its finite values): ``(B + 1) x p (p + 1) / 2`` numbers,
``p = k + 2``, row B with unit weights (the estimate).  Two partials merge by
moving both to their pooled centre: ``u' = u + d u_0``, ``d = s - c``, so

    M' = M + d m_0' + m_0 d' + M_00 d d',

``m_0`` the first column of ``M`` (Chan, Golub & LeVeque 1979, for cross
products), in the fixed tree of :func:`skboot._run._dask_sums.tree_merge`.  The
coefficients of every replicate come from the root as in memory
(:func:`skboot._kernels.ols.ols_from_gram`).

BCa's acceleration takes one more pass: each partition computes its rows'
leave-one-out coefficients from the closed form ``g_(i) = g - A^-1 z_i e_i /
(1 - h_ii)`` with the root's ``A^-1`` and ``g``, and returns only the power
sums of their deviations from the estimate (:func:`loo_sums`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine import (
    MAX_OLS_FEATURES,
    coefficients,
    collinear_error,
    collinear_in,
    ols_fit_intercept,
)
from skboot._kernels.ols import ols_from_gram
from skboot._random import check_random_state
from skboot._run._context import check_distribution_memory, resolve_resampler
from skboot._run._dask_checks import (
    DaskRows,
    check_data_parallel,
    dask_rows,
    is_dask_collection,
)
from skboot._run._dask_exact import (
    SchemeOps,
    StrataJackknife,
    scheme_total,
)
from skboot._run._dask_held import HeldStatistic
from skboot._run._dask_jackknife import loo_moments, merge_loo
from skboot._run._dask_ols_rows import (
    OLSRule,
    OLSSums,
    merge_ols,
    ols_exact_partition,
    ols_group_partition,
    ols_loo_partition,
    ols_partition,
)
from skboot._run._dask_progress import dask_compute
from skboot._run._dask_sums import tree_merge
from skboot._run._data import Data
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments
from skboot.resamplers import GroupBootstrap, PoissonBootstrap

__all__ = [
    "OLS_OPS",
    "DataParallelGroupOLS",
    "DataParallelOLS",
    "ols_data_parallel",
]

_SMALL = (
    "For data that fit in memory, call .compute() on the collections and pass "
    "numpy arrays instead."
)


def _solve(total: OLSSums, fit_intercept: bool) -> np.ndarray:
    """The coefficients of every row of the root, (B + 1, k_out)."""
    p = total.shift.shape[0]
    k_out = p - 2 + int(fit_intercept)
    out = np.empty((total.G.shape[0], k_out))
    move = np.zeros(p) if fit_intercept else total.shift
    ols_from_gram(total.G, p, move, fit_intercept, out)
    return coefficients(out, total.shift, fit_intercept)


def _unit_system(total: OLSSums, fit_intercept: bool) -> np.ndarray:
    """The cross products of the data (unit weights) as a dense (p, p) matrix,
    about the origin for a fit without intercept."""
    p = total.shift.shape[0]
    M = np.zeros((p, p))
    M[np.triu_indices(p)] = total.G[-1]
    M = M + np.triu(M, 1).T
    if not fit_intercept:
        d = total.shift
        M = M + np.outer(d, M[:, 0]) + np.outer(M[:, 0], d) + M[0, 0] * np.outer(d, d)
    return M


def _rule(total: OLSSums, fit_intercept: bool, estimate: np.ndarray) -> OLSRule:
    M = _unit_system(total, fit_intercept)
    j0 = 0 if fit_intercept else 1
    p = M.shape[0]
    A = M[j0 : p - 1, j0 : p - 1]
    g = np.linalg.solve(A, M[j0 : p - 1, p - 1])
    return OLSRule(total.shift, g, np.linalg.inv(A), fit_intercept, estimate)


@dataclass
class DataParallelOLS(HeldStatistic):
    """The "ols" of a data-parallel run: its estimate and, from one more pass
    the first time BCa asks, the power sums of its leave-one-out values."""

    no_values: ClassVar[str] = (
        "The data of this result stay in dask collections, so its n "
        "leave-one-out values are not brought to this process; BCa computes "
        "the acceleration from their sums where the rows live."
    )
    name: str = "ols"
    fit_intercept: bool = True
    rows: DaskRows | None = field(default=None, repr=False)
    rule: OLSRule | None = field(default=None, repr=False)
    strata: StrataJackknife | None = field(default=None, repr=False)
    progress: bool = False

    def jackknife_moments(self) -> JackknifeMoments:
        if self.moments is not None:
            return self.moments
        import dask

        assert self.rows is not None
        if self.rule is None:  # NaN in the data (nan_policy="propagate")
            zero = np.zeros(self.k)
            n = self.rows.n_samples
            self.moments = JackknifeMoments(n, zero, zero, zero == 0, n_nonfinite=n)
        elif self.strata is not None:
            self.moments = self.strata.moments(self.rows, self.rule, self.progress)
        else:
            part = dask.delayed(ols_loo_partition, pure=True)
            blocks = self.rows.array.to_delayed().ravel()
            parts = [
                part(blk, self.rule, s)
                for blk, s in zip(blocks, self.rows.starts, strict=True)
            ]
            root = tree_merge(parts, dask.delayed(merge_loo, pure=True))
            (total,) = dask_compute(root, progress=self.progress)
            self.moments = loo_moments(total)
        return self.moments

    def vector_output(self, data_ndim: int) -> bool:
        return True

    def keywords(self) -> dict[str, object]:
        return {"fit_intercept": self.fit_intercept}


@dataclass
class DataParallelGroupOLS(DataParallelOLS):
    """The "ols" of a data-parallel group bootstrap: no BCa (its jackknife
    deletes one group at a time, and a group's rows may lie in every
    partition)."""

    has_jackknife: ClassVar[bool] = False

    def jackknife_moments(self) -> JackknifeMoments:
        raise ValueError(
            "BCa needs the delete-one-group jackknife, and the rows of a group "
            "may lie in every partition of the dask collections. Use method "
            "'percentile' (the default here), 'basic', 'normal' or 'bc'."
        )


#: The data-parallel schemes' partition and merge functions for "ols".
OLS_OPS = SchemeOps(ols_exact_partition, ols_group_partition, merge_ols)


def _rows(data: Any, owner: str) -> tuple[DaskRows, int]:
    """``X`` and ``y`` stacked into one dask array of k + 1 columns, chunked
    by ``X``'s rows, and ``k``; shapes checked before any work."""
    if not (
        isinstance(data, tuple)
        and len(data) == 2
        and all(is_dask_collection(a) for a in data)
    ):
        got = f"a tuple of {len(data)}" if isinstance(data, tuple) else "a"
        raise value_error(
            "data",
            owner,
            "must be a tuple (X, y) of two dask collections for the statistic "
            f"'ols' of data in a dask collection. Got {got} "
            f"{type(data).__name__}. " + _SMALL,
        )
    xrows = dask_rows(data[0], owner)
    yrows = dask_rows(data[1], owner)
    k = 1 if xrows.ndim == 1 else int(xrows.array.shape[1])
    if yrows.ndim != 1:
        raise value_error(
            "data",
            owner,
            f"must hold a 1-D y for the statistic 'ols'. Got an array of "
            f"shape {yrows.array.shape} instead.",
        )
    if yrows.n_samples != xrows.n_samples:
        raise value_error(
            "data",
            owner,
            "must hold arrays of one length (paired samples are resampled "
            f"jointly). Got lengths {[xrows.n_samples, yrows.n_samples]} instead.",
        )
    if k > MAX_OLS_FEATURES:
        raise value_error(
            "data",
            owner,
            f"must hold an X of 1 to {MAX_OLS_FEATURES} columns for the "
            f"statistic 'ols' (the normal equations of every replicate are "
            f"solved directly). Got {k} column(s) instead.",
        )
    import dask.array as da

    X = xrows.array[:, None] if xrows.ndim == 1 else xrows.array
    y = yrows.array.rechunk((xrows.array.chunks[0],))[:, None]
    XY = da.concatenate([X.astype(np.float64), y.astype(np.float64)], axis=1)
    XY = XY.rechunk({1: -1})
    return DaskRows(XY, xrows.starts, xrows.n_samples, 2, xrows.labels, xrows.kind), k


def ols_data_parallel(
    data: Any,
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
    progress: bool,
    poisson_plan: Any,
) -> tuple[DataParallelOLS, Data, Any, Any, np.ndarray]:
    """The pairs bootstrap of "ols" on dask collections ``(X, y)``: the
    statistic, the data's placeholder, the plan, the fitted resampler and the
    distribution.  ``poisson_plan(res, source, rows)`` fits a Poisson
    resampler and returns it, its plan and its stream."""
    xy = _rows(data, owner)
    # the resampler, strata, groups, NaN policy, device and estimator: the
    # checks of the moments' data-parallel runs, on X
    check_data_parallel(
        data[0],
        "mean",
        resampler,
        y=y,
        groups=groups,
        statistic_kwargs=None,
        owner=owner,
        nan_policy=nan_policy,
        device=device,
        estimator=estimator,
    )
    fit_intercept = ols_fit_intercept(statistic_kwargs, owner)
    rows, k = xy
    res, source = resolve_resampler(resampler, n_resamples, random_state, owner)
    res.check_params()
    B = int(res.n_resamples)
    check_distribution_memory(B, k + int(fit_intercept), owner)
    strata = None
    import dask

    if isinstance(res, PoissonBootstrap):
        res, plan, seed, gamma = poisson_plan(res, source, rows)
        part = dask.delayed(ols_partition, pure=True)
        blocks = rows.array.to_delayed().ravel()
        parts = [
            part(blk, s, seed, gamma, B)
            for blk, s in zip(blocks, rows.starts, strict=True)
        ]
        root = tree_merge(parts, dask.delayed(merge_ols, pure=True))
        (total,) = dask_compute(root, progress=progress)
    else:
        key = check_random_state(source, owner=type(res).__name__)
        st = scheme_total(res, key, rows, y, groups, False, owner, progress, OLS_OPS)
        res = res._fit_plan(key, st.plan)
        total, plan, strata = st.total, st.plan, st.strata
    values, rule = _root(total, fit_intercept, nan_policy, owner)
    kind = DataParallelGroupOLS if isinstance(res, GroupBootstrap) else DataParallelOLS
    stat = kind(
        k=values.shape[1],
        arrays=(np.empty((0, k)),),
        cached_estimate=np.ascontiguousarray(values[B]),
        fit_intercept=fit_intercept,
        rows=rows,
        rule=rule,
        strata=strata,
        progress=progress,
    )
    labels, how = None, "numpy"
    if rows.kind == "frame":
        import pandas as pd

        head = ["intercept"] if fit_intercept else []
        labels, how = pd.Index(head + list(rows.labels)), "frame"
    held = Data((np.empty((0, k)),), rows.n_samples, labels, how)
    return stat, held, plan, res, values[:B]


def _root(
    total: OLSSums, fit_intercept: bool, nan_policy: str, owner: str
) -> tuple[np.ndarray, OLSRule | None]:
    """The coefficients of every row of the merged cross products and the
    rule of the leave-one-out pass (None for data holding NaN), after the
    checks known only then: finite values, a design of full column rank."""
    if total.n_nonfinite and nan_policy != "propagate":
        raise value_error(
            "data",
            owner,
            f"contains {total.n_nonfinite} NaN or infinite value(s) (found "
            "while reducing the partitions); remove them (e.g. the "
            "collection's dropna()) or pass nan_policy='propagate'.",
        )
    values = _solve(total, fit_intercept)
    if total.n_nonfinite:
        return values, None
    M = _unit_system(total, fit_intercept)
    j0 = 0 if fit_intercept else 1
    p = M.shape[0]
    bad = collinear_in(M[j0 : p - 1, j0 : p - 1], fit_intercept)
    if bad:
        raise collinear_error(bad, fit_intercept, owner)
    return values, _rule(total, fit_intercept, values[-1])
