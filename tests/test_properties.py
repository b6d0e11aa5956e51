"""Property-based tests (hypothesis) of every resampler and of ``bootstrap()``.

Over random sizes, shapes, dtypes, seeds, chunk sizes and all ten resamplers:

* splits: in-bag indices in range, out-of-bag rows disjoint from the in-bag rows and
  together covering every row, counts summing to the replicate size (fixed
  layouts), ``get_n_splits`` agreeing with ``split``, scheme invariants (strata
  keep their sizes, groups are drawn whole, the non-overlapping scheme never draws
  its trailing rows, weights are non-negative and sum to n);
* ``replicate(b)`` regenerates split ``b`` (indices, counts, out-of-bag rows);
* one stream for every path: the fused built-in "mean" equals the mean of the rows
  (or weights) that ``replicate(b)`` lists;
* ``bootstrap()`` results are bit-identical for every chunk size and for
  ``n_jobs=2`` (threading backend, parallel path forced for built-ins too);
* pandas in, pandas out: Series name, DataFrame columns (duplicates included) on
  the estimate, distribution, standard error, bias and intervals.

Determinism: every test uses :data:`SETTINGS` (``derandomize=True``, no example
database), so CI runs the same examples every time; ``max_examples`` is modest to
keep the module at a few seconds.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import skboot._engine
from skboot import (
    BayesianBootstrap,
    Bootstrap,
    BootstrapStatistic,
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

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

RESAMPLERS = (
    "iid",
    "stratified",
    "group",
    "poisson",
    "bayesian",
    "moving",
    "circular",
    "non-overlapping",
    "stationary",
    "tapered",
)
WEIGHT_SCHEMES = ("bayesian", "tapered")
SEEDS = st.integers(0, 2**63)


def _draw_resampler(
    draw: Any, name: str, n: int, B: int, seed: int
) -> tuple[Any, Any, Any, int | None]:
    """(resampler, y, groups, replicate size or None for variable layouts)."""
    y = groups = None
    size: int | None = n
    if name == "iid":
        sample_size = draw(
            st.one_of(
                st.none(),
                st.integers(1, n),
                st.floats(0.05, 1.0, allow_nan=False),
            )
        )
        rs = Bootstrap(B, sample_size=sample_size, random_state=seed)
        if isinstance(sample_size, int):
            size = sample_size
        elif isinstance(sample_size, float):
            size = max(1, round(sample_size * n))
    elif name == "stratified":
        y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        rs = StratifiedBootstrap(B, random_state=seed)
    elif name == "group":
        k = draw(st.integers(2, min(n, 6)))
        labels = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
        groups = np.array(labels)
        groups[:2] = [0, 1]  # at least two groups
        rs = GroupBootstrap(B, random_state=seed)
        size = None
    elif name == "poisson":
        rs = PoissonBootstrap(B, random_state=seed)
        size = None
    elif name == "bayesian":
        rs = BayesianBootstrap(B, random_state=seed)
    elif name == "stationary":
        length = draw(st.floats(1.0, n / 2, allow_nan=False))
        rs = StationaryBootstrap(B, block_length=length, random_state=seed)
    else:
        cls = {
            "moving": MovingBlockBootstrap,
            "circular": CircularBlockBootstrap,
            "non-overlapping": NonOverlappingBlockBootstrap,
            "tapered": TaperedBlockBootstrap,
        }[name]
        rs = cls(B, block_length=draw(st.integers(1, n // 2)), random_state=seed)
    return rs, y, groups, size


# ---------------------------------------------------------------------------
# splits and replicates
# ---------------------------------------------------------------------------
@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from([r for r in RESAMPLERS if r not in WEIGHT_SCHEMES]),
    n=st.integers(2, 40),
    B=st.integers(1, 8),
    seed=SEEDS,
)
def test_splits_are_valid_and_replicate_regenerates_them(data, name, n, B, seed):
    rs, y, groups, size = _draw_resampler(data.draw, name, n, B, seed)
    X = np.zeros((n, 2))
    params = rs.get_params()
    splits = list(rs.split(X, y, groups))
    assert rs.get_params() == params  # never mutated by split
    assert len(splits) == rs.get_n_splits(X, y, groups) == B
    fitted = clone(rs).fit(X, y, groups)
    everything = np.arange(n)
    for b, (train, test) in enumerate(splits):
        assert train.dtype.kind == "i" and test.dtype.kind == "i"
        assert train.ndim == 1 and test.ndim == 1
        assert ((train >= 0) & (train < n)).all()
        counts = np.bincount(train, minlength=n)
        # out-of-bag: exactly the rows never drawn, ascending
        np.testing.assert_array_equal(test, np.flatnonzero(counts == 0))
        assert np.intersect1d(train, test).size == 0
        np.testing.assert_array_equal(np.union1d(train, test), everything)
        if size is not None:
            assert train.shape[0] == size == counts.sum()
        # replicate(b) regenerates split b
        rep = fitted.replicate(b)
        np.testing.assert_array_equal(rep.indices, train)
        np.testing.assert_array_equal(rep.oob, test)
        np.testing.assert_array_equal(rep.counts, counts)
        np.testing.assert_array_equal(rep.weights, counts.astype(float))
        # scheme invariants
        if name == "stratified":
            np.testing.assert_array_equal(
                np.bincount(y[train], minlength=4), np.bincount(y, minlength=4)
            )
        elif name == "group":
            for g in np.unique(groups):  # a group is drawn whole, or not at all
                assert np.unique(counts[groups == g]).size == 1
        elif name == "non-overlapping":
            L = rs.block_length
            assert counts[(n // L) * L :].sum() == 0
        elif name == "poisson":
            assert counts.max(initial=0) <= 20
    # the same int seed gives the same splits again
    for (a, _), (b_, _) in zip(splits, rs.split(X, y, groups), strict=True):
        np.testing.assert_array_equal(a, b_)


@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from(WEIGHT_SCHEMES),
    n=st.integers(2, 40),
    B=st.integers(1, 8),
    seed=SEEDS,
)
def test_weight_replicates_are_non_negative_and_sum_to_n(data, name, n, B, seed):
    rs, _, _, _ = _draw_resampler(data.draw, name, n, B, seed)
    fitted = rs.fit(np.zeros(n))
    for b in range(B):
        w = fitted.replicate(b).weights
        assert w.shape == (n,) and w.dtype == np.float64
        assert (w >= 0).all() and np.isfinite(w).all()
        np.testing.assert_allclose(w.sum(), n, rtol=1e-12)
        np.testing.assert_array_equal(w, fitted.replicate(b).weights)
        if name == "tapered":  # the blocks before tapering
            idx = fitted.replicate(b).indices
            assert idx.shape == (n,) and ((idx >= 0) & (idx < n)).all()
    with pytest.raises(ValueError):
        rs.split(np.zeros(n))


@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from(RESAMPLERS),
    n=st.integers(2, 40),
    B=st.integers(1, 8),
    seed=SEEDS,
)
def test_fused_mean_reduces_the_rows_replicate_lists(data, name, n, B, seed):
    """One stream for every path: the numba kernel of "mean" (prefix sums for the
    block schemes, weights for the others) reduces exactly replicate(b)'s rows."""
    rs, y, groups, _ = _draw_resampler(data.draw, name, n, B, seed)
    x = np.random.default_rng(seed % 2**32).normal(size=n)
    res = bootstrap(x, "mean", resampler=rs, y=y, groups=groups)
    fitted = clone(rs).fit(x, y, groups)
    for b in range(B):
        rep = fitted.replicate(b)
        if name in WEIGHT_SCHEMES:
            want = np.average(x, weights=rep.weights)
        else:
            want = x[rep.indices].mean()
        np.testing.assert_allclose(res.distribution[b], want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# bootstrap(): chunk size and n_jobs never change a bit
# ---------------------------------------------------------------------------
def _weighted_mean(a: np.ndarray, weights: np.ndarray | None = None) -> Any:
    """A plain callable valid for every layout (weights only for weight schemes)."""
    return np.average(np.asarray(a, dtype=float), axis=0, weights=weights)


def _vector_mean(a: np.ndarray, axis: int = -1) -> Any:
    return np.mean(a, axis=axis)


STATISTICS = {
    "mean": "mean",
    "var": "var",
    "std": "std",
    "median": "median",
    "quantile": "quantile",
    "sum": "sum",
    "plain": _weighted_mean,
    "vectorized": _vector_mean,
}
DTYPES = ("float64", "float32", "int32", "bool")


def _data(rng: np.random.Generator, n: int, d: int | None, dtype: str) -> np.ndarray:
    shape = (n,) if d is None else (n, d)
    if dtype == "bool":
        return rng.random(shape) < 0.4
    if dtype == "int32":
        return rng.integers(-5, 6, size=shape).astype(np.int32)
    return rng.normal(size=shape).astype(dtype)


@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from(RESAMPLERS),
    stat=st.sampled_from(list(STATISTICS)),
    dtype=st.sampled_from(DTYPES),
    n=st.integers(4, 40),
    d=st.one_of(st.none(), st.integers(1, 3)),
    B=st.integers(2, 12),
    seed=SEEDS,
)
def test_results_invariant_to_chunk_size_and_n_jobs(
    data, name, stat, dtype, n, d, B, seed
):
    if name in WEIGHT_SCHEMES and stat in ("median", "quantile", "vectorized"):
        stat = "mean"  # not defined for continuous weights (tested elsewhere)
    rs, y, groups, _ = _draw_resampler(data.draw, name, n, B, seed)
    x = _data(np.random.default_rng(seed % 2**32), n, d, dtype)
    kw: dict[str, Any] = {"resampler": rs, "y": y, "groups": groups}
    if stat == "quantile":
        kw["statistic_kwargs"] = {"q": [0.25, 0.5]}
    statistic = STATISTICS[stat]
    ref = bootstrap(x, statistic, **kw)
    chunk = data.draw(st.integers(1, B + 1), label="chunk_size")
    res = bootstrap(x, statistic, chunk_size=chunk, **kw)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    np.testing.assert_array_equal(res.estimate, ref.estimate)
    # n_jobs=2 on threads; built-ins are forced onto the parallel path
    with (
        mock.patch.object(skboot._engine, "MIN_PARALLEL_DRAWS", 0),
        joblib.parallel_config(backend="threading"),
    ):
        par = bootstrap(x, statistic, n_jobs=2, chunk_size=chunk, **kw)
    np.testing.assert_array_equal(par.distribution, ref.distribution)
    assert par.n_resamples == B == np.shape(ref.distribution)[0]


