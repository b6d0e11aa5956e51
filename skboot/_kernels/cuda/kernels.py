"""CUDA kernels (numba-cuda) reading the counter-based streams of skboot._random.

Every kernel computes replicate ``b``'s draws from ``(key, purpose, b, i)`` exactly as
the CPU kernels do, with the same SplitMix64 words, the same Lemire bounded draws with
rejection and the same block and weight rules, so the row indices (and Poisson counts)
are bit-identical to ``resampler.replicate(b)`` (stream version
:data:`skboot._kernels.cuda.constants.IMPLEMENTS_STREAM`).

Threads and sums
----------------
One thread computes one *item*: replicate ``b0 + k`` and, for column statistics,
column ``c`` (item ``k * d + c``, so neighbouring threads read neighbouring columns
of one drawn row).  A grid-stride loop covers the items, so any grid and block size
compute the same items with the same code.  Draws are read in order and reduced in
registers as they are made: no index array exists, in device memory or elsewhere.

Every sum follows one rule, fixed by the item and never by the launch: the value
at position ``t`` (draw ``t`` of an index scheme, row ``t`` of a weight scheme) goes
to accumulator ``t % 8`` while whole groups of eight remain; the at most seven
values after the last whole group are summed in order into a ninth; the result is
``((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + tail``.  Sums of values are
therefore reproducible bit for bit (the pure-numpy :mod:`skboot._engine.cuda._reference`
computes them the same way); products (squares, weights) may be fused into FMA
instructions by the device compiler, which changes their rounding, never their
reproducibility.

The stream itself (device functions) is in :mod:`skboot._kernels.cuda.stream`.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from skboot._kernels.cuda.constants import DIRICHLET
from skboot._kernels.cuda.stream import (
    dirichlet_scale,
    next_rows,
    weight_at,
)

#: Eight zeroed accumulators (see :func:`push`).
ZERO8 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
_U0 = np.uint64(0)
_U32 = np.uint64(32)


# ---------------------------------------------------------------------------
# accumulators
# ---------------------------------------------------------------------------
@cuda.jit(device=True)
def push(a, v):
    """Eight accumulators held in registers as a tuple, rotated: ``v`` is added to
    the first and the tuple turns by one, so after a whole group of eight pushes
    accumulator ``u`` has received the group's ``u``-th value and is back in
    place (a dynamically indexed array would live in local memory)."""
    return (a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[0] + v)


@cuda.jit(device=True)
def total(a, tail):
    """The fixed pairwise combination of the eight accumulators plus the tail."""
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + tail


@cuda.jit(device=True)
def add_value(s1, s2, t1, t2, whole, v, want2):
    """Add ``v`` (and ``v * v`` when ``want2``) to the rotated accumulators while
    whole groups of eight remain (``whole``), else to the in-order tails."""
    if whole:
        s1 = push(s1, v)
        if want2:
            s2 = push(s2, v * v)
    else:
        t1 += v
        if want2:
            t2 += v * v
    return s1, s2, t1, t2


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------
@cuda.jit(device=True)
def first_item():
    """This thread's first item of the grid-stride loop (``cuda.grid(1)``)."""
    return cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x  # type: ignore[operator]


@cuda.jit(device=True)
def item_stride():
    """Threads in the grid (``cuda.gridsize(1)``)."""
    return cuda.gridDim.x * cuda.blockDim.x  # type: ignore[operator]


@cuda.jit(cache=True)
def index_rows(
    scheme, seed, seed_l, gamma, b0, un_draw, thresh, n, L, stride, log_q, out
):
    """Row ``k`` of ``out`` (nb, m) gets the rows of replicate ``b0 + k`` (tests)."""
    m = out.shape[1]
    for k in range(first_item(), out.shape[0], item_stride()):
        bctr = (b0 + np.uint64(k)) << _U32
        ctr = bctr
        have = _U0
        lo = _U0
        cur = 0
        rem = 0
        j = 0
        amb = 0
        t = 0
        while t < m:
            count, r0, r1, ctr, have, lo, cur, rem, j, amb = next_rows(
                scheme,
                seed,
                seed_l,
                gamma,
                bctr,
                un_draw,
                thresh,
                n,
                L,
                stride,
                log_q,
                0.0,
                min(2, m - t),
                ctr,
                have,
                lo,
                cur,
                rem,
                j,
                amb,
            )
            if count > 0:
                out[k, t] = r0
            if count > 1:
                out[k, t + 1] = r1
            t += count


