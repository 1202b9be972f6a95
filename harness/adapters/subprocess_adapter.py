"""The subprocess adapter: a vendor executable speaking ``tablecert-vendor/2`` (or /1) on stdin/stdout.

``target`` is a command line (:func:`~.vendor_process.command_argv`: ``shlex.split``, never a
shell). A :class:`SubprocessSession` is the protocol session on top of two parts it composes:
the vendor's process (:mod:`.vendor_process`: started confined in its own process group, its
stderr tail kept, killed with its group and reaped) and the line channel to it
(:mod:`.line_channel`: one request line written and one answer line read, bounded in time and
size). ``hello``, ``batch`` and the contract's checks are those every session shares
(:mod:`.message_session`); this session adds the raw exchanges of the hand suites
(:class:`~tablecert.harness.contract.RawExchange`) and turns what the channel reports into faults.
*Since 1.1* its live-table session, :class:`LiveSession`, is a session that can be cut
(:class:`~tablecert.harness.contract.Cuttable`: SIGKILL of the process group), its hello naming
the run's ``state_dir``.

Faults, each a :class:`VendorFault` carrying the stderr tail:

* ``TIMEOUT``: no complete line before the deadline (the whole process group is killed);
* ``CRASH``: end of output or a broken pipe, naming the exit status or the signal;
* ``MALFORMED``: a line longer than ``max_line_bytes`` (the vendor is killed at once, nothing
  beyond the limit is buffered), or a line that is not UTF-8 JSON;
* ``WRONG_ID`` / ``WRONG_COUNT`` / ``REQUEST_ERROR`` / ``BAD_HELLO``: from the contract checks;
* ``START``: the command line is empty or unbalanced, or the program cannot be executed.

Transport faults during ``hello`` keep their own kind (a vendor that never answers ``hello`` is a
``TIMEOUT``); ``BAD_HELLO`` is for an answer that arrived but is unusable. After any fault the
session is dead (``alive`` is false): the process group has been killed and reaped, and the
runner opens a new session. A session is used by one thread at a time.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from inotify_simple import INotify

from tablecert.harness.adapters.live_session import STATE_CHANGES, LiveMessages, state_full
from tablecert.harness.adapters.line_channel import ChannelClosed, LineChannel, quoted
from tablecert.harness.adapters.message_session import BYE_TIMEOUT, MessageSession
from tablecert.harness.adapters.request_json import request_line
from tablecert.harness.adapters.vendor_process import VendorProcess, command_argv, confined_start_hint
from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.answers.envelope import check_batch_answer, decode_answer
from tablecert.harness.contract import (Binding, BuildSource, FaultKind, Hello, LiveAdapter, RawExchange, SessionOptions, VendorFault,
                                       VendorSession)
from tablecert.harness.protocol_versions import hello_request
from tablecert.oracle.protocol import V2

EXIT_GRACE = 1.0           # seconds a vendor is given to exit by itself (after bye or end of output)
T = TypeVar("T")


class SubprocessSession(MessageSession, RawExchange):
    """One running vendor process (it offers every optional capability of the contract). Not
    thread-safe: one caller at a time."""

    def __init__(self, argv: list[str], options: SessionOptions) -> None:
        super().__init__(options)
        self._process = VendorProcess(argv, options)
        self.isolation = self._process.isolation
        self.limits = self._process.limits
        self.bound = self._process.bound
        self._channel = LineChannel(self._process.stdin_fd, self._process.stdout_fd, options.max_line_bytes,
                                    self._process.exited)
        self._closed = False

    # -- public -----------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The vendor's process id (also its process group id)."""
        return self._process.pid

    @property
    def exit_status(self) -> str | None:
        """How the vendor process ended (``exited with status 0``...), once it has been reaped."""
        return self._process.status

    def stderr_tail(self) -> str:
        """The last ~8 KiB the vendor wrote on stderr (complete once the session is closed)."""
        return self._process.stderr_tail()

    def hello(self) -> Hello:
        try:
            return super().hello()
        except VendorFault as fault:
            raise confined_start_hint(fault, self.bound) if self.bound is not None else fault from None

    # -- pre-encoded requests (the hand-suite fast path) -----------------------------------------

    def exchange_raw(self, request_line: bytes | bytearray | memoryview) -> bytes:
        """Send one already-encoded request line (its id from :meth:`reserve_id`; a final newline
        is added if missing) and return the raw answer line, without its newline and undecoded.

        Transport faults are handled exactly as in :meth:`batch` (``TIMEOUT``, ``CRASH``,
        ``MALFORMED`` for an over-long line), the vendor killed; what the line says is not
        looked at: judge it, or hand it to :meth:`decode_batch_answer`."""
        self._check_alive()
        if not bytes(memoryview(request_line)[-1:]) == b"\n":
            request_line = bytes(request_line) + b"\n"
        try:
            return self._exchange(request_line, self._options.timeout)
        except VendorFault:
            raise
        except BaseException:
            self._die()
            raise

    def batch_raw(self, op: str, config: Any, cases: Sequence[Any]) -> tuple[int, bytes]:
        """Send one batch as :meth:`batch` does and return (its id, the raw answer line), the
        line undecoded: confirm it in bulk, or hand it to :meth:`decode_batch_answer`."""
        rid = self.reserve_id()
        return rid, self.exchange_raw(self._encode({"id": rid, "op": op, "config": config, "cases": list(cases)}))

    def decode_batch_answer(self, line: bytes, request_id: int, n_cases: int, op: str) -> list[Any]:
        """The results list of a raw batch answer line, checked as :meth:`batch` checks it
        (``MALFORMED`` if not JSON, ``WRONG_ID``, ``WRONG_COUNT``, ``REQUEST_ERROR``): a fault
        kills the vendor and ends the session, as it would in :meth:`batch`."""
        answer = self._decoded(line, op)
        return self._checked(lambda: check_batch_answer(answer, request_id, n_cases, op))

    def close(self) -> None:
        """Say bye (failures ignored), give the vendor a moment to exit, then kill its process
        group and reap it. Safe to call more than once."""
        if self._closed:
            return
        if self._alive:
            self._alive = False
            try:
                self._exchange(self._encode({"id": self._next_id, "op": "bye"}), min(BYE_TIMEOUT, self._options.timeout))
            except (VendorFault, OSError, ValueError):
                pass
            self._process.wait_exit(EXIT_GRACE)
        self._die()

    def __enter__(self) -> SubprocessSession:
        return self

    def __del__(self) -> None:
        if getattr(self, "_closed", True) is False:
            try:
                self._die()
            except Exception:  # noqa: BLE001 - best effort at interpreter shutdown
                pass

    # -- protocol -------------------------------------------------------------------------

    @staticmethod
    def _encode(request: dict[str, Any]) -> bytes:
        """The request line: ``json.dumps``'s compact bytes, by msgspec where they are the same."""
        return request_line(request)

    def _call(self, request: dict[str, Any], timeout: float) -> Any:
        self._check_alive()
        payload = self._encode(request)
        try:
            return self._decoded(self._exchange(payload, timeout), request["op"])
        except VendorFault:
            raise
        except BaseException:
            self._die()
            raise

    def _decoded(self, line: bytes, op: str) -> Any:
        """An answer line as JSON, or MALFORMED (the vendor killed)."""
        try:
            return decode_answer(line)
        except (ValueError, RecursionError) as err:
            hint = "; a vendor writes nothing on stdout before its hello (logs go to stderr)" if op == "hello" else ""
            raise self._fault(FaultKind.MALFORMED, f"answer to {op!r} is not JSON: {str(err)[:200]}; the line it sent: "
                                                   f"{quoted(line)}{hint}") from None

    def _exchange(self, payload: bytes, timeout: float) -> bytes:
        """One request line out and one answer line back through the channel, counted; what the
        channel reports becomes the session's fault (the vendor killed and reaped first)."""
        line = self._on_channel(lambda channel: channel.exchange(payload, timeout))
        self.answer_bytes += len(line) + 1
        return line

    def _on_channel(self, step: Callable[[LineChannel], T]) -> T:
        """``step`` done on the line channel; what the channel reports (a TIMEOUT, a MALFORMED
        line, the vendor gone) becomes the session's fault, the vendor killed and reaped first."""
        try:
            return step(self._channel)
        except VendorFault as fault:
            raise self._fault(fault.kind, fault.detail) from None
        except ChannelClosed as closed:
            raise self._crash(closed.what) from None

    def _die(self) -> None:
        """Kill the process group, reap the vendor, close the channel and every fd (once)."""
        self._alive = False
        if self._closed:
            return
        self._closed = True
        self._channel.close()
        self._process.end()

    def _crash(self, what: str) -> VendorFault:
        """End of output or a broken pipe: the exit status if the vendor ends within the grace period."""
        exited = self._process.wait_exit(EXIT_GRACE)
        self._die()   # kills what is left of the group (the vendor is not reaped before this), then reaps
        if exited:
            detail = f"vendor {what}: {self.exit_status}"
        else:
            detail = f"vendor {what} but kept running; process group killed"
        return VendorFault(FaultKind.CRASH, detail, self.stderr_tail())


