"""Faulty live-table vendors: each is the reference vendor (its fsync'd journal, its oracle) with
EXACTLY ONE of the bugs of issue 25's bug classes, for proving that the ``live`` suite and its
interruptions catch every one. Each is run as a real subprocess (``python
tests/live_faulty_vendors.py NAME``), so the harness kills it with SIGKILL like any vendor.

Each bug is a hook of :class:`~tablecert.oracle.table_journal.TableJournal` (what a restarted
process restores: ``replayed``) or of :class:`~tablecert.oracle.live_tables.LiveTable` (what
``table.recall`` answers); nothing of the oracle is patched. :data:`LIVE_FAULTY_VENDORS` lists
``(name, bug)``.

This is a test helper module, not a test file (``tests/test_live_vendors.py`` uses it).
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

from tablecert.oracle.live_tables import LiveTable, games_of
from tablecert.oracle.table_journal import TableJournal
from tablecert.oracle.vendor import ReferenceVendor, serve


class Restored(TableJournal):
    """A journal whose restart changes every table it restored (:meth:`restore`)."""

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        for table in self.tables.values():
            self.restore(table, entries)

    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        raise NotImplementedError


class ForgetsComeBets(Restored):
    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        t = table.table
        for bet_id in [b for b in t.bets if b.startswith("come") and b[-1].isdigit()]:
            del t.bets[bet_id]        # the chips vanish with them


class LosesWorkingFlags(Restored):
    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        for bet in table.table.bets.values():
            bet.call = None


class LosesPoint(Restored):
    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        table.table.point = None


class RackNotLayout(Restored):
    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        table.table.bets.clear()


class Redeals(Restored):
    """Voids a pai gow round that was dealt and not settled when the power went (its wagers back to
    the rack), so that it is dealt again."""

    def restore(self, table: LiveTable, entries: list[dict[str, Any]]) -> None:
        t = table.table
        if table.game == "paigow" and t.dealt is not None:
            t.rack += t.in_action()
            t.dealt = None


class InFlightTwice(TableJournal):
    """Replays the journal's last entry again when it is a roll: the roll in flight settled twice."""

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        if entries and entries[-1].get("act", {}).get("act") == "roll" and entries[-1]["step"] in self.tables:
            table = self.tables[entries[-1]["step"]]
            record = table.step(entries[-1]["act"])
            table.steps.pop()
            table.records[-2:] = [record]


class InFlightNever(TableJournal):
    """Counts the journal's last roll as played but never settles it (its effect was to be written after)."""

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        last = entries[-1] if entries else {}
        if last.get("act", {}).get("act") == "roll" and last["step"] in self.tables:
            table = self.tables[last["step"]]
            fresh = LiveTable(table.config, table.rack, table.game)
            for step in table.steps[:-1]:
                fresh.step(step)
            table.table = fresh.table     # the steps (and records) say it was played; the table says not


class MemoryOnly(TableJournal):
    """Keeps its tables in memory only: the journal is never written (nor read)."""

    def _read(self) -> list[dict[str, Any]]:
        return []

    def append(self, entry: dict[str, Any]) -> None:
        pass


class NewestFirst(LiveTable):
    def recall(self) -> dict[str, Any]:
        return {"games": super().recall()["games"][::-1]}


class RollsOnly(LiveTable):
    def recall(self) -> dict[str, Any]:
        games = super().recall()["games"]
        return {"games": [dict(g, steps=[s for s in g["steps"] if s["step"]["act"] == "roll"]) for g in games]}


class DropsGameAcross(LiveTable):
    """A table whose recall leaves out a game that was in progress when the process started."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.restarts: list[int] = []

    def recall(self) -> dict[str, Any]:
        games, first = [], 0
        for game in games_of(self.rack, self.steps, self.records):
            last = first + len(game["steps"])
            if not any(first < r < last for r in self.restarts):
                games.append(game)
            first = last
        return {"games": games[-10:]}


class ForgetsInterruptedGame(TableJournal):
    table_class = DropsGameAcross

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        for table in self.tables.values():
            if isinstance(table, DropsGameAcross):      # a pai gow table keeps its records (paigow_records)
                table.restarts.append(len(table.steps))


def _recalling(table_class: type[LiveTable]) -> type[TableJournal]:
    return type(f"{table_class.__name__}Journal", (TableJournal,), {"table_class": table_class})


JOURNALS: dict[str, tuple[type[TableJournal], str]] = {
    "forgets-come-bets": (ForgetsComeBets, "forgets travelled come bets after a restart"),
    "loses-working-flags": (LosesWorkingFlags, "loses the working flags (calls) after a restart"),
    "loses-point": (LosesPoint, "loses the point after a restart"),
    "in-flight-twice": (InFlightTwice, "settles the roll that was in flight twice"),
    "in-flight-never": (InFlightNever, "never settles the roll that was in flight (but counts it played)"),
    "rack-not-layout": (RackNotLayout, "restores the rack but not the layout"),
    "memory-only": (MemoryOnly, "keeps the state in memory only"),
    "recall-out-of-order": (_recalling(NewestFirst), "recalls the games newest first"),
    "recall-missing-steps": (_recalling(RollsOnly), "recalls only the rolls of each game"),
    "recall-missing-interrupted-game": (ForgetsInterruptedGame, "leaves the interrupted game out of the recall"),
    "paigow-redeal": (Redeals, "pai gow: a round interrupted after the deal is voided and dealt again"),
}
LIVE_FAULTY_VENDORS = [(name, bug) for name, (_, bug) in JOURNALS.items()]


class FaultyLiveVendor(ReferenceVendor):
    name = "faulty live vendor"


class OldVendor(ReferenceVendor):
    """A vendor of this contract before live tables: its hello declares none of the live ops."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        return dict(hello, ops=[op for op in hello["ops"] if not op.startswith("table.")])


