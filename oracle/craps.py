"""Craps line bets with free odds and commission: the three protocol ops ``craps.odds_limits``,
``craps.place_odds`` and ``craps.settle`` of ``tablecert-vendor/2``, as pure functions of a
:class:`~tablecert.oracle.table_config.TableConfig` and one JSON-shaped case.

Each op returns the protocol's result object or raises
:class:`~tablecert.oracle.errors.CaseError` with the protocol's code. Codes are checked in the
protocol's order and the first that applies is the answer:

1. ``invalid_request``: the case is not an object, a field is missing, or a field has the wrong
   JSON type (``bet`` not a string; ``flat``/``odds`` not an integer; ``point`` neither null nor an
   integer; ``dice`` not a list; ``odds_working`` of settle not a JSON boolean). A JSON boolean is
   not an integer.
2. ``invalid_bet``: not pass, dont_pass, come, dont_come.
3. ``invalid_point``: not null, 4, 5, 6, 8, 9 or 10.
4. ``invalid_dice`` (settle): not two integers from 1 to 6.
5. ``no_point``: odds_limits and place_odds on a bet with no point; settle with odds above 0 on a
   bet with no point.
6. ``not_positive``: flat of 0 or less; place_odds odds of 0 or less; settle odds below 0.
7. ``bad_increment``: flat or odds not a multiple of ``unit``; under ``payout_rounding: exact`` odds
   whose win is not a whole number of minor units.
8. ``above_maximum``: odds above the max odds limit.

Each op checks only the fields it uses (extra fields are ignored). Payout odds and the commission
ceiling come from ``rules/craps.toml``; the readings are INT-DONT-LIMIT-ON-WIN,
INT-COMMISSION-BASE, INT-CRAPS-LINE-BETS and INT-ODDS-WORKING of the interpretation register. All money is integers
of minor units; no float is used.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tablecert.oracle.errors import CaseError
from tablecert.oracle.table_config import (
    BETS,
    POINTS,
    TableConfig,
    craps_rules,
    floor_div,
    is_int,
    round_to_unit,
)

#: Come-out totals (INT-CRAPS-LINE-BETS): pass/come win on a natural, lose on craps; the don't
#: side the other way round, except that the bar number (config ``bar``) is a push.
NATURALS = frozenset({7, 11})
CRAPS = frozenset({2, 3, 12})
SEVEN = 7

_TYPES = {
    "bet": ("a string", lambda v: isinstance(v, str)),
    "flat": ("an integer", is_int),
    "point": ("null or an integer", lambda v: v is None or is_int(v)),
    "odds": ("an integer", is_int),
    "dice": ("a list", lambda v: isinstance(v, list)),
    "odds_working": ("a JSON boolean", lambda v: isinstance(v, bool)),
}

#: What happens to a stake on one roll (``flat_stake``/``odds_stake`` of a settle result): paid and
#: handed back, lost, handed back without a win, left on the table, or no such stake.
WON, TAKEN, RETURNED, IN_ACTION, NONE = "won", "taken", "returned", "in_action", "none"
STAKE_DISPOSITIONS = (WON, TAKEN, RETURNED, IN_ACTION, NONE)


def _reject(code: str, message: str) -> CaseError:
    return CaseError(code, message)


def _read(case: object, fields: tuple[str, ...]) -> dict[str, Any]:
    """Checks 1-4 (invalid_request, invalid_bet, invalid_point, invalid_dice) on ``fields``."""
    if not isinstance(case, dict):
        raise _reject("invalid_request", f"a case must be an object, got {type(case).__name__}")
    for name in fields:
        if name not in case:
            raise _reject("invalid_request", f"missing field '{name}'")
    for name in fields:
        what, ok = _TYPES[name]
        if not ok(case[name]):
            raise _reject("invalid_request", f"'{name}' must be {what}, got {case[name]!r}")
    if case["bet"] not in BETS:
        raise _reject("invalid_bet", f"unknown bet {case['bet']!r} (bets: {', '.join(BETS)})")
    point = case["point"]
    if point is not None and point not in POINTS:
        raise _reject("invalid_point", f"point must be null or one of 4, 5, 6, 8, 9, 10, got {point}")
    if "dice" in fields:
        dice = case["dice"]
        if len(dice) != 2 or not all(is_int(d) and 1 <= d <= 6 for d in dice):
            raise _reject("invalid_dice", f"dice must be two integers from 1 to 6, got {dice!r}")
    return {name: case[name] for name in fields}


def odds_ratio(bet: str, point: int) -> Fraction:
    """What one unit of odds wins when ``bet`` wins at ``point``: pass/come 2/1 on 4/10, 3/2 on 5/9,
    6/5 on 6/8 (craps.sw.1, craps.sw.3); don't pass/don't come 1/2, 2/3, 5/6 (craps.sw.2,
    craps.sw.4). From ``rules/craps.toml``."""
    return craps_rules().ratio(bet, point)


def is_dont(bet: str) -> bool:
    return craps_rules().side_of[bet] == "dont_pass"


def odds_limit(config: TableConfig, bet: str, flat: int, point: int, multiple: Fraction) -> int:
    """The largest odds wager that a ``multiple`` allows, floored to ``unit``.

    Pass/come: ``multiple x flat`` (craps.sw.1, craps.sw.3). Don't pass/don't come: the largest lay
    whose *win* is at most ``multiple x flat`` (craps.sw.2, craps.sw.4, INT-DONT-LIMIT-ON-WIN):
    ``L x ratio <= multiple x flat  <=>  L <= multiple x flat / ratio``."""
    cap = multiple * flat
    if is_dont(bet):
        cap = cap / odds_ratio(bet, point)
    return floor_div(cap, config.unit) * config.unit


def limits(config: TableConfig, bet: str, flat: int, point: int) -> tuple[int, int]:
    """(free limit, max limit) of the odds behind ``flat`` on ``bet`` at ``point`` (craps.sw.7)."""
    return (odds_limit(config, bet, flat, point, config.free_odds[point]),
            odds_limit(config, bet, flat, point, config.max_odds[point]))


def odds_win_exact(bet: str, point: int, odds: int) -> Fraction:
    """The exact win of an odds wager at the true odds (craps.sw.1-4), before any rounding."""
    return odds * odds_ratio(bet, point)


def commission_base(config: TableConfig, bet: str, flat: int, point: int, odds: int) -> Fraction:
    """The amount the commission is a percentage of (INT-COMMISSION-BASE), exact: the odds above the
    free limit (pass/come, craps.sw.5), or what that excess laid could win (don't side,
    craps.sw.6); 0 when the odds are within the free limit (craps.sw.7)."""
    free, _ = limits(config, bet, flat, point)
    excess = max(odds - free, 0)
    if is_dont(bet):
        return excess * odds_ratio(bet, point)
    return Fraction(excess)


def commission(config: TableConfig, bet: str, flat: int, point: int, odds: int) -> int:
    """``commission_rate x base`` rounded to ``commission_unit`` by ``commission_rounding``
    (down = floor, up = ceil, nearest = halves up). craps.sw.5, craps.sw.6."""
    base = commission_base(config, bet, flat, point, odds)
    return round_to_unit(config.commission_rate * base, config.commission_unit, config.commission_rounding)


def _check_flat(config: TableConfig, flat: int) -> None:
    if flat <= 0:
        raise _reject("not_positive", f"flat must be above 0, got {flat}")


def _check_odds_amount(config: TableConfig, bet: str, flat: int, point: int, odds: int) -> None:
    """Checks 7-8 on an odds wager above 0 (and on the flat, for 7)."""
    unit = config.unit
    if flat % unit:
        raise _reject("bad_increment", f"flat {flat} is not a multiple of the unit {unit}")
    if odds % unit:
        raise _reject("bad_increment", f"odds {odds} is not a multiple of the unit {unit}")
    win = odds_win_exact(bet, point, odds)
    if config.payout_rounding == "exact" and win.denominator != 1:
        ratio = odds_ratio(bet, point)
        raise _reject("bad_increment", f"odds {odds} on {point} would win {win.numerator}/{win.denominator} "
                      f"at {ratio.numerator} to {ratio.denominator}, not a whole number of minor units")
    _, top = limits(config, bet, flat, point)
    if odds > top:
        raise _reject("above_maximum", f"odds {odds} above the maximum {top} behind a flat of {flat} on {point}")


def odds_limits(config: TableConfig, case: object) -> dict[str, Any]:
    """``craps.odds_limits``: ``{"free_odds": int, "max_odds": int}``, the largest odds wager without
    commission (craps.sw.7) and the largest allowed at all (craps.sw.1-4), each floored to the
    unit; the don't side limits the odds' win (INT-DONT-LIMIT-ON-WIN).

    Case ``{"bet", "flat", "point"}``; rejections in order: invalid_request, invalid_bet,
    invalid_point, no_point (no odds without a point), not_positive, bad_increment (flat)."""
    c = _read(case, ("bet", "flat", "point"))
    bet, flat, point = c["bet"], c["flat"], c["point"]
    if point is None:
        raise _reject("no_point", "odds limits asked for a bet with no point")
    _check_flat(config, flat)
    if flat % config.unit:
        raise _reject("bad_increment", f"flat {flat} is not a multiple of the unit {config.unit}")
    free, top = limits(config, bet, flat, point)
    return {"free_odds": free, "max_odds": top}


def place_odds(config: TableConfig, case: object) -> dict[str, Any]:
    """``craps.place_odds``: ``{"commission": int}`` for an odds wager behind a flat bet.

    The commission is ``commission_rate`` times the part above the free odds (pass/come,
    craps.sw.5) or times what that part could win (don't pass/don't come, craps.sw.6), rounded
    to ``commission_unit``; 0 within the free odds (craps.sw.7). Rejections in order:
    invalid_request, invalid_bet, invalid_point, no_point, not_positive (flat or odds of 0 or
    less), bad_increment (not a multiple of the unit, or under ``exact`` a win that is not whole),
    above_maximum."""
    c = _read(case, ("bet", "flat", "point", "odds"))
    bet, flat, point, odds = c["bet"], c["flat"], c["point"], c["odds"]
    if point is None:
        raise _reject("no_point", "odds asked for on a bet with no point")
    _check_flat(config, flat)
    if odds <= 0:
        raise _reject("not_positive", f"odds must be above 0, got {odds}")
    _check_odds_amount(config, bet, flat, point, odds)
    return {"commission": commission(config, bet, flat, point, odds)}


def settle(config: TableConfig, case: object) -> dict[str, Any]:
    """``craps.settle``: settle a line bet (and its odds) on one roll.

    Result ``{"outcome", "flat_win", "odds_win", "point", "flat_stake", "odds_stake",
    "flat_returned", "odds_returned"}``; wins exclude the returned stake (losses, pushes, no action
    and a point being set all report 0 wins); ``point`` is the point this roll set when the
    outcome is ``"point"``, else null. ``flat_stake``/``odds_stake`` say what becomes of each stake
    (:data:`STAKE_DISPOSITIONS`) and ``flat_returned``/``odds_returned`` how much of it is handed
    back to the player on this roll: the whole stake when it is ``won`` or ``returned``, else 0.

    * Come-out (point null; INT-CRAPS-LINE-BETS): pass/come win 1 to 1 on 7 or 11, lose on 2, 3,
      12; don't pass/don't come win 1 to 1 on 2, 3, 12 except the bar number, which pushes (the
      flat returned), and lose on 7 or 11; any other total sets the point (the flat stays in
      action). There are no odds (``odds_stake`` none).
    * With a point: pass/come win when the point is rolled, the flat 1 to 1 and the odds at 2 to 1,
      3 to 2, 6 to 5 (craps.sw.1, craps.sw.3), lose on 7; don't pass/don't come win on 7, the flat
      1 to 1 and the odds at 1 to 2, 2 to 3, 5 to 6 (craps.sw.2, craps.sw.4), lose on the point.
      Any other total is no action (both stakes stay in action).
    * Odds not working (``odds_working`` false, INT-ODDS-WORKING): on a roll that decides the bet
      the flat is settled as above and the odds are returned, neither paid nor taken; on a roll
      that decides nothing they stay in action.
    * Under ``payout_rounding: down`` an odds win is floored to whole minor units.

    The whole bet state is checked first: the flat a positive multiple of the unit; odds 0 or more;
    odds above 0 only with a point (no_point) and then such as ``craps.place_odds`` accepts."""
    c = _read(case, ("bet", "flat", "point", "odds", "dice", "odds_working"))
    bet, flat, point, odds, dice = c["bet"], c["flat"], c["point"], c["odds"], c["dice"]
    if point is None and odds > 0:
        raise _reject("no_point", f"odds {odds} on a bet with no point")
    _check_flat(config, flat)
    if odds < 0:
        raise _reject("not_positive", f"odds must be 0 or more, got {odds}")
    if odds > 0:
        _check_odds_amount(config, bet, flat, point, odds)
    elif flat % config.unit:
        raise _reject("bad_increment", f"flat {flat} is not a multiple of the unit {config.unit}")

    total = dice[0] + dice[1]
    dont = is_dont(bet)
    flat_pays = craps_rules().flat
    flat_win = flat * flat_pays
    assert flat_win.denominator == 1
    if point is None:
        if dont and total == config.bar:
            return _result("push", flat, RETURNED)
        if total in NATURALS:
            return _result("lose", flat, TAKEN) if dont else _result("win", flat, WON, int(flat_win))
        if total in CRAPS:
            return _result("win", flat, WON, int(flat_win)) if dont else _result("lose", flat, TAKEN)
        return dict(_result("point", flat, IN_ACTION), point=total)

    odds_stake = IN_ACTION if odds else NONE
    if total != SEVEN and total != point:
        return _result("no_action", flat, IN_ACTION, odds=odds, odds_stake=odds_stake)
    if odds and not c["odds_working"]:
        odds_stake = RETURNED
    if (total == point) == dont:  # the point made on the don't side, a seven on the pass side
        return _result("lose", flat, TAKEN, odds=odds, odds_stake=TAKEN if odds_stake == IN_ACTION else odds_stake)
    if odds_stake != IN_ACTION:
        return _result("win", flat, WON, int(flat_win), odds=odds, odds_stake=odds_stake)
    win = odds_win_exact(bet, point, odds)
    if config.payout_rounding == "down":
        odds_win = win.numerator // win.denominator
    else:
        assert win.denominator == 1  # checked above: exact wins are whole
        odds_win = win.numerator
    return _result("win", flat, WON, int(flat_win), odds_win, odds, WON)


def _returned(stake: int, disposition: str) -> int:
    """What of a stake is handed back on this roll: all of it when won or returned, else 0."""
    return stake if disposition in (WON, RETURNED) else 0


def _result(outcome: str, flat: int, flat_stake: str, flat_win: int = 0, odds_win: int = 0, odds: int = 0,
            odds_stake: str = NONE) -> dict[str, Any]:
    return {"outcome": outcome, "flat_win": flat_win, "odds_win": odds_win, "point": None,
            "flat_stake": flat_stake, "odds_stake": odds_stake,
            "flat_returned": _returned(flat, flat_stake), "odds_returned": _returned(odds, odds_stake)}
