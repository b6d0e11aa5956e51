"""Where numba keeps the compiled code of skboot's kernels: never in the package.

numba's ``cache=True`` writes ``*.nbi`` / ``*.nbc`` files into a ``__pycache__``
folder next to the source file.  For an installed skboot that folder is inside
``site-packages/skboot``, and pip does not know about the files: after an uninstall
they stay behind, and Python then imports the leftover folder as an empty namespace
package (``cannot import name ... from 'skboot' (unknown location)``).  numba also
keys a cached function on its own source file only, so a kernel that inlines a
function of another module (every kernel inlines the stream of
:mod:`skboot._random`) keeps its old machine code when that module changes.

This module registers a cache locator first in numba's list (the hook numba's own
locators use; numba has no per-library setting, numba issue #9350).  It claims only
functions whose source file lies inside this package, and caches them in::

    <base>/<version>-stream<STREAM_VERSION>-<digest>/<subfolder of the source file>

* ``<base>``: the first writable of ``$SKBOOT_CACHE_DIR``; ``$NUMBA_CACHE_DIR/skboot``;
  the per-user cache folder + ``/skboot`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on
  Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows); a private
  ``skboot-<user>`` folder in the temporary directory.  If none is writable, skboot's
  kernels are compiled in every process, without a disk cache.
* ``<digest>``: a hash of every ``.py`` file of the package.  Editing any source
  (the stream above all) therefore gives a fresh folder: stale machine code cannot
  be loaded.  All sources rather than only the numba modules, because a compiled
  kernel freezes the module globals it reads, and those can be imported from any
  module; the cost (about a millisecond per import, measured) and the recompile
  after an edit fall on developers only, as an installed copy never changes.

Folders of other keys are left in place; delete ``<base>`` (the parent of
:func:`cache_dir`) to clear them all.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from numba.core import caching, config

from skboot._version import STREAM_VERSION, __version__

__all__ = ["ENV_VAR", "SkbootCacheLocator", "cache_dir", "source_digest"]

#: Environment variable naming the folder that holds skboot's kernel caches.
ENV_VAR = "SKBOOT_CACHE_DIR"

#: The package folder (symlinks resolved); functions defined below it are ours.
PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))

_UNRESOLVED = object()
_resolved: Any = _UNRESOLVED  # the cache folder (str), or None: no disk cache


def source_digest(package_dir: str | os.PathLike[str] = PACKAGE_DIR) -> str:
    """Hash of every ``.py`` file under ``package_dir`` (names and contents).

    Files are visited in sorted order of their relative path, and each contributes
    its path and length before its bytes, so the digest does not depend on the file
    system's listing order and two different trees cannot collide by concatenation.

    Parameters
    ----------
    package_dir : str or path-like, default=skboot's own folder
        The package folder to hash.

    Returns
    -------
    str
        16 hexadecimal digits (64 bits of SHA-256).
    """
    root = os.fspath(package_dir)
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                files.append((os.path.relpath(path, root).replace(os.sep, "/"), path))
    digest = hashlib.sha256()
    for rel, path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]


def cache_key(package_dir: str | os.PathLike[str] = PACKAGE_DIR) -> str:
    """Name of the cache folder: version, stream version and source digest."""
    return f"{__version__}-stream{STREAM_VERSION}-{source_digest(package_dir)}"


def _user_cache_home() -> str | None:
    """The platform's per-user cache folder, or None when it cannot be named."""
    if sys.platform == "win32":
        home = os.environ.get("LOCALAPPDATA", "")
    elif sys.platform == "darwin":
        home = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        # XDG Base Directory spec: a relative XDG_CACHE_HOME is invalid, ignore it
        home = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(home):
            home = os.path.join(os.path.expanduser("~"), ".cache")
    # expanduser leaves "~" in place when no home folder is known
    return home if os.path.isabs(home) else None


def _private_temp_base() -> str | None:
    """``skboot-<user>`` in the temporary folder, or None when there is none."""
    try:
        tmp = tempfile.gettempdir()
    except OSError:  # FileNotFoundError: no usable temporary directory
        return None
    if hasattr(os, "getuid"):
        return os.path.join(tmp, f"skboot-{os.getuid()}")
    return os.path.join(tmp, "skboot")  # Windows: %TEMP% is already per user


def _candidates() -> list[tuple[str, bool]]:
    """Cache bases in order of preference, each with whether it must be private."""
    bases: list[tuple[str, bool]] = []
    if os.environ.get(ENV_VAR):
        bases.append((os.path.expanduser(os.environ[ENV_VAR]), False))
    numba_dir = getattr(config, "CACHE_DIR", "")
    if numba_dir:
        bases.append((os.path.join(numba_dir, "skboot"), False))
    home = _user_cache_home()
    if home is not None:
        bases.append((os.path.join(home, "skboot"), False))
    temp = _private_temp_base()
    if temp is not None:
        # a shared temporary folder: numba's cache files are pickles, so only a
        # folder that this user owns and nobody else can write to is trusted
        bases.append((temp, True))
    return bases


def _usable(base: str, folder: str, private: bool) -> bool:
    """Create ``base/folder`` if needed and check that this process can write there.

    A ``private`` base must belong to this user and be writable by nobody else.
    """
    try:
        if private:
            os.makedirs(base, mode=0o700, exist_ok=True)
            st = os.stat(base)
            if hasattr(os, "getuid") and (
                st.st_uid != os.getuid() or st.st_mode & 0o022
            ):
                return False
        path = os.path.join(base, folder)
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _resolve() -> str | None:
    """The cache folder of this process (first call decides; then memoized)."""
    global _resolved
    if _resolved is _UNRESOLVED:
        key = cache_key()
        _resolved = None
        for base, private in _candidates():
            base = os.path.abspath(base)
            if _usable(base, key, private):
                _resolved = os.path.join(base, key)
                break
    return _resolved


