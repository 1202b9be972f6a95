"""Live tables: a ``craps.round`` table (or a pai gow table, :mod:`tablecert.oracle.live_paigow`)
that lives across requests, its game history and the recall of its last ten games (the
contract's section *Live tables*; :data:`GAMES` says what each game's table is).

A craps table itself is :class:`tablecert.oracle.craps_round.Table` (one truth: every step is
:func:`~tablecert.oracle.craps_round.apply_step`). What is new here is the history a live table
keeps, as the regulations ask of a recall (AGCO 13.1.1, PA 58 Pa. Code 810a.11: the most recent
game and nine before it, in the order played, with the wagers per category and every
intermediate step):

* a craps **game** (a pai gow game is one round, deal and settle) is the run of steps that ends
  with the roll deciding the pass line: a come-out roll that sets no point (a natural, craps) or
  the roll that makes the point or sevens out. Every step since the previous game ended (bets,
  odds, calls, refused steps) belongs to it;
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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablecert.oracle import craps_round, live_paigow
from tablecert.oracle.craps_round import KINDS, RoundConfig, Table, apply_step, parse_round_config, play
from tablecert.oracle.paigow import parse_paigow_config

LIVE_OPS = ("table.open", "table.step", "table.resume", "table.recall", "table.close")
"""The live-table ops a vendor declares in ``hello`` (all five, or it has no live tables)."""
SUITE_OP = "craps.table"
"""The op of the live suite's craps vectors: a round played one step per request on a live table."""
PAIGOW_OP = "paigow.table"
"""The op of the live suite's pai gow vectors: rounds dealt and settled one after another at a live table."""
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


@dataclass(frozen=True)
class Game:
    """What a live table of one game is: how its config is read, its table made and its steps
    checked and played, where a game of its recall ends and what it counts as wagered."""

    name: str
    op: str                                           # the live suite's op for it
    parse_config: Callable[[object], Any]
    new_table: Callable[[Any, int], Any]
    check_step: Callable[[object], dict[str, Any]]
    apply_step: Callable[[Any, dict[str, Any]], dict[str, Any]]
    ends_game: Callable[[dict[str, Any], dict[str, Any]], bool]
    wagered: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], tuple[str, int] | None]
    categories: tuple[str, ...]
    initial_table: Callable[[int], dict[str, Any]]


def games_of(rack: int, steps: list[dict[str, Any]], records: list[dict[str, Any]],
             game: str = "craps") -> list[dict[str, Any]]:
    """Every completed game of a table whose steps had these records, oldest first."""
    rules = GAMES[game]
    games: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    wagers = dict.fromkeys(rules.categories, 0)
    before: dict[str, Any] = rules.initial_table(rack)
    for step, record in zip(steps, records):
        current.append({"step": step, **record})
        if (wagered := rules.wagered(step, record, before)) is not None:
            wagers[wagered[0]] += wagered[1]
        if rules.ends_game(step, record):
            games.append({"game": len(games) + 1, "wagers": wagers, "steps": current})
            current, wagers = [], dict.fromkeys(rules.categories, 0)
        before = record["table"]
    return games


def recall_of(rack: int, steps: list[dict[str, Any]], records: list[dict[str, Any]],
              game: str = "craps") -> dict[str, Any]:
    """The recall answer of a table after these steps: its last ten completed games, oldest first."""
    return {"games": games_of(rack, steps, records, game)[-RECALL_GAMES:]}


class LiveTable:
    """One live table of the oracle: the game's table (a craps round's :class:`Table`, a
    :class:`~tablecert.oracle.live_paigow.PaigowTable`) and everything played on it."""

    def __init__(self, config: Any, rack: int, game: str = "craps") -> None:
        self.config, self.rack, self.game = config, rack, game
        self.rules = GAMES[game]
        self.table = self.rules.new_table(config, rack)
        self.steps: list[dict[str, Any]] = []
        self.records: list[dict[str, Any]] = []

    @classmethod
    def open(cls, config: object, rack: int, game: str = "craps") -> LiveTable:
        """A table on a protocol config of ``game`` (ConfigError names a malformed field)."""
        return cls(GAMES[game].parse_config(config), rack, game)

    def step(self, step: dict[str, Any]) -> dict[str, Any]:
        """Play one step (already checked with the game's ``check_step``): its record."""
        record = self.rules.apply_step(self.table, step)
        self.steps.append(step)
        self.records.append(record)
        return record

    def resume(self) -> dict[str, Any]:
        """The ``table.resume`` answer: how many steps the table has played and how it stands."""
        return {"steps": len(self.steps), "table": self.table.state()}

    def recall(self) -> dict[str, Any]:
        return recall_of(self.rack, self.steps, self.records, self.game)


def play_live(config: RoundConfig, case: object) -> dict[str, Any]:
    """The expected answer of a live-suite vector: the round's records, exactly ``craps.round``'s
    (played one step per request, a live table answers each step with the same record)."""
    return play(config, case)


GAMES: dict[str, Game] = {
    "craps": Game("craps", SUITE_OP, parse_round_config, Table, craps_round.check_step, apply_step, ends_game,
                  _wagered, CATEGORIES, initial_table),
    "paigow": Game("paigow", PAIGOW_OP, parse_paigow_config, live_paigow.PaigowTable, live_paigow.check_step,
                   live_paigow.apply_step, live_paigow.ends_game, live_paigow.wagered, live_paigow.CATEGORIES,
                   live_paigow.initial_table),
}
"""The games a live table plays (``table.open``'s ``game``, craps by default)."""
GAME_OF_OP = {rules.op: name for name, rules in GAMES.items()}
"""The live suite's ops -> the game their tables play."""
SUITE_ORACLE = {SUITE_OP: (parse_round_config, play_live), PAIGOW_OP: (parse_paigow_config, live_paigow.play)}
"""The live suite's ops -> (config parser, case handler), as :data:`tablecert.oracle.vendor.OPS`."""
