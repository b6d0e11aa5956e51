"""The permutation stream: Fisher-Yates shuffles against the slow reference, exact
enumeration by rank, the Permutation splitter."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from skboot._kernels.permutation import (
    exact_independent_chunk,
    exact_pairings_chunk,
    exact_samples_chunk,
    fy_block,
    pairings_chunk,
    samples_chunk,
)
from skboot._random import PURPOSE, check_random_state
from skboot.resamplers import Permutation
from skboot.resamplers._permutation import _WordReader, reference_shuffles
from skboot.significance._plans import PermutationTestPlan, distinct_permutations


@pytest.mark.parametrize("n", [2, 3, 129, 300, 1000])
@pytest.mark.parametrize("b", [0, 7, 2**32 - 2])
def test_shuffle_matches_reference(n, b):
    rs = Permutation(n_resamples=2**32 - 1, random_state=11).fit(np.zeros(n))
    got = rs.replicate(b).indices.tolist()
    assert got == reference_shuffles(rs.key_, b, [list(range(n))])[0]
    assert sorted(got) == list(range(n))


def test_groups_shuffled_in_order_with_consecutive_draws():
    g = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0, 5, 1, 2])
    rs = Permutation(n_resamples=5, random_state=3).fit(g, groups=g)
    pools = [list(np.flatnonzero(g == v)) for v in np.unique(g)]
    for b in range(5):
        perm = np.empty(g.shape[0], dtype=np.int64)
        for rows, shuffled in zip(
            pools, reference_shuffles(rs.key_, b, pools), strict=True
        ):
            perm[rows] = shuffled
        got = rs.replicate(b).indices
        assert got.tolist() == perm.tolist()
        assert (g[got] == g).all()  # rows stay in their group


@pytest.mark.parametrize("counts", [[1, 3, 128, 7, 2, 60], [5, 5, 5], [128, 128]])
def test_fy_block_with_rejections_matches_bounded(counts):
    """Bounds near 2**32 reject about a third of the words: the fast path must
    hand over to the word-by-word reader (buffered half words included)."""
    key = check_random_state(5)
    seed, gamma = key.stream(PURPOSE["permutation"])
    reader = _WordReader(key, PURPOSE["permutation"], 3)
    ctr, have, lo = np.uint64(3) << np.uint64(32), np.bool_(False), np.uint64(0)
    top = 3_000_000_000
    buf = np.empty(128, dtype=np.uint64)
    for c in counts:
        state = fy_block(seed, gamma, ctr, have, lo, np.int64(top), c, buf)
        # numba hands uint64 back as Python ints: keep the kernels' types
        ctr, have, lo = np.uint64(state[0]), np.bool_(state[1]), np.uint64(state[2])
        expected = [reader.bounded(top - u) for u in range(c)]
        assert buf[:c].tolist() == expected
        top -= c


def test_pairings_and_samples_layouts_match_reference():
    key = check_random_state(8)
    seed, gamma = key.stream(PURPOSE["permutation"])
    out = np.empty((3, 3, 6), dtype=np.int64)
    pairings_chunk(seed, gamma, np.int64(10), out)
    for k in range(3):
        assert out[k].tolist() == reference_shuffles(key, 10 + k, [list(range(6))] * 3)
    out = np.empty((2, 7, 3), dtype=np.int64)
    samples_chunk(seed, gamma, np.int64(4), out)
    for k in range(2):
        assert out[k].tolist() == reference_shuffles(key, 4 + k, [list(range(3))] * 7)


def _canonical_partition(row, sizes):
    cuts = np.cumsum([0, *sizes])
    return tuple(tuple(sorted(row[a:b])) for a, b in itertools.pairwise(cuts))


@pytest.mark.parametrize("sizes", [(3, 4), (1, 5), (2, 2, 3), (4, 1, 2)])
def test_exact_partitions_enumerate_each_once(sizes):
    plan = PermutationTestPlan.build(check_random_state(0), "independent", sizes, True)
    M = distinct_permutations("independent", sizes)
    expected = math.factorial(sum(sizes)) // math.prod(map(math.factorial, sizes))
    assert expected == M
    out = np.empty((M, sum(sizes)), dtype=np.int64)
    plan.fill(0, out)
    seen = {_canonical_partition(r, sizes) for r in out}
    assert len(seen) == M
    assert out[0].tolist() == list(range(sum(sizes)))  # rank 0: the data
    # any rank range alone gives the same rows
    part = np.empty((5, sum(sizes)), dtype=np.int64)
    plan.fill(M - 5, part)
    assert np.array_equal(part, out[M - 5 :])


def test_exact_pairings_and_samples_enumerate_each_once():
    facts = np.array([math.factorial(i) for i in range(5)], dtype=np.int64)
    out = np.empty((24**2, 2, 4), dtype=np.int64)
    exact_pairings_chunk(np.int64(0), facts, out)
    assert len({tuple(r.ravel()) for r in out}) == 24**2
    assert out[0].tolist() == [[0, 1, 2, 3]] * 2
    out = np.empty((6**3, 3, 3), dtype=np.int64)
    exact_samples_chunk(np.int64(0), facts, out)
    assert len({tuple(r.ravel()) for r in out}) == 6**3
    assert all(sorted(obs) == [0, 1, 2] for r in out for obs in r.tolist())
    out = np.empty((2, 6), dtype=np.int64)
    exact_independent_chunk(
        np.int64(0), np.array([3, 3]), np.array([1, 1], dtype=np.int64), out
    )
    assert out[1].tolist() == [0, 1, 3, 2, 4, 5]  # lexicographic after the data


def test_permutations_are_uniform():
    """All 24 permutations of 4 rows, 12,000 replicates: chi-square test with
    false-failure probability 1e-4."""
    rs = Permutation(n_resamples=12_000, random_state=1).fit(np.zeros(4))
    codes = [tuple(rs.replicate(b).indices) for b in range(12_000)]
    counts = np.array(
        [codes.count(p) for p in itertools.permutations(range(4))], dtype=float
    )
    chi2 = ((counts - 500.0) ** 2 / 500.0).sum()
    assert chi2 < stats.chi2.ppf(1 - 1e-4, df=23)


def test_split_yields_permutation_and_empty_test(labelled_data):
    X, y, groups = labelled_data
    rs = Permutation(n_resamples=4, random_state=2)
    pairs = list(rs.split(X, y, groups))
    assert rs.get_n_splits() == len(pairs) == 4
    fitted = Permutation(n_resamples=4, random_state=2).fit(X, y, groups)
    for b, (perm, rest) in enumerate(pairs):
        assert rest.size == 0
        assert sorted(perm.tolist()) == list(range(len(X)))
        assert (groups[perm] == groups).all()
        assert np.array_equal(perm, fitted.replicate(b).indices)
        assert (fitted.replicate(b).counts == 1).all()
    ungrouped = Permutation(n_resamples=1, random_state=2).fit(X)
    assert not (groups[ungrouped.replicate(0).indices] == groups).all()
