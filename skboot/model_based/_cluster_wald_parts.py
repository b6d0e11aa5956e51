"""The algebra of the wild cluster bootstrap Wald test of ``q`` restrictions
``R beta = r`` (Roodman, MacKinnon, Nielsen & Webb 2019, section 3.5 and
the multiple-hypothesis case of section 5).

Notation of ``skboot.model_based._cluster``, with ``R`` of shape (q, k):
``P = A R'`` (k, q), ``M = (R A R')^-1``.  The restricted estimate is
``btilde = bhat - P M (R bhat - r)``, whose residuals are ``utilde = uhat + X P
delta`` with ``delta = M (R bhat - r)`` (WCU: ``delta = 0``).  Per cell ``c``
(an intersection of the bootstrap clusters with every clustering;
``skboot.model_based._cluster_multiway``) one pass over the rows gives
``su_c = X_c' uhat_c`` and ``F_c = X_c' X_c P``, so the bootstrap scores are
``s_c = su_c + F_c delta``.  Replicate ``b`` with multipliers ``v`` has

* numerator ``R bhat* - r = P' d`` with ``d = sum_B v_B s_B`` (WCU: ``R bhat*
  - R bhat``);
* per variance cluster ``h``: ``P' X_h' u*_h = sum_{c in h} v_c P' s_c -
  F_h' A d``;
* ``V* = sum_terms factor sum_h z_h z_h'`` and ``W* = N' V*^-1 N``,

O((G + H q) k) per replicate, never O(n).  The observed statistic is ``W =
(R bhat - r)' V^-1 (R bhat - r)`` with ``V`` the CRV1 covariance of ``R
bhat``; with ``q = 1``, ``W = t**2`` and ``W* = t***2``, so the p-value
``mean(W* > W)`` is the symmetric p-value of the t test with the same
multipliers.

CRV3 (one-way, :func:`crv3_wald_parts`): ``V = (G - 1) / G sum_g (R bhat_(g)
- R bhat)(R bhat_(g) - R bhat)'``, the jackknife covariance over the
leave-one-cluster-out estimates (MacKinnon, Nielsen & Webb 2023), with
``R bhat_(g) - R bhat = -K_g' su_g``, ``K_g = (X'X - X_g'X_g)^-1 R'`` (G
solves once).  A replicate has ``R bhat*_(g) - R bhat* = (K_g - P)' d - v_g
K_g' s_g`` with ``d = sum_h v_h s_h`` (as for the t test, module
``skboot.model_based._cluster_crv3``), so the same kernel runs with the
variance clusters equal to the bootstrap clusters, ``cell_w[g] = K_g' s_g``,
``FH[g] = (K_g - P)'``, ``d`` unscaled by ``A`` and one term of factor ``(G -
1) / G``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._kernels.cluster_wald import cluster_scores_multi, wald_chunk
from skboot.model_based._cluster_checks import rounding_se, rounding_se_bound
from skboot.model_based._cluster_inputs import intersection
from skboot.model_based._cluster_jackknife import leave_one_out
from skboot.model_based._cluster_multiway import run_chunks, variance_terms

__all__ = ["WaldParts", "crv3_wald_parts", "wald_parts"]


@dataclass(frozen=True)
class WaldParts:
    """What the replicates need, computed once: the CRV1 covariance of ``R
    bhat``, the rounding level of each restriction's standard error, and the
    kernel's arguments."""

    covariance: np.ndarray
    rounding: np.ndarray
    n_boot: int
    boot: tuple[np.ndarray, ...]
    var: tuple[np.ndarray, ...]
    weight: np.ndarray

    def statistics(
        self, key: Any, B: int, weights: str, enumerate_all: bool
    ) -> np.ndarray:
        """``W*`` of every replicate, in chunks."""
        out = np.empty(B)
        run_chunks(wald_chunk, key, weights, enumerate_all, self, out)
        return out


def wald_parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    P: np.ndarray,
    A: np.ndarray,
    delta: np.ndarray,
    dims: list[tuple[np.ndarray, int]],
    boot: tuple[np.ndarray, int],
    small_sample: str,
    k_df: int,
    factor: float,
) -> WaldParts:
    """The per-cell, per-bootstrap-cluster and per-variance-cluster arrays of
    the module docstring: O(n k q) once."""
    with np.errstate(over="ignore", invalid="ignore"):  # refused by the caller
        parts = _parts(D, yf, beta, P, A, delta, dims, boot, small_sample, k_df)
        rounding = _rounding(D, yf, beta, P, dims, small_sample, k_df, parts, factor)
    return WaldParts(**{**parts.__dict__, "rounding": rounding})


