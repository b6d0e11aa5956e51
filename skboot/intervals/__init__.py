"""Bootstrap confidence intervals, one pure function per method.

Every method takes a bootstrap distribution that has already been computed (the
statistic evaluated on ``B`` resamples) and returns an :class:`IntervalEndpoints`
holding the endpoints, the quantile levels that were read and the intermediate
quantities (``z0``, ``a_hat``, ...) so they can be tested. Nothing here draws
random numbers, caches anything or depends on how the distribution was produced.
The cost of every method is one sort of each column, O(B log B) per column, and
O(B * k) memory.

Shapes
------
``distribution`` is an array of shape ``(B,)`` for a scalar statistic or
``(B, k)`` for a statistic with ``k`` components, one replicate per row.
``estimate`` (the statistic on the original sample) is then a float or an array of
shape ``(k,)``. Endpoints are returned as floats for ``(B,)`` input and as arrays
of shape ``(k,)`` for ``(B, k)`` input. Columns are treated independently.

Conventions
-----------
These follow :func:`scipy.stats.bootstrap` wherever scipy has the method
(percentile, basic, BCa), so that, given the same bootstrap distribution, the
endpoints agree with scipy's to rounding error; the tests check this, and also
compare against ``arch.bootstrap.IIDBootstrap.conf_int`` (arch 8.0).

* ``alpha = (1 - level) / 2`` for a two-sided interval and ``alpha = 1 - level``
  for a one-sided one.
* ``alternative="less"`` gives ``(-inf, high)`` where ``high`` is the upper
  endpoint of the two-sided interval at level ``2 * level - 1``, that is the upper
  confidence bound at ``level``; ``alternative="greater"`` gives ``(low, inf)``.
  (arch calls these ``tail="upper"`` and ``tail="lower"``.)
* Quantiles of the bootstrap distribution use linear interpolation between order
  statistics, type 7 of Hyndman & Fan (1996): the ``p``-quantile of ``B`` sorted
  values is read at position ``h = (B - 1) * p``. This is the default of
  :func:`numpy.quantile`, :func:`numpy.percentile` (used by arch) and
  :func:`scipy.stats.quantile` (used by scipy), so all three libraries agree.
* The BCa/BC bias correction counts replicates tied with the estimate as one half
  (the "mean" kind of :func:`scipy.stats.percentileofscore`, which scipy uses):
  ``z0 = Phi^-1((#{theta*_b < theta_hat} + #{theta*_b <= theta_hat}) / (2 B))``.
  Efron & Tibshirani (1993, eq. 14.14) and arch count only ``theta*_b <
  theta_hat``; the two agree whenever no replicate equals the estimate, which is
  the usual case for continuous statistics. For discrete statistics (medians,
  quantiles, proportions) many replicates equal the estimate and the mid-rank
  count is the one that gives ``z0 = 0`` for a symmetric distribution.
* The normal interval is centred on the estimate, ``theta_hat -/+ z * se``, as in
  arch's ``method="norm"`` and the standard interval of Efron & Tibshirani; it does
  not subtract the bootstrap bias (Davison & Hinkley's section 5.2.1 does). ``se``
  is the standard deviation of the bootstrap distribution with the ``B - 1`` divisor
  (``ddof=1``) of Efron & Tibshirani eq. 6.6, the one ``BootstrapResult.
  standard_error`` and ``scipy.stats.bootstrap(...).standard_error`` use, so the
  interval is ``estimate -/+ z * result.standard_error``.  arch's
  ``method="norm"`` divides by ``B`` (``ddof=0``); pass ``ddof=0`` to reproduce
  it (the two differ by the factor ``sqrt(B / (B - 1))``).
* The acceleration is computed from leave-one-out values of the statistic as
  ``a_hat = sum(d**3) / (6 * sum(d**2) ** 1.5)`` with ``d = mean(jk) - jk`` per
  column (Efron & Tibshirani eq. 14.15). arch 8.0 centres a multi-column jackknife
  on the mean of all columns together, so its BCa differs from this (and from
  scipy) when ``k > 1``.

Degenerate-case policy
----------------------
Invalid input raises :class:`ValueError` whose message names the parameter, the
function, the allowed values and what was given. In particular a non-finite value
(NaN or infinity) in ``distribution`` is an error that says how many replicates are
affected: it means the statistic failed on some resamples, which the caller must
handle (drop, or report), not the interval method.

Degenerate but valid input emits
:class:`~skboot._exceptions.DegenerateDistributionWarning` naming the method, the
column(s) and the reason, and returns endpoints by this rule:

* **Zero spread** (all replicates of a column equal ``v``): every method warns.
  The percentile interval is the single point ``[v, v]``, the basic interval the
  point ``[2 theta_hat - v, 2 theta_hat - v]``, the normal interval ``[theta_hat,
  theta_hat]`` (``se = 0``). BC/BCa give ``[v, v]`` when ``theta_hat == v`` and
  otherwise fall under the next rule.
* **Infinite bias correction** (BC/BCa: the estimate lies below every replicate,
  ``z0 = -inf``, or above every replicate, ``z0 = +inf``): the quantile levels and
  both endpoints of that column are NaN. (With ``a = 0`` the formula would return
  the extreme replicate, which is not a confidence bound.)
* **Constant jackknife** (all leave-one-out values of a column equal, so the
  acceleration is 0/0): ``a_hat = 0`` is used for that column, i.e. the BC interval.
* **Studentized**: replicates whose standard error is zero or non-finite have no
  bootstrap-t value; they are left out of that column's bootstrap-t distribution
  (the warning says how many). If every replicate of a column is left out, or the
  original ``standard_error`` is non-finite, the column's endpoints are NaN. If the
  original ``standard_error`` is zero the interval is the point ``[theta_hat,
  theta_hat]``. Negative standard errors are invalid input (``ValueError``).

Layout
------
``_result``: :class:`ConfidenceInterval`, :class:`IntervalEndpoints`; ``_checks``: the
input checks (:func:`check_level`, :func:`check_alternative`, :func:`check_method`,
arrays against the distribution); ``_common``: type-7 quantiles, ``z0``, ``a_hat``,
the degenerate-case warnings; one module per family of methods (``_simple``:
percentile, basic, normal; ``_bc``: BC, BCa and their constants;
``_moments``: :class:`JackknifeMoments`, the acceleration's inputs without the
leave-one-out values;
``_studentized``); ``_dispatch``: :func:`interval_by_method`.

References
----------
.. [1] Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*.
   Chapman & Hall/CRC.
.. [2] DiCiccio, T. J. and Efron, B. (1996). Bootstrap confidence intervals.
   *Statistical Science* 11(3), 189-228.
.. [3] Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their
   Application*. Cambridge University Press.
.. [4] Hyndman, R. J. and Fan, Y. (1996). Sample quantiles in statistical
   packages. *The American Statistician* 50(4), 361-365.

The names load lazily (:func:`skboot._lazy.lazy_exports`): a dask worker that
needs :class:`JackknifeMoments` does not load scipy.special and scipy.stats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skboot._lazy import lazy_exports

if TYPE_CHECKING:
    from skboot.intervals._abc import ABCInterval
    from skboot.intervals._bc import (
        bc_interval,
        bca_interval,
        bias_correction,
        jackknife_acceleration,
    )
    from skboot.intervals._calibrated import CALIBRATED_METHODS, CALIBRATION_N_INNER
    from skboot.intervals._checks import (
        ALTERNATIVES,
        METHODS,
        check_alternative,
        check_level,
        check_method,
    )
    from skboot.intervals._dispatch import interval_by_method, method_endpoints
    from skboot.intervals._moments import JackknifeMoments
    from skboot.intervals._pvalue import (
        method_pvalues,
        pvalue_by_method,
        quantile_levels,
    )
    from skboot.intervals._result import Alternative as Alternative
    from skboot.intervals._result import ConfidenceInterval, IntervalEndpoints
    from skboot.intervals._result import FloatArray as FloatArray
    from skboot.intervals._result import FloatOrArray as FloatOrArray
    from skboot.intervals._simple import (
        basic_interval,
        normal_interval,
        percentile_interval,
    )
    from skboot.intervals._studentized import studentized_interval

#: Name -> the module that defines it (imported on first access).
_EXPORTS = {
    "ABCInterval": "skboot.intervals._abc",
    "bc_interval": "skboot.intervals._bc",
    "bca_interval": "skboot.intervals._bc",
    "bias_correction": "skboot.intervals._bc",
    "jackknife_acceleration": "skboot.intervals._bc",
    "CALIBRATED_METHODS": "skboot.intervals._calibrated",
    "CALIBRATION_N_INNER": "skboot.intervals._calibrated",
    "ALTERNATIVES": "skboot.intervals._checks",
    "METHODS": "skboot.intervals._checks",
    "check_alternative": "skboot.intervals._checks",
    "check_level": "skboot.intervals._checks",
    "check_method": "skboot.intervals._checks",
    "interval_by_method": "skboot.intervals._dispatch",
    "method_endpoints": "skboot.intervals._dispatch",
    "JackknifeMoments": "skboot.intervals._moments",
    "method_pvalues": "skboot.intervals._pvalue",
    "pvalue_by_method": "skboot.intervals._pvalue",
    "quantile_levels": "skboot.intervals._pvalue",
    "Alternative": "skboot.intervals._result",
    "ConfidenceInterval": "skboot.intervals._result",
    "IntervalEndpoints": "skboot.intervals._result",
    "FloatArray": "skboot.intervals._result",
    "FloatOrArray": "skboot.intervals._result",
    "basic_interval": "skboot.intervals._simple",
    "normal_interval": "skboot.intervals._simple",
    "percentile_interval": "skboot.intervals._simple",
    "studentized_interval": "skboot.intervals._studentized",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ALTERNATIVES",
    "CALIBRATED_METHODS",
    "CALIBRATION_N_INNER",
    "METHODS",
    "ABCInterval",
    "ConfidenceInterval",
    "IntervalEndpoints",
    "JackknifeMoments",
    "basic_interval",
    "bc_interval",
    "bca_interval",
    "bias_correction",
    "check_alternative",
    "check_level",
    "check_method",
    "interval_by_method",
    "jackknife_acceleration",
    "method_endpoints",
    "method_pvalues",
    "normal_interval",
    "percentile_interval",
    "pvalue_by_method",
    "quantile_levels",
    "studentized_interval",
]
