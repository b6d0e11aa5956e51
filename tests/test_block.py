"""Tests of the block bootstraps (skboot.resamplers._block, skboot._kernels.block)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from scipy.signal import lfilter
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_validate

from skboot import (
    Bootstrap,
    CircularBlockBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    StationaryBootstrap,
    TaperedBlockBootstrap,
    bootstrap,
    optimal_block_length,
)
from skboot._kernels.block import stationary_blocks
from skboot._random import (
    PURPOSE,
    check_random_state,
    reference_indices,
    reference_uniforms,
)
from skboot.resamplers._block import trapezoid_taper

INDEX_SCHEMES = [
    MovingBlockBootstrap,
    CircularBlockBootstrap,
    NonOverlappingBlockBootstrap,
    StationaryBootstrap,
]
ALL_SCHEMES = [*INDEX_SCHEMES, TaperedBlockBootstrap]


def make(cls, n_resamples=20, block_length=5, random_state=0, **kw):
    """A resampler of class ``cls``; stationary gets a float mean length."""
    if cls is StationaryBootstrap and not isinstance(block_length, str):
        block_length = float(block_length)
    return cls(n_resamples, block_length=block_length, random_state=random_state, **kw)


def ar1(phi: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """Stationary AR(1) with unit innovation variance."""
    e = rng.standard_normal(n)
    zi = np.array([phi * rng.standard_normal() / math.sqrt(1.0 - phi * phi)])
    return lfilter([1.0], [1.0, -phi], e, zi=zi)[0]


# ---------------------------------------------------------------------------
# pure-numpy reference of the stream definition
# ---------------------------------------------------------------------------
def ref_fixed(key, b, n, L, n_starts, stride, wrap):
    k = -(-n // L)
    starts = stride * reference_indices(key, PURPOSE["block_starts"], b, n_starts, k)
    rows = (starts[:, None] + np.arange(L)[None, :]).reshape(-1)[:n]
    if wrap:
        rows %= n
    assert rows.max() < n
    return rows


def ref_stationary_blocks(key, b, n, mean):
    starts = reference_indices(key, PURPOSE["block_starts"], b, n, n)
    u = reference_uniforms(key, PURPOSE["block_lengths"], b, n)
    p = 1.0 / mean
    log_q = -math.inf if p >= 1.0 else math.log1p(-p)
    lengths = []
    total = 0
    for uj in u:
        g = math.log(1.0 - uj) / log_q
        ln = n if g >= n else 1 + math.floor(g)
        ln = min(ln, n - total)
        lengths.append(ln)
        total += ln
        if total == n:
            break
    return starts[: len(lengths)], np.array(lengths)


def ref_stationary(key, b, n, mean):
    starts, lengths = ref_stationary_blocks(key, b, n, mean)
    rows = np.concatenate(
        [(s + np.arange(ln)) % n for s, ln in zip(starts, lengths, strict=True)]
    )
    assert rows.shape == (n,)
    return rows


def reference(resampler, n, b):
    """Replicate b of a fitted resampler, from the numpy reference."""
    key = resampler.key_
    L = resampler.block_length_
    if isinstance(resampler, StationaryBootstrap):
        return ref_stationary(key, b, n, L)
    if isinstance(resampler, CircularBlockBootstrap):
        return ref_fixed(key, b, n, L, n, 1, True)
    if isinstance(resampler, NonOverlappingBlockBootstrap):
        return ref_fixed(key, b, n, L, n // L, L, False)
    return ref_fixed(key, b, n, L, n - L + 1, 1, False)  # moving, tapered


@pytest.mark.parametrize("cls", ALL_SCHEMES)
@pytest.mark.parametrize(("n", "L"), [(20, 5), (23, 5), (50, 1), (41, 20), (37, 7)])
def test_indices_match_reference(cls, n, L):
    res = make(cls, n_resamples=10**6, block_length=L, random_state=7)
    res.fit(np.zeros(n))
    for b in (0, 1, 5, 2**20 + 3):
        assert_array_equal(res.plan_.indices(b), reference(res, n, b))


def test_stationary_lengths_reference_and_truncation():
    key = check_random_state(3)
    n, mean = 200, 4.5
    res = StationaryBootstrap(5, block_length=mean, random_state=3).fit(np.zeros(n))
    assert res.key_ == key
    starts, lengths = ref_stationary_blocks(key, 2, n, mean)
    assert lengths.sum() == n
    assert lengths.min() >= 1
    k_starts, k_lengths = kernel_blocks(res.plan_, 2)
    assert_array_equal(k_starts, starts)
    assert_array_equal(k_lengths, lengths)
    # mean length 1 is the iid bootstrap: every block has length 1
    iid = StationaryBootstrap(1, block_length=1.0, random_state=3).fit(np.zeros(n))
    starts1, lengths1 = ref_stationary_blocks(key, 0, n, 1.0)
    assert_array_equal(lengths1, np.ones(n))
    assert_array_equal(iid.replicate(0).indices, starts1)


def kernel_blocks(plan, b):
    """(starts, lengths) of replicate b from the numba kernel."""
    n = plan.n_samples
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    seed_s, seed_l, gamma = plan._seeds()
    J = stationary_blocks(seed_s, seed_l, gamma, b, n, *plan._p_log_q, starts, lens)
    return starts[:J], lens[:J]


def test_stationary_block_lengths_are_geometric():
    """The lengths of the (uncut) blocks follow Geometric(p) on {1, 2, ...}: a
    chi-square goodness-of-fit test on 40 replicates' blocks (alpha = 1e-3, the
    false-failure probability)."""
    n, mean = 4000, 6.0
    plan = (
        StationaryBootstrap(40, block_length=mean, random_state=11)
        .fit(np.zeros(n))
        .plan_
    )
    lengths = np.concatenate([kernel_blocks(plan, b)[1][:-1] for b in range(40)])
    p = 1.0 / mean
    top = 25
    observed = np.bincount(np.minimum(lengths, top), minlength=top + 1)[1:]
    k = np.arange(1, top)
    probs = np.append(p * (1 - p) ** (k - 1), (1 - p) ** (top - 1))
    expected = probs * lengths.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3


# ---------------------------------------------------------------------------
# conventions: last block, n not divisible by L, non-overlapping tail
# ---------------------------------------------------------------------------
def runs(idx, L, n, wrap):
    """Split a replicate into its blocks and check each is consecutive."""
    blocks = [idx[j : j + L] for j in range(0, idx.shape[0], L)]
    for blk in blocks:
        expect = blk[0] + np.arange(blk.shape[0])
        assert_array_equal(blk, expect % n if wrap else expect)
    return blocks


@pytest.mark.parametrize(("n", "L"), [(23, 5), (25, 5), (11, 5)])
def test_fixed_block_conventions(n, L):
    k = -(-n // L)
    r = n - (k - 1) * L
    for cls in (
        MovingBlockBootstrap,
        CircularBlockBootstrap,
        NonOverlappingBlockBootstrap,
    ):
        res = cls(30, block_length=L, random_state=1).fit(np.zeros(n))
        for b in range(30):
            idx = res.replicate(b).indices
            assert idx.shape == (n,)
            blocks = runs(idx, L, n, wrap=cls is CircularBlockBootstrap)
            assert len(blocks) == k
            assert blocks[-1].shape[0] == r  # last block keeps its first r rows
            starts = np.array([blk[0] for blk in blocks])
            if cls is MovingBlockBootstrap:
                assert starts.max() <= n - L
            if cls is NonOverlappingBlockBootstrap:
                assert (starts % L == 0).all() and starts.max() <= (n // L - 1) * L


def test_non_overlapping_tail_is_never_drawn():
    n, L = 23, 5  # rows 20, 21, 22 belong to no block
    res = NonOverlappingBlockBootstrap(200, block_length=L, random_state=0).fit(
        np.zeros(n)
    )
    total = sum(res.replicate(b).counts for b in range(200))
    assert (total[20:] == 0).all() and (total[:20] > 0).all()
    for b in range(5):
        assert {20, 21, 22} <= set(res.replicate(b).oob.tolist())


def test_moving_edges_drawn_less_circular_uniform():
    n, L, B = 40, 8, 3000
    mbb = MovingBlockBootstrap(B, block_length=L, random_state=2).fit(np.zeros(n))
    cbb = CircularBlockBootstrap(B, block_length=L, random_state=2).fit(np.zeros(n))
    W = np.empty((B, n))
    mbb.plan_.fill_weights_chunk(0, W)
    assert W[:, 0].mean() < 0.3 * W[:, n // 2].mean()
    cbb.plan_.fill_weights_chunk(0, W)
    # circular: every row has expected count 1; the sd of a column mean is
    # 0.016 (measured), so 0.25 is a > 10 sigma margin for each of the 40 rows.
    assert_allclose(W.mean(axis=0), 1.0, atol=0.25)


def test_stationary_rows_uniform_and_replicate_length():
    n = 30
    res = StationaryBootstrap(2000, block_length=4.0, random_state=5).fit(np.zeros(n))
    W = np.empty((2000, n))
    res.plan_.fill_weights_chunk(0, W)
    assert_array_equal(W.sum(axis=1), n)
    # sd of a column mean is 0.02 (measured): 0.15 is 7 sigma for each row
    assert_allclose(W.mean(axis=0), 1.0, atol=0.15)


# ---------------------------------------------------------------------------
# plan outputs agree with each other and do not depend on chunking
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", INDEX_SCHEMES)
def test_indices_counts_chunks_consistent(cls):
    n, nb = 57, 9
    res = make(cls, 100, block_length=6, random_state=4).fit(np.zeros(n))
    plan = res.plan_
    idx = np.empty((nb, n), dtype=plan.index_dtype)
    plan.fill_indices_chunk(11, idx)
    W = np.empty((nb, n))
    plan.fill_weights_chunk(11, W)
    for k in range(nb):
        b = 11 + k
        assert_array_equal(idx[k], plan.indices(b))
        assert_array_equal(W[k], np.bincount(idx[k], minlength=n))
        assert_array_equal(plan.counts(b), W[k])
        rep = res.replicate(b)
        assert_array_equal(rep.oob, np.flatnonzero(W[k] == 0))
        assert_array_equal(rep.weights, W[k])


@pytest.mark.parametrize("cls", ALL_SCHEMES)
@pytest.mark.parametrize("d", [1, 3])
def test_fused_moments_match_rows_and_chunking(cls, d):
    rng = np.random.default_rng(d)
    n, nb = 203, 12
    X = np.ascontiguousarray(rng.normal(size=(n, d)) * [1.0, 10.0, 0.1][:d] + 5.0)
    res = make(cls, 100, block_length=9, random_state=8).fit(X)
    plan = res.plan_
    o1, o2, ow = np.empty((nb, d)), np.empty((nb, d)), np.empty(nb)
    plan.fused_moments(X, 3, True, o1, o2, ow)
    W = np.empty((nb, n))
    plan.fill_weights_chunk(3, W)
    ref1 = W @ X
    ref2 = W @ (X * X)
    # prefix-sum differences round differently from row sums: ~1e-15 relative
    # per block, well inside 1e-12.
    assert_allclose(o1, ref1, rtol=1e-12, atol=1e-12 * (np.abs(W) @ np.abs(X)).max())
    assert_allclose(o2, ref2, rtol=1e-12)
    assert_allclose(ow, n, rtol=1e-14)
    if plan.layout != "weights":
        for k in range(nb):
            rows = X[plan.indices(3 + k)]
            assert_allclose(o1[k], rows.sum(axis=0), rtol=1e-12)
            assert_allclose(o2[k], (rows * rows).sum(axis=0), rtol=1e-12)
            assert ow[k] == n
    # a replicate's value depends only on b: bit-identical one at a time
    for k in range(nb):
        a1, a2, aw = np.empty((1, d)), np.empty((1, d)), np.empty(1)
        plan.fused_moments(X, 3 + k, True, a1, a2, aw)
        assert_array_equal(a1[0], o1[k])
        assert_array_equal(a2[0], o2[k])
    # want2=False leaves the first moments unchanged
    b1, b2, bw = np.empty((nb, d)), np.empty((nb, d)), np.empty(nb)
    plan.fused_moments(X, 3, False, b1, b2, bw)
    assert_array_equal(b1, o1)


# ---------------------------------------------------------------------------
# tapered block bootstrap
# ---------------------------------------------------------------------------
def test_trapezoid_taper():
    w = trapezoid_taper(10, 0.43)
    t = (np.arange(10) + 0.5) / 10
    expect = np.where(t < 0.43, t / 0.43, np.where(t > 0.57, (1 - t) / 0.43, 1.0))
    assert_allclose(w, expect, rtol=1e-15)
    assert_allclose(w, w[::-1], rtol=1e-15)
    assert_array_equal(trapezoid_taper(1), [1.0])
    # c = 0.5 is the triangular window
    assert_allclose(trapezoid_taper(4, 0.5), [0.25, 0.75, 0.75, 0.25])


@pytest.mark.parametrize(("n", "L"), [(40, 8), (43, 8), (9, 4)])
def test_tapered_weights_are_paparoditis_politis(n, L):
    """Weighted statistics with the plan's weights equal the statistic of the
    pseudo-series Y*_t = mean + cscale * w[t mod L] * (X*_t - mean)."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=n) + 2.0
    res = TaperedBlockBootstrap(10, block_length=L, random_state=6).fit(x)
    plan = res.plan_
    w = trapezoid_taper(L, 0.43)
    tap = np.resize(w, n)  # taper of position t: w[t mod L]
    if n % L == 0:  # Paparoditis & Politis' normalisation sqrt(L) / ||w||_2
        assert_allclose(plan.cscale, math.sqrt(L) / np.linalg.norm(w), rtol=1e-14)
    assert_allclose(np.mean((plan.cscale * tap) ** 2), 1.0, rtol=1e-14)
    mbb = MovingBlockBootstrap(10, block_length=L, random_state=6).fit(x)
    for b in range(10):
        W = res.replicate(b).weights
        idx = res.replicate(b).indices
        assert_array_equal(idx, mbb.replicate(b).indices)  # same blocks as MBB
        assert (W >= 0).all()
        assert_allclose(W.sum(), n, rtol=1e-14)
        A = np.bincount(idx, weights=tap, minlength=n)
        assert_allclose(W, plan.base + plan.cscale * A, rtol=1e-14, atol=1e-14)
        for h in (x, x * x):  # smooth functions of means: taper h(X) - mean(h)
            y = h.mean() + plan.cscale * tap * (h[idx] - h.mean())
            assert_allclose(np.average(h, weights=W), y.mean(), rtol=1e-13)


