"""``abc_interval`` against R's ``abcnon`` (package ``bootstrap``, Efron &
Tibshirani 1993), the function it follows.

The reference numbers below are ``abcnon``'s output (R 4.2.2, the
``bootstrap`` package's ``R/abcnon.R`` and its ``data/*.rda``), printed with
``sprintf("%.17g")``.  Each case was produced by

    Rscript -e 'source("R/abcnon.R"); load("data/law.rda");
      load("data/spatial.rda"); load("data/patch.rda");
      mean_t <- function(p, x) sum(p * x) / sum(p);
      var_t <- function(p, x) {p <- p / sum(p); m <- sum(p * x);
                               sum(p * (x - m)^2)};
      corr_t <- <the correlation of the example on abcnon\'s help page>;
      ratio_t <- function(p, x) sum(p * x[, 1]) / sum(p * x[, 2]);
      r <- abcnon(X, TT); print(r$limits[, "abc"], digits = 17);
      print(unlist(c(r$stats, r$constants)), digits = 17);
      print(r$tt.inf, digits = 17)'

with ``X, TT`` per case:

- ``law_corr``: ``as.matrix(law), corr_t`` (the law school data);
- ``help_mean``, ``help_corr``: the examples of ``abcnon``'s help page,
  ``set.seed(1); x1 <- rnorm(10); x2 <- matrix(rnorm(20), ncol = 2)``, then
  ``x1, mean_t`` and ``x2, corr_t`` (the data are copied below);
- ``spatial_var``: ``spatial$A, var_t`` (Efron & Tibshirani's Table 14.2);
- ``patch_ratio``: ``cbind(patch$y, patch$z), ratio_t`` (the patch data,
  Efron & Tibshirani chapter 25);
- ``ties_mean``, ``ties_var``: ``c(2, 3, 3, 3, 5, 5, 7, 7, 7, 7, 10, 12)``
  with ``mean_t`` and ``var_t``.

``curv`` is ``bhat / sighat - cq`` (``abcnon`` computes it but does not return
it).  ``limits`` are ``abcnon``'s default ``alpha = (.025, .05, .1, .16, .84,
.9, .95, .975)``: the two-sided intervals at levels 0.95, 0.90, 0.80 and 0.68.

The agreement to expect.  The estimate, the influence values, ``sighat`` and
``a`` come from the same first differences at the step ``epsilon / n`` in both,
so they differ only by rounding: 1e-9 relative (measured: 1e-11).  The second
differences (``bhat``, ``cq``) are taken by skboot at ``max(epsilon / n,
1e-4)`` (``abcnon``: ``epsilon / n``, whose rounding error grows like
``n**2``); the steps are the same up to ``n = 10``, and each side carries a
rounding error of about ``1e-16 |t0| / (sighat step**2)``, near 1e-7 here.  So
``bhat`` agrees to 1e-7 standard errors (measured: 2e-8), ``z0``, ``cq`` and
the curvature to 1e-6 absolute (measured: 2e-7) and the endpoints, which move
with ``z0``, to 2e-6 standard errors (measured: 5e-7).
"""

from __future__ import annotations

import numpy as np
import pytest

from skboot.intervals._abc import second_step
from skboot.statistic import abc_interval

