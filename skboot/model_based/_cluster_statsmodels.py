"""A statsmodels OLS or WLS model, or its fitted results, as the input of
:func:`skboot.wild_cluster_bootstrap`.

statsmodels is an optional dependency: it is never imported here.  A results
object is recognised by its attributes (``params`` and a ``model`` with ``exog``,
``endog`` and ``fit``), a model (as wildboottest takes it) by ``exog``, ``endog``
and ``fit``, and the model's class is read through the method resolution
order by name, so a subclass of OLS or WLS is accepted and anything else (GLS,
GLM, IV, quantile regression, robust linear models, ...) is refused by name.

What is taken from the model: the design ``exog`` as fitted (its constant
included, nothing added), the response ``endog``, the weights of a WLS model
(rows scaled by ``sqrt(w)``, which is how statsmodels forms the weighted fit and
its cluster-robust variance), the names of the parameters (``coef`` may name
one), the rows used (``model.data.row_labels``: a pandas ``groups`` is aligned to
them, so the rows the formula dropped for missing values are dropped from the
clusters too), the formula's data frame (``groups`` may name its columns), and
the clusters of a fit with ``cov_type="cluster"`` when ``groups`` is not given.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from skboot._validation import as_float_array, param_error, value_error

__all__ = [
    "SUPPORTED_MODELS",
    "StatsmodelsModel",
    "StatsmodelsResults",
    "is_results",
    "resolve_labels",
    "results_inputs",
]


class StatsmodelsModel(Protocol):
    """What is read of a statsmodels regression model."""

    exog: Any
    endog: Any

    def fit(self, *args: Any, **kwargs: Any) -> Any: ...


class StatsmodelsResults(Protocol):
    """What is read of fitted statsmodels results: their model."""

    model: StatsmodelsModel


#: The statsmodels model classes whose fits are accepted.
SUPPORTED_MODELS = ("OLS", "WLS")


def _looks_like_model(obj: Any) -> bool:
    return hasattr(obj, "exog") and hasattr(obj, "endog") and hasattr(obj, "fit")


def is_results(obj: Any) -> bool:
    """Whether ``obj`` looks like a statsmodels model or its fitted results
    (duck typing): results have a ``model``, a model has ``exog``, ``endog``
    and ``fit``.  (``params`` is not read: statsmodels' results wrapper builds a
    pandas object on every access.)"""
    return _looks_like_model(getattr(obj, "model", None)) or _looks_like_model(obj)


def _model(obj: Any) -> Any:
    """The model of a results object, or the model itself."""
    model = getattr(obj, "model", None)
    return model if _looks_like_model(model) else obj


def _model_kind(model: Any) -> str | None:
    """``"OLS"`` or ``"WLS"`` when the model is one of them (or a subclass),
    read from the class names of its method resolution order; else None."""
    for cls in type(model).__mro__:
        module = getattr(cls, "__module__", "")
        if module.startswith("statsmodels.regression.linear_model"):
            if cls.__name__ in SUPPORTED_MODELS:
                return cls.__name__
            if cls.__name__ in ("GLS", "GLSAR", "RegressionModel"):
                return None
    return None


def results_inputs(
    results: Any, y: Any, owner: str
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
    """The (weighted) design, response and parameter names of an OLS or WLS
    model (fitted or not: only its data are used), and the row scale
    ``sqrt(w)`` of a WLS fit (None for OLS); anything else is refused naming
    what is supported."""
    model = _model(results)
    if _model_kind(model) is None:
        raise param_error(
            "X",
            owner,
            "an array of regressors or the results of a fitted statsmodels OLS or "
            "WLS model (formula API included); other models (GLS, GLM, IV, "
            "quantile or robust regression, ...) are not supported",
            type(model).__name__
            if model is results
            else f"{type(results).__name__} of {type(model).__name__}",
        )
    if y is not None:
        raise value_error(
            "y",
            owner,
            "must be None when X is a fitted statsmodels model (the "
            f"response is the model's). Got {type(y).__name__} instead.",
        )
    D = as_float_array(np.asarray(model.exog), "X", owner, ndim=(2,), min_rows=0)
    yf = as_float_array(np.asarray(model.endog), "y", owner, ndim=(1,), min_rows=0)
    w = getattr(model, "weights", None)
    s = None
    if w is not None and not np.isscalar(w):
        w = as_float_array(np.asarray(w), "X", owner, ndim=(1,), min_rows=0)
        if np.any(w < 0):
            raise value_error(
                "X",
                owner,
                "must be a WLS fit with non-negative weights. Got a weight "
                f"of {float(w.min()):.3g} instead.",
            )
        s = np.sqrt(np.broadcast_to(w, yf.shape))
        D = D * s[:, None]
        yf = yf * s
    names = list(getattr(model, "exog_names", None) or [])
    return np.ascontiguousarray(D), yf, names, s


def fitted_groups(results: Any) -> Any:
    """The clusters of a fit with ``cov_type="cluster"``, else None."""
    if getattr(results, "cov_type", "") != "cluster":
        return None
    return getattr(results, "cov_kwds", {}).get("groups")


def resolve_labels(labels: Any, results: Any, name: str, owner: str) -> Any:
    """``groups`` or ``bootstrap_groups`` given with a results object: column
    names of the formula's data frame, or pandas labels aligned to the model's
    rows; other values unchanged."""
    data = getattr(_model(results), "data", None)
    rows = getattr(data, "row_labels", None)
    if isinstance(labels, str) or (
        isinstance(labels, (list, tuple))
        and labels
        and all(isinstance(v, str) for v in labels)
    ):
        frame = getattr(data, "frame", None)
        columns = [labels] if isinstance(labels, str) else list(labels)
        if frame is None or any(c not in frame.columns for c in columns):
            raise param_error(
                name,
                owner,
                "labels, or column names of the data frame the model was fitted "
                "on with the formula API"
                + ("" if frame is None else f" ({list(frame.columns)})"),
                labels,
            )
        labels = frame[columns[0]] if isinstance(labels, str) else frame[columns]
    if (
        rows is not None
        and hasattr(labels, "index")
        and hasattr(labels, "loc")
        and not labels.index.equals(rows)
        and labels.index.is_unique
        and rows.isin(labels.index).all()
    ):
        labels = labels.loc[rows]
    return labels
