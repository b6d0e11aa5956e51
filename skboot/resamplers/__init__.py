"""Bootstrap resamplers: scikit-learn splitters over derived random streams."""

from skboot.resamplers._base import BaseResampler, Replicate, ResamplingPlan
from skboot.resamplers._block import (
    CircularBlockBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    StationaryBootstrap,
    TaperedBlockBootstrap,
)
from skboot.resamplers._iid import (
    BayesianBootstrap,
    Bootstrap,
    GroupBootstrap,
    PoissonBootstrap,
    StratifiedBootstrap,
)
from skboot.resamplers._permutation import Permutation

__all__ = [
    "BaseResampler",
    "BayesianBootstrap",
    "Bootstrap",
    "CircularBlockBootstrap",
    "GroupBootstrap",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "Permutation",
    "PoissonBootstrap",
    "Replicate",
    "ResamplingPlan",
    "StationaryBootstrap",
    "StratifiedBootstrap",
    "TaperedBlockBootstrap",
]
