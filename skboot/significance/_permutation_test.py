"""``permutation_test``: scipy's semantics on skboot's derived streams."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from skboot._engine import accepts, run_bootstrap
from skboot._random import check_random_state
from skboot._typing import ArrayLike, RandomStateLike, StatisticLike
from skboot._validation import (
    CALLABLE,
    N_RESAMPLES,
    VECTORIZED,
    Constraint,
    Interval,
    Options,
    seed_from_rng,
    validate_params,
    value_error,
)
from skboot.significance._common import (
    ALTERNATIVE,
    COUNT,
    EXACT,
    RUN_CONSTRAINTS,
    float_dtype,
    non_finite_note,
    prepare_samples,
    pvalues,
    scalar_or_array,
    warn_undefined,
    warn_undefined_observed,
)
from skboot.significance._plans import (
    PERMUTATION_TYPES,
    PermutationTestPlan,
    distinct_permutations,
)
from skboot.significance._results import PermutationTestResult
from skboot.significance._statistics import (
    FUSED_STATISTICS,
    CallableTestStatistic,
    FusedTestStatistic,
)

__all__ = ["PermutationTestResult", "permutation_test"]

_OWNER = "permutation_test"
#: The most permutations a test evaluates (replicate numbers are 32-bit).
_MOST = int(cast(float, N_RESAMPLES.high))


_CONSTRAINTS: dict[str, list[Constraint]] = {
    "statistic": [CALLABLE, Options(tuple(FUSED_STATISTICS))],
    "permutation_type": [Options(PERMUTATION_TYPES, case_insensitive=True)],
    "n_resamples": [COUNT, EXACT],
    "alternative": [ALTERNATIVE],
    "axis": [Interval("int")],
    "vectorized": VECTORIZED,
    **RUN_CONSTRAINTS,
}


def _check_statistic(statistic: Any, kind: str) -> str | None:
    """The fused name (defined for the permutation type ``kind``), or None for
    a callable."""
    if not isinstance(statistic, str):
        return None
    need = FUSED_STATISTICS[statistic]
    if need != kind:
        raise value_error(
            "statistic",
            _OWNER,
            f"is {statistic!r}, which is defined for permutation_type={need!r}. "
            f"Got permutation_type={kind!r} instead.",
        )
    return statistic


def _check_fused_data(
    name: str, samples: list[np.ndarray], batch: tuple[int, ...], shapes: list[Any]
) -> None:
    kind = FUSED_STATISTICS[name]
    allowed = {"independent": (2,), "pairings": (2,), "samples": (1, 2)}[kind]
    if len(samples) not in allowed or batch:
        want = " or ".join(str(a) for a in allowed)
        raise value_error(
            "data",
            _OWNER,
            f"must hold {want} one-dimensional sample(s) for the fused statistic "
            f"{name!r} (use a callable for other data). Got {len(samples)} "
            f"sample(s) of shapes {shapes} instead.",
        )


def _check_sample_sizes(samples: list[np.ndarray], kind: str) -> tuple[int, ...]:
    """The samples' lengths, checked against the permutation type."""
    if kind == "independent" and len(samples) < 2:
        raise value_error(
            "data",
            _OWNER,
            "must hold at least two samples for permutation_type='independent'. "
            f"Got {len(samples)} instead.",
        )
    sizes = tuple(s.shape[-1] for s in samples)
    if kind != "independent" and len(set(sizes)) > 1:
        raise value_error(
            "data",
            _OWNER,
            f"must hold samples of one length for permutation_type={kind!r} "
            f"(observations are paired). Got lengths {list(sizes)} instead.",
        )
    return sizes


