"""The result of :func:`skboot.wild_cluster_bootstrap` and the algebra it keeps:
``t*`` as an explicit function of the null value (module
``skboot.model_based._cluster`` states it), so p-values at other null values and
the interval by test inversion cost O(n_resamples) each, with the run's
multipliers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import ndtri

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._random import STREAM_VERSION
from skboot._results import Result, pyplot
from skboot._typing import SeedRecord
from skboot._validation import LEVEL, validate_params
from skboot.intervals import ConfidenceInterval
from skboot.model_based._cluster_inputs import FINITE_FLOAT, min_resamples_error

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["TIE_RTOL", "WildClusterResult", "null_histogram", "p_value", "tstar_at"]

#: A bootstrap t must exceed |t| by more than this (relative, at least 1e-10
#: absolute) to count as more extreme: the replicate that reproduces the data
#: (v = 1 under WCR) equals t up to rounding and is not counted.
TIE_RTOL = 1e-10


@dataclass(frozen=True, eq=False, repr=False)
class WildClusterResult(Result):
    """Outcome of :func:`wild_cluster_bootstrap`; immutable.

    It keeps the five per-replicate sums of the run, so :meth:`pvalue_at` tests
    another null value, and :meth:`confidence_interval` inverts the test, with
    the same multipliers in O(n_resamples) per null value.

    Attributes
    ----------
    estimate : float
        ``a' bhat`` (the coefficient, or the linear combination, tested).
    standard_error : float
        Its CRV1 cluster-robust standard error.
    statistic : float
        ``t = (estimate - null) / standard_error``.
    pvalue : float
        Bootstrap p-value of the test (see ``alternative``); NaN when ``t`` is
        undefined (zero standard error).
    null_distribution : ndarray of shape (n_resamples,)
        The bootstrap t statistics at the null, in replicate order.
    coef : ndarray of shape (k,)
        All OLS coefficients (intercept last when fitted).
    null : float
        The null value ``r`` of ``a' beta = r``.
    bootstrap : {"WCR", "WCU"}
        Restricted (null imposed) or unrestricted bootstrap.
    weights : str
        Law of the cluster multipliers.
    alternative : str
        The alternative of the test (and the sides of the interval).
    level : float
        Confidence level of the interval :meth:`confidence_interval` returns
        when called without a level.
    n_resamples : int
        Replicates used: ``2**G`` when the sign vectors were enumerated.
    enumerated : bool
        Whether the ``2**G`` Rademacher sign vectors were enumerated.
    n_clusters : int
        Number of clusters ``G`` (multiway clustering: of the clustering with
        the fewest).
    n_bootstrap_clusters : int
        Number of bootstrap clusters (one multiplier each): ``n_clusters``
        unless ``bootstrap_groups`` or multiway clustering set others.
    small_sample : str
        The small-sample factor of the cluster-robust variance.
    variance : {"crv1", "crv3"}
        The cluster-robust variance of the standard error and of every
        bootstrap ``t``.
    residuals : {"ordinary", "jackknife"}
        The residuals the bootstrap multiplied: those of the fit on all
        clusters, or the jackknifed leave-one-cluster-out ones.
    random_state : int, SeedSequence or None
        Reproduces the draws (None when enumerated: nothing is random).
    stream_version : int
        Version of the random streams that drew the multipliers.

    See Also
    --------
    wild_cluster_bootstrap : The function that returns it.
    ConfidenceInterval : The type :meth:`confidence_interval` returns.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import wild_cluster_bootstrap
    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(20), 10)
    >>> x = rng.normal(size=200)
    >>> y = 0.5 * x + rng.normal(size=200) + rng.normal(size=20)[g]
    >>> res = wild_cluster_bootstrap(x, y, g, n_resamples=999, random_state=0)
    >>> res.bootstrap, res.enumerated, res.n_resamples
    ('WCR', False, 999)
    >>> low, high = res.confidence_interval()
    >>> bool(low < res.estimate < high), res.pvalue_at(res.estimate) > 0.05
    (True, True)
    >>> list(res.to_frame().columns[:6])
    ['estimate', 'standard_error', 'statistic', 'pvalue', 'low', 'high']
    """

    estimate: float
    standard_error: float
    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    # shown by to_dict and to_frame, not by repr (which stays one short line)
    coef: np.ndarray = field(repr=False)
    null: float = 0.0
    bootstrap: str = "WCR"
    weights: str = "rademacher"
    alternative: str = "two-sided"
    level: float = 0.95
    n_resamples: int = 0
    enumerated: bool = field(default=False, repr=False)
    n_clusters: int = 0
    n_bootstrap_clusters: int = field(default=0, repr=False)
    small_sample: str = field(default="both", repr=False)
    variance: str = field(default="crv1", repr=False)
    residuals: str = field(default="ordinary", repr=False)
    random_state: SeedRecord = field(default=None, repr=False)
    stream_version: int = field(default=STREAM_VERSION, repr=False)
    _sums: np.ndarray = field(default_factory=lambda: np.empty((0, 5)))
    _aq: float = 1.0
    _c: float = 1.0

    @classmethod
    def _from_file_fields(cls, fields: dict[str, Any], where: Any) -> Any:
        """A record written before ``bootstrap_groups`` and ``small_sample``
        existed holds neither field: its run had the default factor and one
        multiplier per variance cluster; one written before ``variance``
        existed used CRV1, one written before ``residuals`` existed the
        ordinary residuals."""
        if "small_sample" not in fields and "n_bootstrap_clusters" not in fields:
            fields = {
                **fields,
                "small_sample": "both",
                "n_bootstrap_clusters": fields.get("n_clusters", 0),
            }
        if "variance" not in fields:
            fields = {**fields, "variance": "crv1"}
        if "residuals" not in fields:
            fields = {**fields, "residuals": "ordinary"}
        return super()._from_file_fields(fields, where)

    def pvalue_at(self, null: float) -> float:
        """Bootstrap p-value of ``a' beta = null`` with the run's multipliers.

        O(n_resamples); no new bootstrap.

        Parameters
        ----------
        null : float
            The null value ``r``, a finite number.

        Returns
        -------
        float
            The p-value under the run's ``alternative``; NaN, with an
            :class:`~skboot.UndefinedStatisticWarning`, when the run's ``t`` is
            undefined (zero standard error).

        Raises
        ------
        ValueError
            If ``null`` is not a finite real number.
        """
        owner = "WildClusterResult.pvalue_at"
        validate_params(owner, {"null": [FINITE_FLOAT]}, null=null)
        if not self.standard_error > 0.0:
            warn(
                f"{owner}: the run's standard error is zero (y is fitted exactly "
                "up to rounding), so t is undefined at every null value; the "
                "p-value is NaN.",
                UndefinedStatisticWarning,
            )
            return math.nan
        t, tstar = self._t_at(float(null))
        return p_value(t, tstar, self.alternative)

    def confidence_interval(self, level: float | None = None) -> ConfidenceInterval:
        """The interval obtained by inverting the test at ``level``.

        The null values whose p-value (:meth:`pvalue_at`, the run's
        ``alternative``) exceeds ``1 - level``, searched outward from the
        estimate by doubling steps and bisection to ``1e-10`` standard errors:
        O(n_resamples) per null value tried, no new bootstrap.  Each level's
        interval is computed once and then kept.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); None means the run's ``level``.  With
            drawn (not enumerated) replicates, at most ``1 - 1 / (n_resamples +
            1)`` (equal-tailed: ``1 - 2 / (n_resamples + 1)``): beyond it the
            test rejects only at ``p = 0``.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``, infinite on the open side of a one-sided test; NaN
            endpoints when ``t`` is undefined (zero standard error).

        Raises
        ------
        ValueError
            If ``level`` is not in (0, 1), or too high for the drawn replicates.
        """
        owner = "WildClusterResult.confidence_interval"
        if level is None:
            level = self.level
        level = validate_params(owner, {"level": [LEVEL]}, level=level)["level"]
        cache: dict[float, ConfidenceInterval] = self.__dict__.get("_intervals", {})
        if level not in cache:
            if not self.standard_error > 0.0:
                low, high = math.nan, math.nan
            else:
                error = None
                if not self.enumerated:
                    error = min_resamples_error(
                        self.n_resamples, level, self.alternative, owner
                    )
                if error is not None:
                    raise error
                low, high = _invert(self, 1.0 - level)
            cache[level] = ConfidenceInterval(
                low,
                high,
                estimate=self.estimate,
                level=level,
                alternative=self.alternative,
            )
            object.__setattr__(self, "_intervals", cache)
        return cache[level]

    # the outward search of an interval endpoint: at most this many doubling
    # steps, after which the endpoint is this value (undecided)
    _max_doublings = 80
    _unbounded = math.nan

    def _t_at(self, r: float) -> tuple[float, np.ndarray]:
        """Original and bootstrap t statistics for the null value ``r``."""
        t = (self.estimate - r) / self.standard_error
        delta = (self.estimate - r) / self._aq
        return t, tstar_at(self._sums, self._c, delta, self.bootstrap)

    def _frame_rows(self) -> list[dict[str, Any]]:
        """One row: the test, the interval at the run's level (NaN when the
        drawn replicates are too few for it) and the run's settings."""
        interval: tuple[Any, Any] | ConfidenceInterval = (math.nan, math.nan)
        if self.enumerated or (
            min_resamples_error(self.n_resamples, self.level, self.alternative, "")
            is None
        ):
            interval = self.confidence_interval()
        low, high = interval
        return [
            {
                "estimate": self.estimate,
                "standard_error": self.standard_error,
                "statistic": self.statistic,
                "pvalue": self.pvalue,
                "low": low,
                "high": high,
                "null": self.null,
                "level": self.level,
                "alternative": self.alternative,
                "bootstrap": self.bootstrap,
                "weights": self.weights,
                "n_resamples": self.n_resamples,
                "enumerated": self.enumerated,
                "n_clusters": self.n_clusters,
                "n_bootstrap_clusters": self.n_bootstrap_clusters,
                "small_sample": self.small_sample,
                "variance": self.variance,
                "residuals": self.residuals,
            }
        ]

    def to_frame(self) -> pd.DataFrame:
        """The result as a one-row pandas DataFrame.

        Returns
        -------
        DataFrame
            Columns ``estimate, standard_error, statistic, pvalue, low, high``
            (the interval at ``level``), then ``null, level, alternative,
            bootstrap, weights, n_resamples, enumerated, n_clusters,
            n_bootstrap_clusters, small_sample, variance, residuals``.
        """
        return super().to_frame()

    def plot(self, ax: Axes | None = None, **kwargs: str | float) -> Axes:
        """Histogram of the bootstrap t statistics at the null, and the observed t.

        Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; None draws on a new figure.
        **kwargs
            Passed to ``Axes.hist`` (``bins="auto"`` and ``density=True``
            unless given).

        Returns
        -------
        matplotlib Axes
            The Axes drawn on.
        """
        return null_histogram(
            ax,
            self.null_distribution,
            self.statistic,
            ("t", "bootstrap t at the null"),
            f"{self.bootstrap} wild cluster bootstrap ({self.n_clusters} clusters): "
            f"p = {self.pvalue:.3g}",
            kwargs,
        )