class RebuiltOnRestart(FaultyLiveVendor):
    """Says it is another build when started again on the same state_dir (a vendor replaced
    between the power cut and the restart): a restart must be the vendor the run began with."""

    def handle(self, request: Any) -> dict[str, Any]:
        answer = super().handle(request)
        if isinstance(request, dict) and request.get("op") == "hello" and isinstance(request.get("state_dir"), str):
            marker = Path(request["state_dir"]) / "started-once"
            if marker.exists():
                answer = dict(answer, implementation=dict(answer["implementation"], build="rebuilt"))
            marker.touch()
        return answer


class RebuiltForLive(FaultyLiveVendor):
    """Says it is another build whenever its hello names a state_dir: the run's first instance (no
    state_dir) is one build, its live tables' first instance another."""

    def handle(self, request: Any) -> dict[str, Any]:
        answer = super().handle(request)
        if isinstance(request, dict) and request.get("op") == "hello" and isinstance(request.get("state_dir"), str):
            answer = dict(answer, implementation=dict(answer["implementation"], build="live-build"))
        return answer


class StateFiller(FaultyLiveVendor):
    """At each table.open writes 4 MiB more into its state_dir (a log it never trims), and leaves a
    folder there that it shuts (mode 000) with a file inside."""

    state_dir: str | None = None

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "hello" and isinstance(request.get("state_dir"), str):
            self.state_dir = request["state_dir"]
        if isinstance(request, dict) and request.get("op") == "table.open" and self.state_dir:
            with open(Path(self.state_dir) / "debug.log", "ab") as f:
                f.write(b"x" * (4 << 20))
                f.flush()
                os.fsync(f.fileno())
            shut = Path(self.state_dir) / "shut"
            if not shut.exists():
                shut.mkdir()
                (shut / "inside").write_text("left behind")
                shut.chmod(0)
        return super().handle(request)


class DeepChain(FaultyLiveVendor):
    """At its first table.open builds a chain of 1,500 folders in its state_dir, each named with 40
    characters (60,000 characters of path: past PATH_MAX), the middle one shut (mode 000), and then
    plays as the reference vendor does (issue 47: the chain made the harness's cleanup raise
    RecursionError, and the run wrote no summary.json)."""

    state_dir: str | None = None
    DEPTH = 1500

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "hello" and isinstance(request.get("state_dir"), str):
            self.state_dir = request["state_dir"]
        if isinstance(request, dict) and request.get("op") == "table.open" and self.state_dir:
            top = Path(self.state_dir) / "chain"
            if not top.exists():
                here = os.open(self.state_dir, os.O_RDONLY | os.O_DIRECTORY)
                for depth in range(self.DEPTH):
                    name = f"{depth:04d}" + "d" * 36 if depth else "chain"
                    os.mkdir(name, 0o700, dir_fd=here)
                    below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=here)
                    os.close(here)
                    here = below
                with open(os.open("bottom", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=here), "w") as f:
                    f.write("the bottom of the chain")
                os.chmod(f"/proc/self/fd/{here}", 0)
                os.close(here)
        return super().handle(request)


class StateFlood(FaultyLiveVendor):
    """At its first table.open tries to write 40 MiB into its state_dir in 1 MiB writes; a refused
    write (ENOSPC, EFBIG, EDQUOT) ends the attempt and leaves an empty file named for it
    (``refused-ENOSPC``). Then plays as the reference vendor does."""

    state_dir: str | None = None
    TRIED = 40

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "hello" and isinstance(request.get("state_dir"), str):
            self.state_dir = request["state_dir"]
        if isinstance(request, dict) and request.get("op") == "table.open" and self.state_dir:
            flood = Path(self.state_dir) / "flood"
            if not flood.exists():
                try:
                    with open(flood, "wb") as f:
                        for _ in range(self.TRIED):
                            f.write(b"x" * (1 << 20))
                            f.flush()
                except OSError as err:
                    try:
                        (Path(self.state_dir) / f"refused-{errno.errorcode.get(err.errno or 0, '?')}").touch()
                    except OSError:
                        pass
        return super().handle(request)


def serve_faulty(journal_class: type[TableJournal]) -> int:
    """Serve the reference vendor with ``journal_class`` keeping its live tables (the faulty live
    vendors here and in tests/cut_faulty_vendors.py)."""
    vendor = FaultyLiveVendor()
    vendor.journal_class = journal_class
    return serve(sys.stdin, sys.stdout, vendor)


def main(name: str) -> int:
    if name == "old":
        return serve(sys.stdin, sys.stdout, OldVendor())
    if name == "rebuilt-on-restart":
        return serve(sys.stdin, sys.stdout, RebuiltOnRestart())
    if name == "rebuilt-for-live":
        return serve(sys.stdin, sys.stdout, RebuiltForLive())
    if name == "state-filler":
        return serve(sys.stdin, sys.stdout, StateFiller())
    if name == "deep-chain":
        return serve(sys.stdin, sys.stdout, DeepChain())
    if name == "state-flood":
        return serve(sys.stdin, sys.stdout, StateFlood())
    return serve_faulty(JOURNALS[name][0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