def _parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    P: np.ndarray,
    A: np.ndarray,
    delta: np.ndarray,
    dims: list[tuple[np.ndarray, int]],
    boot: tuple[np.ndarray, int],
    small_sample: str,
    k_df: int,
) -> WaldParts:
    n, k = D.shape
    q = P.shape[1]
    boot_codes, G = boot
    cells, C = intersection([boot_codes] + [c for c, _ in dims])
    rep = np.full(C, n, dtype=np.int64)
    np.minimum.at(rep, cells, np.arange(n, dtype=np.int64))
    su = np.empty((C, k))
    F = np.empty((C, k, q))
    cluster_scores_multi(D, yf, beta, np.ascontiguousarray(P), cells, su, F)
    s = su + F @ delta
    cell_boot = boot_codes[rep]
    SB = np.zeros((G, k))
    np.add.at(SB, cell_boot, s)
    boot_arrays = (
        np.ascontiguousarray(SB @ A),
        np.ascontiguousarray(SB @ P),
        np.ascontiguousarray(cell_boot, dtype=np.int64),
        np.ascontiguousarray(s @ P),
    )
    terms = variance_terms(dims, small_sample, n, k_df)
    total_h = sum(H for _, H, _ in terms)
    cell_var = np.empty((len(terms), C), dtype=np.int64)
    FH = np.zeros((total_h, q, k))
    term = np.empty(total_h, dtype=np.int64)
    weight = np.array([w for _, _, w in terms])
    covariance = np.zeros((q, q))
    wu_c = su @ P
    offset = 0
    for t, (codes, H, w) in enumerate(terms):
        hc = codes[rep]
        cell_var[t] = hc + offset
        np.add.at(FH, hc + offset, np.swapaxes(F, 1, 2))
        term[offset : offset + H] = t
        score = np.zeros((H, q))
        np.add.at(score, hc, wu_c)
        covariance += w * (score.T @ score)
        offset += H
    return WaldParts(
        covariance=covariance,
        rounding=np.zeros(q),
        n_boot=G,
        boot=boot_arrays,
        var=(cell_var, np.ascontiguousarray(FH), term),
        weight=weight,
    )


def _rounding(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    P: np.ndarray,
    dims: list[tuple[np.ndarray, int]],
    small_sample: str,
    k_df: int,
    parts: WaldParts,
    factor: float,
) -> np.ndarray:
    """Per restriction, the standard error of rounding alone
    (``skboot.model_based._cluster_checks``): the cheap bound when ``factor``
    times it lies below the standard error, else the exact level."""
    terms = variance_terms(dims, small_sample, D.shape[0], k_df)
    covariance = parts.covariance
    c_pos = float(sum(w for _, _, w in terms if w > 0))
    out = np.empty(P.shape[1])
    for j in range(P.shape[1]):
        bound = rounding_se_bound(D, yf, beta, P[:, j], c_pos)
        se = math.sqrt(max(float(covariance[j, j]), 0.0))
        if not math.isfinite(se) or se > factor * bound:
            out[j] = bound
        else:
            out[j] = math.hypot(
                *(
                    rounding_se(D, yf, beta, P[:, j], c, H, w)
                    for c, H, w in terms
                    if w > 0
                )
            )
    return out


def crv3_wald_parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    PR: tuple[np.ndarray, np.ndarray],
    delta: np.ndarray,
    dims: tuple[np.ndarray, int],
    crv1: WaldParts,
    owner: str,
) -> WaldParts:
    """The parts of the CRV3 Wald test (module docstring), one-way: O(n k**2 +
    G k**3) once; the rounding level of each restriction is that of the CRV1
    parts ``crv1`` in CRV3 units."""
    P, R = PR
    codes, G = dims
    k, q = P.shape
    _, _, K = leave_one_out(D, codes, G, np.ascontiguousarray(R.T), owner, "variance")
    with np.errstate(over="ignore", invalid="ignore"):  # refused by the caller
        su = np.empty((G, k))
        F = np.empty((G, k, q))
        cluster_scores_multi(D, yf, beta, np.ascontiguousarray(P), codes, su, F)
        s = su + F @ delta
        jack = np.einsum("gkq,gk->gq", K, su)
        c = (G - 1) / G
        covariance = c * (jack.T @ jack)
        ratio = np.sqrt(np.diag(covariance) / np.diag(crv1.covariance))
        rounding = crv1.rounding * np.where(np.isfinite(ratio), ratio, np.inf)
    labels = np.arange(G, dtype=np.int64)
    return WaldParts(
        covariance=covariance,
        rounding=rounding,
        n_boot=G,
        boot=(
            np.ascontiguousarray(s),
            np.ascontiguousarray(s @ P),
            labels,
            np.ascontiguousarray(np.einsum("gkq,gk->gq", K, s)),
        ),
        var=(
            labels[None, :].copy(),
            np.ascontiguousarray(np.swapaxes(K - P[None], 1, 2)),
            np.zeros(G, dtype=np.int64),
        ),
        weight=np.array([c]),
    )
