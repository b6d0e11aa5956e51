"""Bad-input catalogue of the significance tests: permutation_test,
monte_carlo_test, metric_permutation_test, the Permutation splitter and the
``skboot test`` command.

One table, :data:`CASES`: ``(entry point, id, call, expected exception,
match)``.  Every row checks that

* the error (class and message: the parameter, what is allowed, what was
  given) is raised,
* before any resampling work (the engine's ``run_bootstrap`` is replaced by a
  function that fails the test),
* without a warning of any kind (no raw numpy warning on the way),
* and without mutating the caller's arrays.

The CLI turns every refused input into exit status 2 and a one-line message.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.exceptions import NotFittedError
from work_guard import WorkStarted, forbid_work

from skboot.cli import main
from skboot.resamplers import Permutation
from skboot.significance import (
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=12)
Y = RNG.normal(size=10)
Y01 = np.array([0, 1] * 15)
SCORE = Y01 + RNG.normal(0, 1, 30)
NORM = stats.norm().rvs
V = ValueError


class CLIError(Exception):
    """A non-zero exit of the ``skboot`` command, with its stderr."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_TMP = Path(tempfile.mkdtemp(prefix="skboot-bad-sig-"))


def _csv(text: str, name: str) -> str:
    path = _TMP / name
    path.write_text(text)
    return str(path)


GOOD_CSV = "a,b,c\n1,2,x\n2,3,y\n3,1,z\n4,5,w\n"


