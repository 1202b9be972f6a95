"""The line channel to a vendor process: one request line written, one answer line read, bounded in time and size.

A :class:`LineChannel` works on the two pipe descriptors of a vendor's stdin and stdout (made
non-blocking). :meth:`LineChannel.exchange` writes a request line without blocking and reads one
answer line with a deadline from the raw stdout descriptor (large reads into a buffer that never
holds more than ``max_line_bytes`` of one line, plus one read). While a request is being written
the vendor's output is read as well, so a vendor that writes before it reads can never deadlock
the harness. A line the vendor wrote unasked stays in the buffer and is taken as the next answer.

What goes wrong is said, never repaired: :class:`VendorFault` ``TIMEOUT`` (no complete line before
the deadline, quoting what had arrived) or ``MALFORMED`` (a line longer than ``max_line_bytes``:
nothing beyond the limit is buffered), and :class:`ChannelClosed` for end of output or a broken
pipe. Whoever owns the process kills it and adds its stderr (:mod:`.subprocess_adapter`); the
channel knows neither the process nor the protocol, only whether the vendor has ended (``exited``).
"""

from __future__ import annotations

import os
import selectors
import time
from collections.abc import Callable

from tablecert.harness.contract import FaultKind, VendorFault
from tablecert.harness.vendor_text import for_terminal

READ_CHUNK = 1 << 20
POLL_SLICE = 0.25          # seconds between checks that the vendor is still running while waiting
SHOWN_BYTES = 120
"""Bytes of what a vendor sent that a fault's detail quotes."""


def quoted(data: bytes | bytearray) -> str:
    """What a vendor sent, for a fault's detail: its first :data:`SHOWN_BYTES` bytes in quotes,
    bytes that are not UTF-8 and control characters escaped (:func:`~tablecert.harness.vendor_text.for_terminal`),
    saying how many more there were."""
    text = for_terminal(bytes(data[:SHOWN_BYTES]).decode("utf-8", "backslashreplace"), SHOWN_BYTES)
    more = f" ... ({len(data) - SHOWN_BYTES:,} more bytes)" if len(data) > SHOWN_BYTES else ""
    return f'"{text}"{more}'


class ChannelClosed(Exception):
    """The vendor closed its output or stopped reading its input: ``what`` it did, in words."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class LineChannel:
    """Request and answer lines over a vendor's stdin (``in_fd``) and stdout (``out_fd``); ``exited``
    says whether the vendor has ended. Not thread-safe: one caller at a time."""

    def __init__(self, in_fd: int, out_fd: int, max_line_bytes: int, exited: Callable[[], bool]) -> None:
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._max = max_line_bytes
        self._exited = exited
        os.set_blocking(in_fd, False)
        os.set_blocking(out_fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(out_fd, selectors.EVENT_READ)
        self._buf = bytearray()
        self._scanned = 0           # bytes of _buf already known to hold no newline
        self._eof = False

    def exchange(self, payload: bytes, timeout: float) -> bytes:
        """Write one request line and read one answer line (without its newline), both within
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        self._send_all(payload, deadline, timeout)
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._eof:
                cut = f" {len(self._buf)} bytes into an answer line ({quoted(self._buf)})" if self._buf else ""
                raise ChannelClosed(f"closed its output{cut}")
            self._wait_readable(deadline, timeout)
            self._read_some()

    def send(self, payload: bytes, timeout: float) -> None:
        """Write one request line within ``timeout`` seconds and leave its answer unread (reading
        only what the vendor writes meanwhile): the request is in flight."""
        self._send_all(payload, time.monotonic() + timeout, timeout)

    def wait_answer(self, timeout: float) -> None:
        """Wait until an answer has begun to arrive (or the output ended), within ``timeout``
        seconds, taking no line: the next :meth:`exchange` or nothing reads it."""
        deadline = time.monotonic() + timeout
        while not self._buf and not self._eof:
            self._wait_readable(deadline, timeout)
            self._read_some()

    def wait_answer_or(self, other_fd: int, timeout: float) -> None:
        """Wait until an answer has begun to arrive (or the output ended) or ``other_fd`` is
        readable, within ``timeout`` seconds, taking no line."""
        self._sel.register(other_fd, selectors.EVENT_READ)
        try:
            deadline = time.monotonic() + timeout
            while not self._buf and not self._eof:
                ready = {key.fd for key, _ in self._sel.select(max(0.0, min(deadline - time.monotonic(), POLL_SLICE)))}
                if other_fd in ready:
                    return
                if self._out_fd in ready:
                    self._read_some()
                elif time.monotonic() >= deadline:
                    raise self._timeout("no answer and no change", timeout)
                elif self._exited():
                    return
        finally:
            self._sel.unregister(other_fd)

    def close(self) -> None:
        """Stop watching the descriptors (their owner closes them)."""
        self._sel.close()

    def _send_all(self, payload: bytes, deadline: float, timeout: float) -> None:
        view = memoryview(payload)
        try:
            written = os.write(self._in_fd, view)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise ChannelClosed("stopped reading its input") from None
        if written == len(view):
            return
        view = view[written:]
        self._sel.register(self._in_fd, selectors.EVENT_WRITE)
        try:
            while view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timeout("the vendor did not read its request", timeout)
                for key, _ in self._sel.select(min(remaining, POLL_SLICE)):
                    if key.fd == self._out_fd:
                        # Keep reading, so a vendor that writes before it reads cannot block us.
                        self._read_some()
                        if len(self._buf) > self._max:
                            raise VendorFault(FaultKind.MALFORMED, f"vendor wrote more than {self._max} bytes "
                                              "before reading its request")
                    elif key.fd == self._in_fd:
                        try:
                            view = view[os.write(self._in_fd, view):]
                        except BlockingIOError:
                            pass
                        except BrokenPipeError:
                            raise ChannelClosed("stopped reading its input") from None
                if view and (self._eof or self._exited()):
                    raise ChannelClosed("stopped reading its input")
        finally:
            self._sel.unregister(self._in_fd)

    def _wait_readable(self, deadline: float, timeout: float) -> None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout("no complete answer line", timeout)
            if self._sel.select(min(remaining, POLL_SLICE)):
                return
            if self._exited():
                # The vendor has ended; something it started may still hold its output open.
                self._read_some()
                if self._eof or self._buf.find(b"\n", self._scanned) >= 0:
                    return
                raise ChannelClosed("ended without answering")

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
            if idx <= self._max:
                return None
        if idx > self._max:
            raise VendorFault(FaultKind.MALFORMED, f"answer line longer than {self._max} bytes; vendor killed")
        line = bytes(buf[:idx])
        del buf[: idx + 1]
        self._scanned = 0
        return line

    def _timeout(self, what: str, timeout: float) -> VendorFault:
        got = len(self._buf)
        sent = f": {quoted(self._buf)}" if got else ""
        return VendorFault(FaultKind.TIMEOUT, f"{what} within {timeout:g} s ({got:,} byte{'s' if got != 1 else ''} "
                           f"of an unfinished answer received{sent}); process group killed")
