"""User callables as engine statistics: vectorized (one call per chunk on a reused
batch) or plain (one call per replicate on a reused buffer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from skboot._engine._statistic import (
    FAILED,
    Statistic,
    as_output,
    call_replicate,
    call_user,
)
from skboot._kernels.iid import gather_iid_rows, take_rows
from skboot.resamplers import ResamplingPlan

__all__ = ["CallableStatistic"]


@dataclass
class CallableStatistic(Statistic):
    """A user callable, vectorized (``axis=-1``) or plain (one replicate per call).

    Vectorized convention: every array is given with observations on the last
    axis and a leading batch axis: a 1-D array as (nb, m), a 2-D (n, d) array as
    (nb, d, m); the callable returns (nb,) or (nb, k).  Plain convention: the rows of
    one replicate, (m,) or (m, d); returns a scalar or (k,).
    """

    jackknife_by_engine: ClassVar[bool] = True
    func: Callable[..., Any] = np.mean
    vectorized: bool = False
    weights_kw: str | None = None
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"

    def _vector_views(self, arrays):
        return [a if a.ndim == 1 else a.T for a in arrays]

    def estimate(self) -> np.ndarray:
        kw: dict[str, Any] = {}
        if self.weights_kw is not None:  # the original data: every weight 1
            kw[self.weights_kw] = np.ones(self.arrays[0].shape[0])
        if self.vectorized:
            kw["axis"] = -1
            args = tuple(self._vector_views(self.arrays))
        else:
            args = self.arrays
        value = call_user(self.func, args, kw)
        return as_output(value, None, "the original data")

    def subset(self, rows: np.ndarray) -> Statistic:
        return CallableStatistic(
            func=self.func,
            vectorized=self.vectorized,
            weights_kw=self.weights_kw,
            k=self.k,
            arrays=tuple(np.take(a, rows, axis=0) for a in self.arrays),
        )

    def with_arrays(self, arrays: tuple[np.ndarray, ...]) -> Statistic:
        return CallableStatistic(
            func=self.func,
            vectorized=self.vectorized,
            weights_kw=self.weights_kw,
            k=self.k,
            arrays=tuple(arrays),
        )

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        row = sum(a.itemsize * (a.size // max(1, a.shape[0])) for a in self.arrays)
        return plan.replicate_size * (8 + row)

    def _call_one(self, b: int, scratch: dict[str, Any], *args, **kw) -> np.ndarray:
        """The statistic on replicate ``b`` (:func:`call_replicate`), checked;
        NaN when it raised and the run records failed replicates."""
        hint = (
            f" Regenerate the replicate with resampler.fit(X).replicate({b}).indices."
        )
        value = call_replicate(self.func, args, kw, b=b, scratch=scratch, hint=hint)
        if value is FAILED:
            return np.full(self.k, np.nan)
        return as_output(value, self.k, f"replicate {b}", b)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        if plan.layout == "weights":
            self._chunk_weights(arrays, plan, b0, out, scratch)
        elif plan.layout == "variable":
            self._chunk_variable(arrays, plan, b0, out, scratch)
        else:
            # one plan per array: paired arrays share one, independent samples
            # have one each
            plans = plan.sample_plans or (plan,) * len(arrays)
            chunk = _IndexChunks(plans, b0, out.shape[0], scratch)
            if self.vectorized:
                self._chunk_vectorized(arrays, chunk, b0, out, scratch)
            else:
                self._chunk_plain(arrays, chunk, b0, out, scratch)

    def _chunk_weights(self, arrays, plan, b0, out, scratch) -> None:
        """Continuous weights: the statistic gets each replicate's weight row."""
        nb = out.shape[0]
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
        plan.fill_weights_chunk(b0, W[:nb])
        views = self._vector_views(arrays) if self.vectorized else arrays
        extra: dict[str, Any] = {"axis": -1} if self.vectorized else {}
        wkw = str(self.weights_kw)
        for k in range(nb):
            kw: dict[str, Any] = {wkw: W[k], **extra}
            out[k] = self._call_one(b0 + k, scratch, *views, **kw)

    def _chunk_variable(self, arrays, plan, b0, out, scratch) -> None:
        """Replicates of varying size: gathered one at a time."""
        for k in range(out.shape[0]):
            idx = plan.indices(b0 + k)
            if self.vectorized:
                views = [np.take(a, idx, axis=0).T for a in arrays]
                out[k] = self._call_one(b0 + k, scratch, *views, axis=-1)
            else:
                rows = [np.take(a, idx, axis=0) for a in arrays]
                out[k] = self._call_one(b0 + k, scratch, *rows)

    def _chunk_vectorized(self, arrays, chunk, b0, out, scratch) -> None:
        """One call on the chunk's gathered batch; on failure, replicate by
        replicate to name the one that fails."""
        nb = out.shape[0]
        batches = [
            self._batch(a, j, chunk, b0, nb, scratch) for j, a in enumerate(arrays)
        ]
        try:
            value = self.func(*batches, axis=-1)
            arr = np.asarray(value, dtype=np.float64)
            if self.k == 1:
                ok = arr.shape in ((nb,), (nb, 1))
            else:
                ok = arr.shape == (nb, self.k)
        except Exception:
            ok = False
        if ok:
            out[:, :] = arr.reshape(nb, self.k)
            return
        for k in range(nb):
            one = [bt[k] for bt in batches]
            out[k] = self._call_one(b0 + k, scratch, *one, axis=-1)

    def _batch(self, a, j, chunk, b0, nb, scratch) -> np.ndarray:
        """Array ``j`` of the chunk's replicates, observations last: (nb, m) or
        (nb, d, m), in a buffer reused across chunks."""
        m = chunk.plans[j].replicate_size
        key = f"vb{j}"
        buf = scratch.get(key)
        if a.ndim == 1:
            if buf is None or buf.shape[0] < nb:
                buf = scratch[key] = np.empty((nb, m), dtype=a.dtype)
            v = buf[:nb]
            if _gatherable(a):
                _gather(a, chunk, j, b0, v)
            else:
                np.take(a, chunk.indices(j), out=v)
            return v
        aT = scratch.get(f"T{j}")
        if aT is None:
            aT = scratch[f"T{j}"] = np.ascontiguousarray(a.T)
        if buf is None or buf.shape[1] < nb:
            buf = scratch[key] = np.empty((a.shape[1], nb, m), dtype=a.dtype)
        v = buf[:, :nb]
        np.take(aT, chunk.indices(j), axis=1, out=v)
        return v.transpose(1, 0, 2)

    def _chunk_plain(self, arrays, chunk, b0, out, scratch) -> None:
        """One call per replicate: float64 arrays are gathered for the whole chunk
        in one numba call (the statistic gets row k of the chunk buffer); other
        dtypes are taken replicate by replicate into a reused buffer."""
        nb = out.shape[0]
        chunks: list[np.ndarray | None] = []
        bufs: list[np.ndarray | None] = []
        for j, a in enumerate(arrays):
            m = chunk.plans[j].replicate_size
            if _gatherable(a):
                g = scratch.get(f"g{j}")
                if g is None or g.shape[0] < nb:
                    g = scratch[f"g{j}"] = np.empty((nb, m, *a.shape[1:]))
                g = g[:nb]
                _gather(a, chunk, j, b0, g)
                chunks.append(g)
                bufs.append(None)
            else:
                buf = scratch.get(f"pb{j}")
                if buf is None:
                    buf = scratch[f"pb{j}"] = np.empty((m, *a.shape[1:]), a.dtype)
                chunks.append(None)
                bufs.append(buf)
        for k in range(nb):
            args = []
            for j, a in enumerate(arrays):
                c = chunks[j]
                if c is not None:
                    args.append(c[k])
                else:
                    buf = bufs[j]
                    np.take(a, chunk.indices(j)[k], axis=0, out=buf)
                    args.append(buf)
            out[k] = self._call_one(b0 + k, scratch, *args)


