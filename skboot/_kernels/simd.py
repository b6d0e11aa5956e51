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

__all__ = ["add_rows8", "add_rows8_sq"]

_I64 = ir.IntType(64)
_V8 = ir.VectorType(ir.DoubleType(), 8)


def _vec_ptr(builder, base, offset):
    return builder.bitcast(builder.gep(base, [offset]), _V8.as_pointer())


def _make_add_rows8(squares: bool):
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
                    ptr = _vec_ptr(builder, arr.data, off)
                    slot = cgutils.alloca_once(builder, _V8)
                    builder.store(builder.load(ptr, align=8), slot)
                    pair.append((slot, ptr))
                slots.append(pair)
            with cgutils.for_range(builder, ng_v) as loop:
                base = builder.mul(loop.index, ir.Constant(_I64, 8))
                for p in range(8):
                    t = builder.add(base, ir.Constant(_I64, p))
                    row = builder.load(builder.gep(BA.data, [t]))
                    off = builder.add(builder.mul(row, w_v), col_v)
                    v = builder.load(_vec_ptr(builder, XA.data, off), align=8)
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

    impl.__name__ = "add_rows8_sq" if squares else "add_rows8"
    return intrinsic(impl)


#: ``add_rows8(acc, acc2, X, buf, ngroups, width, col)``: for ``t`` in
#: ``range(8 * ngroups)``, add the eight values ``X[buf[t] * width + col + 0..7]``
#: lane-wise into ``acc[(t % 8) * width + col + 0..7]``.  ``X`` and ``acc`` are flat
#: views of (n, width) and (8, width) arrays; ``acc2`` is unused.  Draw ``t`` goes
#: to accumulator row ``t % 8``, rows are added in draw order: exactly the scalar
#: rule of :func:`skboot._kernels.iid.iid_moments`.
add_rows8 = _make_add_rows8(False)
#: As :data:`add_rows8`, and the squares into ``acc2`` (multiply, then add: no
#: fused multiply-add, as in the scalar kernel).
add_rows8_sq = _make_add_rows8(True)
