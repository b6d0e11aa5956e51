"""Calling a numba kernel compiled for literal integer arguments, from Python.

A kernel that starts with ``numba.literally(k)`` is compiled once per value of
``k`` (a ``Literal[int]`` type), so code selected by ``k`` when the kernel is
typed (an ``overload`` that returns one metric's kernel, say) is the only code
compiled.  numba's dispatcher types a Python int as ``int64``, though: every call
first tries, and fails, to compile the non-literal signature (measured: about
30 ms per call) before it finds the literal one.  :func:`call_literal` looks the
compiled literal signature up itself and calls its entry point directly (about a
microsecond), compiling (or loading from the disk cache) on first use only.
"""

from __future__ import annotations

from typing import Any

from numba import typeof
from numba.core import types

__all__ = ["call_literal"]


def call_literal(kernel: Any, literals: tuple[int, ...], *args: Any) -> Any:
    """``kernel(*literals, *args)`` with ``literals`` typed as literal ints.

    ``kernel`` is a numba dispatcher whose leading parameters are passed to
    ``numba.literally``; the other arguments are typed as numba types them, so
    every distinct argument type gets its own compiled version, as in a plain
    call.
    """
    sig = tuple(types.literal(int(k)) for k in literals) + tuple(
        typeof(a) for a in args
    )
    compiled = kernel.overloads.get(sig)
    if compiled is None:
        return kernel(*literals, *args)  # compiles (or loads) the literal version
    return compiled.entry_point(*literals, *args)