def _cli(*argv: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(["test", *argv])
        except SystemExit as exc:  # argparse
            status = int(exc.code or 0)
    if status:
        raise CLIError(status, err.getvalue())


CASES: list[tuple[str, str, Callable[[], Any], type[BaseException], str]] = []
#: the arrays each call receives, checked for mutation after the call
ARRAYS: dict[str, tuple[Any, ...]] = {}


def case(entry: str, id_: str, call: Callable[[], Any], exc: Any, match: str) -> None:
    CASES.append((entry, id_, call, exc, match))


def PT(*args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: permutation_test(*args, **kwargs)


def MC(*args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: monte_carlo_test(*args, **kwargs)


def MP(*args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: metric_permutation_test(*args, **kwargs)


XY = (X, Y)
P = "permutation_test"
# fmt: off
# --- permutation_test ------------------------------------------------------
case(P, "type", PT(XY, "mean_diff", permutation_type="paired"), V, r"'permutation_type' parameter of permutation_test must be one of")
case(P, "type-int", PT(XY, "mean_diff", permutation_type=1), V, r"'permutation_type' parameter")
case(P, "alternative", PT(XY, "mean_diff", alternative="bigger"), V, r"'alternative' parameter .* one of \{'two-sided', 'less', 'greater'\}. Got 'bigger'")
case(P, "alternative-misspelt", PT(XY, "mean_diff", alternative="lesser"), V, r"'alternative' parameter")
case(P, "n-zero", PT(XY, "mean_diff", n_resamples=0), V, r"'n_resamples' parameter .* an int in \[1, 2\*\*32 - 1\] or numpy.inf \(exact test\). Got 0")
case(P, "n-float", PT(XY, "mean_diff", n_resamples=2.5), V, r"'n_resamples' parameter .* Got 2.5")
case(P, "n-neg-inf", PT(XY, "mean_diff", n_resamples=-np.inf), V, r"'n_resamples' parameter .* Got -inf")
case(P, "n-bool", PT(XY, "mean_diff", n_resamples=True), V, r"'n_resamples' parameter .* Got True")
case(P, "n-nan", PT(XY, "mean_diff", n_resamples=np.nan), V, r"'n_resamples' parameter .* Got nan")
case(P, "n-too-big", PT(XY, "mean_diff", n_resamples=2**32), V, r"'n_resamples' parameter .* Got 4294967296")
case(P, "vectorized", PT(XY, "mean_diff", vectorized="yes"), V, r"'vectorized' parameter .* True or False or None. Got 'yes'")
case(P, "statistic-name", PT(XY, "mean"), V, r"'statistic' parameter of permutation_test must be a callable or one of \{'mean_diff', .*\}. Got 'mean'")
case(P, "statistic-int", PT(XY, 3), V, r"'statistic' parameter .* a callable or one of")
case(P, "statistic-kind", PT(XY, "pearson"), V, r"'statistic' parameter .* defined for permutation_type='pairings'")
case(P, "data-array", PT(X, "mean_diff"), V, r"'data' parameter .* a tuple of samples \(wrap one array as \(x,\)\)")
case(P, "data-empty", PT((), "mean_diff"), V, r"'data' parameter .* a non-empty tuple of samples")
case(P, "data-str", PT("ab", "mean_diff"), V, r"'data' parameter .* a tuple of samples. Got 'str'")
case(P, "data-one", PT((X,), "mean_diff"), V, r"at least two samples for permutation_type='independent'. Got 1")
case(P, "data-short", PT((X, Y[:1]), "mean_diff"), V, r"at least 2 observations in every sample along axis 0. Got 1 in sample 1")
case(P, "data-three", PT((X, X, X), "mean_diff"), V, r"2 one-dimensional sample\(s\) for the fused statistic 'mean_diff'")
case(P, "data-2d", PT((np.zeros((2, 3)), np.zeros((2, 3))), "t"), V, r"for the fused statistic 't' .* shapes \[\(2, 3\), \(2, 3\)\]")
case(P, "data-strings", PT((np.array(["a", "b"]), Y), "mean_diff"), V, r"must hold real numbers. Got sample 0 with dtype <U1")
case(P, "data-complex", PT((X + 1j, Y), "mean_diff"), V, r"must hold real numbers. Got sample 0 with dtype complex128")
case(P, "data-object", PT(([1, "a"], Y), "mean_diff"), V, r"must hold real numbers")
case(P, "data-scalar", PT((1.0, Y), "mean_diff"), V, r"must hold arrays of observations. Got a scalar as sample 0")
case(P, "data-ragged", PT(([[1, 2], [3]], Y), "mean_diff"), V, r"Sample 0 cannot be converted to an array")
case(P, "data-broadcast", PT((np.zeros((2, 5)), np.zeros((3, 5))), lambda a, b, axis=-1: a.mean(axis) - b.mean(axis), axis=1), V, r"shapes broadcast except along axis 1. Got shapes \[\(2, 5\), \(3, 5\)\]")
case(P, "paired-lengths", PT((X, Y), "paired_t", permutation_type="samples"), V, r"samples of one length for permutation_type='samples' .* Got lengths \[12, 10\]")
case(P, "pairings-lengths", PT((X, Y), "pearson", permutation_type="pairings"), V, r"samples of one length for permutation_type='pairings'")
case(P, "axis", PT(XY, "mean_diff", axis=2), V, r"'axis' parameter .* an int in \[-1, 0\]. Got 2")
case(P, "axis-float", PT(XY, "mean_diff", axis=0.0), V, r"'axis' parameter .* an int. Got 0.0")
case(P, "axis-bool", PT(XY, "mean_diff", axis=True), V, r"'axis' parameter .* an int. Got True")
case(P, "n-jobs", PT(XY, "mean_diff", n_jobs=0), V, r"'n_jobs' parameter")
case(P, "chunk", PT(XY, "mean_diff", chunk_size=0), V, r"'chunk_size' parameter")
case(P, "chunk-float", PT(XY, "mean_diff", chunk_size=2.5), V, r"'chunk_size' parameter")
case(P, "seed", PT(XY, "mean_diff", random_state=-1), V, r"'random_state' parameter .* Got -1")
case(P, "seed-str", PT(XY, "mean_diff", random_state="a"), V, r"'random_state' parameter .* Got 'a'")
case(P, "exact-too-many", PT((np.zeros(40), np.zeros(40)), "mean_diff", n_resamples=np.inf), V, r"all 107507208733336176461620 distinct permutations; at most 4294967295")
# --- monte_carlo_test ------------------------------------------------------
M = "monte_carlo_test"
case(M, "alternative", MC(X, NORM, np.mean, alternative="up"), V, r"'alternative' parameter of monte_carlo_test")
case(M, "n-zero", MC(X, NORM, np.mean, n_resamples=0), V, r"'n_resamples' parameter of monte_carlo_test must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(M, "n-inf", MC(X, NORM, np.mean, n_resamples=np.inf), V, r"'n_resamples' parameter .* Got inf")
case(M, "vectorized", MC(X, NORM, np.mean, vectorized=1), V, r"'vectorized' parameter .* Got 1")
case(M, "rvs", MC(X, 3, np.mean), V, r"'rvs' parameter of monte_carlo_test must be a callable or a sequence of them. Got 3")
case(M, "rvs-count", MC((X, Y), [NORM], np.mean), V, r"one sample per sampler in 'rvs' \(1\). Got 2")
case(M, "rvs-keyword", MC(X, lambda size: np.zeros(size), np.mean), V, r"accept the keywords size= and random_state= \(or rng=\)")
case(M, "statistic", MC(X, NORM, "mean"), V, r"'statistic' parameter of monte_carlo_test must be a callable. Got 'mean'")
case(M, "data-strings", MC(np.array(["a"]), NORM, np.mean), V, r"must hold real numbers")
case(M, "data-empty", MC(np.zeros(0), NORM, np.mean), V, r"at least 1 observations in every sample .* Got 0")
case(M, "axis", MC(X, NORM, np.mean, axis=1), V, r"'axis' parameter of monte_carlo_test must be an int in \[-1, 0\]. Got 1")
case(M, "n-jobs", MC(X, NORM, np.mean, n_jobs="all"), V, r"'n_jobs' parameter")
case(M, "chunk", MC(X, NORM, np.mean, chunk_size=-1), V, r"'chunk_size' parameter")
case(M, "seed", MC(X, NORM, np.mean, random_state=1.5), V, r"'random_state' parameter .* Got 1.5")
# --- metric_permutation_test -----------------------------------------------
R = "metric_permutation_test"
case(R, "metric-name", MP(Y01, SCORE, "auc"), V, r"'metric' parameter of metric_permutation_test must be one of")
case(R, "metric-int", MP(Y01, SCORE, 3), V, r"'metric' parameter .* one of \{'accuracy', .*\} or a callable. Got 3")
case(R, "option", MP(Y01, SCORE, "roc_auc", foo=1), V, r"The metric 'roc_auc' of metric_permutation_test accepts the options \['pos_label'\]. Got \['foo'\]")
case(R, "option-prf", MP(Y01, Y01, "f1", normalize=True), V, r"'f1' .* accepts the options \['average', 'zero_division', 'pos_label', 'labels'\]. Got \['normalize'\]")
case(R, "option-value", MP(Y01, Y01, "f1", average="weird"), V, r"'average' parameter of f1 must be one of \{'binary', 'micro', 'macro'\}. Got 'weird'")
case(R, "proba-accuracy", MP(Y01, SCORE, "accuracy"), V, r"'y_pred' parameter of metric_permutation_test must hold class labels for the metric 'accuracy'")
case(R, "proba-true", MP(SCORE, Y01, "recall"), V, r"'y_true' parameter of metric_permutation_test must hold class labels for the metric 'recall'")
case(R, "one-class", MP(np.zeros(30, int), SCORE, "roc_auc"), V, r"roc_auc is undefined on the original data of metric_permutation_test \(it is undefined when the replicate holds one class")
case(R, "r2-constant", MP(np.ones(30), SCORE, "r2"), V, r"r2 is undefined on the original data")
case(R, "lengths", MP(Y01, SCORE[:20], "roc_auc"), V, r"'y_pred' parameter of roc_auc must be an array with as many rows as y_true \(30\). Got 20 rows")
case(R, "lengths-callable", MP(Y01, SCORE[:20], lambda a, b: 0.0), V, r"'y_pred' parameter of metric_permutation_test must have one row per label")
case(R, "nan-labels", MP(np.r_[Y01[:-1], np.nan], SCORE, "roc_auc"), V, r"'y_true' parameter of roc_auc must be an array of class labels without NaN or infinity. Got 1 NaN")
case(R, "nan-scores", MP(Y01, np.r_[SCORE[:-1], np.nan], "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain only finite values. Got 1 NaN")
case(R, "alternative", MP(Y01, SCORE, "roc_auc", alternative="better"), V, r"'alternative' parameter of metric_permutation_test")
case(R, "n-zero", MP(Y01, SCORE, "roc_auc", n_resamples=0), V, r"'n_resamples' parameter .* Got 0")
case(R, "n-inf", MP(Y01, SCORE, "roc_auc", n_resamples=np.inf), V, r"'n_resamples' parameter .* Got inf")
case(R, "groups", MP(Y01, SCORE, "roc_auc", groups=[0, 1]), V, r"'groups' parameter of Permutation must have one entry per sample of X \(30\). Got 2")
case(R, "n-jobs", MP(Y01, SCORE, "roc_auc", n_jobs=0), V, r"'n_jobs' parameter")
case(R, "chunk", MP(Y01, SCORE, "roc_auc", chunk_size=0), V, r"'chunk_size' parameter")
case(R, "seed", MP(Y01, SCORE, "roc_auc", random_state=-3), V, r"'random_state' parameter")
# --- the Permutation splitter ----------------------------------------------
S = "Permutation"
case(S, "n-zero", lambda: Permutation(0).fit(X), V, r"'n_resamples' parameter of Permutation must be an int in \[1, 2\*\*32 - 1\]. Got 0")
case(S, "n-bool", lambda: Permutation(True).fit(X), V, r"'n_resamples' parameter of Permutation .* Got True")
case(S, "seed", lambda: Permutation(5, random_state=-1).fit(X), V, r"'random_state' parameter of Permutation .* Got -1")
case(S, "groups", lambda: Permutation(5).fit(X, groups=[0, 1]), V, r"'groups' parameter of Permutation must have one entry per sample of X \(12\). Got 2")
case(S, "split-groups", lambda: Permutation(5).split(X, groups=np.zeros(3)), V, r"'groups' parameter of Permutation")
case(S, "too-few", lambda: Permutation(5).fit(X[:1]), V, r"'X' parameter of Permutation must have at least 2 samples. Got 1")
case(S, "b-high", lambda: Permutation(5).fit(X).replicate(5), V, r"'b' parameter of Permutation.replicate must be an int in \[0, 4\]. Got 5")
case(S, "b-float", lambda: Permutation(5).fit(X).replicate(1.5), V, r"'b' parameter of Permutation.replicate .* Got 1.5")
case(S, "unfitted", lambda: Permutation(5).replicate(0), NotFittedError, r"not fitted yet")
# --- the skboot test command -----------------------------------------------
C = "skboot test"
case(C, "missing-file", lambda: _cli(str(_TMP / "none.csv"), "--columns", "a", "b"), CLIError, r"file not found")
case(C, "column", lambda: _cli(_csv(GOOD_CSV, "g1.csv"), "--columns", "a", "q"), CLIError, r"column 'q' not in .* \(columns: a, b, c\)")
case(C, "text-column", lambda: _cli(_csv(GOOD_CSV, "g2.csv"), "--columns", "a", "c"), CLIError, r"column 'c' has 4 non-numeric value\(s\)")
case(C, "one-column", lambda: _cli(_csv(GOOD_CSV, "g3.csv"), "--columns", "a"), CLIError, r"--statistic mean-diff takes 2 column\(s\); got 1")
case(C, "three-columns", lambda: _cli(_csv(GOOD_CSV, "g4.csv"), "--columns", "a", "b", "a", "--statistic", "paired-t"), CLIError, r"takes 1 or 2 column\(s\); got 3")
case(C, "statistic", lambda: _cli(_csv(GOOD_CSV, "g5.csv"), "--columns", "a", "b", "--statistic", "mean"), CLIError, r"argument --statistic: invalid choice: 'mean' \(choose from 'mean-diff'")
case(C, "n-resamples", lambda: _cli(_csv(GOOD_CSV, "g6.csv"), "--columns", "a", "b", "--n-resamples", "0"), CLIError, r"argument --n-resamples: must be an integer >= 1, got '0'")
case(C, "paired-missing", lambda: _cli(_csv("a,b\n1,2\n,3\n3,1\n", "g7.csv"), "--columns", "a", "b", "--statistic", "paired-t"), CLIError, r"column 'a' has 1 missing value\(s\); pass --nan-policy omit")
case(C, "short", lambda: _cli(_csv("a,b\n1,2\n,3\n", "g8.csv"), "--columns", "a", "b", "--nan-policy", "omit"), CLIError, r"at least 2 observations")
case(C, "empty", lambda: _cli(_csv("", "g9.csv"), "--columns", "a", "b"), CLIError, r"cannot read .* as CSV")
# fmt: on


# --- the runner --------------------------------------------------------------


WORK = [
    ("skboot.significance._permutation_test", "run_bootstrap"),
    ("skboot.significance._monte_carlo", "run_bootstrap"),
    ("skboot.significance._metric_test", "run_bootstrap"),
]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch, WORK)


_INPUTS = (X, Y, Y01, SCORE)
_SNAPSHOT = [a.copy() for a in _INPUTS]


def test_catalogue_size_and_coverage():
    assert len(CASES) >= 60
    assert {entry for entry, *_ in CASES} == {P, M, R, S, C}
    ids = [(entry, id_) for entry, id_, *_ in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [pytest.param(*rest, id=f"{entry}:{id_}") for entry, id_, *rest in CASES],
)
def test_bad_input(call, exc, match, monkeypatch):
    _forbid_work(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(exc, match=match) as info:
            call()
    assert not caught, [str(w.message) for w in caught]
    if exc is CLIError:
        assert info.value.status == 2
        assert str(info.value).startswith(("skboot test:", "usage:"))
    for before, after in zip(_SNAPSHOT, _INPUTS, strict=True):
        assert np.array_equal(before, after, equal_nan=True)


def test_forbid_work_catches_work(monkeypatch):
    """The harness: valid calls do reach the patched work."""
    _forbid_work(monkeypatch)
    for valid in (
        PT(XY, "mean_diff", n_resamples=5),
        MC(X, NORM, np.mean, n_resamples=5),
        MP(Y01, SCORE, "roc_auc", n_resamples=5),
        lambda: _cli(_csv(GOOD_CSV, "ok.csv"), "--columns", "a", "b"),
    ):
        with pytest.raises(WorkStarted):
            valid()


def test_pandas_inputs_are_not_mutated():
    xs = pd.Series(X, index=np.arange(12)[::-1])
    before = xs.copy()
    with pytest.raises(ValueError, match="'alternative' parameter"):
        permutation_test((xs, Y), "mean_diff", alternative="x")
    pd.testing.assert_series_equal(xs, before)
