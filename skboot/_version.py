"""skboot's release version and the version of its random-stream definition.

Kept in a module that imports nothing, so :mod:`skboot._cache` can name the numba
cache folder before any kernel module is imported.
"""

from __future__ import annotations

__all__ = ["STREAM_VERSION", "__version__"]

__version__ = "0.1.0.dev0"

#: Version of the stream definition (:mod:`skboot._random`) recorded on every
#: result.  Changing the stream in any way is a breaking change and bumps it.
#: Version 2 computes the Bayesian bootstrap's Exp(1) variates with skboot's own
#: ``-log`` (the same bits on every platform and device) instead of the C
#: library's ``log1p``; every other draw is version 1's.
STREAM_VERSION = 2
