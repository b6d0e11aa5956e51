"""
Confidence intervals for a classifier's metrics, and a paired model comparison
==============================================================================

Trains two classifiers on scikit-learn's breast cancer data set, then

1. reports bootstrap confidence intervals (BCa) for the test-set ROC AUC,
   accuracy and log loss of the first model (``skboot.metric_ci``), iid and
   stratified by class;
2. compares the two models' ROC AUC on the same bootstrap replicates
   (``skboot.compare_metrics``): interval for the difference and a p-value;
3. estimates the first model's accuracy by the .632+ bootstrap
   (``skboot.bootstrap_score``).

Run ``python examples/metric_intervals.py`` (or with ``--fast`` /
``SKBOOT_EXAMPLE_FAST=1`` for a quick run with fewer replicates).
"""

from __future__ import annotations

import os
import sys
import time

from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skboot import bootstrap_score, compare_metrics, metric_ci


def main(fast: bool = False) -> None:
    n_resamples = 999 if fast else 9999
    n_refits = 20 if fast else 200

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=0
    )
    logreg = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    logreg.fit(X_train, y_train)
    bayes = GaussianNB().fit(X_train, y_train)

    proba_lr = logreg.predict_proba(X_test)[:, 1]
    proba_nb = bayes.predict_proba(X_test)[:, 1]
    label_lr = logreg.predict(X_test)

    print(f"Test set: {y_test.shape[0]} rows, {n_resamples} bootstrap replicates\n")
    print("Logistic regression, 95% BCa intervals")
    for name, pred in (
        ("roc_auc", proba_lr),
        ("accuracy", label_lr),
        ("log_loss", proba_lr),
    ):
        t0 = time.perf_counter()
        res = metric_ci(y_test, pred, name, n_resamples=n_resamples, random_state=0)
        strat = metric_ci(
            y_test, pred, name, stratify=True, n_resamples=n_resamples, random_state=0
        )
        ms = (time.perf_counter() - t0) * 1e3
        ci, ci_strat = res.confidence_interval(), strat.confidence_interval()
        print(
            f"  {name:9s} {res.estimate:.4f}  iid [{ci.low:.4f}, "
            f"{ci.high:.4f}]  stratified [{ci_strat.low:.4f}, "
            f"{ci_strat.high:.4f}]  ({ms:.0f} ms for both)"
        )

    cmp = compare_metrics(
        y_test, proba_lr, proba_nb, "roc_auc", n_resamples=n_resamples, random_state=0
    )
    ci = cmp.confidence_interval()
    print(
        "\nROC AUC, logistic regression minus naive Bayes (paired bootstrap):\n"
        f"  difference {cmp.estimate:+.4f} ({cmp.estimate_a:.4f} vs "
        f"{cmp.estimate_b:.4f}), 95% CI [{ci.low:+.4f}, "
        f"{ci.high:+.4f}], p-value {cmp.pvalue:.4f}"
    )
    # The paired bootstrap distribution of the AUC difference: the dashed line at
    # 0 is "no difference", labelled with the p-value.
    cmp.plot()

    t0 = time.perf_counter()
    score = bootstrap_score(
        logreg,
        X_train,
        y_train,
        scoring="accuracy",
        n_resamples=n_refits,
        random_state=0,
    )
    print(
        f"\nAccuracy of the logistic regression from its training set "
        f"({n_refits} refits, {time.perf_counter() - t0:.1f} s):\n"
        f"  apparent {score.apparent_score:.4f}, out-of-bag {score.oob_score:.4f}, "
        f".632+ {score.estimate:.4f} (no-information "
        f"{score.no_information_score:.4f}, R' = "
        f"{score.relative_overfitting_rate:.3f})"
    )


if __name__ == "__main__":
    main(fast="--fast" in sys.argv[1:] or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1")
