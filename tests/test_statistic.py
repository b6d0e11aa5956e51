"""Tests of bootstrap(), BootstrapStatistic and BootstrapResult (the engine)."""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from sklearn.base import clone

from skboot import (
    STREAM_VERSION,
    BayesianBootstrap,
    Bootstrap,
    BootstrapResult,
    BootstrapStatistic,
    GroupBootstrap,
    MovingBlockBootstrap,
    PoissonBootstrap,
    StatisticError,
    StratifiedBootstrap,
    UndefinedStatisticWarning,
    bootstrap,
)
from skboot._engine import cache_budget

RNG = np.random.default_rng(12345)
X1 = RNG.normal(size=500)
X2 = RNG.normal(size=(300, 3))
Y = np.arange(500) % 3
GROUPS = np.arange(500) // 5

RESAMPLERS = [
    lambda B, s: Bootstrap(B, random_state=s),
    lambda B, s: Bootstrap(B, sample_size=0.5, random_state=s),
    lambda B, s: StratifiedBootstrap(B, random_state=s),
    lambda B, s: GroupBootstrap(B, random_state=s),
    lambda B, s: PoissonBootstrap(B, random_state=s),
    lambda B, s: BayesianBootstrap(B, random_state=s),
]
RESAMPLER_IDS = ["iid", "m-out-of-n", "stratified", "group", "poisson", "bayesian"]
INDEX_RESAMPLERS = RESAMPLERS[:5]
INDEX_IDS = RESAMPLER_IDS[:5]


def _run(data, statistic, resampler, **kw):
    n = (data[0] if isinstance(data, tuple) else data).shape[0]
    return bootstrap(
        data, statistic, resampler=resampler, y=Y[:n], groups=GROUPS[:n], **kw
    )


# ---------------------------------------------------------------------------
# one stream for every path
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", INDEX_RESAMPLERS, ids=INDEX_IDS)
def test_builtin_equals_manual_loop_over_replicates(make):
    """The fused kernel reduces exactly the rows that replicate(b) lists."""
    rs = make(40, 7)
    res = _run(X1, "mean", rs)
    fitted = clone(rs).fit(X1, Y, GROUPS)
    manual = np.array([X1[fitted.replicate(b).indices].mean() for b in range(40)])
    np.testing.assert_allclose(res.distribution, manual, rtol=1e-12, atol=1e-15)


def test_bayesian_builtin_equals_weighted_mean():
    rs = BayesianBootstrap(30, random_state=3)
    res = bootstrap(X1, "mean", resampler=rs)
    fitted = clone(rs).fit(X1)
    manual = [np.average(X1, weights=fitted.replicate(b).weights) for b in range(30)]
    np.testing.assert_allclose(res.distribution, manual, rtol=1e-12)


@pytest.mark.parametrize("make", INDEX_RESAMPLERS, ids=INDEX_IDS)
def test_builtin_plain_and_vectorized_callables_agree(make):
    """'mean', np.mean (vectorized by its axis argument), a plain lambda and a
    vectorized lambda see the same replicates."""
    rs = make(60, 11)
    ref = _run(X1, "mean", rs).distribution
    for stat, vec in [
        (np.mean, None),
        (lambda a: a.mean(), None),
        (lambda a, axis: a.mean(axis=axis), None),
        (np.mean, False),
    ]:
        got = _run(X1, stat, rs, vectorized=vec).distribution
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("name", "kwargs", "func"),
    [
        ("sum", None, np.sum),
        ("var", None, np.var),
        ("var", {"ddof": 1}, lambda a: np.var(a, ddof=1)),
        ("std", {"ddof": 1}, lambda a: np.std(a, ddof=1)),
        ("median", None, np.median),
        ("quantile", {"q": 0.9}, lambda a: np.quantile(a, 0.9)),
        (
            "quantile",
            {"q": [0.05, 0.5, 0.95]},
            lambda a: np.quantile(a, [0.05, 0.5, 0.95]),
        ),
    ],
)
@pytest.mark.parametrize("make", INDEX_RESAMPLERS, ids=INDEX_IDS)
def test_builtins_match_numpy(make, name, kwargs, func):
    rs = make(25, 5)
    x = np.round(X1, 1)  # ties, to exercise the order-statistic scan
    got = _run(x, name, rs, statistic_kwargs=kwargs).distribution
    ref = _run(x, func, rs, vectorized=False).distribution
    exact = name in ("median", "quantile")
    np.testing.assert_allclose(
        got, ref, rtol=0 if exact else 1e-11, atol=0 if exact else 1e-12
    )


@pytest.mark.parametrize("make", INDEX_RESAMPLERS, ids=INDEX_IDS)
def test_builtins_2d_and_corr(make):
    rs = make(20, 2)
    for name, func in [("mean", lambda a: a.mean(0)), ("std", lambda a: a.std(0))]:
        got = _run(X2, name, rs).distribution
        ref = _run(X2, func, rs, vectorized=False).distribution
        np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-13)
    xy = X2[:, :2]
    got = _run(xy, "corr", rs).distribution
    ref = _run(xy, lambda a: np.corrcoef(a[:, 0], a[:, 1])[0, 1], rs, vectorized=False)
    np.testing.assert_allclose(got, ref.distribution, rtol=1e-10, atol=1e-12)
    paired = _run((xy[:, 0], xy[:, 1]), "corr", rs).distribution
    np.testing.assert_array_equal(paired, got)


def test_proportion():
    b = (X1 > 0).astype(float)
    res = bootstrap(b, "proportion", n_resamples=50, random_state=0)
    ref = bootstrap(b, "mean", n_resamples=50, random_state=0)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    res_bool = bootstrap(X1 > 0, "proportion", n_resamples=50, random_state=0)
    np.testing.assert_array_equal(res_bool.distribution, ref.distribution)
    with pytest.raises(ValueError, match="'proportion' needs boolean or 0/1"):
        bootstrap(X1, "proportion", n_resamples=5, random_state=0)


# ---------------------------------------------------------------------------
# chunking and parallelism never change a bit
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", RESAMPLERS, ids=RESAMPLER_IDS)
@pytest.mark.parametrize(
    "statistic", ["mean", "std", "median", "callable", "vectorized"]
)
def test_chunk_size_and_n_jobs_do_not_change_results(make, statistic):
    if statistic == "median" and make is RESAMPLERS[-1]:
        pytest.skip("quantiles are refused for continuous weights (tested elsewhere)")
    stat = {
        "callable": lambda a: float(np.mean(a)) + float(np.max(a)),
        "vectorized": lambda a, axis, **kw: a.max(axis=axis),
    }.get(statistic, statistic)
    if make is RESAMPLERS[-1] and statistic in ("callable", "vectorized"):
        stat = lambda a, weights: np.average(a, weights=weights)  # noqa: E731
    rs = make(37, 2024)
    base = _run(X1, stat, rs).distribution
    for chunk in (1, 5, 64):
        np.testing.assert_array_equal(
            _run(X1, stat, rs, chunk_size=chunk).distribution, base
        )
    np.testing.assert_array_equal(_run(X1, stat, rs, n_jobs=2).distribution, base)
    with joblib.parallel_config(backend="threading"):
        np.testing.assert_array_equal(_run(X1, stat, rs, n_jobs=2).distribution, base)


