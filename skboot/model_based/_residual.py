"""Residual (AR) and sieve bootstraps of a time series."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.model_based import LANES, ar_residual_chunk, ar_residual_sums
from skboot._kernels.model_var import MEAN, STD, SUM, VAR
from skboot._random import PURPOSE, RootKey, fill_indices_kernel
from skboot._typing import RandomStateLike
from skboot._validation import (
    NONE,
    Constraint,
    Interval,
    Options,
    as_float_array,
    value_error,
)
from skboot.model_based._ar import (
    CRITERIA,
    METHODS,
    ARFit,
    check_order_range,
    check_stationary,
    default_max_order,
    fit_ar,
    max_allowed_order,
    select_order,
)
from skboot.model_based._arma_plan import ARMAResidualPlan, innovation_indices
from skboot.model_based._arx import arx_plan
from skboot.model_based._base import (
    AUTO,
    SyntheticPlan,
    SyntheticResampler,
    recursion_streams,
    resolve_burn_in,
)
from skboot.resamplers import BaseResampler

__all__ = ["MAX_BURN_IN", "ResidualBootstrap", "SieveBootstrap"]

#: Largest ``burn_in``: replicate ``b`` reads the stream at ``b * 2**32 + i``, so
#: its ``burn_in + n - p`` residual draws (plus rejections) must stay well inside
#: its ``2**32`` positions.
MAX_BURN_IN = 2**31
#: The built-ins the residual kernels reduce without writing the series -> the
#: kernels' code for it.
REDUCTIONS = {"sum": SUM, "mean": MEAN, "var": VAR, "std": STD}


def gib(n_bytes: float) -> str:
    """``n_bytes`` in GiB, readable at any size: "0.25 GiB", "65,536 GiB"."""
    x = n_bytes / 2**30
    return f"{x:,.0f} GiB" if x >= 100 else f"{x:.3g} GiB"


def physical_memory() -> int | None:
    """Bytes of physical memory, or None where the platform does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def check_path_memory(burn_in: int, n: int, p: int, block: bool, owner: str) -> None:
    """Refuse a burn-in whose generated paths cannot be held in memory, before
    any allocation: a chunk runs ``LANES`` paths of ``burn_in + n`` float64 side by
    side (plus ``burn_in + n - p`` block indices)."""
    total = burn_in + n
    need = 8 * (LANES * total + (total - p if block else 0))
    have = physical_memory()
    if have is not None and need > have:
        raise value_error(
            "burn_in",
            owner,
            f"must keep the generated paths in memory: {LANES} paths of burn_in + "
            f"n = {total} values need {gib(need)}, more than this machine's "
            f"{gib(have)}. Got {burn_in} instead.",
        )