def test_tapered_split_raises_and_statistics():
    x = ar1(0.5, 300, np.random.default_rng(0))
    tbb = TaperedBlockBootstrap(50, block_length=10, random_state=0)
    with pytest.raises(ValueError, match=r"TaperedBlockBootstrap\.split\(\) is not"):
        tbb.split(x)
    with pytest.raises(
        ValueError,
        match="not available with a resampler whose replicates are continuous weights",
    ):
        bootstrap(x, "median", resampler=tbb)

    def wmean(a, weights=None):
        return np.average(a, weights=weights)

    def wvar(a, weights=None):
        m = np.average(a, weights=weights)
        return np.average((a - m) ** 2, weights=weights)

    fused = bootstrap(x, "mean", resampler=tbb).distribution
    assert_allclose(fused, bootstrap(x, wmean, resampler=tbb).distribution, rtol=1e-12)
    var = bootstrap(x, "var", resampler=tbb).distribution
    assert_allclose(var, bootstrap(x, wvar, resampler=tbb).distribution, rtol=1e-10)
    assert_array_equal(
        fused, bootstrap(x, "mean", resampler=tbb, chunk_size=1).distribution
    )


# ---------------------------------------------------------------------------
# bootstrap(): statistics, chunking, BCa with the block jackknife
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", INDEX_SCHEMES)
def test_bootstrap_statistics(cls):
    x = ar1(0.5, 240, np.random.default_rng(1)) + 1.0
    res = make(cls, 300, block_length=12, random_state=3)
    out = {}
    for stat in ("mean", "var", "median"):
        a = bootstrap(x, stat, resampler=res)
        b = bootstrap(x, stat, resampler=res, chunk_size=1)
        assert_array_equal(a.distribution, b.distribution)
        out[stat] = a.distribution
    plain = {
        "mean": lambda a: float(np.mean(a)),
        "var": lambda a: float(np.var(a)),
        "median": lambda a: float(np.median(a)),
    }
    for stat, func in plain.items():
        got = bootstrap(x, func, resampler=res, vectorized=False).distribution
        assert_allclose(out[stat], got, rtol=1e-12)
    vec = bootstrap(x, np.mean, resampler=res)  # vectorized callable (axis=-1)
    assert_allclose(vec.distribution, out["mean"], rtol=1e-12)
    assert_array_equal(
        vec.distribution,
        bootstrap(x, np.mean, resampler=res, chunk_size=7).distribution,
    )
    # the same replicates as the splitter
    fitted = clone(res).fit(x)
    for b in (0, 17, 299):
        assert_allclose(
            out["mean"][b], x[fitted.replicate(b).indices].mean(), rtol=1e-12
        )


