"""Block bootstraps for dependent data: moving, circular, stationary,
non-overlapping and tapered (the resamplers; the scheme definitions and the plans
that regenerate replicates are in :mod:`skboot.resamplers._block_plans`)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from skboot._random import RootKey
from skboot._typing import ArrayLike
from skboot._validation import (
    Constraint,
    Interval,
    Predicate,
    is_int,
    is_real,
    param_error,
    value_error,
)
from skboot.block_length import optimal_block_length
from skboot.resamplers._base import BaseResampler, ResamplingPlan
from skboot.resamplers._block_plans import (
    BlockPlan,
    FixedBlockPlan,
    StationaryPlan,
    TaperedPlan,
    trapezoid_taper,
)

__all__ = [
    "CircularBlockBootstrap",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "StationaryBootstrap",
    "TaperedBlockBootstrap",
    "trapezoid_taper",
]


# ---------------------------------------------------------------------------
# resamplers
# ---------------------------------------------------------------------------
def _is_auto(value: Any) -> bool:
    return isinstance(value, str) and value == "auto"


def _block_length(real: bool) -> list[Constraint]:
    """``block_length``: "auto" or a length >= 1 (an int, or a real number for
    the stationary scheme's mean length); the bound n / 2 is checked on the
    data."""
    if real:
        kind = "a real number in [1, n_samples / 2]"
        ok = lambda v: is_real(v) and math.isfinite(v) and v >= 1.0  # noqa: E731
    else:
        kind = "an int in [1, n_samples // 2]"
        ok = lambda v: is_int(v) and v >= 1  # noqa: E731
    return [Predicate(lambda v: _is_auto(v) or ok(v), f"'auto' or {kind}")]


class _BlockResampler(BaseResampler):
    """Shared parameters, validation and ``block_length="auto"`` of the block
    bootstraps.  Subclasses set ``_real_length`` and implement ``_block_plan``."""

    #: True when block_length is a (real) mean length (stationary scheme).
    _real_length = False
    #: Which optimal_block_length value "auto" uses.
    _auto_kind = "circular"
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "block_length": _block_length(real=False),
    }

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        block_length: int | float | str = "auto",
        random_state: Any = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.block_length = block_length

    # -- validation -------------------------------------------------------------
    def _allowed(self, n: int) -> str:
        kind = "a real number" if self._real_length else "an int"
        top = f"{n / 2:g}" if self._real_length else f"{n // 2}"
        return (
            f"'auto' or {kind} in [1, {top}] (at most half the {n} samples, so "
            "that at least 2 blocks fit)"
        )

    def _auto_block_length(self, X: Any, n: int) -> float:
        """The optimal_block_length estimate on X (max over columns)."""
        name = self._name
        raw = X.to_numpy() if hasattr(X, "to_numpy") else X
        try:
            values = np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise value_error(
                "X",
                name,
                f"must be numeric when "
                "block_length='auto' (the block length is estimated from the data "
                "with optimal_block_length). Got non-numeric data of type "
                f"{type(X).__name__} instead; pass an int block_length.",
            ) from exc
        if values.ndim not in (1, 2):
            raise value_error(
                "X",
                name,
                f"must be 1-D or 2-D when "
                f"block_length='auto'. Got shape {values.shape} instead; pass an "
                "explicit block_length.",
            )
        bad = int(values.size - np.isfinite(values).sum())
        if bad:
            raise value_error(
                "X",
                name,
                f"must contain only finite values when "
                "block_length='auto' (the block length is estimated from the data). "
                f"Got {bad} NaN or infinite value(s) instead.",
            )
        try:
            est = optimal_block_length(values)
        except ValueError as exc:
            raise value_error(
                "block_length",
                name,
                f"is 'auto', which estimates "
                f"it from X with optimal_block_length; that failed: {exc} Pass an "
                "explicit block_length instead.",
            ) from exc
        return float(np.max(np.atleast_1d(getattr(est, self._auto_kind))))

    def _resolve_block_length(self, X: Any, n: int) -> tuple[int | float, bool]:
        """The block length to use on n rows, and whether it was estimated."""
        value = self.block_length
        if _is_auto(value):
            raw = self._auto_block_length(X, n)
            if self._real_length:
                return min(max(1.0, raw), n / 2), True
            return min(max(1, math.ceil(raw)), n // 2), True
        length: int | float = float(value) if self._real_length else int(value)
        if length > n:
            raise param_error("block_length", self._name, self._allowed(n), value)
        if 2 * length > n:
            raise value_error(
                "X",
                self._name,
                f"must hold at least 2 blocks of "
                f"block_length={value!r}, i.e. at least "
                f"{math.ceil(2 * length)} samples. Got {n} samples instead.",
            )
        return length, False

    # -- plan -------------------------------------------------------------------
    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ResamplingPlan:
        length, auto = self._resolve_block_length(X, n_samples)
        return self._block_plan(key, n_samples, length, auto)

    def _block_plan(
        self, key: RootKey, n: int, length: Any, auto: bool
    ) -> ResamplingPlan:
        raise NotImplementedError

    def fit(
        self, X: ArrayLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> _BlockResampler:
        """Fix the random key and the block length.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_features)
            The series, rows in time order.  Its values are read only when
            ``block_length="auto"``.
        y, groups : object
            Ignored.

        Returns
        -------
        self : object
            With ``block_length_``, ``key_``, ``seed_entropy_``, ``n_samples_``.
        """
        super().fit(X, y, groups)
        return self

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        # every fit, including the one bootstrap() and metric_ci() make on their
        # own copy, records the length the plan uses
        assert isinstance(plan, BlockPlan)
        return {"block_length_": plan.block_length}


_PARAMS_DOC = """
    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    block_length : {block_doc}
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    block_length_ : {attr_doc}
        The block length used by the fitted resampler (the estimate when
        ``block_length="auto"``).  :func:`skboot.bootstrap` fits a copy of the
        resampler and records its length as ``result.block_length``;
        :meth:`split` leaves the resampler unchanged (``fit(X).block_length_``
        is the length ``split(X)`` uses).
    key_ : RootKey
        The root key fixed by :meth:`fit`.
    seed_entropy_ : int or SeedSequence
        Pass as ``random_state`` to repeat a run made with ``random_state=None``.
    n_samples_ : int
        Number of rows seen in :meth:`fit`.
