"""The wild cluster bootstrap Wald test of several linear restrictions on OLS
coefficients: ``R beta = r`` with ``R`` of ``q`` rows (the algebra is in
``skboot.model_based._cluster_wald_parts``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._kernels.model_based import WEIGHT_CODES
from skboot._random import STREAM_VERSION, check_random_state
from skboot._results import Result
from skboot._typing import ArrayLike, RandomStateLike, SeedRecord
from skboot._validation import (
    BOOL,
    N_RESAMPLES,
    Constraint,
    Options,
    is_int,
    param_error,
    validate_params,
    value_error,
)
from skboot.model_based._cluster_checks import ZERO_SE_ULPS
from skboot.model_based._cluster_crv3 import crv3_error
from skboot.model_based._cluster_inputs import (
    SMALL_SAMPLE,
    VARIANCES,
    data_inputs,
    inverse_gram,
)
from skboot.model_based._cluster_result import TIE_RTOL, null_histogram
from skboot.model_based._cluster_statsmodels import (
    StatsmodelsModel,
    StatsmodelsResults,
    is_results,
)
from skboot.model_based._cluster_wald_parts import crv3_wald_parts, wald_parts

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["WildClusterWaldResult", "wild_cluster_wald"]

#: The options of :func:`wild_cluster_wald`, checked in this order before any
#: work.
WALD_CONSTRAINTS: dict[str, list[Constraint]] = {
    "impose_null": [BOOL],
    "fit_intercept": [BOOL],
    "weights": [Options(tuple(WEIGHT_CODES))],
    "n_resamples": [N_RESAMPLES],
    "small_sample": [Options(SMALL_SAMPLE)],
    "variance": [Options(VARIANCES)],
}


@dataclass(frozen=True, eq=False, repr=False)
class WildClusterWaldResult(Result):
    """Outcome of :func:`wild_cluster_wald`; immutable.

    It holds the tested combinations ``R bhat``, their cluster-robust
    covariance, the Wald statistic, its bootstrap p-value and the bootstrap
    Wald statistics in replicate order; it compares, prints, converts and
    saves like every skboot result.

    Attributes
    ----------
    estimate : ndarray of shape (q,)
        ``R bhat``, the restricted combinations of the OLS coefficients.
    covariance : ndarray of shape (q, q)
        Their cluster-robust covariance: CRV1 (with the small-sample factor)
        or CRV3 (see ``variance``).
    statistic : float
        The Wald statistic ``W = (R bhat - r)' covariance^-1 (R bhat - r)``
        (``t**2`` when ``q = 1``).
    pvalue : float
        Bootstrap p-value ``mean(W* > W)``; NaN when ``W`` is undefined.
    null_distribution : ndarray of shape (n_resamples,)
        The bootstrap Wald statistics, in replicate order.
    coef : ndarray of shape (k,)
        All OLS coefficients (intercept last when fitted).
    restriction : ndarray of shape (q, k)
        The rows of ``R`` over all coefficients.
    null : ndarray of shape (q,)
        The hypothesised values ``r``.
    bootstrap : {"WCR", "WCU"}
        Restricted (null imposed) or unrestricted bootstrap.
    weights : str
        Law of the cluster multipliers.
    n_resamples : int
        Replicates used: ``2**G`` when the sign vectors were enumerated.
    enumerated : bool
        Whether the ``2**G`` Rademacher sign vectors were enumerated.
    n_clusters : int
        Number of clusters (multiway clustering: of the clustering with the
        fewest).
    n_bootstrap_clusters : int
        Number of bootstrap clusters (one multiplier each).
    small_sample : str
        The small-sample factor of the cluster-robust covariance.
    variance : {"crv1", "crv3"}
        The cluster-robust covariance of ``W`` and of every ``W*``.
    random_state : int, SeedSequence or None
        Reproduces the draws (None when enumerated).
    stream_version : int
        Version of the random streams that drew the multipliers.

    See Also
    --------
    wild_cluster_wald : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.model_based import wild_cluster_wald
    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(20), 10)
    >>> X = rng.normal(size=(200, 2))
    >>> y = X @ [0.5, 0.0] + rng.normal(size=200) + rng.normal(size=20)[g]
    >>> res = wild_cluster_wald(X, y, g, coef=[0, 1], n_resamples=999,
    ...                         random_state=0)
    >>> res.estimate.shape, res.covariance.shape, res.n_resamples
    ((2,), (2, 2), 999)
    """

    estimate: np.ndarray
    covariance: np.ndarray
    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    coef: np.ndarray = field(repr=False)
    restriction: np.ndarray = field(repr=False)
    null: np.ndarray = field(repr=False)
    bootstrap: str = "WCR"
    weights: str = "rademacher"
    n_resamples: int = 0
    enumerated: bool = field(default=False, repr=False)
    n_clusters: int = 0
    n_bootstrap_clusters: int = field(default=0, repr=False)
    small_sample: str = field(default="both", repr=False)
    variance: str = field(default="crv1", repr=False)
    random_state: SeedRecord = field(default=None, repr=False)
    stream_version: int = field(default=STREAM_VERSION, repr=False)

    @classmethod
    def _from_file_fields(cls, fields: dict[str, Any], where: Any) -> Any:
        """A record written before ``variance`` existed used CRV1."""
        if "variance" not in fields:
            fields = {**fields, "variance": "crv1"}
        return super()._from_file_fields(fields, where)

    def plot(self, ax: Axes | None = None, **kwargs: str | float) -> Axes:
        """Histogram of the bootstrap Wald statistics, and the observed one.

        Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; None draws on a new figure.
        **kwargs
            Passed to ``Axes.hist`` (``bins="auto"`` and ``density=True``
            unless given).

        Returns
        -------
        matplotlib Axes
            The Axes drawn on.
        """
        return null_histogram(
            ax,
            self.null_distribution,
            self.statistic,
            ("W", "bootstrap Wald statistics"),
            f"{self.bootstrap} wild cluster bootstrap Wald test of "
            f"{self.estimate.shape[0]} restrictions: p = {self.pvalue:.3g}",
            kwargs,
        )


def _restrictions(
    coef: Any, d: int, k: int, names: list[str] | None, owner: str
) -> np.ndarray:
    """``R`` (q, k): a list of column indices or parameter names (each tested
    alone: unit rows), or a 2-D array of ``q`` rows of weights; full row
    rank."""
    allowed = (
        f"a list of distinct column indices in [0, {d - 1}]"
        + (f" or parameter names of {names}" if names else "")
        + f", or a 2-D array of shape (q, {d}) of finite weights with linearly "
        "independent rows"
    )
    if (
        isinstance(coef, (list, tuple))
        and coef
        and all(is_int(c) or isinstance(c, str) for c in coef)
    ):
        idx = []
        for c in coef:
            if isinstance(c, str):
                if names is None or c not in names:
                    raise param_error("coef", owner, allowed, coef)
                c = names.index(c)
            if not 0 <= int(c) < d:
                raise param_error("coef", owner, allowed, coef)
            idx.append(int(c))
        if len(set(idx)) != len(idx):
            raise param_error("coef", owner, allowed, coef)
        R = np.zeros((len(idx), k))
        R[np.arange(len(idx)), idx] = 1.0
        return R
    try:
        W = np.asarray(coef, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error("coef", owner, allowed, coef) from None
    if W.ndim != 2 or W.shape[1] != d or W.shape[0] < 1 or not np.isfinite(W).all():
        raise param_error("coef", owner, allowed, coef)
    if np.linalg.matrix_rank(W) < W.shape[0]:
        raise value_error(
            "coef",
            owner,
            f"must have linearly independent rows (a restriction implied by the "
            f"others cannot be tested jointly). Got {W.shape[0]} rows of rank "
            f"{np.linalg.matrix_rank(W)} instead.",
        )
    R = np.zeros((W.shape[0], k))
    R[:, :d] = W
    return R


def _null_vector(null: Any, q: int, owner: str) -> np.ndarray:
    allowed = (
        f"a finite float or a 1-D array of {q} finite floats (one per row of coef)"
    )
    try:
        r = np.asarray(null, dtype=np.float64)
    except (TypeError, ValueError):
        raise param_error("null", owner, allowed, null) from None
    if r.ndim == 0:
        r = np.full(q, float(r))
    if r.shape != (q,) or not np.isfinite(r).all():
        raise param_error("null", owner, allowed, null)
    return r


def wild_cluster_wald(
    X: ArrayLike | StatsmodelsModel | StatsmodelsResults,
    y: ArrayLike | None = None,
    groups: ArrayLike | str | Sequence[str] | None = None,
    *,
    coef: ArrayLike | Sequence[int | str],
    null: ArrayLike | float = 0.0,
    impose_null: bool = True,
    weights: str = "rademacher",
    bootstrap_groups: ArrayLike | str | Sequence[str] | None = None,
    fixed_effects: ArrayLike | str | Sequence[str] | None = None,
    small_sample: str = "both",
    variance: str = "crv1",
    n_resamples: int = 9999,
    fit_intercept: bool = True,
    random_state: RandomStateLike = None,
) -> WildClusterWaldResult:
    """Wild cluster bootstrap Wald test of several linear restrictions at once.

    Tests ``R beta = r`` (``q`` rows) in ``y = X beta + u`` with errors
    correlated within the clusters ``groups``, by the restricted (WCR,
    default) or unrestricted (WCU) wild cluster bootstrap, as boottest does
    for several hypotheses (Roodman, MacKinnon, Nielsen & Webb 2019).  With
    one restriction it is the symmetric test of :func:`wild_cluster_bootstrap`
    (``W = t**2``, the same p-value from the same multipliers).

    Algorithm:

    1. OLS fit, the CRV1 covariance ``V`` of ``R bhat`` (the factor of
       ``small_sample``, or CRV3: see ``variance``; multiway clustering as
       in :func:`wild_cluster_bootstrap`) and ``W = (R bhat - r)' V^-1 (R bhat -
       r)``; per cell of the bootstrap and variance clusters, ``X_c' uhat_c``
       and ``X_c' X_c A R'``: O(n k q) once.
    2. Replicate ``b``: the multipliers of :func:`wild_cluster_bootstrap`
       (drawn, or the ``2**G`` Rademacher sign vectors enumerated when
       ``2**G <= n_resamples``), the bootstrap numerator and covariance from
       the stored sums, and ``W* = N' V*^-1 N``: O((G + H q) k + q**3) per
       replicate, never O(n) (module
       ``skboot.model_based._cluster_wald_parts``).
    3. p-value ``mean(W* > W)`` (a ``W*`` that ties ``W`` to within the
       tolerance of the t test is not counted; a replicate whose covariance
       is not positive definite, possible with multiway clustering, counts
       as exceeding ``W``).

    Memory: O(n k) for the design, O(C k q) for the cells, O(n_resamples).

    Parameters
    ----------
    X : array-like of shape (n,) or (n, n_features), or a statsmodels model
        Regressors (an intercept column is added when ``fit_intercept``), or
        a statsmodels OLS or WLS model or its fitted results, as in
        :func:`wild_cluster_bootstrap`.
    y : array-like of shape (n,), optional
        The response; None (and only None) with a statsmodels model.
    groups : array-like of shape (n,) or (n, n_ways), or str or list of str, optional
        Cluster labels (multiway with several columns), as in
        :func:`wild_cluster_bootstrap`.
    coef : list of int or str, or array-like of shape (q, n_features)
        The restrictions: a list of column indices (or statsmodels parameter
        names) whose coefficients are tested jointly, or the ``q`` rows of
        ``R`` (weights over the columns of ``X``, or over all of a statsmodels
        model's parameters), linearly independent.  With ``G`` clusters the
        CRV1 covariance has rank at most ``G - 1`` (the CRV3 one at most
        ``G``), which bounds the number of restrictions.
    null : float or array-like of shape (q,), default=0.0
        The hypothesised values ``r`` (a float: the same for every row).
    impose_null : bool, default=True
        True: restricted bootstrap (WCR, the estimate under ``R beta = r``
        and its residuals); False: unrestricted (WCU, the numerator centred
        at ``R bhat``).
    weights : {"rademacher", "mammen", "webb", "normal"}, default="rademacher"
        Law of the cluster multipliers.
    bootstrap_groups : None, {"min", "max"}, array-like or str, optional
        The clusters that share a multiplier, as in
        :func:`wild_cluster_bootstrap`.
    fixed_effects : array-like of shape (n,) or (n, n_dimensions), str or list of str, optional
        Levels of one categorical variable, or of several, whose dummies are
        absorbed (demeaning within the levels), as in
        :func:`wild_cluster_bootstrap`.
    small_sample : {"both", "cluster", "observations", "none"}, default="both"
        The factor of the cluster-robust covariance; it scales ``W`` and
        every ``W*`` alike, never the p-value.  Not used by
        ``variance="crv3"``.
    variance : {"crv1", "crv3"}, default="crv1"
        The cluster-robust covariance of ``R bhat`` in ``W`` and every
        ``W*``: CRV1, or the cluster jackknife CRV3 of MacKinnon, Nielsen &
        Webb (2023), ``(G - 1) / G sum_g (R bhat_(g) - R bhat)(R bhat_(g) - R
        bhat)'`` over the leave-one-cluster-out estimates, as in
        :func:`wild_cluster_bootstrap`.  One-way only; ``G`` solves of size
        ``k`` once, replicates stay O((G + G q) k + q**3).
    n_resamples : int, default=9999
        Replicates (``2**G`` sign vectors instead when Rademacher and ``2**G
        <= n_resamples``).
    fit_intercept : bool, default=True
        Add an intercept column to ``X`` (its coefficient comes last).
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams (unused when enumerated).

    Returns
    -------
    WildClusterWaldResult
        The estimates ``R bhat``, their covariance, ``W``, the p-value and
        the bootstrap distribution of ``W``.

    Raises
    ------
    ValueError
        A bad parameter (named in the message), rows of ``coef`` that are
        linearly dependent, or restrictions whose cluster-robust covariance
        is singular (for instance more than ``G - 1`` of them).

    Warns
    -----
    UndefinedStatisticWarning
        A restriction's standard error is zero up to rounding (``y`` fitted
        exactly), or a multiway covariance is not positive definite: ``W``
        and the p-value are NaN.

    See Also
    --------
    wild_cluster_bootstrap : The t test (and interval) of one restriction.

    Notes
    -----
    With Rademacher weights and few clusters the p-value is a multiple of
    ``2 / 2**G``, as for the symmetric t test (see
    :class:`~skboot.model_based.FewClustersWarning`); use
    ``weights="webb"`` with fewer than about 12 clusters.

    References
    ----------
    .. [1] D. Roodman, J. G. MacKinnon, M. Ø. Nielsen and M. D. Webb, "Fast and
           wild: Bootstrap inference in Stata using boottest", Stata Journal
           19(1), 4-60, 2019.
    .. [2] A. C. Cameron, J. B. Gelbach and D. L. Miller, "Bootstrap-based
           improvements for inference with clustered errors", Review of
           Economics and Statistics 90(3), 414-427, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.model_based import wild_cluster_wald
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(12), 20)
    >>> X = rng.normal(size=(240, 3))
    >>> y = X @ [0.3, 0.0, 0.0] + rng.normal(size=240) + rng.normal(size=12)[g]
    >>> res = wild_cluster_wald(X, y, g, coef=[1, 2], weights="webb",
    ...                         n_resamples=999, random_state=0)
    >>> res.estimate.shape, bool(0.0 < res.pvalue <= 1.0)
    ((2,), True)
    """
    owner = "wild_cluster_wald"
    options = validate_params(
        owner,
        WALD_CONSTRAINTS,
        impose_null=impose_null,
        fit_intercept=fit_intercept,
        weights=weights,
        n_resamples=n_resamples,
        small_sample=small_sample,
        variance=variance,
    )
    B = options["n_resamples"]
    inputs = (X, y, groups, coef, bool(fit_intercept), bootstrap_groups, owner)
    D, yf, dims, boot, R, k_df = data_inputs(*inputs, fixed_effects, _restrictions)
    r = _null_vector(null, R.shape[0], owner)
    if variance == "crv3" and boot is not None:
        raise crv3_error(owner)
    key = check_random_state(random_state, owner=owner)
    intercept = bool(fit_intercept) and fixed_effects is None and not is_results(X)
    A, cond2 = inverse_gram(D, intercept, owner)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused below
        beta = A @ (D.T @ yf)
        P = A @ R.T
        est = R @ beta
        delta = np.linalg.solve(R @ P, est - r) if impose_null else np.zeros(len(r))
    boot = dims[0] if boot is None else boot
    factor = max(ZERO_SE_ULPS, cond2)
    parts = wald_parts(D, yf, beta, P, A, delta, dims, boot, small_sample, k_df, factor)
    if variance == "crv3":
        parts = crv3_wald_parts(D, yf, beta, (P, R), delta, boot, parts, owner)
    V = parts.covariance
    _check_finite(V, yf, owner)
    enumerate_all = (
        weights == "rademacher" and parts.n_boot < 32 and 2**parts.n_boot <= B
    )
    if enumerate_all:
        B = 2**parts.n_boot
    base = {
        "estimate": est,
        "covariance": V,
        "coef": beta,
        "restriction": R,
        "null": r,
        "bootstrap": "WCR" if impose_null else "WCU",
        "weights": weights,
        "n_resamples": B,
        "enumerated": bool(enumerate_all),
        "n_clusters": min(G for _, G in dims),
        "n_bootstrap_clusters": parts.n_boot,
        "small_sample": small_sample,
        "variance": variance,
        "random_state": None if enumerate_all else key.reproducer(),
    }
    se = np.sqrt(np.maximum(np.diag(V), 0.0))
    if not np.all(se > factor * parts.rounding):
        return _undefined(base, B)
    if not _positive_definite(V, se):
        if len(dims) > 1:
            return _undefined(base, B, indefinite=True)
        raise _rank_error(V, base["n_clusters"], owner)
    diff = est - r
    W = float(diff @ np.linalg.solve(V, diff))
    wstar = parts.statistics(key, B, weights, enumerate_all)
    return WildClusterWaldResult(
        statistic=W, pvalue=_pvalue(W, wstar), null_distribution=wstar, **base
    )


def _pvalue(W: float, wstar: np.ndarray) -> float:
    """``mean(W* > W)``: a ``W*`` within the t test's tie tolerance of ``W``
    (on the scale of ``sqrt(W)``) is not counted, a NaN one is."""
    root = math.sqrt(max(W, 0.0))
    threshold = (root + TIE_RTOL * max(1.0, root)) ** 2
    return float(np.mean(~(wstar <= threshold)))


def _check_finite(V: np.ndarray, yf: np.ndarray, owner: str) -> None:
    """Refuse a covariance that overflows."""
    if not np.isfinite(V).all():
        raise value_error(
            "y",
            owner,
            "must have values whose cluster-robust covariance is a "
            f"finite float64 (it overflows). Got values up to "
            f"{float(np.abs(yf).max()):.3g} instead; rescale y.",
        )


def _positive_definite(V: np.ndarray, se: np.ndarray) -> bool:
    """Whether the covariance is positive definite (its correlation matrix's
    smallest eigenvalue above 1e-10 of its largest)."""
    eig = np.linalg.eigvalsh(V / np.outer(se, se))
    return bool(eig[0] > 1e-10 * eig[-1])


def _rank_error(V: np.ndarray, G: int, owner: str) -> ValueError:
    """Restrictions whose one-way cluster-robust covariance is singular."""
    return value_error(
        "coef",
        owner,
        f"must give restrictions whose cluster-robust covariance has full rank "
        f"(with {G} clusters it has rank at most {G - 1}, so at most {G - 1} "
        f"restrictions can be tested jointly). Got {V.shape[0]} restrictions "
        "whose covariance is singular instead.",
    )


def _undefined(
    base: dict[str, Any], B: int, indefinite: bool = False
) -> WildClusterWaldResult:
    why = (
        "the multiway cluster-robust covariance of the restrictions (the sum of "
        "the one-way covariances minus those of the intersections) is not "
        "positive definite"
        if indefinite
        else "the cluster-robust standard error of a restriction is zero up to "
        "rounding (y is fitted exactly by X)"
    )
    warn(
        f"wild_cluster_wald: {why}, so the Wald statistic is undefined. The "
        "statistic, p-value and null distribution are NaN.",
        UndefinedStatisticWarning,
    )
    return WildClusterWaldResult(
        statistic=math.nan,
        pvalue=math.nan,
        null_distribution=np.full(B, math.nan),
        **base,
    )
