"""A vendor that crashes during live play (issue 50): on a craps table, a station table and a pai
gow table, during a step, a station's act, a recall, the resume after a cut, the close and a
restart's hello, the crash is a fault finding of the vector it met (the run goes on to the next
vector and concludes), named in the lab's words with the request it was met during and the
vendor's last line on stderr; ``certify`` ends with its verdict and every output, never a
traceback. The vendors: tests/crash_faulty_vendors.py (the reference vendor exiting with status 1
at one point)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from crash_faulty_vendors import LAST_WORDS
from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter
from tablecert.harness.answers.causes import run_causes
from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import LivePlan
from tablecert.harness.live.run import LiveRun
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner
from tablecert.harness.store import RunStore
from tablecert.harness.suites.reader import iter_batches
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors import live_cases, station_cases
from tablecert.vectors.model import Vector, VectorGroup
from tablecert.vectors.suites import build_manifest, manifest_bytes
from tablecert.vectors.writer import write_vector_set
from waits import HANG

HERE = Path(__file__).parent
OPTIONS = SessionOptions(timeout=60, isolation="auto")
CUT_AT = 2
"""Every vector is cut once, between its steps 1 and 2 (so each kind of table asks table.resume)."""


def crashing(op: str, seq: int | None = None) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(HERE / "crash_faulty_vendors.py"), op,
                                             *([str(seq)] if seq is not None else [])))


@pytest.fixture(scope="module")
def three_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One table of each kind: a craps round (a come bet travelling), a station table (station 2
    disconnected before step 1) and the pai gow script (the bank passing)."""
    suite = tmp_path_factory.mktemp("crashes") / "suite"
    profile = load_profile(DEFAULT_PROFILE)
    named, _ = live_cases.live_groups(profile.craps)
    craps = [Vector(v.case, v.comment, ("LiveSeeded",), v.clauses) for v in named.vectors
             if v.flags[0] == "PlayComeTravel"]
    written = write_vector_set(suite, "live", live_cases.OP, DEFAULT_PROFILE, profile.sha256,
                               [VectorGroup(named.op, named.config, named.comment, craps)])
    _, disconnects, *_ = station_cases.station_groups(profile.craps)
    station = [Vector(v.case, v.comment, ("LiveSeeded",), v.clauses) for v in list(disconnects.vectors)[1:2]]
    written += write_vector_set(suite, "live", station_cases.OP, DEFAULT_PROFILE, profile.sha256,
                                [VectorGroup(disconnects.op, disconnects.config, disconnects.comment, station)])
    paigow = next(live_cases.paigow_groups(profile.paigow_cap))
    paigow = VectorGroup(paigow.op, paigow.config, paigow.comment,
                         [Vector(v.case, v.comment, ("LiveSeeded",), v.clauses) for v in paigow.vectors])
    written += write_vector_set(suite, "live", live_cases.PAIGOW_OP, DEFAULT_PROFILE, profile.sha256, [paigow])
    (suite / "manifest.json").write_bytes(manifest_bytes(build_manifest("live", DEFAULT_PROFILE, profile.sha256,
                                                                        ("prompt", "expected"), suite, written)))
    return suite


def crash_run(cmd: str, suite: Path, out: Path) -> tuple[str, dict[str, str]]:
    """A run of ``suite`` on ``cmd``, each vector cut once at :data:`CUT_AT`: its verdict and the
    failures' comments by op."""
    adapter = SubprocessAdapter()
    runner = Runner(lambda: adapter.open(cmd, OPTIONS), suite, out, batch_size=10)
    runner.live = LiveRun(cmd, OPTIONS, out)
    runner.live.plan = LivePlan({(b.file, tc): {CUT_AT: "between"} for b in iter_batches(suite, 10)
                                 for tc in b.tc_ids}, 0, 0)
    with runner.live:
        result = runner.run()
    write_outputs(out)
    assert (out / "summary.json").is_file() and (out / "junit.xml").is_file()
    with closing(RunStore(out / "run.db")) as db:
        return result.verdict, {rec.op: rec.comment for rec in db.failures()}