def cache_dir() -> Path | None:
    """Folder where numba caches skboot's compiled kernels in this process.

    The folder is named by skboot's version, :data:`skboot.STREAM_VERSION` and a
    hash of skboot's source files, so an upgrade or an edited source never loads
    stale machine code.  It lies in the first writable of ``$SKBOOT_CACHE_DIR``,
    ``$NUMBA_CACHE_DIR/skboot``, the per-user cache folder + ``/skboot``
    (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows) and a private ``skboot-<user>`` folder in the
    temporary directory; never inside the installed package.  Folders of other
    versions are not removed: delete ``cache_dir().parent`` to clear them all (the
    next run compiles again, a few seconds).

    Returns
    -------
    pathlib.Path or None
        The folder, or None when no candidate is writable (kernels are then compiled
        in every process).

    See Also
    --------
    cuda_info : The other diagnostic of the compiled code: the GPU in use.

    Examples
    --------
    >>> import skboot
    >>> folder = skboot.cache_dir()
    >>> folder.name.startswith(f"{skboot.__version__}-stream{skboot.STREAM_VERSION}-")
    True
    """
    folder = _resolve()
    return None if folder is None else Path(folder)


def _package_subfolder(py_file: str) -> str | None:
    """``py_file``'s folder relative to the package, or None if it is not ours."""
    try:
        path = os.path.realpath(py_file)
        if os.path.commonpath([path, PACKAGE_DIR]) != PACKAGE_DIR:
            return None
    except ValueError:  # another drive (Windows), or a mix of relative/absolute
        return None
    return os.path.relpath(os.path.dirname(path), PACKAGE_DIR)


class SkbootCacheLocator(caching._CacheLocator):
    """numba cache locator for functions defined in skboot's own source files.

    Registered first in numba's locator list at import; returns None (numba's own
    locators then decide) for any function defined elsewhere.  Without a writable
    cache folder it still claims skboot's functions, so numba never falls back to
    the package's ``__pycache__``; :func:`disable_unwritable` then turns their
    caches off.
    """

    def __init__(self, py_func: Any, cache_path: str | None, stamp: str = "") -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = cache_path
        self._stamp = stamp

    @property
    def enabled(self) -> bool:
        """Whether the functions of this locator have a cache folder."""
        return self._cache_path is not None

    def ensure_cache_path(self) -> None:
        if self._cache_path is None:
            raise OSError("skboot: no writable cache folder; caching is disabled")
        super().ensure_cache_path()

    def get_cache_path(self) -> str:
        # numba needs a path even for a cache it will never read nor write (the
        # nothing-writable case); os.devnull is a file, so nothing lies below it
        return (
            os.path.join(os.devnull, "skboot")
            if self._cache_path is None
            else self._cache_path
        )

    def get_source_stamp(self) -> str:
        # the cache key (digest of every source file), which also names the folder
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> SkbootCacheLocator | None:
        sub = _package_subfolder(py_file)
        if sub is None:
            return None
        folder = _resolve()
        if folder is None:
            return cls(py_func, None)
        path = os.path.normpath(os.path.join(folder, sub))
        return cls(py_func, path, stamp=os.path.basename(folder))


def _cache_impl() -> Any:
    """numba's ``CacheImpl`` class (``_CacheImpl`` before numba 0.60)."""
    return getattr(caching, "CacheImpl", None) or caching._CacheImpl  # type: ignore[attr-defined]


def register() -> bool:
    """Put :class:`SkbootCacheLocator` first in numba's list; True if it is there.

    Idempotent (compares by qualified name, so a reloaded module does not register
    twice).  Returns False if this numba has no such list; the test suite fails
    then, while skboot still imports and numba caches by its own rules.
    """
    locators = getattr(_cache_impl(), "_locator_classes", None)
    if not isinstance(locators, list):
        return False
    name = f"{__name__}.{SkbootCacheLocator.__qualname__}"
    locators[:] = [c for c in locators if f"{c.__module__}.{c.__qualname__}" != name]
    locators.insert(0, SkbootCacheLocator)
    return True


def _disable_module(module: Any) -> int:
    """Turn off the disk cache of ``module``'s kernels that have no cache folder."""
    count = 0
    for obj in list(vars(module).values()):
        cache = getattr(obj, "_cache", None)
        impl = getattr(cache, "_impl", None)
        locator = getattr(impl, "locator", None)
        if isinstance(locator, SkbootCacheLocator) and not locator.enabled:
            cache.disable()  # type: ignore[union-attr]
            count += 1
    return count


class _DisablingLoader(importlib.abc.Loader):
    """A module loader that turns the kernels' disk caches off after running the
    module (every other attribute is the wrapped loader's)."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _disable_module(module)


class _DisablingFinder:
    """Finds skboot's submodules as the path finder does, with a
    :class:`_DisablingLoader`: installed only when no cache folder is writable."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        if not name.startswith("skboot."):
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _DisablingLoader(spec.loader)
        return spec


def disable_unwritable() -> int:
    """Turn off the disk cache of skboot's kernels when no cache folder is writable.

    Called at the end of ``skboot/__init__.py``, before any kernel compiles.  A
    no-op (returns 0) when a cache folder was found; otherwise turns off the
    caches of the kernels already defined, returns how many, and installs an
    import hook that does the same for every skboot module imported later (the
    package loads its modules lazily).
    """
    if _resolve() is not None:
        return 0
    if not any(isinstance(f, _DisablingFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _DisablingFinder())
    return sum(
        _disable_module(module)
        for name, module in list(sys.modules.items())
        if name == "skboot" or name.startswith("skboot.")
    )


register()
