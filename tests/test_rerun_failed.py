"""``tablecert certify --rerun-failed RUN`` (issue 36 item 3), the real command on the demo vendor.

The demo vendor fails ``edge`` with three causes (harness/vendors/demo_vendor.py's docstring: the
commission rounded to nearest on a ``down`` table, the joker not completing the wheel, the total
win of a player-banked round); its next build fixes the commission. The rerun sends exactly the
vectors that failed in the first run (counted from the vendor's side: nothing else is sent),
finds the commission cause gone and the other two still failing (as ``tablecert diff`` says),
exits 1, and says on every page of its documents and in summary.json that it never certifies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from tablecert.harness.store import open_reader
from waits import HANG

TESTS = Path(__file__).resolve().parent


def tablecert(*args: str, log: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
           "TABLECERT_SENT_LOG": str(log or os.devnull)}
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, env=env,
                          timeout=HANG)


def sent(log: Path) -> int:
    """The cases the vendor was sent, by its own count."""
    return sum(int(line.split()[1]) for line in log.read_text().splitlines()) if log.exists() else 0


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Demo 3.2.0 certified on edge (it fails: exit 1)."""
    run = tmp_path_factory.mktemp("rerun") / "demo-3.2.0"
    done = tablecert("certify", "--vendor-plugin", "rerun_vendors:Counting", "--suite", "edge", "--out", str(run),
                     "--quiet")
    assert done.returncode == 1, done.stdout + done.stderr
    return run


@pytest.fixture(scope="module")
def rerun(first: Path) -> tuple[Path, subprocess.CompletedProcess[str], int]:
    """Build 3.2.1 (the commission fixed) rerun on what failed in ``first``."""
    out, log = first.parent / "demo-3.2.1-rerun", first.parent / "sent.log"
    done = tablecert("certify", "--vendor-plugin", "rerun_vendors:FixedCommission", "--rerun-failed", str(first),
                     "--out", str(out), "--quiet", log=log)
    return out, done, sent(log)


def test_only_the_failed_vectors_are_sent_and_one_cause_is_gone(first: Path, rerun: tuple) -> None:
    out, done, vectors_sent = rerun
    assert done.returncode == 1, done.stdout + done.stderr                 # two causes still fail
    with open_reader(first / "run.db") as db:
        failed = {(f.file, f.op, f.tc_id) for f in db.failures()}
    assert vectors_sent == len(failed) > 0                                 # nothing else was sent
    summary = json.loads((out / "summary.json").read_text())
    assert sum(summary["totals"].values()) == len(failed)
    diff = json.loads((out / "diff.json").read_text())
    fixed = [c["cause"] for c in diff["causes"]["fixed"]]
    still = [c["cause"] for c in diff["causes"]["still failing"]]
    assert len(fixed) == 1 and "commission one commission unit high" in fixed[0], fixed
    assert len(still) == 2 and any("total_win too high" in c for c in still) and \
        any("player bonus hand labelled wrongly" in c for c in still), still
    assert diff["causes"]["newly failing"] == [] and not diff["regressed"]
    assert diff["vectors_fixed"] == diff["causes"]["fixed"][0]["old"] > 0
    assert "fixed: 1 cause" in done.stdout and "still failing: 2 causes" in done.stdout
    with open_reader(out / "run.db") as db:                                # the rerun's failures: RUN's, less one cause
        again = {(f.file, f.op, f.tc_id) for f in db.failures()}
    assert again < failed and all(op != "craps.place_odds" for _, op, _ in again)


def test_a_rerun_never_certifies_and_says_so_everywhere(rerun: tuple, tmp_path: Path) -> None:
    from tablecert.reports.site import write_site

    out, done, _ = rerun
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rerun_of"]["certifies"] is False and summary["verdict"] != "pass"
    assert "NEVER CERTIFIED" in done.stdout
    for name in ("certificate.pdf", "findings.pdf"):
        pages = PdfReader(str(out / name)).pages
        assert all("RERUN OF FAILED VECTORS: NEVER CERTIFIED" in p.extract_text() for p in pages), name
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "RERUN OF FAILED VECTORS: NEVER CERTIFIED" in page and 'id="rerun"' in page
    vendor = write_site(out.parent, tmp_path / "site")[1].read_text(encoding="utf-8")    # the lab's view
    assert "3.2.1 (3.2.1+demo.20250618.b52d0f3): a rerun of failed vectors, never certified" in vendor


def test_a_fixed_build_exits_0_and_still_is_not_certified(first: Path, tmp_path: Path) -> None:
    """The reference vendor answers every failed vector right: exit 0, verdict incomplete (a rerun)."""
    out = tmp_path / "ref-rerun"
    done = tablecert("certify", "--vendor-plugin", "tablecert.oracle.vendor:ReferenceVendor", "--rerun-failed",
                     str(first), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "incomplete" and summary["totals"]["fail"] == 0
    assert any("never certified" in r for r in summary["verdict_reasons"])
    assert "fixed: 3 causes" in done.stdout


def test_faulted_vectors_are_rerun_too(tmp_path: Path) -> None:
    """A build that crashed on every paigow.settle request (a subprocess): the rerun sends its
    failures and every vector of the requests it crashed on."""
    run, log = tmp_path / "crash", tmp_path / "sent.log"
    command = f"{sys.executable} -m tablecert serve-vendor --plugin rerun_vendors:CrashesOnSettle"
    done = tablecert("certify", "--vendor-cmd", command, "--isolation", "none", "--pass-env", "PYTHONPATH",
                     "--suite", "edge", "--out", str(run), "--quiet", "--retries", "0", "--no-bisect")
    assert done.returncode == 1, done.stdout + done.stderr
    with open_reader(run / "run.db") as db:
        failed = {(f.file, f.op, f.tc_id) for f in db.failures()}
        hit = {(f.file, f.op, tc) for f in db.faults() for tc in range(f.first_tc, f.first_tc + f.n)}
    assert hit and all(op == "paigow.settle" for _, op, _ in hit)
    done = tablecert("certify", "--vendor-plugin", "rerun_vendors:Counting", "--rerun-failed", str(run), "--out",
                     str(tmp_path / "again"), "--quiet", log=log)
    assert done.returncode == 1, done.stdout + done.stderr
    assert sent(log) == len(failed | hit)
    assert json.loads((tmp_path / "again" / "summary.json").read_text())["rerun_of"]["faulted"] == len(hit - failed)


@pytest.mark.parametrize("change, message", [
    ("suite", "is not the suite"),
    ("resume", "takes no --resume"),
    ("same-out", "a rerun goes into a new run folder"),
    ("not-a-run", "not a run folder"),
])
def test_bad_reruns_are_one_line_exit_2(first: Path, tmp_path: Path, change: str, message: str) -> None:
    args = ["certify", "--vendor-plugin", "rerun_vendors:Counting", "--rerun-failed", str(first), "--out",
            str(tmp_path / "out"), "--quiet"]
    if change == "suite":                     # a copy of the suite, one byte of its manifest changed
        copy = tmp_path / "suite"
        shutil.copytree(first / "suite", copy)
        manifest = copy / "manifest.json"
        manifest.write_bytes(manifest.read_bytes().replace(b"{", b"{ ", 1))
        args += ["--suite-dir", str(copy)]
    elif change == "resume":
        args.append("--resume")
    elif change == "same-out":
        args[args.index("--out") + 1] = str(first)
    else:
        args[args.index("--rerun-failed") + 1] = str(tmp_path)
    done = tablecert(*args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "out" / "run.db").exists()
