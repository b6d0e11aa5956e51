"""Frozen results of the multiple-comparison procedures."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from skboot._results import Result
from skboot._typing import SeedRecord
from skboot._validation import LEVEL, Constraint, Options, validate_params
from skboot.multiple_comparison._base import Provenance, alpha_of
from skboot.multiple_comparison._exact import above_quantile

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["PVALUE_TYPES", "MCSResult", "SPAResult", "StepMResult"]

#: The three recentrings of Hansen (2005), in arch's order.
PVALUE_TYPES = ("lower", "consistent", "upper")


#: The arguments of the SPA result's queries (arch's names).
_QUERIES: dict[str, list[Constraint]] = {
    "level": [LEVEL],
    "pvalue_type": [Options(PVALUE_TYPES)],
}


class _ModelResult(Result):
    """What the three results share: the provenance fields of every result that
    resampled, one row per model in ``to_frame`` and the p-value plot."""

    __slots__ = ()

    @property
    def n_resamples(self) -> int:
        """Replicates used (after dropping undefined ones for metrics)."""
        return int(self.provenance.n_resamples)  # type: ignore[attr-defined]

    @property
    def n_undefined(self) -> int:
        """Metric replicates dropped with ``undefined="omit"``."""
        return int(self.provenance.n_undefined)  # type: ignore[attr-defined]

    @property
    def random_state(self) -> SeedRecord:
        """Pass as ``random_state`` to repeat the run."""
        return self.provenance.random_state  # type: ignore[attr-defined]

    @property
    def stream_version(self) -> int:
        """:data:`skboot.STREAM_VERSION` of the replicates."""
        return int(self.provenance.stream_version)  # type: ignore[attr-defined]

    def plot(
        self,
        ax: Axes | None = None,
        *,
        level: float | None = None,
        pvalue_type: str | None = None,
    ) -> Axes:
        """Plot every model's p-value against ``1 - level``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is made if None.
        level : float, default=None
            Confidence level of the line at ``1 - level``; None: the result's.
        pvalue_type : {"lower", "consistent", "upper"}, default=None
            SPA results only: which recentering's p-values.

        Returns
        -------
        ax : matplotlib Axes
            One bar per model and the ``1 - level`` line.

        See Also
        --------
        skboot.multiple_comparison.plot_pvalues : The same drawing.
        """
        from skboot.multiple_comparison._plot import plot_pvalues

        return plot_pvalues(self, ax=ax, level=level, pvalue_type=pvalue_type)


@dataclass(frozen=True, eq=False, repr=False)
class SPAResult(_ModelResult):
    """Result of :class:`SPA` (and :class:`RealityCheck`).

    Loss differentials are ``d_k = L_benchmark - L_k`` (positive: model ``k`` beat
    the benchmark); for metrics, the metric difference oriented the same way.

    Attributes
    ----------
    labels : tuple
        The models' labels (column names, or positions), in column order.
    pvalue_type : str
        ``"consistent"`` for SPA (Hansen's recommendation), ``"upper"`` for
        RealityCheck.
    pvalue : float
        The p-value of type ``pvalue_type``.
    statistic : float
        ``max_k t_k``.
    null_distribution : ndarray of shape (n_resamples, 3)
        Per replicate, ``max_k Z*_bk / se_k`` under each recentering (lower,
        consistent, upper).
    studentize : bool
        Whether the statistics are studentized.
    variance : str
        ``"asymptotic"`` or ``"bootstrap"``.
    n_observations : int
        ``T``: rows of the losses (of ``y_true`` for metrics).
    provenance : Provenance
        How the replicates were drawn.
    pvalues_by_type : Series
        The lower, consistent and upper p-values (index ``"lower"``,
        ``"consistent"``, ``"upper"``), as arch's ``SPA.pvalues``.  The upper
        p-value of the unstudentized test is White's (2000) Reality Check.
    pvalues : DataFrame
        Single-step max-T adjusted p-value of each model (rows) under each
        recentering (columns): ``#{b : null_distribution[b] > t_k} / B``.
    statistics : Series
        Per model ``t_k = dbar_k / se_k`` when studentized, else ``dbar_k``.
    loss_differentials : Series
        ``dbar_k``, the mean loss differential (metric difference) per model.
    variances : Series
        ``omega_k**2``, the variance of ``sqrt(T) dbar_k`` (arch's
        ``_loss_diff_var``; ``T`` times the bootstrap variance for metrics).
    standard_errors : Series
        ``se_k = sqrt(omega_k**2 / T)``.
    relevant : Series of bool
        The models kept near the null by the consistent recentering,
        ``dbar_k >= -sqrt(se_k**2 * 2 log log T)``.
    n_resamples, n_undefined, random_state, stream_version
        From ``provenance``.

    See Also
    --------
    SPA : The test that returns it (and :class:`RealityCheck`).
    plot_pvalues : The models' p-values as bars.

    Notes
    -----
    :meth:`to_frame` has one row per model: ``label``, ``loss_differential``,
    ``standard_error``, ``statistic``, ``relevant`` and ``pvalue`` (the model's
    adjusted p-value of type ``pvalue_type``).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import SPA
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 300)
    >>> models = rng.chisquare(5, (300, 4))
    >>> models[:, 2] -= 1.0  # model 2 has lower losses than the benchmark
    >>> res = SPA(block_length=5, n_resamples=200, random_state=0).compute(
    ...     benchmark, models)
    >>> res.pvalue < 0.05, res.better_models(0.95)
    (True, [2])
    >>> res.to_frame()["label"].tolist()
    [0, 1, 2, 3]
    """

    labels: tuple[Hashable, ...]
    pvalue_type: str
    pvalue: float
    statistic: float
    null_distribution: np.ndarray
    studentize: bool
    variance: str
    n_observations: int
    provenance: Provenance = field(repr=False)
    _pvalues_by_type: np.ndarray
    _t: np.ndarray
    _dbar: np.ndarray
    _omega2: np.ndarray
    _se: np.ndarray
    _relevant: np.ndarray
    _model_p: np.ndarray
    _units: float = 1.0

    # pandas views, built on first access (compute builds none)
    def _series(self, values: np.ndarray, name: str) -> pd.Series:
        return pd.Series(values, index=pd.Index(list(self.labels)), name=name)

    @cached_property
    def pvalues_by_type(self) -> pd.Series:
        return pd.Series(self._pvalues_by_type, index=list(PVALUE_TYPES))

    @cached_property
    def pvalues(self) -> pd.DataFrame:
        return pd.DataFrame(
            self._model_p, index=pd.Index(list(self.labels)), columns=PVALUE_TYPES
        )

    @cached_property
    def statistics(self) -> pd.Series:
        return self._series(self._t, "statistic")

    @cached_property
    def loss_differentials(self) -> pd.Series:
        return self._series(self._dbar, "loss_differential")

    @cached_property
    def variances(self) -> pd.Series:
        return self._series(self._omega2, "variance")

    @cached_property
    def standard_errors(self) -> pd.Series:
        return self._series(self._se, "standard_error")

    @cached_property
    def relevant(self) -> pd.Series:
        return self._series(self._relevant, "relevant")

    def _frame_rows(self) -> list[dict[str, Any]]:
        j = PVALUE_TYPES.index(self.pvalue_type)
        return [
            {
                "label": lab,
                "loss_differential": float(self._dbar[i]),
                "standard_error": float(self._se[i]),
                "statistic": float(self._t[i]),
                "relevant": bool(self._relevant[i]),
                "pvalue": float(self._model_p[i, j]),
            }
            for i, lab in enumerate(self.labels)
        ]

    def critical_values(self, level: float = 0.95) -> pd.Series:
        """Data-dependent critical values of ``max_k t_k`` for the three types.

        Parameters
        ----------
        level : float, default=0.95
            Confidence level in (0, 1) (a test of size ``1 - level``); the
            critical value is the ``level`` quantile (numpy's linear
            interpolation, as arch) of ``null_distribution``.

        Returns
        -------
        Series
            Indexed by ``"lower"``, ``"consistent"``, ``"upper"``.
        """
        level = validate_params("SPAResult.critical_values", _QUERIES, level=level)[
            "level"
        ]
        p = alpha_of(level)
        crit = np.percentile(self.null_distribution, 100.0 * (1.0 - p), axis=0)
        return pd.Series(crit, index=list(PVALUE_TYPES))

    def better_models(
        self, level: float = 0.95, pvalue_type: str = "consistent"
    ) -> list[Hashable]:
        """Return the models whose ``t_k`` exceeds the critical value.

        Their nulls (no better than the benchmark) are rejected by the
        single-step test (arch's ``better_models``).

        Parameters
        ----------
        level : float, default=0.95
            Confidence level in (0, 1): the test has size ``1 - level``.
        pvalue_type : {"lower", "consistent", "upper"}, default="consistent"
            The recentering whose critical value is used.

        Returns
        -------
        list
            Labels (column names, or positions) in column order.
        """
        level = validate_params(
            "SPAResult.better_models", _QUERIES, level=level, pvalue_type=pvalue_type
        )["level"]
        p = alpha_of(level)
        j = PVALUE_TYPES.index(pvalue_type)
        sim, t = self.null_distribution[:, j], self._t
        if self._units != 1.0:  # integer sums over units: compare the integers
            sim, t = np.rint(sim * self._units), np.rint(t * self._units)
        keep = above_quantile(t, sim, p)
        return [lab for lab, k in zip(self.labels, keep, strict=True) if k]


@dataclass(frozen=True, eq=False, repr=False)
class StepMResult(_ModelResult):
    """Result of :class:`StepM`.

    The models selected by the stepdown, step by step, with the critical value
    of every step and each model's stepdown-adjusted p-value.

    Attributes
    ----------
    superior_models : list
        Models found better than the benchmark with familywise error rate at
        most ``1 - level`` (labels in column order), as arch's
        ``StepM.superior_models``.
    steps : list of list
        The models selected at each step of the stepdown.
    critical_values : list of float
        The critical value used at each step (the last one selected nothing,
        unless every model was selected).
    level : float
        The confidence level: the familywise error rate is at most
        ``1 - level``.
    pvalue_type : str
        Recentering of the null distribution (``"consistent"``, as arch).
    spa : SPAResult
        The first step: the SPA test on all models.
    pvalues : Series
        Stepdown-adjusted p-value of each model (Romano & Wolf 2005, 2016): the
        smallest ``1 - level`` at which the stepdown would select it, up to the
        discreteness of the B replicates.
    provenance : Provenance
        How the replicates were drawn (``spa.provenance``).
    n_resamples, n_undefined, random_state, stream_version
        From ``provenance``.

    See Also
    --------
    StepM : The procedure that returns it.
    plot_pvalues : The models' adjusted p-values as bars.

    Notes
    -----
    :meth:`to_frame` has one row per model: ``label``, ``statistic``,
    ``pvalue`` (stepdown-adjusted), ``superior`` and ``step`` (the step that
    selected it, counted from 1; 0 if none did).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import StepM
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 300)
    >>> models = rng.chisquare(5, (300, 4))
    >>> models[:, [1, 3]] -= 1.5  # two models with lower losses
    >>> res = StepM(0.95, block_length=5, n_resamples=200, random_state=0).compute(
    ...     benchmark, models)
    >>> res.superior_models, bool(res.pvalues[1] <= 0.05)
    ([1, 3], True)
    """

    superior_models: list[Hashable]
    steps: list[list[Hashable]]
    critical_values: list[float]
    level: float
    pvalue_type: str
    spa: SPAResult = field(repr=False)
    _adjusted: np.ndarray

    @cached_property
    def pvalues(self) -> pd.Series:
        return self.spa._series(self._adjusted, "pvalue")

    @property
    def provenance(self) -> Provenance:
        """How the replicates were drawn (``spa.provenance``)."""
        return self.spa.provenance

    def _frame_rows(self) -> list[dict[str, Any]]:
        step = {lab: j + 1 for j, chosen in enumerate(self.steps) for lab in chosen}
        superior = set(self.superior_models)
        return [
            {
                "label": lab,
                "statistic": float(self.spa._t[i]),
                "pvalue": float(self._adjusted[i]),
                "superior": lab in superior,
                "step": step.get(lab, 0),
            }
            for i, lab in enumerate(self.spa.labels)
        ]


@dataclass(frozen=True, eq=False, repr=False)
class MCSResult(_ModelResult):
    """Result of :class:`MCS`.

    The models in the confidence set, the eliminated ones, and every model's
    MCS p-value in elimination order.

    Attributes
    ----------
    included : list
        Models in the confidence set (p-value > ``1 - level``), in column
        order.
    excluded : list
        Models eliminated (p-value <= ``1 - level``), in column order.
    level : float
        The confidence level: the set holds the best model with probability
        at least ``level``.
    statistic_name : str
        The statistic, ``"R"`` or ``"max"``.
    provenance : Provenance
        How the replicates were drawn.
    labels : tuple
        The models' labels (column names, or positions), in column order.
    pvalues : Series
        MCS p-value of every model, in elimination order (the survivor last,
        with p-value 1), named ``"pvalue"``; arch's ``MCS.pvalues["Pvalue"]``.
    statistics : Series
        The test statistic of the step that eliminated each model (NaN for the
        survivor), same order as ``pvalues``.
    losses : Series
        The mean loss of each model (minus the signed metric for metrics).
    n_resamples, n_undefined, random_state, stream_version
        From ``provenance``.

    See Also
    --------
    MCS : The procedure that returns it.
    plot_pvalues : The models' MCS p-values as bars.

    Notes
    -----
    :meth:`to_frame` has one row per model, in column order: ``label``,
    ``loss``, ``statistic``, ``pvalue``, ``included`` and ``eliminated`` (the
    step that eliminated it, counted from 1; 0 for the survivor).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import MCS
    >>> rng = np.random.default_rng(0)
    >>> losses = rng.chisquare(5, (300, 4)) + np.array([0.0, 0.1, 2.0, 3.0])
    >>> res = MCS(0.9, block_length=5, n_resamples=200, random_state=0).compute(
    ...     losses)
    >>> res.included, res.excluded
    ([0, 1], [2, 3])
    >>> float(res.pvalues.iloc[-1])
    1.0
    """

    included: list[Hashable]
    excluded: list[Hashable]
    level: float
    statistic_name: str
    provenance: Provenance = field(repr=False)
    labels: tuple[Hashable, ...] = field(repr=False)
    _order: np.ndarray
    _pvalues: np.ndarray
    _stats: np.ndarray
    _losses: np.ndarray

    def _eliminated_index(self) -> pd.Index:
        return pd.Index([self.labels[int(i)] for i in self._order])

    @cached_property
    def pvalues(self) -> pd.Series:
        return pd.Series(self._pvalues, index=self._eliminated_index(), name="pvalue")

    @cached_property
    def statistics(self) -> pd.Series:
        return pd.Series(self._stats, index=self._eliminated_index(), name="statistic")

    @cached_property
    def losses(self) -> pd.Series:
        return pd.Series(self._losses, index=pd.Index(list(self.labels)), name="loss")

    def _frame_rows(self) -> list[dict[str, Any]]:
        k = len(self.labels)
        rank = np.empty(k, dtype=np.int64)
        rank[self._order] = np.arange(k)
        included = set(self.included)
        return [
            {
                "label": lab,
                "loss": float(self._losses[i]),
                "statistic": float(self._stats[rank[i]]),
                "pvalue": float(self._pvalues[rank[i]]),
                "included": lab in included,
                "eliminated": 0 if rank[i] == k - 1 else int(rank[i]) + 1,
            }
            for i, lab in enumerate(self.labels)
        ]
