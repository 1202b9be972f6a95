"""A certification run killed with SIGKILL at several points and resumed each time ends with
exactly the results of an uninterrupted run (the run database is written batch by batch, each
batch in one transaction, the faults met by a batch with it). The soak kills a run against a
vendor process that crashes on poisoned cases many times, in the middle of retries and
bisections too."""

from __future__ import annotations

import gzip
import json
import os
import random
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from waits import HANG

COMPARED = ("verdict", "verdict_reasons", "scope", "fault_totals", "totals", "by_op", "by_clause", "by_flag", "batches", "faults", "suite_manifest_sha256", "vendor")
POISON_VENDOR = Path(__file__).with_name("poison_vendor.py")


def certify(suite: Path, out: Path, *extra: str, vendor: tuple[str, ...] = ("--vendor-plugin", "demo"),
            stderr: int = subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tablecert", "certify", *vendor, "--suite", "edge",
                             "--suite-dir", str(suite), "--out", str(out), "--batch-size", "10", "--quiet", *extra],
                            stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True, text=True)


def batches_recorded(out: Path) -> int:
    """Batches the run in ``out`` has committed so far (0 before its database exists)."""
    if not (out / "run.db").exists():
        return 0
    try:
        with sqlite3.connect(f"file:{out / 'run.db'}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM batches").fetchone()[0]
    except sqlite3.OperationalError:           # the schema is not written yet
        return 0


def kill_after(proc: subprocess.Popen, out: Path, target: int) -> bool:
    """Wait until the run has committed ``target`` batches (observable progress, not the clock),
    then SIGKILL it; False if it finished first."""
    while batches_recorded(out) < target:
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return True


def kill_points(total: int, kills: int, seed: int) -> list[int]:
    """``kills`` distinct batch counts, seeded, each below the run's ``total`` batches."""
    return sorted(random.Random(seed).sample(range(1, int(total * 0.9)), kills))


def vendor_processes(spec: Path) -> list[int]:
    """The poisoned vendor's own processes: those whose command line starts with the vendor's
    command. Not certify (its --vendor-cmd names the spec too, and the harness itself sleeps in
    nanosleep at times: taken for the hung vendor, the SIGTERM came before run.db, about 1 run in
    3 under two busy loops), nor bubblewrap's (they name it after their own options)."""
    command = f"{sys.executable} {POISON_VENDOR} {spec}"
    pattern = "^" + "".join(f"\\{c}" if c in ".^$*+?()[]{}|\\" else c for c in command)   # pgrep's ERE
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    return [int(p) for p in found]


