"""Warnings and errors raised by skboot."""

from __future__ import annotations

__all__ = [
    "DegenerateDistributionWarning",
    "StatisticError",
    "UndefinedStatisticWarning",
]


class StatisticError(RuntimeError):
    """A user statistic raised or returned an invalid value on one replicate.

    The error names the replicate, so the failing sample can be regenerated alone
    and the statistic debugged on it.  When the statistic raised, its exception is
    chained as ``__cause__``.

    Parameters
    ----------
    message : str
        What went wrong, with the replicate number.
    replicate : int
        Index ``b`` of the failing replicate.

    Attributes
    ----------
    replicate : int
        Index ``b`` of the failing replicate; ``resampler.replicate(b)`` regenerates
        its indices.

    See Also
    --------
    skboot.bootstrap : Runs the statistic on every replicate.
    skboot.UndefinedStatisticWarning : Warns instead, for a statistic that returns
        NaN on some replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import Bootstrap, StatisticError, bootstrap
    >>> x = np.arange(20.0)
    >>> def fragile(a):
    ...     if a[0] == 3.0:
    ...         raise ZeroDivisionError("boom")
    ...     return a.mean()
    >>> try:
    ...     bootstrap(x, fragile, n_resamples=200, random_state=0)
    ... except StatisticError as err:
    ...     b = err.replicate
    >>> int(Bootstrap(200, random_state=0).fit(x).replicate(b).indices[0])
    3
    """

    def __init__(self, message: str, replicate: int) -> None:
        super().__init__(message)
        self.replicate = replicate

    def __reduce__(self):  # keep the replicate number across process boundaries
        return (type(self), (self.args[0], self.replicate))


class DegenerateDistributionWarning(RuntimeWarning):
    """Warn that the bootstrap distribution is degenerate.

    A degenerate distribution (for example all replicates equal) makes an
    interval method undefined or meaningless; the interval is still returned
    (both endpoints at the common value, or NaN where the method divides by the
    spread) and this warning says why.

    See Also
    --------
    skboot.BootstrapResult.confidence_interval : Computes the intervals that warn.
    skboot.UndefinedStatisticWarning : Warns about replicates where the statistic
        is undefined.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skboot import DegenerateDistributionWarning, bootstrap
    >>> res = bootstrap(np.ones(10), "mean", n_resamples=50, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ci = res.confidence_interval(method="percentile")
    >>> any(issubclass(w.category, DegenerateDistributionWarning) for w in caught)
    True
    >>> float(ci.low), float(ci.high)
    (1.0, 1.0)
    """


class UndefinedStatisticWarning(RuntimeWarning):
    """Warn that a statistic was undefined on some replicates.

    For example ROC AUC on a replicate holding one class, or a ratio whose
    denominator is zero.  The result records how many there were
    (``n_undefined``); the metric functions choose between raising and omitting
    them with their ``undefined`` parameter.

    See Also
    --------
    skboot.StatisticError : Raised instead when the statistic fails with an
        exception.
    skboot.metric_ci : Metric intervals, whose ``undefined`` parameter sets the
        policy.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skboot import UndefinedStatisticWarning, bootstrap
    >>> x = np.array([0.0, 0.0, 0.0, 1.0])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = bootstrap(x, lambda a: 1.0 / a.sum(), n_resamples=100, random_state=0)
    >>> any(issubclass(w.category, UndefinedStatisticWarning) for w in caught)
    True
    >>> res.n_undefined > 0
    True
    """
