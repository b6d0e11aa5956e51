"""The wild cluster bootstrap with jackknifed residuals (``residuals="jackknife"``,
MacKinnon, Nielsen & Webb 2023; wildboottest's ``bootstrap_type="31"`` and
``"33"``), against a plain numpy reference that refits every leave-one-cluster-
out model and every replicate, on the same enumerated sign vectors."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import wild_cluster_bootstrap

SEED = 20261201


def data(G=6, per=15, k=2, seed=6):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(G), per)
    n = g.size
    X = rng.normal(size=(n, k)) + rng.normal(size=(G, k))[g]
    y = X @ np.r_[0.3, np.zeros(k - 1)] + rng.normal(size=n) + rng.normal(size=G)[g]
    g = np.where(np.arange(n) < 10, 0, g)  # unbalanced: cluster 0 is large
    return X, y, g


def signs(G):
    """The 2**G Rademacher sign vectors in skboot's enumeration order."""
    j = np.arange(2**G)[:, None]
    return 1.0 - 2.0 * ((j >> np.arange(G)) & 1)


def ols(D, y):
    return np.linalg.lstsq(D, y, rcond=None)[0]


def restricted(D, y, a, r):
    """Least squares under ``a' b = r``."""
    b = ols(D, y)
    q = np.linalg.solve(D.T @ D, a)
    return b - q * (a @ b - r) / (a @ q)


def t_stat(D, y, codes, G, a, center, variance):
    """t of ``a' b = center`` with the CRV1 or the CRV3 (jackknife) variance,
    by definition."""
    b = ols(D, y)
    n, k = D.shape
    if variance == "crv3":
        loo = np.array([ols(D[codes != h], y[codes != h]) for h in range(G)])
        var = (G - 1) / G * np.sum((loo @ a - a @ b) ** 2)
    else:
        A = np.linalg.inv(D.T @ D)
        S = np.zeros((G, k))
        np.add.at(S, codes, D * (y - D @ b)[:, None])
        var = G / (G - 1) * (n - 1) / (n - k) * (a @ A @ S.T @ S @ A @ a)
    return (a @ b - center) / np.sqrt(var)


def reference(D, y, codes, G, a, r, variance, impose_null):
    """The bootstrap t's of the paper's algorithm: the residuals of cluster g
    come from the (restricted) fit without cluster g; every replicate refitted."""
    b0 = restricted(D, y, a, r) if impose_null else ols(D, y)
    center = r if impose_null else a @ b0
    u = np.empty(len(y))
    for h in range(G):
        out = codes == h
        bh = (restricted if impose_null else lambda D, y, a, r: ols(D, y))(
            D[~out], y[~out], a, r
        )
        u[out] = y[out] - D[out] @ bh
    return np.array(
        [
            t_stat(D, D @ b0 + u * v[codes], codes, G, a, center, variance)
            for v in signs(G)
        ]
    )


@pytest.mark.parametrize("variance", ["crv1", "crv3"])
@pytest.mark.parametrize("impose_null", [True, False])
def test_jackknife_residuals_match_refits(variance, impose_null):
    """The four variants (WCR/WCU x CRV1/CRV3 statistic), every replicate."""
    X, y, g = data()
    D = np.column_stack([X, np.ones(len(y))])
    a = np.array([1.0, 0.0, 0.0])
    res = wild_cluster_bootstrap(X, y, g, coef=0, null=0.1, variance=variance,
                                 impose_null=impose_null, residuals="jackknife")  # fmt: skip
    assert res.enumerated and res.residuals == "jackknife"
    assert np.isclose(res.statistic, t_stat(D, y, g, 6, a, 0.1, variance), rtol=1e-10)
    ref = reference(D, y, g, 6, a, 0.1, variance, impose_null)
    np.testing.assert_allclose(res.null_distribution, ref, rtol=1e-9, atol=1e-10)
    # the jackknifed residuals change the bootstrap distribution, not t
    ordinary = wild_cluster_bootstrap(X, y, g, coef=0, null=0.1, variance=variance,
                                      impose_null=impose_null)  # fmt: skip
    assert ordinary.statistic == res.statistic
    assert np.abs(ordinary.null_distribution - res.null_distribution).max() > 1e-3


