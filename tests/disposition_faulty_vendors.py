"""Vendors of tablecert-vendor/2 that get one stake disposition wrong, for proving that the
settle vectors catch each: every class is the reference vendor with EXACTLY ONE fault, computed
from the oracle's answer (nothing of the oracle is patched).

Run one as a vendor process: ``python tests/disposition_faulty_vendors.py CLASSNAME``.
A test helper module (tests/test_stake_dispositions.py), not a test file.
"""

from __future__ import annotations

import sys
from typing import Any

from tablecert.harness.vendors.vendor_kit import PatchedVendor
from tablecert.oracle import craps
from tablecert.oracle.protocol import V1
from tablecert.oracle.vendor import serve


def _settle_result(op: str, result: dict[str, Any]) -> bool:
    return op == "craps.settle" and "error" not in result


class ReturnsLostStake(PatchedVendor):
    """A lost stake is handed back (the issue's engine: a seven-out returns the come odds)."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if _settle_result(op, result):
            for part in ("flat", "odds"):
                if result[f"{part}_stake"] == "taken":
                    result = {**result, f"{part}_stake": "returned", f"{part}_returned": case[part]}
        return result


class KeepsPushedStake(PatchedVendor):
    """A pushed flat (the don't side's bar number) is kept instead of handed back."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if _settle_result(op, result) and result["outcome"] == "push":
            return {**result, "flat_stake": "taken", "flat_returned": 0}
        return result


class ForgetsWinningStake(PatchedVendor):
    """A winning bet is paid its win but its stake is not handed back."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if _settle_result(op, result):
            for part in ("flat", "odds"):
                if result[f"{part}_stake"] == "won":
                    result = {**result, f"{part}_returned": 0}
        return result


class OddsAlwaysWorking(PatchedVendor):
    """``odds_working`` ignored: odds are always settled with their flat bet."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if _settle_result(op, result):
            return craps.settle(config, {**case, "odds_working": True})
        return result


class OddsNeverWorking(PatchedVendor):
    """``odds_working`` ignored the other way: odds are always off (returned on a deciding roll)."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if _settle_result(op, result):
            return craps.settle(config, {**case, "odds_working": False})
        return result


#: (class, the flags whose vectors must catch it)
DISPOSITION_FAULTY_VENDORS = [
    (ReturnsLostStake, {"StakeDisposition"}),
    (KeepsPushedStake, {"BarNumber"}),
    (ForgetsWinningStake, {"StakeDisposition", "FlatPayout"}),
    (OddsAlwaysWorking, {"OddsOff"}),
    (OddsNeverWorking, {"PayoutRatio", "StakeDisposition"}),
]



class UnknownProtocol(PatchedVendor):
    """Answers the hello naming a version the harness did not offer (a ``bad_hello``)."""

    def handle(self, request: object) -> dict[str, Any]:
        response = super().handle(request)
        if isinstance(request, dict) and request.get("op") == "hello":
            response["protocol"] = "tablecert-vendor/9"
        return response


class SilentV1(PatchedVendor):
    """A vendor of the earlier contract that ignores the hello's version: its answer names none."""

    def handle(self, request: object) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "hello":
            self.protocol = V1
            return {"id": request.get("id"), **self.hello()}
        return super().handle(request)


if __name__ == "__main__":
    VENDORS = {cls.__name__: cls for cls in (*(c for c, _ in DISPOSITION_FAULTY_VENDORS), UnknownProtocol, SilentV1)}
    sys.exit(serve(sys.stdin, sys.stdout, VENDORS[sys.argv[1]]()))
