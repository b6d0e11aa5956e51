"""Optional CUDA GPU path: the same derived streams, computed by fused kernels.

``bootstrap(..., device="cuda")`` (and ``BootstrapStatistic(device=...)``,
``metric_ci(..., device=...)``) runs the built-in statistics on an NVIDIA GPU
through numba's CUDA target (``pip install 'skboot[cuda]'``).  Replicates are
bit-identical to the CPU's; statistics agree with the CPU path to rounding (the
summation order differs) and are bit-identical run to run and for any launch
configuration.  See the "GPU" page of the user guide.
"""

from skboot._engine.cuda._device import (
    DEVICES,
    CudaInfo,
    check_device,
    cuda_info,
    load_cuda,
)
from skboot._engine.cuda._run import (
    GPU_METRICS,
    GPU_RESAMPLERS,
    GPU_STATISTICS,
    device_runner,
    no_kernel_error,
)

__all__ = [
    "DEVICES",
    "GPU_METRICS",
    "GPU_RESAMPLERS",
    "GPU_STATISTICS",
    "CudaInfo",
    "check_device",
    "cuda_info",
    "device_runner",
    "load_cuda",
    "no_kernel_error",
]
