"""Candidate counter-based mixers built from 32-bit multiplies, timed in the iid
mean kernel against skboot's stream (a prototype for a possible next stream version;
skboot's stream is not changed here).

    python -m benchmarks.stream_mixers [--isa native|avx2] [--reps 7] [--n N ...]
    python -m benchmarks.stream_mixers --dieharder NAME [--seed S] | dieharder ...

skboot's stream (:mod:`skboot._random._core`) is SplitMix64, whose finalizer needs
two 64-bit multiplies per output.  AVX2 has no 64-bit vector multiply: LLVM builds
each from three 32 x 32 -> 64 ones plus shifts and adds.  The candidates below use
only 32-bit multiplies (one ``vpmuludq`` gives four 32 x 32 -> 64 products, one
``vpmulld`` eight 32-bit ones).  Each fills a block of 128 32-bit words of
replicate ``b`` and feeds the same Lemire bounded draw + gather + sum as skboot's
iid mean kernel (:func:`skboot._kernels.iid.iid_sum_1d`: draw ``j`` into
accumulator ``j % 8``, a word-by-word reader after a rejection), so only the
mixer differs:

* ``splitmix64``: skboot's stream itself, written as a plain loop (the words,
  draws and sums equal skboot's kernel bit for bit; the tests check it);
* ``philox4x32_10`` and ``philox4x32_7``: Philox-4x32 with 10 and 7 rounds
  (Salmon, Moraes, Dror & Shaw 2011), counter ``(q, b mod 2**32, b >> 32, 0)``
  and key ``(seed_p mod 2**32, seed_p >> 32)``, four words per call;
* ``feistel_mx32``: a four-round Feistel network on the 64-bit counter
  ``(b, q)`` whose round function is the 32-bit multiply-xorshift hash
  "lowbias32" (C. Wellons, "Hash function prospector", 2018) of one half plus a
  round key taken from the seed; two words per call.  Written as a plain loop it
  runs on four 64-bit lanes (numba widens integer arithmetic to 64 bits);
  ``feistel_mx32_v8`` is the same words on eight 32-bit lanes
  (:mod:`benchmarks._mixer_vec`).

Also timed: skboot's kernel as the library picks it (``iid_sum_kernel(n)``, the
software-pipelined variant on AVX2), a plain scalar loop (one
:func:`skboot._random.bounded` per draw), the gather alone (the same sums over a
precomputed index array: no draws), the least any generator can cost, and each
mixer's block draws alone (words and Lemire reductions, no gather) next to
skboot's (:func:`skboot._random.fast_pairs_split`).  Where a mixer's draws alone
cost less than the gather, a kernel that overlaps the two (as skboot's pipelined
kernel does) is bound by the gather.

``--isa`` re-executes the process with the environment of
:mod:`benchmarks._isa` (``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` and a private
kernel cache), so every kernel of one run is compiled for one ISA; the kernels of
this module are compiled afresh in every run (no disk cache, which numba keys by
the host CPU only).  ``--dieharder NAME`` writes NAME's words of replicates
``--start``, ``--start + 1``, ... (``--length`` words each) as raw 32-bit words to
stdout, for ``dieharder -g 200``.

References
----------
J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers: as
easy as 1, 2, 3", SC 2011.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from typing import Any

import numpy as np
from numba import njit

from benchmarks._mixer_vec import H1, H2, feistel_fill8
from skboot._random import (
    FAST_BLOCK,
    HALF_BLOCK,
    NO_HAVE,
    bounded,
    check_random_state,
    fast_pairs_split,
    lemire_threshold,
)
from skboot._random import mix64 as _mix64

__all__ = ["BLOCK", "MIXERS", "main", "mixer_sum", "mixer_words"]

BLOCK = 128
_M = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U1 = np.uint64(1)
# Philox-4x32 constants (Salmon et al. 2011, Random123)
_PM0 = np.uint64(0xD2511F53)
_PM1 = np.uint64(0xCD9E8D57)
_PW0 = np.uint64(0x9E3779B9)
_PW1 = np.uint64(0xBB67AE85)
# lowbias32 multipliers (Wellons 2018)
_H1 = np.uint64(H1)
_H2 = np.uint64(H2)


# ---------------------------------------------------------------------------
# mixers: group q of replicate b, as G words (G = 2 or 4), words 32-bit in uint64
# ---------------------------------------------------------------------------
@njit(inline="always")
def _splitmix_group(k0, k1, gamma, b, q):
    t = (np.uint64(b) << _U32) + np.uint64(q)
    z = _mix64(((k1 << _U32) | k0) + (t + _U1) * gamma)
    return z >> _U32, z & _M, _U1, _U1


@njit(inline="always")
def _philox_round(c0, c1, c2, c3, k0, k1):
    p0 = _PM0 * c0
    p1 = _PM1 * c2
    return (p1 >> _U32) ^ c1 ^ k0, p1 & _M, (p0 >> _U32) ^ c3 ^ k1, p0 & _M


@njit(inline="always")
def _philox(k0, k1, b, q, rounds):
    c0 = np.uint64(q) & _M
    c1 = np.uint64(b) & _M
    c2 = np.uint64(b) >> _U32
    c3 = np.uint64(0)
    for r in range(rounds):
        if r:
            k0 = (k0 + _PW0) & _M
            k1 = (k1 + _PW1) & _M
        c0, c1, c2, c3 = _philox_round(c0, c1, c2, c3, k0, k1)
    return c0, c1, c2, c3


@njit(inline="always")
def _philox10_group(k0, k1, gamma, b, q):
    return _philox(k0, k1, b, q, 10)


@njit(inline="always")
def _philox7_group(k0, k1, gamma, b, q):
    return _philox(k0, k1, b, q, 7)


@njit(inline="always")
def _lowbias32(x):
    x = x ^ (x >> np.uint64(16))
    x = (x * _H1) & _M
    x = x ^ (x >> np.uint64(15))
    x = (x * _H2) & _M
    return x ^ (x >> np.uint64(16))


@njit(inline="always")
def _feistel_group(k0, k1, gamma, b, q):
    left = np.uint64(b) & _M
    right = np.uint64(q) & _M
    g = gamma & _M
    left = left ^ _lowbias32((right + k0) & _M)
    right = right ^ _lowbias32((left + k1) & _M)
    left = left ^ _lowbias32((right + g) & _M)
    right = right ^ _lowbias32((left + (k0 ^ k1)) & _M)
    return left, right, _U1, _U1


@njit(inline="always")
def _feistel_fill_fast(k0, k1, gamma, b, q0, nq, out):
    feistel_fill8(k0, k1, gamma, np.int64(b), np.int64(q0), np.int64(nq), out)
    return nq - (nq & 7)


@njit(inline="always")
def _no_fill_fast(k0, k1, gamma, b, q0, nq, out):
    return 0


#: name -> (group function, words per group, vector fill of leading groups)
MIXERS: dict[str, tuple[Any, int, Any]] = {
    "splitmix64": (_splitmix_group, 2, _no_fill_fast),
    "philox4x32_10": (_philox10_group, 4, _no_fill_fast),
    "philox4x32_7": (_philox7_group, 4, _no_fill_fast),
    "feistel_mx32": (_feistel_group, 2, _no_fill_fast),
    "feistel_mx32_v8": (_feistel_group, 2, _feistel_fill_fast),
}


# ---------------------------------------------------------------------------
# block fill, reader and kernel, compiled once per mixer (the mixer a constant,
# so LLVM inlines and vectorizes it)
# ---------------------------------------------------------------------------
def _make(group: Any, width: int, fill_fast: Any) -> tuple[Any, ...]:
    """``(fill, kernel, words_of, draws, words_alone)`` of one mixer."""
    shift = 1 if width == 2 else 2

    @njit(inline="always")
    def fill(k0, k1, gamma, b, q0, nq, out):
        # groups q0 .. q0 + nq - 1 of replicate b, lane-split: word l of group
        # q0 + q goes to out[l * nq + q] (contiguous stores, so LLVM vectorizes
        # the mixer across groups)
        for q in range(fill_fast(k0, k1, gamma, b, q0, nq, out), nq):
            w0, w1, w2, w3 = group(k0, k1, gamma, b, q0 + q)
            out[q] = np.uint32(w0)
            out[nq + q] = np.uint32(w1)
            if width == 4:
                out[2 * nq + q] = np.uint32(w2)
                out[3 * nq + q] = np.uint32(w3)

    @njit
    def read_block(k0, k1, gamma, b, pos, un, thresh, c, words, idx):
        # c bounded draws word by word (Lemire with rejection) from word pos
        for t in range(c):
            while True:
                fill(k0, k1, gamma, b, pos >> shift, 1, words)
                mm = np.uint64(words[pos & (width - 1)]) * un
                pos += 1
                if (mm & _M) >= thresh:
                    idx[t] = mm >> _U32
                    break
        return pos

    @njit(inline="always")
    def gather_aligned(x, idx, s):
        # draw width * q + l is idx[l * nq + q] (nq = BLOCK / width)
        nq = BLOCK // width
        if width == 2:
            for t in range(0, nq, 4):
                s[0] += x[idx[t]]
                s[1] += x[idx[nq + t]]
                s[2] += x[idx[t + 1]]
                s[3] += x[idx[nq + t + 1]]
                s[4] += x[idx[t + 2]]
                s[5] += x[idx[nq + t + 2]]
                s[6] += x[idx[t + 3]]
                s[7] += x[idx[nq + t + 3]]
        else:
            for t in range(0, nq, 2):
                s[0] += x[idx[t]]
                s[1] += x[idx[nq + t]]
                s[2] += x[idx[2 * nq + t]]
                s[3] += x[idx[3 * nq + t]]
                s[4] += x[idx[t + 1]]
                s[5] += x[idx[nq + t + 1]]
                s[6] += x[idx[2 * nq + t + 1]]
                s[7] += x[idx[3 * nq + t + 1]]

    @njit(nogil=True)
    def kernel(x, k0, k1, gamma, b0, m, out):
        # per replicate b0 + k: the sum of m drawn values, summed as iid_sum_1d
        un = np.uint64(x.shape[0])
        thresh = lemire_threshold(un)
        words = np.empty(BLOCK + 8, dtype=np.uint32)
        idx = np.empty(BLOCK + 8, dtype=np.uint64)
        s = np.empty(8)
        for k in range(out.shape[0]):
            b = b0 + k
            s[:] = 0.0
            tail = 0.0
            pos = 0
            done = 0
            while done < m:
                c = min(BLOCK, m - done)
                fast = False
                if c == BLOCK:
                    off = pos & (width - 1)
                    nq = (off + BLOCK + width - 1) >> shift
                    fill(k0, k1, gamma, b, pos >> shift, nq, words)
                    low = _M
                    for t in range(nq * width):
                        mm = np.uint64(words[t]) * un
                        idx[t] = mm >> _U32
                        low = min(low, mm & _M)
                    fast = low >= thresh
                    if fast:
                        pos += BLOCK
                        if off == 0:
                            gather_aligned(x, idx, s)
                        else:
                            for t in range(0, BLOCK, 8):
                                for j in range(8):
                                    u = off + t + j
                                    s[j] += x[
                                        idx[(u & (width - 1)) * nq + (u >> shift)]
                                    ]
                if not fast:
                    pos = read_block(k0, k1, gamma, b, pos, un, thresh, c, words, idx)
                    c8 = c - (c & 7)
                    for t in range(0, c8, 8):
                        for j in range(8):
                            s[j] += x[idx[t + j]]
                    for t in range(c8, c):
                        tail += x[idx[t]]
                done += c
            out[k] = (
                ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail
            )

    @njit(nogil=True)
    def draws(un, k0, k1, gamma, b0, m, out):
        # the kernel's block draws alone (no gather): per replicate, the sum of
        # its indices of full blocks without a rejected word, into out[k]
        thresh = lemire_threshold(un)
        words = np.empty(BLOCK + 8, dtype=np.uint32)
        for k in range(out.shape[0]):
            total = np.uint64(0)
            pos = 0
            for _ in range(m // BLOCK):
                off = pos & (width - 1)
                nq = (off + BLOCK + width - 1) >> shift
                fill(k0, k1, gamma, b0 + k, pos >> shift, nq, words)
                low = _M
                for t in range(nq * width):
                    mm = np.uint64(words[t]) * un
                    total += mm >> _U32
                    low = min(low, mm & _M)
                pos += BLOCK if low >= thresh else BLOCK + 1
            out[k] = total

    @njit(nogil=True)
    def words_alone(k0, k1, gamma, b0, m, out):
        # the mixer alone: per replicate, m words made BLOCK at a time (lane-split,
        # as the kernel makes them), their sum into out[k]
        words = np.empty(BLOCK + 8, dtype=np.uint32)
        nq = BLOCK >> shift
        for k in range(out.shape[0]):
            total = np.uint64(0)
            for blk in range(m // BLOCK):
                fill(k0, k1, gamma, b0 + k, blk * nq, nq, words)
                for t in range(BLOCK):
                    total += np.uint64(words[t])
            out[k] = total

    @njit
    def words_of(k0, k1, gamma, b0, length, out):
        # words 0 .. length - 1 of replicates b0, b0 + 1, ... into out, in
        # stream order (length a multiple of width)
        nq = length // width
        tmp = np.empty(length, dtype=np.uint32)
        for r in range(out.size // length):
            fill(k0, k1, gamma, b0 + r, 0, nq, tmp)
            for q in range(nq):
                for lane in range(width):
                    out[r * length + q * width + lane] = tmp[lane * nq + q]

    return fill, kernel, words_of, draws, words_alone


_COMPILED: dict[str, tuple[Any, ...]] = {}


def compiled(name: str) -> tuple[Any, ...]:
    """``(fill, kernel, words_of, draws, words_alone)`` of mixer ``name``
    (built on first use)."""
    if name not in _COMPILED:
        _COMPILED[name] = _make(*MIXERS[name])
    return _COMPILED[name]


def mixer_sum(name, x, k0, k1, gamma, b0, m, out):
    """Per replicate ``b0 + k``: the sum of ``m`` values of ``x`` drawn with the
    words of mixer ``name``, summed as :func:`skboot._kernels.iid.iid_sum_1d`
    sums (draw ``j`` into accumulator ``j % 8``, the last partial group of eight
    into a ninth)."""
    compiled(name)[1](x, k0, k1, gamma, b0, m, out)


@njit(nogil=True)
def scalar_sum(x, seed, gamma, b0, m, out):
    """The plain scalar loop: one :func:`skboot._random.bounded` per draw
    (skboot's stream), summed as :func:`mixer_sum` sums."""
    un = np.uint64(x.shape[0])
    thresh = lemire_threshold(un)
    c8 = m - (m & 7)
    for k in range(out.shape[0]):
        ctr = np.uint64(b0 + k) << _U32
        have = NO_HAVE
        lo = np.uint64(0)
        s = np.zeros(8)
        tail = 0.0
        for j in range(m):
            v, ctr, have, lo = bounded(seed, gamma, ctr, have, lo, un, thresh)
            if j < c8:
                s[j & 7] += x[v]
            else:
                tail += x[v]
        out[k] = (
            ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail
        )


@njit(nogil=True)
def skboot_draws(un, seed, gamma, b0, m, out):
    """skboot's block draw alone (:func:`skboot._random.fast_pairs_split`, the
    fast path of :func:`skboot._kernels.iid.iid_sum_1d`): per replicate, the sum
    of the indices of its full blocks."""
    thresh = lemire_threshold(un)
    buf = np.empty(FAST_BLOCK, dtype=np.uint64)
    for k in range(out.shape[0]):
        total = np.uint64(0)
        ctr = np.uint64(b0 + k) << _U32
        for _ in range(m // FAST_BLOCK):
            fast_pairs_split(seed, gamma, ctr, un, thresh, buf, HALF_BLOCK)
            ctr = ctr + np.uint64(HALF_BLOCK)
            for t in range(FAST_BLOCK):
                total += buf[t]
        out[k] = total


@njit(nogil=True)
def gather_sum(x, idx, out):
    """The gather alone: every replicate sums ``x[idx]`` (no draws), as
    :func:`mixer_sum` sums."""
    m = idx.shape[0]
    c8 = m - (m & 7)
    for k in range(out.shape[0]):
        s = np.zeros(8)
        tail = 0.0
        for t in range(0, c8, 8):
            for j in range(8):
                s[j] += x[idx[t + j]]
        for t in range(c8, m):
            tail += x[idx[t]]
        out[k] = (
            ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail
        )


def _keys(seed: int) -> tuple[np.uint64, np.uint64, np.uint64]:
    seed_p, gamma = check_random_state(seed).stream(0)
    return seed_p & _M, seed_p >> _U32, gamma


def mixer_words(name: str, seed: int, b0: int, length: int, count: int) -> np.ndarray:
    """The first ``count`` words (uint32) of replicates ``b0, b0 + 1, ...`` of
    mixer ``name``, ``length`` words of each, one replicate after another."""
    words_of = compiled(name)[2]
    k0, k1, gamma = _keys(seed)
    reps = -(-count // length)
    out = np.empty(reps * length, dtype=np.uint32)
    words_of(k0, k1, gamma, np.int64(b0), np.int64(length), out)
    return out[:count]


def _dieharder(name: str, seed: int, length: int, start: int) -> None:
    words_of = compiled(name)[2]
    k0, k1, gamma = _keys(seed)
    reps = max(1, (1 << 21) // length)
    out = np.empty(reps * length, dtype=np.uint32)
    b0 = start
    sink = sys.stdout.buffer
    try:
        while True:
            words_of(k0, k1, gamma, np.int64(b0), np.int64(length), out)
            sink.write(memoryview(out).cast("B"))
            b0 += reps
    except BrokenPipeError:
        # the reader has closed the pipe: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------
def _impls(n: int, draws: int) -> tuple[dict[str, Any], int, int]:
    """The kernels timed at ``n`` rows (``m = n`` draws a replicate, ``B`` so
    that a call makes about ``draws`` draws); each checks its sums once."""
    from skboot._kernels.iid import iid_sum_1d, iid_sum_kernel

    x = np.random.default_rng(29).normal(size=n)
    B = max(1, draws // n)
    seed, gamma = check_random_state(0).stream(0)
    k0, k1 = seed & _M, seed >> _U32
    ref = np.empty(B)
    iid_sum_1d(x, seed, gamma, 0, n, ref)
    outs = {name: np.empty(B) for name in ["skboot", "scalar", "gather", *MIXERS]}
    picked = iid_sum_kernel(n)
    idx = np.empty(n, dtype=np.uint64)
    _read_block_all(x, k0, k1, gamma, n, idx)
    impls: dict[str, Any] = {
        "skboot": lambda: picked(x, seed, gamma, 0, n, outs["skboot"]),
        "scalar": lambda: scalar_sum(x, seed, gamma, 0, n, outs["scalar"]),
        "gather": lambda: gather_sum(x, idx, outs["gather"]),
    }
    for name in MIXERS:
        impls[name] = partial(compiled(name)[1], x, k0, k1, gamma, 0, n, outs[name])
    for name, fn in impls.items():
        fn()
        if name in ("skboot", "scalar", "splitmix64") and not np.array_equal(
            outs[name], ref
        ):
            raise AssertionError(f"{name}'s sums differ from iid_sum_1d's")
    return impls, n, B


def _read_block_all(x, k0, k1, gamma, n, idx):
    """Replicate 0's ``n`` draws of skboot's stream (for the gather alone)."""
    words = compiled("splitmix64")[2]
    un = np.uint64(x.shape[0])
    thresh = int(lemire_threshold(un))
    w = np.empty(4 * n + 64, dtype=np.uint32)
    words(k0, k1, gamma, np.int64(0), np.int64(w.size), w)
    t = 0
    for j in range(n):
        while True:
            mm = int(w[t]) * n
            t += 1
            if (mm & 0xFFFFFFFF) >= thresh:
                idx[j] = mm >> 32
                break


def _timed(fns: dict[str, Any], rounds: int) -> dict[str, float]:
    """Median thread CPU time per call of each function, calls interleaved
    round by round (a change of load falls on all of them)."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.thread_time()
            f()
            times[k].append(time.thread_time() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def run(isa: str, sizes: list[int], reps: int, draws: int) -> None:
    """Time every kernel at every size in this process and print the medians."""
    from benchmarks._harness import load_average
    from skboot._random import target_lanes

    print(
        f"isa={isa} NUMBA_CPU_NAME={os.environ.get('NUMBA_CPU_NAME', 'host')} "
        f"lanes={target_lanes()} load={load_average()}"
    )
    for n in sizes:
        impls, m, B = _impls(n, draws)
        per = {k: t / (m * B) * 1e9 for k, t in _timed(impls, reps).items()}
        print(f"n = m = {n:,}, B = {B}: ns per draw (median thread time of {reps})")
        for k in impls:
            print(
                f"  {k:16s} {per[k]:7.3f}  {per[k] / per['gather']:5.2f}x gather"
                f"  {per[k] / per['skboot']:5.2f}x skboot"
            )
    un = np.uint64(10_000)
    m, B = 10_240, max(1, draws // 10_240)
    k0, k1, gamma = _keys(0)
    seed = (k1 << _U32) | k0
    sums = np.empty(B, dtype=np.uint64)
    alone = {"skboot": lambda: skboot_draws(un, seed, gamma, 0, m, sums)}
    for name in MIXERS:
        alone[name] = partial(compiled(name)[3], un, k0, k1, gamma, 0, m, sums)
    for f in alone.values():
        f()
    per = {k: t / (m * B) * 1e9 for k, t in _timed(alone, reps).items()}
    words = {
        name: partial(compiled(name)[4], k0, k1, gamma, 0, m, sums) for name in MIXERS
    }
    for f in words.values():
        f()
    per_word = {k: t / (m * B) * 1e9 for k, t in _timed(words, reps).items()}
    print("block draws alone (no gather, n = 10,000) and words alone: ns per draw")
    for k, v in per.items():
        print(f"  {k:16s} {v:7.3f}  {per_word.get(k, float('nan')):7.3f}")
    print(f"load after: {load_average()}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="python -m benchmarks.stream_mixers")
    p.add_argument("--isa", default="native")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--n", type=int, nargs="+", default=[10_000, 1_000_000])
    p.add_argument(
        "--draws",
        type=int,
        default=4_000_000,
        help="draws per timed call (B = draws // n)",
    )
    p.add_argument("--dieharder", choices=sorted(MIXERS), default=None)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument(
        "--length", type=int, default=8192, help="words per replicate (--dieharder)"
    )
    p.add_argument(
        "--start", type=int, default=0, help="first replicate written (--dieharder)"
    )
    p.add_argument(
        "--alone", action="store_true", help="only the draws and words alone"
    )
    args = p.parse_args(argv)
    if args.dieharder:
        _dieharder(args.dieharder, args.seed, args.length, args.start)
        return 0
    from benchmarks._isa import apply_isa

    apply_isa(args.isa, argv, module="benchmarks.stream_mixers")
    run(args.isa, [] if args.alone else args.n, args.reps, args.draws)
    return 0


if __name__ == "__main__":
    sys.exit(main())
