"""Warnings and errors raised by skboot."""

from __future__ import annotations

__all__ = [
    "DegenerateDistributionWarning",
    "SkbootError",
    "StatisticError",
    "UndefinedStatisticWarning",
]


class SkbootError(ValueError):
    """Base class of skboot's own errors (a ValueError, so sklearn code catches it)."""


class StatisticError(RuntimeError):
    """A user statistic raised or returned an invalid value on one replicate.

    Attributes
    ----------
    replicate : int
        Index ``b`` of the failing replicate; ``resampler.replicate(b)`` regenerates
        its indices.
    """

    def __init__(self, message: str, replicate: int) -> None:
        super().__init__(message)
        self.replicate = replicate

    def __reduce__(self):  # keep the replicate number across process boundaries
        return (type(self), (self.args[0], self.replicate))


class DegenerateDistributionWarning(RuntimeWarning):
    """The bootstrap distribution is degenerate (for example all replicates equal),
    so an interval method is undefined or meaningless."""


class UndefinedStatisticWarning(RuntimeWarning):
    """A statistic was undefined on some replicates (for example ROC AUC on a
    replicate holding one class); the result records how many."""
