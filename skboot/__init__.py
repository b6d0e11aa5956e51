"""skboot: fast, memory-lean bootstrap resampling in the scikit-learn style."""

from skboot._exceptions import (
    DegenerateDistributionWarning,
    StatisticError,
    UndefinedStatisticWarning,
)
from skboot._random import STREAM_VERSION
from skboot.block_length import OptimalBlockLength, optimal_block_length
from skboot.intervals import ConfidenceInterval
from skboot.resamplers import (
    BayesianBootstrap,
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)
from skboot.statistic import BootstrapResult, BootstrapStatistic, bootstrap

__version__ = "0.1.0.dev0"

__all__ = [
    "STREAM_VERSION",
    "BayesianBootstrap",
    "Bootstrap",
    "BootstrapResult",
    "BootstrapStatistic",
    "ConfidenceInterval",
    "DegenerateDistributionWarning",
    "GroupBootstrap",
    "OptimalBlockLength",
    "PoissonBootstrap",
    "StatisticError",
    "StratifiedBootstrap",
    "UndefinedStatisticWarning",
    "bootstrap",
    "optimal_block_length",
]
