"""Superior predictive ability: Hansen's SPA test, White's Reality Check and the
StepM of Romano & Wolf, on loss series or on whole-sample metrics."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np

from skboot._kernels.multiple_comparison import stationary_variance
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import BOOL, Constraint, Options, value_error
from skboot.multiple_comparison._base import (
    PROCEDURE_PARAMS,
    MetricRun,
    Procedure,
    provenance,
)
from skboot.multiple_comparison._exact import (
    ExactSums,
    bootstrap_variance,
    exact_metric_sums,
    exact_replicates,
)
from skboot.multiple_comparison._inputs import (
    check_benchmark_models,
    constant_column_error,
)
from skboot.multiple_comparison._results import PVALUE_TYPES, SPAResult, StepMResult
from skboot.multiple_comparison._statistics import spa_parts
from skboot.resamplers import BaseResampler

__all__ = ["SPA", "RealityCheck"]

VARIANCES = ("auto", "asymptotic", "bootstrap")

_DOC_PARAMS = """
    n_resamples : int or None, default=None
        Number of bootstrap replicates ``B`` (arch's ``reps``).  None: the
        ``n_resamples`` of a resampler instance, else 9999.
    block_length : "auto", int or float, default="auto"
        Block length of the block schemes (arch's ``block_size``; mean length for
        the stationary bootstrap).  ``"auto"`` estimates it with
        :func:`skboot.optimal_block_length` from the loss differentials (the
        largest over models).  arch's default, ``int(sqrt(T))``, is not a
        default here: pass it explicitly to reproduce arch.
    resampler : None, {{"stationary", "circular", "moving"}} or resampler, \
default=None
        The bootstrap (arch's ``bootstrap``: ``"sb"``, ``"cbb"``, ``"mbb"``).  None
        is the stationary bootstrap for loss series (arch's default) and the iid
        bootstrap for :meth:`compute_metric` (stratified with ``stratify=True``,
        by cluster with ``groups``).  A skboot resampler instance (any scheme)
        is used with its own block length; ``n_resamples`` and ``random_state``
        follow the rules of :func:`skboot.bootstrap`: this object's values
        replace the instance's defaults (``n_resamples`` left at the class
        default, ``random_state=None``), None here uses the instance's values,
        and two different explicit values raise an error.
    studentize : bool, default={studentize}
        Divide every mean loss differential, and its bootstrap replicates, by its
        standard error (Hansen 2005).  See Notes for arch.
    variance : {{"auto", "asymptotic", "bootstrap"}}, default="auto"
        The variance ``omega_k**2`` of ``sqrt(T) dbar_k`` used to studentize and
        for the consistent recentering.  "asymptotic": the stationary-bootstrap
        formula of Politis & Romano (1994) with ``p = 1 / block_length`` (arch's
        default, ``nested=False``); "bootstrap": ``T`` times the variance of the
        ``B`` replicate means (arch's ``nested=True``, which reruns the same
        replicates).  "auto" is "asymptotic" for loss series and "bootstrap" for
        metrics (which have no loss series).
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams (arch's ``seed``).
    n_jobs : int, default=None
        Parallel replicate chunks (joblib); results do not depend on it."""


class _SPABase(Procedure):
    """Shared parameters and computations of SPA, RealityCheck and StepM."""

    _pvalue_type = "consistent"
    _params: ClassVar[dict[str, list[Constraint]]] = {
        **PROCEDURE_PARAMS,
        "studentize": [BOOL],
        "variance": [Options(VARIANCES)],
    }

    def __init__(
        self,
        *,
        n_resamples: int | None = None,
        block_length: float | Literal["auto"] = "auto",
        resampler: str | BaseResampler | None = None,
        studentize: bool = True,
        variance: str = "auto",
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
        self.studentize = studentize
        self.variance = variance

    # -- the two data paths -------------------------------------------------------
    def _from_losses(self, benchmark: Any, models: Any) -> dict[str, Any]:
        self._validate()
        owner = self._owner
        bm, losses = check_benchmark_models(benchmark, models, owner)
        D = bm[:, None] - losses.values
        if self.studentize:
            scale = np.max(np.abs(bm)) + np.max(np.abs(losses.values), axis=0)
            err = constant_column_error(
                D, scale, losses.labels, owner, "loss differential"
            )
            if err is not None:
                raise err
        fitted = self._loss_resampler(D)
        exact = exact_replicates(D, fitted, int(fitted.n_resamples), self.n_jobs)
        if exact is None:
            dbar, C = self._loss_replicates(D, fitted)
        else:
            dbar, C = exact.means, exact.centred
        T = D.shape[0]
        if self.variance == "bootstrap":
            omega2 = T * C.var(axis=0) if exact is None else bootstrap_variance(exact)
        else:
            L = getattr(fitted, "block_length_", None)
            p = 1.0 if L is None else 1.0 / float(L)
            omega2 = stationary_variance(np.ascontiguousarray(D - dbar), p)
        bad = np.flatnonzero(~(omega2 > 0.0))
        if self.studentize and bad.size:
            raise value_error(
                "models",
                owner,
                f"gives model "
                f"{losses.labels[int(bad[0])]!r} a loss-differential variance of "
                f"{float(omega2[bad[0]])!r} ({self.variance!r} variance), so it "
                "cannot be studentized. Pass variance='bootstrap', a longer "
                "block_length, or studentize=False.",
            )
        parts = spa_parts(dbar, C, omega2, T, bool(self.studentize), exact)
        parts.update(
            labels=losses.labels,
            provenance=provenance(fitted, fitted.n_resamples),
            T=T,
            variance=("bootstrap" if self.variance == "bootstrap" else "asymptotic"),
        )
        return parts

    def _from_metric(
        self,
        y_true: Any,
        benchmark: Any,
        models: Any,
        metric: Any,
        sample_weight: Any,
        groups: Any,
        stratify: Any,
        undefined: Any,
        options: dict[str, Any],
    ) -> dict[str, Any]:
        self._validate(stratify=stratify, undefined=undefined)
        owner = self._owner
        if self.variance == "asymptotic":
            raise value_error(
                "variance",
                owner,
                "must be 'auto' or 'bootstrap' for whole-sample metrics (the "
                "asymptotic formula needs a loss series). Got 'asymptotic' instead.",
            )
        run: MetricRun = self._metric_run(
            y_true,
            [("benchmark", benchmark), ("models", models)],
            metric,
            options,
            sample_weight,
            groups,
            stratify,
            undefined,
        )
        sign = 1.0 if run.preds.greater_is_better else -1.0
        est, M = run.estimates, run.replicates
        labels = run.preds.labels[1:]
        dbar = sign * (est[1:] - est[0])
        Dstar = sign * (M[:, 1:] - M[:, :1])
        if self.studentize:
            scale = np.max(np.abs(M[:, :1])) + np.max(np.abs(M[:, 1:]), axis=0)
            err = constant_column_error(
                Dstar,
                scale,
                labels,
                owner,
                f"{metric} difference to the benchmark",
                "its predictions score like the benchmark's on every replicate",
            )
            if err is not None:
                raise err
        T = run.n_rows
        exact = exact_metric_sums(est, M, T)
        if exact is None:
            C = np.ascontiguousarray(Dstar - dbar)
            omega2 = T * C.var(axis=0)
        else:
            S, N = sign * exact.S, sign * (exact.c + exact.S)
            exact = ExactSums(S[1:] - S[0], N[:, 1:] - N[:, :1] - (S[1:] - S[0]), T)
            dbar, C = exact.means, exact.centred
            omega2 = bootstrap_variance(exact)
        prov = provenance(run.resampler, C.shape[0], run.n_undefined)
        parts = spa_parts(dbar, C, omega2, T, bool(self.studentize), exact)
        parts.update(labels=labels, provenance=prov, T=T, variance="bootstrap")
        return parts

    def _result(self, parts: dict[str, Any]) -> SPAResult:
        by_type = parts["pvalues_by_type"]
        return SPAResult(
            labels=tuple(parts["labels"]),
            pvalue_type=self._pvalue_type,
            pvalue=float(by_type[PVALUE_TYPES.index(self._pvalue_type)]),
            statistic=float(parts["statistic"]),
            null_distribution=parts["null_distribution"],
            studentize=bool(self.studentize),
            variance=parts["variance"],
            n_observations=int(parts["T"]),
            provenance=parts["provenance"],
            _pvalues_by_type=by_type,
            _t=parts["t"],
            _dbar=parts["dbar"],
            _omega2=parts["omega2"],
            _se=parts["se"],
            _relevant=parts["relevant"],
            _model_p=parts["pvalues"],
            _units=float(parts["units"]),
        )

    def _finish(self, parts: dict[str, Any]) -> SPAResult | StepMResult:
        """The procedure's result from the SPA statistics."""
        return self._result(parts)

    def compute(
        self, benchmark: ArrayLike, models: ArrayLike
    ) -> SPAResult | StepMResult:
        """Run the procedure on loss series.

        Parameters
        ----------
        benchmark : array-like of shape (T,)
            Losses of the benchmark model (Series or 1-column DataFrame too).
        models : array-like of shape (T, k) or (T,)
            Losses of the ``k`` competing models, one column each (DataFrame
            column names label the results).

        Returns
        -------
        SPAResult or StepMResult
            :class:`SPAResult` for SPA and RealityCheck (the statistic, the
            three p-values and the per-model statistics); :class:`StepMResult`
            for StepM (the superior models, the steps and the adjusted
            p-values).
        """
        return self._finish(self._from_losses(benchmark, models))

    def compute_metric(
        self,
        y_true: ArrayLike,
        benchmark: ArrayLike,
        models: ArrayLike,
        metric: str,
        *,
        sample_weight: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        stratify: bool = False,
        undefined: str = "raise",
        **metric_options: Any,
    ) -> SPAResult | StepMResult:
        parts = self._from_metric(
            y_true,
            benchmark,
            models,
            metric,
            sample_weight,
            groups,
            stratify,
            undefined,
            metric_options,
        )
        return self._finish(parts)


_SPA_REFS = """
    References
    ----------
    .. [1] P. R. Hansen, "A test for superior predictive ability", Journal of
           Business & Economic Statistics 23(4), 365-380, 2005.
    .. [2] H. White, "A reality check for data snooping", Econometrica 68(5),
           1097-1126, 2000.
    .. [3] D. N. Politis and J. P. Romano, "The stationary bootstrap", Journal of
           the American Statistical Association 89(428), 1303-1313, 1994.
"""

_COMPUTE_METRIC_DOC = """Compare ``k`` models with a benchmark under a whole-sample metric.

        The metric is evaluated on the predictions for one held-out set.
        Replicate ``b`` draws one set of rows (paired: the same rows for every
        model), evaluates the fused metric of :func:`skboot.metric_ci` for the
        benchmark and each model on those rows, and forms
        ``d*_bk = s (m_k - m_benchmark)`` with ``s = +1`` for metrics where larger
        is better (ROC AUC, F1) and ``-1`` for losses (log loss), so a positive
        difference always means "model ``k`` did better".  The test then runs
        as on losses, centring the replicates at the full-sample differences
        and studentizing by their bootstrap standard errors.  Cost: one metric
        kernel call per model and replicate, O(n) each; memory
        O(chunk * n + B * k).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Targets of the held-out set.
        benchmark : array-like of shape (n_samples,) or (n_samples, n_classes)
            The benchmark model's predictions (labels, scores or probabilities,
            as the metric needs).
        models : 2-D array, DataFrame, list or dict
            The other models' predictions: one column per model (DataFrame
            columns give the labels), or a list / dict name -> array (needed for
            multiclass probabilities).
        metric : str
            A fused metric name of :func:`skboot.metric_ci` (``"roc_auc"``,
            ``"f1"``, ``"log_loss"``, ``"accuracy"``, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights, multiplied by the bootstrap counts.
        groups : array-like of shape (n_samples,), default=None
            Cluster labels: resample whole clusters (``GroupBootstrap``).
        stratify : bool, default=False
            Keep the class counts of ``y_true`` in every replicate
            (``StratifiedBootstrap``).
        undefined : {"raise", "omit"}, default="raise"
            A replicate on which the metric is undefined for any model (e.g.
            ROC AUC on one class) raises, or is dropped with an
            :class:`~skboot.UndefinedStatisticWarning` (counted in
            ``provenance.n_undefined``).
        **metric_options : dict
            Options of the metric (``average=``, ``labels=``, ...).

        Returns
        -------
        SPAResult or StepMResult
            The test on the metric differences to the benchmark
            (:class:`StepMResult` for StepM).
"""


class SPA(_SPABase):
    __doc__ = (
        """Test of superior predictive ability (Hansen 2005) and White's Reality Check.

    Null hypothesis: no model beats the benchmark, ``E[d_k] <= 0`` for every
    ``k``, with ``d_k = L_benchmark - L_k`` the loss differential.  Algorithm
    (:meth:`compute`, ``T`` observations, ``k`` models):

    1. ``dbar_k``, the mean loss differentials, and ``omega_k**2``, the variance
       of ``sqrt(T) dbar_k`` (``variance``), ``se_k = omega_k / sqrt(T)``;
    2. ``B`` block-bootstrap replicates: ``c_bk`` = mean of the rows of
       replicate ``b`` minus ``dbar_k``, fused from prefix sums of the centred
       differentials (O(T / L * k) per replicate, never a resampled copy);
    3. three null distributions ``Z*_bk = c_bk + dbar_k - mu_k`` with ``mu_k =
       max(dbar_k, 0)`` (lower), ``dbar_k`` unless ``dbar_k < -se_k sqrt(2 log
       log T)`` (consistent) and ``dbar_k`` (upper, the least favourable
       configuration: White's Reality Check);
    4. ``t_k = dbar_k / se_k`` (``dbar_k`` unstudentized), ``T_SPA = max_k t_k``,
       and each p-value ``#{b : max_k Z*_bk / se_k > T_SPA} / B``.

    Memory: O(T k) for the prefix sums plus O(B k) for the replicate means.

    Parameters
    ----------"""
        + _DOC_PARAMS.format(studentize="True")
        + """

    See Also
    --------
    StepM : Which models beat the benchmark, with familywise error control.
    MCS : The set of best models, without a benchmark.

    Notes
    -----
    Mapping from ``arch.bootstrap.SPA(benchmark, models, block_size, reps,
    bootstrap, studentize, nested, seed)``: ``SPA(block_length=block_size,
    n_resamples=reps, resampler=..., studentize=..., variance="bootstrap" if
    nested else "asymptotic", random_state=seed).compute(benchmark, models)``;
    arch's ``spa.pvalues`` is ``pvalues_by_type`` on the result, and
    ``critical_values`` and ``better_models`` are on the result too.

    Two differences from arch 8.  arch's ``studentize`` does not reach the test:
    it computes the variances (used for the consistent recentering) but never
    divides by them, so its p-values are those of ``studentize=False`` here,
    whatever its flag; skboot studentizes as Hansen (2005) does.  And, as arch,
    ``T_SPA`` is ``max_k t_k`` without Hansen's floor at 0 (with the floor, the
    lower p-value degenerates to 0 when every model is worse than the
    benchmark).  p-values count ``T* > T_SPA`` strictly, as arch.  On
    integer-valued losses (0/1 errors, counts) and metrics that are multiples of
    ``1 / n`` (accuracy), the statistics are formed from exact integer sums, so
    a replicate that ties ``T_SPA`` in exact arithmetic is never counted; arch,
    which recentres in floating point, can count it.
"""
        + _SPA_REFS
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from skboot import SPA
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 500)
    >>> models = rng.chisquare(5, (500, 20))
    >>> models[:, 3] -= 1.0  # model 3 has lower losses than the benchmark
    >>> spa = SPA(n_resamples=1000, block_length=10, random_state=0)
    >>> res = spa.compute(benchmark, models)
    >>> res.pvalues_by_type.round(3).tolist()
    [0.0, 0.001, 0.001]
    >>> res.better_models(0.95)
    [3]
    """
    )


_SPABase.compute_metric.__doc__ = _COMPUTE_METRIC_DOC


class RealityCheck(SPA):
    __doc__ = (
        """White's (2000) Reality Check for data snooping.

    The :class:`SPA` test without studentization, read at its upper p-value:
    every model is recentred at its own mean (the least favourable
    configuration of the null), ``V = max_k dbar_k`` against
    ``V*_b = max_k c_bk``.  ``result.pvalue`` is the upper p-value; the lower
    and consistent ones are computed too.  Same parameters as :class:`SPA`
    (``studentize`` defaults to False; with True it is Hansen's studentized
    statistic under the least favourable configuration).

    Parameters
    ----------"""
        + _DOC_PARAMS.format(studentize="False")
        + """

    See Also
    --------
    SPA : The studentized test, read at its consistent p-value.
"""
        + _SPA_REFS
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from skboot import RealityCheck
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 500)
    >>> models = rng.chisquare(5, (500, 20))
    >>> rc = RealityCheck(n_resamples=1000, block_length=10, random_state=0)
    >>> res = rc.compute(benchmark, models)
    >>> res.pvalue_type, round(res.pvalue, 3)
    ('upper', 0.989)
    """
    )

    _pvalue_type = "upper"

    def __init__(
        self,
        *,
        n_resamples: int | None = None,
        block_length: float | Literal["auto"] = "auto",
        resampler: str | BaseResampler | None = None,
        studentize: bool = False,
        variance: str = "auto",
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
    ) -> None:
        super().__init__(
            n_resamples=n_resamples,
            block_length=block_length,
            resampler=resampler,
            studentize=studentize,
            variance=variance,
            random_state=random_state,
            n_jobs=n_jobs,
        )
