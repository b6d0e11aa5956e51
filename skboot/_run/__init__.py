"""The run layer: from a user's call to a finished run, between the public API and
the engine.  Everything a public entry point does once per call lives here, once:

* :mod:`~skboot._run._data`: the data (numpy, tuples, pandas) and the NaN policy;
* :mod:`~skboot._run._context`: resolving the resampler, drawing its key once,
  fitting it once; the context a run keeps;
* :mod:`~skboot._run._run`: one run through the engine (or the GPU);
* :mod:`~skboot._run._undefined`: the undefined-replicate policy;
* :mod:`~skboot._run._failed`: the failed-replicate policy (``on_error``);
* :mod:`~skboot._run._outputs`: the outputs in the user's terms (floats, arrays,
  pandas labels, shapes);
* :mod:`~skboot._run._jackknife`: the jackknife for BCa (closed forms, the engine,
  groups, strata, independent samples);
* :mod:`~skboot._run._studentized`: the standard errors of the studentized interval.
* :mod:`~skboot._run._calibration`: the double bootstrap of the calibrated
  intervals (per-replicate proportions, fused for the moment built-ins).
* :mod:`~skboot._run._delta_method`: the delta-method standard errors of the smooth
  built-ins, from fused sums of power columns.
* :mod:`~skboot._run._dask` and :mod:`~skboot._run._dask_checks`: the
  data-parallel Poisson bootstrap of data in a dask collection (per-partition
  sums on the workers, merged in a fixed tree), and what it refuses before any
  work; :mod:`~skboot._run._dask_jackknife`: the BCa acceleration of such a run
  (closed-form leave-one-out values, their power sums in one more pass);
  :mod:`~skboot._run._dask_corr`: "corr" of two columns from centred sums;
  :mod:`~skboot._run._dask_ols`: "ols" of ``(X, y)`` from per-partition cross
  products (every data-parallel scheme) and its leave-one-out pass;
  :mod:`~skboot._run._dask_progress`: ``progress=True`` through dask's own
  diagnostics.
"""

from skboot._run._calibration import calibration_inputs, check_calibration
from skboot._run._context import (
    DEFAULT_N_RESAMPLES,
    DEVICES,
    RUN_CONSTRAINTS,
    RunContext,
    available_memory,
    check_bootstrap_plan,
    check_distribution_memory,
    check_run_params,
    fit_resampler,
    resolve_resampler,
)
from skboot._run._data import (
    NAN_POLICIES,
    Data,
    apply_nan_policy,
    nan_rows,
    prepare_data,
    to_array,
)
from skboot._run._failed import ON_ERROR_POLICIES, Failed, failed_record
from skboot._run._jackknife import (
    AUTO_JACKKNIFE_GROUPS,
    auto_jackknife_groups,
    check_jackknife_groups,
    jackknife,
    random_jackknife_groups,
    stratified_jackknife,
)
from skboot._run._outputs import Outputs, labelled, outputs, shaped
from skboot._run._run import Run, run, statistic_name
from skboot._run._studentized import studentized_inputs
from skboot._run._undefined import (
    UNDEFINED_POLICIES,
    Undefined,
    apply_undefined_count,
    apply_undefined_policy,
)

__all__ = [
    "AUTO_JACKKNIFE_GROUPS",
    "DEFAULT_N_RESAMPLES",
    "DEVICES",
    "NAN_POLICIES",
    "ON_ERROR_POLICIES",
    "RUN_CONSTRAINTS",
    "UNDEFINED_POLICIES",
    "Data",
    "Failed",
    "Outputs",
    "Run",
    "RunContext",
    "Undefined",
    "apply_nan_policy",
    "apply_undefined_count",
    "apply_undefined_policy",
    "auto_jackknife_groups",
    "available_memory",
    "calibration_inputs",
    "check_bootstrap_plan",
    "check_calibration",
    "check_distribution_memory",
    "check_jackknife_groups",
    "check_run_params",
    "failed_record",
    "fit_resampler",
    "jackknife",
    "labelled",
    "nan_rows",
    "outputs",
    "prepare_data",
    "random_jackknife_groups",
    "resolve_resampler",
    "run",
    "shaped",
    "statistic_name",
    "stratified_jackknife",
    "studentized_inputs",
    "to_array",
]
