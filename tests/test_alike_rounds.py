"""Rounds that never come to where a house rule decides judge a vendor that offers another value of
it (issue 50, *since 1.2*): the oracle says which rules a round's play read
(``craps_round.rules_read``), the harness sends a round batch whose table uses values of rules a
vendor names and does not offer on the table with the values it offers, and judges there the
rounds that read none of them (harness/answers/alike_rounds.py); the ``rounds`` manifest counts the
rounds that judge each value and each pair of values (``houseRuleDepth``, vectors/house_depth.py)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from itertools import islice
from pathlib import Path

from round_faulty_vendors import StakeTwice, round_vendor
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.answers.alike_rounds import sent_table
from tablecert.harness.answers.capabilities import Capabilities, house_rule_feature, mark_batch
from tablecert.harness.contract import SessionOptions
from tablecert.harness.model import Batch
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.oracle.craps_round import HOUSE_RULES, parse_round_config, play, rules_read
from tablecert.oracle.errors import CaseError
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import round_cases
from tablecert.vectors.house_depth import HouseDepth, setting_name, settings
from tablecert.vectors.suites import build_manifest, manifest_bytes
from tablecert.vectors.writer import write_vector_set

REPO = Path(__file__).resolve().parents[1]
PLAIN = load_profile("odds-3-4-5x").craps          # no commission, bar 12, payouts exact
REAL = {"craps": {"house_rules": {"bar_push": ["returned"], "press_unset": [True]}}}
"""crapssim 0.4.1's house rules: a bar push handed back, a line bet before its point pressed."""
DONT_PASS_BARRED = {"rack": 10_000, "steps": [{"act": "bet", "bet": "dont_pass", "amount": 500},
                                              {"act": "roll", "dice": [6, 6]}]}
PASS_WON = {"rack": 10_000, "steps": [{"act": "bet", "bet": "pass", "amount": 500}, {"act": "roll", "dice": [5, 6]}]}
PASS_PRESSED = {"rack": 10_000, "steps": [{"act": "bet", "bet": "pass", "amount": 500},
                                          {"act": "bet", "bet": "pass", "amount": 500}]}


def _config(**house: object) -> dict:
    return dict(PLAIN, house_rules=house)


def test_a_play_reads_only_the_rules_that_decide_in_it() -> None:
    """Worked by hand: a don't pass bet barred on a come-out 12 is the bar push (bar_push alone);
    a pass bet won on an 11 meets no rule; a second pass bet before the come-out is a press
    (press_unset); a come bet that travelled to 8 meets the next come-out roll (come odds, shown as
    working or off in the table even with none)."""
    config = parse_round_config(_config())
    assert rules_read(config, DONT_PASS_BARRED)[1] == {"bar_push"}
    assert rules_read(config, PASS_WON)[1] == frozenset()
    assert rules_read(config, PASS_PRESSED)[1] == {"press_unset"}
    travelled = {"rack": 10_000, "steps": [{"act": "roll", "dice": [3, 3]}, {"act": "bet", "bet": "come", "amount": 500},
                                           {"act": "roll", "dice": [4, 4]}, {"act": "roll", "dice": [3, 3]}]}
    assert rules_read(config, travelled)[1] == {"come_odds_come_out"}
    assert rules_read(config, PASS_WON)[0] == play(config, PASS_WON)


def test_a_rule_a_play_never_read_changes_nothing_in_it() -> None:
    """Every round of the depth groups (each rule at each other value, and every rule at its other
    value at once, on both commission tables: 812 + 116 rounds) and the named scripts under the defaults and every rule at its other value: the play is the same, every record, with any rule it did not read set to its
    other value; and each rule is read, and changes the play, in some of them (so the read sets
    are not empty by mistake)."""
    changed_when_read = {name: 0 for name in HOUSE_RULES}
    rounds = 0
    scripts = [(dict(PLAIN, house_rules=house), [case for _, _, case in round_cases.named_scripts(
        parse_round_config(dict(PLAIN, house_rules=house)))]) for house in (round_cases.default_house_rules(),
                                                                           round_cases.other_house_values(opt_in=True))]
    for table, cases in [(g.config, [v.case for v in g.vectors]) for g in round_cases.depth_groups(PLAIN)] + scripts:
        config = parse_round_config(table)
        for case in cases:
            rounds += 1
            try:
                answer, read = rules_read(config, case)
            except CaseError:
                continue
            for name, (values, _, _) in HOUSE_RULES.items():
                other = next(v for v in values if v != config.house[name])
                flipped = parse_round_config(dict(table, house_rules=dict(config.house, **{name: other})))
                if name not in read:
                    assert play(flipped, case) == answer, (name, case)
                else:
                    changed_when_read[name] += play(flipped, case) != answer
    assert rounds == 812 + 116 + 2 * 14
    assert all(changed_when_read.values()), changed_when_read


