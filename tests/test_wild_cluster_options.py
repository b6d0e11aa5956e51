"""wild_cluster_bootstrap's options shared with boottest / fwildclusterboot /
wildboottest: standard normal multipliers, the small-sample factor, bootstrap
clusters other than the variance clusters, multiway clustering, against
references (a refit per replicate, statsmodels' cluster-robust variances,
wildboottest on identical inputs)."""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
import pytest
from scipy import stats

from skboot import WildBootstrap, wild_cluster_bootstrap
from skboot._random import PURPOSE, check_random_state, reference_uniforms
from skboot.model_based import FewClustersWarning

SEED = 20251201


def two_way_data(n=160, G1=6, G2=5, k=2, seed=0, beta=0.3):
    """Regression data with effects of two crossed clusterings (firms, years)."""
    rng = np.random.default_rng(seed)
    g1 = rng.integers(0, G1, size=n) * 10 + 3
    g2 = rng.integers(0, G2, size=n) + 100
    c1 = np.unique(g1, return_inverse=True)[1]
    c2 = np.unique(g2, return_inverse=True)[1]
    X = rng.normal(size=(n, k)) + rng.normal(size=(G1, k))[c1]
    u = rng.normal(size=n) + rng.normal(size=G1)[c1] + rng.normal(size=G2)[c2]
    y = X @ np.r_[beta, np.ones(k - 1)] + 0.5 + u
    return X, y, g1, g2


def codes_of(*labels):
    """Codes of the intersection of label arrays, lexicographic label order."""
    return np.unique(np.column_stack(labels), axis=0, return_inverse=True)[1].ravel()


def factor(G, n, k, small_sample="both"):
    return {
        "both": G / (G - 1) * (n - 1) / (n - k),
        "cluster": G / (G - 1),
        "observations": (n - 1) / (n - k),
        "none": 1.0,
    }[small_sample]


def terms_of(dims, n, k, small_sample="both"):
    """(codes, weight) of every term of the multiway variance, built by hand."""
    if len(dims) == 1:
        c = codes_of(dims[0])
        return [(c, factor(c.max() + 1, n, k, small_sample))]
    c1, c2, c12 = codes_of(dims[0]), codes_of(dims[1]), codes_of(*dims)
    return [
        (c, sign * factor(c.max() + 1, n, k, small_sample))
        for c, sign in ((c1, 1.0), (c2, 1.0), (c12, -1.0))
    ]


def refit_wcb(D, y, terms, boot, a, null, V, impose_null):
    """The wild cluster bootstrap the slow way: for every replicate, build
    ``y*`` with multiplier ``V[b, boot[i]]`` on row ``i``, refit OLS on all n rows
    and compute the (multiway) CRV1 variance from the bootstrap residuals."""
    A = np.linalg.inv(D.T @ D)
    bhat = A @ D.T @ y

    def se_of(resid):
        total = 0.0
        for codes, w in terms:
            S = np.zeros((codes.max() + 1, D.shape[1]))
            np.add.at(S, codes, D * resid[:, None])
            total += w * (a @ A @ S.T @ S @ A @ a)
        # a negative multiway variance counts as 0: t* is infinite (counted as
        # more extreme than any t), as in wild_cluster_bootstrap
        return np.sqrt(np.float64(max(total, 0.0)))

    t = (a @ bhat - null) / se_of(y - D @ bhat)
    q = A @ a
    base = bhat - q * (a @ bhat - null) / (a @ q) if impose_null else bhat
    centre = null if impose_null else a @ bhat
    fit = D @ base
    resid = y - fit
    tstar = np.empty(V.shape[0])
    for b in range(V.shape[0]):
        ys = fit + resid * V[b, boot]
        bs = np.linalg.lstsq(D, ys, rcond=None)[0]
        with np.errstate(divide="ignore"):
            tstar[b] = (a @ bs - centre) / se_of(ys - D @ bs)
    return se_of(y - D @ bhat), t, tstar


def multipliers(weights, B, boot_labels, X, y):
    wb = WildBootstrap(B, weights=weights, random_state=SEED).fit(X, y, boot_labels)
    return np.array([wb.replicate(b).multipliers for b in range(B)])


# ---------------------------------------------------------------------------
# standard normal multipliers
# ---------------------------------------------------------------------------
def test_normal_multipliers_are_box_muller_of_the_stream():
    """Multiplier g of replicate b is sqrt(-2 log(1 - u1)) cos(2 pi u2) with u1,
    u2 uniforms 2g and 2g + 1 of the replicate's "wild" stream: a function of
    (seed, replicate, cluster) alone; and the law is the standard normal."""
    X = np.random.default_rng(0).normal(size=(60, 1))
    y = X[:, 0]
    groups = np.arange(60) % 12
    wb = WildBootstrap(400, weights="normal", random_state=SEED).fit(X, y, groups)
    key = check_random_state(SEED)
    for b in (0, 1, 399):
        u = reference_uniforms(key, PURPOSE["wild"], b, 24)
        expect = np.sqrt(-2.0 * np.log(1.0 - u[0::2])) * np.cos(2 * np.pi * u[1::2])
        np.testing.assert_allclose(wb.replicate(b).multipliers, expect, rtol=1e-13)
    draws = np.concatenate([wb.replicate(b).multipliers for b in range(400)])
    assert stats.kstest(draws, "norm").pvalue > 1e-3


@pytest.mark.parametrize("impose_null", [True, False])
def test_normal_weights_equal_the_refit(impose_null):
    X, y, g1, _ = two_way_data(n=120, seed=3)
    res = wild_cluster_bootstrap(X, y, g1, coef=0, null=0.1, weights="normal",
                                 impose_null=impose_null, n_resamples=200,
                                 random_state=SEED)  # fmt: skip
    D = np.column_stack([X, np.ones(len(y))])
    n, k = D.shape
    V = multipliers("normal", 200, g1, X, y)
    a = np.eye(k)[0]
    terms = terms_of([g1], n, k)
    se, t, tstar = refit_wcb(D, y, terms, codes_of(g1), a, 0.1, V, impose_null)
    assert res.weights == "normal" and not res.enumerated
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    assert res.statistic == pytest.approx(t, rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------
# the small-sample factor
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("small_sample", ["both", "cluster", "observations", "none"])
def test_small_sample_factor_scales_se_not_pvalue(small_sample):
    X, y, g1, _ = two_way_data(n=100, G1=9, seed=4)
    n, k = 100, 3
    ref = wild_cluster_bootstrap(X, y, g1, n_resamples=999, random_state=SEED)
    res = wild_cluster_bootstrap(X, y, g1, n_resamples=999, random_state=SEED,
                                 small_sample=small_sample)  # fmt: skip
    ratio = math.sqrt(factor(9, n, k, small_sample) / factor(9, n, k))
    assert res.standard_error == pytest.approx(ref.standard_error * ratio, rel=1e-13)
    assert res.statistic == pytest.approx(ref.statistic / ratio, rel=1e-13)
    np.testing.assert_allclose(res.null_distribution, ref.null_distribution / ratio,
                               rtol=1e-12)  # fmt: skip
    assert res.pvalue == ref.pvalue and res.small_sample == small_sample
    np.testing.assert_allclose(res.confidence_interval(), ref.confidence_interval(),
                               rtol=1e-9)  # fmt: skip


@pytest.mark.parametrize(
    ("adj", "cluster_adj", "small_sample"),
    [(True, True, "both"), (False, True, "cluster"),
     (True, False, "observations"), (False, False, "none")],
)  # fmt: skip
def test_small_sample_equals_wildboottest(adj, cluster_adj, small_sample):
    """wildboottest's adj / cluster_adj on identical inputs, enumerated: the
    same t and the same 2**G bootstrap t statistics."""
    wbt = pytest.importorskip("wildboottest.wildboottest")
    X, y, g1, _ = two_way_data(n=90, G1=7, seed=5)
    D = np.column_stack([X, np.ones(len(y))])
    peer = wbt.WildboottestCL(X=D, Y=y, cluster=g1, R=np.array([1.0, 0.0, 0.0]),
                              B=9999, seed=1, parallel=False)  # fmt: skip
    peer.get_scores(bootstrap_type="11", impose_null=True, adj=adj,
                    cluster_adj=cluster_adj)  # fmt: skip
    peer.get_weights(weights_type="rademacher")
    peer.get_numer()
    peer.get_denom()
    peer.get_tboot()
    peer.get_vcov()
    peer.get_tstat()
    mine = wild_cluster_bootstrap(X, y, g1, small_sample=small_sample)
    assert mine.enumerated and mine.n_resamples == 128
    assert mine.statistic == pytest.approx(float(np.ravel(peer.t_stat)[0]), rel=1e-10)
    np.testing.assert_allclose(np.sort(mine.null_distribution),
                               np.sort(np.ravel(peer.t_boot)), rtol=1e-9, atol=1e-12)  # fmt: skip


def test_standard_errors_equal_statsmodels():
    """statsmodels' cluster-robust standard errors on identical inputs: one-way
    with and without its correction, and two-way (cov_cluster_2groups, each
    term with its own number of clusters)."""
    sm = pytest.importorskip("statsmodels.api")
    sw = pytest.importorskip("statsmodels.stats.sandwich_covariance")
    X, y, g1, g2 = two_way_data(n=150, seed=6)
    D = np.column_stack([X, np.ones(len(y))])
    fit = sm.OLS(y, D).fit()
    for use_correction, small_sample in ((True, "both"), (False, "none")):
        cov = sw.cov_cluster(fit, g1, use_correction=use_correction)
        mine = wild_cluster_bootstrap(X, y, g1, small_sample=small_sample,
                                      n_resamples=99, random_state=0)  # fmt: skip
        assert mine.standard_error == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-10)
    cov2 = sw.cov_cluster_2groups(fit, g1, g2)[0]
    mine2 = wild_cluster_bootstrap(X, y, np.column_stack([g1, g2]), coef=1,
                                   n_resamples=99, random_state=0)  # fmt: skip
    assert mine2.standard_error == pytest.approx(math.sqrt(cov2[1, 1]), rel=1e-10)
    assert mine2.n_clusters == 5 and mine2.n_bootstrap_clusters == len(
        np.unique(codes_of(g1, g2))
    )


