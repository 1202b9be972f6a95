"""A pai gow table's game records and meters (issue 38, feature ``paigow_records``): the oracle's
records and meters of the live suite's pai gow tables reconcile with the settlements at every
step; the reference vendor survives every cut of the pai gow script with its recall and meters
judged; each faulty pai gow vendor (tests/paigow_faulty_vendors.py) is NOT CERTIFIED with a finding
naming the cut and the first field that differs, and its replay reproduces it; a vendor of the
previous release (no table features) is CERTIFIED with the feature named not declared on page 1."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from live_replays import replayed
from paigow_faulty_vendors import PAIGOW_FAULTY_VENDORS
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import Divergence
from tablecert.harness.live.paigow_records import replay_paigow
from tablecert.harness.live.run import LiveRun
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.harness.store import RunStore
from tablecert.oracle import live_paigow
from tablecert.oracle.paigow_records import books_of
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.reports import write_reports
from tablecert.vectors import live_cases
from tablecert.vectors.suites import build_manifest, manifest_bytes
from tablecert.vectors.writer import write_vector_set

HERE = Path(__file__).parent
REFERENCE = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"
OPTIONS = SessionOptions(timeout=60, isolation="auto")
CAP = load_profile(DEFAULT_PROFILE).paigow_cap


def faulty(name: str, module: str = "paigow_faulty_vendors.py") -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / module))} {name}"


def test_the_round_in_progress_and_its_credits_before_the_deal() -> None:
    """The pai gow script: a settle refused before any deal, a deal, a second deal refused, the
    settle. Game 1 is recorded from its deal (in progress, with the refused settle before it among
    its steps), its credits at the start the rack before the deal (the opening 1,000,000, not the
    rack after the wagers went into action), then complete with the rack after the settle."""
    case = next(live_cases.paigow_groups(CAP)).vectors[0].case
    steps = case["steps"]
    records = live_paigow.play(CAP, case)["steps"]
    assert [s["act"] for s in steps[:4]] == ["settle", "deal", "deal", "settle"]
    assert [r["error"] for r in records[:4]] == ["no_round", None, "round_dealt", None]
    assert books_of(case["rack"], steps[:1], records[:1]).recall() == {"games": []}   # nothing dealt yet
    dealt = sum(seat["wager"] for seat in steps[1]["seats"])
    (game,) = books_of(case["rack"], steps[:2], records[:2]).recall()["games"]
    assert (game["status"], game["credits_start"], game["credits_end"], game["wagers"], game["wins"]) == \
        ("in_progress", 1_000_000, None, {"imperial_bonus": dealt}, 0)
    assert records[1]["table"]["rack"] == 1_000_000 - dealt != game["credits_start"]
    assert [s["step"]["act"] for s in game["steps"]] == ["settle", "deal"]
    (game,) = books_of(case["rack"], steps[:4], records[:4]).recall()["games"]
    paid = records[3]["events"]
    assert game["status"] == "complete" and game["wins"] == sum(s["total_win"] for s in paid)
    assert game["credits_end"] == 1_000_000 - dealt + sum(s["total_win"] + s["wager_returned"] for s in paid)
    assert [s["step"]["act"] for s in game["steps"]] == ["settle", "deal", "deal", "settle"]


def test_meters_equal_the_sums_of_the_records_at_every_step_of_the_suite() -> None:
    """Every pai gow table of the live suite, after every step: the table's meters equal the sums
    of its records (every record kept), the seats' meters the sums of the deals' wagers and of the
    settlements' wins counted here from the steps, and the seats add up to the table."""
    for group in live_cases.paigow_groups(CAP):
        for vector in group.vectors:
            steps, rack = vector.case["steps"], vector.case["rack"]
            records = live_paigow.play(CAP, vector.case)["steps"]
            for n in range(len(steps) + 1):
                books = books_of(rack, steps[:n], records[:n])
                games, meters = books.games["table"], books.meters()
                assert meters["table"] == {"buy_ins": rack, "wagered": sum(g["wagers"]["imperial_bonus"] for g in games),
                                           "won": sum(g["wins"] for g in games), "cashed_out": 0,
                                           "games_played": sum(g["status"] == "complete" for g in games)}
                settled = [e for s, r in zip(steps[:n], records[:n]) if s["act"] == "settle" for e in r["events"]]
                dealt = [seat for s, r in zip(steps[:n], records[:n]) if s["act"] == "deal" and r["accepted"]
                         for seat in s["seats"]]
                for row in meters["seats"]:
                    assert row["won"] == sum(e["total_win"] for e in settled if e["seat"] == row["seat"])
                    assert row["wagered"] == sum(seat["wager"] for seat in dealt if seat["seat"] == row["seat"])
                    assert row["games_played"] == sum(e["seat"] == row["seat"] for e in settled)
                for meter in ("wagered", "won"):
                    assert sum(row[meter] for row in meters["seats"]) == meters["table"][meter]
                if games and games[-1]["status"] == "complete":
                    assert games[-1]["credits_end"] == records[n - 1]["table"]["rack"]


