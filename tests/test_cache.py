"""Where numba caches skboot's kernels (skboot._cache).

The cache must never be written inside the package (files pip does not know about
turn an uninstalled skboot into an importable empty namespace package), and its
folder is keyed by a digest of the sources, so an edited stream cannot load old
machine code.  The end-to-end checks run a copy of the package in a child process
with a temporary cache root: two children of about two seconds each (a cold
compile of one fused kernel, then a warm start) and one with no writable folder.
"""

from __future__ import annotations

import json
import os
import pkgutil
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numba
import pytest
from numba.core import caching

import skboot
from skboot import _cache
from skboot._cache import SkbootCacheLocator, cache_key, source_digest

PACKAGE = Path(skboot.__file__).resolve().parent

#: Run by each child: import skboot, run one fused kernel (the Poisson weighted
#: mean), and report numba's cache statistics over every skboot dispatcher.
CHILD = textwrap.dedent(
    """
    import json, sys
    PRELUDE
    import numpy as np
    from numba.core.dispatcher import Dispatcher
    import skboot
    res = skboot.bootstrap(
        np.arange(40.0), "mean",
        resampler=skboot.PoissonBootstrap(32, random_state=3),
    )
    hits = misses = 0
    seen = set()
    for name, module in list(sys.modules.items()):
        if name == "skboot" or name.startswith("skboot."):
            for obj in vars(module).values():
                # numba dispatchers only (a module such as scipy.stats also
                # has a "stats" attribute)
                if isinstance(obj, Dispatcher) and id(obj) not in seen:
                    seen.add(id(obj))
                    hits += sum(obj.stats.cache_hits.values())
                    misses += sum(obj.stats.cache_misses.values())
    folder = getattr(skboot, "cache_dir", lambda: "no cache_dir()")()
    out = {"se": float(res.standard_error), "hits": hits, "misses": misses,
           "cache_dir": str(folder), "file": skboot.__file__}
    EPILOGUE
    print(json.dumps(out))
    """
)

#: Epilogue of the no-writable-folder child: import every submodule, then check
#: that each kernel skboot's locator claimed has its disk cache turned off.
ALL_DISABLED = textwrap.dedent(
    """
    import importlib, pkgutil
    from skboot._cache import SkbootCacheLocator
    for info in pkgutil.walk_packages(skboot.__path__, "skboot."):
        importlib.import_module(info.name)
    out["disabled"] = 0
    for name, module in list(sys.modules.items()):
        if name.startswith("skboot"):
            for obj in vars(module).values():
                impl = getattr(getattr(obj, "_cache", None), "_impl", None)
                if isinstance(getattr(impl, "locator", None), SkbootCacheLocator):
                    assert not obj._cache._enabled, obj
                    out["disabled"] += 1
    """
)


def _copy_package(dest: Path) -> Path:
    """A copy of the package without compiled files, as pip would install it."""
    target = dest / "skboot"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _run_child(
    site: Path, cwd: Path, env: dict[str, str], prelude: str = "", epilogue: str = ""
) -> dict[str, Any]:
    full = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    full.update(env, PYTHONPATH=str(site))
    code = CHILD.replace("PRELUDE", prelude).replace("EPILOGUE", epilogue)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cache_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".nbi", ".nbc"))


def test_kernel_cache_lives_outside_the_package_and_is_reused(tmp_path):
    site = tmp_path / "site"
    package = _copy_package(site)
    root = tmp_path / "cache"
    env = {"SKBOOT_CACHE_DIR": str(root)}

    first = _run_child(site, tmp_path, env)
    assert Path(str(first["file"])).parent == package  # the copy was imported
    assert _cache_files(package) == []  # nothing numba wrote is in the package
    folder = root / cache_key(package)
    assert first["cache_dir"] == str(folder)
    written = _cache_files(root)
    assert written and all(folder in p.parents for p in written)
    assert first["misses"] > 0 and first["hits"] == 0  # a cold start compiles

    mtimes = {p: p.stat().st_mtime_ns for p in written}
    second = _run_child(site, tmp_path, env)
    assert second["hits"] > 0 and second["misses"] == 0  # ... a warm one loads
    assert second["se"] == first["se"]
    assert {p: p.stat().st_mtime_ns for p in _cache_files(root)} == mtimes
    assert _cache_files(package) == []


def test_no_writable_folder_compiles_without_a_cache(tmp_path):
    """Every candidate unwritable (paths below a regular file): kernels compile in
    the process, nothing is written anywhere, and every skboot kernel's disk cache
    is off, including those of modules ``import skboot`` does not load."""
    site = tmp_path / "site"
    package = _copy_package(site)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bad = str(blocker / "below")
    env = {"SKBOOT_CACHE_DIR": bad, "XDG_CACHE_HOME": bad, "HOME": bad}
    prelude = f"import tempfile; tempfile.tempdir = {bad!r}"
    out = _run_child(site, tmp_path, env, prelude, epilogue=ALL_DISABLED)
    assert out["cache_dir"] == "None"
    assert out["misses"] > 0 and out["hits"] == 0
    assert out["disabled"] >= 50
    assert _cache_files(tmp_path) == []
    assert _cache_files(package) == []


