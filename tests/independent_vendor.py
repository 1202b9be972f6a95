"""An independent craps implementation, for checking that ``tablecert fuzz`` reports nothing on
a correct vendor that is not the oracle: limits, commissions, settlement and the order of case
errors written again from the protocol text with integer arithmetic only (no Fraction, no oracle
function). Config validation and the pai gow ops are the reference's (they are not what the
config space varies). A test helper module (tests/test_fuzz_command.py)."""

from __future__ import annotations

from typing import Any

from tablecert.oracle.errors import ConfigError
from tablecert.oracle.table_config import parse_table_config
from tablecert.oracle.vendor import ReferenceVendor

WIN = {4: (2, 1), 10: (2, 1), 5: (3, 2), 9: (3, 2), 6: (6, 5), 8: (6, 5)}   # pass side: win per stake
BETS = ("pass", "dont_pass", "come", "dont_come")
FIELDS = {"craps.odds_limits": ("bet", "flat", "point"), "craps.place_odds": ("bet", "flat", "point", "odds"),
          "craps.settle": ("bet", "flat", "point", "odds", "dice", "odds_working")}


class Rejected(Exception):
    pass


def _int(v: Any) -> bool:
    return type(v) is int


def _ratio(bet: str, point: int) -> tuple[int, int]:
    w, s = WIN[point]
    return (s, w) if bet.startswith("dont") else (w, s)


class Table:
    def __init__(self, raw: dict[str, Any]) -> None:
        cfg = parse_table_config(raw)  # validation is the reference's; the arithmetic below is not
        self.unit, self.cu = cfg.unit, cfg.commission_unit
        self.free = {p: (m.numerator, m.denominator) for p, m in cfg.free_odds.items()}
        self.top = {p: (m.numerator, m.denominator) for p, m in cfg.max_odds.items()}
        self.rate = (cfg.commission_rate.numerator, cfg.commission_rate.denominator)
        self.rounding, self.payout, self.bar = cfg.commission_rounding, cfg.payout_rounding, cfg.bar

    def limit(self, bet: str, flat: int, point: int, mult: tuple[int, int]) -> int:
        num, den = mult[0] * flat, mult[1]
        if bet.startswith("dont"):
            rn, rd = _ratio(bet, point)
            num, den = num * rd, den * rn
        return num // (den * self.unit) * self.unit

    def commission(self, bet: str, flat: int, point: int, odds: int) -> int:
        excess = max(0, odds - self.limit(bet, flat, point, self.free[point]))
        rn, rd = _ratio(bet, point) if bet.startswith("dont") else (1, 1)
        num, den = self.rate[0] * excess * rn, self.rate[1] * self.cu * rd
        if self.rounding == "down":
            q = num // den
        elif self.rounding == "up":
            q = -(-num // den)
        else:
            q = (2 * num + den) // (2 * den)
        return q * self.cu


def _read(op: str, case: Any) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise Rejected("invalid_request")
    names = FIELDS[op]
    if any(n not in case for n in names):
        raise Rejected("invalid_request")
    checks = {"bet": lambda v: isinstance(v, str), "flat": _int, "odds": _int,
              "point": lambda v: v is None or _int(v), "dice": lambda v: isinstance(v, list),
              "odds_working": lambda v: v is True or v is False}
    if not all(checks[n](case[n]) for n in names):
        raise Rejected("invalid_request")
    if case["bet"] not in BETS:
        raise Rejected("invalid_bet")
    if case["point"] is not None and case["point"] not in WIN:
        raise Rejected("invalid_point")
    if "dice" in names and not (len(case["dice"]) == 2 and all(_int(d) and 1 <= d <= 6 for d in case["dice"])):
        raise Rejected("invalid_dice")
    return case


def _odds_ok(t: Table, bet: str, flat: int, point: int, odds: int) -> None:
    if flat % t.unit or odds % t.unit:
        raise Rejected("bad_increment")
    rn, rd = _ratio(bet, point)
    if t.payout == "exact" and odds * rn % rd:
        raise Rejected("bad_increment")
    if odds > t.limit(bet, flat, point, t.top[point]):
        raise Rejected("above_maximum")


def answer(t: Table, op: str, case: Any) -> dict[str, Any]:
    c = _read(op, case)
    bet, flat, point = c["bet"], c["flat"], c["point"]
    if op == "craps.odds_limits":
        if point is None:
            raise Rejected("no_point")
        if flat <= 0:
            raise Rejected("not_positive")
        if flat % t.unit:
            raise Rejected("bad_increment")
        return {"free_odds": t.limit(bet, flat, point, t.free[point]), "max_odds": t.limit(bet, flat, point, t.top[point])}
    odds = c["odds"]
    if op == "craps.place_odds":
        if point is None:
            raise Rejected("no_point")
        if flat <= 0 or odds <= 0:
            raise Rejected("not_positive")
        _odds_ok(t, bet, flat, point, odds)
        return {"commission": t.commission(bet, flat, point, odds)}
    if point is None and odds > 0:
        raise Rejected("no_point")
    if flat <= 0 or odds < 0:
        raise Rejected("not_positive")
    if odds > 0:
        _odds_ok(t, bet, flat, point, odds)
    elif flat % t.unit:
        raise Rejected("bad_increment")
    roll = sum(c["dice"])
    dont = bet.startswith("dont")
    if point is None:
        if dont and roll == t.bar:
            return _settled("push", flat, "returned")
        if roll in (7, 11):
            return _settled("lose", flat, "taken") if dont else _settled("win", flat, "won")
        if roll in (2, 3, 12):
            return _settled("win", flat, "won") if dont else _settled("lose", flat, "taken")
        return dict(_settled("point", flat, "in_action"), point=roll)
    if roll not in (7, point):
        return _settled("no_action", flat, "in_action", odds, "in_action")
    odds_fate = "returned" if not c["odds_working"] else "taken" if (roll == 7) != dont else "won"
    if (roll == 7) != dont:
        return _settled("lose", flat, "taken", odds, odds_fate)
    rn, rd = _ratio(bet, point)
    return _settled("win", flat, "won", odds, odds_fate, odds * rn // rd if odds_fate == "won" else 0)


def _settled(outcome: str, flat: int, flat_fate: str, odds: int = 0, odds_fate: str = "none",
             odds_win: int = 0) -> dict[str, Any]:
    """A v2 settle result: a stake won or returned comes back whole, one taken or in action does not."""
    odds_fate = odds_fate if odds else "none"
    back = {"won": 1, "returned": 1}
    return {"outcome": outcome, "flat_win": flat if flat_fate == "won" else 0, "odds_win": odds_win, "point": None,
            "flat_stake": flat_fate, "odds_stake": odds_fate,
            "flat_returned": flat * back.get(flat_fate, 0), "odds_returned": odds * back.get(odds_fate, 0)}


class IndependentVendor(ReferenceVendor):
    name = "tablecert test: independent craps"

    def handle(self, request: object) -> dict[str, Any]:
        if not (isinstance(request, dict) and request.get("op") in FIELDS and isinstance(request.get("cases"), list)
                and _int(request.get("id"))):
            return super().handle(request)
        try:
            table = Table(request.get("config"))  # type: ignore[arg-type]
        except (ConfigError, TypeError, AttributeError):
            return super().handle(request)
        results = []
        for case in request["cases"]:
            try:
                results.append(answer(table, request["op"], case))
            except Rejected as err:
                results.append({"error": {"code": str(err), "message": str(err)}})
        return {"id": request["id"], "results": results}
