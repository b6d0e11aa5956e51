"""Jackknifed bootstrap residuals in the one-way wild cluster bootstrap
(``residuals="jackknife"``).

MacKinnon, Nielsen & Webb (2023) replace the residuals that the wild cluster
bootstrap multiplies by those of the leave-one-cluster-out fits: cluster
``g``'s bootstrap residuals are ``v_g uddot_g`` with ``uddot_g = y_g - X_g
b_(g)``, where ``b_(g)`` is the estimate without cluster ``g`` (restricted to
``a' b = r`` for the restricted bootstrap WCR, unrestricted for WCU).  With
the CRV1 statistic this is the bootstrap that fwildclusterboot and
wildboottest call ``bootstrap_type="31"``, with the CRV3 statistic ``"33"``.

Notation of ``skboot.model_based._cluster`` and ``_cluster_crv3``: ``M_g =
X_g' X_g``, ``H_g = (X'X - M_g)^-1`` (the pseudo-inverse when singular),
``h_g = H_g a``, ``su_g = X_g' uhat_g``.  The unrestricted leave-one-out
estimate is ``bhat - H_g su_g``, so the jackknifed score is

    ``sdd_g = X_g' uddot_g = su_g + M_g H_g su_g``,

and the restricted one (``b_(g)`` moved along ``h_g`` onto ``a' b = r``, with
``r = a' bhat - delta a' q``) adds ``M_g h_g (delta a'q - h_g' su_g) / (a'
h_g)``: ``sdd_g = s0_g + delta s1_g`` is affine in ``delta`` as the ordinary
restricted score ``su_g + delta f_g`` is.  The bootstrap sample ``y*_g = X_g
btilde + v_g uddot_g`` has ``X_g' u*_g = v_g sdd_g - M_g A sum_h v_h sdd_h``,
the one-way algebra with ``s0, s1`` in place of ``su, f``: the same five sums
per replicate, O(G k) each, after O(n k**2 + G k**3) once; p-values at other
null values and the interval by inversion reuse the sums.

The observed statistic (and its standard error) does not change: only the
bootstrap data-generating process does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from skboot._kernels.cluster_wald import cluster_grams
from skboot._kernels.model_based import WEBB, WEIGHT_CODES, wcb_chunk
from skboot._random import PURPOSE
from skboot._validation import value_error

__all__ = [
    "RESIDUALS",
    "check_identified",
    "jackknife_scores",
    "leave_one_out",
    "residuals_error",
    "sums_function",
]

_CHUNK = 4096

#: The residuals the wild cluster bootstrap multiplies (``residuals``): those
#: of the fit on all clusters, or the jackknifed leave-one-cluster-out ones.
RESIDUALS = ("ordinary", "jackknife")


def residuals_error(owner: str) -> ValueError:
    """The error for jackknifed residuals with multiway clustering or other
    bootstrap clusters."""
    return value_error(
        "residuals",
        owner,
        'must be "ordinary" with multiway clustering or bootstrap_groups other '
        'than the clusters ("jackknife" leaves out one cluster at a time, '
        'one-way). Got "jackknife" instead.',
    )


def leave_one_out(
    D: np.ndarray, codes: np.ndarray, G: int, a: np.ndarray, owner: str, name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``M_g``, ``H_g`` and ``h_g = H_g a`` for every cluster (``a`` of shape
    (k,), or (k, q) for ``q`` combinations): O(n k**2 + G k**3); refuses
    (naming ``name``) a cluster without which ``a' beta`` is not
    identified."""
    k = D.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        grams = np.empty((G, k, k))
        cluster_grams(D, codes, grams)
        rest = (D.T @ D)[None, :, :] - grams
        H = np.linalg.pinv(rest, hermitian=True)
        h = np.einsum("gij,j->gi" if a.ndim == 1 else "gij,jq->giq", H, a)
    check_identified(rest, h, a, owner, name)
    return grams, H, h


def jackknife_scores(
    su: np.ndarray,
    grams: np.ndarray,
    H: np.ndarray,
    h: np.ndarray,
    a: np.ndarray,
    aq: float,
    restricted: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The jackknifed scores ``sdd_g = s0_g + delta s1_g`` (module docstring):
    restricted (WCR) or unrestricted (WCU, ``s1 = 0``)."""
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: refused later
        s0 = su + np.einsum("gij,gj->gi", grams, np.einsum("gij,gj->gi", H, su))
        if not restricted:
            return s0, np.zeros_like(s0)
        mh = np.einsum("gij,gj->gi", grams, h)
        ah = h @ a
        s0 = s0 - mh * (np.einsum("gk,gk->g", h, su) / ah)[:, None]
        s1 = mh * (aq / ah)[:, None]
    return s0, s1


def check_identified(
    rest: np.ndarray, h: np.ndarray, a: np.ndarray, owner: str, name: str
) -> None:
    """Refuse a jackknife in which ``a' beta`` is not identified without some
    cluster (``(X'X - X_g'X_g) h_g != a``)."""
    G = rest.shape[0]
    back = np.einsum("gij,gj...->gi...", rest, h)
    hmax = np.abs(h).reshape(G, -1).max(axis=1)
    scale = np.abs(rest).max(axis=(1, 2)) * hmax + np.abs(a).max()
    bad = np.flatnonzero(np.abs(back - a).reshape(G, -1).max(axis=1) > 1e-8 * scale)
    if bad.size:
        other = '"crv1"' if name == "variance" else '"ordinary"'
        given = '"crv3"' if name == "variance" else '"jackknife"'
        raise value_error(
            name,
            owner,
            f"must be {other} when the tested coefficient is not identified "
            "without one of the clusters (the cluster jackknife needs every "
            f"leave-one-cluster-out fit). Got {given} with cluster(s) at "
            f"position(s) {bad[:5].tolist()} (in sorted label order) that it "
            "cannot leave out instead.",
        )


def sums_function(*arrays: np.ndarray) -> Callable[..., np.ndarray]:
    """The function of ``(key, B, weights, enumerate_all)`` giving the five
    sums of every replicate from the per-cluster arrays ``(Su, Sf, F, wu, wf,
    wuv, wfv)`` of ``wcb_chunk``, in chunks: O(G k) per replicate."""
    Su, Sf, F, wu, wf, wuv, wfv = (np.ascontiguousarray(x) for x in arrays)

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
                Su,
                Sf,
                F,
                wu,
                wf,
                wuv,
                wfv,
                sums[b0 : b0 + _CHUNK],
            )
        return sums

    return replicate
