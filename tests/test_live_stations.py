"""Station tables (issue 38): the oracle's stations, disconnects, disables, voids, records and
meters, worked by hand on the odds-3-4-5x table (unit 100, no commission) and on a table charging
5% above 1x free odds; the reference vendor through the harness with SIGKILL cuts; each faulty
station vendor (tests/station_faulty_vendors.py) NOT CERTIFIED with a finding naming the station,
the event and the first field that differs; a vendor of the live ops without table_features gets
the station vectors as unsupported and is scoped, never silently."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from station_faulty_vendors import STATION_FAULTY_VENDORS
from live_replays import replayed
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.answers.causes import run_causes
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import TRANSCRIPT_KEPT, Divergence, LivePlan, Play
from tablecert.harness.live.run import LiveRun
from tablecert.harness.live.stations import replay_stations, station_fields, time_problem
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.harness.store import RunStore
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.craps_round import parse_round_config
from tablecert.oracle.live_stations import StationBooks, StationTable, meters_of, play, station_games
from tablecert.oracle.live_tables import RECALL_GAMES
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.oracle.table_journal import COMPACT_EVERY, JOURNAL, TableJournal
from tablecert.reports import write_reports
from tablecert.vectors import live_cases, station_cases
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.suites import build_manifest, manifest_bytes
from tablecert.vectors.writer import write_vector_set

HERE = Path(__file__).parent
REFERENCE = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"
OPTIONS = SessionOptions(timeout=60, isolation="auto")
PLAIN = load_profile("odds-3-4-5x").craps
CHARGED = dict(PLAIN, free_odds=dict.fromkeys(PLAIN["free_odds"], "1"), commission_rate="0.05")
RACK = 10_000


def bet(s: int, kind: str, amount: int) -> dict:
    return {"act": "bet", "station": s, "bet": kind, "amount": amount}


def roll(a: int, b: int) -> dict:
    return {"act": "roll", "dice": [a, b]}


def case(steps: list[dict], stations: int = 2, on_disable: str = "keep") -> dict:
    return {"stations": [{"station": s, "rack": RACK} for s in range(1, stations + 1)], "on_disable": on_disable,
            "steps": steps}


def records(steps: list[dict], table: dict = PLAIN, **kw) -> list[dict]:
    return play(parse_round_config(dict(table, house_rules={})), case(steps, **kw))["steps"]


def racks(record: dict) -> list[int]:
    return [s["rack"] for s in record["table"]["stations"]]


def test_a_roll_settles_every_station_on_one_point() -> None:
    # station 1 pass 500, station 2 don't pass 500; 6 is the point; 6 again: pass wins 500, don't loses
    recs = records([bet(1, "pass", 500), bet(2, "dont_pass", 500), roll(3, 3), roll(2, 4)])
    assert recs[2]["table"]["point"] == 6 and racks(recs[2]) == [9_500, 9_500]
    assert [(e["station"], e["outcome"]) for e in recs[3]["events"]] == [(1, "win"), (2, "lose")]
    assert racks(recs[3]) == [10_500, 9_500] and recs[3]["table"]["point"] is None


def test_a_disconnected_station_keeps_its_round_and_cannot_act() -> None:
    steps = [bet(1, "pass", 500), roll(3, 3), {"act": "disconnect", "station": 1}, bet(1, "come", 500),
             roll(4, 2), {"act": "reconnect", "station": 1}, {"act": "reconnect", "station": 1}]
    recs = records(steps)
    assert [r["error"] for r in recs] == [None, None, None, "station_disconnected", None, None, "station_connected"]
    assert recs[4]["events"][0]["outcome"] == "win" and racks(recs[4])[0] == 10_500     # settled while away
    (game,) = station_games(case(steps), recs)[1]
    assert game["status"] == "complete" and len(game["steps"]) == 5   # its own steps and the rolls, to the end


def test_a_disable_keeps_or_voids_the_round_commission_and_all() -> None:
    # 1x free, 5x max at 5%: odds of 2,500 behind 500 on a 6 pay 5% of the 2,000 above the free 500: 100
    steps = [bet(1, "pass", 500), roll(3, 3), {"act": "odds", "station": 1, "bet": "pass", "amount": 2500},
             {"act": "disable"}, roll(3, 3), {"act": "enable"}, roll(3, 3)]
    kept = records(steps, CHARGED)
    assert racks(kept[2])[0] == 10_000 - 500 - 2500 - 100
    assert kept[4]["error"] == "table_disabled" and kept[3]["events"] == [] and kept[5]["table"]["point"] == 6
    assert racks(kept[6])[0] == 10_000 + 500 + 3000 - 100     # 500 and 6:5 on 2,500 won; the commission kept
    voided = records(steps, CHARGED, on_disable="void")
    (event,) = voided[3]["events"]
    assert (event["outcome"], event["flat_returned"], event["odds_returned"], event["commission_returned"]) == \
        ("voided", 500, 2500, 100)
    assert racks(voided[3]) == [RACK, RACK] and voided[3]["table"]["point"] is None
    game = station_games(case(steps, on_disable="void"), voided)[1][0]
    assert game["status"] == "voided" and game["credits_start"] == game["credits_end"] == RACK


def test_records_credits_and_meters_equal_the_sums_of_the_records() -> None:
    steps = [bet(1, "pass", 500), roll(3, 4), bet(1, "pass", 300), {"act": "buy_in", "station": 2, "amount": 700},
             bet(2, "dont_pass", 200), roll(3, 3), {"act": "cash_out", "station": 1}]
    recs = records(steps)
    games = station_games(case(steps), recs)
    assert [(g["credits_start"], g["credits_end"], g["wins"], g["status"]) for g in games[1]] == \
        [(10_000, 10_500, 500, "complete"), (10_500, None, 0, "in_progress")]    # not 9,500: before the bet
    assert games[2][0]["credits_start"] == 10_700 and games[2][0]["wagers"]["dont_pass"] == 200
    assert meters_of(case(steps), recs) == {
        "stations": [{"station": 1, "buy_ins": 10_000, "wagered": 800, "won": 500, "cashed_out": 10_200,
                      "games_played": 1},
                     {"station": 2, "buy_ins": 10_700, "wagered": 200, "won": 0, "cashed_out": 0, "games_played": 0}],
        "table": {"buy_ins": 20_700, "wagered": 1000, "won": 500, "cashed_out": 10_200, "games_played": 1}}


def test_meters_reconcile_with_every_payout_at_every_step_of_the_suite() -> None:
    """Every station table of the suite, after every step: each station's money conserved (the
    oracle asserts it), and its meters' won, buy-ins and cash-outs equal to the wins, buy-ins and
    cash-outs its step records show, counted here from the events, apart from the game records."""
    profile = load_profile(DEFAULT_PROFILE)
    for group in station_cases.station_groups(profile.craps):
        config = parse_round_config(group.config)
        for vector in group.vectors:
            recs = play(config, vector.case)["steps"]
            for n in range(0, len(recs) + 1, 3):
                rows = {r["station"]: r for r in meters_of(vector.case, recs[:n])["stations"]}
                for seat in vector.case["stations"]:
                    mine = [e for r in recs[:n] for e in r["events"] if e["station"] == seat["station"]]
                    row = rows[seat["station"]]
                    assert row["won"] == sum(e.get("flat_win", 0) + e.get("odds_win", 0) for e in mine)
                    assert row["buy_ins"] == seat["rack"] + sum(e.get("bought_in", 0) for e in mine)
                    assert row["cashed_out"] == sum(e.get("cashed_out", 0) for e in mine)


def test_books_keeping_the_last_ten_games_recall_and_meter_as_books_keeping_all() -> None:
    """The harness's books of a long table keep each station's last ten records (what a recall
    shows), not its whole history: after every step the same recalls and meters as books that keep all."""
    steps = [s for n in range(14) for s in ([bet(1, "pass", 100), bet(2, "dont_pass", 100), roll(3, 4)] if n % 2 else
                                             [bet(1, "pass", 100), bet(2, "dont_pass", 100), roll(3, 3), roll(2, 4)])]
    recs = records(steps)
    kept, whole = (StationBooks(case(steps)["stations"], "keep", keep=keep) for keep in (RECALL_GAMES, None))
    for step, record in zip(steps, recs):
        kept.add(step, record)
        whole.add(step, record)
        assert [kept.recall(s) for s in (1, 2)] == [whole.recall(s) for s in (1, 2)]
        assert kept.meters() == whole.meters()
    assert len(whole.games[1]) == 14 and len(kept.games[1]) == RECALL_GAMES
    assert [g["game"] for g in kept.recall(1)["games"]] == list(range(5, 15))


def test_a_long_play_keeps_its_last_exchanges_for_its_finding() -> None:
    played = Play(1)
    for i in range(1000):
        played.said(f"table.step {i}", {"result": i})
    assert TRANSCRIPT_KEPT <= len(played.transcript) <= 2 * TRANSCRIPT_KEPT
    assert played.transcript == [{"asked": f"table.step {i}", "answer": {"result": i}}
                                 for i in range(1000 - len(played.transcript), 1000)]


def test_finding_fields_name_the_station() -> None:
    want = {"table": {"stations": [{"station": 1, "rack": 5}, {"station": 3, "rack": 7}]}}
    got = {"table": {"stations": [{"station": 1, "rack": 5}, {"station": 3, "rack": 8}]}}
    assert station_fields(want, got) == ["table.stations[station 3].rack"]
    games = [{"game": 1, "status": "complete", "started": "2026-12-03T10:00:00.000000Z",
              "ended": "2026-12-03T10:05:00.000000Z"},
             {"game": 2, "status": "in_progress", "started": "2026-12-03T09:00:00.000000Z", "ended": None}]
    assert "before the previous game ended" in time_problem(games)
    assert time_problem(games[:1]) is None and "not an RFC 3339" in time_problem([dict(games[0], started=None)])


# -- through the harness, with real processes killed with SIGKILL


def faulty(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'station_faulty_vendors.py'))} {name}"


@pytest.fixture(scope="module")
def station_suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, LivePlan]:
    """Five station tables: eight stations, station 2 disconnected before step 2, the disable
    kept and the void, the long table; each cut between its steps 1 and 2 and with a step in
    flight later on (the long table also past the reference journal's compaction at 64 steps,
    with a game to play after it);
    and the pai gow script (a table without stations), not cut."""
    suite = tmp_path_factory.mktemp("stations") / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    eight, disconnects, disables, long, _ = station_cases.station_groups(profile.craps)
    picked = [list(eight.vectors)[0], list(disconnects.vectors)[2], *disables.vectors]
    group = VectorGroup(eight.op, eight.config, "a slice of the station tables",
                        [Vector(v.case, v.comment, ("LiveSeeded",), v.clauses) for v in picked])
    longer = VectorGroup(long.op, long.config, long.comment,        # on its own table config
                         [Vector(v.case, v.comment, ("LiveSeeded",), v.clauses) for v in long.vectors])
    written = write_vector_set(suite, "live", station_cases.OP, DEFAULT_PROFILE, profile.sha256, [group, longer])
    paigow = next(live_cases.paigow_groups(profile.paigow_cap))      # a table without stations beside them
    written += write_vector_set(suite, "live", live_cases.PAIGOW_OP, DEFAULT_PROFILE, profile.sha256, [paigow])
    (suite / "manifest.json").write_bytes(manifest_bytes(build_manifest("live", DEFAULT_PROFILE, profile.sha256,
                                                                        ("prompt", "expected"), suite, written)))
    batches = [b for b in iter_batches(suite, 10) if b.op == station_cases.OP]
    points = {(b.file, tc): {2: "between", 9: "answered", 14: "written"} for b in batches for tc in b.tc_ids}
    points[(batches[-1].file, batches[-1].tc_ids[-1])].update({66: "between", 71: "answered"})   # the long table:
    # past the reference journal's compaction
    return suite, LivePlan(points, 0, 0)


def station_run(cmd: str, suite: tuple[Path, LivePlan], out: Path):
    adapter = SubprocessAdapter()
    runner = Runner(lambda: adapter.open(cmd, OPTIONS), suite[0], out, batch_size=10, stop_after_failures=1)
    runner.live = LiveRun(cmd, OPTIONS, out)
    runner.live.plan = suite[1]
    with runner.live:
        result = runner.run()
    write_outputs(out)
    with closing(RunStore(out / "run.db")) as db:
        return result, [rec.comment for rec in db.failures()]


def test_the_reference_vendor_survives_every_cut_of_the_station_slice(station_suite, tmp_path: Path) -> None:
    result, comments = station_run(REFERENCE, station_suite, tmp_path / "ref")
    assert result.verdict == "pass" and comments == [] and result.totals["pass"] == 6


CAUSE_WORDS = {"odds-while-disabled": "craps.stations: error table_disabled ",
               "close-in-memory": "craps.stations: error no_such_table ",
               "resent-step-applied": "craps.stations: error out_of_sequence ",
               "times-restamped": "craps.stations: table.recall.times.started answered wrongly",
               "meters-other-station": "craps.stations: table.meters.stations[station ",
               "first-tables-config": "craps.stations: table.recall.games[station 1 game].config answered wrongly",
               "recall-status-wrong": "craps.stations: table.recall.games[station 1 game].status answered wrongly"}
"""What the first cause line of a faulty station vendor's run says (issue 50), for some of them."""
EVENTS = ("last event: the cut ", "last event: the disconnect of station ", "last event: the disable ")


