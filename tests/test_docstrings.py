"""Every public class and function documents itself with a runnable example
(pytest runs the examples as doctests: ``--doctest-modules`` in pyproject)."""

from __future__ import annotations

import inspect

import pytest

import skboot

PUBLIC = [
    name
    for name in skboot.__all__
    if inspect.isclass(getattr(skboot, name))
    or inspect.isfunction(getattr(skboot, name))
]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_docstring_has_example(name):
    doc = inspect.getdoc(getattr(skboot, name)) or ""
    assert "Examples\n--------" in doc, f"{name} has no Examples section"
    assert ">>>" in doc


def test_all_is_unique_and_complete():
    assert len(set(skboot.__all__)) == len(skboot.__all__)
    for name in skboot.__all__:
        assert hasattr(skboot, name)
