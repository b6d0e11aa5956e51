"""Eight-lane kernels that draw a weight scheme's counts and reduce them in one pass
(numba intrinsics on LLVM's ``<8 x i64>`` and ``<8 x double>`` types).

The Poisson bootstrap's fused kernel reduces eight replicates side by side, rows
in order (:mod:`skboot._kernels.fused_weights`).  Drawing each replicate's counts
into a tile and reading the tile back transposed costs more than the draws: eight
scalar loads per row to gather the lanes.  :data:`poisson_lanes8` keeps the eight
replicates' SplitMix64 states in one vector instead, so a row's eight outputs, their
counts and the weighted terms never leave the registers.

The count of an output ``z`` is the number of thresholds ``T[j]`` (see
:func:`skboot._kernels.fused_weights.poisson_thresholds`, here the constants
:data:`POISSON_THRESHOLDS`) that ``z >> 11`` reaches.  Every row compares its
eight lanes against the first four (counts 0-3 cover 99.6% of the outputs); a
row where some lane reaches the fourth takes a branch that compares against the
rest.  The fast kernels resolve counts up to ``POISSON_LANE_COUNTS - 1`` and
report a tile where a count reaches ``POISSON_LANE_COUNTS`` (probability 1.0e-5
an output, 2% of the tiles of 8 x 256 outputs); the caller redoes that tile
with the ``_exact`` kernels, which compare against all ``POISSON_MAX``
thresholds, as the stream caps its counts.  Every lane performs the scalar
kernel's operations in its order (weight times value, times value again; a
zero count adds nothing), so a lane equals the two-pass kernel bit for bit.
Nothing here depends on the instruction set: LLVM lowers the 64-bit vector
multiplies and compares to what the target has (measured on AVX2, where eight
lanes are two registers).
"""

from __future__ import annotations

import math

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from skboot._random import POISSON_MAX

__all__ = [
    "MIX64_M1",
    "MIX64_M2",
    "POISSON_LANE_COUNTS",
    "POISSON_THRESHOLDS",
    "poisson_lanes8",
    "poisson_lanes8_exact",
    "poisson_lanes8_exact_sq",
    "poisson_lanes8_sq",
]

#: The multipliers of SplitMix64's finalizer (:func:`skboot._random.mix64`); the
#: tests compare this module's lanes with ``mix64`` output by output.
MIX64_M1 = 0xBF58476D1CE4E5B9
MIX64_M2 = 0x94D049BB133111EB
#: Counts the vector pass resolves (0 .. POISSON_LANE_COUNTS - 1); a row with a
#: larger count sends its tile to the exact recount.  Eight thresholds: the
#: recount then runs for about 2% of the tiles of 8 x 256 draws; seven would
#: send 16%, nine would cost one more compare per row and lane for 0.2%.
POISSON_LANE_COUNTS = 8


def _thresholds(count):
    """:func:`skboot._kernels.fused_weights.poisson_thresholds` in Python (the
    same IEEE double operations; the tests compare the two)."""
    out = []
    p = cdf = 0.36787944117144233
    for k in range(count):
        out.append(math.ceil(cdf * 9007199254740992.0))
        p = p / (k + 1)
        cdf += p
    return tuple(out)


#: The thresholds of the Poisson(1) inversion, as integers
POISSON_THRESHOLDS = _thresholds(POISSON_MAX)
#: Thresholds every row compares against; the rest only in rows where a lane
#: reaches this one
_COMMON = 4

_I64 = ir.IntType(64)
_V8I = ir.VectorType(_I64, 8)
_V8 = ir.VectorType(ir.DoubleType(), 8)
#: the bits of 2**52: the double with the bits ``_TWO52_BITS + k`` is ``2**52 + k``
#: for ``0 <= k < 2**52`` (so subtracting 2**52 gives ``k`` exactly)
_TWO52_BITS = 0x4330000000000000


def _splat(builder, scalar, vec):
    first = builder.insert_element(ir.Constant(vec, None), scalar, ir.Constant(_I64, 0))
    mask = ir.Constant(ir.VectorType(ir.IntType(32), vec.count), [0] * vec.count)
    return builder.shuffle_vector(first, ir.Constant(vec, None), mask)


def _vptr(builder, base, offset, vec):
    return builder.bitcast(builder.gep(base, [offset]), vec.as_pointer())


def _mix64(builder, z):
    """Stafford's variant-13 finalizer on vector lanes (as :func:`mix64`)."""
    vec = z.type

    def c(value):
        return ir.Constant(vec, [value] * vec.count)

    z = builder.xor(z, builder.lshr(z, c(30)))
    z = builder.mul(z, c(MIX64_M1))
    z = builder.xor(z, builder.lshr(z, c(27)))
    z = builder.mul(z, c(MIX64_M2))
    return builder.xor(z, builder.lshr(z, c(31)))


def _make_poisson_lanes8(squares: bool, counts: int):
    """``poisson_lanes8[_sq|_exact...](acc, tot, zp, gamma, x, xoff, c)`` -> int64.

    For rows ``t < c`` in order: lane ``r``'s SplitMix64 output is
    ``z = mix64(zp[r])``, then ``zp[r] += gamma``; its count ``k`` is the number
    of the first ``counts`` thresholds :data:`POISSON_THRESHOLDS` that ``z >> 11``
    reaches; ``tot[r] += k`` and, for ``k != 0``, ``acc[r] += k * x[xoff + t]``
    (with ``_sq`` also ``acc[8 + r] += (k * x) * x``).  Returns non-zero when
    some lane reached the last of them (with ``counts < POISSON_MAX`` its count
    may be larger: the caller recounts).  ``acc`` is float64 (8, or 16 with
    ``_sq``), ``tot`` int64 (8), ``zp`` uint64 (8), all updated in place; ``x``
    float64.
    """

    def impl(typingctx, acc, tot, zp, gamma, x, xoff, c):
        sig = types.int64(acc, tot, zp, gamma, x, xoff, c)

        def codegen(context, builder, signature, args):
            arrays = [
                context.make_array(signature.args[i])(context, builder, args[i])
                for i in (0, 1, 2, 4)
            ]
            return _poisson_rows(builder, arrays, args, squares, counts)

        return sig, codegen

    impl.__name__ = "poisson_lanes8" + ("_sq" if squares else "")
    return intrinsic(impl)


