"""Speed workloads: skboot against arch, scipy.stats.bootstrap and tsbootstrap.

Each ``group_*`` function builds the data once and returns a :class:`Group`: the
implementations that are timed together (interleaved) and the table rows they
feed.  Every peer cell is present; a peer that cannot run a workload gets an
``NA`` with the reason.  Names that other issues are still adding to skboot
(block resamplers, ``metric_ci``) are looked up at run time, so their rows say
"n/a (not available)" until the names exist.

Peers are called the way their documentation recommends for speed:

* arch 8: ``IIDBootstrap(x, seed=0).apply(func, B)`` (and the block classes,
  ``conf_int``), a Python loop over replicates;
* scipy: ``scipy.stats.bootstrap(..., vectorized=True, method="percentile")`` for
  distribution-only workloads (the percentile interval is a sort of B numbers);
  ``batch=`` only where B x n x 8 bytes would exceed 1 GB (the cell says so);
* tsbootstrap 0.7: ``bootstrap_reduce(..., backend="compiled")``, its fused numba
  path (index build + gather + reduce, parallel over replicates with ``prange``),
  for the reducers it has ("mean", "var", "std", ("quantile", q)); its numpy
  backend with a per-replicate callable otherwise.  The compiled path uses every
  numba thread (2 here) while skboot runs with ``n_jobs=None`` (one core), so the
  cell also shows tsbootstrap pinned to one thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

__all__ = ["GROUPS", "Config"]

GiB = 1e9  # the "~1 GB" materialisation threshold for scipy's batch


@dataclass(frozen=True)
class Config:
    quick: bool = False


# ---------------------------------------------------------------------------
# peers, imported lazily so a missing one becomes an NA cell
# ---------------------------------------------------------------------------
def _skboot() -> Any:
    import skboot

    return skboot


def _arch() -> Any:
    try:
        import arch.bootstrap as ab
    except ImportError:
        return None
    return ab


def _scipy_bootstrap() -> Any:
    try:
        from scipy.stats import bootstrap
    except ImportError:  # pragma: no cover
        return None
    return bootstrap


def _tsb() -> Any:
    try:
        import tsbootstrap
    except ImportError:
        return None
    return tsbootstrap


def _one_thread(func: Callable[[], Any]) -> Callable[[], Any]:
    """Run ``func`` with numba's parallel regions pinned to one thread."""

    def run() -> Any:
        import numba

        prev = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return func()
        finally:
            numba.set_num_threads(prev)

    return run


