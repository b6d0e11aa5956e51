"""The model confidence set of Hansen, Lunde & Nason (2011)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar, Literal

import numpy as np

from skboot._kernels.multiple_comparison import (
    mcs_max,
    mcs_r_counts,
    mcs_r_order,
    pair_variances,
)
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import LEVEL, Constraint, Options, value_error
from skboot.multiple_comparison._base import (
    PROCEDURE_PARAMS,
    Procedure,
    Provenance,
    alpha_of,
    provenance,
)
from skboot.multiple_comparison._exact import (
    ExactSums,
    exact_metric_sums,
    exact_replicates,
    mcs_max_exact,
)
from skboot.multiple_comparison._inputs import (
    check_losses,
    constant_difference_error,
    split_models,
)
from skboot.multiple_comparison._results import MCSResult
from skboot.resamplers import BaseResampler

__all__ = ["MCS", "mcs_steps"]

#: The MCS statistics of Hansen, Lunde & Nason (2011): range and max.
STATISTICS = ("R", "max")


def mcs_steps(
    est: np.ndarray, C: np.ndarray, statistic: str, exact: ExactSums | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Elimination order, raw p-value and statistic per model (in elimination
    order; the survivor last with p-value 1, statistic NaN), and the first
    model whose standard deviation vanished (-1 if none).  With ``exact``, the
    statistics are formed from its integer sums (ties decided exactly)."""
    k = est.shape[0]
    if statistic == "max":
        done = None if exact is None else mcs_max_exact(exact.S, exact.c)
        if done is not None:
            return done
        order, pvals, stats, bad = mcs_max(est, C)
        return order, pvals, stats, int(bad)
    B = C.shape[0]
    if exact is not None and B * (2.0 * np.max(np.abs(exact.c))) ** 2 > 2.0**53:
        exact = None  # the sums of squares would round
    V = pair_variances(C if exact is None else exact.c)
    sd = np.sqrt(V)
    with np.errstate(divide="ignore", invalid="ignore"):
        if exact is None:
            t = (est[:, None] - est[None, :]) / sd
        else:  # integer differences times one factor per pair
            w = (1.0 / sd) / exact.T
            t = (exact.S[:, None] - exact.S[None, :]) * w
            C = exact.c
    off = ~np.eye(k, dtype=bool)
    if not (sd[off] > 0).all():
        i = int(np.argwhere(off & ~(sd > 0))[0, 0])
        return np.arange(k), np.ones(k), np.full(k, np.nan), i
    order, stats = mcs_r_order(t)
    scale = 1.0 / sd if exact is None else w
    inv = np.ascontiguousarray(scale[np.ix_(order, order)])
    counts = mcs_r_counts(np.ascontiguousarray(C), order, inv, stats)
    pvals = np.ones(k)
    pvals[: k - 1] = counts / C.shape[0]
    return order, pvals, np.append(stats, np.nan), -1


