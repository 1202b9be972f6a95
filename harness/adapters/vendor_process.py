"""A vendor's process: started from its command line, confined, watched, killed with its group and reaped.

``command_argv`` splits a command line with :func:`shlex.split` (never a shell).
:class:`VendorProcess` starts it directly in its own session and process group, with a minimal
environment (``PATH`` fixed to a safe default, ``LANG=C.UTF-8``, plus the variables named in
``SessionOptions.pass_env``), confined as :func:`~tablecert.harness.confine.sandbox.plan` decides
(bubblewrap, resource limits set in the child before ``exec``). It keeps the last 8 KiB of the
vendor's stderr on a drain thread and hands the two pipe descriptors of its stdin and stdout to
whoever talks to it (:mod:`.line_channel`). It knows nothing of lines or of the protocol.

Killing (:meth:`VendorProcess.end`) kills the whole process group (under the sandbox the
namespace's init first) and reaps the vendor; how it ended is then :attr:`VendorProcess.status`.
A vendor that cannot be started is ``VendorFault(START)``; :func:`confined_start_hint` turns a
confined vendor's crash before its hello into a fault that says what to bind.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.confine.sandbox import SAFE_PATH, exit_code, plan, resolve
from tablecert.harness.confine.vendor_trees import named_outside

STDERR_TAIL_BYTES = 8 * 1024
NAMESPACE_EXIT_GRACE = 5.0  # seconds for a sandboxed vendor's namespace to be torn down once its init is killed


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


class VendorProcess:
    """One started vendor process and its process group, confined as ``options`` say. Not
    thread-safe: one caller at a time."""

    def __init__(self, argv: list[str], options: SessionOptions) -> None:
        if options.isolation != "none":
            argv = resolve(argv, options.binds)   # found on the lab's PATH: the vendor's own PATH is the safe one
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
        self.stdin_fd = self._proc.stdin.fileno()
        self.stdout_fd = self._proc.stdout.fileno()
        self.status: str | None = None      # how the vendor ended, once reaped
        self.ended = False                  # killed and reaped, every descriptor closed
        self._stderr = _StderrTail(self._proc.stderr.fileno())

    @property
    def pid(self) -> int:
        """The vendor's process id (also its process group id)."""
        return self._proc.pid

    def stderr_tail(self) -> str:
        """The last ~8 KiB the vendor wrote on stderr (complete once the process has ended)."""
        return self._stderr.text()

    def exited(self) -> bool:
        """True if the vendor process has ended; it is not reaped (its pid stays reserved)."""
        if self._proc.returncode is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None and info.si_pid != 0

    def wait_exit(self, grace: float) -> bool:
        """Give the vendor ``grace`` seconds to end by itself; True if it has."""
        deadline = time.monotonic() + grace
        delay = 0.001
        while not self.exited():
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return True

    def end(self) -> None:
        """Kill the process group, reap the vendor, finish the stderr tail, close every fd. Safe
        to call more than once."""
        if self.ended:
            return
        self.ended = True
        self._kill_group()
        returncode = self._vendor_returncode(self._proc.wait())
        self._started.release()
        if self.status is None:
            self.status = describe_status(returncode)
        self._stderr.finish(0.5)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

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
            self.wait_exit(NAMESPACE_EXIT_GRACE)
        for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
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
    return VendorFault(fault.kind, fault.detail + (unreadable_hint(fault.stderr_tail, bound) or CONFINED_HINT),
                       fault.stderr_tail)


def unreadable_hint(stderr_tail: str, bound: tuple[str, ...]) -> str | None:
    """When the vendor's last line on stderr says "Permission denied" on a file of the host: the
    first folder on its way that other users cannot enter, or the file they cannot read or run,
    with its mode, since the vendor runs as a user of its own (inside the sandbox the folders above
    a bind keep the host's modes: they must be searchable, ``o+x``; the bound folder and what lies
    in it readable too); None when the line names no such file."""
    lines = [line for line in stderr_tail.splitlines() if line.strip()]
    if not lines or "Permission denied" not in lines[-1]:
        return None
    for named in re.findall(r"/[^\s:'\"]+", lines[-1]):
        path = Path(named)
        tops = [Path(b) for b in bound if path == Path(b) or Path(b) in path.parents]
        for entry in [*reversed(path.parents[:-1]), path]:
            try:
                mode = entry.stat().st_mode
            except OSError:
                continue
            above = bool(tops) and entry in tops[0].parents
            need = 0o001 if above else 0o005 if stat.S_ISDIR(mode) or mode & 0o100 else 0o004
            if mode & need != need:
                what, cannot = (("folder", "enter") if stat.S_ISDIR(mode) else ("file", "run") if need == 0o005
                                else ("file", "read"))
                fix = "x" if need == 0o001 else "rx" if need == 0o005 else "r"
                return (f"; the {what} {entry} is mode {stat.S_IMODE(mode):04o}: the vendor runs as a user of its own, "
                        f"which cannot {cannot} it (chmod o+{fix} {shlex.quote(str(entry))})")
    return None
