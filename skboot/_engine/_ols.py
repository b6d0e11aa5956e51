"""The built-in "ols": the pairs bootstrap of least-squares coefficients.

Each replicate is the fit of ``y`` on ``X`` (and a column of ones, the
intercept, unless ``fit_intercept=False``) weighted by the replicate's counts
or weights.  Its normal equations come from the weighted cross products of the
rows ``(1, x - a, y - a_y)`` centred at the full-data means
(:func:`skboot._kernels.ols.weighted_gram`), solved by Cholesky
(:func:`skboot._kernels.ols.ols_from_gram`); any resampler that yields counts
or weights drives it.  The estimate is numpy's least squares on the data; the
jackknife of BCa is the closed form of the leave-one-out coefficients
(:func:`ols_jackknife`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import solve_triangular

from skboot._engine._rows import centre_of, coefficients, design_rows
from skboot._engine._statistic import Statistic
from skboot._kernels.ols import RANK_TOL, ols_from_gram, weighted_gram
from skboot._validation import as_float_array, value_error
from skboot.resamplers import ResamplingPlan

__all__ = [
    "MAX_OLS_FEATURES",
    "OLSStatistic",
    "collinear_columns",
    "collinear_error",
    "collinear_in",
    "make_ols",
    "ols_jackknife",
]

#: The most columns of ``X`` the built-in "ols" accepts (a replicate's normal
#: equations are (k + 1) x (k + 1); wider designs belong to an estimator refit).
MAX_OLS_FEATURES = 64


def collinear_columns(
    U: np.ndarray, shift: np.ndarray, fit_intercept: bool
) -> list[int]:
    """The columns of ``X`` (0-based) that are, within :data:`RANK_TOL`, linear
    combinations of the intercept and of the columns before them that are not
    themselves collinear (the pivot test of the replicates, on the data)."""
    Z, _ = _design(U, shift, fit_intercept)
    return collinear_in(Z.T @ Z, fit_intercept)


def collinear_in(A: np.ndarray, fit_intercept: bool) -> list[int]:
    """:func:`collinear_columns` from the cross products ``A`` of the design
    (the intercept's row and column first when ``fit_intercept``)."""
    kept: list[int] = []
    bad: list[int] = []
    for j in range(A.shape[0]):
        diag = A[j, j]
        pivot = diag
        if kept:
            v = A[kept, j]
            pivot = diag - v @ np.linalg.solve(A[np.ix_(kept, kept)], v)
        if np.isfinite(pivot) and pivot > RANK_TOL * diag:
            kept.append(j)
        else:
            bad.append(j)
    offset = int(fit_intercept)
    return [j - offset for j in bad]


def collinear_error(bad: list[int], fit_intercept: bool, owner: str) -> ValueError:
    """The refusal of a design whose columns ``bad`` are collinear."""
    also = " or with the intercept" if fit_intercept else ""
    return value_error(
        "data",
        owner,
        "must hold an X of full column rank for the statistic 'ols'. "
        f"Got X column(s) {bad} (0-based) collinear with the columns "
        f"before them{also}; drop them.",
    )


def ols_jackknife(U: np.ndarray, shift: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """Leave-one-out coefficients in O(n k**2), shape (n, k_out).

    ``g_(i) = g - (Z'Z)^-1 z_i e_i / (1 - h_ii)`` (Belsley, Kuh & Welsch 1980,
    eq. 2.1), ``e_i`` the residual and ``h_ii`` the leverage of row ``i`` of the
    design ``Z``, from the QR factors ``Z = QR``: ``h_ii = |Q_i|**2`` and
    ``(Z'Z)^-1 z_i = R^-1 Q_i'``.  A row of leverage 1 within
    :data:`RANK_TOL` (its removal leaves a rank-deficient design) gives NaN."""
    Z, y = _design(U, shift, fit_intercept)
    Q, R = np.linalg.qr(Z)
    g = solve_triangular(R, Q.T @ y)
    e = y - Z @ g
    h = np.einsum("ij,ij->i", Q, Q)
    room = 1.0 - h
    ok = room > RANK_TOL
    f = np.where(ok, e / np.where(ok, room, 1.0), np.nan)
    delta = solve_triangular(R, (Q * f[:, None]).T, check_finite=False).T
    return coefficients(g[None, :] - delta, shift, fit_intercept)


def _design(
    U: np.ndarray, shift: np.ndarray, fit_intercept: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The design and response of the fit: ``(1, x - a)`` and ``y - a_y``
    with an intercept, the data as given without."""
    p = U.shape[1]
    if fit_intercept:
        return U[:, : p - 1], U[:, p - 1]
    return U[:, 1 : p - 1] + shift[1 : p - 1], U[:, p - 1] + shift[p - 1]


@dataclass
class OLSStatistic(Statistic):
    """The least-squares coefficients of ``y`` on ``X`` per replicate
    (the intercept first with ``fit_intercept``).

    ``arrays`` holds ``(1, x - a, y - a_y)`` per row (:func:`~skboot._engine._rows.design_rows`),
    ``shift`` the centre ``(0, a, a_y)``.
    """

    closed_form_jackknife: ClassVar[bool] = True
    fused: ClassVar[bool] = True
    name: str = "ols"
    X: np.ndarray = field(default_factory=lambda: np.empty((0, 1)))
    y: np.ndarray = field(default_factory=lambda: np.empty(0))
    fit_intercept: bool = True
    feature_names: tuple[Any, ...] | None = None
    shift: np.ndarray = field(default_factory=lambda: np.empty(0))
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()

    def __post_init__(self) -> None:
        X, y = self.X, self.y
        k_x = X.shape[1]
        shift = np.zeros(k_x + 2)
        shift[1:] = centre_of(np.column_stack([X, y]))
        self.shift = shift
        self.arrays = (design_rows(X, y, shift),)
        self.k = k_x + int(self.fit_intercept)
        self.builtin_name = "ols"
        names = self.feature_names
        if names is None:
            names = tuple(f"x{j}" for j in range(k_x))
        self.output_labels = (("intercept",) if self.fit_intercept else ()) + tuple(
            names
        )
        self.cached_estimate = self._fit()
        self.X = np.empty((0, k_x))  # the rows travel once, in ``arrays``
        self.y = np.empty(0)

    def _fit(self) -> np.ndarray:
        """numpy's least squares on the data; NaN when the design is
        rank-deficient (the same test as the replicates')."""
        U = self.arrays[0]
        one = np.empty((1, self.k))
        G = np.empty((1, U.shape[1] * (U.shape[1] + 1) // 2))
        weighted_gram(U, np.ones((1, U.shape[0])), G)
        ols_from_gram(G, U.shape[1], self._move(), self.fit_intercept, one)
        if not np.isfinite(one[0]).all():
            return np.full(self.k, np.nan)
        Z, y = _design(U, self.shift, self.fit_intercept)
        g = np.linalg.lstsq(Z, y, rcond=None)[0]
        return coefficients(g[None, :], self.shift, self.fit_intercept)[0]

    def _move(self) -> np.ndarray:
        """What :func:`ols_from_gram` adds to the centred rows: the centre
        back for a fit without intercept (the origin matters), else nothing."""
        return np.zeros_like(self.shift) if self.fit_intercept else self.shift

    def estimate(self) -> np.ndarray:
        assert self.cached_estimate is not None
        return self.cached_estimate.copy()

    def jackknife(self) -> np.ndarray:
        """Leave-one-out coefficients from the closed form (:func:`ols_jackknife`)."""
        return ols_jackknife(self.arrays[0], self.shift, self.fit_intercept)

    def original(self) -> tuple[np.ndarray, np.ndarray]:
        """``X`` and ``y`` as given (the centred rows plus the centre)."""
        U = self.arrays[0]
        p = U.shape[1]
        return U[:, 1 : p - 1] + self.shift[1 : p - 1], U[:, p - 1] + self.shift[p - 1]

    def subset(self, rows: np.ndarray) -> Statistic:
        X, y = self.original()
        return self._rebuilt(X[rows], y[rows])

    def with_arrays(self, arrays: tuple[np.ndarray, ...]) -> Statistic:
        X = np.asarray(arrays[0], dtype=np.float64)
        return self._rebuilt(X.reshape(X.shape[0], -1), arrays[1])

    def _rebuilt(self, X: np.ndarray, y: np.ndarray) -> OLSStatistic:
        return OLSStatistic(
            X=np.ascontiguousarray(X, dtype=np.float64),
            y=np.asarray(y, dtype=np.float64).reshape(-1),
            fit_intercept=self.fit_intercept,
            feature_names=self.feature_names,
        )

    def vector_output(self, data_ndim: int) -> bool:
        return True

    def keywords(self) -> dict[str, object]:
        """The ``statistic_kwargs`` that rebuild this statistic."""
        return {"fit_intercept": self.fit_intercept}

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        p = self.arrays[0].shape[1]
        return 8 * (plan.n_samples + p * (p + 1) // 2 + p)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        (U,) = arrays
        nb = out.shape[0]
        p = U.shape[1]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
            scratch["G"] = np.empty((nb, p * (p + 1) // 2))
        W, G = W[:nb], scratch["G"][:nb]
        plan.fill_weights_chunk(b0, W)
        weighted_gram(U, W, G)
        ols_from_gram(G, p, self._move(), self.fit_intercept, out)
        out[:, :] = coefficients(out, self.shift, self.fit_intercept)


def ols_fit_intercept(statistic_kwargs: Any, owner: str) -> bool:
    """``fit_intercept`` of the statistic "ols" from ``statistic_kwargs``
    (default True), checked: the one keyword "ols" takes, a bool."""
    kwargs = dict(statistic_kwargs or {})
    extra = set(kwargs) - {"fit_intercept"}
    if extra:
        raise value_error(
            "statistic_kwargs",
            owner,
            f"accepts ['fit_intercept'] for statistic 'ols'. Got {sorted(extra)} "
            "instead.",
        )
    fit_intercept = kwargs.get("fit_intercept", True)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise ValueError(
            f"The 'fit_intercept' statistic keyword of {owner} must be a bool. "
            f"Got {fit_intercept!r} instead."
        )
    return bool(fit_intercept)


def make_ols(
    arrays: tuple[np.ndarray, ...],
    kwargs: dict[str, Any],
    owner: str,
    allow_nonfinite: bool,
) -> OLSStatistic:
    """The built-in "ols" of ``data=(X, y)``, checked before any work: two
    arrays, ``X`` (n,) or (n, k) with ``k <= MAX_OLS_FEATURES``, ``y`` (n,),
    ``fit_intercept`` a bool, finite values (unless ``allow_nonfinite``) and a
    design of full column rank."""
    fit_intercept = ols_fit_intercept(kwargs, owner)
    if len(arrays) != 2:
        raise value_error(
            "data",
            owner,
            "must be a tuple (X, y) of two paired arrays for the statistic "
            f"'ols'. Got {len(arrays)} array(s) instead.",
        )
    nan = "allow" if allow_nonfinite else "raise"
    X = as_float_array(arrays[0], "data", owner, ndim=(1, 2), nan=nan)
    y = as_float_array(arrays[1], "data", owner, ndim=(1,), nan=nan)
    X = X.reshape(X.shape[0], -1)
    k = X.shape[1]
    if not 1 <= k <= MAX_OLS_FEATURES:
        raise value_error(
            "data",
            owner,
            f"must hold an X of 1 to {MAX_OLS_FEATURES} columns for the "
            f"statistic 'ols' (the normal equations of every replicate are "
            f"solved directly). Got {k} column(s) instead; for wider designs "
            "pass an estimator (a scikit-learn regressor) instead.",
        )
    stat = OLSStatistic(
        X=np.ascontiguousarray(X), y=y, fit_intercept=bool(fit_intercept)
    )
    finite = np.isfinite(stat.arrays[0]).all()
    bad = (
        collinear_columns(stat.arrays[0], stat.shift, stat.fit_intercept)
        if finite
        else []
    )
    if bad:
        raise collinear_error(bad, stat.fit_intercept, owner)
    return stat
