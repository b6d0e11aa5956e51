"""The fast block draw written on LLVM vector types (numba intrinsics).

The hot loop of every iid kernel turns SplitMix64 outputs into bounded draws two at
a time (:func:`skboot._random.fast_pairs`).  Left to LLVM's loop vectorizer, the
result depends on the target's cost model: on CPUs without a 64-bit vector
multiply (every AVX2 CPU, and NEON) it either stays scalar, where the integer
multiplier is the bottleneck (four 64-bit multiplies per two draws), or vectorizes
with a poor schedule.  These intrinsics emit the loop on ``<L x i64>`` vectors
directly, with the counter advanced by addition (``seed + (t + 1) * gamma`` is
``start + t * gamma``: one multiply per block instead of one per output), so the
generator runs on the vector units on every target: AVX-512 multiplies natively,
AVX2 and SSE4 build each 64-bit product from three 32 x 32 -> 64 multiplies.

Every lane computes exactly the integer arithmetic of the scalar definition in
:mod:`skboot._random._core`, so the draws are the same bits on every instruction
set; the tests compare them with the scalar reference.

``L`` is 8 where the target has AVX-512DQ (one register), else 4 (one AVX2
register, two SSE registers).  Buffers are contiguous uint64 arrays; the caller
guarantees they hold the outputs (kernel internals, never public).
"""

from __future__ import annotations

import functools
from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "draw_rows8_pairs",
    "draw_rows8_sq_pairs",
    "draw_sum_pairs",
    "draw_sum_pairs_prefetch",
    "draw_sumsq_pairs",
    "draw_sumsq_pairs_prefetch",
    "fy_pairs",
    "fy_swap_sum_pairs",
    "pairs_interleaved",
    "pairs_split",
    "target_lanes",
]

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_MASK32 = 0xFFFFFFFF
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


@functools.cache
def target_lanes() -> int:
    """The vector width the intrinsics use when numba compiles for this machine
    (or for the CPU named by ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES``)."""
    from numba.core.registry import cpu_target

    return _lanes(cpu_target.target_context)


def _lanes(context) -> int:
    """Vector width for the target numba compiles for (its feature string)."""
    features = getattr(context.codegen(), "_tm_features", "") or ""
    return 8 if "+avx512dq" in features.split(",") else 4


class _Vec:
    """Helpers on one vector type inside one codegen call."""

    def __init__(self, builder, lanes):
        self.b = builder
        self.n = lanes
        self.ty = ir.VectorType(_I64, lanes)

    def const(self, value):
        return ir.Constant(self.ty, [value] * self.n)

    def splat(self, x):
        v = self.b.insert_element(ir.Constant(self.ty, ir.Undefined), x, _I32(0))
        zeros = ir.Constant(ir.VectorType(_I32, self.n), [0] * self.n)
        return self.b.shuffle_vector(v, ir.Constant(self.ty, ir.Undefined), zeros)

    def mix64(self, z):
        """Stafford's variant 13, lane by lane (:func:`skboot._random.mix64`)."""
        b = self.b
        z = b.mul(b.xor(z, b.lshr(z, self.const(30))), self.const(_M1))
        z = b.mul(b.xor(z, b.lshr(z, self.const(27))), self.const(_M2))
        return b.xor(z, b.lshr(z, self.const(31)))

    @property
    def ty32(self):
        return ir.VectorType(_I32, 2 * self.n)

    def low_init(self):
        """Running minimum of Lemire low words, kept on 32-bit lanes."""
        return ir.Constant(self.ty32, [_MASK32] * (2 * self.n))

    def low_update(self, low, m):
        """``low`` lane-wise min the 32-bit halves of ``m``: the even lanes hold
        the low words (little-endian), the odd lanes collect the high words and
        are ignored at the end; an unsigned 32-bit min is one instruction on
        SSE4.1 and later, where a 64-bit compare is several."""
        w = self.b.bitcast(m, self.ty32)
        return self.b.select(self.b.icmp_unsigned("<", w, low), w, low)

    def low_min(self, low):
        """The minimum of the even (low-word) lanes, as a 64-bit integer."""
        b = self.b
        r = b.extract_element(low, _I32(0))
        for k in range(2, 2 * self.n, 2):
            e = b.extract_element(low, _I32(k))
            r = b.select(b.icmp_unsigned("<", e, r), e, r)
        return b.zext(r, _I64)

    def store(self, value, base, offset):
        ptr = self.b.bitcast(self.b.gep(base, [offset]), self.ty.as_pointer())
        self.b.store(value, ptr, align=8)


