"""The runner end to end on the `edge` suite: verdicts, the run database, resumption, faults,
unsupported ops, and the run folder's outputs (summary.json, junit.xml, replayable failures)."""

from __future__ import annotations

import json
from collections import Counter
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner, RunError
from tablecert.oracle.vendor import ReferenceVendor
from waits import HANG


class CommissionRoundsUp(ReferenceVendor):
    """One fault: commissions rounded up to the next cent instead of down."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "craps.place_odds" and isinstance(request.get("config"), dict):
            request = dict(request, config=dict(request["config"], commission_rounding="up"))
        return super().handle(request)


class CrapsOnly(ReferenceVendor):
    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        return dict(hello, ops=[op for op in hello["ops"] if op.startswith("craps.")])


class CrashesOnSettle(ReferenceVendor):
    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "paigow.settle":
            raise RuntimeError("segfault in the settlement engine")
        return super().handle(request)


def run(vendor: type, suite: Path, out: Path, **kw: Any):
    """Run the suite against a vendor class through the Python adapter (found by module:attr)."""
    spec = f"{vendor.__module__}:{vendor.__qualname__}"
    adapter = PythonAdapter()
    kw.setdefault("batch_size", 200)
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=30)), suite, out, **kw).run()


def test_reference_vendor_passes_every_vector(edge, tmp_path):
    result = run(ReferenceVendor, edge, tmp_path)
    manifest = json.loads((edge / "manifest.json").read_text())
    assert result.verdict == "pass"
    assert result.totals == {"pass": manifest["numberOfTests"], "fail": 0, "unsupported": 0, "fault": 0}
    summary = write_outputs(tmp_path)
    assert summary["verdict"] == "pass" and summary["vendor"]["name"] == "tablecert reference oracle"
    assert not (tmp_path / "failures").exists()


def test_a_fault_is_caught_and_recorded_with_inputs(edge, tmp_path):
    result = run(CommissionRoundsUp, edge, tmp_path)
    assert result.verdict == "fail" and result.totals["fail"] > 0
    db = sqlite3.connect(tmp_path / "run.db")
    ops = {op for (op,) in db.execute("SELECT DISTINCT op FROM failures")}
    assert ops == {"craps.place_odds"}
    case, expected, actual = db.execute('SELECT "case", expected, actual FROM failures LIMIT 1').fetchone()
    assert json.loads(expected)["result"]["commission"] < json.loads(actual)["commission"]
    summary = write_outputs(tmp_path)
    assert summary["by_flag"]["CommissionRounding"]["fail"] > 0
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert int(junit.get("failures")) == result.totals["fail"]
    failed_cases = [tc.get("name") for tc in junit.iter("testcase") if tc.find("failure") is not None]
    assert failed_cases == ["cause 1: craps.place_odds: commission one commission unit high"]   # one cause, not a case per flag
    # every replay file is a valid conversation: the reference vendor answers it with the expected values
    replays = sorted((tmp_path / "failures").glob("*.jsonl"))
    assert replays
    answer = subprocess.run([sys.executable, "-m", "tablecert", "reference-vendor"], stdin=open(replays[0]),
                            capture_output=True, text=True, timeout=HANG)
    lines = [json.loads(l) for l in answer.stdout.splitlines()]
    assert len(lines) == 3 and len(lines[1]["results"]) == len(json.loads(replays[0].read_text().splitlines()[1])["cases"])


def test_ops_not_in_hello_are_unsupported_not_failed(edge, tmp_path):
    """Unsupported, not failed; certified only for the ops the lab accepts (--require)."""
    result = run(CrapsOnly, edge, tmp_path, require="craps")
    assert result.totals["fail"] == 0 and result.totals["unsupported"] > 0
    assert result.verdict == "scoped_pass"
    summary = write_outputs(tmp_path)
    assert set(summary["by_op"]["paigow.settle"]) == {"unsupported"}


def test_a_crashing_vendor_fails_the_run_and_keeps_other_results(edge, tmp_path):
    result = run(CrashesOnSettle, edge, tmp_path)
    assert result.verdict == "fail"
    summary = write_outputs(tmp_path)
    assert set(summary["by_op"]["paigow.settle"]) == {"fault"}
    assert summary["by_op"]["craps.settle"] == {"pass": summary["by_op"]["craps.settle"]["pass"]}
    kinds = Counter(f["kind"] for f in summary["faults"])
    assert set(kinds) == {"crash", "not_sent"} and kinds["crash"] >= 3


class Interrupt(Exception):
    pass


def test_an_interrupted_run_resumes_to_the_same_results(edge, tmp_path):
    whole = tmp_path / "whole"
    run(CommissionRoundsUp, edge, whole)
    expected = write_outputs(whole)
    part = tmp_path / "part"
    calls = []

    def stop_midway(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 7:
            raise Interrupt()

    with pytest.raises(Interrupt):
        run(CommissionRoundsUp, edge, part, progress=stop_midway)
    with pytest.raises(RunError):
        run(CommissionRoundsUp, edge, part)          # refuses to overwrite without resume
    run(CommissionRoundsUp, edge, part, resume=True)
    got = write_outputs(part)
    for key in ("verdict", "totals", "by_op", "by_clause", "by_flag", "batches"):
        assert got[key] == expected[key], key
    db_a, db_b = sqlite3.connect(whole / "run.db"), sqlite3.connect(part / "run.db")
    q = 'SELECT file, op, tc_id, "case", expected, actual FROM failures ORDER BY file, op, tc_id'
    assert db_a.execute(q).fetchall() == db_b.execute(q).fetchall()


def test_confusion_matrix_counts_every_label_vector(edge, tmp_path):
    run(ReferenceVendor, edge, tmp_path)
    db = sqlite3.connect(tmp_path / "run.db")
    rows = db.execute("SELECT expected, actual, n FROM confusion WHERE op = 'paigow.player_bonus'").fetchall()
    assert rows and all(e == a for e, a, _ in rows)
    total = db.execute("SELECT SUM(n) FROM counts WHERE dimension='op' AND key='paigow.player_bonus'").fetchone()[0]
    assert sum(n for _, _, n in rows) == total


def test_certify_cli_exit_codes(edge, tmp_path):
    def certify(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--suite", "edge", "--suite-dir", str(edge),
                               "--quiet", *args], capture_output=True, text=True, timeout=HANG)

    ok = certify("--vendor-plugin", "reference", "--out", str(tmp_path / "ref"))
    assert ok.returncode == 0, ok.stderr
    assert "verdict: PASS" in ok.stdout
    bad = certify("--vendor-plugin", "demo", "--out", str(tmp_path / "demo"))
    assert bad.returncode == 1 and "verdict: FAIL" in bad.stdout
    sub = certify("--vendor-cmd", f"{sys.executable} -m tablecert reference-vendor", "--out", str(tmp_path / "sub"))
    assert sub.returncode == 0, sub.stderr
    gone = certify("--vendor-cmd", "/nonexistent/vendor", "--out", str(tmp_path / "gone"))
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1 and "Traceback" not in gone.stderr
    both = certify("--vendor-cmd", "x", "--vendor-plugin", "demo", "--out", str(tmp_path / "both"))
    assert both.returncode == 2


def test_a_run_resumes_only_with_the_vendor_it_began_with(edge, tmp_path):
    calls = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 3:
            raise Interrupt()

    with pytest.raises(Interrupt):
        run(ReferenceVendor, edge, tmp_path, progress=stop)
    with pytest.raises(RunError, match="resumed only with the vendor it began with"):
        run(CrapsOnly, edge, tmp_path, resume=True)              # another ops list: another vendor
    assert run(ReferenceVendor, edge, tmp_path, resume=True).verdict == "pass"


class NewBuildAfterCrash(ReferenceVendor):
    """Crashes on its first batch; every restart says it is a new build."""

    starts = 0

    def __init__(self) -> None:
        NewBuildAfterCrash.starts += 1
        self.build = f"b{NewBuildAfterCrash.starts}"

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        return dict(hello, implementation={**hello["implementation"], "build": self.build})

    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") != "hello" and self.build == "b1":
            raise RuntimeError("first build crashes")
        return super().handle(request)


def test_a_vendor_that_restarts_as_another_build_is_not_trusted(edge, tmp_path):
    NewBuildAfterCrash.starts = 0
    result = run(NewBuildAfterCrash, edge, tmp_path, batch_size=1000)
    assert result.verdict == "fail" and result.totals["pass"] == 0
    kinds = Counter(f["kind"] for f in write_outputs(tmp_path)["faults"])
    assert kinds["crash"] == 1 and kinds["bad_hello"] >= 2
    assert any("the restarted vendor says it is" in f["detail"] for f in write_outputs(tmp_path)["faults"])
