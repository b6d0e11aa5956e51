"""The package's shape, checked by parsing its source (no import needed).

The layers of docs/architecture.md ("Where things live"), lowest first.  A module may
import skboot modules of its own layer or of lower layers, never of a higher layer,
at module level or inside a function, and the packages import each other without a
cycle.  No name with a leading
underscore is imported across a package boundary (a package is a top-level
subpackage or module of ``skboot``: ``skboot._engine``, ``skboot.metrics``,
``skboot.intervals``, ...).  Modules and functions stay small enough to read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "skboot"

#: Layers, lowest first: package -> layer number.  Keep in sync with the table in
#: docs/architecture.md.  The top package (the public API) sits below the command
#: line, its only client inside skboot.
LAYERS: dict[str, int] = {
    "skboot._version": 0,
    "skboot._exceptions": 0,
    "skboot._validation": 0,
    "skboot._results": 0,
    "skboot._resultfile": 0,
    "skboot._cache": 0,
    "skboot._typing": 0,
    "skboot._lazy": 0,
    "skboot._random": 1,
    "skboot._kernels": 2,
    "skboot.intervals": 3,
    "skboot.block_length": 3,
    "skboot.plotting": 3,
    "skboot.resamplers": 4,
    "skboot._engine": 5,
    "skboot._run": 6,
    "skboot.statistic": 7,
    "skboot.metrics": 8,
    "skboot.significance": 9,
    "skboot.multiple_comparison": 9,
    "skboot.model_based": 9,
    "skboot": 10,
    "skboot.cli": 11,
    "skboot.__main__": 12,
}

#: Longest module (lines) and function (lines of code of its body: no signature,
#: blank, comment or docstring lines).
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _dotted(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _package_of(module: str) -> str:
    """The layer package a dotted module belongs to (longest matching prefix)."""
    best = None
    for pkg in LAYERS:
        inside = module == pkg or module.startswith(pkg + ".")
        if inside and (best is None or len(pkg) > len(best)):
            best = pkg
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best


def _imports(tree: ast.AST, module: str, is_pkg: bool):
    """(imported module, imported names or None, line) for every skboot import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "skboot":
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "skboot":
                continue
            names = [a.name for a in node.names]
            yield target, names, node.lineno


def _import_rows():
    rows = []
    for path in _modules():
        module = _dotted(path)
        tree = ast.parse(path.read_text(), filename=str(path))
        for target, names, line in _imports(tree, module, path.name == "__init__.py"):
            rows.append((module, target, names, f"{path.name}:{line}"))
    return rows


ROWS = _import_rows()


def test_every_module_has_a_layer():
    for path in _modules():
        _package_of(_dotted(path))


def _imported_packages(target: str, names: list[str] | None) -> list[tuple[str, str]]:
    """(layer package, what was imported) of one import: ``from skboot import x``
    imports the module ``skboot.x`` when that is one, else the top package."""
    if target == "skboot" and names is not None:
        out = []
        for name in names:
            sub = f"skboot.{name}"
            known = any(sub == p or sub.startswith(p + ".") for p in LAYERS)
            out.append((_package_of(sub) if known else "skboot", sub))
        return out
    return [(_package_of(target), target)]


def test_imports_point_down_the_layers():
    wrong = []
    for module, target, names, where in ROWS:
        src = _package_of(module)
        for dst, what in _imported_packages(target, names):
            if LAYERS[dst] > LAYERS[src]:
                wrong.append(f"{module} ({where}) imports {what} (layer {LAYERS[dst]})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_no_private_name_crosses_a_package_boundary():
    wrong = []
    for module, target, names, where in ROWS:
        if names is None or _package_of(target) == _package_of(module):
            continue
        for name in names:
            if name.startswith("_") and not name.startswith("__"):
                wrong.append(f"{module} ({where}) imports {target}.{name}")
    assert not wrong, "private names across packages:\n" + "\n".join(wrong)


def test_no_import_cycle_between_packages():
    graph: dict[str, set[str]] = {}
    for module, target, names, _ in ROWS:
        src = _package_of(module)
        for dst, _what in _imported_packages(target, names):
            if src != dst:
                graph.setdefault(src, set()).add(dst)
    seen: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        if seen.get(node) == 1:
            raise AssertionError("import cycle: " + " -> ".join([*stack, node]))
        if seen.get(node) == 2:
            return
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*stack, node])
        seen[node] = 2

    for node in sorted(graph):
        visit(node, [])


def _code_lines(node: ast.AST, source_lines: list[str]) -> int:
    """Lines of a function's body holding code: not the signature, not blank, not
    comments, not docstrings."""
    doc_lines: set[int] = set()
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if (
            isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            doc_lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    count = 0
    for lineno in range(node.body[0].lineno, node.end_lineno + 1):
        text = source_lines[lineno - 1].strip()
        if text and not text.startswith("#") and lineno not in doc_lines:
            count += 1
    return count


@pytest.mark.parametrize("path", _modules(), ids=lambda p: _dotted(p))
def test_module_and_function_size(path):
    module = _dotted(path)
    source = path.read_text()
    lines = source.splitlines()
    assert len(lines) <= MAX_MODULE_LINES, (
        f"{module} has {len(lines)} lines (at most {MAX_MODULE_LINES}): split it"
    )
    tree = ast.parse(source)
    long = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = _code_lines(node, lines)
            if n > MAX_FUNCTION_LINES:
                long.append(f"{node.name} ({n} lines)")
    assert not long, f"{module}: functions over {MAX_FUNCTION_LINES} lines: {long}"
