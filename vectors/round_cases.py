"""The ``rounds`` suite, and ``standard``'s round part: whole craps rounds (op ``craps.round``) on
the suite's table.

* **Every roll sequence** of 1 to :data:`ROLLS` rolls by totals (line bets turn on totals only, so
  one pair of dice stands for each), crossed with the bet plans of :data:`PLANS`: each plan is a
  player's policy, the steps it takes before each roll decided from the table as the oracle has
  it then. Together they place every bet, take and lay odds on every point (at the maximum, and
  just above the free odds on a table with a commission), call odds working and off, reduce and
  take down odds and bets, and try the refused moves (odds before a point or before a come bet
  travelled, odds above the maximum, a contract bet taken down).
* **House rules**: the same plans on sequences of up to :data:`ROLLS` rolls of six telling totals
  under every house rule set to its other value.
* **Named scripts**, one per bug class of a table engine, each with its comment.
* **Edges** (**new**, issue #38; :mod:`tablecert.vectors.round_edges`): the boundaries of every
  change of a bet, a step refused for exactly each pair of refusal reasons the contract orders,
  and a few scripts (under the default house rules and under every rule at its other value) for
  what only longer sequences reached, so that ``standard``'s part reaches every transition,
  boundary and refusal pair ``rounds`` reaches (:mod:`tablecert.vectors.round_coverage`).
* **House rules crossed** (**new**, issue #40): every value of every house rule (the defaults, and
  each rule at each other value) on every table a vendor may decline or not
  (:func:`crossed_tables`: with and without a commission, on each bar number, at each payout
  rounding), and every rule at its other value at once (so every pair of values of two rules
  meets), each with the named scripts (its own bug classes among them) and every sequence of 1
  to ``Bounds.crossed`` rolls of the six telling totals (the table's bar among them) by the plans
  of that rule (:data:`VARIANT_PLANS`; all four otherwise). So a vendor that declares only some of
  those tables, or one value of a rule, is still judged on every other house-rule value it offers.

``standard`` holds the same groups but the crossed ones with shorter sequences (:data:`STANDARD_BOUNDS`: 1 to 3 rolls
for the plans right and wrong, 1 or 2 for the others): the named scripts catch each bug class,
the short sequences play every bet, plan and house rule, at a few per cent of ``standard``'s run
time (``benchmarks/bench_standard_rounds.py``).

Flags are read off the oracle's own play of each script (:func:`flags_of`: a come bet that
travelled, come odds on a deciding come-out roll, a bar push ...), so a failing round is counted
under the bug classes it exercises. The writer asks the oracle again for every expected answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import chain, product
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import (BOX_BETS, HOUSE_RULES, OPT_IN_RULES, RoundConfig, Table, apply_step,
                                          parse_round_config)
from tablecert.oracle.profiles import load_profile
from tablecert.oracle.table_config import BARS, PAYOUT_ROUNDINGS
from tablecert.vectors.craps_cases import commission_variant, variant
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.round_edges import edge_scripts, reach_scripts, refusal_pair_scripts
from tablecert.vectors.round_steps import FLAT_UNITS, RACK_UNITS, Step, bet, call, odds, roll, take_down

OP = "craps.round"
ROLLS = 4
REMOVAL_ROLLS = 3
TOTALS = tuple(range(2, 13))
VARIANT_TOTALS = (3, 4, 6, 7, 11, 12)
"""The totals of the house-rule groups: craps, a point paying 2:1 and one paying 6:5, the seven,
a natural and the bar."""
VARIANT_PLANS = {"come_odds_come_out": ("right", "calls"), "dont_come_odds_come_out": ("wrong", "calls"),
                 "working_call": ("calls",), "bar_push": ("wrong",), "take_down_unset": ("removals",),
                 "take_down_dont": ("removals",), "press_unset": ("presses",)}
"""The plans each house rule's other value is played with."""
Plan = Callable[[Table, int], list[Step]]
"""A bet plan: the steps a player takes before roll ``i`` on a table."""

CLAUSES = ("craps.sw.1", "craps.sw.2", "craps.sw.3", "craps.sw.4", "craps.sw.5", "craps.sw.6", "craps.sw.7",
           "INT-CRAPS-LINE-BETS", *sorted({entry for name, (_, _, entry) in HOUSE_RULES.items() if name not in OPT_IN_RULES}
                                          | {"INT-ROUND-COMMISSION"}))
