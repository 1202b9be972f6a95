"""The lab's own folders, which no vendor may reach: run folders, suites, the suite cache, keys and
configuration, wherever the vendor's binds lie.

:func:`protected` gathers them: the folders a run names (its own run folder, suite, key folders:
``SessionOptions.hidden_paths``), tablecert's folders under the lab user's HOME (the suite cache
``$XDG_CACHE_HOME/tablecert``, the keys and settings ``$XDG_CONFIG_HOME/tablecert``, and
``$XDG_STATE_HOME/tablecert``), every run folder this user's tablecert has made (each run adds its
folder to the register :func:`register_run`), and every run folder found below a bound tree
(a folder that holds ``.tablecert.lock`` or ``run.db``, or a suite's ``expected/`` and
``manifest.json``, searched to a
bounded depth and count, links never followed). The sandbox refuses a bind that lies inside one of
them and covers one that lies inside a bind.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path

RUN_MARKERS = (".tablecert.lock", "run.db")          # a run folder holds one of these
SUITE_MARKERS = {"expected", "manifest.json"}       # a suite folder holds both
SCAN_DEPTH = 4          # how deep below a bound tree run folders are looked for
SCAN_ENTRIES = 20_000   # how many entries at most (a tree larger than that is searched in part)
REGISTER_LINES = 10_000


def _xdg(variable: str, default: str) -> Path:
    return Path(os.environ.get(variable) or str(Path.home() / default)) / "tablecert"


def tablecert_homes() -> list[str]:
    """tablecert's own folders of this user: cache, configuration (keys) and state."""
    return [str(_xdg(v, d)) for v, d in (("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config"),
                                          ("XDG_STATE_HOME", ".local/state"))]


def _register() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state") / "runs"


def register_run(folder: Path) -> None:
    """Add a run folder to this user's register of run folders (kept to its last lines)."""
    register = _register()
    try:
        register.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        fd = os.open(register, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return
    with os.fdopen(fd, "r+", encoding="utf-8", errors="replace") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = [line for line in f.read().splitlines() if line]
        path = os.path.realpath(folder)
        if path in lines:
            return
        lines = [*lines, path][-REGISTER_LINES:]
        f.seek(0)
        f.truncate()
        f.write("\n".join(lines) + "\n")


def registered_runs() -> list[str]:
    """The run folders of the register that still exist."""
    try:
        text = _register().read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in dict.fromkeys(text.splitlines()) if line.startswith("/") and os.path.isdir(line)]


def runs_below(trees: Iterable[str]) -> list[str]:
    """Run folders and suites found below ``trees`` (see the module docstring)."""
    found: list[str] = []
    budget = SCAN_ENTRIES
    stack = [(t, 0) for t in trees if os.path.isdir(t) and not os.path.islink(t)]
    while stack and budget > 0:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as entries:
                children, names = [], set()
                for entry in entries:
                    budget -= 1
                    if budget <= 0:
                        break
                    names.add(entry.name)
                    if depth < SCAN_DEPTH and entry.is_dir(follow_symlinks=False):
                        children.append(entry.path)
        except OSError:
            continue
        if names.intersection(RUN_MARKERS) or SUITE_MARKERS <= names:
            found.append(folder)
        else:
            stack += [(c, depth + 1) for c in children]
    return found


def protected(named: Iterable[str], bound: Iterable[str]) -> list[str]:
    """Every lab folder a vendor must not reach, links resolved (see the module docstring)."""
    return sorted({os.path.realpath(p) for p in [*named, *tablecert_homes(), *registered_runs(), *runs_below(bound)]})
