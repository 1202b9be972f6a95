"""The harness's own record of what a run judged, kept in memory, against which the run database
is checked before a verdict is written.

The run database lives in the run folder, on disk; the harness's memory does not. While a run
goes on, :class:`JudgedRecord` adds up what the harness itself recorded: the counts (per
dimension, key and outcome) and an order-free digest of every row it wrote to ``batches``,
``failures`` and ``faults`` (the sum, modulo 2^256, of each row's SHA-256), on top of what the
database held when this process opened it (a resumed run). Before the verdict is written,
:meth:`JudgedRecord.check` reads the database again and compares: a row added, removed or
changed by anything but the harness (a vendor that reached ``run.db``) makes the run refuse to
conclude. The record goes into ``summary.json`` (``judged``), and signing recomputes it from
``run.db`` (:func:`digest_of`), so a folder whose database was changed after the run no longer
matches its summary.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from typing import Any

from tablecert.harness.results import BatchOutcome, RunDatabase

MOD = 1 << 256
TABLES = {
    "batches": "file, op, first_tc, n, status",
    "failures": 'file, op, tg_id, tc_id, config, "case", expected, actual, flags, clauses, comment',
    "faults": "file, op, first_tc, n, attempt, kind, detail, stderr_tail, recovered",
    "hand_failures": "op, expected, actual, cause, simplicity, tc_id, features",
    "hand_answers": "op, tc_id, actual",
}


class TamperedRunDatabase(Exception):
    """The run database no longer holds what the harness recorded (one-line message)."""


def _row(row: Iterable[Any]) -> int:
    return int.from_bytes(hashlib.sha256(repr(tuple(row)).encode("utf-8")).digest(), "big")


def _sums(db: RunDatabase) -> dict[str, int]:
    return {table: sum((_row(r) for r in db.db.execute(f"SELECT {cols} FROM {table}")), 0) % MOD
            for table, cols in TABLES.items()}


def _counts(db: RunDatabase) -> Counter[tuple[str, str, str]]:
    return Counter({(d, k, o): n for d, k, o, n in db.db.execute("SELECT dimension, key, outcome, n FROM counts")
                    if n})


def digest_of(sums: dict[str, int], counts: Counter[tuple[str, str, str]]) -> dict[str, Any]:
    """The record as written to ``summary.json``: rows per table digest and the counts' digest."""
    count_digest = hashlib.sha256(repr(sorted(counts.items())).encode("utf-8")).hexdigest()
    return {**{table: f"{value:064x}" for table, value in sorted(sums.items())}, "counts": count_digest}


def database_digest(db: RunDatabase) -> dict[str, Any]:
    """The same record, recomputed from a run database alone (what signing compares)."""
    return digest_of(_sums(db), _counts(db))


class JudgedRecord:
    """What the harness recorded in one run (see the module docstring)."""

    def __init__(self, db: RunDatabase) -> None:
        self.sums = _sums(db)
        self.counts = _counts(db)
        self.batches = 0

    def add(self, outcome: BatchOutcome) -> None:
        """Account for one batch, exactly as it is written to the database."""
        self.batches += 1
        self.sums["batches"] = (self.sums["batches"] + _row((outcome.file, outcome.op, outcome.first_tc, outcome.n,
                                                            outcome.status))) % MOD
        for table, rows in (("failures", outcome.failures), ("faults", outcome.faults),
                            ("hand_failures", outcome.hand_failures), ("hand_answers", outcome.hand_answers)):
            self.sums[table] = (self.sums[table] + sum((_row(r) for r in rows), 0)) % MOD
        self.counts.update({k: n for k, n in outcome.counts.items() if n})

    def add_fault(self, row: tuple[Any, ...]) -> None:
        """Account for a fault row written outside a batch (a vendor never greeted)."""
        self.sums["faults"] = (self.sums["faults"] + _row(row)) % MOD

    def check(self, db: RunDatabase, meta: dict[str, Any]) -> dict[str, Any]:
        """The record, after checking the database holds exactly it and the ``meta`` values the
        harness holds in memory (those the verdict reads); TamperedRunDatabase if not."""
        sums, counts = _sums(db), _counts(db)
        changed = [table for table in TABLES if sums[table] != self.sums[table]]
        if counts != self.counts:
            changed.append("counts")
        stored = db.meta()
        changed += [f"meta {key}" for key, value in meta.items() if stored.get(key) != value]
        if changed:
            raise TamperedRunDatabase(
                f"{db.path}: the run database no longer holds what the harness recorded (changed: "
                f"{', '.join(changed)}); something outside tablecert wrote to it during the run, so no verdict "
                "is written (run the vendor confined, --isolation auto, in a new run folder)")
        return digest_of(self.sums, self.counts)