class _IndexChunks:
    """The index chunk of each array's plan, generated once per plan and chunk
    into buffers reused across chunks."""

    def __init__(self, plans, b0: int, nb: int, scratch: dict[str, Any]) -> None:
        self.plans = plans
        self.b0 = b0
        self.nb = nb
        self.scratch = scratch
        self._done: dict[int, np.ndarray] = {}

    def indices(self, j: int) -> np.ndarray:
        p = self.plans[j]
        if id(p) not in self._done:
            key = f"idx{j}"
            idx = self.scratch.get(key)
            if idx is None or idx.shape[0] < self.nb:
                idx = self.scratch[key] = np.empty(
                    (self.nb, p.replicate_size), dtype=p.index_dtype
                )
            idx = idx[: self.nb]
            p.fill_indices_chunk(self.b0, idx)
            self._done[id(p)] = idx
        return self._done[id(p)]


def _gather(a: np.ndarray, chunk: _IndexChunks, j: int, b0: int, out: np.ndarray):
    """Fill ``out`` (nb, m[, d]) with the replicate rows of ``a`` (see
    :func:`_gatherable`) in one numba call: straight from the stream for iid
    plans, from the plan's index chunk otherwise."""
    a2 = a.reshape(a.shape[0], -1)
    o3 = out.reshape(out.shape[0], out.shape[1], a2.shape[1])
    scheme = chunk.plans[j].stream_scheme()
    if scheme is not None and scheme.kind == "iid":
        gather_iid_rows(a2, scheme.seed, scheme.gamma, b0, scheme.m, o3)
    else:
        take_rows(a2, chunk.indices(j), o3)


def _gatherable(a: np.ndarray) -> bool:
    """Arrays the numba row gather handles: C-contiguous float64, 1-D or 2-D, rows
    not empty.  Everything else goes through ``np.take`` (same values)."""
    return (
        a.dtype == np.float64
        and a.ndim in (1, 2)
        and a.flags.c_contiguous
        and a.size > 0
        and a.shape[0] > 0
    )
