"""The ``live`` suite's station tables (op ``craps.stations``, New): many stations on one shooter,
disconnects, disables and voids, each vector a table's opening (``stations``, ``on_disable``) and
its script (:mod:`tablecert.oracle.live_stations`).

* **Named scripts**, flagged ``LiveEveryStep`` (interrupted at every step) where short enough:
  eight stations on one shooter (:func:`eight_stations`); a disable mid-round then enable, the round
  kept (:func:`disable_kept`); a void under ``on_disable: "void"`` with a commission held
  (:func:`disable_voids`); and a disconnect of one station at every step of a round
  (:func:`disconnect_everywhere`, one vector per step, its station's refused bet while away and its
  reconnect three steps later), interrupted at seeded points.
* **Seeded sessions** (:func:`station_session`): 2 to 8 stations, random legal play of each
  station (:func:`tablecert.vectors.live_cases.player_moves`), shared rolls, buy-ins, cash-outs,
  disconnects and reconnects, disables and enables, ``on_disable`` in turn; flagged ``LiveSeeded``.

The groups are split by the features their vectors use
(:func:`tablecert.oracle.live_stations.features_of`), so a vendor that declares fewer features
gets whole batches as unsupported. Expected answers are the
oracle's (:func:`tablecert.oracle.live_stations.play`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tablecert.oracle import craps
from tablecert.oracle.craps_round import DICE_OF_TOTAL, RoundConfig, parse_round_config
from tablecert.oracle.live_stations import LINK_ACTS, STATIONS_OP, StationTable, ends_game
from tablecert.vectors.craps_cases import commission_variant
from tablecert.vectors.live_cases import Draw, player_moves
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.round_cases import CLAUSES, default_house_rules

OP = STATIONS_OP
SEED = b"tablecert live stations 1"
SESSIONS = 6
SESSION_GAMES = (4, 8)
MAX_SESSION_STEPS = 160
RACK_UNITS = 2_000
STATION_CLAUSES = (*CLAUSES, "INT-STATION-GAME")


def _rack(config: RoundConfig) -> int:
    return RACK_UNITS * config.table.unit


def _opening(config: RoundConfig, stations: list[int], on_disable: str = "keep") -> dict[str, Any]:
    return {"stations": [{"station": s, "rack": _rack(config)} for s in stations], "on_disable": on_disable}


def bet(station: int, kind: str, amount: int) -> dict[str, Any]:
    return {"act": "bet", "station": station, "bet": kind, "amount": amount}


def odds(station: int, bet_id: str, amount: int) -> dict[str, Any]:
    return {"act": "odds", "station": station, "bet": bet_id, "amount": amount}


def roll(total: int) -> dict[str, Any]:
    return {"act": "roll", "dice": list(DICE_OF_TOTAL[total])}


def _most(config: RoundConfig, kind: str, flat: int, point: int) -> int:
    """The largest odds behind ``flat`` on ``point`` (above the free odds: a commission is held)."""
    return craps.limits(config.table, kind, flat, point)[1]


def eight_stations(config: RoundConfig) -> dict[str, Any]:
    """Eight stations on one shooter: every line bet kind, odds (one above the free odds), come
    bets travelling, a buy-in and a cash-out, the point made (game 1) and a seven-out (game 2)."""
    u = config.table.unit
    f = 5 * u
    steps = [bet(s, "pass" if s % 2 else "dont_pass", f * s) for s in range(1, 9)]
    steps += [roll(6), odds(1, "pass", _most(config, "pass", f, 6)), odds(2, "dont_pass", 2 * f),
              bet(3, "come", f), bet(4, "dont_come", f), roll(8), odds(3, "come8", f),
              {"act": "buy_in", "station": 5, "amount": 100 * u}, {"act": "cash_out", "station": 6},
              bet(6, "come", f), roll(6), bet(7, "pass", f), roll(4),
              odds(7, "pass", _most(config, "pass", f, 4)), roll(7)]
    return {**_opening(config, list(range(1, 9))), "steps": steps}


def _kept_round(config: RoundConfig) -> list[dict[str, Any]]:
    """Three stations' round with a point, odds with a commission and a come bet."""
    f = 5 * config.table.unit
    return [bet(1, "pass", f), bet(2, "dont_pass", f), roll(5), odds(1, "pass", _most(config, "pass", f, 5)),
            bet(3, "come", f), roll(9), odds(3, "come9", f), roll(4)]


