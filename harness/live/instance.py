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
vendor left in it (folders of mode 000, links: :func:`remove_state`). Its size is the lab's
(``SessionOptions.max_state_mb``, ``--max-state-mb``): after every answer the folder is measured
(a walk that follows no link and stops at the limit), and a vendor over it is a ``state_limit``
fault.
"""

from __future__ import annotations

import os
import shutil
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

STATE_PREFIX = ".live-state-"
STATE_CHANGES = (flags.CREATE | flags.MODIFY | flags.MOVED_FROM | flags.MOVED_TO | flags.DELETE | flags.ATTRIB
                 | flags.DELETE_SELF | flags.MOVE_SELF)
"""What :meth:`LiveSession.wait_progress` takes as the vendor's first change to its ``state_dir``."""


class LiveSession(SubprocessSession):
    """One vendor process whose hello names ``state_dir`` (see the module docstring)."""

    def __init__(self, argv: list[str], options: SessionOptions, state_dir: str) -> None:
        self.state_dir = state_dir
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
        if limit is not None and state_size(self.state_dir, limit * MIB) > limit * MIB:
            raise self._fault(FaultKind.STATE_LIMIT, f"its state_dir holds more than {limit:,} MiB after {op} "
                                                     "(the lab's --max-state-mb)")
        return answer

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
            watch.add_watch(self.state_dir, STATE_CHANGES)
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


def remove_state(folder: str) -> None:
    """Remove ``folder`` whatever the vendor left in it: folders it shut (mode 000) are opened
    to the lab's user first; a link is removed, never followed."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return
    os.chmod(folder, 0o700)
    for path, dirs, _ in os.walk(folder):
        for name in dirs:
            child = os.path.join(path, name)
            if not os.path.islink(child):
                try:
                    os.chmod(child, 0o700)
                except OSError:
                    pass
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def vendor_state_dir(base: Path, owner: tuple[int, int] | None) -> Iterator[str]:
    """A fresh ``state_dir`` in a new 0700 folder under ``base`` (removed at the end, whatever happens)."""
    parent = tempfile.mkdtemp(prefix=STATE_PREFIX, dir=base)
    try:
        state = os.path.join(parent, "state")
        os.mkdir(state, 0o700)
        if owner is not None:
            os.chown(state, *owner)
        yield state
    finally:
        remove_state(parent)


def remove_stale_state(base: Path) -> int:
    """Remove the state folders an earlier invocation of this run left in ``base`` (killed before
    it could remove its own; the run folder's lock says no other run uses them): how many."""
    stale = [p for p in base.glob(STATE_PREFIX + "*") if p.is_dir() and not p.is_symlink()]
    for folder in stale:
        remove_state(str(folder))
    return len(stale)


def live_opener(target: str, options: SessionOptions, state_dir: str) -> Callable[[], LiveSession]:
    """Sessions of the vendor command line ``target`` on ``state_dir``."""
    argv = command_argv(target)
    return lambda: LiveSession(argv, options, state_dir)
