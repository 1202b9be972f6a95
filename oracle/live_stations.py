"""A live craps table with player stations (New; the contract's *Live tables*, *Stations*): many
players' stations on one shooter's dice, their disconnects, the table disabled and enabled, each
station's game records and the meters.

A station table is opened with ``stations`` (1 to :data:`MAX_STATIONS` of ``{"station": 1..8,
"rack": int}``) and ``on_disable`` (:data:`ON_DISABLE`, INT-DISABLE-ROUND). Each station is one
player's :class:`tablecert.oracle.craps_round.Table` (its bets, its rack: one truth, every bet,
odds, call and take-down is :func:`~tablecert.oracle.craps_round.apply_step` on it); a roll is
rolled on every station's table, so the point is the table's and every station's bets are settled
by the same dice. Besides ``craps.round``'s acts (with ``station``), a step may be:

* ``{"act": "buy_in", "station": S, "amount": int}``: chips bought (``not_positive`` unless > 0);
* ``{"act": "cash_out", "station": S}``: the station's whole rack paid out (its layout stays);
* ``{"act": "disconnect" | "reconnect", "station": S}`` (``table.disconnect`` /
  ``table.reconnect``): a disconnected station's bets stay in action and are settled by the rolls;
  its own acts are refused (``station_disconnected``) until it reconnects (INT-DISCONNECT-KEEP);
* ``{"act": "disable" | "enable"}`` (``table.disable`` / ``table.enable``): a disabled table
  refuses every step but enable, disconnect and reconnect (``table_disabled``); the round in flight
  is kept as it stands, or voided under ``on_disable: "void"``: every bet of every station handed
  back whole, flat, odds and commission, and the point cleared (INT-DISABLE-ROUND).

Refusals, first applicable wins: ``table_disabled``, ``no_such_station``, then the act's own
(``table_enabled``, ``station_connected``, ``station_disconnected``, ``not_positive``, then
``craps.round``'s). A step's record is ``craps.round``'s with every event tagged with its
``station`` and the table as :meth:`StationTable.state` shows it.

**Records** (:class:`StationBooks`, INT-STATION-GAME): a station's game is the table's game (the
run of steps up to the roll deciding the pass line, or up to a void) in which it took part: it
held a bet or sent a bet, odds, working or take-down step. Its record holds the station's own
steps and the table's steps (rolls, disable, enable) from the moment it took part, each with the station's events and view of the
table; its ``status`` (:data:`~tablecert.oracle.game_records.STATUSES`), ``credits_start`` and ``credits_end`` (the station's rack
before its first step and after the last; None in progress), ``wagers`` per category as
``table.recall`` counts them, and ``wins`` (flat and odds wins). The **meters** (:func:`meters_of`)
are sums of the records and the steps: ``buy_ins`` (the opening rack and every buy-in),
``wagered`` and ``won`` (over every record), ``cashed_out``, ``games_played`` (the complete
records); the table's are the sums over its stations. Money is conserved per station after every
step. Integers only.
"""

from __future__ import annotations

from typing import Any

from tablecert.oracle import craps_round, live_tables
from tablecert.oracle.craps_round import MAX_AMOUNT, RoundConfig, Table, parse_round_config
from tablecert.oracle.errors import CaseError
from tablecert.oracle.game_records import METERS, GameBooks, config_digest
from tablecert.oracle.live_tables import CATEGORIES, GAMES, RECALL_GAMES
from tablecert.oracle.table_config import is_int

STATIONS_OP = "craps.stations"
"""The op of the live suite's station vectors."""
FEATURES = ("stations", "disconnects", "disables", "meters")
"""What a vendor may declare in hello's ``table_features`` (New): station tables with their game
records, station disconnects, table disables, ``table.meters``."""
MAX_STATIONS = 8
ON_DISABLE = ("keep", "void")
STATION_ACTS = ("bet", "odds", "working", "take_down", "buy_in", "cash_out")
LINK_ACTS = ("disconnect", "reconnect")
TABLE_ACTS = ("roll", "disable", "enable")
ACTS = STATION_ACTS + LINK_ACTS + TABLE_ACTS
OP_OF_ACT = {"disconnect": "table.disconnect", "reconnect": "table.reconnect", "disable": "table.disable",
             "enable": "table.enable"}
