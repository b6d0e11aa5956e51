"""numpydoc validation of the public API, in the spirit of scikit-learn's
``sklearn/tests/test_docstrings.py``.

The public API is every class and function in ``skboot.__all__`` and every object
the API reference (``docs/api.rst``) documents, plus the public methods and
properties those classes define or inherit from skboot classes (scikit-learn's
``get_params``/``set_params``/``set_*_request`` are scikit-learn's to document).

Each docstring goes through ``numpydoc.validate.validate`` (the codes are listed at
https://numpydoc.readthedocs.io/en/latest/validation.html).  Every check applies
except the ones below, each with the reason:

* ``RT02`` (a single return value must not be named) is never checked: a named
  return (``self : object``, ``result : BootstrapResult``) is scikit-learn's style
  and lets the description refer to the value by name.
* ``ES01`` (extended summary), ``SA01`` (See Also) and ``EX01`` (Examples) are
  checked on the public names themselves, not on their methods and properties: a
  one-line method needs no extended summary, cross-references or example of its
  own; its class has them (scikit-learn draws the same line).
* ``RT01`` (no Returns section) is not required of a docstring with a Yields
  section: ``split`` and ``iter_samples`` validate their arguments on the call and
  then return a generator (a bad argument fails at the call, not at the first
  ``next``), so numpydoc sees a function returning something; it refuses a
  docstring with both Returns and Yields, and what the caller iterates over is
  what Yields documents.
* ``PR01`` (undocumented parameter) on a class counts the parameters documented
  under Attributes: the frozen result records (``BootstrapResult``,
  ``ConfidenceInterval``, ...) are built by skboot and read by the user, so their
  fields are documented as attributes; constructor fields with a leading
  underscore are private (the context a result keeps for later intervals).
* ``GL08`` (no docstring) is waived for a property that its class documents
  under Attributes (the pandas views of the multiple-comparison results): the
  class docstring is where numpydoc and Sphinx show attributes.

``ALLOWED`` lists the findings that cannot be fixed, one reason each; the test also
fails when an allowed finding is gone, so the list only shrinks.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from pathlib import Path

import pytest

# numpydoc is in the ``test`` extra (pyproject.toml), so CI always runs this file.
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate

import skboot

API_RST = Path(__file__).resolve().parent.parent / "docs" / "api.rst"

#: Checked on the public names only, not on their methods and properties.
TOP_LEVEL_ONLY = frozenset({"ES01", "SA01", "EX01"})
#: Never checked (see the module docstring).
IGNORED = frozenset({"RT02"})

#: (object, code) -> why the finding cannot be fixed.
ALLOWED: dict[tuple[str, str], str] = {}


def _api_rst_names() -> list[str]:
    """The entries of the autosummary tables of docs/api.rst (``.. currentmodule::
    skboot``), as dotted names under ``skboot``."""
    names = []
    in_table = False
    for line in API_RST.read_text().splitlines():
        if line.startswith(".. autosummary::"):
            in_table = True
            continue
        if in_table:
            entry = re.fullmatch(r"   ([A-Za-z_][\w.]*)", line)
            if entry:
                names.append(f"skboot.{entry.group(1)}")
            elif line.strip() and not line.strip().startswith(":"):
                in_table = False
    return names


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise AssertionError(f"{dotted} not found")


def _members(dotted: str, cls: type) -> list[str]:
    """Public methods and properties of ``cls`` defined by skboot classes."""
    out = []
    for attr in sorted(dir(cls)):
        if attr.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if attr in vars(k)), None)
        if owner is None or not owner.__module__.startswith("skboot"):
            continue
        member = vars(owner)[attr]
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(
            member, (property, functools.cached_property)
        ):
            out.append(f"{dotted}.{attr}")
    return out


def _public_objects() -> tuple[list[str], list[str]]:
    """(public names, their methods and properties), dotted."""
    names = [f"skboot.{name}" for name in skboot.__all__]
    names += [n for n in _api_rst_names() if n not in names]
    top, members = [], []
    for dotted in names:
        obj = _resolve(dotted)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        top.append(dotted)
        if inspect.isclass(obj):
            members += _members(dotted, obj)
    return top, members


TOP, MEMBERS = _public_objects()


def _attribute_names(obj: object) -> set[str]:
    doc = NumpyDocString(inspect.getdoc(obj) or "")
    names: set[str] = set()
    for item in doc["Attributes"]:
        names.update(part.strip() for part in item.name.split(","))
    return names


def _documented_attribute(dotted: str) -> bool:
    """Whether ``dotted`` is a property documented in its class's Attributes."""
    owner, _, name = dotted.rpartition(".")
    cls = _resolve(owner)
    if not inspect.isclass(cls):
        return False
    member = inspect.getattr_static(cls, name)
    is_property = isinstance(member, (property, functools.cached_property))
    return is_property and name in _attribute_names(cls)


def _findings(dotted: str, top_level: bool) -> list[tuple[str, str]]:
    obj = _resolve(dotted)
    result = validate(dotted)
    docstring = result["docstring"] or ""
    out = []
    for code, message in result["errors"]:
        if code in IGNORED or (code in TOP_LEVEL_ONLY and not top_level):
            continue
        if code == "GL08" and _documented_attribute(dotted):
            continue
        if code == "RT01" and re.search(r"^Yields\n-+$", docstring, re.M):
            continue
        if code == "PR01" and inspect.isclass(obj):
            params = inspect.signature(obj).parameters
            documented = {p.name for p in NumpyDocString(docstring)["Parameters"]}
            missing = sorted(
                name
                for name, p in params.items()
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                and not name.startswith("_")
                and name not in documented
                and name not in _attribute_names(obj)
            )
            if not missing:
                continue
            message = f"Parameters {missing} not documented (nor as Attributes)"
        out.append((code, message))
    return out


def _check(dotted: str, top_level: bool) -> None:
    findings = _findings(dotted, top_level)
    unexpected = [
        f"{dotted}: {code} {message}"
        for code, message in findings
        if (dotted, code) not in ALLOWED
    ]
    assert not unexpected, "numpydoc findings:\n" + "\n".join(unexpected)
    stale = [
        f"{d}: {code}"
        for d, code in ALLOWED
        if d == dotted and code not in {c for c, _ in findings}
    ]
    assert not stale, "fixed, remove from ALLOWED: " + ", ".join(stale)


@pytest.mark.parametrize("dotted", TOP)
def test_public_name_docstring(dotted):
    _check(dotted, top_level=True)


@pytest.mark.parametrize("dotted", MEMBERS)
def test_public_method_docstring(dotted):
    _check(dotted, top_level=False)


def test_the_public_api_is_covered():
    # Every public class and function is validated, the inherited resampler and
    # result methods among them.
    for name in skboot.__all__:
        obj = getattr(skboot, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert f"skboot.{name}" in TOP
    for member in (
        "skboot.StationaryBootstrap.split",
        "skboot.StationaryBootstrap.get_n_splits",
        "skboot.StationaryBootstrap.replicate",
        "skboot.BootstrapResult.confidence_interval",
        "skboot.BootstrapResult.jackknife_values",
        "skboot.intervals.percentile_interval",
    ):
        assert member in TOP or member in MEMBERS
    assert all(d in TOP + MEMBERS for d, _ in ALLOWED)
