"""Chunk planning, joblib dispatch and the four statistic tiers.

The engine turns (data, statistic, plan, n_resamples) into the bootstrap
distribution, shape (B, k), without ever holding more than one chunk of replicates:

1. the replicate range ``[0, B)`` is cut into joblib tasks (several per worker,
   deterministic boundaries); each task receives the data as top-level arguments
   (so loky memory-maps it and Dask scatters it) plus the small plan;
2. inside a task, replicates are processed in chunks whose working set fits the
   per-core cache budget; buffers are allocated once per task and reused;
3. each replicate is computed by the same code whatever chunk or task it falls in,
   so chunk size, ``n_jobs`` and backend never change a bit of the result.

Tiers: fused built-ins (numba, no index array for the iid scheme, per-row weights
otherwise), vectorized callables (one call per chunk on a reused buffer), plain
callables (one call per replicate on a reused buffer), and, in metrics, refits.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skboot._exceptions import StatisticError
from skboot._kernels.iid import (
    gather_iid_rows,
    iid_corr,
    iid_moments,
    iid_moments_tiled,
    iid_order_stats,
    iid_sum_1d,
    iid_sumsq_1d,
    integral_columns,
    take_rows,
)
from skboot._kernels.weighted import (
    weighted_corr,
    weighted_moments,
    weighted_order_stats,
)
from skboot.resamplers._base import ResamplingPlan
from skboot.resamplers._iid import IIDPlan

__all__ = [
    "BUILTIN_STATISTICS",
    "IndependentPlan",
    "cache_budget",
    "make_statistic",
    "run_bootstrap",
]

BUILTIN_STATISTICS = (
    "corr",
    "mean",
    "median",
    "proportion",
    "quantile",
    "std",
    "sum",
    "var",
)

_FALLBACK_BUDGET = 1 << 20

#: At most this many draws per chunk (per kernel call) when the chunk size is
#: automatic.  The fused kernels need no per-replicate working set, so the cache
#: budget alone allowed 4096 replicates of any size in one numba call, which
#: Ctrl-C cannot interrupt (17 s at n = 10**6).  2**25 draws (rows, or blocks for
#: the prefix-sum block kernels) take 0.02-0.2 s.  Never changes results, only how
#: often Python regains control (Ctrl-C, progress bar).
MAX_CHUNK_DRAWS = 1 << 25


@functools.lru_cache(maxsize=1)
def cache_budget() -> int:
    """Per-core working-set budget in bytes: the L2 size from sysfs, else 1 MiB."""
    env = os.environ.get("SKBOOT_CACHE_BYTES")
    if env:
        return max(4096, int(env))
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            with open(os.path.join(base, entry, "level")) as fh:
                level = fh.read().strip()
            with open(os.path.join(base, entry, "type")) as fh:
                kind = fh.read().strip()
            if level == "2" and kind in ("Unified", "Data"):
                with open(os.path.join(base, entry, "size")) as fh:
                    text = fh.read().strip().upper()
                mult = {"K": 1 << 10, "M": 1 << 20}.get(text[-1], 1)
                return int(text.rstrip("KM")) * mult
    except (OSError, ValueError):
        pass
    return _FALLBACK_BUDGET


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------
class Statistic:
    """A statistic the engine can run: prepared arrays plus chunk methods."""

    #: number of outputs per replicate
    k: int = 1
    #: the estimate on the original data, once computed (callables are not
    #: evaluated twice on it)
    cached_estimate: np.ndarray | None = None
    #: the tuple of arrays shipped to every task (top-level joblib arguments)
    arrays: tuple[np.ndarray, ...] = ()
    name: str = ""
    #: True when :meth:`jackknife` is a closed form (O(n) or O(n log n)) rather
    #: than one evaluation of the statistic per left-out row
    closed_form_jackknife: ClassVar[bool] = False
    #: shape of one replicate's value when it has two or more axes (a refit's
    #: multiclass ``coef_``); the engine runs it flattened (``k`` values, C order)
    #: and results restore the shape.  None: ``k`` values (scalar or 1-d).
    output_shape: tuple[int, ...] | None = None

    def estimate(self) -> np.ndarray:
        raise NotImplementedError

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(
        self,
        arrays: tuple[np.ndarray, ...],
        plan: ResamplingPlan,
        b0: int,
        out: np.ndarray,
        scratch: dict[str, Any],
    ) -> None:
        raise NotImplementedError

    def subset(self, rows: np.ndarray) -> Statistic:
        """The same statistic on the rows ``rows`` of the data (jackknife)."""
        raise NotImplementedError

    def jackknife(self) -> np.ndarray:
        """Leave-one-out values, shape (n, k); generic: n evaluations."""
        n = self.arrays[0].shape[0]
        out = np.empty((n, self.k))
        base = np.arange(n)
        keep = np.empty(n - 1, dtype=np.int64)
        for i in range(n):
            keep[:i] = base[:i]
            keep[i:] = base[i + 1 :]
            out[i] = self.subset(keep).estimate()
        return out

    def without_arrays(self) -> Statistic:
        """A shallow copy that does not carry the arrays (they travel separately)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.arrays = ()
        return clone


