"""Speed workloads of the tests family (issue 16): fused permutation tests against
``scipy.stats.permutation_test`` with vectorized statistics and a Python loop, and
``monte_carlo_test`` against ``scipy.stats.monte_carlo_test``.

Every group times, interleaved (see :mod:`benchmarks._harness`):

* skboot: ``permutation_test(data, "<fused name>", n_resamples=B)``;
* scipy: ``scipy.stats.permutation_test(data, statistic, vectorized=True,
  n_resamples=B)`` with the numpy statistic the fused one stands for (scipy's
  default ``batch=None`` materializes all ``B`` permutations at once: 160 MB of
  indices plus 160 MB of data at n = 2,000, B = 9,999);
* loop: the loop a user writes, ``Generator.permutation`` (or
  ``Generator.integers`` for signs) and the statistic per replicate; the cell
  also shows the loop's shuffles alone (no statistic), the part that no fused
  kernel can avoid doing in some form.

The floors are those of issue 16: >= 10x scipy and >= 100x the loop, at
n = 1,000 + 1,000 and B = 9,999.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

if TYPE_CHECKING:  # pragma: no cover
    from benchmarks.speed import Config

__all__ = ["GROUPS"]

N_EACH = 1_000
B_FULL = 9_999
B_QUICK = 999
NO_PEER = {
    "arch": NA("n/a: arch has no permutation test"),
    "tsbootstrap": NA("n/a: tsbootstrap has no permutation test"),
}


def _floors() -> list[Floor]:
    # the loop floor as restated in issue 25 (25x) proved out of reach of the
    # stream's Fisher-Yates steps (3.2 ns per step, the kernel 85% of the call):
    # 15x is the floor proposed from that measurement
    return [Floor("scipy", 10, "issue 16"), Floor("loop", 15, "issue 25, proposed")]


def _group(
    cfg: Config,
    name: str,
    label: str,
    fused: str,
    kind: str,
    data: tuple[np.ndarray, ...],
    statistic: Callable[..., Any],
    loop_one: Callable[[np.random.Generator], float],
    shuffle_one: Callable[[np.random.Generator], Any],
) -> Group:
    import scipy.stats

    from skboot.significance import permutation_test

    B = B_QUICK if cfg.quick else B_FULL

    def sk() -> Any:
        return permutation_test(
            data, fused, permutation_type=kind, n_resamples=B, random_state=0
        )

    def sp() -> Any:
        return scipy.stats.permutation_test(
            data,
            statistic,
            permutation_type=kind,
            vectorized=True,
            n_resamples=B,
            rng=np.random.default_rng(0),
        )

    def loop() -> Any:
        gen = np.random.default_rng(0)
        return np.array([loop_one(gen) for _ in range(B)])

    def shuffles() -> Any:
        gen = np.random.default_rng(0)
        for _ in range(B):
            shuffle_one(gen)

    n_total = sum(a.shape[0] for a in data) if kind == "independent" else N_EACH
    row = Row(
        name,
        f"{label}, n={n_total:,}{' (' + kind + ')'}, B={B:,}",
        "skboot",
        {"scipy": "scipy", "loop": "loop", **NO_PEER},
        floors=_floors(),
        notes={
            "scipy": "permutation_test(..., vectorized=True), batch=None",
            "loop": "Generator.permutation + numpy statistic per replicate; "
            "bracket: the shuffles alone",
        },
        extra={"loop": ("shuffles alone", "loop_shuffles")},
    )
    impls = {"skboot": sk, "scipy": sp, "loop": loop, "loop_shuffles": shuffles}
    return Group(name, impls, [row], params={"n_each": N_EACH, "B": B, "kind": kind})


def group_perm_mean_diff(cfg: Config) -> Group:
    rng = np.random.default_rng(16)
    x, y = rng.normal(size=N_EACH), rng.normal(0.1, 1.0, size=N_EACH)
    pool = np.concatenate([x, y])

    def stat(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
        return np.mean(a, axis=axis) - np.mean(b, axis=axis)

    def one(gen: np.random.Generator) -> float:
        p = gen.permutation(pool)
        return float(p[:N_EACH].mean() - p[N_EACH:].mean())

    return _group(
        cfg,
        "perm_mean_diff",
        "permutation test, difference of means",
        "mean_diff",
        "independent",
        (x, y),
        stat,
        one,
        lambda gen: gen.permutation(pool),
    )


def group_perm_t(cfg: Config) -> Group:
    import scipy.stats

    rng = np.random.default_rng(17)
    x, y = rng.normal(size=N_EACH), rng.normal(0.1, 1.3, size=N_EACH)
    pool = np.concatenate([x, y])

    def stat(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
        return scipy.stats.ttest_ind(a, b, axis=axis).statistic

    def one(gen: np.random.Generator) -> float:
        # the pooled t in numpy (scipy.stats.ttest_ind per replicate costs 20x more)
        p = gen.permutation(pool)
        a, b = p[:N_EACH], p[N_EACH:]
        sp2 = (a.var(ddof=1) + b.var(ddof=1)) / 2.0
        return float((a.mean() - b.mean()) / np.sqrt(sp2 * 2.0 / N_EACH))

    return _group(
        cfg,
        "perm_t",
        "permutation test, Student t",
        "t",
        "independent",
        (x, y),
        stat,
        one,
        lambda gen: gen.permutation(pool),
    )


def group_perm_pearson(cfg: Config) -> Group:
    rng = np.random.default_rng(18)
    x = rng.normal(size=N_EACH)
    y = 0.05 * x + rng.normal(size=N_EACH)

    def stat(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
        a = a - a.mean(axis=axis, keepdims=True)
        b = b - b.mean(axis=axis, keepdims=True)
        num = (a * b).sum(axis=axis)
        return num / np.sqrt((a * a).sum(axis=axis) * (b * b).sum(axis=axis))

    def one(gen: np.random.Generator) -> float:
        return float(np.corrcoef(gen.permutation(x), gen.permutation(y))[0, 1])

    def shuffle(gen: np.random.Generator) -> Any:
        return gen.permutation(x), gen.permutation(y)

    return _group(
        cfg,
        "perm_pearson",
        "permutation test, Pearson r",
        "pearson",
        "pairings",
        (x, y),
        stat,
        one,
        shuffle,
    )


def group_perm_paired(cfg: Config) -> Group:
    rng = np.random.default_rng(19)
    x = rng.normal(size=N_EACH)
    y = x + rng.normal(0.05, 1.0, size=N_EACH)
    d = x - y

    def stat(a: np.ndarray, b: np.ndarray, axis: int = -1) -> Any:
        return np.mean(a - b, axis=axis)

    def one(gen: np.random.Generator) -> float:
        s = 1.0 - 2.0 * gen.integers(0, 2, size=N_EACH)
        return float(np.mean(s * d))

    return _group(
        cfg,
        "perm_paired",
        "sign-flip test, paired mean difference",
        "paired_mean_diff",
        "samples",
        (x, y),
        stat,
        one,
        lambda gen: gen.integers(0, 2, size=N_EACH),
    )


def group_monte_carlo(cfg: Config) -> Group:
    """``monte_carlo_test`` against ``scipy.stats.monte_carlo_test``: a normal
    null drawn by ``scipy.stats.norm.rvs``, n = 150, the sample skewness
    vectorized (both call the sampler once per batch) and plain (one call of
    the statistic per replicate)."""
    import scipy.stats

    from skboot.significance import monte_carlo_test

    B = B_QUICK if cfg.quick else B_FULL
    n = 150
    x = scipy.stats.skewnorm(2).rvs(size=n, random_state=1)

    def vskew(a: np.ndarray, axis: int = -1) -> Any:
        return scipy.stats.skew(a, axis=axis)

    def pskew(a: np.ndarray) -> float:
        d = a - a.mean()
        return float((d**3).mean() / (d**2).mean() ** 1.5)

    def run(stat: Any, vectorized: bool, lib: str) -> Callable[[], Any]:
        if lib == "skboot":
            return lambda: monte_carlo_test(
                x, scipy.stats.norm.rvs, stat, n_resamples=B, random_state=0
            )
        return lambda: scipy.stats.monte_carlo_test(
            x, scipy.stats.norm.rvs, stat, n_resamples=B, vectorized=vectorized
        )

    peers = {
        "arch": NA("n/a: arch has no Monte Carlo test"),
        "tsbootstrap": NA("n/a: tsbootstrap has no Monte Carlo test"),
    }
    rows = [
        Row(
            "mc_vectorized",
            f"Monte Carlo test, vectorized skewness, n={n}, B={B:,}",
            "skboot",
            {"scipy": "scipy", **peers},
            floors=[Floor("scipy", 1, "issue 25")],
            notes={"scipy": "monte_carlo_test(..., vectorized=True), batch=None"},
        ),
        Row(
            "mc_plain",
            f"Monte Carlo test, plain skewness, n={n}, B={B:,}",
            "skboot_plain",
            {"scipy": "scipy_plain", **peers},
            notes={"scipy": "monte_carlo_test(..., vectorized=False)"},
        ),
    ]
    impls = {
        "skboot": run(vskew, True, "skboot"),
        "scipy": run(vskew, True, "scipy"),
        "skboot_plain": run(pskew, False, "skboot"),
        "scipy_plain": run(pskew, False, "scipy"),
    }
    return Group("monte_carlo", impls, rows, params={"n": n, "B": B})


GROUPS: dict[str, Callable[[Config], Group]] = {
    "monte_carlo": group_monte_carlo,
    "perm_mean_diff": group_perm_mean_diff,
    "perm_t": group_perm_t,
    "perm_pearson": group_perm_pearson,
    "perm_paired": group_perm_paired,
}
