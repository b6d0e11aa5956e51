"""The default interval of every fused metric against "percentile".

``python -m benchmarks.metric_defaults [--n N] [--resamples B] [--reps R]
[--only TEXT ...]``

For each fused metric (binary and multiclass where allowed; without sample
weights, with integer weights in 1..4 and with continuous weights in
[0.5, 2)) and for :func:`skboot.compare_metrics` of two models, times
``metric_ci(..., method=None)`` (the default: BCa, whose acceleration needs
the leave-one-out values) and ``method="percentile"`` (the replicates only)
on the same data and seed, in one process, rounds alternating, after an
untimed warm-up of each on 200 rows that compiles the kernels.  Prints the medians, their ratio
and the load average as markdown.  ``--only`` keeps the cases whose name
contains one of the given texts.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from skboot import compare_metrics, metric_ci

__all__ = ["cases", "main"]


def _data(n: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.4).astype(np.int64)
    score = y + rng.normal(size=n)
    score_b = y + 1.3 * rng.normal(size=n)
    proba = 1.0 / (1.0 + np.exp(-(1.5 * y - 0.75 + rng.normal(size=n))))
    y3 = rng.integers(0, 3, n)
    pred3 = np.where(rng.random(n) < 0.3, rng.integers(0, 3, n), y3)
    pred3_b = np.where(rng.random(n) < 0.4, rng.integers(0, 3, n), y3)
    logits = rng.normal(size=(n, 3)) + 1.5 * np.eye(3)[y3]
    proba3 = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    target = rng.normal(size=n)
    fitted = target + 0.5 * rng.normal(size=n)
    return {
        "y": y,
        "score": score,
        "score_b": score_b,
        "label": (score > 0.5).astype(np.int64),
        "label_b": (score_b > 0.5).astype(np.int64),
        "proba": proba,
        "y3": y3,
        "pred3": pred3,
        "pred3_b": pred3_b,
        "proba3": proba3,
        "target": target,
        "fitted": fitted,
        "fitted_b": target + 0.7 * rng.normal(size=n),
        "weights": {
            "none": None,
            "integer": rng.integers(1, 5, n).astype(np.float64),
            "continuous": rng.uniform(0.5, 2.0, n),
        },
    }


def cases(n: int, B: int) -> dict[str, Callable[[str | None], Any]]:
    """Case name -> ``run(method)``."""
    d = _data(n)
    single = [
        ("accuracy", {}, "y", "label"),
        ("accuracy multiclass", {}, "y3", "pred3"),
        ("balanced_accuracy", {}, "y", "label"),
        ("balanced_accuracy multiclass", {}, "y3", "pred3"),
        ("precision", {}, "y", "label"),
        ("recall", {}, "y", "label"),
        ("f1", {}, "y", "label"),
        ("f1 multiclass macro", {"average": "macro"}, "y3", "pred3"),
        ("f1 multiclass micro", {"average": "micro"}, "y3", "pred3"),
        ("roc_auc", {}, "y", "score"),
        ("average_precision", {}, "y", "score"),
        ("log_loss", {}, "y", "proba"),
        ("log_loss multiclass", {}, "y3", "proba3"),
        ("brier_score", {}, "y", "proba"),
        ("mean_squared_error", {}, "target", "fitted"),
        ("root_mean_squared_error", {}, "target", "fitted"),
        ("mean_absolute_error", {}, "target", "fitted"),
        ("r2", {}, "target", "fitted"),
    ]
    paired = [
        ("roc_auc", {}, "y", "score", "score_b"),
        ("average_precision", {}, "y", "score", "score_b"),
        ("f1 multiclass macro", {"average": "macro"}, "y3", "pred3", "pred3_b"),
        ("balanced_accuracy", {}, "y", "label", "label_b"),
        ("r2", {}, "target", "fitted", "fitted_b"),
    ]
    out: dict[str, Callable[[str | None], Any]] = {}
    for kind, sw in d["weights"].items():
        for label, options, yt, yp in single:
            metric = label.split()[0]

            def run(method, metric=metric, options=options, yt=yt, yp=yp, sw=sw):
                return metric_ci(
                    d[yt], d[yp], metric, sample_weight=sw, n_resamples=B,
                    random_state=0, method=method, **options,
                )  # fmt: skip

            out[f"{label} | weights {kind}"] = run
        for label, options, yt, ya, yb in paired:
            metric = label.split()[0]

            def run2(
                method, metric=metric, options=options, yt=yt, ya=ya, yb=yb, sw=sw
            ):
                return compare_metrics(
                    d[yt], d[ya], d[yb], metric, sample_weight=sw, n_resamples=B,
                    random_state=0, method=method, **options,
                )  # fmt: skip

            out[f"compare_metrics {label} | weights {kind}"] = run2
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=999)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    selected = {
        name: run
        for name, run in cases(args.n, args.resamples).items()
        if not args.only or any(t in name for t in args.only)
    }
    small = cases(200, 9)
    print(
        f"n={args.n:,}, B={args.resamples:,}, {args.reps} rounds, "
        f"load average {os.getloadavg()[0]:.1f} at the start\n"
    )
    print("| case | percentile (s) | default (s) | default / percentile |")
    print("| --- | --- | --- | --- |")
    for name, run in selected.items():
        for method in ("percentile", None):  # compiles the kernels
            small[name](method)
        times: dict[Any, list[float]] = {"percentile": [], None: []}
        for _ in range(args.reps):
            for method in times:
                t0 = time.perf_counter()
                run(method)
                times[method].append(time.perf_counter() - t0)
        pct = float(np.median(times["percentile"]))
        default = float(np.median(times[None]))
        print(
            f"| {name} | {pct:.3f} | {default:.3f} | {default / pct:.1f} |", flush=True
        )
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
