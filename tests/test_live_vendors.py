"""Live tables through the harness, with real vendor processes in the real sandbox killed with
SIGKILL: the reference vendor survives an interruption at every step of the named scripts and at
seeded points (``certify --suite live`` end to end: verdict, summary.json, the certificate's
page 1 read back with pdftotext); each faulty live vendor (tests/live_faulty_vendors.py) is NOT
CERTIFIED with a finding naming the interruption point; a failing vector's replay reproduces
it; a vendor without live ops gets the live vectors as unsupported; the state_dir is fresh,
0700, the vendor's, and removed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from live_faulty_vendors import LIVE_FAULTY_VENDORS
from live_replays import replayed
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import Divergence, plan_interruptions
from tablecert.harness.live.driver import replay_live
from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.live.instance import STATE_PREFIX, remove_stale_state, vendor_state_dir
from tablecert.harness.live.run import LiveRun
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.store import RunStore
from tablecert.harness.run.runner import Runner
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import live_cases, station_cases
from tablecert.vectors.model import VectorGroup
from tablecert.vectors.suites import build_manifest, manifest_bytes
from tablecert.vectors.writer import write_vector_set
from waits import HANG

HERE = Path(__file__).parent
REFERENCE = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"
OPTIONS = SessionOptions(timeout=60, isolation="auto")


def faulty(name: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'live_faulty_vendors.py'))} {name}"


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two named scripts (a come bet travelling; working calls over three games), one seeded
    session of twelve games and the pai gow script of four rounds: enough to catch every faulty
    live vendor."""
    suite = tmp_path_factory.mktemp("live") / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    named, seeded = live_cases.live_groups(profile.craps)
    keep = [v for v in named.vectors if v.flags[0] in ("PlayWorkingCall", "PlayComeTravel")]
    groups = [VectorGroup(named.op, named.config, named.comment, keep),
              VectorGroup(seeded.op, seeded.config, seeded.comment, [list(seeded.vectors)[2]])]
    written = write_vector_set(suite, "live", live_cases.OP, DEFAULT_PROFILE, profile.sha256, groups)
    paigow = next(live_cases.paigow_groups(profile.paigow_cap))        # the bank passing, every step
    written += write_vector_set(suite, "live", live_cases.PAIGOW_OP, DEFAULT_PROFILE, profile.sha256, [paigow])
    (suite / "manifest.json").write_bytes(manifest_bytes(build_manifest("live", DEFAULT_PROFILE, profile.sha256,
                                                                        ("prompt", "expected"), suite, written)))
    return suite


def live_run(cmd: str, suite: Path, out: Path, **settings):
    adapter = SubprocessAdapter()
    runner = Runner(lambda: adapter.open(cmd, OPTIONS), suite, out, batch_size=1, stop_after_failures=1)
    runner.live = LiveRun(cmd, OPTIONS, out, **settings)
    with runner.live:
        result = runner.run()
    write_outputs(out)
    with closing(RunStore(out / "run.db")) as db:
        return result, [rec.comment for rec in db.failures()]


def test_each_faulty_live_vendor_is_not_certified_with_its_interruption_point(small_suite: Path,
                                                                             tmp_path: Path) -> None:
    escaped = []
    for name, bug in LIVE_FAULTY_VENDORS:
        result, comments = live_run(faulty(name), small_suite, tmp_path / name, interruptions=4)
        note = comments[0] if comments else ""
        if result.verdict != "fail" or "live table: " not in note:
            escaped.append(f"{name} ({bug}): {result.verdict}")
        elif name.startswith("recall-") and name != "recall-missing-interrupted-game":
            assert "first divergent answer: table.recall" in note, (name, note)
        else:                          # a restart's bug: found after the interruption it names
            assert "live table: after interruption " in note and (" in flight " in note or " between " in note
                                                                   or "before step " in note), (name, note)
    assert escaped == []


def test_memory_only_passes_until_the_first_kill(small_suite: Path, tmp_path: Path) -> None:
    result, comments = live_run(faulty("memory-only"), small_suite, tmp_path / "calm", enabled=False)
    assert result.verdict == "pass" and comments == []
    result, comments = live_run(faulty("memory-only"), small_suite, tmp_path / "cut", interruptions=1)
    assert result.verdict == "fail" and "no_such_table" in comments[0]


