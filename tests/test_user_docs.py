"""The README, the documentation and the docstrings speak to users.

Two families of checks:

* no text written for the project's own bookkeeping reaches a user: tracker issue
  numbers, required speed-ups ("floors", PASS / FAIL marks), who else was using the
  machine, which working session did what;
* ``docs/api.rst`` documents every public name once, under the section of its
  family, and every section heading is a heading (a title line needs a blank line
  before it, or reStructuredText folds it into the paragraph above).
"""

from __future__ import annotations

import ast
import inspect
import pathlib
import re

import pytest

import skboot

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: (pattern, why it is not for users)
FORBIDDEN = [
    (
        r"(?<!arch )(?<!scipy )(?<!numba )(?<!numpy )\bissues? #?\d+",
        "a tracker issue number",
    ),
    (r"\b(PASS|FAIL)\b", "a pass/fail mark of a required speed-up"),
    (
        r"\b(speed-up|required|\d+(\.\d+)?x) floors?\b|\bfloors? (of \d|fails?|pass)",
        "a required speed-up ('floor')",
    ),
    (r"\bfloors table\b", "a required speed-up ('floor')"),
    (
        r"\b(other|no|this|that|previous|last|each|every) sessions?\b",
        "who ran what",
    ),
    (r"\bengineers?'?s?\b", "who ran what"),
    (r"\bno GPU has been\b|\bnot yet measured\b", "how the work was done"),
]


def _doc_files() -> list[pathlib.Path]:
    skip = {"_build", "generated", "auto_examples"}
    files = [ROOT / "README.md", ROOT / "docs" / "api.rst", ROOT / "docs" / "index.md"]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        if not skip & set(path.relative_to(ROOT / "docs").parts):
            files.append(path)
    files += sorted((ROOT / "examples").glob("*.py"))
    return sorted(set(files))


def _docstrings() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "skboot").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(
                node,
                ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef,
            ):
                doc = ast.get_docstring(node)
                if doc:
                    name = getattr(node, "name", "module")
                    out.append((f"{path.relative_to(ROOT)}:{name}", doc))
    return out


def _findings(where: str, text: str) -> list[str]:
    found = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for pattern, why in FORBIDDEN:
            match = re.search(pattern, line)
            if match:
                found.append(f"{where}:{lineno}: {why}: {match.group(0)!r}")
    return found


@pytest.mark.parametrize("path", _doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_speak_to_users(path):
    found = _findings(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


def test_docstrings_speak_to_users():
    found = [f for where, doc in _docstrings() for f in _findings(where, doc)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Every row passes issue 16's floor of 10x.", True),
        ("(issue 3)", True),
        ("the 100x floor against a loop", True),
        ("shared with other sessions", True),
        ("another engineer's test suite", True),
        ("**FAIL**", True),
        ("arch issue 862 reports the same", False),
        ("length 1 + floor(log(1 - u))", False),
        ("`T_SPA` has no floor at 0", False),
        ("observations from one patient, site or session", False),
    ],
)
def test_forbidden_patterns_catch_what_they_should(text, expected):
    assert bool(_findings("t", text)) is expected


# ---------------------------------------------------------------------------
# docs/api.rst
# ---------------------------------------------------------------------------
#: the section of docs/api.rst where each family's public names belong, by the
#: sub-package that defines them (names defined elsewhere: any section)
SECTION_OF_PACKAGE = {
    "skboot.multiple_comparison": "Comparing many models",
    "skboot.significance": "Tests and p-values",
    "skboot.metrics": "Model metrics",
    "skboot.model_based": "Model-based and wild bootstraps",
    "skboot.intervals": "Interval methods",
}
#: names documented with the run that produces them rather than with their package
SECTION_OF_NAME = {
    "ConfidenceInterval": "Bootstrap runs",
    **{
        name: "Curve bands"
        for name in (
            "roc_curve_band",
            "precision_recall_band",
            "CurveBand",
            "RocCurveBandDisplay",
            "PrecisionRecallBandDisplay",
            "compare_roc_curves",
            "compare_precision_recall_curves",
            "CurveComparison",
        )
    },
}


def _api_sections() -> dict[str, list[str]]:
    lines = (ROOT / "docs" / "api.rst").read_text(encoding="utf-8").splitlines()
    sections: dict[str, list[str]] = {}
    current = None
    in_summary = False
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]) and line:
            assert len(lines[i + 1]) == len(line), f"underline length of {line!r}"
            assert i == 0 or lines[i - 1] == "", (
                f"docs/api.rst: heading {line!r} needs a blank line before it, or it "
                "renders as text of the paragraph above"
            )
            current = line
            sections[current] = []
            in_summary = False
            continue
        if line.startswith(".. autosummary::"):
            in_summary = True
            continue
        if in_summary and line.startswith("   ") and not line.strip().startswith(":"):
            assert current is not None
            sections[current].append(line.strip())
        elif in_summary and line and not line.startswith(" "):
            in_summary = False
    return sections


def test_api_headings_are_headings():
    sections = _api_sections()
    assert "Comparing many models" in sections
    assert "Tests and p-values" in sections


def test_every_public_name_documented_once_in_its_section():
    sections = _api_sections()
    where: dict[str, list[str]] = {}
    for section, names in sections.items():
        for name in names:
            where.setdefault(name.split(".")[-1], []).append(section)
    problems = []
    for name in skboot.__all__:
        obj = getattr(skboot, name)
        if not (inspect.isclass(obj) or callable(obj)):
            continue  # constants (STREAM_VERSION) are described in the guide
        found = where.get(name, [])
        if len(found) != 1:
            problems.append(f"{name}: in {found or 'no section'}")
            continue
        module = getattr(obj, "__module__", "")
        expected = SECTION_OF_NAME.get(name) or next(
            (
                section
                for package, section in SECTION_OF_PACKAGE.items()
                if module == package or module.startswith(package + ".")
            ),
            found[0],
        )
        if found[0] != expected:
            problems.append(f"{name}: under {found[0]!r}, not {expected!r}")
    assert not problems, "\n".join(problems)
