"""Exact ties on integer-valued and 0/1 data: every fused statistic of
permutation_test and every fused metric of metric_permutation_test gives the
p-value that exact rational arithmetic gives on the same permutations (exact
enumeration and randomized), and the tests keep the data's floating dtype as
scipy does."""

from __future__ import annotations

import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skboot import UndefinedStatisticWarning
from skboot._random import check_random_state
from skboot.resamplers import Permutation
from skboot.significance import (
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)
from skboot.significance._plans import PermutationTestPlan, distinct_permutations

KIND = {
    "mean_diff": "independent",
    "median_diff": "independent",
    "t": "independent",
    "welch_t": "independent",
    "pearson": "pairings",
    "spearman": "pairings",
    "paired_mean_diff": "samples",
    "paired_t": "samples",
}


# ---------------------------------------------------------------------------
# exact references: each statistic as a Fraction, or as sign(t) * t**2 (a
# strictly increasing function of t, so ties and order are those of t) for the
# statistics with a square root; None when undefined (0 / 0)
# ---------------------------------------------------------------------------
def _signed_square(num: Fraction, var: Fraction) -> Fraction | float | None:
    """``t = num / sqrt(var)`` as ``sign(t) * t**2``."""
    if var == 0:
        return None if num == 0 else (float("inf") if num > 0 else float("-inf"))
    return num * abs(num) / var


def _mean(a):
    return Fraction(sum(a), len(a))


def _ss(a):
    m = _mean(a)
    return sum((v - m) ** 2 for v in a)


def _median(a):
    s = sorted(a)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _avg_ranks(a):
    return [Fraction(2 * r).limit_denominator(2) / 2 for r in stats.rankdata(a)]


def exact_statistic(name, x, y):
    """The statistic (or its monotone transform) in exact arithmetic."""
    if name == "mean_diff":
        return _mean(x) - _mean(y)
    if name == "median_diff":
        return _median(x) - _median(y)
    if name in ("t", "welch_t"):
        n1, n2 = len(x), len(y)
        if name == "t":
            var = (
                (_ss(x) + _ss(y)) / (n1 + n2 - 2) * (Fraction(1, n1) + Fraction(1, n2))
            )
        else:
            var = _ss(x) / (n1 - 1) / n1 + _ss(y) / (n2 - 1) / n2
        return _signed_square(_mean(x) - _mean(y), var)
    if name in ("pearson", "spearman"):
        if name == "spearman":
            x, y = _avg_ranks(x), _avg_ranks(y)
        mx, my = _mean(x), _mean(y)
        sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
        return _signed_square(sxy, _ss(x) * _ss(y))
    d = [a - b for a, b in zip(x, y, strict=True)]
    if name == "paired_mean_diff":
        return _mean(d)
    n = len(d)
    return _signed_square(_mean(d), _ss(d) / (n - 1) / n)


def _permuted(kind, x, y, idx):
    """The two samples of one replicate from its plan indices."""
    if kind == "independent":
        pool = list(x) + list(y)
        rows = [pool[i] for i in idx]
        return rows[: len(x)], rows[len(x) :]
    if kind == "pairings":
        return [x[i] for i in idx[0]], [y[i] for i in idx[1]]
    pairs = list(zip(x, y, strict=True))
    xs = [pairs[i][idx[i][0]] for i in range(len(pairs))]
    ys = [pairs[i][idx[i][1]] for i in range(len(pairs))]
    return xs, ys


def _fractions(x, y):
    return [Fraction(int(v)) for v in x], [Fraction(int(v)) for v in y]


def exact_pvalue(observed, null, alternative, adjustment):
    """scipy's rule without any tolerance, on exact values (None never counts)."""
    B = len(null)
    if observed is None:
        return float("nan")
    less = sum(1 for v in null if v is not None and v <= observed)
    greater = sum(1 for v in null if v is not None and v >= observed)
    p_less = (less + adjustment) / (B + adjustment)
    p_greater = (greater + adjustment) / (B + adjustment)
    if alternative == "less":
        return p_less
    if alternative == "greater":
        return p_greater
    return min(1.0, 2.0 * min(p_less, p_greater))


def exact_reference(name, x, y, B, exact, seed, alternative):
    kind = KIND[name]
    x = [Fraction(int(v)) for v in x]
    y = [Fraction(int(v)) for v in y]
    plan = PermutationTestPlan.build(
        check_random_state(seed), kind, (len(x), len(y)), exact
    )
    null = [
        exact_statistic(name, *_permuted(kind, x, y, plan.indices(b))) for b in range(B)
    ]
    observed = exact_statistic(name, x, y)
    return exact_pvalue(observed, null, alternative, 0 if exact else 1)


