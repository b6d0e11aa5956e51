"""The WRE bootstrap of an IV regression against one 2SLS refit per replicate.

``python -m benchmarks.wre [--n N] [--clusters G] [--resamples B] [--reps R]``

Data: ``G`` clusters of equal size, two instruments, two exogenous regressors
and an intercept, one endogenous regressor (``l = 5`` instrument columns).
Timed in one process, rounds alternating (after one untimed warm-up that also
compiles the kernel): ``wild_cluster_bootstrap_iv(...).pvalue`` with ``B``
replicates (O(G l**2) each), its ``confidence_interval()`` (a bootstrap run per
null value tried), and one straightforward replicate (build the WRE sample
row by row, 2SLS by the normal equations, CRV1 by the sandwich: O(n l**2)),
which is multiplied by ``B`` for the refit row.  Medians and the load average
are printed as markdown.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from skboot import wild_cluster_bootstrap_iv

__all__ = ["main", "refit_replicate"]


def refit_replicate(y, X, x, Z, g, v):
    """One WRE replicate's 2SLS t, the straightforward way (with multipliers
    ``v`` per cluster; the null is 0)."""
    n = y.shape[0]
    W = np.column_stack([np.ones(n), X])
    Zf = np.column_stack([W, Z])
    gamma = np.linalg.lstsq(W, y, rcond=None)[0]
    u = y - W @ gamma  # restricted residuals, beta = 0
    D = np.column_stack([Zf, u])
    pi = np.linalg.lstsq(D, x, rcond=None)[0]
    vt = x - D @ pi
    us, vs = u * v[g], vt * v[g]
    xs = Zf @ pi[:-1] + vs
    ys = W @ gamma + us
    R = np.column_stack([xs, W])
    P = Zf @ np.linalg.solve(Zf.T @ Zf, Zf.T @ R)
    A = np.linalg.inv(P.T @ R)
    beta = A @ (P.T @ ys)
    e = ys - R @ beta
    G = int(g.max()) + 1
    S = np.zeros((G, R.shape[1]))
    np.add.at(S, g, P * e[:, None])
    V = A @ (S.T @ S) @ A.T
    return beta[0] / np.sqrt(V[0, 0])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=9999)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args(argv)
    G, n, B = args.clusters, args.n, args.resamples
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(G), n // G)
    n = g.size
    Z = rng.normal(size=(n, 2)) + 0.5 * rng.normal(size=(G, 2))[g]
    X = rng.normal(size=(n, 2))
    u = rng.normal(size=n) + rng.normal(size=G)[g]
    x = Z @ [0.4, 0.3] + X @ [0.3, 0.3] + 0.8 * u + rng.normal(size=n)
    y = X @ [0.2, -0.1] + 1.0 + u

    def pvalue():
        return wild_cluster_bootstrap_iv(X, y, x, Z, g, n_resamples=B, random_state=0)

    def refit():
        return refit_replicate(y, X, x, Z, g, rng.choice([-1.0, 1.0], size=G))

    res = pvalue()
    res.confidence_interval()
    refit()
    times: dict[str, list[float]] = {"pvalue": [], "interval": [], "refit": []}
    for _ in range(args.reps):
        t0 = time.perf_counter()
        res = pvalue()
        t1 = time.perf_counter()
        res.confidence_interval()
        t2 = time.perf_counter()
        refit()
        t3 = time.perf_counter()
        times["pvalue"].append(t1 - t0)
        times["interval"].append(t2 - t1)
        times["refit"].append(t3 - t2)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(
        f"n={n:,}, G={G}, B={B:,}, {args.reps} rounds, "
        f"load average {os.getloadavg()[0]:.1f}\n"
    )
    print("| run | median (s) |\n| --- | --- |")
    print(f"| wild_cluster_bootstrap_iv: p-value | {med['pvalue']:.3f} |")
    print(f"| its confidence_interval() | {med['interval']:.3f} |")
    print(f"| one 2SLS refit replicate | {med['refit']:.4f} |")
    print(
        f"| {B:,} refit replicates (estimated) | {med['refit'] * B:.1f} "
        f"({med['refit'] * B / med['pvalue']:.0f}x the p-value) |"
    )


if __name__ == "__main__":
    main()
