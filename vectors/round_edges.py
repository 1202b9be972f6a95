"""Round cases at the edges of every change of a bet, and every pair of refusals the contract
orders (issue #38 item 4): a group of ``rounds`` and of ``standard``'s round part.

* **Changes of the odds**, each at its boundary: taken, raised, reduced, removed (0), called
  working and off, taken down with the bet; a raise with chips exactly enough for the difference
  (and its commission's difference) but not for the whole odds, and one minor unit short; a raise
  across the free-odds line (the commission recomputed on the whole odds, not on the increment);
  zero and negative amounts; odds that are off (come odds on a come-out roll, odds called off)
  set above the maximum, and at it.
* **Refusal order**: for every pair of refusal reasons the contract ranks for an act
  (:func:`tablecert.oracle.round_refusals.reachable_pairs`), a step refused for exactly those two
  reasons, where the first must win. The scripts check, as they are built, that each such step has
  exactly its two reasons (:func:`~tablecert.oracle.round_refusals.reasons`), so a change of the
  table that spoils one fails the build instead of thinning the suite.

Every amount is read off the table's own limits and commission (``craps.limits``,
``craps.commission``), so the scripts are at the same edges on any table with a commission above
the free odds (the suite's commission table). Expected answers are the oracle's, as for every
vector.
"""

from __future__ import annotations

from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import RoundConfig, Table, apply_step
from tablecert.oracle.round_refusals import reasons
from tablecert.vectors.round_steps import FLAT_UNITS, RACK_UNITS, Step, bet, call, odds, roll, take_down


class Script:
    """A case built step by step on the oracle's table, so that each step can be sized by the table
    as it stands (its rack, a bet's limits) and checked for the refusals it meets."""

    def __init__(self, config: RoundConfig, rack: int) -> None:
        self.config, self.rack = config, rack
        self.table = Table(config, rack)
        self.steps: list[Step] = []

    def __call__(self, *steps: Step) -> Script:
        for step in steps:
            self.steps.append(step)
            apply_step(self.table, step)
        return self

    def refused(self, step: Step, *expected: str) -> Script:
        """``step``, which must meet exactly the refusals ``expected``, in the contract's order."""
        found = reasons(self.table, step)
        assert found == expected, f"{step} meets {found}, not {expected}"
        return self(step)

    def limits(self, bet_id: str) -> tuple[int, int]:
        b = self.table.bets[bet_id]
        point = self.table.own_point(b)
        assert point is not None
        return craps.limits(self.config.table, b.kind, b.flat, point)

    def cost(self, bet_id: str, amount: int) -> int:
        """The chips setting the odds behind ``bet_id`` to ``amount`` takes from the rack: the
        difference of the odds and of their commission on the whole odds."""
        b = self.table.bets[bet_id]
        point = self.table.own_point(b)
        assert point is not None
        return amount - b.odds + craps.commission(self.config.table, b.kind, b.flat, point, amount) - b.commission

    def case(self) -> dict[str, Any]:
        return {"rack": self.rack, "steps": list(self.steps)}


def _raise_rack(config: RoundConfig, kind: str, point: int, flat: int) -> tuple[int, int, int]:
    """(start rack, free, max) for a line bet of ``kind`` on ``point`` whose odds go from the free
    odds to the maximum with the rack emptied exactly by the raise."""
    free, top = craps.limits(config.table, kind, flat, point)
    first = free + craps.commission(config.table, kind, flat, point, free)
    raised = top - free + craps.commission(config.table, kind, flat, point, top) - (first - free)
    return flat + first + raised, free, top


