"""Bad-input catalogue (issue 9): every public entry point with its invalid inputs.

One table, :data:`CASES`: ``(entry point, call, expected exception, match)``.  The
policy it pins down:

* An invalid argument raises a ``ValueError`` whose message names the parameter,
  what is allowed and what was given.  skboot uses ``ValueError`` for wrong types
  too, like scipy's ``bootstrap`` (scikit-learn's ``InvalidParameterError`` and
  ``NotFittedError`` are ``ValueError`` subclasses as well), so ``except
  ValueError`` catches every bad argument; no entry point lets a ``TypeError``
  from numpy or joblib escape.
* A failure of the user's own code (statistic, metric, estimator) raises
  :class:`skboot.StatisticError` (a ``RuntimeError``) carrying ``replicate``: the
  failing replicate ``b`` (regenerate it with ``resampler.replicate(b)``), or -1 for
  the original data.
* Every argument error is raised *before any resampling work*: each row marked
  ``pre=True`` runs with the engine (``run_bootstrap``), the jackknife and the
  studentized helpers replaced by a function that fails the test, so a row passes
  only if its error comes first.  :func:`test_invalid_argument_costs_no_call`
  proves it with a statistic (metric, estimator) that counts its calls.
* The error is raised by skboot's own code (the last traceback frame is in the
  package), not by numpy, pandas or joblib deep inside a computation.
* The CLI turns every error into exit status 2 and a one-line message on stderr.

The second half of the module tests the documented behaviours that are *not*
errors: ``nan_policy``, non-finite statistics, pandas with duplicate labels,
non-contiguous / Fortran-order / read-only arrays, float32, integer and boolean
data.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import KFold
from work_guard import WorkStarted, forbid_work

import skboot
from skboot import (
    BayesianBootstrap,
    Bootstrap,
    BootstrapStatistic,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    ResidualBootstrap,
    SieveBootstrap,
    StationaryBootstrap,
    StatisticError,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
    UndefinedStatisticWarning,
    WildBootstrap,
    bootstrap,
    bootstrap_score,
    compare_metrics,
    metric_ci,
    optimal_block_length,
    wild_cluster_bootstrap,
    wild_cluster_bootstrap_iv,
)
from skboot import intervals as iv
from skboot.cli import main as cli_main
from skboot.statistic import abc_interval

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
_GEN = np.random.default_rng(20240611)
N = 40
X1 = _GEN.normal(size=N)
X2 = _GEN.normal(size=(N, 3))
SEQ = np.arange(N, dtype=float)  # row i holds i: a replicate's first row is visible
Y01 = np.tile([0, 1], N // 2)
SCORE = Y01 + _GEN.normal(size=N)
GROUPS = np.arange(N) // 4
XR = _GEN.normal(size=(N, 2))  # regression design for the refit entry points
YR = XR @ np.array([1.0, -1.0]) + _GEN.normal(size=N)


def _with_nan(a: np.ndarray, rows=(3,)) -> np.ndarray:
    out = np.array(a, dtype=float)
    out[list(rows)] = np.nan
    return out


def _with_inf(a: np.ndarray) -> np.ndarray:
    out = np.array(a, dtype=float)
    out[5] = np.inf
    return out


# precomputed results, built before the engine is disabled (see _warm)
@functools.cache
def _res():
    return bootstrap(X1, "mean", n_resamples=50, random_state=0)


@functools.cache
def _res_median():
    return bootstrap(X1, np.median, n_resamples=30, random_state=0)


@functools.cache
def _res_poisson_median():
    return bootstrap(X1, np.median, resampler=PoissonBootstrap(20, random_state=0))


@functools.cache
def _res_bayes_mean():
    return bootstrap(X1, "mean", resampler=BayesianBootstrap(20, random_state=0))


@functools.cache
def _res_unpickled():
    import pickle

    return pickle.loads(pickle.dumps(_res()))


@functools.cache
def _res_2d():
    return bootstrap(X2, "mean", n_resamples=20, random_state=0)


def _one_axes():
    import matplotlib.pyplot as plt

    return plt.figure().add_subplot()


@functools.cache
def _res_dup_columns():
    frame = pd.DataFrame(X2, columns=["a", "a", "b"])
    return bootstrap(frame, "mean", n_resamples=20, random_state=0)


@functools.cache
def _res_undefined():
    with pytest.warns(UndefinedStatisticWarning):
        return bootstrap(
            _with_nan(X1),
            "mean",
            n_resamples=50,
            random_state=0,
            nan_policy="propagate",
        )


@functools.cache
def _metric_result():
    return metric_ci(Y01, SCORE, "roc_auc", n_resamples=30, random_state=0)


@functools.cache
def _fitted_bootstrap():
    return Bootstrap(5, random_state=0).fit(X1)


@functools.cache
def _csv_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="skboot-bad-inputs-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    x = np.round(X1, 6)
    pd.DataFrame(
        {
            "x": x,
            "text": ["1.5"] * (N - 1) + ["oops"],
            "gap": np.r_[x[:-1], np.nan],
        }
    ).to_csv(path / "data.csv", index=False)
    pd.DataFrame({"x": [1.0]}).to_csv(path / "one.csv", index=False)
    (path / "binary.csv").write_bytes(b"\xff\xfe\x00\x01bad")
    return path


_WARM: tuple[Callable[[], Any], ...] = (
    _res,
    _res_median,
    _res_poisson_median,
    _res_bayes_mean,
    _res_unpickled,
    _res_2d,
    _res_dup_columns,
    _res_undefined,
    _metric_result,
    _fitted_bootstrap,
    _csv_dir,
)


# ---------------------------------------------------------------------------
# helpers for the table
# ---------------------------------------------------------------------------
class CLIError(Exception):
    """The CLI exited with a non-zero status; ``str`` is what it wrote to stderr."""

    def __init__(self, status: int, stderr: str) -> None:
        super().__init__(stderr)
        self.status = status


def _cli(*argv: str) -> int:
    """Run ``skboot`` in-process; raise :class:`CLIError` on a non-zero exit."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = cli_main(list(argv))
        except SystemExit as exc:  # argparse errors
            status = int(exc.code or 0)
    if status:
        raise CLIError(status, err.getvalue())
    return status


def _csv(name: str = "data.csv") -> str:
    return str(_csv_dir() / name)


def _raise_after(calls: int) -> Callable[[np.ndarray], float]:
    """A statistic that works ``calls`` times, then raises (serial: on replicate
    ``calls - 1``, since call 0 is the estimate)."""
    seen = [0]

    def stat(a: np.ndarray) -> float:
        seen[0] += 1
        if seen[0] > calls:
            raise RuntimeError("boom")
        return float(np.mean(a))

    return stat


def _vector_stat_failing_on_row7(a: np.ndarray, axis: int = -1) -> np.ndarray:
    if np.any(np.take(a, 0, axis=axis) == 7.0):
        raise RuntimeError("row 7 drawn first")
    return a.mean(axis=axis)


def _none_on_replicates(a: np.ndarray) -> float | None:
    return 1.0 if a[0] == 0.0 else None  # SEQ: only the original data starts at 0


def _shape_changes(a: np.ndarray) -> np.ndarray:
    return np.ones(1 if a[0] == 0.0 else 2)


def _weighted_mean(a: np.ndarray, weights: np.ndarray) -> float:
    return float(np.average(a, weights=weights))


def _mean_pair(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean(a) - np.mean(b))


def _accuracy_no_weights(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(y_true == (y_pred > 0.5)))


