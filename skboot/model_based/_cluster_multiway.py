"""The wild cluster bootstrap with bootstrap clusters other than the variance
clusters, and with multiway (two-way, ...) cluster-robust variances.

Notation of ``skboot.model_based._cluster``.  Multiway clustering (Cameron,
Gelbach & Miller 2011) sums one CRV1 variance per non-empty set ``S`` of the
clustering dimensions, computed on the intersection of the clusterings in ``S``,
with sign ``(-1)**(|S| + 1)`` and its own small-sample factor (its own number of
clusters): two-way, ``V = V_1 + V_2 - V_12``.  Each such variance is a *term*.

The *cells* are the intersections of the bootstrap clusters with every
clustering, so each cell lies in one bootstrap cluster and in one cluster of
every term.  With the per-cell vectors ``su_c = X_c' uhat_c`` and
``f_c = X_c' X_c q`` (one pass over the rows), a replicate with multipliers ``v``
(one per bootstrap cluster ``B``) has, for a cluster ``h`` of a term,
``q' X_h' u*_h = sum_{c in h} v_{B(c)} q' s_c - F_h' A sum_B v_B s_B`` with
``s = su + delta f`` and ``F_h = sum_{c in h} f_c`` (Roodman, MacKinnon, Nielsen
& Webb 2019, section 4; MacKinnon, Nielsen & Webb 2023): the five sums of the
one-way algebra, each ``Q`` now a signed, weighted sum over the clusters of
every term.  A replicate costs O((G_boot + H) k + T C) for ``H`` clusters over
``T`` terms and ``C`` cells, never O(n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from skboot._kernels.cluster_multi import wcb_multi_lanes
from skboot._kernels.model_based import WEBB, WEIGHT_CODES, cluster_scores
from skboot._random import PURPOSE
from skboot.model_based._cluster_checks import (
    rounding_bound_from_norms,
    rounding_se,
)
from skboot.model_based._cluster_inputs import intersection, small_sample_factor

__all__ = ["MultiwayParts", "multiway_parts", "run_chunks", "variance_terms"]

_CHUNK = 4096


def variance_terms(
    dims: list[tuple[np.ndarray, int]], small_sample: str, n: int, k: int
) -> list[tuple[np.ndarray, int, float]]:
    """``(codes, H, weight)`` of every term of the multiway variance: the
    intersection of each non-empty set of clusterings, its number of clusters
    and its signed small-sample factor."""
    terms = []
    for r in range(1, len(dims) + 1):
        for subset in combinations(range(len(dims)), r):
            codes, H = intersection([dims[j][0] for j in subset])
            sign = 1.0 if r % 2 else -1.0
            terms.append((codes, H, sign * small_sample_factor(small_sample, H, n, k)))
    return terms


@dataclass(frozen=True)
class MultiwayParts:
    """What the replicates need, computed once: the variance ``V`` of ``a'
    bhat`` (the square of the standard error; may be negative for multiway
    clustering), the rounding level of the standard error, and the kernel's
    arguments."""

    variance: float
    rounding: float
    n_boot: int
    boot: tuple[np.ndarray, ...]
    var: tuple[np.ndarray, ...]
    weight: np.ndarray

    def sums(self, key: Any, B: int, weights: str, enumerate_all: bool) -> np.ndarray:
        """The five sums of every replicate, in chunks, eight replicates side
        by side: O((G_boot + H) k + T C) per replicate."""
        out = np.empty((B, 5))
        run_chunks(wcb_multi_lanes, key, weights, enumerate_all, self, out)
        return out


def run_chunks(
    kernel: Any, key: Any, weights: str, enumerate_all: bool, parts: Any, out: Any
) -> None:
    """Fill ``out`` (one row per replicate) by ``kernel`` on the "wild" stream,
    ``_CHUNK`` replicates per call, from ``parts``' bootstrap-cluster, variance
    and weight arrays."""
    seed, gamma = key.stream(PURPOSE["wild"])
    for b0 in range(0, out.shape[0], _CHUNK):
        kernel(
            seed,
            gamma,
            np.int64(b0),
            np.int64(WEIGHT_CODES[weights]),
            WEBB,
            np.bool_(enumerate_all),
            parts.boot,
            parts.var,
            parts.weight,
            out[b0 : b0 + _CHUNK],
        )


def multiway_parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    A: np.ndarray,
    dims: list[tuple[np.ndarray, int]],
    boot: tuple[np.ndarray, int],
    small_sample: str,
    factor: float,
    k_df: int,
) -> MultiwayParts:
    """The per-cell, per-bootstrap-cluster and per-variance-cluster sums of the
    module docstring: O(n k) once.  ``rounding`` is the standard error of
    rounding alone (``skboot.model_based._cluster_checks``; the terms of a
    positive sign, each with its factor): the cheap bound when ``factor`` times
    it already lies below the standard error, else the exact level."""
    with np.errstate(over="ignore", invalid="ignore"):  # refused by the caller
        return _parts(D, yf, beta, q, A, dims, boot, small_sample, factor, k_df)


def _parts(
    D: np.ndarray,
    yf: np.ndarray,
    beta: np.ndarray,
    q: np.ndarray,
    A: np.ndarray,
    dims: list[tuple[np.ndarray, int]],
    boot: tuple[np.ndarray, int],
    small_sample: str,
    factor: float,
    k_df: int,
) -> MultiwayParts:
    n, k = D.shape
    boot_codes, G = boot
    cells, C = intersection([boot_codes] + [c for c, _ in dims])
    rep = np.full(C, n, dtype=np.int64)
    np.minimum.at(rep, cells, np.arange(n, dtype=np.int64))
    su = np.empty((C, k))
    F = np.empty((C, k))
    norms = np.empty(k + 2)
    cluster_scores(D, yf, beta, q, cells, su, F, norms)
    wu_c = su @ q
    wf_c = F @ q
    cell_boot = boot_codes[rep]
    SuB = np.zeros((G, k))
    SfB = np.zeros((G, k))
    np.add.at(SuB, cell_boot, su)
    np.add.at(SfB, cell_boot, F)
    boot_arrays = (
        np.ascontiguousarray(SuB @ A),
        np.ascontiguousarray(SfB @ A),
        np.bincount(cell_boot, weights=wu_c, minlength=G),
        np.bincount(cell_boot, weights=wf_c, minlength=G),
        np.ascontiguousarray(cell_boot, dtype=np.int64),
        wu_c,
        wf_c,
    )
    terms = variance_terms(dims, small_sample, n, k_df)
    total_h = sum(H for _, H, _ in terms)
    cell_var = np.empty((len(terms), C), dtype=np.int64)
    FH = np.zeros((total_h, k))
    term = np.empty(total_h, dtype=np.int64)
    weight = np.array([w for _, _, w in terms])
    variance = 0.0
    offset = 0
    for t, (codes, H, w) in enumerate(terms):
        hc = codes[rep]
        cell_var[t] = hc + offset
        np.add.at(FH, hc + offset, F)
        term[offset : offset + H] = t
        score = np.bincount(hc, weights=wu_c, minlength=H)
        variance += w * float(score @ score)
        offset += H
    c_pos = float(weight[weight > 0].sum())
    rounding = rounding_bound_from_norms(norms, D, yf, beta, q, c_pos)
    se = math.sqrt(max(variance, 0.0)) if math.isfinite(variance) else math.inf
    if math.isfinite(se) and not se > factor * rounding:
        rounding = math.hypot(
            *(rounding_se(D, yf, beta, q, c, H, w) for c, H, w in terms if w > 0)
        )
    return MultiwayParts(
        variance=variance,
        rounding=rounding,
        n_boot=G,
        boot=boot_arrays,
        var=(cell_var, FH, term),
        weight=weight,
    )
