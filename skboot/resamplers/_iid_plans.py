"""The plans of the resamplers for independent observations: iid, stratified,
group, Poisson and Bayesian (Dirichlet); the resamplers themselves are in
:mod:`skboot.resamplers._iid`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.calibration_nested import (
    group_nested_counts,
    poisson_nested_counts,
    strata_nested_counts,
)
from skboot._kernels.fused_strata import pool_count_dtype, pool_moments
from skboot._kernels.fused_weights import (
    dirichlet_moments,
    group_moments,
    poisson_moments,
)
from skboot._kernels.resample import (
    dirichlet_chunk,
    expand_groups,
    group_counts_chunk,
    iid_counts_chunk,
    poisson_counts_chunk,
    pool_counts_chunk,
    pool_indices_chunk,
)
from skboot._random import (
    PURPOSE,
    RootKey,
    fill_dirichlet_weights,
    fill_indices_chunk,
    fill_indices_kernel,
    fill_poisson_counts,
    fill_pool_indices,
)
from skboot.resamplers._base import ResamplingPlan, StreamScheme

__all__ = [
    "DirichletPlan",
    "GroupPlan",
    "IIDPlan",
    "PoissonPlan",
    "PoolPlan",
    "label_pools",
]


def label_pools(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of each label, concatenated in label order (ascending rows)."""
    order = np.argsort(codes, kind="stable").astype(np.int64)
    sizes = np.bincount(codes).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    return order, offsets, sizes


# ---------------------------------------------------------------------------
# plans
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class IIDPlan(ResamplingPlan):
    """Replicate ``b``: ``sample_size`` uniform draws from ``[0, n)`` (purpose
    "indices"), draw ``i`` at position ``i``."""

    sample_size: int = 0
    #: purpose slot; independent sample ``j`` of a multi-sample run uses
    #: ``PURPOSE["independent"] + j``
    purpose: int = PURPOSE["indices"]

    @property
    def replicate_size(self) -> int:
        return self.sample_size

    def _seed(self) -> tuple[np.uint64, np.uint64]:
        return self.key.stream(self.purpose)

    @property
    def nests(self) -> bool:
        """n draws from n rows (not m-out-of-n, not an independent sample)."""
        return self.sample_size == self.n_samples and self.purpose == PURPOSE["indices"]

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, IIDPlan]:
        """n draws from the n rows of replicate ``b``."""
        return self.indices(b), dataclasses.replace(self, key=key)

    def stream_scheme(self) -> StreamScheme:
        seed, gamma = self._seed()
        return StreamScheme(
            "iid", seed, gamma, m=int(self.sample_size), n_draw=int(self.n_samples)
        )

    def indices(self, b: int) -> np.ndarray:
        out = np.empty(self.sample_size, dtype=self.index_dtype)
        seed, gamma = self._seed()
        fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(self.n_samples), out)
        return out

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        fill_indices_chunk(seed, gamma, b0, np.uint64(self.n_samples), out)

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        iid_counts_chunk(seed, gamma, b0, self.n_samples, self.sample_size, out)


@dataclass(frozen=True, eq=False)
class PoolPlan(ResamplingPlan):
    """Stratified: row ``i``'s slot draws uniformly from the rows of its stratum."""

    fuses_moments: ClassVar[bool] = True
    fuses_nested_moments: ClassVar[bool] = True

    codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    pools: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    offsets: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    sizes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def _seed(self) -> tuple[np.uint64, np.uint64]:
        return self.key.stream(PURPOSE["indices"])

    @property
    def nests(self) -> bool:
        return True

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, PoolPlan]:
        """Position ``i`` of replicate ``b`` holds a row of row ``i``'s stratum,
        so the same strata (and pools of positions) resample it."""
        return self.indices(b), dataclasses.replace(self, key=key)

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        inner = dataclasses.replace(self, key=key)
        like = np.empty(0, pool_count_dtype(int(np.max(self.sizes, initial=0))))
        strata = (self.codes, self.pools, self.offsets, self.sizes, like)
        return strata_nested_counts, (*self._seed(), *inner._seed(), *strata)

    @property
    def strata_codes(self) -> np.ndarray:
        """Stratum code of every row (strata in sorted label order)."""
        return np.asarray(self.codes)

    def indices(self, b: int) -> np.ndarray:
        out = np.empty(self.n_samples, dtype=np.int64)
        seed, gamma = self._seed()
        fill_pool_indices(
            seed, gamma, b, self.codes, self.pools, self.offsets, self.sizes, out
        )
        return out.astype(self.index_dtype, copy=False)

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        tmp = out if out.dtype == np.int64 else np.empty(out.shape, np.int64)
        pool_indices_chunk(
            seed, gamma, b0, self.codes, self.pools, self.offsets, self.sizes, tmp
        )
        if tmp is not out:
            out[...] = tmp

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        pool_counts_chunk(
            seed, gamma, b0, self.codes, self.pools, self.offsets, self.sizes, out
        )

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self._seed()
        # counts in the narrowest type that holds the largest stratum's
        like = np.empty(0, pool_count_dtype(int(np.max(self.sizes, initial=0))))
        return pool_moments, (
            seed,
            gamma,
            b0,
            self.codes,
            self.pools,
            self.offsets,
            self.sizes,
            like,
        )


