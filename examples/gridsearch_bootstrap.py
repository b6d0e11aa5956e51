"""
Bootstrap resamplers as ``cv=`` in GridSearchCV: out-of-bag model selection
===========================================================================

Every skboot resampler is a scikit-learn splitter: ``split`` yields
``(in_bag, out_of_bag)`` pairs, so it can be passed as ``cv=`` to
``GridSearchCV``, ``cross_validate`` or ``learning_curve``.  Each candidate is
fitted on a bootstrap replicate (rows drawn with replacement) and scored on the
rows that replicate did not draw (about 36.8% of them): the out-of-bag score.

1. Tunes the regularization ``C`` of a logistic regression on scikit-learn's
   breast cancer data with ``Bootstrap`` and with ``StratifiedBootstrap`` (class
   proportions kept in every replicate) and prints the mean and spread of the
   out-of-bag ROC AUC of every candidate.
2. On simulated clustered data (rows come in groups, e.g. patients or sites,
   that share an unobserved effect), tunes a k-nearest-neighbours classifier
   with ``Bootstrap`` and with ``GroupBootstrap`` (whole groups drawn, so no
   group is both in and out of the bag), and checks both choices on new,
   unseen groups: the row bootstrap leaks each group into its own out-of-bag
   rows and is optimistic, the group bootstrap is not.

Run ``python examples/gridsearch_bootstrap.py`` (add ``--fast`` or set
``SKBOOT_EXAMPLE_FAST=1`` for a quick run with fewer replicates;
``--plot out.png`` saves a figure of the out-of-bag scores, needs matplotlib).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skboot import Bootstrap, GroupBootstrap, StratifiedBootstrap


def clustered_data(
    seed: int, n_groups: int, group_size: int = 15
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows in groups: 2 features with signal, 4 "site" features that identify
    the group, and a label that also depends on an unobserved group effect."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(n_groups, 4))
    effect = rng.normal(scale=1.5, size=n_groups)
    groups = np.repeat(np.arange(n_groups), group_size)
    site = centers[groups] + rng.normal(scale=0.3, size=(groups.size, 4))
    x = rng.normal(size=(groups.size, 2))
    noise = rng.normal(scale=0.5, size=groups.size)
    y = (x[:, 0] + effect[groups] + noise > 0).astype(int)
    return np.column_stack([x, site]), y, groups


def oob_fraction(cv, X, y=None, groups=None) -> float:
    """Average share of rows that are out of bag in the replicates of ``cv``."""
    return float(np.mean([test.size for _, test in cv.split(X, y, groups)])) / len(X)


def main(fast: bool = False, plot: str | None = None) -> None:
    n_splits = 10 if fast else 100
    print(f"{n_splits} bootstrap replicates per candidate\n")

    # -- 1. tuning C on bundled data ----------------------------------------
    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0, 100.0]}
    print(
        f"1. Breast cancer ({X.shape[0]} rows, {X.shape[1]} features): "
        "logistic regression, out-of-bag ROC AUC"
    )
    searches = {}
    for cv in (
        Bootstrap(n_splits, random_state=0),
        StratifiedBootstrap(n_splits, random_state=0),
    ):
        name = type(cv).__name__
        t0 = time.perf_counter()
        search = GridSearchCV(model, grid, cv=cv, scoring="roc_auc").fit(X, y)
        elapsed = time.perf_counter() - t0
        searches[name] = search
        res = search.cv_results_
        print(
            f"\n  cv={name}({n_splits}): {oob_fraction(cv, X, y):.1%} of rows out "
            f"of bag on average, {elapsed:.1f} s"
        )
        print(f"  {'C':>8}  {'mean OOB AUC':>12}  {'std':>7}  {'min':>7}  rank")
        scores = np.column_stack([res[f"split{i}_test_score"] for i in range(n_splits)])
        for j, C in enumerate(res["param_logisticregression__C"]):
            print(
                f"  {C:>8g}  {res['mean_test_score'][j]:>12.4f}  "
                f"{res['std_test_score'][j]:>7.4f}  {scores[j].min():>7.4f}  "
                f"{res['rank_test_score'][j]:>4d}"
            )
        print(
            f"  best: C = {search.best_params_['logisticregression__C']:g}, "
            f"mean out-of-bag ROC AUC {search.best_score_:.4f}"
        )

    # -- 2. groups -------------------------------------------------------------
    n_groups = 40
    Xg, yg, groups = clustered_data(seed=1, n_groups=n_groups)
    X_new, y_new, _ = clustered_data(seed=2, n_groups=100)
    knn = make_pipeline(StandardScaler(), KNeighborsClassifier())
    grid_k = {"kneighborsclassifier__n_neighbors": [1, 3, 5, 10, 20, 40]}
    print(
        f"\n2. Simulated clustered data ({Xg.shape[0]} rows in {n_groups} groups): "
        "k-nearest neighbours, out-of-bag accuracy"
    )
    print(
        f"  {'cv':>22}  {'best k':>6}  {'OOB accuracy':>12}  "
        f"{'accuracy on new groups':>22}"
    )
    picked = {}
    for cv in (
        Bootstrap(n_splits, random_state=0),
        GroupBootstrap(n_splits, random_state=0),
    ):
        search = GridSearchCV(knn, grid_k, cv=cv, scoring="accuracy")
        search.fit(Xg, yg, groups=groups)  # groups reach GroupBootstrap.split
        k = search.best_params_["kneighborsclassifier__n_neighbors"]
        new_score = search.best_estimator_.score(X_new, y_new)
        picked[type(cv).__name__] = (k, search.best_score_, new_score)
        print(
            f"  {type(cv).__name__ + f'({n_splits})':>22}  {k:>6d}  "
            f"{search.best_score_:>12.4f}  {new_score:>22.4f}"
        )
    k_row, oob_row, new_row = picked["Bootstrap"]
    print(
        "  The row bootstrap puts rows of every group on both sides of each split:\n"
        f"  it picks k = {k_row} and promises {oob_row:.3f}, but new groups get "
        f"{new_row:.3f}.\n  The group bootstrap scores each model on groups it has "
        "not seen, as it will\n  be used: its out-of-bag accuracy is the honest one."
    )

    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        for shift, (name, search) in zip((0.94, 1.06), searches.items(), strict=True):
            res = search.cv_results_
            Cs = shift * np.asarray(res["param_logisticregression__C"], dtype=float)
            ax.errorbar(
                Cs,
                res["mean_test_score"],
                yerr=res["std_test_score"],
                marker="o",
                capsize=3,
                label=name,
            )
        ax.set_xscale("log")
        ax.set_xlabel("C")
        ax.set_ylabel("out-of-bag ROC AUC (mean ± std)")
        ax.set_title("GridSearchCV with bootstrap splitters")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot)
        print(f"\nSaved the figure to {plot}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fast", action="store_true", help="fewer replicates")
    parser.add_argument("--plot", metavar="PATH", help="save a figure (matplotlib)")
    args = parser.parse_args()
    main(
        fast=args.fast or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1",
        plot=args.plot,
    )
