"""The algebra of the wild restricted efficient (WRE) bootstrap of an IV
regression with one endogenous regressor (Davidson & MacKinnon 2010; Roodman,
MacKinnon, Nielsen & Webb 2019, section on the WRE bootstrap).

Notation: structural equation ``y = beta x + W gamma + u`` (``W``: the
exogenous regressors, intercept included, ``k_w`` columns), instruments
``Z = [Z_1, W]`` (``Z_1``: the ``l_z`` excluded instruments; ``l = l_z + k_w``
columns), ``S = Z'Z``, ``P`` the projection on ``Z``, ``M_W`` and ``M_Z`` the
residual makers of ``W`` and ``Z``; ``G`` clusters.  The hypothesis is
``beta = r``.

The WRE bootstrap data-generating process:

1. restricted structural residuals ``u~ = M_W (y - r x) = ya - r xa`` with
   ``ya = M_W y``, ``xa = M_W x``;
2. the reduced form ``x = Z pi + alpha u~ + e`` fitted by OLS (the efficient
   estimate of ``pi`` under the null), with reduced-form residuals ``v~ = x -
   Z pi~`` (``alpha u~`` kept in them);
3. replicate ``b``: ``x* = Z pi~ + v~ * v_g``, ``y* = r x* + W gamma~ + u~ *
   v_g`` with one multiplier ``v_g`` per cluster, shared by both equations;
   ``t* = (beta* - r) / se*``, 2SLS with the CRV1 standard error.

Everything the replicate needs is a cluster-level sum (computed once,
O(n l**2)):

* with ``ry = M_Z y``, ``rx = M_Z x`` (``M_Z M_W = M_Z``), ``alpha = (ry'rx -
  r rx'rx) / ||ry - r rx||**2`` and ``pi~ = pihat - alpha (rho_y - r rho_x)``
  (``pihat``, ``rho_y``, ``rho_x``: the OLS coefficients of ``x``, ``ya``,
  ``xa`` on ``Z``), so ``v~ = rx + alpha Z (rho_y - r rho_x)``;
* per cluster ``su_g = Z_g' u~_g = Z_g' ya_g - r Z_g' xa_g``, ``sv_g = Z_g'
  v~_g = Z_g' rx_g + alpha (K_g rho_y - r K_g rho_x)`` and ``K_g = Z_g'Z_g``:
  each null value ``r`` costs O(G l) from five stored ``(G, l)`` arrays;
* replicate: ``us = sum v_g su_g``, ``vs = sum v_g sv_g``; ``Z'x* = S pi~ +
  vs =: a``, the first column of ``S^-1 Z'X*`` is ``p = pi~ + S^-1 vs`` (the
  others select ``W``); by the partitioned inverse of ``X*'PX*``, with ``h =
  S_WW^-1 a_W`` and ``D = p'a - a_W' h``, ``d1 = beta* - r = (p'us - h'us_W)
  / D``, ``d_W = S_WW^-1 us_W - h d1`` (``gamma* - gamma~``) and the row of
  ``(X*'PX*)^-1 Pi*'`` for ``beta`` is ``m = (p - [0; h]) / D``;
* the cluster score ``m' Z_g' u*_g`` with ``u* = y* - X* beta*``: ``Z_g'
  u*_g = v_g (su_g - d1 sv_g) - K_g e`` with ``e = pi~ d1 + [0; d_W]``, so
  ``Q = sum_g (v_g (m'su_g - d1 m'sv_g) - m'K_g e)**2`` and ``t* = d1 /
  sqrt(c Q)`` (``c`` the CRV1 factor).

The sums are taken in orthonormal coordinates (``Z`` replaced by an
orthonormal basis of its span whose first ``k_w`` vectors span ``W``, so ``S =
I``): ``t`` and ``t*`` depend on ``Z`` and ``W`` only through their spans, and
no sum squares the condition number of the data.  A replicate costs O(G
l**2) (kernel ``skboot._kernels.cluster_iv``), never O(n).  ``v = 1`` gives back the data (``x* = x``, ``y* = y``), so replicate 0
of an enumeration reproduces the observed ``t``.  Unlike the OLS bootstrap,
``t*`` is not an explicit function of ``r`` (``alpha`` and ``pi~`` depend on
it), so each null value of an interval search re-runs the replicates with the
same multipliers: O(G l + B G l**2) per null value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skboot._kernels.cluster_iv import wre_chunk
from skboot._kernels.cluster_wald import cluster_grams
from skboot._kernels.model_based import WEBB, WEIGHT_CODES, cluster_sums
from skboot._random import PURPOSE, check_random_state
from skboot._validation import value_error
from skboot.model_based._cluster_result import WildClusterResult

__all__ = [
    "WildClusterIVResult",
    "two_sls",
    "wre_arrays",
    "wre_setup",
    "wre_tstar",
]

_CHUNK = 4096
#: Residuals within this many ulps of their operands are rounding: ``y`` is
#: fitted exactly and the standard error is zero.
ZERO_RESIDUAL_ULPS = 256.0


def _qr(M: np.ndarray, name: str, what: str, owner: str) -> tuple[np.ndarray, ...]:
    """Thin QR factor of ``M`` with equilibrated columns, ``(Q, R, d)`` with
    ``M = Q R diag(d)``; refuses (naming ``name``) a matrix of deficient
    column rank."""
    n, k = M.shape
    d = np.sqrt(np.einsum("ij,ij->j", M, M))
    if k and not np.all(d > 0):
        raise value_error(
            name,
            owner,
            f"must have no all-zero column ({what}). Got column(s) "
            f"{np.flatnonzero(~(d > 0)).tolist()} all zero instead.",
        )
    Q, R = np.linalg.qr(M / d, mode="reduced")
    diag = np.abs(np.diag(R))
    if k and diag.min() <= max(n, k) * np.finfo(float).eps * diag.max():
        raise value_error(
            name,
            owner,
            f"must give {what} of full column rank ({k} columns). Got "
            f"numerical rank below {k} instead: some columns are collinear; drop "
            "them.",
        )
    return Q, R, d


def _residual(Q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` minus its projection on the columns of the orthonormal ``Q``."""
    return v - Q @ (Q.T @ v) if Q.shape[1] else v.copy()


