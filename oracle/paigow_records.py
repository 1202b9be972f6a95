"""A pai gow table's game records and meters (New; the contract's *Pai gow tables*, feature
``paigow_records``): the same record fields and the same five meters as a craps table's stations
(:mod:`tablecert.oracle.game_records`), on the one rack of a pai gow table.

* A **game** is one round: every step since the previous round was settled (refused ones
  included: a settle before any deal, a second deal) up to the accepted ``settle``. It is
  **recorded** from its accepted ``deal`` on: from then to its settle it is recalled last with
  ``status`` ``in_progress`` (a round dealt and not settled, as AGCO 13.1.3 asks of a recall in an
  error condition), then ``complete`` (a pai gow round is never voided: INT-PAIGOW-GAME).
* Its record: ``started`` the vendor's clock at the deal, ``ended`` at the settle (None in
  progress); ``credits_start`` the rack before the deal (never after the wagers went into action),
  ``credits_end`` the rack after the settle (None in progress); ``wagers`` ``{"imperial_bonus":
  the wagers dealt}``; ``wins`` the sum of the seats' ``total_win`` (the wins paid; a wager handed
  back is not a win); ``config``, ``build``; ``steps`` every step of the game with its record.
* The **meters** (``table.meters``): ``{"seats": [{"seat", "wagered", "won", "games_played"},
  ...], "table": {"buy_ins", "wagered", "won", "cashed_out", "games_played"}}``: per seat ever
  dealt in (seat order) its wagers dealt, its ``total_win`` paid and the rounds settled it was
  dealt in; the table's ``buy_ins`` the rack it was opened with (a pai gow table has no buy-in or
  cash-out step: ``cashed_out`` is 0), ``wagered`` and ``won`` the sums over every record (the
  seats' sums), ``games_played`` its complete records. Integers only.
"""

from __future__ import annotations

from typing import Any

from tablecert.oracle import live_paigow
from tablecert.oracle.game_records import GameBooks, config_digest
from tablecert.oracle.live_tables import RECALL_GAMES, LiveTable
from tablecert.oracle.paigow import parse_paigow_config

FEATURE = "paigow_records"
"""hello's ``table_features`` name of a pai gow table's record fields and meters (New)."""
TABLE = "table"
"""The one key of a pai gow table's books (its one rack)."""
SEAT_METERS = ("wagered", "won", "games_played")


class PaigowBooks(GameBooks):
    """A pai gow table's game records and meters, kept step by step (see the module docstring):
    :meth:`add` each step with its record (and with ``timed`` the vendor's clock at it)."""

    def __init__(self, rack: int, stamp: dict[str, Any] | None = None, timed: bool = False,
                 keep: int | None = None) -> None:
        super().__init__({TABLE: rack}, live_paigow.CATEGORIES, stamp, timed, keep)
        self.before = live_paigow.initial_table(rack)
        self.waiting: list[dict[str, Any]] = []          # steps refused before the next deal: its first steps
        self.seats: dict[int, dict[str, int]] = {}

    def add(self, step: dict[str, Any], record: dict[str, Any], at: str | None = None) -> None:
        """One more step and its record."""
        played = {"step": step, **record}
        if TABLE not in self.current and not (step["act"] == "deal" and record["accepted"]):
            self.waiting.append(played)
        else:
            if TABLE not in self.current:
                self.begin(TABLE, self.before["rack"], at, {})["steps"].extend(self.waiting)
                self.waiting = []
                for seat in step["seats"]:
                    self.seats.setdefault(seat["seat"], dict.fromkeys(SEAT_METERS, 0))["wagered"] += seat["wager"]
            self.current[TABLE]["steps"].append(played)
            if (wagered := live_paigow.wagered(step, record, self.before)) is not None:
                self.wager(TABLE, *wagered)
            if live_paigow.ends_game(step, record):
                for seat in record["events"]:
                    self.seats[seat["seat"]]["won"] += seat["total_win"]
                    self.seats[seat["seat"]]["games_played"] += 1
                self.win(TABLE, sum(seat["total_win"] for seat in record["events"]))
                self.end(TABLE, "complete", record["table"]["rack"], at)
        self.before = record["table"]
        self.steps += 1

    def recall(self) -> dict[str, Any]:
        """``table.recall``: the last ten game records, oldest first, the round in progress last."""
        return {"games": self.recalled(TABLE)}

    def meters(self) -> dict[str, Any]:
        """``table.meters``: per seat, and the table's."""
        return {"seats": [{"seat": seat, **m} for seat, m in sorted(self.seats.items())], "table": dict(self.meter[TABLE])}


def books_of(rack: int, steps: list[dict[str, Any]], records: list[dict[str, Any]],
             stamp: dict[str, Any] | None = None) -> PaigowBooks:
    """The books of a pai gow table opened with ``rack`` after these steps and their records."""
    books = PaigowBooks(rack, stamp)
    for step, record in zip(steps, records):
        books.add(step, record)
    return books


class RecordedPaigowTable(LiveTable):
    """A pai gow table as a vendor declaring ``paigow_records`` keeps it: the live table and its
    books, with the vendor's clock at each step."""

    def __init__(self, config: object, rack: int, build: str = "") -> None:
        super().__init__(parse_paigow_config(config), rack, "paigow")
        self.books = PaigowBooks(rack, {"config": config_digest(config), "build": build}, timed=True,
                                 keep=RECALL_GAMES)

    def step(self, step: dict[str, Any], at: str | None = None) -> dict[str, Any]:
        record = super().step(step)
        self.books.add(step, record, at)
        return record

    def recall(self) -> dict[str, Any]:
        return self.books.recall()

    def meters(self) -> dict[str, Any]:
        return self.books.meters()
