"""The calibrated intervals of the non-iid resamplers, pinned bit for bit.

The limits (``calibrated`` and ``calibrated_basic``, two-sided and one-sided)
and the per-replicate proportions ``u``, ``v`` of each case are hashed
(SHA-256 of their float64 bytes) and compared with the digests recorded from
the per-replicate path (one nested plan per outer replicate, evaluated by the
engine's chunk code), so a change of any bit of any of them fails.  The cases
cover every resampler that nests (stratified, group, Poisson, moving,
circular, non-overlapping, stationary), every moment built-in ("sum", "mean",
"proportion", "var" with ``ddof``, "std"), continuous data with an offset,
integer data (ties), several columns (two, and eight: the aligned rows), and
series longer than numpy's pairwise-summation block (128) and its reduction
buffer (8192 values).

The digests depend on numpy's summation order (the estimate of an outer
replicate is numpy's); a numpy that sums differently changes them, and the
test says so rather than letting the results move silently.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from skboot import (
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    bootstrap,
)
from skboot._run import calibration_inputs


def _resampler(name, B, seed, n):
    """``(resampler, extra arguments of bootstrap)`` of scheme ``name``."""
    if name == "stratified":
        y = np.arange(n) % 3
        return StratifiedBootstrap(B, random_state=seed), {"y": y}
    if name == "group":
        return GroupBootstrap(B, random_state=seed), {"groups": np.arange(n) // 3}
    if name == "poisson":
        return PoissonBootstrap(B, random_state=seed), {}
    L = max(2, n // 8)
    if name == "moving":
        return MovingBlockBootstrap(B, block_length=L, random_state=seed), {}
    if name == "circular":
        return CircularBlockBootstrap(B, block_length=L, random_state=seed), {}
    if name == "nonoverlapping":
        block = NonOverlappingBlockBootstrap(B, block_length=L, random_state=seed)
        return block, {}
    return StationaryBootstrap(B, block_length=L + 0.5, random_state=seed), {}


SCHEMES = (
    "stratified",
    "group",
    "poisson",
    "moving",
    "circular",
    "nonoverlapping",
    "stationary",
)


def _data(kind, n, rng):
    if kind == "continuous":
        return rng.lognormal(size=n) + 1000.0
    if kind == "integer":
        return rng.poisson(3.0, size=n).astype(float)
    if kind == "binary":
        return rng.integers(0, 2, size=n).astype(float)
    if kind == "two_columns":
        return rng.normal(size=(n, 2)) * [1.0, 1e-3] + [5.0, -2.0]
    return rng.exponential(size=(n, 8)) - 0.5  # eight columns


#: (statistic, statistic_kwargs, data kind, n, n_resamples, n_inner)
CASES = (
    ("mean", {}, "continuous", 24, 40, 25),
    ("var", {"ddof": 1}, "continuous", 24, 40, 25),
    ("std", {}, "continuous", 24, 40, 25),
    ("sum", {}, "integer", 24, 40, 25),
    ("var", {}, "integer", 24, 40, 25),
    ("proportion", {}, "binary", 24, 40, 25),
    ("mean", {}, "two_columns", 24, 30, 20),
    ("std", {"ddof": 1}, "eight_columns", 24, 20, 15),
    ("var", {}, "continuous", 300, 10, 8),
    ("mean", {}, "continuous", 9000, 3, 4),
)


def _digest(res, n_inner):
    parts = []
    for method in ("calibrated", "calibrated_basic"):
        for alternative in ("two-sided", "greater"):
            ci = res.confidence_interval(0.9, method, alternative, n_inner=n_inner)
            parts.append(np.asarray([ci.low, ci.high], dtype=np.float64).ravel())
    u, v = calibration_inputs(res._context, n_inner)
    h = hashlib.sha256()
    for a in (*parts, u, v):
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:20]


def _case(scheme, i):
    stat, kwargs, kind, n, B, n_inner = CASES[i]
    rng = np.random.default_rng([2024, i])
    x = _data(kind, n, rng)
    resampler, extra = _resampler(scheme, B, 17 + i, n)
    res = bootstrap(x, stat, resampler=resampler, statistic_kwargs=kwargs, **extra)
    return res, n_inner


#: recorded from the per-replicate path before the fused kernels existed
PINNED: dict[tuple[str, int], str] = {
    ("stratified", 0): "c702c8097665414b75d2",
    ("stratified", 1): "770e76886e6173d2778b",
    ("stratified", 2): "f15785653bfc64f61c7a",
    ("stratified", 3): "85c07a0d836cb2a8f201",
    ("stratified", 4): "ff079c41c852e8c1f354",
    ("stratified", 5): "32ea0b616ce4d0c30033",
    ("stratified", 6): "e37ebe081112ddf8b00e",
    ("stratified", 7): "60d30ef52c40fb1a4874",
    ("stratified", 8): "dba1e507d62248b80f41",
    ("stratified", 9): "11cb93df9dac1a46aa82",
    ("group", 0): "bd0f691c6c9933fcb017",
    ("group", 1): "3aa41d8099735ca7d2f3",
    ("group", 2): "45f45c7d771eec6fec3d",
    ("group", 3): "73d46706addeeb3e3af3",
    ("group", 4): "222fa6091267a39d2ada",
    ("group", 5): "88b5d78c76339b4d0a73",
    ("group", 6): "f98270b14a19ea759c01",
    ("group", 7): "9186954226f84c6eb58f",
    ("group", 8): "10db5d9b1169c33fd8bf",
    ("group", 9): "eb84bdcd15e29bbabdb5",
    ("poisson", 0): "45389557784736e51d41",
    ("poisson", 1): "863b33ced47975ad2bf5",
    ("poisson", 2): "a75cc08477c53700e5b2",
    ("poisson", 3): "b5a2b95c6c7cd8809952",
    ("poisson", 4): "3d5b60f9cc06b4967812",
    ("poisson", 5): "da3f12532c44f16df3e7",
    ("poisson", 6): "2861baee4da3942755b4",
    ("poisson", 7): "fd52f923a7854787156d",
    ("poisson", 8): "75b81b012dbd5115359d",
    ("poisson", 9): "2ffe298f8b4c9fa1229e",
    ("moving", 0): "ac25722a1e3e9669f568",
    ("moving", 1): "5788a38ac7a81d2bd8b4",
    ("moving", 2): "c0f5889815cad935fff4",
    ("moving", 3): "61ac6132bc3feb66354a",
    ("moving", 4): "a7388b86096dfd04eaf0",
    ("moving", 5): "2ed172df2483def118da",
    ("moving", 6): "6464fbc84efee5d54082",
    ("moving", 7): "45997b869320be656eeb",
    ("moving", 8): "c1bfe3565d7561eedcd5",
    ("moving", 9): "c24ebd33e05e69c946bb",
    ("circular", 0): "8408b6331a8084714aa8",
    ("circular", 1): "ec40c0c6bb4c4db88feb",
    ("circular", 2): "f6ab02c8d4f4233a5119",
    ("circular", 3): "d27eb9f6386b94b7542c",
    ("circular", 4): "fd87552f0d26c358b5c7",
    ("circular", 5): "f3c2ab431e6ef8bffcf2",
    ("circular", 6): "dd0194b598d91d53cd7a",
    ("circular", 7): "5fa02938bea916e21bdf",
    ("circular", 8): "791c61a386b157d2d4a0",
    ("circular", 9): "36d9d3c268f00270dce6",
    ("nonoverlapping", 0): "f97702d0514c08553e2c",
    ("nonoverlapping", 1): "9f44ce84e288847ff20c",
    ("nonoverlapping", 2): "81239a70873ebb456e9e",
    ("nonoverlapping", 3): "8941c5600edc4e3c8c77",
    ("nonoverlapping", 4): "0a3a6b68c0cdaa339edd",
    ("nonoverlapping", 5): "b11a83e28dccad42e25e",
    ("nonoverlapping", 6): "10c026a18d7f82286c8b",
    ("nonoverlapping", 7): "f5cd75e07b422c92fec1",
    ("nonoverlapping", 8): "07f9de70bd3924cf6808",
    ("nonoverlapping", 9): "621f9d1b9b57a2fe0a44",
    ("stationary", 0): "7b672047397737089d24",
    ("stationary", 1): "cef822916e078c2890d7",
    ("stationary", 2): "e564298cd912b0f43aea",
    ("stationary", 3): "aa007daf963268911551",
    ("stationary", 4): "ad9828c4a75cee369445",
    ("stationary", 5): "54d57ebe92c5b0b65cd6",
    ("stationary", 6): "d5de4326bd32f324b385",
    ("stationary", 7): "73e2d054db84518b05fa",
    ("stationary", 8): "839083c08763a2b3193f",
    ("stationary", 9): "a1804ec770df26643725",
}


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("i", range(len(CASES)))
def test_calibrated_limits_are_pinned(scheme, i):
    res, n_inner = _case(scheme, i)
    assert _digest(res, n_inner) == PINNED[scheme, i]


if __name__ == "__main__":  # print the digests (to record a deliberate change)
    for s in SCHEMES:
        for j in range(len(CASES)):
            print(f'    ("{s}", {j}): "{_digest(*_case(s, j))}",')
