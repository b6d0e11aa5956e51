"""The metrics as engine statistics: :class:`MetricStatistic` (a fused metric, one
numba call per chunk) and :class:`CallableMetricStatistic` (any metric function,
one call per replicate), and :func:`build_statistic`, which picks one for a
resolved metric."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from skboot._engine import Statistic, centre_of, moments_to_values
from skboot._engine._statistic import call_user
from skboot._kernels.iid import iid_sum_kernel
from skboot._kernels.metric import (
    KID_MEAN,
    KID_RMS,
    eval_metric,
    metric_chunk,
    metric_loo,
)
from skboot._validation import value_error
from skboot.metrics._guard import undefined_metric_errors
from skboot.metrics._prepare import PreparedMetric
from skboot.metrics._registry import METRICS, pack_arrays, packed
from skboot.metrics._resolve import ResolvedMetric
from skboot.resamplers import ResamplingPlan

__all__ = [
    "CallableMetricStatistic",
    "MetricStatistic",
    "accepts",
    "build_statistic",
    "iid_scheme",
]


def iid_scheme(plan: ResamplingPlan) -> Any:
    """The plan's iid stream scheme, or None for other schemes."""
    scheme = plan.stream_scheme()
    return scheme if scheme is not None and scheme.kind == "iid" else None


class MetricStatistic(Statistic):
    """A fused metric as an engine statistic (tier 1).

    Parameters
    ----------
    prepared : PreparedMetric
        From ``METRICS[name].prepare(y_true, y_pred, **options)``.
    sample_weight : ndarray of shape (n_samples,), default=None
        Row weights; replicate ``b`` evaluates the metric with weights
        ``counts_b * sample_weight``.
    other : PreparedMetric, default=None
        A second prepared metric on the same rows: the statistic is then the
        paired difference ``metric(prepared) - metric(other)`` on each replicate.
    sign : float, default=1.0
        Multiplies the value (-1 for scikit-learn's ``neg_*`` scorers).
    name : str, default=None
        Name recorded on results; default ``prepared.name``.

    Notes
    -----
    ``run_chunk`` costs one call of ``plan.fill_weights_chunk`` and one call of
    the numba driver :func:`skboot._kernels.metric.metric_chunk` per chunk:
    O(chunk * n) time, one (chunk, n) float64 buffer reused across chunks.
    ``jackknife`` zeroes one row's weight at a time
    (:func:`skboot._kernels.metric.metric_loo`), and ``subset(rows)`` keeps the
    prepared arrays and multiplies the weights by ``bincount(rows)``, so no
    metric is ever prepared twice.
    """

    closed_form_jackknife = True  # metric_loo: every leave-one-out value at once

    k = 1

    def __init__(
        self,
        prepared: PreparedMetric,
        sample_weight: np.ndarray | None = None,
        *,
        other: PreparedMetric | None = None,
        sign: float = 1.0,
        name: str | None = None,
    ) -> None:
        n = prepared.n_samples
        arrays_a, self._scalars_a = pack_arrays(prepared)
        self._two = other is not None
        if other is not None:
            if other.n_samples != n or other.kernel is not prepared.kernel:
                raise ValueError(
                    "The two prepared metrics of a MetricStatistic must be the same "
                    f"metric on the same number of rows. Got {prepared.name} on {n} "
                    f"rows and {other.name} on {other.n_samples} rows instead."
                )
            arrays_b, self._scalars_b = pack_arrays(other)
        else:
            arrays_b, self._scalars_b = (), self._scalars_a
        self._weighted = sample_weight is not None
        sw = (
            np.ones(n)
            if sample_weight is None
            else np.ascontiguousarray(sample_weight, dtype=np.float64)
        )
        self.arrays = (sw, *arrays_a, *arrays_b)
        self.n_samples = n
        self.sign = float(sign)
        self.name = name or prepared.name
        # what a curve band on the same run reads (MetricCI.curve_band)
        self.metric_name = prepared.name
        self.pos_label = prepared.pos_label
        self.row_weights = sample_weight

    def _packs(
        self, arrays: tuple[np.ndarray, ...]
    ) -> tuple[np.ndarray, tuple[Any, ...], tuple[Any, ...]]:
        sw = arrays[0]
        pa = packed(arrays[1:5], self._scalars_a)
        pb = packed(arrays[5:9], self._scalars_b) if self._two else pa
        return sw, pa, pb

    def each_estimate(self) -> tuple[float, float]:
        """The signed metric of ``prepared`` and of ``other`` on the original rows."""
        sw, pa, pb = self._packs(self.arrays)
        return self.sign * eval_metric(pa, sw), self.sign * eval_metric(pb, sw)

    def estimate(self) -> np.ndarray:
        sw, pa, pb = self._packs(self.arrays)
        value = eval_metric(pa, sw)
        if self._two:
            value -= eval_metric(pb, sw)
        return np.array([self.sign * value])

    def _fused_iid(self, plan: ResamplingPlan) -> bool:
        """Whether replicates are mean-type metrics on iid draws without weights:
        then the draws are summed directly, without a weight row."""
        return (
            iid_scheme(plan) is not None
            and not self._weighted
            and self._scalars_a[0] in (KID_MEAN, KID_RMS)
        )

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 if self._fused_iid(plan) else 8 * plan.n_samples

    def mean_values(self) -> tuple[list[np.ndarray], bool, float] | None:
        """The per-row values of a mean-type metric without sample weights (two
        arrays for a paired difference), whether it is a root mean, its sign."""
        kid = self._scalars_a[0]
        if self._weighted or kid not in (KID_MEAN, KID_RMS):
            return None
        values = [self.arrays[1]] + ([self.arrays[5]] if self._two else [])
        return values, kid == KID_RMS, float(self.sign)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        if self._fused_iid(plan):
            # tier 1 without a weight row: iid_sum_1d draws the same indices as
            # plan.fill_indices_chunk and sums values[idx] as it goes.
            scheme = iid_scheme(plan)
            assert scheme is not None
            seed, gamma = scheme.seed, scheme.gamma
            m = plan.sample_size
            rms = self._scalars_a[0] == KID_RMS
            col = out[:, 0]
            sums = np.empty(nb)
            for j, values in enumerate((arrays[1], arrays[5] if self._two else None)):
                if values is None:
                    break
                # centred once per task, as the engine's "mean" (precision)
                if f"centred{j}" not in scratch:
                    c = centre_of(values[:, None])
                    scratch[f"centred{j}"] = (values - c[0], c)
                centred, c = scratch[f"centred{j}"]
                iid_sum_kernel(centred.shape[0])(centred, seed, gamma, b0, m, sums)
                part = moments_to_values("mean", sums, sums, np.full(1, float(m)), c, 0)
                if rms:
                    part = np.sqrt(np.maximum(part, 0.0))
                if j == 0:
                    col[:] = part
                else:
                    col -= part
            if self.sign != 1.0:
                out *= self.sign
            return
        W = scratch.get("W")
        if W is None or W.shape[0] < nb:
            W = scratch["W"] = np.empty((nb, plan.n_samples))
        W = W[:nb]
        plan.fill_weights_chunk(b0, W)
        sw, pa, pb = self._packs(arrays)
        metric_chunk(pa, pb, self._two, sw, self._weighted, W, out)
        if self.sign != 1.0:
            out *= self.sign

    def jackknife(self) -> np.ndarray:
        """Leave-one-out values (n, 1): the metric with row ``i``'s weight zeroed.

        NaN where the metric is undefined without row ``i``.
        """
        sw, pa, pb = self._packs(self.arrays)
        out = np.empty(self.n_samples)
        metric_loo(pa, pb, self._two, sw, out)
        return (self.sign * out)[:, None]

    def subset(self, rows: np.ndarray) -> Statistic:
        counts = np.bincount(np.asarray(rows), minlength=self.n_samples)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.arrays = (self.arrays[0] * counts, *self.arrays[1:])
        new._weighted = True
        return new


