"""Bootstrap resamplers: scikit-learn splitters over derived random streams, and the
plans the engine runs (including the jackknife and independent-sample plans)."""

from skboot.resamplers._base import (
    BaseResampler,
    Replicate,
    ResamplingPlan,
    StreamScheme,
)
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
from skboot.resamplers._iid_plans import IIDPlan
from skboot.resamplers._independent import IndependentPlan, independent_plan
from skboot.resamplers._jackknife import DeleteGroupPlan, LeaveOneOutPlan
from skboot.resamplers._permutation import Permutation
from skboot.resamplers._text import param_repr

__all__ = [
    "BaseResampler",
    "BayesianBootstrap",
    "Bootstrap",
    "CircularBlockBootstrap",
    "DeleteGroupPlan",
    "GroupBootstrap",
    "IIDPlan",
    "IndependentPlan",
    "LeaveOneOutPlan",
    "MovingBlockBootstrap",
    "NonOverlappingBlockBootstrap",
    "Permutation",
    "PoissonBootstrap",
    "Replicate",
    "ResamplingPlan",
    "StationaryBootstrap",
    "StratifiedBootstrap",
    "StreamScheme",
    "TaperedBlockBootstrap",
    "independent_plan",
    "param_repr",
]
