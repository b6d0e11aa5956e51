"""The BCa acceleration of a data-parallel run, in one more pass over the
partitions: the leave-one-out values stay on the workers, only their power sums
travel.

The acceleration (Efron & Tibshirani 1993, eq. 14.15) needs the sums of
``d_i**2`` and ``d_i**3``, ``d_i = theta_(.) - theta_(i)``.  For the moment
statistics and the mean-type metrics ``theta_(i)`` is a closed form of the
totals of all rows (known after the bootstrap's pass) and of row ``i`` alone,
so a partition computes ``e_i = theta_(i) - ref`` for its rows, ``ref`` a value
close to their mean fixed in advance, and returns ``n``, ``sum e``, ``sum e**2``,
``sum e**3`` and the least and greatest ``e`` (a constant jackknife gives
``a_hat = 0`` exactly, as in memory).  The partitions' sums are merged in the
fixed tree of :func:`skboot._run._dask.tree_merge` and turned into central
sums (:meth:`skboot.intervals.JackknifeMoments.from_power_sums`).

The leave-one-out values are those of the in-memory run:

* mean, proportion: ``(S - x_i) / (n - 1)``; ``e_i = (mean - x_i) / (n - 1)``.
* sum: the sum of the other rows, ``S - x_i``; ``e_i = mean - x_i``.
* var (``ddof``): ``M2_(i) / (n - 1 - ddof)`` with the downdate ``M2_(i) = M2 -
  n / (n - 1) z_i**2`` (``z_i = x_i - mean``, ``M2`` the sum of ``z**2``),
  clipped at 0; std: its square root.
* corr: Pearson's r of the totals ``S_x, S_y, S_xx, S_yy, S_xy`` (about the
  centre) less row ``i``'s terms, over ``n - 1`` rows (NaN where a variance
  left is not positive); ``e_i = r_(i) - r``.
* a mean-type metric of per-row values ``v_i`` with weights ``w_i`` (1 without
  sample weights): ``(A - w_i v_i) / (W - w_i)``, ``A = sum w v``, ``W = sum w``
  (NaN where ``W - w_i <= 0``); a row of zero weight leaves the metric
  unchanged; root mean: the square root (clipped at 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import as_float_rows, corr_from_sums
from skboot.intervals import JackknifeMoments

__all__ = [
    "LooRule",
    "LooSums",
    "corr_rule",
    "loo_deviations",
    "loo_moments",
    "loo_partition",
    "loo_sums",
    "merge_loo",
    "metric_rule",
    "moment_rule",
]


@dataclass(frozen=True)
class LooSums:
    """Power sums of some rows' ``e_i`` per column (finite rows only), their
    least and greatest value, and the number of rows with a non-finite one."""

    n: int
    p1: np.ndarray
    p2: np.ndarray
    p3: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_nonfinite: int = 0
    first_nonfinite: int = -1


def merge_loo(a: LooSums, b: LooSums) -> LooSums:
    """The sums of the rows of ``a`` and ``b``."""
    if b.n == 0:
        return a
    if a.n == 0:
        return b
    return LooSums(
        a.n + b.n,
        a.p1 + b.p1,
        a.p2 + b.p2,
        a.p3 + b.p3,
        np.minimum(a.lo, b.lo),
        np.maximum(a.hi, b.hi),
        a.n_nonfinite + b.n_nonfinite,
        _first(a.first_nonfinite, b.first_nonfinite),
    )


def _first(a: int, b: int) -> int:
    """The smaller of two row numbers, -1 standing for none (partitions sorted
    by score hold rows in any order)."""
    return b if a < 0 else a if b < 0 else min(a, b)


@dataclass(frozen=True)
class LooRule:
    """What every partition needs to compute its rows' ``e_i``: the statistic
    (``name``: a moment built-in, "mean_metric" or "rms_metric"), the row count
    ``n``, the centre subtracted from each value (a metric's full weighted
    mean of each prediction's values), per column the centred mean ``mu`` and
    ``m2`` (the sum of squared deviations from the mean), a metric's total
    weight ``total``, the ``ddof`` of var/std and a metric's ``sign``; for
    corr, ``sums``: the centred totals of x, y, x*x, y*y, x*y and r."""

    name: str
    n: int
    centre: np.ndarray
    mu: np.ndarray
    m2: np.ndarray
    total: float = 0.0
    ddof: int = 0
    sign: float = 1.0
    sums: tuple[float, ...] = ()

    @property
    def dof(self) -> int:
        return self.n - 1 - self.ddof


def moment_rule(
    name: str, n: int, centre: np.ndarray, s1: np.ndarray, s2: np.ndarray, ddof: int
) -> LooRule:
    """The rule of a moment built-in from the sums of all rows about
    ``centre`` (``s1``, ``s2``: sums of ``x - centre`` and its square)."""
    mu = s1 / n
    m2 = np.maximum(s2 - s1 * mu, 0.0)
    return LooRule(name, n, centre, mu, m2, float(n), ddof)


def corr_rule(n: int, centre: np.ndarray, s: np.ndarray, r: float) -> LooRule:
    """The rule of corr from the centred totals ``s`` (x, y, x*x, y*y, x*y)
    of all rows about ``centre`` and the estimate ``r``."""
    zero = np.zeros(1)
    sums = (*(float(v) for v in s[:5]), float(r))
    return LooRule("corr", n, centre, zero, zero, float(n), sums=sums)


def _corr_deviations(rule: LooRule, y: np.ndarray) -> np.ndarray:
    """``r_(i) - r`` per row of the centred (m, 2) rows ``y``, (m, 1)."""
    sx, sy, sxx, syy, sxy, r = rule.sums
    a, b = y[:, 0], y[:, 1]
    loo = corr_from_sums(
        sx - a,
        sy - b,
        sxx - a * a,
        syy - b * b,
        sxy - a * b,
        np.full(y.shape[0], float(rule.n - 1)),
    )
    return (loo - r)[:, None]


def metric_rule(rms: bool, means: np.ndarray, total: float, sign: float) -> LooRule:
    """The rule of a mean-type metric (of one prediction, or the difference
    of two): each prediction's full weighted mean and the total weight."""
    name = "rms_metric" if rms else "mean_metric"
    zero = np.zeros_like(means)
    return LooRule(name, 0, means, zero, zero, float(total), 0, float(sign))


def _variance_deviations(rule: LooRule, y: np.ndarray) -> np.ndarray:
    """``var_(i) - var_ref`` (var) or ``std_(i) - sqrt(var_ref)`` (std), with
    ``var_ref = M2 (n - 2) / ((n - 1) dof)``, the mean of the ``var_(i)``."""
    n, dof = rule.n, rule.dof
    z = y - rule.mu
    z2 = z * z
    ref = rule.m2 * (n - 2) / ((n - 1) * dof)
    e = (rule.m2 / n - z2) * (n / ((n - 1) * dof))
    clipped = rule.m2 - (n / (n - 1)) * z2 < 0.0  # var_(i) is 0 there
    e = np.where(clipped, -ref, e)
    if rule.name == "var":
        return e
    var_i = np.maximum(ref + e, 0.0)
    root = np.sqrt(var_i) + np.sqrt(ref)
    return np.where(root > 0.0, e / np.where(root > 0.0, root, 1.0), 0.0)


def _metric_deviations(rule: LooRule, X: np.ndarray) -> np.ndarray:
    """``theta_(i) - theta_hat`` of a (root) mean-type metric per row, (m, 1):
    ``X`` holds each prediction's per-row values, then the weights; ``centre``
    the metric's full weighted means; NaN where the other rows weigh nothing.
    ``(A - w v) / (W - w) - A / W = w (A / W - v) / (W - w)``."""
    p = X.shape[1] - 1
    w = X[:, p]
    t = rule.total - w
    ok = t > 0.0
    safe = np.where(ok, t, 1.0)
    out = np.zeros(X.shape[0])
    for j in range(p):
        full = rule.centre[j]
        e = np.where(w == 0.0, 0.0, w * (full - X[:, j]) / safe)
        if rule.name == "rms_metric":
            loo = np.maximum(full + e, 0.0)
            ref = np.sqrt(max(full, 0.0))
            root = np.sqrt(loo) + ref
            num = np.where((full + e >= 0.0) & (full >= 0.0), e, loo - max(full, 0))
            e = np.where(root > 0.0, num / np.where(root > 0.0, root, 1.0), 0.0)
        out = out + e if j == 0 else out - e
    out = np.where(ok | (w == 0.0), rule.sign * out, np.nan)
    return out[:, None]


def loo_deviations(rule: LooRule, X: np.ndarray) -> np.ndarray:
    """``e_i`` of the (m, d) rows ``X`` (for a metric: the values of each
    prediction, then the weights), (m, d) ((m, 1) for a metric)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if rule.name in ("mean_metric", "rms_metric"):
            return _metric_deviations(rule, X)
        y = X - rule.centre
        if rule.name == "corr":
            return _corr_deviations(rule, y)
        if rule.name in ("mean", "proportion"):
            return (rule.mu - y) / (rule.n - 1)
        if rule.name == "sum":
            return rule.mu - y
        return _variance_deviations(rule, y)


def loo_partition(block: Any, rule: LooRule, start: int = 0) -> LooSums:
    """The power sums of one partition's ``e_i`` (runs on a worker; ``start``:
    the global number of its first row)."""
    X = as_float_rows(np.asarray(block))
    m = X.shape[0]
    d = 1 if rule.name in ("mean_metric", "rms_metric", "corr") else X.shape[1]
    if m == 0:
        return loo_sums(np.empty((0, d)), np.empty(0, dtype=np.int64))
    rows = np.arange(start, start + m, dtype=np.int64)
    return loo_sums(loo_deviations(rule, X), rows)


def loo_sums(e: np.ndarray, rows: np.ndarray) -> LooSums:
    """The power sums of the (m, d) deviations ``e`` of the rows numbered
    ``rows`` (their finite ones; the first row with a non-finite one)."""
    m, d = e.shape
    if m == 0:
        zero = np.zeros(d)
        return LooSums(0, zero, zero, zero, np.full(d, np.inf), np.full(d, -np.inf))
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(e).all(axis=1)
        ef = e[finite]
        e2 = ef * ef
        lo = ef.min(axis=0) if ef.shape[0] else np.full(d, np.inf)
        hi = ef.max(axis=0) if ef.shape[0] else np.full(d, -np.inf)
        return LooSums(
            m,
            ef.sum(axis=0),
            e2.sum(axis=0),
            (e2 * ef).sum(axis=0),
            lo,
            hi,
            int(m - finite.sum()),
            int(rows[~finite].min()) if not finite.all() else -1,
        )


def loo_moments(total: LooSums) -> JackknifeMoments:
    """The central sums of the leave-one-out values from the merged sums."""
    with np.errstate(invalid="ignore", over="ignore"):
        return JackknifeMoments.from_power_sums(
            total.n,
            total.p1,
            total.p2,
            total.p3,
            total.lo == total.hi,
            total.n_nonfinite,
            first_nonfinite=total.first_nonfinite,
        )
