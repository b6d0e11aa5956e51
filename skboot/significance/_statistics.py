"""Test statistics the engine runs on permutation replicates: fused built-ins
(numba kernels, no permuted copy of the data) and user callables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import rankdata

from skboot._engine import Statistic, as_output
from skboot._engine._statistic import call_user
from skboot._kernels.permutation_pipelined import indep_sum_kernel
from skboot._kernels.significance import (
    indep_moments_chunk,
    indep_moments_perms,
    indep_sum_perms,
    median_chunk,
    median_perms,
    pairings_dot_chunk,
    pairings_dot_perms,
    signs_chunk,
    signs_perms,
)
from skboot._random import PURPOSE
from skboot.significance._common import result_dtype
from skboot.significance._plans import PermutationTestPlan

__all__ = [
    "FUSED_STATISTICS",
    "CallableTestStatistic",
    "FusedTestStatistic",
    "exact_centre",
    "magnitude",
]

#: Fused statistics and the permutation type each is defined for.
FUSED_STATISTICS = {
    "mean_diff": "independent",
    "median_diff": "independent",
    "t": "independent",
    "welch_t": "independent",
    "pearson": "pairings",
    "spearman": "pairings",
    "paired_mean_diff": "samples",
    "paired_t": "samples",
}

_RAW_WIDTH = {
    "mean_diff": 1,
    "median_diff": 2,
    "t": 4,
    "welch_t": 4,
    "pearson": 1,
    "spearman": 1,
    "paired_mean_diff": 2,
    "paired_t": 2,
}


def exact_centre(values: np.ndarray, limit: float) -> float | None:
    """The integer nearest the mean when the data are finite, integer-valued
    and their centred values sum exactly (``n * max|x - c| <= limit``), so that
    sums over any subset are exact integers and every statistic built from
    them ties where exact arithmetic ties; None otherwise (continuous data are
    centred by their mean, as before)."""
    if values.size == 0 or not np.isfinite(values).all():
        return None
    if not np.array_equal(values, np.round(values)):
        return None
    mean = float(values.mean())
    if not np.isfinite(mean):
        return None
    centre = float(np.round(mean))
    if values.shape[0] * float(np.abs(values - centre).max()) > limit:
        return None
    return centre


def magnitude(values: np.ndarray) -> float:
    """The largest finite ``|value|`` (0 when none): the scale of a statistic
    in the data's units, for the tie tolerance."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size else 0.0


