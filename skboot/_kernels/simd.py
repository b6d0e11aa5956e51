"""Eight-lane vector building blocks for the row-gathering kernels (numba intrinsics).

numba compiles with LLVM's loop vectorizer on but its SLP (straight-line)
vectorizer off, so a kernel that adds a drawn row of eight columns into eight
accumulators compiles to eight scalar loads and adds per row, and a loop over the
columns gets a runtime alias check per row.  These intrinsics emit the operation
on LLVM's ``<8 x double>`` type directly: one 64-byte load and one vector add per
row (an AVX-512 register; two AVX2 registers; four SSE2 registers on older
targets).

Every lane is one column and is computed with the same IEEE operations in the same
order as the scalar loop it replaces (no reassociation, no fused multiply-add), so
results are bit-identical on every machine and equal to the scalar kernels':
replicate values never depend on the instruction set.

Offsets are element offsets into 1-D C-contiguous float64 arrays; the caller
guarantees they are in bounds (no wraparound, no checks: these are kernel
internals, never public).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = [
    "add_rows4",
    "add_rows4_sq",
    "add_rows8",
    "add_rows8_sq",
    "lanes8_cols",
    "lanes8_cols_sq",
    "lanes8_indexed",
    "lanes8_indexed_sq",
    "lanes8_rows",
    "lanes8_rows_sq",
]

_I64 = ir.IntType(64)
_V8 = ir.VectorType(ir.DoubleType(), 8)


def _vec_ptr(builder, base, offset, vec=_V8):
    return builder.bitcast(builder.gep(base, [offset]), vec.as_pointer())


def _make_add_rows(squares: bool, lanes: int = 8):
    vec = ir.VectorType(ir.DoubleType(), lanes)

    def impl(typingctx, acc, acc2, X, buf, ngroups, width, col):
        sig = types.void(acc, acc2, X, buf, ngroups, width, col)

        def codegen(context, builder, signature, args):
            acc_v, acc2_v, X_v, buf_v, ng_v, w_v, col_v = args
            A = context.make_array(signature.args[0])(context, builder, acc_v)
            A2 = context.make_array(signature.args[1])(context, builder, acc2_v)
            XA = context.make_array(signature.args[2])(context, builder, X_v)
            BA = context.make_array(signature.args[3])(context, builder, buf_v)
            # accumulator p lives in a local slot (promoted to a register by LLVM)
            slots = []
            for p in range(8):
                off = builder.add(col_v, builder.mul(ir.Constant(_I64, p), w_v))
                pair = []
                for arr in (A, A2) if squares else (A,):
                    ptr = _vec_ptr(builder, arr.data, off, vec)
                    slot = cgutils.alloca_once(builder, vec)
                    builder.store(builder.load(ptr, align=8), slot)
                    pair.append((slot, ptr))
                slots.append(pair)
            with cgutils.for_range(builder, ng_v) as loop:
                base = builder.mul(loop.index, ir.Constant(_I64, 8))
                for p in range(8):
                    t = builder.add(base, ir.Constant(_I64, p))
                    row = builder.load(builder.gep(BA.data, [t]))
                    if row.type.width < 64:  # uint32 indices
                        row = builder.zext(row, _I64)
                    off = builder.add(builder.mul(row, w_v), col_v)
                    v = builder.load(_vec_ptr(builder, XA.data, off, vec), align=8)
                    slot = slots[p][0][0]
                    builder.store(builder.fadd(builder.load(slot), v), slot)
                    if squares:
                        slot2 = slots[p][1][0]
                        sq = builder.fmul(v, v)
                        builder.store(builder.fadd(builder.load(slot2), sq), slot2)
            for pair in slots:
                for slot, ptr in pair:
                    builder.store(builder.load(slot), ptr, align=8)
            return context.get_dummy_value()

        return sig, codegen

    impl.__name__ = f"add_rows{lanes}_sq" if squares else f"add_rows{lanes}"
    return intrinsic(impl)


#: ``add_rows8(acc, acc2, X, buf, ngroups, width, col)``: for ``t`` in
#: ``range(8 * ngroups)``, add the eight values ``X[buf[t] * width + col + 0..7]``
#: lane-wise into ``acc[(t % 8) * width + col + 0..7]``.  ``X`` and ``acc`` are flat
#: views of (n, width) and (8, width) arrays; ``acc2`` is unused.  Draw ``t`` goes
#: to accumulator row ``t % 8``, rows are added in draw order: exactly the scalar
#: rule of :func:`skboot._kernels.iid.iid_moments`.
add_rows8 = _make_add_rows(False)
#: As :data:`add_rows8`, and the squares into ``acc2`` (multiply, then add: no
#: fused multiply-add, as in the scalar kernel).
add_rows8_sq = _make_add_rows(True)
#: As :data:`add_rows8` on four lanes (``<4 x double>``, one AVX2 register):
#: ``X[buf[t] * width + col + 0..3]`` into ``acc[(t % 8) * width + col + 0..3]``.
add_rows4 = _make_add_rows(False, 4)
#: As :data:`add_rows4`, and the squares into ``acc2``.
add_rows4_sq = _make_add_rows(True, 4)


# ---------------------------------------------------------------------------
# replicate lanes: eight replicates side by side, rows in order
# ---------------------------------------------------------------------------
def _make_lanes8(mode: str, squares: bool):
    """``lanes8_<mode>[_sq](acc, W, woff, wstride, idx, x, xoff, c)``.

    For rows ``t < c`` in order, lane ``r`` (replicate ``r`` of a tile of eight)
    adds ``w * x[xoff + t]`` to ``acc[r]`` and, with ``_sq``, ``(w * x) * x`` to
    ``acc[8 + r]``, where ``w`` is replicate ``r``'s weight of row ``t``; a zero
    weight adds nothing (a select, not a branch: ``0 * inf`` never enters).
    Where the weights are (``mode``):

    * ``rows``: ``W[woff + t * wstride + r]`` (a row of eight lanes, one load);
    * ``cols``: ``W[woff + r * wstride + t]`` (replicate rows, transposed on load);
    * ``indexed``: ``W[idx[t] * wstride + r]`` (a table row per code, e.g. the
      weights of a group).

    ``W`` is float64 or int32 (converted exactly).  Each lane performs the
    scalar kernel's operations in its order (multiply, multiply, add; no fused
    multiply-add), so a lane equals :func:`skboot._kernels.weighted.weighted_moments`
    on that replicate's weight row, bit for bit; adding ``+0.0`` for a zero weight
    leaves an accumulator unchanged because a sum that starts at ``+0.0`` is never
    ``-0.0`` under round-to-nearest.
    """

    def impl(typingctx, acc, W, woff, wstride, idx, x, xoff, c):
        sig = types.void(acc, W, woff, wstride, idx, x, xoff, c)
        is_int = isinstance(W.dtype, types.Integer)

        def codegen(context, builder, signature, args):
            acc_v, W_v, woff_v, ws_v, idx_v, x_v, xoff_v, c_v = args
            A = context.make_array(signature.args[0])(context, builder, acc_v)
            WA = context.make_array(signature.args[1])(context, builder, W_v)
            IA = context.make_array(signature.args[4])(context, builder, idx_v)
            XA = context.make_array(signature.args[5])(context, builder, x_v)
            elem = WA.data.type.pointee
            wvec = ir.VectorType(elem, 8)
            zero = ir.Constant(_V8, [0.0] * 8)
            slots = []
            for part in range(2 if squares else 1):
                ptr = _vec_ptr(builder, A.data, ir.Constant(_I64, 8 * part))
                slot = cgutils.alloca_once(builder, _V8)
                builder.store(builder.load(ptr, align=8), slot)
                slots.append((slot, ptr))
            with cgutils.for_range(builder, c_v) as loop:
                t = loop.index
                if mode == "rows":
                    base = builder.add(woff_v, builder.mul(t, ws_v))
                elif mode == "indexed":
                    code = builder.load(builder.gep(IA.data, [t]))
                    if code.type.width < 64:
                        code = builder.sext(code, _I64)
                    base = builder.mul(code, ws_v)
                if mode == "cols":
                    wv = ir.Constant(wvec, None)
                    for r in range(8):
                        off = builder.add(
                            builder.add(
                                woff_v, builder.mul(ir.Constant(_I64, r), ws_v)
                            ),
                            t,
                        )
                        val = builder.load(builder.gep(WA.data, [off]))
                        wv = builder.insert_element(wv, val, ir.Constant(_I64, r))
                else:
                    ptr = builder.bitcast(
                        builder.gep(WA.data, [base]), wvec.as_pointer()
                    )
                    wv = builder.load(ptr, align=4 if is_int else 8)
                if is_int:
                    wv = builder.sitofp(wv, _V8)
                xv = builder.load(builder.gep(XA.data, [builder.add(xoff_v, t)]))
                xs = builder.insert_element(
                    ir.Constant(_V8, None), xv, ir.Constant(_I64, 0)
                )
                xs = builder.shuffle_vector(
                    xs,
                    ir.Constant(_V8, None),
                    ir.Constant(ir.VectorType(ir.IntType(32), 8), [0] * 8),
                )
                keep = builder.fcmp_unordered("!=", wv, zero)
                prod = builder.fmul(wv, xs)
                slot = slots[0][0]
                term = builder.select(keep, prod, zero)
                builder.store(builder.fadd(builder.load(slot), term), slot)
                if squares:
                    slot2 = slots[1][0]
                    term2 = builder.select(keep, builder.fmul(prod, xs), zero)
                    builder.store(builder.fadd(builder.load(slot2), term2), slot2)
            for slot, ptr in slots:
                builder.store(builder.load(slot), ptr, align=8)
            return context.get_dummy_value()

        return sig, codegen

    impl.__name__ = f"lanes8_{mode}" + ("_sq" if squares else "")
    return intrinsic(impl)


lanes8_rows = _make_lanes8("rows", False)
lanes8_rows_sq = _make_lanes8("rows", True)
lanes8_cols = _make_lanes8("cols", False)
lanes8_cols_sq = _make_lanes8("cols", True)
lanes8_indexed = _make_lanes8("indexed", False)
lanes8_indexed_sq = _make_lanes8("indexed", True)