def _scipy_batch(B: int, n: int, d: int = 1) -> int | None:
    """``batch`` for scipy so one batch of resamples stays under ~1 GB."""
    if B * n * d * 8 <= GiB:
        return None
    return max(1, int(GiB // (n * d * 8)))


def _batch_note(batch: int | None) -> str:
    return "vectorized, no batch" if batch is None else f"vectorized, batch={batch}"


NOT_INSTALLED = "n/a: {} is not installed"
TSB_NOTE = "compiled fused, 2 numba threads"


def _add_tsb_compiled(
    cfg: Config,
    tsb: Any,
    data: np.ndarray,
    method: Any,
    B: int,
    impls: dict[str, Callable[[], Any]],
    peers: dict[str, str | NA],
    notes: dict[str, str],
    extra: dict[str, tuple[str, str]],
    note_prefix: str = "",
) -> None:
    """tsbootstrap's compiled fused mean as the "tsbootstrap" peer (and, in full
    runs, the same pinned to one numba thread); n/a when it is not installed.
    ``method()`` gives the tsbootstrap method object for each call."""
    if tsb is None:
        peers["tsbootstrap"] = NA(NOT_INSTALLED.format("tsbootstrap"))
        return

    def tsb_run() -> Any:
        return tsb.bootstrap_reduce(
            data,
            method=method(),
            statistic="mean",
            n_bootstraps=B,
            random_state=0,
            backend="compiled",
        )

    impls["tsbootstrap"] = tsb_run
    peers["tsbootstrap"] = "tsbootstrap"
    notes["tsbootstrap"] = note_prefix + TSB_NOTE
    if not cfg.quick:
        impls["tsbootstrap_1t"] = _one_thread(tsb_run)
        extra["tsbootstrap"] = ("1 thr", "tsbootstrap_1t")


def _sizes(cfg: Config, n: int, B: int, quick_B: int) -> tuple[int, int]:
    return n, (quick_B if cfg.quick else B)


def _label(text: str, n: int, B: int, extra: str = "") -> str:
    return f"{text}, n={n:,}{extra}, B={B:,}"


# ---------------------------------------------------------------------------
# iid mean, 1-D
# ---------------------------------------------------------------------------
def _iid_group(
    cfg: Config,
    name: str,
    n: int,
    B: int,
    quick_B: int,
    floors: list[Floor],
    d: int | None = None,
) -> Group:
    """iid mean of n values (``d=None``) or column means of an (n, d) array."""
    n, B = _sizes(cfg, n, B, quick_B)
    rng = np.random.default_rng(12345)
    x = rng.normal(size=n) if d is None else rng.normal(size=(n, d))
    sk, ab, sb, tsb = _skboot(), _arch(), _scipy_bootstrap(), _tsb()
    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: sk.bootstrap(x, "mean", n_resamples=B, random_state=0)
    }
    peers: dict[str, str | NA] = {}
    notes: dict[str, str] = {}
    extra: dict[str, tuple[str, str]] = {}
    if ab is not None:
        if d is None:
            impls["arch"] = lambda: ab.IIDBootstrap(x, seed=0).apply(np.mean, B)
        else:
            impls["arch"] = lambda: ab.IIDBootstrap(x, seed=0).apply(
                lambda a: a.mean(axis=0), B
            )
            notes["arch"] = "apply(lambda a: a.mean(axis=0))"
        peers["arch"] = "arch"
    else:
        peers["arch"] = NA(NOT_INSTALLED.format("arch"))
    batch = _scipy_batch(B, n, 1 if d is None else d)
    impls["scipy"] = lambda: sb(
        (x,),
        np.mean,
        n_resamples=B,
        vectorized=True,
        axis=0,
        method="percentile",
        batch=batch,
        rng=np.random.default_rng(0),
    )
    peers["scipy"] = "scipy"
    notes["scipy"] = _batch_note(batch)
    method = None
    if tsb is not None:
        from tsbootstrap.methods import IID as method
    _add_tsb_compiled(cfg, tsb, x, method, B, impls, peers, notes, extra)
    peers["loop"] = NA("—")
    label = (
        _label("iid mean", n, B)
        if d is None
        else _label("column means", n, B, extra=f" x d={d}")
    )
    row = Row(name, label, "skboot", peers, floors=floors, notes=notes, extra=extra)
    params: dict[str, Any] = {"n": n, "B": B, "scipy_batch": batch}
    if d is not None:
        params["d"] = d
    return Group(name, impls, [row], params=params)


def group_iid_10k(cfg: Config) -> Group:
    return _iid_group(
        cfg, "iid_10k", 10_000, 2_000, 2_000, [Floor("arch", 10, "issue 3")]
    )


def group_iid_small(cfg: Config) -> Group:
    return _iid_group(
        cfg, "iid_small", 100, 10_000, 10_000, [Floor("arch", 100, "issue 3")]
    )


def group_iid_100k(cfg: Config) -> Group:
    return _iid_group(cfg, "iid_100k", 100_000, 1_000, 200, [])


def group_iid_1m(cfg: Config) -> Group:
    return _iid_group(cfg, "iid_1m", 1_000_000, 200, 40, [])


# ---------------------------------------------------------------------------
# 2-D column means
# ---------------------------------------------------------------------------
def group_colmeans_2d(cfg: Config) -> Group:
    return _iid_group(
        cfg, "colmeans_2d", 10_000, 2_000, 500, [Floor("arch", 15, "issue 3")], d=8
    )


# ---------------------------------------------------------------------------
# np.median: plain callable (tier 3), auto-vectorized callable (tier 2), fused
# ---------------------------------------------------------------------------
def group_median(cfg: Config) -> Group:
    n, B = _sizes(cfg, 10_000, 2_000, 200)
    x = np.random.default_rng(12345).normal(size=n)
    sk, ab, sb, tsb = _skboot(), _arch(), _scipy_bootstrap(), _tsb()
    impls: dict[str, Callable[[], Any]] = {
        "skboot_plain": lambda: sk.bootstrap(
            x, np.median, n_resamples=B, random_state=0, vectorized=False
        ),
        "skboot_vectorized": lambda: sk.bootstrap(
            x, np.median, n_resamples=B, random_state=0
        ),
        "skboot_fused": lambda: sk.bootstrap(
            x, "median", n_resamples=B, random_state=0
        ),
    }
    batch = _scipy_batch(B, n)
    impls["scipy_plain"] = lambda: sb(
        (x,),
        np.median,
        n_resamples=B,
        vectorized=False,
        method="percentile",
        batch=batch,
        rng=np.random.default_rng(0),
    )
    impls["scipy_vectorized"] = lambda: sb(
        (x,),
        np.median,
        n_resamples=B,
        vectorized=True,
        method="percentile",
        batch=batch,
        rng=np.random.default_rng(0),
    )
    arch_cell: str | NA
    if ab is not None:
        impls["arch"] = lambda: ab.IIDBootstrap(x, seed=0).apply(np.median, B)
        arch_cell = "arch"
    else:
        arch_cell = NA(NOT_INSTALLED.format("arch"))
    tsb_plain: str | NA
    tsb_vec: str | NA
    tsb_fused: str | NA
    if tsb is not None:
        from tsbootstrap.methods import IID

        impls["tsbootstrap_plain"] = lambda: tsb.bootstrap_reduce(
            x,
            method=IID(),
            statistic=lambda v, i: np.median(v),
            n_bootstraps=B,
            random_state=0,
        )
        impls["tsbootstrap_vectorized"] = lambda: tsb.bootstrap_reduce(
            x,
            method=IID(),
            statistic=lambda v, i: np.median(v, axis=1),
            n_bootstraps=B,
            random_state=0,
            vectorized=True,
        )

        def tsb_fused_run() -> Any:
            return tsb.bootstrap_reduce(
                x,
                method=IID(),
                statistic=("quantile", 0.5),
                n_bootstraps=B,
                random_state=0,
                backend="compiled",
            )

        impls["tsbootstrap_fused"] = tsb_fused_run
        if not cfg.quick:
            impls["tsbootstrap_fused_1t"] = _one_thread(tsb_fused_run)
        tsb_plain, tsb_vec, tsb_fused = (
            "tsbootstrap_plain",
            "tsbootstrap_vectorized",
            "tsbootstrap_fused",
        )
    else:
        tsb_plain = tsb_vec = tsb_fused = NA(NOT_INSTALLED.format("tsbootstrap"))
    loop = NA("—")
    rows = [
        Row(
            "median_callable",
            _label("np.median, plain callable (skboot vectorized=False)", n, B),
            "skboot_plain",
            {
                "arch": arch_cell,
                "scipy": "scipy_plain",
                "tsbootstrap": tsb_plain,
                "loop": loop,
            },
            floors=[Floor("arch", 1.5, "issue 3")],
            notes={
                "arch": "apply(np.median)",
                "scipy": "vectorized=False",
                "tsbootstrap": "numpy, per-replicate callable",
            },
        ),
        Row(
            "median_vectorized",
            _label("np.median, auto-detected vectorized (axis=-1)", n, B),
            "skboot_vectorized",
            {
                "arch": arch_cell,
                "scipy": "scipy_vectorized",
                "tsbootstrap": tsb_vec,
                "loop": loop,
            },
            notes={
                "arch": "no vectorized path: apply(np.median)",
                "scipy": _batch_note(batch),
                "tsbootstrap": "numpy, vectorized=True",
            },
        ),
        Row(
            "median_fused",
            _label('median, fused built-in (skboot "median")', n, B),
            "skboot_fused",
            {
                "arch": NA("n/a: arch has no built-in statistics (apply loop above)"),
                "scipy": NA("n/a: scipy has no built-in statistics (vectorized above)"),
                "tsbootstrap": tsb_fused,
                "loop": loop,
            },
            notes={"tsbootstrap": 'compiled ("quantile", 0.5), 2 numba threads'},
            extra={"tsbootstrap": ("1 thr", "tsbootstrap_fused_1t")}
            if tsb is not None and not cfg.quick
            else {},
        ),
    ]
    return Group("median", impls, rows, params={"n": n, "B": B, "scipy_batch": batch})


def group_callable_mean(cfg: Config) -> Group:
    """Tier-3 overhead: a plain callable so cheap that the loop is all that counts."""
    n, B = _sizes(cfg, 10_000, 2_000, 500)
    x = np.random.default_rng(12345).normal(size=n)
    sk, ab, sb, tsb = _skboot(), _arch(), _scipy_bootstrap(), _tsb()
    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: sk.bootstrap(
            x, np.mean, n_resamples=B, random_state=0, vectorized=False
        )
    }
    peers: dict[str, str | NA] = {}
    if ab is not None:
        impls["arch"] = lambda: ab.IIDBootstrap(x, seed=0).apply(np.mean, B)
        peers["arch"] = "arch"
    else:
        peers["arch"] = NA(NOT_INSTALLED.format("arch"))
    batch = _scipy_batch(B, n)
    impls["scipy"] = lambda: sb(
        (x,),
        np.mean,
        n_resamples=B,
        vectorized=False,
        method="percentile",
        batch=batch,
        rng=np.random.default_rng(0),
    )
    peers["scipy"] = "scipy"
    if tsb is not None:
        from tsbootstrap.methods import IID

        impls["tsbootstrap"] = lambda: tsb.bootstrap_reduce(
            x,
            method=IID(),
            statistic=lambda v, i: np.mean(v),
            n_bootstraps=B,
            random_state=0,
        )
        peers["tsbootstrap"] = "tsbootstrap"
    else:
        peers["tsbootstrap"] = NA(NOT_INSTALLED.format("tsbootstrap"))
    peers["loop"] = NA("—")
    row = Row(
        "callable_mean",
        _label(
            "np.mean, plain callable (vectorized=False): per-replicate overhead", n, B
        ),
        "skboot",
        peers,
        notes={
            "arch": "apply(np.mean)",
            "scipy": "vectorized=False",
            "tsbootstrap": "numpy, per-replicate callable",
        },
    )
    return Group("callable_mean", impls, [row], params={"n": n, "B": B})


