"""monte_carlo_test draws its null in fixed batches of monte_carlo_batch(n)
replicates: one call of each sampler per batch (``size=(k, n)``), a vectorized
statistic once per batch, and results independent of chunk_size and n_jobs."""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config
from scipy import stats

from skboot import StatisticError, UndefinedStatisticWarning
from skboot._random import PURPOSE, check_random_state, reference_words
from skboot.significance import batch_generator, monte_carlo_batch, monte_carlo_test

X = np.random.default_rng(5).normal(size=30)
K = monte_carlo_batch(30 + 12)  # the batch size of these tests' samples
B = 2 * K + 45  # two full batches and a short one


def _skew(a, axis=-1):
    return stats.skew(a, axis=axis)


def test_each_sampler_is_called_once_per_batch_with_rows_as_replicates():
    calls = []

    def rvs(size, random_state):
        calls.append(size)
        return random_state.standard_normal(size)

    def plain(a, b):
        return float(np.mean(a) - np.mean(b))

    res = monte_carlo_test((X, X[:12]), (rvs, rvs), plain, n_resamples=B,
                           random_state=3)  # fmt: skip
    assert calls == [(K, 30), (K, 12), (K, 30), (K, 12), (45, 30), (45, 12)]
    gen = batch_generator(3, 2)
    a, b = gen.standard_normal((45, 30)), gen.standard_normal((45, 12))
    assert res.null_distribution[2 * K + 44] == plain(a[44], b[44])


def test_vectorized_statistic_runs_once_per_batch_plain_once_per_replicate():
    shapes, rows = [], []

    def vec(a, axis):
        shapes.append((a.shape, axis))
        return np.mean(a, axis=axis)

    def plain(a):
        rows.append(a.shape)
        return float(np.mean(a))

    v = monte_carlo_test(X, stats.norm.rvs, vec, n_resamples=B, random_state=0)
    p = monte_carlo_test(X, stats.norm.rvs, plain, n_resamples=B, random_state=0)
    # the data once, then one call per batch
    assert shapes == [((30,), -1), ((K, 30), -1), ((K, 30), -1), ((45, 30), -1)]
    assert rows == [(30,)] * (B + 1)
    assert np.array_equal(v.null_distribution, p.null_distribution)


@pytest.mark.parametrize("vectorized", [True, False])
def test_results_do_not_depend_on_chunk_size_or_n_jobs(vectorized):
    def stat(a, axis=-1):
        return stats.skew(a, axis=axis)

    def run(**kw):
        return monte_carlo_test(X, stats.norm(0, 2).rvs, stat, n_resamples=B,
                                random_state=11, vectorized=vectorized,
                                **kw).null_distribution  # fmt: skip

    base = run()
    assert base.shape == (B,) and np.isfinite(base).all()
    for chunk_size in (1, 7, K, 1000):
        assert np.array_equal(run(chunk_size=chunk_size), base), chunk_size
        with parallel_config(backend="threading"):
            par = run(chunk_size=chunk_size, n_jobs=2)
        assert np.array_equal(par, base), chunk_size


def test_batch_generator_regenerates_any_replicate_and_differs_by_batch():
    res = monte_carlo_test(X, stats.norm.rvs, _skew, n_resamples=B, random_state=4)
    for b in (0, K - 1, K, B - 1):
        j, row = divmod(b, K)
        drawn = stats.norm.rvs(size=(min(K, B - j * K), 30),
                               random_state=batch_generator(4, j))  # fmt: skip
        assert res.null_distribution[b] == _skew(drawn[row])
    firsts = [batch_generator(4, j).standard_normal() for j in range(3)]
    assert len(set(firsts)) == 3
    assert batch_generator(np.random.SeedSequence(4), 1).standard_normal() == firsts[1]


