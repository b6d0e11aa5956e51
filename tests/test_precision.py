"""Guarantee 5: a fused statistic is as precise as numpy on the same replicate,
whatever the data's offset, and equivariant to a shift of the data.

For every fused path (iid, m-out-of-n, stratified, group, Poisson, Bayesian,
moving / circular / stationary / non-overlapping / tapered blocks; 1-D data and
2-D columns through the scalar and the eight-lane kernels) the replicate values
of ``bootstrap`` are compared with two references computed on the replicate's
rows ``x[resampler.replicate(b).indices]`` (or with its weights):

* numpy (``np.mean``, ``np.sum``, ``np.average`` on one contiguous column: numpy
  sums a contiguous axis pairwise, but reduces axis 0 of a C-ordered 2-D array
  one row at a time, with an error that grows with the offset);
* the value in long double (64-bit significand), computed on ``v - v[0]`` (exact)
  and shifted back: within a fraction of a double ulp of the exact value.

Data are ``offset + 1e-3 * N(0, 1)`` (``N(0, 1)`` at offset 0), offsets 0, 1e6,
1e9 and -1e9, n = 100,000 (20,000 for 2-D).  Everything is seeded, so each check
is deterministic.  The bounds, in ulps (``np.spacing``) of the data's scale
``s = max |x|`` of the column:

* mean: at most 3 ulps of ``s`` from the long-double value.  The fused value is
  ``(S + w * c) / w`` with ``S`` the kernel's sum of ``w * (x - c)`` and ``c`` the
  column's centre: three roundings of at most half an ulp of quantities of size
  ``w * s``, ``w * s`` and ``s`` (2.5 ulps of ``s``), plus the error of ``S``, which
  is made of roundings of centred partial sums, i.e. of size of the spread
  (1e-3 here, and a random walk at offset 0): a small fraction of an ulp of ``s``.
  Against numpy at most 8 ulps (numpy's pairwise sum adds its own rounding; its
  worst case is about ``(16 + log2(m)) u`` relative, its typical one an ulp).
  Before centring the error grew with the offset: 17 ulps at 1e9 for the iid
  kernel, 20-330 ulps at 1e6 for the others, at this n.
* sum: the same bounds in ulps of ``w * s`` (``w`` the replicate's size or weight).
* var, std: relative error at most 2**12 ulps of the value against the long-double
  value (numpy's own two-pass ``var`` is off by ~1e-8 relative at offset 1e9, so it
  is no reference there): the error must not grow with the offset (uncentred, it
  would grow like ``(offset / spread)**2``).  At offset 0, where numpy's pairwise
  sums are within an ulp, every scheme's 1-D var (sums of squares through the
  pairwise cascade of :mod:`skboot._kernels.cascade`; blocks from compensated
  prefix sums) must be within 3 ulps of numpy's own error on the same replicate
  (``test_var_is_as_precise_as_numpy_on_the_same_replicate``; measured 0-1 ulps
  beyond it, where sums added in sequence were 4-153 ulps off); the iid column
  var likewise (``test_column_var_is_as_precise_as_numpy_on_the_same_replicate``).
* corr: at most 2**12 ulps of 1 from the long-double value (numpy's ``corrcoef``
  is off by ~1e-8 at offset 1e9), for the same reason; measured at most 123.
* proportion, the sum and mean of integer data, median and quantiles: equal to
  numpy bit for bit for the index schemes (integer sums are exact; order
  statistics are data values, interpolated with numpy's rounding).

Shift equivariance: ``bootstrap(x - C).distribution + C`` is within 4 ulps of
``C`` of ``bootstrap(x).distribution`` for the mean (each within 2.5 ulps of the
exact replicate mean, which moves by exactly ``C``, plus one rounding of ``+ C``);
``sum`` likewise with ``w * C``; ``var`` is shift invariant within the var bound.

References
----------
.. [1] N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
       SIAM, 2002, chapter 4.
.. [2] T. F. Chan, G. H. Golub and R. J. LeVeque, "Algorithms for computing the
       sample variance: analysis and recommendations", The American Statistician
       37(3), 1983.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skboot import bootstrap, metric_ci
from skboot.resamplers import (
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
)

LD = np.longdouble
B = 4
N1 = 100_000
N2 = 20_000
OFFSETS = [0.0, 1e6, 1e9, -1e9]

SCHEMES = {
    "iid": lambda n: Bootstrap(B, random_state=1),
    "m-out-of-n": lambda n: Bootstrap(B, sample_size=n // 3, random_state=1),
    "stratified": lambda n: StratifiedBootstrap(B, random_state=1),
    "group": lambda n: GroupBootstrap(B, random_state=1),
    "poisson": lambda n: PoissonBootstrap(B, random_state=1),
    "bayesian": lambda n: BayesianBootstrap(B, random_state=1),
    "moving": lambda n: MovingBlockBootstrap(B, block_length=10, random_state=1),
    "circular": lambda n: CircularBlockBootstrap(B, block_length=10, random_state=1),
    "stationary": lambda n: StationaryBootstrap(B, block_length=10, random_state=1),
    "non-overlapping": lambda n: NonOverlappingBlockBootstrap(
        B, block_length=10, random_state=1
    ),
    "tapered": lambda n: TaperedBlockBootstrap(B, block_length=10, random_state=1),
}
#: schemes whose replicates are continuous weights, not indices
WEIGHTED = ("bayesian", "tapered")
#: schemes whose replicates have a fixed number of rows
FIXED = ("iid", "m-out-of-n", "stratified", "moving", "circular", "stationary")


def _aux(n):
    """Strata and groups for the schemes that need them."""
    gen = np.random.default_rng(7)
    return gen.integers(0, 3, size=n), np.arange(n) // 10


def _data(offset, n, d=None, seed=0):
    """``offset + 1e-3 * N(0, 1)`` (``N(0, 1)`` at offset 0); 1-D when ``d`` is
    None, else (n, d) with column ``j`` at ``offset[j]``."""
    gen = np.random.default_rng(seed)
    if d is None:
        z = gen.normal(size=n)
        return offset + (1e-3 if offset else 1.0) * z
    offs = np.asarray(offset, dtype=np.float64)
    z = gen.normal(size=(n, d))
    return offs + np.where(offs != 0, 1e-3, 1.0) * z


def _run(x, stat, scheme, **kw):
    n = x.shape[0]
    y, groups = _aux(n)
    extra = {"y": y} if scheme == "stratified" else {}
    if scheme == "group":
        extra = {"groups": groups}
    res = bootstrap(x, stat, resampler=SCHEMES[scheme](n), **extra, **kw)
    return np.asarray(res.distribution).reshape(B, -1)


def _replicates(x, scheme):
    """(values, weights) of each replicate: the drawn rows and None, or all rows
    and the replicate's weights."""
    n = x.shape[0]
    y, groups = _aux(n)
    fitted = SCHEMES[scheme](n).fit(x, y, groups)
    for b in range(B):
        rep = fitted.replicate(b)
        if scheme in WEIGHTED:
            yield x, rep.weights
        else:
            yield x[rep.indices], None


