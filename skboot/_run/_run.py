"""One bootstrap run, from user arguments to the raw distribution: the resampler
resolved and fitted once, the data and the NaN policy, the statistic built once,
the engine (or the GPU), and the undefined-replicate policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skboot._engine import (
    EstimatorStatistic,
    Failure,
    Statistic,
    make_statistic,
    run_bootstrap,
)
from skboot._engine.cuda import device_runner
from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._run._context import (
    RunContext,
    check_bootstrap_plan,
    check_distribution_memory,
    fit_resampler,
    resolve_resampler,
)
from skboot._run._dask import run_data_parallel, run_ols_data_parallel
from skboot._run._dask_checks import holds_dask
from skboot._run._data import (
    Data,
    apply_nan_policy,
    check_numeric_columns,
    prepare_data,
)
from skboot._run._failed import Failed, failed_record
from skboot._run._undefined import Undefined, apply_undefined_policy
from skboot._validation import value_error
from skboot.resamplers import BaseResampler, Bootstrap, independent_plan

__all__ = ["Run", "run", "statistic_name"]


@dataclass(frozen=True)
class Run:
    """A finished run: its context, the distribution (B, k), the estimate (k,),
    the undefined replicates (kept as NaN), the rows the NaN policy omitted and
    the failed replicates (NaN rows, left out of every summary)."""

    context: RunContext
    distribution: np.ndarray
    estimate: np.ndarray
    undefined: Undefined
    n_omitted: int
    failed: Failed = field(default_factory=Failed)


def statistic_name(statistic: Any, stat: Statistic) -> str:
    """The name a result records for the statistic."""
    if isinstance(statistic, Statistic):
        return str(stat.name)
    if isinstance(statistic, str):
        return statistic
    return str(getattr(statistic, "__name__", type(statistic).__name__))


def run(
    data: Any,
    statistic: Any,
    resampler: Any,
    *,
    n_resamples: Any,
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
    on_error: str = "raise",
    device: str = "cpu",
    estimator: Any = None,
) -> Run:
    """Run ``statistic`` on ``data`` with ``resampler``: the one path of
    ``bootstrap()`` and ``BootstrapStatistic.fit``.

    The run parameters were checked once by the entry point
    (:func:`check_run_params`); here the resampler is resolved (a private copy)
    and fitted with a key drawn once from ``random_state``, the data prepared
    and the NaN policy applied, all before the statistic is built.  With
    ``estimator``, the statistic is ``statistic(estimator refitted on the
    replicate's rows of (data, y))``.  With ``on_error="omit"``, replicates
    on which a callable raises are recorded (:mod:`skboot._run._failed`).
    """
    if holds_dask(data, y, groups):
        # data in a dask collection: reduced on the workers, never brought here
        return _run_dask(
            data,
            statistic,
            resampler,
            n_resamples=n_resamples,
            random_state=random_state,
            y=y,
            groups=groups,
            statistic_kwargs=statistic_kwargs,
            owner=owner,
            nan_policy=nan_policy,
            device=device,
            estimator=estimator,
            n_jobs=n_jobs,
            progress=bool(progress),
        )
    res, source = resolve_resampler(resampler, n_resamples, random_state, owner)
    d = prepare_data(data, owner, paired=paired)
    d, y_run, groups, n_omitted = apply_nan_policy(
        d, nan_policy, owner, paired, y, groups
    )
    # a resampler of None is Bootstrap(n_resamples) of the checked value
    checked = resampler is None
    res = fit_resampler(res, source, d.arrays[0], y_run, groups, checked=checked)
    plan = res.plan_
    check_bootstrap_plan(plan, res, owner)
    if not paired and len(d.arrays) > 1:
        _check_independent(res, statistic, owner)
        plan = independent_plan(plan.key, tuple(a.shape[0] for a in d.arrays))
    runner = device_runner(device, statistic, plan, res, owner)  # None: CPU
    stat = _statistic(
        statistic,
        d,
        plan,
        vectorized,
        statistic_kwargs,
        owner,
        nan_policy,
        estimator,
        (data, y),
    )
    d = named_outputs(d, stat, data)
    B = int(res.n_resamples)
    check_distribution_memory(B, int(stat.k), owner)
    options: dict[str, Any] = dict(
        n_jobs=n_jobs, chunk_size=chunk_size, progress=bool(progress)
    )
    failures: list[Failure] = []
    if runner is not None:  # the GPU's built-ins never raise on a replicate
        dist = runner(stat, plan, B, **options)
    elif on_error == "omit":
        dist = run_bootstrap(stat, plan, B, failures=failures, **options)
    else:
        dist = run_bootstrap(stat, plan, B, **options)
    failed = failed_record(failures, B, stat, plan)
    ctx = RunContext(stat, d, plan, res, n_jobs, bool(progress))
    return _finished(ctx, dist, n_omitted, failed)


def _run_dask(*args: Any, n_jobs: Any, progress: bool, **kwargs: Any) -> Run:
    """The data-parallel run of a dask collection (:mod:`skboot._run._dask`);
    ``progress``: dask's own progress display."""
    ols = isinstance(args[1], str) and args[1] == "ols"
    parallel = run_ols_data_parallel if ols else run_data_parallel
    par = parallel(*args, progress=progress, **kwargs)
    ctx = RunContext(par.stat, par.data, par.plan, par.resampler, n_jobs, progress)
    return _finished(ctx, par.distribution, 0)


def _finished(
    ctx: RunContext, dist: np.ndarray, n_omitted: int, failed: Failed | None = None
) -> Run:
    """The run of a computed distribution: its estimate, and the undefined
    replicates kept (counted, named in one warning); the ``failed`` replicates
    hold NaN and are neither."""
    failed = Failed() if failed is None else failed
    stat = ctx.stat
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
        skip=failed.replicates,
    )
    if bad_estimate and not undefined.count:
        warn(
            f"The statistic was not finite on the original data (estimate {est!r}), "
            "though it is on every replicate.",
            UndefinedStatisticWarning,
        )
    return Run(ctx, dist, est, undefined, n_omitted, failed)


