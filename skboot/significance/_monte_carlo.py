"""``monte_carlo_test``: a parametric null drawn by user samplers in fixed
batches of replicates, one generator per batch derived from the stream."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skboot._engine import Statistic, accepts, as_output, run_bootstrap
from skboot._engine._statistic import call_user
from skboot._exceptions import StatisticError
from skboot._kernels.significance import monte_carlo_batch_keys
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

__all__ = [
    "MonteCarloTestResult",
    "batch_generator",
    "monte_carlo_batch",
    "monte_carlo_test",
]

_OWNER = "monte_carlo_test"

#: Bounds of the replicates per batch, and the values (all samplers together)
#: a batch aims at: 2**20 float64 values, 8 MiB.
_BATCH_MIN, _BATCH_MAX, _BATCH_VALUES = 16, 1024, 2**20


def monte_carlo_batch(n_values: int) -> int:
    """Return the replicates per batch of a Monte Carlo test.

    For replicates that draw ``n_values`` values (the samplers' ``n``
    summed), the largest power of two ``k`` between 16 and 1024 with ``k * n_values <=
    2**20``: few sampler calls for small samples (1024 replicates of n = 150
    per call), at most about 8 MiB per batch for large ones.  Batch ``j`` holds
    replicates ``[j * k, min((j + 1) * k, n_resamples))`` and draws them from
    its own generator (:func:`batch_generator`) with one call of each sampler;
    a batch is never split across chunks or workers, so results depend on the
    samples' sizes (through ``k``) but not on ``chunk_size``, ``n_jobs`` or the
    backend.  The result records ``k`` as ``batch_size``.

    Parameters
    ----------
    n_values : int
        Values one replicate draws (the observations of all samples).

    Returns
    -------
    int
        The batch size ``k``.

    See Also
    --------
    batch_generator : The generator of one batch.
    monte_carlo_test : Draws its null in these batches.

    Examples
    --------
    >>> from skboot.significance import monte_carlo_batch
    >>> monte_carlo_batch(150), monte_carlo_batch(10_000), monte_carlo_batch(10**6)
    (1024, 64, 16)
    """
    k = _BATCH_MAX
    while k > _BATCH_MIN and k * int(n_values) > _BATCH_VALUES:
        k //= 2
    return k


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
#: A batch number: replicates are counted below 2**32.
_BATCH_NUMBER: dict[str, list[Constraint]] = {
    "j": [Interval("int", 0, 2**32 // _BATCH_MIN, closed="left")]
}


def batch_generator(random_state: Any, j: int) -> np.random.Generator:
    """The numpy Generator that batch ``j`` of a Monte Carlo test hands to the samplers.

    With ``K`` the result's ``batch_size`` (:func:`monte_carlo_batch`), batch
    ``j`` holds replicates ``j * K`` up to ``min((j + 1) * K, n_resamples)``,
    ``k`` of them.  Each sampler in turn draws ``size=(k, n)`` from this
    generator (``n`` the observations of its data sample); replicate ``b`` is
    row ``b - j * K`` of every sampler's draw.  The
    generator is Philox4x32-10 (Salmon et al. 2011 [1]_) keyed by the third
    and fourth SplitMix64 outputs at position ``j`` of purpose slot
    "monte_carlo", a pure function of ``(random_state, j)``: any replicate's
    null samples can be drawn again alone.

    Parameters
    ----------
    random_state : int, SeedSequence or RootKey
        The run's seed: the result's ``random_state`` (or the int or
        SeedSequence given to :func:`monte_carlo_test`).
    j : int
        Batch number, ``0 <= j < ceil(n_resamples / batch_size)``.

    Returns
    -------
    numpy.random.Generator
        A fresh generator; the samplers of batch ``j`` draw from it in order.

    See Also
    --------
    monte_carlo_test : Hands these generators to the samplers.

    References
    ----------
    .. [1] J. K. Salmon, M. A. Moraes, R. O. Dror and D. E. Shaw, "Parallel
       random numbers: as easy as 1, 2, 3", SC 2011.

    Examples
    --------
    Replicate 300 of a run whose batches hold 16 replicates is row 12 of
    batch 18:

    >>> import numpy as np
    >>> from scipy import stats
    >>> from skboot.significance import batch_generator, monte_carlo_test
    >>> null = stats.norm(4.5, 3)
    >>> def mean(a):
    ...     return float(np.mean(a))
    >>> x = np.arange(100_000.0)
    >>> res = monte_carlo_test(x, null.rvs, mean, n_resamples=1000, random_state=0)
    >>> K = res.batch_size
    >>> j, row = divmod(300, K)
    >>> (K, j, row)
    (16, 18, 12)
    >>> k = min(K, res.n_resamples - j * K)
    >>> drawn = null.rvs(size=(k, x.size),
    ...                  random_state=batch_generator(res.random_state, j))
    >>> bool(res.null_distribution[300] == mean(drawn[row]))
    True
    """
    if isinstance(random_state, RootKey):
        key = random_state
    else:
        key = check_random_state(random_state, owner="batch_generator")
    j = validate_params("batch_generator", _BATCH_NUMBER, j=j)["j"]
    keys = np.empty((1, 2), dtype=np.uint64)
    seed, gamma = key.stream(PURPOSE["monte_carlo"])
    monte_carlo_batch_keys(seed, gamma, np.int64(j), keys)
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
    """The statistic on samples drawn by the samplers, batch by batch: the
    engine's replicate ``j`` is batch ``j`` (``k`` values,
    NaN past ``n_resamples``), so a chunk or a worker always holds whole
    batches.  Vectorized statistics are called once per batch, others once
    per replicate."""

    func: Any = None
    vectorized: bool = True
    rvs: tuple[Callable[..., Any], ...] = ()
    keywords: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    n_resamples: int = 0
    k: int = _BATCH_MAX
    arrays: tuple[np.ndarray, ...] = ()
    name: str = "callable"

    def bytes_per_replicate(self, plan: Any) -> int:
        return self.k * (16 * sum(self.sizes) + 64)

    def _draw(self, gen: np.random.Generator, b: int, k: int) -> list[np.ndarray]:
        """Each sampler's ``(k, n)`` draw for the batch starting at replicate ``b``."""
        where = f"the batch of replicates {b}-{b + k - 1}"
        out = []
        for i, (rvs, kw, n) in enumerate(
            zip(self.rvs, self.keywords, self.sizes, strict=True)
        ):
            size = (k, n)
            drawn = call_user(
                rvs, (), {"size": size, kw: gen}, what=f"sampler {i}", b=b, where=where
            )
            sample = np.asarray(drawn)
            if sample.shape != size:
                raise StatisticError(
                    f"Sampler {i} must return an array of shape {size} for "
                    f"size={size}; on {where} it returned shape {sample.shape}.",
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

    def run_chunk(self, arrays, plan, j0, out, scratch) -> None:
        keys = np.empty((out.shape[0], 2), dtype=np.uint64)
        seed, gamma = plan.key.stream(PURPOSE["monte_carlo"])
        monte_carlo_batch_keys(seed, gamma, np.int64(j0), keys)
        for i in range(out.shape[0]):
            b = (j0 + i) * self.k
            k = min(self.k, self.n_resamples - b)
            gen = np.random.Generator(np.random.Philox(key=keys[i]))
            out[i, :k] = self._batch(self._draw(gen, b, k), b, k)
            out[i, k:] = np.nan

    def _batch(self, samples: list[np.ndarray], b: int, k: int) -> np.ndarray:
        """The statistic on the ``k`` replicates from ``b`` (rows of ``samples``)."""
        if self.vectorized:
            value = self._value(samples, f"replicates {b}-{b + k - 1}", b)
            if value.shape == (k,):
                return value
        # plain statistics; or find the replicate a vectorized one misbehaves on
        return np.array([self._one([s[r] for s in samples], b + r) for r in range(k)])

    def _one(self, samples: list[np.ndarray], b: int) -> float:
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
    2. The ``n_resamples`` replicates are cut into fixed batches of ``K``
       replicates (:func:`monte_carlo_batch`: 1024 for small samples, fewer
       for large ones, recorded as ``result.batch_size``): batch ``j`` holds
       replicates ``[K j, min(K (j + 1), n_resamples))``, ``k`` of them.  Each
       sampler is called once per batch with ``size=(k, n)`` (``n`` the
       observations of its data sample, along ``axis``), the samplers of a
       batch drawing in turn from one numpy Generator, Philox4x32-10 keyed by
       the stream's purpose slot "monte_carlo" at position ``j``
       (:func:`batch_generator`); row ``r`` is replicate ``K j + r``.  The
       statistic on each replicate's rows is the null distribution.  Batches
       are never split across chunks or workers, so the null distribution is
       a pure function of ``(random_state, n_resamples)`` and the samples'
       sizes, bit-identical for
       any ``chunk_size``, ``n_jobs`` or joblib backend.
    3. ``pvalue = (r + 1) / (n_resamples + 1)`` with ``r`` the null values at
       least as extreme as the observed one (relative tolerance 100 machine
       epsilons of the statistic's dtype; twice the smaller one-sided p-value
       for "two-sided", clipped to 1), as in scipy and Phipson & Smyth (2010).
       A NaN statistic on the data gives a NaN p-value and an
       :class:`~skboot.UndefinedStatisticWarning`; NaN null values never count,
       +-inf count as values.  The statistic keeps its floating dtype and the
       p-value the data's, as in scipy.

    Memory: one chunk of drawn batches per worker plus O(n_resamples).  Time:
    one Generator and one call of each sampler per batch of ``K`` replicates,
    plus the statistic once per batch (vectorized, ``axis=-1`` on the
    ``(k, n)`` draws) or once per replicate (on its rows).

    Parameters
    ----------
    data : array-like or sequence of array-like
        One sample, or one sample per sampler.
    rvs : callable or sequence of callables
        Samplers of the null distribution, called ``rvs(size=(k, n),
        random_state=generator)`` (or ``rng=generator`` if that is their
        keyword) for a batch of ``k`` replicates, each a row: a scipy
        distribution's ``rvs`` works as is.  One per sample of ``data``.
    statistic : callable
        ``statistic(*samples)``, with ``axis=-1`` on a batch of replicates
        when vectorized; one number per sample set drawn under the null.
    n_resamples : int, default=9999
        Number of sample sets drawn under the null.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        Which values of the statistic count as extreme.
    axis : int, default=0
        Axis of the observations in ``data`` (the observed statistic may be
        N-dimensional; the null distribution is compared with each element).
    vectorized : bool or None, default=None
        Whether the statistic takes ``axis`` and a leading batch of replicates
        (then called once per batch); None: True when its signature has
        ``axis``.
    random_state : None, int, SeedSequence or Generator, default=None
        Root seed of the derived streams; None draws fresh entropy, recorded on
        the result so the run can be repeated.
    rng : None, int, SeedSequence or Generator, default=None
        The name scipy gives ``random_state`` (SPEC 7): the same seed, the same
        draws; give one of the two.
    n_jobs : int, default=None
        Workers through joblib.
    chunk_size : int, default=None
        Replicates per chunk, rounded up to whole batches of 128; never
        changes results.

    Returns
    -------
    MonteCarloTestResult
        The statistic, its p-value and the null distribution.

    See Also
    --------
    batch_generator : The generator batch ``j`` hands to the samplers.
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
    (0.894, 0.008)
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
        n_resamples=B,
        k=monte_carlo_batch(sum(s.shape[-1] for s in samples)),
    )
    observed, dtype = _observed(stat, samples, batch)
    undefined = warn_undefined_observed(
        observed,
        _OWNER,
        non_finite_note(samples) or "the statistic returned NaN on the data",
    )
    plan = KeyPlan(key, sum(stat.sizes))
    # the engine's replicates are whole batches: chunks never split one
    n_batches = -(-B // stat.k)
    chunk = values["chunk_size"]
    chunk = None if chunk is None else -(-chunk // stat.k)
    batches = run_bootstrap(stat, plan, n_batches, n_jobs=n_jobs, chunk_size=chunk)
    null = batches.reshape(-1)[:B, None]
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
        batch_size=stat.k,
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
