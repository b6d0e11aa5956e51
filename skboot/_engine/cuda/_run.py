"""Which bootstraps run on a CUDA GPU, and the host side of running them.

``device_runner`` decides, before any work, whether a run goes to the GPU (and says
why not with ``device="cuda"``); the runner it returns has the signature of
:func:`skboot._engine.run_bootstrap` and returns the same ``(n_resamples, k)``
distribution.  On the device:

1. the data are centred once on the host (column means of the finite values;
   integer-valued data, whose sums are exact, are left as they are) and copied to
   the GPU once, with nothing else of size n;
2. one kernel launch per group of replicates computes, for every replicate (and
   column), the sums the statistic needs, drawing the replicate's rows or weights
   from the stream as it goes (:mod:`skboot._kernels.cuda.kernels`); only these sums, of
   size ``n_resamples x d``, come back;
3. the host turns the sums into the statistic with the CPU path's formulas.

A stationary replicate whose block length the device could not decide exactly (its
``log`` may differ from the CPU's by an ulp, which matters only within a few ulps of
an integer) is flagged and recomputed on the host from ``plan.indices(b)``, so the
replicates stay those of the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import (
    Progress,
    Statistic,
    moments_to_values,
)
from skboot._engine.cuda import _reference as ref
from skboot._engine.cuda._device import available, load_cuda, quiet, simulator
from skboot._kernels.cuda import constants as C
from skboot._random import STREAM_VERSION

__all__ = [
    "GPU_METRICS",
    "GPU_RESAMPLERS",
    "GPU_STATISTICS",
    "DeviceScheme",
    "device_runner",
    "no_kernel_error",
    "run_on_device",
    "scheme_of",
]

#: Built-in statistics with a GPU kernel (column-wise for 2-D data).
GPU_STATISTICS = ("corr", "mean", "proportion", "std", "sum", "var")
#: Resamplers whose replicates the GPU kernels generate.
GPU_RESAMPLERS = (
    "BayesianBootstrap",
    "Bootstrap",
    "CircularBlockBootstrap",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "PoissonBootstrap",
    "StationaryBootstrap",
)
#: metric_ci metrics with a GPU kernel (the means of a per-row value).
GPU_METRICS = (
    "accuracy",
    "brier_score",
    "log_loss",
    "mean_absolute_error",
    "mean_squared_error",
    "root_mean_squared_error",
)

#: A stationary block length ``1 + floor(g)`` is recomputed on the host when ``g``
#: lies within this relative distance of an integer: the device's ``log`` is
#: within 1 ulp of the exact value (CUDA's documented bound), so
#: the device and the CPU can round ``g`` differently only there.
AMBIGUITY = 16 * 2.0**-52
#: Threads per block of every launch (results never depend on it).
THREADS_PER_BLOCK = 128
#: Aim for at least this many threads per launch (an H200 holds 270,336).
_MIN_ITEMS = 1 << 17
#: And at most this many draws per launch (about a second on a current GPU).
_MAX_DRAWS = 1 << 36


_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@dataclass(frozen=True)
class DeviceScheme:
    """A plan's replicates in the terms of the kernels.

    ``kind`` is "index" (rows drawn: iid, fixed blocks, stationary blocks) or
    "weight" (a weight per row: Poisson, Dirichlet); ``code`` the kernels' scheme
    constant; ``n`` the rows of the data; ``m`` the rows per index replicate; ``un_draw``/``thresh`` the range
    of the bounded draws (rows, or block starts) and its Lemire threshold.
    """

    kind: str
    code: int
    n: int
    seed: np.uint64
    gamma: np.uint64
    seed_l: np.uint64 = _ZERO
    m: int = 0
    un_draw: np.uint64 = _ONE
    thresh: np.uint64 = _ZERO
    L: int = 1
    stride: int = 1
    log_q: float = 0.0

    @property
    def draws(self) -> int:
        """Rows read per replicate and column."""
        return self.m if self.kind == "index" else self.n


def _threshold(k: int) -> np.uint64:
    """Lemire's rejection threshold ``2**w mod k`` (w = 32 below 2**32, else 64),
    as :func:`skboot._random.lemire_threshold`."""
    w = 32 if k < 2**32 else 64
    return np.uint64((2**w - k) % k)


def scheme_of(plan: Any) -> DeviceScheme | None:
    """The kernels' description of ``plan`` (from its :meth:`stream_scheme`), or
    None if no kernel generates it."""
    s = plan.stream_scheme()
    if s is None:
        return None
    n = int(plan.n_samples)
    if s.kind == "iid":
        return DeviceScheme(
            "index",
            C.IID,
            n,
            s.seed,
            s.gamma,
            m=int(s.m),
            un_draw=np.uint64(s.n_draw),
            thresh=_threshold(int(s.n_draw)),
        )
    if s.kind == "fixed_blocks":
        return DeviceScheme(
            "index",
            C.FIXED_BLOCKS,
            n,
            s.seed,
            s.gamma,
            m=n,
            un_draw=np.uint64(s.n_draw),
            thresh=_threshold(int(s.n_draw)),
            L=int(s.block_length),
            stride=int(s.stride),
        )
    if s.kind == "stationary":
        return DeviceScheme(
            "index",
            C.STATIONARY,
            n,
            s.seed,
            s.gamma,
            seed_l=s.seed_lengths,
            m=n,
            un_draw=np.uint64(s.n_draw),
            thresh=_threshold(int(s.n_draw)),
            log_q=float(s.log_q),
        )
    codes = {"poisson": C.POISSON, "dirichlet": C.DIRICHLET}
    if s.kind in codes:
        return DeviceScheme("weight", codes[s.kind], n, s.seed, s.gamma)
    return None


# ---------------------------------------------------------------------------
# what runs where
# ---------------------------------------------------------------------------
def _metric_values(stat: Any) -> tuple[list[np.ndarray], bool, float] | None:
    """For a statistic that is a (root) mean of per-row values (mean-type fused
    metrics without sample weights): those values (one array, two for a paired
    difference), whether it is a root mean, and its sign.  None otherwise."""
    return stat.mean_values()


def _statistic_problem(statistic: Any) -> str:
    """ "" when the statistic has a GPU kernel, else what it is."""
    if isinstance(statistic, str):
        return "" if statistic in GPU_STATISTICS else f"the statistic {statistic!r}"
    if isinstance(statistic, Statistic) and statistic.builtin_name is not None:
        ok = statistic.builtin_name in GPU_STATISTICS
        return "" if ok else f"the statistic {statistic.builtin_name!r}"
    if isinstance(statistic, Statistic):
        if _metric_values(statistic) is not None:
            return ""
        name = getattr(statistic, "name", type(statistic).__name__)
        return f"the statistic {name!r} (a {type(statistic).__name__})"
    return "a callable statistic"


def _scheme_problem(plan: Any, resampler: Any) -> str:
    if scheme_of(plan) is not None:
        return ""
    name = type(resampler).__name__
    if name in GPU_RESAMPLERS:
        return f"{name} with a {type(plan).__name__} (independent samples)"
    return f"the resampler {name}"


def _what_runs() -> str:
    return (
        "the GPU runs the built-in statistics {"
        + ", ".join(repr(s) for s in GPU_STATISTICS)
        + "} (and metric_ci's mean-type metrics {"
        + ", ".join(repr(s) for s in GPU_METRICS)
        + "} without sample_weight) with the resamplers {"
        + ", ".join(GPU_RESAMPLERS)
        + "}"
    )


def no_kernel_error(what: str, owner: str) -> ValueError:
    """The error of ``device="cuda"`` for ``what``, which has no GPU kernel: it
    lists what runs on the GPU."""
    return ValueError(
        f"device='cuda' of {owner} has no GPU kernel for {what}: {_what_runs()}. "
        "Use device='cpu', or device='auto' to fall back to the CPU."
    )


def device_runner(
    device: str, statistic: Any, plan: Any, resampler: Any, owner: str
) -> Callable[..., np.ndarray] | None:
    """The GPU runner for this run, or None to run on the CPU.

    ``device`` was validated by :func:`skboot._engine.cuda.check_device`.  "cpu" gives None;
    "auto" gives None when no GPU is usable or the statistic or resampler has no
    kernel; "cuda" raises a ValueError naming what has no kernel and listing what
    does.  ``statistic`` is the user's argument (a name, a callable or a
    Statistic); checked before the statistic is built.
    """
    if device == "cpu":
        return None
    problems = [
        p
        for p in (_statistic_problem(statistic), _scheme_problem(plan, resampler))
        if p
    ]
    if device == "auto" and (problems or not available()):
        return None
    if problems:
        raise no_kernel_error(" and ".join(problems), owner)

    def runner(
        stat: Statistic,
        plan: Any,
        n_resamples: int,
        *,
        n_jobs: Any = None,
        chunk_size: int | None = None,
        progress: bool = False,
    ) -> np.ndarray:
        return run_on_device(
            stat,
            plan,
            n_resamples,
            chunk_size=chunk_size,
            progress=progress,
            owner=owner,
        )

    return runner


# ---------------------------------------------------------------------------
# the host side of a device run
# ---------------------------------------------------------------------------
def _centred(X: np.ndarray, exact_bound: float) -> tuple[np.ndarray, np.ndarray]:
    """``(X - c, c)`` with ``c`` the column means of the finite values (0 for a
    column without any), or ``(X, 0)`` when every value is an integer and every
    replicate sum stays below ``2**53`` in magnitude (``exact_bound`` bounds the
    total weight of a replicate): such sums are exact as they are."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    d = X.shape[1]
    integers = X.size > 0 and bool(np.all(np.round(X) == X))
    if integers and exact_bound * float(np.abs(X).max()) < 2.0**53:
        return X, np.zeros(d)
    finite = np.isfinite(X)
    count = finite.sum(axis=0)
    total = np.where(finite, X, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.where(count > 0, total / np.maximum(count, 1), 0.0)
    return np.ascontiguousarray(X - shift), shift


class _Launcher:
    """Kernel launches over replicate groups, and the launch configuration."""

    def __init__(
        self,
        cuda: Any,
        scheme: DeviceScheme,
        n_resamples: int,
        per_item: int,
        chunk_size: int | None,
        progress: bool,
        threads_per_block: int | None,
        blocks: int | None,
    ) -> None:
        self.cuda = cuda
        self.scheme = scheme
        self.B = n_resamples
        self.tpb = threads_per_block or (32 if simulator() else THREADS_PER_BLOCK)
        self.blocks = blocks
        draws = max(1, scheme.draws) * per_item
        auto = max(-(-_MIN_ITEMS // per_item), _MAX_DRAWS // draws)
        self.chunk = int(max(1, min(n_resamples, chunk_size or auto)))
        self.bar = Progress(n_resamples) if progress else None

    def groups(self):
        for b0 in range(0, self.B, self.chunk):
            nb = min(self.chunk, self.B - b0)
            yield b0, nb
            if self.bar is not None:
                self.bar.update(nb)

    def config(self, items: int) -> tuple[int, int]:
        grid = self.blocks or max(1, min(-(-items // self.tpb), 65535))
        return grid, self.tpb


def run_on_device(
    stat: Statistic,
    plan: Any,
    n_resamples: int,
    *,
    chunk_size: int | None = None,
    progress: bool = False,
    owner: str = "bootstrap",
    threads_per_block: int | None = None,
    blocks: int | None = None,
) -> np.ndarray:
    """The bootstrap distribution ``(n_resamples, k)`` of ``stat`` computed on the
    GPU; the same replicates as :func:`skboot._engine.run_bootstrap`.

    ``chunk_size`` is the number of replicates per kernel launch (default: enough
    to fill the device, at most about 2**36 draws); ``threads_per_block`` and
    ``blocks`` set the launch (default: 128 threads, one thread per item).  None
    of the three changes a result.
    """
    cuda = load_cuda(owner)
    if STREAM_VERSION != C.IMPLEMENTS_STREAM:
        raise RuntimeError(
            f"The CUDA kernels implement stream version {C.IMPLEMENTS_STREAM}, but "
            f"skboot's stream is version {STREAM_VERSION}: use device='cpu'."
        )
    scheme = scheme_of(plan)
    if scheme is None:
        raise no_kernel_error(f"the plan {type(plan).__name__}", owner)
    opts = (n_resamples, chunk_size, progress, threads_per_block, blocks)
    if stat.builtin_name in GPU_STATISTICS:
        if stat.name == "corr":
            return _run_corr(cuda, stat.arrays[0], scheme, plan, opts)[:, None]
        return _run_builtin(cuda, stat, scheme, plan, opts)
    spec = _metric_values(stat)
    if spec is None:
        raise no_kernel_error(_statistic_problem(stat), owner)
    return _run_metric(cuda, spec, scheme, plan, opts)


def _moments(
    cuda: Any,
    X: np.ndarray,
    scheme: DeviceScheme,
    plan: Any,
    want2: bool,
    opts: tuple,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per replicate and column: ``sum w x``, ``sum w x**2`` (when ``want2``) and
    ``sum w`` of the (centred) data ``X`` (n, d), by the kernels' rule."""
    n_resamples, chunk_size, progress, tpb, blocks = opts
    d = X.shape[1]
    run = _Launcher(cuda, scheme, n_resamples, d, chunk_size, progress, tpb, blocks)
    Xd = cuda.to_device(np.ascontiguousarray(X).reshape(-1))
    S1 = np.empty((n_resamples, d))
    S2 = np.empty((n_resamples, d))
    SW = np.empty((n_resamples, d))
    s = scheme
    for b0, nb in run.groups():
        with quiet():
            S1[b0 : b0 + nb], S2[b0 : b0 + nb], SW[b0 : b0 + nb], flags = (
                _moments_group(cuda, Xd, d, s, b0, nb, want2, run)
            )
        for k in np.flatnonzero(flags):
            b = b0 + int(k)
            S1[b], S2[b] = ref.index_sums(X, plan.indices(b), want2)
    return S1, S2, SW


def _moments_group(cuda, Xd, d, s, b0, nb, want2, run):
    """One launch of the moments kernels, replicates ``b0 .. b0 + nb - 1``:
    ``(S1, S2, SW, flags)`` with the sums shaped (nb, d)."""
    from skboot._kernels.cuda import kernels as K

    items = nb * d
    o1 = cuda.device_array(items)
    o2 = cuda.device_array(items)
    grid, threads = run.config(items)
    if s.kind == "index":
        fl = cuda.device_array(nb, dtype=np.int64)
        K.index_moments[grid, threads](
            Xd,
            np.int64(d),
            np.int64(s.code),
            s.seed,
            s.seed_l,
            s.gamma,
            np.uint64(b0),
            np.int64(s.m),
            s.un_draw,
            s.thresh,
            np.int64(s.L),
            np.int64(s.stride),
            np.float64(s.log_q),
            np.float64(AMBIGUITY),
            np.bool_(want2),
            o1,
            o2,
            fl,
        )
        SW = np.full((nb, d), float(s.m))
        flags = fl.copy_to_host()
    else:
        ow = cuda.device_array(items)
        K.weight_moments[grid, threads](
            Xd,
            np.int64(d),
            np.int64(s.code),
            s.seed,
            s.gamma,
            np.uint64(b0),
            np.bool_(want2),
            o1,
            o2,
            ow,
        )
        SW = ow.copy_to_host().reshape(nb, d)
        flags = np.zeros(nb, dtype=np.int64)
    S1 = o1.copy_to_host().reshape(nb, d)
    S2 = o2.copy_to_host().reshape(nb, d)
    return S1, S2, SW, flags


def _exact_bound(scheme: DeviceScheme, n: int) -> float:
    """A bound on the total weight of a replicate, for :func:`_centred`; inf when
    weights are not integers (Dirichlet: products are rounded, centre)."""
    if scheme.kind == "index":
        return float(scheme.m)
    return 20.0 * n if scheme.code == C.POISSON else math.inf


def _run_builtin(cuda, stat, scheme, plan, opts) -> np.ndarray:
    X0 = stat.arrays[0]
    base0 = stat.shift if stat.shift.shape[0] == X0.shape[1] else np.zeros(X0.shape[1])
    X, shift = _centred(X0, _exact_bound(scheme, X0.shape[0]))
    base = base0 + shift
    name = stat.name
    want2 = name in ("var", "std")
    S1, S2, SW = _moments(cuda, X, scheme, plan, want2, opts)
    # the CPU path's formulas (sum = S1 + SW * base, mean = sum / SW, ...), so
    # integer-valued data give numpy's mean exactly and empty replicates are NaN
    return moments_to_values(name, S1, S2, SW, base, stat.ddof)


def _run_metric(cuda, spec, scheme, plan, opts) -> np.ndarray:
    values, rms, sign = spec
    V0 = np.column_stack([np.asarray(v, dtype=np.float64) for v in values])
    V, base = _centred(V0, _exact_bound(scheme, V0.shape[0]))
    S1, _, SW = _moments(cuda, V, scheme, plan, False, opts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = base + S1 / SW
    if rms:
        means = np.sqrt(np.maximum(means, 0.0))
    value = means[:, 0] - means[:, 1] if means.shape[1] == 2 else means[:, 0]
    return (sign * value)[:, None]


def _run_corr(cuda, XY0, scheme, plan, opts) -> np.ndarray:
    """Pearson correlation of the two columns of ``XY0`` per replicate."""
    n_resamples, chunk_size, progress, tpb, blocks = opts
    XY, _ = _centred(XY0, 0.0)
    run = _Launcher(cuda, scheme, n_resamples, 1, chunk_size, progress, tpb, blocks)
    XYd = cuda.to_device(XY.reshape(-1))
    sums = np.empty((n_resamples, 6))
    s = scheme
    for b0, nb in run.groups():
        sums[b0 : b0 + nb], flags = _corr_group(cuda, XYd, s, b0, nb, run)
        for k in np.flatnonzero(flags):
            b = b0 + int(k)
            sums[b] = ref.corr_sums(XY, plan.indices(b), None)
    sx, sy, sxx, syy, sxy, sw = sums.T
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / sw
        den = np.sqrt((sxx - sx * sx / sw) * (syy - sy * sy / sw))
        return cov / den


def _corr_group(cuda, XYd, s, b0, nb, run):
    """One launch of the corr kernels: the six sums (nb, 6) and the flags."""
    from skboot._kernels.cuda import kernels as K

    out = cuda.device_array((nb, 6))
    grid, threads = run.config(nb)
    with quiet():
        if s.kind == "index":
            fl = cuda.device_array(nb, dtype=np.int64)
            K.index_corr[grid, threads](
                XYd,
                np.int64(s.code),
                s.seed,
                s.seed_l,
                s.gamma,
                np.uint64(b0),
                np.int64(s.m),
                s.un_draw,
                s.thresh,
                np.int64(s.L),
                np.int64(s.stride),
                np.float64(s.log_q),
                np.float64(AMBIGUITY),
                out,
                fl,
            )
            flags = fl.copy_to_host()
        else:
            K.weight_corr[grid, threads](
                XYd, np.int64(s.code), s.seed, s.gamma, np.uint64(b0), out
            )
            flags = np.zeros(nb, dtype=np.int64)
    return out.copy_to_host(), flags
