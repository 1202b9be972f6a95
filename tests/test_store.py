"""The run store (harness/store/): records in, the same records out; a run folder of the previous
release still read (reports, diffs, signing: as it is) and written (resume, merge: migrated to
this schema version, its rows and seal untouched); a database of a later release refused in one
line.

``tests/data/previous-release-run/run.db.gz`` is the run database of a run folder written by the
release before the store (commit f55a77a, schema version 0): the demo vendor (three bugs) on the
``edge`` suite,
``tablecert certify --vendor-cmd "tablecert serve-vendor --plugin demo" --suite edge --out DIR``;
its figures below (165 failing vectors of 6,863, over 3 ops, verdict ``fail``) are that run's, as
its summary.json printed them.
"""

from __future__ import annotations

import base64
import gzip
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tablecert.harness.model import BatchOutcome, Failure, Fault, FaultRequest, HandAnswer, PoisonedCase
from tablecert.harness.record.judged_record import database_digest
from tablecert.harness.record.seal import check_seal
from tablecert.harness.store import SCHEMA_VERSION, RunStore, SchemaError, open_reader
from tablecert.reports.data import load_report_data

PREVIOUS = Path(__file__).parent / "data" / "previous-release-run" / "run.db.gz"


def previous_run(tmp_path: Path) -> Path:
    """A copy of the previous release's run folder (its database) to work on."""
    folder = tmp_path / "old-run"
    folder.mkdir()
    (folder / "run.db").write_bytes(gzip.decompress(PREVIOUS.read_bytes()))
    return folder


def user_version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


def sealing_key(meta: dict) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(base64.b64decode(meta["seal"]["public_key"]))


def test_a_run_of_the_previous_release_is_read_as_it_is(tmp_path: Path) -> None:
    folder = previous_run(tmp_path)
    before = (folder / "run.db").read_bytes()
    assert user_version(folder / "run.db") == 0
    with open_reader(folder / "run.db") as db:
        meta = db.meta()
        failures = list(db.failures())
        assert meta["verdict"] == "fail" and meta["suite"] == "edge"
        assert len(failures) == 165 and all(isinstance(f, Failure) for f in failures)
        assert len({f.op for f in failures}) == 3
        assert db.outcome_totals() == {"pass": 6698, "fail": 165, "unsupported": 0, "fault": 0}
        assert database_digest(db, meta["judged"]) == meta["judged"]     # its rows are what its harness recorded
        check_seal(db, [sealing_key(meta)], str(folder))                  # and its seal still checks
    data = load_report_data(folder)                                       # the reports read it
    assert data.verdict == "fail" and data.totals["fail"] == 165
    assert sum(c.failed for c in data.classes) == 165
    assert (folder / "run.db").read_bytes() == before                    # reading changed nothing


def test_a_run_of_the_previous_release_is_migrated_when_written(tmp_path: Path) -> None:
    folder = previous_run(tmp_path)
    store = RunStore(folder / "run.db")
    try:
        meta = store.meta()
        assert database_digest(store, meta["judged"]) == meta["judged"]
        check_seal(store, [sealing_key(meta)], str(folder))               # migrating kept rows and meta
    finally:
        store.close()
    assert user_version(folder / "run.db") == SCHEMA_VERSION == 3


