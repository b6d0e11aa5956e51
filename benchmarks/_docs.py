"""Write ``docs/benchmarks.md`` from one run's markdown report."""

from __future__ import annotations

__all__ = ["write_docs"]

INTRO = """\
# Benchmarks

skboot is compared, in the same process and on the same data, with the libraries a
user would otherwise reach for: arch 8 (`IIDBootstrap`, the block bootstraps,
`conf_int`), `scipy.stats.bootstrap`, and tsbootstrap 0.7 (its fused
`bootstrap_reduce(..., backend="compiled")` path where it has one).  The suite lives
in `benchmarks/` and is run with one command:

```
python -m benchmarks                 # full run, about 5-10 minutes
python -m benchmarks --quick         # about a minute, indicative only
python -m benchmarks --only iid_small block --quick   # selected sections
python -m benchmarks --isa avx2      # kernels compiled for AVX2 (no AVX-512), any x86-64 CPU
python -m benchmarks --list          # section names
python -m benchmarks --write-docs    # full run, then rewrite this page
```

(`benchmarks/coverage.py`, run as `python -m benchmarks.coverage`, is a separate
study of interval coverage, not of speed.  Five smaller scripts:
`python -m benchmarks.kernels` times skboot's own kernels and fixed costs alone and
runs unchanged in older checkouts, for before/after numbers;
`python -m benchmarks.median_budget` splits a plain `np.median` bootstrap's time
between `np.median` and the wrapper; `python -m benchmarks.perm_budget` splits a
fused permutation test's time between the stream's Fisher-Yates draws and the rest,
against the Python loop; `python -m benchmarks.precision` prints each fused
var's error in ulps next to numpy's on the same replicate;
`python -m benchmarks.dask_backend` writes the
Dask section at the end of this page.)

`--isa avx2` (or `sse4`, or `native`) compiles every kernel for that instruction set
whatever the CPU, with a private kernel cache per instruction set, and the report
says how many compiled kernels use 256-bit (ymm) and 512-bit (zmm) registers: the
speed users without AVX-512 get, measured on any machine.

The markdown report goes to stdout; every raw timing, the machine facts (CPU, caches,
library versions, load average) and the required speed-ups go to
`benchmarks/results/latest.json` (full runs; `quick.json` / `partial.json`
otherwise, or `--json PATH`).

## How to read the numbers

* **Cells are medians.** Each workload's implementations are first run once,
  untimed (numba compilation or cache loading, lazy imports, first-touch page
  faults), then timed in 5 to 21 rounds (more for the cheap workloads, so their
  medians are steadier).  Within a round every implementation runs once, and the
  order rotates from round to round (A B C, B C A, ...), so a burst of load from
  another process is shared by all of them.  The cyclic garbage collector is off
  while a workload is timed (as in `timeit`).
* **A timed value lasts at least 20 ms.** Calls faster than that are repeated back
  to back within their turn and the value is the time per call; the repeat count is
  calibrated once per implementation from an untimed call after its
  warm-up (`timeit`'s autorange and
  pyperf's loop calibration do the same).  Every peer call here takes longer than
  20 ms except some scipy and tsbootstrap calls at n = 100, so in practice this
  applies to skboot's sub-millisecond calls, which would otherwise time the state
  the previous implementation left the core in (clock, caches, another library's
  spinning OpenMP threads): measured one call per turn, the n = 100 mean took
  0.9 ms after arch's loop against 0.65 ms back to back.  The JSON records the
  count (`loops`) for every implementation.
* **Ratios are peer / skboot**, from the medians: `12x` means skboot took a twelfth
  of the peer's time.  The bracket beside a ratio is the min-max of the per-round
  ratios (skboot and the peer measured seconds apart), which is the honest noise
  band of the ratio itself.  The "spread" column gives the min-max of each
  implementation's rounds.
* **Absolute times drift; ratios hold.** The machine has 2 cores shared with other
  work; the load average at the start and end of the run is printed with the table
  (`--wait-load 1.0` waits for a quiet moment before starting).  Compare absolute
  times only within one run.
* **Threads.** skboot runs with its default `n_jobs=None` (one core).
  tsbootstrap's compiled path is parallel (`numba.prange`) and uses both cores by
  default; the cell gives its time pinned to one numba thread in brackets.
  arch and scipy run in one thread.
* **scipy materialises B x n.** For distribution-only workloads it runs with
  `vectorized=True, method="percentile"`; where B x n x 8 bytes would exceed
  1 GB the run uses `batch=` (the notes under the table say which).
* **"n/a" cells** say why a library cannot run the workload (no block resampling,
  no built-in statistic, feature not yet in skboot).  No peer is dropped.
* **Memory** is the peak resident set (VmHWM, reset right before the call) above
  the resident set just before the call, in a fresh process per cell; "after
  warm-up" excludes numba compilation/cache loading, the
  "post-import" column and the empty-cache line include it.
* **Cold start** is measured from just before the process is spawned to the first
  result, with `NUMBA_CACHE_DIR` pointing at a new empty directory (everything the
  first call needs is compiled) and then at the directory that run filled.

"""


def write_docs(path: str, report: str) -> None:
    # the report's own title becomes a section of this page
    lines = report.splitlines()
    body = []
    for line in lines:
        if line.startswith("# "):
            body.append("## Latest run " + line[2:].replace("skboot benchmarks ", ""))
        elif line.startswith("## "):
            body.append("#" + line)
        else:
            body.append(line)
    with open(path, "w") as fh:
        fh.write(INTRO)
        fh.write("\n".join(body).rstrip() + "\n")
