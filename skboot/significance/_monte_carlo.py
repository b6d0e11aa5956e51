"""``monte_carlo_test``: a parametric null drawn by user samplers, one generator
per replicate derived from the stream."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import Statistic, accepts, as_output, run_bootstrap
from skboot._engine._statistic import call_user
from skboot._exceptions import StatisticError
from skboot._kernels.significance import monte_carlo_keys
from skboot._random import PURPOSE, RootKey, check_random_state
from skboot._typing import ArrayLike, RandomStateLike
from skboot._validation import (
    CALLABLE,
    VECTORIZED,
    Constraint,
    Interval,
    Predicate,
    seed_from_rng,
    validate_params,
    value_error,
)
from skboot.significance._common import (
    ALTERNATIVE,
    COUNT,
    RUN_CONSTRAINTS,
    float_dtype,
    non_finite_note,
    prepare_samples,
    pvalues,
    result_dtype,
    scalar_or_array,
    warn_undefined,
    warn_undefined_observed,
)
from skboot.significance._plans import KeyPlan
from skboot.significance._results import MonteCarloTestResult

__all__ = ["MonteCarloTestResult", "monte_carlo_test", "replicate_generator"]

_OWNER = "monte_carlo_test"

#: Samplers: one callable, or a non-empty sequence of callables (one per sample).
_SAMPLERS = Predicate(
    lambda v: (
        isinstance(v, Sequence)
        and not isinstance(v, (str, bytes))
        and len(v) > 0
        and all(callable(r) for r in v)
    ),
    "a sequence of them",
)
_CONSTRAINTS: dict[str, list[Constraint]] = {
    "rvs": [CALLABLE, _SAMPLERS],
    "statistic": [CALLABLE],
    "n_resamples": [COUNT],
    "alternative": [ALTERNATIVE],
    "axis": [Interval("int")],
    "vectorized": VECTORIZED,
    **RUN_CONSTRAINTS,
}


def replicate_generator(key: RootKey, b: int) -> np.random.Generator:
    """The numpy Generator that replicate ``b`` of a Monte Carlo test hands to the samplers.

    It is a Philox4x32-10 generator (Salmon et al. 2011 [1]_) keyed by the
    first two SplitMix64 outputs of replicate ``b`` on purpose slot
    "monte_carlo", counter 0, so it is a pure function of ``(key, b)``: any
    replicate's null sample can be drawn again alone.

    Parameters
    ----------
    key : RootKey
        The run's root key, ``skboot._random.check_random_state(random_state)``
        for the ``random_state`` given to :func:`monte_carlo_test`.
    b : int
        Replicate number, ``0 <= b < n_resamples``.

    Returns
    -------
    numpy.random.Generator
        A fresh generator; the samplers of replicate ``b`` draw from it in order.

    See Also
    --------
    monte_carlo_test : Hands these generators to the samplers.

    References
    ----------
    .. [1] J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel
       random numbers: as easy as 1, 2, 3", SC 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skboot._random import check_random_state
    >>> from skboot.significance import monte_carlo_test, replicate_generator
    >>> null = stats.norm(4.5, 3)
    >>> def mean(a):
    ...     return float(np.mean(a))
    >>> res = monte_carlo_test(np.arange(10.0), null.rvs, mean, n_resamples=99,
    ...                        random_state=0)
    >>> again = null.rvs(size=10, random_state=replicate_generator(
    ...     check_random_state(0), 7))
    >>> bool(res.null_distribution[7] == mean(again))
    True
    """
    keys = np.empty((1, 2), dtype=np.uint64)
    seed, gamma = key.stream(PURPOSE["monte_carlo"])
    monte_carlo_keys(seed, gamma, np.int64(b), keys)
    return np.random.Generator(np.random.Philox(key=keys[0]))


def _sampler_keyword(rvs: Callable[..., Any], j: int) -> str:
    """The keyword through which sampler ``j`` receives its generator."""
    try:
        params = inspect.signature(rvs).parameters
    except (TypeError, ValueError):
        return "random_state"
    if "random_state" in params:
        return "random_state"
    if "rng" in params:
        return "rng"
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return "random_state"
    raise value_error(
        "rvs",
        _OWNER,
        "must hold samplers that accept the keywords size= and random_state= (or "
        "rng=), such as scipy.stats.norm(0, 1).rvs, so each replicate draws from "
        f"its own derived generator. Sampler {j} ({rvs!r}) accepts neither.",
    )


@dataclass
class MonteCarloStatistic(Statistic):
    """The statistic on samples drawn by the samplers, replicate by replicate
    (each with its own generator); vectorized statistics are called once per
    chunk on the stacked draws."""

    func: Any = None
    vectorized: bool = True
    rvs: tuple[Callable[..., Any], ...] = ()
    keywords: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    k: int = 1
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"

    def bytes_per_replicate(self, plan: Any) -> int:
        return 16 * sum(self.sizes) + 64

    def _draw(self, gen: np.random.Generator, b: int) -> list[np.ndarray]:
        out = []
        for j, (rvs, kw, n) in enumerate(
            zip(self.rvs, self.keywords, self.sizes, strict=True)
        ):
            drawn = call_user(rvs, (), {"size": n, kw: gen}, what=f"sampler {j}", b=b)
            sample = np.asarray(drawn)
            if sample.shape != (n,):
                raise StatisticError(
                    f"Sampler {j} must return an array of shape ({n},) for "
                    f"size={n}; on replicate {b} it returned shape {sample.shape}.",
                    b,
                )
            out.append(sample)
        return out

    def call_raw(self, samples: list[np.ndarray], where: str, b: int) -> Any:
        """The statistic's value as it returned it."""
        kwargs = {"axis": -1} if self.vectorized else None
        return call_user(self.func, tuple(samples), kwargs, where=where, b=b)

    def _value(self, samples: list[np.ndarray], where: str, b: int) -> np.ndarray:
        raw = self.call_raw(samples, where, b)
        return as_output(raw, None, where, b, keep_shape=True)

    def run_chunk(self, arrays, plan, b0, out, scratch) -> None:
        nb = out.shape[0]
        keys = np.empty((nb, 2), dtype=np.uint64)
        seed, gamma = plan.key.stream(PURPOSE["monte_carlo"])
        monte_carlo_keys(seed, gamma, np.int64(b0), keys)
        draws = []
        for k in range(nb):
            gen = np.random.Generator(np.random.Philox(key=keys[k]))
            draws.append(self._draw(gen, b0 + k))
        if self.vectorized:
            stacked = [np.stack([d[j] for d in draws]) for j in range(len(self.rvs))]
            where = f"replicates {b0}-{b0 + nb - 1}"
            value = self._value(stacked, where, b0)
            if value.shape == (nb,):
                out[:, 0] = value
                return
            for k in range(nb):  # find the replicate that misbehaves
                out[k, 0] = self._one(draws[k], b0 + k, vectorized=True)
            return
        for k in range(nb):
            out[k, 0] = self._one(draws[k], b0 + k, vectorized=False)

    def _one(self, samples: list[np.ndarray], b: int, vectorized: bool) -> float:
        value = self._value(samples, f"replicate {b}", b)
        if value.shape != ():
            raise StatisticError(
                "The statistic must return one number per sample drawn under the "
                f"null; on replicate {b} it returned shape {value.shape}.",
                b,
            )
        return float(value)


