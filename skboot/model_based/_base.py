"""The synthetic-sample interface shared by every model-based resampler.

A model-based resampler fits a model to the data once and then *generates* each
replicate: a new series (residual, sieve and wild bootstraps of a time series) or a
new response vector (wild bootstrap of a regression).  Its replicates are therefore
not index views of the data, and three pieces make them run on skboot's engine:

* :class:`SyntheticPlan` (a :class:`~skboot.resamplers.ResamplingPlan` with
  ``layout = "synthetic"``) writes replicates ``b0 .. b0 + count - 1`` into a
  reused ``(count, n)`` buffer with ``sample_chunk(b0, out)``, each row a pure
  function of ``(key, b)``; ``sample(b)`` gives one.  It declares
  ``make_statistic``, which the engine calls instead of building an index
  statistic.
* :class:`SyntheticStatistic` (an engine ``Statistic``, in
  :mod:`skboot.model_based._synthetic`) fills that buffer chunk by chunk and
  evaluates the user's statistic on it.  ``run_bootstrap`` dispatches it with
  joblib like any statistic.
* :class:`SyntheticResampler` (a :class:`~skboot.resamplers.BaseResampler`): the
  scikit-learn parameter handling, ``fit``, ``sample(b)``, ``iter_samples`` and
  ``replicate(b)``; ``split`` is refused (there are no in-bag rows).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.exceptions import NotFittedError

from skboot._engine import Statistic, cache_budget, lanes_round
from skboot._random import PURPOSE, RootKey
from skboot._run import available_memory
from skboot._typing import ArrayLike
from skboot._validation import (
    BOOL,
    Interval,
    Predicate,
    validate_params,
    value_error,
)
from skboot.model_based._synthetic import (
    SYNTHETIC_BUILTINS,
    SyntheticStatistic,
    make_synthetic_statistic,
)
from skboot.resamplers import BaseResampler, ResamplingPlan

__all__ = [
    "AUTO",
    "AUTO_BURN_IN",
    "SYNTHETIC_BUILTINS",
    "SyntheticPlan",
    "SyntheticReplicate",
    "SyntheticResampler",
    "SyntheticStatistic",
    "recursion_streams",
    "resolve_burn_in",
]

#: ``burn_in="auto"``: this many values for a series without exogenous
#: regressors, none with them (their values exist only at the observed times).
AUTO_BURN_IN = 100
#: ``burn_in``: ``"auto"`` or an int >= 0.
AUTO = Predicate(lambda v: isinstance(v, str) and v == "auto", "'auto'")


def resolve_burn_in(burn_in: Any, exog: bool) -> int:
    """The burn-in ``burn_in`` stands for: ``"auto"`` is :data:`AUTO_BURN_IN`
    for a model without exogenous regressors and 0 with them."""
    if isinstance(burn_in, str):
        return 0 if exog else AUTO_BURN_IN
    return int(burn_in)


def recursion_streams(key: RootKey) -> tuple[np.ndarray, np.uint64]:
    """The seeds of the "indices", "block_starts" and "model" streams of
    ``key`` (in that order, as the model kernels take them) and their
    increment: derived in Python once per plan, not per chunk."""
    seeds = np.array(
        [key.stream(PURPOSE[k])[0] for k in ("indices", "block_starts", "model")],
        dtype=np.uint64,
    )
    _, gamma = key.stream(PURPOSE["indices"])
    return seeds, gamma


@dataclass(frozen=True, eq=False)
class SyntheticPlan(ResamplingPlan):
    """Regenerates any replicate of a model-based resampler.

    Subclasses implement :meth:`sample_chunk`.  ``response`` is the observed
    response for a regression (the replicates then replace it and the statistic is
    called as ``statistic(X, y)``), None for a time series (the replicates replace
    the series, ``statistic(x)``).  ``sample_shape`` is ``()`` when a replicate
    is a series of shape ``(n,)``, ``(m,)`` when it is ``m`` series side by side,
    shape ``(n, m)`` (a vector autoregression).
    """

    owner: str = "SyntheticResampler"
    response: np.ndarray | None = None
    sample_shape: tuple[int, ...] = ()
    layout: str = field(default="synthetic", init=False)
    builds_statistic: ClassVar[bool] = True
    #: Built-in statistics the plan reduces in its kernel (:meth:`reduce_chunk`).
    fused_builtins: ClassVar[tuple[str, ...]] = ()

    @property
    def replicate_shape(self) -> tuple[int, ...]:
        """The shape of one replicate, ``(n, *sample_shape)``."""
        return (self.n_samples, *self.sample_shape)

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        """Row ``k`` of ``out`` (float64, ``(count, *replicate_shape)``) gets
        replicate ``b0 + k``."""
        raise NotImplementedError

    def reduce_chunk(self, name: str, b0: int, out: np.ndarray, ddof: int = 0) -> None:
        """Built-in statistic ``name`` (one of :attr:`fused_builtins`; ``ddof``
        for ``"var"`` and ``"std"``) of replicates ``b0 .. b0 + len(out) - 1``
        into ``out`` (``(count, k)``) without writing the series to a buffer: bit
        for bit what numpy gives on :meth:`sample_chunk`'s series."""
        raise NotImplementedError

    def sample(self, b: int) -> np.ndarray:
        """The synthetic sample of replicate ``b``, shape ``replicate_shape``."""
        out = np.empty((1, *self.replicate_shape))
        self.sample_chunk(int(b), out)
        return out[0]

    # -- what an index plan would answer: refused, with the reason ------------------
    def _no_rows(self) -> ValueError:
        return ValueError(
            f"{self.owner} generates synthetic samples from a fitted model; its "
            "replicates have no row indices, counts or weights. Use "
            "resampler.sample(b) (or bootstrap(..., resampler=...) with a statistic "
            "of the data, not estimator=)."
        )

    def indices(self, b: int) -> np.ndarray:
        raise self._no_rows()

    def counts(self, b: int) -> np.ndarray:
        raise self._no_rows()

    def weights(self, b: int) -> np.ndarray:
        raise self._no_rows()

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        raise self._no_rows()

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        raise self._no_rows()

    # -- the engine hook -----------------------------------------------------------
    def make_statistic(
        self,
        statistic: Any,
        arrays: tuple[np.ndarray, ...],
        *,
        vectorized: bool | None,
        statistic_kwargs: dict[str, Any] | None,
        owner: str,
        allow_nonfinite: bool = False,
    ) -> Statistic:
        """Validate the statistic against the data and build the engine object."""
        return make_synthetic_statistic(
            self,
            statistic,
            arrays,
            vectorized=vectorized,
            statistic_kwargs=statistic_kwargs,
            owner=owner,
        )


