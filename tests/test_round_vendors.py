"""Rounds (``craps.round``) through the harness: the ``rounds`` suite matches its golden manifest,
the reference vendor passes every round, each faulty round vendor (tests/round_faulty_vendors.py)
is NOT CERTIFIED by it and by ``standard``'s round part, and a vendor that does not declare the
op gets its vectors as unsupported."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from round_edge_vendors import ROUND_EDGE_VENDORS
from round_faulty_vendors import ROUND_FAULTY_VENDORS, RoundVendor
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.adapters import VendorTarget
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.store import RunStore
from tablecert.harness.run.runner import Runner
from tablecert.oracle.craps_round import OPT_IN_RULES, parse_round_config, play
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.reports import render_report
from tablecert.vectors import round_cases
from tablecert.vectors.checks import load_manifest
from tablecert.vectors.suites import build_manifest, generate, manifest_bytes
from tablecert.vectors.writer import write_vector_set


def run(spec: str, suite: Path, out: Path, **kw):
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=120)), suite, out, batch_size=1000, **kw).run()


def test_each_named_script_catches_its_faulty_vendor() -> None:
    groups = list(round_cases.round_groups(load_profile(DEFAULT_PROFILE).craps))
    named = next(g for g in groups if g.comment.startswith("named"))
    config = parse_round_config(named.config)
    vectors = list(named.vectors)
    assert len(vectors) == len({f for _, _, f in ROUND_FAULTY_VENDORS}) == 14
    for cls, fault, flag in ROUND_FAULTY_VENDORS:
        own = [v for v in vectors if flag in v.flags and play(config, v.case) != play(config, v.case, cls.table)]
        assert own, f"{cls.__name__} ({fault}) escapes the named script of {flag}"


def test_rounds_matches_its_golden_manifest(rounds_suite: Path) -> None:
    golden = json.loads(resources.files("tablecert.vectors").joinpath("golden", "rounds.manifest.json").read_text())
    assert load_manifest(rounds_suite) == golden


@pytest.mark.slow
def test_each_faulty_vendor_fails_rounds(rounds_suite: Path, tmp_path: Path) -> None:
    """(The reference vendor passing every round of ``rounds`` is certified from the suite's folder,
    through the command, in test_suite_folders.)"""
    assert escaping(rounds_suite, tmp_path) == []


EDGE_ROUND_VENDORS = [(cls, fault, flag) for cls, fault, flag in ROUND_EDGE_VENDORS if issubclass(cls, RoundVendor)]
"""The faulty vendors at the edges of a change of a bet (issue 38) that play rounds."""


def escaping(suite: Path, tmp_path: Path) -> list[str]:
    """The round faulty vendors, issue 24's and issue 38's edges', that ``suite`` does not fail
    (each stopped at its first failure)."""
    escaped = []
    for cls, fault, _ in ROUND_FAULTY_VENDORS + EDGE_ROUND_VENDORS:
        result = run(f"{cls.__module__}:{cls.__name__}", suite, tmp_path / cls.__name__, stop_after_failures=1)
        if result.verdict != "fail":
            escaped.append(f"{cls.__name__} ({fault}): {result.verdict}")
    return escaped


@pytest.fixture(scope="module")
def standard_rounds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``standard``'s round part alone: the ``standard`` suite generated with its craps.round
    vector sets only (the same files, byte for byte, as in the whole suite)."""
    folder = tmp_path_factory.mktemp("standard-rounds")
    generate("standard", folder, ops=("craps.round",))
    return folder


def test_standards_round_part_is_the_golden_standards(standard_rounds: Path) -> None:
    golden = json.loads(resources.files("tablecert.vectors").joinpath("golden", "standard.manifest.json").read_text())
    rounds = [f for f in golden["files"] if f["op"] == "craps.round"]
    assert rounds and load_manifest(standard_rounds)["files"] == rounds


def test_each_faulty_vendor_is_not_certified_by_standards_round_part(standard_rounds: Path, tmp_path: Path) -> None:
    """Issue 24: every round faulty vendor fails ``standard`` (its round part; the rest of the
    suite answers as the reference), and the reference vendor passes every round of it."""
    tests = load_manifest(standard_rounds)["numberOfTests"]
    result = run("reference", standard_rounds, tmp_path / "reference")
    assert result.verdict == "pass" and result.totals["pass"] == tests > 3000
    assert escaping(standard_rounds, tmp_path) == []


