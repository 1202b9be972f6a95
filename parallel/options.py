"""How a certify run is spread (``--workers``, ``--ray``, ``--shard``): the options, their
command-line arguments, and the hook the runner calls instead of its one-worker loop."""

from __future__ import annotations

import argparse
import re
import socket
from importlib.util import find_spec
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablecert.harness.adapters import VendorTarget
    from tablecert.harness.run.runner import Runner
    from tablecert.parallel.ray_pool import RayConnection


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based, as the command line says it: ``--shard 2/3``)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not m or not 1 <= int(m[1]) <= int(m[2]):
            raise ValueError(f"--shard {text!r}: give K/N with 1 <= K <= N (e.g. 2/3)")
        return cls(int(m[1]), int(m[2]))

    def holds(self, seq: int) -> bool:
        return seq % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class ParallelOptions:
    """``workers`` vendor instances on this machine, or (``ray_address``) Ray actors on a cluster
    (``workers`` of them; 0: one per CPU of the cluster), and the ``shard`` of the run's units
    this run folder holds (None: all). ``vendor`` is the run's vendor target (adapter, target,
    confined session options), which Ray actors open on their nodes."""

    workers: int = 1
    ray_address: str | None = None
    shard: Shard | None = None
    vendor: VendorTarget | None = None

    def start(self) -> RayConnection | None:
        """What the runner calls before it greets its vendor: for a Ray run, the connection to
        the cluster, begun in the background
        (:class:`~tablecert.parallel.ray_pool.RayConnection`); given back to :meth:`run`, and
        cancelled by the runner whatever happens."""
        if self.ray_address is None:
            return None
        from tablecert.parallel.ray_pool import RayConnection

        return RayConnection(self.ray_address)

    def run(self, runner: Runner, done: set[tuple[str, str, int]], total: int,
            connection: RayConnection | None) -> None:
        """What the runner calls instead of its one-worker loop (``connection``: what
        :meth:`start` gave)."""
        from tablecert.parallel.scheduler import run_scheduled

        run_scheduled(runner, done, total, self, connection)


HEAD_ANSWER_S = 10
"""Seconds a Ray head's port has to accept a connection before the run says no head answers there
(Ray itself would retry for minutes, logging to the terminal)."""


def head_silent(address: str) -> str | None:
    """Why nothing accepts connections at the Ray head ``address`` (``host:port``), in one line;
    None if something does, or for other forms of address (``auto``, ``ray://``), left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return None
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=HEAD_ANSWER_S).close()
    except OSError as err:
        return (f"--ray {address}: no Ray head answers there ({err.strerror or err}); start one with "
                "'ray start --head' or give its address")
    return None


def parallel_options(workers: int | None, ray: str | None, shard: str | None) -> ParallelOptions | None:
    """The options of the command line (ValueError naming the option if one is wrong); None for a
    plain one-worker run of the whole suite."""
    if workers is not None and workers < (0 if ray else 1):
        raise ValueError(f"--workers {workers}: give at least 1" + (" (0 with --ray: one per CPU)" if ray else ""))
    if ray is not None and find_spec("ray") is None:      # imported as the run connects, beside the greeting
        raise ValueError("--ray needs Ray: pip install 'tablecert[ray]'")
    if ray is not None and (why := head_silent(ray)):     # before any run folder is made
        raise ValueError(why)
    parsed = Shard.parse(shard) if shard is not None else None
    if ray is None and parsed is None and (workers or 1) == 1:
        return None
    return ParallelOptions(workers=1 if workers is None and ray is None else (workers or 0), ray_address=ray,
                           shard=parsed)


def add_parallel_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, metavar="N", help="run N vendor instances at once (default 1); batches "
                   "go to whichever is free, results are those of a one-instance run. With --ray: actors on the "
                   "cluster (default one per CPU)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the vendor instances as actors of this Ray cluster "
                   "(host:port of its head; needs tablecert[ray] and the vendor's command on every node)")
    p.add_argument("--shard", metavar="K/N", help="run only shard K of N of the suite's batches (the K-th of "
                   "every N in run order) into OUT; join the N shard folders with 'tablecert merge'")


