"""
Hypothesis tests on scikit-learn's breast cancer data
=====================================================

1. Permutation tests (``skboot.permutation_test``): do malignant and benign
   tumours differ in mean texture (difference of means, Welch's t)? Is texture
   associated with smoothness (Spearman's rho, pairings)?
2. Is a classifier's held-out ROC AUC better than chance
   (``skboot.metric_permutation_test``), and is a model that sees only noise?
3. A bootstrap p-value (``BootstrapResult.pvalue``) for a correlation, by three
   methods, next to the interval it inverts.
4. A Monte Carlo test (``skboot.monte_carlo_test``): is log(area) skewed beyond
   what normal samples of that size show?

Run ``python examples/tests_and_pvalues.py`` (or with ``--fast`` /
``SKBOOT_EXAMPLE_FAST=1`` for fewer permutations).
"""

from __future__ import annotations

import os
import sys

import numpy as np
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skboot import (
    bootstrap,
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)


def main(fast: bool = False) -> None:
    B = 999 if fast else 9999
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.to_numpy()
    texture = X["mean texture"].to_numpy()
    malignant, benign = texture[y == 0], texture[y == 1]

    print(f"Permutation tests, {B} permutations each")
    for name in ("mean_diff", "welch_t"):
        res = permutation_test((malignant, benign), name, n_resamples=B,
                               random_state=0)  # fmt: skip
        print(f"  texture, malignant vs benign, {name:9s} {res.statistic:8.3f}  "
              f"p = {res.pvalue:.4g}")  # fmt: skip
    smooth = X["mean smoothness"].to_numpy()
    rho = permutation_test((texture, smooth), "spearman", permutation_type="pairings",
                           n_resamples=B, random_state=0)  # fmt: skip
    print(f"  texture ~ smoothness, spearman   {rho.statistic:8.3f}  "
          f"p = {rho.pvalue:.4g}")  # fmt: skip

    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=0
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    proba = model.fit(X_train, y_train).predict_proba(X_test)[:, 1]
    noise = np.random.default_rng(1).normal(size=(X_train.shape[0], 3))
    blind = LogisticRegression().fit(noise, y_train)
    proba_blind = blind.predict_proba(
        np.random.default_rng(101).normal(size=(X_test.shape[0], 3))
    )[:, 1]
    print(f"\nHeld-out ROC AUC against chance ({y_test.shape[0]} test rows)")
    for label, p in (("logistic regression", proba), ("model on noise", proba_blind)):
        res = metric_permutation_test(y_test, p, "roc_auc", n_resamples=B,
                                      random_state=0)  # fmt: skip
        print(f"  {label:20s} AUC {res.statistic:.4f}  p = {res.pvalue:.4g}")

    pair = X[["mean texture", "mean smoothness"]].to_numpy()
    boot = bootstrap(pair, "corr", n_resamples=B, random_state=0)
    print(f"\nBootstrap p-values for H0: corr(texture, smoothness) = 0 "
          f"(estimate {boot.estimate:.4f})")  # fmt: skip
    for method in ("percentile", "bca", "normal"):
        p = boot.pvalue(0.0, method=method)
        ci = boot.confidence_interval(0.95, method=method)
        print(f"  {method:10s} p = {p:.4f}   95% interval "
              f"[{ci.low:.4f}, {ci.high:.4f}]")  # fmt: skip
    # The bootstrap distribution of the correlation and its BCa interval: the
    # interval that excludes 0 is the test that rejects corr = 0.
    boot.plot()

    log_area = np.log(X["mean area"].to_numpy())
    z = (log_area - log_area.mean()) / log_area.std(ddof=1)
    mc = monte_carlo_test(z, stats.norm(0, 1).rvs, stats.skew, n_resamples=B,
                          random_state=0)  # fmt: skip
    print(f"\nMonte Carlo test of normality: skewness of log(area) "
          f"{mc.statistic:.3f}, p = {mc.pvalue:.4g}")  # fmt: skip


if __name__ == "__main__":
    main(fast="--fast" in sys.argv[1:] or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1")
