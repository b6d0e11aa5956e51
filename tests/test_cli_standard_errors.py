"""Delta-method standard errors of ``skboot ci --method studentized``."""

from __future__ import annotations

import numpy as np
import pytest

from skboot import bootstrap
from skboot.cli._standard_errors import DELTA_METHOD, delta_method_se


@pytest.mark.parametrize("name", sorted(DELTA_METHOD))
def test_delta_method_weights_are_frequency_weights(name):
    rng = np.random.default_rng(5)
    a = rng.normal(size=(40, 2)) if name == "corr" else rng.normal(size=40)
    if name == "proportion":
        a = (a > 0).astype(float)
    counts = rng.integers(0, 4, size=40)
    se = delta_method_se(name)
    assert se is not None
    assert se(a, weights=counts) == pytest.approx(
        se(np.repeat(a, counts, axis=0)), rel=1e-12
    )


def test_delta_method_matches_theory_for_normal_data():
    # large-sample standard errors for N(0, sigma^2) data and a bivariate normal
    # with correlation rho: se(var) = sigma^2 sqrt(2 / n), se(std) =
    # sigma / sqrt(2 n), se(corr) = (1 - rho^2) / sqrt(n), se(sum) = sigma sqrt(n).
    # The estimates' relative sampling error at n = 40,000 is about 1%; 5% bounds
    # make a false failure practically impossible.
    n, sigma, rho = 40_000, 2.0, 0.6
    rng = np.random.default_rng(8)
    x = rng.normal(scale=sigma, size=n)
    xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=n)
    assert DELTA_METHOD["var"](x) == pytest.approx(sigma**2 * np.sqrt(2 / n), rel=0.05)
    assert DELTA_METHOD["std"](x) == pytest.approx(sigma / np.sqrt(2 * n), rel=0.05)
    assert DELTA_METHOD["sum"](x) == pytest.approx(sigma * np.sqrt(n), rel=0.05)
    assert DELTA_METHOD["corr"](xy) == pytest.approx(
        (1 - rho**2) / np.sqrt(n), rel=0.05
    )


def test_delta_method_matches_bootstrap_standard_error():
    # on skewed data, each delta-method se is close to the bootstrap se of the
    # statistic (both estimate the same quantity; B = 4000 gives ~1.1% noise)
    rng = np.random.default_rng(9)
    x = rng.gamma(3.0, size=3000)
    xy = np.column_stack([x, x + rng.gamma(2.0, size=3000)])
    for name in ("sum", "var", "std", "corr"):
        data = xy if name == "corr" else x
        boot = bootstrap(data, name, n_resamples=4000, random_state=0)
        assert DELTA_METHOD[name](data) == pytest.approx(
            boot.standard_error, rel=0.08
        ), name