LAW = np.column_stack(
    [
        [576, 635, 558, 578, 666, 580, 555, 661, 651, 605, 653, 575, 545, 572, 594],
        [3.39, 3.30, 2.81, 3.03, 3.44, 3.07, 3.00, 3.43, 3.36, 3.13, 3.12, 2.74,
         2.76, 2.88, 2.96],
    ]
)  # fmt: skip
SPATIAL_A = np.array(
    [48, 36, 20, 29, 42, 42, 20, 42, 22, 41, 45, 14, 6, 0, 33, 28, 34, 4, 32, 24,
     47, 41, 24, 26, 30, 41],
    dtype=float,
)  # fmt: skip
# the patch data: y (new - old patch) and z (old patch - placebo)
PATCH = np.column_stack(
    [
        [-1200, 2601, -2705, 1982, -1290, 351, -638, -2719],
        [8406, 2342, 8187, 8459, 4795, 3516, 4796, 10238],
    ]
).astype(float)
# set.seed(1); x1 <- rnorm(10); x2 <- matrix(rnorm(20), ncol = 2) (R fills the
# matrix by column: the first 10 numbers of HELP_X2 are its first column)
HELP_X1 = np.array(
    [
        -0.62645381074233242, 0.18364332422208224, -0.83562861241004716,
        1.5952808021377916, 0.32950777181536051, -0.82046838411801526,
        0.48742905242848528, 0.73832470512921733, 0.57578135165349231,
        -0.30538838715635602,
    ]
)  # fmt: skip
_HELP_X2 = np.array(
    [
        1.511781168450848, 0.38984323641143109, -0.62124058054180376,
        -2.2146998871774999, 1.1249309181431082, -0.044933609015230851,
        -0.016190263098946087, 0.94383621068529922, 0.82122119509808855,
        0.59390132121750883, 0.91897737160821824, 0.7821363007310671,
        0.074564983365190601, -1.9893516958633728, 0.61982574789471023,
        -0.056128739529000785, -0.1557955067053293, -1.4707523838992744,
        -0.47815005510862035, 0.41794156019970241,
    ]
)  # fmt: skip
HELP_X2 = _HELP_X2.reshape(2, 10).T
TIES = np.array([2, 3, 3, 3, 5, 5, 7, 7, 7, 7, 10, 12], dtype=float)

