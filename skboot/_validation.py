"""Parameter checks and their one message.

Every message names the parameter, the owner, what is allowed and what was given:
"The 'n_resamples' parameter of Bootstrap must be an int >= 1. Got 0 instead."
(:func:`param_error`, the only builder of such messages; :func:`value_error`
for checks whose allowed set needs a sentence).

Public entry points declare a constraint table (in the spirit of scikit-learn's
``_parameter_constraints``, which is private there, so written here): for each
parameter, the list of constraints any one of which the value must satisfy, checked
by :func:`validate_params` before any work::

    _CONSTRAINTS = {
        "n_resamples": [Interval("int", 1, 2**32 - 1, high_text="2**32 - 1"), NONE],
        "method": [Options(METHODS, case_insensitive=True)],
        "n_jobs": [N_JOBS, NONE],
    }
    values = validate_params("bootstrap", _CONSTRAINTS, n_resamples=..., ...)

The ``check_*`` helpers below cover the checks a table cannot state (array shapes,
label vectors, consistent lengths).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "ALTERNATIVE",
    "ALTERNATIVES",
    "BOOL",
    "CALLABLE",
    "DICT",
    "LEVEL",
    "NONE",
    "N_JOBS",
    "N_RESAMPLES",
    "VECTORIZED",
    "Constraint",
    "Interval",
    "Options",
    "Predicate",
    "as_float_array",
    "check_array_1d_labels",
    "check_consistent_length",
    "check_int",
    "check_n_jobs",
    "check_n_samples",
    "check_one_of",
    "check_sample_weight",
    "integral_count",
    "is_int",
    "is_real",
    "lower",
    "param_error",
    "seed_from_rng",
    "validate_params",
    "value_error",
]


def param_error(name: str, owner: str, allowed: str, got: Any) -> ValueError:
    """The standard ValueError for a bad parameter (the one message builder)."""
    return value_error(name, owner, f"must be {allowed}. Got {got!r} instead.")


def value_error(name: str, owner: str, text: str) -> ValueError:
    """``The '<name>' parameter of <owner> <text>``: for checks whose allowed set
    needs a sentence (a shape, a relation between parameters)."""
    return ValueError(f"The '{name}' parameter of {owner} {text}")


def is_int(value: Any) -> bool:
    """An integer that is not a bool."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def integral_count(value: Any) -> Any:
    """An integral float (``1e4``, as scipy accepts it) as an int; any other value
    unchanged, for the parameter's own check to judge."""
    if (
        isinstance(value, (float, np.floating))
        and np.isfinite(value)
        and float(value).is_integer()
    ):
        return int(value)
    return value


def lower(value: Any) -> Any:
    """An option string in lowercase (scipy lowercases its options: "Less" is
    "less"); any other value unchanged, for the option's own check to judge."""
    return value.lower() if isinstance(value, str) else value


def seed_from_rng(rng: Any, random_state: Any, owner: str) -> Any:
    """scipy's ``rng=`` (SPEC 7) beside ``random_state=``: the one given."""
    if rng is not None and random_state is not None:
        raise ValueError(
            f"The 'rng' and 'random_state' parameters of {owner} name the same "
            "seed (rng is scipy's spelling): pass one of them. Got "
            f"rng={rng!r} and random_state={random_state!r}."
        )
    return random_state if rng is None else rng


def is_real(value: Any) -> bool:
    """A real number that is not a bool (ints count)."""
    return isinstance(value, (numbers.Real, np.floating, np.integer)) and not (
        isinstance(value, (bool, np.bool_))
    )


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    min_value: int | None = None,
    max_value: int | None = None,
) -> int:
    """Check that ``value`` is an int (not a bool or float) in ``[min, max]``."""
    if min_value is not None and max_value is not None:
        allowed = f"an int in [{min_value}, {max_value}]"
    elif min_value is not None:
        allowed = f"an int >= {min_value}"
    elif max_value is not None:
        allowed = f"an int <= {max_value}"
    else:
        allowed = "an int"
    if not is_int(value):
        raise param_error(name, owner, allowed, value)
    value = int(value)
    if (min_value is not None and value < min_value) or (
        max_value is not None and value > max_value
    ):
        raise param_error(name, owner, allowed, value)
    return value


