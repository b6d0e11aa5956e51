"""Pure-numpy reference of the device kernels' summation rule.

The CUDA kernels add the value at position ``t`` to accumulator ``t % 8`` while whole
groups of eight remain, sum the at most seven values after the last whole group in
order into a ninth, and return ``((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
+ tail``.  These functions compute the same sums with numpy, bit for bit for sums of
values (the device may fuse products into FMA instructions, so sums of squares and
weighted sums can differ there in the last bits).  They serve the tests and the
host-side recomputation of the rare stationary replicate whose block length the
device could not decide exactly.
"""

from __future__ import annotations

import numpy as np

__all__ = ["corr_sums", "index_sums", "rule_sum", "weight_sums"]


def _sequential(values: np.ndarray) -> np.ndarray:
    """Left-to-right sums over axis 0 starting from 0.0 (as a device accumulator)."""
    start = np.zeros((1, *values.shape[1:]))
    return np.cumsum(np.concatenate([start, values]), axis=0)[-1]


def rule_sum(values: np.ndarray) -> np.ndarray:
    """The device sum of ``values`` (position on axis 0), shape ``values.shape[1:]``."""
    values = np.asarray(values, dtype=np.float64)
    m = values.shape[0]
    m8 = m - m % 8
    a = [_sequential(values[u:m8:8]) for u in range(8)]
    tail = _sequential(values[m8:])
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + tail


def index_sums(X: np.ndarray, rows: np.ndarray, want2: bool) -> tuple[np.ndarray, ...]:
    """Column sums (and sums of squares) of ``X[rows]`` (X is (n, d)) by the rule."""
    V = X[np.asarray(rows, dtype=np.int64)]
    s2 = rule_sum(V * V) if want2 else np.zeros(X.shape[1])
    return rule_sum(V), s2


def weight_sums(X: np.ndarray, w: np.ndarray, want2: bool) -> tuple[np.ndarray, ...]:
    """``sum w x``, ``sum w x x`` (when ``want2``) and ``sum w`` by rows, skipping
    rows of weight 0 (as the kernels and the CPU do)."""
    w = np.asarray(w, dtype=np.float64)
    keep = (w != 0.0)[:, None]
    wx = np.where(keep, w[:, None] * X, 0.0)
    s2 = rule_sum(np.where(keep, wx * X, 0.0)) if want2 else np.zeros(X.shape[1])
    return rule_sum(wx), s2, rule_sum(np.where(keep[:, 0], w, 0.0))


def corr_sums(XY: np.ndarray, rows: np.ndarray | None, w: np.ndarray | None):
    """The six sums of the corr kernels (x, y, xx, yy, xy, weight) for the rows of
    an index replicate or the weights of a weight replicate."""
    if rows is not None:
        V = XY[np.asarray(rows, dtype=np.int64)]
        x, y = V[:, 0], V[:, 1]
        cols = [x, y, x * x, y * y, x * y]
        return np.array([rule_sum(c) for c in cols] + [float(V.shape[0])])
    assert w is not None
    keep = w != 0.0
    x, y = XY[:, 0], XY[:, 1]
    wx, wy = w * x, w * y
    cols = [wx, wy, wx * x, wy * y, wx * y, w]
    return np.array([rule_sum(np.where(keep, c, 0.0)) for c in cols])
