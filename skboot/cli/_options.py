"""The vocabulary of the ``skboot`` command: its choices and its input error."""

from __future__ import annotations

import argparse

from skboot.intervals import CALIBRATED_METHODS, CALIBRATION_N_INNER, METHODS

__all__ = [
    "BLOCK_RESAMPLERS",
    "CALIBRATED_METHODS",
    "CALIBRATION_N_INNER",
    "DEFAULT_N_INNER",
    "METHODS",
    "NESTED_STATISTICS",
    "RESAMPLERS",
    "STATISTICS",
    "CliError",
    "add_nan_policy",
]

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


def add_nan_policy(parser: argparse.ArgumentParser) -> None:
    """``--nan-policy``: what a subcommand does with blank (missing) cells."""
    parser.add_argument(
        "--nan-policy",
        choices=("raise", "omit"),
        default="raise",
        help="blank cells: raise (the default) stops with an error naming the "
        "column; omit drops each row that has a blank in a column used",
    )
