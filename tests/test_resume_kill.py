"""A certification run killed with SIGKILL at several points and resumed each time ends with
exactly the results of an uninterrupted run (the run database is written batch by batch, each
batch in one transaction)."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablecert.vectors.suites import generate

COMPARED = ("verdict", "totals", "by_op", "by_clause", "by_flag", "batches", "suite_manifest_sha256", "vendor")


def certify(suite: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-plugin", "demo", "--suite", "edge",
                             "--suite-dir", str(suite), "--out", str(out), "--batch-size", "10", "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


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
    got = json.loads((out / "summary.json").read_text())
    for key in COMPARED:
        assert got[key] == expected[key], key
    q = 'SELECT file, op, tc_id, "case", expected, actual FROM failures ORDER BY file, op, tc_id'
    assert (sqlite3.connect(out / "run.db").execute(q).fetchall()
            == sqlite3.connect(whole / "run.db").execute(q).fetchall())
