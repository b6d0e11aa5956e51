"""``bootstrap()``, the :class:`BootstrapStatistic` meta-estimator and the frozen
:class:`BootstrapResult`."""

from __future__ import annotations

import inspect
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from skboot import intervals as _iv
from skboot._engine import (
    BuiltinStatistic,
    CallableStatistic,
    IndependentPlan,
    Statistic,
    callable_jackknife,
    make_statistic,
    run_bootstrap,
)
from skboot._exceptions import UndefinedStatisticWarning
from skboot._random import (
    PURPOSE,
    STREAM_VERSION,
    check_random_state,
    reference_uniforms,
)
from skboot._validation import check_int, check_n_jobs, check_one_of, param_error
from skboot.cuda import check_device, device_runner, no_kernel_error
from skboot.intervals import ConfidenceInterval
from skboot.resamplers import Bootstrap
from skboot.resamplers._base import BaseResampler, ResamplingPlan
from skboot.resamplers._iid import PoolPlan

__all__ = ["BootstrapResult", "BootstrapStatistic", "ConfidenceInterval", "bootstrap"]

INTERVAL_METHODS = _iv.METHODS
#: Replicates run when neither the call nor a resampler says how many.
DEFAULT_N_RESAMPLES = 9999
ALTERNATIVES = ("two-sided", "less", "greater")


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Data:
    arrays: tuple[np.ndarray, ...]
    n_samples: int
    labels: Any = None  # pandas column index / Series name, for labelled output
    kind: str = "numpy"  # "numpy", "series", "frame"


