"""The undefined-replicate policy, in one place: what happens to replicates on which
the statistic is not finite (a metric undefined on a replicate, a degenerate
replicate of a moment statistic, an out-of-bag score without out-of-bag rows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn

__all__ = [
    "UNDEFINED_POLICIES",
    "Undefined",
    "apply_undefined_count",
    "apply_undefined_policy",
]

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
    skip: np.ndarray | None = None,
) -> tuple[np.ndarray, Undefined]:
    """Apply ``policy`` to the rows of ``dist`` (B, k) holding a non-finite value.

    Messages read ``f"{subject} on {count} of {B} {unit} (first: {item}
    {b}...)"``: ``why`` (e.g. "; it is undefined when ...") completes the
    parenthesis of the "raise" message, ``remedy`` ends it, and ``omitted`` says
    what "omit" did.  "omit" keeps at least ``minimum`` replicates or raises
    ``too_few``.  Returns the
    distribution (without the omitted rows) and the record of undefined ones.
    ``skip`` (with "keep"): the numbers of rows that hold no value (failed
    replicates, :mod:`skboot._run._failed`), neither defined nor undefined.
    """
    finite = np.isfinite(dist).reshape(dist.shape[0], -1).all(axis=1)
    if skip is not None:
        finite[skip] = True
    bad = np.flatnonzero(~finite).astype(np.int64)
    B = int(dist.shape[0])
    record = Undefined(bad, B)
    if not bad.shape[0]:
        return dist, record
    texts: dict[str, Any] = dict(subject=subject, unit=unit, why=why, remedy=remedy)
    texts.update(omitted=omitted, item=item, minimum=minimum, too_few=too_few)
    apply_undefined_count(int(bad.shape[0]), B, int(bad[0]), policy, **texts)
    return (dist, record) if policy == "keep" else (dist[finite], record)


def apply_undefined_count(
    count: int,
    total: int,
    first: int,
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
) -> None:
    """:func:`apply_undefined_policy` for ``count`` undefined of ``total``
    units that stay elsewhere (the leave-one-out values of rows in a dask
    collection): ``first`` is the number of the first; raises or warns alike
    (with "omit", the caller leaves them out)."""
    if not count:
        return
    head = f"{subject} on {count} of {total} {unit}"
    first_text = f"first: {item} {first}"
    if policy == "raise":
        raise ValueError(f"{head} ({first_text}{why}). {remedy}".rstrip())
    if policy == "keep":
        warn(f"{head} ({first_text}). {remedy}".rstrip(), UndefinedStatisticWarning)
        return
    warn(f"{head} ({first_text}); {omitted}.", UndefinedStatisticWarning)
    if total - count < minimum:
        kept = total - count
        raise ValueError(too_few.format(kept=kept, B=total, minimum=minimum))