def _metric_failing_on_replicates(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if y_true[0] != Y01[0] or y_pred[0] != SCORE[0]:
        raise RuntimeError("metric boom")
    return 0.5


class _NoFit:
    def predict(self, X):  # pragma: no cover - never called
        return X


# ---------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------
V = ValueError
S = StatisticError
#: ``(entry point, id, call, exception, match, pre)``; ``pre``: raised before any
#: resampling work (checked with the engine disabled).
CASES: list[tuple[str, str, Callable[[], Any], type[BaseException], str, bool]] = []


def case(entry, id_, call, exc, match, pre=True):
    CASES.append((entry, id_, call, exc, match, pre))


# fmt: off
# -- bootstrap(): data ---------------------------------------------------------
B = "bootstrap"
case(B, "data-None", lambda: bootstrap(None), V, r"'data' parameter of bootstrap must be an array.*Got a scalar")
case(B, "data-scalar", lambda: bootstrap(5.0), V, r"'data' parameter of bootstrap must be an array.*Got a scalar \(array\(5\.\)\)")
case(B, "data-dict", lambda: bootstrap({"a": 1}), V, r"'data' parameter of bootstrap must be an array.*Got a scalar")
case(B, "data-str", lambda: bootstrap("abc"), V, r"'data' parameter of bootstrap must be an array.*Got a scalar")
case(B, "data-ragged", lambda: bootstrap([[1.0, 2.0], [3.0]]), V, r"'data' parameter of bootstrap must be an array-like.*Got a list that numpy cannot convert")
case(B, "data-empty", lambda: bootstrap(np.array([])), V, r"'data' parameter of bootstrap must have at least 2 observations. Got 0")
case(B, "data-empty-list", lambda: bootstrap([]), V, r"at least 2 observations. Got 0")
case(B, "data-length-1", lambda: bootstrap([1.0]), V, r"'data' parameter of bootstrap must have at least 2 observations. Got 1")
case(B, "data-empty-tuple", lambda: bootstrap(()), V, r"'data' parameter of bootstrap must be a non-empty array or tuple of arrays. Got \(\)")
case(B, "data-paired-lengths", lambda: bootstrap((X1, X1[:10]), _mean_pair), V, r"must hold arrays of one length.*Got lengths \[40, 10\]")
case(B, "data-independent-length-1", lambda: bootstrap((X1, X1[:1]), _mean_pair, paired=False), V, r"at least 2 observations in every sample. Got a sample of 1")
case(B, "data-3d", lambda: bootstrap(np.zeros((4, 2, 2))), V, r"'data' parameter of bootstrap must be 1-D or 2-D.*Got shape \(4, 2, 2\)")
case(B, "data-no-columns", lambda: bootstrap(np.zeros((5, 0))), V, r"'data' parameter of bootstrap has 0 feature\(s\)")
case(B, "data-strings", lambda: bootstrap(np.array(["a", "b", "c"])), V, r"'data' parameter of bootstrap must be numeric for the built-in statistic 'mean'. Got dtype <U1")
case(B, "data-object-strings", lambda: bootstrap(np.array(["1", "x"], dtype=object)), V, r"'data' parameter of bootstrap must be numeric for the built-in statistic 'mean': could not convert")
case(B, "data-complex", lambda: bootstrap(X1.astype(complex)), V, r"'data' parameter of bootstrap must be real numeric.*complex128")
case(B, "data-datetime", lambda: bootstrap(np.arange(5).astype("datetime64[D]")), V, r"must be numeric.*datetime64\[D\]")
case(B, "data-nan-raise", lambda: bootstrap(_with_nan(X1, (3, 9))), V, r"'data' parameter of bootstrap contains 2 row\(s\) with NaN. Pass nan_policy='omit'")
case(B, "data-nan-callable", lambda: bootstrap(_with_nan(X1), np.mean), V, r"contains 1 row\(s\) with NaN")
case(B, "data-nan-2d", lambda: bootstrap(_with_nan(X2, (0, 1))), V, r"contains 2 row\(s\) with NaN")
case(B, "data-nan-paired", lambda: bootstrap((X1, _with_nan(X1)), _mean_pair), V, r"contains 1 row\(s\) with NaN")
case(B, "data-nan-object", lambda: bootstrap(np.array([1.0, None, 2.0], dtype=object)), V, r"contains 1 row\(s\) with NaN")
case(B, "data-nan-all-omitted", lambda: bootstrap(np.array([np.nan, 1.0, np.nan]), nan_policy="omit"), V, r"fewer than 2 observations left after nan_policy='omit' dropped 2")
case(B, "data-inf-builtin", lambda: bootstrap(_with_inf(X1)), V, r"'data' parameter of bootstrap contains 1 NaN or infinite value\(s\)")
case(B, "data-inf-builtin-omit", lambda: bootstrap(_with_inf(X1), nan_policy="omit"), V, r"contains 1 NaN or infinite value\(s\)")
case(B, "data-proportion-not-binary", lambda: bootstrap(X1, "proportion"), V, r"'proportion' needs boolean or 0/1 data")
case(B, "data-corr-one-column", lambda: bootstrap(X1, "corr"), V, r"'corr' needs exactly two columns.*Got 1")
case(B, "data-corr-three-columns", lambda: bootstrap(X2, "corr"), V, r"'corr' needs exactly two columns.*Got 3")
case(B, "data-three-arrays-builtin", lambda: bootstrap((X1, X1, X1)), V, r"takes one data array \(or two for 'corr'\). Got 3")
# -- bootstrap(): statistic -----------------------------------------------------
case(B, "statistic-unknown", lambda: bootstrap(X1, "mode"), V, r"'statistic' parameter of bootstrap must be a callable or one of \{'corr', 'mean'.*Got 'mode'")
case(B, "statistic-case", lambda: bootstrap(X1, "MEAN"), V, r"'statistic' parameter.*Got 'MEAN'")
case(B, "statistic-None", lambda: bootstrap(X1, None), V, r"'statistic' parameter of bootstrap must be a callable.*Got None")
case(B, "statistic-int", lambda: bootstrap(X1, 3), V, r"'statistic' parameter of bootstrap must be a callable.*Got 3")
case(B, "statistic-kwargs-list", lambda: bootstrap(X1, "var", statistic_kwargs=[1]), V, r"'statistic_kwargs' parameter of bootstrap must be None or a dict. Got \[1\]")
case(B, "statistic-kwargs-unknown", lambda: bootstrap(X1, "mean", statistic_kwargs={"q": 0.5}), V, r"accepts no keys for statistic 'mean'. Got \['q'\]")
case(B, "quantile-no-q", lambda: bootstrap(X1, "quantile"), V, r"needs statistic_kwargs=\{'q': \.\.\.\}")
case(B, "quantile-q-1.5", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": 1.5}), V, r"'q' statistic keyword of bootstrap must be a float or 1-D array of floats in \[0, 1\]. Got 1.5")
case(B, "quantile-q-nan", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": np.nan}), V, r"'q' statistic keyword.*Got nan")
case(B, "quantile-q-str", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": "x"}), V, r"'q' statistic keyword.*Got 'x'")
case(B, "quantile-q-empty", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": []}), V, r"'q' statistic keyword.*Got \[\]")
case(B, "quantile-q-2d", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": [[0.5]]}), V, r"'q' statistic keyword.*Got \[\[0.5\]\]")
case(B, "var-ddof-negative", lambda: bootstrap(X1, "var", statistic_kwargs={"ddof": -1}), V, r"'ddof' statistic keyword of bootstrap must be an int >= 0. Got -1")
case(B, "var-ddof-float", lambda: bootstrap(X1, "std", statistic_kwargs={"ddof": 1.0}), V, r"'ddof' statistic keyword of bootstrap must be an int >= 0. Got 1.0")
case(B, "var-ddof-too-large", lambda: bootstrap(X1, "var", statistic_kwargs={"ddof": N}), V, r"'ddof' statistic keyword of bootstrap must be smaller than the replicate size 40. Got 40")
case(B, "vectorized-str", lambda: bootstrap(X1, np.mean, vectorized="yes"), V, r"'vectorized' parameter of bootstrap must be True or False or None. Got 'yes'")
case(B, "weights-median", lambda: bootstrap(X1, "median", resampler=BayesianBootstrap(5)), V, r"'median' is not available with a resampler whose replicates are continuous weights")
case(B, "weights-quantile-tapered", lambda: bootstrap(X1, "quantile", statistic_kwargs={"q": 0.5}, resampler=TaperedBlockBootstrap(5, block_length=2)), V, r"'quantile' is not available with a resampler whose replicates are continuous weights")
case(B, "weights-callable-without-weights", lambda: bootstrap(X1, np.mean, resampler=BayesianBootstrap(5)), V, r"must accept a 'weights' or 'sample_weight' keyword")
case(B, "independent-corr", lambda: bootstrap((X1, X1), "corr", paired=False), V, r"'statistic' parameter of bootstrap must be a callable or, with independent samples \(paired=False\), one of .*Got 'corr'")
case(B, "independent-contrast", lambda: bootstrap((X1, X1), "mean", paired=False, statistic_kwargs={"contrast": "sum"}), V, r"'contrast' statistic keyword of bootstrap must be one of \{'difference', 'ratio'\}. Got 'sum'")
case(B, "independent-contrast-three", lambda: bootstrap((X1, X1, X1), "mean", paired=False, statistic_kwargs={"contrast": "ratio"}), V, r"combines exactly two samples. Got 3")
case(B, "independent-block-resampler", lambda: bootstrap((X1, X1), _mean_pair, paired=False, resampler=MovingBlockBootstrap(5, block_length=3)), V, r"'paired' parameter of bootstrap is False.*needs resampler=None or Bootstrap\(\)")
case(B, "independent-m-out-of-n", lambda: bootstrap((X1, X1), _mean_pair, paired=False, resampler=Bootstrap(5, sample_size=10)), V, r"without sample_size. Got Bootstrap")
# -- bootstrap(): the user's statistic misbehaving ------------------------------
case(B, "statistic-raises-on-data", lambda: bootstrap(X1, lambda a: 1 / 0), S, r"The statistic raised on the original data: ZeroDivisionError")
case(B, "statistic-wrong-signature", lambda: bootstrap(X1, lambda: 1.0), S, r"raised on the original data: TypeError.*takes 0 positional arguments")
case(B, "statistic-kwargs-rejected", lambda: bootstrap(X1, np.mean, statistic_kwargs={"foo": 1}), S, r"raised on the original data: TypeError.*unexpected keyword argument 'foo'")
case(B, "statistic-returns-2d", lambda: bootstrap(X1, lambda a: np.ones((2, 2))), S, r"must return a scalar or a 1-D array; on the original data it returned shape \(2, 2\)")
case(B, "statistic-returns-str", lambda: bootstrap(X1, lambda a: "x"), S, r"must return a number or a 1-D array of numbers; on the original data it returned str")
case(B, "statistic-returns-None", lambda: bootstrap(X1, lambda a: None), S, r"on the original data it returned None \(a missing 'return'\?\)")
case(B, "statistic-returns-empty", lambda: bootstrap(X1, lambda a: np.array([])), S, r"must return at least one value; on the original data it returned an empty array")
case(B, "statistic-raises-on-replicate", lambda: bootstrap(X1, _raise_after(1), n_resamples=20, random_state=0), S, r"The statistic raised on replicate 0: RuntimeError\('boom'\). Regenerate the replicate with resampler.fit\(X\).replicate\(0\)", False)
case(B, "statistic-raises-on-replicate-5", lambda: bootstrap(X1, _raise_after(6), n_resamples=20, random_state=0), S, r"raised on replicate 5: RuntimeError", False)
case(B, "vectorized-statistic-raises-on-replicate", lambda: bootstrap(SEQ, _vector_stat_failing_on_row7, n_resamples=200, random_state=3), S, r"raised on replicate \d+: RuntimeError\('row 7 drawn first'\)", False)
case(B, "statistic-returns-None-on-replicate", lambda: bootstrap(SEQ, _none_on_replicates, n_resamples=20, random_state=0), S, r"on replicate \d+ it returned None", False)
case(B, "statistic-shape-changes-on-replicate", lambda: bootstrap(SEQ, _shape_changes, n_resamples=50, random_state=0), S, r"returned 2 value\(s\) on replicate \d+, but 1 on the original data", False)
# -- bootstrap(): engine parameters ----------------------------------------------
case(B, "n_resamples-0", lambda: bootstrap(X1, n_resamples=0), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got 0")
case(B, "n_resamples-negative", lambda: bootstrap(X1, n_resamples=-5), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got -5")
case(B, "n_resamples-float", lambda: bootstrap(X1, n_resamples=2.5), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got 2.5")
case(B, "n_resamples-bool", lambda: bootstrap(X1, n_resamples=True), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got True")
case(B, "n_resamples-str", lambda: bootstrap(X1, n_resamples="10"), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\] or None. Got '10'")
case(B, "n_resamples-2**32", lambda: bootstrap(X1, n_resamples=2**32), V, r"'n_resamples' parameter of bootstrap must be an int in \[1, 2\*\*32 - 1\]")
case(B, "random_state-negative", lambda: bootstrap(X1, random_state=-1), V, r"'random_state' parameter of Bootstrap must be None, a non-negative int, a numpy SeedSequence, Generator or RandomState. Got -1")
case(B, "random_state-float", lambda: bootstrap(X1, random_state=1.5), V, r"'random_state' parameter of Bootstrap.*Got 1.5")
case(B, "random_state-str", lambda: bootstrap(X1, random_state="0"), V, r"'random_state' parameter of Bootstrap.*Got '0'")
case(B, "random_state-bool", lambda: bootstrap(X1, random_state=True), V, r"'random_state' parameter of Bootstrap.*Got True")
case(B, "random_state-list", lambda: bootstrap(X1, random_state=[1, 2]), V, r"'random_state' parameter of Bootstrap.*Got \[1, 2\]")
case(B, "random_state-conflict", lambda: bootstrap(X1, resampler=Bootstrap(random_state=1), random_state=2), V, r"'random_state' parameter of bootstrap \(2\) conflicts with the resampler's random_state \(1\)")
case(B, "n_resamples-conflict", lambda: bootstrap(X1, resampler=Bootstrap(10), n_resamples=20), V, r"'n_resamples' parameter of bootstrap \(20\) conflicts with the resampler's n_resamples \(10\)")
case(B, "n_jobs-0", lambda: bootstrap(X1, n_jobs=0), V, r"'n_jobs' parameter of bootstrap must be an int other than 0.*Got 0")
case(B, "n_jobs-float", lambda: bootstrap(X1, n_jobs=1.5), V, r"'n_jobs' parameter of bootstrap must be an int other than 0.*Got 1.5")
case(B, "n_jobs-str", lambda: bootstrap(X1, n_jobs="2"), V, r"'n_jobs' parameter of bootstrap.*Got '2'")
case(B, "n_jobs-bool", lambda: bootstrap(X1, n_jobs=True), V, r"'n_jobs' parameter of bootstrap.*Got True")
case(B, "chunk_size-0", lambda: bootstrap(X1, chunk_size=0), V, r"'chunk_size' parameter of bootstrap must be an int >= 1 or None. Got 0")
case(B, "chunk_size-float", lambda: bootstrap(X1, chunk_size=10.0), V, r"'chunk_size' parameter of bootstrap must be an int >= 1 or None. Got 10.0")
case(B, "progress-int", lambda: bootstrap(X1, np.mean, progress=1), V, r"'progress' parameter of bootstrap must be True or False. Got 1")
case(B, "paired-str", lambda: bootstrap(X1, paired="no"), V, r"'paired' parameter of bootstrap must be True or False. Got 'no'")
case(B, "nan_policy-unknown", lambda: bootstrap(X1, nan_policy="drop"), V, r"'nan_policy' parameter of bootstrap must be one of \{'raise', 'omit', 'propagate'\}. Got 'drop'")
case(B, "nan_policy-None", lambda: bootstrap(X1, nan_policy=None), V, r"'nan_policy' parameter of bootstrap must be one of.*Got None")
case(B, "nan_policy-list", lambda: bootstrap(X1, nan_policy=["raise"]), V, r"'nan_policy' parameter.*Got \['raise'\]")
case(B, "on_error-unknown", lambda: bootstrap(X1, np.median, on_error="skip"), V, r"'on_error' parameter of bootstrap must be one of \{'raise', 'omit'\}. Got 'skip'")
case(B, "on_error-None", lambda: bootstrap(X1, np.median, on_error=None), V, r"'on_error' parameter of bootstrap must be one of.*Got None")
case(B, "resampler-str", lambda: bootstrap(X1, resampler="iid"), V, r"'resampler' parameter of bootstrap must be None or a skboot resampler \(e.g. Bootstrap\(\)\). Got 'iid'")
case(B, "resampler-class", lambda: bootstrap(X1, resampler=Bootstrap), V, r"'resampler' parameter of bootstrap must be None or a skboot resampler.*Got <class")
case(B, "resampler-sklearn-splitter", lambda: bootstrap(X1, resampler=KFold()), V, r"'resampler' parameter of bootstrap must be None or a skboot resampler.*Got KFold")
case(B, "device-unknown", lambda: bootstrap(X1, device="gpu"), V, r"'device' parameter of bootstrap must be one of \{'auto', 'cpu', 'cuda'\}. Got 'gpu'")
case(B, "device-None", lambda: bootstrap(X1, device=None), V, r"'device' parameter of bootstrap must be one of.*Got None")
# -- bootstrap(): resampler parameters (checked when the run starts) -------------
case(B, "sample_size-0", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size=0)), V, r"'sample_size' parameter of Bootstrap must be None, an int >= 1 or a float in \(0, 1\]. Got 0")
case(B, "sample_size-too-large", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size=41)), V, r"'sample_size' parameter of Bootstrap.*Got 41")
case(B, "sample_size-1.5", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size=1.5)), V, r"'sample_size' parameter of Bootstrap.*Got 1.5")
case(B, "sample_size-nan", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size=float("nan"))), V, r"'sample_size' parameter of Bootstrap.*Got nan")
case(B, "sample_size-bool", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size=True)), V, r"'sample_size' parameter of Bootstrap.*Got True")
case(B, "sample_size-str", lambda: bootstrap(X1, resampler=Bootstrap(5, sample_size="half")), V, r"'sample_size' parameter of Bootstrap.*Got 'half'")
case(B, "block_length-0", lambda: bootstrap(X1, resampler=MovingBlockBootstrap(5, block_length=0)), V, r"'block_length' parameter of MovingBlockBootstrap must be 'auto' or an int in \[1, n_samples // 2\]. Got 0")
case(B, "block_length-negative", lambda: bootstrap(X1, resampler=CircularBlockBootstrap(5, block_length=-1)), V, r"'block_length' parameter of CircularBlockBootstrap.*Got -1")
case(B, "block_length-float-fixed", lambda: bootstrap(X1, resampler=MovingBlockBootstrap(5, block_length=2.5)), V, r"'block_length' parameter of MovingBlockBootstrap must be 'auto' or an int.*Got 2.5")
case(B, "block_length-bool", lambda: bootstrap(X1, resampler=NonOverlappingBlockBootstrap(5, block_length=True)), V, r"'block_length' parameter of NonOverlappingBlockBootstrap.*Got True")
case(B, "block_length-Auto", lambda: bootstrap(X1, resampler=StationaryBootstrap(5, block_length="Auto")), V, r"'block_length' parameter of StationaryBootstrap must be 'auto' or a real number in \[1, n_samples / 2\]. Got 'Auto'")
case(B, "block_length-stationary-0.5", lambda: bootstrap(X1, resampler=StationaryBootstrap(5, block_length=0.5)), V, r"'block_length' parameter of StationaryBootstrap.*Got 0.5")
case(B, "block_length-stationary-nan", lambda: bootstrap(X1, resampler=StationaryBootstrap(5, block_length=float("nan"))), V, r"'block_length' parameter of StationaryBootstrap.*Got nan")
case(B, "block_length-stationary-inf", lambda: bootstrap(X1, resampler=StationaryBootstrap(5, block_length=float("inf"))), V, r"'block_length' parameter of StationaryBootstrap.*Got inf")
case(B, "block_length-larger-than-n", lambda: bootstrap(X1, resampler=MovingBlockBootstrap(5, block_length=41)), V, r"'block_length' parameter of MovingBlockBootstrap must be 'auto' or an int in \[1, 20\] \(at most half the 40 samples.*Got 41")
case(B, "block_length-one-block", lambda: bootstrap(X1, resampler=MovingBlockBootstrap(5, block_length=21)), V, r"'X' parameter of MovingBlockBootstrap must hold at least 2 blocks of block_length=21, i.e. at least 42 samples. Got 40")
case(B, "block_length-stationary-one-block", lambda: bootstrap(X1, resampler=StationaryBootstrap(5, block_length=20.5)), V, r"at least 2 blocks of block_length=20.5, i.e. at least 41 samples. Got 40")
case(B, "block_length-auto-short", lambda: bootstrap(X1[:6], resampler=StationaryBootstrap(5)), V, r"'block_length' parameter of StationaryBootstrap is 'auto'.*must have at least 9 observations. Got 6.*Pass an explicit block_length")
case(B, "block_length-auto-constant", lambda: bootstrap(np.ones(30), resampler=CircularBlockBootstrap(5)), V, r"'block_length' parameter of CircularBlockBootstrap is 'auto'.*must not be constant")
case(B, "block_length-auto-nan", lambda: bootstrap(_with_nan(X1), resampler=CircularBlockBootstrap(5), nan_policy="propagate"), V, r"'X' parameter of CircularBlockBootstrap must contain only finite values when block_length='auto'")
case(B, "taper_c-0", lambda: bootstrap(X1, resampler=TaperedBlockBootstrap(5, block_length=3, taper_c=0)), V, r"'taper_c' parameter of TaperedBlockBootstrap must be a float in \(0, 0.5\]. Got 0")
case(B, "taper_c-0.6", lambda: bootstrap(X1, resampler=TaperedBlockBootstrap(5, block_length=3, taper_c=0.6)), V, r"'taper_c' parameter.*Got 0.6")
case(B, "y-missing-stratified", lambda: bootstrap(X1, resampler=StratifiedBootstrap(5)), V, r"'y' parameter of StratifiedBootstrap is required: pass y=")
case(B, "y-length", lambda: bootstrap(X1, resampler=StratifiedBootstrap(5), y=[0, 1]), V, r"'y' parameter of StratifiedBootstrap must have one entry per sample of X \(40\). Got 2")
case(B, "y-nan", lambda: bootstrap(X1, resampler=StratifiedBootstrap(5), y=_with_nan(Y01)), V, r"'y' parameter of StratifiedBootstrap must not contain NaN. Got 1 NaN label")
case(B, "y-None-label", lambda: bootstrap(X1, resampler=StratifiedBootstrap(5), y=np.array([None] + [1] * (N - 1), dtype=object)), V, r"must not contain missing labels \(None/NaN\). Got 1")
case(B, "y-mixed-types", lambda: bootstrap(X1, resampler=StratifiedBootstrap(5), y=np.array(["a"] + [1] * (N - 1), dtype=object)), V, r"'y' parameter of StratifiedBootstrap must hold sortable labels of one type")
case(B, "groups-missing", lambda: bootstrap(X1, resampler=GroupBootstrap(5)), V, r"'groups' parameter of GroupBootstrap is required: pass groups=")
case(B, "groups-one-group", lambda: bootstrap(X1, resampler=GroupBootstrap(5), groups=np.zeros(N)), V, r"'groups' parameter of GroupBootstrap must contain at least 2 distinct groups. Got 1")
case(B, "groups-2d", lambda: bootstrap(X1, resampler=GroupBootstrap(5), groups=np.zeros((N, 2))), V, r"'groups' parameter of GroupBootstrap must be 1-D with one label per sample. Got an array of shape \(40, 2\)")
case(B, "groups-length", lambda: bootstrap(X1, resampler=GroupBootstrap(5), groups=np.arange(10)), V, r"'groups' parameter of GroupBootstrap must have one entry per sample of X \(40\). Got 10")