"""The request that carries each act (``table.step`` for the others)."""
FEATURE_OF_ACT = {"disconnect": "disconnects", "reconnect": "disconnects", "disable": "disables",
                  "enable": "disables"}
WHILE_DISABLED = ("enable", "disconnect", "reconnect")
WAGER_ACTS = ("bet", "odds", "working", "take_down")
"""A station takes part in a game by one of these (or by a bet on the layout); its buy-ins,
cash-outs and disconnects are recorded in a game it takes part in."""


def check_opening(stations: object, on_disable: object) -> list[dict[str, int]]:
    """``table.open``'s ``stations`` and ``on_disable`` (CaseError ``invalid_request``)."""
    if not isinstance(stations, list) or not 1 <= len(stations) <= MAX_STATIONS:
        raise CaseError("invalid_request", f"'stations' must be a list of 1 to {MAX_STATIONS} stations")
    seen = set()
    for seat in stations:
        if not isinstance(seat, dict) or set(seat) != {"station", "rack"}:
            raise CaseError("invalid_request", "a station is {station, rack}")
        if not is_int(seat["station"]) or not 1 <= seat["station"] <= MAX_STATIONS or seat["station"] in seen:
            raise CaseError("invalid_request", f"'station' must be a distinct integer from 1 to {MAX_STATIONS}")
        if not is_int(seat["rack"]) or not 0 <= seat["rack"] <= MAX_AMOUNT:
            raise CaseError("invalid_request", "a station's 'rack' must be an integer from 0 to 2^53 - 1")
        seen.add(seat["station"])
    if on_disable not in ON_DISABLE:
        raise CaseError("invalid_request", f"'on_disable' must be one of {', '.join(ON_DISABLE)}")
    return [dict(seat) for seat in stations]


def check_step(step: object) -> dict[str, Any]:
    """A station table's step, its shape (CaseError ``invalid_request``)."""
    if not isinstance(step, dict) or step.get("act") not in ACTS:
        raise CaseError("invalid_request", f"a step is an object whose 'act' is one of {', '.join(ACTS)}")
    act = step["act"]
    if act in STATION_ACTS + LINK_ACTS and not is_int(step.get("station")):
        raise CaseError("invalid_request", f"a {act} step needs an integer 'station'")
    if act == "buy_in" and not is_int(step.get("amount")):
        raise CaseError("invalid_request", "a buy_in step needs an integer 'amount'")
    if act in craps_round.ACTS:
        craps_round.check_step({k: v for k, v in step.items() if k != "station"})
    return step


class Seat:
    """One player station: its round table (bets, rack) and whether it is connected."""

    def __init__(self, config: RoundConfig, station: int, rack: int) -> None:
        self.station, self.table, self.connected = station, Table(config, rack), True


