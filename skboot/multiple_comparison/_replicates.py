"""Bootstrap replicates of k model comparisons, through skboot's engine.

Two sources, one output: a ``(B, k)`` array ``C`` of *centred* replicate values,
row ``b`` from replicate ``b`` of the resampler's plan (chunking and joblib by
:func:`skboot._engine.run_bootstrap`, so ``n_jobs`` and chunk size never change a
bit).

* Loss series (``(T, k)``): ``C[b] = mean of the rows of replicate b of X - Xbar``.
  Block plans use the fused prefix-sum kernels of
  :mod:`skboot._kernels.multiple_comparison` (the prefix sums of the centred data
  are built once per call and shipped to every task); other plans (iid,
  tapered, ...) reduce a chunk of per-row weights with ``weighted_moments``.
  Never a resampled ``(T, k)`` copy.
* Whole-sample metrics: replicate ``b``'s per-row counts (times the sample
  weights) go to the fused metric kernels of :mod:`skboot._kernels.metric`, once
  per model: ``C[b, j] = metric_j(w_b)``, left uncentred (the caller subtracts
  the estimates and applies the undefined-replicate policy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._engine import MIN_PARALLEL_DRAWS, Statistic, run_bootstrap
from skboot._kernels.block import prefix_sums
from skboot._kernels.metric import eval_metric, metric_chunk
from skboot._kernels.multiple_comparison import (
    fixed_block_means,
    stationary_block_means,
)
from skboot._kernels.weighted import weighted_moments
from skboot.metrics import pack_arrays, packed
from skboot.resamplers import ResamplingPlan

__all__ = [
    "centred_means",
    "column_means",
    "metric_replicates",
    "replicate_means",
]

_NO = np.bool_(False)


def prefix_groups(Xc: np.ndarray) -> np.ndarray:
    """Prefix sums ``P[i] = Xc[:i].sum(0)`` (accumulated in row order) in groups of
    eight columns, shape (n_groups, n + 1, 8), the last group padded with zeros:
    a group's rows are contiguous 64-byte vectors for the fused kernels."""
    n, d = Xc.shape
    P = prefix_sums(Xc, _NO)[0]
    n_groups = -(-d // 8)
    size = n_groups * (n + 1) * 8
    buf = np.zeros(size + 8)
    skip = (-buf.ctypes.data % 64) // 8  # rows on 64-byte boundaries: one line each
    Pt = buf[skip : skip + size].reshape(n_groups, n + 1, 8)
    for g in range(n_groups):
        part = P[:, 8 * g : 8 * (g + 1)]
        Pt[g, :, : part.shape[1]] = part
    return Pt


class _BlockMeans(Statistic):
    """Column means of block-bootstrap replicates from prefix sums (fused)."""

    def __init__(self, Pt: np.ndarray, k: int, stationary: bool) -> None:
        self.arrays = (Pt,)
        self.k = k
        self.stationary = stationary
        self.name = "block means"

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        # the block starts and ends of a replicate plus its row of means
        blocks = plan.draws_per_replicate(fused=True)
        return 16 * (2 * blocks + 16) + 8 * self.k

    def draws_per_replicate(self, plan: ResamplingPlan) -> int:
        return plan.draws_per_replicate(fused=True)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        (P,) = arrays
        s = plan.stream_scheme()
        if self.stationary:
            stationary_block_means(
                P, s.seed, s.seed_lengths, s.gamma, int(b0), s.p, s.log_q, out
            )
        else:
            fixed_block_means(
                P,
                s.seed,
                s.gamma,
                int(b0),
                int(s.block_length),
                int(s.n_draw),
                int(s.stride),
                out,
            )


class _WeightedMeans(Statistic):
    """Column means under per-row weights (any plan): a (chunk, T) weight buffer
    reduced by ``weighted_moments``."""

    def __init__(self, X: np.ndarray) -> None:
        self.arrays = (X,)
        self.k = X.shape[1]
        self.name = "weighted means"

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        (X,) = arrays
        nb = out.shape[0]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
            scratch["s2"] = np.empty((nb, self.k))
            scratch["sw"] = np.empty(nb)
        W = W[:nb]
        plan.fill_weights_chunk(b0, W)
        s2 = scratch["s2"][:nb]
        sw = scratch["sw"][:nb]
        weighted_moments(X, W, _NO, out, s2, sw)
        out /= sw[:, None]


def column_means(X: np.ndarray) -> np.ndarray:
    """Column means of ``X`` (T, k) within an ulp or two of the exact ones whatever
    the offset: numpy's mean, then the mean of the residuals added back.  numpy
    reduces axis 0 of a C-ordered array one row at a time, an error that grows
    with the offset (34-75 ulps at 1e6-1e9 and T = 20,000); the residuals
    ``X - c`` are exact for offset data (Sterbenz), so their mean carries an error
    of the size of the spread, not of the offset."""
    c = X.mean(axis=0)
    return c + (X - c).mean(axis=0)


def centred_means(
    X: np.ndarray,
    plan: ResamplingPlan,
    n_resamples: int,
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(Xbar, C)``: column means of ``X`` (T, k) (:func:`column_means`) and
    ``C[b] = mean(X[idx_b]) - Xbar`` for ``b < n_resamples``,
    ``idx_b = plan.indices(b)``.

    The data are centred once (``X - Xbar``), so the replicate means keep their
    precision whatever the offset of the losses; ``Xbar + C[b]`` equals numpy's
    ``X[idx_b].mean(0)`` to a few ulps of the data's scale.
    """
    xbar = column_means(X)
    Xc = np.ascontiguousarray(X - xbar)
    return xbar, replicate_means(Xc, plan, n_resamples, n_jobs, chunk_size)


def replicate_means(
    X: np.ndarray,
    plan: ResamplingPlan,
    n_resamples: int,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> np.ndarray:
    """``M[b] = mean(X[idx_b])`` (B, k) for ``b < n_resamples`` with the fused
    kernels, ``X`` as given (:func:`centred_means` centres it first; integer
    data are summed as they are, exactly)."""
    Xc = np.ascontiguousarray(X)
    stat: Statistic
    k = Xc.shape[1]
    scheme = plan.stream_scheme()
    kind = None if scheme is None else scheme.kind
    if kind == "stationary":
        stat = _BlockMeans(prefix_groups(Xc), k, True)
    elif kind == "fixed_blocks":
        stat = _BlockMeans(prefix_groups(Xc), k, False)
    else:
        stat = _WeightedMeans(Xc)
    work = n_resamples * plan.draws_per_replicate(fused=True) * Xc.shape[1]
    return run_bootstrap(
        stat, plan, n_resamples, n_jobs=_jobs(n_jobs, work), chunk_size=chunk_size
    )


def _jobs(n_jobs: int | None, work: float) -> int | None:
    """In-process below :data:`skboot._engine.MIN_PARALLEL_DRAWS` units of work
    (dispatch would cost more than it saves); never changes a result."""
    return None if work < MIN_PARALLEL_DRAWS else n_jobs


class _ModelMetrics(Statistic):
    """One fused metric per model on every replicate's weights: ``out[r, j]`` is
    metric ``j`` on the counts of replicate ``b0 + r`` times the sample weights."""

    def __init__(
        self, prepared: list[Any], sample_weight: np.ndarray | None, n: int
    ) -> None:
        arrays: list[np.ndarray] = []
        self._scalars = []
        for prep in prepared:
            arrs, scalars = pack_arrays(prep)
            arrays.extend(arrs)
            self._scalars.append(scalars)
        self._weighted = sample_weight is not None
        sw = np.ones(n) if sample_weight is None else sample_weight
        self.arrays = (sw, *arrays)
        self.k = len(prepared)
        self.name = "model metrics"

    def _packs(self, arrays: tuple[np.ndarray, ...]) -> list[tuple[Any, ...]]:
        return [
            packed(arrays[1 + 4 * j : 5 + 4 * j], self._scalars[j])
            for j in range(self.k)
        ]

    def estimate(self) -> np.ndarray:
        sw = self.arrays[0]
        return np.array([eval_metric(p, sw) for p in self._packs(self.arrays)])

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
            scratch["col"] = np.empty((nb, 1))
        W = W[:nb]
        col = scratch["col"][:nb]
        plan.fill_weights_chunk(b0, W)
        sw = arrays[0]
        if self._weighted:
            W *= sw
        for j, p in enumerate(self._packs(arrays)):
            metric_chunk(p, p, False, sw, False, W, col)
            out[:, j] = col[:, 0]


def metric_replicates(
    prepared: list[Any],
    sample_weight: np.ndarray | None,
    plan: ResamplingPlan,
    n_resamples: int,
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(estimates, M)``: each prepared metric on the full data (weights =
    ``sample_weight`` or ones) and on every replicate, ``M`` of shape (B, k)."""
    stat = _ModelMetrics(prepared, sample_weight, plan.n_samples)
    est = stat.estimate()
    work = float(n_resamples) * plan.n_samples * len(prepared)
    M = run_bootstrap(
        stat, plan, n_resamples, n_jobs=_jobs(n_jobs, work), chunk_size=chunk_size
    )
    return est, M
