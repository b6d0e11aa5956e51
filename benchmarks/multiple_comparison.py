"""Multiple comparisons (issue 17): skboot's SPA, StepM and MCS against arch 8's.

Workload of the floors: T = 1,000 observations of k = 100 models' losses
(chi-squared, 10 degrees of freedom), B = 1,000 replicates, the stationary
bootstrap with block length 10 (arch's default scheme; arch's ``block_size``
and skboot's ``block_length`` both given, so neither side estimates it), arch's
defaults otherwise (the asymptotic variance, MCS's range statistic).  Both sides
compute everything their ``compute`` computes: arch's Python loop over
replicates (a T x k gather per replicate) against skboot's fused prefix-sum
kernel.  Rows without a floor: StepM, and the MCS max statistic.

The groups are merged into :data:`benchmarks.speed.GROUPS`, so
``python -m benchmarks --only mc`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

__all__ = ["GROUPS"]

T_OBS, K_MODELS, B_REPS, BLOCK = 1_000, 100, 1_000, 10


def _arch() -> Any:
    try:
        import arch.bootstrap as ab
    except ImportError:
        return None
    return ab


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2024)
    bm = rng.chisquare(10, T_OBS)
    models = rng.chisquare(10, (T_OBS, K_MODELS))
    return bm, models


def _label(what: str) -> str:
    return (
        f"{what}, stationary blocks of {BLOCK}, T={T_OBS:,} x k={K_MODELS}, "
        f"B={B_REPS:,}"
    )


def _group(
    name: str,
    what: str,
    sk_call: Callable[[Any, np.ndarray, np.ndarray], Any],
    arch_call: Callable[[Any, np.ndarray, np.ndarray], Any],
    note: str,
    floor: bool,
) -> Group:
    import skboot

    bm, models = _data()
    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: sk_call(skboot, bm, models)
    }
    peers: dict[str, str | NA] = {}
    notes: dict[str, str] = {}
    ab = _arch()
    if ab is not None:
        impls["arch"] = lambda: arch_call(ab, bm, models)
        peers["arch"] = "arch"
        notes["arch"] = note
    else:
        peers["arch"] = NA("n/a (arch is not installed)")
    peers["scipy"] = NA("n/a: scipy has no multiple-comparison bootstrap")
    peers["tsbootstrap"] = NA("n/a: tsbootstrap has no multiple-comparison test")
    peers["loop"] = NA("—")
    floors = [Floor("arch", 20, "issue 17")] if floor else []
    row = Row(name, _label(what), "skboot", peers, floors=floors, notes=notes)
    params = {"T": T_OBS, "k": K_MODELS, "B": B_REPS, "block_length": BLOCK}
    return Group(name, impls, [row], params=params)


def _sk_spa(sk: Any, bm: np.ndarray, models: np.ndarray) -> Any:
    return sk.SPA(n_resamples=B_REPS, block_length=BLOCK, random_state=0).compute(
        bm, models
    )


def _arch_spa(ab: Any, bm: np.ndarray, models: np.ndarray) -> Any:
    spa = ab.SPA(bm, models, block_size=BLOCK, reps=B_REPS, seed=0)
    spa.compute()
    return spa.pvalues


def group_mc_spa(cfg: Any) -> Group:
    return _group("mc_spa", "SPA p-values", _sk_spa, _arch_spa, "SPA.compute", True)


def _sk_stepm(sk: Any, bm: np.ndarray, models: np.ndarray) -> Any:
    return sk.StepM(
        0.95, n_resamples=B_REPS, block_length=BLOCK, random_state=0
    ).compute(bm, models - 0.3 * (np.arange(K_MODELS) < 5))


def _arch_stepm(ab: Any, bm: np.ndarray, models: np.ndarray) -> Any:
    shifted = models - 0.3 * (np.arange(K_MODELS) < 5)
    stepm = ab.StepM(bm, shifted, size=0.05, block_size=BLOCK, reps=B_REPS, seed=0)
    stepm.compute()
    return stepm.superior_models


def group_mc_stepm(cfg: Any) -> Group:
    return _group(
        "mc_stepm",
        "StepM superior models",
        _sk_stepm,
        _arch_stepm,
        "StepM.compute",
        False,
    )


def _mcs(method: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def sk_call(sk: Any, bm: np.ndarray, models: np.ndarray) -> Any:
        return sk.MCS(
            0.95,
            statistic=method,
            n_resamples=B_REPS,
            block_length=BLOCK,
            random_state=0,
        ).compute(models)

    def arch_call(ab: Any, bm: np.ndarray, models: np.ndarray) -> Any:
        mcs = ab.MCS(models, 0.05, reps=B_REPS, block_size=BLOCK, method=method, seed=0)
        mcs.compute()
        return mcs.pvalues

    return sk_call, arch_call


def group_mc_mcs(cfg: Any) -> Group:
    sk_call, arch_call = _mcs("R")
    return _group(
        "mc_mcs",
        "MCS p-values (range statistic)",
        sk_call,
        arch_call,
        "MCS.compute, method='R'",
        True,
    )


def group_mc_mcs_max(cfg: Any) -> Group:
    sk_call, arch_call = _mcs("max")
    return _group(
        "mc_mcs_max",
        "MCS p-values (max statistic)",
        sk_call,
        arch_call,
        "MCS.compute, method='max'",
        False,
    )


GROUPS: dict[str, Callable[[Any], Group]] = {
    "mc_spa": group_mc_spa,
    "mc_stepm": group_mc_stepm,
    "mc_mcs": group_mc_mcs,
    "mc_mcs_max": group_mc_mcs_max,
}
