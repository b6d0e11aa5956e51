"""Plots, checked by the artists drawn (headless Agg backend)."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402

from skboot import bootstrap  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_plot_draws_histogram_estimate_and_interval():
    x = np.random.default_rng(0).normal(size=300)
    res = bootstrap(x, "mean", n_resamples=500, random_state=0)
    ax = res.plot(method="percentile", bins=20)
    (hist,) = ax.containers  # the histogram's BarContainer
    bars = list(hist.patches)
    assert len(bars) == 20
    assert sum(b.get_height() for b in bars) == 500
    lines = [ln for ln in ax.get_lines() if np.allclose(ln.get_xdata(), res.estimate)]
    assert len(lines) == 1
    span = [p for p in ax.patches if p not in bars]
    assert len(span) == 1
    ci = res.confidence_interval(method="percentile")
    xs = np.asarray(
        span[0].get_path().transformed(span[0].get_patch_transform()).vertices
    )[:, 0]
    if isinstance(span[0], Polygon):
        xs = span[0].get_xy()[:, 0]
    assert xs.min() == pytest.approx(ci.low) and xs.max() == pytest.approx(ci.high)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("95% percentile" in t for t in labels)


def test_plot_vector_statistic_needs_column_and_uses_given_axes():
    X = np.random.default_rng(1).normal(size=(200, 2))
    res = bootstrap(X, "mean", n_resamples=100, random_state=0)
    with pytest.raises(ValueError, match="'column' parameter of plot is required"):
        res.plot()
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]. Got 5"):
        res.plot(column=5)
    _, ax = plt.subplots()
    out = res.plot(ax=ax, column=1, bins=10)
    assert out is ax
    assert ax.get_xlabel() == "mean [1]"
    assert sum(p.get_height() for p in ax.containers[0].patches) == 100


def test_plot_shaped_statistic_by_index_tuple():
    """A refit statistic of shape (2, 3) (a two-output regression's coef_): the
    element is chosen by its index tuple or its flat position (C order)."""
    from sklearn.linear_model import LinearRegression

    from skboot import BootstrapStatistic

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    Y = X @ rng.normal(size=(3, 2)) + rng.normal(size=(60, 2))
    est = BootstrapStatistic(
        lambda m: m.coef_, estimator=LinearRegression(), n_resamples=40, random_state=0
    ).fit(X, Y)
    res = est.result_
    assert res.distribution.shape == (40, 2, 3)
    ax = res.plot(column=(1, 2), bins=5)
    heights = [p.get_height() for p in ax.containers[0].patches]
    counts, _ = np.histogram(res.distribution[:, 1, 2], bins=5)
    np.testing.assert_array_equal(heights, counts)
    assert ax.get_xlabel() == "<lambda> [5]"
    lines = [ln.get_xdata()[0] for ln in ax.get_lines()]
    assert res.estimate[1, 2] in lines
    with pytest.raises(ValueError, match=r"index into the statistic's shape \(2, 3\)"):
        res.plot(column=(2, 0))
    with pytest.raises(ValueError, match=r"required for a statistic with 6 outputs"):
        res.plot()