# -- through the harness, with real processes killed with SIGKILL


@pytest.fixture(scope="module")
def paigow_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pai gow script alone (four rounds, the bank passing, two refused steps): cut at every
    step and by its life cuts."""
    suite = tmp_path_factory.mktemp("paigow") / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    named = next(live_cases.paigow_groups(profile.paigow_cap))
    written = write_vector_set(suite, "live", live_cases.PAIGOW_OP, DEFAULT_PROFILE, profile.sha256, [named])
    (suite / "manifest.json").write_bytes(manifest_bytes(build_manifest("live", DEFAULT_PROFILE, profile.sha256,
                                                                        ("prompt", "expected"), suite, written)))
    return suite


def paigow_run(cmd: str, suite: Path, out: Path):
    adapter = SubprocessAdapter()
    runner = Runner(lambda: adapter.open(cmd, OPTIONS), suite, out, batch_size=1, stop_after_failures=1)
    runner.live = LiveRun(cmd, OPTIONS, out, interruptions=0)
    with runner.live:
        result = runner.run()
    write_outputs(out)
    with closing(RunStore(out / "run.db")) as db:
        return result, [rec.comment for rec in db.failures()]


def page_one(out: Path) -> str:
    write_reports(out)
    return " ".join(subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(out / "certificate.pdf"), "-"],
                                   capture_output=True, text=True, check=True).stdout.split())


def test_the_reference_vendor_keeps_its_records_and_meters_through_every_cut(paigow_suite: Path,
                                                                            tmp_path: Path) -> None:
    result, comments = paigow_run(REFERENCE, paigow_suite, tmp_path / "ref")
    assert result.verdict == "pass" and comments == [] and result.totals["pass"] == 1
    live = json.loads((tmp_path / "ref" / "summary.json").read_text())["live"]
    assert live["features"]["tested"] == ["paigow_records"] and "paigow_records" in live["features"]["declared"]
    assert live["interruptions"]["made"] == live["interruptions"]["survived"] > 10       # every step, and life cuts
    assert "tested: pai gow record fields and meters" in page_one(tmp_path / "ref")


@pytest.mark.parametrize("name,bug", PAIGOW_FAULTY_VENDORS, ids=[n for n, _ in PAIGOW_FAULTY_VENDORS])
def test_each_faulty_paigow_vendor_is_not_certified_naming_the_cut_and_the_field(
        name: str, bug: str, paigow_suite: Path, tmp_path: Path) -> None:
    result, comments = paigow_run(faulty(name), paigow_suite, tmp_path / name)
    assert result.verdict == "fail", (name, bug)
    asked = comments[0].split("first divergent answer: ", 1)[1]
    assert asked.startswith(("table.recall ", "table.meters ")), asked                 # a record or a meter
    assert "(last event: the cut " in asked, asked                                      # the event before it
    assert "first field " in asked or "times out of order" in asked, asked             # the field


def test_a_vendor_of_the_previous_release_is_certified_with_the_feature_not_declared(paigow_suite: Path,
                                                                                   tmp_path: Path) -> None:
    out = tmp_path / "old"
    result, comments = paigow_run(faulty("no-table-features", "station_faulty_vendors.py"), paigow_suite, out)
    assert result.verdict == "pass" and comments == [] and result.totals["pass"] == 1     # judged as before
    features = json.loads((out / "summary.json").read_text())["live"]["features"]
    assert features["tested"] == [] and "paigow_records" in features["not_declared"]
    assert "not declared by the implementation (the pai gow tables judged as before, without them; not " \
           "certified): pai gow record fields and meters" in page_one(out)


def test_a_failing_paigow_vectors_replay_reproduces_it(paigow_suite: Path, tmp_path: Path) -> None:
    name = "recall-round-complete"
    result, _ = paigow_run(faulty(name), paigow_suite, tmp_path / "run")
    assert result.verdict == "fail"
    (path,) = (tmp_path / "run" / "failures").glob("*.paigow.table.tg*.jsonl")
    replay = json.loads(path.read_text().splitlines()[0])
    found = replayed(replay_paigow, replay, faulty(name), OPTIONS, tmp_path)
    assert isinstance(found, Divergence) and found.asked == replay["divergence"]["asked"]
    assert replayed(replay_paigow, replay, REFERENCE, OPTIONS, tmp_path) is None    # the oracle's own vendor passes it
