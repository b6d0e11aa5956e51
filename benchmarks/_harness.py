"""Timing, formatting and machine facts shared by every benchmark section.

Timing rules (the machine is shared, so absolute times drift while ratios from
one run hold):

* every implementation of a workload runs once as a warm-up (JIT compilation,
  numba cache loading, lazy imports, first-touch page faults), untimed;
* then ``reps`` rounds; in each round every implementation runs once, in an order
  rotated by one each round (A B C, B C A, C A B, ...), so a burst of load from
  another process hits all of them alike;
* the cyclic garbage collector runs once before the warm-up and is then off until
  the last round ends (as in ``timeit``): a ``gc.collect()`` right before a call
  walks every live object and leaves the caches cold, which added ~0.6 ms to a
  1 ms skboot call here and nothing measurable to arch's 100 ms loop;
* a timed value is the mean of ``loops`` back-to-back calls, with ``loops``
  calibrated per implementation from an untimed call after its warm-up so that one
  value spans at least
  :data:`MIN_VALUE_SECONDS` (``timeit``'s autorange and pyperf's loop calibration
  do the same).  Calls that take longer than that (arch's loops, scipy) run once
  per value, as before; sub-millisecond calls otherwise measure the state the
  previous implementation left the core in (frequency, caches, another library's
  spinning OpenMP threads) more than their own cost;
* we report medians, the min-max spread, and the ratio peer/skboot computed from
  the medians, with the min-max of the per-round (paired) ratios beside it.
"""

from __future__ import annotations

import gc
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

__all__ = [
    "NA",
    "Floor",
    "Group",
    "Row",
    "calibrate_loops",
    "fmt_bytes",
    "fmt_time",
    "load_average",
    "machine_facts",
    "measure_interleaved",
    "median",
]


@dataclass(frozen=True)
class NA:
    """A cell that cannot be measured, with the reason printed in its place."""

    reason: str


@dataclass(frozen=True)
class Floor:
    """A required speed-up of skboot over one peer column (ratio peer/skboot)."""

    column: str
    min_ratio: float
    source: str

    def describe(self) -> str:
        if self.min_ratio == 1.0:
            return f"faster than {self.column}"
        return f">= {self.min_ratio:g}x {self.column}"


@dataclass
class Row:
    """One line of the speed table.

    ``skboot`` and every value of ``peers`` name an implementation of the group
    (a key of ``Group.impls``) or are an :class:`NA`.  ``extra`` names a second
    implementation shown in brackets inside a peer's cell (e.g. tsbootstrap pinned
    to one thread); ``notes`` is text appended to a cell; ``draws`` the number of
    draws of one skboot call (the report then shows ns per draw).
    """

    name: str
    label: str
    skboot: str | NA
    peers: dict[str, str | NA]
    floors: list[Floor] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    extra: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Draws (rows drawn) per skboot call, for the ns/draw column; None: not shown.
    draws: int | None = None


@dataclass
class Group:
    """Implementations measured together (interleaved) and the rows they feed."""

    name: str
    impls: dict[str, Callable[[], Any]]
    rows: list[Row]
    params: dict[str, Any] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)


def median(values: list[float]) -> float:
    s = sorted(values)
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


#: Shortest timed value: faster calls are repeated back to back (see above).
MIN_VALUE_SECONDS = 0.02


