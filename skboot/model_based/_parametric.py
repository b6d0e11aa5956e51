"""The parametric bootstrap: replicates drawn from a distribution given or fitted
to the data; for a regression, fitted values plus errors drawn from a distribution
fitted to the residuals, or from the residuals themselves (semi-parametric)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import stats

from skboot._engine._statistic import call_user
from skboot._exceptions import StatisticError
from skboot._kernels.significance import monte_carlo_batch_keys
from skboot._random import PURPOSE, RootKey, fill_indices_kernel
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import (
    BOOL,
    DICT,
    NONE,
    Constraint,
    Interval,
    as_float_array,
    validate_params,
    value_error,
)
from skboot.model_based._base import SyntheticPlan, SyntheticResampler
from skboot.model_based._parametric_fit import (
    DISTRIBUTION,
    DrawSource,
    FrozenDistribution,
    resolve_source,
)
from skboot.model_based._wild import fit_ols
from skboot.resamplers import BaseResampler

__all__ = ["ParametricBootstrap", "ParametricPlan", "replicate_generator"]


def _keys(key: RootKey, b0: int, count: int) -> np.ndarray:
    """The 128-bit Philox keys of replicates ``b0 .. b0 + count - 1``: the third
    and fourth SplitMix64 outputs at position ``b`` of purpose slot
    "parametric"."""
    keys = np.empty((count, 2), dtype=np.uint64)
    seed, gamma = key.stream(PURPOSE["parametric"])
    monte_carlo_batch_keys(seed, gamma, np.int64(b0), keys)
    return keys


def replicate_generator(key: RootKey, b: int) -> np.random.Generator:
    """The numpy Generator of replicate ``b`` (Philox4x32-10), a pure function of
    the root key and ``b``."""
    return np.random.Generator(np.random.Philox(key=_keys(key, b, 1)[0]))


def _generators(key: RootKey, b0: int, count: int) -> Iterator[np.random.Generator]:
    """The generators of replicates ``b0 .. b0 + count - 1``, in order: one
    Generator whose Philox state is reset to replicate ``b``'s fresh state (key
    ``b``, counter 0, empty buffer) before it is yielded, so each equals
    :func:`replicate_generator` ``(key, b)`` and costs a state copy, not a
    construction."""
    keys = _keys(key, b0, count)
    bits = np.random.Philox(key=keys[0])
    fresh = bits.state
    gen = np.random.Generator(bits)
    for k in range(count):
        fresh["state"]["key"] = keys[k]
        bits.state = fresh
        yield gen


@dataclass(frozen=True, eq=False)
class ParametricPlan(SyntheticPlan):
    """Replicate ``b``: ``n`` draws of the sampler from replicate ``b``'s own
    generator (plus the fitted values of a regression), or, for the empirical
    errors of a regression, the fitted values plus resampled centred residuals."""

    source: DrawSource = field(default_factory=lambda: DrawSource(None))
    fitted: np.ndarray | None = None
    residuals: np.ndarray = field(default_factory=lambda: np.empty(0))
    empirical: bool = False
    coef: np.ndarray = field(default_factory=lambda: np.empty(0))

    def draw(self, gen: np.random.Generator, b: int) -> np.ndarray:
        """The sampler's ``n`` values for replicate ``b``, shape-checked."""
        n = self.n_samples
        hint = f" Regenerate it with resampler.fit(...).sample({b})."
        raw = call_user(
            self.source.sampler,
            (),
            {"size": n, self.source.keyword: gen},
            what="sampler",
            b=b,
            hint=hint,
        )
        arr = np.asarray(raw)
        if arr.shape != (n,) or arr.dtype.kind not in "biuf":
            raise StatisticError(
                f"The sampler must return {n} real numbers (shape ({n},)) for "
                f"size={n}; on replicate {b} it returned "
                f"{arr.dtype} values of shape {arr.shape}.",
                b,
            )
        return arr

    def residual_indices(self, b: int) -> np.ndarray | None:
        """Empirical errors: which centred residuals replicate ``b`` draws."""
        if not self.empirical:
            return None
        seed, gamma = self.key.stream(PURPOSE["indices"])
        out = np.empty(self.n_samples, dtype=np.int64)
        m = np.uint64(self.residuals.shape[0])
        fill_indices_kernel(seed, gamma, np.uint64(b), m, out)
        return out

    def sample_chunk(self, b0: int, out: np.ndarray) -> None:
        count = out.shape[0]
        if self.empirical:
            assert self.fitted is not None
            for k in range(count):
                idx = self.residual_indices(b0 + k)
                np.add(self.fitted, self.residuals[idx], out=out[k])
            return
        for k, gen in enumerate(_generators(self.key, b0, count)):
            out[k] = self.draw(gen, b0 + k)
            if self.fitted is not None:
                out[k] += self.fitted

    def start(self, b: int) -> None:
        return None


