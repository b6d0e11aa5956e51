"""``skboot demo``: bootstrap intervals on scikit-learn's breast-cancer data."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

__all__ = ["demo"]


def _fmt(v: Any) -> str:
    return f"{float(v):.4f}"


Row = tuple[str, Any, Any, Any, Any, str]


def demo(args: argparse.Namespace) -> int:
    """Bootstrap intervals on scikit-learn's bundled breast-cancer data."""
    import skboot

    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError as exc:  # pragma: no cover - sklearn is a dependency
        print(f"skboot demo needs scikit-learn: {exc}", file=sys.stderr)
        return 1
    B = args.n_resamples
    seed = args.seed
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    print(
        f"skboot {skboot.__version__} demo: breast cancer data, {len(X)} rows, "
        f"B={B}, seed={seed}\n"
    )
    first_run = not _kernels_cached()
    if first_run:
        print(
            "Compiling skboot's kernels for this machine (first run only; up to "
            "about half a minute, cached for later runs)...\n",
            file=sys.stderr,
            flush=True,
        )
    t0 = time.perf_counter()
    rows = _statistic_rows(X, B, seed)
    model_rows, comparison = _model_rows(X, y, B, seed)
    rows += model_rows
    elapsed = time.perf_counter() - t0
    _print_report(rows, comparison, B, elapsed, first_run)
    return 0


def _kernels_cached() -> bool:
    """Whether this skboot's compiled kernels are already in the disk cache."""
    from skboot import cache_dir

    folder = cache_dir()
    return folder is not None and any(folder.rglob("*.nbi"))


def _statistic_rows(X: Any, B: int, seed: int) -> list[Row]:
    """Means (BCa), a median (percentile) and a correlation (BCa) of columns."""
    from skboot import BootstrapStatistic, bootstrap

    rows: list[Row] = []
    est = BootstrapStatistic("mean", n_resamples=B, random_state=seed).fit(
        X[["mean radius", "mean texture"]]
    )
    ci: Any = est.confidence_interval(method="bca")
    means: Any = est.estimate_  # Series labelled by column (DataFrame input)
    errors: Any = est.standard_error_
    for col in ["mean radius", "mean texture"]:
        rows.append(
            (
                f"mean of '{col}'",
                means[col],
                errors[col],
                ci.low[col],
                ci.high[col],
                "bca",
            )
        )
    med = bootstrap(X["mean area"], "median", n_resamples=B, random_state=seed)
    ci = med.confidence_interval(method="percentile")
    rows.append(
        (
            "median of 'mean area'",
            med.estimate,
            med.standard_error,
            ci.low,
            ci.high,
            "percentile",
        )
    )
    r = bootstrap(
        X[["mean radius", "mean texture"]], "corr", n_resamples=B, random_state=seed
    )
    ci = r.confidence_interval(method="bca")
    rows.append(
        ("corr(radius, texture)", r.estimate, r.standard_error, ci.low, ci.high, "bca")
    )
    return rows


def _model_rows(X: Any, y: Any, B: int, seed: int) -> tuple[list[Row], Any]:
    """Test accuracy and ROC AUC of a logistic regression, and its AUC against
    naive Bayes'."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import skboot
    from skboot import bootstrap

    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.4, random_state=0, stratify=y
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(
        X_tr, y_tr
    )
    correct = (model.predict(X_te) == y_te.to_numpy()).astype(float)
    acc = bootstrap(correct, "proportion", n_resamples=B, random_state=seed)
    ci = acc.confidence_interval(method="bca")
    rows: list[Row] = [
        (
            "test accuracy (logistic regr.)",
            acc.estimate,
            acc.standard_error,
            ci.low,
            ci.high,
            "bca",
        )
    ]
    metric_ci = getattr(skboot, "metric_ci", None)
    if metric_ci is not None:
        proba = model.predict_proba(X_te)[:, 1]
        auc = metric_ci(
            y_te.to_numpy(), proba, "roc_auc", n_resamples=B, random_state=seed
        )
        ci = auc.confidence_interval()  # BCa at 95%, as computed
        rows.append(
            (
                "test ROC AUC (logistic regr.)",
                auc.estimate,
                auc.standard_error,
                ci.low,
                ci.high,
                "bca",
            )
        )
    compare = getattr(skboot, "compare_metrics", None)
    comparison = None
    if metric_ci is not None and compare is not None:
        from sklearn.naive_bayes import GaussianNB

        nb = GaussianNB().fit(X_tr, y_tr)
        comparison = compare(
            y_te.to_numpy(),
            model.predict_proba(X_te)[:, 1],
            nb.predict_proba(X_te)[:, 1],
            "roc_auc",
            n_resamples=B,
            random_state=seed,
            method="percentile",
        )
    return rows, comparison


def _print_report(
    rows: list[Row], comparison: Any, B: int, elapsed: float, compiled: bool
) -> None:
    head = (
        f"{'quantity':34s} {'estimate':>10s} {'std.err':>9s} {'95% low':>10s} "
        f"{'95% high':>10s}  method"
    )
    print(head)
    print("-" * len(head))
    for name, e, se, lo, hi, method in rows:
        print(
            f"{name:34s} {_fmt(e):>10s} {_fmt(se):>9s} {_fmt(lo):>10s} "
            f"{_fmt(hi):>10s}  {method}"
        )
    if comparison is not None:
        cmp_ci = comparison.confidence_interval()
        print(
            "\nROC AUC, logistic regression minus naive Bayes: "
            f"{comparison.estimate:+.4f} (95% percentile CI [{cmp_ci.low:+.4f}, "
            f"{cmp_ci.high:+.4f}], paired bootstrap p-value {comparison.pvalue:.3g})"
        )
    print(
        f"\n{len(rows)} bootstrap runs of {B} replicates in {elapsed:.2f} s"
        + (" (including the one-time compilation)." if compiled else ".")
    )
