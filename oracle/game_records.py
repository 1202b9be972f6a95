"""Game records and meters of a live table (New; the contract's *Game records* and *Meters*): the
one bookkeeping behind a craps table's stations (:class:`tablecert.oracle.live_stations.StationBooks`)
and a pai gow table (:class:`tablecert.oracle.paigow_records.PaigowBooks`).

A **record** is one game of one key (a station; the pai gow table's one rack): ``{"game": N,
["station": S,] "status", ["started", "ended",] "credits_start", "credits_end", "wagers":
{CATEGORY: int}, "wins": int, "config", "build", "steps": [...]}`` (:meth:`GameBooks.begin`:
numbered 1 first per key; ``status`` one of :data:`STATUSES`; ``started`` and ``ended`` the
vendor's clock when the books are ``timed``; ``credits_end`` and ``ended`` None in progress;
``config`` and ``build`` the ``stamp``). The **meters** of a key (:data:`METERS`) are sums of its
records and its steps: ``buy_ins`` (the opening rack and every buy-in), ``wagered`` and ``won``
(over every record, whatever its status), ``cashed_out`` (every cash-out), ``games_played`` (its
complete records). Every wager and win goes to the game record and the meter in one call
(:meth:`GameBooks.wager`, :meth:`GameBooks.win`), so the two cannot drift apart. Integers only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from typing import Any

from tablecert.oracle.live_tables import RECALL_GAMES

METERS = ("buy_ins", "wagered", "won", "cashed_out", "games_played")
STATUSES = ("in_progress", "complete", "voided")


def config_digest(config: object) -> str:
    """A record's ``config``: ``sha256:`` and the hex digest of the table config as sent, in
    canonical JSON (keys sorted, no spaces, ASCII)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class GameBooks:
    """The game records and meters of ``racks`` (key -> its opening rack), kept step by step by a
    subclass: :meth:`begin` a key's game, :meth:`wager` and :meth:`win` into it, :meth:`end` it.
    ``categories`` are the wager categories of a record, ``stamp`` (``config``, ``build``) is added
    to each, ``timed`` records carry the clock given, ``keep`` bounds the records held per key
    (all when None)."""

    def __init__(self, racks: dict[Any, int], categories: tuple[str, ...], stamp: dict[str, Any] | None = None,
                 timed: bool = False, keep: int | None = None) -> None:
        self.categories, self.stamp, self.timed, self.keep = categories, stamp or {}, timed, keep
        self.games: dict[Any, list[dict[str, Any]]] = {key: [] for key in racks}
        self.numbered = dict.fromkeys(self.games, 0)
        self.current: dict[Any, dict[str, Any]] = {}
        self.meter = {key: dict(dict.fromkeys(METERS, 0), buy_ins=rack) for key, rack in racks.items()}
        self.steps = 0

    def begin(self, key: Hashable, credits_start: int, at: str | None, who: dict[str, Any]) -> dict[str, Any]:
        """A new game of ``key`` in progress (``who``: the fields naming whose it is)."""
        self.numbered[key] += 1
        clock = {"started": at, "ended": None} if self.timed else {}
        game = {"game": self.numbered[key], **who, "status": "in_progress", **clock, "credits_start": credits_start,
                "credits_end": None, "wagers": dict.fromkeys(self.categories, 0), "wins": 0, **self.stamp,
                "steps": []}
        self.current[key] = game
        played = self.games[key]
        played.append(game)
        if self.keep is not None and len(played) > self.keep:
            del played[0]
        return game

    def wager(self, key: Hashable, category: str, amount: int) -> None:
        """Chips of ``key`` put in action in its game in progress."""
        self.current[key]["wagers"][category] += amount
        self.meter[key]["wagered"] += amount

    def win(self, key: Hashable, amount: int) -> None:
        """A win paid to ``key`` in its game in progress."""
        self.current[key]["wins"] += amount
        self.meter[key]["won"] += amount

    def end(self, key: Hashable, status: str, credits_end: int, at: str | None) -> None:
        """``key``'s game in progress ends with ``status`` and its rack after the last step."""
        game = self.current.pop(key)
        game["status"], game["credits_end"] = status, credits_end
        self.meter[key]["games_played"] += status == "complete"
        if self.timed:
            game["ended"] = at

    def recalled(self, key: Hashable) -> list[dict[str, Any]]:
        """``key``'s last ten records, oldest first (the one in progress last)."""
        return self.games[key][-RECALL_GAMES:]
