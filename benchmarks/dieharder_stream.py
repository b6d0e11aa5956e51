"""Write skboot's random stream to stdout as raw 32-bit words, for dieharder.

    python -m benchmarks.dieharder_stream [--seed S] [--purpose P]
        [--layout sequential|interleaved] [--length L] [--replicates R]
        [--start K] [--words N] | dieharder -a -g 200

``-g 200`` is dieharder's ``stdin_input_raw``: it reads native-endian unsigned
32-bit integers from stdin.  The words written are exactly the stream's 32-bit
words, in the order a bounded draw consumes them: output ``z_t`` of SplitMix64
(counter ``t = b * 2**32 + i`` for position ``i`` of replicate ``b``) is written as
its high half, then its low half.  Two layouts put the replicates one after another
in the order a bootstrap reads them:

* ``sequential``: outputs ``i = 0 .. L-1`` of replicate 0, then of replicate 1, ...
  (``L`` = ``--length``, the outputs one replicate uses: a bootstrap of ``n`` rows
  reads about ``n / 2`` outputs per replicate).  Dieharder then sees every
  replicate boundary, i.e. the jump of the counter from ``b * 2**32 + L - 1`` to
  ``(b + 1) * 2**32``.
* ``interleaved``: output ``i`` of replicates ``0 .. R-1`` (``R`` =
  ``--replicates``), then output ``i + 1`` of the same replicates, ...  Dieharder
  then compares the replicates at one position: counters ``2**32`` apart.

``--start K`` skips the first ``K`` outputs of the layout (for a rerun on fresh
data); ``--words N`` stops after ``N`` words (default: until the reader closes the
pipe).  ``--table FILE ...`` prints saved dieharder outputs side by side as a
markdown table instead (a p-value and an assessment column per file).  The buffer is filled by a numba loop and written with
``sys.stdout.buffer.write``: several hundred MB/s, far faster than dieharder reads.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from numba import njit

from skboot._random import PURPOSE, check_random_state, splitmix_at

__all__ = ["LAYOUTS", "fill_words", "main", "results", "stream_words", "table"]

LAYOUTS = ("sequential", "interleaved")
_BUFFER_OUTPUTS = 1 << 18  # 2 MiB of words per write
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def fill_words(seed, gamma, interleaved, period, start, out):
    """Fill ``out`` (uint32, even length) with the words of outputs ``start,
    start + 1, ...`` of a layout.

    ``interleaved`` False: output ``k`` of the layout is position ``k % period`` of
    replicate ``k // period`` (``period`` = outputs per replicate).  True: it is
    position ``k // period`` of replicate ``k % period`` (``period`` = replicates).
    """
    n_out = out.size // 2
    major = start // period
    minor = start % period
    for k in range(n_out):
        if interleaved:
            b = minor
            i = major
        else:
            b = major
            i = minor
        z = splitmix_at(seed, gamma, (np.uint64(b) << _U32) + np.uint64(i))
        out[2 * k] = np.uint32(z >> _U32)
        out[2 * k + 1] = np.uint32(z & _MASK32)
        minor += 1
        if minor == period:
            minor = 0
            major += 1


def results(text: str) -> list[tuple[str, int, float, str]]:
    """The result lines of a dieharder output: ``(test, ntup, p-value,
    assessment)`` in order.  A test rerun by ``-Y 1`` prints a line per pass;
    every line is kept, so the last of a test is its verdict."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) == 6 and cells[5] in ("PASSED", "WEAK", "FAILED"):
            rows.append((cells[0], int(cells[1]), float(cells[4]), cells[5]))
    return rows


