"""Rounds (``craps.round``) through the harness: the ``rounds`` suite matches its golden manifest,
the reference vendor passes every round, each faulty round vendor (tests/round_faulty_vendors.py)
is NOT CERTIFIED by it, and a vendor that does not declare the op gets its vectors as
unsupported."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from round_faulty_vendors import ROUND_FAULTY_VENDORS
from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.outputs import write_outputs
from tablecert.harness.results import RunDatabase
from tablecert.harness.runner import Runner
from tablecert.oracle.craps_round import parse_round_config, play
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.vectors import round_cases
from tablecert.vectors.checks import load_manifest
from tablecert.vectors.suites import build_manifest, manifest_bytes
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
def test_reference_passes_every_round_and_each_faulty_vendor_fails(rounds_suite: Path, tmp_path: Path) -> None:
    result = run("reference", rounds_suite, tmp_path / "reference")
    assert result.verdict == "pass" and result.totals["fail"] == 0 and result.totals["pass"] > 60_000
    escaped = []
    for cls, fault, _ in ROUND_FAULTY_VENDORS:
        result = run(f"round_faulty_vendors:{cls.__name__}", rounds_suite, tmp_path / cls.__name__,
                     stop_after_failures=1)
        if result.verdict != "fail":
            escaped.append(f"{cls.__name__} ({fault}): {result.verdict}")
    assert escaped == []


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


def test_a_failing_round_says_where_it_departs(named_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("round_faulty_vendors:BarPushLostVendor", named_suite, out).verdict == "fail"
    write_outputs(out)
    db = RunDatabase(out / "run.db")
    try:
        comments = [rec["comment"] for rec in db.failures()]
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
