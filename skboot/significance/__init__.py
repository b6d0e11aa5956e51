"""Hypothesis tests on skboot's derived streams: permutation tests, Monte Carlo
tests and permutation tests of model metrics (bootstrap p-values are
:meth:`skboot.BootstrapResult.pvalue`)."""

from skboot.significance._metric_test import metric_permutation_test
from skboot.significance._monte_carlo import (
    batch_generator,
    monte_carlo_batch,
    monte_carlo_test,
)
from skboot.significance._permutation_test import permutation_test
from skboot.significance._results import (
    MetricPermutationTestResult,
    MonteCarloTestResult,
    PermutationTestResult,
)
from skboot.significance._statistics import FUSED_STATISTICS

__all__ = [
    "FUSED_STATISTICS",
    "MetricPermutationTestResult",
    "MonteCarloTestResult",
    "PermutationTestResult",
    "batch_generator",
    "metric_permutation_test",
    "monte_carlo_batch",
    "monte_carlo_test",
    "permutation_test",
]
