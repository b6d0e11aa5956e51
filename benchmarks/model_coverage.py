"""Size and coverage of the model-based bootstraps (issue 18).

``python -m benchmarks.model_coverage [--quick] [--trials T] [--seed S]``

Two studies, printed as markdown (progress on stderr); ``docs/coverage.md`` quotes
the output of a full run.

1. **Size of the wild cluster bootstrap t test with few clusters.**  Data set
   ``t`` of a row: ``G`` clusters of unequal sizes (Dirichlet shares of
   ``20 G`` rows, at least 5 each), one regressor with a cluster component,
   errors with a cluster component and heteroskedasticity
   (``y = 1 + 0 * x + u``); H0 (slope 0) is true.  Each data set is tested at 5%
   by WCR with Rademacher weights (enumerated when ``2**G <= B``), WCR with Webb
   weights, WCU with Rademacher weights, and the CRV1 t test with ``t(G - 1)``
   critical values.  The rejection rate estimates the size; its Monte Carlo
   standard error is ``sqrt(p (1 - p) / T)``.
2. **AR(1): standard error of the mean against theory, and coverage.**  Data set
   ``t``: a stationary Gaussian AR(1) with coefficient ``phi`` and mean 0, length
   ``n``.  For each resampler the bootstrap standard error of the mean is averaged
   over the data sets and divided by the exact standard deviation of the mean,
   ``sqrt(gamma_0 / n * (1 + 2 sum_h (1 - h/n) phi^h))``; the coverage of the 95%
   percentile interval of the mean (true value 0) is counted.  The iid
   :class:`skboot.Bootstrap` is the contrast that ignores the dependence.

Data set ``t`` of every row is a pure function of ``(seed, row, t)`` and every
bootstrap is seeded by ``t``, so a run is reproducible exactly.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import numpy as np
from scipy import stats

__all__ = ["ar1_rows", "main", "size_rows"]


def _log(msg: str) -> None:
    sys.stderr.write(msg)
    sys.stderr.flush()


def cluster_data(G: int, seed: tuple[int, ...]):
    rng = np.random.default_rng(list(seed))
    n = 20 * G
    sizes = rng.multinomial(n - 5 * G, rng.dirichlet(np.ones(G))) + 5
    g = np.repeat(np.arange(G), sizes)
    x = rng.normal(size=n) + rng.normal(size=G)[g]
    u = rng.normal(size=n) * np.sqrt(0.5 + x**2 / 2) + rng.normal(size=G)[g]
    return x, 1.0 + u, g


def crv1_t(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> float:
    D = np.column_stack([x, np.ones_like(x)])
    n, k = D.shape
    G = int(g.max()) + 1
    A = np.linalg.inv(D.T @ D)
    b = A @ D.T @ y
    u = y - D @ b
    w = D @ A[:, 0]
    s = np.bincount(g, weights=w * u, minlength=G)
    se = math.sqrt(G / (G - 1) * (n - 1) / (n - k) * (s @ s))
    return b[0] / se


SIZE_METHODS = (
    ("WCR rademacher", {"impose_null": True, "weights": "rademacher"}),
    ("WCR webb", {"impose_null": True, "weights": "webb"}),
    ("WCU rademacher", {"impose_null": False, "weights": "rademacher"}),
)


def size_rows(
    clusters: tuple[int, ...], trials: int, B: int, seed: int
) -> list[dict[str, Any]]:
    from skboot import wild_cluster_bootstrap

    rows = []
    for G in clusters:
        rej = {name: 0 for name, _ in SIZE_METHODS}
        rej["CRV1 t(G-1)"] = 0
        crit = stats.t.ppf(0.975, G - 1)
        for t in range(trials):
            x, y, g = cluster_data(G, (seed, G, t))
            for name, kw in SIZE_METHODS:
                res = wild_cluster_bootstrap(
                    x,
                    y,
                    g,
                    n_resamples=B,
                    random_state=t,
                    **kw,
                )
                rej[name] += res.pvalue <= 0.05
            rej["CRV1 t(G-1)"] += abs(crv1_t(x, y, g)) > crit
        rows.append({"G": G, "trials": trials, "B": B, "rejections": rej})
        _log(".")
    return rows


def _ar1(phi: float, n: int, seed: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(list(seed))
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1 - phi**2)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


def sd_of_mean(phi: float, n: int) -> float:
    h = np.arange(1, n)
    gam0 = 1.0 / (1.0 - phi**2)
    return math.sqrt(gam0 / n * (1 + 2 * np.sum((1 - h / n) * phi**h)))


def _resamplers(B: int) -> list[tuple[str, Any]]:
    import skboot

    return [
        ("ResidualBootstrap(order=1)", skboot.ResidualBootstrap(B, order=1)),
        ("ResidualBootstrap(order='aic')", skboot.ResidualBootstrap(B)),
        ("SieveBootstrap()", skboot.SieveBootstrap(B)),
        ("WildBootstrap(order=1)", skboot.WildBootstrap(B, order=1)),
        ("Bootstrap() (iid)", skboot.Bootstrap(B)),
    ]


def ar1_rows(
    configs: tuple[tuple[float, int], ...], trials: int, B: int, seed: int
) -> list[dict[str, Any]]:
    import skboot

    rows = []
    for phi, n in configs:
        truth = sd_of_mean(phi, n)
        se_sum: dict[str, float] = {}
        cover: dict[str, int] = {}
        for t in range(trials):
            x = _ar1(phi, n, (seed, int(phi * 100), n, t))
            for name, rs in _resamplers(B):
                res = skboot.bootstrap(x, "mean", resampler=rs, random_state=t)
                se_sum[name] = se_sum.get(name, 0.0) + res.standard_error
                low, high = res.confidence_interval(method="percentile")
                cover[name] = cover.get(name, 0) + int(low <= 0.0 <= high)
        rows.append(
            {
                "phi": phi,
                "n": n,
                "trials": trials,
                "B": B,
                "sd_of_mean": truth,
                "se_ratio": {k: v / trials / truth for k, v in se_sum.items()},
                "coverage": {k: v / trials for k, v in cover.items()},
            }
        )
        _log(".")
    return rows


def _pm(p: float, T: int) -> str:
    return f"{p:.3f} ± {math.sqrt(max(p * (1 - p), 1e-12) / T):.3f}"


def report(size: list[dict[str, Any]], ar: list[dict[str, Any]], head: str) -> str:
    out = [head, ""]
    names = [name for name, _ in SIZE_METHODS] + ["CRV1 t(G-1)"]
    out.append("### Size of 5% tests with few clusters (H0 true)")
    out.append("")
    out.append("| G | rows | " + " | ".join(names) + " |")
    out.append("|---|---|" + "---|" * len(names))
    for r in size:
        T = r["trials"]
        cells = [_pm(r["rejections"][nm] / T, T) for nm in names]
        out.append(f"| {r['G']} | {20 * r['G']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(
        "Rejection rate ± Monte Carlo standard error over "
        f"{size[0]['trials'] if size else 0} data sets per row, B = "
        f"{size[0]['B'] if size else 0} (Rademacher WCR/WCU enumerate the 2^G "
        "sign vectors when 2^G <= B)."
    )
    out.append("")
    out.append("### AR(1): bootstrap standard error of the mean / exact sd, coverage")
    out.append("")
    rs_names = list(ar[0]["se_ratio"]) if ar else []
    out.append("| phi | n | exact sd | " + " | ".join(rs_names) + " |")
    out.append("|---|---|---|" + "---|" * len(rs_names))
    for r in ar:
        T = r["trials"]
        cells = [
            f"{r['se_ratio'][k]:.3f} / {_pm(r['coverage'][k], T)}" for k in rs_names
        ]
        out.append(
            f"| {r['phi']} | {r['n']} | {r['sd_of_mean']:.4f} | "
            + " | ".join(cells)
            + " |"
        )
    out.append("")
    out.append(
        "Each cell: mean bootstrap standard error divided by the exact standard "
        "deviation of the mean / coverage of the 95% percentile interval ± Monte "
        f"Carlo standard error; {ar[0]['trials'] if ar else 0} series per row, "
        f"B = {ar[0]['B'] if ar else 0}."
    )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.model_coverage")
    p.add_argument("--quick", action="store_true", help="about a minute")
    p.add_argument("--trials", type=int, help="data sets per row")
    p.add_argument("--seed", type=int, default=20261201)
    args = p.parse_args(argv)
    T_size = args.trials or (200 if args.quick else 1000)
    T_ar = args.trials or (100 if args.quick else 200)
    B_size, B_ar = (399, 199) if args.quick else (999, 399)
    t0 = time.perf_counter()
    _log("size ")
    size = size_rows((6, 10, 20), T_size, B_size, args.seed)
    _log(" ar1 ")
    ar = ar1_rows(
        ((0.3, 100), (0.6, 100), (0.6, 500), (0.9, 500)), T_ar, B_ar, args.seed
    )
    _log("\n")
    cmd = "python -m benchmarks.model_coverage " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    head = (
        f"Command: `{cmd.strip()}`; seed {args.seed}; wall time "
        f"{time.perf_counter() - t0:.0f} s."
    )
    sys.stdout.write(report(size, ar, head))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