@pytest.mark.parametrize("cls", ALL_SCHEMES)
def test_bca_uses_block_jackknife(cls):
    x = ar1(0.5, 203, np.random.default_rng(2)) + 1.0
    L = 10
    result = bootstrap(
        x, "mean", resampler=make(cls, 500, block_length=L, random_state=1)
    )
    plan = result._context.plan
    codes = plan.jackknife_groups
    assert codes.dtype == np.int64
    assert_array_equal(codes, np.minimum(np.arange(203) // L, 203 // L - 1))
    jk = result.jackknife_values()
    assert jk.shape == (203 // L, 1)
    # delete-one-block means
    assert_allclose(jk[0, 0], x[L:].mean(), rtol=1e-12)
    assert_allclose(jk[-1, 0], x[: (203 // L - 1) * L].mean(), rtol=1e-12)
    ci = result.confidence_interval(method="bca")
    assert ci.low < result.estimate < ci.high
    pct = result.confidence_interval(method="percentile")
    assert abs(ci.low - pct.low) < 0.5 * (pct.high - pct.low)


def test_stationary_jackknife_unit_is_ceil_mean():
    res = StationaryBootstrap(5, block_length=4.5, random_state=0).fit(np.zeros(23))
    assert_array_equal(
        res.plan_.jackknife_groups, np.minimum(np.arange(23) // 5, 23 // 5 - 1)
    )


@pytest.mark.parametrize("cls", ALL_SCHEMES)
def test_n_jobs_and_2d_data(cls):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 2))
    res = make(cls, 64, block_length=7, random_state=2)
    one = bootstrap(X, "std", resampler=res, statistic_kwargs={"ddof": 1})
    with parallel_config(backend="threading"):
        two = bootstrap(X, "std", resampler=res, statistic_kwargs={"ddof": 1}, n_jobs=2)
    assert_array_equal(one.distribution, two.distribution)
    assert one.distribution.shape == (64, 2)
    col = bootstrap(X[:, 1], "std", resampler=res, statistic_kwargs={"ddof": 1})
    assert_allclose(one.distribution[:, 1], col.distribution, rtol=1e-12)


# ---------------------------------------------------------------------------
# block_length="auto"
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL_SCHEMES)
def test_auto_block_length(cls):
    rng = np.random.default_rng(4)
    x = ar1(0.6, 1000, rng)
    X2 = np.column_stack([rng.standard_normal(1000), x])
    est = optimal_block_length(X2)
    res = cls(10, random_state=0)  # block_length="auto" is the default
    res.fit(X2)
    if cls is StationaryBootstrap:
        expect = float(np.max(est.stationary))
        assert res.block_length_ == pytest.approx(expect, rel=1e-14)
    else:
        expect = math.ceil(float(np.max(est.circular)))
        assert res.block_length_ == expect and isinstance(res.block_length_, int)
    assert res.plan_.auto and res.plan_.block_length == res.block_length_
    # the estimate is taken where the values are: split, fit and bootstrap agree
    series = pd.Series(x, name="y")
    r1 = clone(res).fit(series)
    r2 = clone(res).fit(x)
    assert r1.block_length_ == r2.block_length_
    if cls is not TaperedBlockBootstrap:
        first = next(res.split(X2))[0]
        assert_array_equal(first, res.replicate(0).indices)
    assert np.isfinite(bootstrap(series, "mean", resampler=res).standard_error)


@pytest.mark.parametrize("cls", ALL_SCHEMES)
def test_auto_block_length_is_recorded_on_the_run(cls):
    """bootstrap() fits a copy of the resampler: that copy records block_length_
    and the result records the same length, as a float (in to_dict too)."""
    x = ar1(0.5, 400, np.random.default_rng(8))
    res = cls(30, random_state=1)
    expect = clone(res).fit(x).block_length_
    out = bootstrap(x, "mean", resampler=res)
    assert out.block_length == float(expect) and type(out.block_length) is float
    assert out._context.resampler.block_length_ == expect
    assert not hasattr(res, "block_length_")  # the caller's object is not fitted
    assert out.to_dict(distribution=False)["block_length"] == float(expect)
    fixed = bootstrap(x, "mean", resampler=make(cls, 30, block_length=7))
    assert fixed.block_length == 7.0
    assert bootstrap(x, "mean", n_resamples=30).block_length is None


def test_metric_ci_records_the_block_length():
    from skboot import metric_ci

    rng = np.random.default_rng(9)
    y = rng.normal(size=300)
    pred = y + ar1(0.6, 300, rng)
    res = metric_ci(
        y,
        pred,
        "mean_squared_error",
        resampler=StationaryBootstrap(50, random_state=0),
    )
    expect = StationaryBootstrap(50, random_state=0).fit(y).block_length_
    assert res.result.block_length == pytest.approx(expect)


def test_auto_white_noise_gives_short_blocks():
    x = np.random.default_rng(5).standard_normal(500)
    assert MovingBlockBootstrap(3).fit(x).block_length_ >= 1
    assert StationaryBootstrap(3).fit(x).block_length_ >= 1.0


# ---------------------------------------------------------------------------
# scikit-learn citizenship
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", INDEX_SCHEMES)
def test_split_replicate_and_cross_validate(cls):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(120, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(size=120)
    res = make(cls, 6, block_length=10, random_state=9)
    pairs = list(res.split(X, y))
    assert len(pairs) == res.get_n_splits() == 6
    fitted = clone(res).fit(X)
    for b, (train, test) in enumerate(pairs):
        assert_array_equal(train, fitted.replicate(b).indices)
        assert_array_equal(test, fitted.replicate(b).oob)
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).size == 120
    cv = cross_validate(Ridge(), X, y, cv=res)
    assert cv["test_score"].shape == (6,)
    cv_auto = cross_validate(Ridge(), X, y, cv=cls(4, random_state=0))
    assert np.isfinite(cv_auto["test_score"]).all()
    assert clone(res).get_params() == res.get_params()


def test_params_and_repr():
    tbb = TaperedBlockBootstrap(10, block_length=4, taper_c=0.3, random_state=0)
    assert clone(tbb).get_params()["taper_c"] == 0.3
    assert "taper_c=0.3" in repr(tbb)
    assert set(MovingBlockBootstrap().get_params()) == {
        "n_resamples",
        "block_length",
        "random_state",
    }
    sb = StationaryBootstrap(5, block_length=2.5)
    sb.split(np.zeros(10))
    assert not hasattr(sb, "block_length_")  # split never mutates


def test_nan_policy():
    """NaN is refused where the values are used: always with block_length="auto"
    and by bootstrap()'s built-in statistics; an explicit block_length splits a
    series with NaN (only its length is used, as by scikit-learn splitters)."""
    x = np.arange(30.0)
    x[4] = np.nan
    train, _ = next(MovingBlockBootstrap(1, block_length=3, random_state=0).split(x))
    assert train.shape == (30,)
    with pytest.raises(
        ValueError, match=r"'data' parameter of bootstrap contains 1 row\(s\) with NaN"
    ):
        bootstrap(x, "mean", resampler=MovingBlockBootstrap(5, block_length=3))
    out = bootstrap(
        x,
        np.nanmean,
        resampler=MovingBlockBootstrap(5, block_length=3, random_state=0),
        nan_policy="propagate",
    )
    assert np.isfinite(out.distribution).all()


# ---------------------------------------------------------------------------
# bad input: one clear ValueError at the call, for split, fit and bootstrap
# ---------------------------------------------------------------------------
N = 100
X_OK = ar1(0.5, N, np.random.default_rng(7))
X_NAN = X_OK.copy()
X_NAN[[3, 50]] = np.nan
X_SHORT = np.arange(6.0)
X_CONST = np.ones(N)
X_TEXT = np.array(["a"] * N)

MBB, SB, TBB = "MovingBlockBootstrap", "StationaryBootstrap", "TaperedBlockBootstrap"
FIXED_ANY = r"must be 'auto' or an int in \[1, n_samples // 2\]"
FIXED_N = r"must be 'auto' or an int in \[1, 50\] \(at most half the 100 samples"
REAL_ANY = r"must be 'auto' or a real number in \[1, n_samples / 2\]"
REAL_N = r"must be 'auto' or a real number in \[1, 50\] \(at most half"

BAD_INPUT = [
    # (class, kwargs, X, message)
    (
        MovingBlockBootstrap,
        {"block_length": 0},
        X_OK,
        f"'block_length' parameter of {MBB} {FIXED_ANY}. Got 0 instead",
    ),
    (MovingBlockBootstrap, {"block_length": -3}, X_OK, f"{FIXED_ANY}. Got -3 instead"),
    (
        CircularBlockBootstrap,
        {"block_length": 2.5},
        X_OK,
        f"{FIXED_ANY}. Got 2.5 instead",
    ),
    (
        NonOverlappingBlockBootstrap,
        {"block_length": 4.0},
        X_OK,
        f"{FIXED_ANY}. Got 4.0 instead",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": "10"},
        X_OK,
        f"{FIXED_ANY}. Got '10' instead",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": "Auto"},
        X_OK,
        f"{FIXED_ANY}. Got 'Auto' instead",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": True},
        X_OK,
        f"{FIXED_ANY}. Got True instead",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": None},
        X_OK,
        f"{FIXED_ANY}. Got None instead",
    ),
    (
        TaperedBlockBootstrap,
        {"block_length": 1.5},
        X_OK,
        f"'block_length' parameter of {TBB} {FIXED_ANY}. Got 1.5",
    ),
    (MovingBlockBootstrap, {"block_length": 101}, X_OK, f"{FIXED_N}.*Got 101 instead"),
    (
        CircularBlockBootstrap,
        {"block_length": 60},
        X_OK,
        r"'X' parameter of CircularBlockBootstrap must hold at least 2 blocks of block_length=60, i.e. at least 120 samples. Got 100 samples instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": 0.5},
        X_OK,
        f"'block_length' parameter of {SB} {REAL_ANY}. Got 0.5 instead",
    ),
    (StationaryBootstrap, {"block_length": 0}, X_OK, f"{REAL_ANY}. Got 0 instead"),
    (
        StationaryBootstrap,
        {"block_length": -2.0},
        X_OK,
        f"{REAL_ANY}. Got -2.0 instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": float("nan")},
        X_OK,
        f"{REAL_ANY}. Got nan instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": float("inf")},
        X_OK,
        f"{REAL_ANY}. Got inf instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": np.True_},
        X_OK,
        f"{REAL_ANY}. Got np.True_ instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": "long"},
        X_OK,
        f"{REAL_ANY}. Got 'long' instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": 150.0},
        X_OK,
        f"{REAL_N}.*Got 150.0 instead",
    ),
    (
        StationaryBootstrap,
        {"block_length": 50.5},
        X_OK,
        r"'X' parameter of StationaryBootstrap must hold at least 2 blocks of block_length=50.5, i.e. at least 101 samples. Got 100",
    ),
    (
        TaperedBlockBootstrap,
        {"block_length": 5, "taper_c": 0.0},
        X_OK,
        r"'taper_c' parameter of TaperedBlockBootstrap must be a float in \(0, 0.5\]. Got 0.0 instead",
    ),
    (
        TaperedBlockBootstrap,
        {"block_length": 5, "taper_c": 0.6},
        X_OK,
        r"'taper_c' .* Got 0.6 instead",
    ),
    (
        TaperedBlockBootstrap,
        {"block_length": 5, "taper_c": True},
        X_OK,
        r"'taper_c' .* Got True instead",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": 5, "n_resamples": 0},
        X_OK,
        r"'n_resamples' parameter of MovingBlockBootstrap must be an int .*Got 0 instead",
    ),
    (
        MovingBlockBootstrap,
        {},
        X_NAN,
        rf"'X' parameter of {MBB} must contain only finite values when block_length='auto' .*Got 2 NaN",
    ),
    (
        StationaryBootstrap,
        {},
        X_NAN,
        rf"'X' parameter of {SB} must contain only finite values when block_length='auto'",
    ),
    (
        MovingBlockBootstrap,
        {},
        X_SHORT,
        rf"'block_length' parameter of {MBB} is 'auto', .*at least 9 observations. Got 6",
    ),
    (
        CircularBlockBootstrap,
        {},
        X_CONST,
        r"is 'auto', which estimates it from X with optimal_block_length; that failed: .*constant",
    ),
    (
        TaperedBlockBootstrap,
        {},
        X_TEXT,
        rf"'X' parameter of {TBB} must be numeric when block_length='auto'",
    ),
    (
        MovingBlockBootstrap,
        {"block_length": 4},
        X_OK[:7],
        rf"'X' parameter of {MBB} must hold at least 2 blocks of block_length=4, i.e. at least 8 samples. Got 7",
    ),
]


