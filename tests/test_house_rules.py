"""House rules declared and crossed (issue #40): ``craps.house_rules`` in a hello's capabilities
puts the rounds under a value not offered out of scope (``house_rule:RULE=VALUE``, like any other
table feature); ``--require house_rule:...`` names one; and the ``rounds`` suite plays every value
of every house rule on tables with and without a commission, on each bar number and at each
payout rounding."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from tablecert.harness.answers.capabilities import (Capabilities, CapabilityError, check_declaration, house_rule_feature,
                                                    mark_batch, split_require, table_features)
from tablecert.harness.answers.round_findings import round_scope
from tablecert.harness.model import Batch
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.craps_round import HOUSE_RULES
from tablecert.oracle.profiles import load_profile

RETURNED_ONLY = {"craps": {"house_rules": {"bar_push": ["returned"]}}}


def test_the_schema_names_every_house_rule_and_value_of_the_oracle() -> None:
    schema = json.loads(resources.files("tablecert.harness").joinpath("capabilities.schema.json").read_text())
    declared = schema["properties"]["craps"]["properties"]["house_rules"]["properties"]
    assert {name: tuple(rule["items"]["enum"]) for name, rule in declared.items()} == \
        {name: values for name, (values, _, _) in HOUSE_RULES.items()}


@pytest.mark.parametrize("house_rules", [{"bar_push": ["sometimes"]}, {"bar_push": []}, {"bar_pushed": ["stays"]},
                                         {"take_down_dont": ["false"]}])
def test_a_malformed_house_rule_declaration_is_refused_naming_it(house_rules: dict) -> None:
    with pytest.raises(CapabilityError, match="capabilities.craps.house_rules"):
        check_declaration({"capabilities": {"craps": {"house_rules": house_rules}}})


def test_a_declared_house_rule_offers_its_values_only_and_every_other_rule_all() -> None:
    check_declaration({"capabilities": RETURNED_ONLY})
    caps = Capabilities.from_declaration(RETURNED_ONLY)
    assert not caps.everything
    assert caps.offers("house_rule:bar_push=returned") and not caps.offers("house_rule:bar_push=stays")
    assert caps.offers("house_rule:working_call=bet") and caps.offers("house_rule:take_down_dont=false")
    assert Capabilities.from_declaration(None).offers("house_rule:bar_push=stays")
    booleans = Capabilities.from_declaration({"craps": {"house_rules": {"take_down_unset": [True]}}})
    assert booleans.offers("house_rule:take_down_unset=true")
    assert not booleans.offers("house_rule:take_down_unset=false")


def test_require_names_a_house_rule_setting() -> None:
    assert split_require("craps.round,house_rule:bar_push=stays") == ("craps.round", ["house_rule:bar_push=stays"])
    assert split_require("house_rule:take_down_dont=false") == (None, ["house_rule:take_down_dont=false"])
    for wrong in ("house_rule:bar_push=sometimes", "house_rule:take_down_dont=False", "house_rule:bar=2"):
        with pytest.raises(ValueError, match="is not a feature"):
            split_require(wrong)


def _round_batch(table: dict, house_rules: dict) -> Batch:
    case = {"rack": 10_000, "steps": [{"act": "bet", "bet": "dont_pass", "amount": 500},
                                      {"act": "roll", "dice": [6, 6]}]}
    return Batch("craps.round.x", "craps.round", 1, dict(table, house_rules=house_rules), [1, 2], [case, case],
                 [{"result": {}}, {"result": {}}], [[], []], [[], []])


def test_a_round_under_a_house_rule_not_offered_is_outside_with_that_feature() -> None:
    caps = Capabilities.from_declaration({"craps": {"commission": False, **RETURNED_ONLY["craps"]}})
    plain = load_profile("odds-3-4-5x").craps
    stays = _round_batch(plain, {"bar_push": "stays"})
    mark_batch(stays, caps)
    assert stays.outside == {1: "house_rule:bar_push=stays", 2: "house_rule:bar_push=stays"}
    returned = _round_batch(plain, {"bar_push": "returned"})
    mark_batch(returned, caps)
    assert returned.outside == {}
    charged = _round_batch(load_profile("odds-3-4-5x-commission-10x").craps, {"bar_push": "stays"})
    mark_batch(charged, caps)
    assert set(charged.outside.values()) == {"commission"}        # the table features first


def test_round_play_lists_the_settings_certified_and_not() -> None:
    stays, returned = house_rule_feature("bar_push", "stays"), house_rule_feature("bar_push", "returned")
    scope = round_scope({"craps.round": {"pass": 7, "unsupported": 3}},
                        {returned: {"pass": 7}, stays: {"unsupported": 3}})
    assert scope is not None and scope["house_rules"]["bar_push"] == {
        "values": ["returned"], "default": "stays", "register": "INT-BAR-PUSH", "not_certified": ["stays"]}


RULE_FLAGS = {"come_odds_come_out": "PlayComeOddsComeOut", "dont_come_odds_come_out": "PlayDontComeOddsComeOut",
              "working_call": "PlayWorkingCall", "bar_push": "PlayBarPush", "take_down_unset": "PlayContractTakeDown",
              "take_down_dont": "PlayContractTakeDown", "press_unset": "PlayLinePress"}
"""The bug class of each house rule (vectors/round_notes.toml), met by its named script (the press,
by the plan presses)."""
AT_LEAST = 56
"""Rounds per house-rule value and table: the named scripts (14) and the sequences of 1 or 2 rolls
of six totals (42) of one plan, the fewest a crossed group holds."""


def test_every_house_rule_value_is_crossed_with_commission_bar_and_payout_rounding(rounds_suite: Path) -> None:
    rounds: Counter[tuple[str, bool, str, str]] = Counter()
    flags: dict[tuple[str, bool, str, str], set[str]] = {}
    for batch in iter_batches(rounds_suite, 1000):
        features = table_features(batch.op, batch.config)
        rules = [f for f in features if f.startswith("house_rule:")]
        if not rules:
            continue                       # a malformed table
        bar = next(f for f in features if f.startswith("bar="))
        rounding = next(f for f in features if f.startswith("payout_rounding="))
        for rule in rules:
            cell = (rule, "commission" in features, bar, rounding)
            rounds[cell] += len(batch.cases)
            flags.setdefault(cell, set()).update(f for fl in batch.flags for f in fl)
    cells = [(house_rule_feature(name, value), commission, f"bar={bar}", f"payout_rounding={rounding}")
             for name, (values, _, _) in HOUSE_RULES.items() for value in values
             for commission in (False, True) for bar in (12, 2) for rounding in ("exact", "down")]
    assert len(cells) == 14 * 8
    missing = [cell for cell in cells if rounds[cell] < AT_LEAST]
    assert not missing, f"house rules not crossed: {missing}"
    unmet = [cell for cell in cells if RULE_FLAGS[cell[0].split(":")[1].split("=")[0]] not in flags[cell]]
    assert not unmet, f"a house rule's bug class not met: {unmet}"


# -- pressing a line bet before its point (issue 50 item 4; contract 1.1, INT-PRESS-UNSET)

PRESSING = {"press_unset": True}


def _pressed_round(house_rules: dict) -> list[dict]:
    """A pass bet of 500 added to before the come-out (rack 2,000), the point 6, a pass bet tried
    with the point on, a come bet of 100 added to in the box, then a 4: the come bet travels."""
    from tablecert.oracle.craps_round import parse_round_config, play
    config = parse_round_config(dict(load_profile("odds-3-4-5x").craps, house_rules=house_rules))
    steps = [{"act": "bet", "bet": "pass", "amount": 500}, {"act": "bet", "bet": "pass", "amount": 500},
             {"act": "roll", "dice": [3, 3]}, {"act": "bet", "bet": "pass", "amount": 500},
             {"act": "bet", "bet": "come", "amount": 100}, {"act": "bet", "bet": "come", "amount": 100},
             {"act": "roll", "dice": [2, 2]}]
    return play(config, {"rack": 2000, "steps": steps})["steps"]


def test_a_line_bet_before_its_point_is_pressed_only_under_the_house_rule() -> None:
    pressed = _pressed_round(PRESSING)
    flats = [{b["bet"]: b["flat"] for b in r["table"]["bets"]} for r in pressed]
    assert [r["error"] for r in pressed] == [None, None, None, "point_on", None, None, None]
    assert flats == [{"pass": 500}, {"pass": 1000}, {"pass": 1000}, {"pass": 1000}, {"pass": 1000, "come": 100},
                     {"pass": 1000, "come": 200}, {"pass": 1000, "come4": 200}]
    assert [r["table"]["rack"] for r in pressed] == [1500, 1000, 1000, 1000, 900, 800, 800]
    assert pressed[1]["events"] == [] and pressed[5]["events"] == []
    refused = _pressed_round({})                      # the default, every earlier release's reading
    assert [r["error"] for r in refused] == [None, "bet_exists", None, "point_on", None, "bet_exists", None]
    assert refused[1]["table"] == refused[0]["table"] and refused[-1]["table"]["rack"] == 1400


def test_bet_exists_is_a_reason_only_for_a_bet_that_may_not_be_pressed() -> None:
    from tablecert.oracle.craps_round import Table, apply_step, parse_round_config
    from tablecert.oracle.round_refusals import reasons
    for house, waiting, with_point in ((PRESSING, (), ("point_on", "bet_exists")),
                                       ({}, ("bet_exists",), ("point_on", "bet_exists"))):
        t = Table(parse_round_config(dict(load_profile("odds-3-4-5x").craps, house_rules=house)), 10_000)
        apply_step(t, {"act": "bet", "bet": "pass", "amount": 500})
        assert reasons(t, {"act": "bet", "bet": "pass", "amount": 500}) == waiting
        apply_step(t, {"act": "roll", "dice": [2, 2]})
        assert reasons(t, {"act": "bet", "bet": "pass", "amount": 500}) == with_point


def test_the_opt_in_rule_not_named_offers_its_default_only() -> None:
    pressing, refusing = house_rule_feature("press_unset", True), house_rule_feature("press_unset", False)
    assert (pressing, refusing) == ("house_rule:press_unset=true", "house_rule:press_unset=false")
    for declared in (None, RETURNED_ONLY):        # an old vendor: nothing declared, or 1.0's rules only
        caps = Capabilities.from_declaration(declared)
        assert caps.offers(refusing) and not caps.offers(pressing)
    real = Capabilities.from_declaration({"craps": {"house_rules": {"press_unset": [True]}}})
    assert real.offers(pressing) and not real.offers(refusing) and real.offers("house_rule:bar_push=stays")
    batch = _round_batch(load_profile("odds-3-4-5x").craps, PRESSING)
    mark_batch(batch, Capabilities())             # no declaration at all: still outside
    assert batch.outside == {1: pressing, 2: pressing}
    from tablecert.oracle.vendor import ReferenceVendor
    assert ReferenceVendor().hello()["capabilities"] == {"craps": {"house_rules": {"press_unset": [False, True]}}}


def test_the_suites_tables_name_no_opt_in_rule_at_its_default() -> None:
    """A vendor of 1.0 refusing an unknown house rule still reads every default table."""
    from tablecert.vectors.round_cases import default_house_rules, other_house_values
    assert "press_unset" not in default_house_rules() and "press_unset" not in other_house_values()
    assert other_house_values(opt_in=True)["press_unset"] is True


def test_the_plan_presses_catches_a_press_that_replaces_the_bet() -> None:
    from itertools import product
    from tablecert.oracle.craps_round import Table, parse_round_config, play
    from tablecert.vectors.round_cases import play_plan, presses

    class PressReplaces(Table):
        def place(self, kind: str, amount: int) -> list:
            held = self.bets.get(kind)
            if held is not None and self.pressable(held):
                self._spend(amount)
                self.rack += held.flat         # the old chips handed back: the bet replaced, not added to
                held.flat = amount
                return []
            return super().place(kind, amount)

    config = parse_round_config(dict(load_profile("odds-3-4-5x").craps, house_rules=PRESSING))
    cases = [play_plan(config, presses, totals)[0] for n in (1, 2) for totals in product((3, 4, 6, 7, 11, 12), repeat=n)]
    caught = [c for c in cases if play(config, c) != play(config, c, PressReplaces)]
    assert caught and len(caught) < len(cases)


def test_every_house_rule_value_plays_the_edge_scripts_on_both_commission_tables() -> None:
    """Issue 50 item 3: the depth groups (the scripts written for the edges, played under each
    value), so a vendor declaring one value meets the default rules' edges (bench_house_depth.py)."""
    from fractions import Fraction
    from tablecert.vectors.round_cases import depth_groups
    groups = list(depth_groups(load_profile("odds-3-4-5x").craps))
    cells = {(name, json.dumps(g.config["house_rules"][name]), Fraction(g.config["commission_rate"]) != 0)
             for g in groups for name in g.config["house_rules"]
             if g.config["house_rules"][name] != HOUSE_RULES[name][1]}
    assert cells == {(name, json.dumps(v), charged) for name, (values, default, _) in HOUSE_RULES.items()
                     for v in values if v != default for charged in (False, True)}
    # since 1.2 every rule at its other value at once too (every pair of other values meets the edges)
    together = [g for g in groups if all(g.config["house_rules"].get(name, default) != default
                                         for name, (_, default, _) in HOUSE_RULES.items())]
    assert len(together) == 2 and len(groups) == 2 * (len(HOUSE_RULES) + 1)
    assert all(len(list(g.vectors)) == 16 + 42 for g in groups)
