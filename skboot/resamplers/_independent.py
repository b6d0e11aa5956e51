"""Independent samples (``paired=False``): one iid plan per sample, each on its own
purpose slot of the stream."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skboot._random import PURPOSE, RootKey
from skboot.resamplers._base import ResamplingPlan
from skboot.resamplers._iid_plans import IIDPlan

__all__ = ["IndependentPlan", "independent_plan"]


@dataclass(frozen=True, eq=False)
class IndependentPlan(ResamplingPlan):
    """Several samples, each resampled on its own (iid, its own length).

    Sample ``j`` reads purpose slot ``PURPOSE["independent"] + j``, so its
    replicate ``b`` is a pure function of (key, j, b).
    """

    plans: tuple[IIDPlan, ...] = ()

    @property
    def sample_plans(self) -> tuple[IIDPlan, ...]:
        """One iid plan per sample."""
        return self.plans

    @property
    def replicate_size(self) -> int:
        return max(p.replicate_size for p in self.plans)

    def indices(self, b: int) -> np.ndarray:
        raise ValueError(
            "Independent samples have one index array per sample; use "
            "plan.plans[j].indices(b)."
        )


def independent_plan(key: RootKey, sizes: tuple[int, ...]) -> IndependentPlan:
    """The plan of independent samples of the given sizes: sample ``j`` is iid
    with its own length, on purpose slot ``PURPOSE["independent"] + j``."""
    plans = tuple(
        IIDPlan(key, n_j, sample_size=n_j, purpose=PURPOSE["independent"] + j)
        for j, n_j in enumerate(sizes)
    )
    return IndependentPlan(key, sizes[0], plans=plans)