def _integer_data(name, rng, n1, n2, low=-2, high=3, null=False):
    """Integer data; with ``null=True`` the observed statistic is exactly 0
    (equal means, zero correlation, differences summing to 0), where a
    tolerance relative to ``|t|`` is 0 and only exact arithmetic ties."""
    kind = KIND[name]
    if not null:
        x = rng.integers(low, high, n1).astype(float)
        if kind == "independent":
            return x, rng.integers(low, high, n2).astype(float)
        return x, x + rng.integers(low, high, n1)
    if kind == "independent":  # equal sizes: the common mean is a fraction
        y = rng.integers(low, high, n1)
        z = rng.integers(low, high, n1)
        z[-1] -= z.sum()
        return (rng.permutation(y) + z).astype(float), y.astype(float)
    if kind == "pairings":  # n * sum(x * y) == sum(x) * sum(y), fractional means
        # (an odd prime dividing n must divide sum(x) or sum(y): n = 9 leaves
        # means of thirds)
        n1 = 9
        while True:
            x, y = rng.integers(0, 4, (2, n1))
            if (
                n1 * (x * y).sum() == x.sum() * y.sum()
                and (x.sum() << 20) % n1  # means that are not binary fractions
                and (y.sum() << 20) % n1
                and np.ptp(x)
                and np.ptp(y)
            ):
                return x.astype(float), y.astype(float)
    d = rng.integers(low, high, n1)
    d[-1] -= d.sum()
    x = rng.integers(low, high, n1).astype(float)
    return x, x - d


# ---------------------------------------------------------------------------
# the regression examples
# ---------------------------------------------------------------------------
def _scipy_t(a, b, axis=-1):
    return stats.ttest_ind(a, b, axis=axis).statistic


@pytest.mark.parametrize("name", ["t", "mean_diff", "welch_t"])
def test_identical_samples_tie_exactly(name):
    """x = y: every permutation with equal means is a tie with t = 0; 14 of the
    20 partitions give t <= 0 (the rounded pooled mean broke them before)."""
    x = y = np.array([2.0, -1.0, 1.0])
    res = permutation_test((x, y), name, n_resamples=np.inf, alternative="less")
    assert res.pvalue == 14 / 20
    assert res.pvalue == exact_reference(name, x, y, 20, True, None, "less")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's precision note
        ref = stats.permutation_test(
            (x, y), _scipy_t, n_resamples=np.inf, alternative="less"
        )
    assert res.pvalue == ref.pvalue


