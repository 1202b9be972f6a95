"""The round oracle (``craps.round``): it agrees with the single-roll ops on every roll it settles
and every odds wager it accepts, and conserves money in every answer (property tests), plus
worked rounds pinned by hand."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecert.fuzz.round_strategies import house_rules, round_cases
from tablecert.fuzz.strategies import craps_tables
from tablecert.oracle import craps
from tablecert.oracle.craps_round import BOX_BETS, parse_round_config, play
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.profiles import load_profile

TABLE = load_profile("odds-3-4-5x-commission-10x").craps
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def played(draw: st.DrawFn) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    raw = dict(draw(craps_tables()) if draw(st.booleans()) else TABLE, house_rules=draw(house_rules()))
    config = parse_round_config(raw)
    case = draw(round_cases(config))
    return config, case, play(config, case)


def _own_point(bet_id: str, table_point: int | None) -> tuple[str, int | None]:
    """(kind, point) of a bet id as the table before the step stood."""
    for kind in ("dont_come", "come"):
        if bet_id.startswith(kind) and bet_id != kind:
            return kind, int(bet_id[len(kind):])
    return bet_id, (None if bet_id in BOX_BETS else table_point)


@PROPERTY
@given(played())
def test_every_roll_is_settled_as_craps_settle_says(game: Any) -> None:
    config, case, answer = game
    before: dict[str, Any] = {"point": None, "rack": case["rack"], "bets": []}
    for step, record in zip(case["steps"], answer["steps"]):
        if step["act"] == "roll" and record["accepted"]:
            assert [e["bet"] for e in record["events"]] == [b["bet"] for b in before["bets"]]
            for bet, event in zip(before["bets"], record["events"]):
                kind, point = _own_point(bet["bet"], before["point"])
                single = craps.settle(config.table, {"bet": kind, "flat": bet["flat"], "point": point,
                                                     "odds": bet["odds"], "dice": step["dice"],
                                                     "odds_working": bet["odds_working"]})
                got = {k: v for k, v in event.items() if k in single}
                if single["outcome"] == "push" and config.house["bar_push"] == "stays":
                    single.update(flat_stake="in_action", flat_returned=0)
                assert got == single
                odds = single["odds_stake"]
                assert event["commission_taken"] == (bet["commission"] if odds in ("won", "taken") else 0)
                assert event["commission_returned"] == (bet["commission"] if odds == "returned" else 0)
        if not record["accepted"]:
            assert record["table"] == before and record["events"] == []
        for bet in record["table"]["bets"]:
            kind, point = _own_point(bet["bet"], record["table"]["point"])
            if bet["odds"]:
                assert point is not None
                priced = craps.place_odds(config.table, {"bet": kind, "flat": bet["flat"], "point": point,
                                                         "odds": bet["odds"]})
                assert bet["commission"] == priced["commission"]
            else:
                assert bet["commission"] == 0
        before = record["table"]


@PROPERTY
@given(played())
def test_money_is_conserved_in_every_answer(game: Any) -> None:
    """rack + layout = start + paid - taken after every step, from the answer alone."""
    _, case, answer = game
    paid = taken = 0
    before: list[dict[str, Any]] = []
    for record in answer["steps"]:
        stakes = {b["bet"]: b for b in before}
        for e in record["events"]:
            paid += e["flat_win"] + e["odds_win"]
            taken += e["commission_taken"]
            taken += stakes[e["bet"]]["flat"] if e["flat_stake"] == "taken" else 0
            taken += stakes[e["bet"]]["odds"] if e["odds_stake"] == "taken" else 0
        table = record["table"]
        layout = sum(b["flat"] + b["odds"] + b["commission"] for b in table["bets"])
        assert table["rack"] >= 0
        assert table["rack"] + layout == case["rack"] + paid - taken
        before = table["bets"]


def _round(steps: list[dict[str, Any]], rack: int = 100_000, **house: Any) -> list[dict[str, Any]]:
    return play(parse_round_config(dict(TABLE, house_rules=house)), {"rack": rack, "steps": steps})["steps"]


def roll(a: int, b: int) -> dict[str, Any]:
    return {"act": "roll", "dice": [a, b]}


def test_come_odds_are_off_on_the_come_out_and_a_call_lasts_one_roll() -> None:
    steps = [roll(3, 3), {"act": "bet", "bet": "come", "amount": 500}, roll(2, 2),
             {"act": "odds", "bet": "come4", "amount": 1500}, roll(3, 3),          # point made: come-out next
             {"act": "working", "bet": "come4", "working": True}, roll(5, 6), roll(1, 3)]
    records = _round(steps)
    assert records[2]["table"]["bets"] == [{"bet": "come4", "flat": 500, "odds": 0, "commission": 0,
                                            "odds_working": True}]
    assert records[4]["table"]["bets"][0]["odds_working"] is False
    assert records[5]["table"]["bets"][0]["odds_working"] is True
    assert records[6]["table"]["bets"][0]["odds_working"] is False         # the call lapsed after one roll
    won = records[7]["events"][0]
    assert (won["outcome"], won["odds_stake"], won["odds_returned"], won["odds_win"]) == ("win", "returned", 1500, 0)
    records = _round(steps, working_call="bet")
    assert records[7]["events"][0]["odds_win"] == 3000


def test_bar_push_stays_or_is_returned() -> None:
    steps = [{"act": "bet", "bet": "dont_pass", "amount": 500}, roll(6, 6)]
    stays, returned = _round(steps)[1], _round(steps, bar_push="returned")[1]
    assert stays["events"][0]["flat_stake"] == "in_action" and stays["table"]["bets"][0]["bet"] == "dont_pass"
    assert returned["events"][0]["flat_returned"] == 500 and returned["table"]["bets"] == []


def test_refusals() -> None:
    records = _round([{"act": "odds", "bet": "pass", "amount": 100}, {"act": "bet", "bet": "come", "amount": 100},
                      {"act": "bet", "bet": "pass", "amount": 100}, {"act": "odds", "bet": "pass", "amount": 100},
                      roll(2, 2), {"act": "take_down", "bet": "pass"}, {"act": "bet", "bet": "pass", "amount": 100},
                      {"act": "odds", "bet": "pass", "amount": 5000},
                      {"act": "working", "bet": "pass", "working": False},
                      {"act": "bet", "bet": "come", "amount": 200}, {"act": "odds", "bet": "come", "amount": 100},
                      {"act": "bet", "bet": "dont_come", "amount": 10**9}])
    assert [r["error"] for r in records] == ["no_such_bet", "no_point", None, "no_point", None, "not_removable",
                                             "point_on", "above_maximum", "no_odds", None, "no_point",
                                             "insufficient_funds"]


def test_malformed_cases_and_configs() -> None:
    config = parse_round_config(dict(TABLE))
    for case in ([], {"rack": 1}, {"rack": -1, "steps": [roll(1, 1)]}, {"rack": 1, "steps": []},
                 {"rack": 1, "steps": [{"act": "dance"}]}, {"rack": 1, "steps": [{"act": "bet", "bet": "pass"}]},
                 {"rack": True, "steps": [roll(1, 1)]}):
        with pytest.raises(CaseError) as err:
            play(config, case)
        assert err.value.code == "invalid_request"
    for bad in ({"working_call": "forever"}, {"x": 1}, {"take_down_dont": 1}, []):
        with pytest.raises(ConfigError):
            parse_round_config(dict(TABLE, house_rules=bad))
