"""One path from ``bootstrap()`` to the kernels: every parameter is checked once,
at the entry point (``bootstrap``, ``BootstrapStatistic.fit``,
``BootstrapResult.confidence_interval`` / ``pvalue``), and the layers below trust
it; ``BootstrapStatistic.fit`` runs the functions ``bootstrap()`` runs; the
plans share one ``fused_moments``; every resampler declares its parameters in
one constraint table.

The validation counts are measured with ``sys.setprofile`` on the leaf checks
(``validate_params`` per parameter, ``check_one_of``, ``check_int``, the
resampler's ``check_params``, ``check_jackknife_groups``,
``check_random_state``): a wrapper such as ``check_level`` reaches
``validate_params`` and is counted there, once.
"""

from __future__ import annotations

import collections
import inspect
import sys

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

import skboot
import skboot._engine._builtin as builtin
from skboot import BootstrapStatistic, bootstrap
from skboot.resamplers import BaseResampler, ResamplingPlan

X = np.random.default_rng(0).normal(size=200)

_LEAVES = {
    "validate_params",
    "check_one_of",
    "check_int",
    "check_jackknife_groups",
    "check_random_state",
    "check_params",
}


def _checks(call) -> collections.Counter:
    """How many times each parameter is checked while ``call()`` runs."""
    counts: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        code = frame.f_code
        if event != "call" or code.co_name not in _LEAVES:
            return
        if "skboot" not in code.co_filename:
            return
        loc = frame.f_locals
        name = code.co_name
        if name == "validate_params":
            counts.update(loc["values"].keys())
        elif name in ("check_one_of", "check_int"):
            counts[loc["name"]] += 1
        elif name == "check_params":
            # a subclass's check_params calling its parent's counts once
            if frame.f_back.f_code.co_name != "check_params":
                counts["resampler parameters"] += 1
        else:
            counts[name.replace("check_", "")] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return counts


@pytest.fixture(scope="module")
def result():
    return bootstrap(X, "mean", n_resamples=99, random_state=0)


ENTRY_POINTS = {
    "bootstrap": lambda: bootstrap(X, "mean", n_resamples=99, random_state=0),
    "bootstrap-resampler": lambda: bootstrap(
        X,
        np.mean,
        resampler=skboot.MovingBlockBootstrap(99, block_length=5, random_state=0),
    ),
    "bootstrap-sample_size": lambda: bootstrap(
        X, "var", resampler=skboot.Bootstrap(99, sample_size=0.5, random_state=0)
    ),
    "fit": lambda: BootstrapStatistic("mean", n_resamples=99, random_state=0).fit(X),
    "fit-estimator": lambda: BootstrapStatistic(
        lambda m: m.coef_,
        estimator=LinearRegression(),
        n_resamples=9,
        random_state=0,
    ).fit(X[:, None], 2 * X),
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_parameter_is_checked_once_per_run(name):
    ENTRY_POINTS[name]()  # compiled, cached
    counts = _checks(ENTRY_POINTS[name])
    run_params = {
        "n_resamples",
        "vectorized",
        "statistic_kwargs",
        "n_jobs",
        "chunk_size",
        "progress",
        "nan_policy",
        "device",
        "random_state",
    }
    assert run_params <= set(counts), counts
    twice = {k: v for k, v in counts.items() if v > 1}
    if name == "bootstrap-resampler" or name == "bootstrap-sample_size":
        # the call's n_resamples (None) and the resampler's own are two values
        assert twice == {"n_resamples": 2}, counts
    else:
        assert not twice, counts


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.confidence_interval(),
        lambda r: r.confidence_interval(0.9, "percentile", "less"),
        lambda r: r.confidence_interval(0.9, "BCa", jackknife_groups=10),
        lambda r: r.pvalue(0.0),
        lambda r: r.pvalue(0.0, "greater", "basic"),
    ],
)
def test_every_option_is_checked_once_per_interval_or_pvalue(result, call):
    counts = _checks(lambda: call(result))
    assert counts["alternative"] == 1, counts
    assert counts["jackknife_groups"] == 1, counts
    assert all(v == 1 for v in counts.values()), counts


def test_the_kernel_is_six_calls_below_bootstrap(monkeypatch):
    """bootstrap > run > run_bootstrap > _run_range > run_chunk > _chunk_moments:
    the shared entry path adds no layer."""
    seen = {}
    choose = builtin.iid_sum_kernel

    def spy_choice(n):
        kernel = choose(n)

        def spy(*args):
            names = [f.function for f in inspect.stack()[1:]]
            seen["stack"] = names[: names.index("bootstrap") + 1]
            return kernel(*args)

        return spy

    monkeypatch.setattr(builtin, "iid_sum_kernel", spy_choice)
    bootstrap(X, "mean", n_resamples=99, random_state=0)
    assert len(seen["stack"]) <= 6, seen["stack"]


def test_fit_runs_the_bootstrap_path_and_fits_the_resampler_once(monkeypatch):
    calls = []
    original = BaseResampler.fit_with_key

    def counting(self, key, X, y=None, groups=None):
        calls.append(type(self).__name__)
        return original(self, key, X, y, groups)

    monkeypatch.setattr(BaseResampler, "fit_with_key", counting)
    est = BootstrapStatistic(
        lambda m: m.coef_, estimator=LinearRegression(), n_resamples=9, random_state=0
    ).fit(X[:, None], 2 * X + 1)
    assert calls == ["Bootstrap"]  # no probe fit before the run
    assert est.distribution_.shape == (9,)
    fitted = BootstrapStatistic("var", n_resamples=99, random_state=3).fit(X)
    assert fitted.result_ == bootstrap(X, "var", n_resamples=99, random_state=3)


def test_bootstrap_pvalue_is_removed():
    """P-values are the result's method (it only forwarded to it)."""
    assert not hasattr(skboot, "bootstrap_pvalue")
    assert not hasattr(skboot.significance, "bootstrap_pvalue")
    assert "bootstrap_pvalue" not in skboot.__all__


def _plan_classes(cls=ResamplingPlan):
    for sub in cls.__subclasses__():
        yield sub
        yield from _plan_classes(sub)


def test_fused_moments_is_defined_once():
    fusing = [c for c in _plan_classes() if c.fuses_moments]
    assert len(fusing) >= 7
    for cls in fusing:
        assert cls.fused_moments is ResamplingPlan.fused_moments, cls
        assert "_moments_kernel" in vars(cls) or any(
            "_moments_kernel" in vars(base) for base in cls.__mro__[1:-1]
        ), cls


def _resampler_classes(cls=BaseResampler):
    for sub in cls.__subclasses__():
        if not sub.__name__.startswith("_"):
            yield sub
        yield from _resampler_classes(sub)


@pytest.mark.parametrize(
    "cls", sorted(set(_resampler_classes()), key=lambda c: c.__name__)
)
def test_every_resampler_declares_its_parameters_in_one_table(cls):
    if cls.__module__.startswith("skboot.model_based"):
        pytest.skip("model-based resamplers check their model parameters themselves")
    params = set(inspect.signature(cls).parameters) - {"random_state"}
    assert set(cls._parameter_constraints) == params
    assert "check_params" not in vars(cls)