class _Draw:
    """The block draw's state in one codegen call: the next outputs' counter
    vector and the running Lemire low-word minimum (both in stack slots that LLVM
    promotes to registers)."""

    def __init__(self, V, seed, gamma, ctr, u):
        b = self.b = V.b
        self.V = V
        # only the low 32 bits of u: the products are 32 x 32 -> 64
        self.uv = V.splat(b.and_(u, _I64(_MASK32)))
        start = b.add(seed, b.mul(b.add(ctr, _I64(1)), gamma))
        gs = V.splat(gamma)
        lane_ix = ir.Constant(V.ty, list(range(V.n)))
        self.base = cgutils.alloca_once(b, V.ty)
        self.low = cgutils.alloca_once(b, V.ty32)
        b.store(b.add(V.splat(start), b.mul(gs, lane_ix)), self.base)
        b.store(V.low_init(), self.low)
        self.step = b.mul(gs, V.const(V.n))

    def next(self):
        """The draws of the next ``L`` outputs: (high halves, low halves)."""
        b, V = self.b, self.V
        base = b.load(self.base)
        z = V.mix64(base)
        m0 = b.mul(b.lshr(z, V.const(32)), self.uv)
        m1 = b.mul(b.and_(z, V.const(_MASK32)), self.uv)
        low = V.low_update(b.load(self.low), m0)
        b.store(V.low_update(low, m1), self.low)
        b.store(b.add(base, self.step), self.base)
        return b.lshr(m0, V.const(32)), b.lshr(m1, V.const(32))

    def low_min(self):
        return self.V.low_min(self.b.load(self.low))


def _make_pairs(split: bool):
    def impl(typingctx, seed, gamma, ctr, u, buf, h):
        sig = types.uint64(seed, gamma, ctr, u, buf, h)

        def codegen(context, builder, signature, args):
            seed_v, gamma_v, ctr_v, u_v, buf_v, h_v = args
            lanes = _lanes(context)
            V = _Vec(builder, lanes)
            data = context.make_array(signature.args[4])(context, builder, buf_v).data
            draw = _Draw(V, seed_v, gamma_v, ctr_v, u_v)
            nvec = builder.udiv(h_v, _I64(lanes))
            with cgutils.for_range(builder, nvec) as loop:
                t = builder.mul(loop.index, _I64(lanes))
                d0, d1 = draw.next()
                if split:
                    V.store(d0, data, t)
                    V.store(d1, data, builder.add(t, h_v))
                else:
                    first = list(range(lanes))
                    pairs = [x for k in first for x in (k, k + lanes)]
                    lo = ir.Constant(ir.VectorType(_I32, lanes), pairs[:lanes])
                    hi = ir.Constant(ir.VectorType(_I32, lanes), pairs[lanes:])
                    t2 = builder.add(t, t)
                    V.store(builder.shuffle_vector(d0, d1, lo), data, t2)
                    V.store(
                        builder.shuffle_vector(d0, d1, hi),
                        data,
                        builder.add(t2, _I64(lanes)),
                    )
            return draw.low_min()

        return sig, codegen

    impl.__name__ = "pairs_split" if split else "pairs_interleaved"
    return intrinsic(impl)


#: ``pairs_interleaved(seed, gamma, ctr, u, buf, h)``: for the first
#: ``h - h % L`` outputs ``t`` (``L`` the vector width, see the module docstring),
#: ``z = mix64(seed + (ctr + t + 1) * gamma)``; ``buf[2t]`` and ``buf[2t + 1]`` get
#: the bounded draws of the high and low halves of ``z`` (``(half * u) >> 32``).
#: Returns the smallest ``(half * u) & (2**32 - 1)`` seen (``2**32 - 1`` if none),
#: which the caller compares with Lemire's rejection threshold.  ``u < 2**32``.
pairs_interleaved = _make_pairs(False)
#: As :data:`pairs_interleaved` with the halves unshuffled: the high half's draw
#: of output ``t`` goes to ``buf[t]``, the low half's to ``buf[h + t]``.  ``h``
#: must be a multiple of 8.
pairs_split = _make_pairs(True)