@pytest.mark.parametrize("name", ["t", "mean_diff", "welch_t"])
def test_discrete_samples_tie_exactly(name):
    x = np.array([-1.0, -1, 2, -2, -2])
    y = np.array([0.0, 2, -2, -2, -2])
    res = permutation_test((x, y), name, n_resamples=np.inf, alternative="greater")
    want = exact_reference(name, x, y, 252, True, None, "greater")
    assert res.pvalue == want
    assert res.pvalue == pytest.approx(146 / 252, abs=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = stats.permutation_test(
            (x, y), _scipy_t, n_resamples=np.inf, alternative="greater"
        )
    assert res.pvalue == ref.pvalue


# ---------------------------------------------------------------------------
# every fused statistic against the exact reference
# ---------------------------------------------------------------------------
EXACT_SIZES = {"independent": (6, 5), "pairings": (4, 4), "samples": (8, 8)}


# zero correlation with means that are not binary fractions needs n = 9 (an
# odd prime dividing n divides sum(x) or sum(y)): 9!**2 pairings, so the
# randomized test has that case
EXACT_CASES = [
    (name, null)
    for name in KIND
    for null in (False, True)
    if not (null and KIND[name] == "pairings")
]


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize(
    ("name", "null"),
    EXACT_CASES,
    ids=[f"{n}-{'t=0' if z else 'any'}" for n, z in EXACT_CASES],
)
def test_exact_enumeration_equals_rational_arithmetic(name, alternative, null):
    rng = np.random.default_rng(zlib.crc32(f"{name} exact".encode()))
    n1, n2 = EXACT_SIZES[KIND[name]]
    x, y = _integer_data(name, rng, n1, n2, null=null)
    n2 = y.shape[0]
    with warnings.catch_warnings():  # 0 / 0 on a few permutations
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        res = permutation_test(
            (x, y),
            name,
            permutation_type=KIND[name],
            n_resamples=np.inf,
            alternative=alternative,
        )
    M = distinct_permutations(KIND[name], (n1, n2))
    assert res.exact and res.n_resamples == M
    assert res.pvalue == exact_reference(name, x, y, M, True, None, alternative)


@pytest.mark.parametrize("null", [False, True], ids=["any", "t=0"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("name", list(KIND))
def test_randomized_equals_rational_arithmetic(name, alternative, null):
    """Random permutations (the plan's replicates b < B, the Permutation
    splitter's for independent samples) of 0/1 and small-integer data."""
    rng = np.random.default_rng(zlib.crc32(f"{name} random".encode()))
    for low, high in ((0, 2), (-3, 4)):
        x, y = _integer_data(name, rng, 14, 12, low, high, null=null)
        with warnings.catch_warnings():  # 0 / 0 on a few permutations
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            res = permutation_test(
                (x, y),
                name,
                permutation_type=KIND[name],
                n_resamples=199,
                alternative=alternative,
                random_state=4,
            )
        want = exact_reference(name, x, y, 199, False, 4, alternative)
        assert res.pvalue == want or (np.isnan(want) and np.isnan(res.pvalue))


def test_plan_replicates_are_the_permutation_splitters():
    """The exact reference reads the plan; for independent samples its
    replicates are those of the public Permutation splitter."""
    plan = PermutationTestPlan.build(
        check_random_state(4), "independent", (7, 6), False
    )
    splitter = Permutation(n_resamples=50, random_state=4).fit(np.zeros(13))
    for b in (0, 17, 49):
        assert np.array_equal(plan.indices(b), splitter.replicate(b).indices)


def test_mean_diff_on_integers_agrees_with_scipy_exactly():
    """scipy's mean difference of integer data is exact too (the sums are):
    the exact tests agree on every alternative."""
    rng = np.random.default_rng(11)
    x, y = rng.integers(0, 3, 6).astype(float), rng.integers(0, 3, 6).astype(float)
    for alternative in ("two-sided", "less", "greater"):
        ours = permutation_test(
            (x, y), "mean_diff", n_resamples=np.inf, alternative=alternative
        )
        ref = stats.permutation_test(
            (x, y),
            lambda a, b, axis=-1: a.mean(axis=axis) - b.mean(axis=axis),
            n_resamples=np.inf,
            alternative=alternative,
        )
        assert ours.pvalue == ref.pvalue


def test_integer_data_offset_and_magnitude_keep_exact_ties():
    """A large integer offset: the data are centred by an integer, so sums stay
    exact and the ties stay ties."""
    x = np.array([10**9 + 1, 10**9 - 1, 10**9 + 1, 10**9], dtype=float)
    y = np.array([10**9, 10**9 + 1, 10**9 - 1, 10**9 + 1], dtype=float)
    for name in ("mean_diff", "t", "welch_t"):
        for alt in ("less", "greater"):
            res = permutation_test((x, y), name, n_resamples=np.inf, alternative=alt)
            assert res.pvalue == exact_reference(name, x, y, 70, True, None, alt)


# ---------------------------------------------------------------------------
# fused metrics of metric_permutation_test
# ---------------------------------------------------------------------------
def _auc(yt, s):
    pos = [si for yi, si in zip(yt, s, strict=True) if yi == 1]
    neg = [si for yi, si in zip(yt, s, strict=True) if yi == 0]
    won = sum(
        Fraction(1) if p > q else Fraction(1, 2) if p == q else Fraction(0)
        for p in pos
        for q in neg
    )
    return won / (len(pos) * len(neg))


def _average_precision(yt, s):
    thresholds = sorted(set(s), reverse=True)
    tp = fp = 0
    total_pos = sum(yt)
    acc = Fraction(0)
    for t in thresholds:
        pos = sum(1 for yi, si in zip(yt, s, strict=True) if si == t and yi == 1)
        neg = sum(1 for yi, si in zip(yt, s, strict=True) if si == t and yi == 0)
        tp += pos
        fp += neg
        if pos:
            acc += Fraction(pos) * Fraction(tp, tp + fp)
    return acc / total_pos


def _exact_metric(name, yt, yp):
    n = len(yt)
    if name == "accuracy":
        return Fraction(sum(a == b for a, b in zip(yt, yp, strict=True)), n)
    if name == "balanced_accuracy":
        classes = sorted(set(yt))
        rec = [
            Fraction(
                sum(1 for a, b in zip(yt, yp, strict=True) if a == c and b == c),
                sum(1 for a in yt if a == c),
            )
            for c in classes
        ]
        return sum(rec) / len(rec)
    if name in ("precision", "recall", "f1"):
        tp = sum(1 for a, b in zip(yt, yp, strict=True) if a == 1 and b == 1)
        den = {"precision": sum(yp), "recall": sum(yt), "f1": sum(yp) + sum(yt)}[name]
        return Fraction((2 if name == "f1" else 1) * tp, den)
    if name == "roc_auc":
        return _auc(yt, yp)
    if name == "average_precision":
        return _average_precision(yt, yp)
    if name == "mean_squared_error":
        return Fraction(sum((a - b) ** 2 for a, b in zip(yt, yp, strict=True)), n)
    if name == "mean_absolute_error":
        return Fraction(sum(abs(a - b) for a, b in zip(yt, yp, strict=True)), n)
    assert name == "r2"
    res = sum((a - b) ** 2 for a, b in zip(yt, yp, strict=True))
    return 1 - Fraction(res) / _ss([Fraction(a) for a in yt])


METRIC_DATA = {
    "accuracy": "labels",
    "balanced_accuracy": "labels",
    "precision": "labels",
    "recall": "labels",
    "f1": "labels",
    "roc_auc": "scores",
    "average_precision": "scores",
    "mean_squared_error": "counts",
    "mean_absolute_error": "counts",
    "r2": "counts",
}


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("name", list(METRIC_DATA))
def test_fused_metrics_equal_rational_arithmetic(name, alternative):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    n, B = 24, 199
    yt = rng.integers(0, 2, n)
    if METRIC_DATA[name] == "labels":
        yp = np.where(rng.random(n) < 0.7, yt, 1 - yt)
    elif METRIC_DATA[name] == "scores":
        yp = yt + rng.integers(0, 3, n)  # integer scores with many ties
    else:
        yt = rng.integers(0, 4, n)
        yp = np.clip(yt + rng.integers(-1, 2, n), 0, 3)
    res = metric_permutation_test(
        yt, yp, name, n_resamples=B, alternative=alternative, random_state=2
    )
    split = Permutation(n_resamples=B, random_state=2).fit(np.zeros(n))
    yt_l, yp_l = [int(v) for v in yt], [int(v) for v in yp]
    null = []
    for b in range(B):
        perm = split.replicate(b).indices
        null.append(_exact_metric(name, [yt_l[i] for i in perm], yp_l))
    want = exact_pvalue(_exact_metric(name, yt_l, yp_l), null, alternative, 1)
    assert res.pvalue == want


# ---------------------------------------------------------------------------
# infinite null values count; dtypes as scipy keeps them
# ---------------------------------------------------------------------------
def test_infinite_null_values_count_and_are_not_undefined():
    x, y = np.arange(6.0), np.arange(6.0) + 0.5

    def stat(a, b, axis=-1):
        d = a.mean(axis=axis) - b.mean(axis=axis)
        return np.where(d > 1.0, np.inf, d)

    res = permutation_test((x, y), stat, n_resamples=np.inf, alternative="greater")
    null = res.null_distribution
    assert np.isinf(null).sum() > 0 and res.n_undefined == 0
    want = np.count_nonzero(null >= res.statistic) / null.shape[0]
    assert res.pvalue == pytest.approx(want, abs=1e-15)
    ref = stats.permutation_test(
        (x, y), stat, n_resamples=np.inf, alternative="greater"
    )
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-15)


def _mean_diff(a, b, axis=-1):
    return a.mean(axis=axis) - b.mean(axis=axis)


def _types(res):
    return (
        np.asarray(res.statistic).dtype,
        np.asarray(res.pvalue).dtype,
        type(res.statistic),
        type(res.pvalue),
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_permutation_test_keeps_the_floating_dtype_as_scipy(dtype):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=8).astype(dtype), rng.normal(size=7).astype(dtype)
    for n_resamples in (99, np.inf):
        ref = stats.permutation_test((x, y), _mean_diff, n_resamples=n_resamples, rng=0)
        for statistic in (_mean_diff, "mean_diff"):
            ours = permutation_test(
                (x, y), statistic, n_resamples=n_resamples, random_state=0
            )
            assert _types(ours)[:2] == _types(ref)[:2]
            assert ours.null_distribution.dtype == ref.null_distribution.dtype
    # a float32 statistic of float64 data: the statistic is float32, the
    # p-value float64 (the data's dtype), as in scipy
    x64, y64 = x.astype(np.float64), y.astype(np.float64)

    def as32(a, b, axis=-1):
        return _mean_diff(a, b, axis).astype(np.float32)

    ours = permutation_test((x64, y64), as32, n_resamples=np.inf)
    ref = stats.permutation_test((x64, y64), as32, n_resamples=np.inf)
    assert _types(ours)[:2] == _types(ref)[:2]
    assert ours.pvalue == ref.pvalue


def test_integer_data_give_float64_like_scipy():
    x, y = np.arange(5), np.arange(6)
    ours = permutation_test((x, y), "mean_diff", n_resamples=np.inf)
    assert type(ours.statistic) is float and type(ours.pvalue) is float


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_monte_carlo_test_keeps_the_floating_dtype_as_scipy(dtype):
    x = np.random.default_rng(1).normal(size=12).astype(dtype)

    def mean(a, axis=-1):
        return a.mean(axis=axis)

    ours = monte_carlo_test(x, stats.norm().rvs, mean, n_resamples=99, random_state=0)
    ref = stats.monte_carlo_test(x, stats.norm().rvs, mean, n_resamples=99)
    assert _types(ours)[:2] == _types(ref)[:2]
