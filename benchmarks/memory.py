"""Peak resident memory above a baseline, one fresh process per measurement.

For n=10,000 and B in {2,000, 50,000}: skboot, arch, scipy (unbatched when the
machine has the memory for it, and with ``batch=1000``) and tsbootstrap's compiled
path.  Two baselines (see :mod:`benchmarks._memchild`): after a tiny warm-up call
("warm", the floor's definition) and right after imports ("cold": the first call
pays for numba cache loading).  skboot is also measured with an empty
``NUMBA_CACHE_DIR`` so that compilation memory is counted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from benchmarks._harness import fmt_bytes

__all__ = ["run_memory"]

N = 10_000
SCIPY_UNBATCHED_NEEDS = 11 * 2**30  # issue 3 measured 7.6 GB at B=50,000


def _available_bytes() -> int:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:  # pragma: no cover
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    return 0


def _child(
    impl: str, B: int, mode: str, env_extra: dict[str, str] | None
) -> dict[str, Any]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    if env_extra:
        env.update(env_extra)
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks._memchild", impl, str(N), str(B), mode],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=900,
        check=False,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {
            "impl": impl,
            "B": B,
            "mode": mode,
            "error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300],
        }
    return json.loads(lines[-1])


def run_memory(quick: bool, log: Callable[[str], None]) -> dict[str, Any]:
    plan: list[tuple[str, int, str, str]] = []  # impl, B, mode, variant label
    Bs = (2_000, 50_000)
    if quick:  # the floor (skboot at B=50,000) and one peer
        plan = [
            ("skboot", 2_000, "warm", ""),
            ("skboot", 50_000, "warm", ""),
            ("arch", 2_000, "warm", ""),
            ("skboot", 50_000, "cold", ""),
        ]
    else:
        impls = ["skboot", "arch", "scipy", "scipy_batch1000", "tsbootstrap"]
        for B in Bs:
            for impl in impls:
                plan.append((impl, B, "warm", ""))
        for B in Bs:
            for impl in ("skboot", "arch", "tsbootstrap"):
                plan.append((impl, B, "cold", ""))
        plan.append(("skboot", 50_000, "cold", "empty numba cache"))
    results = []
    for impl, B, mode, variant in plan:
        if impl == "scipy" and B == 50_000:
            avail = _available_bytes()
            if avail < SCIPY_UNBATCHED_NEEDS:
                results.append(
                    {
                        "impl": impl,
                        "B": B,
                        "mode": mode,
                        "skipped": f"needs ~{fmt_bytes(SCIPY_UNBATCHED_NEEDS)}, "
                        f"only {fmt_bytes(avail)} available",
                    }
                )
                continue
        tmp = None
        env_extra = None
        if variant == "empty numba cache":
            tmp = tempfile.mkdtemp(prefix="skboot-bench-numba-")
            env_extra = {"NUMBA_CACHE_DIR": tmp}
        try:
            log(f"  memory {impl} B={B} baseline={mode} {variant}\n")
            rec = _child(impl, B, mode, env_extra)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        rec["variant"] = variant
        results.append(rec)
    return {"n": N, "results": results}
