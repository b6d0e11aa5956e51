"""The frozen results of :func:`~skboot.metrics.metric_ci` and
:func:`~skboot.metrics.compare_metrics` (:class:`MetricCI`,
:class:`MetricComparison`), and their intervals: the undefined-replicate policy
applied to the jackknife, the stratified (multi-sample) acceleration, and the
automatic delete-a-group jackknife of :class:`~skboot.BootstrapResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._run import (
    apply_undefined_policy,
    auto_jackknife_groups,
    check_jackknife_groups,
    stratified_jackknife,
)
from skboot.intervals import (
    ConfidenceInterval,
    check_alternative,
    check_level,
    check_method,
    interval_by_method,
)
from skboot.metrics._inputs import METRIC_INTERVAL_METHODS
from skboot.metrics._plot import plot_metric_result
from skboot.statistic import BootstrapResult

if TYPE_CHECKING:  # matplotlib is optional
    from matplotlib.axes import Axes

__all__ = ["MetricCI", "MetricComparison", "MetricResultMixin", "metric_interval"]


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

    def jackknife() -> np.ndarray:
        jk = np.asarray(result.jackknife_values(groups), dtype=float)[:, 0]
        kind = "leave-one-out" if groups is None else "delete-a-group"
        esc = name.replace("{", "{{").replace("}", "}}")
        kept, undefined = apply_undefined_policy(
            jk,
            policy,
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
    """Read-through properties to the wrapped :class:`BootstrapResult`."""

    result: BootstrapResult
    n_undefined: int
    undefined: str
    metric: str

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

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str = "bca",
        alternative: str = "two-sided",
        *,
        jackknife_groups: int | str = "auto",
    ) -> ConfidenceInterval:
        """Another interval from the same replicates (nothing is resampled).

        Parameters
        ----------
        level : float, default=0.95
            Confidence level, in (0, 1).
        method : {"percentile", "basic", "normal", "bc", "bca"}, default="bca"
            Any letter case; "normal" is ``estimate -/+ z * standard_error``
            (``ddof=1``).
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
        method = check_method(method, owner, METRIC_INTERVAL_METHODS)
        level = check_level(level, owner)
        alternative = check_alternative(alternative, owner)
        return metric_interval(
            self.result,
            method,
            level,
            alternative,
            self.undefined,
            self.metric,
            jackknife_groups,
        )


@dataclass(frozen=True, eq=False)
class MetricCI(MetricResultMixin):
    """A metric's estimate and bootstrap confidence interval; immutable.

    Returned by :func:`metric_ci`.  It keeps the bootstrap run, so intervals
    at other levels or by other methods come from the same replicates through
    :meth:`confidence_interval`, without resampling.

    Attributes
    ----------
    metric : str
        Name of the metric (registry name, scorer name or function name).
    estimate : float
        The metric on the original data.
    interval : ConfidenceInterval
        ``(low, high)`` at ``level`` by ``method``.
    method : str
        Interval method of :attr:`interval`.
    level : float
        Confidence level of :attr:`interval`.
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
    >>> bool(res.interval.low < res.estimate < res.interval.high)
    True
    """

    metric: str
    estimate: float
    interval: ConfidenceInterval
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
        interval, here :attr:`interval` unless ``method`` or ``level`` asks for
        another one (computed by :meth:`confidence_interval`, nothing is
        resampled).  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``method`` and ``level`` of the interval drawn (default: those of
            :attr:`interval`) and ``bins`` of the histogram (as in
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


@dataclass(frozen=True, eq=False)
class MetricComparison(MetricResultMixin):
    """Paired bootstrap comparison of two predictions under one metric; immutable.

    Returned by :func:`compare_metrics`.  The difference ``a - b`` was computed
    on the same replicates for both predictions; other intervals of it come
    from those replicates through :meth:`confidence_interval`.

    Attributes
    ----------
    metric : str
        Name of the metric.
    estimate : float
        ``estimate_a - estimate_b`` on the original data.
    estimate_a, estimate_b : float
        The metric of each prediction on the original data.
    interval : ConfidenceInterval
        Interval for the difference at ``level`` by ``method``.
    p_value : float
        Two-sided bootstrap p-value for "no difference" (see
        :func:`compare_metrics`).
    method : str
        Interval method of :attr:`interval`.
    level : float
        Confidence level of :attr:`interval`.
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
    >>> round(cmp.estimate, 3), 0 < cmp.p_value <= 1
    (0.251, True)
    """

    metric: str
    estimate: float
    estimate_a: float
    estimate_b: float
    interval: ConfidenceInterval
    p_value: float
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
        for :attr:`interval` unless ``method`` or ``level`` asks for another
        one), with a dashed line at 0 labelled with :attr:`p_value`.  Needs
        matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``method`` and ``level`` of the interval drawn (default: those of
            :attr:`interval`) and ``bins`` of the histogram (as in
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
        line = (0.0, f"no difference (p = {self.p_value:.3g})")
        return plot_metric_result(self, ax, kwargs, reference=line)


# --------------------------------------------------------------------------- #
# Public entry points                                                           #
# --------------------------------------------------------------------------- #
