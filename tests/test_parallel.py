"""--workers N: the run database and summary.json of a run on several vendor instances are those
of a one-worker run (timings aside), for a vendor with wrong answers, one that crashes on some
cases and one whose op is given up; a run interrupted with one N resumes with another; a batch
recorded twice counts once."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.store import RunStore
from tablecert.harness.run.runner import Runner, judge_batch
from tablecert.harness.suites.reader import iter_batches
from tablecert.parallel import ParallelOptions
from tablecert.vectors.suites import generate
import parallel_vendors
from waits import HANG

TIMINGS = {"started", "finished"}


def runner(vendor: str, suite: Path, out: Path, workers: int | None, **kw: Any) -> Runner:
    adapter = PythonAdapter()
    spec = f"{parallel_vendors.__name__}:{vendor}"
    parallel = ParallelOptions(workers=workers) if workers else None
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=30)), suite, out, batch_size=150,
                  parallel=parallel, **kw)


def rows(run_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the run database in rowid order (meta without its timestamps)."""
    db = sqlite3.connect(run_dir / "run.db")
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    keyed = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%WITHOUT ROWID%'")}
    out = {}
    for t in tables:
        if t != "meta":      # the compact hand tables have no rowid: every column, in order
            order = ", ".join(str(i + 1) for i in range(len(db.execute(f"SELECT * FROM {t}").description))) \
                if t in keyed else "rowid"
            out[t] = db.execute(f"SELECT * FROM {t} ORDER BY {order}").fetchall()
    out["meta"] = [r for r in db.execute("SELECT * FROM meta ORDER BY key") if r[0] not in TIMINGS | {"seal", "chain"}]   # a seal or checkpoint signs the times too
    db.close()
    return out


def summary(run_dir: Path) -> dict[str, Any]:
    return {k: v for k, v in write_outputs(run_dir).items() if k not in TIMINGS}


@pytest.mark.parametrize("vendor", ["RoundsCommissionUp", "CrashesOnSomeCases", "CrashesOnPaigowSettle"])
def test_two_workers_record_what_one_records(edge: Path, tmp_path: Path, vendor: str) -> None:
    one = runner(vendor, edge, tmp_path / "one", None).run()
    two = runner(vendor, edge, tmp_path / "two", 2).run()
    assert one.verdict == two.verdict == "fail"
    expected = rows(tmp_path / "one")
    assert expected["failures"]
    if vendor != "RoundsCommissionUp":
        kinds = {row[5] for row in expected["faults"]}
        assert "crash" in kinds and (("not_sent" in kinds) == (vendor == "CrashesOnPaigowSettle"))
        assert expected["fault_requests"]
    if vendor == "CrashesOnSomeCases":
        assert expected["poisoned"]
    assert rows(tmp_path / "two") == expected
    assert summary(tmp_path / "two") == summary(tmp_path / "one")


class Interrupt(Exception):
    pass


def test_a_run_interrupted_with_two_workers_resumes_with_three(edge: Path, tmp_path: Path) -> None:
    runner("CrashesOnSomeCases", edge, tmp_path / "one", None).run()
    calls = []

    def stop_midway(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 12:
            raise Interrupt

    with pytest.raises(Interrupt):
        runner("CrashesOnSomeCases", edge, tmp_path / "resumed", 2, progress=stop_midway).run()
    db = sqlite3.connect(tmp_path / "resumed" / "run.db")
    recorded = db.execute("SELECT COUNT(*) FROM batches").fetchone()[0]
    db.close()
    assert 0 < recorded < len(rows(tmp_path / "one")["batches"])
    runner("CrashesOnSomeCases", edge, tmp_path / "resumed", 3, resume=True).run()
    assert rows(tmp_path / "resumed") == rows(tmp_path / "one")
    assert summary(tmp_path / "resumed") == summary(tmp_path / "one")


def test_a_batch_recorded_twice_counts_once(edge: Path, tmp_path: Path) -> None:
    batch = next(iter_batches(edge, 50))
    wrong = [{"result": "nonsense"}] * len(batch.cases)
    db = RunStore(tmp_path / "run.db")
    assert db.record(judge_batch(batch, wrong)) is True
    before = db.outcome_totals()
    assert before["fail"] == len(batch.cases)
    assert db.record(judge_batch(batch, wrong)) is False
    assert db.outcome_totals() == before
    assert db.db.execute("SELECT COUNT(*) FROM failures").fetchone()[0] == len(batch.cases)
    assert db.db.execute("SELECT COUNT(*) FROM batches").fetchone()[0] == 1
    db.close()


# -- shards and merge ---------------------------------------------------------------------------

def tablecert(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(parallel_vendors.__file__).parent))   # the test vendors
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG,
                          env=env)


