"""Input checks of the multiple-comparison procedures: loss series, model labels,
predictions for whole-sample metrics.  Every error names the parameter, what is
allowed and what was given, and is raised before any resampling."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from skboot._kernels.multiple_comparison import constant_columns
from skboot._validation import as_float_array, check_sample_weight, value_error
from skboot.metrics import METRICS

__all__ = [
    "Losses",
    "Predictions",
    "check_benchmark_models",
    "check_losses",
    "check_predictions",
    "constant_difference_error",
    "split_models",
]

#: Values of a column (or a pairwise difference) that span at most this many
#: epsilons of the values' magnitude are constant up to rounding.
CONSTANT_RTOL = 16 * float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Losses:
    """Checked loss series: ``values`` (T, k) float64, one label per column, the
    pandas row index when the user gave one."""

    values: np.ndarray
    labels: list[Hashable]
    index: pd.Index | None


def _label_list(obj: Any, k: int) -> tuple[list[Hashable], bool]:
    if isinstance(obj, pd.DataFrame):
        return list(obj.columns), True
    if isinstance(obj, pd.Series):
        return [obj.name if obj.name is not None else 0], True
    return list(range(k)), False


def _as_2d_float(obj: Any, param: str, owner: str) -> np.ndarray:
    arr = as_float_array(obj, param, owner, ndim=(1, 2), nan="allow")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise value_error(
            param,
            owner,
            f"must be a non-empty 1-D or 2-D "
            f"array-like (T observations x k models). Got shape {arr.shape} instead.",
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        t, c = (int(v) for v in np.argwhere(bad)[0])
        raise value_error(
            param,
            owner,
            f"must contain only finite losses. "
            f"Got {int(bad.sum())} NaN or infinite value(s) instead (first at row "
            f"{t}, column {c}); drop or impute those periods in every series.",
        )
    big = float(np.max(np.abs(arr)))
    with np.errstate(over="ignore"):
        summable = np.isfinite(np.float64(4.0 * big) ** 2 * arr.shape[0])
    if not summable:
        raise value_error(
            param,
            owner,
            f"must hold losses whose sums of "
            "squares are finite in float64 (|loss| below about 1e153 / sqrt(T)). "
            f"Got a largest |loss| of {big!r} over {arr.shape[0]} rows instead; "
            "rescale the losses.",
        )
    return np.ascontiguousarray(arr)


def _min_rows(T: int, param: str, owner: str) -> None:
    if T < 3:
        raise value_error(
            param, owner, f"must have at least 3 observations (rows). Got {T} instead."
        )


def _pandas_index(obj: Any) -> pd.Index | None:
    return obj.index if isinstance(obj, pd.Series | pd.DataFrame) else None


def check_benchmark_models(
    benchmark: Any, models: Any, owner: str
) -> tuple[np.ndarray, Losses]:
    """``(benchmark (T,), models)`` for SPA / StepM."""
    if benchmark is None:
        raise value_error(
            "benchmark", owner, "must be an array-like of T losses. Got None instead."
        )
    if models is None:
        raise value_error(
            "models", owner, "must be an array-like of T x k losses. Got None instead."
        )
    bm = _as_2d_float(benchmark, "benchmark", owner)
    if bm.shape[1] != 1:
        raise value_error(
            "benchmark",
            owner,
            f"must be one loss series (1-D, or "
            f"2-D with one column). Got shape {bm.shape} instead.",
        )
    M = _as_2d_float(models, "models", owner)
    if M.shape[0] != bm.shape[0]:
        raise value_error(
            "models",
            owner,
            f"must have one row per observation "
            f"of the benchmark ({bm.shape[0]}). Got {M.shape[0]} rows instead.",
        )
    _min_rows(M.shape[0], "models", owner)
    ib, im = _pandas_index(benchmark), _pandas_index(models)
    if ib is not None and im is not None and not ib.equals(im):
        raise ValueError(
            f"The 'benchmark' and 'models' parameters of {owner} must have the same "
            "pandas index (rows are paired by position, so differing indexes "
            "suggest misaligned periods). Got different indexes instead; align "
            "them, or pass numpy arrays."
        )
    labels, _ = _label_list(models, M.shape[1])
    return bm[:, 0], Losses(M, labels, im if im is not None else ib)


def check_losses(losses: Any, owner: str) -> Losses:
    """The (T, k) losses of the MCS, k >= 2, no two models differing by a constant."""
    if losses is None:
        raise value_error(
            "losses", owner, "must be an array-like of T x k losses. Got None instead."
        )
    L = _as_2d_float(losses, "losses", owner)
    if L.shape[1] < 2:
        raise value_error(
            "losses",
            owner,
            f"must have at least 2 columns (one "
            f"per model; a model confidence set compares models). Got {L.shape[1]} "
            "instead.",
        )
    _min_rows(L.shape[0], "losses", owner)
    labels, _ = _label_list(losses, L.shape[1])
    return Losses(L, labels, _pandas_index(losses))


def constant_pair(X: np.ndarray) -> tuple[int, int] | None:
    """The first pair of columns (``i < j``, smallest ``i`` then ``j``) of ``X``
    whose difference is constant up to rounding, or None.

    Two columns differ by a constant exactly when their centred versions are
    equal, so candidates are the pairs whose centred sums of squares and whose
    sums against a fixed pseudo-random weight vector agree to 1e-6 (O(T k), then a
    sort); each candidate is then checked exactly: the difference spans at most
    ``CONSTANT_RTOL`` times the columns' magnitude.  No BLAS call (a threaded
    matrix product costs more than the check on a busy machine).
    """
    T = X.shape[0]
    Xc = X - X.mean(axis=0)
    r = np.cos(np.arange(T) * 2.399963229728653)  # golden-angle weights
    g = (Xc * Xc).sum(axis=0)
    f = (Xc * r[:, None]).sum(axis=0)
    scale = np.max(np.abs(X), axis=0)
    tiny = (CONSTANT_RTOL * scale) ** 2 * T
    order = np.argsort(g, kind="stable")
    found: list[tuple[int, int]] = []
    for a, i in enumerate(order):
        for j in order[a + 1 :]:
            if g[j] - g[i] > 1e-6 * (g[i] + g[j]) + tiny[i] + tiny[j]:
                break
            if abs(f[i] - f[j]) > 1e-6 * np.sqrt(T * (g[i] + g[j])) + np.sqrt(
                tiny[i] + tiny[j]
            ):
                continue
            diff = X[:, i] - X[:, j]
            if np.ptp(diff) <= CONSTANT_RTOL * (scale[i] + scale[j]):
                found.append((int(min(i, j)), int(max(i, j))))
    return min(found) if found else None


def constant_difference_error(
    X: np.ndarray, labels: list[Hashable], param: str, owner: str, what: str
) -> ValueError | None:
    """An error naming the first pair of columns of ``X`` that differ by a constant
    (up to rounding), or None."""
    pair = constant_pair(X)
    if pair is None:
        return None
    i, j = pair
    return value_error(
        param,
        owner,
        f"must not hold two models whose {what} "
        f"differ by a constant: models {labels[i]!r} and {labels[j]!r} do, so their "
        "difference has zero variance and cannot be studentized (identical "
        "forecasts?). Drop one of them.",
    )


def constant_column_error(
    D: np.ndarray,
    scale: np.ndarray,
    labels: list[Hashable],
    owner: str,
    what: str,
    why: str = "its losses equal the benchmark's plus a constant",
) -> ValueError | None:
    """An error naming the first model whose ``what`` is constant, or None."""
    j = constant_columns(D, scale, CONSTANT_RTOL)
    if j < 0:
        return None
    return value_error(
        "models",
        owner,
        f"must not hold a model whose {what} is "
        f"constant: model {labels[j]!r} has one ({why}), so it has zero variance "
        "and cannot be studentized. Drop the model, or pass studentize=False.",
    )


@dataclass(frozen=True)
class Predictions:
    """Checked predictions for a whole-sample metric: the prepared metric of every
    model (``METRICS[name].prepare``), one label per model."""

    prepared: list[Any]
    labels: list[Hashable]
    greater_is_better: bool


def split_models(models: Any, param: str, owner: str) -> list[tuple[Hashable, Any]]:
    if isinstance(models, Mapping):
        return list(models.items())
    if isinstance(models, pd.DataFrame):
        return [(c, models[c].to_numpy()) for c in models.columns]
    if isinstance(models, pd.Series):
        return [(models.name if models.name is not None else 0, models.to_numpy())]
    if isinstance(models, list | tuple):
        return list(enumerate(models))
    arr = np.asarray(models)
    if arr.ndim == 2:
        return [(j, arr[:, j]) for j in range(arr.shape[1])]
    if arr.ndim == 1:
        return [(0, arr)]
    raise value_error(
        param,
        owner,
        f"must be a 2-D array or DataFrame (one "
        "column of predictions per model), a list of arrays or a dict name -> "
        f"array. Got an array of shape {arr.shape} instead.",
    )


def _targets(y_true: Any, owner: str) -> np.ndarray:
    """``y_true`` as a 1-D array of at least 3 rows."""
    if y_true is None:
        raise value_error(
            "y_true", owner, "must be an array-like of targets. Got None instead."
        )
    yt = np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true)
    if yt.ndim != 1 or yt.shape[0] < 3:
        raise value_error(
            "y_true",
            owner,
            f"must be 1-D with at least 3 rows. Got shape {yt.shape} instead.",
        )
    return yt


def check_predictions(
    y_true: Any,
    named: list[tuple[str, Any]],
    metric: Any,
    options: dict[str, Any],
    sample_weight: Any,
    groups: Any,
    owner: str,
) -> tuple[np.ndarray, Predictions, np.ndarray | None, list[int]]:
    """Prepare ``metric`` for every model.

    ``named`` is a list of ``(param, value)`` (``("benchmark", pred)``,
    ``("models", preds)``...).  Returns ``y_true`` as an array, the
    predictions, the sample weights, and how many models each parameter gave.
    """
    if not isinstance(metric, str) or metric not in METRICS:
        raise value_error(
            "metric",
            owner,
            f"must be one of the fused metrics "
            f"{sorted(METRICS)} (the names of metric_ci). Got {metric!r} instead.",
        )
    spec = METRICS[metric]
    extra = sorted(set(options) - set(spec.options))
    if extra:
        raise ValueError(
            f"The metric {metric!r} of {owner} accepts the options "
            f"{list(spec.options)}. Got {extra} instead."
        )
    yt = _targets(y_true, owner)
    n = yt.shape[0]
    prepared: list[Any] = []
    labels: list[Hashable] = []
    counts: list[int] = []
    for param, value in named:
        if value is None:
            raise value_error(param, owner, "must hold predictions. Got None instead.")
        items: list[tuple[Hashable, Any]] = (
            [("benchmark", value)]
            if param == "benchmark"
            else split_models(value, param, owner)
        )
        counts.append(len(items))
        for label, pred in items:
            arr = np.asarray(pred.to_numpy() if hasattr(pred, "to_numpy") else pred)
            if arr.ndim == 0 or arr.shape[0] != n:
                raise value_error(
                    param,
                    owner,
                    f"must have one prediction "
                    f"per row of y_true ({n}). Got {arr.shape[0] if arr.ndim else 0} "
                    f"for model {label!r} instead.",
                )
            try:
                prepared.append(spec.prepare(yt, arr, **options))
            except ValueError as exc:
                raise ValueError(
                    f"{exc} (model {label!r} in '{param}' of {owner})"
                ) from exc
            labels.append(label)
    sw = None if sample_weight is None else check_sample_weight(sample_weight, n, owner)
    if groups is not None and np.shape(groups)[:1] != (n,):
        raise value_error(
            "groups",
            owner,
            f"must have one label per row of "
            f"y_true ({n}). Got shape {np.shape(groups)} instead.",
        )
    return yt, Predictions(prepared, labels, spec.greater_is_better), sw, counts
