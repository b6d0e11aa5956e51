"""The public statistic API: :func:`bootstrap`, the :class:`BootstrapStatistic`
meta-estimator, the frozen :class:`BootstrapResult`, and :func:`abc_interval`
(the ABC interval, no resampling)."""

from skboot.intervals import ABCInterval, ConfidenceInterval
from skboot.statistic._abc import abc_interval
from skboot.statistic._bootstrap import bootstrap
from skboot.statistic._estimator import BootstrapStatistic
from skboot.statistic._result import BootstrapResult

__all__ = [
    "ABCInterval",
    "BootstrapResult",
    "BootstrapStatistic",
    "ConfidenceInterval",
    "abc_interval",
    "bootstrap",
]
