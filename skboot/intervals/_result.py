"""The interval objects: :class:`ConfidenceInterval` (what users get) and
:class:`IntervalEndpoints` (what an interval method returns)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

import numpy as np
from numpy.typing import NDArray

from skboot._validation import param_error, value_error

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Alternative",
    "ConfidenceInterval",
    "FloatArray",
    "FloatOrArray",
    "IntervalEndpoints",
]

FloatArray: TypeAlias = NDArray[np.float64]
FloatOrArray: TypeAlias = "float | FloatArray"
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]


class _Endpoints(NamedTuple):
    low: FloatOrArray
    high: FloatOrArray


class ConfidenceInterval(_Endpoints):
    """Endpoints of a confidence interval, with what produced them.

    A 2-tuple ``(low, high)``: ``low, high = ci`` and ``ci.low`` work as for
    scipy's ``ConfidenceInterval`` NamedTuple, and equality compares the two
    endpoints only.  The other attributes record the estimate, standard error
    and method; they are None when unknown (an interval built from two numbers).

    Attributes
    ----------
    low, high : float, ndarray of shape (k,) or pandas.Series
        Lower and upper endpoints; ``-inf`` or ``inf`` on the open side of a
        one-sided interval.  A Series, indexed by the data's column labels, when
        the statistic was computed column-wise on a DataFrame.
    estimate : float, ndarray or pandas.Series, or None
        The statistic on the original data.
    standard_error : float, ndarray or pandas.Series, or None
        The bootstrap standard error (standard deviation of the distribution).
    method : str or None
        The interval method, in lowercase.
    level : float or None
        The confidence level.
    alternative : str or None
        "two-sided", "less" or "greater".
    jackknife_groups : int or None
        For "bca": the number ``G`` of seeded random groups of the delete-a-group
        jackknife that gave the acceleration, chosen by the caller or by the
        automatic rule of :meth:`skboot.BootstrapResult.confidence_interval`;
        None when the acceleration came from the leave-one-out jackknife (or the
        resampler's own delete-one-group / delete-one-block jackknife), or the
        method needs no jackknife.
    name : str or None
        Row label of a scalar interval in :meth:`to_frame` (the Series name or
        the statistic's name).

    See Also
    --------
    skboot.BootstrapResult.confidence_interval : Builds the interval from a
        bootstrap distribution.
    skboot.intervals.percentile_interval : The percentile endpoints from an array
        of replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> x = np.random.default_rng(0).normal(size=100)
    >>> ci = bootstrap(x, "mean", n_resamples=999, random_state=0).confidence_interval(
    ...     method="percentile")
    >>> round(ci.low, 3), round(ci.high, 3)
    (-0.105, 0.259)
    >>> low, high = ci  # a NamedTuple
    >>> ci.method, ci.level
    ('percentile', 0.95)
    >>> print(ci.to_frame().round(3))
          estimate  standard_error    low   high
    mean     0.081           0.097 -0.105  0.259
    """

    estimate: FloatOrArray | pd.Series | None = None
    standard_error: FloatOrArray | pd.Series | None = None
    method: str | None = None
    level: float | None = None
    alternative: str | None = None
    jackknife_groups: int | None = None
    name: Hashable | None = None

    def __new__(
        cls,
        low: FloatOrArray,
        high: FloatOrArray,
        *,
        estimate: FloatOrArray | pd.Series | None = None,
        standard_error: FloatOrArray | pd.Series | None = None,
        method: str | None = None,
        level: float | None = None,
        alternative: str | None = None,
        jackknife_groups: int | None = None,
        name: Hashable | None = None,
    ) -> ConfidenceInterval:
        for key, value in (("low", low), ("high", high)):
            if not _real_values(value):
                raise param_error(
                    key,
                    "ConfidenceInterval",
                    "a real number or an array-like (ndarray, Series, DataFrame) "
                    "of real numbers",
                    value,
                )
        if np.shape(high) != np.shape(low):
            raise value_error(
                "high",
                "ConfidenceInterval",
                f"must have the shape of 'low', {np.shape(low)}. Got shape "
                f"{np.shape(high)} instead.",
            )
        self = super().__new__(cls, low, high)
        extra = {
            "estimate": estimate,
            "standard_error": standard_error,
            "method": method,
            "level": level,
            "alternative": alternative,
            "jackknife_groups": jackknife_groups,
            "name": name,
        }
        # a tuple subclass keeps extra attributes in its instance __dict__
        self.__dict__.update({k: v for k, v in extra.items() if v is not None})
        return self

    def to_frame(self) -> pd.DataFrame:
        """The interval as a pandas DataFrame, one row per output.

        Rows are labelled as the result's outputs (the data's column labels,
        duplicates kept; positions ``0 .. k-1`` for an unlabelled vector; the
        Series or statistic name for a scalar).  Endpoints of two or more axes
        (a statistic that keeps its shape, such as a multiclass ``coef_``) give
        one row per element, in C order, labelled by its position (a
        MultiIndex; the row position and the column label for a DataFrame).  Columns: ``estimate`` and
        ``standard_error`` when known, then ``low`` and ``high``.  ``method``,
        ``level`` and ``alternative`` are in ``DataFrame.attrs``.

        Returns
        -------
        pandas.DataFrame
            One row per output, the endpoints and what is known of the estimate.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot.intervals import ConfidenceInterval
        >>> ConfidenceInterval(np.array([0.0, 1.0]), np.array([2.0, 3.0])).to_frame()
           low  high
        0  0.0   2.0
        1  1.0   3.0
        """
        import pandas as pd

        low = self.low
        shape = np.shape(low)
        if len(shape) == 0:
            index: Any = pd.Index([self.name if self.name is not None else 0])
        elif isinstance(low, pd.Series):
            index = low.index
        elif isinstance(low, pd.DataFrame):  # a statistic of two axes
            index = pd.MultiIndex.from_product([range(shape[0]), low.columns])
        elif len(shape) >= 2:  # one row per element, labelled by its position
            index = pd.MultiIndex.from_tuples(list(np.ndindex(shape)))
        else:
            index = pd.RangeIndex(np.size(low))
        columns: dict[str, Any] = {}
        for key, value in (
            ("estimate", self.estimate),
            ("standard_error", self.standard_error),
            ("low", self.low),
            ("high", self.high),
        ):
            if value is None:
                continue
            # positional values: duplicate labels must not trigger alignment
            try:
                values = np.asarray(value, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                values = None
            if values is None or values.shape[0] != len(index):
                raise value_error(
                    key,
                    "ConfidenceInterval",
                    f"must hold one real number per endpoint ({len(index)}, shape "
                    f"{shape}) to be tabulated by to_frame. Got {value!r} instead.",
                )
            columns[key] = values
        frame = pd.DataFrame(columns, index=index)
        frame.attrs.update(
            {
                k: v
                for k, v in (
                    ("method", self.method),
                    ("level", self.level),
                    ("alternative", self.alternative),
                )
                if v is not None
            }
        )
        return frame

    def __repr__(self) -> str:
        if np.ndim(self.low) == 0 and np.ndim(self.high) == 0:
            return f"ConfidenceInterval(low={self.low!r}, high={self.high!r})"
        # per-column endpoints: one table rather than two stacked Series
        what = ", ".join(
            f"{key}={value!r}"
            for key, value in (
                ("level", self.level),
                ("method", self.method),
                ("alternative", self.alternative),
            )
            if value is not None
        )
        head = f"ConfidenceInterval({what})"
        return f"{head}\n{self.to_frame().to_string()}"

    __str__ = __repr__


def _real_values(value: Any) -> bool:
    """A real number, or an array-like of them (bools and text refused)."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        return False
    try:
        kinds = {np.asarray(value).dtype.kind}
    except Exception:  # numpy cannot even look at it: not numbers
        return False
    if hasattr(value, "columns") and hasattr(value, "dtypes"):  # a DataFrame
        kinds = {getattr(d, "kind", "O") for d in value.dtypes}
    return kinds <= set("iuf")


@dataclass(frozen=True, eq=False)
class IntervalEndpoints:
    """Output of an interval method: endpoints plus what was used to get them.

    Attributes
    ----------
    low, high : float or ndarray of shape (k,)
        The interval endpoints (``-inf``/``inf`` on the open side of a one-sided
        interval, NaN where the method is undefined, see the module notes).
    levels : tuple of (float or ndarray of shape (k,))
        ``(level_low, level_high)``: the probability level of the reference
        distribution read for the low and for the high endpoint. For percentile,
        BC and BCa these are levels of the bootstrap distribution; for basic and
        studentized, levels of the bootstrap (resp. bootstrap-t) distribution that
        are reflected, so ``level_low > level_high``; for normal, levels of the
        standard normal. NaN for the open side of a one-sided interval.
    diagnostics : dict
        Method-specific intermediate values, for testing and reporting
        (``z0``, ``a_hat``, ``standard_error``, ...).
    """

    low: FloatOrArray
    high: FloatOrArray
    levels: tuple[FloatOrArray, FloatOrArray]
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def confidence_interval(self) -> ConfidenceInterval:
        """The endpoints as a :class:`ConfidenceInterval` ``(low, high)``."""
        return ConfidenceInterval(self.low, self.high)
