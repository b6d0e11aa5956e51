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
from skboot.resamplers import (
    BayesianBootstrap,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    Permutation,
    PoissonBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
)
from skboot.significance import (
    MetricPermutationTestResult,
    MonteCarloTestResult,
    PermutationTestResult,
    bootstrap_pvalue,
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)
from skboot.statistic import BootstrapResult, BootstrapStatistic, bootstrap

__version__ = "0.1.0.dev0"

__all__ = [
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
    "MetricPermutationTestResult",
    "MonteCarloTestResult",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "OptimalBlockLength",
    "Permutation",
    "PermutationTestResult",
    "PoissonBootstrap",
    "StationaryBootstrap",
    "StatisticError",
    "StratifiedBootstrap",
    "TaperedBlockBootstrap",
    "UndefinedStatisticWarning",
    "bootstrap",
    "bootstrap_pvalue",
    "bootstrap_score",
    "compare_metrics",
    "metric_ci",
    "metric_permutation_test",
    "monte_carlo_test",
    "optimal_block_length",
    "permutation_test",
]
