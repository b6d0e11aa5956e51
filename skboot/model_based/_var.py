"""Residual bootstrap of a vector autoregression (VAR) of several series."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from skboot._random import RootKey
from skboot._typing import RandomStateLike
from skboot._validation import (
    Constraint,
    Interval,
    as_float_array,
    value_error,
)
from skboot.model_based._base import AUTO, SyntheticResampler, resolve_burn_in
from skboot.model_based._residual import (
    AR_CONSTRAINTS,
    BLOCK_LENGTH,
    MAX_BURN_IN,
    check_order_range,
    gib,
    physical_memory,
)
from skboot.model_based._var_fit import (
    VARFit,
    check_var_stable,
    default_var_max_order,
    fit_var,
    max_var_order,
    select_var_order,
)
from skboot.model_based._var_plan import VARResidualPlan, VARXResidualPlan
from skboot.model_based._varx import varx_plan
from skboot.resamplers import BaseResampler

__all__ = ["VARResidualBootstrap"]


def _series(X: Any, owner: str) -> np.ndarray:
    """The (n, m) float series of ``X``, ``m >= 2``, or a clear error."""
    x = as_float_array(X, "X", owner, ndim=(2,), nan="allow")
    if x.shape[1] < 2:
        raise value_error(
            "X",
            owner,
            "must have at least 2 columns (one per series of the VAR; a single "
            f"series is an AR model: use ResidualBootstrap). Got shape {x.shape} "
            "instead.",
        )
    return np.ascontiguousarray(x)


class VARResidualBootstrap(SyntheticResampler):
    """Residual bootstrap of a VAR(p) model of several series (n x m).

    Algorithm (Lütkepohl 2005, appendix D.3; Kilian 1998):

    1. Fit ``y_t = c + A_1 y_{t-1} + ... + A_p y_{t-p} + u_t`` by OLS, equation by
       equation (statsmodels' ``VAR(...).fit(p, trend="c")``), with ``p`` given
       or chosen by AIC, BIC or HQIC in ``[min_order, max_order]`` (the values of
       statsmodels' ``VAR.select_order``); a fit whose companion matrix has an
       eigenvalue of modulus ``>= 1`` is refused.
    2. Centre each column of the ``n - p`` residual vectors.
    3. Replicate ``b``: draw ``burn_in + n - p`` residual *rows* (the ``m``
       variables of a row stay together, keeping their contemporaneous
       correlation), iid (the first ``n - p`` equal
       ``Bootstrap(random_state=seed).fit(residuals_).replicate(b).indices``) or
       in moving blocks of ``block_length`` rows; start from ``p`` observed rows
       (at a uniform random position when ``burn_in > 0``, else the first ``p``);
       run the recursion with those residuals; keep the last ``n`` rows.

    Replicate ``b`` is a pure function of ``(random_state, b)``: the same for any
    ``chunk_size`` or ``n_jobs``.  Replicates are generated series, not row views:
    ``split`` is not available; use :func:`skboot.bootstrap` with
    ``resampler=``, :meth:`sample` or :meth:`values`.  Built-in statistics
    (``"mean"``, ``"std"``, ...) give one value per series.  Generating a
    replicate costs O((burn_in + n) p m^2); memory is O(chunk * n * m) whatever
    ``n_resamples``.

    **Exogenous regressors (VARX).**  With ``y`` given to ``fit`` (or to
    :func:`skboot.bootstrap`), ``y`` (n, m) holds the series and ``X`` (n,) or
    (n, k) the regressors: ``y_t = c + A_1 y_{t-1} + ... + A_p y_{t-p} + B x_t +
    u_t`` is fitted by OLS equation by equation (statsmodels' ``VAR(y,
    exog=X).fit(p, trend="c")``; a criterion counts the ``m k`` entries of ``B``
    among the parameters); replicate ``b`` holds ``X`` fixed, starts from the
    first ``p`` rows of ``y`` and runs the recursion with ``c + B x_t`` as the
    offset of step ``t`` and ``n - p`` residual rows drawn as above (so
    ``burn_in`` is ``"auto"`` or 0).  The statistic is then called as
    ``statistic(X, y*)``.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    order : int or {"aic", "bic", "hqic"}, default="aic"
        The VAR order ``p`` (``0 <= p <= (n - 2) // (m + 1)``), or the criterion
        that chooses it in ``[min_order, max_order]``.
    min_order : int, default=0
        Smallest order the criterion may choose (``order`` a criterion only).
    max_order : int, optional
        Largest order tried by the criterion; None means statsmodels' default
        ``round(12 (n / 100)^(1/4))``, capped at ``(n - 2) // (m + 1)``.
    block_length : int, optional
        None resamples the residual rows iid; an int ``L >= 1`` resamples moving
        blocks of ``L`` consecutive rows.
    burn_in : int or "auto", default="auto"
        Rows generated and discarded before the kept ``n`` (at most ``2**31``);
        ``"auto"`` is 100 for a VAR and 0 for a VARX model (``y`` given), whose
        regressors exist only at the observed times.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    order_ : int
        The VAR order used.
    var_coef_ : ndarray of shape (p, m, m)
        ``var_coef_[j]`` is ``A_{j+1}`` (statsmodels' ``coefs``); ``p`` is
        ``order_``.
    intercept_ : ndarray of shape (m,)
    residuals_ : ndarray of shape (n - p, m)
        The centred residual rows that are resampled.
    sigma_u_ : ndarray of shape (m, m)
        Residual covariance with statsmodels' degrees-of-freedom correction.
    criterion_values_ : ndarray or None
        The criterion's values of orders ``0 .. max_order`` when the order was
        selected.
    n_variables_ : int
        ``m``, the number of series.
    burn_in_ : int
        The burn-in used (``burn_in`` with ``"auto"`` resolved).
    exog_coef_ : ndarray of shape (m, k)
        VARX only (``y`` given): ``B``, the coefficients of the regressors
        (row ``i`` for equation ``i``; statsmodels' ``coefs_exog[:, 1:]``).
    key_, seed_entropy_, n_samples_, plan_
        As for every skboot resampler.

    See Also
    --------
    ResidualBootstrap : The residual bootstrap of one AR series.

    References
    ----------
    .. [1] H. Lütkepohl, *New Introduction to Multiple Time Series Analysis*,
           Springer, 2005.
    .. [2] L. Kilian, "Small-sample confidence intervals for impulse response
           functions", Review of Economics and Statistics 80(2), 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> from skboot.model_based import VARResidualBootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = np.zeros((300, 2))
    >>> for t in range(1, 300):
    ...     y[t] = [[0.5, 0.1], [0.2, 0.3]] @ y[t - 1] + rng.normal(size=2)
    >>> vb = VARResidualBootstrap(999, order=1, random_state=0).fit(y)
    >>> vb.var_coef_.shape, vb.sample(3).shape
    ((1, 2, 2), (300, 2))
    >>> res = bootstrap(y, "mean", resampler=VARResidualBootstrap(999, order=1),
    ...                 random_state=0)
    >>> res.standard_error.shape
    (2,)

    With regressors ``z`` held fixed (VARX), the series are ``y``:

    >>> z = rng.normal(size=300)
    >>> yx = np.zeros((300, 2))
    >>> B = np.array([1.0, -0.5])
    >>> for t in range(1, 300):
    ...     yx[t] = [[0.5, 0.1], [0.2, 0.3]] @ yx[t - 1] + B * z[t] + rng.normal(size=2)
    >>> vx = VARResidualBootstrap(99, order=1, random_state=0).fit(z, yx)
    >>> vx.exog_coef_.round(2).ravel(), vx.burn_in_, vx.sample(3).shape
    (array([ 1.03, -0.56]), 0, (300, 2))
    """

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        order: int | str = "aic",
        min_order: int = 0,
        max_order: int | None = None,
        block_length: int | None = None,
        burn_in: int | str = "auto",
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.order = order
        self.min_order = min_order
        self.max_order = max_order
        self.block_length = block_length
        self.burn_in = burn_in

    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "order": AR_CONSTRAINTS["order"],
        "min_order": AR_CONSTRAINTS["min_order"],
        "max_order": AR_CONSTRAINTS["max_order"],
        "block_length": BLOCK_LENGTH,
        "burn_in": [Interval("int", 0, MAX_BURN_IN, high_text="2**31"), AUTO],
    }

    def _fit(self, x: np.ndarray) -> tuple[VARFit, np.ndarray | None]:
        n, m = x.shape
        top = max_var_order(n, m)
        p, lo, hi = check_order_range(
            self._name,
            self.order,
            self.min_order,
            self.max_order,
            top,
            default_var_max_order(n, m),
            f"(n - 2) // (m + 1) = {top} for {n} rows of {m} series",
        )
        crit = None
        if p is None:
            p, crit = select_var_order(x, lo, hi, str(self.order), self._name)
        fit = fit_var(x, p, self._name)
        check_var_stable(fit, self._name)
        return fit, crit

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> VARResidualPlan:
        if groups is not None:
            raise value_error(
                "groups",
                self._name,
                "must be None: the resampler regenerates the series from its own "
                f"VAR fit. Got {type(groups).__name__} instead.",
            )
        length = 0 if self.block_length is None else int(self.block_length)
        if y is not None:
            return varx_plan(self, key, n_samples, X, y, length)
        x = _series(X, self._name)
        n, m = x.shape
        burn_in = resolve_burn_in(self.burn_in, exog=False)
        need = 8 * (burn_in + n) * (m + 1)
        have = physical_memory()
        if have is not None and need > have:
            raise value_error(
                "burn_in",
                self._name,
                f"must keep a generated path in memory: burn_in + n = "
                f"{burn_in + n} rows of {m} series need {gib(need)}, more "
                f"than this machine's {gib(have)}. Got {self.burn_in} instead.",
            )
        fit, crit = self._fit(x)
        resid = fit.residuals - fit.residuals.mean(axis=0)
        if length > resid.shape[0]:
            raise value_error(
                "block_length",
                self._name,
                f"must be at most the number of residual rows n - p = "
                f"{resid.shape[0]}. Got {length} instead.",
            )
        return VARResidualPlan(
            key,
            n_samples,
            owner=self._name,
            sample_shape=(m,),
            series=x,
            coef=fit.coef,
            residuals=np.ascontiguousarray(resid),
            burn_in=burn_in,
            block_length=length,
            criterion_values=crit,
            var_intercept=fit.intercept,
            sigma_u=fit.sigma_u,
        )

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        return {
            "order_": int(plan.coef.shape[0]),
            "var_coef_": np.asarray(plan.coef).copy(),
            "intercept_": np.asarray(plan.var_intercept).copy(),
            "residuals_": np.asarray(plan.residuals).copy(),
            "sigma_u_": np.asarray(plan.sigma_u).copy(),
            "criterion_values_": plan.criterion_values,
            "n_variables_": int(plan.series.shape[1]),
            "burn_in_": int(plan.burn_in),
            **(
                {"exog_coef_": np.asarray(plan.exog_coef).copy()}
                if isinstance(plan, VARXResidualPlan)
                else {}
            ),
        }
