"""wild_cluster_bootstrap on a fitted statsmodels OLS or WLS model (array and
formula API): the same test as on the arrays, statsmodels' own cluster-robust
standard errors, wildboottest's statsmodels front end, and clear refusals."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from skboot import wild_cluster_bootstrap

sm = pytest.importorskip("statsmodels.api")
smf = pytest.importorskip("statsmodels.formula.api")
pd = pytest.importorskip("pandas")

SEED = 7


def frame(n=150, G=8, H=5, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, size=n)
    h = rng.integers(0, H, size=n)
    x1 = rng.normal(size=n) + rng.normal(size=G)[g]
    x2 = rng.normal(size=n)
    y = 0.2 * x1 - x2 + 1.0 + rng.normal(size=n) + rng.normal(size=G)[g]
    w = rng.uniform(0.5, 2.0, size=n)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g, "h": h, "w": w})


def test_skboot_import_does_not_import_statsmodels():
    code = "import sys, skboot; print('statsmodels' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["x1", "Intercept"])
def test_formula_fit_equals_the_arrays(name):
    """The parameter addressed by name; y, X (constant included) from the
    model: the arrays path with the same columns gives the same test."""
    df = frame()
    fit = smf.ols("y ~ x1 + x2", data=df).fit()
    res = wild_cluster_bootstrap(fit, groups="g", coef=name, random_state=SEED)
    D = np.column_stack([df["x1"], df["x2"], np.ones(len(df))])  # constant last
    column = 2 if name == "Intercept" else 0
    ref = wild_cluster_bootstrap(D, df["y"], df["g"], coef=column,
                                 fit_intercept=False, random_state=SEED)  # fmt: skip
    assert res.enumerated and res.n_resamples == 256
    assert res.estimate == pytest.approx(fit.params[name], rel=1e-12)
    assert res.coef.shape == (3,)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, ref.null_distribution,
                               rtol=1e-9, atol=1e-12)  # fmt: skip
    assert res.pvalue == ref.pvalue
    cl = smf.ols("y ~ x1 + x2", data=df).fit(cov_type="cluster",
                                             cov_kwds={"groups": df["g"]})  # fmt: skip
    assert res.standard_error == pytest.approx(cl.bse[name], rel=1e-10)


def test_array_api_fit_const_and_fitted_clusters():
    """sm.OLS on arrays (parameters "const", "x1", "x2"); with
    cov_type="cluster" the fit's clusters are used when groups is None, and
    the standard error is the fit's."""
    df = frame(seed=1)
    exog = sm.add_constant(df[["x1", "x2"]].to_numpy())
    fit = sm.OLS(df["y"].to_numpy(), exog).fit(cov_type="cluster",
                                               cov_kwds={"groups": df["g"].to_numpy()})  # fmt: skip
    for name in ("const", "x1"):
        res = wild_cluster_bootstrap(fit, coef=name, n_resamples=499,
                                     random_state=SEED)  # fmt: skip
        j = fit.model.exog_names.index(name)
        assert res.standard_error == pytest.approx(fit.bse[j], rel=1e-10)
        by_index = wild_cluster_bootstrap(fit, coef=j, n_resamples=499,
                                          random_state=SEED)  # fmt: skip
        assert by_index == res


def test_wls_fit_equals_statsmodels_and_scaled_arrays():
    """WLS: rows scaled by sqrt(w), as statsmodels forms the weighted fit and
    its cluster-robust variance."""
    df = frame(seed=2)
    fit = smf.wls("y ~ x1 + x2", data=df, weights=df["w"]).fit(
        cov_type="cluster", cov_kwds={"groups": df["g"]}
    )
    res = wild_cluster_bootstrap(fit, coef="x1", n_resamples=999, random_state=SEED)
    assert res.estimate == pytest.approx(fit.params["x1"], rel=1e-12)
    assert res.standard_error == pytest.approx(fit.bse["x1"], rel=1e-10)
    s = np.sqrt(df["w"].to_numpy())
    D = np.column_stack([np.ones(len(df)), df["x1"], df["x2"]]) * s[:, None]
    ref = wild_cluster_bootstrap(D, df["y"].to_numpy() * s, df["g"], coef=1,
                                 fit_intercept=False, n_resamples=999,
                                 random_state=SEED)  # fmt: skip
    assert res.pvalue == ref.pvalue
    np.testing.assert_allclose(res.null_distribution, ref.null_distribution,
                               rtol=1e-12)  # fmt: skip


