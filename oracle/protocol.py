"""The versions of the vendor contract and the one rule that separates them.

``tablecert-vendor/2`` adds to ``tablecert-vendor/1`` what happens to every stake (the settle
results' stake dispositions and amounts handed back) and whether the odds are working (the
settle case's ``odds_working``). Its shapes are additive: a v1 answer is the v2 answer without
the new keys, and a v1 case is the v2 case without ``odds_working``, read as working. This module
states that projection once; the reference vendor (answering a v1 session) and the harness
(judging a v1 vendor, :mod:`tablecert.harness.protocol_versions`) both use it.
"""

from __future__ import annotations

from typing import Any

V1 = "tablecert-vendor/1"
V2 = "tablecert-vendor/2"
SPOKEN = (V2, V1)
"""Every version this release speaks, newest first (v1 is kept for one release)."""

V2_OPS = ("craps.round",)
"""Ops new in v2 (New in this release): a v1 session never declares them."""
V2_CASE_KEYS = {"craps.settle": ("odds_working",)}
"""Case fields new in v2, per op."""
V2_RESULT_KEYS = {"craps.settle": ("flat_stake", "odds_stake", "flat_returned", "odds_returned")}
"""Result fields new in v2, per op (results holding a list of seats: see V2_SEAT_KEYS)."""
V2_SEAT_KEYS = {"paigow.settle": ("wager_returned",)}
"""Fields of each result seat new in v2, per op."""


def v1_expressible(op: str, case: Any) -> bool:
    """Whether a v2 case means the same to a v1 vendor once its v2 fields are dropped: every case
    but a settle case whose odds are not plainly working (``odds_working`` false, missing or not a
    boolean: v1 has no way to say so)."""
    return not (op in V2_CASE_KEYS and isinstance(case, dict) and case.get("odds_working") is not True)


def v1_case(op: str, case: Any) -> Any:
    """A v2 case as sent to a v1 vendor: its v2 fields dropped."""
    drop = V2_CASE_KEYS.get(op)
    if not drop or not isinstance(case, dict):
        return case
    return {k: v for k, v in case.items() if k not in drop}


def v2_case(op: str, case: Any) -> Any:
    """A case from a v1 session read as v2: the odds working (v1's only meaning)."""
    if op in V2_CASE_KEYS and isinstance(case, dict):
        return {**case, "odds_working": True}
    return case


def v1_result(op: str, result: Any) -> Any:
    """A v2 result (or expected result) as v1 states it: its v2 fields dropped. Errors, and values
    that are not results, are unchanged."""
    if not isinstance(result, dict) or "error" in result:
        return result
    drop = V2_RESULT_KEYS.get(op)
    if drop:
        return {k: v for k, v in result.items() if k not in drop}
    seat_drop = V2_SEAT_KEYS.get(op)
    if seat_drop and isinstance(result.get("seats"), list):
        return {**result, "seats": [{k: v for k, v in seat.items() if k not in seat_drop}
                                    if isinstance(seat, dict) else seat for seat in result["seats"]]}
    return result
