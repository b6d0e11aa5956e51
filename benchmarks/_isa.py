"""Compile skboot's kernels for a named instruction set: ``--isa native|avx2|sse4``.

numba generates code for the host CPU.  To measure what users without AVX-512
(most laptops, many cloud instances) get, ``--isa avx2`` makes numba generate code
for Haswell (AVX2 + FMA, no AVX-512) on any x86-64 machine that has AVX2, and
``--isa sse4`` for Nehalem-class code (SSE4.2, no AVX at all).  The choice must be
made before numba is imported, so the benchmark process re-executes itself with

* ``NUMBA_CPU_NAME`` (the LLVM CPU name) and ``NUMBA_CPU_FEATURES`` (the host's
  feature string with every feature the ISA lacks switched off), and
* a private ``SKBOOT_CACHE_DIR`` per ISA, so kernels compiled for one ISA are never
  loaded for another (numba's cache index is keyed by the host CPU, not by these
  variables).

After a run, :func:`vector_registers` disassembles every compiled skboot kernel and
counts the ones using 512-bit (``zmm``) and 256-bit (``ymm``) registers, which shows
the requested code generation was honoured.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Any

__all__ = ["ISAS", "apply_isa", "isa_facts", "vector_registers"]

#: ISA name -> (LLVM CPU name, feature prefixes switched off).  "native" leaves
#: numba's own choice (the host CPU) untouched.
ISAS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "native": (None, ()),
    "avx2": ("haswell", ("avx512", "avx10", "amx")),
    "sse4": ("nehalem", ("avx", "fma", "f16c", "amx", "vaes", "vpclmulqdq", "bmi")),
}
#: Host features an ISA needs.
_NEEDS = {"avx2": ("avx2", "fma"), "sse4": ("sse4.2",)}
_MARK = "SKBOOT_BENCH_ISA"


def _host_features() -> tuple[str, set[str]]:
    import llvmlite.binding as llvm

    flat = llvm.get_host_cpu_features().flatten()
    on = {f[1:] for f in flat.split(",") if f.startswith("+")}
    return flat, on


def _feature_string(flat: str, off: tuple[str, ...]) -> str:
    out = []
    for item in flat.split(","):
        name = item[1:]
        if item.startswith("+") and name.startswith(off):
            item = "-" + name
        out.append(item)
    return ",".join(out)


def apply_isa(isa: str, argv: list[str], module: str = "benchmarks") -> None:
    """Re-execute this process (``python -m module *argv``) with the environment
    that compiles for ``isa`` (returns at once when that environment is already
    in place)."""
    if isa not in ISAS:
        raise SystemExit(f"--isa must be one of {sorted(ISAS)}; got {isa!r}")
    if os.environ.get(_MARK) == isa:
        return
    env = dict(os.environ)
    env[_MARK] = isa
    cpu, off = ISAS[isa]
    if cpu is not None:
        flat, on = _host_features()
        missing = [f for f in _NEEDS.get(isa, ()) if f not in on]
        if missing:
            raise SystemExit(
                f"--isa {isa} needs a CPU with {', '.join(missing)}; this one has not"
            )
        env["NUMBA_CPU_NAME"] = cpu
        env["NUMBA_CPU_FEATURES"] = _feature_string(flat, off)
    base = os.environ.get("SKBOOT_BENCH_CACHE") or os.path.join(
        tempfile.gettempdir(), f"skboot-bench-cache-{os.getuid()}"
    )
    env["SKBOOT_CACHE_DIR"] = os.path.join(base, isa)
    os.execve(sys.executable, [sys.executable, "-m", module, *argv], env)


_ZMM = re.compile(r"%zmm\d+")
_YMM = re.compile(r"%ymm\d+")


def _fresh_asm(dispatcher: Any, sig: Any) -> str:
    """The assembly of ``dispatcher`` for ``sig``, compiled afresh: numba cannot
    disassemble code it loaded from its cache (it warns and returns a stub)."""
    import numba

    options = {
        k: v
        for k, v in dispatcher.targetoptions.items()
        if k not in ("cache", "nopython")  # njit implies nopython (and warns)
    }
    fresh = numba.njit(**options)(dispatcher.py_func)
    fresh.compile(sig)
    return fresh.inspect_asm(sig)


def vector_registers() -> dict[str, Any]:
    """How many compiled skboot kernels use zmm / ymm registers."""
    import importlib
    import pkgutil

    import numba

    import skboot._kernels as kernels

    counts = {"kernels": 0, "zmm": 0, "ymm": 0, "zmm_kernels": []}
    seen: set[int] = set()
    for info in pkgutil.walk_packages(kernels.__path__, kernels.__name__ + "."):
        if ".cuda" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                not isinstance(obj, numba.core.registry.CPUDispatcher)
                or id(obj) in seen
            ):
                continue
            seen.add(id(obj))
            for sig in obj.signatures:
                asm = _fresh_asm(obj, sig)
                counts["kernels"] += 1
                if _ZMM.search(asm):
                    counts["zmm"] += 1
                    counts["zmm_kernels"].append(
                        f"{info.name.rsplit('.', 1)[-1]}.{name}"
                    )
                if _YMM.search(asm):
                    counts["ymm"] += 1
    return counts


def isa_facts(isa: str) -> dict[str, Any]:
    """The code generation this run used, for the machine facts of the record."""
    facts: dict[str, Any] = {"isa": isa}
    if os.environ.get("NUMBA_CPU_NAME"):
        facts["numba_cpu_name"] = os.environ["NUMBA_CPU_NAME"]
    facts.update(vector_registers())
    return facts
