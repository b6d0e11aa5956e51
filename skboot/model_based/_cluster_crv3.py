"""The jackknife cluster-robust variance CRV3 in the wild cluster bootstrap
(``variance="crv3"``).

MacKinnon, Nielsen & Webb (2023) define ``CV3 = (G - 1) / G sum_g (bhat_(g) -
bhat)(bhat_(g) - bhat)'`` with ``bhat_(g)`` the estimate without cluster ``g``;
the t statistic ``(a' bhat - r) / sqrt(a' CV3 a)`` is far less oversized than
the CRV1 one with few or unbalanced clusters, and bootstrapping it (their
WCR/WCU with the CV3 statistic and the ordinary bootstrap data-generating
process; wildboottest's ``bootstrap_type="13"``) keeps the test's size close to
the nominal level.

Notation of ``skboot.model_based._cluster``.  With ``H_g = (X'X - X_g'X_g)^-1``
and ``h_g = H_g a`` (G solves of size k, once), a replicate ``y* = X btilde +
v_g utilde_g`` has ``a' bhat*_(g) - a' bhat* = (h_g - q)' d - v_g h_g' s_g``
with ``d = sum_h v_h s_h`` and ``s_g = su_g + delta f_g``.  This is the one-way
algebra of ``skboot.model_based._cluster`` with other per-cluster arrays:
``d0 = sum v su``, ``d1 = sum v f``, ``z0_g = v_g h_g' su_g - (h_g - q)' d0``
(``z1`` with ``f``), so ``t*`` keeps the form ``(N0 + delta N1) / sqrt(c (Q0 +
2 delta Q1 + delta**2 Q2))`` with ``c = (G - 1) / G``: O(G k) per replicate,
and p-values at other null values and the interval by inversion cost
O(n_resamples) each, as with CRV1.  The observed statistic is the case ``v =
1``, ``delta = 0``: ``a' bhat_(g) - a' bhat = -h_g' su_g``.

A leave-one-out design that is singular (a regressor that only one cluster
varies) is inverted by the pseudo-inverse, as wildboottest does; when the
tested combination ``a`` is then not identified without that cluster, the
jackknife is undefined and refused.

With ``residuals="jackknife"`` the bootstrap multiplies the jackknifed
residuals instead (module ``skboot.model_based._cluster_jackknife``): the
scores ``su``, ``f`` above become ``s0``, ``s1`` of that module and the
algebra is unchanged (wildboottest's ``bootstrap_type="33"``; with the CRV1
statistic, :func:`crv1_jackknife`, ``"31"``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from skboot._kernels.model_based import cluster_scores
from skboot._validation import value_error
from skboot.model_based._cluster_jackknife import (
    jackknife_scores,
    leave_one_out,
    sums_function,
)

__all__ = ["crv1_jackknife", "crv3_error", "crv3_one_way"]


def crv3_error(owner: str) -> ValueError:
    """The error for CRV3 with multiway clustering or other bootstrap clusters."""
    return value_error(
        "variance",
        owner,
        'must be "crv1" with multiway clustering or bootstrap_groups other than '
        'the clusters ("crv3", the cluster jackknife, is one-way). Got "crv3" '
        "instead.",
    )


def crv3_one_way(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    qaA: tuple[np.ndarray, np.ndarray, np.ndarray],
    codes: np.ndarray,
    G: int,
    owner: str,
    jackknife: tuple[bool, bool] = (False, True),
) -> tuple[float, Callable[..., np.ndarray], float, np.ndarray]:
    """The CRV3 standard error of ``a' bhat``, the function of ``(key, B,
    weights, enumerate_all)`` giving the five sums of every replicate, and the
    CRV1 standard error without factor and the squared norms of
    ``cluster_scores`` (for the zero-standard-error rule): O(n k**2 + G k**3)
    once.  ``jackknife = (jackknifed residuals, restricted bootstrap)``."""
    q, a, _ = qaA
    k = D.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        su = np.empty((G, k))
        F = np.empty((G, k))
        norms = np.empty(k + 2)
        cluster_scores(D, yf, beta, q, codes, su, F, norms)
    grams, H, h = leave_one_out(D, codes, G, a, owner, "variance")
    with np.errstate(over="ignore", invalid="ignore"):
        wuv = np.einsum("gk,gk->g", h, su)
        se = math.sqrt((G - 1) / G * float(wuv @ wuv))
        se1 = math.sqrt(float((su @ q) @ (su @ q)))
        if jackknife[0]:
            su, F = jackknife_scores(su, grams, H, h, a, float(a @ q), jackknife[1])
            wuv = np.einsum("gk,gk->g", h, su)
        wu, wf = su @ q, F @ q
        wfv = np.einsum("gk,gk->g", h, F)
    return se, sums_function(su, F, h - q, wu, wf, wuv, wfv), se1, norms


def crv1_jackknife(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    qaA: tuple[np.ndarray, np.ndarray, np.ndarray],
    codes: np.ndarray,
    G: int,
    c: float,
    owner: str,
    restricted: bool,
) -> tuple[float, Callable[..., np.ndarray], np.ndarray]:
    """The CRV1 standard error, the function giving the sums of the replicates
    of the bootstrap with jackknifed residuals, and the squared norms of
    ``cluster_scores``: O(n k**2 + G k**3) once, O(G k) per replicate."""
    q, a, A = qaA
    k = D.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        su = np.empty((G, k))
        F = np.empty((G, k))
        norms = np.empty(k + 2)
        cluster_scores(D, yf, beta, q, codes, su, F, norms)
        wu = su @ q
        se = math.sqrt(c * float(wu @ wu))
    grams, H, h = leave_one_out(D, codes, G, a, owner, "residuals")
    with np.errstate(over="ignore", invalid="ignore"):
        s0, s1 = jackknife_scores(su, grams, H, h, a, float(a @ q), restricted)
        w0, w1 = s0 @ q, s1 @ q
    return se, sums_function(s0 @ A, s1 @ A, F, w0, w1, w0, w1), norms