def disable_kept(config: RoundConfig) -> dict[str, Any]:
    """A disable mid-round (keep): a roll, a bet, odds and a second disable refused while
    disabled; the round goes on after enable to its decision."""
    f = 5 * config.table.unit
    steps = [*_kept_round(config), {"act": "disable"}, roll(5), bet(2, "dont_come", f), odds(2, "dont_pass", f),
             {"act": "disable"},
             {"act": "enable"}, {"act": "enable"}, bet(2, "dont_come", f), roll(5), bet(1, "pass", f), roll(11)]
    return {**_opening(config, [1, 2, 3]), "steps": steps}


def disable_voids(config: RoundConfig) -> dict[str, Any]:
    """A void under ``on_disable: "void"``: every bet handed back with its commission, the point
    cleared; a new game after enable; then a void on a come-out roll with line bets up."""
    f = 5 * config.table.unit
    steps = [*_kept_round(config), {"act": "disable"}, roll(5), {"act": "enable"}, roll(4),
             bet(1, "pass", f), bet(2, "dont_pass", f), roll(7), bet(1, "pass", f), {"act": "disable"},
             {"act": "enable"}, roll(7)]
    return {**_opening(config, [1, 2, 3], "void"), "steps": steps}


LONG_GAMES = 23
"""Games station 1 plays at the long table: past ten (the recall keeps ten, so a game counter
restored from the kept records is caught) and past 64 steps (a journal compacted every 64 steps,
as the reference vendor's is, restarts from its snapshot with station 2 still away)."""


def long_table(config: RoundConfig) -> dict[str, Any]:
    """Station 2 disconnected from the first step while station 1 plays :data:`LONG_GAMES` games
    (a point made each), then a bet of station 2 refused while away, its reconnect, and one more
    game of station 1 (numbered on from the 23 before it)."""
    f = 5 * config.table.unit
    games = [step for _ in range(LONG_GAMES) for step in (bet(1, "pass", f), roll(4), roll(4))]
    steps = [{"act": "disconnect", "station": 2}, *games, bet(2, "pass", f), {"act": "reconnect", "station": 2},
             bet(1, "pass", f), roll(7)]
    return {**_opening(config, [1, 2]), "steps": steps}


def disconnect_everywhere(config: RoundConfig) -> Iterator[tuple[int, dict[str, Any]]]:
    """Station 2 disconnected before each step of a round in turn (and after its last): its bet
    while away refused, its reconnect three steps later (or at the end)."""
    f = 5 * config.table.unit
    base = [*_kept_round(config), bet(2, "dont_come", f), roll(8), roll(5)]
    for k in range(len(base) + 1):
        steps = [*base[:k], {"act": "disconnect", "station": 2}, bet(2, "dont_come", f), *base[k:k + 3],
                 {"act": "reconnect", "station": 2}, *base[k + 3:]]
        yield k, {**_opening(config, [1, 2, 3]), "steps": steps}


