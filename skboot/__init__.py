"""skboot: fast, memory-lean bootstrap resampling in the scikit-learn style."""

# First: decides where numba caches the kernels the imports below define.
from skboot import _cache
from skboot._cache import cache_dir

# isort: split
from skboot._engine.cuda import cuda_info
from skboot._exceptions import (
    DegenerateDistributionWarning,
    ResultFileError,
    StatisticError,
    UndefinedStatisticWarning,
)
from skboot._version import STREAM_VERSION
from skboot._version import __version__ as __version__
from skboot.block_length import OptimalBlockLength, optimal_block_length
from skboot.intervals import ConfidenceInterval
from skboot.metrics import (
    BootstrapScore,
    CurveBand,
    CurveComparison,
    MetricCI,
    MetricComparison,
    PrecisionRecallBandDisplay,
    RocCurveBandDisplay,
    bootstrap_score,
    compare_metrics,
    compare_precision_recall_curves,
    compare_roc_curves,
    metric_ci,
    precision_recall_band,
    roc_curve_band,
)
from skboot.model_based import (
    ARIMAResidualBootstrap,
    FewClustersWarning,
    ParametricBootstrap,
    ResidualBootstrap,
    SieveBootstrap,
    VARResidualBootstrap,
    WildBootstrap,
    WildClusterIVResult,
    WildClusterResult,
    WildClusterWaldResult,
    wild_cluster_bootstrap,
    wild_cluster_bootstrap_iv,
    wild_cluster_wald,
)
from skboot.multiple_comparison import (
    MCS,
    SPA,
    MCSResult,
    RealityCheck,
    SPAResult,
    StepM,
    StepMResult,
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
    metric_permutation_test,
    monte_carlo_test,
    permutation_test,
)
from skboot.statistic import (
    ABCInterval,
    BootstrapResult,
    BootstrapStatistic,
    abc_interval,
    bootstrap,
)

_cache.disable_unwritable()

__all__ = [
    "MCS",
    "SPA",
    "STREAM_VERSION",
    "ABCInterval",
    "ARIMAResidualBootstrap",
    "BayesianBootstrap",
    "Bootstrap",
    "BootstrapResult",
    "BootstrapScore",
    "BootstrapStatistic",
    "CircularBlockBootstrap",
    "ConfidenceInterval",
    "CurveBand",
    "CurveComparison",
    "DegenerateDistributionWarning",
    "FewClustersWarning",
    "GroupBootstrap",
    "MCSResult",
    "MetricCI",
    "MetricComparison",
    "MetricPermutationTestResult",
    "MonteCarloTestResult",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "OptimalBlockLength",
    "ParametricBootstrap",
    "Permutation",
    "PermutationTestResult",
    "PoissonBootstrap",
    "PrecisionRecallBandDisplay",
    "RealityCheck",
    "ResidualBootstrap",
    "ResultFileError",
    "RocCurveBandDisplay",
    "SPAResult",
    "SieveBootstrap",
    "StationaryBootstrap",
    "StatisticError",
    "StepM",
    "StepMResult",
    "StratifiedBootstrap",
    "TaperedBlockBootstrap",
    "UndefinedStatisticWarning",
    "VARResidualBootstrap",
    "WildBootstrap",
    "WildClusterIVResult",
    "WildClusterResult",
    "WildClusterWaldResult",
    "abc_interval",
    "bootstrap",
    "bootstrap_score",
    "cache_dir",
    "compare_metrics",
    "compare_precision_recall_curves",
    "compare_roc_curves",
    "cuda_info",
    "metric_ci",
    "metric_permutation_test",
    "monte_carlo_test",
    "optimal_block_length",
    "permutation_test",
    "precision_recall_band",
    "roc_curve_band",
    "wild_cluster_bootstrap",
    "wild_cluster_bootstrap_iv",
    "wild_cluster_wald",
]