@dataclass
class FusedTestStatistic(Statistic):
    """A fused statistic: the kernel reduces each replicate to a few moments
    (``raw``) and :meth:`finish` turns them into the statistic."""

    name: str = "mean_diff"
    n1: int = 0
    n_obs: int = 0
    total: float = 0.0
    scale: float = 1.0
    offset: float = 0.0
    exact_sums: bool = False
    tie_scale: float = 1.0
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()

    @classmethod
    def build(cls, name: str, samples: list[np.ndarray]) -> FusedTestStatistic:
        with np.errstate(invalid="ignore", over="ignore"):
            return cls._build(name, [np.asarray(s, dtype=np.float64) for s in samples])

    @classmethod
    def _build(cls, name: str, as_float: list[np.ndarray]) -> FusedTestStatistic:
        if name in ("mean_diff", "t", "welch_t"):
            pool = np.concatenate(as_float)
            # 2**52: the sums of the first sample stay exact integers
            centre = exact_centre(pool, 2.0**52)
            centred = np.ascontiguousarray(
                pool - (pool.mean() if centre is None else centre)
            )
            return cls(
                name=name,
                n1=as_float[0].shape[0],
                n_obs=pool.shape[0],
                total=float(centred.sum()),
                tie_scale=1.0 if name != "mean_diff" else magnitude(centred),
                arrays=(centred,),
            )
        if name == "median_diff":
            pool = np.concatenate(as_float)
            order = np.argsort(pool, kind="stable").astype(np.int64)
            return cls(
                name=name,
                n1=as_float[0].shape[0],
                n_obs=pool.shape[0],
                tie_scale=magnitude(pool),
                arrays=(order, np.ascontiguousarray(pool[order])),
            )
        if name in ("pearson", "spearman"):
            return cls._build_correlation(name, *as_float)
        d = as_float[0] if len(as_float) == 1 else as_float[0] - as_float[1]
        return cls(
            name=name,
            n_obs=d.shape[0],
            tie_scale=magnitude(d) if name == "paired_mean_diff" else 1.0,
            arrays=(np.ascontiguousarray(d),),
        )

    @classmethod
    def _build_correlation(
        cls, name: str, x: np.ndarray, y: np.ndarray
    ) -> FusedTestStatistic:
        """Pearson's r from ``sum(xc * yc[perm])``.  Average ranks (spearman)
        are multiples of 1/2 with the mean ``(n + 1) / 2``, so their centred
        products are exact.  Integer-valued Pearson data are centred by
        integers (exact products and sums, 2**26 keeps ``n * sum`` exact) and
        the offset of the true means is taken off in :meth:`finish`:
        ``r = (n * sum - sx * sy) / (n * scale)``, an exact numerator."""
        n = x.shape[0]
        offset = 0.0
        exact = False
        if name == "spearman":
            x, y = rankdata(x), rankdata(y)
        scale = float(
            np.sqrt(((x - x.mean()) ** 2).sum() * ((y - y.mean()) ** 2).sum())
        )
        cx = exact_centre(x, 2.0**26) if name == "pearson" else None
        cy = exact_centre(y, 2.0**26) if name == "pearson" else None
        if cx is not None and cy is not None:
            xc, yc = x - cx, y - cy
            exact = True
            offset = float(xc.sum() * yc.sum())
        else:
            xc, yc = x - x.mean(), y - y.mean()
        return cls(
            name=name,
            n_obs=n,
            scale=scale,
            offset=offset,
            exact_sums=exact,
            tie_scale=1.0,
            arrays=(np.ascontiguousarray(xc), np.ascontiguousarray(yc)),
        )

    def undefined_reason(self, samples: list[np.ndarray]) -> str:
        """Why the statistic is NaN on these data (for the warning)."""
        if self.name in ("t", "welch_t"):
            return (
                "both samples are constant with equal means, so the t statistic "
                "is 0 / 0"
            )
        if self.name == "paired_t":
            return "every difference is 0, so the t statistic is 0 / 0"
        if self.name in ("pearson", "spearman"):
            const = [j for j, s in enumerate(samples) if np.ptp(s) == 0]
            which = f"sample {const[0]} is" if const else "the samples are"
            return f"{which} constant, so the correlation is 0 / 0"
        return "the statistic is NaN on the original data"

    def bytes_per_replicate(self, plan: PermutationTestPlan) -> int:  # type: ignore[override]
        if plan.exact:
            return 8 * plan.replicate_size + 64
        return 64

    def raw_from_perms(
        self, arrays: tuple[np.ndarray, ...], perms: np.ndarray
    ) -> np.ndarray:
        """The moments of explicit permutations (plan layout rows)."""
        raw = np.empty((perms.shape[0], _RAW_WIDTH[self.name]))
        a = arrays
        if self.name == "mean_diff":
            indep_sum_perms(a[0], perms, self.n1, raw)
        elif self.name in ("t", "welch_t"):
            indep_moments_perms(a[0], perms, self.n1, raw)
        elif self.name == "median_diff":
            median_perms(perms, a[0], a[1], self.n1, raw)
        elif self.name in ("pearson", "spearman"):
            pairings_dot_perms(a[0], a[1], perms, raw)
        else:
            signs_perms(a[0], perms, raw)
        return raw

    def raw_streamed(
        self,
        arrays: tuple[np.ndarray, ...],
        plan: PermutationTestPlan,
        b0: int,
        nb: int,
    ) -> np.ndarray:
        raw = np.empty((nb, _RAW_WIDTH[self.name]))
        seed, gamma = plan.key.stream(PURPOSE["permutation"])
        b = np.int64(b0)
        if self.name == "mean_diff":
            kernel = indep_sum_kernel(arrays[0].shape[0], self.n1)
            kernel(seed, gamma, b, arrays[0], self.n1, raw)
        elif self.name in ("t", "welch_t"):
            indep_moments_chunk(seed, gamma, b, arrays[0], self.n1, raw)
        elif self.name == "median_diff":
            median_chunk(seed, gamma, b, arrays[0], arrays[1], self.n1, raw)
        elif self.name in ("pearson", "spearman"):
            pairings_dot_chunk(seed, gamma, b, arrays[0], arrays[1], raw)
        else:
            signs_chunk(seed, gamma, b, arrays[0], raw)
        return raw

    def finish(self, raw: np.ndarray) -> np.ndarray:
        """Statistic values from the kernels' moments (vectorized numpy)."""
        name = self.name
        with np.errstate(divide="ignore", invalid="ignore"):
            if name == "mean_diff":
                s1 = raw[:, 0]
                n2 = self.n_obs - self.n1
                return s1 / self.n1 - (self.total - s1) / n2
            if name == "median_diff":
                return raw[:, 0] - raw[:, 1]
            if name in ("t", "welch_t"):
                m1, m2, ss1, ss2 = raw.T
                n1, n2 = self.n1, self.n_obs - self.n1
                if name == "t":
                    var = (ss1 + ss2) / (n1 + n2 - 2) * (1.0 / n1 + 1.0 / n2)
                else:
                    var = ss1 / (n1 - 1) / n1 + ss2 / (n2 - 1) / n2
                return (m1 - m2) / np.sqrt(var)
            if name in ("pearson", "spearman"):
                if self.exact_sums:
                    n = float(self.n_obs)
                    r = (n * raw[:, 0] - self.offset) / (n * self.scale)
                else:
                    r = raw[:, 0] / self.scale
                return np.clip(r, -1.0, 1.0)
            mean, ss = raw.T
            if name == "paired_mean_diff":
                return mean.copy()
            n = self.n_obs
            return mean / np.sqrt(ss / (n - 1) / n)

    def observed(self, plan: PermutationTestPlan) -> np.ndarray:
        """The statistic on the data: the same kernel on the identity."""
        if plan.kind == "independent":
            ident = np.arange(plan.shape[0], dtype=np.int64)[None, :]
        elif plan.kind == "pairings":
            ident = np.tile(np.arange(plan.shape[1], dtype=np.int64), (1, 2, 1))
        else:
            ident = np.tile(np.arange(2, dtype=np.int64), (1, plan.shape[0], 1))
        return self.finish(self.raw_from_perms(self.arrays, ident))

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        if plan.exact:
            perms = scratch.get("perms")
            if perms is None or perms.shape[0] < nb:
                perms = scratch["perms"] = np.empty((nb, *plan.shape), np.int64)
            plan.fill(b0, perms[:nb])
            raw = self.raw_from_perms(arrays, perms[:nb])
        else:
            raw = self.raw_streamed(arrays, plan, b0, nb)
        out[:, 0] = self.finish(raw)