def _exact_all(v, w):
    """Long-double sum, mean, var and std per column of ``v`` (weights ``w``),
    computed on ``v - v[0]`` (exact) and shifted back; as doubles."""
    v = np.asarray(v, LD).reshape(v.shape[0], -1)
    w = np.ones(v.shape[0], LD) if w is None else np.asarray(w, LD)
    c = v[0]
    d = v - c  # exact: two doubles within 2**11 of each other in long double
    sw = w.sum()
    s = (w[:, None] * d).sum(axis=0)
    mean = s / sw
    var = (w[:, None] * (d - mean) ** 2).sum(axis=0) / sw
    out = {"sum": s + sw * c, "mean": mean + c, "var": var, "std": np.sqrt(var)}
    return {k: val.astype(np.float64) for k, val in out.items()}


def _exact(stat, v, w):
    return _exact_all(v, w)[stat]


def _numpy(stat, v, w):
    """numpy per contiguous column (pairwise sums)."""
    cols = np.ascontiguousarray(np.asarray(v).reshape(v.shape[0], -1).T)
    if w is None:
        return np.array([getattr(np, stat)(col) for col in cols])
    if stat == "mean":
        return np.array([np.average(col, weights=w) for col in cols])
    return np.array([np.sum(w * col) for col in cols])


def _scale(x):
    return np.abs(np.asarray(x).reshape(x.shape[0], -1)).max(axis=0)


def _size(v, w):
    return float(v.shape[0]) if w is None else float(np.sum(w))


def _ulps(got, want, unit):
    return float(np.max(np.abs(np.asarray(got) - want) / unit))


