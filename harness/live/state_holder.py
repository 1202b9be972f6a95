"""A live vendor's ``state_dir`` as a file system of its own for a lab that does not run as root.

Nothing can be mounted on the host by an unprivileged user, and a tmpfs made inside the vendor's
own sandbox dies with each killed instance. So the harness starts a **holder**, once per run: a
small process (this file, run as ``python -I -S state_holder.py STATE BYTES INODES``) that leaves
for a user namespace of its own, in which the lab's uid and gid are mapped to themselves and
nothing else, with a mount namespace of its own (every mount private to it), mounts a tmpfs of
``BYTES`` and ``INODES`` (mode 0700, no device files or set-uid programs, owned by the lab's uid)
on ``STATE``, says ``ready`` on its stdout and then waits for the end of its stdin: it lives for
the run and dies with the harness (the pipe's other end closes with it, whatever kills it), and
the file system dies with it. Each vendor start enters that user and mount namespace first
(``setns`` between fork and exec: :attr:`~tablecert.harness.contract.SessionOptions.state_holder`),
so bubblewrap builds the sandbox from that view and the vendor's writable ``state_dir`` is the
tmpfs, the same one across every restart; the vendor keeps the lab's uid (exec drops the
capabilities the namespace gave) and sees nothing else that the sandbox would not show it. The
harness reads the state through ``/proc/HOLDER/root/STATE`` (:func:`~tablecert.harness.adapters.live_session.state_view`); on the host the
folder stays empty. The kernel refuses the write that would cross the limit (``ENOSPC``).

Root keeps its own route (a tmpfs mounted on the host: :mod:`tablecert.harness.live.instance`),
which needs no namespace and lets the vendor's box uid own the file system.
"""

from __future__ import annotations

import ctypes
import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000           # <sched.h>
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 0x4000, 0x40000   # <sys/mount.h>
READY = b"ready\n"
ENDED_GRACE = 10.0          # seconds the holder is given to end once its pipe is closed (it then is killed)


def _hold(state: str, size: int, inodes: int) -> None:
    """The holder itself (see the module docstring): exits with one line on stderr when the kernel
    refuses a step."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()

    def check(done: int, what: str) -> None:
        if done != 0:
            sys.exit(f"state holder: {what}: {os.strerror(ctypes.get_errno())}")

    check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "a user and mount namespace of its own")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w", encoding="ascii") as f:
            f.write(text)
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "its mounts private")
    options = f"size={size},nr_inodes={inodes},mode=0700".encode()
    check(libc.mount(b"tablecert-state", os.fsencode(state), b"tmpfs", MS_NOSUID | MS_NODEV, options),
          f"a tmpfs on {state}")
    os.write(1, READY)
    while os.read(0, 4096):
        pass


def _start(state: str, size: int, inodes: int) -> subprocess.Popen[bytes]:
    """The holder started and ready (OSError naming why not: the kernel or its settings refused)."""
    holder = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), state, str(size), str(inodes)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/",
                              close_fds=True)
    assert holder.stdout is not None and holder.stderr is not None
    if holder.stdout.readline() != READY:
        try:
            _, said = holder.communicate(timeout=ENDED_GRACE)
        except subprocess.TimeoutExpired:
            holder.kill()
            _, said = holder.communicate()
        why = said.decode("utf-8", "replace").strip().splitlines()
        raise OSError(f"cannot hold the state_dir's file system on {state}: {why[-1] if why else 'no answer'}")
    return holder


def _end(holder: subprocess.Popen[bytes]) -> None:
    """The holder ended (its stdin closed; killed if it does not end) and reaped: its file system is gone."""
    try:
        holder.communicate(timeout=ENDED_GRACE)
    except subprocess.TimeoutExpired:
        holder.kill()
        holder.communicate()


@functools.lru_cache(maxsize=1)
def state_holds() -> bool:
    """Whether a holder can be started here (tried once per process, on an empty folder of its own):
    never as root (root mounts on the host), and not where the kernel refuses user namespaces."""
    if os.geteuid() == 0:
        return False
    probe = tempfile.mkdtemp(prefix=".tablecert-hold-probe-")
    try:
        _end(_start(probe, 1 << 20, 256))
    except OSError:
        return False
    else:
        return True
    finally:
        os.rmdir(probe)


@contextmanager
def held_state(state: str, size: int, inodes: int) -> Iterator[int]:
    """A holder of a tmpfs of ``size`` bytes and ``inodes`` inodes on ``state`` (a path without
    links): its process id while the context lasts; ended (the file system with it) at the end."""
    holder = _start(state, size, inodes)
    try:
        yield holder.pid
    finally:
        _end(holder)


if __name__ == "__main__":
    _hold(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
