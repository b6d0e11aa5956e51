"""Studentized intervals of the smooth built-ins without a nested bootstrap: the
delta-method standard error of every replicate, from fused sums of power columns
(skboot/_run/_delta_method.py)."""

from __future__ import annotations

import numpy as np
import pytest

import skboot
from skboot import DegenerateDistributionWarning, bootstrap
from skboot._run import studentized_inputs
from skboot._run._delta_method import delta_method_se, power_columns

RNG = np.random.default_rng(5)
X = RNG.gamma(2.0, size=120) + 40.0  # skewed, far from 0
XY = np.column_stack([X, X + RNG.normal(size=120)])


# ---------------------------------------------------------------------------
# reference: the influence values on a replicate's rows, with frequency weights
# ---------------------------------------------------------------------------
def _se(infl, w):
    sw = w.sum()
    c = infl - (w @ infl) / sw
    return np.sqrt((w @ (c * c)) / (sw - 1.0) / sw)


def reference(name, ddof=0):
    """``f(rows, weights=None)``: the delta-method se written out per replicate."""

    def f(a, weights=None):
        w = np.ones(a.shape[0]) if weights is None else weights
        sw = w.sum()
        d = a - (w @ a) / sw
        if name == "sum":
            return sw * _se(d, w)
        if name == "corr":
            u, v = (d / np.sqrt((w @ (d * d)) / sw)).T
            r = (w @ (u * v)) / sw
            return _se(u * v - 0.5 * r * (u * u + v * v), w)
        var = (w @ (d * d)) / sw
        se_var = _se(d * d, w) * sw / (sw - ddof)
        if name == "var":
            return se_var
        return se_var / (2.0 * np.sqrt(var * sw / (sw - ddof)))

    return f


RESAMPLERS = {
    "iid": lambda: skboot.Bootstrap(n_resamples=300, random_state=1),
    "poisson": lambda: skboot.PoissonBootstrap(n_resamples=300, random_state=1),
    "bayesian": lambda: skboot.BayesianBootstrap(n_resamples=300, random_state=1),
    "moving": lambda: skboot.MovingBlockBootstrap(
        block_length=6, n_resamples=300, random_state=1
    ),
}
CASES = [("sum", 0), ("var", 0), ("std", 0), ("corr", 0), ("var", 1), ("std", 3)]


@pytest.mark.parametrize("resampler", sorted(RESAMPLERS))
@pytest.mark.parametrize(("name", "ddof"), CASES)
def test_fused_standard_errors_equal_influence_values_per_replicate(
    resampler, name, ddof
):
    data = XY if name == "corr" else X
    kw = {"ddof": ddof} if ddof else None
    res = bootstrap(data, name, resampler=RESAMPLERS[resampler](), statistic_kwargs=kw)
    fused = res.confidence_interval(method="studentized")
    slow = res.confidence_interval(
        method="studentized", standard_error=reference(name, ddof)
    )
    assert fused.low == pytest.approx(slow.low, rel=1e-12, abs=0)
    assert fused.high == pytest.approx(slow.high, rel=1e-12, abs=0)


def test_columns_are_studentized_separately():
    data = np.column_stack([X, RNG.normal(size=120), RNG.exponential(size=120)])
    res = bootstrap(data, "std", n_resamples=200, random_state=2)
    both = res.confidence_interval(method="studentized")
    for j in range(3):
        one = bootstrap(data[:, j], "std", n_resamples=200, random_state=2)
        ci = one.confidence_interval(method="studentized")
        assert both.low[j] == pytest.approx(ci.low, rel=1e-12)
        assert both.high[j] == pytest.approx(ci.high, rel=1e-12)


@pytest.mark.parametrize("resampler", sorted(RESAMPLERS))
def test_proportion_is_the_mean_of_0_1_data(resampler):
    b = (RNG.random(120) < 0.3).astype(float)
    make = RESAMPLERS[resampler]
    mean = bootstrap(b, "mean", resampler=make()).confidence_interval(
        method="studentized"
    )
    prop = bootstrap(b, "proportion", resampler=make()).confidence_interval(
        method="studentized"
    )
    assert (prop.low, prop.high) == (mean.low, mean.high)


def test_standard_errors_of_normal_data_match_theory():
    # large-sample standard errors for N(0, sigma^2) data and a bivariate normal
    # with correlation rho: se(var) = sigma^2 sqrt(2 / n), se(std) = sigma /
    # sqrt(2 n), se(corr) = (1 - rho^2) / sqrt(n), se(sum) = sigma sqrt(n).  The
    # estimates' relative sampling error at n = 40,000 is about 1%; 5% bounds make
    # a false failure practically impossible.
    n, sigma, rho = 40_000, 2.0, 0.6
    rng = np.random.default_rng(8)
    x = rng.normal(scale=sigma, size=(n, 1))
    xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    theory = {
        "var": sigma**2 * np.sqrt(2 / n),
        "std": sigma / np.sqrt(2 * n),
        "sum": sigma * np.sqrt(n),
        "corr": (1 - rho**2) / np.sqrt(n),
    }
    for name, want in theory.items():
        data = xy if name == "corr" else x
        sums = power_columns(name, data).sum(axis=0)[None, :]
        assert delta_method_se(name, sums)[0, 0] == pytest.approx(want, rel=0.05)


