"""wild_cluster_bootstrap: the fast algebra against a straightforward numpy
implementation, enumeration, test inversion, a peer (wildboottest, a Python port
of boottest's algorithm), bad inputs and the size of the test with few clusters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skboot import WildBootstrap, wild_cluster_bootstrap
from skboot.model_based import FewClustersWarning
from skboot.model_based._cluster import TIE_RTOL

SEED = 20240611


def make_data(n=120, G=7, k=2, seed=0, beta=0.0, unequal=True):
    """Clustered regression data: cluster effects in x and u, unequal sizes."""
    rng = np.random.default_rng(seed)
    if unequal:
        sizes = rng.multinomial(n - 2 * G, rng.dirichlet(np.ones(G))) + 2
    else:
        sizes = np.full(G, n // G)
    labels = rng.permutation(np.repeat(np.arange(G) * 3 + 1, sizes))
    codes = np.unique(labels, return_inverse=True)[1]
    X = rng.normal(size=(labels.shape[0], k)) + rng.normal(size=(G, k))[codes]
    u = rng.normal(size=labels.shape[0]) * (1 + X[:, 0] ** 2) ** 0.5
    u += rng.normal(size=G)[codes]
    y = X @ np.r_[beta, np.ones(k - 1)] + 0.5 + u
    return X, y, labels


def slow_wcb(X, y, labels, a, null, V, impose_null):
    """The wild cluster bootstrap computed the straightforward way: for every
    replicate, build y*, refit OLS on all n rows, and compute the CRV1 standard
    error from the bootstrap residuals.  O(n k) per replicate."""
    D = np.column_stack([X, np.ones(len(y))])
    n, k = D.shape
    codes = np.unique(labels, return_inverse=True)[1]
    G = codes.max() + 1
    c = G / (G - 1) * (n - 1) / (n - k)
    A = np.linalg.inv(D.T @ D)
    bhat = A @ D.T @ y
    uhat = y - D @ bhat

    def crv1_se(resid):
        scores = np.zeros((G, k))
        np.add.at(scores, codes, D * resid[:, None])
        V_ = c * A @ scores.T @ scores @ A
        return math.sqrt(a @ V_ @ a)

    se = crv1_se(uhat)
    t = (a @ bhat - null) / se
    if impose_null:
        q = A @ a
        base = bhat - q * (a @ bhat - null) / (a @ q)
        centre = null
    else:
        base = bhat
        centre = a @ bhat
    fit = D @ base
    resid = y - fit
    tstar = np.empty(V.shape[0])
    for b in range(V.shape[0]):
        ys = fit + resid * V[b, codes]
        bs = np.linalg.lstsq(D, ys, rcond=None)[0]
        tstar[b] = (a @ bs - centre) / crv1_se(ys - D @ bs)
    return a @ bhat, se, t, tstar


@pytest.mark.parametrize("impose_null", [True, False])
@pytest.mark.parametrize("weights", ["rademacher", "mammen", "webb"])
def test_fast_equals_straightforward(weights, impose_null):
    X, y, labels = make_data(n=150, G=9, k=3, seed=1, beta=0.2)
    B = 300  # 2**9 = 512 > 300: drawn, not enumerated
    res = wild_cluster_bootstrap(
        X,
        y,
        labels,
        coef=1,
        null=0.7,
        impose_null=impose_null,
        weights=weights,
        n_resamples=B,
        random_state=SEED,
    )
    assert not res.enumerated and res.n_resamples == B
    # the cluster multipliers are WildBootstrap's for the same seed and clusters
    wb = WildBootstrap(B, weights=weights, random_state=SEED).fit(X, y, labels)
    V = np.array([wb.replicate(b).multipliers for b in range(B)])
    a = np.array([0.0, 1.0, 0.0, 0.0])
    est, se, t, tstar = slow_wcb(X, y, labels, a, 0.7, V, impose_null)
    assert res.estimate == pytest.approx(est, rel=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    assert res.statistic == pytest.approx(t, rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-10, atol=1e-10)
    assert res.pvalue == np.mean(np.abs(tstar) > abs(t))
    assert res.bootstrap == ("WCR" if impose_null else "WCU")


def test_linear_combination_and_no_intercept():
    X, y, labels = make_data(n=90, G=6, k=2, seed=2)
    R = np.array([1.0, -2.0])
    res = wild_cluster_bootstrap(
        X, y, labels, coef=R, null=0.3, fit_intercept=False, n_resamples=64
    )
    assert res.enumerated and res.n_resamples == 64
    D = X
    A = np.linalg.inv(D.T @ D)
    bhat = A @ D.T @ y
    assert res.estimate == pytest.approx(R @ bhat, rel=1e-12)
    assert res.coef.shape == (2,)


def test_enumeration_order_and_symmetry():
    """2**G <= B: the 2**G sign vectors in the documented order, so replicate j
    has v_g = 1 - 2 * bit_g(j); v and -v give opposite t* (WCR and WCU)."""
    X, y, labels = make_data(n=80, G=5, seed=3)
    with pytest.warns(FewClustersWarning, match="1/16"):  # 2**4 pairs > 1 / 0.05
        res = wild_cluster_bootstrap(X, y, labels, n_resamples=9999)
    assert res.enumerated and res.n_resamples == 32 and res.random_state is None
    j = np.arange(32)
    V = 1.0 - 2.0 * ((j[:, None] >> np.arange(5)[None, :]) & 1)
    a = np.array([1.0, 0.0, 0.0])
    _, _, t, tstar = slow_wcb(X, y, labels, a, 0.0, V, True)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        res.null_distribution[::-1], -res.null_distribution, atol=1e-12
    )
    # WCR replicate 0 (all +1) reproduces the data: t* = t, a tie not counted
    assert res.null_distribution[0] == pytest.approx(t, rel=1e-10)
    assert res.pvalue == np.mean(np.abs(tstar) > abs(t) * (1 + TIE_RTOL))
    # Webb weights are never enumerated
    webb = wild_cluster_bootstrap(X, y, labels, weights="webb", n_resamples=50)
    assert not webb.enumerated and webb.n_resamples == 50


def test_pvalue_at_equals_a_new_run():
    """The p-value function used for inversion equals the bootstrap rerun at that
    null value (same multipliers)."""
    X, y, labels = make_data(n=100, G=12, seed=4, beta=0.5)
    for impose_null in (True, False):
        for alt in ("two-sided", "equal-tailed", "greater", "less"):
            base = wild_cluster_bootstrap(
                X,
                y,
                labels,
                impose_null=impose_null,
                alternative=alt,
                n_resamples=500,
                random_state=SEED,
            )
            for r in (-0.4, 0.1, 0.9):
                other = wild_cluster_bootstrap(
                    X,
                    y,
                    labels,
                    null=r,
                    impose_null=impose_null,
                    alternative=alt,
                    n_resamples=500,
                    random_state=SEED,
                )
                assert base.pvalue_at(r) == other.pvalue
                np.testing.assert_allclose(
                    wild_cluster_bootstrap(
                        X,
                        y,
                        labels,
                        null=r,
                        impose_null=impose_null,
                        n_resamples=500,
                        random_state=SEED,
                    ).null_distribution,
                    other.null_distribution,
                    rtol=0,
                )


@pytest.mark.parametrize("impose_null", [True, False])
@pytest.mark.parametrize(
    "alternative", ["two-sided", "equal-tailed", "greater", "less"]
)
def test_confidence_interval_inverts_the_test(impose_null, alternative):
    X, y, labels = make_data(n=200, G=14, seed=5, beta=0.3)
    res = wild_cluster_bootstrap(
        X,
        y,
        labels,
        impose_null=impose_null,
        alternative=alternative,
        n_resamples=999,
        level=0.9,
        random_state=SEED,
    )
    low, high = res.confidence_interval()
    alpha = 0.1
    eps = 1e-6 * res.standard_error
    assert res.pvalue_at(res.estimate) > alpha
    if alternative == "less":
        assert low == -math.inf
    else:
        assert low < res.estimate
        assert res.pvalue_at(low + eps) > alpha >= res.pvalue_at(low - eps)
    if alternative == "greater":
        assert high == math.inf
    else:
        assert high > res.estimate
        assert res.pvalue_at(high - eps) > alpha >= res.pvalue_at(high + eps)


def test_wcu_symmetric_interval_is_bootstrap_t():
    """WCU's t* does not depend on the null, so the inverted symmetric interval is
    estimate -/+ c* se with c* the (floor(alpha B) + 1)-th largest |t*|."""
    X, y, labels = make_data(n=150, G=10, seed=6)
    res = wild_cluster_bootstrap(
        X, y, labels, impose_null=False, n_resamples=799, random_state=SEED
    )
    a = np.sort(np.abs(res.null_distribution))[::-1]
    cstar = a[int(np.floor(0.05 * 799))]
    low, high = res.confidence_interval()
    assert low == pytest.approx(res.estimate - cstar * res.standard_error, abs=1e-8)
    assert high == pytest.approx(res.estimate + cstar * res.standard_error, abs=1e-8)


@pytest.mark.slow  # wildboottest compiles a numba closure on every call (~5 s)
def test_peer_wildboottest_enumeration():
    """wildboottest (Fischer & Michuda's Python port of boottest's fast
    algorithm) with full enumeration: the same 2**G bootstrap t statistics (in
    another order) and the same original t, WCR and WCU, H0: beta_j = 0."""
    wbt = pytest.importorskip("wildboottest.wildboottest")
    X, y, labels = make_data(n=120, G=8, k=2, seed=7)
    D = np.column_stack([X, np.ones(len(y))])
    for impose_null in (True, False):
        peer = wbt.WildboottestCL(
            X=D,
            Y=y,
            cluster=labels,
            R=np.array([1.0, 0.0, 0.0]),
            B=9999,
            seed=1,
            parallel=False,
        )
        peer.get_scores(bootstrap_type="11", impose_null=impose_null)
        _, B, full = peer.get_weights(weights_type="rademacher")
        peer.get_numer()
        peer.get_denom()
        peer.get_tboot()
        peer.get_vcov()
        peer.get_tstat()
        mine = wild_cluster_bootstrap(X, y, labels, impose_null=impose_null)
        assert full and B == mine.n_resamples == 256
        assert mine.statistic == pytest.approx(
            float(np.ravel(peer.t_stat)[0]), rel=1e-10
        )
        np.testing.assert_allclose(
            np.sort(mine.null_distribution),
            np.sort(np.ravel(peer.t_boot)),
            rtol=1e-9,
            atol=1e-12,
        )


def test_cost_does_not_grow_with_n_per_replicate():
    """The replicate loop never touches the rows: 20 000 rows with 4 clusters give
    the same t* as the straightforward version (a spot check at larger n)."""
    X, y, labels = make_data(n=20_000, G=4, k=1, seed=8)
    with pytest.warns(FewClustersWarning):
        res = wild_cluster_bootstrap(X, y, labels, n_resamples=16)
    j = np.arange(16)
    V = 1.0 - 2.0 * ((j[:, None] >> np.arange(4)[None, :]) & 1)
    _, _, _, tstar = slow_wcb(X, y, labels, np.array([1.0, 0.0]), 0.0, V, True)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"groups": np.zeros(60)}, "at least 2 clusters"),
        ({"X": np.c_[np.arange(60.0), 2 * np.arange(60.0)]}, "singular design"),
        ({"X": np.c_[np.ones(60)]}, "singular design"),
        ({"coef": 3}, "'coef' parameter"),
        ({"coef": [0.0, 0.0]}, "'coef' parameter"),
        ({"coef": [1.0]}, "'coef' parameter"),
        ({"weights": "gamma"}, "'weights' parameter"),
        ({"alternative": "symmetric"}, "'alternative' parameter"),
        ({"n_resamples": 0}, "'n_resamples' parameter"),
        ({"level": 1.0}, "'level' parameter"),
        ({"null": np.nan}, "'null' parameter"),
        ({"impose_null": "yes"}, "'impose_null' parameter"),
        ({"fit_intercept": None}, "'fit_intercept' parameter"),
        ({"y": np.ones(59)}, "'y' parameter"),
        ({"y": np.r_[np.ones(59), np.nan]}, "'y' parameter"),
        ({"X": np.ones((60, 2, 2))}, "'X' parameter"),
        ({"X": np.ones((3, 2)), "y": np.ones(3), "groups": [0, 1, 1]}, "more rows"),
        ({"groups": np.r_[np.zeros(59), np.nan]}, "'groups' parameter"),
        ({"random_state": -1}, "'random_state' parameter"),
    ],
)
def test_bad_inputs(kwargs, match):
    rng = np.random.default_rng(0)
    args = {
        "X": rng.normal(size=(60, 2)),
        "y": rng.normal(size=60),
        "groups": np.arange(60) % 5,
    }
    args.update(kwargs)
    X, y, groups = args.pop("X"), args.pop("y"), args.pop("groups")
    with pytest.raises(ValueError, match=match):
        wild_cluster_bootstrap(X, y, groups, **args)


@pytest.mark.slow
def test_size_with_few_clusters():
    """Under H0 the WCR test (Rademacher, G = 10, unequal cluster sizes,
    heteroskedastic errors with cluster effects) rejects at 5% in about 5% of
    data sets (Cameron, Gelbach & Miller 2008, table 3; MacKinnon & Webb 2018),
    while the CRV1 t test with t(G - 1) critical values over-rejects less
    reliably.  400 data sets: the rejection rate must lie in [0.02, 0.09]
    (binomial probability of leaving it at a true 5%: about 2e-4)."""
    rejections = 0
    T = 400
    for trial in range(T):
        X, y, labels = make_data(n=200, G=10, k=2, seed=1000 + trial)
        res = wild_cluster_bootstrap(X, y, labels, n_resamples=399, random_state=trial)
        rejections += res.pvalue <= 0.05
    rate = rejections / T
    lo, hi = stats.binom.ppf([1e-4, 1 - 1e-4], T, 0.05) / T
    assert lo <= 0.02 and hi >= 0.09  # the band holds the 1e-4 binomial tails
    assert 0.02 <= rate <= 0.09, rate


# ---------------------------------------------------------------------------
# the result protocol
# ---------------------------------------------------------------------------
def test_result_protocol():
    """Equality that never raises, a short repr at B = 9999, a one-row frame, a
    plot of the null distribution, fields under the decided names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, labels = make_data(n=200, G=40, seed=11, beta=0.2)
    a = wild_cluster_bootstrap(X, y, labels, random_state=SEED)
    b = wild_cluster_bootstrap(X, y, labels, random_state=SEED)
    other = wild_cluster_bootstrap(X, y, labels, random_state=SEED + 1)
    assert a.n_resamples == 9999 and not a.enumerated
    assert a == b and a != other and a != "a string"
    with pytest.raises(TypeError):
        hash(a)
    text = repr(a)
    assert len(text) < 300, text
    assert "null_distribution=array(shape=(9999,)" in text
    assert not hasattr(a, "p_value") and not hasattr(a, "distribution")
    d = a.to_dict()
    assert d["pvalue"] == a.pvalue and not any(k.startswith("_") for k in d)
    frame = a.to_frame()
    assert frame.shape[0] == 1
    assert list(frame.columns[:6]) == [
        "estimate",
        "standard_error",
        "statistic",
        "pvalue",
        "low",
        "high",
    ]
    low, high = a.confidence_interval()
    assert (frame.loc[0, "low"], frame.loc[0, "high"]) == (low, high)
    assert frame.loc[0, "pvalue"] == a.pvalue
    fig, ax = plt.subplots()
    assert a.plot(ax=ax, bins=30) is ax
    assert len(ax.patches) == 30 and len(ax.lines) == 1
    assert ax.lines[0].get_xdata()[0] == a.statistic
    assert a.plot().figure is not fig  # a new figure without ax
    plt.close("all")


def test_confidence_interval_is_computed_from_the_stored_sums():
    """The interval method equals the inversion at the run's level (None), is
    kept per level (the same object on a second call, no change to equality),
    and other levels nest."""
    X, y, labels = make_data(n=200, G=14, seed=5, beta=0.3)
    res = wild_cluster_bootstrap(X, y, labels, n_resamples=999, level=0.9,
                                 random_state=SEED)  # fmt: skip
    fresh = wild_cluster_bootstrap(X, y, labels, n_resamples=999, level=0.9,
                                   random_state=SEED)  # fmt: skip
    ci = res.confidence_interval()
    assert ci.level == 0.9 and res.confidence_interval(0.9) is ci
    assert res.confidence_interval() is ci
    assert res == fresh  # the kept interval is not a field
    wide = res.confidence_interval(0.99)
    assert wide.low < ci.low < res.estimate < ci.high < wide.high
    alpha = 0.1
    eps = 1e-6 * res.standard_error
    assert res.pvalue_at(ci.low + eps) > alpha >= res.pvalue_at(ci.low - eps)