def test_threading_backend_via_parallel_config_default_n_jobs():
    base = bootstrap(X1, "mean", n_resamples=101, random_state=1).distribution
    with joblib.parallel_config(backend="threading", n_jobs=2):
        got = bootstrap(X1, "mean", n_resamples=101, random_state=1).distribution
    np.testing.assert_array_equal(got, base)


def test_cache_budget_is_positive():
    assert cache_budget() >= 4096


# ---------------------------------------------------------------------------
# vector-valued statistics on every tier
# ---------------------------------------------------------------------------
def test_vector_valued_statistics_all_tiers():
    rs = Bootstrap(30, random_state=9)
    plain = bootstrap(X1, lambda a: np.array([a.mean(), a.std()]), resampler=rs)
    vec = bootstrap(
        X1,
        lambda a, axis: np.stack([a.mean(axis=axis), a.std(axis=axis)], axis=-1),
        resampler=rs,
    )
    assert plain.distribution.shape == (30, 2)
    np.testing.assert_allclose(vec.distribution, plain.distribution, rtol=1e-12)
    builtin = bootstrap(X2, "mean", resampler=rs)
    assert builtin.distribution.shape == (30, 3)
    assert builtin.estimate.shape == (3,)
    np.testing.assert_allclose(builtin.estimate, X2.mean(0))


def test_paired_callable():
    x, y = X2[:, 0], X2[:, 1]
    res = bootstrap((x, y), lambda a, b: np.mean(a - b), n_resamples=20, random_state=0)
    ref = bootstrap(x - y, "mean", n_resamples=20, random_state=0)
    np.testing.assert_allclose(
        res.distribution, ref.distribution, rtol=1e-12, atol=1e-15
    )


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------
def test_statistic_error_names_the_replicate_and_it_can_be_regenerated():
    x = np.arange(50, dtype=float)
    rs = Bootstrap(100, random_state=3)

    def stat(a):
        if a[0] == 7.0:
            raise ZeroDivisionError("boom")
        return a.mean()

    with pytest.raises(StatisticError, match=r"replicate (\d+).*boom") as info:
        bootstrap(x, stat, resampler=rs)
    b = info.value.replicate
    fitted = clone(rs).fit(x)
    assert fitted.replicate(b).indices[0] == 7
    assert all(fitted.replicate(j).indices[0] != 7 for j in range(b))


def test_vectorized_statistic_error_is_located():
    x = np.arange(50, dtype=float)

    def stat(a, axis):
        if np.any(a[..., 0] == 7.0):
            raise RuntimeError("bad batch")
        return a.mean(axis=axis)

    with pytest.raises(StatisticError, match="replicate") as info:
        bootstrap(x, stat, n_resamples=100, random_state=3)
    fitted = Bootstrap(100, random_state=3).fit(x)
    assert fitted.replicate(info.value.replicate).indices[0] == 7


def test_statistic_error_pickles_with_replicate():
    err = pickle.loads(pickle.dumps(StatisticError("msg", 12)))
    assert err.replicate == 12


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: bootstrap(X1, "mode"),
            r"'statistic' parameter of bootstrap must be a callable or one of .*'mean'.*Got 'mode'",
        ),
        (
            lambda: bootstrap(X1, 3),
            r"'statistic' parameter of bootstrap must be a callable.*Got 3",
        ),
        (
            lambda: bootstrap(X1, "mean", n_resamples=0),
            r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got 0",
        ),
        (
            lambda: bootstrap(X1, "mean", n_resamples=2.5),
            r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got 2.5",
        ),
        (
            lambda: bootstrap(X1, "mean", random_state=-1),
            r"'random_state' parameter of Bootstrap must be",
        ),
        (
            lambda: bootstrap(X1[:1], "mean"),
            r"'data' parameter of bootstrap must have at least 2 observations. Got 1",
        ),
        (
            lambda: bootstrap(5.0, "mean"),
            r"'data' parameter of bootstrap must be an array",
        ),
        (
            lambda: bootstrap((X1, X1[:10]), lambda a, b: 0.0),
            r"must hold arrays of one length.*\[500, 10\]",
        ),
        (
            lambda: bootstrap((), "mean"),
            r"'data' parameter of bootstrap must be a non-empty",
        ),
        (
            lambda: bootstrap(np.array([1.0, np.nan, 2.0]), "mean"),
            r"contains 1 row\(s\) with NaN. Pass nan_policy='omit'",
        ),
        (
            lambda: bootstrap(np.array([1.0, np.inf, 2.0]), "mean"),
            r"contains 1 NaN or infinite",
        ),
        (
            lambda: bootstrap(np.array(["a", "b"]), "mean"),
            r"must be numeric for the built-in statistic 'mean'",
        ),
        (lambda: bootstrap(np.zeros((4, 2, 2)), "mean"), r"must be 1-D or 2-D"),
        (lambda: bootstrap(X1, "quantile"), r"needs statistic_kwargs=\{'q': \.\.\.\}"),
        (
            lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": 1.5}),
            r"'q' statistic keyword of bootstrap must be a float or 1-D array of floats in \[0, 1\]. Got 1.5",
        ),
        (
            lambda: bootstrap(X1, "mean", statistic_kwargs={"q": 0.5}),
            r"accepts no keys for statistic 'mean'. Got \['q'\]",
        ),
        (
            lambda: bootstrap(X1, "var", statistic_kwargs={"ddof": -1}),
            r"'ddof' statistic keyword of bootstrap must be an int >= 0. Got -1",
        ),
        (
            lambda: bootstrap(X1, "var", statistic_kwargs=[1]),
            r"'statistic_kwargs' parameter of bootstrap must be None or a dict",
        ),
        (lambda: bootstrap(X1, "corr"), r"'corr' needs exactly two columns.*Got 1"),
        (
            lambda: bootstrap((X1, X1, X1), "mean"),
            r"takes one data array \(or two for 'corr'\). Got 3",
        ),
        (
            lambda: bootstrap(X1, np.mean, vectorized="yes"),
            r"'vectorized' parameter of bootstrap must be True or False or None. Got 'yes'",
        ),
        (
            lambda: bootstrap(X1, "mean", n_jobs=1.5),
            r"'n_jobs' parameter of bootstrap must be an int",
        ),
        (
            lambda: bootstrap(X1, "mean", chunk_size=0),
            r"'chunk_size' parameter of bootstrap must be an int >= 1 or None. Got 0",
        ),
        (
            lambda: bootstrap(X1, "mean", resampler="iid"),
            r"'resampler' parameter of bootstrap must be None or a skboot resampler",
        ),
        (
            lambda: bootstrap(X1, "mean", resampler=Bootstrap(10), n_resamples=20),
            r"conflicts with the resampler's n_resamples \(10\)",
        ),
        (
            lambda: bootstrap(
                X1, "mean", resampler=Bootstrap(random_state=1), random_state=2
            ),
            r"conflicts with the resampler's random_state \(1\)",
        ),
        (
            lambda: bootstrap(X1, "median", resampler=BayesianBootstrap(5)),
            r"'median' is not available with a resampler whose replicates are continuous weights",
        ),
        (
            lambda: bootstrap(X1, lambda a: a.mean(), resampler=BayesianBootstrap(5)),
            r"must accept a 'weights' or 'sample_weight' keyword",
        ),
        (
            lambda: bootstrap(X1, lambda a: np.ones((2, 2))),
            r"must return a scalar or a 1-D array; on the original data it returned shape \(2, 2\)",
        ),
        (
            lambda: bootstrap(X1, lambda a: "x"),
            r"must return a number or a 1-D array of numbers",
        ),
        (
            lambda: bootstrap(
                X1, lambda a: np.ones(int(a[0] > 0) + 1), n_resamples=50, random_state=0
            ),
            r"returned \d value\(s\) on replicate \d+, but \d on the original data",
        ),
        (
            lambda: bootstrap(
                X1,
                "var",
                resampler=Bootstrap(3, sample_size=1),
                statistic_kwargs={"ddof": 1},
            ),
            r"must be smaller than the replicate size 1",
        ),
    ],
)
def test_bad_input_messages(call, match):
    with pytest.raises((ValueError, StatisticError), match=match):
        call()


