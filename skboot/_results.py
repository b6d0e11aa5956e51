"""The one protocol every public result follows.

A result is a frozen dataclass (``@dataclass(frozen=True, eq=False, repr=False)``)
that subclasses :class:`Result` and so

* compares with ``==`` without raising: same class and equal fields, arrays equal
  element by element with NaN equal to NaN (results hold arrays, so they are not
  hashable);
* has a short ``repr``: scalar fields as they are, arrays as their shape and dtype
  (a result holding 9,999 replicates prints in one line);
* turns into a ``dict`` (:meth:`Result.to_dict`: public fields, nested results as
  dicts) and into a pandas DataFrame (:meth:`Result.to_frame`);
* draws itself (``plot(ax=None, **kwargs)``, returning the Axes);
* is saved to and loaded from one verified file format (``save`` / ``load``).

Fields whose names start with an underscore are internals: not shown, not in
``to_dict``, but compared.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["Result", "short_repr", "values_equal"]

#: Arrays with at most this many elements are shown in full by ``repr``.
_SHOWN = 6


def values_equal(a: Any, b: Any) -> bool:
    """Equality that never raises: arrays element-wise (NaN equal to NaN),
    containers item by item, pandas objects by ``equals``."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            return False
        try:
            return bool(np.array_equal(a_arr, b_arr, equal_nan=True))
        except TypeError:  # arrays of strings or objects: NaN cannot occur
            return bool(np.array_equal(a_arr, b_arr))
    if hasattr(a, "equals") and type(a).__module__.startswith("pandas"):
        return type(a) is type(b) and bool(a.equals(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN == NaN for scalar fields, as for arrays
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def short_repr(value: Any) -> str:
    """One value as ``repr`` shows it inside a result: arrays by shape and
    dtype unless tiny, floats to 6 significant digits."""
    if isinstance(value, np.ndarray):
        if value.size <= _SHOWN and value.ndim <= 1:
            return np.array2string(value, precision=6, separator=", ")
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, dict) and len(value) > _SHOWN:
        return f"{{... {len(value)} items}}"
    if isinstance(value, (list, tuple)) and len(value) > _SHOWN:
        return f"[... {len(value)} items]"
    if type(value).__module__.startswith("pandas") and hasattr(value, "shape"):
        return f"{type(value).__name__}(shape={value.shape})"
    return repr(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Result:
    """Mixin of the result protocol (see the module docstring)."""

    __slots__ = ()

    def _public_fields(self) -> list[dataclasses.Field[Any]]:
        return [f for f in dataclasses.fields(self) if not f.name.startswith("_")]  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            values_equal(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.compare
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [
            f"{f.name}={short_repr(getattr(self, f.name))}"
            for f in self._public_fields()
            if f.repr
        ]
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """The public fields as a dict.

        Returns
        -------
        dict
            Field name to value; nested results as dicts, arrays as arrays.
        """
        return {f.name: _plain(getattr(self, f.name)) for f in self._public_fields()}

    def _frame_rows(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame`: by default one row of the scalar
        public fields; results with one row per column, model or parameter
        override it."""
        row = {}
        for f in self._public_fields():
            value = getattr(self, f.name)
            if value is None or isinstance(value, (str, bool, int, float, np.number)):
                row[f.name] = value
        return [row]

    def to_frame(self) -> Any:
        """The result as a table.

        Returns
        -------
        pandas.DataFrame
            One row per quantity (per column, model or parameter where the
            result has several).
        """
        import pandas as pd

        return pd.DataFrame(self._frame_rows())
