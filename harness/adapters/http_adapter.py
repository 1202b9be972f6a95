"""The HTTP adapter: a vendor serving ``tablecert-vendor/2`` (or /1) as JSON over HTTP POST.

``target`` is an ``http://`` or ``https://`` URL. Every request object (``hello``, the batches,
``bye``) is POSTed as a JSON body (``Content-Type: application/json``) to that URL over one
persistent connection (standard library :mod:`http.client`; HTTPS verifies the server's
certificate with the default trust store); the response body is the answer object, judged by the
same contract checks as every other transport.

Faults:

* ``START``: the URL is not an http(s) URL, or nothing accepts a connection when the session opens;
* ``CRASH``: the connection is refused, reset or closed later on (one fresh reconnection is tried
  first when a kept-alive connection turns out to be closed before any answer arrived);
* ``TIMEOUT``: no complete answer within ``SessionOptions.timeout`` (one deadline for the whole
  exchange: connect, send, headers and body; a watchdog shuts the socket down when it passes, so a
  server that drips a byte at a time or sends ``100 Continue`` forever is cut off too);
* ``MALFORMED``: a non-2xx status (named in the detail), an answer larger than
  ``max_line_bytes``, a body that is not UTF-8 JSON, or a response that is not HTTP.

After any fault the session is dead (``alive`` is false) and its connection is closed.

Live tables (*since 1.1*): the server is the lab's, so only the lab can cut it. With a restart
hook (``SessionOptions.restart_hook``, ``--restart-hook CMD``: a command line, ``shlex.split``,
no shell, that kills the server with no warning, starts it again on the same storage and exits 0
once it accepts connections), a live session (:class:`HttpLiveSession`) names the run's
``state_dir`` in its ``hello`` (the folder on the lab's host: a server on that host may keep its
tables there; one elsewhere keeps them where its deployment does), leaves a request in flight
(the POST sent, its response unread), and is cut by running the hook; the next session connects
to the restarted server. A hook that fails or outlasts the timeout is a ``start`` fault (the run
is not certified: its cuts were not made). Without a hook the HTTP adapter plays no live table,
and the run says so (:meth:`HttpAdapter.live_scope`).
"""

from __future__ import annotations

import http.client
import json
import select
import shlex
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from inotify_simple import INotify

from tablecert.harness.adapters.live_session import STATE_CHANGES, LiveMessages
from tablecert.harness.adapters.message_session import MessageSession
from tablecert.harness.contract import Binding, BuildSource, FaultKind, LiveAdapter, SessionOptions, VendorFault, VendorSession
from tablecert.harness.answers.envelope import decode_answer
from tablecert.harness.protocol_versions import hello_request
from tablecert.oracle.protocol import V2

READ_CHUNK = 1 << 20


class _Timeout(Exception):
    """The deadline of one exchange has passed."""


