"""Several absorbed fixed-effect dimensions in wild_cluster_bootstrap and
wild_cluster_wald (module skboot.model_based._cluster_fe_multi), against the
regression with every dummy written out (numpy lstsq, a refit per replicate on
the same multipliers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.linalg import qr

from skboot import WildBootstrap, wild_cluster_bootstrap, wild_cluster_wald
from skboot.model_based import _cluster_fe, _cluster_fe_multi
from skboot.model_based._cluster_fe_multi import demean, redundant_levels

SEED = 20251202
G = 8


def panel(layout, seed=0, per=30):
    """Clusters ``g`` and fixed-effect dimensions of the given layout, with
    effects of every dimension in ``y`` and in the first regressor."""
    rng = np.random.default_rng(seed)
    n = G * per
    g = np.repeat(np.arange(G), per)
    firm = g * 3 + rng.integers(0, 3, size=n)  # nested in the clusters
    plant = g * 2 + rng.integers(0, 2, size=n)  # nested, crossing the firms
    year = rng.integers(0, 5, size=n)  # crossing the clusters
    industry = rng.integers(0, 4, size=n)  # crossing the clusters
    if layout == "two_components":  # firms 0-11 only in years 0-1, others 2-4
        year = np.where(
            firm < 12, rng.integers(0, 2, size=n), rng.integers(2, 5, size=n)
        )
    dims = {
        "nested_and_crossing": [firm, year],
        "crossing_first": [year, firm],
        "both_nested": [firm, plant],
        "both_crossing": [year, industry],
        "three": [firm, year, plant],
        "two_components": [firm, year],
    }[layout]
    X = rng.normal(size=(n, 2))
    y = X @ np.r_[0.3, -0.2] + rng.normal(size=n) + rng.normal(size=G)[g]
    for codes in dims:
        X[:, 0] += rng.normal(size=codes.max() + 1)[codes]
        y = y + rng.normal(size=codes.max() + 1)[codes]
    return X, y, g, dims


def explicit_design(X, dims):
    """``X`` next to every dummy of every dimension, redundant columns dropped
    (pivoted QR), and its rank."""
    dummies = np.hstack([(c[:, None] == np.arange(c.max() + 1)) for c in dims])
    full = np.column_stack([X, dummies.astype(float)])
    _, R, piv = qr(full, mode="economic", pivoting=True)
    rank = int(np.sum(np.abs(np.diag(R)) > 1e-9 * abs(R[0, 0])))
    D = full[:, np.sort(piv[:rank])]
    k = X.shape[1]
    assert np.all(np.sort(piv[:rank])[:k] == np.arange(k))  # X is kept
    return D, rank


def crv1_refit(D, y, g, a, null, V, impose_null, s=None):
    """beta, CRV1 SE, t and the bootstrap t* of the model ``D`` by definition:
    a refit per replicate (rows of ``V``: one multiplier per cluster)."""
    if s is not None:
        D, y = D * s[:, None], y * s
    n, k = D.shape
    c = G / (G - 1) * (n - 1) / (n - k)
    Ainv = np.linalg.inv(D.T @ D)

    def se_of(resid):
        S = np.zeros((G, k))
        np.add.at(S, g, D * resid[:, None])
        return np.sqrt(c * a @ Ainv @ S.T @ S @ Ainv @ a)

    bhat = np.linalg.lstsq(D, y, rcond=None)[0]
    se = se_of(y - D @ bhat)
    q = Ainv @ a
    base = bhat - q * (a @ bhat - null) / (a @ q) if impose_null else bhat
    centre = null if impose_null else a @ bhat
    fit = D @ base
    resid = y - fit
    tstar = np.empty(V.shape[0])
    for b in range(V.shape[0]):
        ys = fit + resid * V[b, g]
        bs = np.linalg.lstsq(D, ys, rcond=None)[0]
        tstar[b] = (a @ bs - centre) / se_of(ys - D @ bs)
    return a @ bhat, se, (a @ bhat - null) / se, tstar


LAYOUTS = [
    "nested_and_crossing",
    "crossing_first",
    "both_nested",
    "both_crossing",
    "three",
    "two_components",
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("impose_null", [True, False])
def test_several_dimensions_equal_explicit_dummies(layout, impose_null):
    X, y, g, dims = panel(layout, seed=LAYOUTS.index(layout))
    B = 60
    kw = {"weights": "webb", "n_resamples": B, "random_state": SEED, "null": 0.1}
    res = wild_cluster_bootstrap(X, y, g, coef=0, fixed_effects=np.column_stack(dims),
                                 impose_null=impose_null, **kw)  # fmt: skip
    D, rank = explicit_design(X, dims)
    V = np.array([
        WildBootstrap(B, weights="webb", random_state=SEED).fit(X, y, g)
        .replicate(b).multipliers for b in range(B)
    ])  # fmt: skip
    a = np.eye(rank)[0]
    est, se, t, tstar = crv1_refit(D, y, g, a, 0.1, V, impose_null)
    assert abs(res.estimate - est) <= 1e-9 * max(1.0, abs(est))
    assert abs(res.standard_error - se) <= 1e-9 * se
    assert abs(res.statistic - t) <= 1e-9 * max(1.0, abs(t))
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-9, atol=1e-9)


def test_small_sample_k_is_the_rank_of_the_dummies():
    """k counts the levels minus the redundant ones: one per connected
    component for two dimensions (2 components here; firms and plants nested
    in the same clusters: one per cluster), one more for a third."""
    _, _, _, dims = panel("two_components")
    assert redundant_levels(dims) == 2
    _, rank_two = explicit_design(np.zeros((len(dims[0]), 0)), dims)
    assert sum(c.max() + 1 for c in dims) - redundant_levels(dims) == rank_two
    _, _, _, (firm, year, plant) = panel("three")
    nested_first = [firm, plant, year]  # the order absorb_several counts in
    _, rank_three = explicit_design(np.zeros((len(firm), 0)), nested_first)
    assert redundant_levels(nested_first) == G + 1
    assert sum(c.max() + 1 for c in nested_first) - G - 1 == rank_three


def test_wald_with_several_dimensions_equals_explicit_dummies():
    X, y, g, dims = panel("nested_and_crossing", seed=7)
    D, _ = explicit_design(X, dims)
    kw = {"weights": "webb", "n_resamples": 199, "random_state": 4}
    wald = wild_cluster_wald(X, y, g, coef=[0, 1], fixed_effects=np.column_stack(dims),
                             **kw)  # fmt: skip
    ref = wild_cluster_wald(D, y, g, coef=[0, 1], fit_intercept=False, **kw)
    assert abs(wald.statistic - ref.statistic) <= 1e-9 * ref.statistic
    np.testing.assert_allclose(wald.null_distribution, ref.null_distribution,
                               rtol=1e-9, atol=1e-9)  # fmt: skip


def test_statsmodels_column_names_and_wls_weights():
    import statsmodels.formula.api as smf

    X, y, g, (firm, year) = panel("nested_and_crossing", seed=9)
    w = np.random.default_rng(9).uniform(0.5, 2.0, size=len(y))
    df = pd.DataFrame({"y": y, "a": X[:, 0], "b": X[:, 1], "g": g, "firm": firm,
                       "year": year, "w": w})  # fmt: skip
    B = 50
    kw = {"weights": "webb", "n_resamples": B, "random_state": SEED, "null": 0.2}
    fit = smf.wls("y ~ a + b", data=df, weights=df["w"]).fit()
    res = wild_cluster_bootstrap(fit, groups="g", coef="a",
                                 fixed_effects=["firm", "year"], **kw)  # fmt: skip
    D, rank = explicit_design(X, [firm, year])
    V = np.array([
        WildBootstrap(B, weights="webb", random_state=SEED).fit(X, y, g)
        .replicate(b).multipliers for b in range(B)
    ])  # fmt: skip
    est, se, t, tstar = crv1_refit(D, y, g, np.eye(rank)[0], 0.2, V, True, np.sqrt(w))
    assert abs(res.estimate - est) <= 1e-9 * abs(est)
    assert abs(res.standard_error - se) <= 1e-9 * se
    assert abs(res.statistic - t) <= 1e-9 * abs(t)
    np.testing.assert_allclose(res.null_distribution, tstar, rtol=1e-9, atol=1e-9)
    frame = wild_cluster_bootstrap(X, y, g, coef=0, fixed_effects=df[["firm", "year"]],
                                   **kw)  # fmt: skip
    array = wild_cluster_bootstrap(X, y, g, coef=0,
                                   fixed_effects=np.column_stack([firm, year]), **kw)  # fmt: skip
    assert frame.statistic == array.statistic
    np.testing.assert_array_equal(frame.null_distribution, array.null_distribution)


def test_one_dimension_unchanged_bit_for_bit():
    """One column (a 1-D array, a one-column 2-D array or data frame) goes
    through the one-dimension path: the same bits."""
    X, y, g, (firm, year) = panel("nested_and_crossing", seed=11)
    kw = {"weights": "webb", "n_resamples": 99, "random_state": 3}
    for codes in (firm, year):
        ref = wild_cluster_bootstrap(X, y, g, coef=0, fixed_effects=codes, **kw)
        for same in (codes[:, None], pd.DataFrame({"f": codes})):
            res = wild_cluster_bootstrap(X, y, g, coef=0, fixed_effects=same, **kw)
            assert res.statistic == ref.statistic
            np.testing.assert_array_equal(res.null_distribution, ref.null_distribution)


def test_demeaning_converges_to_the_projection():
    X, _, _, dims = panel("two_components", seed=13)
    dummies = np.hstack([(c[:, None] == np.arange(c.max() + 1)) for c in dims])
    fitted = dummies @ np.linalg.lstsq(dummies.astype(float), X, rcond=None)[0]
    out = demean(X, dims, None, "test")
    np.testing.assert_allclose(out, X - fitted, rtol=0, atol=1e-11)


def test_bad_input_and_no_convergence():
    X, y, g, dims = panel("nested_and_crossing", seed=5)
    fe = np.column_stack(dims)
    with pytest.raises(ValueError, match=r"'fixed_effects' parameter .* one label"):
        wild_cluster_bootstrap(X, y, g, fixed_effects=fe[:-1])
    with pytest.raises(ValueError, match=r"'X' parameter .* absorbed column"):
        wild_cluster_bootstrap(np.column_stack([X, dims[1]]), y, g, fixed_effects=fe)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_cluster_fe, "MAX_DUMMY_CELLS", 100)
        with pytest.raises(ValueError, match=r"'fixed_effects' parameter .* nested"):
            wild_cluster_bootstrap(X, y, g, fixed_effects=fe)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_cluster_fe_multi, "MAX_SWEEPS", 1)
        with pytest.raises(ValueError, match=r"'fixed_effects' parameter .* sweeps"):
            wild_cluster_bootstrap(X, y, g, fixed_effects=fe)


def test_two_way_clustering_with_several_dimensions():
    """Firm effects nested in the firm clusters, year effects nested in the
    year clusters but crossing the firm clusters (written out): the explicit
    model's t and t* under two-way clustering, on the same replicates."""
    X, y, g, (firm, year) = panel("nested_and_crossing", seed=17)
    groups = np.column_stack([g, year])
    kw = {"weights": "webb", "n_resamples": 299, "random_state": 8, "null": 0.1}
    res = wild_cluster_bootstrap(
        X, y, groups, coef=0, fixed_effects=np.column_stack([firm, year]), **kw
    )
    D, _ = explicit_design(X, [firm, year])
    ref = wild_cluster_bootstrap(D, y, groups, coef=0, fit_intercept=False, **kw)
    assert abs(res.statistic - ref.statistic) <= 1e-9 * max(1.0, abs(ref.statistic))
    assert abs(res.standard_error - ref.standard_error) <= 1e-9 * ref.standard_error
    np.testing.assert_allclose(
        res.null_distribution, ref.null_distribution, rtol=1e-9, atol=1e-9
    )
