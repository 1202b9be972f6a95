"""Declared capabilities (harness/answers/capabilities.py): vectors outside what a vendor declares are
unsupported, never failed, and the certificate's scope names the bets and table features it
certifies; tables or bets refused as a whole are one cause each in the findings
(reports/refusals.py); craps ops have expected -> answered matrices like the pai gow ones.

Every vendor here is a real subprocess (tests/capability_vendor.py) run by ``tablecert certify``
against the edge suite, whose craps tables include commission tables (rate 0.05) and a bar-2
table; the expected counts are read from the suite's own expected view, not from the code."""

from __future__ import annotations

import gzip
import json
import shlex
import sqlite3
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from pypdf import PdfReader

from tablecert.harness.answers.capabilities import (Capabilities, CapabilityError, check_declaration, split_require)
from waits import HANG

HERE = Path(__file__).parent
VENDOR = HERE / "capability_vendor.py"
NO_COMMISSION = {"craps": {"commission": False, "bar": [12]}}


def certify(suite: Path, out: Path, vendor_files: Path, *args: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    script = vendor_files / VENDOR.name
    script.write_text(VENDOR.read_text())
    script.chmod(0o755)
    command = [sys.executable, str(script), *args]
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", shlex.join(command),
                           "--suite", "edge", "--suite-dir", str(suite), "--out", str(out), "--quiet",
                           "--isolation", "none", *extra], capture_output=True, text=True, timeout=HANG)


def vectors_of(suite: Path) -> list[tuple[str, dict, dict, dict]]:
    """(op, config, case, expected) of every craps vector, from the expected and prompt views."""
    out = []
    for path in sorted((suite / "prompt").glob("craps.*.jsonl.gz")):
        with gzip.open(path, "rt") as p, gzip.open(suite / "expected" / path.name, "rt") as e:
            config = None
            for pl, el in zip(p, e):
                pr, ex = json.loads(pl), json.loads(el)
                if pr["type"] == "group":
                    config = pr["config"]
                elif pr["type"] == "test":
                    out.append((".".join(path.name.split(".")[:2]), config, pr["case"], ex["expected"]))
    return out


def well_formed(config: object) -> bool:
    return (isinstance(config, dict) and isinstance(config.get("commission_rate"), str)
            and config.get("bar") in (2, 12) and type(config.get("unit")) is int and config["unit"] > 0)


def page_one(pdf: Path) -> str:
    return " ".join(PdfReader(pdf).pages[0].extract_text().split())


def all_text(pdf: Path) -> str:
    """Every page (page 1 of the findings holds the causes only)."""
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages)


def test_a_vendor_without_commission_tables_gets_them_unsupported_and_a_scoped_certificate(
        edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    done = certify(edge, tmp_path / "run", vendor_files, "declare", json.dumps(NO_COMMISSION))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["verdict"] == "scoped_pass"
    assert summary["totals"]["fail"] == 0
    # Outside: the well-formed tables with a commission or bar 2 (those with a malformed field are
    # refused by every vendor, so they stay in scope), counted from the suite itself.
    vectors = vectors_of(edge)
    commission = sum(1 for _, c, _, _ in vectors if well_formed(c) and Fraction(c["commission_rate"]) != 0)
    bar2 = sum(1 for _, c, _, _ in vectors if well_formed(c) and Fraction(c["commission_rate"]) == 0 and c["bar"] == 2)
    assert commission > 0 and bar2 > 0
    assert summary["totals"]["unsupported"] == commission + bar2
    scope = summary["scope"]
    assert scope["features_not_certified"]["commission"]["reason_for"] == commission
    assert scope["features_not_certified"]["bar=2"]["reason_for"] == bar2
    assert not scope["features_not_certified"]["commission"]["declared"]
    assert "commission" not in scope["features_certified"] and "bar=12" in scope["features_certified"]
    assert {"bet:pass", "bet:dont_pass", "bet:come", "bet:dont_come"} <= set(scope["features_certified"])
    db = sqlite3.connect(tmp_path / "run" / "run.db")
    reasons = dict(db.execute("SELECT key, n FROM counts WHERE dimension = 'unsupported_feature'").fetchall())
    assert reasons == {"commission": commission, "bar=2": bar2}
    for text in (page_one(tmp_path / "run" / "certificate.pdf"), all_text(tmp_path / "run" / "findings.pdf")):
        assert "CERTIFIED FOR A DECLARED SCOPE" in text
        certified = text.split("Bets and table features certified")[1].split("Not certified")[0]
        assert "bar=12" in certified and "bet:dont_pass" in certified and "commission," not in certified
        not_certified = text.split("Not certified")[1]
        assert f"bar=2 ({bar2:,} vectors, not declared)" in not_certified
        assert f"commission ({commission:,} vectors, not declared)" in not_certified

    required = certify(edge, tmp_path / "required", vendor_files, "declare", json.dumps(NO_COMMISSION),
                       extra=("--require", "craps,feature:commission"))
    assert required.returncode == 1, required.stdout + required.stderr
    summary = json.loads((tmp_path / "required" / "summary.json").read_text())
    assert summary["verdict"] == "fail"
    assert any("required feature not declared" in r and "commission" in r for r in summary["verdict_reasons"])
    assert "commission" in page_one(tmp_path / "required" / "certificate.pdf").split("not declared by the implementation")[1]


def test_a_declared_table_refused_as_a_whole_is_one_cause_per_table(edge: Path, tmp_path: Path,
                                                                   vendor_files: Path) -> None:
    done = certify(edge, tmp_path / "run", vendor_files, "refuse-commission")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["totals"]["unsupported"] == 0           # nothing outside: it declared everything
    tables = {json.dumps(c, separators=(",", ":")) for _, c, _, _ in vectors_of(edge)
              if well_formed(c) and Fraction(c["commission_rate"]) != 0}
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "run" / "findings.pdf").pages[:3])
    assert "Refused as a whole" in text
    assert text.count("craps table") == len(tables)
    # Every failure was a refusal, so no bug class by payout flag is left.
    assert "PayoutRatio" not in text and "CommissionBase" not in text
    from tablecert.reports.data import load_report_data

    data = load_report_data(tmp_path / "run")
    assert {r.what for r in data.refusals} == tables
    assert sum(r.vectors for r in data.refusals) == summary["totals"]["fail"]
    assert data.classes == []
    db = sqlite3.connect(tmp_path / "run" / "run.db")
    expected = {json.loads(e)["error"]["code"] for (e,) in db.execute("SELECT expected FROM failures")
                if "error" in json.loads(e)}
    assert expected and all(isinstance(code, str) for code in expected)   # stored as {"error": {"code": ...}}


