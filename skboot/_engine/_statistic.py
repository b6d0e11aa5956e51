"""The statistic protocol: what the engine runs, one chunk of replicates at a time.

A :class:`Statistic` holds its prepared arrays (shipped to every joblib task as
top-level arguments) and computes a chunk of replicates with :meth:`run_chunk`;
it declares what it can do (``fused``, ``closed_form_jackknife``) so that the
layers above never ask which class it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from skboot._exceptions import StatisticError
from skboot.intervals import JackknifeMoments
from skboot.resamplers import ResamplingPlan

__all__ = [
    "FAILED",
    "FAILURES",
    "Failure",
    "Statistic",
    "accepts",
    "as_output",
    "call_replicate",
    "call_user",
]

#: The key of a joblib task's ``scratch`` that holds a list of
#: :class:`Failure` when the run records failed replicates
#: (``on_error="omit"``) instead of raising on the first.
FAILURES = "failures"
#: What :func:`call_replicate` returns for a replicate whose callable raised.
FAILED: Any = object()


@dataclass(frozen=True)
class Failure:
    """A replicate on which the user's callable raised: its number and the
    exception as ``"Type: message"`` (plain values, so the record crosses
    process boundaries whatever the exception)."""

    replicate: int
    error: str


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
    #: False when no jackknife estimates the statistic's acceleration (replicates
    #: generated from a fitted model): BCa is then unavailable and a result's
    #: default interval is the percentile one
    has_jackknife: ClassVar[bool] = True
    #: None when the rows are at hand; else why the interval methods that revisit
    #: them (the BCa jackknife, the studentized standard errors) are unavailable
    #: (data that stay in a dask collection)
    data_unavailable: ClassVar[str | None] = None
    #: True when :meth:`jackknife` is a closed form (O(n) or O(n log n)) rather
    #: than one evaluation of the statistic per left-out row
    closed_form_jackknife: ClassVar[bool] = False
    #: shape of one replicate's value when it has two or more axes (a refit's
    #: multiclass ``coef_``); the engine runs it flattened (``k`` values, C order)
    #: and results restore the shape.  None: ``k`` values (scalar or 1-d).
    output_shape: tuple[int, ...] | None = None
    #: names of the ``k`` outputs when the statistic names them (the built-in
    #: "ols": "intercept", then one name per column of ``X``); None otherwise
    output_labels: tuple[Any, ...] | None = None

    def estimate(self) -> np.ndarray:
        """The statistic on the original data, shape (k,)."""
        raise NotImplementedError

    #: Whether the statistic runs in a fused numba kernel (a run too small to pay
    #: for joblib's dispatch then stays in-process; never changes results).
    fused: ClassVar[bool] = False
    #: Whether its jackknife samples run through the engine as a plan (one
    #: evaluation per left-out row or group, in chunks): user callables.
    jackknife_by_engine: ClassVar[bool] = False
    #: The built-in's name ("mean", ...) for fused built-ins, else None (the
    #: studentized interval has closed forms for the smooth built-ins).
    builtin_name: str | None = None

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        """Working-set bytes of one replicate (chunks are sized from it)."""
        return 8 * plan.n_samples

    def draws_per_replicate(self, plan: ResamplingPlan) -> int:
        """Draws (random numbers and row reads) of one replicate in a kernel call
        (chunks stay under :data:`MAX_CHUNK_DRAWS`)."""
        return plan.draws_per_replicate()

    def replicate_lanes(self, plan: ResamplingPlan) -> int:
        """Replicates one kernel pass over the rows serves side by side (chunks
        are a multiple of it, and at least it)."""
        return 1

    def run_chunk(
        self,
        arrays: tuple[np.ndarray, ...],
        plan: ResamplingPlan,
        b0: int,
        out: np.ndarray,
        scratch: dict[str, Any],
    ) -> None:
        """Replicates ``b0 .. b0 + len(out) - 1`` into ``out`` (rows), reusing the
        buffers in ``scratch`` across the chunks of one task."""
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

    def jackknife_moments(self) -> JackknifeMoments | None:
        """The power sums of the leave-one-out values in place of the values,
        for a statistic whose rows stay where they are (a dask collection); None
        when :meth:`jackknife` gives the values."""
        return None

    def group_jackknife(self, codes: np.ndarray) -> np.ndarray | None:
        """Delete-one-group values from group sums, or None (the caller then
        evaluates the statistic once per group)."""
        return None

    def with_arrays(self, arrays: tuple[np.ndarray, ...]) -> Statistic:
        """The same statistic on other data (a nested bootstrap's replicate, a
        jackknife sample of one of several independent samples)."""
        raise NotImplementedError(f"{type(self).__name__} cannot be rebuilt")

    def mean_values(self) -> tuple[list[np.ndarray], bool, float] | None:
        """When the statistic of a replicate is ``sign * mean(values)`` (or the
        square root of that mean) of per-row values: the values (one array, or two
        whose difference it is), whether it is a root mean, and the sign; for
        kernels that sum draws themselves (the GPU).  None otherwise."""
        return None

    def sample_jackknife(self) -> list[np.ndarray] | None:
        """On independent samples: per sample ``j``, the statistic with one row of
        sample ``j`` left out (the others whole), shape (n_j, k), from closed
        forms; None when the caller must evaluate it once per row."""
        return None

    def vector_output(self, data_ndim: int) -> bool:
        """Whether the output is a vector even when it has one value (a column
        statistic of one column, a quantile of a list of one level)."""
        return False

    def without_arrays(self) -> Statistic:
        """A shallow copy that does not carry the arrays (they travel separately)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.arrays = ()
        return clone


