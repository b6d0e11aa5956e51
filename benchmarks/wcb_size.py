"""Size of the wild cluster bootstrap tests with 6 to 50 clusters, one-way and
two-way clustering.

``python -m benchmarks.wcb_size [--trials T] [--resamples B] [--seed S]
[--clusters 6 10 20 50]``

Prints a markdown table (progress on stderr); ``docs/coverage.md`` quotes a full
run.

One-way data set ``t`` of the row for ``G`` clusters is ``cluster_data(G, (seed,
G, t))`` of :mod:`benchmarks.model_coverage`: ``20 G`` rows in clusters of
unequal sizes, one regressor and errors with cluster components and
heteroskedasticity, slope 0 (true).  The two-way data set ``two_way_data(G,
(seed, G, t))`` adds a second clustering of ``G`` clusters ("years", drawn
uniformly, crossing the first) with its own components in the regressor and
the errors, and a second regressor with slope 0.  Each data set is tested at 5%
(reject when ``p <= 0.05``; two-sided symmetric; Webb's six-point weights,
``B`` draws, seed ``t``) with

* WCR, CRV1 (the default test of ``wild_cluster_bootstrap``);
* WCU, CRV1;
* WCR, CRV3 (``variance="crv3"``; one-way only);
* WCR with jackknifed residuals (``residuals="jackknife"``; one-way only),
  CRV1 and CRV3 statistic (wildboottest's "31" and "33");
* the WCR Wald test of both slopes (``wild_cluster_wald``, 2 restrictions);
* no bootstrap: CRV1 ``t`` against Student's t with ``G - 1`` degrees of
  freedom (two-way: ``min(G1, G2) - 1``), the usual asymptotic test.

The rejection rate estimates the size; its Monte Carlo standard error is
``sqrt(p (1 - p) / T)`` (about 0.007 at 5% with 1000 data sets).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import numpy as np
from scipy import stats

from benchmarks.model_coverage import cluster_data

__all__ = ["main", "report", "size_rows", "two_way_data"]

ALPHA = 0.05
COLUMNS = (
    "WCR CRV1",
    "WCU CRV1",
    "WCR CRV3",
    "WCR jk CRV1",
    "WCR jk CRV3",
    "WCR Wald (q = 2)",
    "CRV1 t(G-1)",
)


def _log(msg: str) -> None:
    sys.stderr.write(msg)
    sys.stderr.flush()


def two_way_data(G: int, seed: tuple[int, ...]):
    """Two regressors (slopes 0), clusters ``g1`` (unequal sizes) crossed with
    ``G`` uniformly drawn clusters ``g2``, each with its own components."""
    rng = np.random.default_rng(list(seed))
    n = 20 * G
    sizes = rng.multinomial(n - 5 * G, rng.dirichlet(np.ones(G))) + 5
    g1 = np.repeat(np.arange(G), sizes)
    g2 = rng.integers(0, G, size=n)
    X = (
        rng.normal(size=(n, 2))
        + rng.normal(size=(G, 2))[g1]
        + rng.normal(size=(G, 2))[g2]
    )
    u = (
        rng.normal(size=n) * np.sqrt(0.5 + X[:, 0] ** 2 / 2)
        + rng.normal(size=G)[g1]
        + rng.normal(size=G)[g2]
    )
    return X, 1.0 + u, np.column_stack([g1, g2])


def _one_way(G: int, t: int, seed: int, B: int) -> dict[str, bool]:
    from skboot import wild_cluster_bootstrap
    from skboot.model_based import wild_cluster_wald

    x, y, g = cluster_data(G, (seed, G, t))
    rng = np.random.default_rng([seed, G, t, 1])
    X = np.column_stack([x, rng.normal(size=x.size) + rng.normal(size=G)[g]])
    kw = {"weights": "webb", "n_resamples": B, "random_state": t}
    out, t = {}, math.nan
    for name, extra in (
        ("WCR CRV1", {}),
        ("WCU CRV1", {"impose_null": False}),
        ("WCR CRV3", {"variance": "crv3"}),
        ("WCR jk CRV1", {"residuals": "jackknife"}),
        ("WCR jk CRV3", {"residuals": "jackknife", "variance": "crv3"}),
    ):
        res = wild_cluster_bootstrap(X, y, g, coef=0, **kw, **extra)
        out[name] = bool(res.pvalue <= ALPHA)
        if name == "WCR CRV1":
            t = res.statistic
    out["WCR Wald (q = 2)"] = bool(
        wild_cluster_wald(X, y, g, coef=[0, 1], **kw).pvalue <= ALPHA
    )
    out["CRV1 t(G-1)"] = bool(abs(t) > stats.t.ppf(1 - ALPHA / 2, G - 1))
    return out


def _two_way(G: int, t: int, seed: int, B: int) -> dict[str, bool]:
    from skboot import wild_cluster_bootstrap
    from skboot.model_based import wild_cluster_wald

    X, y, groups = two_way_data(G, (seed, G, t))
    kw = {"weights": "webb", "n_resamples": B, "random_state": t}
    out = {}
    res = wild_cluster_bootstrap(X, y, groups, coef=0, **kw)
    out["WCR CRV1"] = bool(res.pvalue <= ALPHA)
    res_u = wild_cluster_bootstrap(X, y, groups, coef=0, impose_null=False, **kw)
    out["WCU CRV1"] = bool(res_u.pvalue <= ALPHA)
    wald = wild_cluster_wald(X, y, groups, coef=[0, 1], **kw)
    out["WCR Wald (q = 2)"] = bool(wald.pvalue <= ALPHA)
    crit = stats.t.ppf(1 - ALPHA / 2, G - 1)
    out["CRV1 t(G-1)"] = bool(abs(res.statistic) > crit)
    return out


def size_rows(
    clusters: tuple[int, ...], trials: int, B: int, seed: int
) -> list[dict[str, Any]]:
    """Rejections at 5% under the null for each ``G`` and clustering."""
    import warnings

    from skboot import UndefinedStatisticWarning

    rows = []
    for design, run in (("one-way", _one_way), ("two-way", _two_way)):
        for G in clusters:
            rej = dict.fromkeys(COLUMNS, 0)
            undefined = 0
            for t in range(trials):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", UndefinedStatisticWarning)
                    out = run(G, t, seed, B)
                undefined += any(
                    issubclass(w.category, UndefinedStatisticWarning) for w in caught
                )
                for name, hit in out.items():
                    rej[name] += hit
            has = set(out)
            rows.append(
                {
                    "design": design,
                    "G": G,
                    "trials": trials,
                    "rejections": {
                        k: (v if k in has else None) for k, v in rej.items()
                    },
                    "undefined": undefined,
                }
            )
            _log(".")
    return rows


def report(rows: list[dict[str, Any]], B: int) -> str:
    """The markdown table of :func:`size_rows`."""
    lines = [
        "| clustering | G | rows | " + " | ".join(COLUMNS) + " | undefined |",
        "|---|---|---|" + "---|" * len(COLUMNS) + "---|",
    ]
    for row in rows:
        T = row["trials"]
        cells = [row["design"], str(row["G"]), str(20 * row["G"])]
        for name in COLUMNS:
            hits = row["rejections"][name]
            if hits is None:
                cells.append("n/a")
                continue
            p = hits / T
            cells.append(f"{p:.3f} ± {math.sqrt(p * (1 - p) / T):.3f}")
        cells.append(str(row["undefined"]))
        lines.append("| " + " | ".join(cells) + " |")
    T = rows[0]["trials"] if rows else 0
    lines.append("")
    lines.append(
        f"Rejection rate at 5% ± Monte Carlo standard error over {T} data sets per "
        f"row (H0 true); Webb weights, B = {B}; two-sided symmetric p-values."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wcb_size")
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=399)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--clusters", type=int, nargs="+", default=[6, 10, 20, 50])
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = size_rows(tuple(args.clusters), args.trials, args.resamples, args.seed)
    _log("\n")
    print(report(rows, args.resamples))
    print(
        f"\n`python -m benchmarks.wcb_size --trials {args.trials} --resamples "
        f"{args.resamples} --seed {args.seed}`: "
        f"{time.perf_counter() - start:.0f} s wall."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
