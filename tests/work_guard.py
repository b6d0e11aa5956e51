"""Shared by the bad-input catalogues: fail a case that reaches resampling work.

``forbid_work(monkeypatch, targets)`` replaces each ``(module, name)`` (the engine
entry points, kernels, estimator fits a family calls) with a function that raises
:class:`WorkStarted`, so a bad input that is refused only after work began fails its
test instead of passing.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

import pytest

__all__ = ["WorkStarted", "forbid_work"]


class WorkStarted(AssertionError):
    """Raised when a case reaches resampling work before its error."""


def _work(*args: Any, **kwargs: Any) -> Any:
    raise WorkStarted("resampling work started before the input was refused")


def forbid_work(
    monkeypatch: pytest.MonkeyPatch, targets: Iterable[tuple[str, str]]
) -> None:
    """Make every ``module.name`` in ``targets`` raise :class:`WorkStarted`."""
    for module, name in targets:
        monkeypatch.setattr(importlib.import_module(module), name, _work)
