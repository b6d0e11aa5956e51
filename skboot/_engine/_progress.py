"""The progress bar of ``progress=True``: tqdm's where tqdm is installed, else a plain
one on stderr.

Only created when the user asks; library code never prints otherwise.  Both show
``skboot: done/total label``, the bar and the percentage, and redraw at most ten
times a second.  ``tqdm.auto`` draws a widget in a notebook (where the plain bar's
carriage returns would print one line per update) and text in a terminal.
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress"]


class Progress:
    """Count ``total`` units of work called ``label``; :meth:`update` adds ``n``.

    The display closes by itself when the count reaches ``total``.
    """

    def __init__(self, total: int, label: str = "replicates") -> None:
        self.total = total
        self.label = label
        self.done = 0
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self._tqdm: Any = None
            self._start = time.monotonic()
            self._last = -1.0
        else:
            self._tqdm = tqdm(
                total=total,
                unit=label,
                bar_format="skboot: {n}/{total} {unit} |{bar}| {percentage:3.0f}% "
                "{elapsed}",
                file=sys.stderr,
            )

    def update(self, n: int) -> None:
        self.done += n
        if self._tqdm is not None:
            self._tqdm.update(n)
            if self.done >= self.total:
                self._tqdm.close()
            return
        now = time.monotonic()
        if now - self._last >= 0.1 or self.done >= self.total:
            self._last = now
            self._draw(now - self._start)

    def _draw(self, elapsed: float, width: int = 30) -> None:
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * round(frac * width)
        sys.stderr.write(
            f"\rskboot: {self.done}/{self.total} {self.label} "
            f"[{bar:<{width}s}] {frac:4.0%} {elapsed:6.1f} s"
        )
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()
