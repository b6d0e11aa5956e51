"""scikit-learn's ``UndefinedMetricWarning`` as an error, without leaking warning
filters.

A replicate on which scikit-learn warns ``UndefinedMetricWarning`` is undefined.
Python's warning filters are one process-wide list, and ``catch_warnings``
restores a snapshot on exit: entered per replicate in joblib's threads, one
thread's restore put back another thread's "error" filter, which stayed installed
after the run.  So the filter is set by one shared, reference-counted
``catch_warnings``: the first holder enters it, the last one leaves it and
restores the filters of before, which also discards filters that other code
(scikit-learn's input checks) left behind in worker threads meanwhile.  The public
entry points hold it in the calling thread for the whole run, so with the
threading backend the workers only count; a worker process holds it per chunk.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from sklearn.exceptions import UndefinedMetricWarning

__all__ = ["undefined_metric_errors", "with_undefined_metric_errors"]

_LOCK = threading.Lock()
_depth = 0
_guard: warnings.catch_warnings | None = None

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextlib.contextmanager
def undefined_metric_errors() -> Iterator[None]:
    """While any thread is inside, UndefinedMetricWarning raises (process-wide)."""
    global _depth, _guard
    with _LOCK:
        if _depth == 0:
            guard = warnings.catch_warnings()
            guard.__enter__()
            warnings.filterwarnings("error", category=UndefinedMetricWarning)
            _guard = guard
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0 and _guard is not None:
                _guard.__exit__(None, None, None)
                _guard = None


def with_undefined_metric_errors(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` (a public entry point) inside :func:`undefined_metric_errors`."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with undefined_metric_errors():
            return func(*args, **kwargs)

    return wrapper