def calibrate_loops(seconds_per_call: float, target: float = MIN_VALUE_SECONDS) -> int:
    """Calls per timed value so that one value lasts at least ``target``."""
    if seconds_per_call >= target:
        return 1
    return int(min(1000, -(-target // max(seconds_per_call, 1e-7))))


def measure_interleaved(
    impls: dict[str, Callable[[], Any]],
    reps: int,
    *,
    warmup: int = 1,
    log: Callable[[str], None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Time every implementation ``reps`` times, interleaved; see module docstring.

    Returns ``{name: {"times": [...], "warmup": [...], "loops": L}}`` in seconds
    per call (a value is the mean of ``L`` back-to-back calls).  An implementation
    that raises is recorded with ``"error"`` and dropped from the remaining rounds.
    """
    names = list(impls)
    out: dict[str, dict[str, Any]] = {
        k: {"times": [], "warmup": [], "loops": 1} for k in names
    }
    alive = list(names)

    def call(k: str, bucket: str) -> None:
        loops = out[k]["loops"] if bucket == "times" else 1
        fn = impls[k]
        t0 = time.perf_counter()
        try:
            for _ in range(loops):
                fn()
        except Exception as exc:  # a peer failing must not stop the run
            out[k]["error"] = f"{type(exc).__name__}: {exc}"[:300]
            alive.remove(k)
            return
        out[k][bucket].append((time.perf_counter() - t0) / loops)

    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(warmup):
            for k in list(alive):
                call(k, "warmup")
        for k in list(alive):
            # the warm-up may include compilation or cache loading: calibrate on
            # one more untimed call (skipped for calls slower than 2 s, which run
            # once per value anyway unless that time was all compilation)
            if out[k]["warmup"] and out[k]["warmup"][-1] < 2.0:
                call(k, "warmup")
            if out[k]["warmup"]:
                out[k]["loops"] = calibrate_loops(min(out[k]["warmup"]))
        for r in range(reps):
            if not alive:
                break
            shift = r % len(alive)
            for k in alive[shift:] + alive[:shift]:
                call(k, "times")
            if log is not None:
                log(".")
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()
    return out


def fmt_time(seconds: float) -> str:
    if seconds != seconds:  # NaN
        return "nan"
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        ms = seconds * 1e3
        return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"
    return f"{seconds * 1e6:.0f} µs"


def fmt_range(values: list[float]) -> str:
    """``lo-hi unit`` with both ends in the unit of the high end."""
    lo, hi = min(values), max(values)
    if hi >= 1.0:
        return f"{lo:.2f}-{hi:.2f} s"
    if hi >= 1e-3:
        return f"{lo * 1e3:.3g}-{hi * 1e3:.3g} ms"
    return f"{lo * 1e6:.3g}-{hi * 1e6:.3g} µs"


def fmt_bytes(n: float) -> str:
    mib = n / 2**20
    if abs(mib) >= 1024:
        return f"{mib / 1024:.2f} GiB"
    return f"{mib:.1f} MiB"


def load_average() -> list[float]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - not on Linux
        return []


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _lscpu() -> dict[str, str]:
    try:
        text = subprocess.run(
            ["lscpu"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    facts = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            facts[key.strip()] = value.strip()
    return facts


def _sysfs_caches() -> list[dict[str, str]]:
    base = "/sys/devices/system/cpu/cpu0/cache"
    caches = []
    try:
        entries = sorted(e for e in os.listdir(base) if e.startswith("index"))
    except OSError:
        return caches
    for entry in entries:
        info = {}
        for key in ("level", "type", "size", "coherency_line_size", "shared_cpu_list"):
            try:
                with open(os.path.join(base, entry, key)) as fh:
                    info[key] = fh.read().strip()
            except OSError:
                pass
        caches.append(info)
    return caches


def _meminfo_total() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(re.findall(r"\d+", line)[0]) * 1024
    except OSError:
        pass
    return None


def _git_state() -> dict[str, Any]:
    """Commit of the skboot tree being measured, and whether skboot/ has edits."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args],
            capture_output=True,
            text=True,
            cwd=root,
            timeout=10,
            check=False,
        ).stdout.strip()

    try:
        return {
            "commit": git("rev-parse", "--short", "HEAD") or None,
            "skboot_dirty": bool(git("status", "--porcelain", "--", "skboot")),
        }
    except (OSError, subprocess.SubprocessError):
        return {}


#: Vector instruction sets that decide how fast the fused kernels run.
ISA_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512dq",
    "avx512bw",
    "avx512vl",
    "asimd",
    "sve",
)


def cpu_flags() -> list[str]:
    """The vector instruction sets this CPU reports (Linux ``/proc/cpuinfo``)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    have = set(value.split())
                    return [f for f in ISA_FLAGS if f in have]
    except OSError:  # not Linux: the report says "not recorded"
        return []
    return []


def machine_facts() -> dict[str, Any]:
    """CPU, cores, caches, memory, OS and library versions."""
    lscpu = _lscpu()
    facts: dict[str, Any] = {
        "cpu_model": lscpu.get("Model name") or platform.processor() or "unknown",
        "logical_cpus": os.cpu_count(),
        "cores_per_socket": lscpu.get("Core(s) per socket"),
        "threads_per_core": lscpu.get("Thread(s) per core"),
        "hypervisor": lscpu.get("Hypervisor vendor"),
        "caches_lscpu": {
            k: lscpu[k]
            for k in ("L1d cache", "L1i cache", "L2 cache", "L3 cache")
            if k in lscpu
        },
        "cpu_flags": cpu_flags(),
        "caches_sysfs_cpu0": _sysfs_caches(),
        "memory_total_bytes": _meminfo_total(),
        "platform": platform.platform(),
        "git": _git_state(),
        "python": sys.version.split()[0],
        "versions": {
            name: _version(name)
            for name in (
                "skboot",
                "numpy",
                "numba",
                "scipy",
                "arch",
                "tsbootstrap",
                "scikit-learn",
                "joblib",
                "psutil",
            )
        },
        "env": {
            k: os.environ[k]
            for k in (
                "NUMBA_NUM_THREADS",
                "NUMBA_CACHE_DIR",
                "OMP_NUM_THREADS",
                "SKBOOT_CACHE_BYTES",
            )
            if k in os.environ
        },
    }
    try:
        import numba

        facts["numba_threads"] = numba.get_num_threads()
    except ImportError:  # pragma: no cover
        pass
    try:
        from skboot._engine import cache_budget

        facts["skboot_cache_budget_bytes"] = cache_budget()
    except ImportError:  # pragma: no cover
        pass
    return facts


def _codegen_line(codegen: dict[str, Any] | None) -> str:
    if not codegen:
        return "- Code generation: native (not checked)"
    cpu = codegen.get("numba_cpu_name")
    return (
        f"- Code generation: {codegen['isa']}"
        + (f" (LLVM CPU {cpu})" if cpu else " (the host CPU)")
        + f"; {codegen['kernels']} compiled kernels, {codegen['ymm']} using ymm "
        f"(256-bit), {codegen['zmm']} using zmm (512-bit) registers"
    )


def facts_lines(facts: dict[str, Any]) -> list[str]:
    """Human-readable machine facts (markdown bullet lines)."""
    caches = ", ".join(f"{k.split()[0]} {v}" for k, v in facts["caches_lscpu"].items())
    mem = facts.get("memory_total_bytes")
    v = facts["versions"]
    lines = [
        f"- CPU: {facts['cpu_model']}, {facts['logical_cpus']} logical CPUs "
        f"({facts.get('cores_per_socket')} cores x {facts.get('threads_per_core')} "
        f"thread), hypervisor {facts.get('hypervisor') or 'none'}",
        "- Vector instructions: "
        + (", ".join(facts["cpu_flags"]) if facts.get("cpu_flags") else "not recorded"),
        _codegen_line(facts.get("codegen")),
        f"- Caches: {caches}; skboot chunk budget "
        f"{fmt_bytes(facts.get('skboot_cache_budget_bytes', 0))} per core",
        f"- Memory: {fmt_bytes(mem) if mem else 'unknown'}; {facts['platform']}",
        f"- Python {facts['python']}, "
        + ", ".join(f"{k} {v[k]}" for k in v if v[k] is not None)
        + f"; numba threads {facts.get('numba_threads')}",
    ]
    git = facts.get("git") or {}
    if git.get("commit"):
        lines.append(
            f"- skboot at commit {git['commit']}"
            + (
                " plus uncommitted changes in skboot/"
                if git.get("skboot_dirty")
                else ""
            )
        )
    return lines
