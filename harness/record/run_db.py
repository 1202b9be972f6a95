"""The run database: a SQLite file in the run folder holding everything a run found.

Tables:

* ``meta`` (key, value JSON): vendor hello, suite and profile digests, tablecert version,
  host, adapter and target, start and end times, state; ``seal``: the run record sealed with the
  lab's run key when the run concluded (:mod:`tablecert.harness.record.seal`); ``chain``: the
  run key's last checkpoint of the record, written with every commit
  (:mod:`tablecert.harness.record.chain`);
* ``batches`` (file, op, first_tc, n, status): every batch done (``done``, ``unsupported``,
  ``partial``: some cases answered and some lost to a vendor fault, or ``fault``: none answered);
  a resumed run skips these;
* ``failures``: each failing vector with its inputs, expected and actual answers (an expected
  rejection as ``{"error": {"code": CODE}}``, the vendor's shape), and its comment (why the
  vector exists, from the suite's expected view);
* ``faults``: each vendor fault (crash, timeout, malformed answer ...) with the cases it hit
  (first tcId and count: the batch, a part of it while bisecting, or the one poisoned case) and
  whether a later attempt answered every one of those cases (``recovered``); a vendor that could
  not be started or greeted is a fault of op ``hello`` with no cases;
* ``fault_requests``: for each fault kind, the first request that met it (op, config, cases),
  replayed alone into a fresh vendor process from ``failures/fault.*.jsonl``;
* ``poisoned``: each case found to fault the vendor on its own (after retries, or isolated by
  bisection), with its inputs, so it can be replayed;
* ``hand_failures`` and ``hand_answers``: a hand suite's wrong hands as integer codes, and the
  text of its answers that are not a label (see :mod:`tablecert.harness.answers.hand_failures`);
  ``hand_causes`` (op, expected, actual, cause, n): how many of them each cause of each
  confusion cell has, added up as batches are written, so reports never scan the wrong hands;
* ``counts`` (dimension, key, outcome, n): vectors per op, clause and flag and outcome;
* ``confusion`` (op, expected, actual, n): expected x answered labels (hand labels, a craps
  settle's outcome, ``result`` or ``error:CODE``; :data:`tablecert.harness.answers.compare.CONFUSION_KEYS`).

Passing vectors are counted, not stored. Each batch's results and its ``batches`` row are written
in one transaction, so a run killed at any point (even with SIGKILL) resumes to exactly the
results of an uninterrupted run. A run's database can be given a ``before_commit`` step
(:attr:`RunDatabase.before_commit`), run inside every transaction the harness commits (a batch, a
meta value, a start fault) just before its COMMIT: the run key's checkpoint of the record as that
transaction leaves it (``meta`` key ``chain``, :mod:`tablecert.harness.record.chain`), so no row is
ever committed without the checkpoint that covers it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert.harness.run.outcomes import BatchStatus, Outcome
from tablecert.harness.record.run_folder import FILE_MODE, check_database_files

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
"""

OUTCOMES = tuple(o.value for o in Outcome)


