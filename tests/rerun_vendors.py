"""Vendors for tests/test_rerun_failed.py: the demo vendor's next builds, each counting the cases it
is sent (one line per request, ``op cases``, appended to the file named by $TABLECERT_SENT_LOG),
so a test counts what a rerun really sent from the vendor's side (nothing is counted without it)."""

from __future__ import annotations

import os
from typing import Any

from tablecert.harness.vendors.demo_vendor import DemoVendor


class Counting(DemoVendor):
    """The demo vendor (three bugs), counting the cases of every request it gets."""

    def handle(self, request: object) -> dict[str, Any]:
        if isinstance(request, dict) and isinstance(request.get("cases"), list) and "TABLECERT_SENT_LOG" in os.environ:
            with open(os.environ["TABLECERT_SENT_LOG"], "a", encoding="utf-8") as log:
                log.write(f"{request.get('op')} {len(request['cases'])}\n")
        return super().handle(request)


class FixedCommission(Counting):
    """Build 3.2.1: bug 1 fixed (the commission on a ``down`` table rounded down, as the
    reference does), bugs 2 and 3 left."""

    version = "3.2.1"
    build = "3.2.1+demo.20250618.b52d0f3"

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if op == "craps.place_odds":
            return result
        return super().answer(op, config, case, result)


class CrashesOnSettle(Counting):
    """A build that dies on every ``paigow.settle`` request (a crash fault each time)."""

    build = "3.2.0+demo.crash"

    def handle(self, request: object) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "paigow.settle":
            os._exit(3)
        return super().handle(request)