def _as_float_rows(a: np.ndarray) -> np.ndarray:
    """(n,) or (n, d) -> C-contiguous float64 (n, d)."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    return np.ascontiguousarray(a)


def aligned_rows(X: np.ndarray) -> np.ndarray:
    """``X`` (C-contiguous float64, (n, d) with ``d`` a multiple of 8) with its
    first row on a 64-byte boundary, copied only if it is not already.

    Rows of eight doubles are then one cache line each, which the vector row
    kernel (:func:`skboot._kernels.iid.iid_moments_tiled`) reads in one load; numpy's
    large allocations usually start 16 bytes past a page.  Values are unchanged.
    """
    if X.shape[1] % 8 or X.ctypes.data % 64 == 0:
        return X
    raw = np.empty(X.nbytes + 64, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    out = raw[start : start + X.nbytes].view(np.float64).reshape(X.shape)
    out[...] = X
    return out


def centre_of(X: np.ndarray) -> np.ndarray:
    """The shift ``c`` subtracted from each column before a fused sum, shape (d,).

    ``c_j`` is the mean of column ``j`` (``X.mean(axis=0)``; over the finite
    values when there are others), rounded to the nearest integer (half to
    even) when every finite value of the column is an integer (counts, 0/1
    data: their centred values and sums then stay exact integers), and 0 when
    that mean is not finite.  A pure function of
    the data, computed once per call, so replicates stay bit-identical for any
    chunking.  Centring makes the rounding error of a replicate sum proportional
    to the spread of the data, not to its offset (Chan, Golub & LeVeque 1983).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n == 0:
        return np.zeros(X.shape[1])
    # np.add.reduce / n is X.mean(axis=0) bit for bit, without its Python layer
    # (this runs once per call, and small calls are dominated by fixed costs)
    with np.errstate(over="ignore", invalid="ignore"):
        mu = np.add.reduce(X, axis=0) / n  # finite only if every value is
        if not np.isfinite(mu).all():
            for j in np.flatnonzero(~np.isfinite(mu)):
                col = X[:, j]
                col = col[np.isfinite(col)]
                mu[j] = col.mean() if col.shape[0] else 0.0
            mu[~np.isfinite(mu)] = 0.0  # overflow
    integral = np.empty(X.shape[1], dtype=np.bool_)
    integral_columns(X, integral)
    if integral.any():
        mu = np.where(integral, np.round(mu), mu)
    return mu