def test_a_vendor_without_live_ops_gets_them_unsupported(small_suite: Path, tmp_path: Path) -> None:
    result, _ = live_run(faulty("old"), small_suite, tmp_path / "old")
    assert result.totals["unsupported"] == 4 and result.totals["pass"] == 0 and result.verdict != "pass"


def test_a_failing_vectors_replay_reproduces_it(small_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", faulty("loses-point"),
                           "--suite", "live", "--suite-dir", str(small_suite), "--custom-suite", "--out", str(out),
                           "--interruptions", "2", "--quiet"], capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 1, proc.stderr
    replays = sorted((out / "failures").glob("*.craps.table.tg*.jsonl"))
    assert replays and all(json.loads(line)["replay"] == "tablecert live table"
                           for path in replays for line in path.read_text().splitlines())
    replay = json.loads(replays[0].read_text().splitlines()[0])
    assert replay["interruptions"] and replay["last_interruption"]["point"]
    assert not [p for p in out.iterdir() if p.name.startswith(STATE_PREFIX)]
    found = replayed(replay_live, replay, faulty("loses-point"), OPTIONS, tmp_path)
    assert isinstance(found, Divergence) and found.asked == replay["divergence"]["asked"]
    assert replayed(replay_live, replay, REFERENCE, OPTIONS, tmp_path) is None   # the oracle's own vendor passes it


def test_state_dir_is_fresh_private_the_vendors_and_removed(tmp_path: Path) -> None:
    owner = vendor_uid(shlex.split(REFERENCE), replace(OPTIONS, isolation="auto"))
    assert (owner is not None) == (os.geteuid() == 0)       # as root: this process's box, never the lab's uid
    with pytest.raises(RuntimeError):
        with vendor_state_dir(tmp_path, owner) as state:
            parent = Path(state).parent
            assert oct(os.stat(state).st_mode & 0o777) == "0o700" == oct(os.stat(parent).st_mode & 0o777)
            assert os.stat(state).st_uid == (owner[0] if owner else os.geteuid())
            assert os.listdir(state) == []
            raise RuntimeError("the run ends badly")
    assert not parent.exists()
    (tmp_path / f"{STATE_PREFIX}left").mkdir()              # by an invocation killed with the run
    (tmp_path / f"{STATE_PREFIX}left" / "state").mkdir()
    assert remove_stale_state(tmp_path) == 1 and list(tmp_path.iterdir()) == []


def test_the_plan_interrupts_every_flagged_step_and_n_seeded_points() -> None:
    vectors = [(("a", 1), 5, True), (("a", 2), 40, False), (("b", 1), 40, False)]
    plan = plan_interruptions(vectors, 10, 7)
    assert plan.of(("a", 1)) == {0: "between", 1: "written", 2: "answered", 3: "between", 4: "written"}
    assert len(plan.of(("a", 2))) + len(plan.of(("b", 1))) == 10 and plan.of(("b", 2)) == {}
    assert plan == plan_interruptions(vectors, 10, 7) and plan != plan_interruptions(vectors, 10, 8)
    assert sum(map(len, plan_interruptions(vectors, 1000, 7).points.values())) == 5 + 80
    assert plan_interruptions(vectors, 10, 7, enabled=False).points == {}