def certify_cli(edge: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return tablecert("certify", "--vendor-plugin", f"{parallel_vendors.__name__}:CrashesOnSomeCases",
                     "--suite", "edge", "--suite-dir", str(edge), "--out", str(out), "--batch-size", "150",
                     "--quiet", *extra)


def sorted_rows(run_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Rows in rowid order; counts and confusion (sums over the shards) in key order."""
    out = rows(run_dir)
    out["meta"] = [r for r in out["meta"] if r[0] not in ("merged_from", "shard", "batch_size")]
    for table in ("counts", "confusion"):
        out[table] = sorted(out[table])
    return out


@pytest.fixture(scope="module")
def sharded(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An unsharded run (two workers, command line) and three shards of it (shard 1 through the
    command line, the others through certify() without PDFs, which is what the command calls)."""
    from tablecert.harness.run.certify import certify
    from tablecert.harness.adapters import VendorTarget
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.suites.reader import count_cases
    from tablecert.parallel import Shard

    base = tmp_path_factory.mktemp("sharded")
    runs = {"whole": base / "whole", **{f"{k}/3": base / f"shard{k}" for k in (1, 2, 3)}}
    assert certify_cli(edge, runs["whole"], "--workers", "2").returncode == 1
    done = certify_cli(edge, runs["1/3"], "--shard", "1/3")
    assert done.returncode == 1, done.stderr   # a shard can find failures (this vendor fails), never pass
    target = VendorTarget("python", f"{parallel_vendors.__name__}:CrashesOnSomeCases", SessionOptions())
    for k in (2, 3):
        result, summary = certify(target, "edge", runs[f"{k}/3"], suite_dir=edge, batch_size=150, reports=False,
                                  parallel=ParallelOptions(shard=Shard(k, 3)))
        assert result.verdict == "fail" and sum(summary["totals"].values()) < count_cases(edge) / 2   # its share only
    return runs


def test_three_shards_merged_are_the_unsharded_run(edge: Path, sharded: dict[str, Path], tmp_path: Path) -> None:
    shards = [str(sharded[f"{k}/3"]) for k in (3, 1, 2)]
    done = tablecert("merge", *shards, "--suite-dir", str(edge), "--out", str(tmp_path / "merged"))
    assert done.returncode == 1, done.stderr
    whole, merged = sharded["whole"], tmp_path / "merged"
    assert sorted_rows(merged) == sorted_rows(whole)
    assert sorted_rows(merged)["poisoned"] and sorted_rows(merged)["failures"]
    drop = TIMINGS | {"host"}
    assert ({k: v for k, v in json.loads((merged / "summary.json").read_text()).items() if k not in drop}
            == {k: v for k, v in json.loads((whole / "summary.json").read_text()).items() if k not in drop})
    assert (merged / "junit.xml").read_bytes() == (whole / "junit.xml").read_bytes()
    assert sorted(p.name for p in (merged / "failures").iterdir()) == sorted(p.name for p in (whole / "failures").iterdir())
    for kind in ("certificate", "findings"):
        texts = [pdf_text(run / f"{kind}.pdf") for run in (whole, merged)]
        assert texts[0] == texts[1] and "NOT CERTIFIED" in texts[0]


def pdf_text(path: Path) -> str:
    """The text of a PDF, its timestamps and the summary's digest (which covers them) blanked."""
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "TIME", text)
    digest = hashlib.sha256((path.parent / "summary.json").read_bytes()).hexdigest()
    text = text.replace(digest, "DIGEST").replace(digest[:16], "DIGEST")
    return re.sub(r"summary.json sha256 [0-9a-f]+", "summary.json sha256 DIGEST", text)


def test_a_shard_says_it_is_a_shard_and_how_to_merge(edge: Path, sharded: dict[str, Path], tmp_path: Path) -> None:
    """summary.json, page 1 of the certificate and the terminal name the shard; its exit status is
    its part's: 1 failed (the fixture's vendor), 2 passed (never 0: a shard is never certified)."""
    from pypdf import PdfReader

    failed = json.loads((sharded["1/3"] / "summary.json").read_text())
    assert failed["shard"] == "1/3" and failed["verdict"] == "fail"
    assert any("shard 1/3" in r and "tablecert merge" in r for r in failed["verdict_reasons"])
    out = tmp_path / "passing-shard"
    done = tablecert("certify", "--vendor-plugin", "reference", "--suite", "edge", "--suite-dir", str(edge),
                     "--out", str(out), "--batch-size", "150", "--quiet", "--shard", "2/2")
    assert done.returncode == 2, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["shard"] == "2/2" and summary["verdict"] == "incomplete" and summary["totals"]["fail"] == 0
    assert len(summary["verdict_reasons"]) == 1 and "never certified alone" in summary["verdict_reasons"][0]
    assert "shard:   2/2: this shard's part passed (exit status 2" in done.stdout
    assert "tablecert merge SHARD_DIR... --out RUN" in done.stdout
    page = " ".join(PdfReader(out / "certificate.pdf").pages[0].extract_text().split())
    assert "INCOMPLETE: SHARD 2/2 ONLY" in page and "tablecert merge" in page
    assert json.loads((sharded["whole"] / "summary.json").read_text())["shard"] is None


def test_a_missing_shard_is_refused_naming_it(edge: Path, sharded: dict[str, Path], tmp_path: Path) -> None:
    done = tablecert("merge", str(sharded["1/3"]), str(sharded["3/3"]), "--suite-dir", str(edge),
                     "--out", str(tmp_path / "merged"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "missing shard 2/3" in done.stderr
    assert not (tmp_path / "merged" / "run.db").exists()


def test_an_overlapping_shard_is_refused_naming_it(edge: Path, sharded: dict[str, Path], tmp_path: Path) -> None:
    done = tablecert("merge", *(str(sharded[f"{k}/3"]) for k in (1, 2, 3)), str(sharded["whole"]),
                     "--suite-dir", str(edge), "--out", str(tmp_path / "a"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{sharded['whole']}: not a shard run" in done.stderr
    again = tablecert("merge", *(str(sharded[f"{k}/3"]) for k in (1, 2, 3, 2)), "--suite-dir", str(edge),
                      "--out", str(tmp_path / "b"))
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "overlapping shard: 2/3" in again.stderr and str(sharded["2/3"]) in again.stderr


def test_a_shard_with_fifty_times_the_limits_is_refused_naming_the_field(edge: Path, tmp_path: Path) -> None:
    """Issue 47: two shards of the reference vendor as a subprocess, the second with 50 times the
    memory, process and CPU limits; merge once accepted it and certified under the first's limits."""
    vendor = f"{Path(sys.executable).parent / 'tablecert'} reference-vendor"
    common = ("certify", "--vendor-cmd", vendor, "--suite", "edge", "--suite-dir", str(edge), "--batch-size", "500",
              "--quiet")
    first = tablecert(*common, "--out", str(tmp_path / "s1"), "--shard", "1/2")
    wide = tablecert(*common, "--out", str(tmp_path / "s2"), "--shard", "2/2", "--memory-limit", str(50 * 4096),
                     "--max-processes", str(50 * 256), "--cpu-limit", str(50 * 3600))
    assert first.returncode == wide.returncode == 2, first.stderr + wide.stderr     # each part passed
    limits = [json.loads((tmp_path / s / "summary.json").read_text())["vendor_limits"] for s in ("s1", "s2")]
    assert "204,800 MiB" in limits[1] and "204,800 MiB" not in limits[0], limits
    done = tablecert("merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--suite-dir", str(edge),
                     "--out", str(tmp_path / "merged"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stdout + done.stderr
    assert f"{tmp_path / 's2'}: shard 2/2 differs from {tmp_path / 's1'} in vendor_limits" in done.stderr
    assert "204,800 MiB" in done.stderr
    assert not (tmp_path / "merged" / "run.db").exists()


@pytest.mark.parametrize("field, other", [("vendor_limits", "processes 12,800, memory 204,800 MiB a process"),
                                          ("vendor_bound", ["/opt/vendor", "/srv/lab"]),
                                          ("isolation", "none (process group only)"),
                                          ("tablecert_version", "0.9.0")])
def test_shards_confined_otherwise_or_of_another_tablecert_are_refused(field: str, other: Any) -> None:
    from tablecert.harness.model import RunMeta
    from tablecert.parallel import Shard
    from tablecert.parallel.merge import MergeError, ShardRun, check_shards

    meta = {"suite": "edge", "tablecert_version": "1.0.0", "isolation": "bubblewrap, user namespace",
            "vendor_limits": "processes 256, memory 4,096 MiB a process", "vendor_bound": ["/opt/vendor"],
            "vendor": {"name": "v", "version": "1", "build": "b", "ops": ["craps.odds"]}}
    metas = [{**meta, **({field: other} if k == 2 else {})} for k in (1, 2)]
    shards = [ShardRun(Path(f"/runs/s{k}"), None, m, RunMeta.of(m), Shard(k, 2), "")  # type: ignore[arg-type]
              for k, m in zip((1, 2), metas)]
    with pytest.raises(MergeError) as refused:
        check_shards(shards)
    assert str(refused.value).startswith(f"/runs/s2: shard 2/2 differs from /runs/s1 in {field} (")
    check_shards([shards[0], ShardRun(Path("/runs/s2"), None, meta, RunMeta.of(meta), Shard(2, 2), "")])  # type: ignore[arg-type]


def test_progress_lines_say_answers_per_second_and_time_left(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tablecert.harness.run import progress

    clock = iter([100.0, 120.0, 140.0])
    monkeypatch.setattr(progress.sys.stderr, "isatty", lambda: False)
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    log = progress.progress_callback("certifying", unit="vectors")
    log(1_000, 1_000_000)          # where this process began (a resumed run): no rate yet
    log(21_000, 1_000_000)         # 20,000 answers in 20 s
    log(41_000, 1_000_000)         # 40,000 in 40 s: 959,000 left at 1,000/s
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "certifying: 1,000/1,000,000 vectors (0%)"
    assert lines[1].endswith("1,000 answers/s, about 16 min left")
    assert lines[2] == "certifying: 41,000/1,000,000 vectors (4%), 1,000 answers/s, about 16 min left"


@pytest.mark.parametrize("done, seconds, said", [(3, 30.0, "one answer every 10 s, about 16 min left"),
                                                 (1, 200.0, "one answer every 3 min, about 5.5 h left"),
                                                 (30, 12.0, "2.5 answers/s, about 28 s left")])
def test_a_slow_run_never_says_zero_answers_a_second(done: int, seconds: float, said: str) -> None:
    """A live table's vector (a whole session, the vendor killed and restarted) takes seconds."""
    from tablecert.harness.run.progress import pace

    assert pace((0.0, 0), seconds, done, 100) == f", {said}"


# -- hand suites ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def joker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("joker")
    generate("joker", out)
    return out


WRONG_LABELS = '''
import sys
from tablecert.oracle.vendor import ReferenceVendor, serve

class WrongEighth(ReferenceVendor):
    """Gets the eighth hand of every request wrong (through the JSON path: a subclass never takes
    the fast path)."""
    def handle(self, request):
        answer = super().handle(request)
        results = answer.get("results") or []
        if len(results) > 7 and isinstance(results[7], dict):
            results[7]["hand"] = "none" if results[7].get("hand") != "none" else "five_aces"
        return answer

sys.exit(serve(sys.stdin, sys.stdout, WrongEighth()))
'''


def wrong_labels_runs(joker: Path, tmp_path: Path, vendor_files: Path, **runner_options: Any) -> dict[str, Any]:
    """The WRONG_LABELS vendor on 6,000 joker hands (700 a request), with one worker and with two:
    the rows of the one-worker run, checked equal to the two-worker run's."""
    from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter

    script = vendor_files / "wrong_labels.py"
    script.write_text(WRONG_LABELS)
    script.chmod(0o644)
    adapter, options = SubprocessAdapter(), SessionOptions(timeout=60)
    command = f"{sys.executable} {script}"
    for name, workers in (("one", None), ("two", 2)):
        Runner(lambda: adapter.open(command, options), joker, tmp_path / name, hand_batch_size=700, max_hands=6_000,
               parallel=ParallelOptions(workers=workers) if workers else None, **runner_options).run()
    expected = rows(tmp_path / "one")
    assert rows(tmp_path / "two") == expected
    return expected


def test_a_hand_suite_on_two_workers_records_what_one_records(joker: Path, tmp_path: Path, vendor_files: Path) -> None:
    expected = wrong_labels_runs(joker, tmp_path, vendor_files)
    assert len(expected["hand_failures"]) == len(expected["batches"]) == 2 * 9


@pytest.mark.parametrize("option, said", [(("--shard", "4/3"), "--shard '4/3': give K/N with 1 <= K <= N"),
                                          (("--workers", "0"), "--workers 0: give at least 1")])
def test_bad_parallel_options_are_refused_in_one_line(edge: Path, tmp_path: Path, option: tuple[str, str],
                                                      said: str) -> None:
    done = certify_cli(edge, tmp_path / "run", *option)
    assert done.returncode == 2 and done.stderr == f"tablecert: error: {said} (e.g. 2/3)\n".replace(
        " (e.g. 2/3)", " (e.g. 2/3)" if "shard" in said else "")
    assert not (tmp_path / "run").exists()


def test_an_instance_confined_otherwise_than_the_run_stops_it() -> None:
    from tablecert.harness.instance.recovery import FaultPolicy
    from tablecert.harness.instance.vendor_instance import identity_of
    from tablecert.harness.run.runner import RunError
    from tablecert.parallel.workers import Worker

    adapter = PythonAdapter()
    spec = f"{parallel_vendors.__name__}:RoundsCommissionUp"
    first = adapter.open(spec, SessionOptions())
    said = first.hello()
    first.close()
    identity = identity_of(said)
    alike = Worker(lambda: adapter.open(spec, SessionOptions()), identity, FaultPolicy(), set(),
                   isolation="none (in-process plugin)")
    assert alike._start() is not None
    alike.close()
    stronger = Worker(lambda: adapter.open(spec, SessionOptions()), identity, FaultPolicy(), set(),
                      isolation="pid namespace, private mounts")
    with pytest.raises(RunError, match="every instance must be confined alike"):
        stronger._start()
    assert stronger.session is None


def test_a_shard_resumes_only_as_the_same_shard(edge: Path, tmp_path: Path) -> None:
    from tablecert.harness.run.runner import RunError
    from tablecert.parallel import Shard

    def stop(done: int, total: int) -> None:
        raise Interrupt

    def shard(k: int, **kw: Any) -> Runner:
        adapter = PythonAdapter()
        spec = f"{parallel_vendors.__name__}:RoundsCommissionUp"
        return Runner(lambda: adapter.open(spec, SessionOptions(timeout=30)), edge, tmp_path, batch_size=150,
                      parallel=ParallelOptions(shard=Shard(k, 3)), **kw)

    with pytest.raises(Interrupt):
        shard(1, progress=stop).run()
    with pytest.raises(RunError, match="holds shard 1/3"):
        shard(2, resume=True).run()
    shard(1, resume=True).run()
    held = {first for (first,) in sqlite3.connect(tmp_path / "run.db").execute("SELECT first_tc FROM batches")}
    assert held and sqlite3.connect(tmp_path / "run.db").execute(
        "SELECT value FROM meta WHERE key = 'shard'").fetchone() == ('"1/3"',)


def test_a_parallel_hand_run_stops_after_n_failures_where_one_worker_stops(joker: Path, tmp_path: Path,
                                                                         vendor_files: Path) -> None:
    """stop-after-failures counts a hand batch's wrong hands on every path (it never fired on the
    parallel one, which counted only JSON failure rows; issue 23)."""
    expected = wrong_labels_runs(joker, tmp_path, vendor_files, stop_after_failures=5)
    # One wrong hand a batch (the eighth): the run stops once the fifth batch is recorded, of 18.
    assert len(expected["hand_failures"]) == len(expected["batches"]) == 5


def test_a_ray_address_where_no_head_answers_is_refused_in_one_line_before_any_run_folder(
        edge: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    import socket

    with socket.socket() as s:          # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = certify_cli(edge, tmp_path / "run", "--ray", f"127.0.0.1:{port}")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"tablecert: error: --ray 127.0.0.1:{port}: no Ray head answers there (")
    assert not (tmp_path / "run").exists()


def test_a_session_opened_ahead_is_greeted_as_the_instance_would_and_its_failure_is_the_first_units(
        edge: Path) -> None:
    """A Ray actor starts its vendor before importing the judging and hands the session to its
    instance (VendorInstance.adopt): a good one is the live session (nothing opened again); one
    whose greeting fails, or an opening that failed, is met by the first unit as a fault of its
    first attempt, recorded, the vendor restarted by the unit's recovery."""
    from tablecert.harness.contract import FaultKind, VendorFault
    from tablecert.harness.instance.vendor_instance import VendorInstance, identity_of
    from tablecert.harness.run.judging import judge
    from tablecert.harness.instance.recovery import FaultPolicy

    adapter = PythonAdapter()
    opened: list[str] = []

    def opener(name: str = "RoundsCommissionUp") -> Any:
        opened.append(name)
        return adapter.open(f"{parallel_vendors.__name__}:{name}", SessionOptions(timeout=30))

    probe = opener()
    identity = identity_of(probe.hello())
    probe.close()
    good = opener()
    opened.clear()
    instance = VendorInstance(opener, FaultPolicy(), began=identity)
    instance.adopt(good)
    assert instance.session() is good and opened == []
    instance.drop()

    batch = next(b for b in iter_batches(edge, 50) if b.op == "craps.settle")
    parallel_vendors.FirstHelloCrashes.hellos = 0
    failing = adapter.open(f"{parallel_vendors.__name__}:FirstHelloCrashes", SessionOptions(timeout=30))
    instance = VendorInstance(lambda: opener("FirstHelloCrashes"), FaultPolicy(), began=identity)
    instance.adopt(failing)
    assert instance.live is None and opened == []
    out = judge(instance, batch)
    assert [f.kind for f in out.faults] == ["crash"] and opened == ["FirstHelloCrashes"]   # then restarted once
    assert out.status == "done" and not any(k[2] == "fault" for k in out.counts)
    instance.drop()

    instance = VendorInstance(opener, FaultPolicy(), began=identity)
    instance.adopt(VendorFault(FaultKind.START, "cannot execute the vendor"))
    with pytest.raises(VendorFault, match="cannot execute the vendor"):
        instance.session()
    assert instance.session() is not None and opened[-1] == "RoundsCommissionUp"
    instance.drop()
