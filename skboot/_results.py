"""The one protocol every public result follows.

A result is a frozen dataclass (``@dataclass(frozen=True, eq=False, repr=False)``)
that subclasses :class:`Result` and so

* compares with ``==`` without raising: same class and equal fields, arrays equal
  element by element with NaN equal to NaN (results hold arrays, so they are not
  hashable);
* has a short ``repr``: scalar fields to six digits, arrays as their shape and
  dtype (a result holding 9,999 replicates prints in one line), fields that are
  None left out;
* turns into a ``dict`` (:meth:`Result.to_dict`: public fields, nested results as
  dicts) and into a pandas DataFrame (:meth:`Result.to_frame`);
* draws itself (``plot(ax=None, **kwargs)``, returning the Axes);
* is saved to and loaded from one verified file format (``save`` / ``load``,
  :mod:`skboot._resultfile`): every field, internals included, as JSON or as an
  array member; a class whose fields are not plain (pandas objects, seeds,
  references to data) says how to store and rebuild them by overriding
  ``_file_fields`` and ``_from_file_fields``.

Fields whose names start with an underscore are internals: not shown, not in
``to_dict``, but compared and saved.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from skboot._resultfile import load_result, register, save_result

_R = TypeVar("_R", bound="Result")

__all__ = ["Result", "pyplot", "short_repr", "values_equal"]

#: Arrays with at most this many elements are shown in full by ``repr``.
_SHOWN = 6


def pyplot() -> Any:
    """``matplotlib.pyplot`` for the results' ``plot`` methods (the one import of
    the optional dependency), or an ImportError saying how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised without matplotlib
        raise ImportError(
            "Plotting needs matplotlib: pip install 'skboot[plot]'."
        ) from exc
    return plt


