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
              "take_down_dont": "PlayContractTakeDown"}
"""The bug class of each house rule (vectors/round_notes.toml), met by its named script."""
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
    assert len(cells) == 12 * 8
    missing = [cell for cell in cells if rounds[cell] < AT_LEAST]
    assert not missing, f"house rules not crossed: {missing}"
    unmet = [cell for cell in cells if RULE_FLAGS[cell[0].split(":")[1].split("=")[0]] not in flags[cell]]
    assert not unmet, f"a house rule's bug class not met: {unmet}"
