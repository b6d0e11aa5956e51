"""Residual bootstrap of a (seasonal) ARIMA model fitted by statsmodels."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from skboot._kernels.model_based import WEIGHT_CODES
from skboot._random import RootKey
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import (
    NONE,
    Constraint,
    Options,
    Predicate,
    as_float_array,
    is_int,
    param_error,
    value_error,
)
from skboot.model_based._arma_fit import (
    ARMAFit,
    arima_fit,
    fit_statsmodels_arima,
    is_arima_results,
)
from skboot.model_based._arma_plan import ARMAResidualPlan, ARMAWildPlan
from skboot.model_based._base import SyntheticResampler
from skboot.model_based._residual import BLOCK_LENGTH
from skboot.resamplers import BaseResampler, ResamplingPlan

__all__ = ["ARIMAResidualBootstrap"]

TRENDS = ("n", "c", "t", "ct")


def _orders(value: Any, size: int) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == size
        and all(is_int(v) and int(v) >= 0 for v in value)
    )


ORDER = Predicate(lambda v: _orders(v, 3), "a tuple (p, d, q) of ints >= 0")
SEASONAL_ORDER = Predicate(
    lambda v: _orders(v, 4) and (int(v[3]) >= 2 or not any(v[:3])),
    "a tuple (P, D, Q, s) of ints >= 0 with a period s >= 2 (or (0, 0, 0, 0))",
)


class ARIMAResidualBootstrap(SyntheticResampler):
    """Residual bootstrap of an ARIMA(p, d, q) or seasonal ARIMA model.

    Algorithm (the ARIMA residual bootstrap of Kreiss & Franke 1992 and Davison &
    Hinkley 1997, sec. 8.2.2, on the differenced scale):

    1. Fit statsmodels' ``ARIMA(y, exog, order, seasonal_order, trend)`` (a
       regression ``y_t = r_t + eta_t`` with (seasonal) ARIMA errors; ``r_t``
       holds the trend and exogenous terms), or take a fitted statsmodels
       ``ARIMAResults`` given as ``X``.  A fit whose AR polynomial is not
       stationary or whose MA polynomial is not invertible is refused.
    2. Difference ``eta = y - r`` with ``(1 - L)^d (1 - L^s)^D`` into ``w`` and
       compute the conditional residuals of the ARMA model of ``w`` (zero
       before the ``P`` AR lags of the expanded polynomial), then centre them.
    3. Replicate ``b``: draw ``n - K - P`` residual indices (``K = d + s D``), iid
       on the "indices" stream (so they equal ``Bootstrap(random_state=seed)
       .fit(residuals_).replicate(b).indices``) or in moving blocks on the
       "block_starts" stream; run the ARMA recursion from the observed first
       ``P`` values of ``w``; integrate back from the observed first ``K``
       values of ``eta``; add ``r``.

    **Wild multipliers.**  With ``weights`` given, replicate ``b`` keeps every
    residual at its own time and re-scales it: innovation ``t`` is ``e_t v_t``
    (``v`` of mean 0 and variance 1, one per residual, or one per block of
    ``block_length`` residuals; read on purpose "wild" exactly as
    :class:`WildBootstrap` reads its multipliers, so
    ``replicate(b).multipliers`` regenerates them).  This keeps the
    heteroskedasticity pattern of the residuals over time (the wild
    autoregressive bootstrap of Gonçalves & Kilian 2004, here on the ARMA
    recursion of ``w``).

    The model is fitted once, not per replicate.  Replicate ``b`` is a pure
    function of ``(random_state, b)``: the same for any ``chunk_size`` or
    ``n_jobs``.  Generating a replicate costs O(n (P + Q + K)) in a compiled
    kernel, with ``P``, ``Q`` the lengths of the expanded AR and MA polynomials;
    memory is O(chunk * n) whatever ``n_resamples``.  Fitting needs statsmodels
    (``pip install "skboot[statsmodels]"``), imported only then.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    order : tuple of 3 ints, optional
        ``(p, d, q)``, as in statsmodels.  Required when ``X`` is data; None (or
        the same orders) when ``X`` is fitted statsmodels results.
    seasonal_order : tuple of 4 ints, optional
        ``(P, D, Q, s)``; None means ``(0, 0, 0, 0)`` for data, the results'
        orders for fitted results.
    trend : {"n", "c", "t", "ct"}, optional
        statsmodels' trend; None is its default (``"c"`` without differencing,
        ``"n"`` with).
    block_length : int, optional
        None resamples the residuals iid; an int ``L >= 1`` resamples moving
        blocks of ``L`` consecutive residuals (with ``weights``: one multiplier
        per block of ``L`` residuals).
    weights : {"rademacher", "mammen", "webb", "normal"}, optional
        None resamples the residuals; a law re-scales each residual in place by
        a wild multiplier of that law (mean 0, variance 1; "normal" is the
        standard normal), as :class:`WildBootstrap` does for an AR series.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    params_ : ndarray
        The fitted parameters (statsmodels' ``params``), named by
        ``param_names_``.
    param_names_ : list of str
    ar_coef_ : ndarray
        ``a_1 .. a_P``, the expanded AR polynomial ``1 - a_1 L - ... - a_P L^P
        = phi(L) Phi(L^s)``.
    ma_coef_ : ndarray
        ``m_1 .. m_Q``, the expanded MA polynomial ``1 + m_1 L + ... + m_Q L^Q``.
    residuals_ : ndarray of shape (n - K - P,)
        The centred conditional residuals that are resampled.
    order_, seasonal_order_ : tuple
        The orders fitted.
    results_ : object or None
        The statsmodels results (None when the resampler was fitted on results
        given as ``X``: those are the caller's).
    n_multipliers_ : int or None
        With ``weights``: multipliers per replicate (one per residual or block
        of residuals); None without.
    key_, seed_entropy_, n_samples_, plan_
        As for every skboot resampler.

    See Also
    --------
    ResidualBootstrap : AR(p), also with exogenous regressors (ARX).
    SieveBootstrap : An AR approximation of growing order.
    WildBootstrap : Wild multipliers for an AR series or a regression.

    References
    ----------
    .. [1] J.-P. Kreiss and J. Franke, "Bootstrapping stationary autoregressive
           moving-average models", Journal of Time Series Analysis 13(4), 1992.
    .. [2] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their
           Application*, Cambridge, 1997, section 8.2.2.
    .. [3] G. E. P. Box and G. M. Jenkins, *Time Series Analysis: Forecasting
           and Control*, revised ed., Holden-Day, 1976.
    .. [4] S. Gonçalves and L. Kilian, "Bootstrapping autoregressions with
           conditional heteroskedasticity of unknown form", Journal of
           Econometrics 123(1), 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import ARIMAResidualBootstrap
    >>> rng = np.random.default_rng(0)
    >>> e = rng.normal(size=401)
    >>> w = np.zeros(400)
    >>> for t in range(1, 400):
    ...     w[t] = 0.5 * w[t - 1] + e[t + 1] + 0.3 * e[t]
    >>> y = 10 + np.cumsum(w)
    >>> ab = ARIMAResidualBootstrap(999, order=(1, 1, 1), random_state=0).fit(y)
    >>> ab.param_names_, ab.params_.round(2)
    (['ar.L1', 'ma.L1', 'sigma2'], array([0.48, 0.31, 0.99]))
    >>> bool(ab.sample(3)[0] == y[0]), ab.sample(3).shape
    (True, (400,))
    >>> from skboot import bootstrap
    >>> res = bootstrap(y, "mean", resampler=ab, random_state=0)
    >>> round(res.standard_error, 2)
    29.55
    >>> wild = ARIMAResidualBootstrap(99, order=(1, 1, 1), weights="normal",
    ...                               random_state=0).fit(y)
    >>> wild.replicate(0).multipliers.shape == wild.residuals_.shape
    True
    """

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        order: tuple[int, int, int] | None = None,
        seasonal_order: tuple[int, int, int, int] | None = None,
        trend: str | None = None,
        block_length: int | None = None,
        weights: str | None = None,
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.order = order
        self.seasonal_order = seasonal_order
        self.trend = trend
        self.block_length = block_length
        self.weights = weights

    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "order": [ORDER, NONE],
        "seasonal_order": [SEASONAL_ORDER, NONE],
        "trend": [Options(TRENDS), NONE],
        "block_length": BLOCK_LENGTH,
        "weights": [Options(tuple(WEIGHT_CODES)), NONE],
    }

    def _plan_for(
        self,
        X: ArrayLike,
        y: ArrayLike | None = None,
        groups: ArrayLike | None = None,
        *,
        key: RootKey | None = None,
    ) -> ResamplingPlan:
        """Fitted statsmodels results count their series' values; data go the
        usual way."""
        if not is_arima_results(X):
            return super()._plan_for(X, y, groups, key=key)
        for name, value in (("y", y), ("groups", groups)):
            if value is not None:
                raise value_error(
                    name,
                    self._name,
                    "must be None when X is fitted statsmodels results (they hold "
                    f"the series and any regressors). Got {type(value).__name__} "
                    "instead.",
                )
        results: Any = X
        n = int(np.asarray(results.model.endog).shape[0])
        return self._make_plan(
            self._resolve_key() if key is None else key, n, X, None, None
        )

    def _results(self, X: Any, y: Any) -> tuple[Any, bool]:
        """The statsmodels results to bootstrap, and whether they were fitted
        here."""
        if is_arima_results(X):
            self._check_same(X.model)
            return X, False
        if self.order is None:
            raise param_error(
                "order",
                self._name,
                "a tuple (p, d, q) of ints >= 0 when X is data (None takes the "
                "orders of fitted statsmodels results given as X)",
                None,
            )
        if y is None:
            series = as_float_array(X, "X", self._name, ndim=(1, 2))
            if series.ndim == 2 and series.shape[1] != 1:
                raise value_error(
                    "X",
                    self._name,
                    "must be one series (n,) when y is None (with y given, X holds "
                    f"the exogenous regressors). Got shape {series.shape} instead.",
                )
            exog = None
        else:
            series = as_float_array(y, "y", self._name, ndim=(1,))
            exog = as_float_array(X, "X", self._name, ndim=(1, 2))
        seasonal = (0, 0, 0, 0) if self.seasonal_order is None else self.seasonal_order
        res = fit_statsmodels_arima(
            series.reshape(-1),
            exog,
            tuple(int(v) for v in self.order),  # type: ignore[arg-type]
            tuple(int(v) for v in seasonal),  # type: ignore[arg-type]
            self.trend,
            self._name,
        )
        return res, True

    def _check_same(self, model: Any) -> None:
        """Orders given with fitted results must be the results' own."""
        for name, mine, theirs in (
            ("order", self.order, tuple(model.order)),
            ("seasonal_order", self.seasonal_order, tuple(model.seasonal_order)),
            ("trend", self.trend, getattr(model, "trend", None)),
        ):
            if (
                mine is not None
                and (tuple(mine) if name != "trend" else mine) != theirs
            ):
                raise value_error(
                    name,
                    self._name,
                    f"must be None or the fitted results' own {theirs!r} when X is "
                    f"fitted statsmodels results. Got {mine!r} instead.",
                )

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ARMAResidualPlan:
        if groups is not None:
            raise value_error(
                "groups",
                self._name,
                "must be None: an ARIMA series has no clusters (use block_length "
                f"for dependent residuals). Got {type(groups).__name__} instead.",
            )
        res, own = self._results(X, y)
        fit = arima_fit(res, self._name)
        resid = fit.residuals - fit.residuals.mean()
        length = 0 if self.block_length is None else int(self.block_length)
        if length > resid.shape[0]:
            raise value_error(
                "block_length",
                self._name,
                f"must be at most the number of residuals {resid.shape[0]}. Got "
                f"{length} instead.",
            )
        P = fit.ar.shape[0]
        wild: dict[str, Any] = (
            {} if self.weights is None else {"kind": WEIGHT_CODES[self.weights]}
        )
        return (ARMAResidualPlan if self.weights is None else ARMAWildPlan)(
            key,
            n_samples,
            owner=self._name,
            response=None if y is None else fit.series,
            w0=np.ascontiguousarray(fit.w[:P]),
            mu=np.zeros(fit.w.shape[0]),
            ar=fit.ar,
            ma=fit.ma,
            delta=fit.delta,
            y0=fit.y0,
            level=fit.level,
            residuals=np.ascontiguousarray(resid),
            block_length=length,
            fit=(fit, res if own else None),
            **wild,
        )

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        fit, res = plan.fit
        assert isinstance(fit, ARMAFit)
        return {
            "params_": fit.params.copy(),
            "param_names_": list(fit.param_names),
            "ar_coef_": fit.ar.copy(),
            "ma_coef_": fit.ma.copy(),
            "residuals_": np.asarray(plan.residuals).copy(),
            "order_": fit.order,
            "seasonal_order_": fit.seasonal_order,
            "results_": res,
            "n_multipliers_": (
                int(plan.n_multipliers) if isinstance(plan, ARMAWildPlan) else None
            ),
        }