class StorageError(Exception):
    """The run database cannot be opened or written (a full disk, a read-only folder): what was
    committed before is intact, and the run can be continued with ``--resume``."""


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """Whether the database has table ``name`` (a run database of an earlier release may not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def dumps(value: Any, **options: Any) -> str:
    """``value`` as JSON text that UTF-8 can hold (compact unless ``options`` say otherwise):
    characters as themselves, but all as ``\\u`` escapes when the value holds a lone surrogate
    (a vendor's JSON ``"\\udc80"``), which no UTF-8 text can hold."""
    options = {"separators": (",", ":"), **options}
    text = json.dumps(value, ensure_ascii=False, **options)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(value, **options)
    return text


ANSWER_STORED = 4096    # characters of one failing answer kept in the failures table


def stored_answer(value: Any, diagnosis: Callable[[], Mapping[str, Any]] | None = None) -> str:
    """A vendor's (failing) answer as stored: its JSON, or, beyond ANSWER_STORED characters, a JSON
    object saying it was cut and holding the start of it (the verdict was reached on all of it).
    **New:** ``diagnosis`` is called only when the answer is cut: what it returns, worked out on the
    whole answer before cutting (the verdict and the differing fields, see
    :func:`tablecert.harness.answers.causes.cut_diagnosis`), is stored with the cut text, so that a
    cut answer is never compared as if the vendor had sent it."""
    text = dumps(value)
    if len(text) <= ANSWER_STORED:
        return text
    return dumps({"tablecert_cut": f"answer of {len(text):,} characters cut to its first {ANSWER_STORED:,}",
                  "start": text[:ANSWER_STORED], **(diagnosis() if diagnosis is not None else {})})


def stored_expected(expected: dict[str, Any]) -> str:
    """A vector's expected value as stored with its failure: a result as ``{"result": R}``, an
    expected rejection in the vendor's own shape, ``{"error": {"code": CODE}}`` (so an expected
    and an answered rejection read alike)."""
    if isinstance(expected.get("error"), str):
        return dumps({"error": {"code": expected["error"]}})
    return dumps(expected)


@dataclass
class BatchOutcome:
    """What one batch adds to the database."""

    file: str
    op: str
    first_tc: int
    n: int
    status: str
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    confusion: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    failures: list[tuple[Any, ...]] = field(default_factory=list)
    faults: list[tuple[Any, ...]] = field(default_factory=list)
    poisoned: list[tuple[Any, ...]] = field(default_factory=list)
    fault_requests: list[tuple[Any, ...]] = field(default_factory=list)
    hand_failures: list[tuple[int, ...]] = field(default_factory=list)
    hand_answers: list[tuple[Any, ...]] = field(default_factory=list)
    hand_causes: Counter[tuple[int, int, int, int]] = field(default_factory=Counter)

    @property
    def failed(self) -> int:
        """How many vectors of this batch failed: its failure rows, or a hand batch's wrong hands
        (stored as ``hand_failures`` codes instead). Every run loop counts failures with this."""
        return len(self.failures) + len(self.hand_failures)


class RunDatabase:
    """The SQLite results of one run (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.before_commit: Callable[[], None] | None = None
        """Run inside every transaction this object commits, just before COMMIT (see the module)."""
        check_database_files(path)   # SQLite follows links: a planted one would put the database elsewhere
        with self._storage():
            created = not path.exists()
            self.db = sqlite3.connect(path, isolation_level=None)
            if created:             # the lab's user's only (its -wal and -shm files take its mode)
                os.chmod(path, FILE_MODE)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(faults)")}
            if "recovered" not in columns:          # a run database of an earlier release, resumed
                self.db.execute("ALTER TABLE faults ADD COLUMN recovered INTEGER NOT NULL DEFAULT 0")
            if "comment" not in {row[1] for row in self.db.execute("PRAGMA table_info(failures)")}:
                self.db.execute("ALTER TABLE failures ADD COLUMN comment TEXT NOT NULL DEFAULT ''")
            if (self.db.execute("SELECT 1 FROM hand_failures LIMIT 1").fetchone()
                    and not self.db.execute("SELECT 1 FROM hand_causes LIMIT 1").fetchone()):
                # wrong hands recorded by an earlier release, resumed: their causes counted once
                self.db.execute("INSERT INTO hand_causes SELECT op, expected, actual, cause, COUNT(*) "
                                "FROM hand_failures GROUP BY op, expected, actual, cause")

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _storage(self) -> Iterator[None]:
        """SQLite's errors while opening or writing, as one StorageError naming the file."""
        try:
            yield
        except sqlite3.Error as err:
            raise StorageError(f"{self.path}: {err}; what was recorded before is intact "
                               "(free the space or make the folder writable, then continue with --resume)") from None

    # -- meta
    def set_meta(self, **values: Any) -> None:
        with self._storage(), self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, dumps(v)) for k, v in values.items()])
            self._before_commit()

    def _before_commit(self) -> None:
        if self.before_commit is not None:
            self.before_commit()

    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM meta ORDER BY key")}

    # -- batches
    def done_batches(self) -> set[tuple[str, str, int]]:
        return {(f, o, t) for f, o, t in self.db.execute("SELECT file, op, first_tc FROM batches")}

    def record(self, outcome: BatchOutcome, then: Callable[[], None] | None = None) -> bool:
        """Write one batch's results atomically; a batch already recorded is left as it is (a batch
        executed twice counts once): False then. ``then`` runs in the transaction once the rows are
        written, before :attr:`before_commit` (the harness's own record of the batch)."""
        with self._storage():
            return self._record(outcome, then)

    def _record(self, outcome: BatchOutcome, then: Callable[[], None] | None) -> bool:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT 1 FROM batches WHERE file = ? AND op = ? AND first_tc = ?",
                          (outcome.file, outcome.op, outcome.first_tc)).fetchone():
                db.execute("ROLLBACK")
                return False
            db.execute("INSERT INTO batches VALUES (?, ?, ?, ?, ?)",
                       (outcome.file, outcome.op, outcome.first_tc, outcome.n, outcome.status))
            db.executemany(
                "INSERT INTO counts VALUES (?, ?, ?, ?) ON CONFLICT (dimension, key, outcome) DO UPDATE SET n = n + excluded.n",
                [(d, k, o, n) for (d, k, o), n in outcome.counts.items()])
            db.executemany(
                "INSERT INTO confusion VALUES (?, ?, ?, ?) ON CONFLICT (op, expected, actual) DO UPDATE SET n = n + excluded.n",
                [(op, e, a, n) for (op, e, a), n in outcome.confusion.items()])
            db.executemany("INSERT OR REPLACE INTO failures VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", outcome.failures)
            db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", outcome.faults)
            db.executemany("INSERT OR REPLACE INTO poisoned VALUES (?, ?, ?, ?, ?, ?, ?, ?)", outcome.poisoned)
            db.executemany("INSERT OR IGNORE INTO fault_requests VALUES (?, ?, ?, ?, ?, ?, ?)", outcome.fault_requests)
            db.executemany("INSERT INTO hand_failures VALUES (?, ?, ?, ?, ?, ?, ?)", outcome.hand_failures)
            db.executemany("INSERT OR REPLACE INTO hand_answers VALUES (?, ?, ?)", outcome.hand_answers)
            db.executemany(
                "INSERT INTO hand_causes VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (op, expected, actual, cause) DO UPDATE SET n = n + excluded.n",
                [(*cell, n) for cell, n in outcome.hand_causes.items()])
            if then is not None:
                then()
            self._before_commit()
            db.execute("COMMIT")
            return True
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def unanswered_runs(self) -> dict[str, int]:
        """Per op, how many of its last batches (in the order recorded) got no answer at all."""
        runs: dict[str, int] = {}
        for op, status in self.db.execute("SELECT op, status FROM batches ORDER BY rowid"):
            runs[op] = runs.get(op, 0) + 1 if status == BatchStatus.FAULT else 0
        return runs

    def op_timeouts(self) -> dict[str, int]:
        """Per op, how many timeouts it has cost the run (its ``timeout`` fault rows)."""
        return dict(self.db.execute("SELECT op, COUNT(*) FROM faults WHERE kind = 'timeout' GROUP BY op"))

    # -- reading
    def totals(self, dimension: str = "op") -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for key, outcome, n in self.db.execute(
                "SELECT key, outcome, n FROM counts WHERE dimension = ? ORDER BY key, outcome", (dimension,)):
            out.setdefault(key, {})[outcome] = n
        return out

    def outcome_totals(self) -> dict[str, int]:
        totals = {o: 0 for o in OUTCOMES}
        for outcome, n in self.db.execute("SELECT outcome, SUM(n) FROM counts WHERE dimension = 'op' GROUP BY outcome"):
            totals[outcome] = n
        return totals

    def failures(self, limit: int | None = None) -> Iterable[dict[str, Any]]:
        sql = "SELECT * FROM failures ORDER BY file, op, tc_id" + (f" LIMIT {int(limit)}" if limit else "")
        cols = ["file", "op", "tg_id", "tc_id", "config", "case", "expected", "actual", "flags", "clauses", "comment"]
        for row in self.db.execute(sql):
            rec = dict(zip(cols, row))
            for k in ("config", "case", "expected", "actual", "flags", "clauses"):
                rec[k] = json.loads(rec[k])
            yield rec

    def faults(self) -> list[dict[str, Any]]:
        cols = ["file", "op", "first_tc", "n", "attempt", "kind", "detail", "stderr_tail", "recovered"]
        return [dict(zip(cols, r), recovered=bool(r[8]))
                for r in self.db.execute(f"SELECT {', '.join(cols)} FROM faults ORDER BY rowid")]

    def fault_kinds(self) -> set[str]:
        """The fault kinds whose first request is kept (``fault_requests``)."""
        return {kind for (kind,) in self.db.execute("SELECT kind FROM fault_requests")}

    def fault_request_heads(self) -> dict[str, tuple[str, str, int, int]]:
        """Where the first request of each fault kind was: kind -> (file, op, first tcId, cases),
        without reading its cases."""
        return {k: (f, o, t, n) for k, f, o, t, n in self.db.execute(
            "SELECT kind, file, op, first_tc, n FROM fault_requests ORDER BY kind")}

    def fault_requests(self) -> list[dict[str, Any]]:
        """The first request that met each fault kind, by kind."""
        cols = ["kind", "file", "op", "first_tc", "n", "config", "cases"]
        out = []
        for row in self.db.execute(f"SELECT {', '.join(cols)} FROM fault_requests ORDER BY kind"):
            rec = dict(zip(cols, row))
            rec["config"], rec["cases"] = json.loads(rec["config"]), json.loads(rec["cases"])
            out.append(rec)
        return out

    def record_start_fault(self, kind: str, detail: str, stderr_tail: str,
                           then: Callable[[tuple[Any, ...]], None] | None = None) -> None:
        """A vendor that could not be started or greeted: a fault of op ``hello`` with no cases;
        ``then`` is given the row written, in the transaction (as :meth:`record`'s)."""
        row = ("", "hello", 0, 0, 1, kind, detail, stderr_tail, 0)
        with self._storage(), self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            if then is not None:
                then(row)
            self._before_commit()

    def poisoned(self) -> list[dict[str, Any]]:
        """The cases that fault the vendor on their own, in suite order."""
        cols = ["file", "op", "tg_id", "tc_id", "config", "case", "kind", "detail"]
        out = []
        for row in self.db.execute("SELECT * FROM poisoned ORDER BY file, op, tc_id"):
            rec = dict(zip(cols, row))
            rec["config"], rec["case"] = json.loads(rec["config"]), json.loads(rec["case"])
            out.append(rec)
        return out

    def confusion(self) -> dict[str, dict[str, dict[str, int]]]:
        out: dict[str, dict[str, dict[str, int]]] = {}
        for op, e, a, n in self.db.execute("SELECT op, expected, actual, n FROM confusion ORDER BY op, expected, actual"):
            out.setdefault(op, {}).setdefault(e, {})[a] = n
        return out

    def batch_statuses(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT status, COUNT(*) FROM batches GROUP BY status ORDER BY status").fetchall())
