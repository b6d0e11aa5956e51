"""Frozen results of the multiple-comparison procedures."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from skboot._validation import check_one_of, param_error
from skboot.multiple_comparison._base import Provenance
from skboot.multiple_comparison._exact import above_quantile

__all__ = ["PVALUE_TYPES", "MCSResult", "SPAResult", "StepMResult"]

#: The three recentrings of Hansen (2005), in arch's order.
PVALUE_TYPES = ("lower", "consistent", "upper")


def _check_pvalue(value: Any, owner: str, name: str = "pvalue") -> float:
    ok = isinstance(value, int | float | np.floating) and not isinstance(
        value, bool | np.bool_
    )
    if not ok or not 0.0 < float(value) < 1.0:
        raise param_error(name, owner, "a real number in (0, 1)", value)
    return float(value)


#: Lists, tuples and dicts longer than this are summarized in a result's repr.
_REPR_ITEMS = 8


def _summary(value: Any) -> str:
    """A short text for a repr: arrays by shape, long containers by length."""
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict):
        items = [f"{k!r}: {_summary(v)}" for k, v in value.items()]
        if len(items) > _REPR_ITEMS:
            items = [*items[: _REPR_ITEMS - 1], f"... ({len(items)} in all)"]
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple) and len(value) > _REPR_ITEMS:
        head = ", ".join(repr(v) for v in value[: _REPR_ITEMS - 1])
        return f"[{head}, ... ({len(value)} in all)]"
    return repr(value)


def _short_repr(obj: Any, **fields: Any) -> str:
    body = ", ".join(f"{name}={_summary(v)}" for name, v in fields.items())
    return f"{type(obj).__name__}({body})"


class _PlotPvalues:
    """The ``plot`` method shared by the three results."""

    def plot(self, **kwargs: Any) -> Any:
        """Plot every model's p-value against the size.

        Parameters
        ----------
        **kwargs : dict
            ``ax``, ``size``, ``pvalue_type``: see
            :func:`skboot.multiple_comparison.plot_pvalues`.

        Returns
        -------
        ax : matplotlib Axes
            One bar per model and the size line.
        """
        from skboot.multiple_comparison._plot import plot_pvalues

        return plot_pvalues(self, **kwargs)


@dataclass(frozen=True, eq=False)
class SPAResult(_PlotPvalues):
    """Result of :class:`SPA` (and :class:`RealityCheck`).

    Loss differentials are ``d_k = L_benchmark - L_k`` (positive: model ``k`` beat
    the benchmark); for metrics, the metric difference oriented the same way.

    Attributes
    ----------
    labels : tuple
        The models' labels (column names, or positions), in column order.
    pvalues : Series
        The lower, consistent and upper p-values (index ``"lower"``,
        ``"consistent"``, ``"upper"``), as arch's ``SPA.pvalues``.  The upper
        p-value of the unstudentized test is White's (2000) Reality Check.
    pvalue : float
        The p-value of type ``pvalue_type``.
    pvalue_type : str
        ``"consistent"`` for SPA (Hansen's recommendation), ``"upper"`` for
        RealityCheck.
    statistic : float
        ``max_k t_k``.
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
    simulated : ndarray of shape (n_resamples, 3)
        Per replicate, ``max_k Z*_bk / se_k`` under each recentering.
    model_pvalues : DataFrame
        Single-step max-T adjusted p-value of each model (rows) under each
        recentering (columns): ``#{b : simulated[b] > t_k} / B``.
    studentize : bool
        Whether the statistics are studentized.
    variance : str
        ``"asymptotic"`` or ``"bootstrap"``.
    n_observations : int
        ``T``: rows of the losses (of ``y_true`` for metrics).
    provenance : Provenance
        How the replicates were drawn.

    See Also
    --------
    SPA : The test that returns it (and :class:`RealityCheck`).
    plot_pvalues : The models' p-values as bars.

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
    >>> res.pvalue < 0.05, res.better_models(0.05)
    (True, [2])
    >>> res.statistics.index.tolist()
    [0, 1, 2, 3]
    """

    labels: tuple[Hashable, ...]
    pvalue_type: str
    statistic: float
    simulated: np.ndarray
    studentize: bool
    variance: str
    n_observations: int
    provenance: Provenance
    _pvalues: np.ndarray = field(repr=False)
    _t: np.ndarray = field(repr=False)
    _dbar: np.ndarray = field(repr=False)
    _omega2: np.ndarray = field(repr=False)
    _se: np.ndarray = field(repr=False)
    _relevant: np.ndarray = field(repr=False)
    _model_p: np.ndarray = field(repr=False)
    _units: float = field(default=1.0, repr=False)

    def __repr__(self) -> str:
        return _short_repr(
            self,
            pvalue_type=self.pvalue_type,
            pvalues=dict(zip(PVALUE_TYPES, self._pvalues.tolist(), strict=True)),
            statistic=self.statistic,
            labels=self.labels,
            simulated=self.simulated,
            studentize=self.studentize,
            variance=self.variance,
            n_observations=self.n_observations,
            n_resamples=self.provenance.n_resamples,
        )

    # pandas views, built on first access (compute builds none)
    def _series(self, values: np.ndarray, name: str) -> pd.Series:
        return pd.Series(values, index=pd.Index(list(self.labels)), name=name)

    @cached_property
    def pvalues(self) -> pd.Series:
        return pd.Series(self._pvalues, index=list(PVALUE_TYPES))

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

    @cached_property
    def model_pvalues(self) -> pd.DataFrame:
        return pd.DataFrame(
            self._model_p, index=pd.Index(list(self.labels)), columns=PVALUE_TYPES
        )

    @property
    def pvalue(self) -> float:
        return float(self._pvalues[PVALUE_TYPES.index(self.pvalue_type)])

    def critical_values(self, pvalue: float = 0.05) -> pd.Series:
        """Data-dependent critical values of ``max_k t_k`` for the three types.

        Parameters
        ----------
        pvalue : float, default=0.05
            Size in (0, 1); the critical value is the ``1 - pvalue`` quantile
            (numpy's linear interpolation, as arch) of ``simulated``.

        Returns
        -------
        Series
            Indexed by ``"lower"``, ``"consistent"``, ``"upper"``.
        """
        p = _check_pvalue(pvalue, "SPAResult.critical_values")
        crit = np.percentile(self.simulated, 100.0 * (1.0 - p), axis=0)
        return pd.Series(crit, index=list(PVALUE_TYPES))

    def better_models(
        self, pvalue: float = 0.05, pvalue_type: str = "consistent"
    ) -> list[Hashable]:
        """Return the models whose ``t_k`` exceeds the critical value.

        Their nulls (no better than the benchmark) are rejected by the
        single-step test (arch's ``better_models``).

        Parameters
        ----------
        pvalue : float, default=0.05
            Size in (0, 1).
        pvalue_type : {"lower", "consistent", "upper"}, default="consistent"
            The recentering whose critical value is used.

        Returns
        -------
        list
            Labels (column names, or positions) in column order.
        """
        check_one_of(
            pvalue_type, "pvalue_type", "SPAResult.better_models", PVALUE_TYPES
        )
        p = _check_pvalue(pvalue, "SPAResult.better_models")
        j = PVALUE_TYPES.index(pvalue_type)
        sim, t = self.simulated[:, j], self._t
        if self._units != 1.0:  # integer sums over units: compare the integers
            sim, t = np.rint(sim * self._units), np.rint(t * self._units)
        keep = above_quantile(t, sim, p)
        return [lab for lab, k in zip(self.labels, keep, strict=True) if k]


@dataclass(frozen=True, eq=False)
class StepMResult(_PlotPvalues):
    """Result of :class:`StepM`.

    The models selected by the stepdown, step by step, with the critical value
    of every step and each model's stepdown-adjusted p-value.

    Attributes
    ----------
    superior_models : list
        Models found better than the benchmark with familywise error rate at
        most ``size`` (labels in column order), as arch's
        ``StepM.superior_models``.
    steps : list of list
        The models selected at each step of the stepdown.
    critical_values : list of float
        The critical value used at each step (the last one selected nothing,
        unless every model was selected).
    pvalues : Series
        Stepdown-adjusted p-value of each model (Romano & Wolf 2005, 2016): the
        smallest size at which the stepdown would select it, up to the
        discreteness of the B replicates.
    size : float
        The familywise error rate.
    pvalue_type : str
        Recentering of the null distribution (``"consistent"``, as arch).
    spa : SPAResult
        The first step: the SPA test on all models.
    provenance : Provenance
        How the replicates were drawn (``spa.provenance``).

    See Also
    --------
    StepM : The procedure that returns it.
    plot_pvalues : The models' adjusted p-values as bars.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import StepM
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 300)
    >>> models = rng.chisquare(5, (300, 4))
    >>> models[:, [1, 3]] -= 1.5  # two models with lower losses
    >>> res = StepM(0.05, block_length=5, n_resamples=200, random_state=0).compute(
    ...     benchmark, models)
    >>> res.superior_models, bool(res.pvalues[1] <= 0.05)
    ([1, 3], True)
    """

    superior_models: list[Hashable]
    steps: list[list[Hashable]]
    critical_values: list[float]
    size: float
    pvalue_type: str
    spa: SPAResult
    _adjusted: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return _short_repr(
            self,
            superior_models=self.superior_models,
            steps=self.steps,
            critical_values=self.critical_values,
            size=self.size,
            pvalue_type=self.pvalue_type,
            n_resamples=self.spa.provenance.n_resamples,
        )

    @cached_property
    def pvalues(self) -> pd.Series:
        return self.spa._series(self._adjusted, "pvalue")

    @property
    def provenance(self) -> Provenance:
        """How the replicates were drawn (``spa.provenance``)."""
        return self.spa.provenance


@dataclass(frozen=True, eq=False)
class MCSResult(_PlotPvalues):
    """Result of :class:`MCS`.

    The models in the confidence set, the eliminated ones, and every model's
    MCS p-value in elimination order.

    Attributes
    ----------
    pvalues : Series
        MCS p-value of every model, in elimination order (the survivor last,
        with p-value 1), named ``"pvalue"``; arch's ``MCS.pvalues["Pvalue"]``.
    included : list
        Models in the confidence set (p-value > size), in column order.
    excluded : list
        Models eliminated (p-value <= size), in column order.
    statistics : Series
        The test statistic of the step that eliminated each model (NaN for the
        survivor), same order as ``pvalues``.
    size : float
        The test size: models with p-value above it are in the set.
    method : str
        ``"R"`` or ``"max"``.
    losses : Series
        The mean loss of each model (minus the signed metric for metrics).
    labels : tuple
        The models' labels (column names, or positions), in column order.
    provenance : Provenance
        How the replicates were drawn.

    See Also
    --------
    MCS : The procedure that returns it.
    plot_pvalues : The models' MCS p-values as bars.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import MCS
    >>> rng = np.random.default_rng(0)
    >>> losses = rng.chisquare(5, (300, 4)) + np.array([0.0, 0.1, 2.0, 3.0])
    >>> res = MCS(0.1, block_length=5, n_resamples=200, random_state=0).compute(
    ...     losses)
    >>> res.included, res.excluded
    ([0, 1], [2, 3])
    >>> float(res.pvalues.iloc[-1])
    1.0
    """

    included: list[Hashable]
    excluded: list[Hashable]
    size: float
    method: str
    provenance: Provenance
    labels: tuple[Hashable, ...] = field(repr=False)
    _order: np.ndarray = field(repr=False)
    _pvalues: np.ndarray = field(repr=False)
    _stats: np.ndarray = field(repr=False)
    _losses: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return _short_repr(
            self,
            included=self.included,
            excluded=self.excluded,
            size=self.size,
            method=self.method,
            pvalues=dict(
                zip(
                    (self.labels[int(i)] for i in self._order),
                    self._pvalues.tolist(),
                    strict=True,
                )
            ),
            n_resamples=self.provenance.n_resamples,
        )

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
