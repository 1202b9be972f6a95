"""run.db's schema, declared once and versioned, and the one map from the harness's records to
its columns.

The version is SQLite's ``PRAGMA user_version``: :data:`SCHEMA_VERSION` for a database this
release writes. A run database of an earlier release has version 2 (it lacks the
``live_failures`` and ``live_features`` tables, created empty by :func:`create_or_migrate`), 1
(it lacks ``build_files`` too) or 0 (it never set one) and may lack what was added
since: the ``faults.recovered`` and ``failures.comment`` columns (added to
the table by :func:`migrate`, holding 0 and ``''``), and the ``hand_causes`` counts (counted once
from its wrong hands). The writer migrates a version-0 database when it opens it (a run resumed
or a shard merged); the reader reads either version as it is, without writing (a report, a diff
or a signature of an archived run folder). A database of a later version than this release's is
refused, saying which release to use (:class:`SchemaError`).

Tables (every value of a JSON column is compact JSON text, :func:`tablecert.harness.model.dumps`):

* ``meta`` (key, value JSON): vendor hello, suite and profile digests, tablecert version, host,
  adapter and target, start and end times, state; ``seal``, the run record sealed by the lab's
  run key when the run concluded; ``chain``, the run key's last checkpoint of the record; every
  key declared, with its type, by :class:`~tablecert.harness.model.RunMeta` (read as it:
  :meth:`~tablecert.harness.store.reader.RunReader.run_meta`). Since 1.0 a concluded run also
  keeps ``verdict_title`` (the verdict's words, :class:`~tablecert.harness.model.Decision`) and
  ``cause_analysis`` (the cause analysis, made once when it is sealed): optional keys, so the
  schema version stays 1 and an earlier release reads such a database as before;
* ``batches`` (file, op, first_tc, n, status): every batch done (:class:`~tablecert.harness.model.BatchStatus`);
  a resumed run skips these;
* ``failures``: each failing vector (:class:`~tablecert.harness.model.Failure`);
* ``faults``: each vendor fault with the cases it hit (:class:`~tablecert.harness.model.Fault`);
* ``fault_requests``: for each fault kind, the first request that met it (:class:`~tablecert.harness.model.FaultRequest`);
* ``poisoned``: each case found to fault the vendor on its own (:class:`~tablecert.harness.model.PoisonedCase`);
* ``hand_failures`` and ``hand_answers``: a hand suite's wrong hands as integer codes, and the
  text of its answers that are not a label (:class:`~tablecert.harness.model.HandAnswer`);
  ``hand_causes`` (op, expected, actual, cause, n): how many of them each cause of each
  confusion cell has, added up as batches are written;
* ``counts`` (dimension, key, outcome, n): vectors per op, clause, flag ... and outcome;
* ``confusion`` (op, expected, actual, n): expected x answered labels;
* ``build_files`` (path, kind, mode, size, sha256): the vendor's build as bound, one row a file
  (:mod:`tablecert.harness.confine.build_files`), in the listing's order (``seq``); its signature
  is the meta's ``build``. Added in schema version 2 (a database of version 1 gains it, empty);
* ``live_failures``: each failing live vector's finding (:class:`~tablecert.harness.model.LiveFailure`:
  the step, station and interruption it followed, the request, field, expected and answered, the
  fault's kind and its whole record as JSON text), keyed as its ``failures`` row; and
  ``live_features`` (role, feature, seq): the live table features declared, tested and not
  declared (:class:`~tablecert.harness.model.LiveFeatures`), each batch's added (``INSERT OR
  IGNORE``: the run's are their union). Added in schema version 3; a database of version 2 gains
  them empty, and what 1.1.0 kept of them in the meta (``live_failures``, ``live``'s
  ``features``) is read as the same records (:meth:`~tablecert.harness.store.reader.RunReader.live_failures`,
  :meth:`~tablecert.harness.store.reader.RunReader.live_features`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from tablecert.harness.model import Failure, Fault, FaultRequest, HandAnswer, LiveFailure, LiveFeatures, PoisonedCase

SCHEMA_VERSION = 3
"""The ``PRAGMA user_version`` of a run database this release writes (0 to 2: earlier releases')."""

COLUMNS: dict[str, tuple[str, ...]] = {
    "meta": ("key", "value"),
    "batches": ("file", "op", "first_tc", "n", "status"),
    "failures": ("file", "op", "tg_id", "tc_id", "config", '"case"', "expected", "actual", "flags", "clauses",
                 "comment"),
    "faults": ("file", "op", "first_tc", "n", "attempt", "kind", "detail", "stderr_tail", "recovered"),
    "fault_requests": ("kind", "file", "op", "first_tc", "n", "config", "cases"),
    "poisoned": ("file", "op", "tg_id", "tc_id", "config", '"case"', "kind", "detail"),
    "counts": ("dimension", "key", "outcome", "n"),
    "confusion": ("op", "expected", "actual", "n"),
    "hand_failures": ("op", "expected", "actual", "cause", "simplicity", "tc_id", "features"),
    "hand_answers": ("op", "tc_id", "actual"),
    "hand_causes": ("op", "expected", "actual", "cause", "n"),
    "build_files": ("seq", "path", "kind", "mode", "size", "sha256"),
    "live_failures": ("file", "op", "tc_id", "step", "station", "after_step", "after_mode", "asked", "field",
                      "expected", "answered", "fault", "record"),
    "live_features": ("role", "feature", "seq"),
}
"""Every table's columns in order (the rows :func:`row` makes and the reader reads)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    file TEXT NOT NULL, op TEXT NOT NULL, first_tc INTEGER NOT NULL, n INTEGER NOT NULL,
    status TEXT NOT NULL, PRIMARY KEY (file, op, first_tc));
CREATE TABLE IF NOT EXISTS failures (
    file TEXT NOT NULL, op TEXT NOT NULL, tg_id INTEGER NOT NULL, tc_id INTEGER NOT NULL,
    config TEXT NOT NULL, "case" TEXT NOT NULL, expected TEXT NOT NULL, actual TEXT NOT NULL,
    flags TEXT NOT NULL, clauses TEXT NOT NULL, comment TEXT NOT NULL DEFAULT '', PRIMARY KEY (file, op, tc_id));
CREATE TABLE IF NOT EXISTS faults (
    file TEXT NOT NULL, op TEXT NOT NULL, first_tc INTEGER NOT NULL, n INTEGER NOT NULL,
    attempt INTEGER NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL, stderr_tail TEXT NOT NULL,
    recovered INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS fault_requests (
    kind TEXT PRIMARY KEY, file TEXT NOT NULL, op TEXT NOT NULL, first_tc INTEGER NOT NULL, n INTEGER NOT NULL,
    config TEXT NOT NULL, cases TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS poisoned (
    file TEXT NOT NULL, op TEXT NOT NULL, tg_id INTEGER NOT NULL, tc_id INTEGER NOT NULL, config TEXT NOT NULL,
    "case" TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL, PRIMARY KEY (file, op, tc_id));
CREATE TABLE IF NOT EXISTS counts (
    dimension TEXT NOT NULL, key TEXT NOT NULL, outcome TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (dimension, key, outcome));
CREATE TABLE IF NOT EXISTS confusion (
    op TEXT NOT NULL, expected TEXT NOT NULL, actual TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (op, expected, actual));
CREATE TABLE IF NOT EXISTS hand_failures (
    op INTEGER NOT NULL, expected INTEGER NOT NULL, actual INTEGER NOT NULL, cause INTEGER NOT NULL,
    simplicity INTEGER NOT NULL, tc_id INTEGER NOT NULL, features INTEGER NOT NULL,
    PRIMARY KEY (op, expected, actual, cause, simplicity, tc_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hand_answers (
    op INTEGER NOT NULL, tc_id INTEGER NOT NULL, actual TEXT NOT NULL, PRIMARY KEY (op, tc_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hand_causes (
    op INTEGER NOT NULL, expected INTEGER NOT NULL, actual INTEGER NOT NULL, cause INTEGER NOT NULL,
    n INTEGER NOT NULL, PRIMARY KEY (op, expected, actual, cause)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS build_files (
    seq INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, mode INTEGER NOT NULL,
    size INTEGER NOT NULL, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live_failures (
    file TEXT NOT NULL, op TEXT NOT NULL, tc_id INTEGER NOT NULL, step INTEGER, station INTEGER,
    after_step INTEGER, after_mode TEXT, asked TEXT NOT NULL, field TEXT NOT NULL, expected TEXT NOT NULL,
    answered TEXT NOT NULL, fault TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (file, op, tc_id));
CREATE TABLE IF NOT EXISTS live_features (
    role TEXT NOT NULL, feature TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (role, feature));
"""


class SchemaError(ValueError):
    """A run database this release cannot read or write as it is (one-line message)."""


def version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def check_version(db: sqlite3.Connection, where: object) -> int:
    """The database's schema version; SchemaError for one of a later release."""
    found = version(db)
    if found > SCHEMA_VERSION:
        raise SchemaError(f"{where}: a run database of schema version {found}, written by a later release of "
                          f"tablecert (this one reads versions up to {SCHEMA_VERSION}); use that release")
    return found


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """Whether the database has table ``name`` (a run database of an earlier release may not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def columns_of(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f'PRAGMA table_info("{table}")')}


def create_or_migrate(db: sqlite3.Connection, where: object) -> None:
    """Make the database this release's: create what is missing, migrate one of version 0 (see the
    module), leave one of this version as it is (nothing written)."""
    found = check_version(db, where)
    if found == SCHEMA_VERSION:
        return
    db.executescript(SCHEMA)
    if "recovered" not in columns_of(db, "faults"):
        db.execute("ALTER TABLE faults ADD COLUMN recovered INTEGER NOT NULL DEFAULT 0")
    if "comment" not in columns_of(db, "failures"):
        db.execute("ALTER TABLE failures ADD COLUMN comment TEXT NOT NULL DEFAULT ''")
    if (db.execute("SELECT 1 FROM hand_failures LIMIT 1").fetchone()
            and not db.execute("SELECT 1 FROM hand_causes LIMIT 1").fetchone()):
        # wrong hands recorded by an earlier release: their causes counted once
        db.execute("INSERT INTO hand_causes SELECT op, expected, actual, cause, COUNT(*) "
                   "FROM hand_failures GROUP BY op, expected, actual, cause")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def failure_row(f: Failure) -> tuple[Any, ...]:
    return (f.file, f.op, f.tg_id, f.tc_id, f.config, f.case, f.expected, f.actual, f.flags, f.clauses, f.comment)


def fault_row(f: Fault) -> tuple[Any, ...]:
    return (f.file, f.op, f.first_tc, f.n, f.attempt, f.kind, f.detail, f.stderr_tail, int(f.recovered))


def fault_request_row(r: FaultRequest) -> tuple[Any, ...]:
    return (r.kind, r.file, r.op, r.first_tc, r.n, r.config, r.cases)


def poisoned_row(p: PoisonedCase) -> tuple[Any, ...]:
    return (p.file, p.op, p.tg_id, p.tc_id, p.config, p.case, p.kind, p.detail)


def hand_answer_row(a: HandAnswer) -> tuple[Any, ...]:
    return (a.op, a.tc_id, a.actual)


def live_failure_row(f: LiveFailure) -> tuple[Any, ...]:
    return (f.file, f.op, f.tc_id, f.step, f.station, f.after_step, f.after_mode, f.asked, f.field, f.expected,
            f.answered, f.fault, f.record)


def live_feature_rows(features: LiveFeatures) -> list[tuple[Any, ...]]:
    """(role, feature, seq) of each feature of ``features`` (:meth:`LiveFeatures.seq`)."""
    return [(role, name, features.seq(role, name)) for role in features.ROLES for name in getattr(features, role)]


def insert(table: str, verb: str = "INSERT") -> str:
    """The positional INSERT of a whole row of ``table`` (``verb``: ``INSERT OR REPLACE`` ...)."""
    return f"{verb} INTO {table} VALUES ({', '.join('?' * len(COLUMNS[table]))})"
