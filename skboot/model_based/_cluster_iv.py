"""The wild restricted efficient (WRE) bootstrap t test of the coefficient of
the endogenous regressor in an IV (2SLS) regression with clustered errors.

The algebra (per-cluster sums, O(G l**2) per replicate) is in
``skboot.model_based._cluster_iv_parts``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._random import check_random_state
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import as_float_array, validate_params, value_error
from skboot.model_based._cluster_checks import FewClustersWarning, few_clusters_message
from skboot.model_based._cluster_inputs import (
    CONSTRAINTS,
    cluster_dims,
    design,
    small_sample_factor,
)
from skboot.model_based._cluster_iv_parts import (
    ZERO_RESIDUAL_ULPS,
    WildClusterIVResult,
    two_sls,
    wre_arrays,
    wre_setup,
    wre_sums,
    wre_tstar,
)
from skboot.model_based._cluster_result import p_value

__all__ = ["WildClusterIVResult", "wild_cluster_bootstrap_iv"]

#: The options of :func:`wild_cluster_bootstrap_iv`, checked in this order
#: before any work (those it shares with :func:`wild_cluster_bootstrap`).
IV_CONSTRAINTS = {
    name: CONSTRAINTS[name]
    for name in (
        "fit_intercept",
        "weights",
        "alternative",
        "n_resamples",
        "level",
        "null",
        "small_sample",
    )
}


def wild_cluster_bootstrap_iv(
    X: ArrayLike | None,
    y: ArrayLike,
    endogenous: ArrayLike,
    instruments: ArrayLike,
    groups: ArrayLike,
    *,
    null: float = 0.0,
    weights: str = "rademacher",
    small_sample: str = "both",
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    level: float = 0.95,
    fit_intercept: bool = True,
    random_state: RandomStateLike = None,
) -> WildClusterIVResult:
    """Wild restricted efficient (WRE) cluster bootstrap t test of an IV coefficient.

    Tests ``beta = null`` in the structural equation ``y = beta x + X gamma +
    u`` estimated by two-stage least squares (2SLS), with one endogenous
    regressor ``x`` (``endogenous``), exogenous regressors ``X`` and excluded
    instruments ``instruments``, errors correlated within the clusters
    ``groups``, by the WRE bootstrap of Davidson & MacKinnon (2010) (boottest's
    default after ``ivreg``/``ivreg2``, fwildclusterboot's IV bootstrap),
    computed with cluster-level sums as in Roodman, MacKinnon, Nielsen & Webb
    (2019) (module ``skboot.model_based._cluster_iv_parts`` has the
    formulas).

    Algorithm:

    1. 2SLS fit and its CRV1 standard error (factor ``G / (G - 1) * (n - 1) /
       (n - k)`` by default, ``k`` the number of structural regressors; see
       ``small_sample``) and ``t``: O(n l**2), ``l`` the number of instruments
       and exogenous regressors together.
    2. The restricted structural residuals (``beta = null`` imposed, ``gamma``
       refitted by OLS), and the reduced form of ``x`` on the instruments and
       those residuals (the efficient estimate under the null); per-cluster
       sums of both residual vectors, O(n l**2) once.
    3. Replicate ``b``: one multiplier per cluster (purpose slot "wild", the
       multipliers of :func:`wild_cluster_bootstrap` with the same seed; or,
       with Rademacher weights and ``2**G <= n_resamples``, the ``2**G`` sign
       vectors enumerated, ``v_g = 1 - 2 * bit_g(j)``), applied to both
       residual vectors; 2SLS and CRV1 of the bootstrap sample from the sums:
       O(G l**2) per replicate, never O(n).
    4. p-value as :func:`wild_cluster_bootstrap` ("two-sided" symmetric,
       "equal-tailed", "greater", "less"; ties within ``1e-10 max(1, |t|)``
       not counted).
    5. Confidence interval (``result.confidence_interval()``): the null
       values whose p-value exceeds ``1 - level``, searched outward from the
       estimate by doubling steps and bisection to ``1e-10`` standard errors.
       The restricted bootstrap depends on the null value, so each value tried
       re-runs the replicates with the same multipliers (O(n_resamples G
       l**2), about 100 values per interval); an endpoint not found within
       ``2**20`` standard errors is infinite (weak instruments can make the
       WRE set unbounded), and when the accepted set is not an interval the
       search returns the crossing nearest the estimate found by bisection.

    Undefined and coarse tests: a standard error that is zero up to rounding
    (the residuals within ``256`` ulps of their operands: ``y`` fitted
    exactly) makes ``t`` undefined (NaN ``statistic``, ``pvalue``,
    ``null_distribution`` and interval, with an
    :class:`~skboot.UndefinedStatisticWarning`); a replicate whose
    instruments explain none of its endogenous regressor gets ``t* = +inf``;
    Rademacher weights with too few clusters raise
    :class:`~skboot.model_based.FewClustersWarning` as in
    :func:`wild_cluster_bootstrap`, and the interval needs
    ``ceil(1 / (1 - level)) - 1`` drawn replicates.

    Memory: O(n l) for the data plus O(G l**2 + n_resamples).

    Parameters
    ----------
    X : array-like of shape (n,) or (n, n_features), or None
        Exogenous regressors (an intercept column is added when
        ``fit_intercept``; they are their own instruments); None: none but
        the intercept.
    y : array-like of shape (n,)
        The response.
    endogenous : array-like of shape (n,)
        The one endogenous regressor ``x``, whose coefficient is tested.
    instruments : array-like of shape (n,) or (n, n_instruments)
        The excluded instruments (at least one; over-identification allowed).
    groups : array-like of shape (n,)
        Cluster labels, one-way, at least 2 clusters.
    null : float, default=0.0
        The hypothesised value of the endogenous regressor's coefficient.
    weights : {"rademacher", "mammen", "webb", "normal"}, default="rademacher"
        Law of the cluster multipliers (see :func:`wild_cluster_bootstrap`).
    small_sample : {"both", "cluster", "observations", "none"}, default="both"
        The factor of the CRV1 variance: ``G / (G - 1) * (n - 1) / (n - k)``,
        ``G / (G - 1)``, ``(n - 1) / (n - k)`` or 1 (linearmodels'
        ``debiased=True`` is "both", ``debiased=False`` "cluster").  It scales
        ``t`` and every ``t*`` alike, never the p-value or the interval.
    n_resamples : int, default=9999
        Replicates; with Rademacher weights and ``2**G <= n_resamples`` the
        ``2**G`` sign vectors are enumerated instead.
    alternative : {"two-sided", "less", "greater", "equal-tailed"}, default="two-sided"
        The alternative of the test (see :func:`wild_cluster_bootstrap`).
    level : float, default=0.95
        Confidence level of the interval and of the few-clusters check.
    fit_intercept : bool, default=True
        Add an intercept column to ``X`` (its coefficient comes last).
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams (unused when the sign vectors are
        enumerated).

    Returns
    -------
    WildClusterIVResult
        The 2SLS estimate, its CRV1 standard error, ``t``, the p-value and the
        bootstrap ``t`` distribution at the null; ``confidence_interval()``
        inverts the test.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, multiway clusters, more than one endogenous
        regressor, no instrument, collinear instruments or regressors,
        instruments that explain nothing of the endogenous regressor beyond
        ``X``, no more rows than instruments, non-finite data, or a bad
        parameter (named in the message).

    Warns
    -----
    UndefinedStatisticWarning
        ``t`` is undefined (zero standard error up to rounding).
    FewClustersWarning
        Rademacher weights with too few clusters to reach ``1 - level``.

    See Also
    --------
    wild_cluster_bootstrap : The wild cluster bootstrap of an OLS coefficient.

    References
    ----------
    .. [1] R. Davidson and J. G. MacKinnon, "Wild bootstrap tests for IV
           regression", Journal of Business & Economic Statistics 28(1),
           128-144, 2010.
    .. [2] D. Roodman, J. G. MacKinnon, M. Ø. Nielsen and M. D. Webb, "Fast and
           wild: Bootstrap inference in Stata using boottest", Stata Journal 19(1),
           4-60, 2019.
    .. [3] A. C. Cameron, J. B. Gelbach and D. L. Miller, "Bootstrap-based
           improvements for inference with clustered errors", Review of Economics
           and Statistics 90(3), 414-427, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import wild_cluster_bootstrap_iv
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(10), 30)
    >>> z = rng.normal(size=300)
    >>> w = rng.normal(size=300)
    >>> e = rng.normal(size=300) + rng.normal(size=10)[g]
    >>> x = 0.5 * z + 0.3 * w + e + rng.normal(size=300)
    >>> y = 1.0 * x - 0.5 * w + e
    >>> res = wild_cluster_bootstrap_iv(w, y, x, z, g, null=1.0,
    ...                                 n_resamples=999, random_state=0)
    >>> res.enumerated, res.n_resamples          # 2**10 = 1024 > 999: drawn
    (False, 999)
    >>> round(res.estimate, 3), round(res.pvalue, 3)
    (1.134, 0.313)
    >>> [round(v, 3) for v in res.confidence_interval()]
    [0.838, 1.448]
    """
    owner = "wild_cluster_bootstrap_iv"
    options = validate_params(
        owner,
        IV_CONSTRAINTS,
        fit_intercept=fit_intercept,
        weights=weights,
        alternative=alternative,
        n_resamples=n_resamples,
        level=level,
        null=null,
        small_sample=small_sample,
    )
    B, level, null = options["n_resamples"], options["level"], float(null)
    W, yf, xf, Zf, codes, G = _inputs(
        X, y, endogenous, instruments, groups, bool(fit_intercept), owner
    )
    key = check_random_state(random_state, owner=owner)
    n, lz = yf.shape[0], Zf.shape[1] - W.shape[1]
    k = W.shape[1] + 1

    # -- 2SLS and its CRV1 standard error: O(n l**2) ---------------------------
    beta, ss, rounding, zqr = two_sls(W, yf, xf, Zf, codes, G, owner)
    c = small_sample_factor(small_sample, G, n, k)
    se = math.sqrt(c * ss)
    zero_se = ZERO_RESIDUAL_ULPS * math.sqrt(c * rounding)
    enumerate_all = weights == "rademacher" and G < 32 and 2**G <= B
    if enumerate_all:
        B = 2**G
    base: dict[str, Any] = {
        "estimate": float(beta[0]),
        "coef": beta,
        "null": null,
        "bootstrap": "WRE",
        "weights": weights,
        "alternative": alternative,
        "level": level,
        "n_resamples": B,
        "enumerated": bool(enumerate_all),
        "n_clusters": G,
        "n_bootstrap_clusters": G,
        "small_sample": small_sample,
        "random_state": None if enumerate_all else key.reproducer(),
        "n_instruments": lz,
        "_c": c,
    }
    if not se > zero_se:
        return _undefined(base, se, zero_se, owner)
    if weights == "rademacher":
        message = few_clusters_message(G, 1.0 - level, alternative)
        if message is not None:
            warn(
                message.replace("wild_cluster_bootstrap", owner, 1), FewClustersWarning
            )

    # -- the sums once, then O(G l**2) per replicate ---------------------------
    stored = wre_setup(W, yf, xf, codes, G, zqr[0])
    arrays = wre_arrays(stored, null, lz)
    tstar = wre_tstar(wre_sums(key, B, weights, enumerate_all, arrays), c)
    t = (float(beta[0]) - null) / se
    return WildClusterIVResult(
        standard_error=se,
        statistic=t,
        pvalue=p_value(t, tstar, alternative),
        null_distribution=tstar,
        _parts=stored["parts"],
        _grams=stored["grams"],
        _first=stored["first"],
        _products=stored["products"],
        _gram=stored["gram"],
        **base,
    )


def _column(value: Any, name: str, n: int | None, owner: str) -> np.ndarray:
    """``value`` as finite float64 of shape (n, m), ``m >= 1``."""
    arr = as_float_array(value, name, owner, ndim=(1, 2), min_rows=0)
    arr = arr.reshape(arr.shape[0], -1)
    if (n is not None and arr.shape[0] != n) or arr.shape[0] == 0 or arr.shape[1] == 0:
        want = f"{n} rows (one per value of y)" if n is not None else "at least one row"
        raise value_error(
            name,
            owner,
            f"must have {want} and at least one column. Got shape "
            f"{np.shape(value)} instead.",
        )
    return arr


def _inputs(
    X: Any,
    y: Any,
    endogenous: Any,
    instruments: Any,
    groups: Any,
    fit_intercept: bool,
    owner: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The exogenous regressors ``W`` (intercept last), ``y``, ``x``, the
    instruments ``[Z_1, W]`` and the cluster codes, each checked before any
    work."""
    yf = _column(y, "y", None, owner)
    if yf.shape[1] != 1:
        raise value_error(
            "y", owner, f"must be 1-D (one response). Got shape {np.shape(y)} instead."
        )
    n = yf.shape[0]
    xf = _column(endogenous, "endogenous", n, owner)
    if xf.shape[1] != 1:
        raise value_error(
            "endogenous",
            owner,
            "must be one column (the WRE bootstrap has one endogenous "
            f"regressor). Got {xf.shape[1]} columns instead.",
        )
    Z1 = _column(instruments, "instruments", n, owner)
    if X is None:
        W = np.ones((n, 1)) if fit_intercept else np.empty((n, 0))
    else:
        W = design(X, fit_intercept, owner)
        if W.shape[0] != n:
            raise value_error(
                "X",
                owner,
                f"must have one row per value of y ({n}). Got {W.shape[0]} rows "
                "instead.",
            )
    dims = cluster_dims(groups, n, "groups", owner)
    if len(dims) != 1:
        raise value_error(
            "groups",
            owner,
            "must be one clustering (labels of shape (n,)): the WRE bootstrap is "
            f"one-way here. Got {len(dims)} columns instead.",
        )
    Zf = np.column_stack([Z1, W])
    if n <= Zf.shape[1]:
        raise value_error(
            "instruments",
            owner,
            "together with the exogenous regressors must be fewer than the rows "
            f"({n}). Got {Zf.shape[1]} columns instead.",
        )
    codes, G = dims[0]
    return W, yf[:, 0], xf[:, 0], Zf, codes, G


def _undefined(
    base: dict[str, Any], se: float, zero_se: float, owner: str
) -> WildClusterIVResult:
    """The result when ``t`` is undefined (zero standard error up to rounding):
    no replicate is computed; ``t``, the p-value, the null distribution and
    the interval are NaN."""
    warn(
        f"{owner}: the cluster-robust standard error ({se:.3g}) is zero up to "
        f"rounding (at most {zero_se:.3g}, the error that rounding in the "
        "residuals can produce): y is fitted exactly, so t is undefined. The "
        "standard error is reported as 0 and the statistic, p-value, null "
        "distribution and interval are NaN.",
        UndefinedStatisticWarning,
    )
    return WildClusterIVResult(
        standard_error=0.0,
        statistic=math.nan,
        pvalue=math.nan,
        null_distribution=np.full(int(base["n_resamples"]), math.nan),
        **base,
    )
