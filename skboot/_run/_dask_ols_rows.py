"""The worker side of the built-in "ols" of dask collections: each partition's
per-replicate cross products (Poisson, exact iid or stratified, hashed-group
counts), their merge about the pooled centre, and the power sums of the
partition's leave-one-out deviations (:class:`OLSRule`).

A light module: a dask worker that unpickles these functions imports numpy,
numba and the kernels they run, not scikit-learn (``tests/test_lazy_imports.py``).
The method and the client side are in :mod:`skboot._run._dask_ols`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows, coefficients, design_rows
from skboot._kernels.exact_rows import group_poisson_counts, stratum_row_counts
from skboot._kernels.ols import RANK_TOL, poisson_gram, weighted_gram
from skboot._kernels.poisson_rows import column_summary
from skboot._random import FAST_BLOCK
from skboot._run._dask_exact_rows import group_hashes
from skboot._run._dask_jackknife import LooSums, loo_sums

__all__ = [
    "OLSRule",
    "OLSSums",
    "merge_ols",
    "ols_exact_partition",
    "ols_group_partition",
    "ols_loo_partition",
    "ols_partition",
]


@dataclass(frozen=True)
class OLSSums:
    """Per-replicate packed cross products ``G`` (B + 1, p (p + 1) / 2) of
    some rows about ``shift`` (p,), ``shift[0] = 0``; row B: unit weights."""

    n: int
    shift: np.ndarray
    G: np.ndarray
    n_nonfinite: int = 0


def _prepared(block: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """A stacked ``(X, y)`` block as the rows ``(1, x - s, y - s_y)`` about the
    block's own centre (the means of its finite values), the centre, and the
    count of values that are not finite."""
    XY = as_float_rows(np.asarray(block))
    m, p = XY.shape[0], XY.shape[1] + 1
    sums = np.empty(p - 1)
    finite = np.empty(p - 1, dtype=np.int64)
    integral = np.empty(p - 1, dtype=np.bool_)
    bad, _ = column_summary(XY, sums, finite, integral) if m else (0, 0)
    shift = np.zeros(p)
    if m:
        shift[1:] = np.where(finite > 0, sums / np.maximum(finite, 1), 0.0)
    return design_rows(XY[:, : p - 2], XY[:, p - 2], shift), shift, int(bad)


def _sums(U: np.ndarray, shift: np.ndarray, bad: int, B: int, fill: Any) -> OLSSums:
    """The partition's cross products: ``fill(G)`` the replicates' (rows
    ``0 .. B - 1``), row B with unit weights."""
    m, p = U.shape
    G = np.zeros((B + 1, p * (p + 1) // 2))
    if m == 0:
        return OLSSums(0, shift, G)
    fill(G[:B])
    weighted_gram(U, np.ones((1, m)), G[B:])
    return OLSSums(m, shift, G, bad)


def ols_partition(block: Any, start: int, seed: Any, gamma: Any, B: int) -> OLSSums:
    """The Poisson replicates' cross products of one partition (on a worker)."""
    U, shift, bad = _prepared(block)
    return _sums(
        U,
        shift,
        bad,
        B,
        lambda G: poisson_gram(U, seed, gamma, np.int64(0), np.int64(start), G),
    )


def _counted(U: np.ndarray, counts: Any, G: np.ndarray) -> None:
    """``G[b]``: the cross products weighted by ``counts(b, cnt)``'s counts."""
    cnt = np.empty(U.shape[0])
    for b in range(G.shape[0]):
        counts(b, cnt)
        weighted_gram(U, cnt[None, :], G[b : b + 1])


