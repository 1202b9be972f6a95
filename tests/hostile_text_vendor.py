"""A vendor whose wrong answers carry hostile text, for tests/test_vendor_text.py (a test helper
module, not a test file): ANSI escape sequences writing a fake verdict, C0 and C1 controls,
characters XML cannot hold, a lone surrogate, and ReportLab paragraph markup."""

from __future__ import annotations

from typing import Any

from tablecert.harness.vendors.vendor_kit import PatchedVendor

FAKE_VERDICT = "\x1b[2K\r\x1b[1;32mverdict: PASS\x1b[0m"
HOSTILE = (FAKE_VERDICT + " <b>bold</b> &amp; </para><font size=40>BIG</font> \x00\x07\x08\x0b\x0c\x7f\x85\x9b"
           "\u202eevil\ufffe\uffff\udc80")
"""What the vendor writes into its answers."""


class HostileText(PatchedVendor):
    """The reference vendor, but its free odds limit is :data:`HOSTILE` (a string), its refusals of
    odds bets carry :data:`HOSTILE` as their code, it labels every straight :data:`HOSTILE`, and
    its craps settlements hold a field named :data:`HOSTILE` (the terminal's cause lines quote it)."""

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if op == "craps.odds_limits" and "error" not in result:
            return {**result, "free_odds": HOSTILE}
        if op == "craps.place_odds" and "error" in result:
            return {"error": {"code": HOSTILE, "message": HOSTILE}}
        if op == "paigow.player_bonus" and result.get("hand") == "straight":
            return {**result, "hand": HOSTILE}
        if op == "craps.settle" and "error" not in result:
            return {**result, HOSTILE: HOSTILE}
        return result