def test_the_demo_vendor_plays_rounds_right(standard_rounds: Path, tmp_path: Path) -> None:
    """The demo vendor's three bugs (harness/vendors/demo_vendor.py) are outside round play (its rounds are
    the reference's, commission included), so on standard its findings stay three bugs, three
    causes (tests/test_causes.py, README)."""
    result = run("tablecert.harness.vendors.demo_vendor:DemoVendor", standard_rounds, tmp_path / "demo")
    assert result.verdict == "pass" and result.totals["pass"] == load_manifest(standard_rounds)["numberOfTests"]


def published_house_rules() -> dict[str, dict]:
    """The house-rule table of the contract (harness/vendor-protocol.md, *Craps rounds*): rule ->
    its values (default first), its default and its register entry."""
    doc = (Path(__file__).parents[1] / "harness" / "vendor-protocol.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (?:\*since [\d.]+:\* )?`(\w+)` \| (`[^|]*`) \| [^|]* \| (INT-[A-Z-]+) \|$", doc, re.M)
    table = {}
    for name, values, entry in rows:
        parsed = [json.loads(v) for v in re.findall(r"`([^`]*)`", values)]
        table[name] = {"values": parsed, "default": parsed[0], "register": entry}
    assert len(table) == 7, table
    return table


def certified_run(spec: str, suite: Path, out: Path) -> Path:
    """``spec`` on ``suite`` copied into the run folder (as certify does), with its summary and certificate."""
    shutil.copytree(suite, out / "suite")
    run(spec, out / "suite", out)
    write_outputs(out)
    render_report(out, "certificate", out / "certificate.pdf")
    return out


def page_one(pdf: Path) -> str:
    done = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True)
    return " ".join(done.stdout.split())


def test_the_certificate_names_round_play_and_the_house_rules_certified(standard_rounds: Path, tmp_path: Path) -> None:
    """Issue 24 item 6: when craps.round is in a run's scope, page 1 of the certificate and
    summary.json say that round play was certified, how many rounds, and every house-rule setting
    the judged rounds' tables used (standard's part plays each rule at both values, the opt-in
    ``press_unset``, since 1.1, at its default only: its other value is in ``rounds``)."""
    tests = load_manifest(standard_rounds)["numberOfTests"]
    out = certified_run("reference", standard_rounds, tmp_path / "reference")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "pass"
    play = summary["scope"]["round_play"]
    certified_all = {name: {**rule, "values": rule["values"] if name not in OPT_IN_RULES else [rule["default"]],
                            "not_certified": []} for name, rule in published_house_rules().items()}
    assert play == {"rounds": tests, "passed": tests, "house_rules": certified_all}    # every setting, none left out
    text = page_one(out / "certificate.pdf")
    assert "Round play certified" in text and f"{tests:,} rounds" in text
    for name, rule in published_house_rules().items():       # e.g. "bar_push stays (default), returned [INT-BAR-PUSH]"
        first, other = (json.dumps(v) if isinstance(v, bool) else v for v in rule["values"])
        played = f"{first} (default)" if name in OPT_IN_RULES else f"{first} (default), {other}"
        assert f"{name} {played} [{rule['register']}]" in text

    out = certified_run("round_faulty_vendors:BarPushLostVendor", standard_rounds, tmp_path / "faulty")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "fail" and summary["scope"]["round_play"]["passed"] < tests
    text = page_one(out / "certificate.pdf")
    assert "NOT CERTIFIED" in text and "Round play tested (not certified" in text

    out = certified_run("test_round_vendors:OldVendor", standard_rounds, tmp_path / "old")
    assert json.loads((out / "summary.json").read_text())["scope"]["round_play"] is None
    assert "Round play" not in page_one(out / "certificate.pdf")


