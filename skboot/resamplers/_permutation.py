"""The permutation resampler: random permutations of the rows, optionally within
groups, as a scikit-learn splitter over the derived stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.permutation import BLOCK, shuffle_pools
from skboot._random import PURPOSE, RootKey
from skboot._validation import check_array_1d_labels
from skboot.resamplers._base import BaseResampler, ResamplingPlan

__all__ = ["Permutation", "PermutationPlan", "group_pools", "reference_shuffles"]


def group_pools(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of each group concatenated in group order (rows ascending), with the
    offsets and sizes of the groups."""
    order = np.argsort(codes, kind="stable").astype(np.int64)
    sizes = np.bincount(codes).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    return order, offsets, sizes


@dataclass(frozen=True, eq=False)
class PermutationPlan(ResamplingPlan):
    """Replicate ``b`` is a forward Fisher-Yates shuffle of the rows of each group
    (one group: all rows), read from purpose slot "permutation"; see
    :mod:`skboot._kernels.permutation`."""

    permutes_rows: ClassVar[bool] = True

    pools: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    offsets: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    sizes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def _seed(self) -> tuple[np.uint64, np.uint64]:
        return self.key.stream(PURPOSE["permutation"])

    def indices(self, b: int) -> np.ndarray:
        perm = np.empty(self.n_samples, dtype=np.int64)
        seed, gamma = self._seed()
        shuffle_pools(
            seed,
            gamma,
            np.int64(b),
            self.pools,
            self.offsets,
            self.sizes,
            np.empty(self.n_samples, dtype=np.int64),
            np.empty(BLOCK, dtype=np.uint64),
            perm,
        )
        return perm.astype(self.index_dtype, copy=False)

    def counts(self, b: int) -> np.ndarray:
        return np.ones(self.n_samples, dtype=np.int64)

    def oob(self, b: int) -> np.ndarray:
        return np.empty(0, dtype=np.int64)

    def split_pair(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        return self.indices(b), np.empty(0, dtype=np.int64)

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        for k in range(out.shape[0]):
            out[k] = self.indices(b0 + k)


class Permutation(BaseResampler):
    """Random permutations of the rows (within groups), from the derived stream.

    Replicate ``b`` is a permutation ``perm`` of ``0 .. n - 1``: a forward
    Fisher-Yates shuffle whose draws are the bounded integers of the stream's
    purpose slot "permutation" at replicate ``b``, so it is a pure function of
    ``(random_state, b)`` and any replicate can be regenerated alone.  With
    ``groups``, rows are permuted only among rows of the same group (groups in
    sorted label order, one shuffle each, the draws consecutive), as
    scikit-learn's ``permutation_test_score`` permutes labels.

    A permutation is not a train/test split: :meth:`split` yields ``(perm,
    empty)``, every row once in ``perm`` and none out of it, so that
    ``y[perm]`` is the permuted label vector.  Use it to permute labels or
    to drive permutation tests (:func:`skboot.significance.permutation_test`,
    :func:`skboot.significance.metric_permutation_test`), not as ``cv=``.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of permutations.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    key_ : RootKey
        The root key fixed by :meth:`fit`.
    seed_entropy_ : int or SeedSequence
        Pass as ``random_state`` to repeat a run made with ``random_state=None``.
    n_samples_ : int
        Number of rows seen in :meth:`fit`.

    See Also
    --------
    skboot.permutation_test : Permutation tests of one or more samples.
    skboot.metric_permutation_test : Whether two models' scores differ.

    Notes
    -----
    Step ``t`` of the shuffle of ``s`` items draws ``r_t`` uniform in ``[0, s -
    t)`` (Lemire's method with rejection, exactly uniform) and swaps positions
    ``t`` and ``t + r_t``; every permutation has probability ``1 / s!``
    (Durstenfeld 1964; Knuth, TAOCP vol. 2, algorithm 3.4.2 P).  Generating one
    replicate costs O(n) time and memory.

    References
    ----------
    .. [1] R. Durstenfeld, "Algorithm 235: Random permutation", Communications
       of the ACM 7(7), 1964.
    .. [2] D. Lemire, "Fast random integer generation in an interval", ACM
       TOMACS 29(1), 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.resamplers import Permutation
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> perm, rest = next(Permutation(n_resamples=1, random_state=0).split(y))
    >>> perm.tolist(), rest.tolist()
    ([4, 0, 5, 1, 3, 2], [])
    >>> groups = np.array([0, 0, 0, 1, 1, 1])
    >>> p = Permutation(n_resamples=1, random_state=0).fit(y, groups=groups)
    >>> sorted(p.replicate(0).indices[:3].tolist())  # rows stay in their group
    [0, 1, 2]
    """

    __metadata_request__split: ClassVar[dict[str, Any]] = {"groups": True}

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        if groups is None:
            codes = np.zeros(n_samples, dtype=np.int64)
        else:
            codes = check_array_1d_labels(groups, "groups", self._name, n_samples)
        pools, offsets, sizes = group_pools(codes)
        return PermutationPlan(
            key, n_samples, pools=pools, offsets=offsets, sizes=sizes
        )


class _WordReader:
    """The stream's 32-bit words of one replicate, read in order (pure Python)."""

    def __init__(self, key: RootKey, purpose: int, b: int) -> None:
        from skboot._random import reference_words

        self._words = lambda count: reference_words(key, purpose, b, count)
        self._buf = [int(w) for w in self._words(64)]
        self._pos = 0

    def word(self) -> int:
        if self._pos >= len(self._buf):
            self._buf = [int(w) for w in self._words(2 * len(self._buf))]
        w = self._buf[self._pos]
        self._pos += 1
        return w

    def bounded(self, n: int) -> int:
        """Lemire's multiply-shift with rejection, one word per attempt."""
        thresh = (2**32 - n) % n
        m = self.word() * n
        while (m & 0xFFFFFFFF) < thresh:
            m = self.word() * n
        return m >> 32


def reference_shuffles(key: RootKey, b: int, items: list[list[int]]) -> list[list[int]]:
    """Slow pure-Python reference of the stream's Fisher-Yates shuffles.

    Shuffles each list of ``items`` in order, forward Fisher-Yates (step ``t``
    swaps positions ``t`` and ``t + bounded(s - t)``), with the draws of
    replicate ``b`` of purpose slot "permutation" read consecutively.  Used by
    the tests to check every kernel of
    :mod:`skboot._kernels.permutation` (lists of fewer than 32-bit
    bounds only).
    """
    reader = _WordReader(key, PURPOSE["permutation"], b)
    out = []
    for seq in items:
        a = list(seq)
        for t in range(len(a) - 1):
            j = t + reader.bounded(len(a) - t)
            a[t], a[j] = a[j], a[t]
        out.append(a)
    return out
