"""The interval objects: :class:`ConfidenceInterval` (what users get) and
:class:`IntervalEndpoints` (what an interval method returns)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray

from skboot._resultfile import labelled_from_file, labelled_to_file
from skboot._results import Result
from skboot._validation import param_error, value_error

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Alternative",
    "ConfidenceInterval",
    "FloatArray",
    "FloatOrArray",
    "IntervalEndpoints",
    "output_index",
]

FloatArray: TypeAlias = NDArray[np.float64]
FloatOrArray: TypeAlias = "float | FloatArray"
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]


@dataclass(frozen=True, eq=False, repr=False)
class ConfidenceInterval(Result):
    """Endpoints of a confidence interval, with what produced them.

    ``low, high = ci``, ``ci[0]`` and ``np.asarray(ci)`` read the endpoints as
    the pair ``(low, high)``, as for scipy's ``ConfidenceInterval``.  The other attributes record the estimate, standard
    error and method; they are None when unknown (an interval built from two
    numbers; all but ``low`` and ``high`` are keyword-only arguments).
    Equality compares every attribute (arrays element by element); intervals
    are not hashable.

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
    n_inner : int or None
        For "calibrated" and "calibrated_basic": the inner replicates drawn from
        each replicate by the double bootstrap; None for the other methods.
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
    >>> low, high = ci
    >>> ci.method, ci.level
    ('percentile', 0.95)
    >>> print(ci.to_frame().round(3))
          estimate  standard_error    low   high
    mean     0.081           0.097 -0.105  0.259
    """

    low: FloatOrArray
    high: FloatOrArray
    _: KW_ONLY
    # repr: the interval, its method and level (to_frame shows everything)
    estimate: FloatOrArray | pd.Series | None = field(default=None, repr=False)
    standard_error: FloatOrArray | pd.Series | None = field(default=None, repr=False)
    method: str | None = None
    level: float | None = None
    alternative: str | None = field(default=None, repr=False)
    jackknife_groups: int | None = field(default=None, repr=False)
    n_inner: int | None = field(default=None, repr=False)
    name: Hashable | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for key in ("low", "high"):
            value = getattr(self, key)
            if not _real_values(value):
                raise param_error(
                    key,
                    "ConfidenceInterval",
                    "a real number or an array-like (ndarray, Series, DataFrame) "
                    "of real numbers",
                    value,
                )
        if np.shape(self.high) != np.shape(self.low):
            raise value_error(
                "high",
                "ConfidenceInterval",
                f"must have the shape of 'low', {np.shape(self.low)}. Got shape "
                f"{np.shape(self.high)} instead.",
            )

    # the pair (low, high), as scipy's ConfidenceInterval: unpacking, indexing
    # and numpy conversion (equality compares intervals, not tuples)
    def __iter__(self) -> Iterator[Any]:
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> Any:
        return (self.low, self.high)[index]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray([np.asarray(self.low), np.asarray(self.high)], dtype=dtype)

    def _file_fields(self) -> dict[str, Any]:
        """The fields, pandas endpoints and estimates as arrays with their
        labels in ``labels``."""
        out = super()._file_fields()
        labels = {}
        for key in _LABELLED:
            out[key], labels[key] = labelled_to_file(out[key])
        out["labels"] = {k: v for k, v in labels.items() if v is not None}
        return out

    @classmethod
    def _from_file_fields(cls, fields: dict[str, Any], where: Any) -> Any:
        fields = dict(fields)
        # files written before intervals recorded the double bootstrap's size
        fields.setdefault("n_inner", None)
        labels = fields.pop("labels", None)
        if not isinstance(labels, dict) or not set(labels) <= set(_LABELLED):
            raise where.must(
                "labels", f"an object whose keys are some of {list(_LABELLED)}", labels
            )
        for key, value in labels.items():
            fields[key] = labelled_from_file(fields.get(key), value, key, where)
        return super()._from_file_fields(fields, where)

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
        index = output_index(low, self.name if self.name is not None else 0)
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

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the interval: one error bar per output, from ``low`` to ``high``.

        The marker sits at the estimate when it is known (else at the middle);
        the open side of a one-sided interval is drawn to past the other
        values.  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; None makes a new figure.
        **kwargs : dict
            Passed to :meth:`matplotlib.axes.Axes.errorbar` (``color``,
            ``capsize``, ...).

        Returns
        -------
        matplotlib Axes
            The Axes drawn on, one tick per output (labelled as the rows of
            :meth:`to_frame`).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from skboot import ConfidenceInterval
        >>> ci = ConfidenceInterval(np.array([0.0, 1.0]), np.array([2.0, 3.0]))
        >>> ax = ci.plot()
        >>> [t.get_text() for t in ax.get_xticklabels()]
        ['0', '1']
        """
        from skboot.intervals._plot import plot_interval

        return plot_interval(self, ax=ax, **kwargs)


#: The fields that may hold pandas objects.
_LABELLED = ("low", "high", "estimate", "standard_error")


def output_index(values: Any, name: Hashable) -> Any:
    """The row labels of one output per row: ``name`` for a scalar, a Series'
    index, the (row, column label) pairs of a DataFrame, the positions of an
    array (index tuples, C order, for two or more axes)."""
    import pandas as pd

    shape = np.shape(values)
    if len(shape) == 0:
        return pd.Index([name])
    if isinstance(values, pd.Series):
        return values.index
    if isinstance(values, pd.DataFrame):  # a statistic of two axes
        return pd.MultiIndex.from_product([range(shape[0]), values.columns])
    if len(shape) >= 2:  # one row per element, labelled by its position
        return pd.MultiIndex.from_tuples(list(np.ndindex(shape)))
    return pd.RangeIndex(np.size(values))


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
