"""Chunk planning and joblib dispatch: the replicate range becomes joblib tasks, a
task becomes cache-sized chunks, and a chunk is one call of the statistic.

1. ``[0, B)`` is cut into joblib tasks (several per worker, deterministic
   boundaries); each task receives the data as top-level arguments (so loky
   memory-maps it and Dask scatters it) plus the small plan;
2. inside a task, replicates are processed in chunks whose working set fits the
   per-core cache budget; buffers are allocated once per task and reused;
3. each replicate is computed by the same code whatever chunk or task it falls
   in, so chunk size, ``n_jobs`` and backend never change a bit of the result.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from typing import Any

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from skboot._engine._progress import Progress
from skboot._engine._statistic import FAILURES, Failure, Statistic
from skboot.resamplers import ResamplingPlan

__all__ = [
    "MAX_CHUNK_DRAWS",
    "MIN_PARALLEL_DRAWS",
    "Progress",
    "cache_budget",
    "chunk_size_for",
    "detach_plan",
    "lanes_round",
    "plan_tasks",
    "run_bootstrap",
]

_FALLBACK_BUDGET = 1 << 20

#: At most this many draws per chunk (per kernel call) when the chunk size is
#: automatic.  The fused kernels need no per-replicate working set, so the cache
#: budget alone allowed 4096 replicates of any size in one numba call, which
#: Ctrl-C cannot interrupt (17 s at n = 10**6).  2**25 draws (rows, or blocks for
#: the prefix-sum block kernels) take 0.02-0.2 s.  Never changes results, only how
#: often Python regains control (Ctrl-C, progress bar).
MAX_CHUNK_DRAWS = 1 << 25


@functools.lru_cache(maxsize=1)
def cache_budget() -> int:
    """Per-core working-set budget in bytes: the L2 size from sysfs, else 1 MiB."""
    env = os.environ.get("SKBOOT_CACHE_BYTES")
    if env:
        return max(4096, int(env))
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            with open(os.path.join(base, entry, "level")) as fh:
                level = fh.read().strip()
            with open(os.path.join(base, entry, "type")) as fh:
                kind = fh.read().strip()
            if level == "2" and kind in ("Unified", "Data"):
                with open(os.path.join(base, entry, "size")) as fh:
                    text = fh.read().strip().upper()
                mult = {"K": 1 << 10, "M": 1 << 20}.get(text[-1], 1)
                return int(text.rstrip("KM")) * mult
    except (OSError, ValueError):
        pass
    return _FALLBACK_BUDGET


def chunk_size_for(
    stat: Statistic, plan: ResamplingPlan, chunk_size: int | None
) -> int:
    if chunk_size is not None:
        return chunk_size
    per = max(1, stat.bytes_per_replicate(plan))
    chunk = min(1 << 16, cache_budget() // per)
    # A fused kernel call cannot be interrupted (Ctrl-C is seen between chunks):
    # keep every call to at most MAX_CHUNK_DRAWS draws.
    chunk = min(chunk, MAX_CHUNK_DRAWS // max(1, stat.draws_per_replicate(plan)))
    # A kernel that serves several replicates per pass over the rows gets whole
    # groups of them, even when that passes the draw limit: at n = 10**7 a
    # chunk of 3 Poisson replicates costs 2.5x a chunk of 8 per draw.
    lanes = stat.replicate_lanes(plan)
    if lanes > 1:
        chunk = max(lanes, chunk - chunk % lanes)
    return int(max(1, lanes_round(chunk, plan.replicate_lanes)))


def lanes_round(chunk: int, lanes: int) -> int:
    """``chunk`` rounded down to a multiple of ``lanes`` when it holds one or
    more groups of them: a plan whose kernel generates ``lanes`` replicates
    side by side wastes the rest of a partial group (a chunk of 65 replicates
    of eight lanes runs nine groups)."""
    return chunk - chunk % lanes if chunk >= lanes else chunk


def detach_plan(plan: ResamplingPlan) -> tuple[ResamplingPlan, tuple[str, ...], list]:
    """Move a plan's large array fields out of it, so that joblib ships them as
    top-level arguments (memory-mapped by loky, scattered once by Dask) instead of
    pickling them inside the plan with every task."""
    names: list[str] = []
    values: list[np.ndarray] = []
    for f in dataclasses.fields(plan):
        value = getattr(plan, f.name)
        if f.init and isinstance(value, np.ndarray) and value.nbytes > 1024:
            names.append(f.name)
            values.append(value)
    if not names:
        return plan, (), []
    blanks: dict[str, Any] = dict.fromkeys(names)
    skeleton = dataclasses.replace(plan, **blanks)
    return skeleton, tuple(names), values


def _run_range(
    stat: Statistic,
    plan: ResamplingPlan,
    b0: int,
    b1: int,
    chunk: int,
    n_data: int,
    plan_fields: tuple[str, ...],
    *arrays: np.ndarray,
    progress: Progress | None = None,
    record: bool = False,
) -> Any:
    """Replicates ``[b0, b1)`` in chunks of ``chunk``; returns (b1 - b0, k).

    ``arrays`` holds the statistic's ``n_data`` arrays followed by the plan's
    detached array fields named in ``plan_fields``.  With ``record``, replicates
    whose callable raised are NaN and listed: returns ``(values, failures)``.
    """
    data = arrays[:n_data]
    if plan_fields:
        fields: dict[str, Any] = dict(zip(plan_fields, arrays[n_data:], strict=True))
        plan = dataclasses.replace(plan, **fields)
    out = np.empty((b1 - b0, stat.k))
    scratch: dict[str, Any] = {}
    failures: list[Failure] = []
    if record:
        scratch[FAILURES] = failures
    for start in range(b0, b1, chunk):
        stop = min(b1, start + chunk)
        stat.run_chunk(data, plan, start, out[start - b0 : stop - b0], scratch)
        if progress is not None:
            progress.update(stop - start)
    return (out, failures) if record else out


#: Below this many expected draws a fused built-in runs in-process even when
#: ``n_jobs > 1``: dispatch would cost more than the work (loky ~11 ms per call,
#: Dask ~30 ms).  Never changes results.
MIN_PARALLEL_DRAWS = 4_000_000


def plan_tasks(n_resamples: int, n_workers: int) -> np.ndarray:
    """Task boundaries: four tasks per worker (load balancing), deterministic.

    Boundaries only decide which worker computes a replicate, never its value.
    """
    n_tasks = int(min(n_resamples, 4 * n_workers))
    return np.linspace(0, n_resamples, n_tasks + 1).round().astype(np.int64)


def run_bootstrap(
    stat: Statistic,
    plan: ResamplingPlan,
    n_resamples: int,
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    progress: bool = False,
    progress_label: str = "replicates",
    failures: list[Failure] | None = None,
) -> np.ndarray:
    """The bootstrap distribution, shape (n_resamples, k).

    ``n_jobs`` and any ``joblib.parallel_config`` the caller set decide the backend
    (loky, threading, Dask, ...); nothing here names a backend.  ``progress``
    shows a bar counting ``progress_label``.  With a ``failures`` list, a
    replicate on which the user's callable raises is NaN and appended to it
    (in replicate order) instead of ending the run.
    """
    record = failures is not None
    chunk = chunk_size_for(stat, plan, chunk_size)
    n_workers = effective_n_jobs(n_jobs)
    data = stat.arrays
    light = stat.without_arrays()
    small = stat.fused and n_resamples * max(1, plan.replicate_size) < (
        MIN_PARALLEL_DRAWS
    )
    bar = Progress(n_resamples, label=progress_label) if progress else None
    if n_workers == 1 or n_resamples < 2 or small:
        whole = _run_range(
            light,
            plan,
            0,
            n_resamples,
            chunk,
            len(data),
            (),
            *data,
            progress=bar,
            record=record,
        )
        return _collect([whole], failures)
    skeleton, names, plan_arrays = detach_plan(plan)
    bounds = plan_tasks(n_resamples, n_workers)
    tasks = (
        delayed(_run_range)(
            light,
            skeleton,
            int(lo),
            int(hi),
            chunk,
            len(data),
            names,
            *data,
            *plan_arrays,
            record=record,
        )
        for lo, hi in itertools.pairwise(bounds)
        if hi > lo
    )
    # Fused kernels release the GIL: threads share the data and the compiled
    # kernels, so no worker start, no transfer, no per-process JIT cache load
    # (docs/scaling.md).  A soft hint: a backend set with joblib.parallel_config
    # (loky, Dask, ...) still wins.
    prefer = "threads" if stat.fused else None
    if bar is None:
        parts = Parallel(n_jobs=n_jobs, prefer=prefer)(tasks)
    else:
        parts = []
        gen = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")
        for part in gen(tasks):
            parts.append(part)
            bar.update((part[0] if record else part).shape[0])
    return _collect(parts, failures)


def _collect(parts: list[Any], failures: list[Failure] | None) -> np.ndarray:
    """The tasks' values in replicate order; with a ``failures`` list, the
    tasks' failures appended to it, in replicate order too."""
    if failures is None:
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    for _, found in parts:
        failures.extend(found)
    failures.sort(key=lambda f: f.replicate)
    values = [values for values, _ in parts]
    return values[0] if len(values) == 1 else np.concatenate(values, axis=0)
