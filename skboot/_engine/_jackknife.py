"""The jackknife of a statistic evaluated once per left-out row or group, run by the
engine in chunks (vectorized calls, gathers, ``n_jobs``) like bootstrap replicates."""

from __future__ import annotations

from typing import Any

import numpy as np

from skboot._engine._dispatch import run_bootstrap
from skboot._engine._statistic import Statistic
from skboot._exceptions import StatisticError
from skboot.resamplers import DeleteGroupPlan, LeaveOneOutPlan, ResamplingPlan

__all__ = ["callable_jackknife"]


def callable_jackknife(
    stat: Statistic,
    key: Any,
    codes: np.ndarray | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Leave-one-out (``codes is None``) or delete-one-group values of a callable
    statistic, shape (n or G, k), computed by the engine in chunks (with a
    progress bar on stderr when ``progress``).

    A failure is re-raised naming the left-out row or group.
    """
    n = stat.arrays[0].shape[0]
    if codes is None:
        plan: ResamplingPlan = LeaveOneOutPlan(key, n)
        count, unit = n, "row"
    else:
        count = int(codes.max()) + 1
        plan = DeleteGroupPlan(key, n, codes=np.asarray(codes, dtype=np.int64))
        unit = "group"
    try:
        return run_bootstrap(
            stat,
            plan,
            count,
            n_jobs=n_jobs,
            progress=progress,
            progress_label="jackknife samples",
        )
    except StatisticError as exc:
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        raise StatisticError(
            f"The statistic raised on the jackknife sample without {unit} "
            f"{exc.replicate} (needed for the BCa acceleration): {cause!r}",
            exc.replicate,
        ) from cause
