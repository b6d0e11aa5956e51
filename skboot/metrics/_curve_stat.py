"""The curves of the bands as an engine statistic: inputs checked and prepared
once (labels encoded, scores argsorted, tie groups found), then one numba call
per chunk of replicates (:func:`skboot._kernels.curve.curve_band_chunk`); and
the bands computed from the bootstrap distribution of the curve."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import Statistic
from skboot._kernels.curve import (
    CURVE_PR,
    CURVE_ROC,
    curve_band_chunk,
    curve_difference_chunk,
)
from skboot._validation import as_float_array, value_error
from skboot.metrics._checks import check_array, show
from skboot.metrics._labels import binary_label_codes
from skboot.resamplers import ResamplingPlan

__all__ = [
    "CURVE_IDS",
    "SUP_TIE",
    "CurveDifferenceStatistic",
    "CurveStatistic",
    "PreparedCurve",
    "check_grid",
    "default_grid",
    "envelope_depths",
    "paired_default_grid",
    "pointwise_band",
    "prepare_curve",
    "simultaneous_band",
    "simultaneous_pvalue",
    "sup_pvalue",
]

#: The curves, by the name results record.
CURVE_IDS = {"roc": CURVE_ROC, "precision_recall": CURVE_PR}

#: Points of the default grid.
DEFAULT_GRID_POINTS = 101
#: How many observations of a class the default grid keeps between its ends and
#: the corners of the curve (at most a quarter of the class); the precision-recall
#: grid starts after ``PR_LOW_MARGIN`` positives.
GRID_MARGIN = 5.0
PR_LOW_MARGIN = 20.0


def check_grid(grid: Any, name: str, owner: str) -> np.ndarray:
    """``grid`` as a strictly increasing float64 vector of values in [0, 1]."""
    arr = as_float_array(grid, name, owner, ndim=(1,))
    if arr.shape[0] < 1:
        raise value_error(name, owner, "must hold at least one value. Got none.")
    outside = (arr < 0.0) | (arr > 1.0)
    if outside.any():
        raise value_error(
            name,
            owner,
            f"must hold values in [0, 1]. Got {show(arr[outside])} instead.",
        )
    if arr.shape[0] > 1 and not (np.diff(arr) > 0).all():
        raise value_error(
            name,
            owner,
            "must be strictly increasing (sorted, without repeats). Got "
            f"{show(arr)} instead.",
        )
    return np.ascontiguousarray(arr)


@dataclass(frozen=True)
class PreparedCurve:
    """The rows sorted once: ``order`` (decreasing score), ``y_sorted`` (1.0 for
    the positive class, in that order), ``group_starts`` (boundaries of the
    groups of tied scores), ``y_rows`` (the 0/1 labels in row order), the
    classes and the positive one."""

    order: np.ndarray
    y_sorted: np.ndarray
    group_starts: np.ndarray
    y_rows: np.ndarray
    classes: np.ndarray
    pos_label: Any


def prepare_curve(
    y_true: np.ndarray,
    y_score: np.ndarray,
    sample_weight: np.ndarray | None,
    pos_label: Any,
    owner: str,
    score_name: str = "y_score",
) -> PreparedCurve:
    """Encode the labels (the positive class: ``pos_label``, else 1 for labels
    in {0, 1} or {-1, 1}, else the greater class), argsort the scores (the
    parameter ``score_name``) and find the tie groups; both classes must carry
    weight."""
    yt = check_array(y_true, "y_true", owner)
    scores = as_float_array(y_score, score_name, owner, ndim=(1,))
    (codes,), classes, positive = binary_label_codes(
        owner, [("y_true", yt)], pos_label, "greater"
    )
    w = np.ones(codes.shape[0]) if sample_weight is None else sample_weight
    pos = float(np.sum(w[codes == 1]))
    neg = float(np.sum(w[codes == 0]))
    if positive is None or pos <= 0.0 or neg <= 0.0:
        present = np.unique(yt)
        raise value_error(
            "y_true",
            owner,
            "must hold both classes, each with a positive total sample_weight "
            f"(the curve is undefined otherwise). Got {show(present)} with "
            f"weights {pos:.6g} (positive class {positive!r}) and {neg:.6g} "
            "instead.",
        )
    order = np.ascontiguousarray(np.argsort(-scores, kind="stable"), dtype=np.int64)
    boundaries = np.flatnonzero(np.diff(scores[order])) + 1
    starts = np.concatenate(([0], boundaries, [scores.shape[0]])).astype(np.int64)
    y_rows = np.ascontiguousarray(codes, dtype=np.float64)
    return PreparedCurve(order, y_rows[order], starts, y_rows, classes, positive)


def default_grid(
    prepared: PreparedCurve, curve: str, sample_weight: np.ndarray | None
) -> np.ndarray:
    """The default grid: ``DEFAULT_GRID_POINTS`` equally spaced values between
    ends kept away from the corners of the curve, where the replicates' curves
    cannot vary as the true curve does (``m(c, n) = min(c, n / 4) / n``).

    ROC: FPRs from ``m(5, n_negatives)`` to the smaller of
    ``1 - m(5, n_negatives)`` and the FPR at which the observed TPR first
    reaches ``1 - m(5, n_positives)`` (the curve's flat top; the grid still
    spans at least a tenth of the range).  Precision-recall: recalls from
    ``m(20, n_positives)`` (the precision at the first few positives is biased
    upwards, in the data and in every replicate alike) to
    ``1 - m(5, n_positives)``.  Class sizes count rows, whatever their weights.
    """
    n_pos = int(np.count_nonzero(prepared.y_rows))
    n_neg = int(prepared.y_rows.shape[0]) - n_pos
    if curve != "roc":
        return np.linspace(
            _margin(PR_LOW_MARGIN, n_pos),
            1.0 - _margin(GRID_MARGIN, n_pos),
            DEFAULT_GRID_POINTS,
        )
    lo, hi = _margin(GRID_MARGIN, n_neg), 1.0 - _margin(GRID_MARGIN, n_neg)
    fine = np.linspace(lo, hi, 10 * DEFAULT_GRID_POINTS)
    tpr = CurveStatistic(prepared, fine, curve, sample_weight).estimate()
    reached = np.flatnonzero(tpr >= 1.0 - _margin(GRID_MARGIN, n_pos))
    if reached.size:
        hi = float(fine[max(int(reached[0]), fine.shape[0] // 10)])
    return np.linspace(lo, hi, DEFAULT_GRID_POINTS)


def paired_default_grid(
    prepared: list[PreparedCurve], curve: str, sample_weight: np.ndarray | None
) -> np.ndarray:
    """The default grid of several models' curves on the same rows: that of
    :func:`default_grid` whose end is the furthest (the precision-recall grid
    and the start of the ROC grid depend on the class sizes only; the ROC grid
    ends where the last of the models' observed TPRs reaches its flat top)."""
    grids = [default_grid(p, curve, sample_weight) for p in prepared]
    return max(grids, key=lambda g: float(g[-1]))


def _margin(count: float, n: int) -> float:
    """``count`` observations of a class of ``n``, at most a quarter of it, as a
    fraction of the class."""
    return min(count, n / 4.0) / n


class CurveStatistic(Statistic):
    """The curve ``curve`` ("roc" or "precision_recall") of a replicate, read on
    ``grid``: ``k = len(grid)`` values per replicate.

    ``run_chunk`` costs one ``plan.fill_weights_chunk`` and one numba call per
    chunk: O(chunk * (n + k)) time, one reused (chunk, n) float64 buffer;
    nothing of size B x n.
    """

    fused = True  # a numba kernel that releases the GIL

    def __init__(
        self,
        prepared: PreparedCurve,
        grid: np.ndarray,
        curve: str,
        sample_weight: np.ndarray | None = None,
    ) -> None:
        n = prepared.order.shape[0]
        self._curve = CURVE_IDS[curve]
        self._weighted = sample_weight is not None
        sw = (
            np.ones(n)
            if sample_weight is None
            else np.ascontiguousarray(sample_weight, dtype=np.float64)
        )
        self.arrays = (
            sw,
            prepared.order,
            prepared.y_sorted,
            prepared.group_starts,
            prepared.y_rows,
        )
        self.grid = np.ascontiguousarray(grid, dtype=np.float64)
        self.k = int(self.grid.shape[0])
        self.n_samples = n
        self.name = curve

    def estimate(self) -> np.ndarray:
        sw, order, y_sorted, starts, y_rows = self.arrays
        out = np.empty((1, self.k))
        W = np.ascontiguousarray(sw[None, :])  # the kernel's own arithmetic
        curve_band_chunk(
            self._curve, order, y_sorted, starts, y_rows, sw, False, self.grid, W, out
        )
        return out[0]

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * (plan.n_samples + self.k)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
        W = W[:nb]
        plan.fill_weights_chunk(b0, W)
        sw, order, y_sorted, starts, y_rows = arrays
        curve_band_chunk(
            self._curve,
            order,
            y_sorted,
            starts,
            y_rows,
            sw,
            self._weighted,
            self.grid,
            W,
            out,
        )


class CurveDifferenceStatistic(CurveStatistic):
    """Two models' curves on the same replicate, read on ``grid``: model a's
    minus model b's (``k = len(grid)`` values per replicate).

    ``run_chunk`` fills one (chunk, n) weight buffer per chunk (the plan's
    counts, read once) and makes one numba call that, per replicate, sums the
    class totals once and makes one pass per model over its score order:
    O(chunk * (n + k)) time, nothing of size B x n.
    """

    def __init__(
        self,
        prepared_a: PreparedCurve,
        prepared_b: PreparedCurve,
        grid: np.ndarray,
        curve: str,
        sample_weight: np.ndarray | None = None,
    ) -> None:
        super().__init__(prepared_a, grid, curve, sample_weight)
        self.arrays = (
            *self.arrays,
            prepared_b.order,
            prepared_b.y_sorted,
            prepared_b.group_starts,
        )
        self.name = f"{curve} difference"

    def estimate(self) -> np.ndarray:
        out = np.empty((1, self.k))
        self._run(self.arrays, np.ascontiguousarray(self.arrays[0][None, :]), out)
        return out[0]

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
        W = W[:nb]
        plan.fill_weights_chunk(b0, W)
        self._run(arrays, W, out, self._weighted)

    def _run(self, arrays, W, out, weighted=False) -> None:
        sw, order, y_sorted, starts, y_rows, order_b, y_sorted_b, starts_b = arrays
        curve_difference_chunk(
            self._curve,
            order,
            y_sorted,
            starts,
            order_b,
            y_sorted_b,
            starts_b,
            y_rows,
            sw,
            weighted,
            self.grid,
            W,
            out,
            np.empty(self.k),
        )


def pointwise_band(dist: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile band: at each grid point, the type-7 ``(1 - level) / 2``
    and ``(1 + level) / 2`` quantiles of the replicates."""
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(dist, [alpha, 1.0 - alpha], axis=0)
    return low, high


def simultaneous_band(
    dist: np.ndarray,
    level: float,
    depths: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """The calibrated percentile band and its pointwise level.

    With ``s_(0)(g) <= ... <= s_(B-1)(g)`` the sorted replicates at grid point
    ``g``, band ``k`` is ``[s_(k)(g), s_(B-1-k)(g)]`` at every ``g``.  Replicate
    ``b`` lies entirely inside band ``k`` exactly when ``k < K_b``, with
    ``K_b = min_g min(#{b': theta*_b'(g) <= theta*_b(g)},
    #{b': theta*_b'(g) >= theta*_b(g)})`` (ties counted, so no tie is broken
    at random); ``k`` is the largest with at least ``ceil(level * B)``
    replicates inside.  Returns the band and ``1 - 2 k / B``, the pointwise
    level of the percentile band it is.  ``depths``: :func:`envelope_depths`
    of ``dist`` when already computed.
    """
    B = dist.shape[0]
    ordered, depth = envelope_depths(dist) if depths is None else depths
    need = min(B, int(np.ceil(level * B - 1e-9)))
    k = int(np.sort(depth)[::-1][need - 1]) - 1
    return ordered[k], ordered[B - 1 - k], 1.0 - 2.0 * k / B


def simultaneous_pvalue(
    dist: np.ndarray,
    null: float = 0.0,
    depths: tuple[np.ndarray, np.ndarray] | None = None,
) -> float:
    """The p-value of "the curve is ``null`` at every grid point" that inverts
    the simultaneous band of :func:`simultaneous_band`.

    The constant curve ``null`` has depth ``K_0 = min_g min(#{b:
    theta*_b(g) <= null}, #{b: theta*_b(g) >= null})`` (ties counted), and it
    lies inside band ``k`` exactly when ``k < K_0``, as a replicate does; the
    band at level ``L`` leaves it out somewhere exactly when
    ``#{b: K_b <= K_0} / B <= 1 - L``.  Returned with the add-one correction,
    ``(1 + #{b: K_b <= K_0}) / (B + 1)``, which is never 0 and is 1 when
    every replicate is ``null`` everywhere.  ``depths``: :func:`envelope_depths`
    of ``dist`` when already computed.
    """
    B = dist.shape[0]
    ordered, depth = envelope_depths(dist) if depths is None else depths
    below = np.count_nonzero(ordered <= null, axis=0)
    above = np.count_nonzero(ordered >= null, axis=0)
    null_depth = int(np.min(np.minimum(below, above)))
    return float((1 + np.count_nonzero(depth <= null_depth)) / (B + 1))


def envelope_depths(dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``dist`` sorted along the replicates, and ``K_b`` of every replicate:
    the smallest, over the grid, of the number of replicates at or below it
    and at or above it (ties counted)."""
    B = dist.shape[0]
    ordered = np.sort(dist, axis=0)
    depth = np.full(B, B, dtype=np.int64)
    for g in range(dist.shape[1]):
        col = ordered[:, g]
        le = np.searchsorted(col, dist[:, g], side="right")
        ge = B - np.searchsorted(col, dist[:, g], side="left")
        np.minimum(depth, np.minimum(le, ge), out=depth)
    return ordered, depth


#: Ties of the sup statistic with a replicate's: studentized differences of
#: curves are multiples of ``1 / n`` over a standard deviation (at least 1e-7
#: apart for any realistic ``n``), so a gap below this is rounding (a tie,
#: counted as at least as extreme: the p-value errs on the large side).
SUP_TIE = 1e-9


def sup_pvalue(
    dist: np.ndarray, estimate: np.ndarray, alternative: str, points: np.ndarray
) -> float:
    """The studentized sup test of the difference on the grid points
    ``points`` (a boolean mask): the bootstrap sup-t statistic.

    With ``s(g)`` the replicates' standard deviation (``ddof=1``) and ``m(g)``
    their mean at the grid points where they are not all equal (elsewhere the
    bootstrap sees no variation and the point is left out),
    ``z(g) = estimate(g) / s(g)`` and ``z*_b(g) = (theta*_b(g) - m(g)) / s(g)``
    (the replicates centred on their own mean: the null's least favourable
    case, difference 0 everywhere), the statistic is ``T = max_g z(g)`` for
    "greater", ``max_g -z(g)`` for "less" and ``max_g |z(g)|`` for
    "two-sided", ``T*_b`` the same of ``z*_b``, and
    ``p = (1 + #{b: T*_b >= T}) / (B + 1)``.  1 when no point of ``points``
    varies.  Centring on the mean rather than on ``estimate`` keeps the
    replicates' offset ``m(g) - estimate(g)`` (the Monte Carlo error of ``B``
    replicates and the bootstrap's bias, different at every grid point) out of
    the maximum, which it would inflate."""
    d = dist[:, points]
    varies = np.ptp(d, axis=0) > 0.0 if d.shape[0] else np.zeros(d.shape[1], bool)
    if not varies.any():
        return 1.0
    d, est = d[:, varies], estimate[points][varies]
    s = np.std(d, axis=0, ddof=1)
    z, z_star = est / s, (d - d.mean(axis=0)) / s
    if alternative == "less":
        z, z_star = -z, -z_star
    elif alternative == "two-sided":
        z, z_star = np.abs(z), np.abs(z_star)
    t = float(np.max(z))
    t_star = np.max(z_star, axis=1)
    return float((1 + np.count_nonzero(t_star >= t - SUP_TIE)) / (d.shape[0] + 1))