class ParametricBootstrap(SyntheticResampler):
    """Parametric bootstrap: replicates drawn from a fitted distribution.

    Two uses, chosen by whether ``y`` is given to ``fit`` (or to
    :func:`skboot.bootstrap` / :class:`skboot.BootstrapStatistic`):

    * **One sample** (no ``y``; ``X`` is a 1-D sample): replicate ``b`` is ``n``
      independent draws from ``distribution`` (Efron & Tibshirani 1993, sec.
      6.5; Davison & Hinkley 1997, sec. 2.2).
    * **Regression** (``y`` given; ``X`` is the design): fit ``y = X beta (+
      intercept)`` by OLS; replicate ``b`` is the response ``y*_i = yhat_i +
      e*_i``, with errors ``e*`` drawn from ``distribution`` fitted to the
      residuals (parametric; e.g. normal errors), or, with
      ``distribution="empirical"``, drawn iid from the centred residuals
      (semi-parametric: model-based resampling of Efron & Tibshirani 1993, sec.
      9.5; Davison & Hinkley 1997, sec. 6.2.3).  The statistic is called as
      ``statistic(X, y*)``.  Unlike :class:`WildBootstrap`, this assumes
      errors with one distribution for every row (homoskedastic).

    Algorithm:

    1. Resolve the distribution: a frozen scipy.stats distribution
       (``stats.norm(0, 2)``) is used as given; an unfrozen one
       (``stats.gamma``) is fitted to the data (or residuals) by maximum
       likelihood: ``dist.fit(data, **fit_kwargs)`` for a continuous one; for a
       discrete one the closed-form MLE of ``poisson`` (``mu`` = mean),
       ``bernoulli`` (``p`` = mean) and ``geom`` (``p`` = 1 / mean) when
       ``fit_kwargs`` is empty, else ``scipy.stats.fit(dist, data,
       **fit_kwargs)`` (which needs ``bounds=`` for the shape parameters).  A
       callable is a sampler called as ``sampler(size=n,
       random_state=generator)`` (scipy's convention).  Data the distribution
       cannot produce (outside its support; not integers for a discrete one) are
       refused; a sampler's first replicate is drawn and checked at ``fit``.
    2. Replicate ``b`` draws from its own ``numpy.random.Generator``: Philox4x32-10
       (Salmon et al. 2011) keyed by 128 bits read at position ``b`` of the
       stream's purpose slot "parametric" (:meth:`generator`).  Each replicate
       is thus a pure function of ``(random_state, b)``, whatever the chunk
       size, ``n_jobs`` or backend, and :meth:`sample` regenerates it alone.
       The empirical errors of a regression use the iid index stream instead:
       residual ``i`` of replicate ``b`` is index ``i`` of
       ``Bootstrap(random_state=seed).fit(residuals_).replicate(b)``.
    3. The statistic is evaluated on each replicate by the same engine as every
       other resampler, in chunks: memory is O(chunk * n) for any
       ``n_resamples``.

    Cost: one sampler call per replicate (a reset of the generator's state, a
    few microseconds, plus scipy's ``rvs`` overhead, some tens of
    microseconds, then O(n)); a sampler callable skips scipy's overhead.  The
    empirical errors cost O(n) per replicate.  The BCa interval needs a jackknife the
    model does not provide (use "bc", "percentile", "basic", "normal" or
    "studentized").

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of replicates.
    distribution : scipy.stats distribution, callable or "empirical"
        What the replicates (or the regression errors) are drawn from: a frozen
        scipy.stats distribution, used as given; an unfrozen one, fitted by
        maximum likelihood; a sampler ``callable(size, random_state)``; or
        ``"empirical"`` (regression only) for the centred residuals.
    fit_kwargs : dict, optional
        Keyword arguments of the fit of an unfrozen distribution: scipy's
        ``floc=``, ``fscale=``, ``f0=``, ``method=`` for ``dist.fit``;
        ``bounds=`` and others for ``scipy.stats.fit`` (discrete ones).
    fit_intercept : bool, default=True
        Regression only: add an intercept to the design.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
        Root of the random streams.

    Attributes
    ----------
    distribution_ : frozen scipy.stats distribution, callable or str
        What the replicates (errors) are drawn from: the frozen distribution
        (as given, or fitted), the sampler, or "empirical".
    params_ : dict
        The distribution's parameters by name (shapes, ``loc`` and ``scale``
        for a continuous one, shapes and ``loc`` for a discrete one); empty for a
        sampler or "empirical".
    coef_ : ndarray
        Regression: the OLS coefficients (intercept last when fitted).
    fitted_ : ndarray of shape (n,)
        Regression: ``yhat``.
    residuals_ : ndarray of shape (n,)
        Regression: ``y - yhat`` (centred for "empirical").
    key_, seed_entropy_, n_samples_, plan_
        As for every skboot resampler.

    See Also
    --------
    WildBootstrap : Re-signs each residual in place (heteroskedastic errors).
    ResidualBootstrap : Resampled residuals of an AR model of a series.
    skboot.monte_carlo_test : A test against a fixed parametric null.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*,
           Chapman & Hall, 1993, sections 6.5 and 9.5.
    .. [2] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their
           Application*, Cambridge, 1997, sections 2.2 and 6.2.3.
    .. [3] J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel
           random numbers: as easy as 1, 2, 3", SC 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skboot import bootstrap
    >>> from skboot.model_based import ParametricBootstrap
    >>> x = np.random.default_rng(0).exponential(2.0, size=50)
    >>> pb = ParametricBootstrap(999, distribution=stats.expon,
    ...                          fit_kwargs={"floc": 0}, random_state=0)
    >>> res = bootstrap(x, "mean", resampler=pb)
    >>> round(res.estimate, 3), round(res.standard_error, 3)
    (2.228, 0.312)
    >>> fitted = pb.fit(x)
    >>> {k: round(v, 3) for k, v in fitted.params_.items()}
    {'loc': 0.0, 'scale': 2.228}
    >>> g = fitted.generator(7)        # replicate 7, drawn again by hand
    >>> bool(np.all(fitted.sample(7) == fitted.distribution_.rvs(50, random_state=g)))
    True
    """

    def __init__(
        self,
        n_resamples: int = 9999,
        *,
        distribution: (
            stats.rv_continuous
            | stats.rv_discrete
            | FrozenDistribution
            | Callable[..., ArrayLike]
            | str
        ),
        fit_kwargs: dict[str, Any] | None = None,
        fit_intercept: bool = True,
        random_state: RandomStateLike = None,
    ) -> None:
        super().__init__(n_resamples, random_state=random_state)
        self.distribution = distribution
        self.fit_kwargs = fit_kwargs
        self.fit_intercept = fit_intercept

    #: The constructor parameters (``n_resamples`` and ``random_state`` first),
    #: checked in this order by ``check_params``.
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {
        **BaseResampler._parameter_constraints,
        "distribution": DISTRIBUTION,
        "fit_kwargs": [DICT, NONE],
        "fit_intercept": [BOOL],
    }

    def _make_plan(
        self, key: RootKey, n_samples: int, X: Any, y: Any, groups: Any
    ) -> ParametricPlan:
        if groups is not None:
            raise value_error(
                "groups",
                self._name,
                "must be None: every row (or error) is drawn independently. Got "
                f"{type(groups).__name__} instead.",
            )
        empirical = isinstance(self.distribution, str)
        if y is None:
            if empirical:
                raise value_error(
                    "distribution",
                    self._name,
                    "must be a distribution or a sampler without y: 'empirical' "
                    "resamples the residuals of a regression (give y=); for one "
                    "sample it is the ordinary bootstrap (use Bootstrap). Got "
                    "'empirical' instead.",
                )
            x = as_float_array(X, "X", self._name, ndim=(1, 2))
            if x.ndim == 2 and x.shape[1] != 1:
                raise value_error(
                    "X",
                    self._name,
                    "must be one sample (1-D) without y: the replicates are "
                    f"draws of one distribution. Got shape {x.shape} instead.",
                )
            data, what = x.reshape(-1), "data"
            response, fitted, coef = None, None, np.empty(0)
        else:
            response, fitted, coef = fit_ols(
                X, y, n_samples, bool(self.fit_intercept), self._name
            )
            data, what = response - fitted, "residuals"
        if empirical:
            if self.fit_kwargs:
                raise value_error(
                    "fit_kwargs",
                    self._name,
                    "is for an unfrozen scipy.stats distribution; 'empirical' "
                    f"fits nothing. Got {self.fit_kwargs!r} instead.",
                )
            data = data - data.mean()
            source = DrawSource(None)
        else:
            source = resolve_source(
                self.distribution, self.fit_kwargs, data, self._name, what
            )
        plan = ParametricPlan(
            key,
            n_samples,
            owner=self._name,
            response=response,
            source=source,
            fitted=None if fitted is None else np.ascontiguousarray(fitted),
            residuals=np.ascontiguousarray(data),
            empirical=empirical,
            coef=np.asarray(coef, dtype=np.float64),
        )
        if not empirical:
            _check_first_draw(plan, self._name)
        return plan

    def _fitted_attributes(self, plan: Any) -> dict[str, Any]:
        src = plan.source
        out: dict[str, Any] = {
            "distribution_": (
                "empirical"
                if plan.empirical
                else (src.frozen if src.frozen is not None else src.sampler)
            ),
            "params_": dict(src.params),
        }
        if plan.fitted is not None:
            out.update(
                coef_=plan.coef.copy(),
                fitted_=plan.fitted.copy(),
                residuals_=plan.residuals.copy(),
            )
        return out

    def generator(self, b: int) -> np.random.Generator:
        """A fresh copy of the numpy Generator replicate ``b`` draws from.

        Parameters
        ----------
        b : int
            Replicate number in ``[0, n_resamples)``.

        Returns
        -------
        numpy.random.Generator
            Philox4x32-10 keyed from the fitted root key and ``b``: the
            distribution's ``rvs(size=n, random_state=generator)`` (or the
            sampler's draw) is replicate ``b`` (minus the fitted values of a
            regression).
        """
        self._check_fitted("generator(b)")
        b = validate_params(
            f"{self._name}.generator",
            {"b": [Interval("int", 0, self.n_resamples - 1)]},
            b=b,
        )["b"]
        return replicate_generator(self.key_, b)


def _check_first_draw(plan: ParametricPlan, owner: str) -> None:
    """Draw replicate 0 once at ``fit``: a sampler that returns the wrong shape,
    non-numbers or non-finite values is refused before the run."""
    try:
        first = plan.draw(replicate_generator(plan.key, 0), 0)
    except StatisticError as exc:
        raise value_error(
            "distribution", owner, f"must draw n real numbers per call: {exc}"
        ) from exc
    if not np.all(np.isfinite(first)):
        raise value_error(
            "distribution",
            owner,
            "must draw finite values: replicate 0 of the sampler holds "
            f"{int((~np.isfinite(first)).sum())} non-finite value(s).",
        )
