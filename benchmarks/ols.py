"""The built-in "ols" against a least-squares callable on the same replicates.

``python -m benchmarks.ols [--n N] [--k K] [--resamples B] [--reps R]``

Both runs bootstrap the coefficients of ``y`` on ``X`` (with an intercept) with
``Bootstrap(B, random_state=0)``, so they compute the same replicates: the
built-in from each replicate's weighted cross products and a Cholesky solve
(skboot._kernels.ols), the callable with ``numpy.linalg.lstsq`` on the
replicate's rows (called once per replicate).  Rounds alternate between the two
in one process (after one untimed warm-up each, which also compiles the
kernels); the medians, their ratio, the largest difference of the two
distributions (relative to each coefficient's scale) and the load average are
printed as markdown.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from skboot import Bootstrap, bootstrap

__all__ = ["lstsq_statistic", "main"]


def lstsq_statistic(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares coefficients, the intercept first (numpy's lstsq)."""
    Z = np.column_stack([np.ones(X.shape[0]), X])
    return np.linalg.lstsq(Z, y, rcond=None)[0]


def _time(run) -> tuple[float, np.ndarray]:
    t0 = time.perf_counter()
    dist = run()
    return time.perf_counter() - t0, dist


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=499)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args(argv)
    gen = np.random.default_rng(0)
    X = 100.0 + gen.normal(size=(args.n, args.k))
    y = X @ np.linspace(1.0, -1.0, args.k) + gen.normal(size=args.n)

    def builtin() -> np.ndarray:
        res = bootstrap(
            (X, y), "ols", resampler=Bootstrap(args.resamples, random_state=0)
        )
        return np.asarray(res.distribution)

    def callable_() -> np.ndarray:
        res = bootstrap(
            (X, y),
            lstsq_statistic,
            resampler=Bootstrap(args.resamples, random_state=0),
        )
        return np.asarray(res.distribution)

    _, a = _time(builtin)
    _, b = _time(callable_)
    diff = float(np.max(np.abs(a - b) / np.max(np.abs(b), axis=0)))
    times: dict[str, list[float]] = {"builtin": [], "callable": []}
    for _ in range(args.reps):
        times["builtin"].append(_time(builtin)[0])
        times["callable"].append(_time(callable_)[0])
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(
        f"n={args.n}, k={args.k}, B={args.resamples}, {args.reps} rounds, "
        f"load average {os.getloadavg()[0]:.1f}\n"
    )
    print("| run | median (s) |\n| --- | --- |")
    print(f'| built-in "ols" | {med["builtin"]:.4f} |')
    print(f"| callable (numpy lstsq per replicate) | {med['callable']:.4f} |")
    print(
        f"\nratio callable / built-in: {med['callable'] / med['builtin']:.1f}; "
        f"largest relative difference of the distributions: {diff:.1e}"
    )


if __name__ == "__main__":
    main()
