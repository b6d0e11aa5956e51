"""SPA, StepM and MCS on loss series: the fused replicate means, and equality with
arch on a shared index set.

arch accepts no index set, so arch's objects are fed skboot's replicates through a
test-only subclass of arch's bootstrap whose ``update_indices`` (arch's per-scheme
hook, called once per replicate by ``bootstrap()``) returns replicate ``b`` of the
skboot resampler.  On those replicates every statistic must agree to 1e-12 and
every p-value exactly (p-values are counts over B).  arch 8's ``studentize`` flag
does not reach its statistic (see the SPA notes), so studentized results are
checked against arch's own simulated values and variances, studentized in the test
as Hansen (2005) defines it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from joblib import parallel_config

import skboot
from skboot import (
    MCS,
    SPA,
    Bootstrap,
    CircularBlockBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    RealityCheck,
    StationaryBootstrap,
    StepM,
    TaperedBlockBootstrap,
)
from skboot._kernels.multiple_comparison import stationary_variance
from skboot.multiple_comparison._replicates import centred_means, column_means

arch_bs = pytest.importorskip("arch.bootstrap")

SCHEMES = {
    "stationary": (StationaryBootstrap, arch_bs.StationaryBootstrap, "sb"),
    "circular": (CircularBlockBootstrap, arch_bs.CircularBlockBootstrap, "cbb"),
    "moving": (MovingBlockBootstrap, arch_bs.MovingBlockBootstrap, "mbb"),
}


def replay(arch_cls, indices):
    """An arch bootstrap class whose replicates are ``indices``, in order."""

    class Replay(arch_cls):
        def __init__(self, block_size, *args, seed=None, **kwargs):
            super().__init__(block_size, *args, seed=seed, **kwargs)
            self._queue = iter(indices)

        def update_indices(self):
            return next(self._queue)

    return Replay


def skboot_indices(scheme, B, L, seed, X):
    cls = SCHEMES[scheme][0]
    length = float(L) if scheme == "stationary" else int(L)
    res = cls(B, block_length=length, random_state=seed).fit(X)
    return [res.replicate(b).indices.astype(np.int64) for b in range(B)]


def spa_data(seed=7, T=240, k=9):
    rng = np.random.default_rng(seed)
    bm = rng.chisquare(8, T)
    models = rng.chisquare(8, (T, k)) + np.linspace(-0.9, 1.5, k)
    return bm, models


# --------------------------------------------------------------------------- #
# fused replicate means                                                         #
# --------------------------------------------------------------------------- #

RESAMPLERS = [
    StationaryBootstrap(12, block_length=6.5, random_state=3),
    StationaryBootstrap(12, block_length=1.0, random_state=3),
    CircularBlockBootstrap(12, block_length=6, random_state=3),
    MovingBlockBootstrap(12, block_length=6, random_state=3),
    NonOverlappingBlockBootstrap(12, block_length=6, random_state=3),
    Bootstrap(12, random_state=3),
]


@pytest.mark.parametrize("resampler", RESAMPLERS, ids=repr)
def test_fused_means_are_the_means_of_the_replicate_rows(resampler):
    """Far from zero (1e6 + noise): within 2 ulps of the exact mean of the rows of
    ``replicate(b).indices`` and within 4 ulps of numpy's (pairwise) mean."""
    rng = np.random.default_rng(0)
    X = 1e6 + rng.normal(size=(157, 5))
    fitted = resampler.fit(X)
    xbar, C = centred_means(X, fitted.plan_, 12)
    ulp = np.spacing(1e6)
    for b in range(12):
        rows = X[fitted.replicate(b).indices]
        exact = [
            float(sum(map(Fraction, rows[:, c])) / rows.shape[0]) for c in range(5)
        ]
        numpy_mean = [np.mean(rows[:, c]) for c in range(5)]
        assert np.max(np.abs(xbar + C[b] - exact)) <= 2 * ulp
        assert np.max(np.abs(xbar + C[b] - numpy_mean)) <= 4 * ulp


