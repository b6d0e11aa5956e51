"""The ``skboot`` command: ``skboot demo`` and ``skboot ci FILE.csv --column x``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from skboot._cli_demo import demo as _demo

__all__ = ["main"]

METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
STATISTICS = ("mean", "median", "std", "var", "sum", "proportion")


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
