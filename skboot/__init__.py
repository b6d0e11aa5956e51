"""skboot: fast, memory-lean bootstrap resampling in the scikit-learn style.

The public names load lazily: ``import skboot`` imports only the kernel cache
set-up, the versions and the exceptions, and each name's module is imported on
its first use (PEP 562), so a process that needs one part of the package (a dask
worker running a data-parallel partition function, a command-line call) does not
load scikit-learn, scipy's submodules, pandas and every kernel.
"""

from typing import TYPE_CHECKING

# First: decides where numba caches the kernels that the modules below define.
from skboot import _cache
from skboot._cache import cache_dir
from skboot._exceptions import (
    DegenerateDistributionWarning,
    ResultFileError,
    StatisticError,
    UndefinedStatisticWarning,
)
from skboot._lazy import lazy_exports
from skboot._version import STREAM_VERSION
from skboot._version import __version__ as __version__

if TYPE_CHECKING:
    from skboot._engine.cuda import cuda_info
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

#: Public name -> the module that defines it (imported on first access).
_EXPORTS = {
    "cuda_info": "skboot._engine.cuda",
    "OptimalBlockLength": "skboot.block_length",
    "optimal_block_length": "skboot.block_length",
    "ConfidenceInterval": "skboot.intervals",
    "BootstrapScore": "skboot.metrics",
    "CurveBand": "skboot.metrics",
    "CurveComparison": "skboot.metrics",
    "MetricCI": "skboot.metrics",
    "MetricComparison": "skboot.metrics",
    "PrecisionRecallBandDisplay": "skboot.metrics",
    "RocCurveBandDisplay": "skboot.metrics",
    "bootstrap_score": "skboot.metrics",
    "compare_metrics": "skboot.metrics",
    "compare_precision_recall_curves": "skboot.metrics",
    "compare_roc_curves": "skboot.metrics",
    "metric_ci": "skboot.metrics",
    "precision_recall_band": "skboot.metrics",
    "roc_curve_band": "skboot.metrics",
    "ARIMAResidualBootstrap": "skboot.model_based",
    "FewClustersWarning": "skboot.model_based",
    "ParametricBootstrap": "skboot.model_based",
    "ResidualBootstrap": "skboot.model_based",
    "SieveBootstrap": "skboot.model_based",
    "VARResidualBootstrap": "skboot.model_based",
    "WildBootstrap": "skboot.model_based",
    "WildClusterIVResult": "skboot.model_based",
    "WildClusterResult": "skboot.model_based",
    "WildClusterWaldResult": "skboot.model_based",
    "wild_cluster_bootstrap": "skboot.model_based",
    "wild_cluster_bootstrap_iv": "skboot.model_based",
    "wild_cluster_wald": "skboot.model_based",
    "MCS": "skboot.multiple_comparison",
    "SPA": "skboot.multiple_comparison",
    "MCSResult": "skboot.multiple_comparison",
    "RealityCheck": "skboot.multiple_comparison",
    "SPAResult": "skboot.multiple_comparison",
    "StepM": "skboot.multiple_comparison",
    "StepMResult": "skboot.multiple_comparison",
    "BayesianBootstrap": "skboot.resamplers",
    "Bootstrap": "skboot.resamplers",
    "CircularBlockBootstrap": "skboot.resamplers",
    "GroupBootstrap": "skboot.resamplers",
    "MovingBlockBootstrap": "skboot.resamplers",
    "NonOverlappingBlockBootstrap": "skboot.resamplers",
    "Permutation": "skboot.resamplers",
    "PoissonBootstrap": "skboot.resamplers",
    "StationaryBootstrap": "skboot.resamplers",
    "StratifiedBootstrap": "skboot.resamplers",
    "TaperedBlockBootstrap": "skboot.resamplers",
    "MetricPermutationTestResult": "skboot.significance",
    "MonteCarloTestResult": "skboot.significance",
    "PermutationTestResult": "skboot.significance",
    "metric_permutation_test": "skboot.significance",
    "monte_carlo_test": "skboot.significance",
    "permutation_test": "skboot.significance",
    "ABCInterval": "skboot.statistic",
    "BootstrapResult": "skboot.statistic",
    "BootstrapStatistic": "skboot.statistic",
    "abc_interval": "skboot.statistic",
    "bootstrap": "skboot.statistic",
}

#: The public subpackages and modules, imported on first access as attributes
#: (``skboot.metrics``, ``skboot.plotting``, ...).
_SUBMODULES = (
    "block_length",
    "cli",
    "intervals",
    "metrics",
    "model_based",
    "multiple_comparison",
    "plotting",
    "resamplers",
    "significance",
    "statistic",
)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)

# Kernels without a writable cache folder: off now and in every module imported later.
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