def test_key_changes_when_any_source_changes(tmp_path):
    package = _copy_package(tmp_path)
    key = cache_key(package)
    assert key == cache_key(PACKAGE)
    assert key.startswith(f"{skboot.__version__}-stream{skboot.STREAM_VERSION}-")

    stream = package / "_random" / "_core.py"
    original = stream.read_bytes()
    flipped = bytearray(original)
    flipped[len(flipped) // 2] ^= 1  # one bit of one byte in the stream's module
    stream.write_bytes(bytes(flipped))
    assert source_digest(package) != source_digest(PACKAGE)
    stream.write_bytes(original)
    assert source_digest(package) == source_digest(PACKAGE)

    # compiled files and non-sources do not count; a new module in a subfolder does
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.nbi").write_bytes(b"index")
    (package / "resamplers" / "notes.txt").write_text("not a source")
    assert source_digest(package) == source_digest(PACKAGE)
    (package / "resamplers" / "_new.py").write_text("X = 1\n")
    assert source_digest(package) != source_digest(PACKAGE)


def test_locator_is_first_and_claims_every_kernel():
    """Fails if numba renames or stops consulting the hook skboot registers in."""
    impl = _cache._cache_impl()
    assert impl._locator_classes[0] is SkbootCacheLocator
    assert _cache.register() is True  # idempotent: still once, still first
    assert impl._locator_classes.count(SkbootCacheLocator) == 1
    assert impl._locator_classes[0] is SkbootCacheLocator

    folder = skboot.cache_dir()
    assert folder is not None and PACKAGE not in folder.parents
    for info in pkgutil.walk_packages(skboot.__path__, "skboot."):
        __import__(info.name)
    kernels = {
        id(obj): obj
        for name, module in list(sys.modules.items())
        if name == "skboot" or name.startswith("skboot.")
        for obj in vars(module).values()
        if isinstance(obj, numba.core.registry.CPUDispatcher)
    }
    assert len(kernels) >= 50
    for kernel in kernels.values():
        assert isinstance(kernel._cache, caching.FunctionCache), kernel  # cache=True
        locator = kernel._cache._impl.locator
        assert isinstance(locator, SkbootCacheLocator), kernel
        assert locator.get_source_stamp() == folder.name  # the key, in subfolders too
        path = Path(kernel._cache.cache_path)
        assert path == folder or folder in path.parents, kernel
        assert PACKAGE not in path.parents


def test_functions_outside_the_package_are_left_to_numba(tmp_path):
    def f(x):
        return x

    assert SkbootCacheLocator.from_function(f, __file__) is None
    outside = numba.njit(cache=True)(f)
    assert not isinstance(outside._cache._impl.locator, SkbootCacheLocator)


def test_candidate_folders_in_order(monkeypatch, tmp_path):
    monkeypatch.setenv("SKBOOT_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setattr(_cache.config, "CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(_cache.tempfile, "tempdir", str(tmp_path / "tmp"))
    bases = _cache._candidates()
    assert [b for b, _ in bases[:3]] == [
        str(tmp_path / "mine"),
        str(tmp_path / "numba" / "skboot"),
        str(tmp_path / "xdg" / "skboot"),
    ]
    assert bases[3][0].startswith(str(tmp_path / "tmp" / "skboot"))
    assert [private for _, private in bases] == [False, False, False, True]

    # a relative XDG_CACHE_HOME is invalid (XDG spec): ~/.cache instead
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _cache._user_cache_home() == str(tmp_path / "home" / ".cache")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _cache._user_cache_home() == str(tmp_path / "home" / "Library" / "Caches")
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert _cache._user_cache_home() == str(tmp_path / "local")
    monkeypatch.delenv("LOCALAPPDATA")
    assert _cache._user_cache_home() is None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_shared_temporary_folder_must_be_private(tmp_path):
    base = tmp_path / "skboot-shared"
    base.mkdir()
    base.chmod(0o777)  # anyone could plant pickled "machine code" here
    assert not _cache._usable(str(base), "key", private=True)
    base.chmod(0o700)
    assert _cache._usable(str(base), "key", private=True)
    assert stat.S_IMODE(base.stat().st_mode) == 0o700
    assert (base / "key").is_dir()
    (tmp_path / "a-file").write_text("not a folder")
    assert not _cache._usable(str(tmp_path / "a-file" / "x"), "key", private=False)