def edge_scripts(config: RoundConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(flag, comment, case): the changes of a bet at their boundaries, on a table with a
    commission above the free odds."""
    u = config.table.unit
    f = FLAT_UNITS * u
    rack = RACK_UNITS * u
    full, free6, max6 = _raise_rack(config, "pass", 6, f)
    full4, free_d4, max_d4 = _raise_rack(config, "dont_pass", 4, f)
    scripts = []

    s = Script(config, full)(bet("pass", f), roll(6), odds("pass", free6))
    assert s.cost("pass", max6) == s.table.rack < max6      # enough for the difference, not the whole odds
    s(odds("pass", max6), roll(6))
    scripts.append(("PlayOddsFunds", "a raise of pass odds from the free odds to the maximum with chips exactly "
                    "enough for the difference and its commission, not for the whole odds: accepted", s.case()))
    s = Script(config, full - 1)(bet("pass", f), roll(6), odds("pass", free6))
    s.refused(odds("pass", max6), "insufficient_funds")
    s(odds("pass", max6 - u), odds("pass", max6), roll(6))
    scripts.append(("PlayOddsFunds", "the same raise one minor unit short: refused (insufficient_funds) and the "
                    "table unchanged; a smaller raise accepted, then the first refused again", s.case()))
    s = Script(config, full4)(bet("dont_pass", f), roll(4), odds("dont_pass", free_d4))
    assert s.cost("dont_pass", max_d4) == s.table.rack < max_d4
    s(odds("dont_pass", max_d4), roll(7))
    scripts.append(("PlayOddsFunds", "a lay on 4 raised from the free odds to the maximum with chips exactly "
                    "enough for the difference and its commission: accepted, then won on the seven", s.case()))
    s = Script(config, full4 - 1)(bet("dont_pass", f), roll(4), odds("dont_pass", free_d4))
    s.refused(odds("dont_pass", max_d4), "insufficient_funds")
    s(roll(4))
    scripts.append(("PlayOddsFunds", "the same lay raise one minor unit short: refused (insufficient_funds)",
                    s.case()))

    s = Script(config, rack)(bet("pass", f), roll(6), odds("pass", free6 - u), odds("pass", free6 + 2 * u))
    s(odds("pass", max6), odds("pass", free6 + u), odds("pass", free6), odds("pass", max6), odds("pass", 0),
      odds("pass", free6 + u), roll(6))
    scripts.append(("PlayOddsCommissionRecomputed", "pass odds raised across the free-odds line, then to the "
                    "maximum: the commission is recomputed on the whole odds each time (not the increment's "
                    "alone); reduced above and to the free odds, raised again, removed, and won", s.case()))
    s = Script(config, rack)(bet("dont_pass", f), roll(4), odds("dont_pass", free_d4), odds("dont_pass", max_d4))
    s(bet("come", f), roll(5), odds("come5", craps.limits(config.table, "come", f, 5)[0] + 2 * u),
      odds("come5", craps.limits(config.table, "come", f, 5)[1]), odds("dont_pass", free_d4 + 2 * u), roll(7))
    scripts.append(("PlayOddsCommissionRecomputed", "a lay on 4 and come odds on 5 raised from within the free "
                    "odds to the maximum (the commission of the whole odds), the lay reduced, the seven-out",
                    s.case()))

    s = Script(config, rack)(roll(9), bet("come", f), bet("dont_come", f), roll(8))
    s(odds("come8", max6), odds("dont_come8", s.limits("dont_come8")[1]), call("come8", False),
      odds("come8", free6), call("come8", True), odds("come8", 0))
    s.refused(call("come8", True), "no_odds")
    s(odds("come8", free6 + u), odds("dont_come8", s.limits("dont_come8")[0]), take_down("dont_come8"),
      roll(8), roll(9), bet("pass", f), roll(8), odds("pass", max6), call("pass", False), odds("pass", free6 - u),
      roll(8))
    scripts.append(("PlayOddsChange", "odds taken at the maximum, called off, reduced to the free odds, called "
                    "working, removed (the call goes with them, a new call refused: no_odds), taken again; a lay "
                    "reduced and its don't come bet taken down with it; pass odds called off then reduced before "
                    "the point is made", s.case()))

    s = Script(config, rack)
    s.refused(bet("pass", 0), "not_positive").refused(bet("pass", -u), "not_positive")
    s(bet("pass", f), roll(6), bet("come", f))
    s.refused(bet("come", 0), "bet_exists", "not_positive")
    s(roll(8))
    s.refused(odds("come8", -u), "not_positive")
    s(odds("come8", 0), odds("pass", free6))
    s.refused(odds("pass", -free6), "not_positive").refused(odds("pass", -1), "not_positive", "bad_increment")
    s(odds("pass", 0), odds("pass", 0), roll(6))
    scripts.append(("PlayOddsNotPositive", "flat bets of 0 and below refused (not_positive); odds below 0 refused, "
                    "never credited to the rack; odds of 0 remove the odds, and on a bet without odds change "
                    "nothing", s.case()))

    s = Script(config, rack)(roll(5), bet("come", f), roll(6), roll(5))
    assert s.table.point is None and not s.table.working(s.table.bets["come6"], True)
    s.refused(odds("come6", max6 + u), "above_maximum")
    s(odds("come6", max6), odds("come6", free6), bet("pass", f), roll(8), call("come6", False))
    s.refused(odds("come6", max6 + u), "above_maximum")
    s(odds("come6", max6), roll(6))
    scripts.append(("PlayOffOddsLimit", "odds that are off (come odds on the come-out roll; odds called off) are "
                    "limited like any other: one unit above the maximum refused (above_maximum), the maximum "
                    "accepted", s.case()))
    return scripts


def refusal_pair_scripts(config: RoundConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(flag, comment, case): for every refusal pair the contract ranks that a table can present
    (:func:`~tablecert.oracle.round_refusals.reachable_pairs`), a step refused for exactly those two
    reasons."""
    u = config.table.unit
    off = u // 2 if u > 1 else None      # an amount off the unit; a table of unit 1 has none
    f = FLAT_UNITS * u
    rack = RACK_UNITS * u
    scripts = []

    s = Script(config, rack)(bet("pass", f), roll(6), bet("come", f), roll(4))
    r = s.table.rack
    s.refused(bet("come4", f), "invalid_bet", "bet_exists").refused(bet("field", -u), "invalid_bet", "not_positive")
    s.refused(bet("field", r + u), "invalid_bet", "insufficient_funds")
    s.refused(bet("pass", f), "point_on", "bet_exists").refused(bet("dont_pass", -u), "point_on", "not_positive")
    s.refused(bet("dont_pass", r + u), "point_on", "insufficient_funds")
    s(bet("come", f))
    r = s.table.rack
    s.refused(bet("come", -u), "bet_exists", "not_positive").refused(bet("come", r + u), "bet_exists",
                                                                      "insufficient_funds")
    s.refused(odds("dont_come", u), "no_such_bet", "no_point").refused(odds("come8", -u), "no_such_bet",
                                                                        "not_positive")
    s.refused(odds("come8", r + u), "no_such_bet", "insufficient_funds")
    s.refused(odds("come", -u), "no_point", "not_positive").refused(odds("come", r + u), "no_point",
                                                                     "insufficient_funds")
    s.refused(odds("pass", -1), "not_positive", "bad_increment")
    s.refused(call("come8", True), "no_such_bet", "no_odds").refused(take_down("come8"), "no_such_bet",
                                                                      "not_removable")
    if off:
        s.refused(bet("field", u + off), "invalid_bet", "bad_increment")
        s.refused(bet("dont_pass", u + off), "point_on", "bad_increment")
        s.refused(bet("come", u + off), "bet_exists", "bad_increment")
        s.refused(odds("come8", u + off), "no_such_bet", "bad_increment")
        s.refused(odds("come", u + off), "no_point", "bad_increment")
        s.refused(odds("pass", s.limits("pass")[1] + off), "bad_increment", "above_maximum")
    s(roll(6))
    scripts.append(("PlayRefusalOrder", "steps refused for two reasons at once, with a point: the first the "
                    "contract lists wins (invalid_bet, point_on, bet_exists, no_such_bet, no_point, "
                    "not_positive, bad_increment before what follows them)", s.case()))

    s = Script(config, rack)
    r = s.table.rack
    s.refused(bet("come", -u), "no_point", "not_positive").refused(bet("come", r + u), "no_point",
                                                                    "insufficient_funds")
    if off:
        s.refused(bet("come", u + off), "no_point", "bad_increment")
        s.refused(bet("pass", -off), "not_positive", "bad_increment")
        s.refused(bet("pass", r + off), "bad_increment", "insufficient_funds")
    s(bet("pass", f))
    r = s.table.rack
    s.refused(bet("pass", -u), "bet_exists", "not_positive")
    s.refused(odds("pass", -u), "no_point", "not_positive").refused(odds("pass", r + u), "no_point",
                                                                     "insufficient_funds")
    s(roll(7))
    scripts.append(("PlayRefusalOrder", "steps refused for two reasons at once, before a point: no_point and "
                    "bet_exists before the amount's reasons", s.case()))

    s = Script(config, f)(bet("pass", f), roll(6))
    s.refused(odds("pass", s.limits("pass")[1] + u), "above_maximum", "insufficient_funds")
    if off:
        s.refused(odds("pass", u + off), "bad_increment", "insufficient_funds")
    s(roll(7))
    scripts.append(("PlayRefusalOrder", "odds refused for two reasons with the rack empty: above_maximum and "
                    "bad_increment before insufficient_funds", s.case()))
    return scripts


def reach_scripts(config: RoundConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(flag, comment, case): what ``rounds``' longer sequences reach and ``standard``'s shorter
    ones do not (:mod:`tablecert.vectors.round_coverage`), in a few scripts: come and don't come
    bets settled on a come-out roll with odds working, off and above the free odds; odds removed and
    set while off; take-downs refused with odds. Under the default house rules and under every rule
    at its other value (come odds working on the come-out, don't come odds off, calls that last,
    take-downs refused), the same scripts reach different transitions."""
    u = config.table.unit
    f = FLAT_UNITS * u
    s = Script(config, RACK_UNITS * u)(roll(5), bet("come", f), bet("dont_come", f), roll(8))
    free8, max8 = s.limits("come8")
    lay_free, lay_max = s.limits("dont_come8")
    s(odds("come8", free8 + u), odds("dont_come8", lay_max), take_down("come8"), take_down("dont_come8"),
      odds("come8", 0), bet("come", f), roll(6), odds("come6", free8 + u), roll(5))
    s(call("dont_come8", False), odds("come8", 0), odds("dont_come6", lay_free), odds("dont_come8", lay_free + u),
      odds("dont_come8", lay_max), call("come6", True), roll(8))
    s(bet("dont_come", f), bet("come", f), roll(9))
    s(odds("dont_come9", s.limits("dont_come9")[1]), odds("come9", s.limits("come9")[0] + u), roll(4), roll(7))
    scripts = [("PlayOddsChange", "come and don't come bets with odds above the free odds and at the maximum, "
                "take-downs refused with odds, odds removed and set while off, a come-out roll deciding both "
                "sides; then a seven-out of a lay above the free odds", s.case())]
    s = Script(config, RACK_UNITS * u)(bet("pass", f), take_down("pass"), bet("pass", f), roll(4))
    s(odds("pass", s.limits("pass")[0] + u), take_down("pass"), call("pass", False), roll(7), bet("pass", f),
      roll(10))
    s(odds("pass", s.limits("pass")[0] + u), call("pass", False), roll(10))
    s(roll(6), bet("dont_come", f), roll(5), bet("dont_come", f), roll(6))
    s(roll(9), bet("dont_come", f), roll(4))
    s(odds("dont_come4", s.limits("dont_come4")[1]), roll(4), roll(8), roll(7))
    scripts.append(("PlayOddsChange", "pass odds above the free odds called off, then the seven-out and the point "
                    "made (odds and commission handed back); don't come bets without odds decided on a "
                    "come-out roll and left by a roll of no action; a lay above the free odds lost", s.case()))

    s = Script(config, RACK_UNITS * u)(roll(4))
    for number in (5, 6, 8, 9, 10, 4):
        s(bet("come", f), bet("dont_come", f), roll(number))
    lay5, lay6, lay8, lay9, lay10 = (s.limits(f"dont_come{n}") for n in (5, 6, 8, 9, 10))
    s(odds("come5", s.limits("come5")[0]), odds("come6", s.limits("come6")[0] + u),
      odds("come8", s.limits("come8")[0]), odds("dont_come5", lay5[0] + u),
      odds("dont_come5", _whole(s, "dont_come5", lay5[0] + u)), odds("dont_come6", lay6[1]),
      odds("dont_come8", lay8[0]), odds("dont_come9", _whole(s, "dont_come9", lay9[0] + u)),
      take_down("dont_come10"), odds("dont_come10", lay10[0]))
    s(roll(11), roll(8), roll(8), roll(9), roll(9), roll(4), roll(4), roll(7))
    scripts.append(("PlayOddsChange", "come and don't come bets on every number, the point made: on the come-out "
                    "rolls that follow, odds at and above the free odds, lays set while off (one not a whole "
                    "win), a take-down, then a natural, each number rolled and the seven", s.case()))
    s = Script(config, RACK_UNITS * u)(roll(4), bet("dont_come", f), roll(5), roll(4), roll(7))
    scripts.append(("PlayOddsChange", "a don't come bet without odds won by a seven on the come-out roll", s.case()))
    return scripts


def _whole(s: Script, bet_id: str, amount: int) -> int:
    """The least odds from ``amount`` up behind ``bet_id`` that are a multiple of the unit with a
    whole win."""
    b, u = s.table.bets[bet_id], s.config.table.unit
    point = s.table.own_point(b)
    assert point is not None
    amount = -(-amount // u) * u
    while craps.odds_win_exact(b.kind, point, amount).denominator != 1:
        amount += u
    return amount
