"""The resampler of a run: resolved from the caller's arguments, its key drawn once,
fitted once; and the context a finished run keeps for later intervals."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from skboot._engine import Statistic
from skboot._random import check_random_state
from skboot._run._data import NAN_POLICIES, Data
from skboot._validation import (
    BOOL,
    DICT,
    N_JOBS,
    NONE,
    Constraint,
    Interval,
    Options,
    Predicate,
    param_error,
    validate_params,
)
from skboot.resamplers import BaseResampler, Bootstrap, ResamplingPlan

__all__ = [
    "DEFAULT_N_RESAMPLES",
    "DEVICES",
    "RUN_CONSTRAINTS",
    "RunContext",
    "check_run_params",
    "fit_resampler",
    "resolve_resampler",
]

#: Replicates run when neither the call nor a resampler says how many.
DEFAULT_N_RESAMPLES = 9999
#: Where a run computes (see skboot._engine.cuda).
DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class RunContext:
    """What a finished run keeps for later intervals (the BCa jackknife, the
    studentized standard errors): the statistic, the data, the fitted plan and
    resampler, and the run's ``n_jobs`` and progress setting."""

    stat: Statistic
    data: Data
    plan: ResamplingPlan
    resampler: BaseResampler
    n_jobs: int | None
    progress: bool = False


def _class_default_n_resamples(resampler: BaseResampler) -> Any:
    """The ``n_resamples`` default of the resampler's class (9999 for skboot's)."""
    param = inspect.signature(type(resampler)).parameters.get("n_resamples")
    if param is None or param.default is inspect.Parameter.empty:
        return DEFAULT_N_RESAMPLES
    return param.default


def resolve_resampler(
    resampler: Any,
    n_resamples: Any,
    random_state: Any,
    owner: str,
    default: int = DEFAULT_N_RESAMPLES,
) -> tuple[BaseResampler, Any]:
    """The resampler to run (a private clone) and the random_state object to draw
    the key from.

    ``n_resamples=None`` (the caller did not give it): the resampler's own value,
    or ``default`` without a resampler.  An int given by the caller replaces the
    value of a resampler left at its class default; a resampler whose
    ``n_resamples`` was set to another value conflicts with it (an error, as
    for ``random_state``: two explicit values that differ are a mistake, not a
    preference).  The key is drawn from the caller's own object (not a clone),
    so a Generator passed by the user advances once per call."""
    if resampler is None:
        B = default if n_resamples is None else n_resamples
        return Bootstrap(B, random_state=random_state), random_state
    if not isinstance(resampler, BaseResampler):
        raise param_error(
            "resampler",
            owner,
            "None or a skboot resampler (e.g. Bootstrap())",
            resampler,
        )
    params: dict[str, Any] = {}
    if n_resamples is not None and n_resamples != resampler.n_resamples:
        if resampler.n_resamples != _class_default_n_resamples(resampler):
            raise ValueError(
                f"The 'n_resamples' parameter of {owner} ({n_resamples!r}) conflicts "
                f"with the resampler's n_resamples ({resampler.n_resamples!r}); set "
                "it in one place."
            )
        params["n_resamples"] = n_resamples
    if random_state is not None and resampler.random_state is None:
        params["random_state"] = random_state
    elif (
        random_state is not None
        and random_state is not resampler.random_state
        and random_state != resampler.random_state
    ):
        raise ValueError(
            f"The 'random_state' parameter of {owner} ({random_state!r}) conflicts "
            f"with the resampler's random_state ({resampler.random_state!r}); set it "
            "in one place."
        )
    out = clone(resampler)
    if params:
        out.set_params(**params)
    source = random_state if random_state is not None else resampler.random_state
    return out, source


def fit_resampler(
    resampler: BaseResampler, source: Any, X: Any, y: Any = None, groups: Any = None
) -> BaseResampler:
    """Validate, draw the root key from ``source`` once (so a Generator passed by
    the user advances once per call) and fit ``resampler`` (a private copy from
    :func:`resolve_resampler`) on ``X``, ``y`` and ``groups``."""
    resampler.check_params()
    key = check_random_state(source, owner=type(resampler).__name__)
    return resampler.fit_with_key(key, X, y, groups)


#: The constraint table of the run parameters every entry point shares
#: (``bootstrap``, ``BootstrapStatistic``): checked by :func:`validate_params`
#: before any work.
RUN_CONSTRAINTS: dict[str, list[Constraint]] = {
    "n_resamples": [Interval("int", 1, 2**32 - 1, high_text="2**32 - 1"), NONE],
    "vectorized": [
        Predicate(
            lambda v: v is None or isinstance(v, (bool, np.bool_)),
            "None, True or False",
        )
    ],
    "statistic_kwargs": [NONE, DICT],
    "n_jobs": [N_JOBS, NONE],
    "chunk_size": [Interval("int", 1), NONE],
    "paired": [BOOL],
    "progress": [BOOL],
    "nan_policy": [Options(NAN_POLICIES)],
    "device": [Options(DEVICES)],
}


def check_run_params(
    n_jobs: Any, chunk_size: Any, progress: Any, statistic_kwargs: Any, owner: str
) -> None:
    """The engine parameters, checked before any work (the statistic included)."""
    validate_params(
        owner,
        RUN_CONSTRAINTS,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        progress=progress,
        statistic_kwargs=statistic_kwargs,
    )