def check_n_jobs(value: Any, owner: str) -> int | None:
    """``n_jobs``: None or a nonzero int, as joblib accepts (checked before any
    work; joblib itself would only fail at dispatch, without naming the owner)."""
    if value is None:
        return None
    allowed = (
        "an int other than 0 (or None; negative values count back from the "
        "number of CPUs, -1 meaning all, as in joblib)"
    )
    if not is_int(value) or int(value) == 0:
        raise param_error("n_jobs", owner, allowed, value)
    return int(value)


def check_one_of(value: Any, name: str, owner: str, options: tuple[Any, ...]) -> Any:
    """Check that ``value`` is one of ``options`` (exact spelling, no aliases)."""
    try:
        ok = value in options
    except Exception:  # unhashable or un-comparable: certainly not an option
        ok = False
    if not ok:
        listed = ", ".join(repr(o) for o in options)
        raise param_error(name, owner, f"one of {{{listed}}}", value)
    return value


def n_samples_of(X: Any, name: str = "X", owner: str | None = None) -> int:
    """Number of rows of an array-like (pandas, numpy, list)."""
    if hasattr(X, "shape") and len(getattr(X, "shape", ())) >= 1:
        return int(X.shape[0])
    try:
        return len(X)
    except TypeError as exc:
        of = f" of {owner}" if owner else ""
        raise ValueError(
            f"The '{name}' parameter{of} must be an array-like with a first axis of "
            f"samples. Got {type(X).__name__} instead."
        ) from exc


def check_n_samples(X: Any, owner: str, *, minimum: int = 2) -> int:
    """Number of rows of ``X``, which must be at least ``minimum``."""
    if X is None:
        raise param_error("X", owner, "an array-like of samples", None)
    n = n_samples_of(X, "X", owner)
    if n < minimum:
        raise ValueError(
            f"The 'X' parameter of {owner} must have at least {minimum} samples. "
            f"Got {n} instead."
        )
    return n


def check_consistent_length(values: Any, name: str, owner: str, n_samples: int) -> None:
    """Check that ``values`` (``y`` or ``groups``), when given, has one entry per
    row of ``X``, as scikit-learn's splitters do."""
    if values is None:
        return
    m = n_samples_of(values, name, owner)
    if m != n_samples:
        raise ValueError(
            f"The '{name}' parameter of {owner} must have one entry per sample of X "
            f"({n_samples}). Got {m} instead."
        )


def check_array_1d_labels(
    values: Any, name: str, owner: str, n_samples: int
) -> np.ndarray:
    """Check a label vector (``y`` or ``groups``): 1-D, length n, no NaN/None.

    Returns the integer codes of the labels in sorted order of the unique labels.
    """
    if values is None:
        raise ValueError(
            f"The '{name}' parameter of {owner} is required: pass {name}=... to "
            "split/fit. Got None instead."
        )
    arr = np.asarray(values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"The '{name}' parameter of {owner} must be 1-D with one label per "
            f"sample. Got an array of shape {arr.shape} instead."
        )
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"The '{name}' parameter of {owner} must have one label per sample "
            f"({n_samples}). Got {arr.shape[0]} labels instead."
        )
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(
            f"The '{name}' parameter of {owner} must not contain NaN. "
            f"Got {int(np.isnan(arr).sum())} NaN label(s) instead."
        )
    if arr.dtype.kind == "O":
        missing = sum(
            1 for v in arr if v is None or (isinstance(v, float) and np.isnan(v))
        )
        if missing:
            raise ValueError(
                f"The '{name}' parameter of {owner} must not contain missing "
                f"labels (None/NaN). Got {missing} missing label(s) instead."
            )
    try:
        _, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            f"The '{name}' parameter of {owner} must hold sortable labels of one "
            f"type. Got mixed types instead ({exc})."
        ) from exc
    return codes.reshape(-1).astype(np.int64)


