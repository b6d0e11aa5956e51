"""MetricCI.plot and MetricComparison.plot, checked by the artists drawn
(headless Agg backend), as BootstrapResult.plot is in test_plotting."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402

from skboot import (  # noqa: E402
    UndefinedStatisticWarning,
    compare_metrics,
    metric_ci,
)

rng = np.random.default_rng(0)
Y = rng.integers(0, 2, 150)
Y[:2] = [0, 1]
GOOD = Y + rng.normal(size=150)
WEAK = Y + rng.normal(0, 2.5, size=150)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _bars(ax):
    (hist,) = ax.containers  # the histogram's BarContainer, and only it
    return list(hist.patches)


def _span_x(ax):
    """x-extent of the interval span (the patch that is not a histogram bar)."""
    bars = set(_bars(ax))
    (span,) = [p for p in ax.patches if p not in bars]
    if isinstance(span, Polygon):
        xs = span.get_xy()[:, 0]
    else:
        xs = span.get_path().transformed(span.get_patch_transform()).vertices[:, 0]
    return float(np.min(xs)), float(np.max(xs))


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_metric_ci_plot_draws_its_interval():
    res = metric_ci(
        Y, GOOD, "roc_auc", n_resamples=400, random_state=0, method="percentile"
    )
    ax = res.plot(bins=25)
    bars = _bars(ax)
    assert len(bars) == 25
    assert sum(b.get_height() for b in bars) == 400
    counts, _ = np.histogram(res.distribution, bins=25)
    np.testing.assert_array_equal([b.get_height() for b in bars], counts)
    (line,) = ax.get_lines()
    assert line.get_xdata()[0] == res.estimate
    assert _span_x(ax) == pytest.approx(tuple(res.confidence_interval()))
    assert ax.get_xlabel() == "roc_auc"
    assert ax.get_title() == "Bootstrap distribution, B = 400"
    assert any(t.startswith("95% percentile [") for t in _legend(ax))


def test_metric_ci_plot_other_interval_from_the_same_replicates():
    res = metric_ci(Y, GOOD, "roc_auc", n_resamples=400, random_state=1)
    other = res.confidence_interval(level=0.8, method="basic")
    assert other.low != res.confidence_interval().low
    _, ax = plt.subplots()
    out = res.plot(ax=ax, level=0.8, method="Basic")
    assert out is ax
    assert _span_x(ax) == pytest.approx((other.low, other.high))
    assert any(t.startswith("80% basic [") for t in _legend(ax))


def test_metric_ci_plot_with_undefined_replicates_omitted():
    """Only the defined replicates are drawn; the title counts the others."""
    y = np.array([0, 1] + [0] * 10)
    s = np.linspace(0, 1, 12)
    with pytest.warns(UndefinedStatisticWarning):
        res = metric_ci(
            y, s, "roc_auc", n_resamples=200, random_state=0, undefined="omit",
            method="percentile",
        )  # fmt: skip
    assert res.n_undefined > 0
    ax = res.plot()
    assert sum(b.get_height() for b in _bars(ax)) == 200 - res.n_undefined
    assert ax.get_title() == (
        f"Bootstrap distribution, B = {200 - res.n_undefined} "
        f"({res.n_undefined} undefined omitted)"
    )


def test_metric_comparison_plot_draws_the_line_of_no_difference():
    cmp = compare_metrics(Y, GOOD, WEAK, "roc_auc", n_resamples=300, random_state=0)
    ax = cmp.plot(bins=15)
    assert sum(b.get_height() for b in _bars(ax)) == 300
    xs = [ln.get_xdata()[0] for ln in ax.get_lines()]
    assert xs == [cmp.estimate, 0.0]
    assert _span_x(ax) == pytest.approx(tuple(cmp.confidence_interval()))
    assert ax.get_xlabel() == "roc_auc(a) - roc_auc(b)"
    assert f"no difference (p = {cmp.pvalue:.3g})" in _legend(ax)
    assert any(t.startswith("95% bca [") for t in _legend(ax))


def test_metric_plot_with_text_labels():
    names = np.where(Y == 1, "malignant", "benign")
    pred = np.where(GOOD > 0.5, "malignant", "benign")
    res = metric_ci(names, pred, "f1", pos_label="malignant", n_resamples=100,
                    random_state=0)  # fmt: skip
    ax = res.plot()
    assert ax.get_xlabel() == "f1"
    assert sum(b.get_height() for b in _bars(ax)) == 100


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "studentized"}, ValueError,
         r"'method' parameter of plot must be one of \{'percentile', 'basic', "
         r"'normal', 'bc', 'bca'\}"),
        ({"level": 1.5}, ValueError, r"'level' parameter of plot must be a float in "
         r"\(0, 1\)\. Got 1\.5"),
        ({"column": 0}, TypeError, r"plot\(\) got an unexpected keyword argument "
         r"'column' \(it takes ax and method, level, bins\)"),
    ],
)  # fmt: skip
def test_metric_plot_rejects_bad_options(kwargs, error, match):
    res = metric_ci(Y, GOOD, "roc_auc", n_resamples=50, random_state=0)
    cmp = compare_metrics(Y, GOOD, WEAK, "roc_auc", n_resamples=50, random_state=0)
    for result in (res, cmp):
        with pytest.raises(error, match=match):
            result.plot(**kwargs)
    assert not plt.get_fignums()  # refused before a figure was made


def test_metric_plot_labels_are_not_clipped(tmp_path):
    cmp = compare_metrics(Y, GOOD, WEAK, "roc_auc", n_resamples=200, random_state=0)
    fig = cmp.plot().figure
    path = tmp_path / "cmp.png"
    fig.savefig(path)
    assert path.stat().st_size > 1000
    renderer = fig.canvas.get_renderer()
    box = fig.axes[0].get_tightbbox(renderer)
    assert box.x0 >= 0 and box.y0 >= 0
    assert box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height