"""

_FIXED_DOC = """int or "auto", default="auto"
        Length ``L`` of every block, an int in ``[1, n_samples // 2]`` (at least
        two blocks must fit).  ``"auto"`` estimates it from ``X`` at ``fit`` /
        ``split`` time: the circular-bootstrap value of
        :func:`skboot.optimal_block_length` (Politis & White 2004, Patton et al.
        2009), the largest over columns for 2-D ``X``, rounded up to an int
        ``>= 1``."""


class MovingBlockBootstrap(_BlockResampler):
    __doc__ = (
        """Moving block bootstrap (Künsch 1989): overlapping blocks of fixed length.

    Replicate ``b`` concatenates ``ceil(n / L)`` blocks of ``L`` consecutive rows
    whose starts are uniform on ``[0, n - L]`` and keeps the first ``n`` rows (the
    last block is cut when ``L`` does not divide ``n``).  Rows near the ends of the
    series are drawn less often than central rows (arch's convention).  Generating
    a replicate costs O(n); the fused built-in statistics ("mean", "sum", "var",
    "std", "proportion") cost O(n / L) per replicate from prefix sums.
"""
        + _PARAMS_DOC.format(block_doc=_FIXED_DOC, attr_doc="int")
        + """
    See Also
    --------
    CircularBlockBootstrap : Blocks wrap around the end of the series.
    StationaryBootstrap : Geometric block lengths, wrap-around.
    NonOverlappingBlockBootstrap : Blocks from a fixed partition of the series.
    TaperedBlockBootstrap : Blocks weighted by a taper window.
    skboot.optimal_block_length : Data-driven block length.

    Notes
    -----
    The exact stream and the conventions for the last block, out-of-bag rows and
    the BCa jackknife are documented in the time-series guide (docs/guide/time_series.md).
    With ``block_length="auto"`` the values of ``X`` must be finite; with an
    explicit ``block_length`` only the length of ``X`` is used (as by every
    scikit-learn splitter), while :func:`skboot.bootstrap` still rejects NaN for
    built-in statistics.

    References
    ----------
    .. [1] H. R. Künsch, "The jackknife and the bootstrap for general stationary
           observations", Annals of Statistics 17(3), 1989.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import MovingBlockBootstrap
    >>> X = np.arange(10)
    >>> mbb = MovingBlockBootstrap(2, block_length=3, random_state=0)
    >>> [train.tolist() for train, test in mbb.split(X)]
    [[1, 2, 3, 6, 7, 8, 4, 5, 6, 3], [7, 8, 9, 7, 8, 9, 7, 8, 9, 3]]

    The standard error of the mean of an AR(1) series (coefficient 0.5; the
    long-run value is 0.089), against the iid bootstrap's:

    >>> from scipy.signal import lfilter
    >>> from skboot import bootstrap
    >>> x = lfilter([1.0], [1.0, -0.5], np.random.default_rng(0).normal(size=500))
    >>> mbb = MovingBlockBootstrap(999, block_length=10, random_state=0)
    >>> round(bootstrap(x, "mean", resampler=mbb).standard_error, 3)
    0.085
    >>> round(bootstrap(x, "mean", n_resamples=999, random_state=0).standard_error, 3)
    0.052
    """
    )

    def _block_plan(self, key: RootKey, n: int, length: Any, auto: bool):
        return FixedBlockPlan(
            key, n, block_length=length, auto=auto, n_starts=n - length + 1, stride=1
        )


class CircularBlockBootstrap(_BlockResampler):
    __doc__ = (
        """Circular block bootstrap (Politis & Romano 1992): blocks wrap around.

    The series is laid on a circle; replicate ``b`` concatenates ``ceil(n / L)``
    blocks of ``L`` consecutive rows (mod ``n``) whose starts are uniform on
    ``[0, n)`` and keeps the first ``n`` rows.  Every row has the same chance of
    being drawn, so the replicate mean is unbiased for the sample mean.
"""
        + _PARAMS_DOC.format(block_doc=_FIXED_DOC, attr_doc="int")
        + """
    See Also
    --------
    MovingBlockBootstrap : Blocks that do not wrap around.
    StationaryBootstrap : Geometric block lengths, wrap-around.

    Notes
    -----
    Conventions (last block, out-of-bag rows, BCa) are documented in
    the time-series guide (docs/guide/time_series.md).

    References
    ----------
    .. [1] D. N. Politis and J. P. Romano, "A circular block-resampling procedure
           for stationary data", in Exploring the Limits of Bootstrap, Wiley, 1992.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import CircularBlockBootstrap
    >>> cbb = CircularBlockBootstrap(1, block_length=4, random_state=0).fit(np.zeros(10))
    >>> cbb.replicate(0).indices.tolist()
    [1, 2, 3, 4, 7, 8, 9, 0, 5, 6]
    """
    )

    def _block_plan(self, key: RootKey, n: int, length: Any, auto: bool):
        return FixedBlockPlan(
            key, n, block_length=length, auto=auto, n_starts=n, stride=1
        )


class NonOverlappingBlockBootstrap(_BlockResampler):
    __doc__ = (
        """Non-overlapping block bootstrap (Carlstein 1986).

    The series is cut into the ``n // L`` disjoint blocks ``[qL, (q + 1)L)``;
    replicate ``b`` draws ``ceil(n / L)`` of them uniformly with replacement,
    concatenates them and keeps the first ``n`` rows.  When ``L`` does not divide
    ``n``, the ``n mod L`` trailing rows belong to no block: they are never drawn
    and always out-of-bag.
"""
        + _PARAMS_DOC.format(block_doc=_FIXED_DOC, attr_doc="int")
        + """
    See Also
    --------
    MovingBlockBootstrap : Overlapping blocks, any start.
    CircularBlockBootstrap : Overlapping blocks that wrap around.

    References
    ----------
    .. [1] E. Carlstein, "The use of subseries values for estimating the variance
           of a general statistic from a stationary sequence", Annals of
           Statistics 14(3), 1986.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import NonOverlappingBlockBootstrap
    >>> nbb = NonOverlappingBlockBootstrap(1, block_length=3, random_state=0)
    >>> train, test = next(nbb.split(np.zeros(10)))
    >>> train.tolist(), test.tolist()
    ([0, 1, 2, 6, 7, 8, 3, 4, 5, 3], [9])
    """
    )

    def _block_plan(self, key: RootKey, n: int, length: Any, auto: bool):
        return FixedBlockPlan(
            key, n, block_length=length, auto=auto, n_starts=n // length, stride=length
        )


class StationaryBootstrap(_BlockResampler):
    __doc__ = (
        """Stationary bootstrap (Politis & Romano 1994): geometric block lengths.

    Replicate ``b`` is built from blocks with uniform starts on ``[0, n)``,
    circular wrap, and independent geometric lengths on ``{1, 2, ...}`` with mean
    ``block_length`` (``p = 1 / block_length``), drawn by inversion of a uniform;
    blocks are added until ``n`` rows are filled and the last one is cut.  The
    resampled series is stationary conditionally on the data; the law of the
    replicates equals arch's ``StationaryBootstrap``.
"""
        + _PARAMS_DOC.format(
            block_doc="""float, int or "auto", default="auto"
        Mean block length ``1 / p``, a real number in ``[1, n_samples / 2]``
        (``1`` gives the iid bootstrap).  ``"auto"`` uses the stationary-bootstrap
        value of :func:`skboot.optimal_block_length` on ``X`` at ``fit`` /
        ``split`` time (the largest over columns, at least 1), unrounded.""",
            attr_doc="float",
        )
        + """
    See Also
    --------
    CircularBlockBootstrap : Blocks of one fixed length, wrap-around.
    skboot.optimal_block_length : Data-driven mean block length.

    Notes
    -----
    The delete-one-block jackknife used for BCa takes blocks of
    ``ceil(block_length)`` rows.  Stream definition: the time-series guide (docs/guide/time_series.md).

    References
    ----------
    .. [1] D. N. Politis and J. P. Romano, "The stationary bootstrap", Journal of
           the American Statistical Association 89(428), 1994.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import StationaryBootstrap
    >>> sb = StationaryBootstrap(1, block_length=3.0, random_state=0).fit(np.zeros(10))
    >>> sb.replicate(0).indices.tolist()
    [1, 7, 8, 9, 0, 5, 6, 4, 1, 2]

    With the automatic mean block length:

    >>> from scipy.signal import lfilter
    >>> x = lfilter([1.0], [1.0, -0.5], np.random.default_rng(0).normal(size=500))
    >>> round(StationaryBootstrap(999, random_state=0).fit(x).block_length_, 2)
    8.04
    """
    )

    _real_length = True
    _auto_kind = "stationary"
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **_BlockResampler._parameter_constraints,
        "block_length": _block_length(real=True),
    }

    def _block_plan(self, key: RootKey, n: int, length: Any, auto: bool):
        return StationaryPlan(key, n, block_length=float(length), auto=auto)


class TaperedBlockBootstrap(_BlockResampler):
    """Tapered block bootstrap (Paparoditis & Politis 2001).

    The moving block bootstrap with a taper that down-weights the ends of every
    block, which removes the leading bias term of the block-bootstrap variance
    (bias O(1/L**2) instead of O(1/L)).  Blocks are those of
    :class:`MovingBlockBootstrap` with the same ``random_state``; position ``t`` of
    a replicate (``t < n``) carries the taper value ``w[t mod L]`` of the
    trapezoidal window ``trapezoid_taper`` with ramp fraction ``taper_c``.

    How the taper reaches the statistic.  Paparoditis & Politis build the
    pseudo-series ``Y*_t = mean + cscale * w[t mod L] * (X*_t - mean)`` with
    ``cscale = sqrt(n / sum_t w[t mod L]**2)`` (the taper has mean square 1 over
    the replicate; their ``sqrt(L) / ||w||_2`` when ``L`` divides ``n``), and
    apply a smooth function of means to it, tapering ``h(X_t)`` for each mean of
    ``h``.  Every such statistic equals the same statistic computed with the
    per-row weights ::

        W_i = (1 - kappa) + cscale * A_i,   kappa = cscale * sum_t w[t mod L] / n,

    where ``A_i`` sums the taper values of the positions that hold row ``i``.  The
    weights are non-negative (Cauchy-Schwarz gives ``kappa <= 1``) and sum to
    ``n``.  So replicates are weight vectors (layout ``"weights"``):

    * built-in "mean", "sum", "var", "std", "proportion" and "corr" are the
      tapered-block-bootstrap statistics, fused for the moments (tapered block
      sums for every start once, O(n L d), then O(n / L) per replicate);
    * a callable must accept ``weights=`` (or ``sample_weight=``) and compute a
      weighted statistic, e.g. ``np.average(x, weights=weights)``;
    * "median"/"quantile" are refused: the tapered bootstrap of Paparoditis &
      Politis (2001) is defined for smooth functions of means.

    :meth:`split` raises (scikit-learn's ``cv=`` cannot pass weights; use
    :class:`MovingBlockBootstrap` there).  ``replicate(b).weights`` gives the
    weights; ``replicate(b).indices`` / ``.counts`` / ``.oob`` describe the drawn
    blocks before tapering.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap replicates.
    block_length : int or "auto", default="auto"
        Block length ``L``, an int in ``[1, n_samples // 2]``.  ``"auto"`` uses the
        circular-bootstrap value of :func:`skboot.optimal_block_length` on ``X``
        (largest over columns) rounded up, as a proxy: the tapered optimum has
        the smaller bias, so this choice is conservative.
    taper_c : float, default=0.43
        Ramp fraction ``c`` of the trapezoid, in ``(0, 0.5]``: the taper rises
        linearly over the first ``c L`` positions of a block, is 1 in the middle
        and falls over the last ``c L``.  0.43 is Paparoditis & Politis'
        recommendation; 0.5 gives the triangular (Bartlett) window.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    block_length_ : int
        Block length of the fitted resampler.
    key_ : RootKey
    seed_entropy_ : int or SeedSequence
    n_samples_ : int

    See Also
    --------
    MovingBlockBootstrap : The same blocks, untapered.

    References
    ----------
    .. [1] E. Paparoditis and D. N. Politis, "Tapered block bootstrap",
           Biometrika 88(4), 1105-1119, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import TaperedBlockBootstrap
    >>> tbb = TaperedBlockBootstrap(1, block_length=4, random_state=0)
    >>> rep = tbb.fit(np.zeros(8)).replicate(0)
    >>> rep.indices.tolist()  # blocks [0, 1, 2, 3] and [3, 4, 5, 6]
    [0, 1, 2, 3, 3, 4, 5, 6]
    >>> np.round(rep.weights, 3).tolist()
    [0.553, 1.447, 1.447, 1.0, 1.447, 1.447, 0.553, 0.106]
    >>> float(rep.weights.sum())
    8.0
    """

    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **_BlockResampler._parameter_constraints,
        "taper_c": [Interval("real", 0.0, 0.5, closed="right")],
    }

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        block_length: int | str = "auto",
        taper_c: float = 0.43,
        random_state: Any = None,
    ) -> None:
        super().__init__(
            n_resamples, block_length=block_length, random_state=random_state
        )
        self.taper_c = taper_c

    def _check_split_layout(self, plan: ResamplingPlan) -> None:
        raise ValueError(
            f"{self._name}.split() is not available: the taper acts through "
            "per-row weights, which scikit-learn's cv= cannot pass to an estimator, "
            "so plain indices would silently give an untapered moving block "
            "bootstrap. Use MovingBlockBootstrap as cv=, or pass this resampler to "
            "skboot.bootstrap / BootstrapStatistic (replicate(b).weights gives the "
            "weights)."
        )

    def _block_plan(self, key: RootKey, n: int, length: Any, auto: bool):
        L = int(length)
        w = trapezoid_taper(L, float(self.taper_c))
        k = -(-n // L)
        r = n - (k - 1) * L
        sq = (k - 1) * float(np.sum(w * w)) + float(np.sum(w[:r] * w[:r]))
        s1 = (k - 1) * float(np.sum(w)) + float(np.sum(w[:r]))
        cscale = math.sqrt(n / sq)
        base = max(0.0, 1.0 - cscale * s1 / n)
        return TaperedPlan(
            key,
            n,
            block_length=L,
            auto=auto,
            n_starts=n - L + 1,
            stride=1,
            taper=w,
            cscale=cscale,
            base=base,
        )
