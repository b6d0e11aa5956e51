"""The frozen results of the tests: :class:`PermutationTestResult`,
:class:`MonteCarloTestResult` and :class:`MetricPermutationTestResult`, with
what they share (one row per statistic in ``to_frame``, the null distribution
drawn by ``plot``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from skboot._random import STREAM_VERSION
from skboot._results import Result
from skboot._typing import SeedRecord
from skboot.significance._plot import plot_null_distribution

if TYPE_CHECKING:  # matplotlib is optional
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "MetricPermutationTestResult",
    "MonteCarloTestResult",
    "NullDistributionMixin",
    "PermutationTestResult",
]


class NullDistributionMixin(Result):
    """What the test results share: ``to_frame`` and ``plot``."""

    __slots__ = ()
    # the fields every test result has (declared on the dataclasses)
    statistic: Any
    pvalue: Any
    null_distribution: np.ndarray
    n_resamples: int
    alternative: str
    n_undefined: int
    #: Fields repeated on every row of ``to_frame`` after the statistic's.
    _FRAME_FIELDS: ClassVar[tuple[str, ...]] = (
        "n_resamples",
        "alternative",
        "n_undefined",
    )

    def _frame_rows(self) -> list[dict[str, Any]]:
        """One row per statistic (per element of a vector statistic, with its
        index under ``element``)."""
        statistic = np.asarray(self.statistic, dtype=np.float64)
        pvalue = np.asarray(self.pvalue, dtype=np.float64)
        common = {name: getattr(self, name) for name in self._FRAME_FIELDS}
        if statistic.ndim == 0:
            return [{"statistic": float(statistic), "pvalue": float(pvalue), **common}]
        rows = []
        for idx in np.ndindex(*statistic.shape):
            rows.append(
                {
                    "element": idx[0] if len(idx) == 1 else idx,
                    "statistic": float(statistic[idx]),
                    "pvalue": float(pvalue[idx]),
                    **common,
                }
            )
        return rows

    def to_frame(self) -> pd.DataFrame:
        """The statistic and its p-value as a pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            One row per statistic (per element of a vector statistic, whose
            index is in the column ``element``) with the columns
            ``statistic``, ``pvalue``, ``n_resamples``, ``alternative`` and
            ``n_undefined`` (led by ``metric`` for a metric's test).
        """
        import pandas as pd

        return pd.DataFrame(self._frame_rows())

    def plot(
        self, ax: Axes | None = None, **kwargs: int | str | tuple[int, ...]
    ) -> Axes:
        """Histogram of the null distribution with the observed statistic marked.

        NaN (undefined) and infinite null values are left out of the histogram
        (the legend gives their count).  Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``element``: for a vector statistic, the index (an int, or a tuple
            for more than one axis) of the element whose null distribution is
            drawn (required there); ``bins``: the histogram's bins (as in
            :func:`numpy.histogram`, default "auto").

        Returns
        -------
        ax : matplotlib Axes
            With one histogram (``ax.patches``), a line at the observed
            statistic and a legend that gives the p-value.
        """
        return plot_null_distribution(self, ax, **kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True, eq=False, repr=False)
class PermutationTestResult(NullDistributionMixin):
    """The outcome of a permutation test; immutable.

    The first three fields are those of ``scipy.stats.permutation_test``'s
    result, with the same meaning.  ``to_frame()`` gives one row per statistic
    (per element of a vector statistic) and ``plot()`` draws the null
    distribution with the observed statistic.

    Attributes
    ----------
    statistic : float or ndarray
        The test statistic on the data.
    pvalue : float or ndarray
        The p-value for ``alternative``.
    null_distribution : ndarray of shape (n_resamples, ...)
        The statistic on every permutation: in rank order for an exact test
        (row 0 is the data itself), in replicate order otherwise.
    n_resamples : int
        Number of permutations evaluated (the count of distinct permutations
        for an exact test).
    exact : bool
        Whether every distinct permutation was enumerated.
    permutation_type : str
        "independent", "samples" or "pairings", as in scipy.
    alternative : str
        "two-sided", "less" or "greater".
    random_state : int, SeedSequence or None
        Pass as ``random_state`` to repeat the run (None for an exact test,
        which draws nothing).
    stream_version : int
        Version of the random-stream definition.
    n_undefined : int
        Permutations on which the statistic was NaN (undefined; +-inf are
        values and count in the p-value).

    See Also
    --------
    permutation_test : Computes it.
    MonteCarloTestResult : The outcome of a test against a parametric null.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.significance import permutation_test
    >>> x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    >>> res = permutation_test((x, y), "mean_diff", alternative="less")
    >>> res.exact, res.n_resamples, round(res.pvalue, 4)
    (True, 20, 0.05)
    >>> res.to_frame()[["statistic", "pvalue", "n_resamples"]]
       statistic  pvalue  n_resamples
    0       -3.0    0.05           20
    """

    statistic: float | NDArray[np.float64]
    pvalue: float | NDArray[np.float64]
    null_distribution: np.ndarray
    n_resamples: int
    exact: bool
    permutation_type: str
    alternative: str
    random_state: SeedRecord
    stream_version: int = STREAM_VERSION
    n_undefined: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class MonteCarloTestResult(NullDistributionMixin):
    """The outcome of a Monte Carlo test; immutable.

    The first three fields are those of ``scipy.stats.monte_carlo_test``'s
    result, with the same meaning.  ``to_frame()`` gives one row per statistic
    (per element of a vector statistic) and ``plot()`` draws the null
    distribution with the observed statistic.

    Attributes
    ----------
    statistic : float or ndarray
        The test statistic on the data.
    pvalue : float or ndarray
        The p-value for ``alternative``.
    null_distribution : ndarray of shape (n_resamples,)
        The statistic on every sample drawn under the null, in replicate order.
    n_resamples : int
        Number of samples drawn under the null.
    alternative : str
        "two-sided", "less" or "greater".
    random_state : int or SeedSequence
        Pass as ``random_state`` to repeat the run.
    stream_version : int
        Version of the random-stream definition.
    n_undefined : int
        Replicates on which the statistic was NaN (undefined; +-inf are
        values and count in the p-value).
    batch_size : int
        Replicates per batch (:func:`monte_carlo_batch`): replicate ``b`` is
        row ``b % batch_size`` of batch ``b // batch_size``
        (:func:`batch_generator`).

    See Also
    --------
    monte_carlo_test : Computes it.
    PermutationTestResult : The outcome of a permutation test.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skboot.significance import monte_carlo_test
    >>> x = np.arange(10.0)
    >>> res = monte_carlo_test(x, stats.norm(4.5, 3).rvs, np.mean, n_resamples=99,
    ...                        random_state=0)
    >>> res.null_distribution.shape, res.n_resamples
    ((99,), 99)
    >>> list(res.to_frame().columns)
    ['statistic', 'pvalue', 'n_resamples', 'alternative', 'n_undefined']
    """

    statistic: float | NDArray[np.float64]
    pvalue: float | NDArray[np.float64]
    null_distribution: np.ndarray
    n_resamples: int
    alternative: str
    random_state: SeedRecord
    stream_version: int = STREAM_VERSION
    n_undefined: int = 0
    batch_size: int = field(default=1024, repr=False)


@dataclass(frozen=True, eq=False, repr=False)
class MetricPermutationTestResult(NullDistributionMixin):
    """The outcome of a permutation test of a model metric; immutable.

    Its first three fields mean what they mean on scipy's permutation-test
    result; the others record the metric and how to repeat the run.
    ``to_frame()`` gives one row (the metric, its p-value and the run's
    counts) and ``plot()`` draws the null distribution with the observed
    metric.

    Attributes
    ----------
    statistic : float
        The metric on the held-out predictions.
    pvalue : float
        ``(r + 1) / (n_resamples + 1)``, ``r`` the permutations scoring at least
        as well (``alternative``).
    null_distribution : ndarray of shape (n_resamples,)
        The metric with the labels permuted, in replicate order.
    metric : str
        Name of the metric.
    n_resamples : int
        Number of permutations.
    alternative : str
        "greater", "less" or "two-sided".
    random_state : int or SeedSequence
        Pass as ``random_state`` to repeat the run.
    stream_version : int
        Version of the random-stream definition.
    n_undefined : int
        Permutations on which the metric was undefined (NaN).

    See Also
    --------
    metric_permutation_test : Computes it.
    PermutationTestResult : The outcome of a permutation test of a statistic.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.significance import metric_permutation_test
    >>> y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    >>> res = metric_permutation_test(y, y, "accuracy", n_resamples=99,
    ...                               random_state=0)
    >>> res.statistic, res.alternative, res.pvalue
    (1.0, 'greater', 0.02)
    >>> res.to_frame()[["metric", "statistic", "pvalue"]]
         metric  statistic  pvalue
    0  accuracy        1.0    0.02
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    metric: str
    n_resamples: int
    alternative: str
    random_state: SeedRecord
    stream_version: int = STREAM_VERSION
    n_undefined: int = 0

    def _frame_rows(self) -> list[dict[str, Any]]:
        """One row, led by the metric's name."""
        return [{"metric": self.metric, **row} for row in super()._frame_rows()]
