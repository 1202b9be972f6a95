"""A certificate means a clean, complete run: every vendor fault is a finding, untested scope is
named (harness/record/verdict.py).

Each fault kind is committed by a real vendor process (``fault_kinds_vendor.py``) both in a way
a retry recovers (the twentieth request of every process) and in a way it does not (a poisoned case
that bisection isolates). Either way the run is NOT CERTIFIED with exit status 1, and the kind
shows on the terminal line, in summary.json (each fault saying whether a retry recovered it), in
junit.xml as an error, and on page 1 of both PDFs (read back from the PDF text)."""

from __future__ import annotations

import gzip
import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from waits import HANG

HERE = Path(__file__).parent
FAULT_VENDOR = HERE / "fault_kinds_vendor.py"
LABEL_OPS = "paigow.player_bonus,paigow.banker_bonus"
POISONED_OP = "paigow.settle"

# vendor mode -> (fault kind recorded, words the detail must hold, extra certify options)
KINDS = {
    "exit": ("crash", "exited with status 3", ()),
    "segv": ("crash", "killed by signal SIGSEGV", ()),
    "cut": ("crash", "bytes into an answer line", ()),
    "hang": ("timeout", "within 3 s", ("--timeout", "3")),   # hello must come within it: 3 s on a saturated machine
    "garbage": ("malformed", "", ()),
    "flood": ("malformed", "longer than", ("--max-answer-mb", "1")),
    "wrong_id": ("wrong_id", "request id", ()),
    "wrong_count": ("wrong_count", "results for", ()),
    "wrong_op": ("wrong_op", "craps.teleport", ()),
    "request_error": ("request_error", "cannot take this batch", ()),
}


def poisoned_case(suite: Path) -> dict:
    with gzip.open(suite / "prompt" / f"{POISONED_OP}.odds-3-4-5x.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f if '"type":"test"' in line][5]["case"]   # in a group of 9


def certify(suite: Path, out: Path, vendor: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", shlex.join(vendor),
                           "--suite", "edge", "--suite-dir", str(suite), "--out", str(out), "--quiet", *extra],
                          capture_output=True, text=True, timeout=HANG)


def page_one(pdf: Path) -> str:
    return " ".join(PdfReader(pdf).pages[0].extract_text().split())


@pytest.mark.parametrize("mode", sorted(KINDS))
def test_each_fault_kind_recovered_or_not_withholds_certification(edge: Path, tmp_path: Path, mode: str) -> None:
    kind, words, extra = KINDS[mode]
    out = tmp_path / "run"
    done = certify(edge, out, [sys.executable, str(FAULT_VENDOR), mode, POISONED_OP,
                               json.dumps(poisoned_case(edge))], *extra)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "fail"
    assert summary["totals"]["fail"] == 0                      # every answer given was right
    faults = [f for f in summary["faults"] if f["kind"] == kind]
    recovered = [f for f in faults if f["recovered"]]
    assert recovered and len(recovered) < len(faults), faults  # both: recovered by a retry, and not
    assert all(words in f["detail"] for f in faults if f["attempt"] == 1 and f["n"] > 1), faults
    totals = summary["fault_totals"]
    assert totals["by_kind"][kind]["recovered"] == len(recovered)
    assert any("faulted" in reason for reason in summary["verdict_reasons"])
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("verdict:"))
    assert line.startswith("verdict: FAIL")
    assert f"vendor faults {totals['count']:,} ({totals['recovered']:,} recovered by a retry)" in line
    junit = ET.parse(out / "junit.xml").getroot()
    assert [e for e in junit.iter("error") if e.get("type") == kind]
    replay = out / "failures" / totals["by_kind"][kind]["first_request"]
    request = json.loads(replay.read_text().splitlines()[1])
    assert request["cases"]
    for pdf in ("certificate.pdf", "findings.pdf"):
        text = page_one(out / pdf)
        assert "NOT CERTIFIED" in text and kind in text, pdf
        assert "every answer agreed" not in text.replace("every answer agreed with the reference", "X")
        assert totals["by_kind"][kind]["first_request"][:40] in text.replace(" ", "") or "replay" in text, pdf