@pytest.mark.parametrize("k", [1, 8, 13])
def test_fused_means_follow_the_stated_summation_rule(k):
    """Bit for bit: prefix sums of the data centred by ``column_means`` in row
    order, each block adds
    ``(P[e] - P[s]) + P[0]`` (``(P[T] - P[s]) + P[e - T]`` when it wraps) to an
    accumulator started at 0.0, blocks in draw order, then one division by T."""
    rng = np.random.default_rng(4)
    T, L = 103, 7
    X = rng.normal(size=(T, k)) * 3 + 10
    fitted = CircularBlockBootstrap(5, block_length=L, random_state=1).fit(X)
    _, C = centred_means(X, fitted.plan_, 5)
    P = np.vstack([np.zeros((1, k)), np.cumsum(X - column_means(X), axis=0)])
    for b in range(5):
        idx = fitted.replicate(b).indices
        acc = np.zeros(k)
        for j in range(0, T, L):
            s, e = int(idx[j]), int(idx[j]) + min(L, T - j)
            a, c = (e, 0) if e <= T else (T, e - T)
            acc = acc + ((P[a] - P[s]) + P[c])
        assert np.array_equal(C[b], acc / T)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9, -1e9])
def test_estimates_and_replicate_means_do_not_lose_the_offset(offset):
    """Data ``offset + 1e-3 N(0, 1)``, T = 20,000: the full-sample means and the
    replicate means within 2 ulps of the data's scale of the correctly rounded
    means (math.fsum); numpy's axis-0 mean is off by tens of ulps here."""
    rng = np.random.default_rng(6)
    X = offset + 1e-3 * rng.normal(size=(20_000, 3))
    ulp = np.spacing(np.max(np.abs(X)))
    fitted = CircularBlockBootstrap(4, block_length=20, random_state=1).fit(X)
    xbar, C = centred_means(X, fitted.plan_, 4)
    exact = [math.fsum(X[:, c]) / X.shape[0] for c in range(3)]
    assert np.max(np.abs(xbar - exact)) <= 2 * ulp
    for b in range(4):
        rows = X[fitted.replicate(b).indices]
        exact = [math.fsum(rows[:, c]) / rows.shape[0] for c in range(3)]
        assert np.max(np.abs(xbar + C[b] - exact)) <= 2 * ulp


def test_tapered_weights_path():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 3)) + 50.0
    fitted = TaperedBlockBootstrap(6, block_length=5, random_state=2).fit(X)
    xbar, C = centred_means(X, fitted.plan_, 6)
    for b in range(6):
        w = fitted.replicate(b).weights
        np.testing.assert_allclose(
            xbar + C[b], np.average(X, axis=0, weights=w), rtol=1e-13
        )


@pytest.mark.parametrize("scheme", ["stationary", "circular"])
def test_bit_identical_across_chunks_and_jobs(scheme):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(131, 11))
    cls = SCHEMES[scheme][0]
    fitted = cls(40, block_length=4, random_state=9).fit(X)
    ref = centred_means(X, fitted.plan_, 40)[1]
    for chunk in (1, 3, 7, 40):
        other = centred_means(X, fitted.plan_, 40, chunk_size=chunk)
        assert np.array_equal(other[1], ref)
    big = cls(20_000, block_length=4, random_state=9).fit(X)
    ref = centred_means(X, big.plan_, 20_000)[1]
    with parallel_config(backend="threading"):
        threaded = centred_means(X, big.plan_, 20_000, n_jobs=2, chunk_size=999)[1]
    assert np.array_equal(threaded, ref)


def test_public_results_do_not_depend_on_n_jobs():
    bm, models = spa_data()
    kw = {"block_length": 5, "n_resamples": 10_000, "random_state": 4}
    one = SPA(**kw).compute(bm, models)
    with parallel_config(backend="threading"):
        two = SPA(n_jobs=2, **kw).compute(bm, models)
    assert np.array_equal(one.null_distribution, two.null_distribution)
    assert one.pvalues_by_type.equals(two.pvalues_by_type)


@pytest.mark.slow
def test_loky_processes_give_the_same_bits():
    """Worker processes (loky: pickled statistic and plan, memory-mapped prefix
    sums) compute the same replicate means as one process (B large enough that
    n_jobs=2 dispatches)."""
    bm, models = spa_data()
    kw = {"block_length": 5, "n_resamples": 10_000, "random_state": 4}
    serial = SPA(**kw).compute(bm, models)
    parallel = SPA(n_jobs=2, **kw).compute(bm, models)
    assert np.array_equal(serial.null_distribution, parallel.null_distribution)


