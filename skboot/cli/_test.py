"""``skboot test FILE.csv --columns a b --statistic mean-diff``: a permutation test
of CSV columns (registered into the ``skboot`` command by :func:`add_test_parser`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from typing import Any

from skboot.cli._io import numeric_column, read_frame
from skboot.cli._options import add_nan_policy

__all__ = ["CLI_STATISTICS", "add_test_parser"]

#: CLI spelling (hyphens, as the command's options) -> fused statistic.
CLI_STATISTICS = {
    "mean-diff": "mean_diff",
    "median-diff": "median_diff",
    "t": "t",
    "welch-t": "welch_t",
    "pearson": "pearson",
    "spearman": "spearman",
    "paired-mean-diff": "paired_mean_diff",
    "paired-t": "paired_t",
}


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


def add_test_parser(sub: Any) -> None:
    """Add the ``test`` subcommand to the ``skboot`` command's subparsers."""
    p = sub.add_parser("test", help="permutation test comparing CSV columns (p-value)")
    p.add_argument("file", help="CSV file with a header row")
    p.add_argument(
        "--columns",
        nargs="+",
        required=True,
        metavar="COLUMN",
        help="two columns (one for the paired statistics: differences)",
    )
    p.add_argument(
        "--statistic",
        choices=tuple(CLI_STATISTICS),
        default="mean-diff",
        help="statistic; it sets the permutation type (default mean-diff)",
    )
    p.add_argument(
        "--alternative",
        choices=("two-sided", "less", "greater"),
        default="two-sided",
        help="alternative hypothesis (default two-sided)",
    )
    p.add_argument(
        "--n-resamples",
        type=_positive,
        default=9999,
        help="random permutations; exact when there are no more (default 9999)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="random seed (default: fresh entropy)"
    )
    add_nan_policy(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)


def _fail(message: str) -> int:
    print(f"skboot test: {message}", file=sys.stderr)
    return 2


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from skboot.significance import FUSED_STATISTICS

    name = CLI_STATISTICS[args.statistic]
    kind = FUSED_STATISTICS[name]
    allowed = (1, 2) if kind == "samples" else (2,)
    if len(args.columns) not in allowed:
        want = " or ".join(map(str, allowed))
        return _fail(
            f"--statistic {args.statistic} takes {want} column(s); got "
            f"{len(args.columns)}"
        )
    frame = read_frame(args.file, args.columns)
    samples = [numeric_column(frame, c, args.nan_policy) for c in args.columns]
    if kind == "independent":  # each column its own sample: its blanks dropped
        samples = [s[~np.isnan(s)] for s in samples]
    else:  # rows are pairs: a row with a blank is dropped whole
        keep = ~np.any([np.isnan(s) for s in samples], axis=0)
        samples = [s[keep] for s in samples]
    res = _test(args, samples, name, kind)
    if isinstance(res, int):
        return res
    out = {
        "columns": list(args.columns),
        "n": [int(s.shape[0]) for s in samples],
        "statistic": args.statistic,
        "permutation_type": kind,
        "observed": float(res.statistic),
        "pvalue": float(res.pvalue),
        "alternative": args.alternative,
        "exact": res.exact,
        "n_resamples": res.n_resamples,
        "seed": args.seed,
        "random_state": res.random_state,
        "repeat_with": f"--seed {res.random_state}",
        "nan_policy": args.nan_policy,
    }
    if args.json:
        print(json.dumps(out))
    else:
        how = "exact" if res.exact else f"{res.n_resamples} random permutations"
        print(
            f"{args.statistic}({', '.join(args.columns)}) = {out['observed']:.6g}  "
            f"p = {out['pvalue']:.4g} ({args.alternative}, {kind} permutation "
            f"test, {how}, n={out['n']}"
            + ("" if args.seed is None else f", seed={args.seed}")
            + ")"
        )
        if args.seed is None and not res.exact:
            print(
                f"seed: fresh entropy {res.random_state} "
                f"(repeat this run with --seed {res.random_state})"
            )
    return 0


def _test(args: argparse.Namespace, samples: list[Any], name: str, kind: str) -> Any:
    """The test's result, or the exit status: 2 for an input the test refuses,
    1 for a statistic undefined on these columns (a message, no p-value)."""
    from skboot import UndefinedStatisticWarning
    from skboot.significance import permutation_test

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedStatisticWarning)
            res = permutation_test(
                tuple(samples),
                name,
                permutation_type=kind,
                n_resamples=args.n_resamples,
                alternative=args.alternative,
                random_state=args.seed,
            )
    except ValueError as exc:
        return _fail(str(exc))
    if math.isnan(float(res.statistic)):
        why = next(
            (str(w.message) for w in caught if "on the data:" in str(w.message)), ""
        )
        why = why.split("on the data: ", 1)[-1].split(". Its p-value", 1)[0]
        print(
            f"skboot test: {args.statistic}({', '.join(args.columns)}) is undefined "
            f"on these columns ({why or 'NaN'}); no p-value.",
            file=sys.stderr,
        )
        return 1
    for w in caught:  # permutations on which the statistic was undefined
        print(f"skboot test: warning: {w.message}", file=sys.stderr)
    return res
