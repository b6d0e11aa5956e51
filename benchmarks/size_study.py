"""Size study: how often each test rejects a true null hypothesis at alpha = 0.05.

``python -m benchmarks.size_study [--quick | --full] [--trials R] [--n-resamples B]
[--jobs J] [--seed S] [--json PATH] [--write-docs]``

Algorithm:

1. Every scenario below is a data-generating process under which its null
   hypothesis is true. Data set ``r`` of a scenario is drawn from
   ``numpy.random.default_rng([seed, scenario index, r])``, a pure function of
   the seed, and each test is run with ``random_state=[seed, index, r]`` too.
2. Each test is run on ``R`` data sets with ``B`` permutations / replicates and
   rejects when ``p <= alpha``.
3. The rejection rate is compared with ``alpha``: its Monte Carlo standard error
   is ``sqrt(alpha (1 - alpha) / R)``; ``z = (rate - alpha) / se`` beyond 3 is
   flagged. Permutation and Monte Carlo tests are exact under exchangeability
   (``P(p <= alpha) <= alpha``, equal when ``alpha (B + 1)`` is an integer and
   there are no ties), so their rates must sit within Monte Carlo error of alpha;
   bootstrap p-values are only asymptotically valid and the table shows by how
   much they miss at small n.

Cost: ``R`` tests per scenario; ``--full`` (R = 1000, B = 499) takes about ten minutes
with two workers on two shared cores, ``--quick`` (R = 300, B = 499) well under a minute.

The report is markdown on stdout; ``--write-docs`` writes it into
``docs/size_study.md`` between the markers; ``--json`` saves every rate.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SCENARIOS", "Scenario", "main", "run"]

ALPHA = 0.05
QUICK = {"trials": 300, "n_resamples": 499}
FULL = {"trials": 1000, "n_resamples": 499}
DEFAULT_SEED = 20241116
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "size_study.md")
BEGIN, END = "<!-- size-study:begin -->", "<!-- size-study:end -->"


@dataclass(frozen=True)
class Scenario:
    """A test and a data-generating process under which its null is true."""

    name: str
    test: str
    data: str
    exact: bool
    run: Callable[[np.random.Generator, int, list[int]], float]


def _perm(statistic: str, kind: str, alternative: str = "two-sided") -> Callable:
    def make(sampler: Callable[[np.random.Generator], tuple]) -> Callable:
        def run(rng: np.random.Generator, B: int, seed: list[int]) -> float:
            from skboot import permutation_test

            res = permutation_test(
                sampler(rng),
                statistic,
                permutation_type=kind,
                n_resamples=B,
                alternative=alternative,
                random_state=np.random.SeedSequence(seed),
            )
            return float(res.pvalue)

        return run

    return make


def _skew_mc(rng: np.random.Generator, B: int, seed: list[int]) -> float:
    from scipy import stats

    from skboot import monte_carlo_test

    x = rng.normal(3.0, 2.0, size=25)
    z = (x - x.mean()) / x.std(ddof=1)  # standardized: the null is N(0, 1)
    res = monte_carlo_test(
        z, stats.norm(0, 1).rvs, _standardized_skew, n_resamples=B,
        random_state=np.random.SeedSequence(seed),
    )  # fmt: skip
    return float(res.pvalue)


def _standardized_skew(x: np.ndarray, axis: int = -1) -> Any:
    from scipy import stats

    m = x.mean(axis=axis, keepdims=True)
    s = x.std(axis=axis, ddof=1, keepdims=True)
    return stats.skew((x - m) / s, axis=axis)


def _auc(rng: np.random.Generator, B: int, seed: list[int]) -> float:
    from skboot import metric_permutation_test

    y = rng.integers(0, 2, size=80)
    score = rng.normal(size=80)  # unrelated to y
    groups = rng.integers(0, 4, size=80)
    res = metric_permutation_test(
        y, score, "roc_auc", groups=groups, n_resamples=B,
        random_state=np.random.SeedSequence(seed),
    )  # fmt: skip
    return float(res.pvalue)


def _boot(method: str, dist: str, n: int) -> Callable:
    truth = {"normal": 0.0, "exponential": 1.0}[dist]

    def run(rng: np.random.Generator, B: int, seed: list[int]) -> float:
        from skboot import bootstrap

        x = rng.normal(size=n) if dist == "normal" else rng.exponential(size=n)
        res = bootstrap(x, "mean", n_resamples=B,
                        random_state=np.random.SeedSequence(seed))  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(res.pvalue(truth, method=method))

    return run


def _two(draw: Callable[[np.random.Generator, int], np.ndarray], n1: int, n2: int):
    return lambda rng: (draw(rng, n1), draw(rng, n2))


def _expo(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.exponential(size=n)


def _lognormal(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.lognormal(size=n)


def _pairs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(size=20), rng.exponential(size=20)


def _laplace_diffs(rng: np.random.Generator) -> tuple[np.ndarray]:
    return (rng.laplace(size=15),)


SCENARIOS: list[Scenario] = [
    Scenario("perm_mean_diff", "permutation, mean_diff", "exponential 15 + 15",
             True, _perm("mean_diff", "independent")(_two(_expo, 15, 15))),
    Scenario("perm_welch_t", "permutation, welch_t", "lognormal 10 + 25",
             True, _perm("welch_t", "independent")(_two(_lognormal, 10, 25))),
    Scenario("perm_median_diff", "permutation, median_diff, greater",
             "exponential 12 + 18", True,
             _perm("median_diff", "independent", "greater")(_two(_expo, 12, 18))),
    Scenario("perm_pearson", "permutation (pairings), pearson",
             "normal x exponential, n = 20", True,
             _perm("pearson", "pairings")(_pairs)),
    Scenario("perm_paired_t", "sign flip, paired_t", "Laplace differences, n = 15",
             True, _perm("paired_t", "samples")(_laplace_diffs)),
    Scenario("mc_skew", "Monte Carlo, skewness vs N(0, 1)",
             "normal, n = 25, standardized", True, _skew_mc),
    Scenario("metric_auc", "metric_permutation_test, roc_auc, 4 groups",
             "scores unrelated to labels, n = 80", True, _auc),
    *(
        Scenario(f"boot_{m}_{d}_{n}", f"bootstrap p-value ({m}), mean",
                 f"{d}, n = {n}", False, _boot(m, d, n))
        for d in ("normal", "exponential")
        for n in (20, 80)
        for m in ("percentile", "basic", "normal", "bca", "studentized")
    ),
]  # fmt: skip


def _task(args: tuple[int, int, int, int]) -> tuple[int, int, float]:
    index, r, B, seed = args
    rng = np.random.default_rng([seed, index, r])
    return index, r, SCENARIOS[index].run(rng, B, [seed, index, r])


def run(
    trials: int, n_resamples: int, seed: int, jobs: int, only: list[str] | None
) -> dict[str, np.ndarray]:
    """p-values of every selected scenario, shape (trials,) each."""
    chosen = [i for i, s in enumerate(SCENARIOS) if not only or s.name in only]
    tasks = [(i, r, n_resamples, seed) for i in chosen for r in range(trials)]
    out = {SCENARIOS[i].name: np.empty(trials) for i in chosen}
    t0 = time.time()
    if jobs > 1:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs, batch_size=16)(delayed(_task)(t) for t in tasks)
    else:
        results = []
        for k, t in enumerate(tasks):
            results.append(_task(t))
            if k % 500 == 0:
                sys.stderr.write(f"\r{k}/{len(tasks)} {time.time() - t0:.0f} s")
        sys.stderr.write("\n")
    for index, r, p in results:
        out[SCENARIOS[index].name][r] = p
    return out


def report(pvalues: dict[str, np.ndarray], trials: int, B: int, seed: int) -> str:
    se = math.sqrt(ALPHA * (1 - ALPHA) / trials)
    lines = [
        f"R = {trials} data sets per row, B = {B}, alpha = {ALPHA}, seed {seed}; "
        f"Monte Carlo standard error of a rate near alpha: {se:.4f}. "
        "Flag: |z| > 3.",
        "",
        "| test | data (null true) | valid | rejection rate | z | flag |",
        "|---|---|---|---|---|---|",
    ]
    for s in SCENARIOS:
        if s.name not in pvalues:
            continue
        p = pvalues[s.name]
        rate = float(np.mean(p <= ALPHA))
        z = (rate - ALPHA) / se
        valid = "exact" if s.exact else "approximate"
        flag = "**|z| > 3**" if abs(z) > 3 else ""
        lines.append(
            f"| {s.test} | {s.data} | {valid} | {rate:.4f} | {z:+.2f} | {flag} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.size_study")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true")
    mode.add_argument("--full", action="store_true")
    parser.add_argument("--trials", type=int)
    parser.add_argument("--n-resamples", type=int)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--only", nargs="+")
    parser.add_argument("--json")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    base = QUICK if args.quick else FULL
    trials = args.trials or base["trials"]
    B = args.n_resamples or base["n_resamples"]
    t0 = time.time()
    pvalues = run(trials, B, args.seed, args.jobs, args.only)
    elapsed = time.time() - t0
    command = "python -m benchmarks.size_study " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    text = report(pvalues, trials, B, args.seed)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    text += (
        f"\n\nCommand: `{command}`; {elapsed:.0f} s wall, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, load average "
        f"{', '.join(f'{v:.1f}' for v in load)} (shared machine)."
    )
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({k: v.tolist() for k, v in pvalues.items()}, fh)
    if args.write_docs:
        with open(DOCS) as fh:
            doc = fh.read()
        head, rest = doc.split(BEGIN)
        _, tail = rest.split(END)
        with open(DOCS, "w") as fh:
            fh.write(f"{head}{BEGIN}\n{text}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
