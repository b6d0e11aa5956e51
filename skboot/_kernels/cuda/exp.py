"""skboot's ``-log(v)`` (:mod:`skboot._random._exp`) as a numba-cuda device function,
operation for operation, so the Bayesian weights are the CPU's bit for bit.

The device compiler contracts a multiply followed by an add into one fused
multiply-add by default (one rounding instead of two), which would change the
bits.  Every floating-point operation here is therefore an explicit
round-to-nearest libdevice intrinsic (``dadd_rn``, ``dmul_rn``, ``ddiv_rn``),
which the compiler never fuses; a subtraction is an addition of the negated
operand (negation is exact).  The bit casts are libdevice's
``double_as_longlong`` / ``longlong_as_double``.

numba's CUDA simulator runs device functions as Python, where those intrinsics are
stubs: there they are plain Python arithmetic on doubles (each operation rounded
to nearest, never fused) and numpy bit views.
"""

from __future__ import annotations

import numpy as np
from numba import cuda
from numba.core import config

from skboot._random import EXP_LN2_HI, EXP_LN2_LO, EXP_POLY, EXP_SQRT_HALF_BITS

__all__ = ["dadd", "ddiv", "dmul", "neg_log"]

_C1, _C2, _C3, _C4, _C5, _C6, _C7 = EXP_POLY
_U52 = np.uint64(52)
_BIAS = np.uint64(1023 << 52)
_REDUCE = np.uint64((1023 << 52) - EXP_SQRT_HALF_BITS)
_MAGIC52 = np.uint64(0x4330000000000000)
#: ``2**52 + 1023``
_K_OFF = 4503599627371519.0

if getattr(config, "ENABLE_CUDASIM", 0):

    def dadd(x, y):
        """``x + y`` rounded to nearest (Python arithmetic on doubles)."""
        return np.float64(x) + np.float64(y)

    def dmul(x, y):
        """``x * y`` rounded to nearest."""
        return np.float64(x) * np.float64(y)

    def ddiv(x, y):
        """``x / y`` rounded to nearest."""
        return np.float64(x) / np.float64(y)

    def _bits(x):
        return np.float64(x).view(np.int64)

    def _double(i):
        return np.int64(i).view(np.float64)

else:  # pragma: no cover - needs a GPU
    from numba.cuda import libdevice

    dadd = libdevice.dadd_rn
    dmul = libdevice.dmul_rn
    ddiv = libdevice.ddiv_rn
    _bits = libdevice.double_as_longlong
    _double = libdevice.longlong_as_double


@cuda.jit(device=True)
def neg_log(v):
    """``-log(v)`` for a positive normal double ``v``: the steps of
    :func:`skboot._random.neg_log`, each rounded to nearest, none fused."""
    ix = np.uint64(_bits(v))
    top = (ix + _REDUCE) >> _U52
    f = _double(np.int64((ix + _BIAS) - (top << _U52)))
    k = dadd(_K_OFF, -_double(np.int64(_MAGIC52 | top)))
    g = dadd(f, -1.0)
    s = ddiv(g, dadd(2.0, g))
    w = dmul(s, s)
    p = dadd(_C6, dmul(w, _C7))
    p = dadd(_C5, dmul(w, p))
    p = dadd(_C4, dmul(w, p))
    p = dadd(_C3, dmul(w, p))
    p = dadd(_C2, dmul(w, p))
    p = dadd(_C1, dmul(w, p))
    r = dmul(w, p)
    h = dmul(dmul(0.5, g), g)
    inner = dadd(dmul(s, dadd(h, r)), -dmul(k, EXP_LN2_LO))
    return dadd(dmul(k, EXP_LN2_HI), dadd(dadd(h, -inner), -g))