def test_n_resamples_none_means_the_resamplers_own_value():
    """n_resamples=None (the default) is "not given": the resampler's value, or
    9999 without one.  An explicit value replaces a resampler left at its
    default; two explicit values that differ are an error, 9999 included (it was
    read as "not given" and silently ran the resampler's 500)."""
    x = X1[:40]
    assert bootstrap(x, resampler=Bootstrap(500)).n_resamples == 500
    assert bootstrap(x, random_state=0).n_resamples == 9999
    assert bootstrap(x, resampler=Bootstrap(), n_resamples=300).n_resamples == 300
    mbb = MovingBlockBootstrap(block_length=3)
    assert bootstrap(x, resampler=mbb, n_resamples=30).n_resamples == 30
    assert mbb.n_resamples == 9999  # the caller's object is left alone
    assert bootstrap(x, resampler=Bootstrap(50), n_resamples=50).n_resamples == 50
    for B in (9999, 2000):
        with pytest.raises(ValueError, match=r"\(500\); set it in one place"):
            bootstrap(x, resampler=Bootstrap(500), n_resamples=B)
    est = BootstrapStatistic("mean", resampler=Bootstrap(50, random_state=0))
    assert est.get_params()["n_resamples"] is None
    assert clone(est).fit(x).distribution_.shape == (50,)
    with pytest.raises(ValueError, match="conflicts with the resampler's"):
        BootstrapStatistic(resampler=Bootstrap(50), n_resamples=9999).fit(x)
    with pytest.raises(ValueError, match="'n_resamples' parameter of bootstrap"):
        bootstrap(x, n_resamples=0)


def test_undefined_replicates_warn_and_intervals_refuse():
    x = np.array([0.0, 0.0, 0.0, 1.0])

    def ratio(a):
        return a.sum() / a.sum() if a.sum() else np.nan

    with pytest.warns(UndefinedStatisticWarning, match=r"not finite on \d+ of 200"):
        res = bootstrap(x, ratio, n_resamples=200, random_state=0)
    assert res.n_undefined > 0
    with pytest.raises(ValueError, match="undefined"):
        res.confidence_interval(method="percentile")


# ---------------------------------------------------------------------------
# intervals through the result
# ---------------------------------------------------------------------------
class _Dist:
    def __init__(self, d):
        self.bootstrap_distribution = d


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_intervals_equal_scipy_given_same_distribution(method, alternative):
    x = X1[:200]
    res = bootstrap(x, "mean", n_resamples=999, random_state=4)
    ours = res.confidence_interval(0.9, method=method, alternative=alternative)
    ref = scipy.stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=0,
        method=method,
        confidence_level=0.9,
        alternative=alternative,
        bootstrap_result=_Dist(np.asarray(res.distribution)),
    ).confidence_interval
    np.testing.assert_allclose([ours.low, ours.high], [ref.low, ref.high], rtol=1e-12)


def test_bca_with_callable_uses_exact_jackknife():
    x = X1[:100]
    a = bootstrap(x, "mean", n_resamples=500, random_state=1)
    b = bootstrap(x, lambda v: v.mean(), n_resamples=500, random_state=1)
    np.testing.assert_allclose(a.jackknife_values(), b.jackknife_values(), rtol=1e-12)
    ca, cb = a.confidence_interval(), b.confidence_interval()
    np.testing.assert_allclose([ca.low, ca.high], [cb.low, cb.high], rtol=1e-10)


@pytest.mark.parametrize(
    "name,kw",
    [
        ("var", None),
        ("std", {"ddof": 1}),
        ("median", None),
        ("quantile", {"q": [0.2, 0.7]}),
        ("sum", None),
    ],
)
def test_builtin_jackknife_closed_forms(name, kw):
    x = np.round(X1[:60], 1)
    res = bootstrap(x, name, n_resamples=10, random_state=0, statistic_kwargs=kw)
    funcs = {
        "var": np.var,
        "std": lambda v: np.std(v, ddof=1),
        "median": np.median,
        "quantile": lambda v: np.quantile(v, [0.2, 0.7]),
        "sum": np.sum,
    }
    ref = np.array([np.atleast_1d(funcs[name](np.delete(x, i))) for i in range(60)])
    np.testing.assert_allclose(res.jackknife_values(), ref, rtol=1e-10, atol=1e-12)
    xy = X2[:40, :2]
    r = bootstrap(xy, "corr", n_resamples=10, random_state=0)
    ref = [np.corrcoef(np.delete(xy, i, 0).T)[0, 1] for i in range(40)]
    np.testing.assert_allclose(r.jackknife_values()[:, 0], ref, rtol=1e-10)


def test_group_bca_uses_delete_one_group_jackknife():
    res = bootstrap(
        X1, "mean", resampler=GroupBootstrap(50, random_state=0), groups=GROUPS
    )
    jk = res.jackknife_values()
    assert jk.shape == (100, 1)
    np.testing.assert_allclose(jk[3, 0], X1[GROUPS != 3].mean())
    ci = res.confidence_interval(method="bca")
    assert ci.low < res.estimate < ci.high


def test_studentized_mean_closed_form_and_callable_se_agree():
    x = X1[:150]
    res = bootstrap(x, "mean", n_resamples=400, random_state=2)
    a = res.confidence_interval(method="studentized")
    b = res.confidence_interval(
        method="studentized", standard_error=lambda v: v.std(ddof=1) / np.sqrt(len(v))
    )
    np.testing.assert_allclose([a.low, a.high], [b.low, b.high], rtol=1e-9)
    assert a.low < res.estimate < a.high


def test_studentized_nested_bootstrap():
    x = X1[:40]
    res = bootstrap(x, lambda v: v.mean(), n_resamples=60, random_state=2)
    ci = res.confidence_interval(method="studentized", n_inner=25)
    assert ci.low < res.estimate < ci.high
    again = res.confidence_interval(method="studentized", n_inner=25)
    assert again == ci
    with pytest.raises(ValueError, match="needs standard_error=callable"):
        res.confidence_interval(method="studentized")


def test_interval_parameter_errors():
    res = bootstrap(X1, "mean", n_resamples=50, random_state=0)
    with pytest.raises(
        ValueError,
        match=r"'method' parameter of confidence_interval must be one of .*Got 'norm'",
    ):
        res.confidence_interval(method="norm")
    with pytest.raises(
        ValueError,
        match=r"'alternative' parameter of confidence_interval must be one of",
    ):
        res.confidence_interval(alternative="both")
    with pytest.raises(ValueError, match="level"):
        res.confidence_interval(level=1.5)


