"""The data-parallel Poisson bootstrap of a dask array against the in-memory fused
kernel and against dask.array written the obvious way.

``python -m benchmarks.dask_data [--quick] [--n N] [--B B] [--reps R] [--json PATH]
[--n-metric N] [--rows KEY ...] [--interleave]``

The statistic is the mean of ``x_i = 5 + sin(i)``, n rows (default 10,000,000;
quick: 2,000,000; ``--n`` takes ``10000000`` or ``1e7``) in partitions of
1,000,000 rows, B replicates (default 200).  Each row's ``--reps`` repetitions
run back to back and the row is printed (flushed) as soon as they are done,
as the median, nanoseconds per (row x replicate) and the ratio to the
data-parallel Poisson row, which runs first:

* ``data-parallel, LocalCluster 2 workers``: ``bootstrap(xd, "mean",
  resampler=PoissonBootstrap(B))`` on the dask array, its partitions persisted
  on two single-threaded worker processes (loopback only, no dashboard);
  asserted equal to the in-memory distribution to 1e-12;
* ``in-memory, n_jobs=1`` and ``n_jobs=2``: the same call on the numpy array
  (the fused Poisson kernel);
* ``exact iid, data-parallel`` and ``exact iid, in-memory, n_jobs=1``:
  ``resampler=Bootstrap(B)`` (n draws with replacement per replicate) on the
  dask array (each partition's share of the draws drawn on the client, the
  draws made where the rows live) and on the numpy array.  The two streams
  differ (the data-parallel one depends on the partitioning): their estimates
  are asserted equal to 1e-12, their distributions only timed;
* ``dask.array, one weight array per replicate``: per replicate ``w =
  rng.poisson(1.0, size=n)`` (a dask array chunked like the data) and ``(w *
  x).sum() / w.sum()``, all replicates in one graph, on the same cluster, with
  fewer replicates (``max(4, B // 20)``; its cost is linear in B).  It draws
  other counts (numpy's Poisson generator), so only its speed is compared.

A second table times ``metric_ci`` with ``PoissonBootstrap(B)`` (and, data-parallel,
with the exact iid ``Bootstrap(B)``: the in-memory estimate asserted, another
stream) on ``n_metric``
rows (default n / 5) of labels ``y_i`` and scores ``y_i + 2 sin(1.3 i)``
rounded to 1e-3 (ties), for "accuracy" (per-partition sums) and "roc_auc"
(a dask sort by score, then per-partition rank sums): in memory (``n_jobs=1``)
and data-parallel on the same cluster, asserted equal to 1e-12.

``--rows`` keeps some rows of the first table (keys ``poisson``,
``memory1``, ``memory2``, ``exact``, ``exact-memory``, ``dask-array``; the
data-parallel Poisson row, the reference of the ratios, always runs);
``--n-metric 0`` skips the second table.  ``--interleave`` runs the
repetitions in rounds, one of each row per round, and prints the table after
the last round: every row then sees the same mix of machine load, which is
what the ratios need on a shared machine (at n = 1e8 one repetition of a row
takes minutes).

The machine's load average is printed with each row: on a shared machine,
compare the ratios, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

CHUNK = 1_000_000
#: ``--rows`` keys and the rows of the first table they name.
ROWS = {
    "poisson": "data-parallel, LocalCluster 2 workers",
    "memory1": "in-memory fused kernel, n_jobs=1",
    "memory2": "in-memory fused kernel, n_jobs=2",
    "exact": "exact iid (Bootstrap), data-parallel",
    "exact-memory": "exact iid (Bootstrap), in-memory, n_jobs=1",
    "dask-array": "dask.array, a weight array per replicate",
}


def count(text: str) -> int:
    """A positive whole number written as an integer (``10000000``) or as a
    float with an integral value (``1e7``, ``2.5e6``)."""
    try:
        return _positive(int(text), text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive whole number such as 10000000 or 1e7. Got {text!r}."
        ) from None
    if not np.isfinite(value) or value != np.floor(value):
        raise argparse.ArgumentTypeError(
            f"must be a whole number (1e7 and 2.5e6 are). Got {text!r}."
        )
    return _positive(int(value), text)


def count_or_zero(text: str) -> int:
    """:func:`count`, or 0."""
    return 0 if text.strip() in ("0", "0.0", "0e0") else count(text)


def _positive(value: int, text: str) -> int:
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1. Got {text!r}.")
    return value


def _timed(name: str, f: Callable[[], Any], reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return out


def _rounds(impls: dict[str, Callable[[], Any]], reps: int) -> dict[str, list[float]]:
    """``reps`` rounds, each timing every row once, in order (progress on stderr)."""
    out: dict[str, list[float]] = {name: [] for name in impls}
    for r in range(reps):
        for name, f in impls.items():
            t0 = time.perf_counter()
            f()
            out[name].append(time.perf_counter() - t0)
            print(
                f"round {r + 1}/{reps}: {name}: {out[name][-1]:.2f} s "
                f"(load {os.getloadavg()[0]:.1f})",
                file=sys.stderr,
                flush=True,
            )
    return out


def _row(name: str, ts: list[float], work: float, ref: float | None) -> float:
    """Print (flushed) one table row; returns its ns per row x replicate."""
    med = statistics.median(ts)
    ns = med / work * 1e9
    vs = f"{ns / ref:.2f}x" if ref else "1.00x"
    print(
        f"| {name} | {med:.2f} s | {ns:.2f} | {vs} | {os.getloadavg()[0]:.1f} |",
        flush=True,
    )
    return ns


def _shifted_sine(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    start = block_info[None]["array-location"][0][0]
    return 5.0 + np.sin(np.arange(start, start + block.shape[0], dtype=np.float64))


def _naive(xd: Any, B: int) -> np.ndarray:
    """The obvious dask.array Poisson bootstrap: a weight array per replicate."""
    import dask
    import dask.array as da

    rng = da.random.default_rng(0)
    means = []
    for _ in range(B):
        w = rng.poisson(1.0, size=xd.shape, chunks=xd.chunks)
        means.append((w * xd).sum() / w.sum())
    return np.asarray(dask.compute(*means))


def _labels(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    start = block_info[None]["array-location"][0][0]
    i = np.arange(start, start + block.shape[0], dtype=np.float64)
    return (np.sin(0.7 * i) > 0.0).astype(np.int64)


def _scores(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    start = block_info[None]["array-location"][0][0]
    i = np.arange(start, start + block.shape[0], dtype=np.float64)
    return np.round((np.sin(0.7 * i) > 0.0) + 2.0 * np.sin(1.3 * i), 3)


def _metric_rows(n: int, B: int, reps: int) -> dict[str, list[float]]:
    """``metric_ci`` in memory and on the cluster in use, interleaved; the
    distributions asserted equal to 1e-12."""
    import dask.array as da

    from skboot import Bootstrap, PoissonBootstrap, metric_ci

    z = da.zeros(n, chunks=CHUNK // 5)
    yd = z.map_blocks(_labels, dtype=np.int64).persist()
    sd = z.map_blocks(_scores, dtype=float).persist()
    y = _labels(np.empty(n), {None: {"array-location": [(0, n)]}})
    score = _scores(np.empty(n), {None: {"array-location": [(0, n)]}})
    pred = (score > 0.5).astype(np.int64)
    pd_ = sd.map_blocks(lambda s: (s > 0.5).astype(np.int64), dtype=np.int64)
    kw = dict(resampler=PoissonBootstrap(B), method="percentile", random_state=0)
    exact = dict(kw, resampler=Bootstrap(B))
    impls = {
        "accuracy, in memory, n_jobs=1": lambda: metric_ci(
            y, pred, "accuracy", n_jobs=1, **kw
        ),
        "accuracy, data-parallel": lambda: metric_ci(yd, pd_, "accuracy", **kw),
        "roc_auc, in memory, n_jobs=1": lambda: metric_ci(
            y, score, "roc_auc", n_jobs=1, **kw
        ),
        "roc_auc, data-parallel": lambda: metric_ci(yd, sd, "roc_auc", **kw),
        "accuracy, data-parallel, exact iid (Bootstrap)": lambda: metric_ci(
            yd, pd_, "accuracy", **exact
        ),
        "roc_auc, data-parallel, exact iid (Bootstrap)": lambda: metric_ci(
            yd, sd, "roc_auc", **exact
        ),
    }
    for a in ("accuracy", "roc_auc"):
        want = impls[f"{a}, in memory, n_jobs=1"]()
        got = impls[f"{a}, data-parallel"]().distribution
        np.testing.assert_allclose(got, want.distribution, rtol=1e-12, atol=0.0)
        # the exact scheme: the in-memory estimate, another stream
        est = impls[f"{a}, data-parallel, exact iid (Bootstrap)"]().estimate
        np.testing.assert_allclose(est, want.estimate, rtol=1e-12, atol=0.0)
    print(f"\n## metric_ci, Poisson and exact iid: n={n:,}, B={B:,}\n", flush=True)
    print("| implementation | median | ns per row x replicate | vs in memory | load |")
    print("|---|---|---|---|---|", flush=True)
    times: dict[str, list[float]] = {}
    ref: dict[str, float] = {}
    for name, f in impls.items():  # warmed up above
        times[name] = _timed(name, f, reps)
        metric = name.split(",")[0]
        ns = _row(name, times[name], float(n) * B, ref.get(metric))
        ref.setdefault(metric, ns)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dask_data")
    parser.add_argument("--quick", action="store_true", help="n=2e6, B=50, 2 reps")
    parser.add_argument("--n", type=count, default=None, help="rows (default 1e7)")
    parser.add_argument("--B", type=count, default=None, help="replicates (200)")
    parser.add_argument("--reps", type=count, default=None, help="repetitions (3)")
    parser.add_argument("--json", default=None, help="write raw results here")
    parser.add_argument(
        "--rows",
        nargs="+",
        choices=sorted(ROWS),
        default=None,
        help="rows of the first table to run (default: all)",
    )
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="time the rows in rounds (one repetition of each per round)",
    )
    parser.add_argument(
        "--n-metric",
        type=count_or_zero,
        default=None,
        help="rows of the metric_ci table (n/5; 0 skips it)",
    )
    args = parser.parse_args(argv)

    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    from skboot import Bootstrap, PoissonBootstrap, bootstrap

    n = args.n or (2_000_000 if args.quick else 10_000_000)
    B = args.B or (50 if args.quick else 200)
    reps = args.reps or (2 if args.quick else 3)
    B_naive = max(4, B // 20)
    x = 5.0 + np.sin(np.arange(n, dtype=np.float64))
    tmp = tempfile.mkdtemp(prefix="skboot-dask-data-")
    with dask.config.set({"temporary-directory": tmp}):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # a free loopback port: None would still try 8787 for the HTTP
            # endpoints, and warn when another cluster holds it
            dashboard_address="127.0.0.1:0",
            silence_logs=50,
        )
    client = Client(cluster)
    try:
        xd = da.zeros(n, chunks=CHUNK).map_blocks(_shifted_sine, dtype=float)
        xd = xd.persist()
        client.wait_for_workers(2)

        def run(data: Any, scheme: Any, jobs: int | None = None) -> Any:
            kw: dict[str, Any] = {} if jobs is None else {"n_jobs": jobs}
            return lambda: bootstrap(
                data, "mean", resampler=scheme(B), random_state=0, **kw
            )

        dp, memory1 = ROWS["poisson"], ROWS["memory1"]
        exact_dp, exact_mem = ROWS["exact"], ROWS["exact-memory"]
        naive = ROWS["dask-array"]
        every = {
            dp: run(xd, PoissonBootstrap),
            memory1: run(x, PoissonBootstrap, 1),
            ROWS["memory2"]: run(x, PoissonBootstrap, 2),
            exact_dp: run(xd, Bootstrap),
            exact_mem: run(x, Bootstrap, 1),
            naive: lambda: _naive(xd, B_naive),
        }
        keep = {dp, *(ROWS[k] for k in (args.rows or ROWS))}
        impls = {name: f for name, f in every.items() if name in keep}
        ref = every[memory1]().distribution
        got = every[dp]().distribution
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * 6.0)
        if exact_dp in impls:  # the in-memory estimate needs no replicate
            want = bootstrap(x, "mean", resampler=Bootstrap(1), random_state=0)
            got_exact = impls[exact_dp]().estimate
            np.testing.assert_allclose(got_exact, want.estimate, rtol=1e-12)
        if exact_mem in impls:
            impls[exact_mem]()  # warm-up
        if naive in impls:
            _naive(xd, 2)  # warm-up
        print(
            f"## Data-parallel mean: n={n:,}, B={B:,} (dask.array: B={B_naive}), "
            f"{reps} repetitions per row, {os.cpu_count()} CPUs\n"
        )
        print(
            "| implementation | median | ns per row x replicate "
            "| vs data-parallel Poisson | load |"
        )
        print("|---|---|---|---|---|", flush=True)
        times: dict[str, list[float]] = {}
        if args.interleave:
            times = _rounds(impls, reps)
        ns: dict[str, float] = {}
        for name, f in impls.items():
            if not args.interleave:
                times[name] = _timed(name, f, reps)
            work = float(n) * (B_naive if name == naive else B)
            ns[name] = _row(name, times[name], work, ns.get(dp))
        print(
            "\nThe data-parallel Poisson distribution equals the in-memory one to "
            "1e-12 (asserted).",
            flush=True,
        )
        n_metric = n // 5 if args.n_metric is None else args.n_metric
        metric_times = _metric_rows(n_metric, B, reps) if n_metric else {}
    finally:
        client.close()
        cluster.close()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "n": n,
                    "B": B,
                    "B_naive": B_naive,
                    "times": times,
                    "ns": ns,
                    "metric_times": metric_times,
                },
                fh,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