def values_equal(a: Any, b: Any) -> bool:
    """Equality that never raises: arrays element-wise (NaN equal to NaN),
    containers item by item, pandas objects by ``equals`` and their names,
    SeedSequences by their entropy and spawn key."""
    if a is b:
        return True
    if _is_pandas(a) or _is_pandas(b):
        return _is_pandas(a) and _is_pandas(b) and _pandas_equal(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            return False
        try:
            return bool(np.array_equal(a_arr, b_arr, equal_nan=True))
        except TypeError:  # arrays of strings or objects: NaN cannot occur
            return bool(np.array_equal(a_arr, b_arr))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, np.random.SeedSequence) and isinstance(b, np.random.SeedSequence):
        return values_equal(_seed_key(a), _seed_key(b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN == NaN for scalar fields, as for arrays
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _is_pandas(value: Any) -> bool:
    return hasattr(value, "equals") and type(value).__module__.startswith("pandas")


def _pandas_equal(a: Any, b: Any) -> bool:
    """Same type, values (NaN equal to NaN), labels and names."""
    if type(a) is not type(b) or not bool(a.equals(b)):
        return False
    names = [getattr(v, "name", None) for v in (a, b)]
    axes = [[list(axis.names) for axis in getattr(v, "axes", [])] for v in (a, b)]
    return values_equal(names[0], names[1]) and axes[0] == axes[1]


def _seed_key(seed: np.random.SeedSequence) -> tuple[Any, ...]:
    """What makes a SeedSequence's stream: its entropy, spawn key and pool size."""
    entropy = seed.entropy
    if not isinstance(entropy, (int, np.integer)):
        entropy = tuple(int(e) for e in np.atleast_1d(np.asarray(entropy)))
    return (entropy, tuple(int(k) for k in seed.spawn_key), seed.pool_size)


def short_repr(value: Any) -> str:
    """One value as ``repr`` shows it inside a result: arrays by shape and
    dtype unless tiny, floats to 6 significant digits (``repr`` of the field
    gives every digit)."""
    if isinstance(value, np.ndarray):
        if value.size <= _SHOWN and value.ndim <= 1:
            return np.array2string(value, precision=6, separator=", ")
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, (float, np.floating)):
        text = f"{float(value):.6g}"
        return text if any(c in text for c in ".ein") else text + ".0"
    if isinstance(value, np.random.SeedSequence):
        entropy, spawn_key, _ = _seed_key(value)
        return f"SeedSequence(entropy={entropy}, spawn_key={spawn_key})"
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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        register(cls)  # known by name to the file reader (nested results)

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
            f"{f.name}={short_repr(value)}"
            for f in self._public_fields()
            if f.repr and (value := getattr(self, f.name)) is not None
        ]
        parts += [f"{name}={short_repr(value)}" for name, value in self._repr_extra()]
        return f"{type(self).__name__}({', '.join(parts)})"

    def _repr_extra(self) -> list[tuple[str, Any]]:
        """Further (name, value) pairs the repr shows (e.g. an interval kept in a
        private field)."""
        return []

    def to_dict(self) -> dict[str, Any]:
        """The public fields as a dict.

        Returns
        -------
        dict
            One key per public field (internals left out); nested results as
            dicts, arrays as arrays.
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

    def to_frame(self) -> pd.DataFrame:
        """The result as a pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row per quantity (per column, model or parameter), one column
            per scalar field.
        """
        import pandas as pd

        return pd.DataFrame(self._frame_rows())

    # -- the one file format -----------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the result to a verified ``.npz`` file that loads without pickle.

        Every field (internals included) is stored: arrays as members of the
        archive, bit for bit, the rest in a JSON ``record`` naming the class,
        with a SHA-256 ``checksum`` of every member (format version 3, see the
        reproducibility guide).  Data and user functions are never stored.

        Parameters
        ----------
        path : str, os.PathLike or binary file object
            Written as given (no ``.npz`` suffix is added).

        Examples
        --------
        >>> import io
        >>> from skboot import ConfidenceInterval
        >>> ci = ConfidenceInterval(0.25, 0.75, method="percentile", level=0.9)
        >>> buf = io.BytesIO()
        >>> ci.save(buf)
        >>> _ = buf.seek(0)
        >>> ConfidenceInterval.load(buf) == ci
        True
        """
        save_result(self, path)

    @classmethod
    def load(cls: type[_R], path: str | os.PathLike[str]) -> _R:
        """Read a result written by ``save``, verified, without pickle.

        The class, the format version, every member, every field (by the
        class's own checks) and the checksum are checked first; a file that
        fails raises :class:`skboot.ResultFileError` naming the field.

        Parameters
        ----------
        path : str, os.PathLike or binary file object
            A file written by ``save`` of this class.

        Returns
        -------
        Result
            An instance of this class equal to the saved one.

        Examples
        --------
        >>> import io
        >>> import numpy as np
        >>> from skboot import ConfidenceInterval
        >>> ci = ConfidenceInterval(np.array([0.0, 1.0]), np.array([2.0, 3.0]))
        >>> buf = io.BytesIO()
        >>> ci.save(buf)
        >>> _ = buf.seek(0)
        >>> ConfidenceInterval.load(buf).high
        array([2., 3.])
        """
        return load_result(cls, path)

    def _file_fields(self) -> dict[str, Any]:
        """The values a file stores, by name: every field the constructor
        takes (internals included)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
            if f.init
        }

    @classmethod
    def _from_file_fields(cls, fields: dict[str, Any], where: Any) -> Any:
        """The result of the values a file stores (``where.error(name, text)``
        refuses one, naming it): each field the constructor takes, no other."""
        names = [f.name for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
        missing = [n for n in names if n not in fields]
        if missing:
            raise where.error(missing[0], "is missing from the record.")
        extra = sorted(set(fields) - set(names))
        if extra:
            raise where.error(
                extra[0],
                f"is not a field of a {cls.__name__} (the record holds "
                f"{', '.join(names)}).",
            )
        try:
            return cls(**fields)
        except (TypeError, ValueError) as exc:
            raise where.error(None, f"cannot make a {cls.__name__}: {exc}") from exc
