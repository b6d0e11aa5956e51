"""The fused double bootstrap of the calibrated intervals for the resamplers
other than the iid bootstrap (skboot._kernels.calibration_nested).

* its copy of numpy's arithmetic (the pairwise column sums, mean, var, std,
  and ``centre_of``) equals numpy bit for bit, over lengths on both sides of
  numpy's pairwise block (128) and its reduction buffer (8192 values);
* its counts equal the per-replicate path's (one nested plan and one rebuilt
  statistic per outer replicate) exactly, for every scheme and moment
  statistic, and no outer replicate goes through the per-replicate path;
* an outer replicate where a value is undefined is reported as before, and one
  where the kernel stops but the statistic is defined is counted as before.
(The limits are pinned in tests/test_calibrated_pinned.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import skboot._run._calibration as calibration_module
from skboot import (
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    bootstrap,
)
from skboot._engine import centre_of
from skboot._kernels.calibration_nested import (
    numpy_column_sum,
    numpy_moment,
    rows_centre,
)
from skboot._random import PURPOSE
from skboot._run import calibration_inputs
from skboot._run._calibration import _generic_counts

LENGTHS = [*range(1, 40), 127, 128, 129, 135, 255, 256, 257, 1000, 8191, 8193, 20001]


@pytest.mark.parametrize("d", [1, 2, 3, 8])
def test_numpy_arithmetic_is_numpy_bit_for_bit(d):
    rng = np.random.default_rng(d)
    for m in LENGTHS:
        X = rng.lognormal(size=(m, d)) * 10.0 ** rng.uniform(-4, 4) + 1e3 * rng.normal()
        X = np.ascontiguousarray(X)
        tmp = np.empty_like(X)
        want = {
            0: X.sum(axis=0),
            1: X.mean(axis=0),
            2: X.var(axis=0),
            3: X.std(axis=0),
        }
        for kind, values in want.items():
            got = [numpy_moment(X, j, kind, 0, tmp) for j in range(d)]
            assert np.array_equal(got, values), (m, kind)
        if m > 1:
            got = [numpy_moment(X, j, 2, 1, tmp) for j in range(d)]
            assert np.array_equal(got, X.var(axis=0, ddof=1)), m
        sums = [numpy_column_sum(X, j) for j in range(d)]
        assert np.array_equal(sums, np.add.reduce(X, axis=0)), m
        shift = np.empty(d)
        assert rows_centre(X, shift)
        assert np.array_equal(shift, centre_of(X)), m


def test_centre_rounds_integer_columns_half_to_even():
    # column means 2.5, 3.5 and -0.5 of integers (rounded to even), and 0.25 of
    # a column that is not all integers (kept)
    X = np.array([[2.0, 3.0, 0.0, 1.5], [3.0, 4.0, -1.0, -1.0]])
    shift = np.empty(4)
    assert rows_centre(X, shift)
    assert np.array_equal(shift, centre_of(X))
    assert shift.tolist() == [2.0, 4.0, -0.0, 0.25]
    # a sample whose values are all integers although the data's are not
    Y = np.array([[1.0], [2.0], [2.0], [3.0], [3.0], [3.0]])
    assert rows_centre(Y, shift[:1]) and shift[0] == 2.0 == centre_of(Y)[0]


N = 30

#: name -> (resampler factory, the extra arguments of ``bootstrap``)
SCHEMES = {
    "stratified": (
        lambda B, s: StratifiedBootstrap(B, random_state=s),
        {"y": np.arange(N) % 3},
    ),
    "group": (
        lambda B, s: GroupBootstrap(B, random_state=s),
        {"groups": np.arange(N) // 4},
    ),
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
        lambda B, s: NonOverlappingBlockBootstrap(B, block_length=4, random_state=s),
        {},
    ),
    "stationary": (
        lambda B, s: StationaryBootstrap(B, block_length=3.5, random_state=s),
        {},
    ),
}

#: (statistic, statistic_kwargs, data)
STATISTICS = (
    ("mean", {}, lambda rng: rng.lognormal(size=N) + 50.0),
    ("sum", {}, lambda rng: rng.poisson(2.0, size=N).astype(float)),
    ("proportion", {}, lambda rng: rng.integers(0, 2, size=N).astype(float)),
    ("var", {"ddof": 1}, lambda rng: rng.normal(size=(N, 3)) * [1.0, 10.0, 0.1]),
    ("std", {}, lambda rng: rng.poisson(4.0, size=(N, 2)).astype(float)),
)


def _run(scheme, stat, kwargs, x, B=25, seed=9):
    make, extra = SCHEMES[scheme]
    return bootstrap(x, stat, resampler=make(B, seed), statistic_kwargs=kwargs, **extra)


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_fused_counts_equal_the_per_replicate_path(scheme):
    rng = np.random.default_rng(4)
    for stat, kwargs, draw in STATISTICS:
        res = _run(scheme, stat, kwargs, draw(rng))
        ctx = res._context
        plan, raw = ctx.plan, ctx.data.arrays
        X = np.ascontiguousarray(np.asarray(raw[0], dtype=np.float64))
        X = X[:, None] if X.ndim == 1 else X
        est = ctx.stat.estimate()
        key = plan.key.nested(PURPOSE["calibration"])
        kind = {"sum": 0, "mean": 1, "proportion": 1, "var": 2, "std": 3}[stat]
        n_inner = 13
        for b0, b1 in ((0, 25), (7, 11)):
            cu = np.empty((b1 - b0, X.shape[1]), dtype=np.int64)
            cv = np.empty_like(cu)
            ddof = kwargs.get("ddof", 0)
            at = plan.nested_moment_counts(key, X, est, kind, ddof, b0, n_inner, cu, cv)
            assert at == -1  # every replicate counted by the kernel
            gu, gv = _generic_counts(b0, b1, ctx.stat, ctx.stat, plan, raw, n_inner)
            assert np.array_equal(cu, gu), (stat, b0)
            assert np.array_equal(cv, gv), (stat, b0)
            # not all equal: the counts tell the replicates apart
            assert np.unique(cu).shape[0] > 1 and np.unique(cv).shape[0] > 1


def test_the_per_replicate_path_is_not_taken(monkeypatch):
    """Every moment statistic of every scheme runs without one per-replicate
    evaluation (the path it replaces calls ``_generic_counts``)."""
    rng = np.random.default_rng(8)
    results = [
        _run(scheme, stat, kwargs, draw(rng), B=12)
        for scheme in SCHEMES
        for stat, kwargs, draw in STATISTICS
    ]
    want = [calibration_inputs(r._context, 9) for r in results]

    def refuse(*args, **kwargs):
        raise AssertionError("an outer replicate went through the slow path")

    monkeypatch.setattr(calibration_module, "_generic_counts", refuse)
    for r, (u, v) in zip(results, want, strict=True):
        got_u, got_v = calibration_inputs(r._context, 9)
        assert np.array_equal(got_u, u) and np.array_equal(got_v, v)


def _slow_path(monkeypatch, *plans):
    for cls in plans:
        monkeypatch.setattr(cls, "fuses_nested_moments", False)


def test_an_undefined_inner_value_is_reported_as_before(monkeypatch):
    # Poisson on 6 rows: some inner replicate of some outer replicate is empty,
    # where the mean is undefined
    x = np.random.default_rng(0).normal(size=6)
    res = bootstrap(x, "mean", resampler=PoissonBootstrap(30, random_state=1))
    with pytest.raises(ValueError, match="undefined") as fused:
        res.confidence_interval(method="calibrated", n_inner=50)
    plan_cls = type(res._context.plan)
    _slow_path(monkeypatch, plan_cls)
    with pytest.raises(ValueError, match="undefined") as slow:
        res.confidence_interval(method="calibrated", n_inner=50)
    assert str(fused.value) == str(slow.value)
    assert "inner resample" in str(fused.value)


def test_an_empty_outer_replicate_of_a_sum_is_counted_as_before(monkeypatch):
    # Poisson on 2 rows: some outer replicates are empty (both counts 0); the
    # sum is defined there (0), so the kernel hands them to the per-replicate
    # path and resumes after them
    x = np.array([1.0, 3.0])
    res = bootstrap(x, "sum", resampler=PoissonBootstrap(40, random_state=2))
    plan = res._context.plan
    empty = [b for b in range(40) if plan.counts(b).sum() == 0]
    assert len(empty) >= 2
    u, v = calibration_inputs(res._context, 20)
    _slow_path(monkeypatch, type(plan))
    u_slow, v_slow = calibration_inputs(res._context, 20)
    assert np.array_equal(u, u_slow) and np.array_equal(v, v_slow)


def test_a_variance_with_one_degree_of_freedom_is_fused():
    # groups of one row and ddof = 3 on 4 rows: every replicate has 4 rows, so
    # every value is defined, and the kernel counts them all
    x = np.array([1.0, 2.0, 4.0, 8.0])
    res = bootstrap(
        x,
        "var",
        resampler=GroupBootstrap(10, random_state=0),
        groups=np.arange(4),
        statistic_kwargs={"ddof": 3},
    )
    ctx = res._context
    cu = np.empty((10, 1), dtype=np.int64)
    cv = np.empty_like(cu)
    key = ctx.plan.key.nested(PURPOSE["calibration"])
    X = x[:, None].copy()
    at = ctx.plan.nested_moment_counts(key, X, ctx.stat.estimate(), 2, 3, 0, 10, cu, cv)
    assert at == -1
    gu, gv = _generic_counts(0, 10, ctx.stat, ctx.stat, ctx.plan, ctx.data.arrays, 10)
    assert np.array_equal(cu, gu) and np.array_equal(cv, gv)
