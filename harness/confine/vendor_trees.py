"""What a vendor program needs to run: the folders the sandbox binds in read-only, found from its command line.

The vendor's file system is built from nothing (:mod:`tablecert.harness.confine.sandbox`): besides the
system folders, only what :func:`program_trees` finds here is there, and what the lab names with
``--vendor-path``. From the command line:

* every word that names a program (``argv[0]`` found on the lab's ``PATH``, or any word that is an
  executable file, also inside a ``bash -c '...'`` script): its install tree (``PREFIX`` of
  ``PREFIX/bin/PROGRAM``, else its folder), both as named and with links resolved; for a script,
  the same for its interpreter (``#!`` line, through ``/usr/bin/env``);
* every other word that names an existing file (a script given to an interpreter, a settings
  file): its folder;
* of a Python tree (a virtual environment's ``pyvenv.cfg``, a ``lib/python3.*/site-packages``):
  the base interpreter's prefix and what the site folder's ``.pth`` files add (path lines, and the
  package folders of a setuptools editable install, read as data from its finder module).

A tree that would open a shared folder of the host (``/``, ``/tmp``, HOME, ``/home`` ...) is
narrowed to the folder, then to the file itself. Nothing of the vendor is run to find these.
"""

from __future__ import annotations

import ast
import os
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

# Folders of the host that are never bound as a whole: they hold other users', runs' and
# programs' files (a program found directly in one is bound alone).
SHARED_FOLDERS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/home", "/root", "/run", "/var", "/etc", "/proc", "/sys",
                  "/dev", "/mnt", "/media", "/srv", "/opt", "/usr")
SHEBANG_BYTES = 256


def _shared(path: str, home: str | None) -> bool:
    return path in SHARED_FOLDERS or (home is not None and path == home)


def _narrowed(tree: str, folder: str, file: str, home: str | None) -> str:
    """``tree``, else ``folder``, else ``file``: the widest that opens no shared host folder."""
    for candidate in (tree, folder):
        if not _shared(candidate, home):
            return candidate
    return file


def _interpreter(path: str, search_path: str) -> list[str]:
    """The program named on a script's ``#!`` line (through ``env``), or nothing."""
    try:
        with open(path, "rb") as f:
            head = f.read(SHEBANG_BYTES)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return []
    if os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        found = shutil.which(names[0], path=search_path) if names else None
        return [words[0], *([found] if found else [])]
    return [words[0]]


def _python_trees(tree: Path) -> list[str]:
    """A Python tree's base interpreter and the folders its ``.pth`` files add."""
    found: list[str] = []
    config = tree / "pyvenv.cfg"
    if config.is_file():
        for line in config.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                home = Path(value.strip())
                found += [str(home.parent if home.name == "bin" else home)]
                found += [str(Path(os.path.realpath(home)).parent)]
    for site in tree.glob("lib/python3*/site-packages"):
        for pth in sorted(site.glob("*.pth")):
            for line in pth.read_text(errors="replace").splitlines():
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")) and (site / line).is_dir():
                    found.append(os.path.realpath(site / line))
        for finder in sorted(site.glob("__editable__*finder.py")):
            found += _editable_mapping(finder)
    return found


def _editable_mapping(finder: Path) -> list[str]:
    """The package folders of a setuptools editable install (its finder's ``MAPPING`` literal)."""
    try:
        module = ast.parse(finder.read_text(errors="replace"))
    except (SyntaxError, ValueError):
        return []
    for node in module.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == "MAPPING" and node.value is not None:
            try:
                mapping = ast.literal_eval(node.value)
            except ValueError:
                return []
            return [str(v) for v in mapping.values() if isinstance(v, str) and os.path.isdir(v)] \
                if isinstance(mapping, dict) else []
    return []


class _Finder:
    def __init__(self, search_path: str, home: str | None) -> None:
        self.search_path, self.home = search_path, home
        self.trees: dict[str, None] = {}
        self.seen: set[str] = set()

    def add(self, path: str) -> None:
        if path and os.path.exists(path):
            self.trees.setdefault(path)

    def program(self, path: str) -> None:
        """An executable: its install tree (as named and resolved), its interpreter, its Python trees."""
        for named in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            if named in self.seen:
                continue
            self.seen.add(named)
            folder = os.path.dirname(named)
            tree = os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder
            chosen = _narrowed(tree, folder, named, self.home)
            self.add(chosen)
            if os.path.isdir(chosen):
                for extra in _python_trees(Path(chosen)):
                    self.tree(extra)
            for interpreter in _interpreter(named, self.search_path):
                self.program(interpreter)

    def tree(self, path: str) -> None:
        """A folder found in a Python tree: itself (and, if a prefix, its own Python trees)."""
        real = os.path.realpath(path)
        if real in self.seen or not os.path.isdir(real) or _shared(real, self.home):
            return
        self.seen.add(real)
        self.add(real)
        for extra in _python_trees(Path(real)):
            self.tree(extra)

    def word(self, word: str) -> None:
        if os.path.isfile(word):
            if os.access(word, os.X_OK):
                self.program(word)
            else:
                named = os.path.abspath(word)
                self.add(_narrowed(os.path.dirname(named), os.path.dirname(named), named, self.home))


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
    return outermost(finder.trees)


def outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one of them, sorted (parents first)."""
    kept: list[str] = []
    for path in sorted(dict.fromkeys(paths)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept
