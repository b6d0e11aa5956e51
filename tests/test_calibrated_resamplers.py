"""The calibrated intervals with resamplers other than the iid bootstrap: the
inner replicates of outer replicate ``b`` resample its rows by the run's own
scheme, on the key's "calibration" slot (inner replicate ``c`` is replicate
``b * n_inner + c`` there).

* the nested plans keep the scheme (strata, whole groups, Poisson counts of the
  row copies, blocks of the outer series), and the inner draws are the streams
  they claim to be (checked against the slow reference stream);
* the proportions equal a plain nested loop; the built-in (fused moments) and
  the callable paths give the same interval; bit-identical for any ``n_jobs``
  and ``chunk_size``;
* resamplers whose replicates cannot be resampled the same way are refused
  before any work, with the list of the supported ones;
* the normal mean's calibrated level moves toward Student's t (known case),
  and (``slow``) a coverage simulation.
"""

from __future__ import annotations

import numpy as np
import pytest

from skboot import (
    BayesianBootstrap,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
    bootstrap,
)
from skboot._random import PURPOSE, NestedKey, RootKey, reference_indices
from skboot._run import calibration_inputs

N = 24
Y = np.repeat([0, 1, 2], 8)
GROUPS = np.repeat(np.arange(8), 3)

#: name -> (resampler factory, the extra arguments of ``bootstrap``)
RESAMPLERS = {
    "stratified": (lambda B, s: StratifiedBootstrap(B, random_state=s), {"y": Y}),
    "group": (lambda B, s: GroupBootstrap(B, random_state=s), {"groups": GROUPS}),
    "poisson": (lambda B, s: PoissonBootstrap(B, random_state=s), {}),
    "moving": (
        lambda B, s: MovingBlockBootstrap(B, block_length=4, random_state=s),
        {},
    ),
    "circular": (
        lambda B, s: CircularBlockBootstrap(B, block_length=3, random_state=s),
        {},
    ),
    "nonoverlapping": (
        lambda B, s: NonOverlappingBlockBootstrap(B, block_length=5, random_state=s),
        {},
    ),
    "stationary": (
        lambda B, s: StationaryBootstrap(B, block_length=3.5, random_state=s),
        {},
    ),
}


def _run(name, statistic, B=40, seed=3, x=None, **kw):
    make, extra = RESAMPLERS[name]
    x = np.random.default_rng(11).lognormal(size=N) if x is None else x
    return bootstrap(x, statistic, resampler=make(B, seed), **extra, **kw)


def _nested_loop(res, func, n_inner):
    """``(u, v)`` by a plain loop over the plan's nested plans."""
    ctx = res._context
    plan, x = ctx.plan, ctx.data.arrays[0]
    key = plan.key.nested(PURPOSE["calibration"])
    est = func(x)
    B = res.n_resamples
    u, v = np.empty(B), np.empty(B)
    for b in range(B):
        rows, inner = plan.nested_plan(b, key)
        outer = x[rows]
        star = func(outer)
        values = np.array(
            [func(outer[inner.indices(b * n_inner + c)]) for c in range(n_inner)]
        )
        u[b] = np.count_nonzero(values <= est) / n_inner
        v[b] = np.count_nonzero(values - star <= star - est) / n_inner
    return u, v


# -- the nested plans ----------------------------------------------------------
def test_nested_key_streams():
    key = RootKey(seed=123456789, gamma=0x9E3779B97F4A7C15)
    sub = key.nested(PURPOSE["calibration"])
    assert isinstance(sub, NestedKey)
    # "indices" reads the parent's calibration slot: the iid inner draws of
    # the calibrated intervals are unchanged
    assert sub.stream(PURPOSE["indices"]) == key.stream(PURPOSE["calibration"])
    # the other purposes: a root key whose seed is that slot's seed
    root = RootKey(seed=int(key.purpose_seed(PURPOSE["calibration"])), gamma=key.gamma)
    parents = {int(key.purpose_seed(p)) for p in range(40)}
    for p in ("poisson", "block_starts", "block_lengths"):
        assert sub.purpose_seed(PURPOSE[p]) == root.purpose_seed(PURPOSE[p])
        assert int(sub.purpose_seed(PURPOSE[p])) not in parents


