"""--workers N: the run database and summary.json of a run on several vendor instances are those
of a one-worker run (timings aside), for a vendor with wrong answers, one that crashes on some
cases and one whose op is given up; a run interrupted with one N resumes with another; a batch
recorded twice counts once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.outputs import write_outputs
from tablecert.harness.results import RunDatabase
from tablecert.harness.runner import Runner, judge_batch
from tablecert.harness.suite_reader import iter_batches
from tablecert.parallel import ParallelOptions
from tablecert.vectors.suites import generate
import parallel_vendors

TIMINGS = {"started", "finished"}


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("edge")
    generate("edge", out)
    return out


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
    out = {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables if t != "meta"}
    out["meta"] = [r for r in db.execute("SELECT * FROM meta ORDER BY key") if r[0] not in TIMINGS]
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
    db = RunDatabase(tmp_path / "run.db")
    assert db.record(judge_batch(batch, wrong)) is True
    before = db.outcome_totals()
    assert before["fail"] == len(batch.cases)
    assert db.record(judge_batch(batch, wrong)) is False
    assert db.outcome_totals() == before
    assert db.db.execute("SELECT COUNT(*) FROM failures").fetchone()[0] == len(batch.cases)
    assert db.db.execute("SELECT COUNT(*) FROM batches").fetchone()[0] == 1
    db.close()