@pytest.mark.parametrize("name,bug", STATION_FAULTY_VENDORS, ids=[n for n, _ in STATION_FAULTY_VENDORS])
def test_each_faulty_station_vendor_is_not_certified_naming_station_and_event(
        name: str, bug: str, station_suite, tmp_path: Path) -> None:
    result, comments = station_run(faulty(name), station_suite, tmp_path / name)
    assert result.verdict == "fail", (name, bug)
    note = comments[0]
    asked = note.split("first divergent answer: ", 1)[1]
    assert "station " in asked or "on the closed table" in asked, note              # the station (or the closed table)
    assert any(e in note for e in EVENTS) or "live table: after interruption " in note, note   # the event before it
    assert "first field " in note or "times out of order" in note or "times changed since" in note, note
    if name in CAUSE_WORDS:                 # the cause line names the field or the event, in the lab's words
        titles = [cause.title for cause in run_causes(tmp_path / name).causes]
        assert any(CAUSE_WORDS[name] in title for title in titles), titles


def test_a_live_vendor_without_table_features_is_scoped(station_suite, tmp_path: Path) -> None:
    result, comments = station_run(faulty("no-table-features"), station_suite, tmp_path / "old")
    assert result.totals["unsupported"] == 5 and result.totals["pass"] == 1 and comments == []
    assert result.verdict == "scoped_pass"             # certified for what it declared, the stations named untested
    write_reports(tmp_path / "old")
    page = " ".join(subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "old" / "certificate.pdf"), "-"],
                                   capture_output=True, text=True, check=True).stdout.split())
    assert "not tested: craps.stations" in page
    assert "not declared by the implementation (their vectors unsupported, not certified): stations, disconnects, " \
           "disables, meters" in page


