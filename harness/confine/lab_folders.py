"""The lab's own folders, which no vendor may reach: run folders, suites, the suite cache, keys and
configuration, in either direction and at any depth.

A bind is refused (:func:`refusal`) when the bound path

* is or lies inside a lab folder known without a walk (:func:`known`): the folders this run names
  (its run folder, suite, key folders: ``SessionOptions.hidden_paths``), tablecert's folders of
  the lab user (``$XDG_CACHE_HOME/tablecert``, ``$XDG_CONFIG_HOME/tablecert``,
  ``$XDG_STATE_HOME/tablecert``) and every folder in the index of marked folders
  (:mod:`tablecert.vectors.lab_mark`), or holds one of them;
* or any folder above it carries a mark: the file ``.tablecert-lab`` tablecert writes in every
  suite, run folder, cache and key folder (it moves with the folder), or the marks of earlier
  releases (a run folder's ``run.db``, a suite's ``expected/`` beside its
  ``manifest.json``);
* or, for a tree of the vendor's or one the lab names with ``--vendor-path`` (not the system
  folders or the lab's own runtime), holds a mark at any depth, or a unix socket (a host process's
  socket is reached by its path whatever the network namespace), found by a walk that follows no
  link. The rule where the walk cannot finish: a tree of more than :data:`WALK_ENTRIES` entries is
  refused, not guessed (the lab names a smaller folder).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from tablecert.harness.confine.vendor_trees import inside
from tablecert.vectors.lab_mark import MARK, indexed, mark

RUN_MARKERS = (MARK, "run.db")    # a marked folder holds one of these
# (not a run folder's lock ``.tablecert.lock``: pipx keeps a lock of that name beside the environment it
# makes for tablecert, ``venvs/.tablecert.lock``; a run folder that has a lock and no run.db holds nothing)
SUITE_MARKERS = ("expected", "manifest.json")          # a suite of an earlier release holds both
WALK_ENTRIES = 250_000     # the most entries the walk below a vendor's tree reads (a larger tree is refused)


def _xdg(variable: str, default: str) -> Path:
    return Path(os.environ.get(variable) or str(Path.home() / default)) / "tablecert"


def tablecert_homes() -> list[str]:
    """tablecert's own folders of this user: cache, configuration (keys) and state."""
    return [str(_xdg(v, d)) for v, d in (("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config"),
                                          ("XDG_STATE_HOME", ".local/state"))]


def register_run(folder: Path) -> None:
    """Mark a run folder as the lab's (its mark file and the index)."""
    mark(folder, "run")


def known(named: Iterable[str]) -> list[str]:
    """The lab folders known without a walk (see the module docstring), links resolved."""
    return sorted({os.path.realpath(p) for p in [*named, *tablecert_homes(), *indexed()]})


def marked(folder: str) -> bool:
    """Whether ``folder`` carries a lab folder's mark (see the module docstring)."""
    return any(os.path.lexists(os.path.join(folder, name)) for name in RUN_MARKERS) or \
        all(os.path.lexists(os.path.join(folder, name)) for name in SUITE_MARKERS)


def _above(path: str) -> list[str]:
    """``path`` and every folder above it, up to ``/``."""
    found = [path]
    while path != os.path.dirname(path):
        path = os.path.dirname(path)
        found.append(path)
    return found


def _walk(tree: str) -> str | None:
    """What the walk below ``tree`` finds that forbids binding it (see the module docstring)."""
    budget = WALK_ENTRIES
    stack = [tree]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    budget -= 1
                    if budget < 0:
                        return (f"holds more than {WALK_ENTRIES:,} entries, more than tablecert walks to look "
                                "for the lab's folders: name a smaller folder")
                    if entry.name in RUN_MARKERS and folder != tree:
                        return f"holds the lab's folder {folder}"
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif not entry.is_file(follow_symlinks=False) and not entry.is_symlink() and \
                            stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                        return f"holds a unix socket {entry.path}"
        except OSError:
            continue
        if folder != tree and marked(folder):
            return f"holds the lab's folder {folder}"
    return None


def refusal(path: str, lab: list[str], walk: bool) -> str | None:
    """Why ``path`` may not be bound for a vendor (the words after its name), else None. ``lab``:
    :func:`known`; ``walk``: also walk below it (a vendor's or lab-named tree)."""
    for folder in lab:
        if inside(path, [folder]):
            return f"lies inside the lab's folder {folder}"
        if inside(folder, [path]):
            return f"holds the lab's folder {folder}"
    holder = next((folder for folder in _above(path) if os.path.isdir(folder) and marked(folder)), None)
    if holder is not None:
        return f"lies inside the lab's folder {holder}"
    return _walk(path) if walk and os.path.isdir(path) and not os.path.islink(path) else None
