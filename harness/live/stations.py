"""Playing a station table of the live suite (op ``craps.stations``, New), with power cuts, judged
against the oracle (:mod:`tablecert.oracle.live_stations`).

:class:`StationPlayer` plays one vector as :func:`tablecert.harness.live.driver.play_vector` plays
a single player's round, and with the same interruptions (``between``, ``written``,
``answered``; a restart, ``table.resume`` exact, a step in flight applied wholly or not at all),
and more:

* each act is sent by its request: ``table.step``, or ``table.disconnect``, ``table.reconnect``,
  ``table.disable``, ``table.enable`` (each with its ``seq``);
* the recall of **every station** is judged after the table is opened, after every game, after
  every restart and at the end, and the reconnected station's after every reconnect; each
  against the oracle's records of the same steps (:class:`~tablecert.oracle.live_stations.StationBooks`,
  kept step by step) with this run's ``config`` digest and the vendor's ``build``; the vendor's
  ``started`` and ``ended`` times are judged for presence and order (:func:`time_problem`), then
  left out of the comparison;
* a game's times never change once recalled (:func:`kept_times`): a restart's replay keeps them;
* after every restart the last answered step is sent again (refused ``out_of_sequence``, the
  table as before), and after the close the vendor is restarted and every op on the closed
  table must be refused ``no_such_table`` (a close kept in memory only comes back);
* with ``meters`` (the vendor declares them) ``table.meters`` is judged at the same moments,
  against the oracle's meters of the same steps.

Every answer judged names, in what was asked, the last event before it (the cut, disconnect or
disable: :attr:`StationPlayer.event`); an answer that differs names the station and the first
field that differs (:func:`station_fields`), so a finding reads e.g. ``table.recall of station 2
after the reconnect of station 2 (step 7; last event: the disconnect of station 2 at step 4):
first field games[game 1].status``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tablecert.harness.answers.compare import strict_equal
from tablecert.harness.live.cuts import REFUSED_AGAIN, REFUSED_CLOSED, RESENT, LifeCut, coded, refused
from tablecert.harness.live.driver import Divergence, Interruption, Play
from tablecert.harness.live.findings import station_fields
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.oracle.game_records import config_digest
from tablecert.oracle.live_stations import FEATURES, OP_OF_ACT, StationBooks, ends_game, features_of, initial_state
from tablecert.oracle.live_tables import RECALL_GAMES
from tablecert.oracle.paigow_records import FEATURE as PAIGOW_RECORDS

TIME_FIELDS = ("started", "ended")


def same(want: Any, got: Any) -> bool:
    """:func:`~tablecert.harness.answers.compare.strict_equal`, first tried as the two values'
    canonical JSON (equal text means equal values of the same JSON types: the common case of a
    long recall, compared by the C encoder)."""
    try:
        if json.dumps(want, sort_keys=True) == json.dumps(got, sort_keys=True):
            return True
    except (TypeError, ValueError):
        pass
    return strict_equal(want, got)


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.endswith("Z"):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def time_problem(games: Any) -> str | None:
    """What is wrong with a recall's times (None if nothing): every game has ``started``, every
    game not in progress ``ended`` (null in progress), RFC 3339 UTC, each start at or before its
    end and at or after the previous game's end."""
    if not isinstance(games, list):
        return None
    last: datetime | None = None
    for g in games:
        if not isinstance(g, dict):
            return None
        name = f"game {g.get('game')}"
        started, ended = _time(g.get("started")), _time(g.get("ended"))
        if started is None:
            return f"{name}: 'started' {g.get('started')!r} is not an RFC 3339 UTC time"
        if g.get("status") == "in_progress":
            if g.get("ended") is not None:
                return f"{name}: in progress, but 'ended' is {g.get('ended')!r}"
        elif ended is None:
            return f"{name}: 'ended' {g.get('ended')!r} is not an RFC 3339 UTC time"
        if last is not None and started < last:
            return f"{name}: started {g['started']} before the previous game ended"
        if ended is not None and ended < started:
            return f"{name}: ended {g['ended']} before it started"
        last = ended or started
    return None


def _untimed(result: Any) -> Any:
    """A recall without its games' times (judged apart)."""
    if not isinstance(result, dict) or not isinstance(result.get("games"), list):
        return result
    return {**result, "games": [{k: v for k, v in g.items() if k not in TIME_FIELDS} if isinstance(g, dict) else g
                                for g in result["games"]]}


