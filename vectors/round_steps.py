"""The steps of a ``craps.round`` case as the round suites write them (:mod:`round_cases`,
:mod:`round_edges`): a flat bet, odds, a working call, a take-down and a forced roll of a total
(one pair of dice stands for each total: line bets turn on totals only), and the player's flat
and rack in units of the table."""

from __future__ import annotations

from typing import Any

from tablecert.oracle.craps_round import DICE_OF_TOTAL

Step = dict[str, Any]
RACK_UNITS = 100_000
FLAT_UNITS = 5


def bet(kind: str, amount: int) -> Step:
    return {"act": "bet", "bet": kind, "amount": amount}


def odds(bet_id: str, amount: int) -> Step:
    return {"act": "odds", "bet": bet_id, "amount": amount}


def call(bet_id: str, working: bool) -> Step:
    return {"act": "working", "bet": bet_id, "working": working}


def take_down(bet_id: str) -> Step:
    return {"act": "take_down", "bet": bet_id}


def roll(total: int) -> Step:
    return {"act": "roll", "dice": list(DICE_OF_TOTAL[total])}
