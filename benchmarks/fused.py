"""Issue 15's rows: every scheme and size on the fused path.

* weight schemes, mean, n = 10,000, B = 2,000: Poisson, Bayesian, stratified (5
  strata), group (100 groups), against arch's ``IIDBootstrap(x).apply(np.mean,
  B)`` (its nearest equivalent; arch has no Poisson, Bayesian, stratified or
  cluster bootstrap), floor 10x;
* two independent samples (10,000 + 8,000), difference of means, against arch's
  ``IndependentSamplesBootstrap``, floor 15x;
* column means at d = 50 and d = 200 (n = 10,000, B = 2,000), floor 15x arch;
* iid mean at n = 1e5 and 1e6, B = 200: floor 10x arch, and in the ``skboot
  ref`` column the same number of draws at n = 10,000 (B scaled up), so the ratio
  is ns/draw at n = 1e4 over ns/draw at this n (floor 1 / 1.5: the per-draw cost
  within 1.5x of n = 1e4's);
* ``n_jobs=2`` against ``n_jobs=1`` (the ``skboot ref`` column) on the fused iid
  mean and Poisson mean, work well over 50 ms, floor 1.7x.

Every row also carries its draw count, from which the report prints ns/draw next
to the stream + gather floor (:func:`stream_gather_floor`).  The groups are merged
into :data:`benchmarks.speed.GROUPS`, so ``python -m benchmarks --only fused``
runs them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

__all__ = ["GROUPS", "stream_gather_floor"]

SOURCE = "issue 15"
#: The tracked floors per scheme against arch's iid loop: Poisson's from issue 25;
#: the stratified and Bayesian ones are the floors proposed in the issue-25 notes
#: from the measured cost of their designs (the stratified counting pass costs
#: about 1.8x the iid draw; the Bayesian weights' portable log alone 2.3 ns).
SCHEME_FLOORS = {
    "poisson": (8, "issue 25"),
    "stratified": (4.5, "issue 25, proposed"),
    "bayesian": (2.5, "issue 25, proposed"),
}


def _arch() -> Any:
    try:
        import arch.bootstrap as ab
    except ImportError:
        return None
    return ab


def stream_gather_floor() -> float:
    """Seconds per draw of the fused iid mean kernel on 4,096 values (32 kB,
    in L1): drawing an index from the stream and adding the value it names, the
    least any fused row can cost per draw on this machine (median of 9)."""
    from skboot._kernels.iid import iid_sum_1d
    from skboot._random import check_random_state

    seed, gamma = check_random_state(0).stream(0)
    n, B = 4_096, 4_000
    x = np.random.default_rng(0).normal(size=n)
    out = np.empty(B)
    iid_sum_1d(x, seed, gamma, 0, n, out)
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        iid_sum_1d(x, seed, gamma, 0, n, out)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) / (n * B)


def _row(
    name: str,
    label: str,
    impls: dict[str, Callable[[], Any]],
    arch: Callable[[], Any] | None,
    floors: list[Floor],
    draws: int,
    note: str = "",
    ref: Callable[[], Any] | None = None,
    ref_note: str = "",
    loop: Callable[[], Any] | None = None,
    loop_note: str = "",
) -> Group:
    peers: dict[str, str | NA] = {"scipy": NA("—"), "tsbootstrap": NA("—")}
    notes: dict[str, str] = {}
    if arch is not None:
        impls["arch"] = arch
        peers["arch"] = "arch"
        if note:
            notes["arch"] = note
    else:
        peers["arch"] = NA("arch is not installed" if ref is None else "—")
    if loop is not None:
        impls["loop"] = loop
        peers["loop"] = "loop"
        notes["loop"] = loop_note
    if ref is not None:
        impls["ref"] = ref
        peers["ref"] = "ref"
        notes["ref"] = ref_note
    row = Row(name, label, "skboot", peers, floors=floors, notes=notes, draws=draws)
    return Group(name, impls, [row], params={"draws": draws})


#: Replicates per chunk of the hand-written numpy Bayesian bootstrap.
DIRICHLET_CHUNK = 100


def _dirichlet_loop(x: np.ndarray, B: int) -> Callable[[], np.ndarray]:
    """The Bayesian bootstrap of the mean as users write it in numpy: flat
    Dirichlet weights a chunk of replicates at a time, times the data."""
    ones = np.ones(x.shape[0])

    def run() -> np.ndarray:
        rng = np.random.default_rng(0)
        out = np.empty(B)
        for b0 in range(0, B, DIRICHLET_CHUNK):
            c = min(DIRICHLET_CHUNK, B - b0)
            out[b0 : b0 + c] = rng.dirichlet(ones, size=c) @ x
        return out

    return run


def _schemes(kinds: tuple[str, ...]) -> dict[str, Callable[[Any], Group]]:
    def make(kind: str) -> Callable[[Any], Group]:
        def group(cfg: Any) -> Group:
            import skboot

            n, B = 10_000, (500 if cfg.quick else 2_000)
            rng = np.random.default_rng(15)
            x = rng.normal(size=n)
            kw: dict[str, Any] = {"n_resamples": B, "random_state": 0}
            what = kind
            if kind == "poisson":
                kw["resampler"] = skboot.PoissonBootstrap()
            elif kind == "bayesian":
                kw["resampler"] = skboot.BayesianBootstrap()
            elif kind == "stratified":
                kw["resampler"] = skboot.StratifiedBootstrap()
                kw["y"] = rng.integers(0, 5, size=n)
                what = "stratified (5 strata)"
            else:
                kw["resampler"] = skboot.GroupBootstrap()
                kw["groups"] = rng.integers(0, 100, size=n)
                what = "group (100 groups)"
            ab = _arch()
            arch = None
            if ab is not None:
                arch = lambda: ab.IIDBootstrap(x, seed=0).apply(np.mean, B)  # noqa: E731
            loop = _dirichlet_loop(x, B) if kind == "bayesian" else None
            return _row(
                f"fused_{kind}",
                f"{what} mean, n={n:,}, B={B:,}",
                {"skboot": lambda: skboot.bootstrap(x, "mean", **kw)},
                arch,
                [Floor("arch", *SCHEME_FLOORS.get(kind, (10, SOURCE)))],
                n * B,
                note="IIDBootstrap(x).apply(np.mean, B), the nearest arch has",
                loop=loop,
                loop_note=(
                    f"numpy: rng.dirichlet(np.ones(n), size={DIRICHLET_CHUNK}) @ x "
                    "per chunk, the hand-written Bayesian bootstrap"
                ),
            )

        return group

    return {f"fused_{k}": make(k) for k in kinds}


def group_independent(cfg: Any) -> Group:
    import skboot

    B = 500 if cfg.quick else 2_000
    rng = np.random.default_rng(16)
    a, b = rng.normal(size=10_000), rng.normal(1.0, 2.0, size=8_000)
    ab = _arch()
    arch = None
    if ab is not None:
        arch = lambda: ab.IndependentSamplesBootstrap(a, b, seed=0).apply(  # noqa: E731
            lambda u, v: u.mean() - v.mean(), B
        )
    return _row(
        "fused_independent",
        f"independent samples 10,000 + 8,000, difference of means, B={B:,}",
        {
            "skboot": lambda: skboot.bootstrap(
                (a, b),
                "mean",
                paired=False,
                statistic_kwargs={"contrast": "difference"},
                n_resamples=B,
                random_state=0,
            )
        },
        arch,
        [Floor("arch", 15, SOURCE)],
        18_000 * B,
        note="IndependentSamplesBootstrap(a, b).apply(lambda u, v: u.mean() - "
        "v.mean())",
    )


def _wide(d: int) -> Callable[[Any], Group]:
    def group(cfg: Any) -> Group:
        import skboot

        n, B = 10_000, (500 if cfg.quick else 2_000)
        X = np.random.default_rng(d).normal(size=(n, d))
        ab = _arch()
        arch = None
        if ab is not None:
            arch = lambda: ab.IIDBootstrap(X, seed=0).apply(  # noqa: E731
                lambda a: a.mean(axis=0), B
            )
        return _row(
            f"fused_wide_{d}",
            f"column means, n={n:,} x d={d}, B={B:,}",
            {
                "skboot": lambda: skboot.bootstrap(
                    X, "mean", n_resamples=B, random_state=0
                )
            },
            arch,
            [Floor("arch", 15, SOURCE)],
            n * B,
            note="apply(lambda a: a.mean(axis=0))",
        )

    return group


def _large(name: str, n: int) -> Callable[[Any], Group]:
    def group(cfg: Any) -> Group:
        import skboot

        B = 40 if cfg.quick else 200
        x = np.random.default_rng(n).normal(size=n)
        x4 = np.random.default_rng(n).normal(size=10_000)
        B4 = B * n // 10_000
        ab = _arch()
        arch = None
        if ab is not None:
            arch = lambda: ab.IIDBootstrap(x, seed=0).apply(np.mean, B)  # noqa: E731
        return _row(
            name,
            f"iid mean, n={n:,}, B={B}",
            {
                "skboot": lambda: skboot.bootstrap(
                    x, "mean", n_resamples=B, random_state=0
                )
            },
            arch,
            [Floor("arch", 10, SOURCE), Floor("ref", 1 / 1.5, SOURCE)],
            n * B,
            ref=lambda: skboot.bootstrap(x4, "mean", n_resamples=B4, random_state=0),
            ref_note=f"n=10,000, B={B4:,} (the same draws): ratio = ns/draw at "
            "1e4 / ns/draw here",
        )

    return group


def _parallel(kind: str) -> Callable[[Any], Group]:
    def group(cfg: Any) -> Group:
        import skboot

        n = 100_000
        B = (500 if cfg.quick else 2_000) if kind == "iid" else 500
        x = np.random.default_rng(17).normal(size=n)
        rs = skboot.PoissonBootstrap() if kind == "poisson" else None

        def run(n_jobs: int) -> Callable[[], Any]:
            return lambda: skboot.bootstrap(
                x, "mean", resampler=rs, n_resamples=B, n_jobs=n_jobs, random_state=0
            )

        return _row(
            f"fused_njobs_{kind}",
            f"n_jobs=2, {kind} mean, n={n:,}, B={B:,}",
            {"skboot": run(2)},
            None,
            [Floor("ref", 1.7, SOURCE)],
            n * B,
            ref=run(1),
            ref_note="n_jobs=1: ratio = the speed-up of n_jobs=2 (default backend)",
        )

    return group


GROUPS: dict[str, Callable[[Any], Group]] = {
    **_schemes(("poisson", "bayesian", "stratified", "group")),
    "fused_independent": group_independent,
    "fused_wide_50": _wide(50),
    "fused_wide_200": _wide(200),
    "fused_iid_1e5": _large("fused_iid_1e5", 100_000),
    "fused_iid_1e6": _large("fused_iid_1e6", 1_000_000),
    "fused_njobs_iid": _parallel("iid"),
    "fused_njobs_poisson": _parallel("poisson"),
}
