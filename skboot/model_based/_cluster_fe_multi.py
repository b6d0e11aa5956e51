"""Several absorbed fixed-effect dimensions (``fixed_effects=`` with two or
more categorical columns: firm and year effects, as ``reghdfe`` and fixest
absorb them).

Notation of ``skboot.model_based._cluster_fe`` (one dimension), whose argument
carries over: the model ``y = X beta + D_1 alpha_1 + ... + D_m alpha_m + u`` is
fitted by the Frisch-Waugh-Lovell theorem on ``y`` and ``X`` with their
projection on the span of all the dummies removed.

Demeaning.  With two or more dimensions there is no closed form; the method of
alternating projections (Gaure 2013, the method of ``lfe``, ``reghdfe`` and
fixest) subtracts from a column its (weighted) level means of each dimension
in turn, one *sweep* per pass over the dimensions, and repeats: the iterates
converge to the column minus its projection on the span of all the dummies
(von Neumann-Halperin).  A column stops when the change ``delta`` of its last
sweep, divided by ``1 - c`` (``c``: the ratio of its last two changes, an
estimate of the linear rate, so ``delta / (1 - c)`` estimates the distance
left), is at most ``DEMEAN_RTOL = 1e-12`` of the column's norm before
demeaning, or when ``delta`` is at rounding level (``1e-14`` of that norm);
Gaure's stopping rule.  A column not stopped after ``MAX_SWEEPS`` sweeps is an
error naming ``fixed_effects`` (very poorly connected levels).  Weighted least
squares projects out the dummies scaled by ``s_i = sqrt(w_i)`` as the
one-dimension path does.

Dimensions and clusters.  The bootstrap needs each absorbed dimension nested
in the clusters of every clustering (the one-dimension argument, dimension by
dimension: a demeaned column sums to zero over every level of every absorbed
dimension).  With ``A`` the nested dimensions and ``N`` the others, the design
is ``[M X, M_A D_N]`` (``M``: remove the projection on all the dummies; ``M_A``:
on those of ``A``) and the response ``M_A y``: it spans ``M_A [X, D_N]``, gives
``beta`` on ``M X`` (orthogonal to ``M_A D_N``) and the residuals of the model
with every dummy, and its scores on a cluster are those of that model because
``A`` is nested.  The dummies of ``N`` are written out (O(n L_N) memory, at
most ``MAX_DUMMY_CELLS`` values) without their redundant levels (below).

The small-sample ``k``.  ``k`` counts the regressors kept and the levels of
every dimension minus the redundant ones, the rank of the dummies of the model
written out without an intercept: for two dimensions the number of connected
components of the bipartite graph whose nodes are the levels and whose edges
are the rows (Abowd, Creecy & Kramarz 2002), exact; for each further dimension
one more (its reference level), the dimensions taken in the order ``A`` (those
nested in the clusters) then ``N``, each in the order given.  This is fixest's rule (``fixef.K = "full"``
counts them all; fixest's default ``"nested"`` and Stata's ``reghdfe`` also
leave out the levels of dimensions nested in the clusters, a smaller ``k``).
The factor scales ``t`` and every ``t*`` alike, so p-values and intervals do
not depend on the convention.  For three or more dimensions whose levels have
further redundancies (one dimension nested in another), this ``k`` is too
large, and the written-out dummies of such dimensions are refused as
collinear: leave the nested dimension out.  Written-out dummies drop the same
levels: in the second dimension of the order ``A`` then ``N``, the first level
of every connected component; in each further one, its first level.

References: Gaure, S. (2013). OLS with multiple high dimensional category
variables. Computational Statistics & Data Analysis 66, 8-18.  Abowd, J. M.,
Creecy, R. H. & Kramarz, F. (2002). Computing person and firm effects using
linked longitudinal employer-employee data. U.S. Census Bureau TP-2002-06.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from skboot._kernels.demean import demean_sweep
from skboot._validation import check_array_1d_labels, param_error, value_error
from skboot.model_based import _cluster_fe
from skboot.model_based._cluster_fe import kept_columns

__all__ = [
    "DEMEAN_RTOL",
    "MAX_SWEEPS",
    "absorb_several",
    "demean",
    "fixed_effect_codes",
    "redundant_levels",
]

#: Stop a column when its estimated distance left is at most this fraction of
#: its norm (module docstring).
DEMEAN_RTOL = 1e-12

#: A change at most this fraction of the column's norm is rounding.
_ROUNDING = 1e-14

#: The most sweeps of alternating projections before the error.
MAX_SWEEPS = 10_000


def fixed_effect_codes(fixed_effects: Any, n: int, owner: str) -> list[np.ndarray]:
    """The codes of every dimension of ``fixed_effects``: one 1-D array of
    labels, or the columns of a 2-D array or data frame."""
    if hasattr(fixed_effects, "columns"):
        columns = [fixed_effects.iloc[:, j] for j in range(fixed_effects.shape[1])]
    elif not hasattr(fixed_effects, "to_numpy") and np.ndim(fixed_effects) == 2:
        arr = np.asarray(fixed_effects)
        columns = [arr[:, j] for j in range(arr.shape[1])]
    else:
        columns = [fixed_effects]
    if not columns:
        raise param_error(
            "fixed_effects",
            owner,
            "labels of shape (n,) or (n, n_dimensions)",
            fixed_effects,
        )
    return [check_array_1d_labels(c, "fixed_effects", owner, n) for c in columns]


def demean(
    Z: np.ndarray, fe: list[np.ndarray], scale: np.ndarray | None, owner: str
) -> np.ndarray:
    """``Z`` (n, m) minus its projection on the (scaled) dummies of every
    dimension in ``fe``, by alternating projections (module docstring)."""
    out = np.array(Z, dtype=np.float64, order="C")
    if not fe:
        return out
    n, m = out.shape
    sizes = [int(c.max()) + 1 for c in fe]
    s = np.ones(n) if scale is None else np.ascontiguousarray(scale, dtype=np.float64)
    mass = np.ones((len(fe), max(sizes)))
    for e, codes in enumerate(fe):
        w = np.bincount(
            codes, weights=None if scale is None else s * s, minlength=sizes[e]
        )
        mass[e, : sizes[e]] = np.where(w > 0, w, 1.0)
    codes2 = np.ascontiguousarray(np.column_stack(fe), dtype=np.int64)
    means = np.empty((len(fe), max(sizes), m))
    delta = np.zeros(m)
    norm0 = np.sqrt(np.einsum("ij,ij->j", out, out))
    prev = np.full(m, np.inf)
    cols = np.arange(m, dtype=np.int64)
    for _ in range(MAX_SWEEPS if len(fe) > 1 else 1):
        demean_sweep(out, codes2, mass, s, cols, means, delta)
        step = np.sqrt(delta[cols])
        rate = np.where(prev[cols] > 0, step / prev[cols], 0.0)
        prev[cols] = step
        done = (step <= _ROUNDING * norm0[cols]) | (
            (rate < 1.0) & (step <= DEMEAN_RTOL * (1.0 - rate) * norm0[cols])
        )
        cols = cols[~done]
        if len(fe) == 1 or not cols.size:
            return out
    j = int(cols[0])
    raise value_error(
        "fixed_effects",
        owner,
        f"must have levels whose means alternating projections remove within "
        f"{MAX_SWEEPS:,} sweeps (to a relative change of {DEMEAN_RTOL:g}). Got a "
        f"change of {prev[j] / norm0[j]:.3g} of a column's norm after "
        f"{MAX_SWEEPS:,} sweeps instead (levels that are very poorly connected).",
    )


def components(first: np.ndarray, second: np.ndarray) -> tuple[int, np.ndarray]:
    """The connected components of the bipartite graph of two dimensions (the
    levels are the nodes, the rows the edges): their number and the component
    of every level of ``second``."""
    L1 = int(first.max()) + 1
    L2 = int(second.max()) + 1
    edges = coo_matrix(
        (np.ones(first.shape[0], dtype=np.int8), (first, L1 + second)),
        shape=(L1 + L2, L1 + L2),
    )
    count, label = connected_components(edges, directed=False)
    return int(count), label[L1:]


def redundant_levels(fe: list[np.ndarray]) -> int:
    """The redundant levels among the dimensions of ``fe`` (module docstring:
    connected components for the first two, one for each further one)."""
    if len(fe) < 2:
        return 0
    return components(fe[0], fe[1])[0] + len(fe) - 2


def _written_out(
    fe: list[np.ndarray], n_nested: int, scale: np.ndarray | None, owner: str
) -> np.ndarray:
    """The (scaled) dummies of the dimensions ``fe[n_nested:]``, without their
    redundant levels (module docstring), demeaned within the first
    ``n_nested``."""
    n = fe[0].shape[0]
    blocks = []
    for d in range(n_nested, len(fe)):
        codes = fe[d]
        L = int(codes.max()) + 1
        keep = np.ones(L, dtype=bool)
        if d == 1:
            _, label = components(fe[0], codes)
            first = np.full(int(label.max()) + 1, L)
            np.minimum.at(first, label, np.arange(L))
            keep[first] = False
        elif d > 1:
            keep[0] = False
        index = np.cumsum(keep) - 1
        block = np.zeros((n, int(keep.sum())))
        rows = np.flatnonzero(keep[codes])
        block[rows, index[codes[rows]]] = 1.0 if scale is None else scale[rows]
        blocks.append(block)
    return demean(np.hstack(blocks), fe[:n_nested], scale, owner)


def absorb_several(
    D: np.ndarray,
    yf: np.ndarray,
    fe: list[np.ndarray],
    nested: list[bool],
    scale: np.ndarray | None,
    restriction: np.ndarray,
    from_model: bool,
    owner: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The design, the response, the restriction over the design's columns and
    the small-sample ``k`` for the dimensions ``fe`` (``nested[d]``: whether
    dimension ``d`` lies inside the clusters of every clustering); module
    docstring."""
    n = D.shape[0]
    order = [d for d in range(len(fe)) if nested[d]]
    n_nested = len(order)
    order += [d for d in range(len(fe)) if not nested[d]]
    fe = [fe[d] for d in order]
    spans = sum(int(fe[d].max()) + 1 for d in range(n_nested, len(fe)))
    if spans:
        _cluster_fe.check_dummy_cells(n, spans, owner)
    Dw = demean(D, fe, scale, owner)
    keep, R = kept_columns(D, Dw, restriction, from_model, owner)
    Dw = np.ascontiguousarray(Dw[:, keep])
    levels = sum(int(c.max()) + 1 for c in fe)
    k_df = Dw.shape[1] + levels - redundant_levels(fe)
    if not spans:
        return Dw, demean(yf[:, None], fe, scale, owner)[:, 0], R, k_df
    dummies = _written_out(fe, n_nested, scale, owner)
    y_nested = demean(yf[:, None], fe[:n_nested], scale, owner)[:, 0]
    R2 = np.atleast_2d(R)
    R2 = np.column_stack([R2, np.zeros((R2.shape[0], dummies.shape[1]))])
    return (
        np.ascontiguousarray(np.hstack([Dw, dummies])),
        y_nested,
        R2 if np.ndim(R) == 2 else R2[0],
        k_df,
    )