@dataclass(frozen=True, eq=False)
class ARResidualPlan(SyntheticPlan):
    """Replicate ``b``: the AR recursion driven by resampled centred residuals."""

    replicate_lanes: ClassVar[int] = LANES

    series: np.ndarray = field(default_factory=lambda: np.empty(0))
    intercept: float = 0.0
    coef: np.ndarray = field(default_factory=lambda: np.empty(0))
    residuals: np.ndarray = field(default_factory=lambda: np.empty(0))
    burn_in: int = 0
    block_length: int = 0  # 0: iid residuals
    sigma2: float = 0.0
    criterion_values: Any = None

    @property
    def n_innovations(self) -> int:
        return self.burn_in + self.n_samples - self.coef.shape[0]

    @functools.cached_property
    def _kernel_args(self) -> tuple[Any, ...]:
        """The kernels' arguments after ``b0`` (made once: the streams' seeds
        are derived in Python)."""
        seeds, gamma = recursion_streams(self.key)
        return (
            seeds,
            gamma,
            self.series,
            float(self.intercept),
            self.coef,
            self.residuals,
            np.int64(self.burn_in),
            np.bool_(self.burn_in > 0),
            np.int64(self.block_length),
        )

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seeds, gamma, *rest = self._kernel_args
        ar_residual_chunk(seeds, gamma, np.int64(b0), *rest, out)  # type: ignore[call-arg]

    fused_builtins: ClassVar[tuple[str, ...]] = ("mean", "sum", "var", "std")

    def reduce_chunk(self, name: str, b0: int, out: np.ndarray, ddof: int = 0) -> None:
        """``"mean"``, ``"sum"``, ``"var"`` or ``"std"`` (``ddof``) of each
        replicate's series, reduced from the generated paths
        (:func:`skboot._kernels.model_based.ar_residual_sums`)."""
        seeds, gamma, *rest = self._kernel_args
        what = np.int64(REDUCTIONS[name])
        ar_residual_sums(seeds, gamma, np.int64(b0), *rest, what, np.int64(ddof), out)  # type: ignore[call-arg]

    def draws_per_replicate(self, fused: bool = False) -> int:
        """With ``fused``: the recursion's multiply-adds and draws of one
        replicate, ``(burn_in + n) (p + 1)``, which bound a kernel call's length
        (the fused path has no buffer to bound it)."""
        if not fused:
            return super().draws_per_replicate()
        return max(1, (self.burn_in + self.n_samples) * (self.coef.shape[0] + 1))

    def residual_indices(self, b: int) -> np.ndarray:
        """Indices into the centred residuals of the innovations of replicate
        ``b``, in time order (``burn_in + n - p`` of them)."""
        return innovation_indices(
            self.key, b, self.residuals.shape[0], self.n_innovations, self.block_length
        )

    def start(self, b: int) -> int:
        """Position of the replicate's ``p`` observed start values."""
        if self.burn_in == 0:
            return 0
        seed, gamma = self.key.stream(PURPOSE["model"])
        out = np.empty(1, dtype=np.int64)
        p = self.coef.shape[0]
        fill_indices_kernel(
            seed, gamma, np.uint64(b), np.uint64(self.n_samples - p + 1), out
        )
        return int(out[0])


def _series(X: Any, owner: str) -> np.ndarray:
    """The 1-D float series of ``X`` ((n,) or (n, 1)), or a clear error; its
    values are checked by the AR fit."""
    x = as_float_array(X, "X", owner, ndim=(1, 2), nan="allow")
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise value_error(
            "X",
            owner,
            f"must be a 1-D series (one AR model; "
            f"multivariate VAR models are not supported). Got shape {x.shape} "
            "instead.",
        )
    return np.ascontiguousarray(x)


#: The AR settings of the residual and wild bootstraps (table rows, checked in
#: this order).
AR_CONSTRAINTS: dict[str, list[Constraint]] = {
    "order": [Interval("int", 0), Options(CRITERIA)],
    "min_order": [Interval("int", 0)],
    "max_order": [Interval("int", 0), NONE],
    "fit_method": [Options(METHODS)],
}
#: ``block_length`` of a model-based resampler: None or a positive int.
BLOCK_LENGTH: list[Constraint] = [Interval("int", 1), NONE]


class _ARMixin:
    """Order, fit method and fit shared by the residual, sieve and wild
    bootstraps."""

    order: Any
    min_order: Any
    max_order: Any
    fit_method: Any

    @property
    def _name(self) -> str:
        return type(self).__name__

    def _fit_method(self) -> str:
        """How the AR model is fitted ("ols" or "yule_walker")."""
        return str(self.fit_method)

    def _fit_order(self, x: np.ndarray) -> tuple[ARFit, np.ndarray | None]:
        """Fit the AR model of the chosen (or given) order to ``x``; also return
        the criterion values when the order was selected."""
        n = x.shape[0]
        top = max_allowed_order(n)
        p, lo, hi = check_order_range(
            self._name,
            self.order,
            self.min_order,
            self.max_order,
            top,
            default_max_order(n),
            f"(n - 2) // 2 = {top} for a series of {n} values",
        )
        crit = None
        if p is None:
            p, crit = select_order(
                x, hi, str(self.order), self._fit_method(), self._name, lo
            )
        fit = fit_ar(x, p, self._fit_method(), self._name)
        check_stationary(fit, self._name)
        return fit, crit