# ---------------------------------------------------------------------------
# results, pandas, provenance
# ---------------------------------------------------------------------------
def test_result_is_frozen_and_reproducible_from_recorded_entropy():
    res = bootstrap(X1, "mean", n_resamples=30)
    assert isinstance(res, BootstrapResult)
    with pytest.raises(AttributeError):
        res.estimate = 3.0  # type: ignore[misc]
    again = bootstrap(X1, "mean", n_resamples=30, random_state=res.random_state)
    np.testing.assert_array_equal(again.distribution, res.distribution)
    assert res.stream_version == STREAM_VERSION == 2
    assert res.n_resamples == 30
    assert "Bootstrap" in res.resampler


def test_generator_random_state_is_consumed_once_per_call():
    g = np.random.default_rng(5)
    a = bootstrap(X1, "mean", n_resamples=10, random_state=g)
    b = bootstrap(X1, "mean", n_resamples=10, random_state=g)
    assert not np.array_equal(a.distribution, b.distribution)
    c = bootstrap(X1, "mean", n_resamples=10, random_state=a.random_state)
    np.testing.assert_array_equal(a.distribution, c.distribution)


def test_pandas_labels_are_kept():
    df = pd.DataFrame(X2, columns=["a", "b", "c"], index=np.arange(300) * 2)
    res = bootstrap(df, "mean", n_resamples=20, random_state=0)
    assert list(res.estimate.index) == ["a", "b", "c"]
    assert list(res.distribution.columns) == ["a", "b", "c"]
    ci = res.confidence_interval(method="percentile")
    assert list(ci.low.index) == ["a", "b", "c"]
    s = pd.Series(X1, name="height")
    r = bootstrap(s, "median", n_resamples=20, random_state=0)
    assert r.distribution.name == "height"
    np.testing.assert_array_equal(
        np.asarray(r.distribution),
        bootstrap(X1, "median", n_resamples=20, random_state=0).distribution,
    )


def test_standard_error_and_bias():
    res = bootstrap(X1, "mean", n_resamples=200, random_state=0)
    d = np.asarray(res.distribution)
    assert res.standard_error == pytest.approx(d.std(ddof=1))
    assert res.bias == pytest.approx(d.mean() - X1.mean())
    # the bootstrap SE of a mean is close to s / sqrt(n): 200 replicates give
    # a relative Monte Carlo error of about 1/sqrt(2 * 200) = 5%; 25% is > 4 sigma.
    assert res.standard_error == pytest.approx(X1.std() / np.sqrt(500), rel=0.25)


# ---------------------------------------------------------------------------
# the meta-estimator
# ---------------------------------------------------------------------------
def test_bootstrap_statistic_matches_function_and_routes_y_groups():
    est = BootstrapStatistic("mean", resampler=StratifiedBootstrap(40, random_state=1))
    est.fit(X1, Y)
    ref = bootstrap(X1, "mean", resampler=StratifiedBootstrap(40, random_state=1), y=Y)
    np.testing.assert_array_equal(est.distribution_, ref.distribution)
    assert est.estimate_ == ref.estimate
    assert est.standard_error_ == ref.standard_error
    ci = est.confidence_interval(method="percentile")
    assert ci.low < est.estimate_ < ci.high
    g = BootstrapStatistic("mean", resampler=GroupBootstrap(10, random_state=0)).fit(
        X1, groups=GROUPS
    )
    assert g.distribution_.shape == (10,)
    assert clone(est).get_params()["statistic"] == "mean"
    assert est.n_features_in_ == 1


# ---------------------------------------------------------------------------
# independent samples
# ---------------------------------------------------------------------------
def test_independent_samples_match_scipy_bca_and_are_chunk_invariant():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=30), rng.normal(1, 2, size=45)

    def diff(a, b, axis=-1):
        return a.mean(axis) - b.mean(axis)

    res = bootstrap((x, y), diff, paired=False, n_resamples=999, random_state=0)
    plain = bootstrap(
        (x, y),
        lambda a, b: a.mean() - b.mean(),
        paired=False,
        n_resamples=999,
        random_state=0,
        chunk_size=7,
    )
    np.testing.assert_allclose(
        plain.distribution, res.distribution, rtol=1e-12, atol=1e-15
    )
    for method in ("bca", "percentile", "basic"):
        ours = res.confidence_interval(method=method)
        ref = scipy.stats.bootstrap(
            (x, y),
            diff,
            n_resamples=0,
            method=method,
            bootstrap_result=_Dist(np.asarray(res.distribution)),
        ).confidence_interval
        np.testing.assert_allclose(
            [ours.low, ours.high], [ref.low, ref.high], rtol=1e-12
        )
    # each sample is resampled within itself: SE close to the two-sample formula
    # (999 replicates: relative MC error ~2.2%, 15% tolerance is > 6 sigma)
    se = np.sqrt(x.var() / 30 + y.var() / 45)
    assert res.standard_error == pytest.approx(se, rel=0.15)


def test_independent_samples_errors():
    with pytest.raises(ValueError, match=r"with independent samples \(paired=False\)"):
        bootstrap((X1, X1[:10]), "corr", paired=False)
    with pytest.raises(ValueError, match="needs resampler=None or Bootstrap"):
        bootstrap(
            (X1, X1[:10]), lambda a, b: 0.0, paired=False, resampler=PoissonBootstrap(5)
        )
    with pytest.raises(ValueError, match="at least 2 observations in every sample"):
        bootstrap((X1, X1[:1]), lambda a, b: 0.0, paired=False)
    with pytest.raises(
        ValueError, match="'paired' parameter of bootstrap must be True or False"
    ):
        bootstrap((X1, X1), lambda a, b: 0.0, paired="no")


def test_progress_bar_only_when_asked(capsys):
    a = bootstrap(X1, "mean", n_resamples=50, random_state=0)
    assert capsys.readouterr().err == ""
    b = bootstrap(X1, "mean", n_resamples=50, random_state=0, progress=True)
    err = capsys.readouterr().err
    assert "50/50 replicates" in err and "100%" in err
    np.testing.assert_array_equal(a.distribution, b.distribution)
    BootstrapStatistic(n_resamples=20, random_state=0, progress=True).fit(X1)
    assert "20/20 replicates" in capsys.readouterr().err
    with pytest.raises(
        ValueError, match="'progress' parameter of bootstrap must be True or False"
    ):
        bootstrap(X1, "mean", progress="yes")


def test_n_resamples_is_capped_at_32_bits():
    with pytest.raises(
        ValueError, match=r"must be an int in \[1, 2\*\*32 - 1\].*Got 4294967296"
    ):
        Bootstrap(2**32).get_n_splits()
    assert Bootstrap(2**32 - 1).get_n_splits() == 2**32 - 1


@pytest.mark.parametrize("name", ["mean", "sum", "var", "std", "corr"])
def test_group_jackknife_closed_form_equals_refits(name):
    from skboot._engine import make_statistic

    data = X2[:, :2] if name == "corr" else X2
    codes = np.arange(300) // 7
    plan = GroupBootstrap(5, random_state=0).fit(data, groups=codes).plan_
    stat = make_statistic(
        name, (data,), vectorized=None, statistic_kwargs=None, plan=plan, owner="t"
    )
    fast = stat.group_jackknife(codes)
    slow = np.array(
        [
            stat.subset(np.flatnonzero(codes != g)).estimate()
            for g in range(codes.max() + 1)
        ]
    )
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


