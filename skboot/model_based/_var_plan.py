"""The plans of the VAR residual bootstrap: VAR, and VAR with exogenous
regressors held fixed (VARX)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.model_var import (
    var_residual_chunk,
    var_residual_sums,
    varx_residual_chunk,
)
from skboot.model_based._base import recursion_streams
from skboot.model_based._residual import REDUCTIONS, ARResidualPlan

__all__ = ["VARResidualPlan", "VARXResidualPlan"]


@dataclass(frozen=True, eq=False)
class VARResidualPlan(ARResidualPlan):
    """Replicate ``b``: the VAR recursion driven by resampled residual rows.

    ``coef`` is ``(p, m, m)`` and ``residuals`` ``(n - p, m)``, so the index
    streams (``residual_indices``, ``start``) are the AR plan's, over rows.
    """

    var_intercept: np.ndarray = field(default_factory=lambda: np.empty(0))
    sigma_u: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    @functools.cached_property
    def _kernel_args(self) -> tuple[Any, ...]:
        """The kernels' arguments after ``b0`` (made once: the streams' seeds
        are derived in Python)."""
        seeds, gamma = recursion_streams(self.key)
        return (
            seeds,
            gamma,
            self.series,
            self.var_intercept,
            self.coef,
            self.residuals,
            np.int64(self.burn_in),
            np.bool_(self.burn_in > 0),
            np.int64(self.block_length),
        )

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seeds, gamma, *rest = self._kernel_args
        var_residual_chunk(seeds, gamma, np.int64(b0), *rest, out)  # type: ignore[call-arg]

    def reduce_chunk(self, name: str, b0: int, out: np.ndarray, ddof: int = 0) -> None:
        """``"mean"``, ``"sum"``, ``"var"`` or ``"std"`` (``ddof``) over time of
        each series, reduced from the generated path
        (:func:`skboot._kernels.model_var.var_residual_sums`)."""
        seeds, gamma, *rest = self._kernel_args
        what = np.int64(REDUCTIONS[name])
        var_residual_sums(seeds, gamma, np.int64(b0), *rest, what, np.int64(ddof), out)  # type: ignore[call-arg]

    def draws_per_replicate(self, fused: bool = False) -> int:
        """With ``fused``: the recursion's multiply-adds and draws of one
        replicate, ``(burn_in + n) m (p m + 1)``, which bound a kernel call's
        length (the fused path has no buffer to bound it)."""
        if not fused:
            return super().draws_per_replicate()
        p, m = self.coef.shape[0], self.coef.shape[1]
        return max(1, (self.burn_in + self.n_samples) * m * (p * m + 1))


@dataclass(frozen=True, eq=False)
class VARXResidualPlan(VARResidualPlan):
    """Replicate ``b``: the VAR recursion from the first ``p`` observed rows,
    driven by resampled residual rows, with the fixed offsets ``mu`` (n, m),
    ``mu_t = c + B x_t`` (no burn-in)."""

    mu: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    exog_coef: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    #: Built-ins are refused for a model with regressors (``statistic(X, y)``).
    fused_builtins: ClassVar[tuple[str, ...]] = ()

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seeds, gamma = self._kernel_args[:2]
        varx_residual_chunk(
            seeds,
            gamma,
            np.int64(b0),
            self.series,
            self.mu,
            self.coef,
            self.residuals,
            np.int64(self.block_length),
            out,
        )
