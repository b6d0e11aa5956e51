"""Coverage study: how often nominal 95% intervals contain the true value.

``python -m benchmarks.coverage [--quick | --full] [--trials T] [--n-resamples B]
[--jobs J] [--seed S] [--json PATH]`` (also ``python benchmarks/coverage.py``).

Algorithm:

1. For every configuration (distribution, n, statistic) -- normal, exponential(1)
   and lognormal(0, 1) data; n = 20, 50, 200; the mean and the median -- draw
   ``T`` data sets. Data set ``t`` of (distribution, n) is a pure function of
   ``(seed, distribution, n, t)``, so the mean and the median, and every library,
   see the same data.
2. On each data set compute a two-sided 95% interval with every method of every
   library that has it: skboot (percentile, basic, normal, bc, bca, studentized),
   ``scipy.stats.bootstrap`` (percentile, basic, BCa) and arch's
   ``IIDBootstrap.conf_int`` (percentile, basic, norm, bc, bca, studentized). Each
   library draws its own ``B`` replicates once per data set and reads all its
   methods from them (scipy through ``bootstrap_result=``, arch through
   ``reuse=True``); studentized intervals need a standard error per replicate:
   ``s / sqrt(n)`` for the mean (skboot's closed form) and
   :func:`median_standard_error` for the median, the same function for both
   libraries. A control column computes, on the same data sets, an interval of
   known coverage: Student's t for the mean (exactly 95% for normal data) and the
   order-statistic interval for the median (exact for any continuous data), so a
   row whose data sets happen to be easy or hard shows it.
3. Coverage is the fraction of the ``T`` intervals that contain the true value
   (an undefined interval, NaN endpoints or an error, counts as a miss and is
   reported), with Monte Carlo standard error ``sqrt(p (1 - p) / T)``; the mean
   interval length is reported beside it.
4. skboot is compared with each peer on the methods they share, trial by trial:
   the same data sets give paired outcomes, so the difference of coverages has
   the McNemar standard error ``sqrt(b + c - (b - c)**2 / T) / T`` with ``b``
   (``c``) the trials only skboot (only the peer) covered; ``|z| > 3`` is flagged.

Cost: ``18 * T`` data sets, each bootstrapped three times with ``B`` replicates
(arch's per-replicate Python loop dominates, about 30 ms per data set at
``B = 999``); memory O(T * 18 * 16) for the endpoints plus O(B * n) per worker.
``--full`` (T = 1000, B = 999) costs about 14 CPU-minutes: 7 minutes on two idle
cores, 11-13 minutes measured on a shared two-core machine; ``--quick`` (T = 200,
B = 499) about a minute.

The report is markdown on stdout; progress goes to stderr; ``--json`` writes every
cell, every comparison and the machine facts. This module measures, it does not
assert (``tests/test_coverage.py`` does).

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*,
   ch. 12-14 and 22. Chapman & Hall/CRC.
.. [2] Maritz, J. S. and Jarrett, R. G. (1978). A note on estimating the variance
   of the sample median. *JASA* 73(361), 194-196.
.. [3] Harrell, F. E. and Davis, C. E. (1982). A new distribution-free quantile
   estimator. *Biometrika* 69(3), 635-640.
.. [4] McNemar, Q. (1947). Note on the sampling error of the difference between
   correlated proportions or percentages. *Psychometrika* 12(2), 153-157.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import multiprocessing
import os
import platform
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from typing import Any

import numpy as np

if __name__ == "__main__" and not __package__:
    # Run as a file, this file's directory is sys.path[0], where it would shadow the
    # ``coverage`` package that numba imports; the repository root goes there instead.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = [
    "COLUMNS",
    "CONFIGS",
    "DISTRIBUTIONS",
    "Comparison",
    "Config",
    "Simulation",
    "main",
    "median_standard_error",
    "simulate",
]

LEVEL = 0.95
QUICK = {"trials": 200, "n_resamples": 499}
FULL = {"trials": 1000, "n_resamples": 999}
DEFAULT_SEED = 20240909
TASK_TRIALS = 25  # trials per multiprocessing task

#: distribution -> (true mean, true median)
DISTRIBUTIONS: dict[str, tuple[float, float]] = {
    "normal": (0.0, 0.0),
    "exponential": (1.0, math.log(2.0)),
    "lognormal": (math.exp(0.5), 1.0),
}
SIZES = (20, 50, 200)
STATISTICS = ("mean", "median")
LIBRARIES = ("skboot", "scipy", "arch", "reference")
METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")
#: skboot method name -> the peer's spelling, for the methods the peer has
PEER_METHODS: dict[str, dict[str, str]] = {
    "skboot": {m: m for m in METHODS},
    "scipy": {"percentile": "percentile", "basic": "basic", "bca": "BCa"},
    "arch": {
        "percentile": "percentile",
        "basic": "basic",
        "normal": "norm",
        "bc": "bc",
        "bca": "bca",
        "studentized": "studentized",
    },
    "reference": {},
}
#: (library, method) columns, grouped by method so shared methods sit together, then
#: the control: an interval of known coverage computed on the same data sets
COLUMNS: tuple[tuple[str, str], ...] = (
    *((lib, m) for m in METHODS for lib in LIBRARIES if m in PEER_METHODS[lib]),
    ("reference", "exact"),
)


@dataclass(frozen=True)
class Config:
    """One row of the study: data distribution, sample size, statistic."""

    distribution: str
    n: int
    statistic: str

    @property
    def truth(self) -> float:
        mean, median = DISTRIBUTIONS[self.distribution]
        return mean if self.statistic == "mean" else median

    @property
    def label(self) -> str:
        return f"{self.distribution} | {self.n} | {self.statistic}"


CONFIGS: tuple[Config, ...] = tuple(
    Config(d, n, s) for d in DISTRIBUTIONS for n in SIZES for s in STATISTICS
)


# ---------------------------------------------------------------------------
# data and the standard error of the median
# ---------------------------------------------------------------------------
def draw_data(distribution: str, n: int, trial: int, seed: int) -> np.ndarray:
    """Data set ``trial`` of (distribution, n): a pure function of its arguments."""
    d = list(DISTRIBUTIONS).index(distribution)
    rng = np.random.default_rng([seed, d, n, trial])
    if distribution == "normal":
        return rng.normal(size=n)
    if distribution == "exponential":
        return rng.exponential(size=n)
    return rng.lognormal(size=n)


def _stream(seed: int, config: Config, trial: int, library: str):
    """The bootstrap stream of one library on one data set and statistic."""
    key = [
        seed,
        list(DISTRIBUTIONS).index(config.distribution),
        config.n,
        trial,
        STATISTICS.index(config.statistic),
        LIBRARIES.index(library),
    ]
    return np.random.SeedSequence(key)


@lru_cache(maxsize=16)
def _mj_weights(n: int) -> np.ndarray:
    from scipy.special import betainc

    a = (n + 1) / 2.0
    return np.diff(betainc(a, a, np.arange(n + 1) / n))


def median_standard_error(x: np.ndarray) -> float:
    """Maritz-Jarrett standard error of the sample median, no resampling.

    With ``x_(1) <= ... <= x_(n)`` and ``W_i = I_{i/n}(a, a) - I_{(i-1)/n}(a, a)``,
    ``a = (n + 1) / 2`` (the Harrell-Davis weights of the median),
    ``se**2 = sum W_i x_(i)**2 - (sum W_i x_(i))**2`` (Maritz & Jarrett 1978). It
    approximates the bootstrap standard error of the median (it is the standard
    deviation of an order statistic with a Beta(a, a) position) at O(n log n), so
    a studentized interval needs no nested bootstrap; every weight is positive, so
    it is zero only for constant data.
    """
    x = np.asarray(x, dtype=float)
    w = _mj_weights(x.shape[0])
    xs = np.sort(x)
    c1 = float(w @ xs)
    c2 = float(w @ (xs * xs))
    return math.sqrt(max(c2 - c1 * c1, 0.0))


class IntervalFailed(RuntimeWarning):
    """A peer raised instead of returning an interval (counted, endpoints NaN)."""


def _mean(x: np.ndarray, axis: int = -1) -> Any:
    return np.mean(x, axis=axis)


def _median(x: np.ndarray, axis: int = -1) -> Any:
    return np.median(x, axis=axis)


def _mean_se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(x.shape[0]))


def _arch_se_mean(params: Any, x: np.ndarray) -> float:
    return _mean_se(x)


def _arch_se_median(params: Any, x: np.ndarray) -> float:
    return median_standard_error(x)


# ---------------------------------------------------------------------------
# one data set through one library
# ---------------------------------------------------------------------------
def _skboot_intervals(
    x: np.ndarray, config: Config, B: int, ss: Any, methods: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    import skboot

    res = skboot.bootstrap(x, config.statistic, n_resamples=B, random_state=ss)
    out = {}
    for m in methods:
        kw: dict[str, Any] = {}
        if m == "studentized" and config.statistic == "median":
            kw["standard_error"] = median_standard_error
        ci = res.confidence_interval(LEVEL, m, **kw)
        out[m] = (float(ci.low), float(ci.high))
    return out


def _scipy_intervals(
    x: np.ndarray, config: Config, B: int, ss: Any, methods: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    from scipy import stats

    func = _mean if config.statistic == "mean" else _median
    out = {}
    first = None
    for m in methods:
        kw: dict[str, Any] = {
            "vectorized": True,
            "confidence_level": LEVEL,
            "method": PEER_METHODS["scipy"][m],
        }
        if first is None:
            first = stats.bootstrap(
                (x,), func, n_resamples=B, rng=np.random.default_rng(ss), **kw
            )
            res = first
        else:
            res = stats.bootstrap(
                (x,), func, n_resamples=0, bootstrap_result=first, **kw
            )
        ci = res.confidence_interval
        out[m] = (float(ci.low), float(ci.high))
    return out


def _arch_intervals(
    x: np.ndarray, config: Config, B: int, ss: Any, methods: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    from arch.bootstrap import IIDBootstrap

    func = _mean if config.statistic == "mean" else _median
    se_func = _arch_se_mean if config.statistic == "mean" else _arch_se_median
    bs = IIDBootstrap(x, seed=np.random.default_rng(ss))
    out = {}
    # One set of replicates for every method: the studentized run (if asked) draws
    # them, evaluating func and std_err_func on each; the rest reuse them (arch's
    # reuse needs the same func object and reps, and is ignored for studentized).
    ordered = sorted(methods, key=lambda m: m != "studentized")
    for i, m in enumerate(ordered):
        kw: dict[str, Any] = {"method": PEER_METHODS["arch"][m], "size": LEVEL}
        if m == "studentized":
            kw["std_err_func"] = se_func
        if i > 0:
            kw["reuse"] = True
        try:
            ci = bs.conf_int(func, B, **kw)
            out[m] = (float(ci[0, 0]), float(ci[1, 0]))
        except Exception as exc:  # arch raises RuntimeError when z0 is infinite
            out[m] = (math.nan, math.nan)
            warnings.warn(f"{m} {type(exc).__name__}", IntervalFailed, stacklevel=1)
    return out


def order_statistic_rank(n: int) -> tuple[int, float]:
    """Rank ``r`` of the distribution-free interval ``(x_(r), x_(n + 1 - r))`` for the
    median and its exact coverage ``P(r <= K <= n - r)``, ``K ~ Binomial(n, 1/2)``:
    the largest ``r`` whose coverage is at least 95%."""
    from scipy import stats

    cover = [
        (r, float(stats.binom.cdf(n - r, n, 0.5) - stats.binom.cdf(r - 1, n, 0.5)))
        for r in range(1, n // 2 + 1)
    ]
    return max((r, c) for r, c in cover if c >= LEVEL)


def _reference_intervals(
    x: np.ndarray, config: Config, B: int, ss: Any, methods: tuple[str, ...]
) -> dict[str, tuple[float, float]]:
    """The control column: the Student t interval for the mean (coverage exactly
    95% for normal data) and the order-statistic interval for the median (exact
    coverage :func:`order_statistic_rank` for any continuous distribution)."""
    from scipy import stats

    n = x.shape[0]
    if config.statistic == "mean":
        half = stats.t.ppf(0.5 + LEVEL / 2, n - 1) * _mean_se(x)
        return {"exact": (float(x.mean() - half), float(x.mean() + half))}
    rank, _ = order_statistic_rank(n)
    xs = np.sort(x)
    return {"exact": (float(xs[rank - 1]), float(xs[n - rank]))}


RUNNERS = {
    "skboot": _skboot_intervals,
    "scipy": _scipy_intervals,
    "arch": _arch_intervals,
    "reference": _reference_intervals,
}


@dataclass(frozen=True)
class _Task:
    config_index: int
    config: Config
    start: int
    stop: int
    n_resamples: int
    seed: int
    columns: tuple[tuple[str, str], ...]


def _run_task(task: _Task) -> tuple[int, int, np.ndarray, dict[str, int]]:
    """Endpoints (trials, columns, 2) for trials [start, stop) of one config."""
    cols = task.columns
    by_lib: dict[str, tuple[str, ...]] = {}
    for lib, m in cols:
        by_lib.setdefault(lib, ())
        by_lib[lib] += (m,)
    ends = np.full((task.stop - task.start, len(cols), 2), np.nan)
    counts: Counter[str] = Counter()
    cfg = task.config
    for i, trial in enumerate(range(task.start, task.stop)):
        x = draw_data(cfg.distribution, cfg.n, trial, task.seed)
        for lib, methods in by_lib.items():
            ss = _stream(task.seed, cfg, trial, lib)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    got = RUNNERS[lib](x, cfg, task.n_resamples, ss, methods)
                except Exception as exc:
                    got = {}
                    what = f"{type(exc).__name__}: {str(exc)[:70]}"
                    counts[f"{lib}: {what} (all methods)"] += 1
            for w in caught:
                what = str(w.message).split(":")[0][:70]
                counts[f"{lib}: {w.category.__name__}: {what}"] += 1
            for m, (lo, hi) in got.items():
                ends[i, cols.index((lib, m))] = (lo, hi)
    return task.config_index, task.start, ends, dict(counts)


# ---------------------------------------------------------------------------
# the simulation and its summaries
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    """skboot against one peer, one method, one configuration (paired trials)."""

    config: Config
    method: str
    peer: str
    difference: float  # coverage(skboot) - coverage(peer)
    only_skboot: int  # b: trials covered by skboot only
    only_peer: int  # c: trials covered by the peer only
    paired_se: float
    unpaired_se: float

    @property
    def z(self) -> float:
        """Paired (McNemar) z; 0 when the two never disagree."""
        return self.difference / self.paired_se if self.paired_se > 0 else 0.0

    @property
    def z_unpaired(self) -> float:
        return self.difference / self.unpaired_se if self.unpaired_se > 0 else 0.0


@dataclass(frozen=True)
class Simulation:
    """Endpoints of every interval of a coverage run, and what it was run with.

    ``endpoints`` has shape ``(len(configs), trials, len(columns), 2)``.
    """

    configs: tuple[Config, ...]
    columns: tuple[tuple[str, str], ...]
    trials: int
    n_resamples: int
    seed: int
    endpoints: np.ndarray
    warnings: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def covered(self) -> np.ndarray:
        """Boolean (configs, trials, columns): the interval contains the truth."""
        truth = np.array([c.truth for c in self.configs])[:, None, None]
        lo, hi = self.endpoints[..., 0], self.endpoints[..., 1]
        with np.errstate(invalid="ignore"):
            return (lo <= truth) & (truth <= hi)  # NaN compares False: a miss

    def undefined(self) -> np.ndarray:
        """Count (configs, columns) of intervals with a NaN endpoint."""
        return np.isnan(self.endpoints).any(axis=-1).sum(axis=1)

    def coverage(self) -> tuple[np.ndarray, np.ndarray]:
        """Coverage and its Monte Carlo standard error, each (configs, columns)."""
        p = self.covered().mean(axis=1)
        return p, np.sqrt(p * (1 - p) / self.trials)

    def mean_length(self) -> np.ndarray:
        """Mean length of the defined intervals, (configs, columns)."""
        length = self.endpoints[..., 1] - self.endpoints[..., 0]
        defined = np.isfinite(length)
        total = np.where(defined, length, 0.0).sum(axis=1)
        count = defined.sum(axis=1)
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    def comparisons(self) -> list[Comparison]:
        """skboot against each peer on every shared method and configuration."""
        cov = self.covered()
        p, se = self.coverage()
        out = []
        for ci, cfg in enumerate(self.configs):
            for lib, m in self.columns:
                if lib == "skboot" or ("skboot", m) not in self.columns:
                    continue
                a = self.columns.index(("skboot", m))
                j = self.columns.index((lib, m))
                b = int((cov[ci, :, a] & ~cov[ci, :, j]).sum())
                c = int((~cov[ci, :, a] & cov[ci, :, j]).sum())
                T = self.trials
                paired = math.sqrt(max(b + c - (b - c) ** 2 / T, 0.0)) / T
                out.append(
                    Comparison(
                        cfg,
                        m,
                        lib,
                        float(p[ci, a] - p[ci, j]),
                        b,
                        c,
                        paired,
                        float(math.hypot(se[ci, a], se[ci, j])),
                    )
                )
        return out


def simulate(
    configs: tuple[Config, ...] = CONFIGS,
    *,
    trials: int,
    n_resamples: int,
    seed: int = DEFAULT_SEED,
    columns: tuple[tuple[str, str], ...] = COLUMNS,
    jobs: int = 1,
    progress: bool = False,
) -> Simulation:
    """Run the coverage study; see the module docstring for the algorithm.

    Parameters
    ----------
    configs : tuple of Config, default=CONFIGS
    trials : int
        Data sets per configuration.
    n_resamples : int
        Bootstrap replicates per data set and library.
    seed : int, default=DEFAULT_SEED
        Root of the data and bootstrap streams; results are a pure function of
        it (and of the library versions), whatever ``jobs`` is.
    columns : tuple of (library, method), default=COLUMNS
    jobs : int, default=1
        Worker processes.
    progress : bool, default=False
        Report progress on stderr.

    Returns
    -------
    Simulation
    """
    tasks = [
        _Task(ci, cfg, s, min(s + TASK_TRIALS, trials), n_resamples, seed, columns)
        for ci, cfg in enumerate(configs)
        for s in range(0, trials, TASK_TRIALS)
    ]
    ends = np.full((len(configs), trials, len(columns), 2), np.nan)
    counts: Counter[str] = Counter()
    t0 = time.perf_counter()

    def collect(result: tuple[int, int, np.ndarray, dict[str, int]], done: int) -> None:
        ci, start, block, cnt = result
        ends[ci, start : start + block.shape[0]] = block
        counts.update(cnt)
        if progress:
            el = time.perf_counter() - t0
            eta = el / done * (len(tasks) - done)
            sys.stderr.write(
                f"\r  {done}/{len(tasks)} tasks, {el:5.0f} s elapsed, ~{eta:4.0f} s left"
            )
            sys.stderr.flush()

    if jobs <= 1:
        for k, task in enumerate(tasks, 1):
            collect(_run_task(task), k)
    else:
        with multiprocessing.get_context().Pool(jobs) as pool:
            for k, result in enumerate(pool.imap_unordered(_run_task, tasks), 1):
                collect(result, k)
    if progress:
        sys.stderr.write("\n")
    return Simulation(
        tuple(configs),
        tuple(columns),
        trials,
        n_resamples,
        seed,
        ends,
        dict(sorted(counts.items())),
        time.perf_counter() - t0,
    )


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------
def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("skboot", "numpy", "scipy", "arch", "numba"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _load() -> str:
    try:
        return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        return "n/a"


def _header(cols: tuple[tuple[str, str], ...]) -> list[str]:
    names = ["distribution", "n", "statistic"] + [f"{m} {lib}" for lib, m in cols]
    return ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]


def _row(cfg: Config, cells: list[str]) -> str:
    return (
        "| " + " | ".join([cfg.distribution, str(cfg.n), cfg.statistic, *cells]) + " |"
    )


def coverage_table(sim: Simulation) -> str:
    """Markdown: coverage ± Monte Carlo standard error, one row per config."""
    p, se = sim.coverage()
    undef = sim.undefined()
    lines = _header(sim.columns)
    for ci, cfg in enumerate(sim.configs):
        cells = []
        for j in range(len(sim.columns)):
            cell = f"{p[ci, j]:.3f} ± {se[ci, j]:.3f}"
            if undef[ci, j]:
                cell += f" ({undef[ci, j]} undef.)"
            cells.append(cell)
        lines.append(_row(cfg, cells))
    return "\n".join(lines)


def length_table(sim: Simulation) -> str:
    """Markdown: mean interval length, one row per config."""
    length = sim.mean_length()
    lines = _header(sim.columns)
    for ci, cfg in enumerate(sim.configs):
        cells = [f"{v:.3g}" for v in length[ci]]
        lines.append(_row(cfg, cells))
    return "\n".join(lines)


def comparison_table(sim: Simulation, flag: float = 3.0) -> str:
    """Markdown: skboot minus peer coverage, with the paired z, per config."""
    comps = sim.comparisons()
    pairs = list(dict.fromkeys((c.method, c.peer) for c in comps))
    names = ["distribution", "n", "statistic"] + [f"{m} vs {peer}" for m, peer in pairs]
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    by = {(c.config, c.method, c.peer): c for c in comps}
    for cfg in sim.configs:
        cells = []
        for m, peer in pairs:
            c = by[(cfg, m, peer)]
            mark = " **!**" if abs(c.z) > flag else ""
            cells.append(f"{c.difference:+.3f} (z {c.z:+.1f}){mark}")
        lines.append(_row(cfg, cells))
    return "\n".join(lines)


def comparison_summary(sim: Simulation, flag: float = 3.0) -> str:
    comps = sim.comparisons()
    if not comps:
        return "No shared methods were run."
    lines = []
    pairs = list(dict.fromkeys((c.method, c.peer) for c in comps))
    for m, peer in pairs:
        cs = [c for c in comps if (c.method, c.peer) == (m, peer)]
        worst = max(cs, key=lambda c: abs(c.z))
        bad = [c for c in cs if abs(c.z) > flag]
        verdict = (
            "within Monte Carlo error"
            if not bad
            else f"{len(bad)} row(s) with |z| > {flag:g}: "
            + ", ".join(
                f"{c.config.label} ({c.difference:+.3f}, z {c.z:+.1f})" for c in bad
            )
        )
        lines.append(
            f"- **{m}, skboot vs {peer}**: {verdict}; largest |z| {abs(worst.z):.1f} "
            f"({worst.config.label}); mean difference "
            f"{np.mean([c.difference for c in cs]):+.4f}; disagreeing trials "
            f"{sum(c.only_skboot + c.only_peer for c in cs)} of "
            f"{sim.trials * len(cs)}."
        )
    n_bad = sum(abs(c.z) > flag for c in comps)
    lines.append(
        f"- {n_bad} of {len(comps)} paired comparisons have |z| > {flag:g} "
        f"(about {len(comps) * 0.0027:.1f} expected by chance if all agreed)."
    )
    return "\n".join(lines)


def report(sim: Simulation, command: str, facts: dict[str, Any]) -> str:
    T, B = sim.trials, sim.n_resamples
    se95 = math.sqrt(LEVEL * (1 - LEVEL) / T)
    parts = [
        "# Coverage of nominal 95% two-sided bootstrap intervals",
        "",
        f"- command: `{command}`",
        f"- trials T = {T} per row, B = {B} replicates, seed {sim.seed}; Monte "
        f"Carlo SE at 0.95 is {se95:.4f}",
        f"- date {facts['date']}, {facts['cpus']} CPUs, {facts['jobs']} worker "
        f"process(es), load average {facts['load_start']} (start) / "
        f"{facts['load_end']} (end), {sim.seconds:.0f} s",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in facts["versions"].items()),
        "- studentized standard errors: mean `s / sqrt(n)`; median Maritz-Jarrett "
        "(`benchmarks.coverage.median_standard_error`), same function for skboot "
        "and arch",
        "- control column `exact reference`, same data sets: Student t interval for "
        "the mean (coverage exactly 0.95 for normal data only); order-statistic "
        "interval for the median, exact coverage for any continuous distribution "
        + ", ".join(
            f"{order_statistic_rank(n)[1]:.3f} (n = {n})"
            for n in sorted({c.n for c in sim.configs})
        )
        + "; where it strays from that, the row's data sets are lucky or unlucky",
        "",
        "## Coverage (± Monte Carlo standard error)",
        "",
        coverage_table(sim),
        "",
        "## Mean interval length",
        "",
        length_table(sim),
        "",
        "## skboot minus peer, paired over the same data sets",
        "",
        "Cell: coverage difference (McNemar z); **!** marks |z| > 3.",
        "",
        comparison_table(sim),
        "",
        comparison_summary(sim),
    ]
    if sim.warnings:
        parts += ["", "## Warnings and errors (count of data sets)", ""]
        parts += [f"- {k}: {v}" for k, v in sim.warnings.items()]
    return "\n".join(parts) + "\n"


def to_json(sim: Simulation, command: str, facts: dict[str, Any]) -> dict[str, Any]:
    p, se = sim.coverage()
    hits = sim.covered().sum(axis=1)
    undef = sim.undefined()
    length = sim.mean_length()
    cells = [
        {
            "distribution": cfg.distribution,
            "n": cfg.n,
            "statistic": cfg.statistic,
            "truth": cfg.truth,
            "library": lib,
            "method": m,
            "covered": int(hits[ci, j]),
            "coverage": float(p[ci, j]),
            "mc_se": float(se[ci, j]),
            "undefined": int(undef[ci, j]),
            "mean_length": None if np.isnan(length[ci, j]) else float(length[ci, j]),
        }
        for ci, cfg in enumerate(sim.configs)
        for j, (lib, m) in enumerate(sim.columns)
    ]
    comps = [
        {
            "distribution": c.config.distribution,
            "n": c.config.n,
            "statistic": c.config.statistic,
            "method": c.method,
            "peer": c.peer,
            "difference": c.difference,
            "only_skboot": c.only_skboot,
            "only_peer": c.only_peer,
            "paired_se": c.paired_se,
            "z": c.z,
            "z_unpaired": c.z_unpaired,
        }
        for c in sim.comparisons()
    ]
    return {
        "command": command,
        "trials": sim.trials,
        "n_resamples": sim.n_resamples,
        "seed": sim.seed,
        "level": LEVEL,
        "seconds": sim.seconds,
        "facts": facts,
        "warnings": sim.warnings,
        "cells": cells,
        "comparisons": comps,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.coverage",
        description="Coverage of nominal 95%% bootstrap intervals: skboot, scipy, arch.",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        action="store_true",
        help=f"T={QUICK['trials']}, B={QUICK['n_resamples']} (about a minute)",
    )
    mode.add_argument(
        "--full",
        action="store_true",
        help=f"T={FULL['trials']}, B={FULL['n_resamples']} (the default)",
    )
    parser.add_argument("--trials", type=int, help="data sets per row (overrides mode)")
    parser.add_argument("--n-resamples", type=int, help="B (overrides mode)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--json", metavar="PATH", help="write every cell as JSON")
    args = parser.parse_args(argv)
    base = QUICK if args.quick else FULL
    trials = args.trials if args.trials is not None else base["trials"]
    B = args.n_resamples if args.n_resamples is not None else base["n_resamples"]
    for name, value, low in (
        ("trials", trials, 2),
        ("n-resamples", B, 10),
        ("jobs", args.jobs, 1),
    ):
        if value < low:
            parser.error(f"--{name} must be an int >= {low}. Got {value} instead.")
    command = "python -m benchmarks.coverage " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    facts: dict[str, Any] = {
        "date": _dt.datetime.now().isoformat(timespec="minutes"),
        "cpus": os.cpu_count(),
        "jobs": args.jobs,
        "machine": platform.platform(),
        "load_start": _load(),
        "versions": _versions(),
    }
    sys.stderr.write(
        f"coverage: {len(CONFIGS)} rows x {trials} trials, B={B}, {args.jobs} job(s)\n"
    )
    sim = simulate(
        trials=trials, n_resamples=B, seed=args.seed, jobs=args.jobs, progress=True
    )
    facts["load_end"] = _load()
    sys.stdout.write(report(sim, command.strip(), facts))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(to_json(sim, command.strip(), facts), fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
