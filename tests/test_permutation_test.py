"""permutation_test: scipy's semantics (exact to 1e-12, randomized within Monte
Carlo error), fused statistics equal to their callables, published examples,
chunk / n_jobs / backend invariance, bad inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats

from skboot import StatisticError, UndefinedStatisticWarning
from skboot._kernels.significance import indep_sum_chunk, indep_sum_perms
from skboot._random import PURPOSE, check_random_state
from skboot.resamplers import Permutation
from skboot.significance import permutation_test
from skboot.significance._plans import PermutationTestPlan


def _mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


#: fused name -> (permutation type, the callable it stands for)
FUSED = {
    "mean_diff": ("independent", _mean_diff),
    "median_diff": (
        "independent",
        lambda x, y, axis=-1: np.median(x, axis=axis) - np.median(y, axis=axis),
    ),
    "t": ("independent", lambda x, y, axis=-1: stats.ttest_ind(x, y, axis=axis)[0]),
    "welch_t": (
        "independent",
        lambda x, y, axis=-1: stats.ttest_ind(x, y, axis=axis, equal_var=False)[0],
    ),
    "pearson": ("pairings", lambda x, y, axis=-1: stats.pearsonr(x, y, axis=axis)[0]),
    # Spearman's rho: Pearson's r on average ranks (scipy.stats.spearmanr)
    "spearman": (
        "pairings",
        lambda x, y, axis=-1: stats.pearsonr(
            stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis), axis=axis
        )[0],
    ),
    "paired_mean_diff": ("samples", lambda x, y, axis=-1: np.mean(x - y, axis=axis)),
    "paired_t": ("samples", lambda x, y, axis=-1: stats.ttest_rel(x, y, axis=axis)[0]),
}


def _data(name, rng, n):
    kind = FUSED[name][0]
    if kind == "independent":
        return rng.normal(size=n), rng.normal(0.6, 1.3, size=n - 1)
    x = rng.normal(size=n)
    return x, 0.5 * x + rng.normal(size=n)


@pytest.mark.parametrize("name", list(FUSED))
def test_exact_equals_scipy(name, rng):
    kind, func = FUSED[name]
    data = _data(name, rng, 4 if kind == "pairings" else 6)
    for alternative in ("two-sided", "less", "greater"):
        ours = permutation_test(
            data,
            name,
            permutation_type=kind,
            n_resamples=np.inf,
            alternative=alternative,
        )
        ref = stats.permutation_test(
            data,
            func,
            permutation_type=kind,
            n_resamples=np.inf,
            alternative=alternative,
            vectorized=True,
        )
        assert ours.exact
        assert ours.n_resamples == ref.null_distribution.shape[0]
        np.testing.assert_allclose(
            np.sort(ours.null_distribution),
            np.sort(ref.null_distribution),
            rtol=1e-12,
            atol=1e-12,
        )
        assert ours.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert ours.null_distribution[0] == ours.statistic  # rank 0: the data


@pytest.mark.parametrize(
    ("kind", "data", "func"),
    [
        ("independent", (4, 3, 4), lambda a, b, c, axis=-1: a.mean(axis) - c.std(axis)),
        ("samples", (5, 5, 5), lambda a, b, c, axis=-1: (a - 2 * b + c).mean(axis)),
        ("samples", (8,), lambda a, axis=-1: stats.skew(a, axis=axis)),
        ("pairings", (6,), lambda a, axis=-1: np.sum(a * np.arange(6.0), axis=axis)),
    ],
)
def test_exact_callables_equal_scipy(kind, data, func, rng):
    samples = tuple(rng.normal(size=n) for n in data)
    ours = permutation_test(samples, func, permutation_type=kind, n_resamples=np.inf)
    ref = stats.permutation_test(
        samples, func, permutation_type=kind, n_resamples=np.inf, vectorized=True
    )
    np.testing.assert_allclose(
        np.sort(ours.null_distribution), np.sort(ref.null_distribution), atol=1e-12
    )
    assert ours.pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_batch_axis_and_plain_callables_equal_scipy(rng):
    X, Y = rng.normal(size=(3, 6)), rng.normal(0.5, 1, size=(1, 5))
    ref = stats.permutation_test((X, Y), _mean_diff, axis=1, vectorized=True)
    vec = permutation_test((X, Y), _mean_diff, axis=1)
    plain = permutation_test(
        (X, Y), lambda a, b: a.mean() - b.mean(), axis=1, vectorized=False
    )
    for ours in (vec, plain):
        assert ours.null_distribution.shape == ref.null_distribution.shape == (462, 3)
        np.testing.assert_allclose(ours.pvalue, ref.pvalue, atol=1e-12)
        np.testing.assert_allclose(ours.statistic, ref.statistic, atol=1e-12)
    assert np.array_equal(vec.null_distribution[:, 2], plain.null_distribution[:, 2])


@pytest.mark.parametrize("name", list(FUSED))
def test_fused_equals_callable_on_the_same_permutations(name, rng):
    kind, func = FUSED[name]
    data = _data(name, rng, 40)
    fused = permutation_test(
        data, name, permutation_type=kind, n_resamples=300, random_state=4
    )
    call = permutation_test(
        data, func, permutation_type=kind, n_resamples=300, random_state=4
    )
    assert not fused.exact
    np.testing.assert_allclose(
        fused.null_distribution, call.null_distribution, rtol=1e-12, atol=1e-13
    )
    assert fused.pvalue == call.pvalue


def test_streaming_kernel_equals_explicit_permutations(rng):
    """The mean-difference kernel stops each shuffle at n1 and never writes the
    fixed positions; its sums must equal, bit for bit, the sums over the first
    n1 positions of the full permutations (and the Permutation splitter)."""
    z = rng.normal(size=301)
    key = check_random_state(9)
    seed, gamma = key.stream(PURPOSE["permutation"])
    streamed = np.empty((50, 1))
    indep_sum_chunk(seed, gamma, np.int64(100), z, 120, streamed)
    plan = PermutationTestPlan.build(key, "independent", (120, 181), False)
    perms = np.empty((50, 301), dtype=np.int64)
    plan.fill(100, perms)
    explicit = np.empty((50, 1))
    indep_sum_perms(z, perms, 120, explicit)
    assert np.array_equal(streamed, explicit)
    splitter = Permutation(n_resamples=200, random_state=9).fit(z)
    assert np.array_equal(perms[7], splitter.replicate(107).indices)


def test_randomized_pvalues_agree_with_scipy_within_monte_carlo_error(rng):
    """Both estimate the exact p-value from B = 9999 permutations: they differ by
    at most 4.5 standard errors of the difference (false failure ~1e-5)."""
    x, y = rng.normal(size=25), rng.normal(0.5, 1.0, size=30)
    for name in ("mean_diff", "welch_t"):
        func = FUSED[name][1]
        ours = permutation_test((x, y), name, random_state=1)
        ref = stats.permutation_test((x, y), func, vectorized=True, rng=1)
        p = 0.5 * (ours.pvalue + ref.pvalue)
        assert abs(ours.pvalue - ref.pvalue) <= 4.5 * np.sqrt(2 * p * (1 - p) / 9999)
        assert ours.pvalue >= 1 / 10_000  # (r + 1) / (B + 1) is never 0


def test_pvalue_rule_on_the_returned_null(rng):
    x, y = rng.normal(size=12), rng.normal(size=12)
    res = permutation_test((x, y), "t", n_resamples=499, random_state=0)
    t, null = res.statistic, res.null_distribution
    tol = 100 * np.finfo(float).eps * abs(t)
    greater = (np.count_nonzero(null >= t - tol) + 1) / 500
    less = (np.count_nonzero(null <= t + tol) + 1) / 500
    assert res.pvalue == pytest.approx(min(1.0, 2 * min(greater, less)), abs=1e-15)


def test_fisher_darwin_zea_mays():
    """Fisher (1935, section 21): 863 of the 2**15 sign patterns give a sum at
    least as large as Darwin's observed 314, one-sided p = 863/32768."""
    d = np.array([49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48.0])
    res = permutation_test(
        (d,),
        "paired_mean_diff",
        permutation_type="samples",
        n_resamples=2**15,
        alternative="greater",
    )
    assert res.exact and res.n_resamples == 2**15
    assert res.pvalue == 863 / 32768
    two = permutation_test(
        (d,), "paired_mean_diff", permutation_type="samples", n_resamples=np.inf
    )
    assert two.pvalue == 2 * 863 / 32768


