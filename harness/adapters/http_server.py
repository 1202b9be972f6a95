"""A tiny HTTP front for a Python vendor: what the HTTP adapter talks to, for vendors and tests.

:func:`serve_http` serves ``vendor.handle`` at ``http://HOST:PORT/`` (any path): each POST body is
one request object, each response body one answer object (HTTP/1.1, kept-alive connections).
A body that is not JSON is answered like the reference vendor answers a non-JSON line
(``{"id": null, "error": {"code": "invalid_request", ...}}``); an exception raised by the vendor
is a ``500``. Calls into the vendor are serialised (a plugin need not be thread-safe).

The server runs in a daemon thread; ``server.shutdown()`` stops it completely: no new
connections, and every open connection is closed. Only loopback addresses are bound unless
``allow_remote=True``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tablecert.harness.contract import PythonVendor

MAX_BODY_BYTES = 256 << 20
log = logging.getLogger(__name__)


class VendorHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer whose shutdown() also closes the connections it has open."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], vendor: PythonVendor, max_body: int = MAX_BODY_BYTES) -> None:
        self.vendor = vendor
        self.max_body = max_body
        self.vendor_lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._stopped = False
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            if self._stopped:
                self.shutdown_request(request)
                return
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that goes away is routine; anything else is logged (never printed)."""
        err = sys.exc_info()[1]
        if isinstance(err, ConnectionError):
            log.debug("connection from %s ended: %s", client_address, err)
        else:
            log.warning("error serving %s", client_address, exc_info=True)

    def shutdown(self) -> None:
        """Stop serving, close the listening socket and every open connection."""
        with self._open_lock:
            self._stopped = True
            connections = list(self._open)
        super().shutdown()
        self.server_close()
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16   # buffered: headers and a small body leave in one segment
    server: VendorHTTPServer

    def setup(self) -> None:
        super().setup()
        # Small answers must not wait for the client's delayed ACK (Nagle's algorithm).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, status: int, payload: Any) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _error(self, status: int, code: str, message: str) -> None:
        self.close_connection = True
        self._send(status, {"id": None, "error": {"code": code, "message": message}})

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length_text = self.headers.get("Content-Length")
        if length_text is None or not length_text.strip().isdigit():
            self._error(411, "invalid_request", "a Content-Length is required")
            return
        length = int(length_text)
        if length > self.server.max_body:
            self._error(413, "invalid_request", f"request body over {self.server.max_body} bytes")
            return
        raw = self.rfile.read(length)
        if len(raw) < length:   # the client went away mid-request
            self.close_connection = True
            return
        try:
            request = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as err:
            self._send(200, {"id": None, "error": {"code": "invalid_request", "message": f"not JSON: {err}"}})
            return
        try:
            with self.server.vendor_lock:
                answer = self.server.vendor.handle(request)
            self._send(200, answer)
        except Exception as err:  # noqa: BLE001 - any vendor failure is a 500, the server goes on
            log.warning("vendor raised %s: %s", type(err).__name__, err)
            self._error(500, "vendor_error", f"vendor raised {type(err).__name__}: {err}")

    def do_GET(self) -> None:  # noqa: N802
        self._error(405, "invalid_request", "POST a request object")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        log.debug("%s " + format, self.address_string(), *args)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_http(vendor: PythonVendor, host: str = "127.0.0.1", port: int = 0, *,
               allow_remote: bool = False) -> tuple[VendorHTTPServer, str]:
    """Serve ``vendor`` over HTTP in a daemon thread: ``(server, url)``; ``server.shutdown()``
    stops it. ``port=0`` picks a free port."""
    if not allow_remote and not _is_loopback(host):
        raise ValueError(f"refusing to bind {host!r}: not a loopback address (pass allow_remote=True)")
    server = VendorHTTPServer((host, port), vendor)
    bound_host, bound_port = server.server_address[:2]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else str(bound_host)
    url = f"http://{shown}:{bound_port}/"
    threading.Thread(target=server.serve_forever, args=(0.1,), name=f"vendor-http-{bound_port}", daemon=True).start()
    return server, url
