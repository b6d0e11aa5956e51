"""skboot: fast, memory-lean bootstrap resampling in the scikit-learn style."""

from skboot._exceptions import (
    DegenerateDistributionWarning,
    StatisticError,
    UndefinedStatisticWarning,
)
from skboot._random import STREAM_VERSION
from skboot.block_length import OptimalBlockLength, optimal_block_length
from skboot.intervals import ConfidenceInterval
from skboot.metrics import (
    BootstrapScore,
    MetricCI,
    MetricComparison,
    bootstrap_score,
    compare_metrics,
    metric_ci,
)
from skboot.multiple_comparison import MCS, SPA, RealityCheck, StepM
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
    "MCS",
    "SPA",
    "STREAM_VERSION",
    "BayesianBootstrap",
    "Bootstrap",
    "BootstrapResult",
    "BootstrapScore",
    "BootstrapStatistic",
    "CircularBlockBootstrap",
    "ConfidenceInterval",
    "DegenerateDistributionWarning",
    "GroupBootstrap",
    "MetricCI",
    "MetricComparison",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "OptimalBlockLength",
    "PoissonBootstrap",
    "RealityCheck",
    "StationaryBootstrap",
    "StatisticError",
    "StepM",
    "StratifiedBootstrap",
    "TaperedBlockBootstrap",
    "UndefinedStatisticWarning",
    "bootstrap",
    "bootstrap_score",
    "compare_metrics",
    "metric_ci",
    "optimal_block_length",
]
