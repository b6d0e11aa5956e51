"""The ``skboot`` command: ``skboot demo`` and ``skboot ci FILE.csv --column x``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from skboot._cli_demo import demo as _demo
from skboot._cli_standard_errors import delta_method_se

__all__ = ["main"]

METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
STATISTICS = ("mean", "median", "quantile", "std", "var", "sum", "proportion", "corr")
#: --resampler choice -> skboot class
RESAMPLERS = {
    "iid": "Bootstrap",
    "stationary": "StationaryBootstrap",
    "moving": "MovingBlockBootstrap",
    "circular": "CircularBlockBootstrap",
    "poisson": "PoissonBootstrap",
    "bayesian": "BayesianBootstrap",
}
BLOCK_RESAMPLERS = ("stationary", "moving", "circular")
#: statistics whose studentized interval needs the nested bootstrap
NESTED_STATISTICS = ("median", "quantile")
#: replicates of the nested bootstrap per outer replicate (Efron & Tibshirani
#: 1993, ch. 6: 25 to 200 replicates estimate a standard error)
DEFAULT_N_INNER = 25


class CliError(Exception):
    """A problem with the command's input: one line on stderr, exit status 2."""


def _read_columns(path: str, columns: Sequence[str]) -> np.ndarray:
    """The named columns of a CSV file as float64, shape (n,) or (n, k)."""
    import pandas as pd

    try:
        header = pd.read_csv(path, nrows=0)
        missing = [c for c in columns if c not in header.columns]
        if missing:
            cols = ", ".join(map(str, header.columns))
            raise CliError(f"column {missing[0]!r} not in {path} (columns: {cols})")
        frame = pd.read_csv(path, usecols=list(dict.fromkeys(columns)))
    except FileNotFoundError:
        raise CliError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise CliError(f"{path} is a directory, not a CSV file") from None
    except PermissionError:
        raise CliError(f"permission denied: cannot read {path}") from None
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # pandas' ParserError, EmptyDataError; bad encoding
        raise CliError(f"cannot read {path} as CSV: {exc}") from None
    out = []
    for name in columns:
        col = frame[name]
        values = pd.to_numeric(col, errors="coerce")
        bad = int(values.isna().sum() - col.isna().sum())
        if bad:
            raise CliError(f"column {name!r} has {bad} non-numeric value(s)")
        missing_values = int(values.isna().sum())
        if missing_values:
            raise CliError(
                f"column {name!r} has {missing_values} missing value(s); "
                "remove them first"
            )
        out.append(values.to_numpy(dtype=np.float64))
    return out[0] if len(out) == 1 else np.column_stack(out)


class _PlotFile:
    """``--plot``: checked, and a temporary file made next to it, before any work.

    The figure is written to the temporary file and renamed over the target only
    when complete, so a failed run leaves no file (and no partial one) behind.
    """

    def __init__(self, path: str) -> None:
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            raise CliError(
                "--plot needs matplotlib (pip install 'skboot[plot]')"
            ) from None
        formats = FigureCanvasBase.get_supported_filetypes()
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if os.path.isdir(path):
            raise CliError(
                f"--plot {path}: is a directory; give a file name such as "
                f"{os.path.join(path, 'distribution.png')}"
            )
        if ext not in formats:
            raise CliError(
                f"--plot {path}: the file name must end in the extension of an "
                f"image format ({', '.join(sorted(formats))})"
            )
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CliError(f"--plot {path}: the folder {folder} does not exist")
        try:
            fd, self.temp = tempfile.mkstemp(
                prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder
            )
        except OSError as exc:
            raise CliError(
                f"--plot {path}: cannot write in {folder}: {exc.strerror or exc}"
            ) from None
        os.close(fd)
        self.path, self.format = path, ext

    def write(self, result: Any, interval: Any, method: str, level: float) -> None:
        from matplotlib.figure import Figure

        from skboot.plotting import plot_distribution

        fig = Figure(figsize=(6, 3.5), layout="constrained")
        plot_distribution(
            _WithInterval(result, interval),
            ax=fig.subplots(),
            method=method,
            level=level,
        )
        try:
            fig.savefig(self.temp, format=self.format, dpi=120)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.temp, 0o666 & ~umask)  # mkstemp made it private (0600)
            os.replace(self.temp, self.path)
        except OSError as exc:
            raise CliError(
                f"--plot {self.path}: cannot write it: {exc.strerror or exc}"
            ) from None

    def discard(self) -> None:
        if os.path.exists(self.temp):
            os.unlink(self.temp)