@pytest.mark.slow
def test_certify_live_reference_survives_every_named_step_and_seeded_points(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", REFERENCE, "--suite", "live",
                           "--out", str(out), "--interruptions", "60", "--quiet"],
                          capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    profile = load_profile(DEFAULT_PROFILE)
    named_steps = sum(len(v.case["steps"]) for v in next(live_cases.live_groups(profile.craps)).vectors)
    assert named_steps == 133                       # the rounds suite's fourteen named scripts
    named_steps += sum(len(v.case["steps"]) for v in next(live_cases.paigow_groups(profile.paigow_cap)).vectors)
    assert named_steps == 133 + 10                  # and pai gow's four rounds, two refused steps
    named_steps += sum(len(v.case["steps"]) - (64 if "LiveEveryLateStep" in v.flags else 0)
                       for g in station_cases.station_groups(profile.craps) for v in g.vectors
                       if "LiveEveryStep" in v.flags or "LiveEveryLateStep" in v.flags)
    assert named_steps == 143 + 23 + 14 + 19 + 19 + 10   # the station tables': eight stations, a disconnect, kept,
    stations = sum(len(g.vectors) for g in station_cases.station_groups(profile.craps))   # void, the long table
    assert stations == 22                           # each cut once more after its close (closed is closed)
    made, life = summary["live"]["interruptions"], summary["live"]["life_cuts_planned"]
    assert summary["verdict"] == "pass" and made["made"] == made["survived"] == named_steps + 60 + life + stations
    assert all(made["by_kind"][k]["made"] > 30 for k in ("between", "written", "answered"))
    assert all(made["by_kind"][k]["made"] >= 10 for k in ("hello_written", "resume_written", "recall_written", "storm"))
    page = subprocess.run(["pdftotext", "-layout", "-f", "1", "-l", "1", str(out / "certificate.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    cuts = named_steps + 60 + life + stations
    assert "CERTIFIED" in page and f"{cuts} made, {cuts} survived" in " ".join(page.split())
    assert not [p for p in out.iterdir() if p.name.startswith(STATE_PREFIX)]


def test_bad_live_options_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for extra, said in ((["--workers", "2"], "takes no --workers"), (["--interruptions", "-1"], "at least 0")):
        proc = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", REFERENCE, "--suite",
                               "live", "--out", str(tmp_path / "run"), *extra], capture_output=True, text=True)
        assert proc.returncode == 2 and said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_no_interruptions_is_said_on_page_1(small_suite: Path, tmp_path: Path) -> None:
    from tablecert.reports import write_reports

    out = tmp_path / "calm"
    result, comments = live_run(REFERENCE, small_suite, out, enabled=False)
    assert result.verdict == "pass" and comments == []
    summary = json.loads((out / "summary.json").read_text())
    assert summary["live"]["interruptions_enabled"] is False and summary["live"]["interruptions"]["made"] == 0
    write_reports(out)
    page = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(out / "certificate.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "0 made, 0 survived" in " ".join(page.split()) and "recovery after a power loss was not tested" in \
        " ".join(page.split())


def test_a_vendor_restarted_as_another_build_is_a_bad_hello_finding(small_suite: Path, tmp_path: Path) -> None:
    """A restarted process must be the vendor the run began with: one that says it is another
    build fails its vector with the bad_hello fault named (a live vector's fault is its finding),
    and the run is NOT CERTIFIED; the harness itself does not fail on it."""
    result, comments = live_run(faulty("rebuilt-on-restart"), small_suite, tmp_path / "run", interruptions=1)
    assert result.verdict == "fail"
    assert comments and "the restarted instance greeted as another build during hello (the instance restarting) " \
        "(bad_hello: the restarted vendor says it is" in comments[0], comments               # in the lab's words
    assert "build 'rebuilt'" in comments[0]


def test_the_first_live_instance_greeting_as_another_build_is_a_fault(small_suite: Path, tmp_path: Path) -> None:
    """Every instance's hello is compared with the run's first, the live tables' first one too
    (issue 32: it was compared only on a restart)."""
    result, comments = live_run(faulty("rebuilt-for-live"), small_suite, tmp_path / "run", enabled=False)
    assert result.verdict == "fail"
    assert comments and "bad_hello" in comments[0] and "build 'live-build'" in comments[0], comments


def test_a_state_dir_past_the_lab_limit_is_the_vendors_fault_and_removed_whatever_it_left(
        small_suite: Path, tmp_path: Path) -> None:
    """The filler writes 4 MiB at every table.open; the lab allows 6 MiB: the second table is a
    state_limit fault, the run NOT CERTIFIED, and the state folder (with its mode-000 folder)
    gone at the end (issue 32 item 6)."""
    out = tmp_path / "run"
    adapter, options = SubprocessAdapter(), replace(OPTIONS, max_state_mb=6)
    cmd = faulty("state-filler")
    runner = Runner(lambda: adapter.open(cmd, options), small_suite, out, batch_size=1)
    runner.live = LiveRun(cmd, options, out, enabled=False)
    with runner.live:
        result = runner.run()
        state_dir, seen = runner.live.state_dir, runner.live.state_view     # (not root: through its holder)
        assert state_dir is not None and seen is not None and (Path(seen) / "shut").exists()
    assert result.verdict == "fail"
    with closing(RunStore(out / "run.db")) as db:
        kinds = {fault.kind for fault in db.faults()}
        notes = [rec.comment for rec in db.failures()]
    assert "state_limit" in kinds or any("state_limit" in n for n in notes), (kinds, notes)
    assert not Path(state_dir).parent.exists() and not list(out.glob(STATE_PREFIX + "*"))
