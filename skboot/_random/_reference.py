"""Slow pure-numpy reference of the stream, for tests: the same words, indices and
uniforms as the numba kernels, written as plainly as possible."""

from __future__ import annotations

import numpy as np

from skboot._random._core import (
    _M1,
    _M2,
    _TWO53_INV,
    MASK32,
    PURPOSE,
    RootKey,
)
from skboot._random._exp import (
    EXP_LN2_HI,
    EXP_LN2_LO,
    EXP_POLY,
    EXP_SQRT_HALF_BITS,
)


# ---------------------------------------------------------------------------
# slow pure-numpy reference of the same stream (for tests)
# ---------------------------------------------------------------------------
def reference_words(key: RootKey, purpose: int, b: int, count: int) -> np.ndarray:
    """The first ``count`` 32-bit words of replicate ``b``'s stream, in numpy."""
    seed = int(key.purpose_seed(purpose))
    n_out = (count + 1) // 2
    # the counter is a uint64, as in the kernels (b >= 2**32 wraps around)
    t = np.arange(n_out, dtype=np.uint64) + np.uint64((b << 32) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (t + np.uint64(1)) * np.uint64(key.gamma)
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    words = np.empty(2 * n_out, dtype=np.uint64)
    words[0::2] = z >> np.uint64(32)
    words[1::2] = z & MASK32
    return words[:count]


def reference_indices(
    key: RootKey, purpose: int, b: int, n: int, size: int
) -> np.ndarray:
    """Slow reference of :func:`fill_indices` (Lemire with rejection, in Python)."""
    out = np.empty(size, dtype=np.int64)
    budget = 2 * size + 64
    words = [int(w) for w in reference_words(key, purpose, b, budget)]
    pos = 0

    def nxt() -> int:
        nonlocal pos, words, budget
        if pos >= len(words):
            budget *= 2
            words = [int(w) for w in reference_words(key, purpose, b, budget)]
        w = words[pos]
        pos += 1
        return w

    if n < 2**32:
        thresh = (2**32 - n) % n
        for i in range(size):
            m = nxt() * n
            while (m & 0xFFFFFFFF) < thresh:
                m = nxt() * n
            out[i] = m >> 32
    else:
        thresh = (2**64 - n) % n
        for i in range(size):
            x = (nxt() << 32) | nxt()
            m = x * n
            while (m & ((1 << 64) - 1)) < thresh:
                x = (nxt() << 32) | nxt()
                m = x * n
            out[i] = m >> 64
    return out


def reference_uniforms(key: RootKey, purpose: int, b: int, size: int) -> np.ndarray:
    """Slow reference of the uniform doubles of replicate ``b`` (two words each)."""
    words = reference_words(key, purpose, b, 2 * size).astype(np.uint64)
    x = ((words[0::2] << np.uint64(32)) | words[1::2]) >> np.uint64(11)
    return x.astype(np.float64) * _TWO53_INV


def reference_neg_log(v: np.ndarray) -> np.ndarray:
    """Slow reference of :func:`skboot._random.neg_log` on an array of positive
    normal doubles: the same operations, one numpy operation each (numpy rounds
    every operation to nearest and never fuses them)."""
    v = np.asarray(v, dtype=np.float64)
    ix = v.view(np.uint64)
    bias = np.uint64(1023 << 52)
    top = (ix + (bias - np.uint64(EXP_SQRT_HALF_BITS))) >> np.uint64(52)
    f = ((ix + bias) - (top << np.uint64(52))).view(np.float64)
    magic = (np.uint64(0x4330000000000000) | top).view(np.float64)
    k = (2.0**52 + 1023.0) - magic
    g = f - 1.0
    s = g / (2.0 + g)
    w = s * s
    c1, c2, c3, c4, c5, c6, c7 = EXP_POLY
    r = w * (c1 + w * (c2 + w * (c3 + w * (c4 + w * (c5 + w * (c6 + w * c7))))))
    h = (0.5 * g) * g
    return k * EXP_LN2_HI + ((h - (s * (h + r) - k * EXP_LN2_LO)) - g)


def reference_exponentials(key: RootKey, purpose: int, b: int, size: int) -> np.ndarray:
    """Slow reference of the Exp(1) variates of replicate ``b``: ``-log(1 - u)``
    of the reference uniforms (``1 - u`` is exact)."""
    return reference_neg_log(1.0 - reference_uniforms(key, purpose, b, size))


def reference_dirichlet(key: RootKey, b: int, size: int) -> np.ndarray:
    """Slow reference of :func:`skboot._random.fill_dirichlet_weights`: the
    Exp(1) variates times ``size / T``, ``T`` their sum in row order (the last
    partial sum of ``cumsum``, which adds left to right)."""
    e = reference_exponentials(key, PURPOSE["dirichlet"], b, size)
    total = np.cumsum(e)[-1]
    return e * (size / total)
