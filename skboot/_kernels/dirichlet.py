"""The fused Bayesian-bootstrap kernel: eight replicates' flat-Dirichlet weights
drawn and reduced side by side.

Replicate ``b``'s weights are :func:`skboot._random.fill_dirichlet_weights`': the
Exp(1) variate ``e_i`` of row ``i`` (:func:`skboot._random.exp1_of_output`, one
SplitMix64 output per row), times ``n / T`` where ``T`` is the sum of the
``e_i`` in row order.  :func:`dirichlet_lanes` computes, for eight replicates at
a time, exactly what that fill followed by
:func:`skboot._kernels.weighted.weighted_moments` gives, bit for bit:

1. the ``e_i`` of the eight replicates, a tile of rows at a time (the loop over
   a tile's rows vectorizes: bit operations, adds, multiplies and one division per
   value), transposed into an ``(n, 8)`` array, one row per data row, and their
   eight totals in row order (one vector add per row: the eight chains of
   dependent additions run side by side);
2. the eight scales ``n / T``, then per row the eight weights ``e_i * scale``,
   the weighted values added to eight accumulators (zero weights skipped: a
   select) in tiles of CASCADE_ROWS rows whose sums go through the pairwise
   cascade, and the weight totals with Neumaier's compensation, all in vector
   registers (:data:`lanes8_dirichlet`).

Each lane performs the scalar kernels' operations in their order (no
reassociation, no fused multiply-add), so the results do not depend on the
instruction set.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from skboot._kernels.cascade import (
    CASCADE_LEVELS,
    CASCADE_ROWS,
    cascade_push,
    cascade_total,
)
from skboot._kernels.weighted import cascade_rows, weight_total
from skboot._random import (
    complement53,
    exp1_of_complement,
    fill_dirichlet_weights,
    mix64,
    replicate_counter,
)

__all__ = [
    "dirichlet_lanes",
    "dirichlet_one_by_one",
    "lanes8_dirichlet",
    "lanes8_dirichlet_sq",
    "lanes8_transpose_total",
]

#: Replicates reduced side by side (one 512-bit vector of doubles; two AVX2
#: registers).
LANES = 8
#: Rows of a tile (the cascade's tile, as in weighted_moments).
TILE = CASCADE_ROWS
#: Above this many rows the ``(n, 8)`` array of variates (64 MiB here) is not
#: made: replicates are drawn and reduced one by one in O(n) memory.
LANE_ROWS_MAX = 2**20
_U1 = np.uint64(1)
_I64 = ir.IntType(64)
_V8 = ir.VectorType(ir.DoubleType(), LANES)


def _row_ptr(builder, base, offset):
    return builder.bitcast(builder.gep(base, [offset]), _V8.as_pointer())


def _load8(builder, arr, offset):
    return builder.load(_row_ptr(builder, arr.data, offset), align=8)


def _store8(builder, value, arr, offset):
    builder.store(value, _row_ptr(builder, arr.data, offset), align=8)


def _transpose4(builder, a):
    """The 4 x 4 transpose of four ``<4 x double>`` rows (eight shuffles)."""
    v4 = ir.VectorType(ir.DoubleType(), 4)

    def shuf(x, y, mask):
        return builder.shuffle_vector(
            x, y, ir.Constant(ir.VectorType(ir.IntType(32), 4), mask)
        )

    assert all(x.type == v4 for x in a)
    t0 = shuf(a[0], a[1], [0, 4, 2, 6])
    t1 = shuf(a[0], a[1], [1, 5, 3, 7])
    t2 = shuf(a[2], a[3], [0, 4, 2, 6])
    t3 = shuf(a[2], a[3], [1, 5, 3, 7])
    return [
        shuf(t0, t2, [0, 1, 4, 5]),
        shuf(t1, t3, [0, 1, 4, 5]),
        shuf(t0, t2, [2, 3, 6, 7]),
        shuf(t1, t3, [2, 3, 6, 7]),
    ]


@intrinsic
def lanes8_transpose_total(typingctx, tot, T, E, off, c):
    """``lanes8_transpose_total(tot, T, E, off, c)``: the tile ``T`` holds lane
    ``r``'s values of rows ``t < c`` at ``T[r * TILE + t]``; write row ``t``'s
    eight values to ``E[off + 8t .. off + 8t + 7]`` and add them, rows in order,
    lane-wise into ``tot[0:8]`` (eight sums in row order in one vector
    register).  Four rows at a time by 4 x 4 transposes in registers (storing
    each value at its place in ``E`` directly made the log loop a third slower)."""
    sig = types.void(tot, T, E, off, c)
    v4 = ir.VectorType(ir.DoubleType(), 4)
    join = ir.Constant(ir.VectorType(ir.IntType(32), LANES), list(range(LANES)))

    def codegen(context, builder, signature, args):
        tot_v, T_v, E_v, off_v, c_v = args
        TO = context.make_array(signature.args[0])(context, builder, tot_v)
        TA = context.make_array(signature.args[1])(context, builder, T_v)
        EA = context.make_array(signature.args[2])(context, builder, E_v)
        slot = cgutils.alloca_once(builder, _V8)
        builder.store(_load8(builder, TO, ir.Constant(_I64, 0)), slot)

        def lane_ptr(r, t):
            at = builder.add(t, ir.Constant(_I64, r * TILE))
            return builder.gep(TA.data, [at])

        def emit_row(t, row):
            at = builder.add(off_v, builder.mul(t, ir.Constant(_I64, LANES)))
            _store8(builder, row, EA, at)
            builder.store(builder.fadd(builder.load(slot), row), slot)

        quads = builder.udiv(c_v, ir.Constant(_I64, 4))
        with cgutils.for_range(builder, quads) as loop:
            t = builder.mul(loop.index, ir.Constant(_I64, 4))
            halves = []
            for h in range(2):
                rows = [
                    builder.load(
                        builder.bitcast(lane_ptr(4 * h + r, t), v4.as_pointer()),
                        align=8,
                    )
                    for r in range(4)
                ]
                halves.append(_transpose4(builder, rows))
            for j in range(4):
                row = builder.shuffle_vector(halves[0][j], halves[1][j], join)
                emit_row(builder.add(t, ir.Constant(_I64, j)), row)
        done = builder.mul(quads, ir.Constant(_I64, 4))
        with cgutils.for_range(builder, builder.sub(c_v, done)) as loop:
            t = builder.add(done, loop.index)
            row = ir.Constant(_V8, None)
            for r in range(LANES):
                val = builder.load(lane_ptr(r, t))
                row = builder.insert_element(row, val, ir.Constant(_I64, r))
            emit_row(t, row)
        _store8(builder, builder.load(slot), TO, ir.Constant(_I64, 0))
        return context.get_dummy_value()

    return sig, codegen


def _make_lanes8_dirichlet(squares: bool):
    """``lanes8_dirichlet[_sq](acc, ns, E, off, scale, x, xoff, c)``.

    For rows ``t < c`` in order, lane ``r`` takes the weight ``w = E[off + 8t + r]
    * scale[r]`` and adds ``w * x[xoff + t]`` to ``acc[r]`` (with ``_sq``,
    ``(w * x) * x`` to ``acc[8 + r]``), nothing for a zero weight (a select:
    ``0 * inf`` never enters; adding ``+0.0`` would leave the sum unchanged, as
    a sum started at ``+0.0`` is never ``-0.0``), and adds ``w`` to the
    Neumaier sum ``ns[r]`` with compensation ``ns[8 + r]``:
    ``t = s + w; comp += (s - t) + w if s >= w else (w - t) + s``, which is
    :func:`skboot._kernels.cascade.neumaier_add` on weights ``>= +0.0``
    (where ``abs`` changes nothing; a zero weight, skipped by
    :func:`skboot._kernels.weighted.weight_total`, leaves both unchanged).
    """

    def impl(typingctx, acc, ns, E, off, scale, x, xoff, c):
        sig = types.void(acc, ns, E, off, scale, x, xoff, c)

        def codegen(context, builder, signature, args):
            off_v, xoff_v, c_v = args[3], args[6], args[7]
            arrays = [
                context.make_array(signature.args[i])(context, builder, args[i])
                for i in (0, 1, 2, 4, 5)
            ]
            A, NS, EA, SC, XA = arrays
            zero = ir.Constant(_V8, [0.0] * LANES)
            c0 = ir.Constant(_I64, 0)
            c8 = ir.Constant(_I64, LANES)
            slots = {}
            for name, arr, at in (("a1", A, c0), ("a2", A, c8), ("s", NS, c0)):
                slots[name] = cgutils.alloca_once(builder, _V8)
                builder.store(_load8(builder, arr, at), slots[name])
            slots["comp"] = cgutils.alloca_once(builder, _V8)
            builder.store(_load8(builder, NS, c8), slots["comp"])
            scale = _load8(builder, SC, c0)
            with cgutils.for_range(builder, c_v) as loop:
                t = loop.index
                row = builder.add(off_v, builder.mul(t, c8))
                w = builder.fmul(_load8(builder, EA, row), scale)
                xv = builder.load(builder.gep(XA.data, [builder.add(xoff_v, t)]))
                xs = builder.insert_element(ir.Constant(_V8, None), xv, c0)
                xs = builder.shuffle_vector(
                    xs,
                    ir.Constant(_V8, None),
                    ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES),
                )
                keep = builder.fcmp_unordered("!=", w, zero)
                prod = builder.fmul(w, xs)
                a1 = builder.fadd(
                    builder.load(slots["a1"]), builder.select(keep, prod, zero)
                )
                builder.store(a1, slots["a1"])
                if squares:
                    sq = builder.select(keep, builder.fmul(prod, xs), zero)
                    builder.store(
                        builder.fadd(builder.load(slots["a2"]), sq), slots["a2"]
                    )
                s = builder.load(slots["s"])
                tot = builder.fadd(s, w)
                big = builder.fcmp_ordered(">=", s, w)
                hi = builder.select(big, s, w)
                lo = builder.select(big, w, s)
                comp = builder.fadd(
                    builder.load(slots["comp"]),
                    builder.fadd(builder.fsub(hi, tot), lo),
                )
                builder.store(comp, slots["comp"])
                builder.store(tot, slots["s"])
            for name, arr, at in (
                ("a1", A, c0),
                ("a2", A, c8),
                ("s", NS, c0),
                ("comp", NS, c8),
            ):
                _store8(builder, builder.load(slots[name]), arr, at)
            return context.get_dummy_value()

        return sig, codegen

    impl.__name__ = "lanes8_dirichlet_sq" if squares else "lanes8_dirichlet"
    return intrinsic(impl)


lanes8_dirichlet = _make_lanes8_dirichlet(False)
lanes8_dirichlet_sq = _make_lanes8_dirichlet(True)


@njit(cache=True, nogil=True)
def _lane_complements(seed, gamma, b, i0, c, buf):
    """``buf[t]``: :func:`skboot._random.complement53` of SplitMix64 output
    ``b * 2**32 + i0 + t`` (row ``i0 + t`` of replicate ``b``), ``t < c``."""
    zp = seed + (replicate_counter(b) + np.uint64(i0) + _U1) * gamma
    for t in range(c):
        buf[t] = complement53(mix64(zp))
        zp += gamma


@njit(cache=True, nogil=True, error_model="numpy")
def _lane_exponentials(buf, c, T, off):
    """``T[off + t]``: the Exp(1) variate of ``buf[t]``, ``t < c`` (a separate
    loop from :func:`_lane_complements`: each keeps its constants in registers,
    measured 15% faster than one loop)."""
    o = T[off:]
    for t in range(c):
        o[t] = exp1_of_complement(buf[t])


@njit(cache=True, nogil=True)
def _exponentials(seed, gamma, b0, nr, E, tot):
    """Step 1: the Exp(1) variates of replicates ``b0 .. b0 + nr - 1`` into the
    lanes of ``E`` ((n, 8) flat; lanes from ``nr`` on hold 1.0) and their totals
    in row order into ``tot``.  A tile's variates are made lane by lane into
    ``T`` (contiguous stores), then transposed into ``E``."""
    n = E.shape[0] // LANES
    buf = np.empty(TILE)
    T = np.ones(LANES * TILE)
    tot[:] = 0.0
    for i0 in range(0, n, TILE):
        c = min(TILE, n - i0)
        for r in range(nr):
            _lane_complements(seed, gamma, b0 + r, i0, c, buf)
            _lane_exponentials(buf, c, T, r * TILE)
        lanes8_transpose_total(tot, T, E, LANES * i0, c)  # type: ignore[call-arg]


@njit(cache=True, nogil=True)
def _reduce_column(E, scale, x, want2, acc, ns, stack):
    """Step 2 for one column: the eight lanes' weighted sums (and of squares)
    through the cascade into ``acc`` (16), the Neumaier weight totals into ``ns``
    (sums, then compensations)."""
    n = x.shape[0]
    ns[:] = 0.0
    count = 0
    for i0 in range(0, n, TILE):
        c = min(TILE, n - i0)
        acc[:] = 0.0
        if want2:
            lanes8_dirichlet_sq(acc, ns, E, LANES * i0, scale, x, i0, c)
        else:
            lanes8_dirichlet(acc, ns, E, LANES * i0, scale, x, i0, c)
        count = cascade_push(stack, count, acc)
    cascade_total(stack, count, acc)


@njit(cache=True, nogil=True)
def dirichlet_one_by_one(X, seed, gamma, b0, want2, out1, out2, outw):
    """:func:`dirichlet_lanes` one replicate at a time, in O(n) memory: the
    weights of a replicate into one reused row, then reduced."""
    n = X.shape[0]
    d = X.shape[1]
    w = np.empty(n)
    part = np.zeros(2 * d)
    stack = np.zeros((CASCADE_LEVELS, 2 * d))
    for k in range(out1.shape[0]):
        fill_dirichlet_weights(seed, gamma, b0 + k, w)
        cascade_rows(X, w, want2, part, stack, out1[k], out2[k])
        outw[k] = weight_total(w)


@njit(cache=True, nogil=True, error_model="numpy")
def dirichlet_lanes(X, seed, gamma, b0, want2, out1, out2, outw):
    """Per replicate ``b0 + k`` of the Bayesian bootstrap: ``sum_i w_i X[i]`` (and
    of squares) over rows in order and the Neumaier-compensated ``sum_i w_i``;
    bit for bit ``fill_dirichlet_weights`` + ``weighted_moments`` (see the
    module docstring).  Wider data are reduced replicate by replicate; above
    LANE_ROWS_MAX rows, :func:`dirichlet_one_by_one`."""
    n = X.shape[0]
    d = X.shape[1]
    nb = out1.shape[0]
    if n > LANE_ROWS_MAX:
        dirichlet_one_by_one(X, seed, gamma, b0, want2, out1, out2, outw)
        return
    E = np.empty(n * LANES)
    tot = np.empty(LANES)
    scale = np.empty(LANES)
    acc = np.zeros(2 * LANES)
    ns = np.zeros(2 * LANES)
    width = 2 * LANES if d == 1 else 2 * d
    stack = np.zeros((CASCADE_LEVELS, width))
    part = np.zeros(2 * d)
    xcol = np.empty(n) if d == 1 else np.empty(0)
    w = np.empty(n) if d > 1 else np.empty(0)
    if d == 1:
        for i in range(n):
            xcol[i] = X[i, 0]
    for k0 in range(0, nb, LANES):
        nr = min(LANES, nb - k0)
        _exponentials(seed, gamma, b0 + k0, nr, E, tot)
        for r in range(LANES):
            scale[r] = n / tot[r]
        if d == 1:
            _reduce_column(E, scale, xcol, want2, acc, ns, stack)
            for r in range(nr):
                out1[k0 + r, 0] = acc[r]
                out2[k0 + r, 0] = acc[LANES + r]
                outw[k0 + r] = ns[r] + ns[LANES + r]
        else:
            for r in range(nr):
                for i in range(n):
                    w[i] = E[LANES * i + r] * scale[r]
                cascade_rows(X, w, want2, part, stack, out1[k0 + r], out2[k0 + r])
                outw[k0 + r] = weight_total(w)
