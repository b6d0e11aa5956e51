"""
Confidence bands for ROC and precision-recall curves
====================================================

A test-set ROC curve is an estimate: on another test set of the same size it
would be drawn differently. This example trains a logistic regression on
scikit-learn's breast cancer data set and puts bootstrap confidence bands on its
test-set curves (``skboot.metrics.roc_curve_band`` and
``precision_recall_band``):

1. the pointwise band (at each false positive rate on its own, the 2.5% and
   97.5% percentiles of the replicates' TPR) and the wider simultaneous band,
   which holds the whole curve with probability about 95%.  The default grid
   of false positive rates stays a few negatives away from 0 and ends where
   the observed TPR is within a few positives of 1: at the corners every
   replicate's curve is pinned (at 1, or at the first vertical rise), so no
   band could cover the true curve there;
2. the band of an AUC interval: ``metric_ci(..., "roc_auc")`` followed by
   ``curve_band()`` reads the ROC curve on the interval's own replicates, so
   the interval and the band come from one run (here the very band of step 1:
   same stratified resampler, same seed);
3. the band drawn over scikit-learn's ``RocCurveDisplay`` on the same Axes
   (``RocCurveBandDisplay.from_estimator``), and the precision-recall curve
   with its bands (``PrecisionRecallBandDisplay``).

Replicates are drawn within each class (the default), so every replicate keeps
the test set's class counts. Run ``python examples/plot_roc_band.py`` (add
``--fast`` or set ``SKBOOT_EXAMPLE_FAST=1`` for fewer replicates; ``--plot
out.png`` also saves the figure).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import PrecisionRecallDisplay, RocCurveDisplay
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skboot import metric_ci
from skboot.metrics import (
    PrecisionRecallBandDisplay,
    RocCurveBandDisplay,
    roc_curve_band,
)


def main(fast: bool = False, plot: str | None = None) -> None:
    n_resamples = 999 if fast else 9999
    X, y = load_breast_cancer(return_X_y=True)
    # a small test set (and a weaker model on 5 features) makes the bands visible
    X_train, X_test, y_train, y_test = train_test_split(
        X[:, :5], y, test_size=0.3, stratify=y, random_state=0
    )
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
    proba = model.predict_proba(X_test)[:, 1]

    t0 = time.perf_counter()
    band = roc_curve_band(y_test, proba, n_resamples=n_resamples, random_state=0)
    ms = (time.perf_counter() - t0) * 1e3
    print(
        f"Test set: {y_test.shape[0]} rows; {n_resamples} stratified replicates of "
        f"the ROC curve on {band.grid.shape[0]} false positive rates from "
        f"{band.grid[0]:.3f} to {band.grid[-1]:.3f} ({ms:.0f} ms)\n"
    )
    print("  FPR    TPR    95% pointwise     95% simultaneous")
    for j in (0, 25, 50, 75, 100):  # five points along the grid
        print(
            f"  {band.grid[j]:.2f}   {band.estimate[j]:.3f}  "
            f"[{band.low[j]:.3f}, {band.high[j]:.3f}]   "
            f"[{band.simultaneous_low[j]:.3f}, {band.simultaneous_high[j]:.3f}]"
        )
    inside = np.all(
        (band.distribution >= band.simultaneous_low)
        & (band.distribution <= band.simultaneous_high),
        axis=1,
    ).mean()
    print(
        f"\nSimultaneous band: the pointwise {100 * band.calibrated_level:.2f}% "
        f"percentile band; {100 * inside:.1f}% of the replicates' curves lie "
        "inside it everywhere"
    )

    # the AUC interval and the band of its own replicates
    auc = metric_ci(
        y_test,
        proba,
        "roc_auc",
        stratify=True,
        n_resamples=n_resamples,
        random_state=0,
    )
    ci = auc.confidence_interval()
    same = auc.curve_band()
    print(
        f"AUC {auc.estimate:.3f}, 95% BCa [{ci.low:.3f}, {ci.high:.3f}]; the band "
        f"of its replicates is the band above: {same == band}"
    )

    import matplotlib.pyplot as plt

    fig, (ax_roc, ax_pr) = plt.subplots(1, 2, figsize=(10, 4.8), layout="constrained")
    # scikit-learn's display first, then the bands on the same Axes
    RocCurveDisplay.from_estimator(model, X_test, y_test, ax=ax_roc, name="ROC curve")
    RocCurveBandDisplay.from_estimator(
        model,
        X_test,
        y_test,
        ax=ax_roc,
        n_resamples=n_resamples,
        random_state=0,
        name="on the grid",
        color="C1",
        linestyle="--",
    )
    ax_roc.set_title("ROC curve, 95% bootstrap bands")
    PrecisionRecallDisplay.from_estimator(model, X_test, y_test, ax=ax_pr, name="PR")
    pr = PrecisionRecallBandDisplay.from_estimator(
        model,
        X_test,
        y_test,
        ax=ax_pr,
        n_resamples=n_resamples,
        random_state=0,
        name="on the grid",
        color="C1",
        linestyle="--",
    )
    ax_pr.set_title("Precision-recall curve, 95% bootstrap bands")
    j = int(np.argmin(np.abs(pr.band.grid - 0.9)))
    print(
        f"Precision at recall 0.90: {pr.band.estimate[j]:.3f}, 95% pointwise "
        f"[{pr.band.low[j]:.3f}, {pr.band.high[j]:.3f}]"
    )
    if plot:
        fig.savefig(plot)
        print(f"\nSaved the figure to {plot}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fast", action="store_true", help="fewer replicates")
    parser.add_argument("--plot", metavar="PATH", help="save the figure (matplotlib)")
    args, _ = parser.parse_known_args()
    main(
        fast=args.fast or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1",
        plot=args.plot,
    )
