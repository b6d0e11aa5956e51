"""The public statistic API: :func:`bootstrap`, the :class:`BootstrapStatistic`
meta-estimator and the frozen :class:`BootstrapResult`."""

from skboot.intervals import ConfidenceInterval
from skboot.statistic._bootstrap import bootstrap
from skboot.statistic._estimator import BootstrapStatistic
from skboot.statistic._result import BootstrapResult

__all__ = [
    "BootstrapResult",
    "BootstrapStatistic",
    "ConfidenceInterval",
    "bootstrap",
]
