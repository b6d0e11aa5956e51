"""The CUDA path against the CPU path, same workloads, same run.

``python -m benchmarks.gpu [--quick] [--reps N] [--cpu-reps N] [--json PATH]``

On a machine with an NVIDIA GPU (and ``pip install -e '.[cuda]'``) it prints the
device (name, multiprocessors, L2, memory and its theoretical bandwidth from the
device attributes, plus a measured device-to-device copy), then for each workload:

* iid mean, n = 10**6, B = 10**5 (10**11 draws; the data, 8 MB, sit in L2);
* iid mean, n = 10**4, B = 10**5;
* stationary-block mean (mean block length 20), n = 10**4, B = 10**5;

the GPU's end-to-end ``bootstrap(..., device="cuda")`` time and its kernel alone
(CUDA events), draws per second, the bytes those draws read per second (8 per
draw) next to the memory bandwidth, the CPU fused path's time on the same workload
(``n_jobs=-1``, all cores) and the largest relative difference between the two
distributions.  Times are medians of ``--reps`` runs after a warm-up run that
compiles the kernels.  ``--quick`` divides B by 10 (a minute or two in all);
``--smoke`` runs tiny sizes and is the only mode allowed in numba's CUDA
simulator (for testing this script).  Progress goes to stderr.

Without a GPU it exits with status 2 and says what is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["WORKLOADS", "main"]

#: (name, statistic's resampler, n, B) of the full run.
WORKLOADS = (
    ("iid mean, n=1e6, B=1e5", "iid", 1_000_000, 100_000),
    ("iid mean, n=1e4, B=1e5", "iid", 10_000, 100_000),
    ("stationary mean (L=20), n=1e4, B=1e5", "stationary", 10_000, 100_000),
)


def _log(msg: str) -> None:
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def _median_time(fn: Callable[[], Any], reps: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times


def _resampler(kind: str) -> Any:
    from skboot import Bootstrap, StationaryBootstrap

    return Bootstrap() if kind == "iid" else StationaryBootstrap(block_length=20.0)


def _copy_bandwidth(cuda: Any, nbytes: int) -> float:
    """Measured device-to-device copy: bytes read plus written per second."""
    a = cuda.device_array(nbytes // 8)
    b = cuda.device_array(nbytes // 8)
    b.copy_to_device(a)  # warm-up
    cuda.synchronize()
    start, stop = cuda.event(), cuda.event()
    start.record()
    for _ in range(5):
        b.copy_to_device(a)
    stop.record()
    stop.synchronize()
    seconds = start.elapsed_time(stop) / 1e3 / 5
    return 2.0 * nbytes / seconds


def _kernel_time(cuda: Any, x: np.ndarray, kind: str, B: int, reps: int) -> float:
    """Median time of the moments kernel alone (one launch for all B, CUDA
    events), on the centred data already on the device."""
    from skboot._engine.cuda import _run
    from skboot._engine.cuda._device import quiet
    from skboot._kernels.cuda import kernels as K

    plan = _resampler(kind).set_params(random_state=0).fit(x).plan_
    s = _run.scheme_of(plan)
    assert s is not None
    Xd = cuda.to_device(x - x.mean())
    o1 = cuda.device_array(B)
    o2 = cuda.device_array(B)
    fl = cuda.device_array(B, dtype=np.int64)
    threads = _run.THREADS_PER_BLOCK
    grid = -(-B // threads)

    def launch() -> None:
        with quiet():  # numpy's overflow notes in the simulator; nothing on a GPU
            _launch()

    def _launch() -> None:
        K.index_moments[grid, threads](
            Xd,
            np.int64(1),
            np.int64(s.code),
            s.seed,
            s.seed_l,
            s.gamma,
            np.uint64(0),
            np.int64(s.m),
            s.un_draw,
            s.thresh,
            np.int64(s.L),
            np.int64(s.stride),
            np.float64(s.log_q),
            np.float64(_run.AMBIGUITY),
            np.bool_(False),
            o1,
            o2,
            fl,
        )

    launch()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = cuda.event(), cuda.event()
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return float(np.median(times))


def _fmt_rate(v: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if v >= scale:
            return f"{v / scale:.2f} {unit}"
    return f"{v:.0f} "


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.gpu", description=__doc__
    )
    parser.add_argument("--quick", action="store_true", help="B divided by 10")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (simulator)")
    parser.add_argument("--reps", type=int, default=5, help="timed GPU runs")
    parser.add_argument("--cpu-reps", type=int, default=3, help="timed CPU runs")
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)

    import skboot
    from skboot import bootstrap, cuda_info

    info = cuda_info()
    if not info.available:
        _log(
            "benchmarks.gpu needs a CUDA GPU: "
            f"{info.reason or 'none found'} (backend: {info.backend or 'none'}). "
            "Install the extra with pip install -e '.[cuda]' on a machine with an "
            "NVIDIA GPU and its driver."
        )
        return 2
    if info.simulator and not args.smoke:
        _log(
            "benchmarks.gpu: numba's CUDA simulator is active "
            "(NUMBA_ENABLE_CUDASIM=1); it is not a GPU. Unset it, or pass --smoke "
            "to check this script on tiny sizes."
        )
        return 2
    from numba import cuda

    lines = [
        f"skboot {skboot.__version__} from {os.path.dirname(skboot.__file__)}",
        f"CUDA target: {info.backend}",
        f"host: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs (CPU path: n_jobs=-1)",
    ]
    facts: dict[str, Any] = {"cuda_info": info.__dict__.copy()}
    if info.simulator:
        lines.append("device: numba's CUDA simulator (smoke run, times meaningless)")
    else:
        _log("measuring a device-to-device copy ...")
        copy_bw = _copy_bandwidth(cuda, 1 << 30)
        facts["copy_bandwidth"] = copy_bw
        cc = ".".join(str(v) for v in info.compute_capability)
        lines += [
            f"device: {info.name} (compute capability {cc}), "
            f"{info.multiprocessors} SMs, L2 {info.l2_bytes / 2**20:.0f} MiB, "
            f"{info.memory_bytes / 2**30:.0f} GiB",
            f"memory bandwidth: {info.memory_bandwidth / 1e9:.0f} GB/s theoretical "
            "(2 x memory clock x bus width), "
            f"{copy_bw / 1e9:.0f} GB/s measured (1 GiB device copy, read + write)",
        ]
    for line in lines:
        print(line)
    print()

    if args.smoke:
        workloads = [
            ("iid mean, n=200 (smoke)", "iid", 200, 16),
            ("stationary mean (L=20), n=200 (smoke)", "stationary", 200, 16),
        ]
        args.reps = args.cpu_reps = 1
    else:
        div = 10 if args.quick else 1
        workloads = [(w[0], w[1], w[2], w[3] // div) for w in WORKLOADS]
    header = (
        "| workload | B | GPU end to end | GPU kernel | draws/s (kernel) "
        "| read B/s (8 B/draw) | CPU fused path | GPU speed-up | max rel diff |"
    )
    rows = []
    results = []
    rng = np.random.default_rng(0)
    for name, kind, n, B in workloads:
        x = rng.normal(size=n) + 3.0
        draws = float(n) * B
        kw: dict[str, Any] = {"n_resamples": B, "random_state": 0}
        res = _resampler(kind)
        _log(f"{name}, B={B:,}: compiling / warm-up on the GPU ...")
        bootstrap(x, "mean", resampler=res, **{**kw, "n_resamples": 8}, device="cuda")
        _log(f"  GPU: {args.reps} timed runs ...")
        gpu_dist = bootstrap(x, "mean", resampler=res, device="cuda", **kw).distribution
        t_gpu, gpu_times = _median_time(
            lambda x=x, res=res, kw=kw: bootstrap(
                x, "mean", resampler=res, device="cuda", **kw
            ),
            args.reps,
        )
        _log("  GPU kernel alone ...")
        with warnings.catch_warnings():
            # the simulator records no time ("Simulator timings are bogus")
            warnings.simplefilter("ignore", UserWarning)
            t_kernel = _kernel_time(cuda, x, kind, B, args.reps)
        _log(f"  CPU: warm-up and {args.cpu_reps} timed runs ...")
        cpu_dist = bootstrap(x, "mean", resampler=res, n_jobs=-1, **kw).distribution
        t_cpu, cpu_times = _median_time(
            lambda x=x, res=res, kw=kw: bootstrap(
                x, "mean", resampler=res, n_jobs=-1, **kw
            ),
            args.cpu_reps,
        )
        diff = float(np.max(np.abs(gpu_dist - cpu_dist) / np.abs(cpu_dist)))
        rate = draws / (t_kernel if t_kernel > 0 else t_gpu)
        rows.append(
            f"| {name} | {B:,} | {t_gpu:.3f} s | {t_kernel:.3f} s "
            f"| {_fmt_rate(rate)}draws/s | {_fmt_rate(8 * rate)}B/s "
            f"| {t_cpu:.3f} s | {t_cpu / t_gpu:.1f}x | {diff:.1e} |"
        )
        results.append(
            {
                "workload": name,
                "n": n,
                "B": B,
                "gpu_end_to_end_s": gpu_times,
                "gpu_kernel_median_s": t_kernel,
                "cpu_s": cpu_times,
                "draws": draws,
                "max_rel_diff": diff,
            }
        )
        _log(f"  done: GPU {t_gpu:.3f} s, CPU {t_cpu:.3f} s")
    print(header)
    print("|" + " --- |" * 9)
    for row in rows:
        print(row)
    print()
    print(
        f"medians of {args.reps} GPU and {args.cpu_reps} CPU runs after a warm-up; "
        "draws/s from the kernel time (B x n draws, each an 8-byte read of x)."
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"facts": facts, "lines": lines, "results": results}, fh, indent=1
            )
        _log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
