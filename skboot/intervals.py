"""Bootstrap confidence intervals, one pure function per method.

Every method takes a bootstrap distribution that has already been computed (the
statistic evaluated on ``B`` resamples) and returns an :class:`IntervalEndpoints`
holding the endpoints, the quantile levels that were read and the intermediate
quantities (``z0``, ``a_hat``, ...) so they can be tested. Nothing here draws
random numbers, caches anything or depends on how the distribution was produced.
The cost of every method is one sort of each column, O(B log B) per column, and
O(B * k) memory.

Shapes
------
``distribution`` is an array of shape ``(B,)`` for a scalar statistic or
``(B, k)`` for a statistic with ``k`` components, one replicate per row.
``estimate`` (the statistic on the original sample) is then a float or an array of
shape ``(k,)``. Endpoints are returned as floats for ``(B,)`` input and as arrays
of shape ``(k,)`` for ``(B, k)`` input. Columns are treated independently.

Conventions
-----------
These follow :func:`scipy.stats.bootstrap` wherever scipy has the method
(percentile, basic, BCa), so that, given the same bootstrap distribution, the
endpoints agree with scipy's to rounding error; the tests check this, and also
compare against ``arch.bootstrap.IIDBootstrap.conf_int`` (arch 8.0).

* ``alpha = (1 - level) / 2`` for a two-sided interval and ``alpha = 1 - level``
  for a one-sided one.
* ``alternative="less"`` gives ``(-inf, high)`` where ``high`` is the upper
  endpoint of the two-sided interval at level ``2 * level - 1``, that is the upper
  confidence bound at ``level``; ``alternative="greater"`` gives ``(low, inf)``.
  (arch calls these ``tail="upper"`` and ``tail="lower"``.)
* Quantiles of the bootstrap distribution use linear interpolation between order
  statistics, type 7 of Hyndman & Fan (1996): the ``p``-quantile of ``B`` sorted
  values is read at position ``h = (B - 1) * p``. This is the default of
  :func:`numpy.quantile`, :func:`numpy.percentile` (used by arch) and
  :func:`scipy.stats.quantile` (used by scipy), so all three libraries agree.
* The BCa/BC bias correction counts replicates tied with the estimate as one half
  (the "mean" kind of :func:`scipy.stats.percentileofscore`, which scipy uses):
  ``z0 = Phi^-1((#{theta*_b < theta_hat} + #{theta*_b <= theta_hat}) / (2 B))``.
  Efron & Tibshirani (1993, eq. 14.14) and arch count only ``theta*_b <
  theta_hat``; the two agree whenever no replicate equals the estimate, which is
  the usual case for continuous statistics. For discrete statistics (medians,
  quantiles, proportions) many replicates equal the estimate and the mid-rank
  count is the one that gives ``z0 = 0`` for a symmetric distribution.
* The normal interval is centred on the estimate, ``theta_hat -/+ z * se``, as in
  arch's ``method="norm"`` and the standard interval of Efron & Tibshirani; it does
  not subtract the bootstrap bias (Davison & Hinkley's section 5.2.1 does). ``se`` is the
  standard deviation of the bootstrap distribution with the ``B - 1`` divisor
  (``ddof=1``) of Efron & Tibshirani eq. 6.6, the one ``BootstrapResult.
  standard_error`` and ``scipy.stats.bootstrap(...).standard_error`` use, so the
  interval is ``estimate -/+ z * result.standard_error``.  arch's
  ``method="norm"`` divides by ``B`` (``ddof=0``); pass ``ddof=0`` to reproduce
  it (the two differ by the factor ``sqrt(B / (B - 1))``).
* The acceleration is computed from leave-one-out values of the statistic as
  ``a_hat = sum(d**3) / (6 * sum(d**2) ** 1.5)`` with ``d = mean(jk) - jk`` per
  column (Efron & Tibshirani eq. 14.15). arch 8.0 centres a multi-column jackknife
  on the mean of all columns together, so its BCa differs from this (and from
  scipy) when ``k > 1``.

Degenerate-case policy
----------------------
Invalid input raises :class:`ValueError` whose message names the parameter, the
allowed values and what was given. In particular a non-finite value (NaN or
infinity) in ``distribution`` is an error that says how many replicates are
affected: it means the statistic failed on some resamples, which the caller must
handle (drop, or report), not the interval method.

Degenerate but valid input emits
:class:`~skboot._exceptions.DegenerateDistributionWarning` naming the method, the
column(s) and the reason, and returns endpoints by this rule:

* **Zero spread** (all replicates of a column equal ``v``): every method warns.
  The percentile interval is the single point ``[v, v]``, the basic interval the
  point ``[2 theta_hat - v, 2 theta_hat - v]``, the normal interval ``[theta_hat,
  theta_hat]`` (``se = 0``). BC/BCa give ``[v, v]`` when ``theta_hat == v`` and
  otherwise fall under the next rule.
* **Infinite bias correction** (BC/BCa: the estimate lies below every replicate,
  ``z0 = -inf``, or above every replicate, ``z0 = +inf``): the quantile levels and
  both endpoints of that column are NaN. (With ``a = 0`` the formula would return
  the extreme replicate, which is not a confidence bound.)
* **Constant jackknife** (all leave-one-out values of a column equal, so the
  acceleration is 0/0): ``a_hat = 0`` is used for that column, i.e. the BC interval.
* **Studentized**: replicates whose standard error is zero or non-finite have no
  bootstrap-t value; they are left out of that column's bootstrap-t distribution
  (the warning says how many). If every replicate of a column is left out, or the
  original ``standard_error`` is non-finite, the column's endpoints are NaN. If the
  original ``standard_error`` is zero the interval is the point ``[theta_hat,
  theta_hat]``. Negative standard errors are invalid input (``ValueError``).

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*.
   Chapman & Hall/CRC.
.. [2] DiCiccio, T. J. and Efron, B. (1996). Bootstrap confidence intervals.
   *Statistical Science* 11(3), 189-228.
.. [3] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their
   Application*. Cambridge University Press.
.. [4] Hyndman, R. J. and Fan, Y. (1996). Sample quantiles in statistical
   packages. *The American Statistician* 50(4), 361-365.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeAlias, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri

from skboot._exceptions import DegenerateDistributionWarning

__all__ = [
    "ConfidenceInterval",
    "IntervalEndpoints",
    "basic_interval",
    "bc_interval",
    "bca_interval",
    "bias_correction",
    "interval_by_method",
    "jackknife_acceleration",
    "normal_interval",
    "percentile_interval",
    "studentized_interval",
]

FloatArray: TypeAlias = NDArray[np.float64]
FloatOrArray: TypeAlias = "float | FloatArray"
Alternative: TypeAlias = Literal["two-sided", "less", "greater"]

_ALTERNATIVES = ("two-sided", "less", "greater")


#: The interval methods, in their one (lowercase) spelling.
METHODS = ("percentile", "basic", "normal", "bc", "bca", "studentized")


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

    estimate: Any = None
    standard_error: Any = None
    method: str | None = None
    level: float | None = None
    alternative: str | None = None
    jackknife_groups: int | None = None
    name: Any = None

    def __new__(
        cls,
        low: FloatOrArray,
        high: FloatOrArray,
        *,
        estimate: Any = None,
        standard_error: Any = None,
        method: str | None = None,
        level: float | None = None,
        alternative: str | None = None,
        jackknife_groups: int | None = None,
        name: Any = None,
    ) -> ConfidenceInterval:
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

    def to_frame(self) -> Any:
        """The interval as a pandas DataFrame, one row per output.

        Rows are labelled as the result's outputs (the data's column labels,
        duplicates kept; positions ``0 .. k-1`` for an unlabelled vector; the
        Series or statistic name for a scalar).  Columns: ``estimate`` and
        ``standard_error`` when known, then ``low`` and ``high``.  ``method``,
        ``level`` and ``alternative`` are in ``DataFrame.attrs``.

        Returns
        -------
        pandas.DataFrame

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
        if np.ndim(low) == 0:
            index: Any = pd.Index([self.name if self.name is not None else 0])
        elif isinstance(low, pd.Series):
            index = low.index
        else:
            index = pd.RangeIndex(np.size(low))
        columns: dict[str, Any] = {}
        for key, value in (
            ("estimate", self.estimate),
            ("standard_error", self.standard_error),
            ("low", self.low),
            ("high", self.high),
        ):
            if value is not None:
                # positional values: duplicate labels must not trigger alignment
                columns[key] = np.atleast_1d(np.asarray(value, dtype=float))
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


