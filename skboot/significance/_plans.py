"""The replicates of a permutation test: random (the stream) or exact (by rank)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from skboot._kernels.permutation import (
    exact_independent_chunk,
    exact_pairings_chunk,
    exact_samples_chunk,
    pairings_chunk,
    samples_chunk,
    shuffle_pools_chunk,
)
from skboot._random import PURPOSE
from skboot.resamplers import ResamplingPlan

__all__ = [
    "PERMUTATION_TYPES",
    "KeyPlan",
    "PermutationTestPlan",
    "distinct_permutations",
]

PERMUTATION_TYPES = ("independent", "samples", "pairings")


def distinct_permutations(kind: str, sizes: tuple[int, ...]) -> int:
    """Number of distinct permutations, as scipy counts them: partitions of the
    pool for "independent", ``n! ** m`` for "pairings", ``m! ** n`` for
    "samples" (one sample counts as two, ``x`` and ``-x``: ``2 ** n``)."""
    if kind == "independent":
        total, count = 0, 1
        for n in sizes:
            total += n
            count *= math.comb(total, n)
        return count
    m, n = len(sizes), sizes[0]
    if kind == "pairings":
        return math.factorial(n) ** m
    return math.factorial(max(m, 2)) ** n


@dataclass(frozen=True, eq=False)
class PermutationTestPlan(ResamplingPlan):
    """Replicate ``b`` of a permutation test.

    Randomized (``exact=False``), from purpose slot "permutation" at replicate
    ``b``: "independent" is one forward Fisher-Yates shuffle of the pooled
    rows (sample ``j`` takes the next ``n_j`` positions); "pairings" shuffles
    each sample's ``n`` observations, samples in order; "samples" shuffles, for
    each observation in order, which sample each of its ``m`` values goes to
    (one sample ``x`` is the pair ``(x, -x)``: a sign flip).  Exact
    (``exact=True``), replicate ``b`` is the distinct permutation of rank ``b``
    (rank 0 the original data), see
    :mod:`skboot._kernels.permutation`.

    Layout of :meth:`fill` rows: "independent" ``(N,)`` pooled rows in their
    new positions; "pairings" ``(m, n)``; "samples" ``(n, m)`` (``m >= 2``).
    """

    kind: str = "independent"
    exact: bool = False
    sizes: tuple[int, ...] = ()
    places: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    facts: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @property
    def shape(self) -> tuple[int, ...]:
        if self.kind == "independent":
            return (sum(self.sizes),)
        m, n = len(self.sizes), self.sizes[0]
        if self.kind == "pairings":
            return (m, n)
        return (n, max(m, 2))

    @property
    def replicate_size(self) -> int:
        return int(np.prod(self.shape))

    def fill(self, b0: int, out: np.ndarray) -> None:
        """Rows ``out[k]`` (int64) get replicate ``b0 + k``."""
        b = np.int64(b0)
        if self.exact:
            if self.kind == "independent":
                sizes = np.asarray(self.sizes, dtype=np.int64)
                exact_independent_chunk(b, sizes, self.places, out)
            elif self.kind == "pairings":
                exact_pairings_chunk(b, self.facts, out)
            else:
                exact_samples_chunk(b, self.facts, out)
            return
        seed, gamma = self.key.stream(PURPOSE["permutation"])
        if self.kind == "independent":
            N = out.shape[1]
            pools = np.arange(N, dtype=np.int64)
            one = np.array([N], dtype=np.int64)
            zero = np.zeros(1, dtype=np.int64)
            shuffle_pools_chunk(seed, gamma, b, pools, zero, one, out)
        elif self.kind == "pairings":
            pairings_chunk(seed, gamma, b, out)
        else:
            samples_chunk(seed, gamma, b, out)

    def indices(self, b: int) -> np.ndarray:
        out = np.empty((1, *self.shape), dtype=np.int64)
        self.fill(b, out)
        return out[0]

    @classmethod
    def build(
        cls, key: object, kind: str, sizes: tuple[int, ...], exact: bool
    ) -> PermutationTestPlan:
        places = np.empty(0, np.int64)
        facts = np.empty(0, np.int64)
        if exact and kind == "independent":
            left = sum(sizes)
            radix = []
            for n in sizes:
                radix.append(math.comb(left, n))
                left -= n
            places = np.array(
                [math.prod(radix[j + 1 :]) for j in range(len(sizes))], np.int64
            )
        elif exact:
            # factorials up to n (pairings) or the samples per observation
            top = sizes[0] if kind == "pairings" else max(len(sizes), 2)
            facts = np.array([math.factorial(i) for i in range(top + 1)], np.int64)
        n = sum(sizes) if kind == "independent" else sizes[0]
        return cls(
            key,  # type: ignore[arg-type]
            n,
            kind=kind,
            exact=exact,
            sizes=tuple(int(s) for s in sizes),
            places=places,
            facts=facts,
        )


@dataclass(frozen=True, eq=False)
class KeyPlan(ResamplingPlan):
    """A plan that carries only the key: Monte Carlo replicates are drawn by
    the samplers from a per-batch generator, not from row indices."""

    def indices(self, b: int) -> np.ndarray:
        raise ValueError(
            "A Monte Carlo replicate has no row indices; its samples come from the "
            "samplers (see skboot.significance.batch_generator)."
        )
