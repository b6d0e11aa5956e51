"""The plan of the ARMA-type residual bootstraps (ARIMA, seasonal ARIMA, ARX) and
the residual-index streams every residual bootstrap shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.model_arma import arma_residual_chunk, arma_wild_chunk
from skboot._kernels.model_based import LANES, WEBB, fill_wild_weights
from skboot._random import PURPOSE, RootKey, fill_indices_kernel
from skboot.model_based._base import SyntheticPlan

__all__ = ["ARMAResidualPlan", "ARMAWildPlan", "innovation_indices"]


def innovation_indices(
    key: RootKey, b: int, m: int, n_e: int, block_length: int
) -> np.ndarray:
    """Indices into ``m`` centred residuals of the ``n_e`` innovations of
    replicate ``b``, in time order: iid draws on purpose "indices"
    (``block_length == 0``), or moving blocks of ``block_length`` whose starts are
    draws of ``bounded(m - L + 1)`` on purpose "block_starts"."""
    if block_length == 0:
        seed, gamma = key.stream(PURPOSE["indices"])
        out = np.empty(n_e, dtype=np.int64)
        fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(m), out)
        return out
    seed, gamma = key.stream(PURPOSE["block_starts"])
    starts = np.empty(-(-n_e // block_length), dtype=np.int64)
    fill_indices_kernel(
        seed, gamma, np.uint64(b), np.uint64(m - block_length + 1), starts
    )
    return (starts[:, None] + np.arange(block_length)[None, :]).reshape(-1)[:n_e]


@dataclass(frozen=True, eq=False)
class ARMAResidualPlan(SyntheticPlan):
    """Replicate ``b``: the ARMA recursion of :mod:`skboot._kernels.model_arma`
    driven by resampled centred residuals, integrated back and shifted by the
    fixed level.  ``w0`` holds the observed start values of the differenced
    series, ``mu`` the offset of each of its steps."""

    replicate_lanes: ClassVar[int] = LANES

    w0: np.ndarray = field(default_factory=lambda: np.empty(0))
    mu: np.ndarray = field(default_factory=lambda: np.empty(0))
    ar: np.ndarray = field(default_factory=lambda: np.empty(0))
    ma: np.ndarray = field(default_factory=lambda: np.empty(0))
    delta: np.ndarray = field(default_factory=lambda: np.empty(0))
    y0: np.ndarray = field(default_factory=lambda: np.empty(0))
    level: np.ndarray = field(default_factory=lambda: np.empty(0))
    residuals: np.ndarray = field(default_factory=lambda: np.empty(0))
    block_length: int = 0  # 0: iid residuals
    fit: Any = None  # what the resampler reports as fitted attributes

    @property
    def n_innovations(self) -> int:
        """Innovations drawn per replicate: the steps of the recursion."""
        return self.n_samples - self.delta.shape[0] - self.w0.shape[0]

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seed_i, gamma = self.key.stream(PURPOSE["indices"])
        seed_s, _ = self.key.stream(PURPOSE["block_starts"])
        arma_residual_chunk(
            seed_i,
            seed_s,
            gamma,
            np.int64(b0),
            self.w0,
            self.mu,
            self.ar,
            self.ma,
            self.delta,
            self.y0,
            self.level,
            self.residuals,
            np.int64(self.block_length),
            out,
        )

    def residual_indices(self, b: int) -> np.ndarray:
        """Indices into the centred residuals of the innovations of replicate
        ``b``, in time order."""
        return innovation_indices(
            self.key,
            b,
            self.residuals.shape[0],
            self.n_innovations,
            self.block_length,
        )

    def start(self, b: int) -> int:
        """Replicates start from the observed first values (position 0)."""
        return 0


@dataclass(frozen=True, eq=False)
class ARMAWildPlan(ARMAResidualPlan):
    """Replicate ``b``: the ARMA recursion of :class:`ARMAResidualPlan` driven by
    the centred residuals re-scaled in place, ``resid[i] * v[i // L]``, with
    ``v`` the replicate's wild multipliers of law ``kind`` (the codes of
    :data:`skboot._kernels.model_based.WEIGHT_CODES`), one per block of
    ``L = max(block_length, 1)`` residuals."""

    kind: int = 0

    @property
    def _length(self) -> int:
        return max(1, self.block_length)

    @property
    def n_multipliers(self) -> int:
        """Multipliers per replicate: one per block of residuals."""
        return -(-self.residuals.shape[0] // self._length)

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self.key.stream(PURPOSE["wild"])
        arma_wild_chunk(
            seed,
            gamma,
            np.int64(b0),
            self.w0,
            self.mu,
            self.ar,
            self.ma,
            self.delta,
            self.y0,
            self.level,
            self.residuals,
            np.int64(self.kind),
            WEBB,
            np.int64(self._length),
            out,
        )

    def multipliers(self, b: int) -> np.ndarray:
        """The multipliers of replicate ``b`` (one per block of residuals)."""
        seed, gamma = self.key.stream(PURPOSE["wild"])
        out = np.empty(self.n_multipliers)
        fill_wild_weights(seed, gamma, np.uint64(b), np.int64(self.kind), WEBB, out)
        return out

    def residual_indices(self, b: int) -> None:  # type: ignore[override]
        """None: every replicate re-scales the residuals in place."""
        return None
