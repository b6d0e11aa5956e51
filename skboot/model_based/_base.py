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
* :class:`SyntheticStatistic` (an engine ``Statistic``) fills that buffer chunk by
  chunk (chunks sized to the cache, so memory stays O(chunk * n) for any number of
  replicates) and evaluates the user's statistic on it: built-in reductions with
  numpy along the last axis, a vectorized callable once per chunk, a plain callable
  once per row.  ``run_bootstrap`` dispatches it with joblib like any statistic.
* :class:`SyntheticResampler` (a :class:`~skboot.resamplers.BaseResampler`): the
  scikit-learn parameter handling, ``fit``, ``sample(b)``, ``iter_samples`` and
  ``replicate(b)``; ``split`` is refused (there are no in-bag rows).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.exceptions import NotFittedError

from skboot._engine import Statistic, accepts, as_output, cache_budget
from skboot._engine._statistic import call_user
from skboot._exceptions import StatisticError
from skboot._random import RootKey
from skboot._typing import ArrayLike
from skboot._validation import (
    VECTORIZED,
    Interval,
    param_error,
    validate_params,
    value_error,
)
from skboot.resamplers import BaseResampler, ResamplingPlan

__all__ = [
    "SYNTHETIC_BUILTINS",
    "SyntheticPlan",
    "SyntheticReplicate",
    "SyntheticResampler",
    "SyntheticStatistic",
]

#: Built-in statistic names available on synthetic series.
SYNTHETIC_BUILTINS = ("mean", "median", "quantile", "std", "sum", "var")


@dataclass(frozen=True, eq=False)
class SyntheticPlan(ResamplingPlan):
    """Regenerates any replicate of a model-based resampler.

    Subclasses implement :meth:`sample_chunk`.  ``response`` is the observed
    response for a regression (the replicates then replace it and the statistic is
    called as ``statistic(X, y)``), None for a time series (the replicates replace
    the series, ``statistic(x)``).
    """

    owner: str = "SyntheticResampler"
    response: np.ndarray | None = None
    layout: str = field(default="synthetic", init=False)
    builds_statistic: ClassVar[bool] = True

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        """Row ``k`` of ``out`` (float64, ``(count, n)``) gets replicate ``b0 + k``."""
        raise NotImplementedError

    def sample(self, b: int) -> np.ndarray:
        """The synthetic sample of replicate ``b``, shape (n,)."""
        out = np.empty((1, self.n_samples))
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
# the statistic adapter
# ---------------------------------------------------------------------------
def _reduce(name: str, a: np.ndarray, ddof: int, q: np.ndarray) -> np.ndarray:
    """Built-in ``name`` along the last axis of ``a`` (1-D or (nb, n)); (nb, k)."""
    a2 = a if a.ndim == 2 else a[None, :]
    if name == "mean":
        r = a2.mean(axis=1)
    elif name == "sum":
        r = a2.sum(axis=1)
    elif name == "var":
        r = a2.var(axis=1, ddof=ddof)
    elif name == "std":
        r = a2.std(axis=1, ddof=ddof)
    elif name == "median":
        r = np.median(a2, axis=1)
    else:
        return np.quantile(a2, q, axis=1).T.reshape(a2.shape[0], -1)
    return r[:, None]


