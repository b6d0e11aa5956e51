"""``python -m benchmarks [--quick] [--full] [--json PATH] [--only NAME ...]``.

Runs the selected sections, prints a markdown report to stdout (progress goes to
stderr) and writes every raw timing plus machine facts to a JSON file.
``--write-docs`` also rewrites ``docs/benchmarks.md`` and the README's head-to-head
table from the same run; ``--from-json PATH`` renders a saved run instead of
running one.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import os
import shlex
import sys
import time
from typing import Any

from benchmarks._harness import (
    Group,
    load_average,
    machine_facts,
    measure_interleaved,
)
from benchmarks._report import render

__all__ = ["main"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
DOCS = os.path.join(ROOT, "docs", "benchmarks.md")

# timed rounds in a full run: more where a round is cheap, so the medians are
# steadier on a shared machine; never fewer than 5
FULL_REPS = {
    "iid_10k": 15,
    "iid_small": 21,
    "block_moving": 15,
    "block_circular": 15,
    "block_stationary": 15,
    "callable_mean": 9,
    "iid_100k": 5,
    "iid_1m": 5,
    "colmeans_2d": 7,
    "median": 5,
    "bca": 5,
    "roc_auc": 5,
    "accuracy": 5,
    "log_loss": 5,
    "mc_spa": 9,
    "mc_mcs": 5,
}
EXTRA_SECTIONS = ("memory", "cold_start", "backends")
README = os.path.join(ROOT, "README.md")


def _log(msg: str) -> None:
    sys.stderr.write(msg)
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# selection
# ---------------------------------------------------------------------------
def _row_names() -> dict[str, str]:
    """Row name -> group name, for --only median_callable and the like."""
    return {
        "median_callable": "median",
        "median_vectorized": "median",
        "median_fused": "median",
        "bca_interval": "bca",
    }


def _select(only: list[str] | None, quick: bool) -> list[str]:
    from benchmarks.speed import GROUPS

    sections = list(GROUPS) + list(EXTRA_SECTIONS)
    if not only:
        return [s for s in sections if not (quick and s == "backends")]
    rows = _row_names()
    chosen: list[str] = []
    for token in only:
        hits = [s for s in sections if s == token or s.startswith(token)]
        if token in rows:
            hits = [rows[token]]
        if not hits:
            raise SystemExit(
                f"--only: unknown name {token!r}; choose from {', '.join(sections)} "
                "(a prefix such as 'iid' or 'block' selects several)"
            )
        chosen.extend(h for h in hits if h not in chosen)
    return [s for s in sections if s in chosen]


def _wait_for_load(max_load: float, max_wait: float) -> None:
    t0 = time.time()
    while True:
        load = load_average()
        if not load or load[0] <= max_load:
            return
        if time.time() - t0 >= max_wait:
            _log(
                f"load {load[0]} still above {max_load} after {max_wait:.0f} s; going on\n"
            )
            return
        _log(f"load {load[0]} > {max_load}; waiting...\n")
        time.sleep(15)


# ---------------------------------------------------------------------------
# speed section
# ---------------------------------------------------------------------------
def _run_group(group: Group, reps: int) -> dict[str, Any]:
    _log(f"  {group.name} {group.params} ")
    load_before = load_average()
    timings = measure_interleaved(group.impls, reps, warmup=1, log=_log)
    _log("\n")
    return {
        "group": group.name,
        "params": group.params,
        "reps": reps,
        "load_before": load_before,
        "load_after": load_average(),
        "timings": timings,
        "rows": group.rows,
    }


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------
def _jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(obj).items()}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, float) and obj != obj:
        return None
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    return obj


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="skboot head-to-head benchmarks against arch, scipy and tsbootstrap.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick",
        action="store_true",
        help="about a minute: 3 rounds, smaller B for heavy rows",
    )
    mode.add_argument(
        "--full", action="store_true", help="the default: every section, 5-7 rounds"
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        help="where to write raw results (default: benchmarks/results/)",
    )
    p.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="sections to run (names or prefixes); see --list",
    )
    p.add_argument("--list", action="store_true", help="list section names and exit")
    p.add_argument(
        "--reps",
        type=int,
        help="timed rounds per workload (default: 5-21 by cost; quick 3)",
    )
    p.add_argument(
        "--wait-load",
        type=float,
        metavar="L",
        help="wait until the 1-minute load average is <= L",
    )
    p.add_argument(
        "--wait-max",
        type=float,
        default=300.0,
        metavar="S",
        help="give up waiting after S seconds",
    )
    p.add_argument(
        "--isa",
        choices=("native", "avx2", "sse4"),
        help="compile every kernel for this instruction set (a private numba cache "
        "per ISA); the record says which registers the kernels use",
    )
    p.add_argument(
        "--from-json",
        metavar="PATH",
        help="render a saved run (e.g. benchmarks/results/latest.json); runs nothing",
    )
    p.add_argument(
        "--write-docs",
        action="store_true",
        help=f"rewrite {os.path.relpath(DOCS, ROOT)} and the README's table from this run",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from benchmarks.speed import GROUPS, Config

    if args.from_json:
        with open(args.from_json) as fh:
            payload = json.load(fh)
        payload.setdefault("date_text", payload["date"].replace("T", " ")[:16])
        print(render(payload, floors=True)[0])
        if args.write_docs:
            write_pages(payload)
        return 0
    if args.list:
        for name in list(GROUPS) + list(EXTRA_SECTIONS):
            print(name)
        return 0
    if args.isa:
        from benchmarks._isa import apply_isa

        apply_isa(args.isa, sys.argv[1:] if argv is None else list(argv))
    quick = bool(args.quick)
    sections = _select(args.only, quick)
    if args.wait_load is not None:
        _wait_for_load(args.wait_load, args.wait_max)
    command = "python -m benchmarks " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    started = _dt.datetime.now().astimezone()
    t_start = time.perf_counter()
    load_start = load_average()
    _log(f"skboot benchmarks ({'quick' if quick else 'full'}): {', '.join(sections)}\n")
    _log(f"load average at start: {load_start}\n")
    facts = machine_facts()
    cfg = Config(quick=quick)
    speed_results = []
    for name in sections:
        if name in GROUPS:
            group = GROUPS[name](cfg)
            reps = args.reps or (3 if quick else FULL_REPS.get(name, 7))
            speed_results.append(_run_group(group, reps))
    memory = cold = backends = None
    if "memory" in sections:
        from benchmarks.memory import run_memory

        _log("memory\n")
        memory = run_memory(quick, _log)
    if "cold_start" in sections:
        from benchmarks.coldstart import run_cold_start

        _log("cold start\n")
        cold = run_cold_start(quick, _log)
    if "backends" in sections:
        from benchmarks.backends import run_backends

        _log("backends\n")
        backends = run_backends(quick, args.reps or (3 if quick else 5), _log)
    elapsed = time.perf_counter() - t_start
    load_end = load_average()
    from benchmarks._isa import isa_facts

    facts["codegen"] = isa_facts(args.isa or "native")

    draw_floor = None
    if any(r.draws for res in speed_results for r in res["rows"]):
        from benchmarks.fused import stream_gather_floor

        draw_floor = stream_gather_floor()
    payload: dict[str, Any] = {
        "schema": 1,
        "date": started.isoformat(timespec="seconds"),
        "date_text": started.strftime("%Y-%m-%d %H:%M %Z"),
        "command": command,
        "mode": "quick" if quick else "full",
        "sections": sections,
        "wall_time_s": elapsed,
        "load_average": {"start": load_start, "end": load_end},
        "machine": facts,
        "draw_floor_s": draw_floor,
        "speed": speed_results,
        "memory": memory,
        "cold_start": cold,
        "backends": backends,
    }
    report, payload["floors"] = render(payload, floors=True)
    print(report)

    if args.json:
        path = args.json
    elif args.only:
        path = os.path.join(RESULTS, "partial.json")
    else:
        path = os.path.join(RESULTS, "quick.json" if quick else "latest.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(_jsonable(payload), fh, indent=1)
        fh.write("\n")
    _log(f"raw results: {path}\n")
    if args.write_docs:
        write_pages(json.loads(json.dumps(_jsonable(payload))))
    return 0


def write_pages(payload: dict[str, Any]) -> None:
    """Rewrite docs/benchmarks.md and the README's table from one run."""
    from benchmarks._docs import write_docs
    from benchmarks._readme import readme_section, replace_section

    write_docs(DOCS, render(payload, floors=False)[0])
    _log(f"wrote {DOCS}\n")
    if payload["mode"] == "full" and payload.get("speed"):
        with open(README) as fh:
            text = fh.read()
        with open(README, "w") as fh:
            fh.write(replace_section(text, readme_section(payload)))
        _log(f"wrote {README}\n")
