"""Numba kernels of the model-based resamplers (numba code only).

Every kernel regenerates replicate ``b`` from the counter-based stream of
:mod:`skboot._random` (SplitMix64 read at ``b * 2**32 + i``), so a replicate's
synthetic sample depends only on ``(key, b)``: never on the chunk it falls in, the
chunk size, ``n_jobs`` or the joblib backend.

Stream use (part of :data:`skboot.STREAM_VERSION`):

* wild multiplier ``i`` of replicate ``b`` reads purpose ``"wild"``: Rademacher is
  ``1 - 2 * bounded(2)`` (one word), Webb's six-point law is ``WEBB[bounded(6)]``
  (one word, Lemire with rejection), Mammen's two-point law compares one
  ``uniform01`` (two words) with ``MAMMEN_P``; the standard normal is
  ``sqrt(-2 log(1 - u1)) cos(2 pi u2)`` (Box & Muller 1958) from two ``uniform01``
  (four words: multiplier ``i`` reads words ``4 i`` to ``4 i + 3`` of the
  replicate, so it is a function of (key, replicate, cluster) alone);
* residual indices of the residual bootstrap read the iid stream (purpose
  ``"indices"``, bound ``m``) or the moving-block stream (purpose
  ``"block_starts"``, bound ``m - L + 1``) exactly as :class:`skboot.Bootstrap` and
  :class:`skboot.MovingBlockBootstrap` do over the ``m`` residuals;
* the start of the initial values of a replicate with a burn-in is draw 0 of
  ``bounded(n - p + 1)`` on purpose ``"model"``.

Kernels take uint64 seeds, int64/float64 arrays, and release the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skboot._kernels.model_var import VAR_LANES, pairwise_plan, reduce8
from skboot._random import (
    FAST_BLOCK,
    NO_HAVE,
    bounded,
    draw_block,
    fast_pairs,
    fill_indices_kernel,
    lemire_threshold,
    replicate_counter,
    uniform01,
)

__all__ = [
    "LANES",
    "MAMMEN_HI",
    "MAMMEN_LO",
    "MAMMEN_P",
    "WEBB",
    "WEIGHT_CODES",
    "ar_residual_chunk",
    "ar_residual_sums",
    "ar_wild_chunk",
    "cluster_scores",
    "cluster_sums",
    "dense_codes",
    "fill_wild_weights",
    "regression_wild_chunk",
    "wcb_chunk",
    "wcb_multi_chunk",
    "wild_weights_chunk",
]

#: Weight law -> kernel code.
WEIGHT_CODES = {"rademacher": 0, "mammen": 1, "webb": 2, "normal": 3}

_SQ5 = np.sqrt(5.0)
#: Mammen (1993): ``(1 - sqrt 5) / 2`` with probability ``(sqrt 5 + 1) / (2 sqrt 5)``,
#: else ``(1 + sqrt 5) / 2`` (mean 0, variance 1, third moment 1).
MAMMEN_P = (_SQ5 + 1.0) / (2.0 * _SQ5)
MAMMEN_LO = (1.0 - _SQ5) / 2.0
MAMMEN_HI = (1.0 + _SQ5) / 2.0
#: Webb (2023): six points, each with probability 1/6 (mean 0, variance 1).
WEBB = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])

_TWO_PI = 2.0 * np.pi
_U0 = np.uint64(0)
MASK32 = np.uint64(0xFFFFFFFF)
_U2 = np.uint64(2)
_U6 = np.uint64(6)
# Lemire thresholds (2**32 mod n) for n = 2 and n = 6
_T2 = np.uint64(0)
_T6 = np.uint64(4)


@njit(cache=True, nogil=True)
def fill_wild_weights(seed, gamma, b, kind, table, out):
    """``out[i]`` = wild multiplier ``i`` of replicate ``b`` (purpose "wild").

    ``kind``: 0 Rademacher, 1 Mammen, 2 Webb (``table`` holds the six points),
    3 standard normal (Box-Muller from two uniforms).
    """
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    if kind == 0:
        for i in range(out.shape[0]):
            v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, _U2, _T2)
            out[i] = 1.0 - 2.0 * np.float64(v)
    elif kind == 1:
        for i in range(out.shape[0]):
            u, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
            out[i] = MAMMEN_LO if u < MAMMEN_P else MAMMEN_HI
    elif kind == 2:
        for i in range(out.shape[0]):
            v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, _U6, _T6)
            out[i] = table[np.int64(v)]
    else:
        for i in range(out.shape[0]):
            u1, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
            u2, ctr, have, lo = uniform01(seed, gamma, ctr, have, lo)
            out[i] = np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(_TWO_PI * u2)


@njit(cache=True, nogil=True)
def wild_weights_chunk(seed, gamma, b0, kind, table, out):
    """Row ``k`` of ``out`` (nb, m) = the ``m`` multipliers of replicate ``b0 + k``."""
    for k in range(out.shape[0]):
        fill_wild_weights(seed, gamma, np.uint64(b0 + k), kind, table, out[k])


#: Replicates whose AR recursions run side by side (independent dependency
#: chains, one vector lane each): the recursion is latency-bound otherwise.  The
#: arithmetic of a lane does not depend on its neighbours, so a replicate's values
#: do not depend on the lane count or the chunk.
LANES = VAR_LANES


@njit(cache=True, nogil=True)
def _recurse(path, intercept, phi, lanes):
    """Row ``l`` of ``path`` (LANES, time) holds ``p`` start values followed by
    the innovations ``e_t``; overwrite ``path[lane, t]`` (``t >= p``) with
    ``x_t = ((c + e_t) + phi_p x_{t-p}) + ... + phi_1 x_{t-1}``, summed in that
    order (the ``phi_1`` term last).  The lanes are independent chains advanced
    together, so their latencies overlap."""
    p = phi.shape[0]
    if p == 1:  # the common case, without the inner loop (same arithmetic)
        a = phi[0]
        for t in range(1, path.shape[1]):
            for lane in range(lanes):
                path[lane, t] = (intercept + path[lane, t]) + a * path[lane, t - 1]
        return
    for t in range(p, path.shape[1]):
        for lane in range(lanes):
            acc = intercept + path[lane, t]
            for j in range(p - 1, -1, -1):
                acc += phi[j] * path[lane, t - 1 - j]
            path[lane, t] = acc


@njit(cache=True, nogil=True)
def _recurse_rows(rows, intercept, phi):
    """:func:`_recurse` on a path laid out ``rows[t, lane]`` (the eight lanes of
    a time side by side), all eight lanes: the same arithmetic, lane by lane, in
    one vector operation per time and term."""
    p = phi.shape[0]
    for t in range(p, rows.shape[0]):
        for lane in range(LANES):
            rows[t, lane] = intercept + rows[t, lane]
        for j in range(p - 1, -1, -1):
            a = phi[j]
            for lane in range(LANES):
                rows[t, lane] = rows[t, lane] + a * rows[t - 1 - j, lane]


@njit(cache=True, nogil=True)
def _ar_fill(seeds, gamma, b, n, series, resid, random_start, L, row, idx, scratch):
    """``row`` (``burn_in + n`` values of one lane) gets replicate ``b``'s ``p``
    start values and its innovations, as :func:`ar_residual_chunk` describes;
    ``scratch = (blk, starts, first)``; ``p = len(row) - len(idx)`` with ``idx``
    of the innovations' length."""
    seed_i, seed_s, seed_m = seeds[0], seeds[1], seeds[2]
    blk, starts, first = scratch
    n_e = idx.shape[0]
    p = row.shape[0] - n_e
    m = resid.shape[0]
    um = np.uint64(m)
    s = 0
    if random_start:
        fill_indices_kernel(seed_m, gamma, b, np.uint64(n - p + 1), first)
        s = first[0]
    for j in range(p):
        row[j] = series[s + j]
    if L > 0:
        fill_indices_kernel(seed_s, gamma, b, np.uint64(m - L + 1), starts)
        t = 0
        for j in range(starts.shape[0]):
            ln = min(L, n_e - t)
            for r in range(ln):
                idx[t] = np.uint64(starts[j] + r)
                t += 1
        for i in range(n_e):
            row[p + i] = resid[idx[i]]
        return
    # the iid index stream, block by block (the draws of fill_indices_kernel),
    # each block gathered while in L1
    thresh = lemire_threshold(um)
    ctr = replicate_counter(b)
    have = NO_HAVE
    lo = _U0
    done = 0
    while done < n_e:
        c = min(FAST_BLOCK, n_e - done)
        # draw_block's fast path inlined, as skboot._random's kernels do
        if (
            not have
            and um <= MASK32
            and not (c & 1)
            and fast_pairs(seed_i, gamma, ctr, um, thresh, blk, c >> 1)
        ):
            ctr = ctr + np.uint64(c >> 1)
        else:
            ctr, have, lo = draw_block(seed_i, gamma, ctr, have, lo, um, thresh, blk, c)
        for i in range(c):
            row[p + done + i] = resid[blk[i]]
        done += c