class MCS(Procedure):
    """Model confidence set (Hansen, Lunde & Nason 2011).

    The set of models that contains the best one (lowest expected loss) with
    probability at least ``level``.  Starting from all ``k`` models, each
    step tests equal predictive ability of the remaining models with a
    bootstrap statistic, and eliminates the worst one when rejected; a model's
    MCS p-value is the largest step p-value up to its elimination, and the
    models with p-value above ``1 - level`` form the set.  Statistics
    (``statistic``),
    with ``c_b`` the centred replicate means (fused block means as in
    :class:`SPA`):

    * ``"R"`` (range): ``T_R = max_{i,j} (Lbar_i - Lbar_j) / sd_ij`` with
      ``sd_ij**2 = mean_b (c_bi - c_bj)**2``; eliminates the model of the row
      holding the maximum.  All steps come from one pass over the replicates
      (a suffix maximum in elimination order): O(B k**2 / 2), memory O(k**2).
    * ``"max"``: ``T_max = max_i (Lbar_i - Lbar_.) / sd_i`` with ``Lbar_.`` the
      mean over the remaining models and ``sd_i`` from the replicates
      re-centred at their cross-model mean; eliminates the argmax (all tied
      models at once).  O(B m) per step.

    Memory: O(T k) for the prefix sums of the losses, O(B k) for the replicate
    means and O(k**2) for the pairwise variances.

    Parameters
    ----------
    level : float, default=0.95
        Confidence level in (0, 1): the set holds the best model with
        probability at least ``level`` (arch's ``size`` is ``1 - level``).
    statistic : {"R", "max"}, default="R"
        The statistic (arch's ``method``).
    n_resamples : int or None, default=None
        Number of bootstrap replicates (arch's ``reps``).  None: the
        ``n_resamples`` of a resampler instance, else 9999.
    block_length : "auto", int or float, default="auto"
        Block length (arch's ``block_size``); ``"auto"`` uses
        :func:`skboot.optimal_block_length` on each model's loss minus the
        cross-model mean loss (largest over models).  arch's default is
        ``int(sqrt(T))``.
    resampler : None, {"stationary", "circular", "moving"} or resampler, \
default=None
        As for :class:`SPA` (arch's ``bootstrap``).
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams (arch's ``seed``).
    n_jobs : int, default=None
        Parallel replicate chunks (joblib); results do not depend on it.

    See Also
    --------
    SPA : Whether any model beats a given benchmark.
    StepM : Which models beat a given benchmark.

    Notes
    -----
    Mapping from ``arch.bootstrap.MCS(losses, size, reps, block_size, method,
    bootstrap, seed)``: ``MCS(1 - size, statistic=method, n_resamples=reps,
    block_length=block_size, resampler=..., random_state=seed).compute(losses)``
    whose ``pvalues``, ``included`` and ``excluded`` match arch's (``pvalues`` is
    a Series named "pvalue" instead of a DataFrame with a "Pvalue" column).
    Every model has a p-value, the survivor 1 (arch pull request 96).  Two models
    whose losses differ by a constant are refused (their difference cannot be
    studentized); arch divides by zero.  On integer-valued losses the
    statistics are formed from exact integer sums (ties decided as exact
    arithmetic decides them).

    References
    ----------
    .. [1] P. R. Hansen, A. Lunde and J. M. Nason, "The model confidence set",
           Econometrica 79(2), 453-497, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import MCS
    >>> rng = np.random.default_rng(0)
    >>> losses = rng.chisquare(5, (500, 6)) + np.array([0, 0.1, 0.2, 1.5, 2, 3])
    >>> mcs = MCS(0.9, n_resamples=1000, block_length=10, random_state=0)
    >>> res = mcs.compute(losses)
    >>> res.included
    [0, 1, 2]
    >>> res.pvalues.round(3).to_dict()
    {5: 0.0, 4: 0.0, 3: 0.0, 1: 0.153, 2: 0.153, 0: 1.0}
    """

    _params: ClassVar[dict[str, list[Constraint]]] = {
        **PROCEDURE_PARAMS,
        "level": [LEVEL],
        "statistic": [Options(STATISTICS)],
    }

    def __init__(
        self,
        level: float = 0.95,
        *,
        statistic: str = "R",
        n_resamples: int | None = None,
        block_length: float | Literal["auto"] = "auto",
        resampler: str | BaseResampler | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
    ) -> None:
        super().__init__(
            n_resamples=n_resamples,
            block_length=block_length,
            resampler=resampler,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.level = level
        self.statistic = statistic

    def _result(
        self,
        est: np.ndarray,
        C: np.ndarray,
        labels: list[Hashable],
        prov: Provenance,
        param: str,
        exact: ExactSums | None = None,
    ) -> MCSResult:
        level = float(self.level)
        order, raw, stats, bad = mcs_steps(est, C, self.statistic, exact)
        if bad >= 0:
            raise value_error(
                param,
                self._owner,
                f"gives model {labels[bad]!r} a bootstrap standard deviation of 0 "
                "(its losses do not vary relative to the other models'), so the "
                "MCS statistic is undefined. Drop that model.",
            )
        pvals = np.maximum.accumulate(raw)
        keep = np.empty(len(labels), dtype=bool)
        keep[order] = pvals > alpha_of(level)
        return MCSResult(
            included=[lab for lab, k in zip(labels, keep, strict=True) if k],
            excluded=[lab for lab, k in zip(labels, keep, strict=True) if not k],
            level=level,
            statistic_name=self.statistic,
            provenance=prov,
            labels=tuple(labels),
            _order=order,
            _pvalues=pvals,
            _stats=stats,
            _losses=est,
        )

    def compute(self, losses: ArrayLike) -> MCSResult:
        """Compute the model confidence set of loss series.

        Parameters
        ----------
        losses : array-like of shape (T, k)
            Losses of ``k >= 2`` models, one column each (DataFrame column
            names label the results).

        Returns
        -------
        MCSResult
            The MCS p-values, the included and the excluded models.
        """
        self._validate()
        owner = self._owner
        data = check_losses(losses, owner)
        L = data.values
        err = constant_difference_error(L, data.labels, "losses", owner, "losses")
        if err is not None:
            raise err
        rel = L - L.mean(axis=1, keepdims=True)
        fitted = self._loss_resampler(rel)
        exact = exact_replicates(L, fitted, int(fitted.n_resamples), self.n_jobs)
        if exact is None:
            est, C = self._loss_replicates(L, fitted)
        else:
            est, C = exact.means, exact.centred
        prov = provenance(fitted, fitted.n_resamples)
        return self._result(est, C, data.labels, prov, "losses", exact)

    def compute_metric(
        self,
        y_true: ArrayLike,
        predictions: ArrayLike,
        metric: str,
        *,
        sample_weight: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        stratify: bool = False,
        undefined: str = "raise",
        **metric_options: Any,
    ) -> MCSResult:
        """The model confidence set of ``k`` models under a whole-sample metric.

        Replicate ``b`` draws one set of rows (the same for every model) and
        evaluates the fused metric of :func:`skboot.metric_ci` for each model;
        the "loss" of a model is its metric, negated when larger is better, so
        the set holds the models with the best ROC AUC, F1, ... as well as the
        lowest log loss.  Cost: one metric kernel call per model and replicate,
        O(n) each; memory O(chunk * n + B * k).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Targets of the held-out set.
        predictions : 2-D array, DataFrame, list or dict
            Each model's predictions: one column per model (DataFrame columns
            label the results), or a list / dict name -> array (for multiclass
            probabilities).
        metric : str
            A fused metric name of :func:`skboot.metric_ci`.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, multiplied by the bootstrap counts.
        groups : array-like of shape (n_samples,), default=None
            Cluster labels: resample whole clusters.
        stratify : bool, default=False
            Keep the class counts of ``y_true`` in every replicate.
        undefined : {"raise", "omit"}, default="raise"
            As in :meth:`SPA.compute_metric`.
        **metric_options : dict
            Options of the metric (``average=``, ``labels=``, ...).

        Returns
        -------
        MCSResult
            The MCS p-values, the included and the excluded models.
        """
        self._validate(stratify=stratify, undefined=undefined)
        owner = self._owner
        if predictions is not None:
            n_models = len(split_models(predictions, "predictions", owner))
            if n_models < 2:
                raise value_error(
                    "predictions",
                    owner,
                    f"must hold at least 2 models. Got {n_models} instead.",
                )
        run = self._metric_run(
            y_true,
            [("predictions", predictions)],
            metric,
            metric_options,
            sample_weight,
            groups,
            stratify,
            undefined,
        )
        labels = run.preds.labels
        sign = -1.0 if run.preds.greater_is_better else 1.0
        est = sign * run.estimates
        Lstar = sign * run.replicates
        err = constant_difference_error(
            Lstar, labels, "predictions", owner, f"{metric} replicates"
        )
        if err is not None:
            raise err
        exact = exact_metric_sums(est, Lstar, run.n_rows)
        if exact is None:
            C = np.ascontiguousarray(Lstar - est)
        else:
            est, C = exact.means, exact.centred
        prov = provenance(run.resampler, C.shape[0], run.n_undefined)
        return self._result(est, C, labels, prov, "predictions", exact)
