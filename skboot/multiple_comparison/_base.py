"""Shared parameters, resampler resolution and replicate runs of the
multiple-comparison procedures."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Literal

import numpy as np
from sklearn.base import BaseEstimator

from skboot._random import STREAM_VERSION
from skboot._results import Result
from skboot._run import apply_undefined_policy, fit_resampler, resolve_resampler
from skboot._typing import RandomStateLike, SeedRecord
from skboot._validation import (
    BOOL,
    N_JOBS,
    N_RESAMPLES,
    NONE,
    Constraint,
    Options,
    Predicate,
    is_real,
    param_error,
    validate_params,
    value_error,
)
from skboot.metrics import METRICS
from skboot.multiple_comparison._inputs import Predictions, check_predictions
from skboot.multiple_comparison._replicates import centred_means, metric_replicates
from skboot.resamplers import (
    BaseResampler,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    StationaryBootstrap,
    StratifiedBootstrap,
)

__all__ = [
    "PROCEDURE_PARAMS",
    "MetricRun",
    "Procedure",
    "Provenance",
    "alpha_of",
    "provenance",
]

#: ``resampler=`` strings -> skboot resampler (arch's ``bootstrap=`` options).
SCHEMES: dict[str, Any] = {
    "stationary": StationaryBootstrap,
    "circular": CircularBlockBootstrap,
    "moving": MovingBlockBootstrap,
}
#: What a replicate on which a metric is undefined does (``undefined=``): the
#: comparisons need every model's value on every replicate they keep.
UNDEFINED = ("raise", "omit")

_AUTO = Predicate(lambda v: isinstance(v, str) and v == "auto", "'auto'")

#: The parameters every procedure shares, checked on entry to ``compute`` and
#: ``compute_metric`` (subclasses add theirs to the table).
PROCEDURE_PARAMS: dict[str, list[Constraint]] = {
    "n_resamples": [N_RESAMPLES, NONE],
    "block_length": [
        _AUTO,
        Predicate(
            lambda v: is_real(v) and bool(np.isfinite(v)) and v >= 1,
            "a number >= 1 (an int for the circular and moving schemes)",
        ),
    ],
    "resampler": [
        NONE,
        Options(tuple(SCHEMES)),
        Predicate(
            lambda v: isinstance(v, BaseResampler), "a skboot resampler instance"
        ),
    ],
    "n_jobs": [N_JOBS, NONE],
}
#: The options of ``compute_metric``.
METRIC_PARAMS: dict[str, list[Constraint]] = {
    "stratify": [BOOL],
    "undefined": [Options(UNDEFINED)],
}


def alpha_of(level: float) -> float:
    """``1 - level`` as the user wrote it: the complement of the shortest decimal
    that reads back as ``level`` (``0.9`` gives ``0.1``, where the float
    subtraction gives ``0.09999999999999998``), so a p-value equal to ``0.1`` is
    compared with ``0.1``."""
    return float(Decimal(1) - Decimal(repr(float(level))))


@dataclass(frozen=True, eq=False, repr=False)
class Provenance(Result):
    """How the replicates were drawn (recorded on every result).

    Enough to repeat the run: pass ``random_state`` back with the same
    parameters and data.

    Attributes
    ----------
    n_resamples : int
        Replicates used (after dropping undefined ones for metrics).
    resampler : str
        repr of the fitted resampler.
    block_length : float or None
        Block length used (the estimate when ``block_length="auto"``); None for
        schemes without blocks.
    random_state : object
        Pass as ``random_state`` to repeat the run.
    stream_version : int
        :data:`skboot.STREAM_VERSION` of the replicates.
    n_undefined : int
        Metric replicates dropped with ``undefined="omit"`` (0 for losses).

    See Also
    --------
    SPAResult : Carries it as ``provenance``, as do the StepM and MCS results.

    Examples
    --------
    >>> import numpy as np
    >>> from skboot import MCS
    >>> losses = np.random.default_rng(0).chisquare(5, (200, 3))
    >>> res = MCS(block_length=4, n_resamples=100, random_state=7).compute(losses)
    >>> prov = res.provenance
    >>> prov.n_resamples, prov.block_length, prov.random_state, prov.n_undefined
    (100, 4.0, 7, 0)
    """

    n_resamples: int
    resampler: str
    block_length: float | None
    random_state: SeedRecord
    stream_version: int
    n_undefined: int = 0


def provenance(
    fitted: BaseResampler, n_resamples: int, n_undefined: int = 0
) -> Provenance:
    """The provenance of a run of ``fitted`` that kept ``n_resamples``."""
    value = getattr(fitted, "block_length_", None)
    return Provenance(
        int(n_resamples),
        repr(fitted),
        None if value is None else float(value),
        fitted.seed_entropy_,
        STREAM_VERSION,
        int(n_undefined),
    )


@dataclass(frozen=True)
class MetricRun:
    """Replicates of a whole-sample metric for several models."""

    preds: Predictions
    estimates: np.ndarray
    replicates: np.ndarray
    n_rows: int
    counts: list[int]
    resampler: BaseResampler
    n_undefined: int


class Procedure(BaseEstimator):
    """Parameters and resampling shared by SPA, StepM and MCS."""

    #: The constructor's constraint table (subclasses extend it).
    _params: ClassVar[dict[str, list[Constraint]]] = PROCEDURE_PARAMS

    def __init__(
        self,
        *,
        n_resamples: int | None = None,
        block_length: float | Literal["auto"] = "auto",
        resampler: str | BaseResampler | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
    ) -> None:
        self.n_resamples = n_resamples
        self.block_length = block_length
        self.resampler = resampler
        self.random_state = random_state
        self.n_jobs = n_jobs

    @property
    def _owner(self) -> str:
        return type(self).__name__

    # -- validation -------------------------------------------------------------
    def _validate(self, **options: Any) -> None:
        """The constructor's parameters and the call's ``options``, checked once
        against one table before any work."""
        owner = self._owner
        table = {**self._params, **{k: METRIC_PARAMS[k] for k in options}}
        params = {name: getattr(self, name) for name in self._params}
        validate_params(owner, table, **params, **options)
        bl, r = self.block_length, self.resampler
        if isinstance(r, BaseResampler) and not (isinstance(bl, str)):
            raise value_error(
                "block_length",
                owner,
                "must be 'auto' when 'resampler' is a resampler instance (the "
                f"instance's own block_length is used). Got block_length={bl!r} "
                f"and resampler={r!r} instead; set it in one place.",
            )
        if r in ("circular", "moving") and not isinstance(bl, str) and bl != int(bl):
            raise param_error(
                "block_length", owner, "an int for the circular and moving schemes", bl
            )

    def check_params(self) -> None:
        """Validate the constructor parameters, raising on the first bad one."""
        self._validate()

    # -- resamplers -------------------------------------------------------------
    def _fit(
        self, base: BaseResampler, X: Any, y: Any = None, groups: Any = None
    ) -> BaseResampler:
        """``base`` with this object's ``n_resamples`` and ``random_state`` by the
        rules of :func:`skboot.bootstrap` (None: the resampler's own value; two
        different explicit values are refused), fitted on the data."""
        res, source = resolve_resampler(
            base, self.n_resamples, self.random_state, self._owner
        )
        return fit_resampler(res, source, X, y, groups)

    def _loss_resampler(self, X: np.ndarray) -> BaseResampler:
        """Fitted resampler for a loss series; "auto" block lengths from ``X``."""
        r = self.resampler
        if isinstance(r, BaseResampler):
            return self._fit(r, X)
        cls = SCHEMES[r if r is not None else "stationary"]
        bl = self.block_length
        if not isinstance(bl, str) and cls is not StationaryBootstrap:
            bl = int(bl)
        return self._fit(cls(block_length=bl), X)

    def _metric_resampler(
        self, y: np.ndarray, groups: Any, stratify: Any
    ) -> BaseResampler:
        owner = self._owner
        r = self.resampler
        if stratify and groups is not None:
            raise ValueError(
                f"The 'stratify' and 'groups' parameters of {owner} cannot be used "
                "together: stratify=True resamples rows within classes, groups= "
                "resamples whole clusters. Got both instead."
            )
        if r is not None and (stratify or groups is not None):
            raise value_error(
                "resampler",
                owner,
                "must be None when stratify or groups is given (they choose the "
                f"resampler). Got {r!r} instead; pass StratifiedBootstrap() / "
                "GroupBootstrap() as the resampler, or drop stratify / groups.",
            )
        block = isinstance(r, str) or (
            isinstance(r, BaseResampler) and hasattr(r, "block_length")
        )
        length = (
            r.block_length
            if isinstance(r, BaseResampler) and block
            else self.block_length
        )
        if block and isinstance(length, str):
            raise value_error(
                "block_length",
                owner,
                "must be a number for whole-sample metrics with a block scheme "
                "('auto' estimates it from a loss series, and a metric has none). "
                "Got 'auto' instead.",
            )
        if r is None and not isinstance(self.block_length, str):
            raise value_error(
                "block_length",
                owner,
                "applies to block schemes only; for metrics with resampler=None "
                f"(iid rows) leave it 'auto'. Got {self.block_length!r} instead.",
            )
        base: BaseResampler
        if isinstance(r, BaseResampler):
            base = r
        elif isinstance(r, str):
            bl = float(length) if r == "stationary" else int(length)
            base = SCHEMES[r](block_length=bl)
        elif stratify:
            base = StratifiedBootstrap()
        elif groups is not None:
            base = GroupBootstrap()
        else:
            base = Bootstrap()
        return self._fit(base, y, y, groups)

    # -- runs -------------------------------------------------------------------
    def _loss_replicates(
        self, X: np.ndarray, fitted: BaseResampler
    ) -> tuple[np.ndarray, np.ndarray]:
        return centred_means(
            X, fitted.plan_, int(fitted.n_resamples), n_jobs=self.n_jobs
        )

    def _metric_run(
        self,
        y_true: Any,
        named: list[tuple[str, Any]],
        metric: Any,
        options: dict[str, Any],
        sample_weight: Any,
        groups: Any,
        stratify: Any,
        undefined: Any,
    ) -> MetricRun:
        """Check the predictions, run the metric replicates and apply the
        undefined-replicate policy (the one of :func:`skboot.metric_ci`)."""
        owner = self._owner
        yt, preds, sw, counts = check_predictions(
            y_true, named, metric, options, sample_weight, groups, owner
        )
        fitted = self._metric_resampler(yt, groups, stratify)
        est, M = metric_replicates(
            preds.prepared,
            sw,
            fitted.plan_,
            int(fitted.n_resamples),
            n_jobs=self.n_jobs,
        )
        when = METRICS[metric].undefined_when
        bad_est = np.flatnonzero(~np.isfinite(est))
        if bad_est.size:
            raise ValueError(
                f"The metric {metric} is undefined on the original data of {owner} "
                f"for model {preds.labels[int(bad_est[0])]!r} (it is undefined when "
                f"{when}); no comparison can be made."
            )
        M, record = apply_undefined_policy(
            M,
            undefined,
            subject=f"The metric {metric} is undefined",
            unit="bootstrap replicates for at least one model",
            why=f"; it is undefined when {when}",
            remedy="Pass undefined='omit' to drop those replicates, stratify=True "
            "to keep the class counts of every replicate, or more data.",
            omitted="they are omitted from every model's distribution "
            "(n_undefined on the result)",
            minimum=2,
            too_few=f"The metric {metric} is defined on {{kept}} of {{B}} bootstrap "
            "replicates; at least {minimum} are needed.",
        )
        return MetricRun(preds, est, M, yt.shape[0], counts, fitted, record.count)
