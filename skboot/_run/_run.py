"""One bootstrap run, from user arguments to the raw distribution: the NaN policy,
the resampler fitted once, the statistic built once, the engine (or the GPU), and
the undefined-replicate policy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import Statistic, make_statistic, run_bootstrap
from skboot._engine.cuda import check_device, device_runner
from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._run._context import (
    RunContext,
    check_bootstrap_plan,
    check_distribution_memory,
    check_run_params,
    fit_resampler,
)
from skboot._run._data import Data, apply_nan_policy, check_numeric_columns
from skboot._run._undefined import Undefined, apply_undefined_policy
from skboot.resamplers import BaseResampler, Bootstrap, independent_plan

__all__ = ["Run", "run", "statistic_name"]


@dataclass(frozen=True)
class Run:
    """A finished run: its context, the distribution (B, k), the estimate (k,),
    the undefined replicates (kept as NaN) and the rows the NaN policy omitted."""

    context: RunContext
    distribution: np.ndarray
    estimate: np.ndarray
    undefined: Undefined
    n_omitted: int


def statistic_name(statistic: Any, stat: Statistic) -> str:
    """The name a result records for the statistic."""
    if isinstance(statistic, Statistic):
        return str(stat.name)
    if isinstance(statistic, str):
        return statistic
    return str(getattr(statistic, "__name__", type(statistic).__name__))


def run(
    data: Data,
    statistic: Any,
    resampler: BaseResampler,
    *,
    random_state: Any,
    y: Any,
    groups: Any,
    vectorized: Any,
    statistic_kwargs: Any,
    n_jobs: Any,
    chunk_size: Any,
    owner: str,
    paired: bool = True,
    progress: bool = False,
    nan_policy: str = "raise",
    device: str = "cpu",
) -> Run:
    """Run ``statistic`` on ``data`` with ``resampler`` (a private copy from
    :func:`resolve_resampler`, fitted here with a key drawn from
    ``random_state``); every parameter is checked before any work."""
    data, y, groups, n_omitted = apply_nan_policy(
        data, nan_policy, owner, paired, y, groups
    )
    check_run_params(n_jobs, chunk_size, progress, statistic_kwargs, owner)
    check_device(device, owner)
    resampler = fit_resampler(resampler, random_state, data.arrays[0], y, groups)
    plan = resampler.plan_
    check_bootstrap_plan(plan, resampler, owner)
    if not paired and len(data.arrays) > 1:
        _check_independent(resampler, statistic, owner)
        plan = independent_plan(plan.key, tuple(a.shape[0] for a in data.arrays))
    runner = device_runner(device, statistic, plan, resampler, owner)  # None: CPU
    if isinstance(statistic, Statistic):
        stat = statistic
    else:
        if isinstance(statistic, str):
            check_numeric_columns(data, statistic, owner)
        stat = make_statistic(
            statistic,
            data.arrays,
            vectorized=vectorized,
            statistic_kwargs=statistic_kwargs,
            plan=plan,
            owner=owner,
            allow_nonfinite=nan_policy == "propagate",
        )
    B = int(resampler.n_resamples)
    check_distribution_memory(B, int(stat.k), owner)
    dist = (runner or run_bootstrap)(
        stat, plan, B, n_jobs=n_jobs, chunk_size=chunk_size, progress=bool(progress)
    )
    cached = stat.cached_estimate
    est = cached if cached is not None else stat.estimate()
    bad_estimate = not np.isfinite(est).all()
    dist, undefined = apply_undefined_policy(
        dist,
        "keep",
        subject="The statistic was not finite",
        remedy="Intervals refuse such a distribution; see "
        "BootstrapResult.n_undefined."
        + (" It is not finite on the original data either." if bad_estimate else ""),
    )
    if bad_estimate and not undefined.count:
        warn(
            f"The statistic was not finite on the original data (estimate {est!r}), "
            "though it is on every replicate.",
            UndefinedStatisticWarning,
        )
    ctx = RunContext(stat, data, plan, resampler, n_jobs, bool(progress))
    return Run(ctx, dist, est, undefined, n_omitted)


def _check_independent(resampler: BaseResampler, statistic: Any, owner: str) -> None:
    if type(resampler) is not Bootstrap or resampler.sample_size is not None:
        raise ValueError(
            f"The 'paired' parameter of {owner} is False (independent samples), which "
            "needs resampler=None or Bootstrap() without sample_size. Got "
            f"{resampler!r} instead."
        )
