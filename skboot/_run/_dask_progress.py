"""``progress=True`` for a data-parallel run: dask's own diagnostics.

With a distributed ``Client`` active (the default client of this process),
the graph is submitted as futures and :func:`distributed.progress` shows
their progress (a text bar in a terminal, a widget in a notebook); with the
local schedulers (threads, processes, synchronous),
:class:`dask.diagnostics.ProgressBar` reports on stdout.  Without
``progress`` this is ``dask.compute``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["active_client", "dask_compute"]


def active_client() -> Any:
    """The distributed ``Client`` this process uses by default, or None
    (distributed not installed, or no client started)."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:  # no client
        return None


def dask_compute(*graphs: Any, progress: bool = False) -> tuple[Any, ...]:
    """``dask.compute(*graphs)``, with dask's progress display when
    ``progress``."""
    import dask

    if not progress:
        return tuple(dask.compute(*graphs))
    client = active_client()
    if client is not None:
        from distributed import progress as show

        futures = client.compute(list(graphs))
        show(futures)
        return tuple(client.gather(futures))
    from dask.diagnostics import ProgressBar

    with ProgressBar():
        return tuple(dask.compute(*graphs))
