"""Hypothesis tests on skboot's derived streams: permutation tests, Monte Carlo
tests, bootstrap p-values and permutation tests of model metrics."""

from skboot.significance._permutation_test import (
    PermutationTestResult,
    permutation_test,
)

__all__ = [
    "PermutationTestResult",
    "permutation_test",
]