def ar_attributes(plan: Any) -> dict[str, Any]:
    """The fitted attributes of an AR-based plan."""
    return {
        "order_": int(plan.coef.shape[0]),
        "ar_coef_": np.asarray(plan.coef).copy(),
        "intercept_": float(plan.intercept),
        "residuals_": np.asarray(plan.residuals).copy(),
        "sigma2_": float(plan.sigma2),
        "criterion_values_": getattr(plan, "criterion_values", None),
    }


_RESIDUAL_DOC = """
    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    {order_doc}
    min_order : int, default=0
        Smallest order the criterion may choose (``order`` a criterion only).
    max_order : int, optional
        Largest order tried by the criterion; None means
        ``min(floor(10 log10 n), (n - 2) // 2)`` (R's ``stats::ar`` default).
    {method_doc}
    block_length : int, optional
        None resamples the residuals iid; an int ``L >= 1`` resamples moving blocks
        of ``L`` consecutive residuals (for residual dependence the model leaves).
    burn_in : int or "auto", default="auto"
        Values generated and discarded before the kept ``n``; ``"auto"`` is 100
        for an AR series and 0 for an ARX model (``y`` given), whose regressors
        exist only at the observed times.  With ``burn_in > 0``
        a replicate starts from ``p`` consecutive observed values at a uniform
        random position (purpose slot "model"); with ``0`` it starts from the first
        ``p`` observations and is conditional on them.  At most ``2**31``, and
        ``fit`` refuses a burn-in whose ``8`` side-by-side paths of
        ``burn_in + n`` float64 values exceed the machine's physical memory.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    order_ : int
        The AR order used.
    ar_coef_ : ndarray of shape (p,)
    intercept_ : float
    residuals_ : ndarray of shape (n - p,)
        The centred residuals that are resampled.
    sigma2_ : float
        Mean square of the raw residuals.
    criterion_values_ : ndarray or None
        The criterion's values of orders ``0 .. max_order`` when the order was
        selected (the choice is the smallest in ``[min_order, max_order]``).
    burn_in_ : int
        The burn-in used (``burn_in`` with ``"auto"`` resolved).
    exog_coef_ : ndarray of shape (k,)
        ARX only (``y`` given): ``beta``, the coefficients of the regressors.
    key_, seed_entropy_, n_samples_, plan_
        As for every skboot resampler.
"""


