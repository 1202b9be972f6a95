"""What tablecert writes in the lab's folders (run folders, suite copies, the suite cache) never
follows a link:

* a link where tablecert reads or writes is refused (:func:`refuse_link`, :class:`UnsafeRunFolder`,
  a ``ValueError``: one line, exit status 2); run.db and SQLite's files beside it (``run.db-wal``,
  ``run.db-shm``, ``run.db-journal``) are refused when any of them is a link, before SQLite opens
  them (:func:`check_database_files`: SQLite follows links);
* every file is written under an unpredictable temporary name created exclusively and renamed
  over its final name (:func:`write_atomically`), every folder built under one and swapped in
  (:func:`new_folder`, :func:`replace_folder`), and a folder tablecert made is removed only when
  it is a real folder, never through a link (:func:`remove_our_folder`).

The run folder's own rules (one run at a time, what a run folder may hold) build on these
(:mod:`tablecert.harness.record.run_folder`)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

DATABASE_COMPANIONS = ("", "-wal", "-shm", "-journal")
FILE_MODE = 0o600      # run.db and the files tablecert writes whole: the lab's user's only
FOLDER_MODE = 0o700    # run folders, suites and the suite cache: the lab's user only (they hold answers)


class UnsafeRunFolder(ValueError):
    """A run folder (or a file in it) that tablecert will not write through: a planted link, a
    folder that is not a folder, or a run folder another run is using."""


def refuse_link(path: Path, what: str = "") -> None:
    """Refuse ``path`` when it is a symbolic link (a missing path is fine)."""
    if path.is_symlink():
        raise UnsafeRunFolder(f"{path}: {what or 'this'} is a symbolic link; tablecert does not write or read "
                              "through links in a run folder (remove it)")


def check_database_files(db_path: Path) -> None:
    """Refuse a run database when it, or a SQLite file beside it, is a link."""
    for suffix in DATABASE_COMPANIONS:
        refuse_link(db_path.with_name(db_path.name + suffix), "the run database" if not suffix else "a SQLite file")


def write_atomically(path: Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` all at once: a reader (or a lab's archive) sees the old file or
    the new one, never a part; if writing fails (a full disk) the old file stays and no part is left.
    The bytes go to a new file of an unpredictable name beside ``path`` (created exclusively, never
    through a link), renamed over ``path``: a link at ``path`` is replaced, not followed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), FILE_MODE)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def new_folder(parent: Path, name: str) -> Path:
    """A new, empty folder of an unpredictable name in ``parent`` (to be renamed to ``name``)."""
    path = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent))
    path.chmod(FOLDER_MODE)
    return path


def remove_our_folder(path: Path) -> None:
    """Remove a folder tablecert made (``failures/``, ``suite/``): refused when it is a link or not
    a folder; links inside it are removed, never followed."""
    refuse_link(path, f"{path.name}/")
    if not path.exists():
        return
    if not path.is_dir():
        raise UnsafeRunFolder(f"{path}: expected a folder made by tablecert, found a file")
    if not shutil.rmtree.avoids_symlink_attacks:   # pragma: no cover - every platform tablecert runs on has it
        raise UnsafeRunFolder(f"{path}: this platform cannot remove a folder without following links in it")
    shutil.rmtree(path)


def replace_folder(built: Path, path: Path) -> None:
    """Put the folder ``built`` (made with :func:`new_folder`) in the place of ``path``."""
    remove_our_folder(path)
    os.rename(built, path)
