"""The undefined-replicate policy, in one place: what happens to replicates on which
the statistic is not finite (a metric undefined on a replicate, a degenerate
replicate of a moment statistic, an out-of-bag score without out-of-bag rows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn

__all__ = ["UNDEFINED_POLICIES", "Undefined", "apply_undefined_policy"]

#: "keep": the replicates stay (NaN), counted and reported by one warning, and
#: intervals refuse the distribution; "raise": a ValueError before any interval;
#: "omit": the replicates are dropped, counted and reported by one warning.
UNDEFINED_POLICIES = ("keep", "raise", "omit")


@dataclass(frozen=True)
class Undefined:
    """The undefined replicates of a run: their numbers, in replicate order."""

    replicates: np.ndarray
    n_resamples: int

    @property
    def count(self) -> int:
        """How many replicates were undefined."""
        return int(self.replicates.shape[0])


def apply_undefined_policy(
    dist: np.ndarray,
    policy: str,
    *,
    subject: str,
    unit: str = "replicates",
    why: str = "",
    remedy: str = "",
    omitted: str = "they are omitted",
    item: str = "replicate",
    minimum: int = 1,
    too_few: str = "",
) -> tuple[np.ndarray, Undefined]:
    """Apply ``policy`` to the rows of ``dist`` (B, k) holding a non-finite value.

    Messages read ``f"{subject} on {count} of {B} {unit} (first: {item}
    {b}...)"``: ``why`` (e.g. "; it is undefined when ...") completes the
    parenthesis of the "raise" message, ``remedy`` ends it, and ``omitted`` says
    what "omit" did.  "omit" keeps at least ``minimum`` replicates or raises
    ``too_few``.  Returns the
    distribution (without the omitted rows) and the record of undefined ones.
    """
    finite = np.isfinite(dist).reshape(dist.shape[0], -1).all(axis=1)
    bad = np.flatnonzero(~finite).astype(np.int64)
    B = int(dist.shape[0])
    record = Undefined(bad, B)
    if not bad.shape[0]:
        return dist, record
    head = f"{subject} on {bad.shape[0]} of {B} {unit}"
    first = f"first: {item} {int(bad[0])}"
    if policy == "raise":
        raise ValueError(f"{head} ({first}{why}). {remedy}".rstrip())
    if policy == "keep":
        warn(f"{head} ({first}). {remedy}".rstrip(), UndefinedStatisticWarning)
        return dist, record
    warn(f"{head} ({first}); {omitted}.", UndefinedStatisticWarning)
    kept = dist[finite]
    if kept.shape[0] < minimum:
        raise ValueError(too_few.format(kept=kept.shape[0], B=B, minimum=minimum))
    return kept, record
