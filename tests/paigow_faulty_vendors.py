"""Faulty pai gow table vendors (issue 38, the pai gow table's record fields and meters): each is
the reference vendor (its fsync'd journal, its oracle, ``paigow_records`` declared) with EXACTLY
ONE bug in the records or meters of a pai gow table, for proving that the ``live`` suite's pai
gow tables and their judging catch every one. Each runs as a real subprocess (``python
tests/paigow_faulty_vendors.py NAME``), killed with SIGKILL like any vendor.

Each bug is a hook of :class:`~tablecert.oracle.paigow_records.RecordedPaigowTable` (what recall
and meters answer) or of :class:`~tablecert.oracle.table_journal.TableJournal` (what a restart
restores, the clock); nothing of the oracle is patched. :data:`PAIGOW_FAULTY_VENDORS` lists
``(name, bug)``.

This is a test helper module, not a test file (``tests/test_live_paigow_records.py`` uses it).
"""

from __future__ import annotations

import sys
from typing import Any

from station_faulty_vendors import ProcessClock
from tablecert.oracle.paigow_records import RecordedPaigowTable
from tablecert.oracle.table_journal import TableJournal
from tablecert.oracle.vendor import ReferenceVendor, serve


class SettleCountedTwice(RecordedPaigowTable):
    """Counts in the table's meters, once more, a settle a restart replayed last (its wins and its game)."""

    twice: tuple[dict[str, Any], ...] = ()

    def meters(self) -> dict[str, Any]:
        answer = super().meters()
        for record in self.twice:
            answer["table"]["won"] += sum(seat["total_win"] for seat in record["events"])
            answer["table"]["games_played"] += 1
        return answer


class ReplaysLastSettle(TableJournal):
    paigow_class = SettleCountedTwice

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        last = entries[-1] if entries else {}
        table = self.tables.get(last.get("step", ""))
        if isinstance(table, SettleCountedTwice) and last["act"]["act"] == "settle" and table.records[-1]["accepted"]:
            table.twice = (*table.twice, table.records[-1])


class CreditsAfterDeal(RecordedPaigowTable):
    """Takes a game's credits at the start from the rack after its deal (the wagers already in action)."""

    def recall(self) -> dict[str, Any]:
        answer = super().recall()
        return dict(answer, games=[dict(g, credits_start=next(s["table"]["rack"] for s in g["steps"]
                                                              if s["step"]["act"] == "deal" and s["accepted"]))
                                   for g in answer["games"]])


class NoRoundInProgress(RecordedPaigowTable):
    def recall(self) -> dict[str, Any]:
        answer = super().recall()
        return dict(answer, games=[g for g in answer["games"] if g["status"] != "in_progress"])


class RoundSaysComplete(RecordedPaigowTable):
    def recall(self) -> dict[str, Any]:
        answer = super().recall()
        return dict(answer, games=[dict(g, status="complete") if g["status"] == "in_progress" else g
                                   for g in answer["games"]])


class WonWithReturnedWagers(RecordedPaigowTable):
    """Counts the wagers handed back with a win as won, in every meter (seat and table)."""

    def meters(self) -> dict[str, Any]:
        answer = super().meters()
        rows = {row["seat"]: row for row in answer["seats"]}
        for step, record in zip(self.steps, self.records):
            if step["act"] == "settle" and record["accepted"]:
                for seat in record["events"]:
                    rows[seat["seat"]]["won"] += seat["wager_returned"]
                    answer["table"]["won"] += seat["wager_returned"]
        return answer


class SeatsPlayEveryGame(RecordedPaigowTable):
    """Counts every game the table played in each seat's ``games_played`` (a seat that sat a round
    out counted as if dealt in)."""

    def meters(self) -> dict[str, Any]:
        answer = super().meters()
        for row in answer["seats"]:
            row["games_played"] = answer["table"]["games_played"]
        return answer


def _journal(paigow_class: type[RecordedPaigowTable]) -> type[TableJournal]:
    return type(f"{paigow_class.__name__}Journal", (TableJournal,), {"paigow_class": paigow_class})


JOURNALS: dict[str, tuple[type[TableJournal], str]] = {
    "meters-settle-twice": (ReplaysLastSettle, "meters counting a settle twice after a restart"),
    "credits-after-deal": (_journal(CreditsAfterDeal), "credits at the start taken after the deal"),
    "recall-no-round-in-progress": (_journal(NoRoundInProgress), "the round in progress missing from recall"),
    "recall-round-complete": (_journal(RoundSaysComplete), "the round in progress recalled complete"),
    "records-out-of-order": (ProcessClock, "records out of time order after a restart"),
    "won-counts-returned": (_journal(WonWithReturnedWagers), "won counting the returned wagers"),
    "seats-play-every-game": (_journal(SeatsPlayEveryGame), "a seat's games played counting the rounds it sat out"),
}
PAIGOW_FAULTY_VENDORS = [(name, bug) for name, (_, bug) in JOURNALS.items()]


class FaultyPaigowVendor(ReferenceVendor):
    name = "faulty pai gow vendor"


def main(name: str) -> int:
    """Serve the faulty vendor ``name``."""
    vendor = FaultyPaigowVendor()
    vendor.journal_class = JOURNALS[name][0]
    return serve(sys.stdin, sys.stdout, vendor)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
