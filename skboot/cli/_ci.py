"""``skboot ci FILE.csv --column x``: estimate, standard error and interval of a
statistic of one CSV column (two for corr)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

import numpy as np

from skboot.cli._io import PlotFile, read_columns
from skboot.cli._options import (
    BLOCK_RESAMPLERS,
    CALIBRATED_METHODS,
    DEFAULT_N_INNER,
    NESTED_STATISTICS,
    RESAMPLERS,
    CliError,
)

__all__ = ["block_length_used", "check_ci_args", "run_ci", "studentized_options"]


def _resampler(args: argparse.Namespace) -> Any:
    import skboot

    kw: dict[str, Any] = {"n_resamples": args.n_resamples, "random_state": args.seed}
    if args.block_length is not None:
        kw["block_length"] = args.block_length
    return getattr(skboot, RESAMPLERS[args.resampler])(**kw)


def studentized_options(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Keywords of confidence_interval for --method, and how se is obtained."""
    if args.method in CALIBRATED_METHODS:
        return ({} if args.n_inner is None else {"n_inner": args.n_inner}), None
    if args.method != "studentized":
        return {}, None
    if args.n_inner is not None or args.statistic in NESTED_STATISTICS:
        n_inner = args.n_inner if args.n_inner is not None else DEFAULT_N_INNER
        return {"n_inner": n_inner}, "nested bootstrap"
    if args.statistic in ("mean", "proportion"):
        return {}, "closed form"
    return {}, "delta method"  # computed by the library, as for any caller


def block_length_used(result: Any) -> Any:
    """The block length a block resampler used (its estimate with 'auto')."""
    value = getattr(result, "block_length", None)
    if value is None:  # results that do not record it: read the fitted plan
        context = getattr(result, "_context", None)
        value = getattr(getattr(context, "plan", None), "block_length", None)
    if value is None:
        return None
    value = float(value)
    return int(value) if value.is_integer() else value


def check_ci_args(args: argparse.Namespace) -> None:
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
    nested = ("studentized", *CALIBRATED_METHODS)
    if args.n_inner is not None and args.method not in nested:
        error(
            "--n-inner applies to --method studentized, calibrated and "
            f"calibrated_basic only, not {args.method}"
        )
    if args.method in CALIBRATED_METHODS and args.resampler == "bayesian":
        error(
            f"--method {args.method} runs a double bootstrap, which needs "
            "replicates that are rows (any --resampler but bayesian); got "
            f"--resampler {args.resampler}"
        )
    if args.resampler == "bayesian" and args.statistic in NESTED_STATISTICS:
        error(
            f"--statistic {args.statistic} is not defined for --resampler bayesian "
            "(its replicates are continuous weights); use another resampler"
        )
    kw, se_how = studentized_options(args)
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


def _bootstrap(args: argparse.Namespace, plot: PlotFile | None) -> tuple[Any, ...]:
    """Read the data, run the bootstrap, compute the interval, write the plot."""
    from skboot import bootstrap

    x = read_columns(args.file, args.column, args.nan_policy)
    kw, se_how = studentized_options(args)
    try:
        res = bootstrap(
            x,
            args.statistic,
            resampler=_resampler(args),
            statistic_kwargs=({"q": args.q} if args.statistic == "quantile" else None),
        )
        ci = res.confidence_interval(level=args.level, method=args.method, **kw)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if plot is not None:
        plot.write(res, ci, args.method, args.level)
    return x, res, ci, kw, se_how


def _record(
    args: argparse.Namespace,
    x: np.ndarray,
    res: Any,
    ci: Any,
    kw: dict[str, Any],
    se_how: Any,
    notes: list[str],
) -> dict[str, Any]:
    """The run as one JSON object (``--json``; also what the text line shows)."""
    block_length = (
        block_length_used(res) if args.resampler in BLOCK_RESAMPLERS else None
    )
    return {
        "column": args.column[0] if len(args.column) == 1 else None,
        "columns": list(args.column),
        "n": int(x.shape[0]),
        "nan_policy": args.nan_policy,
        "statistic": args.statistic,
        "q": args.q,
        "estimate": float(res.estimate),
        "standard_error": float(res.standard_error),
        "method": args.method,
        "level": args.level,
        "low": float(ci.low),
        "high": float(ci.high),
        "studentized_se": se_how,
        "n_inner": kw.get("n_inner") if ci.n_inner is None else ci.n_inner,
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


def _print_text(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """The run as one line (and the seed to repeat it when none was given)."""
    label = ", ".join(args.column)
    if args.statistic == "quantile":
        label += f", q={args.q:g}"
    details = [
        f"se {out['standard_error']:.3g}",
        f"n={out['n']}",
        f"B={out['n_resamples']}",
    ]
    block_length = out["block_length"]
    if block_length is not None:
        auto = " (auto)" if out["block_length_auto"] else ""
        details.append(f"{args.resampler} blocks of length {block_length:.4g}{auto}")
    if out["studentized_se"] is not None:
        details.append(
            f"se* by {out['studentized_se']}"
            + (f", n_inner={out['n_inner']}" if out["n_inner"] is not None else "")
        )
    if args.method in CALIBRATED_METHODS:
        details.append(f"double bootstrap, n_inner={out['n_inner']}")
    if args.seed is not None:
        details.append(f"seed={args.seed}")
    print(
        f"{args.statistic}({label}) = {out['estimate']:.6g}  "
        f"{args.level * 100:g}% {args.method} CI [{out['low']:.6g}, {out['high']:.6g}]"
        f"  ({', '.join(details)})"
    )
    if args.seed is None:
        print(
            f"seed: fresh entropy {out['random_state']} "
            f"(repeat this run with --seed {out['random_state']})"
        )


def run_ci(args: argparse.Namespace) -> int:
    """Estimate and interval of a statistic of one CSV column (two for corr).

    Warnings are collected and printed once each on stderr; the plot file (if
    any) is written only when everything worked.
    """
    plot = PlotFile(args.plot) if args.plot is not None else None
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x, res, ci, kw, se_how = _bootstrap(args, plot)
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
    out = _record(args, x, res, ci, kw, se_how, notes)
    if args.json:
        print(json.dumps(out))
    else:
        _print_text(args, out)
    return 0
