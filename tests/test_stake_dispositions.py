"""tablecert-vendor/2: stake dispositions and odds working or off in the oracle (values worked out
by hand from the rules), the vendors that get them wrong (tests/disposition_faulty_vendors.py, real
subprocesses), the version negotiation in ``hello`` and what a vendor of tablecert-vendor/1 gets."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader
from tables import raw_config
from test_config_space import _one_op

from disposition_faulty_vendors import DISPOSITION_FAULTY_VENDORS
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.run.runner import Runner
from tablecert.oracle import craps
from tablecert.oracle.table_config import parse_table_config
from waits import HANG

HELPERS = Path(__file__).parent / "disposition_faulty_vendors.py"
CONFIG = parse_table_config(raw_config())          # 3-4-5x, unit 100, bar 12 (tests/tables.py)


def settle(**case):
    return craps.settle(CONFIG, {"odds": 0, "point": None, "odds_working": True, **case})


def stakes(result):
    return (result["flat_stake"], result["flat_returned"], result["odds_stake"], result["odds_returned"])


# -- the oracle, against hand-worked values ----------------------------------------------------


def test_come_out_dispositions():
    # pass 500: 7 wins 500 and hands the 500 back; 2 takes it; 6 sets the point, the 500 stays up
    assert stakes(settle(bet="pass", flat=500, dice=[3, 4])) == ("won", 500, "none", 0)
    assert settle(bet="pass", flat=500, dice=[3, 4])["flat_win"] == 500
    assert stakes(settle(bet="pass", flat=500, dice=[1, 1])) == ("taken", 0, "none", 0)
    assert stakes(settle(bet="pass", flat=500, dice=[3, 3])) == ("in_action", 0, "none", 0)
    # don't pass 500 under bar 12: 12 pushes (500 back, no win), 2 wins, 11 loses
    push = settle(bet="dont_pass", flat=500, dice=[6, 6])
    assert (push["outcome"], push["flat_win"], *stakes(push)) == ("push", 0, "returned", 500, "none", 0)
    assert stakes(settle(bet="dont_pass", flat=500, dice=[1, 1])) == ("won", 500, "none", 0)
    assert stakes(settle(bet="dont_pass", flat=500, dice=[5, 6])) == ("taken", 0, "none", 0)


def test_point_dispositions_odds_working():
    # come 1000 on 5 with 2000 odds: 5 pays 1000 and 2000 x 3/2 = 3000, both stakes handed back
    won = settle(bet="come", flat=1000, point=5, odds=2000, dice=[1, 4])
    assert (won["flat_win"], won["odds_win"], *stakes(won)) == (1000, 3000, "won", 1000, "won", 2000)
    # a seven-out takes both
    assert stakes(settle(bet="come", flat=1000, point=5, odds=2000, dice=[3, 4])) == ("taken", 0, "taken", 0)
    # don't come 1000 on 4 laying 2000: 7 pays 1000 and 2000 x 1/2 = 1000; the 4 takes both
    dont = settle(bet="dont_come", flat=1000, point=4, odds=2000, dice=[3, 4])
    assert (dont["flat_win"], dont["odds_win"], *stakes(dont)) == (1000, 1000, "won", 1000, "won", 2000)
    assert stakes(settle(bet="dont_come", flat=1000, point=4, odds=2000, dice=[2, 2])) == ("taken", 0, "taken", 0)
    # an 8 decides neither: both stay up; with no odds there is no odds stake
    assert stakes(settle(bet="come", flat=1000, point=5, odds=2000, dice=[4, 4])) == ("in_action", 0, "in_action", 0)
    assert stakes(settle(bet="come", flat=1000, point=5, dice=[4, 4])) == ("in_action", 0, "none", 0)


@pytest.mark.parametrize("bet", ["pass", "dont_pass", "come", "dont_come"])
def test_odds_off_on_the_come_out(bet):
    # odds off: the deciding rolls settle the flat and hand the 1000 odds back unpaid; others leave them up
    dont = bet.startswith("dont")
    made, seven, other = [3, 3], [3, 4], [5, 5]
    for dice, flat_fate in ((made, "taken" if dont else "won"), (seven, "won" if dont else "taken")):
        r = settle(bet=bet, flat=500, point=6, odds=1200 if dont else 1000, dice=dice, odds_working=False)
        assert (r["odds_win"], r["odds_stake"], r["odds_returned"]) == (0, "returned", 1200 if dont else 1000)
        assert (r["flat_stake"], r["flat_returned"], r["flat_win"]) == (
            (flat_fate, 500, 500) if flat_fate == "won" else (flat_fate, 0, 0))
    r = settle(bet=bet, flat=500, point=6, odds=1000 if not dont else 1200, dice=other, odds_working=False)
    assert (r["outcome"], r["odds_stake"], r["odds_returned"]) == ("no_action", "in_action", 0)


def test_odds_working_must_be_a_boolean():
    case = {"bet": "come", "flat": 500, "point": 6, "odds": 1000, "dice": [3, 4]}
    for bad in ({}, {"odds_working": 1}, {"odds_working": "false"}, {"odds_working": None}):
        with pytest.raises(Exception) as err:
            craps.settle(CONFIG, {**case, **bad})
        assert err.value.code == "invalid_request"


def test_payout_rounding_down_hands_back_the_whole_stake():
    # unit 1, down: pass odds of 5 on 5 win 7.5 -> 7, and the 5 comes back whole
    cfg = parse_table_config(raw_config(unit=1, payout_rounding="down"))
    r = craps.settle(cfg, {"bet": "pass", "flat": 10, "point": 5, "odds": 5, "dice": [2, 3], "odds_working": True})
    assert (r["odds_win"], r["odds_returned"], r["flat_returned"]) == (7, 5, 10)


# -- the vendors that get them wrong, and the reference, as processes ---------------------------


@pytest.fixture(scope="module")
def settle_suite(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _one_op(edge, "craps.settle", tmp_path_factory.mktemp("settle"))


def _vendor(name: str) -> str:
    return f"{sys.executable} {HELPERS} {name}"


def _flag_fails(run_dir: Path) -> dict[str, int]:
    db = sqlite3.connect(run_dir / "run.db")
    try:
        return {k: n for k, n in db.execute("SELECT key, n FROM counts WHERE dimension='flag' AND outcome='fail'")}
    finally:
        db.close()


@pytest.mark.parametrize("cls, flags", DISPOSITION_FAULTY_VENDORS, ids=[c.__name__ for c, _ in DISPOSITION_FAULTY_VENDORS])
def test_each_disposition_bug_fails_the_settle_vectors(cls, flags, settle_suite, tmp_path):
    cmd = _vendor(cls.__name__)
    result = Runner(lambda: SubprocessAdapter().open(cmd, SessionOptions(timeout=60)), settle_suite, tmp_path,
                    batch_size=1000).run()
    assert result.verdict == "fail" and result.totals["fail"] > 0
    failed = _flag_fails(tmp_path)
    assert flags <= set(failed), (flags, failed)


def _certify(edge: Path, out: Path, vendor: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--suite", "edge", "--suite-dir", str(edge),
                           "--isolation", "none", "--quiet", "--vendor-cmd", vendor, "--out", str(out)],
                          capture_output=True, text=True, timeout=HANG)


def _page_one(pdf: Path) -> str:
    return " ".join(PdfReader(pdf).pages[0].extract_text().split())


def _text(pdf: Path) -> str:
    """Every page (page 1 of the findings holds the causes only)."""
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages)


def test_reference_passes_v2_and_gets_scoped_pass_as_v1(edge, tmp_path):
    v2 = _certify(edge, tmp_path / "v2", f"{sys.executable} -m tablecert reference-vendor")
    assert v2.returncode == 0, v2.stderr
    summary = json.loads((tmp_path / "v2" / "summary.json").read_text())
    assert (summary["verdict"], summary["protocol"], summary["totals"]["unsupported"]) == (
        "pass", "tablecert-vendor/2", 0)

    v1 = _certify(edge, tmp_path / "v1", f"{sys.executable} -m tablecert reference-vendor --protocol 1")
    assert v1.returncode == 0, v1.stderr
    summary = json.loads((tmp_path / "v1" / "summary.json").read_text())
    left_out = summary["not_sent_for_protocol"]["needs tablecert-vendor/2"]["unsupported"]
    # every odds-off settle vector of edge, and the ones whose odds_working is not a boolean
    db = sqlite3.connect(tmp_path / "v2" / "run.db")
    off = db.execute("SELECT n FROM counts WHERE dimension='flag' AND key='OddsOff' AND outcome='pass'").fetchone()[0]
    db.close()
    assert (summary["verdict"], summary["protocol"], summary["totals"]["fail"]) == ("scoped_pass", "tablecert-vendor/1", 0)
    assert left_out == off == summary["totals"]["unsupported"] > 1000
    for text in (_page_one(tmp_path / "v1" / "certificate.pdf"), _text(tmp_path / "v1" / "findings.pdf")):
        assert "tablecert-vendor/1 cannot check stake dispositions" in text, text
        assert f"{left_out:,} vectors that need tablecert-vendor/2 were not sent" in text
    assert "cannot check" not in _page_one(tmp_path / "v2" / "certificate.pdf")


# -- negotiation ------------------------------------------------------------------------------


def test_a_vendor_refusing_v2_is_greeted_as_v1_and_one_naming_none_is_v1():
    options = SessionOptions(timeout=30)
    for cmd in (f"{sys.executable} -m tablecert reference-vendor --protocol 1", _vendor("SilentV1")):
        session = SubprocessAdapter().open(cmd, options)
        try:
            assert session.hello().protocol == "tablecert-vendor/1"
            # a v1 settle case (no odds_working) is answered in the v1 shape
            (answer,) = session.batch("craps.settle", raw_config(), [{"bet": "pass", "flat": 100, "point": None,
                                                                      "odds": 0, "dice": [3, 4]}])
            assert answer == {"outcome": "win", "flat_win": 100, "odds_win": 0, "point": None}
        finally:
            session.close()
    session = SubprocessAdapter().open(f"{sys.executable} -m tablecert reference-vendor", options)
    try:
        assert session.hello().protocol == "tablecert-vendor/2"
    finally:
        session.close()


def test_an_unknown_protocol_in_the_hello_is_bad_hello(edge, tmp_path):
    session = SubprocessAdapter().open(_vendor("UnknownProtocol"), SessionOptions(timeout=30))
    with pytest.raises(VendorFault) as err:
        session.hello()
    session.close()
    assert err.value.kind is FaultKind.BAD_HELLO and "tablecert-vendor/9" in err.value.detail
    run = _certify(edge, tmp_path / "bad", _vendor("UnknownProtocol"))
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "bad_hello" in run.stderr
    summary = json.loads((tmp_path / "bad" / "summary.json").read_text())
    # never identified: a start failure of this attempt in the run's history, not a fault (issue 21)
    assert summary["faults"] == [] and summary["start_failures"][0]["kind"] == "bad_hello"


def test_offline_answers_of_v1_are_judged_with_protocol_1(edge, tmp_path):
    # a v1 vendor answers every case of the prompt view (it reads odds_working as absent: working)
    from tablecert.harness.suites.reader import iter_batches
    from tablecert.oracle.protocol import V1, v1_case
    from tablecert.oracle.vendor import ReferenceVendor

    vendor = ReferenceVendor((V1,))
    assert "error" not in vendor.handle({"id": 0, "op": "hello", "protocol": V1})
    lines = []
    for batch in iter_batches(edge, 1000):
        cases = [v1_case(batch.op, case) for case in batch.cases]
        results = vendor.handle({"id": 1, "op": batch.op, "config": batch.config, "cases": cases})["results"]
        lines += [json.dumps({"file": batch.file, "tcId": tc, "answer": a}) for tc, a in zip(batch.tc_ids, results)]
    responses = tmp_path / "answers.jsonl"
    responses.write_text("\n".join(lines) + "\n")

    def validate(out: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tablecert", "validate", "--responses", str(responses),
                               "--suite-dir", str(edge), "--out", str(tmp_path / out), "--quiet", *extra],
                              capture_output=True, text=True, timeout=HANG)

    as_v1 = validate("v1", "--protocol", "1")
    assert as_v1.returncode == 0, as_v1.stderr
    summary = json.loads((tmp_path / "v1" / "summary.json").read_text())
    assert (summary["verdict"], summary["protocol"], summary["totals"]["fail"]) == ("scoped_pass", V1, 0)
    assert summary["totals"]["unsupported"] == summary["not_sent_for_protocol"]["needs tablecert-vendor/2"]["unsupported"] > 0
    as_v2 = validate("v2")            # the same answers read as v2 lack the stake keys
    assert as_v2.returncode == 1


def test_fuzz_compares_the_v2_result_and_projects_it_for_a_v1_vendor(tmp_path):
    from tablecert.fuzz import fuzz
    from tablecert.harness.adapters import VendorTarget

    def run(cmd: str, out: str):   # type: ignore[no-untyped-def]
        opener = VendorTarget("subprocess", cmd, SessionOptions(timeout=60, isolation="none")).opener()
        return fuzz(opener, tmp_path / out, budget=600, max_examples=25, seed=2, profile="odds-3-4-5x",
                    ops=("craps.settle",)).stats

    assert run(f"{sys.executable} -m tablecert reference-vendor --protocol 1", "v1").failures == []
    found = run(_vendor("OddsNeverWorking"), "never")
    assert found.failures and all("odds" in f.signature for f in found.failures)
