"""Old vs new kernel, timed in one process: thread CPU time, interleaved rounds.

``python -m benchmarks.kernel_pairs [NAME ...]`` times each pair of kernels that
compute the same values (the plain loop and its software-pipelined or otherwise
reworked variant), alternating the two within every round so that a change of
machine load falls on both, and prints the medians of the per-call thread CPU
times (``time.thread_time``) and their ratio.  Pairs:

* ``sumsq``: ``iid_sumsq_1d`` vs ``iid_sumsq_1d_pipelined`` (variance, 1-D) at
  n = 10,000 (B = 2,000), 100,000 (B = 200) and 10**6 (B = 40), m = n;
* ``rows8``: ``iid_moments_tiled`` vs ``iid_moments8_pipelined`` (column means
  and variances of eight columns) at n = 10,000 (B = 500) and 100,000 (B = 50);
* ``pool``: stratified counts (``pool_counts_chunk``) drawn one bounded draw a
  row with the threshold recomputed per row (the former kernel, copied here) vs
  the block draw of ``pool_positions`` with the per-stratum thresholds;
* ``metric``: ``metric_ci(y, score, "roc_auc")`` stratified vs iid, n = 5,000,
  B = 1,000 (whole calls; the cost of the stratified draw over the iid one);
* ``var``: the VAR(2) residual bootstrap of 3 series (n = 1,000, B = 2,000,
  chunks of 21): the former kernel (eight scalar accumulators) vs the lane
  kernel, both writing the series that numpy then averages; and the former
  path vs the fused mean (``var_residual_sums``, no series written); and the
  lane kernel's series with numpy's ``std`` vs the fused ``std``;
* ``ar``: the AR(1) residual bootstrap (n = 1,000, burn-in 100, B = 2,000):
  the lane kernel's series (``ar_residual_chunk``, cache-sized chunks) with
  numpy's ``mean`` / ``std`` vs the fused reduction (``ar_residual_sums``);
* ``perm``: the mean-difference permutation kernel (``indep_sum_chunk``) vs its
  software-pipelined variant, n = 1,000 + 1,000 (B = 9,999) and 10,000 + 10,000
  (B = 999).

Each pair also checks that the two outputs are equal, bit for bit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from numba import njit

from skboot._random import NO_HAVE, bounded, lemire_threshold, replicate_counter

ROUNDS = 9


def _interleaved(
    fns: dict[str, Callable[[], Any]], rounds: int = ROUNDS
) -> dict[str, float]:
    for f in fns.values():
        f()  # compile / warm
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.thread_time()
            f()
            times[k].append(time.thread_time() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def _show(label: str, med: dict[str, float]) -> None:
    (a, ta), (b, tb) = med.items()
    print(
        f"  {label:28s} {a} {ta * 1e3:8.2f} ms  {b} {tb * 1e3:8.2f} ms  {ta / tb:5.2f}x"
    )


def pair_sumsq() -> None:
    from skboot._kernels.iid import iid_sumsq_1d
    from skboot._kernels.iid_pipelined import iid_sumsq_1d_pipelined
    from skboot._random import check_random_state

    seed, gamma = check_random_state(0).stream(0)
    for n, B in [(10_000, 2_000), (100_000, 200), (10**6, 40)]:
        x = np.random.default_rng(1).normal(size=n)
        outs = {k: (np.empty(B), np.empty(B)) for k in ("plain", "piped")}
        fns = {
            "plain": partial(iid_sumsq_1d, x, seed, gamma, 0, n, *outs["plain"]),
            "piped": partial(
                iid_sumsq_1d_pipelined, x, seed, gamma, 0, n, *outs["piped"]
            ),
        }
        med = _interleaved(fns)
        for p, q in zip(outs["plain"], outs["piped"], strict=True):
            assert np.array_equal(p, q)
        _show(f"var n={n:,} B={B:,}", med)


@njit(cache=False, nogil=True)
def _pool_counts_per_row(seed, gamma, b0, codes, pools, offsets, sizes, out):
    """The stratified counts as drawn before: one :func:`bounded` call per row,
    its stratum's rejection threshold recomputed every row."""  # pragma: no cover
    for k in range(out.shape[0]):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = np.uint64(0)
        row = out[k]
        row[:] = 0.0
        for i in range(codes.shape[0]):
            s = codes[i]
            un = np.uint64(sizes[s])
            v, ctr, have, lo = bounded(
                seed, gamma, ctr, have, lo, un, lemire_threshold(un)
            )
            row[pools[offsets[s] + np.int64(v)]] += 1.0


