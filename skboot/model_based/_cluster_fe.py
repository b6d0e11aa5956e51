"""Absorbed fixed effects of the wild cluster bootstrap (``fixed_effects=``):
one categorical variable (several: ``skboot.model_based._cluster_fe_multi``).

The model ``y = X beta + D alpha + u`` with ``D`` the dummies of one
categorical variable (``L`` levels) is fitted by the Frisch-Waugh-Lovell
theorem: ``y`` and every column of ``X`` are demeaned within the levels, and
OLS on the demeaned data gives the same ``beta``, the same residuals and, row
for row, the same map ``(X'X)^-1 X'`` from the response to ``beta`` as the
regression with the ``L`` dummies written out.  The cluster-robust variance of
``beta`` and every bootstrap ``t*`` are therefore those of the explicit-dummy
model; only the small-sample factor needs the dummies' count: ``k`` counts the
``L`` absorbed levels (the explicit-dummy model, with its intercept replaced by
the dummies), which is fixest's ``fixef.K = "full"``.  When the levels are
nested in the clusters, fixest's default (``"nested"``) and Stata's
``reghdfe`` leave them out of ``k``, giving a smaller factor ``(n - 1) / (n -
k)``; the factor scales ``t`` and every ``t*`` alike, so p-values and
intervals do not depend on the convention, and ``small_sample="cluster"``
leaves ``k`` out altogether.

The bootstrap needs the levels nested in the clusters of every clustering
(each level inside one cluster).  A bootstrap residual of the explicit-dummy
model is ``M_D (utilde * v)``: the level means of ``utilde * v`` are removed
again in every replicate.  Its score ``X_h' M_D (utilde * v)`` on a variance
cluster ``h`` equals the demeaned ``Xw_h' (utilde * v)`` the fast algebra
uses exactly when every level lies inside one cluster of ``h``'s clustering
(``Xw_h' D_l = 0``: the demeaned columns sum to zero over a whole level).
Levels that span clusters (year effects with clusters by state, say) are
therefore written out instead: the design becomes the demeaned ``X`` next to
the (scaled) dummy columns, which spans the same space as ``X`` and the
dummies, gives the same coefficients on ``X`` and keeps the response as it
is, so the fast algebra runs on the explicit-dummy model itself (O(n L)
memory and O(n (k + L)**2) once, O(G (k + L)) per replicate; refused above
``MAX_DUMMY_CELLS`` values).

Weighted least squares (a statsmodels WLS fit) demeans with the weights: rows
arrive scaled by ``s_i = sqrt(w_i)``, and the dummies scaled alike are
projected out (``z_i - s_i sum_l s z / sum_l s**2`` within level ``l``).

Columns of ``X`` that the levels absorb (constant within every level: the
intercept, a level-wide regressor) vanish after demeaning: for arrays they are
refused by name, for a statsmodels design (whose constant is one of them) they
are dropped, and a restriction on one of them is refused.
"""

from __future__ import annotations

import numpy as np

from skboot._validation import value_error

__all__ = [
    "MAX_DUMMY_CELLS",
    "absorb",
    "check_dummy_cells",
    "kept_columns",
    "with_dummies",
]

#: The most values (rows times levels) of dummy columns written out for levels
#: that are not nested in the clusters (200 MB of float64).
MAX_DUMMY_CELLS = 25_000_000

#: A demeaned column whose norm is at most this fraction of its norm before
#: demeaning is absorbed by the fixed effects.
_ABSORBED_RTOL = 1e-9


def _demean(
    Z: np.ndarray, codes: np.ndarray, L: int, scale: np.ndarray | None
) -> np.ndarray:
    """``Z`` (n, m) minus its projection on the (scaled) level dummies."""
    out = np.empty_like(Z)
    if scale is None:
        counts = np.bincount(codes, minlength=L).astype(np.float64)
        for j in range(Z.shape[1]):
            means = np.bincount(codes, weights=Z[:, j], minlength=L) / counts
            out[:, j] = Z[:, j] - means[codes]
        return out
    mass = np.bincount(codes, weights=scale * scale, minlength=L)
    safe = np.where(mass > 0, mass, 1.0)
    for j in range(Z.shape[1]):
        means = np.bincount(codes, weights=Z[:, j] * scale, minlength=L) / safe
        out[:, j] = Z[:, j] - scale * means[codes]
    return out


