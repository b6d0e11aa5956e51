"""The data-parallel Poisson bootstrap of the median and quantiles: exact order
statistics of every replicate without bringing the rows to the client.

Replicate ``b``'s quantile at level ``q`` is read from its weighted order
statistics at ranks ``lo = floor((m_b - 1) q)`` and ``lo + 1`` (the median:
``(m_b - 1) // 2`` and ``m_b // 2``), ``m_b`` the sum of its Poisson counts:
the in-memory definition (:func:`skboot._kernels.weighted.weighted_order_stats`).
Those ranks correspond, in the original data, to ranks within a few
``sqrt(n q (1 - q))`` of ``(n - 1) q``.  So:

1. a **sketch** pass (no replicates) bounds the global rank of sample values
   of each column (:mod:`skboot._run._dask_bracket`) and gives, per column and
   level, a value bracket ``[lo, hi]`` holding the original ranks ``(n - 1) q
   +- D``, ``D = 7 sqrt(n q (1 - q)) + 64``, with a guaranteed bound on the rows
   strictly inside (a second, narrower sketch pass when that bound is large);
2. a **bracket** pass counts, per replicate, its rows below ``lo``, at ``lo``
   and at ``hi`` where the rows live, and brings the few rows strictly inside
   (values and global row numbers);
3. the client walks the inside rows in value order, drawing each row's count
   in the replicate from the stream, to the replicate's ranks: the exact order
   statistics, equal to the in-memory ones.  A replicate whose rank falls
   outside its bracket (probability about 1e-11 each) is redone with a wider
   bracket, so the result never depends on that probability.

The original data's order statistics come from the same pass (each row counted
once), and with them the leave-one-out values of the BCa acceleration in closed
form: leaving out a row of rank at most ``lo``, between ``lo`` and ``hi``, or
above ``hi`` gives one of three values, as in
:meth:`skboot._engine.BuiltinStatistic.jackknife`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine import BuiltinStatistic, make_statistic
from skboot._kernels.poisson_quantile import bracket_order_stats, lerp_rows
from skboot._run._dask_bracket import (
    BracketSums,
    RankBounds,
    bracket_partition,
    merge_brackets,
    sketch_partition,
)
from skboot._run._dask_checks import DaskRows
from skboot._run._dask_held import HeldStatistic
from skboot._run._dask_sums import tree_merge
from skboot._validation import value_error
from skboot.intervals import JackknifeMoments

__all__ = [
    "ORDER_STATISTICS",
    "DataParallelOrderStatistic",
    "order_statistic_run",
]

#: The order statistics a data-parallel run computes exactly.
ORDER_STATISTICS = ("median", "quantile")
#: standard deviations of a replicate's rank about the original rank covered by
#: the first bracket (a wider one is used for the rare replicate outside it)
Z = 7.0
#: sample values per partition and window of a sketch pass
SKETCH_SIZE = 1024
#: sketch passes at most before the bracket pass
MAX_SKETCHES = 4
#: a bracket may hold this many rows strictly inside without a narrower
#: sketch, or INSIDE_FACTOR times the ranks it must hold if more
MIN_INSIDE = 1 << 18
INSIDE_FACTOR = 8

NO_ROWS = (
    "The data of this result stay in a dask collection: the studentized and "
    "calibrated intervals would revisit every row. Use method 'percentile', "
    "'basic', 'normal', 'bc' or 'bca', or call .compute() on the collection "
    "and bootstrap the numpy array if it fits in memory."
)
NO_VALUES = (
    "The data of this result stay in a dask collection, so its n leave-one-out "
    "values are not brought to this process; confidence_interval(method='bca') "
    "and pvalue(method='bca') use their sums, computed from the original "
    "data's order statistics. Call .compute() on the collection and bootstrap "
    "the numpy array to get the values if they fit in memory."
)


@dataclass
class Group:
    """One (column, level) of the run and its bracket in the original ranks."""

    col: int
    q: float
    n: int
    widen: float = 1.0
    lo: float = 0.0
    hi: float = 0.0

    def rank_window(self) -> tuple[int, int]:
        centre = int(np.floor((self.n - 1) * self.q))
        spread = Z * np.sqrt(self.n * self.q * (1 - self.q)) + 64.0
        D = int(min(np.ceil(self.widen * spread), self.n))
        return max(0, centre - D), min(self.n - 1, centre + 1 + D)


@dataclass
class DataParallelOrderStatistic(HeldStatistic):
    """The median or quantiles of a dask collection: what a result keeps of a
    data-parallel run (the estimate, the BCa acceleration's sums; no rows)."""

    data_unavailable: ClassVar[str | None] = NO_ROWS
    no_values: ClassVar[str] = NO_VALUES
    q: np.ndarray = field(default_factory=lambda: np.empty(0))
    scalar_q: bool = True

    def vector_output(self, data_ndim: int) -> bool:
        if self.name == "quantile" and not self.scalar_q:
            return True
        return data_ndim == 2

    def keywords(self) -> dict[str, object]:
        return {"q": self.q} if self.name == "quantile" else {}


def _sketch(rows: DaskRows, windows: list[tuple[int, float, float]]) -> tuple:
    """One sketch pass: a RankBounds per window, and the non-finite count."""
    import dask

    part = dask.delayed(sketch_partition, pure=True)
    blocks = rows.array.to_delayed().ravel()
    got = dask.compute(*[part(b, tuple(windows), SKETCH_SIZE) for b in blocks])
    bounds = [
        RankBounds(a, b, [g[0][w] for g in got]) for w, (_, a, b) in enumerate(windows)
    ]
    return bounds, sum(g[1] for g in got)


class Brackets:
    """The sketches of each column (all rounds) and the brackets they give."""

    def __init__(self, rows: DaskRows, groups: list[Group], owner: str) -> None:
        self.rows = rows
        self.groups = groups
        d = 1 if rows.ndim == 1 else int(rows.array.shape[1])
        first, bad = _sketch(rows, [(j, -np.inf, np.inf) for j in range(d)])
        if bad:
            raise value_error(
                "data",
                owner,
                f"contains {bad} NaN or infinite value(s) (found while reducing "
                "the partitions); remove them (e.g. the collection's dropna()).",
            )
        self.rounds: list[list[RankBounds]] = [[rb] for rb in first]
        for _ in range(MAX_SKETCHES - 1):
            wide = [g for g in groups if self.place(g) > self._budget(g)]
            if not wide:
                break
            windows = sorted({(g.col, g.lo, g.hi) for g in wide})
            more, _ = _sketch(rows, list(windows))
            for (col, _, _), rb in zip(windows, more, strict=True):
                self.rounds[col].append(rb)
        for g in groups:
            self.place(g)

    @staticmethod
    def _budget(g: Group) -> int:
        r0, r1 = g.rank_window()
        return max(INSIDE_FACTOR * (r1 - r0 + 1), MIN_INSIDE)

    def place(self, g: Group) -> int:
        """Set ``g``'s bracket from every round's sketch of its column; return
        the bound on the number of rows strictly inside it."""
        r0, r1 = g.rank_window()
        rounds = self.rounds[g.col]
        lows = [v for v in (rb.lower(r0) for rb in rounds) if v is not None]
        highs = [v for v in (rb.upper(r1) for rb in rounds) if v is not None]
        g.lo, g.hi = max(lows), min(highs)  # lo <= the values of ranks r0..r1 <= hi
        if g.hi == g.lo:
            return 0
        hi_lt = min(rb.hi_lt(g.hi) for rb in rounds if rb.covers(g.hi))
        lo_le = max(rb.lo_le(g.lo) for rb in rounds if rb.covers(g.lo))
        return hi_lt - lo_le


def _bracket_pass(
    rows: DaskRows, groups: list[Group], seed: Any, gamma: Any, reps: np.ndarray
) -> BracketSums:
    import dask

    spec = (
        np.array([g.col for g in groups], dtype=np.int64),
        np.array([g.lo for g in groups]),
        np.array([g.hi for g in groups]),
    )
    part = dask.delayed(bracket_partition, pure=True)
    merge = dask.delayed(merge_brackets, pure=True)
    blocks = rows.array.to_delayed().ravel()
    parts = [
        part(blk, start, spec, seed, gamma, reps)
        for blk, start in zip(blocks, rows.starts, strict=True)
    ]
    (total,) = dask.compute(tree_merge(parts, merge))
    return total


def _ranks(size: np.ndarray, q: float, median: bool) -> tuple[np.ndarray, ...]:
    """The two ranks of the order statistics of samples of ``size`` (float,
    whole numbers) and the interpolation weight, as the in-memory kernel
    computes them."""
    mi = size.astype(np.int64)
    if median:
        return (mi - 1) // 2, mi // 2, np.zeros(size.shape)
    h = (size - 1.0) * q
    lo = np.floor(h).astype(np.int64)
    return lo, np.minimum(lo + 1, mi - 1), h - np.floor(h)


def _combine(a: np.ndarray, b: np.ndarray, t: np.ndarray, median: bool) -> np.ndarray:
    """The statistic from its two order statistics."""
    if median:
        return (a + b) / 2.0
    out = np.empty(a.shape)
    lerp_rows(a, b, t, out)
    return out


def _finish(
    total: BracketSums,
    pass_reps: np.ndarray,
    gi: int,
    g: Group,
    want: np.ndarray,
    targets: np.ndarray,
    stream: tuple[Any, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """The order statistics at ``targets`` of the replicates ``want`` (-1: the
    original rows) from a bracket pass over ``pass_reps``; and their status."""
    vals, rws = total.inside[gi]
    order = np.lexsort((rws, vals))
    pos = np.where(want >= 0, np.searchsorted(pass_reps, want), pass_reps.shape[0])
    c = total.counts[pos].astype(np.int64)
    out = np.empty(targets.shape)
    status = np.empty(want.shape[0], dtype=np.int64)
    bracket_order_stats(
        np.ascontiguousarray(vals[order]),
        np.ascontiguousarray(rws[order]),
        g.lo,
        g.hi,
        stream[0],
        stream[1],
        np.ascontiguousarray(want),
        np.ascontiguousarray(c[:, 3 * gi]),
        np.ascontiguousarray(c[:, 3 * gi + 1]),
        np.ascontiguousarray(c[:, 3 * gi + 2]),
        np.ascontiguousarray(targets, dtype=np.int64),
        out,
        status,
    )
    return out, status


def _original_ranks(n: int, q: float, median: bool) -> np.ndarray:
    """The ranks of the original data the estimate and the leave-one-out
    values read (ascending, unique)."""
    size = np.array([float(n), float(n - 1)])
    lo, hi, _ = _ranks(size, q, median)
    r = [lo[0], hi[0], lo[1], lo[1] + 1, hi[1], hi[1] + 1]
    return np.unique(np.minimum(np.array(r, dtype=np.int64), n - 1))


@dataclass
class OrderRun:
    """The state of one data-parallel order-statistic run."""

    groups: list[Group]
    median: bool
    size: np.ndarray  # (B,) replicate sizes
    low: np.ndarray  # (B, G) order statistic at the lower rank
    high: np.ndarray  # (B, G) ... at the upper rank
    original: list[dict[int, float]]  # per group: rank -> value of the data
    pending: dict[int, np.ndarray]  # group -> replicates still to do (-1: data)

    def absorb(
        self,
        total: BracketSums,
        pass_reps: np.ndarray,
        index: list[int],
        stream: tuple[Any, Any],
    ) -> None:
        """Read the order statistics of every pending replicate of the groups
        ``index`` (positions in the pass: their order) from a bracket pass;
        keep the ones outside their bracket pending."""
        for gi, g in enumerate(self.groups[i] for i in index):
            i = index[gi]
            want = self.pending.pop(i)
            failed = []
            reps = want[want >= 0]
            if reps.size:
                lo, hi, _ = _ranks(self.size[reps], g.q, self.median)
                got, st = _finish(
                    total, pass_reps, gi, g, reps, np.column_stack([lo, hi]), stream
                )
                ok = st == 0
                self.low[reps[ok], i] = got[ok, 0]
                self.high[reps[ok], i] = got[ok, 1]
                failed.append(reps[~ok])
            if (want < 0).any():
                ranks = _original_ranks(g.n, g.q, self.median)
                one = np.array([-1], dtype=np.int64)
                got, st = _finish(total, pass_reps, gi, g, one, ranks[None, :], stream)
                if st[0] == 0:
                    self.original[i] = dict(
                        zip(ranks.tolist(), got[0].tolist(), strict=True)
                    )
                else:
                    failed.append(one)
            if failed and sum(f.size for f in failed):
                self.pending[i] = np.concatenate(failed)


def _estimate(vals: dict[int, float], n: int, q: float, median: bool) -> float:
    """The statistic on the original data, as numpy computes it (the median of
    an odd count is its middle value, unaveraged)."""
    lo, hi, t = _ranks(np.array([float(n)]), q, median)
    a, b = vals[int(lo[0])], vals[int(hi[0])]
    if median and n % 2:
        return a
    return float(_combine(np.array([[a]]), np.array([[b]]), t[:, None], median)[0, 0])


def _loo_sums(vals: dict[int, float], n: int, q: float, median: bool) -> tuple:
    """The power sums (about their mean) of the n leave-one-out values, which
    take three values: leaving out a row of rank up to ``lo``, up to ``hi``,
    or above ``hi`` of the remaining ``n - 1`` rows' ranks."""
    lo_a, hi_a, t = _ranks(np.array([float(n - 1)]), q, median)
    lo, hi = int(lo_a[0]), int(hi_a[0])

    def v(r: int) -> float:
        return vals[min(r, n - 1)]

    a = np.array([v(lo + 1), v(lo), v(lo)])
    b = np.array([v(hi + 1), v(hi + 1), v(hi)])
    theta = _combine(a[None, :], b[None, :], np.full((1, 3), t[0]), median)[0]
    mult = np.array([lo + 1, hi - lo, n - 1 - hi], dtype=np.float64)
    used = mult > 0
    ref = float(np.sum(mult * theta) / n)
    e = theta - ref
    p = [float(np.sum(mult * e**r)) for r in (1, 2, 3)]
    constant = bool(np.all(theta[used] == theta[used][0]))
    return p[0], p[1], p[2], constant


def order_statistic_run(
    rows: DaskRows,
    name: str,
    statistic_kwargs: Any,
    plan: Any,
    stream: tuple[Any, Any],
    n_resamples: int,
    owner: str,
) -> tuple[DataParallelOrderStatistic, np.ndarray]:
    """The Poisson bootstrap of the median or quantiles of the rows of a dask
    collection: the statistic a result keeps and the (B, k) distribution,
    equal to the in-memory run's.  ``statistic_kwargs`` are checked first, by
    the in-memory checks (on two placeholder rows)."""
    d = 1 if rows.ndim == 1 else int(rows.array.shape[1])
    checked = make_statistic(
        name,
        (np.zeros((2, d)),),
        vectorized=None,
        statistic_kwargs=statistic_kwargs,
        plan=plan,
        owner=owner,
    )
    assert isinstance(checked, BuiltinStatistic)
    q, scalar_q = checked.q, checked.scalar_q
    median = name == "median"
    levels = np.array([0.5]) if median else np.asarray(q, dtype=np.float64)
    n, B = rows.n_samples, int(n_resamples)
    groups = [Group(col=c, q=float(p), n=n) for c in range(d) for p in levels]
    G = len(groups)
    brackets = Brackets(rows, groups, owner)
    reps = np.arange(B, dtype=np.int64)
    total = _bracket_pass(rows, groups, stream[0], stream[1], reps)
    size = total.sw[:B].copy()
    nonempty = reps[size > 0]
    with_data = np.concatenate([nonempty, [-1]]).astype(np.int64)
    state = OrderRun(
        groups,
        median,
        size,
        np.full((B, G), np.nan),
        np.full((B, G), np.nan),
        [{} for _ in groups],
        {i: with_data for i in range(G)},
    )
    state.absorb(total, reps, list(range(G)), stream)
    while state.pending:  # rare: a replicate outside its bracket
        index = sorted(state.pending)
        for i in index:
            groups[i].widen *= 4.0
            brackets.place(groups[i])
        want = np.unique(np.concatenate([state.pending[i] for i in index]))
        again = want[want >= 0]
        total = _bracket_pass(rows, [groups[i] for i in index], *stream, again)
        state.absorb(total, again, index, stream)
    values = np.empty((B, G))
    for i, g in enumerate(groups):
        _, _, t = _ranks(size, g.q, median)
        values[:, i] = _combine(
            state.low[:, i : i + 1], state.high[:, i : i + 1], t[:, None], median
        )[:, 0]
    stat = _statistic(name, levels, q, scalar_q, groups, state, rows)
    return stat, values


def _statistic(
    name: str,
    levels: np.ndarray,
    q: np.ndarray,
    scalar_q: bool,
    groups: list[Group],
    state: OrderRun,
    rows: DaskRows,
) -> DataParallelOrderStatistic:
    """The result's statistic: the estimate and the BCa sums of each group."""
    median = name == "median"
    n = rows.n_samples
    est = np.array(
        [_estimate(state.original[i], n, g.q, median) for i, g in enumerate(groups)]
    )
    sums = np.array(
        [_loo_sums(state.original[i], n, g.q, median) for i, g in enumerate(groups)]
    )
    with np.errstate(invalid="ignore", over="ignore"):
        moments = JackknifeMoments.from_power_sums(
            n, sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3].astype(bool)
        )
    shape = (0,) if rows.ndim == 1 else (0, len(groups) // levels.shape[0])
    return DataParallelOrderStatistic(
        name=name,
        k=len(groups),
        q=np.asarray(q, dtype=np.float64) if name == "quantile" else np.empty(0),
        scalar_q=scalar_q,
        arrays=(np.empty(shape),),
        cached_estimate=est,
        moments=moments,
    )
