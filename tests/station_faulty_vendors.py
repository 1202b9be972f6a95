"""Faulty station-table vendors (issue 38): each is the reference vendor (its fsync'd journal, its
oracle) with EXACTLY ONE bug of the issue's bug classes for stations, records, incomplete games and
meters, for proving that the ``live`` suite's station tables and their judging catch every one.
Each runs as a real subprocess (``python tests/station_faulty_vendors.py NAME``), killed with
SIGKILL like any vendor.

Each bug is a hook of :class:`~tablecert.oracle.live_stations.StationTable` (how a step is played),
of :class:`~tablecert.oracle.live_stations.LiveStationTable` (what recall and meters answer) or of
:class:`~tablecert.oracle.table_journal.TableJournal` (what a restart restores, the clock);
nothing of the oracle is patched. :data:`STATION_FAULTY_VENDORS` lists ``(name, bug)``.

This is a test helper module, not a test file (``tests/test_live_stations.py`` uses it).
"""

from __future__ import annotations

import sys
from typing import Any

from tablecert.oracle.game_records import config_digest
from tablecert.oracle.live_stations import LiveStationTable, StationTable
from tablecert.oracle.table_journal import STATION_OPS, TableJournal
from tablecert.oracle.vendor import ReferenceVendor, serve


class DisconnectVoids(StationTable):
    def _act(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        events = super()._act(step)
        if step["act"] == "disconnect":
            seat = self.seats[step["station"]]
            for bet in list(seat.table.bets.values()):
                seat.table.rack += bet.flat + bet.odds + bet.commission
                events.append({"station": seat.station, "bet": bet.bet_id, "outcome": "voided"})
            seat.table.bets.clear()
        return events


class DisableSettles(StationTable):
    """Settles the round in flight at a disable whatever ``on_disable`` says (every bet handed back)."""

    def _act(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        events = super()._act(step)
        if step["act"] == "disable" and self.on_disable == "keep":
            events = self._void()
        return events


class VoidKeepsCommission(StationTable):
    def _void(self) -> list[dict[str, Any]]:
        for seat in self.seats.values():
            for bet in seat.table.bets.values():
                seat.table.taken += bet.commission      # the house keeps it (the ledger says so)
                seat.table.rack -= bet.commission
        events = super()._void()
        return [dict(e, commission_returned=0) for e in events]


class LastBettorOnly(StationTable):
    """A roll settles only the station that placed the last bet; the others' bets sit out the roll."""

    last: int | None = None

    def _act(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        if step["act"] == "bet":
            self.last = step["station"]
        if step["act"] != "roll" or self.last is None or not self.enabled:
            return super()._act(step)
        events: list[dict[str, Any]] = []
        for seat in self.seats.values():
            held, seat.table.bets = seat.table.bets, ({} if seat.station != self.last else seat.table.bets)
            events += [{"station": seat.station, **e} for e in seat.table.roll(step["dice"])]
            if seat.station != self.last:
                seat.table.bets = held
        return events


def _station_table(table_class: type[StationTable]) -> type[LiveStationTable]:
    return type(f"{table_class.__name__}Live", (LiveStationTable,), {"table_class": table_class})


class SplitsAtReconnect(LiveStationTable):
    """Starts a new game for a station at its reconnect: the game it left incomplete is closed as
    complete, and the station plays on in a new one."""

    def recall(self, station: int) -> dict[str, Any]:
        answer = super().recall(station)
        games: list[dict[str, Any]] = []
        extra = 0
        for game in answer["games"]:
            cut = next((j for j, s in enumerate(game["steps"]) if s["step"]["act"] == "reconnect"), None)
            if cut is None or game["status"] != "in_progress":
                games.append(dict(game, game=game["game"] + extra))
                continue
            at = game["steps"][cut]
            games.append(dict(game, game=game["game"] + extra, status="complete", ended=game["started"],
                              credits_end=at["table"]["rack"], steps=game["steps"][:cut + 1]))
            extra += 1
            games.append(dict(game, game=game["game"] + extra, credits_start=at["table"]["rack"],
                              steps=game["steps"][cut + 1:]))
        return {"station": station, "games": games[-10:]}


class NoGameInProgress(LiveStationTable):
    def recall(self, station: int) -> dict[str, Any]:
        answer = super().recall(station)
        return dict(answer, games=[g for g in answer["games"] if g["status"] != "in_progress"])


class InProgressSaysComplete(LiveStationTable):
    def recall(self, station: int) -> dict[str, Any]:
        answer = super().recall(station)
        return dict(answer, games=[dict(g, status="complete") if g["status"] == "in_progress" else g
                                   for g in answer["games"]])


class CreditsAfterFirstBet(LiveStationTable):
    def recall(self, station: int) -> dict[str, Any]:
        answer = super().recall(station)
        return dict(answer, games=[dict(g, credits_start=g["steps"][0]["table"]["rack"]) if g["steps"] else g
                                   for g in answer["games"]])


class OneStationsMeters(LiveStationTable):
    """Credits the wagers and wins of the second station to the first one's meters (the table's
    sums stay right)."""

    def meters(self) -> dict[str, Any]:
        answer = super().meters()
        rows = answer["stations"]
        for meter in ("wagered", "won") if len(rows) > 1 else ():
            rows[0][meter] += rows[1][meter]
            rows[1][meter] = 0
        return answer


class ReplayCountedTwice(LiveStationTable):
    """Counts the last step a restart replayed twice in the meters (a bet wagered twice)."""

    twice: list[dict[str, Any]]

    def meters(self) -> dict[str, Any]:
        answer = super().meters()
        for step in getattr(self, "twice", []):
            if step.get("act") == "bet":
                row = next(r for r in answer["stations"] if r["station"] == step["station"])
                row["wagered"] += step["amount"]
                answer["table"]["wagered"] += step["amount"]
        return answer


class ReplaysLastStep(TableJournal):
    station_class = ReplayCountedTwice

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        last = entries[-1] if entries else {}
        table = self.tables.get(last.get("step", ""))
        if isinstance(table, ReplayCountedTwice):
            table.twice = [*getattr(table, "twice", []), last["act"]]


class ProcessClock(TableJournal):
    """Stamps records with a clock that starts again with every process (seconds since it began,
    counted from a fixed epoch): a restart's records go back in time."""

    ticks = 0

    def clock(self) -> str:
        self.ticks += 1
        return f"2026-01-01T00:{self.ticks // 60:02d}:{self.ticks % 60:02d}.000000Z"


class OddsWhileDisabled(StationTable):
    """Takes odds on a disabled table (every other act refused while disabled, as it should)."""

    def _act(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        if step["act"] == "odds" and not self.enabled:
            self.enabled = True
            try:
                return super()._act(step)
            finally:
                self.enabled = False
        return super()._act(step)


class CloseInMemory(TableJournal):
    """Closes a station table in memory only (the close is not journaled): a restart opens it again."""

    def station_request(self, op: str, request: dict[str, Any], table: LiveStationTable) -> dict[str, Any]:
        if op == "table.close":
            return self.apply({"close": request["table"]})
        return super().station_request(op, request, table)


class ResentStepApplied(TableJournal):
    """Plays a station table's step sent again (its ``seq`` the last one played) as a new step."""

    def station_request(self, op: str, request: dict[str, Any], table: LiveStationTable) -> dict[str, Any]:
        if request.get("seq") == table.steps - 1 and op not in ("table.resume", "table.close", "table.meters",
                                                                 "table.recall"):
            request = dict(request, seq=table.steps)
        return super().station_request(op, request, table)


class RestampsAtReplay(TableJournal):
    """Stamps the records of the steps it replays at a restart with its own clock (the time of the
    replay), not the times it journaled."""

    replaying = True

    def apply(self, entry: dict[str, Any]) -> Any:
        if self.replaying and "at" in entry:
            entry = dict(entry, at=self.clock())
        return super().apply(entry)

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        self.replaying = False


class CounterFromKept(LiveStationTable):
    """Restores each station's game counter from the records it kept (the last ten), not the games played."""

    def restore(self, state: dict[str, Any]) -> None:
        super().restore(state)
        self.books.numbered = {station: len(games) for station, games in self.books.games.items()}


class SnapshotForgetsDisconnect(LiveStationTable):
    """Snapshots every station as connected when the journal is compacted (a disconnect forgotten)."""

    def snapshot(self) -> dict[str, Any]:
        state = super().snapshot()
        return dict(state, seats=[dict(seat, connected=True) for seat in state["seats"]])


class FirstTablesConfig(TableJournal):
    """Stamps every station table's records with the config of the first station table its journal
    holds (a config read once, not each table's own)."""

    first: Any = None

    def _read(self) -> list[dict[str, Any]]:
        entries = super()._read()
        if self.first is None:
            self.first = next((e["config"] for e in entries if "open" in e and "stations" in e), None)
        return entries

    def apply(self, entry: dict[str, Any]) -> Any:
        result = super().apply(entry)
        if "open" in entry and "stations" in entry:
            self.first = entry["config"] if self.first is None else self.first
            table = self.tables[entry["open"]]
            assert isinstance(table, LiveStationTable)
            table.books.stamp["config"] = config_digest(self.first)
        return result


def _journal(station_class: type[LiveStationTable]) -> type[TableJournal]:
    return type(f"{station_class.__name__}Journal", (TableJournal,), {"station_class": station_class})


JOURNALS: dict[str, tuple[type[TableJournal], str]] = {
    "disconnect-voids": (_journal(_station_table(DisconnectVoids)),
                         "a disconnected station's round voided instead of kept"),
    "new-round-at-reconnect": (_journal(SplitsAtReconnect),
                               "a station starts a new round before its incomplete one is completed"),
    "disable-settles": (_journal(_station_table(DisableSettles)), "a disable settles the round in flight"),
    "void-keeps-commission": (_journal(_station_table(VoidKeepsCommission)), "a void keeps the commission"),
    "meters-replay-twice": (ReplaysLastStep, "meters count a replayed step twice after a restart"),
    "meters-other-station": (_journal(OneStationsMeters), "meters of one station credited to another"),
    "recall-no-game-in-progress": (_journal(NoGameInProgress), "recall without the game in progress"),
    "recall-status-wrong": (_journal(InProgressSaysComplete), "recall with the game in progress said complete"),
    "credits-after-first-bet": (_journal(CreditsAfterFirstBet),
                                "credits at the start of a game equal to the rack after its first bet"),
    "roll-settles-last-bettor": (_journal(_station_table(LastBettorOnly)),
                                 "a roll settles only the station that placed the last bet"),
    "records-out-of-order": (ProcessClock, "records out of time order after a restart"),
    "odds-while-disabled": (_journal(_station_table(OddsWhileDisabled)), "odds taken on a disabled table"),
    "close-in-memory": (CloseInMemory, "a station table's close kept in memory only"),
    "resent-step-applied": (ResentStepApplied, "a station table's step sent again applied again"),
    "times-restamped": (RestampsAtReplay, "record times stamped again by the replay's clock after a restart"),
    "counter-from-kept": (_journal(CounterFromKept), "the game counter restored from the kept records"),
    "compaction-forgets-disconnect": (_journal(SnapshotForgetsDisconnect), "a compaction that forgets a disconnect"),
    "first-tables-config": (FirstTablesConfig, "every table's records naming the first table's config"),
}
STATION_FAULTY_VENDORS = [(name, bug) for name, (_, bug) in JOURNALS.items()]


class FaultyStationVendor(ReferenceVendor):
    name = "faulty station vendor"


class NoTableFeatures(ReferenceVendor):
    """A vendor of the live ops before stations: its hello declares neither the station ops nor
    ``table_features``."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        ops = [op for op in hello["ops"] if op not in STATION_OPS]
        return {k: v for k, v in dict(hello, ops=ops).items() if k != "table_features"}


def main(name: str) -> int:
    """Serve the vendor ``name``: a faulty journal's, or the vendor without table features."""
    vendor = NoTableFeatures() if name == "no-table-features" else FaultyStationVendor()
    vendor.journal_class = JOURNALS[name][0] if name in JOURNALS else TableJournal
    return serve(sys.stdin, sys.stdout, vendor)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
