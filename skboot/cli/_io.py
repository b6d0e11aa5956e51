"""Files of ``skboot ci``: the CSV columns it reads and the plot it writes."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from skboot.cli._options import CliError

__all__ = ["PlotFile", "WithInterval", "numeric_column", "read_columns", "read_frame"]


def read_frame(path: str, columns: Sequence[str]) -> Any:
    """The named columns of a CSV file as a DataFrame; every way the file can be
    unreadable is one :class:`CliError` (the same for every subcommand)."""
    import pandas as pd

    try:
        header = pd.read_csv(path, nrows=0)
        missing = [c for c in columns if c not in header.columns]
        if missing:
            cols = ", ".join(map(str, header.columns))
            raise CliError(f"column {missing[0]!r} not in {path} (columns: {cols})")
        return pd.read_csv(path, usecols=list(dict.fromkeys(columns)))
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


def numeric_column(frame: Any, name: str, nan_policy: str) -> np.ndarray:
    """One column as float64 (blank cells NaN); text refused, and blanks refused
    under ``nan_policy="raise"`` with a pointer to ``--nan-policy omit``."""
    import pandas as pd

    col = frame[name]
    values = pd.to_numeric(col, errors="coerce")
    bad = int(values.isna().sum() - col.isna().sum())
    if bad:
        raise CliError(f"column {name!r} has {bad} non-numeric value(s)")
    missing_values = int(values.isna().sum())
    if missing_values and nan_policy == "raise":
        raise CliError(
            f"column {name!r} has {missing_values} missing value(s); "
            "pass --nan-policy omit to drop them"
        )
    return values.to_numpy(dtype=np.float64)


def read_columns(
    path: str, columns: Sequence[str], nan_policy: str = "raise"
) -> np.ndarray:
    """The named columns of a CSV file as float64, shape (n,) or (n, k).

    Blank cells are refused (``nan_policy="raise"``), or the rows that hold one in
    any of the columns are dropped (``"omit"``).
    """
    frame = read_frame(path, columns)
    table = np.column_stack([numeric_column(frame, c, nan_policy) for c in columns])
    table = table[~np.isnan(table).any(axis=1)]
    if table.shape[0] == 0 and len(frame):
        raise CliError(f"no row of {path} has a value in every column used")
    return table[:, 0] if len(columns) == 1 else table


class PlotFile:
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
            WithInterval(result, interval),
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


class WithInterval:
    """A result whose ``confidence_interval`` is the one already computed, so the
    plot draws it without running the jackknife or a nested bootstrap again."""

    def __init__(self, result: Any, interval: Any) -> None:
        self._result, self._interval = result, interval

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)

    def confidence_interval(self, *args: Any, **kwargs: Any) -> Any:
        return self._interval