class ResidualBootstrap(SyntheticResampler, _ARMixin):
    __doc__ = (
        """Residual bootstrap of an AR(p) series.

    Algorithm (Efron & Tibshirani 1993, sec. 8.5; Bose 1988):

    1. Fit ``x_t = c + phi_1 x_{t-1} + ... + phi_p x_{t-p} + e_t`` by OLS or
       Yule-Walker, with ``p`` given or chosen by AIC/BIC/HQIC; a fit whose AR
       polynomial has a root on or inside the unit circle is refused.
    2. Centre the ``m = n - p`` residuals.
    3. Replicate ``b``: draw ``burn_in + n - p`` residual indices, iid (draw
       ``i`` of the iid index stream of replicate ``b`` over the ``m`` residuals,
       so the first ``m`` are exactly ``Bootstrap(random_state=seed)
       .fit(residuals_).replicate(b).indices``) or in moving blocks (block ``j``
       starts at draw ``j`` of the "block_starts" stream over ``m - L + 1`` starts,
       so with ``burn_in=0`` the indices equal
       ``MovingBlockBootstrap(block_length=L, random_state=seed)
       .fit(residuals_).replicate(b).indices``); start from ``p`` observed values;
       run the recursion with those residuals; keep the last ``n`` values.

    Replicates are generated series, not row views: ``split`` is not available;
    use :func:`skboot.bootstrap` / :class:`skboot.BootstrapStatistic` with
    ``resampler=``, or :meth:`sample`.  Generating a replicate costs
    O((burn_in + n) p); memory is O(chunk * n) whatever ``n_resamples``.

    **Exogenous regressors (ARX).**  With ``y`` given to ``fit`` (or to
    :func:`skboot.bootstrap`), ``y`` is the series and ``X`` (n,) or (n, k) holds
    regressors: ``y_t = c + phi_1 y_{t-1} + ... + phi_p y_{t-p} + beta' x_t +
    e_t`` is fitted by OLS on ``t >= p`` (statsmodels' ``AutoReg(y, lags=p,
    exog=X)``; a criterion counts the ``k`` regressors among the parameters);
    replicate ``b`` holds ``X`` fixed, starts from ``y_0 .. y_{p-1}`` and runs
    the recursion with ``n - p`` innovations drawn as above (so ``burn_in`` is
    ``"auto"`` or 0, and ``fit_method`` "ols").  The statistic is then called as
    ``statistic(X, y*)``.
"""
        + _RESIDUAL_DOC.format(
            order_doc="""order : int or {"aic", "bic", "hqic"}, default="aic"
        The AR order ``p`` (``0 <= p <= (n - 2) // 2``), or the criterion that
        chooses it in ``[min_order, max_order]`` (Akaike, Schwarz, or Hannan &
        Quinn).""",
            method_doc="""fit_method : {"ols", "yule_walker"}, default="ols"
        How the AR model is fitted: OLS with an intercept, or Yule-Walker
        (always stationary).""",
        )
        + """
    See Also
    --------
    SieveBootstrap : An AR order that grows with ``n``, chosen by AIC.
    WildBootstrap : Re-signs the residuals in place instead of redrawing them.

    References
    ----------
    .. [1] A. Bose, "Edgeworth correction by bootstrap in autoregressions",
           Annals of Statistics 16(4), 1988.
    .. [2] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
           Chapman & Hall, 1993, section 8.5.
    .. [3] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their
           Application*, Cambridge, 1997, section 8.2.2.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import ResidualBootstrap, bootstrap
    >>> rng = np.random.default_rng(0)
    >>> x = np.zeros(300)
    >>> for t in range(1, 300):
    ...     x[t] = 0.6 * x[t - 1] + rng.normal()
    >>> res = bootstrap(x, "mean", resampler=ResidualBootstrap(999, order=1),
    ...                 random_state=0)
    >>> round(res.standard_error, 3)
    0.154
    >>> ResidualBootstrap(10, order=1, random_state=0).fit(x).sample(3).shape
    (300,)

    With a regressor ``z`` (ARX), the series is ``y``:

    >>> z = rng.normal(size=300)
    >>> y = np.zeros(300)
    >>> for t in range(1, 300):
    ...     y[t] = 0.6 * y[t - 1] + 0.5 * z[t] + rng.normal()
    >>> arx = ResidualBootstrap(10, order=1, random_state=0).fit(z, y)
    >>> arx.ar_coef_.round(2), arx.exog_coef_.round(2)
    (array([0.63]), array([0.41]))
"""
    )

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        order: int | str = "aic",
        min_order: int = 0,
        max_order: int | None = None,
        fit_method: str = "ols",
        block_length: int | None = None,
        burn_in: int | str = "auto",
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.order = order
        self.min_order = min_order
        self.max_order = max_order
        self.fit_method = fit_method
        self.block_length = block_length
        self.burn_in = burn_in

    #: The constructor parameters (``n_resamples`` and ``random_state`` first),
    #: checked in this order by ``check_params``.
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        **AR_CONSTRAINTS,
        "block_length": BLOCK_LENGTH,
        "burn_in": [Interval("int", 0), AUTO],
    }

    def check_params(self) -> None:
        """Validate the constructor parameters, raising on the first bad one."""
        super().check_params()
        burn_in = resolve_burn_in(self.burn_in, exog=False)
        if burn_in > MAX_BURN_IN:
            raise value_error(
                "burn_in",
                self._name,
                "must be an int in [0, 2**31] (a replicate's draws must fit in its "
                f"2**32 stream positions; {LANES} paths of this length would need "
                f"{gib(8 * LANES * burn_in)} of memory). Got {burn_in} "
                "instead.",
            )

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ARResidualPlan | ARMAResidualPlan:
        if groups is not None:
            raise value_error(
                "groups",
                self._name,
                "must be None: the resampler regenerates a series from its own AR "
                f"fit. Got {type(groups).__name__} instead.",
            )
        length = 0 if self.block_length is None else int(self.block_length)
        if y is not None:
            return arx_plan(self, key, n_samples, X, y, length)
        x = _series(X, self._name)
        burn_in = resolve_burn_in(self.burn_in, exog=False)
        check_path_memory(burn_in, x.shape[0], 0, length > 0, self._name)
        fit, crit = self._fit_order(x)
        resid = fit.residuals - fit.residuals.mean()
        m = resid.shape[0]
        if length > m:
            raise value_error(
                "block_length",
                self._name,
                f"must be at most the "
                f"number of residuals n - p = {m}. Got {length} instead.",
            )
        plan = ARResidualPlan(
            key,
            n_samples,
            owner=self._name,
            series=x,
            intercept=fit.intercept,
            coef=fit.coef,
            residuals=np.ascontiguousarray(resid),
            burn_in=burn_in,
            block_length=length,
            sigma2=fit.sigma2,
            criterion_values=crit,
        )
        return plan

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        if not isinstance(plan, ARMAResidualPlan):
            return {**ar_attributes(plan), "burn_in_": int(plan.burn_in)}
        fit, beta, crit = plan.fit
        return {
            **ar_attributes(fit),
            "burn_in_": 0,
            "residuals_": np.asarray(plan.residuals).copy(),
            "criterion_values_": crit,
            "exog_coef_": beta.copy(),
        }