# fmt: off
ABCNON = {
    "law_corr": {
        "limits": [
            0.33812297127070023, 0.44294130973860518, 0.53999021538129421,
            0.60354597131492904, 0.87093109704390015, 0.89470434461037551,
            0.9214776401171535, 0.94209583912951611
        ],
        "t0": 0.77637449128940694,
        "sighat": 0.12427625629354598,
        "bhat": -0.0046611944859442636,
        "a": -0.081676636019651819,
        "z0": -0.087971026346666661,
        "cq": -0.044215240266087551,
        "curv": 0.0067085223703189714,
        "influence": [
            -1.5064604425615857, 0.16783851243484804, 0.27291180919153391,
            0.0042023792770629065, 0.52445762253217065,
            -0.049437824529985352, -0.099621487883172488,
            0.47704929440811616, 0.31048336039091184, 0.0035154646976787163,
            -0.52598356129252011, -0.090890989690450841,
            0.43430813875089402, 0.12533500205774706, -0.047707262078311441
        ],
    },
    "help_mean": {
        "limits": [
            -0.29668648553010002, -0.2306350780628891, -0.15287111918974322,
            -0.090171575273987462, 0.37637592017406002, 0.44865309080554533,
            0.54201351316318402, 0.62474644091933007
        ],
        "t0": 0.13220278129596785,
        "sighat": 0.23417578725287344,
        "bhat": -1.1102230246251565e-10,
        "a": 0.015610781745865247,
        "z0": 0.015610770224387791,
        "cq": -1.1852453210996236e-08,
        "curv": 1.1378355082556387e-08,
        "influence": [
            -0.7586565920382482, 0.051440542926245447, -0.96783139370601456,
            1.4630780208418903, 0.19730499051948125, -0.95267116541383756,
            0.35522627113274141, 0.60612192383346919, 0.44357857035756676,
            -0.43759116845218382
        ],
    },
    "help_corr": {
        "limits": [
            -0.77844115950156023, -0.2415645514155858, 0.075594049813153014,
            0.24428236084788454, 0.83718019163707647, 0.89011818269302356,
            0.95203223108356338, 1.0021168067078881
        ],
        "t0": 0.60402732575277895,
        "sighat": 0.27805318779915228,
        "bhat": -0.07447353683742719,
        "a": 0.009930247111121452,
        "z0": 0.025360197361013109,
        "cq": -0.25253245477678038,
        "curv": -0.015306721702009252,
        "influence": [
            0.57018749273829439, -0.17365256039347798, -0.43500359251658072,
            1.9241123681207339, 0.28385982486223149, -0.052295271933400223,
            -0.014412797816887313, -1.8089069637888811,
            -0.35407150424993095, 0.060183445557138171
        ],
    },
    "spatial_var": {
        "limits": [
            106.66319134842421, 116.70544877974476, 129.03281247604218,
            139.36555950354224, 226.451668640349, 241.31077290526841,
            260.88299229069838, 278.49081852631286
        ],
        "t0": 171.53402366863907,
        "sighat": 42.452893563678884,
        "bhat": -6.5974625584885871,
        "a": 0.061240119812360196,
        "z0": 0.183282820988283,
        "cq": -0.039725587425812982,
        "curv": -0.11568107640011596,
        "influence": [
            165.04733727828125, -131.26035502963873, -78.33727810626101,
            -171.10650887559586, -19.106508875694317, -19.106508875694317,
            -78.33727810626101, -19.106508875694317, -112.95266272176718,
            -42.798816567994891, 63.970414201520498, 73.508875740031954,
            387.97041420147593, 707.81656804734894, -160.33727810673781,
            -168.79881656777229, -152.64497041411573, 486.58579881680453,
            -166.02958579838401, -139.56804733706463, 129.35502958603706,
            -42.798816567994891, -139.56804733706463, -158.18343195252282,
            -171.41420118318251, -42.798816567994891
        ],
    },
    "patch_ratio": {
        "limits": [
            -0.22205216629627059, -0.20177352506236626,
            -0.17658832125706728, -0.15517384206803039,
            0.043372977857038794, 0.081979816324829313, 0.13588906665226522,
            0.18793161948707271
        ],
        "t0": -0.071306095902560165,
        "sighat": 0.097572612385930291,
        "bhat": 0.0070996188789029802,
        "a": 0.027738775671979139,
        "z0": 0.02773878279823494,
        "cq": 0.072762421598730601,
        "curv": -6.9692876608629106e-09,
        "influence": [
            -0.094696538573746381, 0.43642939652888124,
            -0.33445152575323212, 0.40760413405682705, -0.14948458125368935,
            0.094871753098857425, -0.046672731323249561,
            -0.31359990569362894
        ],
    },
    "ties_mean": {
        "limits": [
            4.4530545629223832, 4.6717913929018735, 4.9330935173076504,
            5.1467503546804299, 6.8200364406843414, 7.0924596506997908,
            7.4496126971733219, 7.7710805966857128
        ],
        "t0": 5.9166666666666661,
        "sighat": 0.83714406477333425,
        "bhat": 8.8817841970012523e-09,
        "a": 0.02667177577587904,
        "z0": 0.026671842979141738,
        "cq": 7.6389296549243121e-08,
        "curv": -6.5779672028514913e-08,
        "influence": [
            -3.9166666666616834, -2.9166666666657903, -2.9166666666657903,
            -2.9166666666657903, -0.91666666666867513, -0.91666666666867513,
            1.0833333333337691, 1.0833333333337691, 1.0833333333337691,
            1.0833333333337691, 4.0833333333374355, 6.0833333333345507
        ],
    },
    "ties_var": {
        "limits": [
            4.3350393304712869, 4.977252766595389, 5.7846754711798418,
            6.4767634238861724, 12.755470039091625, 13.882369548590891,
            15.375232560737317, 16.715940635224602
        ],
        "t0": 8.4097222222222214,
        "sighat": 2.9559170057128292,
        "bhat": -0.7008101752248308,
        "a": 0.081788941607887453,
        "z0": 0.28450941445128841,
        "cq": -0.049146500854615173,
        "curv": -0.18794072922335792,
        "influence": [
            6.9305555555629894, 0.097222222230186617, 0.097222222230186617,
            0.097222222230186617, -7.5694444444494025, -7.5694444444494025,
            -7.2361111111192145, -7.2361111111192145, -7.2361111111192145,
            -7.2361111111192145, 8.2638888888943995, 28.597222222238372
        ],
    },
}
# fmt: on


