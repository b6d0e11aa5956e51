"""The frozen :class:`BootstrapResult`: a run's estimate, distribution, standard
error, bias and provenance, with intervals, p-values, plots and persistence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._random import STREAM_VERSION
from skboot._results import Result
from skboot._run import (
    Run,
    RunContext,
    check_jackknife_groups,
    jackknife,
    outputs,
)
from skboot._typing import (
    ArrayLike,
    Distribution,
    Estimate,
    PValues,
    SeedRecord,
    StandardErrorFunc,
)
from skboot._validation import param_error
from skboot.intervals import (
    ConfidenceInterval,
)
from skboot.intervals._result import output_index
from skboot.statistic._inference import result_interval, result_pvalue
from skboot.statistic._persist import (
    file_fields,
    from_file_fields,
    json_params,
    result_to_dict,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BootstrapResult"]

_NO_DATA = (
    "{what} needs the data and the statistic, which this result does not carry: "
    "an unpickled result, or one read with BootstrapResult.load, keeps only the "
    "distribution and its provenance. Use method 'percentile', 'basic', 'normal' "
    "or 'bc' (they need only the distribution), or re-run bootstrap(data, "
    "statistic, ..., random_state=result.random_state) on the same data, which "
    "repeats the same replicates with the data attached."
)


@dataclass(frozen=True, eq=False, repr=False)
class BootstrapResult(Result):
    """The outcome of one bootstrap run; immutable.

    :func:`bootstrap` and :meth:`BootstrapStatistic.fit` build it; its methods
    compute intervals and p-values from the distribution, plot it and save it.

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
        Number of replicates.
    statistic_name : str
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
    n_failed : int
        Replicates on which the statistic raised (``on_error="omit"``); shown
        by the repr when not 0.
    failed_replicates : ndarray of int64
        Their replicate numbers ``b``, ascending: their rows of
        ``distribution`` are NaN, and the standard error, bias, intervals and
        p-values leave them out.
    first_error : str or None
        The exception of the first failed replicate, as ``"Type: message"``;
        None when none failed.
    block_length : float or None
        The block length the run used (the mean length for the stationary
        scheme; the estimate when ``block_length="auto"``); None for schemes
        without blocks.
    resampler_params : dict
        The resampler's parameters (``get_params()``), values that are not
        numbers, strings, booleans or None given as their repr.

    See Also
    --------
    bootstrap : Runs a bootstrap and returns this result.
    ConfidenceInterval : What :meth:`confidence_interval` returns.
    skboot.intervals : The interval methods, as functions of a distribution.

    Notes
    -----
    Equality compares every field: the estimate, distribution, standard error
    and bias element by element (NaN equal to NaN, with their pandas labels)
    and the provenance (statistic name, resampler repr and parameters,
    ``random_state`` by value, stream version, counts, block length), never the
    data.  Results are not hashable.

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
    (999, 2, (999,))
    >>> again = bootstrap(x, "mean", n_resamples=999, random_state=res.random_state)
    >>> bool(np.array_equal(again.distribution, res.distribution))
    True
    >>> again == res
    True
    >>> print(res.to_frame().round(3))
         statistic_name  estimate  standard_error   bias
    mean           mean     0.081           0.097 -0.003
    """

    estimate: Estimate
    distribution: Distribution
    standard_error: Estimate
    bias: Estimate
    n_resamples: int
    statistic_name: str
    resampler: str
    random_state: SeedRecord
    # (not in the repr, which stays one short line: see the attributes)
    stream_version: int = field(default=STREAM_VERSION, repr=False)
    n_undefined: int = 0
    n_omitted: int = field(default=0, repr=False)
    block_length: float | None = field(default=None, repr=False)
    resampler_params: dict[str, Any] | None = field(default=None, repr=False)
    n_failed: int = field(default=0, repr=False)
    failed_replicates: np.ndarray = field(
        default_factory=lambda: np.empty(0, dtype=np.int64), repr=False
    )
    first_error: str | None = field(default=None, repr=False)
    _context: RunContext | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        ctx = self._context
        if ctx is None:
            return
        # provenance the context knows and a pickle or a file must keep
        if self.resampler_params is None:
            object.__setattr__(self, "resampler_params", json_params(ctx.resampler))
        length = getattr(ctx.resampler, "block_length_", None)
        if self.block_length is None and length is not None:
            object.__setattr__(self, "block_length", float(length))

    @classmethod
    def _from_run(cls, run: Run, statistic_name: str, **record: Any) -> BootstrapResult:
        """Build the result of a finished run, keeping its context for intervals.

        The outputs are presented as the user gave the data (floats, arrays,
        pandas labels, shapes).

        Parameters
        ----------
        run : Run
            A finished :class:`skboot._run.Run`.
        statistic_name : str
            Name of the statistic.
        **record : dict
            Provenance fields that override the run's (e.g. ``n_undefined``
            after an omitting policy).

        Returns
        -------
        BootstrapResult
            The frozen result.
        """
        out = outputs(run)
        resampler = run.context.resampler
        fields: dict[str, Any] = {
            "n_undefined": run.undefined.count,
            "n_omitted": run.n_omitted,
            "n_failed": run.failed.count,
            "failed_replicates": run.failed.replicates,
            "first_error": run.failed.first_error,
            **record,
        }
        return cls(
            estimate=out.estimate,
            distribution=out.distribution,
            standard_error=out.standard_error,
            bias=out.bias,
            n_resamples=int(run.distribution.shape[0]),
            statistic_name=statistic_name,
            resampler=repr(resampler),
            random_state=resampler.seed_entropy_,
            _context=run.context,
            **fields,
        )

    def _repr_extra(self) -> list[tuple[str, Any]]:
        return [("n_failed", self.n_failed)] if self.n_failed else []

    # -- pickling and copies ---------------------------------------------------
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
            ``skboot_version``; the provenance: ``statistic_name``, ``resampler``
            (repr), ``resampler_class``, ``resampler_params``, ``random_state``
            (``{"entropy": ..., "spawn_key": [...]}``: the seed that repeats the
            run), ``stream_version``, ``n_resamples``, ``n_undefined``,
            ``n_omitted``, ``n_failed``, ``first_error``, ``block_length``; ``outputs`` (``kind``: "numpy",
            "series" or "frame", with the pandas ``labels`` and ``name``); the
            values ``estimate``, ``standard_error``, ``bias`` (floats, or lists
            for a vector statistic), ``failed_replicates`` (a list of ints)
            and ``distribution`` (NaN for a failed replicate).

        Examples
        --------
        >>> import numpy as np
        >>> from skboot import bootstrap
        >>> x = np.random.default_rng(0).normal(size=100)
        >>> d = bootstrap(x, "mean", n_resamples=99, random_state=0).to_dict()
        >>> d["statistic_name"], d["random_state"], d["resampler_class"]
        ('mean', {'entropy': 0, 'spawn_key': []}, 'Bootstrap')
        >>> len(d["distribution"])
        99
        """
        if not isinstance(distribution, (bool, np.bool_)):
            raise param_error("distribution", "to_dict", "True or False", distribution)
        return result_to_dict(self, distribution=bool(distribution))

    def _file_fields(self) -> dict[str, Any]:
        return file_fields(self)

    @classmethod
    def _from_file_fields(cls, fields: dict[str, Any], where: Any) -> BootstrapResult:
        return from_file_fields(cls, fields, where)

    def to_frame(self) -> pd.DataFrame:
        """The result as a pandas DataFrame, one row per output of the statistic.

        Rows are labelled as :meth:`ConfidenceInterval.to_frame` labels them
        (the data's column labels; positions; the element's index for a
        statistic of two or more axes).

        Returns
        -------
        pandas.DataFrame
            Columns ``statistic_name``, ``estimate``, ``standard_error`` and
            ``bias``.
        """
        import pandas as pd

        name = getattr(self.distribution, "name", None)
        index = output_index(
            self.estimate, self.statistic_name if name is None else name
        )
        columns: dict[str, Any] = {"statistic_name": self.statistic_name}
        for key in ("estimate", "standard_error", "bias"):
            columns[key] = np.asarray(getattr(self, key), dtype=float).reshape(-1)
        return pd.DataFrame(columns, index=index)

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The estimate and the distribution the intervals read: without the
        failed replicates' rows (they hold no value)."""
        est = np.asarray(self.estimate, dtype=float)
        dist = np.asarray(self.distribution, dtype=float)
        if self.n_failed:
            dist = np.delete(dist, self.failed_replicates, axis=0)
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
            The statistic with one observation (group, block) left out per row.
        """
        groups = check_jackknife_groups(self._context, groups, "jackknife_values")
        ctx = self._context
        if ctx is None:
            raise ValueError(_NO_DATA.format(what="The jackknife"))
        return jackknife(ctx, groups)

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        alternative: str = "two-sided",
        *,
        standard_error: StandardErrorFunc = None,
        n_inner: int | None = None,
        jackknife_groups: int | str = "auto",
    ) -> ConfidenceInterval:
        """Confidence interval by one of eight methods.

        Parameters
        ----------
        level : float, default=0.95
            Confidence level in (0, 1).
        method : str, optional
            "percentile", "basic", "normal", "bc", "bca", "studentized",
            "calibrated" or "calibrated_basic".  See :mod:`skboot.intervals` for
            the equations.  Any letter case ("BCa", as scipy spells it, is
            "bca").  "calibrated" and "calibrated_basic" are the percentile
            and basic intervals with their levels calibrated by a double
            bootstrap (see Notes).  None, the default: the best
            method valid for this run, "bca" where a jackknife estimates its
            acceleration (the result holds its data and its replicates resample
            units that can be deleted), "percentile" otherwise (model-based
            resamplers, a loaded or unpickled result).  "normal" is
            ``estimate -/+ z * standard_error``, with the same ``ddof=1``
            standard error as :attr:`standard_error`.
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            "less" gives ``(-inf, high)``, "greater" ``(low, inf)``.
        standard_error : callable, optional
            For "studentized": a function of the data (same signature as the
            statistic, plain) returning the standard error of the statistic.  The
            built-ins but "median" and "quantile" have a closed form and need none.
        n_inner : int, optional
            For "studentized" without a standard-error function: the size of the
            nested bootstrap that estimates each replicate's standard error.
            For "calibrated" and "calibrated_basic": the inner replicates drawn
            from each replicate (default 200); ``n_resamples * n_inner`` must be
            below ``2**32``.
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
            (:meth:`ConfidenceInterval.to_frame` tabulates them), and
            ``n_inner`` for the calibrated methods.

        Notes
        -----
        The calibrated intervals (Hall 1986; Beran 1987; Efron & Tibshirani
        1993, section 18.3; Davison & Hinkley 1997, section 5.6):

        1. for each replicate ``b``, draw ``n_inner`` inner replicates from its
           rows (the stream's purpose slot "calibration", replicate number
           ``b * n_inner + c``) and evaluate the statistic ``t**_bc`` on each;
        2. keep ``u_b``, the fraction of ``t**_bc <= t_hat`` ("calibrated"), or
           ``v_b``, the fraction of ``t**_bc - t*_b <= t*_b - t_hat``
           ("calibrated_basic");
        3. read the percentile (basic) interval at the levels ``q(alpha)`` and
           ``q(1 - alpha)``, type-7 quantiles of the ``u_b`` (``v_b``), instead
           of ``alpha`` and ``1 - alpha``.

        Work: ``n_resamples * n_inner`` evaluations of the statistic (one fused
        numba kernel for "sum", "mean", "proportion", "var" and "std"; the
        engine's chunks, one replicate at a time, for the other statistics).
        Memory: ``O(n_resamples * k)`` plus one replicate's rows.  Needs the
        run's data and the iid :class:`Bootstrap` with its default sample
        size; any other resampler, or a result without its data, raises a
        ValueError before any work.  The endpoints stay within the replicates,
        so at small ``n``, where the calibrated levels approach 0 or 1, use a
        larger ``n_resamples``.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot import bootstrap
        >>> x = np.random.default_rng(0).exponential(size=12)
        >>> res = bootstrap(x, "mean", n_resamples=1999, random_state=0)
        >>> ci = res.confidence_interval(0.9, method="calibrated", n_inner=100)
        >>> pct = res.confidence_interval(0.9, method="percentile")
        >>> bool(ci.high - ci.low > pct.high - pct.low), ci.n_inner
        (True, 100)
        """
        return result_interval(
            self,
            level,
            method,
            alternative,
            standard_error=standard_error,
            n_inner=n_inner,
            jackknife_groups=jackknife_groups,
        )

    def _check_defined(self, what: str) -> None:
        if self.n_undefined:
            raise ValueError(
                f"The bootstrap distribution has {self.n_undefined} undefined "
                "(non-finite) replicate(s) of "
                f"{self.n_resamples}; no {what} is computed from it. Make the "
                "statistic defined on every resample (or drop those replicates "
                "yourself and call skboot.intervals directly)."
            )

    def pvalue(
        self,
        null: ArrayLike,
        alternative: str = "two-sided",
        method: str | None = None,
        *,
        standard_error: StandardErrorFunc = None,
        n_inner: int | None = None,
        jackknife_groups: int | str = "auto",
    ) -> PValues:
        """P-value of ``H0: theta = null`` by inverting the interval of ``method``.

        The smallest ``alpha`` whose ``1 - alpha`` interval (this method, this
        ``alternative``, the same jackknife and standard errors as
        :meth:`confidence_interval`) excludes ``null``; so ``p < alpha`` exactly
        when ``confidence_interval(1 - alpha, method, alternative)`` excludes
        ``null``.  The closed form of each method and the references are in
        :mod:`skboot.intervals._pvalue` (Efron & Tibshirani 1993, ch. 15-16;
        Davison & Hinkley 1997, sections 4.4 and 5.3; Hall & Wilson 1991).

        Parameters
        ----------
        null : float, array-like of shape (k,) or pandas Series
            The parameter's value under the null hypothesis (one per output of a
            vector statistic, or one for all).
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            "greater": ``H1: theta > null`` (the interval ``(low, inf)``).
        method : str, optional
            One of :meth:`confidence_interval`'s methods, any letter case; None:
            :meth:`confidence_interval`'s default.  For "calibrated" this is the
            double-bootstrap adjusted p-value (Davison & Hinkley 1997, section
            4.5).
        standard_error : callable, optional
            As in :meth:`confidence_interval`.
        n_inner : int, optional
            As in :meth:`confidence_interval`.
        jackknife_groups : "auto", "full" or int, default="auto"
            As in :meth:`confidence_interval`.

        Returns
        -------
        float, ndarray or pandas Series
            One p-value per output (NaN where the interval is undefined).

        Examples
        --------
        >>> import numpy as np
        >>> from skboot import bootstrap
        >>> x = np.random.default_rng(0).normal(0.3, 1.0, size=50)
        >>> res = bootstrap(x, "mean", n_resamples=1999, random_state=0)
        >>> p = res.pvalue(0.2, method="percentile")
        >>> ci = res.confidence_interval(1 - 0.1, method="percentile")
        >>> bool(p < 0.1) == bool(not ci.low <= 0.2 <= ci.high)
        True
        """
        return result_pvalue(
            self,
            null,
            alternative=alternative,
            method=method,
            standard_error=standard_error,
            n_inner=n_inner,
            jackknife_groups=jackknife_groups,
        )

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Histogram of the distribution with the estimate and an interval marked.

        A statistic with several outputs is drawn as a grid, one Axes per output,
        unless ``column=`` picks one.  The interval is :meth:`confidence_interval`'s
        default unless ``method=`` says otherwise.  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, optional
            Where to draw; None makes a new figure.
        **kwargs : dict
            Passed to :func:`skboot.plotting.plot_distribution`: ``column``,
            ``method``, ``level``, ``bins``.

        Returns
        -------
        matplotlib Axes or ndarray of Axes
            As :func:`skboot.plotting.plot_distribution` returns.
        """
        from skboot.plotting import plot_distribution

        return plot_distribution(self, ax=ax, **kwargs)
