"""Residual, sieve and wild bootstraps (skboot.model_based): streams, the slow
references they must equal, the engine integration, errors and peers."""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats
from scipy.linalg import solve_toeplitz
from sklearn.base import clone

from skboot import (
    Bootstrap,
    BootstrapStatistic,
    MovingBlockBootstrap,
    ResidualBootstrap,
    SieveBootstrap,
    WildBootstrap,
    bootstrap,
)
from skboot._kernels.model_based import MAMMEN_HI, MAMMEN_LO, MAMMEN_P, WEBB
from skboot._random import PURPOSE, check_random_state, reference_uniforms
from skboot.model_based._ar import fit_ar, largest_root_modulus, select_order

SEED = 20240611


def ar_series(n: int, phi: tuple[float, ...], seed: int = 0, c: float = 0.5):
    rng = np.random.default_rng(seed)
    p = len(phi)
    x = np.zeros(n + 200)
    e = rng.normal(size=n + 200)
    for t in range(p, n + 200):
        x[t] = c + sum(phi[j] * x[t - 1 - j] for j in range(p)) + e[t]
    return x[200:]


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return ar_series(120, (0.6, -0.2), seed=1)


# ---------------------------------------------------------------------------
# slow references
# ---------------------------------------------------------------------------
def reference_residual_sample(rb: ResidualBootstrap, x: np.ndarray, b: int):
    """The residual-bootstrap replicate ``b`` recomputed in Python from the
    documented definition: residual indices from the Bootstrap /
    MovingBlockBootstrap streams, start from the "model" stream, the recursion
    summed in the documented order."""
    p = rb.order_
    n = x.shape[0]
    resid = rb.residuals_
    m = resid.shape[0]
    n_e = rb.burn_in_ + n - p
    if rb.block_length is None:
        key = check_random_state(rb.random_state)
        from skboot._random import reference_indices

        idx = reference_indices(key, PURPOSE["indices"], b, m, n_e)
    else:
        L = rb.block_length
        key = check_random_state(rb.random_state)
        seed, gamma = key.stream(PURPOSE["block_starts"])
        starts = np.empty(-(-n_e // L), dtype=np.int64)
        from skboot._random import fill_indices_kernel

        fill_indices_kernel(seed, gamma, np.uint64(b), np.uint64(m - L + 1), starts)
        idx = (starts[:, None] + np.arange(L)).reshape(-1)[:n_e]
    s = 0
    if rb.burn_in_ > 0:
        key = check_random_state(rb.random_state)
        from skboot._random import reference_indices

        s = int(reference_indices(key, PURPOSE["model"], b, n - p + 1, 1)[0])
    path = np.empty(rb.burn_in_ + n)
    path[:p] = x[s : s + p]
    for t in range(p, rb.burn_in_ + n):
        acc = rb.intercept_ + resid[idx[t - p]]
        for j in range(p - 1, -1, -1):  # phi_p first, phi_1 last
            acc += rb.ar_coef_[j] * path[t - 1 - j]
        path[t] = acc
    return path[rb.burn_in_ :], idx


@pytest.mark.parametrize(
    "params",
    [
        {"order": 2},
        {"order": 2, "burn_in": 0},
        {"order": "bic", "block_length": 5},
        {"order": 0, "burn_in": 7},
        {"order": 3, "fit_method": "yule_walker", "block_length": 1, "burn_in": 0},
    ],
)
def test_residual_replicate_equals_reference(x, params):
    rb = ResidualBootstrap(50, random_state=SEED, **params).fit(x)
    for b in (0, 1, 37):
        ref, idx = reference_residual_sample(rb, x, b)
        rep = rb.replicate(b)
        np.testing.assert_array_equal(rep.residual_indices, idx)
        np.testing.assert_array_equal(rep.sample, ref)
        np.testing.assert_array_equal(rb.sample(b), ref)


def test_residual_indices_are_the_bootstrap_streams(x):
    """Documented: iid residual indices of replicate b equal Bootstrap's replicate b
    over the residuals (same seed); with blocks and no burn-in they equal
    MovingBlockBootstrap's."""
    for burn_in in (0, 25):
        rb = ResidualBootstrap(20, order=1, burn_in=burn_in, random_state=SEED)
        rb.fit(x)
        boot = Bootstrap(20, random_state=SEED).fit(rb.residuals_)
        for b in range(5):
            idx = rb.replicate(b).residual_indices
            assert idx.shape == (burn_in + 119,)
            np.testing.assert_array_equal(idx[:119], boot.replicate(b).indices)
    rb = ResidualBootstrap(
        20, order=1, burn_in=0, block_length=6, random_state=SEED
    ).fit(x)
    mbb = MovingBlockBootstrap(20, block_length=6, random_state=SEED).fit(rb.residuals_)
    for b in range(5):
        np.testing.assert_array_equal(
            rb.replicate(b).residual_indices, mbb.replicate(b).indices
        )


def test_order_zero_is_the_iid_bootstrap(x):
    """AR(0) residuals are x - mean, so with burn_in=0 the replicate is
    mean + (x - mean)[idx]: Bootstrap's replicate up to rounding."""
    rb = ResidualBootstrap(30, order=0, burn_in=0, random_state=SEED).fit(x)
    boot = Bootstrap(30, random_state=SEED).fit(x)
    for b in range(3):
        np.testing.assert_allclose(
            rb.sample(b), x[boot.replicate(b).indices], rtol=0, atol=1e-13
        )


def test_ar_fits_against_references():
    x = ar_series(400, (0.5, 0.3), seed=3)
    ols = fit_ar(x, 2, "ols")
    D = np.column_stack([np.ones(398), x[1:-1], x[:-2]])
    beta = np.linalg.lstsq(D, x[2:], rcond=None)[0]
    np.testing.assert_allclose(ols.coef, beta[1:], rtol=1e-10)
    assert ols.intercept == pytest.approx(beta[0], rel=1e-10)
    np.testing.assert_allclose(ols.residuals, x[2:] - D @ beta, atol=1e-10)
    yw = fit_ar(x, 3, "yule_walker")
    xc = x - x.mean()
    gam = np.array([xc[: 400 - h] @ xc[h:] / 400 for h in range(4)])
    np.testing.assert_allclose(yw.coef, solve_toeplitz(gam[:3], gam[1:]), rtol=1e-10)
    assert yw.intercept == pytest.approx(x.mean() * (1 - yw.coef.sum()))
    # BIC picks the true order of a long AR(2); AIC never picks fewer lags
    big = ar_series(3000, (0.5, 0.3), seed=4)
    assert select_order(big, 10, "bic", "ols", "t")[0] == 2
    assert select_order(big, 10, "bic", "yule_walker", "t")[0] == 2
    assert largest_root_modulus(np.array([0.5, 0.3])) < 1
    assert largest_root_modulus(np.array([1.0])) == pytest.approx(1.0)


def test_sieve_is_yule_walker_residual_bootstrap():
    e = np.random.default_rng(2).normal(size=301)
    x = e[1:] + 0.8 * e[:-1]  # MA(1): an AR(infinity) the sieve approximates
    sb = SieveBootstrap(40, random_state=SEED).fit(x)
    assert sb.order_ >= 2
    assert sb.criterion_values_.shape == (min(24, 149) + 1,)
    rb = ResidualBootstrap(
        40, order=sb.order_, fit_method="yule_walker", random_state=SEED
    ).fit(x)
    np.testing.assert_array_equal(sb.sample(7), rb.sample(7))
    # a longer series allows (and AIC takes) a larger order
    e = np.random.default_rng(5).normal(size=5001)
    long = e[1:] + 0.8 * e[:-1]
    assert SieveBootstrap(10, random_state=0).fit(long).order_ > sb.order_


# ---------------------------------------------------------------------------
# wild multipliers
# ---------------------------------------------------------------------------
def reference_multipliers(seed, kind: str, b: int, m: int) -> np.ndarray:
    """Multipliers of replicate b from the documented stream definition."""
    key = check_random_state(seed)
    if kind == "mammen":
        u = reference_uniforms(key, PURPOSE["wild"], b, m)
        return np.where(u < MAMMEN_P, MAMMEN_LO, MAMMEN_HI)
    from skboot._random import reference_indices

    k = 2 if kind == "rademacher" else 6
    i = reference_indices(key, PURPOSE["wild"], b, k, m)
    return 1.0 - 2.0 * i if kind == "rademacher" else WEBB[i]


@pytest.mark.parametrize("weights", ["rademacher", "mammen", "webb"])
def test_wild_regression_replicates(weights, rng):
    X = rng.normal(size=(80, 2))
    y = X @ [1.0, 2.0] + rng.normal(size=80)
    wb = WildBootstrap(40, weights=weights, random_state=SEED).fit(X, y)
    D = np.column_stack([X, np.ones(80)])
    beta = np.linalg.lstsq(D, y, rcond=None)[0]
    np.testing.assert_allclose(wb.coef_, beta, rtol=1e-10)
    for b in (0, 3):
        v = reference_multipliers(SEED, weights, b, 80)
        np.testing.assert_array_equal(wb.replicate(b).multipliers, v)
        np.testing.assert_array_equal(wb.sample(b), wb.fitted_ + wb.residuals_ * v)
    # block-wild: one multiplier per block of 7 rows; cluster: one per cluster
    wb = WildBootstrap(5, weights=weights, block_length=7, random_state=SEED)
    wb.fit(X, y)
    v = reference_multipliers(SEED, weights, 2, 12)
    assert wb.n_multipliers_ == 12
    np.testing.assert_array_equal(
        wb.sample(2), wb.fitted_ + wb.residuals_ * v[np.arange(80) // 7]
    )
    groups = rng.integers(0, 9, size=80) * 10
    wb = WildBootstrap(5, weights=weights, random_state=SEED).fit(X, y, groups)
    codes = np.unique(groups, return_inverse=True)[1]
    v = reference_multipliers(SEED, weights, 4, codes.max() + 1)
    np.testing.assert_array_equal(wb.sample(4), wb.fitted_ + wb.residuals_ * v[codes])


def test_wild_multiplier_laws():
    """Frequencies of the support points against their probabilities (chi-square,
    false-failure probability 1e-6 per law)."""
    m = 30_000
    for kind, support, probs in [
        ("rademacher", [-1.0, 1.0], [0.5, 0.5]),
        ("mammen", [MAMMEN_LO, MAMMEN_HI], [MAMMEN_P, 1 - MAMMEN_P]),
        ("webb", list(WEBB), [1 / 6] * 6),
    ]:
        X = np.arange(m, dtype=float)
        v = WildBootstrap(1, weights=kind, random_state=SEED).fit(X, X).replicate(0)
        vals = v.multipliers
        counts = np.array([(vals == s).sum() for s in support])
        assert counts.sum() == m
        p = stats.chisquare(counts, np.array(probs) * m).pvalue
        assert p > 1e-6, (kind, counts)
        w = np.array(probs)
        assert w @ np.array(support) == pytest.approx(0.0, abs=1e-15)
        assert w @ np.array(support) ** 2 == pytest.approx(1.0, rel=1e-14)


def test_wild_time_series_replicate(x):
    wb = WildBootstrap(20, order=2, block_length=3, weights="webb", random_state=SEED)
    wb.fit(x)
    v = reference_multipliers(SEED, "webb", 5, -(-118 // 3))
    path = x.copy()
    for t in range(2, 120):
        acc = wb.intercept_ + wb.residuals_[t - 2] * v[(t - 2) // 3]
        acc += wb.ar_coef_[1] * path[t - 2]
        acc += wb.ar_coef_[0] * path[t - 1]
        path[t] = acc
    np.testing.assert_array_equal(wb.sample(5), path)
    assert wb.replicate(5).start == 0 and wb.replicate(5).residual_indices is None


# ---------------------------------------------------------------------------
# the engine: statistics, chunking, n_jobs, backends, intervals
# ---------------------------------------------------------------------------
def _lag1(a, axis=-1):
    a = np.moveaxis(np.asarray(a), axis, -1)
    c = a - a.mean(axis=-1, keepdims=True)
    return (c[..., 1:] * c[..., :-1]).sum(-1) / (c * c).sum(-1)


RESAMPLERS = [
    ResidualBootstrap(60, order=1),
    ResidualBootstrap(60, order="aic", block_length=4, burn_in=30),
    SieveBootstrap(60),
    WildBootstrap(60, order=1, weights="mammen"),
]


@pytest.mark.parametrize("resampler", RESAMPLERS, ids=lambda r: repr(r))
def test_statistic_tiers_agree_and_chunking_is_invisible(x, resampler):
    base = bootstrap(x, "mean", resampler=resampler, random_state=SEED)
    fit = clone(resampler).set_params(random_state=SEED).fit(x)
    samples = np.concatenate(list(fit.iter_samples(chunk_size=7)))
    assert samples.shape == (60, 120)
    np.testing.assert_array_equal(base.distribution, samples.mean(axis=1))
    for stat, vec in [(np.mean, None), (lambda a: float(np.mean(a)), False)]:
        other = bootstrap(
            x, stat, resampler=resampler, random_state=SEED, vectorized=vec
        )
        np.testing.assert_array_equal(other.distribution, base.distribution)
    for chunk in (1, 7, 60):
        again = bootstrap(
            x, _lag1, resampler=resampler, random_state=SEED, chunk_size=chunk
        )
        np.testing.assert_array_equal(again.distribution, _lag1(samples))


@pytest.mark.parametrize(
    "backend",
    [
        # loky starts worker processes that import skboot (~10-25 s here)
        pytest.param("loky", marks=pytest.mark.slow),
        "threading",
    ],
)
def test_n_jobs_and_backends_bit_identical(x, backend):
    rs = ResidualBootstrap(80, order=2, block_length=3)
    serial = bootstrap(x, "median", resampler=rs, random_state=SEED)
    with parallel_config(backend=backend):
        par = bootstrap(x, "median", resampler=rs, random_state=SEED, n_jobs=2)
    np.testing.assert_array_equal(serial.distribution, par.distribution)
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = X[:, 0] + np.random.default_rng(1).normal(size=60)

    def slope(X, y):
        return np.linalg.lstsq(np.column_stack([X, np.ones(60)]), y, rcond=None)[0]

    wb = WildBootstrap(50, block_length=4)
    serial = bootstrap(X, slope, y=y, resampler=wb, random_state=SEED)
    with parallel_config(backend=backend):
        par = bootstrap(X, slope, y=y, resampler=wb, random_state=SEED, n_jobs=2)
    np.testing.assert_array_equal(serial.distribution, par.distribution)
    assert serial.distribution.shape == (50, 3)


def test_regression_statistic_views_and_estimator_api(rng):
    X = rng.normal(size=(50, 3))
    y = X @ [1.0, 0.0, -1.0] + rng.normal(size=50)

    def vec(X, y, axis=-1):  # X (nb, 3, n), y (nb, n)
        return (X[..., 0, :] * y).sum(axis=-1)

    def plain(X, y):
        return float(X[:, 0] @ y)

    wb = WildBootstrap(30, weights="webb")
    a = bootstrap(X, vec, y=y, resampler=wb, random_state=SEED)
    b = bootstrap(X, plain, y=y, resampler=wb, random_state=SEED)
    np.testing.assert_allclose(a.distribution, b.distribution, rtol=1e-12)
    est = BootstrapStatistic(plain, resampler=wb, random_state=SEED).fit(X, y)
    np.testing.assert_array_equal(est.distribution_, b.distribution)
    assert est.estimate_ == pytest.approx(X[:, 0] @ y)


def test_intervals_for_model_based_replicates(x):
    res = bootstrap(
        x, "mean", resampler=ResidualBootstrap(200, order=1), random_state=1
    )
    for method in ("percentile", "basic", "normal", "bc"):
        low, high = res.confidence_interval(method=method)
        assert low < res.estimate < high
    with pytest.raises(ValueError, match="'bca' interval needs the acceleration"):
        res.confidence_interval(method="bca")
    with pytest.raises(ValueError, match="'bca' interval needs the acceleration"):
        res.confidence_interval(method="bca", jackknife_groups=4)
    with pytest.raises(ValueError, match="standard_error=callable"):
        res.confidence_interval(method="studentized")
    with pytest.raises(ValueError, match="fixed-size index resampler"):
        res.confidence_interval(method="studentized", n_inner=5)

    def se(a):  # AR(1)-aware standard error of the mean of a replicate
        r = _lag1(a)
        return a.std(ddof=1) / np.sqrt(a.shape[0]) * np.sqrt((1 + r) / (1 - r))

    low, high = res.confidence_interval(method="studentized", standard_error=se)
    assert low < res.estimate < high


def test_ar1_mean_standard_error_matches_theory():
    """AR(1), phi = 0.6, sigma = 1: sd of the mean is about
    sigma / (1 - phi) / sqrt(n); the residual bootstrap standard error of one
    long series estimates it (tolerance 15%: the fit's own error at n = 2000 is
    about 5%, the bootstrap's Monte Carlo error with B = 400 about 3.5%)."""
    x = ar_series(2000, (0.6,), seed=11, c=0.0)
    res = bootstrap(
        x, "mean", resampler=ResidualBootstrap(400, order=1), random_state=0
    )
    n, phi = 2000, 0.6
    gam0 = 1 / (1 - phi**2)
    h = np.arange(1, n)
    exact = np.sqrt(gam0 / n * (1 + 2 * np.sum((1 - h / n) * phi**h)))
    assert res.standard_error == pytest.approx(exact, rel=0.15)


# ---------------------------------------------------------------------------
# bad inputs: clear errors before any work
# ---------------------------------------------------------------------------
def _explosive(n=200):
    x = np.zeros(n)
    e = np.random.default_rng(0).normal(size=n)
    for t in range(1, n):
        x[t] = 1.02 * x[t - 1] + e[t]
    return x


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda x: ResidualBootstrap(order=-1).fit(x), "'order' parameter of Resid"),
        (lambda x: ResidualBootstrap(order="fpe").fit(x), "an int >= 0 or one of"),
        (lambda x: ResidualBootstrap(order=60).fit(x), "at most \\(n - 2\\) // 2 = 59"),
        (lambda x: ResidualBootstrap(order=120).fit(x), "'order' parameter"),
        (lambda x: ResidualBootstrap(max_order=70).fit(x), "'max_order' parameter"),
        (
            lambda x: ResidualBootstrap(fit_method="mle").fit(x),
            "'fit_method' parameter",
        ),
        (lambda x: ResidualBootstrap(burn_in=-1).fit(x), "'burn_in' parameter"),
        (lambda x: ResidualBootstrap(block_length=0).fit(x), "'block_length'"),
        (lambda x: ResidualBootstrap(order=1, block_length=500).fit(x), "at most the"),
        (lambda x: ResidualBootstrap(order=1).fit(_explosive()), "non-stationary"),
        (lambda x: ResidualBootstrap().fit(np.ones(50)), "must not be constant"),
        (lambda x: ResidualBootstrap().fit(np.c_[x, x]), "must be a 1-D series"),
        (lambda x: ResidualBootstrap().fit(np.r_[x, np.nan]), "finite values"),
        (lambda x: ResidualBootstrap(order=1).split(x), "no \\(train, test\\)"),
        (lambda x: ResidualBootstrap().sample(0), "not fitted yet"),
        (lambda x: ResidualBootstrap(5).fit(x).replicate(5), "'b' parameter"),
        (lambda x: SieveBootstrap(order="fpe").fit(x), "'order' parameter"),
        (lambda x: WildBootstrap(weights="gamma").fit(x), "'weights' parameter"),
        (lambda x: WildBootstrap(fit_intercept=1).fit(x, x), "'fit_intercept'"),
        (lambda x: WildBootstrap().fit(x, groups=x > 0), "'groups' parameter of"),
        (lambda x: WildBootstrap().fit(x, x, np.zeros(120)), "at least 2 clusters"),
        (
            lambda x: WildBootstrap(block_length=3).fit(x, x, x > 0),
            "must be None when groups",
        ),
        (lambda x: WildBootstrap().fit(np.c_[x, 2 * x], x), "singular design"),
        (lambda x: WildBootstrap().fit(x, np.r_[x[:-1], np.inf]), "'y' parameter"),
        (
            lambda x: bootstrap(x, "corr", resampler=ResidualBootstrap(order=1)),
            "one of \\{'mean'",
        ),
        (
            lambda x: bootstrap(x, "mean", y=x, resampler=WildBootstrap()),
            "callable statistic\\(X, y\\)",
        ),
        (
            lambda x: bootstrap((x, x), np.mean, resampler=ResidualBootstrap()),
            "must be one array",
        ),
        (
            lambda x: bootstrap(
                x, "var", resampler=ResidualBootstrap(), statistic_kwargs={"q": 1}
            ),
            "accepts \\['ddof'\\]",
        ),
        (
            lambda x: bootstrap(
                x, "quantile", resampler=ResidualBootstrap(), statistic_kwargs={}
            ),
            "'q' statistic keyword",
        ),
    ],
)
def test_bad_inputs(x, make, match):
    with pytest.raises(ValueError, match=match):
        make(x)


def test_statistic_errors_name_the_replicate(x):
    from skboot import StatisticError

    def fragile(a):
        if a[5] > 1.0:
            raise ZeroDivisionError("boom")
        return a.mean()

    rs = ResidualBootstrap(40, order=1, random_state=SEED)
    with pytest.raises(StatisticError, match="replicate") as info:
        bootstrap(x, fragile, resampler=rs)
    b = info.value.replicate
    assert rs.fit(x).sample(b)[5] > 1.0


def test_estimator_refits_are_refused_clearly(x):
    from sklearn.linear_model import LinearRegression

    X = np.c_[x]
    est = BootstrapStatistic(
        lambda m: m.coef_, estimator=LinearRegression(), resampler=WildBootstrap(10)
    )
    with pytest.raises(ValueError, match="no row indices, counts or weights"):
        est.fit(X, x)


def test_sklearn_parameters_and_clone():
    for r in (
        ResidualBootstrap(5, order=2),
        SieveBootstrap(5, order="bic"),
        WildBootstrap(5, weights="webb"),
    ):
        c = clone(r)
        assert c.get_params() == r.get_params()
        assert repr(c) == repr(r)
    assert SieveBootstrap(order="bic").get_params()["order"] == "bic"
    # the sieve's AR fit is always Yule-Walker: not a parameter
    assert "fit_method" not in SieveBootstrap().get_params()
    assert not hasattr(SieveBootstrap(), "criterion")
    assert not hasattr(SieveBootstrap(), "method")
    assert ResidualBootstrap(fit_method="yule_walker").get_params()["fit_method"] == (
        "yule_walker"
    )
    assert "method" not in WildBootstrap().get_params()


# ---------------------------------------------------------------------------
# tsbootstrap: the same model-based distributions (KS tests)
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "statistic"),
    [
        ("residual_fixed", "mean"),
        ("residual_fixed", "lag1"),
        ("residual_burn", "mean"),
        ("residual_burn", "lag1"),
        ("sieve", "mean"),
        ("sieve", "lag1"),
        ("wild", "mean"),
        ("wild", "lag1"),
    ],
)
def test_distributions_match_tsbootstrap(case, statistic):
    """Two-sample KS test between skboot's and tsbootstrap's bootstrap
    distributions of the mean and the lag-1 autocorrelation, same series, same
    model, B = 2000 each.  Both are draws from the same conditional law, so the
    test rejects with probability 1e-3 (the false-failure rate of each case)."""
    tsb = pytest.importorskip("tsbootstrap")
    from tsbootstrap.methods import AR, IID, SieveAR, Wild
    from tsbootstrap.methods import ResidualBootstrap as TR

    x = ar_series(300, (0.5,), seed=21)
    B = 2000
    if case == "residual_fixed":
        sk = ResidualBootstrap(B, order=1, burn_in=0)
        spec = TR(model=AR(order=1), innovation=IID())
    elif case == "residual_burn":
        sk = ResidualBootstrap(B, order=1, burn_in=100)
        spec = TR(model=AR(order=1, burn_in=100, initial="random_block"))
    elif case == "sieve":  # tsbootstrap fits the sieve by OLS, skboot by Yule-Walker
        sk = SieveBootstrap(B, order="bic", burn_in=0)
        spec = SieveAR(criterion="bic")
    else:
        sk = WildBootstrap(B, order=1)
        spec = TR(model=AR(order=1), innovation=Wild(distribution="rademacher"))
    fn = np.mean if statistic == "mean" else _lag1
    mine = bootstrap(x, fn, resampler=sk, random_state=3).distribution
    theirs = tsb.bootstrap(x, method=spec, n_bootstraps=B, random_state=4).values()
    vals = fn(np.asarray(theirs).reshape(B, -1), axis=-1)
    p = stats.ks_2samp(mine, vals).pvalue
    assert p > 1e-3, (case, statistic, p)


def test_memory_is_flat_in_the_number_of_replicates():
    """Peak traced memory grows by the distribution (8 bytes a replicate), not by
    replicates x n: 4,500 more replicates of n = 4,000 would be 144 MB as B x n."""
    import tracemalloc

    x = ar_series(4000, (0.5,), seed=9)
    peaks = []
    for B in (500, 5000):
        rs = ResidualBootstrap(B, order=1, random_state=0)
        bootstrap(x, "mean", resampler=rs)  # compiled, caches warm
        tracemalloc.start()
        bootstrap(x, "mean", resampler=rs)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] - peaks[0] < 4500 * 8 * 4 + 2**20