# ---------------------------------------------------------------------------
# mean, sum, var, std: every scheme and offset
# ---------------------------------------------------------------------------
def _check_moments(x, scheme, stats):
    dist = {stat: _run(x, stat, scheme) for stat in stats}
    s = _scale(x)
    for b, (v, w) in enumerate(_replicates(x, scheme)):
        exact = _exact_all(v, w)
        for stat in stats:
            got = dist[stat][b]
            if stat in ("var", "std"):
                want = exact[stat]
                assert _ulps(got, want, np.spacing(want)) <= 2**12, (stat, b)
                continue
            unit = np.spacing(s if stat == "mean" else _size(v, w) * s)
            assert _ulps(got, exact[stat], unit) <= 3, (stat, b, "exact")
            assert _ulps(got, _numpy(stat, v, w), unit) <= 8, (stat, b, "numpy")


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_moments_agree_with_numpy_whatever_the_offset(scheme, offset):
    """mean and sum within 3 ulps of the data's scale of the exact value and 8 of
    numpy's; var and std within the (offset-independent) var bound."""
    _check_moments(_data(offset, N1), scheme, ("mean", "sum", "var", "std"))


#: columns at different offsets in one array: centring is per column
COLUMN_OFFSETS = [0.0, 1e6, 1e9, -1e9, -1e6, 3e8, 0.0, 1e9]


@pytest.mark.parametrize("d", [3, 8], ids=["scalar-kernel", "vector-kernel"])
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_column_moments_agree_with_numpy_per_column(scheme, d):
    stats = (
        ("mean", "sum", "var")
        if scheme in ("iid", "poisson", "moving")
        else ("mean", "sum")
    )
    _check_moments(_data(COLUMN_OFFSETS[:d], N2, d), scheme, stats)


# ---------------------------------------------------------------------------
# corr: already centred; the bound must not depend on the offset
# ---------------------------------------------------------------------------
def _exact_corr(v, w):
    v = np.asarray(v, LD)
    w = np.ones(v.shape[0], LD) if w is None else np.asarray(w, LD)
    d = v - v[0]
    d = d - (w[:, None] * d).sum(axis=0) / w.sum()
    sxy = (w * d[:, 0] * d[:, 1]).sum()
    sxx = (w * d[:, 0] ** 2).sum()
    syy = (w * d[:, 1] ** 2).sum()
    return float(sxy / np.sqrt(sxx * syy))


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_corr_precision_does_not_depend_on_the_offset(scheme, offset):
    gen = np.random.default_rng(3)
    z = gen.normal(size=(N2, 2))
    z[:, 1] += 0.6 * z[:, 0]  # r about 0.5
    xy = offset + (1e-3 if offset else 1.0) * z
    dist = _run(xy, "corr", scheme)
    for b, (v, w) in enumerate(_replicates(xy, scheme)):
        assert _ulps(dist[b], _exact_corr(v, w), np.spacing(1.0)) <= 2**12, b


# ---------------------------------------------------------------------------
# exact cases: proportion, integer data, order statistics
# ---------------------------------------------------------------------------
INDEX_SCHEMES = [s for s in SCHEMES if s not in WEIGHTED]


@pytest.mark.parametrize("scheme", INDEX_SCHEMES)
def test_proportion_and_integer_data_equal_numpy_bit_for_bit(scheme):
    gen = np.random.default_rng(5)
    p = (gen.random(N2) < 0.3).astype(float)
    counts = gen.integers(10**6, 10**6 + 50, size=N2).astype(float)
    prop = _run(p, "proportion", scheme)
    total = _run(counts, "sum", scheme)
    mean = _run(counts, "mean", scheme)
    reps = zip(_replicates(p, scheme), _replicates(counts, scheme), strict=True)
    for b, ((vp, _), (vc, _)) in enumerate(reps):
        assert prop[b, 0] == np.mean(vp), b
        assert total[b, 0] == np.sum(vc) == np.sum(vc.astype(np.int64)), b
        assert mean[b, 0] == np.mean(vc), b


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("scheme", INDEX_SCHEMES)
def test_median_and_quantiles_equal_numpy_bit_for_bit(scheme, offset):
    x = _data(offset, N2)
    q = [0.1, 0.5, 0.975]
    med = _run(x, "median", scheme)
    qs = _run(x, "quantile", scheme, statistic_kwargs={"q": q})
    for b, (v, _) in enumerate(_replicates(x, scheme)):
        assert med[b, 0] == np.median(v), b
        np.testing.assert_array_equal(qs[b], np.quantile(v, q))


