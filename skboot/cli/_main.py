"""The entry point of the ``skboot`` command."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from skboot.cli._ci import check_ci_args
from skboot.cli._options import CliError
from skboot.cli._parser import build_parser

__all__ = ["main"]


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
    >>> from skboot.cli import main
    >>> main(["ci", "no-such-file.csv", "--column", "x"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "ci":
        check_ci_args(args)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"skboot {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"skboot {args.command}: interrupted", file=sys.stderr)
        return 130