# ---------------------------------------------------------------------------
# the resampler base
# ---------------------------------------------------------------------------
class SyntheticReplicate:
    """Lazy view of one model-based replicate, regenerated from the stream.

    Attributes
    ----------
    b : int
        Replicate number.
    sample : ndarray of shape (n_samples,)
        The synthetic series (or response) of replicate ``b``.
    residual_indices : ndarray of int or None
        Residual bootstraps: which residuals (of ``resampler.residuals_``) drive the
        recursion, in time order; None for wild bootstraps.
    multipliers : ndarray of float or None
        Wild bootstraps: the replicate's multipliers (one per row, block or
        cluster); None for residual bootstraps.
    start : int or None
        Residual bootstraps with a burn-in: the position of the ``p`` observed
        start values; 0 without a burn-in; None for a regression.
    """

    __slots__ = ("_plan", "b")

    def __init__(self, plan: SyntheticPlan, b: int) -> None:
        self._plan = plan
        self.b = b

    @property
    def sample(self) -> np.ndarray:
        return self._plan.sample(self.b)

    @property
    def residual_indices(self) -> np.ndarray | None:
        fn = getattr(self._plan, "residual_indices", None)
        return None if fn is None else fn(self.b)

    @property
    def multipliers(self) -> np.ndarray | None:
        fn = getattr(self._plan, "multipliers", None)
        return None if fn is None else fn(self.b)

    @property
    def start(self) -> int | None:
        fn = getattr(self._plan, "start", None)
        return None if fn is None else fn(self.b)

    def __repr__(self) -> str:
        return f"SyntheticReplicate(b={self.b}, n_samples={self._plan.n_samples})"