@dataclass
class CallableTestStatistic(Statistic):
    """A user statistic on permuted samples (observations on the last axis).

    Vectorized: called once per chunk with every sample given as ``(nb, *batch,
    n_j)`` and ``axis=-1``; plain: once per replicate (and per batch element of
    N-d samples) with 1-d samples.
    """

    func: Any = None
    vectorized: bool = True
    kind: str = "independent"
    n_given: int = 2
    batch: tuple[int, ...] = ()
    out_shape: tuple[int, ...] = ()
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"
    out_dtype: np.dtype = field(default_factory=lambda: np.dtype(np.float64))

    def bytes_per_replicate(self, plan: PermutationTestPlan) -> int:  # type: ignore[override]
        per_obs = sum(a.itemsize * a.size for a in self.arrays)
        return 8 * plan.replicate_size + 2 * per_obs + 64

    def call(
        self,
        samples: list[np.ndarray],
        where: str,
        b: int,
        shape: tuple[int, ...] | None,
    ) -> np.ndarray:
        """The statistic on one set of samples (1 replicate, all batch elements);
        ``shape`` is the expected output shape (None: any)."""
        if self.vectorized or not self.batch:
            kwargs = {"axis": -1} if self.vectorized else None
            value = call_user(self.func, tuple(samples), kwargs, where=where, b=b)
            self._note_dtype(value, b)
            return as_output(value, None, where, b, keep_shape=True, shape=shape)
        res = np.empty(self.batch)
        for idx in np.ndindex(*self.batch):
            one = call_user(self.func, tuple(s[idx] for s in samples), where=where, b=b)
            self._note_dtype(one, b)
            res[idx] = as_output(one, None, where, b, keep_shape=True, shape=())
        return res

    def _note_dtype(self, value: Any, b: int) -> None:
        """On the original data (``b == -1``), the floating dtype the
        statistic returns (float64 for other types): the result keeps it."""
        if b == -1:
            self.out_dtype = result_dtype(value)

    def estimate(self) -> np.ndarray:
        return self.call(list(self.arrays), "the original data", -1, None)

    def _batches(self, arrays, idx: np.ndarray, scratch) -> list[np.ndarray]:
        """Each sample of every replicate of the chunk, ``(nb, *batch, n_j)``;
        the pooled or stacked samples are built once per task in ``scratch``."""
        if self.kind == "independent":
            pooled = scratch.get("pooled")
            if pooled is None:
                pooled = scratch["pooled"] = np.concatenate(arrays, axis=-1)
            g = np.moveaxis(pooled[..., idx], -2, 0)
            cuts = np.cumsum([a.shape[-1] for a in arrays])[:-1]
            return np.split(g, cuts, axis=-1)
        if self.kind == "pairings":
            return [
                np.moveaxis(a[..., idx[:, s, :]], -2, 0) for s, a in enumerate(arrays)
            ]
        stacked = scratch.get("stacked")
        if stacked is None:
            parts = list(arrays) if len(arrays) > 1 else [arrays[0], -arrays[0]]
            stacked = scratch["stacked"] = np.moveaxis(np.stack(parts), -1, 1)
        n = stacked.shape[1]
        obs = np.arange(n)[None, :]
        out = []
        for s in range(self.n_given):
            g = stacked[idx[:, :, s], obs]  # (nb, n, *batch)
            out.append(np.moveaxis(g, 1, -1))
        return out

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        idx = scratch.get("idx")
        if idx is None or idx.shape[0] < nb:
            idx = scratch["idx"] = np.empty((nb, *plan.shape), np.int64)
        idx = idx[:nb]
        plan.fill(b0, idx)
        batches = self._batches(arrays, idx, scratch)
        if self.vectorized:
            where = f"replicates {b0}-{b0 + nb - 1}"
            try:
                value = self.func(*batches, axis=-1)
                arr = as_output(
                    value, None, where, b0, keep_shape=True, shape=(nb, *self.out_shape)
                )
            except Exception:  # find and report the failing replicate
                for k in range(nb):
                    one = [bt[k] for bt in batches]
                    val = self.call(one, f"replicate {b0 + k}", b0 + k, self.out_shape)
                    out[k] = val.reshape(-1)
                return
            out[:, :] = arr.reshape(nb, self.k)
            return
        for k in range(nb):
            one = [bt[k] for bt in batches]
            val = self.call(one, f"replicate {b0 + k}", b0 + k, self.out_shape)
            out[k] = val.reshape(-1)