@dataclass
class SyntheticStatistic(Statistic):
    """A statistic evaluated on synthetic replicates (see the module docstring).

    ``arrays`` are the data the estimate is computed on: ``(x,)`` for a series,
    ``(X, y)`` for a regression.  Replicates replace the last array.
    """

    has_jackknife: ClassVar[bool] = False

    builtin: str = ""
    func: Callable[..., Any] | None = None
    vectorized: bool = False
    ddof: int = 0
    q: np.ndarray = field(default_factory=lambda: np.empty(0))
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"
    resampler: str = "SyntheticResampler"
    scalar_q: bool = True

    def vector_output(self, data_ndim: int) -> bool:
        """A quantile of a list of levels is a vector, even of one level."""
        return self.builtin == "quantile" and not self.scalar_q

    def _call(self, b: int, args: tuple[Any, ...], **kw: Any) -> Any:
        assert self.func is not None
        hint = "" if b < 0 else f" Regenerate it with resampler.fit(...).sample({b})."
        return call_user(self.func, args, kw, b=b, hint=hint)

    def estimate(self) -> np.ndarray:
        if self.builtin:
            return _reduce(self.builtin, self.arrays[-1], self.ddof, self.q)[0]
        if self.vectorized:  # observations on the last axis, as for replicates
            views = tuple(a if a.ndim == 1 else a.T for a in self.arrays)
            value = self._call(-1, views, axis=-1)
        else:
            value = self._call(-1, self.arrays)
        return as_output(value, None, "the original data", -1)

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        buf = scratch.get("synthetic")
        if buf is None or buf.shape[0] < nb:
            buf = scratch["synthetic"] = np.empty((nb, plan.n_samples))
        buf = buf[:nb]
        plan.sample_chunk(b0, buf)
        if self.builtin:
            out[:, :] = _reduce(self.builtin, buf, self.ddof, self.q)
            return
        fixed = tuple(arrays[:-1])
        if self.vectorized:
            views = tuple(
                np.broadcast_to(a if a.ndim == 1 else a.T, (nb, *a.T.shape))
                for a in fixed
            )
            try:
                arr = np.asarray(self._call(b0, (*views, buf), axis=-1), dtype=float)
                ok = arr.shape in ((nb,), (nb, self.k)) and (
                    arr.ndim == 2 or self.k == 1
                )
            except StatisticError:
                ok = False
            if ok:
                out[:, :] = arr.reshape(nb, self.k)
                return
            # one replicate at a time, to name the one that fails
            for k in range(nb):
                one = tuple(v[k] for v in views)
                value = self._call(b0 + k, (*one, buf[k]), axis=-1)
                out[k] = as_output(value, self.k, f"replicate {b0 + k}", b0 + k)
            return
        for k in range(nb):
            value = self._call(b0 + k, (*fixed, buf[k]))
            out[k] = as_output(value, self.k, f"replicate {b0 + k}", b0 + k)

    def _no_jackknife(self) -> ValueError:
        return ValueError(
            "The 'bca' interval needs the acceleration from a jackknife over "
            f"independent units; {self.resampler}'s replicates are generated from a "
            "fitted model, and deleting observations of a dependent series (or of "
            "a regression whose residuals are re-signed) does not estimate it. Use "
            "method='bc' (bias-corrected, no acceleration), 'percentile', 'basic', "
            "'normal', or 'studentized' with standard_error=callable. Got "
            "method='bca'."
        )

    def jackknife(self) -> np.ndarray:
        raise self._no_jackknife()

    def subset(self, rows: np.ndarray) -> Statistic:
        raise self._no_jackknife()


def make_synthetic_statistic(
    plan: SyntheticPlan,
    statistic: Any,
    arrays: tuple[np.ndarray, ...],
    *,
    vectorized: bool | None,
    statistic_kwargs: dict[str, Any] | None,
    owner: str,
) -> SyntheticStatistic:
    """Check the statistic and the data layout for ``plan``; build the adapter."""
    res = plan.owner
    kwargs = dict(statistic_kwargs or {})
    regression = plan.response is not None
    if len(arrays) != 1:
        raise value_error(
            "data",
            owner,
            f"must be one array with {res} (the "
            f"series, or the design X of a regression with y=...). Got a tuple of "
            f"{len(arrays)} arrays instead.",
        )
    first = arrays[0]
    if regression:
        data: tuple[np.ndarray, ...] = (first, np.asarray(plan.response, dtype=float))
    else:
        data = (np.ascontiguousarray(np.asarray(first, dtype=np.float64).reshape(-1)),)
    if isinstance(statistic, str):
        return _synthetic_builtin(plan, statistic, data, kwargs, owner)
    if not callable(statistic):
        raise param_error(
            "statistic",
            owner,
            f"a callable or one of {{{', '.join(repr(s) for s in SYNTHETIC_BUILTINS)}}}",
            statistic,
        )
    validate_params(owner, {"vectorized": VECTORIZED}, vectorized=vectorized)
    if vectorized is None:
        vectorized = accepts(statistic, "axis")
    func = functools.partial(statistic, **kwargs) if kwargs else statistic
    stat = SyntheticStatistic(
        func=func,
        vectorized=bool(vectorized),
        arrays=data,
        name=getattr(statistic, "__name__", type(statistic).__name__),
        resampler=res,
    )
    est = stat.estimate()
    stat.k = est.shape[0]
    stat.cached_estimate = est
    return stat


