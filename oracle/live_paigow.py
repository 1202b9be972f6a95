"""Pai gow rounds at a live table: one round after another, each dealt then settled, the bank
passing from the dealer to a player and back (the contract's *Live tables*, ``"game": "paigow"``).

A table is the pai gow config (``{"cap": int}``) and the chips of the players seated at it
(``rack``). Its steps:

* ``{"act": "deal", "dealer": [7 cards], "bank_seat": int | null, "seats": [{"seat", "wager",
  "cards"}, ...]}``: the round's hands as dealt (forced cards, as craps rounds force the dice) and
  who banks it (``null``: the dealer); every wager goes from the rack into action. Refused:
  ``round_dealt`` (a round is dealt and not settled), ``paigow.settle``'s codes for the deal
  (``invalid_request``, ``invalid_hand``, ``invalid_round``), ``insufficient_funds``;
* ``{"act": "settle"}``: the round dealt is settled by exactly :func:`tablecert.oracle.paigow.settle`
  (its seats are the step's events); each seat's win and returned wager go to the rack. Refused:
  ``no_round`` (nothing dealt).

The table after a step: ``{"round": rounds settled, "rack": int, "dealt": DEAL | null}``. A game
of the recall is one round (its deal and its settlement), with the wagers in its one category
``imperial_bonus``. Money is conserved: rack + wagers in action = start + wins paid - wagers lost.
"""

from __future__ import annotations

from typing import Any

from tablecert.oracle import paigow
from tablecert.oracle.errors import CaseError

ACTS = ("deal", "settle")
CATEGORIES = ("imperial_bonus",)
DEAL_FIELDS = ("dealer", "bank_seat", "seats")


class PaigowTable:
    def __init__(self, cap: int, rack: int) -> None:
        self.cap, self.rack = cap, rack
        self.dealt: dict[str, Any] | None = None
        self.rounds = 0
        self.start, self.paid, self.taken = rack, 0, 0

    def in_action(self) -> int:
        return sum(seat["wager"] for seat in self.dealt["seats"]) if self.dealt else 0

    def state(self) -> dict[str, Any]:
        return {"round": self.rounds, "rack": self.rack, "dealt": self.dealt}

    def check_conservation(self) -> None:
        assert self.rack >= 0
        assert self.rack + self.in_action() == self.start + self.paid - self.taken, "money not conserved"


def check_step(step: object) -> dict[str, Any]:
    """A pai gow step's shape (CaseError ``invalid_request``; the deal itself is judged when played)."""
    if not isinstance(step, dict) or step.get("act") not in ACTS:
        raise CaseError("invalid_request", f"a step is an object whose 'act' is one of {', '.join(ACTS)}")
    if step["act"] == "deal":
        missing = [name for name in DEAL_FIELDS if name not in step]
        if missing:
            raise CaseError("invalid_request", f"a deal needs '{missing[0]}'")
    return step


def _refused(table: PaigowTable, code: str) -> dict[str, Any]:
    return {"accepted": False, "error": code, "events": [], "table": table.state()}


def apply_step(table: PaigowTable, step: dict[str, Any]) -> dict[str, Any]:
    """One step on ``table``: its record."""
    events: list[dict[str, Any]] = []
    if step["act"] == "deal":
        if table.dealt is not None:
            return _refused(table, "round_dealt")
        deal = {name: step[name] for name in DEAL_FIELDS}
        try:
            paigow.settle(table.cap, deal)
        except CaseError as err:
            return _refused(table, err.code)
        wagers = sum(seat["wager"] for seat in deal["seats"])
        if wagers > table.rack:
            return _refused(table, "insufficient_funds")
        table.rack -= wagers
        table.dealt = deal
    else:
        if table.dealt is None:
            return _refused(table, "no_round")
        events = paigow.settle(table.cap, table.dealt)["seats"]
        wagers = {seat["seat"]: seat["wager"] for seat in table.dealt["seats"]}
        for seat in events:
            table.paid += seat["total_win"]
            table.taken += wagers[seat["seat"]] if seat["wager_lost"] else 0
            table.rack += seat["total_win"] + seat["wager_returned"]
        table.dealt = None
        table.rounds += 1
    table.check_conservation()
    return {"accepted": True, "error": None, "events": events, "table": table.state()}


def ends_game(step: dict[str, Any], record: dict[str, Any]) -> bool:
    return step.get("act") == "settle" and record["accepted"]


def wagered(step: dict[str, Any], record: dict[str, Any], before: dict[str, Any]) -> tuple[str, int] | None:
    if step["act"] == "deal" and record["accepted"]:
        return "imperial_bonus", sum(seat["wager"] for seat in step["seats"])
    return None


def initial_table(rack: int) -> dict[str, Any]:
    return {"round": 0, "rack": rack, "dealt": None}


def play(cap: int, case: object) -> dict[str, Any]:
    """A pai gow live vector's expected answer: ``{"steps": [record, ...]}``."""
    if not isinstance(case, dict) or not isinstance(case.get("steps"), list) or not isinstance(case.get("rack"), int):
        raise CaseError("invalid_request", "a case is {rack, steps}")
    table = PaigowTable(cap, case["rack"])
    return {"steps": [apply_step(table, check_step(step)) for step in case["steps"]]}