"""What every round vector cites; a round whose table names an opt-in rule (*since 1.1*) cites its
entry too (:func:`cited`)."""


def cited(vectors: Iterator[Vector], house: dict[str, Any]) -> Iterator[Vector]:
    """``vectors`` citing the register entries of the opt-in rules ``house`` names, besides :data:`CLAUSES`."""
    more = tuple(sorted({HOUSE_RULES[name][2] for name in house if name in OPT_IN_RULES}))
    return (replace(v, clauses=v.clauses + more) for v in vectors) if more else vectors


def _limit(t: Table, bet_id: str, which: int) -> int:
    b = t.bets[bet_id]
    found = t.config.single(craps.odds_limits, bet=b.kind, flat=b.flat, point=t.own_point(b))
    return int(found["max_odds" if which else "free_odds"])


def _with_odds(t: Table, kinds: tuple[str, ...], amount: Callable[[Table, str], int]) -> list[Step]:
    """Odds on every bet of ``kinds`` with a point and no odds yet."""
    return [odds(i, amount(t, i)) for i, b in sorted(t.bets.items()) if b.kind in kinds and b.odds == 0
            and t.own_point(b) is not None and amount(t, i) > 0]


def _maximum(t: Table, bet_id: str) -> int:
    return _limit(t, bet_id, 1)


def _above_free(t: Table, bet_id: str) -> int:
    """One unit above the free odds (a commission on a table that charges one), within the maximum."""
    return min(_limit(t, bet_id, 0) + t.cfg.unit, _limit(t, bet_id, 1))


def _line(t: Table, kind: str, box: str) -> list[Step]:
    """The flat bet of a side: the line bet on a come-out, the box bet with a point."""
    flat = FLAT_UNITS * t.cfg.unit
    if t.point is None:
        return [] if kind in t.bets else [bet(kind, flat)]
    return [] if box in t.bets else [bet(box, flat)]


def right(t: Table, i: int) -> list[Step]:
    """Pass and come bets, each with the maximum odds as soon as it has a point."""
    return _line(t, "pass", "come") + _with_odds(t, ("pass", "come"), _maximum)


def wrong(t: Table, i: int) -> list[Step]:
    """Don't pass and don't come bets, each laying the maximum odds as soon as it has a point."""
    return _line(t, "dont_pass", "dont_come") + _with_odds(t, ("dont_pass", "dont_come"), _maximum)


def calls(t: Table, i: int) -> list[Step]:
    """Both sides with odds just above the free odds; before a come-out roll come odds called
    working on even rolls and don't come odds called off on odd ones; with a point the pass odds
    called off on roll 2."""
    steps = _line(t, "pass", "come") + _line(t, "dont_pass", "dont_come")
    steps += _with_odds(t, ("pass", "come", "dont_pass", "dont_come"), _above_free)
    for bet_id, b in sorted(t.bets.items()):
        if b.odds and t.point is None and b.kind == "come" and i % 2 == 0:
            steps.append(call(bet_id, True))
        if b.odds and t.point is None and b.kind == "dont_come" and i % 2 == 1:
            steps.append(call(bet_id, False))
        if b.odds and t.point is not None and b.kind == "pass" and i == 2:
            steps.append(call(bet_id, False))
    return steps


def removals(t: Table, i: int) -> list[Step]:
    """Pass, come and don't come bets, and every move the table refuses or allows around them:
    odds before a point and on a come bet in the box (no_point), odds above the maximum
    (above_maximum), pass and travelled come bets taken down (not_removable), travelled don't
    come bets taken down and odds reduced on alternate rolls."""
    u, steps = t.cfg.unit, []
    if t.point is None:
        steps += [odds("pass", u)] if "pass" in t.bets else []
        return steps + _line(t, "pass", "come")
    steps += _line(t, "pass", "come")
    if "dont_come" not in t.bets:
        steps.append(bet("dont_come", FLAT_UNITS * u))
    steps.append(odds("come", u))
    for bet_id, b in sorted(t.bets.items()):
        if t.own_point(b) is None:
            continue
        if b.kind in ("pass", "come"):
            steps.append(take_down(bet_id))
            if b.odds == 0:
                steps += [odds(bet_id, _maximum(t, bet_id) + u), odds(bet_id, _maximum(t, bet_id))]
        elif b.kind == "dont_come":
            if b.odds == 0:
                steps.append(odds(bet_id, _maximum(t, bet_id)))
            elif i % 2:
                steps.append(take_down(bet_id))
            else:
                steps.append(odds(bet_id, _limit(t, bet_id, 0)))
    return steps


