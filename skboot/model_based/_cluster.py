"""The wild cluster bootstrap t test of one linear restriction on OLS coefficients.

Notation: ``y = X beta + u`` with ``n`` rows, ``k`` columns and ``G`` clusters; the
hypothesis is ``a' beta = r``.  ``A = (X'X)^-1``, ``q = A a``,
``c = G / (G - 1) * (n - 1) / (n - k)`` (the CRV1 factor), ``bhat`` the OLS estimate
and ``uhat`` its residuals.  ``t = (a' bhat - r) / se`` with the CRV1 standard
error ``se = sqrt(c * sum_g (q' X_g' uhat_g)**2)``.

Restricted (WCR) bootstrap: ``btilde = bhat - q * delta`` with
``delta = (a' bhat - r) / (a' q)`` satisfies ``a' btilde = r`` and has residuals
``utilde = uhat + delta X q``; replicate ``b`` is ``y* = X btilde + utilde * v_g``
with one multiplier per cluster.  Unrestricted (WCU): ``delta = 0`` (``y* = X bhat +
uhat * v``) and ``t*`` is centred at ``a' bhat`` instead of ``r``.

Roodman, MacKinnon, Nielsen & Webb (2019) observe that ``t*`` needs no pass over
the ``n`` rows per replicate.  With the per-cluster vectors ``su_g = X_g' uhat_g``
and ``f_g = X_g' X_g q`` (computed once, O(n k)), ``s_g = X_g' utilde_g = su_g +
delta f_g``, so

* the numerator ``a' bhat* - r = sum_g v_g q' s_g = N0 + delta N1`` with
  ``N0 = sum_g v_g wu_g``, ``N1 = sum_g v_g wf_g``, ``wu_g = q' su_g``,
  ``wf_g = q' f_g``;
* the bootstrap residuals satisfy ``q' X_g' u*_g = v_g q' s_g - f_g' A sum_h v_h
  s_h = z0_g + delta z1_g`` with ``z0_g = v_g wu_g - f_g' d0``,
  ``z1_g = v_g wf_g - f_g' d1``, ``d0 = sum_h v_h A su_h``, ``d1 = sum_h v_h A f_h``;
* so ``t*(delta) = (N0 + delta N1) / sqrt(c (Q0 + 2 delta Q1 + delta**2 Q2))``
  with ``Q0 = sum z0**2``, ``Q1 = sum z0 z1``, ``Q2 = sum z1**2``.

A replicate costs O(G k) (the five sums, in ``wcb_chunk``), and because ``t*`` is
an explicit function of ``delta`` the p-value at any other null value ``r`` costs
O(B) with the same multipliers: confidence intervals invert the test by bisection
on ``r`` without re-running the bootstrap.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._kernels.model_based import cluster_scores
from skboot._random import check_random_state
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import validate_params, value_error
from skboot.model_based._cluster_checks import (
    ZERO_SE_ULPS,
    FewClustersWarning,
    few_clusters_message,
    rounding_bound_from_norms,
    rounding_se,
)
from skboot.model_based._cluster_crv3 import (
    crv1_jackknife,
    crv3_error,
    crv3_one_way,
)
from skboot.model_based._cluster_inputs import (
    CONSTRAINTS,
    data_inputs,
    inverse_gram,
    small_sample_factor,
)
from skboot.model_based._cluster_jackknife import residuals_error, sums_function
from skboot.model_based._cluster_multiway import multiway_parts
from skboot.model_based._cluster_result import (
    TIE_RTOL,
    WildClusterResult,
    p_value,
    tstar_at,
)
from skboot.model_based._cluster_statsmodels import (
    StatsmodelsModel,
    StatsmodelsResults,
    is_results,
)

__all__ = ["TIE_RTOL", "WildClusterResult", "wild_cluster_bootstrap"]


def wild_cluster_bootstrap(
    X: ArrayLike | StatsmodelsModel | StatsmodelsResults,
    y: ArrayLike | None = None,
    groups: ArrayLike | str | Sequence[str] | None = None,
    *,
    coef: ArrayLike | str = 0,
    null: float = 0.0,
    impose_null: bool = True,
    weights: str = "rademacher",
    bootstrap_groups: ArrayLike | str | Sequence[str] | None = None,
    fixed_effects: ArrayLike | str | Sequence[str] | None = None,
    small_sample: str = "both",
    variance: str = "crv1",
    residuals: str = "ordinary",
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    level: float = 0.95,
    fit_intercept: bool = True,
    random_state: RandomStateLike = None,
) -> WildClusterResult:
    """Wild cluster bootstrap t test (and confidence interval) of an OLS coefficient.

    Tests ``a' beta = null`` in ``y = X beta + u`` with errors correlated within
    the clusters ``groups``, by the restricted (WCR, default) or unrestricted (WCU)
    wild cluster bootstrap of Cameron, Gelbach & Miller (2008), computed with the
    algebra of Roodman, MacKinnon, Nielsen & Webb (2019) (module
    ``skboot.model_based._cluster`` has the formulas).

    Algorithm:

    1. OLS fit, CRV1 standard error (factor ``G / (G - 1) * (n - 1) / (n - k)``
       by default, see ``small_sample``) and ``t``; per-cluster sums
       ``X_g' uhat_g`` and ``X_g' X_g q``: O(n k) once (with ``bootstrap_groups``
       or multiway clustering, per intersection of the bootstrap and variance
       clusters: module ``skboot.model_based._cluster_multiway``).
    2. Replicate ``b``: one multiplier per cluster (purpose slot "wild"; or, with
       Rademacher weights and ``2**G <= n_resamples``, the ``2**G`` sign vectors
       enumerated: replicate ``j`` has ``v_g = 1 - 2 * bit_g(j)``, bit 0 for the
       first cluster in sorted label order, so ``j = 0`` is all ``+1``), and five
       sums from which ``t*`` follows: O(G k) per replicate, never O(n).
    3. p-value: "two-sided" is symmetric, ``mean(|t*| > |t|)``; "equal-tailed"
       ``2 min(mean(t* > t), mean(t* < t))``; "greater" ``mean(t* > t)``; "less"
       ``mean(t* < t)`` (a ``t*`` within ``1e-10 max(1, |t|)`` of ``t`` is a tie,
       not counted).
    4. Confidence interval: the null values whose p-value exceeds ``1 - level``,
       found from the estimate outward by doubling steps and bisection (to
       ``1e-10`` standard errors).  Each p-value evaluation reuses the stored sums
       (O(n_resamples)); WCR's ``t*`` depends on the null value, WCU's does not
       (its interval is the symmetric bootstrap-t interval).

    Undefined and coarse tests:

    * **Zero standard error.**  When the CRV1 standard error is at or below
      ``max(256, kappa**2)`` times what one ulp of rounding in every residual
      could produce (``kappa``: condition number of the column-equilibrated
      design; module ``skboot.model_based._cluster_checks`` states the rule),
      ``y`` is fitted exactly up to rounding and ``t`` is undefined: the result
      has ``standard_error = 0``, NaN ``statistic``, ``pvalue``,
      ``null_distribution`` and interval, and an :class:`~skboot.UndefinedStatisticWarning` says why.
      No replicate is computed.
    * **Few clusters.**  With Rademacher weights the p-values are multiples of
      ``2 / 2**G`` (symmetric, equal-tailed) or ``1 / 2**G`` (one-sided), and
      ``0`` is attainable; when that step exceeds ``1 - level`` the test at level
      ``1 - level`` rejects only at ``p = 0``, about once in ``2**(G - 1)``
      data sets under the null (one-sided ``2**G``), so
      :class:`~skboot.model_based.FewClustersWarning` is raised (two-sided at
      95%: ``G <= 5``; one-sided: ``G <= 4``).  Use ``weights="webb"``.
    * **Few replicates.**  The interval at ``level`` needs at least
      ``ceil(1 / (1 - level)) - 1`` drawn replicates (19 at 95%; equal-tailed
      ``ceil(2 / (1 - level)) - 1``, 39), else the test behind it could only
      reject at ``p = 0``: with fewer, ``result.confidence_interval()`` raises
      and ``result.to_frame()`` shows NaN endpoints.  The p-value accepts any
      ``n_resamples >= 1`` (it is then a multiple of ``1 / n_resamples``).

    Memory: O(n k) for the design plus O(n_resamples) for the sums.

    Parameters
    ----------
    X : array-like of shape (n,) or (n, n_features), or a statsmodels model
        Regressors (an intercept column is added when ``fit_intercept``), or a
        statsmodels ``OLS`` or ``WLS`` model or its fitted results (formula API
        included): its design (constant included, nothing added, so
        ``fit_intercept`` does not apply), response and weights are used, and
        ``coef`` may name a parameter (``"x"``, ``"Intercept"``, ``"const"``).
        Other statsmodels models (GLS, GLM, IV, quantile or robust regression)
        are refused.
    y : array-like of shape (n,), optional
        The response; None (and only None) with a statsmodels results object.
    groups : array-like of shape (n,) or (n, n_ways), or str or list of str, optional
        Cluster labels, at least 2 clusters; a 2-D array or data frame gives
        multiway clustering (Cameron, Gelbach & Miller 2011: one variance per
        non-empty set of columns, on their intersection, added with sign
        ``(-1)**(size + 1)``).  With a statsmodels fit: also column names of
        the formula's data frame, pandas labels are aligned to the rows the
        model used, and None takes the clusters of a ``cov_type="cluster"``
        fit.
    coef : int, str or array-like of shape (n_features,), default=0
        The column of ``X`` whose coefficient is tested, or the weights ``a`` of a
        linear combination ``a' beta`` of the coefficients of ``X``; with a
        statsmodels fit, also a parameter name (indices and weights then run
        over all of the model's parameters).
    null : float, default=0.0
        The hypothesised value ``r``.
    impose_null : bool, default=True
        True: restricted bootstrap (WCR), recommended by MacKinnon & Webb; False:
        unrestricted (WCU).
    weights : {"rademacher", "mammen", "webb", "normal"}, default="rademacher"
        Law of the cluster multipliers; Webb's six-point law for very few
        clusters (fewer than about 12), where Rademacher has only ``2**G``
        values; "normal" is the standard normal.
    bootstrap_groups : None, {"min", "max"}, array-like or str, optional
        The clusters that share a multiplier (boottest's ``bootcluster``).
        None: the variance clusters (one-way) or the intersection of all the
        clusterings (multiway, as boottest); "min" / "max": the clustering in
        ``groups`` with the fewest / most clusters; labels of shape (n,), or
        (n, m) for the intersection of the columns (with a statsmodels fit,
        also column names of the formula's data frame).  Enumeration and the few-clusters check use
        their number.
    fixed_effects : array-like of shape (n,) or (n, n_dimensions), str or list of str, optional
        Levels of one categorical variable, or of several (the columns of a
        2-D array or data frame: firm and year effects), whose dummies are in
        the model but absorbed: ``y`` and ``X`` are demeaned within the levels
        (Frisch-Waugh-Lovell; for several dimensions by alternating
        projections to a relative change of ``1e-12``, an error if that takes
        more than 10,000 sweeps), which gives the coefficients, standard
        error, ``t`` and bootstrap distribution of the model with the dummies
        written out.  The levels replace the intercept (no intercept column
        is added; a column of ``X`` constant within the levels is refused; of
        a statsmodels design, such columns, its constant among them, are
        dropped).  A dimension whose levels span clusters (year effects with
        clusters by state) is written out as dummy columns instead (O(n L)
        memory, at most 25 million values; ``result.coef`` then ends with the
        coefficients of its levels, redundant levels left out): modules
        ``skboot.model_based._cluster_fe`` and
        ``skboot.model_based._cluster_fe_multi``.  ``k`` of ``small_sample``
        counts every level minus the redundant ones (for two dimensions one
        per connected component of the levels linked by the rows; fixest's
        ``fixef.K="full"``, the explicit-dummy model), also for levels nested
        in the clusters, where fixest and reghdfe leave them out (a larger
        ``(n - 1) / (n - k)``; p-values and intervals are the same either
        way).  With a statsmodels fit, also a column name, or a list of
        column names, of the formula's data frame.
    small_sample : {"both", "cluster", "observations", "none"}, default="both"
        The factor of the cluster-robust variance: ``G / (G - 1) * (n - 1) /
        (n - k)``, ``G / (G - 1)``, ``(n - 1) / (n - k)`` or 1 (multiway: each
        term with its own ``G``).  It scales ``t`` and every ``t*`` alike, so
        it changes the standard error and ``t``, never the p-value or the
        interval.  Not used by ``variance="crv3"``.
    variance : {"crv1", "crv3"}, default="crv1"
        The cluster-robust variance of the standard error and of every
        bootstrap ``t``: CRV1, or the cluster jackknife CRV3 of MacKinnon,
        Nielsen & Webb (2023), ``(G - 1) / G sum_g (bhat_(g) - bhat)**2``
        over the leave-one-cluster-out estimates, more reliable with few or
        unbalanced clusters (their WCR/WCU with the CV3 statistic;
        wildboottest's ``bootstrap_type="13"``).  CRV3 is one-way only and
        costs ``G`` solves of size ``k`` once (module
        ``skboot.model_based._cluster_crv3``); replicates stay O(G k).
    residuals : {"ordinary", "jackknife"}, default="ordinary"
        The residuals the bootstrap multiplies: those of the fit on all
        clusters (restricted under WCR), or the jackknifed ones of MacKinnon,
        Nielsen & Webb (2023), ``y_g - X_g b_(g)`` with ``b_(g)`` the
        (restricted under WCR) estimate without cluster ``g``, not shrunk by
        the cluster's own fit as the ordinary residuals of an influential
        cluster are (with ``variance="crv1"`` wildboottest's
        ``bootstrap_type="31"``, with ``"crv3"`` its ``"33"``).  One-way only; ``G`` solves of size
        ``k`` once (module ``skboot.model_based._cluster_jackknife``),
        replicates stay O(G k).  The observed ``t`` does not change.
    n_resamples : int, default=9999
        Replicates; with Rademacher weights and ``2**G <= n_resamples`` the ``2**G``
        sign vectors are enumerated instead (``result.n_resamples = 2**G``).  The
        interval needs ``ceil(1 / (1 - level)) - 1`` of them (see above).
    alternative : {"two-sided", "less", "greater", "equal-tailed"}, default="two-sided"
        The alternative of the test (scipy's three), or ``"equal-tailed"``: the
        two-sided test ``2 min(P(t* > t), P(t* < t))`` (see above), which does
        not assume ``t*`` symmetric.
    level : float, default=0.95
        Confidence level of the interval (``result.confidence_interval()``; the
        result computes it when asked) and of the few-clusters check.
    fit_intercept : bool, default=True
        Add an intercept column to ``X`` (its coefficient comes last).
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams (unused when the sign vectors are
        enumerated).

    Returns
    -------
    WildClusterResult
        The estimate, its standard error (CRV1, or CRV3 with
        ``variance="crv3"``), the t statistic, the p-value and
        the bootstrap t distribution at the null; its ``confidence_interval()``
        inverts the test.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, a singular design, no more rows than columns,
        non-finite data (or data whose squares overflow), or a bad parameter (named in the message).

    Warns
    -----
    UndefinedStatisticWarning
        ``t`` is undefined (zero standard error up to rounding); the p-value is
        NaN.
    FewClustersWarning
        Rademacher weights with too few clusters to reach ``1 - level``.

    See Also
    --------
    WildBootstrap : The wild (cluster) bootstrap of any statistic of a regression.

    References
    ----------
    .. [1] A. C. Cameron, J. B. Gelbach and D. L. Miller, "Bootstrap-based
           improvements for inference with clustered errors", Review of Economics
           and Statistics 90(3), 414-427, 2008.
    .. [2] D. Roodman, J. G. MacKinnon, M. Ø. Nielsen and M. D. Webb, "Fast and
           wild: Bootstrap inference in Stata using boottest", Stata Journal 19(1),
           4-60, 2019.
    .. [3] J. G. MacKinnon and M. D. Webb, "The wild bootstrap for few (treated)
           clusters", Econometrics Journal 21(2), 2018.
    .. [4] M. D. Webb, "Reworking wild bootstrap-based inference for clustered
           errors", Canadian Journal of Economics 56(3), 2023.
    .. [5] J. G. MacKinnon, M. Ø. Nielsen and M. D. Webb, "Fast and reliable
           jackknife and bootstrap methods for cluster-robust inference", Journal
           of Applied Econometrics 38(5), 2023.
    .. [6] A. C. Cameron, J. B. Gelbach and D. L. Miller, "Robust inference with
           multiway clustering", Journal of Business & Economic Statistics
           29(2), 238-249, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import wild_cluster_bootstrap
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(8), 25)
    >>> x = rng.normal(size=200) + rng.normal(size=8)[g]
    >>> y = 0.1 * x + rng.normal(size=200) + rng.normal(size=8)[g]
    >>> res = wild_cluster_bootstrap(x, y, g, n_resamples=999, random_state=0)
    >>> res.enumerated, res.n_resamples          # 2**8 = 256 <= 999
    (True, 256)
    >>> round(res.estimate, 3), round(res.pvalue, 3)
    (0.246, 0.016)
    >>> [round(v, 3) for v in res.confidence_interval()]
    [0.013, 0.539]

    A statsmodels fit (formula API), the parameter named:

    >>> import pandas as pd
    >>> import statsmodels.formula.api as smf
    >>> df = pd.DataFrame({"y": y, "x": x, "g": g})
    >>> fit = smf.ols("y ~ x", data=df).fit()
    >>> res2 = wild_cluster_bootstrap(fit, groups="g", coef="x",
    ...                               n_resamples=999, random_state=0)
    >>> res2.pvalue == res.pvalue
    True
    """
    owner = "wild_cluster_bootstrap"
    options = validate_params(
        owner,
        CONSTRAINTS,
        impose_null=impose_null,
        fit_intercept=fit_intercept,
        weights=weights,
        alternative=alternative,
        n_resamples=n_resamples,
        level=level,
        null=null,
        small_sample=small_sample,
        variance=variance,
        residuals=residuals,
    )
    B, level, null = options["n_resamples"], options["level"], float(null)
    intercept = bool(fit_intercept) and fixed_effects is None and not is_results(X)
    D, yf, dims, boot, a, k_df = data_inputs(
        X, y, groups, coef, bool(fit_intercept), bootstrap_groups, owner, fixed_effects
    )
    _check_one_way(variance, residuals, boot, owner)
    key = check_random_state(random_state, owner=owner)

    # -- OLS: O(n k^2) for X'X, then one pass over the rows for the cluster sums -
    A, cond2 = inverse_gram(D, intercept, owner)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused below
        beta = A @ (D.T @ yf)
        q = A @ a
        aq = float(a @ q)
    factor = max(ZERO_SE_ULPS, cond2)
    se, c, n_boot, replicate, zero_se, negative = _variance_parts(
        D,
        yf,
        beta,
        (q, a, A),
        dims,
        boot,
        (small_sample, variance, k_df, residuals == "jackknife", impose_null),
        factor,
        owner,
    )
    est = float(a @ beta)
    kind = "WCR" if impose_null else "WCU"
    enumerate_all = weights == "rademacher" and n_boot < 32 and 2**n_boot <= B
    if enumerate_all:
        B = 2**n_boot
    base = {
        "estimate": est,
        "coef": beta,
        "null": null,
        "bootstrap": kind,
        "weights": weights,
        "alternative": alternative,
        "level": level,
        "n_resamples": B,
        "enumerated": bool(enumerate_all),
        "n_clusters": min(G for _, G in dims),
        "n_bootstrap_clusters": n_boot,
        "small_sample": small_sample,
        "variance": variance,
        "residuals": residuals,
        "random_state": None if enumerate_all else key.reproducer(),
        "_aq": aq,
        "_c": c,
    }
    if not se > zero_se:
        return _undefined(base, se, zero_se, negative)
    if weights == "rademacher":
        message = few_clusters_message(n_boot, 1.0 - level, alternative)
        if message is not None:
            warn(message, FewClustersWarning)

    # -- the replicates: O(G k) each ----------------------------------------------
    sums = replicate(key, B, weights, enumerate_all)
    tstar = tstar_at(sums, c, (est - null) / aq, kind)
    t = (est - null) / se
    return WildClusterResult(
        standard_error=se,
        statistic=t,
        pvalue=p_value(t, tstar, alternative),
        null_distribution=tstar,
        _sums=sums,
        **base,
    )


def _check_one_way(variance: str, residuals: str, boot: Any, owner: str) -> None:
    """Refuse the cluster jackknife (CRV3, jackknifed residuals) with multiway
    clustering or bootstrap clusters other than the clusters."""
    if variance == "crv3" and boot is not None:
        raise crv3_error(owner)
    if residuals == "jackknife" and boot is not None:
        raise residuals_error(owner)


def _variance_parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    qaA: tuple[np.ndarray, np.ndarray, np.ndarray],
    dims: list[tuple[np.ndarray, int]],
    boot: tuple[np.ndarray, int] | None,
    kinds: tuple[str, str, int, bool, bool],
    factor: float,
    owner: str,
) -> tuple[float, float, int, Callable[..., np.ndarray], float, bool]:
    """The standard error, the factor ``c`` applied to ``t*``, the number of
    bootstrap clusters, the function giving the sums of the replicates, the
    standard error that counts as zero (module
    ``skboot.model_based._cluster_checks``) and whether a multiway variance
    is negative."""
    q, _, A = qaA
    small_sample, variance, k_df, jackknife, restricted = kinds
    n = D.shape[0]
    if boot is not None:
        parts = multiway_parts(
            D, yf, beta, q, A, dims, boot, small_sample, factor, k_df
        )
        se = math.sqrt(max(parts.variance, 0.0))  # NaN or inf: refused below
        _check_finite(se, yf, owner)
        negative = parts.variance < 0
        return se, 1.0, parts.n_boot, parts.sums, factor * parts.rounding, negative
    codes, G = dims[0]  # one-way: the bootstrap clusters are the variance clusters
    if variance == "crv3":
        c, c_ref = (G - 1) / G, 1.0
        se, replicate, se_ref, norms = crv3_one_way(
            D, yf, beta, qaA, codes, G, owner, (jackknife, restricted)
        )
    elif jackknife:
        c = c_ref = small_sample_factor(small_sample, G, n, k_df)
        se, replicate, norms = crv1_jackknife(
            D, yf, beta, qaA, codes, G, c, owner, restricted
        )
        se_ref = se
    else:
        c = c_ref = small_sample_factor(small_sample, G, n, k_df)
        se, replicate, norms = _one_way(D, yf, beta, q, A, codes, G, c)
        se_ref = se
    _check_finite(se, yf, owner)
    zero_se = _zero_se(se_ref, factor, D, yf, beta, q, codes, G, c_ref, norms)
    if se_ref is not se:  # CRV3: the rule on the CRV1 error, in CRV3 units
        zero_se = zero_se * se / se_ref if se_ref > 0 else math.inf
    return se, c, G, replicate, zero_se, False


def _check_finite(se: float, yf: np.ndarray, owner: str) -> None:
    """Refuse a standard error that overflows."""
    if not math.isfinite(se):
        raise value_error(
            "y",
            owner,
            f"must have values whose cluster-robust "
            "variance is a finite float64 (it overflows). Got values up to "
            f"{float(np.abs(yf).max()):.3g} instead; rescale y.",
        )


def _zero_se(
    se: float,
    factor: float,
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    codes: np.ndarray,
    G: int,
    c: float,
    norms: np.ndarray,
) -> float:
    """The one-way standard error that counts as zero (module
    ``skboot.model_based._cluster_checks``): the cheap bound first (from the
    norms of the pass over the rows), the exact rounding level only when the
    bound does not decide."""
    zero_se = factor * rounding_bound_from_norms(norms, D, yf, beta, q, c)
    if not se > zero_se:
        zero_se = factor * rounding_se(D, yf, beta, q, codes, G, c)
    return zero_se


def _one_way(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    A: np.ndarray,
    codes: np.ndarray,
    G: int,
    c: float,
) -> tuple[float, Callable[..., np.ndarray], np.ndarray]:
    """The CRV1 standard error, the function of ``(key, B, weights,
    enumerate_all)`` giving the sums of the replicates from the per-cluster
    arrays (``su A``, ``F A``, ``F``, ``wu``, ``wf``), when the bootstrap clusters
    are the variance clusters, and the squared norms of the rounding bound:
    one pass over the rows."""
    k = D.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        su = np.empty((G, k))
        F = np.empty((G, k))
        norms = np.empty(k + 2)
        cluster_scores(D, yf, beta, q, codes, su, F, norms)
        wu = su @ q
        wf = F @ q
        se = math.sqrt(c * float(wu @ wu))
    replicate = sums_function(su @ A, F @ A, F, wu, wf, wu, wf)
    return se, replicate, norms


def _undefined(
    base: dict[str, Any], se: float, zero_se: float, negative: bool = False
) -> WildClusterResult:
    """The result when ``t`` is undefined: the standard error is zero up to
    rounding (see ``skboot.model_based._cluster_checks``), or the multiway
    variance is negative.  No replicate is computed; ``t``, the p-value, the
    null distribution and the interval are NaN."""
    if negative:
        text = (
            "wild_cluster_bootstrap: the multiway cluster-robust variance "
            "(the sum of the one-way variances minus those of the intersections) "
            "is negative, so the standard error and t are undefined. The standard "
            "error is reported as 0 and the statistic, p-value, null distribution "
            "and interval are NaN."
        )
    else:
        text = (
            "wild_cluster_bootstrap: the cluster-robust standard error "
            f"({se:.3g}) is zero up to rounding (at most {zero_se:.3g}, the error "
            "that rounding in the residuals can produce): y is fitted exactly by X, "
            "so t is undefined. The standard error is reported as 0 and the "
            "statistic, p-value, null distribution and interval are NaN."
        )
    warn(text, UndefinedStatisticWarning)
    B = int(base["n_resamples"])
    return WildClusterResult(
        standard_error=0.0,
        statistic=math.nan,
        pvalue=math.nan,
        null_distribution=np.full(B, math.nan),
        _sums=np.full((B, 5), math.nan),
        **base,
    )
