"""When the wild cluster bootstrap test is undefined or too coarse to reach a level.

Three rules of :func:`skboot.wild_cluster_bootstrap`, each stated here once:

* **A zero standard error.**  The CRV1 standard error is linear in the residuals:
  ``se = sqrt(c sum_g (sum_{i in g} w_i u_i)**2)`` with ``w_i = x_i' q``.  The
  residual ``u_i = y_i - x_i' bhat`` is computed from operands of magnitude
  ``s_i = |y_i| + sum_j |x_ij bhat_j|``, so residuals that are pure rounding
  (``|u_i| <= s_i eps``, one ulp of each operand) give at most
  ``se_round = eps sqrt(c sum_g (sum_{i in g} |w_i| s_i)**2)``.  The solve behind
  ``bhat`` can amplify rounding by up to ``kappa**2`` (``kappa`` the condition
  number of the column-equilibrated design; ``bhat`` comes from the inverse of
  the Gram matrix).  The standard error counts as zero, and ``t`` as undefined,
  when ``se <= max(ZERO_SE_ULPS, kappa**2) * se_round``: below 256 ulps' worth
  of rounding in every residual (or ``kappa**2`` of them for an ill-conditioned
  design).  Measured on exactly fitted responses (constant ``y``, ``y`` linear in
  ``X``, offsets up to ``1e4``, ``kappa`` up to ``2e4``), the ratio
  ``se / se_round`` stays below 1 for well-conditioned designs and below
  ``0.05 kappa**2`` otherwise; a response with noise ``1e-11`` times its size
  gives a ratio of about ``10**4`` and stays defined.
* **Too few replicates for an interval** (checked by
  ``WildClusterResult.confidence_interval``).  With ``B`` drawn replicates a
  symmetric or one-sided p-value is a multiple of ``1 / B`` (equal-tailed:
  ``2 / B``); the interval at level ``1 - alpha`` needs the test to reject at a
  positive p-value, so ``B >= ceil(1 / alpha) - 1`` (symmetric, one-sided) or
  ``ceil(2 / alpha) - 1`` (equal-tailed): 19 and 39 at 95%.
* **Too few clusters for Rademacher weights.**  ``t*(-v) = -t*(v)`` and, under
  WCR, ``v = +-1`` reproduce ``+-t`` (ties, not counted), so with the ``2**G``
  sign vectors a symmetric or equal-tailed p-value is a multiple of
  ``2 / 2**G`` and a one-sided one a multiple of ``1 / 2**G``.  When that step
  exceeds ``alpha`` the test at level ``alpha`` rejects only at ``p = 0`` (``t``
  beyond every other ``t*``), which under the null happens about once in
  ``2**(G - 1)`` (one-sided: ``2**G``) data sets whatever ``alpha``: warned with
  :class:`FewClustersWarning`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "ZERO_SE_ULPS",
    "FewClustersWarning",
    "few_clusters_message",
    "min_resamples",
    "rounding_bound_from_norms",
    "rounding_se",
    "rounding_se_bound",
]

#: A standard error below this many ulps' worth of rounding in every residual
#: (see the module docstring) counts as zero.
ZERO_SE_ULPS = 256.0
_EPS = float(np.finfo(np.float64).eps)


class FewClustersWarning(UserWarning):
    """Warn that Rademacher weights give too few distinct replicates for the level.

    With ``G`` clusters the Rademacher wild cluster bootstrap has ``2**G`` sign
    vectors, and its p-values are multiples of ``2 / 2**G`` (symmetric and
    equal-tailed) or ``1 / 2**G`` (one-sided).  When that step exceeds
    ``alpha = 1 - level``, the test at level ``alpha`` rejects only when the
    p-value is 0, which under the null happens about once in ``2**(G - 1)``
    data sets (one-sided: ``2**G``): far more often than ``alpha`` for ``G <= 5``
    at 5%.  Webb's six-point weights (``weights="webb"``) have many more distinct
    replicates and are the usual remedy (Webb 2023).

    See Also
    --------
    skboot.wild_cluster_bootstrap : The test that warns.
    skboot.UndefinedStatisticWarning : Raised instead when ``t`` itself is
        undefined.

    References
    ----------
    .. [1] M. D. Webb, "Reworking wild bootstrap-based inference for clustered
           errors", Canadian Journal of Economics 56(3), 2023.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skboot import wild_cluster_bootstrap
    >>> from skboot.model_based import FewClustersWarning
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(4), 10)
    >>> x, y = rng.normal(size=40), rng.normal(size=40)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = wild_cluster_bootstrap(x, y, g)
    >>> any(issubclass(w.category, FewClustersWarning) for w in caught)
    True
    >>> res.n_resamples, res.pvalue * 8 == round(res.pvalue * 8)
    (16, True)
    """


def rounding_se(
    D: np.ndarray,
    y: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    codes: np.ndarray,
    G: int,
    c: float,
) -> float:
    """``se_round``: the CRV1 standard error of residuals of one ulp of their
    operands, summed with absolute values (module docstring); O(n k)."""
    w = np.abs(D @ q)
    s = np.abs(y) + np.abs(D) @ np.abs(beta)
    per_cluster = np.bincount(codes, weights=w * s, minlength=G)
    top = float(per_cluster.max())
    if not top > 0.0:
        return 0.0
    scaled = per_cluster / top  # no overflow in the squares
    return _EPS * top * math.sqrt(c * float(scaled @ scaled))


def rounding_se_bound(
    D: np.ndarray, y: np.ndarray, beta: np.ndarray, q: np.ndarray, c: float
) -> float:
    """An upper bound of :func:`rounding_se` without the per-row absolute values:
    ``sqrt(sum_g s_g**2) <= sum_i w_i s_i <= ||w|| ||s||`` (Cauchy-Schwarz) and
    ``||s|| <= ||y|| + sum_j |b_j| ||x_j||`` (triangle inequality); two passes over
    the data and no n x k temporary.  A standard error above it is defined."""
    w = float(np.linalg.norm(D @ q))
    col = np.sqrt(np.einsum("ij,ij->j", D, D))
    s = float(np.linalg.norm(y)) + float(np.abs(beta) @ col)
    return _EPS * math.sqrt(c) * w * s


def rounding_bound_from_norms(
    norms: np.ndarray,
    D: np.ndarray,
    y: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    c: float,
) -> float:
    """:func:`rounding_se_bound` from the squared norms ``||X q||**2``,
    ``||y||**2`` and ``||X[:, j]||**2`` that ``cluster_scores`` accumulates in
    its pass over the rows (no second pass); the two passes of
    :func:`rounding_se_bound` (scaled norms) when a square overflowed."""
    with np.errstate(over="ignore", invalid="ignore"):
        root = np.sqrt(norms)
        bound = (
            _EPS * math.sqrt(c) * root[0] * (root[1] + float(np.abs(beta) @ root[2:]))
        )
    if math.isfinite(bound):
        return bound
    return rounding_se_bound(D, y, beta, q, c)


def min_resamples(alpha: float, alternative: str) -> int:
    """Fewest drawn replicates whose p-values reach ``alpha`` with a positive
    value: ``ceil(1 / alpha) - 1``, or ``ceil(2 / alpha) - 1`` equal-tailed."""
    step = 2.0 if alternative == "equal-tailed" else 1.0
    return max(1, math.ceil(round(step / alpha, 9)) - 1)


def few_clusters_message(G: int, alpha: float, alternative: str) -> str | None:
    """The :class:`FewClustersWarning` text when the ``2**G`` Rademacher sign
    vectors cannot give a positive p-value at or below ``alpha``, else None."""
    one_sided = alternative in ("greater", "less")
    exponent = G if one_sided else G - 1
    # 2**exponent overflows a float from 1024 on: compare logarithms there
    if exponent < 1000:
        if 2**exponent * alpha >= 1.0:
            return None
    elif exponent + math.log2(alpha) >= 0.0:
        return None
    outcomes = 2**exponent
    kind = "one-sided" if one_sided else alternative
    return (
        f"wild_cluster_bootstrap: with {G} clusters, Rademacher weights have only "
        f"2**{G} = {2**G} sign vectors, so the {kind} p-value is 0 or at least "
        f"1/{outcomes} = {1 / outcomes:.4g}. A test at level {alpha:.4g} "
        "(1 - level) then rejects only when p = 0, which under the null happens "
        f"in about 1 of {outcomes} data sets, and the interval is the set of "
        "null values with p > 0. Use weights='webb' (Webb's six-point weights) "
        "with fewer than about 12 clusters."
    )