@pytest.mark.parametrize("entry", ["split", "fit", "bootstrap"])
@pytest.mark.parametrize(("cls", "kwargs", "X", "message"), BAD_INPUT)
def test_bad_input(cls, kwargs, X, message, entry):
    kw = {"n_resamples": 5, "random_state": 0, **kwargs}
    res = cls(**kw)
    with pytest.raises(ValueError, match=message):
        if entry == "split":
            res.split(X)  # fails at the call, not at the first next()
        elif entry == "fit":
            res.fit(X)
        else:
            bootstrap(X, np.mean, resampler=res, nan_policy="propagate")


def test_get_n_splits_validates_parameters():
    with pytest.raises(ValueError, match=re.escape("Got 2.5 instead")):
        MovingBlockBootstrap(5, block_length=2.5).get_n_splits()


# ---------------------------------------------------------------------------
# statistics: standard error of the mean of an AR(1) series
# ---------------------------------------------------------------------------
SE_SCHEMES = {
    "moving": MovingBlockBootstrap,
    "circular": CircularBlockBootstrap,
    "non-overlapping": NonOverlappingBlockBootstrap,
    "stationary": StationaryBootstrap,
    "tapered": TaperedBlockBootstrap,
}


@pytest.mark.parametrize("block_length", [50, "auto"])
def test_ar1_standard_error_of_the_mean(block_length):
    """x_t = 0.5 x_{t-1} + e_t, Var(e) = 1, n = 5000: the long-run standard error
    of the mean is sqrt(sigma^2 / (1 - phi)^2 / n) = 0.02828.

    The bootstrap SE of one series has a relative sd of 5-8% (the sampling
    variability of a block variance estimate, ~sqrt(L / n), plus 2% of Monte Carlo
    error at B = 1000), so a single series would miss a 10% band for ~1 seed in
    10.  We therefore average the SE ratio over 16 independent series.  In 400
    simulated series per scheme the 16-series average had mean 0.965-0.992
    (the expected O(1/L) downward bias; tapered is least biased) and sd
    0.010-0.015, so a 10% band leaves >= 5 sd: false-failure probability below
    1e-6 for every scheme.  The iid bootstrap estimates sqrt(sigma_x^2 / n), i.e.
    a ratio sqrt((1 - phi) / (1 + phi)) = 0.577 (sd of the average 0.004).
    """
    phi, n, R = 0.5, 5000, 16
    theory = math.sqrt(1.0 / (1.0 - phi) ** 2 / n)
    ratios = {name: [] for name in [*SE_SCHEMES, "iid"]}
    rng = np.random.default_rng(2024)
    for rep in range(R):
        x = ar1(phi, n, rng)
        for name, cls in SE_SCHEMES.items():
            res = make(cls, 1000, block_length=block_length, random_state=rep)
            ratios[name].append(
                bootstrap(x, "mean", resampler=res).standard_error / theory
            )
        iid = bootstrap(x, "mean", resampler=Bootstrap(1000, random_state=rep))
        ratios["iid"].append(iid.standard_error / theory)
    for name in SE_SCHEMES:
        assert abs(np.mean(ratios[name]) - 1.0) < 0.10, (name, np.mean(ratios[name]))
    iid_ratio = np.mean(ratios["iid"])
    assert abs(iid_ratio - math.sqrt((1 - phi) / (1 + phi))) < 0.03
    assert iid_ratio < 0.7


# ---------------------------------------------------------------------------
# agreement in distribution with arch
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (StationaryBootstrap, "StationaryBootstrap"),
        (MovingBlockBootstrap, "MovingBlockBootstrap"),
        (CircularBlockBootstrap, "CircularBlockBootstrap"),
    ],
)
def test_replicate_means_match_arch(ours, theirs):
    """Two-sample Kolmogorov-Smirnov test of 5000 skboot replicate means against
    5000 of arch's, same series and block length.  Under the null (same law) the
    p-value is uniform, so the test fails falsely with probability 1e-3."""
    arch_bootstrap = pytest.importorskip("arch.bootstrap")
    x = ar1(0.5, 500, np.random.default_rng(8))
    B, L = 5000, 10
    mine = bootstrap(x, "mean", resampler=make(ours, B, block_length=L, random_state=1))
    bs = getattr(arch_bootstrap, theirs)(L, x, seed=12345)
    ref = bs.apply(np.mean, B)[:, 0]
    assert stats.ks_2samp(mine.distribution, ref).pvalue > 1e-3
    # and the spread agrees to Monte Carlo precision (sd ratio within 10%)
    assert abs(mine.distribution.std() / ref.std() - 1.0) < 0.1
