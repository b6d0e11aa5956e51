"""Hypothesis tests on skboot's derived streams: permutation tests, Monte Carlo
tests and permutation tests of model metrics (bootstrap p-values are
:meth:`skboot.BootstrapResult.pvalue`)."""

from skboot.significance._metric_test import metric_permutation_test
from skboot.significance._monte_carlo import monte_carlo_test, replicate_generator
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
    "metric_permutation_test",
    "monte_carlo_test",
    "permutation_test",
    "replicate_generator",
]
