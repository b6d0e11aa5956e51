"""The ``feistel_mx32`` mixer of :mod:`benchmarks.stream_mixers` on eight 32-bit
lanes (an LLVM intrinsic): numba widens integer arithmetic to 64 bits, so a plain
loop multiplies on four 64-bit lanes (``vpmuludq``) where AVX2 has an eight-lane
32-bit multiply (``vpmulld``)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["H1", "H2", "feistel_fill8"]

#: lowbias32 multipliers (C. Wellons, "Hash function prospector", 2018)
H1 = 0x7FEB352D
H2 = 0x846CA68B


_V8 = ir.VectorType(ir.IntType(32), 8)


def _v8(value: int) -> ir.Constant:
    return ir.Constant(_V8, [value] * 8)


def _lowbias8(bld: Any, x: Any) -> Any:
    """lowbias32 on eight 32-bit lanes (``vpmulld``)."""
    x = bld.xor(x, bld.lshr(x, _v8(16)))
    x = bld.mul(x, _v8(H1))
    x = bld.xor(x, bld.lshr(x, _v8(15)))
    x = bld.mul(x, _v8(H2))
    return bld.xor(x, bld.lshr(x, _v8(16)))


@intrinsic
def feistel_fill8(typingctx, k0, k1, gamma, b, q0, nq, out):
    """``feistel_mx32``'s groups ``q0 .. q0 + 8 * (nq // 8) - 1`` on
    ``<8 x i32>`` vectors, lane-split into ``out`` (left at ``out[q]``, right at
    ``out[nq + q]``): numba widens integer arithmetic to 64 bits, so a plain loop
    would multiply on four 64-bit lanes."""
    sig = types.none(k0, k1, gamma, b, q0, nq, out)

    def codegen(context, bld, signature, args):
        k0_v, k1_v, g_v, b_v, q0_v, nq_v, out_v = args
        i32 = ir.IntType(32)
        data = context.make_array(signature.args[6])(context, bld, out_v).data

        def splat(x):
            v = bld.insert_element(ir.Constant(_V8, ir.Undefined), x, i32(0))
            return bld.shuffle_vector(v, ir.Constant(_V8, ir.Undefined), _v8(0))

        key0 = splat(bld.trunc(k0_v, i32))
        key1 = splat(bld.trunc(k1_v, i32))
        key2 = splat(bld.trunc(g_v, i32))
        key3 = bld.xor(key0, key1)
        left0 = splat(bld.trunc(b_v, i32))
        lanes = ir.Constant(_V8, list(range(8)))
        nvec = bld.udiv(nq_v, nq_v.type(8))
        with cgutils.for_range(bld, nvec) as loop:
            q = bld.mul(loop.index, nq_v.type(8))
            right = bld.add(splat(bld.trunc(bld.add(q0_v, q), i32)), lanes)
            left = bld.xor(left0, _lowbias8(bld, bld.add(right, key0)))
            right = bld.xor(right, _lowbias8(bld, bld.add(left, key1)))
            left = bld.xor(left, _lowbias8(bld, bld.add(right, key2)))
            right = bld.xor(right, _lowbias8(bld, bld.add(left, key3)))
            for vec, at in ((left, q), (right, bld.add(q, nq_v))):
                ptr = bld.bitcast(bld.gep(data, [at]), _V8.as_pointer())
                bld.store(vec, ptr, align=4)
        return context.get_dummy_value()

    return sig, codegen