# ---------------------------------------------------------------------------
# pandas labels
# ---------------------------------------------------------------------------
LABELS = st.one_of(
    st.text(min_size=0, max_size=5),
    st.integers(-3, 3),
    st.sampled_from([None, ("a", 1), 2.5]),
)


@SETTINGS
@given(
    name=LABELS,
    n=st.integers(2, 30),
    seed=SEEDS,
    stat=st.sampled_from(["mean", "median", "plain", "vectorized"]),
    shuffle_index=st.booleans(),
)
def test_series_name_is_kept(name, n, seed, stat, shuffle_index):
    rng = np.random.default_rng(seed % 2**32)
    index = rng.permutation(n) if shuffle_index else np.zeros(n, dtype=int)
    s = pd.Series(rng.normal(size=n), index=index, name=name)
    res = bootstrap(s, STATISTICS[stat], n_resamples=5, random_state=seed)
    ref = bootstrap(s.to_numpy(), STATISTICS[stat], n_resamples=5, random_state=seed)
    assert isinstance(res.estimate, float)
    assert isinstance(res.distribution, pd.Series)
    assert res.distribution.name == name
    np.testing.assert_array_equal(res.distribution.to_numpy(), ref.distribution)


@SETTINGS
@given(
    columns=st.lists(LABELS, min_size=1, max_size=4),
    n=st.integers(2, 30),
    seed=SEEDS,
    stat=st.sampled_from(["mean", "var", "std", "sum", "plain", "vectorized"]),
)
def test_frame_columns_label_every_output(columns, n, seed, stat):
    """Columns (any hashable, duplicates included) label the estimate, the
    distribution, the standard error, the bias and the interval endpoints."""
    rng = np.random.default_rng(seed % 2**32)
    frame = pd.DataFrame(
        rng.normal(size=(n, len(columns))),
        columns=pd.Index(columns, dtype=object, tupleize_cols=False),
        index=rng.integers(0, 3, size=n),  # duplicate index labels
    )
    res = bootstrap(frame, STATISTICS[stat], n_resamples=6, random_state=seed)
    ref = bootstrap(
        frame.to_numpy(), STATISTICS[stat], n_resamples=6, random_state=seed
    )
    want = list(frame.columns)
    if len(columns) == 1 and stat in ("plain", "vectorized"):
        # a callable returning one value per replicate is a scalar statistic
        assert isinstance(res.distribution, np.ndarray | pd.Series)
    else:
        for out in (res.estimate, res.standard_error, res.bias):
            assert isinstance(out, pd.Series)
            assert list(out.index) == want
        assert isinstance(res.distribution, pd.DataFrame)
        assert list(res.distribution.columns) == want
        if (np.ptp(np.asarray(res.distribution), axis=0) > 0).all():  # no warning
            ci = res.confidence_interval(method="percentile")
            assert list(ci.low.index) == want and list(ci.high.index) == want
    np.testing.assert_array_equal(
        np.asarray(res.distribution, dtype=float),
        np.asarray(ref.distribution, dtype=float),
    )
    est = BootstrapStatistic("mean", n_resamples=3, random_state=seed).fit(frame)
    assert list(est.feature_names_in_) == want
    assert list(est.estimate_.index) == want