def table(outputs: dict[str, str]) -> str:
    """A markdown table of dieharder outputs side by side: a row per result line
    (test, ntup and its occurrence among that test's lines), a p-value and an
    assessment column per output (``—`` where that output lacks the line)."""
    keys: list[tuple[str, int, int]] = []
    cells: dict[str, dict[tuple[str, int, int], str]] = {}
    for name, text in outputs.items():
        seen: dict[tuple[str, int], int] = {}
        cells[name] = {}
        for test, ntup, p, verdict in results(text):
            k = seen[test, ntup] = seen.get((test, ntup), 0) + 1
            key = (test, ntup, k)
            if key not in keys:
                keys.append(key)
            cells[name][key] = f"{p:.4f} | {verdict}"
    names = list(outputs)
    head = "| test | ntup | " + " | ".join(f"{n} p | {n}" for n in names) + " |"
    lines = [head, "|" + " --- |" * (2 + 2 * len(names))]
    for key in keys:
        row = [cells[n].get(key, "— | —") for n in names]
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def _stream_key(seed: int, purpose: str) -> tuple[np.uint64, np.uint64]:
    if purpose not in PURPOSE:
        raise SystemExit(f"--purpose must be one of {sorted(PURPOSE)}; got {purpose!r}")
    return check_random_state(seed, owner="dieharder_stream").stream(PURPOSE[purpose])


def stream_words(
    seed: int,
    purpose: str = "indices",
    layout: str = "sequential",
    period: int = 4096,
    start: int = 0,
    words: int = 1024,
) -> np.ndarray:
    """The first ``words`` words (uint32) the writer emits for these options."""
    if layout not in LAYOUTS:
        raise SystemExit(f"--layout must be one of {list(LAYOUTS)}; got {layout!r}")
    if period < 1 or period > 2**32:
        raise SystemExit(f"the period must be in [1, 2**32]; got {period}")
    seed_p, gamma = _stream_key(seed, purpose)
    out = np.empty(words + (words & 1), dtype=np.uint32)
    fill_words(
        seed_p, gamma, layout == "interleaved", np.int64(period), np.int64(start), out
    )
    return out[:words]


def _write_forever(seed_p, gamma, interleaved, period, start, limit) -> None:
    out = np.empty(2 * _BUFFER_OUTPUTS, dtype=np.uint32)
    sink = sys.stdout.buffer
    pos = start
    left = limit
    while left is None or left > 0:
        fill_words(seed_p, gamma, interleaved, np.int64(period), np.int64(pos), out)
        chunk = out if left is None or left >= out.size else out[:left]
        sink.write(memoryview(chunk).cast("B"))
        pos += _BUFFER_OUTPUTS
        if left is not None:
            left -= chunk.size
    sink.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.dieharder_stream",
        description="Raw 32-bit words of skboot's stream on stdout (dieharder -g 200).",
    )
    parser.add_argument("--seed", type=int, default=0, help="random_state (int >= 0)")
    parser.add_argument("--purpose", default="indices", help="purpose slot name")
    parser.add_argument("--layout", choices=LAYOUTS, default="sequential")
    parser.add_argument(
        "--length",
        type=int,
        default=4096,
        help="outputs per replicate (sequential layout)",
    )
    parser.add_argument(
        "--replicates",
        type=int,
        default=1024,
        help="replicates interleaved (interleaved layout)",
    )
    parser.add_argument("--start", type=int, default=0, help="outputs to skip")
    parser.add_argument(
        "--words",
        type=int,
        default=None,
        help="stop after this many words (default: never)",
    )
    parser.add_argument(
        "--table",
        nargs="+",
        default=None,
        metavar="FILE",
        help="print saved dieharder outputs as a markdown table",
    )
    args = parser.parse_args(argv)
    if args.table:
        texts = {}
        for path in args.table:
            with open(path) as fh:
                texts[os.path.splitext(os.path.basename(path))[0]] = fh.read()
        print(table(texts))
        return 0
    interleaved = args.layout == "interleaved"
    period = args.replicates if interleaved else args.length
    if not 1 <= period <= 2**32:
        raise SystemExit(f"--length/--replicates must be in [1, 2**32]; got {period}")
    if args.start < 0 or (args.words is not None and args.words < 0):
        raise SystemExit("--start and --words must be >= 0")
    seed_p, gamma = _stream_key(args.seed, args.purpose)
    try:
        _write_forever(seed_p, gamma, interleaved, period, args.start, args.words)
    except BrokenPipeError:
        # the reader (dieharder) has read enough and closed the pipe: stop quietly
        # (point stdout at /dev/null so the interpreter's final flush cannot fail)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