def as_float_array(
    value: Any,
    name: str,
    owner: str,
    *,
    ndim: tuple[int, ...] | None = (1, 2),
    nan: str = "raise",
    min_rows: int = 1,
) -> np.ndarray:
    """The one converter of numeric array inputs: ``value`` (a numpy array, a
    pandas Series/DataFrame, nullable dtypes included, or a nested sequence) as a
    float64 array.

    Bools and ints are accepted; strings, objects that are not numbers, complex
    numbers and ragged sequences are refused.  ``ndim`` lists the allowed numbers
    of dimensions (None: any); ``min_rows`` is the least length of the first axis.  ``nan``
    says what a missing or infinite value does: ``"raise"`` (the count is named),
    ``"allow"`` (passed on; the caller's undefined-value policy decides).
    """
    if value is None:
        raise param_error(name, owner, "an array-like of real numbers", value)
    if type(value).__module__.startswith("pandas"):
        value = _pandas_numeric(value, name, owner)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise value_error(
            name,
            owner,
            "must be an array-like of real numbers. Got a "
            f"{type(value).__name__} that cannot be converted to an array instead.",
        ) from exc
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise value_error(
                name,
                owner,
                "must contain real numbers. Got non-numeric objects instead.",
            ) from exc
    elif arr.dtype.kind not in "biuf":
        raise value_error(
            name, owner, f"must contain real numbers. Got dtype {arr.dtype} instead."
        )
    arr = arr.astype(np.float64, copy=False)
    if ndim is not None and arr.ndim not in ndim:
        allowed = " or ".join(f"{d}-D" for d in ndim)
        raise value_error(
            name,
            owner,
            f"must be {allowed}. Got an array of shape {arr.shape} instead.",
        )
    if arr.ndim and arr.shape[0] < min_rows:
        raise value_error(
            name,
            owner,
            f"must have at least {min_rows} row(s). Got {arr.shape[0]} instead.",
        )
    if nan == "raise":
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        if bad:
            raise value_error(
                name,
                owner,
                f"must contain only finite values. Got {bad} NaN or infinite "
                "value(s) instead.",
            )
    return arr


def _pandas_numeric(value: Any, name: str, owner: str) -> Any:
    """A pandas Series/DataFrame as a float64 array, missing values as NaN; the
    first non-numeric column is named."""
    import pandas as pd

    columns = value.items() if isinstance(value, pd.DataFrame) else [(None, value)]
    for col_name, col in columns:
        dtype = col.dtype
        if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(
            dtype
        ):
            where = "" if col_name is None else f" in column {col_name!r}"
            raise value_error(
                name,
                owner,
                f"must contain real numbers. Got dtype {dtype}{where} instead.",
            )
    return value.to_numpy(dtype=np.float64, na_value=np.nan)


def check_sample_weight(
    sample_weight: Any, n: int, owner: str, rows_of: str = "y_true"
) -> np.ndarray:
    """``sample_weight``: a 1-d array of one finite, non-negative weight per row
    with a positive sum, as contiguous float64."""
    arr = np.asarray(sample_weight)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"The 'sample_weight' parameter of {owner} must be a 1-d array with one "
            f"weight per row of {rows_of} ({n}). Got shape {arr.shape} instead."
        )
    if arr.dtype.kind not in "biuf":
        raise param_error("sample_weight", owner, "an array of real numbers", arr.dtype)
    sw = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(sw).all() or (sw < 0).any() or sw.sum() <= 0:
        raise ValueError(
            f"The 'sample_weight' parameter of {owner} must hold finite, "
            "non-negative weights with a positive sum. Got minimum "
            f"{float(np.nanmin(sw))!r} and sum {float(sw.sum())!r} instead."
        )
    return sw


# ---------------------------------------------------------------------------
# constraint tables
# ---------------------------------------------------------------------------
class Constraint:
    """One allowed kind of value: ``accepts(value)`` and a description."""

    description: str = ""

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def normalize(self, value: Any) -> Any:
        """The value passed on once accepted (e.g. a lowercase option)."""
        return value

    def __str__(self) -> str:
        return self.description


