"""The fused built-in statistics ("mean", "sum", "var", "std", "proportion",
"median", "quantile", "corr") and the centring that keeps them as precise as numpy
on the same replicate (guarantee 5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from skboot._engine._dispatch import cache_budget
from skboot._engine._rows import (
    as_float_rows,
    centre_of,
    centred_rows,
    corr_from_sums,
    moments_to_values,
)
from skboot._engine._statistic import Statistic
from skboot._kernels.iid import (
    iid_corr,
    iid_moments,
    iid_order_stats,
    iid_rows_kernel,
    iid_sum_kernel,
    iid_sumsq_kernel,
)
from skboot._kernels.weighted import (
    weighted_corr,
    weighted_moments,
    weighted_order_stats,
)
from skboot._kernels.wide import column_blocks, iid_moments_blocked
from skboot.resamplers import ResamplingPlan

__all__ = [
    "BUILTIN_STATISTICS",
    "BuiltinStatistic",
]

BUILTIN_STATISTICS = (
    "corr",
    "mean",
    "median",
    "ols",
    "proportion",
    "quantile",
    "std",
    "sum",
    "var",
)


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
    fused: ClassVar[bool] = True
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
        self.builtin_name = self.name
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

    def with_arrays(self, arrays: tuple[np.ndarray, ...]) -> Statistic:
        if len(arrays) == 2:  # "corr" of two arrays
            X = np.column_stack([np.asarray(a, dtype=np.float64) for a in arrays])
        else:
            X = as_float_rows(arrays[0])
        return BuiltinStatistic(
            name=self.name, data=X, ddof=self.ddof, q=self.q, scalar_q=self.scalar_q
        )

    def vector_output(self, data_ndim: int) -> bool:
        if self.name == "corr":
            return False
        if self.name == "quantile" and not self.scalar_q:
            return True
        return data_ndim == 2

    def keywords(self) -> dict[str, object]:
        """The ``statistic_kwargs`` that rebuild this statistic."""
        if self.name in ("var", "std"):
            return {"ddof": self.ddof}
        if self.name == "quantile":
            return {"q": self.q}
        return {}

    # -- the replicate chunk ------------------------------------------------------
    @property
    def is_moment(self) -> bool:
        """A sum-type statistic (plans with fused moments compute it)."""
        return self.name not in ("corr", "median", "quantile")

    def _iid(self, plan: ResamplingPlan) -> bool:
        scheme = plan.stream_scheme()
        return scheme is not None and scheme.kind == "iid"

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        if self._iid(plan) or (self.is_moment and plan.fuses_moments):
            return 8 * max(1, self.k)  # no per-replicate working set
        return 8 * plan.n_samples  # one row of weights

    def draws_per_replicate(self, plan: ResamplingPlan) -> int:
        return plan.draws_per_replicate(fused=self.is_moment and plan.fuses_moments)

    def replicate_lanes(self, plan: ResamplingPlan) -> int:
        # the fused weight kernels draw eight replicates per pass over the rows
        return 8 if self.is_moment and plan.fuses_moments else 1

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
        scheme = plan.stream_scheme()
        iid = scheme if scheme is not None and scheme.kind == "iid" else None
        W = None
        if iid is None and not (self.is_moment and plan.fuses_moments):
            W = scratch.get("W")
            if W is None or W.shape[0] < out.shape[0]:
                W = scratch["W"] = np.empty((out.shape[0], plan.n_samples))
            W = W[: out.shape[0]]
            plan.fill_weights_chunk(b0, W)
        if self.name == "corr":
            self._chunk_corr(arrays, iid, W, b0, out)
        elif self.name in ("median", "quantile"):
            self._chunk_order_stats(arrays, iid, W, b0, out)
        else:
            self._chunk_moments(arrays, plan, iid, W, b0, out, scratch)

    def _chunk_corr(self, arrays, iid, W, b0, out) -> None:
        (xy,) = arrays
        s = np.empty((out.shape[0], 7))
        if iid is not None:
            iid_corr(xy, iid.seed, iid.gamma, b0, iid.m, s)
        else:
            weighted_corr(xy, W, s)
        r = corr_from_sums(s[:, 0], s[:, 1], s[:, 2], s[:, 3], s[:, 4], s[:, 5])
        # a replicate whose x or y values are all equal: undefined, exactly
        # (its centred sums need not cancel to 0 in floating point)
        out[:, 0] = np.where(s[:, 6] > 0, r, np.nan)

    def _chunk_order_stats(self, arrays, iid, W, b0, out) -> None:
        X, order = arrays
        nb = out.shape[0]
        median = self.name == "median"
        qs = np.array([0.5]) if median else self.q
        if iid is None:
            # the kernel scans the sorted rows once: levels in ascending order
            perm = np.argsort(qs, kind="stable")
            res = np.empty((nb, self.d, qs.shape[0]))
            weighted_order_stats(
                X, order, W, np.ascontiguousarray(qs[perm]), median, res
            )
            res[:, :, perm] = res.copy()
            out[:, :] = res.reshape(nb, -1)
            return
        m = iid.m
        h = (m - 1) * qs
        if median:
            lo = np.array([(m - 1) // 2])
            hi = np.array([m // 2])
        else:
            lo = np.floor(h).astype(np.int64)
            hi = np.minimum(lo + 1, m - 1)
        positions = np.concatenate([lo, hi])
        perm = np.argsort(positions, kind="stable")
        pos_sorted = positions[perm].astype(np.int64)
        raw = np.empty((nb, self.d, pos_sorted.shape[0]))
        iid_order_stats(X, order, iid.seed, iid.gamma, b0, m, pos_sorted, raw)
        vals = np.empty_like(raw)
        vals[:, :, perm] = raw
        a = vals[:, :, : lo.shape[0]]
        b = vals[:, :, lo.shape[0] :]
        frac = (h - np.floor(h))[None, None, :]
        res = (a + b) / 2.0 if median else _lerp(a, b, frac)
        out[:, :] = res.reshape(nb, -1)

    def _chunk_moments(self, arrays, plan, iid, W, b0, out, scratch) -> None:
        (X,) = arrays
        nb = out.shape[0]
        want2 = self.name in ("var", "std")
        s1 = np.empty((nb, self.d))
        s2 = np.empty((nb, self.d))
        sw = np.empty(nb)
        if plan.fuses_moments:
            plan.fused_moments(X, b0, want2, s1, s2, sw)
        elif iid is not None:
            seed, gamma, m = iid.seed, iid.gamma, iid.m
            sw[:] = float(m)
            if self.d == 1 and want2:
                iid_sumsq_kernel(X.shape[0])(
                    X[:, 0], seed, gamma, b0, m, s1[:, 0], s2[:, 0]
                )
            elif self.d == 1:
                iid_sum_kernel(X.shape[0])(X[:, 0], seed, gamma, b0, m, s1[:, 0])
            elif self.d % 8 == 0 and X.nbytes <= 4 * cache_budget():
                # whole rows of 8 lanes: faster while the rows are (mostly) in
                # cache (10,000 x 8..24 measured; docs/scaling.md)
                kernel = iid_rows_kernel(X.shape[0], self.d, want2)
                kernel(X, seed, gamma, b0, m, want2, s1, s2)
            elif X.shape[0] < 1 << 32:
                # columns blocked so the random reads of a block stay in L2
                # (bit for bit iid_moments); the copy is made once per task
                Xb = scratch.get("Xb")
                if Xb is None:
                    Xb = scratch["Xb"] = column_blocks(X)
                iid_moments_blocked(Xb, self.d, seed, gamma, b0, m, want2, s1, s2)
            else:
                iid_moments(X, seed, gamma, b0, m, want2, s1, s2)
        else:
            weighted_moments(X, W, want2, s1, s2, sw)
        out[:, :] = moments_to_values(
            self.name, s1, s2, sw[:, None], self.shift[None, :], self.ddof
        )


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's quantile interpolation ("linear"), same rounding."""
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1.0 - t), a + diff * t)
