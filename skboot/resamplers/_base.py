"""The resampler base class: scikit-learn splitters over derived random streams.

A resampler is a scikit-learn splitter (``split``/``get_n_splits``) whose replicate
``b`` is a pure function of the root key and ``b``.  A subclass writes one hook,
:meth:`BaseResampler._make_plan`, returning a :class:`ResamplingPlan` that knows how
to produce replicate ``b``'s indices, counts or weights; everything else (eager
validation, the lazy generator, ``replicate(b)``, repr, pickling, sklearn metadata
routing) lives here.
"""

from __future__ import annotations

import inspect
from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils import metadata_routing

from skboot._random import RootKey, check_random_state, index_dtype
from skboot._typing import ArrayLike
from skboot._validation import (
    N_RESAMPLES,
    Constraint,
    check_consistent_length,
    check_int,
    check_n_samples,
    validate_params,
)
from skboot.resamplers._text import param_repr

__all__ = ["BaseResampler", "Replicate", "ResamplingPlan", "StreamScheme"]

_PARAM_NAMES: dict[type, list[str]] = {}
_PARAM_DEFAULTS: dict[type, dict[str, Any]] = {}


def _safe_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # arrays, objects without a boolean ==: treat as changed
        return False


_U64_ZERO = np.uint64(0)


@dataclass(frozen=True)
class StreamScheme:
    """How a plan draws replicate ``b`` from the stream, as plain data, for kernels
    that generate replicates themselves (the GPU kernels, the multiple-comparison
    kernels).  Replicate ``b``'s draws are a pure function of these fields and
    ``b``.

    Attributes
    ----------
    kind : {"iid", "fixed_blocks", "stationary", "poisson", "dirichlet"}
        "iid": ``m`` draws ``bounded(n_draw)``; "fixed_blocks": ``ceil(m / L)``
        starts ``stride * bounded(n_draw)`` (moving, circular, non-overlapping);
        "stationary": starts ``bounded(n_draw)`` and geometric lengths (``p``,
        ``log_q``) from ``seed_lengths``; "poisson" / "dirichlet": one uniform per
        row.
    seed, gamma : numpy.uint64
        The purpose seed and increment of the draws (starts for block schemes).
    m : int
        Rows per replicate.
    n_draw : int
        Range of the bounded draws.
    """

    kind: str
    seed: np.uint64
    gamma: np.uint64
    m: int = 0
    n_draw: int = 0
    block_length: int = 0
    stride: int = 1
    seed_lengths: np.uint64 = _U64_ZERO
    p: float = 0.0
    log_q: float = 0.0