@njit(cache=True, nogil=True)
def _ar_scratch(n_e, m, L):
    """The draw scratch of :func:`_ar_fill`: ``idx`` (the innovations' residual
    indices, unsigned: numba checks signed ones for negative values on every
    read) and ``(blk, starts, first)``."""
    idx = np.empty(n_e, dtype=np.uint64)
    n_blocks = (n_e + L - 1) // L if L > 0 else 0
    blk = np.empty(FAST_BLOCK, dtype=np.uint64)
    starts = np.empty(n_blocks, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    return idx, (blk, starts, first)


@njit(cache=True, nogil=True)
def ar_residual_chunk(
    seeds, gamma, b0, series, intercept, phi, resid, burn_in, random_start,
    block_length, out,
):  # fmt: skip
    """Row ``k`` of ``out`` (nb, n) = the AR residual-bootstrap series of replicate
    ``b0 + k``; ``seeds`` holds the streams' seeds of purposes ``"indices"``,
    ``"block_starts"`` and ``"model"``.

    The path has ``burn_in + n`` values: ``p`` start values ``series[s:s + p]``
    (``s = 0``, or draw 0 of ``bounded(n - p + 1)`` on ``"model"`` when
    ``random_start``), then ``x_t = ((c + e_t) + phi_p x_{t-p}) + ... +
    phi_1 x_{t-1}`` with ``e_t = resid[idx[t - p]]``; the last ``n`` values are
    kept.  ``idx`` holds ``burn_in + n - p`` residual indices: iid draws of
    ``bounded(m)`` on ``"indices"`` (``block_length == 0``), or moving blocks of
    ``block_length`` residuals whose starts are draws of ``bounded(m - L + 1)`` on
    ``"block_starts"``, concatenated and cut.
    """
    nb, n = out.shape
    p = phi.shape[0]
    total = burn_in + n
    lanes_max = min(LANES, nb)
    # without a burn-in the recursion runs in the output rows themselves
    buf = np.zeros((lanes_max, total if burn_in > 0 else 0))
    idx, scratch = _ar_scratch(total - p, resid.shape[0], block_length)
    for k0 in range(0, nb, lanes_max):
        lanes = min(lanes_max, nb - k0)
        path = buf if burn_in > 0 else out[k0 : k0 + lanes]
        for lane in range(lanes):
            b = np.uint64(b0 + k0 + lane)
            _ar_fill(seeds, gamma, b, n, series, resid, random_start,
                     block_length, path[lane], idx, scratch)  # fmt: skip
        _recurse(path, intercept, phi, lanes)
        if burn_in > 0:
            for lane in range(lanes):
                out[k0 + lane, :] = path[lane, burn_in:]


@njit(cache=True, nogil=True)
def ar_residual_sums(
    seeds, gamma, b0, series, intercept, phi, resid, burn_in, random_start,
    block_length, what, ddof, out,
):  # fmt: skip
    """``out[k, 0]``: the reduction ``what`` (``skboot._kernels.model_var``'s
    ``SUM``, ``MEAN``, ``VAR``, ``STD``; ``ddof``) of replicate ``b0 + k``'s
    series as :func:`ar_residual_chunk` generates it, equal bit for bit to
    numpy's on that series, without writing it out.  The eight lanes of a path
    lie side by side in memory (time ``t`` of lane ``l`` at ``8 t + l``), so
    numpy's pairwise sums run on all eight at once (:func:`reduce8`)."""
    nb = out.shape[0]
    n = series.shape[0]
    p = phi.shape[0]
    total = burn_in + n
    flat = np.zeros(total * LANES)
    rows = flat.reshape((total, LANES))
    path = rows.T  # path[lane, t], as _ar_fill writes a lane
    idx, scratch = _ar_scratch(total - p, resid.shape[0], block_length)
    ops = pairwise_plan(n)
    stack = np.empty((ops.shape[0], LANES))
    res = np.empty(LANES)
    centre = np.empty(LANES)
    for k0 in range(0, nb, LANES):
        lanes = min(LANES, nb - k0)
        for lane in range(lanes):
            b = np.uint64(b0 + k0 + lane)
            _ar_fill(seeds, gamma, b, n, series, resid, random_start,
                     block_length, path[lane], idx, scratch)  # fmt: skip
        _recurse_rows(rows, intercept, phi)
        reduce8(flat, burn_in * LANES, LANES, n, what, ddof, ops, stack, res, centre)
        for lane in range(lanes):
            out[k0 + lane, 0] = res[lane]


@njit(cache=True, nogil=True)
def ar_wild_chunk(
    seed_w, gamma, b0, series, intercept, phi, resid, kind, table, block_length, out
):
    """Row ``k`` of ``out`` (nb, n) = the AR wild-bootstrap series of replicate
    ``b0 + k``: the first ``p`` values are the observed ones, then
    ``x_t = ((c + e_t) + phi_p x_{t-p}) + ... + phi_1 x_{t-1}`` with
    ``e_t = resid[t - p] * v[(t - p) // L]`` and ``v`` the replicate's
    multipliers (one per block of ``L`` residuals)."""
    nb, n = out.shape
    p = phi.shape[0]
    m = n - p
    L = block_length
    v = np.empty((m + L - 1) // L)
    lanes_max = min(LANES, nb)
    for k0 in range(0, nb, lanes_max):
        lanes = min(lanes_max, nb - k0)
        path = out[k0 : k0 + lanes]
        for lane in range(lanes):
            fill_wild_weights(seed_w, gamma, np.uint64(b0 + k0 + lane), kind, table, v)
            row = path[lane]
            for j in range(p):
                row[j] = series[j]
            for i in range(m):
                row[p + i] = resid[i] * v[i // L]
        _recurse(path, intercept, phi, lanes)


@njit(cache=True, nogil=True)
def regression_wild_chunk(seed_w, gamma, b0, fitted, resid, codes, kind, table, v, out):
    """Row ``k`` of ``out`` (nb, n) = ``fitted + resid * v[codes]`` with ``v`` the
    multipliers of replicate ``b0 + k`` (``len(v)`` of them: one per row, block or
    cluster; ``codes[i]`` says which one row ``i`` uses)."""
    for k in range(out.shape[0]):
        fill_wild_weights(seed_w, gamma, np.uint64(b0 + k), kind, table, v)
        row = out[k]
        for i in range(row.shape[0]):
            row[i] = fitted[i] + resid[i] * v[codes[i]]


@njit(cache=True, nogil=True)
def cluster_sums(X, w, codes, out):
    """``out[g, j] = sum of X[i, j] * w[i]`` over the rows ``i`` of cluster ``g``,
    accumulated in row order (``out`` is overwritten)."""
    out[:, :] = 0.0
    for i in range(X.shape[0]):
        g = codes[i]
        wi = w[i]
        for j in range(X.shape[1]):
            out[g, j] += X[i, j] * wi


@njit(cache=True, nogil=True)
def cluster_scores(X, y, beta, q, codes, su, f, norms):
    """One pass over the rows: ``su[g] = X_g' (y_g - X_g beta)`` and
    ``f[g] = X_g' X_g q``, and the squared norms the rounding bound of
    ``skboot.model_based._cluster_checks`` needs: ``norms[0] = ||X q||**2``,
    ``norms[1] = ||y||**2``, ``norms[2 + j] = ||X[:, j]||**2`` (row order; all
    overwritten)."""
    su[:, :] = 0.0
    f[:, :] = 0.0
    norms[:] = 0.0
    k = X.shape[1]
    for i in range(X.shape[0]):
        g = codes[i]
        u = y[i]
        xq = 0.0
        for j in range(k):
            u -= X[i, j] * beta[j]
            xq += X[i, j] * q[j]
        norms[0] += xq * xq
        norms[1] += y[i] * y[i]
        for j in range(k):
            su[g, j] += X[i, j] * u
            f[g, j] += X[i, j] * xq
            norms[2 + j] += X[i, j] * X[i, j]


@njit(cache=True, nogil=True)
def dense_codes(labels, lo, size):
    """Codes of integer labels in sorted label order, O(n + range): label ``l``
    gets the number of distinct labels below it."""
    seen = np.zeros(size, dtype=np.int64)
    for i in range(labels.shape[0]):
        seen[labels[i] - lo] = 1
    rank = np.empty(size, dtype=np.int64)
    acc = 0
    for v in range(size):
        rank[v] = acc
        acc += seen[v]
    out = np.empty(labels.shape[0], dtype=np.int64)
    for i in range(labels.shape[0]):
        out[i] = rank[labels[i] - lo]
    return out, acc


@njit(cache=True, nogil=True)
def wcb_chunk(
    seed, gamma, b0, kind, table, enumerate_all, Su, Sf, F, wu, wf, wuv, wfv, out
):
    """Per-replicate sums of the wild cluster bootstrap, O(G k) per replicate.

    For replicate ``b`` with cluster multipliers ``v`` (drawn, or the sign vector
    ``v_g = 1 - 2 * bit_g(b)`` when ``enumerate_all``), writes
    ``out[k] = (N0, N1, Q0, Q1, Q2)`` with ``N0 = sum_g v_g wu_g``,
    ``N1 = sum_g v_g wf_g``, ``d0 = sum_g v_g Su[g]``, ``d1 = sum_g v_g Sf[g]``,
    ``z0_g = v_g wuv_g - F[g] . d0``, ``z1_g = v_g wfv_g - F[g] . d1`` and
    ``Q0 = sum z0**2``, ``Q1 = sum z0 z1``, ``Q2 = sum z1**2`` (see
    ``skboot.model_based._cluster`` for what they are; CRV1 has ``wuv = wu``
    and ``wfv = wf``, the jackknife variance CRV3 others:
    ``skboot.model_based._cluster_crv3``).
    """
    G = Su.shape[0]
    kk = Su.shape[1]
    v = np.empty(G)
    d0 = np.empty(kk)
    d1 = np.empty(kk)
    for k in range(out.shape[0]):
        b = b0 + k
        if enumerate_all:
            for g in range(G):
                v[g] = 1.0 - 2.0 * np.float64((b >> g) & 1)
        else:
            fill_wild_weights(seed, gamma, np.uint64(b), kind, table, v)
        n0 = 0.0
        n1 = 0.0
        for j in range(kk):
            d0[j] = 0.0
            d1[j] = 0.0
        for g in range(G):
            vg = v[g]
            n0 += vg * wu[g]
            n1 += vg * wf[g]
            for j in range(kk):
                d0[j] += vg * Su[g, j]
                d1[j] += vg * Sf[g, j]
        q0 = 0.0
        q1 = 0.0
        q2 = 0.0
        for g in range(G):
            f0 = 0.0
            f1 = 0.0
            for j in range(kk):
                f0 += F[g, j] * d0[j]
                f1 += F[g, j] * d1[j]
            z0 = v[g] * wuv[g] - f0
            z1 = v[g] * wfv[g] - f1
            q0 += z0 * z0
            q1 += z0 * z1
            q2 += z1 * z1
        out[k, 0] = n0
        out[k, 1] = n1
        out[k, 2] = q0
        out[k, 3] = q1
        out[k, 4] = q2


@njit(cache=True, nogil=True)
def wcb_multi_chunk(
    seed, gamma, b0, kind, table, enumerate_all, boot, var, weight, out
):
    """:func:`wcb_chunk` with bootstrap clusters other than the variance clusters
    and a variance of several terms (two-way clustering), O((G + H) k + T C) per
    replicate.

    ``boot = (Su, Sf, wu, wf, cell_boot, cell_wu, cell_wf)``: per bootstrap
    cluster ``B`` the rows ``Su[B] = A sum su_c`` and ``Sf[B] = A sum f_c`` and the
    scalars ``wu[B] = q' sum su_c``, ``wf[B] = q' sum f_c`` (sums over the cells
    ``c`` of ``B``), and per cell (an intersection of the bootstrap cluster and
    every variance cluster) its bootstrap cluster and ``q' su_c``, ``q' f_c``.
    ``var = (cell_var, FH, term)``: ``cell_var[t, c]`` is the row of ``FH`` of
    the cluster of term ``t`` holding cell ``c``; ``FH[h] = X_h' X_h q`` and
    ``term[h]`` its term; term ``t`` enters the variance with factor
    ``weight[t]`` (a small-sample factor, negative for the intersection term of
    two-way clustering).  ``out[k] = (N0, N1, Q0, Q1, Q2)`` with ``z0_h = sum_{c in
    h} v_c q' su_c - FH[h] . d0`` (``z1`` likewise) and ``Q0 = sum_h weight
    z0_h**2``, ``Q1 = sum_h weight z0_h z1_h``, ``Q2 = sum_h weight z1_h**2``.
    """
    Su, Sf, wu, wf, cell_boot, cell_wu, cell_wf = boot
    cell_var, FH, term = var
    G = Su.shape[0]
    kk = Su.shape[1]
    H = FH.shape[0]
    v = np.empty(G)
    d0 = np.empty(kk)
    d1 = np.empty(kk)
    z0 = np.empty(H)
    z1 = np.empty(H)
    for k in range(out.shape[0]):
        b = b0 + k
        if enumerate_all:
            for g in range(G):
                v[g] = 1.0 - 2.0 * np.float64((b >> g) & 1)
        else:
            fill_wild_weights(seed, gamma, np.uint64(b), kind, table, v)
        n0 = 0.0
        n1 = 0.0
        d0[:] = 0.0
        d1[:] = 0.0
        for g in range(G):
            vg = v[g]
            n0 += vg * wu[g]
            n1 += vg * wf[g]
            for j in range(kk):
                d0[j] += vg * Su[g, j]
                d1[j] += vg * Sf[g, j]
        for h in range(H):
            f0 = 0.0
            f1 = 0.0
            for j in range(kk):
                f0 += FH[h, j] * d0[j]
                f1 += FH[h, j] * d1[j]
            z0[h] = -f0
            z1[h] = -f1
        for t in range(cell_var.shape[0]):
            for c in range(cell_var.shape[1]):
                h = cell_var[t, c]
                vc = v[cell_boot[c]]
                z0[h] += vc * cell_wu[c]
                z1[h] += vc * cell_wf[c]
        q0 = 0.0
        q1 = 0.0
        q2 = 0.0
        for h in range(H):
            w = weight[term[h]]
            q0 += w * z0[h] * z0[h]
            q1 += w * z0[h] * z1[h]
            q2 += w * z1[h] * z1[h]
        out[k, 0] = n0
        out[k, 1] = n1
        out[k, 2] = q0
        out[k, 3] = q1
        out[k, 4] = q2
