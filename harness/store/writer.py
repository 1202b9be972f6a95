"""The one writer of run.db: what the Recorder, merging, sealing, the run key's checkpoints,
offline validation and the hand runner write, all through :class:`RunStore`.

Passing vectors are counted, not stored. Each batch's results and its ``batches`` row are written
in one transaction, so a run killed at any point (even with SIGKILL) resumes to exactly the
results of an uninterrupted run. A store can be given a ``before_commit`` step
(:attr:`RunStore.before_commit`), run inside every transaction it commits (a batch, a meta value,
a start fault) just before its COMMIT: the run key's checkpoint of the record as that transaction
leaves it (``meta`` key ``chain``, :mod:`tablecert.harness.record.chain`, written with
:meth:`RunStore.put_meta_in_transaction`), so no row is ever committed without the checkpoint
that covers it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tablecert.harness.model import BatchOutcome, Fault, dumps
from tablecert.harness.lab_files import FILE_MODE, check_database_files
from tablecert.harness.store.reader import RunReader
from tablecert.harness.store.schema import (create_or_migrate, failure_row, fault_request_row, fault_row,
                                            hand_answer_row, insert, live_failure_row, live_feature_rows,
                                            poisoned_row)


class StorageError(Exception):
    """The run database cannot be opened or written (a full disk, a read-only folder): what was
    committed before is intact, and the run can be continued with ``--resume``."""


class RunStore(RunReader):
    """The run database of one run folder, opened to write (see the module docstring); it reads
    as :class:`~tablecert.harness.store.reader.RunReader` does."""

    def __init__(self, path: Path) -> None:
        self.before_commit: Callable[[], None] | None = None
        """Run inside every transaction this object commits, just before COMMIT (see the module)."""
        check_database_files(path)   # SQLite follows links: a planted one would put the database elsewhere
        self.path = path
        with self._storage():
            created = not path.exists()
            db = sqlite3.connect(path, isolation_level=None)
            super().__init__(db, path)
            if created:             # the lab's user's only (its -wal and -shm files take its mode)
                os.chmod(path, FILE_MODE)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            create_or_migrate(db, path)

    @contextmanager
    def _storage(self) -> Iterator[None]:
        """SQLite's errors while opening or writing, as one StorageError naming the file."""
        try:
            yield
        except sqlite3.Error as err:
            raise StorageError(f"{self.path}: {err}; what was recorded before is intact "
                               "(free the space or make the folder writable, then continue with --resume)") from None

    def _before_commit(self) -> None:
        if self.before_commit is not None:
            self.before_commit()

    # -- meta
    def set_meta(self, **values: Any) -> None:
        with self._storage(), self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, dumps(v)) for k, v in values.items()])
            self._before_commit()

    def put_meta_in_transaction(self, key: str, value: Any) -> None:
        """Write one meta value inside the transaction being committed (a :attr:`before_commit` step)."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, dumps(value)))

    # -- the vendor's build
    def put_build(self, files: Iterable[tuple[str, str, int, int, str]], build: dict[str, Any]) -> None:
        """The vendor's build as bound: its files (path, kind, mode, size, sha256) in the listing's
        order, and the meta ``build`` (its signature ...), in one transaction replacing any before."""
        with self._storage(), self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM build_files")
            self.db.executemany(insert("build_files"), ((seq, *row) for seq, row in enumerate(files)))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", ("build", dumps(build)))
            self._before_commit()

    # -- batches
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
            self.add_rows(outcome)
            if then is not None:
                then()
            self._before_commit()
            db.execute("COMMIT")
            return True
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def add_rows(self, outcome: BatchOutcome, batch_row: bool = True) -> None:
        """The rows of ``outcome`` (and, with ``batch_row``, its ``batches`` row), in the open
        transaction (:meth:`record`'s, or :meth:`merging`'s)."""
        db = self.db
        if batch_row:
            db.execute(insert("batches"), (outcome.file, outcome.op, outcome.first_tc, outcome.n, outcome.status))
        db.executemany(
            "INSERT INTO counts VALUES (?, ?, ?, ?) ON CONFLICT (dimension, key, outcome) DO UPDATE SET n = n + excluded.n",
            [(d, k, o, n) for (d, k, o), n in outcome.counts.items()])
        db.executemany(
            "INSERT INTO confusion VALUES (?, ?, ?, ?) ON CONFLICT (op, expected, actual) DO UPDATE SET n = n + excluded.n",
            [(op, e, a, n) for (op, e, a), n in outcome.confusion.items()])
        db.executemany(insert("failures", "INSERT OR REPLACE"), map(failure_row, outcome.failures))
        db.executemany(insert("faults"), map(fault_row, outcome.faults))
        db.executemany(insert("poisoned", "INSERT OR REPLACE"), map(poisoned_row, outcome.poisoned))
        db.executemany(insert("fault_requests", "INSERT OR IGNORE"), map(fault_request_row, outcome.fault_requests))
        self.add_hand_failures(outcome.hand_failures)
        db.executemany(insert("hand_answers", "INSERT OR REPLACE"), map(hand_answer_row, outcome.hand_answers))
        db.executemany(
            "INSERT INTO hand_causes VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (op, expected, actual, cause) DO UPDATE SET n = n + excluded.n",
            [(*cell, n) for cell, n in outcome.hand_causes.items()])
        if outcome.live_failures:                   # a live batch's findings (no other batch has any)
            db.executemany(insert("live_failures", "INSERT OR REPLACE"), map(live_failure_row, outcome.live_failures))
        if outcome.live_features is not None:       # the run's: the union of its batches' (no read before)
            db.executemany(insert("live_features", "INSERT OR IGNORE"), live_feature_rows(outcome.live_features))

    def record_start_fault(self, kind: str, detail: str, stderr_tail: str,
                           then: Callable[[Fault], None] | None = None) -> None:
        """A vendor that could not be started or greeted: a fault of op ``hello`` with no cases;
        ``then`` is given the fault written, in the transaction (as :meth:`record`'s)."""
        fault = Fault("", "hello", 0, 0, 1, kind, detail, stderr_tail)
        with self._storage(), self.db:
            self.db.execute("BEGIN")
            self.db.execute(insert("faults"), fault_row(fault))
            if then is not None:
                then(fault)
            self._before_commit()

    def add_hand_failures(self, rows: Iterable[tuple[int, ...]]) -> None:
        """Wrong hands as codes (``hand_failures`` rows, read lazily), in the open transaction."""
        self.db.executemany(insert("hand_failures"), rows)

    @contextmanager
    def merging(self) -> Iterator[None]:
        """One transaction in which a merged run's rows are added (:meth:`add_rows`,
        :meth:`add_hand_failures`), copied in run order from its shards; committed at the end,
        rolled back on any error."""
        db = self.db
        with self._storage():
            db.execute("BEGIN IMMEDIATE")
            try:
                yield
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
