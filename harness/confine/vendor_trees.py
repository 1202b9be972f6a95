"""What a vendor program needs to run: the host folders the sandbox binds in read-only, derived by the
lab's rules from the command line the lab wrote, never chosen by anything the vendor wrote.

The vendor's file system is built from nothing (:mod:`tablecert.harness.confine.sandbox`): besides the
system folders, only what :func:`program_trees` derives here is there, and what the lab names with
``--vendor-path``. :class:`Trees` has two parts:

* **the vendor's tree** (:attr:`Trees.vendor`), from the words of the command line: the program
  (``argv[0]`` found on the lab's ``PATH``, or any word that is an executable file, also inside a
  ``bash -c '...'`` script) brings its install folder *as named* (``PREFIX`` of
  ``PREFIX/bin/PROGRAM``, else its folder); any other word that names an existing file (a script
  given to an interpreter, a settings file) brings its folder. A program inside the system folders
  or the lab's runtime brings nothing more.
* **the lab's runtime** (:attr:`Trees.runtime`), known from this process and not read from any
  file: the Python this harness runs on (``sys.base_prefix``), and, when the program lies in the
  harness's own environment (``sys.prefix``, the README's ``.venv/bin/tablecert reference-vendor``),
  that environment and the folders the harness's own packages are imported from
  (:func:`own_source_trees`).

Nothing a vendor ships is read to find a tree: not a ``#!`` line, a ``.pth`` file, an editable
install's finder, a ``pyvenv.cfg`` or a link's target. A link whose target lies outside the
vendor's tree, the system folders and the runtime is simply not bound. The ``#!`` line of the
program is read only to say, before the start, that it names an interpreter the sandbox will not
have (:func:`unreachable_interpreter`), and ``.pth`` files only for the hint after a failed start
(:func:`named_outside`); both by :func:`read_head`, a bounded prefix of a regular file (never a
FIFO, device or socket).

A tree that would open a shared folder of the host (``/``, ``/tmp``, HOME, ``/home`` ..., or a
folder above one of them) is narrowed to the program's folder, then to the file itself (a regular
file only); nothing under ``/proc``, ``/sys`` or ``/dev`` is ever bound. Nothing of the vendor is
run to find these. Which of them the lab's folders forbid is decided by
:mod:`tablecert.harness.confine.lab_folders`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from tablecert import PACKAGES

# Folders of the host that are never bound as a whole: they hold other users', runs' and
# programs' files (a program found directly in one is bound alone).
SHARED_FOLDERS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/home", "/root", "/run", "/var", "/etc", "/proc", "/sys",
                  "/dev", "/mnt", "/media", "/srv", "/opt", "/usr")
SHEBANG_BYTES = 256
VIRTUAL_FOLDERS = ("/proc", "/sys", "/dev")   # the sandbox has its own: a host path there is never bound


def shared_host_folder(path: str, home: str | None) -> bool:
    """Whether binding ``path`` would open a folder the host shares among users, runs and programs:
    one of :data:`SHARED_FOLDERS`, the lab user's HOME, a folder above HOME, or anything under the
    virtual folders (the sandbox has its own ``/proc``, ``/sys`` and ``/dev``)."""
    path = path.rstrip("/") or "/"
    return (path in SHARED_FOLDERS or inside(path, VIRTUAL_FOLDERS) or
            (home is not None and inside(home, [path])))


def inside(path: str, trees: Iterable[str]) -> bool:
    """True if ``path`` is one of ``trees`` or lies below one."""
    return any(path == t or path.startswith(t.rstrip("/") + "/") for t in trees)


def _narrowed(tree: str, folder: str, file: str, home: str | None) -> str | None:
    """``tree``, else ``folder``, else ``file`` (a regular file only): the widest that opens no
    shared host folder; None when even the file would."""
    for candidate in (tree, folder):
        if not shared_host_folder(candidate, home):
            return candidate
    return file if os.path.isfile(file) and not shared_host_folder(file, home) else None


def read_head(path: str, limit: int) -> bytes | None:
    """The first ``limit`` bytes of ``path`` if it is a regular file, else None. The file is
    opened as a path (``O_PATH``: no open of a FIFO or device ever happens), checked to be regular,
    and only then reopened for reading through that same descriptor; the read is one bounded
    ``read`` of a regular file, which never blocks."""
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(handle)
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


def interpreter(path: str) -> tuple[str, str | None] | None:
    """The interpreter a script's ``#!`` line names and, for ``#!/usr/bin/env NAME``, the name it
    looks up on ``PATH``; None for no ``#!`` line. Read by :func:`read_head` (bounded, regular
    files only); used to tell the lab, never to bind."""
    head = read_head(path, SHEBANG_BYTES)
    if head is None or not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0], (names[0] if os.path.basename(words[0]) == "env" and names else None)


def own_source_trees() -> list[str]:
    """The folders this process imports the harness's own packages from (an editable install's
    sources; inside the environment itself for a regular install)."""
    found: list[str] = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        found += [os.path.realpath(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return outermost(found)


@dataclass(frozen=True)
class Trees:
    """What a command line needs bound (see the module docstring), each list outermost first."""

    vendor: tuple[str, ...]      # the vendor's tree: from the command line's words; walked for lab folders
    runtime: tuple[str, ...]     # the lab's runtime: this harness's Python (and its own environment)

    @property
    def all(self) -> list[str]:
        return outermost([*self.vendor, *self.runtime])


def runtime_trees(system: Iterable[str]) -> list[str]:
    """The Python this harness runs on (its base prefix), unless it lies in ``system``."""
    base = os.path.realpath(sys.base_prefix)
    return [] if inside(base, system) else [base]


def own_environment() -> str | None:
    """The harness's own virtual environment (links resolved), or None when it runs outside one."""
    return os.path.realpath(sys.prefix) if sys.prefix != sys.base_prefix else None


