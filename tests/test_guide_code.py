"""Every Python block of the README and the guide pages runs as written.

A page's blocks run in order in one namespace (a later block may use an earlier
one's names), from a temporary folder, with matplotlib's Agg backend.  A block that
cannot run on a test machine by nature (it needs a GPU, or a cluster's address)
is preceded by an HTML comment ``<!-- not run: why -->``, invisible on the page.
"""

from __future__ import annotations

import pathlib
import re
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "guide").glob("*.md")),
]
BLOCK = re.compile(r"(<!-- not run: [^>]+-->\s*)?^```python\n(.*?)^```$", re.S | re.M)


def _blocks(path: pathlib.Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [code for skip, code in BLOCK.findall(text) if not skip]


PAGES_WITH_CODE = [p for p in PAGES if _blocks(p)]


def test_the_extraction_finds_blocks_and_honours_the_marker(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n```python\nx = 1\n```\n\n<!-- not run: needs a GPU -->\n"
        "```python\nraise SystemExit\n```\n\n```bash\nls\n```\n"
    )
    assert _blocks(page) == ["x = 1\n"]
    assert len(PAGES_WITH_CODE) >= 8


@pytest.mark.parametrize(
    "page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(ROOT))
)
def test_page_code_runs(page, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib").use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__guide__"}
    for i, code in enumerate(_blocks(page)):
        # the page's own warnings are part of what it shows a reader
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
            except Exception as exc:  # report which block, then fail
                pytest.fail(f"{page.relative_to(ROOT)} block {i} raised {exc!r}")
