"""Faulty live vendors for the life cuts (issue 41) and steps sent again (issue 38, item 5): each
is the reference vendor (its fsync'd journal, its oracle) with EXACTLY ONE bug of what a real
table's persistence gets wrong where the suite cut power only while a table played. Each is run
as a real subprocess (``python tests/cut_faulty_vendors.py NAME``), so the harness kills it with
SIGKILL like any vendor; :data:`CUT_FAULTY_VENDORS` lists ``(name, bug)``.

* ``compacts-in-place``: at start it compacts its journal in place (the file truncated, then the
  entries of the open tables written back one line at a time, each fsync'd): a second cut during
  that start loses every table;
* ``compacts-by-rename``: at start it moves its journal aside, writes a new one line by line and
  removes the old copy (a rename that is not atomic: the new journal is not whole when it takes
  the old one's name): a second cut during that start loses every table;
* ``close-in-memory``: ``table.close`` is answered but never journaled: a restart brings the
  table back open;
* ``resume-writes-first``: recovers lazily, and its ``table.resume`` journals a checkpoint of the
  table as it holds it *before* reading it from disk (nothing yet: zero steps): the next restart
  finds the table reset;
* ``ignores-seq``: plays every step it is sent, whatever its ``seq``: a step sent again is
  applied twice.

This is a test helper module, not a test file (``tests/test_cut_vendors.py`` uses it).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from live_faulty_vendors import serve_faulty
from tablecert.oracle.live_tables import LiveTable
from tablecert.oracle.table_journal import TableJournal, live_entries

SLOW_DISK = 120
"""Seconds the compacting vendors pause after their journal's first line (see ``_write_lines``)."""


class Compacting(TableJournal):
    """Compacts the journal at start (the entries of the tables still open), line by line, each
    line fsync'd, by :meth:`rewrite`."""

    def _read(self) -> list[dict[str, Any]]:
        entries = super()._read()
        kept = live_entries(entries)
        if entries:
            self.rewrite(kept)
        return kept

    def rewrite(self, kept: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def _write_lines(self, path: str, kept: list[dict[str, Any]]) -> None:
        """Write ``kept`` one fsync'd line at a time, pausing after the first line as a journal of
        many tables on a slow disk would take its time: the harness's cut at the first change to
        state_dir always lands inside the rewrite (on a fast disk these lines were written before
        the SIGKILL arrived, and the bug went unseen). Nothing here waits for the harness: a
        harness that does not cut lets the rewrite finish after :data:`SLOW_DISK` seconds and
        the test that expects the table lost fails."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            for i, entry in enumerate(kept):
                os.write(fd, (json.dumps(entry, separators=(",", ":")) + "\n").encode())
                os.fsync(fd)
                if i == 0 and len(kept) > 1:
                    time.sleep(SLOW_DISK)
        finally:
            os.close(fd)


class CompactsInPlace(Compacting):
    def rewrite(self, kept: list[dict[str, Any]]) -> None:
        self._write_lines(self.path, kept)


class CompactsByRename(Compacting):
    def rewrite(self, kept: list[dict[str, Any]]) -> None:
        aside = self.path + ".old"
        os.rename(self.path, aside)
        self._write_lines(self.path, kept)
        os.remove(aside)


class CloseInMemory(TableJournal):
    def journaled(self, entry: dict[str, Any]) -> Any:
        if "close" in entry:
            return self.apply(entry)
        return super().journaled(entry)


class ResumeWritesFirst(TableJournal):
    """Tables replayed at start are kept aside (:attr:`on_disk`) until a request names them."""

    def replayed(self, entries: list[dict[str, Any]]) -> None:
        self.on_disk, self.tables = self.tables, {}

    def handle(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        table_id = request.get("table")
        if op == "table.resume" and isinstance(table_id, str) and (table_id in self.on_disk or table_id in self.tables):
            held = self.tables.get(table_id)
            self.append({"checkpoint": table_id, "steps": len(held.steps) if held is not None else 0})
        if isinstance(table_id, str) and table_id in self.on_disk and table_id not in self.tables:
            self.tables[table_id] = self.on_disk.pop(table_id)
        return super().handle(op, request)

    def apply(self, entry: dict[str, Any]) -> Any:
        if "checkpoint" not in entry:
            return super().apply(entry)
        held = self.tables.get(entry["checkpoint"])
        if held is not None:
            fresh = LiveTable(held.config, held.rack, held.game)
            for step in held.steps[:entry["steps"]]:
                fresh.step(step)
            self.tables[entry["checkpoint"]] = fresh
        return {}


class IgnoresSeq(TableJournal):
    def handle(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        held = self.tables.get(request.get("table")) if isinstance(request.get("table"), str) else None
        if op == "table.step" and held is not None:
            request = dict(request, seq=len(held.steps))
        return super().handle(op, request)


JOURNALS: dict[str, tuple[type[TableJournal], str]] = {
    "compacts-in-place": (CompactsInPlace, "compacts its journal in place at start (a second cut then loses tables)"),
    "compacts-by-rename": (CompactsByRename, "compacts its journal at start by a rename that is not atomic"),
    "close-in-memory": (CloseInMemory, "keeps a table's close in memory only (a restart brings it back)"),
    "resume-writes-first": (ResumeWritesFirst, "its resume writes a checkpoint before it reads the table"),
    "ignores-seq": (IgnoresSeq, "ignores seq: a step sent again is applied twice"),
}
CUT_FAULTY_VENDORS = [(name, bug) for name, (_, bug) in JOURNALS.items()]


def main(name: str) -> int:
    return serve_faulty(JOURNALS[name][0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
