"""Exact ties on integer-valued losses (0/1 classification errors, small counts).

Each procedure is checked against a reference written in exact arithmetic on
skboot's own replicates (``resampler.replicate(b).indices``): Python integer sums
of the rows of every replicate, :class:`fractions.Fraction` for the studentized
SPA/StepM values (with skboot's standard errors taken as given), and the
squares of integers for the MCS statistics (``a / sqrt(x)`` against
``b / sqrt(y)`` compared as ``a**2 y`` against ``b**2 x`` with signs).  On such
data a replicate often ties the observed statistic exactly; a p-value counts it
as exceeding only when exact arithmetic does.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest

from skboot import (
    MCS,
    SPA,
    Bootstrap,
    CircularBlockBootstrap,
    RealityCheck,
    StationaryBootstrap,
    StepM,
)

B, BLOCK, SEED = 400, 5, 1


def zero_one(seed=1, T=500, k=6):
    """The classification-error example: error rates 0.2 .. 0.3."""
    rng = np.random.default_rng(seed)
    return (rng.random((T, k)) < np.linspace(0.2, 0.3, k)).astype(float)


def small_integers(seed=4, T=300, k=5):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, (T, k)).astype(float) + (np.arange(k) % 2)


DATA = {"zero_one": zero_one, "small_integers": small_integers}


def replicate_sums(X, n_resamples=B, block=BLOCK, seed=SEED, cls=StationaryBootstrap):
    """Python-integer sums of the rows of every replicate, (B, k) object array."""
    length = float(block) if cls is StationaryBootstrap else int(block)
    fitted = cls(n_resamples, block_length=length, random_state=seed).fit(X)
    Xi = X.astype(np.int64)
    return [
        [int(v) for v in Xi[fitted.replicate(b).indices].sum(axis=0)]
        for b in range(n_resamples)
    ]


# --------------------------------------------------------------------------- #
# SPA, RealityCheck, StepM                                                      #
# --------------------------------------------------------------------------- #


def spa_reference(D, res, studentize, sums):
    """Exact p-values (lower, consistent, upper) and the exact values."""
    k = D.shape[1]
    S = [int(v) for v in D.astype(np.int64).sum(axis=0)]
    inv = (
        [Fraction(float(1.0 / s)) for s in res.standard_errors]
        if studentize
        else [Fraction(1)] * k
    )
    relevant = res.relevant.to_numpy()
    shifts = [
        [min(s, 0) for s in S],
        [0 if relevant[j] else S[j] for j in range(k)],
        [0] * k,
    ]
    t = [S[j] * inv[j] for j in range(k)]
    stat = max(t)
    values = [
        [[(row[j] - S[j] + shift[j]) * inv[j] for j in range(k)] for row in sums]
        for shift in shifts
    ]
    p = [sum(max(row) > stat for row in vals) / len(sums) for vals in values]
    return p, t, values


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("studentize", [False, True])
@pytest.mark.parametrize("variance", ["asymptotic", "bootstrap"])
def test_spa_pvalues_equal_exact_arithmetic(data, studentize, variance):
    L = DATA[data]()
    bm, models = L[:, 0], L[:, 1:]
    D = bm[:, None] - models
    res = SPA(
        n_resamples=B,
        block_length=BLOCK,
        studentize=studentize,
        variance=variance,
        random_state=SEED,
    ).compute(bm, models)
    p, t, values = spa_reference(D, res, studentize, replicate_sums(D))
    assert res.pvalues_by_type.tolist() == p
    if data == "zero_one":  # replicates tie the statistic exactly: the rule matters
        stat = max(t)
        assert any(max(row) == stat for vals in values for row in vals)
    # the per-model single-step p-values too
    for j, kind in enumerate(("lower", "consistent", "upper")):
        expect = [sum(max(row) > tk for row in values[j]) / B for tk in t]
        assert res.pvalues[kind].tolist() == expect


def test_spa_issue_example_lower_pvalue():
    """0/1 losses, benchmark column 0: lower p-value 0.544 (exact), not 0.57."""
    L = zero_one()
    res = SPA(
        n_resamples=1000, block_length=5, studentize=False, random_state=1
    ).compute(L[:, 0], L[:, 1:])
    D = L[:, :1] - L[:, 1:]
    p, _, _ = spa_reference(D, res, False, replicate_sums(D, 1000, 5, 1))
    assert p[0] == 0.544
    assert res.pvalues_by_type.tolist() == p


@pytest.mark.parametrize("data", list(DATA))
def test_reality_check_equals_exact_arithmetic(data):
    L = DATA[data]()
    D = L[:, :1] - L[:, 1:]
    res = RealityCheck(n_resamples=B, block_length=BLOCK, random_state=SEED).compute(
        L[:, 0], L[:, 1:]
    )
    p, _, _ = spa_reference(D, res, False, replicate_sums(D))
    assert res.pvalue == p[2]


def exact_quantile(values, size):
    """numpy's linear percentile at 100 (1 - size), in Fractions (the position
    computed as numpy computes it)."""
    s = sorted(values)
    h = (len(s) - 1) * ((100.0 * (1.0 - size)) / 100.0)
    j = math.floor(h)
    if j >= len(s) - 1:
        return s[-1]
    return s[j] + Fraction(h - j) * (s[j + 1] - s[j])


def stepm_reference(D, res_spa, studentize, sums, size, kind):
    _, t, values = spa_reference(D, res_spa, studentize, sums)
    vals = values[("lower", "consistent", "upper").index(kind)]
    active = list(range(D.shape[1]))
    chosen = []
    while active:
        crit = exact_quantile([max(row[j] for j in active) for row in vals], size)
        new = [j for j in active if t[j] > crit]
        if not new:
            break
        chosen += new
        active = [j for j in active if j not in new]
    return sorted(chosen)


def stepm_data(data):
    L = DATA[data]()
    bm = L[:, 0]
    models = L[:, 1:].copy()
    models[:, :2] = np.maximum(models[:, :2] - 1.0, 0.0)  # two better models
    return bm, models


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("studentize", [False, True])
@pytest.mark.parametrize(
    ("level", "size", "kind"),
    [(0.9, 0.1, "consistent"), (0.5, 0.5, "lower"), (0.75, 0.25, "upper")],
)
def test_stepm_rejections_equal_exact_arithmetic(data, studentize, level, size, kind):
    """size 0.5 and 0.25 put the critical value halfway / a quarter of the way
    between two order statistics: integer statistics can tie it exactly."""
    bm, models = stepm_data(data)
    D = bm[:, None] - models
    res = StepM(
        level,
        pvalue_type=kind,
        n_resamples=B,
        block_length=BLOCK,
        studentize=studentize,
        random_state=SEED,
    ).compute(bm, models)
    expect = stepm_reference(D, res.spa, studentize, replicate_sums(D), size, kind)
    assert res.superior_models == expect
    assert len(expect) >= 1
    # better_models (single step) follows the same exact rule
    first = stepm_reference(D, res.spa, studentize, replicate_sums(D), size, kind)
    assert set(res.spa.better_models(1 - size, kind)) <= set(first)


@pytest.mark.parametrize(("r", "n_resamples", "seed"), [(5, 40, 1), (15, 34, 2)])
def test_stepm_tie_at_the_interpolated_critical_value(r, n_resamples, seed):
    """A model whose differential is 1 on ``r`` rows and 0 elsewhere has
    ``t = r``.  With these replicates the critical value (size 0.5) is exactly
    ``r``, halfway between two order statistics.  Equal is not above: the
    model is not selected."""
    L = zero_one()
    bm, base = L[:, 0], L[:, 1:4]
    rare = np.zeros(bm.shape[0])
    rare[:: bm.shape[0] // r][:r] = 1.0
    models = np.column_stack([base, bm - rare])
    D = bm[:, None] - models
    res = StepM(
        0.5, pvalue_type="upper", n_resamples=n_resamples, block_length=BLOCK,
        studentize=False, random_state=seed,
    ).compute(bm, models)  # fmt: skip
    sums = replicate_sums(D, n_resamples=n_resamples, seed=seed)
    _, t, values = spa_reference(D, res.spa, False, sums)
    maxima = sorted(max(row) for row in values[2])
    crit = exact_quantile(maxima, 0.5)
    assert t[-1] == crit == r  # the tie this test is about
    mid = maxima[n_resamples // 2 - 1 : n_resamples // 2 + 1]
    assert mid[0] < crit < mid[1]
    assert res.superior_models == stepm_reference(D, res.spa, False, sums, 0.5, "upper")
    assert 3 not in res.superior_models
    assert 3 not in res.spa.better_models(0.5, "upper")


# --------------------------------------------------------------------------- #
# MCS                                                                           #
# --------------------------------------------------------------------------- #


@functools.total_ordering
class Root:
    """The exact value ``a / sqrt(x)`` (``x > 0`` integer)."""

    def __init__(self, a, x):
        self.a, self.x = a, x

    def _key(self, other):
        # sign(a1 sqrt(x2) - a2 sqrt(x1))
        lhs, rhs = self.a * self.a * other.x, other.a * other.a * self.x
        s1, s2 = (self.a > 0) - (self.a < 0), (other.a > 0) - (other.a < 0)
        if s1 != s2:
            return s1 - s2
        if s1 >= 0:
            return (lhs > rhs) - (lhs < rhs)
        return (rhs > lhs) - (rhs < lhs)

    def __eq__(self, other):
        return self._key(other) == 0

    def __lt__(self, other):
        return self._key(other) < 0


def mcs_r_reference(L, sums):
    k = L.shape[1]
    S = [int(v) for v in L.astype(np.int64).sum(axis=0)]
    c = [[row[j] - S[j] for j in range(k)] for row in sums]
    ss = {
        (i, j): sum((r[i] - r[j]) ** 2 for r in c)
        for i in range(k)
        for j in range(k)
        if i != j
    }
    alive = list(range(k))
    order, raw = [], []
    while len(alive) > 1:
        pairs = [(i, j) for i in alive for j in alive if i != j]
        stat = max(Root(S[i] - S[j], ss[i, j]) for i, j in pairs)
        worst = min(i for i, j in pairs if Root(S[i] - S[j], ss[i, j]) == stat)
        count = sum(
            max(Root(abs(r[i] - r[j]), ss[i, j]) for i, j in pairs) > stat for r in c
        )
        order.append(worst)
        raw.append(count / len(c))
        alive.remove(worst)
    order.append(alive[0])
    raw.append(1.0)
    return order, list(np.maximum.accumulate(raw))


def mcs_max_reference(L, sums):
    k = L.shape[1]
    S = [int(v) for v in L.astype(np.int64).sum(axis=0)]
    c = [[row[j] - S[j] for j in range(k)] for row in sums]
    alive = list(range(k))
    order, raw = [], []
    while len(alive) > 1:
        m = len(alive)
        U = [[m * r[i] - sum(r[q] for q in alive) for i in alive] for r in c]
        ss = [sum(u[a] ** 2 for u in U) for a in range(m)]
        o = [m * S[i] - sum(S[q] for q in alive) for i in alive]
        vals = [Root(o[a], ss[a]) for a in range(m)]
        stat = max(vals)
        count = sum(max(Root(u[a], ss[a]) for a in range(m)) > stat for u in U)
        gone = [alive[a] for a in range(m) if vals[a] == stat]
        for i in gone:
            order.append(i)
            raw.append(count / len(c))
        alive = [i for i in alive if i not in gone]
    order += alive
    raw += [1.0] * len(alive)
    return order, list(np.maximum.accumulate(raw))


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("method", ["R", "max"])
def test_mcs_pvalues_equal_exact_arithmetic(data, method):
    L = DATA[data]()
    res = MCS(
        0.9, statistic=method, n_resamples=B, block_length=BLOCK, random_state=SEED
    ).compute(L)
    ref = mcs_r_reference if method == "R" else mcs_max_reference
    order, pvals = ref(L, replicate_sums(L))
    assert res.pvalues.index.tolist() == order
    assert res.pvalues.tolist() == pvals


def test_mcs_issue_example():
    L = zero_one()
    sums = replicate_sums(L, 1000, 5, 1)
    for method, ref in (("R", mcs_r_reference), ("max", mcs_max_reference)):
        res = MCS(
            statistic=method, n_resamples=1000, block_length=5, random_state=1
        ).compute(L)
        order, pvals = ref(L, sums)
        assert res.pvalues.index.tolist() == order
        assert res.pvalues.tolist() == pvals


# --------------------------------------------------------------------------- #
# other schemes, whole-sample metrics                                           #
# --------------------------------------------------------------------------- #


def test_circular_scheme_is_exact_too():
    L = zero_one()
    D = L[:, :1] - L[:, 1:]
    res = SPA(
        n_resamples=B,
        block_length=BLOCK,
        resampler="circular",
        studentize=False,
        random_state=SEED,
    ).compute(L[:, 0], L[:, 1:])
    sums = replicate_sums(D, cls=CircularBlockBootstrap)
    p, _, _ = spa_reference(D, res, False, sums)
    assert res.pvalues_by_type.tolist() == p


@pytest.mark.parametrize("studentize", [False, True])
def test_accuracy_metric_equals_the_zero_one_losses(studentize):
    """compute_metric with accuracy on iid rows is the loss path on the 0/1
    errors with the same iid replicates: exact on both, so equal."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    preds = np.where(
        rng.random((400, 5)) < np.linspace(0.2, 0.3, 5), 1 - y[:, None], y[:, None]
    )
    errors = (preds != y[:, None]).astype(float)
    kw = {"n_resamples": B, "random_state": SEED, "studentize": studentize}
    met = SPA(**kw).compute_metric(y, preds[:, 0], preds[:, 1:], "accuracy")
    loss = SPA(resampler=Bootstrap(), variance="bootstrap", **kw).compute(
        errors[:, 0], errors[:, 1:]
    )
    assert met.pvalues_by_type.tolist() == loss.pvalues_by_type.tolist()
    D = errors[:, :1] - errors[:, 1:]
    fitted = Bootstrap(B, random_state=SEED).fit(D)
    sums = [
        [int(v) for v in D.astype(np.int64)[fitted.replicate(b).indices].sum(0)]
        for b in range(B)
    ]
    p, _, _ = spa_reference(D, loss, studentize, sums)
    assert loss.pvalues_by_type.tolist() == p
    step_m = StepM(0.9, **kw).compute_metric(y, preds[:, 0], preds[:, 1:], "accuracy")
    step_l = StepM(0.9, resampler=Bootstrap(), variance="bootstrap", **kw).compute(
        errors[:, 0], errors[:, 1:]
    )
    assert step_m.superior_models == step_l.superior_models
    np.testing.assert_array_equal(step_m.pvalues, step_l.pvalues)
    mcs_m = MCS(n_resamples=B, random_state=SEED).compute_metric(y, preds, "accuracy")
    mcs_l = MCS(n_resamples=B, resampler=Bootstrap(), random_state=SEED).compute(errors)
    assert mcs_m.pvalues.tolist() == mcs_l.pvalues.tolist()
    all_sums = [
        [int(v) for v in errors.astype(np.int64)[fitted.replicate(b).indices].sum(0)]
        for b in range(B)
    ]
    _, pvals = mcs_r_reference(errors, all_sums)
    assert mcs_l.pvalues.tolist() == pvals