def test_rows_dropped_by_the_formula_are_dropped_from_the_clusters():
    df = frame(seed=3)
    df.loc[[3, 40, 41, 99], "x2"] = np.nan
    fit = smf.ols("y ~ x1 + x2", data=df).fit()
    kept = df.dropna()
    ref = wild_cluster_bootstrap(kept[["x1", "x2"]], kept["y"], kept["g"],
                                 random_state=SEED)  # fmt: skip
    for groups in ("g", df["g"]):
        res = wild_cluster_bootstrap(fit, groups=groups, coef="x1",
                                     random_state=SEED)  # fmt: skip
        assert res.pvalue == ref.pvalue
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)


def test_two_way_columns_equal_statsmodels():
    df = frame(seed=4)
    fit = smf.ols("y ~ x1 + x2", data=df).fit(
        cov_type="cluster", cov_kwds={"groups": df[["g", "h"]].to_numpy()}
    )
    res = wild_cluster_bootstrap(fit, groups=["g", "h"], coef="x1",
                                 bootstrap_groups="g", random_state=SEED)  # fmt: skip
    assert res.standard_error == pytest.approx(fit.bse["x1"], rel=1e-10)
    assert res.enumerated and res.n_bootstrap_clusters == 8
    fitted = wild_cluster_bootstrap(fit, coef="x1", bootstrap_groups="g",
                                    random_state=SEED)  # fmt: skip
    assert fitted == res


@pytest.mark.slow  # wildboottest compiles a numba closure on every call
def test_peer_wildboottest_statsmodels_front_end():
    """wildboottest(model, param=, cluster=) on the same statsmodels model,
    enumerated: the same t, and the same p-value once the two sign vectors
    that reproduce +-t (ties, which wildboottest counts and skboot does not)
    are added back."""
    wbt = pytest.importorskip("wildboottest.wildboottest")
    df = frame(seed=5)
    model = smf.ols("y ~ x1 + x2", data=df)
    with pytest.warns(UserWarning, match="full_enumeration"):
        peer = wbt.wildboottest(model, B=9999, cluster=df["g"], param="x1",
                                seed=1, show=False)  # fmt: skip
    mine = wild_cluster_bootstrap(model.fit(), groups="g", coef="x1")
    assert wild_cluster_bootstrap(model, groups="g", coef="x1") == mine  # unfitted
    assert float(peer["statistic"].iloc[0]) == pytest.approx(mine.statistic, rel=1e-8)
    t, tstar = abs(mine.statistic), np.abs(mine.null_distribution)
    ties = np.mean(np.abs(tstar - t) <= 1e-9 * t)
    assert ties == 2 / 256
    assert float(peer["p-value"].iloc[0]) == pytest.approx(
        mine.pvalue + ties, abs=1e-12
    )


def test_unsupported_models_and_bad_arguments():
    df = frame(seed=6)
    glm = smf.glm("y ~ x1", data=df).fit()
    with pytest.raises(ValueError, match=r"'X' parameter .* OLS or WLS .*GLMResults"):
        wild_cluster_bootstrap(glm, groups="g", coef="x1")
    gls = sm.GLS(df["y"], sm.add_constant(df["x1"])).fit()
    with pytest.raises(ValueError, match=r"statsmodels OLS or WLS .* of GLS"):
        wild_cluster_bootstrap(gls, groups=df["g"], coef="x1")
    fit = smf.ols("y ~ x1", data=df).fit()
    with pytest.raises(ValueError, match=r"'y' parameter .* must be None"):
        wild_cluster_bootstrap(fit, df["y"], df["g"])
    with pytest.raises(
        ValueError,
        match=r"'coef' parameter .* parameter names \['Intercept', 'x1'\]. Got 'x3'",
    ):
        wild_cluster_bootstrap(fit, groups="g", coef="x3")
    with pytest.raises(ValueError, match=r"'groups' parameter .* column names"):
        wild_cluster_bootstrap(fit, groups="cluster", coef="x1")
    with pytest.raises(ValueError, match=r"'groups' parameter .*cov_type"):
        wild_cluster_bootstrap(fit, coef="x1")
    with pytest.raises(
        ValueError, match=r"'coef' parameter .*parameter name only when X is a fitted"
    ):
        wild_cluster_bootstrap(df[["x1"]], df["y"], df["g"], coef="x1")
    with pytest.raises(ValueError, match=r"'bootstrap_groups' parameter"):
        wild_cluster_bootstrap(fit, groups="g", bootstrap_groups="median")
    assert not math.isnan(wild_cluster_bootstrap(fit, groups="g", coef=1).pvalue)
