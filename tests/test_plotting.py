"""Plots, checked by the artists drawn (headless Agg backend)."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

from skboot import BootstrapStatistic, bootstrap  # noqa: E402


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


def _span_x(ax):
    """x-extent of the interval span (the patch that is not a histogram bar)."""
    bars = set(ax.containers[0].patches)
    (span,) = [p for p in ax.patches if p not in bars]
    xs = span.get_xy()[:, 0] if isinstance(span, Polygon) else None
    if xs is None:
        xs = span.get_path().transformed(span.get_patch_transform()).vertices[:, 0]
    return np.min(xs), np.max(xs)


def test_plot_vector_statistic_draws_a_grid_or_one_column():
    X = np.random.default_rng(1).normal(size=(200, 3))
    res = bootstrap(X, "mean", n_resamples=100, random_state=0)
    axes = res.plot(bins=10)
    assert isinstance(axes, np.ndarray) and axes.shape == (3,)
    assert len(axes[0].figure.axes) == 3  # one Axes per output, no empty ones
    assert [a.get_xlabel() for a in axes] == ["mean [0]", "mean [1]", "mean [2]"]
    ci = res.confidence_interval()  # the same default method: bca
    for j, a in enumerate(axes):
        assert sum(p.get_height() for p in a.containers[0].patches) == 100
        assert _span_x(a) == pytest.approx((ci.low[j], ci.high[j]))
    with pytest.raises(ValueError, match=r"must be in \[0, 2\]. Got 5"):
        res.plot(column=5)
    _, ax = plt.subplots()
    out = res.plot(ax=ax, column=1, bins=10)
    assert out is ax
    assert ax.get_xlabel() == "mean [1]"
    assert sum(p.get_height() for p in ax.containers[0].patches) == 100
    _, given = plt.subplots(1, 3)
    assert list(res.plot(ax=given)) == list(given)
    with pytest.raises(ValueError, match=r"'ax' parameter of plot must hold one Axes"):
        res.plot(ax=ax)


def test_plot_grid_is_labelled_by_columns():
    frame = pd.DataFrame(
        np.random.default_rng(2).exponential(size=(80, 2)), columns=["a", "b"]
    )
    axes = bootstrap(frame, "median", n_resamples=200, random_state=0).plot()
    assert [a.get_xlabel() for a in axes] == ["median [a]", "median [b]"]
    assert [a.get_title() for a in axes] == ["median [a]", "median [b]"]


def test_plot_duplicate_column_names_keep_their_labels():
    frame = pd.DataFrame(
        np.random.default_rng(2).exponential(size=(80, 3)), columns=["a", "b", "a"]
    )
    axes = bootstrap(frame, "mean", n_resamples=200, random_state=0).plot()
    assert [a.get_title() for a in axes] == [
        "mean [a] (column 0)",
        "mean [b]",
        "mean [a] (column 2)",
    ]


def test_plot_named_series_keeps_its_name():
    series = pd.Series(np.random.default_rng(3).exponential(size=80), name="income")
    ax = bootstrap(series, "mean", n_resamples=200, random_state=0).plot()
    assert ax.get_xlabel() == "mean of income"
    unnamed = bootstrap(series.to_numpy(), "mean", n_resamples=200, random_state=0)
    assert unnamed.plot().get_xlabel() == "mean"


def test_plot_uses_the_default_interval_method_bca_in_any_case():
    x = np.random.default_rng(3).exponential(size=60)
    res = bootstrap(x, "mean", n_resamples=400, random_state=0)
    bca = res.confidence_interval()
    pct = res.confidence_interval(method="percentile")
    assert abs(bca.low - pct.low) > 1e-3  # the two differ on skewed data
    for ax in (res.plot(), res.plot(method="BCa")):
        assert _span_x(ax) == pytest.approx((bca.low, bca.high))
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any(t.startswith("95% bca [") for t in legend)


@pytest.mark.parametrize("k", [1, 5])
def test_plot_labels_are_not_clipped(tmp_path, k):
    """Everything drawn (titles, axis and tick labels, legends) lies inside the
    saved figure: large values make long tick labels."""
    X = np.random.default_rng(4).normal(loc=1e4, size=(100, k))
    res = bootstrap(X if k > 1 else X[:, 0], "std", n_resamples=300, random_state=0)
    out = res.plot()
    fig = (out if k == 1 else out[0]).figure
    path = tmp_path / "plot.png"
    fig.savefig(path)
    assert path.stat().st_size > 1000
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]
    if fig._suptitle is not None:
        boxes.append(fig._suptitle.get_window_extent(renderer))
    assert len(boxes) == (1 if k == 1 else k + 1)
    for box in boxes:
        assert box.x0 >= 0 and box.y0 >= 0
        assert box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height


def test_bootstrap_statistic_plot():
    X = np.random.default_rng(5).normal(size=(120, 2))
    est = BootstrapStatistic("mean", n_resamples=50, random_state=0)
    with pytest.raises(NotFittedError):
        est.plot()
    axes = est.fit(X).plot(bins=5)
    assert axes.shape == (2,)
    assert sum(p.get_height() for p in axes[1].containers[0].patches) == 50


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
    assert res.plot().shape == (6,)  # every element, one Axes each
