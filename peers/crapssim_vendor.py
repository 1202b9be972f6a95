"""crapssim 0.4.1 (a public craps engine, https://github.com/skent259/crapssim) as a peer vendor of
tablecert: ops ``craps.settle`` and ``craps.round`` of the contract ``harness/vendor-protocol.md``,
on standard input and output (one JSON object a line).

Written from the contract, not from tablecert (it imports nothing of it): crapssim decides what
every roll does to every bet (win, lose, push, nothing; the win; a come bet's number; the table's
point), on a crapssim table built for that roll from the bets the wrapper holds; the wrapper does
what crapssim has no notion of: the contract's refusal codes and limits, money as integers of minor
units (crapssim's float wins rounded to the nearest unit; on the tables declared every win is
whole), odds that are off for a roll (kept off crapssim's layout for it, handed back if their bet
is decided), calls and take-downs under the round's house rules, and come bets combined on a
number. Never used by the product: tests/test_crapssim_peer.py runs it.

What crapssim offers, declared in ``hello``: no commission (it charges none on odds), bar 12 (its
don't bets push on 12 only) and whole payouts (``payout_rounding`` ``exact``). A don't bet pushed
on the bar is handed back by crapssim (house rule ``bar_push`` ``returned``, INT-BAR-PUSH's other
reading); ``--house-rules JSON`` adds ``craps.house_rules`` to the declaration (for instance
``'{"bar_push": ["returned"]}'``); without it every house rule is declared offered, as a vendor of
the earlier release (the opt-in ``press_unset`` at its default only), and rounds under
``bar_push: "stays"`` differ from the oracle. crapssim adds to a line bet before its point
(``Player.add_bet`` combines the chips into one bet; contract 1.1's house rule ``press_unset``):
under ``press_unset`` true the wrapper asks crapssim to combine them. ``--house-rules real``
declares crapssim's own rules (:data:`REAL_RULES`).

    python peers/crapssim_vendor.py [--house-rules JSON|real]
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from fractions import Fraction
from typing import Any

from importlib.metadata import version

from crapssim.bet import Come, DontCome, DontPass, Odds, PassLine
from crapssim.strategy.tools import NullStrategy
from crapssim.table import Table, TableUpdate

POINTS = (4, 5, 6, 8, 9, 10)
KINDS = ("pass", "dont_pass", "come", "dont_come")
CRAPSSIM = {"pass": PassLine, "dont_pass": DontPass, "come": Come, "dont_come": DontCome}
PAY = {4: Fraction(2), 10: Fraction(2), 5: Fraction(3, 2), 9: Fraction(3, 2), 6: Fraction(6, 5), 8: Fraction(6, 5)}
"""The contract's payout odds on the pass side (the don't side pays the inverse)."""
HOUSE_RULES = {"come_odds_come_out": ("off", "working"), "dont_come_odds_come_out": ("working", "off"),
               "working_call": ("roll", "bet"), "bar_push": ("stays", "returned"),
               "take_down_unset": (True, False), "take_down_dont": (True, False), "press_unset": (False, True)}
"""The contract's house rules, the default first (``press_unset`` since contract 1.1)."""
REAL_RULES = '{"bar_push": ["returned"], "press_unset": [true]}'
"""The house rules crapssim plays (``--house-rules real``): a bar push handed back, and a line bet
before its point added to (``Player.add_bet`` combines it with the bet on its spot)."""
ORDER = ["pass", "dont_pass", "come", "dont_come", *(f"come{p}" for p in POINTS), *(f"dont_come{p}" for p in POINTS)]
DECIMAL = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?")
TABLE_FIELDS = ("unit", "free_odds", "max_odds", "commission_rate", "commission_rounding", "commission_unit",
                "payout_rounding", "bar")
MAX_AMOUNT = 2**53 - 1


