"""The failed-replicate policy (``on_error``): what happens to replicates on
which the user's callable raised (a model refit that does not converge, a
singular design): "raise" ends the run with an error naming the replicate;
"omit" records them (:class:`Failed`), stores NaN in their rows and leaves them
out of the standard error, bias, intervals and p-values."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skboot._engine import Failure, Statistic
from skboot._exceptions import StatisticError, UndefinedStatisticWarning, warn
from skboot.resamplers import ResamplingPlan

__all__ = ["ON_ERROR_POLICIES", "Failed", "failed_record"]

#: "raise": the first replicate whose statistic raises ends the run (a
#: StatisticError naming it, the exception chained); "omit": such replicates
#: are recorded, NaN in the distribution, and left out of every summary.
ON_ERROR_POLICIES = ("raise", "omit")


def _no_replicates() -> np.ndarray:
    return np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class Failed:
    """The failed replicates of a run: their numbers (ascending) and the
    first one's exception as ``"Type: message"`` (None when none failed)."""

    replicates: np.ndarray = field(default_factory=_no_replicates)
    first_error: str | None = None

    @property
    def count(self) -> int:
        """How many replicates failed."""
        return int(self.replicates.shape[0])

    def kept(self, values: np.ndarray) -> np.ndarray:
        """The rows of ``values`` (one per replicate) of the replicates that did
        not fail."""
        if not self.count:
            return values
        return np.delete(values, self.replicates, axis=0)


def failed_record(
    failures: list[Failure], n_resamples: int, stat: Statistic, plan: ResamplingPlan
) -> Failed:
    """The record of a run's ``failures`` (from the engine, in replicate order),
    after one warning; when every replicate failed, a StatisticError naming the
    first, with its exception chained (replicate ``b`` is a pure function of the
    seed and ``b``, so it is recomputed alone to recover the exception object,
    which does not travel back from worker processes)."""
    if not failures:
        return Failed()
    first = failures[0]
    record = Failed(
        np.fromiter((f.replicate for f in failures), np.int64, len(failures)),
        first.error,
    )
    head = (
        f"The statistic raised on {record.count} of {n_resamples} replicates "
        f"(first: replicate {first.replicate}, {first.error})"
    )
    if record.count == n_resamples:
        message = (
            f"{head}: every replicate failed, so there is no distribution. Check "
            "the statistic on one replicate (resampler.fit(...).replicate(b), or "
            ".sample(b) for a model-based resampler)."
        )
        cause = _recompute(stat, plan, first.replicate)
        raise StatisticError(message, first.replicate) from cause
    warn(
        f"{head}; with on_error='omit' they are NaN in the distribution and left "
        "out of the standard error, bias, intervals and p-values. See "
        "n_failed and failed_replicates on the result.",
        UndefinedStatisticWarning,
    )
    return record


def _recompute(stat: Statistic, plan: ResamplingPlan, b: int) -> BaseException | None:
    """The exception replicate ``b``'s statistic raises, recomputed alone."""
    out = np.empty((1, stat.k))
    try:
        stat.run_chunk(stat.arrays, plan, b, out, {})
    except StatisticError as err:
        return err.__cause__ or err
    return None