# ---------------------------------------------------------------------------
# BCa interval
# ---------------------------------------------------------------------------
def group_bca(cfg: Config) -> Group:
    # quick: n=2,000, because scipy's jackknife is n x (n - 1)
    n, B = (2_000, 2_000) if cfg.quick else (10_000, 2_000)
    x = np.random.default_rng(12345).normal(size=n)
    sk, ab, sb, tsb = _skboot(), _arch(), _scipy_bootstrap(), _tsb()

    def sk_run() -> Any:
        res = sk.bootstrap(x, "mean", n_resamples=B, random_state=0)
        return res.confidence_interval(0.95, method="bca")

    impls: dict[str, Callable[[], Any]] = {"skboot": sk_run}
    peers: dict[str, str | NA] = {}
    if ab is not None:
        impls["arch"] = lambda: ab.IIDBootstrap(x, seed=0).conf_int(
            np.mean, B, method="bca"
        )
        peers["arch"] = "arch"
    else:
        peers["arch"] = NA(NOT_INSTALLED.format("arch"))
    batch = _scipy_batch(B, n)
    impls["scipy"] = lambda: sb(
        (x,),
        np.mean,
        n_resamples=B,
        vectorized=True,
        method="BCa",
        batch=batch,
        rng=np.random.default_rng(0),
    )
    peers["scipy"] = "scipy"
    if tsb is not None:
        from tsbootstrap.methods import IID

        impls["tsbootstrap"] = lambda: tsb.conf_int(
            x, "mean", method=IID(), kind="bca", n_bootstraps=B, random_state=0
        )
        peers["tsbootstrap"] = "tsbootstrap"
    else:
        peers["tsbootstrap"] = NA(NOT_INSTALLED.format("tsbootstrap"))
    peers["loop"] = NA("—")
    row = Row(
        "bca",
        _label("BCa interval of the mean", n, B),
        "skboot",
        peers,
        floors=[Floor("arch", 20, "issue 3")],
        notes={
            "arch": 'conf_int(method="bca")',
            "scipy": 'method="BCa", ' + _batch_note(batch),
            "tsbootstrap": 'conf_int(kind="bca"), numpy (compiled refuses BCa)',
        },
    )
    return Group("bca", impls, [row], params={"n": n, "B": B, "scipy_batch": batch})


