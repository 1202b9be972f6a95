"""A run against vendors that fault: retries, restarts, bisection to the case that kills the
vendor, giving up on an op that never answers, and the same results after an interruption.

The vendors are real processes (``poison_vendor.py``: the reference vendor, except that a request
holding a poisoned case kills, hangs or garbles it) or Python plugins defined here."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from test_runner import CrashesOnSettle, run

from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.instance.recovery import FaultPolicy, bisect_budget
from tablecert.harness.run.runner import Runner
from tablecert.harness.run.hand_batches import hand_suite_batches
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.vendor import ReferenceVendor
from tablecert.vectors.suites import generate
from waits import HANG

POISON_VENDOR = Path(__file__).with_name("poison_vendor.py")
BATCH = 100


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def poisoned(suite: Path, op: str, index: int) -> tuple[Any, list[tuple[str, int]]]:
    """The ``index``-th case of ``op`` in the suite, and every (file, tcId) of ``op`` holding
    that same case (a poisoned request is any request holding it)."""
    cases = [(b.file, tc, case) for b in iter_batches(suite, 10_000) if b.op == op for tc, case in zip(b.tc_ids, b.cases)]
    case = cases[index][2]
    return case, [(f, tc) for f, tc, c in cases if canonical(c) == canonical(case)]


def poison_cmd(tmp: Path, mode: str, cases: list[Any] = (), ops: list[str] = (), base: str = "reference") -> str:
    spec = tmp / f"poison-{mode}.json"
    spec.write_text(json.dumps({"cases": list(cases), "ops": list(ops)}))
    return shlex.join([sys.executable, str(POISON_VENDOR), str(spec), mode, base])


def certify_cli(suite: Path, out: Path, cmd: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", cmd, "--suite", "edge",
                           "--suite-dir", str(suite), "--out", str(out), "--batch-size", str(BATCH), "--quiet", *extra],
                          capture_output=True, text=True, timeout=HANG)


def fault_rows(out: Path) -> list[tuple]:
    return sqlite3.connect(out / "run.db").execute(
        "SELECT file, op, first_tc, n, attempt, kind, detail FROM faults ORDER BY rowid").fetchall()


@pytest.mark.parametrize("mode, kind, detail", [("segv", "crash", "killed by signal SIGSEGV"),
                                                ("cut", "crash", "into an answer line"),
                                                ("garbage", "malformed", "not JSON")])
def test_bisection_finds_the_case_that_kills_the_vendor(edge: Path, tmp_path: Path, vendor_files: Path, mode: str, kind: str,
                                                         detail: str) -> None:
    case, hit = poisoned(edge, "craps.settle", 333)
    out = tmp_path / "run"
    done = certify_cli(edge, out, poison_cmd(vendor_files, mode, [case]), "--retries", "1")
    assert done.returncode == 1, done.stderr               # a fault withholds certification
    assert "verdict: FAIL" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    total = json.loads((edge / "manifest.json").read_text())["numberOfTests"]
    # every vector but the poisoned ones answered (this vendor is otherwise the reference: all pass)
    assert summary["totals"] == {"pass": total - len(hit), "fail": 0, "unsupported": 0, "fault": len(hit)}
    rows = fault_rows(out)
    alone = [(f, tc) for f, op, tc, n, _, k, d in rows if n == 1 and k == kind and detail in d]
    assert sorted(set(alone)) == sorted(hit)
    for f, tc in hit:                          # each poisoned case tried alone 1 + retries times
        assert alone.count((f, tc)) == 2
    assert sorted((p["file"], p["tc_id"]) for p in summary["poisoned"]) == sorted(hit)
    assert {p["kind"] for p in summary["poisoned"]} == {kind}
    # each poisoned case has a replay file that faults the vendor again, and the findings name it
    file, tc = hit[0]
    replay = out / "failures" / f"poisoned.{file.removesuffix('.jsonl.gz')}.craps.settle.tc{tc}.jsonl"
    assert json.loads(replay.read_text().splitlines()[1])["cases"] == [case]
    again = subprocess.run(shlex.split(poison_cmd(vendor_files, mode, [case])), stdin=replay.open(), capture_output=True,
                           timeout=HANG)
    assert again.returncode != 0 or b"Segmentation" in again.stdout
    findings = "".join(page.extract_text() for page in PdfReader(out / "findings.pdf").pages)
    assert f"tcId {tc}" in findings and "faulted the vendor on" in findings
    holding = {b.key for b in iter_batches(edge, BATCH) if any((b.file, tc) in hit for tc in b.tc_ids)}
    assert summary["batches"].get("partial") == len(holding) and "fault" not in summary["batches"]
    whole_tries = Counter((f, op, tc) for f, op, tc, n, *_ in rows if n == BATCH)
    assert set(whole_tries) == holding and set(whole_tries.values()) == {2}   # 1 + retries, whole
    assert len(rows) <= len(holding) * (2 + bisect_budget(BATCH))


HANG_TIMEOUT = "3"
"""--timeout of the tests whose vendor hangs: a healthy answer to a batch comes in milliseconds,
so only the hung requests reach it, even on a saturated machine (each vendor start, greeted under
the same timeout, takes well under a second)."""


def test_a_case_that_hangs_the_vendor_costs_its_batch_not_a_bisection(edge: Path, tmp_path: Path,
                                                                      vendor_files: Path) -> None:
    """Every attempt at a hang costs the whole --timeout: the batch holding it is not split."""
    case, hit = poisoned(edge, "craps.place_odds", 10)
    out = tmp_path / "run"
    done = certify_cli(edge, out, poison_cmd(vendor_files, "hang", [case]), "--timeout", HANG_TIMEOUT,
                       "--retries", "0", "--batch-size", "8")
    assert done.returncode == 1, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    rows = fault_rows(out)
    hung = [(f, tc, n) for f, _, tc, n, _, k, _ in rows if k == "timeout"]
    holding = {(b.file, b.tc_ids[0], len(b.cases)) for b in iter_batches(edge, 8)
               if any((b.file, tc) in hit for tc in b.tc_ids)}
    assert len(hit) == 2 and sorted(hung) == sorted(holding)          # one attempt per batch, each whole
    assert summary["totals"]["fault"] == sum(n for *_, n in holding) > len(hit)
    assert summary["totals"]["fail"] == 0 and not summary["poisoned"]


def test_an_op_that_hangs_is_given_up_after_three_timeouts(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    """A vendor that hangs on every request of one op costs the run three timeouts (the first
    batch and its two retries), not a bisection of each batch; the rest of the op is recorded not
    answered, and page 1 of both reports says why the run is not certified."""
    out = tmp_path / "run"
    done = certify_cli(edge, out, poison_cmd(vendor_files, "hang", ops=["paigow.settle"]), "--timeout", HANG_TIMEOUT)
    assert done.returncode == 1, done.stderr
    rows = fault_rows(out)
    batches = [(b.file, b.tc_ids[0], len(b.cases)) for b in iter_batches(edge, BATCH) if b.op == "paigow.settle"]
    assert len(batches) > 1
    assert [(f, tc, n, attempt) for f, _, tc, n, attempt, k, _ in rows if k == "timeout"] == \
        [(*batches[0], attempt) for attempt in (1, 2, 3)]
    assert [(f, tc, n) for f, _, tc, n, _, k, _ in rows if k == "not_sent"] == batches[1:]
    assert {k for *_, k, _ in rows} == {"timeout", "not_sent"}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["by_op"]["paigow.settle"]) == {"fault"}
    assert summary["by_op"]["paigow.settle"]["fault"] == sum(n for *_, n in batches)
    assert all(set(v) == {"pass"} for op, v in summary["by_op"].items() if op != "paigow.settle")
    reason = "paigow.settle was given up (paigow.settle timed out 3 times)"
    assert summary["verdict"] == "fail" and any(r.startswith(reason) for r in summary["verdict_reasons"])
    certificate, findings = (" ".join(PdfReader(out / pdf).pages[0].extract_text().split())
                             for pdf in ("certificate.pdf", "findings.pdf"))
    assert "NOT CERTIFIED" in certificate and reason in certificate
    assert "NOT CERTIFIED" in findings and "not sent: paigow.settle timed out 3 times" in findings   # its faults


def test_without_bisection_the_whole_batch_is_lost(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    case, hit = poisoned(edge, "craps.settle", 333)
    out = tmp_path / "run"
    done = certify_cli(edge, out, poison_cmd(vendor_files, "segv", [case]), "--no-bisect", "--retries", "0")
    assert done.returncode == 1
    summary = json.loads((out / "summary.json").read_text())
    rows = fault_rows(out)
    assert all(n > 1 and attempt == 1 for _, _, _, n, attempt, _, _ in rows)
    assert summary["totals"]["fault"] == sum(n for _, _, _, n, *_ in rows) > len(hit)
    assert summary["batches"]["fault"] == len(rows)


def test_an_op_that_never_answers_is_given_up_after_three_batches(edge: Path, tmp_path: Path) -> None:
    result = run(CrashesOnSettle, edge, tmp_path, batch_size=10)
    assert result.verdict == "fail"
    summary = write_outputs(tmp_path)
    settle = [r for r in fault_rows(tmp_path) if r[1] == "paigow.settle"]
    batches = [(b.tc_ids[0], len(b.cases)) for b in iter_batches(edge, 10) if b.op == "paigow.settle"]
    assert len(batches) > 3, "the suite has too few paigow.settle batches for this test"
    for first, n in batches[:3]:                     # tried whole 1 + 2 times, then (if n > 1) bisected
        assert [r[4] for r in settle if (r[2], r[3]) == (first, n) and r[5] == "crash"][:3] == [1, 2, 3]
        assert len([r for r in settle if r[5] == "crash" and first <= r[2] < first + n]) <= 3 + bisect_budget(n)
    assert [(r[2], r[3]) for r in settle if r[5] == "not_sent"] == batches[3:]   # the later ones not sent
    assert all(r[4] == 0 for r in settle if r[5] == "not_sent")
    assert set(summary["by_op"]["paigow.settle"]) == {"fault"}
    assert summary["totals"]["fail"] == 0
    assert all(set(v) == {"pass"} for op, v in summary["by_op"].items() if op != "paigow.settle")


class CrashesOnce(ReferenceVendor):
    """Crashes on its first batch request only (one crash for the whole test process)."""

    crashed = False

    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("op") != "hello" and not CrashesOnce.crashed:
            CrashesOnce.crashed = True
            raise RuntimeError("transient")
        return super().handle(request)


def test_a_transient_fault_is_retried_and_nothing_is_lost(edge: Path, tmp_path: Path) -> None:
    """The retry answers every case (nothing lost), but the crash stays a finding: NOT CERTIFIED."""
    result = run(CrashesOnce, edge, tmp_path, batch_size=500)
    assert result.verdict == "fail"
    summary = write_outputs(tmp_path)
    assert summary["totals"]["fault"] == 0 and summary["totals"]["fail"] == 0 and set(summary["batches"]) == {"done"}
    assert [(f["attempt"], f["kind"], f["recovered"]) for f in summary["faults"]] == [(1, "crash", True)]


class PoisonedPlugin(ReferenceVendor):
    """Crashes on any request holding one of POISON's cases (set by the test)."""

    POISON: set[str] = set()

    def handle(self, request: Any) -> dict[str, Any]:
        cases = request.get("cases") or []
        if any(canonical(c) in PoisonedPlugin.POISON for c in cases):
            raise RuntimeError("poisoned")
        return super().handle(request)