def test_bootstrap_statistic_refits_an_estimator():
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = X @ np.array([1.5, -2.0]) + rng.normal(scale=0.5, size=80)
    est = BootstrapStatistic(
        lambda m: m.coef_, estimator=LinearRegression(), n_resamples=30, random_state=1
    ).fit(X, y)
    assert est.distribution_.shape == (30, 2)
    np.testing.assert_allclose(est.estimate_, LinearRegression().fit(X, y).coef_)
    fitted = Bootstrap(30, random_state=1).fit(X)
    for b in (0, 17):
        idx = fitted.replicate(b).indices
        ref = LinearRegression().fit(X[idx], y[idx]).coef_
        np.testing.assert_allclose(est.distribution_[b], ref, rtol=1e-8, atol=1e-10)
    pipe = BootstrapStatistic(
        lambda p: p[-1].coef_,
        estimator=make_pipeline(StandardScaler(), Ridge()),
        n_resamples=10,
        random_state=0,
    ).fit(X, y)
    idx = Bootstrap(10, random_state=0).fit(X).replicate(4).indices
    ref = make_pipeline(StandardScaler(), Ridge()).fit(X[idx], y[idx])[-1].coef_
    np.testing.assert_allclose(pipe.distribution_[4], ref, rtol=1e-8)
    with pytest.raises(ValueError, match="must be a callable of the fitted estimator"):
        BootstrapStatistic("mean", estimator=LinearRegression()).fit(X, y)


def _iris_subset():
    """45 rows of iris (15 per class), as a DataFrame: cheap multiclass refits."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    rows = np.concatenate([np.arange(c * 50, c * 50 + 15) for c in range(3)])
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].to_numpy()


def test_refit_statistic_keeps_its_shape():
    """A multiclass coef_ (3 x 4) is no longer flattened without labels: results
    have its shape, intervals are elementwise, and values are the refits'."""
    from sklearn.linear_model import LogisticRegression

    from skboot import intervals as iv

    X, y = _iris_subset()
    Xn = X.to_numpy()
    B = 20
    est = BootstrapStatistic(
        lambda m: m.coef_, estimator=LogisticRegression(), n_resamples=B, random_state=0
    ).fit(Xn, y)
    full = LogisticRegression().fit(Xn, y).coef_
    assert full.shape == (3, 4)
    assert est.estimate_.shape == (3, 4) and est.distribution_.shape == (B, 3, 4)
    assert est.standard_error_.shape == est.bias_.shape == (3, 4)
    np.testing.assert_allclose(est.estimate_, full)
    fitted = Bootstrap(B, random_state=0).fit(Xn)
    for b in (0, 13):  # sample_weight=counts refits, element by element
        counts = fitted.replicate(b).counts.astype(float)
        ref = LogisticRegression().fit(Xn, y, sample_weight=counts).coef_
        np.testing.assert_allclose(est.distribution_[b], ref, rtol=1e-10)
    np.testing.assert_allclose(est.standard_error_, est.distribution_.std(0, ddof=1))

    # every interval method: each element's interval, as computed on the flat k = 12
    flat_dist, flat_est = est.distribution_.reshape(B, 12), est.estimate_.ravel()
    jk = est.result_.jackknife_values()
    assert jk.shape == (45, 12)
    for method, ref in [
        ("percentile", iv.percentile_interval(flat_dist)),
        ("normal", iv.normal_interval(flat_dist, flat_est)),
        ("bca", iv.bca_interval(flat_dist, flat_est, jk)),
    ]:
        ci = est.confidence_interval(method=method)
        assert ci.low.shape == ci.high.shape == (3, 4), method
        np.testing.assert_allclose(ci.low.ravel(), ref.low, rtol=1e-12)
        np.testing.assert_allclose(ci.high.ravel(), ref.high, rtol=1e-12)
    less = est.confidence_interval(method="percentile", alternative="less")
    assert less.low.shape == (3, 4) and np.isneginf(less.low).all()

    # a DataFrame: the feature axis is labelled, the class axis by position
    framed = BootstrapStatistic(
        lambda m: m.coef_, estimator=LogisticRegression(), n_resamples=B, random_state=0
    ).fit(X, y)
    assert isinstance(framed.estimate_, pd.DataFrame)
    assert list(framed.estimate_.columns) == list(X.columns)
    assert framed.estimate_.shape == (3, 4)
    np.testing.assert_array_equal(framed.distribution_, est.distribution_)
    ci = framed.confidence_interval(method="percentile")
    assert isinstance(ci.low, pd.DataFrame) and list(ci.low.columns) == list(X.columns)
    np.testing.assert_allclose(
        ci.low.to_numpy(), est.confidence_interval(method="percentile").low
    )


def test_refit_statistic_shape_must_not_change():
    from sklearn.linear_model import LogisticRegression

    X, y = _iris_subset()
    calls = []

    def coef(m):  # the original data, then replicate 0 transposed
        calls.append(1)
        return m.coef_.T if len(calls) == 2 else m.coef_

    with pytest.raises(
        StatisticError,
        match=r"returned shape \(4, 3\) on replicate 0, but \(3, 4\) on the original",
    ):
        BootstrapStatistic(
            coef, estimator=LogisticRegression(), n_resamples=3, random_state=0
        ).fit(X.to_numpy(), y)


def test_nan_policy():
    x = X1.copy()
    x[[3, 50, 51]] = np.nan
    clean = np.delete(X1, [3, 50, 51])
    with pytest.raises(ValueError, match=r"contains 3 row\(s\) with NaN"):
        bootstrap(x, "mean", n_resamples=10, random_state=0)
    omit = bootstrap(x, "mean", n_resamples=50, random_state=0, nan_policy="omit")
    ref = bootstrap(clean, "mean", n_resamples=50, random_state=0)
    np.testing.assert_array_equal(omit.distribution, ref.distribution)
    assert omit.n_omitted == 3 and ref.n_omitted == 0
    # paired arrays drop the row everywhere; y and groups follow
    y = Y.copy()
    paired = bootstrap(
        (x, X1),
        lambda a, b: np.mean(a - b),
        n_resamples=20,
        random_state=0,
        nan_policy="omit",
        resampler=StratifiedBootstrap(),
        y=y,
    )
    assert paired.n_omitted == 3
    with pytest.warns(UndefinedStatisticWarning):
        prop = bootstrap(
            x, "mean", n_resamples=50, random_state=0, nan_policy="propagate"
        )
    assert prop.n_undefined > 0
    nanmean = bootstrap(
        x, np.nanmean, n_resamples=50, random_state=0, nan_policy="propagate"
    )
    assert np.isfinite(nanmean.distribution).all()
    with pytest.raises(
        ValueError, match=r"'nan_policy' parameter of bootstrap must be one of"
    ):
        bootstrap(x, "mean", nan_policy="drop")
    with pytest.raises(ValueError, match="fewer than 2 observations left"):
        bootstrap(np.array([np.nan, 1.0, np.nan]), "mean", nan_policy="omit")
    est = BootstrapStatistic(
        "median", n_resamples=20, random_state=0, nan_policy="omit"
    ).fit(x)
    assert est.result_.n_omitted == 3


def test_callable_is_evaluated_once_on_the_original_data():
    calls = []

    def stat(a):
        calls.append(a.shape[0])
        return a.mean()

    bootstrap(X1[:50], stat, n_resamples=7, random_state=0)
    assert calls.count(50) == 1 + 7  # the estimate once, then one per replicate


