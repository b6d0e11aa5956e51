"""Resamplers for independent observations: iid, stratified, group, Poisson and
Bayesian (Dirichlet) bootstraps (their plans: :mod:`skboot.resamplers._iid_plans`)."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np

from skboot._random import RootKey
from skboot._validation import (
    NONE,
    Constraint,
    Interval,
    check_array_1d_labels,
    param_error,
    value_error,
)
from skboot.resamplers._base import BaseResampler, ResamplingPlan
from skboot.resamplers._iid_plans import (
    DirichletPlan,
    GroupPlan,
    IIDPlan,
    PoissonPlan,
    PoolPlan,
    label_pools,
)

__all__ = [
    "BayesianBootstrap",
    "Bootstrap",
    "GroupBootstrap",
    "PoissonBootstrap",
    "StratifiedBootstrap",
]


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
        pools, offsets, sizes = label_pools(codes)
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
        pools, offsets, sizes = label_pools(codes)
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
