"""CI has no GPU: the CUDA kernels are tested there only through numba's CUDA
simulator (tests/test_cuda.py skips itself when numba has no CUDA target).  This
test makes CI fail instead of silently skipping them all."""

from __future__ import annotations

import os

import pytest


def test_ci_runs_the_cuda_kernels():
    if not os.environ.get("CI"):
        pytest.skip("checked in CI only (CI=true)")
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("a GPU machine runs tests/test_cuda.py on the device")
    from skboot._engine.cuda._device import available, simulator

    assert available() and simulator(), (
        "CI cannot run numba's CUDA simulator, so tests/test_cuda.py was skipped: "
        "numba.cuda (numba's built-in target or the numba-cuda package) must import "
        "with NUMBA_ENABLE_CUDASIM=1 (set by tests/conftest.py)"
    )