@pytest.mark.parametrize("d", [8, 16])
def test_tiled_column_sums_kernel(d):
    """d a multiple of 8 takes the vector row kernel: same replicates, sums
    within rounding of numpy, and still independent of chunking."""
    X = np.random.default_rng(3).normal(size=(257, d))
    res = bootstrap(X, "mean", n_resamples=40, random_state=5)
    ref = bootstrap(
        X, lambda a: a.mean(axis=0), n_resamples=40, random_state=5, vectorized=False
    )
    np.testing.assert_allclose(
        res.distribution, ref.distribution, rtol=1e-12, atol=1e-14
    )
    for chunk in (1, 7):
        again = bootstrap(X, "mean", n_resamples=40, random_state=5, chunk_size=chunk)
        np.testing.assert_array_equal(again.distribution, res.distribution)


def _documented_column_sums(X, key, b, m, squares=False):
    """The kernels' summation rule in plain Python: within each tile of 512
    draws (four blocks of 128), draw j into accumulator j % 8, rows in draw
    order, the accumulators combined pairwise; the tiles' sums then pairwise as
    a binary counter does (each completed pair of equal groups added, earlier on
    the left; the leftover groups from the smallest up)."""
    from skboot._kernels.cascade import EIGHT_TILE_BLOCKS
    from skboot._random import FAST_BLOCK, reference_indices

    tile_draws = EIGHT_TILE_BLOCKS * FAST_BLOCK

    idx = reference_indices(key, 0, b, X.shape[0], m)
    levels = {}
    for count, t0 in enumerate(range(0, m, tile_draws)):
        acc = np.zeros((8, X.shape[1]))
        for j, r in enumerate(idx[t0 : t0 + tile_draws]):
            v = X[r] * X[r] if squares else X[r]
            acc[j % 8] = acc[j % 8] + v  # one IEEE add per lane, in order
        part = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + (
            (acc[4] + acc[5]) + (acc[6] + acc[7])
        )
        level = 0
        while count >> level & 1:
            part = levels.pop(level) + part
            level += 1
        levels[level] = part
    total = None
    for level in sorted(levels):
        total = levels[level] if total is None else levels[level] + total
    return np.zeros(X.shape[1]) if total is None else total


@pytest.mark.parametrize(
    ("n", "d", "m"), [(257, 8, 257), (101, 16, 37), (9, 24, 200), (300, 8, 1700)]
)
@pytest.mark.parametrize("want2", [False, True])
@pytest.mark.parametrize("aligned", [False, True])
def test_vector_row_kernel_equals_scalar_kernel_bit_for_bit(n, d, m, want2, aligned):
    """iid_moments_tiled (eight-lane vectors) == iid_moments (scalar) == the
    documented rule, exactly, whether or not rows start on a cache line."""
    from skboot._engine import aligned_rows
    from skboot._kernels.iid import iid_moments, iid_moments_tiled
    from skboot._random import check_random_state

    key = check_random_state(11)
    seed, gamma = key.stream(0)
    raw = np.random.default_rng(n).normal(size=(n * d + 1,))
    # a deliberately misaligned (8-byte offset) C-contiguous view
    X = raw[1:].reshape(n, d)
    if aligned:
        X = aligned_rows(X)
        assert X.ctypes.data % 64 == 0
    else:
        assert X.ctypes.data % 64 != 0
    nb = 6
    s1, s2 = np.empty((nb, d)), np.empty((nb, d))
    t1, t2 = np.empty((nb, d)), np.empty((nb, d))
    iid_moments(X, seed, gamma, 4, m, want2, s1, s2)
    iid_moments_tiled(X, seed, gamma, 4, m, want2, t1, t2)
    np.testing.assert_array_equal(t1, s1)
    if want2:
        np.testing.assert_array_equal(t2, s2)
    for k in range(nb):
        np.testing.assert_array_equal(t1[k], _documented_column_sums(X, key, 4 + k, m))
        if want2:
            np.testing.assert_array_equal(
                t2[k], _documented_column_sums(X, key, 4 + k, m, squares=True)
            )


@pytest.mark.parametrize(("n", "m"), [(10_000, 10_000), (100, 100), (37, 131)])
def test_mean_kernel_follows_its_documented_summation_order(n, m):
    """iid_sum_1d: draw j into accumulator j % 8 while whole groups of eight
    remain, the last partial group in order into a ninth; bit for bit."""
    from skboot._kernels.iid import iid_sum_1d
    from skboot._random import check_random_state, reference_indices

    key = check_random_state(5)
    seed, gamma = key.stream(0)
    x = np.random.default_rng(n).normal(size=n)
    out = np.empty(3)
    iid_sum_1d(x, seed, gamma, 7, m, out)
    for k in range(3):
        idx = reference_indices(key, 0, 7 + k, n, m)
        acc = [0.0] * 8
        full = m - m % 8
        for j in range(full):
            acc[j % 8] += float(x[idx[j]])
        tail = 0.0
        for j in range(full, m):
            tail += float(x[idx[j]])
        want = (
            ((acc[0] + acc[1]) + (acc[2] + acc[3]))
            + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
            + tail
        )
        assert out[k] == want


def _documented_sum_1d(x, idx):
    """iid_sum_1d's rule in Python (see the test above)."""
    m = idx.shape[0]
    acc = [0.0] * 8
    full = m - m % 8
    for j in range(full):
        acc[j % 8] += float(x[idx[j]])
    tail = 0.0
    for j in range(full, m):
        tail += float(x[idx[j]])
    return (
        ((acc[0] + acc[1]) + (acc[2] + acc[3]))
        + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        + tail
    )


@pytest.mark.parametrize("kind", ["offset", "integer"])
def test_engine_mean_and_sum_are_the_documented_centred_rule(kind):
    """ "mean"/"sum" of replicate b, bit for bit: c = the data's mean (rounded to an
    integer for integer-valued data), S = the kernel's sum of x - c in its
    documented order, sum = S + m * c, mean = sum / m."""
    from skboot._engine import centre_of
    from skboot._random import check_random_state, reference_indices

    gen = np.random.default_rng(8)
    n = 1003
    if kind == "offset":
        x = 1e9 + 1e-3 * gen.normal(size=n)
        c = np.mean(x)
    else:
        x = gen.integers(0, 7, size=n).astype(float)
        c = np.round(np.mean(x))
        assert c != np.mean(x)
    assert centre_of(x[:, None])[0] == c
    key = check_random_state(4)
    means = bootstrap(x, "mean", n_resamples=5, random_state=4).distribution
    sums = bootstrap(x, "sum", n_resamples=5, random_state=4).distribution
    for b in range(5):
        idx = reference_indices(key, 0, b, n, n)
        total = _documented_sum_1d(x - c, idx) + n * c
        assert sums[b] == total
        assert means[b] == total / n


def test_engine_column_means_are_the_documented_centred_rule():
    """2-D: per column, the same rule on the eight-accumulator column sums."""
    from skboot._random import check_random_state

    offsets = np.array([0.0, 1e6, -1e9, 1e9, 5.0, 0.0, 1e3, -7.0])
    X = offsets + np.random.default_rng(9).normal(size=(301, 8))
    c = X.mean(axis=0)
    key = check_random_state(6)
    res = bootstrap(X, "mean", n_resamples=3, random_state=6).distribution
    for b in range(3):
        total = _documented_column_sums(X - c, key, b, 301) + 301 * c
        np.testing.assert_array_equal(res[b], total / 301)


