"""skboot's own ``-log(v)``: the Exp(1) variates of the Bayesian bootstrap's weights.

A flat-Dirichlet weight is an Exp(1) variate ``-log(1 - u)`` of a stream uniform
``u`` (:func:`skboot._random.unit_double`), normalized.  The C library's ``log``
differs between platforms and devices in the last bit, so the weights would too;
this module computes ``-log(v)`` with a fixed sequence of IEEE-754 double
operations, each rounded to nearest (no fused multiply-add, no library call), so
every platform, the CUDA kernels (:mod:`skboot._kernels.cuda.stream`, with explicit
round-to-nearest intrinsics) and the numpy reference
(:func:`skboot._random.reference_exponentials`) give the same bits.

The algorithm (stream version 2)
--------------------------------
For a positive normal double ``v`` (the stream gives ``v = 1 - u = m * 2**-53``,
``m`` an integer in ``[1, 2**53]``):

1. Reduction, exact (integer operations on the bits of ``v``): ``v = 2**E * f``
   with ``f`` in ``[r, 2r)``, ``r`` the double nearest ``sqrt(1/2)``; ``k = -E``.
   ``g = f - 1`` is exact (Sterbenz), ``|g| <= 0.415``.
2. ``log(f) = log1p(g) = 2 atanh(s)`` with ``s = g / (2 + g)``, ``|s| <= 0.1716``:
   ``2 atanh(s) = 2s + s R(s**2)``, where ``R(w) = sum_j c_j w**j`` (``j = 1..7``)
   is our minimax fit of ``(2 atanh(sqrt w) - 2 sqrt w) / sqrt w`` on
   ``[0, 0.02944]`` (absolute error ``2**-57.9`` with the coefficients rounded
   to doubles; made by ``tools/fit_log_polynomial.py``).
3. Since ``2s = g - s g``, ``log1p(g) = g - (h - s (h + R))`` with ``h = g**2 / 2``
   (the form of fdlibm's ``e_log.c``, Sun Microsystems 1993, which keeps the
   rounding of ``s`` out of the leading term).
4. ``-log(v) = k ln2_hi + ((h - (s (h + R) - k ln2_lo)) - g)``, where ``ln2_hi``
   is ``ln 2`` rounded to 42 bits (so ``k ln2_hi`` is exact) and ``ln2_lo`` the
   double nearest ``ln 2 - ln2_hi``.

Every step is written out below in evaluation order; the other two
implementations repeat it operation for operation.  Measured against ``log``
computed in 60-digit decimal arithmetic, the result is within 1 ulp (see
``tests/test_exp.py``); ``v = 1`` gives ``+0.0``.  The loop over rows vectorizes
(bit operations, adds, multiplies and one division per value; no table lookups,
no branches).

References
----------
.. [1] P. T. P. Tang, "Table-driven implementation of the logarithm function in
       IEEE floating-point arithmetic", ACM TOMS 16(4), 1990 (the reduction).
.. [2] Sun Microsystems, fdlibm ``e_log.c`` (1993): ``log1p(g) = g - (h - s (h +
       R))`` and the split of ``ln 2``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from skboot._random._core import _U11, _U32, MASK32

__all__ = [
    "EXP_LN2_HI",
    "EXP_LN2_LO",
    "EXP_POLY",
    "EXP_SQRT_HALF_BITS",
    "bits_double",
    "complement53",
    "double_bits",
    "exp1_of_complement",
    "exp1_of_output",
    "neg_log",
]

#: ``c_1 .. c_7`` of ``R(w)`` (tools/fit_log_polynomial.py).
EXP_POLY = (
    0.6666666666666734,
    0.39999999999414676,
    0.2857142874238762,
    0.22222198573184523,
    0.18183564326119675,
    0.15314050552112712,
    0.14795949700582858,
)
#: ``ln 2`` rounded to 42 significant bits (``k * EXP_LN2_HI`` is exact for
#: ``|k| < 2**11``) and the double nearest the rest.
EXP_LN2_HI = 0.6931471805598903
EXP_LN2_LO = 5.497923018708371e-14
#: The bits of the double nearest ``sqrt(1/2)``: the reduced ``f`` lies in
#: ``[that double, twice it)``.
EXP_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD

_C1, _C2, _C3, _C4, _C5, _C6, _C7 = EXP_POLY
_U52 = np.uint64(52)
#: ``1023 << 52``: the exponent bias in place.
_BIAS = np.uint64(1023 << 52)
#: ``(ix + _REDUCE) >> 52`` is ``E + 1023`` for ``v = 2**E f``, f in [r, 2r)
#: (no wraparound for a positive normal ``v``).
_REDUCE = np.uint64((1023 << 52) - EXP_SQRT_HALF_BITS)
#: ``bits_double(_MAGIC52 | j)`` is ``2**52 + j`` for ``0 <= j < 2**52``.
_MAGIC52 = np.uint64(0x4330000000000000)
#: ``bits_double(_MAGIC84 | j)`` is ``2**84 + j * 2**32`` for ``0 <= j < 2**52``.
_MAGIC84 = np.uint64(0x4530000000000000)
#: ``2**84 + 2**52`` (exact).
_OFF84 = 19342813118337666422669312.0
#: ``2**52 + 1023``: ``_K_OFF - bits_double(_MAGIC52 | (E + 1023))`` is ``-E``.
_K_OFF = 4503599627371519.0
#: ``_K_OFF + 53``: ``-log(m * 2**-53)`` from the bits of ``m``.
_K_OFF53 = 4503599627371572.0
_TWO53_U = np.uint64(1 << 53)


# ---------------------------------------------------------------------------
# bit casts (one LLVM instruction each; they vectorize)
# ---------------------------------------------------------------------------
@intrinsic
def double_bits(typingctx, x):
    """The IEEE-754 bits of a float64, as a uint64."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.uint64(types.float64), codegen


