"""Resamplers for independent observations: iid, stratified, group, Poisson and
Bayesian (Dirichlet) bootstraps."""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

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
from skboot._validation import (
    NONE,
    Constraint,
    Interval,
    check_array_1d_labels,
    param_error,
    value_error,
)
from skboot.resamplers._base import BaseResampler, ResamplingPlan, StreamScheme

__all__ = [
    "BayesianBootstrap",
    "Bootstrap",
    "GroupBootstrap",
    "PoissonBootstrap",
    "StratifiedBootstrap",
]


def _pools(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


# ---------------------------------------------------------------------------
# resamplers
# ---------------------------------------------------------------------------
class Bootstrap(BaseResampler):
    """The iid (nonparametric) bootstrap, with optional m-out-of-n subsampling.

    Replicate ``b`` draws ``sample_size`` rows uniformly with replacement.  Draw
    ``i`` is a pure function of ``(random_state, b, i)`` (see
    :mod:`skboot._random`), so any replicate can be regenerated alone and results do
    not depend on chunking or parallelism.  Generating a replicate costs
    O(sample_size) time and memory; nothing of size ``n_resamples x n`` exists.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    sample_size : int, float or None, default=None
        Draws per replicate.  None: ``n_samples``.  An int in ``[1, n_samples]``
        gives the m-out-of-n bootstrap; a float in ``(0, 1]`` is a fraction of
        ``n_samples`` (rounded, at least 1).
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    key_ : RootKey
        The root key fixed by :meth:`fit`.
    seed_entropy_ : int or SeedSequence
        Pass as ``random_state`` to repeat a run made with ``random_state=None``.
    n_samples_ : int
        Number of rows seen in :meth:`fit`.

    See Also
    --------
    StratifiedBootstrap : Keeps the class counts of ``y``.
    GroupBootstrap : Resamples whole groups (clusters).
    PoissonBootstrap : Independent Poisson(1) counts per row.
    BayesianBootstrap : Dirichlet weights instead of counts.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import Bootstrap
    >>> X = np.arange(10).reshape(5, 2)
    >>> bs = Bootstrap(n_resamples=3, random_state=0)
    >>> [train.tolist() for train, test in bs.split(X)]
    [[2, 1, 0, 2, 0], [1, 1, 4, 0, 4], [1, 4, 2, 0, 2]]
    >>> bs.fit(X).replicate(1).oob.tolist()
    [2, 3]
    """

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        sample_size: int | float | None = None,
        random_state: Any = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.sample_size = sample_size

    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "sample_size": [
            NONE,
            Interval("int", 1, None),
            Interval("real", 0.0, 1.0, closed="right"),
        ],
    }

    def _sample_size(self, n: int) -> int:
        """Draws per replicate on ``n`` rows (``sample_size`` was checked by
        :meth:`check_params`; an int must also be at most ``n``)."""
        s = self.sample_size
        if s is None:
            return n
        if isinstance(s, (numbers.Integral, np.integer)):
            if int(s) > n:
                allowed = f"None, an int in [1, n_samples={n}] or a float in (0, 1]"
                raise param_error("sample_size", self._name, allowed, s)
            return int(s)
        return max(1, round(float(s) * n))

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        return IIDPlan(key, n_samples, sample_size=self._sample_size(n_samples))


class StratifiedBootstrap(BaseResampler):
    """Bootstrap within each class of ``y``: stratum sizes are kept.

    Row ``i``'s slot of replicate ``b`` is a uniform draw, with replacement, from the
    rows sharing ``y[i]``; so each class keeps exactly its count.  The in-bag array
    is aligned with the original row order.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    See Also
    --------
    Bootstrap : The iid bootstrap, class counts free to vary.
    GroupBootstrap : Resamples whole groups instead of rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import StratifiedBootstrap
    >>> y = np.array([0, 0, 0, 1, 1])
    >>> sb = StratifiedBootstrap(n_resamples=2, random_state=0)
    >>> [np.bincount(y[train]).tolist() for train, _ in sb.split(y, y)]
    [[3, 2], [3, 2]]
    """

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        codes = check_array_1d_labels(y, "y", self._name, n_samples)
        pools, offsets, sizes = _pools(codes)
        return PoolPlan(
            key, n_samples, codes=codes, pools=pools, offsets=offsets, sizes=sizes
        )