def call_user(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    what: str = "statistic",
    b: int = -1,
    where: str | None = None,
    hint: str = "",
    undefined: tuple[type[BaseException], ...] = (),
) -> Any:
    """The one adapter of a user's callable: call ``func(*args, **kwargs)``.

    An exception becomes a :class:`~skboot.StatisticError` carrying replicate
    ``b`` (-1 for the original data) and saying which ``what`` raised ``where``
    (default: "the original data" or "replicate b"), followed by ``hint`` (how
    to regenerate the replicate).  Exceptions of the types in ``undefined``
    (e.g. scikit-learn's ``UndefinedMetricWarning`` raised as an error) mean the
    value is undefined on this replicate: NaN is returned.
    """
    try:
        return func(*args, **(kwargs or {}))
    except undefined:
        return np.nan
    except Exception as exc:
        if where is None:
            where = "the original data" if b < 0 else f"replicate {b}"
        raise StatisticError(
            f"The {what} raised on {where}: {exc!r}.{hint}", b
        ) from exc


def call_replicate(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None,
    *,
    b: int,
    scratch: dict[str, Any],
    **options: Any,
) -> Any:
    """:func:`call_user` on replicate ``b`` of a run.

    When the task's ``scratch`` records failures (:data:`FAILURES`), an
    exception of the callable is recorded as a :class:`Failure` and
    :data:`FAILED` is returned (the caller stores NaN); a ``MemoryError``
    (and anything not an ``Exception``: ``KeyboardInterrupt``) still ends the
    run.  Otherwise the first exception raises, as :func:`call_user` does.
    """
    failures = scratch.get(FAILURES)
    if failures is None:
        return call_user(func, args, kwargs, b=b, **options)
    try:
        return call_user(func, args, kwargs, b=b, **options)
    except StatisticError as err:
        cause = err.__cause__
        if cause is None or isinstance(cause, MemoryError):
            raise
        failures.append(Failure(b, f"{type(cause).__name__}: {cause}"))
        return FAILED


def as_output(
    value: Any,
    k: int | None,
    where: str,
    b: int = -1,
    *,
    keep_shape: bool = False,
    shape: tuple[int, ...] | None = None,
) -> np.ndarray:
    """The statistic's value as a 1-D float array; a StatisticError naming ``where``
    (and carrying replicate ``b``, -1 for the original data) if it is not one.

    With ``keep_shape``, the value keeps its shape (a scalar, or the shape of a
    statistic of N-d samples or of a chunk of replicates), which must be
    ``shape`` when that is given; ``k`` is then not checked.
    """
    kind = "a number or an array" if keep_shape else "a number or a 1-D array"
    if value is None:
        raise StatisticError(
            f"The statistic must return {kind} of numbers; on {where} it returned "
            "None (a missing 'return'?).",
            b,
        )
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatisticError(
            f"The statistic must return {kind} of numbers; on {where} it returned "
            f"{type(value).__name__}.",
            b,
        ) from exc
    if keep_shape:
        if shape is not None and arr.shape != shape:
            raise StatisticError(
                f"The statistic returned shape {arr.shape} on {where}, but {shape} "
                "on the original data.",
                b,
            )
        return arr
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


def accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params