def station_session(config: RoundConfig, stations: list[int], on_disable: str, games: int,
                    draw: Draw) -> dict[str, Any]:
    """A seeded session: each step a station's legal move, a roll, a buy-in or cash-out, a
    disconnect or reconnect, or a disable or enable, until ``games`` games end (or the step cap)."""
    opening = _opening(config, stations, on_disable)
    table = StationTable(config, opening["stations"], on_disable)
    steps: list[dict[str, Any]] = []
    done = 0
    while done < games and len(steps) < MAX_SESSION_STEPS:
        seat = table.seats[draw.pick(stations)]
        kind = draw.below(20)
        if not table.enabled:
            step: dict[str, Any] = {"act": "enable"} if draw.below(3) else roll(2 + draw.below(11))
        elif kind == 0:
            step = {"act": "disable"}
        elif kind == 1:
            step = {"act": LINK_ACTS[not seat.connected], "station": seat.station}
        elif kind == 2:
            step = {"act": "buy_in", "station": seat.station, "amount": (1 + draw.below(50)) * config.table.unit}
        elif kind == 3 and not draw.below(3):
            step = {"act": "cash_out", "station": seat.station}
        elif kind < 12 and (moves := player_moves(seat.table, draw)):
            step = dict(draw.pick(moves), station=seat.station)
        else:
            step = roll(2 + draw.below(11))
        steps.append(step)
        record = table.apply(step)
        done += step["act"] == "roll" and ends_game(step, record, on_disable)
    return {**opening, "steps": steps}


def station_groups(table: dict[str, Any]) -> Iterator[VectorGroup]:
    """The live suite's station groups on one craps table (a protocol table config)."""
    charged = dict(commission_variant(table), house_rules=default_house_rules())
    config = parse_round_config(charged)
    yield VectorGroup(OP, charged, "eight stations on one shooter, interrupted at every step",
                      [Vector(eight_stations(config), "eight stations: every line bet, odds, come bets, a buy-in "
                              "and a cash-out, two games", ("LiveStations", "LiveEveryStep"), STATION_CLAUSES)])
    yield VectorGroup(OP, charged, "a disconnect of station 2 at every step of a round",
                      [Vector(case, f"station 2 disconnected before step {k} of the round, reconnected three steps "
                              "later", ("LiveDisconnect", "LiveEveryStep" if k == 4 else "LiveSeeded"),
                              (*STATION_CLAUSES, "INT-DISCONNECT-KEEP"))
                       for k, case in disconnect_everywhere(config)])
    yield VectorGroup(OP, charged, "the table disabled mid-round, kept or voided, interrupted at every step",
                      [Vector(disable_kept(config), "disabled mid-round, the round kept, enabled: it goes on",
                              ("LiveDisable", "LiveEveryStep"), (*STATION_CLAUSES, "INT-DISABLE-ROUND")),
                       Vector(disable_voids(config), "disabled mid-round under on_disable void: every wager and "
                              "commission handed back", ("LiveVoid", "LiveEveryStep"),
                              (*STATION_CLAUSES, "INT-DISABLE-ROUND"))])
    plain = dict(table, house_rules=default_house_rules())     # another config: each record names its table's
    yield VectorGroup(OP, plain, "a long table: a station away past many games, interrupted at every step from its 64th",
                      [Vector(long_table(parse_round_config(plain)), f"station 2 away while station 1 plays "
                              f"{LONG_GAMES} games on a commission-free table (another config than the others'), then "
                              "refused, reconnected; one more game", ("LiveStations", "LiveDisconnect", "LiveEveryLateStep"),
                              (*STATION_CLAUSES, "INT-DISCONNECT-KEEP"))])
    draw = Draw(SEED)
    sessions = []
    for i in range(SESSIONS):
        stations = sorted(set([1 + draw.below(8) for _ in range(2 + i)]) | {1 + i % 8})
        on_disable = ("keep", "void")[i % 2]
        games = SESSION_GAMES[i % len(SESSION_GAMES)]
        sessions.append(Vector(station_session(config, stations, on_disable, games, draw),
                               f"seeded station session {i + 1}: stations {stations}, on_disable {on_disable}, "
                               f"{games} games", ("LiveStations", "LiveDisconnect", "LiveDisable", "LiveSeeded"),
                               (*STATION_CLAUSES, "INT-DISCONNECT-KEEP", "INT-DISABLE-ROUND")))
    yield VectorGroup(OP, charged, f"{SESSIONS} seeded station sessions mixing disconnects, disables, buy-ins and "
                      "cash-outs, interrupted at seeded points", sessions)
