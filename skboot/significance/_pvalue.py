"""Bootstrap p-values from a bootstrap result, by inverting its intervals (the
computation is :func:`skboot.intervals.pvalue_by_method`; this is the function
form of :meth:`skboot.BootstrapResult.pvalue`)."""

from __future__ import annotations

from skboot._typing import ArrayLike, PValues, StandardErrorFunc
from skboot.statistic import BootstrapResult, result_pvalue

__all__ = ["bootstrap_pvalue"]


def bootstrap_pvalue(
    result: BootstrapResult,
    null: ArrayLike,
    *,
    alternative: str = "two-sided",
    method: str | None = None,
    standard_error: StandardErrorFunc = None,
    n_inner: int | None = None,
    jackknife_groups: int | str = "auto",
) -> PValues:
    """P-value of ``H0: theta = null`` from a bootstrap result.

    It inverts the confidence interval of ``method``: the p-value is the smallest ``alpha`` whose ``1 - alpha`` interval (method
    ``method``, same ``alternative``) excludes ``null``, so that ``p < alpha``
    exactly when ``result.confidence_interval(1 - alpha, method, alternative)``
    excludes ``null``.  The closed forms per method are in
    :mod:`skboot.intervals._pvalue`.  The inputs that BCa and studentized
    need (jackknife, standard errors) are computed as
    :meth:`skboot.BootstrapResult.confidence_interval` computes them; this is
    :meth:`skboot.BootstrapResult.pvalue` as a function.

    Parameters
    ----------
    result : BootstrapResult
        A bootstrap run (:func:`skboot.bootstrap`).
    null : float, array-like of shape (k,) or pandas Series
        The value of the parameter under the null hypothesis (one per column of
        a vector statistic, or one for all).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        "greater": ``H1: theta > null`` (the interval ``(low, inf)``); "less":
        ``H1: theta < null``.
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized"}, optional
        The interval method that is inverted; None: the result's default
        interval (see :meth:`BootstrapResult.confidence_interval`).
    standard_error : callable, optional
        For "studentized": the standard-error function, as in
        :meth:`~skboot.BootstrapResult.confidence_interval`.
    n_inner : int, optional
        For "studentized" without a standard-error function: the size of the
        nested bootstrap, as in
        :meth:`~skboot.BootstrapResult.confidence_interval`.
    jackknife_groups : "auto", "full" or int, default="auto"
        For "bca", the jackknife that gives the acceleration, as in
        :meth:`~skboot.BootstrapResult.confidence_interval`.

    Returns
    -------
    float, ndarray or pandas Series
        One p-value per column of the statistic (NaN where the interval is
        undefined, e.g. BCa when the estimate lies outside the replicates).

    See Also
    --------
    skboot.BootstrapResult.pvalue : The same p-value as a method.
    skboot.intervals.pvalue_by_method : The closed forms from a distribution.
    permutation_test : A test that resamples under the null instead.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
       Bootstrap*, ch. 15-16. Chapman & Hall/CRC.
    .. [2] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and
       their Application*, sections 4.4 and 5.3. Cambridge University Press.
    .. [3] Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap
       hypothesis testing. *Biometrics* 47(2), 757-762.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> from skboot.significance import bootstrap_pvalue
    >>> x = np.random.default_rng(0).normal(0.3, 1.0, size=50)
    >>> res = bootstrap(x, "mean", n_resamples=1999, random_state=0)
    >>> p = bootstrap_pvalue(res, 0.2, method="percentile")
    >>> round(p, 4)
    0.0678
    >>> ci = res.confidence_interval(1 - 0.1, method="percentile")
    >>> bool(p < 0.1) == bool(not ci.low <= 0.2 <= ci.high)
    True
    """
    return result_pvalue(
        result,
        null,
        alternative=alternative,
        method=method,
        standard_error=standard_error,
        n_inner=n_inner,
        jackknife_groups=jackknife_groups,
        owner="bootstrap_pvalue",
    )