def test_a_v1_vendor_is_certified_on_standard_for_what_v1_carries(tmp_path: Path) -> None:
    """A tablecert-vendor/1 session never receives craps.round: on a suite holding other ops too
    (standard) the rounds are not required of it by default (scoped pass, exit 0, rounds named
    not tested, as before standard held rounds); required by name, they fail it."""
    suite = tmp_path / "suite"
    generate("standard", suite, ops=("craps.round", "craps.odds_limits"))
    v1 = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor", "--protocol", "1"])

    def verdict(require: str | None) -> tuple[str, list[str]]:
        out = tmp_path / f"run-{require}"
        target = VendorTarget("subprocess", v1, SessionOptions(timeout=120))
        result = Runner(target.opener(), suite, out, batch_size=1000, require=require).run()
        db = RunStore(out / "run.db")
        try:
            return result.verdict, db.meta()["scope"]["untested"]
        finally:
            db.close()

    assert verdict(None) == ("scoped_pass", ["craps.round"])
    assert verdict("craps.round,craps.odds_limits")[0] == "scoped_pass"     # every op of the suite: the default
    assert verdict("craps.round")[0] == "fail"


class OldVendor(ReferenceVendor):
    """A vendor of this contract before ``craps.round``: it does not declare the op."""

    def hello(self):
        hello = super().hello()
        return dict(hello, ops=[op for op in hello["ops"] if op != "craps.round"])


@pytest.fixture
def named_suite(tmp_path: Path) -> Path:
    """A suite folder of the rounds suite's named scripts and malformed cases only."""
    suite = tmp_path / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    groups = [g for g in round_cases.round_groups(profile.craps) if g.comment.startswith(("named", "malformed"))]
    written = write_vector_set(suite, "rounds", "craps.round", DEFAULT_PROFILE, profile.sha256, groups)
    manifest = build_manifest("rounds", DEFAULT_PROFILE, profile.sha256, ("prompt", "expected"), suite, written)
    (suite / "manifest.json").write_bytes(manifest_bytes(manifest))
    return suite


def test_a_vendor_without_the_op_gets_rounds_unsupported(named_suite: Path, tmp_path: Path) -> None:
    tests = load_manifest(named_suite)["numberOfTests"]
    result = run("test_round_vendors:OldVendor", named_suite, tmp_path / "old")
    assert result.totals["unsupported"] == tests and result.totals["fail"] == 0
    assert result.verdict != "pass"
    result = run("reference", named_suite, tmp_path / "new")
    assert result.verdict == "pass" and result.totals["pass"] == tests


def test_an_old_v2_vendor_is_certified_on_standard_for_what_it_declares(tmp_path: Path) -> None:
    """A tablecert-vendor/2 vendor built before craps.round (it does not declare the op) keeps its
    certificate on a suite holding other ops too (standard): under the default requirement an op
    added in this release is required only of a vendor that declares it (scoped pass, exit 0,
    rounds named not tested); required by name, rounds fail it."""
    suite = tmp_path / "suite"
    generate("standard", suite, ops=("craps.round", "craps.odds_limits"))
    result = run("test_round_vendors:OldVendor", suite, tmp_path / "old")
    assert result.verdict == "scoped_pass" and result.totals["fail"] == 0
    assert run("test_round_vendors:OldVendor", suite, tmp_path / "req", require="craps.round").verdict == "fail"
    declared = run("round_faulty_vendors:BarPushLostVendor", suite, tmp_path / "faulty")
    assert declared.verdict == "fail"             # a vendor that declares the op must play every round right


def test_a_failing_round_says_where_it_departs(named_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("round_faulty_vendors:BarPushLostVendor", named_suite, out).verdict == "fail"
    write_outputs(out)
    db = RunStore(out / "run.db")
    try:
        comments = [rec.comment for rec in db.failures()]
    finally:
        db.close()
    assert comments and all("| first divergent step " in c for c in comments)
    assert any('events.dont_pass.outcome: "push" -> "lose"' in c for c in comments)
    shortest = sorted((out / "failures").glob("*.shortest.jsonl"))
    assert shortest
    case = json.loads(shortest[0].read_text().splitlines()[1])["cases"][0]
    assert case["steps"][-1] == {"act": "roll", "dice": [6, 6]}      # cut after the first bar push


def test_the_contracts_worked_example_is_the_oracles_answer() -> None:
    doc = (Path(__file__).parents[1] / "harness" / "vendor-protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Craps rounds"):doc.index("## Imperial pai gow bonus")]
    request, answer = (json.loads(block) for block in re.findall(r"```\n(.*?)\n```", section, re.S)[:2])
    vendor = ReferenceVendor()
    vendor.handle({"id": 0, "op": "hello", "protocol": "tablecert-vendor/2"})
    assert vendor.handle(request) == answer
