"""Numba kernels of the VAR residual bootstrap (numba code only).

Replicate ``b`` reads the same streams as the AR residual bootstrap
(:mod:`skboot._kernels.model_based`): residual-row indices on purpose
``"indices"`` (iid, bound ``M``) or moving-block starts on purpose
``"block_starts"`` (bound ``M - L + 1``), and the start position of the initial
values on purpose ``"model"``.  A row index selects a whole residual vector, so the
variables are resampled jointly.

Eight replicates run side by side: the path holds, for each time ``t`` and
variable ``i``, one row of the eight replicates' values, and a step of the
recursion is one operation on a vector of eight doubles
(:func:`lanes8_var_step`).  Each lane performs the model's operations in their
order (no reassociation, no fused multiply-add), so a replicate's values do not
depend on its neighbours or on the instruction set.  The built-in ``"mean"``,
``"sum"``, ``"var"`` and ``"std"`` are reduced from the path directly
(:func:`var_residual_sums`), with numpy's pairwise summation
(:func:`pairwise8`) in numpy's order of operations: the values equal numpy's
over time of the generated series, bit for bit, without writing the series
out.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from skboot._random import fill_indices_kernel

__all__ = [
    "MEAN",
    "STD",
    "SUM",
    "VAR",
    "VAR_LANES",
    "lanes8_var_step",
    "pairwise8",
    "pairwise_plan",
    "reduce8",
    "var_residual_chunk",
    "var_residual_sums",
    "varx_residual_chunk",
]

#: Replicates generated side by side (the lanes of one row of the path).
VAR_LANES = 8
#: numpy's pairwise-summation block (``PW_BLOCKSIZE`` in numpy's loops).
PW_BLOCK = 128
_I64 = ir.IntType(64)
_V8 = ir.VectorType(ir.DoubleType(), VAR_LANES)


def _ptr8(builder, arr, offset):
    return builder.bitcast(builder.gep(arr.data, [offset]), _V8.as_pointer())


def _splat8(builder, value):
    v = builder.insert_element(ir.Constant(_V8, None), value, ir.Constant(_I64, 0))
    mask = ir.Constant(ir.VectorType(ir.IntType(32), VAR_LANES), [0] * VAR_LANES)
    return builder.shuffle_vector(v, ir.Constant(_V8, None), mask)


@intrinsic
def lanes8_var_step(typingctx, path, o, ci, coefs, rel):
    """``lanes8_var_step(path, o, ci, coefs, rel)``: for the eight lanes
    ``path[o:o + 8]`` (the innovations ``u``), ``y = ci + u``, then for ``q``
    in order ``y = y + coefs[q] * path[o + rel[q]: o + rel[q] + 8]``; store
    ``y`` back: one step of the recursion in two AVX2 (one AVX-512) registers."""
    sig = types.void(path, o, ci, coefs, rel)

    def codegen(context, builder, signature, args):
        path_v, o_v, ci_v, coefs_v, rel_v = args
        P = context.make_array(signature.args[0])(context, builder, path_v)
        C = context.make_array(signature.args[3])(context, builder, coefs_v)
        R = context.make_array(signature.args[4])(context, builder, rel_v)
        nq = builder.extract_value(C.shape, 0)
        slot = cgutils.alloca_once(builder, _V8)
        u = builder.load(_ptr8(builder, P, o_v), align=8)
        builder.store(builder.fadd(_splat8(builder, ci_v), u), slot)
        with cgutils.for_range(builder, nq) as loop:
            q = loop.index
            a = builder.load(builder.gep(C.data, [q]))
            at = builder.add(o_v, builder.load(builder.gep(R.data, [q])))
            y = builder.load(_ptr8(builder, P, at), align=8)
            term = builder.fmul(_splat8(builder, a), y)
            builder.store(builder.fadd(builder.load(slot), term), slot)
        builder.store(builder.load(slot), _ptr8(builder, P, o_v), align=8)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _step_terms(coef):
    """The coefficients of equation ``i`` in the recursion's order (lags
    ``j = p..1``, farthest first, then variables ``k``) and the offsets of their
    rows from row ``t * m + i`` in the path, in elements: ``(m, p * m)`` each."""
    p, m, _ = coef.shape
    coefs = np.empty((m, p * m))
    rel = np.empty((m, p * m), dtype=np.int64)
    for i in range(m):
        q = 0
        for j in range(p - 1, -1, -1):
            for k in range(m):
                coefs[i, q] = coef[j, i, k]
                rel[i, q] = (k - i - (1 + j) * m) * VAR_LANES
                q += 1
    return coefs, rel


@njit(cache=True, nogil=True)
def _var_recurse(path, intercept, coefs, rel, p, m):
    """``path`` ((time * m) * 8, flat): row ``t * m + i`` holds variable ``i``
    at time ``t`` of eight replicates; the first ``p`` times are start values,
    the others hold the innovations.  Overwrite time ``t >= p`` with ``y_{t,i} =
    (c_i + u_{t,i}) + sum over lags j = p..1 (farthest first) and variables k of
    A_j[i, k] y_{t-j,k}``, summed in that order."""
    total = path.shape[0] // (m * VAR_LANES)
    for t in range(p, total):
        for i in range(m):
            o = (t * m + i) * VAR_LANES
            lanes8_var_step(path, o, intercept[i], coefs[i], rel[i])  # type: ignore[call-arg]


@njit(cache=True, nogil=True)
def _var_fill(
    seeds, gamma, b0, lanes, n, series, resid, random_start, block_length, path, idx
):
    """Lanes ``ln < lanes`` of ``path``: replicate ``b0 + ln``'s ``p`` start rows
    and its innovations (the residual rows it draws, ``idx[ln]``), as the module
    docstring describes.  The innovations are copied row by row of the path."""
    seed_i, seed_s, seed_m = seeds[0], seeds[1], seeds[2]
    m = series.shape[1]
    n_e = idx.shape[1]
    p = path.shape[0] // (m * VAR_LANES) - n_e
    M = resid.shape[0]
    L = block_length
    starts = np.empty((n_e + L - 1) // L if L > 0 else 0, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    for ln in range(lanes):
        b = np.uint64(b0 + ln)
        s = 0
        if random_start:
            fill_indices_kernel(seed_m, gamma, b, np.uint64(n - p + 1), first)
            s = first[0]
        for j in range(p):
            for v in range(m):
                path[(j * m + v) * VAR_LANES + ln] = series[s + j, v]
        if L > 0:
            fill_indices_kernel(seed_s, gamma, b, np.uint64(M - L + 1), starts)
            t = 0
            for j in range(starts.shape[0]):
                for r in range(min(L, n_e - t)):
                    idx[ln, t] = starts[j] + r
                    t += 1
        else:
            fill_indices_kernel(seed_i, gamma, b, np.uint64(M), idx[ln])
    for i in range(n_e):
        for v in range(m):
            at = ((p + i) * m + v) * VAR_LANES
            for ln in range(VAR_LANES):
                path[at + ln] = resid[idx[ln, i], v]


@njit(cache=True, nogil=True)
def _var_lanes(seeds, gamma, b0, lanes, n, series, intercept, coef, resid,
               burn_in, random_start, block_length, path, idx):  # fmt: skip
    """Generate replicates ``b0 .. b0 + lanes - 1`` into the lanes of ``path``
    (lanes from ``lanes`` on hold replicates nobody asked for)."""
    m = series.shape[1]
    coefs, rel = _step_terms(coef)
    _var_fill(seeds, gamma, b0, lanes, n, series, resid, random_start,
              block_length, path, idx)  # fmt: skip
    _var_recurse(path, intercept, coefs, rel, coef.shape[0], m)


@njit(cache=True, nogil=True)
def _scratch(n, m, p, burn_in):
    path = np.zeros((burn_in + n) * m * VAR_LANES)
    idx = np.zeros((VAR_LANES, burn_in + n - p), dtype=np.int64)
    return path, idx


@njit(cache=True, nogil=True)
def var_residual_chunk(
    seeds, gamma, b0, series, intercept, coef, resid, burn_in, random_start,
    block_length, out,
):  # fmt: skip
    """``out[k]`` (n, m) = the VAR residual-bootstrap series of replicate
    ``b0 + k``; ``seeds`` holds the streams' seeds of purposes ``"indices"``,
    ``"block_starts"`` and ``"model"``.

    The path has ``burn_in + n`` rows: ``p`` start rows ``series[s:s + p]``
    (``s = 0``, or draw 0 of ``bounded(n - p + 1)`` on the ``"model"`` stream
    when ``random_start``), then the recursion driven by the residual rows
    ``resid[idx[t - p]]``; the last ``n`` rows are kept.  ``idx`` holds
    ``burn_in + n - p`` row indices: iid draws of ``bounded(M)`` on the
    ``"indices"`` stream (``block_length == 0``), or moving blocks of
    ``block_length`` rows whose starts are draws of ``bounded(M - L + 1)`` on the
    ``"block_starts"`` stream, concatenated and cut.
    """
    nb, n, m = out.shape
    path, idx = _scratch(n, m, coef.shape[0], burn_in)
    for k0 in range(0, nb, VAR_LANES):
        lanes = min(VAR_LANES, nb - k0)
        _var_lanes(seeds, gamma, b0 + k0, lanes, n, series, intercept, coef, resid,
                   burn_in, random_start, block_length, path, idx)  # fmt: skip
        # row by row: the path is read once, in order
        for t in range(n):
            for v in range(m):
                at = ((burn_in + t) * m + v) * VAR_LANES
                for ln in range(lanes):
                    out[k0 + ln, t, v] = path[at + ln]


@njit(cache=True, nogil=True)
def varx_residual_chunk(seeds, gamma, b0, series, mu, coef, resid, block_length, out):
    """``out[k]`` (n, m) = the VARX residual-bootstrap series of replicate
    ``b0 + k``: as :func:`var_residual_chunk` with no burn-in (the first ``p``
    observed rows start every replicate, the same residual-row draws), with the
    offset ``mu[t, i]`` (the fixed ``c_i + B_i x_t``) in place of ``c_i`` at step
    ``t``: ``y_{t,i} = (mu_{t,i} + u_{t,i}) + sum A_j[i, k] y_{t-j,k}``, summed in
    the same order.  The exogenous term costs one scalar per step and lane group,
    so the eight-lane step is unchanged."""
    nb, n, m = out.shape
    p = coef.shape[0]
    path, idx = _scratch(n, m, p, 0)
    coefs, rel = _step_terms(coef)
    for k0 in range(0, nb, VAR_LANES):
        lanes = min(VAR_LANES, nb - k0)
        _var_fill(seeds, gamma, b0 + k0, lanes, n, series, resid, False,
                  block_length, path, idx)  # fmt: skip
        for t in range(p, n):
            for i in range(m):
                o = (t * m + i) * VAR_LANES
                lanes8_var_step(path, o, mu[t, i], coefs[i], rel[i])  # type: ignore[call-arg]
        for t in range(n):
            for v in range(m):
                at = (t * m + v) * VAR_LANES
                for ln in range(lanes):
                    out[k0 + ln, t, v] = path[at + ln]


@njit(cache=True, nogil=True)
def pairwise_plan(n):
    """numpy's pairwise summation of ``n`` terms as a program in postfix order:
    row ``q`` is ``(start, count)`` of a block summed directly, or ``(-1, 0)``
    for "add the two values on top of the stack" (left first).  numpy's
    ``pairwise_sum`` splits more than PW_BLOCK terms at ``n / 2`` rounded down
    to a multiple of 8 and recurses (here, a stack of pending tasks)."""
    size = 2 * (n // 32) + 4
    ops = np.empty((size, 2), dtype=np.int64)
    tasks = np.empty((size, 2), dtype=np.int64)  # (start, count); count -1: add
    tasks[0, 0] = 0
    tasks[0, 1] = n
    top = 1
    q = 0
    while top > 0:
        top -= 1
        t0 = tasks[top, 0]
        c = tasks[top, 1]
        if c < 0:
            ops[q, 0] = -1
            ops[q, 1] = 0
            q += 1
        elif c <= PW_BLOCK:
            ops[q, 0] = t0
            ops[q, 1] = c
            q += 1
        else:
            n2 = c // 2
            n2 -= n2 % 8
            tasks[top, 0] = 0
            tasks[top, 1] = -1
            tasks[top + 1, 0] = t0 + n2
            tasks[top + 1, 1] = c - n2
            tasks[top + 2, 0] = t0
            tasks[top + 2, 1] = n2
            top += 3
    return ops[:q]


@njit(cache=True, nogil=True)
def _block8(a, start, step, n, res):
    """``res[0:8]``: numpy's pairwise sum of a block of ``n <= PW_BLOCK`` vectors
    ``a[start + t * step: start + t * step + 8]``, lane by lane: fewer than 8
    terms in sequence from 0; else eight interleaved partial sums combined
    ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the rest in
    sequence."""
    if n < 8:
        for ln in range(8):
            res[ln] = 0.0
        for t in range(n):
            at = start + t * step
            for ln in range(8):
                res[ln] += a[at + ln]
        return
    r = np.empty((8, 8))
    for j in range(8):
        at = start + j * step
        for ln in range(8):
            r[j, ln] = a[at + ln]
    t = 8
    while t < n - n % 8:
        for j in range(8):
            at = start + (t + j) * step
            for ln in range(8):
                r[j, ln] += a[at + ln]
        t += 8
    for ln in range(8):
        res[ln] = ((r[0, ln] + r[1, ln]) + (r[2, ln] + r[3, ln])) + (
            (r[4, ln] + r[5, ln]) + (r[6, ln] + r[7, ln])
        )
    while t < n:
        at = start + t * step
        for ln in range(8):
            res[ln] += a[at + ln]
        t += 1


@njit(cache=True, nogil=True)
def pairwise8(a, start, step, ops, stack, res):
    """``res[0:8]``: numpy's pairwise sum of the vectors ``a[start + t * step:
    start + t * step + 8]``, ``t < n``, lane by lane, ``ops`` being
    ``pairwise_plan(n)``; ``stack`` is scratch of shape ``(len(ops), 8)``."""
    top = 0
    for q in range(ops.shape[0]):
        if ops[q, 0] < 0:
            top -= 1
            for ln in range(8):
                stack[top - 1, ln] = stack[top - 1, ln] + stack[top, ln]
        else:
            _block8(a, start + ops[q, 0] * step, step, ops[q, 1], stack[top])
            top += 1
    for ln in range(8):
        res[ln] = stack[0, ln]


#: What :func:`var_residual_sums` reduces: numpy's ``sum``, ``mean``, ``var``
#: and ``std`` along time.
SUM, MEAN, VAR, STD = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _square_deviations(path, start, step, n, centre):
    """Overwrite the vectors ``path[start + t * step: ... + 8]``, ``t < n``, with
    ``(x - centre) * (x - centre)`` lane by lane (numpy's ``subtract`` then
    ``square`` in ``_var``)."""
    for t in range(n):
        at = start + t * step
        for ln in range(VAR_LANES):
            d = path[at + ln] - centre[ln]
            path[at + ln] = d * d


@njit(cache=True, nogil=True)
def reduce8(path, start, step, n, what, ddof, ops, stack, res, centre):
    """``res[0:8]``: the reduction ``what`` (:data:`SUM` ... :data:`STD`) of the
    eight lanes of the vectors ``path[start + t * step: ... + 8]``, ``t < n``,
    in numpy's order of operations (``ops = pairwise_plan(n)``): ``0.0 +`` the
    pairwise sum; that over ``n``; for the variance, as numpy's ``_var``, the
    pairwise sum of the squared deviations from that mean (written over the
    vectors) over ``n - ddof``; the standard deviation its square root."""
    pairwise8(path, start, step, ops, stack, res)
    for ln in range(VAR_LANES):
        res[ln] = 0.0 + res[ln]
    if what == SUM:
        return
    for ln in range(VAR_LANES):
        res[ln] = res[ln] / n
    if what == MEAN:
        return
    for ln in range(VAR_LANES):
        centre[ln] = res[ln]
    _square_deviations(path, start, step, n, centre)
    pairwise8(path, start, step, ops, stack, res)
    for ln in range(VAR_LANES):
        s = (0.0 + res[ln]) / (n - ddof)
        res[ln] = np.sqrt(s) if what == STD else s


@njit(cache=True, nogil=True)
def var_residual_sums(
    seeds, gamma, b0, series, intercept, coef, resid, burn_in, random_start,
    block_length, what, ddof, out,
):  # fmt: skip
    """``out[k, v]``: the reduction ``what`` (:data:`SUM`, :data:`MEAN`,
    :data:`VAR`, :data:`STD`) over time of variable ``v`` of replicate
    ``b0 + k``'s series (as :func:`var_residual_chunk` generates it), equal bit
    for bit to numpy's ``sum`` / ``mean`` / ``var`` / ``std`` (``ddof``) of that
    series along time.  The sum is ``0.0 +`` numpy's pairwise sum, the mean that
    divided by ``n``; the variance, as numpy's ``_var``, is the sum of the squared
    deviations from that mean (summed the same way, in the path itself) divided by
    ``n - ddof``, and the standard deviation its square root."""
    nb, m = out.shape
    n = series.shape[0]
    path, idx = _scratch(n, m, coef.shape[0], burn_in)
    res = np.empty(VAR_LANES)
    centre = np.empty(VAR_LANES)
    ops = pairwise_plan(n)
    stack = np.empty((ops.shape[0], VAR_LANES))
    step = m * VAR_LANES
    for k0 in range(0, nb, VAR_LANES):
        lanes = min(VAR_LANES, nb - k0)
        _var_lanes(seeds, gamma, b0 + k0, lanes, n, series, intercept, coef, resid,
                   burn_in, random_start, block_length, path, idx)  # fmt: skip
        for v in range(m):
            start = (burn_in * m + v) * VAR_LANES
            reduce8(path, start, step, n, what, ddof, ops, stack, res, centre)
            for ln in range(lanes):
                out[k0 + ln, v] = res[ln]
