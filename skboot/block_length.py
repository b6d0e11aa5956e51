"""Automatic block-length selection for the stationary and circular bootstraps."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import fft as sp_fft

from skboot._results import Result, pyplot
from skboot._validation import as_float_array, value_error

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["OptimalBlockLength", "optimal_block_length"]

_OWNER = "optimal_block_length"

#: Smallest sample size for which the largest lag examined, m_max, is below n,
#: so every autocorrelation used in the choice of m is defined (see Notes).
MIN_OBSERVATIONS = 9

#: Elements (rows x columns) of one FFT batch; bounds the extra memory.
_BATCH_ELEMENTS = 1 << 20


@dataclass(frozen=True, eq=False, repr=False)
class OptimalBlockLength(Result):
    """Estimated optimal block lengths, as returned by `optimal_block_length`.

    One estimate per column of the data for each block scheme: the expected
    block length of the stationary bootstrap and the block length of the
    circular block bootstrap, ready to pass as ``block_length`` to those
    resamplers.

    Attributes
    ----------
    stationary : float or ndarray of shape (n_columns,)
        Optimal expected block length of the stationary bootstrap. A float when
        the input was one-dimensional (array or Series), otherwise a read-only
        array with one entry per column.
    circular : float or ndarray of shape (n_columns,)
        Optimal block length of the circular block bootstrap, same type and
        shape as ``stationary``.
    labels : tuple of hashable
        Label of each column: the column names of a DataFrame, the name of a
        Series, otherwise ``0, 1, ...``. Used as the index of `to_frame`.

    See Also
    --------
    optimal_block_length : Computes it.
    StationaryBootstrap : Takes ``stationary`` as its expected block length.
    CircularBlockBootstrap : Takes ``circular`` as its block length.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import optimal_block_length
    >>> obl = optimal_block_length(np.random.default_rng(0).normal(size=100))
    >>> round(obl.stationary, 2), round(obl.circular, 2)
    (1.42, 1.62)
    >>> list(obl.to_frame().columns)
    ['stationary', 'circular']
    """

    stationary: float | NDArray[np.float64]
    circular: float | NDArray[np.float64]
    labels: tuple[Hashable, ...]

    def to_frame(self) -> pd.DataFrame:
        """Return the block lengths as a DataFrame, one row per column of ``x``.

        Returns
        -------
        DataFrame
            Columns ``["stationary", "circular"]``, indexed by `labels` (the
            same layout as ``arch.bootstrap.optimal_block_length``).
        """
        return pd.DataFrame(
            {
                "stationary": np.atleast_1d(self.stationary).astype(np.float64),
                "circular": np.atleast_1d(self.circular).astype(np.float64),
            },
            index=list(self.labels),
        )

    def plot(self, ax: Axes | None = None, **kwargs: str | float) -> Axes:
        """Bar chart of the block lengths, two bars per column of ``x``.

        Needs matplotlib.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; None draws on a new figure.
        **kwargs
            Passed to ``Axes.bar`` (for both schemes).

        Returns
        -------
        matplotlib Axes
            The Axes drawn on.
        """
        if ax is None:
            _, ax = pyplot().subplots(layout="constrained")
        frame = self.to_frame()
        where = np.arange(len(frame))
        width = 0.4
        options: dict[str, Any] = dict(kwargs)
        for shift, scheme in ((-0.5, "stationary"), (0.5, "circular")):
            ax.bar(where + shift * width, frame[scheme], width, label=scheme, **options)
        ax.set_xticks(where, [str(label) for label in frame.index])
        ax.set_ylabel("optimal block length")
        ax.legend()
        return ax


class _ValidatedX(NamedTuple):
    values: NDArray[np.float64]  # shape (n, d), finite, no constant column
    labels: tuple[Hashable, ...]
    is_1d: bool


def _describe_column(labels: tuple[Hashable, ...], j: int, is_1d: bool) -> str:
    return "the series" if is_1d else f"column {labels[j]!r}"


def _validate_x(x: Any) -> _ValidatedX:
    # Nullable dtypes (Int64, Float64, boolean) map missing values to NaN, which
    # the finiteness check below reports by column.
    values = as_float_array(x, "x", _OWNER, ndim=(1, 2), nan="allow", min_rows=0)
    labels: tuple[Hashable, ...]
    if isinstance(x, (pd.Series, pd.DataFrame)):
        labels = tuple(x.columns) if isinstance(x, pd.DataFrame) else (x.name,)
    else:
        labels = tuple(range(values.shape[1])) if values.ndim == 2 else (0,)
    if values.size == 0:
        raise value_error(
            "x",
            _OWNER,
            f"must be non-empty. Got an array of shape {values.shape} instead.",
        )
    is_1d = values.ndim == 1
    # C order: a Fortran-ordered or strided x gives the contiguous copy's result
    values = np.ascontiguousarray(values.reshape(values.shape[0], -1))
    n_obs = values.shape[0]
    if n_obs < MIN_OBSERVATIONS:
        raise value_error(
            "x",
            _OWNER,
            f"must have at least {MIN_OBSERVATIONS} observations. Got {n_obs} instead.",
        )
    finite = np.isfinite(values)
    if not finite.all():
        j = int(np.flatnonzero(~finite.all(axis=0))[0])
        raise value_error(
            "x",
            _OWNER,
            "must contain only finite values. "
            f"Got {int((~finite[:, j]).sum())} NaN or infinite value(s) in "
            f"{_describe_column(labels, j, is_1d)} instead.",
        )
    constant = (values == values[0]).all(axis=0)
    if constant.any():
        j = int(np.flatnonzero(constant)[0])
        raise value_error(
            "x",
            _OWNER,
            "must not be constant (zero variance), for which no block "
            f"length is defined. Got constant data in "
            f"{_describe_column(labels, j, is_1d)} instead.",
        )
    return _ValidatedX(values, labels, is_1d)


def _trailing_sums(sq: NDArray[np.float64], m: int) -> NDArray[np.float64]:
    """Return ``s[i] = sq[i + 1:].sum(axis=0)`` for ``i = 0, ..., m - 1``.

    Sums of non-negative terms only (no ``total - prefix`` cancellation);
    requires ``m < len(sq)``.
    """
    rest = sq[m:].sum(axis=0)
    out = np.empty((m, sq.shape[1]))
    out[-1] = rest
    if m > 1:
        out[:-1] = rest + np.cumsum(sq[m - 1 : 0 : -1], axis=0)[::-1]
    return out


def _block_lengths_batch(
    x: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Politis-White block lengths of every column of ``x`` (n, d)."""
    n, d = x.shape
    log_n = np.log10(n)
    k_n = max(5, int(log_n))
    m_max = int(np.ceil(np.sqrt(n))) + k_n
    band = 2.0 * np.sqrt(log_n / n)
    b_max = np.ceil(min(3.0 * np.sqrt(n), n / 3.0))

    # The method is scale invariant; rescaling each column by an exact power of
    # two guards the squares below against overflow without any rounding.
    peak = np.abs(x).max(axis=0)
    x = np.ldexp(x, -np.frexp(peak)[1])
    eps = x - x.mean(axis=0)

    # Lag-k cross products sum_t eps[t + k] eps[t], k = 0..m_max, from one
    # zero-padded FFT: padding to >= n + m_max leaves these lags unaliased.
    n_fft = sp_fft.next_fast_len(n + m_max + 1, real=True)
    spec = sp_fft.rfft(eps, n=n_fft, axis=0)
    cross = sp_fft.irfft(spec.real**2 + spec.imag**2, n=n_fft, axis=0)[: m_max + 1]

    # Autocorrelation magnitudes at lags 0..m_max-1, normalised (as in arch) by
    # sqrt(sum eps[k+1:]**2 * sum eps[:n-k-1]**2).
    sq = eps * eps
    denom = np.sqrt(_trailing_sums(sq, m_max) * _trailing_sums(sq[::-1], m_max))
    with np.errstate(divide="ignore", invalid="ignore"):
        small = np.abs(cross[:m_max]) / denom < band

    # m_hat: first lag j starting k_n consecutive lags inside the band; then
    # M = min(2 * max(m_hat, 1), m_max), or m_max if no such run exists.
    runs = np.cumsum(np.vstack([np.zeros((1, d), dtype=np.int64), small]), axis=0)
    full = (runs[k_n:] - runs[:-k_n]) == k_n
    found = full.any(axis=0)
    m_hat = np.argmax(full, axis=0)
    big_m = np.where(found, np.minimum(2 * np.maximum(m_hat, 1), m_max), m_max)

    # Flat-top (trapezoidal) lag window lambda(t) = 1 for |t| <= 1/2,
    # 2 (1 - |t|) for 1/2 < |t| <= 1 and 0 beyond, evaluated at t = k / M.
    k = np.arange(1, m_max + 1, dtype=np.float64)[:, None]
    t = k / big_m
    lam = np.where(t <= 0.5, 1.0, np.where(t <= 1.0, 2.0 * (1.0 - t), 0.0))
    acv = cross / n
    g_hat = 2.0 * np.sum(lam * k * acv[1:], axis=0)
    sigma2 = acv[0] + 2.0 * np.sum(lam * acv[1:], axis=0)

    with np.errstate(divide="ignore", invalid="ignore"):
        d_sb = 2.0 * sigma2**2
        d_cb = (4.0 / 3.0) * sigma2**2
        b_sb = (2.0 * g_hat**2 / d_sb) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
        b_cb = (2.0 * g_hat**2 / d_cb) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    return np.minimum(b_sb, b_max), np.minimum(b_cb, b_max)