class SyntheticResampler(BaseResampler):
    """Base class of the model-based resamplers (replicates are generated samples).

    Subclasses implement ``_make_plan`` returning a :class:`SyntheticPlan` and
    ``_fitted_attributes(plan)``.
    """

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        return {}

    def fit_with_key(
        self,
        key: RootKey,
        X: ArrayLike,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
    ) -> SyntheticResampler:
        """Fit the model with a root key drawn by the caller.

        Parameters
        ----------
        key : RootKey
            The root of the random streams.
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            The series, or the regressors (see the class's ``fit``).
        y : array-like of shape (n_samples,), default=None
            The response of a regression.
        groups : array-like of shape (n_samples,), default=None
            Cluster labels where the class uses them (see its ``fit``).

        Returns
        -------
        self : object
            The fitted resampler, with the model's fitted attributes.
        """
        super().fit_with_key(key, X, y, groups)
        for name, value in self._fitted_attributes(self.plan_).items():
            setattr(self, name, value)
        return self

    def split(
        self, X: ArrayLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> Iterator[Any]:
        """Not available: model-based replicates have no (train, test) rows.

        Parameters
        ----------
        X, y, groups : object
            Ignored.

        Raises
        ------
        ValueError
            Always, before any work.
        """
        raise ValueError(
            f"{self._name} generates synthetic samples from a fitted model, so it has "
            "no (train, test) index pairs and cannot be a scikit-learn splitter "
            "(cv=). Use bootstrap(x, statistic, resampler=...), or "
            f"{self._name}(...).fit(X).sample(b) for one replicate."
        )

    def _check_fitted(self, what: str) -> SyntheticPlan:
        if not hasattr(self, "plan_"):
            raise NotFittedError(
                f"This {self._name} instance is not fitted yet. Call 'fit(X, y)' "
                f"before {what}."
            )
        plan = self.plan_
        assert isinstance(plan, SyntheticPlan)
        return plan

    def replicate(self, b: int) -> SyntheticReplicate:  # type: ignore[override]
        """Lazy view of replicate ``b`` of the fitted resampler.

        Parameters
        ----------
        b : int
            Replicate number in ``[0, n_resamples)``.

        Returns
        -------
        SyntheticReplicate
            With ``.sample`` and the draws behind it.
        """
        plan = self._check_fitted("replicate(b)")
        b = validate_params(
            f"{self._name}.replicate",
            {"b": [Interval("int", 0, self.n_resamples - 1)]},
            b=b,
        )["b"]
        return SyntheticReplicate(plan, b)

    def sample(self, b: int) -> np.ndarray:
        """The synthetic sample of replicate ``b``.

        Parameters
        ----------
        b : int
            Replicate number in ``[0, n_resamples)``.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_variables)
            The series (or response) of replicate ``b``; multivariate models give
            one column per variable.
        """
        return self.replicate(b).sample

    def iter_samples(self, chunk_size: int | None = None) -> Iterator[np.ndarray]:
        """Yield the replicates in order, ``chunk_size`` at a time.

        Parameters
        ----------
        chunk_size : int, optional
            Replicates per yielded block; None sizes blocks to the per-core cache.

        Yields
        ------
        ndarray of shape (count, n_samples) or (count, n_samples, n_variables)
            Replicates ``b0 .. b0 + count - 1`` (a new array each time).
        """
        plan = self._check_fitted("iter_samples()")
        B = int(self.n_resamples)
        if chunk_size is None:
            size = 8 * int(np.prod(plan.replicate_shape))
            chunk = lanes_round(
                max(1, min(B, cache_budget() // size)), plan.replicate_lanes
            )
        else:
            chunk = validate_params(
                f"{self._name}.iter_samples",
                {"chunk_size": [Interval("int", 1)]},
                chunk_size=chunk_size,
            )["chunk_size"]
        return self._iter(plan, B, chunk)

    @staticmethod
    def _iter(plan: SyntheticPlan, B: int, chunk: int) -> Iterator[np.ndarray]:
        for b0 in range(0, B, chunk):
            out = np.empty((min(chunk, B - b0), *plan.replicate_shape))
            plan.sample_chunk(b0, out)
            yield out

    def values(self, stack: bool = False) -> Iterator[np.ndarray] | np.ndarray:
        """Every replicate, one array at a time (or stacked, on request).

        The replicates are generated in cache-sized chunks as the iterator
        advances, so memory stays O(chunk * n) whatever ``n_resamples``; replicate
        ``b`` equals :meth:`sample` ``(b)``.  This is the synthetic-series
        counterpart of tsbootstrap's ``bootstrap()`` generator.

        Parameters
        ----------
        stack : bool, default=False
            False returns a lazy iterator; True returns one array of every
            replicate, ``n_resamples`` times the size of the data (refused, before
            any work, when it exceeds the memory available).

        Returns
        -------
        iterator of ndarray, or ndarray
            Each of shape (n_samples,) or (n_samples, n_variables); stacked, of
            shape (n_resamples, n_samples) or (n_resamples, n_samples,
            n_variables).
        """
        plan = self._check_fitted("values()")
        validate_params(f"{self._name}.values", {"stack": [BOOL]}, stack=stack)
        if not stack:
            return (row for block in self.iter_samples() for row in block)
        B = int(self.n_resamples)
        shape = (B, *plan.replicate_shape)
        need = 8 * int(np.prod(shape, dtype=np.float64))
        have = available_memory()
        if have is not None and need > have:
            raise value_error(
                "stack",
                f"{self._name}.values",
                f"must be False when the {B} stacked replicates ({need / 2**30:.3g} "
                f"GiB) exceed the {have / 2**30:.3g} GiB of memory available; "
                "iterate over values() instead. Got True instead.",
            )
        out = np.empty(shape)
        plan.sample_chunk(0, out)
        return out