class _WithInterval:
    """A result whose ``confidence_interval`` is the one already computed, so the
    plot draws it without running the jackknife or a nested bootstrap again."""

    def __init__(self, result: Any, interval: Any) -> None:
        self._result, self._interval = result, interval

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)

    def confidence_interval(self, *args: Any, **kwargs: Any) -> Any:
        return self._interval


def _resampler(args: argparse.Namespace) -> Any:
    import skboot

    kw: dict[str, Any] = {"n_resamples": args.n_resamples, "random_state": args.seed}
    if args.block_length is not None:
        kw["block_length"] = args.block_length
    return getattr(skboot, RESAMPLERS[args.resampler])(**kw)


def _studentized_options(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Keywords of confidence_interval for --method, and how se is obtained."""
    if args.method != "studentized":
        return {}, None
    if args.n_inner is not None or args.statistic in NESTED_STATISTICS:
        n_inner = args.n_inner if args.n_inner is not None else DEFAULT_N_INNER
        return {"n_inner": n_inner}, "nested bootstrap"
    if args.statistic == "mean":
        return {}, "closed form"
    return {"standard_error": delta_method_se(args.statistic)}, "delta method"


def _block_length_used(result: Any) -> Any:
    """The block length a block resampler used (its estimate with 'auto')."""
    value = getattr(result, "block_length", None)
    if value is None:  # results that do not record it: read the fitted plan
        context = getattr(result, "_context", None)
        value = getattr(getattr(context, "plan", None), "block_length", None)
    if value is None:
        return None
    value = float(value)
    return int(value) if value.is_integer() else value


def _ci(args: argparse.Namespace) -> int:
    """Estimate and interval of a statistic of one CSV column (two for corr)."""
    from skboot import bootstrap

    plot = _PlotFile(args.plot) if args.plot is not None else None
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = _read_columns(args.file, args.column)
            kw, se_how = _studentized_options(args)
            try:
                res = bootstrap(
                    x,
                    args.statistic,
                    resampler=_resampler(args),
                    statistic_kwargs=(
                        {"q": args.q} if args.statistic == "quantile" else None
                    ),
                )
                ci = res.confidence_interval(level=args.level, method=args.method, **kw)
            except ValueError as exc:
                raise CliError(str(exc)) from None
            if plot is not None:
                plot.write(res, ci, args.method, args.level)
    except BaseException:
        if plot is not None:
            plot.discard()
        raise
    finally:
        notes = list(
            dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught)
        )
        for note in notes:
            print(f"skboot ci: warning: {note}", file=sys.stderr)
    block_length = (
        _block_length_used(res) if args.resampler in BLOCK_RESAMPLERS else None
    )
    out = {
        "column": args.column[0] if len(args.column) == 1 else None,
        "columns": list(args.column),
        "n": int(x.shape[0]),
        "statistic": args.statistic,
        "q": args.q,
        "estimate": float(res.estimate),
        "standard_error": float(res.standard_error),
        "method": args.method,
        "level": args.level,
        "low": float(ci.low),
        "high": float(ci.high),
        "studentized_se": se_how,
        "n_inner": kw.get("n_inner"),
        "n_resamples": res.n_resamples,
        "seed": args.seed,
        "random_state": res.random_state,
        "repeat_with": f"--seed {res.random_state}",
        "stream_version": res.stream_version,
        "resampler": res.resampler,
        "block_length": block_length,
        "block_length_auto": (
            None if block_length is None else args.block_length in (None, "auto")
        ),
        "warnings": notes,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    label = ", ".join(args.column)
    if args.statistic == "quantile":
        label += f", q={args.q:g}"
    details = [
        f"se {out['standard_error']:.3g}",
        f"n={out['n']}",
        f"B={res.n_resamples}",
    ]
    if block_length is not None:
        auto = " (auto)" if out["block_length_auto"] else ""
        details.append(f"{args.resampler} blocks of length {block_length:.4g}{auto}")
    if se_how is not None:
        details.append(
            f"se* by {se_how}"
            + (f", n_inner={kw['n_inner']}" if "n_inner" in kw else "")
        )
    if args.seed is not None:
        details.append(f"seed={args.seed}")
    print(
        f"{args.statistic}({label}) = {out['estimate']:.6g}  "
        f"{args.level * 100:g}% {args.method} CI [{out['low']:.6g}, {out['high']:.6g}]"
        f"  ({', '.join(details)})"
    )
    if args.seed is None:
        print(
            f"seed: fresh entropy {res.random_state} "
            f"(repeat this run with --seed {res.random_state})"
        )
    return 0


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
  mean                      closed form, std(ddof=1) / sqrt(n)
  sum, proportion, var,     nonparametric delta method (influence values;
  std, corr                 Efron & Tibshirani 1993, ch. 21)
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
    from skboot import __version__

    parser = argparse.ArgumentParser(
        prog="skboot",
        description="Fast, memory-lean bootstrap confidence intervals.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo", help="run the demo on scikit-learn's breast cancer data"
    )
    demo.add_argument(
        "--n-resamples", type=_positive, default=9999, help="replicates (default 9999)"
    )
    demo.add_argument(
        "--seed", type=_int_at_least(0), default=0, help="random seed (default 0)"
    )
    demo.set_defaults(func=_demo)
    ci = sub.add_parser(
        "ci",
        help="interval for a statistic of one CSV column (two for corr)",
        description="Bootstrap estimate, standard error and confidence interval of "
        "a statistic\nof a CSV column (of two for corr).",
        epilog=CI_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
    ci.add_argument(
        "--q",
        type=_probability,
        default=None,
        help="probability of --statistic quantile, in [0, 1] (required with it)",
    )
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
        "closed-form or delta-method standard error unless this is given)",
    )
    ci.add_argument(
        "--level", type=_level, default=0.95, help="confidence level (default 0.95)"
    )
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
    ci.set_defaults(func=_ci, parser=ci)
    from skboot.significance._cli import add_test_parser

    add_test_parser(sub)
    return parser


def _check_ci_args(args: argparse.Namespace) -> None:
    """Combinations of options that cannot work: a usage error before any work."""
    error = args.parser.error
    n_columns = len(args.column)
    if args.statistic == "corr" and n_columns != 2:
        error(
            "--statistic corr needs two columns (--column A --column B); "
            f"got {n_columns}"
        )
    if args.statistic != "corr" and n_columns != 1:
        error(
            f"--statistic {args.statistic} takes one --column; got {n_columns} "
            "(two only with --statistic corr)"
        )
    if args.statistic == "quantile" and args.q is None:
        error("--statistic quantile needs --q, the probability in [0, 1]")
    if args.statistic != "quantile" and args.q is not None:
        error(f"--q applies to --statistic quantile only, not {args.statistic}")
    if args.block_length is not None and args.resampler not in BLOCK_RESAMPLERS:
        error(
            "--block-length applies to the block resamplers (stationary, moving, "
            f"circular) only, not --resampler {args.resampler}"
        )
    if args.n_inner is not None and args.method != "studentized":
        error(f"--n-inner applies to --method studentized only, not {args.method}")
    if args.resampler == "bayesian" and args.statistic in NESTED_STATISTICS:
        error(
            f"--statistic {args.statistic} is not defined for --resampler bayesian "
            "(its replicates are continuous weights); use another resampler"
        )
    kw, se_how = _studentized_options(args)
    if se_how == "nested bootstrap":
        reason = (
            "--n-inner" if args.n_inner is not None else f"--statistic {args.statistic}"
        )
        if args.resampler != "iid":
            error(
                f"--method studentized with {reason} runs a nested bootstrap, which "
                f"needs --resampler iid; got --resampler {args.resampler}"
            )
        if args.n_resamples * kw["n_inner"] >= 2**32:
            error(
                "--n-resamples x --n-inner must be below 2**32 (the nested "
                f"bootstrap's replicate numbers); got {args.n_resamples} x "
                f"{kw['n_inner']}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``skboot`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when done, 2 for bad input (usage errors exit through
        :class:`SystemExit` with status 2), 130 when interrupted.

    Examples
    --------
    >>> from skboot.__main__ import main
    >>> main(["ci", "no-such-file.csv", "--column", "x"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "ci":
        _check_ci_args(args)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"skboot {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"skboot {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
