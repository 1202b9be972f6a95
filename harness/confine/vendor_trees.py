"""What a vendor program needs to run: the folders the sandbox binds in read-only, derived by the lab's
rules from the command line, never chosen by what the vendor wrote.

The vendor's file system is built from nothing (:mod:`tablecert.harness.confine.sandbox`): besides the
system folders, only what :func:`program_trees` derives here is there, and what the lab names with
``--vendor-path``. From the command line:

* every word that names a program (``argv[0]`` found on the lab's ``PATH``, or any word that is an
  executable file, also inside a ``bash -c '...'`` script): its install tree (``PREFIX`` of
  ``PREFIX/bin/PROGRAM``, else its folder), both as named and with links resolved (so a venv's
  ``bin/python`` brings the interpreter's own prefix); for a script, the same for its interpreter
  (``#!`` line, through ``/usr/bin/env``);
* every other word that names an existing file (a script given to an interpreter, a settings
  file): its folder;
* when the program runs in the harness's own environment (``sys.prefix``, the README's
  ``.venv/bin/tablecert reference-vendor``): the folders the harness's own packages are imported
  from (:func:`own_source_trees`, known from this process, not read from any file).

Nothing else is read to find a tree: not a ``.pth`` file, an editable install's finder or a
``pyvenv.cfg`` (each may name any host folder). A vendor that needs such a folder fails to start,
and the lab names it with ``--vendor-path``. What is read is read by :func:`read_head`: a bounded
prefix of a regular file (never a FIFO, device or socket), and only of files inside the trees
already derived (a link out of its tree is followed to bind its target's tree, never read).

A tree that would open a shared folder of the host (``/``, ``/tmp``, HOME, ``/home`` ...) is
narrowed to the folder, then to the file itself; nothing under ``/proc``, ``/sys`` or ``/dev`` is
ever bound (a word ``/proc/1/cmdline`` would have shown the host's first process). Nothing of the vendor is run to find these.
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

from tablecert import PACKAGES

# Folders of the host that are never bound as a whole: they hold other users', runs' and
# programs' files (a program found directly in one is bound alone).
SHARED_FOLDERS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/home", "/root", "/run", "/var", "/etc", "/proc", "/sys",
                  "/dev", "/mnt", "/media", "/srv", "/opt", "/usr")
SHEBANG_BYTES = 256
VIRTUAL_FOLDERS = ("/proc", "/sys", "/dev")   # the sandbox has its own: a host path there is never bound


def _shared(path: str, home: str | None) -> bool:
    return path in SHARED_FOLDERS or (home is not None and path == home)


def inside(path: str, trees: Iterable[str]) -> bool:
    """True if ``path`` is one of ``trees`` or lies below one."""
    return any(path == t or path.startswith(t.rstrip("/") + "/") for t in trees)


def _narrowed(tree: str, folder: str, file: str, home: str | None) -> str:
    """``tree``, else ``folder``, else ``file``: the widest that opens no shared host folder."""
    for candidate in (tree, folder):
        if not _shared(candidate, home):
            return candidate
    return file


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


def _interpreter(path: str, search_path: str) -> list[str]:
    """The program named on a script's ``#!`` line (through ``env``), or nothing."""
    head = read_head(path, SHEBANG_BYTES)
    if head is None or not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return []
    if os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        found = shutil.which(names[0], path=search_path) if names else None
        return [words[0], *([found] if found else [])]
    return [words[0]]


def own_source_trees() -> list[str]:
    """The folders this process imports the harness's own packages from (an editable install's
    sources; inside the environment itself for a regular install)."""
    found: list[str] = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        found += [os.path.realpath(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return outermost(found)


class _Finder:
    def __init__(self, search_path: str, home: str | None) -> None:
        self.search_path, self.home = search_path, home
        self.trees: dict[str, None] = {}
        self.seen: set[str] = set()
        self.read: set[str] = set()

    def add(self, path: str) -> None:
        if path and os.path.exists(path) and not inside(path, VIRTUAL_FOLDERS):
            self.trees.setdefault(path)

    def program(self, path: str) -> None:
        """An executable: its install tree (as named and resolved), and its interpreter when the
        file lies in its tree as named (a link out of that tree is followed, never read)."""
        trees = []
        for named in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            folder = os.path.dirname(named)
            tree = os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder
            trees.append(_narrowed(tree, folder, named, self.home))
            if named not in self.seen:
                self.seen.add(named)
                self.add(trees[-1])
        real = os.path.realpath(path)
        if inside(real, trees[:1]) and real not in self.read:
            self.read.add(real)
            for interpreter in _interpreter(real, self.search_path):
                self.program(interpreter)

    def word(self, word: str) -> None:
        if os.path.isfile(word):
            if os.access(word, os.X_OK):
                self.program(word)
            else:
                named = os.path.abspath(word)
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
    """``argv[0]`` as an absolute path (links not resolved: a venv's python finds its pyvenv.cfg)."""
    found = argv0 if "/" in argv0 else shutil.which(argv0, path=search_path)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        return None
    return os.path.abspath(found)


def program_trees(argv: list[str], search_path: str, home: str | None) -> list[str]:
    """The folders (and single files) of the host that ``argv`` needs, parents before children,
    none inside another (see the module docstring). ``argv[0]`` must already be resolved."""
    finder = _Finder(search_path, home)
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
    own_env = os.path.realpath(sys.prefix)
    if sys.prefix != sys.base_prefix and own_env in finder.trees:
        for tree in own_source_trees():
            finder.add(tree)
    return outermost(finder.trees)


def outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one of them, sorted (parents first)."""
    kept: list[str] = []
    for path in sorted(dict.fromkeys(paths)):
        if not inside(path, kept):
            kept.append(path)
    return kept
