"""What a parametric bootstrap draws from: a scipy.stats distribution (frozen, or
fitted to the data by maximum likelihood) or a user's sampler, checked against the
data before any replicate is drawn."""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import stats

from skboot._validation import Constraint, Predicate, value_error

__all__ = [
    "DISCRETE_CLOSED_FORMS",
    "DISTRIBUTION",
    "DrawSource",
    "FrozenDistribution",
    "is_frozen",
    "is_scipy_distribution",
    "resolve_source",
]

#: Discrete distributions whose maximum-likelihood fit (with ``loc=0`` and no
#: ``fit_kwargs``) is a closed form of the sample mean ``m``; their support does
#: not depend on the parameter.
DISCRETE_CLOSED_FORMS = {
    "poisson": lambda m: (m,),
    "bernoulli": lambda m: (m,),
    "geom": lambda m: (1.0 / m,),
}


class FrozenDistribution(Protocol):
    """A frozen scipy.stats distribution, as far as the resampler uses it."""

    def rvs(self, size: Any = None, random_state: Any = None) -> Any: ...


def is_frozen(value: Any) -> bool:
    """Whether ``value`` is a frozen scipy.stats distribution (``stats.norm(0, 1)``)."""
    return isinstance(
        getattr(value, "dist", None), stats.rv_continuous | stats.rv_discrete
    )


def is_scipy_distribution(value: Any) -> bool:
    """A scipy.stats distribution, frozen or not."""
    return isinstance(value, stats.rv_continuous | stats.rv_discrete) or is_frozen(
        value
    )


#: The constraint row of ``distribution`` (``"empirical"`` is checked with it).
DISTRIBUTION: list[Constraint] = [
    Predicate(is_scipy_distribution, "a scipy.stats distribution (frozen or not)"),
    Predicate(
        lambda v: callable(v) and not isinstance(v, str),
        "a sampler callable(size=, random_state=)",
    ),
    Predicate(lambda v: isinstance(v, str) and v == "empirical", "'empirical'"),
]


@dataclass(frozen=True)
class DrawSource:
    """The sampler replicates (or regression errors) are drawn from, and what
    the fit found.  ``frozen`` is the frozen scipy distribution, None for a
    user's sampler; ``params`` names its parameters."""

    sampler: Any
    keyword: str = "random_state"
    frozen: Any = None
    params: dict[str, float] = field(default_factory=dict)


def _param_names(dist: Any) -> list[str]:
    shapes = [s.strip() for s in (dist.shapes or "").split(",") if s.strip()]
    extra = ["loc", "scale"] if isinstance(dist, stats.rv_continuous) else ["loc"]
    return shapes + extra


def frozen_params(frozen: Any) -> dict[str, float]:
    """The parameters of a frozen distribution by name (defaults filled in)."""
    names = _param_names(frozen.dist)
    values: dict[str, Any] = {"loc": 0.0, "scale": 1.0}
    values.update(zip(names, frozen.args, strict=False))
    values.update(frozen.kwds)
    return {k: float(values[k]) for k in names if k in values}


def _label(dist: Any) -> str:
    return f"scipy.stats.{getattr(dist, 'name', type(dist).__name__)}"


