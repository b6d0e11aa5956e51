"""Model-based and wild bootstraps: replicates generated from a fitted model.

:class:`ParametricBootstrap` draws replicates from a distribution fitted to the
data (or the errors of a regression from one fitted to its residuals);
:class:`ResidualBootstrap` and :class:`SieveBootstrap` regenerate an AR (or ARX)
series from resampled residuals, :class:`ARIMAResidualBootstrap` a (seasonal) ARIMA
series, and :class:`VARResidualBootstrap` a VAR of several series;
:class:`WildBootstrap` re-signs the residuals of a regression or of an AR fit;
:func:`wild_cluster_bootstrap` tests an OLS coefficient with few clusters,
:func:`wild_cluster_wald` several restrictions at once and
:func:`wild_cluster_bootstrap_iv` the coefficient of the endogenous regressor of
an IV regression (the WRE bootstrap) (:class:`FewClustersWarning` when
Rademacher weights have too few sign vectors for the level asked).  The
resamplers plug into :func:`skboot.bootstrap` and :class:`skboot.BootstrapStatistic`
through ``resampler=``.
"""

from skboot.model_based._arima import ARIMAResidualBootstrap
from skboot.model_based._base import SyntheticReplicate, SyntheticResampler
from skboot.model_based._cluster import WildClusterResult, wild_cluster_bootstrap
from skboot.model_based._cluster_checks import FewClustersWarning
from skboot.model_based._cluster_iv import (
    WildClusterIVResult,
    wild_cluster_bootstrap_iv,
)
from skboot.model_based._cluster_wald import WildClusterWaldResult, wild_cluster_wald
from skboot.model_based._parametric import ParametricBootstrap
from skboot.model_based._residual import ResidualBootstrap, SieveBootstrap
from skboot.model_based._var import VARResidualBootstrap
from skboot.model_based._wild import WildBootstrap

__all__ = [
    "ARIMAResidualBootstrap",
    "FewClustersWarning",
    "ParametricBootstrap",
    "ResidualBootstrap",
    "SieveBootstrap",
    "SyntheticReplicate",
    "SyntheticResampler",
    "VARResidualBootstrap",
    "WildBootstrap",
    "WildClusterIVResult",
    "WildClusterResult",
    "WildClusterWaldResult",
    "wild_cluster_bootstrap",
    "wild_cluster_bootstrap_iv",
    "wild_cluster_wald",
]