def absorb(
    D: np.ndarray,
    yf: np.ndarray,
    codes: np.ndarray,
    scale: np.ndarray | None,
    restriction: np.ndarray,
    from_model: bool,
    owner: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The demeaned design and response and the restriction over the columns
    kept, for the codes of one categorical (module docstring).

    ``restriction`` is ``(k,)`` or ``(q, k)`` over the columns of ``D``.
    """
    L = int(codes.max()) + 1
    Dw = _demean(D, codes, L, scale)
    yw = _demean(yf[:, None], codes, L, scale)[:, 0]
    keep, out = kept_columns(D, Dw, restriction, from_model, owner)
    return np.ascontiguousarray(Dw[:, keep]), yw, out


def kept_columns(
    D: np.ndarray,
    Dw: np.ndarray,
    restriction: np.ndarray,
    from_model: bool,
    owner: str,
) -> tuple[np.ndarray, np.ndarray]:
    """The columns of ``D`` that demeaning leaves (``Dw``: ``D`` demeaned), and
    the restriction over them; absorbed columns of an array design, a
    restriction on an absorbed column, or no column left are refused."""
    before = np.sqrt(np.einsum("ij,ij->j", D, D))
    after = np.sqrt(np.einsum("ij,ij->j", Dw, Dw))
    absorbed = after <= _ABSORBED_RTOL * before
    if absorbed.any() and not from_model:
        raise value_error(
            "X",
            owner,
            "must have no column that is constant within the levels of "
            "fixed_effects (the levels absorb it, and the intercept: pass "
            f"fit_intercept=False or leave it). Got absorbed column(s) "
            f"{np.flatnonzero(absorbed).tolist()} instead; drop them.",
        )
    R = np.atleast_2d(restriction)
    if np.any(R[:, absorbed] != 0.0):
        raise value_error(
            "coef",
            owner,
            "must not test a coefficient that fixed_effects absorbs (its column is "
            "constant within the levels). Got weight on column(s) "
            f"{np.flatnonzero(np.any(R[:, absorbed] != 0.0, axis=0)).tolist()} "
            "instead.",
        )
    keep = ~absorbed
    if not keep.any():
        raise value_error(
            "X",
            owner,
            "must keep at least one column after fixed_effects absorbs the ones "
            "constant within its levels. Got none instead.",
        )
    R = R[:, keep]
    return keep, (R if np.ndim(restriction) == 2 else R[0])


def check_dummy_cells(n: int, L: int, owner: str) -> None:
    """Refuse more than ``MAX_DUMMY_CELLS`` values of written-out dummies."""
    if n * L > MAX_DUMMY_CELLS:
        raise value_error(
            "fixed_effects",
            owner,
            f"must have levels nested in the clusters, or at most "
            f"{MAX_DUMMY_CELLS:,} values of dummy columns (rows times levels) "
            f"to write out for levels that span clusters. Got {n:,} rows and {L:,} "
            "levels that span clusters instead.",
        )


def with_dummies(
    Dw: np.ndarray,
    y: np.ndarray,
    restriction: np.ndarray,
    levels: np.ndarray,
    scale: np.ndarray | None,
    owner: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The demeaned design next to the (scaled) dummy columns of the levels,
    the response as given, and the restriction with zero weight on the
    dummies (module docstring)."""
    n, k = Dw.shape
    L = int(levels.max()) + 1
    check_dummy_cells(n, L, owner)
    D = np.zeros((n, k + L))
    D[:, :k] = Dw
    D[np.arange(n), k + levels] = 1.0 if scale is None else scale
    R = np.atleast_2d(restriction)
    R = np.column_stack([R, np.zeros((R.shape[0], L))])
    return D, y, R if np.ndim(restriction) == 2 else R[0]
