"""The metric jackknife's closed-form leave-one-out values.

Average precision (unit, integer and continuous weights, ties, one class),
balanced accuracy, R^2 and the micro / macro averages of precision, recall
and F1 equal the definition (the kernel with one row's weight zeroed, one call
per row) to 1e-12; ``MetricStatistic.jackknife()`` returns them; and a BCa
interval compiles the closed forms, never the O(n^2) per-row loop.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_compile_scope import compiled_in_child

from skboot._kernels.metric import metric_loo
from skboot._kernels.metric_loo import AP_DISTINCT_WEIGHTS
from skboot.metrics import METRICS, pack
from skboot.metrics._statistics import MetricStatistic

TOL = {"rtol": 1e-12, "atol": 1e-12}
WEIGHTS = ("unit", "integer", "integer_with_zeros", "continuous", "continuous_zeros")


def _weights(kind, rng, n):
    if kind == "unit":
        return np.ones(n)
    if kind == "integer":
        return rng.integers(1, 5, n).astype(np.float64)
    if kind == "integer_with_zeros":
        return rng.integers(0, 4, n).astype(np.float64)
    if kind == "continuous":
        return rng.uniform(0.1, 3.0, n)
    return rng.uniform(0.1, 3.0, n) * (rng.random(n) < 0.7)


def _definition(prepared, sw):
    """The metric with each row's weight zeroed in turn."""
    out = np.empty(sw.shape[0])
    for i in range(sw.shape[0]):
        w = sw.copy()
        w[i] = 0.0
        out[i] = prepared.kernel(*prepared.args, w)
    return out


def _check(prepared, sw):
    p = pack(prepared)
    out = np.empty(sw.shape[0])
    metric_loo(p, p, False, sw, out)
    expected = _definition(prepared, sw)
    np.testing.assert_allclose(out, expected, equal_nan=True, **TOL)
    return expected


def _ap_data(rng, case, n):
    y = rng.integers(0, 2, n)
    pattern = case % 6
    if pattern == 0:
        y[:] = 0  # no positive: undefined everywhere
    elif pattern == 1:
        y[:] = 1  # no negative: 1 everywhere (but the last positive)
    elif pattern == 2:
        y[:] = 0
        y[rng.integers(0, n)] = 1  # a single positive
    if case % 2:
        score = rng.integers(0, 4, n).astype(np.float64)  # heavy ties
    else:
        score = np.round(rng.normal(0.6 * y, 1.0), 1)
    return y, score


@pytest.mark.parametrize("kind", WEIGHTS)
def test_average_precision_loo_equals_the_definition(kind):
    rng = np.random.default_rng(WEIGHTS.index(kind))
    seen_nan = seen_value = 0
    for case in range(120):
        n = int(rng.integers(1, 40))
        y, score = _ap_data(rng, case, n)
        prepared = METRICS["average_precision"].prepare(y, score)
        expected = _check(prepared, _weights(kind, rng, n))
        seen_nan += int(np.isnan(expected).any())
        seen_value += int(np.isfinite(expected).any())
    assert seen_nan and seen_value  # both the undefined and the defined cases


def test_average_precision_loo_with_a_dominant_weight_and_zero_rows():
    # one heavy row at the top, rows of weight zero tied with others
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    score = np.array([5.0, 5.0, 4.0, 3.0, 3.0, 2.0, 1.0, 1.0])
    prepared = METRICS["average_precision"].prepare(y, score)
    for sw in (
        np.array([100.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0]),
        np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
        np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ):
        _check(prepared, sw)


@pytest.mark.parametrize(
    "kind", ["uniform", "lognormal", "tiny", "huge", "many_integers", "mixed_scales"]
)
def test_average_precision_loo_with_many_distinct_weights(kind):
    # more distinct weights than AP_DISTINCT_WEIGHTS: the series in the deleted
    # weight, with the groups above 8 times it summed term by term
    rng = np.random.default_rng(7)
    n = 400
    y = rng.integers(0, 2, n)
    score = np.round(y + rng.normal(size=n), 1)
    sw = {
        "uniform": rng.uniform(0.5, 2.0, n),
        "lognormal": np.exp(3.0 * rng.normal(size=n)),
        "tiny": rng.uniform(0.5, 2.0, n) * 1e-150,
        "huge": rng.uniform(0.5, 2.0, n) * 1e150,
        "many_integers": rng.integers(1, 60, n).astype(np.float64),
        # rows of weight 1e-30 beside rows of weight about 1: a heavy row's
        # count above it is nearly its own weight
        "mixed_scales": np.where(rng.random(n) < 0.5, 1e-30, 1.0)
        * rng.uniform(0.5, 2.0, n),
    }[kind]
    prepared = METRICS["average_precision"].prepare(y, score)
    assert np.unique(sw).shape[0] > AP_DISTINCT_WEIGHTS
    _check(prepared, sw)