class CallableMetricStatistic(Statistic):
    """Any ``metric(y_true, y_pred, **options)`` as an engine statistic (tier 3).

    Replicate ``b`` calls the metric once: when ``use_weights``, on the rows
    drawn at least once with ``sample_weight = counts * sample_weight`` (so the
    classes a metric sees are those of the replicate); otherwise on the gathered
    rows ``(y_true[idx], y_pred[idx])``.  A scikit-learn
    ``UndefinedMetricWarning`` or a non-finite value marks the replicate
    undefined (NaN); an exception becomes a :class:`~skboot.StatisticError`
    naming the replicate.

    Parameters
    ----------
    func : callable
        ``func(y_true, y_pred, **options)`` returning a float.
    y_true, y_pred : ndarray
    sample_weight : ndarray, default=None
    other_pred : ndarray, default=None
        Second predictions: the statistic is ``func(y_pred) - func(other_pred)``.
    options : dict, default=None
    sign : float, default=1.0
    use_weights : bool, default=None
        None: True when ``func`` has a ``sample_weight`` parameter.
    name : str, default=None
    """

    k = 1

    def __init__(
        self,
        func: Callable[..., Any],
        y_true: np.ndarray,
        y_pred: np.ndarray,
        sample_weight: np.ndarray | None = None,
        *,
        other_pred: np.ndarray | None = None,
        options: dict[str, Any] | None = None,
        sign: float = 1.0,
        use_weights: bool | None = None,
        name: str | None = None,
    ) -> None:
        self.func = func
        self.options = dict(options or {})
        self.sign = float(sign)
        self._two = other_pred is not None
        self._weighted = sample_weight is not None
        if use_weights is None:
            use_weights = accepts(func, "sample_weight")
        self.use_weights = bool(use_weights)
        n = y_true.shape[0]
        sw = np.ones(n) if sample_weight is None else sample_weight
        arrays: tuple[np.ndarray, ...] = (y_true, y_pred, sw)
        if other_pred is not None:
            arrays = (*arrays, other_pred)
        self.arrays = arrays
        self.name = str(name or getattr(func, "__name__", "metric"))

    def _call(self, b: int, yt, yp, yp2, sw) -> float:
        kw = dict(self.options)
        if sw is not None:
            kw["sample_weight"] = sw

        def value() -> float:
            out = float(self.func(yt, yp, **kw))
            if yp2 is not None:
                out -= float(self.func(yt, yp2, **kw))
            return out

        hint = f" Regenerate the replicate with resampler.replicate({b})."
        with undefined_metric_errors():
            out = call_user(
                value,
                (),
                what=f"metric {self.name}",
                b=b,
                hint="" if b < 0 else hint,
                undefined=(UndefinedMetricWarning,),
            )
        out *= self.sign
        return out if math.isfinite(out) else math.nan

    def estimate(self) -> np.ndarray:
        yt, yp, sw = self.arrays[:3]
        yp2 = self.arrays[3] if self._two else None
        return np.array([self._call(-1, yt, yp, yp2, sw if self._weighted else None)])

    def each_estimate(self) -> tuple[float, float]:
        yt, yp, sw = self.arrays[:3]
        kw = sw if self._weighted else None
        a = self._call(-1, yt, yp, None, kw)
        b = self._call(-1, yt, self.arrays[3], None, kw) if self._two else a
        return a, b

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * plan.n_samples

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        with undefined_metric_errors():  # once per chunk in a worker process
            self._run_chunk(arrays, plan, b0, out, scratch)

    def _run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        yt, yp, sw = arrays[:3]
        yp2 = arrays[3] if self._two else None
        nb = out.shape[0]
        if self.use_weights:
            W = scratch.get("W")
            if W is None or W.shape[0] < nb:
                W = scratch["W"] = np.empty((nb, plan.n_samples))
            W = W[:nb]
            plan.fill_weights_chunk(b0, W)
            for r in range(nb):
                w = W[r] * sw
                rows = np.flatnonzero(w > 0)
                out[r, 0] = self._call(
                    b0 + r,
                    yt[rows],
                    yp[rows],
                    None if yp2 is None else yp2[rows],
                    w[rows],
                )
            return
        if plan.layout == "weights":
            raise ValueError(
                f"The metric {self.name} has no 'sample_weight' parameter, so it "
                "cannot be evaluated on the continuous weights of "
                "BayesianBootstrap. Use an index resampler."
            )
        for r in range(nb):
            idx = plan.indices(b0 + r)
            out[r, 0] = self._call(
                b0 + r, yt[idx], yp[idx], None if yp2 is None else yp2[idx], None
            )

    def subset(self, rows: np.ndarray) -> Statistic:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.arrays = tuple(np.take(a, rows, axis=0) for a in self.arrays)
        return new


def accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )


def build_statistic(
    metric: ResolvedMetric,
    y_true: np.ndarray,
    preds: list[np.ndarray],
    sw: np.ndarray | None,
    owner: str,
) -> Statistic:
    two = len(preds) == 2
    if metric.registry is not None:
        spec = METRICS[metric.registry]
        prepared = []
        for param, p in zip(
            ("y_pred_a", "y_pred_b") if two else ("y_pred",), preds, strict=True
        ):
            try:
                prepared.append(spec.prepare(y_true, p, **metric.options))
            except ValueError as exc:
                if not two:
                    raise
                # the kernel says 'y_pred'; name which prediction it was
                raise ValueError(f"{exc} (in '{param}' of {owner})") from exc
        return MetricStatistic(
            prepared[0],
            sw,
            other=prepared[1] if two else None,
            sign=metric.sign,
            name=metric.name,
        )
    assert metric.func is not None
    use_weights = accepts(metric.func, "sample_weight")
    if sw is not None and not use_weights:
        raise value_error(
            "sample_weight",
            owner,
            f"needs a metric that accepts sample_weight. Got {metric.name}, which "
            "does not, instead.",
        )
    return CallableMetricStatistic(
        metric.func,
        y_true,
        preds[0],
        sw,
        other_pred=preds[1] if two else None,
        options=metric.options,
        sign=metric.sign,
        use_weights=use_weights,
        name=metric.name,
    )
