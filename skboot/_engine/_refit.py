"""Estimator refits as engine statistics (tier 4): a clone of the estimator is fitted
per replicate, with ``sample_weight=counts`` when its ``fit`` accepts it (no row is
copied), else on the gathered rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from skboot._engine._statistic import FAILED, Statistic, call_replicate, call_user
from skboot._exceptions import StatisticError
from skboot._validation import check_sample_weight, param_error, value_error
from skboot.resamplers import ResamplingPlan

__all__ = [
    "EstimatorStatistic",
    "RefitMixin",
    "check_refit_mode",
    "n_rows",
    "take_rows",
]


def take_rows(a: Any, rows: np.ndarray) -> Any:
    """Rows ``rows`` of an array or pandas object (positional); None stays None."""
    if a is None:
        return None
    if hasattr(a, "iloc"):
        return a.iloc[rows]
    return a[rows]


def n_rows(X: Any) -> int:
    """Number of rows of an array-like."""
    return int(X.shape[0]) if hasattr(X, "shape") else len(X)


class RefitMixin:
    """Shared refit logic of :class:`EstimatorStatistic` and the OOB scorer."""

    estimator: Any
    fit_params: dict[str, Any]
    use_sample_weight: bool

    def _fit(
        self,
        b: int,
        X: Any,
        y: Any,
        sample_weight: Any,
        scratch: dict[str, Any] | None = None,
    ) -> Any:
        """A clone fitted on the rows given; with a task's ``scratch``, a fit
        that raises is recorded (:func:`call_replicate`) and FAILED returned."""
        est = clone(self.estimator)
        kw = dict(self.fit_params)
        if sample_weight is not None:
            kw["sample_weight"] = sample_weight
        what = f"fit of {type(self.estimator).__name__}"
        args = (X,) if y is None else (X, y)
        if scratch is None:
            call_user(est.fit, args, kw, what=what, b=b)
        elif call_replicate(est.fit, args, kw, b=b, scratch=scratch, what=what) is (
            FAILED
        ):
            return FAILED
        return est

    def _fit_replicate(
        self,
        b: int,
        X: Any,
        y: Any,
        sw: Any,
        w_row: np.ndarray | None,
        plan: Any,
        scratch: dict[str, Any] | None = None,
    ) -> tuple[Any, np.ndarray]:
        """Fit on replicate ``b``; returns the fitted clone (FAILED when the fit
        raised and ``scratch`` records failures) and the row counts."""
        if self.use_sample_weight:
            assert w_row is not None
            weights = w_row if sw is None else w_row * sw
            return self._fit(b, X, y, weights, scratch), w_row
        idx = plan.indices(b)
        counts = np.bincount(idx, minlength=plan.n_samples).astype(np.float64)
        est = self._fit(
            b,
            take_rows(X, idx),
            take_rows(y, idx),
            None if sw is None else sw[idx],
            scratch,
        )
        return est, counts


def check_refit_mode(
    estimator: Any, use_sample_weight: Any, has_sw: bool, owner: str
) -> bool:
    """Whether replicates refit with ``sample_weight=counts`` (True) or on the
    gathered rows (False); errors when the estimator cannot honour what is asked."""
    supports = has_fit_parameter(estimator, "sample_weight")
    if use_sample_weight is None:
        mode = supports
    elif isinstance(use_sample_weight, bool | np.bool_):
        mode = bool(use_sample_weight)
        if mode and not supports:
            raise value_error(
                "use_sample_weight",
                owner,
                f"is True but "
                f"{type(estimator).__name__}.fit has no 'sample_weight' parameter.",
            )
    else:
        raise param_error(
            "use_sample_weight", owner, "None or a bool", use_sample_weight
        )
    if has_sw and not supports:
        raise value_error(
            "sample_weight",
            owner,
            f"needs an estimator whose fit "
            f"accepts sample_weight. Got {type(estimator).__name__} instead.",
        )
    return mode


class EstimatorStatistic(RefitMixin, Statistic):
    """A statistic of a refitted estimator (tier 4 of the engine).

    Replicate ``b`` fits a clone of ``estimator`` and returns
    ``statistic(fitted_clone)``: a number or an array, e.g. the coefficients of
    a Pipeline's last step.  An array of two or more axes (a multiclass
    ``coef_`` of shape (n_classes, n_features)) runs flattened in C order
    (``k`` values, :attr:`output_shape` records the shape) and results restore
    it: ``estimate`` of that shape, ``distribution`` ``(n_resamples, *shape)``,
    interval bounds of that shape (each element's interval, computed as for a
    vector).

    How a replicate is fitted:

    - when ``estimator.fit`` accepts ``sample_weight`` (and
      ``use_sample_weight`` is not False): on all ``n`` rows with
      ``sample_weight = counts_b * sample_weight``, rows not drawn getting
      weight 0, as scikit-learn's bagging does.  No row is copied, and a
      classifier keeps every class in ``classes_``.  This equals fitting on the
      repeated rows for estimators whose fit is a weighted sum over rows (linear
      models, most losses); it differs for estimators whose data-dependent
      choices count rows rather than weights (e.g. ``min_samples_leaf`` of trees,
      scalers inside a Pipeline that ignore weights, k-means initialisation);
    - otherwise (e.g. a Pipeline, whose ``fit`` has no ``sample_weight``): on
      the gathered rows ``X[idx], y[idx]`` (repeats included).

    Parameters
    ----------
    estimator : estimator object
        Cloned for every fit; never fitted itself.
    statistic : callable
        ``statistic(fitted_estimator) -> float or array``.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), default=None
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights, resampled with the rows.
    fit_params : dict, default=None
        Other keyword arguments of ``fit`` (not row-aligned; passed as is).
    use_sample_weight : bool or None, default=None
        None: use ``sample_weight=counts`` when ``fit`` accepts it.
    name : str, default=None

    Notes
    -----
    The constructor fits the estimator once on the full data (the estimate,
    which also fixes the number of outputs ``k``).  ``subset(rows)`` builds the
    statistic on ``X[rows]`` (the generic jackknife then refits ``n`` times, or
    once per group with a group plan).  Wiring into
    :class:`~skboot.BootstrapStatistic`::

        stat = EstimatorStatistic(estimator, statistic, X, y)
        result = _run(_prepare_data(X, owner), stat, resampler, y=y,
                      groups=groups, ...)

    ``_run`` accepts a prebuilt statistic; the resampler is fitted on ``X`` with
    ``y`` (strata) and ``groups``.
    """

    def __init__(
        self,
        estimator: Any,
        statistic: Callable[[Any], Any],
        X: Any,
        y: Any = None,
        *,
        sample_weight: Any = None,
        fit_params: dict[str, Any] | None = None,
        use_sample_weight: bool | None = None,
        name: str | None = None,
    ) -> None:
        owner = "EstimatorStatistic"
        if not callable(statistic):
            raise param_error(
                "statistic", owner, "a callable of the fitted estimator", statistic
            )
        if fit_params is not None and not isinstance(fit_params, dict):
            raise param_error("fit_params", owner, "None or a dict", fit_params)
        n = n_rows(X)
        if y is not None and n_rows(y) != n:
            raise value_error(
                "y",
                owner,
                f"must have one row per row of X ({n}). Got {n_rows(y)} instead.",
            )
        sw = (
            None
            if sample_weight is None
            else check_sample_weight(sample_weight, n, owner, rows_of="X")
        )
        self.estimator = estimator
        self.statistic = statistic
        self.fit_params = dict(fit_params or {})
        self.use_sample_weight = check_refit_mode(
            estimator, use_sample_weight, sw is not None, owner
        )
        self._has_y = y is not None
        self._has_sw = sw is not None
        self.arrays = (
            X,
            *((y,) if y is not None else ()),
            *((sw,) if sw is not None else ()),
        )
        self.name = str(name or getattr(statistic, "__name__", "statistic"))
        value = self._value(-1, self._fit(-1, X, y, sw), None)
        self.output_shape = value.shape if value.ndim > 1 else None
        self._estimate = value.reshape(-1)
        self.k = int(self._estimate.shape[0])

    def _unpack(self, arrays: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        X = arrays[0]
        y = arrays[1] if self._has_y else None
        sw = arrays[1 + self._has_y] if self._has_sw else None
        return X, y, sw

    def _value(
        self,
        b: int,
        fitted: Any,
        k: int | None,
        scratch: dict[str, Any] | None = None,
    ) -> np.ndarray:
        """The statistic of ``fitted`` in its own shape; with ``k`` (a replicate)
        checked against the original data's: the same shape when that has two or
        more axes (a multiclass ``coef_``), else the same number of values.
        With a task's ``scratch`` that records failures, a fit or statistic
        that raised gives NaN."""
        where = "the original data" if b < 0 else f"replicate {b}"
        if fitted is FAILED:
            return np.full(self.k, np.nan)
        options: dict[str, Any] = dict(b=b, where=f"the estimator fitted to {where}")
        func = self._as_floats
        if scratch is None:
            value = call_user(func, (fitted,), **options)
        else:
            value = call_replicate(func, (fitted,), None, scratch=scratch, **options)
            if value is FAILED:
                return np.full(self.k, np.nan)
        shape = self.output_shape
        if k is not None and shape is not None and value.shape != shape:
            raise StatisticError(
                f"The statistic returned shape {value.shape} on {where}, but "
                f"{shape} on the original data.",
                b,
            )
        if k is not None and value.size != k:
            raise StatisticError(
                f"The statistic returned {value.size} value(s) on {where}, but "
                f"{k} on the original data.",
                b,
            )
        return value

    def _as_floats(self, fitted: Any) -> np.ndarray:
        return np.asarray(self.statistic(fitted), dtype=np.float64)

    def estimate(self) -> np.ndarray:
        return self._estimate

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        X, y, sw = self._unpack(arrays)
        nb = out.shape[0]
        W = None
        if self.use_sample_weight:
            W = np.empty((nb, plan.n_samples))
            plan.fill_weights_chunk(b0, W)
        elif plan.layout == "weights":
            raise ValueError(
                f"{type(self.estimator).__name__}.fit has no 'sample_weight' "
                "parameter, so it cannot be refitted on the continuous weights of "
                "BayesianBootstrap. Use an index resampler."
            )
        for r in range(nb):
            w_row = None if W is None else W[r]
            fitted, _ = self._fit_replicate(b0 + r, X, y, sw, w_row, plan, scratch)
            out[r] = self._value(b0 + r, fitted, self.k, scratch).reshape(-1)

    def subset(self, rows: np.ndarray) -> Statistic:
        X, y, sw = self._unpack(self.arrays)
        return EstimatorStatistic(
            self.estimator,
            self.statistic,
            take_rows(X, rows),
            take_rows(y, rows),
            sample_weight=None if sw is None else sw[rows],
            fit_params=self.fit_params,
            use_sample_weight=self.use_sample_weight,
            name=self.name,
        )