@dataclass(frozen=True, eq=False)
class ResamplingPlan(metaclass=ABCMeta):
    """Everything needed to regenerate any replicate; shared by all code paths.

    A plan also declares what it can do, so that the layers above never ask which
    class it is: :meth:`stream_scheme` (replicates drawn by a kernel straight from
    the stream), :attr:`fuses_moments` / :meth:`fused_moments` (column sums of a
    chunk of replicates in one kernel call), :attr:`jackknife_groups` (its own
    delete-a-group jackknife units), :attr:`strata_codes` (strata held fixed),
    :attr:`sample_plans` (independent samples, one plan each),
    :meth:`draws_per_replicate`, :attr:`builds_statistic` (replicates that are
    synthetic samples, evaluated by a statistic the plan builds),
    :attr:`nests` / :meth:`nested_plan` (a replicate resampled by the same
    scheme: the double bootstrap), :attr:`fuses_nested_moments` /
    :meth:`nested_moment_counts` (that double bootstrap of a moment statistic
    in one kernel call) and :attr:`permutes_rows` (replicates that are permutations, for tests, not
    bootstrap samples).

    Attributes
    ----------
    key : RootKey
        The root of the random streams.
    n_samples : int
        Number of rows of the data.
    """

    key: RootKey
    n_samples: int

    #: "fixed": every replicate has ``replicate_size`` indices; "variable": index
    #: count varies by replicate; "weights": continuous weights, no indices;
    #: "synthetic": generated samples (skboot.model_based), no indices.
    layout: str = field(default="fixed", init=False)
    #: Whether :meth:`fused_moments` computes a chunk's column sums in one kernel.
    fuses_moments: ClassVar[bool] = False
    replicate_lanes: ClassVar[int] = 1  #: replicates its kernel runs side by side
    #: Whether :meth:`nested_moment_counts` runs the double bootstrap of a
    #: moment statistic in one kernel call.
    fuses_nested_moments: ClassVar[bool] = False
    #: Whether the plan builds the statistic evaluated on its replicates
    #: (:meth:`make_statistic`), for synthetic samples.
    builds_statistic: ClassVar[bool] = False
    #: Whether every replicate holds each row exactly once (a permutation): a
    #: statistic that ignores row order is then constant over the replicates,
    #: so such a plan drives permutation tests and is refused by bootstrap runs.
    permutes_rows: ClassVar[bool] = False

    # -- capabilities (declared here, overridden by the plans that have them) ----
    def stream_scheme(self) -> StreamScheme | None:
        """The replicates' draws as plain data, or None if no kernel draws them."""
        return None

    def fused_moments(
        self,
        X: np.ndarray,
        b0: int,
        want2: bool,
        out1: np.ndarray,
        out2: np.ndarray,
        outw: np.ndarray,
    ) -> None:
        """Column sums of ``w * X`` (``out1``), of ``w * X**2`` (``out2``, if
        ``want2``) and the total weight (``outw``) of replicates ``b0, b0 + 1,
        ...`` of the (centred) data ``X``, in one kernel call without a weight
        matrix; only when :attr:`fuses_moments`.

        Bit for bit what ``fill_weights_chunk`` followed by the weighted moments
        give (rows in order).  Block plans add block sums from prefix sums
        (O(n d) once per call, then O(n / L * d) per replicate).  The kernel and
        its scheme arguments come from :meth:`_moments_kernel`.
        """
        kernel, args = self._moments_kernel(int(b0))
        kernel(X, *args, bool(want2), out1, out2, outw)

    def _moments_kernel(self, b0: int) -> tuple[Callable[..., None], tuple[Any, ...]]:
        """The fused-moments kernel of the plan and its arguments between the
        data and ``want2`` (the stream seeds, ``b0``, the scheme's arrays)."""
        raise NotImplementedError(f"{type(self).__name__} has no fused moments")

    def draws_per_replicate(self, fused: bool = False) -> int:
        """Draws (random numbers and row reads) of one replicate in a kernel call:
        its rows, or fewer when ``fused`` moments add whole blocks."""
        return max(1, self.replicate_size)

    @property
    def jackknife_groups(self) -> np.ndarray | None:
        """Group code of every row when the resampling units are groups or blocks
        (the BCa jackknife then deletes one unit at a time); None otherwise."""
        return None

    @property
    def strata_codes(self) -> np.ndarray | None:
        """Stratum code of every row when strata are held fixed; None otherwise."""
        return None

    @property
    def sample_plans(self) -> tuple[ResamplingPlan, ...] | None:
        """One plan per independent sample; None for one (or paired) samples."""
        return None

    def make_statistic(
        self,
        statistic: Any,
        arrays: tuple[np.ndarray, ...],
        *,
        vectorized: bool | None,
        statistic_kwargs: dict[str, Any] | None,
        owner: str,
        allow_nonfinite: bool = False,
    ) -> Any:
        """The statistic evaluated on synthetic replicates (:attr:`builds_statistic`):
        an engine ``Statistic``."""
        raise NotImplementedError(f"{type(self).__name__} builds no statistic")

    @property
    def nests(self) -> bool:
        """Whether :meth:`nested_plan` resamples a replicate by the plan's own
        scheme (the calibrated intervals' double bootstrap)."""
        return False

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, ResamplingPlan]:
        """``(rows, plan)``: the rows of replicate ``b`` in replicate order, and
        a plan of the same scheme over them (row ``i`` of the plan is
        ``rows[i]``) whose draws come from ``key``; only when :attr:`nests`.

        Not defined for replicates that are weights (Bayesian, tapered), model
        generated samples, m-out-of-n draws or independent samples."""
        raise NotImplementedError(f"{type(self).__name__} has no nested plan")

    def nested_moment_counts(
        self,
        key: RootKey,
        X: np.ndarray,
        est: np.ndarray,
        kind: int,
        ddof: int,
        b0: int,
        n_inner: int,
        cu: np.ndarray,
        cv: np.ndarray,
    ) -> int:
        """Counts of the calibrated intervals for outer replicates ``b0, b0 +
        1, ...`` into ``cu``, ``cv``: a moment statistic's double bootstrap with
        inner draws from ``key``, bit for bit the :meth:`nested_plan` path (see
        :mod:`skboot._kernels.calibration_nested`, which returns -1 or the
        first replicate where a value is not finite)."""
        kernel, args = self._nested_kernel(key)
        return int(kernel(X, est, kind, ddof, int(b0), n_inner, *args, cu, cv))

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        """The plan's nested-counts kernel and its stream arguments."""
        raise NotImplementedError(f"{type(self).__name__} has no fused nesting")

    @property
    def replicate_size(self) -> int:
        """Number of in-bag draws per replicate (fixed layout only)."""
        return self.n_samples

    @abstractmethod
    def indices(self, b: int) -> np.ndarray:
        """In-bag row indices of replicate ``b`` (with repeats)."""

    def counts(self, b: int) -> np.ndarray:
        """How many times each row is in replicate ``b`` (length ``n_samples``)."""
        return np.bincount(self.indices(b), minlength=self.n_samples).astype(np.int64)

    def weights(self, b: int) -> np.ndarray:
        """Per-row weights of replicate ``b``; counts as floats for index schemes."""
        return self.counts(b).astype(np.float64)

    def oob(self, b: int) -> np.ndarray:
        """Rows not in replicate ``b``, ascending."""
        return np.flatnonzero(self.counts(b) == 0)

    def split_pair(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        """(in-bag indices, out-of-bag rows) of replicate ``b``, one generation."""
        idx = self.indices(b)
        counts = np.bincount(idx, minlength=self.n_samples)
        return idx, np.flatnonzero(counts == 0)

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        """Row ``k`` of ``out`` (float64, n_samples wide) gets the weights of
        replicate ``b0 + k``.  Subclasses override with a numba kernel."""
        for k in range(out.shape[0]):
            out[k] = self.weights(b0 + k)

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        """Row ``k`` of ``out`` gets the indices of replicate ``b0 + k`` (fixed
        layout only)."""
        for k in range(out.shape[0]):
            out[k] = self.indices(b0 + k)

    @property
    def index_dtype(self) -> np.dtype:
        return index_dtype(self.n_samples)


class Replicate:
    """Lazy view of one bootstrap replicate, computed on demand from the stream.

    Nothing is stored but the plan and ``b``; each attribute is regenerated when
    read.

    Attributes
    ----------
    b : int
        Replicate number.
    indices : ndarray of int
        In-bag row indices (with repeats).
    counts : ndarray of int64
        Multiplicity of every row.
    oob : ndarray of int
        Out-of-bag rows (count 0), ascending.
    weights : ndarray of float64
        Per-row weights (counts for index schemes).
    """

    __slots__ = ("_plan", "b")

    def __init__(self, plan: ResamplingPlan, b: int) -> None:
        self._plan = plan
        self.b = b

    @property
    def indices(self) -> np.ndarray:
        return self._plan.indices(self.b)

    @property
    def counts(self) -> np.ndarray:
        return self._plan.counts(self.b)

    @property
    def oob(self) -> np.ndarray:
        return self._plan.oob(self.b)

    @property
    def weights(self) -> np.ndarray:
        return self._plan.weights(self.b)

    def __repr__(self) -> str:
        return f"Replicate(b={self.b}, n_samples={self._plan.n_samples})"


class BaseResampler(BaseEstimator, metaclass=ABCMeta):
    """Base class of every skboot resampler.

    Subclasses implement :meth:`_make_plan`.  ``__init__`` only stores parameters.

    Randomness: the root key is derived from ``random_state`` once per call to
    :meth:`fit` (stored as ``key_``) or, on an unfitted resampler, once per call to
    :meth:`split`.  An int or SeedSequence gives the same key every time; ``None``
    or a Generator gives a fresh key per call, as scikit-learn's splitters do, and
    the drawn entropy is recorded in ``seed_entropy_`` after ``fit`` so the run can
    be repeated.  A fitted resampler's :meth:`split` and :meth:`replicate` use the
    fitted key, so they always agree.
    """

    # sklearn metadata routing: ``groups`` is accepted by split but unused, unless a
    # subclass requests it (GroupBootstrap).
    __metadata_request__split: ClassVar[dict[str, Any]] = {
        "groups": metadata_routing.UNUSED
    }

    def __init__(self, n_resamples: int = 9999, *, random_state: Any = None) -> None:
        self.n_resamples = n_resamples
        self.random_state = random_state

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        """``Name(param=value, ...)`` with the parameters that differ from their
        defaults, as scikit-learn prints estimators (cheaper than its
        pretty-printer, which re-inspects the signature; results carry this
        string)."""
        defaults = _PARAM_DEFAULTS.get(type(self))
        if defaults is None:
            sig = inspect.signature(type(self).__init__)
            defaults = _PARAM_DEFAULTS[type(self)] = {
                k: p.default for k, p in sig.parameters.items() if k != "self"
            }
        parts = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            same = value is default or (
                type(value) is type(default) and _safe_equal(value, default)
            )
            if not same:
                parts.append(f"{name}={param_repr(value)}")
        text = f"{type(self).__name__}({', '.join(parts)})"
        return text if len(text) <= N_CHAR_MAX else text[: N_CHAR_MAX - 3] + "..."

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """scikit-learn's parameter-name lookup, cached per class.

        ``BaseEstimator`` re-inspects ``__init__``'s signature on every
        ``get_params``/``clone``/``repr``; a bootstrap call makes several of those,
        which cost more than a small run's kernels.
        """
        names = _PARAM_NAMES.get(cls)
        if names is None:
            names = _PARAM_NAMES[cls] = list(super()._get_param_names())
        return list(names)

    # -- hooks ------------------------------------------------------------------
    @abstractmethod
    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        """Validate the data-dependent inputs and return the plan."""

    #: The constructor parameters and their constraints, checked by
    #: :meth:`check_params` (a subclass extends its parent's table).
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        "n_resamples": [N_RESAMPLES]
    }

    def check_params(self) -> None:
        """Validate the constructor parameters, raising on the first bad one.

        Called once on entry to ``fit``, ``fit_with_key``, ``split`` and
        ``get_n_splits``; the parameters are those of the class's constraint
        table.  ``n_resamples`` is capped at ``2**32 - 1``: replicate ``b`` reads
        the stream at counter ``b * 2**32 + i``, so replicate numbers must fit 32
        bits.
        """
        table = self._parameter_constraints
        validate_params(self._name, table, **{k: getattr(self, k) for k in table})

    # -- shared machinery -------------------------------------------------------
    @property
    def _name(self) -> str:
        return type(self).__name__

    def _resolve_key(self) -> RootKey:
        if hasattr(self, "key_"):
            return self.key_
        return check_random_state(self.random_state, owner=self._name)

    def _plan_for(
        self,
        X: ArrayLike,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        *,
        key: RootKey | None = None,
    ) -> ResamplingPlan:
        """Check the data and build a plan (no mutation of ``self``); the
        parameters were checked by the caller (:meth:`check_params`)."""
        n = check_n_samples(X, self._name)
        check_consistent_length(y, "y", self._name, n)
        check_consistent_length(groups, "groups", self._name, n)
        if key is None:
            key = self._resolve_key()
        return self._make_plan(key, n, X, y, groups)

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        """Fitted attributes beyond ``key_``, ``seed_entropy_``, ``n_samples_``
        and ``plan_`` (``block_length_``, a model's coefficients)."""
        return {}

    def _fit_plan(self, key: RootKey, plan: ResamplingPlan) -> BaseResampler:
        self.key_ = key
        self.seed_entropy_ = key.reproducer()
        self.n_samples_ = plan.n_samples
        self.plan_ = plan
        for name, value in self._fitted_attributes(plan).items():
            setattr(self, name, value)
        return self

    def fit(
        self, X: ArrayLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> BaseResampler:
        """Fix the random key and record the data layout.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            Data (only its length is used).
        y : array-like of shape (n_samples,), default=None
            Targets (strata for :class:`StratifiedBootstrap`).
        groups : array-like of shape (n_samples,), default=None
            Group labels (for :class:`GroupBootstrap`).

        Returns
        -------
        self : object
            The fitted resampler.
        """
        self.check_params()
        key = check_random_state(self.random_state, owner=self._name)
        return self.fit_with_key(key, X, y, groups)

    def fit_with_key(
        self,
        key: RootKey,
        X: ArrayLike,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
    ) -> BaseResampler:
        """Fit with a root key drawn by the caller instead of ``random_state``.

        ``bootstrap()`` draws the key from the caller's own ``random_state``
        object, so a Generator advances once per call.  The caller checks the
        parameters first (:meth:`check_params`, before drawing the key), as
        :meth:`fit` does.

        Parameters
        ----------
        key : RootKey
            The root of the random streams, from
            :func:`skboot._random.check_random_state`.
        X : array-like of shape (n_samples, ...)
            Data (only its length is used).
        y : array-like of shape (n_samples,), default=None
            Targets (strata for :class:`StratifiedBootstrap`).
        groups : array-like of shape (n_samples,), default=None
            Group labels (for :class:`GroupBootstrap`).

        Returns
        -------
        self : object
            The fitted resampler.
        """
        return self._fit_plan(key, self._plan_for(X, y, groups, key=key))

    def get_n_splits(
        self,
        X: ArrayLike | None = None,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
    ) -> int:
        """Number of replicates, ``n_resamples``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; present for scikit-learn compatibility.

        Returns
        -------
        n_splits : int
            The number of replicates ``split`` yields.
        """
        self.check_params()
        return int(self.n_resamples)

    def split(
        self, X: ArrayLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Validate now, then lazily generate (in-bag, out-of-bag) index pairs.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
            Data (only its length is used).
        y : array-like of shape (n_samples,), default=None
            Targets.
        groups : array-like of shape (n_samples,), default=None
            Group labels.

        Yields
        ------
        train : ndarray of int
            In-bag row indices of replicate ``b`` (with repeats).
        test : ndarray of int
            Out-of-bag rows of replicate ``b`` (ascending; may be empty).
        """
        self.check_params()
        plan = self._plan_for(X, y, groups)
        self._check_split_layout(plan)
        return self._iter_splits(plan, int(self.n_resamples))

    def _check_split_layout(self, plan: ResamplingPlan) -> None:
        if plan.layout == "weights":
            raise ValueError(
                f"{self._name} has no in-bag indices: its replicates are continuous "
                "weights, so split() cannot yield index arrays. Use "
                "resampler.replicate(b).weights, or pass the resampler to "
                "BootstrapStatistic / bootstrap(), which use the weights."
            )

    @staticmethod
    def _iter_splits(
        plan: ResamplingPlan, n_resamples: int
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for b in range(n_resamples):
            yield plan.split_pair(b)

    def replicate(self, b: int) -> Replicate:
        """Lazy view of replicate ``b`` of the fitted resampler.

        Parameters
        ----------
        b : int
            Replicate number in ``[0, n_resamples)``.

        Returns
        -------
        replicate : Replicate
            With ``.indices``, ``.counts``, ``.oob`` and ``.weights``.
        """
        if not hasattr(self, "plan_"):
            raise NotFittedError(
                f"This {self._name} instance is not fitted yet. Call "
                "'fit(X, y, groups)' before replicate(b)."
            )
        b = check_int(
            b,
            "b",
            f"{self._name}.replicate",
            min_value=0,
            max_value=self.n_resamples - 1,
        )
        return Replicate(self.plan_, b)