# ---------------------------------------------------------------------------
# block bootstraps
# ---------------------------------------------------------------------------
_BLOCKS = {
    # name: (skboot class, arch class, tsbootstrap spec, tsbootstrap length kw)
    "block_moving": (
        "MovingBlockBootstrap",
        "MovingBlockBootstrap",
        "MovingBlock",
        "block_length",
    ),
    "block_circular": (
        "CircularBlockBootstrap",
        "CircularBlockBootstrap",
        "CircularBlock",
        "block_length",
    ),
    "block_stationary": (
        "StationaryBootstrap",
        "StationaryBootstrap",
        "StationaryBlock",
        "avg_block_length",
    ),
}


def _block_group(cfg: Config, name: str) -> Group:
    n, B = _sizes(cfg, 10_000, 2_000, 2_000)
    ell = 20
    sk_name, arch_name, tsb_name, tsb_kw = _BLOCKS[name]
    x = np.random.default_rng(12345).normal(size=n)
    sk, ab, tsb = _skboot(), _arch(), _tsb()
    impls: dict[str, Callable[[], Any]] = {}
    sk_cls = getattr(sk, sk_name, None)
    sk_cell: str | NA
    if sk_cls is not None:
        impls["skboot"] = lambda: sk.bootstrap(
            x,
            "mean",
            resampler=sk_cls(block_length=ell),
            n_resamples=B,
            random_state=0,
        )
        sk_cell = "skboot"
    else:
        sk_cell = NA("n/a (not available)")
    peers: dict[str, str | NA] = {}
    notes: dict[str, str] = {}
    extra: dict[str, tuple[str, str]] = {}
    if ab is not None:
        arch_cls = getattr(ab, arch_name)
        impls["arch"] = lambda: arch_cls(ell, x, seed=0).apply(np.mean, B)
        peers["arch"] = "arch"
        notes["arch"] = f"{arch_name}.apply"
    else:
        peers["arch"] = NA(NOT_INSTALLED.format("arch"))
    peers["scipy"] = NA("n/a: scipy.stats.bootstrap has no block resampling")
    spec = None
    if tsb is not None:
        import tsbootstrap.methods as tm

        spec = getattr(tm, tsb_name)(**{tsb_kw: ell})
    _add_tsb_compiled(
        cfg,
        tsb,
        x,
        lambda: spec,
        B,
        impls,
        peers,
        notes,
        extra,
        note_prefix=f"{tsb_name}, ",
    )
    peers["loop"] = NA("—")
    kind = name.split("_", 1)[1]
    row = Row(
        name,
        _label(f"{kind} block mean, length {ell}", n, B),
        sk_cell,
        peers,
        floors=[Floor("arch", 10, "issue 5"), Floor("tsbootstrap", 1.0, "issue 5")],
        notes=notes,
        extra=extra,
    )
    return Group(name, impls, [row], params={"n": n, "B": B, "block_length": ell})