class StationTable:
    """The oracle's station table (see the module docstring)."""

    def __init__(self, config: RoundConfig, stations: list[dict[str, int]], on_disable: str) -> None:
        self.config, self.on_disable, self.enabled = config, on_disable, True
        self.seats = {s["station"]: Seat(config, s["station"], s["rack"]) for s in sorted(stations,
                                                                                       key=lambda s: s["station"])}

    @property
    def point(self) -> int | None:
        return next(iter(self.seats.values())).table.point

    def state(self) -> dict[str, Any]:
        return {"point": self.point, "enabled": self.enabled,
                "stations": [{"station": s.station, "connected": s.connected, "rack": s.table.rack,
                              "bets": s.table.state()["bets"]} for s in self.seats.values()]}

    def _seat(self, station: int) -> Seat:
        if station not in self.seats:
            raise craps_round.Refused("no_such_station")
        return self.seats[station]

    def _void(self) -> list[dict[str, Any]]:
        """Every bet of every station handed back whole (commission too), the point cleared."""
        events = []
        for seat in self.seats.values():
            t = seat.table
            for bet in sorted(t.bets.values(), key=lambda b: craps_round.BET_IDS.index(b.bet_id)):
                events.append({"station": seat.station, "bet": bet.bet_id, "outcome": "voided", "flat_win": 0,
                               "odds_win": 0, "point": None, "flat_stake": "returned",
                               "odds_stake": "returned" if bet.odds else "none", "flat_returned": bet.flat,
                               "odds_returned": bet.odds, "commission_taken": 0,
                               "commission_returned": bet.commission})
                t.rack += bet.flat + bet.odds + bet.commission
            t.bets.clear()
            t.point = None
        return events

    def _act(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        act = step["act"]
        if not self.enabled and act not in WHILE_DISABLED:
            raise craps_round.Refused("table_disabled")
        if act == "enable" or act == "disable":
            if self.enabled == (act == "enable"):
                raise craps_round.Refused("table_enabled" if self.enabled else "table_disabled")
            self.enabled = act == "enable"
            return self._void() if act == "disable" and self.on_disable == "void" else []
        if act == "roll":
            events = []
            for seat in self.seats.values():        # invalid dice are refused by the first, nothing changed
                events += [{"station": seat.station, **e} for e in seat.table.roll(step["dice"])]
            return events
        seat = self._seat(step["station"])
        if act in LINK_ACTS:
            if seat.connected == (act == "reconnect"):
                raise craps_round.Refused("station_connected" if seat.connected else "station_disconnected")
            seat.connected = act == "reconnect"
            return []
        if not seat.connected:
            raise craps_round.Refused("station_disconnected")
        t = seat.table
        if act == "buy_in":
            if step["amount"] <= 0:
                raise craps_round.Refused("not_positive")
            if t.rack + step["amount"] > MAX_AMOUNT:
                raise craps_round.Refused("above_maximum")
            t.rack += step["amount"]
            t.start += step["amount"]
            return [{"station": seat.station, "bought_in": step["amount"]}]
        if act == "cash_out":
            paid, t.rack = t.rack, 0
            t.start -= paid
            return [{"station": seat.station, "cashed_out": paid}]
        record = craps_round.apply_step(t, {k: v for k, v in step.items() if k != "station"})
        if not record["accepted"]:
            raise craps_round.Refused(record["error"])
        return [{"station": seat.station, **e} for e in record["events"]]

    def apply(self, step: dict[str, Any]) -> dict[str, Any]:
        """One checked step: its record (the table unchanged when refused)."""
        try:
            record: dict[str, Any] = {"accepted": True, "error": None, "events": self._act(step)}
        except craps_round.Refused as refusal:
            record = {"accepted": False, "error": refusal.code, "events": []}
        for seat in self.seats.values():
            seat.table.check_conservation()
        record["table"] = self.state()
        return record


def initial_state(stations: list[dict[str, int]]) -> dict[str, Any]:
    return {"point": None, "enabled": True,
            "stations": [{"station": s["station"], "connected": True, "rack": s["rack"], "bets": []}
                         for s in sorted(stations, key=lambda s: s["station"])]}


def ends_game(step: dict[str, Any], record: dict[str, Any], on_disable: str) -> bool:
    """Whether a step ends the table's game: the roll deciding the pass line, or a void."""
    if not record["accepted"]:
        return False
    if step["act"] == "disable":
        return on_disable == "void"
    return step["act"] == "roll" and record["table"]["point"] is None


def _view(table: dict[str, Any], station: int) -> dict[str, Any]:
    seat = next(s for s in table["stations"] if s["station"] == station)
    return {"point": table["point"], "enabled": table["enabled"], "connected": seat["connected"],
            "rack": seat["rack"], "bets": seat["bets"]}


class StationBooks(GameBooks):
    """Every station's game records and meters, kept step by step (see the module docstring and
    :class:`~tablecert.oracle.game_records.GameBooks`): :meth:`add` each step with its record (and
    with ``timed`` the vendor's clock at it); a game record also has ``started`` (the time of the
    step it began at) and ``ended`` (of the step that ended it; None in progress). ``stamp``
    (``config``, ``build``) is added to each record; ``keep`` bounds how many records of each
    station are held (all when None)."""

    def __init__(self, stations: list[dict[str, int]], on_disable: str, stamp: dict[str, Any] | None = None,
                 timed: bool = False, keep: int | None = None) -> None:
        super().__init__({s["station"]: s["rack"] for s in stations}, CATEGORIES, stamp, timed, keep)
        self.on_disable = on_disable
        self.before = initial_state(stations)

    def _take_part(self, station: int, at: str | None) -> None:
        if station not in self.current:
            self.begin(station, _view(self.before, station)["rack"], at, {"station": station})

    def add(self, step: dict[str, Any], record: dict[str, Any], at: str | None = None) -> None:
        """One more step and its record."""
        own = step.get("station") if step["act"] in STATION_ACTS + LINK_ACTS else None
        if own in self.games and step["act"] in WAGER_ACTS:
            self._take_part(own, at)
        for e in record["events"]:
            m = self.meter[e["station"]]
            m["buy_ins"] += e.get("bought_in", 0)
            m["cashed_out"] += e.get("cashed_out", 0)
        for station, game in self.current.items():
            if own is not None and own != station:
                continue
            view, was = _view(record["table"], station), _view(self.before, station)
            events = [{k: v for k, v in e.items() if k != "station"}
                      for e in record["events"] if e["station"] == station]
            game["steps"].append({"step": step, "accepted": record["accepted"], "error": record["error"],
                                  "events": events, "table": view})
            if step["act"] in ("bet", "odds") and (wagered := GAMES["craps"].wagered(step, record, was)) is not None:
                self.wager(station, *wagered)
            self.win(station, sum(e.get("flat_win", 0) + e.get("odds_win", 0) for e in events))
        self.before = record["table"]
        self.steps += 1
        if ends_game(step, record, self.on_disable):
            for station in list(self.current):
                self.end(station, "voided" if step["act"] == "disable" else "complete",
                         _view(record["table"], station)["rack"], at)
            for seat in record["table"]["stations"]:
                if seat["bets"]:          # a come bet that stays: the station takes part in the next game
                    self._take_part(seat["station"], at)

    def recall(self, station: int) -> dict[str, Any]:
        """``table.recall`` of ``station``: its last ten game records, oldest first, the one in progress last."""
        return {"station": station, "games": self.recalled(station)}

    def meters(self) -> dict[str, Any]:
        """``table.meters``: per station, and the table's sums."""
        stations = [{"station": s, **m} for s, m in sorted(self.meter.items())]
        return {"stations": stations, "table": {k: sum(m[k] for m in self.meter.values()) for k in METERS}}


def _books(case: dict[str, Any], records: list[dict[str, Any]], stamp: dict[str, Any] | None = None) -> StationBooks:
    books = StationBooks(case["stations"], case.get("on_disable", "keep"), stamp)
    for step, record in zip(case["steps"], records):
        books.add(step, record)
    return books


def station_games(case: dict[str, Any], records: list[dict[str, Any]], stamp: dict[str, Any] | None = None,
                  ) -> dict[int, list[dict[str, Any]]]:
    """Every station's game records after the case's first ``len(records)`` steps, oldest first."""
    return _books(case, records, stamp).games


def recall_of(case: dict[str, Any], records: list[dict[str, Any]], station: int,
              stamp: dict[str, Any] | None = None) -> dict[str, Any]:
    """``table.recall`` of ``station`` after the case's first ``len(records)`` steps."""
    return _books(case, records, stamp).recall(station)


def meters_of(case: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """``table.meters`` after the case's first ``len(records)`` steps (see the module docstring)."""
    return _books(case, records).meters()


def read_case(case: object) -> dict[str, Any]:
    """A station vector's case ``{"stations", "on_disable", "steps"}`` (CaseError ``invalid_request``)."""
    if not isinstance(case, dict) or not isinstance(case.get("steps"), list):
        raise CaseError("invalid_request", "a case is {stations, on_disable, steps}")
    check_opening(case.get("stations"), case.get("on_disable"))
    for step in case["steps"]:
        check_step(step)
    return case


def play(config: RoundConfig, case: object) -> dict[str, Any]:
    """A station vector's expected answer: ``{"steps": [record, ...]}``."""
    case = read_case(case)
    table = StationTable(config, case["stations"], case["on_disable"])
    return {"steps": [table.apply(step) for step in case["steps"]]}


class LiveStationTable:
    """A station table as a live table keeps it (a vendor's): its opening, every step played with
    its record, and the game records and meters kept as it goes, with the vendor's clock at each
    step (:class:`StationBooks`)."""

    table_class = StationTable

    def __init__(self, config: object, stations: list[dict[str, int]], on_disable: str, build: str = "") -> None:
        self.sent = {"config": config, "stations": stations, "on_disable": on_disable}
        self.table = self.table_class(parse_round_config(config), stations, on_disable)
        self.books = StationBooks(stations, on_disable, {"config": config_digest(config), "build": build}, timed=True,
                                  keep=RECALL_GAMES)
        self.steps = 0

    def step(self, step: dict[str, Any], at: str) -> dict[str, Any]:
        record = self.table.apply(step)
        self.books.add(step, record, at)
        self.steps += 1
        return record

    def resume(self) -> dict[str, Any]:
        return {"steps": self.steps, "table": self.table.state()}

    def recall(self, station: int) -> dict[str, Any]:
        return self.books.recall(station)

    def opening(self, table_id: str) -> dict[str, Any]:
        """The journal entry that opens this table."""
        return {"open": table_id, **self.sent}

    def snapshot(self) -> dict[str, Any]:
        """Everything the table holds, as JSON (:meth:`restore` takes it back): a journal that
        keeps this instead of the steps before it restarts in a time that does not grow with
        the table's history."""
        t, b = self.table, self.books
        return {"steps": self.steps, "enabled": t.enabled,
                "seats": [{"station": seat.station, "connected": seat.connected, "point": seat.table.point,
                           "rack": seat.table.rack, "ledger": [seat.table.start, seat.table.paid, seat.table.taken],
                           "bets": [[bet.kind, bet.point, bet.flat, bet.odds, bet.commission, bet.call]
                                    for bet in seat.table.bets.values()]} for seat in t.seats.values()],
                "books": {"before": b.before, "games": list(b.games.items()), "numbered": list(b.numbered.items()),
                          "current": list(b.current), "meter": list(b.meter.items()), "steps": b.steps}}

    def restore(self, state: dict[str, Any]) -> None:
        """The table as :meth:`snapshot` saw it."""
        self.steps, self.table.enabled = state["steps"], state["enabled"]
        for saved in state["seats"]:
            seat = self.table.seats[saved["station"]]
            seat.connected, seat.table.point, seat.table.rack = saved["connected"], saved["point"], saved["rack"]
            seat.table.start, seat.table.paid, seat.table.taken = saved["ledger"]
            bets = [craps_round.Bet(kind, point, flat, odds, commission, call)
                    for kind, point, flat, odds, commission, call in saved["bets"]]
            seat.table.bets = {bet.bet_id: bet for bet in bets}
        b, saved_books = self.books, state["books"]
        b.before, b.steps = saved_books["before"], saved_books["steps"]
        b.games = {station: games for station, games in saved_books["games"]}
        b.numbered = dict(saved_books["numbered"])
        b.meter = dict(saved_books["meter"])
        b.current = {station: b.games[station][-1] for station in saved_books["current"]}

    def meters(self) -> dict[str, Any]:
        return self.books.meters()


def features_of(case: object) -> tuple[str, ...]:
    """The table features a station vector's case uses (:data:`FEATURES` but ``meters``)."""
    steps = case.get("steps", []) if isinstance(case, dict) else []
    acts = {step.get("act") for step in steps if isinstance(step, dict)}
    return ("stations", *(f for f in ("disconnects", "disables")
                          if any(FEATURE_OF_ACT.get(act) == f for act in acts)))


SUITE_ORACLE = {**live_tables.SUITE_ORACLE, STATIONS_OP: (parse_round_config, play)}
"""The live suite's ops -> (config parser, case handler): the live tables' and the station tables'."""