# ---------------------------------------------------------------------------
# shift equivariance
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("C", [1e6, 1e9, -1e9])
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_mean_is_shift_equivariant(scheme, C):
    x = C + _data(0.0, N1) * 1e-3
    np.testing.assert_array_equal((x - C) + C, x)  # the shift itself is exact
    moved = _run(x - C, "mean", scheme) + C
    assert _ulps(moved, _run(x, "mean", scheme), np.spacing(abs(C))) <= 4


@pytest.mark.parametrize("C", [1e6, -1e9])
@pytest.mark.parametrize("scheme", FIXED)
def test_sum_is_shift_equivariant_and_var_shift_invariant(scheme, C):
    x = C + _data(0.0, N1) * 1e-3
    sizes = [float(v.shape[0]) for v, _ in _replicates(x, scheme)]
    m = np.array(sizes)[:, None]
    moved = _run(x - C, "sum", scheme) + m * C
    assert _ulps(moved, _run(x, "sum", scheme), np.spacing(m * abs(C))) <= 4
    var0 = _run(x - C, "var", scheme)
    assert _ulps(_run(x, "var", scheme), var0, np.spacing(var0)) <= 2**12


# ---------------------------------------------------------------------------
# mean-type metrics (fused metric kernels)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["iid", "poisson", "stratified"])
def test_mean_type_metric_precision_with_an_offset(scheme):
    """Squared errors around 1e8 (a biased model): the fused mean squared error
    of each replicate within 3 ulps of its long-double value (same argument as
    the mean)."""
    gen = np.random.default_rng(11)
    y = gen.integers(0, 2, size=N2)
    pred = y + 1e4 + 1e-3 * gen.normal(size=N2)
    sq = (y - pred) ** 2
    n = N2
    res = metric_ci(
        y, pred, "mean_squared_error", resampler=SCHEMES[scheme](n),
        stratify=False, method="percentile",
    )  # fmt: skip
    dist = np.asarray(res.result.distribution)
    fitted = SCHEMES[scheme](n).fit(sq, y)
    unit = np.spacing(sq.max())
    for b in range(B):
        v = sq[fitted.replicate(b).indices]
        assert _ulps(dist[b], _exact("mean", v, None), unit) <= 3, b


def test_r2_precision_with_an_offset():
    """R^2 of targets around 1e9: the weighted kernel centres y_true, so its
    denominator does not pick up the rounding error of a mean near 1e9."""
    gen = np.random.default_rng(12)
    y = 1e9 + gen.normal(size=N2)
    pred = y + 0.5 * gen.normal(size=N2)
    res = metric_ci(
        y, pred, "r2", resampler=PoissonBootstrap(B, random_state=1),
        method="percentile",
    )  # fmt: skip
    dist = np.asarray(res.result.distribution)
    fitted = PoissonBootstrap(B, random_state=1).fit(y)
    for b in range(B):
        idx = fitted.replicate(b).indices
        yt, yp = np.asarray(y[idx], LD), np.asarray(pred[idx], LD)
        d = yt - yt[0]
        den = ((d - d.mean()) ** 2).sum()
        want = float(1 - ((yt - yp) ** 2).sum() / den)
        assert abs(dist[b] - want) <= 2**12 * np.spacing(1.0), b