def presses(t: Table, i: int) -> list[Step]:
    """Every line bet pressed before its point (INT-PRESS-UNSET, *since 1.1*): before a come-out
    roll a pass and a don't pass bet placed, or added to when they wait on the layout; with a
    point a come and a don't come bet placed and added to in the box, a pass bet tried (point_on),
    and the maximum odds behind every bet with a point (their limit of the pressed flat). Under
    ``press_unset`` false every addition is refused ``bet_exists``."""
    flat = FLAT_UNITS * t.cfg.unit
    if t.point is None:
        steps = [bet("pass", flat), bet("dont_pass", flat)]
    else:
        steps = [s for kind in BOX_BETS if kind not in t.bets for s in (bet(kind, flat), bet(kind, flat))]
        steps.append(bet("pass", flat))
    return steps + _with_odds(t, ("pass", "dont_pass", "come", "dont_come"), _maximum)


PLANS: dict[str, tuple[Plan, str]] = {
    "right": (right, "pass and come with the maximum odds"),
    "wrong": (wrong, "don't pass and don't come laying the maximum odds"),
    "calls": (calls, "both sides with odds above the free odds, called working and off"),
    "removals": (removals, "refused and allowed take-downs, reductions and odds"),
    "presses": (presses, "line bets added to before their point, and the odds of the pressed flats"),
}


def play_plan(config: RoundConfig, plan: Plan, totals: tuple[int, ...]) -> tuple[dict[str, Any], list[Any]]:
    """The case a plan makes of a roll sequence, and the oracle's records (for the flags)."""
    rack = RACK_UNITS * config.table.unit
    t = Table(config, rack)
    steps, records = [], []
    for i, total in enumerate(totals):
        for s in plan(t, i) + [roll(total)]:
            steps.append(s)
            records.append(apply_step(t, s))
    return {"rack": rack, "steps": steps}, records


def flags_of(case: dict[str, Any], records: list[Any]) -> tuple[str, ...]:
    """The bug classes a played script exercises, read off the oracle's records."""
    found = {"PlayRound"}
    before: dict[str, Any] = {"point": None, "bets": []}
    called = 0
    for s, r in zip(case["steps"], records):
        act, error = s["act"], r["error"]
        if act == "odds" and error == "no_point":
            found.add("PlayEarlyOdds")
        if act == "odds" and (error == "above_maximum" or (r["accepted"] and s["amount"] > 0)):
            found.add("PlayOddsLimitBase")
        if act == "take_down" and error == "not_removable":
            found.add("PlayContractTakeDown")
        if act == "working" and r["accepted"]:
            called = 2
        if error:
            found.add("PlayRefusal")
        if act == "bet" and s["bet"] in {b["bet"] for b in before["bets"]}:    # pressed, or bet_exists
            found.add("PlayLinePress")
        if act == "roll" and r["accepted"]:
            total, point = sum(s["dice"]), before["point"]
            kinds = {b["bet"] for b in before["bets"]}
            with_odds = {b["bet"] for b in before["bets"] if b["odds"]}
            if called:
                found.add("PlayWorkingCall")
                called -= 1
            for e in r["events"]:
                decided = e["outcome"] in ("win", "lose")
                if e["bet"] in BOX_BETS and e["outcome"] == "point":
                    found.add("PlayComeTravel")
                if e["bet"] in BOX_BETS and point is not None and total == point:
                    found.add("PlayComeOnPointRoll")
                if e["bet"] in BOX_BETS and point is not None and total == craps.SEVEN:
                    found.add("PlayComeSevenOut")
                if e["bet"] in with_odds and decided:
                    found.add("PlayOrphanOdds")
                if point is None and e["bet"] in with_odds:      # odds on a come-out roll, deciding or not
                    found.add("PlayDontComeOddsComeOut" if e["bet"].startswith("dont") else "PlayComeOddsComeOut")
                if e["outcome"] == "push":
                    found.add("PlayBarPush")
                if e["flat_stake"] == "won":
                    found.add("PlayStakeTwice")
                if e["commission_returned"]:
                    found.add("PlayCommissionReturned")
            if point is not None and total == point and "pass" in kinds and "come" in kinds:
                found.add("PlayPointAndCome")
        before = r["table"]
    return tuple(sorted(found))