# -- BootstrapStatistic ---------------------------------------------------------
E = "BootstrapStatistic"
case(E, "fit-n_resamples-0", lambda: BootstrapStatistic(n_resamples=0).fit(X1), V, r"'n_resamples' parameter of BootstrapStatistic must be an int in \[1, 2\*\*32 - 1\] or None. Got 0")
case(E, "fit-X-length-1", lambda: BootstrapStatistic(n_resamples=5).fit(X1[:1]), V, r"'data' parameter of BootstrapStatistic must have at least 2 observations. Got 1")
case(E, "fit-X-nan", lambda: BootstrapStatistic(n_resamples=5).fit(_with_nan(X2)), V, r"'data' parameter of BootstrapStatistic contains 1 row\(s\) with NaN")
case(E, "fit-statistic-unknown", lambda: BootstrapStatistic("avg", n_resamples=5).fit(X1), V, r"'statistic' parameter of BootstrapStatistic must be a callable or one of.*Got 'avg'")
case(E, "fit-resampler-str", lambda: BootstrapStatistic(resampler="block").fit(X1), V, r"'resampler' parameter of BootstrapStatistic must be None or a skboot resampler")
case(E, "fit-n_jobs-0", lambda: BootstrapStatistic(n_resamples=5, n_jobs=0).fit(X1), V, r"'n_jobs' parameter of BootstrapStatistic must be an int other than 0")
case(E, "fit-estimator-nan_policy", lambda: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), nan_policy="omit").fit(XR, YR), V, r"'nan_policy' parameter of BootstrapStatistic must be 'raise' when 'estimator' is given.*Got 'omit'")
case(E, "fit-estimator-str-statistic", lambda: BootstrapStatistic("mean", estimator=LinearRegression()).fit(XR, YR), V, r"'statistic' parameter of BootstrapStatistic must be a callable of the fitted estimator.*Got 'mean'")
case(E, "fit-estimator-X-nan", lambda: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), n_resamples=5).fit(_with_nan(XR), YR), V, r"contains 1 row\(s\) with NaN")
case(E, "fit-estimator-chunk_size", lambda: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), chunk_size=0).fit(XR, YR), V, r"'chunk_size' parameter of BootstrapStatistic must be an int >= 1 or None. Got 0")
case(E, "fit-estimator-block_length", lambda: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), resampler=MovingBlockBootstrap(block_length=0)).fit(XR, YR), V, r"'block_length' parameter of MovingBlockBootstrap")
case(E, "fit-on_error-retry", lambda: BootstrapStatistic(np.median, n_resamples=5, on_error="retry").fit(X1), V, r"'on_error' parameter of BootstrapStatistic must be one of \{'raise', 'omit'\}. Got 'retry'")
case(E, "fit-device-unknown", lambda: BootstrapStatistic(n_resamples=5, device="GPU").fit(X1), V, r"'device' parameter of BootstrapStatistic must be one of \{'auto', 'cpu', 'cuda'\}. Got 'GPU'")
case(E, "fit-estimator-device-unknown", lambda: BootstrapStatistic(lambda e: e.coef_, estimator=LinearRegression(), device="tpu").fit(XR, YR), V, r"'device' parameter of BootstrapStatistic must be one of.*Got 'tpu'")
case(E, "confidence_interval-unfitted", lambda: BootstrapStatistic().confidence_interval(), NotFittedError, r"This BootstrapStatistic instance is not fitted yet")

# -- BootstrapResult.confidence_interval / plot -----------------------------------
R = "BootstrapResult"
for _level in (0, 1, 1.5, -0.1, 95, float("nan"), float("inf"), "x", "0.95", True, None):
    case(R, f"level-{_level!r}", lambda lv=_level: _res().confidence_interval(lv), V, r"'level' parameter of confidence_interval must be a float in \(0, 1\). Got " + re.escape(repr(_level)))
case(R, "level-bca-before-jackknife", lambda: _res_median().confidence_interval(1.5, method="bca"), V, r"'level' parameter of confidence_interval must be a float in \(0, 1\). Got 1.5")
case(R, "level-studentized-before-nested", lambda: _res_median().confidence_interval(0, method="studentized", n_inner=5), V, r"'level' parameter.*Got 0")
case(R, "method-B_Ca", lambda: _res().confidence_interval(method="B_Ca"), V, r"'method' parameter of confidence_interval must be one of \{'percentile', 'basic', 'normal', 'bc', 'bca', 'studentized', 'calibrated', 'calibrated_basic'\}. Got 'B_Ca'")
case(R, "calibrated-n_inner-1", lambda: _res().confidence_interval(method="calibrated", n_inner=1), V, r"^The 'n_inner' parameter of confidence_interval must be an int >= 2. Got 1 instead\.$")
case(R, "calibrated-n_inner-float", lambda: _res().confidence_interval(method="calibrated_basic", n_inner=50.5), V, r"'n_inner' parameter of confidence_interval must be an int >= 2. Got 50.5")
case(R, "calibrated-n_inner-huge", lambda: _res().confidence_interval(method="calibrated", n_inner=2**31), V, r"'n_inner' parameter of confidence_interval must be an int with n_resamples \* n_inner < 2\*\*32. Got 2147483648")
case(R, "calibrated-level-first", lambda: _res().confidence_interval(1.5, method="calibrated", n_inner=1), V, r"'level' parameter of confidence_interval must be a float in \(0, 1\). Got 1.5")
case(R, "calibrated-bayesian", lambda: _res_bayes_mean().confidence_interval(method="calibrated"), V, r"'method' parameter of confidence_interval 'calibrated' \(a double bootstrap\) needs a run whose replicates can be resampled by the same scheme: Bootstrap \(with the default sample_size\), StratifiedBootstrap, GroupBootstrap, PoissonBootstrap, .*StationaryBootstrap. Got resampler BayesianBootstrap")
case(R, "calibrated-unpickled", lambda: _res_unpickled().confidence_interval(method="calibrated"), V, r"The calibrated interval needs the data and the statistic")
case(R, "calibrated-pvalue-n_inner", lambda: _res().pvalue(0.0, method="calibrated", n_inner=0), V, r"'n_inner' parameter of pvalue must be an int >= 2. Got 0")
case(R, "calibrated-pvalue-bayesian", lambda: _res_bayes_mean().pvalue(0.0, method="calibrated_basic"), V, r"'method' parameter of pvalue 'calibrated_basic' \(a double bootstrap\) needs")
case(R, "method-norm-alias", lambda: _res().confidence_interval(method="norm"), V, r"'method' parameter of confidence_interval.*Got 'norm'")
case(R, "method-number", lambda: _res().confidence_interval(method=1), V, r"'method' parameter of confidence_interval.*Got 1")
case(R, "alternative-underscore", lambda: _res().confidence_interval(alternative="two_sided"), V, r"'alternative' parameter of confidence_interval must be one of \{'two-sided', 'less', 'greater'\}. Got 'two_sided'")
case(R, "alternative-list", lambda: _res().confidence_interval(alternative=["less"]), V, r"'alternative' parameter.*Got \['less'\]")
case(R, "studentized-no-se", lambda: _res_median().confidence_interval(method="studentized"), V, r"'studentized' method needs standard_error=callable\(data\) or n_inner=int")
case(R, "studentized-se-not-callable", lambda: _res_median().confidence_interval(method="studentized", standard_error=1.0), V, r"'standard_error' parameter of confidence_interval must be a callable. Got 1.0")
case(R, "studentized-n_inner-1", lambda: _res_median().confidence_interval(method="studentized", n_inner=1), V, r"'n_inner' parameter of confidence_interval must be an int >= 2. Got 1")
case(R, "studentized-n_inner-float", lambda: _res_median().confidence_interval(method="studentized", n_inner=2.5), V, r"'n_inner' parameter.*Got 2.5")
case(R, "studentized-n_inner-overflow", lambda: _res_median().confidence_interval(method="studentized", n_inner=2**31), V, r"'n_inner' parameter of confidence_interval must be an int with n_resamples \* n_inner < 2\*\*32")
case(R, "studentized-nested-variable-layout", lambda: _res_poisson_median().confidence_interval(method="studentized", n_inner=5), V, r"nested studentized interval needs a fixed-size index resampler")
case(R, "studentized-se-raises", lambda: _res_median().confidence_interval(method="studentized", standard_error=lambda a: 1 / 0), S, r"raised on the original data: ZeroDivisionError", False)
case(R, "studentized-se-wrong-k", lambda: _res_median().confidence_interval(method="studentized", standard_error=lambda a: np.ones(2)), V, r"'standard_error' function must return 1 value\(s\), one per statistic output. Got 2", False)
case(R, "interval-from-undefined-replicates", lambda: _res_undefined().confidence_interval(method="percentile"), V, r"bootstrap distribution has \d+ undefined \(non-finite\) replicate\(s\) of 50; no interval is computed")
case(R, "plot-column-out-of-range", lambda: _res_2d().plot(column=5), V, r"'column' parameter of plot must be in \[0, 2\]. Got 5")
case(R, "plot-ax-count", lambda: _res_2d().plot(ax=_one_axes()), V, r"'ax' parameter of plot must hold one Axes per output drawn \(3\). Got 1 instead")
case(R, "plot-column-unknown-label", lambda: _res_dup_columns().plot(column="c"), V, r"'column' parameter of plot must be one of \['a', 'a', 'b'\]. Got 'c'")
case(R, "plot-column-duplicate-label", lambda: _res_dup_columns().plot(column="a"), V, r"'column' parameter of plot is the label 'a', which 2 columns share.*Pass the column's position")
case(R, "jackknife_groups-None", lambda: _res_median().confidence_interval(jackknife_groups=None), V, r"'jackknife_groups' parameter of confidence_interval must be 'auto', 'full' or an int in \[2, 40\]. Got None")
case(R, "to_dict-distribution", lambda: _res().to_dict(distribution="no"), V, r"'distribution' parameter of to_dict must be True or False. Got 'no'")
case(R, "load-not-a-result", lambda: skboot.BootstrapResult.load(io.BytesIO(b"not numpy")), V, r"The result file .* is not a valid skboot result: it is not an .npz archive written by BootstrapResult.save")
case(R, "plot-method", lambda: _res().plot(method="x"), V, r"'method' parameter of plot must be one of \{'percentile'.*Got 'x'")
case(R, "plot-level", lambda: _res().plot(level=2), V, r"'level' parameter.*Got 2")

