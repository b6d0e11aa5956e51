"""How a resampler's parameter reads in its repr and in a result's record."""

from __future__ import annotations

import types
from typing import Any

import numpy as np

__all__ = ["param_repr"]


def _scalar(value: Any) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def param_repr(value: Any) -> str:
    """``repr(value)``, except for objects whose repr is a memory address: a
    scipy.stats distribution reads ``scipy.stats.norm`` (unfrozen) or
    ``scipy.stats.norm(0, scale=2.0)`` (frozen), a function or method its
    dotted name.  So two runs with equal parameters record the same text."""
    dist = getattr(value, "dist", None)
    if dist is not None and hasattr(dist, "freeze") and hasattr(value, "args"):
        args = [_scalar(a) for a in value.args]
        args += [f"{k}={_scalar(v)}" for k, v in value.kwds.items()]
        return f"scipy.stats.{dist.name}({', '.join(args)})"
    if hasattr(value, "freeze") and hasattr(value, "rvs") and hasattr(value, "name"):
        return f"scipy.stats.{value.name}"
    if isinstance(value, types.MethodType):
        return f"{param_repr(value.__self__)}.{value.__name__}"
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType):
        return f"{value.__module__}.{value.__qualname__}"
    return repr(value)
