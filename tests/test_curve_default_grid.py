"""The curve bands' default grid stays away from the corners of the curve, where
no band built from the replicates can cover; an explicit grid is used as given.
Slow: the simultaneous ROC band's coverage of a known binormal curve."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from skboot.metrics import precision_recall_band, roc_curve_band

MU = np.sqrt(2.0) * norm.ppf(0.76)  # binormal, AUC 0.76


def _binormal(n_pos, n_neg, seed):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    score = np.r_[rng.normal(MU, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)]
    return y, score


def _true_tpr(fpr):
    return norm.cdf(MU + norm.ppf(fpr))


def test_default_roc_grid_stays_off_the_corners():
    y, score = _binormal(80, 120, 0)
    band = roc_curve_band(y, score, n_resamples=99, random_state=0)
    grid = band.grid
    assert grid.shape == (101,) and np.all(np.diff(grid) > 0)
    assert grid[0] == pytest.approx(5 / 120, rel=1e-12)
    assert grid[-1] <= 1 - 5 / 120 + 1e-12
    # the upper end: where the observed TPR first reaches 1 - 5 / n_positives
    # (read on a grid ten times finer), or 1 - 5 / n_negatives if never
    top = 1 - 5 / 80
    fine = np.linspace(5 / 120, 1 - 5 / 120, 1010)
    observed = roc_curve_band(
        y, score, fpr_grid=fine, n_resamples=9, random_state=0
    ).estimate
    first = np.flatnonzero(observed >= top)
    expected = fine[max(first[0], 101)] if first.size else fine[-1]
    assert grid[-1] == pytest.approx(expected, rel=1e-12)
    assert band.estimate[-1] >= top or grid[-1] == fine[-1]


def test_default_pr_grid_and_small_classes():
    y, score = _binormal(80, 120, 1)
    band = precision_recall_band(y, score, n_resamples=99, random_state=0)
    assert band.grid[0] == pytest.approx(20 / 80, rel=1e-12)
    assert band.grid[-1] == pytest.approx(1 - 5 / 80, rel=1e-12)
    # a class of 8: the margins are at most a quarter of it
    y, score = _binormal(8, 12, 2)
    roc = roc_curve_band(y, score, n_resamples=99, random_state=0)
    assert roc.grid[0] == pytest.approx(3 / 12, rel=1e-12)
    pr = precision_recall_band(y, score, n_resamples=99, random_state=0)
    assert (pr.grid[0], pr.grid[-1]) == pytest.approx((2 / 8, 6 / 8), rel=1e-12)


def test_an_explicit_grid_is_used_as_given():
    y, score = _binormal(80, 120, 3)
    grid = np.linspace(0.0, 1.0, 101)
    band = roc_curve_band(y, score, fpr_grid=grid, n_resamples=99, random_state=0)
    np.testing.assert_array_equal(band.grid, grid)
    pr = precision_recall_band(
        y, score, recall_grid=grid, n_resamples=99, random_state=0
    )
    np.testing.assert_array_equal(pr.grid, grid)


@pytest.mark.slow
def test_simultaneous_roc_band_covers_the_true_curve_on_the_default_grid():
    # 200 binormal data sets (200 positives, 200 negatives), 999 replicates,
    # level 0.95: the band should cover the true curve at every grid point in
    # about 95% of them (measured 0.95-0.98 in other settings; 15-18% on the
    # grid 0, 0.01, ..., 1).  The binomial standard error at 0.95 is 0.015; the
    # test fails below 0.88 (more than 4.5 standard errors; false-failure
    # probability below 1e-5 when the coverage is 0.95).
    reps, hits = 200, 0
    for r in range(reps):
        y, score = _binormal(200, 200, 1000 + r)
        band = roc_curve_band(y, score, n_resamples=999, random_state=r)
        true = _true_tpr(band.grid)
        inside = (band.simultaneous_low <= true) & (true <= band.simultaneous_high)
        hits += bool(inside.all())
    assert hits / reps >= 0.88, hits / reps
