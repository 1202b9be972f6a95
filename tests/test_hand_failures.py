"""Hand-suite failures by cause: known-bad vendors (real subprocesses) are diagnosed with the right
cause and example hands that really show it (checked with the oracle); replay files are bounded,
split into batch-size lines and replay through a real vendor; slices are deterministic and never
certified; an interrupted run's report says so."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pypdf
import pytest

from tablecert.harness.answers.hand_failures import REPLAY_PER_GROUP, judge_hand_batch
from tablecert.harness.run.hand_slices import HandSlice
from tablecert.harness.suites.reader import HAND_CLAUSES, Batch
from tablecert.oracle.cards import JOKER, parse_hand
from tablecert.oracle.hand_features import feature_ids, hand_features
from tablecert.oracle.hands import player_label
from tablecert.reports.data import load_report_data
from waits import HANG

HERE = Path(__file__).parent
BUGS = HERE / "hand_bug_vendors.py"
sys.path.insert(0, str(HERE))
from hand_bug_vendors import buggy, natural_straight  # noqa: E402


@pytest.fixture(scope="module")
def joker(joker_suite: Path) -> Path:
    return joker_suite           # shared by the test run, read only


def certify(joker: Path, out: Path, bug: str, *extra: str) -> subprocess.CompletedProcess[str]:
    vendor = shlex.join([sys.executable, str(BUGS), bug])
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "joker",
                           "--suite-dir", str(joker), "--out", str(out), "--batch-size", "1000", "--quiet",
                           "--isolation", "none", *extra], capture_output=True, text=True, timeout=HANG)


@pytest.fixture(scope="module")
def joker_run(joker: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "joker-no-straight"
    proc = certify(joker, out, "joker-no-straight", "--range", "0:6000")
    assert proc.returncode == 1, proc.stderr
    return out


def test_a_joker_that_never_completes_a_straight_is_named_as_the_cause(joker_run: Path) -> None:
    data = load_report_data(joker_run)
    assert data.hands is not None and data.hands.failed == data.totals["fail"] > 0
    causes = {c.feature.id for c in data.hands.causes}
    assert causes <= {"joker-straight-low", "joker-straight-high", "joker-straight-inside"}, causes
    for cause in data.hands.causes:
        assert (cause.op, cause.expected, cause.actual) == ("paigow.player_bonus", "straight", "none")
        assert 1 <= len(cause.examples) <= 3
        for e in cause.examples:                       # the oracle says: a straight only through the joker
            hand = parse_hand(e.cards.split())
            assert player_label(hand) == "straight" and JOKER in hand and not natural_straight(hand)
            assert cause.feature.id in e.features
    assert data.hands.cells[0].examples                # every confusion cell gets examples


def test_the_findings_show_causes_and_the_slice(joker_run: Path) -> None:
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(joker_run / "findings.pdf").pages)
    assert "Wrong hands by cause" in text and "joker-straight-" in text and "INT-JOKER-ACE" in text
    assert "--range 0:6000" in text and "CERTIFIED\n" not in text.replace("NOT CERTIFIED", "")


def test_replay_files_are_bounded_split_and_replay_through_a_real_vendor(joker_run: Path) -> None:
    replay = joker_run / "failures" / "paigow.hands.paigow.player_bonus.jsonl"
    lines = replay.read_text().splitlines()
    requests = [json.loads(line) for line in lines[1:-1]]
    cases = [c for r in requests for c in r["cases"]]
    tc_ids = json.loads((joker_run / "failures" / "paigow.hands.paigow.player_bonus.tcids.json").read_text())
    db = sqlite3.connect(joker_run / "run.db")
    causes = db.execute("SELECT COUNT(DISTINCT cause) FROM hand_failures").fetchone()[0]
    failing = db.execute("SELECT COUNT(*) FROM hand_failures").fetchone()[0]
    db.close()
    assert len(cases) == len(tc_ids) <= REPLAY_PER_GROUP * causes < failing
    assert all(len(r["cases"]) <= 1000 for r in requests)
    proc = subprocess.run([sys.executable, str(BUGS), "joker-no-straight"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=HANG)
    answers = [json.loads(line) for line in proc.stdout.splitlines()[1:-1]]
    got = [r["hand"] for a in answers for r in a["results"]]
    assert got == ["none"] * len(cases)                # each replayed hand is still answered wrongly
    assert all(player_label(parse_hand(c["cards"])) == "straight" for c in cases)


def test_a_straight_flush_outside_the_top_five_is_named() -> None:
    hands = [["2s", "3s", "4s", "5s", "6s", "9s", "Ks"], ["3h", "4h", "5h", "6h", "7h", "Th", "2c"],
             ["2d", "3d", "4d", "5d", "6d", "7d", "8d"], ["9c", "Tc", "Jc", "Qc", "Kc", "2d", "3h"]]
    expected = [{"result": {"hand": player_label(parse_hand(h))}} for h in hands]
    results = [buggy("sf-top-five", h, e["result"]) for h, e in zip(hands, expected)]
    batch = Batch("paigow.hands", "paigow.player_bonus", 1, {"cap": 4_000_000}, [1, 2, 3, 4],
                  [{"cards": h} for h in hands], expected, [["Exhaustive"]] * 4, [HAND_CLAUSES["paigow.player_bonus"]] * 4)
    out = judge_hand_batch(batch, results)
    assert [row[5] for row in out.hand_failures] == [1, 2]          # tcIds of the two wrong hands
    for op, e, a, cause, _, tc, mask in out.hand_failures:
        assert feature_ids(mask)[0] == "sf-not-top-five" and cause == 3
    assert out.counts[("op", "paigow.player_bonus", "fail")] == 2
    assert out.counts[("op", "paigow.player_bonus", "pass")] == 2


def test_features_agree_with_the_oracle_on_what_the_joker_does() -> None:
    rng = np.random.default_rng(5)
    hands = np.array([sorted(rng.choice(53, 7, replace=False)) for _ in range(3000)])
    masks = hand_features(hands)
    for hand, mask in zip(hands.tolist(), masks.tolist()):
        ids = feature_ids(mask)
        label = player_label(tuple(hand))
        if any(i.startswith("joker-straight-") for i in ids) and label != "straight":
            assert label in ("flush", "straight_flush", "royal_flush", "five_aces", "four_of_a_kind", "full_house")
        if "five-aces" in ids:
            assert label == "five_aces"
        if "joker-royal" in ids:
            assert label == "royal_flush"
        if "joker-ace" in ids:                     # the joker is not needed for what the hand is
            assert label != "five_aces" and (label != "straight" or natural_straight(tuple(hand)))


def test_a_sample_is_deterministic_and_never_certified(joker: Path, tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        proc = certify(joker, tmp_path / name, "reference-like", "--sample", "1500", "--seed", "11")
        assert proc.returncode == 2, proc.stderr                 # a correct vendor on a sample: incomplete
        runs.append(json.loads((tmp_path / name / "summary.json").read_text()))
    assert runs[0]["verdict"] == "incomplete" and runs[0]["totals"]["pass"] == 3000
    assert "--sample 1500 --seed 11" in " ".join(runs[0]["verdict_reasons"])
    assert runs[0]["by_op"] == runs[1]["by_op"]
    picked = HandSlice.sample(1500, 11).indices(20_358_520)
    assert (picked == HandSlice.sample(1500, 11).indices(20_358_520)).all() and len(set(picked.tolist())) == 1500


def test_slices_are_refused_for_other_suites(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", "x", "--suite", "standard",
                           "--out", str(tmp_path / "r"), "--range", "0:10"], capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "hand suite" in proc.stderr


def batches_done(run: Path) -> int:
    if not (run / "run.db").is_file():
        return 0
    db = sqlite3.connect(f"file:{run / 'run.db'}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute("SELECT COUNT(*) FROM batches").fetchone()[0]
    except sqlite3.OperationalError:           # the schema not written yet
        return 0
    finally:
        db.close()


def test_an_interrupted_run_is_reported_interrupted_with_how_far_it_got(joker: Path, tmp_path: Path) -> None:
    import os
    import signal
    import time

    run = tmp_path / "run"
    vendor = shlex.join([sys.executable, str(BUGS), "joker-no-straight"])
    proc = subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", vendor, "--suite", "joker",
                             "--suite-dir", str(joker), "--out", str(run), "--batch-size", "500", "--quiet",
                             "--isolation", "none", "--range", "0:400000"], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while batches_done(run) < 4:                    # observable progress: batches recorded in run.db
            assert proc.poll() is None, "the run ended before it could be interrupted"
            time.sleep(0.05)
        live = load_report_data(run)
        assert live.meta["state"] == "running"             # its process holds the run folder: not interrupted
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done = batches_done(run)
    data = load_report_data(run)
    assert data.verdict == "incomplete" and data.meta["state"] == "interrupted"
    [note] = [p for p in data.problems if "interrupted" in p]
    assert f"{done:,} batches" in note and f"{sum(data.totals.values()):,} of 40,717,040 vectors" in note


def test_a_replay_file_is_split_into_lines_of_the_batch_size(tmp_path: Path) -> None:
    from tablecert.harness.record.outputs import _write_replays

    cases = [{"cards": ["2c", "3c", "4c", "5c", "6c", "7c", str(i)]} for i in range(5)]
    _write_replays({"x.jsonl": ("paigow.player_bonus", {"cap": 1}, cases, [1, 2, 3, 4, 5])}, tmp_path, 2,
                   "tablecert-vendor/2")
    lines = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert [line["op"] for line in lines] == ["hello"] + ["paigow.player_bonus"] * 3 + ["bye"]
    assert [len(line["cases"]) for line in lines[1:-1]] == [2, 2, 1]
    assert [c for line in lines[1:-1] for c in line["cases"]] == cases
    assert len({line["id"] for line in lines}) == len(lines)
    assert json.loads((tmp_path / "x.tcids.json").read_text()) == [1, 2, 3, 4, 5]
