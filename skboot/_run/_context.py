"""The resampler of a run: resolved from the caller's arguments, its key drawn once,
fitted once; and the context a finished run keeps for later intervals."""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any

from sklearn.base import clone

from skboot._engine import Statistic
from skboot._engine.cuda import DEVICES, load_cuda
from skboot._random import check_random_state
from skboot._run._data import NAN_POLICIES, Data
from skboot._run._failed import ON_ERROR_POLICIES
from skboot._validation import (
    BOOL,
    DICT,
    N_JOBS,
    N_RESAMPLES,
    NONE,
    VECTORIZED,
    Constraint,
    Interval,
    Options,
    is_int,
    param_error,
    validate_params,
    value_error,
)
from skboot.resamplers import BaseResampler, Bootstrap, ResamplingPlan

__all__ = [
    "DEFAULT_N_RESAMPLES",
    "DEVICES",
    "RUN_CONSTRAINTS",
    "RunContext",
    "available_memory",
    "check_bootstrap_plan",
    "check_distribution_memory",
    "check_run_params",
    "fit_resampler",
    "resolve_resampler",
]

#: Replicates run when neither the call nor a resampler says how many.
DEFAULT_N_RESAMPLES = 9999


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
        if is_int(B) and 1 <= B < 2**32:
            check_distribution_memory(int(B), 1, owner, at_least=True)
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
            raise value_error(
                "n_resamples",
                owner,
                f"({n_resamples!r}) conflicts "
                f"with the resampler's n_resamples ({resampler.n_resamples!r}); set "
                "it in one place.",
            )
        params["n_resamples"] = n_resamples
    if random_state is not None and resampler.random_state is None:
        params["random_state"] = random_state
    elif (
        random_state is not None
        and random_state is not resampler.random_state
        and random_state != resampler.random_state
    ):
        raise value_error(
            "random_state",
            owner,
            f"({random_state!r}) conflicts "
            f"with the resampler's random_state ({resampler.random_state!r}); set it "
            "in one place.",
        )
    out = clone(resampler)
    if params:
        out.set_params(**params)
    if is_int(out.n_resamples) and 1 <= out.n_resamples < 2**32:
        # at least one value per replicate: refused before any work
        check_distribution_memory(int(out.n_resamples), 1, owner, at_least=True)
    source = random_state if random_state is not None else resampler.random_state
    return out, source


def fit_resampler(
    resampler: BaseResampler,
    source: Any,
    X: Any,
    y: Any = None,
    groups: Any = None,
    *,
    checked: bool = False,
) -> BaseResampler:
    """Validate the resampler's parameters (unless ``checked``: built from
    values the entry point checked), draw the root key from ``source`` once (so
    a Generator passed by the user advances once per call) and fit
    ``resampler`` (a private copy from :func:`resolve_resampler`) on ``X``, ``y``
    and ``groups``."""
    if not checked:
        resampler.check_params()
    key = check_random_state(source, owner=type(resampler).__name__)
    return resampler.fit_with_key(key, X, y, groups)


def available_memory() -> int | None:
    """Bytes of memory a new array can take now, or None when unknown.

    ``psutil.virtual_memory().available`` when psutil is installed; else the
    ``MemAvailable`` line of ``/proc/meminfo`` (Linux); else the physical memory
    (``os.sysconf``), an upper bound, so that a size is refused only when it
    certainly cannot be held.
    """
    try:
        import psutil
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return None


#: Distributions this small are never refused (and the system is not asked).
_ALWAYS_HELD = 2**28


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GiB"


def check_distribution_memory(
    n_resamples: int, n_outputs: int, owner: str, *, at_least: bool = False
) -> None:
    """Refuse a distribution (``n_resamples`` x ``n_outputs`` float64) larger
    than the memory available, before any work: numpy would refuse the
    allocation only after the data are prepared, or the machine would swap.
    ``at_least``: ``n_outputs`` is a lower bound (the statistic is not built
    yet)."""
    need = 8 * n_resamples * max(1, n_outputs)
    if need <= _ALWAYS_HELD:  # no need to ask the system
        return
    have = available_memory()
    if have is None or need <= have:
        return
    outputs = "at least 1 output" if at_least else f"{n_outputs} output(s)"
    raise value_error(
        "n_resamples",
        owner,
        f"is {n_resamples}: the bootstrap "
        f"distribution would need {'at least ' if at_least else ''}{_gib(need)} "
        f"({n_resamples} replicates x {outputs} x 8 bytes), more than the "
        f"{_gib(have)} of memory available. Use fewer replicates (a few thousand "
        "are enough for most intervals).",
    )


def check_bootstrap_plan(plan: ResamplingPlan, resampler: Any, owner: str) -> None:
    """Refuse a plan whose replicates are permutations of the rows (it declares
    ``permutes_rows``): a statistic that ignores row order is then the same on
    every replicate, so the "bootstrap" distribution is a single value and its
    standard error 0, whatever the data."""
    if plan.permutes_rows:
        raise value_error(
            "resampler",
            owner,
            f"must be a bootstrap resampler "
            "(rows drawn with replacement, weights or blocks). Got "
            f"{resampler!r} instead, whose every replicate holds each row exactly "
            "once: a statistic that ignores row order would be the same on every "
            "replicate (standard error 0). To test a hypothesis by permuting "
            "labels or samples, use skboot.permutation_test (or "
            "metric_permutation_test).",
        )


#: The constraint table of the run parameters every entry point shares
#: (``bootstrap``, ``BootstrapStatistic``): checked once, by
#: :func:`check_run_params`, before any work.
RUN_CONSTRAINTS: dict[str, list[Constraint]] = {
    "n_resamples": [N_RESAMPLES, NONE],
    "vectorized": VECTORIZED,
    "statistic_kwargs": [NONE, DICT],
    "n_jobs": [N_JOBS, NONE],
    "chunk_size": [Interval("int", 1), NONE],
    "paired": [BOOL],
    "progress": [BOOL],
    "nan_policy": [Options(NAN_POLICIES)],
    "on_error": [Options(ON_ERROR_POLICIES)],
    "device": [Options(DEVICES)],
}


def check_run_params(owner: str, **values: Any) -> dict[str, Any]:
    """The run parameters of an entry point (any of :data:`RUN_CONSTRAINTS`),
    checked once before any work; ``device="cuda"`` also checks that the GPU
    and its package are there.  The layers below trust them."""
    checked = validate_params(owner, RUN_CONSTRAINTS, **values)
    if checked.get("device") == "cuda":
        load_cuda(owner)
    return checked
