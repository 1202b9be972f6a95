"""The run folder is ours alone: nothing tablecert creates, replaces or removes in it follows a link.

A run folder (``OUT``) may have been prepared, or handed over, by someone who wants tablecert to
write elsewhere. So:

* ``OUT`` itself must be a real folder: a symbolic link there is refused (the lab names the real
  folder; links higher up the path are the lab's own business and are left alone);
* every file is written under an unpredictable temporary name created exclusively
  (``tempfile.mkstemp``: ``O_CREAT|O_EXCL|O_NOFOLLOW``) in the folder of its final name and
  renamed over it, so a link planted at the final name is replaced, never followed
  (:func:`write_atomically`);
* the run database and SQLite's files beside it (``run.db-wal``, ``run.db-shm``,
  ``run.db-journal``) are refused when any of them is a link, before SQLite opens them;
* a folder tablecert replaces (``failures/``, ``suite/``) is removed only when it is a real
  folder, never through a link (:func:`remove_our_folder`);
* one run at a time: ``certify`` and ``validate`` hold an exclusive ``flock`` on ``OUT/.tablecert.lock``
  for the whole run, and a second run of the same folder is refused in one line
  (:func:`locked_run_folder`), which also adds the folder to the lab user's register of run
  folders, which no later run's vendor may see (:mod:`tablecert.harness.confine.lab_folders`).

Every refusal is an :class:`UnsafeRunFolder` (a ``ValueError``: one line, exit status 2). The
safe writing (:func:`write_atomically`, :func:`remove_our_folder` ...) and the refusal itself are
:mod:`tablecert.harness.lab_files`'s.
"""

from __future__ import annotations

import fcntl
import os
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tablecert.harness.confine.lab_folders import register_run
from tablecert.harness.lab_files import FOLDER_MODE, UnsafeRunFolder, refuse_link
from tablecert.harness.model import RunMeta
from tablecert.vectors.lab_mark import MARK
from tablecert.harness.store.reader import concluded_meta

LOCK_NAME = ".tablecert.lock"


def prepare_run_folder(out: Path) -> Path:
    """Create ``out`` if needed; refuse it when it is a link or not a folder."""
    refuse_link(out, "the run folder")
    if out.exists() and not out.is_dir():
        raise UnsafeRunFolder(f"{out}: exists and is not a folder; give a new or empty folder for the run")
    if not out.exists():
        out.mkdir(parents=True, mode=FOLDER_MODE)
        out.chmod(FOLDER_MODE)
    if not out.is_dir() or out.is_symlink():
        raise UnsafeRunFolder(f"{out}: not a folder")
    return out


RUN_FOLDER_NAMES = frozenset({"run.db", "run.db-wal", "run.db-shm", "run.db-journal", "summary.json", "junit.xml",
                              "certificate.pdf", "findings.pdf", "summary.json.sig", "summary.json.sig.json",
                              "report.html", "report-vectors", "failures", "suite", "diff.json", "diff.pdf",
                              LOCK_NAME, MARK})
"""What tablecert itself writes into a run folder (and its temporary files, ``.NAME.*.tmp``)."""


def check_new_run_folder(out: Path) -> None:
    """Refuse an ``--out`` that is a file, or a folder that holds something tablecert did not write
    and no run database (an unrelated folder a run would be written into)."""
    if out.exists() and not out.is_dir():
        raise UnsafeRunFolder(f"{out}: exists and is not a folder; give a new or empty folder for the run")
    if not out.is_dir() or (out / "run.db").exists():
        return
    foreign = sorted(p.name for p in out.iterdir()
                     if p.name not in RUN_FOLDER_NAMES and not (p.name.startswith(".") and p.name.endswith(".tmp")))
    if foreign:
        raise UnsafeRunFolder(f"{out}: not empty and not a run folder (it holds {foreign[0]!r}"
                              f"{f' and {len(foreign) - 1:,} more' if len(foreign) > 1 else ''} and no run.db); "
                              "give a new or empty folder for the run")


def concluded_run(out: Path) -> dict[str, object] | None:
    """The verdict (its words and scope), finish time and shard of the run in ``out`` when it concluded (its run
    database says ``state: finished``), else None (no run, or one interrupted or never greeted:
    resumable). Read without writing anything: the database is opened immutable, so no lock,
    journal or WAL file is made and no time stamp changes (a run still being written may read as
    not concluded: it is then refused by its lock, as before)."""
    db_path = out / "run.db"
    if db_path.is_symlink() or not db_path.is_file():
        return None
    meta = concluded_meta(db_path, ("state", "verdict", "verdict_title", "scope", "finished", "shard", "rerun_of"))
    if meta is None:
        return None
    run = RunMeta.of(meta)
    return meta if run.state == "finished" and run.verdict else None


VENDOR_OPTIONS = {"subprocess": "--vendor-cmd", "python": "--vendor-plugin", "http": "--vendor-url"}


def run_command(out: Path) -> str | None:
    """The certify command that started the run in ``out``, as far as its run database's meta says
    (the vendor, the suite, the ops required when not all of the suite's, the run folder), for a
    lab who gave another command on that folder; None when it says too little."""
    db_path = out / "run.db"
    if db_path.is_symlink() or not db_path.is_file():
        return None
    meta = concluded_meta(db_path, ("adapter", "target", "suite", "required_ops", "suite_ops"))
    run = RunMeta.of(meta or {})
    option = VENDOR_OPTIONS.get(str(run.adapter))
    if meta is None or option is None or not run.target or not run.suite:
        return None
    target = run.target
    words = ["tablecert", "certify", option, shlex.join(map(str, target)) if isinstance(target, list) else str(target),
             "--suite", str(run.suite)]
    required = run.required_ops
    if isinstance(required, list) and required and required != run.suite_ops:
        words += ["--require", ",".join(map(str, required))]
    return shlex.join(words + ["--out", str(out)])


@contextmanager
def locked_run_folder(out: Path) -> Iterator[None]:
    """Hold the run folder's lock for the block; a folder another run holds is refused."""
    prepare_run_folder(out)
    lock = out / LOCK_NAME
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if lock.is_symlink():
            refuse_link(lock, "the lock file")
        raise UnsafeRunFolder(f"{lock}: cannot open the run folder's lock: {err.strerror or err}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UnsafeRunFolder(f"{out}: another tablecert run is using this run folder (wait for it to end, "
                                  "or choose another folder)") from None
        register_run(out)           # no later run's vendor may see it (confine/lab_folders.py)
        yield
    finally:
        os.close(fd)


def run_is_live(out: Path) -> bool:
    """Whether a tablecert process holds the run folder's lock now (a run going on). Only tests
    the lock: never creates the lock file."""
    try:
        fd = os.open(out / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False

