"""Live craps tables: a ``craps.round`` table that lives across requests, its game history and
the recall of its last ten games (the contract's section *Live tables*).

The table itself is :class:`tablecert.oracle.craps_round.Table` (one truth: every step is
:func:`~tablecert.oracle.craps_round.apply_step`). What is new here is the history a live table
keeps, as the regulations ask of a recall (AGCO 13.1.1, PA 58 Pa. Code 810a.11: the most recent
game and nine before it, in the order played, with the wagers per category and every
intermediate step):

* a **game** is the run of steps that ends with the roll deciding the pass line: a come-out roll
  that sets no point (a natural, craps) or the roll that makes the point or sevens out. Every
  step since the previous game ended (bets, odds, calls, refused steps) belongs to it;
* a completed game is ``{"game": N, "wagers": {CATEGORY: int, ...}, "steps": [{"step": STEP,
  **RECORD}, ...]}``: its number on the table (1 first), the chips the player put in action per
  category (:data:`CATEGORIES`: a flat bet placed, odds taken or laid as far as they were raised),
  and every step with its record (accepted, error, events with every payout, the table after
  it), in the order played;
* a recall is ``{"games": [GAME, ...]}``: the last :data:`RECALL_GAMES` completed games, oldest
  first.

The history is a function of the steps and their records alone (:func:`games_of`), so the
harness derives every expected recall from the oracle's uninterrupted round.
"""

from __future__ import annotations

from typing import Any

from tablecert.oracle.craps_round import KINDS, RoundConfig, Table, apply_step, parse_round_config, play

LIVE_OPS = ("table.open", "table.step", "table.resume", "table.recall", "table.close")
"""The live-table ops a vendor declares in ``hello`` (all five, or it has no live tables)."""
SUITE_OP = "craps.table"
"""The op of the live suite's vectors: a round played one step per request on a live table."""
RECALL_GAMES = 10
CATEGORIES = (*KINDS, *(f"{kind}_odds" for kind in KINDS))
"""Wager categories of a recalled game: each flat bet kind, and the odds behind each."""


def kind_of(bet_id: str) -> str:
    """The bet kind of a bet id (``come8`` -> ``come``)."""
    return bet_id.rstrip("0123456789")


def ends_game(step: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether a step's record ends a game: an accepted roll after which there is no point (a
    come-out roll that set none, or the point made or sevened out)."""
    return step.get("act") == "roll" and record["accepted"] and record["table"]["point"] is None


def _wagered(step: dict[str, Any], record: dict[str, Any], before: dict[str, Any]) -> tuple[str, int] | None:
    """(category, chips put in action) by one accepted step, or None."""
    if not record["accepted"]:
        return None
    if step["act"] == "bet":
        return step["bet"], step["amount"]
    if step["act"] == "odds":
        had = next((b["odds"] for b in before["bets"] if b["bet"] == step["bet"]), 0)
        raised = step["amount"] - had
        return (f"{kind_of(step['bet'])}_odds", raised) if raised > 0 else None
    return None


def initial_table(rack: int) -> dict[str, Any]:
    """The state of a table just opened: no point, no bets, the player's rack."""
    return {"point": None, "rack": rack, "bets": []}


def games_of(rack: int, steps: list[dict[str, Any]], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every completed game of a table whose steps had these records, oldest first."""
    games: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    wagers = dict.fromkeys(CATEGORIES, 0)
    before: dict[str, Any] = initial_table(rack)
    for step, record in zip(steps, records):
        current.append({"step": step, **record})
        if (wagered := _wagered(step, record, before)) is not None:
            wagers[wagered[0]] += wagered[1]
        if ends_game(step, record):
            games.append({"game": len(games) + 1, "wagers": wagers, "steps": current})
            current, wagers = [], dict.fromkeys(CATEGORIES, 0)
        before = record["table"]
    return games


def recall_of(rack: int, steps: list[dict[str, Any]], records: list[dict[str, Any]]) -> dict[str, Any]:
    """The recall answer of a table after these steps: its last ten completed games, oldest first."""
    return {"games": games_of(rack, steps, records)[-RECALL_GAMES:]}


class LiveTable:
    """One live table of the oracle: the round's :class:`Table` and everything played on it."""

    def __init__(self, config: RoundConfig, rack: int, table_class: type[Table] = Table) -> None:
        self.config, self.rack = config, rack
        self.table = table_class(config, rack)
        self.steps: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []

    @classmethod
    def open(cls, config: object, rack: int, table_class: type[Table] = Table) -> LiveTable:
        """A table on a protocol round config (ConfigError names a malformed field)."""
        return cls(parse_round_config(config), rack, table_class)

    def step(self, step: dict[str, Any]) -> dict[str, Any]:
        """Play one step (already checked as a ``craps.round`` step): its record."""
        record = apply_step(self.table, step)
        self.steps.append(step)
        self.records.append(record)
        return record

    def resume(self) -> dict[str, Any]:
        """The ``table.resume`` answer: how many steps the table has played and how it stands."""
        return {"steps": len(self.steps), "table": self.table.state()}

    def recall(self) -> dict[str, Any]:
        return recall_of(self.rack, self.steps, self.records)


def play_live(config: RoundConfig, case: object) -> dict[str, Any]:
    """The expected answer of a live-suite vector: the round's records, exactly ``craps.round``'s
    (played one step per request, a live table answers each step with the same record)."""
    return play(config, case)


SUITE_ORACLE = {SUITE_OP: (parse_round_config, play_live)}
"""The live suite's op -> (config parser, case handler), as :data:`tablecert.oracle.vendor.OPS`."""