def test_a_failing_station_vectors_replay_reproduces_it(station_suite, tmp_path: Path) -> None:
    """The replay a failing station table leaves (failures/*.craps.stations.tgN.jsonl) plays its
    script and its cuts again: the faulty vendor meets the same divergence, the reference vendor
    none."""
    name = "meters-replay-twice"
    result, _ = station_run(faulty(name), station_suite, tmp_path / "run")
    assert result.verdict == "fail"
    (path,) = (tmp_path / "run" / "failures").glob("*.craps.stations.tg*.jsonl")
    replay = json.loads(path.read_text().splitlines()[0])
    assert replay["interruptions"] and replay["divergence"]["asked"].startswith("table.meters ")
    found = replayed(replay_stations, replay, faulty(name), OPTIONS, tmp_path)
    assert isinstance(found, Divergence) and found.asked == replay["divergence"]["asked"]
    assert replayed(replay_stations, replay, REFERENCE, OPTIONS, tmp_path) is None    # the oracle's own vendor passes it


def test_the_journal_compacts_a_long_station_table_and_a_restart_finds_it_whole(tmp_path: Path) -> None:
    """Past COMPACT_EVERY steps the reference vendor's journal holds the station table's opening
    and a snapshot instead of its steps; a new process restores every station, record and meter
    exactly as the process that played them (and as the oracle has them)."""
    config = dict(PLAIN, house_rules={})
    steps = [s for _ in range(COMPACT_EVERY // 3 + 5) for s in (bet(1, "pass", 100), bet(2, "dont_pass", 100),
                                                                   roll(3, 4))]
    journal = TableJournal(str(tmp_path), "b1")
    journal.handle("table.open", {"table": "s1", "config": config, "stations": case([])["stations"],
                                  "on_disable": "keep"})
    for i, step in enumerate(steps):
        journal.handle("table.step", {"table": "s1", "seq": i, "step": step})
    lines = (tmp_path / JOURNAL).read_text().splitlines()
    assert len(lines) == 2 + len(steps) - COMPACT_EVERY and '"snapshot"' in lines[1]
    again = TableJournal(str(tmp_path), "b1")
    for request in ({"table": "s1", "station": 1}, {"table": "s1", "station": 2}):
        assert again.handle("table.recall", request) == journal.handle("table.recall", request)
    assert again.handle("table.meters", {"table": "s1"}) == journal.handle("table.meters", {"table": "s1"}) == \
        meters_of(case(steps), records(steps))
    assert again.handle("table.resume", {"table": "s1"}) == journal.handle("table.resume", {"table": "s1"})
    assert again.handle("table.meters", {"table": "s1"})["stations"][0]["won"] == 100 * len(steps) // 3  # naturals
