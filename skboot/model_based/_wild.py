"""The wild bootstrap: re-signed (re-scaled) residuals of a regression or of an AR
fit, with Rademacher, Mammen or Webb multipliers, per row, per block or per
cluster."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.model_based import (
    WEBB,
    WEIGHT_CODES,
    ar_wild_chunk,
    fill_wild_weights,
    regression_wild_chunk,
)
from skboot._random import PURPOSE, RootKey
from skboot._typing import RandomStateLike
from skboot._validation import (
    BOOL,
    Constraint,
    Options,
    as_float_array,
    check_array_1d_labels,
    param_error,
    value_error,
)
from skboot.model_based._base import SyntheticPlan, SyntheticResampler
from skboot.model_based._residual import (
    AR_CONSTRAINTS,
    BLOCK_LENGTH,
    _ARMixin,
    _series,
    ar_attributes,
)
from skboot.resamplers import BaseResampler

__all__ = ["WildBootstrap", "fit_ols"]

WEIGHTS = tuple(WEIGHT_CODES)


@dataclass(frozen=True, eq=False)
class _WildPlanBase(SyntheticPlan):
    kind: int = 0

    @property
    def n_multipliers(self) -> int:
        raise NotImplementedError

    def multipliers(self, b: int) -> np.ndarray:
        """The multipliers of replicate ``b`` (one per row, block or cluster)."""
        seed, gamma = self.key.stream(PURPOSE["wild"])
        out = np.empty(self.n_multipliers)
        fill_wild_weights(seed, gamma, np.uint64(b), np.int64(self.kind), WEBB, out)
        return out


@dataclass(frozen=True, eq=False)
class RegressionWildPlan(_WildPlanBase):
    """``y*_i = fitted_i + resid_i * v[codes_i]``."""

    fitted: np.ndarray = field(default_factory=lambda: np.empty(0))
    resid: np.ndarray = field(default_factory=lambda: np.empty(0))
    codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    n_codes: int = 1
    coef: np.ndarray = field(default_factory=lambda: np.empty(0))

    @property
    def n_multipliers(self) -> int:
        return self.n_codes

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["wild"])
        regression_wild_chunk(
            seed,
            gamma,
            np.int64(b0),
            self.fitted,
            self.resid,
            self.codes,
            np.int64(self.kind),
            WEBB,
            np.empty(self.n_codes),
            out,
        )

    def start(self, b: int) -> None:
        return None


@dataclass(frozen=True, eq=False)
class ARWildPlan(_WildPlanBase):
    """AR recursion from the observed first ``p`` values with innovations
    ``e_t * v[(t - p) // L]``."""

    series: np.ndarray = field(default_factory=lambda: np.empty(0))
    intercept: float = 0.0
    coef: np.ndarray = field(default_factory=lambda: np.empty(0))
    residuals: np.ndarray = field(default_factory=lambda: np.empty(0))
    block_length: int = 1
    sigma2: float = 0.0
    criterion_values: Any = None

    @property
    def n_multipliers(self) -> int:
        m = self.residuals.shape[0]
        return -(-m // self.block_length)

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["wild"])
        ar_wild_chunk(
            seed,
            gamma,
            np.int64(b0),
            self.series,
            float(self.intercept),
            self.coef,
            self.residuals,
            np.int64(self.kind),
            WEBB,
            np.int64(self.block_length),
            out,
        )

    def start(self, b: int) -> int:
        return 0


def fit_ols(
    X: Any, y: Any, n_samples: int, fit_intercept: bool, owner: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OLS of ``y`` on ``X`` (plus an intercept, last): the float response, the
    fitted values and the coefficients; a clear error for a design with too few
    rows or collinear columns."""
    Xf = as_float_array(X, "X", owner, ndim=(1, 2))
    yf = as_float_array(y, "y", owner, ndim=(1,))
    D = Xf.reshape(n_samples, -1)
    if fit_intercept:
        D = np.column_stack([D, np.ones(n_samples)])
    if D.shape[1] >= n_samples:
        raise value_error(
            "X",
            owner,
            f"must have more rows than "
            f"regressors ({D.shape[1]} with the intercept). Got {n_samples} rows "
            "instead.",
        )
    beta, _, rank, _ = np.linalg.lstsq(D, yf, rcond=None)
    if rank < D.shape[1]:
        raise value_error(
            "X",
            owner,
            f"gives a singular design (rank "
            f"{rank} < {D.shape[1]} columns"
            + (" with the intercept" if fit_intercept else "")
            + "): some columns are collinear, or their scales differ too much for "
            "float64. Drop or rescale them.",
        )
    return yf, D @ beta, beta


class WildBootstrap(SyntheticResampler, _ARMixin):
    """Wild bootstrap of regression residuals or of AR residuals.

    Rademacher, Mammen or Webb multipliers, per observation, per block or per
    cluster.

    Two uses, chosen by whether ``y`` is given to ``fit`` (or to
    :func:`skboot.bootstrap` / :class:`skboot.BootstrapStatistic`):

    * **Regression** (``y`` given; ``X`` is the design): fit
      ``y = X beta (+ intercept)`` by OLS; replicate ``b`` is the response
      ``y*_i = yhat_i + uhat_i v_b[c_i]`` (Wu 1986; Liu 1988), with one multiplier
      per row (``c_i = i``), per block of ``block_length`` consecutive rows
      (``c_i = i // L``, block-wild) or per cluster (``groups`` given: ``c_i`` =
      cluster code, the wild cluster bootstrap of Cameron, Gelbach & Miller 2008
      for any statistic).  The statistic is called as ``statistic(X, y*)``
      (vectorized: ``X`` as a read-only broadcast view with observations last).
      For t tests and confidence intervals of OLS coefficients with clusters use
      :func:`wild_cluster_bootstrap`, which is O(G k) per replicate.
    * **Time series** (no ``y``): fit AR(p) to ``X`` as in
      :class:`ResidualBootstrap`; replicate ``b`` starts from the observed first
      ``p`` values and runs the recursion with innovations ``e_t v_b[(t - p) //
      L]`` (the centred residual of time ``t``, re-signed in place: valid under
      conditional heteroskedasticity of unknown form; Gonçalves & Kilian 2004).
      ``block_length=L > 1`` keeps one multiplier per block of ``L`` residuals
      (block-wild; Shao 2010's dependent wild bootstrap with a flat kernel).

    Multiplier ``i`` of replicate ``b`` reads purpose slot "wild" of the stream:
    Rademacher ``1 - 2 * bounded(2)``; Webb's six points ``+-sqrt(3/2), +-1,
    +-sqrt(1/2)`` indexed by ``bounded(6)``; Mammen's two points ``(1 - sqrt 5)/2``
    (probability ``(sqrt 5 + 1)/(2 sqrt 5)``) and ``(1 + sqrt 5)/2`` by one
    ``uniform01``.  ``replicate(b).multipliers`` regenerates them.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    weights : {"rademacher", "mammen", "webb", "normal"}, default="rademacher"
        Law of the multipliers (mean 0, variance 1); "normal" is the standard
        normal.
    block_length : int, optional
        One multiplier per block of this many consecutive rows (regression) or
        residuals (time series); None: one per row.
    order : int or {"aic", "bic", "hqic"}, default="aic"
        Time series only: the AR order, as in :class:`ResidualBootstrap`.
    min_order : int, default=0
        Time series only: smallest order the criterion may choose.
    max_order : int, optional
        Time series only: largest order tried by the criterion.
    fit_method : {"ols", "yule_walker"}, default="ols"
        Time series only: how the AR model is fitted.
    fit_intercept : bool, default=True
        Regression only: add an intercept to the design.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    coef_ : ndarray
        Regression: the OLS coefficients (intercept last when fitted).
    fitted_ : ndarray of shape (n,)
        Regression: ``yhat``.
    residuals_ : ndarray
        Regression: ``uhat``; time series: the centred AR residuals.
    order_, ar_coef_, intercept_, sigma2_, criterion_values_
        Time series: the AR fit, as in :class:`ResidualBootstrap`.
    n_multipliers_ : int
        Multipliers per replicate (rows, blocks or clusters).

    See Also
    --------
    wild_cluster_bootstrap : Wild cluster t tests and intervals for OLS.
    ResidualBootstrap : Redraws the AR residuals instead of re-signing them.

    References
    ----------
    .. [1] C. F. J. Wu, "Jackknife, bootstrap and other resampling methods in
           regression analysis", Annals of Statistics 14(4), 1986.
    .. [2] R. Y. Liu, "Bootstrap procedures under some non-i.i.d. models", Annals
           of Statistics 16(4), 1988.
    .. [3] E. Mammen, "Bootstrap and wild bootstrap for high dimensional linear
           models", Annals of Statistics 21(1), 1993.
    .. [4] M. D. Webb, "Reworking wild bootstrap-based inference for clustered
           errors", Canadian Journal of Economics 56(3), 2023.
    .. [5] A. C. Cameron, J. B. Gelbach and D. L. Miller, "Bootstrap-based
           improvements for inference with clustered errors", Review of Economics
           and Statistics 90(3), 2008.
    .. [6] S. Gonçalves and L. Kilian, "Bootstrapping autoregressions with
           conditional heteroskedasticity of unknown form", Journal of
           Econometrics 123(1), 2004.
    .. [7] X. Shao, "The dependent wild bootstrap", JASA 105(489), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import WildBootstrap, bootstrap
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = X @ [1.0, -0.5] + rng.normal(size=200) * (1 + np.abs(X[:, 0]))
    >>> def slope(X, y):
    ...     D = np.column_stack([X, np.ones(len(y))])
    ...     return np.linalg.lstsq(D, y, rcond=None)[0][0]
    >>> res = bootstrap(X, slope, y=y, resampler=WildBootstrap(999), random_state=0)
    >>> round(res.estimate, 3), round(res.standard_error, 3)
    (0.906, 0.186)
    """

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        weights: str = "rademacher",
        block_length: int | None = None,
        order: int | str = "aic",
        min_order: int = 0,
        max_order: int | None = None,
        fit_method: str = "ols",
        fit_intercept: bool = True,
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.weights = weights
        self.block_length = block_length
        self.order = order
        self.min_order = min_order
        self.max_order = max_order
        self.fit_method = fit_method
        self.fit_intercept = fit_intercept

    #: The constructor parameters (``n_resamples`` and ``random_state`` first),
    #: checked in this order by ``check_params``.
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "weights": [Options(WEIGHTS)],
        "block_length": BLOCK_LENGTH,
        **AR_CONSTRAINTS,
        "fit_intercept": [BOOL],
    }

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> SyntheticPlan:
        kind = WEIGHT_CODES[self.weights]
        length = 1 if self.block_length is None else int(self.block_length)
        if y is None:
            if groups is not None:
                raise value_error(
                    "groups",
                    self._name,
                    "is for a regression (y "
                    "given): a time series has no clusters; use block_length for "
                    "block-wild multipliers. Got groups without y.",
                )
            return self._series_plan(key, n_samples, X, kind, length)
        return self._regression_plan(key, n_samples, X, y, groups, kind, length)

    def _series_plan(
        self, key: RootKey, n_samples: int, X: Any, kind: int, length: int
    ) -> SyntheticPlan:
        """Wild multipliers on the residuals of an AR fit of the series."""
        x = _series(X, self._name)
        fit, crit = self._fit_order(x)
        resid = fit.residuals - fit.residuals.mean()
        if length > resid.shape[0]:
            raise value_error(
                "block_length",
                self._name,
                f"must be at most "
                f"the number of residuals n - p = {resid.shape[0]}. Got {length} "
                "instead.",
            )
        return ARWildPlan(
            key,
            n_samples,
            owner=self._name,
            kind=kind,
            series=x,
            intercept=fit.intercept,
            coef=fit.coef,
            residuals=np.ascontiguousarray(resid),
            block_length=length,
            sigma2=fit.sigma2,
            criterion_values=crit,
        )

    def _regression_plan(
        self,
        key: RootKey,
        n_samples: int,
        X: Any,
        y: Any,
        groups: Any,
        kind: int,
        length: int,
    ) -> SyntheticPlan:
        """Wild multipliers on the residuals of an OLS fit of ``y`` on ``X``: per
        row, per block of rows, or per cluster."""
        yf, fitted, beta = fit_ols(
            X, y, n_samples, bool(self.fit_intercept), self._name
        )
        if groups is not None:
            if self.block_length is not None:
                raise param_error(
                    "block_length",
                    self._name,
                    "None when groups are given (one multiplier per cluster)",
                    self.block_length,
                )
            codes = check_array_1d_labels(groups, "groups", self._name, n_samples)
            n_codes = int(codes.max()) + 1
            if n_codes < 2:
                raise value_error(
                    "groups",
                    self._name,
                    "must have at least 2 "
                    "clusters (one multiplier for every row re-signs the whole "
                    "residual vector). Got 1 cluster instead.",
                )
        else:
            if length > n_samples:
                raise value_error(
                    "block_length",
                    self._name,
                    f"must be at most "
                    f"the number of rows {n_samples}. Got {length} instead.",
                )
            codes = np.arange(n_samples, dtype=np.int64) // length
            n_codes = -(-n_samples // length)
        plan = RegressionWildPlan(
            key,
            n_samples,
            owner=self._name,
            response=yf,
            kind=kind,
            fitted=np.ascontiguousarray(fitted),
            resid=np.ascontiguousarray(yf - fitted),
            codes=np.ascontiguousarray(codes, dtype=np.int64),
            n_codes=n_codes,
            coef=np.asarray(beta, dtype=np.float64),
        )
        return plan

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"n_multipliers_": int(plan.n_multipliers)}
        if isinstance(plan, ARWildPlan):
            out.update(ar_attributes(plan))
        else:
            out.update(
                coef_=np.asarray(plan.coef).copy(),
                fitted_=np.asarray(plan.fitted).copy(),
                residuals_=np.asarray(plan.resid).copy(),
            )
        return out