def _fit(
    dist: Any, data: np.ndarray, fit_kwargs: dict[str, Any], owner: str, what: str
) -> Any:
    """Fit the unfrozen ``dist`` to ``data``: maximum likelihood (``dist.fit``
    for continuous ones; a closed form or ``scipy.stats.fit`` for discrete ones)."""
    discrete = isinstance(dist, stats.rv_discrete)
    closed = None if fit_kwargs else DISCRETE_CLOSED_FORMS.get(dist.name)
    params: tuple[Any, ...]
    if discrete and closed is not None:
        # the support of these three does not depend on the parameter: data it
        # cannot hold are named as such, not as a parameter out of its domain
        check_support(dist(0.5), data, owner, what)
    try:
        # scipy's optimizers may warn on the way to a valid fit; the result is
        # checked below (finite parameters inside the distribution's domain)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            if discrete and closed is not None:
                params = closed(float(np.mean(data)))
            elif discrete:
                fitted = stats.fit(dist, data, **fit_kwargs)
                if not fitted.success:
                    raise RuntimeError(fitted.message)
                # integral shapes (binom's n) as ints: numpy's generators
                # refuse a float count
                params = tuple(
                    int(v) if float(v).is_integer() else float(v) for v in fitted.params
                )
            else:
                params = tuple(dist.fit(data, **fit_kwargs))
    except Exception as exc:
        raise value_error(
            "distribution",
            owner,
            f"could not be fitted to {what} by maximum likelihood: {_label(dist)} "
            f"raised {exc!r}. Freeze it with known parameters (e.g. "
            f"{dist.name}(...)), or pass fit_kwargs= (scipy's fixed parameters "
            "such as floc=, or bounds= for a discrete distribution).",
        ) from exc
    frozen = dist(*params)
    if not np.all(np.isfinite(np.asarray(params, dtype=float))) or np.isnan(
        frozen.support()[0]
    ):
        raise value_error(
            "distribution",
            owner,
            f"could not be fitted to {what}: the fit of {_label(dist)} gave "
            f"parameters {tuple(float(p) for p in params)}, outside its domain.",
        )
    return frozen


def check_support(frozen: Any, data: np.ndarray, owner: str, what: str) -> None:
    """Refuse data the distribution cannot produce (outside its support, or not
    integers for a discrete one)."""
    lo, hi = (float(v) for v in frozen.support())
    if np.isnan(lo):
        raise value_error(
            "distribution",
            owner,
            f"must have valid parameters. Got {_label(frozen.dist)} with "
            f"{frozen_params(frozen)} instead.",
        )
    bad = (data < lo) | (data > hi)
    kind = f"[{lo:g}, {hi:g}]"
    if isinstance(frozen.dist, stats.rv_discrete):
        bad |= data != np.round(data)
        kind = f"the integers in {kind}"
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise value_error(
            "distribution",
            owner,
            f"must be able to produce the {what}: {_label(frozen.dist)} takes "
            f"values in {kind}. Got {int(bad.sum())} value(s) of the {what} "
            f"outside it (the first, at position {first}: {float(data[first])!r}) "
            "instead.",
        )


def _sampler_keyword(sampler: Any, owner: str) -> str:
    """``random_state``, once the sampler is seen to take it (scipy's convention)."""
    try:
        sig = inspect.signature(sampler)
    except (TypeError, ValueError):
        return "random_state"
    params = sig.parameters
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if var_kw or ("size" in params and "random_state" in params):
        return "random_state"
    raise value_error(
        "distribution",
        owner,
        "must be a sampler that accepts the keywords size= and random_state= "
        "(scipy's convention, as scipy.stats.norm(0, 1).rvs does), so each "
        "replicate draws from its own generator. Got "
        f"{getattr(sampler, '__name__', type(sampler).__name__)}{sig} instead.",
    )


def resolve_source(
    distribution: Any,
    fit_kwargs: dict[str, Any] | None,
    data: np.ndarray,
    owner: str,
    what: str,
) -> DrawSource:
    """The frozen distribution (given, or fitted to ``data``) or the sampler."""
    if fit_kwargs and not (
        is_scipy_distribution(distribution) and not is_frozen(distribution)
    ):
        raise value_error(
            "fit_kwargs",
            owner,
            "is for an unfrozen scipy.stats distribution, which is fitted to the "
            f"{what}; a frozen distribution or a sampler is used as given. Got "
            f"{fit_kwargs!r} instead.",
        )
    if is_scipy_distribution(distribution):
        if is_frozen(distribution):
            frozen = distribution
        else:
            frozen = _fit(distribution, data, dict(fit_kwargs or {}), owner, what)
        check_support(frozen, data, owner, what)
        return DrawSource(frozen.rvs, "random_state", frozen, frozen_params(frozen))
    return DrawSource(distribution, _sampler_keyword(distribution, owner))
