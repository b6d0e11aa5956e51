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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from skboot._kernels.cluster_wald import cluster_grams
from skboot._kernels.model_based import WEBB, WEIGHT_CODES, cluster_scores, wcb_chunk
from skboot._random import PURPOSE
from skboot._validation import value_error

__all__ = ["crv3_error", "crv3_one_way"]

_CHUNK = 4096


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
    q: np.ndarray,
    A: np.ndarray,
    a: np.ndarray,
    codes: np.ndarray,
    G: int,
    owner: str,
) -> tuple[float, Callable[..., np.ndarray], float, np.ndarray]:
    """The CRV3 standard error of ``a' bhat``, the function of ``(key, B,
    weights, enumerate_all)`` giving the five sums of every replicate, and the
    CRV1 standard error without factor and the squared norms of
    ``cluster_scores`` (for the zero-standard-error rule): O(n k**2 + G k**3)
    once."""
    k = D.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        su = np.empty((G, k))
        F = np.empty((G, k))
        norms = np.empty(k + 2)
        cluster_scores(D, yf, beta, q, codes, su, F, norms)
        grams = np.empty((G, k, k))
        cluster_grams(D, codes, grams)
        rest = (D.T @ D)[None, :, :] - grams
        h = np.einsum("gij,j->gi", np.linalg.pinv(rest, hermitian=True), a)
        _check_identified(rest, h, a, owner)
        wu, wf = su @ q, F @ q
        wuv = np.einsum("gk,gk->g", h, su)
        wfv = np.einsum("gk,gk->g", h, F)
        se = math.sqrt((G - 1) / G * float(wuv @ wuv))
        se1 = math.sqrt(float(wu @ wu))
    su, F, hq, wu, wf, wuv, wfv = (
        np.ascontiguousarray(x) for x in (su, F, h - q, wu, wf, wuv, wfv)
    )

    def replicate(key: Any, B: int, weights: str, enumerate_all: bool) -> np.ndarray:
        seed, gamma = key.stream(PURPOSE["wild"])
        sums = np.empty((B, 5))
        for b0 in range(0, B, _CHUNK):
            wcb_chunk(
                seed,
                gamma,
                np.int64(b0),
                np.int64(WEIGHT_CODES[weights]),
                WEBB,
                np.bool_(enumerate_all),
                su,
                F,
                hq,
                wu,
                wf,
                wuv,
                wfv,
                sums[b0 : b0 + _CHUNK],
            )
        return sums

    return se, replicate, se1, norms


def _check_identified(
    rest: np.ndarray, h: np.ndarray, a: np.ndarray, owner: str
) -> None:
    """Refuse a jackknife in which ``a' beta`` is not identified without some
    cluster (``(X'X - X_g'X_g) h_g != a``)."""
    back = np.einsum("gij,gj->gi", rest, h)
    scale = np.abs(rest).max(axis=(1, 2)) * np.abs(h).max(axis=1) + np.abs(a).max()
    bad = np.flatnonzero(np.abs(back - a).max(axis=1) > 1e-8 * scale)
    if bad.size:
        raise value_error(
            "variance",
            owner,
            'must be "crv1" when the tested coefficient is not identified without '
            "one of the clusters (the cluster jackknife needs every leave-one-"
            'cluster-out fit). Got "crv3" with cluster(s) at position(s) '
            f"{bad[:5].tolist()} (in sorted label order) that it cannot leave out "
            "instead.",
        )
