"""What the interval methods share: the tail probability, type-7 quantiles of
sorted columns, the bias correction and acceleration, the degenerate-case
warnings, and the shaping of the output."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtri

from skboot._exceptions import DegenerateDistributionWarning, warn
from skboot.intervals._moments import JackknifeMoments
from skboot.intervals._result import FloatArray, FloatOrArray, IntervalEndpoints

__all__ = [
    "acceleration",
    "as_output",
    "finish",
    "mid_rank_z0",
    "sorted_quantile",
    "tail_alpha",
    "warn_columns",
    "warn_zero_spread",
]


def tail_alpha(level: float, alternative: str) -> float:
    """``alpha``: ``(1 - level) / 2`` two-sided, ``1 - level`` one-sided."""
    return (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level


def warn_columns(
    method: str,
    mask: NDArray[np.bool_],
    vector: bool,
    what: str,
    reason: str,
) -> None:
    """Emit one DegenerateDistributionWarning for the columns flagged in mask
    (attributed to the user's line, see :func:`skboot._exceptions.warn`)."""
    cols = np.flatnonzero(mask)
    if cols.size == 0:
        return
    if not vector:
        where = f"'{what}'"
    elif cols.size == 1:
        where = f"column {int(cols[0])} of '{what}'"
    else:
        where = f"columns {cols.tolist()} of '{what}'"
    warn(f"{method}: {where}: {reason}", DegenerateDistributionWarning)


def warn_zero_spread(
    method: str, theta: FloatArray, vector: bool, consequence: str
) -> None:
    """Warn for the columns whose replicates are all equal."""
    flat = theta.max(axis=0) == theta.min(axis=0)
    warn_columns(
        method,
        flat,
        vector,
        "distribution",
        f"zero spread (all replicates are equal); {consequence}.",
    )


def sorted_quantile(
    ordered: FloatArray, p: FloatArray, n_valid: NDArray[np.intp] | None = None
) -> FloatArray:
    """Type-7 quantile of each column of a column-sorted (B, k) array.

    ``p`` has shape (k,) with values in [0, 1] or NaN (giving NaN). When
    ``n_valid`` is given, only the first ``n_valid[j]`` rows of column j count
    (invalid entries are NaN and sort last); a column with none gives NaN.
    """
    n_rows, k = ordered.shape
    count = np.full(k, n_rows, dtype=np.intp) if n_valid is None else n_valid
    out = np.full(k, np.nan)
    cols = np.flatnonzero(np.isfinite(p) & (count > 0))
    position = (count[cols] - 1) * p[cols]
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, count[cols] - 1)
    weight = position - below
    lower = ordered[below, cols]
    out[cols] = lower + weight * (ordered[above, cols] - lower)
    return out


def mid_rank_z0(theta: FloatArray, est: FloatArray) -> FloatArray:
    """Bias correction with ties counted one half (scipy's convention)."""
    n_rep = theta.shape[0]
    count = np.count_nonzero(theta < est, axis=0) + np.count_nonzero(
        theta <= est, axis=0
    )
    return np.asarray(ndtri(count / (2 * n_rep)), dtype=np.float64)


def acceleration(
    jk: FloatArray | JackknifeMoments,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Per-column acceleration (E&T eq. 14.15) and the mask of 0/0 columns;
    ``jk`` holds the leave-one-out values or their :class:`JackknifeMoments`."""
    if isinstance(jk, JackknifeMoments):
        ok = ~jk.constant & (jk.m2 > 0.0)
        den = 6.0 * np.where(ok, jk.m2, 1.0) ** 1.5
        return np.where(ok, jk.m3 / den, 0.0), jk.constant
    constant = jk.max(axis=0) == jk.min(axis=0)
    dev = jk.mean(axis=0) - jk
    num = np.sum(dev**3, axis=0)
    den = 6.0 * np.sum(dev**2, axis=0) ** 1.5
    # A constant column is 0/0 in exact arithmetic, but its floating-point mean
    # can differ from the values by an ulp, which would give |a| = 1/(6 sqrt(n)).
    a_hat = np.divide(num, den, out=np.zeros_like(num), where=~constant)
    return a_hat, constant


def as_output(values: FloatArray, vector: bool) -> FloatOrArray:
    """(k,) values as given: an array for a 2-D distribution, else a float."""
    return values if vector else float(values[0])


def finish(
    low: FloatArray,
    high: FloatArray,
    level_low: FloatArray,
    level_high: FloatArray,
    alternative: str,
    vector: bool,
    diagnostics: dict[str, Any],
) -> IntervalEndpoints:
    """Open the unused side of a one-sided interval and shape the output."""
    if alternative == "less":
        low = np.full_like(low, -np.inf)
        level_low = np.full_like(level_low, np.nan)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
        level_high = np.full_like(level_high, np.nan)
    return IntervalEndpoints(
        low=as_output(low, vector),
        high=as_output(high, vector),
        levels=(as_output(level_low, vector), as_output(level_high, vector)),
        diagnostics=diagnostics,
    )