# (the request it crashes at, its seq or None, what the finding names it)
CRASHES = [("table.step", 3, "during table.step 3 of table "),
           ("table.recall", None, "during table.recall "),
           ("table.resume", None, "during table.resume of table "),
           ("table.close", None, "during table.close of table ")]


@pytest.mark.parametrize("op,seq,during", CRASHES, ids=[c[0] for c in CRASHES])
def test_a_crash_on_every_kind_of_table_is_a_finding_naming_the_request_and_stderr(
        op: str, seq: int | None, during: str, three_tables: Path, tmp_path: Path) -> None:
    verdict, comments = crash_run(crashing(op, seq), three_tables, tmp_path / "run")
    assert verdict == "fail"
    assert sorted(comments) == ["craps.stations", "craps.table", "paigow.table"], comments
    for table_op, note in comments.items():
        assert "the vendor crashed " + during in note, (table_op, note)
        assert "exited with status 1" in note and f"its last line on stderr: {LAST_WORDS} {op}" in note, note


def test_a_crash_at_a_stations_act_names_it(three_tables: Path, tmp_path: Path) -> None:
    verdict, comments = crash_run(crashing("table.disconnect"), three_tables, tmp_path / "run")
    assert verdict == "fail" and list(comments) == ["craps.stations"]
    assert "the vendor crashed during table.disconnect 1 of station 2 of table s1" in comments["craps.stations"]


def test_a_crash_while_greeting_after_a_restart_is_a_finding(three_tables: Path, tmp_path: Path) -> None:
    """The vendor exits at the hello of an instance whose state_dir holds its journal: the
    restart after each table's cut."""
    verdict, comments = crash_run(crashing("hello-after-restart"), three_tables, tmp_path / "run")
    assert verdict == "fail" and sorted(comments) == ["craps.stations", "craps.table", "paigow.table"]
    for note in comments.values():
        assert "the vendor crashed during hello (the instance restarting)" in note, note


def test_a_restart_greeting_as_another_build_is_named_in_the_finding_and_the_cause(three_tables: Path,
                                                                                  tmp_path: Path) -> None:
    verdict, comments = crash_run(crashing("other-build-after-restart"), three_tables, tmp_path / "run")
    assert verdict == "fail" and sorted(comments) == ["craps.stations", "craps.table", "paigow.table"]
    for note in comments.values():
        assert "the restarted instance greeted as another build during hello (the instance restarting) (bad_hello: " \
               "the restarted vendor says it is " in note, note
    titles = [cause.title for cause in run_causes(tmp_path / "run").causes]
    assert sorted(titles) == [f"{op}: a restarted instance greeted as another build (bad_hello)"
                              for op in ("craps.stations", "craps.table", "paigow.table")], titles


def test_certify_ends_with_every_output_when_a_station_vendor_exits_mid_table(three_tables: Path,
                                                                            tmp_path: Path) -> None:
    """The issue's case: a station vendor exiting with status 1 mid-table ended certify with a
    traceback. Now: NOT CERTIFIED (exit 1), summary.json, junit.xml and the reports written."""
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", crashing("table.step", 5),
                           "--suite", "live", "--suite-dir", str(three_tables), "--custom-suite", "--out", str(out),
                           "--no-interruptions", "--quiet"], capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    for name in ("summary.json", "junit.xml", "certificate.pdf", "findings.pdf", "report.html"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "fail" and summary["totals"]["fail"] == 3, summary["totals"]
    assert sorted((f["op"], f["kind"], f["detail"].split(":")[0]) for f in summary["faults"]) == [
        ("craps.stations", "crash", "during table.step 5 of table s1"),
        ("craps.table", "crash", "during table.step 5 of table t1"),
        ("paigow.table", "crash", "during table.step 5 of table p1")]
    junit = (out / "junit.xml").read_text()
    for op in ("craps.stations", "craps.table", "paigow.table"):     # the cause line, in the lab's words
        assert re.search(f'name="cause [0-9]: {op}: the vendor crashed during live play"', junit), junit
    with closing(RunStore(out / "run.db")) as db:
        notes = {rec.op: rec.comment for rec in db.failures()}
    assert "the vendor crashed during table.step 5 of table s1" in notes["craps.stations"], notes
    assert all(LAST_WORDS in note for note in notes.values()), notes