def test_the_table_sent_takes_the_values_a_named_rule_offers() -> None:
    real = Capabilities.from_declaration(REAL)

    def offers(name: str, value: object) -> bool | None:
        return real.offers(house_rule_feature(name, value)) if name in real.restricted_rules else None

    sent, changed = sent_table(_config(bar_push="stays", working_call="bet"), offers) or ({}, frozenset())
    assert changed == {"bar_push", "press_unset"}
    assert sent["house_rules"] == {"bar_push": "returned", "working_call": "bet", "press_unset": True}
    assert sent_table(_config(bar_push="returned", press_unset=True), offers) is None        # nothing to change
    refusing = Capabilities.from_declaration({"craps": {"house_rules": {"press_unset": [False]}}})
    sent, changed = sent_table(_config(press_unset=True), lambda n, v: refusing.offers(house_rule_feature(n, v))
                               if n in refusing.restricted_rules else None) or ({}, frozenset())
    assert (sent["house_rules"], changed) == ({}, {"press_unset"})    # the opt-in rule at its default: not named
    assert sent_table(_config(), lambda n, v: None) is None            # a rule not named is never changed
    assert sent_table(_config(), lambda n, v: False if n == "bar_push" else None) is None   # nothing offered


def _batch(config: dict, *cases: dict) -> Batch:
    round_config = parse_round_config(config)
    return Batch("craps.round.x", "craps.round", 1, config, list(range(1, len(cases) + 1)), list(cases),
                 [{"result": play(round_config, c)} for c in cases], [[] for _ in cases], [[] for _ in cases])


def test_a_round_that_reads_no_rule_changed_is_judged_on_the_table_sent() -> None:
    batch = _batch(_config(), DONT_PASS_BARRED, PASS_WON, PASS_PRESSED)
    mark_batch(batch, Capabilities.from_declaration(REAL))
    assert batch.config["house_rules"] == {"bar_push": "returned", "press_unset": True}
    assert batch.outside == {1: "house_rule:bar_push=stays", 3: "house_rule:bar_push=stays"}   # the first not offered
    assert batch.features is not None
    assert {"house_rule:bar_push=returned", "house_rule:press_unset=true"} <= set(batch.features[2])
    assert "house_rule:bar_push=stays" in batch.features[1]
    # an expected answer that is not the oracle's play (a suite edited): never judged elsewhere
    edited = _batch(_config(), PASS_WON)
    edited.expected = [{"result": {"steps": []}}]
    mark_batch(edited, Capabilities.from_declaration(REAL))
    assert edited.outside == {1: "house_rule:bar_push=stays"} and "press_unset" not in edited.config["house_rules"]


def test_a_vendor_that_names_no_rule_is_judged_as_before() -> None:
    """Every vendor of 1.0 and 1.1 that declared no house rule: a press_unset true table stays
    outside, never sent at false; a table feature not offered comes first."""
    batch = _batch(_config(press_unset=True), PASS_WON)
    mark_batch(batch, Capabilities.from_declaration({"craps": {"bar": [12]}}))
    assert batch.outside == {1: "house_rule:press_unset=true"} and batch.config["house_rules"] == {"press_unset": True}
    charged = _batch(dict(load_profile("odds-3-4-5x-commission-10x").craps, house_rules={}), PASS_WON)
    mark_batch(charged, Capabilities.from_declaration({"craps": {"commission": False, **REAL["craps"]}}))
    assert charged.outside == {1: "commission"} and charged.config["house_rules"] == {}