def _vector(config: RoundConfig, case: dict[str, Any], comment: str, more: tuple[str, ...] = ()) -> Vector:
    t = Table(config, case["rack"])
    records = [apply_step(t, s) for s in case["steps"]]
    return Vector(case, comment, tuple(sorted(set(flags_of(case, records)) | set(more))), CLAUSES)


def _plan_vectors(config: RoundConfig, plans: tuple[str, ...], rolls: int,
                  alphabet: tuple[int, ...] = TOTALS) -> Iterator[Vector]:
    for name in plans:
        plan, _ = PLANS[name]
        for n in range(1, rolls + 1):
            for totals in product(alphabet, repeat=n):
                case, records = play_plan(config, plan, totals)
                yield Vector(case, f"plan {name}, totals {'-'.join(map(str, totals))}",
                             flags_of(case, records), CLAUSES)


def other_house_rules(opt_in: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """(rule, house rules) with every house rule at each of its other values, one at a time (the
    opt-in rules, *since 1.1*, only when ``opt_in``)."""
    out = []
    for name, (allowed, default, _) in HOUSE_RULES.items():
        if opt_in or name not in OPT_IN_RULES:
            out += [(name, {**default_house_rules(), name: value}) for value in allowed if value != default]
    return out


def default_house_rules() -> dict[str, Any]:
    """The default house rules as a round table names them: every rule but the opt-in ones (*since
    1.1*; absent, at their default), so a vendor of an earlier release reads every table it did."""
    return {name: default for name, (_, default, _) in HOUSE_RULES.items() if name not in OPT_IN_RULES}


def other_house_values(opt_in: bool = False) -> dict[str, Any]:
    """Every house rule at its other value (each rule has two); the opt-in ones only when ``opt_in``."""
    return {name: next(v for v in allowed if v != default) for name, (allowed, default, _) in HOUSE_RULES.items()
            if opt_in or name not in OPT_IN_RULES}


@dataclass(frozen=True)
class Bounds:
    """How long the roll sequences of a round suite are, by bet plans: right and wrong (``lines``),
    calls, removals, and the house-rule groups (``house_rules``)."""

    lines: int
    calls: int
    removals: int
    house_rules: int
    crossed: int = 0
    """The house rules crossed with the tables (:func:`crossed_groups`): rolls of their sequences;
    0: no crossed groups."""


CROSSED_ROLLS = 2
"""The crossed groups' sequences (their 4-roll bug classes are met by the named scripts)."""
ROUNDS_BOUNDS = Bounds(ROLLS, ROLLS, REMOVAL_ROLLS, ROLLS, CROSSED_ROLLS)
"""The ``rounds`` suite."""
STANDARD_BOUNDS = Bounds(3, 2, 2, 2)
"""``standard``'s round part: the named scripts, malformed cases, every sequence of 1 to 3 rolls
for the plans right and wrong (a come or don't come bet travels and is decided) and of 1 or 2
rolls for the others."""


def round_groups(table: dict[str, Any], bounds: Bounds = ROUNDS_BOUNDS) -> Iterator[VectorGroup]:
    """The round groups on one craps table (a protocol table config), the sequences of rolls as
    long as ``bounds`` say (the ``rounds`` suite's by default)."""
    commission = commission_variant(table)
    plain = dict(table, house_rules=default_house_rules())
    charged = dict(commission, house_rules=default_house_rules())
    config = parse_round_config(charged)      # first: a faulty vendor fails in the first request
    yield VectorGroup(OP, charged, "named scripts, one per bug class of a table engine",
                      [_vector(config, case, comment, (flag,)) for flag, comment, case in named_scripts(config)])
    yield VectorGroup(OP, charged, "the edges of every change of a bet, and every pair of refusals the contract "
                      "orders refused at once", [_vector(config, case, comment, (flag,)) for flag, comment, case
                                                 in edge_scripts(config) + refusal_pair_scripts(config)])
    for what, house in (("the default house rules", default_house_rules()), ("every house rule at its other value",
                                                                              other_house_values())):
        cfg = dict(commission, house_rules=house)
        yield VectorGroup(OP, cfg, f"what longer sequences reach, in a few scripts, under {what}",
                          [_vector(parse_round_config(cfg), case, comment, (flag,))
                           for flag, comment, case in reach_scripts(parse_round_config(cfg))])
    yield VectorGroup(OP, plain, f"every sequence of 1 to {bounds.lines} rolls by totals, bet plans right and "
                      "wrong, the common casino house rules",
                      _plan_vectors(parse_round_config(plain), ("right", "wrong"), bounds.lines))
    yield VectorGroup(OP, plain, f"every sequence of 1 to {bounds.removals} rolls by totals, bet plan removals",
                      _plan_vectors(parse_round_config(plain), ("removals",), bounds.removals))
    yield VectorGroup(OP, charged, f"every sequence of 1 to {bounds.calls} rolls by totals, bet plan calls, odds "
                      "above the free odds (a commission)",
                      _plan_vectors(parse_round_config(charged), ("calls",), bounds.calls))
    for name, house in other_house_rules():
        cfg = dict(commission, house_rules=house)
        totals, plans = ", ".join(map(str, VARIANT_TOTALS)), ", ".join(VARIANT_PLANS[name])
        yield VectorGroup(OP, cfg, f"house rule {name} {house[name]}: every sequence of 1 to {bounds.house_rules} "
                          f"rolls of totals {totals}, plans {plans}",
                          _plan_vectors(parse_round_config(cfg), VARIANT_PLANS[name], bounds.house_rules,
                                        VARIANT_TOTALS))
    yield VectorGroup(OP, dict(charged, house_rules={"bar_push": "sometimes"}), "a malformed house rule",
                      [Vector({"rack": 100, "steps": [roll(7)]}, "house rule bar_push of an unknown value",
                              ("InvalidConfig",), ("INT-BAR-PUSH",))])
    yield VectorGroup(OP, charged, "malformed cases", [Vector(c, why, ("InvalidInput",), ("INT-CRAPS-LINE-BETS",))
                                                       for c, why in _malformed()])
    if bounds.crossed:
        yield from depth_groups(table)
        yield from crossed_groups(table, bounds.crossed)


def depth_groups(table: dict[str, Any]) -> Iterator[VectorGroup]:
    """Issue 50 item 3: each house rule at each other value (the opt-in ones too) on the table
    without and with a commission, playing the scripts written (under the default rules) to reach
    the edges (every change of a bet, every refusal pair, what only longer sequences reach:
    :mod:`round_edges`), so that a
    vendor that declares only that value meets the edges the default rules' rounds reach
    (``benchmarks/bench_house_depth.py`` counts them); *since 1.2* also every rule at its other
    value at once, so that every pair of two rules' other values meets those edges (a vendor that
    offers only those two: the rounds that never read either rule meet the rest)."""
    for base in (variant(table, commission_rate="0"), commission_variant(table)):
        default = parse_round_config(dict(base, house_rules=default_house_rules()))
        scripts = edge_scripts(default) + refusal_pair_scripts(default) + reach_scripts(default)
        where = "a" if Fraction(base["commission_rate"]) != 0 else "no"
        settings = [(f"house rule {name} {json.dumps(house[name])}", house)
                    for name, house in other_house_rules(opt_in=True)]
        settings.append(("every house rule at its other value, the opt-in ones too", other_house_values(opt_in=True)))
        for what, house in settings:      # the same steps, the oracle's answers under the rules
            cfg = dict(base, house_rules=house)
            config = parse_round_config(cfg)
            played = [_vector(config, case, comment, (flag,)) for flag, comment, case in scripts]
            yield VectorGroup(OP, cfg, f"depth: {what} on a table with {where} "
                              "commission: the edges of every change of a bet, every refusal pair, what longer "
                              "sequences reach, and every sequence of 1 or 2 rolls of totals "
                              f"{', '.join(map(str, VARIANT_TOTALS))}, plan presses",
                              cited(chain(played, _plan_vectors(config, ("presses",), 2, VARIANT_TOTALS)), house))


def crossed_tables(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The suite's table under every combination of the table features a vendor may decline that
    house rules are crossed with: without and with a commission (:func:`commission_variant`), on
    each bar number, at each payout rounding (8 tables, in that order)."""
    return [variant(base, bar=bar, payout_rounding=rounding)
            for base in (variant(table, commission_rate="0"), commission_variant(table))
            for bar in BARS for rounding in PAYOUT_ROUNDINGS]


def house_settings() -> list[tuple[str, tuple[str, ...], dict[str, Any]]]:
    """(what, plans, house rules) of the crossed groups: the defaults, each rule at each other value
    (its plans, :data:`VARIANT_PLANS`), and every rule at its other value at once, so that every
    pair of values of two rules meets on a table (a vendor that declares one rule's other value
    only is still judged on the other rules' values); *since 1.1* the opt-in rules' other values
    too (only here, in ``rounds``), alone and with every other rule's other value."""
    return [("the default house rules", tuple(PLANS), default_house_rules()),
            *((f"house rule {name} {json.dumps(house[name])}", VARIANT_PLANS[name], house)
              for name, house in other_house_rules(opt_in=True)),
            ("every house rule at its other value", tuple(PLANS), other_house_values()),
            ("every house rule at its other value, the opt-in ones too", tuple(PLANS),
             other_house_values(opt_in=True))]


def crossed_groups(table: dict[str, Any], rolls: int) -> Iterator[VectorGroup]:
    """Every house-rule setting (:func:`house_settings`) on every crossed table
    (:func:`crossed_tables`): the named scripts and every sequence of 1 to ``rolls`` rolls of the
    telling totals, with the table's bar, by the setting's plans."""
    for cfg in crossed_tables(table):
        totals = tuple(sorted({cfg["bar"], *VARIANT_TOTALS} - {14 - cfg["bar"]}))   # the bar, not the other end
        charged = Fraction(cfg["commission_rate"]) != 0
        where = f"{'a' if charged else 'no'} commission, bar {cfg['bar']}, payout rounding {cfg['payout_rounding']}"
        for setting, plans, house in house_settings():
            round_cfg = dict(cfg, house_rules=house)
            config = parse_round_config(round_cfg)
            scripts = [_vector(config, case, comment, (flag,)) for flag, comment, case in named_scripts(config)]
            yield VectorGroup(OP, round_cfg, f"crossed: {setting} on a table with {where}: the named scripts and "
                              f"every sequence of 1 to {rolls} rolls of totals {', '.join(map(str, totals))}, "
                              f"plans {', '.join(plans)}",
                              cited(chain(scripts, _plan_vectors(config, plans, rolls, totals)), house))


def _malformed() -> list[tuple[Any, str]]:
    return [([], "a case that is not an object"), ({"steps": [roll(7)]}, "no rack"),
            ({"rack": -1, "steps": [roll(7)]}, "a negative rack"), ({"rack": 100, "steps": []}, "no steps"),
            ({"rack": 100, "steps": [{"act": "shoot"}]}, "an unknown act"),
            ({"rack": 100, "steps": [{"act": "bet", "bet": "pass", "amount": "5"}]}, "an amount that is a string"),
            ({"rack": 100, "steps": [{"act": "working", "bet": "pass", "working": 1}]},
             "a working call that is not a boolean"),
            ({"rack": 100, "steps": [roll(7)] * 201}, "more than 200 steps")]


def named_scripts(config: RoundConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(flag, comment, case): one script per bug class, on the suite's commission table."""
    u = config.table.unit
    f = FLAT_UNITS * u
    free6, max6 = craps.limits(config.table, "come", f, 6)
    free_d8, max_d8 = craps.limits(config.table, "dont_come", f, 8)
    rack = RACK_UNITS * u
    bar = config.table.bar

    def case(*steps: Step) -> dict[str, Any]:
        return {"rack": rack, "steps": list(steps)}

    return [
        ("PlayComeTravel", "a come bet travels to the number rolled (8), not to the table's point (6), and stays "
         "on an 11 (a natural wins it only in the box)",
         case(roll(6), bet("come", f), roll(11), bet("come", f), roll(8), roll(5))),
        ("PlayComeOnPointRoll", "a come bet in the box when the point (6) is made travels to 6; it is not paid "
         "like the pass line", case(bet("pass", f), roll(6), bet("come", f), roll(6), roll(7))),
        ("PlayComeSevenOut", "a come bet in the box on a seven-out wins; a don't come bet in the box loses",
         case(roll(9), bet("come", f), bet("dont_come", f), roll(7))),
        ("PlayComeOddsComeOut", "come odds are off on the come-out roll: a seven loses the come bet and returns "
         "the odds; the come point rolled pays the flat and returns the odds",
         case(roll(5), bet("come", f), roll(6), odds("come6", max6), bet("come", f), roll(5), roll(7),
              roll(5), bet("come", f), roll(6), odds("come6", free6), roll(5), roll(6))),
        ("PlayDontComeOddsComeOut", "don't come odds work on the come-out roll (the house rule): a seven pays the "
         "don't come bet and its odds",
         case(roll(5), bet("dont_come", f), roll(8), odds("dont_come8", max_d8), roll(5), roll(7))),
        ("PlayWorkingCall", "come odds called working for one come-out roll: the call pays them on that roll "
         "and lapses after it, so on the next come-out they are off again",
         case(roll(5), bet("come", f), roll(6), odds("come6", max6), bet("come", f), roll(4), odds("come4", 2 * u),
              roll(5), call("come6", True), call("come4", True), roll(6), roll(3), roll(6), call("come4", True),
              roll(11), roll(4))),
        ("PlayOrphanOdds", "odds go with their base bet when it is decided: pass and come odds won, don't come "
         "odds lost, then a new point and nothing left behind",
         case(bet("pass", f), roll(8), odds("pass", free6), bet("dont_come", f), roll(6), odds("dont_come6", u * 6),
              roll(8), roll(6), bet("pass", f), roll(6), roll(6))),
        ("PlayEarlyOdds", "odds before a point, and on a come bet before it travelled, are refused (no_point)",
         case(bet("pass", f), odds("pass", f), roll(4), bet("come", f), odds("come", f), bet("dont_come", f),
              odds("dont_come", f), roll(5), odds("come5", f))),
        ("PlayOddsLimitBase", "odds limits come from the bet's own flat and number: come 6 behind a larger flat "
         "than the pass line on 4, each at its maximum and one unit above",
         case(bet("pass", f), roll(4), bet("come", 3 * f), roll(6), odds("come6", 3 * max6 + u),
              odds("come6", 3 * max6), odds("pass", craps.limits(config.table, "pass", f, 4)[1] + u),
              odds("pass", craps.limits(config.table, "pass", f, 4)[1]), roll(6), roll(4))),
        ("PlayContractTakeDown", "a pass bet and a travelled come bet cannot be taken down after their point; a "
         "don't bet and a pass bet before its come-out can",
         case(bet("pass", f), take_down("pass"), bet("pass", f), roll(5), take_down("pass"), bet("come", f),
              roll(9), take_down("come9"), bet("dont_come", f), roll(10), take_down("dont_come10"))),
        ("PlayBarPush", f"a don't pass and a don't come bet pushed on the bar ({bar}) stay on the layout",
         case(bet("dont_pass", f), roll(bar), roll(bar), roll(6), bet("dont_come", f), roll(bar), roll(7))),
        ("PlayPointAndCome", "the point (6) made with a come bet in the box: on the same roll the pass bet wins "
         "and the come bet travels to 6, whose flat then wins on the next come-out 6 (its odds off)",
         case(bet("pass", f), roll(6), bet("come", f), roll(6), odds("come6", max6), bet("pass", f), roll(6),
              roll(6))),
        ("PlayStakeTwice", "every win hands the stake back once: pass, come and don't come wins with odds",
         case(bet("pass", f), roll(10), odds("pass", 2 * f), bet("dont_come", f), roll(4), odds("dont_come4", 4 * f),
              roll(10), bet("pass", f), roll(11), roll(4), roll(7))),
        ("PlayCommissionReturned", "odds above the free odds pay a commission, handed back with odds that are "
         "returned (off on the come-out) or taken down, and kept when they win",
         case(roll(5), bet("come", f), roll(6), odds("come6", free6 + u), roll(5), roll(6),
              roll(5), bet("come", f), roll(6), odds("come6", free6 + u), odds("come6", 0), roll(6),
              bet("come", f), roll(8), odds("come8", free6 + u), roll(8))),
    ]


def suite_table(profile_id: str) -> dict[str, Any]:
    return load_profile(profile_id).craps
