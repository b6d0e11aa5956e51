"""The failed-replicate policy ``on_error`` of ``bootstrap`` and
``BootstrapStatistic``: a statistic (a model refit) that raises on some
replicates.

Which replicates fail is a pure function of the seed, so every test computes
the expected set independently, replicate by replicate, from
``resampler.fit(x).sample(b)`` (or ``.replicate(b)``), and checks that the run
records exactly those, leaves them out of every summary, and gives the same
bits for any ``n_jobs`` and ``chunk_size``.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from scipy.signal import lfilter
from sklearn.base import BaseEstimator

import skboot.statistic._result as result_module
from skboot import (
    Bootstrap,
    BootstrapResult,
    BootstrapStatistic,
    ResidualBootstrap,
    ResultFileError,
    StatisticError,
    UndefinedStatisticWarning,
    bootstrap,
)

B = 120
X = lfilter([1.0], [1.0, -0.6], np.random.default_rng(3).standard_normal(200))


def _ar1(a: np.ndarray) -> float:
    """The OLS AR(1) coefficient of a series (with an intercept)."""
    lag, y = a[:-1], a[1:]
    design = np.column_stack([np.ones_like(lag), lag])
    return float(np.linalg.solve(design.T @ design, design.T @ y)[1])


#: Refits above this coefficient are refused as "non-stationary" (a
#: data-dependent condition, so which replicates fail is deterministic).
LIMIT = _ar1(X) + 0.05


def ar1_refit(a: np.ndarray) -> float:
    """An AR(1) refit that raises, as statsmodels does, on some replicates."""
    phi = _ar1(a)
    if phi > LIMIT:
        raise ValueError(f"non-stationary fit: coefficient {phi:.3f}")
    return phi


def _expected(resampler: ResidualBootstrap) -> tuple[np.ndarray, np.ndarray]:
    """Each replicate's refit, unchecked, and the numbers of those that fail."""
    fitted = resampler.fit(X)
    phis = np.array([_ar1(fitted.sample(b)) for b in range(B)])
    return phis, np.flatnonzero(phis > LIMIT)


def _omit(**kwargs) -> BootstrapResult:
    with pytest.warns(UndefinedStatisticWarning, match="raised on") as caught:
        res = bootstrap(
            X,
            ar1_refit,
            resampler=ResidualBootstrap(B, order=1, random_state=7),
            on_error="omit",
            **kwargs,
        )
    assert len([w for w in caught if "raised on" in str(w.message)]) == 1
    return res


def test_raise_is_the_default_and_names_the_first_failed_replicate():
    _, failed = _expected(ResidualBootstrap(B, order=1, random_state=7))
    assert 0 < failed.shape[0] < B // 2
    with pytest.raises(StatisticError, match="non-stationary fit") as info:
        bootstrap(X, ar1_refit, resampler=ResidualBootstrap(B, order=1, random_state=7))
    assert info.value.replicate == failed[0]
    assert isinstance(info.value.__cause__, ValueError)


def test_omit_records_the_failed_replicates_and_leaves_them_out():
    phis, failed = _expected(ResidualBootstrap(B, order=1, random_state=7))
    res = _omit()
    assert res.n_failed == failed.shape[0]
    np.testing.assert_array_equal(res.failed_replicates, failed)
    assert res.failed_replicates.dtype == np.int64
    assert res.first_error.startswith("ValueError: non-stationary fit")
    assert res.n_undefined == 0 and res.n_resamples == B
    dist = np.asarray(res.distribution)
    assert np.isnan(dist[failed]).all()
    kept = np.delete(np.arange(B), failed)
    np.testing.assert_array_equal(dist[kept], phis[kept])
    assert res.standard_error == np.std(phis[kept], ddof=1)
    assert res.bias == np.mean(phis[kept]) - res.estimate
    assert f"n_failed={failed.shape[0]}" in repr(res)


def test_omit_is_bit_identical_across_chunk_sizes_and_jobs():
    base = _omit()
    for kwargs in ({"chunk_size": 7}, {"chunk_size": 64, "n_jobs": 2}, {"n_jobs": 2}):
        other = _omit(**kwargs)
        assert other == base, kwargs
        np.testing.assert_array_equal(other.failed_replicates, base.failed_replicates)


def test_intervals_and_pvalues_read_only_the_replicates_that_did_not_fail():
    """Failed replicates are missing, never a value: the interval and p-value
    are those of the distribution without them (a NaN counted as "not <= null"
    would shrink the p-value)."""
    res = _omit()
    kept = np.delete(np.asarray(res.distribution), res.failed_replicates)
    bare = dataclasses.replace(
        res,
        distribution=kept,
        n_resamples=kept.shape[0],
        n_failed=0,
        failed_replicates=np.empty(0, dtype=np.int64),
        first_error=None,
    )
    for method in ("percentile", "basic", "normal", "bc"):
        got = res.confidence_interval(0.9, method=method)
        want = bare.confidence_interval(0.9, method=method)
        assert (got.low, got.high) == (want.low, want.high), method
        null = float(np.quantile(kept, 0.97))
        assert res.pvalue(null, method=method) == bare.pvalue(null, method=method)
    # the default for a model-based resampler is the percentile interval
    assert res.confidence_interval().low == bare.confidence_interval().low


