"""Binomial variates from the stream: a pure function of the words they read.

The data-parallel iid bootstrap splits replicate ``b``'s draws among the
partitions by conditional binomials (:mod:`skboot._kernels.exact_rows`); each
binomial reads uniform doubles from a stream reader (:func:`uniform01`), so it is
a pure function of the reader's position.  Two exact algorithms, chosen by the
mean (``p`` first reflected to ``min(p, 1 - p)``):

* ``N p < 10``: inversion, BINV of Kachitvichyanukul & Schmeiser (1988): one
  uniform, the pmf walked from ``P(0) = q**N`` by the ratio ``P(k) / P(k - 1) =
  ((N + 1) / k - 1) p / q``; a uniform beyond the mass of the first 110 values
  (probability below 1e-80 at these means) draws another;
* ``N p >= 10``: BTRD, the transformed rejection with decomposition of Hörmann
  (1993), two or three uniforms per attempt and an expected 1.1 to 1.4
  attempts, whatever ``N``; exact: the acceptance test is the binomial pmf
  itself, through Stirling's series with the correction terms tabulated for
  ``k <= 15`` and six terms beyond (error below 1e-16).

The logarithms and the exponential are skboot's own, a fixed sequence of IEEE
double operations (:func:`skboot._random.neg_log`; :func:`exp_fixed` here), so
the variates are the same bits on every platform.  "Exact" means the algorithm
samples the binomial law exactly in real arithmetic; in double precision the
probabilities are right to about 1e-13 relative, far below what any sample can
detect (``tests/test_binomial.py`` checks the law against
:data:`scipy.stats.binom` by chi-square tests).

References
----------
.. [1] V. Kachitvichyanukul, B. W. Schmeiser, "Binomial random variate
       generation", Communications of the ACM 31(2), 1988.
.. [2] W. Hörmann, "The generation of binomial random variates", Journal of
       Statistical Computation and Simulation 46, 1993.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._random._core import (
    _U0,
    NO_HAVE,
    PURPOSE_STRIDE,
    _mix64_py,
    replicate_counter,
    uniform01,
)
from skboot._random._exp import EXP_LN2_HI, EXP_LN2_LO, EXP_POLY, bits_double, neg_log

__all__ = [
    "binomial",
    "binomial_fill",
    "exp_fixed",
    "ln_fixed",
    "log1p_fixed",
    "substream_seed",
]

#: ``fc(k) = log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2`` for
#: ``k = 0 .. 15`` (Stirling's correction), computed in 60-digit decimal
#: arithmetic and rounded to doubles.
_FC = np.array(
    [
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
        0.0052076559196096404,
    ]
)
#: Means below this use inversion, above it BTRD (Hörmann's bound).
INVERSION_MEAN = 10.0
#: Inversion draws again past this value (its mass is below 1e-80 there).
_INV_BOUND = 110
_C1, _C2, _C3, _C4, _C5, _C6, _C7 = EXP_POLY
_INV_LN2 = 1.4426950408889634
#: ``1 / j!`` for ``j = 2 .. 13``: the Taylor series of ``exp(r)``, ``|r| <= 0.35``
#: (the first omitted term is below ``2**-58``).
_EXP_TAYLOR = np.array([1.0 / float(np.prod(np.arange(1, j + 1))) for j in range(14)])


@njit(cache=True, inline="always", error_model="numpy")
def ln_fixed(x):
    """``log(x)`` for a positive normal double, the same bits everywhere."""
    return -neg_log(x)


@njit(cache=True, inline="always", error_model="numpy")
def log1p_fixed(g):
    """``log(1 + g)`` for ``-0.29 <= g <= 0.41``, accurate for tiny ``g``:
    ``2 atanh(s)``, ``s = g / (2 + g)``, with :func:`neg_log`'s polynomial
    (fdlibm's form ``g - (h - s (h + R))``)."""
    s = g / (2.0 + g)
    w = s * s
    r = w * (_C1 + w * (_C2 + w * (_C3 + w * (_C4 + w * (_C5 + w * (_C6 + w * _C7))))))
    h = (0.5 * g) * g
    return g - (h - s * (h + r))


@njit(cache=True, error_model="numpy")
def exp_fixed(x):
    """``exp(x)`` for ``-700 <= x <= 700``, within a few ulps, the same bits
    everywhere: ``x = k ln2 + r`` (``k ln2_hi`` exact, as in :func:`neg_log`),
    ``exp(r)`` by its Taylor series to degree 13 in Horner form, times ``2**k``
    (exact)."""
    k = np.floor(x * _INV_LN2 + 0.5)
    r = (x - k * EXP_LN2_HI) - k * EXP_LN2_LO
    t = _EXP_TAYLOR
    acc = t[13]
    for j in range(12, -1, -1):
        acc = acc * r + t[j]
    scale = bits_double(np.uint64(np.int64(k) + 1023) << np.uint64(52))  # type: ignore[call-arg, var-annotated]
    return acc * scale


@njit(cache=True, inline="always")
def _fc(k):
    """Stirling's correction ``fc(k)`` (see :data:`_FC`); the series
    ``1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7) + 1/(1188x^9)``,
    ``x = k + 1``, beyond the table."""
    if k < 16:
        return _FC[k]
    x = k + 1.0
    w = 1.0 / (x * x)
    return (
        1.0 / 12.0
        - w * (1.0 / 360.0 - w * (1.0 / 1260.0 - w * (1.0 / 1680.0 - w / 1188.0)))
    ) / x


@njit(cache=True, error_model="numpy")
def _binv(seed, gamma, ctr, have, lo, N, p):
    """Inversion (BINV), ``p <= 1/2``, ``N p < 10``."""
    q = 1.0 - p
    lq = log1p_fixed(-p) if p <= 0.29 else ln_fixed(q)
    r0 = exp_fixed(N * lq)  # q**N
    s = p / q
    a = (N + 1.0) * s
    while True:
        u, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
        x = 0
        f = r0
        while x <= _INV_BOUND:
            if u < f:
                return np.int64(x), ctr, have, lo
            u -= f
            x += 1
            f *= a / x - s


@njit(cache=True, error_model="numpy")
def _btrd(seed, gamma, ctr, have, lo, N, p):
    """Transformed rejection with decomposition (BTRD), ``p <= 1/2``,
    ``N p >= 10``; the steps and their numbers are Hörmann's (1993)."""
    n = np.float64(N)
    q = 1.0 - p
    m = np.floor((n + 1.0) * p)
    r = p / q
    nr = (n + 1.0) * r
    npq = n * p * q
    spq = np.sqrt(npq)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    alpha = (2.83 + 5.1 / b) * spq
    vr = 0.92 - 4.2 / b
    urvr = 0.86 * vr
    while True:
        # 1: immediate acceptance
        v, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
        if v <= urvr:
            u = v / vr - 0.43
            k = np.floor((2.0 * a / (0.5 - abs(u)) + b) * u + c)
            if 0.0 <= k <= n:
                return np.int64(k), ctr, have, lo
            continue
        # 2: the point (u, v) under the hat
        if v >= vr:
            u, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
            u -= 0.5
        else:
            u = v / vr - 0.93
            u = (0.5 if u >= 0.0 else -0.5) - u
            v, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
            v *= vr
        # 3.0
        us = 0.5 - abs(u)
        k = np.floor((2.0 * a / us + b) * u + c)
        if k < 0.0 or k > n:
            continue
        v = v * alpha / (a / (us * us) + b)
        km = abs(k - m)
        if km <= 15.0:
            # 3.1: the pmf ratio f(k) / f(m), multiplied out
            f = 1.0
            if m < k:
                i = m
                while i < k:
                    i += 1.0
                    f *= nr / i - r
            elif m > k:
                i = k
                while i < m:
                    i += 1.0
                    v *= nr / i - r
            if v <= f:
                return np.int64(k), ctr, have, lo
            continue
        # 3.2: squeeze on log(v)
        v = ln_fixed(v)
        rho = (km / npq) * (((km / 3.0 + 0.625) * km + 1.0 / 6.0) / npq + 0.5)
        t = -km * km / (2.0 * npq)
        if v < t - rho:
            return np.int64(k), ctr, have, lo
        if v > t + rho:
            continue
        # 3.3: the final test, log f(k) / f(m) through Stirling's series
        nm = n - m + 1.0
        h = (m + 0.5) * ln_fixed((m + 1.0) / (r * nm)) + _fc(np.int64(m))
        h += _fc(np.int64(n - m))
        nk = n - k + 1.0
        bound = h + (n + 1.0) * ln_fixed(nm / nk)
        bound += (k + 0.5) * ln_fixed(nk * r / (k + 1.0))
        bound -= _fc(np.int64(k)) + _fc(np.int64(n - k))
        if v <= bound:
            return np.int64(k), ctr, have, lo


@njit(cache=True)
def binomial(seed, gamma, ctr, have, lo, N, p):
    """A Binomial(``N``, ``p``) variate (``N >= 0``, ``0 <= p <= 1``) from the
    reader ``(ctr, have, lo)`` of the stream ``(seed, gamma)``; returns it and
    the reader state.  ``p`` of 0 or 1, or ``N = 0``, reads nothing."""
    if N == 0 or p <= 0.0:
        return np.int64(0), ctr, have, lo
    if p >= 1.0:
        return np.int64(N), ctr, have, lo
    flip = p > 0.5
    pp = 1.0 - p if flip else p
    if N * pp < INVERSION_MEAN:
        k, ctr, have, lo = _binv(seed, gamma, ctr, have, lo, N, pp)
    else:
        k, ctr, have, lo = _btrd(seed, gamma, ctr, have, lo, N, pp)
    return (np.int64(N) - k if flip else k), ctr, have, lo


@njit(cache=True)
def binomial_fill(seed, gamma, b, N, p, out):
    """``out[i]``: the ``i``-th of ``len(out)`` Binomial(``N``, ``p``) variates
    read in sequence from replicate ``b``'s counter (for tests)."""
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    for i in range(out.shape[0]):
        k, ctr, have, lo = binomial(seed, gamma, ctr, have, lo, N, p)
        out[i] = k


def substream_seed(seed: np.uint64, k: int) -> np.uint64:
    """The seed of sub-stream ``k >= 1`` of a purpose's stream ``seed``:
    ``mix64(seed + k * PURPOSE_STRIDE)``, as purposes derive from the root."""
    m = (1 << 64) - 1
    return np.uint64(_mix64_py((int(seed) + int(k) * int(PURPOSE_STRIDE)) & m))