def declared_features(hello: Any) -> tuple[str, ...]:
    """The table features a hello declares (``table_features``): the station tables' (``stations``
    needed by the others), then ``paigow_records``."""
    raw = hello.raw.get("table_features") if hello is not None and isinstance(hello.raw, dict) else None
    named = tuple(f for f in (*FEATURES, PAIGOW_RECORDS) if isinstance(raw, list) and f in raw)
    return tuple(f for f in named if "stations" in named or f not in FEATURES)


def judge_answer(play: Play, asked: str, answer: dict[str, Any], want: Any, recall: bool = False) -> None:
    """One answer judged (Divergence naming the first field that differs); a ``recall``'s game
    times judged for presence and order (:func:`time_problem`), left out of the comparison."""
    play.said(asked, _untimed(answer.get("result")) if recall else answer)
    got = answer["result"] if "result" in answer else {"error": answer["error"]}
    timed = got
    if recall and "result" in answer:
        got = _untimed(got)
    if not same({"result": want}, {"result": got}):
        fields = station_fields(want, got) or ["(answer)"]
        raise Divergence(f"{asked}: first field {fields[0]}", want, got)
    problem = time_problem(timed.get("games")) if recall and isinstance(timed, dict) else None
    if problem:           # every other field right: the times judged for presence and order
        raise Divergence(f"{asked}: times out of order or missing: {problem}", "times present and in order", problem)


def acting(step: dict[str, Any]) -> str:
    """Who acts in a step, for what was asked: `` (station 2: bet)``, `` (roll)``."""
    return f" (station {step['station']}: {step['act']})" if "station" in step else f" ({step['act']})"


def kept_times(play: Play, asked: str, station: int, games: Any, times: dict[tuple[int, Any], tuple[Any, Any]]) -> None:
    """A recall's times against those the station's games showed before (``times``, updated): a
    game's ``started``, once recalled, never changes, nor its ``ended`` once set; across a restart
    too (a replay that stamps the records again with its own clock is caught here)."""
    for g in games if isinstance(games, list) else ():
        if not isinstance(g, dict):
            continue
        key = (station, g.get("game"))
        before = times.get(key)
        now = (g.get("started"), g.get("ended"))
        if before is not None and (before[0] != now[0] or (before[1] is not None and before[1] != now[1])):
            field = "started" if before[0] != now[0] else "ended"
            raise Divergence(f"{asked}: times changed since the last recall: game {g.get('game')}'s {field}",
                             {field: before[0 if field == "started" else 1]}, {field: now[0 if field == "started" else 1]})
        times[key] = now


def undeclared(cases: list[Any], declared: tuple[str, ...]) -> list[str]:
    """The features the station vectors ``cases`` use that were not declared."""
    return sorted({f for case in cases for f in features_of(case) if f not in declared})


