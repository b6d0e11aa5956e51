"""The inputs of :func:`wild_cluster_bootstrap`, checked before any work: the
constraint table of its options, the design, response, clusters, restriction,
and the inverse of the Gram matrix."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.linalg import solve_triangular

from skboot._kernels.model_based import WEIGHT_CODES, dense_codes
from skboot._validation import (
    ALTERNATIVES,
    BOOL,
    LEVEL,
    N_RESAMPLES,
    Constraint,
    Options,
    Predicate,
    as_float_array,
    check_array_1d_labels,
    check_int,
    is_int,
    is_real,
    param_error,
    value_error,
)
from skboot.model_based._cluster_checks import min_resamples
from skboot.model_based._cluster_fe import absorb, with_dummies
from skboot.model_based._cluster_fe_multi import absorb_several, fixed_effect_codes
from skboot.model_based._cluster_jackknife import RESIDUALS
from skboot.model_based._cluster_statsmodels import (
    fitted_groups,
    is_results,
    resolve_labels,
    results_inputs,
)

__all__ = [
    "BOOTSTRAP_GROUPS",
    "CONSTRAINTS",
    "FINITE_FLOAT",
    "SMALL_SAMPLE",
    "VARIANCES",
    "WCB_ALTERNATIVES",
    "bootstrap_codes",
    "cluster_codes",
    "cluster_dims",
    "data_inputs",
    "design",
    "intersection",
    "inverse_gram",
    "min_resamples_error",
    "response",
    "restriction",
    "small_sample_factor",
]

#: The shared sides of a test, and the equal-tailed two-sided test
#: ``2 min(P(t* > t), P(t* < t))``: a wild cluster bootstrap extension.
WCB_ALTERNATIVES = (*ALTERNATIVES, "equal-tailed")
#: A finite real number (the null value of the test).
FINITE_FLOAT = Predicate(lambda v: is_real(v) and math.isfinite(v), "a finite float")
#: The small-sample factors of the cluster-robust variance (``small_sample``).
SMALL_SAMPLE = ("both", "cluster", "observations", "none")
#: The cluster-robust variances (``variance``): CRV1, or the cluster jackknife
#: CRV3 of MacKinnon, Nielsen & Webb (2023).
VARIANCES = ("crv1", "crv3")
#: The named choices of ``bootstrap_groups`` (besides labels).
BOOTSTRAP_GROUPS = ("min", "max")
#: The options of :func:`wild_cluster_bootstrap`, checked in this order before
#: any work.
CONSTRAINTS: dict[str, list[Constraint]] = {
    "impose_null": [BOOL],
    "fit_intercept": [BOOL],
    "weights": [Options(tuple(WEIGHT_CODES))],
    "alternative": [Options(WCB_ALTERNATIVES)],
    "n_resamples": [N_RESAMPLES],
    "level": [LEVEL],
    "null": [FINITE_FLOAT],
    "small_sample": [Options(SMALL_SAMPLE)],
    "variance": [Options(VARIANCES)],
    "residuals": [Options(RESIDUALS)],
}

#: Columns below this magnitude underflow when squared.
_TINY = math.sqrt(np.finfo(np.float64).tiny) * 2.0**26


def design(X: Any, fit_intercept: bool, owner: str) -> np.ndarray:
    """The design as finite float64 of shape (n, n_features), intercept last."""
    Xf = as_float_array(X, "X", owner, ndim=(1, 2), min_rows=0)
    if Xf.size == 0:
        raise value_error(
            "X",
            owner,
            f"must have at least one row and one column. Got shape {Xf.shape} instead.",
        )
    Xf = Xf.reshape(Xf.shape[0], -1)
    if fit_intercept:
        return np.column_stack([Xf, np.ones(Xf.shape[0])])
    return np.ascontiguousarray(Xf)


def cluster_codes(groups: Any, n: int, owner: str) -> tuple[np.ndarray, int]:
    """Cluster codes in sorted label order and their number; O(n) for integer
    labels of moderate range, else through ``np.unique``."""
    raw = groups.to_numpy() if hasattr(groups, "to_numpy") else groups
    arr = np.asarray(raw)
    if arr.ndim == 1 and arr.shape[0] == n > 0 and arr.dtype.kind in "iu":
        lo, hi = int(arr.min()), int(arr.max())
        if hi < 2**62 and lo > -(2**62) and hi - lo < 4 * n + 1024:
            codes, G = dense_codes(
                arr.astype(np.int64, copy=False), np.int64(lo), np.int64(hi - lo + 1)
            )
            return codes, int(G)
    codes = check_array_1d_labels(groups, "groups", owner, n)
    return codes, int(codes.max()) + 1


def inverse_gram(
    D: np.ndarray, fit_intercept: bool, owner: str
) -> tuple[np.ndarray, float]:
    """``(D'D)^-1`` from the column-equilibrated Gram matrix, and ``kappa**2``
    (the squared condition number of the column-equilibrated design); designs
    whose scaled Gram matrix has a condition number above 1e8 go through a QR
    factor of ``D`` instead (no squared condition number), and numerically
    singular ones are refused."""
    n, k = D.shape
    with np.errstate(over="ignore", invalid="ignore"):
        XtX = D.T @ D
    if not np.all(np.isfinite(XtX)):
        raise value_error(
            "X",
            owner,
            f"must have values whose squares sum to a "
            "finite float64 (X'X overflows). Got values up to "
            f"{float(np.abs(D).max()):.3g} instead; rescale the columns.",
        )
    d = np.sqrt(np.diag(XtX))
    # a column's largest value is at most its norm: only columns of a tiny norm
    # can have every value below _TINY (one pass over those columns alone)
    cand = np.flatnonzero(d < _TINY * math.sqrt(n))
    sub = D[:, cand]
    small = cand[(np.abs(sub).max(axis=0, initial=0.0) < _TINY) & np.any(sub, axis=0)]
    if small.size:
        raise value_error(
            "X",
            owner,
            f"must have columns whose squares are "
            "normal float64 numbers (X'X underflows). Got column(s) "
            f"{small.tolist()} with values below {_TINY:.3g} instead; rescale them.",
        )
    if np.all(d > 0):
        s = 1.0 / d
        M = XtX * s[:, None] * s[None, :]
        eig = np.linalg.eigvalsh(M)
        if eig[0] > 1e-8 * eig[-1]:
            return np.linalg.inv(M) * s[:, None] * s[None, :], float(eig[-1] / eig[0])
    Rf = np.linalg.qr(D, mode="r")
    diag = np.abs(np.diag(Rf))
    if diag.min() <= diag.max() * max(n, k) * np.finfo(float).eps:
        raise value_error(
            "X",
            owner,
            f"gives a singular design ({k} columns"
            + (" with the intercept" if fit_intercept else "")
            + f", numerical rank below {k}): some columns are collinear. Drop them.",
        )
    Rinv = solve_triangular(Rf, np.eye(k))
    sv = np.linalg.svd(Rf / d[None, :], compute_uv=False)
    return Rinv @ Rinv.T, float((sv[0] / sv[-1]) ** 2)


def restriction(coef: Any, d: int, k: int, owner: str) -> np.ndarray:
    a = np.zeros(k)
    if is_int(coef):
        a[check_int(coef, "coef", owner, min_value=0, max_value=d - 1)] = 1.0
        return a
    try:
        R = np.asarray(coef, dtype=np.float64)
    except (TypeError, ValueError):
        R = np.empty(0)
    if R.ndim != 1 or R.shape[0] != d or not np.all(np.isfinite(R)) or not R.any():
        raise param_error(
            "coef",
            owner,
            f"a column index in [0, {d - 1}] or a non-zero 1-D array of {d} finite "
            "weights (a linear combination of the coefficients of X)",
            coef,
        )
    a[:d] = R
    return a


def min_resamples_error(
    n_resamples: int, level: float, alternative: str, owner: str
) -> ValueError | None:
    """The error when ``n_resamples`` drawn replicates cannot give the interval
    at ``level`` (the test behind it would reject only at ``p = 0``), else
    None."""
    low = min_resamples(1.0 - level, alternative)
    if low <= n_resamples:
        return None
    step = 2 if alternative == "equal-tailed" else 1
    article = "an" if alternative == "equal-tailed" else "a"
    return value_error(
        "level",
        owner,
        f"must be at most 1 - {step} / (n_resamples + 1) = "
        f"{1.0 - step / (n_resamples + 1):.6g} for {article} {alternative} interval from "
        f"{n_resamples} drawn replicates (with fewer than {low} replicates at this "
        "level the test rejects only at p = 0, so the interval would cover in about "
        f"{n_resamples} of {n_resamples + 1} data sets whatever the level). Got "
        f"{level:.6g} instead; or run wild_cluster_bootstrap with n_resamples >= "
        f"{low}.",
    )


def response(y: Any, n: int, owner: str) -> np.ndarray:
    """``y`` as finite float64, one value per row of the design."""
    yf = as_float_array(y, "y", owner, ndim=(1,), min_rows=0)
    if yf.shape[0] != n:
        raise value_error(
            "y",
            owner,
            f"must be 1-D with one value per row of X "
            f"({n}). Got shape {yf.shape} instead.",
        )
    return yf


def small_sample_factor(kind: str, G: int, n: int, k: int) -> float:
    """The factor of a CRV1 variance with ``G`` clusters: ``G / (G - 1) *
    (n - 1) / (n - k)`` ("both"), ``G / (G - 1)`` ("cluster"), ``(n - 1) /
    (n - k)`` ("observations") or 1 ("none")."""
    if kind == "both":
        return G / (G - 1) * (n - 1) / (n - k)
    if kind == "cluster":
        return G / (G - 1)
    if kind == "observations":
        return (n - 1) / (n - k)
    return 1.0


def intersection(codes: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """Codes of the intersections of several clusterings (lexicographic order
    of their codes), and their number: one mixed-radix key per pair, made dense
    in O(n + range) when the range is moderate, else through ``np.unique``."""
    key, size = codes[0], int(codes[0].max()) + 1
    for c in codes[1:]:
        width = int(c.max()) + 1
        key = key * width + c
        size *= width
        n = key.shape[0]
        if size < 4 * n + 1024:
            key, found = dense_codes(key, np.int64(0), np.int64(size))
            size = int(found)
        else:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            size = int(key.max()) + 1
    return key, size


def cluster_dims(
    groups: Any, n: int, name: str, owner: str
) -> list[tuple[np.ndarray, int]]:
    """The clusterings in ``groups`` (one 1-D array of labels, or the columns of
    a 2-D array or data frame: multiway clustering), each with at least 2
    clusters."""
    if hasattr(groups, "columns"):
        columns = [groups.iloc[:, j] for j in range(groups.shape[1])]
    elif not hasattr(groups, "to_numpy") and np.ndim(groups) == 2:
        arr = np.asarray(groups)
        columns = [arr[:, j] for j in range(arr.shape[1])]
    else:
        columns = [groups]
    if not columns:
        raise param_error(name, owner, "labels of shape (n,) or (n, n_ways)", groups)
    dims = []
    for col in columns:
        codes, G = (
            cluster_codes(col, n, owner)
            if name == "groups"
            else (_named_codes(col, n, name, owner))
        )
        if G < 2:
            raise value_error(
                name,
                owner,
                "must have at least 2 clusters (the "
                "cluster-robust variance has G - 1 degrees of freedom). Got 1 cluster "
                "instead.",
            )
        dims.append((codes, G))
    return dims


def _named_codes(labels: Any, n: int, name: str, owner: str) -> tuple[np.ndarray, int]:
    codes = check_array_1d_labels(labels, name, owner, n)
    return codes, int(codes.max()) + 1


def bootstrap_codes(
    bootstrap_groups: Any, dims: list[tuple[np.ndarray, int]], n: int, owner: str
) -> tuple[np.ndarray, int] | None:
    """The bootstrap clusters: None for the variance clusters of one-way
    clustering; the intersection of all clusterings (multiway, by default), the
    clustering with the fewest or most clusters ("min", "max"), or labels (the
    intersection of the columns of a 2-D array)."""
    if isinstance(bootstrap_groups, str):
        if bootstrap_groups not in BOOTSTRAP_GROUPS:
            raise param_error(
                "bootstrap_groups",
                owner,
                'None, "min", "max" or labels of shape (n,) or (n, n_ways)',
                bootstrap_groups,
            )
        sizes = [G for _, G in dims]
        pick = sizes.index(min(sizes) if bootstrap_groups == "min" else max(sizes))
        return dims[pick]
    if bootstrap_groups is None:
        if len(dims) == 1:
            return None
        return intersection([c for c, _ in dims])
    boot = cluster_dims(bootstrap_groups, n, "bootstrap_groups", owner)
    return intersection([c for c, _ in boot])


def data_inputs(
    X: Any,
    y: Any,
    groups: Any,
    coef: Any,
    fit_intercept: bool,
    bootstrap_groups: Any,
    owner: str,
    fixed_effects: Any = None,
    parse: Any = None,
) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, int]], Any, np.ndarray, int]:
    """The design (intercept last, or a statsmodels model's own; demeaned
    within the levels of ``fixed_effects``), the response, the clusterings,
    the bootstrap clusters (None: the one-way variance clusters), the
    restriction (``parse(coef, d, k, names, owner)``, by default
    :func:`restriction`) and the column count ``k`` of the small-sample factor
    (absorbed levels included), each checked before any work."""
    names, scale = None, None
    if fixed_effects is not None:
        fit_intercept = False  # the levels absorb the intercept
    if is_results(X):
        results = X
        D, yf, names, scale = results_inputs(results, y, owner)
        if groups is None:
            groups = fitted_groups(results)
        if groups is not None:
            groups = resolve_labels(groups, results, "groups", owner)
        if fixed_effects is not None:
            fixed_effects = resolve_labels(
                fixed_effects, results, "fixed_effects", owner
            )
        if bootstrap_groups is not None and not (
            isinstance(bootstrap_groups, str) and bootstrap_groups in BOOTSTRAP_GROUPS
        ):
            bootstrap_groups = resolve_labels(
                bootstrap_groups, results, "bootstrap_groups", owner
            )
        fit_intercept = False
    else:
        D = design(X, fit_intercept, owner)
        yf = response(y, D.shape[0], owner)
    n, k = D.shape
    if groups is None:
        raise param_error(
            "groups",
            owner,
            "cluster labels of shape (n,) or (n, n_ways) (optional only for a "
            'statsmodels fit with cov_type="cluster")',
            groups,
        )
    dims = cluster_dims(groups, n, "groups", owner)
    if n <= k:
        raise value_error(
            "X",
            owner,
            f"must have more rows than regressors "
            f"({k} with the intercept). Got {n} rows instead.",
        )
    boot = bootstrap_codes(bootstrap_groups, dims, n, owner)
    a = (parse or _parse_single)(coef, k - 1 if fit_intercept else k, k, names, owner)
    k_df = k
    if fixed_effects is not None:
        fe = fixed_effect_codes(fixed_effects, n, owner)
        if len(fe) > 1:
            nested = [_nested(codes, dims) for codes in fe]
            D, yf, a, k_df = absorb_several(
                D, yf, fe, nested, scale, a, names is not None, owner
            )
        else:
            y_raw = yf
            D, yf, a = absorb(D, yf, fe[0], scale, a, names is not None, owner)
            k_df = D.shape[1] + int(fe[0].max()) + 1
            if not _nested(fe[0], dims):
                D, yf, a = with_dummies(D, y_raw, a, fe[0], scale, owner)
        if n <= k_df:
            raise value_error(
                "X",
                owner,
                f"must have more rows than regressors and absorbed levels "
                f"({k_df}). Got {n} rows instead.",
            )
    return D, yf, dims, boot, a, k_df


def _parse_single(
    coef: Any, d: int, k: int, names: list[str] | None, owner: str
) -> np.ndarray:
    """The weights ``a`` of one restriction: an index, a parameter name of a
    statsmodels fit, or weights."""
    if isinstance(coef, str) and (names is None or coef not in names):
        raise param_error(
            "coef",
            owner,
            f"one of the model's parameter names {names}"
            if names is not None
            else "a column index or a 1-D array of weights (a parameter name only "
            "when X is a fitted statsmodels model)",
            coef,
        )
    if isinstance(coef, str) and names is not None:
        coef = names.index(coef)
    return restriction(coef, d, k, owner)


def _nested(levels: np.ndarray, dims: list[tuple[np.ndarray, int]]) -> bool:
    """Whether every absorbed level lies inside one cluster of every
    clustering (``skboot.model_based._cluster_fe``)."""
    L = int(levels.max()) + 1
    return all(intersection([levels, codes])[1] == L for codes, _ in dims)
