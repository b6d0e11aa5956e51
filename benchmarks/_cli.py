"""``python -m benchmarks [--quick] [--full] [--json PATH] [--only NAME ...]``.

Runs the selected sections, prints a markdown report to stdout (progress goes to
stderr) and writes every raw timing plus machine facts to a JSON file.
``--write-docs`` also rewrites ``docs/benchmarks.md`` from the same run.
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
    NA,
    Group,
    Row,
    facts_lines,
    fmt_bytes,
    fmt_range,
    fmt_time,
    load_average,
    machine_facts,
    measure_interleaved,
    median,
)

__all__ = ["main"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
DOCS = os.path.join(ROOT, "docs", "benchmarks.md")

PEER_COLUMNS = (
    ("arch", "arch 8"),
    ("scipy", "scipy.stats.bootstrap"),
    ("tsbootstrap", "tsbootstrap 0.7"),
    ("loop", "sklearn loop"),
    ("ref", "skboot ref"),
)
SHORT = {
    "arch": "arch",
    "scipy": "scipy",
    "tsbootstrap": "tsb",
    "loop": "loop",
    "ref": "ref",
}
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
MEMORY_FLOOR = 16 * 2**20
COLD_START_FLOOR = 5.0


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


def _med(timings: dict[str, Any], key: str | NA) -> float | None:
    if isinstance(key, NA) or key not in timings:
        return None
    times = timings[key]["times"]
    return median(times) if times else None


def _cell(timings: dict[str, Any], key: str | NA) -> str:
    if isinstance(key, NA):
        return key.reason
    rec = timings.get(key)
    if rec is None:
        return "n/a: not run"
    if "error" in rec and not rec["times"]:
        return f"error: {rec['error'][:80]}"
    return fmt_time(median(rec["times"]))


def _ratio(
    timings: dict[str, Any], peer: str | NA, sk: str | NA
) -> tuple[float | None, str]:
    mp, ms = _med(timings, peer), _med(timings, sk)
    if mp is None or ms is None:
        return None, "—"
    assert isinstance(peer, str) and isinstance(sk, str)
    paired = [
        a / b
        for a, b in zip(timings[peer]["times"], timings[sk]["times"], strict=False)
    ]
    ratio = mp / ms
    return (
        ratio,
        f"{_fmt_ratio(ratio)} ({_fmt_ratio(min(paired))}-{_fmt_ratio(max(paired))})",
    )


def _fmt_ratio(r: float) -> str:
    if r >= 100:
        return f"{r:.0f}x"
    if r >= 10:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


def _row_floors(row: Row, timings: dict[str, Any], quick: bool) -> list[dict[str, Any]]:
    out = []
    for floor in row.floors:
        ratio, _ = _ratio(timings, row.peers.get(floor.column, NA("")), row.skboot)
        if ratio is None:
            status = "n/a"
            why = (
                row.skboot.reason if isinstance(row.skboot, NA) else "peer not measured"
            )
        else:
            status = "PASS" if ratio >= floor.min_ratio else "FAIL"
            why = ""
        out.append(
            {
                "row": row.name,
                "workload": row.label,
                "floor": floor.describe(),
                "source": floor.source,
                "required": f">= {floor.min_ratio:g}x",
                "measured": None if ratio is None else round(ratio, 3),
                "status": status + (" (quick, indicative)" if quick and ratio else ""),
                "note": why,
            }
        )
    return out


def _ns_per_draw(timings: dict[str, Any], row: Row, floor: float | None) -> str:
    """skboot's ns/draw and its multiple of the stream + gather floor."""
    med = None if isinstance(row.skboot, NA) else _med(timings, row.skboot)
    if row.draws is None or med is None:
        return "—"
    ns = med / row.draws * 1e9
    return f"{ns:.2f}" + ("" if not floor else f" ({med / row.draws / floor:.1f}x)")