def test_continuous_losses_keep_the_floating_point_path():
    """Non-integer losses are not rounded: a loss of 0.5 changes the result."""
    L = zero_one()
    res = SPA(n_resamples=B, block_length=BLOCK, random_state=SEED)
    a = res.compute(L[:, 0], L[:, 1:])
    b = res.compute(L[:, 0] + 1e-3 * (np.arange(500) % 3), L[:, 1:])
    assert a.statistic != b.statistic


# --------------------------------------------------------------------------- #
# undefined observed statistics                                                 #
# --------------------------------------------------------------------------- #


def _huge():
    rng = np.random.default_rng(0)
    return rng.chisquare(5, (60, 4)) * 1e160


UNDEFINED = [
    # squares overflow: the variances would be inf, every statistic 0, p = 0
    ("spa-overflow", lambda: SPA(block_length=3).compute(_huge()[:, 0], _huge()[:, 1:]),
     r"'benchmark' parameter of SPA must hold losses whose sums of squares are finite"),
    ("mcs-overflow", lambda: MCS(block_length=3).compute(_huge()),
     r"'losses' parameter of MCS must hold losses whose sums of squares are finite"),
    # a differential that does not vary cannot be studentized
    ("spa-zero-differential", lambda: SPA(block_length=3).compute(zero_one()[:, 0], zero_one()),
     r"model 0 has one \(its losses equal the benchmark's plus a constant\)"),
    ("mcs-equal-models", lambda: MCS(block_length=3).compute(np.column_stack([zero_one(), zero_one()[:, 2]])),
     r"models 2 and 6 do"),
    ("spa-nan", lambda: SPA(block_length=3).compute(np.r_[np.nan, zero_one()[1:, 0]], zero_one()[:, 1:]),
     r"'benchmark' parameter of SPA must contain only finite losses"),
    ("stepm-nan", lambda: StepM(block_length=3).compute(zero_one()[:, 0], np.where(zero_one()[:, 1:] > 0, np.nan, 0.0)),
     r"'models' parameter of StepM must contain only finite losses"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "match"), [c[1:] for c in UNDEFINED], ids=[c[0] for c in UNDEFINED]
)
def test_undefined_statistics_never_give_a_small_pvalue(call, match):
    """Where the observed statistic is undefined the input is refused with an
    error that says why (the procedures have no statistic to report)."""
    with pytest.raises(ValueError, match=match):
        call()
