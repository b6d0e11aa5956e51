"""The frozen results of :func:`~skboot.metrics.metric_ci` and
:func:`~skboot.metrics.compare_metrics` (:class:`MetricCI`,
:class:`MetricComparison`), and their intervals: the undefined-replicate policy
applied to the jackknife, the stratified (multi-sample) acceleration, and the
automatic delete-a-group jackknife of :class:`~skboot.BootstrapResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._results import Result
from skboot._run import (
    apply_undefined_count,
    apply_undefined_policy,
    auto_jackknife_groups,
    check_jackknife_groups,
    stratified_jackknife,
)
from skboot._typing import ArrayLike
from skboot._validation import ALTERNATIVE, NONE, Constraint, validate_params
from skboot.intervals import ConfidenceInterval, JackknifeMoments, interval_by_method
from skboot.metrics._curve_result import CurveBand
from skboot.metrics._curve_sources import metric_ci_band
from skboot.metrics._inputs import INTERVAL_OPTIONS
from skboot.metrics._plot import plot_metric_result
from skboot.statistic import BootstrapResult

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = ["MetricCI", "MetricComparison", "MetricResultMixin", "metric_interval"]

#: The options of the results' ``confidence_interval`` (None: the result's own).
_CI_OPTIONS: dict[str, list[Constraint]] = {
    "method": [*INTERVAL_OPTIONS["method"], NONE],
    "level": [*INTERVAL_OPTIONS["level"], NONE],
    "alternative": [ALTERNATIVE],
}


def metric_interval(
    result: BootstrapResult,
    method: str,
    level: float,
    alternative: str,
    policy: str,
    name: str,
    jackknife_groups: Any = "auto",
    owner: str = "confidence_interval",
) -> ConfidenceInterval:
    """The interval of ``method`` from the defined replicates of ``result``.

    For BCa, the jackknife is chosen as :class:`~skboot.BootstrapResult` chooses
    it (``jackknife_groups``); jackknife samples on which the metric is undefined
    follow ``policy``, and strata give the multi-sample acceleration.
    """
    ctx = result._context
    groups = check_jackknife_groups(ctx, jackknife_groups, owner, words=True)
    if groups == "auto":
        groups = auto_jackknife_groups(ctx)
    elif groups == "full":
        groups = None
    est = float(result.estimate)
    dist = np.asarray(result.distribution, dtype=float)

    def jackknife() -> np.ndarray | JackknifeMoments:
        kind = "leave-one-out" if groups is None else "delete-a-group"
        esc = name.replace("{", "{{").replace("}", "}}")
        texts: dict[str, Any] = dict(
            subject=f"The metric {name} is undefined",
            unit=f"jackknife ({kind}) samples",
            item="unit",
            remedy="The BCa acceleration cannot be estimated from them: pass "
            "undefined='omit' to drop them, or use method='bc' or 'percentile'.",
            omitted="the BCa acceleration uses the others",
            minimum=2,
            too_few=f"The metric {esc} is defined on {{kept}} of {{B}} jackknife "
            "samples; the BCa acceleration needs at least {minimum}.",
        )
        sums = None if ctx is None or groups else ctx.stat.jackknife_moments()
        if sums is not None:  # predictions in dask collections
            sums = sums.column(0)
            bad, first = sums.n_nonfinite, sums.first_nonfinite
            apply_undefined_count(bad, sums.n, first, policy, **texts)
            return sums.finite_only()
        jk = np.asarray(result.jackknife_values(groups), dtype=float)[:, 0]
        kept, undefined = apply_undefined_policy(jk, policy, **texts)
        codes = None if ctx is None or groups is not None else ctx.plan.strata_codes
        if codes is None:
            return kept
        keep = np.ones(jk.shape[0], dtype=bool)
        keep[undefined.replicates] = False
        return stratified_jackknife(kept, codes[keep])  # multi-sample acceleration

    res = interval_by_method(
        method, dist, est, level=level, alternative=alternative, jackknife=jackknife
    )
    return ConfidenceInterval(
        float(res.low),
        float(res.high),
        estimate=est,
        standard_error=float(result.standard_error),
        method=method,
        level=level,
        alternative=alternative,
        jackknife_groups=groups if method == "bca" else None,
        name=name,
    )


class MetricResultMixin:
    """Read-through properties to the wrapped :class:`BootstrapResult`, the
    stored interval and the one-row frame."""

    result: BootstrapResult
    n_undefined: int
    undefined: str
    metric: str
    method: str
    level: float
    _interval: ConfidenceInterval

    @property
    def distribution(self) -> np.ndarray:
        """The defined replicates of the statistic, in replicate order."""
        return np.asarray(self.result.distribution)

    @property
    def standard_error(self) -> float:
        """Standard deviation of :attr:`distribution` (``ddof=1``)."""
        return float(self.result.standard_error)

    @property
    def bias(self) -> float:
        """``mean(distribution) - estimate``."""
        return float(self.result.bias)

    @property
    def n_resamples(self) -> int:
        """Replicates drawn, defined or not."""
        return int(self.result.n_resamples) + int(self.n_undefined)

    @property
    def random_state(self) -> Any:
        """Pass as ``random_state`` to reproduce the run exactly."""
        return self.result.random_state

    @property
    def resampler(self) -> str:
        """The ``repr`` of the resampler used."""
        return self.result.resampler

    @property
    def stream_version(self) -> int:
        """Version of the random-stream definition that drew the replicates."""
        return int(self.result.stream_version)

    def _frame_row(self) -> dict[str, Any]:
        """The row of ``to_frame``: the estimate, the stored interval and what
        produced it."""
        return {
            "metric": self.metric,
            "estimate": float(self.estimate),  # type: ignore[attr-defined]
            "low": float(self._interval.low),
            "high": float(self._interval.high),
            "level": self.level,
            "method": self.method,
            "standard_error": self.standard_error,
            "bias": self.bias,
            "n_resamples": self.n_resamples,
            "n_undefined": int(self.n_undefined),
        }

    def _repr_extra(self) -> list[tuple[str, Any]]:
        # the interval the result was computed with (kept privately)
        return [("low", self._interval.low), ("high", self._interval.high)]

    def confidence_interval(
        self,
        level: float | None = None,
        method: str | None = None,
        alternative: str = "two-sided",
        *,
        jackknife_groups: int | str = "auto",
    ) -> ConfidenceInterval:
        """The interval of the result, or another one from the same replicates.

        Without arguments, the interval computed by the call that made the
        result (at :attr:`level` by :attr:`method`, two-sided); with
        arguments, another interval from the same replicates (nothing is
        resampled).

        Parameters
        ----------
        level : float, default=None
            Confidence level, in (0, 1); None: the result's :attr:`level`.
        method : {"percentile", "basic", "normal", "bc", "bca"}, default=None
            Any letter case; "normal" is ``estimate -/+ z * standard_error``
            (``ddof=1``).  None: the result's :attr:`method`.
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            A two-sided interval, or the one-sided interval bounded above
            ("less") or below ("greater").
        jackknife_groups : "auto", "full" or int, default="auto"
            For "bca", the jackknife that gives the acceleration, as in
            :meth:`skboot.BootstrapResult.confidence_interval`: "auto" is the
            full jackknife except for a metric function (not a fused metric)
            on more than 1000 rows, which gets a delete-a-group jackknife over
            1000 seeded random groups (1000 metric calls instead of ``n``).
            The interval's ``jackknife_groups`` records the ``G`` used.

        Returns
        -------
        ConfidenceInterval
            The endpoints, with the estimate, method and level.
        """
        owner = "confidence_interval"
        values = validate_params(
            owner, _CI_OPTIONS, method=method, level=level, alternative=alternative
        )
        if (
            values["method"] is None
            and values["level"] is None
            and values["alternative"] == "two-sided"
            and isinstance(jackknife_groups, str)
            and jackknife_groups == "auto"
        ):
            return self._interval
        return metric_interval(
            self.result,
            self.method if values["method"] is None else values["method"],
            self.level if values["level"] is None else float(values["level"]),
            values["alternative"],
            self.undefined,
            self.metric,
            jackknife_groups,
        )


@dataclass(frozen=True, eq=False, repr=False)
class MetricCI(MetricResultMixin, Result):
    """A metric's estimate and bootstrap confidence interval; immutable.

    Returned by :func:`metric_ci`.  ``confidence_interval()`` gives its
    interval (at :attr:`level` by :attr:`method`); it keeps the bootstrap run,
    so intervals at other levels or by other methods come from the same
    replicates through ``confidence_interval(level=..., method=...)``, without
    resampling.  ``to_frame()`` gives one row (the estimate, ``low``,
    ``high``, the level, method and standard error), ``plot()`` draws the
    distribution; ``==`` compares every field.

    Attributes
    ----------
    metric : str
        Name of the metric (registry name, scorer name or function name).
    estimate : float
        The metric on the original data.
    method : str
        Interval method of the result's interval.
    level : float
        Confidence level of the result's interval.
    n_undefined : int
        Replicates on which the metric was undefined and that were omitted
        (``undefined="omit"``); 0 otherwise.
    undefined_replicates : ndarray of int64
        Their replicate numbers (``resampler.replicate(b)`` regenerates them).
    undefined : str
        The policy used, "raise" or "omit".
    result : BootstrapResult
        The bootstrap run over the defined replicates (its ``n_resamples``
        counts those); its ``jackknife_values()`` gives the leave-one-out values.
    distribution, standard_error, bias, n_resamples, random_state, resampler,\
 stream_version
        Read from :attr:`result` (``n_resamples`` counts all replicates drawn).

    See Also
    --------
    metric_ci : Computes it.
    MetricComparison : The paired comparison of two predictions.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import metric_ci
    >>> y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0] * 5)
    >>> s = np.linspace(0.1, 0.9, 50)
    >>> s = np.where(y == 1, s, s[::-1] * 0.8)
    >>> res = metric_ci(y, s, "roc_auc", n_resamples=500, random_state=0)
    >>> type(res).__name__, round(res.estimate, 3)
    ('MetricCI', 0.626)
    >>> ci = res.confidence_interval()
    >>> bool(ci.low < res.estimate < ci.high), ci.method, ci.level
    (True, 'bca', 0.95)
    >>> list(res.to_frame().columns[:5])
    ['metric', 'estimate', 'low', 'high', 'level']
    """

    metric: str
    estimate: float
    _interval: ConfidenceInterval
    method: str
    level: float
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    undefined: str
    result: BootstrapResult = field(repr=False)

    def plot(self, ax: Axes | None = None, **kwargs: str | float) -> Axes:
        """Histogram of the bootstrap distribution with the estimate and interval.

        Drawn as :meth:`skboot.BootstrapResult.plot` draws a run: the defined
        replicates, a solid line at :attr:`estimate` and a shaded span for the
        interval, the result's own unless ``method`` or ``level`` asks for
        another one (computed by :meth:`confidence_interval`, nothing is
        resampled).  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``method`` and ``level`` of the interval drawn (default: the
            result's) and ``bins`` of the histogram (as in
            :func:`numpy.histogram`, default "auto").

        Returns
        -------
        ax : matplotlib Axes
            With one histogram (``ax.patches``), the estimate's line, the
            interval's span and a legend.

        See Also
        --------
        skboot.plotting.plot_distribution : The drawing, shared with
            :meth:`skboot.BootstrapResult.plot`.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from skboot import metric_ci
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 200)
        >>> res = metric_ci(y, y + rng.normal(size=200), "roc_auc",
        ...                 n_resamples=300, random_state=0)
        >>> ax = res.plot(bins=20)
        >>> ax.get_xlabel(), len(ax.containers[0].patches)
        ('roc_auc', 20)
        """
        return plot_metric_result(self, ax, kwargs)

    def curve_band(
        self,
        *,
        grid: ArrayLike | None = None,
        level: float | None = None,
        n_jobs: int | None = None,
    ) -> CurveBand:
        """The band of the metric's curve on the interval's own replicates.

        For "roc_auc" the ROC curve, for "average_precision" the
        precision-recall curve, read on ``grid`` as :func:`roc_curve_band` and
        :func:`precision_recall_band` read them, on the replicates of this
        interval: the same fitted resampler (so the same seed,
        ``n_resamples`` and scheme: iid unless :func:`metric_ci` was given
        ``stratify``, ``groups`` or ``resampler``), rows, ``sample_weight``,
        positive class and undefined policy.  The band equals that of
        ``roc_curve_band(y_true, y_pred, resampler=..., n_resamples=...,
        random_state=result.random_state)`` with that resampler, bit for bit
        (replicates, estimate and bands), and the interval is not touched.
        Costs one run of the band's replicates.

        The data are those the interval was computed on: the result keeps a
        reference to them (not a copy) while it lives in this process, as the
        BCa interval needs.  A result saved and loaded, or pickled, holds
        neither the data nor the fitted resampler (a file stays small and
        holds no rows): compute the band from the data then, with the
        result's ``resampler``, ``n_resamples`` and ``random_state``.

        Parameters
        ----------
        grid : array-like of shape (n_grid,), default=None
            False positive rates ("roc_auc") or recalls
            ("average_precision"): strictly increasing values in [0, 1].
            None: the default grid of :func:`roc_curve_band` or
            :func:`precision_recall_band`.
        level : float, default=None
            Confidence level of the bands, in (0, 1); None: the interval's.
        n_jobs : int, default=None
            Workers through joblib.

        Returns
        -------
        CurveBand
            As :func:`roc_curve_band` returns it.

        Raises
        ------
        ValueError
            For a metric without a curve, a result that no longer holds its
            run (loaded, unpickled, computed on dask collections), a bad
            ``grid`` or ``level``, or with ``undefined="raise"`` when the
            curve is undefined on a replicate.

        See Also
        --------
        RocCurveBandDisplay.from_metric_ci : Draws it.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot import metric_ci
        >>> from skboot.metrics import roc_curve_band
        >>> from skboot.resamplers import Bootstrap
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 300)
        >>> score = y + rng.normal(size=300)
        >>> res = metric_ci(y, score, "roc_auc", n_resamples=999, random_state=0)
        >>> band = res.curve_band(grid=[0.1, 0.2, 0.5])
        >>> np.round(band.estimate, 3)
        array([0.46, 0.65, 0.92])
        >>> same = roc_curve_band(y, score, fpr_grid=[0.1, 0.2, 0.5],
        ...                       resampler=Bootstrap(), n_resamples=999,
        ...                       random_state=0)
        >>> band == same
        True
        """
        return metric_ci_band(self, "curve_band", grid=grid, level=level, n_jobs=n_jobs)

    def _frame_rows(self) -> list[dict[str, Any]]:
        return [self._frame_row()]


@dataclass(frozen=True, eq=False, repr=False)
class MetricComparison(MetricResultMixin, Result):
    """Paired bootstrap comparison of two predictions under one metric; immutable.

    Returned by :func:`compare_metrics`.  The difference ``a - b`` was computed
    on the same replicates for both predictions; ``confidence_interval()``
    gives its interval (at :attr:`level` by :attr:`method`), and other
    intervals come from those replicates through
    ``confidence_interval(level=..., method=...)``.  ``to_frame()`` gives one
    row (``estimate``, ``estimate_a``, ``estimate_b``, ``low``, ``high``,
    ``pvalue``, ...).

    Attributes
    ----------
    metric : str
        Name of the metric.
    estimate : float
        ``estimate_a - estimate_b`` on the original data.
    estimate_a, estimate_b : float
        The metric of each prediction on the original data.
    pvalue : float
        Two-sided bootstrap p-value for "no difference" (see
        :func:`compare_metrics`).
    method : str
        Interval method of the interval of the difference.
    level : float
        Confidence level of the interval of the difference.
    greater_is_better : bool or None
        Whether a larger metric is better (None when unknown, for a plain
        callable); a positive difference favours ``y_pred_a`` when True.
    n_undefined : int
        Replicates on which either metric was undefined and that were omitted.
    undefined_replicates : ndarray of int64
        Their replicate numbers.
    undefined : str
        The policy used, "raise" or "omit".
    result : BootstrapResult
        The bootstrap run of the difference over the defined replicates.
    distribution, standard_error, bias, n_resamples, random_state, resampler,\
 stream_version
        Read from :attr:`result` (``n_resamples`` counts all replicates drawn).

    See Also
    --------
    compare_metrics : Computes it.
    MetricCI : The interval of one prediction's metric.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import compare_metrics
    >>> y = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0] * 5)
    >>> s = np.linspace(0.1, 0.9, 50)
    >>> s = np.where(y == 1, s, s[::-1] * 0.8)
    >>> cmp = compare_metrics(y, s, 1 - s, "roc_auc", n_resamples=500, random_state=0)
    >>> round(cmp.estimate, 3), 0 < cmp.pvalue <= 1
    (0.251, True)
    >>> list(cmp.to_frame().columns[:7])
    ['metric', 'estimate', 'estimate_a', 'estimate_b', 'low', 'high', 'pvalue']
    """

    metric: str
    estimate: float
    estimate_a: float
    estimate_b: float
    _interval: ConfidenceInterval
    pvalue: float
    method: str
    level: float
    greater_is_better: bool | None
    n_undefined: int
    undefined_replicates: np.ndarray = field(repr=False)
    undefined: str
    result: BootstrapResult = field(repr=False)

    def plot(self, ax: Axes | None = None, **kwargs: str | float) -> Axes:
        """Histogram of the paired differences, marking estimate, interval and 0.

        Drawn as :meth:`skboot.BootstrapResult.plot` draws a run (the defined
        replicates of ``a - b``, a solid line at :attr:`estimate`, a shaded span
        for the result's interval unless ``method`` or ``level`` asks for
        another one), with a dashed line at 0 labelled with :attr:`pvalue`.
        Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``method`` and ``level`` of the interval drawn (default: the
            result's) and ``bins`` of the histogram (as in
            :func:`numpy.histogram`, default "auto").

        Returns
        -------
        ax : matplotlib Axes
            With one histogram (``ax.patches``), the estimate's line, the line
            at 0, the interval's span and a legend.

        See Also
        --------
        skboot.plotting.plot_distribution : The drawing, shared with
            :meth:`skboot.BootstrapResult.plot`.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from skboot import compare_metrics
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 200)
        >>> good, weak = y + rng.normal(size=200), y + rng.normal(0, 2, 200)
        >>> cmp = compare_metrics(y, good, weak, "roc_auc", n_resamples=300,
        ...                       random_state=0)
        >>> ax = cmp.plot()
        >>> ax.get_xlabel()
        'roc_auc(a) - roc_auc(b)'
        >>> [line.get_xdata()[0] for line in ax.get_lines()][-1]
        0.0
        """
        line = (0.0, f"no difference (p = {self.pvalue:.3g})")
        return plot_metric_result(self, ax, kwargs, reference=line)

    def _frame_rows(self) -> list[dict[str, Any]]:
        row = self._frame_row()
        head = {k: row.pop(k) for k in ("metric", "estimate")}
        return [
            {
                **head,
                "estimate_a": self.estimate_a,
                "estimate_b": self.estimate_b,
                "low": row.pop("low"),
                "high": row.pop("high"),
                "pvalue": self.pvalue,
                **row,
                "greater_is_better": self.greater_is_better,
            }
        ]
