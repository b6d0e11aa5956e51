"""``bootstrap()``: the bootstrap distribution of a statistic, in one call."""

from __future__ import annotations

from typing import Any

from skboot._run import check_run_params, run, statistic_name
from skboot._typing import ArrayLike, RandomStateLike, StatisticLike
from skboot._validation import integral_count, lower, seed_from_rng
from skboot.resamplers import BaseResampler
from skboot.statistic._result import BootstrapResult

__all__ = ["bootstrap"]


def bootstrap(
    data: ArrayLike,
    statistic: StatisticLike = "mean",
    *,
    resampler: BaseResampler | None = None,
    n_resamples: int | None = None,
    random_state: RandomStateLike = None,
    rng: RandomStateLike = None,
    vectorized: bool | None = None,
    statistic_kwargs: dict[str, Any] | None = None,
    y: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
    paired: bool = True,
    progress: bool = False,
    nan_policy: str = "raise",
    on_error: str = "raise",
    device: str = "cpu",
) -> BootstrapResult:
    """Bootstrap distribution of a statistic, streamed in cache-sized chunks.

    Algorithm:

    1. ``random_state`` becomes a root key; replicate ``b``'s draws are a pure
       function of (key, b) (:mod:`skboot._random`).
    2. The replicates ``0 .. n_resamples - 1`` are split into joblib tasks and,
       within a task, into chunks sized to the per-core cache.
    3. Each chunk's replicates are generated and reduced to the statistic at once:
       built-in statistics in fused numba kernels that never form an index array
       (iid) or reduce per-row weights (other schemes); vectorized callables once
       per chunk on a reused buffer; plain callables once per replicate on a reused
       buffer.
    4. The distribution, standard error and bias are collected in a frozen
       :class:`BootstrapResult`; intervals are computed from it on request.

    Memory: O(n_jobs * chunk * n) working set plus O(n_resamples * k) for the
    distribution; nothing of size ``n_resamples x n``.

    Data in a dask array, DataFrame or Series run data-parallel with the
    statistics "mean", "sum", "var", "std", "proportion", "corr" (under
    ``PoissonBootstrap`` only) and "ols" (``data=(X, y)``, two dask
    collections): each partition
    reduces its rows, on the dask workers (the active distributed Client, else
    dask's local scheduler), to per-replicate sums (``n_resamples x k``
    numbers), merged in a fixed pairwise tree; the rows never come to this
    process.  ``PoissonBootstrap``: row ``i``'s count in replicate ``b``
    depends on the seed, ``b`` and ``i`` only, so the distribution equals the
    in-memory run to about 1e-12 relative, for any chunking.  ``Bootstrap``
    (the default) and ``StratifiedBootstrap`` (``y`` a dask collection
    partitioned like the data): exact multinomial counts, each partition's
    share of the draws drawn on the client by conditional binomials; the
    in-memory law from another stream, bit-identical for a given partitioning
    on any scheduler.  ``GroupBootstrap`` (``groups`` likewise): each group's
    rows get one Poisson(1) count keyed by a hash of the group id.  Other
    resamplers, a callable or an order statistic raise before any work; the
    studentized and calibrated intervals are unavailable (they revisit the
    rows).  See the guide page "Data larger than memory".

    Parameters
    ----------
    data : array-like, tuple of array-likes, pandas or dask collection
        Rows are observations.  A tuple is several paired arrays of one length,
        resampled jointly and passed as ``statistic(x, y, ...)``.  Rows are
        positional: a pandas index is never used to align (duplicate index labels
        are fine) and column names, duplicates included, label the outputs as
        given.  Any memory layout (strided, Fortran-order, read-only) gives the
        result of the contiguous copy, and the data are never written.  Built-in
        statistics compute in float64, so float32, integer and boolean data give
        exactly the result of their float64 values; a callable receives the data
        in their own dtype.
        A dask array, DataFrame or Series runs data-parallel (see above);
        nothing converts it to numpy.
    statistic : str or callable, default="mean"
        A built-in name ({"mean", "sum", "var", "std", "median", "quantile",
        "proportion", "corr", "ols"}; column-wise for 2-D data, "corr" takes two
        columns) or a callable.  "ols" is the pairs bootstrap of least-squares
        coefficients: ``data=(X, y)`` with ``X`` (n,) or (n, k), ``k <= 64``,
        and ``y`` (n,); its outputs are the intercept (unless
        ``statistic_kwargs={"fit_intercept": False}``), then one coefficient per
        column of ``X``, labelled "intercept" and the column names when ``X`` is
        a DataFrame.  Each replicate solves its weighted normal equations (from
        cross products about the data's means) by Cholesky; a replicate whose
        design is rank-deficient (a dummy column without its rows) is undefined
        (NaN, counted in ``n_undefined``), a rank-deficient ``X`` is refused.
        Without an intercept the cross products cannot be centred, and the
        normal equations square the design's condition number: columns far
        from zero (an offset of 1e4 on unit spread) lose about 1e-9 relative
        against a QR solve of the same replicate.  A callable with an ``axis``
        parameter is called
        vectorized (see ``vectorized``).
    resampler : resampler, default=None
        The scheme; None means :class:`Bootstrap`.  A
        :class:`~skboot.Permutation` is refused: its replicates hold every row
        once, so the distribution of a statistic that ignores row order is
        constant (use :func:`~skboot.permutation_test`).
    n_resamples : int or None, default=None
        Number of replicates (an integral float such as ``1e4`` is accepted, as
        scipy accepts it).  None: the resampler's ``n_resamples`` when a
        resampler is given, else 9999.  An int replaces the ``n_resamples`` of a
        resampler left at its default (9999); a resampler set to another value
        raises a ValueError (set it in one place).  A distribution larger than
        the memory available (``n_resamples`` x outputs x 8 bytes) is refused
        before any work.
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams; the entropy used is recorded on the result.
    rng : None, int, SeedSequence or Generator, default=None
        The name scipy gives ``random_state`` (SPEC 7): the same seed, the same
        replicates: give one of the two.
    vectorized : bool or None, default=None
        Whether the callable takes ``axis=-1`` over a batch of replicates (arrays
        given with observations last and a leading batch axis).  None: True when
        its signature has ``axis``.
    statistic_kwargs : dict, default=None
        Keywords of the statistic: ``ddof`` for "var"/"std", ``q`` for "quantile",
        ``fit_intercept`` (a bool, default True) for "ols"; passed through to a
        callable.  With independent samples
        (``paired=False``) a built-in also takes ``contrast``: "difference" (the
        first sample's statistic minus the second's) or "ratio" (over it).
    y, groups : array-like, default=None
        Strata (StratifiedBootstrap) and groups (GroupBootstrap).
    n_jobs : int, default=None
        Parallel workers through joblib (honours ``joblib.parallel_config``).
    chunk_size : int, default=None
        Replicates per chunk; None sizes chunks from the cache.  Never changes
        results.
    paired : bool, default=True
        With a tuple of arrays: True resamples rows jointly (one index array for
        all); False resamples each sample on its own, iid, with its own length
        (independent samples, as arch's IndependentSamplesBootstrap and scipy's
        ``paired=False``); sample ``j`` reads its own purpose slot of the stream.
        A built-in statistic (all but "corr" and "ols") is then computed on each sample by
        the fused kernels: the per-sample values side by side, or their
        ``contrast`` (see ``statistic_kwargs``); a callable takes one argument
        per sample.
    progress : bool, default=False
        Show a progress bar (per chunk, or per finished joblib task): tqdm's
        (``tqdm.auto``: a widget in a notebook) when tqdm is installed
        (``pip install "skboot[progress]"``), else plain text on stderr.  With
        data in a dask collection, dask's own display: ``distributed.progress``
        when a distributed ``Client`` is active, else
        ``dask.diagnostics.ProgressBar`` (on stdout).
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        Data rows holding a NaN: "raise" refuses them before any work; "omit" drops
        them (from every paired array, and from ``y``/``groups``; per sample for
        independent samples) and records the count in ``result.n_omitted``;
        "propagate" keeps them, so replicates drawing one are NaN and counted in
        ``result.n_undefined``.
    on_error : {"raise", "omit"}, default="raise"
        A replicate on which a callable statistic raises an exception (a model
        refit that does not converge, a singular design, an estimator's
        ``fit``): "raise" ends the run with a :class:`~skboot.StatisticError`
        naming the replicate, the exception chained; "omit" records it
        (``result.n_failed``, ``result.failed_replicates``,
        ``result.first_error``), stores NaN in its row of the distribution and
        leaves it out of the standard error, bias, intervals and p-values, with
        one :class:`~skboot.UndefinedStatisticWarning` for the run.  Which
        replicates fail is a pure function of the seed, so it does not depend
        on ``n_jobs`` or ``chunk_size``.  A statistic that raises on the
        original data, or on every replicate, still raises; so do
        ``MemoryError`` and ``KeyboardInterrupt``.  Leaving failed replicates
        out conditions the distribution on the statistic being computable:
        when many fail, the interval describes those replicates only.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Where the replicates are computed.  "cuda" runs the built-in "mean",
        "sum", "var", "std", "proportion" and "corr" on an NVIDIA GPU (extra
        ``skboot[cuda]``) for Bootstrap, the moving, circular, non-overlapping and
        stationary block bootstraps, PoissonBootstrap and BayesianBootstrap: the
        same replicates, statistics equal to the CPU's to rounding; it raises if
        the GPU, the package or a kernel is missing.  "auto" uses the GPU when
        that works and the CPU otherwise.  ``n_jobs`` is not used on the GPU and
        ``chunk_size`` is the replicates per kernel launch.  See the GPU guide.

    Returns
    -------
    BootstrapResult
        The estimate, the distribution (in replicate order), its standard error
        and bias, and the provenance that repeats the run; intervals and
        p-values are its methods.

    See Also
    --------
    BootstrapStatistic : The same run as a scikit-learn meta-estimator.
    BootstrapResult.confidence_interval : Intervals by eight methods.
    BootstrapResult.pvalue : P-values by inverting the intervals.
    Bootstrap : The default resampler; the others are in :mod:`skboot.resamplers`.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import bootstrap
    >>> x = np.random.default_rng(0).normal(size=200)
    >>> res = bootstrap(x, "mean", n_resamples=999, random_state=1)
    >>> round(res.estimate, 4), round(res.standard_error, 3)
    (0.0153, 0.065)

    Two independent samples, the difference of their means:

    >>> y = np.random.default_rng(1).normal(0.5, 1.0, size=150)
    >>> res = bootstrap((x, y), "mean", paired=False, n_resamples=999,
    ...                 random_state=1, statistic_kwargs={"contrast": "difference"})
    >>> round(res.estimate, 4), round(res.standard_error, 3)
    (-0.4034, 0.099)
    """
    owner = "bootstrap"
    random_state = seed_from_rng(rng, random_state, owner)
    n_resamples = integral_count(n_resamples)
    params = check_run_params(
        owner,
        n_resamples=n_resamples,
        vectorized=vectorized,
        statistic_kwargs=statistic_kwargs,
        n_jobs=n_jobs,
        chunk_size=chunk_size,
        paired=paired,
        progress=progress,
        nan_policy=lower(nan_policy),
        on_error=lower(on_error),
        device=lower(device),
    )
    finished = run(
        data,
        statistic,
        resampler,
        random_state=random_state,
        y=y,
        groups=groups,
        owner=owner,
        **params,
    )
    return BootstrapResult._from_run(
        finished, statistic_name(statistic, finished.context.stat)
    )
