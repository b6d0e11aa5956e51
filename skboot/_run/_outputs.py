"""The outputs of a run as the user gave the data: a float for a scalar statistic,
arrays for vectors, pandas labelled as the input columns, or the statistic's own
shape for one of two or more axes (a refit's multiclass ``coef_``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._run._data import Data
from skboot._run._run import Run

__all__ = ["Outputs", "labelled", "outputs", "shaped"]


@dataclass(frozen=True)
class Outputs:
    """Estimate, distribution, standard error (``ddof=1``) and bias, presented."""

    estimate: Any
    distribution: Any
    standard_error: Any
    bias: Any


def outputs(run: Run) -> Outputs:
    """The run's values in the user's terms (see the module docstring)."""
    stat, data = run.context.stat, run.context.data
    dist, est = run.distribution, run.estimate
    B = dist.shape[0]
    shape = (
        stat.output_shape if stat.output_shape and len(stat.output_shape) > 1 else None
    )
    scalar = (
        shape is None
        and est.shape[0] == 1
        and not stat.vector_output(data.arrays[0].ndim)
    )
    kept = run.failed.kept(dist)  # failed replicates hold no value
    with np.errstate(invalid="ignore"):  # inf - inf under nan_policy="propagate"
        se = (
            kept.std(axis=0, ddof=1)
            if kept.shape[0] > 1
            else np.full(est.shape, np.nan)
        )
        bias = kept.mean(axis=0) - est
    if shape is not None:  # e.g. a multiclass coef_: (n_resamples, *shape)
        e, s, b = (shaped(v.reshape(shape), data) for v in (est, se, bias))
        return Outputs(e, dist.reshape((B, *shape)), s, b)
    if scalar:
        values = Outputs(float(est[0]), dist[:, 0], float(se[0]), float(bias[0]))
        if data.kind == "series":
            import pandas as pd

            values = Outputs(
                values.estimate,
                pd.Series(dist[:, 0], name=data.labels),
                values.standard_error,
                values.bias,
            )
        return values
    if data.kind == "frame" and est.shape[0] == len(data.labels):
        import pandas as pd

        return Outputs(
            pd.Series(est, index=data.labels),
            pd.DataFrame(dist, columns=data.labels),
            pd.Series(se, index=data.labels),
            pd.Series(bias, index=data.labels),
        )
    return Outputs(est, dist, se, bias)


def labelled(value: Any, estimate: Any, data: Data | None) -> Any:
    """Interval endpoints presented as the estimate is: a Series labelled as a
    column-wise estimate of a DataFrame, the statistic's own shape for one of two
    or more axes, other values as given."""
    shape = np.shape(estimate)
    if len(shape) >= 2:
        return shaped(np.reshape(value, shape), data)
    import pandas as pd

    if np.ndim(value) == 0 or not isinstance(estimate, pd.Series):
        return value
    if len(estimate) == np.size(value):
        return pd.Series(value, index=estimate.index)
    return value


def shaped(value: np.ndarray, data: Data | None) -> Any:
    """A value of two or more axes; a DataFrame when it is 2-d and its last axis
    matches the data's column labels (rows by position), else as is."""
    if (
        data is not None
        and data.kind == "frame"
        and value.ndim == 2
        and value.shape[1] == len(data.labels)
    ):
        import pandas as pd

        return pd.DataFrame(value, columns=data.labels)
    return value
