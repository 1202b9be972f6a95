"""Python vendors for the parallel-run tests: one with wrong answers, one that crashes on a few
cases wherever they sit in a request (found by bisection), one that crashes on a whole op (given
up after three batches)."""

from __future__ import annotations

import hashlib
import threading
import json
from typing import Any

from tablecert.oracle.vendor import ReferenceVendor


class RoundsCommissionUp(ReferenceVendor):
    """Wrong answers: commissions rounded up instead of down."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "craps.place_odds" and isinstance(request.get("config"), dict):
            request = dict(request, config=dict(request["config"], commission_rounding="up"))
        return super().handle(request)


def poisoned(case: Any) -> bool:
    """About one case in 400, chosen by its content (the same wherever it is sent)."""
    digest = hashlib.sha256(json.dumps(case, sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:4], "big") % 400 == 0


class CrashesOnSomeCases(RoundsCommissionUp):
    """Wrong answers, and a crash on any request holding a poisoned case."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if any(poisoned(c) for c in request.get("cases") or []):
            raise RuntimeError("segfault in the odds engine")
        return super().handle(request)


class CrashesOnPaigowSettle(RoundsCommissionUp):
    """Wrong answers, and a crash on every paigow.settle request (the op is given up)."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "paigow.settle":
            raise RuntimeError("segfault in the settlement engine")
        return super().handle(request)


class Starts:
    """What the counting vendors below did in this process: the thread each instance was started
    on, and their byes (a closed session says bye)."""

    threads: list[str] = []
    byes = 0

    @classmethod
    def reset(cls) -> None:
        cls.threads, cls.byes = [], 0


STARTING_THREAD = "vendor-start"
"""The name prefix of the threads that start a pool's other vendors beside the runner's greeting
(parallel/scheduler.py StartedVendors)."""


class Counted(ReferenceVendor):
    """The reference vendor, counting its starts and byes (:class:`Starts`)."""

    def __init__(self) -> None:
        super().__init__()
        self.started_on = threading.current_thread().name      # the thread that opened the session
        Starts.threads.append(self.started_on)

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "bye":
            Starts.byes += 1
        return super().handle(request)


class AnotherBuildBesideTheGreeting(Counted):
    """Says it is another build when started beside the runner's greeting (a node set up
    differently): that instance must not be used."""

    def hello(self) -> dict[str, Any]:
        said = super().hello()
        if self.started_on.startswith(STARTING_THREAD):
            said["implementation"] = dict(said["implementation"], build="another build")
        return said


class FirstGreetingCrashes(Counted):
    """Crashes on the runner's own greeting (opened on the main thread); an instance started beside it
    greets properly, and must be closed when the run cannot start."""

    def handle(self, request: Any) -> dict[str, Any]:
        if (isinstance(request, dict) and request.get("op") == "hello"
                and self.started_on == threading.main_thread().name):
            raise RuntimeError("cannot open the odds tables")
        return super().handle(request)
