"""scikit-learn's estimator checks for BootstrapStatistic."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from skboot import Bootstrap, BootstrapStatistic

# Checks that do not apply to a statistic-of-X meta-estimator, and why.
EXPECTED_FAILED = {
    "check_fit1d": (
        "1-D X is a valid input: the statistic of one series (a mean of a "
        "column), so fitting it must not raise."
    ),
}


@parametrize_with_checks(
    [
        BootstrapStatistic("mean", n_resamples=20, random_state=0),
        # n_resamples=None (the default): the resampler's own value
        BootstrapStatistic("mean", resampler=Bootstrap(20)),
    ],
    expected_failed_checks=lambda est: EXPECTED_FAILED,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
