"""Block bootstraps for dependent data: moving, circular, stationary,
non-overlapping and tapered.

Stream definition (part of :data:`skboot.STREAM_VERSION`)
---------------------------------------------------------
``n`` is the number of rows, ``L`` the block length.  "Draw ``j`` of purpose ``p``"
means the j-th call, in order, of :func:`skboot._random.bounded` (Lemire's method)
or :func:`skboot._random.uniform01` on the stream of purpose ``p`` started at
replicate counter ``b * 2**32``, so every draw is a pure function of
``(key, p, b, j)``.

* Fixed-length blocks (moving, circular, non-overlapping, tapered).  Replicate
  ``b`` has ``k = ceil(n / L)`` blocks; block ``j`` starts at
  ``stride * u_j`` with ``u_j`` = draw ``j`` of ``bounded(n_starts)`` on purpose
  ``"block_starts"``:

  =================  ===============  ========  ==================================
  scheme             ``n_starts``     stride    rows of block ``j``
  =================  ===============  ========  ==================================
  moving (Künsch)    ``n - L + 1``    1         ``s_j, ..., s_j + L - 1``
  circular (P & R)   ``n``            1         ``s_j + m`` mod ``n``
  non-overlapping    ``n // L``       ``L``     ``s_j, ..., s_j + L - 1``
  tapered (P & P)    ``n - L + 1``    1         as moving, tapered by weights
  =================  ===============  ========  ==================================

  The blocks are concatenated in draw order and the replicate is cut after ``n``
  rows: the last block keeps its first ``r = n - (k - 1) L`` rows
  (``1 <= r <= L``; ``r = L`` when ``L`` divides ``n``).  These are arch's
  conventions for the moving and circular schemes.  For the non-overlapping
  scheme (Carlstein 1986) the series is cut into ``n // L`` full blocks; the
  ``n mod L`` trailing rows belong to no block, are never drawn and are always
  out-of-bag.

* Stationary (Politis & Romano 1994).  Blocks are generated until ``n`` rows are
  filled: block ``j`` starts at draw ``j`` of ``bounded(n)`` on purpose
  ``"block_starts"`` and has length ``1 + floor(log(1 - u_j) / log1p(-p))``
  (capped at ``n``) with ``u_j`` draw ``j`` of ``uniform01`` on purpose
  ``"block_lengths"`` and ``p = 1 / block_length``: a geometric law on
  ``{1, 2, ...}`` with mean ``block_length``, by inversion (``1 - u_j`` is exact
  for a 53-bit ``u_j``; ``p = 1`` gives length 1).  Rows wrap circularly and the
  last block is cut so that the replicate has exactly ``n`` rows; the cut keeps
  the law of the rows equal to arch's per-row formulation ("continue the block
  with probability 1 - p").

Out-of-bag rows are the rows no drawn block covers.  They are not independent of
the in-bag rows: a row just outside a drawn block is correlated with its in-bag
neighbours, so out-of-bag error estimates are optimistic under dependence (leave a
gap of about one block, or use time-series cross-validation, when that matters).

Data values.  A block resampler reads the values of ``X`` only for
``block_length="auto"`` (then they must be numeric and finite, else a ValueError
names ``X``); with an explicit ``block_length`` only ``len(X)`` is used, as by every
scikit-learn splitter, so a series with NaN can still be split (while
:func:`skboot.bootstrap` refuses NaN for its built-in statistics).  At least two
blocks must fit: ``block_length <= n / 2``.

Fused statistics.  Every plan has ``fused_moments``: column sums of ``X`` and
``X**2`` over a replicate from prefix sums (O(n d) once per chunk, then
O(n / L * d) per replicate; tapered: O(n L d) per chunk for the tapered block sums
of every start), which the engine uses for "mean", "sum", "var", "std" and
"proportion".  Other statistics use per-row counts (``fill_weights_chunk``) or
index chunks (``fill_indices_chunk``).

Every block plan exposes ``jackknife_groups``: row ``i`` is in block
``min(i // L, n // L - 1)`` (the ``n // L`` non-overlapping blocks, the trailing
``n mod L`` rows merged into the last one; ``L = ceil(block_length)`` for the
stationary scheme).  ``BootstrapResult.confidence_interval(method="bca")`` therefore
uses the delete-one-block jackknife (Künsch 1989) for the acceleration, not the
delete-one-row jackknife, which is not valid for dependent data.

References
----------
.. [1] H. R. Künsch, "The jackknife and the bootstrap for general stationary
       observations", Annals of Statistics 17(3), 1989.
.. [2] D. N. Politis and J. P. Romano, "A circular block-resampling procedure for
       stationary data", in Exploring the Limits of Bootstrap, Wiley, 1992.
.. [3] D. N. Politis and J. P. Romano, "The stationary bootstrap", JASA 89(428),
       1994.
.. [4] E. Carlstein, "The use of subseries values for estimating the variance of a
       general statistic from a stationary sequence", Annals of Statistics 14(3),
       1986.
.. [5] E. Paparoditis and D. N. Politis, "Tapered block bootstrap", Biometrika
       88(4), 2001.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._kernels.block import (
    fixed_counts_chunk,
    fixed_indices_chunk,
    fixed_moments,
    stationary_counts_chunk,
    stationary_indices_chunk,
    stationary_moments,
    tapered_moments,
    tapered_weights_chunk,
)
from skboot._kernels.calibration_nested import (
    fixed_nested_counts,
    stationary_nested_counts,
)
from skboot._random import PURPOSE, RootKey
from skboot.resamplers._base import ResamplingPlan, StreamScheme

__all__ = [
    "BlockPlan",
    "FixedBlockPlan",
    "StationaryPlan",
    "TaperedPlan",
    "trapezoid_taper",
]


# ---------------------------------------------------------------------------
# plans
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BlockPlan(ResamplingPlan):
    """Common part of the block plans.

    Attributes
    ----------
    block_length : int or float
        The block length used (mean length for the stationary scheme); the value
        chosen by ``optimal_block_length`` when ``block_length="auto"``.
    auto : bool
        Whether ``block_length`` was estimated from the data.
    """

    block_length: Any = 1
    auto: bool = False
    fuses_moments: ClassVar[bool] = True

    def draws_per_replicate(self, fused: bool = False) -> int:
        """Rows of a replicate, or its blocks when ``fused`` moments add block sums
        from prefix sums."""
        size = max(1, self.replicate_size)
        if fused:
            return max(1, -(-size // max(1, int(self.block_length))))
        return size

    @property
    def _unit(self) -> int:
        """Length of the delete-one-block jackknife units."""
        return math.ceil(self.block_length)

    @property
    def jackknife_groups(self) -> np.ndarray:
        """Delete-one-block jackknife units: row ``i`` is in block
        ``min(i // L, n // L - 1)`` (int64, length n)."""
        L = self._unit
        n = self.n_samples
        return np.minimum(np.arange(n, dtype=np.int64) // L, n // L - 1)

    def indices(self, b: int) -> np.ndarray:
        out = np.empty((1, self.n_samples), dtype=self.index_dtype)
        self.fill_indices_chunk(b, out)
        return out[0]

    @property
    def nests(self) -> bool:
        return self.layout == "fixed"

    def nested_plan(self, b: int, key: RootKey) -> tuple[np.ndarray, BlockPlan]:
        """Blocks of the same length (scheme, block length) drawn from the
        series of replicate ``b`` (its n rows in replicate order)."""
        return self.indices(b), dataclasses.replace(self, key=key)


@dataclass(frozen=True, eq=False)
class FixedBlockPlan(BlockPlan):
    """Fixed-length blocks: ``k = ceil(n / L)`` starts ``stride * bounded(n_starts)``
    on purpose "block_starts", rows ``start + m`` (mod n), cut at n rows."""

    n_starts: int = 1
    stride: int = 1
    fuses_nested_moments: ClassVar[bool] = True

    def _seed(self) -> tuple[np.uint64, np.uint64]:
        return self.key.stream(PURPOSE["block_starts"])

    def stream_scheme(self) -> StreamScheme | None:
        seed, gamma = self._seed()
        return StreamScheme(
            "fixed_blocks",
            seed,
            gamma,
            m=int(self.n_samples),
            n_draw=int(self.n_starts),
            block_length=int(self.block_length),
            stride=int(self.stride),
        )

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        fixed_indices_chunk(
            seed,
            gamma,
            int(b0),
            self.n_samples,
            int(self.block_length),
            self.n_starts,
            self.stride,
            out,
        )

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        fixed_counts_chunk(
            seed,
            gamma,
            int(b0),
            self.n_samples,
            int(self.block_length),
            self.n_starts,
            self.stride,
            out,
        )

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self._seed()
        length = int(self.block_length)
        return fixed_moments, (seed, gamma, b0, length, self.n_starts, self.stride)

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        inner = dataclasses.replace(self, key=key)  # the nested plan
        blocks = (int(self.block_length), self.n_starts, self.stride)
        return fixed_nested_counts, (*self._seed(), *inner._seed(), *blocks)


@dataclass(frozen=True, eq=False)
class StationaryPlan(BlockPlan):
    """Geometric block lengths (mean ``block_length``), circular wrap."""

    fuses_nested_moments: ClassVar[bool] = True

    @property
    def _p_log_q(self) -> tuple[float, float]:
        p = 1.0 / float(self.block_length)
        return p, (-math.inf if p >= 1.0 else math.log1p(-p))

    def _seeds(self) -> tuple[np.uint64, np.uint64, np.uint64]:
        seed_s, gamma = self.key.stream(PURPOSE["block_starts"])
        seed_l, _ = self.key.stream(PURPOSE["block_lengths"])
        return seed_s, seed_l, gamma

    def stream_scheme(self) -> StreamScheme:
        seed_s, seed_l, gamma = self._seeds()
        p, log_q = self._p_log_q
        return StreamScheme(
            "stationary",
            seed_s,
            gamma,
            m=int(self.n_samples),
            n_draw=int(self.n_samples),
            seed_lengths=seed_l,
            p=p,
            log_q=log_q,
        )

    def fill_indices_chunk(self, b0: int, out: np.ndarray) -> None:
        seed_s, seed_l, gamma = self._seeds()
        stationary_indices_chunk(
            seed_s, seed_l, gamma, int(b0), self.n_samples, *self._p_log_q, out
        )

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed_s, seed_l, gamma = self._seeds()
        stationary_counts_chunk(
            seed_s, seed_l, gamma, int(b0), self.n_samples, *self._p_log_q, out
        )

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed_s, seed_l, gamma = self._seeds()
        return stationary_moments, (seed_s, seed_l, gamma, b0, *self._p_log_q)

    def _nested_kernel(self, key: RootKey) -> tuple[Any, tuple[Any, ...]]:
        inner = dataclasses.replace(self, key=key)  # the nested plan
        return stationary_nested_counts, (
            *self._seeds(),
            *inner._seeds(),
            *self._p_log_q,
        )


@dataclass(frozen=True, eq=False)
class TaperedPlan(FixedBlockPlan):
    """Moving blocks whose positions carry the taper; replicates are weights.

    ``W_i = base + cscale * sum over the positions t holding row i of
    taper[t mod L]``; see :class:`TaperedBlockBootstrap`.
    """

    taper: np.ndarray = field(default_factory=lambda: np.ones(1))
    cscale: float = 1.0
    base: float = 0.0
    layout: str = field(default="weights", init=False)
    #: tapered replicates are weights: they do not nest
    fuses_nested_moments: ClassVar[bool] = False

    def stream_scheme(self) -> None:
        """None: tapered replicates are weights, which no stream kernel draws."""
        return None

    def weights(self, b: int) -> np.ndarray:
        out = np.empty((1, self.n_samples))
        self.fill_weights_chunk(b, out)
        return out[0]

    def fill_weights_chunk(self, b0: int, out: np.ndarray) -> None:
        seed, gamma = self._seed()
        tapered_weights_chunk(
            seed,
            gamma,
            int(b0),
            self.n_samples,
            int(self.block_length),
            self.n_starts,
            self.taper,
            self.cscale,
            self.base,
            out,
        )

    def _moments_kernel(self, b0: int) -> tuple[Any, tuple[Any, ...]]:
        seed, gamma = self._seed()
        return tapered_moments, (
            seed,
            gamma,
            b0,
            int(self.block_length),
            self.n_starts,
            self.taper,
            self.cscale,
            self.base,
        )


def trapezoid_taper(block_length: int, c: float = 0.43) -> np.ndarray:
    """The trapezoidal taper of Paparoditis & Politis (2001) on one block.

    ``w[m] = h((m + 0.5) / L)``, ``m = 0 .. L - 1``, with
    ``h(t) = min(1, min(t, 1 - t) / c)`` on ``[0, 1]``: a linear ramp over the
    first and last fraction ``c`` of the block and 1 in between (``c = 0.5`` is
    the triangular, Bartlett, window).

    Parameters
    ----------
    block_length : int
        Block length ``L >= 1``.
    c : float, default=0.43
        Ramp fraction in ``(0, 0.5]``; 0.43 is the value recommended by
        Paparoditis & Politis (2001).

    Returns
    -------
    ndarray of shape (block_length,)
    """
    t = (np.arange(block_length, dtype=np.float64) + 0.5) / block_length
    return np.minimum(1.0, np.minimum(t, 1.0 - t) / c)