def _prepare_data(data: Any, owner: str, paired: bool = True) -> _Data:
    """One array, a tuple of arrays (paired, resampled jointly), or pandas."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    labels = None
    kind = "numpy"
    if isinstance(data, tuple):
        if len(data) == 0:
            raise param_error(
                "data", owner, "a non-empty array or tuple of arrays", data
            )
        arrays = tuple(_to_array(a, owner) for a in data)
    else:
        if pd is not None and isinstance(data, pd.Series):
            labels, kind = data.name, "series"
        elif pd is not None and isinstance(data, pd.DataFrame):
            labels, kind = data.columns, "frame"
        arrays = (_to_array(data, owner),)
    lengths = {a.shape[0] for a in arrays}
    if not paired:
        short = [a.shape[0] for a in arrays if a.shape[0] < 2]
        if short:
            raise ValueError(
                f"The 'data' parameter of {owner} must have at least 2 observations "
                f"in every sample. Got a sample of {short[0]} sample(s) instead."
            )
        return _Data(arrays, arrays[0].shape[0], labels, kind)
    if len(lengths) != 1:
        raise ValueError(
            f"The 'data' parameter of {owner} must hold arrays of one length (paired "
            f"samples are resampled jointly). Got lengths {[a.shape[0] for a in arrays]} "
            "instead."
        )
    n = lengths.pop()
    if n < 2:
        raise ValueError(
            f"The 'data' parameter of {owner} must have at least 2 observations. "
            f"Got {n} sample(s) instead."
        )
    return _Data(arrays, n, labels, kind)


def _to_array(a: Any, owner: str) -> np.ndarray:
    try:
        arr = np.asarray(a.to_numpy() if hasattr(a, "to_numpy") else a)
    except (TypeError, ValueError) as exc:  # ragged nested sequences, ...
        raise ValueError(
            f"The 'data' parameter of {owner} must be an array-like with "
            f"observations on the first axis. Got a {type(a).__name__} that numpy "
            f"cannot convert to an array instead ({exc})."
        ) from exc
    if arr.ndim == 0:
        raise ValueError(
            f"The 'data' parameter of {owner} must be an array with observations on "
            f"the first axis. Got a scalar ({arr!r}) instead."
        )
    return arr


NAN_POLICIES = ("raise", "omit", "propagate")


def _nan_rows(a: np.ndarray) -> np.ndarray:
    """Boolean mask of rows of ``a`` holding a NaN (float/complex/object data)."""
    if a.dtype.kind in "fc":
        bad = np.isnan(a)
    elif a.dtype.kind == "O":
        import pandas as pd

        bad = np.asarray(pd.isna(a), dtype=bool)
    else:
        return np.zeros(a.shape[0], dtype=bool)
    return bad.reshape(a.shape[0], -1).any(axis=1)


def _apply_nan_policy(
    d: _Data, policy: Any, owner: str, paired: bool, y: Any, groups: Any
) -> tuple[_Data, Any, Any, int]:
    """Apply ``nan_policy`` before any work; returns data, y, groups, n_omitted."""
    check_one_of(policy, "nan_policy", owner, NAN_POLICIES)
    if policy == "propagate":
        return d, y, groups, 0
    masks = [_nan_rows(a) for a in d.arrays]
    counts = [int(m.sum()) for m in masks]
    if sum(counts) == 0:
        return d, y, groups, 0
    if policy == "raise":
        raise ValueError(
            f"The 'data' parameter of {owner} contains {sum(counts)} row(s) with NaN. "
            "Pass nan_policy='omit' to drop them, or nan_policy='propagate' to keep "
            "them (replicates holding a NaN are then undefined)."
        )
    if paired or len(d.arrays) == 1:
        keep = ~np.logical_or.reduce(masks)
        arrays = tuple(a[keep] for a in d.arrays)
        y = None if y is None else np.asarray(y)[keep]
        groups = None if groups is None else np.asarray(groups)[keep]
        omitted = int((~keep).sum())
    else:
        arrays = tuple(a[~m] for a, m in zip(d.arrays, masks, strict=True))
        omitted = sum(counts)
    short = min(a.shape[0] for a in arrays)
    if short < 2:
        raise ValueError(
            f"The 'data' parameter of {owner} has fewer than 2 observations left "
            f"after nan_policy='omit' dropped {omitted} row(s)."
        )
    labels = d.labels
    return _Data(arrays, arrays[0].shape[0], labels, d.kind), y, groups, omitted


# ---------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Context:
    """What an interval method needs beyond the distribution (not public)."""

    stat: Statistic
    data: _Data
    plan: ResamplingPlan
    resampler: BaseResampler
    n_jobs: int | None
    progress: bool = False


#: The automatic jackknife of ``confidence_interval(method="bca")``: a statistic
#: whose jackknife costs one evaluation per row (callables, estimator refits) on
#: more than this many rows gets a delete-a-group jackknife over this many seeded
#: random groups instead (see ``jackknife_groups``).
AUTO_JACKKNIFE_GROUPS = 1000

_NO_DATA = (
    "{what} needs the data and the statistic, which this result does not carry: "
    "an unpickled result, or one read with BootstrapResult.load, keeps only the "
    "distribution and its provenance. Use method 'percentile', 'basic', 'normal' "
    "or 'bc' (they need only the distribution), or re-run bootstrap(data, "
    "statistic, ..., random_state=result.random_state) on the same data, which "
    "repeats the same replicates with the data attached."
)


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """The outcome of one bootstrap run; immutable.

    Attributes
    ----------
    estimate : float, ndarray or pandas.Series
        The statistic on the original data.
    distribution : ndarray or pandas object, shape (n_resamples,) or (n_resamples, k)
        The statistic on every replicate, in replicate order.
    standard_error : float or ndarray
        Standard deviation of the distribution (``ddof=1``).
    bias : float or ndarray
        ``mean(distribution) - estimate``.
    n_resamples : int
    statistic : str
        Name of the statistic.
    resampler : str
        repr of the resampler used.
    random_state : int or SeedSequence
        Pass as ``random_state`` to reproduce this run exactly.
    stream_version : int
        Version of the random-stream definition (:data:`skboot.STREAM_VERSION`).
    n_undefined : int
        Replicates on which the statistic was not finite (NaN/inf).
    n_omitted : int
        Observations dropped because they held NaN (``nan_policy="omit"``).
    block_length : float or None
        The block length the run used (the mean length for the stationary
        scheme; the estimate when ``block_length="auto"``); None for schemes
        without blocks.
    resampler_params : dict
        The resampler's parameters (``get_params()``), values that are not
        numbers, strings, booleans or None given as their repr.

    Notes
    -----
    Equality compares the record: the estimate, distribution, standard error and
    bias bit for bit (with their pandas labels) and the provenance (statistic,
    resampler class and parameters other than ``random_state``, ``random_state``
    itself, stream version, counts, block length).  The hash is consistent with
    it, so results can be dict keys and set members.

    A result computed by :func:`bootstrap` also keeps a reference to the data and
    the statistic, which the BCa jackknife and the studentized interval need
    later.  Pickling does not carry them (so a result with a lambda statistic
    pickles, and a pickle holds no copy of the data), nor do :meth:`to_dict` and
    :meth:`save`; on such a result the percentile, basic, normal and bc
    intervals work, and "bca" and "studentized" raise a ValueError saying to
    re-run :func:`bootstrap` with ``random_state=result.random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> x = np.random.default_rng(0).normal(size=100)
    >>> res = bootstrap(x, "mean", n_resamples=999, random_state=0)
    >>> res.n_resamples, res.stream_version, res.distribution.shape
    (999, 1, (999,))
    >>> again = bootstrap(x, "mean", n_resamples=999, random_state=res.random_state)
    >>> bool(np.array_equal(again.distribution, res.distribution))
    True
    >>> again == res
    True
    """

    estimate: Any
    distribution: Any
    standard_error: Any
    bias: Any
    n_resamples: int
    statistic: str
    resampler: str
    random_state: Any
    stream_version: int = STREAM_VERSION
    n_undefined: int = 0
    n_omitted: int = 0
    block_length: float | None = None
    resampler_params: dict[str, Any] | None = field(default=None, repr=False)
    _context: _Context | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        ctx = self._context
        if ctx is None:
            return
        # provenance the context knows and a pickle or a file must keep
        if self.resampler_params is None:
            from skboot._persist import json_params

            object.__setattr__(self, "resampler_params", json_params(ctx.resampler))
        length = getattr(ctx.resampler, "block_length_", None)
        if self.block_length is None and length is not None:
            object.__setattr__(self, "block_length", float(length))

    # -- equality, hashing, pickling -----------------------------------------
    def _key(self) -> tuple[Any, ...]:
        from skboot._persist import record_key

        return record_key(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BootstrapResult):
            return NotImplemented
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_context"] = None  # the data and the (maybe unpicklable) statistic
        return state

    def __copy__(self) -> BootstrapResult:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> BootstrapResult:
        import copy

        new = object.__new__(type(self))
        for name, value in self.__dict__.items():
            # the context (data, statistic) is shared, as it is never modified
            new.__dict__[name] = (
                value if name == "_context" else copy.deepcopy(value, memo)
            )
        return new

    # -- export ----------------------------------------------------------------
    def to_dict(self, *, distribution: bool = True) -> dict[str, Any]:
        """The result as a dict of plain Python values (``json.dumps``-able).

        Parameters
        ----------
        distribution : bool, default=True
            Include the distribution (a list, or a list of rows); False leaves
            it out, for a short provenance record.

        Returns
        -------
        dict
            ``format`` ("skboot.BootstrapResult") and ``format_version``,
            ``skboot_version``; the provenance: ``statistic``, ``resampler``
            (repr), ``resampler_class``, ``resampler_params``, ``random_state``
            (``{"entropy": ..., "spawn_key": [...]}``: the seed that repeats the
            run), ``stream_version``, ``n_resamples``, ``n_undefined``,
            ``n_omitted``, ``block_length``; ``outputs`` (``kind``: "numpy",
            "series" or "frame", with the pandas ``labels`` and ``name``); the
            values ``estimate``, ``standard_error``, ``bias`` (floats, or lists
            for a vector statistic) and ``distribution``.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot import bootstrap
        >>> x = np.random.default_rng(0).normal(size=100)
        >>> d = bootstrap(x, "mean", n_resamples=99, random_state=0).to_dict()
        >>> d["statistic"], d["random_state"], d["resampler_class"], len(d["distribution"])
        ('mean', {'entropy': 0, 'spawn_key': []}, 'Bootstrap', 99)
        """
        from skboot._persist import result_to_dict

        if not isinstance(distribution, (bool, np.bool_)):
            raise param_error("distribution", "to_dict", "True or False", distribution)
        return result_to_dict(self, distribution=bool(distribution))

    def save(self, path: Any) -> None:
        """Write the result to a ``.npz`` file that loads without pickle.

        The file holds the float64 arrays ``estimate``, ``distribution``,
        ``standard_error`` and ``bias`` (bit for bit) and ``record``, a JSON text
        with :meth:`to_dict`'s keys but the distribution (format version 1; see
        the reproducibility guide).  The data and the statistic are not saved:
        on a loaded result, BCa and studentized intervals need a re-run.

        Parameters
        ----------
        path : str, os.PathLike or binary file object
            Written as given (no ``.npz`` suffix is added).

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> from skboot import BootstrapResult, bootstrap
        >>> x = np.random.default_rng(0).normal(size=100)
        >>> res = bootstrap(x, "mean", n_resamples=99, random_state=0)
        >>> path = os.path.join(tempfile.mkdtemp(), "run.npz")
        >>> res.save(path)
        >>> BootstrapResult.load(path) == res
        True
        """
        from skboot._persist import save_result

        save_result(self, path)

    @classmethod
    def load(cls, path: Any) -> BootstrapResult:
        """Read a result written by :meth:`save` (``allow_pickle=False``).

        Parameters
        ----------
        path : str, os.PathLike or binary file object

        Returns
        -------
        BootstrapResult
            Equal to the saved one; pandas labels are restored.  It carries no
            data: percentile, basic, normal and bc intervals work, BCa and
            studentized raise a ValueError (re-run :func:`bootstrap` with
            ``random_state=result.random_state``).

        Examples
        --------
        >>> import io
        >>> import numpy as np
        >>> from skboot import BootstrapResult, bootstrap
        >>> res = bootstrap(np.arange(20.0), "mean", n_resamples=99, random_state=0)
        >>> buf = io.BytesIO()
        >>> res.save(buf)
        >>> _ = buf.seek(0)
        >>> again = BootstrapResult.load(buf)
        >>> again.confidence_interval(method="percentile") == res.confidence_interval(
        ...     method="percentile")
        True
        """
        from skboot._persist import load_result

        return load_result(cls, path)

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        est = np.asarray(self.estimate, dtype=float)
        dist = np.asarray(self.distribution, dtype=float)
        if est.ndim >= 2:  # a statistic that keeps its shape: intervals run flat
            est, dist = est.reshape(-1), dist.reshape(dist.shape[0], -1)
        return est, dist

    def jackknife_values(self, groups: int | None = None) -> np.ndarray:
        """Leave-one-out (or leave-one-group-out) values of the statistic, (n, k).

        O(n) for built-in statistics (closed forms); n evaluations of a callable
        statistic, run by the engine in chunks (one call per chunk for vectorized
        ones; in parallel with the run's ``n_jobs``; with a progress bar when the
        run had ``progress=True``).  With a ``GroupBootstrap`` or a block
        resampler: one value per deleted group or block.

        Parameters
        ----------
        groups : int, optional
            Delete-a-group jackknife over this many random groups of nearly equal
            size instead of ``n`` leave-one-out samples: ``groups`` evaluations
            for statistics too costly to evaluate ``n`` times.  The groups are a
            pure function of the run's seed (purpose slot "jackknife").  Not
            available when the resampler already deletes groups or blocks, or
            with independent samples.

        Returns
        -------
        ndarray of shape (n, k), (groups, k) or (number of groups or blocks, k)
        """
        groups = self._check_jackknife_groups(groups, "jackknife_values")
        ctx = self._context
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The jackknife"))
        return _jackknife(ctx, groups)

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str = "bca",
        alternative: str = "two-sided",
        *,
        standard_error: Any = None,
        n_inner: int | None = None,
        jackknife_groups: int | str = "auto",
    ) -> ConfidenceInterval:
        """Confidence interval by one of six methods.

        Parameters
        ----------
        level : float, default=0.95
            Confidence level in (0, 1).
        method : {"percentile", "basic", "normal", "bc", "bca", "studentized"}, default="bca"
            See :mod:`skboot.intervals` for the equations.  Any letter case
            ("BCa", as scipy spells it, is "bca").  "normal" is
            ``estimate -/+ z * standard_error``, with the same ``ddof=1``
            standard error as :attr:`standard_error`.
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            "less" gives ``(-inf, high)``, "greater" ``(low, inf)``.
        standard_error : callable, optional
            For "studentized": a function of the data (same signature as the
            statistic, plain) returning the standard error of the statistic.  The
            built-in "mean" has a closed form and needs none.
        n_inner : int, optional
            For "studentized" without a standard-error function: the size of the
            nested bootstrap that estimates each replicate's standard error.
        jackknife_groups : "auto", "full" or int, default="auto"
            For "bca", the jackknife that gives the acceleration.  An int ``G``:
            a delete-a-group jackknife over ``G`` seeded random groups of rows
            instead of ``n`` leave-one-out samples (see :meth:`jackknife_values`;
            ``G`` evaluations of the statistic).  The acceleration formula is
            unchanged: the third cumulant of the influence adds up over a group
            as the variance does, so the ratio estimates the same constant.
            "full": the leave-one-out jackknife (``n`` evaluations), or the
            resampler's own delete-one-group / delete-one-block jackknife.
            "auto": "full", except for a statistic evaluated once per jackknife
            sample (a callable, an estimator refit) on more than
            :data:`AUTO_JACKKNIFE_GROUPS` (1000) rows, which gets ``G = 1000``
            groups; built-in statistics (closed-form jackknife in O(n)),
            resamplers that delete groups or blocks, ``StratifiedBootstrap``
            and independent samples always get "full".  The returned
            interval's ``jackknife_groups`` records the ``G`` used.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``: floats for a scalar statistic, arrays otherwise
            (Series labelled by the columns of a DataFrame), with the estimate,
            standard error, method, level and ``jackknife_groups`` attached
            (:meth:`ConfidenceInterval.to_frame` tabulates them).
        """
        owner = "confidence_interval"
        method = _iv._check_method(method, owner)
        check_one_of(alternative, "alternative", owner, ALTERNATIVES)
        level = _iv._check_level(level)  # before the jackknife / nested bootstrap
        groups = self._check_jackknife_groups(jackknife_groups, owner, words=True)
        if groups == "auto":
            groups = self._auto_jackknife_groups()
        elif groups == "full":
            groups = None
        est, dist = self._arrays()
        if self.n_undefined:
            raise ValueError(
                f"The bootstrap distribution has {self.n_undefined} undefined "
                "(non-finite) replicate(s) of "
                f"{self.n_resamples}; no interval is computed from it. Make the "
                "statistic defined on every resample (or drop those replicates "
                "yourself and call skboot.intervals directly)."
            )

        def jackknife() -> np.ndarray:
            jk = self.jackknife_values(groups)
            strata = _strata_codes(self._context)
            if strata is not None and groups is None:
                jk = stratified_jackknife(jk, strata)
            return jk if est.ndim else jk[:, 0]

        res = _iv.interval_by_method(
            method,
            dist,
            est,
            level=level,
            alternative=alternative,
            jackknife=jackknife,
            studentized=lambda: self._studentized_inputs(standard_error, n_inner),
        )
        name = getattr(self.distribution, "name", None)
        return ConfidenceInterval(
            _labelled(res.low, self),
            _labelled(res.high, self),
            estimate=self.estimate,
            standard_error=self.standard_error,
            method=method,
            level=level,
            alternative=alternative,
            jackknife_groups=groups if method == "bca" else None,
            name=self.statistic if name is None else name,
        )

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Histogram of the distribution with the estimate and an interval marked.

        A statistic with several outputs is drawn as a grid, one Axes per output,
        unless ``column=`` picks one.  The interval is ``confidence_interval``'s
        default, "bca", unless ``method=`` says otherwise.  See
        :func:`skboot.plotting.plot_distribution` for the keywords (``column``,
        ``method``, ``level``, ``bins``) and the return value; needs matplotlib.
        """
        from skboot.plotting import plot_distribution

        column = kwargs.get("column")
        labels = list(getattr(self.distribution, "columns", []))
        by_label = column is not None and (
            isinstance(column, (bool, np.bool_))
            or not isinstance(column, (int, np.integer))
        )
        if by_label and labels.count(column) > 1:
            raise ValueError(
                f"The 'column' parameter of plot is the label {column!r}, which "
                f"{labels.count(column)} columns share (duplicate column names are "
                "kept as given). Pass the column's position instead."
            )
        return plot_distribution(self, ax=ax, **kwargs)

    def _check_jackknife_groups(
        self, groups: Any, owner: str, *, words: bool = False
    ) -> Any:
        """None (or, with ``words``, "auto"/"full") as given; an int checked
        against the data and the resampler."""
        if words and isinstance(groups, str) and groups in ("auto", "full"):
            return groups
        if groups is None and not words:
            return None
        ctx = self._context
        n = None if ctx is None else ctx.stat.arrays[0].shape[0]
        allowed = "an int >= 2" if n is None else f"an int in [2, {n}]"
        if words:
            allowed = f"'auto', 'full' or {allowed}"
        ok = (
            isinstance(groups, (numbers.Integral, np.integer))
            and not isinstance(groups, (bool, np.bool_))
            and int(groups) >= 2
            and (n is None or int(groups) <= n)
        )
        if not ok:
            raise param_error("jackknife_groups", owner, allowed, groups)
        groups = int(groups)
        if ctx is not None:
            if isinstance(ctx.plan, IndependentPlan):
                raise ValueError(
                    f"The 'jackknife_groups' parameter of {owner} is not available "
                    "with independent samples (paired=False): each sample has its "
                    f"own jackknife. Got jackknife_groups={groups}."
                )
            if getattr(ctx.plan, "jackknife_groups", None) is not None:
                either = "'auto' or 'full'" if words else "None"
                raise ValueError(
                    f"The 'jackknife_groups' parameter of {owner} must be "
                    f"{either} with "
                    f"{type(ctx.resampler).__name__}: its jackknife already deletes "
                    f"one group or block at a time. Got jackknife_groups={groups}."
                )
        return groups

    def _auto_jackknife_groups(self) -> int | None:
        """The group count of jackknife_groups="auto" (None: the full jackknife)."""
        ctx = self._context
        if ctx is None:
            return None
        full = (
            ctx.stat.closed_form_jackknife
            or ctx.stat.arrays[0].shape[0] <= AUTO_JACKKNIFE_GROUPS
            or isinstance(ctx.plan, IndependentPlan)
            or getattr(ctx.plan, "jackknife_groups", None) is not None
            or _strata_codes(ctx) is not None
        )
        return None if full else AUTO_JACKKNIFE_GROUPS

    def _studentized_inputs(self, standard_error: Any, n_inner: int | None):
        ctx = self._context
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The studentized interval"))
        stat = ctx.stat
        if standard_error is None and n_inner is None:
            if isinstance(stat, BuiltinStatistic) and stat.name == "mean":
                return _mean_studentized(ctx)
            raise ValueError(
                "The 'studentized' method needs standard_error=callable(data) or "
                "n_inner=int (nested bootstrap); only the built-in 'mean' has a "
                "closed-form standard error. Got neither."
            )
        if standard_error is not None:
            if not callable(standard_error):
                raise param_error(
                    "standard_error",
                    "confidence_interval",
                    "a callable",
                    standard_error,
                )
            return _callable_studentized(ctx, standard_error)
        n_inner = check_int(n_inner, "n_inner", "confidence_interval", min_value=2)
        return _nested_studentized(ctx, n_inner)


