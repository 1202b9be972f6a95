"""The refusals of a ``craps.round`` step, as the contract orders them (harness/vendor-protocol.md,
*Craps rounds*: "Codes, first applicable wins"), in one table, :data:`REFUSALS`.

:func:`reasons` says every refusal that applies to a step on a table, each judged on its own (not
stopping at the first), in the contract's order. So the oracle's answer must be the first of them
(tests/test_round_edges.py checks it on every step of the suites), and a step with exactly two
reasons tells whether a vendor checks them in the contract's order: a vendor that checks the
second first answers it instead. :func:`ordered_pairs` lists every pair the order ranks, for each
act; :data:`UNREACHABLE` the pairs no table can present together, each with why.

A reason is judged from what the step and the layout show, the way an engine may check it:

* amounts on their own: ``not_positive`` (a flat of 0 or less; odds below 0, since odds of 0
  remove them), ``bad_increment`` (not a multiple of the unit; for odds behind a bet with a point
  under ``payout_rounding: exact``, a win that is not whole), ``insufficient_funds`` (the chips
  the step would move from the rack, more than it holds);
* a bet id names its kind and point even when the bet is not on the layout (``come`` has none,
  ``come6`` has 6, ``pass`` the table's): ``no_point`` and ``not_removable`` follow from it, so a
  step on a missing ``come`` bet is refused for two reasons (``no_such_bet`` first);
* ``no_odds``: the id has no odds on the layout (no bet, or odds of 0);
* ``bet_exists``: the kind's spot holds a bet that the step may not press (every bet, unless the
  house rule ``press_unset`` lets a line bet before its point be increased, INT-PRESS-UNSET);
* limits (``above_maximum``) and commissions need the bet's flat: only for a bet on the layout.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import BET_IDS, BOX_BETS, KINDS, LINE_BETS, Bet, Table
from tablecert.oracle.errors import CaseError
from tablecert.oracle.table_config import is_int

REFUSALS: dict[str, tuple[str, ...]] = {
    "bet": ("invalid_bet", "point_on", "no_point", "bet_exists", "not_positive", "bad_increment",
            "insufficient_funds"),
    "odds": ("no_such_bet", "no_point", "not_positive", "bad_increment", "above_maximum", "insufficient_funds"),
    "working": ("no_such_bet", "no_odds"),
    "take_down": ("no_such_bet", "not_removable"),
    "roll": ("invalid_dice",),
}
"""act -> its refusal codes, first applicable wins (the contract's list, checked against its text)."""

UNREACHABLE: dict[tuple[str, str, str], str] = {
    ("bet", "invalid_bet", "point_on"): "point_on is of a line bet, a known kind",
    ("bet", "invalid_bet", "no_point"): "no_point is of a come or don't come bet, a known kind",
    ("bet", "point_on", "no_point"): "a kind is a line bet or a box bet, not both",
    ("bet", "no_point", "bet_exists"): "a bet in the box travels or is decided on the roll that ends the point",
    ("bet", "not_positive", "insufficient_funds"): "a rack is never below 0, so 0 or less is always there",
    ("odds", "no_such_bet", "above_maximum"): "the maximum is of the bet's flat: no bet, no limit",
    ("odds", "no_point", "above_maximum"): "the maximum is of the bet's point: no point, no limit",
    ("odds", "not_positive", "above_maximum"): "odds below 0 are below every maximum",
    ("odds", "not_positive", "insufficient_funds"): "odds below 0 would hand chips back",
}
"""(act, first, second) -> why no table presents both reasons at once."""


def ordered_pairs() -> list[tuple[str, str, str]]:
    """Every (act, first, second) the contract's order ranks, ``first`` before ``second``."""
    return [(act, a, b) for act, codes in REFUSALS.items() for a, b in combinations(codes, 2)]


def reachable_pairs() -> list[tuple[str, str, str]]:
    """The ordered pairs a table can present together (every pair but :data:`UNREACHABLE`)."""
    return [pair for pair in ordered_pairs() if pair not in UNREACHABLE]


def kind_and_point(table: Table, bet_id: str) -> tuple[str, int | None] | None:
    """What a bet id names: (kind, its own point), the table's point for a line bet; None for an
    id that names no bet."""
    if bet_id not in BET_IDS:
        return None
    if bet_id in KINDS:
        return bet_id, (table.point if bet_id in LINE_BETS else None)
    kind = "dont_come" if bet_id.startswith("dont_come") else "come"
    return kind, int(bet_id[len(kind):])


def reasons(table: Table, step: dict[str, Any]) -> tuple[str, ...]:
    """Every refusal that applies to ``step`` (a well-formed step) on ``table``, in the contract's
    order; () for a step the table accepts."""
    act = step["act"]
    found = set(_odds_reasons(table, step) if act == "odds" else _bet_reasons(table, step) if act == "bet"
                else _other_reasons(table, step))
    return tuple(code for code in REFUSALS[act] if code in found)


def _bet_reasons(t: Table, step: dict[str, Any]) -> set[str]:
    kind, amount = step["bet"], step["amount"]
    return {code for code, applies in (
        ("invalid_bet", kind not in KINDS),
        ("point_on", kind in LINE_BETS and t.point is not None),
        ("no_point", kind in BOX_BETS and t.point is None),
        ("bet_exists", kind in t.bets and not t.pressable(t.bets[kind])),
        ("not_positive", amount <= 0),
        ("bad_increment", amount % t.cfg.unit != 0),
        ("insufficient_funds", amount > t.rack)) if applies}


def _odds_reasons(t: Table, step: dict[str, Any]) -> set[str]:
    bet_id, amount = step["bet"], step["amount"]
    named, bet = kind_and_point(t, bet_id), t.bets.get(bet_id)
    found = {code for code, applies in (
        ("no_such_bet", bet is None),
        ("no_point", named is not None and named[1] is None),
        ("not_positive", amount < 0),
        ("bad_increment", amount % t.cfg.unit != 0)) if applies}
    if bet is None or t.own_point(bet) is None:
        return found | ({"insufficient_funds"} if amount > t.rack else set())
    point = t.own_point(bet)
    assert point is not None
    win = craps.odds_win_exact(bet.kind, point, amount)
    if amount and t.cfg.payout_rounding == "exact" and win.denominator != 1:
        found.add("bad_increment")
    _, top, commission = odds_price(t, bet, amount)
    if amount > top:
        found.add("above_maximum")
    if amount - bet.odds + commission - bet.commission > t.rack:
        found.add("insufficient_funds")
    return found


def odds_price(t: Table, bet: Bet, amount: int) -> tuple[int, int, int]:
    """(free odds, maximum, commission of ``amount`` in all) behind ``bet``, which has a point: its
    own flat and point (the contract's basis), whatever the amount (0 for none or less)."""
    kind, flat, point = bet.kind, bet.flat, t.own_point(bet)
    limits = t.config.single(craps.odds_limits, bet=kind, flat=flat, point=point)
    if amount <= 0:
        return limits["free_odds"], limits["max_odds"], 0
    try:
        commission = t.config.single(craps.place_odds, bet=kind, flat=flat, point=point, odds=amount)["commission"]
    except CaseError:       # above the maximum or not a whole win: the rate on the whole odds all the same
        assert point is not None
        commission = craps.commission(t.cfg, kind, flat, point, amount)
    return limits["free_odds"], limits["max_odds"], commission


def _other_reasons(t: Table, step: dict[str, Any]) -> set[str]:
    act = step["act"]
    if act == "roll":
        dice = step["dice"]
        return set() if len(dice) == 2 and all(is_int(d) and 1 <= d <= 6 for d in dice) else {"invalid_dice"}
    bet_id = step["bet"]
    bet, named = t.bets.get(bet_id), kind_and_point(t, bet_id)
    found = {"no_such_bet"} if bet is None else set()
    if act == "working":
        return found | ({"no_odds"} if bet is None or bet.odds == 0 else set())
    if named is not None:       # INT-TAKE-DOWN of the bet the id names, on the layout or not
        kind, point = named
        if not Table.removable(t, bet or Bet(kind, None if kind in LINE_BETS else point, 0)):
            found.add("not_removable")
    return found
