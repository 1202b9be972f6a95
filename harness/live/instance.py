"""A vendor instance that lives across requests and can be killed: what the live driver needs.

:class:`LiveSession` is the subprocess adapter's session (the same sandbox, limits and transport
faults) with what a power cut needs: its ``hello`` names the ``state_dir``; a request can be
left in flight (its line written, :meth:`~LiveSession.write`, and optionally its answer seen
arriving on the pipe, :meth:`~LiveSession.wait_answer`: observable progress, never a timer);
its ``hello`` can be left in flight too (:meth:`~LiveSession.write_hello`) and the harness can
wait for the vendor's first change to its ``state_dir`` (:meth:`~LiveSession.wait_progress`, by
inotify) to cut power in the middle of its recovery; and :meth:`~LiveSession.kill` sends SIGKILL to the whole process group (and the sandbox's
namespace) with no warning. :class:`InstanceControl` is start / send / kill / restart over such
sessions, each restarted instance checked to be the vendor the run began with.

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
through ``/proc/HOLDER/root``, :attr:`LiveSession.view`; the holder's end is its removal). Root's
route stays its own: it needs no namespace, the file system is owned by the vendor's box uid, and
root's sandbox (setpriv to the box uid, control groups) is built in the host's namespaces. Only
where neither can be had (root without CAP_SYS_ADMIN, no user namespaces) is the folder measured
after every answer (a walk that follows no link and stops at the limit), a vendor over it then a
``state_limit`` fault.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from inotify_simple import INotify, flags

from tablecert.harness.adapters.subprocess_adapter import SubprocessSession, command_argv
from tablecert.harness.contract import FaultKind, Hello, SessionOptions, VendorFault
from tablecert.harness.answers.envelope import same_id
from tablecert.harness.protocol_versions import greet, hello_request
from tablecert.oracle.protocol import V2
from tablecert.harness.confine.sandbox import MIB
from tablecert.harness.live.state_holder import held_state, held_view, state_holds

STATE_PREFIX = ".live-state-"
MS_NOSUID, MS_NODEV, MNT_DETACH = 2, 4, 2          # <sys/mount.h>
_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
STATE_CHANGES = (flags.CREATE | flags.MODIFY | flags.MOVED_FROM | flags.MOVED_TO | flags.DELETE | flags.ATTRIB
                 | flags.DELETE_SELF | flags.MOVE_SELF)
"""What :meth:`LiveSession.wait_progress` takes as the vendor's first change to its ``state_dir``."""