def _statistic(
    statistic: Any,
    data: Data,
    plan: Any,
    vectorized: Any,
    statistic_kwargs: Any,
    owner: str,
    nan_policy: str,
    estimator: Any,
    given: tuple[Any, Any],
) -> Statistic:
    """The engine's statistic: the refit of ``estimator`` on the data and ``y``
    as given, a prebuilt one, or a built-in / callable checked against the data."""
    if estimator is not None:
        X, y = given
        return EstimatorStatistic(estimator, statistic, X, y)
    if isinstance(statistic, Statistic):
        return statistic
    if isinstance(statistic, str):
        check_numeric_columns(data, statistic, owner)
    return make_statistic(
        statistic,
        data.arrays,
        vectorized=vectorized,
        statistic_kwargs=statistic_kwargs,
        plan=plan,
        owner=owner,
        allow_nonfinite=nan_policy == "propagate",
    )


def named_outputs(d: Data, stat: Statistic, data: Any) -> Data:
    """``d`` with the statistic's own output names as its labels when it names
    its outputs and the user gave pandas (the built-in "ols" of a DataFrame
    ``X``: "intercept", then ``X``'s column names)."""
    own = stat.output_labels
    first = data[0] if isinstance(data, tuple) and data else None
    cols = getattr(first, "columns", None)
    if own is None or cols is None:
        return d
    import pandas as pd

    names = list(own[: len(own) - len(cols)]) + list(cols)
    return Data(d.arrays, d.n_samples, pd.Index(names), "frame")


def _check_independent(resampler: BaseResampler, statistic: Any, owner: str) -> None:
    if type(resampler) is not Bootstrap or resampler.sample_size is not None:
        raise value_error(
            "paired",
            owner,
            f"is False (independent samples), which "
            "needs resampler=None or Bootstrap() without sample_size. Got "
            f"{resampler!r} instead.",
        )
