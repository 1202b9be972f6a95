"""Live tables in the oracle and the reference vendor: the game history and its recall (games
split where the pass line is decided, wagers per category, the last ten oldest first), and the
journal in state_dir (replayed by a new process, a cut last line dropped, a step sent twice never
applied twice). The money below is worked by hand on the odds-3-4-5x table (unit 100): a 500 pass
bet wins 500; 2,500 odds on a 6 (5x) win 3,000 (6:5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tablecert.oracle.live_tables import CATEGORIES, LIVE_OPS, LiveTable, games_of
from tablecert.oracle.profiles import load_profile
from tablecert.oracle.table_journal import JOURNAL, LiveError, TableJournal
from tablecert.oracle.vendor import ReferenceVendor

TABLE = load_profile("odds-3-4-5x").craps
RACK = 100_000


def bet(kind: str, amount: int) -> dict:
    return {"act": "bet", "bet": kind, "amount": amount}


def roll(a: int, b: int) -> dict:
    return {"act": "roll", "dice": [a, b]}


SCRIPT = [bet("pass", 500), roll(3, 4),                                                 # game 1: a natural
          bet("pass", 500), roll(3, 3), {"act": "odds", "bet": "pass", "amount": 2500}, roll(4, 4), roll(2, 4),
          bet("pass", 500)]                                                            # game 3 in progress


def played(steps: list[dict]) -> LiveTable:
    table = LiveTable.open(TABLE, RACK)
    for step in steps:
        table.step(step)
    return table


def test_games_end_where_the_pass_line_is_decided_with_wagers_per_category() -> None:
    table = played(SCRIPT)
    games = table.recall()["games"]
    assert [g["game"] for g in games] == [1, 2]
    assert [[s["step"] for s in g["steps"]] for g in games] == [SCRIPT[0:2], SCRIPT[2:7]]
    assert games[0]["wagers"] == dict.fromkeys(CATEGORIES, 0) | {"pass": 500}
    assert games[1]["wagers"] == dict.fromkeys(CATEGORIES, 0) | {"pass": 500, "pass_odds": 2500}
    assert games[0]["steps"][1]["table"]["rack"] == 100_500                   # 99,500 + 500 won + 500 back
    assert games[1]["steps"][-1]["table"]["rack"] == 104_000                  # + 500 + 500 + 3,000 + 2,500
    assert games[1]["steps"][-1]["events"][0]["odds_win"] == 3000
    assert table.resume() == {"steps": 8, "table": {"point": None, "rack": 103_500, "bets": [
        {"bet": "pass", "flat": 500, "odds": 0, "commission": 0, "odds_working": True}]}}


def test_recall_holds_the_last_ten_games_oldest_first() -> None:
    steps = [s for _ in range(12) for s in (bet("pass", 100), roll(1, 6))]
    games = played(steps).recall()["games"]
    assert [g["game"] for g in games] == list(range(3, 13))
    assert all(len(g["steps"]) == 2 and g["wagers"]["pass"] == 100 for g in games)
    assert games_of(RACK, [], []) == []


def test_refused_steps_belong_to_their_game_and_wager_nothing() -> None:
    steps = [{"act": "odds", "bet": "pass", "amount": 500}, bet("pass", 500), roll(6, 6)]   # no bet yet; craps 12
    game, = played(steps).recall()["games"]
    assert [s["accepted"] for s in game["steps"]] == [False, True, True]
    assert game["steps"][0]["error"] == "no_such_bet" and game["wagers"]["pass_odds"] == 0


def journal_with(state: Path, steps: list[dict]) -> TableJournal:
    journal = TableJournal(str(state))
    journal.handle("table.open", {"table": "t1", "config": TABLE, "rack": RACK})
    for i, step in enumerate(steps):
        journal.handle("table.step", {"table": "t1", "seq": i, "step": step})
    return journal


def test_a_new_process_replays_the_journal_to_the_same_table(tmp_path: Path) -> None:
    first = journal_with(tmp_path, SCRIPT)
    again = TableJournal(str(tmp_path))
    assert again.handle("table.resume", {"table": "t1"}) == first.handle("table.resume", {"table": "t1"})
    assert again.handle("table.recall", {"table": "t1"}) == first.handle("table.recall", {"table": "t1"})
    lines = (tmp_path / JOURNAL).read_bytes().splitlines()
    assert len(lines) == 1 + len(SCRIPT) and all(json.loads(line) for line in lines)
    again.handle("table.close", {"table": "t1"})
    with pytest.raises(LiveError) as err:
        TableJournal(str(tmp_path)).handle("table.resume", {"table": "t1"})
    assert err.value.code == "no_such_table"


def test_a_cut_last_line_was_never_applied_and_is_dropped(tmp_path: Path) -> None:
    journal_with(tmp_path, SCRIPT[:3])
    whole = (tmp_path / JOURNAL).read_bytes()
    with open(tmp_path / JOURNAL, "ab") as f:
        f.write(b'{"step":"t1","seq":3,"act":{"act":"ro')          # the kill came during this write
    again = TableJournal(str(tmp_path))
    assert again.handle("table.resume", {"table": "t1"})["steps"] == 3
    assert (tmp_path / JOURNAL).read_bytes() == whole
    again.handle("table.step", {"table": "t1", "seq": 3, "step": SCRIPT[3]})
    assert TableJournal(str(tmp_path)).handle("table.resume", {"table": "t1"})["table"]["point"] == 6


def test_a_step_sent_again_is_refused_never_applied_twice(tmp_path: Path) -> None:
    journal = journal_with(tmp_path, SCRIPT[:2])
    before = journal.handle("table.resume", {"table": "t1"})
    for seq in (1, 3, -1, "2"):
        with pytest.raises(LiveError) as err:
            journal.handle("table.step", {"table": "t1", "seq": seq, "step": roll(3, 4)})
        assert err.value.code == "out_of_sequence"
    assert journal.handle("table.resume", {"table": "t1"}) == before
    assert TableJournal(str(tmp_path)).handle("table.resume", {"table": "t1"}) == before


def test_requests_refused_as_a_whole(tmp_path: Path) -> None:
    journal = journal_with(tmp_path, [])
    for op, request, code in [("table.open", {"table": "t1", "config": TABLE, "rack": 1}, "table_exists"),
                              ("table.open", {"table": "t/2", "config": TABLE, "rack": 1}, "invalid_request"),
                              ("table.open", {"table": "t2", "config": {"unit": 0}, "rack": 1}, "invalid_config"),
                              ("table.open", {"table": "t2", "config": TABLE, "rack": -1}, "invalid_request"),
                              ("table.step", {"table": "t9", "seq": 0, "step": roll(1, 1)}, "no_such_table"),
                              ("table.step", {"table": "t1", "seq": 0, "step": {"act": "shoot"}}, "invalid_request")]:
        with pytest.raises(LiveError) as err:
            journal.handle(op, request)
        assert err.value.code == code, (op, request)
    assert TableJournal(str(tmp_path)).handle("table.resume", {"table": "t1"})["steps"] == 0


def test_reference_vendor_declares_live_ops_in_v2_and_needs_a_state_dir(tmp_path: Path) -> None:
    vendor = ReferenceVendor()
    hello = vendor.handle({"id": 0, "op": "hello", "protocol": "tablecert-vendor/2"})
    assert all(op in hello["ops"] for op in LIVE_OPS)
    assert vendor.handle({"id": 1, "op": "table.resume", "table": "t1"})["error"]["code"] == "no_state_dir"
    v1 = ReferenceVendor().handle({"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"})
    assert not set(LIVE_OPS) & set(v1["ops"])
    vendor.handle({"id": 2, "op": "hello", "protocol": "tablecert-vendor/2", "state_dir": str(tmp_path)})
    opened = vendor.handle({"id": 3, "op": "table.open", "table": "t1", "config": TABLE, "rack": RACK})
    assert opened == {"id": 3, "result": {"steps": 0, "table": {"point": None, "rack": RACK, "bets": []}}}
    step = vendor.handle({"id": 4, "op": "table.step", "table": "t1", "seq": 0, "step": bet("pass", 500)})
    assert step["result"]["accepted"] is True and step["result"]["table"]["rack"] == 99_500
    assert vendor.handle({"id": 5, "op": "table.recall", "table": "t1"}) == {"id": 5, "result": {"games": []}}
    assert vendor.handle({"id": 6, "op": "table.close", "table": "t1"}) == {"id": 6, "result": {}}
    assert oct(os.stat(tmp_path / JOURNAL).st_mode & 0o777) == "0o600"


def test_live_suite_matches_its_golden_manifest(tmp_path: Path) -> None:
    from importlib import resources

    from tablecert.vectors.checks import load_manifest
    from tablecert.vectors.suites import generate

    generate("live", tmp_path / "live")
    golden = json.loads(resources.files("tablecert.vectors").joinpath("golden", "live.manifest.json").read_text())
    assert load_manifest(tmp_path / "live") == golden
    assert golden["numberOfTests"] == 14 + 24 + 1 + 4 + 1 + 12 + 2 + 1 + 6   # craps named + seeded, pai gow named +
    # seeded, and the station tables (issue 38): eight stations, a disconnect at each of 12 places, kept + void,
    # the long table (issue 50), 6 seeded


def test_the_contracts_worked_example_is_the_reference_vendors_answer(tmp_path: Path) -> None:
    import re

    doc = (Path(__file__).parents[1] / "harness" / "vendor-protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Live tables"):doc.index("## Imperial pai gow bonus")]
    requests, answers = ([json.loads(line) for line in block.splitlines()]
                         for block in re.findall(r"```\n(.*?)\n```", section, re.S)[:2])
    vendor = ReferenceVendor()
    vendor.handle({"id": 0, "op": "hello", "protocol": "tablecert-vendor/2", "state_dir": str(tmp_path)})
    assert [vendor.handle(r) for r in requests] == answers


def test_a_table_id_opened_again_after_its_close_replays_only_its_new_table(tmp_path: Path) -> None:
    journal = journal_with(tmp_path, SCRIPT[:2])
    journal.handle("table.close", {"table": "t1"})
    journal.handle("table.open", {"table": "t1", "config": TABLE, "rack": 7})
    journal.handle("table.step", {"table": "t1", "seq": 0, "step": bet("pass", 500)})     # 7 chips: refused
    again = TableJournal(str(tmp_path)).handle("table.resume", {"table": "t1"})
    assert again["steps"] == 1 and again["table"]["rack"] == 7 and again == journal.handle("table.resume", {"table": "t1"})


def test_a_paigow_table_deals_settles_and_passes_the_bank(tmp_path: Path) -> None:
    from tablecert.oracle.paigow import settle

    royal = ["As", "Ks", "Qs", "Js", "Ts", "2d", "3h"]                   # a royal flush: the player bonus pays
    dealer = ["2c", "3d", "4h", "5s", "7c", "8d", "9h"]
    other = ["4c", "4d", "6h", "6s", "8c", "Jd", "Kh"]
    deal = {"act": "deal", "dealer": dealer, "bank_seat": 2,
            "seats": [{"seat": 1, "wager": 500, "cards": royal}, {"seat": 2, "wager": 300, "cards": other}]}
    journal = TableJournal(str(tmp_path))
    journal.handle("table.open", {"table": "p1", "config": {"cap": 4_000_000}, "rack": 10_000, "game": "paigow"})
    refused = journal.handle("table.step", {"table": "p1", "seq": 0, "step": {"act": "settle"}})
    assert refused["error"] == "no_round"
    dealt = journal.handle("table.step", {"table": "p1", "seq": 1, "step": deal})
    assert dealt["table"] == {"round": 0, "rack": 9_200, "dealt": {k: deal[k] for k in ("dealer", "bank_seat", "seats")}}
    assert journal.handle("table.step", {"table": "p1", "seq": 2, "step": deal})["error"] == "round_dealt"
    again = TableJournal(str(tmp_path))                          # the power went after the deal
    assert again.handle("table.resume", {"table": "p1"}) == {"steps": 3, "table": dealt["table"]}
    settled = again.handle("table.step", {"table": "p1", "seq": 3, "step": {"act": "settle"}})
    seats = settle(4_000_000, {k: deal[k] for k in ("dealer", "bank_seat", "seats")})["seats"]
    assert settled["events"] == seats and settled["events"][0]["player_bonus"] == "royal_flush"
    assert settled["table"]["rack"] == 9_200 + sum(s["total_win"] + s["wager_returned"] for s in seats)
    game, = again.handle("table.recall", {"table": "p1"})["games"]
    assert game["wagers"] == {"imperial_bonus": 800} and [s["step"]["act"] for s in game["steps"]] == \
        ["settle", "deal", "deal", "settle"]
