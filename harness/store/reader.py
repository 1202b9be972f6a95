"""The one reader of run.db: typed records (:mod:`tablecert.harness.model`) and small typed rows,
never a connection, a tuple of columns or a dict of a row.

:func:`open_reader` opens a run folder's database read-only for reports, diffs, signing and
merging (immutable when the folder is on read-only media); the writer
(:class:`~tablecert.harness.store.writer.RunStore`) is a reader too, reading inside its own
transactions. A database of the previous release (schema version 0) is read as it is: what it
lacks reads as empty (see :mod:`tablecert.harness.store.schema`).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert.harness.model import (OUTCOMES, BatchOutcome, BatchStatus, Failure, Fault, FaultRequest, HandAnswer,
                                     LiveFailure, LiveFeatures, PoisonedCase, RunMeta, with_live_features)
from tablecert.harness.store.schema import COLUMNS, check_version, columns_of, has_table


FAILURE_COLUMNS = ", ".join(COLUMNS["failures"])


class UnreadableRun(ValueError):
    """A run folder whose database cannot be read (one-line message naming it)."""


DatabaseError = sqlite3.DatabaseError
"""What a read of a database that opened but is damaged raises (a reader catches it by this name)."""


@dataclass(frozen=True)
class Refused:
    """Failures answered with an error object on tables (game, config JSON) or craps bets refused
    as a whole (:mod:`tablecert.reports.refusals`): the reader leaves them out of a count or picks
    them out."""

    tables: tuple[tuple[str, str], ...] = ()
    bets: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tables or self.bets)


@dataclass(frozen=True)
class StoredFailure:
    """A failure with its place in run order (``rowid``) and the size of its case (characters)."""

    rowid: int
    failure: Failure

    @property
    def size(self) -> int:
        return len(self.failure.case)


@dataclass(frozen=True)
class FailureHead:
    """Where a failure is, without its values: run-order position, flag set (JSON text), file,
    op, test group, tcId and the size of its case."""

    rowid: int
    flags: str
    file: str
    op: str
    tg_id: int
    tc_id: int
    size: int


@dataclass(frozen=True)
class RefusedAnswer:
    """A failure in a refusal class: its op, place, flags (JSON text) and the error code answered."""

    op: str
    file: str
    tc_id: int
    flags: str
    code: Any


@dataclass(frozen=True)
class ConfusionCell:
    op: str
    expected: str
    actual: str
    n: int


@dataclass(frozen=True)
class FaultGroup:
    """Faults of one kind (and one detail, when grouped by it): how many, the vectors they hit,
    how many were recovered, and the first of them."""

    kind: str
    count: int
    vectors: int
    recovered: int
    first: Fault


@dataclass(frozen=True)
class HandCause:
    """How many wrong hands of ``op`` (codes) one cause of one confusion cell has."""

    op: int
    expected: int
    actual: int
    cause: int
    n: int


@dataclass(frozen=True)
class PlainHand:
    simplicity: int
    tc_id: int
    features: int


def _refused_sql(refused: Refused) -> tuple[str, list[Any]]:
    """SQL over ``failures``, true for a failure in one of ``refused``'s classes, and its parameters."""
    table_sql = " OR ".join(["(substr(op, 1, length(?)) = ? AND config = ?)"] * len(refused.tables)) or "0"
    params: list[Any] = [p for game, config in refused.tables for p in (game + ".", game + ".", config)]
    bet_sql = (f"(substr(op, 1, 6) = 'craps.' AND json_valid(\"case\") AND json_extract(\"case\", '$.bet') IN "
               f"({', '.join('?' * len(refused.bets))}))") if refused.bets else "0"
    return f"({REFUSED_ANSWER} AND (({table_sql}) OR {bet_sql}))", params + list(refused.bets)


REFUSED_ANSWER = "json_valid(actual) AND json_type(actual, '$.error') = 'object'"
"""A failure answered with an error object (whatever was expected)."""


