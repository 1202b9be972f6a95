"""Where the oracle's compiled kernels are cached when its install tree is read-only.

numba keeps a kernel's compiled code beside its source (``oracle/__pycache__``) only where it may
write there; otherwise it looks in a user-wide folder, and compiles again in every process that
finds none. Run as a confined vendor (:mod:`tablecert.harness.confine.sandbox`), the reference vendor's
install tree is read-only and its HOME a new empty folder: every start would compile the hand
kernels again (1.5 s measured on the ``standard`` suite's banker-bonus batches, +14 % of a run).

:func:`use_private_cache`, called before the first kernel module is imported, points numba's
cache (``numba.config.CACHE_DIR``) at ``$XDG_CACHE_HOME/tablecert-numba`` (HOME's ``.cache``) and
copies into it the kernels already compiled in the tree, laid out as numba's user-provided cache
locator looks for them (``<folder name>_<sha1 of the folder's path>``). numba checks each entry
against its source file's stamp, so a stale copy is compiled again, never used. Where the tree is
writable it does nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

HERE = Path(os.path.abspath(os.path.dirname(__file__)))


def use_private_cache() -> Path | None:
    """The private cache folder now in use, or None when the tree's own cache is writable (or a
    cache folder was already chosen)."""
    tree_cache = HERE / "__pycache__"
    if os.access(tree_cache if tree_cache.is_dir() else HERE, os.W_OK):
        return None
    import numba  # lazy: 219 ms of reference-vendor start (bench_startup.py, at rest)

    if numba.config.CACHE_DIR:
        return None
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tablecert-numba"
    target = root / f"{HERE.name}_{hashlib.sha1(str(HERE).encode()).hexdigest()}"
    try:
        target.mkdir(parents=True, exist_ok=True)
        for compiled in sorted(tree_cache.glob("*.nb[ic]")) if tree_cache.is_dir() else []:
            if os.access(compiled, os.R_OK) and not (target / compiled.name).exists():
                shutil.copy2(compiled, target / compiled.name)
    except OSError:
        return None             # no private cache either: numba compiles, as it would have
    numba.config.CACHE_DIR = str(root)
    return root