@cuda.jit(cache=True)
def weight_rows(scheme, seed, gamma, b0, out):
    """Row ``k`` of ``out`` (nb, n) gets the weights of replicate ``b0 + k``."""
    n = out.shape[1]
    for k in range(first_item(), out.shape[0], item_stride()):
        bctr = (b0 + np.uint64(k)) << _U32
        scale = 1.0
        if scheme == DIRICHLET:
            scale = dirichlet_scale(seed, gamma, bctr, n)
        for i in range(n):
            out[k, i] = weight_at(scheme, seed, gamma, bctr, i, scale)


@cuda.jit(cache=True)
def index_moments(
    X,
    d,
    scheme,
    seed,
    seed_l,
    gamma,
    b0,
    m,
    un_draw,
    thresh,
    L,
    stride,
    log_q,
    amb_rel,
    want2,
    out1,
    out2,
    flags,
):
    """Item ``k * d + c``: the sum (``out1``) and sum of squares (``out2``, when
    ``want2``) of column ``c`` over the ``m`` rows of index replicate ``b0 + k``;
    ``flags[k]`` = 1 when a stationary block length was ambiguous.

    ``X`` is the (n, d) data flattened in C order.
    """
    n = X.shape[0] // d
    m8 = m - (m & 7)
    for item in range(first_item(), out1.shape[0], item_stride()):
        k = item // d
        c = item - k * d
        bctr = (b0 + np.uint64(k)) << _U32
        ctr = bctr
        have = _U0
        lo = _U0
        cur = 0
        rem = 0
        j = 0
        amb = 0
        s1 = ZERO8
        s2 = ZERO8
        t1 = 0.0
        t2 = 0.0
        t = 0
        while t < m:
            count, r0, r1, ctr, have, lo, cur, rem, j, amb = next_rows(
                scheme,
                seed,
                seed_l,
                gamma,
                bctr,
                un_draw,
                thresh,
                n,
                L,
                stride,
                log_q,
                amb_rel,
                min(2, m - t),
                ctr,
                have,
                lo,
                cur,
                rem,
                j,
                amb,
            )
            v0 = X[r0 * d + c] if count > 0 else 0.0
            v1 = X[r1 * d + c] if count > 1 else 0.0
            if count > 0:
                s1, s2, t1, t2 = add_value(s1, s2, t1, t2, t < m8, v0, want2)
            if count > 1:
                s1, s2, t1, t2 = add_value(s1, s2, t1, t2, t + 1 < m8, v1, want2)
            t += count
        out1[item] = total(s1, t1)
        out2[item] = total(s2, t2)
        if c == 0:
            flags[k] = amb


@cuda.jit(cache=True)
def weight_moments(X, d, scheme, seed, gamma, b0, want2, out1, out2, outw):
    """Item ``k * d + c``: ``sum_i w_i x_ic`` (``out1``), ``sum_i w_i x_ic**2``
    (``out2``, when ``want2``) and ``sum_i w_i`` (``outw``) with the weights of
    replicate ``b0 + k``; rows of weight 0 add 0.0 (never ``0 * x``, which is NaN
    for an infinite ``x``), as the CPU skips them."""
    n = X.shape[0] // d
    n8 = n - (n & 7)
    for item in range(first_item(), out1.shape[0], item_stride()):
        k = item // d
        c = item - k * d
        bctr = (b0 + np.uint64(k)) << _U32
        scale = 1.0
        if scheme == DIRICHLET:
            scale = dirichlet_scale(seed, gamma, bctr, n)
        s1 = ZERO8
        s2 = ZERO8
        sw = ZERO8
        t1 = 0.0
        t2 = 0.0
        tw = 0.0
        for i in range(n):
            w = weight_at(scheme, seed, gamma, bctr, i, scale)
            wv = 0.0
            wvv = 0.0
            if w != 0.0:
                x = X[i * d + c]
                wv = w * x
                wvv = wv * x
            if i < n8:
                s1 = push(s1, wv)
                if want2:
                    s2 = push(s2, wvv)
                sw = push(sw, w)
            else:
                t1 += wv
                if want2:
                    t2 += wvv
                tw += w
        out1[item] = total(s1, t1)
        out2[item] = total(s2, t2)
        outw[item] = total(sw, tw)