def two_sls(
    W: np.ndarray,
    y: np.ndarray,
    x: np.ndarray,
    Zf: np.ndarray,
    codes: np.ndarray,
    G: int,
    owner: str,
) -> tuple[np.ndarray, float, float, tuple[np.ndarray, ...]]:
    """The 2SLS coefficients ``(beta, gamma)``, the CRV1 sum ``sum_g (m'
    Xhat_g' uhat_g)**2`` of ``beta`` (before the small-sample factor), the
    sum of squares that rounding alone could give it and the orthonormal
    basis ``Q`` of the instruments (``W``'s columns first, so ``Q[:, :k_w]``
    spans ``W``); refuses instruments that explain nothing of ``x`` beyond
    ``W``."""
    lz = Zf.shape[1] - W.shape[1]
    zqr = _qr(
        np.column_stack([Zf[:, lz:], Zf[:, :lz]]),
        "instruments",
        "instruments (with the exogenous regressors)",
        owner,
    )
    Q = zqr[0]
    X = np.column_stack([x, W])
    Xhat = Q @ (Q.T @ X)
    Qh, Rh, dh = _qr(
        Xhat,
        "instruments",
        "fitted regressors (they explain the endogenous regressor beyond X)",
        owner,
    )
    beta = np.linalg.solve(Rh, Qh.T @ y) / dh
    u = y - X @ beta
    k = X.shape[1]
    Rinv = np.linalg.solve(Rh, np.eye(k))
    q = (Rinv @ Rinv[0]) / (dh * dh[0])  # (Xhat'Xhat)^-1 e_1
    scores = np.empty((G, k))
    cluster_sums(Xhat, u, codes, scores)
    s = scores @ q
    # residuals of one ulp of their operands: the rounding level of the sum
    ulp = np.finfo(float).eps * (np.abs(y) + np.abs(X) @ np.abs(beta))
    sr = np.empty((G, k))
    cluster_sums(np.abs(Xhat), ulp, codes, sr)
    rounding = float(np.sum((sr @ np.abs(q)) ** 2))
    return beta, float(s @ s), rounding, zqr


