"""The generated kernel modules are what ``tools/generate_kernels.py`` makes of their
templates, byte for byte, and the macro expander refuses malformed templates."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generator():
    path = os.path.join(ROOT, "tools", "generate_kernels.py")
    spec = importlib.util.spec_from_file_location("generate_kernels", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.mark.parametrize("template", sorted(GEN.TARGETS))
def test_generated_module_is_current(template):
    path = os.path.join(GEN.OUTPUT, GEN.TARGETS[template])
    with open(path) as fh:
        checked_in = fh.read()
    assert checked_in == GEN.render(template), (
        f"{os.path.relpath(path, ROOT)} is out of date: run "
        "'python tools/generate_kernels.py' and commit the result"
    )


def test_check_mode_reports_nothing_stale(capsys):
    assert GEN.main(["--check"]) == 0
    assert capsys.readouterr().err == ""


def test_every_template_has_a_target_and_is_used():
    names = {f for f in os.listdir(GEN.TEMPLATES) if f.endswith(".py.in")}
    assert names == set(GEN.TARGETS)


def test_expansion_places_bodies_and_arguments():
    macros = {
        "loop": GEN.Macro("for i in range($1):\n    @@BODY@@\n    done += 1\n", 1),
        "two": GEN.Macro("if $1:\n    @@A@@\nelse:\n    @@B@@\n", 1, ("A", "B")),
    }
    lines = [
        "def f(n):",
        "    #@ loop(n + 1)",
        "        #@ two(i & 1)",
        "        #@ a",
        "            x = i",
        "        #@ b",
        "            x = -i",
        "        #@ end",
        "    #@ end",
        "    return x",
    ]
    assert GEN.expand(lines, "t", macros) == [
        "def f(n):",
        "    for i in range(n + 1):",
        "        if i & 1:",
        "            x = i",
        "        else:",
        "            x = -i",
        "        done += 1",
        "    return x",
    ]


@pytest.mark.parametrize(
    ("lines", "match"),
    [
        (["    #@ nosuch(1)", "        x = 1", "    #@ end"], "unknown macro 'nosuch'"),
        (["#@ loop(1, 2)", "    x = 1", "#@ end"], "takes 1 argument"),
        (["#@ loop(1)", "    x = 1"], "has no '#@ end'"),
        (["#@ end"], "outside a macro use"),
        (["#@ loop(1)", "  x = 1", "#@ end"], "indented 4 spaces deeper"),
        (["#@ two(1)", "    x = 1", "#@ end"], "needs a slot line first"),
        (["#@ two(1)", "#@ a", "    x = 1", "#@ end"], r"lacks \['B'\]"),
    ],
)
def test_malformed_templates_are_refused(lines, match):
    macros = {
        "loop": GEN.Macro("while $1:\n    @@BODY@@\n", 1),
        "two": GEN.Macro("if $1:\n    @@A@@\nelse:\n    @@B@@\n", 1, ("A", "B")),
    }
    with pytest.raises(GEN.TemplateError, match=match):
        GEN.expand(lines, "t", macros)
