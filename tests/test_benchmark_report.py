"""The benchmark report renders from a saved run; the README's table is that run's."""

from __future__ import annotations

import json
import pathlib

import pytest

from benchmarks._readme import BEGIN, END, readme_section, replace_section
from benchmarks._report import render

ROOT = pathlib.Path(__file__).resolve().parents[1]
LATEST = ROOT / "benchmarks" / "results" / "latest.json"


@pytest.fixture(scope="module")
def payload():
    data = json.loads(LATEST.read_text())
    data.setdefault("date_text", data["date"][:16])
    return data


def test_readme_table_is_the_saved_run(payload):
    text = (ROOT / "README.md").read_text()
    inside = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    assert inside == readme_section(payload).strip(), (
        "README's benchmark table is stale: run "
        "`python -m benchmarks --from-json benchmarks/results/latest.json --write-docs`"
    )


def test_readme_table_names_machine_and_peers(payload):
    section = readme_section(payload)
    assert "vector instructions: " in section
    assert "arch" in section and "scipy" in section and "tsbootstrap" in section
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    assert len(rows) >= 8
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[4].strip("*").endswith("x"), row


def test_docs_version_has_no_floors(payload):
    with_floors, records = render(payload, floors=True)
    without, records_again = render(payload, floors=False)
    assert "## Floors" in with_floors and "PASS" in with_floors
    assert "Floors" not in without and "PASS" not in without and "FAIL" not in without
    assert records == records_again and records


def test_replace_section_needs_markers():
    with pytest.raises(ValueError, match="markers"):
        replace_section("no markers here", "table")
    assert replace_section(f"a\n{BEGIN}\nold\n{END}\nb", "new") == (
        f"a\n{BEGIN}\nnew\n{END}\nb"
    )
