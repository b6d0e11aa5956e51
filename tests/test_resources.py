"""Resource behaviour (issue 9): worker failures, Ctrl-C and memory.

* A statistic raising inside a loky worker process surfaces in the caller as
  :class:`skboot.StatisticError` with the failing replicate (the class and its
  ``replicate`` survive pickling through ``StatisticError.__reduce__``; joblib
  re-raises the worker's exception with the remote traceback as ``__cause__``), and
  joblib's abort on error terminates the workers: none is left behind.
* Ctrl-C (SIGINT) stops a long run promptly, serial or with ``n_jobs=2`` (exit
  0.5-0.6 s after the signal, 0.3 s of which is interpreter shutdown).  A numba
  kernel call cannot be interrupted (Python sees the signal between chunks), so the
  engine caps the draws per chunk (``skboot._engine.MAX_CHUNK_DRAWS``): without
  the cap one fused call did 4096 replicates of any size, 17 s at n = 10**6.
* Memory stays flat as B grows: the extra peak from B = 2,000 to 50,000 at
  n = 10,000 is the distribution (8 bytes per replicate) plus one temporary of the
  same size in the standard error and a boolean finiteness mask, about 17 bytes per
  replicate, bounded by 24 bytes per replicate + 2 MiB here; an array of
  B x n indices or values would be 4 GB.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone

import skboot
from skboot import (
    BayesianBootstrap,
    Bootstrap,
    MovingBlockBootstrap,
    StatisticError,
    bootstrap,
)

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="POSIX signals and /proc"
)

REPO = Path(skboot.__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# process helpers (psutil when installed, else /proc)
# ---------------------------------------------------------------------------
def _proc_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process, from /proc."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":  # a zombie is already dead
            continue
        table[int(entry)] = (int(fields[1]), cmd)
    return table


def descendants(pid: int) -> dict[int, str]:
    """Live descendants of ``pid``: pid -> command line."""
    try:
        import psutil
    except ImportError:
        if not os.path.isdir("/proc"):  # pragma: no cover
            pytest.skip("needs psutil or /proc to list child processes")
        table = _proc_table()
        out: dict[int, str] = {}
        frontier = [pid]
        while frontier:
            parent = frontier.pop()
            for child, (ppid, cmd) in table.items():
                if ppid == parent and child not in out:
                    out[child] = cmd
                    frontier.append(child)
        return out
    out = {}
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return {}
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                out[child.pid] = " ".join(child.cmdline())
        except psutil.NoSuchProcess:
            pass
    return out


def workers(pid: int) -> dict[int, str]:
    """Descendants that are not the (per-interpreter, idle) resource trackers of
    multiprocessing and loky, which live as long as their parent by design."""
    return {p: c for p, c in descendants(pid).items() if "resource_tracker" not in c}


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - the pid was reused
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return True  # no /proc: trust kill(pid, 0)
    return stat[stat.rindex(")") + 2] != "Z"


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def shutdown_loky() -> None:
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


# ---------------------------------------------------------------------------
# (a) a statistic raising in a worker process
# ---------------------------------------------------------------------------
def test_statistic_error_in_a_loky_worker_surfaces_and_leaves_no_worker():
    shutdown_loky()
    main_pid = os.getpid()
    before = set(workers(main_pid))
    x = np.arange(200, dtype=float)
    # a successful run starts the (reusable) loky pool and keeps it for reuse
    res = bootstrap(x, np.mean, n_resamples=50, random_state=3, n_jobs=2)
    ref = bootstrap(x, np.mean, n_resamples=50, random_state=3)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    pool = set(workers(main_pid)) - before
    assert pool, "no worker process: the parallel path did not run"

    def stat(a):  # a closure: cloudpickle ships it by value to the workers
        if a[0] == 7.0:
            raise ZeroDivisionError(f"boom in pid {os.getpid()}")
        return a.mean()

    with pytest.raises(StatisticError, match=r"raised on replicate \d+") as info:
        bootstrap(x, stat, n_resamples=2000, random_state=3, n_jobs=2)
    err = info.value
    # the class and the replicate number crossed the process boundary
    assert type(err) is StatisticError and isinstance(err.replicate, int)
    assert f"replicate {err.replicate}" in str(err)
    assert "ZeroDivisionError" in str(err)
    # it ran in a worker of the pool: the remote traceback is the cause
    worker_pid = int(re.search(r"boom in pid (\d+)", str(err)).group(1))
    assert worker_pid != main_pid and worker_pid in pool
    assert "Traceback" in str(err.__cause__)
    # the reported replicate really is one that draws row 7 first
    fitted = clone(Bootstrap(2000, random_state=3)).fit(x)
    assert fitted.replicate(err.replicate).indices[0] == 7
    # joblib aborted the pool on the error: the worker that raised and its
    # siblings are gone, without any shutdown from us
    assert wait_until(lambda: not alive(worker_pid), 10), "worker still alive"
    assert wait_until(lambda: set(workers(main_pid)) <= before, 10), workers(main_pid)
    shutdown_loky()
    assert set(workers(main_pid)) <= before


def test_statistic_error_in_a_thread_worker_surfaces():
    import joblib

    def stat(a):
        if a[0] == 7.0:
            raise ValueError("thread boom")
        return a.mean()

    x = np.arange(200, dtype=float)
    with (
        joblib.parallel_config(backend="threading"),
        pytest.raises(StatisticError, match=r"replicate \d+: ValueError") as info,
    ):
        bootstrap(x, stat, n_resamples=500, random_state=3, n_jobs=2)
    fitted = Bootstrap(500, random_state=3).fit(x)
    assert fitted.replicate(info.value.replicate).indices[0] == 7


# ---------------------------------------------------------------------------
# (b) Ctrl-C during a long run
# ---------------------------------------------------------------------------
_LONG_RUN = textwrap.dedent(
    """
    import contextlib
    import sys
    import joblib
    import numpy as np
    from skboot import bootstrap

    n, n_jobs, stat = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    backend = sys.argv[4] if len(sys.argv) > 4 else None  # None: skboot's choice
    statistic = {"mean": "mean", "median": "median", "callable": np.mean}[stat]
    x = np.random.default_rng(0).normal(size=n)
    bootstrap(x[:100], statistic, n_resamples=20, random_state=0)  # warm up
    print("READY", flush=True)
    chosen = joblib.parallel_config(backend=backend) if backend else None
    with chosen or contextlib.nullcontext():
        bootstrap(x, statistic, n_resamples=10**7, random_state=0, n_jobs=n_jobs)
    print("DONE", flush=True)
    """
)


@pytest.mark.parametrize(
    ("n", "n_jobs", "stat", "backend"),
    [
        (10_000, 1, "mean", None),  # fused iid kernel, serial
        (10_000, 2, "mean", None),  # fused: joblib threads (nogil kernels)
        (10_000, 2, "mean", "loky"),  # loky workers, parent waiting in joblib
        (10**6, 1, "mean", None),  # large n: one uncapped chunk took 17 s
        pytest.param(10**6, 1, "median", None, marks=pytest.mark.slow),  # 20 ms/rep
        pytest.param(10_000, 1, "callable", None, marks=pytest.mark.slow),  # callable
    ],
    ids=[
        "serial-n1e4",
        "n_jobs2-n1e4",
        "n_jobs2-loky-n1e4",
        "serial-n1e6",
        "median-n1e6",
        "callable",
    ],
)
def test_ctrl_c_stops_a_long_run_promptly(n, n_jobs, stat, backend):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [str(n), str(n_jobs), stat] + ([backend] if backend else [])
    proc = subprocess.Popen(
        [sys.executable, "-c", _LONG_RUN, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(REPO),
    )
    try:
        line = proc.stdout.readline()
        assert line.strip() == "READY", proc.stderr.read()
        time.sleep(1.0)  # well inside the run (it takes minutes)
        assert proc.poll() is None
        children = workers(proc.pid)
        if backend == "loky":
            assert children, "no worker processes: the parallel path did not run"
        elif n_jobs > 1:  # fused built-ins run on threads: no worker processes
            assert not children, children
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        latency = time.monotonic() - start
    finally:
        if proc.poll() is None:  # pragma: no cover - only on failure
            proc.kill()
            proc.communicate()
    assert "DONE" not in out
    assert "KeyboardInterrupt" in err
    assert proc.returncode != 0
    # includes interpreter shutdown (0.3 s idle); measured 0.5-0.6 s on 2 cores
    assert latency < 5.0, f"exit took {latency:.1f} s after SIGINT"
    # workers die with their parent
    assert wait_until(lambda: not any(alive(p) for p in children), 10), children


# ---------------------------------------------------------------------------
# (c) memory is flat in B
# ---------------------------------------------------------------------------
N = 10_000
B_SMALL, B_LARGE = 2_000, 50_000


def _traced_peak(x, statistic, B, **kw) -> int:
    tracemalloc.start()
    try:
        bootstrap(x, statistic, n_resamples=B, random_state=0, **kw)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _vector_mean(a, axis=-1):
    return a.mean(axis=axis)


def _weighted_mean(a, weights):
    return np.average(a, weights=weights)


@pytest.mark.parametrize(
    ("statistic", "kw", "b_small", "b_large"),
    [
        ("mean", {}, B_SMALL, B_LARGE),
        ("median", {}, B_SMALL, 10_000),
        ("mean", {"resampler": MovingBlockBootstrap(block_length=20)}, 2_000, 20_000),
        ("mean", {"resampler": BayesianBootstrap()}, 500, 5_000),
        (np.mean, {}, 500, 3_000),
        (_vector_mean, {}, 500, 3_000),
        (_weighted_mean, {"resampler": BayesianBootstrap()}, 200, 1_500),
    ],
    ids=["fused-mean", "fused-median", "block-mean", "weights", "plain", "vectorized",
         "weights-callable"],
)  # fmt: skip
def test_traced_memory_is_flat_in_B(statistic, kw, b_small, b_large):
    """Peak traced (numpy) memory grows by the distribution only: at most 24 bytes
    per extra replicate (8 for the distribution, 8 for the temporary of its
    standard error, 1 for the finiteness mask) plus 2 MiB of slack."""
    x = np.random.default_rng(0).normal(size=N)
    _traced_peak(x, statistic, 10, **kw)  # warm up: compile, caches
    small = _traced_peak(x, statistic, b_small, **kw)
    large = _traced_peak(x, statistic, b_large, **kw)
    extra = b_large - b_small
    assert large - small <= 24 * extra + 2 * 2**20, (small, large)
    assert large <= 24 * b_large + 4 * 2**20, large  # B x n would be 8 * n * B
    if statistic == "mean" and not kw:
        assert large - small >= 8 * extra  # the distribution itself is traced


_RSS_RUN = textwrap.dedent(
    """
    import resource
    import numpy as np
    from skboot import bootstrap

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB

    x = np.random.default_rng(0).normal(size={n})
    bootstrap(x, "mean", n_resamples=100, random_state=0)
    bootstrap(x, "mean", n_resamples={b_small}, random_state=0)
    small = peak()
    bootstrap(x, "mean", n_resamples={b_large}, random_state=0)
    print(small, peak())
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units differ")
def test_peak_rss_is_flat_in_B():
    """Peak resident memory of a fresh process, which also sees the numba kernels'
    own allocations (tracemalloc does not)."""
    code = _RSS_RUN.format(n=N, b_small=B_SMALL, b_large=B_LARGE)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ).stdout
    small, large = map(int, out.split())
    extra = B_LARGE - B_SMALL
    assert large - small <= 24 * extra + 2 * 2**20, (small, large)
