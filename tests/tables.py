"""Table configurations shared by the tests (a test helper module, not a test file)."""

from __future__ import annotations

from typing import Any


def raw_config(**over: Any) -> dict[str, Any]:
    """A protocol craps table config: 3-4-5x free odds, up to 10x with a 5% commission rounded
    down to the cent, $1 unit, exact payouts, bar 12; keyword arguments replace fields."""
    base: dict[str, Any] = {
        "unit": 100,
        "free_odds": {"4": "3", "5": "4", "6": "5", "8": "5", "9": "4", "10": "3"},
        "max_odds": {"4": "10", "5": "10", "6": "10", "8": "10", "9": "10", "10": "10"},
        "commission_rate": "0.05",
        "commission_rounding": "down",
        "commission_unit": 1,
        "payout_rounding": "exact",
        "bar": 12,
    }
    base.update(over)
    return base
