"""The reference vendor's live tables, kept the way a production engine keeps them: an
append-only journal in the ``state_dir`` the harness gave in ``hello``, each entry written with
one ``write`` and ``fsync``'d before the answer is sent, and replayed when the vendor starts.

Each entry is one JSON line: ``{"open": ID, "config": ..., "rack": int}`` (and ``"game":
"paigow"`` for a pai gow table; a station table, New: ``{"open": ID, "config": ..., "stations":
[...], "on_disable": ...}``), ``{"step": ID, "seq": int, "act": STEP}`` (a station table's with
``"at"``: the vendor's clock when it was played, so a restart recalls the same times; New, a pai
gow table's too when the hello declared ``paigow_records``, the journal's ``features``; a
disconnect, reconnect, disable or enable is a step of its own act) or ``{"close": ID}``; and,
New, ``{"snapshot": ID, "state": ...}``: a station table as it stood, which replaces its steps
before it when the journal is compacted (every :data:`COMPACT_EVERY` steps of the table:
:meth:`TableJournal.compact`). A step is journaled (its input: the oracle's play is a
pure function of the steps) before it is applied in memory and answered, so a vendor killed at
any instant has applied it wholly (the entry is in the journal: the replay applies it) or not at
all (it is not); a last line cut short by the kill was never acknowledged and is dropped (the
file is truncated to its last whole line); the entries of a table since closed are skipped. A
step whose ``seq`` is not the number of steps the table has played is refused
(``out_of_sequence``): a step sent again is never applied twice.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from typing import Any

from tablecert.oracle.craps_round import MAX_AMOUNT
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle import live_stations
from tablecert.oracle.live_stations import OP_OF_ACT, LiveStationTable
from tablecert.oracle.live_tables import GAMES, LiveTable
from tablecert.oracle.paigow_records import FEATURE as PAIGOW_RECORDS, RecordedPaigowTable
from tablecert.oracle.table_config import is_int

JOURNAL = "tables.journal"
COMPACT_EVERY = 64
"""A station table's steps between two compactions of the journal."""
STATION_OPS = ("table.meters", *OP_OF_ACT.values())
"""The live ops of station tables only (New)."""
TABLE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")