def pair_pool() -> None:
    from skboot._kernels.resample import pool_counts_chunk
    from skboot._random import check_random_state

    seed, gamma = check_random_state(0).stream(0)
    for n, S, B in [(5_000, 2, 1_000), (10_000, 5, 500), (100_000, 5, 50)]:
        labels = np.random.default_rng(2).integers(0, S, size=n)
        codes = labels.astype(np.int64)
        sizes = np.bincount(codes, minlength=S).astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        pools = np.argsort(codes, kind="stable").astype(np.int64)
        args = (seed, gamma, 0, codes, pools, offsets, sizes)
        outs = {k: np.empty((B, n)) for k in ("per-row", "table")}
        fns = {
            "per-row": partial(_pool_counts_per_row, *args, outs["per-row"]),
            "table": partial(pool_counts_chunk, *args, outs["table"]),
        }
        med = _interleaved(fns)
        assert np.array_equal(outs["per-row"], outs["table"])
        _show(f"counts n={n:,} S={S} B={B:,}", med)


def pair_metric() -> None:
    """Stratified vs iid ``metric_ci`` (roc_auc), whole calls: the ratio the
    stratified draw costs over the iid one."""
    import skboot

    n, B = 5_000, 1_000
    rng = np.random.default_rng(12345)
    y = (rng.random(n) < 0.3).astype(np.int64)
    score = 0.8 * y + rng.normal(size=n)
    fns = {
        name: partial(
            skboot.metric_ci,
            y,
            score,
            "roc_auc",
            n_resamples=B,
            random_state=0,
            stratify=name == "stratified",
            method="percentile",
        )
        for name in ("stratified", "iid")
    }
    _show(f"metric_ci roc_auc n={n:,} B={B:,}", _interleaved(fns, 7))


def pair_perm() -> None:
    from skboot._kernels.permutation_pipelined import indep_sum_chunk_pipelined
    from skboot._kernels.significance import indep_sum_chunk
    from skboot._random import PURPOSE, check_random_state

    seed, gamma = check_random_state(0).stream(PURPOSE["permutation"])
    rng = np.random.default_rng(16)
    for n_each, B in [(1_000, 9_999), (10_000, 999)]:
        pool = np.concatenate([rng.normal(size=n_each), rng.normal(size=n_each)])
        outs = {k: np.empty((B, 1)) for k in ("plain", "piped")}
        fns = {
            "plain": partial(
                indep_sum_chunk, seed, gamma, 0, pool, n_each, outs["plain"]
            ),
            "piped": partial(
                indep_sum_chunk_pipelined, seed, gamma, 0, pool, n_each, outs["piped"]
            ),
        }
        med = _interleaved(fns)
        assert np.array_equal(outs["plain"], outs["piped"])
        _show(f"mean_diff {n_each:,}+{n_each:,} B={B:,}", med)


def pair_rows8() -> None:
    from skboot._kernels.iid import iid_moments_tiled
    from skboot._kernels.iid_pipelined import iid_moments8_pipelined
    from skboot._random import check_random_state

    seed, gamma = check_random_state(0).stream(0)
    for n, B, want2 in [
        (10_000, 500, False),
        (10_000, 500, True),
        (100_000, 50, False),
    ]:
        X = np.random.default_rng(1).normal(size=(n, 8))
        outs = {k: (np.empty((B, 8)), np.empty((B, 8))) for k in ("tiled", "piped")}
        fns = {
            "tiled": partial(
                iid_moments_tiled, X, seed, gamma, 0, n, want2, *outs["tiled"]
            ),
            "piped": partial(
                iid_moments8_pipelined, X, seed, gamma, 0, n, want2, *outs["piped"]
            ),
        }
        med = _interleaved(fns)
        for p, q in zip(outs["tiled"], outs["piped"], strict=True):
            assert np.array_equal(p, q)
        what = "var" if want2 else "mean"
        _show(f"{what} n={n:,} x 8 B={B:,}", med)


