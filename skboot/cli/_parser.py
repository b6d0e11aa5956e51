"""The ``skboot`` command line: argument types, the parser and its two commands."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from skboot.cli._ci import run_ci
from skboot.cli._demo import demo
from skboot.cli._options import (
    CALIBRATION_N_INNER,
    DEFAULT_N_INNER,
    METHODS,
    RESAMPLERS,
    STATISTICS,
    add_nan_policy,
)

__all__ = ["CI_EPILOG", "build_parser"]


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def _block_length(text: str) -> Any:
    if text == "auto":
        return "auto"
    value = _number(text, "'auto' or a number")
    return int(value) if value.is_integer() else value


def _level(text: str) -> float:
    value = _number(text, "a number in (0, 1)")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text!r}")
    return value


def _probability(text: str) -> float:
    value = _number(text, "a number in [0, 1]")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def _int_at_least(minimum: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}"
            ) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}, got {text!r}"
            )
        return value

    return parse


_positive = _int_at_least(1)

CI_EPILOG = f"""\
studentized intervals (--method studentized) need the statistic's standard
error on the data and on every replicate:
  mean, proportion          closed form, std(ddof=1) / sqrt(n)
  sum, var, std, corr       nonparametric delta method (influence values;
                            Efron & Tibshirani 1993, ch. 21)
  median, quantile          nested bootstrap: --n-inner replicates (default
                            {DEFAULT_N_INNER}) of every replicate; --resampler iid only;
                            costs n_resamples x n_inner evaluations of the
                            statistic, so lower --n-resamples for a quick look
--n-inner N runs the nested bootstrap for any statistic (--resampler iid).

Without --seed the run draws fresh entropy and prints it with the --seed flag
that repeats it exactly (in --json: "random_state" and "repeat_with").

exit status: 0 done; 2 bad options or input (reported on one line, no file
written); 130 interrupted.
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``skboot``: ``demo``, ``ci`` and ``test``; ``--version``."""
    from skboot import __version__

    parser = argparse.ArgumentParser(
        prog="skboot",
        description="Fast, memory-lean bootstrap confidence intervals.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_demo(sub)
    _add_ci(sub)
    from skboot.cli._test import add_test_parser

    add_test_parser(sub)
    return parser


def _add_demo(sub: Any) -> None:
    demo_parser = sub.add_parser(
        "demo", help="run the demo on scikit-learn's breast cancer data"
    )
    demo_parser.add_argument(
        "--n-resamples", type=_positive, default=9999, help="replicates (default 9999)"
    )
    demo_parser.add_argument(
        "--seed", type=_int_at_least(0), default=0, help="random seed (default 0)"
    )
    demo_parser.set_defaults(func=demo)


def _add_ci(sub: Any) -> None:
    ci = sub.add_parser(
        "ci",
        help="interval for a statistic of one CSV column (two for corr)",
        description="Bootstrap estimate, standard error and confidence interval of "
        "a statistic\nof a CSV column (of two for corr).",
        epilog=CI_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_ci_data(ci)
    _add_ci_interval(ci)
    _add_ci_run(ci)
    ci.set_defaults(func=run_ci, parser=ci)


def _add_ci_data(ci: argparse.ArgumentParser) -> None:
    """What is computed: the file, its column(s), the statistic."""
    ci.add_argument("file", help="CSV file with a header row")
    ci.add_argument(
        "--column",
        required=True,
        action="append",
        metavar="NAME",
        help="column name; give two (--column A --column B) for --statistic corr",
    )
    ci.add_argument(
        "--statistic",
        choices=STATISTICS,
        default="mean",
        help="statistic (default mean); var and std use ddof=0",
    )
    add_nan_policy(ci)
    ci.add_argument(
        "--q",
        type=_probability,
        default=None,
        help="probability of --statistic quantile, in [0, 1] (required with it)",
    )


def _add_ci_interval(ci: argparse.ArgumentParser) -> None:
    """The interval: method, nested replicates, level."""
    ci.add_argument(
        "--method",
        type=str.lower,
        choices=METHODS,
        default="bca",
        help="interval method, any letter case (default bca); studentized: see below",
    )
    ci.add_argument(
        "--n-inner",
        type=_int_at_least(2),
        default=None,
        metavar="N",
        help="replicates of the nested bootstrap of --method studentized (default "
        f"{DEFAULT_N_INNER} for median and quantile; other statistics have a "
        "closed-form or delta-method standard error unless this is given), and "
        "inner replicates per replicate of --method calibrated and "
        f"calibrated_basic (default {CALIBRATION_N_INNER})",
    )
    ci.add_argument(
        "--level", type=_level, default=0.95, help="confidence level (default 0.95)"
    )


def _add_ci_run(ci: argparse.ArgumentParser) -> None:
    """How it runs and what it writes: resampler, replicates, seed, output."""
    ci.add_argument(
        "--resampler",
        choices=tuple(RESAMPLERS),
        default="iid",
        help="resampling scheme (default iid)",
    )
    ci.add_argument(
        "--block-length",
        type=_block_length,
        default=None,
        help="'auto' (the default) or a number; stationary, moving and circular "
        "resamplers only",
    )
    ci.add_argument(
        "--n-resamples", type=_positive, default=9999, help="replicates (default 9999)"
    )
    ci.add_argument(
        "--seed",
        type=_int_at_least(0),
        default=None,
        help="random seed, an integer >= 0 (default: fresh entropy, printed)",
    )
    ci.add_argument("--json", action="store_true", help="print one JSON object")
    ci.add_argument(
        "--plot",
        metavar="OUT.png",
        default=None,
        help="save a plot of the distribution and the interval (format from the "
        "extension: png, pdf, svg, ...; needs matplotlib)",
    )