def wre_setup(
    W: np.ndarray,
    y: np.ndarray,
    x: np.ndarray,
    codes: np.ndarray,
    G: int,
    Q: np.ndarray,
) -> dict[str, np.ndarray]:
    """The sums of the module docstring that do not depend on the null value,
    O(n l**2) once, in orthonormal coordinates: the t statistic of ``beta``
    depends on the instruments and on ``W`` only through their column spans,
    so ``Z`` is replaced by ``[Q_Z, Q_W]`` (``Q`` from :func:`two_sls`, ``Q_W``
    spanning ``W``, ``Q_Z`` its orthogonal complement in the span of ``Z``) and
    ``W`` by ``Q_W``: ``S = I``, and no sum squares the condition number of
    the data.  ``parts`` (5, G, l) = ``Z_g'ya_g, Z_g'xa_g, Z_g'rx_g, K_g
    rho_y, K_g rho_x``; ``grams`` (G, l, l) = ``K_g``; ``first`` (3, l) =
    ``pihat, rho_y, rho_x``; ``products`` = ``ry'ry, ry'rx, rx'rx``; ``gram``
    (2, l, l) = ``S, S^-1``."""
    kw = W.shape[1]
    nz = Q.shape[1]
    Zq = np.ascontiguousarray(np.column_stack([Q[:, kw:], Q[:, :kw]]))
    QW = Q[:, :kw]
    ya, xa = _residual(QW, y), _residual(QW, x)
    coefs = Zq.T @ np.column_stack([x, ya, xa])  # pihat, rho_y, rho_x (S = I)
    ry, rx = _residual(Q, y), _residual(Q, x)
    parts = np.empty((5, G, nz))
    for j, vec in enumerate((ya, xa, rx, Zq @ coefs[:, 1], Zq @ coefs[:, 2])):
        cluster_sums(Zq, vec, codes, parts[j])
    grams = np.empty((G, nz, nz))
    cluster_grams(Zq, codes, grams)
    return {
        "parts": parts,
        "grams": grams,
        "first": np.ascontiguousarray(coefs.T),
        "products": np.array([ry @ ry, ry @ rx, rx @ rx]),
        "gram": np.stack([np.eye(nz), np.eye(nz)]),
    }


def wre_arrays(
    stored: dict[str, np.ndarray], r: float, lz: int
) -> tuple[tuple[np.ndarray, ...], tuple[Any, ...]]:
    """The kernel's ``(su, sv, K)`` and ``(pi~, S pi~, S^-1, S_WW^-1, l_z)``
    at the null value ``r``: O(G l + l**3)."""
    zya, zxa, zrx, zpy, zpx = stored["parts"]
    pihat, rho_y, rho_x = stored["first"]
    ryry, ryrx, rxrx = (float(v) for v in stored["products"])
    S, Sinv = stored["gram"]
    den = ryry - 2.0 * r * ryrx + r * r * rxrx  # ||M_Z (y - r x)||**2
    # u~ in the span of the instruments: the reduced form does not use it
    alpha = (ryrx - r * rxrx) / den if den > 1e-12 * (ryry + r * r * rxrx) else 0.0
    pit = pihat - alpha * (rho_y - r * rho_x)
    su = np.ascontiguousarray(zya - r * zxa)
    sv = np.ascontiguousarray(zrx + alpha * (zpy - r * zpx))
    SWWinv = np.linalg.inv(S[lz:, lz:]) if S.shape[0] > lz else np.empty((0, 0))
    fixed = (
        np.ascontiguousarray(pit),
        S @ pit,
        np.ascontiguousarray(Sinv),
        np.ascontiguousarray(SWWinv),
        np.int64(lz),
    )
    return (su, sv, stored["grams"]), fixed


def wre_sums(
    key: Any,
    B: int,
    weights: str,
    enumerate_all: bool,
    arrays: tuple[tuple[np.ndarray, ...], tuple[Any, ...]],
) -> np.ndarray:
    """``(d1, Q)`` of every replicate, in chunks: O(G l**2) each."""
    seed, gamma = (
        key.stream(PURPOSE["wild"]) if key is not None else (np.uint64(0),) * 2
    )
    out = np.empty((B, 2))
    clusters, fixed = arrays
    for b0 in range(0, B, _CHUNK):
        wre_chunk(
            seed,
            gamma,
            np.int64(b0),
            np.int64(WEIGHT_CODES[weights]),
            WEBB,
            np.bool_(enumerate_all),
            clusters,
            fixed,
            out[b0 : b0 + _CHUNK],
        )
    return out