# --------------------------------------------------------------------------------
# validation


def _show(value: Any) -> str:
    """Short repr of a user value for error messages."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_level(level: Any) -> float:
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, numbers.Real)
        or not 0.0 < float(level) < 1.0
    ):
        raise ValueError(
            "The 'level' parameter must be a float in the open interval (0, 1). "
            f"Got {_show(level)} instead."
        )
    return float(level)


def _check_alternative(alternative: Any) -> Alternative:
    if not isinstance(alternative, str) or alternative not in _ALTERNATIVES:
        raise ValueError(
            "The 'alternative' parameter must be one of 'two-sided', 'less' or "
            f"'greater'. Got {_show(alternative)} instead."
        )
    return cast("Alternative", alternative)


def _check_method(
    method: Any, owner: str | None = None, methods: tuple[str, ...] = METHODS
) -> str:
    """``method`` in lowercase (any letter case is accepted: scipy spells "BCa");
    otherwise a ValueError listing the lowercase names."""
    value = method.lower() if isinstance(method, str) else None
    if value not in methods:
        of = f" of {owner}" if owner else ""
        listed = ", ".join(repr(m) for m in methods)
        raise ValueError(
            f"The 'method' parameter{of} must be one of {{{listed}}}. "
            f"Got {_show(method)} instead."
        )
    return value


def _numeric_array(value: Any, name: str) -> FloatArray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # e.g. ragged nested sequences
        arr = np.asarray(None)
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"The '{name}' parameter must be a real numeric array. Got an object "
            f"of type {type(value).__name__} with dtype {arr.dtype} instead."
        )
    return arr.astype(np.float64, copy=False)


def _check_distribution(distribution: Any) -> tuple[FloatArray, bool]:
    """Return the distribution as a (B, k) float array and whether it was 2-D."""
    theta = _numeric_array(distribution, "distribution")
    if theta.ndim not in (1, 2) or 0 in theta.shape:
        raise ValueError(
            "The 'distribution' parameter must be an array of shape (B,) or (B, k) "
            f"with B >= 1 and k >= 1. Got shape {theta.shape} instead."
        )
    vector = theta.ndim == 2
    theta2 = theta if vector else theta[:, np.newaxis]
    bad = ~np.isfinite(theta2).all(axis=1)
    if bad.any():
        raise ValueError(
            "The 'distribution' parameter must contain only finite values. Got "
            f"{int(bad.sum())} non-finite replicate(s) out of {theta2.shape[0]} "
            "instead."
        )
    return theta2, vector


def _per_column(value: Any, name: str, k: int, vector: bool) -> FloatArray:
    """A float (1-D distribution) or a (k,) array (2-D distribution), as (k,)."""
    arr = _numeric_array(value, name)
    expected = (k,) if vector else ()
    if arr.shape != expected:
        want = (
            f"an array of shape ({k},), one value per column of the (B, {k}) "
            "distribution"
            if vector
            else "a float, as the distribution has shape (B,)"
        )
        raise ValueError(
            f"The '{name}' parameter must be {want}. Got shape {arr.shape} instead."
        )
    return arr.reshape(k)


def _check_estimate(estimate: Any, k: int, vector: bool) -> FloatArray:
    est = _per_column(estimate, "estimate", k, vector)
    n_bad = int((~np.isfinite(est)).sum())
    if n_bad:
        raise ValueError(
            "The 'estimate' parameter must be finite. Got "
            f"{n_bad} non-finite value(s) instead."
        )
    return est


def _check_jackknife(
    jackknife_values: Any, k: int | None, vector: bool | None
) -> tuple[FloatArray, bool]:
    """Return jackknife values as (n, k) and whether they were 2-D.

    ``k``/``vector`` are None when there is no distribution to match.
    """
    jk = _numeric_array(jackknife_values, "jackknife_values")
    if k is None:
        ok = jk.ndim in (1, 2) and 0 not in jk.shape
        want = "(n,) or (n, k) with n >= 1"
    elif vector:
        ok = jk.ndim == 2 and jk.shape[1] == k and jk.shape[0] >= 1
        want = f"(n, {k}) with n >= 1, matching the (B, {k}) distribution"
    else:
        ok = jk.ndim == 1 and jk.shape[0] >= 1
        want = "(n,) with n >= 1, matching the (B,) distribution"
    if not ok:
        raise ValueError(
            f"The 'jackknife_values' parameter must be an array of shape {want}. "
            f"Got shape {jk.shape} instead."
        )
    jk2 = jk if jk.ndim == 2 else jk[:, np.newaxis]
    bad = ~np.isfinite(jk2).all(axis=1)
    if bad.any():
        raise ValueError(
            "The 'jackknife_values' parameter must contain only finite values. Got "
            f"{int(bad.sum())} non-finite leave-one-out value(s) out of "
            f"{jk2.shape[0]} instead."
        )
    return jk2, jk.ndim == 2


def _alpha(level: float, alternative: str) -> float:
    return (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level


# --------------------------------------------------------------------------------
# shared computations


def _warn(
    method: str,
    mask: NDArray[np.bool_],
    vector: bool,
    what: str,
    reason: str,
    depth: int = 0,
) -> None:
    """Emit one DegenerateDistributionWarning for the columns flagged in mask.

    ``depth`` is the number of private frames between the public function and
    this one, so that the warning points at the caller of the public function.
    """
    cols = np.flatnonzero(mask)
    if cols.size == 0:
        return
    if not vector:
        where = f"'{what}'"
    elif cols.size == 1:
        where = f"column {int(cols[0])} of '{what}'"
    else:
        where = f"columns {cols.tolist()} of '{what}'"
    warnings.warn(
        f"{method}: {where}: {reason}",
        DegenerateDistributionWarning,
        stacklevel=3 + depth,
    )


def _warn_zero_spread(
    method: str, theta: FloatArray, vector: bool, consequence: str, depth: int = 0
) -> None:
    flat = theta.max(axis=0) == theta.min(axis=0)
    _warn(
        method,
        flat,
        vector,
        "distribution",
        f"zero spread (all replicates are equal); {consequence}.",
        depth + 1,
    )


def _sorted_quantile(
    ordered: FloatArray, p: FloatArray, n_valid: NDArray[np.intp] | None = None
) -> FloatArray:
    """Type-7 quantile of each column of a column-sorted (B, k) array.

    ``p`` has shape (k,) with values in [0, 1] or NaN (giving NaN). When
    ``n_valid`` is given, only the first ``n_valid[j]`` rows of column j count
    (invalid entries are NaN and sort last); a column with none gives NaN.
    """
    n_rows, k = ordered.shape
    count = np.full(k, n_rows, dtype=np.intp) if n_valid is None else n_valid
    out = np.full(k, np.nan)
    cols = np.flatnonzero(np.isfinite(p) & (count > 0))
    position = (count[cols] - 1) * p[cols]
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, count[cols] - 1)
    weight = position - below
    lower = ordered[below, cols]
    out[cols] = lower + weight * (ordered[above, cols] - lower)
    return out


def _z0(theta: FloatArray, est: FloatArray) -> FloatArray:
    """Bias correction with ties counted one half (scipy's convention)."""
    n_rep = theta.shape[0]
    count = np.count_nonzero(theta < est, axis=0) + np.count_nonzero(
        theta <= est, axis=0
    )
    return np.asarray(ndtri(count / (2 * n_rep)), dtype=np.float64)


def _acceleration(jk: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Per-column acceleration (E&T eq. 14.15) and the mask of 0/0 columns."""
    constant = jk.max(axis=0) == jk.min(axis=0)
    dev = jk.mean(axis=0) - jk
    num = np.sum(dev**3, axis=0)
    den = 6.0 * np.sum(dev**2, axis=0) ** 1.5
    # A constant column is 0/0 in exact arithmetic, but its floating-point mean
    # can differ from the values by an ulp, which would give |a| = 1/(6 sqrt(n)).
    a_hat = np.divide(num, den, out=np.zeros_like(num), where=~constant)
    return a_hat, constant


def _out(values: FloatArray, vector: bool) -> FloatOrArray:
    return values if vector else float(values[0])


def _finish(
    low: FloatArray,
    high: FloatArray,
    level_low: FloatArray,
    level_high: FloatArray,
    alternative: str,
    vector: bool,
    diagnostics: dict[str, Any],
) -> IntervalEndpoints:
    """Open the unused side of a one-sided interval and shape the output."""
    if alternative == "less":
        low = np.full_like(low, -np.inf)
        level_low = np.full_like(level_low, np.nan)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
        level_high = np.full_like(level_high, np.nan)
    return IntervalEndpoints(
        low=_out(low, vector),
        high=_out(high, vector),
        levels=(_out(level_low, vector), _out(level_high, vector)),
        diagnostics=diagnostics,
    )


def _bc_family(
    method: str,
    distribution: Any,
    estimate: Any,
    jackknife_values: Any,
    level: Any,
    alternative: Any,
) -> IntervalEndpoints:
    """BC (``jackknife_values is None``, a = 0) and BCa intervals."""
    level = _check_level(level)
    alternative = _check_alternative(alternative)
    theta, vector = _check_distribution(distribution)
    k = theta.shape[1]
    est = _check_estimate(estimate, k, vector)
    if jackknife_values is None:
        a_hat = np.zeros(k)
    else:
        jk, _ = _check_jackknife(jackknife_values, k, vector)
        a_hat, constant = _acceleration(jk)
        _warn(
            method,
            constant,
            vector,
            "jackknife_values",
            "all jackknife values are equal, so the acceleration is 0/0; "
            "a_hat = 0 is used (the BC interval).",
            depth=1,
        )
    _warn_zero_spread(
        method,
        theta,
        vector,
        "the interval is that value if the estimate equals it, NaN otherwise",
        depth=1,
    )
    z0 = _z0(theta, est)
    for sign, side in ((-1.0, "below"), (1.0, "above")):
        _warn(
            method,
            z0 == sign * np.inf,
            vector,
            "distribution",
            f"the estimate lies {side} every bootstrap replicate, so the bias "
            f"correction z0 is {'+' if sign > 0 else '-'}inf; the endpoints are NaN.",
            depth=1,
        )
    # E&T eq. 14.10; z^(1 - alpha) taken as -z^(alpha), as scipy does.
    # Infinite z0 columns get NaN levels (the policy); 0 stands in for them so
    # the arithmetic stays quiet.
    z_alpha = float(ndtri(_alpha(level, alternative)))
    infinite = np.isinf(z0)
    bias = np.where(infinite, 0.0, z0)
    levels = []
    for z in (z_alpha, -z_alpha):
        shifted = bias + z
        adjusted = ndtr(bias + shifted / (1.0 - a_hat * shifted))
        levels.append(np.where(infinite, np.nan, adjusted))
    level_low, level_high = levels
    ordered = np.sort(theta, axis=0)
    diagnostics: dict[str, Any] = {"z0": _out(z0, vector)}
    if jackknife_values is not None:
        diagnostics["a_hat"] = _out(a_hat, vector)
    return _finish(
        _sorted_quantile(ordered, level_low),
        _sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        diagnostics,
    )


# --------------------------------------------------------------------------------
# public functions


def percentile_interval(
    distribution: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Percentile interval: quantiles of the bootstrap distribution.

    Implements ``(theta*_(alpha), theta*_(1 - alpha))``, Efron & Tibshirani (1993)
    section 13.3 and Davison & Hinkley (1997) eq. 5.18, with
    ``theta*_(p)`` the type-7 ``p``-quantile of the replicates.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``,
        each a one-sided interval at ``level``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(alpha, 1 - alpha)``; ``diagnostics`` is empty.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; the interval is then that single value.

    See Also
    --------
    basic_interval, bca_interval

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import percentile_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = percentile_interval(boot, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.865 1.476
    >>> print(np.round(res.levels, 3))
    [0.05 0.95]
    """
    level = _check_level(level)
    alternative = _check_alternative(alternative)
    theta, vector = _check_distribution(distribution)
    _warn_zero_spread(
        "percentile_interval", theta, vector, "the interval is that single value"
    )
    alpha = _alpha(level, alternative)
    level_low = np.full(theta.shape[1], alpha)
    level_high = np.full(theta.shape[1], 1.0 - alpha)
    ordered = np.sort(theta, axis=0)
    return _finish(
        _sorted_quantile(ordered, level_low),
        _sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {},
    )


def basic_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Basic (reverse percentile) interval.

    Implements ``(2 theta_hat - theta*_(1 - alpha), 2 theta_hat - theta*_(alpha))``,
    Davison & Hinkley (1997) eq. 5.6, with ``theta*_(p)`` the type-7 ``p``-quantile
    of the replicates. It estimates the quantiles of ``theta_hat - theta`` by those
    of ``theta* - theta_hat``.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(1 - alpha, alpha)``: the low endpoint reflects the
        upper quantile. ``diagnostics`` is empty.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread (all replicates ``v``); the interval is then
        the single value ``2 theta_hat - v``.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import basic_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = basic_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.84 1.45
    """
    level = _check_level(level)
    alternative = _check_alternative(alternative)
    theta, vector = _check_distribution(distribution)
    est = _check_estimate(estimate, theta.shape[1], vector)
    _warn_zero_spread(
        "basic_interval",
        theta,
        vector,
        "the interval is the single value 2 * estimate - replicate",
    )
    alpha = _alpha(level, alternative)
    level_low = np.full(theta.shape[1], 1.0 - alpha)
    level_high = np.full(theta.shape[1], alpha)
    ordered = np.sort(theta, axis=0)
    return _finish(
        2.0 * est - _sorted_quantile(ordered, level_low),
        2.0 * est - _sorted_quantile(ordered, level_high),
        level_low,
        level_high,
        alternative,
        vector,
        {},
    )


def normal_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
    ddof: int = 1,
) -> IntervalEndpoints:
    """Standard normal interval with the bootstrap standard error.

    Implements ``theta_hat + z^(alpha) se`` and ``theta_hat + z^(1 - alpha) se``,
    the standard interval ``theta_hat +/- z se`` of DiCiccio & Efron (1996)
    section 1 and Efron & Tibshirani (1993) chapter 12, with ``se`` the standard
    deviation of the bootstrap replicates (Efron & Tibshirani eq. 6.6).

    The interval is centred on the estimate, not on the bias-corrected
    ``theta_hat - bias`` of Davison & Hinkley (1997) section 5.2.1, as
    ``arch.bootstrap.IIDBootstrap.conf_int(method="norm")`` does.  ``se`` has the
    ``B - 1`` divisor by default (``ddof=1``), as ``BootstrapResult.
    standard_error`` and ``scipy.stats.bootstrap(...).standard_error``; arch
    divides by ``B``, and with ``ddof=0`` the endpoints equal arch's to rounding
    error.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.
    ddof : int, default=1
        Delta degrees of freedom of ``se``: the divisor is ``B - ddof``. 1 is
        Efron & Tibshirani's (eq. 6.6), skboot's and scipy's ``standard_error``;
        0 is arch's convention.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(alpha, 1 - alpha)``, levels of the standard normal;
        ``diagnostics["standard_error"]`` is ``se``.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; ``se = 0`` and the interval is the point
        ``[theta_hat, theta_hat]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import normal_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = normal_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.855 1.46
    >>> se = res.diagnostics["standard_error"]
    >>> print(round(se, 5), se == boot.std(ddof=1))
    0.18398 True
    """
    level = _check_level(level)
    alternative = _check_alternative(alternative)
    theta, vector = _check_distribution(distribution)
    est = _check_estimate(estimate, theta.shape[1], vector)
    n_rep = theta.shape[0]
    if (
        isinstance(ddof, (bool, np.bool_))
        or not isinstance(ddof, numbers.Integral)
        or not 0 <= ddof < n_rep
    ):
        raise ValueError(
            "The 'ddof' parameter must be an integer in [0, B - 1] = "
            f"[0, {n_rep - 1}]. Got {_show(ddof)} instead."
        )
    _warn_zero_spread(
        "normal_interval",
        theta,
        vector,
        "the standard error is 0 and the interval is the single value estimate",
    )
    se = np.std(theta, axis=0, ddof=int(ddof))
    alpha = _alpha(level, alternative)
    level_low = np.full(theta.shape[1], alpha)
    level_high = np.full(theta.shape[1], 1.0 - alpha)
    return _finish(
        est + float(ndtri(alpha)) * se,
        est + float(ndtri(1.0 - alpha)) * se,
        level_low,
        level_high,
        alternative,
        vector,
        {"standard_error": _out(se, vector)},
    )


def bc_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Bias-corrected (BC) percentile interval: BCa with acceleration 0.

    Implements Efron & Tibshirani (1993) eqs. 14.9-14.10 with ``a_hat = 0``: the
    endpoints are the quantiles of the replicates at
    ``Phi(2 z0 + z^(alpha))`` and ``Phi(2 z0 + z^(1 - alpha))``, with ``z0`` from
    :func:`bias_correction` (eq. 14.14, ties with the estimate counted one half).

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` are the adjusted levels ``(alpha_1, alpha_2)``;
        ``diagnostics["z0"]`` is the bias correction.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread, or the estimate lies outside the range of
        the replicates (``z0`` infinite; those endpoints are NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import bc_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> res = bc_interval(boot, x.mean(), level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3), round(res.diagnostics["z0"], 3))
    0.889 1.515 0.08
    """
    return _bc_family("bc_interval", distribution, estimate, None, level, alternative)


def bca_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    jackknife_values: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Bias-corrected and accelerated (BCa) interval.

    Implements Efron & Tibshirani (1993) eqs. 14.9-14.10 (DiCiccio & Efron 1996,
    section 2; Davison & Hinkley 1997, section 5.3.2): the endpoints are the
    quantiles of the replicates at

    ``alpha_1 = Phi(z0 + (z0 + z^(alpha)) / (1 - a_hat (z0 + z^(alpha))))``

    and ``alpha_2``, the same with ``z^(1 - alpha)``. ``z0`` is
    :func:`bias_correction` (eq. 14.14, ties counted one half) and ``a_hat`` is
    :func:`jackknife_acceleration` (eq. 14.15). With the same inputs the endpoints
    equal ``scipy.stats.bootstrap(..., method="BCa")``'s.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    jackknife_values : array-like of shape (n,) or (n, k)
        The statistic on each of the ``n`` leave-one-out samples; 2-D exactly
        when ``distribution`` is.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` are the adjusted levels ``(alpha_1, alpha_2)``;
        ``diagnostics`` holds ``z0`` and ``a_hat``.

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; if the estimate lies outside the range of the
        replicates (``z0`` infinite; those endpoints are NaN); if a column of
        jackknife values is constant (``a_hat = 0`` is used).

    Notes
    -----
    When ``|z0 + z|`` approaches ``1 / |a_hat|`` the adjusted level is no longer
    monotone in ``level``; this only happens for extreme levels or very skewed
    jackknife values, and is inherent to the method (scipy and arch behave the
    same way).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import bca_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> boot = x[rng.integers(0, 40, size=(2000, 40))].mean(axis=1)
    >>> loo = (x.sum() - x) / 39  # leave-one-out means
    >>> res = bca_interval(boot, x.mean(), loo, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.903 1.544
    >>> print(round(res.diagnostics["a_hat"], 4))
    0.0541
    """
    return _bc_family(
        "bca_interval", distribution, estimate, jackknife_values, level, alternative
    )


def studentized_interval(
    distribution: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_errors: ArrayLike,
    *,
    level: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalEndpoints:
    """Studentized (bootstrap-t) interval.

    Implements Efron & Tibshirani (1993) eq. 12.22 (Davison & Hinkley 1997
    section 5.2.1): with ``t*_b = (theta*_b - theta_hat) / se*_b`` and ``t*_(p)`` the
    type-7 ``p``-quantile of the ``t*_b``, the interval is
    ``(theta_hat - t*_(1 - alpha) se, theta_hat - t*_(alpha) se)``.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.
    standard_error : float or array-like of shape (k,)
        Standard error ``se`` of the estimate on the original sample. Must be
        non-negative.
    replicate_standard_errors : array-like of shape (B,) or (B, k)
        Standard error ``se*_b`` computed on each resample (analytically or by a
        nested bootstrap), same shape as ``distribution``. Must be non-negative.
    level : float, default=0.95
        Confidence level, in the open interval (0, 1).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"`` gives ``(-inf, high)``, ``"greater"`` gives ``(low, inf)``.

    Returns
    -------
    IntervalEndpoints
        ``levels`` is ``(1 - alpha, alpha)``, levels of the bootstrap-t
        distribution; ``diagnostics`` holds ``t_quantiles`` (the ``t*`` quantiles
        at ``levels``) and ``n_used`` (replicates in the bootstrap-t distribution).

    Warns
    -----
    DegenerateDistributionWarning
        If a column has zero spread; if some ``se*_b`` are zero or non-finite
        (those replicates are left out; if all are, the endpoints are NaN); if
        ``standard_error`` is zero (point interval) or non-finite (NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import studentized_interval
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=40)
    >>> samples = x[rng.integers(0, 40, size=(2000, 40))]
    >>> boot = samples.mean(axis=1)
    >>> boot_se = samples.std(axis=1, ddof=1) / np.sqrt(40)
    >>> se = x.std(ddof=1) / np.sqrt(40)
    >>> res = studentized_interval(boot, x.mean(), se, boot_se, level=0.9)
    >>> print(round(res.low, 3), round(res.high, 3))
    0.905 1.585
    """
    method = "studentized_interval"
    level = _check_level(level)
    alternative = _check_alternative(alternative)
    theta, vector = _check_distribution(distribution)
    n_rep, k = theta.shape
    est = _check_estimate(estimate, k, vector)
    se = _per_column(standard_error, "standard_error", k, vector)
    se_b = _numeric_array(replicate_standard_errors, "replicate_standard_errors")
    if se_b.shape != (theta.shape if vector else (n_rep,)):
        want = theta.shape if vector else (n_rep,)
        raise ValueError(
            "The 'replicate_standard_errors' parameter must be an array of the "
            f"distribution's shape {want}. Got shape {se_b.shape} instead."
        )
    se_b = se_b.reshape(n_rep, k)
    for name, values in (("standard_error", se), ("replicate_standard_errors", se_b)):
        n_neg = int(np.count_nonzero(values < 0))
        if n_neg:
            raise ValueError(
                f"The '{name}' parameter must hold non-negative standard errors. "
                f"Got {n_neg} negative value(s) instead."
            )

    _warn_zero_spread(
        method,
        theta,
        vector,
        "the bootstrap-t values vary only through the replicate standard errors",
    )
    usable = np.isfinite(se_b) & (se_b > 0)
    n_used = usable.sum(axis=0)
    partly = (n_used < n_rep) & (n_used > 0)
    if partly.any():
        counts = ", ".join(str(n_rep - int(m)) for m in n_used[partly])
        _warn(
            method,
            partly,
            vector,
            "replicate_standard_errors",
            f"{counts} of {n_rep} replicate standard errors are zero or non-finite; "
            "those replicates are left out of the bootstrap-t distribution.",
        )
    _warn(
        method,
        n_used == 0,
        vector,
        "replicate_standard_errors",
        "every replicate standard error is zero or non-finite, so there is no "
        "bootstrap-t distribution; the endpoints are NaN.",
    )
    _warn(
        method,
        se == 0,
        vector,
        "standard_error",
        "the standard error is 0; the interval is the single value estimate.",
    )
    _warn(
        method,
        ~np.isfinite(se),
        vector,
        "standard_error",
        "the standard error is non-finite; the endpoints are NaN.",
    )

    safe_se_b = np.where(usable, se_b, 1.0)
    t_values = np.where(usable, (theta - est) / safe_se_b, np.nan)
    ordered = np.sort(t_values, axis=0)  # NaN (left-out replicates) sorts last
    alpha = _alpha(level, alternative)
    level_low = np.full(k, 1.0 - alpha)
    level_high = np.full(k, alpha)
    t_low = _sorted_quantile(ordered, level_low, n_used)
    t_high = _sorted_quantile(ordered, level_high, n_used)
    scale = np.where(np.isfinite(se), se, np.nan)
    return _finish(
        est - t_low * scale,
        est - t_high * scale,
        level_low,
        level_high,
        alternative,
        vector,
        {
            "t_quantiles": (_out(t_low, vector), _out(t_high, vector)),
            "n_used": n_used if vector else int(n_used[0]),
        },
    )


def bias_correction(distribution: ArrayLike, estimate: ArrayLike) -> FloatOrArray:
    """Bias-correction constant ``z0`` of the BC and BCa intervals.

    Implements ``z0 = Phi^-1(p)`` with ``p`` the fraction of replicates below the
    estimate, Efron & Tibshirani (1993) eq. 14.14, counting replicates equal to the
    estimate as one half: ``p = (#{theta*_b < theta_hat} + #{theta*_b <=
    theta_hat}) / (2 B)``, as :func:`scipy.stats.bootstrap` does. Without ties this
    is exactly eq. 14.14.

    Parameters
    ----------
    distribution : array-like of shape (B,) or (B, k)
        Bootstrap replicates of the statistic, one per row. Must be finite.
    estimate : float or array-like of shape (k,)
        The statistic on the original sample, ``theta_hat``.

    Returns
    -------
    float or ndarray of shape (k,)
        ``z0``; ``-inf`` (``inf``) when the estimate lies below (above) every
        replicate.

    Warns
    -----
    DegenerateDistributionWarning
        When ``z0`` is infinite.

    Examples
    --------
    >>> from skboot.intervals import bias_correction
    >>> print(round(bias_correction([1.0, 2.0, 3.0, 4.0], 2.0), 4))
    -0.3186
    """
    theta, vector = _check_distribution(distribution)
    est = _check_estimate(estimate, theta.shape[1], vector)
    z0 = _z0(theta, est)
    _warn(
        "bias_correction",
        np.isinf(z0),
        vector,
        "distribution",
        "the estimate lies outside the range of the bootstrap replicates, so z0 "
        "is infinite.",
    )
    return _out(z0, vector)


def jackknife_acceleration(jackknife_values: ArrayLike) -> FloatOrArray:
    """Acceleration ``a_hat`` of the BCa interval from jackknife values.

    Implements Efron & Tibshirani (1993) eq. 14.15:
    ``a_hat = sum(d**3) / (6 * sum(d**2) ** 1.5)`` with ``d_i = theta_(.) -
    theta_(i)``, the deviations of the leave-one-out values ``theta_(i)`` from
    their mean, per column. Equal to scipy's ``a_hat`` (which scales ``d`` by
    ``n - 1``, a factor that cancels).

    Parameters
    ----------
    jackknife_values : array-like of shape (n,) or (n, k)
        The statistic on each of the ``n`` leave-one-out samples. Must be finite.

    Returns
    -------
    float or ndarray of shape (k,)
        ``a_hat``; always ``|a_hat| < 1/6``.

    Warns
    -----
    DegenerateDistributionWarning
        If the values of a column are all equal (0/0); ``a_hat = 0`` is returned
        for that column.

    Examples
    --------
    >>> from skboot.intervals import jackknife_acceleration
    >>> print(round(jackknife_acceleration([1.0, 1.0, 1.0, 4.0]), 4))
    -0.0962
    """
    jk, vector = _check_jackknife(jackknife_values, None, None)
    a_hat, constant = _acceleration(jk)
    _warn(
        "jackknife_acceleration",
        constant,
        vector,
        "jackknife_values",
        "all jackknife values are equal, so the acceleration is 0/0; returning 0.",
    )
    return _out(a_hat, vector)


def interval_by_method(
    method: str,
    distribution: ArrayLike,
    estimate: ArrayLike,
    *,
    level: float = 0.95,
    alternative: str = "two-sided",
    jackknife: Callable[[], ArrayLike] | None = None,
    studentized: Callable[[], tuple[ArrayLike, ArrayLike]] | None = None,
) -> IntervalEndpoints:
    """Dispatch to the method's function; the inputs only some methods need are
    given as zero-argument callables, so they are computed only when used.

    Parameters
    ----------
    method : {"percentile", "basic", "normal", "bc", "bca", "studentized"}
        Any letter case ("BCa", as scipy spells it, is "bca").
    distribution, estimate : array-like
        As in the method functions.
    level : float, default=0.95
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
    jackknife : callable, optional
        Returns the jackknife values (for "bca").
    studentized : callable, optional
        Returns ``(standard_error, replicate_standard_errors)`` (for
        "studentized").

    Returns
    -------
    IntervalEndpoints

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.intervals import interval_by_method
    >>> d = np.linspace(-1.0, 1.0, 201)
    >>> res = interval_by_method("percentile", d, 0.0, level=0.9)
    >>> round(res.low, 2), round(res.high, 2)
    (-0.9, 0.9)
    """
    method = _check_method(method)
    kw: dict[str, Any] = {
        "level": level,
        "alternative": _check_alternative(alternative),
    }
    if method == "percentile":
        return percentile_interval(distribution, **kw)
    if method == "basic":
        return basic_interval(distribution, estimate, **kw)
    if method == "normal":
        return normal_interval(distribution, estimate, **kw)
    if method == "bc":
        return bc_interval(distribution, estimate, **kw)
    if method == "bca":
        if jackknife is None:
            raise ValueError("The 'bca' method needs jackknife values. Got none.")
        return bca_interval(distribution, estimate, jackknife(), **kw)
    # "studentized", the one method left
    if studentized is None:
        raise ValueError("The 'studentized' method needs standard errors. Got none.")
    se_hat, se_b = studentized()
    return studentized_interval(distribution, estimate, se_hat, se_b, **kw)


# public names of the checks other packages use (the interval package split keeps
# them; see skboot/_validation.py for the constraint tables)
check_level = _check_level
check_method = _check_method
check_alternative = _check_alternative
