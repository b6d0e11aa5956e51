"""The ``skboot`` command: ``skboot demo`` and ``skboot ci FILE.csv --column x``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["main"]

METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
STATISTICS = ("mean", "median", "std", "var", "sum", "proportion")


def _fmt(v: Any) -> str:
    return f"{float(v):.4f}"


def _demo(args: argparse.Namespace) -> int:
    """Bootstrap intervals on scikit-learn's bundled breast-cancer data."""
    import skboot
    from skboot import BootstrapStatistic, bootstrap

    try:
        from sklearn.datasets import load_breast_cancer
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
    except ImportError as exc:  # pragma: no cover - sklearn is a dependency
        print(f"skboot demo needs scikit-learn: {exc}", file=sys.stderr)
        return 1
    B = args.n_resamples
    seed = args.seed
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    print(
        f"skboot {skboot.__version__} demo: breast cancer data, {len(X)} rows, B={B}, seed={seed}\n"
    )
    rows = []
    t0 = time.perf_counter()
    est = BootstrapStatistic("mean", n_resamples=B, random_state=seed).fit(
        X[["mean radius", "mean texture"]]
    )
    ci: Any = est.confidence_interval(method="bca")
    for col in ["mean radius", "mean texture"]:
        rows.append(
            (
                f"mean of '{col}'",
                est.estimate_[col],
                est.standard_error_[col],
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

    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.4, random_state=0, stratify=y
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(
        X_tr, y_tr
    )
    correct = (model.predict(X_te) == y_te.to_numpy()).astype(float)
    acc = bootstrap(correct, "proportion", n_resamples=B, random_state=seed)
    ci = acc.confidence_interval(method="bca")
    rows.append(
        (
            "test accuracy (logistic regr.)",
            acc.estimate,
            acc.standard_error,
            ci.low,
            ci.high,
            "bca",
        )
    )
    metric_ci = getattr(skboot, "metric_ci", None)
    if metric_ci is not None:
        proba = model.predict_proba(X_te)[:, 1]
        auc = metric_ci(
            y_te.to_numpy(), proba, "roc_auc", n_resamples=B, random_state=seed
        )
        ci = auc.confidence_interval(method="bca")
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
    elapsed = time.perf_counter() - t0

    head = f"{'quantity':34s} {'estimate':>10s} {'std.err':>9s} {'95% low':>10s} {'95% high':>10s}  method"
    print(head)
    print("-" * len(head))
    for name, e, se, lo, hi, method in rows:
        print(
            f"{name:34s} {_fmt(e):>10s} {_fmt(se):>9s} {_fmt(lo):>10s} {_fmt(hi):>10s}  {method}"
        )
    if comparison is not None:
        cmp_ci = comparison.interval
        print(
            f"\nROC AUC, logistic regression minus naive Bayes: {comparison.estimate:+.4f} "
            f"(95% percentile CI [{cmp_ci.low:+.4f}, {cmp_ci.high:+.4f}], paired bootstrap "
            f"p-value {comparison.p_value:.3g})"
        )
    print(
        f"\n{len(rows)} bootstrap runs of {B} replicates in {elapsed:.2f} s "
        "(numba compile included on first use)."
    )
    return 0


def _ci(args: argparse.Namespace) -> int:
    """Estimate and interval of a statistic of one CSV column."""
    import pandas as pd

    from skboot import bootstrap

    try:
        frame = pd.read_csv(args.file)
    except FileNotFoundError:
        print(f"skboot ci: file not found: {args.file}", file=sys.stderr)
        return 2
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        print(f"skboot ci: cannot read {args.file} as CSV: {exc}", file=sys.stderr)
        return 2
    if args.column not in frame.columns:
        cols = ", ".join(map(str, frame.columns))
        print(
            f"skboot ci: column {args.column!r} not in {args.file} (columns: {cols})",
            file=sys.stderr,
        )
        return 2
    col = frame[args.column]
    values = pd.to_numeric(col, errors="coerce")
    bad = int(values.isna().sum() - col.isna().sum())
    if bad:
        print(
            f"skboot ci: column {args.column!r} has {bad} non-numeric value(s)",
            file=sys.stderr,
        )
        return 2
    missing = int(values.isna().sum())
    if missing:
        print(
            f"skboot ci: column {args.column!r} has {missing} missing value(s); remove them first",
            file=sys.stderr,
        )
        return 2
    x = values.to_numpy(dtype=np.float64)
    resampler = None
    if args.resampler != "iid":
        import skboot

        names = {
            "stationary": "StationaryBootstrap",
            "moving": "MovingBlockBootstrap",
            "circular": "CircularBlockBootstrap",
            "poisson": "PoissonBootstrap",
            "bayesian": "BayesianBootstrap",
        }
        cls = getattr(skboot, names[args.resampler], None)
        if cls is None:
            print(
                f"skboot ci: resampler {args.resampler!r} is not available in this version",
                file=sys.stderr,
            )
            return 2
        kw: dict[str, Any] = {
            "n_resamples": args.n_resamples,
            "random_state": args.seed,
        }
        if args.block_length is not None:
            if args.resampler in ("poisson", "bayesian"):
                print(
                    "skboot ci: --block-length applies to block resamplers only",
                    file=sys.stderr,
                )
                return 2
            kw["block_length"] = args.block_length
        resampler = cls(**kw)
    try:
        res = bootstrap(
            x,
            args.statistic,
            resampler=resampler,
            n_resamples=args.n_resamples,
            random_state=args.seed,
        )
        ci = res.confidence_interval(level=args.level, method=args.method)
    except ValueError as exc:
        print(f"skboot ci: {exc}", file=sys.stderr)
        return 2
    out = {
        "column": args.column,
        "n": int(x.shape[0]),
        "statistic": args.statistic,
        "estimate": float(res.estimate),
        "standard_error": float(res.standard_error),
        "method": args.method,
        "level": args.level,
        "low": float(ci.low),
        "high": float(ci.high),
        "n_resamples": res.n_resamples,
        "seed": args.seed,
        "resampler": res.resampler,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{args.statistic}({args.column}) = {out['estimate']:.6g}  "
            f"{args.level:.0%} {args.method} CI [{out['low']:.6g}, {out['high']:.6g}]  "
            f"(se {out['standard_error']:.3g}, n={out['n']}, B={out['n_resamples']}, seed={args.seed})"
        )
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print(
                "skboot ci: --plot needs matplotlib (pip install 'skboot[plot]')",
                file=sys.stderr,
            )
            return 2
        ax = res.plot(method=args.method, level=args.level)
        ax.figure.tight_layout()
        ax.figure.savefig(args.plot, dpi=120)
        plt.close(ax.figure)
    return 0


def _block_length(text: str) -> Any:
    if text == "auto":
        return "auto"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be 'auto' or a number, got {text!r}"
        ) from None
    return int(value) if value.is_integer() else value


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number in (0, 1), got {text!r}"
        ) from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= 1, got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skboot",
        description="Fast, memory-lean bootstrap confidence intervals.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo", help="run the demo on scikit-learn's breast cancer data"
    )
    demo.add_argument(
        "--n-resamples", type=_positive, default=9999, help="replicates (default 9999)"
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.set_defaults(func=_demo)
    ci = sub.add_parser("ci", help="interval for a statistic of one CSV column")
    ci.add_argument("file", help="CSV file with a header row")
    ci.add_argument("--column", required=True, help="column name")
    ci.add_argument(
        "--statistic",
        choices=STATISTICS,
        default="mean",
        help="statistic (default mean)",
    )
    ci.add_argument(
        "--method", choices=METHODS, default="bca", help="interval method (default bca)"
    )
    ci.add_argument(
        "--level", type=_level, default=0.95, help="confidence level (default 0.95)"
    )
    ci.add_argument(
        "--resampler",
        choices=("iid", "stationary", "moving", "circular", "poisson", "bayesian"),
        default="iid",
        help="resampling scheme (default iid)",
    )
    ci.add_argument(
        "--block-length",
        type=_block_length,
        default=None,
        help="'auto' or a number (block resamplers)",
    )
    ci.add_argument(
        "--n-resamples", type=_positive, default=9999, help="replicates (default 9999)"
    )
    ci.add_argument(
        "--seed", type=int, default=None, help="random seed (default: fresh entropy)"
    )
    ci.add_argument("--json", action="store_true", help="print one JSON object")
    ci.add_argument(
        "--plot",
        metavar="OUT.png",
        default=None,
        help="save a plot of the distribution",
    )
    ci.set_defaults(func=_ci)
    from skboot.significance._cli import add_test_parser

    add_test_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