def tstar_at(sums: np.ndarray, c: float, delta: float, kind: str) -> np.ndarray:
    n0, n1, q0, q1, q2 = (sums[:, j] for j in range(5))
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "WCU":
            return n0 / np.sqrt(c * q0)
        den = c * (q0 + 2.0 * delta * q1 + delta * delta * q2)
        return (n0 + delta * n1) / np.sqrt(np.maximum(den, 0.0))


def p_value(t: float, tstar: np.ndarray, alternative: str) -> float:
    tol = TIE_RTOL * max(1.0, abs(t))
    if alternative == "two-sided":
        return float(np.mean(np.abs(tstar) > abs(t) + tol))
    up = float(np.mean(tstar > t + tol))
    down = float(np.mean(tstar < t - tol))
    if alternative == "greater":
        return up
    if alternative == "less":
        return down
    return min(1.0, 2.0 * min(up, down))


def _invert(res: WildClusterResult, alpha: float) -> tuple[float, float]:
    """Endpoints where the p-value falls to ``alpha``, searched outward from the
    estimate (doubling steps, then bisection to 1e-10 standard errors)."""
    est, se = res.estimate, res.standard_error

    def accepted(r: float) -> bool:
        t, tstar = res._t_at(r)
        return p_value(t, tstar, res.alternative) > alpha

    def endpoint(direction: float) -> float:
        if not accepted(est):
            return math.nan
        step = se * max(1.0, float(ndtri(1.0 - alpha / 2.0)))
        inner, outer = est, math.nan
        for _ in range(res._max_doublings):
            r = est + direction * step
            if not accepted(r):
                outer = r
                break
            inner = r
            step *= 2.0
        if math.isnan(outer):
            return direction * res._unbounded
        for _ in range(200):
            if abs(outer - inner) <= 1e-10 * se:
                break
            mid = 0.5 * (inner + outer)
            if accepted(mid):
                inner = mid
            else:
                outer = mid
        return 0.5 * (inner + outer)

    alt = res.alternative
    low = -math.inf if alt == "less" else endpoint(-1.0)
    high = math.inf if alt == "greater" else endpoint(1.0)
    return low, high


def null_histogram(
    ax: Axes | None,
    null_distribution: np.ndarray,
    statistic: float,
    names: tuple[str, str],
    title: str,
    kwargs: dict[str, Any],
) -> Axes:
    """The plot of a wild cluster test: a histogram of the finite bootstrap
    statistics (``names``: the statistic's symbol and the histogram's label) and
    a line at the observed one."""
    if ax is None:
        _, ax = pyplot().subplots(layout="constrained")
    finite = null_distribution[np.isfinite(null_distribution)]
    options: dict[str, Any] = {"bins": "auto", "density": True, **kwargs}
    if finite.size:
        ax.hist(finite, label=names[1], **options)
    if math.isfinite(statistic):
        ax.axvline(statistic, color="C3", label=f"{names[0]} = {statistic:.3g}")
    ax.set_xlabel(names[0])
    ax.set_title(title)
    ax.legend()
    return ax