def centred_rows(X: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``X - shift`` as a new C-contiguous float64 (n, d) array, its first row on
    a 64-byte boundary when ``d`` is a multiple of 8 (see :func:`aligned_rows`)."""
    n, d = X.shape
    if d % 8:
        out = np.empty((n, d))
    else:
        raw = np.empty(n * d * 8 + 64, dtype=np.uint8)
        start = (-raw.ctypes.data) % 64
        out = raw[start : start + n * d * 8].view(np.float64).reshape(n, d)
    np.subtract(X, shift, out=out)
    return out


def moments_to_values(
    name: str,
    s1: np.ndarray,
    s2: np.ndarray,
    sw: np.ndarray,
    shift: np.ndarray,
    ddof: int,
) -> np.ndarray:
    """A moment statistic from the sums of centred values.

    ``s1``/``s2``: sums of ``w * (x - shift)`` and ``w * (x - shift)**2`` per
    replicate and column; ``sw`` the total weight (broadcastable against them).
    sum: ``s1 + sw * shift``; mean and proportion: that sum divided by ``sw``
    (NaN when ``sw <= 0``, an empty replicate); var: ``(s2 - s1**2 / sw) / (sw -
    ddof)``, clipped at 0 (NaN when ``sw - ddof <= 0``); std: its square root.
    Never emits a numpy RuntimeWarning: undefined values are NaN, which the
    caller counts (``n_undefined``) and reports once.
    """
    if name == "sum":
        return s1 + sw * shift
    with np.errstate(invalid="ignore", divide="ignore"):
        if name in ("mean", "proportion"):
            return np.where(sw > 0, (s1 + sw * shift) / sw, np.nan)
        dof = sw - ddof
        var = np.maximum((s2 - s1 * s1 / sw) / dof, 0.0)
        var = np.where((dof > 0) & (sw > 0), var, np.nan)
    return var if name == "var" else np.sqrt(var)


def corr_from_sums(
    sx: np.ndarray,
    sy: np.ndarray,
    sxx: np.ndarray,
    syy: np.ndarray,
    sxy: np.ndarray,
    sw: np.ndarray,
) -> np.ndarray:
    """Pearson's r from weighted sums of centred x, y, x*x, y*y, x*y.

    NaN (undefined, counted by the caller) when the total weight is not positive
    or either variance is not positive; no numpy RuntimeWarning.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        vx = sxx - sx * sx / sw
        vy = syy - sy * sy / sw
        ok = (sw > 0) & (vx > 0) & (vy > 0)
        r = (sxy - sx * sy / sw) / np.sqrt(np.where(ok, vx * vy, 1.0))
    return np.where(ok, r, np.nan)


@dataclass
class BuiltinStatistic(Statistic):
    """A fused built-in: "mean", "sum", "var", "std", "proportion", "median",
    "quantile" (column-wise) and "corr" (two columns).

    Moment statistics (all but the order statistics) work on ``X - shift`` with
    ``shift = centre_of(X)``; a replicate's column sum is ``S + w * shift``, ``S``
    the fused sum of the centred values and ``w`` the replicate's total weight
    (its size for index schemes), and its mean that sum divided by ``w``.
    """

    closed_form_jackknife: ClassVar[bool] = True
    name: str = "mean"
    data: np.ndarray = field(default_factory=lambda: np.empty((0, 1)))
    ddof: int = 0
    q: np.ndarray = field(default_factory=lambda: np.empty(0))
    shift: np.ndarray = field(default_factory=lambda: np.empty(0))
    scalar_q: bool = True
    d: int = 1
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()

    def __post_init__(self) -> None:
        X = self.data
        self.d = X.shape[1]
        if self.name in ("median", "quantile"):
            order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
            self.arrays = (X, order.astype(np.int64))
            nq = 1 if self.name == "median" else self.q.shape[0]
            self.k = self.d * nq
        else:
            self.shift = centre_of(X)
            self.arrays = (centred_rows(X, self.shift),)
            self.k = 1 if self.name == "corr" else self.d
        # the estimate from the data as given (numpy's value, not a reconstruction);
        # a NaN estimate is reported by the caller (UndefinedStatisticWarning)
        if self.name in ("corr", "var", "std"):
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                est = self.estimate_from(X)
        else:
            est = self.estimate_from(X)
        self.cached_estimate = np.atleast_1d(np.asarray(est, dtype=np.float64))
        self.data = np.empty((0, self.d))  # do not ship the raw copy twice

    # -- estimate and jackknife on the original rows ---------------------------
    def estimate_from(self, X: np.ndarray) -> np.ndarray:
        name = self.name
        if name in ("mean", "proportion"):
            return X.mean(axis=0)
        if name == "sum":
            return X.sum(axis=0)
        if name == "var":
            return X.var(axis=0, ddof=self.ddof)
        if name == "std":
            return X.std(axis=0, ddof=self.ddof)
        if name == "median":
            return np.median(X, axis=0)
        if name == "quantile":
            return np.quantile(X, self.q, axis=0).T.reshape(-1)
        r = np.corrcoef(X[:, 0], X[:, 1])[0, 1]
        return np.array([r])

    def estimate(self) -> np.ndarray:
        if self.cached_estimate is not None:
            return self.cached_estimate.copy()
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            est = self.estimate_from(self.original_rows())
        return np.atleast_1d(np.asarray(est, dtype=np.float64))

    def original_rows(self) -> np.ndarray:
        """The data rows, ``X - shift + shift`` for the centred statistics."""
        X = self.arrays[0]
        return X if self.name in ("median", "quantile") else X + self.shift

    def jackknife(self) -> np.ndarray:
        """Leave-one-out values, shape (n, k), in O(n) (O(n log n) for order stats)."""
        name = self.name
        Xa = self.arrays[0]
        n = Xa.shape[0]
        if name in ("mean", "proportion", "sum"):
            # the replicate rule on the n - 1 rows left
            s1 = Xa.sum(axis=0)[None, :] - Xa
            sw = np.full((1, 1), float(n - 1))
            return moments_to_values(name, s1, s1, sw, self.shift, 0)
        if name in ("var", "std"):
            S1 = Xa.sum(axis=0)
            S2 = (Xa * Xa).sum(axis=0)
            s1 = S1[None, :] - Xa
            s2 = S2[None, :] - Xa * Xa
            sw = np.full((1, 1), float(n - 1))
            return moments_to_values(name, s1, s2, sw, self.shift, self.ddof)
        if name == "corr":
            x, y = Xa[:, 0], Xa[:, 1]
            return corr_from_sums(
                x.sum() - x,
                y.sum() - y,
                (x * x).sum() - x * x,
                (y * y).sum() - y * y,
                (x * y).sum() - x * y,
                np.full(n, float(n - 1)),
            )[:, None]
        # order statistics: leave-one-out sample of size n-1
        X, order = self.arrays
        m = n - 1
        vals = np.take_along_axis(X, order.T, axis=0)  # sorted columns (n, d)
        rank = np.empty_like(order)
        for c in range(self.d):
            rank[c, order[c]] = np.arange(n)
        if name == "median":
            lo = np.array([(m - 1) // 2])
            hi = np.array([m // 2])
            frac = None
        else:
            h = (m - 1) * self.q
            lo = np.floor(h).astype(np.int64)
            hi = np.minimum(lo + 1, m - 1)
            frac = h - lo
        out = np.empty((n, self.d, lo.shape[0]))
        for c in range(self.d):
            r = rank[c][:, None]
            a = np.where(
                r > lo[None, :],
                vals[lo, c][None, :],
                vals[np.minimum(lo + 1, n - 1), c][None, :],
            )
            b = np.where(
                r > hi[None, :],
                vals[hi, c][None, :],
                vals[np.minimum(hi + 1, n - 1), c][None, :],
            )
            if frac is None:
                out[:, c, :] = (a + b) / 2.0
            else:
                out[:, c, :] = _lerp(a, b, frac[None, :])
        return out.reshape(n, -1)

    def subset(self, rows: np.ndarray) -> Statistic:
        X = self.original_rows()
        return BuiltinStatistic(
            name=self.name,
            data=np.ascontiguousarray(X[rows]),
            ddof=self.ddof,
            q=self.q,
            scalar_q=self.scalar_q,
        )

    # -- the replicate chunk ------------------------------------------------------
    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        moments = self.name not in ("corr", "median", "quantile")
        if isinstance(plan, IIDPlan) or (moments and hasattr(plan, "fused_moments")):
            return 8 * max(1, self.k)  # no per-replicate working set
        return 8 * plan.n_samples  # one row of weights

    def group_jackknife(self, codes: np.ndarray) -> np.ndarray | None:
        """Delete-one-group values in O(n + G) from group sums (moment statistics
        and corr); None for order statistics (the caller refits per group)."""
        name = self.name
        if name in ("median", "quantile"):
            return None
        Xa = self.arrays[0]
        G = int(codes.max()) + 1
        cnt = np.bincount(codes, minlength=G).astype(np.float64)
        m = Xa.shape[0] - cnt  # rows left when group g is deleted
        if np.any(m < 2):
            return None
        sums = [
            np.bincount(codes, weights=Xa[:, j], minlength=G)
            for j in range(Xa.shape[1])
        ]
        S1 = Xa.sum(axis=0)[None, :] - np.column_stack(sums)
        if name in ("mean", "proportion", "sum"):
            return moments_to_values(name, S1, S1, m[:, None], self.shift, 0)
        sq = [
            np.bincount(codes, weights=Xa[:, j] ** 2, minlength=G)
            for j in range(Xa.shape[1])
        ]
        S2 = (Xa * Xa).sum(axis=0)[None, :] - np.column_stack(sq)
        if name in ("var", "std"):
            return moments_to_values(name, S1, S2, m[:, None], self.shift, self.ddof)
        x, y = Xa[:, 0], Xa[:, 1]
        sxy = (x * y).sum() - np.bincount(codes, weights=x * y, minlength=G)
        return corr_from_sums(S1[:, 0], S1[:, 1], S2[:, 0], S2[:, 1], sxy, m)[:, None]

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        name = self.name
        iid = isinstance(plan, IIDPlan)
        moments = name not in ("corr", "median", "quantile")
        if iid:
            seed, gamma = plan._seed()
            m = plan.sample_size
            sw = np.full(nb, float(m))
        elif not (moments and hasattr(plan, "fused_moments")):
            W = scratch.get("W")
            if W is None or W.shape[0] < nb:
                W = scratch["W"] = np.empty((nb, plan.n_samples))
            W = W[:nb]
            plan.fill_weights_chunk(b0, W)
        if name == "corr":
            (xy,) = arrays
            s = np.empty((nb, 7))
            if iid:
                iid_corr(xy, seed, gamma, b0, m, s)
            else:
                weighted_corr(xy, W, s)
            r = corr_from_sums(s[:, 0], s[:, 1], s[:, 2], s[:, 3], s[:, 4], s[:, 5])
            # a replicate whose x or y values are all equal: undefined, exactly
            # (its centred sums need not cancel to 0 in floating point)
            out[:, 0] = np.where(s[:, 6] > 0, r, np.nan)
            return
        if name in ("median", "quantile"):
            X, order = arrays
            median = name == "median"
            qs = np.array([0.5]) if median else self.q
            if iid:
                if median:
                    lo = np.array([(m - 1) // 2])
                    hi = np.array([m // 2])
                else:
                    h = (m - 1) * qs
                    lo = np.floor(h).astype(np.int64)
                    hi = np.minimum(lo + 1, m - 1)
                positions = np.concatenate([lo, hi])
                perm = np.argsort(positions, kind="stable")
                pos_sorted = positions[perm].astype(np.int64)
                raw = np.empty((nb, self.d, pos_sorted.shape[0]))
                iid_order_stats(X, order, seed, gamma, b0, m, pos_sorted, raw)
                vals = np.empty_like(raw)
                vals[:, :, perm] = raw
                a = vals[:, :, : lo.shape[0]]
                b = vals[:, :, lo.shape[0] :]
                if median:
                    res = (a + b) / 2.0
                else:
                    res = _lerp(a, b, (h - np.floor(h))[None, None, :])
            else:
                res = np.empty((nb, self.d, qs.shape[0]))
                weighted_order_stats(X, order, W, qs, median, res)
            out[:, :] = res.reshape(nb, -1)
            return
        (X,) = arrays
        want2 = name in ("var", "std")
        s1 = np.empty((nb, self.d))
        s2 = np.empty((nb, self.d))
        fused = getattr(plan, "fused_moments", None)
        if fused is not None:
            sw = np.empty(nb)
            fused(X, b0, want2, s1, s2, sw)
        elif iid and self.d == 1 and want2:
            iid_sumsq_1d(X[:, 0], seed, gamma, b0, m, s1[:, 0], s2[:, 0])
        elif iid and self.d == 1:
            iid_sum_1d(X[:, 0], seed, gamma, b0, m, s1[:, 0])
        elif iid:
            if self.d % 8 == 0:
                iid_moments_tiled(X, seed, gamma, b0, m, want2, s1, s2)
            else:
                iid_moments(X, seed, gamma, b0, m, want2, s1, s2)
        else:
            sw = np.empty(nb)
            weighted_moments(X, W, want2, s1, s2, sw)
        out[:, :] = moments_to_values(
            name, s1, s2, sw[:, None], self.shift[None, :], self.ddof
        )


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's quantile interpolation ("linear"), same rounding."""
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1.0 - t), a + diff * t)


@dataclass
class CallableStatistic(Statistic):
    """A user callable, vectorized (``axis=-1``) or plain (one replicate per call).

    Vectorized convention: every array is given with observations on the last
    axis and a leading batch axis: a 1-D array as (nb, m), a 2-D (n, d) array as
    (nb, d, m); the callable returns (nb,) or (nb, k).  Plain convention: the rows of
    one replicate, (m,) or (m, d); returns a scalar or (k,).
    """

    func: Callable[..., Any] = np.mean
    vectorized: bool = False
    weights_kw: str | None = None
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"

    def _vector_views(self, arrays):
        return [a if a.ndim == 1 else a.T for a in arrays]

    def estimate(self) -> np.ndarray:
        kw: dict[str, Any] = {}
        if self.weights_kw is not None:  # the original data: every weight 1
            kw[self.weights_kw] = np.ones(self.arrays[0].shape[0])
        try:
            if self.vectorized:
                value = self.func(*self._vector_views(self.arrays), axis=-1, **kw)
            else:
                value = self.func(*self.arrays, **kw)
        except Exception as exc:
            raise StatisticError(
                f"The statistic raised on the original data: {exc!r}", -1
            ) from exc
        return _as_output(value, None, "the original data")

    def subset(self, rows: np.ndarray) -> Statistic:
        return CallableStatistic(
            func=self.func,
            vectorized=self.vectorized,
            weights_kw=self.weights_kw,
            k=self.k,
            arrays=tuple(np.take(a, rows, axis=0) for a in self.arrays),
        )

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        row = sum(a.itemsize * (a.size // max(1, a.shape[0])) for a in self.arrays)
        return plan.replicate_size * (8 + row)

    def _call_one(self, b: int, *args, **kw) -> np.ndarray:
        try:
            value = self.func(*args, **kw)
        except Exception as exc:
            raise StatisticError(
                f"The statistic raised on replicate {b}: {exc!r}. Regenerate the "
                f"replicate with resampler.fit(X).replicate({b}).indices.",
                b,
            ) from exc
        return _as_output(value, self.k, f"replicate {b}", b)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        if plan.layout == "weights":
            W = scratch.get("W")
            if W is None or W.shape[0] < nb:
                W = scratch["W"] = np.empty((nb, plan.n_samples))
            plan.fill_weights_chunk(b0, W[:nb])
            views = self._vector_views(arrays) if self.vectorized else arrays
            extra: dict[str, Any] = {"axis": -1} if self.vectorized else {}
            wkw = str(self.weights_kw)
            for k in range(nb):
                kw: dict[str, Any] = {wkw: W[k], **extra}
                out[k] = self._call_one(b0 + k, *views, **kw)
            return
        if plan.layout == "variable":
            for k in range(nb):
                idx = plan.indices(b0 + k)
                if self.vectorized:
                    views = [np.take(a, idx, axis=0).T for a in arrays]
                    out[k] = self._call_one(b0 + k, *views, axis=-1)
                else:
                    rows = [np.take(a, idx, axis=0) for a in arrays]
                    out[k] = self._call_one(b0 + k, *rows)
            return
        # one plan per array: paired arrays share one, independent samples
        # (IndependentPlan) have one each
        plans = getattr(plan, "plans", None) or (plan,) * len(arrays)
        idx_cache: dict[int, np.ndarray] = {}

        def indices_of(j: int) -> np.ndarray:
            """Index chunk of array ``j``'s plan, generated once per plan."""
            p = plans[j]
            if id(p) not in idx_cache:
                key = f"idx{j}"
                idx = scratch.get(key)
                if idx is None or idx.shape[0] < nb:
                    idx = scratch[key] = np.empty(
                        (nb, p.replicate_size), dtype=p.index_dtype
                    )
                idx = idx[:nb]
                p.fill_indices_chunk(b0, idx)
                idx_cache[id(p)] = idx
            return idx_cache[id(p)]

        if self.vectorized:
            batches = []
            for j, a in enumerate(arrays):
                m = plans[j].replicate_size
                key = f"vb{j}"
                buf = scratch.get(key)
                if a.ndim == 1:
                    if buf is None or buf.shape[0] < nb:
                        buf = scratch[key] = np.empty((nb, m), dtype=a.dtype)
                    v = buf[:nb]
                    if _gatherable(a):
                        self._gather(a, plans[j], b0, v, indices_of, j)
                    else:
                        np.take(a, indices_of(j), out=v)
                else:
                    aT = scratch.get(f"T{j}")
                    if aT is None:
                        aT = scratch[f"T{j}"] = np.ascontiguousarray(a.T)
                    if buf is None or buf.shape[1] < nb:
                        buf = scratch[key] = np.empty(
                            (a.shape[1], nb, m), dtype=a.dtype
                        )
                    v = buf[:, :nb]
                    np.take(aT, indices_of(j), axis=1, out=v)
                    v = v.transpose(1, 0, 2)
                batches.append(v)
            try:
                value = self.func(*batches, axis=-1)
                arr = np.asarray(value, dtype=np.float64)
                if self.k == 1:
                    ok = arr.shape in ((nb,), (nb, 1))
                else:
                    ok = arr.shape == (nb, self.k)
            except Exception:
                ok = False
            if ok:
                out[:, :] = arr.reshape(nb, self.k)
                return
            # locate the failing replicate and report it
            for k in range(nb):
                one = [bt[k] for bt in batches]
                out[k] = self._call_one(b0 + k, *one, axis=-1)
            return
        # plain callable: float64 arrays are gathered for the whole chunk in one
        # numba call (the statistic gets row k of the chunk buffer); other dtypes
        # are taken replicate by replicate into a reused buffer
        chunks: list[np.ndarray | None] = []
        bufs: list[np.ndarray | None] = []
        for j, a in enumerate(arrays):
            m = plans[j].replicate_size
            if _gatherable(a):
                g = scratch.get(f"g{j}")
                if g is None or g.shape[0] < nb:
                    g = scratch[f"g{j}"] = np.empty((nb, m, *a.shape[1:]))
                g = g[:nb]
                self._gather(a, plans[j], b0, g, indices_of, j)
                chunks.append(g)
                bufs.append(None)
            else:
                buf = scratch.get(f"pb{j}")
                if buf is None:
                    buf = scratch[f"pb{j}"] = np.empty((m, *a.shape[1:]), a.dtype)
                chunks.append(None)
                bufs.append(buf)
        for k in range(nb):
            args = []
            for j, a in enumerate(arrays):
                c = chunks[j]
                if c is not None:
                    args.append(c[k])
                else:
                    buf = bufs[j]
                    np.take(a, indices_of(j)[k], axis=0, out=buf)
                    args.append(buf)
            out[k] = self._call_one(b0 + k, *args)

    @staticmethod
    def _gather(a, p, b0, out, indices_of, j) -> None:
        """Fill ``out`` (nb, m[, d]) with the replicate rows of ``a`` (see
        :func:`_gatherable`) in one numba call: straight from the stream for iid
        plans, from the plan's index chunk otherwise."""
        a2 = a.reshape(a.shape[0], -1)
        o3 = out.reshape(out.shape[0], out.shape[1], a2.shape[1])
        if isinstance(p, IIDPlan):
            seed, gamma = p._seed()
            gather_iid_rows(a2, seed, gamma, b0, p.replicate_size, o3)
        else:
            take_rows(a2, indices_of(j), o3)


def _gatherable(a: np.ndarray) -> bool:
    """Arrays the numba row gather handles: C-contiguous float64, 1-D or 2-D, rows
    not empty.  Everything else goes through ``np.take`` (same values)."""
    return (
        a.dtype == np.float64
        and a.ndim in (1, 2)
        and a.flags.c_contiguous
        and a.size > 0
        and a.shape[0] > 0
    )


@dataclass(frozen=True, eq=False)
class IndependentPlan(ResamplingPlan):
    """Several samples, each resampled on its own (iid, its own length).

    Sample ``j`` reads purpose slot ``PURPOSE["independent"] + j``, so its
    replicate ``b`` is a pure function of (key, j, b).
    """

    plans: tuple[IIDPlan, ...] = ()

    @property
    def replicate_size(self) -> int:
        return max(p.replicate_size for p in self.plans)

    def indices(self, b: int) -> np.ndarray:
        raise ValueError(
            "Independent samples have one index array per sample; use "
            "plan.plans[j].indices(b)."
        )

    def make_statistic(self, statistic: Any, arrays: Any, **kw: Any) -> Any:
        """A built-in name: per-sample fused statistics
        (:mod:`skboot._independent`); a callable: None (the default path)."""
        if not isinstance(statistic, str):
            return None
        from skboot._independent import make_independent_builtin

        return make_independent_builtin(statistic, arrays, self, **kw)


@dataclass(frozen=True, eq=False)
class LeaveOneOutPlan(ResamplingPlan):
    """The jackknife as a plan: "replicate" ``i`` is every row but row ``i``, in
    order.  Lets the engine evaluate callables on leave-one-out samples in chunks
    (vectorized: one call per chunk; plain: the chunk row gather), in parallel
    when asked; nothing random is drawn."""

    @property
    def replicate_size(self) -> int:
        return self.n_samples - 1

    def indices(self, b: int) -> np.ndarray:
        return np.delete(np.arange(self.n_samples, dtype=self.index_dtype), b)

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        base = np.arange(self.n_samples - 1, dtype=out.dtype)
        left_out = np.arange(b0, b0 + out.shape[0], dtype=out.dtype)[:, None]
        np.add(base[None, :], base[None, :] >= left_out, out=out, casting="unsafe")


@dataclass(frozen=True, eq=False)
class DeleteGroupPlan(ResamplingPlan):
    """Delete-one-group jackknife as a plan: "replicate" ``g`` is every row whose
    group code is not ``g``, in order (group sizes may differ)."""

    codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    layout: str = field(default="variable", init=False)

    def indices(self, b: int) -> np.ndarray:
        return np.flatnonzero(self.codes != b).astype(self.index_dtype, copy=False)


def callable_jackknife(
    stat: Statistic,
    key: Any,
    codes: np.ndarray | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Leave-one-out (``codes is None``) or delete-one-group values of a callable
    statistic, shape (n or G, k), computed by the engine in chunks (with a
    progress bar on stderr when ``progress``).

    A failure is re-raised naming the left-out row or group.
    """
    n = stat.arrays[0].shape[0]
    if codes is None:
        plan: ResamplingPlan = LeaveOneOutPlan(key, n)
        count, unit = n, "row"
    else:
        count = int(codes.max()) + 1
        plan = DeleteGroupPlan(key, n, codes=np.asarray(codes, dtype=np.int64))
        unit = "group"
    try:
        return run_bootstrap(
            stat,
            plan,
            count,
            n_jobs=n_jobs,
            progress=progress,
            progress_label="jackknife samples",
        )
    except StatisticError as exc:
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        raise StatisticError(
            f"The statistic raised on the jackknife sample without {unit} "
            f"{exc.replicate} (needed for the BCa acceleration): {cause!r}",
            exc.replicate,
        ) from cause


def _as_output(value: Any, k: int | None, where: str, b: int = -1) -> np.ndarray:
    """The statistic's value as a 1-D float array; a StatisticError naming ``where``
    (and carrying replicate ``b``, -1 for the original data) if it is not one."""
    if value is None:
        raise StatisticError(
            f"The statistic must return a number or a 1-D array of numbers; on "
            f"{where} it returned None (a missing 'return'?).",
            b,
        )
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatisticError(
            f"The statistic must return a number or a 1-D array of numbers; on "
            f"{where} it returned {type(value).__name__}.",
            b,
        ) from exc
    if arr.ndim > 1:
        raise StatisticError(
            f"The statistic must return a scalar or a 1-D array; on {where} it "
            f"returned shape {arr.shape}.",
            b,
        )
    arr = arr.reshape(-1)
    if arr.shape[0] == 0:
        raise StatisticError(
            f"The statistic must return at least one value; on {where} it returned "
            "an empty array.",
            b,
        )
    if k is not None and arr.shape[0] != k:
        raise StatisticError(
            f"The statistic returned {arr.shape[0]} value(s) on {where}, but "
            f"{k} on the original data.",
            b,
        )
    return arr


def _accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params


def make_statistic(
    statistic: Any,
    arrays: tuple[np.ndarray, ...],
    *,
    vectorized: bool | None,
    statistic_kwargs: dict[str, Any] | None,
    plan: ResamplingPlan,
    owner: str,
    allow_nonfinite: bool = False,
) -> Statistic:
    """Validate the statistic against the data and build the engine object.

    ``allow_nonfinite`` (``nan_policy="propagate"``) lets NaN/inf reach the
    built-in kernels, whose replicates are then NaN and counted as undefined.
    """
    hook = getattr(plan, "make_statistic", None)
    if hook is not None:
        # a plan whose replicates are synthetic samples (skboot.model_based)
        # declares how a statistic is evaluated on them
        stat: Statistic | None = hook(
            statistic,
            arrays,
            vectorized=vectorized,
            statistic_kwargs=statistic_kwargs,
            owner=owner,
            allow_nonfinite=allow_nonfinite,
        )
        if stat is not None:  # None: the plan leaves this statistic to the default
            return stat
    kwargs = dict(statistic_kwargs or {})
    if isinstance(statistic, str):
        if statistic not in BUILTIN_STATISTICS:
            raise ValueError(
                f"The 'statistic' parameter of {owner} must be a callable or one of "
                f"{{{', '.join(repr(s) for s in BUILTIN_STATISTICS)}}}. Got "
                f"{statistic!r} instead."
            )
        allowed_kw = {"var": {"ddof"}, "std": {"ddof"}, "quantile": {"q"}}.get(
            statistic, set()
        )
        extra = set(kwargs) - allowed_kw
        if extra:
            raise ValueError(
                f"The 'statistic_kwargs' parameter of {owner} accepts "
                f"{sorted(allowed_kw) or 'no keys'} for statistic {statistic!r}. "
                f"Got {sorted(extra)} instead."
            )
        if len(arrays) == 2 and statistic == "corr":
            a0 = np.asarray(arrays[0], dtype=np.float64).reshape(-1)
            a1 = np.asarray(arrays[1], dtype=np.float64).reshape(-1)
            X = np.ascontiguousarray(np.column_stack([a0, a1]))
        elif len(arrays) != 1:
            raise ValueError(
                f"The built-in statistic {statistic!r} takes one data array "
                f"(or two for 'corr'). Got {len(arrays)} arrays instead; use a "
                "callable statistic for several arrays."
            )
        else:
            a = arrays[0]
            if a.dtype.kind == "c":
                raise ValueError(
                    f"The 'data' parameter of {owner} must be real numeric for the "
                    f"built-in statistic {statistic!r}. Complex data not supported "
                    f"(got dtype {a.dtype})."
                )
            if a.dtype.kind == "O":
                try:
                    a = a.astype(np.float64)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(
                        f"The 'data' parameter of {owner} must be numeric for the "
                        f"built-in statistic {statistic!r}: {exc}"
                    ) from exc
            if a.dtype.kind not in "biuf":
                raise ValueError(
                    f"The 'data' parameter of {owner} must be numeric for the "
                    f"built-in statistic {statistic!r}. Got dtype {a.dtype} instead."
                )
            if a.ndim > 2:
                raise ValueError(
                    f"The 'data' parameter of {owner} must be 1-D or 2-D (rows are "
                    f"observations). Got shape {a.shape} instead."
                )
            if a.ndim == 2 and a.shape[1] == 0:
                raise ValueError(
                    f"The 'data' parameter of {owner} has 0 feature(s) "
                    f"(shape={a.shape}) while a minimum of 1 is required."
                )
            X = _as_float_rows(a)
        if not allow_nonfinite and not np.isfinite(X).all():
            bad = int((~np.isfinite(X)).sum())
            raise ValueError(
                f"The 'data' parameter of {owner} contains {bad} NaN or infinite "
                "value(s); remove them or use a callable that handles them."
            )
        if statistic == "corr" and X.shape[1] != 2:
            raise ValueError(
                f"The statistic 'corr' needs exactly two columns (or two arrays). "
                f"Got {X.shape[1]} column(s) instead."
            )
        if statistic == "proportion" and not np.isin(X, (0.0, 1.0)).all():
            raise ValueError(
                "The statistic 'proportion' needs boolean or 0/1 data. Got "
                "other values instead."
            )
        ddof = kwargs.get("ddof", 0)
        if statistic in ("var", "std"):
            if (
                isinstance(ddof, bool)
                or not isinstance(ddof, (int, np.integer))
                or ddof < 0
            ):
                raise ValueError(
                    f"The 'ddof' statistic keyword of {owner} must be an int >= 0. "
                    f"Got {ddof!r} instead."
                )
            if plan.layout == "fixed" and plan.replicate_size - ddof <= 0:
                raise ValueError(
                    f"The 'ddof' statistic keyword of {owner} must be smaller than "
                    f"the replicate size {plan.replicate_size}. Got {ddof} instead."
                )
        q = np.empty(0)
        scalar_q = True
        if statistic == "quantile":
            if "q" not in kwargs:
                raise ValueError(
                    f"The statistic 'quantile' of {owner} needs statistic_kwargs="
                    "{'q': ...} with q in [0, 1]. Got no 'q' instead."
                )
            raw = kwargs["q"]
            try:
                q = np.atleast_1d(np.asarray(raw, dtype=np.float64))
            except (TypeError, ValueError):
                q = np.array([np.nan])
            if q.ndim != 1 or q.size == 0 or not np.all((q >= 0) & (q <= 1)):
                raise ValueError(
                    f"The 'q' statistic keyword of {owner} must be a float or 1-D "
                    f"array of floats in [0, 1]. Got {raw!r} instead."
                )
            scalar_q = np.ndim(raw) == 0
        if plan.layout == "weights" and statistic in ("median", "quantile"):
            raise ValueError(
                f"The statistic {statistic!r} is not available with a resampler "
                "whose replicates are continuous weights (BayesianBootstrap, "
                "TaperedBlockBootstrap): weighted quantiles have no single "
                "definition. Use a callable that accepts 'weights'."
            )
        return BuiltinStatistic(
            name=statistic, data=X, ddof=int(ddof), q=q, scalar_q=scalar_q
        )
    if not callable(statistic):
        raise ValueError(
            f"The 'statistic' parameter of {owner} must be a callable or one of "
            f"{{{', '.join(repr(s) for s in BUILTIN_STATISTICS)}}}. Got "
            f"{statistic!r} instead."
        )
    if vectorized is None:
        vectorized = _accepts(statistic, "axis")
    elif not isinstance(vectorized, (bool, np.bool_)):
        raise ValueError(
            f"The 'vectorized' parameter of {owner} must be None, True or False. "
            f"Got {vectorized!r} instead."
        )
    func = functools.partial(statistic, **kwargs) if kwargs else statistic
    weights_kw = None
    if plan.layout == "weights":
        for name in ("weights", "sample_weight"):
            if _accepts(statistic, name):
                weights_kw = name
                break
        else:
            raise ValueError(
                f"The resampler gives continuous weights, so the statistic of {owner} "
                "must accept a 'weights' or 'sample_weight' keyword. Got a callable "
                "without either instead."
            )
    stat = CallableStatistic(
        func=func, vectorized=bool(vectorized), weights_kw=weights_kw, arrays=arrays
    )
    est = stat.estimate()
    stat.k = est.shape[0]
    stat.cached_estimate = est  # the engine's caller reuses it: one call, not two
    return stat


# ---------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------
def _chunk_size(stat: Statistic, plan: ResamplingPlan, chunk_size: int | None) -> int:
    if chunk_size is not None:
        return chunk_size
    per = max(1, stat.bytes_per_replicate(plan))
    chunk = min(1 << 16, cache_budget() // per)
    # A fused kernel call cannot be interrupted (Ctrl-C is seen between chunks):
    # keep every call to at most MAX_CHUNK_DRAWS draws.
    chunk = min(chunk, MAX_CHUNK_DRAWS // _draws_per_replicate(stat, plan))
    return int(max(1, chunk))


def _draws_per_replicate(stat: Statistic, plan: ResamplingPlan) -> int:
    """Draws (random numbers and row reads) of one replicate in a kernel call: its
    rows, or its blocks when a block plan sums blocks from prefix sums."""
    size = max(1, plan.replicate_size)
    length = getattr(plan, "block_length", None)
    fused_blocks = (
        isinstance(stat, BuiltinStatistic)
        and stat.name not in ("corr", "median", "quantile")
        and hasattr(plan, "fused_moments")
    )
    if fused_blocks and length:
        return max(1, -(-size // max(1, int(length))))
    return size


def _detach(plan: ResamplingPlan) -> tuple[ResamplingPlan, tuple[str, ...], list]:
    """Move a plan's large array fields out of it, so that joblib ships them as
    top-level arguments (memory-mapped by loky, scattered once by Dask) instead of
    pickling them inside the plan with every task."""
    names: list[str] = []
    values: list[np.ndarray] = []
    for f in dataclasses.fields(plan):
        value = getattr(plan, f.name)
        if f.init and isinstance(value, np.ndarray) and value.nbytes > 1024:
            names.append(f.name)
            values.append(value)
    if not names:
        return plan, (), []
    blanks: dict[str, Any] = dict.fromkeys(names)
    skeleton = dataclasses.replace(plan, **blanks)
    return skeleton, tuple(names), values


class Progress:
    """A plain-text progress bar on stderr, updated at most ten times a second.

    Only created when the user asks (``progress=True``); library code never prints
    otherwise.
    """

    def __init__(
        self,
        total: int,
        stream: Any = None,
        width: int = 30,
        label: str = "replicates",
    ) -> None:
        import sys
        import time

        self.label = label
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._clock = time.monotonic
        self._last = -1.0
        self._start = self._clock()

    def update(self, n: int) -> None:
        self.done += n
        now = self._clock()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._last = now
            frac = self.done / self.total if self.total else 1.0
            bar = "#" * round(frac * self.width)
            elapsed = now - self._start
            self.stream.write(
                f"\rskboot: {self.done}/{self.total} {self.label} "
                f"[{bar:<{self.width}s}] {frac:4.0%} {elapsed:6.1f} s"
            )
            if self.done >= self.total:
                self.stream.write("\n")
            self.stream.flush()


def _run_range(
    stat: Statistic,
    plan: ResamplingPlan,
    b0: int,
    b1: int,
    chunk: int,
    n_data: int,
    plan_fields: tuple[str, ...],
    *arrays: np.ndarray,
    progress: Progress | None = None,
) -> np.ndarray:
    """Replicates ``[b0, b1)`` in chunks of ``chunk``; returns (b1 - b0, k).

    ``arrays`` holds the statistic's ``n_data`` arrays followed by the plan's
    detached array fields named in ``plan_fields``.
    """
    data = arrays[:n_data]
    if plan_fields:
        fields: dict[str, Any] = dict(zip(plan_fields, arrays[n_data:], strict=True))
        plan = dataclasses.replace(plan, **fields)
    out = np.empty((b1 - b0, stat.k))
    scratch: dict[str, Any] = {}
    for start in range(b0, b1, chunk):
        stop = min(b1, start + chunk)
        stat.run_chunk(data, plan, start, out[start - b0 : stop - b0], scratch)
        if progress is not None:
            progress.update(stop - start)
    return out


#: Below this many expected draws a fused built-in runs in-process even when
#: ``n_jobs > 1``: dispatch would cost more than the work (loky ~11 ms per call,
#: Dask ~30 ms).  Never changes results.
MIN_PARALLEL_DRAWS = 4_000_000


def plan_tasks(n_resamples: int, n_workers: int) -> np.ndarray:
    """Task boundaries: four tasks per worker (load balancing), deterministic.

    Boundaries only decide which worker computes a replicate, never its value.
    """
    n_tasks = int(min(n_resamples, 4 * n_workers))
    return np.linspace(0, n_resamples, n_tasks + 1).round().astype(np.int64)


def run_bootstrap(
    stat: Statistic,
    plan: ResamplingPlan,
    n_resamples: int,
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    progress: bool = False,
    progress_label: str = "replicates",
) -> np.ndarray:
    """The bootstrap distribution, shape (n_resamples, k).

    ``n_jobs`` and any ``joblib.parallel_config`` the caller set decide the backend
    (loky, threading, Dask, ...); nothing here names a backend.  ``progress``
    shows a bar counting ``progress_label``.
    """
    chunk = _chunk_size(stat, plan, chunk_size)
    n_workers = effective_n_jobs(n_jobs)
    data = stat.arrays
    light = stat.without_arrays()
    small = (
        isinstance(stat, BuiltinStatistic)
        and n_resamples * max(1, plan.replicate_size) < MIN_PARALLEL_DRAWS
    )
    bar = Progress(n_resamples, label=progress_label) if progress else None
    if n_workers == 1 or n_resamples < 2 or small:
        return _run_range(
            light, plan, 0, n_resamples, chunk, len(data), (), *data, progress=bar
        )
    skeleton, names, plan_arrays = _detach(plan)
    bounds = plan_tasks(n_resamples, n_workers)
    tasks = (
        delayed(_run_range)(
            light,
            skeleton,
            int(lo),
            int(hi),
            chunk,
            len(data),
            names,
            *data,
            *plan_arrays,
        )
        for lo, hi in itertools.pairwise(bounds)
        if hi > lo
    )
    if bar is None:
        parts = Parallel(n_jobs=n_jobs)(tasks)
    else:
        parts = []
        for part in Parallel(n_jobs=n_jobs, return_as="generator")(tasks):
            parts.append(part)
            bar.update(part.shape[0])
    return np.concatenate(parts, axis=0)