def test_a_vendor_that_restarts_as_another_build_fails(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = certify(edge, out, [sys.executable, str(FAULT_VENDOR), "bad_hello"], "--retries", "0", "--no-bisect")
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "fail" and "bad_hello" in summary["fault_totals"]["by_kind"]
    assert "bad_hello" in page_one(out / "certificate.pdf")


def test_a_partial_vendor_is_not_certified_unless_the_lab_accepts_its_scope(edge: Path, tmp_path: Path) -> None:
    vendor = [sys.executable, str(FAULT_VENDOR), f"declare={LABEL_OPS}"]
    done = certify(edge, tmp_path / "all", vendor)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((tmp_path / "all" / "summary.json").read_text())
    assert summary["verdict"] == "fail"
    missing = "craps.odds_limits, craps.place_odds, craps.settle, paigow.settle"
    assert any(missing in reason for reason in summary["verdict_reasons"])
    text = page_one(tmp_path / "all" / "certificate.pdf")
    assert "NOT CERTIFIED" in text and missing in text

    done = certify(edge, tmp_path / "scoped", vendor, "--require", LABEL_OPS)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "scoped" / "summary.json").read_text())
    assert summary["verdict"] == "scoped_pass"
    assert summary["scope"]["tested"] == LABEL_OPS.split(",")
    assert summary["scope"]["untested"] == missing.split(", ")
    assert "verdict: SCOPED_PASS (CERTIFIED FOR 2 OF 6 OPS)" in done.stdout       # the certificate's words
    assert "why: certified for paigow.player_bonus, paigow.banker_bonus only; not tested:" in done.stdout
    text = page_one(tmp_path / "scoped" / "certificate.pdf")
    assert "CERTIFIED FOR 2 OF 6 OPS" in text and "Not tested" in text and missing in text
    assert "njac.11.20.a" in text or "craps.sw" in text           # the untested clauses are named

    done = certify(edge, tmp_path / "craps", vendor, "--require", "craps")
    assert done.returncode == 1
    done = certify(edge, tmp_path / "bogus", vendor, "--require", "craps.teleport")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "craps.teleport" in done.stderr


def test_a_profile_declares_the_scope_a_lab_requires(tmp_path: Path) -> None:
    shipped = (Path(__file__).parents[1] / "oracle" / "profiles" / "odds-3-4-5x.toml").read_text()
    table = tmp_path / "labels-only.toml"
    table.write_text(shipped.replace('id = "odds-3-4-5x"', f'id = "labels-only"\nscope = {json.dumps(LABEL_OPS.split(","))}'))
    suite = tmp_path / "suite"
    done = subprocess.run([sys.executable, "-m", "tablecert", "vectors", "generate", "--suite", "edge", "--profile",
                           str(table), "--out", str(suite)], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    vendor = [sys.executable, str(FAULT_VENDOR), f"declare={LABEL_OPS}"]
    done = certify(suite, tmp_path / "run", vendor, "--profile", str(table), "--require", "profile")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["verdict"] == "scoped_pass"


@pytest.mark.parametrize("program, kind", [("hang", "timeout"), ("missing", None)])
def test_a_vendor_never_greeted_still_leaves_a_summary(edge: Path, tmp_path: Path, program: str, kind: str | None) -> None:
    vendor = ([sys.executable, "-c", "import time; time.sleep(60)"] if program == "hang"
              else [str(tmp_path / "no-such-vendor")])
    out = tmp_path / "run"
    done = certify(edge, out, vendor, "--timeout", "1")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "could not be started or greeted" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "incomplete" and summary["state"] == "not_started"
    assert sum(summary["totals"].values()) == 0
    # Never identified, so not a fault of the vendor: a start failure in the run's history (issue 21).
    assert summary["faults"] == [] and [f["kind"] for f in summary["start_failures"]] == [kind or "start"]
    assert summary["verdict_reasons"] and "no vector was judged" in summary["verdict_reasons"][0]


def test_the_reference_vendor_stays_certified(edge: Path, tmp_path: Path) -> None:
    done = certify(edge, tmp_path / "run", [sys.executable, "-m", "tablecert", "reference-vendor"])
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["faults"] == [] and summary["scope"]["complete"]
    text = page_one(tmp_path / "run" / "certificate.pdf")
    assert "CERTIFIED" in text and "NOT CERTIFIED" not in text and "no fault" in text
