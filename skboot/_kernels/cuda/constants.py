"""Constants shared by the CUDA kernels and their host side (no numba import)."""

#: The stream definition the kernels reproduce (skboot._random.STREAM_VERSION).
IMPLEMENTS_STREAM = 2

#: Index schemes: iid draws, fixed-length blocks, geometric (stationary) blocks.
IID = 0
FIXED_BLOCKS = 1
STATIONARY = 2
#: Weight schemes: Poisson(1) counts, flat Dirichlet weights.
POISSON = 0
DIRICHLET = 1