def test_a_declared_bet_refused_as_a_whole_is_one_cause(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    done = certify(edge, tmp_path / "run", vendor_files, "refuse-dont")
    assert done.returncode == 1, done.stdout + done.stderr
    from tablecert.reports.data import load_report_data

    data = load_report_data(tmp_path / "run")
    assert {(r.kind, r.what) for r in data.refusals} == {("bet", "dont_pass"), ("bet", "dont_come")}
    db = sqlite3.connect(tmp_path / "run" / "run.db")
    failed = dict(db.execute("""SELECT json_extract("case", '$.bet'), COUNT(*) FROM failures
                                WHERE json_extract(actual, '$.error.code') = 'invalid_bet' GROUP BY 1""").fetchall())
    assert {r.what: r.vectors for r in data.refusals} == failed
    assert data.classes == []          # every failure was the refusal of a bet


def test_craps_confusion_rows_show_a_push_answered_as_a_loss(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    done = certify(edge, tmp_path / "run", vendor_files, "push-as-lose")
    assert done.returncode == 1, done.stdout + done.stderr
    pushes = sum(1 for op, _, _, e in vectors_of(edge) if op == "craps.settle" and e.get("result", {}).get("outcome") == "push")
    assert pushes > 0
    db = sqlite3.connect(tmp_path / "run" / "run.db")
    rows = db.execute("SELECT expected, actual, n FROM confusion WHERE op = 'craps.settle' AND expected != actual").fetchall()
    assert rows == [("push", "lose", pushes)]
    assert db.execute("SELECT n FROM confusion WHERE op = 'craps.settle' AND expected = 'win' AND actual = 'win'").fetchone()
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(tmp_path / "run" / "findings.pdf").pages)
    assert f"push lose {pushes}" in text


@pytest.mark.parametrize("declaration, field", [
    ({"craps": {"bar": [7]}}, "capabilities.craps.bar"),
    ({"craps": {"comission": False}}, "capabilities.craps"),
    ({"craps": {"units": [0]}}, "capabilities.craps.units"),
    ({"paigow": {"player_banked": "no"}}, "capabilities.paigow.player_banked"),
])
def test_a_malformed_declaration_is_a_bad_hello_naming_the_field(declaration: dict, field: str) -> None:
    with pytest.raises(CapabilityError, match=field.replace(".", r"\.")):
        check_declaration({"capabilities": declaration})


def test_every_adapter_s_hello_check_refuses_a_malformed_declaration_as_bad_hello() -> None:
    from tablecert.harness.contract import FaultKind, VendorFault
    from tablecert.harness.answers.envelope import parse_hello

    hello = {"id": 0, "implementation": {"name": "n", "version": "v", "build": "b"}, "ops": ["craps.settle"]}
    assert parse_hello({**hello, "capabilities": NO_COMMISSION}, 0).raw["capabilities"] == NO_COMMISSION
    with pytest.raises(VendorFault) as err:
        parse_hello({**hello, "capabilities": {"craps": {"bets": ["field"]}}}, 0)
    assert err.value.kind is FaultKind.BAD_HELLO and "capabilities.craps.bets" in err.value.detail


def test_features_and_require_syntax() -> None:
    caps = Capabilities.from_declaration({"craps": {"bets": ["pass"], "units": [100], "odds": "whole"}})
    assert caps.offers("bet:pass") and not caps.offers("bet:dont_pass")
    assert caps.offers("unit=100") and not caps.offers("unit=25")
    assert not caps.offers("odds=fractional") and caps.offers("commission") and caps.offers("bar=2")
    assert Capabilities.from_declaration(None).offers("bet:dont_come")
    assert split_require("craps,feature:commission,bet:dont_pass") == ("craps", ["commission", "bet:dont_pass"])
    assert split_require("feature:bar=2") == (None, ["bar=2"])
    with pytest.raises(ValueError, match="feature:bar=7"):
        split_require("feature:bar=7")
