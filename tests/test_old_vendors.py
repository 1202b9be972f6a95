"""A vendor on an old release keeps working, one of a later release too, as CHANGELOG.md (1.0.0)
and the contract ("Versions", "Fields of a later contract") say: a vendor written against
``tablecert-vendor/1`` as 0.1.0 published it is certified ``scoped_pass`` on ``edge`` and is sent
only what v1 names; unknown fields outside a result are ignored (PASS); inside a result they fail
the vector, the cause naming the field. The vendors: tests/release_vendors.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from waits import HANG

VENDORS = Path(__file__).with_name("release_vendors.py")
V2_CASE_FIELDS = {"odds_working"}     # the one request field v2 added (oracle/protocol.py V2_CASE_KEYS, contract)


def certify(edge: Path, out: Path, vendor: str, *extra: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd",
                           f"{sys.executable} {VENDORS} {vendor}", "--suite", "edge", "--suite-dir", str(edge),
                           "--out", str(out), "--quiet", *extra], capture_output=True, text=True, timeout=HANG)
    assert done.returncode in (0, 1), done.stderr
    summary: dict = json.loads((out / "summary.json").read_text())
    return summary


def test_a_vendor_of_tablecert_vendor_1_as_0_1_0_wrote_it_is_certified_for_what_v1_carries(edge: Path,
                                                                                          tmp_path: Path) -> None:
    seen_file = tmp_path / "seen.json"
    # not confined: the vendor writes what it was sent to a file of the test (a confined one could not)
    summary = certify(edge, tmp_path / "v1", f"v1 {seen_file}", "--isolation", "none")
    assert (summary["verdict"], summary["protocol"], summary["totals"]["fail"], summary["fault_totals"]["count"]) == (
        "scoped_pass", "tablecert-vendor/1", 0, 0)
    assert "protocol" not in summary["vendor_hello"]
    left_out = summary["not_sent_for_protocol"]["needs tablecert-vendor/2"]["unsupported"]
    assert left_out == summary["totals"]["unsupported"] > 0 and summary["totals"]["pass"] + left_out == 6863
    seen = set(json.loads(seen_file.read_text()))
    assert {key.split(":")[1] for key in seen if key.startswith("craps.settle.case:")} & V2_CASE_FIELDS == set()
    assert "craps.settle.case:bet" in seen and "craps.settle:cases" in seen
    assert {key for key in seen if key.startswith("craps.round")} == set()       # an op v1 does not have


def test_unknown_fields_outside_the_results_are_ignored(edge: Path, tmp_path: Path) -> None:
    summary = certify(edge, tmp_path / "future", "future")
    assert (summary["verdict"], summary["protocol"], summary["totals"]) == (
        "pass", "tablecert-vendor/2", {"pass": 6863, "fail": 0, "unsupported": 0, "fault": 0})
    assert summary["vendor_hello"]["x_future"] == {"note": "a field of a later release"}      # kept as sent


def test_an_unknown_field_inside_a_result_fails_the_vector_and_is_named(edge: Path, tmp_path: Path) -> None:
    summary = certify(edge, tmp_path / "in-results", "future in-results")
    assert summary["verdict"] == "fail" and summary["fault_totals"]["count"] == 0
    # every vector answered with a result (not a rejection) fails; expected rejections still pass
    assert summary["totals"]["fail"] > 0 and summary["totals"]["fail"] + summary["totals"]["pass"] == 6863
    findings = (tmp_path / "in-results" / "junit.xml").read_text()
    assert "x_future" in findings