def test_aligned_rows():
    from skboot._engine import aligned_rows

    raw = np.random.default_rng(0).normal(size=(8 * 50 + 1,))
    X = raw[1:].reshape(50, 8)
    A = aligned_rows(X)
    assert A.ctypes.data % 64 == 0 and A.flags.c_contiguous
    np.testing.assert_array_equal(A, X)
    assert aligned_rows(A) is A  # already aligned: no copy
    Y = raw[1:351].reshape(50, 7)
    assert aligned_rows(Y) is Y  # d not a multiple of 8: left alone


def _first_rows(*arrays):
    """An order-dependent statistic: the first three drawn values of each array
    (their first column), so any reordering or wrong row would show."""
    return np.concatenate(
        [np.asarray(a, dtype=np.float64).reshape(len(a), -1)[:3, 0] for a in arrays]
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: Bootstrap(12, random_state=9),
        lambda: Bootstrap(12, sample_size=7, random_state=9),
        lambda: StratifiedBootstrap(12, random_state=9),
        lambda: MovingBlockBootstrap(12, block_length=4, random_state=9),
    ],
    ids=["iid", "m-out-of-n", "stratified", "moving-block"],
)
@pytest.mark.parametrize(
    "kind", ["float64-1d", "float64-2d", "int-1d", "strided-1d", "paired-mixed"]
)
@pytest.mark.parametrize("chunk", [None, 1, 5])
def test_plain_callable_sees_each_replicate_in_draw_order(make, kind, chunk):
    """Plain callables get exactly ``a[replicate(b).indices]`` whichever path
    builds it (the numba chunk gather for C-contiguous float64, ``np.take``
    otherwise) and whatever the chunk size."""
    rng = np.random.default_rng(4)
    n = 60
    if kind == "float64-2d":
        data = (rng.normal(size=(n, 3)),)
    elif kind == "int-1d":
        data = (rng.integers(0, 1000, size=n),)
    elif kind == "strided-1d":
        data = (rng.normal(size=2 * n)[::2],)
    elif kind == "paired-mixed":
        data = (rng.normal(size=n), rng.integers(0, 1000, size=n))
    else:
        data = (rng.normal(size=n),)
    y = np.arange(n) % 3
    res = bootstrap(
        data if len(data) > 1 else data[0],
        _first_rows,
        resampler=make(),
        vectorized=False,
        chunk_size=chunk,
        y=y,
    )
    fitted = make().fit(data[0], y)
    for b in range(12):
        idx = fitted.replicate(b).indices
        want = _first_rows(*[np.take(a, idx, axis=0) for a in data])
        np.testing.assert_array_equal(res.distribution[b], want)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Bootstrap(9, random_state=2),
        lambda: MovingBlockBootstrap(9, block_length=5, random_state=2),
    ],
    ids=["iid", "moving-block"],
)
def test_vectorized_callable_gets_the_same_rows_as_the_plain_path(make):
    x = np.random.default_rng(8).normal(size=80)

    def first3(a, axis=-1):
        return np.moveaxis(a, axis, -1)[..., :3]

    vec = bootstrap(x, first3, resampler=make(), vectorized=True)
    plain = bootstrap(x, lambda a: a[:3], resampler=make(), vectorized=False)
    np.testing.assert_array_equal(vec.distribution, plain.distribution)


def _naive_jackknife(func, arrays, codes=None, vectorized=False):
    n = arrays[0].shape[0]
    groups = np.arange(n) if codes is None else codes
    out = []
    for g in range(int(groups.max()) + 1):
        keep = np.flatnonzero(groups != g)
        sub = [np.take(a, keep, axis=0) for a in arrays]
        if vectorized:
            sub = [s if s.ndim == 1 else s.T for s in sub]
            out.append(np.atleast_1d(func(*sub, axis=-1)))
        else:
            out.append(np.atleast_1d(func(*sub)))
    return np.array(out, dtype=float)


@pytest.mark.parametrize(
    ("data", "func", "vectorized"),
    [
        ((X1[:97],), np.median, False),
        ((X1[:97],), np.median, True),
        ((X2[:61],), lambda a: a.mean(axis=0) * a[0], False),
        ((X2[:61],), lambda a, axis=-1: np.std(a, axis=axis), True),
        ((X1[:50], Y[:50].astype(float)), lambda a, b: np.corrcoef(a, b)[0, 1], False),
        ((X1[:50], Y[:50]), lambda a, b: a[b == 1].sum(), False),  # int array: np.take
    ],
    ids=[
        "plain-1d",
        "vectorized-1d",
        "plain-2d-vector",
        "vectorized-2d",
        "paired",
        "mixed",
    ],
)
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_callable_jackknife_runs_through_the_engine(data, func, vectorized, n_jobs):
    """Leave-one-out values of callables come from the engine in chunks (and in
    parallel when asked) and equal the one-at-a-time loop exactly."""
    res = bootstrap(
        data if len(data) > 1 else data[0],
        func,
        n_resamples=20,
        random_state=0,
        vectorized=vectorized,
        n_jobs=n_jobs,
    )
    jk = res.jackknife_values()
    want = _naive_jackknife(func, data, vectorized=vectorized).reshape(jk.shape)
    if vectorized and data[0].ndim == 2:
        # the chunk hands numpy (c, d, n-1) batches, the loop (d, n-1) strided
        # views: numpy's reductions may round the last bit differently
        np.testing.assert_allclose(jk, want, rtol=1e-14, atol=0)
    else:
        np.testing.assert_array_equal(jk, want)


def test_callable_delete_one_group_jackknife():
    x = X1[:60]
    groups = np.arange(60) // 7
    res = bootstrap(
        x, np.median, resampler=GroupBootstrap(30, random_state=1), groups=groups
    )
    want = _naive_jackknife(np.median, (x,), codes=groups)
    np.testing.assert_array_equal(res.jackknife_values(), want)


def test_callable_jackknife_failure_names_the_left_out_row():
    x = np.arange(30.0)

    def fragile(a):
        if 7.0 not in a:
            raise ZeroDivisionError("no seven")
        return a.mean()

    res = bootstrap(x, fragile, n_resamples=0 + 5, random_state=0, vectorized=False)
    with pytest.raises(StatisticError, match=r"without row 7 .*BCa.*no seven") as info:
        res.confidence_interval(method="bca")
    assert info.value.replicate == 7


def test_random_jackknife_groups_are_balanced_and_seeded():
    from skboot._random import check_random_state
    from skboot._run import random_jackknife_groups

    key = check_random_state(3)
    codes = random_jackknife_groups(key, 103, 10)
    sizes = np.bincount(codes)
    assert sizes.shape == (10,) and sizes.min() >= 10 and sizes.max() <= 11
    np.testing.assert_array_equal(codes, random_jackknife_groups(key, 103, 10))
    other = random_jackknife_groups(check_random_state(4), 103, 10)
    assert not np.array_equal(codes, other)
    assert not np.array_equal(codes, np.sort(codes))  # rows are shuffled