def optimal_block_length(x: ArrayLike | pd.Series | pd.DataFrame) -> OptimalBlockLength:
    r"""Estimate the optimal block length of the stationary and circular bootstraps.

    Politis & White's (2004) plug-in rule [1]_ with the correction of Patton,
    Politis & White (2009) [2]_, applied to each column separately:

    1. Centre the series: :math:`e_t = x_t - \bar x`, and compute the sample
       autocovariances :math:`\hat\gamma_k = n^{-1}\sum_{t=k+1}^{n} e_t e_{t-k}`.
    2. With :math:`K_N = \max(5, \lfloor\log_{10} n\rfloor)` and
       :math:`m_{max} = \lceil\sqrt n\,\rceil + K_N`, let :math:`\hat m` be the
       smallest lag :math:`j \ge 0` such that the :math:`K_N` autocorrelations at
       lags :math:`j, \dots, j + K_N - 1` all lie inside
       :math:`\pm c\sqrt{\log_{10}(n)/n}`, :math:`c = 2`. Set
       :math:`M = \min(2\max(\hat m, 1), m_{max})`, or :math:`M = m_{max}` if no
       such run exists.
    3. With the flat-top lag window :math:`\lambda(t) = 1` for :math:`|t| \le 1/2`,
       :math:`2(1 - |t|)` for :math:`1/2 < |t| \le 1` and 0 beyond, compute

       .. math::

          \hat G = \sum_{k=-M}^{M} \lambda(k/M)\,|k|\,\hat\gamma_k, \qquad
          \hat\sigma^2 = \sum_{k=-M}^{M} \lambda(k/M)\,\hat\gamma_k .

    4. Return :math:`b = \left(2\hat G^2 n / D\right)^{1/3}`, with
       :math:`D_{SB} = 2\hat\sigma^4` (stationary) and
       :math:`D_{CB} = \tfrac43\hat\sigma^4` (circular, [2]_), each capped at
       :math:`b_{max} = \lceil\min(3\sqrt n, n/3)\rceil`.

    Parameters
    ----------
    x : array-like of shape (n_samples,) or (n_samples, n_columns), Series or DataFrame
        Real-valued time series; rows are observations, columns are treated
        independently. Needs at least 9 observations, finite values and no
        constant column.

    Returns
    -------
    OptimalBlockLength
        Frozen result with attributes ``stationary`` and ``circular`` (floats for
        one-dimensional input, arrays of shape (n_columns,) otherwise) and a
        ``to_frame()`` method.

    Raises
    ------
    ValueError
        If ``x`` is not numeric, is not 1-D or 2-D, is empty, has fewer than 9
        observations, contains NaN or infinite values, or has a constant column
        (zero variance: every block length gives the same resamples, so none is
        optimal and the formula would be 0/0).

    See Also
    --------
    arch.bootstrap.optimal_block_length : Reference implementation; this function
        follows its conventions and returns the same values.

    Notes
    -----
    Conventions (those of ``arch``): lags in step 2 start at 0, so :math:`\hat m`
    is the first insignificant lag of the run; the lag-:math:`k` autocorrelation
    is :math:`\sum_t e_t e_{t+k}` divided by
    :math:`(\sum_{t>k+1} e_t^2 \sum_{t<n-k} e_t^2)^{1/2}`; only lags below
    :math:`m_{max}` are tested. The minimum of 9 observations is the smallest
    :math:`n` with :math:`m_{max} < n`, so every tested autocorrelation is
    defined. The estimates are neither rounded nor floored: for weakly dependent
    data they may be below 1, and they are 0 when :math:`\hat G = 0`.

    Cost: the autocovariances of all lags up to :math:`m_{max}` come from one
    zero-padded real FFT per column, so time is :math:`O(d\, n \log n)` for
    ``d`` columns (under 0.1 s for one column of :math:`n = 10^6`). Columns are
    processed in batches of :math:`\max(1, \lfloor 2^{20}/n \rfloor)`, so besides
    a float64 copy of ``x`` (made only if it is not already one) the working
    memory is about six float64 arrays of :math:`\min(nd, \max(n, 2^{20}))`
    elements: roughly 50 MB at most for :math:`n \le 2^{20}`, whatever ``d``.

    References
    ----------
    .. [1] D. N. Politis and H. White (2004). "Automatic Block-Length Selection
       for the Dependent Bootstrap". Econometric Reviews 23(1), 53-70.
       DOI: 10.1081/ETC-120028836.
    .. [2] A. Patton, D. N. Politis and H. White (2009). "Correction to
       'Automatic Block-Length Selection for the Dependent Bootstrap' by
       D. Politis and H. White". Econometric Reviews 28(4), 372-375.
       DOI: 10.1080/07474930802459016.

    Examples
    --------
    An AR(1) series with coefficient 0.5 next to white noise:

    >>> import numpy as np
    >>> from scipy.signal import lfilter
    >>> from skboot.block_length import optimal_block_length
    >>> rng = np.random.default_rng(0)
    >>> e = rng.standard_normal(1000)
    >>> x = lfilter([1.0], [1.0, -0.5], e)
    >>> res = optimal_block_length(x)
    >>> round(res.stationary, 2), round(res.circular, 2)
    (11.19, 12.81)
    >>> optimal_block_length(np.column_stack([x, e])).to_frame().round(2)
       stationary  circular
    0       11.19     12.81
    1        0.51      0.58
    """
    checked = _validate_x(x)
    values = checked.values
    n, d = values.shape
    batch = max(1, _BATCH_ELEMENTS // n)
    b_sb = np.empty(d)
    b_cb = np.empty(d)
    for start in range(0, d, batch):
        cols = slice(start, start + batch)
        b_sb[cols], b_cb[cols] = _block_lengths_batch(values[:, cols])
    if checked.is_1d:
        return OptimalBlockLength(float(b_sb[0]), float(b_cb[0]), checked.labels)
    b_sb.flags.writeable = False
    b_cb.flags.writeable = False
    return OptimalBlockLength(b_sb, b_cb, checked.labels)
