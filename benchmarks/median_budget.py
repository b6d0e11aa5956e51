"""Where the time of a plain-callable ``np.median`` bootstrap goes.

``python -m benchmarks.median_budget`` times, per replicate at n = 10,000:

* ``np.median`` alone on fresh resamples (200 different ones, so the branch
  predictor cannot learn one array: on a repeated array it looks ~3x cheaper);
* arch's ``IIDBootstrap.apply(np.median, B)`` and skboot's plain-callable path
  (``vectorized=False``), interleaved, medians over rounds;

and prints the ratio arch / skboot next to the ceiling arch / np.median, which no
wrapper that calls ``np.median`` once per replicate can pass.  This is the
arithmetic behind the note on issue 3's 1.5x floor.
"""

from __future__ import annotations

import time

import numpy as np


def main() -> None:
    from arch.bootstrap import IIDBootstrap

    import skboot

    n, B, rounds = 10_000, 2_000, 7
    x = np.random.default_rng(12345).normal(size=n)
    rng = np.random.default_rng(0)
    fresh = [x[rng.integers(0, n, n)] for _ in range(200)]

    def median_only() -> None:
        for r in fresh:
            np.median(r)

    def arch_run() -> None:
        IIDBootstrap(x, seed=0).apply(np.median, B)

    def sk_run() -> None:
        skboot.bootstrap(x, np.median, n_resamples=B, random_state=0, vectorized=False)

    def trivial_run() -> None:
        skboot.bootstrap(x, _zero, n_resamples=B, random_state=0, vectorized=False)

    for f in (median_only, arch_run, sk_run, trivial_run):  # warm-up
        f()
    times: dict[str, list[float]] = {"median": [], "arch": [], "skboot": [], "triv": []}
    for _ in range(rounds):
        for key, f, per in (
            ("median", median_only, len(fresh)),
            ("arch", arch_run, B),
            ("skboot", sk_run, B),
            ("triv", trivial_run, B),
        ):
            t0 = time.perf_counter()
            f()
            times[key].append((time.perf_counter() - t0) / per)
    med = {k: float(np.median(v)) * 1e6 for k, v in times.items()}
    print(f"per replicate, n = {n:,}, B = {B:,}, medians of {rounds} rounds (µs):")
    print(f"  np.median on a fresh resample      {med['median']:8.1f}")
    print(f"  arch IIDBootstrap.apply(np.median) {med['arch']:8.1f}")
    print(f"  skboot plain callable np.median    {med['skboot']:8.1f}")
    print(
        f"  skboot plain callable, trivial     {med['triv']:8.1f}  (its own overhead)"
    )
    print(f"arch / skboot                  = {med['arch'] / med['skboot']:.2f}x")
    print(f"ceiling arch / np.median alone = {med['arch'] / med['median']:.2f}x")
    print(
        f"overhead beyond np.median: arch {med['arch'] - med['median']:.1f} µs, "
        f"skboot {med['skboot'] - med['median']:.1f} µs"
    )


def _zero(a: np.ndarray) -> float:
    return 0.0


if __name__ == "__main__":
    main()