def test_grouped_jackknife_with_one_row_per_group_is_the_leave_one_out():
    x = np.random.default_rng(2).exponential(size=150)
    res = bootstrap(x, np.median, n_resamples=500, random_state=1, vectorized=False)
    full = res.confidence_interval(method="bca")
    same = res.confidence_interval(method="bca", jackknife_groups=150)
    np.testing.assert_allclose(same, full, rtol=1e-12)
    jk = res.jackknife_values(groups=150)
    np.testing.assert_allclose(np.sort(jk[:, 0]), np.sort(res.jackknife_values()[:, 0]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grouped_jackknife_bca_is_close_to_the_full_one(seed):
    """Skewed data (exponential, n = 2000): 100 random groups move the BCa
    endpoints by under 3% of the interval width (observed: at most 1%)."""
    x = np.random.default_rng(seed).exponential(size=2000)
    res = bootstrap(x, np.mean, n_resamples=4000, random_state=seed, vectorized=False)
    full = res.confidence_interval(method="bca", jackknife_groups="full")
    grouped = res.confidence_interval(method="bca", jackknife_groups=100)
    assert (full.jackknife_groups, grouped.jackknife_groups) == (None, 100)
    width = full.high - full.low
    assert abs(grouped.low - full.low) < 0.03 * width
    assert abs(grouped.high - full.high) < 0.03 * width


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_grouped_jackknife_builtins_match_callables(statistic):
    x = np.random.default_rng(5).normal(size=300)
    func = {"mean": np.mean, "median": np.median}[statistic]
    a = bootstrap(x, statistic, n_resamples=10, random_state=2)
    b = bootstrap(x, func, n_resamples=10, random_state=2, vectorized=False)
    np.testing.assert_allclose(
        a.jackknife_values(groups=30), b.jackknife_values(groups=30), rtol=1e-12
    )


def test_jackknife_groups_bad_input():
    x = np.random.default_rng(0).normal(size=40)
    res = bootstrap(x, np.mean, n_resamples=10, random_state=0)
    for bad in (1, 41, 2.5, True, "10", None, "Full"):
        with pytest.raises(
            ValueError,
            match=r"'jackknife_groups' parameter of confidence_interval must be "
            r"'auto', 'full' or an int in \[2, 40\]. Got ",
        ):
            res.confidence_interval(jackknife_groups=bad)
    with pytest.raises(ValueError, match=r"of jackknife_values must be an int in"):
        res.jackknife_values(groups="full")
    grouped = bootstrap(
        x,
        np.mean,
        resampler=GroupBootstrap(10, random_state=0),
        groups=np.arange(40) // 4,
    )
    with pytest.raises(
        ValueError, match="must be 'auto' or 'full' with GroupBootstrap"
    ):
        grouped.confidence_interval(jackknife_groups=5)
    with pytest.raises(ValueError, match="must be None with GroupBootstrap"):
        grouped.jackknife_values(groups=5)
    indep = bootstrap(
        (x, x[:30]), lambda a, b: a.mean() - b.mean(), paired=False, n_resamples=10
    )
    with pytest.raises(ValueError, match="independent samples"):
        indep.confidence_interval(jackknife_groups=5)


@pytest.mark.parametrize("statistic", ["mean", np.mean])
def test_stratified_bca_ignores_differences_between_strata(statistic):
    """Stratified resampling holds the strata fixed, so shifting one stratum by a
    constant shifts every replicate of the pooled mean by the same amount; the BCa
    interval must shift by exactly that (the acceleration is the multi-sample
    one, strata as independent samples).  The one-sample jackknife would let the
    shift into the acceleration: checked below to move the interval."""
    from skboot.intervals import bca_interval

    rng = np.random.default_rng(6)
    x = rng.exponential(size=300)
    y = np.arange(300) % 3
    shift = np.where(y == 1, 50.0, 0.0)
    kw = {"y": y, "vectorized": False} if callable(statistic) else {"y": y}

    def run(data):
        return bootstrap(
            data, statistic, resampler=StratifiedBootstrap(2000, random_state=0), **kw
        )

    r1, r2 = run(x), run(x + shift)
    c = 50.0 * np.mean(y == 1)
    ci1, ci2 = r1.confidence_interval(), r2.confidence_interval()
    np.testing.assert_allclose(
        [ci2.low - c, ci2.high - c], [ci1.low, ci1.high], rtol=1e-9
    )
    naive = bca_interval(r2.distribution, r2.estimate, r2.jackknife_values()[:, 0])
    assert abs((naive.low - c) - ci1.low) > 1e-3 * (ci1.high - ci1.low)


# ---------------------------------------------------------------------------
# the automatic delete-a-group jackknife of BCa, and its progress bar
# ---------------------------------------------------------------------------
class _Counting:
    """A plain callable statistic (the mean) that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, a):
        self.calls += 1
        return a.mean()


def test_bca_of_a_callable_on_many_rows_uses_seeded_groups():
    from skboot._run import AUTO_JACKKNIFE_GROUPS

    assert AUTO_JACKKNIFE_GROUPS == 1000
    x = np.random.default_rng(21).exponential(size=1500)
    stat = _Counting()
    res = bootstrap(x, stat, n_resamples=200, random_state=4)
    stat.calls = 0
    auto = res.confidence_interval()
    assert stat.calls == 1000  # not 1500
    assert auto.jackknife_groups == 1000
    same = res.confidence_interval(jackknife_groups=1000)
    assert same == auto and same.jackknife_groups == 1000
    stat.calls = 0
    full = res.confidence_interval(jackknife_groups="full")
    assert stat.calls == 1500 and full.jackknife_groups is None
    assert full != auto  # another jackknife, close to it
    width = full.high - full.low
    assert abs(full.low - auto.low) < 0.03 * width
    assert abs(full.high - auto.high) < 0.03 * width
    assert res.confidence_interval(method="bc").jackknife_groups is None


def test_auto_jackknife_stays_full_where_the_rule_says():
    x = np.random.default_rng(22).exponential(size=1200)
    small = bootstrap(x[:1000], np.median, n_resamples=50, random_state=0)
    builtin = bootstrap(x, "median", n_resamples=50, random_state=0)
    grouped = bootstrap(
        x, np.median, resampler=GroupBootstrap(50), groups=np.arange(1200) // 3
    )
    blocks = bootstrap(
        x, np.median, resampler=MovingBlockBootstrap(50, block_length=10)
    )
    strata = bootstrap(
        x, np.mean, resampler=StratifiedBootstrap(50), y=np.arange(1200) % 2
    )
    indep = bootstrap(
        (x, x[:1100]), lambda a, b: a.mean() - b.mean(), n_resamples=50, paired=False
    )
    for res in (small, builtin, grouped, blocks, strata, indep):
        ci = res.confidence_interval()
        assert ci.jackknife_groups is None
        assert ci == res.confidence_interval(jackknife_groups="full")


def test_jackknife_of_a_callable_shows_progress_when_the_run_did(capsys):
    x = np.random.default_rng(23).normal(size=300)
    quiet = bootstrap(x, np.median, n_resamples=20, random_state=0)
    quiet.confidence_interval()
    assert capsys.readouterr().err == ""
    loud = bootstrap(x, np.median, n_resamples=20, random_state=0, progress=True)
    assert "20/20 replicates" in capsys.readouterr().err
    loud.confidence_interval()
    assert "300/300 jackknife samples" in capsys.readouterr().err
    loud.confidence_interval(jackknife_groups=30)
    assert "30/30 jackknife samples" in capsys.readouterr().err
