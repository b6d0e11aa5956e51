"""Coverage of the calibrated (double-bootstrap) intervals at small n.

``python -m benchmarks.coverage_calibrated [--quick] [--trials T] [--n-resamples B1]
[--n-inner B2] [--seed S] [--json PATH] [--sizes N ...]``

Algorithm:

1. For every configuration (distribution, n) -- normal(0, 1), exponential(1) and
   lognormal(0, 1) data; n = 10, 20 and 50 (``--sizes``) -- draw ``T`` data sets; data set ``t`` is
   ``default_rng([seed, distribution, n, t])``, so every method sees the same data.
2. On each data set run ``bootstrap(x, "mean", n_resamples=B1,
   random_state=[seed, distribution, n, t])`` once and read from it, at levels
   0.90 and 0.95 (two-sided), the intervals percentile, basic, bca, studentized
   (closed-form standard error ``s / sqrt(n)``), calibrated and calibrated_basic
   (``n_inner=B2``), and, as a control, Student's t interval (exact for normal
   data).  The double bootstrap's proportions are computed once per data set and
   shared by both calibrated methods and both levels (they do not depend on the
   level; the first data set of every configuration is checked against the
   public ``confidence_interval`` call, which recomputes them).
3. Coverage is the fraction of the ``T`` intervals that contain the true mean
   (0, 1, e^(1/2)); its Monte Carlo standard error is ``sqrt(p (1 - p) / T)``.
   Calibrated against percentile is also compared trial by trial: ``b`` data sets
   covered only by the calibrated interval, ``c`` only by the percentile one, and
   the McNemar ``z = (b - c) / sqrt(b + c)``.

Cost: ``6 T`` data sets, each with ``B1 x B2`` inner means of ``n`` draws (the fused
kernel); memory O(B1) per data set.  It measures, it does not assert
(``tests/test_calibrated.py`` does, on a smaller run).

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*,
   section 18.3. Chapman & Hall/CRC.
.. [2] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their
   Application*, section 5.6. Cambridge University Press.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any

import numpy as np
from scipy import stats

DISTRIBUTIONS = {
    "normal": (lambda rng, n: rng.normal(size=n), 0.0),
    "exponential": (lambda rng, n: rng.exponential(size=n), 1.0),
    "lognormal": (lambda rng, n: rng.lognormal(size=n), math.exp(0.5)),
}
SIZES = (10, 20, 50)
LEVELS = (0.90, 0.95)
METHODS = (
    "percentile",
    "basic",
    "bca",
    "studentized",
    "calibrated",
    "calibrated_basic",
    "t (control)",
)


def _intervals(x: np.ndarray, seed: list[int], b1: int, b2: int, check: bool):
    """{(method, level): (low, high)} for one data set."""
    from skboot import bootstrap
    from skboot._run import calibration_inputs
    from skboot.intervals import method_endpoints

    res = bootstrap(
        x, "mean", n_resamples=b1, random_state=np.random.SeedSequence(seed)
    )
    est, dist = res._arrays()
    u, v = calibration_inputs(res._context, b2)
    props = (u[:, 0], v[:, 0])
    out: dict[tuple[str, float], tuple[float, float]] = {}
    n = x.shape[0]
    for level in LEVELS:
        for method in METHODS[:4]:
            ci = res.confidence_interval(level, method)
            out[method, level] = (float(ci.low), float(ci.high))
        for method in ("calibrated", "calibrated_basic"):
            ends = method_endpoints(
                method,
                dist,
                est,
                level=level,
                alternative="two-sided",
                calibration=lambda: props,
            )
            out[method, level] = (float(ends.low), float(ends.high))
            if check:
                ci = res.confidence_interval(level, method, n_inner=b2)
                assert (ci.low, ci.high) == out[method, level], "not the public path"
        half = stats.t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) / math.sqrt(n)
        out["t (control)", level] = (x.mean() - half, x.mean() + half)
    return out


def run(
    trials: int,
    b1: int,
    b2: int,
    seed: int,
    partial: str | None = None,
    sizes: tuple[int, ...] = SIZES,
) -> dict[str, Any]:
    """Every cell of the study (see the module docstring) for the sample sizes
    ``sizes``; the cells done so far are written to ``partial`` (JSON) after
    every configuration.  A cell's data sets depend on the seed, the
    distribution, ``n`` and the trial only, so a run of some sizes gives
    exactly those rows of a run of all of them."""
    cells: list[dict[str, Any]] = []
    start = time.perf_counter()
    for d_id, (name, (draw, truth)) in enumerate(DISTRIBUTIONS.items()):
        for n in sizes:
            hits = {(m, lv): np.zeros(trials, bool) for m in METHODS for lv in LEVELS}
            for t in range(trials):
                key = [seed, d_id, n, t]
                x = draw(np.random.default_rng(key), n)
                ends = _intervals(x, key, b1, b2, check=t == 0)
                for cell, (lo, hi) in ends.items():
                    hits[cell][t] = lo <= truth <= hi
            for level in LEVELS:
                row: dict[str, Any] = {"distribution": name, "n": n, "level": level}
                for m in METHODS:
                    row[m] = float(hits[m, level].mean())
                cal, pct = hits["calibrated", level], hits["percentile", level]
                b, c = int((cal & ~pct).sum()), int((pct & ~cal).sum())
                row["only_calibrated"], row["only_percentile"] = b, c
                row["mcnemar_z"] = (b - c) / math.sqrt(b + c) if b + c else 0.0
                cells.append(row)
            elapsed = time.perf_counter() - start
            print(f"{name} n={n} done, {elapsed:.0f} s", file=sys.stderr)
            if partial:
                with open(partial, "w") as fh:
                    json.dump({"cells": cells, "wall_s": elapsed}, fh, indent=1)
    return {
        "trials": trials,
        "n_resamples": b1,
        "n_inner": b2,
        "seed": seed,
        "wall_s": time.perf_counter() - start,
        "load_average_end": os.getloadavg(),
        "cells": cells,
    }


def report(out: dict[str, Any]) -> str:
    """The markdown table of coverages."""
    T = out["trials"]
    se95 = math.sqrt(0.95 * 0.05 / T)
    se90 = math.sqrt(0.90 * 0.10 / T)
    lines = [
        f"T = {T} data sets per row, B1 = {out['n_resamples']}, "
        f"B2 = {out['n_inner']}, seed {out['seed']}; Monte Carlo standard error "
        f"{se90:.4f} at 0.90 and {se95:.4f} at 0.95; {out['wall_s']:.0f} s wall.",
        "",
        "| data | n | level | " + " | ".join(METHODS) + " | only cal. / only pct. |",
        "| --- | --- | --- | " + " | ".join("---" for _ in METHODS) + " | --- |",
    ]
    for row in out["cells"]:
        values = " | ".join(f"{row[m]:.3f}" for m in METHODS)
        lines.append(
            f"| {row['distribution']} | {row['n']} | {row['level']:.2f} | {values} | "
            f"{row['only_calibrated']} / {row['only_percentile']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="T=100, B1=299, B2=100")
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--n-resamples", type=int, default=999)
    parser.add_argument("--n-inner", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=list(SIZES), help="sample sizes n"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.trials, args.n_resamples, args.n_inner = 100, 299, 100
    load = os.getloadavg()
    out = run(
        args.trials,
        args.n_resamples,
        args.n_inner,
        args.seed,
        args.json,
        tuple(args.sizes),
    )
    out["load_average_start"] = load
    print(report(out))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