class SieveBootstrap(ResidualBootstrap):
    __doc__ = """Sieve bootstrap (Bühlmann 1997): an AR residual bootstrap of growing order.

    The order grows with ``n``.  The series is approximated by an AR(p_n) fitted by Yule-Walker with ``p_n``
    chosen by AIC in ``[0, max_order]`` (``max_order`` grows like ``10 log10 n``
    unless given), which Bühlmann (1997) shows is consistent for linear processes
    AR(infinity) as ``p_n -> infinity`` with ``p_n = o(n^(1/4))``-type rates; then
    the residual bootstrap of :class:`ResidualBootstrap` runs on that fit (same
    streams, same replicates as ``ResidualBootstrap(order=p_n,
    fit_method="yule_walker")``).

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    min_order : int, default=0
        Smallest order the criterion may choose.
    max_order : int, optional
        Largest order tried; None means ``min(floor(10 log10 n), (n - 2) // 2)``.
    order : {"aic", "bic", "hqic"}, default="aic"
        The criterion that chooses the AR order.
    block_length : int, optional
        As in :class:`ResidualBootstrap`.
    burn_in : int or "auto", default="auto"
        As in :class:`ResidualBootstrap` (``"auto"`` is 100).
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    order_, ar_coef_, intercept_, residuals_, sigma2_, criterion_values_, burn_in_
        As in :class:`ResidualBootstrap`.

    See Also
    --------
    ResidualBootstrap : The AR residual bootstrap with the order given.

    References
    ----------
    .. [1] P. Bühlmann, "Sieve bootstrap for time series", Bernoulli 3(2),
           123-148, 1997.
    .. [2] J.-P. Kreiss, "Bootstrap procedures for AR(infinity) processes", in
           Bootstrapping and Related Techniques, Springer, 1992.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import SieveBootstrap
    >>> rng = np.random.default_rng(1)
    >>> e = rng.normal(size=401)
    >>> x = e[1:] + 0.7 * e[:-1]          # MA(1): AR(infinity)
    >>> sb = SieveBootstrap(200, random_state=0).fit(x)
    >>> sb.order_ >= 1
    True
"""

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        min_order: int = 0,
        max_order: int | None = None,
        order: str = "aic",
        block_length: int | None = None,
        burn_in: int | str = "auto",
        random_state: RandomStateLike = None,
    ) -> None:
        BaseInit = SyntheticResampler.__init__
        BaseInit(self, n_resamples, random_state=random_state)
        self.min_order = min_order
        self.max_order = max_order
        self.order = order
        self.block_length = block_length
        self.burn_in = burn_in

    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "order": [Options(CRITERIA)],
        "min_order": AR_CONSTRAINTS["min_order"],
        "max_order": AR_CONSTRAINTS["max_order"],
        "block_length": BLOCK_LENGTH,
        "burn_in": [Interval("int", 0), AUTO],
    }

    def _fit_method(self) -> str:
        """The sieve always fits by Yule-Walker."""
        return "yule_walker"