def test_studentized_with_a_standard_error_function_reads_the_same_rows():
    res = _omit()
    se = lambda a: 0.06 + 0.0 * a.sum()  # noqa: E731
    got = res.confidence_interval(method="studentized", standard_error=se)
    dist = np.delete(np.asarray(res.distribution), res.failed_replicates)
    t = (dist - res.estimate) / 0.06
    q_lo, q_hi = np.quantile(t, [0.025, 0.975])
    assert got.low == pytest.approx(res.estimate - q_hi * 0.06, rel=1e-12)
    assert got.high == pytest.approx(res.estimate - q_lo * 0.06, rel=1e-12)


def test_every_replicate_failing_still_raises_with_the_exception_chained():
    def only_on_the_data(a: np.ndarray) -> float:
        if not np.array_equal(a, X):
            raise np.linalg.LinAlgError("Singular matrix")
        return 0.0

    for n_jobs in (None, 2):  # the exception object comes back from workers too
        with pytest.raises(StatisticError, match="every replicate failed") as info:
            bootstrap(
                X,
                only_on_the_data,
                resampler=ResidualBootstrap(20, order=1, random_state=0),
                on_error="omit",
                n_jobs=n_jobs,
            )
        assert info.value.replicate == 0
        assert isinstance(info.value.__cause__, np.linalg.LinAlgError)
        assert "20 of 20 replicates" in str(info.value)


def test_a_statistic_failing_on_the_original_data_still_raises():
    def refuses_everything(a: np.ndarray) -> float:
        raise ValueError("cannot fit")

    with pytest.raises(StatisticError, match="original data"):
        bootstrap(X, refuses_everything, n_resamples=20, on_error="omit")


@pytest.mark.parametrize("exc", [MemoryError, KeyboardInterrupt])
def test_memory_errors_and_interrupts_are_never_recorded(exc):
    def fragile(a: np.ndarray) -> float:
        if a.shape[0] == X.shape[0] and not np.array_equal(a, X):
            raise exc()
        return float(a.mean())

    raised = StatisticError if exc is MemoryError else KeyboardInterrupt
    with pytest.raises(raised):
        bootstrap(X, fragile, n_resamples=20, random_state=0, on_error="omit")


def _row0_repeated(a: np.ndarray) -> float:
    """Raises on the replicates of Bootstrap that draw row 0 twice or more
    (never on a jackknife sample, which holds each row at most once)."""
    if np.count_nonzero(a == X[0]) >= 2:
        raise np.linalg.LinAlgError("Singular matrix")
    return float(a.mean())


def _row0_repeated_vectorized(a: np.ndarray, axis: int = -1) -> np.ndarray:
    if np.any(np.count_nonzero(a == X[0], axis=axis) >= 2):
        raise np.linalg.LinAlgError("Singular matrix")
    return a.mean(axis=axis)


def test_index_resamplers_plain_and_vectorized_callables():
    fitted = Bootstrap(B, random_state=2).fit(X)
    failed = [b for b in range(B) if fitted.replicate(b).counts[0] >= 2]
    assert 0 < len(failed) < B
    runs = []
    for func in (_row0_repeated, _row0_repeated_vectorized):
        for chunk in (5, 50):
            with pytest.warns(UndefinedStatisticWarning, match="LinAlgError"):
                runs.append(
                    bootstrap(
                        X,
                        func,
                        n_resamples=B,
                        random_state=2,
                        on_error="omit",
                        chunk_size=chunk,
                    )
                )
    for res in runs:
        np.testing.assert_array_equal(res.failed_replicates, failed)
        np.testing.assert_array_equal(res.distribution, runs[0].distribution)
    # BCa's jackknife deletes rows of the data, not replicates: available
    ci = runs[0].confidence_interval(method="bca")
    assert np.isfinite([ci.low, ci.high]).all()


def test_methods_that_revisit_the_replicates_are_refused():
    with pytest.warns(UndefinedStatisticWarning):
        res = bootstrap(
            X, _row0_repeated, n_resamples=40, random_state=2, on_error="omit"
        )
    with pytest.raises(ValueError, match="calibrated interval evaluates the statistic"):
        res.confidence_interval(method="calibrated", n_inner=20)
    with pytest.raises(ValueError, match="studentized interval without standard_error"):
        res.confidence_interval(method="studentized", n_inner=10)


