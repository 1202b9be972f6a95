"""Python vendors for the parallel-run tests: one with wrong answers, one that crashes on a few
cases wherever they sit in a request (found by bisection), one that crashes on a whole op (given
up after three batches)."""

from __future__ import annotations

import hashlib
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


class FirstHelloCrashes(RoundsCommissionUp):
    """Crashes on the first hello of this process (a vendor that fails its first start once)."""

    hellos = 0

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "hello":
            type(self).hellos += 1
            if type(self).hellos == 1:
                raise RuntimeError("licence server not reachable yet")
        return super().handle(request)
