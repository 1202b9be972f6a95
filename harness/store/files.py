"""run.db's files are opened only when none of them is a link: SQLite follows links, so a link
planted at ``run.db`` or beside it (``run.db-wal``, ``run.db-shm``, ``run.db-journal``) would put
the database elsewhere. The run folder's other safety rules build on these
(:mod:`tablecert.harness.record.run_folder`)."""

from __future__ import annotations

from pathlib import Path

DATABASE_COMPANIONS = ("", "-wal", "-shm", "-journal")
FILE_MODE = 0o600      # run.db and the files tablecert writes whole: the lab's user's only


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