def test_jackknife_linear_combination_matches_refits():
    """A combination ``a' beta`` with a non-zero null, with the CRV3 statistic
    (the restricted leave-one-out fits move along ``(X'X - X_g'X_g)^-1 a``)."""
    X, y, g = data(k=3, seed=11)
    D = np.column_stack([X, np.ones(len(y))])
    a = np.array([1.0, -0.5, 2.0, 0.0])
    res = wild_cluster_bootstrap(X, y, g, coef=a[:3], null=-0.2, variance="crv3",
                                 residuals="jackknife")  # fmt: skip
    ref = reference(D, y, g, 6, a, -0.2, "crv3", True)
    np.testing.assert_allclose(res.null_distribution, ref, rtol=1e-9, atol=1e-10)


def test_jackknife_residuals_against_wildboottest():
    """wildboottest's ``bootstrap_type="31"`` (WCR and WCU) on the same sign
    vectors (its "33" replicates fail under numpy 2; the refits above check
    them)."""
    wbt = pytest.importorskip("wildboottest.wildboottest")
    X, y, g = data(G=8, per=12, seed=7)
    D = np.column_stack([X, np.ones(len(y))])
    for impose_null in (True, False):
        res = wild_cluster_bootstrap(D, y, g, coef=0, fit_intercept=False,
                                     impose_null=impose_null, residuals="jackknife",
                                     n_resamples=256)  # fmt: skip
        boot = wbt.WildboottestCL(X=D, Y=y, cluster=g, R=np.array([1.0, 0, 0]), B=256)
        boot.get_scores(bootstrap_type="31", impose_null=impose_null)
        boot.v = signs(8).T.astype(float)
        boot.get_numer()
        boot.get_denom()
        boot.get_tboot()
        np.testing.assert_allclose(
            np.ravel(boot.t_boot), res.null_distribution, rtol=1e-9, atol=1e-10
        )


@pytest.mark.parametrize("variance", ["crv1", "crv3"])
def test_jackknife_pvalue_at_equals_a_new_run(variance, tmp_path):
    """``t*`` stays affine in the null value: pvalue_at(r) equals a run at
    ``null=r`` with the same multipliers, so the interval inverts the same test;
    the result saves and loads with its residuals."""
    X, y, g = data(G=14, per=6, seed=3)
    kw = dict(coef=0, variance=variance, residuals="jackknife", weights="webb",
              n_resamples=199, random_state=SEED)  # fmt: skip
    res = wild_cluster_bootstrap(X, y, g, **kw)
    assert not res.enumerated
    for r in (-0.4, 0.25, 0.9):
        again = wild_cluster_bootstrap(X, y, g, null=r, **kw)
        assert res.pvalue_at(r) == again.pvalue
    lo, hi = res.confidence_interval()
    assert lo < res.estimate < hi
    assert res.pvalue_at(lo - 1e-6) <= 0.05 < res.pvalue_at(lo + 1e-6)
    path = tmp_path / "res.skb"
    res.save(path)
    back = type(res).load(path)
    assert back == res and back.residuals == "jackknife"
    fields = res._file_fields()
    del fields["residuals"]  # a record written before the field existed
    assert type(res)._from_file_fields(fields, None).residuals == "ordinary"


def test_default_residuals_unchanged():
    X, y, g = data(G=14, per=6, seed=3)
    res = wild_cluster_bootstrap(X, y, g, n_resamples=99, random_state=SEED)
    same = wild_cluster_bootstrap(X, y, g, n_resamples=99, random_state=SEED,
                                  residuals="ordinary")  # fmt: skip
    assert res == same and res.residuals == "ordinary"
    assert res.to_frame()["residuals"].tolist() == ["ordinary"]


def test_jackknife_bad_input():
    X, y, g = data()
    with pytest.raises(ValueError, match=r"'residuals' parameter .*'ordinary'.*"
                       r"Got 'loo'"):  # fmt: skip
        wild_cluster_bootstrap(X, y, g, residuals="loo")
    with pytest.raises(ValueError, match=r"'residuals' parameter .* multiway"):
        wild_cluster_bootstrap(X, y, np.column_stack([g, g % 2]),
                               residuals="jackknife")  # fmt: skip
    with pytest.raises(ValueError, match=r"'residuals' parameter .* bootstrap_groups"):
        wild_cluster_bootstrap(X, y, g, bootstrap_groups=g % 3, residuals="jackknife")
    Xd = np.column_stack([X, (g == 0).astype(float)])  # identified only by cluster 0
    with pytest.raises(ValueError, match=r"'residuals' parameter .* identified"):
        wild_cluster_bootstrap(Xd, y, g, coef=2, residuals="jackknife")
    with pytest.raises(ValueError, match=r"'variance' parameter .* identified"):
        wild_cluster_bootstrap(Xd, y, g, coef=2, variance="crv3", residuals="jackknife")