def test_stratified_inner_replicates_keep_the_strata():
    res = _run("stratified", "mean")
    plan = res._context.plan
    key = plan.key.nested(PURPOSE["calibration"])
    for b in (0, 7):
        rows, inner = plan.nested_plan(b, key)
        assert np.array_equal(Y[rows], Y)
        for c in (0, 5):
            assert np.array_equal(Y[rows[inner.indices(b * 10 + c)]], Y)


def test_group_inner_replicates_are_whole_drawn_groups():
    # independent reference: the outer replicate draws 8 groups (purpose
    # "indices"), the inner one 8 of those drawn groups (a group drawn twice
    # counts twice) on the "calibration" slot
    res = _run("group", "mean", seed=5)
    ctx = res._context
    plan, root = ctx.plan, ctx.plan.key
    key = root.nested(PURPOSE["calibration"])
    members = [np.flatnonzero(np.equal(GROUPS, g)) for g in range(8)]
    for b in (0, 3, 9):
        drawn = reference_indices(root, PURPOSE["indices"], b, 8, 8)
        rows, inner = plan.nested_plan(b, key)
        assert np.array_equal(rows, np.concatenate([members[g] for g in drawn]))
        for c in (0, 4):
            r = b * 10 + c
            pick = reference_indices(root, PURPOSE["calibration"], r, 8, 8)
            want = np.concatenate([members[drawn[d]] for d in pick])
            assert np.array_equal(rows[inner.indices(r)], want)


def test_poisson_inner_replicates_count_the_row_copies():
    res = _run("poisson", "mean")
    plan = res._context.plan
    key = plan.key.nested(PURPOSE["calibration"])
    rows, inner = plan.nested_plan(2, key)
    assert np.array_equal(rows, np.repeat(np.arange(N), plan.counts(2)))
    assert inner.n_samples == rows.shape[0]
    counts = inner.counts(2 * 10 + 1)
    assert counts.shape == rows.shape and counts.sum() > 0
    assert np.array_equal(
        inner.indices(21), np.repeat(np.arange(rows.shape[0]), counts)
    )


def test_moving_block_inner_replicates_are_blocks_of_the_outer_series():
    # independent reference: block starts are draws of bounded(n - L + 1) on the
    # purpose "block_starts" of a root key whose seed is the calibration slot's
    res = _run("moving", "mean", seed=8)
    plan, parent = res._context.plan, res._context.plan.key
    key = parent.nested(PURPOSE["calibration"])
    root = RootKey(
        seed=int(parent.purpose_seed(PURPOSE["calibration"])), gamma=parent.gamma
    )
    L, k = 4, N // 4
    for b in (0, 6):
        rows, inner = plan.nested_plan(b, key)
        for c in (0, 3):
            r = b * 10 + c
            starts = reference_indices(root, PURPOSE["block_starts"], r, N - L + 1, k)
            want = np.concatenate([np.arange(s, s + L) for s in starts])
            assert np.array_equal(inner.indices(r), want)
        assert np.array_equal(rows, plan.indices(b))


# -- the proportions and the interval -----------------------------------------
@pytest.mark.parametrize("name", list(RESAMPLERS))
def test_proportions_equal_a_nested_loop(name):
    res = _run(name, np.median, B=12)
    u, v = calibration_inputs(res._context, 15)
    u_ref, v_ref = _nested_loop(res, np.median, 15)
    assert np.array_equal(u[:, 0], u_ref) and np.array_equal(v[:, 0], v_ref)
    assert 0.0 < u.mean() < 1.0 and 0.0 < v.mean() < 1.0