# ---------------------------------------------------------------------------
# bootstrap clusters and multiway clustering against a refit per replicate
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("impose_null", [True, False])
@pytest.mark.parametrize("which", ["coarser", "finer", "crossing"])
def test_bootstrap_groups_equal_the_refit(which, impose_null):
    """One-way variance clusters g1, bootstrap clusters coarser than, finer
    than or crossing them: t* of the refit to 1e-10 (Webb weights, drawn)."""
    X, y, g1, g2 = two_way_data(n=140, G1=8, G2=4, seed=7)
    boot = {"coarser": g1 // 20, "finer": g1 * 1000 + g2, "crossing": g2}[which]
    D = np.column_stack([X, np.ones(len(y))])
    n, k = D.shape
    B = 150
    res = wild_cluster_bootstrap(X, y, g1, coef=1, null=0.4, weights="webb",
                                 bootstrap_groups=boot, impose_null=impose_null,
                                 n_resamples=B, random_state=SEED)  # fmt: skip
    V = multipliers("webb", B, boot, X, y)
    se, t, tstar = refit_wcb(D, y, terms_of([g1], n, k), codes_of(boot),
                             np.eye(k)[1], 0.4, V, impose_null)  # fmt: skip
    assert res.n_bootstrap_clusters == len(np.unique(boot)) and res.n_clusters == 8
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    assert res.statistic == pytest.approx(t, rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("bootstrap_groups", [None, "min", "max"])
def test_two_way_equals_the_refit(bootstrap_groups):
    """Two-way variance V_1 + V_2 - V_12; bootstrap by the intersection (the
    default), the dimension with the fewest or the most clusters; enumerated
    when 2**G_boot <= n_resamples."""
    X, y, g1, g2 = two_way_data(n=120, G1=7, G2=4, seed=8)
    D = np.column_stack([X, np.ones(len(y))])
    n, k = D.shape
    boot = {None: codes_of(g1, g2), "min": codes_of(g2), "max": codes_of(g1)}
    boot = boot[bootstrap_groups]
    G_boot = boot.max() + 1
    B = 300 if G_boot > 8 else 9999
    # G_boot = 4 ("min"): too few sign vectors for 95%, and said so
    few = pytest.warns(FewClustersWarning) if G_boot <= 5 else nullcontext()
    with few:
        res = wild_cluster_bootstrap(X, y, np.column_stack([g1, g2]), coef=0,
                                     weights="rademacher", n_resamples=B,
                                     bootstrap_groups=bootstrap_groups,
                                     random_state=SEED)  # fmt: skip
    if 2**G_boot <= B:
        assert res.enumerated and res.n_resamples == 2**G_boot
        bits = np.arange(2**G_boot)[:, None] >> np.arange(G_boot)[None, :] & 1
        V = 1.0 - 2.0 * bits
    else:
        assert not res.enumerated
        V = multipliers("rademacher", B, boot, X, y)
    se, t, tstar = refit_wcb(D, y, terms_of([g1, g2], n, k), boot, np.eye(k)[0],
                             0.0, V, True)  # fmt: skip
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    assert res.statistic == pytest.approx(t, rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-10, atol=1e-10)
    assert res.n_bootstrap_clusters == G_boot
    # pvalue_at and the interval reuse the multiway sums: a rerun at the null
    with pytest.warns(FewClustersWarning) if G_boot <= 5 else nullcontext():
        rerun = wild_cluster_bootstrap(X, y, np.column_stack([g1, g2]), null=0.25,
                                       n_resamples=B,
                                       bootstrap_groups=bootstrap_groups,
                                       random_state=SEED)  # fmt: skip
    assert res.pvalue_at(0.25) == rerun.pvalue


def test_general_path_equals_one_way_path():
    """bootstrap_groups equal to groups takes the cell algebra; it gives the
    one-way results up to rounding."""
    X, y, g1, _ = two_way_data(n=130, G1=9, seed=9)
    a = wild_cluster_bootstrap(X, y, g1, weights="mammen", n_resamples=500,
                               random_state=SEED)  # fmt: skip
    b = wild_cluster_bootstrap(X, y, g1, weights="mammen", n_resamples=500,
                               bootstrap_groups=g1, random_state=SEED)  # fmt: skip
    assert b.standard_error == pytest.approx(a.standard_error, rel=1e-13)
    np.testing.assert_allclose(b.null_distribution, a.null_distribution, rtol=1e-11)
    assert a.pvalue == b.pvalue


def test_two_way_negative_variance_is_undefined():
    """A two-way variance below zero (V_12 larger than V_1 + V_2) makes t
    undefined: NaN with a warning that says why, never a p-value."""
    from skboot import UndefinedStatisticWarning

    rng = np.random.default_rng(1)
    n = 40
    g1 = np.arange(n) % 2
    g2 = np.arange(n) // 2 % 2
    for seed in range(200):
        rng = np.random.default_rng(seed)
        x, y = rng.normal(size=n), rng.normal(size=n)
        D = np.column_stack([x, np.ones(n)])
        terms = terms_of([g1, g2], n, 2)
        A = np.linalg.inv(D.T @ D)
        u = y - D @ (A @ D.T @ y)
        total = 0.0
        for codes, w in terms:
            S = np.zeros((codes.max() + 1, 2))
            np.add.at(S, codes, D * u[:, None])
            total += w * (A @ S.T @ S @ A)[0, 0]
        if total < 0:
            break
    assert total < 0
    with pytest.warns(UndefinedStatisticWarning, match="multiway .* negative"):
        res = wild_cluster_bootstrap(x, y, np.column_stack([g1, g2]))
    assert res.standard_error == 0.0 and math.isnan(res.pvalue)


def test_multiway_result_saves_and_loads(tmp_path):
    """The new fields and the multiway sums survive save/load (pvalue_at and the
    interval after loading equal the original's); a record written before the
    fields existed loads with their defaults."""
    X, y, g1, g2 = two_way_data(n=120, G1=7, G2=4, seed=10)
    res = wild_cluster_bootstrap(X, y, np.column_stack([g1, g2]), small_sample="cluster",
                                 bootstrap_groups="max", n_resamples=99,
                                 random_state=SEED)  # fmt: skip
    path = tmp_path / "res.skb"
    res.save(path)
    back = type(res).load(path)
    assert back == res and back.small_sample == "cluster"
    assert back.n_bootstrap_clusters == 7 and back.n_clusters == 4
    assert back.pvalue_at(0.5) == res.pvalue_at(0.5)
    assert tuple(back.confidence_interval()) == tuple(res.confidence_interval())
    one_way = wild_cluster_bootstrap(X, y, g1, n_resamples=99, random_state=SEED)
    fields = one_way._file_fields()
    del fields["small_sample"], fields["n_bootstrap_clusters"]
    old = type(one_way)._from_file_fields(fields, None)
    assert old == one_way


def test_multiway_exact_fit_and_overflow():
    """The multiway path keeps the one-way rules: y fitted exactly by X gives an
    undefined t (zero standard error up to rounding), and values whose variance
    overflows are refused naming y, with no numpy warning escaping."""
    from skboot import UndefinedStatisticWarning

    rng = np.random.default_rng(0)
    n = 100
    groups = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 4, n)])
    x = rng.normal(size=n)
    for y in (np.full(n, 3.0), 2.0 * x + 1.0):
        with pytest.warns(UndefinedStatisticWarning, match="zero up to rounding"):
            res = wild_cluster_bootstrap(x, y, groups, random_state=0)
        assert res.standard_error == 0.0 and math.isnan(res.statistic)
    with pytest.raises(ValueError, match=r"'y' parameter .* finite float64"):
        wild_cluster_bootstrap(x, rng.normal(size=n) * 1e200, groups, random_state=0)