class GroupBootstrap(BaseResampler):
    """Cluster bootstrap: resample whole groups with replacement.

    Replicate ``b`` draws as many group ids as there are groups; the in-bag array
    holds all rows of each drawn group, repeated by multiplicity, in draw order;
    out-of-bag rows are those of the groups not drawn.  Replicate sizes vary when
    groups differ in size.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    See Also
    --------
    Bootstrap : Resamples rows instead of groups.
    StratifiedBootstrap : Resamples rows within each class, counts kept.

    Notes
    -----
    ``groups`` is routed as in scikit-learn: pass ``groups=`` to ``split``,
    ``cross_validate`` or ``GridSearchCV.fit``, or with metadata routing enabled
    ``params={"groups": groups}``; the class requests ``groups`` for ``split``.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import GroupBootstrap
    >>> groups = np.array([0, 0, 1, 1, 2])
    >>> gb = GroupBootstrap(n_resamples=1, random_state=0)
    >>> train, test = next(gb.split(groups, groups=groups))
    >>> train.tolist(), test.tolist()
    ([2, 3, 0, 1, 0, 1], [4])
    """

    __metadata_request__split: ClassVar[dict[str, Any]] = {"groups": True}

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        codes = check_array_1d_labels(groups, "groups", self._name, n_samples)
        pools, offsets, sizes = _pools(codes)
        if sizes.shape[0] < 2:
            raise value_error(
                "groups",
                self._name,
                f"must contain at least 2 "
                f"distinct groups. Got {sizes.shape[0]} instead.",
            )
        return GroupPlan(
            key, n_samples, codes=codes, pools=pools, offsets=offsets, sizes=sizes
        )


class PoissonBootstrap(BaseResampler):
    """Poisson bootstrap: each row appears Poisson(1) times, independently.

    The streaming-friendly approximation of the iid bootstrap (Hanley & MacGibbon
    2006; Chamandy et al. 2012): rows need not be known in advance, and replicate
    sizes vary around ``n``.  ``split`` yields the rows repeated by their counts.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    See Also
    --------
    Bootstrap : Exactly ``n`` draws per replicate.
    BayesianBootstrap : Continuous Dirichlet weights.

    Notes
    -----
    Counts are drawn by inversion of one 53-bit uniform per row, truncated at 20
    (the Poisson(1) tail beyond 20 has probability below 2**-53).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import PoissonBootstrap
    >>> pb = PoissonBootstrap(n_resamples=1, random_state=0).fit(np.zeros(6))
    >>> pb.replicate(0).counts.tolist()
    [0, 2, 3, 0, 2, 1]
    """

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        return PoissonPlan(key, n_samples)


class BayesianBootstrap(BaseResampler):
    """Bayesian bootstrap (Rubin 1981): flat Dirichlet weights on the rows.

    Replicate ``b`` is a weight vector, ``w ~ n * Dirichlet(1, ..., 1)`` (mean
    weight 1), not a set of indices, so :meth:`split` raises; statistics are
    computed as weighted statistics by :func:`skboot.bootstrap`.  Row ``i``'s
    weight is ``-log(1 - u_i)`` of a uniform ``u_i`` of the stream, divided by the
    sum of them and multiplied by ``n``; skboot computes the logarithm itself,
    with a fixed sequence of IEEE operations, so the weights (and the replicate
    values) are the same bits on every platform and on the GPU.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    See Also
    --------
    Bootstrap : Integer counts (multinomial) instead of weights.
    PoissonBootstrap : Independent Poisson(1) integer counts.

    References
    ----------
    .. [1] D. B. Rubin, "The Bayesian bootstrap", Annals of Statistics 9(1), 1981.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import BayesianBootstrap
    >>> w = BayesianBootstrap(n_resamples=1, random_state=0).fit(np.zeros(4))
    >>> round(float(w.replicate(0).weights.sum()), 12)
    4.0
    """

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        return DirichletPlan(key, n_samples)
