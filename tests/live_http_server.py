"""A live vendor served over HTTP in a process of its own, and the lab's restart hook that cuts it.

    python tests/live_http_server.py serve VENDOR PORT         # serve, print "ready" once bound
    python tests/live_http_server.py restart VENDOR PORT PIDFILE  # the hook: SIGKILL, start again

``VENDOR`` is ``reference`` (the reference vendor: its tables in the ``state_dir`` its hello
names) or ``memory-only`` (the same vendor keeping its tables in memory only: a real cut loses
them). ``restart`` is what a lab names with ``--restart-hook``: it kills the server whose pid is in
``PIDFILE`` with SIGKILL (no warning), waits until it is gone, starts a new one on the same port
(its pid written to ``PIDFILE``), and exits once the new one says it is bound: observable
progress, never a timer. The first server is started the same way (``restart`` with no pid yet).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

from live_faulty_vendors import FaultyLiveVendor, MemoryOnly
from tablecert.harness.adapters.http_server import serve_http
from tablecert.oracle.vendor import ReferenceVendor


class MemoryOnlyVendor(FaultyLiveVendor):
    """Keeps its live tables in memory only (as a Python plugin or behind HTTP)."""

    journal_class = MemoryOnly


VENDORS = {"reference": ReferenceVendor, "memory-only": MemoryOnlyVendor}


def serve(vendor: str, port: int) -> None:
    server, _ = serve_http(VENDORS[vendor](), port=port)
    print("ready", flush=True)
    sys.stdout.close()
    threading.Event().wait()


def restart(vendor: str, port: int, pidfile: Path) -> None:
    if pidfile.exists():
        kill(int(pidfile.read_text()))
    proc = subprocess.Popen([sys.executable, __file__, "serve", vendor, str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    pidfile.write_text(str(proc.pid))
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != b"ready":
        sys.exit(f"the server on port {port} did not start")


def kill(pid: int) -> None:
    """SIGKILL ``pid`` and wait until it has ended (a pidfd, readable once it is gone: the server
    is never this hook's child, so it cannot be waited for)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        os.kill(pid, signal.SIGKILL)
        select.select([fd], [], [])
    finally:
        os.close(fd)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        restart(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]))
