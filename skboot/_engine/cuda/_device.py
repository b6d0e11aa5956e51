"""The ``device`` parameter: validation, what is installed, what the GPU is.

Nothing here imports :mod:`numba.cuda` until a GPU is asked for, so ``import
skboot`` stays as fast as before and works without the CUDA target.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from skboot._validation import check_one_of

__all__ = [
    "DEVICES",
    "CudaInfo",
    "available",
    "check_device",
    "cuda_info",
    "load_cuda",
    "quiet",
    "simulator",
]

#: Accepted values of every ``device`` parameter.
DEVICES = ("auto", "cpu", "cuda")

_INSTALL = "pip install 'skboot[cuda]' (numba-cuda with the CUDA 12 toolkit wheels)"


def check_device(device: Any, owner: str) -> str:
    """Validate ``device`` before any work; for ``"cuda"`` also check that the CUDA
    target and a GPU are there (clear error naming what is missing)."""
    check_one_of(device, "device", owner, DEVICES)
    if device == "cuda":
        load_cuda(owner)
    return str(device)


def _backend() -> str:
    """Which CUDA target ``numba.cuda`` is: the numba-cuda package, or the
    (deprecated) one built into numba."""
    try:
        return f"numba-cuda {importlib.metadata.version('numba-cuda')}"
    except importlib.metadata.PackageNotFoundError:
        import numba

        return f"numba {numba.__version__} built-in CUDA target"


def simulator() -> bool:
    """Whether numba's CUDA simulator stands in for a GPU (NUMBA_ENABLE_CUDASIM=1,
    read when numba was imported)."""
    from numba.core import config

    return bool(getattr(config, "ENABLE_CUDASIM", 0))


def _unavailable_reason(cuda: Any) -> str:
    """Why ``numba.cuda`` cannot run kernels here ("" when it can)."""
    if simulator():
        return ""
    if not cuda.is_available():
        try:
            cuda.current_context()
        except Exception as exc:  # the driver's own explanation
            return " ".join(str(exc).split()) or type(exc).__name__
        return "numba.cuda.is_available() is False"
    try:
        from numba.cuda.cudadrv import nvvm

        if not nvvm.is_available():
            return (
                "the CUDA driver is there but libNVVM (the CUDA compiler library) "
                "is not"
            )
    except ImportError as exc:
        return f"libNVVM cannot be loaded ({exc})"
    return ""


def load_cuda(owner: str = "skboot") -> Any:
    """Return :mod:`numba.cuda`, or raise an error naming what is missing.

    Raises
    ------
    ImportError
        numba's CUDA target cannot be imported.
    RuntimeError
        It imports, but finds no usable GPU (no driver, no device, no libNVVM).
    """
    try:
        from numba import cuda
    except ImportError as exc:
        raise ImportError(
            f"device='cuda' of {owner} needs numba's CUDA target, which cannot be "
            f"imported ({exc}); {_INSTALL}. device='auto' runs on the CPU instead."
        ) from exc
    reason = _unavailable_reason(cuda)
    if reason:
        raise RuntimeError(
            f"device='cuda' of {owner} found no usable CUDA GPU: {reason}. It needs "
            f"an NVIDIA GPU with its driver and {_INSTALL}; device='auto' runs on "
            "the CPU instead."
        )
    return cuda


def available() -> bool:
    """Whether :func:`load_cuda` would succeed (imports numba.cuda)."""
    try:
        load_cuda()
    except (ImportError, RuntimeError):
        return False
    return True


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence numpy's integer-overflow warnings while kernels run in numba's CUDA
    simulator: it executes the uint64 stream arithmetic with numpy scalars, whose
    wrap-around (intended: SplitMix64 works modulo 2**64) numpy reports."""
    if not simulator():
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        yield


@dataclass(frozen=True)
class CudaInfo:
    """What :func:`cuda_info` found.

    Attributes
    ----------
    available : bool
        Whether ``device="cuda"`` can run here.
    reason : str
        Why not ("" when it can).
    backend : str
        The CUDA target found (``"numba-cuda 0.30.4"``, numba's built-in target,
        ``""`` when none imports).
    simulator : bool
        Whether numba's CUDA simulator stands in for a GPU
        (``NUMBA_ENABLE_CUDASIM=1``: correct results, very slow).
    name : str
        Device name ("" when unavailable).
    compute_capability : tuple of int
    multiprocessors : int
    memory_bytes : int
        Total device memory.
    l2_bytes : int
        L2 cache size.
    memory_bandwidth : float
        Theoretical memory bandwidth in bytes per second, from the device's memory
        clock and bus width (two transfers per clock); 0.0 when unknown.
    """

    available: bool
    reason: str = ""
    backend: str = ""
    simulator: bool = False
    name: str = ""
    compute_capability: tuple[int, ...] = ()
    multiprocessors: int = 0
    memory_bytes: int = 0
    l2_bytes: int = 0
    memory_bandwidth: float = 0.0


def cuda_info() -> CudaInfo:
    """Describe the CUDA GPU that ``device="cuda"`` would use, or why there is none.

    Never raises for a missing GPU or package: the answer says what is missing.

    Returns
    -------
    CudaInfo
        Whether a GPU is usable, why not when it is not, and the device's
        name, compute capability, memory and bandwidth when it is.

    See Also
    --------
    skboot.bootstrap : Its ``device`` parameter selects the GPU.

    Examples
    --------
    >>> from skboot import cuda_info
    >>> info = cuda_info()
    >>> info.available == (info.reason == "")
    True
    """
    try:
        from numba import cuda
    except ImportError as exc:
        return CudaInfo(False, reason=f"numba.cuda cannot be imported ({exc})")
    backend = _backend()
    reason = _unavailable_reason(cuda)
    if reason:
        return CudaInfo(False, reason=reason, backend=backend)
    if simulator():
        return CudaInfo(True, backend=backend, simulator=True, name="CUDA simulator")
    dev = cuda.get_current_device()
    clock_khz = int(getattr(dev, "MEMORY_CLOCK_RATE", 0) or 0)
    bus_bits = int(getattr(dev, "GLOBAL_MEMORY_BUS_WIDTH", 0) or 0)
    try:
        total = int(cuda.current_context().get_memory_info()[1])
    except Exception:  # informational only: report 0 rather than fail
        total = 0
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return CudaInfo(
        True,
        backend=backend,
        name=name,
        compute_capability=tuple(int(v) for v in dev.compute_capability),
        multiprocessors=int(getattr(dev, "MULTIPROCESSOR_COUNT", 0) or 0),
        memory_bytes=total,
        l2_bytes=int(getattr(dev, "L2_CACHE_SIZE", 0) or 0),
        memory_bandwidth=2.0 * clock_khz * 1e3 * bus_bits / 8.0,
    )
