"""The mark tablecert leaves on every folder of the lab's that a vendor must never see, and the
index of the folders it marked.

A folder that holds expected answers, run records or keys (a suite written by ``vectors generate``
or a run, a run folder, the suite cache, a key folder) carries the file :data:`MARK`; the folder's
real path is also added to this user's index (``$XDG_STATE_HOME/tablecert/marked``, kept to its last
:data:`INDEX_LINES` lines). The mark moves with the folder (a run folder the lab moves stays
marked); the index finds a marked folder where no walk reaches it. The vendor's sandbox
(``tablecert.harness.confine``) refuses to bind a folder that has a mark, lies below one, or holds
one at any depth.

This module is at the bottom of the layers that write such folders (the suites are written here,
in ``tablecert.vectors``); it only writes the mark and reads the index, it decides nothing.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

MARK = ".tablecert-lab"
INDEX_LINES = 10_000
KINDS = ("suite", "run", "cache", "keys", "state")


def _state_home() -> Path:
    return Path(os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")) / "tablecert"


def index_path() -> Path:
    """This user's index of marked folders."""
    return _state_home() / "marked"


def mark(folder: Path, kind: str) -> None:
    """Mark ``folder`` (which exists) as the lab's: the mark file in it, its real path in the index.
    A folder that cannot take the mark (read-only, gone) is left as it is: the index and the
    sandbox's other rules still hold."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of lab folder {kind!r}")
    try:
        fd = os.open(folder / MARK, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"tablecert lab folder: {kind}\n"
                    "A vendor's sandbox never binds this folder, a folder inside it, or a folder that holds it.\n")
    except OSError:
        pass
    _index(os.path.realpath(folder))


def _index(path: str) -> None:
    index = index_path()
    try:
        index.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        fd = os.open(index, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return
    with os.fdopen(fd, "r+", encoding="utf-8", errors="replace") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = [line for line in f.read().splitlines() if line]
        if path in lines:
            return
        lines = [*lines, path][-INDEX_LINES:]
        f.seek(0)
        f.truncate()
        f.write("\n".join(lines) + "\n")


def indexed() -> list[str]:
    """The marked folders of the index that still exist (the index of run folders of earlier
    releases, ``$XDG_STATE_HOME/tablecert/runs``, read too)."""
    found: list[str] = []
    for name in ("marked", "runs"):
        try:
            text = (_state_home() / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found += [line for line in text.splitlines() if line.startswith("/") and os.path.isdir(line)]
    return list(dict.fromkeys(found))


def close_expected(folder: Path) -> None:
    """The expected view of a suite written in ``folder``: readable by the lab's user only (folders
    0700, files 0600), so a vendor running as another user (as root, its own box user) cannot read
    an answer even where one were bound."""
    expected = folder / "expected"
    if not expected.is_dir() or expected.is_symlink():
        return
    for path, dirs, files in os.walk(expected):
        os.chmod(path, 0o700)
        for name in files:
            full = os.path.join(path, name)
            if not os.path.islink(full):
                os.chmod(full, 0o600)