def test_stationary_variance_equals_the_lag_sum():
    """The O(T k) recursion against arch's O(T**2 k) formula, written out."""
    rng = np.random.default_rng(3)
    for T, p in [(40, 0.3), (400, 0.1), (300, 0.01), (200, 1.0)]:
        D = rng.normal(size=(T, 3))
        D[:, 1] = np.cumsum(D[:, 1]) * 0.1  # persistent
        D[:, 2] = np.r_[np.diff(D[:, 2]), 0.0]  # anti-persistent
        D -= D.mean(0)
        direct = (D**2).sum(0) / T
        for i in range(1, T):
            kappa = (1 - i / T) * (1 - p) ** i + (i / T) * (1 - p) ** (T - i)
            direct += 2 * kappa * (D[: T - i] * D[i:]).sum(0) / T
        np.testing.assert_allclose(stationary_variance(D, p), direct, rtol=1e-12)


# --------------------------------------------------------------------------- #
# SPA / Reality Check against arch                                              #
# --------------------------------------------------------------------------- #


def arch_spa(bm, models, scheme, B, L, seed, nested=False):
    indices = skboot_indices(scheme, B, L, seed, bm[:, None] - models)
    a = arch_bs.SPA(bm, models, block_size=L, reps=B, nested=nested)
    a.bootstrap = replay(SCHEMES[scheme][1], indices)(L, a._loss_diff)
    a.compute()
    return a


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("variance", ["asymptotic", "bootstrap"])
def test_spa_equals_arch(scheme, variance):
    bm, models = spa_data()
    B, L, seed = 300, 6, 11
    a = arch_spa(bm, models, scheme, B, L, seed, nested=variance == "bootstrap")
    res = SPA(
        n_resamples=B,
        block_length=L,
        resampler=scheme,
        studentize=False,
        variance=variance,
        random_state=seed,
    ).compute(bm, models)
    assert 0.02 < res.pvalues_by_type["upper"] < 0.98  # an informative comparison
    np.testing.assert_array_equal(res.pvalues_by_type.to_numpy(), a.pvalues.to_numpy())
    np.testing.assert_allclose(
        res.null_distribution, np.max(a._simulated_vals, axis=0), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(res.variances, a._loss_diff_var, rtol=1e-12)
    np.testing.assert_array_equal(res.relevant.to_numpy(), a._valid_columns)
    np.testing.assert_allclose(
        res.statistic, np.max(a._loss_diff.mean(0)), rtol=0, atol=1e-12
    )
    for size in (0.05, 0.2):
        np.testing.assert_allclose(
            res.critical_values(1 - size), a.critical_values(size), rtol=0, atol=1e-12
        )
        for kind in ("lower", "consistent", "upper"):
            assert res.better_models(1 - size, kind) == list(
                a.better_models(size, kind)
            )


def test_studentized_spa_equals_hansen_from_arch_internals():
    """arch computes the variances but does not divide by them; studentize its
    simulated values in the test (Hansen 2005, T_SPA = max_k dbar_k / se_k)."""
    bm, models = spa_data()
    B, L, seed = 300, 6, 11
    a = arch_spa(bm, models, "stationary", B, L, seed)
    res = SPA(n_resamples=B, block_length=L, random_state=seed).compute(bm, models)
    T = bm.shape[0]
    se = np.sqrt(a._loss_diff_var / T)
    sim = np.max(a._simulated_vals / se[:, None, None], axis=0)
    stat = np.max(a._loss_diff.mean(0) / se)
    np.testing.assert_allclose(res.null_distribution, sim, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.statistic, stat, rtol=1e-12)
    np.testing.assert_array_equal(res.pvalues_by_type.to_numpy(), (sim > stat).mean(0))
    assert res.pvalues_by_type["consistent"] != a.pvalues["consistent"]  # arch differs


def test_reality_check_is_the_unstudentized_upper_pvalue():
    bm, models = spa_data()
    kw = {"n_resamples": 200, "block_length": 5, "random_state": 2}
    rc = RealityCheck(**kw).compute(bm, models)
    spa = SPA(studentize=False, **kw).compute(bm, models)
    assert rc.pvalue_type == "upper" and spa.pvalue_type == "consistent"
    assert rc.pvalue == spa.pvalues_by_type["upper"]
    assert np.array_equal(rc.null_distribution, spa.null_distribution)


def test_model_pvalues_are_single_step_adjusted():
    bm, models = spa_data()
    res = SPA(n_resamples=300, block_length=6, random_state=1).compute(bm, models)
    t = res.statistics.to_numpy()
    for j, kind in enumerate(("lower", "consistent", "upper")):
        expect = (res.null_distribution[:, j][None, :] > t[:, None]).mean(axis=1)
        np.testing.assert_array_equal(res.pvalues[kind].to_numpy(), expect)
    assert res.pvalues.to_numpy().min() == pytest.approx(
        res.pvalues_by_type.to_numpy().min()
    )


# --------------------------------------------------------------------------- #
# StepM                                                                         #
# --------------------------------------------------------------------------- #


def stepm_data():
    rng = np.random.default_rng(5)
    T, k = 300, 12
    bm = rng.chisquare(8, T)
    models = rng.chisquare(8, (T, k))
    models[:, :3] -= 2.5  # clearly better
    models[:, 3:5] -= 0.7  # better, found at a later step
    return bm, models


def test_stepm_equals_arch():
    bm, models = stepm_data()
    B, L, seed = 300, 5, 3
    indices = skboot_indices("stationary", B, L, seed, bm[:, None] - models)
    a = arch_bs.StepM(bm, models, size=0.1, block_size=L, reps=B)
    a.spa.bootstrap = replay(arch_bs.StationaryBootstrap, indices)(L, a.spa._loss_diff)
    a.compute()
    res = StepM(
        0.9, n_resamples=B, block_length=L, studentize=False, random_state=seed
    ).compute(bm, models)
    assert res.superior_models == list(a.superior_models)
    assert len(res.steps) >= 2  # a real stepdown


def test_studentized_stepm_steps_follow_the_critical_values():
    bm, models = stepm_data()
    res = StepM(0.9, n_resamples=300, block_length=5, random_state=3).compute(
        bm, models
    )
    spa = res.spa
    t = spa.statistics.to_numpy()
    assert res.steps[0] == spa.better_models(0.9, "consistent")
    chosen = set()
    for step, crit in zip(res.steps, res.critical_values, strict=False):
        assert all(t[j] > crit for j in step)
        chosen.update(step)
        rest = [j for j in range(t.shape[0]) if j not in chosen]
        assert all(t[j] <= res.critical_values[-1] for j in rest)
    assert sorted(chosen) == res.superior_models
    # the adjusted p-values select the same models here
    assert sorted(np.flatnonzero(res.pvalues.to_numpy() <= 0.1)) == res.superior_models


def test_stepm_terminates_when_every_model_is_selected():
    """arch issue 862: arch 8 loops into an empty SPA when the last models are
    selected at a later step."""
    rng = np.random.default_rng(6)
    bm = rng.chisquare(8, 300)
    models = rng.chisquare(8, (300, 6)) - np.array([9.0, 9.0, 9.0, 9.0, 9.0, 0.75])
    res = StepM(0.9, n_resamples=200, block_length=5, random_state=0).compute(
        bm, models
    )
    assert res.superior_models == list(range(6))
    assert len(res.steps) >= 2


# --------------------------------------------------------------------------- #
# MCS                                                                           #
# --------------------------------------------------------------------------- #


def mcs_data(seed=8, T=260, k=8):
    rng = np.random.default_rng(seed)
    return rng.chisquare(8, (T, k)) + np.linspace(0.0, 1.2, k)


def arch_mcs(L, method, scheme, B, block, seed):
    indices = skboot_indices(scheme, B, block, seed, L)
    a = arch_bs.MCS(L, 0.1, reps=B, block_size=block, method=method)
    a.bootstrap = replay(SCHEMES[scheme][1], indices)(block, np.arange(L.shape[0]))
    a.compute()
    return a


@pytest.mark.parametrize("method", ["R", "max"])
@pytest.mark.parametrize("scheme", ["stationary", "circular"])
def test_mcs_equals_arch(method, scheme):
    L = mcs_data()
    B, block, seed = 300, 6, 5
    a = arch_mcs(L, method, scheme, B, block, seed)
    res = MCS(
        0.9,
        statistic=method,
        n_resamples=B,
        block_length=block,
        resampler=scheme,
        random_state=seed,
    ).compute(L)
    assert list(res.pvalues.index) == list(a.pvalues.index)
    np.testing.assert_array_equal(res.pvalues.to_numpy(), a.pvalues["Pvalue"])
    assert res.included == a.included and res.excluded == a.excluded
    assert 0 < len(res.included) < L.shape[1]
    if method == "R":
        # the step statistics from arch's own variances
        t = (L.mean(0)[:, None] - L.mean(0)[None, :]) / np.sqrt(a._variances)
        order = res.pvalues.index.to_numpy()
        for s in range(L.shape[1] - 1):
            keep = order[s:]
            expect = np.max(t[np.ix_(keep, keep)])
            np.testing.assert_allclose(res.statistics.iloc[s], expect, rtol=1e-12)


def test_mcs_every_model_has_a_pvalue():
    """arch pull request 96: the survivor's p-value is 1, never NaN."""
    L = mcs_data()
    for method in ("R", "max"):
        res = MCS(
            0.95, statistic=method, n_resamples=100, block_length=5, random_state=0
        ).compute(L)
        assert res.pvalues.notna().all() and res.pvalues.iloc[-1] == 1.0
        assert np.all(np.diff(res.pvalues.to_numpy()) >= 0)
        assert sorted(res.included + res.excluded) == list(range(L.shape[1]))


# --------------------------------------------------------------------------- #
# against arch on its own streams, and size under the null                       #
# --------------------------------------------------------------------------- #


@pytest.mark.slow
def test_pvalues_within_monte_carlo_error_of_arch_own_streams():
    """Different streams, same law: with B = 4000 each p-value has a Monte Carlo
    sd <= 0.008, so a difference above 0.06 (over 5 sd of the difference) would
    fail with probability below 1e-6 per comparison."""
    bm, models = spa_data(T=400)
    B, L = 4000, 8
    for scheme in ("stationary", "circular"):
        ours = SPA(
            n_resamples=B,
            block_length=L,
            resampler=scheme,
            studentize=False,
            random_state=1,
        ).compute(bm, models)
        theirs = arch_bs.SPA(
            bm, models, block_size=L, reps=B, bootstrap=SCHEMES[scheme][2], seed=2
        )
        theirs.compute()
        assert np.max(np.abs(ours.pvalues_by_type - theirs.pvalues)) < 0.06
    L_ = mcs_data(T=400)
    ours = MCS(0.9, n_resamples=B, block_length=L, random_state=1).compute(L_)
    theirs = arch_bs.MCS(L_, 0.1, reps=B, block_size=L, seed=2)
    theirs.compute()
    diff = ours.pvalues - theirs.pvalues["Pvalue"].reindex(ours.pvalues.index)
    assert np.max(np.abs(diff)) < 0.06


def test_spa_size_under_the_null():
    """iid losses, every model as good as the benchmark: the consistent p-value
    is (asymptotically, conservatively) at most uniform.  60 runs at 10%: more
    than 14 rejections has probability 0.011 under exact size 0.1 (binomial)."""
    rng = np.random.default_rng(12)
    rejections = 0
    for _ in range(60):
        bm = rng.normal(size=200)
        models = rng.normal(size=(200, 5))
        res = SPA(n_resamples=199, block_length=1.0, random_state=rng).compute(
            bm, models
        )
        rejections += res.pvalue <= 0.1
    assert rejections <= 14


def test_spa_power():
    rng = np.random.default_rng(13)
    bm = rng.normal(size=300)
    models = rng.normal(size=(300, 5))
    models[:, 2] -= 0.4
    res = SPA(n_resamples=299, block_length=1.0, random_state=0).compute(bm, models)
    assert res.pvalue < 0.01 and res.better_models(0.95) == [2]


def test_top_level_exports():
    for name in ("SPA", "StepM", "MCS", "RealityCheck"):
        assert getattr(skboot, name) is getattr(skboot.multiple_comparison, name)
