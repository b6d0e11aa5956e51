"""The ABC interval (approximate bootstrap confidence; DiCiccio & Efron 1992).

No resampling: the statistic is written as a function of weights on the
observations, ``t(w)`` with ``sum(w) == 1``, and the interval is read from
``t`` at ``2 n + 4`` weight vectors near the equal weights ``P0 = 1/n``.
Efron & Tibshirani (1993, chapters 14 and 22) give the algorithm; the R package
``bootstrap`` (``abcnon``) is its reference implementation, and this follows
its constants and its step ``epsilon / n``:

1. influence ``t._i = (t(P0 + e d_i) - t(P0 - e d_i)) / (2 e)`` and second
   derivatives ``t.._i = (t(P0 + e d_i) - 2 t0 + t(P0 - e d_i)) / e**2`` with
   ``d_i = 1_i - P0`` and ``e = epsilon / n``;
2. ``sighat = sqrt(sum t._i**2) / n`` (the delta-method standard error),
   ``a = sum t._i**3 / (6 n**3 sighat**3)``, the direction
   ``delta = t. / (n**2 sighat)``, the quadratic coefficient
   ``cq = (t(P0 + e delta) - 2 t0 + t(P0 - e delta)) / (2 sighat e**2)``, the
   bias ``bhat = sum t.._i / (2 n**2)``, the total curvature
   ``curvature = bhat / sighat - cq`` and the bias correction
   ``z0 = Phi^-1(2 Phi(a) Phi(-curvature))``;
3. the endpoint at probability ``alpha`` is ``t(P0 + lambda delta)`` with
   ``Z = z0 + Phi^-1(alpha)`` and ``lambda = Z / (1 - a Z)**2``.

One change from ``abcnon``: the second differences (``t..`` and ``cq``) are
taken at the step :func:`second_step`, ``max(epsilon / n, 1e-4)``, rather
than ``epsilon / n``, whose rounding error grows like ``n**2``.  With the
default ``epsilon`` the two agree up to ``n = 10``; tests/test_abc.py checks
the result against ``abcnon``'s output.

The functions here never call a user's code directly: the caller passes the
values ``t(P0 -/+ e d_i)`` and a function ``at(w)`` of one weight vector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import ndtr, ndtri

from skboot._exceptions import DegenerateDistributionWarning, warn
from skboot.intervals._result import ConfidenceInterval, FloatArray

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SECOND_STEP",
    "ABCInterval",
    "abc_constants",
    "abc_endpoints",
    "second_step",
]


@dataclass(frozen=True, eq=False, repr=False)
class ABCInterval(ConfidenceInterval):
    """An ABC confidence interval with the constants that gave it.

    ``low, high = ci`` reads the endpoints, as for every
    :class:`~skboot.ConfidenceInterval`; ``standard_error`` is the
    delta-method (infinitesimal jackknife) standard error ``sighat``.  The
    names of the R function ``abcnon`` (package ``bootstrap``) are given in
    brackets.

    Attributes
    ----------
    low, high : float
        Lower and upper endpoints; ``-inf`` or ``inf`` on the open side of a
        one-sided interval.
    estimate : float
        The statistic at equal weights, i.e. on the data (``t0``).
    standard_error : float
        ``sqrt(sum(influence**2)) / n`` (``sighat``).
    method : str
        ``"abc"``.
    level : float
        The confidence level.
    alternative : str
        "two-sided", "less" or "greater".
    jackknife_groups : None
        Always None: the ABC interval needs no jackknife.
    n_inner : None
        Always None: the ABC interval draws no replicates.
    name : str or None
        The statistic's name (row label of :meth:`to_frame`).
    a_hat : float
        The acceleration (``a``).
    z0 : float
        The bias correction (``z0``).
    cq : float
        The quadratic coefficient along the least favourable direction
        (``cq``).
    bias : float
        The estimated bias of the estimate (``bhat``).
    curvature : float
        The total curvature ``bias / standard_error - cq``.
    influence : ndarray of shape (n,)
        The empirical influence values of the observations (``tt.inf``).
    epsilon : float
        The numerical derivatives' step, in units of ``1 / n``.

    See Also
    --------
    skboot.abc_interval : Computes it.
    skboot.ConfidenceInterval : The interval of a bootstrap result.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.statistic import abc_interval
    >>> x = np.array([1.2, 3.4, 0.7, 2.2, 5.1, 1.9, 2.8, 0.4])
    >>> ci = abc_interval(x, "mean")
    >>> round(ci.low, 3), round(ci.high, 3), round(ci.a_hat, 4)
    (1.356, 3.408, 0.0375)
    >>> print(ci.to_frame()[["estimate", "low", "high", "a_hat", "z0"]].round(3))
          estimate    low   high  a_hat     z0
    mean     2.212  1.356  3.408  0.037  0.037
    """

    a_hat: float = field(default=float("nan"), kw_only=True, repr=False)
    z0: float = field(default=float("nan"), kw_only=True, repr=False)
    cq: float = field(default=float("nan"), kw_only=True, repr=False)
    bias: float = field(default=float("nan"), kw_only=True, repr=False)
    curvature: float = field(default=float("nan"), kw_only=True, repr=False)
    influence: FloatArray = field(
        default_factory=lambda: np.empty(0), kw_only=True, repr=False
    )
    epsilon: float = field(default=0.001, kw_only=True, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The interval and its constants as a one-row pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            The columns of :meth:`skboot.ConfidenceInterval.to_frame`
            (estimate, standard error, endpoints) followed by ``a_hat``,
            ``z0``, ``cq``, ``bias`` and ``curvature``; ``method``, ``level``
            and ``alternative`` are in ``DataFrame.attrs``.

        Examples
        --------
        >>> import numpy as np
        >>> from skboot.statistic import abc_interval
        >>> frame = abc_interval(np.arange(10.0) ** 2, "mean").to_frame()
        >>> list(frame.columns[-5:])
        ['a_hat', 'z0', 'cq', 'bias', 'curvature']
        """
        frame = super().to_frame()
        for key in _CONSTANTS:
            frame[key] = float(getattr(self, key))
        return frame