@dataclass(frozen=True, eq=False)
class GroupPlan(ResamplingPlan):
    """Replicate ``b`` draws ``n_groups`` group ids uniformly (purpose "indices");
    in-bag rows are the rows of each drawn group, in draw order."""

    fuses_moments: ClassVar[bool] = True
    fuses_nested_moments: ClassVar[bool] = True

    codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    pools: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    offsets: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    sizes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    layout: str = field(default="variable", init=False)

    @property
    def n_groups(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def jackknife_groups(self) -> np.ndarray:
        """Delete-one-group jackknife units: the group code of every row."""
        return self.codes

    @property
    def nests(self) -> bool:
        return True

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, GroupPlan]:
        """Each group drawn into replicate ``b`` is one group of the nested
        plan (a group drawn twice gives two), its rows in draw order."""
        draws = self._draws(b)
        rows = expand_groups(draws, self.pools, self.offsets, self.sizes)
        sizes = self.sizes[draws].astype(np.int64)
        codes = np.repeat(np.arange(draws.shape[0], dtype=np.int64), sizes)
        offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        pools = np.arange(rows.shape[0], dtype=np.int64)
        nested = GroupPlan(
            key, rows.shape[0], codes=codes, pools=pools, offsets=offsets, sizes=sizes
        )
        return rows.astype(self.index_dtype, copy=False), nested

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        outer = self.key.stream(PURPOSE["indices"])
        inner = key.stream(PURPOSE["indices"])  # the nested plan's stream
        groups = (self.pools, self.offsets, self.sizes)
        return group_nested_counts, (*outer, *inner, *groups)

    def _draws(self, b: int) -> np.ndarray:
        draws = np.empty(self.n_groups, dtype=np.int64)
        seed, gamma = self.key.stream(PURPOSE["indices"])
        fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(self.n_groups), draws)
        return draws

    def indices(self, b: int) -> np.ndarray:
        rows = expand_groups(self._draws(b), self.pools, self.offsets, self.sizes)
        return rows.astype(self.index_dtype, copy=False)

    def counts(self, b: int) -> np.ndarray:
        gcount = np.bincount(self._draws(b), minlength=self.n_groups)
        return gcount[self.codes].astype(np.int64)

    def split_pair(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        draws = self._draws(b)
        rows = expand_groups(draws, self.pools, self.offsets, self.sizes)
        gcount = np.bincount(draws, minlength=self.n_groups)
        oob = np.flatnonzero(gcount[self.codes] == 0)
        return rows.astype(self.index_dtype, copy=False), oob

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["indices"])
        group_counts_chunk(seed, gamma, b0, self.n_groups, self.codes, out)

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self.key.stream(PURPOSE["indices"])
        return group_moments, (seed, gamma, b0, self.codes, self.sizes)


@dataclass(frozen=True, eq=False)
class PoissonPlan(ResamplingPlan):
    """Row ``i`` appears Poisson(1) times in replicate ``b`` (purpose "poisson")."""

    fuses_moments: ClassVar[bool] = True
    fuses_nested_moments: ClassVar[bool] = True

    layout: str = field(default="variable", init=False)

    def stream_scheme(self) -> StreamScheme:
        seed, gamma = self.key.stream(PURPOSE["poisson"])
        return StreamScheme("poisson", seed, gamma, m=int(self.n_samples))

    @property
    def nests(self) -> bool:
        return True

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, PoissonPlan]:
        """Each row copy of replicate ``b`` appears Poisson(1) times."""
        rows = self.indices(b)
        return rows, PoissonPlan(key, int(rows.shape[0]))

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        outer = self.key.stream(PURPOSE["poisson"])
        inner = key.stream(PURPOSE["poisson"])  # the nested plan's stream
        return poisson_nested_counts, (*outer, *inner)

    def counts(self, b: int) -> np.ndarray:
        out = np.empty(self.n_samples, dtype=np.int64)
        seed, gamma = self.key.stream(PURPOSE["poisson"])
        fill_poisson_counts(seed, gamma, b, out)
        return out

    def indices(self, b: int) -> np.ndarray:
        counts = self.counts(b)
        return np.repeat(np.arange(self.n_samples, dtype=self.index_dtype), counts)

    def split_pair(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        counts = self.counts(b)
        idx = np.repeat(np.arange(self.n_samples, dtype=self.index_dtype), counts)
        return idx, np.flatnonzero(counts == 0)

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["poisson"])
        poisson_counts_chunk(seed, gamma, b0, out)

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self.key.stream(PURPOSE["poisson"])
        return poisson_moments, (seed, gamma, b0)


@dataclass(frozen=True, eq=False)
class DirichletPlan(ResamplingPlan):
    """Replicate ``b`` is a flat-Dirichlet weight vector scaled to sum to ``n``."""

    fuses_moments: ClassVar[bool] = True

    layout: str = field(default="weights", init=False)

    def stream_scheme(self) -> StreamScheme:
        seed, gamma = self.key.stream(PURPOSE["dirichlet"])
        return StreamScheme("dirichlet", seed, gamma, m=int(self.n_samples))

    def _no_indices(self) -> ValueError:
        return ValueError(
            "BayesianBootstrap replicates are continuous weights; they have no "
            "indices, counts or out-of-bag rows. Use replicate(b).weights."
        )

    def indices(self, b: int) -> np.ndarray:
        raise self._no_indices()

    def counts(self, b: int) -> np.ndarray:
        raise self._no_indices()

    def oob(self, b: int) -> np.ndarray:
        raise self._no_indices()

    def weights(self, b: int) -> np.ndarray:
        out = np.empty(self.n_samples, dtype=np.float64)
        seed, gamma = self.key.stream(PURPOSE["dirichlet"])
        fill_dirichlet_weights(seed, gamma, b, out)
        return out

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["dirichlet"])
        dirichlet_chunk(seed, gamma, b0, out)

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self.key.stream(PURPOSE["dirichlet"])
        return dirichlet_moments, (seed, gamma, b0)