def sleeping(pid: int) -> bool:
    """The process sleeps in nanosleep (the poisoned vendor's hang), not in a read of its input."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text().strip() in ("hrtimer_nanosleep", "do_nanosleep")
    except OSError:
        return False


def same_results(got_dir: Path, want_dir: Path) -> None:
    got = json.loads((got_dir / "summary.json").read_text())
    expected = json.loads((want_dir / "summary.json").read_text())
    for key in COMPARED:
        assert got[key] == expected[key], key
    for q in ('SELECT file, op, tc_id, "case", expected, actual FROM failures ORDER BY file, op, tc_id',
              "SELECT file, op, first_tc, n, attempt, kind, detail FROM faults ORDER BY rowid"):
        assert (sqlite3.connect(got_dir / "run.db").execute(q).fetchall()
                == sqlite3.connect(want_dir / "run.db").execute(q).fetchall())


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume(edge, tmp_path):
    """Killed after 8 seeded numbers of committed batches (so the same points on any machine)."""
    suite = edge
    whole = tmp_path / "whole"
    assert certify(suite, whole).wait(timeout=HANG) == 1
    total = batches_recorded(whole)

    out = tmp_path / "killed"
    kills = 0
    proc = certify(suite, out)
    for target in kill_points(total, 8, 7):
        assert kill_after(proc, out, target), f"the run finished before {target} of {total} batches"
        kills += 1
        proc = certify(suite, out, "--resume")
    assert proc.wait(timeout=HANG) == 1
    assert kills == 8
    same_results(out, whole)


@pytest.mark.slow
def test_soak_many_kills_of_a_run_against_a_crashing_vendor(edge, tmp_path, vendor_files):
    """24 kills at seeded numbers of committed batches; a kill lands wherever the harness is then,
    in the middle of retries and bisections too."""
    suite = edge
    cases = []
    for name, index in (("craps.settle", 40), ("craps.place_odds", 300), ("paigow.player_bonus", 3)):
        with gzip.open(suite / "prompt" / f"{name}.odds-3-4-5x.jsonl.gz", "rt") as f:
            cases.append([json.loads(line) for line in f if '"type":"test"' in line][index]["case"])
    spec = vendor_files / "poison.json"
    spec.write_text(json.dumps({"cases": cases}))
    vendor = ("--vendor-cmd", shlex.join([sys.executable, str(POISON_VENDOR), str(spec), "segv", "demo"]))
    whole = tmp_path / "whole"
    assert certify(suite, whole, vendor=vendor).wait(timeout=HANG) == 1         # fail outranks incomplete
    summary = json.loads((whole / "summary.json").read_text())
    assert summary["totals"]["fault"] >= 3 and summary["totals"]["fail"] > 0
    assert summary["verdict"] == "fail" and summary["fault_totals"]["count"] >= 3
    total = batches_recorded(whole)

    out = tmp_path / "killed"
    kills, starts = 0, 1
    proc = certify(suite, out, vendor=vendor)
    for target in kill_points(total, 24, 20261129):
        assert kill_after(proc, out, target), f"the run finished before {target} of {total} batches"
        kills += 1
        proc = certify(suite, out, "--resume", vendor=vendor)
        starts += 1
    assert proc.wait(timeout=HANG) == 1
    print(f"soak: {kills} kills, {starts} starts")
    same_results(out, whole)                 # the faults and the verdict too (COMPARED)


def test_sigterm_while_the_vendor_hangs_stops_cleanly_and_resumes(edge, tmp_path, vendor_files):
    """SIGTERM (a scheduler stopping the job) while the harness waits on a hung vendor: exit 130
    at once, the vendor's process group killed, the database intact; --resume then finishes."""
    suite = edge
    with gzip.open(suite / "prompt" / "craps.odds_limits.odds-3-4-5x.jsonl.gz", "rt") as f:
        case = [json.loads(line) for line in f if '"type":"test"' in line][150]["case"]
    spec = vendor_files / "hang-poison.json"
    spec.write_text(json.dumps({"cases": [case]}))
    hanging = ("--vendor-cmd", shlex.join([sys.executable, str(POISON_VENDOR), str(spec), "hang"]))
    out = tmp_path / "run"
    proc = certify(suite, out, "--timeout", "120", vendor=hanging, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180     # (waits on what is seen; generous for a loaded machine)
    vendor_pids: list[int] = []
    while time.monotonic() < deadline and not vendor_pids:
        time.sleep(0.2)
        vendor_pids = vendor_processes(spec)
    assert vendor_pids, "the vendor never started"
    deadline = time.monotonic() + 180                        # the vendor is now stuck on the poisoned batch:
    while time.monotonic() < deadline and not any(sleeping(pid) for pid in vendor_pids):  # seen, not timed
        time.sleep(0.05)
        vendor_pids = vendor_processes(spec) or vendor_pids
    assert any(sleeping(pid) for pid in vendor_pids), "the vendor never reached the poisoned batch"
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=HANG) == 130
    said = proc.stderr.read()
    assert said.count("\n") == 1 and "--resume" in said and "summary.json" in said, said   # one line: how to go on
    assert json.loads((out / "summary.json").read_text())["verdict"] == "incomplete"
    for pid in vendor_pids:
        deadline = time.monotonic() + 120   # seen gone at once at rest; generous for a saturated machine
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and \
                Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z", "vendor left running"
    assert sqlite3.connect(out / "run.db").execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    reference = ("--vendor-cmd", shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"]))
    assert certify(suite, out, "--resume", vendor=reference).wait(timeout=HANG) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["pass"] == json.loads((suite / "manifest.json").read_text())["numberOfTests"]
