"""Bad-input catalogue of the multiple-comparison procedures (SPA, RealityCheck,
StepM, MCS): constructors, ``compute``, ``compute_metric`` and the result
methods.

The policy of ``tests/test_bad_inputs.py``, for this family: every invalid
argument raises a ``ValueError`` naming the parameter, what is allowed and what
was given, raised by skboot's own code (the last traceback frame is in the
package) and before any resampling work (``run_bootstrap`` of the replicate
module is replaced by a function that fails the test); no input array is
modified and no numpy warning escapes (pytest runs with
``filterwarnings = error``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from work_guard import forbid_work

import skboot
from skboot import (
    MCS,
    SPA,
    Bootstrap,
    RealityCheck,
    StationaryBootstrap,
    StepM,
)

_GEN = np.random.default_rng(5)
LOSS = _GEN.chisquare(5, (40, 3))
BM = _GEN.chisquare(5, 40)
Y = np.tile([0, 1], 20)
SCORE = Y + _GEN.normal(size=40)
PREDS = np.column_stack([SCORE, SCORE + _GEN.normal(size=40)])
NAN_LOSS = LOSS.copy()
NAN_LOSS[4, 1] = np.nan
TWIN = np.column_stack([LOSS, LOSS[:, 1] + 1.0])
INPUTS = (LOSS, BM, Y, SCORE, PREDS, NAN_LOSS, TWIN)
SNAPSHOT = [a.copy() for a in INPUTS]

V = ValueError
#: ``(id, call, exception, match, pre)``; ``pre``: raised before any resampling.
CASES: list[tuple[str, Callable[[], Any], type[BaseException], str, bool]] = []


def case(id_, call, exc, match, pre=True):
    CASES.append((id_, call, exc, match, pre))


def _spa_result():
    return SPA(block_length=3, n_resamples=20, random_state=0).compute(BM, LOSS)


# fmt: off
# -- constructor parameters (checked on entry to compute) ----------------------
case("spa-n_resamples-0", lambda: SPA(n_resamples=0).compute(BM, LOSS), V, r"'n_resamples' parameter of SPA must be an int in \[1, 2\*\*32 - 1\] or None. Got 0 instead")
case("spa-n_resamples-float", lambda: SPA(n_resamples=1.5).compute(BM, LOSS), V, r"'n_resamples' parameter of SPA must be an int in \[1, 2\*\*32 - 1\] or None. Got 1.5")
case("spa-n_resamples-str", lambda: SPA(n_resamples="10").compute(BM, LOSS), V, r"'n_resamples' parameter of SPA must be an int in \[1, 2\*\*32 - 1\] or None. Got '10'")
case("mcs-n_resamples-2**32", lambda: MCS(n_resamples=2**32).compute(LOSS), V, r"'n_resamples' parameter of MCS must be an int in \[1, 2\*\*32 - 1\] or None. Got 4294967296")
case("spa-n_jobs-0", lambda: SPA(n_jobs=0).compute(BM, LOSS), V, r"'n_jobs' parameter of SPA must be an int other than 0.*Got 0")
case("mcs-n_jobs-str", lambda: MCS(n_jobs="all").compute(LOSS), V, r"'n_jobs' parameter of MCS must be an int other than 0.*Got 'all'")
case("spa-block_length-str", lambda: SPA(block_length="long").compute(BM, LOSS), V, r"'block_length' parameter of SPA must be 'auto' or a number >= 1.*Got 'long'")
case("spa-block_length-nan", lambda: SPA(block_length=np.nan).compute(BM, LOSS), V, r"'block_length' parameter of SPA must be 'auto' or a number >= 1.*Got nan")
case("spa-block_length-bool", lambda: SPA(block_length=True).compute(BM, LOSS), V, r"'block_length' parameter of SPA must be 'auto' or a number >= 1.*Got True")
case("rc-block_length-0.5", lambda: RealityCheck(block_length=0.5).compute(BM, LOSS), V, r"'block_length' parameter of RealityCheck must be 'auto' or a number >= 1.*Got 0.5")
case("spa-block_length-circular-float", lambda: SPA(block_length=2.5, resampler="circular").compute(BM, LOSS), V, r"'block_length' parameter of SPA must be an int for the circular and moving schemes. Got 2.5")
case("spa-resampler-str", lambda: SPA(resampler="sb").compute(BM, LOSS), V, r"'resampler' parameter of SPA must be None, one of \{'stationary', 'circular', 'moving'\} or a skboot resampler instance. Got 'sb'")
case("spa-resampler-int", lambda: SPA(resampler=5).compute(BM, LOSS), V, r"'resampler' parameter of SPA must be None, one of \{'stationary', 'circular', 'moving'\} or a skboot resampler instance. Got 5")
case("spa-resampler-class", lambda: SPA(resampler=StationaryBootstrap).compute(BM, LOSS), V, r"'resampler' parameter of SPA must be None, one of .* or a skboot resampler instance. Got <class")
case("mcs-resampler-and-block_length", lambda: MCS(block_length=3, resampler=StationaryBootstrap()).compute(LOSS), V, r"'block_length' parameter of MCS must be 'auto' when 'resampler' is a resampler instance")
case("spa-resampler-seed-conflict", lambda: SPA(n_resamples=500, resampler=StationaryBootstrap(500, random_state=1), random_state=2).compute(BM, LOSS), V, r"'random_state' parameter of SPA \(2\) conflicts with the resampler's random_state \(1\); set it in one place")
case("spa-resampler-n-conflict", lambda: SPA(n_resamples=1000, resampler=StationaryBootstrap(500)).compute(BM, LOSS), V, r"'n_resamples' parameter of SPA \(1000\) conflicts with the resampler's n_resamples \(500\); set it in one place")
case("spa-resampler-own-n-seed-conflict", lambda: SPA(resampler=StationaryBootstrap(500, random_state=1), random_state=2).compute(BM, LOSS), V, r"'random_state' parameter of SPA \(2\) conflicts with the resampler's random_state \(1\); set it in one place")
case("mcs-resampler-seed-conflict", lambda: MCS(resampler=StationaryBootstrap(random_state=1), random_state=3).compute(LOSS), V, r"'random_state' parameter of MCS \(3\) conflicts with the resampler's random_state \(1\)")
case("stepm-metric-resampler-seed-conflict", lambda: StepM(resampler=Bootstrap(random_state=1), random_state=3).compute_metric(Y, SCORE, PREDS, "roc_auc"), V, r"'random_state' parameter of StepM \(3\) conflicts with the resampler's random_state \(1\)")
case("spa-studentize", lambda: SPA(studentize="yes").compute(BM, LOSS), V, r"'studentize' parameter of SPA must be True or False. Got 'yes'")
case("rc-variance", lambda: RealityCheck(variance="Asymptotic").compute(BM, LOSS), V, r"'variance' parameter of RealityCheck must be one of \{'auto', 'asymptotic', 'bootstrap'\}. Got 'Asymptotic'")
case("spa-random_state-negative", lambda: SPA(random_state=-1, block_length=3).compute(BM, LOSS), V, r"'random_state' parameter of StationaryBootstrap must be None, a non-negative int.*Got -1")
case("mcs-random_state-str", lambda: MCS(random_state="x", block_length=3).compute(LOSS), V, r"'random_state' parameter of StationaryBootstrap must be None, a non-negative int.*Got 'x'")
case("stepm-level-0", lambda: StepM(0.0).compute(BM, LOSS), V, r"'level' parameter of StepM must be a float in \(0, 1\). Got 0.0")
case("stepm-level-str", lambda: StepM("0.9").compute(BM, LOSS), V, r"'level' parameter of StepM must be a float in \(0, 1\). Got '0.9'")
case("stepm-level-bool", lambda: StepM(True).compute(BM, LOSS), V, r"'level' parameter of StepM must be a float in \(0, 1\). Got True")
case("stepm-pvalue_type", lambda: StepM(pvalue_type="max").compute(BM, LOSS), V, r"'pvalue_type' parameter of StepM must be one of \{'lower', 'consistent', 'upper'\}. Got 'max'")
case("mcs-level-nan", lambda: MCS(np.nan).compute(LOSS), V, r"'level' parameter of MCS must be a float in \(0, 1\). Got nan")
case("mcs-statistic", lambda: MCS(statistic="r").compute(LOSS), V, r"'statistic' parameter of MCS must be one of \{'R', 'max'\}. Got 'r'")
# -- compute: loss series -------------------------------------------------------
case("spa-benchmark-None", lambda: SPA().compute(None, LOSS), V, r"'benchmark' parameter of SPA must be an array-like of T losses. Got None")
case("stepm-models-None", lambda: StepM().compute(BM, None), V, r"'models' parameter of StepM must be an array-like of T x k losses. Got None")
case("spa-benchmark-2-columns", lambda: SPA().compute(LOSS[:, :2], LOSS), V, r"'benchmark' parameter of SPA must be one loss series \(1-D, or 2-D with one column\). Got shape \(40, 2\)")
case("spa-benchmark-scalar", lambda: SPA().compute(3.0, LOSS), V, r"'benchmark' parameter of SPA must be 1-D or 2-D. Got an array of shape \(\) instead")
case("spa-models-3d", lambda: SPA().compute(BM, LOSS[:, :, None]), V, r"'models' parameter of SPA must be 1-D or 2-D. Got an array of shape \(40, 3, 1\) instead")
case("spa-models-no-columns", lambda: SPA().compute(BM, np.empty((40, 0))), V, r"'models' parameter of SPA must be a non-empty 1-D or 2-D array-like.*Got shape \(40, 0\)")
case("spa-models-strings", lambda: SPA().compute(BM, np.array([["a"] * 3] * 40)), V, r"'models' parameter of SPA must contain real numbers. Got dtype <U1 instead")
case("spa-models-dict", lambda: SPA().compute(BM, {"a": LOSS[:, 0]}), V, r"'models' parameter of SPA must contain real numbers. Got non-numeric objects instead")
case("spa-rows", lambda: SPA().compute(BM[:-1], LOSS), V, r"'models' parameter of SPA must have one row per observation of the benchmark \(39\). Got 40 rows")
case("spa-two-rows", lambda: SPA().compute(BM[:2], LOSS[:2]), V, r"'models' parameter of SPA must have at least 3 observations \(rows\). Got 2")
case("spa-benchmark-inf", lambda: SPA().compute(np.r_[np.inf, BM[1:]], LOSS), V, r"'benchmark' parameter of SPA must contain only finite losses. Got 1 NaN or infinite value\(s\) instead \(first at row 0, column 0\)")
case("spa-pandas-index", lambda: SPA().compute(pd.Series(BM), pd.DataFrame(LOSS, index=np.arange(40) + 1)), V, r"'benchmark' and 'models' parameters of SPA must have the same pandas index")
case("spa-huge-losses", lambda: SPA().compute(BM * 1e200, LOSS), V, r"'benchmark' parameter of SPA must hold losses whose sums of squares are finite in float64.*Got a largest \|loss\| of")
case("spa-constant-differential", lambda: SPA(block_length=3).compute(LOSS[:, 0] + 0.1, LOSS), V, r"'models' parameter of SPA must not hold a model whose loss differential is constant: model 0 has one")
case("spa-moving-block-too-long", lambda: SPA(block_length=30, resampler="moving").compute(BM, LOSS), V, r"must hold at least 2 blocks of block_length=30")
case("mcs-losses-None", lambda: MCS().compute(None), V, r"'losses' parameter of MCS must be an array-like of T x k losses. Got None")
case("mcs-one-column", lambda: MCS().compute(LOSS[:, 0]), V, r"'losses' parameter of MCS must have at least 2 columns \(one per model.*Got 1")
case("mcs-two-rows", lambda: MCS().compute(LOSS[:2]), V, r"'losses' parameter of MCS must have at least 3 observations \(rows\). Got 2")
case("mcs-strings", lambda: MCS().compute(np.array([["a", "b"]] * 10)), V, r"'losses' parameter of MCS must contain real numbers. Got dtype <U1 instead")
case("mcs-nan", lambda: MCS().compute(NAN_LOSS), V, r"'losses' parameter of MCS must contain only finite losses. Got 1 NaN or infinite value\(s\) instead \(first at row 4, column 1\)")
case("mcs-twin-models", lambda: MCS(block_length=3).compute(TWIN), V, r"'losses' parameter of MCS must not hold two models whose losses differ by a constant: models 1 and 3")
case("mcs-huge-losses", lambda: MCS().compute(LOSS * 1e200), V, r"'losses' parameter of MCS must hold losses whose sums of squares are finite")
# -- compute_metric ---------------------------------------------------------------
case("spa-metric-unknown", lambda: SPA().compute_metric(Y, SCORE, PREDS, "auc"), V, r"'metric' parameter of SPA must be one of the fused metrics \[.*\] \(the names of metric_ci\). Got 'auc'")
case("spa-metric-int", lambda: SPA().compute_metric(Y, SCORE, PREDS, 3), V, r"'metric' parameter of SPA must be one of the fused metrics .* Got 3")
case("spa-metric-option", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", average="macro"), V, r"metric 'roc_auc' of SPA accepts the options \['pos_label'\]. Got \['average'\]")
case("mcs-y_true-None", lambda: MCS().compute_metric(None, PREDS, "roc_auc"), V, r"'y_true' parameter of MCS must be an array-like of targets. Got None")
case("mcs-y_true-2d", lambda: MCS().compute_metric(PREDS, PREDS, "roc_auc"), V, r"'y_true' parameter of MCS must be 1-D with at least 3 rows. Got shape \(40, 2\)")
case("mcs-predictions-length", lambda: MCS().compute_metric(Y, PREDS[:-1], "roc_auc"), V, r"'predictions' parameter of MCS must have one prediction per row of y_true \(40\). Got 39 for model 0")
case("mcs-predictions-3d", lambda: MCS().compute_metric(Y, PREDS[:, :, None], "roc_auc"), V, r"'predictions' parameter of MCS must be a 2-D array or DataFrame.*Got an array of shape \(40, 2, 1\)")
case("mcs-predictions-one-model", lambda: MCS().compute_metric(Y, SCORE, "roc_auc"), V, r"'predictions' parameter of MCS must hold at least 2 models. Got 1")
case("mcs-predictions-strings", lambda: MCS().compute_metric(Y, np.array([["a", "b"]] * 40), "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain real numbers.*model 0 in 'predictions' of MCS")
case("mcs-predictions-nan", lambda: MCS().compute_metric(Y, np.r_[[[np.nan, 1.0]], PREDS[1:]], "roc_auc"), V, r"'y_pred' parameter of roc_auc must contain only finite values.*model 0 in 'predictions' of MCS")
case("mcs-log_loss-not-probabilities", lambda: MCS().compute_metric(Y, PREDS, "log_loss"), V, r"'y_pred' parameter of log_loss must be an array of probabilities in \[0, 1\]")
case("spa-benchmark-predictions-None", lambda: SPA().compute_metric(Y, None, PREDS, "roc_auc"), V, r"'benchmark' parameter of SPA must hold predictions. Got None")
case("spa-undefined", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", undefined="drop"), V, r"'undefined' parameter of SPA must be one of \{'raise', 'omit'\}. Got 'drop'")
case("spa-stratify", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", stratify="yes"), V, r"'stratify' parameter of SPA must be True or False. Got 'yes'")
case("spa-stratify-and-groups", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", stratify=True, groups=np.arange(40) // 4), V, r"'stratify' and 'groups' parameters of SPA cannot be used together")
case("spa-resampler-with-stratify", lambda: SPA(resampler=Bootstrap()).compute_metric(Y, SCORE, PREDS, "roc_auc", stratify=True), V, r"'resampler' parameter of SPA must be None when stratify or groups is given.*Got Bootstrap\(\)")
case("spa-metric-block_length-iid", lambda: SPA(block_length=3).compute_metric(Y, SCORE, PREDS, "roc_auc"), V, r"'block_length' parameter of SPA applies to block schemes only.*Got 3")
case("spa-metric-block-auto", lambda: SPA(resampler="circular").compute_metric(Y, SCORE, PREDS, "roc_auc"), V, r"'block_length' parameter of SPA must be a number for whole-sample metrics with a block scheme")
case("stepm-metric-asymptotic", lambda: StepM(variance="asymptotic").compute_metric(Y, SCORE, PREDS, "roc_auc"), V, r"'variance' parameter of StepM must be 'auto' or 'bootstrap' for whole-sample metrics")
case("spa-sample_weight-negative", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", sample_weight=-np.ones(40)), V, r"'sample_weight' parameter of SPA must hold finite, non-negative weights")
case("spa-sample_weight-length", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", sample_weight=np.ones(3)), V, r"'sample_weight' parameter of SPA must be a 1-d array with one weight per row of y_true \(40\). Got shape \(3,\)")
case("spa-groups-length", lambda: SPA().compute_metric(Y, SCORE, PREDS, "roc_auc", groups=np.ones(3)), V, r"'groups' parameter of SPA must have one label per row of y_true \(40\). Got shape \(3,\)")
case("mcs-metric-undefined-on-data", lambda: MCS(n_resamples=20).compute_metric(np.zeros(40), PREDS, "roc_auc"), V, r"metric roc_auc is undefined on the original data of MCS for model 0", False)
case("mcs-metric-same-predictions", lambda: MCS(n_resamples=20).compute_metric(Y, np.column_stack([SCORE, SCORE]), "roc_auc"), V, r"'predictions' parameter of MCS must not hold two models whose roc_auc replicates differ by a constant", False)
# -- result methods ---------------------------------------------------------------
case("spa-critical_values-1", lambda: _spa_result().critical_values(1.0), V, r"'level' parameter of SPAResult.critical_values must be a float in \(0, 1\). Got 1.0", False)
case("spa-better_models-type", lambda: _spa_result().better_models(0.95, "median"), V, r"'pvalue_type' parameter of SPAResult.better_models must be one of \{'lower', 'consistent', 'upper'\}. Got 'median'", False)
case("spa-better_models-level", lambda: _spa_result().better_models("0.05"), V, r"'level' parameter of SPAResult.better_models must be a float in \(0, 1\). Got '0.05'", False)
# fmt: on


def test_catalogue_size():
    ids = [id_ for id_, *_ in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(CASES) >= 40
    owners = {"SPA", "RealityCheck", "StepM", "MCS"}
    assert {o for o in owners if any(o in m for *_, m, _ in CASES)} == owners
    assert any("compute_metric" in str(c[1].__code__.co_names) for c in CASES)


WORK = [
    ("skboot.multiple_comparison._replicates", "run_bootstrap"),
]


def _forbid_work(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_work(monkeypatch, WORK)


def test_forbid_work_catches_work(monkeypatch):
    """The harness of ``pre=True`` rows: valid calls do reach the patched work."""
    _forbid_work(monkeypatch)
    for valid in (
        lambda: MCS(block_length=3, n_resamples=5).compute(LOSS),
        lambda: SPA(block_length=3, n_resamples=5).compute(BM, LOSS),
        lambda: StepM(n_resamples=5).compute_metric(Y, SCORE, PREDS, "roc_auc"),
    ):
        with pytest.raises(AssertionError, match="resampling work started"):
            valid()


@pytest.mark.parametrize(
    ("call", "exc", "match", "pre"),
    [pytest.param(*rest, id=id_) for id_, *rest in CASES],
)
def test_bad_input(call, exc, match, pre, monkeypatch):
    if pre:
        _forbid_work(monkeypatch)
    with pytest.raises(exc, match=match) as info:
        call()
    assert isinstance(info.value, ValueError)
    origin = str(info.traceback[-1].path)
    assert f"{Path(skboot.__file__).parent}" in origin, origin
    for before, now in zip(SNAPSHOT, INPUTS, strict=True):
        np.testing.assert_array_equal(before, now)  # nothing was modified
