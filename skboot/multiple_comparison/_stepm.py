"""StepM of Romano & Wolf (2005): which models beat the benchmark, with
familywise error control."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import check_one_of
from skboot.multiple_comparison._results import PVALUE_TYPES, StepMResult
from skboot.multiple_comparison._spa import (
    _COMPUTE_METRIC_DOC,
    _DOC_PARAMS,
    _SPABase,
)
from skboot.multiple_comparison._statistics import labels_at, stepdown
from skboot.resamplers import BaseResampler

__all__ = ["StepM"]


class StepM(_SPABase):
    __doc__ = (
        """StepM multiple testing procedure of Romano & Wolf (2005).

    Finds the models whose loss is lower than the benchmark's, controlling the
    familywise error rate (the chance of selecting any model that is not
    better) at ``size``.  Algorithm: the :class:`SPA` statistics and replicates
    (same parameters, same cost); then, while models remain, the critical value
    is the ``1 - size`` quantile of ``max_k Z*_bk / se_k`` over the remaining
    models under the ``pvalue_type`` recentering, the models with ``t_k`` above
    it are selected and removed, and the step is repeated on the others.  The
    procedure stops when a step selects nothing or every model is selected
    (arch 8 fails in that case, arch issue 862).  Each step costs O(B k).

    Parameters
    ----------
    size : float, default=0.05
        Familywise error rate in (0, 1) (arch's ``size``).
    pvalue_type : {"lower", "consistent", "upper"}, default="consistent"
        Recentering of the null distribution; arch uses "consistent" (Hansen
        2005); "upper" is Romano & Wolf's original recentering."""
        + _DOC_PARAMS.format(studentize="True")
        + """

    See Also
    --------
    SPA : Whether any model beats the benchmark (the first step).
    MCS : The set of best models, without a benchmark.

    Notes
    -----
    Mapping from ``arch.bootstrap.StepM(benchmark, models, size, block_size,
    reps, bootstrap, studentize, nested, seed)``: ``StepM(size,
    block_length=block_size, n_resamples=reps, resampler=...,
    studentize=..., variance="bootstrap" if nested else "asymptotic",
    random_state=seed).compute(benchmark, models).superior_models``.  As for
    :class:`SPA`, arch does not studentize whatever its flag.

    References
    ----------
    .. [1] J. P. Romano and M. Wolf, "Stepwise multiple testing as formalized data
           snooping", Econometrica 73(4), 1237-1282, 2005.
    .. [2] J. P. Romano and M. Wolf, "Efficient computation of adjusted p-values
           for resampling-based stepdown multiple testing", Statistics &
           Probability Letters 113, 38-40, 2016.
    .. [3] P. R. Hansen, "A test for superior predictive ability", Journal of
           Business & Economic Statistics 23(4), 365-380, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import StepM
    >>> rng = np.random.default_rng(0)
    >>> benchmark = rng.chisquare(5, 500)
    >>> models = rng.chisquare(5, (500, 20))
    >>> models[:, [3, 7]] -= 1.5  # two models with lower losses
    >>> res = StepM(0.05, block_length=10, random_state=0).compute(benchmark, models)
    >>> res.superior_models
    [3, 7]
    """
    )

    def __init__(
        self,
        size: float = 0.05,
        *,
        pvalue_type: str = "consistent",
        n_resamples: int = 1000,
        block_length: float | Literal["auto"] = "auto",
        resampler: BaseResampler | None = None,
        studentize: bool = True,
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
        self.size = size
        self.pvalue_type = pvalue_type

    def check_params(self) -> None:
        """Validate the constructor parameters, raising on the first bad one."""
        super().check_params()
        self._size()
        check_one_of(self.pvalue_type, "pvalue_type", self._owner, PVALUE_TYPES)

    def _stepm_result(self, parts: dict[str, Any]) -> StepMResult:
        size = float(self.size)
        labels = parts["labels"]
        steps, crits, adjusted = stepdown(parts, size, self.pvalue_type)
        chosen = np.concatenate(steps) if steps else np.empty(0, dtype=np.int64)
        return StepMResult(
            superior_models=labels_at(labels, chosen),
            steps=[labels_at(labels, s) for s in steps],
            critical_values=crits,
            size=size,
            pvalue_type=self.pvalue_type,
            spa=self._result(parts),
            _adjusted=adjusted,
        )

    def compute(self, benchmark: ArrayLike, models: ArrayLike) -> StepMResult:
        """Run the stepdown on loss series.

        Parameters
        ----------
        benchmark : array-like of shape (T,)
            Losses of the benchmark model.
        models : array-like of shape (T, k) or (T,)
            Losses of the competing models, one column each.

        Returns
        -------
        StepMResult
            The superior models, the steps and the adjusted p-values.
        """
        parts, _ = self._from_losses(benchmark, models)
        return self._stepm_result(parts)

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
    ) -> StepMResult:
        parts, _ = self._from_metric(
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
        return self._stepm_result(parts)

    compute_metric.__doc__ = _COMPUTE_METRIC_DOC.format(result="StepMResult")