class LiveSession(SubprocessSession):
    """One vendor process whose hello names ``state_dir`` (see the module docstring)."""

    def __init__(self, argv: list[str], options: SessionOptions, state_dir: str) -> None:
        self.state_dir = state_dir
        self.view = state_view(state_dir, options.state_holder)    # where the harness reads it
        self.own_fs = os.path.ismount(self.view)
        super().__init__(argv, replace(options, writable_paths=(*options.writable_paths, state_dir)))

    def hello(self) -> Hello:
        timeout = self._options.timeout
        return greet(lambda request: self._call({**request, "state_dir": self.state_dir}, timeout), self._checked)

    def request(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        """One live-table request and its answer: an object with the request's id and a
        ``result`` or an ``error`` (VendorFault otherwise, the vendor killed)."""
        rid = self.reserve_id()
        answer = self._call({"id": rid, "op": op, **fields}, self._options.timeout)
        if not isinstance(answer, dict):
            raise self._fault(FaultKind.MALFORMED, f"answer to {op} is a JSON {type(answer).__name__}, not an object")
        if not same_id(answer.get("id"), rid):
            raise self._fault(FaultKind.WRONG_ID, f"answer id {str(answer.get('id'))[:60]}, request id {rid}")
        if ("result" in answer) == ("error" in answer):
            raise self._fault(FaultKind.MALFORMED, f"answer to {op} has not exactly one of 'result' and 'error'")
        limit = self._options.max_state_mb
        if limit is None:
            return answer
        if self.own_fs:                     # its own file system: the kernel refused what crossed it
            if state_full(self.view):
                raise self._fault(FaultKind.STATE_LIMIT, f"its state_dir is full ({limit:,} MiB, the lab's "
                                                         f"--max-state-mb: a write refused) after {op}")
        elif state_size(self.view, limit * MIB) > limit * MIB:
            raise self._fault(FaultKind.STATE_LIMIT, f"its state_dir holds more than {limit:,} MiB after {op} "
                                                     "(the lab's --max-state-mb)")
        return answer

    def _fault(self, kind: FaultKind, detail: str) -> VendorFault:
        return self._full(super()._fault(kind, detail))

    def _crash(self, what: str) -> VendorFault:
        return self._full(super()._crash(what))

    def _full(self, fault: VendorFault) -> VendorFault:
        """The fault of a vendor whose own file system is full is a ``state_limit`` fault, whatever it
        did next (a vendor that does not catch the refused write crashes, or answers nonsense)."""
        limit = self._options.max_state_mb
        if fault.kind is FaultKind.STATE_LIMIT or limit is None or not self.own_fs or not state_full(self.view):
            return fault
        return VendorFault(FaultKind.STATE_LIMIT, f"its state_dir is full ({limit:,} MiB, the lab's --max-state-mb: "
                                                  f"a write refused), then {fault.kind.value}: {fault.detail}",
                           fault.stderr_tail)

    def write(self, op: str, fields: dict[str, Any]) -> None:
        """Write one request line and read nothing: the request is in flight."""
        payload = self._encode({"id": self.reserve_id(), "op": op, **fields})
        self._on_channel(lambda channel: channel.send(payload, self._options.timeout))

    def wait_answer(self) -> None:
        """Wait until the answer to the request in flight has begun to arrive on the pipe (or the
        vendor ended), without reading it; TIMEOUT after the session's timeout."""
        self._on_channel(lambda channel: channel.wait_answer(self._options.timeout))

    def write_hello(self) -> None:
        """Write the hello request line (naming ``state_dir``) and read nothing: the hello is in flight."""
        payload = self._encode({**hello_request(V2), "state_dir": self.state_dir})
        self._on_channel(lambda channel: channel.send(payload, self._options.timeout))

    def wait_progress(self) -> None:
        """Wait until the vendor makes its first change to ``state_dir`` (a file created, written,
        moved, removed or its mode changed: inotify, the folder itself, not below it), its answer
        to the request in flight begins to arrive, or it ends: observable progress, never a timer;
        TIMEOUT after the session's timeout."""
        with INotify() as watch:
            watch.add_watch(self.view, STATE_CHANGES)
            self._on_channel(lambda channel: channel.wait_answer_or(watch.fileno(), self._options.timeout))

    def kill(self) -> None:
        """SIGKILL the vendor's process group (under the sandbox its namespace first) and reap it."""
        self._die()


class InstanceControl:
    """Start, send to, kill and restart one vendor instance on one ``state_dir``.

    ``open_session`` starts a :class:`LiveSession`; ``check_restart(hello)`` raises VendorFault
    when a restarted instance is not the vendor the run began with. ``kills`` counts the kills;
    ``asking`` names the last request sent (``table.step 7 of table s3``, ``hello``): a fault
    of the vendor's is met during it (:func:`~tablecert.harness.live.findings.finding_note`)."""

    def __init__(self, open_session: Callable[[], LiveSession],
                 check_restart: Callable[[Hello], None] | None = None) -> None:
        self.open_session, self.check_restart = open_session, check_restart
        self.session: LiveSession | None = None
        self.hello: Hello | None = None
        self.kills = 0
        self.asking = "nothing yet"

    def start(self) -> LiveSession:
        """The running instance (started and greeted if there is none)."""
        if self.session is None or not self.session.alive:
            self.asking = "hello (the instance starting)" if self.hello is None else "hello (the instance restarting)"
            session = self.open_session()
            try:
                hello = session.hello()
                if self.check_restart is not None:      # every instance, the first one too
                    self.check_restart(hello)
            except VendorFault:
                session.close()
                raise
            self.session, self.hello = session, self.hello or hello
        return self.session

    def send(self, op: str, **fields: Any) -> dict[str, Any]:
        session = self.start()
        self.asking = asked(op, fields)
        return session.request(op, fields)

    def send_in_flight(self, op: str, answered: bool, **fields: Any) -> None:
        """Leave a request in flight: written, and with ``answered`` its answer on the pipe, unread."""
        session = self.start()
        self.asking = asked(op, fields)
        session.write(op, fields)
        if answered:
            session.wait_answer()

    def kill(self) -> None:
        """Kill the instance (SIGKILL, no warning)."""
        if self.session is not None:
            self.session.kill()
            self.session = None
            self.kills += 1

    def ungreeted(self) -> LiveSession:
        """A fresh process on the same ``state_dir``, not greeted (the running one killed first)."""
        self.kill()
        self.session = self.open_session()
        return self.session

    def restart(self) -> LiveSession:
        """A fresh process on the same ``state_dir``, greeted."""
        self.kill()
        return self.start()

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def asked(op: str, fields: dict[str, Any]) -> str:
    """A live request in the lab's words: its op, its ``seq``, its station and its table
    (``table.step 7 of table s3``, ``table.recall of station 2 of table s3``)."""
    seq = f" {fields['seq']}" if "seq" in fields else ""
    station = f" of station {fields['station']}" if "station" in fields else ""
    return f"{op}{seq}{station} of table {fields.get('table')}"


def state_size(folder: str, stop: int) -> int:
    """Bytes ``folder`` holds on disk (blocks of every entry, links not followed), counted until
    more than ``stop``."""
    total = 0
    stack = [folder]
    while stack and total <= stop:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    total += max(info.st_blocks * 512, 0) + 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return total


def state_full(folder: str) -> bool:
    """Whether the run's own file system on ``folder`` (a mount) has no byte or inode left: a write
    of the vendor's was, or the next will be, refused."""
    fs = os.statvfs(folder)
    return fs.f_bavail == 0 or fs.f_favail == 0


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


def state_view(state: str, holder: int | None) -> str:
    """Where the harness reads ``state``: through its ``holder`` (not root), else the folder itself."""
    return state if holder is None else held_view(holder, os.path.realpath(state))


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


def live_opener(target: str, options: SessionOptions, state_dir: str) -> Callable[[], LiveSession]:
    """Sessions of the vendor command line ``target`` on ``state_dir``."""
    argv = command_argv(target)
    return lambda: LiveSession(argv, options, state_dir)