@pytest.mark.parametrize("name", list(RESAMPLERS))
def test_fused_and_callable_paths_agree(name):
    # the built-in runs the inner replicates through the plan's fused moments,
    # the callables through the rows (plain and vectorized); on continuous data
    # the counts are equal, so the intervals are equal up to the rounding of
    # the outer replicates
    runs = [
        _run(name, "mean", B=60),
        _run(name, np.mean, B=60),
        _run(name, lambda a, axis=-1: np.mean(a, axis=axis), B=60, vectorized=True),
    ]
    props = [calibration_inputs(r._context, 30) for r in runs]
    for other in props[1:]:
        assert np.array_equal(other[0], props[0][0])
        assert np.array_equal(other[1], props[0][1])
    for method in ("calibrated", "calibrated_basic"):
        cis = [r.confidence_interval(0.9, method, n_inner=30) for r in runs]
        for ci in cis[1:]:
            assert ci.low == pytest.approx(cis[0].low, rel=1e-12)
            assert ci.high == pytest.approx(cis[0].high, rel=1e-12)


@pytest.mark.parametrize("name", list(RESAMPLERS))
def test_bit_identical_for_any_n_jobs_and_chunk_size(name):
    base = _run(name, "mean", B=31)
    slow = _run(name, np.median, B=17)
    want = [
        base.confidence_interval(method=m, n_inner=20)
        for m in ("calibrated", "calibrated_basic")
    ]
    want_median = calibration_inputs(slow._context, 12)
    for kw in ({"n_jobs": 2}, {"chunk_size": 4}, {"n_jobs": 2, "chunk_size": 3}):
        other = _run(name, "mean", B=31, **kw)
        got = [
            other.confidence_interval(method=m, n_inner=20)
            for m in ("calibrated", "calibrated_basic")
        ]
        assert got == want
        median = calibration_inputs(_run(name, np.median, B=17, **kw)._context, 12)
        assert np.array_equal(median[0], want_median[0])
        assert np.array_equal(median[1], want_median[1])


def test_an_outer_replicate_regenerates_alone():
    from skboot._run._calibration import _generic_counts

    res = _run("stationary", np.median, B=20)
    ctx = res._context
    u, v = calibration_inputs(ctx, 16)
    for b in (0, 13, 19):
        cu, cv = _generic_counts(
            b, b + 1, ctx.stat, ctx.stat, ctx.plan, ctx.data.arrays, 16
        )
        assert np.array_equal(cu[0] / 16, u[b]) and np.array_equal(cv[0] / 16, v[b])


def test_iid_results_are_unchanged_by_the_nested_plans():
    # the iid inner draws are the calibration slot's, as before: u of
    # replicate b is the reference loop over reference_indices
    x = np.random.default_rng(2).normal(size=9)
    res = bootstrap(x, np.median, n_resamples=6, random_state=4)
    key = res._context.plan.key
    u, _ = calibration_inputs(res._context, 7)
    est = np.median(x)
    for b in range(6):
        outer = x[reference_indices(key, PURPOSE["indices"], b, 9, 9)]
        values = [
            np.median(
                outer[reference_indices(key, PURPOSE["calibration"], b * 7 + c, 9, 9)]
            )
            for c in range(7)
        ]
        assert u[b, 0] == np.count_nonzero(np.array(values) <= est) / 7


@pytest.mark.parametrize(
    ("resampler", "kw"),
    [
        (BayesianBootstrap(20, random_state=0), {}),
        (TaperedBlockBootstrap(20, block_length=3, random_state=0), {}),
        (Bootstrap(20, sample_size=15, random_state=0), {}),
    ],
)
def test_resamplers_without_a_nested_scheme_are_refused(resampler, kw):
    x = np.random.default_rng(0).normal(size=N)
    res = bootstrap(x, "mean", resampler=resampler, **kw)
    for method in ("calibrated", "calibrated_basic"):
        with pytest.raises(
            ValueError,
            match=r"'method' parameter.*resampled by the same scheme: Bootstrap "
            r"\(with the default sample_size\), StratifiedBootstrap.*"
            rf"StationaryBootstrap. Got resampler {type(resampler).__name__}",
        ):
            res.confidence_interval(method=method)


def test_model_based_resamplers_are_refused():
    from skboot import ResidualBootstrap

    x = np.random.default_rng(0).normal(size=60)
    res = bootstrap(x, "mean", resampler=ResidualBootstrap(20, order=1, random_state=0))
    with pytest.raises(ValueError, match=r"resampled by the same scheme"):
        res.confidence_interval(method="calibrated")