def _poisson_rows(builder, arrays, args, squares, counts):
    """The row loop of :func:`_make_poisson_lanes8` (LLVM IR)."""
    A, TOT, ZP, XA = arrays
    gamma_v, xoff_v, c_v = args[3], args[5], args[6]
    vi, vd = _V8I, _V8

    def ci(value):
        return ir.Constant(vi, [value] * 8)

    zero = ir.Constant(vd, [0.0] * 8)
    izero = ci(0)
    # v >= T[j] as v > T[j] - 1 against constants: no register holds them
    limits = [ci(tj - 1) for tj in POISSON_THRESHOLDS[:counts]]
    gam = _splat(builder, gamma_v, vi)
    two52 = ir.Constant(vd, [4503599627370496.0] * 8)
    # loop-carried state in local slots (promoted to registers by LLVM)
    state = {}
    for name, arr, vec, off in (
        ("s1", A, vd, 0),
        ("s2", A, vd, 8),
        ("tot", TOT, vi, 0),
        ("zp", ZP, vi, 0),
    ):
        if name == "s2" and not squares:
            continue
        ptr = _vptr(builder, arr.data, ir.Constant(_I64, off), vec)
        slot = cgutils.alloca_once(builder, vec)
        builder.store(builder.load(ptr, align=8), slot)
        state[name] = (slot, ptr)
    flag = cgutils.alloca_once(builder, vi)
    builder.store(izero, flag)
    kslot = cgutils.alloca_once(builder, vi)
    with cgutils.for_range(builder, c_v) as loop:
        t = loop.index
        zslot = state["zp"][0]
        zp_now = builder.load(zslot)
        builder.store(builder.add(zp_now, gam), zslot)
        v = builder.lshr(_mix64(builder, zp_now), ci(11))
        keep = builder.icmp_signed(">", v, limits[0])
        k = builder.sext(keep, vi)
        for lim in limits[1:_COMMON]:
            k = builder.add(k, builder.sext(builder.icmp_signed(">", v, lim), vi))
        builder.store(k, kslot)
        # counts of _COMMON or more (0.37% of the outputs): a branch taken by
        # 2.9% of the rows of eight lanes
        rare = builder.icmp_signed(">", v, limits[_COMMON])
        any_rare = builder.icmp_unsigned(
            "!=", builder.bitcast(rare, ir.IntType(8)), ir.Constant(ir.IntType(8), 0)
        )
        with builder.if_then(any_rare, likely=False):
            k = builder.add(builder.load(kslot), builder.sext(rare, vi))
            hit = rare
            for lim in limits[_COMMON + 1 :]:
                hit = builder.icmp_signed(">", v, lim)
                k = builder.add(k, builder.sext(hit, vi))
            builder.store(k, kslot)
            if counts < POISSON_MAX:
                builder.store(
                    builder.or_(builder.load(flag), builder.sext(hit, vi)), flag
                )
        # kslot holds -k: tot - (-k), and the bits of 2**52 + k are those of
        # 2**52 plus k (an integer subtraction, no negation)
        nk = builder.load(kslot)
        tslot = state["tot"][0]
        builder.store(builder.sub(builder.load(tslot), nk), tslot)
        w = builder.bitcast(builder.sub(ci(_TWO52_BITS), nk), vd)
        w = builder.fsub(w, two52)
        xv = builder.load(builder.gep(XA.data, [builder.add(xoff_v, t)]))
        xs = _splat(builder, xv, vd)
        prod = builder.fmul(w, xs)
        slot = state["s1"][0]
        term = builder.select(keep, prod, zero)
        builder.store(builder.fadd(builder.load(slot), term), slot)
        if squares:
            slot2 = state["s2"][0]
            term2 = builder.select(keep, builder.fmul(prod, xs), zero)
            builder.store(builder.fadd(builder.load(slot2), term2), slot2)
    for slot, ptr in state.values():
        builder.store(builder.load(slot), ptr, align=8)
    any_lane = builder.icmp_signed("!=", builder.load(flag), izero)
    bits = builder.bitcast(any_lane, ir.IntType(8))
    return builder.zext(bits, _I64)


#: ``poisson_lanes8(acc, tot, zp, gamma, x, xoff, c)``: the counts below
#: POISSON_LANE_COUNTS exactly; returns non-zero if a row needs the recount
poisson_lanes8 = _make_poisson_lanes8(False, POISSON_LANE_COUNTS)
#: As :data:`poisson_lanes8`, and the squares
poisson_lanes8_sq = _make_poisson_lanes8(True, POISSON_LANE_COUNTS)
#: As :data:`poisson_lanes8` with every threshold (counts up to POISSON_MAX, as
#: the stream caps them): exact, returns 0; the recount of a flagged tile
poisson_lanes8_exact = _make_poisson_lanes8(False, POISSON_MAX)
#: As :data:`poisson_lanes8_exact`, and the squares
poisson_lanes8_exact_sq = _make_poisson_lanes8(True, POISSON_MAX)