# ---------------------------------------------------------------------------
# CRV3 in the Wald test
# ---------------------------------------------------------------------------
def jackknife_covariance(D, y, codes, G, R):
    """``(G - 1) / G sum_g (R b_(g) - R b)(R b_(g) - R b)'`` by refits."""
    b = ols(D, y)
    loo = np.array([R @ ols(D[codes != h], y[codes != h]) for h in range(G)])
    diff = loo - R @ b
    return (G - 1) / G * diff.T @ diff, b


@pytest.mark.parametrize("impose_null", [True, False])
def test_wald_crv3_matches_leave_one_cluster_out_refits(impose_null, tmp_path):
    from skboot.model_based import wild_cluster_wald

    X, y, g = data(G=7, per=12, k=3, seed=5)
    D = np.column_stack([X, np.ones(len(y))])
    R = np.array([[1.0, 0, 0, 0], [0, 1.0, -1.0, 0]])
    r = np.array([0.1, 0.0])
    res = wild_cluster_wald(X, y, g, coef=R[:, :3], null=r, variance="crv3",
                            impose_null=impose_null)  # fmt: skip
    assert res.enumerated and res.variance == "crv3"
    V, b = jackknife_covariance(D, y, g, 7, R)
    np.testing.assert_allclose(res.covariance, V, rtol=1e-10)
    assert np.isclose(res.statistic, (R @ b - r) @ np.linalg.solve(V, R @ b - r))
    P = np.linalg.solve(D.T @ D, R.T)
    b0 = b - P @ np.linalg.solve(R @ P, R @ b - r) if impose_null else b
    center = r if impose_null else R @ b
    ref = []
    for v in signs(7):
        Vs, bs = jackknife_covariance(D, D @ b0 + (y - D @ b0) * v[g], g, 7, R)
        ref.append((R @ bs - center) @ np.linalg.solve(Vs, R @ bs - center))
    np.testing.assert_allclose(res.null_distribution, ref, rtol=1e-9, atol=1e-10)
    path = tmp_path / "wald.skb"
    res.save(path)
    assert type(res).load(path) == res
    fields = res._file_fields()
    del fields["variance"]  # a record written before the field existed
    assert type(res)._from_file_fields(fields, None).variance == "crv1"


def test_wald_crv3_one_restriction_is_the_t_test():
    from skboot.model_based import wild_cluster_wald

    X, y, g = data(G=12, per=8, seed=9)
    kw = dict(null=0.05, variance="crv3", weights="webb", n_resamples=299,
              random_state=SEED)  # fmt: skip
    t = wild_cluster_bootstrap(X, y, g, coef=1, **kw)
    w = wild_cluster_wald(X, y, g, coef=[1], **kw)
    assert w.pvalue == t.pvalue
    assert np.isclose(w.statistic, t.statistic**2, rtol=1e-12)
    np.testing.assert_allclose(w.null_distribution, t.null_distribution**2, rtol=1e-9)


def test_wald_crv3_bad_input():
    from skboot.model_based import wild_cluster_wald

    X, y, g = data()
    with pytest.raises(ValueError, match=r"'variance' parameter .* multiway"):
        wild_cluster_wald(X, y, np.column_stack([g, g % 2]), coef=[0, 1],
                          variance="crv3")  # fmt: skip
    with pytest.raises(ValueError, match=r"'variance' parameter .*Got 'crv2'"):
        wild_cluster_wald(X, y, g, coef=[0, 1], variance="crv2")
    Xd = np.column_stack([X, (g == 0).astype(float)])  # identified only by cluster 0
    with pytest.raises(ValueError, match=r"'variance' parameter .* identified"):
        wild_cluster_wald(Xd, y, g, coef=[0, 2], variance="crv3")


def test_exact_fit_is_undefined_not_a_numpy_warning():
    """y fitted exactly: the jackknife paths keep the zero-standard-error rule
    (NaN p-value with the named warning; no raw numpy warning escapes)."""
    from skboot import UndefinedStatisticWarning
    from skboot.model_based import wild_cluster_wald

    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(8), 10)
    X = rng.normal(size=(80, 2))
    y = X @ [1.0, 2.0] + 3.0
    with pytest.warns(UndefinedStatisticWarning, match="zero up to rounding"):
        assert np.isnan(wild_cluster_wald(X, y, g, coef=[0, 1], variance="crv3").pvalue)
    for variance in ("crv1", "crv3"):
        with pytest.warns(UndefinedStatisticWarning, match="zero up to rounding"):
            res = wild_cluster_bootstrap(X, y, g, variance=variance,
                                         residuals="jackknife")  # fmt: skip
        assert np.isnan(res.pvalue)