#: The constants :meth:`ABCInterval.to_frame` adds as columns.
_CONSTANTS = ("a_hat", "z0", "cq", "bias", "curvature")


def second_step(epsilon: float, n: int) -> float:
    """The step of the second differences: ``max(epsilon / n, 1e-4)``.

    ``abcnon`` takes them at ``epsilon / n``, where their rounding error,
    about ``1e-16 |t0| / step**2``, grows like ``n**2``: its bias and ``cq`` are
    noise beyond a few thousand observations (at ``n = 10**5`` its ``z0`` comes
    out NaN or near 20 for a mean).  A step of ``1e-4`` (the fourth root of
    the machine epsilon, the usual optimum of a central second difference)
    keeps both the rounding and the truncation error near 1e-8 at any ``n``.
    Up to ``n = epsilon / 1e-4`` (10 observations with the default epsilon)
    the step is ``abcnon``'s; beyond, its constants change by about 1e-8
    relative.  A larger step adds truncation error: ``4e-4`` moves the bias of
    a correlation at ``n = 10`` by 5e-6 relative."""
    return max(epsilon / n, SECOND_STEP)


#: The least step of the second differences (see :func:`second_step`).
SECOND_STEP = 1e-4


def abc_constants(
    t0: float,
    first: tuple[FloatArray, FloatArray],
    second: tuple[FloatArray, FloatArray],
    at: Callable[[FloatArray], float],
    epsilon: float,
) -> dict[str, Any]:
    """The ABC constants from ``first = (t(P0 + e d_i), t(P0 - e d_i))`` over
    ``i`` (``e = epsilon / n``), ``second``, the same at the step ``s =
    second_step(epsilon, n)``, and ``at(w)``, the statistic at one weight
    vector (two calls, along the least favourable direction, at step ``s``).

    Returns a dict with ``influence``, ``standard_error`` (sighat), ``a_hat``,
    ``z0``, ``cq``, ``bias``, ``curvature`` and ``delta`` (the direction; None
    when ``standard_error`` is 0, and then the other constants are NaN).
    """
    plus, minus = first
    n = plus.shape[0]
    ep, step = epsilon / n, second_step(epsilon, n)
    influence = (plus - minus) / (2.0 * ep)
    curv_i = (second[0] - 2.0 * t0 + second[1]) / step**2
    sighat = float(np.sqrt(np.sum(influence**2)) / n)
    bias = float(np.sum(curv_i) / (2.0 * n**2))
    out: dict[str, Any] = {
        "influence": influence,
        "standard_error": sighat,
        "bias": bias,
    }
    if not sighat > 0.0:
        nan = float("nan")
        out.update(a_hat=nan, z0=nan, cq=nan, curvature=nan, delta=None)
        return out
    a_hat = float(np.sum(influence**3) / (6.0 * n**3 * sighat**3))
    delta = influence / (n**2 * sighat)
    p0 = np.full(n, 1.0 / n)
    cq = (at(p0 + step * delta) - 2.0 * t0 + at(p0 - step * delta)) / (
        2.0 * sighat * step**2
    )
    curvature = bias / sighat - cq
    z0 = float(ndtri(2.0 * ndtr(a_hat) * ndtr(-curvature)))
    out.update(a_hat=a_hat, z0=z0, cq=float(cq), curvature=float(curvature))
    out["delta"] = delta
    return out


