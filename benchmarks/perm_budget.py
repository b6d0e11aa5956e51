"""Where the time of a fused permutation test goes, and what bounds its speed-up.

``python -m benchmarks.perm_budget`` times, at n = 1,000 + 1,000 and B = 9,999
(the workload of the ``perm_mean_diff`` row and of issue 16's floors), interleaved,
medians over rounds:

* the bounded draws alone: the ``n_1`` Fisher-Yates draws per replicate that define
  the permutation stream (``skboot._kernels.permutation.fy_block``, the kernel's
  own draw routine), summed into one word so nothing is optimized away;
* skboot's fused kernel (the one ``indep_sum_kernel`` picks: draws, swaps, sums,
  restore), alone
  and through ``permutation_test(data, "mean_diff")``;
* the Python loop of the row: ``Generator.permutation`` and two numpy means per
  replicate.

It prints each in ns per swap and the ratio loop / each.  The ratio loop / draws
is the ceiling of loop / skboot for any kernel that reads the stream: a test whose
permutations are replicate ``b``'s Fisher-Yates shuffle must make those draws,
whatever it does with them.  This is the arithmetic behind the note on issue
16's ">= 100x a Python loop" floor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from skboot._kernels.permutation import BLOCK, fy_block
from skboot._kernels.significance import indep_sum_chunk

try:  # the 4-lane pipelined variant and its chooser (absent from older checkouts)
    from skboot._kernels.permutation_pipelined import indep_sum_kernel
except ImportError:  # pragma: no cover - older checkout

    def indep_sum_kernel(N: int, n1: int) -> Any:
        return indep_sum_chunk


from skboot._random import NO_HAVE, PURPOSE, check_random_state, replicate_counter

_U0 = np.uint64(0)


@njit(cache=False)
def _draws_only(seed, gamma, b0, N, n1, B):  # pragma: no cover - compiled
    """The ``n1`` bounded draws of each replicate's forward Fisher-Yates shuffle."""
    buf = np.empty(BLOCK, dtype=np.uint64)
    s = _U0
    for k in range(B):
        ctr = replicate_counter(b0 + k)
        have = NO_HAVE
        lo = _U0
        i = 0
        while i < n1:
            c = min(BLOCK, n1 - i)
            ctr, have, lo = fy_block(seed, gamma, ctr, have, lo, N - i, c, buf)
            for u in range(c):
                s ^= buf[u]
            i += c
    return s


def main() -> None:
    from skboot.significance import permutation_test

    n_each, B, rounds = 1_000, 9_999, 7
    rng = np.random.default_rng(16)
    x, y = rng.normal(size=n_each), rng.normal(0.1, 1.0, size=n_each)
    pool = np.concatenate([x, y])
    key = check_random_state(0)
    seed, gamma = key.stream(PURPOSE["permutation"])
    out = np.empty((B, 1))
    N = pool.shape[0]

    def loop() -> None:
        gen = np.random.default_rng(0)
        for _ in range(B):
            p = gen.permutation(pool)
            p[:n_each].mean() - p[n_each:].mean()

    impls: dict[str, Callable[[], object]] = {
        "draws": lambda: _draws_only(seed, gamma, 0, N, n_each, B),
        "kernel": lambda: indep_sum_kernel(N, n_each)(
            seed, gamma, 0, pool, n_each, out
        ),
        "permutation_test": lambda: permutation_test(
            (x, y), "mean_diff", n_resamples=B, random_state=0
        ),
        "loop": loop,
    }
    for f in impls.values():  # warm-up (compiles)
        f()
    times: dict[str, list[float]] = {k: [] for k in impls}
    for _ in range(rounds):
        for k, f in impls.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    swaps = B * n_each
    print(
        f"n = {n_each:,} + {n_each:,}, B = {B:,}: {swaps:,} Fisher-Yates steps; "
        f"medians of {rounds} interleaved rounds"
    )
    for k, v in med.items():
        print(
            f"  {k:18s} {v * 1e3:8.1f} ms  {v / swaps * 1e9:6.2f} ns/swap  "
            f"loop / this {med['loop'] / v:6.1f}x"
        )
    need = med["loop"] / 100 / swaps * 1e9
    print(
        f"100x the loop needs {need:.2f} ns per swap; the draws alone take "
        f"{med['draws'] / swaps * 1e9:.2f} (ceiling {med['loop'] / med['draws']:.1f}x)"
    )


if __name__ == "__main__":
    main()