class HttpSession(MessageSession):
    """A persistent HTTP connection to a vendor. Not thread-safe: one caller at a time."""

    def __init__(self, url: str, options: SessionOptions) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise VendorFault(FaultKind.START, f"not an http(s) URL: {url!r}")
        if parts.username is not None or parts.password is not None:
            raise VendorFault(FaultKind.START, "credentials in the vendor URL are not supported")
        try:
            port = parts.port
        except ValueError as err:
            raise VendorFault(FaultKind.START, f"bad port in {url!r}: {err}") from None
        self._url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        super().__init__(options)
        self._conn: http.client.HTTPConnection | None = None
        try:
            self._connect(options.timeout)
        except (OSError, ssl.SSLError) as err:
            raise VendorFault(FaultKind.START, f"cannot connect to {url}: {_reason(err)}") from None

    # -- public -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self._url

    isolation = "none (HTTP vendor runs outside tablecert's control)"

    def stderr_tail(self) -> str:
        """An HTTP vendor's logs are its own: always empty."""
        return ""

    # -- transport --------------------------------------------------------------------------

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        try:
            conn.connect()
            assert conn.sock is not None
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _die(self) -> None:
        self._alive = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _call(self, request: dict[str, Any], timeout: float) -> Any:
        self._check_alive()
        body = json.dumps(request, separators=(",", ":"), allow_nan=False).encode("ascii")
        op = request["op"]
        deadline = time.monotonic() + timeout
        try:
            status, reason, data = self._post(body, deadline)
        except VendorFault:
            raise
        except BaseException:
            self._die()
            raise
        self.answer_bytes += len(data)
        if not 200 <= status < 300:
            snippet = data[:200].decode("utf-8", errors="replace")
            raise self._fault(FaultKind.MALFORMED, f"HTTP status {status} {reason} to {op!r}: {snippet}")
        try:
            return decode_answer(data)
        except (ValueError, RecursionError) as err:
            raise self._fault(FaultKind.MALFORMED, f"answer to {op!r} is not JSON: {str(err)[:200]}") from None

    def _post(self, body: bytes, deadline: float) -> tuple[int, str, bytes]:
        """(status, reason, body) of one POST, retried once on a fresh connection if a kept-alive
        connection proves closed before any answer arrived; the watchdog ends it at ``deadline``."""
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            conn = self._conn
            if conn is not None and conn.sock is not None:
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            return self._post_retrying(body, deadline)
        except VendorFault as fault:
            if expired.is_set() and fault.kind is not FaultKind.TIMEOUT:
                # whatever the cut-off connection looked like, the deadline passed first
                raise VendorFault(FaultKind.TIMEOUT, f"no complete answer within {self._options.timeout:g} s") from None
            raise
        finally:
            watchdog.cancel()

    def _post_retrying(self, body: bytes, deadline: float) -> tuple[int, str, bytes]:
        fresh = self._conn is None
        while True:
            try:
                return self._post_once(body, deadline)
            except _Timeout:
                raise self._fault(FaultKind.TIMEOUT, f"no complete answer within {self._options.timeout:g} s") from None
            except (TimeoutError, socket.timeout):
                raise self._fault(FaultKind.TIMEOUT, f"no complete answer within {self._options.timeout:g} s") from None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError,
                    ConnectionAbortedError) as err:
                if fresh:
                    raise self._fault(FaultKind.CRASH, f"connection closed: {_reason(err)}") from None
                fresh = True
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
            except http.client.IncompleteRead as err:
                raise self._fault(FaultKind.CRASH, f"connection closed mid-answer after {len(err.partial)} bytes") from None
            except (http.client.HTTPException, ssl.SSLError) as err:
                raise self._fault(FaultKind.MALFORMED, f"not an HTTP answer: {type(err).__name__}: "
                                                       f"{str(err)[:200]}") from None
            except OSError as err:
                raise self._fault(FaultKind.CRASH, f"connection failed: {_reason(err)}") from None

    def _remaining(self, deadline: float) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Timeout
        return remaining

    def _post_once(self, body: bytes, deadline: float) -> tuple[int, str, bytes]:
        conn = self._conn if self._conn is not None else self._connect(self._remaining(deadline))
        assert conn.sock is not None
        conn.sock.settimeout(self._remaining(deadline))
        conn.request("POST", self._path, body=body,
                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        conn.sock.settimeout(self._remaining(deadline))
        resp = conn.getresponse()
        limit = self._options.max_line_bytes
        length = resp.getheader("Content-Length")
        if length is not None and length.strip().isdigit() and int(length) > limit:
            conn.close()
            self._conn = None
            raise self._fault(FaultKind.MALFORMED, f"answer of {int(length)} bytes is longer than {limit} bytes")
        data = bytearray()
        while True:
            if conn.sock is not None:
                conn.sock.settimeout(self._remaining(deadline))
            chunk = resp.read(min(READ_CHUNK, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
            if len(data) > limit:
                conn.close()
                self._conn = None
                raise self._fault(FaultKind.MALFORMED, f"answer longer than {limit} bytes")
        if resp.will_close:
            conn.close()
            self._conn = None
        return resp.status, resp.reason, bytes(data)


HOOK_TAIL = 2000
"""Characters of the restart hook's output kept in the fault when it fails."""


class HttpLiveSession(LiveMessages, HttpSession):
    """An HTTP vendor that plays live tables, cut by the lab's restart hook (see the module docstring)."""

    def __init__(self, url: str, options: SessionOptions, state_dir: str) -> None:
        self.state_dir = state_dir
        super().__init__(url, options)

    def write(self, op: str, fields: dict[str, Any]) -> None:
        self._send({"id": self.reserve_id(), "op": op, **fields})

    def write_hello(self) -> None:
        self._send({**hello_request(V2), "state_dir": self.state_dir})

    def wait_answer(self) -> None:
        self._wait([])

    def wait_progress(self) -> None:
        with INotify() as watch:
            watch.add_watch(self.view, STATE_CHANGES)
            self._wait([watch.fileno()])

    def kill(self) -> None:
        """Run the lab's restart hook (the server killed and started again), the connection dropped."""
        self._die()
        hook = self._options.restart_hook
        assert hook is not None, "a live HTTP session needs the lab's restart hook"
        with tempfile.TemporaryFile() as said:      # not a pipe: the server it starts may keep its output open
            try:
                done = subprocess.run(shlex.split(hook), stdin=subprocess.DEVNULL, stdout=said, stderr=said,
                                      timeout=self._options.timeout)
            except (OSError, ValueError, subprocess.TimeoutExpired) as err:
                raise VendorFault(FaultKind.START, f"the lab's restart hook {hook!r} failed: {_reason(err)}") from None
            if done.returncode != 0:
                said.seek(0)
                tail = said.read()[-HOOK_TAIL:].decode("utf-8", errors="replace")
                raise VendorFault(FaultKind.START, f"the lab's restart hook {hook!r} exited with status "
                                                   f"{done.returncode}", tail)

    def _send(self, request: dict[str, Any]) -> None:
        """POST ``request`` and read nothing: it is in flight (CRASH if the server is gone)."""
        self._check_alive()
        body = json.dumps(request, separators=(",", ":"), allow_nan=False).encode("ascii")
        try:
            conn = self._conn if self._conn is not None else self._connect(self._options.timeout)
            conn.request("POST", self._path, body=body,
                         headers={"Content-Type": "application/json", "Accept": "application/json"})
        except (OSError, http.client.HTTPException) as err:
            raise self._fault(FaultKind.CRASH, f"connection failed: {_reason(err)}") from None

    def _wait(self, others: list[int]) -> None:
        """Wait until the response to the request in flight begins to arrive (or the connection
        ends), or one of ``others`` is readable; TIMEOUT after the session's timeout."""
        conn = self._conn
        sock = conn.sock if conn is not None else None
        if sock is None:
            return
        ready, _, _ = select.select([sock, *others], [], [], self._options.timeout)
        if not ready:
            raise self._fault(FaultKind.TIMEOUT, f"no answer within {self._options.timeout:g} s")


def _reason(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err) or type(err).__name__


class HttpAdapter(LiveAdapter, BuildSource):
    """Talks to a vendor serving the protocol at an http(s) URL; plays live tables when the lab
    names its restart hook."""

    name = "http"
    starts_vendor = False           # the lab runs the server: its state_dir is the host's folder
    binding = Binding.ARCHIVE
    not_bound = "the vendor was reached over HTTP: the lab could read none of its files"

    def command_line(self, target: Any) -> str | None:
        return None

    def open(self, target: str, options: SessionOptions) -> HttpSession:
        return HttpSession(target.strip(), options)

    def live_scope(self, options: SessionOptions) -> str | None:
        if options.restart_hook is None:
            return ("the HTTP vendor's server is the lab's and no restart hook was named (--restart-hook CMD): "
                    "it cannot be cut, so its live tables were not played")
        return None

    def open_live(self, target: str, options: SessionOptions, state_dir: str) -> VendorSession:
        return HttpLiveSession(target.strip(), options, state_dir)

    def state_owner(self, target: str, options: SessionOptions) -> tuple[int, int] | None:
        return None
