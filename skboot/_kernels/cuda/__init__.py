"""numba-cuda kernels of the optional GPU path (imported only when a device run asks
for them: importing them needs numba-cuda): ``stream`` (the derived stream as device
functions), ``exp`` (skboot's ``-log`` with round-to-nearest intrinsics, for the
Dirichlet weights), ``kernels`` (the fused kernels) and ``constants`` (scheme codes
shared with the host code in :mod:`skboot._engine.cuda`)."""