class Refused(Exception):
    """A case or step refused with the contract's code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decimal(value: Any) -> Fraction:
    if not isinstance(value, str) or len(value) > 100 or not DECIMAL.fullmatch(value):
        raise Refused("invalid_config")
    return Fraction(value)


def parse_table(config: Any, round_table: bool) -> dict[str, Any]:
    """The contract's craps table config (and a round's house rules), or Refused invalid_config."""
    if not isinstance(config, dict):
        raise Refused("invalid_config")
    allowed = set(TABLE_FIELDS) | ({"house_rules"} if round_table else set())
    if set(config) - allowed or set(TABLE_FIELDS) - set(config):
        raise Refused("invalid_config")
    for key in ("unit", "commission_unit"):
        if not is_int(config[key]) or config[key] <= 0:
            raise Refused("invalid_config")
    multiples = {}
    for key in ("free_odds", "max_odds"):
        given = config[key]
        if not isinstance(given, dict) or set(given) != {str(p) for p in POINTS}:
            raise Refused("invalid_config")
        multiples[key] = {p: _decimal(given[str(p)]) for p in POINTS}
    if any(multiples["free_odds"][p] > multiples["max_odds"][p] for p in POINTS):
        raise Refused("invalid_config")
    rate = _decimal(config["commission_rate"])
    if (config["commission_rounding"] not in ("down", "nearest", "up")
            or config["payout_rounding"] not in ("exact", "down") or config["bar"] not in (2, 12)
            or isinstance(config["bar"], bool)):
        raise Refused("invalid_config")
    house = {name: values[0] for name, values in HOUSE_RULES.items()}
    if round_table:
        given = config.get("house_rules", {})
        if not isinstance(given, dict):
            raise Refused("invalid_config")
        for name, value in given.items():
            if name not in HOUSE_RULES or not any(value is v if isinstance(v, bool) else value == v
                                                  for v in HOUSE_RULES[name]):
                raise Refused("invalid_config")
            house[name] = value
    return {"unit": config["unit"], "max": multiples["max_odds"], "rate": rate,
            "exact": config["payout_rounding"] == "exact", "house": house}


def is_dont(kind: str) -> bool:
    return kind.startswith("dont")


def odds_win(kind: str, point: int, odds: int) -> Fraction:
    return odds * PAY[point] if not is_dont(kind) else odds / PAY[point]


def check_odds(table: dict[str, Any], kind: str, flat: int, point: int, odds: int) -> None:
    """The contract's checks of an amount of odds behind a bet with a point (after no_point)."""
    if odds <= 0:
        raise Refused("not_positive")
    if odds % table["unit"] or (table["exact"] and odds_win(kind, point, odds).denominator != 1):
        raise Refused("bad_increment")
    multiple = table["max"][point]
    limit = flat * multiple * (PAY[point] if is_dont(kind) else 1)      # the don't side: its win at most
    if odds > (limit // table["unit"]) * table["unit"]:
        raise Refused("above_maximum")


def roll_with_crapssim(point: int | None, bets: list[tuple[str, int, int | None, int, bool]],
                       dice: list[int]) -> tuple[tuple[dict[str, Any], ...], int | None]:
    """One roll on a crapssim table holding ``bets`` ((kind, flat, own point, odds, odds working)):
    crapssim's result for each flat and each working odds bet, and the table's point after it.
    Each result: (won, lost, pushed, profit) and the bet's number after the roll. The same roll
    of the same bets on the same point is settled by crapssim once (a fresh crapssim table each
    time, so the result is a function of these alone; the rounds suite meets each one many times:
    about two thirds of the wrapper's time was building crapssim's table, player and dice)."""
    return _roll_once(point, tuple(bets), (dice[0], dice[1]))


@functools.lru_cache(maxsize=1 << 16)
def _roll_once(point: int | None, bets: tuple[tuple[str, int, int | None, int, bool], ...],
               dice: tuple[int, int]) -> tuple[tuple[dict[str, Any], ...], int | None]:
    table = Table()
    table.point.number = point
    player = table.add_player(bankroll=0, strategy=NullStrategy())
    placed = []
    for kind, flat, own, odds, working in bets:
        base = CRAPSSIM[kind](flat) if kind in ("pass", "dont_pass") else CRAPSSIM[kind](flat, own)
        odds_bet = Odds(CRAPSSIM[kind], own, odds, always_working=True) if odds and working else None
        player.bets += [base] + ([odds_bet] if odds_bet else [])
        placed.append((base, odds_bet))
    TableUpdate.roll(table, (dice[0], dice[1]))
    results = {id(b): b.get_result(table) for b in player.bets}      # crapssim's own settlement
    TableUpdate.update_bets(table)
    TableUpdate.update_numbers(table, verbose=False)
    out = []
    for base, odds_bet in placed:       # (a line bet's own point is the table's)
        out.append({"flat": results[id(base)], "odds": results[id(odds_bet)] if odds_bet else None,
                    "number": getattr(base, "number", None)})
    return tuple(out), table.point.number


def press_with_crapssim(point: int | None, kind: str, flat: int, amount: int) -> int:
    """The flat after a player adds ``amount`` to a ``kind`` bet in its spot before its point,
    as crapssim's ``Player.add_bet`` does it (one bet, combined, if crapssim allows the sum)."""
    table = Table()
    table.point.number = point
    player = table.add_player(bankroll=amount, strategy=NullStrategy())
    player.bets.append(CRAPSSIM[kind](flat) if kind in ("pass", "dont_pass") else CRAPSSIM[kind](flat, None))
    player.add_bet(CRAPSSIM[kind](amount) if kind in ("pass", "dont_pass") else CRAPSSIM[kind](amount, None))
    (combined,) = player.bets
    if combined.amount != flat + amount:
        raise Refused("bet_exists")           # crapssim would not combine them
    return flat + amount


def settled(kind: str, flat: int, own: int | None, odds: int, working: bool, result: dict[str, Any],
            table_point_before: int | None, table_point_after: int | None) -> dict[str, Any]:
    """The contract's settle answer from crapssim's results for one bet."""
    r = result["flat"]
    decided = r.won or r.lost
    if r.won:
        outcome, flat_stake, flat_win, flat_back = "win", "won", round(r.amount - r.bet_amount), flat
    elif r.lost:
        outcome, flat_stake, flat_win, flat_back = "lose", "taken", 0, 0
    elif r.remove:           # crapssim's push: the stake handed back
        outcome, flat_stake, flat_win, flat_back = "push", "returned", 0, flat
    else:
        number = result["number"] if kind in ("come", "dont_come") else table_point_after
        was = own if kind in ("come", "dont_come") else table_point_before
        outcome = "point" if was is None and number is not None else "no_action"
        flat_stake, flat_win, flat_back = "in_action", 0, 0
    new_point = (result["number"] if kind in ("come", "dont_come") else table_point_after) if outcome == "point" else None
    if not odds:
        odds_stake, win, back = "none", 0, 0
    elif not working:
        odds_stake, win, back = ("returned", 0, odds) if decided else ("in_action", 0, 0)
    else:
        o = result["odds"]
        if o.won:
            odds_stake, win, back = "won", round(o.amount - o.bet_amount), odds
        elif o.lost:
            odds_stake, win, back = "taken", 0, 0
        elif o.remove:
            odds_stake, win, back = "returned", 0, odds
        else:
            odds_stake, win, back = "in_action", 0, 0
    return {"outcome": outcome, "flat_win": flat_win, "odds_win": win, "point": new_point, "flat_stake": flat_stake,
            "odds_stake": odds_stake, "flat_returned": flat_back, "odds_returned": back}


# -- craps.settle


SETTLE_FIELDS = ("bet", "flat", "point", "odds", "dice", "odds_working")


def settle(table: dict[str, Any], case: Any) -> dict[str, Any]:
    if not isinstance(case, dict) or any(f not in case for f in SETTLE_FIELDS):
        raise Refused("invalid_request")
    kind, flat, point, odds, dice, working = (case[f] for f in SETTLE_FIELDS)
    if (not isinstance(kind, str) or not is_int(flat) or not is_int(odds) or not (point is None or is_int(point))
            or not isinstance(dice, list) or not isinstance(working, bool)):
        raise Refused("invalid_request")
    if kind not in KINDS:
        raise Refused("invalid_bet")
    if point is not None and point not in POINTS:
        raise Refused("invalid_point")
    if len(dice) != 2 or not all(is_int(d) and 1 <= d <= 6 for d in dice):
        raise Refused("invalid_dice")
    if odds > 0 and point is None:
        raise Refused("no_point")
    if flat <= 0 or odds < 0:
        raise Refused("not_positive")
    if flat % table["unit"]:
        raise Refused("bad_increment")
    if odds:
        check_odds(table, kind, flat, point, odds)
    line = kind in ("pass", "dont_pass")
    results, after = roll_with_crapssim(point if line else None, [(kind, flat, point, odds, working)], dice)
    return settled(kind, flat, point, odds, working, results[0], point if line else None, after if line else None)


# -- craps.round


class Round:
    """One player's round on a table: the bets the wrapper holds between rolls."""

    def __init__(self, table: dict[str, Any], rack: int) -> None:
        self.cfg, self.house = table, table["house"]
        self.point: int | None = None
        self.rack = rack
        self.bets: dict[str, dict[str, Any]] = {}     # id -> kind, flat, point (own), odds, call

    def own_point(self, bet: dict[str, Any]) -> int | None:
        return self.point if bet["kind"] in ("pass", "dont_pass") else bet["point"]

    def working(self, bet: dict[str, Any], come_out: bool) -> bool:
        if bet["call"] is not None:
            return bet["call"]
        if come_out and bet["kind"] == "come":
            return self.house["come_odds_come_out"] == "working"
        if come_out and bet["kind"] == "dont_come":
            return self.house["dont_come_odds_come_out"] == "working"
        return True

    def state(self) -> dict[str, Any]:
        return {"point": self.point, "rack": self.rack,
                "bets": [{"bet": i, "flat": b["flat"], "odds": b["odds"], "commission": 0,
                          "odds_working": self.working(b, self.point is None)}
                         for i, b in sorted(self.bets.items(), key=lambda t: ORDER.index(t[0]))]}

    def find(self, bet_id: str) -> dict[str, Any]:
        if bet_id not in self.bets:
            raise Refused("no_such_bet")
        return self.bets[bet_id]

    def spend(self, amount: int) -> None:
        if amount > self.rack:
            raise Refused("insufficient_funds")
        self.rack -= amount

    def step(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        act = step["act"]
        if act == "bet":
            kind, amount = step["bet"], step["amount"]
            if kind not in KINDS:
                raise Refused("invalid_bet")
            if kind in ("pass", "dont_pass") and self.point is not None:
                raise Refused("point_on")
            if kind in ("come", "dont_come") and self.point is None:
                raise Refused("no_point")
            held = self.bets.get(kind)
            if held is not None and not self.house["press_unset"]:
                raise Refused("bet_exists")
            if amount <= 0:
                raise Refused("not_positive")
            if amount % self.cfg["unit"]:
                raise Refused("bad_increment")
            if held is not None:
                if amount > self.rack:
                    raise Refused("insufficient_funds")
                self.rack -= amount
                held["flat"] = press_with_crapssim(self.point, kind, held["flat"], amount)
                return []
            self.spend(amount)
            self.bets[kind] = {"kind": kind, "flat": amount, "point": None, "odds": 0, "call": None}
            return []
        if act == "odds":
            bet, amount = self.find(step["bet"]), step["amount"]
            point = self.own_point(bet)
            if point is None:
                raise Refused("no_point")
            if amount != 0:
                check_odds(self.cfg, bet["kind"], bet["flat"], point, amount)
            self.spend(amount - bet["odds"])
            bet["odds"] = amount
            if amount == 0:
                bet["call"] = None
            return []
        if act == "working":
            bet = self.find(step["bet"])
            if not bet["odds"]:
                raise Refused("no_odds")
            bet["call"] = step["working"]
            return []
        if act == "take_down":
            bet_id = step["bet"]
            bet = self.find(bet_id)
            if self.own_point(bet) is None:
                removable = self.house["take_down_unset"]
            else:
                removable = is_dont(bet["kind"]) and self.house["take_down_dont"]
            if not removable:
                raise Refused("not_removable")
            del self.bets[bet_id]
            self.rack += bet["flat"] + bet["odds"]
            return [{"bet": bet_id, "outcome": "taken_down", "flat_win": 0, "odds_win": 0, "point": None,
                     "flat_stake": "returned", "odds_stake": "returned" if bet["odds"] else "none",
                     "flat_returned": bet["flat"], "odds_returned": bet["odds"], "commission_taken": 0,
                     "commission_returned": 0}]
        return self.roll(step["dice"])

    def roll(self, dice: list[Any]) -> list[dict[str, Any]]:
        if len(dice) != 2 or not all(is_int(d) and 1 <= d <= 6 for d in dice):
            raise Refused("invalid_dice")
        come_out = self.point is None
        order = sorted(self.bets, key=ORDER.index)
        held = [(self.bets[i]["kind"], self.bets[i]["flat"], self.own_point(self.bets[i]), self.bets[i]["odds"],
                 self.working(self.bets[i], come_out)) for i in order]
        results, after = roll_with_crapssim(self.point, held, dice)
        events, arrivals = [], []
        for bet_id, (kind, flat, own, odds, working), result in zip(order, held, results):
            event = settled(kind, flat, own, odds, working, result, self.point, after)
            events.append({"bet": bet_id, **event, "commission_taken": 0, "commission_returned": 0})
            bet = self.bets[bet_id]
            if event["flat_stake"] == "in_action":
                if event["outcome"] == "point" and kind in ("come", "dont_come"):
                    del self.bets[bet_id]
                    arrivals.append(dict(bet, point=event["point"]))
                continue
            del self.bets[bet_id]
            self.rack += event["flat_win"] + event["odds_win"] + event["flat_returned"] + event["odds_returned"]
        for bet in arrivals:                 # a come bet travelling to a number holding one: combined
            bet_id = f"{bet['kind']}{bet['point']}"
            if bet_id in self.bets:
                self.bets[bet_id]["flat"] += bet["flat"]
            else:
                self.bets[bet_id] = bet
        self.point = after
        if self.house["working_call"] == "roll":
            for bet in self.bets.values():
                bet["call"] = None
        return events


STEP_FIELDS = {"bet": (("bet", str), ("amount", int)), "odds": (("bet", str), ("amount", int)),
               "working": (("bet", str), ("working", bool)), "take_down": (("bet", str),), "roll": (("dice", list),)}


def play_round(table: dict[str, Any], case: Any) -> dict[str, Any]:
    if not isinstance(case, dict) or "rack" not in case or "steps" not in case:
        raise Refused("invalid_request")
    rack, steps = case["rack"], case["steps"]
    if not is_int(rack) or not 0 <= rack <= MAX_AMOUNT or not isinstance(steps, list) or not 1 <= len(steps) <= 200:
        raise Refused("invalid_request")
    for step in steps:
        if not isinstance(step, dict) or step.get("act") not in STEP_FIELDS:
            raise Refused("invalid_request")
        for name, kind in STEP_FIELDS[step["act"]]:
            value = step.get(name)
            if name not in step or not (isinstance(value, bool) if kind is bool else
                                        is_int(value) if kind is int else isinstance(value, kind)):
                raise Refused("invalid_request")
            if kind is int and not -MAX_AMOUNT <= value <= MAX_AMOUNT:
                raise Refused("invalid_request")
    game = Round(table, rack)
    records = []
    for step in steps:
        try:
            record = {"accepted": True, "error": None, "events": game.step(step)}
        except Refused as refusal:
            record = {"accepted": False, "error": refusal.code, "events": []}
        record["table"] = game.state()
        records.append(record)
    return {"steps": records}


OPS = {"craps.settle": (settle, False), "craps.round": (play_round, True)}


def answer(request: Any, capabilities: dict[str, Any]) -> dict[str, Any]:
    rid = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request, dict) or not is_int(rid):
        return {"id": None, "error": {"code": "invalid_request", "message": "not a request"}}
    op = request.get("op")
    if op == "hello":
        return {"id": rid, "protocol": "tablecert-vendor/2", "ops": list(OPS), "capabilities": capabilities,
                "implementation": {"name": "crapssim", "version": version("crapssim"), "build": "tablecert peer wrapper"}}
    if op == "bye":
        return {"id": rid}
    if op not in OPS:
        return {"id": rid, "error": {"code": "unknown_op", "message": f"unknown op {op!r}"}}
    if not isinstance(request.get("cases"), list):
        return {"id": rid, "error": {"code": "invalid_request", "message": "cases must be a list"}}
    run, round_table = OPS[op]
    try:
        table = parse_table(request.get("config"), round_table)
    except Refused:
        return {"id": rid, "results": [{"error": {"code": "invalid_config", "message": "config"}}
                                       for _ in request["cases"]]}
    results = []
    for case in request["cases"]:
        try:
            results.append(run(table, case))
        except Refused as refusal:
            results.append({"error": {"code": refusal.code, "message": refusal.code}})
    return {"id": rid, "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--house-rules", help="the craps.house_rules to declare (JSON, or 'real': crapssim's own, "
                        f"{REAL_RULES}); default: none named")
    args = parser.parse_args()
    craps: dict[str, Any] = {"commission": False, "bar": [12], "payout_rounding": ["exact"]}
    if args.house_rules:
        craps["house_rules"] = json.loads(REAL_RULES if args.house_rules == "real" else args.house_rules)
    capabilities = {"craps": craps}
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        reply = answer(request, capabilities)
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if isinstance(request, dict) and request.get("op") == "bye":
            return


if __name__ == "__main__":
    main()
