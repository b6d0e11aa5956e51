"""The jackknife as plans: leave-one-out and delete-one-group samples, so the engine
evaluates a statistic on them in chunks (vectorized, gathered, in parallel) as on
bootstrap replicates.  Nothing random is drawn."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from skboot.resamplers._base import ResamplingPlan

__all__ = ["DeleteGroupPlan", "LeaveOneOutPlan"]


@dataclass(frozen=True, eq=False)
class LeaveOneOutPlan(ResamplingPlan):
    """The jackknife as a plan: "replicate" ``i`` is every row but row ``i``, in
    order.  Lets the engine evaluate callables on leave-one-out samples in chunks
    (vectorized: one call per chunk; plain: the chunk row gather), in parallel
    when asked; nothing random is drawn."""

    @property
    def replicate_size(self) -> int:
        return self.n_samples - 1

    def indices(self, b: int) -> np.ndarray:
        return np.delete(np.arange(self.n_samples, dtype=self.index_dtype), b)

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        base = np.arange(self.n_samples - 1, dtype=out.dtype)
        left_out = np.arange(b0, b0 + out.shape[0], dtype=out.dtype)[:, None]
        np.add(base[None, :], base[None, :] >= left_out, out=out, casting="unsafe")


@dataclass(frozen=True, eq=False)
class DeleteGroupPlan(ResamplingPlan):
    """Delete-one-group jackknife as a plan: "replicate" ``g`` is every row whose
    group code is not ``g``, in order (group sizes may differ)."""

    codes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    layout: str = field(default="variable", init=False)

    def indices(self, b: int) -> np.ndarray:
        return np.flatnonzero(self.codes != b).astype(self.index_dtype, copy=False)