def ols_exact_partition(
    block: Any,
    strata: Any,
    labels: np.ndarray | None,
    draws: np.ndarray,
    seeds: np.ndarray,
    gamma: Any,
    want2: bool = False,
) -> OLSSums:
    """The exact (iid or stratified) replicates' cross products of one
    partition, its rows drawn as :func:`skboot._run._dask_exact.exact_partition`
    draws them for the moments (``want2`` unused)."""
    U, shift, bad = _prepared(block)
    m = U.shape[0]
    S = draws.shape[1]
    if labels is None:
        pool = np.arange(m, dtype=np.int64)
        sizes = np.array([m], dtype=np.int64)
    else:
        codes = np.searchsorted(labels, np.asarray(strata)).astype(np.int64)
        pool = np.argsort(codes, kind="stable").astype(np.int64)
        sizes = np.bincount(codes, minlength=S).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    tmp = np.empty(max(1, int(sizes.max(initial=1))))

    def counts(b: int, cnt: np.ndarray) -> None:
        stratum_row_counts(
            seeds, gamma, np.uint64(b), draws[b], pool, offsets, sizes, buf, tmp, cnt
        )

    return _sums(U, shift, bad, draws.shape[0], lambda G: _counted(U, counts, G))


def ols_group_partition(
    block: Any, groups: Any, seed: Any, gamma: Any, B: int, want2: bool = False
) -> OLSSums:
    """The hashed-group Poisson replicates' cross products of one partition
    (``want2`` unused)."""
    U, shift, bad = _prepared(block)
    hashes = group_hashes(groups) if U.shape[0] else np.empty(0, dtype=np.uint64)

    def counts(b: int, cnt: np.ndarray) -> None:
        group_poisson_counts(seed, gamma, np.uint64(b), hashes, cnt)

    return _sums(U, shift, bad, B, lambda G: _counted(U, counts, G))


def _moved(part: OLSSums, centre: np.ndarray) -> np.ndarray:
    """``part``'s cross products about ``centre`` instead of ``part.shift``."""
    p = centre.shape[0]
    d = part.shift - centre
    r, c = np.triu_indices(p)  # the packed order: rows, each from its diagonal
    G = part.G
    with np.errstate(invalid="ignore", over="ignore"):
        return G + d[r] * G[:, c] + G[:, r] * d[c] + G[:, :1] * (d[r] * d[c])


def merge_ols(a: OLSSums, b: OLSSums) -> OLSSums:
    """The cross products of the rows of ``a`` and ``b`` about their pooled
    centre."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    n = a.n + b.n
    centre = (a.n * a.shift + b.n * b.shift) / n
    G = _moved(a, centre) + _moved(b, centre)
    return OLSSums(n, centre, G, a.n_nonfinite + b.n_nonfinite)


@dataclass(frozen=True)
class OLSRule:
    """What every partition needs for its rows' leave-one-out coefficients:
    the root's centre, the solution ``g`` of the design's system and the
    inverse ``Ainv`` of its matrix, and the estimate (``k`` values)."""

    shift: np.ndarray
    g: np.ndarray
    Ainv: np.ndarray
    fit_intercept: bool
    estimate: np.ndarray

    @property
    def k(self) -> int:
        return int(self.estimate.shape[0])

    def deviations(self, block: Any) -> np.ndarray:
        """``g_(i) - estimate`` of the stacked ``(X, y)`` rows (m, k): the
        closed form ``g - A^-1 z_i e_i / (1 - h_ii)``, NaN for a row of
        leverage 1 within :data:`skboot._kernels.ols.RANK_TOL`."""
        XY = as_float_rows(np.asarray(block))
        p = XY.shape[1] + 1
        U = design_rows(XY[:, : p - 2], XY[:, p - 2], self.shift)
        if self.fit_intercept:
            Z, r = U[:, : p - 1], U[:, p - 1]
        else:
            Z, r = XY[:, : p - 2], XY[:, p - 2]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            e = r - Z @ self.g
            H = Z @ self.Ainv
            room = 1.0 - np.einsum("ij,ij->i", H, Z)
            ok = room > RANK_TOL
            f = np.where(ok, e / np.where(ok, room, 1.0), np.nan)
            loo = coefficients(
                self.g[None, :] - H * f[:, None], self.shift, self.fit_intercept
            )
            return loo - self.estimate


def ols_loo_partition(block: Any, rule: OLSRule, start: int = 0) -> LooSums:
    """The power sums of one partition's leave-one-out deviations (runs on a
    worker; ``start``: the global number of its first row)."""
    e = rule.deviations(block)
    return loo_sums(e, np.arange(start, start + e.shape[0], dtype=np.int64))
