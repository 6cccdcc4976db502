"""Triton's own cache key, remembered across processes.

``triton.runtime.cache.triton_key()`` hashes triton's compiler, backend and language sources and
its whole ``libtriton.so`` (about 500 MB) with SHA-256, once per process, before the first kernel
launch finds its cached binary: 0.3 s on a fast host, 1.3 s on a 2.5 GHz Xeon, which was most of a
cached kernel's first call. The key changes only when those files do, so it is kept in
``~/.triton/spine-triton/`` (``TRITON_HOME``) under a fingerprint of the files (paths, sizes,
modification times) and recomputed by triton's own function whenever the fingerprint differs.
It lives outside the kernel cache (``TRITON_CACHE_DIR``) because it is a property of the installed
triton, not of any kernel.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import triton
from triton import knobs

from .compiler import _write_atomically

# What triton_key() reads, relative to the triton package: runtime/cache.py (its own file), the
# modules under these directories, and the extension library.
_HASHED_DIRS = ("compiler", "backends", "language")
_HASHED_FILES = ("runtime/cache.py", "_C/libtriton.so")


def fingerprint(triton_dir: Path) -> str:
    """A digest of the name, size and modification time of every file triton_key() hashes (and
    of a few more it does not: a superset only costs a recomputation)."""
    entries = []
    paths = [triton_dir / name for name in _HASHED_FILES]
    for name in _HASHED_DIRS:
        for root, _, files in os.walk(triton_dir / name):
            paths += [Path(root) / f for f in files if f.endswith(".py")]
    for path in sorted(paths):
        try:
            st = path.stat()
        except OSError:
            continue
        entries.append(f"{path}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
    entries.append(f"triton-{triton.__version__}")
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()


def remembered(store: Path, current_fingerprint: str, compute: Callable[[], str]) -> str:
    """The key stored in `store` under `current_fingerprint`, or `compute()`'s, stored for the
    next process. An unreadable or unwritable store only costs the computation."""
    try:
        saved = json.loads(store.read_text())
        if saved.get("fingerprint") == current_fingerprint and isinstance(saved.get("key"), str):
            return saved["key"]
    except (OSError, ValueError, AttributeError):
        pass
    key = compute()
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        # Processes starting at once never read a torn file.
        _write_atomically(store, json.dumps({"fingerprint": current_fingerprint, "key": key}))
    except OSError:
        pass
    return key


# triton imports this package while its own `triton.runtime` is still initialising: modules are
# reached through importlib and sys.modules, not as attributes of the package.
_cache = importlib.import_module("triton.runtime.cache")
_triton_key = _cache.triton_key


@functools.cache
def triton_key() -> str:
    """Drop-in for triton.runtime.cache.triton_key (same string), computed once per install."""
    triton_dir = Path(_cache.__file__).resolve().parents[1]
    store = Path(knobs.cache.get_triton_dir("spine-triton")) / "triton_key.json"
    return remembered(store, fingerprint(triton_dir), _triton_key)


def install():
    """Point triton's callers at the remembered key. autotuner.py imports the function by name:
    where it has already done so, its module attribute is replaced too (as triton's own compile
    workers do); where it is still importing, it picks up the replacement."""
    _cache.triton_key = triton_key
    autotuner = sys.modules.get("triton.runtime.autotuner")
    if autotuner is not None and hasattr(autotuner, "triton_key"):
        autotuner.triton_key = triton_key