@intrinsic
def bits_double(typingctx, x):
    """The float64 whose IEEE-754 bits are the uint64 ``x``."""
    if x not in (types.uint64, types.int64):
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(x), codegen


# ---------------------------------------------------------------------------
# the Exp(1) variate
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always", error_model="numpy")
def _neg_log_scaled(x, k_off):
    """``-log(x * 2**-j)`` for a positive normal double ``x``, with ``k_off =
    2**52 + 1023 + j``: the steps of the module docstring on ``v = x * 2**-j``
    (``x`` and ``v`` share their reduced ``f``; ``k`` is offset by ``j``)."""
    ix = double_bits(x)  # type: ignore[call-arg, var-annotated]
    top = (ix + _REDUCE) >> _U52
    f = bits_double((ix + _BIAS) - (top << _U52))
    k = k_off - bits_double(_MAGIC52 | top)
    g = f - 1.0
    s = g / (2.0 + g)
    w = s * s
    r = w * (_C1 + w * (_C2 + w * (_C3 + w * (_C4 + w * (_C5 + w * (_C6 + w * _C7))))))
    h = (0.5 * g) * g
    return k * EXP_LN2_HI + ((h - (s * (h + r) - k * EXP_LN2_LO)) - g)


@njit(cache=True, inline="always", error_model="numpy")
def neg_log(v):
    """``-log(v)`` for a positive normal double ``v``, within 1 ulp, the same bits
    on every platform (the algorithm is in the module docstring)."""
    return _neg_log_scaled(v, _K_OFF)


@njit(cache=True, inline="always")
def complement53(z):
    """``2**53 * (1 - unit_double(z))`` for a 64-bit word ``z``: the integer ``m =
    2**53 - (z >> 11)`` in ``[1, 2**53]``, as a double (exact).

    The integer becomes a double through two exact additions of bit patterns
    (``2**84 + hi * 2**32`` and ``2**52 + lo``), which vectorize; a plain
    conversion of a 64-bit integer does not without AVX-512.
    """
    m = _TWO53_U - (z >> _U11)
    hi = bits_double(_MAGIC84 | (m >> _U32)) - _OFF84  # type: ignore[call-arg]
    return hi + bits_double(_MAGIC52 | (m & MASK32))


@njit(cache=True, inline="always", error_model="numpy")
def exp1_of_complement(m):
    """``-log(m * 2**-53)`` for ``m`` of :func:`complement53`: bit for bit
    ``neg_log(1 - u)`` (the scaling by ``2**-53`` is folded into ``k``)."""
    return _neg_log_scaled(m, _K_OFF53)


@njit(cache=True, inline="always", error_model="numpy")
def exp1_of_output(z):
    """The Exp(1) variate of SplitMix64 output ``z``: ``-log(1 - u)`` with
    ``u = unit_double(z)``, as :func:`neg_log` computes it; ``+0.0`` for
    ``u = 0``, at most ``53 ln 2``."""
    return exp1_of_complement(complement53(z))