def _prefetch(builder, ptr):
    """``llvm.prefetch`` of ``ptr`` for reading, into every cache level."""
    i8p = ir.IntType(8).as_pointer()
    fnty = ir.FunctionType(ir.VoidType(), [i8p, _I32, _I32, _I32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
    builder.call(fn, [builder.bitcast(ptr, i8p), _I32(0), _I32(3), _I32(1)])


def _make_pipe(prefetch: bool, squares: bool):
    def impl(typingctx, acc, x, cur, nxt, seed, gamma, ctr, u, h):
        sig = types.uint64(acc, x, cur, nxt, seed, gamma, ctr, u, h)

        def codegen(context, builder, signature, args):
            acc_v, x_v, cur_v, nxt_v, seed_v, gamma_v, ctr_v, u_v, h_v = args
            lanes = _lanes(context)
            V = _Vec(builder, lanes)

            def data(i, v):
                return context.make_array(signature.args[i])(context, builder, v).data

            acc_p, x_p, cur_p, nxt_p = (
                data(0, acc_v),
                data(1, x_v),
                data(2, cur_v),
                data(3, nxt_v),
            )
            nacc = 8
            slots = []
            for k in range(nacc):
                slot = cgutils.alloca_once(builder, ir.DoubleType())
                builder.store(builder.load(builder.gep(acc_p, [_I64(k)])), slot)
                slots.append(slot)

            def add(j, v):
                builder.store(builder.fadd(builder.load(slots[j]), v), slots[j])

            draw = _Draw(V, seed_v, gamma_v, ctr_v, u_v)
            nvec = builder.udiv(h_v, _I64(lanes))
            with cgutils.for_range(builder, nvec) as loop:
                t = builder.mul(loop.index, _I64(lanes))
                # the next block's outputs t .. t + L - 1 ...
                d0, d1 = draw.next()
                V.store(d0, nxt_p, t)
                V.store(d1, nxt_p, builder.add(t, h_v))
                if prefetch:
                    # the next block's rows start on their way from memory now
                    for d in (d0, d1):
                        for k in range(lanes):
                            row = builder.extract_element(d, _I32(k))
                            _prefetch(builder, builder.gep(x_p, [row]))
                # ... while this block's draws of the same outputs are summed
                for k in range(lanes):
                    for half in (0, 1):
                        pos = builder.add(t, _I64(k))
                        if half:
                            pos = builder.add(pos, h_v)
                        row = builder.load(builder.gep(cur_p, [pos]))
                        v = builder.load(builder.gep(x_p, [row]))
                        if squares:
                            j = 2 * (k % 2) + half
                            add(j, v)
                            add(4 + j, builder.fmul(v, v))
                        else:
                            add(2 * (k % 4) + half, v)
            for k in range(nacc):
                builder.store(builder.load(slots[k]), builder.gep(acc_p, [_I64(k)]))
            return draw.low_min()

        return sig, codegen

    impl.__name__ = ("draw_sumsq_pairs" if squares else "draw_sum_pairs") + (
        "_prefetch" if prefetch else ""
    )
    return intrinsic(impl)


#: ``draw_sum_pairs(acc, x, cur, nxt, seed, gamma, ctr, u, h)``: software
#: pipelining of a kernel that sums drawn rows.  Writes the next block (outputs
#: ``ctr .. ctr + h - 1``, split layout as :data:`pairs_split`) into ``nxt`` while
#: it adds the rows of the current block, already in ``cur`` (split layout), to
#: ``acc``: draw ``j`` of the block to ``acc[j % 8]``, in draw order.  The vector
#: arithmetic of the next block and the loads of the current one overlap.  Returns
#: the next block's Lemire low-word minimum (see :data:`pairs_interleaved`).
draw_sum_pairs = _make_pipe(False, False)
#: As :data:`draw_sum_pairs`, and a prefetch of every row of the next block as
#: soon as it is drawn: for data beyond the L2 cache, the next block's loads are
#: then in flight a whole block before they are summed.
draw_sum_pairs_prefetch = _make_pipe(True, False)
#: As :data:`draw_sum_pairs` for a sum and a sum of squares: draw ``j`` of the
#: current block is added to ``acc[j % 4]`` and its square to ``acc[4 + j % 4]``,
#: in draw order.
draw_sumsq_pairs = _make_pipe(False, True)
#: :data:`draw_sumsq_pairs` with the prefetch of :data:`draw_sum_pairs_prefetch`.
draw_sumsq_pairs_prefetch = _make_pipe(True, True)


class _FyDraw:
    """The Fisher-Yates block draw's state in one codegen call: the counter
    vector, the bounds of the next outputs' two halves (``top - 2t`` and
    ``top - 2t - 1``) and the OR of the rejection flags (stack slots that LLVM
    promotes to registers)."""

    def __init__(self, V, seed, gamma, ctr, top):
        b = self.b = V.b
        self.V = V
        self.mask = V.const(_MASK32)
        start = b.add(seed, b.mul(b.add(ctr, _I64(1)), gamma))
        gs = V.splat(gamma)
        lane_ix = ir.Constant(V.ty, list(range(V.n)))
        self.base = cgutils.alloca_once(b, V.ty)
        b.store(b.add(V.splat(start), b.mul(gs, lane_ix)), self.base)
        self.step = b.mul(gs, V.const(V.n))
        self.bound = cgutils.alloca_once(b, V.ty)
        twice = ir.Constant(V.ty, [2 * k for k in range(V.n)])
        b.store(b.sub(V.splat(top), twice), self.bound)
        self.bad = cgutils.alloca_once(b, V.ty)
        b.store(V.const(0), self.bad)
        pairs = [x for k in range(V.n) for x in (k, k + V.n)]
        self.lo_ix = ir.Constant(ir.VectorType(_I32, V.n), pairs[: V.n])
        self.hi_ix = ir.Constant(ir.VectorType(_I32, V.n), pairs[V.n :])

    def next_into(self, data, t2):
        """Draw the next ``L`` outputs into ``data[t2 .. t2 + 2L - 1]`` (high
        half of output ``t`` at ``2t``, low half at ``2t + 1``)."""
        b, V, mask = self.b, self.V, self.mask
        cur = b.load(self.base)
        z = V.mix64(cur)
        b.store(b.add(cur, self.step), self.base)
        bd = b.load(self.bound)
        # both factors masked to 32 bits: one 32 x 32 -> 64 multiply each
        m0 = b.and_(bd, mask)
        m1 = b.and_(b.sub(bd, V.const(1)), mask)
        b.store(b.sub(bd, V.const(2 * V.n)), self.bound)
        p0 = b.mul(b.lshr(z, V.const(32)), m0)
        p1 = b.mul(b.and_(z, mask), m1)
        d0 = b.lshr(p0, V.const(32))
        d1 = b.lshr(p1, V.const(32))
        V.store(b.shuffle_vector(d0, d1, self.lo_ix), data, t2)
        V.store(b.shuffle_vector(d0, d1, self.hi_ix), data, b.add(t2, _I64(V.n)))
        # a low word below its bound (negative difference) may be rejected
        flag = b.or_(b.sub(b.and_(p0, mask), m0), b.sub(b.and_(p1, mask), m1))
        b.store(b.or_(b.load(self.bad), flag), self.bad)

    def flags(self):
        """The OR of every draw's flag, as one 64-bit integer."""
        b = self.b
        acc = b.load(self.bad)
        r = b.extract_element(acc, _I32(0))
        for k in range(1, self.V.n):
            r = b.or_(r, b.extract_element(acc, _I32(k)))
        return r


def _fy_pairs_impl(typingctx, seed, gamma, ctr, top, buf, h):
    sig = types.uint64(seed, gamma, ctr, top, buf, h)

    def codegen(context, builder, signature, args):
        seed_v, gamma_v, ctr_v, top_v, buf_v, h_v = args
        lanes = _lanes(context)
        V = _Vec(builder, lanes)
        data = context.make_array(signature.args[4])(context, builder, buf_v).data
        draw = _FyDraw(V, seed_v, gamma_v, ctr_v, top_v)
        nvec = builder.udiv(h_v, _I64(lanes))
        with cgutils.for_range(builder, nvec) as loop:
            draw.next_into(data, builder.mul(loop.index, _I64(2 * lanes)))
        return draw.flags()

    return sig, codegen


_fy_pairs_impl.__name__ = "fy_pairs"
#: ``fy_pairs(seed, gamma, ctr, top, buf, h)``: the Fisher-Yates block draw on
#: vector types.  For the first ``h - h % L`` outputs ``t``,
#: ``z = mix64(seed + (ctr + t + 1) * gamma)``; ``buf[2t]`` gets the bounded draw
#: of the high half of ``z`` in ``[0, top - 2t)`` and ``buf[2t + 1]`` that of the
#: low half in ``[0, top - 2t - 1)`` (``(half * bound) >> 32``, no rejection).
#: Returns the OR over the draws of ``(half * bound) mod 2**32 - bound`` (modulo
#: ``2**64``): its sign bit is set when some low product fell below its bound, so
#: that a word might be rejected.  ``top < 2**32`` and ``top >= 2h``.
fy_pairs: Any = intrinsic(_fy_pairs_impl)


def _fy_swap_sum_impl(
    typingctx, acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos, h
):
    sig = types.uint64(acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos, h)

    def codegen(context, builder, signature, args):
        (
            acc_v,
            work_v,
            touched_v,
            cur_v,
            nxt_v,
            seed_v,
            gamma_v,
            ctr_v,
            top_v,
            pos_v,
            h_v,
        ) = args
        b = builder
        lanes = _lanes(context)
        V = _Vec(b, lanes)

        def data(i, v):
            return context.make_array(signature.args[i])(context, b, v).data

        acc_p, work_p, touched_p, cur_p, nxt_p = (
            data(k, v) for k, v in enumerate((acc_v, work_v, touched_v, cur_v, nxt_v))
        )
        slots = []
        for k in range(8):
            slot = cgutils.alloca_once(b, ir.DoubleType())
            b.store(b.load(b.gep(acc_p, [_I64(k)])), slot)
            slots.append(slot)
        draw = _FyDraw(V, seed_v, gamma_v, ctr_v, top_v)
        lane_ix = ir.Constant(V.ty, list(range(lanes)))
        nvec = b.udiv(h_v, _I64(lanes))
        with cgutils.for_range(b, nvec) as loop:
            t2 = b.mul(loop.index, _I64(2 * lanes))
            # the next block's draws of these outputs ...
            draw.next_into(nxt_p, t2)
            # ... while the current block's steps at the same places are made
            # the steps' targets j = p + r, a vector at a time (the draws and
            # the record of the targets are contiguous) ...
            targets = []
            for half in (0, 1):
                off = b.add(t2, _I64(half * lanes))
                r = b.load(b.bitcast(b.gep(cur_p, [off]), V.ty.as_pointer()), align=8)
                jv = b.add(b.add(V.splat(b.add(pos_v, off)), lane_ix), r)
                V.store(jv, touched_p, b.add(pos_v, off))
                targets.append(jv)
            # ... then the steps themselves, in order
            for q in range(2 * lanes):
                j = b.extract_element(targets[q // lanes], _I32(q % lanes))
                p = b.add(pos_v, b.add(t2, _I64(q)))
                pj = b.gep(work_p, [j])
                v = b.load(pj)
                b.store(b.load(b.gep(work_p, [p])), pj)
                slot = slots[q & 7]
                b.store(b.fadd(b.load(slot), v), slot)
        for k in range(8):
            b.store(b.load(slots[k]), b.gep(acc_p, [_I64(k)]))
        return draw.flags()

    return sig, codegen


#: ``fy_swap_sum_pairs(acc, work, touched, cur, nxt, seed, gamma, ctr, top, pos,
#: h)``: software pipelining of the forward Fisher-Yates steps that sum the
#: values landing in their positions.  Draws the next block into ``nxt`` (as
#: :data:`fy_pairs` with ``ctr``, ``top``, ``h``) while it makes the steps of the
#: current block, already drawn into ``cur``: step ``u < 2h`` at position
#: ``p = pos + u`` with ``j = p + cur[u]`` adds ``work[j]`` to ``acc[u % 8]``,
#: moves ``work[p]`` to ``work[j]`` and records ``touched[p] = j``, in order.
#: Returns the next block's flags (see :data:`fy_pairs`).  ``h`` a multiple of
#: ``L``; ``pos`` and ``acc`` as the caller's rule needs (``u % 8`` is the
#: accumulator of step ``u``).
fy_swap_sum_pairs: Any = intrinsic(_fy_swap_sum_impl)


def _make_rows_pipe(squares: bool):
    def impl(typingctx, acc, acc2, X, cur, nxt, seed, gamma, ctr, u, h, width):
        sig = types.uint64(acc, acc2, X, cur, nxt, seed, gamma, ctr, u, h, width)

        def codegen(context, builder, signature, args):
            (
                acc_v,
                acc2_v,
                X_v,
                cur_v,
                nxt_v,
                seed_v,
                gamma_v,
                ctr_v,
                u_v,
                h_v,
                w_v,
            ) = args
            b = builder
            lanes = _lanes(context)
            V = _Vec(b, lanes)
            row_ty = ir.VectorType(ir.DoubleType(), 8)

            def data(i, v):
                return context.make_array(signature.args[i])(context, b, v).data

            acc_p, acc2_p, x_p, cur_p, nxt_p = (
                data(k, v) for k, v in enumerate((acc_v, acc2_v, X_v, cur_v, nxt_v))
            )

            def row_ptr(base, off):
                return b.bitcast(b.gep(base, [off]), row_ty.as_pointer())

            # accumulator row p (columns 0..7) in a local slot, and its squares
            slots = []
            for p in range(8):
                pair = []
                for arr in (acc_p, acc2_p) if squares else (acc_p,):
                    ptr = row_ptr(arr, b.mul(_I64(p), w_v))
                    slot = cgutils.alloca_once(b, row_ty)
                    b.store(b.load(ptr, align=8), slot)
                    pair.append((slot, ptr))
                slots.append(pair)
            draw = _Draw(V, seed_v, gamma_v, ctr_v, u_v)
            nvec = b.udiv(h_v, _I64(lanes))
            with cgutils.for_range(b, nvec) as loop:
                t = b.mul(loop.index, _I64(lanes))
                # the next block's outputs t .. t + L - 1 ...
                d0, d1 = draw.next()
                V.store(d0, nxt_p, t)
                V.store(d1, nxt_p, b.add(t, h_v))
                # ... while this block's rows of the same outputs are added
                for k in range(lanes):
                    for half in (0, 1):
                        pos = b.add(t, _I64(k))
                        if half:
                            pos = b.add(pos, h_v)
                        row = b.load(b.gep(cur_p, [pos]))
                        v = b.load(row_ptr(x_p, b.mul(row, w_v)), align=8)
                        pair = slots[2 * (k % 4) + half]
                        slot = pair[0][0]
                        b.store(b.fadd(b.load(slot), v), slot)
                        if squares:
                            slot2 = pair[1][0]
                            b.store(b.fadd(b.load(slot2), b.fmul(v, v)), slot2)
            for pair in slots:
                for slot, ptr in pair:
                    b.store(b.load(slot), ptr, align=8)
            return draw.low_min()

        return sig, codegen

    impl.__name__ = "draw_rows8_sq_pairs" if squares else "draw_rows8_pairs"
    return intrinsic(impl)


#: ``draw_rows8_pairs(acc, acc2, X, cur, nxt, seed, gamma, ctr, u, h, width)``:
#: :data:`draw_sum_pairs` for rows of eight columns.  Draws the next block into
#: ``nxt`` (split layout) while it adds the rows of the current block (``cur``,
#: split layout) lane-wise: draw ``j``'s row ``X[cur_j * width + 0..7]`` into
#: ``acc[(j % 8) * width + 0..7]``, in draw order (``X``, ``acc`` flat float64;
#: ``acc2`` unused).  Returns the next block's Lemire low-word minimum.
draw_rows8_pairs = _make_rows_pipe(False)
#: As :data:`draw_rows8_pairs`, and the squares into ``acc2`` (multiply, then
#: add, as the scalar kernels).
draw_rows8_sq_pairs = _make_rows_pipe(True)