def abc_endpoints(
    constants: dict[str, Any],
    t0: float,
    at: Callable[[FloatArray], float],
    level: float,
    alternative: str,
) -> tuple[float, float]:
    """``(low, high)`` of the ABC interval from :func:`abc_constants`.

    Two-sided: the endpoints at ``alpha = (1 - level) / 2`` and ``1 - alpha``;
    ``"less"``: ``(-inf, endpoint at level)``; ``"greater"``: ``(endpoint at
    1 - level, inf)``.  Zero standard error gives the point ``(t0, t0)``; an
    endpoint beyond the range of the ABC map (``a Z >= 1``) or where the
    statistic is not finite is NaN; both warn.
    """
    probs = {
        "two-sided": ((1.0 - level) / 2.0, (1.0 + level) / 2.0),
        "less": (None, level),
        "greater": (1.0 - level, None),
    }[alternative]
    delta = constants["delta"]
    if delta is None:
        warn(
            "abc: the statistic does not change with the weights of the "
            "observations (zero influence: the data are constant); the interval "
            "is the point (estimate, estimate) and the constants are NaN.",
            DegenerateDistributionWarning,
        )
        bounds = (-np.inf, np.inf)
        return tuple(  # type: ignore[return-value]
            float(t0) if p is not None else bounds[i] for i, p in enumerate(probs)
        )
    n = delta.shape[0]
    p0 = np.full(n, 1.0 / n)
    a_hat, z0 = constants["a_hat"], constants["z0"]
    ends = []
    for side, p in enumerate(probs):
        if p is None:
            ends.append(-np.inf if side == 0 else np.inf)
            continue
        z = z0 + float(ndtri(p))
        value = float("nan")
        if a_hat * z < 1.0 and np.isfinite(z):
            lam = z / (1.0 - a_hat * z) ** 2
            value = float(at(p0 + lam * delta))
        if not np.isfinite(value):
            warn(
                f"abc: the {'lower' if side == 0 else 'upper'} endpoint at "
                f"probability {p:g} is undefined (a_hat = {a_hat:.4g}, z0 = "
                f"{z0:.4g}: beyond the range of the ABC approximation, or the "
                "statistic is not finite at those weights); it is NaN.",
                DegenerateDistributionWarning,
            )
            value = float("nan")
        ends.append(value)
    return ends[0], ends[1]
