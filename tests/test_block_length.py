"""Tests of skboot.block_length.optimal_block_length."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import optimal_block_length as arch_optimal_block_length
from numpy.testing import assert_allclose, assert_array_equal
from scipy.signal import lfilter

import skboot.block_length as block_length_module
from skboot.block_length import (
    MIN_OBSERVATIONS,
    OptimalBlockLength,
    optimal_block_length,
)

# Agreement with arch: both compute the same formulas in float64, differing only
# in summation order (FFT vs dot products), so results agree to ~1e-13; 1e-8
# leaves ample room and is still far below any meaningful block-length change.
RTOL = 1e-8
PHIS = [-0.5, 0.0, 0.3, 0.5, 0.9]
SIZES = [100, 1000, 5000]


def ar1(phi: float, size: int | tuple[int, ...], seed: int) -> np.ndarray:
    """AR(1) series x_t = phi x_{t-1} + e_t with standard normal e_t, axis 0."""
    e = np.random.default_rng(seed).standard_normal(size)
    return lfilter([1.0], [1.0, -phi], e, axis=0)


def columns(result: OptimalBlockLength) -> tuple[np.ndarray, np.ndarray]:
    """The per-column arrays of a result for 2-D input (narrows the type)."""
    assert isinstance(result.stationary, np.ndarray)
    assert isinstance(result.circular, np.ndarray)
    return result.stationary, result.circular


def assert_matches_arch(result: OptimalBlockLength, x: object) -> None:
    expected = arch_optimal_block_length(x)
    pd.testing.assert_frame_equal(
        result.to_frame(), expected, check_exact=False, rtol=RTOL, atol=0.0
    )


# ---------------------------------------------------------------------------
# agreement with arch.bootstrap.optimal_block_length
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("phi", PHIS)
def test_matches_arch_1d(phi: float, n: int) -> None:
    x = ar1(phi, n, seed=n + int(100 * phi))
    result = optimal_block_length(x)
    expected = arch_optimal_block_length(x)
    assert isinstance(result.stationary, float)
    assert isinstance(result.circular, float)
    assert_allclose(result.stationary, expected["stationary"].iloc[0], rtol=RTOL)
    assert_allclose(result.circular, expected["circular"].iloc[0], rtol=RTOL)
    assert_matches_arch(result, x)


@pytest.mark.parametrize("n", SIZES)
def test_matches_arch_2d(n: int) -> None:
    # one AR(1) column per phi, white noise, and over-differenced noise (whose
    # near-zero long-run variance makes the b_max cap bind)
    cols = [ar1(phi, n, seed=7 * j) for j, phi in enumerate(PHIS)]
    cols.append(np.random.default_rng(99).standard_normal(n))
    cols.append(np.diff(np.random.default_rng(0).standard_normal(n + 1)))
    x = np.column_stack(cols)
    result = optimal_block_length(x)
    stationary, circular = columns(result)
    assert stationary.shape == circular.shape == (x.shape[1],)
    assert result.labels == tuple(range(x.shape[1]))
    assert_matches_arch(result, x)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [11, 12, 20, 50, *SIZES])
def test_matches_arch_white_noise(n: int, seed: int) -> None:
    x = np.random.default_rng(seed).standard_normal(n)
    assert_matches_arch(optimal_block_length(x), x)


# arch computes one extra, unused autocorrelation at lag m_max, which divides by
# an empty sum of squares when n < 11; only that division warning is silenced.
@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning")
@pytest.mark.parametrize("n", [MIN_OBSERVATIONS, 10])
def test_matches_arch_at_minimum_size(n: int) -> None:
    for seed in range(5):
        x = ar1(0.5, n, seed=seed)
        assert_matches_arch(optimal_block_length(x), x)


def test_matches_arch_pandas() -> None:
    n = 1000
    frame = pd.DataFrame(
        {phi: ar1(phi, n, seed=j) for j, phi in enumerate(PHIS)},
        index=pd.date_range("2000-01-01", periods=n, freq="D"),
    )
    frame.columns = [f"phi={phi}" for phi in PHIS]
    result = optimal_block_length(frame)
    assert result.labels == tuple(frame.columns)
    assert_matches_arch(result, frame)

    series = frame["phi=0.9"]
    result_1d = optimal_block_length(series)
    assert isinstance(result_1d.stationary, float)
    assert result_1d.labels == ("phi=0.9",)
    assert_matches_arch(result_1d, series)


def test_matches_arch_nullable_and_integer_dtypes() -> None:
    x = np.round(10 * ar1(0.5, 500, seed=3)).astype(np.int64)
    frame = pd.DataFrame({"int": x, "nullable": pd.array(x, dtype="Int64")})
    result = optimal_block_length(frame)
    assert_matches_arch(result, frame)
    stationary, _ = columns(result)
    assert stationary[0] == stationary[1]
    assert optimal_block_length(x).stationary == stationary[0]


@pytest.mark.slow
def test_matches_arch_large_n() -> None:
    # n = 10**6 is the first size with K_N = log10(n) = 6 > 5
    x = ar1(0.5, (10**6, 1), seed=0)
    assert_matches_arch(optimal_block_length(x), x)


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("phi", PHIS)
def test_doubling_scale_does_not_change_result(phi: float) -> None:
    x = ar1(phi, (1000, 3), seed=11)
    base = optimal_block_length(x)
    doubled = optimal_block_length(2.0 * x)
    # scaling by a power of two is exact in floating point, so results are equal
    assert_array_equal(doubled.stationary, base.stationary)
    assert_array_equal(doubled.circular, base.circular)


@pytest.mark.parametrize("scale", [1e-150, 3.7, 1e150])
def test_extreme_scales_do_not_change_result(scale: float) -> None:
    # 1e150 would overflow the squared deviations without internal rescaling
    x = ar1(0.5, (1000, 2), seed=12)
    base = optimal_block_length(x)
    scaled = optimal_block_length(scale * x)
    assert_allclose(scaled.stationary, base.stationary, rtol=1e-10)
    assert_allclose(scaled.circular, base.circular, rtol=1e-10)


def test_columns_are_independent() -> None:
    x = np.column_stack([ar1(phi, 800, seed=5) for phi in PHIS])
    stationary, circular = columns(optimal_block_length(x))
    for j in range(x.shape[1]):
        single = optimal_block_length(x[:, j])
        assert_allclose(stationary[j], single.stationary, rtol=1e-12)
        assert_allclose(circular[j], single.circular, rtol=1e-12)


def test_batching_does_not_change_result(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.column_stack([ar1(phi, 500, seed=6) for phi in PHIS])
    whole = optimal_block_length(x)
    monkeypatch.setattr(block_length_module, "_BATCH_ELEMENTS", 2 * 500)
    batched = optimal_block_length(x)
    assert_allclose(batched.stationary, whole.stationary, rtol=1e-12)
    assert_allclose(batched.circular, whole.circular, rtol=1e-12)


def test_result_is_frozen_and_read_only() -> None:
    result = optimal_block_length(ar1(0.5, (200, 2), seed=0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.stationary = np.zeros(2)  # type: ignore[misc]
    stationary, circular = columns(result)
    for values in (stationary, circular):
        with pytest.raises(ValueError, match="read-only"):
            values[0] = 1.0


def test_block_lengths_bounded_and_ordered() -> None:
    n = 400
    # over-differenced noise: long-run variance near 0, so the cap binds
    overdiff = np.diff(np.random.default_rng(0).standard_normal(n + 1))
    x = np.column_stack([*(ar1(phi, n, seed=8) for phi in PHIS), overdiff])
    stationary, circular = columns(optimal_block_length(x))
    b_max = np.ceil(min(3 * np.sqrt(n), n / 3))
    assert np.all(stationary >= 0)
    assert np.all(circular <= b_max)
    # D_CB = (2/3) D_SB, so b_CB = (3/2)^(1/3) b_SB unless capped at b_max
    uncapped = circular < b_max
    assert_allclose(circular[uncapped], 1.5 ** (1 / 3) * stationary[uncapped])
    assert stationary[-1] == circular[-1] == b_max


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------

PREFIX = "The 'x' parameter of optimal_block_length"
_WN = np.random.default_rng(0).standard_normal(20)


def _with(values: np.ndarray, index: int, value: float) -> np.ndarray:
    out = values.copy()
    out[index] = value
    return out


ERROR_CASES = [
    pytest.param(
        np.array(["a"] * 20),
        f"{PREFIX} must contain real numbers. Got dtype <U1 instead.",
        id="strings",
    ),
    pytest.param(
        np.array([1.0, "a", *range(18)], dtype=object),
        f"{PREFIX} must contain real numbers. Got non-numeric objects instead.",
        id="object-strings",
    ),
    pytest.param(
        _WN + 1j,
        f"{PREFIX} must contain real numbers. Got dtype complex128 instead.",
        id="complex",
    ),
    pytest.param(
        np.arange(20).astype("datetime64[D]"),
        f"{PREFIX} must contain real numbers. Got dtype datetime64[D] instead.",
        id="datetime",
    ),
    pytest.param(
        pd.DataFrame({"a": _WN, "b": ["x"] * 20}),
        f"{PREFIX} must contain real numbers. Got dtype {pd.Series(['x']).dtype} "
        "in column 'b' instead.",
        id="dataframe-string-column",
    ),
    pytest.param(
        pd.Series(["x"] * 20, dtype=object),
        f"{PREFIX} must contain real numbers. Got dtype object instead.",
        id="series-object",
    ),
    pytest.param(
        [[1.0, 2.0], [3.0]],
        f"{PREFIX} must be an array-like of real numbers. "
        "Got a list that cannot be converted to an array instead.",
        id="ragged",
    ),
    pytest.param(
        np.zeros((20, 2, 2)),
        f"{PREFIX} must be 1-D or 2-D. Got an array of shape (20, 2, 2) instead.",
        id="3d",
    ),
    pytest.param(
        np.float64(1.0),
        f"{PREFIX} must be 1-D or 2-D. Got an array of shape () instead.",
        id="0d",
    ),
    pytest.param(
        [],
        f"{PREFIX} must be non-empty. Got an array of shape (0,) instead.",
        id="empty-list",
    ),
    pytest.param(
        np.empty((0, 3)),
        f"{PREFIX} must be non-empty. Got an array of shape (0, 3) instead.",
        id="empty-rows",
    ),
    pytest.param(
        np.empty((20, 0)),
        f"{PREFIX} must be non-empty. Got an array of shape (20, 0) instead.",
        id="empty-columns",
    ),
    pytest.param(
        pd.DataFrame(),
        f"{PREFIX} must be non-empty. Got an array of shape (0, 0) instead.",
        id="empty-dataframe",
    ),
    pytest.param(
        np.arange(3.0),
        f"{PREFIX} must have at least 9 observations. Got 3 instead.",
        id="3-observations",
    ),
    pytest.param(
        np.arange(16.0).reshape(8, 2),
        f"{PREFIX} must have at least 9 observations. Got 8 instead.",
        id="8-observations-2d",
    ),
    pytest.param(
        _with(_WN, 4, np.nan),
        f"{PREFIX} must contain only finite values. Got 1 NaN or infinite "
        "value(s) in the series instead.",
        id="nan",
    ),
    pytest.param(
        np.column_stack([_WN, _with(_WN, 0, np.inf), _with(_WN, 1, -np.inf)]),
        f"{PREFIX} must contain only finite values. Got 1 NaN or infinite "
        "value(s) in column 1 instead.",
        id="inf-2d",
    ),
    pytest.param(
        pd.DataFrame({"a": _WN, "b": pd.array([None, *_WN[1:]], dtype="Float64")}),
        f"{PREFIX} must contain only finite values. Got 1 NaN or infinite "
        "value(s) in column 'b' instead.",
        id="pandas-na",
    ),
    pytest.param(
        np.full(20, 0.1),
        f"{PREFIX} must not be constant (zero variance), for which no block "
        "length is defined. Got constant data in the series instead.",
        id="constant",
    ),
    pytest.param(
        pd.DataFrame({"a": _WN, "b": np.zeros(20)}),
        f"{PREFIX} must not be constant (zero variance), for which no block "
        "length is defined. Got constant data in column 'b' instead.",
        id="constant-column",
    ),
]


@pytest.mark.parametrize(("x", "message"), ERROR_CASES)
def test_invalid_x_raises(x: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        optimal_block_length(x)


def test_minimum_size_is_accepted() -> None:
    result = optimal_block_length(np.arange(float(MIN_OBSERVATIONS)) ** 2)
    assert np.isfinite(result.stationary)
    assert np.isfinite(result.circular)


# ---------------------------------------------------------------------------
# the result protocol
# ---------------------------------------------------------------------------
def test_result_protocol() -> None:
    """Equality that never raises, a short repr, to_frame's shape (one row per
    column, as arch), to_dict, and a plot returning its Axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = pd.DataFrame({"a": ar1(0.5, 300, seed=1), "b": ar1(0.0, 300, seed=2)})
    res = optimal_block_length(frame)
    assert res == optimal_block_length(frame.copy())
    assert res != optimal_block_length(frame[["b", "a"]])
    assert res != "not a result"
    one = optimal_block_length(frame["a"])
    assert res != one and one == optimal_block_length(frame["a"])
    with pytest.raises(TypeError):
        hash(res)
    assert len(repr(res)) < 300 and repr(res).startswith("OptimalBlockLength(")
    wide = optimal_block_length(np.random.default_rng(0).normal(size=(50, 40)))
    assert "array(shape=(40,), dtype=float64)" in repr(wide)
    assert len(repr(wide)) < 300
    out = res.to_frame()
    assert list(out.columns) == ["stationary", "circular"]
    assert list(out.index) == ["a", "b"]
    assert out.loc["a", "stationary"] == res.stationary[0]
    assert set(res.to_dict()) == {"stationary", "circular", "labels"}
    fig, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    assert len(ax.patches) == 4  # two schemes for each of two columns
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert one.plot().figure is not fig
    plt.close("all")
