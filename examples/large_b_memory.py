"""
A large-B bootstrap in flat memory
==================================

skboot never materializes the ``B x n`` matrix of resampled data (or of
indices).  Replicate ``b``'s random stream is derived from (seed, ``b``), so
replicates are generated chunk by cache-sized chunk, reduced to the statistic
and discarded.  The working memory is O(chunk x n), whatever ``B``; only the
distribution itself (``B`` floats) grows with ``B``.

The script bootstraps statistics of ``n = 10,000`` observations with ``B`` up
to 200,000 (20,000 with ``--fast``) and, for each run, prints

* the peak of memory allocated during the call, traced by ``tracemalloc``
  (numpy buffers, the distribution, Python objects), and
* the growth of the process's peak resident set size (``ru_maxrss``) since
  the start of the measured runs, i.e. after the numba kernels were compiled
  and loaded,

next to the ``B * n * 8`` bytes that a ``B x n`` float64 array of resampled
data would take (what ``scipy.stats.bootstrap`` allocates with its default
``batch=None``); that array is never allocated here.  Statistics: the fused
``"mean"`` (no index array at all), ``"median"`` (per-replicate counts), the
stationary block bootstrap's mean, and a vectorized Python callable (chunks of
gathered rows).

Run ``python examples/large_b_memory.py`` (add ``--fast`` or set
``SKBOOT_EXAMPLE_FAST=1`` for 10x smaller B).  Linux or macOS (uses the
``resource`` module).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc

import numpy as np

from skboot import StationaryBootstrap, bootstrap


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux: kilobytes


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:.1f} MB"


def vectorized_mean(a, axis):
    """A plain numpy statistic, called once per chunk of replicates."""
    return a.mean(axis=axis)


def main(fast: bool = False) -> None:
    n = 10_000
    b_max = 20_000 if fast else 200_000
    b_values = [b_max // 8, b_max // 4, b_max // 2, b_max]
    x = np.random.default_rng(0).lognormal(size=n)
    runs = {
        '"mean"': dict(statistic="mean"),
        '"median"': dict(statistic="median"),
        '"mean", stationary': dict(
            statistic="mean",
            resampler=StationaryBootstrap(block_length=20.0),
        ),
        "callable (axis=)": dict(statistic=vectorized_mean),
    }

    # Compile / load every code path once, so that the measured runs see the
    # steady state (the same chunk buffers are allocated on every call).
    for kw in runs.values():
        bootstrap(x, n_resamples=1_000, random_state=0, **kw)
    base_rss = peak_rss_bytes()

    print(f"n = {n:,} observations, B up to {b_max:,}")
    print(f"peak RSS after warm-up: {mb(base_rss)} (Python, numpy, numba, skboot)\n")
    print(
        f"  {'statistic':20} {'B':>8} {'time':>7} {'traced peak':>12} "
        f"{'RSS growth':>11} {'B x n x 8 bytes':>16}"
    )
    for name, kw in runs.items():
        for B in b_values:
            tracemalloc.start()
            t0 = time.perf_counter()
            res = bootstrap(x, n_resamples=B, random_state=0, **kw)
            ci = res.confidence_interval(method="percentile")
            elapsed = time.perf_counter() - t0
            traced = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert np.isfinite(ci.low) and np.isfinite(ci.high)
            growth = peak_rss_bytes() - base_rss
            print(
                f"  {name:20} {B:8,} {elapsed:6.2f}s {mb(traced):>12} "
                f"{mb(growth):>11} {B * n * 8 / 2**30:13.2f} GB"
            )
    growth = peak_rss_bytes() - base_rss
    print(
        f"\npeak RSS growth over all runs: {growth / 2**20:.1f} MB "
        f"(a B x n float64 array at B = {b_max:,} would take "
        f"{b_max * n * 8 / 2**30:.1f} GB; the distribution itself is "
        f"{mb(b_max * 8)})"
    )
    # The last run's distribution (the largest B) with its percentile interval.
    res.plot(method="percentile")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fast", action="store_true", help="10x smaller B")
    args = parser.parse_args()
    main(fast=args.fast or os.environ.get("SKBOOT_EXAMPLE_FAST") == "1")
