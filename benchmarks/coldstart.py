"""Cold start: a fresh interpreter to the first ``bootstrap(x, "mean")`` result,
and the whole ``skboot demo`` (README's first command).

Each run is a new process.  "empty cache" points ``SKBOOT_CACHE_DIR`` (and
``NUMBA_CACHE_DIR``) at a new empty directory, so every kernel the first call
needs is compiled; "warm cache" reuses the directory that the empty-cache run
just filled.  The demo is timed the same way, from spawn to exit of
``python -m skboot demo``, in its own pair of directories.  The load average is
recorded before and after the runs (the machine may be shared).  The clock starts in the parent
just before the process is spawned (``time.time()``) and stops in the child when
the result exists, so interpreter start-up and imports are included.  The child
also reports ``import skboot`` and the first call on their own.

Python bytecode is cached, as after ``pip install`` (which compiles every module):
the children write and read it under a private ``PYTHONPYCACHEPREFIX``, filled by
one untimed ``import skboot`` first, even where ``PYTHONDONTWRITEBYTECODE`` is set
(some sandboxes set it; every import would then compile skboot's sources from
scratch, about 0.25 s measured, which no installed copy pays).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from benchmarks._harness import load_average

__all__ = ["CHILD_CODE", "DEMO_CODE", "run_cold_start"]

CHILD_CODE = """
import time
t0 = time.perf_counter()
import skboot
t_import = time.perf_counter() - t0
import json
import numpy as np
x = np.random.default_rng(0).normal(size=10_000)
t1 = time.perf_counter()
res = skboot.bootstrap(x, "mean", n_resamples=2_000, random_state=0)
t_first = time.perf_counter() - t1
t_done = time.time()
assert res.distribution.shape == (2_000,)
print(json.dumps({"import_s": t_import, "first_call_s": t_first, "done": t_done}))
"""

BARE_CODE = "import time; print(time.time())"

#: ``skboot demo`` as its console script runs it (``python -m skboot demo``).
DEMO_CODE = "import sys; from skboot.cli import main; sys.exit(main(['demo']))"


def _spawn(code: str, env_extra: dict[str, str]) -> tuple[float, str]:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(env_extra)
    t_spawn = time.time()
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        env=env,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1][:300])
    return t_spawn, proc.stdout.strip().splitlines()[-1]


def _cache_env(cache_dir: str, pyc_dir: str) -> dict[str, str]:
    return {
        "SKBOOT_CACHE_DIR": cache_dir,
        "NUMBA_CACHE_DIR": cache_dir,
        "PYTHONPYCACHEPREFIX": pyc_dir,
    }


def _one(cache_dir: str, pyc_dir: str) -> dict[str, Any]:
    t_spawn, line = _spawn(CHILD_CODE, _cache_env(cache_dir, pyc_dir))
    rec = json.loads(line)
    rec["total_s"] = rec.pop("done") - t_spawn
    return rec


def _demo(cache_dir: str, pyc_dir: str) -> float:
    """Seconds from spawn to exit of ``python -m skboot demo``."""
    t0 = time.perf_counter()
    _spawn(DEMO_CODE, _cache_env(cache_dir, pyc_dir))
    return time.perf_counter() - t0


def run_cold_start(quick: bool, log: Callable[[str], None]) -> dict[str, Any]:
    reps = 1 if quick else 3
    load_start = load_average()
    demo_empty: list[float] = []
    demo_warm: list[float] = []
    empty: list[dict[str, Any]] = []
    warm: list[dict[str, Any]] = []
    bare: list[float] = []
    pyc_dir = tempfile.mkdtemp(prefix="skboot-bench-pyc-")
    scratch = tempfile.mkdtemp(prefix="skboot-bench-numba-")
    try:
        # bytecode of every module, as an installed copy has it (untimed)
        _spawn(
            "import skboot; print(0)",
            {"NUMBA_CACHE_DIR": scratch, "PYTHONPYCACHEPREFIX": pyc_dir},
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for r in range(reps):
        # the empty-cache run fills its directory; the warm run reuses it
        cache_dir = tempfile.mkdtemp(prefix="skboot-bench-numba-")
        try:
            log(f"  cold start {r + 1}/{reps}: empty numba cache\n")
            empty.append(_one(cache_dir, pyc_dir))
            log(f"  cold start {r + 1}/{reps}: warm numba cache\n")
            warm.append(_one(cache_dir, pyc_dir))
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
        t_spawn, line = _spawn(BARE_CODE, {})
        bare.append(float(line) - t_spawn)
        cache_dir = tempfile.mkdtemp(prefix="skboot-bench-numba-")
        try:
            log(f"  cold start {r + 1}/{reps}: skboot demo, empty numba cache\n")
            demo_empty.append(_demo(cache_dir, pyc_dir))
            log(f"  cold start {r + 1}/{reps}: skboot demo, warm numba cache\n")
            demo_warm.append(_demo(cache_dir, pyc_dir))
        finally:
            shutil.rmtree(cache_dir, ignore_errors=True)
    shutil.rmtree(pyc_dir, ignore_errors=True)
    return {
        "bytecode": "cached (PYTHONPYCACHEPREFIX, filled by one untimed import)",
        "n": 10_000,
        "B": 2_000,
        "statistic": "mean",
        "empty_cache": empty,
        "warm_cache": warm,
        "bare_interpreter_s": bare,
        "demo_empty_cache_s": demo_empty,
        "demo_warm_cache_s": demo_warm,
        "load_average": {"start": load_start, "end": load_average()},
    }
