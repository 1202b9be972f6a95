"""A run's ``state_dir``: the folder a live vendor keeps its tables in, made, sized and removed.

The vendor instance that plays the live tables is the run's common one
(:class:`~tablecert.harness.instance.vendor_instance.VendorInstance`, over an adapter's
:class:`~tablecert.harness.contract.Cuttable` sessions: the subprocess adapter's is
:class:`~tablecert.harness.adapters.subprocess_adapter.LiveSession`); this module holds the folder.

:func:`vendor_state_dir` makes the ``state_dir`` of a run: a fresh folder, 0700, owned by the
user the vendor runs as (its box's uid under the sandbox as root), inside a 0700 folder of the
lab's (so no other user of the host reaches it), bound writable into the vendor's sandbox
(``SessionOptions.writable_paths``), kept across restarts and removed at the end whatever the
vendor left in it (folders of mode 000, links, chains of any depth: :func:`remove_state`, no
recursion). Its size is the lab's (``SessionOptions.max_state_mb``, ``--max-state-mb``), and the
folder is a tmpfs of that size, the same file system across every restart: the kernel refuses the
write that would cross the limit, and a vendor whose file system is full is a ``state_limit``
fault whatever it does next. As root the tmpfs is mounted on the host before the vendor's first
start (:func:`_mount_state`, unmounted at the end). Not root nothing can be mounted on the host (and
a tmpfs in the sandbox's own mount namespace would die with each killed instance): a holder
process mounts it in a user and mount namespace of the lab's own, which every start of the vendor
enters (:func:`state_holder`, :mod:`~tablecert.harness.live.state_holder`; the harness reads it
through ``/proc/HOLDER/root``, :func:`~tablecert.harness.adapters.live_session.state_view`; the
holder's end is its removal). Root's route stays its own: it needs no namespace, the file system
is owned by the vendor's box uid, and root's sandbox (setpriv to the box uid, control groups) is
built in the host's namespaces. Only where neither can be had (root without CAP_SYS_ADMIN, no user
namespaces) is the folder measured after every answer (a walk that follows no link and stops at
the limit), a vendor over it then a ``state_limit`` fault (both checks are the session's:
:mod:`tablecert.harness.adapters.live_session`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tablecert.harness.confine.sandbox import MIB
from tablecert.harness.live.state_holder import held_state, state_holds

STATE_PREFIX = ".live-state-"
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2          # <sys/mount.h>
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _open_to_lab(name: str, parent: int) -> None:
    """Mode 0700 on the folder ``name`` in the open folder ``parent``, never following a link (the
    folder pinned by an ``O_PATH`` descriptor, changed through ``/proc/self/fd``)."""
    pinned = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent)
    try:
        os.chmod(f"/proc/self/fd/{pinned}", 0o700)
    finally:
        os.close(pinned)


def remove_state(folder: str) -> None:
    """Remove ``folder`` whatever the vendor left in it, at any depth, with no recursion and two
    open folders at most: each folder met is opened to the lab's user first (the vendor may have
    shut it, mode 000), its files and links removed (a link is never followed), and its subfolders
    moved up into ``folder`` itself before it is removed, so no path is ever longer than two names
    below ``folder`` (a chain of 1,500 folders, or one deeper than ``PATH_MAX``, is a queue of
    1,500 folders). Raises OSError naming what could not be removed (after trying everything)."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return
    os.chmod(folder, 0o700)
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    failed: list[str] = []
    moved = 0
    try:
        queue = [entry.name for entry in os.scandir(top)]
        while queue:
            name = queue.pop()
            try:
                if not stat.S_ISDIR(os.stat(name, dir_fd=top, follow_symlinks=False).st_mode):
                    os.unlink(name, dir_fd=top)
                    continue
                _open_to_lab(name, top)
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=top)
                try:
                    with os.scandir(inner) as entries:
                        children = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
                    for child, is_dir in children:
                        if not is_dir:
                            os.unlink(child, dir_fd=inner)
                            continue
                        _open_to_lab(child, inner)       # (moving a folder rewrites its "..")
                        while os.path.lexists(os.path.join(folder, f".up-{moved}")):
                            moved += 1
                        os.rename(child, f".up-{moved}", src_dir_fd=inner, dst_dir_fd=top)
                        queue.append(f".up-{moved}")
                finally:
                    os.close(inner)
                os.rmdir(name, dir_fd=top)
            except OSError as err:
                failed.append(f"{name}: {err.strerror or err}")
    finally:
        os.close(top)
    try:
        os.rmdir(folder)
    except OSError as err:
        failed.append(f"{folder}: {err.strerror or err}")
    if failed:
        raise OSError(f"{folder}: could not remove all the vendor's state_dir left ({len(failed):,} entries: "
                      f"first {failed[0]})")


