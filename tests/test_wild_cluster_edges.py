"""wild_cluster_bootstrap at its edges: an undefined ``t`` (zero standard error up
to rounding), p-values at a bad null value, too few replicates for an interval,
too few clusters for Rademacher weights, Webb's weights, and the burn-in limits
of the AR residual bootstraps.

The property test draws exactly fitted responses (``y = c + X beta``, any scale,
offset and cluster layout) and NaN-holding inputs with hypothesis
(derandomized, no example database): an undefined ``t`` never yields a p-value
below 1; it is NaN with an :class:`~skboot.UndefinedStatisticWarning`, or the
input is refused with a ``ValueError`` naming the parameter.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skboot import (
    ResidualBootstrap,
    SieveBootstrap,
    UndefinedStatisticWarning,
    WildBootstrap,
    wild_cluster_bootstrap,
)
from skboot._kernels.model_based import WEBB
from skboot.model_based import FewClustersWarning
from skboot.model_based import _residual as residual_module
from skboot.model_based._cluster_checks import few_clusters_message, min_resamples

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def clustered(G=10, per=20, k=2, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(G), per)
    X = rng.normal(size=(G * per, k)) + rng.normal(size=(G, k))[g]
    y = X[:, 0] * 0.3 + rng.normal(size=G * per) + rng.normal(size=G)[g]
    return X, y, g


# ---------------------------------------------------------------------------
# an undefined t
# ---------------------------------------------------------------------------
def test_constant_response_gives_nan_not_a_small_p_value():
    """The reported case: a constant y fitted by a 3-column design.  The
    standard error is rounding noise (6e-18) and t = 6.4 gave p = 0.006."""
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(10), 20)
    rng.normal(size=200)
    X = rng.normal(size=(200, 3))
    with pytest.warns(UndefinedStatisticWarning, match="zero up to rounding"):
        res = wild_cluster_bootstrap(
            X, np.ones(200), g, n_resamples=999, random_state=0
        )
    assert math.isnan(res.pvalue) and math.isnan(res.statistic)
    assert res.standard_error == 0.0
    assert res.null_distribution.shape == (999,)
    assert np.isnan(res.null_distribution).all()
    assert all(math.isnan(v) for v in res.confidence_interval())
    assert abs(res.estimate) < 1e-15  # the coefficient itself is defined: 0
    with pytest.warns(UndefinedStatisticWarning, match="t is undefined"):
        assert math.isnan(res.pvalue_at(1.0))


@pytest.mark.parametrize(
    "make",
    [
        lambda X: np.zeros(len(X)),  # exact zero standard error
        lambda X: np.full(len(X), 3e5),
        lambda X: np.full(len(X), -2e-9),
        lambda X: 5.0 + X @ np.arange(1.0, X.shape[1] + 1),
        lambda X: 1e8 * (X @ np.ones(X.shape[1])) - 4e7,
    ],
    ids=["zeros", "big-constant", "tiny-constant", "linear", "big-linear"],
)
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_exact_fits_are_undefined(make, alternative):
    X, _, g = clustered(G=6, per=15, k=3, seed=1)
    with pytest.warns(UndefinedStatisticWarning):
        res = wild_cluster_bootstrap(
            X, make(X), g, alternative=alternative, n_resamples=99, random_state=1
        )
    assert math.isnan(res.pvalue)


@pytest.mark.parametrize("offset", [1e3, 1e4])
def test_ill_conditioned_exact_fit_is_undefined(offset):
    """x = offset + noise with an intercept: kappa**2 ~ offset**2 amplifies the
    rounding in the residuals; the rule scales with it."""
    rng = np.random.default_rng(2)
    g = np.repeat(np.arange(10), 20)
    x = offset + rng.normal(size=200)
    with pytest.warns(UndefinedStatisticWarning):
        res = wild_cluster_bootstrap(x, 3.0 * x - 2.0, g, n_resamples=99)
    assert math.isnan(res.pvalue)


@pytest.mark.parametrize("noise", [1e-10, 1e-6])
def test_small_real_noise_stays_defined(noise):
    """Noise far above rounding (1e-10 relative is ~4.5e5 ulps) is data."""
    X, _, g = clustered(G=12, per=20, k=2, seed=3)
    rng = np.random.default_rng(4)
    y = 1.0 + noise * rng.normal(size=len(g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = wild_cluster_bootstrap(X, y, g, n_resamples=199, random_state=0)
    assert res.standard_error > 0 and 0.0 <= res.pvalue <= 1.0
    # t is invariant to y -> (y - 1) / noise: the same test on data of scale 1
    ref = wild_cluster_bootstrap(X, (y - 1.0) / noise, g, n_resamples=199,
                                 random_state=0)  # fmt: skip
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-3)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ({"y": "nan"}, "'y' parameter .* finite"),
        ({"y": "inf"}, "'y' parameter .* finite"),
        ({"X": "nan"}, "'X' parameter .* finite"),
        ({"X": "inf"}, "'X' parameter .* finite"),
        ({"X": "huge"}, "'X' parameter .* overflows"),
        ({"y": "huge"}, "'y' parameter .* overflows"),
    ],
)
def test_non_finite_or_overflowing_inputs_are_refused(bad, match):
    X, y, g = clustered(seed=5)
    X, y = X.copy(), y.copy()
    ((name, kind),) = bad.items()
    target = X if name == "X" else y
    if kind == "huge":
        target *= 1e200
    else:
        target.flat[7] = np.nan if kind == "nan" else np.inf
    with pytest.raises(ValueError, match=match):
        wild_cluster_bootstrap(X, y, g, n_resamples=99)


# ---------------------------------------------------------------------------
# pvalue_at and n_resamples
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, "a", None, True, [1.0]])
def test_pvalue_at_refuses_a_bad_value(value):
    X, y, g = clustered(seed=6)
    res = wild_cluster_bootstrap(X, y, g, n_resamples=99, random_state=0)
    with pytest.raises(ValueError, match="'null' parameter of WildClusterResult"):
        res.pvalue_at(value)
    assert res.pvalue_at(np.float32(0.1)) == res.pvalue_at(0.1)


@pytest.mark.parametrize(
    ("alternative", "level", "low"),
    [
        ("two-sided", 0.95, 19),
        ("greater", 0.95, 19),
        ("equal-tailed", 0.95, 39),
        ("two-sided", 0.9, 9),
        ("two-sided", 0.99, 99),
    ],
)
def test_too_few_replicates_for_the_interval(alternative, level, low):
    assert min_resamples(1.0 - level, alternative) == low
    X, y, g = clustered(G=30, per=5, seed=7)  # 2**30 > B: drawn, never enumerated
    kw = {"alternative": alternative, "level": level, "random_state": 0}
    # the p-value: any n_resamples >= 1; the interval at the run's level is
    # refused, naming the highest level those replicates reach
    few = wild_cluster_bootstrap(X, y, g, n_resamples=low - 1, **kw)
    step = 2 if alternative == "equal-tailed" else 1
    with pytest.raises(
        ValueError,
        match=rf"'level' parameter of WildClusterResult.confidence_interval must be "
        rf"at most 1 - {step} / \(n_resamples \+ 1\) = .* n_resamples >= {low}",
    ):
        few.confidence_interval()
    highest_reachable = 1.0 - step / low  # what low - 1 replicates can reach
    assert few.confidence_interval(highest_reachable - 1e-9) is not None
    frame = few.to_frame()
    assert np.isnan(frame.loc[0, "low"]) and np.isnan(frame.loc[0, "high"])
    assert frame.loc[0, "pvalue"] == few.pvalue
    res = wild_cluster_bootstrap(X, y, g, n_resamples=low, **kw)
    assert res.n_resamples == low
    lo, hi = res.confidence_interval()
    assert (res.to_frame().loc[0, "low"], res.to_frame().loc[0, "high"]) == (lo, hi)
    # the p-value alone: any n_resamples >= 1, a multiple of 1 / B
    one = wild_cluster_bootstrap(X, y, g, n_resamples=1, **kw)
    assert one.pvalue in (0.0, 1.0)


# ---------------------------------------------------------------------------
# few clusters
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("G", "alternative", "level", "warns"),
    [
        (2, "two-sided", 0.95, True),
        (4, "two-sided", 0.95, True),
        (5, "two-sided", 0.95, True),  # 2**4 = 16 < 20
        (6, "two-sided", 0.95, False),  # 32 >= 20
        (5, "equal-tailed", 0.95, True),
        (6, "equal-tailed", 0.95, False),
        (4, "greater", 0.95, True),  # 2**4 = 16 < 20
        (5, "less", 0.95, False),  # 32 >= 20
        (4, "two-sided", 0.9, True),  # 8 < 10
        (5, "two-sided", 0.9, False),
        (6, "two-sided", 0.99, True),  # 32 < 100
    ],
)
def test_few_clusters_warning(G, alternative, level, warns):
    assert (few_clusters_message(G, 1.0 - level, alternative) is not None) == warns
    X, y, g = clustered(G=G, per=12, k=1, seed=8)
    kw = {"alternative": alternative, "level": level}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = wild_cluster_bootstrap(X, y, g, **kw)
    assert [issubclass(w.category, FewClustersWarning) for w in caught] == (
        [True] if warns else []
    )
    if warns:
        assert "weights='webb'" in str(caught[0].message)
    assert res.enumerated and res.n_resamples == 2**G
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Webb's weights never warn
        wild_cluster_bootstrap(X, y, g, weights="webb", n_resamples=99, **kw)


@pytest.mark.parametrize("G", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("impose_null", [True, False])
def test_attainable_p_values_with_enumeration(G, impose_null):
    """Symmetric and equal-tailed p-values are multiples of 2 / 2**G, one-sided
    ones of 1 / 2**G; 0 is attainable and (WCR) the two sign vectors that
    reproduce +-t are never counted."""
    steps = {"two-sided": 2**G // 2, "equal-tailed": 2**G // 2, "greater": 2**G,
             "less": 2**G}  # fmt: skip
    seen = {alt: set() for alt in steps}
    for seed in range(25):
        X, y, g = clustered(G=G, per=8, k=1, seed=100 + seed)
        for alt, m in steps.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FewClustersWarning)
                res = wild_cluster_bootstrap(
                    X, y, g, alternative=alt, impose_null=impose_null,
                )  # fmt: skip
            assert res.pvalue * m == round(res.pvalue * m)
            seen[alt].add(round(res.pvalue * m))
            if impose_null and alt in ("two-sided", "equal-tailed"):
                assert res.pvalue <= 1.0 - 2.0 / 2**G
    assert 0 in seen["two-sided"]


def test_webb_weights_are_the_six_points_with_equal_probability():
    """Webb (2023): +-sqrt(1/2), +-1, +-sqrt(3/2), each with probability 1/6."""
    np.testing.assert_allclose(
        np.sort(WEBB), [-math.sqrt(1.5), -1, -math.sqrt(0.5), math.sqrt(0.5), 1,
                        math.sqrt(1.5)], rtol=0, atol=0,
    )  # fmt: skip
    X, y, _ = clustered(G=10, per=3, seed=9)
    wb = WildBootstrap(400, weights="webb", random_state=0).fit(X, y)
    draws = np.concatenate([wb.replicate(b).multipliers for b in range(400)])
    values, counts = np.unique(draws, return_counts=True)
    np.testing.assert_array_equal(values, np.sort(WEBB))
    # 12 000 draws: each count is within 5 sd of 2000 (false-failure odds ~1e-5)
    sd = math.sqrt(draws.size * (1 / 6) * (5 / 6))
    assert np.all(np.abs(counts - draws.size / 6) < 5 * sd)
    assert abs(draws.mean()) < 0.05 and abs(draws.var() - 1.0) < 0.05


def test_size_table_module_runs_and_reports():
    """benchmarks.few_clusters (the size table of docs/coverage.md) on 4 data
    sets: every Rademacher run at G = 3 warns, Webb never; the lattice size is
    (floor(0.05 m) + 1) / m with m = 2**(G - 1)."""
    from benchmarks import few_clusters as fc

    assert fc.lattice_size(3) == 0.25 and fc.lattice_size(6) == 2 / 32
    assert fc.lattice_size(12) == (math.floor(0.05 * 2048) + 1) / 2048
    rows = fc.size_rows((3, 6), 4, seed=1)
    assert rows[0]["warned"] == {"rademacher": 4, "webb": 0}
    assert rows[1]["warned"] == {"rademacher": 0, "webb": 0}
    text = fc.report(rows, {3: (0.0, 0.25), 6: None})
    assert "| 3 | 60 |" in text and "| +0.2500 |" in text and "| n/a |" in text


# ---------------------------------------------------------------------------
# burn-in limits
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ResidualBootstrap, SieveBootstrap])
def test_burn_in_beyond_the_stream_is_refused(cls):
    x = np.random.default_rng(10).normal(size=100)
    kw = {"order": 1} if cls is ResidualBootstrap else {}
    with pytest.raises(ValueError, match=r"'burn_in' parameter .*2\*\*31.*GiB"):
        cls(5, burn_in=2**40, random_state=0, **kw).fit(x)


def test_burn_in_beyond_memory_is_refused_before_allocating(monkeypatch):
    x = np.random.default_rng(11).normal(size=100)
    monkeypatch.setattr(residual_module, "physical_memory", lambda: 2**20)

    def no_fit(*args, **kwargs):
        raise AssertionError("the AR model was fitted before the burn-in check")

    monkeypatch.setattr(residual_module, "fit_ar", no_fit)
    with pytest.raises(ValueError, match=r"'burn_in' parameter .* 8 paths .*GiB"):
        ResidualBootstrap(5, order=1, burn_in=20_000, random_state=0).fit(x)
    # 8 paths of 10 100 values = 0.6 MiB fit in 1 MiB
    monkeypatch.undo()
    rb = ResidualBootstrap(5, order=1, burn_in=10_000, random_state=0).fit(x)
    assert rb.sample(0).shape == (100,)


# ---------------------------------------------------------------------------
# property: an undefined t never gives p < 1
# ---------------------------------------------------------------------------
@st.composite
def exact_fits(draw):
    G = draw(st.integers(2, 8))
    sizes = draw(st.lists(st.integers(1, 6), min_size=G, max_size=G))
    k = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    X = rng.normal(size=(n, k)) * 10.0 ** draw(st.integers(-6, 6))
    X += draw(st.sampled_from([0.0, 1.0, 1e3])) * draw(st.integers(-1, 1))
    beta = rng.normal(size=k) * draw(st.sampled_from([0.0, 1.0, 1e-8, 1e6]))
    const = draw(st.sampled_from([0.0, 1.0, -3e5, 7e-9]))
    y = const + X @ beta
    labels = np.repeat(rng.permutation(G) * 7, sizes)
    alt = draw(st.sampled_from(["two-sided", "equal-tailed", "greater", "less"]))
    return X, y, labels, alt, draw(st.booleans())


@SETTINGS
@given(case=exact_fits())
def test_undefined_t_never_gives_a_small_p_value(case):
    X, y, labels, alternative, impose_null = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = wild_cluster_bootstrap(
                X, y, labels, alternative=alternative, impose_null=impose_null,
                n_resamples=39, random_state=0,
            )  # fmt: skip
        except ValueError as exc:  # a design the data cannot support, named
            assert re.search(r"The '(X|groups)' parameter", str(exc)), exc
            return
    assert not res.pvalue < 1.0, (res.standard_error, res.statistic)
    assert math.isnan(res.pvalue)
    assert any(issubclass(w.category, UndefinedStatisticWarning) for w in caught)


@SETTINGS
@given(case=exact_fits(), where=st.sampled_from(["X", "y"]), seed=st.integers(0, 99))
def test_nan_inputs_are_refused_naming_the_parameter(case, where, seed):
    X, y, labels, alternative, _ = case
    X, y = X.copy(), y.copy()
    target = X if where == "X" else y
    target.flat[seed % target.size] = np.nan
    with pytest.raises(ValueError, match=f"The '{where}' parameter .* finite"):
        wild_cluster_bootstrap(X, y, labels, alternative=alternative, n_resamples=39)


@pytest.mark.parametrize("seed", range(6))
def test_rounding_se_bound_is_an_upper_bound(seed):
    """The cheap bound decides only when it is above the exact rounding level."""
    from skboot.model_based._cluster_checks import rounding_se, rounding_se_bound

    rng = np.random.default_rng(seed)
    n, k, G = 200, 3, 7
    D = rng.normal(size=(n, k)) * rng.lognormal(size=k) * 10.0 ** rng.integers(-3, 4)
    y = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
    beta, q = rng.normal(size=k), rng.normal(size=k)
    codes = rng.integers(0, G, n)
    exact = rounding_se(D, y, beta, q, codes, G, 1.3)
    assert 0.0 < exact <= rounding_se_bound(D, y, beta, q, 1.3)
