"""Tests of skboot.intervals: references (scipy, arch), validation, degenerate
cases and coverage."""

from __future__ import annotations

import dataclasses
import re
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from scipy.special import ndtri

from skboot._exceptions import DegenerateDistributionWarning
from skboot.intervals import (
    ConfidenceInterval,
    IntervalEndpoints,
    basic_interval,
    bc_interval,
    bca_interval,
    bias_correction,
    jackknife_acceleration,
    normal_interval,
    percentile_interval,
    studentized_interval,
)

ALTERNATIVES = ["two-sided", "less", "greater"]
LEVELS = [0.5, 0.9, 0.95, 0.99]


def _resample_means(x, n_resamples, rng):
    """Bootstrap distribution of the mean along the last axis: (B,) or (B, k)."""
    idx = rng.integers(0, x.shape[-1], size=(n_resamples, x.shape[-1]))
    return np.moveaxis(x[..., idx].mean(axis=-1), -1, 0)


def _leave_one_out(x, statistic):
    """Leave-one-out values of statistic(sample, axis=-1) along the last axis."""
    n = x.shape[-1]
    keep = ~np.eye(n, dtype=bool)
    return np.stack([statistic(x[..., keep[i]], axis=-1) for i in range(n)])


def _recorded(func, *args, **kwargs):
    """Call func and return (result, list of warning messages it emitted)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    assert all(issubclass(w.category, DegenerateDistributionWarning) for w in caught), [
        str(w.message) for w in caught
    ]
    return result, [str(w.message) for w in caught]


# --------------------------------------------------------------------------------
# agreement with scipy.stats.bootstrap (percentile, basic, BCa)


def _scipy_interval(data, statistic, distribution, method, level, alternative):
    """scipy's interval for a given distribution (B,) or (B, k); data is (..., n)."""
    previous = SimpleNamespace(bootstrap_distribution=np.moveaxis(distribution, 0, -1))
    res = stats.bootstrap(
        (data,),
        statistic,
        n_resamples=0,
        bootstrap_result=previous,
        method=method,
        confidence_level=level,
        alternative=alternative,
        axis=-1,
    )
    return res.confidence_interval


def _ours(method, distribution, estimate, jackknife, level, alternative):
    if method == "percentile":
        return percentile_interval(distribution, level=level, alternative=alternative)
    if method == "basic":
        return basic_interval(
            distribution, estimate, level=level, alternative=alternative
        )
    return bca_interval(
        distribution, estimate, jackknife, level=level, alternative=alternative
    )


@pytest.fixture(scope="module")
def skewed_sample():
    rng = np.random.default_rng(20240611)
    x = rng.lognormal(sigma=0.8, size=(3, 30))  # three columns, n = 30
    distribution = _resample_means(x, 1999, rng)  # (1999, 3)
    return x, distribution


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("vector", [False, True], ids=["1d", "k=3"])
def test_matches_scipy(skewed_sample, method, alternative, level, vector):
    x, distribution = skewed_sample
    if not vector:
        x, distribution = x[0], distribution[:, 0]
    estimate = np.mean(x, axis=-1)
    # scipy's BCa recomputes the jackknife from the data; these are the same values
    jackknife = _leave_one_out(x, np.mean)
    expected = _scipy_interval(x, np.mean, distribution, method, level, alternative)
    res = _ours(method, distribution, estimate, jackknife, level, alternative)
    assert_allclose(res.low, expected.low, rtol=1e-12, atol=1e-12)
    assert_allclose(res.high, expected.high, rtol=1e-12, atol=1e-12)
    assert isinstance(res.low, float) != vector


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_bca_ties_match_scipy(alternative, level):
    # A median of small integers: many replicates equal the estimate, so the tie
    # convention of z0 matters; scipy counts ties one half and so do we.
    rng = np.random.default_rng(7)
    x = rng.integers(0, 6, size=25).astype(float)
    idx = rng.integers(0, 25, size=(999, 25))
    distribution = np.median(x[idx], axis=1)
    estimate = float(np.median(x))
    jackknife = _leave_one_out(x, np.median)
    n_ties = np.count_nonzero(distribution == estimate)
    assert n_ties > 100 and np.ptp(jackknife) > 0
    expected = _scipy_interval(x, np.median, distribution, "BCa", level, alternative)
    res = bca_interval(
        distribution, estimate, jackknife, level=level, alternative=alternative
    )
    assert_allclose(res.low, expected.low, rtol=1e-12, atol=1e-12)
    assert_allclose(res.high, expected.high, rtol=1e-12, atol=1e-12)
    # ... whereas counting only replicates strictly below (E&T eq. 14.14, arch)
    # gives a clearly different z0 here
    strict = ndtri(np.mean(distribution < estimate))
    assert abs(res.diagnostics["z0"] - strict) > 0.1


# --------------------------------------------------------------------------------
# agreement with arch 8.0 (IIDBootstrap.conf_int)

ARCH_TAIL = {"two-sided": "two", "less": "upper", "greater": "lower"}
ARCH_B = 500


def _mean0(a):
    return a.mean(axis=0)


def _arch_ci(x, method, level, alternative, seed, **kwargs):
    from arch.bootstrap import IIDBootstrap

    bs = IIDBootstrap(x, seed=seed)
    ci = bs.conf_int(
        _mean0, ARCH_B, method=method, size=level, tail=ARCH_TAIL[alternative], **kwargs
    )
    # The same seed gives the same resamples, hence arch's own replicates.
    distribution = IIDBootstrap(x, seed=seed).apply(_mean0, ARCH_B)
    return ci, distribution