def test_a_database_of_an_earlier_schema_gets_its_missing_columns_and_hand_causes(tmp_path: Path) -> None:
    """Columns and tables added since run databases were first written: ``faults.recovered``,
    ``failures.comment`` and the ``hand_causes`` counts (counted once from the wrong hands)."""
    path = tmp_path / "run.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE faults (file TEXT, op TEXT, first_tc INTEGER, n INTEGER, attempt INTEGER, kind TEXT,
                             detail TEXT, stderr_tail TEXT);
        CREATE TABLE failures (file TEXT, op TEXT, tg_id INTEGER, tc_id INTEGER, config TEXT, "case" TEXT,
                               expected TEXT, actual TEXT, flags TEXT, clauses TEXT);
        CREATE TABLE hand_failures (op INTEGER, expected INTEGER, actual INTEGER, cause INTEGER,
                                    simplicity INTEGER, tc_id INTEGER, features INTEGER);
        INSERT INTO faults VALUES ('f', 'craps.settle', 1, 4, 1, 'crash', 'died', '');
        INSERT INTO failures VALUES ('f', 'craps.settle', 1, 2, '{}', '{}', '{"result":1}', '{"result":2}', '[]', '[]');
        INSERT INTO hand_failures VALUES (0, 3, 4, 7, 1, 10, 0), (0, 3, 4, 7, 2, 11, 0), (1, 5, 6, 2, 1, 12, 0);
    """)
    db.commit()
    db.close()
    with open_reader(path) as old:                    # read as it is: what it lacks reads as empty
        assert old.faults() == [Fault("f", "craps.settle", 1, 4, 1, "crash", "died", "", recovered=False)]
        assert [f.comment for f in old.failures()] == [""]
    store = RunStore(path)
    try:
        assert [(g.op, g.expected, g.actual, g.cause, g.n) for g in store.hand_causes()] == [(0, 3, 4, 7, 2),
                                                                                             (1, 5, 6, 2, 1)]
        assert store.faults()[0].recovered is False and next(store.failures()).comment == ""
    finally:
        store.close()
    assert user_version(path) == 3


def test_a_database_of_a_later_release_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = previous_run(tmp_path)
    db = sqlite3.connect(folder / "run.db")
    db.execute("PRAGMA user_version = 4")
    db.close()
    with pytest.raises(SchemaError, match="schema version 4, written by a later release"):
        open_reader(folder / "run.db")
    with pytest.raises(SchemaError, match="later release"):
        RunStore(folder / "run.db")
    done = subprocess.run([sys.executable, "-m", "tablecert", "report", str(folder)], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "later release" in done.stderr and "Traceback" not in done.stderr


def test_records_written_are_the_records_read(tmp_path: Path) -> None:
    failure = Failure("craps.settle.p.jsonl.gz", "craps.settle", 3, 17, '{"unit":5}', '{"bet":"pass"}',
                      '{"result":{"win":10}}', '{"result":{"win":5}}', '["PayoutRatio"]', '["C-1"]', "why it exists")
    fault = Fault("craps.settle.p.jsonl.gz", "craps.settle", 20, 4, 1, "timeout", "no answer in 5 s", "tail", True)
    request = FaultRequest("timeout", "craps.settle.p.jsonl.gz", "craps.settle", 20, 4, '{"unit":5}', '[{"bet":"x"}]')
    poisoned = PoisonedCase("craps.settle.p.jsonl.gz", "craps.settle", 3, 22, '{"unit":5}', '{"bet":"x"}', "crash", "died")
    answer = HandAnswer(0, 99, '"not a label"')
    outcome = BatchOutcome("craps.settle.p.jsonl.gz", "craps.settle", 17, 8, "partial",
                           counts=Counter({("op", "craps.settle", "fail"): 1, ("op", "craps.settle", "fault"): 4}),
                           failures=[failure], faults=[fault], poisoned=[poisoned], fault_requests=[request],
                           hand_answers=[answer])
    store = RunStore(tmp_path / "run.db")
    try:
        assert store.record(outcome) is True
        assert store.record(outcome) is False                # a batch recorded twice counts once
    finally:
        store.close()
    with open_reader(tmp_path / "run.db") as db:
        assert list(db.failures()) == [failure]
        assert db.faults() == [fault]
        assert db.fault_requests() == [request]
        assert db.poisoned() == [poisoned]
        assert db.hand_answers() == [answer]
        assert db.outcome_totals() == {"pass": 0, "fail": 1, "unsupported": 0, "fault": 4}
        assert db.batch_statuses() == {"partial": 1}
        again = db.batch_record("craps.settle.p.jsonl.gz", "craps.settle", 17, 8)
        assert (again.failures, again.faults, again.poisoned, again.fault_requests) == ([failure], [fault], [poisoned],
                                                                                        [request])