@pytest.mark.parametrize("name", ["sum", "var", "std", "corr"])
def test_replicate_standard_errors_agree_with_a_nested_bootstrap(name):
    # The nested bootstrap (400 inner replicates) estimates each replicate's se
    # with about 3-4% relative noise (var's bootstrap distribution has excess
    # kurtosis); the delta method differs from it by O(1/n) at n = 120.  Over 40
    # replicates the median ratio is within 6% and every one within 25%.
    data = XY if name == "corr" else X
    res = bootstrap(data, name, n_resamples=40, random_state=3)
    _, se_b = studentized_inputs(res._context, None, None)
    _, nested_b = studentized_inputs(res._context, None, 400)
    ratio = se_b / nested_b
    assert abs(np.median(ratio) - 1) < 0.06, np.median(ratio)
    assert np.all(np.abs(ratio - 1) < 0.25), ratio


@pytest.mark.parametrize("name", ["sum", "var", "std"])
def test_constant_replicates_are_left_out_with_a_warning(name):
    # about a third of the replicates never draw row 0 and are constant: their se
    # is 0, not the rounding noise of a difference of sums (which would make their
    # t values huge)
    x = np.full(30, 1e3 / 3)
    x[0] = 1e3
    res = bootstrap(x, name, n_resamples=200, random_state=0)
    ctx = res._context
    _, se_b = studentized_inputs(ctx, None, None)
    spread = np.array([np.ptp(x[ctx.plan.indices(b)]) for b in range(200)])
    assert 40 < np.count_nonzero(spread == 0) < 100
    np.testing.assert_array_equal(se_b == 0, spread == 0)
    with pytest.warns(DegenerateDistributionWarning, match="replicate standard err"):
        ci = res.confidence_interval(method="studentized")
    assert np.isfinite(ci.low) and np.isfinite(ci.high)


def test_order_statistics_still_need_a_standard_error_or_nesting():
    res = bootstrap(X, "median", n_resamples=20, random_state=0)
    with pytest.raises(ValueError, match="'proportion', 'sum', 'var', 'std' and"):
        res.confidence_interval(method="studentized")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "truth"), [("var", 4.0), ("std", 2.0), ("corr", 0.6), ("sum", 0.0)]
)
def test_coverage_on_normal_data(name, truth):
    # 400 samples of n = 40 from N(0, 4) (a bivariate normal with rho = 0.6 for
    # corr): the nominal 95% bootstrap-t interval, second-order accurate for
    # smooth statistics (Hall 1988, Annals of Statistics 16(3)), should cover
    # close to 95%.  The binomial sd at 400 samples is 1.1%; the bounds [0.90,
    # 0.985] leave 4 sd below 0.945 and allow some over-coverage.
    rng = np.random.default_rng(2026)
    covered = 0
    for i in range(400):
        if name == "corr":
            data = rng.multivariate_normal([0, 0], [[1, truth], [truth, 1]], size=40)
        else:
            data = rng.normal(scale=2.0, size=40)
        res = bootstrap(data, name, n_resamples=999, random_state=i)
        ci = res.confidence_interval(method="studentized")
        covered += ci.low <= truth <= ci.high
    assert 0.90 <= covered / 400 <= 0.985, covered / 400


@pytest.mark.skipif(
    np.finfo(np.longdouble).eps >= 1e-18, reason="longdouble is not extended here"
)
@pytest.mark.parametrize("name", ["var", "std"])
def test_fused_standard_errors_far_from_zero_match_extended_precision(name):
    """Data at 1e9 with unit spread: the fused pass (powers of data centred once)
    stays within 1e-10 of the interval width from an extended-precision
    evaluation of the same replicates (numpy's float64 loop is off by ~4e-8)."""

    def extended(a, weights=None):
        d = np.asarray(a, dtype=np.longdouble)
        d = d - d.mean()
        v = (d * d).mean()
        se = np.sqrt(((d * d - v) ** 2).sum()) / d.shape[0]
        return float(se if name == "var" else se / (2 * np.sqrt(v)))

    x = 1e9 + np.random.default_rng(5).normal(size=300)
    res = bootstrap(x, name, n_resamples=500, random_state=1)
    fused = res.confidence_interval(method="studentized")
    exact = res.confidence_interval(method="studentized", standard_error=extended)
    width = exact.high - exact.low
    assert abs(fused.low - exact.low) <= 1e-10 * width
    assert abs(fused.high - exact.high) <= 1e-10 * width