# -- known case and coverage ---------------------------------------------------
@pytest.mark.parametrize(
    ("name", "n", "n_data", "low", "high"),
    [("stratified", 12, 8, 0.975, 0.997), ("poisson", 20, 16, 0.956, 0.980)],
)
def test_normal_mean_level_moves_toward_student_t(name, n, n_data, low, high):
    """As for the iid bootstrap (tests/test_calibrated.py): for the normal mean
    the percentile interval is too short, and the calibrated two-sided 95% level
    ``q_u(0.975) - q_u(0.025)`` comes out near ``2 Phi(c) - 1``, ``c =
    t_{n-1, 0.975} sqrt(n / (n - 1))``, not at 0.95.  B = 299, n_inner = 100.
    Measured over 24 data sets (sd per data set about 0.01): Poisson at
    n = 20 0.968 (the target, 0.968); stratified, two strata of 6, 0.989 (its
    target, 0.978 at n = 12, is for one stratum: two strata estimate their
    spread with fewer degrees of freedom).  The bounds are 3.4 standard errors
    of the mean of ``n_data`` data sets or more from the measured value, and
    exclude the uncalibrated 0.95.  (Poisson at n = 10 is not used: an inner
    replicate of a small outer replicate is empty now and then, and the mean
    is undefined there.)"""
    y = np.repeat([0, 1], n // 2)
    levels = []
    for seed in range(n_data):
        x = np.random.default_rng([30, seed]).normal(size=n)
        if name == "stratified":
            res = bootstrap(
                x, "mean", resampler=StratifiedBootstrap(299, random_state=seed), y=y
            )
        else:
            res = bootstrap(
                x, "mean", resampler=PoissonBootstrap(299, random_state=seed)
            )
        u, _ = calibration_inputs(res._context, 100)
        levels.append(np.quantile(u, 0.975) - np.quantile(u, 0.025))
    assert low < np.mean(levels) < high, np.mean(levels)


@pytest.mark.slow
def test_coverage_sanity_stratified_and_group():
    """The mean of normal data, nominal 0.90, B = 199, n_inner = 50, 100 data
    sets each: StratifiedBootstrap with two strata of 6, GroupBootstrap with 10
    groups of 2.  The percentile interval undercovers (measured with these
    seeds: 0.83 and 0.86); the calibrated one covers 0.89 and 0.92, on 13
    data sets that only it covers against 1 that only the percentile interval
    covers.  The test asks for a pooled coverage of the calibrated interval in
    [0.83, 0.97] (3.4 binomial standard errors around 0.905) and for more
    data sets covered only by it than only by the percentile interval (the
    paired gain, measured 12, has a standard deviation of about 3.7).  The
    seeds are fixed; the bounds leave room for other platforms' rounding."""
    draws = {
        "stratified": (
            lambda rng: rng.normal(size=12),
            lambda s: StratifiedBootstrap(199, random_state=s),
            {"y": np.repeat([0, 1], 6)},
        ),
        "group": (
            lambda rng: rng.normal(size=20),
            lambda s: GroupBootstrap(199, random_state=s),
            {"groups": np.repeat(np.arange(10), 2)},
        ),
    }
    covered, only_cal, only_pct, trials = 0, 0, 0, 0
    for draw, make, extra in draws.values():
        for t in range(100):
            ss = np.random.SeedSequence([99, t])
            x = draw(np.random.default_rng(ss))
            res = bootstrap(x, "mean", resampler=make(ss), **extra)
            pct = res.confidence_interval(0.9, "percentile")
            cal = res.confidence_interval(0.9, "calibrated", n_inner=50)
            p, c = pct.low <= 0 <= pct.high, cal.low <= 0 <= cal.high
            covered += c
            only_cal += c and not p
            only_pct += p and not c
            trials += 1
    assert 0.83 <= covered / trials <= 0.97, covered / trials
    assert only_cal > only_pct, (only_cal, only_pct)
