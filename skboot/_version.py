"""skboot's release version and the version of its random-stream definition.

Kept in a module that imports nothing, so :mod:`skboot._cache` can name the numba
cache folder before any kernel module is imported.
"""

from __future__ import annotations

__all__ = ["STREAM_VERSION", "__version__"]

__version__ = "0.1.0.dev0"

#: Version of the stream definition (:mod:`skboot._random`) recorded on every
#: result.  Changing the stream in any way is a breaking change and bumps it.
STREAM_VERSION = 1