# ---------------------------------------------------------------------------
# degenerate replicates: NaN, counted, one named warning, no numpy warning
# ---------------------------------------------------------------------------
def _only_undefined_warning(func):
    """Run ``func``; assert exactly one warning, an UndefinedStatisticWarning."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = func()
    kinds = [type(w.message).__name__ for w in rec]
    assert kinds == ["UndefinedStatisticWarning"], kinds
    return out


X3 = np.array([0.1, 0.7, 0.35])


@pytest.mark.parametrize(
    ("stat", "kwargs", "undefined_if"),
    [
        ("mean", {}, lambda c: c.sum() == 0),
        ("std", {}, lambda c: c.sum() == 0),
        ("var", {"ddof": 1}, lambda c: c.sum() <= 1),
        ("median", {}, lambda c: c.sum() == 0),
        ("quantile", {"q": 0.3}, lambda c: c.sum() == 0),
    ],
)
def test_empty_poisson_replicates_are_undefined(stat, kwargs, undefined_if):
    """PoissonBootstrap on n = 3: a replicate whose counts are all 0 (or sum to at
    most ``ddof``) has no value; it is NaN and counted, as the policy says."""
    res = _only_undefined_warning(
        lambda: bootstrap(
            X3,
            stat,
            resampler=PoissonBootstrap(200, random_state=0),
            statistic_kwargs=kwargs,
        )
    )
    fitted = PoissonBootstrap(200, random_state=0).fit(X3)
    want = np.array([undefined_if(fitted.replicate(b).counts) for b in range(200)])
    assert want.any() and not want.all()
    np.testing.assert_array_equal(np.isnan(res.distribution), want)
    assert res.n_undefined == want.sum()


def test_empty_poisson_replicate_has_sum_zero():
    res = bootstrap(X3, "sum", resampler=PoissonBootstrap(200, random_state=0))
    fitted = PoissonBootstrap(200, random_state=0).fit(X3)
    for b in range(200):
        counts = fitted.replicate(b).counts
        assert res.distribution[b] == pytest.approx(counts @ X3, abs=1e-15)
    assert res.n_undefined == 0


@pytest.mark.parametrize(
    "resampler",
    [Bootstrap(300, random_state=0), PoissonBootstrap(300, random_state=0)],
    ids=["iid", "poisson"],
)
def test_corr_of_a_constant_replicate_is_undefined(resampler):
    """A replicate whose x (or y) values are all equal has no correlation, even
    when its centred sums do not cancel to 0 in floating point."""
    xy = np.array([[0.1, 1.0], [0.7, 0.2], [0.35, 0.3]]) + 1e6
    res = _only_undefined_warning(lambda: bootstrap(xy, "corr", resampler=resampler))
    fitted = type(resampler)(300, random_state=0).fit(xy)
    n_const = 0
    for b in range(300):
        v = xy[fitted.replicate(b).indices]
        if v.shape[0] == 0 or np.ptp(v[:, 0]) == 0 or np.ptp(v[:, 1]) == 0:
            assert np.isnan(res.distribution[b]), b
            n_const += 1
        else:
            want = _exact_corr(v, None)
            assert abs(res.distribution[b] - want) <= 1e-9, b
    assert 0 < n_const == res.n_undefined


@pytest.mark.parametrize("metric", ["mean_squared_error", "accuracy", "r2"])
def test_metric_with_all_zero_weights_follows_the_undefined_policy(metric):
    y = np.array([1.0, 2.0, 4.0]) if metric == "r2" else np.array([0, 1, 1])
    pred = np.array([1.5, 2.5, 3.0]) if metric == "r2" else np.array([0, 1, 0])
    kw = dict(resampler=PoissonBootstrap(200, random_state=0), method="percentile")
    with pytest.raises(ValueError, match="undefined"):
        metric_ci(y, pred, metric, **kw)
    res = _only_undefined_warning(
        lambda: metric_ci(y, pred, metric, undefined="omit", **kw)
    )
    assert res.n_undefined > 0
    assert np.isfinite(res.result.distribution).all()


def test_centre_is_the_column_mean_rounded_for_integer_columns():
    """The documented shift: ``X.mean(axis=0)`` (over the finite values), rounded
    (half to even) for integer-valued columns, 0 when that mean is not finite."""
    from skboot._engine import centre_of

    gen = np.random.default_rng(13)
    X = np.column_stack(
        [
            1e9 + gen.normal(size=300),  # real: the mean itself
            gen.integers(0, 5, size=300).astype(float),  # integers: rounded
            np.r_[np.arange(299.0), np.inf],  # integers and inf
            np.r_[0.25, 0.5, np.full(298, np.nan)],  # NaN left out
            np.full(300, 1e308),  # the mean overflows: 0
        ]
    )
    c = centre_of(X)
    with np.errstate(over="ignore"):
        assert c[0] == X.mean(axis=0)[0]
    assert c[1] == np.round(np.mean(X[:, 1])) != np.mean(X[:, 1])
    assert c[2] == np.round(np.mean(np.arange(299.0))) == 149.0
    assert c[3] == 0.375
    assert c[4] == 0.0
    assert centre_of(np.array([[0.5], [1.5]]))[0] == 1.0  # real data: not rounded
    assert centre_of(np.array([[1.0], [2.0]]))[0] == 2.0  # 1.5, half to even


# ---------------------------------------------------------------------------
# as precise as numpy on the same replicate (pairwise sums, offset 0)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_var_is_as_precise_as_numpy_on_the_same_replicate(scheme):
    """var at offset 0 (no centring benefit) within 3 ulps of the value beyond
    numpy's own error on the same replicate (``np.var`` of the rows, or the
    weighted two-pass form).  Before the cascade, sums of squares added in
    sequence (and block sums from plain prefix sums) were 44-153 ulps off while
    numpy was within 1."""
    x = _data(0.0, N1)
    got = _run(x, "var", scheme)
    for b, (v, w) in enumerate(_replicates(x, scheme)):
        want = _exact_all(v, w)["var"]
        if w is None:
            ref = np.var(v)
        else:
            m = np.average(v, weights=w)
            ref = np.average((v - m) ** 2, weights=w)
        unit = np.spacing(want)
        assert _ulps(got[b], want, unit) <= _ulps(ref, want, unit) + 3, (scheme, b)


def _pairwise_tiles(parts):
    """Reference of the cascade: the tiles' sums combined as a binary counter
    does (each completed pair of equal-sized groups added, earlier on the left),
    the leftover groups added from the smallest up."""
    levels = {}
    for count, p in enumerate(parts):
        p = np.array(p, dtype=np.float64)
        j = 0
        while count >> j & 1:
            p = levels.pop(j) + p
            j += 1
        levels[j] = p
    total = None
    for j in sorted(levels):
        total = levels[j] if total is None else levels[j] + total
    return np.zeros_like(np.asarray(parts[0], float)) if total is None else total


@pytest.mark.parametrize("n_tiles", [1, 2, 3, 7, 8, 13, 64, 100])
def test_cascade_adds_tiles_pairwise(n_tiles):
    from numba import njit

    from skboot._kernels.cascade import CASCADE_LEVELS, cascade_push, cascade_total

    @njit
    def run(parts):
        stack = np.zeros((CASCADE_LEVELS, parts.shape[1]))
        count = 0
        part = np.empty(parts.shape[1])
        for t in range(parts.shape[0]):
            part[:] = parts[t]
            count = cascade_push(stack, count, part)
        out = np.empty(parts.shape[1])
        cascade_total(stack, count, out)
        return out, count

    parts = np.random.default_rng(n_tiles).normal(size=(n_tiles, 3)) * 1e3
    got, count = run(parts)
    assert count == n_tiles
    np.testing.assert_array_equal(got, _pairwise_tiles(list(parts)))


def test_cascade_of_many_terms_is_as_precise_as_numpy():
    from skboot._kernels.weighted import weighted_moments

    gen = np.random.default_rng(3)
    x = gen.normal(size=(100_000, 1))
    w = gen.integers(0, 4, size=(1, 100_000)).astype(np.float64)
    s1, s2, sw = np.empty((1, 1)), np.empty((1, 1)), np.empty(1)
    weighted_moments(x, w, np.bool_(True), s1, s2, sw)
    terms = w[0] * x[:, 0] * x[:, 0]
    exact = float(np.sum(terms.astype(LD)))
    unit = np.spacing(exact)
    assert _ulps(s2[0, 0], exact, unit) <= _ulps(np.sum(terms), exact, unit) + 1


@pytest.mark.parametrize("d", [3, 8, 24])
def test_column_var_is_as_precise_as_numpy_on_the_same_replicate(d):
    """iid var of 2-D data (tiles of 1024 draws in eight accumulators per column,
    tiles pairwise; at this size the column-blocked kernel, which equals the
    scalar and eight-lane kernels bit for bit, tests/test_wide.py and
    test_statistic.py): within 3 ulps beyond numpy's own error per column (20-36
    ulps off when the draws were added in sequence)."""
    X = np.random.default_rng(1).normal(size=(N1, d))
    got = np.asarray(
        bootstrap(X, "var", resampler=Bootstrap(B, random_state=1)).distribution
    )
    fitted = Bootstrap(B, random_state=1).fit(X)
    for b in range(B):
        v = X[fitted.replicate(b).indices]
        want = _exact_all(v, None)["var"]
        ref = np.array([np.var(np.ascontiguousarray(v[:, j])) for j in range(d)])
        unit = np.spacing(want)
        assert _ulps(got[b], want, unit) <= _ulps(ref, want, unit) + 3, (d, b)
