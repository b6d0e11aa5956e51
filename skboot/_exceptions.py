"""Warnings and errors raised by skboot."""

from __future__ import annotations

__all__ = [
    "DegenerateDistributionWarning",
    "ResultFileError",
    "StatisticError",
    "UndefinedStatisticWarning",
    "warn",
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


class ResultFileError(ValueError):
    """A result file is malformed, edited, truncated or of an unknown version.

    The ``load`` of every result (:meth:`skboot.BootstrapResult.load`,
    ``ConfidenceInterval.load``, ...) raises it for every file it refuses: a
    file that is not an ``.npz`` archive, a file of another result class, a
    missing or unexpected member or record field, a value of the wrong type,
    shape or range, fields that contradict each other (the distribution's
    length and ``n_resamples``), a format or stream version this skboot does
    not read, or bytes that no longer match the checksum written by ``save``.
    A ``ValueError``, so ``except ValueError`` catches it too.

    Parameters
    ----------
    message : str
        What is wrong, naming the file and the field.
    field : str or None
        The field (array or record key) at fault; None when the file as a
        whole cannot be read.

    Attributes
    ----------
    field : str or None
        The field at fault (``"distribution"``, ``"n_resamples"``, ...), or
        None for a file that is not a readable archive.

    See Also
    --------
    skboot.BootstrapResult.load : Reads and verifies a result file.
    skboot.BootstrapResult.save : Writes one.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from skboot import BootstrapResult, ResultFileError, bootstrap
    >>> res = bootstrap(np.arange(20.0), "mean", n_resamples=99, random_state=0)
    >>> buf = io.BytesIO()
    >>> res.save(buf)
    >>> damaged = io.BytesIO(buf.getvalue()[:-100])  # a truncated copy
    >>> try:
    ...     BootstrapResult.load(damaged)
    ... except ResultFileError as err:
    ...     print(type(err).__name__, isinstance(err, ValueError))
    ResultFileError True
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def __reduce__(self):  # keep the field across process boundaries
        return (type(self), (self.args[0], self.field))


def warn(message: str, category: type[Warning]) -> None:
    """Issue a warning attributed to the user's line: the first frame outside skboot.

    Every skboot warning goes through here, so it names the caller's file and line
    however deep in the package it was raised (a fixed ``stacklevel`` would name
    an internal module whenever the call path changes).
    """
    import os
    import sys
    import warnings
    from types import FrameType

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level = 2  # 1 is this function's own frame
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        package
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
