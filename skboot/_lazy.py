"""Lazy re-exports: a package ``__init__`` that names its public objects in a
static table and imports each one's module on first access (PEP 562 module
``__getattr__`` and ``__dir__``).

Why: a dask worker that runs skboot's data-parallel partition functions imports
the modules that define them, and with them every package ``__init__`` above
them.  Eager re-exports there would load scikit-learn, scipy's submodules and
pandas into every worker (about 250 MiB of its memory before any data); with
lazy ones a worker loads only numpy, numba and the kernels it runs.  Each package
keeps ``if TYPE_CHECKING:`` imports of the same names, so type checkers and IDEs
see them, and ``tests/test_lazy_imports.py`` checks that the two lists agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, str], submodules: tuple[str, ...] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``.

    ``table`` maps each public name to the module that defines it; the first
    access imports that module and stores the object in the package's namespace,
    so later accesses are plain attribute lookups.  ``submodules`` (names of
    subpackages or modules of ``package``) are imported on first access too.
    """
    names = dict(table)
    subs = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
        elif name in subs:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names) | subs)

    return __getattr__, __dir__