def monte_carlo_test(
    data: ArrayLike | Sequence[ArrayLike],
    rvs: Callable[..., Any] | Sequence[Callable[..., Any]],
    statistic: Callable[..., Any],
    *,
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    axis: int = 0,
    vectorized: bool | None = None,
    random_state: RandomStateLike = None,
    rng: RandomStateLike = None,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> MonteCarloTestResult:
    """Monte Carlo test of a statistic against a parametric null.

    The statistic is compared with its distribution under a null drawn by user
    samplers.  Same semantics and result fields as ``scipy.stats.monte_carlo_test``:

    1. ``statistic`` is evaluated on ``data``.
    2. For each replicate ``b < n_resamples`` every sampler draws a sample of
       the size of its data sample (observations along ``axis``) and the
       statistic is evaluated on them: the null distribution.  Replicate ``b``'s
       samplers share one numpy Generator, Philox4x32-10 keyed by the stream's
       purpose slot "monte_carlo" at replicate ``b``
       (:func:`replicate_generator`), so the null distribution is a pure
       function of ``(random_state, b)`` and bit-identical for any
       ``chunk_size``, ``n_jobs`` or joblib backend.
    3. ``pvalue = (r + 1) / (n_resamples + 1)`` with ``r`` the null values at
       least as extreme as the observed one (relative tolerance 100 machine
       epsilons of the statistic's dtype; twice the smaller one-sided p-value
       for "two-sided", clipped to 1), as in scipy and Phipson & Smyth (2010).
       A NaN statistic on the data gives a NaN p-value and an
       :class:`~skboot.UndefinedStatisticWarning`; NaN null values never count,
       +-inf count as values.  The statistic keeps its floating dtype and the
       p-value the data's, as in scipy.

    Memory: one chunk of drawn samples per worker plus O(n_resamples).  Time:
    one Generator and one call of each sampler per replicate (about 10 µs of
    overhead each), plus the statistic once per chunk (vectorized) or per
    replicate.

    Parameters
    ----------
    data : array-like or sequence of array-like
        One sample, or one sample per sampler.
    rvs : callable or sequence of callables
        Samplers of the null distribution, called ``rvs(size=n,
        random_state=generator)`` (or ``rng=generator`` if that is their
        keyword): a frozen scipy distribution's ``rvs`` works as is.  One
        per sample of ``data``.
    statistic : callable
        ``statistic(*samples)``, with ``axis`` when vectorized; one number per
        sample set drawn under the null.
    n_resamples : int, default=9999
        Number of sample sets drawn under the null.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        Which values of the statistic count as extreme.
    axis : int, default=0
        Axis of the observations in ``data`` (the observed statistic may be
        N-dimensional; the null distribution is compared with each element).
    vectorized : bool or None, default=None
        Whether the statistic takes ``axis`` and a leading batch of replicates;
        None: True when its signature has ``axis``.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the derived streams; None draws fresh entropy, recorded on
        the result so the run can be repeated.
    rng : None, int, SeedSequence or Generator, default=None
        The name scipy gives ``random_state`` (SPEC 7): the same seed, the same
        draws; give one of the two.
    n_jobs : int, default=None
        Workers through joblib.
    chunk_size : int, default=None
        Replicates per chunk; never changes results.

    Returns
    -------
    MonteCarloTestResult
        The statistic, its p-value and the null distribution.

    See Also
    --------
    replicate_generator : The generator replicate ``b`` hands to the samplers.
    permutation_test : The test when the null is exchangeability.

    References
    ----------
    .. [1] B. Phipson and G. K. Smyth, "Permutation P-values should never be
       zero", Statistical Applications in Genetics and Molecular Biology 9(1),
       2010.
    .. [2] J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel
       random numbers: as easy as 1, 2, 3", SC 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skboot.significance import monte_carlo_test
    >>> x = stats.skewnorm(4).rvs(size=60, random_state=1)
    >>> res = monte_carlo_test(x, stats.norm(0, 1).rvs, stats.skew,
    ...                        n_resamples=999, random_state=0)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (0.894, 0.012)
    """
    random_state = seed_from_rng(rng, random_state, _OWNER)
    values = validate_params(
        _OWNER,
        _CONSTRAINTS,
        rvs=rvs,
        statistic=statistic,
        n_resamples=n_resamples,
        alternative=alternative,
        axis=axis,
        vectorized=vectorized,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
    )
    B, alternative = values["n_resamples"], values["alternative"]
    samplers: tuple[Callable[..., Any], ...]
    if callable(rvs):
        samplers, samples_in = (rvs,), (data,)
    else:
        samplers = tuple(rvs)
        if not isinstance(data, Sequence) or len(data) != len(samplers):
            got = len(data) if isinstance(data, Sequence) else type(data).__name__
            raise value_error(
                "data",
                _OWNER,
                f"must hold one sample per sampler in 'rvs' ({len(samplers)}). "
                f"Got {got} instead.",
            )
        samples_in = tuple(data)
    keywords = tuple(_sampler_keyword(r, j) for j, r in enumerate(samplers))
    samples, batch = prepare_samples(samples_in, values["axis"], _OWNER, min_obs=1)
    vec = values["vectorized"]
    key = check_random_state(random_state, owner=_OWNER)
    stat = MonteCarloStatistic(
        func=statistic,
        vectorized=accepts(statistic, "axis") if vec is None else vec,
        rvs=samplers,
        keywords=keywords,
        sizes=tuple(s.shape[-1] for s in samples),
    )
    observed, dtype = _observed(stat, samples, batch)
    undefined = warn_undefined_observed(
        observed,
        _OWNER,
        non_finite_note(samples) or "the statistic returned NaN on the data",
    )
    plan = KeyPlan(key, sum(stat.sizes))
    null = run_bootstrap(stat, plan, B, n_jobs=n_jobs, chunk_size=chunk_size)
    n_bad = warn_undefined(null, _OWNER, announce=not undefined)
    # scipy's rule, in the statistic's dtype; the p-value in the data's
    p = pvalues(observed.reshape(-1).astype(dtype), null[:, :1], alternative, 1)
    return MonteCarloTestResult(
        statistic=scalar_or_array(observed, observed.shape, dtype),
        pvalue=scalar_or_array(p, observed.shape, float_dtype(samples)),
        null_distribution=null[:, 0],
        n_resamples=B,
        alternative=alternative,
        random_state=key.reproducer(),
        n_undefined=n_bad,
    )


def _observed(
    stat: MonteCarloStatistic, samples: list[np.ndarray], batch: tuple[int, ...]
) -> tuple[np.ndarray, np.dtype]:
    """The statistic on the data (float64) and the floating dtype it returned."""
    if stat.vectorized or not batch:
        raw = stat.call_raw(samples, "the original data", -1)
        value = as_output(raw, None, "the original data", keep_shape=True)
        return value, result_dtype(raw)
    out = np.empty(batch)
    dtype = np.dtype(np.float64)
    for idx in np.ndindex(*batch):
        raw = stat.call_raw([s[idx] for s in samples], "the original data", -1)
        dtype = result_dtype(raw)
        out[idx] = float(as_output(raw, None, "the original data", keep_shape=True))
    return out, dtype