def pair_var() -> None:
    from benchmarks._former_var import former_var_chunk
    from benchmarks.model_based import var2
    from skboot._kernels.model_var import (
        MEAN,
        STD,
        var_residual_chunk,
        var_residual_sums,
    )
    from skboot._random import PURPOSE
    from skboot.model_based import VARResidualBootstrap

    n, B, nb = 1_000, 2_000, 21
    vb = VARResidualBootstrap(B, order=2, burn_in=0, random_state=0).fit(var2(n))
    plan = vb.plan_
    seeds = np.array(
        [plan.key.stream(PURPOSE[k])[0] for k in ("indices", "block_starts", "model")],
        dtype=np.uint64,
    )
    gamma = plan.key.stream(PURPOSE["indices"])[1]
    rest = (plan.series, plan.var_intercept, plan.coef, plan.residuals)
    tail = (np.int64(0), np.bool_(False), np.int64(0))
    buf = np.empty((nb, 3, n))
    view = np.moveaxis(buf, -1, 1)  # the engine's buffer: time last in memory
    outs = {k: np.empty((B, 3)) for k in ("former", "fused", "series", "std")}

    def former(chunk: Callable[..., Any], *head: Any, stat: str = "mean") -> None:
        to = "former" if stat == "mean" else "series"
        for b0 in range(0, B, nb):
            c = min(nb, B - b0)
            chunk(*head, np.int64(b0), *rest, *tail, view[:c])
            outs[to][b0 : b0 + c] = getattr(view[:c], stat)(axis=1)

    def fused(what: int = MEAN) -> None:
        to = "fused" if what == MEAN else "std"
        for b0 in range(0, B, nb):
            c = min(nb, B - b0)
            out = outs[to][b0 : b0 + c]
            var_residual_sums(
                seeds, gamma, np.int64(b0), *rest, *tail, what, np.int64(0), out
            )

    s_i, s_s, s_m = seeds
    pairs = {
        "series + mean": {
            "former": partial(former, former_var_chunk, s_i, s_s, s_m, gamma),
            "lanes": partial(former, var_residual_chunk, seeds, gamma),
        },
        "mean, former vs fused": {
            "former": partial(former, former_var_chunk, s_i, s_s, s_m, gamma),
            "fused": fused,
        },
        "std, lane series + numpy vs fused": {
            "lanes": partial(former, var_residual_chunk, seeds, gamma, stat="std"),
            "fused": partial(fused, STD),
        },
    }
    for label, fns in pairs.items():
        med = _interleaved(fns)
        _show(f"{label} B={B}", med)
    assert np.array_equal(outs["former"], outs["fused"])
    assert np.array_equal(outs["series"], outs["std"])


def pair_ar() -> None:
    from benchmarks.model_based import ar1
    from skboot._kernels.model_based import ar_residual_chunk, ar_residual_sums
    from skboot._kernels.model_var import MEAN, STD
    from skboot.model_based import ResidualBootstrap

    n, B = 1_000, 2_000
    rb = ResidualBootstrap(B, order=1, burn_in=100, random_state=0).fit(ar1(n))
    seeds, gamma, *rest = rb.plan_._kernel_args
    nb = max(1, (1 << 20) // (8 * n))  # the engine's cache-sized chunk
    buf = np.empty((nb, n))
    outs = {k: np.empty((B, 1)) for k in ("mean", "fused mean", "std", "fused std")}

    def series(stat: str) -> None:
        for b0 in range(0, B, nb):
            c = min(nb, B - b0)
            ar_residual_chunk(seeds, gamma, np.int64(b0), *rest, buf[:c])
            outs[stat][b0 : b0 + c, 0] = getattr(buf[:c], stat)(axis=1)

    def fused(what: int) -> None:
        to = "fused mean" if what == MEAN else "fused std"
        for b0 in range(0, B, nb):
            c = min(nb, B - b0)
            out = outs[to][b0 : b0 + c]
            ar_residual_sums(seeds, gamma, np.int64(b0), *rest, what, np.int64(0), out)

    for stat, what in (("mean", MEAN), ("std", STD)):
        fns = {"series": partial(series, stat), "fused": partial(fused, what)}
        med = _interleaved(fns)
        _show(f"AR(1) {stat} n={n:,} burn_in=100 B={B}", med)
        assert np.array_equal(outs[stat], outs[f"fused {stat}"])


PAIRS = {
    "sumsq": pair_sumsq,
    "rows8": pair_rows8,
    "pool": pair_pool,
    "metric": pair_metric,
    "perm": pair_perm,
    "var": pair_var,
    "ar": pair_ar,
}


def main(argv: list[str]) -> None:
    load = os.getloadavg()
    print(
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; medians of {ROUNDS}"
    )
    for name in argv or list(PAIRS):
        print(name)
        PAIRS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