# -- resamplers (split / fit / replicate / get_n_splits) --------------------------
RS = "resamplers"
case(RS, "split-X-None", lambda: Bootstrap(5).split(None), V, r"'X' parameter of Bootstrap must be an array-like of samples. Got None")
case(RS, "split-X-scalar", lambda: MovingBlockBootstrap(5, block_length=2).split(3.0), V, r"'X' parameter of MovingBlockBootstrap must be an array-like with a first axis of samples. Got float")
case(RS, "split-X-length-1", lambda: PoissonBootstrap(5).split([1.0]), V, r"'X' parameter of PoissonBootstrap must have at least 2 samples. Got 1")
case(RS, "split-y-length", lambda: Bootstrap(5).split(X1, y=[1, 2]), V, r"'y' parameter of Bootstrap must have one entry per sample of X \(40\). Got 2")
case(RS, "split-groups-length", lambda: GroupBootstrap(5).split(X1, groups=[1, 2]), V, r"'groups' parameter of GroupBootstrap must have one entry per sample of X \(40\). Got 2")
case(RS, "split-bayesian", lambda: BayesianBootstrap(5).split(X1), V, r"BayesianBootstrap has no in-bag indices: its replicates are continuous weights")
case(RS, "split-tapered", lambda: TaperedBlockBootstrap(5, block_length=2).split(X1), V, r"TaperedBlockBootstrap.split\(\) is not available")
case(RS, "split-auto-strings", lambda: MovingBlockBootstrap(5).split(np.array(["a"] * 20)), V, r"'X' parameter of MovingBlockBootstrap must be numeric when block_length='auto'")
case(RS, "split-auto-3d", lambda: CircularBlockBootstrap(5).split(np.zeros((20, 2, 2))), V, r"'X' parameter of CircularBlockBootstrap must be 1-D or 2-D when block_length='auto'")
case(RS, "fit-n_resamples-negative", lambda: PoissonBootstrap(n_resamples=-1).fit(X1), V, r"'n_resamples' parameter of PoissonBootstrap must be an int in \[1, 2\*\*32 - 1\]. Got -1")
case(RS, "fit-random_state", lambda: StratifiedBootstrap(random_state=-3).fit(X1, Y01), V, r"'random_state' parameter of StratifiedBootstrap must be None, a non-negative int")
case(RS, "get_n_splits-n_resamples-0", lambda: Bootstrap(0).get_n_splits(), V, r"'n_resamples' parameter of Bootstrap must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(RS, "replicate-unfitted", lambda: Bootstrap(5).replicate(0), NotFittedError, r"This Bootstrap instance is not fitted yet. Call 'fit\(X, y, groups\)' before replicate\(b\)")
case(RS, "replicate-negative", lambda: _fitted_bootstrap().replicate(-1), V, r"'b' parameter of Bootstrap.replicate must be an int in \[0, 4\]. Got -1")
case(RS, "replicate-past-end", lambda: _fitted_bootstrap().replicate(5), V, r"'b' parameter of Bootstrap.replicate must be an int in \[0, 4\]. Got 5")
case(RS, "replicate-float", lambda: _fitted_bootstrap().replicate(1.0), V, r"'b' parameter of Bootstrap.replicate.*Got 1.0")
case(RS, "replicate-bayesian-indices", lambda: BayesianBootstrap(5).fit(X1).replicate(0).indices, V, r"BayesianBootstrap replicates are continuous weights; they have no indices")

# -- metric_ci / compare_metrics ---------------------------------------------------
M = "metric_ci"
case(M, "y_true-None", lambda: metric_ci(None, SCORE, "roc_auc"), V, r"'y_true' parameter of metric_ci must be an array-like. Got None")
case(M, "y_true-empty", lambda: metric_ci([], [], "roc_auc"), V, r"'y_true' parameter of metric_ci must be a non-empty array")
case(M, "y_true-length-1", lambda: metric_ci([1], [0.5], "roc_auc"), V, r"'y_true' parameter of metric_ci must have at least 2 rows. Got 1")
case(M, "y_pred-length", lambda: metric_ci(Y01, SCORE[:10], "roc_auc"), V, r"'y_pred' parameter of metric_ci must have as many rows as y_true \(40\). Got 10")
case(M, "y_true-estimator", lambda: metric_ci(LogisticRegression(), X2, Y01), V, r"'y_true' parameter of metric_ci must be an array of true targets. Got an estimator \(LogisticRegression\) instead")
case(M, "y_pred-3d", lambda: metric_ci(Y01, np.zeros((N, 2, 2)), "roc_auc"), V, r"'y_pred' parameter of roc_auc must be a non-empty 1-d array. Got an array of shape \(40, 2, 2\)")
case(M, "y_pred-nan", lambda: metric_ci(Y01, _with_nan(SCORE), "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain only finite values. Got 1 NaN or infinite")
case(M, "y_pred-inf", lambda: metric_ci(Y01, _with_inf(SCORE), "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain only finite values")
case(M, "y_true-nan", lambda: metric_ci(_with_nan(Y01), SCORE, "roc_auc"), V, r"'y_true' parameter of roc_auc must be an array of class labels without NaN")
case(M, "y_true-nan-regression", lambda: metric_ci(_with_nan(SCORE), SCORE, "mean_squared_error"), V, r"'y_true' parameter of mean_squared_error must contain only finite values")
case(M, "device-unknown", lambda: metric_ci(Y01, SCORE, "roc_auc", device="cuda:0"), V, r"'device' parameter of metric_ci must be one of \{'auto', 'cpu', 'cuda'\}. Got 'cuda:0'")
case(M, "y_true-three-classes-binary-metric", lambda: metric_ci(np.arange(N) % 3, SCORE, "roc_auc"), V, r"'y_true' parameter of roc_auc must be an array of binary labels \(two classes at most\). Got 3 classes \[0, 1, 2\]")
case(M, "y_pred-probability-above-1", lambda: metric_ci(Y01, SCORE + 5, "log_loss"), V, r"'y_pred' parameter of log_loss must be an array of probabilities in \[0, 1\]")
case(M, "metric-unknown", lambda: metric_ci(Y01, SCORE, "auc"), V, r"'metric' parameter of metric_ci must be a callable, a scikit-learn scorer name.*Got 'auc'")
case(M, "metric-int", lambda: metric_ci(Y01, SCORE, 3), V, r"'metric' parameter of metric_ci must be a callable, a scikit-learn scorer or one of.*Got 3")
case(M, "metric-option-unsupported", lambda: metric_ci(Y01, SCORE, "roc_auc", average="micro"), V, r"metric 'roc_auc' of metric_ci accepts the options \['pos_label'\]. Got \['average'\]")
case(M, "metric-undefined-on-data", lambda: metric_ci(np.ones(N, int), SCORE, "roc_auc"), V, r"metric roc_auc is undefined on the original data of metric_ci")
case(M, "metric-callable-nan-on-data", lambda: metric_ci(SCORE, _with_nan(SCORE), lambda a, b: float(np.mean(a - b))), V, r"metric <lambda> is undefined on the original data")
case(M, "metric-raises-on-data", lambda: metric_ci(Y01, SCORE, lambda a, b: 1 / 0), S, r"metric <lambda> raised on the original data: ZeroDivisionError")
case(M, "metric-raises-on-replicate", lambda: metric_ci(Y01, SCORE, _metric_failing_on_replicates, n_resamples=20, random_state=0), S, r"metric _metric_failing_on_replicates raised on replicate \d+: RuntimeError\('metric boom'\). Regenerate the replicate with resampler.replicate", False)
case(M, "metric-undefined-on-replicates", lambda: metric_ci(np.r_[1, np.zeros(9, int)], np.arange(10.0), "roc_auc", n_resamples=100, random_state=0), V, r"metric roc_auc is undefined on \d+ of 100 bootstrap replicates \(first: replicate \d+;.*Pass undefined='omit'", False)
case(M, "sample_weight-negative", lambda: metric_ci(Y01, SCORE, "roc_auc", sample_weight=-np.ones(N)), V, r"'sample_weight' parameter of metric_ci must hold finite, non-negative weights with a positive sum. Got minimum -1.0")
case(M, "sample_weight-nan", lambda: metric_ci(Y01, SCORE, "roc_auc", sample_weight=_with_nan(np.ones(N))), V, r"'sample_weight' parameter of metric_ci must hold finite")
case(M, "sample_weight-zero-sum", lambda: metric_ci(Y01, SCORE, "roc_auc", sample_weight=np.zeros(N)), V, r"'sample_weight' parameter.*positive sum. Got minimum 0.0 and sum 0.0")
case(M, "sample_weight-length", lambda: metric_ci(Y01, SCORE, "roc_auc", sample_weight=np.ones(5)), V, r"'sample_weight' parameter of metric_ci must be a 1-d array with one weight per row of y_true \(40\). Got shape \(5,\)")
case(M, "sample_weight-strings", lambda: metric_ci(Y01, SCORE, "roc_auc", sample_weight=np.array(["a"] * N)), V, r"'sample_weight' parameter of metric_ci must contain real numbers")
case(M, "sample_weight-metric-without", lambda: metric_ci(Y01, SCORE, _accuracy_no_weights, sample_weight=np.ones(N)), V, r"'sample_weight' parameter of metric_ci needs a metric that accepts sample_weight")
case(M, "groups-length", lambda: metric_ci(Y01, SCORE, "roc_auc", groups=np.arange(5)), V, r"'groups' parameter of metric_ci must have one label per row of y_true \(40\). Got 5")
case(M, "stratify-str", lambda: metric_ci(Y01, SCORE, "roc_auc", stratify="yes"), V, r"'stratify' parameter of metric_ci must be True or False. Got 'yes'")
case(M, "stratify-and-groups", lambda: metric_ci(Y01, SCORE, "roc_auc", stratify=True, groups=GROUPS), V, r"'stratify' and 'groups' parameters of metric_ci cannot be used together")
case(M, "stratify-and-resampler", lambda: metric_ci(Y01, SCORE, "roc_auc", stratify=True, resampler=Bootstrap()), V, r"'stratify' parameter of metric_ci must be False when a resampler is given")
case(M, "method-studentized", lambda: metric_ci(Y01, SCORE, "roc_auc", method="studentized"), V, r"'method' parameter of metric_ci must be one of \{'percentile', 'basic', 'normal', 'bc', 'bca'\}. Got 'studentized'")
case(M, "level-1", lambda: metric_ci(Y01, SCORE, "roc_auc", level=1), V, r"'level' parameter of metric_ci must be a float in \(0, 1\). Got 1")
case(M, "level-95", lambda: metric_ci(Y01, SCORE, "roc_auc", level=95), V, r"'level' parameter.*Got 95")
case(M, "undefined-policy", lambda: metric_ci(Y01, SCORE, "roc_auc", undefined="ignore"), V, r"'undefined' parameter of metric_ci must be one of \{'raise', 'omit'\}. Got 'ignore'")
case(M, "n_jobs-0", lambda: metric_ci(Y01, SCORE, "roc_auc", n_jobs=0), V, r"'n_jobs' parameter of metric_ci must be an int other than 0")
case(M, "n_jobs-float", lambda: metric_ci(Y01, SCORE, "roc_auc", n_jobs=1.5), V, r"'n_jobs' parameter of metric_ci.*Got 1.5")
case(M, "n_resamples-0", lambda: metric_ci(Y01, SCORE, "roc_auc", n_resamples=0), V, r"'n_resamples' parameter of metric_ci must be an int in \[1, 2\*\*32 - 1\] or None. Got 0")
case(M, "n_resamples-2**32", lambda: metric_ci(Y01, SCORE, "roc_auc", n_resamples=2**32), V, r"'n_resamples' parameter of metric_ci must be an int in \[1, 2\*\*32 - 1\] or None. Got 4294967296")
case(M, "random_state-str", lambda: metric_ci(Y01, SCORE, "roc_auc", random_state="a"), V, r"'random_state' parameter of Bootstrap must be None, a non-negative int")
case(M, "resampler-str", lambda: metric_ci(Y01, SCORE, "roc_auc", resampler="iid"), V, r"'resampler' parameter of metric_ci must be None or a skboot resampler")
case(M, "resampler-block_length", lambda: metric_ci(Y01, SCORE, "roc_auc", resampler=MovingBlockBootstrap(block_length=0)), V, r"'block_length' parameter of MovingBlockBootstrap")
case(M, "bayesian-metric-without-weights", lambda: metric_ci(Y01, SCORE, _accuracy_no_weights, resampler=BayesianBootstrap()), V, r"resampler of metric_ci gives continuous weights \(BayesianBootstrap\), so the metric must accept sample_weight")
case(M, "result-confidence_interval-level", lambda: _metric_result().confidence_interval(level=0), V, r"'level' parameter.*Got 0")
case(M, "result-confidence_interval-method", lambda: _metric_result().confidence_interval(method="studentized"), V, r"'method' parameter of confidence_interval must be one of \{'percentile'.*Got 'studentized'")
case(M, "result-confidence_interval-alternative", lambda: _metric_result().confidence_interval(alternative="both"), V, r"'alternative' parameter of confidence_interval must be one of \{'two-sided', 'less', 'greater'\}. Got 'both'")
C = "compare_metrics"
case(C, "y_pred_b-length", lambda: compare_metrics(Y01, SCORE, SCORE[:5], "roc_auc"), V, r"'y_pred_b' parameter of compare_metrics must have as many rows as y_true \(40\). Got 5")
case(C, "y_pred_a-estimator", lambda: compare_metrics(Y01, LogisticRegression(), LinearRegression(), "accuracy"), V, r"'y_pred_a' parameter of compare_metrics must be an array of predictions. Got an estimator \(LogisticRegression\) instead")
case(C, "y_pred_a-None", lambda: compare_metrics(Y01, None, SCORE, "roc_auc"), V, r"'y_pred_a' parameter of compare_metrics must be an array-like. Got None")
case(C, "y_pred_b-nan", lambda: compare_metrics(Y01, SCORE, _with_nan(SCORE), "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain only finite values.*\(in 'y_pred_b' of compare_metrics\)")
case(C, "metric-unknown", lambda: compare_metrics(Y01, SCORE, SCORE, "bogus"), V, r"'metric' parameter of compare_metrics must be a callable.*Got 'bogus'")
case(C, "level-nan", lambda: compare_metrics(Y01, SCORE, SCORE, "roc_auc", level=float("nan")), V, r"'level' parameter.*Got nan")
case(C, "method-BCA-", lambda: compare_metrics(Y01, SCORE, SCORE, "roc_auc", method="BCA-"), V, r"'method' parameter of compare_metrics must be one of.*Got 'BCA-'")
case(C, "n_jobs-0", lambda: compare_metrics(Y01, SCORE, SCORE, "roc_auc", n_jobs=0), V, r"'n_jobs' parameter of compare_metrics must be an int other than 0")
case(C, "n_resamples-2**32", lambda: compare_metrics(Y01, SCORE, SCORE, "roc_auc", n_resamples=2**32), V, r"'n_resamples' parameter of compare_metrics must be an int in \[1, 2\*\*32 - 1\] or None. Got 4294967296")

# -- bootstrap_score --------------------------------------------------------------
BS = "bootstrap_score"
_LR = LogisticRegression
case(BS, "rule-632", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", rule="632"), V, r"'rule' parameter of bootstrap_score must be one of \{'oob', '\.632', '\.632\+'\}. Got '632'")
case(BS, "undefined-None", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", undefined=None), V, r"'undefined' parameter of bootstrap_score must be one of \{'raise', 'omit'\}. Got None")
case(BS, "estimator-None", lambda: bootstrap_score(None, XR, Y01, scoring="accuracy"), V, r"'estimator' parameter of bootstrap_score must be an estimator object implementing 'fit'. Got None")
case(BS, "estimator-str", lambda: bootstrap_score("lr", XR, Y01, scoring="accuracy"), V, r"'estimator' parameter of bootstrap_score.*Got 'lr'")
case(BS, "estimator-without-fit", lambda: bootstrap_score(_NoFit(), XR, Y01, scoring="accuracy"), V, r"'estimator' parameter of bootstrap_score must be an estimator object implementing 'fit'")
case(BS, "resampler-str", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", resampler="iid"), V, r"'resampler' parameter of bootstrap_score must be None or a skboot resampler. Got 'iid'")
case(BS, "resampler-bayesian", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", n_resamples=5, resampler=BayesianBootstrap()), V, r"resampler of bootstrap_score gives continuous weights \(BayesianBootstrap\), which have no out-of-bag rows")
case(BS, "n_resamples-conflict", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", resampler=Bootstrap(5), n_resamples=7), V, r"'n_resamples' parameter of bootstrap_score \(7\) conflicts with the resampler's n_resamples \(5\)")
case(BS, "n_resamples-0", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", n_resamples=0), V, r"'n_resamples' parameter of bootstrap_score must be an int in \[1, 2\*\*32 - 1\] or None. Got 0")
case(BS, "n_jobs-str", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", n_jobs="2"), V, r"'n_jobs' parameter of bootstrap_score must be an int other than 0.*Got '2'")
case(BS, "scoring-None", lambda: bootstrap_score(_LR(), XR, Y01, scoring=None), V, r"'scoring' parameter of bootstrap_score must be a scorer name or a callable scorer. Got None")
case(BS, "n_resamples-2**32", lambda: bootstrap_score(_LR(), XR, Y01, scoring="accuracy", n_resamples=2**32), V, r"'n_resamples' parameter of bootstrap_score must be an int in \[1, 2\*\*32 - 1\] or None. Got 4294967296")
case(BS, "scoring-list", lambda: bootstrap_score(_LR(), XR, Y01, scoring=["accuracy"]), V, r"'scoring' parameter of bootstrap_score must be a scorer name or a callable scorer. Got \['accuracy'\]")
case(BS, "scoring-metric-function", lambda: bootstrap_score(_LR(), XR, Y01, scoring=_accuracy_no_weights, n_resamples=5), V, r"'scoring' parameter of bootstrap_score must be a scorer name \(sklearn.metrics.get_scorer_names\(\)\) or a callable scorer\(estimator, X, y\). Got <function _accuracy_no_weights")
case(BS, "scoring-unknown", lambda: bootstrap_score(_LR(), XR, Y01, scoring="bogus", n_resamples=5), V, r"'scoring' parameter of bootstrap_score must be a scorer name \(sklearn.metrics.get_scorer_names\(\)\) or a callable scorer\(estimator, X, y\). Got 'bogus'")
case(BS, "y-2d", lambda: bootstrap_score(_LR(), XR, np.c_[Y01, Y01], scoring="accuracy", n_resamples=5), V, r"'y' parameter of bootstrap_score must be 1-d with one target per row of X \(40\). Got shape \(40, 2\)")
case(BS, "y-length", lambda: bootstrap_score(_LR(), XR, Y01[:5], scoring="accuracy", n_resamples=5), V, r"'y' parameter of bootstrap_score must be 1-d.*Got shape \(5,\)")
case(BS, "X-nan-estimator-refuses", lambda: bootstrap_score(_LR(), _with_nan(XR), Y01, scoring="accuracy", n_resamples=5), S, r"The fit of LogisticRegression raised on the original data: ValueError\(.Input X contains NaN")

# -- optimal_block_length ---------------------------------------------------------
OBL = "optimal_block_length"
case(OBL, "short", lambda: optimal_block_length(np.arange(5.0)), V, r"'x' parameter of optimal_block_length must have at least 9 observations. Got 5")
case(OBL, "constant", lambda: optimal_block_length(np.ones(20)), V, r"'x' parameter of optimal_block_length must not be constant \(zero variance\)")
case(OBL, "constant-column", lambda: optimal_block_length(np.c_[X1, np.ones(N)]), V, r"must not be constant.*Got constant data in column 1")
case(OBL, "nan", lambda: optimal_block_length(_with_nan(X1)), V, r"'x' parameter of optimal_block_length must contain only finite values. Got 1 NaN or infinite value\(s\) in the series")
case(OBL, "inf", lambda: optimal_block_length(_with_inf(X1)), V, r"must contain only finite values. Got 1 NaN or infinite")
case(OBL, "strings", lambda: optimal_block_length(np.array(["a"] * 20)), V, r"'x' parameter of optimal_block_length must contain real numbers. Got dtype <U1")
case(OBL, "complex", lambda: optimal_block_length(X1.astype(complex)), V, r"must contain real numbers. Got dtype complex128")
case(OBL, "3d", lambda: optimal_block_length(np.zeros((20, 2, 2))), V, r"'x' parameter of optimal_block_length must be 1-D or 2-D. Got an array of shape \(20, 2, 2\)")
case(OBL, "empty", lambda: optimal_block_length([]), V, r"'x' parameter of optimal_block_length must be non-empty")
case(OBL, "scalar", lambda: optimal_block_length(3.0), V, r"must be 1-D or 2-D. Got an array of shape \(\)")
case(OBL, "None", lambda: optimal_block_length(None), V, r"'x' parameter of optimal_block_length must be an array-like of real numbers. Got None")
case(OBL, "ragged", lambda: optimal_block_length([[1, 2], [3]]), V, r"must be an array-like of real numbers. Got a list that cannot be converted")
case(OBL, "frame-text-column", lambda: optimal_block_length(pd.DataFrame({"a": X1, "b": ["s"] * N})), V, r"must contain real numbers. Got dtype \w+ in column 'b'")
case(OBL, "nullable-missing", lambda: optimal_block_length(pd.Series(pd.array([1.0, None] * 10, dtype="Float64"))), V, r"must contain only finite values. Got 10 NaN")

# -- skboot.intervals (pure functions) --------------------------------------------
IV = "intervals"
case(IV, "distribution-nan", lambda: iv.percentile_interval(_with_nan(X1)), V, r"'distribution' parameter of percentile_interval must contain only finite values. Got 1 non-finite replicate\(s\) out of 40")
case(IV, "distribution-empty", lambda: iv.percentile_interval([]), V, r"'distribution' parameter of percentile_interval must be an array of shape \(B,\) or \(B, k\) with B >= 1 and k >= 1. Got shape \(0,\)")
case(IV, "distribution-3d", lambda: iv.normal_interval(np.zeros((2, 2, 2)), 0.0), V, r"'distribution' parameter of normal_interval must be an array of shape.*Got shape \(2, 2, 2\)")
case(IV, "distribution-strings", lambda: iv.percentile_interval(["a"]), V, r"'distribution' parameter of percentile_interval must contain real numbers. Got dtype <U1")
case(IV, "level-0", lambda: iv.percentile_interval(X1, level=0), V, r"'level' parameter of percentile_interval must be a float in \(0, 1\). Got 0")
case(IV, "alternative", lambda: iv.basic_interval(X1, 0.0, alternative="both"), V, r"'alternative' parameter of basic_interval must be one of \{'two-sided', 'less', 'greater'\}. Got 'both'")
case(IV, "estimate-shape", lambda: iv.basic_interval(X1, [0.0, 1.0]), V, r"'estimate' parameter of basic_interval must be a float, as the distribution has shape \(B,\). Got shape \(2,\)")
case(IV, "estimate-shape-2d", lambda: iv.bc_interval(X2, 0.0), V, r"'estimate' parameter of bc_interval must be an array of shape \(3,\), one value per column")
case(IV, "estimate-nan", lambda: iv.basic_interval(X1, np.nan), V, r"'estimate' parameter of basic_interval must be finite. Got 1 non-finite")
case(IV, "jackknife-nan", lambda: iv.bca_interval(X1, 0.0, _with_nan(X1)), V, r"'jackknife_values' parameter of bca_interval must contain only finite values. Got 1 non-finite leave-one-out value")
case(IV, "jackknife-shape", lambda: iv.bca_interval(X1, 0.0, np.zeros((3, 2))), V, r"'jackknife_values' parameter of bca_interval must be an array of shape \(n,\) with n >= 1, matching the \(B,\) distribution. Got shape \(3, 2\)")
case(IV, "normal-ddof", lambda: iv.normal_interval(X1, 0.0, ddof=N), V, r"'ddof' parameter of normal_interval must be an int in \[0, B - 1 = 39\]. Got 40")
case(IV, "studentized-se-shape", lambda: iv.studentized_interval(X1, 0.0, 1.0, np.ones(3)), V, r"'replicate_standard_errors' parameter of studentized_interval must be an array of the distribution's shape \(40,\). Got shape \(3,\)")
case(IV, "studentized-se-negative", lambda: iv.studentized_interval(X1, 0.0, -1.0, np.ones(N)), V, r"'standard_error' parameter of studentized_interval must hold non-negative standard errors. Got 1 negative")

# -- multiple comparisons: SPA, RealityCheck, StepM, MCS ---------------------------
CB = "curve_bands"
_YB = np.r_[np.zeros(20, int), np.ones(20, int)]
_SB = np.linspace(0, 1, 40)
case(CB, "fpr_grid-outside", lambda: skboot.roc_curve_band(_YB, _SB, fpr_grid=[0.1, 1.2]), V, r"'fpr_grid' parameter of roc_curve_band must hold values in \[0, 1\]. Got \[1.2\]")
case(CB, "fpr_grid-decreasing", lambda: skboot.roc_curve_band(_YB, _SB, fpr_grid=[0.5, 0.2]), V, r"'fpr_grid' parameter of roc_curve_band must be strictly increasing")
case(CB, "y_true-one-class", lambda: skboot.roc_curve_band(np.ones(40, int), _SB), V, r"'y_true' parameter of roc_curve_band must hold both classes")
case(CB, "level", lambda: skboot.roc_curve_band(_YB, _SB, level=1.5), V, r"'level' parameter of roc_curve_band must be a float in \(0, 1\). Got 1.5")
case(CB, "y_score-length", lambda: skboot.roc_curve_band(_YB, _SB[:10]), V, r"'y_score' parameter of roc_curve_band must have as many rows as y_true \(40\). Got 10")
case(CB, "recall_grid-outside", lambda: skboot.precision_recall_band(_YB, _SB, recall_grid=[-0.1, 0.5]), V, r"'recall_grid' parameter of precision_recall_band must hold values in \[0, 1\]")
case(CB, "n_resamples-0", lambda: skboot.precision_recall_band(_YB, _SB, n_resamples=0), V, r"'n_resamples' parameter of precision_recall_band must be an int in \[1, 2\*\*32 - 1\] or None. Got 0")
case(CB, "display-level", lambda: skboot.RocCurveBandDisplay.from_predictions(_YB, _SB, level=0), V, r"'level' parameter of roc_curve_band must be a float in \(0, 1\). Got 0")
case(CB, "display-recall_grid-2d", lambda: skboot.PrecisionRecallBandDisplay.from_predictions(_YB, _SB, recall_grid=[[0.1]]), V, r"'recall_grid' parameter of precision_recall_band must be 1-D")
_CR, _CP = skboot.compare_roc_curves, skboot.compare_precision_recall_curves
case(CB, "compare-y_score_b-length", lambda: _CR(_YB, _SB, _SB[:10]), V, r"'y_score_b' parameter of compare_roc_curves must have as many rows as y_true \(40\). Got 10")
case(CB, "compare-y_score_a-nan", lambda: _CR(_YB, np.r_[np.nan, _SB[1:]], _SB), V, r"'y_score_a' parameter of compare_roc_curves must contain only finite values")
case(CB, "compare-y_score_b-2d", lambda: _CR(_YB, _SB, np.c_[_SB, _SB]), V, r"'y_score_b' parameter of compare_roc_curves must be 1-D")
case(CB, "compare-fpr_grid-outside", lambda: _CR(_YB, _SB, _SB[::-1], fpr_grid=[0.1, 1.2]), V, r"'fpr_grid' parameter of compare_roc_curves must hold values in \[0, 1\]. Got \[1.2\]")
case(CB, "compare-y_true-one-class", lambda: _CP(np.ones(40, int), _SB, _SB[::-1]), V, r"'y_true' parameter of compare_precision_recall_curves must hold both classes")
case(CB, "compare-recall_grid-decreasing", lambda: _CP(_YB, _SB, _SB[::-1], recall_grid=[0.5, 0.2]), V, r"'recall_grid' parameter of compare_precision_recall_curves must be strictly increasing")
case(CB, "compare-undefined", lambda: _CP(_YB, _SB, _SB[::-1], undefined="drop"), V, r"'undefined' parameter of compare_precision_recall_curves must be one of \{'raise', 'omit'\}. Got 'drop'")

# -- abc_interval ------------------------------------------------------------------
AB = "abc_interval"
_XA = np.linspace(1.0, 3.0, 12) ** 2
case(AB, "level", lambda: abc_interval(_XA, level=1.5), V, r"'level' parameter of abc_interval must be a float in \(0, 1\). Got 1.5")
case(AB, "statistic-median", lambda: abc_interval(_XA, "median"), V, r"'statistic' parameter of abc_interval must be one of \{'mean', .*\} \(the statistics with a weighted form\) or a callable statistic\(data, weights\). Got 'median'")
case(AB, "data-2d-mean", lambda: abc_interval(np.ones((5, 2)), "mean"), V, r"'data' parameter of abc_interval must be 1-D for statistic='mean'. Got an array of shape \(5, 2\)")
case(AB, "ignores-weights", lambda: abc_interval(_XA, lambda d, w: float(np.mean(d))), V, r"'statistic' parameter of abc_interval must depend on the weights")
case(AB, "not-smooth", lambda: abc_interval(_XA, lambda d, w: float(np.sum(w * d) + (w[0] > 1 / 12))), V, r"'statistic' parameter of abc_interval must be a smooth function of the weights")

MC = "multiple_comparison"
_LOSS = np.random.default_rng(5).chisquare(5, (40, 3))
_BM = _LOSS[:, 0] + 0.1
_NANL = _LOSS.copy()
_NANL[4, 1] = np.nan
_TWIN = np.column_stack([_LOSS, _LOSS[:, 1] + 1.0])
case(MC, "mcs-one-model", lambda: skboot.MCS().compute(_LOSS[:, :1]), V, r"'losses' parameter of MCS must have at least 2 columns \(one per model")
case(MC, "mcs-nan", lambda: skboot.MCS().compute(_NANL), V, r"'losses' parameter of MCS must contain only finite losses. Got 1 NaN or infinite value\(s\) instead \(first at row 4, column 1\)")
case(MC, "mcs-twin-models", lambda: skboot.MCS(block_length=3).compute(_TWIN), V, r"'losses' parameter of MCS must not hold two models whose losses differ by a constant: models 1 and 3")
case(MC, "mcs-level", lambda: skboot.MCS(level=0.0).compute(_LOSS), V, r"'level' parameter of MCS must be a float in \(0, 1\). Got 0.0")
case(MC, "mcs-statistic", lambda: skboot.MCS(statistic="range").compute(_LOSS), V, r"'statistic' parameter of MCS must be one of \{'R', 'max'\}. Got 'range'")
case(MC, "spa-lengths", lambda: skboot.SPA().compute(_BM[:-1], _LOSS), V, r"'models' parameter of SPA must have one row per observation of the benchmark \(39\). Got 40 rows")
case(MC, "spa-constant-differential", lambda: skboot.SPA(block_length=3).compute(_BM, _LOSS), V, r"'models' parameter of SPA must not hold a model whose loss differential is constant: model 0 has one")
case(MC, "spa-variance", lambda: skboot.SPA(variance="nested").compute(_BM, _LOSS), V, r"'variance' parameter of SPA must be one of \{'auto', 'asymptotic', 'bootstrap'\}")
case(MC, "spa-resampler", lambda: skboot.SPA(resampler="sb").compute(_BM, _LOSS), V, r"'resampler' parameter of SPA must be None, one of \{'stationary'")
case(MC, "rc-block-length", lambda: skboot.RealityCheck(block_length=0.5).compute(_BM, _LOSS), V, r"'block_length' parameter of RealityCheck must be 'auto' or a number >= 1")
case(MC, "stepm-pvalue-type", lambda: skboot.StepM(pvalue_type="max").compute(_BM, _LOSS), V, r"'pvalue_type' parameter of StepM must be one of")
case(MC, "metric-unknown", lambda: skboot.MCS().compute_metric(Y01, np.column_stack([SCORE, SCORE]), "auc"), V, r"'metric' parameter of MCS must be one of the fused metrics")
case(MC, "metric-lengths", lambda: skboot.SPA().compute_metric(Y01, SCORE, SCORE[:-1], "roc_auc"), V, r"'models' parameter of SPA must have one prediction per row of y_true")
case(MC, "metric-same-predictions", lambda: skboot.MCS(n_resamples=20).compute_metric(Y01, np.column_stack([SCORE, SCORE]), "roc_auc"), V, r"'predictions' parameter of MCS must not hold two models whose roc_auc replicates differ by a constant", pre=False)

# -- the CLI (exit status 2, message on stderr) ------------------------------------
CL = "cli"
case(CL, "file-missing", lambda: _cli("ci", "/nonexistent/skboot.csv", "--column", "x"), CLIError, r"skboot ci: file not found: /nonexistent/skboot.csv")
case(CL, "file-not-csv", lambda: _cli("ci", _csv("binary.csv"), "--column", "x"), CLIError, r"skboot ci: (cannot read .* as CSV|column 'x' not in)")
case(CL, "column-missing", lambda: _cli("ci", _csv(), "--column", "nope"), CLIError, r"skboot ci: column 'nope' not in .*data.csv \(columns: x, text, gap\)")
case(CL, "column-text", lambda: _cli("ci", _csv(), "--column", "text"), CLIError, r"skboot ci: column 'text' has 1 non-numeric value\(s\)")
case(CL, "column-missing-values", lambda: _cli("ci", _csv(), "--column", "gap"), CLIError, r"skboot ci: column 'gap' has 1 missing value\(s\); pass --nan-policy omit to drop them")
case(CL, "one-row", lambda: _cli("ci", _csv("one.csv"), "--column", "x"), CLIError, r"skboot ci: The 'data' parameter of bootstrap must have at least 2 observations. Got 1")
case(CL, "level-1.5", lambda: _cli("ci", _csv(), "--column", "x", "--level", "1.5"), CLIError, r"argument --level: must be in \(0, 1\), got '1.5'")
case(CL, "level-text", lambda: _cli("ci", _csv(), "--column", "x", "--level", "x"), CLIError, r"argument --level: must be a number in \(0, 1\), got 'x'")
case(CL, "n-resamples-0", lambda: _cli("ci", _csv(), "--column", "x", "--n-resamples", "0"), CLIError, r"argument --n-resamples: must be an integer >= 1, got '0'")
case(CL, "method-unknown", lambda: _cli("ci", _csv(), "--column", "x", "--method", "B_Ca"), CLIError, r"argument --method: invalid choice: 'b_ca'")
case(CL, "statistic-unknown", lambda: _cli("ci", _csv(), "--column", "x", "--statistic", "mode"), CLIError, r"argument --statistic: invalid choice: 'mode'")
case(CL, "block-length-text", lambda: _cli("ci", _csv(), "--column", "x", "--resampler", "moving", "--block-length", "x"), CLIError, r"argument --block-length: must be 'auto' or a number, got 'x'")
case(CL, "block-length-0", lambda: _cli("ci", _csv(), "--column", "x", "--resampler", "moving", "--block-length", "0"), CLIError, r"skboot ci: The 'block_length' parameter of MovingBlockBootstrap must be 'auto' or an int")
case(CL, "block-length-iid", lambda: _cli("ci", _csv(), "--column", "x", "--block-length", "3"), CLIError, r"skboot ci: error: --block-length applies to the block resamplers \(stationary, moving, circular\) only, not --resampler iid")
case(CL, "block-length-poisson", lambda: _cli("ci", _csv(), "--column", "x", "--resampler", "poisson", "--block-length", "3"), CLIError, r"skboot ci: error: --block-length applies to the block resamplers .* not --resampler poisson")
case(CL, "seed-negative", lambda: _cli("ci", _csv(), "--column", "x", "--seed", "-1"), CLIError, r"argument --seed: must be an integer >= 0, got '-1'")
case(CL, "file-directory", lambda: _cli("ci", str(_csv_dir()), "--column", "x"), CLIError, r"skboot ci: .* is a directory, not a CSV file")
case(CL, "plot-missing-folder", lambda: _cli("ci", _csv(), "--column", "x", "--plot", "/nonexistent/skboot/d.png"), CLIError, r"skboot ci: --plot /nonexistent/skboot/d.png: the folder /nonexistent/skboot does not exist")
case(CL, "studentized-nested-blocks", lambda: _cli("ci", _csv(), "--column", "x", "--statistic", "median", "--method", "studentized", "--resampler", "stationary"), CLIError, r"runs a nested bootstrap, which needs --resampler iid; got --resampler stationary")
case(CL, "no-command", lambda: _cli(), CLIError, r"the following arguments are required: command")

# -- model-based resamplers and the wild cluster bootstrap (issue 18) -------------
MB = "model_based"
AR_X = np.cumsum(np.random.default_rng(3).normal(size=80)) * 0.1 + np.random.default_rng(4).normal(size=80)
case(MB, "residual-order", lambda: ResidualBootstrap(order=-1).fit(AR_X), V, r"'order' parameter of ResidualBootstrap must be an int >= 0 or one of \{'aic', 'bic', 'hqic'\}. Got -1")
case(MB, "residual-order-too-large", lambda: ResidualBootstrap(order=80).fit(AR_X), V, r"'order' parameter of ResidualBootstrap must be at most \(n - 2\) // 2 = 39 for a series of 80 values")
case(MB, "residual-fit_method", lambda: ResidualBootstrap(fit_method="mle").fit(AR_X), V, r"'fit_method' parameter of ResidualBootstrap must be one of \{'ols', 'yule_walker'\}. Got 'mle'")
case(MB, "residual-nonstationary", lambda: ResidualBootstrap(order=1).fit(np.cumsum(np.ones(80)) ** 1.5), V, r"'X' parameter of ResidualBootstrap gives a non-stationary AR\(1\) fit")
case(MB, "residual-2d", lambda: bootstrap(np.ones((80, 2)), "mean", resampler=ResidualBootstrap()), V, r"'X' parameter of ResidualBootstrap must be a 1-D series")
case(MB, "residual-split", lambda: ResidualBootstrap().split(AR_X), V, r"ResidualBootstrap generates synthetic samples.*cannot be a scikit-learn splitter")
case(MB, "residual-bca", lambda: bootstrap(AR_X, "mean", n_resamples=20, resampler=ResidualBootstrap(order=1)).confidence_interval(method="bca"), V, r"'bca' interval needs the acceleration from a jackknife", False)
case(MB, "sieve-order", lambda: SieveBootstrap(order="hq").fit(AR_X), V, r"'order' parameter of SieveBootstrap must be one of \{'aic', 'bic', 'hqic'\}")
case(MB, "wild-weights", lambda: WildBootstrap(weights="gamma").fit(AR_X), V, r"'weights' parameter of WildBootstrap must be one of \{'rademacher', 'mammen', 'webb', 'normal'\}. Got 'gamma'")
case(MB, "wild-one-cluster", lambda: WildBootstrap().fit(AR_X, AR_X, np.zeros(80)), V, r"'groups' parameter of WildBootstrap must have at least 2 clusters")
case(MB, "wild-singular", lambda: WildBootstrap().fit(np.c_[AR_X, AR_X], AR_X), V, r"'X' parameter of WildBootstrap gives a singular design")
case(MB, "wild-builtin-regression", lambda: bootstrap(AR_X, "mean", y=AR_X, resampler=WildBootstrap()), V, r"'statistic' parameter of bootstrap must be a callable statistic\(X, y\)")
case(MB, "wcb-one-cluster", lambda: wild_cluster_bootstrap(AR_X, AR_X, np.zeros(80)), V, r"'groups' parameter of wild_cluster_bootstrap must have at least 2 clusters.*Got 1 cluster")
case(MB, "wcb-singular", lambda: wild_cluster_bootstrap(np.c_[AR_X, 2 * AR_X], AR_X, np.arange(80) % 4), V, r"'X' parameter of wild_cluster_bootstrap gives a singular design")
case(MB, "wcb-coef", lambda: wild_cluster_bootstrap(AR_X, AR_X, np.arange(80) % 4, coef=2), V, r"'coef' parameter of wild_cluster_bootstrap must be an int in \[0, 0\]. Got 2")
case(MB, "wcb-iv-groups", lambda: wild_cluster_bootstrap_iv(AR_X, AR_X, AR_X, AR_X, np.zeros(80)), V, r"'groups' parameter of wild_cluster_bootstrap_iv must have at least 2 clusters")
case(MB, "wcb-alternative", lambda: wild_cluster_bootstrap(AR_X, AR_X, np.arange(80) % 4, alternative="both"), V, r"'alternative' parameter of wild_cluster_bootstrap must be one of")

# fmt: on


def test_catalogue_size_and_coverage():
    """At least 60 distinct bad inputs; every public entry point is in the table."""
    ids = [(entry, id_) for entry, id_, *_ in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(CASES) >= 60
    assert {entry for entry, *_ in CASES} == {
        B,
        E,
        R,
        RS,
        M,
        C,
        BS,
        OBL,
        IV,
        AB,
        CL,
        MB,
        MC,
        CB,
    }
    # the names of skboot.__all__ that take user input; the others are results,
    # warnings, errors, a constant and the (argument-free) cache folder
    entry_points = {
        "bootstrap", "BootstrapStatistic", "BootstrapResult", "metric_ci",
        "compare_metrics", "bootstrap_score", "optimal_block_length",
        "Bootstrap", "StratifiedBootstrap", "GroupBootstrap", "PoissonBootstrap",
        "BayesianBootstrap", "MovingBlockBootstrap", "CircularBlockBootstrap",
        "NonOverlappingBlockBootstrap", "StationaryBootstrap", "TaperedBlockBootstrap",
        "ResidualBootstrap", "SieveBootstrap", "WildBootstrap", "wild_cluster_bootstrap",
        "SPA", "RealityCheck", "StepM", "MCS",
        "Permutation", "permutation_test", "monte_carlo_test",
        "metric_permutation_test", "roc_curve_band", "precision_recall_band",
        "RocCurveBandDisplay", "PrecisionRecallBandDisplay", "abc_interval",
        "ParametricBootstrap", "VARResidualBootstrap", "wild_cluster_wald",
        "ARIMAResidualBootstrap", "wild_cluster_bootstrap_iv",
        "compare_roc_curves", "compare_precision_recall_curves",
    }  # fmt: skip
    outputs = {
        "ConfidenceInterval", "BootstrapScore", "MetricCI", "MetricComparison",
        "OptimalBlockLength", "StatisticError", "ResultFileError", "DegenerateDistributionWarning",
        "UndefinedStatisticWarning", "FewClustersWarning", "STREAM_VERSION", "cache_dir", "cuda_info",
        "WildClusterResult", "PermutationTestResult", "MonteCarloTestResult",
        "MetricPermutationTestResult", "SPAResult", "StepMResult", "MCSResult", "CurveBand",
        "ABCInterval", "WildClusterWaldResult", "CurveComparison", "WildClusterIVResult",
    }  # fmt: skip
    assert set(skboot.__all__) == entry_points | outputs


WORK = [
    ("skboot._run._run", "run_bootstrap"),
    ("skboot._run._studentized", "run_bootstrap"),
    ("skboot._engine._jackknife", "run_bootstrap"),
    ("skboot.metrics._ci", "run_bootstrap"),
    ("skboot.metrics._score", "run_bootstrap"),
    ("skboot.metrics._curves", "run_bootstrap"),
    ("skboot.statistic._inference", "jackknife"),
    ("skboot._run._run", "EstimatorStatistic"),
    ("skboot._run._studentized", "_nested_studentized"),
    ("skboot.statistic._inference", "calibration_inputs"),
    ("skboot.multiple_comparison._replicates", "run_bootstrap"),
]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch, WORK)


def test_forbid_work_catches_work(monkeypatch):
    """The harness of ``pre=True`` rows: valid calls do reach the patched work."""
    for make in _WARM:
        make()
    _forbid_work(monkeypatch)
    for valid in (
        lambda: bootstrap(X1, "mean", n_resamples=5),
        lambda: bootstrap(X1, np.median, n_resamples=5),
        lambda: _res_median().confidence_interval(method="bca"),
        lambda: _res_median().confidence_interval(method="studentized", n_inner=3),
        lambda: _res().confidence_interval(method="calibrated", n_inner=3),
        lambda: _res_median().confidence_interval(
            method="studentized", standard_error=np.std
        ),
        lambda: metric_ci(Y01, SCORE, "roc_auc", n_resamples=5),
        lambda: bootstrap_score(LinearRegression(), XR, YR, scoring="r2"),
        lambda: _cli("ci", _csv(), "--column", "x", "--n-resamples", "5"),
        lambda: skboot.MCS(block_length=3, n_resamples=5).compute(_LOSS),
        lambda: skboot.SPA(n_resamples=5).compute_metric(
            Y01, SCORE, SCORE * 2, "roc_auc"
        ),
    ):
        with pytest.raises(WorkStarted):
            valid()


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize(
    ("call", "exc", "match", "pre"),
    [pytest.param(*rest, id=f"{entry}:{id_}") for entry, id_, *rest in CASES],
)
def test_bad_input(call, exc, match, pre, monkeypatch):
    for make in _WARM:
        make()
    if pre:
        _forbid_work(monkeypatch)
    with pytest.raises(exc, match=match) as info:
        call()
    err = info.value
    if exc is CLIError:
        assert err.status == 2
        return
    # the error class: a ValueError for arguments, a StatisticError for user code
    if exc is StatisticError:
        assert isinstance(err, RuntimeError) and not isinstance(err, ValueError)
        assert isinstance(err.replicate, int)
        where = "original data" if err.replicate < 0 else f"replicate {err.replicate}"
        assert where in str(err)
        if pre:  # no replicate computed yet: the failure is on the original data
            assert err.replicate == -1
    else:
        assert isinstance(err, ValueError)
        assert not isinstance(err, StatisticError)
    # raised by skboot itself (sklearn's check_is_fitted for the unfitted estimator)
    origin = str(info.traceback[-1].path)
    if exc is NotFittedError and "sklearn" in origin:
        return
    assert f"{Path(skboot.__file__).parent}" in origin, origin


# ---------------------------------------------------------------------------
# "before any work", with a statistic that counts its calls
# ---------------------------------------------------------------------------
class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, a, *rest, **kw):
        self.calls += 1
        return float(np.mean(a))


@pytest.mark.parametrize(
    "bad",
    [
        {"n_resamples": 0},
        {"chunk_size": 0},
        {"n_jobs": 0},
        {"progress": "yes"},
        {"nan_policy": "drop"},
        {"random_state": -1},
        {"statistic_kwargs": [1]},
        {"vectorized": "yes"},
        {"paired": "x"},
        {"resampler": MovingBlockBootstrap(block_length=0)},
        {"resampler": StationaryBootstrap(block_length=30.0)},
        {"resampler": StratifiedBootstrap(), "y": [0, 1]},
        {"resampler": GroupBootstrap()},
        {"resampler": Bootstrap(sample_size=0)},
    ],
    ids=lambda d: ",".join(f"{k}={v!r}" for k, v in d.items()),
)
def test_invalid_argument_costs_no_call(bad):
    stat = Counter()
    with pytest.raises(ValueError):
        bootstrap(X1, stat, **{"n_resamples": 10, **bad})
    assert stat.calls == 0


def test_invalid_interval_arguments_cost_no_call():
    """level, method and alternative are checked before the jackknife (n calls of
    the statistic) and before the studentized bootstraps."""
    stat = Counter()
    bootstrap(X1, stat, n_resamples=10, random_state=0)
    assert stat.calls >= 11  # the estimate and 10 replicates
    stat.calls = 0
    res = bootstrap(X1, stat, n_resamples=10, random_state=0)
    stat.calls = 0
    se = Counter()
    for kw in (
        {"level": 1.5, "method": "bca"},
        {"level": 0, "method": "studentized", "standard_error": se},
        {
            "level": 0.9,
            "method": "studentized",
            "standard_error": se,
            "alternative": "x",
        },
        {"level": float("nan"), "method": "studentized", "n_inner": 5},
        {"method": "B_Ca"},
        {"jackknife_groups": "none"},
    ):
        with pytest.raises(ValueError):
            res.confidence_interval(**kw)
    assert stat.calls == 0 and se.calls == 0
    res.confidence_interval(method="bca")  # the valid call does the work
    assert stat.calls == N


def test_invalid_metric_arguments_cost_no_call():
    calls = []

    def metric(y_true, y_pred):
        calls.append(1)
        return float(np.mean(y_true == (y_pred > 0.5)))

    for bad in (
        {"level": 1},
        {"method": "studentized"},
        {"undefined": "skip"},
        {"n_jobs": 0},
        {"stratify": 1},
        {"n_resamples": -1},
        {"resampler": MovingBlockBootstrap(block_length=0)},
    ):
        with pytest.raises(ValueError):
            metric_ci(Y01, SCORE, metric, **{"n_resamples": 10, **bad})
        with pytest.raises(ValueError):
            compare_metrics(Y01, SCORE, SCORE, metric, **{"n_resamples": 10, **bad})
    assert calls == []


class CountingRegression(LinearRegression):
    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_invalid_refit_arguments_cost_no_fit():
    CountingRegression.fits = 0
    for bad in (
        {"rule": "632"},
        {"undefined": None},
        {"n_jobs": 0},
        {"n_resamples": 0},
        {"scoring": "bogus"},
        {"scoring": lambda y_true, y_pred: 0.0},
        {"n_resamples": 2**32},
        {"resampler": BayesianBootstrap(5)},
        {"resampler": MovingBlockBootstrap(5, block_length=0)},
    ):
        with pytest.raises(ValueError):
            bootstrap_score(CountingRegression(), XR, YR, **{"scoring": "r2", **bad})
    for bad in (
        {"n_jobs": 0},
        {"chunk_size": 0},
        {"progress": None},
        {"random_state": -1},
        {"resampler": MovingBlockBootstrap(block_length=0)},
    ):
        with pytest.raises(ValueError):
            BootstrapStatistic(
                lambda e: e.coef_, estimator=CountingRegression(), **bad
            ).fit(XR, YR)
    assert CountingRegression.fits == 0


# ---------------------------------------------------------------------------
# documented behaviours: nan_policy and non-finite values
# ---------------------------------------------------------------------------
def test_nan_policy_omit_equals_the_clean_data_on_every_path():
    x = _with_nan(X1, (3, 17))
    clean = np.delete(X1, [3, 17])
    for stat in ("mean", "median", np.median, lambda a, axis: a.mean(axis=axis)):
        omit = bootstrap(x, stat, n_resamples=30, random_state=1, nan_policy="omit")
        ref = bootstrap(clean, stat, n_resamples=30, random_state=1)
        np.testing.assert_array_equal(omit.distribution, ref.distribution)
        assert omit.n_omitted == 2 and omit.n_undefined == 0
    # 2-D: a row with a NaN in any column is dropped; paired arrays drop it in both
    X = _with_nan(X2, (0,))
    omit = bootstrap(X, "mean", n_resamples=20, random_state=1, nan_policy="omit")
    ref = bootstrap(X2[1:], "mean", n_resamples=20, random_state=1)
    np.testing.assert_array_equal(omit.distribution, ref.distribution)
    paired = bootstrap(
        (X1, x), _mean_pair, n_resamples=20, random_state=1, nan_policy="omit"
    )
    ref = bootstrap((clean, clean), _mean_pair, n_resamples=20, random_state=1)
    np.testing.assert_array_equal(paired.distribution, ref.distribution)
    # independent samples drop per sample (their lengths may then differ)
    ind = bootstrap(
        (x, X1), _mean_pair, paired=False, n_resamples=20, random_state=1,
        nan_policy="omit",
    )  # fmt: skip
    ref = bootstrap(
        (clean, X1), _mean_pair, paired=False, n_resamples=20, random_state=1
    )
    np.testing.assert_array_equal(ind.distribution, ref.distribution)
    assert ind.n_omitted == 2
    # y and groups follow the dropped rows
    strat = bootstrap(
        x, "mean", resampler=StratifiedBootstrap(20, random_state=1), y=Y01,
        nan_policy="omit",
    )  # fmt: skip
    ref = bootstrap(
        clean, "mean", resampler=StratifiedBootstrap(20, random_state=1),
        y=np.delete(Y01, [3, 17]),
    )  # fmt: skip
    np.testing.assert_array_equal(strat.distribution, ref.distribution)


def test_nan_policy_propagate_counts_undefined_replicates():
    x = _with_nan(X1, (3,))
    with pytest.warns(UndefinedStatisticWarning, match="original data either"):
        res = bootstrap(
            x, "mean", n_resamples=200, random_state=0, nan_policy="propagate"
        )
    assert np.isnan(res.estimate)
    contains = np.array(
        [
            3 in Bootstrap(200, random_state=0).fit(x).replicate(b).indices
            for b in range(200)
        ]
    )
    assert res.n_undefined == contains.sum() > 0
    np.testing.assert_array_equal(np.isnan(res.distribution), contains)
    with pytest.raises(ValueError, match="undefined"):
        res.confidence_interval(method="percentile")
    # a NaN-aware callable sees the NaN rows and stays defined
    res = bootstrap(
        x, np.nanmean, n_resamples=50, random_state=0, nan_policy="propagate"
    )
    assert np.isfinite(res.distribution).all() and res.n_undefined == 0


def test_inf_reaches_callables_but_not_builtins():
    """nan_policy is about NaN; +-inf is refused by the built-ins (whose sums it
    would poison) and passed to callables, which may handle it."""
    x = _with_inf(X1)
    with pytest.raises(ValueError, match="NaN or infinite"):
        bootstrap(x, "mean", n_resamples=10)
    res = bootstrap(x, np.median, n_resamples=50, random_state=0)
    assert np.isfinite(res.distribution).all()
    with pytest.warns(UndefinedStatisticWarning, match=r"not finite on \d+ of 50"):
        bootstrap(x, "mean", n_resamples=50, random_state=0, nan_policy="propagate")


def test_statistic_nan_is_counted_never_silent():
    with pytest.warns(UndefinedStatisticWarning, match=r"not finite on 20 of 20"):
        res = bootstrap(X1, lambda a: np.nan, n_resamples=20, random_state=0)
    assert res.n_undefined == 20
    # NaN on the original data only: a warning too
    with pytest.warns(
        UndefinedStatisticWarning, match="not finite on the original data"
    ):
        res = bootstrap(
            SEQ, lambda a: np.nan if a[0] == 0.0 and a[1] == 1.0 else 1.0,
            n_resamples=20, random_state=0,
        )  # fmt: skip
    assert res.n_undefined == 0 and np.isnan(res.estimate)
    with pytest.raises(
        ValueError, match="'estimate' parameter of basic_interval must be finite"
    ):
        res.confidence_interval(method="basic")


# ---------------------------------------------------------------------------
# documented behaviours: pandas labels
# ---------------------------------------------------------------------------
def test_pandas_duplicate_index_labels_are_positional():
    """Rows are positional: the index (duplicated, unsorted, anything) is never
    used to align, for the data, y or groups."""
    index = np.repeat([5, 1], N // 2)
    s = pd.Series(X1, index=index, name="v")
    ref = bootstrap(X1, "mean", n_resamples=30, random_state=0)
    res = bootstrap(s, "mean", n_resamples=30, random_state=0)
    np.testing.assert_array_equal(res.distribution.to_numpy(), ref.distribution)
    assert res.distribution.name == "v"
    y = pd.Series(Y01, index=np.arange(N)[::-1])  # would reorder if aligned
    strat = bootstrap(s, resampler=StratifiedBootstrap(30, random_state=0), y=y)
    ref = bootstrap(X1, resampler=StratifiedBootstrap(30, random_state=0), y=Y01)
    np.testing.assert_array_equal(strat.distribution.to_numpy(), ref.distribution)
    mres = metric_ci(
        pd.Series(Y01, index=index), pd.Series(SCORE, index=index[::-1]), "roc_auc",
        n_resamples=30, random_state=0,
    )  # fmt: skip
    mref = metric_ci(Y01, SCORE, "roc_auc", n_resamples=30, random_state=0)
    np.testing.assert_array_equal(mres.distribution, mref.distribution)


def test_pandas_duplicate_column_names_are_kept_as_given():
    frame = pd.DataFrame(X2, columns=["a", "a", "b"])
    res = bootstrap(frame, "mean", n_resamples=30, random_state=0)
    ref = bootstrap(X2, "mean", n_resamples=30, random_state=0)
    assert list(res.estimate.index) == ["a", "a", "b"]
    assert list(res.distribution.columns) == ["a", "a", "b"]
    np.testing.assert_array_equal(res.distribution.to_numpy(), ref.distribution)
    ci = res.confidence_interval(method="percentile")
    assert list(ci.low.index) == ["a", "a", "b"]
    est = BootstrapStatistic("mean", n_resamples=10, random_state=0).fit(frame)
    assert list(est.feature_names_in_) == ["a", "a", "b"]
    ax = res.plot(column=1)  # by position is unambiguous
    assert ax.get_xlabel() == "mean [a] (column 1)"


# ---------------------------------------------------------------------------
# documented behaviours: memory layout and dtypes
# ---------------------------------------------------------------------------
def _readonly(a: np.ndarray) -> np.ndarray:
    out = np.array(a)
    out.setflags(write=False)
    return out


LAYOUTS = {
    "strided": lambda a: np.repeat(a, 2, axis=0)[::2],
    "fortran": np.asfortranarray,
    "readonly": _readonly,
    "reversed-view": lambda a: np.ascontiguousarray(a[::-1])[::-1],
}
STATISTICS = {
    "mean": "mean",
    "std": "std",
    "median": "median",
    "plain": lambda a: np.mean(a, axis=0),
    "vectorized": lambda a, axis: a.mean(axis=axis),
}
RESAMPLERS = {
    "iid": lambda: Bootstrap(25, random_state=4),
    "stationary": lambda: StationaryBootstrap(25, block_length=3.5, random_state=4),
    "moving": lambda: MovingBlockBootstrap(25, block_length=3, random_state=4),
    "poisson": lambda: PoissonBootstrap(25, random_state=4),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("stat", STATISTICS)
@pytest.mark.parametrize("make", RESAMPLERS)
def test_non_contiguous_and_readonly_arrays_give_the_contiguous_result(
    layout, stat, make
):
    for data in (X1, X2):
        arr = LAYOUTS[layout](data)
        assert not arr.flags.c_contiguous or not arr.flags.writeable or arr.ndim == 1
        before = arr.copy()
        res = bootstrap(arr, STATISTICS[stat], resampler=RESAMPLERS[make]())
        ref = bootstrap(
            np.ascontiguousarray(data), STATISTICS[stat], resampler=RESAMPLERS[make]()
        )
        np.testing.assert_array_equal(res.distribution, ref.distribution)
        np.testing.assert_array_equal(arr, before)  # input never written


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts_on_the_other_entry_points(layout):
    to = LAYOUTS[layout]
    res = metric_ci(to(Y01), to(SCORE), "roc_auc", n_resamples=30, random_state=0)
    ref = metric_ci(Y01, SCORE, "roc_auc", n_resamples=30, random_state=0)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    a, b = optimal_block_length(to(X2)), optimal_block_length(X2)
    np.testing.assert_array_equal(a.stationary, b.stationary)
    np.testing.assert_array_equal(a.circular, b.circular)
    splits = list(CircularBlockBootstrap(3, random_state=0).split(to(X1)))
    refs = list(CircularBlockBootstrap(3, random_state=0).split(X1))
    for (tr, te), (rtr, rte) in zip(splits, refs, strict=True):
        np.testing.assert_array_equal(tr, rtr)
        np.testing.assert_array_equal(te, rte)
    res = bootstrap(to(X1), "mean", n_resamples=20, random_state=0)
    np.testing.assert_array_equal(
        res.jackknife_values(),
        bootstrap(X1, "mean", n_resamples=20, random_state=0).jackknife_values(),
    )


@pytest.mark.parametrize("stat", ["mean", "var", "median", "quantile"])
def test_float32_builtins_equal_float64_input(stat):
    """Built-in statistics compute in float64: float32 data give bit-for-bit the
    result of the same values upcast to float64."""
    kw = {"statistic_kwargs": {"q": [0.1, 0.9]}} if stat == "quantile" else {}
    x32 = X2.astype(np.float32)
    res = bootstrap(x32, stat, n_resamples=40, random_state=0, **kw)
    ref = bootstrap(x32.astype(np.float64), stat, n_resamples=40, random_state=0, **kw)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    np.testing.assert_array_equal(res.jackknife_values(), ref.jackknife_values())
    assert res.distribution.dtype == np.float64


def test_float32_callables_receive_float32():
    """Callables get the data in its own dtype (no copy to float64), so their
    results agree with float64 input to float32 precision only."""
    seen = set()

    def mean(a, axis=-1):
        seen.add(a.dtype)
        return a.mean(axis=axis)

    x32 = X1.astype(np.float32)
    res = bootstrap(x32, mean, n_resamples=40, random_state=0)
    ref = bootstrap(x32.astype(np.float64), mean, n_resamples=40, random_state=0)
    assert seen == {np.dtype(np.float32), np.dtype(np.float64)}
    np.testing.assert_allclose(res.distribution, ref.distribution, rtol=0, atol=1e-6)
    assert res.distribution.dtype == np.float64  # outputs are float64


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("stat", ["mean", "var", "median", "sum", np.mean, np.median])
def test_integer_data_equals_float64_input(dtype, stat):
    xi = (np.arange(N) % 7).astype(dtype)
    res = bootstrap(xi, stat, n_resamples=40, random_state=0)
    ref = bootstrap(xi.astype(np.float64), stat, n_resamples=40, random_state=0)
    np.testing.assert_array_equal(res.distribution, ref.distribution)


@pytest.mark.parametrize("stat", ["mean", "proportion", "sum", np.mean, "var"])
def test_bool_data_equals_zero_one_floats(stat):
    xb = X1 > 0.3
    res = bootstrap(xb, stat, n_resamples=40, random_state=0)
    ref = bootstrap(xb.astype(np.float64), stat, n_resamples=40, random_state=0)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    # metric labels may be bool too
    m = metric_ci(Y01.astype(bool), SCORE, "roc_auc", n_resamples=20, random_state=0)
    r = metric_ci(Y01, SCORE, "roc_auc", n_resamples=20, random_state=0)
    np.testing.assert_array_equal(m.distribution, r.distribution)


def test_clone_of_a_bad_resampler_still_fails_at_use():
    """Constructors store parameters only (scikit-learn convention): a bad value is
    accepted by __init__ and clone, and refused on first use."""
    rs = MovingBlockBootstrap(block_length=0)
    clone(rs)
    with pytest.raises(ValueError, match="'block_length' parameter"):
        rs.fit(X1)
