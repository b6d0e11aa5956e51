"""metric_permutation_test: every fused metric equals scikit-learn's on the
permuted labels; scikit-learn's permutation_test_score agrees when the model's
predictions do not depend on the training labels; the ``skboot test`` command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from joblib import parallel_config
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import permutation_test_score

from skboot.cli import main
from skboot.resamplers import Permutation
from skboot.significance import metric_permutation_test, permutation_test


def _cases(rng):
    n = 90
    y = rng.integers(0, 2, n)
    score = y + rng.normal(0, 1.5, n)
    pred = (score > 0.5).astype(int)
    proba = 1 / (1 + np.exp(-score))
    y3 = rng.integers(0, 3, n)
    P = rng.dirichlet([1, 1, 1], n)
    yr = rng.normal(size=n)
    yhat = yr + rng.normal(size=n)
    letters = np.array(list("abc"))
    return [
        ("accuracy", y, pred, skm.accuracy_score, {}),
        ("accuracy", letters[y3], letters[rng.integers(0, 3, n)],
         skm.accuracy_score, {}),
        ("balanced_accuracy", y3, rng.integers(0, 3, n),
         skm.balanced_accuracy_score, {}),
        ("precision", y, pred, skm.precision_score, {}),
        ("recall", y, pred, skm.recall_score, {}),
        ("f1", y3, rng.integers(0, 3, n),
         lambda a, b: skm.f1_score(a, b, average="macro"), {"average": "macro"}),
        ("roc_auc", y, np.round(score, 1), skm.roc_auc_score, {}),
        ("average_precision", y, np.round(score, 1),
         skm.average_precision_score, {}),
        ("log_loss", y, proba, skm.log_loss, {}),
        ("log_loss", y3, P, lambda a, b: skm.log_loss(a, b, labels=[0, 1, 2]), {}),
        ("brier_score", y, proba, skm.brier_score_loss, {}),
        ("mean_squared_error", yr, yhat, skm.mean_squared_error, {}),
        ("root_mean_squared_error", yr, yhat, skm.root_mean_squared_error, {}),
        ("mean_absolute_error", yr, yhat, skm.mean_absolute_error, {}),
        ("r2", yr, yhat, skm.r2_score, {}),
    ]  # fmt: skip


def test_every_fused_metric_equals_sklearn_on_permuted_labels(rng):
    groups = rng.integers(0, 4, 90)
    for name, yt, yp, func, opts in _cases(rng):
        for g in (None, groups):
            res = metric_permutation_test(
                yt, yp, name, groups=g, n_resamples=25, random_state=3, **opts
            )
            rs = Permutation(25, random_state=3).fit(yt, groups=g)
            ref = [func(yt[rs.replicate(b).indices], yp) for b in range(25)]
            np.testing.assert_allclose(res.null_distribution, ref, atol=1e-12)
            assert res.statistic == pytest.approx(func(yt, yp), abs=1e-12)
            better = name in ("accuracy", "balanced_accuracy", "precision", "recall",
                              "f1", "roc_auc", "average_precision", "r2")  # fmt: skip
            assert res.alternative == ("greater" if better else "less")


class FixedPredictions(ClassifierMixin, BaseEstimator):
    """Predicts ``scores[X[:, 0]]`` whatever it was fitted on (X holds row ids)."""

    def __init__(self, scores=None):
        self.scores = scores

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return self.scores[X[:, 0].astype(int)]

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def test_agrees_with_sklearn_permutation_test_score(rng, monkeypatch):
    """With predictions that ignore the training labels, refitting changes
    nothing: scikit-learn's score, permutation scores and p-value equal ours
    when its label shuffle is replaced by our permutations (same groups)."""
    import sklearn.model_selection._validation as validation

    n, B = 80, 60
    y = rng.integers(0, 2, n)
    scores = y + rng.normal(0, 1.2, n)
    groups = rng.integers(0, 3, n)
    ours = metric_permutation_test(
        y, scores, "roc_auc", groups=groups, n_resamples=B, random_state=5
    )
    rs = Permutation(B, random_state=5).fit(y, groups=groups)
    perms = iter(rs.replicate(b).indices for b in range(B))

    def our_shuffle(labels, grp, random_state):
        assert np.array_equal(grp, groups)  # sklearn permutes within groups too
        return labels[next(perms)]

    monkeypatch.setattr(validation, "_shuffle", our_shuffle)
    X = np.arange(n)[:, None]
    everything = [(np.arange(n), np.arange(n))]
    score, null, p = permutation_test_score(
        FixedPredictions(scores), X, y, groups=groups, cv=everything,
        n_permutations=B, scoring="roc_auc",
    )  # fmt: skip
    assert score == pytest.approx(ours.statistic, abs=1e-15)
    np.testing.assert_allclose(null, ours.null_distribution, atol=1e-15)
    assert p == ours.pvalue


def test_callable_metric_and_bad_inputs(rng):
    y = rng.integers(0, 2, 40)
    pred = y.copy()
    pred[:8] = 1 - pred[:8]
    fused = metric_permutation_test(y, pred, "accuracy", n_resamples=30,
                                    random_state=1)  # fmt: skip
    slow = metric_permutation_test(y, pred, skm.accuracy_score, n_resamples=30,
                                   random_state=1, chunk_size=4)  # fmt: skip
    assert np.array_equal(fused.null_distribution, slow.null_distribution)
    assert slow.metric == "accuracy_score"
    with parallel_config(backend="threading"):
        par = metric_permutation_test(y, pred, "accuracy", n_resamples=30,
                                      random_state=1, n_jobs=2, chunk_size=3)  # fmt: skip
    assert np.array_equal(fused.null_distribution, par.null_distribution)
    for kwargs, match in [
        ({"metric": "auc"}, "'metric' parameter"),
        ({"metric": 5}, "'metric' parameter"),
        ({"n_resamples": 0}, "'n_resamples' parameter"),
        ({"alternative": "up"}, "'alternative' parameter"),
        ({"groups": np.zeros(3)}, "'groups' parameter"),
        ({"n_jobs": 0}, "'n_jobs' parameter"),
    ]:
        call = {"metric": "accuracy", **kwargs}
        with pytest.raises(ValueError, match=match):
            metric_permutation_test(y, pred, call.pop("metric"), **call)


# ---------------------------------------------------------------------------
# the skboot test command
# ---------------------------------------------------------------------------
@pytest.fixture
def two_columns(tmp_path, rng):
    a, b = rng.normal(size=30), rng.normal(0.5, 1, size=25)
    path = tmp_path / "ab.csv"
    pd.DataFrame({"a": a, "b": np.r_[b, [np.nan] * 5], "s": ["x"] * 30}).to_csv(
        path, index=False
    )
    return path, a, b


def test_cli_test_matches_python_api(two_columns, capsys):
    path, a, b = two_columns
    argv = ["test", str(path), "--columns", "a", "b", "--statistic", "mean-diff",
            "--seed", "4", "--n-resamples", "499", "--json",
            "--nan-policy", "omit"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    res = permutation_test((a, b), "mean_diff", n_resamples=499, random_state=4)
    assert out["pvalue"] == res.pvalue and out["observed"] == res.statistic
    assert out["n"] == [30, 25] and out["permutation_type"] == "independent"
    assert main(["test", str(path), "--columns", "a", "--statistic", "paired-t",
                 "--alternative", "greater", "--seed", "1"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "paired-t(a)" in text and "samples permutation test" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--columns", "a"], "takes 2 column"),
        (["--columns", "a", "zz"], "column 'zz' not in"),
        (["--columns", "a", "s"], "non-numeric"),
        (
            ["--columns", "a", "b", "--statistic", "paired-mean-diff"],
            "--nan-policy omit",
        ),
        (["--columns", "a", "b"], "column 'b' has 5 missing value(s)"),
    ],
)
def test_cli_test_errors(two_columns, capsys, args, message):
    path, _, _ = two_columns
    assert main(["test", str(path), *args]) == 2
    assert message in capsys.readouterr().err
