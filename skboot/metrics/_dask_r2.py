"""The coefficient of determination (R2) of predictions in dask collections,
data-parallel.

Each partition (rows ``start .. start + m - 1``) returns, per replicate, the
count-weighted sums of ``w r_j**2`` (the squared residual of prediction
``j``), ``w (y - s)``, ``w (y - s)**2`` and ``w`` (``w`` the sample weight,
``s`` the partition's weighted mean of ``y``: a centre, so the sums' rounding
scales with the spread of ``y``, not its offset) and the least and greatest
``y`` of the rows it holds with positive weight
(:func:`skboot._kernels.poisson_rows.poisson_rows_sums`).  Two partials merge
about their pooled centre ``c`` (Chan, Golub & LeVeque 1979):
``S1' = S1 + (s - c) W``, ``S2' = S2 + 2 (s - c) S1 + (s - c)**2 W``.  A
replicate's R2 is ``1 - SSR / (S2 - S1**2 / W)``; NaN with no weight, and
where its ``y`` are all equal NaN (``force_finite=False``) or 1.0 / 0.0 (a
perfect fit or not), as the in-memory kernel decides.

For BCa's leave-one-out values (:func:`skboot.metrics._dask_loo.r2_loo_partition`)
the sums also count, of the original rows held with positive weight, all of
them, those at the least and at the greatest ``y`` and, per prediction, those
with a non-zero weighted squared residual: counts decide exactly where
leaving a row out leaves ``y`` constant or the fit perfect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skboot._kernels.exact_counts import counted_rows_sums
from skboot._kernels.poisson_rows import poisson_rows_sums
from skboot._run._dask_counts import count_chunks, n_resamples_of
from skboot.metrics._dask_mean import partition_weights
from skboot.metrics._registry import METRICS

__all__ = ["R2Sums", "merge_r2", "r2_partition", "r2_rows", "r2_values"]


@dataclass(frozen=True)
class R2Sums:
    """Per replicate (rows; row B: the original rows), columns: each
    prediction's ``sum c w r**2``, then ``sum c w (y - shift)``, ``sum c w
    (y - shift)**2``, ``sum c w``, ``sum c``; ``lo``/``hi``: the least and
    greatest ``y`` held with positive weight; ``counts``: of the original
    rows held with positive weight, all of them, those at ``lo[B]`` and at
    ``hi[B]``, then per prediction those with ``w r**2 != 0``."""

    n: int
    shift: float
    s: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_nonfinite: int = 0
    counts: np.ndarray = field(default_factory=lambda: np.zeros(3, np.int64))


def r2_partition(
    y_true: Any,
    preds: list[Any],
    sample_weight: Any,
    start: int,
    stream: Any,
    params: tuple[str, ...],
    options: dict[str, Any],
    owner: str,
    labels: Any = None,
) -> R2Sums:
    """The sums of one partition (runs on a worker); the predictions checked
    by the in-memory ``prepare``.  ``stream``: the Poisson ``(seed, gamma,
    B)``, or the partition's exact or group counts (``labels``: its strata or
    group ids, :func:`skboot._run._dask_counts.count_chunks`)."""
    B = n_resamples_of(stream)
    yt = np.asarray(y_true)
    m = yt.shape[0]
    q = len(preds) + 3
    s = np.zeros((B + 1, q + 1))
    lo, hi = np.full(B + 1, np.inf), np.full(B + 1, -np.inf)
    if m == 0:
        return R2Sums(0, 0.0, s, lo, hi, 0, np.zeros(q, dtype=np.int64))
    y, squares, w = r2_rows(yt, preds, sample_weight, params, options, owner)
    total = w.sum()
    shift = float((w * y).sum() / total) if total > 0 else float(y.mean())
    z = y - shift
    X = np.column_stack([*(w * r for r in squares), w * z, w * z * z, w])
    held = np.where(w > 0.0, y, np.nan)
    X = np.ascontiguousarray(X)
    if isinstance(stream, tuple):
        seed, gamma, _ = stream
        poisson_rows_sums(X, held, seed, gamma, np.int64(start), s[:B], lo[:B], hi[:B])
    else:
        for k0, counts in count_chunks(stream, labels, m):
            counted_rows_sums(X, held, counts, k0, s, lo, hi)
    s[B, :q] = X.sum(axis=0)
    s[B, q] = float(m)
    with np.errstate(invalid="ignore"):
        lo[B], hi[B] = np.nanmin(held, initial=np.inf), np.nanmax(held, initial=-np.inf)
    bad = int((~np.isfinite(X)).any(axis=1).sum())
    nonzero = [
        (w > 0.0).sum(),
        (held == lo[B]).sum(),
        (held == hi[B]).sum(),
        *((X[:, j] != 0.0).sum() for j in range(len(squares))),
    ]
    return R2Sums(m, shift, s, lo, hi, bad, np.array(nonzero, dtype=np.int64))


def r2_rows(
    yt: np.ndarray,
    preds: list[Any],
    sample_weight: Any,
    params: tuple[str, ...],
    options: dict[str, Any],
    owner: str,
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """One partition's (non-empty) targets, each prediction's squared
    residuals (checked by the in-memory ``prepare``) and the sample weights."""
    squares = []
    for param, yp in zip(params, preds, strict=True):
        try:
            prepared = METRICS["r2"].prepare(yt, np.asarray(yp), **options)
        except ValueError as exc:
            raise ValueError(f"{exc} (in '{param}' of {owner})") from exc
        y = prepared.args[0]
        squares.append(prepared.args[1])
    m = yt.shape[0]
    w = np.ones(m) if sample_weight is None else partition_weights(sample_weight, owner)
    return y, squares, w


def _moved(p: R2Sums, centre: float) -> np.ndarray:
    """``p``'s sums about ``centre`` instead of ``p.shift``."""
    d = p.shift - centre
    s = p.s.copy()
    j = s.shape[1] - 4  # the column of sum c w (y - shift)
    W = p.s[:, j + 2]
    s[:, j] = p.s[:, j] + d * W
    s[:, j + 1] = p.s[:, j + 1] + (2.0 * d) * p.s[:, j] + (d * d) * W
    return s


