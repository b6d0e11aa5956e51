"""Shared parameters, resampler resolution and replicate runs of the
multiple-comparison procedures."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from skboot._exceptions import UndefinedStatisticWarning, warn
from skboot._run import fit_resampler, resolve_resampler
from skboot._typing import SeedRecord
from skboot._validation import check_int, check_n_jobs, check_one_of, param_error
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

__all__ = ["MetricRun", "Procedure", "Provenance"]

#: ``resampler=`` strings -> skboot resampler (arch's ``bootstrap=`` options).
SCHEMES: dict[str, Any] = {
    "stationary": StationaryBootstrap,
    "circular": CircularBlockBootstrap,
    "moving": MovingBlockBootstrap,
}
UNDEFINED_POLICIES = ("raise", "omit")


@dataclass(frozen=True)
class Provenance:
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


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real | np.floating | np.integer) and not (
        isinstance(value, bool | np.bool_)
    )


class Procedure(BaseEstimator):
    """Parameters and resampling shared by SPA, StepM and MCS."""

    @property
    def _owner(self) -> str:
        return type(self).__name__

    # -- validation -------------------------------------------------------------
    def _check_resampling(self) -> None:
        owner = self._owner
        n = check_int(self.n_resamples, "n_resamples", owner, min_value=1)
        if n >= 2**32:
            raise param_error("n_resamples", owner, "an int in [1, 2**32 - 1]", n)
        check_n_jobs(self.n_jobs, owner)
        bl = self.block_length
        if not (isinstance(bl, str) and bl == "auto") and not (
            _is_real(bl) and np.isfinite(bl) and bl >= 1
        ):
            raise param_error(
                "block_length",
                owner,
                "'auto' or a number >= 1 (an int for the circular and moving schemes)",
                bl,
            )
        r = self.resampler
        if isinstance(r, str) or r is None:
            if r is not None:
                check_one_of(r, "resampler", owner, (None, *SCHEMES))
        elif not isinstance(r, BaseResampler):
            raise param_error(
                "resampler",
                owner,
                f"None, one of {sorted(SCHEMES)} or a skboot resampler instance",
                r,
            )
        elif not (isinstance(bl, str) and bl == "auto"):
            raise ValueError(
                f"The 'block_length' parameter of {owner} must be 'auto' when "
                "'resampler' is a resampler instance (the instance's own "
                f"block_length is used). Got block_length={bl!r} and "
                f"resampler={r!r} instead; set it in one place."
            )

    def _size(self) -> float:
        size = self.size
        if not (_is_real(size) and 0.0 < float(size) < 1.0):
            raise param_error("size", self._owner, "a real number in (0, 1)", size)
        return float(size)

    # -- resamplers -------------------------------------------------------------
    def _configured(self, base: BaseResampler) -> tuple[BaseResampler, Any]:
        """A private copy of ``base`` with this object's ``n_resamples`` and
        ``random_state``, and the object to draw the key from: the rules of
        :func:`skboot.bootstrap` (a value set on both that differs is refused)."""
        return resolve_resampler(
            base, int(self.n_resamples), self.random_state, self._owner
        )

    def _loss_resampler(self, X: np.ndarray) -> BaseResampler:
        """Fitted resampler for a loss series; "auto" block lengths from ``X``."""
        r = self.resampler
        source = self.random_state
        if isinstance(r, BaseResampler):
            res, source = self._configured(r)
        else:
            cls = SCHEMES[r if r is not None else "stationary"]
            bl = self.block_length
            if not isinstance(bl, str) and cls is not StationaryBootstrap:
                if float(bl) != int(bl):
                    raise param_error(
                        "block_length",
                        self._owner,
                        "an int for the circular and moving schemes",
                        bl,
                    )
                bl = int(bl)
            res = cls(int(self.n_resamples), block_length=bl)
        return fit_resampler(res, source, X)

    def _metric_resampler(
        self, y: np.ndarray, groups: Any, stratify: Any
    ) -> BaseResampler:
        owner = self._owner
        if not isinstance(stratify, bool | np.bool_):
            raise param_error("stratify", owner, "a bool", stratify)
        r = self.resampler
        auto = isinstance(self.block_length, str)
        if stratify and groups is not None:
            raise ValueError(
                f"The 'stratify' and 'groups' parameters of {owner} cannot be used "
                "together: stratify=True resamples rows within classes, groups= "
                "resamples whole clusters. Got both instead."
            )
        if r is not None and (stratify or groups is not None):
            raise ValueError(
                f"The 'resampler' parameter of {owner} must be None when stratify "
                f"or groups is given (they choose the resampler). Got {r!r} "
                "instead; pass StratifiedBootstrap() / GroupBootstrap() as the "
                "resampler, or drop stratify / groups."
            )
        block = isinstance(r, str) or (
            isinstance(r, BaseResampler) and hasattr(r, "block_length")
        )
        length = (
            r.block_length
            if isinstance(r, BaseResampler) and block
            else (self.block_length)
        )
        if block and isinstance(length, str):
            raise ValueError(
                f"The 'block_length' parameter of {owner} must be a number for "
                "whole-sample metrics with a block scheme ('auto' estimates it "
                "from a loss series, and a metric has none). Got 'auto' instead."
            )
        if r is None and not auto:
            raise ValueError(
                f"The 'block_length' parameter of {owner} applies to block schemes "
                "only; for metrics with resampler=None (iid rows) leave it 'auto'. "
                f"Got {self.block_length!r} instead."
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
        res, source = self._configured(base)
        return fit_resampler(res, source, y, y, groups)

    # -- runs -------------------------------------------------------------------
    def _loss_replicates(
        self, X: np.ndarray, fitted: BaseResampler
    ) -> tuple[np.ndarray, np.ndarray]:
        return centred_means(X, fitted.plan_, int(self.n_resamples), n_jobs=self.n_jobs)

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
        owner = self._owner
        check_one_of(undefined, "undefined", owner, UNDEFINED_POLICIES)
        yt, preds, sw, counts = check_predictions(
            y_true, named, metric, options, sample_weight, groups, owner
        )
        fitted = self._metric_resampler(yt, groups, stratify)
        est, M = metric_replicates(
            preds.prepared, sw, fitted.plan_, int(self.n_resamples), n_jobs=self.n_jobs
        )
        when = METRICS[metric].undefined_when
        bad_est = np.flatnonzero(~np.isfinite(est))
        if bad_est.size:
            raise ValueError(
                f"The metric {metric} is undefined on the original data of {owner} "
                f"for model {preds.labels[int(bad_est[0])]!r} (it is undefined when "
                f"{when}); no comparison can be made."
            )
        bad = ~np.isfinite(M).all(axis=1)
        n_bad = int(bad.sum())
        if n_bad:
            first = int(np.flatnonzero(bad)[0])
            B = M.shape[0]
            if undefined == "raise":
                raise ValueError(
                    f"The metric {metric} is undefined on {n_bad} of {B} bootstrap "
                    f"replicates for at least one model (first: replicate {first}; "
                    f"it is undefined when {when}). Pass undefined='omit' to drop "
                    "those replicates, stratify=True to keep the class counts of "
                    "every replicate, or more data."
                )
            warn(
                f"The metric {metric} is undefined on {n_bad} of {B} bootstrap "
                f"replicates (first: replicate {first}); they are omitted from "
                "every model's distribution (n_undefined on the result).",
                UndefinedStatisticWarning,
            )
            M = M[~bad]
            if M.shape[0] < 2:
                raise ValueError(
                    f"The metric {metric} is defined on {M.shape[0]} of {B} "
                    "bootstrap replicates; at least 2 are needed."
                )
        return MetricRun(preds, est, M, yt.shape[0], counts, fitted, n_bad)


def block_length_of(fitted: BaseResampler) -> float | None:
    """The fitted resampler's block length, None without blocks."""
    value = getattr(fitted, "block_length_", None)
    return None if value is None else float(value)