class RunReader:
    """Typed reads of one run database (see the module docstring)."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db, self.path = db, path

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> RunReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _has(self, table: str) -> bool:
        return has_table(self.db, table)

    # -- meta and batches
    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM meta ORDER BY key")}

    def run_meta(self) -> RunMeta:
        """The meta as typed fields (:class:`~tablecert.harness.model.RunMeta`)."""
        return RunMeta.of(self.meta())

    def meta_text(self, leaving_out: Iterable[str] = ()) -> list[tuple[str, str]]:
        """The meta rows as stored (key, JSON text) in key order, but those of ``leaving_out``."""
        out = list(leaving_out)
        return self.db.execute(f"SELECT key, value FROM meta WHERE key NOT IN ({', '.join('?' * len(out))}) "
                               "ORDER BY key", out).fetchall()

    def done_batches(self) -> set[tuple[str, str, int]]:
        return {(f, o, t) for f, o, t in self.db.execute("SELECT file, op, first_tc FROM batches")}

    def batch_size_of(self, file: str) -> int | None:
        """How many cases the first batch of ``file`` held (None: none recorded)."""
        row = self.db.execute("SELECT n FROM batches WHERE file = ? AND first_tc = 1 LIMIT 1", (file,)).fetchone()
        return None if row is None else int(row[0])

    def batch_statuses(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT status, COUNT(*) FROM batches GROUP BY status ORDER BY status").fetchall())

    def unanswered_runs(self) -> dict[str, int]:
        """Per op, how many of its last batches (in the order recorded) got no answer at all."""
        runs: dict[str, int] = {}
        for op, status in self.db.execute("SELECT op, status FROM batches ORDER BY rowid"):
            runs[op] = runs.get(op, 0) + 1 if status == BatchStatus.FAULT else 0
        return runs

    def is_empty(self) -> bool:
        """Nothing recorded at all: no meta and no row in any table (a run killed as it began)."""
        tables = [name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return not any(self.db.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone() for name in tables)

    # -- counts
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

    def counts(self) -> Counter[tuple[str, str, str]]:
        """Every non-zero count: (dimension, key, outcome) -> n."""
        return Counter({(d, k, o): n for d, k, o, n in self.db.execute("SELECT dimension, key, outcome, n FROM counts")
                        if n})

    def confusion(self) -> dict[str, dict[str, dict[str, int]]]:
        out: dict[str, dict[str, dict[str, int]]] = {}
        for cell in self.confusion_cells():
            out.setdefault(cell.op, {}).setdefault(cell.expected, {})[cell.actual] = cell.n
        return out

    def confusion_cells(self) -> list[ConfusionCell]:
        return [ConfusionCell(*row) for row in self.db.execute(
            "SELECT op, expected, actual, n FROM confusion ORDER BY op, expected, actual")]

    def stored_rows(self, table: str) -> Iterator[tuple[Any, ...]]:
        """Every row of ``table`` as stored, its columns in the schema's order (what the judged
        record and the seal digest, and merging copies)."""
        if self._has(table):
            yield from self.db.execute(f"SELECT {', '.join(COLUMNS[table])} FROM {table}")

    # -- failures
    def failure_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM failures").fetchone()[0])

    def failing_ops(self) -> set[str]:
        return {op for (op,) in self.db.execute("SELECT DISTINCT op FROM failures")}

    def _failure_columns(self) -> str:
        return FAILURE_COLUMNS if "comment" in columns_of(self.db, "failures") else FAILURE_COLUMNS[:-len(", comment")]

    def failures(self, limit: int | None = None) -> Iterator[Failure]:
        """The failures in suite order (file, op, tcId), the first ``limit`` of them."""
        sql = f"SELECT {self._failure_columns()} FROM failures ORDER BY file, op, tc_id"
        for row in self.db.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()):
            yield Failure(*row)

    def failure_at(self, rowid: int) -> StoredFailure:
        row = self.db.execute(f"SELECT {self._failure_columns()} FROM failures WHERE rowid = ?", (rowid,)).fetchone()
        return StoredFailure(rowid, Failure(*row))

    def failure_heads(self, after: int, flag_sets: list[str], leaving_out: Refused = Refused()) -> Iterator[FailureHead]:
        """In run order, the failures after ``after`` whose flag set (JSON text) is one of
        ``flag_sets``, without those of ``leaving_out`` (read lazily: stop when you have enough)."""
        skip, skipped = _refused_sql(leaving_out) if leaving_out else ("0", [])
        cursor = self.db.execute('SELECT rowid, flags, file, op, tg_id, tc_id, length("case") FROM failures '
                                 f"WHERE rowid > ? AND flags IN ({', '.join('?' * len(flag_sets))}) AND NOT {skip} "
                                 "ORDER BY rowid", [after, *flag_sets, *skipped])
        try:
            for row in cursor:
                yield FailureHead(*row)
        finally:
            cursor.close()

    def failures_by_flag_set(self, leaving_out: Refused = Refused()) -> list[tuple[str, str, int]]:
        """(op, flag set as JSON text, failures) of every op and flag set, without ``leaving_out``'s."""
        skip, params = _refused_sql(leaving_out) if leaving_out else ("0", [])
        return self.db.execute(f"SELECT op, flags, COUNT(*) FROM failures WHERE NOT {skip} "
                               "GROUP BY op, flags ORDER BY flags, op", params).fetchall()

    def refused_answers(self, game: str | None, config: str | None, bet: str | None,
                        besides: Refused = Refused()) -> list[RefusedAnswer]:
        """The failures answered with an error on the table (``game``, ``config``) or, with ``bet``,
        on that craps bet outside the tables of ``besides``, in suite order."""
        if bet is None:
            where, params = "(substr(op, 1, length(?)) = ? AND config = ?)", [f"{game}.", f"{game}.", config]
        else:
            table_sql, table_params = _refused_sql(Refused(besides.tables)) if besides.tables else ("0", [])
            where = ("(substr(op, 1, 6) = 'craps.' AND json_valid(\"case\") AND json_extract(\"case\", '$.bet') = ? "
                     f"AND NOT {table_sql})")
            params = [bet, *table_params]
        return [RefusedAnswer(*row) for row in self.db.execute(
            f"SELECT op, file, tc_id, flags, json_extract(actual, '$.error.code') FROM failures "
            f"WHERE {REFUSED_ANSWER} AND {where} ORDER BY file, op, tc_id", params)]

    # -- faults
    def _fault_columns(self) -> str:
        recovered = "recovered" if "recovered" in columns_of(self.db, "faults") else "0"
        return ", ".join(COLUMNS["faults"][:-1]) + f", {recovered}"

    def _fault(self, row: tuple[Any, ...]) -> Fault:
        return Fault(*row[:-1], recovered=bool(row[-1]))

    def faults(self) -> list[Fault]:
        return [self._fault(r) for r in self.db.execute(f"SELECT {self._fault_columns()} FROM faults ORDER BY rowid")]

    def fault_at(self, rowid: int) -> Fault:
        return self._fault(self.db.execute(f"SELECT {self._fault_columns()} FROM faults WHERE rowid = ?",
                                           (rowid,)).fetchone())

    def start_faults(self) -> list[Fault]:
        """The faults of a vendor never started or greeted (op ``hello``, no cases)."""
        return [self._fault(r) for r in self.db.execute(
            f"SELECT {self._fault_columns()} FROM faults WHERE op = 'hello' AND n = 0 ORDER BY rowid")]

    def batch_record(self, file: str, op: str, first_tc: int, n: int) -> BatchOutcome:
        """A recorded batch (its ``batches`` row; its cases ``first_tc`` to ``first_tc + n - 1``)
        with the failures, faults, poisoned cases and fault requests of those cases, each in the
        order recorded; no counts (those are the run's, not the batch's)."""
        size, status = self.db.execute("SELECT n, status FROM batches WHERE file = ? AND op = ? AND first_tc = ?",
                                       (file, op, first_tc)).fetchone()
        within = (file, op, first_tc, first_tc + n)

        def rows(table: str, columns: str, col: str) -> list[tuple[Any, ...]]:
            if not self._has(table):
                return []
            return self.db.execute(f"SELECT {columns} FROM {table} WHERE file = ? AND op = ? AND {col} >= ? "
                                   f"AND {col} < ? ORDER BY rowid", within).fetchall()
        return BatchOutcome(
            file, op, first_tc, size, status,
            failures=[Failure(*r) for r in rows("failures", self._failure_columns(), "tc_id")],
            faults=[self._fault(r) for r in rows("faults", self._fault_columns(), "first_tc")],
            poisoned=[PoisonedCase(*r) for r in rows("poisoned", ", ".join(COLUMNS["poisoned"]), "tc_id")],
            fault_requests=[FaultRequest(*r) for r in rows("fault_requests", ", ".join(COLUMNS["fault_requests"]),
                                                           "first_tc")],
            live_failures=[LiveFailure(*r) for r in rows("live_failures", ", ".join(COLUMNS["live_failures"]), "tc_id")])

    def fault_kinds_met(self) -> set[str]:
        """Every fault kind the run met."""
        return {kind for (kind,) in self.db.execute("SELECT DISTINCT kind FROM faults")}

    def op_timeouts(self) -> dict[str, int]:
        """Per op, how many timeouts it has cost the run (its ``timeout`` faults)."""
        return dict(self.db.execute("SELECT op, COUNT(*) FROM faults WHERE kind = 'timeout' GROUP BY op"))

    def fault_groups(self, by_detail: bool = False, limit: int | None = None) -> list[FaultGroup]:
        """Faults grouped by kind (and ``by_detail``: by kind and detail, in the order first met,
        the first ``limit``; else in kind order)."""
        recovered = "SUM(recovered)" if "recovered" in columns_of(self.db, "faults") else "0"
        group, order = ("kind, detail", "first") if by_detail else ("kind", "kind")
        rows = self.db.execute(f"SELECT kind, COUNT(*), SUM(n), {recovered}, MIN(rowid) AS first FROM faults "
                               f"GROUP BY {group} ORDER BY {order}" + (" LIMIT ?" if limit else ""),
                               (limit,) if limit else ()).fetchall()
        return [FaultGroup(kind, count, vectors or 0, back or 0, self.fault_at(first))
                for kind, count, vectors, back, first in rows]

    def fault_kinds(self) -> set[str]:
        """The fault kinds whose first request is kept (``fault_requests``)."""
        return {r.kind for r in self.fault_requests(heads=True)}

    def fault_requests(self, heads: bool = False) -> list[FaultRequest]:
        """The first request that met each fault kind, by kind (``heads``: without config and cases)."""
        if not self._has("fault_requests"):
            return []
        values = "config, cases" if not heads else "'', ''"
        return [FaultRequest(*row) for row in self.db.execute(
            f"SELECT kind, file, op, first_tc, n, {values} FROM fault_requests ORDER BY kind")]

    def poisoned_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM poisoned").fetchone()[0]) if self._has("poisoned") else 0

    def poisoned(self, limit: int | None = None) -> list[PoisonedCase]:
        """The cases that fault the vendor on their own, in suite order (the first ``limit``)."""
        if not self._has("poisoned"):
            return []
        return [PoisonedCase(*row) for row in self.db.execute(
            f"SELECT {', '.join(COLUMNS['poisoned'])} FROM poisoned ORDER BY file, op, tc_id"
            + (" LIMIT ?" if limit else ""), (limit,) if limit else ())]

    # -- a hand suite's wrong hands
    def has_hand_failures(self) -> bool:
        return self._has("hand_failures")

    def hand_causes(self) -> list[HandCause]:
        """Every cause of every confusion cell with its wrong hands, from the counts kept as the
        batches were written (no scan of the wrong hands; one grouped scan for a database of the
        release that kept none)."""
        if not self.has_hand_failures():
            return []
        if not self._has("hand_causes"):
            rows = self.db.execute("SELECT op, expected, actual, cause, COUNT(*) FROM hand_failures "
                                   "GROUP BY op, expected, actual, cause")
        else:
            rows = self.db.execute("SELECT op, expected, actual, cause, n FROM hand_causes WHERE n > 0 "
                                   "ORDER BY op, expected, actual, cause")
        return [HandCause(*row) for row in rows]

    def plainest(self, op: int, expected: int, actual: int, cause: int, limit: int) -> list[PlainHand]:
        """The ``limit`` plainest hands of a cause of a cell, read along the table's key (no scan)."""
        return [PlainHand(*row) for row in self.db.execute(
            "SELECT simplicity, tc_id, features FROM hand_failures WHERE op = ? AND expected = ? "
            "AND actual = ? AND cause = ? ORDER BY simplicity, tc_id LIMIT ?", (op, expected, actual, cause, limit))]

    def build_files(self) -> Iterator[tuple[str, str, int, int, str]]:
        """The vendor's build as bound: (path, kind, mode, size, sha256) in the listing's order
        (nothing for a run of an earlier schema, or of a vendor whose files were not bound)."""
        if not self._has("build_files"):
            return iter(())
        return iter(self.db.execute("SELECT path, kind, mode, size, sha256 FROM build_files ORDER BY seq"))

    # -- the live tables' findings and features
    def live_failures(self) -> list[LiveFailure]:
        """Every failing live vector's finding, in suite order (file, op, tcId): the rows of
        ``live_failures`` and, of a run begun by a release before schema 3, those 1.1.0 kept in the
        meta ``live_failures`` (by "file tcId"; the op read from the vector's ``failures`` row)."""
        found: dict[tuple[str, str, int], LiveFailure] = {}
        kept = self.run_meta().live_failures
        for key, detail in (kept or {}).items():
            file, _, tc = str(key).rpartition(" ")
            row = self.db.execute("SELECT op FROM failures WHERE file = ? AND tc_id = ? ORDER BY op LIMIT 1",
                                  (file, int(tc))).fetchone() if tc.isdigit() else None
            if row is not None and isinstance(detail, dict):
                found[(file, row[0], int(tc))] = LiveFailure.of(file, row[0], int(tc), detail)
        if self._has("live_failures"):
            for row in self.db.execute(f"SELECT {', '.join(COLUMNS['live_failures'])} FROM live_failures"):
                found[row[:3]] = LiveFailure(*row)
        return [found[key] for key in sorted(found)]

    def live_features(self) -> LiveFeatures | None:
        """The live table features of the run (None: no station or pai gow table was played): the
        rows of ``live_features``, with, of a run begun before schema 3, the meta ``live``'s
        ``features`` (1.1.0's, of the batches it played)."""
        live = self.run_meta().live or {}
        found = LiveFeatures.of(live["features"]) if isinstance(live.get("features"), dict) else None
        if self._has("live_features"):
            roles: dict[str, list[str]] = {}
            for role, name in self.db.execute("SELECT role, feature FROM live_features ORDER BY role, seq, feature"):
                roles.setdefault(role, []).append(name)
            if roles:
                rows = LiveFeatures(*(tuple(roles.get(role, ())) for role in LiveFeatures.ROLES))
                found = rows if found is None else found | rows
        return found

    def live_record(self) -> dict[str, Any] | None:
        """The run's ``live`` meta with its features (:meth:`live_features`) in it, as summary.json's
        ``live`` has it (None: no live table was met)."""
        live = self.run_meta().live
        return None if not live else with_live_features(live, self.live_features())

    def hand_answers(self) -> list[HandAnswer]:
        if not self._has("hand_answers"):
            return []
        return [HandAnswer(*row) for row in self.db.execute("SELECT op, tc_id, actual FROM hand_answers")]

    def hand_failure_sums(self, forms: list[tuple[tuple[int, ...], tuple[int, ...]]], modulus: int,
                          first_op: bool) -> tuple[int, ...]:
        """(rows, then for each pair of linear forms of a wrong hand's codes the sum of their
        product modulo ``modulus``) over the ``hand_failures`` rows of op code 0 (``first_op``) or
        of the others: one aggregate scan (:mod:`tablecert.harness.record.hand_fingerprint`)."""
        if not self.has_hand_failures():
            return (0,) * (1 + len(forms))
        columns = COLUMNS["hand_failures"]

        def form(c: tuple[int, ...]) -> str:
            return "((" + " + ".join(f"{col} * {int(a)}" for col, a in zip(columns, c)) + f" + {int(c[-1])}) % {modulus})"
        sums = "".join(f", SUM({form(left)} * {form(right)} % {modulus})" for left, right in forms)
        where = "op < 1" if first_op else "NOT (op < 1)"
        row = self.db.execute(f"SELECT COUNT(*){sums} FROM hand_failures WHERE {where}").fetchone()
        return tuple(0 if v is None else v for v in row)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """``path`` opened to read only (``query_only``); on read-only media (SQLite cannot make its
    lock files there) as immutable, when no write-ahead log is beside it (then the file is the
    whole database)."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA query_only = 1")
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        db.close()
    wal = path.with_name(path.name + "-wal")
    if wal.is_file() and wal.stat().st_size:
        raise UnreadableRun(f"{path}: cannot be opened and has a write-ahead log beside it; copy the run folder "
                            "to a writable place and try again")
    return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)


def open_reader(path: Path) -> RunReader:
    """The run database at ``path`` opened read-only (UnreadableRun, one line, when it is not a
    SQLite database; SchemaError when it is of a later release). A database killed before its
    tables were written opens (:meth:`RunReader.is_empty`); reading a table it lacks raises
    :data:`DatabaseError`."""
    try:
        db = _connect_read_only(Path(path))
    except sqlite3.Error as err:
        raise UnreadableRun(f"{path}: not a readable run database ({err})") from None
    try:
        check_version(db, path)
    except sqlite3.Error as err:
        db.close()
        raise UnreadableRun(f"{path}: not a readable run database ({err})") from None
    except BaseException:
        db.close()
        raise
    return RunReader(db, Path(path))


def concluded_meta(path: Path, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """Those ``keys`` of the meta of the run database at ``path``, read without writing anything
    (opened immutable: no lock, journal or WAL file made, no time stamp changed); None when it
    cannot be read."""
    try:
        db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?immutable=1", uri=True)
        try:
            return {k: json.loads(v) for k, v in db.execute(
                f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(keys))})", keys)}
        finally:
            db.close()
    except (sqlite3.Error, ValueError):
        return None
