"""The random stream: counter-based draws derived from (root key, purpose, replicate,
position).  The bottom layer of skboot; every other layer draws through it.

Modules:

* :mod:`skboot._random._core`: the constants, SplitMix64 read at a counter, Lemire's
  bounded integers, uniform doubles, the root key and ``check_random_state``
  (the definition of the stream: see its docstring);
* :mod:`skboot._random._blocks`: the block draw every index path uses and the fills
  built on it (indices, stratified pools, Poisson counts, Dirichlet weights);
* :mod:`skboot._random._binomial`: binomial variates (inversion and BTRD), and
  the fixed-operation ``log``/``exp`` they use;
* :mod:`skboot._random._exp`: skboot's own ``-log(v)`` (the Exp(1) variates of the
  Dirichlet weights; the same bits on every platform and device);
* :mod:`skboot._random._reference`: a slow pure-numpy reference, for tests.
"""

from skboot._random._binomial import (
    binomial,
    binomial_fill,
    exp_fixed,
    ln_fixed,
    log1p_fixed,
    substream_seed,
)
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
    fill_row_buffered,
    index_dtype,
    pool_thresholds,
)
from skboot._random._core import (
    GOLDEN_GAMMA,
    MASK32,
    NO_HAVE,
    PURPOSE,
    PURPOSE_STRIDE,
    NestedKey,
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
from skboot._random._exp import (
    EXP_LN2_HI,
    EXP_LN2_LO,
    EXP_POLY,
    EXP_SQRT_HALF_BITS,
    bits_double,
    complement53,
    double_bits,
    exp1_of_complement,
    exp1_of_output,
    neg_log,
)
from skboot._random._reference import (
    reference_dirichlet,
    reference_exponentials,
    reference_indices,
    reference_neg_log,
    reference_uniforms,
    reference_words,
)
from skboot._random._vector import (
    draw_rows8_pairs,
    draw_rows8_sq_pairs,
    draw_sum_pairs,
    draw_sum_pairs_prefetch,
    draw_sumsq_pairs,
    draw_sumsq_pairs_prefetch,
    fy_pairs,
    fy_swap_sum_pairs,
    target_lanes,
)
from skboot._version import STREAM_VERSION

__all__ = [
    "EXP_LN2_HI",
    "EXP_LN2_LO",
    "EXP_POLY",
    "EXP_SQRT_HALF_BITS",
    "FAST_BLOCK",
    "GOLDEN_GAMMA",
    "HALF_BLOCK",
    "MASK32",
    "NO_HAVE",
    "POISSON_MAX",
    "PURPOSE",
    "PURPOSE_STRIDE",
    "STREAM_VERSION",
    "NestedKey",
    "RootKey",
    "binomial",
    "binomial_fill",
    "bits_double",
    "bounded",
    "check_random_state",
    "complement53",
    "count_row",
    "double_bits",
    "draw_block",
    "draw_rows8_pairs",
    "draw_rows8_sq_pairs",
    "draw_sum_pairs",
    "draw_sum_pairs_prefetch",
    "draw_sumsq_pairs",
    "draw_sumsq_pairs_prefetch",
    "exp1_of_complement",
    "exp1_of_output",
    "exp_fixed",
    "fast_pairs",
    "fast_pairs_split",
    "fill_dirichlet_weights",
    "fill_indices",
    "fill_indices_chunk",
    "fill_indices_kernel",
    "fill_poisson_counts",
    "fill_pool_indices",
    "fill_row_buffered",
    "fy_pairs",
    "fy_swap_sum_pairs",
    "index_dtype",
    "lemire_threshold",
    "ln_fixed",
    "log1p_fixed",
    "mix64",
    "neg_log",
    "pool_thresholds",
    "reference_dirichlet",
    "reference_exponentials",
    "reference_indices",
    "reference_neg_log",
    "reference_uniforms",
    "reference_words",
    "replicate_counter",
    "splitmix_at",
    "substream_seed",
    "target_lanes",
    "uniform01",
    "uniform_at",
    "unit_double",
]
