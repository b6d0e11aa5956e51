"""Built-in statistics on independent samples (``paired=False``): per-sample fused
statistics, optionally contrasted (difference, ratio), on the same replicates as a
callable taking one argument per sample."""

from __future__ import annotations

import joblib
import numpy as np
import pytest
import scipy.stats

from skboot import bootstrap

GEN = np.random.default_rng(11)
A = GEN.normal(size=300) + 5.0
B = GEN.normal(2.0, 3.0, size=170)
A2 = GEN.normal(size=(300, 3))
B2 = GEN.normal(size=(170, 3)) * 2.0


def _run(stat, data=(A, B), **kw):
    kw.setdefault("n_resamples", 60)
    kw.setdefault("random_state", 4)
    return bootstrap(data, stat, paired=False, **kw)


CALLABLES = {
    "mean": np.mean,
    "sum": np.sum,
    "var": lambda a: np.var(a, ddof=1),
    "std": np.std,
    "median": np.median,
    "quantile": lambda a: np.quantile(a, [0.1, 0.9]),
}
KWARGS = {"var": {"ddof": 1}, "quantile": {"q": [0.1, 0.9]}}


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_per_sample_values_are_the_callables_on_the_same_replicates(name):
    kw = KWARGS.get(name, {})
    res = _run(name, statistic_kwargs=kw or None)
    f = CALLABLES[name]
    ref = _run(
        lambda u, v: np.concatenate([np.atleast_1d(f(u)), np.atleast_1d(f(v))]),
        vectorized=False,
    )
    assert np.shape(res.distribution) == np.shape(ref.distribution)
    if name in ("median", "quantile"):  # data values, numpy's interpolation
        np.testing.assert_array_equal(res.distribution, ref.distribution)
    else:
        np.testing.assert_allclose(res.distribution, ref.distribution, rtol=1e-12)
    np.testing.assert_allclose(res.estimate, ref.estimate, rtol=1e-12)


@pytest.mark.parametrize(
    ("contrast", "op"), [("difference", np.subtract), ("ratio", np.divide)]
)
@pytest.mark.parametrize("name", ["mean", "median"])
def test_contrasts(contrast, op, name):
    f = CALLABLES[name]
    res = _run(name, statistic_kwargs={"contrast": contrast})
    ref = _run(lambda u, v: op(f(u), f(v)), vectorized=False)
    assert isinstance(res.estimate, float)
    assert np.shape(res.distribution) == (60,)
    np.testing.assert_allclose(res.distribution, ref.distribution, rtol=1e-12)
    assert res.estimate == pytest.approx(op(f(A), f(B)), rel=1e-13)


def test_columns_of_2d_samples_keep_a_vector():
    res = _run("mean", data=(A2, B2), statistic_kwargs={"contrast": "difference"})
    ref = _run(lambda u, v: u.mean(axis=0) - v.mean(axis=0), data=(A2, B2))
    assert np.shape(res.distribution) == (60, 3)
    np.testing.assert_allclose(res.distribution, ref.distribution, rtol=1e-11)


def test_bca_equals_scipy_given_the_distribution():
    """The multi-sample jackknife from per-sample closed forms gives scipy's
    acceleration (scipy's BCa on the same distribution)."""
    x, y = A[:40], B[:55]
    res = _run("mean", data=(x, y), statistic_kwargs={"contrast": "difference"})

    def diff(a, b, axis=-1):
        return a.mean(axis) - b.mean(axis)

    class _Dist:
        def __init__(self, d):
            self.bootstrap_distribution = d

    ours = res.confidence_interval(method="bca")
    ref = scipy.stats.bootstrap(
        (x, y),
        diff,
        n_resamples=0,
        method="bca",
        bootstrap_result=_Dist(np.asarray(res.distribution)),
    ).confidence_interval
    np.testing.assert_allclose([ours.low, ours.high], [ref.low, ref.high], rtol=1e-10)


def test_chunks_jobs_and_backends_do_not_change_a_bit():
    kw = {"statistic_kwargs": {"contrast": "ratio"}, "n_resamples": 37}
    base = _run("mean", **kw).distribution
    for chunk in (1, 5):
        np.testing.assert_array_equal(
            _run("mean", chunk_size=chunk, **kw).distribution, base
        )
    np.testing.assert_array_equal(_run("mean", n_jobs=2, **kw).distribution, base)
    with joblib.parallel_config(backend="threading"):
        np.testing.assert_array_equal(_run("mean", n_jobs=2, **kw).distribution, base)


def test_three_samples_without_contrast():
    C = GEN.normal(size=90)
    res = _run("mean", data=(A, B, C))
    ref = _run(lambda u, v, w: [u.mean(), v.mean(), w.mean()], data=(A, B, C))
    np.testing.assert_allclose(res.distribution, ref.distribution, rtol=1e-12)


@pytest.mark.parametrize(
    ("stat", "data", "kwargs", "match"),
    [
        ("mean", (A, B), {"contrast": "sum"}, "'contrast' statistic keyword of"),
        ("corr", (A, B), None, "with independent samples .paired=False., one of"),
        ("mode", (A, B), None, "with independent samples .paired=False., one of"),
        ("mean", (A, B, B), {"contrast": "difference"}, "exactly two samples"),
        ("mean", (A2, B), {"contrast": "difference"}, "same number of values"),
        ("mean", (A, B), {"ddof": 1}, "accepts \\['contrast'\\] for statistic 'mean'"),
        ("var", (A, B), {"ddof": 500}, "smaller than the replicate size 300"),
    ],
)
def test_bad_input(stat, data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        _run(stat, data=data, statistic_kwargs=kwargs)
