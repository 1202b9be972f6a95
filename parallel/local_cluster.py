"""A Ray head on this machine, for trying ``certify --ray`` on one machine, for the tests and the
benchmark: ``ray start --head --block`` as a child process in a session of its own, stopped (with
every process below it, by id) when the context ends.

    with local_head(cpus=2) as head:
        ... certify --ray head.address ...
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


STARTUP_S = 180
"""Seconds a head may take to start (a busy machine)."""


@dataclass(frozen=True)
class Head:
    address: str          # host:port to give to --ray
    pid: int              # the ``ray start`` process

    def actor_pids(self, actor_class: str = "VendorActor") -> list[int]:
        """Processes below the head running an actor of ``actor_class``."""
        return [p for p in descendants(self.pid) if cmdline(p).startswith(f"ray::{actor_class}")]


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``, from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [pid]
    while frontier:
        kids = [c for c, p in parent.items() if p == frontier[-1]]
        frontier.pop()
        found += kids
        frontier += kids
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@contextmanager
def local_head(cpus: int = 2) -> Iterator[Head]:
    """A Ray head with ``cpus`` CPUs on 127.0.0.1 (see the module docstring)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = Path(tempfile.mkdtemp(prefix="tablecert-ray-"))
    log = temp / "head.log"
    with open(log, "wb") as out:                   # a file, not a pipe: the head logs as long as it runs
        head = subprocess.Popen([str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
                                 "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", str(cpus),
                                 "--include-dashboard=false", "--disable-usage-stats", "--temp-dir", str(temp)],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_S
        while b"Ray runtime started" not in log.read_bytes():      # the head says when it is up
            if head.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Ray head did not start: " + log.read_text(errors="replace")[-400:])
            time.sleep(0.1)
        yield Head(f"127.0.0.1:{port}", head.pid)
    finally:
        below = descendants(head.pid)
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(temp, ignore_errors=True)
