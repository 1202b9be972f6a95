"""A user of its own for each run's vendors, as contest judges give each box its own uid.

As root, a confined vendor must not share its uid with any other run's vendor: ``RLIMIT_NPROC``
counts every process of a uid, so one run's vendor holding its process limit would make another
run's correct vendor fail to start a thread; and two runs' vendors of one uid could signal or
``ptrace`` each other's processes where their namespaces meet. So each tablecert process that
confines vendors as root takes one *box*: a uid and gid from a range reserved for vendors
(:data:`FIRST_UID` to ``FIRST_UID + BOXES - 1``, skipping any the host's ``passwd`` or ``group``
already names), held by an exclusive ``flock`` on ``/run/tablecert/box-N.lock`` for as long as the
process lives (the kernel releases it when the process ends, however it ends). Every vendor
instance of that process (restarts, worker threads) runs as the box's uid; a Ray actor is a
process of its own and takes a box of its own.

Not root, there is no second uid to give (an unprivileged user namespace maps only the lab's own
uid): the vendor keeps the lab user's uid outside its namespace, and only what the sandbox binds
is there for it (:mod:`tablecert.harness.confine.sandbox`).
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import threading
from dataclasses import dataclass

FIRST_UID = 61000
BOXES = 1000
LOCK_FOLDER = "/run/tablecert"


@dataclass(frozen=True)
class Box:
    """The uid and gid this process's vendors run as, and the box's number."""

    number: int
    uid: int
    gid: int


_held: dict[str, object] = {}
_lock = threading.Lock()


def _unnamed(uid: int) -> bool:
    """True if the host names neither a user with this uid nor a group with this gid."""
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return False
        except KeyError:
            pass
    return True


def this_process_box(folder: str = LOCK_FOLDER) -> Box:
    """The box of this process, taken on first use (root only): OSError when every box is held."""
    with _lock:
        held = _held.get(folder)
        if isinstance(held, Box) and _held.get(folder + ":pid") == os.getpid():
            return held
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for number in range(BOXES):
            uid = FIRST_UID + number
            if not _unnamed(uid):
                continue
            fd = os.open(os.path.join(folder, f"box-{number}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
                         | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            box = Box(number, uid, uid)
            _held.update({folder: box, folder + ":fd": fd, folder + ":pid": os.getpid()})
            return box
        raise OSError(f"all {BOXES} vendor boxes (uids {FIRST_UID}-{FIRST_UID + BOXES - 1}) are held by other runs")
