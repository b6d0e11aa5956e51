"""The statistic adapter of the model-based resamplers.

:class:`SyntheticStatistic` (an engine ``Statistic``) fills a reused buffer with
replicates chunk by chunk (chunks sized to the cache, so memory stays
O(chunk * n) for any number of replicates) and evaluates the user's statistic on
it: built-in reductions with numpy along the time axis, a vectorized callable once
per chunk, a plain callable once per row.  A replicate is a series of shape
``(n,)``, or of shape ``(n, m)`` for a multivariate model (the plan's
``sample_shape`` is ``(m,)``); built-ins then reduce each variable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from skboot._engine import Statistic, accepts, as_output
from skboot._engine._statistic import FAILED, call_replicate, call_user
from skboot._exceptions import StatisticError
from skboot._validation import (
    VECTORIZED,
    Interval,
    param_error,
    validate_params,
    value_error,
)

if TYPE_CHECKING:
    from skboot.model_based._base import SyntheticPlan
    from skboot.resamplers import ResamplingPlan

__all__ = [
    "SYNTHETIC_BUILTINS",
    "SyntheticStatistic",
    "make_synthetic_statistic",
]

#: Built-in statistic names available on synthetic series.
SYNTHETIC_BUILTINS = ("mean", "median", "quantile", "std", "sum", "var")


def _reduce(name: str, a: np.ndarray, ddof: int, q: np.ndarray) -> np.ndarray:
    """Built-in ``name`` along axis 1 of ``a`` ((nb, n) or (nb, n, m)); (nb, k),
    a quantile's levels first, then the variables."""
    if name == "mean":
        r = a.mean(axis=1)
    elif name == "sum":
        r = a.sum(axis=1)
    elif name == "var":
        r = a.var(axis=1, ddof=ddof)
    elif name == "std":
        r = a.std(axis=1, ddof=ddof)
    elif name == "median":
        r = np.median(a, axis=1)
    else:
        r = np.moveaxis(np.quantile(a, q, axis=1), 0, 1)
    return r.reshape(a.shape[0], -1)


def _time_last(a: np.ndarray) -> np.ndarray:
    """A view of replicates ``(nb, n, m)`` with time on the last axis."""
    return a if a.ndim == 2 else np.swapaxes(a, 1, 2)


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
        """A quantile of a list of levels is a vector, even of one level; so is
        a built-in of a multivariate series (one value per variable)."""
        if self.builtin and self.arrays and self.arrays[-1].ndim == 2:
            return True
        return self.builtin == "quantile" and not self.scalar_q

    def _call(self, b: int, args: tuple[Any, ...], **kw: Any) -> Any:
        assert self.func is not None
        hint = "" if b < 0 else f" Regenerate it with resampler.fit(...).sample({b})."
        return call_user(self.func, args, kw, b=b, hint=hint)

    def _replicate(
        self, b: int, args: tuple[Any, ...], scratch: dict[str, Any], **kw: Any
    ) -> np.ndarray:
        """The statistic on replicate ``b``, checked; NaN when it raised and the
        run records failed replicates (:func:`call_replicate`)."""
        assert self.func is not None
        hint = f" Regenerate it with resampler.fit(...).sample({b})."
        value = call_replicate(self.func, args, kw, b=b, scratch=scratch, hint=hint)
        if value is FAILED:
            return np.full(self.k, np.nan)
        return as_output(value, self.k, f"replicate {b}", b)

    def estimate(self) -> np.ndarray:
        if self.builtin:
            a = self.arrays[-1]
            if a.ndim == 2:  # time last in memory, as the replicates' buffers
                a = np.ascontiguousarray(a.T).T
            return _reduce(self.builtin, a[None], self.ddof, self.q)[0]
        if self.vectorized:  # observations on the last axis, as for replicates
            views = tuple(a if a.ndim == 1 else a.T for a in self.arrays)
            value = self._call(-1, views, axis=-1)
        else:
            value = self._call(-1, self.arrays)
        return as_output(value, None, "the original data", -1)

    def _fused(self, plan: ResamplingPlan) -> bool:
        """Whether the plan's kernel reduces this built-in (no series buffer)."""
        return bool(self.builtin) and self.builtin in getattr(
            plan, "fused_builtins", ()
        )

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        if self._fused(plan):  # the kernel's working set does not grow with nb
            return 8 * self.k
        return 8 * int(np.prod(getattr(plan, "replicate_shape", plan.n_samples)))

    def draws_per_replicate(self, plan: ResamplingPlan) -> int:
        return plan.draws_per_replicate(fused=self._fused(plan))

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        if self._fused(plan):
            plan.reduce_chunk(self.builtin, b0, out, ddof=self.ddof)
            return
        # time last in memory ((nb, m, n) for m series), so that reductions over
        # time and vectorized callables read contiguous series; the plan writes
        # through the (nb, n, m) view
        n, *rest = plan.replicate_shape
        base = scratch.get("synthetic")
        if base is None or base.shape[0] < nb:
            base = scratch["synthetic"] = np.empty((nb, *rest, n))
        buf = np.moveaxis(base[:nb], -1, 1)
        plan.sample_chunk(b0, buf)
        if self.builtin:
            out[:, :] = _reduce(self.builtin, buf, self.ddof, self.q)
            return
        fixed = tuple(arrays[:-1])
        if self.vectorized:
            buf = _time_last(buf)
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
                out[k] = self._replicate(b0 + k, (*one, buf[k]), scratch, axis=-1)
            return
        for k in range(nb):
            out[k] = self._replicate(b0 + k, (*fixed, buf[k]), scratch)

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
        series = np.asarray(first, dtype=np.float64).reshape(plan.replicate_shape)
        data = (np.ascontiguousarray(series),)
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
    series = data[-1]
    if series.ndim == 2 and not stat.scalar_q and statistic == "quantile":
        stat.output_shape = (q.shape[0], series.shape[1])  # (levels, series)
    return stat