def test_the_depth_counts_a_round_for_the_values_it_uses_or_never_reads() -> None:
    depth = HouseDepth()
    stays = parse_round_config(_config())
    depth.add(stays, frozenset({"bar_push"}))        # a bar push under stays
    depth.add(stays, frozenset())                    # a round no rule decides
    counts = depth.manifest_field()
    assert counts["bar_push=stays"] == {"rounds": 2, "noCommission": 2}
    assert counts["bar_push=returned"] == {"rounds": 1, "noCommission": 1}
    assert counts["bar_push=returned+press_unset=true"] == {"rounds": 1, "noCommission": 1}
    assert counts["press_unset=false"] == counts["press_unset=true"] == {"rounds": 2, "noCommission": 2}
    assert len(counts) == 14 + 21              # every value, every pair of two rules' other values
    assert list(islice(counts, 1)) == [setting_name((("come_odds_come_out", "off"),))]


def test_the_docs_table_is_the_golden_manifests_house_rule_depth() -> None:
    """docs/labs/rounds.md's table of rounds per house-rule value and pair of values is the
    ``houseRuleDepth`` of the golden ``rounds`` manifest (the one `vectors generate` writes:
    tests/test_suite_folders.py anchors a generated folder to it), row for row."""
    manifest = json.loads((REPO / "vectors" / "golden" / "rounds.manifest.json").read_text())
    rows = re.findall(r"^\| `([a-z_]+=[a-z]+(?:\+[a-z_]+=[a-z]+)?)` \| ([\d,]+) \| ([\d,]+) \|$",
                      (REPO / "docs" / "labs" / "rounds.md").read_text(), re.MULTILINE)
    documented = {key: {"rounds": int(n.replace(",", "")), "noCommission": int(m.replace(",", ""))}
                  for key, n, m in rows}
    assert len(rows) == len(documented)
    assert documented == manifest["houseRuleDepth"]
    assert list(documented) == [setting_name(s) for s in settings()]


class ReturnedStakeTwiceVendor(round_vendor(StakeTwice, __name__)):      # type: ignore[misc]
    """A table like crapssim's (no commission, bar 12, payouts exact, a bar push handed back) that
    pays a won stake twice: failing on rounds it is sent with ``bar_push`` returned that the suite
    holds under ``stays``."""

    def hello(self) -> dict:
        hello = super().hello()
        return dict(hello, capabilities={"craps": {"commission": False, "bar": [12], "payout_rounding": ["exact"],
                                                   "house_rules": {"bar_push": ["returned"]}}})


def test_a_vendor_failing_rounds_sent_on_its_table_is_judged_and_reported(tmp_path: Path) -> None:
    """Through the runner and the outputs (the cause analysis counts the suite's tables, the failures
    the tables sent: a failure judged on the table sent must not break it)."""
    suite = tmp_path / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    groups = [g for g in islice(round_cases.crossed_groups(profile.craps, 1), 9)     # the first table's settings
              if g.config["house_rules"].get("bar_push") != "returned"]          # none that it offers
    assert {g.config["bar"] for g in groups} == {12} and all(g.config["commission_rate"] == "0" for g in groups)
    for g in groups:
        g.vectors = list(g.vectors)
    written = write_vector_set(suite, "rounds", "craps.round", DEFAULT_PROFILE, profile.sha256, groups)
    (suite / "manifest.json").write_bytes(manifest_bytes(build_manifest(
        "rounds", DEFAULT_PROFILE, profile.sha256, ("prompt", "expected"), suite, written)))
    out = tmp_path / "run"
    adapter = PythonAdapter()
    result = Runner(lambda: adapter.open(f"{__name__}:ReturnedStakeTwiceVendor", SessionOptions(timeout=120)),
                    suite, out, batch_size=50).run()
    shutil.copytree(suite, out / "suite")           # where certify keeps the suite it judged (the causes read it)
    summary = write_outputs(out)
    assert result.verdict == "fail" and summary["scope"]["round_play"]["rounds"] > 0
    db = sqlite3.connect(out / "run.db")
    sent = [json.loads(c)["house_rules"].get("bar_push") for (c,) in db.execute("SELECT config FROM failures")]
    assert sent and set(sent) == {"returned"}