def _labelled(value: Any, result: BootstrapResult) -> Any:
    """Per-column endpoints as a Series labelled as the result's estimate (a
    column-wise statistic of a DataFrame); endpoints of a statistic of two or more
    axes in its shape; other values as given."""
    shape = np.shape(result.estimate)
    if len(shape) >= 2:  # interval bounds take the statistic's own shape
        ctx = result._context
        return _shaped(np.reshape(value, shape), None if ctx is None else ctx.data)
    import pandas as pd

    est = result.estimate
    if np.ndim(value) == 0 or not isinstance(est, pd.Series):
        return value
    if len(est) == np.size(value):
        return pd.Series(value, index=est.index)
    return value


def _shaped(value: np.ndarray, data: _Data | None) -> Any:
    """A value of two or more axes; a DataFrame when it is 2-d and its last axis
    matches the data's column labels (rows by position), else as is."""
    if (
        data is not None
        and data.kind == "frame"
        and value.ndim == 2
        and value.shape[1] == len(data.labels)
    ):
        import pandas as pd

        return pd.DataFrame(value, columns=data.labels)
    return value


# ---------------------------------------------------------------------------
# jackknife and studentized inputs
# ---------------------------------------------------------------------------
def _strata_codes(ctx: _Context | None) -> np.ndarray | None:
    """Stratum code of every row when the replicates were stratified."""
    if ctx is None or not isinstance(ctx.plan, PoolPlan):
        return None
    return np.asarray(ctx.plan.codes)


