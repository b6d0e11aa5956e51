"""numba kernels, and nothing else: the compiled inner loops every layer above calls.

* :mod:`~skboot._kernels.iid`: fused iid reductions (draw, gather and reduce with no
  index array) and the row gathers that feed callables;
* :mod:`~skboot._kernels.weighted`: reductions of per-row weights (every other
  scheme);
* :mod:`~skboot._kernels.block`: block starts and lengths, block index/count chunks,
  prefix-sum block moments;
* :mod:`~skboot._kernels.resample`: the index resamplers' chunk fills (counts,
  strata, groups, Poisson, Dirichlet);
* :mod:`~skboot._kernels.simd`: numba intrinsics for eight-lane vector rows;
* :mod:`~skboot._kernels.dirichlet`: the fused Bayesian-bootstrap kernel (eight
  replicates' Dirichlet weights drawn and reduced in vector lanes);
* :mod:`~skboot._kernels.ols`: the built-in "ols": weighted cross products per
  replicate (weights, or Poisson counts drawn per row) and their Cholesky solve;
* :mod:`~skboot._kernels.model_based`: AR recursions, wild multipliers and cluster
  sums of the model-based resamplers.

Every kernel takes the stream's ``(seed, gamma)`` and replicate numbers, never a
generator object, so its output is a pure function of (key, b).
"""