@pytest.mark.parametrize("kind", WEIGHTS)
def test_balanced_accuracy_loo_equals_the_definition(kind):
    rng = np.random.default_rng(3)
    for case in range(60):
        n = int(rng.integers(2, 30))
        k = 2 + case % 3
        y = rng.integers(0, k, n)
        y[0] = 0
        y[1] = 1
        pred = np.where(rng.random(n) < 0.4, rng.integers(0, k, n), y)
        prepared = METRICS["balanced_accuracy"].prepare(y, pred)
        _check(prepared, _weights(kind, rng, n))


@pytest.mark.parametrize("kind", WEIGHTS)
@pytest.mark.parametrize("force_finite", [False, True])
def test_r2_loo_equals_the_definition(kind, force_finite):
    rng = np.random.default_rng(4)
    for case in range(60):
        n = int(rng.integers(1, 30))
        if case % 3 == 0:
            y = rng.integers(0, 2, n).astype(np.float64)  # constant without a row
        else:
            y = np.round(rng.normal(size=n), 1)
        fitted = y if case % 5 == 0 else y + np.round(rng.normal(size=n), 1)
        prepared = METRICS["r2"].prepare(y, fitted, force_finite=force_finite)
        _check(prepared, _weights(kind, rng, n))


PRF_OPTIONS = [
    {"average": "macro"},
    {"average": "micro"},
    {"average": "macro", "zero_division": 1.0},
    {"average": "macro", "labels": [0, 2]},
    {"average": "micro", "labels": [0, 2]},
    {"average": "macro", "labels": [0, 1, 2, 3]},
]


@pytest.mark.parametrize("name", ["precision", "recall", "f1"])
@pytest.mark.parametrize("options", PRF_OPTIONS, ids=str)
def test_averaged_prf_loo_equals_the_definition(name, options):
    rng = np.random.default_rng(5)
    for case in range(25):
        n = int(rng.integers(3, 30))
        y = rng.integers(0, 3, n)
        y[:3] = [0, 1, 2]
        pred = np.where(rng.random(n) < 0.4, rng.integers(0, 3, n), y)
        prepared = METRICS[name].prepare(y, pred, **options)
        _check(prepared, _weights(WEIGHTS[case % len(WEIGHTS)], rng, n))


@pytest.mark.parametrize("weighted", [False, True])
def test_jackknife_returns_the_closed_form(weighted):
    rng = np.random.default_rng(6)
    n = 50
    y = rng.integers(0, 2, n)
    a = np.round(y + rng.normal(size=n), 1)
    b = np.round(y + 2.0 * rng.normal(size=n), 1)
    sw = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    ref_sw = sw if weighted else np.ones(n)
    pa = METRICS["average_precision"].prepare(y, a)
    pb = METRICS["average_precision"].prepare(y, b)
    one = MetricStatistic(pa, sw).jackknife()[:, 0]
    np.testing.assert_allclose(one, _definition(pa, ref_sw), **TOL)
    two = MetricStatistic(pa, sw, other=pb).jackknife()[:, 0]
    expected = _definition(pa, ref_sw) - _definition(pb, ref_sw)
    np.testing.assert_allclose(two, expected, **TOL)


CHILD = """
import numpy as np
import skboot

rng = np.random.default_rng(0)
n = 60
y = rng.integers(0, 2, n)
y3 = rng.integers(0, 3, n)
w = rng.integers(1, 4, n).astype(float)
target = rng.normal(size=n)
kw = dict(method="bca", n_resamples=99, random_state=0)
skboot.metric_ci(y, y + rng.normal(size=n), "average_precision", sample_weight=w, **kw)
skboot.metric_ci(y3, np.roll(y3, 1), "balanced_accuracy", **kw)
skboot.metric_ci(y3, np.roll(y3, 1), "f1", average="macro", **kw)
skboot.metric_ci(target, target + rng.normal(size=n), "r2", **kw)
"""


def test_bca_compiles_the_closed_forms_not_the_per_row_loop(tmp_path):
    # a fresh kernel cache, so every kernel the run needs is compiled (and
    # seen) in the child; the per-row loop is what made these O(n^2)
    compiled = compiled_in_child(CHILD, tmp_path)
    closed = {
        "loo_average_precision",
        "loo_balanced_accuracy",
        "loo_prf_multiclass",
        "loo_r2",
    }
    assert closed <= compiled, sorted(closed - compiled)
    assert "loo_generic" not in compiled