def stratified_jackknife(jk: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Leave-one-out values rescaled so that the one-sample acceleration formula
    of :func:`skboot.intervals.bca_interval` gives the multi-sample one.

    The strata of a stratified bootstrap are independent samples; Efron &
    Tibshirani (1993, section 14.3) compute the acceleration from the influence
    values ``U_ji = (n_j - 1) (mean_j - theta_(ji))`` of each sample, weighted
    by ``1 / n_j`` (scipy's ``bootstrap`` does the same for several samples).
    Returning ``(n_j - 1) / n_j * (theta_(ji) - mean_j)`` (mean zero within each
    stratum) makes ``mean(jk) - jk`` equal to ``U_ji / n_j``.  Differences
    between the strata, which stratified resampling holds fixed, then do not
    enter the acceleration.  ``jk`` is (n,) or (n, k).
    """
    out = np.empty_like(jk, dtype=np.float64)
    for j in np.unique(codes):
        rows = codes == j
        n_j = int(rows.sum())
        vals = jk[rows]
        out[rows] = (n_j - 1) / n_j * (vals - vals.mean(axis=0)) if n_j > 1 else 0.0
    return out


def random_jackknife_groups(key: Any, n: int, groups: int) -> np.ndarray:
    """Group code of each row for a delete-a-group jackknife: rows are ranked by
    uniform ``i`` of purpose slot "jackknife" (replicate 0) and the ranks cut into
    ``groups`` runs of ``floor`` or ``ceil(n / groups)`` rows.  A pure function of
    (key, n, groups)."""
    u = reference_uniforms(key, PURPOSE["jackknife"], 0, n)
    order = np.argsort(u, kind="stable")
    codes = np.empty(n, dtype=np.int64)
    codes[order] = (np.arange(n, dtype=np.int64) * groups) // n
    return codes


def _jackknife(ctx: _Context, groups: int | None = None) -> np.ndarray:
    """Leave-one-out values, or delete-one-group values when the plan says the
    resampling units are groups or blocks (``plan.jackknife_groups``) or the
    caller asked for ``groups`` random groups."""
    stat, plan = ctx.stat, ctx.plan
    if isinstance(plan, IndependentPlan):
        return _independent_jackknife(ctx)
    codes = getattr(plan, "jackknife_groups", None)
    if groups is not None:
        codes = random_jackknife_groups(plan.key, stat.arrays[0].shape[0], groups)
    if isinstance(stat, CallableStatistic):
        # the engine evaluates the callable on the jackknife samples in chunks
        return callable_jackknife(
            stat, plan.key, codes, n_jobs=ctx.n_jobs, progress=ctx.progress
        )
    if codes is None:
        return stat.jackknife()
    fast = getattr(stat, "group_jackknife", None)
    if fast is not None:
        values = fast(codes)
        if values is not None:
            return values
    G = int(codes.max()) + 1
    out = np.empty((G, stat.k))
    for g in range(G):
        out[g] = stat.subset(np.flatnonzero(codes != g)).estimate()
    return out


def _independent_jackknife(ctx: _Context) -> np.ndarray:
    """Multi-sample jackknife, scaled so the one-sample acceleration formula gives
    the multi-sample one (Efron & Tibshirani 1993, sec. 14.3; scipy's convention):
    sample ``j``'s leave-one-out values are centred on their own mean and scaled by
    ``(n_j - 1) / n_j``, then concatenated."""
    stat = ctx.stat
    per_sample = getattr(stat, "sample_jackknife", None)
    if per_sample is not None:  # closed forms per sample (built-ins)
        return np.concatenate(
            [
                (v - v.mean(axis=0)) * ((v.shape[0] - 1) / v.shape[0])
                for v in per_sample()
            ],
            axis=0,
        )
    assert isinstance(stat, CallableStatistic)
    arrays = stat.arrays
    parts = []
    for j, a in enumerate(arrays):
        n_j = a.shape[0]
        vals = np.empty((n_j, stat.k))
        base = np.arange(n_j)
        for i in range(n_j):
            sub = list(arrays)
            sub[j] = np.take(a, np.delete(base, i), axis=0)
            one = CallableStatistic(
                func=stat.func, vectorized=stat.vectorized, arrays=tuple(sub), k=stat.k
            )
            vals[i] = one.estimate()
        parts.append((vals - vals.mean(axis=0)) * ((n_j - 1) / n_j))
    return np.concatenate(parts, axis=0)


def _restat(ctx: _Context, arrays: tuple[np.ndarray, ...]) -> Statistic:
    """The statistic of ``ctx`` rebuilt on other arrays (nested bootstrap)."""
    stat = ctx.stat
    if isinstance(stat, BuiltinStatistic):
        return make_statistic(
            stat.name,
            arrays,
            vectorized=None,
            statistic_kwargs=_builtin_kwargs(stat),
            plan=ctx.plan,
            owner="nested bootstrap",
        )
    assert isinstance(stat, CallableStatistic)
    return CallableStatistic(
        func=stat.func, vectorized=stat.vectorized, arrays=arrays, k=stat.k
    )


def _builtin_kwargs(stat: BuiltinStatistic) -> dict[str, Any]:
    if stat.name in ("var", "std"):
        return {"ddof": stat.ddof}
    if stat.name == "quantile":
        return {"q": stat.q}
    return {}


def _mean_studentized(ctx: _Context):
    """se of a replicate mean: sqrt(var_b(ddof=1) / m), same replicates via 'var'."""
    stat = ctx.stat
    var_stat = make_statistic(
        "var",
        ctx.data.arrays,
        vectorized=None,
        statistic_kwargs={"ddof": 1},
        plan=ctx.plan,
        owner="studentized",
    )
    var_b = run_bootstrap(
        var_stat, ctx.plan, ctx.resampler.n_resamples, n_jobs=ctx.n_jobs
    )
    m = ctx.plan.replicate_size if ctx.plan.layout == "fixed" else ctx.data.n_samples
    se_b = np.sqrt(var_b / m)
    X = stat.arrays[0]
    se_hat = X.std(axis=0, ddof=1) / np.sqrt(X.shape[0])
    return _squeeze_k(se_hat), _squeeze_k(se_b)


def _squeeze_k(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    if a.ndim >= 1 and a.shape[-1] == 1:
        return a[..., 0]
    return a


def _callable_studentized(ctx: _Context, se_func: Any):
    stat = ctx.stat
    arrays = ctx.data.arrays
    se_stat = make_statistic(
        se_func,
        arrays,
        vectorized=False,
        statistic_kwargs=None,
        plan=ctx.plan,
        owner="studentized standard_error",
    )
    se_b = run_bootstrap(
        se_stat, ctx.plan, ctx.resampler.n_resamples, n_jobs=ctx.n_jobs
    )
    se_hat = se_stat.estimate()
    if se_hat.shape[0] != stat.k:
        raise ValueError(
            f"The 'standard_error' function must return {stat.k} value(s), one per "
            f"statistic output. Got {se_hat.shape[0]} instead."
        )
    return _squeeze_k(se_hat), _squeeze_k(se_b)


def _nested_studentized(ctx: _Context, n_inner: int):
    """Each outer replicate's se from an inner iid bootstrap of that replicate.

    The inner stream is the "nested" purpose slot at replicate index
    ``b * n_inner + j``, so it is a pure function of (key, b, j) too.
    """
    from skboot._random import PURPOSE, fill_indices_kernel

    plan = ctx.plan
    if plan.layout != "fixed":
        raise ValueError(
            "The nested studentized interval needs a fixed-size index resampler "
            "(Bootstrap or StratifiedBootstrap). Pass standard_error=callable instead."
        )
    B = ctx.resampler.n_resamples
    if B * n_inner >= 2**32:
        raise param_error(
            "n_inner",
            "confidence_interval",
            "an int with n_resamples * n_inner < 2**32",
            n_inner,
        )
    stat = ctx.stat
    raw = ctx.data.arrays
    m = plan.replicate_size
    seed, gamma = plan.key.stream(PURPOSE["nested"])
    se_b = np.empty((B, stat.k))
    idx = np.empty((1, m), dtype=plan.index_dtype)
    inner_idx = np.empty(m, dtype=np.int64)
    vals = np.empty((n_inner, stat.k))
    for b in range(B):
        plan.fill_indices_chunk(b, idx)
        outer = tuple(np.take(a, idx[0], axis=0) for a in raw)
        for j in range(n_inner):
            fill_indices_kernel(
                seed, gamma, np.uint64(b * n_inner + j), np.uint64(m), inner_idx
            )
            inner = tuple(np.take(a, inner_idx, axis=0) for a in outer)
            vals[j] = _restat(ctx, inner).estimate()
        se_b[b] = vals.std(axis=0, ddof=1)
    # se of the estimate itself: the outer bootstrap standard error
    outer = np.asarray(
        run_bootstrap(stat, plan, B, n_jobs=ctx.n_jobs), dtype=float
    ).std(axis=0, ddof=1)
    return _squeeze_k(outer), _squeeze_k(se_b)


# ---------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------
def _default_n_resamples(resampler: BaseResampler) -> Any:
    """The ``n_resamples`` default of the resampler's class (9999 for skboot's)."""
    param = inspect.signature(type(resampler)).parameters.get("n_resamples")
    if param is None or param.default is inspect.Parameter.empty:
        return DEFAULT_N_RESAMPLES
    return param.default


def _resolve_resampler(
    resampler: Any,
    n_resamples: Any,
    random_state: Any,
    owner: str,
    default: int = DEFAULT_N_RESAMPLES,
) -> tuple[BaseResampler, Any]:
    """The resampler to run and the random_state object to draw the key from.

    ``n_resamples=None`` (the caller did not give it): the resampler's own value,
    or ``default`` without a resampler.  An int given by the caller replaces the
    value of a resampler left at its class default; a resampler whose
    ``n_resamples`` was set to another value conflicts with it (an error, as
    for ``random_state``: two explicit values that differ are a mistake, not a
    preference).  The key is drawn from the caller's own object (not a clone),
    so a Generator passed by the user advances once per call."""
    if resampler is None:
        B = default if n_resamples is None else n_resamples
        return Bootstrap(B, random_state=random_state), random_state
    if not isinstance(resampler, BaseResampler):
        raise param_error(
            "resampler",
            owner,
            "None or a skboot resampler (e.g. Bootstrap())",
            resampler,
        )
    params: dict[str, Any] = {}
    if n_resamples is not None and n_resamples != resampler.n_resamples:
        if resampler.n_resamples != _default_n_resamples(resampler):
            raise ValueError(
                f"The 'n_resamples' parameter of {owner} ({n_resamples!r}) conflicts "
                f"with the resampler's n_resamples ({resampler.n_resamples!r}); set "
                "it in one place."
            )
        params["n_resamples"] = n_resamples
    if random_state is not None and resampler.random_state is None:
        params["random_state"] = random_state
    elif (
        random_state is not None
        and random_state is not resampler.random_state
        and random_state != resampler.random_state
    ):
        raise ValueError(
            f"The 'random_state' parameter of {owner} ({random_state!r}) conflicts "
            f"with the resampler's random_state ({resampler.random_state!r}); set it "
            "in one place."
        )
    out = clone(resampler)
    if params:
        out.set_params(**params)
    source = random_state if random_state is not None else resampler.random_state
    return out, source


def _check_run_params(
    n_jobs: Any, chunk_size: Any, progress: Any, statistic_kwargs: Any, owner: str
) -> None:
    """The engine parameters, checked before any work (the statistic included)."""
    check_n_jobs(n_jobs, owner)
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", owner, min_value=1)
    if not isinstance(progress, (bool, np.bool_)):
        raise param_error("progress", owner, "True or False", progress)
    if statistic_kwargs is not None and not isinstance(statistic_kwargs, dict):
        raise param_error("statistic_kwargs", owner, "None or a dict", statistic_kwargs)


def _run(
    data: _Data,
    statistic: Any,
    resampler: BaseResampler,
    *,
    random_state: Any,
    y: Any,
    groups: Any,
    vectorized: Any,
    statistic_kwargs: Any,
    n_jobs: Any,
    chunk_size: Any,
    owner: str,
    paired: bool = True,
    progress: bool = False,
    nan_policy: str = "raise",
    device: str = "cpu",
) -> BootstrapResult:
    data, y, groups, n_omitted = _apply_nan_policy(
        data, nan_policy, owner, paired, y, groups
    )
    _check_run_params(n_jobs, chunk_size, progress, statistic_kwargs, owner)
    check_device(device, owner)
    resampler._check_params()
    first = data.arrays[0]
    key = check_random_state(random_state, owner=type(resampler).__name__)
    # _resolve_resampler already returns a private copy: fit it directly
    resampler = resampler._fit_with_key(key, first, y, groups)
    plan = resampler.plan_
    if not paired and len(data.arrays) > 1:
        plan = _independent_plan(resampler, plan, data, statistic, owner)
    runner = device_runner(device, statistic, plan, resampler, owner)  # None: CPU
    if isinstance(statistic, Statistic):
        stat = statistic
    else:
        stat = make_statistic(
            statistic,
            data.arrays,
            vectorized=vectorized,
            statistic_kwargs=statistic_kwargs,
            plan=plan,
            owner=owner,
            allow_nonfinite=nan_policy == "propagate",
        )
    B = int(resampler.n_resamples)
    dist = (runner or run_bootstrap)(
        stat, plan, B, n_jobs=n_jobs, chunk_size=chunk_size, progress=bool(progress)
    )
    cached = getattr(stat, "cached_estimate", None)
    est = cached if cached is not None else stat.estimate()
    finite = np.isfinite(dist).all(axis=1)
    n_undefined = int(B - finite.sum())
    bad_estimate = not np.isfinite(est).all()
    if n_undefined:
        warnings.warn(
            f"The statistic was not finite on {n_undefined} of {B} replicates "
            f"(first: replicate {int(np.flatnonzero(~finite)[0])}). Intervals refuse "
            "such a distribution; see BootstrapResult.n_undefined."
            + (
                " It is not finite on the original data either." if bad_estimate else ""
            ),
            UndefinedStatisticWarning,
            stacklevel=3,
        )
    elif bad_estimate:
        warnings.warn(
            f"The statistic was not finite on the original data (estimate {est!r}), "
            "though it is on every replicate.",
            UndefinedStatisticWarning,
            stacklevel=3,
        )
    shape = (
        stat.output_shape if stat.output_shape and len(stat.output_shape) > 1 else None
    )
    scalar = shape is None and est.shape[0] == 1 and not _is_vector_output(stat, data)
    with np.errstate(invalid="ignore"):  # inf - inf under nan_policy="propagate"
        se = dist.std(axis=0, ddof=1) if B > 1 else np.full(est.shape, np.nan)
        bias = dist.mean(axis=0) - est
    name = (
        stat.name
        if isinstance(statistic, Statistic)
        else (
            statistic
            if isinstance(statistic, str)
            else getattr(statistic, "__name__", type(statistic).__name__)
        )
    )
    ctx = _Context(
        stat=stat,
        data=data,
        plan=plan,
        resampler=resampler,
        n_jobs=n_jobs,
        progress=bool(progress),
    )
    estimate: Any
    distribution: Any
    se_o: Any
    bias_o: Any
    if scalar:
        estimate, distribution, se_o, bias_o = (
            float(est[0]),
            dist[:, 0],
            float(se[0]),
            float(bias[0]),
        )
    else:
        estimate, distribution, se_o, bias_o = est, dist, se, bias
    if shape is not None:  # e.g. a multiclass coef_: (n_resamples, *shape)
        distribution = dist.reshape((B, *shape))
        estimate, se_o, bias_o = (
            _shaped(v.reshape(shape), data) for v in (est, se, bias)
        )
    elif data.kind == "frame" and not scalar and est.shape[0] == len(data.labels):
        import pandas as pd

        estimate = pd.Series(est, index=data.labels)
        distribution = pd.DataFrame(dist, columns=data.labels)
        se_o = pd.Series(se, index=data.labels)
        bias_o = pd.Series(bias, index=data.labels)
    elif data.kind == "series" and scalar:
        import pandas as pd

        distribution = pd.Series(distribution, name=data.labels)
    return BootstrapResult(
        estimate=estimate,
        distribution=distribution,
        standard_error=se_o,
        bias=bias_o,
        n_resamples=B,
        statistic=str(name),
        resampler=repr(resampler),
        random_state=resampler.seed_entropy_,
        n_undefined=n_undefined,
        n_omitted=n_omitted,
        _context=ctx,
    )


def _independent_plan(
    resampler: BaseResampler,
    plan: ResamplingPlan,
    data: _Data,
    statistic: Any,
    owner: str,
) -> IndependentPlan:
    from skboot._random import PURPOSE
    from skboot.resamplers._iid import IIDPlan

    if type(resampler) is not Bootstrap or resampler.sample_size is not None:
        raise ValueError(
            f"The 'paired' parameter of {owner} is False (independent samples), which "
            "needs resampler=None or Bootstrap() without sample_size. Got "
            f"{resampler!r} instead."
        )
    plans = tuple(
        IIDPlan(
            plan.key,
            a.shape[0],
            sample_size=a.shape[0],
            purpose=PURPOSE["independent"] + j,
        )
        for j, a in enumerate(data.arrays)
    )
    return IndependentPlan(plan.key, plan.n_samples, plans=plans)


def _is_vector_output(stat: Statistic, data: _Data) -> bool:
    """True when the statistic's output is a vector even if it has length 1."""
    vector = getattr(stat, "vector_output", None)
    if vector is not None:
        return bool(vector)
    if isinstance(stat, BuiltinStatistic):
        if stat.name == "corr":
            return False
        if stat.name == "quantile" and not stat.scalar_q:
            return True
        return data.arrays[0].ndim == 2
    return False


def bootstrap(
    data: Any,
    statistic: Any = "mean",
    *,
    resampler: Any = None,
    n_resamples: int | None = None,
    random_state: Any = None,
    vectorized: bool | None = None,
    statistic_kwargs: dict[str, Any] | None = None,
    y: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    paired: bool = True,
    progress: bool = False,
    nan_policy: str = "raise",
    device: str = "cpu",
) -> BootstrapResult:
    """Bootstrap distribution of a statistic, streamed in cache-sized chunks.

    Algorithm:

    1. ``random_state`` becomes a root key; replicate ``b``'s draws are a pure
       function of (key, b) (:mod:`skboot._random`).
    2. The replicates ``0 .. n_resamples - 1`` are split into joblib tasks and,
       within a task, into chunks sized to the per-core cache.
    3. Each chunk's replicates are generated and reduced to the statistic at once:
       built-in statistics in fused numba kernels that never form an index array
       (iid) or reduce per-row weights (other schemes); vectorized callables once
       per chunk on a reused buffer; plain callables once per replicate on a reused
       buffer.
    4. The distribution, standard error and bias are collected in a frozen
       :class:`BootstrapResult`; intervals are computed from it on request.

    Memory: O(n_jobs * chunk * n) working set plus O(n_resamples * k) for the
    distribution; nothing of size ``n_resamples x n``.

    Parameters
    ----------
    data : array-like, tuple of array-likes, pandas Series or DataFrame
        Rows are observations.  A tuple is several paired arrays of one length,
        resampled jointly and passed as ``statistic(x, y, ...)``.  Rows are
        positional: a pandas index is never used to align (duplicate index labels
        are fine) and column names, duplicates included, label the outputs as
        given.  Any memory layout (strided, Fortran-order, read-only) gives the
        result of the contiguous copy, and the data are never written.  Built-in
        statistics compute in float64, so float32, integer and boolean data give
        exactly the result of their float64 values; a callable receives the data
        in their own dtype.
    statistic : str or callable, default="mean"
        A built-in name ({"mean", "sum", "var", "std", "median", "quantile",
        "proportion", "corr"}; column-wise for 2-D data, "corr" takes two columns)
        or a callable.  A callable with an ``axis`` parameter is called
        vectorized (see ``vectorized``).
    resampler : resampler, default=None
        The scheme; None means :class:`Bootstrap`.
    n_resamples : int or None, default=None
        Number of replicates.  None: the resampler's ``n_resamples`` when a
        resampler is given, else 9999.  An int replaces the ``n_resamples`` of a
        resampler left at its default (9999); a resampler set to another value
        raises a ValueError (set it in one place).
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams; the entropy used is recorded on the result.
    vectorized : bool or None, default=None
        Whether the callable takes ``axis=-1`` over a batch of replicates (arrays
        given with observations last and a leading batch axis).  None: True when
        its signature has ``axis``.
    statistic_kwargs : dict, default=None
        Keywords of the statistic: ``ddof`` for "var"/"std", ``q`` for "quantile";
        passed through to a callable.  With independent samples
        (``paired=False``) a built-in also takes ``contrast``: "difference" (the
        first sample's statistic minus the second's) or "ratio" (over it).
    y, groups : array-like, default=None
        Strata (StratifiedBootstrap) and groups (GroupBootstrap).
    n_jobs : int, default=None
        Parallel workers through joblib (honours ``joblib.parallel_config``).
    chunk_size : int, default=None
        Replicates per chunk; None sizes chunks from the cache.  Never changes
        results.
    paired : bool, default=True
        With a tuple of arrays: True resamples rows jointly (one index array for
        all); False resamples each sample on its own, iid, with its own length
        (independent samples, as arch's IndependentSamplesBootstrap and scipy's
        ``paired=False``); sample ``j`` reads its own purpose slot of the stream.
        A built-in statistic (all but "corr") is then computed on each sample by
        the fused kernels: the per-sample values side by side, or their
        ``contrast`` (see ``statistic_kwargs``); a callable takes one argument
        per sample.
    progress : bool, default=False
        Show a progress bar on stderr (per chunk, or per finished joblib task).
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Data rows holding a NaN: "raise" refuses them before any work; "omit" drops
        them (from every paired array, and from ``y``/``groups``; per sample for
        independent samples) and records the count in ``result.n_omitted``;
        "propagate" keeps them, so replicates drawing one are NaN and counted in
        ``result.n_undefined``.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Where the replicates are computed.  "cuda" runs the built-in "mean",
        "sum", "var", "std", "proportion" and "corr" on an NVIDIA GPU (extra
        ``skboot[cuda]``) for Bootstrap, the moving, circular, non-overlapping and
        stationary block bootstraps, PoissonBootstrap and BayesianBootstrap: the
        same replicates, statistics equal to the CPU's to rounding; it raises if
        the GPU, the package or a kernel is missing.  "auto" uses the GPU when
        that works and the CPU otherwise.  ``n_jobs`` is not used on the GPU and
        ``chunk_size`` is the replicates per kernel launch.  See the GPU guide.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> x = np.random.default_rng(0).normal(size=200)
    >>> res = bootstrap(x, "mean", n_resamples=999, random_state=1)
    >>> round(res.estimate, 4), round(res.standard_error, 3)
    (0.0153, 0.065)

    Two independent samples, the difference of their means:

    >>> y = np.random.default_rng(1).normal(0.5, 1.0, size=150)
    >>> res = bootstrap((x, y), "mean", paired=False, n_resamples=999,
    ...                 random_state=1, statistic_kwargs={"contrast": "difference"})
    >>> round(res.estimate, 4), round(res.standard_error, 3)
    (-0.4034, 0.099)
    """
    owner = "bootstrap"
    if n_resamples is not None:
        check_int(n_resamples, "n_resamples", owner, min_value=1)
    res, source = _resolve_resampler(resampler, n_resamples, random_state, owner)
    if not isinstance(paired, (bool, np.bool_)):
        raise param_error("paired", owner, "True or False", paired)
    d = _prepare_data(data, owner, paired=bool(paired))
    return _run(
        d,
        statistic,
        res,
        random_state=source,
        y=y,
        groups=groups,
        vectorized=vectorized,
        statistic_kwargs=statistic_kwargs,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        owner=owner,
        paired=bool(paired),
        progress=progress,
        nan_policy=nan_policy,
        device=device,
    )


class BootstrapStatistic(BaseEstimator):
    """Meta-estimator: the bootstrap distribution of a statistic of ``X``.

    ``fit(X, y, groups)`` runs :func:`bootstrap` on ``X`` (``y`` and ``groups``
    route to the resampler: strata and clusters) and stores the result.

    Parameters
    ----------
    statistic : str or callable, default="mean"
        As in :func:`bootstrap`.
    resampler : resampler, default=None
        None means :class:`Bootstrap`.
    n_resamples : int or None, default=None
        As in :func:`bootstrap`: None means the resampler's value, else 9999.
    random_state : None, int, SeedSequence or Generator, default=None
    n_jobs : int, default=None
    vectorized : bool or None, default=None
    statistic_kwargs : dict, default=None
    chunk_size : int, default=None
    progress : bool, default=False
        Show a progress bar on stderr.
    estimator : estimator object, default=None
        If given, every replicate refits a clone of it on the replicate's rows of
        ``(X, y)`` and ``statistic(fitted_clone)`` is the statistic (tier 4), e.g.
        ``lambda p: p[-1].coef_.ravel()`` for a Pipeline's coefficients.  A
        statistic of two or more axes keeps its shape (a multiclass ``coef_``:
        ``estimate_`` (n_classes, n_features), ``distribution_``
        (n_resamples, n_classes, n_features)).  The clone
        gets ``sample_weight=counts`` when its ``fit`` accepts it (no rows copied),
        else the gathered rows; see :class:`skboot.metrics.EstimatorStatistic`.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        As in :func:`bootstrap`.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        As in :func:`bootstrap`; with ``estimator``, "cpu" or "auto" (refits run
        on the CPU).

    Attributes
    ----------
    result_ : BootstrapResult
    estimate_ : float or ndarray
    distribution_ : ndarray of shape (n_resamples,), (n_resamples, k) or (n_resamples, d1, d2, ...)
    standard_error_ : float or ndarray
    bias_ : float or ndarray
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import BootstrapStatistic
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> est = BootstrapStatistic("mean", n_resamples=500, random_state=0).fit(X)
    >>> est.distribution_.shape
    (500, 2)
    """

    def __init__(
        self,
        statistic: Any = "mean",
        *,
        resampler: Any = None,
        n_resamples: int | None = None,
        random_state: Any = None,
        n_jobs: int | None = None,
        vectorized: bool | None = None,
        statistic_kwargs: dict[str, Any] | None = None,
        chunk_size: int | None = None,
        progress: bool = False,
        estimator: Any = None,
        nan_policy: str = "raise",
        device: str = "cpu",
    ) -> None:
        self.statistic = statistic
        self.resampler = resampler
        self.n_resamples = n_resamples
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.vectorized = vectorized
        self.statistic_kwargs = statistic_kwargs
        self.chunk_size = chunk_size
        self.progress = progress
        self.estimator = estimator
        self.nan_policy = nan_policy
        self.device = device

    def fit(self, X: Any, y: Any = None, groups: Any = None) -> BootstrapStatistic:
        """Run the bootstrap on ``X``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples,) or (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
            Without ``estimator``: the strata of a StratifiedBootstrap, otherwise
            unused.  With ``estimator``: the target every clone is fitted to
            (``fit(X_b, y_b)`` on the replicate's rows), and also the strata when
            the resampler is a StratifiedBootstrap.
        groups : array-like of shape (n_samples,), default=None
            Clusters of a GroupBootstrap (with ``estimator`` too; never passed to
            the estimator's ``fit``).

        Returns
        -------
        self : BootstrapStatistic
        """
        owner = type(self).__name__
        if self.n_resamples is not None:
            check_int(self.n_resamples, "n_resamples", owner, min_value=1)
        res, source = _resolve_resampler(
            self.resampler, self.n_resamples, self.random_state, owner
        )
        d = _prepare_data(X, owner)
        statistic = self.statistic
        if self.estimator is not None:
            from skboot.metrics import EstimatorStatistic

            if self.nan_policy != "raise":
                raise ValueError(
                    f"The 'nan_policy' parameter of {owner} must be 'raise' when "
                    "'estimator' is given (the estimator sees X and y as passed; drop "
                    f"NaN rows first). Got {self.nan_policy!r} instead."
                )

            if isinstance(statistic, str):
                raise ValueError(
                    f"The 'statistic' parameter of {owner} must be a callable of the "
                    "fitted estimator when 'estimator' is given (e.g. "
                    f"lambda est: est.coef_). Got {statistic!r} instead."
                )
            # everything checkable before the estimator is fitted to all of X
            _apply_nan_policy(d, "raise", owner, True, y, groups)
            _check_run_params(
                self.n_jobs,
                self.chunk_size,
                self.progress,
                self.statistic_kwargs,
                owner,
            )
            res._check_params()
            if check_device(self.device, owner) == "cuda":
                raise no_kernel_error("estimator refits", owner)
            if not isinstance(source, (np.random.Generator, np.random.RandomState)):
                check_random_state(source, owner=type(res).__name__)  # no draw
            statistic = EstimatorStatistic(self.estimator, statistic, X, y)
        result = _run(
            d,
            statistic,
            res,
            random_state=source,
            y=y,
            groups=groups,
            vectorized=self.vectorized,
            statistic_kwargs=self.statistic_kwargs,
            n_jobs=self.n_jobs,
            chunk_size=self.chunk_size,
            owner=owner,
            progress=self.progress,
            nan_policy=self.nan_policy,
            device=self.device,
        )
        first = d.arrays[0]
        self.n_features_in_ = 1 if first.ndim == 1 else int(first.shape[1])
        if d.kind == "frame":
            self.feature_names_in_ = np.asarray(d.labels, dtype=object)
        self.result_ = result
        self.estimate_ = result.estimate
        self.distribution_ = result.distribution
        self.standard_error_ = result.standard_error
        self.bias_ = result.bias
        return self

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str = "bca",
        alternative: str = "two-sided",
        **kwargs: Any,
    ) -> ConfidenceInterval:
        """Shortcut for ``result_.confidence_interval(...)``."""
        check_is_fitted(self, "result_")
        return self.result_.confidence_interval(level, method, alternative, **kwargs)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Shortcut for ``result_.plot(...)``: the distribution of each output
        with its estimate and interval (see :meth:`BootstrapResult.plot`).

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, default=None
        **kwargs
            ``column``, ``method``, ``level``, ``bins``.

        Returns
        -------
        matplotlib Axes or ndarray of Axes
        """
        check_is_fitted(self, "result_")
        return self.result_.plot(ax=ax, **kwargs)
