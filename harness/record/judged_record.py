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

A hand suite's wrong hands (``hand_failures``) can number hundreds of millions (a vendor wrong on
every hand of ``exhaustive``: 308,286,160 rows), too many to hash row by row in Python, so that
table is fingerprinted instead (:mod:`tablecert.harness.record.hand_fingerprint`): its row count and
sums, modulo nothing, of products of two linear forms of each row's codes modulo 2^31 - 1, which
SQLite computes in one aggregate scan and numpy as each batch is written. The harness checks the
database with lanes whose coefficients are drawn at random for this process and never written
anywhere (a vendor cannot aim a change at them); ``summary.json`` gets lanes of fixed
coefficients, which signing and merging recompute. The causes counted per cell
(``hand_causes``) are checked like the counts.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from typing import Any

from tablecert.harness.record.hand_fingerprint import PUBLIC, Fingerprint, database_fingerprint, secret_lanes
from tablecert.harness.model import BatchOutcome, Fault
from tablecert.harness.store import RunReader, schema

MOD = 1 << 256
TABLES = ("batches", "failures", "faults", "hand_answers")
"""Tables digested row by row (each row's SHA-256, summed; its columns in the schema's order)."""
LEGACY = ("hand_failures",)
"""Digested row by row by the release before (checked that way in a summary it wrote)."""


class TamperedRunDatabase(Exception):
    """The run database no longer holds what the harness recorded (one-line message)."""


def _row(row: Iterable[Any]) -> int:
    return int.from_bytes(hashlib.sha256(repr(tuple(row)).encode("utf-8")).digest(), "big")


def _sums(db: RunReader, tables: tuple[str, ...] = TABLES) -> dict[str, int]:
    return {table: sum((_row(r) for r in db.stored_rows(table)), 0) % MOD for table in tables}


def _counts(db: RunReader) -> Counter[tuple[str, str, str]]:
    return db.counts()


def _causes(db: RunReader) -> Counter[tuple[int, ...]]:
    return Counter({(g.op, g.expected, g.actual, g.cause): g.n for g in db.hand_causes() if g.n})


def _digest(value: Counter[Any]) -> str:
    return hashlib.sha256(repr(sorted(value.items())).encode("utf-8")).hexdigest()


def _hex(sums: dict[str, int]) -> dict[str, str]:
    return {table: f"{value:064x}" for table, value in sorted(sums.items())}


def row_digests(db: RunReader, tables: tuple[str, ...]) -> dict[str, str]:
    """Each table's order-free digest of its rows (the columns named), as hex: what the run seal
    covers of the tables this record leaves out (:mod:`tablecert.harness.record.seal`)."""
    return _hex(_sums(db, tables))


def digest_of(sums: dict[str, int], counts: Counter[tuple[str, str, str]], hands: Fingerprint,
              causes: Counter[tuple[int, ...]]) -> dict[str, Any]:
    """The record as written to ``summary.json``: rows per table digest, the wrong hands'
    fingerprint (fixed lanes) and the digests of the counts and of the hand causes."""
    return {**_hex(sums), "hand_failures": hands.text(),
            "hand_causes": _digest(causes), "counts": _digest(counts)}


def database_digest(db: RunReader, recorded: dict[str, Any] | None = None) -> dict[str, Any]:
    """The same record, recomputed from a run database alone (what signing and merging compare).
    ``recorded``: the record to compare with; one written by the release before (wrong hands
    digested row by row, no hand causes) is recomputed that way."""
    if isinstance(recorded, dict) and "hand_causes" not in recorded:
        return {**_hex(_sums(db, TABLES + LEGACY)), "counts": _digest(_counts(db))}
    return digest_of(_sums(db), _counts(db), database_fingerprint(db.path, PUBLIC), _causes(db))


class JudgedRecord:
    """What the harness recorded in one run (see the module docstring)."""

    def __init__(self, db: RunReader) -> None:
        self.sums = _sums(db)
        self.counts = _counts(db)
        self.causes = _causes(db)
        self.lanes = secret_lanes()
        self.hands = database_fingerprint(db.path, PUBLIC + self.lanes)
        self.batches = 0

    def add(self, outcome: BatchOutcome) -> None:
        """Account for one batch, exactly as it is written to the database."""
        self.batches += 1
        # status and outcomes as the plain strings the database gives back (an Outcome or a
        # BatchStatus is its value, but its repr is not): the digests are of what is stored
        self.sums["batches"] = (self.sums["batches"] + _row((outcome.file, outcome.op, outcome.first_tc, outcome.n,
                                                            str(outcome.status)))) % MOD
        for table, rows in (("failures", map(schema.failure_row, outcome.failures)),
                            ("faults", map(schema.fault_row, outcome.faults)),
                            ("hand_answers", map(schema.hand_answer_row, outcome.hand_answers))):
            self.sums[table] = (self.sums[table] + sum((_row(r) for r in rows), 0)) % MOD
        if outcome.hand_failures:
            self.hands = self.hands.plus(outcome.hand_failures)
        self.counts.update({(d, k, str(o)): n for (d, k, o), n in outcome.counts.items() if n})
        self.causes.update({k: n for k, n in outcome.hand_causes.items() if n})

    def add_fault(self, fault: Fault) -> None:
        """Account for a fault written outside a batch (a vendor never greeted)."""
        self.sums["faults"] = (self.sums["faults"] + _row(schema.fault_row(fault))) % MOD

    def check(self, db: RunReader, meta: dict[str, Any]) -> dict[str, Any]:
        """The record, after checking the database holds exactly it and the ``meta`` values the
        harness holds in memory (those the verdict reads); TamperedRunDatabase if not."""
        sums, counts = _sums(db), _counts(db)
        changed = [table for table in TABLES if sums[table] != self.sums[table]]
        if database_fingerprint(db.path, self.lanes) != self.hands.only(self.lanes):
            changed.append("hand_failures")
        if _causes(db) != self.causes:
            changed.append("hand_causes")
        if counts != self.counts:
            changed.append("counts")
        stored = db.meta()
        changed += [f"meta {key}" for key, value in meta.items() if stored.get(key) != value]
        if changed:
            raise TamperedRunDatabase(
                f"{db.path}: the run database no longer holds what the harness recorded (changed: "
                f"{', '.join(changed)}); something outside tablecert wrote to it during the run, so no verdict "
                "is written (run the vendor confined, --isolation auto, in a new run folder)")
        return self.digest()

    def digest(self) -> dict[str, Any]:
        """The record as it stands, as written to ``summary.json`` (:func:`digest_of`; the fixed
        lanes only): what the run key's checkpoints sign (:mod:`tablecert.harness.record.chain`)."""
        return digest_of(self.sums, self.counts, self.hands.only(PUBLIC), self.causes)
