"""The verdict is anchored in what the harness judged (harness/record/judged_record.py): a vendor that reaches
run.db during the run and turns its failures into passes gets no verdict at all, and a run folder
whose database was changed after the run is not signed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.adapters.python_adapter import PythonAdapter
from tablecert.harness.contract import SessionOptions
from tablecert.harness.vendors.demo_vendor import DemoVendor
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.run.runner import Runner, RunError
from tablecert.harness.record.seal import run_key, seal_folder
from tablecert.reports.signing import SigningError, check_signable


class ForgingVendor(DemoVendor):
    """The demo vendor (it fails vectors), which at ``bye`` opens the run database it was given
    and erases its failures, as a vendor running unconfined in the lab's account could."""

    RUN_DB: Path | None = None

    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("op") == "bye" and ForgingVendor.RUN_DB is not None:
            with sqlite3.connect(ForgingVendor.RUN_DB) as db:
                db.execute("DELETE FROM failures")
                db.execute("DELETE FROM counts WHERE outcome = 'fail'")
        return super().handle(request)


def run(vendor: type, suite: Path, out: Path) -> Any:
    spec = f"{vendor.__module__}:{vendor.__qualname__}"
    adapter = PythonAdapter()
    return Runner(lambda: adapter.open(spec, SessionOptions(timeout=60)), suite, out, batch_size=500).run()


def test_a_vendor_that_forges_run_db_gets_no_verdict(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    ForgingVendor.RUN_DB = out / "run.db"
    try:
        with pytest.raises(RunError, match="no longer holds what the harness recorded.*failures.*counts"):
            run(ForgingVendor, edge, out)
    finally:
        ForgingVendor.RUN_DB = None
    meta = dict(sqlite3.connect(out / "run.db").execute("SELECT key, value FROM meta").fetchall())
    assert "verdict" not in meta and "judged" not in meta


def test_a_database_changed_after_the_run_is_not_signed(edge: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run(DemoVendor, edge, out).verdict == "fail"
    seal_folder(out, run_key())        # as certify seals a run (this test drives the Runner alone)
    summary = write_outputs(out)
    assert set(summary["judged"]) == {"batches", "failures", "faults", "hand_failures", "hand_answers", "hand_causes", "counts"}
    check_signable(out)                                   # as the run left it: signable
    with sqlite3.connect(out / "run.db") as db:
        db.execute("DELETE FROM failures WHERE rowid = (SELECT MIN(rowid) FROM failures)")
    with pytest.raises(SigningError, match="no longer holds what the harness recorded"):
        check_signable(out)