def _mount_state(state: str, limit_mb: int, owner: tuple[int, int] | None) -> None:
    """Mount a file system of ``limit_mb`` MiB on ``state`` (root only): a tmpfs of that size and one
    inode per 4 KiB of it, mode 0700, owned by ``owner``, no device files or set-uid programs. The
    kernel refuses the write that would cross it (ENOSPC); it lives on the host, so it is the same
    file system across every restart of the vendor."""
    uid, gid = owner if owner is not None else (os.getuid(), os.getgid())
    options = f"size={limit_mb * MIB},nr_inodes={limit_mb * 256},mode=0700,uid={uid},gid={gid}"
    if _LIBC.mount(b"tablecert-state", os.fsencode(state), b"tmpfs", MS_NOSUID | MS_NODEV,
                   options.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot mount the state_dir's file system on {state}: {os.strerror(err)}")


def _unmount_state(state: str) -> None:
    """Detach the file system :func:`_mount_state` put on ``state`` (its contents go with it)."""
    if os.path.ismount(state) and _LIBC.umount2(os.fsencode(state), MNT_DETACH) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot unmount the state_dir's file system on {state}: {os.strerror(err)}")


@functools.lru_cache(maxsize=1)
def state_mounts() -> bool:
    """Whether a run's ``state_dir`` is a file system of its own, of ``--max-state-mb``, rather
    than a folder measured after each answer: as root where a tmpfs can be mounted (tried once per
    process on an empty folder of its own; root without CAP_SYS_ADMIN, in a container, cannot),
    never for an unprivileged user."""
    if os.geteuid() != 0:
        return False
    probe = tempfile.mkdtemp(prefix=".tablecert-mount-probe-")
    try:
        _mount_state(probe, 1, None)
    except OSError:
        return False
    else:
        _unmount_state(probe)
        return True
    finally:
        os.rmdir(probe)


@contextmanager
def vendor_state_dir(base: Path, owner: tuple[int, int] | None, limit_mb: int | None = None) -> Iterator[str]:
    """A fresh ``state_dir`` in a new 0700 folder under ``base`` (removed at the end, whatever
    happens); as root with a ``limit_mb``, a file system of that size (:func:`_mount_state`)."""
    parent = tempfile.mkdtemp(prefix=STATE_PREFIX, dir=base)
    state = os.path.join(parent, "state")
    try:
        os.mkdir(state, 0o700)
        if owner is not None:
            os.chown(state, *owner)
        if limit_mb is not None and state_mounts():
            _mount_state(state, limit_mb, owner)
        yield state
    finally:
        try:
            _unmount_state(state)
        finally:
            remove_state(parent)


def remove_stale_state(base: Path) -> int:
    """Remove the state folders an earlier invocation of this run left in ``base`` (killed before
    it could remove its own, its file system still mounted; the run folder's lock says no other
    run uses them): how many were removed (one that cannot be is left, and the run goes on)."""
    stale = [p for p in base.glob(STATE_PREFIX + "*") if p.is_dir() and not p.is_symlink()]
    removed = 0
    for folder in stale:
        try:                     # as well as it can: the run goes on either way
            _unmount_state(str(folder / "state"))
            remove_state(str(folder))
            removed += 1
        except OSError:
            continue
    return removed


@contextmanager
def state_holder(state: str, limit_mb: int | None) -> Iterator[int | None]:
    """Not root, with a ``limit_mb``: the holder of a tmpfs of that size on ``state``
    (:mod:`~tablecert.harness.live.state_holder`; the same inodes per MiB as :func:`_mount_state`),
    its process id for :attr:`SessionOptions.state_holder`, ended at the end; else None (mounted on
    the host as root, or measured after every answer where no holder can be started)."""
    if limit_mb is None or os.path.ismount(state) or not state_holds():
        yield None
        return
    with held_state(os.path.realpath(state), limit_mb * MIB, limit_mb * 256) as holder:
        yield holder
