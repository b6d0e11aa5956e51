"""The random stream: counter-based draws derived from (root key, purpose, replicate,
position).  The bottom layer of skboot; every other layer draws through it.

Modules:

* :mod:`skboot._random._core`: the constants, SplitMix64 read at a counter, Lemire's
  bounded integers, uniform doubles, the root key and ``check_random_state``
  (the definition of the stream: see its docstring);
* :mod:`skboot._random._blocks`: the block draw every index path uses and the fills
  built on it (indices, stratified pools, Poisson counts, Dirichlet weights);
* :mod:`skboot._random._reference`: a slow pure-numpy reference, for tests.
"""

from skboot._random._blocks import (
    FAST_BLOCK,
    HALF_BLOCK,
    POISSON_MAX,
    count_row,
    draw_block,
    fast_pairs,
    fast_pairs_split,
    fill_dirichlet_weights,
    fill_indices,
    fill_indices_chunk,
    fill_indices_kernel,
    fill_poisson_counts,
    fill_pool_indices,
    index_dtype,
)
from skboot._random._core import (
    GOLDEN_GAMMA,
    MASK32,
    NO_HAVE,
    PURPOSE,
    PURPOSE_STRIDE,
    RootKey,
    bounded,
    check_random_state,
    lemire_threshold,
    mix64,
    replicate_counter,
    splitmix_at,
    uniform01,
    uniform_at,
    unit_double,
)
from skboot._random._reference import (
    reference_indices,
    reference_uniforms,
    reference_words,
)
from skboot._random._vector import (
    draw_sum_pairs,
    draw_sum_pairs_prefetch,
    vector_lanes,
)
from skboot._version import STREAM_VERSION

__all__ = [
    "FAST_BLOCK",
    "GOLDEN_GAMMA",
    "HALF_BLOCK",
    "MASK32",
    "NO_HAVE",
    "POISSON_MAX",
    "PURPOSE",
    "PURPOSE_STRIDE",
    "STREAM_VERSION",
    "RootKey",
    "bounded",
    "check_random_state",
    "count_row",
    "draw_block",
    "draw_sum_pairs",
    "draw_sum_pairs_prefetch",
    "fast_pairs",
    "fast_pairs_split",
    "fill_dirichlet_weights",
    "fill_indices",
    "fill_indices_chunk",
    "fill_indices_kernel",
    "fill_poisson_counts",
    "fill_pool_indices",
    "index_dtype",
    "lemire_threshold",
    "mix64",
    "reference_indices",
    "reference_uniforms",
    "reference_words",
    "replicate_counter",
    "splitmix_at",
    "uniform01",
    "uniform_at",
    "unit_double",
    "vector_lanes",
]
