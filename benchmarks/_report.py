"""Render one benchmark run (the JSON payload) as markdown.

The same payload renders twice: for the terminal, with the required speed-ups
("floors") the project tracks, and for ``docs/benchmarks.md``, without them.
``python -m benchmarks --from-json PATH --write-docs`` re-renders a saved run.
"""

from __future__ import annotations

from typing import Any

from benchmarks._harness import (
    NA,
    Floor,
    Row,
    facts_lines,
    fmt_bytes,
    fmt_range,
    fmt_time,
    median,
)

__all__ = ["as_row", "render"]

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
MEMORY_FLOOR = 16 * 2**20
COLD_START_FLOOR = 5.0
DEMO_COLD_FLOOR = 8.0


def _na(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"reason"}:
        return NA(value["reason"])
    return value


def as_row(row: Row | dict[str, Any]) -> Row:
    """A speed-table row, from a live run or from its JSON record."""
    if isinstance(row, Row):
        return row
    return Row(
        name=row["name"],
        label=row["label"],
        skboot=_na(row["skboot"]),
        peers={k: _na(v) for k, v in row["peers"].items()},
        floors=[Floor(**f) for f in row.get("floors", [])],
        notes=dict(row.get("notes", {})),
        extra={k: (v[0], v[1]) for k, v in row.get("extra", {}).items()},
        draws=row.get("draws"),
    )


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
    results: list[dict[str, Any]],
    quick: bool,
    draw_floor: float | None = None,
    show_floors: bool = True,
) -> tuple[list[str], list[dict[str, Any]]]:
    head = ["workload", "skboot"]
    # the "skboot ref" column only when a row has one
    columns = [
        (col, title)
        for col, title in PEER_COLUMNS
        if col != "ref" or any("ref" in r.peers for x in results for r in x["rows"])
    ]
    for col, title in columns:
        head += [title, f"{SHORT[col]}/skboot"]
    head += ["ns/draw (x stream + gather)", "spread (min-max of rounds)"]
    if show_floors:
        head.append("floors")
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
            if show_floors:
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
            f"stream + gather cost measured in this run ({draw_floor * 1e9:.2f} "
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
                "floor": "<= 16 MiB above post-import baseline",
                "source": "memory",
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
        ("`skboot demo`, empty numba cache", cs.get("demo_empty_cache_s", [])),
        ("`skboot demo`, warm numba cache", cs.get("demo_warm_cache_s", [])),
    ]
    lines = [
        f'`bootstrap(x, "mean", n_resamples={cs["B"]:,})` with n={cs["n"]:,} in a '
        "fresh process, and the whole `skboot demo` (spawn to exit); medians of "
        f"{len(cs['empty_cache'])} fresh processes each, load average "
        f"{cs.get('load_average', {}).get('start', '?')} at start, "
        f"{cs.get('load_average', {}).get('end', '?')} at end.",
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
                "floor": "< 5 s",
                "source": "cold start",
                "required": "< 5 s",
                "measured": round(t, 3),
                "status": "PASS" if t < COLD_START_FLOOR else "FAIL",
                "note": "s",
            }
        )
    demo = cs.get("demo_empty_cache_s", [])
    if demo:
        t = median(demo)
        floors.append(
            {
                "row": "cold_start",
                "workload": "skboot demo, fresh process, empty numba cache",
                "floor": "<= 8 s",
                "source": "cold start",
                "required": "<= 8 s",
                "measured": round(t, 3),
                "status": "PASS" if t <= DEMO_COLD_FLOOR else "FAIL",
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


def render(
    payload: dict[str, Any], *, floors: bool
) -> tuple[str, list[dict[str, Any]]]:
    """The markdown report of one run and its floor records.

    ``floors=False`` leaves out the floors column and section (the documentation's
    version); the records are returned either way.
    """
    quick = payload["mode"] == "quick"
    facts = payload["machine"]
    load = payload["load_average"]
    out: list[str] = []
    records: list[dict[str, Any]] = []
    out.append(f"# skboot benchmarks ({'quick, indicative only' if quick else 'full'})")
    out.append("")
    out.append(
        f"- Date: {payload['date_text']}; wall time {payload['wall_time_s']:.0f} s"
    )
    out.append(f"- Command: `{payload['command']}`")
    out.append(
        f"- Load average (1, 5, 15 min): {load['start']} at start, {load['end']} at "
        f"end ({facts['logical_cpus']} CPUs, shared)"
    )
    out.extend(facts_lines(facts))
    out.append("")
    speed = [
        dict(res, rows=[as_row(r) for r in res["rows"]])
        for res in payload.get("speed") or []
    ]
    if speed:
        out += ["## Speed", ""]
        lines, f = _speed_markdown(speed, quick, payload.get("draw_floor_s"), floors)
        out.extend(lines)
        records.extend(f)
        out.append("")
    if payload.get("memory") is not None:
        out += ["## Memory", ""]
        lines, f = _memory_markdown(payload["memory"])
        out.extend(lines)
        records.extend(f)
        out.append("")
    if payload.get("cold_start") is not None:
        out += ["## Cold start", ""]
        lines, f = _cold_markdown(payload["cold_start"])
        out.extend(lines)
        records.extend(f)
        out.append("")
    if payload.get("backends") is not None:
        out += ["## Parallel backends", ""]
        out.extend(_backends_markdown(payload["backends"]))
        out.append("")
    if records and floors:
        n_pass = sum(f["status"].startswith("PASS") for f in records)
        n_fail = sum(f["status"].startswith("FAIL") for f in records)
        n_na = len(records) - n_pass - n_fail
        out.append(f"## Floors: {n_pass} PASS, {n_fail} FAIL, {n_na} n/a")
        out.append("")
        out.extend(_floors_markdown(records))
        out.append("")
    return "\n".join(out), records
