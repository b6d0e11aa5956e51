"""Size of the wild cluster bootstrap test with 3 to 12 clusters.

``python -m benchmarks.few_clusters [--trials T] [--seed S] [--clusters 3 ... 12]
[--no-peer]``

Prints a markdown table (progress on stderr); ``docs/coverage.md`` quotes a full
run.

Data set ``t`` of the row for ``G`` clusters is ``cluster_data(G, (seed, G, t))``
of :mod:`benchmarks.model_coverage`: ``20 G`` rows in clusters of unequal sizes,
one regressor and errors with cluster components and heteroskedasticity, and a
true null (slope 0).  Each data set is tested at 5% (reject when ``p <= 0.05``,
two-sided symmetric, WCR) with

* Rademacher weights, all ``2**G`` sign vectors enumerated
  (``n_resamples=4096``); its p-values are multiples of ``1 / 2**(G - 1)``, so
  when ``2**(G - 1) * 0.05 < 1`` the test rejects only at ``p = 0``, and under
  exchangeable bootstrap statistics its size is ``(floor(0.05 * 2**(G - 1)) + 1)
  / 2**(G - 1)`` (the "lattice" column);
* Webb's six-point weights, ``B = 999`` drawn replicates (seed ``t``).

The rejection rate estimates the size; its Monte Carlo standard error is
``sqrt(p (1 - p) / T)``.  The count of data sets on which skboot raised
:class:`skboot.model_based.FewClustersWarning` is reported too.

Peer (``--no-peer`` skips it): wildboottest (a Python port of boottest's
algorithm) on data set 0 of each ``G`` with Rademacher enumeration, the one
setting where both libraries compute the same bootstrap statistics (Webb draws
come from different random streams).  Its symmetric p-value counts
``|t*| > |t|`` over all ``2**G`` sign vectors, including the two (``v = +-1``)
that reproduce ``+-t`` up to rounding; skboot counts those two as ties.  The
column ``peer - skboot`` is the difference of the two p-values on that data set.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from typing import Any

import numpy as np

from benchmarks.model_coverage import cluster_data

__all__ = ["lattice_size", "main", "peer_p_value", "report", "size_rows"]

ALPHA = 0.05
WEIGHTS = (("rademacher", 4096), ("webb", 999))


def _log(msg: str) -> None:
    sys.stderr.write(msg)
    sys.stderr.flush()


def lattice_size(G: int, alpha: float = ALPHA) -> float:
    """Size of the enumerated symmetric Rademacher test if the ``2**(G - 1)``
    values of ``|t*|`` were exchangeable with ``|t|``."""
    m = 2 ** (G - 1)
    return (math.floor(alpha * m) + 1) / m


def size_rows(
    clusters: tuple[int, ...], trials: int, seed: int
) -> list[dict[str, Any]]:
    """Rejections at 5% under the null for each ``G`` and weight law."""
    from skboot import wild_cluster_bootstrap
    from skboot.model_based import FewClustersWarning

    rows = []
    for G in clusters:
        rej = dict.fromkeys((w for w, _ in WEIGHTS), 0)
        warned = dict.fromkeys(rej, 0)
        for t in range(trials):
            x, y, g = cluster_data(G, (seed, G, t))
            for weights, B in WEIGHTS:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", FewClustersWarning)
                    res = wild_cluster_bootstrap(
                        x,
                        y,
                        g,
                        weights=weights,
                        n_resamples=B,
                        random_state=t,
                    )
                rej[weights] += bool(res.pvalue <= ALPHA)
                warned[weights] += any(
                    issubclass(w.category, FewClustersWarning) for w in caught
                )
        rows.append({"G": G, "trials": trials, "rejections": rej, "warned": warned})
        _log(".")
    return rows


def peer_p_value(G: int, seed: int) -> tuple[float, float] | None:
    """(skboot, wildboottest) symmetric p-values of data set 0 for ``G``, all
    ``2**G`` Rademacher sign vectors, WCR; None without wildboottest."""
    try:
        from wildboottest.wildboottest import WildboottestCL
    except ImportError:
        return None
    from skboot import wild_cluster_bootstrap

    x, y, g = cluster_data(G, (seed, G, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = wild_cluster_bootstrap(x, y, g, n_resamples=4096)
        peer = WildboottestCL(
            X=np.column_stack([x, np.ones_like(x)]),
            Y=y,
            cluster=g,
            R=np.array([1.0, 0.0]),
            B=2**G + 1,
            seed=1,
            parallel=False,
        )
        peer.get_scores(bootstrap_type="11", impose_null=True)
        peer.get_weights(weights_type="rademacher")
        peer.get_numer()
        peer.get_denom()
        peer.get_tboot()
        peer.get_vcov()
        peer.get_tstat()
        peer.get_pvalue(pval_type="two-tailed")
    return float(mine.pvalue), float(peer.pvalue)


def report(rows: list[dict[str, Any]], peer: dict[int, Any]) -> str:
    """The markdown table of :func:`size_rows` (and the peer column)."""
    head = (
        "| G | rows | Rademacher (2^G enumerated) | lattice | warned | Webb (B = 999) "
        "| warned | peer - skboot (data set 0) |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        G, T = row["G"], row["trials"]
        cells = [str(G), str(20 * G)]
        for weights in ("rademacher", "webb"):
            p = row["rejections"][weights] / T
            cells.append(f"{p:.3f} ± {math.sqrt(p * (1 - p) / T):.3f}")
            if weights == "rademacher":
                cells.append(f"{lattice_size(G):.3f}")
            cells.append(f"{row['warned'][weights]}/{T}")
        pair = peer.get(G)
        cells.append("n/a" if pair is None else f"{pair[1] - pair[0]:+.4f}")
        lines.append("| " + " | ".join(cells) + " |")
    T = rows[0]["trials"] if rows else 0
    lines.append("")
    lines.append(
        f"Rejection rate at 5% ± Monte Carlo standard error over {T} data sets per "
        "row (H0 true), WCR, two-sided symmetric p-value."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.few_clusters")
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--clusters", type=int, nargs="+", default=list(range(3, 13)))
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = size_rows(tuple(args.clusters), args.trials, args.seed)
    peer: dict[int, Any] = {}
    if not args.no_peer:
        for G in args.clusters:
            peer[G] = peer_p_value(G, args.seed)
            _log("p")
    _log("\n")
    print(report(rows, peer))
    print(
        f"\n`python -m benchmarks.few_clusters --trials {args.trials} --seed "
        f"{args.seed}`: {time.perf_counter() - start:.0f} s wall."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
