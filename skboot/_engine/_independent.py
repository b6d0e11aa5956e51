"""Built-in statistics on independent samples (``paired=False``).

``bootstrap((a, b), "mean", paired=False)`` resamples each sample within itself
(sample ``j`` on its own purpose slot of the stream, as for callables) and
evaluates the built-in on each sample with the fused kernels of the one-sample
engine: the per-sample values, or, with ``statistic_kwargs={"contrast":
"difference"}`` (``"ratio"``), the first sample's value minus (over) the
second's.  A replicate's value is therefore what
``bootstrap((a, b), lambda u, v: np.mean(u) - np.mean(v), paired=False)`` gives,
up to the rounding of the fused sums (the same replicates; each sample's mean
follows the fused kernels' documented summation rule).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from skboot._engine._builtin import BUILTIN_STATISTICS
from skboot._engine._statistic import Statistic
from skboot._validation import value_error
from skboot.resamplers import ResamplingPlan

__all__ = ["CONTRASTS", "IndependentBuiltin", "independent_builtin"]

#: How the values of two samples combine into one (``statistic_kwargs``).
CONTRASTS = ("difference", "ratio")
#: Builds sample ``j``'s fused built-in: (name, (array,), keywords, plan_j).
BuildPart = Callable[
    [str, tuple[np.ndarray, ...], dict[str, Any], ResamplingPlan], Statistic
]


def _combine(contrast: str | None, values: list[np.ndarray]) -> np.ndarray:
    """Per-sample values (each (..., k)) -> the statistic's values."""
    if contrast is None:
        return np.concatenate(values, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if contrast == "difference":
            return values[0] - values[1]
        return values[0] / values[1]


@dataclass
class IndependentBuiltin(Statistic):
    """A fused built-in evaluated on each independent sample, then combined.

    ``parts[j]`` is sample ``j``'s fused built-in kept without its arrays: those
    travel in :attr:`arrays` (sample ``j``'s ``counts[j]`` arrays in turn), so
    joblib ships them once per task.
    """

    closed_form_jackknife: ClassVar[bool] = True
    fused: ClassVar[bool] = True
    name: str = "mean"
    parts: tuple[Statistic, ...] = ()
    counts: tuple[int, ...] = ()
    contrast: str | None = None
    arrays: tuple[np.ndarray, ...] = ()
    k: int = 1
    #: a vector even for one value: per-sample values, or a contrast of 2-D data
    vector: bool = True
    cached_estimate: np.ndarray | None = field(default=None)

    def _split(self, arrays: tuple[np.ndarray, ...]) -> list[tuple[np.ndarray, ...]]:
        out, start = [], 0
        for c in self.counts:
            out.append(tuple(arrays[start : start + c]))
            start += c
        return out

    def _with_arrays(self) -> list[Statistic]:
        parts = []
        for part, arrs in zip(self.parts, self._split(self.arrays), strict=True):
            clone = part.without_arrays()
            clone.arrays = arrs
            parts.append(clone)
        return parts

    def estimate(self) -> np.ndarray:
        if self.cached_estimate is not None:
            return self.cached_estimate.copy()
        return _combine(self.contrast, [p.estimate() for p in self._with_arrays()])

    def bytes_per_replicate(self, plan: ResamplingPlan) -> int:
        return 8 * max(1, sum(p.k for p in self.parts))

    def draws_per_replicate(self, plan: ResamplingPlan) -> int:
        plans = plan.sample_plans or ()
        return sum(p.draws_per_replicate() for p in plans)

    def run_chunk(
        self,
        arrays: tuple[np.ndarray, ...],
        plan: ResamplingPlan,
        b0: int,
        out: np.ndarray,
        scratch: dict[str, Any],
    ) -> None:
        plans = plan.sample_plans
        assert plans is not None
        nb = out.shape[0]
        values = []
        for j, (part, arrs) in enumerate(
            zip(self.parts, self._split(arrays), strict=True)
        ):
            buf = np.empty((nb, part.k))
            sub = scratch.setdefault(f"sample{j}", {})
            part.run_chunk(arrs, plans[j], b0, buf, sub)
            values.append(buf)
        out[:, :] = _combine(self.contrast, values)

    def sample_jackknife(self) -> list[np.ndarray]:
        """Per sample ``j``: the statistic with one row of sample ``j`` left out
        (shape (n_j, k)), the other samples whole; closed forms, O(n_j)."""
        parts = self._with_arrays()
        full = [p.estimate() for p in parts]
        out = []
        for j, part in enumerate(parts):
            loo = part.jackknife()
            vals = [np.broadcast_to(f, (loo.shape[0], f.shape[0])) for f in full]
            vals[j] = loo
            out.append(_combine(self.contrast, vals))
        return out

    def vector_output(self, data_ndim: int) -> bool:
        return self.vector


def _check_keywords(
    statistic: str, kwargs: dict[str, Any], n_samples: int, owner: str
) -> str | None:
    """The contrast (popped from ``kwargs``) after checking the keywords."""
    contrast = kwargs.pop("contrast", None)
    if contrast is not None and contrast not in CONTRASTS:
        raise ValueError(
            f"The 'contrast' statistic keyword of {owner} must be one of "
            f"{{{', '.join(repr(c) for c in CONTRASTS)}}}. Got {contrast!r} instead."
        )
    if statistic in ("corr", "ols") or statistic not in BUILTIN_STATISTICS:
        allowed = [s for s in BUILTIN_STATISTICS if s not in ("corr", "ols")]
        raise value_error(
            "statistic",
            owner,
            f"must be a callable or, with "
            f"independent samples (paired=False), one of "
            f"{{{', '.join(repr(s) for s in allowed)}}}. Got {statistic!r} instead.",
        )
    own = {"var": {"ddof"}, "std": {"ddof"}, "quantile": {"q"}}.get(statistic, set())
    extra = set(kwargs) - own
    if extra:
        raise value_error(
            "statistic_kwargs",
            owner,
            f"accepts "
            f"{sorted(own | {'contrast'})} for statistic {statistic!r} with "
            f"independent samples. Got {sorted(extra)} instead.",
        )
    if contrast is not None and n_samples != 2:
        raise ValueError(
            f"The 'contrast' statistic keyword of {owner} combines exactly two "
            f"samples. Got {n_samples} samples instead."
        )
    return contrast


def independent_builtin(
    statistic: str,
    arrays: tuple[np.ndarray, ...],
    plan: ResamplingPlan,
    statistic_kwargs: dict[str, Any] | None,
    owner: str,
    build_part: BuildPart,
) -> IndependentBuiltin:
    """Validate a built-in statistic on independent samples and build it.

    ``plan.sample_plans[j]`` is sample ``j``'s iid plan; ``build_part`` builds
    (and validates) sample ``j``'s fused built-in.  ``statistic_kwargs`` may hold
    ``contrast`` (one of :data:`CONTRASTS`, two samples) besides the built-in's
    own keywords.
    """
    plans = plan.sample_plans
    assert plans is not None
    kwargs = dict(statistic_kwargs or {})
    contrast = _check_keywords(statistic, kwargs, len(arrays), owner)
    parts = []
    data: list[np.ndarray] = []
    counts = []
    for j, a in enumerate(arrays):
        part = build_part(statistic, (a,), kwargs, plans[j])
        data.extend(part.arrays)
        counts.append(len(part.arrays))
        parts.append(part.without_arrays())
    if contrast is not None and parts[0].k != parts[1].k:
        raise ValueError(
            f"The 'contrast' statistic keyword of {owner} needs samples with the "
            f"same number of values. Got {parts[0].k} and {parts[1].k} instead."
        )
    stat = IndependentBuiltin(
        name=statistic,
        parts=tuple(parts),
        counts=tuple(counts),
        contrast=contrast,
        arrays=tuple(data),
        vector=contrast is None or any(a.ndim == 2 for a in arrays),
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        est = _combine(contrast, [p.estimate() for p in stat._with_arrays()])
    stat.k = int(est.shape[0])
    stat.cached_estimate = est
    return stat