@cuda.jit(device=True)
def corr_terms(w, x, y):
    """``w x, w y, w x x, w y y, w x y`` (0.0 for a weight of 0)."""
    if w == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    wx = w * x
    wy = w * y
    return wx, wy, wx * x, wy * y, wx * y


@cuda.jit(cache=True)
def index_corr(
    XY,
    scheme,
    seed,
    seed_l,
    gamma,
    b0,
    m,
    un_draw,
    thresh,
    L,
    stride,
    log_q,
    amb_rel,
    out,
    flags,
):
    """Replicate ``b0 + k``: sums of x, y, xx, yy, xy of the drawn rows of the
    (n, 2) data ``XY`` (flattened) into ``out[k, :5]``; ``out[k, 5]`` = m."""
    n = XY.shape[0] // 2
    m8 = m - (m & 7)
    for k in range(first_item(), out.shape[0], item_stride()):
        bctr = (b0 + np.uint64(k)) << _U32
        ctr = bctr
        have = _U0
        lo = _U0
        cur = 0
        rem = 0
        j = 0
        amb = 0
        ax = ZERO8
        ay = ZERO8
        axx = ZERO8
        ayy = ZERO8
        axy = ZERO8
        tx = 0.0
        ty = 0.0
        txx = 0.0
        tyy = 0.0
        txy = 0.0
        t = 0
        while t < m:
            count, r0, r1, ctr, have, lo, cur, rem, j, amb = next_rows(
                scheme,
                seed,
                seed_l,
                gamma,
                bctr,
                un_draw,
                thresh,
                n,
                L,
                stride,
                log_q,
                amb_rel,
                min(2, m - t),
                ctr,
                have,
                lo,
                cur,
                rem,
                j,
                amb,
            )
            for q in range(count):
                r = r0 if q == 0 else r1
                vx, vy, vxx, vyy, vxy = corr_terms(1.0, XY[2 * r], XY[2 * r + 1])
                if t < m8:
                    ax = push(ax, vx)
                    ay = push(ay, vy)
                    axx = push(axx, vxx)
                    ayy = push(ayy, vyy)
                    axy = push(axy, vxy)
                else:
                    tx += vx
                    ty += vy
                    txx += vxx
                    tyy += vyy
                    txy += vxy
                t += 1
        out[k, 0] = total(ax, tx)
        out[k, 1] = total(ay, ty)
        out[k, 2] = total(axx, txx)
        out[k, 3] = total(ayy, tyy)
        out[k, 4] = total(axy, txy)
        out[k, 5] = m
        flags[k] = amb


@cuda.jit(cache=True)
def weight_corr(XY, scheme, seed, gamma, b0, out):
    """As :func:`index_corr` with the weights of replicate ``b0 + k``;
    ``out[k, 5]`` = the sum of the weights."""
    n = XY.shape[0] // 2
    n8 = n - (n & 7)
    for k in range(first_item(), out.shape[0], item_stride()):
        bctr = (b0 + np.uint64(k)) << _U32
        scale = 1.0
        if scheme == DIRICHLET:
            scale = dirichlet_scale(seed, gamma, bctr, n)
        ax = ZERO8
        ay = ZERO8
        axx = ZERO8
        ayy = ZERO8
        axy = ZERO8
        aw = ZERO8
        tx = 0.0
        ty = 0.0
        txx = 0.0
        tyy = 0.0
        txy = 0.0
        tw = 0.0
        for i in range(n):
            w = weight_at(scheme, seed, gamma, bctr, i, scale)
            vx, vy, vxx, vyy, vxy = corr_terms(w, XY[2 * i], XY[2 * i + 1])
            if i < n8:
                ax = push(ax, vx)
                ay = push(ay, vy)
                axx = push(axx, vxx)
                ayy = push(ayy, vyy)
                axy = push(axy, vxy)
                aw = push(aw, w)
            else:
                tx += vx
                ty += vy
                txx += vxx
                tyy += vyy
                txy += vxy
                tw += w
        out[k, 0] = total(ax, tx)
        out[k, 1] = total(ay, ty)
        out[k, 2] = total(axx, txx)
        out[k, 3] = total(ayy, tyy)
        out[k, 4] = total(axy, txy)
        out[k, 5] = total(aw, tw)