def test_lady_tasting_tea():
    """Fisher's tea tasting: all 8 cups right, p = 1 / C(8, 4) = 1/70."""
    guessed_milk_first = np.ones(4)
    guessed_tea_first = np.zeros(4)
    res = permutation_test(
        (guessed_milk_first, guessed_tea_first), "mean_diff", alternative="greater"
    )
    assert res.exact and res.n_resamples == 70
    assert res.pvalue == pytest.approx(1 / 70, abs=1e-15)


@pytest.mark.parametrize("name", ["mean_diff", "pearson", "paired_t"])
def test_bit_identical_across_chunks_jobs_and_backends(name, rng):
    kind, func = FUSED[name]
    data = _data(name, rng, 200)
    runs = []
    for statistic in (name, func):
        base = permutation_test(
            data, statistic, permutation_type=kind, n_resamples=600, random_state=3
        )
        runs.append(base.null_distribution)
        for chunk in (1, 7):
            again = permutation_test(
                data,
                statistic,
                permutation_type=kind,
                n_resamples=600,
                random_state=3,
                chunk_size=chunk,
            )
            assert np.array_equal(again.null_distribution, base.null_distribution)
        # loky once (worker start-up is slow on a shared machine), threads always
        backends = ("loky", "threading") if name == "pearson" else ("threading",)
        for backend in backends:
            with parallel_config(backend=backend):
                par = permutation_test(
                    data,
                    statistic,
                    permutation_type=kind,
                    n_resamples=600,
                    random_state=3,
                    n_jobs=2,
                    chunk_size=50,
                )
            assert np.array_equal(par.null_distribution, base.null_distribution)
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-12, atol=1e-13)