def group_block_moving(cfg: Config) -> Group:
    return _block_group(cfg, "block_moving")


def group_block_circular(cfg: Config) -> Group:
    return _block_group(cfg, "block_circular")


def group_block_stationary(cfg: Config) -> Group:
    return _block_group(cfg, "block_stationary")


# ---------------------------------------------------------------------------
# ROC AUC interval
# ---------------------------------------------------------------------------
def group_roc_auc(cfg: Config) -> Group:
    n, B = _sizes(cfg, 5_000, 1_000, 200)
    rng = np.random.default_rng(12345)
    y = (rng.random(n) < 0.3).astype(np.int64)
    score = 0.8 * y + rng.normal(size=n)
    sk, ab, sb, tsb = _skboot(), _arch(), _scipy_bootstrap(), _tsb()
    from sklearn.metrics import roc_auc_score

    impls: dict[str, Callable[[], Any]] = {}
    metric_ci = getattr(sk, "metric_ci", None)
    sk_cell: str | NA
    if metric_ci is not None:
        impls["skboot"] = lambda: metric_ci(
            y, score, "roc_auc", n_resamples=B, random_state=0, method="percentile"
        )
        sk_cell = "skboot"
    else:
        sk_cell = NA("n/a (not available)")
    # the baseline: roc_auc_score on the same replicates skboot draws (the
    # Bootstrap stream), indices generated beforehand and not timed
    plan = sk.Bootstrap(n_resamples=B, random_state=0)
    indices = [train for train, _ in plan.split(y)]

    def loop() -> Any:
        vals = np.array([roc_auc_score(y[i], score[i]) for i in indices])
        return np.percentile(vals, [2.5, 97.5])

    impls["loop"] = loop
    params: dict[str, Any] = {"n": n, "B": B}
    if metric_ci is not None:
        # same replicates? replicate b is a pure function of (seed, b), so the
        # first 50 of a 50-replicate run are the loop's first 50
        head = metric_ci(
            y, score, "roc_auc", n_resamples=50, random_state=0, method="percentile"
        )
        dist = getattr(head, "distribution", None)
        if dist is not None:
            ref = np.array([roc_auc_score(y[i], score[i]) for i in indices[:50]])
            params["same_replicates_max_abs_diff"] = float(
                np.max(np.abs(np.asarray(dist, dtype=float) - ref))
            )
    peers: dict[str, str | NA] = {"loop": "loop"}
    if ab is not None:
        impls["arch"] = lambda: ab.IIDBootstrap(y, score, seed=0).conf_int(
            roc_auc_score, B, method="percentile"
        )
        peers["arch"] = "arch"
    else:
        peers["arch"] = NA(NOT_INSTALLED.format("arch"))
    impls["scipy"] = lambda: sb(
        (y, score),
        roc_auc_score,
        n_resamples=B,
        paired=True,
        vectorized=False,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    peers["scipy"] = "scipy"
    if tsb is not None:
        from tsbootstrap.methods import IID

        Y = np.column_stack([y, score]).astype(np.float64)

        def tsb_run() -> Any:
            res = tsb.bootstrap_reduce(
                Y,
                method=IID(),
                statistic=lambda v, i: roc_auc_score(v[:, 0], v[:, 1]),
                n_bootstraps=B,
                random_state=0,
            )
            return np.percentile(res.statistics, [2.5, 97.5])

        impls["tsbootstrap"] = tsb_run
        peers["tsbootstrap"] = "tsbootstrap"
    else:
        peers["tsbootstrap"] = NA(NOT_INSTALLED.format("tsbootstrap"))
    row = Row(
        "roc_auc",
        _label("ROC AUC percentile interval", n, B),
        sk_cell,
        peers,
        floors=[Floor("loop", 100, "issue 6")],
        notes={
            "loop": "sklearn roc_auc_score per replicate (indices pre-drawn)",
            "arch": 'IIDBootstrap(y, s).conf_int(roc_auc_score, method="percentile")',
            "scipy": "paired=True, vectorized=False",
            "tsbootstrap": "numpy, per-replicate callable on (n, 2)",
        },
    )
    return Group("roc_auc", impls, [row], params=params)


# ---------------------------------------------------------------------------
# accuracy and log_loss intervals (issue 6): metric_ci vs a loop over sklearn
# ---------------------------------------------------------------------------
def _metric_loop_group(cfg: Config, name: str, metric: str, min_ratio: float) -> Group:
    n, B = _sizes(cfg, 5_000, 1_000, 200)
    rng = np.random.default_rng(2024)
    y = (rng.random(n) < 0.4).astype(np.int64)
    proba = 1.0 / (1.0 + np.exp(-(1.5 * y - 0.75 + rng.normal(size=n))))
    sk = _skboot()
    from sklearn.metrics import accuracy_score, log_loss

    if metric == "accuracy":
        pred = (proba > 0.5).astype(np.int64)

        def sk_metric(i: np.ndarray) -> float:
            return float(accuracy_score(y[i], pred[i]))

        data = pred
    else:

        def sk_metric(i: np.ndarray) -> float:
            return float(log_loss(y[i], proba[i], labels=[0, 1]))

        data = proba
    impls: dict[str, Callable[[], Any]] = {}
    metric_ci = getattr(sk, "metric_ci", None)
    sk_cell: str | NA
    if metric_ci is not None:
        impls["skboot"] = lambda: metric_ci(
            y, data, metric, n_resamples=B, random_state=0, method="percentile"
        )
        sk_cell = "skboot"
    else:
        sk_cell = NA("n/a (not available)")
    indices = [
        train for train, _ in sk.Bootstrap(n_resamples=B, random_state=0).split(y)
    ]

    def loop() -> Any:
        vals = np.array([sk_metric(i) for i in indices])
        return np.percentile(vals, [2.5, 97.5])

    impls["loop"] = loop
    same = "a per-replicate sklearn call, as the loop"
    peers: dict[str, str | NA] = {
        "loop": "loop",
        "arch": NA(f"n/a: arch would be {same}"),
        "scipy": NA(f"n/a: scipy would be {same}"),
        "tsbootstrap": NA(f"n/a: tsbootstrap would be {same}"),
    }
    row = Row(
        name,
        _label(f"{metric} percentile interval", n, B),
        sk_cell,
        peers,
        floors=[Floor("loop", min_ratio, "issue 6")],
        notes={
            "loop": f"sklearn {metric} per replicate (indices pre-drawn, same replicates)"
        },
    )
    return Group(name, impls, [row], params={"n": n, "B": B})


def group_accuracy(cfg: Config) -> Group:
    return _metric_loop_group(cfg, "accuracy", "accuracy", 100)


def group_log_loss(cfg: Config) -> Group:
    return _metric_loop_group(cfg, "log_loss", "log_loss", 50)


GROUPS: dict[str, Callable[[Config], Group]] = {
    "iid_10k": group_iid_10k,
    "iid_small": group_iid_small,
    "iid_100k": group_iid_100k,
    "iid_1m": group_iid_1m,
    "colmeans_2d": group_colmeans_2d,
    "median": group_median,
    "callable_mean": group_callable_mean,
    "bca": group_bca,
    "block_moving": group_block_moving,
    "block_circular": group_block_circular,
    "block_stationary": group_block_stationary,
    "roc_auc": group_roc_auc,
    "accuracy": group_accuracy,
    "log_loss": group_log_loss,
}

# model-based bootstraps (issue 18): rows in their own module
from benchmarks.model_based import GROUPS as _MODEL_GROUPS  # noqa: E402

GROUPS.update(_MODEL_GROUPS)
# issue 17's rows (multiple comparisons) live in their own module
from benchmarks.multiple_comparison import GROUPS as _MULTIPLE_COMPARISON  # noqa: E402

GROUPS.update(_MULTIPLE_COMPARISON)
# the tests family (issue 16) adds its rows from its own module
from benchmarks.significance import GROUPS as _SIGNIFICANCE_GROUPS  # noqa: E402

GROUPS.update(_SIGNIFICANCE_GROUPS)
# issue 15's rows (every scheme and size on the fused path)
from benchmarks.fused import GROUPS as _FUSED_GROUPS  # noqa: E402

GROUPS.update(_FUSED_GROUPS)

from benchmarks.curves import GROUPS as _CURVE_GROUPS  # noqa: E402

GROUPS.update(_CURVE_GROUPS)
