"""The :class:`BootstrapStatistic` meta-estimator."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from skboot._engine.cuda import no_kernel_error
from skboot._run import check_run_params, run, statistic_name
from skboot._typing import ArrayLike, RandomStateLike, StatisticLike, SupportsFit
from skboot._validation import value_error
from skboot.intervals import ConfidenceInterval
from skboot.resamplers import BaseResampler
from skboot.statistic._result import BootstrapResult

__all__ = ["BootstrapStatistic"]


class BootstrapStatistic(BaseEstimator):
    """Meta-estimator: the bootstrap distribution of a statistic of ``X``.

    ``fit(X, y, groups)`` runs :func:`bootstrap` on ``X`` (``y`` and ``groups``
    route to the resampler: strata and clusters) and stores the result.

    Parameters
    ----------
    statistic : str or callable, default="mean"
        As in :func:`bootstrap`.
    resampler : resampler, default=None
        None means :class:`Bootstrap`.  A :class:`~skboot.Permutation` is
        refused, as in :func:`bootstrap`.
    n_resamples : int or None, default=None
        As in :func:`bootstrap`: None means the resampler's value, else 9999.
    random_state : None, int, SeedSequence or Generator, default=None
        Root of the random streams; the entropy used is recorded on ``result_``.
    n_jobs : int, default=None
        Parallel workers through joblib.
    vectorized : bool or None, default=None
        As in :func:`bootstrap`.
    statistic_kwargs : dict, default=None
        Keywords of the statistic, as in :func:`bootstrap`.
    chunk_size : int, default=None
        Replicates per chunk; None sizes chunks from the cache.
    progress : bool, default=False
        Show a progress bar, as :func:`bootstrap` does (tqdm's when installed).
    estimator : estimator object, default=None
        If given, every replicate refits a clone of it on the replicate's rows of
        ``(X, y)`` and ``statistic(fitted_clone)`` is the statistic (tier 4), e.g.
        ``lambda p: p[-1].coef_.ravel()`` for a Pipeline's coefficients.  A
        statistic of two or more axes keeps its shape (a multiclass ``coef_``:
        ``estimate_`` (n_classes, n_features), ``distribution_``
        (n_resamples, n_classes, n_features)).  The clone
        gets ``sample_weight=counts`` when its ``fit`` accepts it (no rows copied),
        else the gathered rows.
    nan_policy : {"raise", "omit", "propagate"}, default="raise"
        As in :func:`bootstrap`.
    on_error : {"raise", "omit"}, default="raise"
        As in :func:`bootstrap`: with "omit", a replicate on which the
        estimator's ``fit`` or the statistic raises is recorded
        (``result_.n_failed``, ``result_.failed_replicates``) and left out.
    device : {"cpu", "cuda", "auto"}, default="cpu"
        As in :func:`bootstrap`; with ``estimator``, "cpu" or "auto" (refits run
        on the CPU).

    Attributes
    ----------
    result_ : BootstrapResult
        The run, with its intervals, p-values and provenance.
    estimate_ : float or ndarray
        ``result_.estimate``.
    distribution_ : ndarray of shape (n_resamples,), (n_resamples, k) or (n_resamples, d1, d2, ...)
        ``result_.distribution``.
    standard_error_ : float or ndarray
        ``result_.standard_error``.
    bias_ : float or ndarray
        ``result_.bias``.
    n_features_in_ : int
        Number of columns of ``X`` (1 for 1-D data).
    feature_names_in_ : ndarray of str
        Column names of a DataFrame ``X`` (only then).

    See Also
    --------
    bootstrap : The same run as a function.
    BootstrapResult : The result stored as ``result_``.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import BootstrapStatistic
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> est = BootstrapStatistic("mean", n_resamples=500, random_state=0).fit(X)
    >>> est.distribution_.shape
    (500, 2)
    """

    def __init__(
        self,
        statistic: StatisticLike = "mean",
        *,
        resampler: BaseResampler | None = None,
        n_resamples: int | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
        vectorized: bool | None = None,
        statistic_kwargs: dict[str, Any] | None = None,
        chunk_size: int | None = None,
        progress: bool = False,
        estimator: SupportsFit | None = None,
        nan_policy: str = "raise",
        on_error: str = "raise",
        device: str = "cpu",
    ) -> None:
        self.statistic = statistic
        self.resampler = resampler
        self.n_resamples = n_resamples
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.vectorized = vectorized
        self.statistic_kwargs = statistic_kwargs
        self.chunk_size = chunk_size
        self.progress = progress
        self.estimator = estimator
        self.nan_policy = nan_policy
        self.on_error = on_error
        self.device = device

    def fit(
        self, X: ArrayLike, y: ArrayLike | None = None, groups: ArrayLike | None = None
    ) -> BootstrapStatistic:
        """Run the bootstrap on ``X``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples,) or (n_samples, n_features)
            The data; rows are observations.
        y : array-like of shape (n_samples,), default=None
            Without ``estimator``: the strata of a StratifiedBootstrap, otherwise
            unused.  With ``estimator``: the target every clone is fitted to
            (``fit(X_b, y_b)`` on the replicate's rows), and also the strata when
            the resampler is a StratifiedBootstrap.
        groups : array-like of shape (n_samples,), default=None
            Clusters of a GroupBootstrap (with ``estimator`` too; never passed to
            the estimator's ``fit``).

        Returns
        -------
        self : BootstrapStatistic
            The fitted meta-estimator.
        """
        owner = type(self).__name__
        params = check_run_params(
            owner,
            n_resamples=self.n_resamples,
            vectorized=self.vectorized,
            statistic_kwargs=self.statistic_kwargs,
            n_jobs=self.n_jobs,
            chunk_size=self.chunk_size,
            progress=self.progress,
            nan_policy=self.nan_policy,
            on_error=self.on_error,
            device=self.device,
        )
        if self.estimator is not None:
            self._check_refit(owner)
        finished = run(
            X,
            self.statistic,
            self.resampler,
            random_state=self.random_state,
            y=y,
            groups=groups,
            owner=owner,
            estimator=self.estimator,
            **params,
        )
        result = BootstrapResult._from_run(
            finished, statistic_name(self.statistic, finished.context.stat)
        )
        d = finished.context.data
        first = d.arrays[0]
        self.n_features_in_ = 1 if first.ndim == 1 else int(first.shape[1])
        if d.kind == "frame":
            self.feature_names_in_ = np.asarray(d.labels, dtype=object)
        self.result_ = result
        self.estimate_ = result.estimate
        self.distribution_ = result.distribution
        self.standard_error_ = result.standard_error
        self.bias_ = result.bias
        return self

    def _check_refit(self, owner: str) -> None:
        """The parameters that ``estimator`` restricts, checked with the others
        before any work."""
        if self.nan_policy != "raise":
            raise value_error(
                "nan_policy",
                owner,
                f"must be 'raise' when "
                "'estimator' is given (the estimator sees X and y as passed; drop "
                f"NaN rows first). Got {self.nan_policy!r} instead.",
            )
        if isinstance(self.statistic, str):
            raise value_error(
                "statistic",
                owner,
                f"must be a callable of the "
                "fitted estimator when 'estimator' is given (e.g. "
                f"lambda est: est.coef_). Got {self.statistic!r} instead.",
            )
        if self.device == "cuda":
            raise no_kernel_error("estimator refits", owner)

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        alternative: str = "two-sided",
        **kwargs: Any,
    ) -> ConfidenceInterval:
        """Confidence interval of the fitted run: ``result_.confidence_interval``.

        Parameters
        ----------
        level : float, default=0.95
            Confidence level in (0, 1).
        method : str, optional
            The interval method, one of
            :meth:`BootstrapResult.confidence_interval`'s eight (any letter
            case); None: the result's default.
        alternative : {"two-sided", "less", "greater"}, default="two-sided"
            Two-sided or one-sided interval.
        **kwargs : dict
            ``standard_error``, ``n_inner``, ``jackknife_groups``: see
            :meth:`BootstrapResult.confidence_interval`.

        Returns
        -------
        ConfidenceInterval
            The interval, with the estimate and method attached.
        """
        check_is_fitted(self, "result_")
        return self.result_.confidence_interval(level, method, alternative, **kwargs)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Plot the fitted run's distribution: ``result_.plot``.

        Each output is drawn with its estimate and interval (see
        :meth:`BootstrapResult.plot`).

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; None makes a new figure.
        **kwargs : dict
            ``column``, ``method``, ``level``, ``bins``.

        Returns
        -------
        matplotlib Axes or ndarray of Axes
            One Axes per drawn output.
        """
        check_is_fitted(self, "result_")
        return self.result_.plot(ax=ax, **kwargs)
