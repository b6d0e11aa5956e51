"""StepM of Romano & Wolf (2005): which models beat the benchmark, with
familywise error control."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np

from skboot._typing import RandomStateLike
from skboot._validation import LEVEL, Constraint, Options
from skboot.multiple_comparison._base import alpha_of
from skboot.multiple_comparison._results import PVALUE_TYPES, StepMResult
from skboot.multiple_comparison._spa import _DOC_PARAMS, _SPABase
from skboot.multiple_comparison._statistics import labels_at, stepdown
from skboot.resamplers import BaseResampler

__all__ = ["StepM"]


class StepM(_SPABase):
    __doc__ = (
        """StepM multiple testing procedure of Romano & Wolf (2005).

    Finds the models whose loss is lower than the benchmark's, controlling the
    familywise error rate (the chance of selecting any model that is not
    better) at ``1 - level``.  Algorithm: the :class:`SPA` statistics and
    replicates (same parameters, same cost); then, while models remain, the
    critical value is the ``level`` quantile of ``max_k Z*_bk / se_k`` over the
    remaining models under the ``pvalue_type`` recentering, the models with
    ``t_k`` above it are selected and removed, and the step is repeated on the
    others.  The
    procedure stops when a step selects nothing or every model is selected
    (arch 8 fails in that case, arch issue 862).  Each step costs O(B k).

    Parameters
    ----------
    level : float, default=0.95
        Confidence level in (0, 1): the familywise error rate is controlled at
        ``1 - level`` (arch's ``size`` is ``1 - level``).
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
    reps, bootstrap, studentize, nested, seed)``: ``StepM(1 - size,
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
    >>> stepm = StepM(0.95, n_resamples=1000, block_length=10, random_state=0)
    >>> res = stepm.compute(benchmark, models)
    >>> res.superior_models
    [3, 7]
    """
    )

    _params: ClassVar[dict[str, list[Constraint]]] = {
        **_SPABase._params,
        "level": [LEVEL],
        "pvalue_type": [Options(PVALUE_TYPES)],
    }

    def __init__(
        self,
        level: float = 0.95,
        *,
        pvalue_type: str = "consistent",
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
            studentize=studentize,
            variance=variance,
            random_state=random_state,
            n_jobs=n_jobs,
        )
        self.level = level
        self.pvalue_type = pvalue_type

    def _finish(self, parts: dict[str, Any]) -> StepMResult:
        level = float(self.level)
        labels = parts["labels"]
        steps, crits, adjusted = stepdown(parts, alpha_of(level), self.pvalue_type)
        chosen = np.concatenate(steps) if steps else np.empty(0, dtype=np.int64)
        return StepMResult(
            superior_models=labels_at(labels, chosen),
            steps=[labels_at(labels, s) for s in steps],
            critical_values=crits,
            level=level,
            pvalue_type=self.pvalue_type,
            spa=self._result(parts),
            _adjusted=adjusted,
        )
