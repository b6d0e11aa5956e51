"""Exact ties on integer-valued data.

On 0/1 or small-integer losses (classification errors, counts) a bootstrap
replicate often ties the observed statistic exactly, and a tie counted on the
wrong side moves a p-value by ``1 / B`` per replicate.  Every statistic of the
procedures is a monotone function of integer sums: the replicate sums
``N*_bk`` of the rows of replicate ``b`` and the full-sample sums ``S_k``.
When the data allow it (integer values, ``T max|x| <= 2**50``, replicate means
that are multiples of ``1 / T``), those sums are computed exactly in float64 and the statistics are
formed from them, the observed value and the replicates through the same
arithmetic:

* ``c_bk = N*_bk - S_k`` (exact), the recentred numerators ``c_bk + shift_k``
  (``shift_k`` is ``0``, ``S_k`` or ``min(S_k, 0)``: exact);
* unstudentized statistics compare those integers; studentized ones multiply
  numerator and observed sum by the same ``w_k``, so equal integers give equal
  values and the order of a model's values is the order of its integers.

Values of different models scaled by different standard errors compare as
floating-point numbers (the ratio of two standard errors is in general
irrational, so such values do not tie exactly; equal standard errors, which
equal integer sums of squares give here, are equal bit for bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from skboot._kernels.multiple_comparison import mcs_max_int
from skboot.multiple_comparison._replicates import replicate_means
from skboot.resamplers import BaseResampler

__all__ = [
    "EXACT_LIMIT",
    "ExactSums",
    "above_quantile",
    "bootstrap_variance",
    "exact_metric_sums",
    "exact_replicates",
    "integer_valued",
    "mcs_max_exact",
]

#: Integer sums up to this magnitude are exact in float64 with room for the
#: differences and recentering of the procedures.
EXACT_LIMIT = 2.0**50
#: A replicate mean times ``T`` within this of an integer is that integer.
_ROUND_TOL = 2.0**-20


@dataclass(frozen=True)
class ExactSums:
    """Integer sums of ``k`` columns: ``S`` (k,) over the ``T`` rows and the
    recentred replicate sums ``c`` (B, k), ``c[b] = N*_b - S``, exact integers
    held in float64."""

    S: np.ndarray
    c: np.ndarray
    T: int

    @property
    def means(self) -> np.ndarray:
        """``S / T`` (correctly rounded)."""
        return self.S / self.T

    @property
    def centred(self) -> np.ndarray:
        """``c / T``: the centred replicate means (correctly rounded)."""
        return self.c / self.T


def integer_valued(X: np.ndarray) -> bool:
    """Whether ``X`` (finite) holds integers whose column sums are exact."""
    if X.size == 0 or not np.array_equal(X, np.rint(X)):
        return False
    return bool(float(np.max(np.abs(X))) * X.shape[0] <= EXACT_LIMIT)


def _recover(means: np.ndarray, T: int) -> np.ndarray | None:
    """The integer sums behind means of ``T`` rows, or None when some mean is
    not a multiple of ``1 / T`` (replicates of another size, weights)."""
    scaled = means * T
    N = np.rint(scaled)
    if not np.all(np.abs(scaled - N) <= _ROUND_TOL):
        return None
    return N


def exact_replicates(
    X: np.ndarray, fitted: BaseResampler, n_resamples: int, n_jobs: Any
) -> ExactSums | None:
    """Exact sums of the integer-valued ``X`` (T, k) and of its replicates, or
    None when ``X`` is not integer-valued or a replicate is not ``T`` rows with
    integer counts (tapered weights, clusters of unequal size)."""
    if not integer_valued(X):
        return None
    T = X.shape[0]
    M = replicate_means(X, fitted.plan_, n_resamples, n_jobs=n_jobs)
    N = _recover(M, T)
    if N is None:
        return None
    S = X.sum(axis=0)
    return ExactSums(S, np.ascontiguousarray(N - S), T)


def exact_metric_sums(est: np.ndarray, M: np.ndarray, n: int) -> ExactSums | None:
    """Metric values that are all multiples of ``1 / n`` (accuracy, zero-one
    loss, errors of integer predictions, with unit weights) as exact sums, or
    None."""
    if not np.all(np.abs(est) * n <= EXACT_LIMIT) or not np.all(
        np.abs(M) * n <= EXACT_LIMIT
    ):
        return None
    S = _recover(est, n)
    N = _recover(M, n)
    if S is None or N is None:
        return None
    return ExactSums(S, np.ascontiguousarray(N - S), n)


def bootstrap_variance(ex: ExactSums) -> np.ndarray:
    """``T`` times the variance of the replicate means, ``(B sum c**2 -
    (sum c)**2) / (B**2 T)``, from exact integer sums (Python integers): equal
    for columns with equal sums."""
    B = ex.c.shape[0]
    out = np.empty(ex.c.shape[1])
    for j in range(out.shape[0]):
        col = ex.c[:, j].astype(np.int64)
        s1 = int(col.sum())
        counts = np.unique(col, return_counts=True)
        s2 = sum(int(v) * int(v) * int(m) for v, m in zip(*counts, strict=True))
        out[j] = (B * s2 - s1 * s1) / (B * B * ex.T)
    return out


def _virtual_index(n: int, size: float) -> tuple[int, float]:
    """``(j, g)`` of numpy's linear ``percentile(x, 100 (1 - size))`` of ``n``
    sorted values: ``x[j] + g (x[j+1] - x[j])``, computed as numpy does."""
    q = 100.0 * (1.0 - size)
    h = (n - 1) * (q / 100.0)
    j = int(np.floor(h))
    return min(j, n - 1), float(h - j) if j < n - 1 else 0.0


def above_quantile(t: np.ndarray, sample: np.ndarray, size: float) -> np.ndarray:
    """``t > percentile(sample, 100 (1 - size))`` decided exactly.

    The critical value is numpy's linear interpolation between two order
    statistics; the comparison is made in rational arithmetic on the values
    as given (a value equal to the interpolated critical value is not above
    it), so integer-valued statistics tie where exact arithmetic ties."""
    s = np.sort(sample)
    j, g = _virtual_index(s.shape[0], size)
    lo = float(s[j])
    hi = float(s[min(j + 1, s.shape[0] - 1)])
    if g == 0.0 or lo == hi:
        return t > lo
    out = t >= hi
    for i in np.flatnonzero((t > lo) & (t < hi)):
        out[i] = Fraction(float(t[i])) - Fraction(lo) > Fraction(g) * (
            Fraction(hi) - Fraction(lo)
        )
    return out


def mcs_max_exact(
    S: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """The max-statistic MCS from exact sums (:func:`mcs_max_int`), or None when
    the integers could overflow an int64."""
    B, k = c.shape
    big = float(np.max(np.abs(c))) if c.size else 0.0
    if (
        B * (2.0 * k * big) ** 2 >= 2.0**62
        or 2.0 * k * float(np.max(np.abs(S))) >= 2.0**62
    ):
        return None
    order, pvals, stats, bad = mcs_max_int(S.astype(np.int64), c.astype(np.int64))
    return order, pvals, stats, int(bad)
