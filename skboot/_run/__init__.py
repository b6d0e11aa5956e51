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
  products (every data-parallel scheme) and its leave-one-out pass, its worker
  side in :mod:`~skboot._run._dask_ols_rows`;
  :mod:`~skboot._run._dask_progress`: ``progress=True`` through dask's own
  diagnostics.

The names load lazily (:func:`skboot._lazy.lazy_exports`): a dask worker that
imports a partition function of this package loads that module alone, not the
client-side modules (and scikit-learn) the other names need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skboot._lazy import lazy_exports

if TYPE_CHECKING:
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

#: Name -> the module that defines it (imported on first access).
_EXPORTS = {
    "calibration_inputs": "skboot._run._calibration",
    "check_calibration": "skboot._run._calibration",
    "DEFAULT_N_RESAMPLES": "skboot._run._context",
    "DEVICES": "skboot._run._context",
    "RUN_CONSTRAINTS": "skboot._run._context",
    "RunContext": "skboot._run._context",
    "available_memory": "skboot._run._context",
    "check_bootstrap_plan": "skboot._run._context",
    "check_distribution_memory": "skboot._run._context",
    "check_run_params": "skboot._run._context",
    "fit_resampler": "skboot._run._context",
    "resolve_resampler": "skboot._run._context",
    "NAN_POLICIES": "skboot._run._data",
    "Data": "skboot._run._data",
    "apply_nan_policy": "skboot._run._data",
    "nan_rows": "skboot._run._data",
    "prepare_data": "skboot._run._data",
    "to_array": "skboot._run._data",
    "ON_ERROR_POLICIES": "skboot._run._failed",
    "Failed": "skboot._run._failed",
    "failed_record": "skboot._run._failed",
    "AUTO_JACKKNIFE_GROUPS": "skboot._run._jackknife",
    "auto_jackknife_groups": "skboot._run._jackknife",
    "check_jackknife_groups": "skboot._run._jackknife",
    "jackknife": "skboot._run._jackknife",
    "random_jackknife_groups": "skboot._run._jackknife",
    "stratified_jackknife": "skboot._run._jackknife",
    "Outputs": "skboot._run._outputs",
    "labelled": "skboot._run._outputs",
    "outputs": "skboot._run._outputs",
    "shaped": "skboot._run._outputs",
    "Run": "skboot._run._run",
    "run": "skboot._run._run",
    "statistic_name": "skboot._run._run",
    "studentized_inputs": "skboot._run._studentized",
    "UNDEFINED_POLICIES": "skboot._run._undefined",
    "Undefined": "skboot._run._undefined",
    "apply_undefined_count": "skboot._run._undefined",
    "apply_undefined_policy": "skboot._run._undefined",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
