"""The subprocess adapter: a vendor executable speaking ``tablecert-vendor/2`` (or /1) on stdin/stdout.

``target`` is a command line, split with :func:`shlex.split` and started directly (never through
a shell), in its own session and process group, with a minimal environment (``PATH`` fixed to a
safe default, ``LANG=C.UTF-8``, plus the variables named in ``SessionOptions.pass_env``) and
resource limits set in the child before ``exec`` (address space, CPU time, no core files).
Because ``PATH`` is the fixed default, a program is found there or named by its path.

Every request is one JSON line written without blocking; every answer is one line read with a
deadline from the raw stdout descriptor (large reads into a bounded buffer). While a request is
being written the vendor's output is read as well, so a vendor that writes before it reads can
never deadlock the harness. A drain thread keeps the last 8 KiB of the vendor's stderr.

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
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from tablecert.harness.contract import (
    Confined,
    Metered,
    RawExchange,
    FaultKind,
    Hello,
    SessionOptions,
    VendorFault,
    check_batch_answer,
    decode_answer,
)
from tablecert.harness.adapters.request_json import request_line
from tablecert.harness.vendor_text import for_terminal
from tablecert.harness.protocol_versions import greet
from tablecert.harness.confine.sandbox import SAFE_PATH, exit_code, plan, resolve
from tablecert.harness.confine.vendor_trees import named_outside

STDERR_TAIL_BYTES = 8 * 1024
READ_CHUNK = 1 << 20
BYE_TIMEOUT = 1.0          # seconds allowed for the answer to bye
EXIT_GRACE = 1.0           # seconds a vendor is given to exit by itself (after bye or end of output)
NAMESPACE_EXIT_GRACE = 5.0  # seconds for a sandboxed vendor's namespace to be torn down once its init is killed
POLL_SLICE = 0.25          # seconds between checks that the vendor is still running while waiting


def decode_line(line: bytes) -> Any:
    """One answer line as a JSON value; ValueError (or RecursionError) if it is not strict JSON."""
    return decode_answer(line)


def minimal_env(pass_env: Sequence[str]) -> dict[str, str]:
    """The vendor's whole environment: a fixed PATH, LANG=C.UTF-8 and the named variables."""
    env = {"PATH": SAFE_PATH, "LANG": "C.UTF-8"}
    for name in pass_env:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def describe_status(returncode: int) -> str:
    """``exited with status N`` or ``killed by signal NAME`` from a Popen return code."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = str(-returncode)
    return f"killed by signal {name}"


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (none if they cannot be listed)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(child) for child in f.read().split()]
    except (OSError, ValueError):
        return []


class _StderrTail:
    """Drains a pipe on a daemon thread, keeping only its last ``size`` bytes."""

    def __init__(self, fd: int, size: int = STDERR_TAIL_BYTES) -> None:
        self._fd = fd
        self._size = size
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"vendor-stderr-{fd}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        try:
            sel.register(self._fd, selectors.EVENT_READ)
            while not self._stop.is_set():
                if not sel.select(0.1):
                    continue
                try:
                    data = os.read(self._fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                with self._lock:
                    self._buf += data
                    if len(self._buf) > self._size:
                        del self._buf[: len(self._buf) - self._size]
        finally:
            sel.close()

    def text(self) -> str:
        with self._lock:
            return self._buf.decode("utf-8", errors="replace")

    def finish(self, timeout: float) -> None:
        """Wait up to ``timeout`` for end of file, then stop reading (the fd stays open: close it after)."""
        self._thread.join(timeout)
        self._stop.set()
        self._thread.join()


class SubprocessSession(RawExchange, Metered, Confined):
    """One running vendor process (it offers every optional capability of the contract). Not
    thread-safe: one caller at a time."""

    def __init__(self, argv: list[str], options: SessionOptions) -> None:
        self._options = options
        self._argv = argv
        if options.isolation != "none":
            argv = resolve(argv)            # found on the lab's PATH: the vendor's own PATH is the safe one
        sandbox = plan(argv, options)
        self.isolation = sandbox.description
        self.limits = sandbox.limits
        self.bound = sandbox.bound if sandbox.prefix else None
        self._sandboxed = bool(sandbox.prefix)
        try:
            self._started = sandbox.start(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          env=minimal_env(options.pass_env), start_new_session=True, close_fds=True)
        except (OSError, subprocess.SubprocessError, ValueError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise VendorFault(FaultKind.START, f"cannot start {argv[0]!r}: {reason}") from None
        self._proc = self._started.proc
        self._status_fd: int | None = self._started.status_fd   # the sandbox's report of the vendor's exit
        assert self._proc.stdin is not None and self._proc.stdout is not None and self._proc.stderr is not None
        self._in_fd = self._proc.stdin.fileno()
        self._out_fd = self._proc.stdout.fileno()
        os.set_blocking(self._in_fd, False)
        os.set_blocking(self._out_fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out_fd, selectors.EVENT_READ)
        self._buf = bytearray()
        self._scanned = 0           # bytes of _buf already known to hold no newline
        self._eof = False
        self._next_id = 1
        self._alive = True
        self._closed = False
        self.answer_bytes = 0       # size of every answer line received (the runner caps a run's total)
        self._status: str | None = None
        self._stderr = _StderrTail(self._proc.stderr.fileno())

    # -- public -----------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """False once the session is closed or has faulted; a dead session accepts no request."""
        return self._alive

    @property
    def pid(self) -> int:
        """The vendor's process id (also its process group id)."""
        return self._proc.pid

    @property
    def exit_status(self) -> str | None:
        """How the vendor process ended (``exited with status 0``...), once it has been reaped."""
        return self._status

    def stderr_tail(self) -> str:
        """The last ~8 KiB the vendor wrote on stderr (complete once the session is closed)."""
        return self._stderr.text()

    def hello(self) -> Hello:
        try:
            return greet(lambda request: self._call(request, self._options.timeout), self._checked)
        except VendorFault as fault:
            raise confined_start_hint(fault, self.bound) if self.bound is not None else fault from None

    def batch(self, op: str, config: Any, cases: Sequence[Any]) -> list[Any]:
        rid = self.reserve_id()
        if not isinstance(cases, (list, tuple)):
            cases = list(cases)
        answer = self._call({"id": rid, "op": op, "config": config, "cases": cases}, self._options.timeout)
        return self._checked(lambda: check_batch_answer(answer, rid, len(cases), op))

    # -- pre-encoded requests (the hand-suite fast path) -----------------------------------------

    def reserve_id(self) -> int:
        """The id for the next request, never handed out again in this session (``batch`` takes
        its ids from the same counter)."""
        rid = self._next_id
        self._next_id += 1
        return rid

    def exchange_raw(self, request_line: bytes | bytearray | memoryview) -> bytes:
        """Send one already-encoded request line (its id from :meth:`reserve_id`; a final newline
        is added if missing) and return the raw answer line, without its newline and undecoded.

        Transport faults are handled exactly as in :meth:`batch` (``TIMEOUT``, ``CRASH``,
        ``MALFORMED`` for an over-long line), the vendor killed; what the line says is not
        looked at: judge it, or hand it to :meth:`decode_batch_answer`."""
        if not self._alive:
            raise RuntimeError("vendor session is closed (after close() or a fault); open a new one")
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
            self._wait_exit(EXIT_GRACE)
        self._teardown()

    def __enter__(self) -> SubprocessSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_closed", True) is False:
            try:
                self._teardown()
            except Exception:  # noqa: BLE001 - best effort at interpreter shutdown
                pass

    # -- protocol -------------------------------------------------------------------------

    @staticmethod
    def _encode(request: dict[str, Any]) -> bytes:
        """The request line: ``json.dumps``'s compact bytes, by msgspec where they are the same."""
        return request_line(request)

    def _call(self, request: dict[str, Any], timeout: float) -> Any:
        if not self._alive:
            raise RuntimeError("vendor session is closed (after close() or a fault); open a new one")
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
            return decode_line(line)
        except (ValueError, RecursionError) as err:
            hint = "; a vendor writes nothing on stdout before its hello (logs go to stderr)" if op == "hello" else ""
            raise self._fault(FaultKind.MALFORMED, f"answer to {op!r} is not JSON: {str(err)[:200]}; the line it sent: "
                                                   f"{quoted(line)}{hint}") from None

    def _checked(self, check: Callable[[], Any]) -> Any:
        try:
            return check()
        except VendorFault as fault:
            raise self._fault(fault.kind, fault.detail) from None

    def _exchange(self, payload: bytes, timeout: float) -> bytes:
        """Write one request line and read one answer line, both within ``timeout`` seconds.
        (A line the vendor wrote unasked is still in the buffer and is taken as the answer.)"""
        deadline = time.monotonic() + timeout
        self._send_all(payload, deadline)
        while True:
            line = self._take_line()
            if line is not None:
                self.answer_bytes += len(line) + 1
                return line
            if self._eof:
                cut = f" {len(self._buf)} bytes into an answer line ({quoted(self._buf)})" if self._buf else ""
                raise self._crash(f"closed its output{cut}")
            self._wait_readable(deadline)
            self._read_some()

    def _send_all(self, payload: bytes, deadline: float) -> None:
        view = memoryview(payload)
        try:
            written = os.write(self._in_fd, view)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise self._crash("stopped reading its input") from None
        if written == len(view):
            return
        view = view[written:]
        self._sel.register(self._in_fd, selectors.EVENT_WRITE)
        try:
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timeout("the vendor did not read its request")
                for key, _ in self._sel.select(min(remaining, POLL_SLICE)):
                    if key.fd == self._out_fd:
                        # Keep reading, so a vendor that writes before it reads cannot block us.
                        self._read_some()
                        if len(self._buf) > self._options.max_line_bytes:
                            raise self._fault(FaultKind.MALFORMED, "vendor wrote more than "
                                              f"{self._options.max_line_bytes} bytes before reading its request")
                    elif key.fd == self._in_fd:
                        try:
                            view = view[os.write(self._in_fd, view):]
                        except BlockingIOError:
                            pass
                        except BrokenPipeError:
                            raise self._crash("stopped reading its input") from None
                if view and (self._eof or self._leader_exited()):
                    raise self._crash("stopped reading its input")
        finally:
            if not self._closed:
                self._sel.unregister(self._in_fd)

    def _wait_readable(self, deadline: float) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout("no complete answer line")
            if self._sel.select(min(remaining, POLL_SLICE)):
                return
            if self._leader_exited():
                # The vendor has ended; something it started may still hold its output open.
                self._read_some()
                if self._eof or self._buf.find(b"\n", self._scanned) >= 0:
                    return
                raise self._crash("ended without answering")

    def _read_some(self) -> None:
        try:
            data = os.read(self._out_fd, READ_CHUNK)
        except BlockingIOError:
            return
        if data:
            self._buf += data
        else:
            self._eof = True

    def _take_line(self) -> bytes | None:
        """The next complete line (without its newline), or None; MALFORMED beyond max_line_bytes."""
        buf = self._buf
        idx = buf.find(b"\n", self._scanned)
        if idx < 0:
            self._scanned = len(buf)          # no newline in there: never scan it again
            idx = len(buf)
            if idx <= self._options.max_line_bytes:
                return None
        if idx > self._options.max_line_bytes:
            raise self._fault(FaultKind.MALFORMED, f"answer line longer than {self._options.max_line_bytes} bytes; "
                              "vendor killed")
        line = bytes(buf[:idx])
        del buf[: idx + 1]
        self._scanned = 0
        return line

    # -- process handling --------------------------------------------------------------------

    def _leader_exited(self) -> bool:
        """True if the vendor process has ended; it is not reaped (its pid stays reserved)."""
        if self._proc.returncode is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None and info.si_pid != 0

    def _wait_exit(self, grace: float) -> bool:
        deadline = time.monotonic() + grace
        delay = 0.001
        while not self._leader_exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return True

    def _kill_group(self) -> None:
        # The vendor is not reaped yet, so its pid (= process group id) cannot have been reused.
        # Under the sandbox it is `bwrap`: its child, the namespace's init, is killed first;
        # the kernel kills and reaps every process of the namespace before that init's exit
        # completes, and only then does `bwrap` exit. So once it has exited, nothing the vendor
        # started is left (before the signing key is ever read).
        if self._proc.returncode is not None:
            return
        pid = self._proc.pid
        if self._sandboxed:
            for child in _children(pid):
                try:
                    os.kill(child, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            self._wait_exit(NAMESPACE_EXIT_GRACE)
        for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass

    def _teardown(self) -> None:
        """Kill the process group, reap the vendor, finish the stderr tail, close every fd."""
        if self._closed:
            return
        self._closed = True
        self._alive = False
        self._kill_group()
        returncode = self._vendor_returncode(self._proc.wait())
        self._started.release()
        if self._status is None:
            self._status = describe_status(returncode)
        self._stderr.finish(0.5)
        self._sel.close()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _vendor_returncode(self, returncode: int) -> int:
        """The vendor's own return code: under the sandbox as its namespace's init reported it
        (the started process is ``bwrap``), else the started process's."""
        if self._status_fd is None:
            return returncode
        try:
            os.set_blocking(self._status_fd, False)
            report = os.read(self._status_fd, 4096)
        except OSError:
            report = b""
        finally:
            os.close(self._status_fd)
            self._status_fd = None
        return exit_code(report, returncode)

    def _die(self) -> None:
        self._alive = False
        self._teardown()

    def _fault(self, kind: FaultKind, detail: str) -> VendorFault:
        """Kill and reap the vendor, then the fault with its final stderr tail."""
        self._die()
        return VendorFault(kind, detail, self.stderr_tail())

    def _timeout(self, what: str) -> VendorFault:
        got = len(self._buf)
        sent = f": {quoted(self._buf)}" if got else ""
        return self._fault(FaultKind.TIMEOUT, f"{what} within {self._options.timeout:g} s ({got:,} byte"
                           f"{'s' if got != 1 else ''} of an unfinished answer received{sent}); process group killed")

    def _crash(self, what: str) -> VendorFault:
        """End of output or a broken pipe: the exit status if the vendor ends within the grace period."""
        exited = self._wait_exit(EXIT_GRACE)
        self._die()   # kills what is left of the group (the vendor is not reaped before this), then reaps
        if exited:
            detail = f"vendor {what}: {self._status}"
        else:
            detail = f"vendor {what} but kept running; process group killed"
        return VendorFault(FaultKind.CRASH, detail, self.stderr_tail())


OUT_OF_VIEW = ("No such file or directory", "cannot open shared object file", "not found", "Permission denied")
"""What a vendor's (or the sandbox's) stderr says when a file it needs is not there, or not
readable by the user it runs as."""
CONFINED_HINT = ("; a confined vendor sees only the system folders, its program's own install trees and the "
                 "folders given with --vendor-path DIR (read-only): bind the folder it needs with --vendor-path, "
                 "and see what it sees with tablecert sandbox-check --vendor-cmd CMD")


def confined_start_hint(fault: VendorFault, bound: tuple[str, ...]) -> VendorFault:
    """A confined vendor that ended before its hello (the fault itself otherwise), with what to
    add: the ``--vendor-path`` of each folder its own files (.pth, editable finders) name and it
    was not given, else, when it said on stderr that a file is missing (or not readable), the hint
    that the file may be outside its sandbox."""
    if fault.kind is not FaultKind.CRASH:
        return fault
    named = named_outside(bound)
    if named:
        return VendorFault(fault.kind, fault.detail + "; its own files (.pth, editable finders) name folders it was "
                           "not given: if it needs them, add " + " ".join(f"--vendor-path {shlex.quote(p)}"
                                                                         for p in named[:4])
                           + " (tablecert sandbox-check shows what it sees)", fault.stderr_tail)
    if not any(words in fault.stderr_tail for words in OUT_OF_VIEW):
        return fault
    return VendorFault(fault.kind, fault.detail + CONFINED_HINT, fault.stderr_tail)


SHOWN_BYTES = 120
"""Bytes of what a vendor sent that a fault's detail quotes."""


def quoted(data: bytes | bytearray) -> str:
    """What a vendor sent, for a fault's detail: its first :data:`SHOWN_BYTES` bytes in quotes,
    bytes that are not UTF-8 and control characters escaped (:func:`~tablecert.harness.vendor_text.for_terminal`),
    saying how many more there were."""
    text = for_terminal(bytes(data[:SHOWN_BYTES]).decode("utf-8", "backslashreplace"), SHOWN_BYTES)
    more = f" ... ({len(data) - SHOWN_BYTES:,} more bytes)" if len(data) > SHOWN_BYTES else ""
    return f'"{text}"{more}'


def command_argv(target: str) -> list[str]:
    """A vendor command line as its words (``shlex.split``, no shell); VendorFault START if it is
    unbalanced or empty."""
    try:
        argv = shlex.split(target)
    except ValueError as err:
        raise VendorFault(FaultKind.START, f"bad command line {target!r}: {err}") from None
    if not argv:
        raise VendorFault(FaultKind.START, "empty command line")
    return argv


class SubprocessAdapter:
    """Starts a vendor executable from a command line (``shlex.split``, no shell)."""

    name = "subprocess"

    def open(self, target: str, options: SessionOptions) -> SubprocessSession:
        return SubprocessSession(command_argv(target), options)
