"""The fused kernels of the weight schemes (Poisson, Bayesian, group, stratified)
equal the two-pass path they replace, bit for bit: the plan's
``fill_weights_chunk`` followed by ``weighted_moments`` (rows in order, zero
weights skipped, the weight total).  Their draws are the stream's."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import bootstrap
from skboot._kernels.fused_weights import poisson_thresholds
from skboot._kernels.weighted import weighted_moments
from skboot._random import (
    POISSON_MAX,
    check_random_state,
    fill_poisson_counts,
)
from skboot.resamplers import (
    BayesianBootstrap,
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)

PLANS = {
    "poisson": lambda: PoissonBootstrap(random_state=3),
    "bayesian": lambda: BayesianBootstrap(random_state=3),
    "group": lambda: GroupBootstrap(random_state=3),
    "stratified": lambda: StratifiedBootstrap(random_state=3),
}


def _plan(name, n):
    gen = np.random.default_rng(n)
    y = gen.integers(0, 3, size=n)
    groups = (np.arange(n) * 7) // n  # 7 groups of unequal rows
    return PLANS[name]().fit(np.zeros(n), y, groups).plan_


@pytest.mark.parametrize("name", sorted(PLANS))
@pytest.mark.parametrize(("n", "d", "nb", "b0"), [(301, 1, 19, 0), (64, 3, 9, 5)])
@pytest.mark.parametrize("want2", [False, True])
def test_fused_moments_equal_weights_then_reduce(name, n, d, nb, b0, want2):
    """Tiles of eight replicates (nb not a multiple of 8), one column (vector
    lanes) and several (row loop), with and without squares."""
    plan = _plan(name, n)
    X = np.random.default_rng(1).normal(size=(n, d)) * 3.0 + 1.0
    W = np.empty((nb, n))
    plan.fill_weights_chunk(b0, W)
    s1, s2, sw = np.empty((nb, d)), np.empty((nb, d)), np.empty(nb)
    weighted_moments(X, W, want2, s1, s2, sw)
    f1, f2, fw = np.full((nb, d), 7.0), np.full((nb, d), 7.0), np.full(nb, 7.0)
    plan.fused_moments(X, b0, want2, f1, f2, fw)
    np.testing.assert_array_equal(f1, s1)
    np.testing.assert_array_equal(fw, sw)
    if want2:
        np.testing.assert_array_equal(f2, s2)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_zero_weight_rows_with_infinite_values_are_skipped(name):
    """A zero weight adds nothing, not 0 * inf = NaN (nan_policy="propagate")."""
    n = 200
    plan = _plan(name, n)
    X = np.random.default_rng(2).normal(size=(n, 1))
    nb = 16
    W = np.empty((nb, n))
    plan.fill_weights_chunk(0, W)
    if name != "bayesian":
        # a row that some replicates do not draw
        row = int(np.flatnonzero((W == 0).any(axis=0))[0])
        X[row, 0] = np.inf
    s1, s2, sw = np.empty((nb, 1)), np.empty((nb, 1)), np.empty(nb)
    weighted_moments(X, W, True, s1, s2, sw)
    f1, f2, fw = np.empty((nb, 1)), np.empty((nb, 1)), np.empty(nb)
    plan.fused_moments(X, 0, True, f1, f2, fw)
    np.testing.assert_array_equal(f1, s1)
    np.testing.assert_array_equal(f2, s2)
    if name != "bayesian":
        assert np.isfinite(f1).any() and np.isinf(f1).any()


def test_poisson_thresholds_reproduce_the_stream_counts():
    """Counts from the integer thresholds equal fill_poisson_counts, large counts
    (the scalar recount above 5) included."""
    key = check_random_state(8)
    seed, gamma = key.stream(1)
    T = poisson_thresholds()
    assert T.shape == (POISSON_MAX,) and np.all(np.diff(T) >= 0)
    n = 5000
    cnt = np.empty(n, dtype=np.int64)
    seen_large = 0
    for b in range(8):
        fill_poisson_counts(seed, gamma, b, cnt)
        z = np.array(
            [_splitmix(int(seed), int(gamma), (b << 32) + i) for i in range(n)],
            dtype=np.uint64,
        )
        v = (z >> np.uint64(11)).astype(np.int64)
        mine = (v[:, None] >= T[None, :]).sum(axis=1)
        np.testing.assert_array_equal(mine, cnt)
        seen_large += int((cnt > 5).sum())
    assert seen_large > 0  # the recount path was exercised


def _splitmix(seed, gamma, t):
    m = (1 << 64) - 1
    z = (seed + (t + 1) * gamma) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_bootstrap_uses_the_fused_path_and_matches_numpy(name):
    """End to end: the replicate means equal numpy's weighted average of the
    replicate's weights (within rounding), and "sum" the weighted sum."""
    n = 500
    x = np.random.default_rng(3).normal(size=n) + 4.0
    rs = PLANS[name]()
    rs.set_params(n_resamples=12)
    y = np.random.default_rng(n).integers(0, 3, size=n)
    groups = (np.arange(n) * 7) // n
    kw = {"y": y} if name == "stratified" else {}
    if name == "group":
        kw = {"groups": groups}
    res = bootstrap(x, "mean", resampler=rs, **kw)
    fitted = rs.fit(x, y, groups)
    for b in range(12):
        w = fitted.replicate(b).weights
        assert res.distribution[b] == pytest.approx(np.average(x, weights=w), 1e-13)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_moment_statistics_never_build_the_weight_matrix(name, monkeypatch):
    plan_type = type(_plan(name, 50))

    def refuse(self, b0, out):
        raise AssertionError("the weight matrix was built")

    monkeypatch.setattr(plan_type, "fill_weights_chunk", refuse)
    n = 50
    kw = {"y": np.arange(n) % 3} if name == "stratified" else {}
    if name == "group":
        kw = {"groups": np.arange(n) // 5}
    for stat in ("mean", "sum", "var", "std"):
        res = bootstrap(np.arange(n, dtype=float), stat, resampler=PLANS[name](), **kw)
        assert np.isfinite(res.distribution).all()


def test_fused_weight_kernels_get_whole_groups_of_eight_replicates(monkeypatch):
    """When the draw limit per kernel call allows fewer than eight replicates
    (large n), the fused weight kernels still get eight per call: their lanes
    serve eight replicates per pass over the rows (three per call cost 2.5x
    per draw at n = 10**7), and the results do not depend on it."""
    import skboot._engine._dispatch as dispatch
    from skboot._engine._builtin import BuiltinStatistic

    x = np.sin(np.arange(1000.0))
    expected = bootstrap(
        x, "mean", resampler=PoissonBootstrap(40), random_state=3, chunk_size=40
    ).distribution
    monkeypatch.setattr(dispatch, "MAX_CHUNK_DRAWS", 3 * 1000)  # 3 replicates
    sizes = []
    original = BuiltinStatistic.run_chunk

    def spy(self, arrays, plan, b0, out, scratch):
        sizes.append(out.shape[0])
        return original(self, arrays, plan, b0, out, scratch)

    monkeypatch.setattr(BuiltinStatistic, "run_chunk", spy)
    res = bootstrap(x, "mean", resampler=PoissonBootstrap(40), random_state=3)
    assert sizes == [8] * 5
    np.testing.assert_array_equal(res.distribution, expected)
    sizes.clear()
    bootstrap(x, "mean", resampler=Bootstrap(40), random_state=3)
    assert sizes and max(sizes) == 3  # the iid kernel has no lanes


def test_recursion_chunks_are_whole_groups_of_lanes(monkeypatch):
    """The AR/ARIMA/VAR recursions generate eight replicates side by side: a
    chunk of 65 would run a ninth group for one replicate, so chunks that hold
    a group are rounded down to a multiple of eight (smaller ones are kept: a
    chunk holds whole series), in iter_samples and in bootstrap alike, with the
    same replicates."""
    import skboot._engine._dispatch as dispatch
    import skboot.model_based._base as model_base
    from skboot import ResidualBootstrap
    from skboot._engine import lanes_round

    assert [lanes_round(c, 8) for c in (1, 7, 8, 65, 130)] == [1, 7, 8, 64, 128]
    y = np.sin(np.arange(300.0) * 0.3) + 0.1 * np.cos(np.arange(300.0) * 1.7)
    fitted = ResidualBootstrap(200, order=1, burn_in=0, random_state=0).fit(y)
    expected = np.concatenate(list(fitted.iter_samples(chunk_size=200)))
    monkeypatch.setattr(model_base, "cache_budget", lambda: 65 * 8 * 300)
    blocks = list(fitted.iter_samples())
    assert [b.shape[0] for b in blocks] == [64, 64, 64, 8]
    np.testing.assert_array_equal(np.concatenate(blocks), expected)
    monkeypatch.setattr(dispatch, "cache_budget", lambda: 65 * 8 * 300)
    seen = []
    original = dispatch._run_range

    def spy(stat, plan, b0, b1, chunk, *args, **kwargs):
        seen.append(chunk)
        return original(stat, plan, b0, b1, chunk, *args, **kwargs)

    monkeypatch.setattr(dispatch, "_run_range", spy)
    res = bootstrap(
        y, np.mean, resampler=ResidualBootstrap(200, order=1, burn_in=0), random_state=0
    )
    assert seen and all(c % 8 == 0 for c in seen)
    np.testing.assert_allclose(res.distribution, expected.mean(axis=1), rtol=1e-15)