@pytest.fixture(scope="module")
def arch_sample():
    pytest.importorskip("arch", minversion="8.0")
    rng = np.random.default_rng(99)
    return rng.gamma(2.0, size=(40, 2))


@pytest.mark.parametrize("method", ["norm", "percentile", "basic", "bc", "bca"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_matches_arch_scalar(arch_sample, method, alternative, level):
    x = arch_sample[:, 0]
    ci, distribution = _arch_ci(x, method, level, alternative, seed=3)
    theta, estimate = distribution[:, 0], x.mean()
    if method == "norm":
        # Centred on the estimate with the ddof=0 bootstrap standard deviation,
        # exactly as arch does (skboot's default is ddof=1, see below).
        res = normal_interval(
            theta, estimate, level=level, alternative=alternative, ddof=0
        )
    elif method == "bc":
        res = bc_interval(theta, estimate, level=level, alternative=alternative)
    elif method == "bca":
        jackknife = _leave_one_out(x, np.mean)
        res = bca_interval(
            theta, estimate, jackknife, level=level, alternative=alternative
        )
    else:
        res = _ours(method, theta, estimate, None, level, alternative)
    # arch's BC/BCa z0 counts only replicates strictly below the estimate; for the
    # mean of continuous data no replicate equals it, so the conventions coincide.
    assert not np.any(theta == estimate)
    # arch reads quantiles with np.percentile(values, 100 * p), the same type-7
    # interpolation; 100 * p / 100 may differ from p in the last bit, hence 1e-10.
    assert_allclose(res.low, ci[0, 0], rtol=1e-10, atol=1e-10)
    assert_allclose(res.high, ci[1, 0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("method", ["norm", "percentile", "basic", "bc", "bca"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_matches_arch_vector(arch_sample, method, alternative):
    x, level = arch_sample, 0.9
    ci, distribution = _arch_ci(x, method, level, alternative, seed=11)
    estimate = x.mean(axis=0)
    if method == "bca":
        # arch 8.0 centres a multi-column jackknife on the mean over *all* columns
        # (``jk_params.mean() - jk_params`` in ``_get_acceleration``), not per
        # column as Efron & Tibshirani eq. 14.15 (and scipy) do, so its k > 1 BCa
        # is off. Compare column by column instead: one-column arch runs with the
        # same seed draw the same resamples.
        jackknife = _leave_one_out(x.T, np.mean)
        res = bca_interval(
            distribution, estimate, jackknife, level=level, alternative=alternative
        )
        for j in range(x.shape[1]):
            ci_j, dist_j = _arch_ci(x[:, j], "bca", level, alternative, seed=11)
            # same resamples (the means differ only by summation order)
            assert_allclose(dist_j[:, 0], distribution[:, j], rtol=1e-14)
            assert_allclose(res.low[j], ci_j[0, 0], rtol=1e-10, atol=1e-10)
            assert_allclose(res.high[j], ci_j[1, 0], rtol=1e-10, atol=1e-10)
        return
    if method == "norm":
        res = normal_interval(
            distribution, estimate, level=level, alternative=alternative, ddof=0
        )
    elif method == "bc":
        res = bc_interval(distribution, estimate, level=level, alternative=alternative)
    else:
        res = _ours(method, distribution, estimate, None, level, alternative)
    assert res.low.shape == res.high.shape == (2,)
    assert_allclose(res.low, ci[0], rtol=1e-10, atol=1e-10)
    assert_allclose(res.high, ci[1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_studentized_matches_arch(arch_sample, alternative):
    from arch.bootstrap import IIDBootstrap

    x, level, n = arch_sample[:, 0], 0.9, arch_sample.shape[0]

    def std_err(params, a):
        return np.atleast_1d(a.std(ddof=1) / np.sqrt(n))

    ci = IIDBootstrap(x, seed=5).conf_int(
        _mean0,
        ARCH_B,
        method="studentized",
        size=level,
        tail=ARCH_TAIL[alternative],
        std_err_func=std_err,
    )
    resamples = [pos[0] for pos, _ in IIDBootstrap(x, seed=5).bootstrap(ARCH_B)]
    theta = np.array([r.mean() for r in resamples])
    se_b = np.array([std_err(None, r)[0] for r in resamples])
    # arch scales the bootstrap-t quantiles by the ddof=0 standard deviation of the
    # bootstrap distribution, so that is the standard_error to pass here.
    res = studentized_interval(
        theta, x.mean(), theta.std(), se_b, level=level, alternative=alternative
    )
    assert_allclose(res.low, ci[0, 0], rtol=1e-10, atol=1e-10)
    assert_allclose(res.high, ci[1, 0], rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------------
# formulas, identities and output shapes


def test_bias_correction_counts_ties_one_half():
    assert bias_correction([1.0, 2.0, 3.0, 4.0], 2.5) == 0.0
    assert bias_correction([1.0, 2.0, 3.0, 4.0], 2.0) == ndtri(3 / 8)
    z0 = bias_correction(np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]), [2.0, 5.0])
    assert_array_equal(z0, [0.0, 0.0])


def test_jackknife_acceleration_formula():
    jk = np.array([[0.3, 1.0], [1.1, 2.0], [2.6, 0.0], [0.2, 5.0]])
    d = jk.mean(axis=0) - jk
    expected = (d**3).sum(axis=0) / (6 * ((d**2).sum(axis=0)) ** 1.5)
    assert_allclose(jackknife_acceleration(jk), expected, rtol=1e-14)
    assert jackknife_acceleration(jk[:, 0]) == pytest.approx(expected[0], rel=1e-14)
    # equals scipy's form with U_i = (n - 1) d_i (the factor cancels)
    u = (len(jk) - 1) * d[:, 0]
    scipy_form = (u**3).sum() / len(jk) ** 3 / ((u**2).sum() / len(jk) ** 2) ** 1.5
    assert jackknife_acceleration(jk[:, 0]) == pytest.approx(scipy_form / 6, rel=1e-13)


def test_bca_with_symmetric_jackknife_is_bc():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=501)
    jackknife = np.array([-1.0, 0.0, 1.0])  # a_hat = 0
    bca = bca_interval(theta, 0.1, jackknife)
    bc = bc_interval(theta, 0.1)
    assert bca.diagnostics["a_hat"] == 0.0
    assert (bca.low, bca.high) == (bc.low, bc.high)
    assert bca.levels == bc.levels


def test_studentized_with_constant_se_is_basic():
    # With se*_b = se for all b, t*_b = (theta*_b - theta_hat) / se and the
    # bootstrap-t interval reduces to the basic interval.
    rng = np.random.default_rng(1)
    theta = rng.gamma(3.0, size=(777, 2))
    est = np.array([3.1, 2.9])
    se = np.array([0.7, 1.3])
    stud = studentized_interval(theta, est, se, np.broadcast_to(se, theta.shape))
    basic = basic_interval(theta, est)
    assert_allclose(stud.low, basic.low, rtol=1e-13)
    assert_allclose(stud.high, basic.high, rtol=1e-13)
    assert_array_equal(stud.diagnostics["n_used"], [777, 777])


def test_normal_interval_centre_and_ddof():
    """Default ddof=1 (the B - 1 divisor of result.standard_error and scipy's
    standard_error); ddof=0 is arch's."""
    theta = np.array([1.0, 2.0, 4.0, 7.0])
    res = normal_interval(theta, 3.0, level=0.9)
    z = ndtri(0.95)
    se = theta.std(ddof=1)
    assert res.low == pytest.approx(3.0 - z * se)
    assert res.high == pytest.approx(3.0 + z * se)
    assert res.diagnostics["standard_error"] == se
    res0 = normal_interval(theta, 3.0, level=0.9, ddof=0)
    assert res0.diagnostics["standard_error"] == theta.std()


def test_normal_interval_uses_the_result_standard_error():
    """One convention: result.confidence_interval(method="normal") is
    estimate -/+ z * result.standard_error, for bootstrap() and metric_ci();
    scipy's standard_error is the same number on the same distribution."""
    from scipy import stats

    from skboot import bootstrap, metric_ci

    x = np.random.default_rng(4).exponential(size=60)
    res = bootstrap(x, "mean", n_resamples=500, random_state=1)
    ci = res.confidence_interval(method="normal", level=0.9)
    z = ndtri(0.95)
    assert ci.low == pytest.approx(res.estimate - z * res.standard_error, rel=1e-14)
    assert ci.high == pytest.approx(res.estimate + z * res.standard_error, rel=1e-14)
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=500, method="percentile", random_state=1
    )
    assert np.std(ref.bootstrap_distribution, ddof=1) == pytest.approx(
        ref.standard_error, rel=1e-14
    )
    y = np.r_[np.zeros(30), np.ones(30)].astype(int)
    m = metric_ci(y, x, "roc_auc", n_resamples=300, random_state=2, method="normal")
    assert m.confidence_interval().low == pytest.approx(
        m.estimate - ndtri(0.975) * m.standard_error, rel=1e-13
    )


@pytest.mark.parametrize("level", [0.6, 0.9, 0.975])
def test_one_sided_is_one_end_of_wider_two_sided(level):
    rng = np.random.default_rng(2)
    theta = rng.standard_t(5, size=(1001, 2))
    two = percentile_interval(theta, level=2 * level - 1)
    less = percentile_interval(theta, level=level, alternative="less")
    greater = percentile_interval(theta, level=level, alternative="greater")
    assert_allclose(less.high, two.high, rtol=1e-14)
    assert_allclose(greater.low, two.low, rtol=1e-14)
    assert np.all(less.low == -np.inf) and np.all(greater.high == np.inf)
    assert np.all(np.isnan(less.levels[0])) and np.all(np.isnan(greater.levels[1]))


def test_output_types_and_levels():
    rng = np.random.default_rng(3)
    theta = rng.normal(size=(400, 3))
    res = basic_interval(theta, np.zeros(3), level=0.9)
    assert isinstance(res, IntervalEndpoints)
    assert res.low.shape == res.high.shape == (3,)
    assert_allclose(res.levels[0], 0.95)
    assert_allclose(res.levels[1], 0.05)
    one = percentile_interval(theta[:, 0])
    assert isinstance(one.low, float) and isinstance(one.high, float)
    assert one.confidence_interval == ConfidenceInterval(one.low, one.high)
    assert one.levels == (0.025000000000000022, 0.975)  # scipy's (1 - level) / 2
    col = percentile_interval(theta[:, :1])  # (B, 1) stays an array
    assert col.low.shape == (1,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.low = 0.0  # type: ignore[misc]


def test_inputs_are_not_modified():
    rng = np.random.default_rng(4)
    theta = rng.normal(size=(200, 2))
    copy = theta.copy()
    se_b = np.abs(rng.normal(size=(200, 2)))
    studentized_interval(theta, np.zeros(2), np.ones(2), se_b)
    bca_interval(theta, np.zeros(2), rng.normal(size=(10, 2)))
    assert_array_equal(theta, copy)


# --------------------------------------------------------------------------------
# validation: one table for every message

D1 = np.linspace(0.0, 1.0, 10)
D2 = np.linspace(0.0, 1.0, 30).reshape(10, 3)
BAD = D1.copy()
BAD[[2, 5]] = [np.nan, np.inf]

LEVEL_MSG = "The 'level' parameter of {} must be a float in (0, 1). Got {} instead."
ALT_MSG = (
    "The 'alternative' parameter of {} must be one of {{'two-sided', 'less', "
    "'greater'}}. Got {} instead."
)
# every public method with valid (B,) arguments
METHODS = {
    "percentile": (percentile_interval, (D1,)),
    "basic": (basic_interval, (D1, 0.5)),
    "normal": (normal_interval, (D1, 0.5)),
    "bc": (bc_interval, (D1, 0.5)),
    "bca": (bca_interval, (D1, 0.5, D1[:5])),
    "studentized": (studentized_interval, (D1, 0.5, 0.1, np.ones(10))),
}

CASES = [
    *(
        (name, func, args, {"level": level}, LEVEL_MSG.format(func.__name__, shown))
        for name, (func, args) in METHODS.items()
        for level, shown in [
            (0, "0"),
            (1, "1"),
            (1.5, "1.5"),
            (-0.1, "-0.1"),
            (np.nan, "nan"),
            (np.float64(1.0), "np.float64(1.0)"),
            ("0.95", "'0.95'"),
            (None, "None"),
            (True, "True"),
            ([0.9], "[0.9]"),
        ]
    ),
    *(
        (
            name,
            func,
            args,
            {"alternative": alternative},
            ALT_MSG.format(func.__name__, shown),
        )
        for name, (func, args) in METHODS.items()
        for alternative, shown in [
            ("two_sided", "'two_sided'"),
            ("Less", "'Less'"),
            ("", "''"),
            (None, "None"),
        ]
    ),
    (
        "empty",
        percentile_interval,
        (np.array([]),),
        {},
        "The 'distribution' parameter of percentile_interval must be an array of "
        "shape (B,) or (B, k) with B >= 1 and k >= 1. Got shape (0,) instead.",
    ),
    (
        "no columns",
        basic_interval,
        (np.empty((10, 0)), np.empty(0)),
        {},
        "The 'distribution' parameter of basic_interval must be an array of shape "
        "(B,) or (B, k) with B >= 1 and k >= 1. Got shape (10, 0) instead.",
    ),
    (
        "3-d",
        percentile_interval,
        (np.ones((4, 2, 2)),),
        {},
        "The 'distribution' parameter of percentile_interval must be an array of "
        "shape (B,) or (B, k) with B >= 1 and k >= 1. Got shape (4, 2, 2) instead.",
    ),
    (
        "scalar",
        percentile_interval,
        (3.0,),
        {},
        "The 'distribution' parameter of percentile_interval must be an array of "
        "shape (B,) or (B, k) with B >= 1 and k >= 1. Got shape () instead.",
    ),
    (
        "strings",
        percentile_interval,
        (["a", "b"],),
        {},
        "The 'distribution' parameter of percentile_interval must contain real "
        "numbers. Got dtype <U1 instead.",
    ),
    (
        "complex",
        percentile_interval,
        (D1 + 1j,),
        {},
        "The 'distribution' parameter of percentile_interval must contain real "
        "numbers. Got dtype complex128 instead.",
    ),
    (
        "non-finite",
        bca_interval,
        (BAD, 0.5, D1),
        {},
        "The 'distribution' parameter of bca_interval must contain only finite "
        "values. Got 2 non-finite replicate(s) out of 10 instead.",
    ),
    (
        "non-finite 2-d",
        percentile_interval,
        (np.where(D2 > 0.9, np.nan, D2),),
        {},
        "The 'distribution' parameter of percentile_interval must contain only finite "
        "values. Got 1 non-finite replicate(s) out of 10 instead.",
    ),
    (
        "estimate 1-d",
        basic_interval,
        (D1, [0.5, 0.5]),
        {},
        "The 'estimate' parameter of basic_interval must be a float, as the "
        "distribution has shape (B,). Got shape (2,) instead.",
    ),
    (
        "estimate 2-d",
        normal_interval,
        (D2, [0.5, 0.5]),
        {},
        "The 'estimate' parameter of normal_interval must be an array of shape (3,), "
        "one value per column of the (B, 3) distribution. Got shape (2,) instead.",
    ),
    (
        "estimate scalar for 2-d",
        bc_interval,
        (D2, 0.5),
        {},
        "The 'estimate' parameter of bc_interval must be an array of shape (3,), one "
        "value per column of the (B, 3) distribution. Got shape () instead.",
    ),
    (
        "estimate nan",
        bc_interval,
        (D2, [0.5, np.nan, 0.5]),
        {},
        "The 'estimate' parameter of bc_interval must be finite. Got 1 non-finite "
        "value(s) instead.",
    ),
    (
        "jackknife 2-d for 1-d",
        bca_interval,
        (D1, 0.5, D2),
        {},
        "The 'jackknife_values' parameter of bca_interval must be an array of shape "
        "(n,) with n >= 1, matching the (B,) distribution. Got shape (10, 3) instead.",
    ),
    (
        "jackknife columns",
        bca_interval,
        (D2, [0.5] * 3, D2[:, :2]),
        {},
        "The 'jackknife_values' parameter of bca_interval must be an array of shape "
        "(n, 3) with n >= 1, matching the (B, 3) distribution. Got shape (10, 2) "
        "instead.",
    ),
    (
        "jackknife empty",
        bca_interval,
        (D1, 0.5, []),
        {},
        "The 'jackknife_values' parameter of bca_interval must be an array of shape "
        "(n,) with n >= 1, matching the (B,) distribution. Got shape (0,) instead.",
    ),
    (
        "jackknife non-finite",
        bca_interval,
        (D1, 0.5, BAD),
        {},
        "The 'jackknife_values' parameter of bca_interval must contain only finite "
        "values. Got 2 non-finite leave-one-out value(s) out of 10 instead.",
    ),
    (
        "acceleration 3-d",
        jackknife_acceleration,
        (np.ones((3, 2, 2)),),
        {},
        "The 'jackknife_values' parameter of jackknife_acceleration must be an array "
        "of shape (n,) or (n, k) with n >= 1. Got shape (3, 2, 2) instead.",
    ),
    (
        "bias_correction estimate",
        bias_correction,
        (D2, 0.5),
        {},
        "The 'estimate' parameter of bias_correction must be an array of shape (3,), "
        "one value per column of the (B, 3) distribution. Got shape () instead.",
    ),
    (
        "standard_error shape",
        studentized_interval,
        (D2, [0.5] * 3, 0.1, np.ones((10, 3))),
        {},
        "The 'standard_error' parameter of studentized_interval must be an array of "
        "shape (3,), one value per column of the (B, 3) distribution. Got shape () "
        "instead.",
    ),
    (
        "replicate se shape",
        studentized_interval,
        (D1, 0.5, 0.1, np.ones(9)),
        {},
        "The 'replicate_standard_errors' parameter of studentized_interval must be an "
        "array of the distribution's shape (10,). Got shape (9,) instead.",
    ),
    (
        "negative se",
        studentized_interval,
        (D1, 0.5, -0.1, np.ones(10)),
        {},
        "The 'standard_error' parameter of studentized_interval must hold "
        "non-negative standard errors. Got 1 negative value(s) instead.",
    ),
    (
        "negative replicate se",
        studentized_interval,
        (D1, 0.5, 0.1, -np.ones(10)),
        {},
        "The 'replicate_standard_errors' parameter of studentized_interval must hold "
        "non-negative standard errors. Got 10 negative value(s) instead.",
    ),
    *(
        (
            f"ddof {ddof!r}",
            normal_interval,
            (D1, 0.5),
            {"ddof": ddof},
            f"The 'ddof' parameter of normal_interval must be an int in "
            f"[0, B - 1 = 9]. Got "
            f"{shown} instead.",
        )
        for ddof, shown in [(-1, "-1"), (10, "10"), (0.5, "0.5"), (True, "True")]
    ),
]


@pytest.mark.parametrize(
    ("func", "args", "kwargs", "message"),
    [case[1:] for case in CASES],
    ids=[f"{case[0]}-{i}" for i, case in enumerate(CASES)],
)
def test_invalid_input(func, args, kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        func(*args, **kwargs)


# --------------------------------------------------------------------------------
# degenerate cases


@pytest.mark.parametrize("vector", [False, True])
def test_zero_spread(vector):
    theta = np.full((50, 2), 2.0) if vector else np.full(50, 2.0)
    est = np.array([2.0, 2.0]) if vector else 2.0
    jackknife = np.arange(10.0).reshape(5, 2) if vector else np.arange(5.0)
    where = "columns [0, 1] of 'distribution'" if vector else "'distribution'"
    cases = [
        ("percentile_interval", percentile_interval, (theta,), 2.0, 2.0),
        ("basic_interval", basic_interval, (theta, est + 1.0), 4.0, 4.0),
        ("normal_interval", normal_interval, (theta, est + 1.0), 3.0, 3.0),
        ("bc_interval", bc_interval, (theta, est), 2.0, 2.0),
        ("bca_interval", bca_interval, (theta, est, jackknife), 2.0, 2.0),
    ]
    for name, func, args, low, high in cases:
        res, messages = _recorded(func, *args)
        assert messages[-1].startswith(f"{name}: {where}: zero spread"), messages
        assert_array_equal(res.low, low)
        assert_array_equal(res.high, high)


def test_zero_spread_single_column_named():
    theta = np.column_stack([np.arange(20.0), np.full(20, 1.0)])
    with pytest.warns(
        DegenerateDistributionWarning,
        match=r"^percentile_interval: column 1 of 'distribution': zero spread",
    ):
        res = percentile_interval(theta)
    assert res.low[1] == res.high[1] == 1.0
    assert 0 < res.low[0] < res.high[0] < 19


@pytest.mark.parametrize("func", [bc_interval, bca_interval])
def test_infinite_z0_gives_nan(func):
    rng = np.random.default_rng(5)
    theta = rng.normal(size=(300, 3))
    est = np.array([10.0, 0.0, -10.0])  # above all, inside, below all
    args = (
        (theta, est) if func is bc_interval else (theta, est, rng.normal(size=(8, 3)))
    )
    res, messages = _recorded(func, *args)
    name = func.__name__
    assert messages == [
        f"{name}: column 2 of 'distribution': the estimate lies below every "
        "bootstrap replicate, so the bias correction z0 is -inf; the endpoints are "
        "NaN.",
        f"{name}: column 0 of 'distribution': the estimate lies above every "
        "bootstrap replicate, so the bias correction z0 is +inf; the endpoints are "
        "NaN.",
    ]
    assert np.isnan(res.low[[0, 2]]).all() and np.isnan(res.high[[0, 2]]).all()
    assert np.isnan(res.levels[0][[0, 2]]).all()
    assert np.isfinite([res.low[1], res.high[1]]).all()
    assert_array_equal(res.diagnostics["z0"][[0, 2]], [np.inf, -np.inf])


def test_infinite_z0_zero_spread_estimate_differs():
    res, messages = _recorded(bc_interval, np.full(30, 1.0), 1.5)
    assert len(messages) == 2 and "zero spread" in messages[0]
    assert "z0 is +inf" in messages[1]
    assert np.isnan(res.low) and np.isnan(res.high)


def test_bias_correction_warns_when_infinite():
    with pytest.warns(
        DegenerateDistributionWarning,
        match=r"^bias_correction: 'distribution': the estimate lies outside",
    ):
        z0 = bias_correction([1.0, 2.0, 3.0], 0.0)
    assert z0 == -np.inf


def test_constant_jackknife_uses_zero_acceleration():
    rng = np.random.default_rng(6)
    theta = rng.normal(size=(400, 2))
    # 0.1 * 7 values: their floating-point mean is not exactly 0.1, which would
    # give a spurious |a| = 1 / (6 sqrt(7)) without the explicit check
    jackknife = np.column_stack([np.full(7, 0.1), rng.normal(size=7)])
    assert np.mean(jackknife[:, 0]) != 0.1
    with pytest.warns(
        DegenerateDistributionWarning,
        match=r"^bca_interval: column 0 of 'jackknife_values': all jackknife values "
        r"are equal, so the acceleration is 0/0; a_hat = 0 is used",
    ):
        res = bca_interval(theta, [0.0, 0.0], jackknife)
    assert res.diagnostics["a_hat"][0] == 0.0
    bc = bc_interval(theta, [0.0, 0.0])
    assert res.low[0] == bc.low[0] and res.high[0] == bc.high[0]
    with pytest.warns(DegenerateDistributionWarning, match="returning 0"):
        assert jackknife_acceleration(jackknife[:, 0]) == 0.0


def test_studentized_drops_bad_replicate_standard_errors():
    rng = np.random.default_rng(8)
    theta = rng.normal(size=(200, 2))
    se_b = np.abs(rng.normal(1.0, 0.1, size=(200, 2)))
    se_b[:3, 1] = [0.0, np.nan, np.inf]
    with pytest.warns(
        DegenerateDistributionWarning,
        match=r"^studentized_interval: column 1 of 'replicate_standard_errors': 3 of "
        r"200 replicate standard errors are zero or non-finite; those replicates are "
        r"left out",
    ):
        res = studentized_interval(theta, [0.0, 0.0], [1.0, 1.0], se_b)
    assert_array_equal(res.diagnostics["n_used"], [200, 197])
    kept = studentized_interval(theta[3:, 1], 0.0, 1.0, se_b[3:, 1])
    assert res.low[1] == kept.low and res.high[1] == kept.high


def test_studentized_degenerate_standard_errors():
    rng = np.random.default_rng(9)
    theta = rng.normal(size=(100, 3))
    se_b = np.ones((100, 3))
    se_b[:, 2] = 0.0
    res, messages = _recorded(
        studentized_interval, theta, [0.5, 0.5, 0.5], [0.0, np.nan, 1.0], se_b
    )
    assert messages == [
        "studentized_interval: column 2 of 'replicate_standard_errors': every "
        "replicate standard error is zero or non-finite, so there is no bootstrap-t "
        "distribution; the endpoints are NaN.",
        "studentized_interval: column 0 of 'standard_error': the standard error is "
        "0; the interval is the single value estimate.",
        "studentized_interval: column 1 of 'standard_error': the standard error is "
        "non-finite; the endpoints are NaN.",
    ]
    assert res.low[0] == res.high[0] == 0.5
    assert np.isnan(res.low[1:]).all() and np.isnan(res.high[1:]).all()


@pytest.mark.parametrize(
    ("func", "args"),
    [
        (percentile_interval, (np.ones(5),)),
        (bc_interval, (np.ones(5), 1.0)),
        (bca_interval, (np.arange(5.0), 9.0, np.ones(3))),
        (studentized_interval, (np.ones(5), 1.0, 0.0, np.ones(5))),
        (jackknife_acceleration, (np.ones(3),)),
    ],
)
def test_warnings_point_at_the_caller(func, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func(*args)
    assert caught
    assert {w.filename for w in caught} == {__file__}


def test_valid_input_emits_no_warning():
    rng = np.random.default_rng(10)
    theta = rng.normal(size=(300, 2))
    est = np.zeros(2)
    for func, args in [
        (percentile_interval, (theta,)),
        (basic_interval, (theta, est)),
        (normal_interval, (theta, est)),
        (bc_interval, (theta, est)),
        (bca_interval, (theta, est, rng.normal(size=(9, 2)))),
        (studentized_interval, (theta, est, [1.0, 1.0], np.ones_like(theta))),
    ]:
        _, messages = _recorded(func, *args)
        assert messages == []


# --------------------------------------------------------------------------------
# coverage


def test_coverage_percentile_and_bca_normal_mean():
    """Coverage of the 95% percentile and BCa intervals for a normal mean, n = 50.

    400 independent data sets, B = 999 each (the trials are the k = 400 columns of
    one distribution). The true coverage of both intervals here is about 0.942,
    not 0.95: they use the plug-in variance and normal rather than t quantiles,
    P(|t_49| < 1.96 sqrt(49/50)) = 0.9419. We accept 360..398 hits out of 400
    (0.90..0.995). False-failure probability per method: 1.4e-5 if the coverage
    were exactly 0.95, 3.6e-4 at the actual 0.9419 (binomial tails), so below
    1e-3 for the test; the seed is fixed, so the outcome is deterministic anyway.
    """
    rng = np.random.default_rng(2024)
    n, trials, n_resamples = 50, 400, 999
    data = rng.normal(size=(trials, n))  # true mean 0
    distribution = np.empty((n_resamples, trials))
    for t in range(trials):
        idx = rng.integers(0, n, size=(n_resamples, n))
        distribution[:, t] = data[t, idx].mean(axis=1)
    estimate = data.mean(axis=1)
    jackknife = (data.sum(axis=1) - data.T) / (n - 1)  # (n, trials)
    for res in (
        percentile_interval(distribution),
        bca_interval(distribution, estimate, jackknife),
    ):
        hits = int(np.count_nonzero((res.low < 0) & (res.high > 0)))
        assert 360 <= hits <= 398, hits


# --------------------------------------------------------------------------------
# the ConfidenceInterval object and method names


def test_confidence_interval_is_a_pair_with_its_provenance():
    import pickle

    from skboot import bootstrap

    x = np.random.default_rng(8).exponential(size=80)
    res = bootstrap(x, "mean", n_resamples=300, random_state=0)
    ci = res.confidence_interval(0.9, method="basic", alternative="less")
    low, high = ci
    assert (low, high) == tuple(ci) == (ci.low, ci.high)
    assert len(ci) == 2 and (ci[0], ci[1]) == (low, high)
    assert np.asarray(ci).tolist() == [low, high]
    wide = ConfidenceInterval(np.zeros(3), np.ones(3))
    assert np.asarray(wide).shape == (2, 3) and np.isfinite(wide).all()
    assert low == -np.inf and ci.high == high
    # equality: every attribute (the endpoints alone make another interval)
    assert ci != ConfidenceInterval(low, high)
    assert ci == dataclasses.replace(ci)
    assert (ci.estimate, ci.standard_error) == (res.estimate, res.standard_error)
    assert (ci.method, ci.level, ci.alternative) == ("basic", 0.9, "less")
    assert ci.jackknife_groups is None and ci.name == "mean"
    back = pickle.loads(pickle.dumps(ci))
    assert back == ci and back.method == "basic" and back.level == 0.9
    bare = ConfidenceInterval(1.0, 2.0)
    assert bare.estimate is None and bare.method is None
    assert dataclasses.replace(bare, low=0.0) == ConfidenceInterval(0.0, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bare.low = 0.0  # type: ignore[misc]
    with pytest.raises(TypeError, match="unhashable"):
        hash(bare)
    # None fields are left out; the estimate and the rest are in to_frame()
    assert repr(bare) == "ConfidenceInterval(low=1.0, high=2.0)"
    full = ConfidenceInterval(
        0.25, 2.0, estimate=1.0, method="bca", level=0.9, alternative="two-sided"
    )
    assert (
        repr(full) == "ConfidenceInterval(low=0.25, high=2.0, method='bca', level=0.9)"
    )


def test_equality_of_array_intervals_never_raises():
    a = ConfidenceInterval(np.array([0.0, np.nan]), np.array([1.0, np.nan]))
    assert a == ConfidenceInterval(np.array([0.0, np.nan]), np.array([1.0, np.nan]))
    assert a != ConfidenceInterval(np.array([0.0, 0.5]), np.array([1.0, 2.0]))
    assert a != ConfidenceInterval(np.zeros(3), np.ones(3))
    assert a != (a.low, a.high) and a != "interval"


def test_to_frame_labels_rows_as_the_outputs():
    import pandas as pd

    from skboot import bootstrap

    rng = np.random.default_rng(9)
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "a", "b"])
    res = bootstrap(frame, "mean", n_resamples=200, random_state=0)
    ci = res.confidence_interval(method="percentile")
    table = ci.to_frame()
    assert list(table.index) == ["a", "a", "b"]  # duplicates kept, positional
    assert list(table.columns) == ["estimate", "standard_error", "low", "high"]
    assert_array_equal(table["estimate"], res.estimate.to_numpy())
    assert_array_equal(table["standard_error"], res.standard_error.to_numpy())
    assert_array_equal(table["low"], ci.low.to_numpy())
    assert_array_equal(table["high"], ci.high.to_numpy())
    assert table.attrs == {
        "method": "percentile",
        "level": 0.95,
        "alternative": "two-sided",
    }
    plain = bootstrap(frame.to_numpy(), "mean", n_resamples=200, random_state=0)
    assert list(plain.confidence_interval().to_frame().index) == [0, 1, 2]
    series = bootstrap(frame.iloc[:, 2].rename("income"), "median", n_resamples=50)
    assert list(series.confidence_interval().to_frame().index) == ["income"]
    one = bootstrap(frame.to_numpy()[:, 0], "std", n_resamples=50)
    assert list(one.confidence_interval().to_frame().index) == ["std"]
    bare = ConfidenceInterval(np.array([0.0, 1.0]), np.array([2.0, 3.0])).to_frame()
    assert list(bare.columns) == ["low", "high"] and bare.attrs == {}


def test_repr_of_per_column_intervals_is_one_short_line():
    import pandas as pd

    from skboot import bootstrap

    frame = pd.DataFrame(
        np.random.default_rng(10).normal(size=(60, 3)), columns=["x1", "x2", "x3"]
    )
    ci = bootstrap(frame, "mean", n_resamples=100, random_state=0).confidence_interval(
        method="normal"
    )
    text = repr(ci)
    assert text.startswith("ConfidenceInterval(low=Series(shape=(3,)), ")
    assert text.endswith("method='normal', level=0.95)")
    assert "\n" not in text and len(text) < 300
    wide = ConfidenceInterval(np.zeros(9999), np.ones(9999))
    assert "low=array(shape=(9999,), dtype=float64)" in repr(wide)
    assert len(repr(wide)) < 300


@pytest.mark.parametrize("spelling", ["BCa", "BCA", "bca", "Bca"])
def test_method_names_are_case_insensitive(spelling):
    from skboot import bootstrap, metric_ci
    from skboot.intervals import interval_by_method

    x = np.random.default_rng(11).exponential(size=50)
    res = bootstrap(x, "mean", n_resamples=200, random_state=0)
    ci = res.confidence_interval(method=spelling)
    assert ci == res.confidence_interval(method="bca") and ci.method == "bca"
    assert res.confidence_interval(method=spelling[:2]).method == "bc"
    loo = (x.sum() - x) / 49
    direct = interval_by_method(
        spelling, res.distribution, res.estimate, jackknife=lambda: loo
    )
    assert (direct.low, direct.high) == tuple(ci)
    y = np.array([0, 1] * 25)
    m = metric_ci(y, x, "roc_auc", n_resamples=100, random_state=0, method=spelling)
    assert m.method == "bca" and m.confidence_interval().method == "bca"
    default = metric_ci(y, x, "roc_auc", n_resamples=100, random_state=0)
    assert m.confidence_interval() == default.confidence_interval()
    assert m.confidence_interval(method="Percentile").method == "percentile"
    with pytest.raises(
        ValueError,
        match=r"^The 'method' parameter of interval_by_method must be one of "
        r"\{'percentile', 'basic', 'normal', 'bc', 'bca', 'studentized', "
        r"'calibrated', 'calibrated_basic'\}. Got "
        r"'B C a' instead\.$",
    ):
        interval_by_method("B C a", res.distribution, res.estimate)


# --------------------------------------------------------------------------------
# interval_by_method and the public checks


def _never_called():
    raise AssertionError("an input was computed although the arguments are invalid")


IBM = "interval_by_method"
DISPATCH_CASES = [
    (
        "level",
        ("bca", D1, 0.5),
        {"level": 1.0, "jackknife": _never_called},
        f"The 'level' parameter of {IBM} must be a float in (0, 1). Got 1.0 instead.",
    ),
    (
        "alternative",
        ("normal", D1, 0.5),
        {"alternative": "both"},
        f"The 'alternative' parameter of {IBM} must be one of {{'two-sided', "
        "'less', 'greater'}. Got 'both' instead.",
    ),
    (
        "jackknife missing",
        ("BCa", D1, 0.5),
        {},
        f"The 'jackknife' parameter of {IBM} must be a callable returning the "
        "jackknife values, which method 'bca' needs. Got None instead.",
    ),
    (
        "jackknife not callable",
        ("bca", D1, 0.5),
        {"jackknife": D1[:5]},
        f"The 'jackknife' parameter of {IBM} must be a callable or None. Got "
        f"{D1[:5]!r} instead.",
    ),
    (
        "studentized missing",
        ("studentized", D1, 0.5),
        {"jackknife": _never_called},
        f"The 'studentized' parameter of {IBM} must be a callable returning "
        "(standard_error, replicate_standard_errors), which method 'studentized' "
        "needs. Got None instead.",
    ),
    (
        "studentized not callable",
        ("studentized", D1, 0.5),
        {"studentized": (0.1, np.ones(10))},
        f"The 'studentized' parameter of {IBM} must be a callable or None. Got "
        f"{(0.1, np.ones(10))!r} instead.",
    ),
]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [case[1:] for case in DISPATCH_CASES],
    ids=[case[0] for case in DISPATCH_CASES],
)
def test_interval_by_method_invalid_input(args, kwargs, message):
    from skboot.intervals import interval_by_method

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        interval_by_method(*args, **kwargs)


def test_interval_by_method_passes_the_normalized_options():
    from skboot.intervals import interval_by_method

    for method, func, args in [
        ("percentile", percentile_interval, (D1,)),
        ("basic", basic_interval, (D1, 0.5)),
        ("normal", normal_interval, (D1, 0.5)),
        ("bc", bc_interval, (D1, 0.5)),
        ("bca", bca_interval, (D1, 0.5, D1[:5])),
        ("studentized", studentized_interval, (D1, 0.5, 0.1, np.ones(10))),
    ]:
        direct = func(*args, level=np.float64(0.8), alternative="less")
        res = interval_by_method(
            method.upper(),
            D1,
            0.5,
            level=np.float64(0.8),
            alternative="less",
            jackknife=lambda: D1[:5],
            studentized=lambda: (0.1, np.ones(10)),
        )
        assert (res.low, res.high) == (direct.low, direct.high), method
        assert_array_equal(res.levels, direct.levels)


def test_public_checks_name_their_owner():
    from skboot.intervals import (
        METHODS,
        check_alternative,
        check_level,
        check_method,
    )

    assert check_level(np.float64(0.9), "f") == 0.9
    assert type(check_level(np.float32(0.5), "f")) is float
    assert check_alternative("greater", "f") == "greater"
    assert check_method("Studentized", "f") == "studentized"
    assert check_method("bc", "f", METHODS[:5]) == "bc"
    with pytest.raises(
        ValueError,
        match=r"^The 'level' parameter of f must be a float in \(0, 1\)\. Got 0 ",
    ):
        check_level(0, "f")
    with pytest.raises(ValueError, match=r"^The 'alternative' parameter of g must"):
        check_alternative("Less", "g")
    with pytest.raises(
        ValueError,
        match=r"^The 'method' parameter of h must be one of \{'percentile', 'basic', "
        r"'normal', 'bc', 'bca'\}\. Got 'studentized' instead\.$",
    ):
        check_method("studentized", "h", METHODS[:5])
    with pytest.raises(TypeError, match="owner"):
        check_level(0.9)  # type: ignore[call-arg]