class Interrupt(Exception):
    pass


def test_an_interrupted_run_with_faults_resumes_to_the_same_summary(edge: Path, tmp_path: Path) -> None:
    PoisonedPlugin.POISON = {canonical(poisoned(edge, op, i)[0]) for op, i in
                             (("craps.settle", 40), ("craps.place_odds", 7), ("paigow.player_bonus", 3))}
    whole = tmp_path / "whole"
    run(PoisonedPlugin, edge, whole, batch_size=50)
    expected = write_outputs(whole)
    assert expected["totals"]["fault"] >= 3 and expected["faults"]
    part = tmp_path / "part"
    for stop_at in (5, 20, 40):
        calls: list[int] = []

        def stop(done: int, total: int) -> None:
            calls.append(done)
            if len(calls) == stop_at:
                raise Interrupt()

        try:
            run(PoisonedPlugin, edge, part, batch_size=50, resume=part.exists(), progress=stop)
        except Interrupt:
            continue
    run(PoisonedPlugin, edge, part, batch_size=50, resume=True)
    got = write_outputs(part)
    for key in ("verdict", "totals", "by_op", "by_clause", "by_flag", "batches", "faults"):
        assert got[key] == expected[key], key


def test_a_poisoned_hand_in_a_hand_suite(tmp_path: Path, vendor_files: Path) -> None:
    suite = tmp_path / "joker"
    generate("joker", suite)
    batch = next(b for b in hand_suite_batches(suite, 1000) if b.op == "paigow.player_bonus" and b.tc_ids[0] == 1001)
    case = batch.cases[500]
    out = tmp_path / "run"
    cmd = poison_cmd(vendor_files, "segv", [case])
    runner = Runner(lambda: SubprocessAdapter().open(cmd, SessionOptions(timeout=60)), suite, out, batch_size=1000,
                    max_hands=3000, policy=FaultPolicy(retries=1))
    result = runner.run()
    assert result.verdict == "fail"
    assert result.totals == {"pass": 2 * 3000 - 2, "fail": 0, "unsupported": 0, "fault": 2}
    rows = fault_rows(out)
    alone = {(op, tc) for _, op, tc, n, _, k, _ in rows if n == 1}
    assert alone == {("paigow.player_bonus", 1501), ("paigow.banker_bonus", 1501)}
    poisoned = write_outputs(out)["poisoned"]
    assert sorted((p["op"], p["tc_id"]) for p in poisoned) == sorted(alone)
    assert all(k == "crash" for *_, k, _ in rows)
