"""A run record sealed as it grows (issue 32): ``certify --resume`` continues only a record whose
last checkpoint, signed by the lab's run key, covers exactly what the run database holds. Every
run here is a real ``tablecert`` process, killed once it has committed batches (rows in run.db)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from test_resume_kill import certify, kill_after, same_results
from test_seal import one_line_refusal
from waits import HANG

KILLED_AT = 100
"""Batches (of 10 vectors) a run has committed when it is killed."""


def finish(suite: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    proc = certify(suite, out, *extra, stderr=subprocess.PIPE)
    _stdout, stderr = proc.communicate(timeout=HANG)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)


@pytest.fixture(scope="module")
def runs(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo vendor (three bugs: it fails edge) run through once, and the same run killed
    after KILLED_AT batches, untouched since."""
    base = tmp_path_factory.mktemp("checkpoints")
    whole = base / "whole"
    done = finish(edge, whole)
    assert done.returncode == 1, done.stderr
    killed = base / "killed"
    assert kill_after(certify(edge, killed), killed, KILLED_AT), "the run ended before it was killed"
    return {"whole": whole, "killed": killed}


def copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


def failures_passed(db: sqlite3.Connection) -> None:
    """The issue's forgery with sqlite3: every failure deleted, its count turned into a pass."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for d, k, o, n in db.execute("SELECT * FROM counts"):
        counts[(d, k, "pass" if o == "fail" else o)] += n
    db.execute("DELETE FROM failures")
    db.execute("DELETE FROM counts")
    db.executemany("INSERT INTO counts VALUES (?, ?, ?, ?)", [(*k, n) for k, n in counts.items()])


def forge(run: Path, *statements: str, passes: bool = True) -> None:
    db = sqlite3.connect(run / "run.db")
    with db:
        if passes:
            failures_passed(db)
        for statement in statements:
            db.execute(statement)
    db.close()


def test_the_killed_run_had_failures_to_forge(runs: dict[str, Path]) -> None:
    db = sqlite3.connect(runs["killed"] / "run.db")
    assert db.execute("SELECT COUNT(*) FROM failures").fetchone()[0] > 0
    assert db.execute("SELECT COUNT(*) FROM meta WHERE key = 'seal'").fetchone()[0] == 0     # not concluded
    db.close()


@pytest.mark.parametrize("statements, passes, words", [
    (("DELETE FROM meta WHERE key IN ('chain', 'seal')",), True, ("no checkpoint", "start the run again")),
    (("DELETE FROM meta WHERE key IN ('chain', 'seal')",), False, ("no checkpoint",)),
    ((), True, ("changed since its last checkpoint", "failures", "counts")),
    (("UPDATE failures SET actual = '{\"result\":{}}' WHERE rowid = (SELECT MIN(rowid) FROM failures)",), False,
     ("changed since its last checkpoint", "failures")),
    (("DELETE FROM batches WHERE rowid = (SELECT MAX(rowid) FROM batches)",), False,
     ("changed since its last checkpoint", "batches")),
    (("UPDATE meta SET value = '\"full (forged)\"' WHERE key = 'isolation'",), False,
     ("changed since its last checkpoint", "meta")),
    (("UPDATE meta SET value = json_set(value, '$.sig', 'AAAA') WHERE key = 'chain'",), False,
     ("does not verify",)),
])
def test_an_interrupted_record_changed_without_the_run_key_is_not_resumed(
        edge: Path, runs: dict[str, Path], tmp_path: Path, statements: tuple[str, ...], passes: bool,
        words: tuple[str, ...]) -> None:
    run = copy(runs["killed"], tmp_path / "run")
    forge(run, *statements, passes=passes)
    before = (run / "run.db").read_bytes()
    one_line_refusal(finish(edge, run, "--resume"), str(run), *words)
    assert (run / "run.db").read_bytes() == before            # nothing written to it
    assert not (run / "summary.json").exists() and not (run / "certificate.pdf").exists()


def test_a_good_interrupted_record_resumes_to_the_verdict_of_an_uninterrupted_run(
        edge: Path, runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["killed"], tmp_path / "run")
    done = finish(edge, run, "--resume")
    assert done.returncode == 1, done.stderr
    same_results(run, runs["whole"])
    assert json.loads((run / "summary.json").read_text())["verdict"] == "fail"


def test_a_resumed_run_killed_again_resumes_from_its_own_checkpoints(
        edge: Path, runs: dict[str, Path], tmp_path: Path) -> None:
    """The chain continues across resumptions: the second process's checkpoints are checked too."""
    run = copy(runs["killed"], tmp_path / "run")
    assert kill_after(certify(edge, run, "--resume"), run, KILLED_AT * 2), "the run ended before it was killed"
    db = sqlite3.connect(run / "run.db")
    seq = json.loads(json.loads(db.execute("SELECT value FROM meta WHERE key = 'chain'").fetchone()[0])["payload"])["seq"]
    db.close()
    assert seq > KILLED_AT * 2
    done = finish(edge, run, "--resume")
    assert done.returncode == 1, done.stderr
    same_results(run, runs["whole"])


def test_an_older_copy_of_the_record_resumes_from_its_own_checkpoint(
        edge: Path, runs: dict[str, Path], tmp_path: Path) -> None:
    """Rollback (documented in harness/record/chain.py): an older copy of a run's database holds a
    valid older checkpoint; the run resumes from there, judging the batches after it again."""
    run = copy(runs["whole"], tmp_path / "run")
    shutil.copyfile(runs["killed"] / "run.db", run / "run.db")
    for name in ("run.db-wal", "run.db-shm"):
        (run / name).unlink(missing_ok=True)
    done = finish(edge, run, "--resume")
    assert done.returncode == 1, done.stderr
    same_results(run, runs["whole"])


def test_a_concluded_run_whose_seal_and_checkpoint_are_removed_is_not_resumed(
        edge: Path, runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["whole"], tmp_path / "run")
    forge(run, "DELETE FROM meta WHERE key IN ('chain', 'seal')")
    one_line_refusal(finish(edge, run, "--resume"), str(run), "no checkpoint")


def test_a_run_killed_before_it_recorded_anything_starts_again(edge: Path, runs: dict[str, Path],
                                                             tmp_path: Path) -> None:
    """A database with its tables and nothing in them (the run killed as it began) is no record:
    ``--resume`` starts the run again."""
    run = tmp_path / "run"
    run.mkdir()
    db = sqlite3.connect(run / "run.db")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.close()
    done = finish(edge, run, "--resume")
    assert done.returncode == 1, done.stderr
    same_results(run, runs["whole"])