def weighted_mean(data, weights):
    return np.sum(weights * data)


def weighted_var(data, weights):
    m = np.sum(weights * data)
    return np.sum(weights * (data - m) ** 2)


def weighted_corr(data, weights):
    m = weights @ data
    c = data - m
    cov = weights @ (c[:, 0] * c[:, 1])
    return cov / np.sqrt((weights @ c[:, 0] ** 2) * (weights @ c[:, 1] ** 2))


def weighted_ratio(data, weights):
    return (weights @ data[:, 0]) / (weights @ data[:, 1])


CASES = {
    "law_corr": (LAW, "corr", weighted_corr),
    "help_mean": (HELP_X1, "mean", weighted_mean),
    "help_corr": (HELP_X2, "corr", weighted_corr),
    "spatial_var": (SPATIAL_A, "var", weighted_var),
    "patch_ratio": (PATCH, "ratio", weighted_ratio),
    "ties_mean": (TIES, "mean", weighted_mean),
    "ties_var": (TIES, "var", weighted_var),
}
#: abcnon's alpha, as the two-sided levels whose endpoints they are
LEVELS = (0.95, 0.90, 0.80, 0.68)


def _limits(data, statistic):
    """skboot's endpoints in abcnon's order (alpha = .025, ..., .975)."""
    cis = [abc_interval(data, statistic, level=level) for level in LEVELS]
    return np.array([c.low for c in cis] + [c.high for c in cis[::-1]]), cis[0]


@pytest.mark.parametrize("form", ["builtin", "callable"])
@pytest.mark.parametrize("case", list(CASES))
def test_agrees_with_abcnon(case, form):
    data, name, func = CASES[case]
    ref = ABCNON[case]
    limits, ci = _limits(data, name if form == "builtin" else func)
    sighat = ref["sighat"]
    np.testing.assert_allclose(ci.estimate, ref["t0"], rtol=1e-12)
    np.testing.assert_allclose(ci.standard_error, sighat, rtol=1e-9)
    np.testing.assert_allclose(ci.a_hat, ref["a"], rtol=1e-9)
    influence = np.asarray(ref["influence"])
    np.testing.assert_allclose(
        ci.influence, influence, rtol=0, atol=1e-9 * np.max(np.abs(influence))
    )
    np.testing.assert_allclose(ci.bias, ref["bhat"], rtol=0, atol=1e-7 * sighat)
    for key, r_key in (("z0", "z0"), ("cq", "cq"), ("curvature", "curv")):
        np.testing.assert_allclose(getattr(ci, key), ref[r_key], rtol=0, atol=1e-6)
    np.testing.assert_allclose(limits, ref["limits"], rtol=0, atol=2e-6 * sighat)


def test_spatial_variance_is_table_14_2():
    # the 0.90 interval that abcnon gives, (116.705, 260.883), rounds to
    # Efron & Tibshirani's Table 14.2 ABC row (116.7, 260.9)
    ci = abc_interval(SPATIAL_A, "var", level=0.90)
    assert (round(ci.low, 3), round(ci.high, 3)) == (116.705, 260.883)
    assert (round(ci.low, 1), round(ci.high, 1)) == (116.7, 260.9)


@pytest.mark.parametrize("n", [2, 5, 10])
def test_second_differences_use_abcnons_step_up_to_n_10(n):
    # a larger step than abcnon's adds truncation error at small n (4e-4 at
    # n = 10 moved help_corr's bias by 5e-6 relative and its endpoints by
    # 1e-5 standard errors)
    assert second_step(0.001, n) == 0.001 / n
    assert second_step(0.001, 11) == 1e-4 and second_step(0.001, 10**5) == 1e-4
