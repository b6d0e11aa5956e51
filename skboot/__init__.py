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
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
)
from skboot.statistic import BootstrapResult, BootstrapStatistic, bootstrap

__version__ = "0.1.0.dev0"

__all__ = [
    "STREAM_VERSION",
    "BayesianBootstrap",
    "Bootstrap",
    "BootstrapResult",
    "BootstrapStatistic",
    "CircularBlockBootstrap",
    "ConfidenceInterval",
    "DegenerateDistributionWarning",
    "GroupBootstrap",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "OptimalBlockLength",
    "PoissonBootstrap",
    "StationaryBootstrap",
    "StatisticError",
    "StratifiedBootstrap",
    "TaperedBlockBootstrap",
    "UndefinedStatisticWarning",
    "bootstrap",
    "optimal_block_length",
]