class LiveSession(LiveMessages, SubprocessSession):
    """A vendor process that plays live tables (*since 1.1*
    :class:`~tablecert.harness.contract.Cuttable`): the same sandbox, limits and transport
    faults, its ``hello`` naming the ``state_dir`` (bound writable into the sandbox); a request
    left in flight (its line written, and optionally its answer seen arriving on the pipe:
    observable progress, never a timer); the vendor's first change to its ``state_dir`` waited
    for by inotify, to cut power in the middle of its recovery; and a cut, SIGKILL to the whole
    process group (and the sandbox's namespace) with no warning. Its ``state_dir``'s size is
    checked after every answer (:func:`~tablecert.harness.adapters.live_session.state_fault`)."""

    def __init__(self, argv: list[str], options: SessionOptions, state_dir: str) -> None:
        self.state_dir = state_dir
        super().__init__(argv, replace(options, writable_paths=(*options.writable_paths, state_dir)))

    def _fault(self, kind: FaultKind, detail: str) -> VendorFault:
        return self._full(super()._fault(kind, detail))

    def _crash(self, what: str) -> VendorFault:
        return self._full(super()._crash(what))

    def _full(self, fault: VendorFault) -> VendorFault:
        """The fault of a vendor whose own file system is full is a ``state_limit`` fault, whatever it
        did next (a vendor that does not catch the refused write crashes, or answers nonsense)."""
        limit = self._options.max_state_mb
        if (fault.kind is FaultKind.STATE_LIMIT or limit is None or not os.path.ismount(self.view)
                or not state_full(self.view)):
            return fault
        return VendorFault(FaultKind.STATE_LIMIT, f"its state_dir is full ({limit:,} MiB, the lab's --max-state-mb: "
                                                  f"a write refused), then {fault.kind.value}: {fault.detail}",
                           fault.stderr_tail)

    def write(self, op: str, fields: dict[str, Any]) -> None:
        payload = self._encode({"id": self.reserve_id(), "op": op, **fields})
        self._on_channel(lambda channel: channel.send(payload, self._options.timeout))

    def wait_answer(self) -> None:
        self._on_channel(lambda channel: channel.wait_answer(self._options.timeout))

    def write_hello(self) -> None:
        payload = self._encode({**hello_request(V2), "state_dir": self.state_dir})
        self._on_channel(lambda channel: channel.send(payload, self._options.timeout))

    def wait_progress(self) -> None:
        """Wait until the vendor makes its first change to ``state_dir`` (a file created, written,
        moved, removed or its mode changed: inotify, the folder itself, not below it), its answer
        to the request in flight begins to arrive, or it ends; TIMEOUT after the session's timeout."""
        with INotify() as watch:
            watch.add_watch(self.view, STATE_CHANGES)
            self._on_channel(lambda channel: channel.wait_answer_or(watch.fileno(), self._options.timeout))

    def kill(self) -> None:
        """SIGKILL the vendor's process group (under the sandbox its namespace first) and reap it."""
        self._die()


class SubprocessAdapter(LiveAdapter, BuildSource):
    """Starts a vendor executable from a command line (``shlex.split``, no shell); its live-table
    sessions are :class:`~tablecert.harness.adapters.live_session.LiveSession`, cut by SIGKILL."""

    name = "subprocess"
    binding = Binding.COMMAND
    not_bound = "the vendor ran without a sandbox: no files were bound"

    def command_line(self, target: Any) -> str | None:
        if isinstance(target, list):
            return shlex.join(str(t) for t in target)
        return target if isinstance(target, str) else None

    def open(self, target: str, options: SessionOptions) -> SubprocessSession:
        return SubprocessSession(command_argv(target), options)

    def live_scope(self, options: SessionOptions) -> str | None:
        return None

    def open_live(self, target: str, options: SessionOptions, state_dir: str) -> VendorSession:
        return LiveSession(command_argv(target), options, state_dir)

    def state_owner(self, target: str, options: SessionOptions) -> tuple[int, int] | None:
        try:
            argv = command_argv(target)
        except VendorFault:                # the vendor's start says so
            return None
        return vendor_uid(argv, options)
