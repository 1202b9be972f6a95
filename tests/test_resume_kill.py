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

from tablecert.vectors.suites import generate

COMPARED = ("verdict", "totals", "by_op", "by_clause", "by_flag", "batches", "faults", "suite_manifest_sha256", "vendor")
POISON_VENDOR = Path(__file__).with_name("poison_vendor.py")


def certify(suite: Path, out: Path, *extra: str, vendor: tuple[str, ...] = ("--vendor-plugin", "demo")) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tablecert", "certify", *vendor, "--suite", "edge",
                             "--suite-dir", str(suite), "--out", str(out), "--batch-size", "10", "--quiet", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


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
def test_sigkill_at_random_points_then_resume(tmp_path):
    suite = tmp_path / "suite"
    generate("edge", suite)
    whole = tmp_path / "whole"
    assert certify(suite, whole).wait(timeout=600) == 1
    expected = json.loads((whole / "summary.json").read_text())

    out = tmp_path / "killed"
    kills = 0
    rng = random.Random(7)                                   # fixed seed: the same kill points each run
    delays = [rng.uniform(0.6, 1.6) for _ in range(8)]
    proc = certify(suite, out)
    for delay in delays:
        time.sleep(delay)
        if proc.poll() is not None:
            break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
        proc = certify(suite, out, "--resume")
    assert proc.wait(timeout=600) == 1
    assert kills >= 3, f"killed only {kills} times before the run finished: make the batches smaller"
    same_results(out, whole)


@pytest.mark.slow
def test_soak_many_kills_of_a_run_against_a_crashing_vendor(tmp_path):
    suite = tmp_path / "suite"
    generate("edge", suite)
    cases = []
    for name, index in (("craps.settle", 40), ("craps.place_odds", 300), ("paigow.player_bonus", 3)):
        with gzip.open(suite / "prompt" / f"{name}.odds-3-4-5x.jsonl.gz", "rt") as f:
            cases.append([json.loads(line) for line in f if '"type":"test"' in line][index]["case"])
    spec = tmp_path / "poison.json"
    spec.write_text(json.dumps({"cases": cases}))
    vendor = ("--vendor-cmd", shlex.join([sys.executable, str(POISON_VENDOR), str(spec), "segv", "demo"]))
    whole = tmp_path / "whole"
    assert certify(suite, whole, vendor=vendor).wait(timeout=600) == 1         # fail outranks incomplete
    summary = json.loads((whole / "summary.json").read_text())
    assert summary["totals"]["fault"] >= 3 and summary["totals"]["fail"] > 0

    out = tmp_path / "killed"
    rng = random.Random(20261129)
    kills, starts = 0, 1
    proc = certify(suite, out, vendor=vendor)
    while kills < 40:
        time.sleep(rng.uniform(0.2, 1.2))
        if proc.poll() is not None:
            break
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
        proc = certify(suite, out, "--resume", vendor=vendor)
        starts += 1
    assert proc.wait(timeout=600) == 1
    assert kills >= 15, f"killed only {kills} times before the run finished"
    print(f"soak: {kills} kills, {starts} starts")
    same_results(out, whole)