@dataclass
class StationPlayer:
    """Plays station vectors (see the module docstring): ``build`` the vendor's, ``meters`` whether
    ``table.meters`` is judged. Called as :func:`~tablecert.harness.live.driver.play_vector` is."""

    build: str
    meters: bool
    event: str = "none"

    def __call__(self, control: VendorInstance, config: Any, tc_id: int, case: dict[str, Any],
                 expected: list[dict[str, Any]], points: dict[int, str], play: Play, game: str = "",
                 life: object = None) -> None:
        # ``life``: the life cuts (harness/live/cuts.py) are played on single-player tables only; a
        # station table is cut at its steps (``points``), and its planned life cuts are not made.
        self.event = "none"
        tid = f"s{tc_id}"
        stamp = {"config": config_digest(config), "build": self.build}
        stations = [s["station"] for s in case["stations"]]
        steps = case["steps"]

        def expect(asked: str, answer: dict[str, Any], want: Any, recall: bool = False) -> None:
            judge_answer(play, f"{asked} (last event: {self.event})", answer, want, recall)

        books = StationBooks(case["stations"], case["on_disable"], stamp, keep=RECALL_GAMES)    # the oracle's, step by step

        times: dict[tuple[int, Any], tuple[Any, Any]] = {}      # (station, game) -> (started, ended) recalled

        def judge_books(done: int, why: str, only: list[int] | None = None) -> None:
            while books.steps < done:
                books.add(steps[books.steps], expected[books.steps])
            for s in only or stations:
                asked = f"table.recall of station {s} {why}"
                answer = control.request("table.recall", table=tid, station=s)
                expect(asked, answer, books.recall(s), recall=True)
                kept_times(play, f"{asked} (last event: {self.event})", s, answer["result"]["games"], times)
            if self.meters:
                expect(f"table.meters {why}", control.request("table.meters", table=tid), books.meters())

        def send(i: int, step: dict[str, Any], in_flight: bool = False, answered: bool = False) -> dict[str, Any]:
            op = OP_OF_ACT.get(step["act"], "table.step")
            fields: dict[str, Any] = {"table": tid, "seq": i}
            if op == "table.step":
                fields["step"] = step
            elif "station" in step:
                fields["station"] = step["station"]
            if in_flight:
                control.in_flight(op, answered, **fields)
                return {}
            return control.request(op, **fields)

        expect("table.open", control.request("table.open", table=tid, config=config, stations=case["stations"],
                                          on_disable=case["on_disable"]),
               {"steps": 0, "table": initial_state(case["stations"])})
        judge_books(0, "after the table was opened")
        for i, step in enumerate(steps):
            mode, sent = points.get(i), False
            if mode is not None:
                point = Interruption(i, mode)
                if mode != "between":
                    send(i, step, in_flight=True, answered=mode == "answered")
                control.restart()
                play.interrupted(point)
                self.event = f"the cut {point.describe()}"
                resumed = control.request("table.resume", table=tid)
                play.said(f"table.resume after {point.describe()}", resumed)
                got = play.restored = resumed["result"] if "result" in resumed else {"error": resumed["error"]}
                applied = mode != "between" and isinstance(got, dict) and got.get("steps") == i + 1
                before = expected[i - 1]["table"] if i else initial_state(case["stations"])
                want = {"steps": i + 1, "table": expected[i]["table"]} if applied else {"steps": i, "table": before}
                if not strict_equal({"result": want}, {"result": got}):
                    fields = station_fields(want, got) or ["(answer)"]
                    raise Divergence(f"table.resume after {point.describe()}: first field {fields[0]}", want, got)
                done = i + 1 if applied else i
                judge_books(done, f"after the restart ({point.describe()})")
                if done:                # the last answered step sent again: refused, the table unchanged
                    play.interrupted(LifeCut(done - 1, RESENT))
                    expect(f"{OP_OF_ACT.get(steps[done - 1]['act'], 'table.step')} {done - 1}{acting(steps[done - 1])} "
                           "sent again",
                           coded(send(done - 1, steps[done - 1])), refused(REFUSED_AGAIN))
                    expect(f"table.resume after step {done - 1} was sent again", control.request("table.resume", table=tid),
                           {"steps": done, "table": expected[done - 1]["table"]})
                sent = applied
            if not sent:
                expect(f"{OP_OF_ACT.get(step['act'], 'table.step')} {i}{acting(step)}", send(i, step), expected[i])
            if step["act"] in ("disconnect", "disable") and expected[i]["accepted"]:
                self.event = f"the {step['act']}{' of station ' + str(step['station']) if 'station' in step else ''} " \
                             f"at step {i}"
            if step["act"] == "reconnect" and expected[i]["accepted"]:
                judge_books(i + 1, f"after the reconnect of station {step['station']} (step {i})", [step["station"]])
            if ends_game(step, expected[i], case["on_disable"]):
                judge_books(i + 1, f"after the game ended by step {i}")
        judge_books(len(steps), "at the end of the table")
        expect("table.close", control.request("table.close", table=tid), {})
        # closed is closed, across a restart too: every op on the closed table refused
        play.interrupted(LifeCut(len(steps), "hello_answered", closed=True))
        control.restart()
        self.event = "the cut after the table was closed"
        last: dict[str, Any] = steps[-1] if steps else {"act": "roll", "dice": [1, 1]}
        expect(f"{OP_OF_ACT.get(last['act'], 'table.step')} on the closed table", coded(send(len(steps), last)),
               refused(REFUSED_CLOSED))
        for op, extra in (("table.resume", {}), ("table.recall", {"station": stations[0]}), ("table.close", {})):
            expect(f"{op} on the closed table", coded(control.request(op, table=tid, **extra)), refused(REFUSED_CLOSED))
        play.finished()


def replay_stations(replay: dict[str, Any], control: VendorInstance) -> Exception | None:
    """Play a station vector's replay (a line of ``failures/*.craps.stations.tgN.jsonl``) with its
    interruptions on ``control``, judged as the run judged it (the build and the features the
    vendor's hello declares now); the divergence or fault it meets (None if every answer is now
    the oracle's)."""
    control.live_session()
    hello = control.greeting
    player = StationPlayer(hello.build if hello is not None else "", "meters" in declared_features(hello))
    points = {p["step"]: p["mode"] for p in replay["interruptions"]}
    return control.failure_of(lambda: player(control, replay["config"], replay["tcId"], replay["case"],
                                             replay["expected"]["steps"], points, Play(replay["tcId"])), Divergence)