def wre_tstar(sums: np.ndarray, c: float) -> np.ndarray:
    """``t* = d1 / sqrt(c Q)``; a replicate whose instruments explain none of
    its endogenous regressor, or whose score sum is zero, gets ``+inf``
    (counted as more extreme than any finite ``t`` in the two-sided test)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = sums[:, 0] / np.sqrt(c * sums[:, 1])
    return np.where(np.isnan(tstar), np.inf, tstar)


@dataclass(frozen=True, eq=False, repr=False)
class WildClusterIVResult(WildClusterResult):
    """Outcome of :func:`wild_cluster_bootstrap_iv`; immutable.

    The fields of :class:`WildClusterResult`, with ``bootstrap = "WRE"``,
    ``estimate`` the 2SLS coefficient of the endogenous regressor and ``coef``
    all 2SLS coefficients (the endogenous regressor's first, then those of
    ``X``, intercept last).  It keeps the cluster-level sums of the run, so
    :meth:`pvalue_at` tests another null value, and :meth:`confidence_interval`
    inverts the test, with the same multipliers: each null value tried re-runs
    the replicates (O(n_resamples G l**2), never O(n)).  An endpoint not found
    within ``2**20`` standard errors of the estimate is infinite: with weak
    instruments the WRE acceptance region can be unbounded.

    Attributes
    ----------
    estimate : float
        The 2SLS coefficient of the endogenous regressor.
    standard_error : float
        Its CRV1 cluster-robust standard error.
    statistic : float
        ``t = (estimate - null) / standard_error``.
    pvalue : float
        Bootstrap p-value of the test (see ``alternative``); NaN when ``t`` is
        undefined (zero standard error).
    null_distribution : ndarray of shape (n_resamples,)
        The WRE bootstrap t statistics at the null, in replicate order.
    coef : ndarray of shape (k,)
        All 2SLS coefficients: the endogenous regressor's, those of ``X``, the
        intercept (last, when fitted).
    null : float
        The null value of the endogenous regressor's coefficient.
    bootstrap : str
        ``"WRE"``.
    weights : str
        Law of the cluster multipliers.
    alternative : str
        The alternative of the test (and the sides of the interval).
    level : float
        Confidence level of the interval :meth:`confidence_interval` returns
        when called without a level.
    n_resamples : int
        Replicates used: ``2**G`` when the sign vectors were enumerated.
    enumerated : bool
        Whether the ``2**G`` Rademacher sign vectors were enumerated.
    n_clusters : int
        Number of clusters ``G``.
    n_bootstrap_clusters : int
        Number of bootstrap clusters (``n_clusters``: one multiplier each).
    small_sample : str
        The small-sample factor of the cluster-robust variance.
    variance : str
        ``"crv1"``.
    residuals : str
        ``"ordinary"``: the residuals of the restricted structural fit and of
        the efficient reduced form.
    random_state : int, SeedSequence or None
        Reproduces the draws (None when enumerated: nothing is random).
    stream_version : int
        Version of the random streams that drew the multipliers.
    n_instruments : int
        Number of excluded instruments.

    See Also
    --------
    wild_cluster_bootstrap_iv : The function that returns it.
    WildClusterResult : The result of the OLS wild cluster bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import wild_cluster_bootstrap_iv
    >>> rng = np.random.default_rng(1)
    >>> g = np.repeat(np.arange(20), 10)
    >>> z = rng.normal(size=(200, 2))
    >>> e = rng.normal(size=200) + rng.normal(size=20)[g]
    >>> x = z @ [0.6, 0.4] + e + rng.normal(size=200)
    >>> y = 0.5 * x + e
    >>> res = wild_cluster_bootstrap_iv(None, y, x, z, g, n_resamples=199,
    ...                                 random_state=0)
    >>> res.bootstrap, res.n_instruments
    ('WRE', 2)
    >>> bool(res.pvalue_at(res.estimate) > 0.05)
    True
    """

    n_instruments: int = 0
    _parts: np.ndarray = field(default_factory=lambda: np.empty((5, 0, 0)))
    _grams: np.ndarray = field(default_factory=lambda: np.empty((0, 0, 0)))
    _first: np.ndarray = field(default_factory=lambda: np.empty((3, 0)))
    _products: np.ndarray = field(default_factory=lambda: np.empty(3))
    _gram: np.ndarray = field(default_factory=lambda: np.empty((2, 0, 0)))

    # an interval search re-runs the bootstrap at each null value: stop the
    # outward search at 2**20 standard errors and call the side unbounded
    _max_doublings = 20
    _unbounded = math.inf

    def _frame_rows(self) -> list[dict[str, Any]]:
        """The row of :class:`WildClusterResult`, and ``n_instruments``."""
        rows = super()._frame_rows()
        rows[0]["n_instruments"] = self.n_instruments
        return rows

    def _t_at(self, r: float) -> tuple[float, np.ndarray]:
        """Original and bootstrap t statistics for the null value ``r``: the
        replicates re-run with the run's multipliers."""
        stored = {
            "parts": self._parts,
            "grams": self._grams,
            "first": self._first,
            "products": self._products,
            "gram": self._gram,
        }
        key = None if self.enumerated else check_random_state(self.random_state)
        arrays = wre_arrays(stored, r, self.n_instruments)
        sums = wre_sums(key, self.n_resamples, self.weights, self.enumerated, arrays)
        t = (self.estimate - r) / self.standard_error
        return t, wre_tstar(sums, self._c)
