"""Stream version 2 and the results of version 1.

The files under tests/data were saved by skboot at stream version 1 (commit
4a7bc88, with tests/data/make_stream_v1_results.py): they still load and say they
were made by version 1; repeating them under version 2 gives the same replicates
for every resampler but the Bayesian bootstrap, whose values change in their last
bits only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import skboot
from skboot import BootstrapResult, BootstrapScore, PermutationTestResult
from skboot.statistic._schema import READ_STREAM_VERSIONS

DATA = Path(__file__).resolve().parent / "data"
_spec = importlib.util.spec_from_file_location(
    "make_stream_v1_results", DATA / "make_stream_v1_results.py"
)
assert _spec is not None and _spec.loader is not None
_maker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_maker)

RESAMPLERS = {
    "bayesian": skboot.BayesianBootstrap(),
    "iid": skboot.Bootstrap(),
    "stationary": skboot.StationaryBootstrap(block_length=3.5),
    "poisson": skboot.PoissonBootstrap(),
}


def test_current_stream_is_version_2_and_version_1_is_readable():
    assert skboot.STREAM_VERSION == 2
    assert READ_STREAM_VERSIONS == (1, 2)


@pytest.mark.parametrize("name", sorted(RESAMPLERS))
def test_version_1_results_load_and_say_so(name):
    res = BootstrapResult.load(DATA / f"stream_v1_bootstrap_{name}.npz")
    assert res.stream_version == 1
    assert res.to_dict()["stream_version"] == 1
    assert res.n_resamples == 16 and res.distribution.shape == (16,)


@pytest.mark.parametrize("name", ["iid", "stationary", "poisson"])
def test_other_resamplers_repeat_version_1_bit_for_bit(name):
    old = BootstrapResult.load(DATA / f"stream_v1_bootstrap_{name}.npz")
    x = _maker.data()[0]
    new = skboot.bootstrap(
        x, "mean", resampler=RESAMPLERS[name], n_resamples=16, random_state=7
    )
    assert new.stream_version == 2
    np.testing.assert_array_equal(new.distribution, old.distribution)
    assert new.estimate == old.estimate


def test_bayesian_replicates_change_in_their_last_bits_only():
    """Version 1's weights (the C library's log1p) and version 2's (skboot's own
    logarithm) differ in the last bit of some weights, never by more than a few
    ulps; the replicate values agree to that precision."""
    old_w = np.load(DATA / "stream_v1_dirichlet_weights.npy", allow_pickle=False)
    plan = skboot.BayesianBootstrap(random_state=7).fit(np.zeros(1000)).plan_
    new_w = np.stack([plan.weights(b) for b in range(4)])
    assert (new_w != old_w).any()
    np.testing.assert_allclose(new_w, old_w, rtol=1e-15)
    old = BootstrapResult.load(DATA / "stream_v1_bootstrap_bayesian.npz")
    x = _maker.data()[0]
    new = skboot.bootstrap(
        x, "mean", resampler=RESAMPLERS["bayesian"], n_resamples=16, random_state=7
    )
    assert new.stream_version == 2
    np.testing.assert_allclose(new.distribution, old.distribution, rtol=1e-14)
    assert new.estimate == old.estimate  # the estimate uses no weights


def test_version_1_test_and_score_results_load_and_say_so():
    a, b = _maker.data()[3:]
    perm = PermutationTestResult.load(DATA / "stream_v1_permutation.npz")
    assert perm.stream_version == 1
    again = skboot.permutation_test(
        (a, b), lambda u, v: u.mean() - v.mean(), n_resamples=30, random_state=7
    )
    assert again.stream_version == 2
    np.testing.assert_array_equal(again.null_distribution, perm.null_distribution)
    assert again.pvalue == perm.pvalue
    score = BootstrapScore.load(DATA / "stream_v1_score.npz")
    assert score.stream_version == 1 and score.n_resamples == 8
