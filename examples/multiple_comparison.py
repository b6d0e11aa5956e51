"""
Comparing many models: SPA, StepM and the model confidence set
==============================================================

Two problems:

1. Forecasting (synthetic losses).  An AR(1) series (coefficient 0.6) is
   forecast one step ahead by 25 rules ``yhat_t = phi * y_{t-1}`` with ``phi``
   from 0 to 1.2; the benchmark is the rule ``phi = 0.5``.  Losses are squared
   errors (serially dependent), resampled with the stationary bootstrap.
   ``SPA``: does any rule beat the benchmark?  ``StepM``: which ones, with
   familywise error control?  ``MCS``: which rules are among the best?
2. Machine learning (a whole-sample metric).  Twenty classifiers, one held-out
   set: which are best on ROC AUC?  ``MCS.compute_metric`` resamples the rows of
   the held-out set (stratified by class), evaluates every model's ROC AUC on
   each replicate, and keeps the models not shown worse than the best.

Run ``python examples/multiple_comparison.py`` (``--fast`` or
``SKBOOT_EXAMPLE_FAST=1`` for fewer replicates; ``--plot FILE`` saves the
p-value plot of the classifiers).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from skboot import MCS, SPA, RealityCheck, StepM


def forecasting(n_resamples: int) -> None:
    rng = np.random.default_rng(0)
    T = 1_000
    e = rng.normal(size=T + 1)
    y = np.empty(T + 1)
    y[0] = 0.0
    for t in range(1, T + 1):
        y[t] = 0.6 * y[t - 1] + e[t]
    phis = np.round(np.linspace(0.0, 1.2, 25), 2)
    target, lagged = y[1:], y[:-1]
    losses = pd.DataFrame(
        (target[:, None] - phis[None, :] * lagged[:, None]) ** 2,
        columns=[f"phi={p:.2f}" for p in phis],
    )
    bench = losses.pop("phi=0.50")
    models = losses

    t0 = time.perf_counter()
    spa = SPA(n_resamples=n_resamples, random_state=0).compute(bench, models)
    rc = RealityCheck(n_resamples=n_resamples, random_state=0).compute(bench, models)
    step = StepM(0.95, n_resamples=n_resamples, random_state=0).compute(bench, models)
    everyone = models.assign(**{"phi=0.50": bench})
    mcs = MCS(0.9, n_resamples=n_resamples, random_state=0).compute(everyone)
    ms = (time.perf_counter() - t0) * 1e3
    print(
        f"Forecasting: T = {T}, benchmark phi=0.50 against {models.shape[1]} rules, "
        f"B = {n_resamples} ({ms:.0f} ms)"
    )
    print(
        f"  stationary bootstrap, mean block length "
        f"{spa.provenance.block_length:.2f} (optimal_block_length)"
    )
    p = spa.pvalues_by_type
    print(
        f"  SPA p-values: lower {p['lower']:.3f}, consistent {p['consistent']:.3f}, "
        f"upper {p['upper']:.3f}; White's Reality Check {rc.pvalue:.3f}"
    )
    print(f"  StepM (FWER 5%), better than the benchmark: {step.superior_models}")
    print(f"  MCS (90%): {', '.join(mcs.included)}")


def classifiers(n_resamples: int, plot: str | None, fast: bool) -> None:
    X, y = make_classification(
        n_samples=1_500 if fast else 3_000,
        n_features=20,
        n_informative=6,
        random_state=0,
    )
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=0
    )
    candidates = {}
    for C in (0.001, 0.01, 0.1, 1.0, 10.0):
        candidates[f"logreg C={C:g}"] = LogisticRegression(C=C, max_iter=1000)
    for k in (1, 5, 15, 45):
        candidates[f"knn k={k}"] = KNeighborsClassifier(n_neighbors=k)
    for depth in (2, 4, 8, None):
        candidates[f"tree depth={depth}"] = DecisionTreeClassifier(
            max_depth=depth, random_state=0
        )
    for n in (10, 25, 50) if fast else (10, 50, 200):
        for leaf in (1, 10):
            candidates[f"forest {n}/{leaf}"] = RandomForestClassifier(
                n_estimators=n, min_samples_leaf=leaf, random_state=0
            )
    candidates["naive Bayes"] = GaussianNB()
    scores = {
        name: model.fit(X_train, y_train).predict_proba(X_test)[:, 1]
        for name, model in candidates.items()
    }
    baseline = scores.pop("logreg C=1")

    t0 = time.perf_counter()
    mcs = MCS(0.95, n_resamples=n_resamples, random_state=0).compute_metric(
        y_test, {"logreg C=1": baseline, **scores}, "roc_auc", stratify=True
    )
    step = StepM(0.95, n_resamples=n_resamples, random_state=0).compute_metric(
        y_test, baseline, scores, "roc_auc", stratify=True
    )
    ms = (time.perf_counter() - t0) * 1e3
    print(
        f"\nClassifiers: {len(candidates)} models, {y_test.shape[0]} held-out rows, "
        f"ROC AUC, B = {n_resamples} ({ms:.0f} ms)"
    )
    auc = -mcs.losses
    best = auc.idxmax()
    print(f"  best ROC AUC: {best} {auc[best]:.4f}")
    print(f"  MCS (95%): {', '.join(mcs.included)}")
    print(
        "  StepM vs logistic regression (C=1), FWER 5%: "
        f"{', '.join(step.superior_models) or 'none'}"
    )
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = mcs.plot()
        ax.set_title("MCS p-values, ROC AUC")
        ax.figure.tight_layout()
        ax.figure.savefig(plot, dpi=100)
        print(f"  plot saved to {plot}")


def main(fast: bool = False, plot: str | None = None) -> None:
    n_resamples = 300 if fast else 2_000
    forecasting(n_resamples)
    classifiers(n_resamples, plot, fast)


if __name__ == "__main__":
    args = sys.argv[1:]
    out = args[args.index("--plot") + 1] if "--plot" in args else None
    main(
        fast="--fast" in args or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1",
        plot=out,
    )