def test_exact_test_bit_identical_across_chunks(rng):
    x, y = rng.normal(size=7), rng.normal(size=6)
    base = permutation_test((x, y), "median_diff", n_resamples=np.inf)
    small = permutation_test((x, y), "median_diff", n_resamples=np.inf, chunk_size=5)
    with parallel_config(backend="threading"):
        par = permutation_test((x, y), "median_diff", n_resamples=np.inf, n_jobs=2)
    assert base.random_state is None
    assert np.array_equal(base.null_distribution, small.null_distribution)
    assert np.array_equal(base.null_distribution, par.null_distribution)


def test_reproducible_from_recorded_state(rng):
    x, y = rng.normal(size=30), rng.normal(size=30)
    first = permutation_test((x, y), "mean_diff", n_resamples=99)
    again = permutation_test(
        (x, y), "mean_diff", n_resamples=99, random_state=first.random_state
    )
    assert np.array_equal(first.null_distribution, again.null_distribution)


def test_undefined_statistic_warns_and_counts(rng):
    x, y = rng.normal(size=10), rng.normal(size=10)

    def stat(a, b, axis=-1):
        out = a.mean(axis=axis) - b.mean(axis=axis)
        return np.where(out > 0.3, np.nan, out)

    with pytest.warns(UndefinedStatisticWarning, match=r"NaN \(undefined\) on"):
        res = permutation_test((x, y), stat, n_resamples=200, random_state=0)
    assert res.n_undefined == int(np.isnan(res.null_distribution).sum()) > 0


def test_statistic_errors_name_the_replicate(rng):
    x, y = rng.normal(size=10), rng.normal(size=10)
    calls = []

    def fragile(a, b):
        calls.append(1)
        if len(calls) == 5:
            raise RuntimeError("boom")
        return a.mean() - b.mean()

    with pytest.raises(StatisticError, match=r"replicate 3.*boom"):
        permutation_test((x, y), fragile, n_resamples=20, random_state=0)


X2 = (np.arange(5.0), np.arange(6.0))
BAD = [
    ({"permutation_type": "paired"}, "'permutation_type' parameter"),
    ({"alternative": "bigger"}, "'alternative' parameter"),
    ({"n_resamples": 0}, "'n_resamples' parameter"),
    ({"n_resamples": 2.5}, "'n_resamples' parameter"),
    ({"n_resamples": -np.inf}, "'n_resamples' parameter"),
    ({"n_resamples": True}, "'n_resamples' parameter"),
    ({"vectorized": "yes"}, "'vectorized' parameter"),
    ({"statistic": "mean"}, "'statistic' parameter"),
    ({"statistic": 3}, "'statistic' parameter"),
    ({"statistic": "pearson"}, "defined for permutation_type='pairings'"),
    ({"data": np.zeros(5)}, "tuple of samples"),
    ({"data": (np.zeros(5),)}, "at least two samples"),
    ({"data": (np.zeros(5), np.zeros(1))}, "at least 2 observations"),
    ({"data": (np.zeros(3), np.zeros(3), np.zeros(3))}, "for the fused statistic"),
    ({"data": (np.zeros((2, 3)), np.zeros((2, 3)))}, "for the fused statistic"),
    ({"data": (np.array(["a", "b"]), np.zeros(3))}, "real numbers"),
    (
        {
            "data": (np.zeros(3), np.zeros(4)),
            "permutation_type": "samples",
            "statistic": "paired_t",
        },
        "samples of one length",
    ),
    ({"axis": 2}, "'axis' parameter"),
    ({"axis": 0.0}, "'axis' parameter"),
    ({"n_jobs": 0}, "'n_jobs' parameter"),
    ({"chunk_size": 0}, "'chunk_size' parameter"),
    ({"random_state": -1}, "'random_state' parameter"),
    (
        {"data": (np.zeros(40), np.zeros(40)), "n_resamples": np.inf},
        "distinct permutations",
    ),
]


@pytest.mark.parametrize(("kwargs", "match"), BAD, ids=[m for _, m in BAD])
def test_bad_inputs_fail_before_work(kwargs, match, monkeypatch):
    import skboot.significance._permutation_test as mod

    def no_work(*args, **kw):
        raise AssertionError("work started before the error")

    monkeypatch.setattr(mod, "run_bootstrap", no_work)
    call = {"data": X2, "statistic": "mean_diff", **kwargs}
    with warnings.catch_warnings(), pytest.raises(ValueError, match=match):
        permutation_test(call.pop("data"), call.pop("statistic"), **call)
