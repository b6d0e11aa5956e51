"""Bad-input catalogue of the model-based family: ResidualBootstrap (also ARX),
SieveBootstrap, WildBootstrap, VARResidualBootstrap, ARIMAResidualBootstrap,
wild_cluster_bootstrap and its result's methods.

One table, :data:`CASES`: ``(entry point, id, call, exception, match)``.  Each
row checks, as ``tests/test_bad_inputs.py`` does for the rest of the package:

* the error is a ``ValueError`` (``NotFittedError`` is one) whose message names
  the parameter, what is allowed and what was given;
* it is raised by skboot's own code (the last traceback frame is in the package),
  not by numpy or numba deep inside a computation;
* it comes before any resampling work: the engine (``run_bootstrap``), the
  model-based kernels that generate replicates, the wild cluster bootstrap's
  replicate sums and its p-value function are replaced by a function that fails
  the test (:func:`test_forbid_work_catches_work` shows the valid calls reach
  them);
* no input is modified: every array a row uses is a module-level constant,
  compared with a saved copy after the row.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from sklearn.exceptions import NotFittedError
from work_guard import WorkStarted, forbid_work

import skboot
from skboot import (
    ResidualBootstrap,
    SieveBootstrap,
    UndefinedStatisticWarning,
    WildBootstrap,
    bootstrap,
    wild_cluster_bootstrap,
)
from skboot.model_based import (
    ARIMAResidualBootstrap,
    ParametricBootstrap,
    VARResidualBootstrap,
)

# ---------------------------------------------------------------------------
# data: module-level constants, checked unchanged after every row
# ---------------------------------------------------------------------------
_GEN = np.random.default_rng(20261201)
N = 80
SERIES = np.cumsum(_GEN.normal(size=N)) * 0.1 + _GEN.normal(size=N)
SERIES_NAN = SERIES.copy()
SERIES_NAN[7] = np.nan
SERIES_INF = SERIES.copy()
SERIES_INF[3] = np.inf
CONSTANT = np.full(N, 2.5)
PERIODIC = np.tile([1.0, -1.0], N // 2)
X = _GEN.normal(size=(N, 2))
Y = X @ np.array([1.0, -0.5]) + _GEN.normal(size=N)
Y_NAN = Y.copy()
Y_NAN[11] = np.nan
Y_INF = Y.copy()
Y_INF[0] = -np.inf
X_NAN = X.copy()
X_NAN[5, 1] = np.nan
X_HUGE = X * 1e200
X_COLLINEAR = np.column_stack([X[:, 0], 2.0 * X[:, 0]])
X_3D = np.ones((N, 2, 2))
GROUPS = np.arange(N) % 8
GROUPS_ONE = np.zeros(N)
GROUPS_NAN = np.r_[np.nan, GROUPS[1:].astype(float)]
WORDS = np.array(["a"] * N)
SERIES_HUGE = SERIES * 1e300
SERIES_TINY = SERIES * 1e-300
POSITIVE = np.abs(SERIES) + 0.5
COUNTS = np.arange(N) % 5
HALVES = COUNTS + 0.5
X_TINY = X * 1e-300
VSERIES = np.column_stack([SERIES, 0.5 * SERIES + _GEN.normal(size=N)])
VSERIES_NAN = VSERIES.copy()
VSERIES_NAN[4, 1] = np.nan
VSERIES_CONSTANT = np.column_stack([SERIES, np.full(N, 1.5)])
VSERIES_COLLINEAR = np.column_stack([SERIES, 2.0 * SERIES])
VSERIES_EXPLOSIVE = np.cumprod(np.full((N, 2), 1.05), axis=0) + _GEN.normal(size=(N, 2))

DATA = {
    name: value
    for name, value in dict(globals()).items()
    if isinstance(value, np.ndarray) and name.isupper()
}
SAVED = {name: value.copy() for name, value in DATA.items()}


@functools.cache
def _fitted_residual() -> ResidualBootstrap:
    return ResidualBootstrap(5, order=1, random_state=0).fit(SERIES)


@functools.cache
def _arima_results() -> Any:
    """A statsmodels ARIMA(1, 0, 0) fit of SERIES."""
    arima = pytest.importorskip("statsmodels.tsa.arima.model")
    return arima.ARIMA(SERIES, order=(1, 0, 0)).fit()


@functools.cache
def _fitted_parametric() -> ParametricBootstrap:
    return ParametricBootstrap(5, distribution=stats.norm, random_state=0).fit(SERIES)


def _wrong_shape(size, random_state):
    return random_state.normal(size=size + 1)


def _strings(size, random_state):
    return np.array(["a"] * size)


def _infinite(size, random_state):
    return np.full(size, np.inf)


def _no_random_state(size):
    return np.zeros(size)


def _raises(size, random_state):
    raise RuntimeError("no model today")


@functools.cache
def _wcb_result():
    return wild_cluster_bootstrap(X, Y, GROUPS, n_resamples=99, random_state=0)


@functools.cache
def _few_result():
    """10 drawn replicates (8 clusters: 2**8 > 10, nothing enumerated)."""
    return wild_cluster_bootstrap(X, Y, GROUPS, n_resamples=10, random_state=0)


@functools.cache
def _few_equal_tailed():
    return wild_cluster_bootstrap(
        X, Y, GROUPS, n_resamples=38, alternative="equal-tailed", random_state=0
    )


_WARM: tuple[Callable[[], Any], ...] = (
    _fitted_residual,
    _arima_results,
    _fitted_parametric,
    _wcb_result,
    _few_result,
    _few_equal_tailed,
)

# ---------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------
V = ValueError
CASES: list[tuple[str, str, Callable[[], Any], type[BaseException], str]] = []


def case(entry: str, id_: str, call: Callable[[], Any], exc: type, match: str) -> None:
    CASES.append((entry, id_, call, exc, match))


RB = ResidualBootstrap
SB = SieveBootstrap
WB = WildBootstrap
WCB = wild_cluster_bootstrap

# fmt: off
# -- ResidualBootstrap -----------------------------------------------------------
R = "ResidualBootstrap"
case(R, "n_resamples-0", lambda: RB(0).fit(SERIES), V, r"'n_resamples' parameter of ResidualBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(R, "n_resamples-2**32", lambda: RB(2**32).fit(SERIES), V, r"'n_resamples' parameter of ResidualBootstrap must be an int in \[1, 2\*\*32 - 1\]")
case(R, "n_resamples-float", lambda: RB(5.0).fit(SERIES), V, r"'n_resamples' parameter of ResidualBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 5.0")
case(R, "order-negative", lambda: RB(order=-1).fit(SERIES), V, r"'order' parameter of ResidualBootstrap must be an int >= 0 or one of \{'aic', 'bic', 'hqic'\}. Got -1")
case(R, "order-bool", lambda: RB(order=True).fit(SERIES), V, r"'order' parameter of ResidualBootstrap must be an int >= 0 or one of \{'aic', 'bic', 'hqic'\}. Got True")
case(R, "order-float", lambda: RB(order=1.0).fit(SERIES), V, r"'order' parameter of ResidualBootstrap .* Got 1.0")
case(R, "order-criterion", lambda: RB(order="hq").fit(SERIES), V, r"'order' parameter of ResidualBootstrap .* Got 'hq'")
case(R, "order-too-large", lambda: RB(order=40).fit(SERIES), V, r"'order' parameter of ResidualBootstrap must be at most \(n - 2\) // 2 = 39 .* Got 40")
case(R, "max_order-negative", lambda: RB(max_order=-1).fit(SERIES), V, r"'max_order' parameter of ResidualBootstrap must be an int >= 0 or None. Got -1")
case(R, "max_order-too-large", lambda: RB(max_order=1000).fit(SERIES), V, r"'max_order' parameter of ResidualBootstrap must be at most \(n - 2\) // 2 = 39 .* Got 1000")
case(R, "fit_method", lambda: RB(fit_method="burg").fit(SERIES), V, r"'fit_method' parameter of ResidualBootstrap must be one of \{'ols', 'yule_walker'\}. Got 'burg'")
case(R, "block_length-0", lambda: RB(block_length=0).fit(SERIES), V, r"'block_length' parameter of ResidualBootstrap must be an int >= 1 or None. Got 0")
case(R, "block_length-too-long", lambda: RB(order=1, block_length=500).fit(SERIES), V, r"'block_length' parameter of ResidualBootstrap must be at most the number of residuals n - p = 79. Got 500")
case(R, "burn_in-negative", lambda: RB(burn_in=-1).fit(SERIES), V, r"'burn_in' parameter of ResidualBootstrap must be an int >= 0 or 'auto'. Got -1")
case(R, "burn_in-float", lambda: RB(burn_in=2.5).fit(SERIES), V, r"'burn_in' parameter of ResidualBootstrap must be an int >= 0 or 'auto'. Got 2.5")
case(R, "burn_in-None", lambda: RB(burn_in=None).fit(SERIES), V, r"'burn_in' parameter of ResidualBootstrap must be an int >= 0 or 'auto'. Got None")
case(R, "burn_in-word", lambda: RB(burn_in="Auto").fit(SERIES), V, r"'burn_in' parameter of ResidualBootstrap must be an int >= 0 or 'auto'. Got 'Auto'")
case(R, "burn_in-2**40", lambda: RB(order=1, burn_in=2**40).fit(SERIES), V, r"'burn_in' parameter of ResidualBootstrap must be an int in \[0, 2\*\*31\] .*65,536 GiB of memory\). Got 1099511627776")
case(R, "random_state", lambda: RB(random_state=-1).fit(SERIES), V, r"'random_state' parameter of ResidualBootstrap must be None, a non-negative int")
case(R, "X-nan", lambda: RB(order=1).fit(SERIES_NAN), V, r"'X' parameter of ResidualBootstrap must hold finite values. Got 1 NaN or infinite")
case(R, "X-inf", lambda: RB(order=1).fit(SERIES_INF), V, r"'X' parameter of ResidualBootstrap must hold finite values. Got 1 NaN or infinite")
case(R, "X-constant", lambda: RB(order=1).fit(CONSTANT), V, r"'X' parameter of ResidualBootstrap must not be constant .* Got a series equal to .*2.5")
case(R, "X-huge", lambda: RB().fit(SERIES_HUGE), V, r"'X' parameter of ResidualBootstrap must have values whose squares and sums of squares are normal float64 numbers .* rescale the series")
case(R, "X-tiny", lambda: RB(order=1).fit(SERIES_TINY), V, r"'X' parameter of ResidualBootstrap must have values whose squares .* spread of .*e-30\d instead")
case(R, "X-periodic", lambda: RB(order=2).fit(PERIODIC), V, r"'X' parameter of ResidualBootstrap gives a rank-deficient AR\(2\) design")
case(R, "X-2d", lambda: RB().fit(X), V, r"'X' parameter of ResidualBootstrap must be a 1-D series .* Got shape \(80, 2\)")
case(R, "X-strings", lambda: RB().fit(WORDS), V, r"'X' parameter of ResidualBootstrap must contain real numbers. Got dtype <U1 instead")
case(R, "X-one-value", lambda: RB().fit(SERIES[:1]), V, r"'X' parameter of ResidualBootstrap must have at least 2 samples. Got 1")
case(R, "arx-burn_in", lambda: RB(order=1, burn_in=100).fit(SERIES, Y), V, r"'burn_in' parameter of ResidualBootstrap must be 'auto' or 0 when y is given \(an ARX model: .*\). Got 100 instead")
case(R, "arx-fit_method", lambda: RB(order=1, burn_in=0, fit_method="yule_walker").fit(X, Y), V, r"'fit_method' parameter of ResidualBootstrap must be 'ols' when y is given .* Got 'yule_walker' instead")
case(R, "arx-y-constant", lambda: RB(order=1, burn_in=0).fit(X, CONSTANT), V, r"'y' parameter of ResidualBootstrap must not be constant .* Got a series equal to .*2.5")
case(R, "arx-y-nan", lambda: RB(order=1, burn_in=0).fit(X, Y_NAN), V, r"'y' parameter of ResidualBootstrap must contain only finite values. Got 1 NaN or infinite")
case(R, "arx-y-2d", lambda: RB(order=1, burn_in=0).fit(X, X), V, r"'y' parameter of ResidualBootstrap must be 1-D. Got an array of shape \(80, 2\)")
case(R, "arx-y-short", lambda: RB(order=1, burn_in=0).fit(X, Y[:70]), V, r"'y' parameter of ResidualBootstrap .*80.* Got 70")
case(R, "arx-X-nan", lambda: RB(order=1, burn_in=0).fit(X_NAN, Y), V, r"'X' parameter of ResidualBootstrap must contain only finite values. Got 1 NaN or infinite")
case(R, "arx-X-collinear", lambda: RB(order=1, burn_in=0).fit(X_COLLINEAR, Y), V, r"'X' parameter of ResidualBootstrap gives a rank-deficient ARX\(1\) design \(rank 3 < 4 columns")
case(R, "arx-order-too-large", lambda: RB(order=39, burn_in=0).fit(X, Y), V, r"'order' parameter of ResidualBootstrap must be at most \(n - 2 - k\) // 2 = 38 for 80 values and 2 regressors .* Got 39")
case(R, "arx-block_length", lambda: RB(order=1, burn_in=0, block_length=80).fit(X, Y), V, r"'block_length' parameter of ResidualBootstrap must be at most the number of residuals n - p = 79. Got 80")
case(R, "arx-builtin", lambda: bootstrap(X, "mean", y=Y, resampler=RB(5, order=1, burn_in=0)), V, r"'statistic' parameter of bootstrap must be a callable statistic\(X, y\) when ResidualBootstrap resamples a regression")
case(R, "arx-sieve", lambda: SB().fit(X, Y), V, r"'y' parameter of SieveBootstrap must be None: the sieve is fitted by Yule-Walker, which has no exogenous regressors")
case(R, "groups-given", lambda: bootstrap(SERIES, "mean", groups=GROUPS, resampler=RB(5, order=1)), V, r"'groups' parameter of ResidualBootstrap must be None")
case(R, "split", lambda: RB().split(SERIES), V, r"ResidualBootstrap generates synthetic samples .* cannot be a scikit-learn splitter")
case(R, "sample-unfitted", lambda: RB(5).sample(0), NotFittedError, r"This ResidualBootstrap instance is not fitted yet")
case(R, "replicate-b-range", lambda: _fitted_residual().replicate(5), V, r"'b' parameter of ResidualBootstrap.replicate must be an int in \[0, 4\]. Got 5")
case(R, "replicate-b-float", lambda: _fitted_residual().sample(1.0), V, r"'b' parameter of ResidualBootstrap.replicate must be an int in \[0, 4\]. Got 1.0")
case(R, "iter_samples-chunk", lambda: _fitted_residual().iter_samples(chunk_size=0), V, r"'chunk_size' parameter of ResidualBootstrap.iter_samples must be an int >= 1. Got 0")
case(R, "statistic-unknown", lambda: bootstrap(SERIES, "mode", resampler=RB(5, order=1)), V, r"'statistic' parameter of bootstrap must be a callable or one of \{'mean'.* with ResidualBootstrap .* Got 'mode'")
case(R, "statistic-kwargs", lambda: bootstrap(SERIES, "mean", statistic_kwargs={"ddof": 1}, resampler=RB(5, order=1)), V, r"'statistic_kwargs' parameter of bootstrap accepts no keys for statistic 'mean'. Got \['ddof'\]")
case(R, "quantile-q", lambda: bootstrap(SERIES, "quantile", statistic_kwargs={"q": 2.0}, resampler=RB(5, order=1)), V, r"'q' statistic keyword of bootstrap must be a float or 1-D array of floats in \[0, 1\]. Got 2.0")
case(R, "ddof-too-large", lambda: bootstrap(SERIES, "var", statistic_kwargs={"ddof": 80}, resampler=RB(5, order=1)), V, r"'ddof' parameter of bootstrap \(statistic_kwargs\) must be an int in \[0, 79\]. Got 80")
case(R, "min_order-negative", lambda: RB(min_order=-1).fit(SERIES), V, r"'min_order' parameter of ResidualBootstrap must be an int >= 0. Got -1")
case(R, "min_order-int-order", lambda: RB(order=2, min_order=1).fit(SERIES), V, r"'min_order' parameter of ResidualBootstrap must be 0 when order is an int .* Got 1 with order=2")
case(R, "min_order-above-max", lambda: RB(min_order=5, max_order=3).fit(SERIES), V, r"'min_order' parameter of ResidualBootstrap must be at most max_order \(3\). Got 5")
case(R, "min_order-above-default", lambda: RB(min_order=30).fit(SERIES), V, r"'min_order' parameter of ResidualBootstrap must be at most max_order \(19 by default\). Got 30")
case(R, "values-stack", lambda: _fitted_residual().values(stack=1), V, r"'stack' parameter of ResidualBootstrap.values must be True or False. Got 1")
case(R, "values-not-fitted", lambda: RB(5, order=1).values(), NotFittedError, r"not fitted yet. Call 'fit\(X, y\)' before values\(\)")
# -- SieveBootstrap ----------------------------------------------------------------
S = "SieveBootstrap"
case(S, "order", lambda: SB(order="hq").fit(SERIES), V, r"'order' parameter of SieveBootstrap must be one of \{'aic', 'bic', 'hqic'\}. Got 'hq'")
case(S, "max_order-negative", lambda: SB(max_order=-1).fit(SERIES), V, r"'max_order' parameter of SieveBootstrap must be an int >= 0 or None. Got -1")
case(S, "burn_in-negative", lambda: SB(burn_in=-3).fit(SERIES), V, r"'burn_in' parameter of SieveBootstrap must be an int >= 0 or 'auto'. Got -3")
case(S, "burn_in-2**40", lambda: SB(burn_in=2**40).fit(SERIES), V, r"'burn_in' parameter of SieveBootstrap must be an int in \[0, 2\*\*31\]")
case(S, "block_length-0", lambda: SB(block_length=0).fit(SERIES), V, r"'block_length' parameter of SieveBootstrap must be an int >= 1 or None. Got 0")
case(S, "X-nan", lambda: SB().fit(SERIES_NAN), V, r"'X' parameter of SieveBootstrap must hold finite values")
case(S, "X-huge", lambda: SB().fit(SERIES_HUGE), V, r"'X' parameter of SieveBootstrap must have values whose squares")
case(S, "y-given", lambda: SB().fit(SERIES, Y), V, r"'y' parameter of SieveBootstrap must be None")
# -- VARResidualBootstrap ------------------------------------------------------------
VR = "VARResidualBootstrap"
VB = VARResidualBootstrap
case(VR, "n_resamples-0", lambda: VB(0).fit(VSERIES), V, r"'n_resamples' parameter of VARResidualBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(VR, "order-negative", lambda: VB(order=-1).fit(VSERIES), V, r"'order' parameter of VARResidualBootstrap must be an int >= 0 or one of \{'aic', 'bic', 'hqic'\}. Got -1")
case(VR, "order-criterion", lambda: VB(order="fpe").fit(VSERIES), V, r"'order' parameter of VARResidualBootstrap .* Got 'fpe'")
case(VR, "order-too-large", lambda: VB(order=30).fit(VSERIES), V, r"'order' parameter of VARResidualBootstrap must be at most \(n - 2\) // \(m \+ 1\) = 26 for 80 rows of 2 series .* Got 30")
case(VR, "max_order-too-large", lambda: VB(max_order=27).fit(VSERIES), V, r"'max_order' parameter of VARResidualBootstrap must be at most \(n - 2\) // \(m \+ 1\) = 26 .* Got 27")
case(VR, "min_order-negative", lambda: VB(min_order=-2).fit(VSERIES), V, r"'min_order' parameter of VARResidualBootstrap must be an int >= 0. Got -2")
case(VR, "min_order-int-order", lambda: VB(order=1, min_order=1).fit(VSERIES), V, r"'min_order' parameter of VARResidualBootstrap must be 0 when order is an int")
case(VR, "min_order-above-max", lambda: VB(min_order=4, max_order=2).fit(VSERIES), V, r"'min_order' parameter of VARResidualBootstrap must be at most max_order \(2\). Got 4")
case(VR, "block_length-0", lambda: VB(block_length=0).fit(VSERIES), V, r"'block_length' parameter of VARResidualBootstrap must be an int >= 1 or None. Got 0")
case(VR, "block_length-too-long", lambda: VB(order=1, block_length=80).fit(VSERIES), V, r"'block_length' parameter of VARResidualBootstrap must be at most the number of residual rows n - p = 79. Got 80")
case(VR, "burn_in-negative", lambda: VB(burn_in=-1).fit(VSERIES), V, r"'burn_in' parameter of VARResidualBootstrap must be an int in \[0, 2\*\*31\] or 'auto'. Got -1")
case(VR, "burn_in-2**40", lambda: VB(burn_in=2**40).fit(VSERIES), V, r"'burn_in' parameter of VARResidualBootstrap must be an int in \[0, 2\*\*31\] or 'auto'. Got 1099511627776")
case(VR, "X-1d", lambda: VB(order=1).fit(SERIES), V, r"'X' parameter of VARResidualBootstrap must be 2-D. Got an array of shape \(80,\)")
case(VR, "X-one-column", lambda: VB(order=1).fit(SERIES[:, None]), V, r"'X' parameter of VARResidualBootstrap must have at least 2 columns .* use ResidualBootstrap\). Got shape \(80, 1\)")
case(VR, "X-nan", lambda: VB(order=1).fit(VSERIES_NAN), V, r"'X' parameter of VARResidualBootstrap must hold finite values. Got 1 NaN")
case(VR, "X-constant-column", lambda: VB(order=1).fit(VSERIES_CONSTANT), V, r"'X' parameter of VARResidualBootstrap must not have a constant column .* Got constant column\(s\) \[1\]")
case(VR, "X-collinear", lambda: VB(order=1).fit(VSERIES_COLLINEAR), V, r"'X' parameter of VARResidualBootstrap gives a rank-deficient VAR\(1\) design")
case(VR, "X-unstable", lambda: VB(order=1).fit(VSERIES_EXPLOSIVE), V, r"'X' parameter of VARResidualBootstrap gives an unstable VAR\(1\) fit: .* modulus 1\.0\d+ >= 1")
case(VR, "varx-y-1d", lambda: VB(order=1).fit(X, SERIES), V, r"'y' parameter of VARResidualBootstrap must be 2-D. Got an array of shape \(80,\)")
case(VR, "varx-y-one-column", lambda: VB(order=1).fit(X, SERIES[:, None]), V, r"'y' parameter of VARResidualBootstrap must have at least 2 columns .* an ARX model: use ResidualBootstrap\). Got shape \(80, 1\)")
case(VR, "varx-y-nan", lambda: VB(order=1).fit(X, VSERIES_NAN), V, r"'y' parameter of VARResidualBootstrap must contain only finite values. Got 1 NaN")
case(VR, "varx-y-constant-column", lambda: VB(order=1).fit(X, VSERIES_CONSTANT), V, r"'y' parameter of VARResidualBootstrap must not have a constant column .* Got constant column\(s\) \[1\]")
case(VR, "varx-burn_in", lambda: VB(order=1, burn_in=5).fit(X, VSERIES), V, r"'burn_in' parameter of VARResidualBootstrap must be 'auto' or 0 when y is given \(a VARX model: .*\). Got 5 instead")
case(VR, "varx-X-nan", lambda: VB(order=1).fit(X_NAN, VSERIES), V, r"'X' parameter of VARResidualBootstrap must contain only finite values. Got 1 NaN")
case(VR, "varx-X-collinear", lambda: VB(order=1).fit(X_COLLINEAR, VSERIES), V, r"'X' parameter of VARResidualBootstrap gives a rank-deficient VARX\(1\) design \(rank 4 < 5 columns")
case(VR, "varx-X-short", lambda: VB(order=1).fit(X[:70], VSERIES), V, r"'y' parameter of VARResidualBootstrap must have one entry per sample of X \(70\). Got 80 instead")
case(VR, "varx-order-too-large", lambda: VB(order=26).fit(X, VSERIES), V, r"'order' parameter of VARResidualBootstrap must be at most \(n - 2 - k\) // \(m \+ 1\) = 25 for 80 rows of 2 series and 2 regressors .* Got 26")
case(VR, "varx-block_length", lambda: VB(order=1, block_length=80).fit(X, VSERIES), V, r"'block_length' parameter of VARResidualBootstrap must be at most the number of residual rows n - p = 79. Got 80")
case(VR, "varx-builtin", lambda: bootstrap(X, "mean", y=VSERIES, resampler=VB(5, order=1)), V, r"'statistic' parameter of bootstrap must be a callable statistic\(X, y\) when VARResidualBootstrap resamples a regression")
case(VR, "groups", lambda: VB(order=1).fit(VSERIES, groups=GROUPS), V, r"'groups' parameter of VARResidualBootstrap must be None")
case(VR, "split", lambda: VB(order=1).split(VSERIES), V, r"VARResidualBootstrap generates synthetic samples .* no \(train, test\)")
case(VR, "statistic-unknown", lambda: bootstrap(VSERIES, "corr", resampler=VB(5, order=1)), V, r"'statistic' parameter of bootstrap must be a callable or one of \{'mean'.* with VARResidualBootstrap .* Got 'corr'")
case(VR, "replicate-b", lambda: VB(5, order=1, random_state=0).fit(VSERIES).replicate(5), V, r"'b' parameter of VARResidualBootstrap.replicate must be an int in \[0, 4\]. Got 5")
# -- WildBootstrap -------------------------------------------------------------------
W = "WildBootstrap"
case(W, "weights", lambda: WB(weights="gamma").fit(X, Y), V, r"'weights' parameter of WildBootstrap must be one of \{'rademacher', 'mammen', 'webb', 'normal'\}. Got 'gamma'")
case(W, "block_length-0", lambda: WB(block_length=0).fit(X, Y), V, r"'block_length' parameter of WildBootstrap must be an int >= 1 or None. Got 0")
case(W, "fit_intercept", lambda: WB(fit_intercept="yes").fit(X, Y), V, r"'fit_intercept' parameter of WildBootstrap must be True or False. Got 'yes'")
case(W, "order", lambda: WB(order=-2).fit(SERIES), V, r"'order' parameter of WildBootstrap must be an int >= 0 or one of \{'aic', 'bic', 'hqic'\}. Got -2")
case(W, "groups-without-y", lambda: WB().fit(SERIES, None, GROUPS), V, r"'groups' parameter of WildBootstrap is for a regression \(y given\)")
case(W, "block_length-with-groups", lambda: WB(block_length=2).fit(X, Y, GROUPS), V, r"'block_length' parameter of WildBootstrap must be None when groups are given .* Got 2")
case(W, "block_length-too-long", lambda: WB(block_length=100).fit(X, Y), V, r"'block_length' parameter of WildBootstrap must be at most the number of rows 80. Got 100")
case(W, "block_length-series", lambda: WB(order=1, block_length=1000).fit(SERIES), V, r"'block_length' parameter of WildBootstrap must be at most the number of residuals n - p = 79")
case(W, "y-nan", lambda: WB().fit(X, Y_NAN), V, r"'y' parameter of WildBootstrap must contain only finite values. Got 1 NaN or infinite")
case(W, "y-inf", lambda: WB().fit(X, Y_INF), V, r"'y' parameter of WildBootstrap must contain only finite values. Got 1 NaN or infinite")
case(W, "X-nan", lambda: WB().fit(X_NAN, Y), V, r"'X' parameter of WildBootstrap must contain only finite values. Got 1 NaN or infinite")
case(W, "X-3d", lambda: WB().fit(X_3D, Y), V, r"'X' parameter of WildBootstrap must be 1-D or 2-D. Got an array of shape \(80, 2, 2\)")
case(W, "y-2d", lambda: WB().fit(X, X), V, r"'y' parameter of WildBootstrap must be 1-D. Got an array of shape \(80, 2\)")
case(W, "y-strings", lambda: WB().fit(X, WORDS), V, r"'y' parameter of WildBootstrap must contain real numbers. Got dtype <U1")
case(W, "y-short", lambda: WB().fit(X, Y[:70]), V, r"'y' parameter of WildBootstrap must have one entry per sample of X \(80\). Got 70")
case(W, "singular", lambda: WB().fit(X_COLLINEAR, Y), V, r"'X' parameter of WildBootstrap gives a singular design \(rank 2 < 3 columns with the intercept\)")
case(W, "more-columns-than-rows", lambda: WB().fit(X[:2], Y[:2]), V, r"'X' parameter of WildBootstrap must have more rows than regressors \(3 with the intercept\). Got 2 rows")
case(W, "one-cluster", lambda: WB().fit(X, Y, GROUPS_ONE), V, r"'groups' parameter of WildBootstrap must have at least 2 clusters .* Got 1 cluster")
case(W, "groups-nan", lambda: WB().fit(X, Y, GROUPS_NAN), V, r"'groups' parameter of WildBootstrap must not contain NaN. Got 1 NaN label")
case(W, "series-tiny", lambda: WB().fit(SERIES_TINY), V, r"'X' parameter of WildBootstrap must have values whose squares")
case(W, "X-huge", lambda: WB().fit(X_HUGE, Y), V, r"'X' parameter of WildBootstrap gives a singular design .* or their scales differ too much for float64")
case(W, "series-constant", lambda: WB().fit(CONSTANT), V, r"'X' parameter of WildBootstrap must not be constant")
case(W, "builtin-statistic-regression", lambda: bootstrap(X, "mean", y=Y, resampler=WB(5)), V, r"'statistic' parameter of bootstrap must be a callable statistic\(X, y\) when WildBootstrap resamples a regression")
case(W, "split", lambda: WB().split(X, Y), V, r"WildBootstrap generates synthetic samples .* cannot be a scikit-learn splitter")
# -- ParametricBootstrap -------------------------------------------------------------
PA = "ParametricBootstrap"
PB = ParametricBootstrap
case(PA, "distribution-int", lambda: PB(distribution=3).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must be a scipy.stats distribution \(frozen or not\), a sampler callable\(size=, random_state=\) or 'empirical'. Got 3")
case(PA, "distribution-name", lambda: PB(distribution="norm").fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must be a scipy.stats distribution .* Got 'norm'")
case(PA, "n_resamples-0", lambda: PB(0, distribution=stats.norm).fit(SERIES), V, r"'n_resamples' parameter of ParametricBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(PA, "fit_kwargs-list", lambda: PB(distribution=stats.norm, fit_kwargs=["floc"]).fit(SERIES), V, r"'fit_kwargs' parameter of ParametricBootstrap must be a dict or None. Got \['floc'\]")
case(PA, "fit_kwargs-frozen", lambda: PB(distribution=stats.norm(0, 1), fit_kwargs={"floc": 0}).fit(SERIES), V, r"'fit_kwargs' parameter of ParametricBootstrap is for an unfrozen scipy.stats distribution.* Got \{'floc': 0\}")
case(PA, "fit_kwargs-unknown", lambda: PB(distribution=stats.norm, fit_kwargs={"fshape": 1}).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap could not be fitted to data by maximum likelihood: scipy.stats.norm raised")
case(PA, "fit_kwargs-empirical", lambda: PB(distribution="empirical", fit_kwargs={"floc": 0}).fit(X, Y), V, r"'fit_kwargs' parameter of ParametricBootstrap is for an unfrozen scipy.stats distribution; 'empirical' fits nothing. Got \{'floc': 0\}")
case(PA, "fit_intercept", lambda: PB(distribution=stats.norm, fit_intercept="yes").fit(X, Y), V, r"'fit_intercept' parameter of ParametricBootstrap must be True or False. Got 'yes'")
case(PA, "fit-fails", lambda: PB(distribution=stats.expon, fit_kwargs={"floc": 0}).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap could not be fitted to data by maximum likelihood: scipy.stats.expon raised FitDataError")
case(PA, "discrete-fit-needs-bounds", lambda: PB(distribution=stats.nbinom).fit(COUNTS), V, r"'distribution' parameter of ParametricBootstrap could not be fitted to data .*scipy.stats.nbinom raised .*bounds")
case(PA, "frozen-support", lambda: PB(distribution=stats.expon(scale=2)).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must be able to produce the data: scipy.stats.expon takes values in \[0, inf\]. Got \d+ value\(s\) of the data outside it")
case(PA, "poisson-not-integers", lambda: PB(distribution=stats.poisson).fit(HALVES), V, r"'distribution' parameter of ParametricBootstrap must be able to produce the data: scipy.stats.poisson takes values in the integers in \[0, inf\]. Got 80 value\(s\)")
case(PA, "geom-zero", lambda: PB(distribution=stats.geom).fit(COUNTS), V, r"scipy.stats.geom takes values in the integers in \[1, inf\]. Got 16 value\(s\) of the data outside it \(the first, at position 0: 0.0\)")
case(PA, "bernoulli-out-of-range", lambda: PB(distribution=stats.bernoulli).fit(COUNTS), V, r"scipy.stats.bernoulli takes values in the integers in \[0, 1\]")
case(PA, "frozen-invalid", lambda: PB(distribution=stats.norm(0, -1)).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must have valid parameters. Got scipy.stats.norm with \{'loc': 0.0, 'scale': -1.0\}")
case(PA, "residual-support", lambda: PB(distribution=stats.expon(scale=1)).fit(X, Y), V, r"must be able to produce the residuals: scipy.stats.expon takes values in \[0, inf\]")
case(PA, "sampler-shape", lambda: PB(distribution=_wrong_shape).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must draw n real numbers per call: The sampler must return 80 real numbers \(shape \(80,\)\) for size=80; on replicate 0 it returned float64 values of shape \(81,\)")
case(PA, "sampler-strings", lambda: PB(distribution=_strings).fit(SERIES), V, r"must draw n real numbers per call: .* returned <U1 values of shape \(80,\)")
case(PA, "sampler-inf", lambda: PB(distribution=_infinite).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must draw finite values: replicate 0 of the sampler holds 80 non-finite value\(s\)")
case(PA, "sampler-raises", lambda: PB(distribution=_raises).fit(SERIES), V, r"must draw n real numbers per call: The sampler raised on replicate 0: RuntimeError\('no model today'\)")
case(PA, "sampler-keywords", lambda: PB(distribution=_no_random_state).fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must be a sampler that accepts the keywords size= and random_state= .* Got _no_random_state\(size\)")
case(PA, "empirical-without-y", lambda: PB(distribution="empirical").fit(SERIES), V, r"'distribution' parameter of ParametricBootstrap must be a distribution or a sampler without y: 'empirical' resamples the residuals of a regression")
case(PA, "X-2d", lambda: PB(distribution=stats.norm).fit(X), V, r"'X' parameter of ParametricBootstrap must be one sample \(1-D\) without y.* Got shape \(80, 2\)")
case(PA, "X-nan", lambda: PB(distribution=stats.norm).fit(SERIES_NAN), V, r"'X' parameter of ParametricBootstrap must .*finite")
case(PA, "X-strings", lambda: PB(distribution=stats.norm).fit(WORDS), V, r"'X' parameter of ParametricBootstrap must contain real numbers")
case(PA, "y-nan", lambda: PB(distribution="empirical").fit(X, Y_NAN), V, r"'y' parameter of ParametricBootstrap must contain only finite values")
case(PA, "singular", lambda: PB(distribution=stats.norm).fit(X_COLLINEAR, Y), V, r"'X' parameter of ParametricBootstrap gives a singular design")
case(PA, "groups", lambda: PB(distribution=stats.norm).fit(X, Y, GROUPS), V, r"'groups' parameter of ParametricBootstrap must be None: every row \(or error\) is drawn independently. Got ndarray")
case(PA, "builtin-regression", lambda: bootstrap(X, "mean", y=Y, resampler=PB(5, distribution=stats.norm)), V, r"'statistic' parameter of bootstrap must be a callable statistic\(X, y\) when ParametricBootstrap resamples a regression")
case(PA, "split", lambda: PB(distribution=stats.norm).split(SERIES), V, r"ParametricBootstrap generates synthetic samples .* cannot be a scikit-learn splitter")
case(PA, "generator-unfitted", lambda: PB(5, distribution=stats.norm).generator(0), NotFittedError, r"This ParametricBootstrap instance is not fitted yet. Call 'fit\(X, y\)' before generator\(b\)")
case(PA, "generator-b-range", lambda: _fitted_parametric().generator(5), V, r"'b' parameter of ParametricBootstrap.generator must be an int in \[0, 4\]. Got 5")
case(PA, "sample-b-range", lambda: _fitted_parametric().sample(-1), V, r"'b' parameter of ParametricBootstrap.replicate must be an int in \[0, 4\]. Got -1")
# -- ARIMAResidualBootstrap ---------------------------------------------------------
A = "ARIMAResidualBootstrap"
AB = ARIMAResidualBootstrap
case(A, "n_resamples-0", lambda: AB(0, order=(1, 0, 0)).fit(SERIES), V, r"'n_resamples' parameter of ARIMAResidualBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(A, "order-None", lambda: AB(5).fit(SERIES), V, r"'order' parameter of ARIMAResidualBootstrap must be a tuple \(p, d, q\) of ints >= 0 when X is data \(None takes the orders of fitted statsmodels results given as X\). Got None")
case(A, "order-short", lambda: AB(order=(1, 1)).fit(SERIES), V, r"'order' parameter of ARIMAResidualBootstrap must be a tuple \(p, d, q\) of ints >= 0 or None. Got \(1, 1\)")
case(A, "order-negative", lambda: AB(order=(1, -1, 0)).fit(SERIES), V, r"'order' parameter of ARIMAResidualBootstrap must be a tuple \(p, d, q\) .* Got \(1, -1, 0\)")
case(A, "order-int", lambda: AB(order=1).fit(SERIES), V, r"'order' parameter of ARIMAResidualBootstrap must be a tuple \(p, d, q\) .* Got 1")
case(A, "seasonal_order-period-1", lambda: AB(order=(1, 0, 0), seasonal_order=(1, 0, 0, 1)).fit(SERIES), V, r"'seasonal_order' parameter of ARIMAResidualBootstrap must be a tuple \(P, D, Q, s\) of ints >= 0 with a period s >= 2 \(or \(0, 0, 0, 0\)\) or None. Got \(1, 0, 0, 1\)")
case(A, "trend", lambda: AB(order=(1, 0, 0), trend="linear").fit(SERIES), V, r"'trend' parameter of ARIMAResidualBootstrap must be one of \{'n', 'c', 't', 'ct'\} or None. Got 'linear'")
case(A, "weights", lambda: AB(order=(1, 0, 0), weights="gaussian").fit(SERIES), V, r"'weights' parameter of ARIMAResidualBootstrap must be one of \{'rademacher', 'mammen', 'webb', 'normal'\} or None. Got 'gaussian'")
case(A, "weights-block_length-too-long", lambda: AB(order=(1, 1, 0), weights="normal", block_length=79).fit(SERIES), V, r"'block_length' parameter of ARIMAResidualBootstrap must be at most the number of residuals 78. Got 79")
case(A, "block_length-0", lambda: AB(order=(1, 0, 0), block_length=0).fit(SERIES), V, r"'block_length' parameter of ARIMAResidualBootstrap must be an int >= 1 or None. Got 0")
case(A, "block_length-too-long", lambda: AB(order=(1, 1, 0), block_length=79).fit(SERIES), V, r"'block_length' parameter of ARIMAResidualBootstrap must be at most the number of residuals 78. Got 79")
case(A, "X-2d", lambda: AB(order=(1, 0, 0)).fit(X), V, r"'X' parameter of ARIMAResidualBootstrap must be one series \(n,\) when y is None .* Got shape \(80, 2\)")
case(A, "X-nan", lambda: AB(order=(1, 0, 0)).fit(SERIES_NAN), V, r"'X' parameter of ARIMAResidualBootstrap must contain only finite values. Got 1 NaN or infinite")
case(A, "X-strings", lambda: AB(order=(1, 0, 0)).fit(WORDS), V, r"'X' parameter of ARIMAResidualBootstrap must contain real numbers")
case(A, "y-nan", lambda: AB(order=(1, 0, 0)).fit(X, Y_NAN), V, r"'y' parameter of ARIMAResidualBootstrap must contain only finite values. Got 1 NaN or infinite")
case(A, "groups-given", lambda: bootstrap(SERIES, "mean", groups=GROUPS, resampler=AB(5, order=(1, 0, 0))), V, r"'groups' parameter of ARIMAResidualBootstrap must be None")
case(A, "results-and-y", lambda: AB(5).fit(_arima_results(), Y), V, r"'y' parameter of ARIMAResidualBootstrap must be None when X is fitted statsmodels results")
case(A, "results-other-order", lambda: AB(5, order=(2, 0, 0)).fit(_arima_results()), V, r"'order' parameter of ARIMAResidualBootstrap must be None or the fitted results' own \(1, 0, 0\) when X is fitted statsmodels results. Got \(2, 0, 0\)")
case(A, "results-other-trend", lambda: AB(5, trend="n").fit(_arima_results()), V, r"'trend' parameter of ARIMAResidualBootstrap must be None or the fitted results' own 'c' .* Got 'n'")
case(A, "split", lambda: AB(order=(1, 0, 0)).split(SERIES), V, r"ARIMAResidualBootstrap generates synthetic samples .* cannot be a scikit-learn splitter")
case(A, "sample-unfitted", lambda: AB(5).sample(0), NotFittedError, r"This ARIMAResidualBootstrap instance is not fitted yet")
# -- wild_cluster_bootstrap ---------------------------------------------------------
C = "wild_cluster_bootstrap"
case(C, "weights", lambda: WCB(X, Y, GROUPS, weights="gamma"), V, r"'weights' parameter of wild_cluster_bootstrap must be one of \{'rademacher', 'mammen', 'webb', 'normal'\}. Got 'gamma'")
case(C, "alternative", lambda: WCB(X, Y, GROUPS, alternative="both"), V, r"'alternative' parameter of wild_cluster_bootstrap must be one of \{'two-sided', 'less', 'greater', 'equal-tailed'\}. Got 'both'")
case(C, "n_resamples-0", lambda: WCB(X, Y, GROUPS, n_resamples=0), V, r"'n_resamples' parameter of wild_cluster_bootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(C, "n_resamples-float", lambda: WCB(X, Y, GROUPS, n_resamples=99.0), V, r"'n_resamples' parameter of wild_cluster_bootstrap must be an int .* Got 99.0")
case(C, "level-1", lambda: WCB(X, Y, GROUPS, level=1.0), V, r"'level' parameter of wild_cluster_bootstrap must be a float in \(0, 1\). Got 1.0")
case(C, "level-str", lambda: WCB(X, Y, GROUPS, level="0.9"), V, r"'level' parameter of wild_cluster_bootstrap must be a float in \(0, 1\). Got '0.9'")
case(C, "null-nan", lambda: WCB(X, Y, GROUPS, null=np.nan), V, r"'null' parameter of wild_cluster_bootstrap must be a finite float. Got nan")
case(C, "null-str", lambda: WCB(X, Y, GROUPS, null="0"), V, r"'null' parameter of wild_cluster_bootstrap must be a finite float. Got '0'")
case(C, "impose_null", lambda: WCB(X, Y, GROUPS, impose_null="yes"), V, r"'impose_null' parameter of wild_cluster_bootstrap must be True or False. Got 'yes'")
case(C, "fit_intercept", lambda: WCB(X, Y, GROUPS, fit_intercept=1), V, r"'fit_intercept' parameter of wild_cluster_bootstrap must be True or False. Got 1")
case(C, "coef-range", lambda: WCB(X, Y, GROUPS, coef=2), V, r"'coef' parameter of wild_cluster_bootstrap must be an int in \[0, 1\]. Got 2")
case(C, "coef-negative", lambda: WCB(X, Y, GROUPS, coef=-1), V, r"'coef' parameter of wild_cluster_bootstrap must be an int in \[0, 1\]. Got -1")
case(C, "coef-zero-weights", lambda: WCB(X, Y, GROUPS, coef=[0.0, 0.0]), V, r"'coef' parameter of wild_cluster_bootstrap must be a column index in \[0, 1\] or a non-zero 1-D array of 2 finite weights")
case(C, "coef-nan-weights", lambda: WCB(X, Y, GROUPS, coef=[np.nan, 1.0]), V, r"'coef' parameter .* Got \[nan, 1.0\]")
case(C, "coef-float", lambda: WCB(X, Y, GROUPS, coef=1.0), V, r"'coef' parameter .* Got 1.0")
case(C, "random_state", lambda: WCB(X, Y, GROUPS, random_state="x"), V, r"'random_state' parameter of wild_cluster_bootstrap must be None, a non-negative int")
case(C, "X-nan", lambda: WCB(X_NAN, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap must contain only finite values. Got 1 NaN or infinite")
case(C, "X-huge", lambda: WCB(X_HUGE, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap must have values whose squares sum to a finite float64 \(X'X overflows\)")
case(C, "X-tiny", lambda: WCB(X_TINY, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap must have columns whose squares are normal float64 numbers \(X'X underflows\). Got column\(s\) \[0, 1\]")
case(C, "X-3d", lambda: WCB(X_3D, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap must be 1-D or 2-D. Got an array of shape \(80, 2, 2\)")
case(C, "X-strings", lambda: WCB(WORDS, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap must contain real numbers. Got dtype <U1")
case(C, "X-empty", lambda: WCB(X[:0], Y[:0], GROUPS[:0]), V, r"'X' parameter of wild_cluster_bootstrap must have at least one row and one column. Got shape \(0, 2\)")
case(C, "X-singular", lambda: WCB(X_COLLINEAR, Y, GROUPS), V, r"'X' parameter of wild_cluster_bootstrap gives a singular design \(3 columns with the intercept, numerical rank below 3\)")
case(C, "X-more-columns-than-rows", lambda: WCB(X[:3], Y[:3], [0, 1, 1]), V, r"'X' parameter of wild_cluster_bootstrap must have more rows than regressors \(3 with the intercept\). Got 3 rows")
case(C, "y-nan", lambda: WCB(X, Y_NAN, GROUPS), V, r"'y' parameter of wild_cluster_bootstrap must contain only finite values. Got 1 NaN or infinite")
case(C, "y-inf", lambda: WCB(X, Y_INF, GROUPS), V, r"'y' parameter of wild_cluster_bootstrap must contain only finite values. Got 1 NaN or infinite")
case(C, "y-short", lambda: WCB(X, Y[:70], GROUPS), V, r"'y' parameter of wild_cluster_bootstrap must be 1-D with one value per row of X \(80\). Got shape \(70,\)")
case(C, "y-strings", lambda: WCB(X, WORDS, GROUPS), V, r"'y' parameter of wild_cluster_bootstrap must contain real numbers. Got dtype <U1")
case(C, "groups-one-cluster", lambda: WCB(X, Y, GROUPS_ONE), V, r"'groups' parameter of wild_cluster_bootstrap must have at least 2 clusters .* Got 1 cluster")
case(C, "groups-nan", lambda: WCB(X, Y, GROUPS_NAN), V, r"'groups' parameter of wild_cluster_bootstrap must not contain NaN")
case(C, "groups-short", lambda: WCB(X, Y, GROUPS[:70]), V, r"'groups' parameter of wild_cluster_bootstrap must have one label per sample \(80\). Got 70")
case(C, "groups-None", lambda: WCB(X, Y, None), V, r"'groups' parameter of wild_cluster_bootstrap must be cluster labels of shape \(n,\) or \(n, n_ways\)")
case(C, "groups-2d-one-cluster", lambda: WCB(X, Y, np.column_stack([GROUPS, GROUPS_ONE])), V, r"'groups' parameter of wild_cluster_bootstrap must have at least 2 clusters .* Got 1 cluster")
case(C, "small_sample", lambda: WCB(X, Y, GROUPS, small_sample="stata"), V, r"'small_sample' parameter of wild_cluster_bootstrap must be one of \{'both', 'cluster', 'observations', 'none'\}. Got 'stata'")
case(C, "bootstrap_groups-name", lambda: WCB(X, Y, GROUPS, bootstrap_groups="median"), V, r"'bootstrap_groups' parameter of wild_cluster_bootstrap must be None, \"min\", \"max\" or labels .* Got 'median'")
case(C, "bootstrap_groups-short", lambda: WCB(X, Y, GROUPS, bootstrap_groups=GROUPS[:70]), V, r"'bootstrap_groups' parameter of wild_cluster_bootstrap must have one label per sample \(80\). Got 70")
case(C, "bootstrap_groups-one", lambda: WCB(X, Y, GROUPS, bootstrap_groups=GROUPS_ONE), V, r"'bootstrap_groups' parameter of wild_cluster_bootstrap must have at least 2 clusters")
case(C, "coef-name-arrays", lambda: WCB(X, Y, GROUPS, coef="x1"), V, r"'coef' parameter of wild_cluster_bootstrap must be a column index or a 1-D array of weights \(a parameter name only when X is a fitted statsmodels model\). Got 'x1'")
# -- WildClusterResult.pvalue_at ---------------------------------------------------
P = "WildClusterResult.pvalue_at"
case(P, "null-nan", lambda: _wcb_result().pvalue_at(np.nan), V, r"'null' parameter of WildClusterResult.pvalue_at must be a finite float. Got nan")
case(P, "null-inf", lambda: _wcb_result().pvalue_at(-np.inf), V, r"'null' parameter of WildClusterResult.pvalue_at must be a finite float. Got -inf")
case(P, "null-str", lambda: _wcb_result().pvalue_at("a"), V, r"'null' parameter of WildClusterResult.pvalue_at must be a finite float. Got 'a'")
case(P, "null-None", lambda: _wcb_result().pvalue_at(None), V, r"'null' parameter .* Got None")
case(P, "null-bool", lambda: _wcb_result().pvalue_at(True), V, r"'null' parameter .* Got True")
case(P, "null-list", lambda: _wcb_result().pvalue_at([0.5]), V, r"'null' parameter .* Got \[0.5\]")
# -- WildClusterResult.confidence_interval ------------------------------------------
CI = "WildClusterResult.confidence_interval"
case(CI, "level-1", lambda: _wcb_result().confidence_interval(1.0), V, r"'level' parameter of WildClusterResult.confidence_interval must be a float in \(0, 1\). Got 1.0")
case(CI, "level-str", lambda: _wcb_result().confidence_interval("0.9"), V, r"'level' parameter of WildClusterResult.confidence_interval must be a float in \(0, 1\). Got '0.9'")
case(CI, "too-few-replicates", lambda: _few_result().confidence_interval(), V, r"'level' parameter of WildClusterResult.confidence_interval must be at most 1 - 1 / \(n_resamples \+ 1\) = 0.909091 for a two-sided interval from 10 drawn replicates .* Got 0.95 instead; or run wild_cluster_bootstrap with n_resamples >= 19")
case(CI, "too-few-equal-tailed", lambda: _few_equal_tailed().confidence_interval(), V, r"'level' parameter .* must be at most 1 - 2 / \(n_resamples \+ 1\) = 0.948718 for an equal-tailed interval .* n_resamples >= 39")
# fmt: on


# ---------------------------------------------------------------------------
# the harness
# ---------------------------------------------------------------------------


WORK = [
    ("skboot._run._run", "run_bootstrap"),
    ("skboot.model_based._residual", "ar_residual_chunk"),
    ("skboot.model_based._residual", "ar_residual_sums"),
    ("skboot.model_based._var_plan", "var_residual_chunk"),
    ("skboot.model_based._var_plan", "var_residual_sums"),
    ("skboot.model_based._var_plan", "varx_residual_chunk"),
    ("skboot.model_based._arma_plan", "arma_residual_chunk"),
    ("skboot.model_based._arma_plan", "arma_wild_chunk"),
    ("skboot.model_based._wild", "ar_wild_chunk"),
    ("skboot.model_based._wild", "regression_wild_chunk"),
    ("skboot.model_based._parametric", "_generators"),
    ("skboot.model_based._parametric", "fill_indices_kernel"),
    ("skboot.model_based._cluster_jackknife", "wcb_chunk"),
    ("skboot.model_based._cluster_result", "tstar_at"),
]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch, WORK)


def test_forbid_work_catches_work(monkeypatch):
    """Valid calls of every entry point reach the patched work."""
    for make in _WARM:
        make()
    _forbid_work(monkeypatch)
    for valid in (
        lambda: bootstrap(SERIES, "mean", resampler=RB(5, order=1)),
        lambda: RB(5, order=1, random_state=0).fit(SERIES).sample(0),
        lambda: SB(5, random_state=0).fit(SERIES).sample(0),
        lambda: VB(5, order=1, random_state=0).fit(VSERIES).sample(0),
        lambda: RB(5, order=1, burn_in=0, random_state=0).fit(X, Y).sample(0),
        lambda: RB(5, order=1, random_state=0).fit(X, Y).sample(0),
        lambda: VB(5, order=1, random_state=0).fit(X, VSERIES).sample(0),
        lambda: AB(5, order=(1, 0, 0), random_state=0).fit(SERIES).sample(0),
        lambda: (
            AB(5, order=(1, 0, 0), weights="mammen", random_state=0)
            .fit(SERIES)
            .sample(0)
        ),
        lambda: AB(5, random_state=0).fit(_arima_results()).sample(0),
        lambda: next(iter(_fitted_residual().values())),
        lambda: WB(5, random_state=0).fit(X, Y).sample(0),
        lambda: WB(5, order=1, random_state=0).fit(SERIES).sample(0),
        lambda: bootstrap(SERIES, "mean", resampler=PB(5, distribution=stats.norm)),
        lambda: _fitted_parametric().plan_.sample_chunk(0, np.empty((2, N))),
        lambda: PB(5, distribution="empirical").fit(X, Y).sample(0),
        lambda: WCB(X, Y, GROUPS, n_resamples=99),
        lambda: _wcb_result().pvalue_at(0.5),
        lambda: _wcb_result().confidence_interval(0.8),
        lambda: _few_result().confidence_interval(0.9),
    ):
        with pytest.raises(WorkStarted):
            valid()


def test_catalogue_size():
    assert len(CASES) >= 40
    assert len({(entry, id_) for entry, id_, *_ in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [pytest.param(*rest, id=f"{entry}:{id_}") for entry, id_, *rest in CASES],
)
def test_bad_input(call, exc, match, monkeypatch):
    for make in _WARM:
        make()
    _forbid_work(monkeypatch)
    with pytest.raises(exc, match=match) as info:
        call()
    assert isinstance(info.value, ValueError)
    origin = str(info.traceback[-1].path)
    assert f"{Path(skboot.__file__).parent}" in origin, origin
    for name, value in DATA.items():
        np.testing.assert_array_equal(value, SAVED[name], err_msg=name)


def test_undefined_result_methods_warn_instead_of_raising():
    """A valid null value on a result whose t is undefined: NaN with the named
    warning (the value is fine; the statistic is not)."""
    with pytest.warns(UndefinedStatisticWarning):
        res = WCB(X, np.full(N, 4.0), GROUPS, n_resamples=99, random_state=0)
    with pytest.warns(UndefinedStatisticWarning, match="t is undefined"):
        assert np.isnan(res.pvalue_at(0.0))
    with pytest.raises(ValueError, match="'null' parameter"):
        res.pvalue_at(np.nan)  # a bad value is still refused first