@dataclass(frozen=True)
class Interval(Constraint):
    """An int (``kind="int"``) or real (``kind="real"``) in a range.

    ``closed`` says which ends belong to it: "both", "left", "right", "neither".
    """

    kind: str
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    high_text: str | None = None  # e.g. "2**32 - 1" instead of 4294967295

    def accepts(self, value: Any) -> bool:
        if not (is_int(value) if self.kind == "int" else is_real(value)):
            return False
        if self.kind == "real" and not np.isfinite(value):
            return False
        lo_ok = (
            self.low is None
            or value > self.low
            or (value == self.low and self.closed in ("both", "left"))
        )
        hi_ok = (
            self.high is None
            or value < self.high
            or (value == self.high and self.closed in ("both", "right"))
        )
        return bool(lo_ok and hi_ok)

    def normalize(self, value: Any) -> Any:
        return int(value) if self.kind == "int" else float(value)

    @property
    def description(self) -> str:  # type: ignore[override]
        what = "an int" if self.kind == "int" else "a float"
        hi = self.high_text or (None if self.high is None else f"{self.high:g}")
        lo = None if self.low is None else f"{self.low:g}"
        if lo is not None and hi is not None:
            left = "[" if self.closed in ("both", "left") else "("
            right = "]" if self.closed in ("both", "right") else ")"
            return f"{what} in {left}{lo}, {hi}{right}"
        if lo is not None:
            return f"{what} {'>=' if self.closed in ('both', 'left') else '>'} {lo}"
        if hi is not None:
            return f"{what} {'<=' if self.closed in ('both', 'right') else '<'} {hi}"
        return what


@dataclass(frozen=True)
class Options(Constraint):
    """One of a fixed set of strings; ``case_insensitive`` accepts "BCa" for
    "bca" and passes the lowercase spelling on."""

    options: tuple[str, ...]
    case_insensitive: bool = False

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        if self.case_insensitive:
            value = value.lower()
        return value in self.options

    def normalize(self, value: Any) -> Any:
        return value.lower() if self.case_insensitive else value

    @property
    def description(self) -> str:  # type: ignore[override]
        return "one of {" + ", ".join(repr(o) for o in self.options) + "}"


@dataclass(frozen=True)
class Predicate(Constraint):
    """Any test with its description: ``Predicate(callable, "a callable")``."""

    test: Callable[[Any], bool]
    text: str

    def accepts(self, value: Any) -> bool:
        try:
            return bool(self.test(value))
        except Exception:  # a value the test cannot even look at is not allowed
            return False

    @property
    def description(self) -> str:  # type: ignore[override]
        return self.text


NONE = Predicate(lambda v: v is None, "None")
BOOL = Predicate(lambda v: isinstance(v, (bool, np.bool_)), "True or False")
CALLABLE = Predicate(callable, "a callable")
DICT = Predicate(lambda v: isinstance(v, dict), "a dict")
N_JOBS = Predicate(
    lambda v: is_int(v) and int(v) != 0,
    "an int other than 0 (negative values count back from the number of CPUs, "
    "-1 meaning all, as in joblib)",
)


#: The replicate count: replicate ``b`` reads the stream at a 32-bit counter.
N_RESAMPLES = Interval("int", 1, 2**32 - 1, high_text="2**32 - 1")
#: A confidence level.
LEVEL = Interval("real", 0.0, 1.0, closed="neither")
#: The sides of a test or an interval (scipy's spelling): both, or the upper
#: (``"less"``) or lower (``"greater"``) tail.
ALTERNATIVES = ("two-sided", "less", "greater")
ALTERNATIVE = Options(ALTERNATIVES)
#: ``vectorized``: True, False or None (decide by the callable's signature).
VECTORIZED: list[Constraint] = [BOOL, NONE]


def _describe(constraints: Iterable[Constraint]) -> str:
    texts = [str(c) for c in constraints]
    if len(texts) == 1:
        return texts[0]
    return ", ".join(texts[:-1]) + " or " + texts[-1]


def validate_params(
    owner: str, table: Mapping[str, list[Constraint]], **values: Any
) -> dict[str, Any]:
    """Check every value against its constraints; returns the normalized values.

    Raises the standard :func:`param_error` for the first parameter (in table
    order) that satisfies none of its constraints.
    """
    out: dict[str, Any] = {}
    for name, constraints in table.items():
        if name not in values:
            continue
        value = values[name]
        for c in constraints:
            if c.accepts(value):
                out[name] = c.normalize(value)
                break
        else:
            raise param_error(name, owner, _describe(constraints), value)
    return out