def live_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries of the tables still open: those of a table closed later (an id may be opened
    again after its close) change nothing and are not played again."""
    closing: set[str] = set()
    kept = []
    for entry in reversed(entries):
        table_id = entry.get("open", entry.get("step", entry.get("close", entry.get("snapshot"))))
        if "close" in entry:
            closing.add(table_id)
        elif table_id not in closing:
            kept.append(entry)
        if "open" in entry:
            closing.discard(table_id)
    return kept[::-1]


class LiveError(Exception):
    """A live-table request refused as a whole (its error code and message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class TableJournal:
    """The live tables of one ``state_dir``: replayed from its journal, then kept in memory;
    ``build`` and ``features`` (hello's ``table_features``) those of the vendor's hello: with
    ``paigow_records`` a pai gow table keeps its game records and meters (:attr:`paigow_class`)."""

    table_class = LiveTable
    station_class = LiveStationTable
    paigow_class = RecordedPaigowTable

    def __init__(self, state_dir: str, build: str = "", features: tuple[str, ...] = ()) -> None:
        self.path = os.path.join(state_dir, JOURNAL)
        self.build = build                  # the build a station table's records name
        self.records = PAIGOW_RECORDS in features     # a pai gow table keeps its records and meters (New)
        self.tables: dict[str, LiveTable | LiveStationTable] = {}
        entries = self._read()
        for entry in live_entries(entries):
            self.apply(entry)
        self.replayed(entries)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def _read(self) -> list[dict[str, Any]]:
        """The journal's whole lines (a cut last line is truncated away)."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return []
        whole = data[: data.rfind(b"\n") + 1]
        if len(whole) != len(data):
            with open(self.path, "r+b") as f:
                f.truncate(len(whole))
                os.fsync(f.fileno())
        return [json.loads(line) for line in whole.splitlines()]

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        """Called once the journal's ``entries`` are replayed, before any request (nothing to do
        here; a vendor built on this one may check or change what it restored)."""

    def append(self, entry: dict[str, Any]) -> None:
        """One journal line, in one write, on disk before this returns."""
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode()
        written = os.write(self._fd, line)
        if written != len(line):
            raise OSError(f"journal write cut short ({written} of {len(line)} bytes)")
        os.fsync(self._fd)

    def apply(self, entry: dict[str, Any]) -> Any:
        """An entry's effect on the tables in memory (at replay, and after journaling it)."""
        if "open" in entry and "stations" in entry:
            self.tables[entry["open"]] = self.station_class(entry["config"], entry["stations"], entry["on_disable"],
                                                            self.build)
            return self.tables[entry["open"]].resume()
        if "open" in entry:
            game = entry.get("game", "craps")
            if game == "paigow" and self.records:
                self.tables[entry["open"]] = self.paigow_class(entry["config"], entry["rack"], self.build)
            else:
                self.tables[entry["open"]] = self.table_class.open(entry["config"], entry["rack"], game)
            return self.tables[entry["open"]].resume()
        if "close" in entry:
            del self.tables[entry["close"]]
            return {}
        if "snapshot" in entry:
            snapped = self.tables[entry["snapshot"]]
            assert isinstance(snapped, LiveStationTable)
            snapped.restore(entry["state"])
            return {}
        table = self.tables[entry["step"]]
        if isinstance(table, (LiveStationTable, RecordedPaigowTable)):
            return table.step(entry["act"], entry["at"])
        return table.step(entry["act"])

    def clock(self) -> str:
        """The vendor's clock, as a station table's records show it (RFC 3339, UTC)."""
        return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")

    # -- requests

    def _table(self, request: dict[str, Any]) -> str:
        table_id = request.get("table")
        if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
            raise LiveError("invalid_request", "'table' must be 1 to 64 letters, digits, '.', '_' or '-'")
        return table_id

    def _known(self, request: dict[str, Any]) -> LiveTable | LiveStationTable:
        table_id = self._table(request)
        if table_id not in self.tables:
            raise LiveError("no_such_table", f"no open table {table_id!r}")
        return self.tables[table_id]

    def handle(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        """The result of one live-table request (LiveError when refused)."""
        if op == "table.open":
            table_id, rack = self._table(request), request.get("rack")
            if table_id in self.tables:
                raise LiveError("table_exists", f"table {table_id!r} is open")
            if "stations" in request:
                return self.open_stations(table_id, request)
            if not is_int(rack) or not 0 <= rack <= MAX_AMOUNT:
                raise LiveError("invalid_request", "'rack' must be an integer from 0 to 2^53 - 1")
            game = request.get("game", "craps")
            if game not in GAMES:
                raise LiveError("invalid_request", f"'game' must be one of {', '.join(GAMES)}")
            try:
                self.table_class.open(request.get("config"), rack, game)
            except ConfigError as err:
                raise LiveError("invalid_config", f"{err.field}: {err.message}") from None
            games = {"game": game} if game != "craps" else {}
            return self.journaled({"open": table_id, "config": request.get("config"), "rack": rack, **games})
        table = self._known(request)
        if isinstance(table, LiveStationTable):
            return self.station_request(op, request, table)
        if op == "table.meters" and isinstance(table, RecordedPaigowTable):
            return table.meters()
        if op in STATION_OPS:
            raise LiveError("invalid_request", f"{op}: table {request['table']!r} has no stations")
        if op == "table.step":
            seq = request.get("seq")
            if not is_int(seq) or seq != len(table.steps):
                raise LiveError("out_of_sequence", f"'seq' {seq!r}: the table has played {len(table.steps)} steps")
            try:
                step = table.rules.check_step(request.get("step"))
            except CaseError as err:
                raise LiveError(err.code, err.message) from None
            clock = {"at": self.clock()} if isinstance(table, RecordedPaigowTable) else {}
            return self.journaled({"step": request["table"], "seq": seq, "act": step, **clock})
        if op == "table.resume":
            return table.resume()
        if op == "table.recall":
            return table.recall()
        return self.journaled({"close": request["table"]})

    def open_stations(self, table_id: str, request: dict[str, Any]) -> dict[str, Any]:
        """``table.open`` of a station table (New)."""
        try:
            stations = live_stations.check_opening(request.get("stations"), request.get("on_disable", "keep"))
            self.station_class(request.get("config"), stations, request.get("on_disable", "keep"))
        except CaseError as err:
            raise LiveError(err.code, err.message) from None
        except ConfigError as err:
            raise LiveError("invalid_config", f"{err.field}: {err.message}") from None
        return self.journaled({"open": table_id, "config": request.get("config"), "stations": stations,
                               "on_disable": request.get("on_disable", "keep")})

    def station_request(self, op: str, request: dict[str, Any], table: LiveStationTable) -> dict[str, Any]:
        """A request on a station table: a step (``table.step`` or the op of its act), resume,
        recall of one station, meters, close."""
        if op == "table.resume":
            return table.resume()
        if op == "table.close":
            return self.journaled({"close": request["table"]})
        if op == "table.meters":
            return table.meters()
        if op == "table.recall":
            station = request.get("station")
            if not is_int(station):
                raise LiveError("invalid_request", "the recall of a station table names its 'station'")
            if station not in table.table.seats:
                raise LiveError("no_such_station", f"no station {station!r} at table {request['table']!r}")
            return table.recall(station)
        seq = request.get("seq")
        if not is_int(seq) or seq != table.steps:
            raise LiveError("out_of_sequence", f"'seq' {seq!r}: the table has played {table.steps} steps")
        if op == "table.step":
            step = request.get("step")
            if isinstance(step, dict) and step.get("act") in OP_OF_ACT:
                raise LiveError("invalid_request", f"a {step['act']} is sent as {OP_OF_ACT[step['act']]}")
        else:
            act = next(a for a, o in OP_OF_ACT.items() if o == op)
            step = {"act": act, **({"station": request.get("station")} if act in live_stations.LINK_ACTS else {})}
        try:
            step = live_stations.check_step(step)
        except CaseError as err:
            raise LiveError(err.code, err.message) from None
        return self.journaled({"step": request["table"], "seq": seq, "act": step, "at": self.clock()})

    def journaled(self, entry: dict[str, Any]) -> Any:
        """Journal an entry, then apply it: wholly or not at all; every :data:`COMPACT_EVERY` steps
        of a station table, the journal is compacted (:meth:`compact`)."""
        self.append(entry)
        result = self.apply(entry)
        table = self.tables.get(entry.get("step", ""))
        if isinstance(table, LiveStationTable) and table.steps % COMPACT_EVERY == 0:
            self.compact()
        return result

    def compact(self) -> None:
        """Rewrite the journal with, for each station table still open, its opening and a
        snapshot of it in place of its steps (the other tables' entries as they were): written to
        a new file, fsync'd, renamed over the journal and the folder fsync'd, so a kill at any
        instant leaves the old journal or the new one, whole."""
        kept = [e for e in live_entries(self._read()) if not isinstance(
            self.tables.get(e.get("open", e.get("step", e.get("snapshot", "")))), LiveStationTable)]
        for table_id, table in self.tables.items():
            if isinstance(table, LiveStationTable):
                kept += [table.opening(table_id), {"snapshot": table_id, "state": table.snapshot()}]
        fresh = self.path + ".new"
        with open(fresh, "wb") as f:
            f.write(b"".join((json.dumps(e, separators=(",", ":")) + "\n").encode() for e in kept))
            f.flush()
            os.fsync(f.fileno())
        os.replace(fresh, self.path)
        folder = os.open(os.path.dirname(self.path) or ".", os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
