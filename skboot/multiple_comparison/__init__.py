"""Comparing many models: Hansen's SPA, White's Reality Check, the StepM of
Romano & Wolf and the model confidence set of Hansen, Lunde & Nason, on loss
series (block bootstraps) or on whole-sample metrics (paired predictions)."""

from skboot.multiple_comparison._base import Provenance
from skboot.multiple_comparison._mcs import MCS
from skboot.multiple_comparison._plot import plot_pvalues
from skboot.multiple_comparison._results import MCSResult, SPAResult, StepMResult
from skboot.multiple_comparison._spa import SPA, RealityCheck
from skboot.multiple_comparison._stepm import StepM

__all__ = [
    "MCS",
    "SPA",
    "MCSResult",
    "Provenance",
    "RealityCheck",
    "SPAResult",
    "StepM",
    "StepMResult",
    "plot_pvalues",
]