def test_failed_and_undefined_replicates_are_counted_apart():
    def nan_or_raise(a: np.ndarray) -> float:
        if not np.any(a == X[0]):
            raise ValueError("no row 0")
        return np.nan if not np.any(a == X[1]) else float(a.mean())

    fitted = Bootstrap(B, random_state=2).fit(X)
    counts = [fitted.replicate(b).counts for b in range(B)]
    failed = [b for b in range(B) if counts[b][0] == 0]
    undefined = [b for b in range(B) if counts[b][0] > 0 and counts[b][1] == 0]
    assert failed and undefined
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bootstrap(X, nan_or_raise, n_resamples=B, random_state=2, on_error="omit")
    assert len(caught) == 2  # one for the failed, one for the undefined replicates
    assert res.n_failed == len(failed) and res.n_undefined == len(undefined)
    with pytest.raises(ValueError, match="undefined"):
        res.confidence_interval(method="percentile")


class _FragileRegression(BaseEstimator):
    """A weighted least-squares slope whose fit refuses replicates without row 0
    (as a solver refuses a singular design)."""

    def fit(self, X, y, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else sample_weight
        if w[0] == 0:
            raise np.linalg.LinAlgError("Singular matrix")
        x = X[:, 0]
        xm, ym = np.average(x, weights=w), np.average(y, weights=w)
        self.coef_ = np.array(
            [np.sum(w * (x - xm) * (y - ym)) / np.sum(w * (x - xm) ** 2)]
        )
        return self


def test_estimator_refits_record_failed_fits():
    rng = np.random.default_rng(5)
    XR = rng.normal(size=(60, 1))
    YR = 2.0 * XR[:, 0] + rng.normal(size=60)
    fitted = Bootstrap(50, random_state=1).fit(XR)
    failed = [b for b in range(50) if fitted.replicate(b).counts[0] == 0]
    assert failed
    with pytest.warns(UndefinedStatisticWarning, match="LinAlgError: Singular matrix"):
        est = BootstrapStatistic(
            lambda e: e.coef_[0],
            estimator=_FragileRegression(),
            n_resamples=50,
            random_state=1,
            on_error="omit",
        ).fit(XR, YR)
    np.testing.assert_array_equal(est.result_.failed_replicates, failed)
    assert np.isnan(est.distribution_[failed]).all()
    with pytest.raises(StatisticError, match="fit of _FragileRegression"):
        BootstrapStatistic(
            lambda e: e.coef_[0],
            estimator=_FragileRegression(),
            n_resamples=50,
            random_state=1,
        ).fit(XR, YR)


def test_the_record_round_trips_through_dict_and_file(tmp_path):
    res = _omit()
    d = res.to_dict()
    assert d["n_failed"] == res.n_failed
    assert d["failed_replicates"] == res.failed_replicates.tolist()
    assert d["first_error"] == res.first_error
    path = tmp_path / "failed.skboot"
    res.save(path)
    back = BootstrapResult.load(path)
    assert back == res
    np.testing.assert_array_equal(back.failed_replicates, res.failed_replicates)
    assert back.confidence_interval(method="percentile") == res.confidence_interval(
        method="percentile"
    )


def test_files_written_before_the_fields_existed_still_load(tmp_path, monkeypatch):
    res = bootstrap(X, "mean", n_resamples=30, random_state=0)

    def old_fields(result):
        fields = dict(old_fields.original(result))
        for name in ("n_failed", "failed_replicates", "first_error"):
            del fields[name]
        return fields

    old_fields.original = result_module.file_fields
    monkeypatch.setattr(result_module, "file_fields", old_fields)
    res.save(tmp_path / "old.skboot")
    monkeypatch.undo()
    back = BootstrapResult.load(tmp_path / "old.skboot")
    assert back == res and back.n_failed == 0 and back.first_error is None


def test_a_file_whose_failed_replicates_hold_values_is_refused(tmp_path):
    res = bootstrap(X, "mean", n_resamples=30, random_state=0)
    edited = dataclasses.replace(
        res, n_failed=1, failed_replicates=np.array([4]), first_error="ValueError: x"
    )
    edited.save(tmp_path / "edited.skboot")
    with pytest.raises(ResultFileError, match=r"failed_replicates.*not NaN"):
        BootstrapResult.load(tmp_path / "edited.skboot")
    inconsistent = dataclasses.replace(res, n_failed=1, first_error=None)
    inconsistent.save(tmp_path / "inconsistent.skboot")
    with pytest.raises(ResultFileError, match="first_error"):
        BootstrapResult.load(tmp_path / "inconsistent.skboot")


def test_plot_draws_the_replicates_that_did_not_fail():
    pytest.importorskip("matplotlib").use("Agg")
    import matplotlib.pyplot as plt

    res = _omit()
    ax = res.plot(method="percentile")
    drawn = sum(bar.get_height() for bar in ax.containers[0])  # the histogram
    assert drawn == B - res.n_failed
    plt.close("all")