def permutation_test(
    data: ArrayLike | Sequence[ArrayLike],
    statistic: StatisticLike,
    *,
    permutation_type: str = "independent",
    n_resamples: int | float = 9999,
    alternative: str = "two-sided",
    axis: int = 0,
    vectorized: bool | None = None,
    random_state: RandomStateLike = None,
    rng: RandomStateLike = None,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> PermutationTestResult:
    """Permutation test of a statistic, streamed over derived random permutations.

    Same semantics and result fields as ``scipy.stats.permutation_test``:

    1. The null distribution is the statistic on permuted data: for
       ``permutation_type="independent"`` the observations of all samples are
       pooled and reassigned to samples of the original sizes; for "samples"
       (paired data) the values of each observation are reassigned among the
       samples, and a single sample has the sign of each observation flipped;
       for "pairings" each sample's observations are reordered, breaking the
       pairing.
    2. If ``n_resamples`` is at least the number of distinct permutations (as
       scipy counts them), every one is evaluated once: an exact test.
       Otherwise ``n_resamples`` random permutations are drawn; permutation
       ``b`` is a forward Fisher-Yates shuffle whose draws are the bounded
       integers of the stream's purpose slot "permutation" at replicate ``b``
       (:class:`skboot.resamplers.Permutation`), a pure function of
       ``(random_state, b)``.  Exact permutations are generated from their
       rank, so either kind is produced chunk by chunk, and the result is
       bit-identical for any ``chunk_size``, ``n_jobs`` or joblib backend.
    3. ``pvalue``: the fraction of the null distribution at least as extreme as
       the observed statistic ("greater": ``>=``, "less": ``<=``, within 100
       machine epsilons of ``max(|t|, s)``, ``s`` the data's scale for a fused
       statistic and 0 for a callable, as in scipy), twice the smaller one for
       "two-sided" (clipped to 1).  A randomized test counts the observed
       statistic as one more permutation, ``(r + 1) / (B + 1)`` (Phipson &
       Smyth 2010); an exact test uses ``r / B``.  NaN null values never
       count; a NaN observed statistic gives a NaN p-value and an
       :class:`~skboot.UndefinedStatisticWarning` that says why.

    On integer-valued or 0/1 data the fused statistics tie exactly where exact
    arithmetic ties (integer centring, exact sums), so their p-values equal
    those of exact rational arithmetic on the same permutations.  The result
    keeps the data's floating dtype (a callable's: its own), as scipy does.

    Fused statistics (by name) run in numba kernels that read the data through
    the permutation and never write a permuted copy larger than the pool:
    "mean_diff" stops each shuffle after the first sample's ``n1`` positions.

    Memory: O(n) for the fused statistics plus O(n_resamples) for the null
    distribution; callables get one ``(chunk, ..., n)`` buffer per sample,
    chunk sized to the cache.  Time: O(n_resamples * n).

    Parameters
    ----------
    data : tuple of array-like
        The samples; observations along ``axis``, other axes broadcast.
    statistic : callable or str
        ``statistic(*samples)`` returning the statistic (with ``axis`` when
        vectorized), or a fused statistic: for "independent" two samples
        "mean_diff" (``mean(x) - mean(y)``), "median_diff", "t" (Student's
        pooled t, ``scipy.stats.ttest_ind``), "welch_t" (``equal_var=False``);
        for "pairings" two samples "pearson" or "spearman" (Pearson on average
        ranks); for "samples" "paired_mean_diff" (``mean(x - y)``, or
        ``mean(d)`` of one sample) or "paired_t" (``ttest_rel``, or
        ``ttest_1samp(d, 0)``).
    permutation_type : {"independent", "samples", "pairings"}, default="independent"
    n_resamples : int or numpy.inf, default=9999
        Random permutations; at least the number of distinct permutations
        (``numpy.inf``: always) makes the test exact.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
    axis : int, default=0
        Axis of the observations.
    vectorized : bool or None, default=None
        Whether a callable takes ``axis`` and samples with a leading batch of
        permutations; None: True when its signature has ``axis``.
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams (recorded on the result).
    rng : None, int, SeedSequence or Generator, default=None
        The name scipy gives ``random_state`` (SPEC 7): the same seed, the same
        permutations; give one of the two.
    n_jobs : int, default=None
        Parallel workers through joblib.
    chunk_size : int, default=None
        Permutations per chunk; never changes results.

    Returns
    -------
    PermutationTestResult
        The observed statistic, its p-value and the null distribution.

    See Also
    --------
    skboot.resamplers.Permutation : The permutations as a splitter.
    metric_permutation_test : Permutation test of a model metric.

    References
    ----------
    .. [1] R. A. Fisher, *The Design of Experiments*, 1935 (section 21).
    .. [2] B. Phipson and G. K. Smyth, "Permutation P-values should never be
       zero", Statistical Applications in Genetics and Molecular Biology 9(1),
       2010.
    .. [3] M. D. Ernst, "Permutation methods: a basis for exact inference",
       Statistical Science 19(4), 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot.significance import permutation_test
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(0.5, 1, 40), rng.normal(0, 1, 50)
    >>> res = permutation_test((x, y), "mean_diff", n_resamples=999, random_state=0)
    >>> round(res.statistic, 4), round(res.pvalue, 3)
    (0.1937, 0.32)
    >>> def diff(a, b, axis=-1):
    ...     return a.mean(axis=axis) - b.mean(axis=axis)
    >>> same = permutation_test((x, y), diff, n_resamples=999, random_state=0)
    >>> bool(np.allclose(same.null_distribution, res.null_distribution))
    True
    """
    random_state = seed_from_rng(rng, random_state, _OWNER)
    values = validate_params(
        _OWNER,
        _CONSTRAINTS,
        statistic=statistic,
        permutation_type=permutation_type,
        n_resamples=n_resamples,
        alternative=alternative,
        axis=axis,
        vectorized=vectorized,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
    )
    kind, alternative = values["permutation_type"], values["alternative"]
    B_req, vec = values["n_resamples"], values["vectorized"]
    fused = _check_statistic(statistic, kind)
    samples, batch = prepare_samples(data, values["axis"], _OWNER)
    sizes = _check_sample_sizes(samples, kind)
    if fused is not None:
        given = [np.shape(d) for d in cast(Sequence[Any], data)]
        _check_fused_data(fused, samples, batch, given)
    count = distinct_permutations(kind, sizes)
    exact = B_req >= count
    if exact and count > _MOST:
        raise value_error(
            "n_resamples",
            _OWNER,
            f"is numpy.inf, which asks for all {count} distinct permutations; at "
            f"most {_MOST} can be enumerated. Pass an int for a "
            "randomized test.",
        )
    key = check_random_state(random_state, owner=_OWNER)
    B = int(count) if exact else int(B_req)
    plan = PermutationTestPlan.build(key, kind, sizes, exact)
    data_dtype = float_dtype(samples)
    if fused is not None:
        return _fused_test(
            fused, samples, plan, B, alternative, key, n_jobs, chunk_size
        )
    stat = CallableTestStatistic(
        func=statistic,
        vectorized=(
            accepts(cast(Callable[..., Any], statistic), "axis") if vec is None else vec
        ),
        kind=kind,
        n_given=len(samples),
        batch=batch,
        arrays=tuple(samples),
    )
    observed = stat.estimate()
    out_shape = observed.shape
    stat.out_shape = out_shape
    stat.k = max(1, math.prod(out_shape))
    dtype = stat.out_dtype
    undefined = warn_undefined_observed(
        observed,
        _OWNER,
        non_finite_note(samples) or "the statistic returned NaN on the original data",
    )
    null = run_bootstrap(stat, plan, B, n_jobs=n_jobs, chunk_size=chunk_size)
    n_bad = warn_undefined(null, _OWNER, announce=not undefined)
    # scipy's rule in the statistic's own dtype
    p = pvalues(
        observed.reshape(-1).astype(dtype), null, alternative, 0 if exact else 1
    )
    return PermutationTestResult(
        statistic=scalar_or_array(observed, out_shape, dtype),
        pvalue=scalar_or_array(p, out_shape, data_dtype),
        null_distribution=null.reshape((B, *out_shape)).astype(dtype, copy=False),
        n_resamples=B,
        exact=bool(exact),
        permutation_type=kind,
        alternative=alternative,
        random_state=None if exact else key.reproducer(),
        n_undefined=n_bad,
    )


def _fused_test(
    name: str,
    samples: list[np.ndarray],
    plan: PermutationTestPlan,
    B: int,
    alternative: str,
    key: Any,
    n_jobs: int | None,
    chunk_size: int | None,
) -> PermutationTestResult:
    """A fused statistic's test: computed in float64 (ties exact on
    integer-valued data), the tolerance scaled to the data; the statistic,
    null distribution and p-value returned in the data's floating dtype."""
    dtype = float_dtype(samples)
    note = non_finite_note(samples)
    if note:
        # NaN or inf in the data: the statistic and every permutation's value
        # are undefined (a callable may handle them); nothing is resampled
        observed = np.array(np.nan)
        warn_undefined_observed(observed, _OWNER, note)
        null = np.full((B, 1), np.nan)
        n_bad = B
        scale = 0.0
    else:
        stat = FusedTestStatistic.build(name, samples)
        observed = stat.observed(plan).reshape(())
        undefined = warn_undefined_observed(
            observed, _OWNER, stat.undefined_reason(samples)
        )
        null = run_bootstrap(stat, plan, B, n_jobs=n_jobs, chunk_size=chunk_size)
        n_bad = warn_undefined(null, _OWNER, announce=not undefined)
        scale = stat.tie_scale
    adjustment = 0 if plan.exact else 1
    p = pvalues(observed.reshape(-1), null, alternative, adjustment, scale)
    return PermutationTestResult(
        statistic=scalar_or_array(observed, (), dtype),
        pvalue=scalar_or_array(p, (), dtype),
        null_distribution=null.reshape(B).astype(dtype, copy=False),
        n_resamples=B,
        exact=bool(plan.exact),
        permutation_type=plan.kind,
        alternative=alternative,
        random_state=None if plan.exact else key.reproducer(),
        n_undefined=n_bad,
    )