def _synthetic_builtin(
    plan: SyntheticPlan,
    statistic: str,
    data: tuple[np.ndarray, ...],
    kwargs: dict[str, Any],
    owner: str,
) -> SyntheticStatistic:
    """A built-in statistic of synthetic series, its keywords checked."""
    res = plan.owner
    regression = plan.response is not None
    if regression:
        raise value_error(
            "statistic",
            owner,
            f"must be a callable "
            f"statistic(X, y) when {res} resamples a regression (y given): the "
            f"replicates are new responses. Got the built-in {statistic!r} "
            "instead.",
        )
    if statistic not in SYNTHETIC_BUILTINS:
        raise param_error(
            "statistic",
            owner,
            f"a callable or one of {{{', '.join(repr(s) for s in SYNTHETIC_BUILTINS)}}} "
            f"with {res} (its replicates are synthetic real-valued series)",
            statistic,
        )
    allowed = {"var": {"ddof"}, "std": {"ddof"}, "quantile": {"q"}}.get(
        statistic, set()
    )
    extra = set(kwargs) - allowed
    if extra:
        raise value_error(
            "statistic_kwargs",
            owner,
            f"accepts "
            f"{sorted(allowed) or 'no keys'} for statistic {statistic!r}. Got "
            f"{sorted(extra)} instead.",
        )
    ddof = kwargs.get("ddof", 0)
    if statistic in ("var", "std"):
        ddof = validate_params(
            f"{owner} (statistic_kwargs)",
            {"ddof": [Interval("int", 0, plan.n_samples - 1)]},
            ddof=ddof,
        )["ddof"]
    q = np.empty(0)
    if statistic == "quantile":
        raw = kwargs.get("q")
        try:
            q = np.atleast_1d(np.asarray(raw, dtype=np.float64))
        except (TypeError, ValueError):
            q = np.array([np.nan])
        if raw is None or q.ndim != 1 or not np.all((q >= 0) & (q <= 1)):
            raise ValueError(
                f"The 'q' statistic keyword of {owner} must be a float or 1-D "
                f"array of floats in [0, 1]. Got {raw!r} instead."
            )
    stat = SyntheticStatistic(
        builtin=statistic,
        ddof=int(ddof),
        q=q,
        scalar_q=np.ndim(kwargs.get("q", 0.5)) == 0,
        arrays=data,
        name=statistic,
        resampler=res,
    )
    stat.k = stat.estimate().shape[0]
    return stat


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
        """The synthetic sample of replicate ``b`` (shape (n_samples,)).

        Parameters
        ----------
        b : int
            Replicate number in ``[0, n_resamples)``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The series (or response) of replicate ``b``.
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
        ndarray of shape (count, n_samples)
            Replicates ``b0 .. b0 + count - 1`` (a new array each time).
        """
        plan = self._check_fitted("iter_samples()")
        B = int(self.n_resamples)
        if chunk_size is None:
            chunk = max(1, min(B, cache_budget() // (8 * plan.n_samples)))
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
            out = np.empty((min(chunk, B - b0), plan.n_samples))
            plan.sample_chunk(b0, out)
            yield out