def _speed_markdown(
    results: list[dict[str, Any]], quick: bool, draw_floor: float | None = None
) -> tuple[list[str], list[dict[str, Any]]]:
    head = ["workload", "skboot"]
    # the "skboot ref" column only when a row has one (issue 15's rows)
    columns = [
        (col, title)
        for col, title in PEER_COLUMNS
        if col != "ref" or any("ref" in r.peers for x in results for r in x["rows"])
    ]
    for col, title in columns:
        head += [title, f"{SHORT[col]}/skboot"]
    head += ["ns/draw (x floor)", "spread (min-max of rounds)", "floors"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    floors: list[dict[str, Any]] = []
    notes: list[str] = []
    for res in results:
        timings = res["timings"]
        for row in res["rows"]:
            cells = [f"`{row.name}` {row.label}", _cell(timings, row.skboot)]
            spread = []
            if not isinstance(row.skboot, NA) and timings.get(row.skboot, {}).get(
                "times"
            ):
                spread.append(f"sk {fmt_range(timings[row.skboot]['times'])}")
            for col, _title in columns:
                key = row.peers.get(col, NA("n/a"))
                cell = _cell(timings, key)
                if col in row.extra and _med(timings, row.extra[col][1]) is not None:
                    label, xkey = row.extra[col]
                    cell += f" ({label}: {fmt_time(_med(timings, xkey) or 0)})"
                cells.append(cell)
                cells.append(_ratio(timings, key, row.skboot)[1])
                if isinstance(key, str) and timings.get(key, {}).get("times"):
                    spread.append(f"{SHORT[col]} {fmt_range(timings[key]['times'])}")
            rf = _row_floors(row, timings, quick)
            floors.extend(rf)
            cells.append(_ns_per_draw(timings, row, draw_floor))
            cells.append("; ".join(spread))
            cells.append(
                "; ".join(f"{f['floor']}: **{f['status']}**" for f in rf) or "—"
            )
            lines.append("| " + " | ".join(cells) + " |")
            if row.notes:
                notes.append(
                    f"- `{row.name}`: "
                    + "; ".join(f"{SHORT.get(k, k)}: {v}" for k, v in row.notes.items())
                )
    lines.append("")
    lines.append(
        "Cells are medians over the timed rounds; `x/skboot` is median(peer) / "
        "median(skboot) (above 1: skboot is faster), with the min-max of the "
        "per-round ratios in brackets. How each peer was called:"
    )
    if draw_floor:
        lines.append("")
        lines.append(
            f"`ns/draw`: skboot's median over its draws, and its multiple of the "
            f"stream + gather floor measured in this run ({draw_floor * 1e9:.2f} "
            "ns/draw: the fused iid mean kernel on 4,096 values in L1)."
        )
    lines.append("")
    lines.extend(notes)
    return lines, floors


# ---------------------------------------------------------------------------
# memory, cold start, backends
# ---------------------------------------------------------------------------
def _memory_markdown(mem: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    recs = mem["results"]
    keyed: dict[tuple[str, int], dict[str, Any]] = {}
    order: list[tuple[str, int]] = []
    compile_rec = None
    for r in recs:
        if r.get("variant") == "empty numba cache":
            compile_rec = r
            continue
        k = (r["impl"], r["B"])
        if k not in keyed:
            keyed[k] = {}
            order.append(k)
        keyed[k][r["mode"]] = r

    def val(r: dict[str, Any] | None) -> str:
        if r is None:
            return "not measured"
        if "skipped" in r:
            return f"skipped: {r['skipped']}"
        if "error" in r:
            return f"error: {r['error'][:80]}"
        return fmt_bytes(r["delta_bytes"])

    lines = [
        f"Peak RSS above baseline, n={mem['n']:,}, statistic mean, one fresh process "
        "per cell (VmHWM reset just before the call).",
        "",
        "| implementation | B | above baseline after warm-up call | above post-import "
        "baseline (first call; numba cache warm) | time of the call |",
        "|---|---|---|---|---|",
    ]
    impl_names = {
        "skboot": "skboot",
        "arch": "arch IIDBootstrap.apply",
        "scipy": "scipy (no batch)",
        "scipy_batch1000": "scipy batch=1000",
        "tsbootstrap": "tsbootstrap compiled",
    }
    for impl, B in sorted(order, key=lambda k: (k[1], list(impl_names).index(k[0]))):
        d = keyed[(impl, B)]
        w = d.get("warm")
        secs = w.get("seconds") if w else None
        lines.append(
            f"| {impl_names.get(impl, impl)} | {B:,} | {val(w)} | {val(d.get('cold'))} | "
            f"{fmt_time(secs) if secs is not None else '—'} |"
        )
    if compile_rec is not None:
        lines.append("")
        lines.append(
            f"skboot with an empty NUMBA_CACHE_DIR (compilation counted), B="
            f"{compile_rec['B']:,}: {val(compile_rec)} above the post-import baseline."
        )
    floors = []
    sk = keyed.get(("skboot", 50_000), {}).get("warm")
    if sk is not None and "delta_bytes" in sk:
        ok = sk["delta_bytes"] <= MEMORY_FLOOR
        floors.append(
            {
                "row": "memory",
                "workload": "peak RSS, n=10,000, B=50,000",
                "floor": "<= 16 MiB above post-import baseline (issue 3)",
                "source": "issue 3",
                "required": "<= 16 MiB",
                "measured": round(sk["delta_bytes"] / 2**20, 2),
                "status": "PASS" if ok else "FAIL",
                "note": "MiB",
            }
        )
    return lines, floors


def _cold_markdown(cs: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    def stat(values: list[float]) -> tuple[str, str]:
        if not values:
            return "—", "—"
        return fmt_time(median(values)), fmt_range(values)

    rows = [
        (
            "process start → first result, empty numba cache",
            [r["total_s"] for r in cs["empty_cache"]],
        ),
        ("  import skboot (empty cache)", [r["import_s"] for r in cs["empty_cache"]]),
        (
            "  first bootstrap call (empty cache: compiles)",
            [r["first_call_s"] for r in cs["empty_cache"]],
        ),
        (
            "process start → first result, warm numba cache",
            [r["total_s"] for r in cs["warm_cache"]],
        ),
        ("  import skboot (warm cache)", [r["import_s"] for r in cs["warm_cache"]]),
        (
            "  first bootstrap call (warm cache)",
            [r["first_call_s"] for r in cs["warm_cache"]],
        ),
        ("bare interpreter start (`python -c`)", cs["bare_interpreter_s"]),
    ]
    lines = [
        f'`bootstrap(x, "mean", n_resamples={cs["B"]:,})` with n={cs["n"]:,} in a '
        "fresh process.",
        "",
        "| measure | median | min-max |",
        "|---|---|---|",
    ]
    for label, values in rows:
        m, r = stat(values)
        lines.append(f"| {label} | {m} | {r} |")
    floors = []
    totals = [r["total_s"] for r in cs["empty_cache"]]
    if totals:
        t = median(totals)
        floors.append(
            {
                "row": "cold_start",
                "workload": "fresh process, empty numba cache, to first result",
                "floor": "< 5 s (issue 3)",
                "source": "issue 3",
                "required": "< 5 s",
                "measured": round(t, 3),
                "status": "PASS" if t < COLD_START_FLOOR else "FAIL",
                "note": "s",
            }
        )
    return lines, floors


def _backends_markdown(bk: dict[str, Any]) -> list[str]:
    lines = [
        f'`bootstrap(x, "mean", n_jobs={bk["n_workers"]})` inside '
        "`joblib.parallel_config(backend=...)` vs `n_jobs=1`, interleaved.",
        "",
        "| workload | n_jobs=1 | loky | threading | speed-up loky / threading | "
        "overhead per task loky / threading | tasks | bit-identical |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w in bk["workloads"]:
        s = w["summary"]
        lines.append(
            f"| {w['label']}: {w.get('statistic', 'mean')}, n={w['n']:,}, B={w['B']:,} | "
            f"{fmt_time(w['serial_median_s'])} | "
            f"{fmt_time(s['loky']['median_s'])} | {fmt_time(s['threading']['median_s'])} | "
            f"{s['loky']['speedup']:.2f}x / {s['threading']['speedup']:.2f}x | "
            f"{fmt_time(s['loky']['overhead_per_task_s'])} / "
            f"{fmt_time(s['threading']['overhead_per_task_s'])} | {w['n_tasks']} | "
            f"{'yes' if w['bit_identical'] else '**NO**'} |"
        )
    lines.append("")
    lines.append(
        "Overhead per task = (T_parallel - T_serial / workers) x workers / tasks: the "
        "time above perfect scaling charged to each joblib task. At the tiny size it "
        "is mostly the fixed cost of one `Parallel` call spread over the tasks. On 2 "
        "shared cores it includes whatever the other tenants took; negative values "
        "mean noise."
    )
    return lines


def _floors_markdown(floors: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| floor | workload | required | measured | result |",
        "|---|---|---|---|---|",
    ]
    for f in floors:
        meas = "—" if f["measured"] is None else f"{f['measured']:g}"
        if f["measured"] is not None and f.get("note") in ("s", "MiB"):
            meas += f" {f['note']}"
        elif f["measured"] is not None:
            meas += "x"
        status = f["status"]
        if status == "n/a" and f.get("note"):
            status = f"n/a: {f['note']}"
        lines.append(
            f"| {f['floor']} | {f['workload']} | {f['required']} | {meas} | **{status}** |"
        )
    return lines


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
        "--write-docs",
        action="store_true",
        help=f"rewrite {os.path.relpath(DOCS, ROOT)} from this run",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from benchmarks.speed import GROUPS, Config

    if args.list:
        for name in list(GROUPS) + list(EXTRA_SECTIONS):
            print(name)
        return 0
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

    out: list[str] = []
    floors: list[dict[str, Any]] = []
    out.append(f"# skboot benchmarks ({'quick, indicative only' if quick else 'full'})")
    out.append("")
    out.append(
        f"- Date: {started.strftime('%Y-%m-%d %H:%M %Z')}; wall time {elapsed:.0f} s"
    )
    out.append(f"- Command: `{command}`")
    out.append(
        f"- Load average (1, 5, 15 min): {load_start} at start, {load_end} at end "
        f"({facts['logical_cpus']} CPUs, shared)"
    )
    out.extend(facts_lines(facts))
    out.append("")
    if speed_results:
        out.append("## Speed")
        out.append("")
        draw_floor = None
        if any(r.draws for res in speed_results for r in res["rows"]):
            from benchmarks.fused import stream_gather_floor

            draw_floor = stream_gather_floor()
        lines, f = _speed_markdown(speed_results, quick, draw_floor)
        out.extend(lines)
        floors.extend(f)
        out.append("")
    if memory is not None:
        out.append("## Memory")
        out.append("")
        lines, f = _memory_markdown(memory)
        out.extend(lines)
        floors.extend(f)
        out.append("")
    if cold is not None:
        out.append("## Cold start")
        out.append("")
        lines, f = _cold_markdown(cold)
        out.extend(lines)
        floors.extend(f)
        out.append("")
    if backends is not None:
        out.append("## Parallel backends (issue 8)")
        out.append("")
        out.extend(_backends_markdown(backends))
        out.append("")
    if floors:
        n_pass = sum(f["status"].startswith("PASS") for f in floors)
        n_fail = sum(f["status"].startswith("FAIL") for f in floors)
        out.append(
            f"## Floors: {n_pass} PASS, {n_fail} FAIL, {len(floors) - n_pass - n_fail} n/a"
        )
        out.append("")
        out.extend(_floors_markdown(floors))
        out.append("")
    report = "\n".join(out)
    print(report)

    if args.json:
        path = args.json
    elif args.only:
        path = os.path.join(RESULTS, "partial.json")
    else:
        path = os.path.join(RESULTS, "quick.json" if quick else "latest.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    payload = {
        "schema": 1,
        "date": started.isoformat(timespec="seconds"),
        "command": command,
        "mode": "quick" if quick else "full",
        "sections": sections,
        "wall_time_s": elapsed,
        "load_average": {"start": load_start, "end": load_end},
        "machine": facts,
        "speed": speed_results,
        "memory": memory,
        "cold_start": cold,
        "backends": backends,
        "floors": floors,
    }
    with open(path, "w") as fh:
        json.dump(_jsonable(payload), fh, indent=1)
        fh.write("\n")
    _log(f"raw results: {path}\n")
    if args.write_docs:
        from benchmarks._docs import write_docs

        write_docs(DOCS, report)
        _log(f"wrote {DOCS}\n")
    return 0
