"""The vocabulary of a spread run, at the bottom of ``parallel/``: :class:`Shard` (which units a
run folder holds), :class:`Spread` (how a run is spread: workers, Ray cluster, shard, the vendor's
target) and :func:`head_silent` (whether a Ray head answers at an address). Every other module of
the folder may import this one; it imports none of them.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablecert.harness.adapters.registry import VendorTarget


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
class Spread:
    """``workers`` vendor instances on this machine, or (``ray_address``) Ray actors on a cluster
    (``workers`` of them; 0: one per CPU of the cluster), and the ``shard`` of the run's units
    this run folder holds (None: all). ``vendor`` is the run's vendor target (adapter, target,
    confined session options), which Ray actors open on their nodes."""

    workers: int = 1
    ray_address: str | None = None
    shard: Shard | None = None
    vendor: VendorTarget | None = None


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
