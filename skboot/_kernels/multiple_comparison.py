"""Numba kernels of the multiple-comparison procedures (SPA, StepM, MCS).

Nothing here draws random numbers itself: the block kernels call the block
generators of :mod:`skboot._kernels.block` (``fixed_starts``,
``stationary_blocks``), so replicate ``b`` is the replicate that
``resampler.replicate(b)`` describes.  Every output row depends only on its
replicate number, never on the chunk it falls in.

Kernels
-------
* ``fixed_block_means`` / ``stationary_block_means``: the k column means of
  the rows of replicates ``b0, b0 + 1, ...`` of a centred ``(T, k)`` array, from
  its prefix sums ``P`` (``P[i] = X[:i].sum(0)``): block ``[s, e)`` adds
  ``(P[e] - P[s]) + P[0]`` (``P[0] = 0``), or ``(P[T] - P[s]) + P[e - T]`` when
  it wraps, blocks in draw order from 0.0, then one division by ``T``.  Eight
  columns at a time in one ``<8 x double>`` register (``_block_sums8``, an LLVM
  intrinsic: numba keeps LLVM's SLP vectorizer off, and the loop vectorizer
  would keep the accumulators in memory).  O(T / L * k) per replicate; no
  ``(T, k)`` copy.
* ``stationary_variance``: the stationary-bootstrap variance of Politis &
  Romano (1994) of ``sqrt(T)`` times each column mean, O(T k) by recursions.
* ``spa_max``: per replicate, the largest recentred (and studentized) mean.
* ``constant_columns``: degenerate inputs.
* ``pair_variances``, ``mcs_r_order``, ``mcs_r_counts``: the range statistic
  of the model confidence set; ``mcs_max``: its max statistic, ``mcs_max_int``
  the same on exact integer sums (ties on integer-valued losses).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from skboot._kernels.block import fixed_starts, stationary_blocks

__all__ = [
    "constant_columns",
    "fixed_block_means",
    "mcs_max",
    "mcs_max_int",
    "mcs_r_counts",
    "mcs_r_order",
    "pair_variances",
    "spa_max",
    "stationary_block_means",
    "stationary_variance",
]


_I64 = ir.IntType(64)
_V8 = ir.VectorType(ir.DoubleType(), 8)


def _vec_ptr(builder, base, offset):
    return builder.bitcast(builder.gep(base, [offset]), _V8.as_pointer())


@intrinsic
def _block_sums8(typingctx, Pf, S, E, j0, j1, n, base, acc):
    """``acc[0:8] = sum_{j0 <= j < j1} (P[a_j] - P[S_j]) + P[c_j]`` lane-wise, with
    ``(a_j, c_j) = (E_j, 0)``, or ``(n, E_j - n)`` when the block wraps
    (``E_j > n``), and ``P[i]`` the eight values ``Pf[base + 8i : base + 8i + 8]``.

    One LLVM ``<8 x double>`` accumulator (an AVX-512 register, two AVX2
    ones...), three vector loads, a subtraction and two additions per block, in
    block order: each lane is one column computed with the same IEEE operations in
    the same order on every instruction set (no reassociation, no fused
    multiply-add).  ``P[0]`` is 0, so a block that does not wrap adds
    ``P[E_j] - P[S_j]``."""
    sig = types.void(Pf, S, E, j0, j1, n, base, acc)

    def codegen(context, builder, signature, args):
        P_v, S_v, E_v, j0_v, j1_v, n_v, base_v, acc_v = args
        PA = context.make_array(signature.args[0])(context, builder, P_v)
        SA = context.make_array(signature.args[1])(context, builder, S_v)
        EA = context.make_array(signature.args[2])(context, builder, E_v)
        OA = context.make_array(signature.args[7])(context, builder, acc_v)
        zero = ir.Constant(_I64, 0)
        eight = ir.Constant(_I64, 8)
        slot = cgutils.alloca_once(builder, _V8)
        builder.store(ir.Constant(_V8, [0.0] * 8), slot)

        def row(i):
            off = builder.add(base_v, builder.mul(i, eight))
            return builder.load(_vec_ptr(builder, PA.data, off), align=8)

        with cgutils.for_range(builder, builder.sub(j1_v, j0_v)) as loop:
            j = builder.add(j0_v, loop.index)
            s = builder.load(builder.gep(SA.data, [j]))
            e = builder.load(builder.gep(EA.data, [j]))
            wrap = builder.icmp_signed(">", e, n_v)
            a = builder.select(wrap, n_v, e)
            c = builder.select(wrap, builder.sub(e, n_v), zero)
            v = builder.fadd(builder.fsub(row(a), row(s)), row(c))
            builder.store(builder.fadd(builder.load(slot), v), slot)
        builder.store(builder.load(slot), _vec_ptr(builder, OA.data, zero), align=8)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _group_means(Pt, S, E, first, n, out):
    """Row ``r`` of ``out``: the blocks ``first[r] .. first[r+1]-1`` summed for
    each group of eight columns (group outer, so one group's prefix sums stay in
    cache while every replicate of the chunk reads it), divided by n."""
    n_groups = Pt.shape[0]
    d = out.shape[1]
    stride = np.int64(Pt.shape[1] * 8)
    Pf = Pt.ravel()
    acc = np.empty(8)
    for g in range(n_groups):
        base = np.int64(g) * stride
        c0 = 8 * g
        m = min(8, d - c0)
        for r in range(out.shape[0]):
            _block_sums8(Pf, S, E, first[r], first[r + 1], n, base, acc)  # type: ignore[call-arg]
            for c in range(m):
                out[r, c0 + c] = acc[c] / n


@njit(cache=True, nogil=True)
def fixed_block_means(Pt, seed, gamma, b0, L, n_starts, stride, out):
    """Row ``r`` of ``out``: the column means of replicate ``b0 + r`` of the
    fixed-length block schemes (moving, circular, non-overlapping).

    ``Pt`` holds the prefix sums ``P[i] = X[:i].sum(0)`` of the centred data in
    groups of eight columns, shape (n_groups, n + 1, 8) (the last group padded
    with zeros); ``fixed_starts`` gives the ``ceil(n / L)`` block starts of a
    replicate, the last block is cut so that the replicate has n rows.
    """
    n = Pt.shape[1] - 1
    nb = out.shape[0]
    kb = (n + L - 1) // L
    starts = np.empty(kb, dtype=np.int64)
    S = np.empty(nb * kb, dtype=np.int64)
    E = np.empty(nb * kb, dtype=np.int64)
    first = np.empty(nb + 1, dtype=np.int64)
    q = 0
    for r in range(nb):
        first[r] = q
        fixed_starts(seed, gamma, b0 + r, n_starts, stride, starts)
        t = 0
        for j in range(kb):
            ln = min(L, n - t)
            S[q] = starts[j]
            E[q] = starts[j] + ln
            t += ln
            q += 1
    first[nb] = q
    _group_means(Pt, S, E, first, n, out)


@njit(cache=True, nogil=True)
def stationary_block_means(Pt, seed_s, seed_l, gamma, b0, p, log_q, out):
    """As :func:`fixed_block_means` for the stationary bootstrap (geometric
    lengths from ``stationary_blocks``, circular wrap)."""
    n = Pt.shape[1] - 1
    nb = out.shape[0]
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    cap = nb * (16 + 2 * np.int64(n * p))
    S = np.empty(cap, dtype=np.int64)
    E = np.empty(cap, dtype=np.int64)
    first = np.empty(nb + 1, dtype=np.int64)
    q = 0
    for r in range(nb):
        first[r] = q
        nbk = stationary_blocks(
            seed_s, seed_l, gamma, b0 + r, n, p, log_q, starts, lens
        )
        if q + nbk > S.shape[0]:
            grow = max(2 * S.shape[0], q + nbk)
            S2 = np.empty(grow, dtype=np.int64)
            E2 = np.empty(grow, dtype=np.int64)
            S2[:q] = S[:q]
            E2[:q] = E[:q]
            S, E = S2, E2
        for j in range(nbk):
            S[q] = starts[j]
            E[q] = starts[j] + lens[j]
            q += 1
    first[nb] = q
    _group_means(Pt, S, E, first, n, out)


@njit(cache=True, nogil=True)
def stationary_variance(D, p):
    """``omega_k**2 = g_0 + 2 sum_{i=1}^{T-1} kappa_i g_i`` per column of the
    centred ``D`` (T, k), ``g_i = sum_{t < T-i} D[t] D[t+i] / T`` and
    ``kappa_i = (1 - i/T) q**i + (i/T) q**(T-i)``, ``q = 1 - p`` (Politis &
    Romano 1994: the stationary bootstrap's variance of ``sqrt(T)`` times the
    mean; arch's ``SPA`` asymptotic variance).

    O(T k) instead of the O(T**2 k) lag sum, from one backward pass with four
    recursions per column (``s > t`` below):

    * ``h_t = sum q**(s-t) D_s``,  ``h_{t-1} = q (D_t + h_t)``;
    * ``g_t = sum (s-t) q**(s-t) D_s``,  ``g_{t-1} = q (g_t + h_t + D_t)``;
    * ``V0_t = sum q**(T-1-s) D_s`` and ``V1_t = sum s q**(T-1-s) D_s``, so that
      ``sum (s-t) q**(T-(s-t)) D_s = q**(t+1) (V1_t - t V0_t)``;

    then ``T omega**2 = sum D_t**2 + 2 sum_t D_t (h_t - g_t / T + q**(t+1)
    (V1_t - t V0_t) / T)``.  The powers of ``q`` are computed with ``pow`` (no
    accumulated rounding); the recursions are contracting (``q < 1``).
    """
    T, k = D.shape
    q = 1.0 - p
    qp = np.empty(T + 1)
    for j in range(T + 1):
        qp[j] = q**j
    h = np.zeros(k)
    g = np.zeros(k)
    v0 = np.zeros(k)
    v1 = np.zeros(k)
    s0 = np.zeros(k)
    acc = np.zeros(k)
    for t in range(T - 1, -1, -1):
        row = D[t]
        wt = qp[t + 1] / T
        w0 = qp[T - 1 - t]
        for c in range(k):
            x = row[c]
            s0[c] += x * x
            acc[c] += x * (h[c] - g[c] / T + wt * (v1[c] - t * v0[c]))
            g[c] = q * (g[c] + h[c] + x)
            h[c] = q * (x + h[c])
            v0[c] += w0 * x
            v1[c] += (t * w0) * x
    out = np.empty(k)
    for c in range(k):
        out[c] = (s0[c] + 2.0 * acc[c]) / T
    return out


@njit(cache=True, nogil=True)
def spa_max(C, shift, inv_scale, out):
    """``out[b, t] = max_j (C[b, j] + shift[t, j]) * inv_scale[j]``."""
    B, k = C.shape
    for b in range(B):
        for t in range(shift.shape[0]):
            m = -np.inf
            for j in range(k):
                v = (C[b, j] + shift[t, j]) * inv_scale[j]
                if v > m:
                    m = v
            out[b, t] = m


@njit(cache=True, nogil=True)
def constant_columns(X, scale, rtol):
    """First column ``j`` whose values span at most ``rtol * scale[j]``, or -1."""
    T, k = X.shape
    lo = X[0].copy()
    hi = X[0].copy()
    for t in range(1, T):
        for c in range(k):
            v = X[t, c]
            if v < lo[c]:
                lo[c] = v
            if v > hi[c]:
                hi[c] = v
    for c in range(k):
        if hi[c] - lo[c] <= rtol * scale[c]:
            return c
    return -1


@njit(cache=True, nogil=True)
def pair_variances(C):
    """``V[i, j] = mean_b (C[b, i] - C[b, j])**2`` for ``i != j`` and
    ``V[i, i] = 1`` (the diagonal is never used as a divisor of a nonzero
    value), summed over ``b`` in order."""
    B, k = C.shape
    V = np.zeros((k, k))
    for b in range(B):
        row = C[b]
        for i in range(k - 1):
            ci = row[i]
            Vi = V[i]
            for j in range(i + 1, k):
                d = ci - row[j]
                Vi[j] += d * d
    for i in range(k):
        V[i, i] = 1.0
        for j in range(i + 1, k):
            V[i, j] = V[i, j] / B
            V[j, i] = V[i, j]
    return V


@njit(cache=True, nogil=True)
def _row_max(t, incl, i):
    m = -np.inf
    arg = -1
    for j in range(t.shape[1]):
        if incl[j] and t[i, j] > m:
            m = t[i, j]
            arg = j
    return m, arg


@njit(cache=True, nogil=True)
def mcs_r_order(t):
    """Elimination order of the range statistic from the standardized pairwise
    differences ``t[i, j] = (L_i - L_j) / sqrt(V[i, j])`` (``t[i, i] = 0``).

    Step ``s`` has statistic ``max_{i, j in M_s} t[i, j]`` and eliminates the
    first ``i`` (lowest index) whose row holds it.  Returns ``order`` (k,), the
    models in elimination order (the survivor last), and ``stats`` (k - 1,).
    """
    k = t.shape[0]
    incl = np.ones(k, dtype=np.bool_)
    rmax = np.empty(k)
    rarg = np.empty(k, dtype=np.int64)
    for i in range(k):
        rmax[i], rarg[i] = _row_max(t, incl, i)
    order = np.empty(k, dtype=np.int64)
    stats = np.empty(max(k - 1, 0))
    for s in range(k - 1):
        best = -np.inf
        bi = -1
        for i in range(k):
            if incl[i] and rmax[i] > best:
                best = rmax[i]
                bi = i
        order[s] = bi
        stats[s] = best
        incl[bi] = False
        for i in range(k):
            if incl[i] and rarg[i] == bi:
                rmax[i], rarg[i] = _row_max(t, incl, i)
    for i in range(k):
        if incl[i]:
            order[k - 1] = i
    return order, stats


@njit(cache=True, nogil=True)
def mcs_r_counts(C, order, inv_sd, stats):
    """``counts[s] = #{b : stats[s] < T*_b(s)}`` with ``T*_b(s)`` the largest
    ``|C[b, i] - C[b, j]| * inv_sd[i, j]`` over the models ``order[s:]``.

    ``inv_sd`` is indexed in elimination order.  The statistics of all steps
    come from one suffix maximum per replicate: O(k**2 / 2) per replicate.
    """
    B, k = C.shape
    x = np.empty(k)
    counts = np.zeros(max(k - 1, 0), dtype=np.int64)
    for b in range(B):
        for q in range(k):
            x[q] = C[b, order[q]]
        R = 0.0
        for s in range(k - 2, -1, -1):
            xs = x[s]
            w = inv_sd[s]
            m = R
            for j in range(s + 1, k):
                v = abs(xs - x[j]) * w[j]
                if v > m:
                    m = v
            R = m
            if stats[s] < R:
                counts[s] += 1
    return counts


@njit(cache=True, inline="always")
def _compact(W, ids, keep, m):
    """Keep the columns ``q < m`` of ``W`` (and entries of ``ids``) with
    ``keep[q]``, moved to the front in order."""
    for b in range(W.shape[0]):
        row = W[b]
        w = 0
        for q in range(m):
            if keep[q]:
                row[w] = row[q]
                w += 1
    w = 0
    for q in range(m):
        if keep[q]:
            ids[w] = ids[q]
            w += 1


@njit(cache=True, inline="always")
def _eliminate(W, ids, keep, tstat, T, p, m, order, pvals, stats, pos):
    """One MCS step's bookkeeping: the models attaining ``T`` get p-value ``p``
    and statistic ``T`` at the next positions of the elimination order; the
    others' columns are compacted.  Returns the number left and the next position."""
    m_new = 0
    for q in range(m):
        keep[q] = tstat[q] != T
        if keep[q]:
            m_new += 1
        else:
            order[pos] = ids[q]
            pvals[pos] = p
            stats[pos] = T
            pos += 1
    if m_new > 0:
        _compact(W, ids, keep, m)
    return m_new, pos


@njit(cache=True, inline="always")
def _survivor(ids, m, order, pvals, stats, pos):
    """The models never eliminated: p-value 1, statistic NaN, last in the order."""
    for q in range(m):
        order[pos] = ids[q]
        pvals[pos] = 1.0
        stats[pos] = np.nan
        pos += 1


@njit(cache=True, nogil=True)
def mcs_max(est, C):
    """The max-statistic MCS: elimination order, p-value and statistic per model.

    At a step with the models ``M`` (m of them): ``e_bi = C[b, i] - mean_M C[b]``,
    ``sd_i = sqrt(mean_b e_bi**2)``, ``T = max_i (est_i - mean_M est) / sd_i``,
    ``T*_b = max_i e_bi / sd_i``, ``p = #{T < T*_b} / B``; every model attaining
    ``T`` is eliminated.  The survivor gets p-value 1 and statistic NaN.
    The remaining models' columns are kept contiguous in a working copy of ``C``
    (compacted after each step), so every pass over the replicates is a
    contiguous, vectorizable loop; divisions by ``sd`` are multiplications by its
    reciprocal (the same for the data and the replicates).  O(B m) per step.
    Returns ``order``, ``pvals``, ``stats`` (each (k,), in elimination order) and
    the first model with ``sd == 0`` (-1 if none; the run stops there).
    """
    B, k = C.shape
    W = C.copy()
    ids = np.arange(k)
    order = np.empty(k, dtype=np.int64)
    pvals = np.empty(k)
    stats = np.empty(k)
    mb = np.empty(B)
    var = np.empty(k)
    inv = np.empty(k)
    tstat = np.empty(k)
    keep = np.empty(k, dtype=np.bool_)
    pos = 0
    m = k
    while m > 1:
        for b in range(B):
            row = W[b]
            s = 0.0
            for q in range(m):
                s += row[q]
            mb[b] = s / m
        var[:m] = 0.0
        for b in range(B):
            row = W[b]
            mbb = mb[b]
            for q in range(m):
                e = row[q] - mbb
                var[q] += e * e
        for q in range(m):
            sd = np.sqrt(var[q] / B)
            if not sd > 0.0:
                return order, pvals, stats, ids[q]
            inv[q] = 1.0 / sd
        se = 0.0
        for q in range(m):
            se += est[ids[q]]
        se = se / m
        T = -np.inf
        for q in range(m):
            tstat[q] = (est[ids[q]] - se) * inv[q]
            if tstat[q] > T:
                T = tstat[q]
        cnt = 0
        for b in range(B):
            row = W[b]
            mbb = mb[b]
            tb = -np.inf
            for q in range(m):
                v = (row[q] - mbb) * inv[q]
                if v > tb:
                    tb = v
            if tb > T:
                cnt += 1
        m, pos = _eliminate(
            W, ids, keep, tstat, T, cnt / B, m, order, pvals, stats, pos
        )
    _survivor(ids, m, order, pvals, stats, pos)
    return order, pvals, stats, np.int64(-1)


@njit(cache=True, nogil=True)
def mcs_max_int(S, C):
    """:func:`mcs_max` on exact integer sums (int64): ``S`` (k,) the column sums
    over the ``T`` rows, ``C`` (B, k) the replicate sums minus ``S``.

    At a step with the models ``M`` (m of them): ``u_bi = m C[b, i] - sum_M
    C[b]`` and ``o_i = m S_i - sum_M S`` (exact), ``ss_i = sum_b u_bi**2``
    (exact), ``r_i = 1 / sqrt(ss_i / B)``; ``T = max_i o_i r_i`` against
    ``T*_b = max_i u_bi r_i`` (``(Lbar_i - Lbar_.) / sd_i`` and its replicates:
    the factor ``m T`` cancels).  A model's observed and replicate values are
    its integers times one factor, so they tie exactly where the integers do.
    The caller checks that ``B (2 k max|C|)**2`` fits in an int64.  Returns as
    :func:`mcs_max`.
    """
    B, k = C.shape
    W = C.copy()
    ids = np.arange(k)
    order = np.empty(k, dtype=np.int64)
    pvals = np.empty(k)
    stats = np.empty(k)
    csum = np.empty(B, dtype=np.int64)
    ss = np.empty(k, dtype=np.int64)
    r = np.empty(k)
    tstat = np.empty(k)
    keep = np.empty(k, dtype=np.bool_)
    pos = 0
    m = k
    while m > 1:
        for b in range(B):
            row = W[b]
            s = 0
            for q in range(m):
                s += row[q]
            csum[b] = s
        ss[:m] = 0
        for b in range(B):
            row = W[b]
            cb = csum[b]
            for q in range(m):
                u = m * row[q] - cb
                ss[q] += u * u
        for q in range(m):
            if ss[q] <= 0:
                return order, pvals, stats, ids[q]
            r[q] = 1.0 / np.sqrt(ss[q] / B)
        so = 0
        for q in range(m):
            so += S[ids[q]]
        T = -np.inf
        for q in range(m):
            tstat[q] = (m * S[ids[q]] - so) * r[q]
            if tstat[q] > T:
                T = tstat[q]
        cnt = 0
        for b in range(B):
            row = W[b]
            cb = csum[b]
            tb = -np.inf
            for q in range(m):
                v = (m * row[q] - cb) * r[q]
                if v > tb:
                    tb = v
            if tb > T:
                cnt += 1
        m, pos = _eliminate(
            W, ids, keep, tstat, T, cnt / B, m, order, pvals, stats, pos
        )
    _survivor(ids, m, order, pvals, stats, pos)
    return order, pvals, stats, np.int64(-1)
