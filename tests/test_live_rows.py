"""Live failures and live table features as rows of run.db (schema 3, issue 52): each batch writes
its own, in its own transaction, so two batches (resumed, or two stores at once) never lose one
another's, where 1.1.0 read the meta's JSON, added to it and wrote it back; a run database of 1.1.0
(schema 2: the same findings and features in the meta ``live_failures`` and ``live``) still reads
as the same typed records, and summary.json's ``live`` reads the same from either.

The schema-2 database is written here as 1.1.0 laid it out: this release's tables but the two
live ones, ``user_version`` 2, the meta values in 1.1.0's shape (the keys, orders and values of
:func:`tablecert.harness.live.findings.live_detail` and ``LiveBatch.note_features`` at 1d15fca).
Every expected value below is worked out by hand from the records written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tablecert.harness.live.run import live_summary
from tablecert.harness.model import LIVE_TABLE_FEATURES, BatchOutcome, Failure, LiveFailure, LiveFeatures, dumps
from tablecert.harness.record.seal import run_record
from tablecert.harness.store import RunStore, open_reader
from tablecert.oracle.live_stations import FEATURES
from tablecert.oracle.paigow_records import FEATURE as PAIGOW_RECORDS

FILE = "live-craps.jsonl.gz"
OP = "craps.table"
PLAN = {"interruptions_planned": 3, "interruption_seed": 7, "interruptions_asked": 3, "life_cuts_planned": 2,
        "interruptions_enabled": True, "state_dir": "a fresh folder"}
DETAIL_7 = {"interruptions": [{"step": 2, "mode": "written"}],
            "last_interruption": {"step": 2, "mode": "written", "point": "step 2 in flight"},
            "restored": {"seq": 2}, "transcript": [],
            "divergence": {"asked": "table.step 5", "expected": {"won": 10}, "answered": {"won": 9},
                           "fields": ["won"]}}
DETAIL_9 = {"interruptions": [], "last_interruption": None, "restored": None, "transcript": [],
            "divergence": {"asked": "table.recall of station 3 after step 4",
                           "fault": {"kind": "crash", "detail": "died", "stderr": ""}}}
FEATURES_110 = {"declared": ["meters", "stations"], "tested": ["stations", "records", "meters"],
                "not_declared": ["disconnects", "disables", "paigow_records"]}


def failure(tc_id: int) -> Failure:
    return Failure(FILE, OP, 1, tc_id, "{}", '{"steps":[]}', '{"result":1}', '{"result":2}', "[]", "[]")


def batch(first_tc: int, tc_id: int, detail: dict, tested: tuple[str, ...]) -> BatchOutcome:
    """A live batch of one case that failed (its finding) and tested ``tested``."""
    return BatchOutcome(FILE, OP, first_tc, 1, "done", failures=[failure(tc_id)],
                        live_failures=[LiveFailure.of(FILE, OP, tc_id, detail)],
                        live_features=LiveFeatures(("meters", "stations"), tested,
                                                   ("disconnects", "disables", "paigow_records")))


def test_two_batches_at_once_both_keep_their_findings_and_features(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    first, second = RunStore(path), RunStore(path)        # two writers of one run (a resumed run, a worker)
    try:
        first.set_meta(live=PLAN)
        second.record(batch(7, 7, DETAIL_7, ("meters",)))
        first.record(batch(9, 9, DETAIL_9, ("stations", "records")))
    finally:
        first.close()
        second.close()
    again = RunStore(path)                                # resumed: a third batch
    try:
        again.record(batch(11, 11, DETAIL_7, ()))
    finally:
        again.close()
    with open_reader(path) as db:
        found = db.live_failures()
        assert [f.tc_id for f in found] == [7, 9, 11]
        assert found[0] == LiveFailure(FILE, OP, 7, 5, None, 2, "written", "table.step 5", "won", '{"won":10}',
                                       '{"won":9}', "", dumps(DETAIL_7))
        assert found[1] == LiveFailure(FILE, OP, 9, 4, 3, None, None, "table.recall of station 3 after step 4", "",
                                       "", "", "crash", dumps(DETAIL_9))
        assert found[1].detail == DETAIL_9
        # the union of the batches', in page 1's order (stations, disconnects, disables, meters, records, ...)
        assert db.live_features() == LiveFeatures(("meters", "stations"), ("stations", "meters", "records"),
                                                  ("disconnects", "disables", "paigow_records"))
        assert list(db.live_record() or {}) == [*PLAN, "features"]
        assert set(run_record(db)["tables"]) == {"confusion", "poisoned", "fault_requests", "live_failures",
                                                 "live_features"}


def schema_2_run(path: Path) -> None:
    """A run database as 1.1.0 wrote it (see the module docstring): two failing live vectors."""
    store = RunStore(path)
    store.record(BatchOutcome(FILE, OP, 7, 3, "done", failures=[failure(7), failure(9)]))
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE live_failures; DROP TABLE live_features; PRAGMA user_version = 2;")
    db.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("live", dumps({**PLAN, "features": FEATURES_110, "state_dir_cleanup": "not removed"})),
        ("live_failures", dumps({f"{FILE} 7": DETAIL_7, f"{FILE} 9": DETAIL_9}))])
    db.commit()
    db.close()


def test_a_run_of_1_1_0_reads_as_the_same_records_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    schema_2_run(path)
    with open_reader(path) as db:                         # read as it is
        old = db.live_failures()
        assert [(f.tc_id, f.step, f.station, f.field, f.fault) for f in old] == [(7, 5, None, "won", ""),
                                                                                  (9, 4, 3, "", "crash")]
        assert db.live_features() == LiveFeatures(("meters", "stations"), ("stations", "records", "meters"),
                                                  ("disconnects", "disables", "paigow_records"))
        live = db.live_record()
        record = run_record(db)
    # summary.json's live as 1.1.0 wrote it: its meta's live, in its order, and the counts
    assert json.dumps(live_summary(live or {}, {})) == json.dumps(live_summary(
        {**PLAN, "features": FEATURES_110, "state_dir_cleanup": "not removed"}, {}))
    assert set(record["tables"]) == {"confusion", "poisoned", "fault_requests"}   # sealed as 1.1.0 sealed it
    store = RunStore(path)                                # resumed: migrated, then a batch of this release
    try:
        assert run_record(store) == record                # the migration changed nothing the seal covers
        store.record(batch(11, 11, DETAIL_7, ("disables",)))
    finally:
        store.close()
    with open_reader(path) as db:
        assert [f.tc_id for f in db.live_failures()] == [7, 9, 11]
        assert db.live_failures()[:2] == old
        # 1.1.0's batches' and this one's together, in page 1's order
        assert db.live_features() == LiveFeatures(("meters", "stations"), ("stations", "disables", "meters", "records"),
                                                  ("disconnects", "disables", "paigow_records"))


def test_the_page_order_of_the_features_is_the_oracles() -> None:
    assert LIVE_TABLE_FEATURES == (*FEATURES, "records", PAIGOW_RECORDS)