def test_batch_generator_bad_batch_number():
    with pytest.raises(ValueError, match=r"'j' parameter of batch_generator .* Got -1"):
        batch_generator(0, -1)
    with pytest.raises(
        ValueError, match=r"'j' parameter of batch_generator .* Got 1.5"
    ):
        batch_generator(0, 1.5)


def test_sampler_output_shape_is_checked_per_batch():
    def short_last(size, random_state):
        out = random_state.standard_normal(size)
        return out[:-1] if size[0] < K else out

    with pytest.raises(StatisticError, match=(
        r"Sampler 0 must return an array of shape \(45, 30\) for size=\(45, 30\); "
        rf"on the batch of replicates {2 * K}-{B - 1} it returned shape \(44, 30\)"
    )) as err:  # fmt: skip
        monte_carlo_test(X, short_last, np.mean, n_resamples=B, random_state=0)
    assert err.value.replicate == 2 * K

    def raises(size, random_state):
        raise RuntimeError("no draws")

    with pytest.raises(StatisticError, match=(
        rf"The sampler 0 raised on the batch of replicates 0-{K - 1}: RuntimeError"
    )) as err:  # fmt: skip
        monte_carlo_test(X, raises, np.mean, n_resamples=B, random_state=0)
    assert err.value.replicate == 0


def test_vectorized_statistic_errors_name_the_batch_or_the_replicate():
    def keepdims(a, axis=-1):
        return np.mean(a, axis=axis, keepdims=True)

    with pytest.raises(StatisticError, match=(
        r"one number per sample drawn under the null; on replicate 0 it returned "
        r"shape \(1,\)"
    )):  # fmt: skip
        monte_carlo_test(X, stats.norm.rvs, keepdims, n_resamples=B, random_state=0)

    def short_batch_fails(a, axis=-1):
        if a.ndim == 2 and a.shape[0] < K:
            raise ValueError("short batch")
        return np.mean(a, axis=axis)

    with pytest.raises(StatisticError, match=(
        rf"The statistic raised on replicates {2 * K}-{B - 1}: ValueError"
    )) as err:  # fmt: skip
        monte_carlo_test(X, stats.norm.rvs, short_batch_fails, n_resamples=B,
                         random_state=0)  # fmt: skip
    assert err.value.replicate == 2 * K


def test_undefined_replicates_are_counted_and_the_short_batch_pads_nothing():
    def stat(a, axis=-1):
        m = np.mean(a, axis=axis)
        return np.where(m > 0.3, np.nan, m)

    with pytest.warns(UndefinedStatisticWarning):
        res = monte_carlo_test(X, stats.norm.rvs, stat, n_resamples=B, random_state=2)
    rows = np.concatenate([
        stats.norm.rvs(size=(min(K, B - j * K), 30), random_state=batch_generator(2, j))
        for j in range(3)
    ])  # fmt: skip
    expected = int((rows.mean(axis=-1) > 0.3).sum())
    assert 0 < expected < B and res.n_undefined == expected
    assert res.null_distribution.shape == (B,)
    clean = monte_carlo_test(X, stats.norm.rvs, np.mean, n_resamples=B, random_state=2)
    assert clean.n_undefined == 0 and np.isfinite(clean.null_distribution).all()


def test_batch_key_is_words_4_to_7_of_the_reference_stream():
    """Philox keyed by the third and fourth SplitMix64 outputs at position j of
    purpose "monte_carlo" (the slow numpy reference of the stream)."""
    key = check_random_state(123)
    for j in (0, 1, 77, 2**32 // 16 - 1):
        w = reference_words(key, PURPOSE["monte_carlo"], j, 8).astype(object)
        philox = np.random.Philox(
            key=np.array([(w[4] << 32) | w[5], (w[6] << 32) | w[7]], dtype=np.uint64)
        )
        expected = np.random.Generator(philox).standard_normal(4)
        assert np.array_equal(batch_generator(key, j).standard_normal(4), expected)
        assert np.array_equal(batch_generator(123, j).standard_normal(4), expected)