class _Finder:
    def __init__(self, home: str | None, known: list[str]) -> None:
        self.home, self.known = home, known          # known: the system folders and the runtime
        self.trees: dict[str, None] = {}
        self.own_env = False

    def add(self, path: str | None) -> None:
        if path and os.path.exists(path) and not shared_host_folder(path, self.home):
            self.trees.setdefault(path)

    def program(self, path: str) -> None:
        """An executable, as named: its install tree (nothing when it lies in the system folders or
        the runtime). Its links are not followed and its ``#!`` line is not read."""
        named = os.path.abspath(path)
        own = own_environment()
        if own is not None and inside(named, [own]):
            self.own_env = True
            return
        if inside(named, self.known):
            return
        folder = os.path.dirname(named)
        tree = os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder
        self.add(_narrowed(tree, folder, named, self.home))

    def word(self, word: str) -> None:
        if not os.path.isfile(word):
            return
        if os.access(word, os.X_OK):
            self.program(word)
            return
        named = os.path.abspath(word)
        own = own_environment()
        if inside(named, self.known) or (own is not None and inside(named, [own])):
            return
        self.add(_narrowed(os.path.dirname(named), os.path.dirname(named), named, self.home))


PTH_BYTES = 64 << 10


def named_outside(bound: Iterable[str]) -> list[str]:
    """Host folders that the Python trees among ``bound`` name in their ``.pth`` files and editable
    finders and that are not bound: for the one-line hint when such a vendor fails to start (never
    to bind them). Each file is read by :func:`read_head`, only when it lies in its tree."""
    trees = list(bound)
    named: list[str] = []
    for tree in trees:
        for site in sorted(os.path.join(tree, "lib", p, "site-packages") for p in _listing(os.path.join(tree, "lib"))
                           if p.startswith("python3")):
            for name in _listing(site):
                path = os.path.join(site, name)
                if not (name.endswith(".pth") or (name.startswith("__editable__") and name.endswith("finder.py"))) \
                        or not inside(os.path.realpath(path), [tree]):
                    continue
                text = (read_head(path, PTH_BYTES) or b"").decode("utf-8", "replace")
                if name.endswith(".pth"):
                    named += [os.path.join(site, line.strip()) for line in text.splitlines()
                              if line.strip() and not line.startswith(("#", "import"))]
                else:
                    named += re.findall(r"""['"](/[^'"\n]+)['"]""", text)
    return [p for p in outermost(os.path.realpath(n) for n in named)
            if os.path.isdir(p) and not inside(p, trees) and not inside(p, VIRTUAL_FOLDERS)]


def _listing(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def resolve_program(argv0: str, search_path: str) -> str | None:
    """``argv[0]`` as an absolute path (links not resolved: a venv's python finds its pyvenv.cfg),
    except a link from outside the harness's own environment into it (pipx's ``~/.local/bin/
    tablecert``): that one is the lab's own program, started where it lies."""
    found = argv0 if "/" in argv0 else shutil.which(argv0, path=search_path)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        return None
    found, own = os.path.abspath(found), own_environment()
    if own is not None and not inside(found, [own]) and inside(os.path.realpath(found), [own]):
        return os.path.realpath(found)
    return found


def program_trees(argv: list[str], search_path: str, home: str | None, system: Iterable[str]) -> Trees:
    """The host folders (and single files) ``argv`` needs (see the module docstring); ``system``:
    the folders the sandbox binds for every program. ``argv[0]`` must already be resolved."""
    runtime = runtime_trees(system)
    finder = _Finder(home, [*system, *runtime])
    finder.program(argv[0])
    for word in argv[1:]:
        words: Iterable[str] = [word]
        if any(c.isspace() for c in word):         # a script for a shell: its words too
            try:
                words = [word, *shlex.split(word)]
            except ValueError:
                pass
        for each in words:
            finder.word(each if "/" in each or os.path.isfile(each) else
                        (shutil.which(each, path=search_path) or each))
    own = own_environment()
    if finder.own_env and own is not None:
        runtime += [own, *own_source_trees()]
    vendor = [t for t in outermost(finder.trees) if not inside(t, runtime)]
    return Trees(tuple(vendor), tuple(outermost(runtime)))


def unreachable_interpreter(program: str, reachable: Iterable[str], safe_path: str) -> str | None:
    """The interpreter ``program``'s ``#!`` line names when the sandbox would not have it (as named
    or through its links: neither lies in ``reachable``), else None. ``#!/usr/bin/env NAME`` is
    looked up on ``safe_path``, the vendor's own ``PATH``; a relative interpreter from the working
    folder, as the kernel does."""
    named = interpreter(program)
    if named is None:
        return None
    path, looked_up = named
    reachable = list(reachable)
    full = os.path.abspath(path)
    for each in dict.fromkeys((full, os.path.realpath(full))):
        if not inside(each, reachable):
            return each
    if looked_up is not None:
        found = shutil.which(looked_up, path=safe_path)
        if found is not None and not inside(found, reachable):
            return found
    return None


def outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one of them, sorted (parents first)."""
    kept: list[str] = []
    for path in sorted(dict.fromkeys(paths)):
        if not inside(path, kept):
            kept.append(path)
    return kept