def merge_r2(a: R2Sums, b: R2Sums) -> R2Sums:
    """The sums of the rows of ``a`` and ``b`` about their pooled centre."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    centre = (a.n * a.shift + b.n * b.shift) / (a.n + b.n)
    lo, hi = np.fmin(a.lo, b.lo), np.fmax(a.hi, b.hi)
    counts = a.counts + b.counts
    for p, slot, edge in ((a, 1, lo), (a, 2, hi), (b, 1, lo), (b, 2, hi)):
        if getattr(p, "lo" if slot == 1 else "hi")[-1] != edge[-1]:
            counts[slot] -= p.counts[slot]  # not at the pooled extreme
    return R2Sums(
        a.n + b.n,
        centre,
        _moved(a, centre) + _moved(b, centre),
        lo,
        hi,
        a.n_nonfinite + b.n_nonfinite,
        counts,
    )


def r2_values(total: R2Sums, n_preds: int, force_finite: bool) -> list[np.ndarray]:
    """Each prediction's R2 per replicate (row B: the original rows)."""
    s = total.s
    S1, S2, W = s[:, n_preds], s[:, n_preds + 1], s[:, n_preds + 2]
    out = []
    with np.errstate(invalid="ignore", divide="ignore"):
        den = S2 - S1 * S1 / W
        constant = (total.lo == total.hi) | (den <= 0.0)
        for j in range(n_preds):
            num = s[:, j]
            r2 = 1.0 - num / np.where(constant, 1.0, den)
            if force_finite:
                r2 = np.where(constant, np.where(num == 0.0, 1.0, 0.0), r2)
            else:
                r2 = np.where(constant, np.nan, r2)
            out.append(np.where(W > 0.0, r2, np.nan))
    return out
