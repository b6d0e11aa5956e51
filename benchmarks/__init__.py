"""Head-to-head benchmarks of skboot against arch, scipy.stats.bootstrap and tsbootstrap.

Run ``python -m benchmarks`` (full) or ``python -m benchmarks --quick``; see
``python -m benchmarks --help`` and ``docs/benchmarks.md``.  This package is not a
test suite: it measures, it does not assert.  Importing it is cheap (no numerical
library is imported here), so the memory and cold-start children stay clean.
"""

__all__: list[str] = []
